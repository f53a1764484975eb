//! Reference rigid-body dynamics in world (ground) coordinates, in the notation of seed 000.
//!
//! Every algorithm is a function of `(&Model, &mut Workspace, inputs)`: the [`Workspace`] is built
//! once per model (and per thread) and nothing is allocated inside the loops. All spatial
//! quantities are world-frame: `S̄_i = Ad_{g_i} S_i`, `v̄_i`, `M̄_i = Ad_{g_i}^{-T} M_i Ad_{g_i}^{-1}`,
//! spatial accelerations `ā_i = d v̄_i / dt`, wrenches about the world origin.
//!
//! Generalized forces follow the joint order of [`Model::joints`]; `τ` is the total joint force
//! (actuators, springs, dampers — see [`Model::passive_forces`]) and the rigid-body algorithms
//! themselves contain no spring or damper.

mod aba;
mod crba;
mod energy;
mod held;
mod jacobian;
mod joint_frame;
mod kinematics;
mod momentum;
mod rk4;
mod rnea;
mod rnea_derivatives;
mod rnea_gradient;

pub use aba::forward_dynamics;
pub use crba::mass_matrix;
pub use energy::{center_of_mass, kinetic_energy, potential_energy, spring_energy};
pub use held::{HeldFrame, HeldWorkspace, frame_bias_acceleration, held_forward_dynamics};
pub use jacobian::{
    frame_jacobian, point_force_derivative, point_jacobian, point_velocity_derivative,
};
pub(crate) use joint_frame::JointFrame;
pub use kinematics::{forward_kinematics, forward_poses, forward_velocities, frame_pose};
pub use momentum::generalized_momentum;
pub use rk4::{Loads, simulate_rk4, simulate_rk4_held, simulate_rk4_with_loads};
pub use rnea::{bias_forces, inverse_dynamics};
pub use rnea_derivatives::{InverseDynamicsDerivatives, inverse_dynamics_derivatives};
pub use rnea_gradient::inverse_dynamics_gradient;

use crate::model::Model;
use crate::spatial::{Mat6, Transform, Vec6};

/// Preallocated buffers for the algorithms of this module, sized for one model.
#[derive(Clone, Debug)]
pub struct Workspace {
    n: usize,
    pub(crate) frames: Vec<JointFrame>,
    pub(crate) pose: Vec<Transform>,
    pub(crate) s_bar: Vec<Vec6>,
    pub(crate) m_bar: Vec<Mat6>,
    pub(crate) v_bar: Vec<Vec6>,
    pub(crate) s_dot: Vec<Vec6>,
    pub(crate) a_bar: Vec<Vec6>,
    pub(crate) f_bar: Vec<Vec6>,
    pub(crate) composite: Vec<Mat6>,
    pub(crate) art_inertia: Vec<Mat6>,
    pub(crate) art_bias: Vec<Vec6>,
    pub(crate) u_vec: Vec<Vec6>,
    pub(crate) d: Vec<f64>,
    pub(crate) u: Vec<f64>,
    pub(crate) psi_ddot: Vec<Vec6>,
    pub(crate) coriolis: Vec<Mat6>,
    pub(crate) lam_bar: Vec<Vec6>,
    pub(crate) y_sum: Vec<Vec6>,
    pub(crate) z_sum: Vec<Vec6>,
    /// Which [`forward_kinematics`] the poses and twists are of (see
    /// [`Workspace::kinematics_stamp`]).
    pub(crate) stamp: u64,
}

impl Workspace {
    /// Buffers for `model`.
    pub fn new(model: &Model) -> Self {
        let n = model.dof();
        Self {
            n,
            frames: model.joints().iter().map(JointFrame::new).collect(),
            pose: vec![Transform::identity(); n],
            s_bar: vec![Vec6::zeros(); n],
            m_bar: vec![Mat6::zeros(); n],
            v_bar: vec![Vec6::zeros(); n],
            s_dot: vec![Vec6::zeros(); n],
            a_bar: vec![Vec6::zeros(); n],
            f_bar: vec![Vec6::zeros(); n],
            composite: vec![Mat6::zeros(); n],
            art_inertia: vec![Mat6::zeros(); n],
            art_bias: vec![Vec6::zeros(); n],
            u_vec: vec![Vec6::zeros(); n],
            d: vec![0.0; n],
            u: vec![0.0; n],
            psi_ddot: vec![Vec6::zeros(); n],
            coriolis: vec![Mat6::zeros(); n],
            lam_bar: vec![Vec6::zeros(); n],
            y_sum: vec![Vec6::zeros(); n],
            z_sum: vec![Vec6::zeros(); n],
            stamp: 0,
        }
    }

    /// A number that names the [`forward_kinematics`] whose poses and twists the workspace
    /// holds: no other call gives the same (in any workspace), and 0 before the first. What is
    /// computed from the poses alone may be kept while the stamp is unchanged
    /// ([`crate::contact::ContactSample`]).
    pub fn kinematics_stamp(&self) -> u64 {
        self.stamp
    }

    /// Pose `g_i` of body `i` (after [`forward_kinematics`]).
    pub fn body_pose(&self, i: usize) -> &Transform {
        &self.pose[i]
    }

    /// World-frame joint twist `S̄_i` (after [`forward_kinematics`]).
    pub fn joint_twist(&self, i: usize) -> &Vec6 {
        &self.s_bar[i]
    }

    /// World-frame spatial inertia `M̄_i` (after [`forward_kinematics`]).
    pub fn body_inertia(&self, i: usize) -> &Mat6 {
        &self.m_bar[i]
    }

    /// Spatial velocity `v̄_i` (after [`forward_velocities`]).
    pub fn body_velocity(&self, i: usize) -> &Vec6 {
        &self.v_bar[i]
    }

    /// `Ṡ̄_i = ad_{v̄_i} S̄_i` (after [`forward_velocities`]).
    pub fn joint_twist_rate(&self, i: usize) -> &Vec6 {
        &self.s_dot[i]
    }

    #[track_caller]
    pub(crate) fn check(&self, model: &Model) {
        assert_eq!(self.n, model.dof(), "workspace built for another model");
    }
}

/// Checks a generalized vector's length.
#[track_caller]
pub(crate) fn check_len(name: &str, v: &[f64], n: usize) {
    assert_eq!(
        v.len(),
        n,
        "{name} has length {} but the model has {n} DoF",
        v.len()
    );
}

//! The Galerkin variational integrator of seed 000 and its fast recursive algorithms.
//!
//! One *stage* `k` spans `[kΔt, (k+1)Δt]` with control points `q^{k,0..=s}`; its discrete
//! Euler–Lagrange (DEL) equations (Eq. 5) are
//!
//! ```text
//! r^{k,0} = p^k + D_1 L_d + F_d^{k,0}            = 0
//! r^{k,α} =       D_{α+1} L_d + F_d^{k,α}        = 0     α = 1..s−1
//! p^{k+1} =       D_{s+1} L_d + F_d^{k,s}
//! ```
//!
//! - [`del_residual`] evaluates them in O(sn) (Algorithm 1, Proposition 1);
//! - [`newton_direction`] solves `J δq̄ = −r` for `q^{k,1..=s}` in O(s³n) (Algorithms I.1/I.2);
//! - [`linearize`] differentiates the stage in O(s²n²) (Algorithms 2, 3 and the chain rule);
//! - [`del_gradient`] gives `∇_q (λᵀ r)` in O(sn), and [`del_hessian`] its analytic Jacobian
//!   `∇²_q (λᵀ r)` in O(s²n²) (the Lagrangian's third derivative along one direction per control
//!   point); [`lagrangian_curvature`] is the same at one state;
//! - [`simulate`](simulate::simulate) steps a robot forward with Newton's method.
//!
//! Forces: gravity (through the model), joint springs and dampers, actuator torques `u` on the
//! actuated joints, and world-frame point forces on bodies ([`PointLoad`]) — contact and
//! constraint forces enter that way. All are sampled at the control points and weighted by the
//! quadrature, `F_d^{k,α} = w^α Δt F(t^{k,α})`.

mod constrained;
pub mod contact_simulation;
mod del;
mod del_gradient;
mod del_hessian;
pub mod galerkin;
mod lagrangian_curvature;
mod linearize;
mod newton;
pub mod simulate;
mod tangent;

pub use constrained::{
    ConstraintWorkspace, PointConstraint, constrained_newton_direction, constrained_residual,
};
pub use del::del_residual;
pub use del_gradient::{LoadWorkspace, StageGradient, del_gradient, load_gradient};
pub use del_hessian::{LOAD_DIFFERENCE_STEP, del_hessian};
pub use galerkin::Galerkin;
pub use lagrangian_curvature::{LagrangianCurvature, PointWorkspace, lagrangian_curvature};
pub use linearize::{StageJacobian, linearize};
pub use newton::{SingularJacobian, newton_direction};

use crate::dynamics::JointFrame;
use crate::model::Model;
use crate::spatial::{Mat6, Transform, Vec3, Vec6};

/// A point fixed on a body where a world-frame force acts (contact, constraint or external).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PointLoad {
    /// Body index.
    pub body: usize,
    /// Point in the body frame.
    pub offset: Vec3,
}

/// The inputs of one stage. Control point `α` of a per-point array starts at `α · width`.
#[derive(Clone, Copy, Debug)]
pub struct Stage<'a> {
    /// Time step `Δt` (> 0).
    pub dt: f64,
    /// Discrete momentum `p^k` (n).
    pub p: &'a [f64],
    /// Control points `q^{k,0..=s}` ((s+1)·n).
    pub q: &'a [f64],
    /// Actuator torques `u^{k,0..=s}` on `Model::actuated_joints()` ((s+1)·n_u).
    pub u: &'a [f64],
    /// Points where external forces act.
    pub loads: &'a [PointLoad],
    /// World-frame forces at the loads, `forces[(α·loads + l)·3 ..][..3]` ((s+1)·loads·3).
    pub forces: &'a [f64],
}

impl Stage<'_> {
    #[track_caller]
    fn check(&self, model: &Model, gal: &Galerkin, n_u: usize) {
        let (n, m) = (model.dof(), gal.s() + 1);
        assert!(self.dt > 0.0, "time step must be positive");
        assert_eq!(self.p.len(), n, "p^k must have n entries");
        assert_eq!(self.q.len(), m * n, "q must hold s+1 control points");
        assert_eq!(self.u.len(), m * n_u, "u must hold s+1 control points");
        assert_eq!(
            self.forces.len(),
            m * self.loads.len() * 3,
            "forces must hold s+1 points"
        );
    }
}

/// Buffers for the stage algorithms of one model and one integrator; entries of body `i` at
/// control point `α` live at index `i·(s+1) + α`.
#[derive(Clone, Debug)]
pub struct StageWorkspace {
    n: usize,
    s: usize,
    /// Per joint, the actuator inputs acting on it with their factors ([`Model::drives`]).
    drives: Vec<Vec<(usize, f64)>>,
    n_u: usize,
    frames: Vec<JointFrame>,
    tree: Paths,
    pub(crate) g: Vec<Transform>,
    pub(crate) sb: Vec<Vec6>,
    pub(crate) mb: Vec<Mat6>,
    pub(crate) v: Vec<Vec6>,
    pub(crate) sd: Vec<Vec6>,
    pub(crate) qd: Vec<f64>,
    pub(crate) mu: Vec<Vec6>,
    pub(crate) gam: Vec<Vec6>,
    pub(crate) fb: Vec<Vec6>,
    pub(crate) d1f: Vec<Mat6>,
    pub(crate) r: Vec<f64>,
    pub(crate) newton: newton::NewtonBuffers,
    pub(crate) lin: linearize::LinearizeBuffers,
    pub(crate) tangent: tangent::TangentBuffers,
    /// The direction `(c_1, c_2)` of one control point of [`del_gradient`] and [`del_hessian`].
    pub(crate) c1: Vec<f64>,
    pub(crate) c2: Vec<f64>,
    pub(crate) loads: del_gradient::LoadWorkspace,
    pub(crate) load_curvature: del_hessian::LoadCurvatureBuffers,
}

impl StageWorkspace {
    /// Buffers for `model` under the integrator `gal`.
    pub fn new(model: &Model, gal: &Galerkin) -> Self {
        Self::with_intervals(model, gal.s())
    }

    /// Buffers for one control point (`s = 0`): the single-state algorithms.
    pub(crate) fn point(model: &Model) -> Self {
        Self::with_intervals(model, 0)
    }

    fn with_intervals(model: &Model, s: usize) -> Self {
        let n = model.dof();
        let m = s + 1;
        let mut drives = vec![Vec::new(); n];
        for d in model.drives() {
            drives[d.joint].push((d.column, d.factor));
        }
        Self {
            n,
            s,
            drives,
            n_u: model.actuated_joints().len(),
            frames: model.joints().iter().map(JointFrame::new).collect(),
            tree: Paths::new(model),
            g: vec![Transform::identity(); n * m],
            sb: vec![Vec6::zeros(); n * m],
            mb: vec![Mat6::zeros(); n * m],
            v: vec![Vec6::zeros(); n * m],
            sd: vec![Vec6::zeros(); n * m],
            qd: vec![0.0; n * m],
            mu: vec![Vec6::zeros(); n * m],
            gam: vec![Vec6::zeros(); n * m],
            fb: vec![Vec6::zeros(); n * m],
            d1f: vec![Mat6::zeros(); n * m],
            r: vec![0.0; n * m],
            newton: newton::NewtonBuffers::new(n, s),
            lin: linearize::LinearizeBuffers::new(n, s),
            tangent: tangent::TangentBuffers::new(n, s),
            c1: vec![0.0; n],
            c2: vec![0.0; n],
            loads: del_gradient::LoadWorkspace::new(model),
            load_curvature: del_hessian::LoadCurvatureBuffers::new(n),
        }
    }

    /// Number of actuator inputs per control point.
    pub fn n_u(&self) -> usize {
        self.n_u
    }

    #[track_caller]
    fn check(&self, model: &Model, gal: &Galerkin) {
        assert!(
            self.n == model.dof() && self.s == gal.s(),
            "stage workspace built for another model or integrator"
        );
    }

    #[inline]
    fn idx(&self, i: usize, alpha: usize) -> usize {
        i * (self.s + 1) + alpha
    }
}

/// Each body's path to the root, itself first: the ancestor loops of the stage algorithms over
/// contiguous memory.
#[derive(Clone, Debug)]
pub(crate) struct Paths {
    flat: Vec<usize>,
    start: Vec<usize>,
    chain: bool,
}

impl Paths {
    pub(crate) fn new(model: &Model) -> Self {
        let mut flat = Vec::new();
        let mut start = vec![0];
        for i in 0..model.dof() {
            flat.extend(model.ancestors_inclusive(i));
            start.push(flat.len());
        }
        let chain = (0..model.dof()).all(|i| start[i + 1] - start[i] == i + 1);
        Self { flat, start, chain }
    }

    /// `i` and its ancestors, from `i` towards the root.
    #[inline]
    pub(crate) fn path(&self, i: usize) -> &[usize] {
        &self.flat[self.start[i]..self.start[i + 1]]
    }

    /// Whether of any two bodies one is an ancestor of the other (a serial chain).
    pub(crate) fn is_chain(&self) -> bool {
        self.chain
    }
}

//! Forward dynamics with frames held fixed in the world: the Lagrange-multiplier form of a
//! holonomic constraint that keeps each frame's twist constant (zero for a foot flat on the
//! ground),
//!
//! ```text
//! M(q) q̈ + b(q, q̇) = τ + Jᵀ λ,      J q̈ + J̇ q̇ = 0,
//! ```
//!
//! solved by the Schur complement on the Cholesky factor of `M`: `y = M⁻¹(τ − b)`,
//! `X = M⁻¹Jᵀ`, `λ = (J X)⁻¹(−J̇q̇ − J y)`, `q̈ = y + X λ` — O(n³ + m n²), for the reference
//! re-simulation of motions with stance feet, not for hot loops. `J` stacks the frames' 6×n
//! Jacobians `(ω; ṗ)` ([`frame_jacobian`]); `λ` holds each frame's constraint wrench, the
//! torque about the frame's origin then the force (world axes). The bias `J̇q̇` of a frame at
//! `p` on a body whose spatial velocity is `(ω, v_o)` (world axes, at the world origin) is
//! `(α, a_o + α × p + ω × ṗ)` with `(α, a_o) = Σ_j Ṡ̄_j q̇_j` over the body's path to the root:
//! the frame's acceleration at `q̈ = 0`.

use super::{
    Workspace, bias_forces, forward_kinematics, forward_velocities, frame_jacobian, mass_matrix,
};
use crate::model::Model;
use crate::spatial::{Transform, Vec6, lower, upper};
use nalgebra::{DMatrix, DVector};

/// A frame on a body, held fixed in the world.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HeldFrame {
    /// The body.
    pub body: usize,
    /// The frame in the body's frame.
    pub placement: Transform,
}

/// Buffers of [`held_forward_dynamics`] for one model and set of frames.
#[derive(Clone, Debug)]
pub struct HeldWorkspace {
    mass: DMatrix<f64>,
    jac: DMatrix<f64>,
    frame_jac: DMatrix<f64>,
    bias: DVector<f64>,
    b: Vec<f64>,
    /// The frames' constraint wrenches of the last solve, 6 per frame.
    pub wrenches: DVector<f64>,
}

impl HeldWorkspace {
    /// Buffers for `frames` frames of `model`.
    pub fn new(model: &Model, frames: usize) -> Self {
        let n = model.dof();
        Self {
            mass: DMatrix::zeros(n, n),
            jac: DMatrix::zeros(6 * frames, n),
            frame_jac: DMatrix::zeros(6, n),
            bias: DVector::zeros(6 * frames),
            b: vec![0.0; n],
            wrenches: DVector::zeros(6 * frames),
        }
    }
}

/// `J̇q̇` of a frame (6: angular, then the linear acceleration of its origin) at the joint
/// velocities `v`, after [`forward_kinematics`] and [`forward_velocities`] with them.
pub fn frame_bias_acceleration(
    model: &Model,
    ws: &Workspace,
    frame: &HeldFrame,
    v: &[f64],
) -> Vec6 {
    let p = ws.pose[frame.body].transform_point(&frame.placement.translation);
    let mut rate = Vec6::zeros();
    for j in model.ancestors_inclusive(frame.body) {
        rate += ws.s_dot[j] * v[j];
    }
    let velocity = ws.v_bar[frame.body];
    let (omega, v_o) = (upper(&velocity), lower(&velocity));
    let (alpha, a_o) = (upper(&rate), lower(&rate));
    let p_dot = v_o + omega.cross(&p);
    let linear = a_o + alpha.cross(&p) + omega.cross(&p_dot);
    Vec6::new(alpha.x, alpha.y, alpha.z, linear.x, linear.y, linear.z)
}

/// `q̈` of `model` at `(q, v)` under the joint forces `tau` with `frames` held (their twists
/// kept constant), into `qdd`; the constraint wrenches into `hw.wrenches`. Returns `false`
/// when `M` or `J M⁻¹ Jᵀ` is singular (redundant frames), leaving `qdd` untouched.
///
/// # Panics
/// If a vector does not have `model.dof()` entries or `hw` was built for another number of
/// frames.
#[allow(clippy::too_many_arguments)]
pub fn held_forward_dynamics(
    model: &Model,
    ws: &mut Workspace,
    hw: &mut HeldWorkspace,
    frames: &[HeldFrame],
    q: &[f64],
    v: &[f64],
    tau: &[f64],
    qdd: &mut [f64],
) -> bool {
    let n = model.dof();
    assert_eq!(
        hw.jac.nrows(),
        6 * frames.len(),
        "held workspace for other frames"
    );
    mass_matrix(model, ws, q, &mut hw.mass);
    bias_forces(model, ws, q, v, &mut hw.b);
    forward_kinematics(model, ws, q);
    forward_velocities(model, ws, v);
    for (k, f) in frames.iter().enumerate() {
        frame_jacobian(model, ws, f.body, &f.placement, &mut hw.frame_jac);
        hw.jac.rows_mut(6 * k, 6).copy_from(&hw.frame_jac);
        let c = frame_bias_acceleration(model, ws, f, v);
        hw.bias.rows_mut(6 * k, 6).copy_from(&c);
    }
    let Some(chol) = hw.mass.clone().cholesky() else {
        return false;
    };
    let rhs = DVector::from_iterator(n, tau.iter().zip(&hw.b).map(|(t, b)| t - b));
    let y = chol.solve(&rhs);
    let x = chol.solve(&hw.jac.transpose());
    let schur = &hw.jac * &x;
    let Some(schur) = schur.cholesky() else {
        return false;
    };
    let lambda = schur.solve(&(-&hw.bias - &hw.jac * &y));
    let a = y + x * &lambda;
    qdd.copy_from_slice(a.as_slice());
    hw.wrenches.copy_from(&lambda);
    true
}

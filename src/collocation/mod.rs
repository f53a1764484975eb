//! Hermite–Simpson direct collocation in its implicit form (seed 000 §5.3, Table 1): the
//! baseline vito compares its variational-integrator transcription against, built with exact
//! sparse Jacobians from analytic inverse-dynamics derivatives (seed 004) so that the
//! comparison is against a fast competitor.
//!
//! # Points and variables
//!
//! `N` intervals of length `h = T/N` carry `2N + 1` points: knot `k` (time `k h`) is point `2k`
//! and the midpoint of interval `k` (time `(k + ½) h`) is point `2k + 1`. Every point `p` has
//! the variables `[q_p, v_p, a_p, u_p]` (`n, n, n, n_u`), points one after another
//! ([`HermiteSimpsonLayout`]), optionally after an offset in a larger decision vector:
//! `(2N + 1)(3n + n_u)` variables, `(8N + 4) n` for a fully actuated robot as in Table 1
//! (`m = 0`). Here `u_p` are the torques of
//! [`Model::actuated_joints`](crate::model::Model::actuated_joints) and `B` the `n × n_u`
//! selection matrix that puts them on their joints.
//!
//! # Constraint rows, in order
//!
//! 1. Inverse dynamics at every point `p = 0..2N` (`n` rows each, row `p n + i`):
//!    `RNEA(q_p, v_p, a_p) − B u_p − τ_passive(q_p, v_p) = 0`, with
//!    `τ_passive,i = −k_i (q_i − q_rest,i) − d_i v_i` (springs and dampers,
//!    [`Model::passive_force`](crate::model::Model::passive_force)).
//! 2. For every interval `k` (knots `k`, `k+1`, midpoint `m`), `4n` rows starting at
//!    `(2N + 1) n + 4 k n`, each block `n` rows:
//!    - interpolation of `q`: `q_m − (q_k + q_{k+1})/2 − h/8 (v_k − v_{k+1}) = 0`;
//!    - interpolation of `v`: `v_m − (v_k + v_{k+1})/2 − h/8 (a_k − a_{k+1}) = 0`;
//!    - integration of `q`: `q_{k+1} − q_k − h/6 (v_k + 4 v_m + v_{k+1}) = 0`;
//!    - integration of `v`: `v_{k+1} − v_k − h/6 (a_k + 4 a_m + a_{k+1}) = 0`.
//!
//! That is `(2N + 1) n + 4 N n = (6N + 1) n` rows, Table 1's count for `m = 0`. On a smooth
//! trajectory the interpolation defects are `O(h⁴)` and the integration defects `O(h⁵)`.
//!
//! # Jacobian
//!
//! The pattern ([`HermiteSimpson::jacobian_structure`]) is fixed. The inverse-dynamics rows of
//! a point depend on that point's variables only: `∂/∂q = ∂τ/∂q + K`, `∂/∂v = ∂τ/∂q̇ + D`,
//! `∂/∂a = M(q)`, `∂/∂u = −B` (`K`, `D` diagonal stiffness and damping). The pattern keeps the
//! tree sparsity of the rigid-body terms: entry `(i, j)` is present only when joints `i` and `j`
//! lie on one path to the root. The defect rows are linear with constant coefficients, 5 per
//! row. Values are laid out point by point (a contiguous run per point), then interval by
//! interval (a contiguous run per interval), so each rayon task writes its own slice; the
//! inverse-dynamics blocks come from one pass of
//! [`inverse_dynamics_derivatives`](crate::dynamics::inverse_dynamics_derivatives) per point.
//!
//! # Interpolation
//!
//! [`HermiteSimpson::interpolate`] samples a solution at any time: `a` and `u` quadratic
//! through the three points of each interval, `q` and `v` the cubics whose derivatives are the
//! quadratics through the three velocities and accelerations (the Hermite–Simpson state
//! interpolant).

mod hermite_simpson;
mod layout;

pub use hermite_simpson::{HermiteSimpson, interpolate};
pub use layout::{HermiteSimpsonLayout, Var};

/// Input the collocation cannot be built from.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CollocationError {
    /// The number of intervals `N` is zero.
    #[error("Hermite–Simpson collocation needs at least one interval, got 0")]
    NoIntervals,
    /// The duration `T` is not positive and finite.
    #[error("the duration must be positive and finite, got {0}")]
    InvalidDuration(f64),
    /// The robot has no joint to move.
    #[error("robot '{0}' has no degrees of freedom")]
    NoDegreesOfFreedom(String),
}

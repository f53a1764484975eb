//! QP solvers: the interface an SQP's subproblems are posed in, the Clarabel and OSQP backends,
//! and the working-set solver on the KKT system ([`ActiveSetQp`]) with the inertia correction
//! it shares with the NLP methods ([`InertiaSettings`]). Nothing here knows about SQP.
//!
//! A backend solves
//!
//! ```text
//! minimize    ½ xᵀ P x + qᵀ x
//! subject to  l <= A x <= u
//! ```
//!
//! with `P` given as its upper triangle. Infinite entries of `l` and `u` mean "no bound";
//! a row with `l == u` is an equality. The sparsity patterns of `P` and `A`, and which sides of
//! each row are finite, stay the same from one call to the next within a solve: a backend
//! builds its data structures at the first call and afterwards only refreshes values.

use nalgebra_sparse::CscMatrix;

mod active_set;
mod clarabel;
pub(crate) mod kkt;
#[cfg(feature = "osqp")]
mod osqp;
pub(crate) mod sparse;

pub(crate) use active_set::working_set_of;
pub use active_set::{ActiveSetFailure, ActiveSetQp, ActiveSetSettings, FaceSolution, Side};
pub use clarabel::ClarabelQp;
pub use kkt::InertiaSettings;
#[cfg(feature = "osqp")]
pub use osqp::{OSQP_INFTY, OsqpQp};

/// One QP instance, borrowed from the SQP iteration.
#[derive(Debug, Clone, Copy)]
pub struct QpProblem<'a> {
    /// Upper triangle of the (positive semidefinite) Hessian `P`, `n × n`.
    pub hessian: &'a CscMatrix<f64>,
    /// Linear term `q`, length `n`.
    pub linear: &'a [f64],
    /// Constraint matrix `A`, `m × n`.
    pub constraints: &'a CscMatrix<f64>,
    /// Row lower bounds `l`, length `m`.
    pub lower: &'a [f64],
    /// Row upper bounds `u`, length `m`.
    pub upper: &'a [f64],
}

/// How a QP solve ended, as reported by the backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QpStatus {
    /// Solved to the requested accuracy.
    Solved,
    /// The backend stopped with a solution of reduced accuracy.
    SolvedInaccurate,
    /// The constraints are inconsistent.
    PrimalInfeasible,
    /// The objective is unbounded below on the feasible set.
    DualInfeasible,
    /// The backend hit its iteration or time limit.
    IterationLimit,
    /// Setup or numerical failure; see [`QpSolution::message`].
    Failed,
}

impl QpStatus {
    /// Whether `x` and `y` hold a solution to the requested accuracy. A reduced-accuracy
    /// answer does not count: the SQP treats it like a failed QP.
    pub fn has_solution(self) -> bool {
        self == Self::Solved
    }
}

/// A backend's answer. The vectors are resized by the backend and reused between calls.
/// `x` and `y` may hold the backend's last iterate even when it reports no solution: the SQP
/// starts its working-set solver from the rows that iterate points at.
#[derive(Debug, Clone)]
pub struct QpSolution {
    /// Outcome of the solve.
    pub status: QpStatus,
    /// Primal solution, length `n`.
    pub x: Vec<f64>,
    /// Row multipliers, length `m`, with `P x + q + Aᵀ y = 0`: positive at an active upper
    /// bound, negative at an active lower bound.
    pub y: Vec<f64>,
    /// Iterations the backend took.
    pub iterations: usize,
    /// Numeric factorizations of a KKT matrix the backend performed (an interior-point method
    /// factors once per iteration, plus once for its starting point).
    pub factorizations: usize,
    /// Backend detail for `Failed` (and any other status the backend explains).
    pub message: String,
}

impl Default for QpSolution {
    fn default() -> Self {
        Self {
            status: QpStatus::Failed,
            x: Vec::new(),
            y: Vec::new(),
            iterations: 0,
            factorizations: 0,
            message: String::new(),
        }
    }
}

/// A QP backend for convex QPs (`P` positive semidefinite). The SQP calls it for the first QP
/// of a solve, when its own working-set solver fails, and for the elastic and restoration
/// subproblems; it must report `PrimalInfeasible` only for an inconsistent QP (the SQP then
/// relaxes the linearization). Implementations keep their factorization workspace between
/// calls.
pub trait QpSolver {
    /// Short name of the backend, for logs.
    fn name(&self) -> &'static str;

    /// Solves `qp`, starting from `(x, y)` when the backend can warm start (the slices are
    /// empty when there is no guess).
    fn solve(
        &mut self,
        qp: &QpProblem<'_>,
        warm_x: &[f64],
        warm_y: &[f64],
        solution: &mut QpSolution,
    );
}

/// Which sides of a row are finite, the part of the pattern a backend may depend on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RowKind {
    /// `l == u`.
    Equality,
    /// Only `u` finite.
    Upper,
    /// Only `l` finite.
    Lower,
    /// Both finite, `l < u`.
    Range,
    /// Neither finite.
    Free,
}

impl RowKind {
    pub(crate) fn of(lower: f64, upper: f64) -> Self {
        match (lower.is_finite(), upper.is_finite()) {
            (true, true) if lower == upper => Self::Equality,
            (true, true) => Self::Range,
            (false, true) => Self::Upper,
            (true, false) => Self::Lower,
            (false, false) => Self::Free,
        }
    }
}

/// The `(rows, columns, nonzeros)` of a matrix: what a backend checks before reusing its
/// setup.
pub(crate) fn shape(a: &CscMatrix<f64>) -> (usize, usize, usize) {
    (a.nrows(), a.ncols(), a.nnz())
}

/// The [`RowKind`] of every row of `qp`, written into `kinds`.
pub(crate) fn row_kinds(qp: &QpProblem<'_>, kinds: &mut Vec<RowKind>) {
    kinds.clear();
    kinds.extend(
        qp.lower
            .iter()
            .zip(qp.upper)
            .map(|(&l, &u)| RowKind::of(l, u)),
    );
}

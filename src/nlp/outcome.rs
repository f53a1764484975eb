//! What a solve returns: the status, the final point with its multipliers and residuals,
//! evaluation counts, the time split and the iteration history, one record per iterate.

use std::time::Duration;

use super::settings::Method;

/// How a solve ended. Only `Converged` and `Acceptable` mean that the returned point
/// satisfies the (tight or loose) optimality tolerances.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Status {
    /// All tolerances met: constraint violation, scaled dual infeasibility, scaled
    /// complementarity and complementarity-pair violation.
    Converged,
    /// The acceptable tolerances were met for `acceptable_iterations` consecutive iterates,
    /// or the solve could not continue from a point that meets them.
    Acceptable,
    /// The iteration limit was reached first.
    MaxIterations,
    /// The wall-time limit was reached first.
    TimeLimit,
    /// The iterates converged to a point that locally minimizes the constraint violation
    /// without reaching feasibility.
    LocallyInfeasible,
    /// The problem's functions could not be evaluated at the starting point. (Later failed
    /// evaluations only shorten the step: every accepted point has finite derivatives.)
    EvaluationError,
    /// The QP backend could not solve a subproblem, even in elastic mode with increased
    /// regularization.
    QpFailure,
    /// No step length along the search direction decreased the merit function, even after
    /// resetting the Hessian model.
    LineSearchFailure,
}

/// Number of calls of each problem callback.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EvaluationCounts {
    /// [`Nlp::objective`](crate::nlp::Nlp::objective).
    pub objective: usize,
    /// [`Nlp::gradient`](crate::nlp::Nlp::gradient).
    pub gradient: usize,
    /// [`Nlp::constraints`](crate::nlp::Nlp::constraints).
    pub constraints: usize,
    /// [`Nlp::jacobian_values`](crate::nlp::Nlp::jacobian_values).
    pub jacobian: usize,
    /// [`Nlp::hessian_values`](crate::nlp::Nlp::hessian_values).
    pub hessian: usize,
}

/// Where the wall time went.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Timing {
    /// The whole solve.
    pub total: Duration,
    /// Inside the problem's callbacks.
    pub nlp_evaluation: Duration,
    /// Inside linear algebra: the QP solves of the SQP, the Newton systems' factorizations
    /// and solves of the interior point.
    pub linear: Duration,
}

impl Timing {
    /// Everything else: assembly, Hessian modification, line search bookkeeping, reporting.
    pub fn other(&self) -> Duration {
        self.total.saturating_sub(self.nlp_evaluation + self.linear)
    }
}

/// Optimality measures at a point. See the [module documentation](crate::sqp) for the
/// scaling.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Residuals {
    /// Largest absolute violation of a constraint row or bound (complementarity product
    /// rows included, measured against the current relaxation).
    pub primal_infeasibility: f64,
    /// `‖∇f + Jᵀλ + z‖∞ / s_d`.
    pub dual_infeasibility: f64,
    /// Largest `|multiplier × distance to its bound|` over inequalities and bounds, `/ s_d`.
    pub complementarity: f64,
    /// Largest `|min(a, b)|` over the declared complementarity pairs (0 without pairs).
    pub complementarity_violation: f64,
}

/// The result of a solve: always returned, whatever the status.
#[derive(Debug, Clone)]
pub struct SolverResult {
    /// How the solve ended.
    pub status: Status,
    /// One sentence on why it ended.
    pub message: String,
    /// The method that ran ([`Method::resolve`]: never `Auto`).
    pub method: Method,
    /// The final point.
    pub x: Vec<f64>,
    /// `f(x)`.
    pub objective: f64,
    /// `c(x)` for the problem's own rows.
    pub constraints: Vec<f64>,
    /// Multipliers of the problem's constraint rows (sign convention in [`Nlp`](crate::nlp::Nlp)).
    pub constraint_multipliers: Vec<f64>,
    /// Multipliers of the variable bounds.
    pub bound_multipliers: Vec<f64>,
    /// Multipliers of the internal product rows `a_k·b_k <= ε`, one per pair.
    pub complementarity_multipliers: Vec<f64>,
    /// Optimality measures at `x`.
    pub residuals: Residuals,
    /// Relaxation `ε` of the complementarity products at the end (0 without pairs).
    pub relaxation: f64,
    /// Iterations performed (by every method that ran: a fallback's are added).
    pub iterations: usize,
    /// Linear solves: QP iterations summed over the SQP's subproblems, Newton-system solves
    /// of the interior point.
    pub linear_solves: usize,
    /// Callback counts.
    pub evaluations: EvaluationCounts,
    /// Time split.
    pub timing: Timing,
    /// One record per iterate, starting with the initial point.
    pub history: Vec<IterationRecord>,
}

impl SolverResult {
    /// The result of a solve that went on with `later` from where this one ended, on the same
    /// clock: `later`'s point and status, with both histories (`later`'s iterations numbered
    /// on), and the iterations, evaluations and times of both.
    pub fn followed_by(self, mut later: SolverResult) -> SolverResult {
        let offset = self.iterations;
        let mut history = self.history;
        history.extend(later.history.into_iter().skip(1).map(|mut h| {
            h.iteration += offset;
            h
        }));
        later.history = history;
        later.iterations += offset;
        later.linear_solves += self.linear_solves;
        let (e, f) = (&mut later.evaluations, self.evaluations);
        e.objective += f.objective;
        e.gradient += f.gradient;
        e.constraints += f.constraints;
        e.jacobian += f.jacobian;
        e.hessian += f.hessian;
        later.timing.nlp_evaluation += self.timing.nlp_evaluation;
        later.timing.linear += self.timing.linear;
        later
    }
}

/// Everything known about one iterate, for logs and plots.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct IterationRecord {
    /// Iteration number; 0 is the starting point.
    pub iteration: usize,
    /// `f(x)`.
    pub objective: f64,
    /// Largest constraint violation.
    pub primal_infeasibility: f64,
    /// Scaled dual infeasibility.
    pub dual_infeasibility: f64,
    /// Scaled complementarity.
    pub complementarity: f64,
    /// Largest `|min(a, b)|` over complementarity pairs.
    pub complementarity_violation: f64,
    /// Hessian shift `δ` (inertia correction) of the step that led here.
    pub regularization: f64,
    /// Step length `α` of the step that led here.
    pub step_length: f64,
    /// `‖d‖∞` of the step that led here.
    pub step_norm: f64,
    /// Merit penalty `ν` after the step (SQP).
    pub penalty: f64,
    /// Barrier parameter `μ` at this iterate (interior point; 0 for the SQP).
    pub barrier: f64,
    /// The problem's smoothing `μ_s` at this iterate, along a smoothing path (either method:
    /// `Solver::solve_smoothed`; 0 otherwise).
    pub smoothing: f64,
    /// Linear solves of the step: QP iterations (SQP), Newton-system solves (interior point).
    pub linear_solves: usize,
    /// Wall time of the step's linear algebra (QPs, factorizations, solves), in seconds.
    pub linear_time_s: f64,
    /// Wall time of the whole step (QPs, evaluations, line search), in seconds.
    pub step_time_s: f64,
    /// Numeric sparse factorizations spent on the step: vito's own `LDLᵀ` factorizations and
    /// the QP backend's (see [`QpSolution::factorizations`](crate::qp::QpSolution::factorizations)).
    pub factorizations: usize,
    /// The step came from the elastic subproblem.
    pub elastic: bool,
    /// The step was a second-order correction.
    pub second_order_correction: bool,
    /// The step's QP was solved by the QP backend (a cold start, or after the working-set
    /// solver failed) rather than from the previous working set alone.
    pub backend_qp: bool,
    /// The step was accepted by the ℓ1-merit fallback of the line search, not the filter.
    pub merit_step: bool,
    /// The step was a feasibility restoration step.
    pub restoration: bool,
    /// The step was retried with a strengthened Hessian model (larger shift for exact
    /// Hessians, reset for BFGS) after a failed QP or line search.
    pub hessian_reset: bool,
    /// The interior point returned to the last solved barrier subproblem, after a failed step
    /// or a stalled subproblem, to decrease `μ` less (`interior/retreat.rs`).
    pub retreat: bool,
    /// The complementarity relaxation was decreased at this iterate.
    pub relaxation_decreased: bool,
}

impl IterationRecord {
    /// The largest of the three KKT residuals.
    pub fn kkt_error(&self) -> f64 {
        self.primal_infeasibility
            .max(self.dual_infeasibility)
            .max(self.complementarity)
    }
}

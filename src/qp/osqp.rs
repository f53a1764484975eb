//! The OSQP backend (ADMM with polishing), behind the cargo feature `osqp`.
//!
//! OSQP takes `l <= Ax <= u` directly; infinite bounds are replaced by OSQP's own
//! `OSQP_INFTY = 1e30`. Its default tolerances (1e-3) are far too loose for an SQP step, so
//! the backend asks for `eps_abs = eps_rel = qp_tolerance`, infeasibility tolerances of 1e-9,
//! polishing (an active-set refinement that makes the solution exact when it succeeds) and a
//! large iteration limit, spent in rounds of doubling length with vito's working-set solver
//! (`active_set.rs`) started between them from the rows the ADMM iterate points at (see
//! [`FIRST_ROUND`]). The workspace is set up once;
//! later calls update `P`, `A`, `q`, `l`, `u` in place (keeping the factorization pattern)
//! and warm start from the given primal and dual guess, or start cold (zeros) when there is
//! none. The `rho` adaptation runs every 25 iterations rather than on OSQP's timing-based
//! default, so that a solve is reproducible. OSQP's Rust wrapper panics if an in-place update
//! fails inside the C library; such a panic is caught, reported as [`QpStatus::Failed`] and
//! the workspace is rebuilt at the next call.

use std::panic::{AssertUnwindSafe, catch_unwind};

use nalgebra_sparse::CscMatrix;
use osqp::{CscMatrix as OsqpCsc, Problem, Settings, Status};

use super::active_set::{ActiveSetQp, ActiveSetSettings, Side, working_set_of};
use super::kkt::InertiaSettings;
use super::{QpProblem, QpSolution, QpSolver, QpStatus, RowKind, row_kinds, shape};

/// OSQP's representation of an infinite bound (`OSQP_INFTY` in its `constants.h`).
pub const OSQP_INFTY: f64 = 1e30;

/// Tolerance of OSQP's infeasibility certificates: it accepts `δy` once
/// `‖Aᵀδy‖∞ < ε‖δy‖∞` and `uᵀδy₊ + lᵀδy₋ < ε‖δy‖∞` (in its Ruiz-scaled data, and with `10ε`
/// at the end of every round). At 1e-6 the certificates it accepted on the acrobot
/// Hermite–Simpson swing-up, checked against the unscaled QP, only excluded feasible steps
/// shorter than 10⁴–10⁵ (`-σ / ‖Aᵀδy‖₁`); most of the SQP's iterations became elastic steps
/// and the solve ended `QpFailure` after 97 iterations. At 1e-9 it converges in 101 to the
/// objective Clarabel finds, and a truly inconsistent linearization is still detected, only
/// after more ADMM iterations (`tests/sqp_behaviour.rs`).
const INFEASIBILITY_TOLERANCE: f64 = 1e-9;

/// ADMM iterations between step-size (`rho`) adaptations. OSQP's default ties the interval to
/// the measured setup time, which makes results depend on machine load; a fixed interval keeps
/// solves reproducible.
const ADAPTIVE_RHO_INTERVAL: u32 = 25;

/// ADMM iterations of the first round of a solve; each further round doubles it. Between
/// rounds the working-set solver is tried from the current iterate's active rows, which
/// certifies the solution once ADMM has found the face: ADMM took 10⁴–10⁵ iterations to reach
/// 1e-9 on the trajectory problems' QPs, and the face is usually found within a few thousand.
const FIRST_ROUND: usize = 1000;

struct Workspace {
    problem: Problem,
    kinds: Vec<RowKind>,
    p_shape: (usize, usize, usize),
    a_shape: (usize, usize, usize),
}

/// OSQP QP backend; see the module documentation.
pub struct OsqpQp {
    settings: Settings,
    workspace: Option<Workspace>,
    lower: Vec<f64>,
    upper: Vec<f64>,
    cold_x: Vec<f64>,
    cold_y: Vec<f64>,
    kinds: Vec<RowKind>,
    max_iterations: usize,
    polish: Option<Polish>,
    polish_factorizations: usize,
    active_set: ActiveSetSettings,
    inertia: InertiaSettings,
}

/// The working-set solver for OSQP's QP pattern, with its working set.
struct Polish {
    solver: ActiveSetQp,
    sides: Vec<Side>,
    x: Vec<f64>,
    y: Vec<f64>,
}

impl Polish {
    /// Certifies a solution on the face the iterate `solution` points at; replaces it and
    /// returns true when that succeeds.
    fn polish(
        &mut self,
        qp: &QpProblem<'_>,
        settings: &ActiveSetSettings,
        solution: &mut QpSolution,
    ) -> bool {
        if solution.x.len() != self.x.len() || solution.y.len() != self.y.len() {
            return false;
        }
        working_set_of(qp, &solution.x, &solution.y, &mut self.y, &mut self.sides);
        let solved = self
            .solver
            .solve(qp, &mut self.sides, 0.0, settings, &mut self.x, &mut self.y)
            .is_ok_and(|s| s.shift == 0.0);
        if solved {
            solution.x.copy_from_slice(&self.x);
            solution.y.copy_from_slice(&self.y);
        }
        solved
    }
}

impl OsqpQp {
    /// A backend with absolute and relative tolerance `tolerance` and at most
    /// `max_iterations` ADMM iterations per solve.
    pub fn new(tolerance: f64, max_iterations: usize) -> Self {
        Self::with_active_set(
            tolerance,
            max_iterations,
            ActiveSetSettings::default(),
            InertiaSettings::default(),
        )
    }

    /// [`OsqpQp::new`] whose working-set solver between the ADMM rounds uses `active_set`
    /// and the inertia correction `inertia`.
    pub fn with_active_set(
        tolerance: f64,
        max_iterations: usize,
        active_set: ActiveSetSettings,
        inertia: InertiaSettings,
    ) -> Self {
        let settings = Settings::default()
            .verbose(false)
            .eps_abs(tolerance)
            .eps_rel(tolerance)
            .eps_prim_inf(INFEASIBILITY_TOLERANCE)
            .eps_dual_inf(INFEASIBILITY_TOLERANCE)
            .max_iter(u32::try_from(max_iterations).unwrap_or(u32::MAX))
            .polish(true)
            .polish_refine_iter(10)
            .warm_start(true)
            .adaptive_rho(true)
            .adaptive_rho_interval(Some(ADAPTIVE_RHO_INTERVAL));
        Self {
            settings,
            workspace: None,
            lower: Vec::new(),
            upper: Vec::new(),
            cold_x: Vec::new(),
            cold_y: Vec::new(),
            kinds: Vec::new(),
            max_iterations,
            polish: None,
            polish_factorizations: 0,
            active_set,
            inertia,
        }
    }
}

fn borrowed(a: &CscMatrix<f64>) -> OsqpCsc<'_> {
    OsqpCsc {
        nrows: a.nrows(),
        ncols: a.ncols(),
        indptr: a.col_offsets().into(),
        indices: a.row_indices().into(),
        data: a.values().into(),
    }
}

fn clamp_infinity(src: &[f64], dest: &mut Vec<f64>) {
    dest.clear();
    dest.extend(src.iter().map(|v| v.clamp(-OSQP_INFTY, OSQP_INFTY)));
}

impl QpSolver for OsqpQp {
    fn name(&self) -> &'static str {
        "osqp"
    }

    fn solve(
        &mut self,
        qp: &QpProblem<'_>,
        warm_x: &[f64],
        warm_y: &[f64],
        solution: &mut QpSolution,
    ) {
        clamp_infinity(qp.lower, &mut self.lower);
        clamp_infinity(qp.upper, &mut self.upper);
        row_kinds(qp, &mut self.kinds);
        let kinds = &self.kinds;
        let reusable = self.workspace.as_ref().is_some_and(|w| {
            shape(qp.hessian) == w.p_shape
                && shape(qp.constraints) == w.a_shape
                && w.kinds == *kinds
        });
        let (lower, upper, settings) = (&self.lower, &self.upper, &self.settings);
        let (cold_x, cold_y) = (&mut self.cold_x, &mut self.cold_y);
        let (workspace, polish) = (&mut self.workspace, &mut self.polish);
        let max_iterations = self.max_iterations;
        if !polish.as_ref().is_some_and(|p| p.solver.fits(qp)) {
            *polish = Some(Polish {
                solver: ActiveSetQp::new(qp, &self.active_set, &self.inertia),
                sides: vec![Side::Inactive; qp.lower.len()],
                x: vec![0.0; qp.linear.len()],
                y: vec![0.0; qp.lower.len()],
            });
        }
        let active_set = &self.active_set;
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            if reusable && let Some(w) = workspace.as_mut() {
                w.problem
                    .update_P_A(borrowed(qp.hessian), borrowed(qp.constraints));
                w.problem.update_lin_cost(qp.linear);
                w.problem.update_bounds(lower, upper);
            } else {
                *workspace = None;
                let problem = Problem::new(
                    borrowed(qp.hessian),
                    qp.linear,
                    borrowed(qp.constraints),
                    lower,
                    upper,
                    settings,
                )
                .map_err(|err| format!("osqp setup: {err}"))?;
                *workspace = Some(Workspace {
                    problem,
                    kinds: kinds.clone(),
                    p_shape: shape(qp.hessian),
                    a_shape: shape(qp.constraints),
                });
            }
            let Some(w) = workspace.as_mut() else {
                unreachable!("the workspace was just built")
            };
            if warm_x.len() == qp.linear.len() && warm_y.len() == qp.lower.len() {
                w.problem.warm_start(warm_x, warm_y);
            } else {
                // Without a guess, start cold rather than from the previous (unrelated) QP.
                cold_x.resize(qp.linear.len(), 0.0);
                cold_y.resize(qp.lower.len(), 0.0);
                w.problem.warm_start(cold_x, cold_y);
            }
            let mut round = FIRST_ROUND.min(max_iterations);
            let mut iterations = 0;
            loop {
                w.problem
                    .update_max_iter(u32::try_from(round).unwrap_or(u32::MAX));
                let status = w.problem.solve();
                let (code, message) = match &status {
                    Status::Solved(_) => (QpStatus::Solved, "solved"),
                    Status::SolvedInaccurate(_) => {
                        (QpStatus::SolvedInaccurate, "solved inaccurate")
                    }
                    Status::MaxIterationsReached(_) => {
                        (QpStatus::IterationLimit, "max iterations reached")
                    }
                    Status::TimeLimitReached(_) => (QpStatus::IterationLimit, "time limit reached"),
                    Status::PrimalInfeasible(_) | Status::PrimalInfeasibleInaccurate(_) => {
                        (QpStatus::PrimalInfeasible, "primal infeasible")
                    }
                    Status::DualInfeasible(_) | Status::DualInfeasibleInaccurate(_) => {
                        (QpStatus::DualInfeasible, "dual infeasible")
                    }
                    Status::NonConvex(_) => (QpStatus::Failed, "non-convex"),
                    _ => (QpStatus::Failed, "unknown status"),
                };
                iterations += status.iter() as usize;
                if let Some(sol) = status.solution() {
                    solution.x.clear();
                    solution.x.extend_from_slice(sol.x());
                    solution.y.clear();
                    solution.y.extend_from_slice(sol.y());
                }
                if code != QpStatus::IterationLimit || iterations >= max_iterations {
                    break Ok((code, message, iterations));
                }
                if polish
                    .as_mut()
                    .is_some_and(|p| p.polish(qp, active_set, solution))
                {
                    break Ok((QpStatus::Solved, "polished", iterations));
                }
                // The next round continues from the last iterate (OSQP warm starts from it).
                round = (2 * round).min(max_iterations - iterations);
            }
        }));
        match outcome {
            Ok(Ok((code, message, iterations))) => {
                solution.status = code;
                solution.iterations = iterations;
                // One factorization per setup or matrix update, and the working-set solver's.
                let polished = self
                    .polish
                    .as_ref()
                    .map_or(0, |p| p.solver.factorizations());
                solution.factorizations = 1 + polished - self.polish_factorizations;
                self.polish_factorizations = polished;
                solution.message.clear();
                solution.message.push_str("osqp: ");
                solution.message.push_str(message);
                if code.has_solution() && solution.x.len() != qp.linear.len() {
                    solution.status = QpStatus::Failed;
                }
            }
            Ok(Err(message)) => {
                solution.status = QpStatus::Failed;
                solution.iterations = 0;
                solution.message = message;
            }
            Err(_) => {
                self.workspace = None;
                solution.status = QpStatus::Failed;
                solution.iterations = 0;
                solution.message = "osqp: the library reported an internal failure".into();
            }
        }
    }
}

//! vito's SQP method for smooth nonlinear programs with complementarity constraints, one of
//! the two methods the entry point [`Solver`](crate::optimizer::Solver) runs.
//!
//! The problem is given as an [`Nlp`](crate::nlp::Nlp) (sizes, bounds, sparse triplet Jacobian
//! and Hessian, fallible evaluations; the multiplier sign convention is documented there) and
//! solved by a [`Solver`](crate::optimizer::Solver) built from validated
//! [`Settings`](crate::nlp::Settings); `Settings::method` chooses the method: by default the
//! interior-point method of `crate::interior` for problems with exact Hessians and without
//! complementarity pairs (with the SQP as a fallback when it fails), the SQP described below
//! otherwise.
//!
//! ```no_run
//! # fn demo(problem: &mut dyn vito::nlp::Nlp) -> Result<(), vito::nlp::SolverError> {
//! use vito::nlp::{Settings, Status};
//! use vito::optimizer::Solver;
//! let solver = Solver::new(Settings::default())?;
//! let result = solver.solve_with_log(problem, &mut std::io::stdout())?;
//! if result.status == Status::Converged {
//!     println!("f = {} at {:?}", result.objective, result.x);
//! }
//! # Ok(())
//! # }
//! ```
//!
//! `Err(`[`SolverError`](crate::nlp::SolverError)`)` is returned only for bad input (invalid settings, inconsistent sizes,
//! bounds or structures, a backend that is not compiled in). Every solve that starts returns
//! an [`SolverResult`](crate::nlp::SolverResult) whose [`Status`](crate::nlp::Status) says how it ended — `Converged`, `Acceptable`,
//! `MaxIterations`, `TimeLimit`, `LocallyInfeasible`, `EvaluationError`, `QpFailure` or
//! `LineSearchFailure` — together with the final point, constraint / bound / complementarity
//! multipliers, [`Residuals`](crate::nlp::Residuals), evaluation counts, the time split (NLP callbacks, QP, rest) and
//! one [`IterationRecord`](crate::nlp::IterationRecord) per iterate.
//!
//! # The SQP iteration
//!
//! Each iteration linearizes the problem at the current iterate and solves the QP
//! `min ½dᵀHd + ∇fᵀd` s.t. `c_L - c <= J d <= c_U - c`, `x_L - x <= d <= x_U - x`; the parts
//! (ARCHITECTURE.md has the map and the reasons for the choices, `docs/benchmarks.md` the
//! measurements):
//!
//! - **State** (`iterate.rs`): the point, its multipliers and everything evaluated there.
//! - **Step builder** (`step.rs`): the Hessian model (`hessian.rs`: [`HessianStrategy::Exact`](crate::nlp::HessianStrategy::Exact),
//!   the problem's `∇²L` with the constraints' curvature scaled by a factor `τ <= 1` that
//!   shrinks while its QPs need large shifts; or [`HessianStrategy::Bfgs`](crate::nlp::HessianStrategy::Bfgs), damped block BFGS in
//!   `quasi_newton.rs`), the QP data (`subproblem.rs`) and the QP solvers: [`ActiveSetQp`](crate::qp::ActiveSetQp)
//!   solves the QP on the KKT system of a working set, started from the previous iteration's,
//!   with IPOPT's inertia correction on that face, so that near a solution an iteration costs
//!   one factorization; a [`QpSolver`](crate::qp::QpSolver) backend ([`ClarabelQp`](crate::qp::ClarabelQp) by default, `OsqpQp` with the
//!   cargo feature `osqp`, or the user's through [`Solver::with_qp_solver`](crate::optimizer::Solver::with_qp_solver)) solves the first
//!   QP, the QPs the working-set solver fails on (with the objective's curvature as a convex
//!   model, its solution continued by the primal active-set method on the exact model), the
//!   elastic QP of an inconsistent linearization (`elastic.rs`) and the restoration QP.
//! - **Globalization** (`line_search.rs`, `filter.rs`, `merit.rs`, `restoration.rs`):
//!   Wächter & Biegler's filter line search with a second-order correction, a feasibility
//!   restoration step when it fails, and a backtracking search on the ℓ1 merit function as the
//!   last resort; a failed or non-finite evaluation only shortens the step (at the starting
//!   point it ends the solve with `EvaluationError`). When everything fails the step is
//!   retried with a forced Hessian shift (exact) or a reset model (BFGS).
//!
//! Every constant of these parts is a field of [`Tuning`](crate::nlp::Tuning) ([`Settings::tuning`](crate::nlp::Settings::tuning)).
//!
//! **Termination.** `Converged` when the largest constraint violation is below
//! `constraint_tolerance`, the scaled dual infeasibility `‖∇f + Jᵀλ + z‖∞ / s_d` and the scaled
//! complementarity are below `tolerance`, and the complementarity pairs are within
//! `complementarity_tolerance` (IPOPT's scaling `s_d = max(100, (‖λ‖₁ + ‖z‖₁)/(m + n))/100`, see
//! `residuals.rs`). `Acceptable` when the looser `acceptable_*` tolerances hold for
//! `acceptable_iterations` consecutive iterates, or when the solve cannot continue from a point
//! that meets them. A point where the violation is stationary but positive ends
//! `LocallyInfeasible`; iteration and wall-time limits end it with `MaxIterations` and
//! `TimeLimit`.
//!
//! # Complementarity constraints
//!
//! Each pair `0 <= a(x) ⟂ b(x) >= 0` of [`Nlp::complementarities`](crate::nlp::Nlp::complementarities) (a side is a variable or a
//! constraint row; the problem's own bounds make each side nonnegative) adds a product row
//! `a(x)·b(x) <= ε` with exact first and second derivatives (Scholtes' relaxation; see
//! `complementarity.rs`). The homotopy on `ε`: start from `ε₀ = relaxation_initial` (0.1); when
//! the relaxed problem is solved to the current accuracy (KKT residuals within
//! `max(tolerance, ε)`, every product within `2ε`) set `ε ← max(relaxation_decrease · ε,
//! ε_min)` with `ε_min = 0.1 · complementarity_tolerance²`, small enough that `a·b <= ε_min`
//! forces `min(a, b) <= complementarity_tolerance`. The solve converges once the KKT conditions
//! of the current relaxation hold and the pair violation `max |min(a, b)|`
//! ([`Residuals::complementarity_violation`](crate::nlp::Residuals::complementarity_violation)) is within `complementarity_tolerance`.
//!
//! # Reporting
//!
//! An [`Observer`](crate::nlp::Observer) receives every [`IterationRecord`](crate::nlp::IterationRecord); [`LogObserver`](crate::nlp::LogObserver) writes an IPOPT-style
//! table (see `report.rs` for the columns). A progress bar ([`Settings::progress_bar`](crate::nlp::Settings::progress_bar)) appears
//! on stderr only when stderr is a terminal and `print_level > 0`.
//!
//! # Iterations on the Hock–Schittkowski problems
//!
//! The iteration tables (standard and perturbed starts, both backends) are in `docs/benchmarks.md`.
//!
//! # Known limits
//!
//! - Far from feasibility the filter and restoration steps can stall on badly scaled starts
//!   (hs039 from two of its perturbed starts, `docs/benchmarks.md`).
//! - Where the reduced Hessian is indefinite on the QP's working set the shifted QP has no
//!   negative-curvature steps beyond the proximal steps' reach; the iterates move as fast as the
//!   shifted model allows.
//! - With OSQP, subproblems near degenerate MPCC solutions (MacMPEC `ralph2`) can exceed OSQP's
//!   iteration limit at the 1e-9 accuracy asked for; Clarabel solves them.

mod elastic;
mod hessian;
mod inertia;
mod iterate;
mod line_search;
mod merit;
mod quasi_newton;
mod restoration;
mod solver;
mod step;
mod subproblem;

pub(crate) use solver::{Sqp, default_backend};

//! vito's sparse SQP solver for smooth nonlinear programs, with complementarity constraints.
//!
//! The problem is given as an [`Nlp`] (sizes, bounds, sparse triplet Jacobian and Hessian,
//! fallible evaluations; the multiplier sign convention is documented there) and solved by a
//! [`Solver`] built from validated [`Settings`]:
//!
//! ```no_run
//! # fn demo(problem: &mut dyn vito::sqp::Nlp) -> Result<(), vito::sqp::SqpError> {
//! use vito::sqp::{Settings, Solver, Status};
//! let solver = Solver::new(Settings::default())?;
//! let result = solver.solve_with_log(problem, &mut std::io::stdout())?;
//! if result.status == Status::Converged {
//!     println!("f = {} at {:?}", result.objective, result.x);
//! }
//! # Ok(())
//! # }
//! ```
//!
//! `Err(`[`SqpError`]`)` is returned only for bad input (invalid settings, inconsistent sizes,
//! bounds or structures, a backend that is not compiled in). Every solve that starts returns
//! an [`SqpResult`] whose [`Status`] says how it ended — `Converged`, `Acceptable`,
//! `MaxIterations`, `TimeLimit`, `LocallyInfeasible`, `EvaluationError`, `QpFailure` or
//! `LineSearchFailure` — together with the final point, constraint / bound / complementarity
//! multipliers, [`Residuals`], evaluation counts, the time split (NLP callbacks, QP, rest) and
//! one [`IterationRecord`] per iterate.
//!
//! # The iteration
//!
//! Each iteration solves the QP
//! `min ½dᵀHd + ∇fᵀd` s.t. `c_L - c <= J d <= c_U - c`, `x_L - x <= d <= x_U - x`
//! (see `subproblem.rs`) with a [`QpSolver`]: [`ClarabelQp`] (interior point, default) or
//! `OsqpQp` (ADMM with polishing, cargo feature `osqp`). The patterns of `H` and of the QP
//! constraint matrix are assembled once into CSC, each triplet mapped to its slot; only values
//! are refilled afterwards, and the backends update their data in place.
//!
//! - **Hessian.** [`HessianStrategy::Exact`] uses the problem's Hessian of the Lagrangian. A
//!   shift `δI` is added only when the reduced Hessian on the predicted active set is not
//!   positive definite (IPOPT's inertia correction of the KKT matrix, tested through its Schur
//!   complement with a sparse `LDLᵀ`), and the QP is made convex by the augmentation
//!   `ρ/2 Σ wᵢ (rᵢ + ∇cᵢᵀd − tᵢ)²` of the predicted active constraints, which vanishes with its
//!   gradient on their face: once the active set is identified the QP's step and multipliers
//!   are those of the exact Newton model, so convergence is superlinear although `∇²L` is
//!   indefinite. Where `∇²L` still needs a shift the QP is posed with `∇²f` alone; near
//!   feasibility those steps are taken to the minimizer of the Lagrangian's quadratic model
//!   over the step and the previous one, which the model alone overshoots where it lacks the
//!   constraints' curvature (`subspace.rs`). [`HessianStrategy::Bfgs`] is damped BFGS per
//!   variable group ([`Nlp::variable_groups`]); see `hessian.rs`, `inertia.rs` and
//!   `quasi_newton.rs`.
//! - **QP solutions.** Every QP answer is polished by a direct `LDLᵀ` solve on its active face
//!   (`polish.rs`), which makes steps and multipliers accurate to rounding whatever the
//!   backend's tolerances, and certifies a solution that the backend reported as inaccurate.
//! - **Globalization.** Wächter & Biegler's filter line search on the violation
//!   `θ = Σ viol(c)` and `f`, with a second-order correction against the Maratos effect
//!   (`filter.rs`, `line_search.rs`). When it cannot accept a step of length at least
//!   10⁻², a restoration step (the shortest step to the linearized feasible set, searched on
//!   `θ`; `restoration.rs`) is tried, then a backtracking search on the ℓ1 merit function
//!   `f + ν‖viol(c)‖₁` (`merit.rs`), down to a step of 10⁻⁴ (10⁻¹⁰ on the last retry). A
//!   failed or non-finite evaluation only shortens the step; at the starting point it ends the
//!   solve with `EvaluationError`. If all of them fail, or the QP fails, the step is retried
//!   with a larger Hessian shift (exact) or a reset model (BFGS).
//! - **Inconsistent linearizations.** When the QP has no solution, an elastic QP relaxes every
//!   row with penalized slacks (ℓ1 penalty starting from `max(1, ‖λ‖∞)` and raised tenfold
//!   until it achieves a tenth of the attainable decrease of the linearized violation). A feasibility QP computed first detects points
//!   where the violation is stationary but positive: the solve ends `LocallyInfeasible`.
//! - **Termination.** `Converged` when the largest constraint violation is below
//!   `constraint_tolerance`, the scaled dual infeasibility `‖∇f + Jᵀλ + z‖∞ / s_d` and the
//!   scaled complementarity are below `tolerance`, and the complementarity pairs are within
//!   `complementarity_tolerance` (IPOPT's scaling `s_d = max(100, (‖λ‖₁ + ‖z‖₁)/(m + n))/100`,
//!   see `residuals.rs`). `Acceptable` when the looser `acceptable_*` tolerances hold for
//!   `acceptable_iterations` consecutive iterates, or when the solve cannot continue from a
//!   point that meets them. Iteration and wall-time limits end it with `MaxIterations` and
//!   `TimeLimit`.
//!
//! # Complementarity constraints
//!
//! Each pair `0 <= a(x) ⟂ b(x) >= 0` of [`Nlp::complementarities`] (a side is a variable or a
//! constraint row; the problem's own bounds make each side nonnegative) adds a product row
//! `a(x)·b(x) <= ε` with exact first and second derivatives (Scholtes' relaxation; see
//! `complementarity.rs`). The homotopy on `ε`:
//!
//! 1. start from `ε₀ = relaxation_initial` (default 0.1);
//! 2. when the relaxed problem is solved to the current accuracy — KKT residuals within
//!    `max(tolerance, ε)` and every product within `2ε` — set
//!    `ε ← max(relaxation_decrease · ε, ε_min)` (default factor 0.1);
//! 3. `ε_min = 0.1 · complementarity_tolerance²`, small enough that `a·b <= ε_min` forces
//!    `min(a, b) <= complementarity_tolerance`.
//!
//! The solve converges once the KKT conditions of the current relaxation hold and the pair
//! violation `max |min(a, b)|` (reported in [`Residuals::complementarity_violation`]) is within
//! `complementarity_tolerance`; a solution that is strictly complementary can therefore stop
//! before `ε` reaches `ε_min`.
//!
//! # Reporting
//!
//! An [`Observer`] receives every [`IterationRecord`]; [`LogObserver`] writes an IPOPT-style
//! table (see `report.rs` for the columns). A progress bar ([`Settings::progress_bar`]) appears
//! on stderr only when stderr is a terminal and `print_level > 0`.
//!
//! # Iterations on the Hock–Schittkowski problems
//!
//! SQP iterations to `Converged` from the standard starting points (tests in
//! `tests/hock_schittkowski.rs`; the exact-Hessian columns and four BFGS cases are asserted
//! there). Generated with
//! `cargo test --features osqp --test hock_schittkowski iteration_table -- --ignored --nocapture`.
//! ✗ would mark a run that did not end `Converged` at the published optimum; there is none.
//! (HS 6 converges in one step: the second-order correction of the first step lands on the
//! solution.)
//!
//! | problem | Clarabel exact | Clarabel BFGS | OSQP exact | OSQP BFGS |
//! |---|---:|---:|---:|---:|
//! | hs006 | 1 | 9 | 1 | 9 |
//! | hs007 | 10 | 11 | 10 | 11 |
//! | hs010 | 15 | 11 | 15 | 11 |
//! | hs012 | 5 | 8 | 5 | 8 |
//! | hs014 | 5 | 5 | 5 | 5 |
//! | hs021 | 1 | 2 | 1 | 2 |
//! | hs028 | 1 | 10 | 1 | 10 |
//! | hs035 | 1 | 10 | 1 | 10 |
//! | hs039 | 16 | 13 | 16 | 13 |
//! | hs040 | 4 | 9 | 4 | 9 |
//! | hs043 | 9 | 9 | 9 | 9 |
//! | hs065 | 5 | 9 | 5 | 9 |
//! | hs071 | 6 | 7 | 6 | 7 |
//! | hs076 | 1 | 6 | 1 | 6 |
//! | hs078 | 4 | 7 | 4 | 7 |
//! | hs100 | 7 | 15 | 7 | 15 |
//! | hs113 | 5 | 18 | 5 | 18 |
//!
//! The two backends give the same iterates: every QP answer is polished on its active face.
//!
//! From perturbed starts (the standard one plus 5 perturbed by up to `3 max(1, |x₀ⱼ|)` per
//! component, 102 runs per configuration; ignored test `perturbed_starts`, same command with
//! that name): every run converges with BFGS (both backends); with exact Hessians 101 of 102
//! do, and hs039 from its third perturbed start stops at the iteration limit (both
//! backends).
//!
//! # Iterations on the trajectory problems
//!
//! The problems in `problems/` transcribed by the variational integrator
//! (`VariationalNlp::new(&problem, 2)`), exact Hessians, default settings, interpolated
//! starting point, Clarabel (`tests/sqp_trajectories.rs` asserts the swing-ups of the double and
//! triple pendulum with both backends, `tests/problems.rs` every problem with Clarabel):
//!
//! | problem | iterations |
//! |---|---:|
//! | pendulum_swingup_1 | 14 |
//! | pendulum_swingup_2 | 27 |
//! | pendulum_swingup_3 | 23 |
//! | acrobot_swingup | 263 |
//! | pendulum12_reconfigure | 78 |
//! | arm_reach | 83 |
//!
//! The long run (the acrobot) spends most iterations far from the solution with the
//! objective-curvature model (see `hessian.rs`) and short steps; the last ones use the exact
//! model (their superlinear rate is asserted on the two swing-ups). Before that model,
//! pendulum12_reconfigure (then without its joint-speed limit) stalled at an objective of 2454
//! with shifts of 10²–10⁷ against an effort curvature of 10⁻² (the optimum was 3.306), and
//! arm_reach spent 75 elastic iterations from a guess that did not reach its target (the
//! guess now ends on it by inverse kinematics). With the Hermite–Simpson transcription
//! pendulum12_reconfigure takes 151 iterations (objective 669.68): its first
//! objective-curvature QPs fail in Clarabel (`NumericalError`), after which that model is
//! damped (`Sqp::convexify`); undamped it was still at an objective of 1318 after 318
//! iterations. Its problem file allows 1000 iterations.
//!
//! The OSQP tests need the feature and cmake: `cargo test --features osqp` (or
//! `--all-features`, as `.ci/run` does).
//!
//! # Known limits
//!
//! - With OSQP, subproblems near degenerate MPCC solutions (MacMPEC `ralph2`, where the
//!   relaxation must reach `ε ≈ 10⁻¹³`) and the feasibility subproblem at some infeasible
//!   stationary points can exceed OSQP's iteration limit at the 1e-9 accuracy asked for; the
//!   solve then ends `QpFailure` or `Acceptable`. Clarabel solves these cases.
//! - Rows with more than [`AUGMENTED_ROW_LIMIT`] Jacobian entries are not used in the
//!   Hessian augmentation (their outer product would fill the pattern); if such a row is
//!   active, the inertia test asks for a shift on the directions it constrains.
//! - The QP has no negative-curvature directions: near a point where the reduced Hessian is
//!   slightly indefinite (a constrained saddle; pendulum_swingup_1 has one at `f = 0.8758`,
//!   eigenvalue −5·10⁻⁴) the iterates move only as fast as the shifted model allows.
//! - The objective-curvature model converges linearly at best: the acrobot needs 263
//!   (variational) iterations and the 12-link pendulum 151 (Hermite–Simpson).
//! - With OSQP the augmentation leaves out rows with multipliers below 10⁻⁶ of the largest
//!   ([`QpSolver::active_multiplier`]). On the 12-link pendulum that leaves out speed limits
//!   held at their bound, so the variational solve ends in the objective-curvature model: 157
//!   iterations, the last 60 of them reducing the dual infeasibility linearly from 10⁻¹ to
//!   10⁻⁶, against 78 with Clarabel (before `subspace.rs` it ended `Acceptable` after 938).

mod active_set;
mod complementarity;
mod elastic;
mod error;
mod filter;
mod hessian;
mod inertia;
mod iterate;
mod line_search;
mod merit;
mod nlp;
mod outcome;
mod problem;
mod qp;
mod qp_clarabel;
#[cfg(feature = "osqp")]
mod qp_osqp;
mod quasi_newton;
mod report;
mod residuals;
mod restoration;
mod settings;
mod solver;
mod sparse;
mod step;
mod subproblem;

pub use active_set::{ActiveSetFailure, ActiveSetQp, FaceSolution, Side};
pub use error::SqpError;
pub use nlp::{Complementarity, ComplementarityTerm, EvalError, Nlp};
pub use outcome::{EvaluationCounts, IterationRecord, Residuals, SqpResult, Status, Timing};
pub use qp::{QpProblem, QpSolution, QpSolver, QpStatus};
pub use qp_clarabel::ClarabelQp;
#[cfg(feature = "osqp")]
pub use qp_osqp::{OSQP_INFTY, OsqpQp};
pub use report::{LogObserver, Observer, SilentObserver};
pub use settings::{HessianStrategy, QpBackend, Settings, Tuning};
pub use solver::{QpSolverFactory, Solver};

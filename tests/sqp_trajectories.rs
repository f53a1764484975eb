//! The SQP solver on vito's own workload: trajectory-optimization NLPs from the variational
//! integrator transcription, solved with exact Hessians from the interpolated starting point.
//!
//! These problems are what broke the first version of the solver (see the `sqp` module
//! documentation): the Lagrangian Hessian is indefinite also on the null space of the
//! dynamics far from the solution, the configurations' curvature (10–100) dwarfs the
//! effort's (10⁻²–10⁻¹), and the Newton steps are long. The tests pin convergence, a bound
//! on the iterations, and the superlinear rate at the end.

use std::path::Path;

use vito::nlp::{HessianStrategy, Method, QpBackend, Settings, SolverResult, Status};
use vito::optimizer::Solver;
use vito::problem::{ProblemOverrides, load_problem};
use vito::transcription::VariationalNlp;

/// Iterations the problems below take, with headroom: 80 and 26 with Clarabel since the
/// velocity bounds hold the knot velocities and the whole Lagrange velocity of each stage (the
/// 2-link swing-up then follows negative curvature from 7.14 down to the optimum 6.61; 27 and 29
/// before, when the written velocities could break their bounds).
const MAX_ITERATIONS: usize = 100;

fn solve(name: &str, qp: QpBackend) -> SolverResult {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("problems")
        .join(format!("{name}.yaml"));
    let problem =
        load_problem(&path, &ProblemOverrides::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut nlp = VariationalNlp::new(&problem, 2).unwrap_or_else(|e| panic!("{name}: {e}"));
    let settings = Settings {
        method: Method::Sqp,
        qp,
        hessian: HessianStrategy::Exact,
        print_level: 0,
        progress_bar: false,
        ..problem.solver.clone()
    };
    Solver::new(settings)
        .expect("valid settings")
        .solve(&mut nlp)
        .expect("valid problem")
}

fn check(name: &str, qp: QpBackend) {
    let result = solve(name, qp);
    assert_eq!(
        result.status,
        Status::Converged,
        "{name} with {qp:?}: {} after {} iterations",
        result.message,
        result.iterations
    );
    assert!(
        result.iterations <= MAX_ITERATIONS,
        "{name} with {qp:?}: {} iterations",
        result.iterations
    );
    // The last steps reduce the KKT residual superlinearly: by more than a factor 10 each,
    // and the last one by more than 100 (a shift that does not vanish would make the rate
    // linear).
    let errors: Vec<f64> = result.history.iter().map(|r| r.kkt_error()).collect();
    let ratios: Vec<f64> = errors.windows(2).map(|w| w[1] / w[0]).collect();
    let last = &ratios[ratios.len() - 2..];
    assert!(
        last[0] < 0.1 && last[1] < 1e-2,
        "{name} with {qp:?}: KKT residuals {errors:?}"
    );
}

#[test]
fn pendulum_swingup_2_converges_with_clarabel() {
    check("pendulum_swingup_2", QpBackend::Clarabel);
}

#[test]
fn pendulum_swingup_3_converges_with_clarabel() {
    check("pendulum_swingup_3", QpBackend::Clarabel);
}

#[cfg(feature = "osqp")]
#[test]
fn pendulum_swingup_2_converges_with_osqp() {
    check("pendulum_swingup_2", QpBackend::Osqp);
}

#[cfg(feature = "osqp")]
#[test]
fn pendulum_swingup_3_converges_with_osqp() {
    check("pendulum_swingup_3", QpBackend::Osqp);
}

//! The interior point's retreat (`src/interior/retreat.rs`): a barrier subproblem that stalls
//! after a fast decrease of `μ` is retried from the last solved subproblem with a smaller
//! decrease, and the solve converges where it otherwise runs out of iterations.

use std::path::Path;

use vito::nlp::{Method, Status};
use vito::problem::{ComplementarityMethod, ProblemOverrides, TrajectoryProblem, load_problem};
use vito::transcription::solve;

/// `problems/hopper_hop.yaml` solved by the interior point alone, its barrier decreased as
/// `min(0.05 μ, μ^1.8)` (the defaults: 0.2 and 1.5) and its smoothing from `10⁻²` to
/// `5·10⁻⁴` (the defaults until 2026-12-07): one update takes the barrier from `8·10⁻⁵` to its
/// floor, the smoothing with it, and the steps stall there; `stall_iterations` as given.
fn fast_decrease(stall_iterations: usize) -> TrajectoryProblem {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("problems/hopper_hop.yaml");
    let mut prob =
        load_problem(&file, &ProblemOverrides::default()).unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(
        prob.complementarity,
        ComplementarityMethod::Smoothing { .. }
    ));
    prob.complementarity = ComplementarityMethod::Smoothing {
        start: 1e-2,
        end: Some(5e-4),
    };
    prob.solver.method = Method::InteriorPoint;
    prob.solver.max_iterations = 1200;
    prob.solver.print_level = 0;
    prob.solver.progress_bar = false;
    let interior = &mut prob.solver.tuning.interior;
    interior.mu_superlinear_decrease = 1.8;
    interior.mu_linear_decrease = 0.05;
    interior.stall_iterations = stall_iterations;
    prob
}

#[test]
fn a_stalled_subproblem_is_retried_from_the_last_solved_one_and_converges() {
    let retried = solve(&fast_decrease(300), &mut std::io::sink()).unwrap();
    let r = &retried.result;
    assert_eq!(r.status, Status::Converged, "{}", r.message);
    let k = r
        .history
        .iter()
        .position(|record| record.retreat)
        .expect("a retreat");
    // Back to a larger barrier parameter (the geometric mean of the solved subproblem's and
    // the stalled one's) and a larger smoothing.
    let (before, after) = (&r.history[k - 1], &r.history[k]);
    assert!(
        after.barrier > 10.0 * before.barrier,
        "{before:?} {after:?}"
    );
    assert!(after.smoothing > before.smoothing, "{before:?} {after:?}");
    // Without the retreat (a stall never detected) the same solve stalls to the limit.
    let stalled = solve(&fast_decrease(usize::MAX), &mut std::io::sink()).unwrap();
    assert_eq!(stalled.result.status, Status::MaxIterations);
    assert!(stalled.result.history.iter().all(|record| !record.retreat));
}

//! The inexact smoothing levels (`solver.smoothing_level_tolerance`, `transcription::solve`):
//! every level but the last ends at the loosened tolerance `κ·μ`, the last at the solver's
//! own, on a hopper dropped onto the ground (three smoothing levels before the last).

use vito::nlp::Status;
use vito::problem::{ComplementarityMethod, ProblemOverrides, TrajectoryProblem, load_problem};
use vito::transcription::solve;

/// The hopper of `problems/hopper_hop.yaml` dropped from 2 cm onto the ground over 0.3 s;
/// smoothing from `start` down by factors of 0.1 to 5·10⁻⁴.
fn drop(start: f64, kappa: f64) -> TrajectoryProblem {
    let dir = std::env::temp_dir().join(format!("vito-smoothing-levels-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("drop-{start}-{kappa}.yaml"));
    let robots = concat!(env!("CARGO_MANIFEST_DIR"), "/robots");
    std::fs::write(
        &file,
        format!(
            "name: drop\nrobot: {robots}/hopper.urdf\nbase: planar\nduration: 0.3\nstages: 10\n\
             initial: {{q: {{base_x: 0, base_z: 0.57, base_pitch: 0, hip: -0.5, knee: 1.0}}, \
             v: [0, 0, 0, 0, 0]}}\n\
             final: {{q: {{base_x: 0, base_pitch: 0, hip: -0.5, knee: 1.0}}, v: [0, 0, 0, 0, 0]}}\n\
             terrain: {{friction: 0.8}}\n\
             complementarity: {{method: smoothing, start: {start}, end: 5.0e-4}}\n\
             costs: {{effort: 0.01}}\n\
             solver: {{method: sqp, smoothing_decrease: 0.1, smoothing_level_tolerance: {kappa}}}\n"
        ),
    )
    .unwrap();
    let mut prob =
        load_problem(&file, &ProblemOverrides::default()).unwrap_or_else(|e| panic!("{e}"));
    prob.solver.print_level = 0;
    prob.solver.progress_bar = false;
    prob
}

/// With a `κ` so large that any point meets `κ·μ`, the levels 0.1, 0.01 and 0.001 end where they
/// start, so the whole solve is the last level's solve from the same guess: the same
/// iterations and the same solution. The last level is not loosened: it meets the tolerances.
#[test]
fn loosened_levels_end_at_once_and_the_last_is_exact() {
    let levels = drop(0.1, 1e9);
    assert!(matches!(
        levels.complementarity,
        ComplementarityMethod::Smoothing { .. }
    ));
    let with_levels = solve(&levels, &mut std::io::sink()).unwrap();
    let last_only = solve(&drop(5e-4, 0.0), &mut std::io::sink()).unwrap();
    for (name, o) in [("levels", &with_levels), ("last only", &last_only)] {
        assert_eq!(
            o.result.status,
            Status::Converged,
            "{name}: {}",
            o.result.message
        );
        assert!(o.result.residuals.dual_infeasibility <= 1e-6, "{name}");
        assert!(o.result.residuals.primal_infeasibility <= 1e-6, "{name}");
    }
    assert_eq!(with_levels.result.iterations, last_only.result.iterations);
    let gap = with_levels
        .result
        .x
        .iter()
        .zip(&last_only.result.x)
        .fold(0.0f64, |g, (a, b)| g.max((a - b).abs()));
    assert!(gap < 1e-9, "solutions differ by {gap}");
}

/// `κ = 0` (the default) solves every level to the tolerances: the same drop through the
/// levels takes more iterations than its last level alone.
#[test]
fn exact_levels_take_their_own_iterations() {
    let levels = solve(&drop(0.1, 0.0), &mut std::io::sink()).unwrap();
    let last_only = solve(&drop(5e-4, 0.0), &mut std::io::sink()).unwrap();
    assert_eq!(
        levels.result.status,
        Status::Converged,
        "{}",
        levels.result.message
    );
    assert!(levels.result.iterations > last_only.result.iterations);
}

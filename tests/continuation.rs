//! Continuation (`initial_guess: {solve: …}`): the problem named is solved first and this one
//! starts from its trajectory, in one solve.

mod scratch;

use std::path::{Path, PathBuf};
use std::process::Command;
use vito::nlp::Status;
use vito::problem::{ProblemOverrides, load_problem};

/// The two-link swing-up of `problems/pendulum_swingup_2.yaml` on 20 stages, named `name`,
/// with `extra` appended.
fn swing_up(dir: &Path, name: &str, extra: &str) -> PathBuf {
    let robot = concat!(env!("CARGO_MANIFEST_DIR"), "/robots/pendulum2.urdf");
    let path = dir.join(format!("{name}.yaml"));
    let text = format!(
        "name: {name}\nrobot: {robot}\nduration: 3.0\nstages: 20\n\
         initial: {{q: [0, 0], v: [0, 0]}}\nfinal: {{q: [3.141592653589793, 0], v: [0, 0]}}\n\
         bounds: {{u: [-50, 50], v: [-12, 12]}}\ncosts: {{effort: 1.0}}\n\
         solver: {{hessian: exact, print_level: 1}}\n{extra}"
    );
    std::fs::write(&path, text).unwrap();
    path
}

fn solve(path: &Path) -> vito::transcription::Outcome {
    let prob = load_problem(path, &ProblemOverrides::default()).unwrap();
    vito::transcription::solve(&prob, &mut std::io::sink()).unwrap()
}

/// Started from the optimum of the same problem (solved first), a solve is done at once, at
/// that optimum; the step before is listed with its status.
#[test]
fn a_problem_started_from_its_own_optimum_solved_first_converges_at_once_to_it() {
    let dir = scratch::fresh_dir("vito-continuation");
    let first = solve(&swing_up(&dir, "first", ""));
    let then = solve(&swing_up(
        &dir,
        "then",
        "initial_guess: {solve: first.yaml}\n",
    ));
    assert_eq!(first.result.status, Status::Converged);
    assert_eq!(then.result.status, Status::Converged);
    let steps = &then.continuation;
    assert_eq!(steps.len(), 1, "{steps:?}");
    assert_eq!(
        (
            steps[0].problem.as_str(),
            steps[0].status,
            steps[0].iterations
        ),
        ("first", Status::Converged, first.result.iterations)
    );
    assert!(
        then.result.iterations * 2 <= first.result.iterations,
        "from the optimum {} iterations, from the straight line {}",
        then.result.iterations,
        first.result.iterations
    );
    let gap = (then.result.objective - first.result.objective).abs();
    assert!(
        gap <= 1e-6 * first.result.objective,
        "objectives {} and {}",
        then.result.objective,
        first.result.objective
    );
    assert!(then.total_time_s() > then.result.timing.total.as_secs_f64());
}

/// A problem solved first is solved once per process: a second problem started from it (a
/// sweep's next instance) reuses its trajectory and says so, and ends where a fresh chain ends.
#[test]
fn a_problem_solved_first_is_solved_once_per_process() {
    let dir = scratch::fresh_dir("vito-continuation-memo");
    swing_up(&dir, "memo_first", "");
    let then = swing_up(
        &dir,
        "memo_then",
        "initial_guess: {solve: memo_first.yaml}\n",
    );
    let prob = load_problem(&then, &ProblemOverrides::default()).unwrap();
    let solve_logged = || {
        let mut log = Vec::new();
        let outcome = vito::transcription::solve(&prob, &mut log).unwrap();
        (outcome, String::from_utf8(log).unwrap())
    };
    let (fresh, fresh_log) = solve_logged();
    let (again, again_log) = solve_logged();
    assert!(
        fresh_log.contains("continuation: solving 'memo_first' first"),
        "{fresh_log}"
    );
    assert!(
        again_log.contains("'memo_first' was solved earlier in this process")
            && !again_log.contains("solving 'memo_first' first"),
        "{again_log}"
    );
    assert!(!fresh.continuation[0].reused && again.continuation[0].reused);
    assert_eq!(again.result.objective, fresh.result.objective);
    assert_eq!(again.result.iterations, fresh.result.iterations);
    assert_eq!(
        again.total_time_s(),
        again.result.timing.total.as_secs_f64()
    );
}

/// `vito solve` of a chain of three: one command, each step in the log and in `report.json`,
/// the easiest first.
#[test]
fn vito_solve_runs_a_chain_and_reports_each_step() {
    let dir = scratch::fresh_dir("vito-continuation-cli");
    swing_up(&dir, "a", "");
    swing_up(&dir, "b", "initial_guess: {solve: a.yaml}\n");
    let c = swing_up(&dir, "c", "initial_guess: {solve: b.yaml}\n");
    let out = dir.join("out");
    let run = Command::new(env!("CARGO_BIN_EXE_vito"))
        .args(["solve", c.to_str().unwrap(), "-o", out.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    for line in [
        "continuation: solving 'b' first",
        "continuation: solving 'a' first",
        "continuation: 'a' ended Converged",
        "continuation: 'b' ended Converged",
        "continuation: started from 'a' Converged",
    ] {
        assert!(stderr.contains(line), "no {line:?} in\n{stderr}");
    }
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    let steps: Vec<(&str, &str)> = report["continuation"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["problem"].as_str().unwrap(),
                s["status"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(steps, [("a", "Converged"), ("b", "Converged")]);
    assert_eq!(report["status"], "Converged");
    let log = std::fs::read_to_string(out.join("solver.log")).unwrap();
    assert!(log.contains("continuation: 'b' ended Converged"), "{log}");
}

/// The hop of `problems/hopper_hop.yaml` (0.3 m) with a box 6 cm long from `x` m, `top` m
/// high, beyond its landing, named `name`, with `extra` appended.
fn hop_beside_box(dir: &Path, name: &str, x: f64, top: f64, extra: &str) -> PathBuf {
    let robot = concat!(env!("CARGO_MANIFEST_DIR"), "/robots/hopper.urdf");
    let path = dir.join(format!("{name}.yaml"));
    let pose = "base_z: [0.5, 0.6], base_pitch: 0, hip: -0.5, knee: 1.0";
    let text = format!(
        "name: {name}\nrobot: {robot}\nbase: planar\nduration: 1.2\nstages: 48\n\
         initial: {{q: {{base_x: 0, {pose}}}, v: [0, 0, 0, 0, 0], at_rest: [foot]}}\n\
         final: {{q: {{base_x: 0.3, {pose}}}, v: [0, 0, 0, 0, 0], at_rest: [foot]}}\n\
         terrain: {{friction: 0.8, boxes: [{{x: [{x}, {}], top: {top}}}]}}\n\
         complementarity: {{method: smoothing}}\ncosts: {{effort: 0.01}}\n\
         solver: {{print_level: 1}}\n{extra}",
        x + 0.06
    );
    std::fs::write(&path, text).unwrap();
    path
}

/// Started from the hop beside a box 3 cm high, the hop beside the box moved 2 cm further and
/// made 1 cm higher walks the terrain in warm steps of 2.5 mm (`solver.terrain_step`: eight
/// steps, each moving the box's ends by 2.5 mm), each listed after the problem solved first as
/// `name (terrain P %)`, the last, on this problem's own terrain, this problem's solve; each
/// takes a small part of the iterations the first took from its straight-line guess (the box
/// is beyond the landing: the optimum hardly moves). Without `terrain_step` the same problem
/// starts from the first's trajectory, with no steps between.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "solves of minutes in a debug build; .ci/run runs it with --release"
)]
fn a_moved_box_is_reached_by_warm_terrain_steps() {
    let dir = scratch::fresh_dir("vito-continuation-terrain");
    hop_beside_box(&dir, "near_box", 0.6, 0.03, "");
    let cold = solve(&hop_beside_box(
        &dir,
        "far_box_cold",
        0.62,
        0.04,
        "initial_guess: {solve: near_box.yaml}\n",
    ));
    let cold_steps: Vec<&str> = cold
        .continuation
        .iter()
        .map(|s| s.problem.as_str())
        .collect();
    assert_eq!(cold_steps, ["near_box"]);
    let far = hop_beside_box(
        &dir,
        "far_box",
        0.62,
        0.04,
        "initial_guess: {solve: near_box.yaml}\n",
    );
    let text = std::fs::read_to_string(&far)
        .unwrap()
        .replace("print_level: 1", "print_level: 1, terrain_step: 0.0025");
    std::fs::write(&far, text).unwrap();
    let then = solve(&far);
    assert_eq!(
        then.result.status,
        Status::Converged,
        "{}",
        then.result.message
    );
    let steps: Vec<(String, Status)> = then
        .continuation
        .iter()
        .map(|s| (s.problem.clone(), s.status))
        .collect();
    let mut expected = vec![("near_box".to_string(), Status::Converged)];
    for k in 1..8 {
        let percent = 12.5 * f64::from(k);
        expected.push((
            format!("far_box (terrain {percent:.1} %)"),
            Status::Converged,
        ));
    }
    assert_eq!(steps, expected);
    let first = then.continuation[0].iterations;
    let warm = then.continuation[1..]
        .iter()
        .map(|s| s.iterations)
        .chain([then.result.iterations]);
    for iterations in warm {
        assert!(
            10 * iterations < first,
            "a warm step took {iterations} iterations, the first solve {first}"
        );
    }
    assert!(then.total_time_s() > then.result.timing.total.as_secs_f64());
}

//! Stance feet: the static balance (`vito balance`) against the laws of statics, a box held on
//! a slope by its sole with the friction and tipping limits known in closed form, the same box
//! through both trajectory transcriptions, and the committed start pose of the humanoid ball
//! pick.

mod scratch;

use std::path::{Path, PathBuf};
use vito::nlp::Status;
use vito::problem::{ProblemOverrides, TrajectoryProblem, TranscriptionKind, load_problem};
use vito::transcription::{Balance, balance, solve};

fn load(path: &Path) -> TrajectoryProblem {
    let mut prob =
        load_problem(path, &ProblemOverrides::default()).unwrap_or_else(|e| panic!("{e}"));
    prob.solver.print_level = 0;
    prob.solver.progress_bar = false;
    prob
}

fn problem(name: &str, text: &str) -> TrajectoryProblem {
    let dir = scratch::fresh_dir("vito-stance");
    let robots = concat!(env!("CARGO_MANIFEST_DIR"), "/robots");
    let p: PathBuf = dir.join(name);
    std::fs::write(&p, text.replace("ROBOTS", robots)).unwrap();
    load(&p)
}

fn bundled(name: &str) -> TrajectoryProblem {
    load(&Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("problems/{name}.yaml")))
}

fn balanced(prob: &TrajectoryProblem) -> Balance {
    balance(prob, &mut std::io::sink()).unwrap()
}

#[test]
fn static_balance_carries_the_weight_with_the_pressure_under_the_centre_of_mass() {
    let prob = bundled("humanoid_balance");
    let bal = balanced(&prob);
    assert_eq!(
        bal.result.status,
        Status::Converged,
        "{}",
        bal.result.message
    );
    let st = bal.stance.as_ref().unwrap();
    let foot = &st.feet[0];
    let weight = prob.model.total_mass() * prob.model.gravity().norm();
    // Statics: the ground's force is the weight, straight up (the held frame is level).
    let (f, _, _) = foot.world_wrench(0);
    assert!(
        (f.z - weight).abs() < 1e-6 * weight,
        "f = {f:?}, weight {weight}"
    );
    assert!(
        f.x.abs() < 1e-6 * weight && f.y.abs() < 1e-6 * weight,
        "f = {f:?}"
    );
    // Its moment about the centre of mass vanishes: the centre of pressure lies under it.
    let (x, y) = foot.cop[0].unwrap();
    let com = foot.com[0];
    assert!(
        (x - com.x).abs() < 1e-6 && (y - com.y).abs() < 1e-6,
        "CoP ({x}, {y}), CoM {com:?}"
    );
    // The centre of mass from the solution agrees with the world one.
    let world = foot.rotation * com + foot.position;
    assert!((world - bal.com).norm() < 1e-12);
    let r = st.residuals();
    assert!(r.largest_cone_violation < 0.0 && r.smallest_cop_margin > 0.0);
    assert!(r.largest_position_drift < 1e-6 && r.largest_orientation_drift < 1e-6);
    for (i, q) in bal.q.iter().enumerate() {
        assert!(prob.q_bounds.lower[i] <= *q && *q <= prob.q_bounds.upper[i]);
    }
}

#[test]
fn the_ball_pick_starts_in_the_static_balance_vito_found() {
    let bal = balanced(&bundled("humanoid_balance"));
    let pick = bundled("humanoid_ball_pick");
    assert!(pick.initial_q.all_fixed() && pick.initial_v.all_fixed());
    let worst = bal
        .q
        .iter()
        .zip(&pick.initial_q.lower)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    assert!(
        worst < 1e-6,
        "the committed start pose is {worst:e} from the balance"
    );
    let held = &pick.stances[0];
    let foot = &bal.stance.as_ref().unwrap().feet[0];
    assert!((held.position - foot.position).norm() < 1e-6);
}

/// A 1 kg box (0.2 × 0.2 × 0.1 m) standing on its bottom face, `X = Y = 0.1` m about its
/// centre, which is `h = 0.05` m above the sole: a slope of `tan θ = g_x / g_z` (tilted
/// gravity) is held iff `tan θ ≤ μ` (sliding) and `h tan θ ≤ X` (tipping).
fn box_on_slope(tan: f64, friction: f64, initial_q: &str) -> String {
    format!(
        "name: box\nrobot: ROBOTS/box.urdf\nbase: floating\nduration: 0.2\nstages: 2\n\
         gravity: [{}, 0, -9.81]\n\
         contact_points: [{{name: bottom, frame: box, offset: [0, 0, -0.05]}}]\n\
         initial: {{q: {initial_q}, v: [0, 0, 0, 0, 0, 0]}}\n\
         stance: [{{frame: bottom, friction: {friction}, sole: {{x: [-0.1, 0.1], y: [-0.1, 0.1]}}, \
         position: [0, 0, 0], rpy: [0, 0, 0]}}]\n",
        9.81 * tan
    )
}

const FREE: &str = "{base_x: [-1, 1], base_y: [-1, 1], base_z: [-1, 1], base_yaw: [-1, 1], \
                    base_pitch: [-1, 1], base_roll: [-1, 1]}";

#[test]
fn a_box_on_a_slope_holds_until_it_slides_or_tips() {
    // (tan θ, μ, held): sliding at μ = 0.5, tipping at tan θ = X / h = 2 with μ = 3.
    for (tan, mu, held) in [
        (0.45, 0.5, true),
        (0.55, 0.5, false),
        (1.9, 3.0, true),
        (2.1, 3.0, false),
    ] {
        let prob = problem("box.yaml", &box_on_slope(tan, mu, FREE));
        let bal = balanced(&prob);
        let status = bal.result.status;
        assert_eq!(
            status == Status::Converged,
            held,
            "tan θ = {tan}, μ = {mu}: {status:?}"
        );
        if held {
            let foot = &bal.stance.as_ref().unwrap().feet[0];
            let w = foot.wrench[0];
            // The ground pushes against gravity; the pressure moves downhill by h tan θ.
            assert!((w[0] + 9.81 * tan).abs() < 1e-8 && (w[2] - 9.81).abs() < 1e-8);
            let (x, y) = foot.cop[0].unwrap();
            assert!(
                (x - 0.05 * tan).abs() < 1e-8 && y.abs() < 1e-8,
                "CoP ({x}, {y})"
            );
        } else {
            assert_eq!(status, Status::LocallyInfeasible);
        }
    }
}

#[test]
fn a_box_held_on_a_slope_stays_at_rest_in_both_transcriptions() {
    let text = box_on_slope(0.45, 0.5, "[0, 0, 0.05, 0, 0, 0]");
    for kind in [
        TranscriptionKind::Variational(2),
        TranscriptionKind::HermiteSimpson,
    ] {
        let mut prob = problem("box_t.yaml", &text);
        prob.transcription = kind;
        let outcome = solve(&prob, &mut std::io::sink()).unwrap();
        assert_eq!(outcome.result.status, Status::Converged, "{kind}");
        let sol = &outcome.solution;
        let foot = &sol.stance.as_ref().unwrap().feet[0];
        // The variational integrator's last knot force acts on the momentum after the last
        // stage, which nothing holds when the final velocity is free: its wrench is any in the
        // cone, and the interior-point method takes one inside it.
        let determined = match kind {
            TranscriptionKind::Variational(_) => sol.q.len() - 1,
            TranscriptionKind::HermiteSimpson => sol.q.len(),
        };
        for (p, q) in sol.q.iter().enumerate() {
            assert!(
                (q[2] - 0.05).abs() < 1e-9,
                "{kind}: z = {} at point {p}",
                q[2]
            );
            let w = foot.wrench[p];
            if p >= determined {
                continue;
            }
            assert!(
                (w[0] + 9.81 * 0.45).abs() < 1e-6 && (w[2] - 9.81).abs() < 1e-6,
                "{kind}: wrench {w:?} at point {p}"
            );
        }
    }
}

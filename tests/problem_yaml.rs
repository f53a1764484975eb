//! Malformed motion problems give errors naming the field; none panics.

mod fixtures;
mod scratch;

use std::path::PathBuf;
use vito::problem::{InitialGuess, ProblemOverrides, anchor_paths, load_problem, load_problem_str};

fn write(name: &str, text: &str) -> PathBuf {
    let dir = scratch::fresh_dir("vito-problem-yaml");
    let robots = concat!(env!("CARGO_MANIFEST_DIR"), "/robots");
    let p = dir.join(name);
    std::fs::write(&p, text.replace("ROBOTS", robots)).unwrap();
    p
}

const GOOD: &str = "name: ok\nrobot: ROBOTS/pendulum2.urdf\nduration: 2\nstages: 10\n\
initial: {q: [0, 0], v: [0, 0]}\nfinal: {q: [3, 0], v: [0, 0]}\nbounds: {u: [-50, 50]}\ncosts: {effort: 1}\n";

/// Writes `name` beside `file` (the same directory).
fn write_beside(file: &std::path::Path, name: &str, text: &str) -> PathBuf {
    let robots = concat!(env!("CARGO_MANIFEST_DIR"), "/robots");
    let p = file.with_file_name(name);
    std::fs::write(&p, text.replace("ROBOTS", robots)).unwrap();
    p
}

fn error_of(name: &str, text: &str) -> String {
    let p = write(name, text);
    match load_problem(&p, &ProblemOverrides::default()) {
        Ok(_) => panic!("accepted {name}:\n{text}"),
        Err(e) => e.to_string(),
    }
}

fn assert_mentions(msg: &str, words: &[&str]) {
    for w in words {
        assert!(msg.contains(w), "{msg:?} does not mention {w:?}");
    }
}

#[test]
fn the_good_problem_loads() {
    let p = write("good.yaml", GOOD);
    let prob = load_problem(&p, &ProblemOverrides::default()).unwrap();
    assert_eq!((prob.stages, prob.model.dof()), (10, 2));
    assert!(prob.initial_q.all_fixed() && prob.final_v.all_fixed());
    assert_eq!(prob.u_bounds.lower, vec![-50.0, -50.0]);
}

#[test]
fn unknown_key() {
    let msg = error_of("unknown.yaml", &format!("{GOOD}horizon: 3\n"));
    assert_mentions(&msg, &["unknown.yaml", "horizon", "line 9"]);
    let msg = error_of(
        "unknown_solver.yaml",
        &format!("{GOOD}solver: {{tol: 1e-3}}\n"),
    );
    assert_mentions(&msg, &["solver", "tol"]);
}

#[test]
fn wrong_type() {
    let msg = error_of("type.yaml", &GOOD.replace("stages: 10", "stages: many"));
    assert_mentions(&msg, &["stages", "line 4"]);
}

#[test]
fn missing_robot_file() {
    let msg = error_of(
        "robot.yaml",
        &GOOD.replace("ROBOTS/pendulum2.urdf", "nowhere.urdf"),
    );
    assert_mentions(&msg, &["robot.yaml", "nowhere.urdf"]);
}

#[test]
fn zero_stages_and_bad_horizon() {
    let msg = error_of("stages.yaml", &GOOD.replace("stages: 10", "stages: 0"));
    assert_mentions(&msg, &["stages", "at least 1"]);
    let msg = error_of(
        "duration.yaml",
        &GOOD.replace("duration: 2", "duration: -1"),
    );
    assert_mentions(&msg, &["duration", "positive"]);
}

#[test]
fn bounds_with_lower_above_upper() {
    let msg = error_of("bounds.yaml", &GOOD.replace("u: [-50, 50]", "u: [50, -50]"));
    assert_mentions(&msg, &["bounds.u", "50", "exceeds"]);
    let msg = error_of(
        "bounds2.yaml",
        &GOOD.replace("u: [-50, 50]", "u: {joint2: [1, 0]}"),
    );
    assert_mentions(&msg, &["bounds.u.joint2", "exceeds"]);
}

#[test]
fn final_state_of_the_wrong_length() {
    let msg = error_of(
        "final.yaml",
        &GOOD.replace("final: {q: [3, 0]", "final: {q: [3, 0, 1]"),
    );
    assert_mentions(&msg, &["final.q", "3 entries", "needs 2", "joint1"]);
}

#[test]
fn unknown_joint_in_a_map() {
    let msg = error_of(
        "joint.yaml",
        &GOOD.replace("initial: {q: [0, 0]", "initial: {q: {elbow: 0}"),
    );
    assert_mentions(&msg, &["initial.q", "elbow", "joint1, joint2"]);
}

#[test]
fn bad_state_entry() {
    let msg = error_of(
        "entry.yaml",
        &GOOD.replace("final: {q: [3, 0]", "final: {q: [3, loose]"),
    );
    assert_mentions(&msg, &["final.q[1]", "free"]);
}

#[test]
fn unknown_transcription() {
    let msg = error_of(
        "tr.yaml",
        &format!("{GOOD}transcription: rk4_collocation\n"),
    );
    assert_mentions(
        &msg,
        &[
            "transcription",
            "rk4_collocation",
            "simpson_vi",
            "hermite_simpson",
        ],
    );
    let msg = error_of(
        "tr2.yaml",
        &format!("{GOOD}transcription: {{galerkin: 9}}\n"),
    );
    assert_mentions(&msg, &["transcription.galerkin", "1 to 6"]);
}

#[test]
fn unknown_frame_and_bad_time() {
    let msg = error_of(
        "frame.yaml",
        &format!(
            "{GOOD}constraints:\n  - frame_position: {{frame: hand, position: [0, 0, 0], time: end}}\n"
        ),
    );
    assert_mentions(
        &msg,
        &["constraints[0].frame_position.frame", "hand", "tip"],
    );
    let msg = error_of(
        "time.yaml",
        &format!(
            "{GOOD}constraints:\n  - frame_position: {{frame: tip, position: [0, 0, 0], time: 7}}\n"
        ),
    );
    assert_mentions(&msg, &["constraints[0].frame_position.time", "[0, 2]"]);
}

#[test]
fn a_constraint_needs_exactly_one_kind() {
    let msg = error_of(
        "kinds.yaml",
        &format!(
            "{GOOD}constraints:\n  - frame_position: {{frame: tip, position: [0, 0, 0], time: end}}\n    joint_equality: {{joint: joint1, equals: joint2}}\n"
        ),
    );
    assert_mentions(&msg, &["constraints[0]", "exactly one"]);
}

/// The weights read are checked in `src/terms/tracking.rs`; here the costs' kinds and a bad
/// key.
#[test]
fn costs_are_a_map_of_known_kinds() {
    let p = write(
        "costs_ok.yaml",
        &GOOD.replace(
            "costs: {effort: 1}",
            "costs: {tracking: {q: [0.5, -0.5]}, effort: 1, velocity: 0.1}",
        ),
    );
    let prob = load_problem(&p, &ProblemOverrides::default()).unwrap();
    assert_eq!(prob.cost_kinds(), ["tracking", "effort", "velocity"]);
    let msg = error_of(
        "costs_kind.yaml",
        &GOOD.replace("costs: {effort: 1}", "costs: {efort: 1}"),
    );
    assert_mentions(&msg, &["costs", "efort", "effort, velocity"]);
    let msg = error_of(
        "costs_list.yaml",
        &GOOD.replace("costs: {effort: 1}", "costs: [effort]"),
    );
    assert_mentions(&msg, &["costs", "expected a map"]);
}

#[test]
fn negative_weights_and_bad_solver_settings() {
    let msg = error_of(
        "weight.yaml",
        &GOOD.replace("costs: {effort: 1}", "costs: {effort: -1}"),
    );
    assert_mentions(&msg, &["costs.effort", "non-negative"]);
    let msg = error_of(
        "velocity.yaml",
        &GOOD.replace(
            "costs: {effort: 1}",
            "costs: {effort: 1, velocity: {joint2: -0.5}}",
        ),
    );
    assert_mentions(&msg, &["costs.velocity", "non-negative"]);
    let msg = error_of(
        "velocity_joint.yaml",
        &GOOD.replace("costs: {effort: 1}", "costs: {velocity: {elbow: 0.5}}"),
    );
    assert_mentions(&msg, &["costs.velocity", "elbow"]);
    let msg = error_of(
        "tracking.yaml",
        &GOOD.replace(
            "costs: {effort: 1}",
            "costs: {tracking: {weight: [1, 2, 3], q: [0, 0]}}",
        ),
    );
    assert_mentions(&msg, &["costs.tracking.weight", "3 entries", "needs 2"]);
    let msg = error_of(
        "friction_work.yaml",
        &GOOD.replace("costs: {effort: 1}", "costs: {friction_work: -0.2}"),
    );
    assert_mentions(&msg, &["costs.friction_work", "non-negative", "-0.2"]);
    let msg = error_of(
        "friction_work_ground.yaml",
        &GOOD.replace("costs: {effort: 1}", "costs: {friction_work: 0.2}"),
    );
    assert_mentions(&msg, &["costs.friction_work", "needs a terrain"]);
    let msg = error_of(
        "solver.yaml",
        &format!("{GOOD}solver: {{max_iterations: 0}}\n"),
    );
    assert_mentions(&msg, &["solver", "max_iterations"]);
}

#[test]
fn boundary_outside_the_joint_limits() {
    let msg = error_of(
        "limits.yaml",
        &GOOD.replace(
            "bounds: {u: [-50, 50]}",
            "bounds: {u: [-50, 50], q: [-1, 1]}",
        ),
    );
    assert_mentions(&msg, &["final.q[0]", "joint1", "[-1, 1]"]);
}

#[test]
fn missing_warm_start_file() {
    let msg = error_of(
        "warm.yaml",
        &format!("{GOOD}initial_guess: {{from: old/trajectory.csv}}\n"),
    );
    assert_mentions(
        &msg,
        &["initial_guess.from", "trajectory.csv", "does not exist"],
    );
}

/// `initial_guess: {solve: …}`: the problem to solve first is loaded with this one (its
/// errors before any solve), and it is part of this one's hash.
#[test]
fn a_problem_to_solve_first_is_loaded_with_it() {
    let first = write("first.yaml", &GOOD.replace("name: ok", "name: first"));
    let then = write_beside(
        &first,
        "then.yaml",
        &format!("{GOOD}initial_guess: {{solve: first.yaml}}\n"),
    );
    let load = || load_problem(&then, &ProblemOverrides::default()).unwrap();
    let prob = load();
    let InitialGuess::Solve(inner) = &prob.initial_guess else {
        panic!("{:?}", prob.initial_guess)
    };
    assert_eq!((inner.name.as_str(), inner.stages), ("first", 10));
    let hash = prob.hash.clone();
    write_beside(
        &first,
        "first.yaml",
        &GOOD
            .replace("name: ok", "name: first")
            .replace("stages: 10", "stages: 12"),
    );
    assert_ne!(
        load().hash,
        hash,
        "the first problem's file is part of the hash"
    );
}

#[test]
fn a_missing_or_invalid_problem_to_solve_first() {
    let msg = error_of(
        "warm.yaml",
        &format!("{GOOD}initial_guess: {{solve: easier.yaml}}\n"),
    );
    assert_mentions(
        &msg,
        &[
            "warm.yaml",
            "initial_guess.solve",
            "easier.yaml",
            "does not exist",
        ],
    );
    let first = write("bad_first.yaml", &GOOD.replace("stages: 10", "stages: 0"));
    let then = write_beside(
        &first,
        "then.yaml",
        &format!("{GOOD}initial_guess: {{solve: bad_first.yaml}}\n"),
    );
    let msg = load_problem(&then, &ProblemOverrides::default())
        .unwrap_err()
        .to_string();
    assert_mentions(&msg, &["bad_first.yaml", "stages"]);
}

/// A problem's text with its paths anchored is the same problem read from anywhere.
#[test]
fn anchored_paths_make_a_problem_text_mean_the_same_anywhere() {
    let first = write("first.yaml", &GOOD.replace("name: ok", "name: first"));
    let dir = first.parent().unwrap();
    let text = GOOD.replace("ROBOTS/pendulum2.urdf", "../../robots/pendulum2.urdf")
        + "initial_guess: {solve: first.yaml}\n";
    let robots = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/robots"));
    // `dir/a/b/../../robots` is the crate's robots folder, wherever `dir` is: link it there.
    let nested = dir.join("a/b");
    std::fs::create_dir_all(&nested).unwrap();
    let _ = std::os::unix::fs::symlink(robots, dir.join("robots"));
    let anchored = anchor_paths(&text.replace("first.yaml", "../../first.yaml"), &nested);
    let elsewhere = std::env::temp_dir();
    let prob = load_problem_str(
        &anchored,
        &elsewhere,
        "anchored.yaml",
        &ProblemOverrides::default(),
    )
    .unwrap_or_else(|e| panic!("{e}\n{anchored}"));
    assert!(matches!(&prob.initial_guess, InitialGuess::Solve(f) if f.name == "first"));
    assert_eq!(prob.model.dof(), 2);
    assert_eq!(
        anchor_paths("- not a mapping\n", &nested),
        "- not a mapping\n"
    );
}

/// A chain of problems solved first that comes back to one of its files is refused, also a
/// file that names itself.
#[test]
fn a_cycle_of_problems_to_solve_first_is_refused() {
    let a = write(
        "a.yaml",
        &format!("{GOOD}initial_guess: {{solve: b.yaml}}\n"),
    );
    write_beside(
        &a,
        "b.yaml",
        &format!("{GOOD}initial_guess: {{solve: ./a.yaml}}\n"),
    );
    let msg = load_problem(&a, &ProblemOverrides::default())
        .unwrap_err()
        .to_string();
    assert_mentions(&msg, &["b.yaml", "initial_guess.solve", "a.yaml", "cycle"]);
    let msg = error_of(
        "me.yaml",
        &format!("{GOOD}initial_guess: {{solve: me.yaml}}\n"),
    );
    assert_mentions(&msg, &["me.yaml", "initial_guess.solve", "cycle"]);
}

#[test]
fn unknown_actuated_joint() {
    let msg = error_of("act.yaml", &format!("{GOOD}actuated: [wrist]\n"));
    assert_mentions(&msg, &["actuated", "wrist"]);
}

#[test]
fn lock_uncouple_and_contact_points_edit_the_model() {
    let base = "name: h\nrobot: ROBOTS/humanoid.urdf\nbase: floating\nduration: 1\nstages: 2\n";
    let text = format!(
        "{base}lock: {{back_bkz: 0.1, neck_ry: null}}\ncontact_points: [{{name: l_toe, \
         frame: l_sole, offset: [0.1, 0, 0], radius: 0.01}}, {{name: r_toe, frame: r_sole}}]\n"
    );
    let p = write("h.yaml", &text);
    let prob = load_problem(&p, &ProblemOverrides::default()).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        prob.model.joint_index("back_bkz").is_none() && prob.model.joint_index("neck_ry").is_none()
    );
    let locked = &prob.model.report().locked;
    assert_eq!(
        (locked[0].joint.as_str(), locked[0].value),
        ("back_bkz", 0.1)
    );
    assert_eq!(
        (locked[1].joint.as_str(), locked[1].value),
        ("neck_ry", 0.0)
    );
    let c = prob
        .model
        .contact_points()
        .iter()
        .find(|c| c.name == "l_toe")
        .unwrap();
    assert_eq!(c.radius, 0.01);
    assert!(
        prob.model
            .contact_points()
            .iter()
            .any(|c| c.name == "r_toe")
    );
    assert!(prob.constraint_kinds().is_empty());
    for (bad, words) in [
        ("lock: {nope: 0}", vec!["lock", "nope"]),
        ("lock: {neck_ry: 7}", vec!["lock", "neck_ry", "7"]),
        (
            "uncouple: [neck_ry]",
            vec!["uncouple", "neck_ry", "not a mimic joint"],
        ),
        (
            "contact_points: [{name: t, frame: nowhere}]",
            vec!["contact_points[0]", "nowhere"],
        ),
        (
            "contact_points: [{name: pelvis, frame: l_sole}]",
            vec!["contact_points[0]", "already"],
        ),
        (
            "contact_points: [{name: t, frame: l_sole, size: 1}]",
            vec!["size"],
        ),
    ] {
        let msg = error_of("bad.yaml", &format!("{base}{bad}\n"));
        assert_mentions(&msg, &words);
    }
    // A mimic joint's coupling becomes a joint equality; `uncouple` drops it.
    let dir = scratch::fresh_dir("vito-problem-mimic");
    std::fs::write(dir.join("g.urdf"), fixtures::quirks::mimic_pair(true)).unwrap();
    let mimic = |extra: &str| {
        let p = dir.join("m.yaml");
        std::fs::write(
            &p,
            format!(
                "name: m\nrobot: g.urdf\nduration: 1\nstages: 2\ncosts: {{effort: 2}}\n{extra}"
            ),
        )
        .unwrap();
        load_problem(&p, &ProblemOverrides::default()).unwrap_or_else(|e| panic!("{e}"))
    };
    let prob = mimic("");
    assert_eq!(prob.constraint_kinds(), ["joint_equality"]);
    let c = &prob.model.couplings()[0];
    assert_eq!(
        (c.follower, c.leader, c.multiplier, c.offset),
        (1, 0, 0.5, 0.2)
    );
    // The passive follower carries the coupling force: actuated, unbounded, free of cost.
    assert_eq!(prob.model.actuated_joints(), [0, 1]);
    // Its weight is checked in `src/terms/effort.rs`.
    assert_eq!(prob.cost_kinds(), ["effort"]);
    assert_eq!(prob.u_bounds.upper[1], f64::INFINITY);
    let prob = mimic("uncouple: [j2]\n");
    assert!(prob.constraint_kinds().is_empty());
    assert_eq!(prob.model.actuated_joints(), [0]);
    let prob = mimic("lock: {j1: 0.4}\n");
    assert_eq!(prob.model.dof(), 0);
    assert!((prob.model.report().locked[1].value - 0.4).abs() < 1e-15);
}

const HOPPER: &str = "name: hop\nrobot: ROBOTS/hopper.urdf\nbase: planar\nduration: 1\nstages: 5\n\
costs: {effort: 0.01}\n";

#[test]
fn malformed_terrain_and_contact_input_names_the_field() {
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "negative_mu.yaml",
            "terrain: {friction: -0.3}\n",
            &["terrain.friction", "-0.3"],
        ),
        (
            "nan_mu.yaml",
            "terrain: {friction: .nan}\n",
            &["terrain.friction", "finite"],
        ),
        (
            "box_upside_down.yaml",
            "terrain: {friction: 0.5, boxes: [{x: [0.5, 0.2], top: 0.1}]}\n",
            &["terrain.boxes[0].x", "lower end 0.5", "upper end 0.2"],
        ),
        (
            "box_y_upside_down.yaml",
            "terrain: {friction: 0.5, boxes: [{x: [0.2, 0.5], y: [1, -1], top: 0.1}]}\n",
            &["terrain.boxes[0].y"],
        ),
        (
            "box_below_ground.yaml",
            "terrain: {friction: 0.5, ground: 0.2, boxes: [{x: [0.2, 0.5], top: 0.1}]}\n",
            &["terrain.boxes[0].top", "0.1"],
        ),
        (
            "gap_depth.yaml",
            "terrain: {friction: 0.5, gaps: [{x: [0.2, 0.5], depth: -0.1}]}\n",
            &["terrain.gaps[0].depth", "-0.1"],
        ),
        (
            "edge_radius.yaml",
            "terrain: {friction: 0.5, edge_radius: -0.01}\n",
            &["terrain.edge_radius", "-0.01"],
        ),
        (
            "creep.yaml",
            "terrain: {friction: 0.5, creep: -0.001}\n",
            &["terrain.creep", "-0.001"],
        ),
        (
            "penetration.yaml",
            "terrain: {friction: 0.5, penetration: -0.0005}\n",
            &["terrain.penetration", "-0.0005"],
        ),
        (
            "unknown_terrain_key.yaml",
            "terrain: {friction: 0.5, slope: 0.1}\n",
            &["slope"],
        ),
        (
            "unknown_contact.yaml",
            "terrain: {friction: 0.5}\ncontacts: [heel]\n",
            &["contacts[0]", "'heel'", "foot"],
        ),
        (
            "contacts_without_terrain.yaml",
            "contacts: [foot]\n",
            &["contacts", "no terrain"],
        ),
        (
            "bad_method.yaml",
            "terrain: {friction: 0.5}\ncomplementarity: {method: lcp}\n",
            &["complementarity.method", "lcp"],
        ),
        (
            "bad_smoothing.yaml",
            "terrain: {friction: 0.5}\ncomplementarity: {method: smoothing, start: 1e-6, end: 1e-2}\n",
            &["complementarity", "0 < end <= start"],
        ),
        (
            "bad_weight.yaml",
            "terrain: {friction: 0.5}\ncomplementarity: {method: penalty, weight: 0}\n",
            &["complementarity.weight"],
        ),
    ];
    for (name, extra, words) in cases {
        let msg = error_of(name, &format!("{HOPPER}{extra}"));
        assert_mentions(&msg, &[name]);
        assert_mentions(&msg, words);
    }
    // Terrain for a robot without contact points.
    let msg = error_of(
        "no_contact_points.yaml",
        &format!("{GOOD}terrain: {{friction: 0.5}}\n"),
    );
    assert_mentions(
        &msg,
        &["no_contact_points.yaml", "terrain", "no contact points"],
    );
}

/// The box standing on its bottom face, at rest at a fixed start.
const BOX: &str = "name: b\nrobot: ROBOTS/box.urdf\nbase: floating\nduration: 0.2\nstages: 2\n\
contact_points: [{name: bottom, frame: box, offset: [0, 0, -0.05]}]\n";
const BOX_START: &str = "initial: {q: [0, 0, 0.05, 0, 0, 0]}\n";
const SOLE: &str = "sole: {x: [-0.1, 0.1], y: [-0.1, 0.1]}";

#[test]
fn stances_and_frame_bounds_load_and_name_bad_fields() {
    // Held where initial.q puts the frame, or at a given pose that agrees with it.
    for extra in [
        format!("{BOX_START}stance: [{{frame: bottom, friction: 0.5, {SOLE}}}]\n"),
        format!(
            "{BOX_START}stance: [{{frame: bottom, friction: 0.5, {SOLE}, position: [0, 0, 0], \
             rpy: [0, 0, 0]}}]\n"
        ),
    ] {
        let p = write("stance.yaml", &format!("{BOX}{extra}"));
        let prob = load_problem(&p, &ProblemOverrides::default()).unwrap();
        let s = &prob.stances[0];
        assert!(
            s.position.norm() < 1e-12
                && (s.rotation - nalgebra::Matrix3::identity()).norm() < 1e-12
        );
        assert_eq!(s.cone.friction, 0.5);
    }
    let p = write(
        "bounds.yaml",
        &format!(
            "{BOX}{BOX_START}constraints:\n  - frame_bounds: {{frame: bottom, z: [0, .inf], x: [-1, 1]}}\n"
        ),
    );
    let prob = load_problem(&p, &ProblemOverrides::default()).unwrap();
    // The axes read are checked in `src/terms/frame_bounds.rs`.
    assert_eq!(prob.constraint_kinds(), ["frame_bounds"]);
    let cases: [(&str, String, &[&str]); 9] = [
        (
            "stance_frame.yaml",
            format!("{BOX_START}stance: [{{frame: toe, friction: 0.5, {SOLE}}}]\n"),
            &["stance[0].frame", "toe"],
        ),
        (
            "stance_friction.yaml",
            format!("{BOX_START}stance: [{{frame: bottom, friction: -1, {SOLE}}}]\n"),
            &["stance[0].friction", "-1"],
        ),
        (
            "stance_sole.yaml",
            format!(
                "{BOX_START}stance: [{{frame: bottom, friction: 0.5, sole: {{x: [0.1, -0.1], y: [-0.1, 0.1]}}}}]\n"
            ),
            &["stance[0].sole.x", "lower < upper"],
        ),
        (
            "stance_pose.yaml",
            format!("stance: [{{frame: bottom, friction: 0.5, {SOLE}}}]\n"),
            &["stance[0].position", "initial.q"],
        ),
        (
            "stance_half_pose.yaml",
            format!("stance: [{{frame: bottom, friction: 0.5, {SOLE}, position: [0, 0, 0]}}]\n"),
            &["stance[0].rpy", "both"],
        ),
        (
            "stance_mismatch.yaml",
            format!(
                "{BOX_START}stance: [{{frame: bottom, friction: 0.5, {SOLE}, position: [0, 0, 0.1], \
                 rpy: [0, 0, 0]}}]\n"
            ),
            &["stance[0].position", "initial.q puts 'bottom'"],
        ),
        (
            "stance_twice.yaml",
            format!(
                "{BOX_START}stance: [{{frame: bottom, friction: 0.5, {SOLE}}}, \
                 {{frame: bottom, friction: 0.5, {SOLE}}}]\n"
            ),
            &["stance[1].frame", "already"],
        ),
        (
            "bounds_axis.yaml",
            format!("{BOX_START}constraints:\n  - frame_bounds: {{frame: bottom, z: [1, 0]}}\n"),
            &["constraints[0].frame_bounds.z", "exceeds"],
        ),
        (
            "bounds_empty.yaml",
            format!("{BOX_START}constraints:\n  - frame_bounds: {{frame: bottom}}\n"),
            &["constraints[0].frame_bounds", "at least one"],
        ),
    ];
    for (name, extra, words) in cases {
        let msg = error_of(name, &format!("{BOX}{extra}"));
        assert_mentions(&msg, &[name]);
        assert_mentions(&msg, words);
    }
}

#[test]
fn obstacle_clearance_loads_and_names_bad_fields() {
    let terrain = "terrain: {friction: 0.5, boxes: [{x: [0.3, 0.5], top: 0.1}]}\n";
    let clearance = |fields: &str| {
        format!("{BOX}{terrain}constraints:\n  - obstacle_clearance: {{frame: box, {fields}}}\n")
    };
    let p = write(
        "clearance.yaml",
        &clearance("from: [0, 0, 0.05], to: [0, 0, -0.05], samples: 3, margin: 0.01"),
    );
    // The samples read are checked in `src/terms/obstacle_clearance.rs`.
    let prob = load_problem(&p, &ProblemOverrides::default()).unwrap();
    assert_eq!(prob.constraint_kinds(), ["obstacle_clearance"]);
    let cases: [(&str, String, &[&str]); 5] = [
        (
            "clearance_terrain.yaml",
            format!(
                "{BOX}constraints:\n  - obstacle_clearance: {{frame: box, from: [0, 0, 0], \
                 to: [0, 0, 1], samples: 2, margin: 0}}\n"
            ),
            &["constraints[0].obstacle_clearance", "box"],
        ),
        (
            "clearance_samples.yaml",
            clearance("from: [0, 0, 0], to: [0, 0, 1], samples: 1, margin: 0"),
            &["constraints[0].obstacle_clearance.samples", "1"],
        ),
        (
            "clearance_no_samples.yaml",
            clearance("from: [0, 0, 0], to: [0, 0, 0], samples: 0, margin: 0"),
            &["constraints[0].obstacle_clearance.samples", "0"],
        ),
        (
            "clearance_margin.yaml",
            clearance("from: [0, 0, 0], to: [0, 0, 1], samples: 2, margin: -0.1"),
            &["constraints[0].obstacle_clearance.margin", "-0.1"],
        ),
        (
            "clearance_frame.yaml",
            format!(
                "{BOX}{terrain}constraints:\n  - obstacle_clearance: {{frame: shin, from: [0, 0, 0], \
                 to: [0, 0, 1], samples: 2, margin: 0}}\n"
            ),
            &["constraints[0].obstacle_clearance.frame", "shin"],
        ),
    ];
    for (name, extra, words) in cases {
        let msg = error_of(name, &extra);
        assert_mentions(&msg, &[name]);
        assert_mentions(&msg, words);
    }
}

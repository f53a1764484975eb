//! Malformed simulation files give errors naming the field; none panics.

mod fixtures;
mod scratch;

use std::path::PathBuf;
use vito::problem::{SimulationOverrides, load_simulation};

fn write(name: &str, text: &str) -> PathBuf {
    let dir = scratch::fresh_dir("vito-sim-yaml");
    let robots = concat!(env!("CARGO_MANIFEST_DIR"), "/robots");
    let p = dir.join(name);
    std::fs::write(&p, text.replace("ROBOTS", robots)).unwrap();
    p
}

const GOOD: &str = "robot: ROBOTS/pendulum2.urdf\ndt: 0.01\nduration: 1.0\nq0: [0.1, 0.2]\n";

fn error_of(name: &str, text: &str) -> String {
    let p = write(name, text);
    match load_simulation(&p, &SimulationOverrides::default()) {
        Ok(_) => panic!("accepted {name}"),
        Err(e) => e.to_string(),
    }
}

fn assert_mentions(msg: &str, words: &[&str]) {
    for w in words {
        assert!(msg.contains(w), "{msg:?} does not mention {w:?}");
    }
}

#[test]
fn the_good_file_loads() {
    let p = write("good.yaml", GOOD);
    let prob = load_simulation(&p, &SimulationOverrides::default()).unwrap();
    assert_eq!((prob.options.steps, prob.q0.len()), (100, 2));
}

#[test]
fn unknown_keys_are_refused() {
    let msg = error_of("unknown.yaml", &format!("{GOOD}tiemstep: 3\n"));
    assert_mentions(&msg, &["unknown.yaml", "tiemstep", "line"]);
    let msg = error_of("unknown2.yaml", &format!("{GOOD}newton: {{tol: 1}}\n"));
    assert_mentions(&msg, &["newton", "tol"]);
}

#[test]
fn wrong_types_name_the_field() {
    let msg = error_of(
        "types.yaml",
        "robot: ROBOTS/pendulum2.urdf\ndt: fast\nduration: 1\nq0: [0, 0]\n",
    );
    assert_mentions(&msg, &["dt", "line 2"]);
    let msg = error_of(
        "types2.yaml",
        "robot: ROBOTS/pendulum2.urdf\ndt: 0.1\nduration: 1\nq0: [0, zero]\n",
    );
    assert_mentions(&msg, &["q0[1]"]);
}

#[test]
fn missing_required_fields_are_named() {
    let msg = error_of(
        "missing.yaml",
        "robot: ROBOTS/pendulum2.urdf\ndt: 0.1\nq0: [0, 0]\n",
    );
    assert_mentions(&msg, &["duration"]);
}

#[test]
fn q0_of_the_wrong_length_is_refused() {
    let msg = error_of(
        "short.yaml",
        "robot: ROBOTS/pendulum2.urdf\ndt: 0.01\nduration: 1\nq0: [0.1]\n",
    );
    assert_mentions(&msg, &["q0", "1 values", "2 DoF", "joint1"]);
    let msg = error_of("v0.yaml", &format!("{GOOD}v0: [1, 2, 3]\n"));
    assert_mentions(&msg, &["v0", "3 values"]);
}

#[test]
fn non_positive_steps_and_horizons_are_refused() {
    for dt in ["0", "-0.01"] {
        let msg = error_of(
            "dt.yaml",
            &format!("robot: ROBOTS/pendulum2.urdf\ndt: {dt}\nduration: 1\nq0: [0, 0]\n"),
        );
        assert_mentions(&msg, &["dt", "positive"]);
    }
    let msg = error_of(
        "dur.yaml",
        "robot: ROBOTS/pendulum2.urdf\ndt: 0.01\nduration: -1\nq0: [0, 0]\n",
    );
    assert_mentions(&msg, &["duration", "positive"]);
}

#[test]
fn bad_integrators_are_refused() {
    for bad in ["rk4", "galerkin:9", "galerkin:x"] {
        let msg = error_of("integ.yaml", &format!("{GOOD}integrator: {bad}\n"));
        assert_mentions(&msg, &["integrator", bad, "simpson"]);
    }
}

#[test]
fn bad_torque_schedules_are_refused() {
    let msg = error_of(
        "tj.yaml",
        &format!("{GOOD}torques: {{joints: [elbow], times: [0], values: [[1]]}}\n"),
    );
    assert_mentions(&msg, &["torques.joints[0]", "elbow", "joint1"]);
    let msg = error_of(
        "tt.yaml",
        &format!("{GOOD}torques: {{times: [0, 1, 1], values: [[1, 0], [0, 0], [0, 0]]}}\n"),
    );
    assert_mentions(&msg, &["torques.times[2]", "increase"]);
    let msg = error_of(
        "tv.yaml",
        &format!("{GOOD}torques: {{times: [0, 1], values: [[1, 0]]}}\n"),
    );
    assert_mentions(&msg, &["torques.values", "1 rows", "2 times"]);
    let msg = error_of(
        "tw.yaml",
        &format!("{GOOD}torques: {{times: [0], values: [[1, 0, 3]]}}\n"),
    );
    assert_mentions(&msg, &["torques.values[0]", "3 values"]);
    let msg = error_of(
        "ti.yaml",
        &format!("{GOOD}torques: {{times: [0], values: [[1, 0]], interpolation: cubic}}\n"),
    );
    assert_mentions(&msg, &["interpolation", "cubic"]);
}

#[test]
fn bad_constraints_are_refused() {
    let msg = error_of(
        "cp.yaml",
        &format!("{GOOD}constraints: [{{point: hand, axes: [x]}}]\n"),
    );
    assert_mentions(&msg, &["constraints[0].point", "hand", "tip"]);
    let msg = error_of(
        "ca.yaml",
        &format!("{GOOD}constraints: [{{point: tip, axes: [w]}}]\n"),
    );
    assert_mentions(&msg, &["constraints[0].axes[0]", "'w'"]);
}

#[test]
fn a_missing_robot_file_is_named() {
    let msg = error_of(
        "robot.yaml",
        "robot: nowhere/none.urdf\ndt: 0.01\nduration: 1\nq0: []\n",
    );
    assert_mentions(&msg, &["robot.yaml", "none.urdf"]);
}

#[test]
fn bad_base_and_newton_settings_are_refused() {
    let msg = error_of("base.yaml", &format!("{GOOD}base: hovering\n"));
    assert_mentions(&msg, &["base", "hovering"]);
    let msg = error_of("newton.yaml", &format!("{GOOD}newton: {{tolerance: -1}}\n"));
    assert_mentions(&msg, &["newton.tolerance", "positive"]);
}

#[test]
fn mimic_joints_start_coupled_and_locks_and_contact_points_apply() {
    let dir = scratch::fresh_dir("vito-sim-mimic");
    std::fs::write(dir.join("g.urdf"), fixtures::quirks::mimic_pair(false)).unwrap();
    let load = |body: &str| {
        let p = dir.join("s.yaml");
        std::fs::write(
            &p,
            format!("robot: g.urdf\ndt: 0.01\nduration: 0.1\n{body}"),
        )
        .unwrap();
        load_simulation(&p, &SimulationOverrides::default()).map_err(|e| e.to_string())
    };
    let ok = load("q0: [0.4, 0.4]\nv0: [1, 0.5]\n").unwrap();
    assert_eq!(ok.model.couplings().len(), 1);
    let err = load("q0: [0.4, 0.3]\n").unwrap_err();
    assert_mentions(&err, &["q0[1]", "j2", "follows", "0.4"]);
    let err = load("q0: [0.4, 0.4]\nv0: [1, 0]\n").unwrap_err();
    assert_mentions(&err, &["v0[1]", "j2", "0.5"]);
    assert!(load("q0: [0.4, 0.3]\nuncouple: [j2]\n").is_ok());
    let locked =
        load("q0: [0.1]\nlock: {j2: 0.3}\ncontact_points: [{name: p, frame: a, radius: 0.1}]\n")
            .unwrap();
    assert_eq!(locked.model.joint_names(), ["j1"]);
    assert_eq!(locked.model.contact_points()[0].radius, 0.1);
    // Locked to the world, link b is no frame any more.
    let err = load("q0: [0.1]\nlock: {j2: 0.3}\ncontact_points: [{name: p, frame: b}]\n");
    assert_mentions(&err.unwrap_err(), &["contact_points[0]", "'b'"]);
}

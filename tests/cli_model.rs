//! `vito model` end to end: summaries, dynamics JSON, and one-line errors for bad input.

mod scratch;

use std::path::PathBuf;
use std::process::{Command, Output};

fn vito(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vito"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("vito runs")
}

fn temp_file(name: &str, text: &str) -> PathBuf {
    let dir = scratch::fresh_dir("vito-cli-model");
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn assert_one_line_error(out: &Output, words: &[&str]) {
    assert!(!out.status.success(), "expected failure");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "panic: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "not one line: {err}");
    for w in words {
        assert!(err.contains(w), "{err:?} does not mention {w:?}");
    }
}

#[test]
fn summary_lists_joints_and_mass() {
    let out = vito(&["model", "robots/pendulum3.urdf"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("3 DoF") && text.contains("joint3") && text.contains("3.0000 kg"));
    let out = vito(&[
        "model",
        "robots/pendulum2.urdf",
        "--base",
        "planar",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["dof"], 5);
    assert_eq!(v["joints"][0]["name"], "base_x");
}

#[test]
fn state_gives_dynamics_json() {
    let s = temp_file(
        "ok.json",
        r#"{"q":[0.1,0.2],"v":[1,2],"a":[0.5,-1],"tau":[0.3,0.4]}"#,
    );
    let out = vito(&[
        "model",
        "robots/pendulum2.urdf",
        "--state",
        s.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in [
        "joint_names",
        "mass_matrix",
        "bias_forces",
        "inverse_dynamics",
        "forward_dynamics",
        "kinetic_energy",
        "potential_energy",
        "com",
    ] {
        assert!(!v[key].is_null(), "missing {key}");
    }
    // τ = M a + bias, from the printed numbers.
    let m: Vec<Vec<f64>> = serde_json::from_value(v["mass_matrix"].clone()).unwrap();
    let b: Vec<f64> = serde_json::from_value(v["bias_forces"].clone()).unwrap();
    let id: Vec<f64> = serde_json::from_value(v["inverse_dynamics"].clone()).unwrap();
    let a = [0.5, -1.0];
    for i in 0..2 {
        let expected = m[i][0] * a[0] + m[i][1] * a[1] + b[i];
        assert!((id[i] - expected).abs() < 1e-12);
    }
}

#[test]
fn state_of_the_wrong_length_is_one_line_error() {
    let s = temp_file("short.json", r#"{"q":[0.1]}"#);
    let out = vito(&[
        "model",
        "robots/pendulum2.urdf",
        "--state",
        s.to_str().unwrap(),
    ]);
    assert_one_line_error(&out, &["short.json", "'q'", "1 values", "2 DoF"]);
    let s = temp_file("longv.json", r#"{"q":[0.1,0.2],"v":[1,2,3]}"#);
    let out = vito(&[
        "model",
        "robots/pendulum2.urdf",
        "--state",
        s.to_str().unwrap(),
    ]);
    assert_one_line_error(&out, &["longv.json", "'v'", "3 values"]);
}

#[test]
fn missing_files_are_one_line_errors() {
    let out = vito(&[
        "model",
        "robots/pendulum2.urdf",
        "--state",
        "/nonexistent/state.json",
    ]);
    assert_one_line_error(&out, &["/nonexistent/state.json"]);
    let out = vito(&["model", "robots/nope.urdf"]);
    assert_one_line_error(&out, &["robots/nope.urdf"]);
}

#[test]
fn bad_json_is_a_one_line_error() {
    let s = temp_file("bad.json", r#"{"q":[0.1, "#);
    let out = vito(&[
        "model",
        "robots/pendulum2.urdf",
        "--state",
        s.to_str().unwrap(),
    ]);
    assert_one_line_error(&out, &["bad.json", "line"]);
    let s = temp_file("typo.json", r#"{"q":[0.1,0.2],"qd":[0,0]}"#);
    let out = vito(&[
        "model",
        "robots/pendulum2.urdf",
        "--state",
        s.to_str().unwrap(),
    ]);
    assert_one_line_error(&out, &["typo.json", "qd"]);
    let s = temp_file("type.json", r#"{"q":"zero"}"#);
    let out = vito(&[
        "model",
        "robots/pendulum2.urdf",
        "--state",
        s.to_str().unwrap(),
    ]);
    assert_one_line_error(&out, &["type.json"]);
}

#[test]
fn bad_base_is_refused() {
    let out = vito(&["model", "robots/pendulum2.urdf", "--base", "wobbly"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("wobbly") && !err.contains("panicked"));
}

#[test]
fn pendulum_generator_writes_the_committed_files() {
    for n in ["1", "2", "3", "12", "32"] {
        let out = vito(&["robot", "pendulum", "--links", n]);
        assert!(out.status.success());
        let committed = std::fs::read_to_string(format!(
            "{}/robots/pendulum{n}.urdf",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            committed,
            "pendulum{n}.urdf"
        );
    }
    let out = vito(&["robot", "pendulum", "--links", "0"]);
    assert_one_line_error(&out, &["at least one link"]);
    let out = vito(&[
        "robot",
        "pendulum",
        "--links",
        "2",
        "-o",
        "robots/pendulum2.urdf",
    ]);
    assert_one_line_error(&out, &["robots/pendulum2.urdf", "--force"]);
}

//! `vito model` end to end: summaries (with the likely feet of a robot without contact points),
//! dynamics JSON, and one-line errors for bad input.

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
    // The operating system's reason is said once, not again for each error that carries it.
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot read the URDF: "), "{err}");
    assert_eq!(err.matches("(os error").count(), 1, "{err}");
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

#[test]
fn lock_reduces_the_humanoid_and_the_summary_says_so() {
    let out = vito(&[
        "model",
        "robots/humanoid.urdf",
        "--base",
        "floating",
        "--lock",
        "back_bkz,back_bky=0.1,back_bkx,neck_ry=-0.2",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let full: serde_json::Value = serde_json::from_slice(
        &vito(&[
            "model",
            "robots/humanoid.urdf",
            "--base",
            "floating",
            "--json",
        ])
        .stdout,
    )
    .unwrap();
    assert_eq!(
        v["dof"].as_u64().unwrap() + 4,
        full["dof"].as_u64().unwrap()
    );
    let locked = v["locked"].as_array().unwrap();
    assert_eq!(locked.len(), 4);
    assert_eq!(locked[1]["joint"], "back_bky");
    assert_eq!(locked[1]["value"], 0.1);
    assert_eq!(locked[1]["reason"], "requested");
    assert!(
        v["merged"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["link"] == "head" && m["into"] == "pelvis")
    );
    let text = String::from_utf8_lossy(
        &vito(&[
            "model",
            "robots/humanoid.urdf",
            "--lock",
            "neck_ry",
            "--base",
            "floating",
        ])
        .stdout,
    )
    .to_string();
    assert!(text.contains("locked joints: 1") && text.contains("neck_ry at 0 (requested)"));
    let bad = vito(&["model", "robots/humanoid.urdf", "--lock", "neck_ry=9"]);
    assert_one_line_error(&bad, &["--lock", "neck_ry", "9"]);
    let bad = vito(&["model", "robots/humanoid.urdf", "--lock", "neck_ry=x"]);
    assert!(!bad.status.success());
}

const CAD: &str = r#"<robot name="cad"><link name="base"/>
<link name="shoulder"><inertial><mass value="0.4"/>
<inertia ixx="1.296052e-5" ixy="0" ixz="0" iyy="7.105745e-5" iyz="0" izz="9.982175e-5"/></inertial></link>
<joint name="j" type="revolute"><parent link="base"/><child link="shoulder"/><axis xyz="0 1 0"/></joint>
<link name="finger"><inertial><mass value="0.1"/><origin xyz="0 0 0.1"/>
<inertia ixx="1e-4" ixy="0" ixz="0" iyy="1e-4" iyz="0" izz="1e-4"/></inertial></link>
<joint name="f" type="prismatic"><parent link="shoulder"/><child link="finger"/><axis xyz="1 0 0"/>
<mimic joint="j" multiplier="2" offset="0.1"/></joint></robot>"#;

#[test]
fn warnings_couplings_and_inertia_fixes_are_reported() {
    let p = temp_file("cad.urdf", CAD);
    let path = p.to_str().unwrap();
    let out = vito(&["model", path]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "one warning per link: {err}");
    assert!(err.starts_with("warning: cad: link 'shoulder'") && err.contains("triangle"));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("f = 2 · j + 0.1"), "{text}");
    assert!(text.contains("warnings: 1"));
    let out = vito(&["model", path, "--fix-inertia", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["couplings"][0]["joint"], "f");
    assert_eq!(v["couplings"][0]["leader"], "j");
    assert_eq!(v["inertia_fixes"][0]["link"], "shoulder");
    assert!(v["inertia_fixes"][0]["moved"].as_f64().unwrap() > 0.0);
    assert!(v["warnings"][0].as_str().unwrap().contains("replaced"));
}

#[test]
fn xacro_is_a_one_line_error_saying_what_to_run() {
    let p = temp_file(
        "r.urdf.xacro",
        r#"<robot name="r" xmlns:xacro="http://ros.org/wiki/xacro"><xacro:include filename="x"/></robot>"#,
    );
    let out = vito(&["model", p.to_str().unwrap()]);
    assert_one_line_error(&out, &["xacro", "xacro FILE > robot.urdf"]);
}

#[test]
fn a_robot_without_contact_points_gets_a_block_of_its_likely_feet() {
    // The shipped quadruped without the sphere collisions that declare its feet.
    let shipped = concat!(env!("CARGO_MANIFEST_DIR"), "/robots/quadruped.urdf");
    let mut text = std::fs::read_to_string(shipped).unwrap();
    while let Some(start) = text.find("<collision name=") {
        let end = start + text[start..].find("</collision>").unwrap() + "</collision>".len();
        text.replace_range(start..end, "");
    }
    let urdf = temp_file("quadruped_without_feet.urdf", &text);
    let out = vito(&["model", urdf.to_str().unwrap(), "--base", "floating"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary = String::from_utf8_lossy(&out.stdout);
    assert!(
        summary.contains(
            "likely feet (leaf links reaching within 0.03 m of the robot's lowest point with \
             every joint at 0 or mid-range): fl_lower_leg, fr_lower_leg, hl_lower_leg, hr_lower_leg"
        ),
        "{summary}"
    );
    let block: Vec<&str> = summary
        .lines()
        .skip_while(|l| *l != "contact_points:")
        .take_while(|l| !l.is_empty())
        .collect();
    assert_eq!(block.len(), 5, "{summary}");
    assert_eq!(
        block[1],
        "  - {name: fl_lower_leg_contact, frame: fl_lower_leg, offset: [0, 0, -0.112], radius: 0}"
    );
    // Pasted into a simulation file, the block declares the four feet at the bottoms of the
    // lower legs' foot balls.
    let yaml = format!(
        "robot: {}\nbase: floating\ndt: 0.01\nduration: 0.1\nq0: [{}]\n{}\n",
        urdf.display(),
        vec!["0"; 18].join(", "),
        block.join("\n")
    );
    let sim = vito::problem::load_simulation_str(
        &yaml,
        urdf.parent().unwrap(),
        "pasted.yaml",
        &vito::problem::SimulationOverrides::default(),
    )
    .unwrap();
    let points = sim.model.contact_points();
    assert_eq!(points.len(), 4);
    for (p, leg) in points.iter().zip(["fl", "fr", "hl", "hr"]) {
        assert_eq!(p.name, format!("{leg}_lower_leg_contact"));
        assert_eq!(sim.model.joint(p.body).body, format!("{leg}_lower_leg"));
        assert!((p.offset.z + 0.112).abs() < 1e-12 && p.offset.x == 0.0 && p.offset.y == 0.0);
    }
    // The JSON summary lists them too; a robot with contact points gets no hint.
    let out = vito(&[
        "model",
        urdf.to_str().unwrap(),
        "--base",
        "floating",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["likely_feet"].as_array().map(Vec::len), Some(4));
    assert_eq!(v["likely_feet"][0]["link"], "fl_lower_leg");
    let out = vito(&["model", "robots/quadruped.urdf", "--base", "floating"]);
    assert!(!String::from_utf8_lossy(&out.stdout).contains("likely feet"));
}

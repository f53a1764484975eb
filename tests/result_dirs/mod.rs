//! Hand-written result directories for `vito view`: a quadruped walking over terrain with
//! contact forces and a target (the contact work's formats), a humanoid walking for 3 s
//! at 1 kHz, and the meshed arm of `tests/fixtures/meshed_arm` swinging.
#![allow(dead_code)]

use std::fmt::Write;
use std::path::Path;

fn robot(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("robots")
        .join(name)
        .display()
        .to_string()
}

/// Writes `trajectory.csv` from a header and rows.
fn write_csv(dir: &Path, header: &[String], rows: &[Vec<f64>]) {
    let mut text = header.join(",");
    text.push('\n');
    for r in rows {
        let line: Vec<String> = r.iter().map(f64::to_string).collect();
        let _ = writeln!(text, "{}", line.join(","));
    }
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("trajectory.csv"), text).unwrap();
}

/// The quadruped's joints (floating base first).
pub const QUADRUPED_JOINTS: [&str; 18] = [
    "base_x",
    "base_y",
    "base_z",
    "base_yaw",
    "base_pitch",
    "base_roll",
    "fl_hip_roll",
    "fl_hip_pitch",
    "fl_knee",
    "fr_hip_roll",
    "fr_hip_pitch",
    "fr_knee",
    "hl_hip_roll",
    "hl_hip_pitch",
    "hl_knee",
    "hr_hip_roll",
    "hr_hip_pitch",
    "hr_knee",
];
/// Its feet, the contact points.
pub const FEET: [&str; 4] = ["fl_foot", "fr_foot", "hl_foot", "hr_foot"];

/// A trotting quadruped over a box and a gap, 2 s at 100 Hz, with the normal force and the
/// world force of each foot, a terrain block and a frame-position target.
pub fn quadruped_on_terrain(dir: &Path) {
    let mut header = vec!["t".to_string()];
    header.extend(QUADRUPED_JOINTS.iter().map(|j| format!("q_{j}")));
    for p in FEET {
        header.extend([
            format!("fn_{p}"),
            format!("f_{p}_x"),
            format!("f_{p}_y"),
            format!("f_{p}_z"),
        ]);
    }
    let rows: Vec<Vec<f64>> = (0..=200)
        .map(|k| {
            let t = f64::from(k) * 0.01;
            let phase = |leg: usize| {
                (std::f64::consts::TAU * t + [0.0, 1.0, 1.0, 0.0][leg] * std::f64::consts::PI).sin()
            };
            let mut q = vec![0.0; QUADRUPED_JOINTS.len()];
            q[0] = 0.3 * t;
            q[2] = 0.19 + 0.01 * (std::f64::consts::TAU * t).sin();
            for leg in 0..4 {
                q[7 + 3 * leg] = 0.3 * phase(leg);
                q[8 + 3 * leg] = if leg < 2 { -0.4 } else { 0.4 };
            }
            let mut row = vec![t];
            row.extend(q);
            for leg in 0..4 {
                let normal = 13.5 * phase(leg).max(0.0);
                row.extend([normal, 0.2 * normal, 0.05 * normal, normal]);
            }
            row
        })
        .collect();
    write_csv(dir, &header, &rows);
    let report = format!(
        r#"{{"kind": "solve", "problem": "quadruped_terrain", "robot": "quadruped",
  "robot_file": "{}", "base": "floating", "transcription": "simpson_vi",
  "status": "Converged", "objective": 1.5,
  "targets": [{{"frame": "body", "kind": "constraint", "position": [0.6, 0.0, 0.2],
                "axes": null, "time": 2.0}}],
  "terrain": {{"friction": 0.8, "ground": 0.0, "edge_radius": 0.005,
    "boxes": [{{"x": [0.35, 0.5], "y": null, "top": 0.05}}],
    "gaps": [{{"x": [0.15, 0.25], "y": [-0.3, 0.3], "depth": 0.1}}]}}}}"#,
        robot("quadruped.urdf")
    );
    std::fs::write(dir.join("report.json"), report).unwrap();
}

/// The humanoid walking forward for 3 s, sampled at 1 kHz (3001 rows), as a simulation.
pub fn humanoid_walk(dir: &Path) {
    let names = [
        "base_x",
        "base_y",
        "base_z",
        "base_yaw",
        "base_pitch",
        "base_roll",
        "back_bkz",
        "back_bky",
        "back_bkx",
        "neck_ry",
        "l_arm_shz",
        "l_arm_shx",
        "l_arm_ely",
        "l_arm_elx",
        "r_arm_shz",
        "r_arm_shx",
        "r_arm_ely",
        "r_arm_elx",
        "l_leg_hpz",
        "l_leg_hpx",
        "l_leg_hpy",
        "l_leg_kny",
        "l_leg_aky",
        "l_leg_akx",
        "r_leg_hpz",
        "r_leg_hpx",
        "r_leg_hpy",
        "r_leg_kny",
        "r_leg_aky",
        "r_leg_akx",
    ];
    let at = |n: &str| names.iter().position(|j| *j == n).unwrap();
    let mut header = vec!["t".to_string()];
    header.extend(names.iter().map(|j| format!("q_{j}")));
    let rows: Vec<Vec<f64>> = (0..=3000)
        .map(|k| {
            let t = f64::from(k) * 1e-3;
            let s = (std::f64::consts::TAU * t).sin();
            let mut q = vec![0.0; names.len()];
            q[at("base_x")] = 0.4 * t;
            q[at("base_z")] = 0.9 - 0.02 * (1.0 - (2.0 * std::f64::consts::TAU * t).cos());
            q[at("l_leg_hpy")] = -0.35 * s - 0.1;
            q[at("r_leg_hpy")] = 0.35 * s - 0.1;
            q[at("l_leg_kny")] = 0.3 + 0.3 * s.max(0.0);
            q[at("r_leg_kny")] = 0.3 + 0.3 * (-s).max(0.0);
            q[at("l_arm_ely")] = 0.4 * s;
            q[at("r_arm_ely")] = -0.4 * s;
            q[at("l_arm_shx")] = 0.3;
            q[at("r_arm_shx")] = -0.3;
            q[at("back_bkz")] = 0.1 * s;
            let mut row = vec![t];
            row.extend(q);
            row
        })
        .collect();
    write_csv(dir, &header, &rows);
    let report = format!(
        r#"{{"kind": "simulation", "problem": "humanoid_walk", "robot": "humanoid",
  "robot_file": "{}", "base": "floating", "integrator": "simpson", "dt": 0.001,
  "status": "Completed"}}"#,
        robot("humanoid.urdf")
    );
    std::fs::write(dir.join("report.json"), report).unwrap();
}

/// The fixture robot with meshes (`tests/fixtures/meshed_arm/arm.urdf`).
pub fn meshed_arm_urdf() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/meshed_arm/arm.urdf")
}

/// The 2-link arm of the URDF `urdf` (the meshed arm, or a copy of it) swinging for 2 s at
/// 100 Hz, as a simulation.
pub fn meshed_arm_swing(dir: &Path, urdf: &Path) {
    let header = ["t", "q_shoulder", "q_elbow"].map(String::from);
    let rows: Vec<Vec<f64>> = (0..=200)
        .map(|k| {
            let t = f64::from(k) * 0.01;
            vec![
                t,
                0.9 * (1.5 * t).sin(),
                -1.2 * (1.0 - (2.0 * t).cos()) / 2.0,
            ]
        })
        .collect();
    write_csv(dir, &header, &rows);
    let report = format!(
        r#"{{"kind": "simulation", "problem": "meshed_arm_swing", "robot": "meshed_arm",
  "robot_file": "{}", "base": "fixed", "integrator": "simpson", "dt": 0.01,
  "status": "Completed"}}"#,
        urdf.display()
    );
    std::fs::write(dir.join("report.json"), report).unwrap();
}

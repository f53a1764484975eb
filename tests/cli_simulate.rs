//! `vito simulate` end to end: the trajectory file and plots, and a failing step that keeps the
//! trajectory up to it.

use std::path::PathBuf;
use std::process::{Command, Output};

fn vito(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vito"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("vito runs")
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("vito-cli-sim-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn simulate_writes_the_trajectory_and_plots() {
    let out_dir = temp_dir("ok");
    let out = vito(&[
        "simulate",
        "problems/sim_pendulum12.yaml",
        "--duration",
        "0.2",
        "--integrator",
        "galerkin:3",
        "-o",
        out_dir.to_str().unwrap(),
        "--raster",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = std::fs::read_to_string(out_dir.join("trajectory.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(header.len(), 1 + 12 + 12 + 1);
    assert_eq!(
        (header[0], header[1], header[13], header[25]),
        ("t", "q_joint1", "v_joint1", "energy")
    );
    assert_eq!(lines.count(), 21, "rows for t = 0, 0.01, …, 0.2");
    for f in [
        "joints.svg",
        "joints.png",
        "energy.svg",
        "energy.png",
        "filmstrip.png",
    ] {
        assert!(out_dir.join(f).is_file(), "{f} missing");
    }
    let _ = std::fs::remove_dir_all(&out_dir);
}

#[test]
fn a_step_that_fails_names_the_step_and_keeps_the_trajectory() {
    // A huge step of a 6th-order integrator on the 12-link pendulum does not converge, nor
    // do its halves down to a sixteenth (0.5 s).
    let out_dir = temp_dir("fail");
    let out = vito(&[
        "simulate",
        "problems/sim_pendulum12.yaml",
        "--dt",
        "8",
        "--duration",
        "24",
        "--integrator",
        "galerkin:6",
        "-o",
        out_dir.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("did not converge") && err.contains("step ") && err.contains("t = "),
        "{err}"
    );
    assert!(!err.contains("panicked"));
    let csv = std::fs::read_to_string(out_dir.join("trajectory.csv")).unwrap();
    assert!(
        csv.lines().count() >= 2,
        "at least the initial state is kept"
    );
    let _ = std::fs::remove_dir_all(&out_dir);
}

#[test]
fn bad_overrides_are_refused() {
    let out = vito(&["simulate", "problems/sim_pendulum12.yaml", "--dt", "-1"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("dt") && !err.contains("panicked"), "{err}");
    let out = vito(&[
        "simulate",
        "problems/sim_pendulum12.yaml",
        "--integrator",
        "euler",
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("euler"));
}

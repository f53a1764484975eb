//! `vito bench --sqp --only`: the filter solves just the named problems, and an unknown name is
//! a one-line error that names it.

use std::process::{Command, Output};

fn vito(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vito"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("vito runs")
}

#[test]
fn only_solves_the_named_problem_with_both_transcriptions() {
    let out = vito(&["bench", "--sqp", "--only", "pendulum_swingup_1", "--json"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let runs: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON array");
    let runs = runs.as_array().expect("an array");
    let rows: Vec<(&str, &str, &str)> = runs
        .iter()
        .map(|r| {
            (
                r["problem"].as_str().unwrap_or_default(),
                r["transcription"].as_str().unwrap_or_default(),
                r["status"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("pendulum_swingup_1", "simpson_vi", "Converged"),
            ("pendulum_swingup_1", "hermite_simpson", "Converged"),
        ]
    );
}

#[test]
fn an_unknown_problem_is_named_in_a_one_line_error() {
    let out = vito(&["bench", "--sqp", "--only", "pendulum_swingup_1,hopper_hop"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "not one line: {err}");
    assert!(
        err.contains("'hopper_hop'") && err.contains("pendulum12_reconfigure"),
        "{err}"
    );
}

//! `vito sweep`: a family of variants of one problem, solved in parallel into one table; failed
//! instances are rows, not the end of the sweep, and a second run solves only what is missing.

use std::path::{Path, PathBuf};
use std::process::Command;
use vito::commands::{ERROR_STATUS, SweepOptions, SweepSource, sweep};
use vito::output::read_report;
use vito::problem::sweep::{Design, Variation};
use vito::problem::{ProblemOverrides, load_problem};

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("vito-sweep-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn a_family_is_one_table_with_every_instance_and_a_rerun_solves_only_what_is_missing() {
    let out = temp_dir("family");
    let vary: Vec<Variation> = ["stages=0,20", "solver.max_iterations=1,200"]
        .iter()
        .map(|v| v.parse().unwrap())
        .collect();
    let options = SweepOptions {
        jobs: 2,
        ..SweepOptions::default()
    };
    let file = SweepSource::read(Path::new("problems/pendulum_swingup_1.yaml")).unwrap();
    let done = sweep(&file, &vary, Design::Grid, &out, &options).unwrap();
    assert_eq!(done.keys, ["stages", "solver.max_iterations"]);
    let statuses: Vec<(&[f64], &str)> = done
        .rows
        .iter()
        .map(|r| (r.values.as_slice(), r.status.as_str()))
        .collect();
    assert_eq!(
        statuses,
        [
            (&[0.0, 1.0][..], ERROR_STATUS),
            (&[0.0, 200.0][..], ERROR_STATUS),
            (&[20.0, 1.0][..], "MaxIterations"),
            (&[20.0, 200.0][..], "Converged"),
        ]
    );
    // The error names the instance's field; the unconverged solve kept its report with its
    // true status; the converged one its trajectory.
    let e = done.rows[0].error.as_deref().unwrap();
    assert!(e.contains("instance 0") && e.contains("stages"), "{e}");
    let failed = out.join(&done.rows[2].instance);
    assert_eq!(
        read_report(&failed.join("report.json"))
            .unwrap()
            .status
            .as_deref(),
        Some("MaxIterations")
    );
    let converged = out.join(&done.rows[3].instance);
    assert!(converged.join("trajectory.csv").is_file());
    let problem = std::fs::read_to_string(converged.join("problem.yaml")).unwrap();
    assert!(problem.contains("stages: 20") && problem.contains("max_iterations: 200"));
    // It is the same problem where it was written: its robot found from there.
    let again = load_problem(
        &converged.join("problem.yaml"),
        &ProblemOverrides::default(),
    )
    .unwrap_or_else(|e| panic!("the instance's problem.yaml does not load: {e}\n{problem}"));
    assert_eq!((again.stages, again.solver.max_iterations), (20, 200));
    let table = std::fs::read_to_string(out.join("sweep.csv")).unwrap();
    let mut lines = table.lines();
    assert!(
        lines.next().unwrap().starts_with(
            "instance,stages,solver.max_iterations,status,iterations,solve_s,objective"
        )
    );
    assert_eq!(lines.count(), 4);
    assert!(out.join("sweep.json").is_file());
    assert!(
        out.join("sweep-stages.svg").is_file()
            && out.join("sweep-solver.max_iterations.svg").is_file()
    );
    assert_eq!(done.resumed, 0);
    // Again: the two solves come from their directories, the errors are tried again.
    let again = sweep(&file, &vary, Design::Grid, &out, &options).unwrap();
    assert_eq!(again.resumed, 2);
    assert_eq!(again.rows[2..], done.rows[2..]);
    let _ = std::fs::remove_dir_all(&out);
}

/// `--jobs J` solves at most J instances at once: with one job, each instance's solve (from
/// writing its `problem.yaml` to writing its `row.json`) ends before the next begins.
#[test]
fn one_job_solves_one_instance_at_a_time() {
    let out = temp_dir("one-job");
    let vary: Vec<Variation> = vec!["stages=16,18,20,22".parse().unwrap()];
    let options = SweepOptions {
        jobs: 1,
        ..SweepOptions::default()
    };
    let file = SweepSource::read(Path::new("problems/pendulum_swingup_1.yaml")).unwrap();
    let done = sweep(&file, &vary, Design::Grid, &out, &options).unwrap();
    let modified = |dir: &str, name: &str| {
        std::fs::metadata(out.join(dir).join(name))
            .and_then(|m| m.modified())
            .unwrap()
    };
    let mut spans: Vec<_> = done
        .rows
        .iter()
        .map(|r| {
            (
                modified(&r.instance, "problem.yaml"),
                modified(&r.instance, "row.json"),
            )
        })
        .collect();
    spans.sort();
    for pair in spans.windows(2) {
        assert!(
            pair[0].1 <= pair[1].0,
            "two solves at once with one job: {spans:?}"
        );
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn the_command_reports_each_failure_and_refuses_bad_variations() {
    let vito = env!("CARGO_BIN_EXE_vito");
    let out = temp_dir("cli");
    let run = Command::new(vito)
        .args([
            "sweep",
            "problems/pendulum_swingup_1.yaml",
            "--vary",
            "stages=0,20",
        ])
        .args(["--grid", "-o", out.to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{err}");
    assert!(
        err.contains("1 of 2 instances Converged") && err.contains("stages=0"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    for (vary, says) in [
        ("stages", "expected KEY=RANGE"),
        ("stages=1:x", "'x' is not a finite number"),
        ("terrain.friction+=0.1", "no key 'terrain' in the file"),
    ] {
        let run = Command::new(vito)
            .args(["sweep", "problems/pendulum_swingup_1.yaml", "--vary", vary])
            .args(["-o", out.to_str().unwrap()])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&run.stderr);
        assert!(!run.status.success() && err.contains(says), "{vary}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    let _ = std::fs::remove_dir_all(&out);
}

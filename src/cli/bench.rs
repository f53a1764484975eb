//! `vito bench [--quick] [--json]`: times the Simpson VI stage algorithms on N-link pendulums
//! beside the straightforward paths they replace, and fits their scaling exponents.
//! `vito bench --sqp [--qp ..] [--problems DIR] [--json]`: solves the bundled problems with both
//! transcriptions and reports the SQP solver's cost per iteration.

use super::print_stdout;
use clap::Args;
use serde::Serialize;
use std::hint::black_box;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};
use vito::bench::{SQP_PROBLEMS, SqpRun, StageCase, loglog_slope, sqp_run};
use vito::problem::TranscriptionKind;
use vito::sqp::QpBackend;

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Shorter measurements (noisier).
    #[arg(long)]
    quick: bool,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    json: bool,
    /// Bench the SQP solver on the bundled problems instead of the integrator.
    #[arg(long)]
    sqp: bool,
    /// QP backend for `--sqp`.
    #[arg(long, value_parser = super::parse_qp, default_value = "clarabel")]
    qp: QpBackend,
    /// Directory of the problem files for `--sqp`.
    #[arg(long, default_value = "problems")]
    problems: PathBuf,
    /// With `--sqp`, solve only these problems (file stems, comma-separated; default: all).
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
}

const SIZES: [usize; 6] = [4, 8, 16, 32, 64, 128];

#[derive(Serialize)]
struct Exponents {
    del_eval: f64,
    newton: f64,
    linearize: f64,
}

#[derive(Serialize)]
struct Report {
    sizes: Vec<usize>,
    del_eval_ns: Vec<f64>,
    newton_ns: Vec<f64>,
    linearize_ns: Vec<f64>,
    newton_dense_ns: Vec<f64>,
    linearize_fd_ns: Vec<f64>,
    exponents: Exponents,
}

/// Nanoseconds per call: the best of three batches, each running at least `budget`.
fn time_ns(budget: Duration, mut f: impl FnMut() -> f64) -> f64 {
    black_box(f());
    let mut best = f64::INFINITY;
    for _ in 0..3 {
        let start = Instant::now();
        let mut calls = 0u64;
        while start.elapsed() < budget || calls == 0 {
            black_box(f());
            calls += 1;
        }
        best = best.min(start.elapsed().as_nanos() as f64 / calls as f64);
    }
    best
}

pub fn run(args: BenchArgs) -> anyhow::Result<ExitCode> {
    if args.sqp {
        return run_sqp(&args);
    }
    let budget = Duration::from_millis(if args.quick { 20 } else { 200 });
    let mut r = Report {
        sizes: SIZES.to_vec(),
        del_eval_ns: Vec::new(),
        newton_ns: Vec::new(),
        linearize_ns: Vec::new(),
        newton_dense_ns: Vec::new(),
        linearize_fd_ns: Vec::new(),
        exponents: Exponents {
            del_eval: 0.0,
            newton: 0.0,
            linearize: 0.0,
        },
    };
    for &n in &SIZES {
        let mut c = StageCase::pendulum(n, 1);
        r.del_eval_ns.push(time_ns(budget, || c.del()));
        r.newton_ns.push(time_ns(budget, || c.newton()));
        r.linearize_ns.push(time_ns(budget, || c.linearize()));
        r.newton_dense_ns.push(time_ns(budget, || c.newton_dense()));
        r.linearize_fd_ns.push(time_ns(budget, || c.linearize_fd()));
        if !args.json && std::io::stderr().is_terminal() {
            eprintln!("measured N = {n}");
        }
    }
    // Exponents over N = 8..128 (the smallest size is dominated by fixed costs).
    let x: Vec<f64> = SIZES[1..].iter().map(|&n| n as f64).collect();
    r.exponents = Exponents {
        del_eval: loglog_slope(&x, &r.del_eval_ns[1..]),
        newton: loglog_slope(&x, &r.newton_ns[1..]),
        linearize: loglog_slope(&x, &r.linearize_ns[1..]),
    };
    if args.json {
        print_stdout(&(serde_json::to_string(&r)? + "\n"))?;
    } else {
        print_stdout(&table(&r))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn fmt_ns(ns: f64) -> String {
    if ns < 1e3 {
        format!("{ns:.0} ns")
    } else if ns < 1e6 {
        format!("{:.1} µs", ns / 1e3)
    } else {
        format!("{:.2} ms", ns / 1e6)
    }
}

fn table(r: &Report) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Simpson VI stage on N-link pendulums, time per call (best of 3 batches)\n"
    );
    let _ = writeln!(
        s,
        "| N | DEL eval (Alg. 1) | Newton O(n) (Alg. I.1/I.2) | Newton dense (FD + LU) | speed-up | linearize O(n²) (Alg. 2, 3) | linearize FD | speed-up |"
    );
    let _ = writeln!(s, "|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (k, n) in r.sizes.iter().enumerate() {
        let _ = writeln!(
            s,
            "| {n} | {} | {} | {} | {:.0}× | {} | {} | {:.0}× |",
            fmt_ns(r.del_eval_ns[k]),
            fmt_ns(r.newton_ns[k]),
            fmt_ns(r.newton_dense_ns[k]),
            r.newton_dense_ns[k] / r.newton_ns[k],
            fmt_ns(r.linearize_ns[k]),
            fmt_ns(r.linearize_fd_ns[k]),
            r.linearize_fd_ns[k] / r.linearize_ns[k],
        );
    }
    let _ = writeln!(
        s,
        "\nfitted log-log exponents over N = 8..128: DEL eval {:.2}, Newton {:.2}, linearize {:.2}",
        r.exponents.del_eval, r.exponents.newton, r.exponents.linearize
    );
    s
}

/// `vito bench --sqp`: one solve per problem and transcription.
fn run_sqp(args: &BenchArgs) -> anyhow::Result<ExitCode> {
    if let Some(name) = args
        .only
        .iter()
        .find(|n| !SQP_PROBLEMS.contains(&n.as_str()))
    {
        anyhow::bail!(
            "--only: '{name}' is not a bundled SQP bench problem ({})",
            SQP_PROBLEMS.join(", ")
        );
    }
    let mut runs = Vec::new();
    for name in SQP_PROBLEMS
        .into_iter()
        .filter(|n| args.only.is_empty() || args.only.iter().any(|o| o == n))
    {
        for kind in [
            TranscriptionKind::Variational(2),
            TranscriptionKind::HermiteSimpson,
        ] {
            let run = sqp_run(&args.problems, name, kind, args.qp).map_err(anyhow::Error::msg)?;
            if !args.json && std::io::stderr().is_terminal() {
                eprintln!("solved {name} {kind}");
            }
            runs.push(run);
        }
    }
    if args.json {
        print_stdout(&(serde_json::to_string(&runs)? + "\n"))?;
    } else {
        print_stdout(&sqp_table(&runs))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn sqp_table(runs: &[SqpRun]) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "| problem | transcription | status | iterations | solve (s) | QP (s) | median iteration (ms) | factorizations / iteration (mean, median) | objective |"
    );
    let _ = writeln!(s, "|---|---|---|---:|---:|---:|---:|---:|---:|");
    for r in runs {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {:.2} | {:.2} | {:.1} | {:.1}, {:.0} | {:.4e} |",
            r.problem,
            r.transcription,
            r.status,
            r.iterations,
            r.total_s,
            r.qp_s,
            r.median_iteration_ms,
            r.factorizations_per_iteration,
            r.median_factorizations,
            r.objective
        );
    }
    s
}

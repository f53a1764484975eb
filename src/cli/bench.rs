//! `vito bench [--quick] [--json]`: times the Simpson VI stage algorithms on N-link pendulums
//! beside the straightforward paths they replace, and fits their scaling exponents.

use super::print_stdout;
use clap::Args;
use serde::Serialize;
use std::hint::black_box;
use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::{Duration, Instant};
use vito::bench::{ProblemCase, StageCase, Transcription, TranscriptionCase, loglog_slope};

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Shorter measurements (noisier).
    #[arg(long)]
    quick: bool,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    json: bool,
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
    hessian_fd_ns: Vec<f64>,
    exponents: Exponents,
    transcriptions: Vec<TranscriptionTiming>,
}

/// One whole transcription at its starting point, timed on thread pools of each size.
#[derive(Serialize)]
struct TranscriptionTiming {
    problem: &'static str,
    transcription: &'static str,
    stages: usize,
    variables: usize,
    threads: Vec<usize>,
    hessian_ns: Vec<f64>,
    evaluation_ns: Vec<f64>,
}

/// Stages of the whole-transcription benches.
const TRANSCRIPTION_STAGES: usize = 30;

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
    let budget = Duration::from_millis(if args.quick { 20 } else { 200 });
    let mut r = Report {
        sizes: SIZES.to_vec(),
        del_eval_ns: Vec::new(),
        newton_ns: Vec::new(),
        linearize_ns: Vec::new(),
        newton_dense_ns: Vec::new(),
        linearize_fd_ns: Vec::new(),
        hessian_fd_ns: Vec::new(),
        exponents: Exponents {
            del_eval: 0.0,
            newton: 0.0,
            linearize: 0.0,
        },
        transcriptions: Vec::new(),
    };
    for &n in &SIZES {
        let mut c = StageCase::pendulum(n, 1);
        r.del_eval_ns.push(time_ns(budget, || c.del()));
        r.newton_ns.push(time_ns(budget, || c.newton()));
        r.linearize_ns.push(time_ns(budget, || c.linearize()));
        r.newton_dense_ns.push(time_ns(budget, || c.newton_dense()));
        r.linearize_fd_ns.push(time_ns(budget, || c.linearize_fd()));
        r.hessian_fd_ns
            .push(time_ns(budget, || c.hessian_by_differences()));
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
    let threads = thread_counts();
    let cases = [
        ProblemCase::pendulum12(TRANSCRIPTION_STAGES),
        ProblemCase::humanoid(TRANSCRIPTION_STAGES),
    ];
    for case in cases {
        let case = case.map_err(anyhow::Error::msg)?;
        for kind in [Transcription::SimpsonVi, Transcription::HermiteSimpson] {
            let mut c = TranscriptionCase::new(&case.problem, kind).map_err(anyhow::Error::msg)?;
            let mut t = TranscriptionTiming {
                problem: case.name,
                transcription: kind.name(),
                stages: TRANSCRIPTION_STAGES,
                variables: c.variables(),
                threads: threads.clone(),
                hessian_ns: Vec::new(),
                evaluation_ns: Vec::new(),
            };
            for &k in &threads {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(k).build()?;
                pool.install(|| {
                    t.hessian_ns.push(time_ns(budget, || c.hessian()));
                    t.evaluation_ns.push(time_ns(budget, || c.evaluation()));
                });
            }
            if !args.json && std::io::stderr().is_terminal() {
                eprintln!("measured {} {}", case.name, kind.name());
            }
            r.transcriptions.push(t);
        }
    }
    if args.json {
        print_stdout(&(serde_json::to_string(&r)? + "\n"))?;
    } else {
        print_stdout(&table(&r))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// One thread, then the size of rayon's global pool (`RAYON_NUM_THREADS`, else the number of
/// cores), at least 2.
fn thread_counts() -> Vec<usize> {
    vec![1, rayon::current_num_threads().max(2)]
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
    let _ = writeln!(
        s,
        "\nDynamics Hessian of one stage: central differences of 2(s+1)n linearizations\n"
    );
    let _ = writeln!(s, "| N | Hessian FD |");
    let _ = writeln!(s, "|---:|---:|");
    for (k, n) in r.sizes.iter().enumerate() {
        let _ = writeln!(s, "| {n} | {} |", fmt_ns(r.hessian_fd_ns[k]));
    }
    let _ = writeln!(
        s,
        "\nWhole transcriptions at the starting point ({} stages), by threads\n",
        TRANSCRIPTION_STAGES
    );
    let _ = writeln!(
        s,
        "| problem | transcription | variables | threads | Hessian | NLP evaluation |"
    );
    let _ = writeln!(s, "|---|---|---:|---:|---:|---:|");
    for t in &r.transcriptions {
        for (k, threads) in t.threads.iter().enumerate() {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {threads} | {} | {} |",
                t.problem,
                t.transcription,
                t.variables,
                fmt_ns(t.hessian_ns[k]),
                fmt_ns(t.evaluation_ns[k]),
            );
        }
    }
    s
}

//! `vito bench [--quick] [--json] [--reference PYTHON]`: times the Simpson VI stage algorithms on
//! N-link pendulums beside the paths they replace and beside the rigid-body kernels that bound
//! them (vito's RNEA and its derivatives, and Pinocchio's with `--reference`), fits their
//! scaling exponents, and times whole transcriptions' Hessians and NLP evaluations on one and
//! several threads.
//!
//! Every timing is the best of several batches, and the batches of all kernels of one size
//! (the reference's included) take turns, so that on a shared machine they see the same load.
//!
//! `vito bench --sqp [--qp ..] [--problems DIR] [--only NAME,..] [--json]`: solves the bundled
//! problems with both transcriptions and reports the SQP solver's cost per iteration.

use super::print_stdout;
use anyhow::{Context, bail};
use clap::Args;
use serde::Serialize;
use std::hint::black_box;
use std::io::{BufRead, BufReader, IsTerminal, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitCode, Stdio};
use std::time::{Duration, Instant};
use vito::bench::{
    ProblemCase, SQP_PROBLEMS, SqpRun, StageCase, Transcription, TranscriptionCase, loglog_slope,
    sqp_run,
};
use vito::model::{PendulumSpec, pendulum_urdf};
use vito::nlp::{Method, QpBackend};
use vito::problem::TranscriptionKind;

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Shorter measurements (noisier).
    #[arg(long)]
    quick: bool,
    /// Print one JSON object instead of tables.
    #[arg(long)]
    json: bool,
    /// A Python interpreter with Pinocchio (`pip install pin numpy`): also time Pinocchio's
    /// RNEA and RNEA derivatives on the same pendulums, taking turns with vito's kernels.
    #[arg(long, value_name = "PYTHON")]
    reference: Option<PathBuf>,
    /// Bench the NLP solver on the bundled problems instead of the integrator.
    #[arg(long)]
    sqp: bool,
    /// The solver for `--sqp`: auto (each problem's own), interior_point or sqp.
    #[arg(long)]
    method: Option<Method>,
    /// QP backend for `--sqp` (implies the SQP).
    #[arg(long)]
    qp: Option<QpBackend>,
    /// Directory of the problem files for `--sqp`.
    #[arg(long, default_value = "problems")]
    problems: PathBuf,
    /// With `--sqp`, solve only these problems (file stems, comma-separated; default: all).
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
}

const SIZES: [usize; 6] = [4, 8, 16, 32, 64, 128];

/// The size at which the kernels are compared with the rigid-body references.
const RATIO_SIZE: usize = 64;

/// Stages of the whole-transcription benches.
const TRANSCRIPTION_STAGES: usize = 30;

/// Batches per timing (the best counts), and how long each runs at least.
const ROUNDS: usize = 5;
const QUICK_ROUNDS: usize = 3;
const BATCH: Duration = Duration::from_millis(100);
const QUICK_BATCH: Duration = Duration::from_millis(15);

/// The same for the whole-transcription timings on 1 and 2 threads: more and shorter batches,
/// because a second core is free only now and then on a shared machine and the best batch is
/// the one that found it.
const THREAD_ROUNDS: usize = 20;
const QUICK_THREAD_ROUNDS: usize = 5;
const THREAD_BATCH: Duration = Duration::from_millis(50);

/// How long each batch runs at least, and how many turns every kernel gets.
#[derive(Clone, Copy)]
struct Budget {
    batch: Duration,
    rounds: usize,
}

#[derive(Serialize)]
struct Exponents {
    del_eval: f64,
    newton: f64,
    linearize: f64,
    gradient: f64,
    hessian: f64,
    hessian_fd: f64,
}

/// Pinocchio's kernels on the same trees.
#[derive(Serialize)]
struct Reference {
    library: String,
    rnea_ns: Vec<f64>,
    rnea_derivatives_ns: Vec<f64>,
    /// DEL evaluation over one reference RNEA, per size.
    del_eval_over_rnea: Vec<f64>,
    /// Linearization over three reference RNEA-derivative calls, per size.
    linearize_over_3_rnea_derivatives: Vec<f64>,
}

#[derive(Serialize)]
struct Report {
    /// Batches per timing, of the stage kernels and of the whole transcriptions.
    rounds: usize,
    thread_rounds: usize,
    sizes: Vec<usize>,
    del_eval_ns: Vec<f64>,
    newton_ns: Vec<f64>,
    linearize_ns: Vec<f64>,
    gradient_ns: Vec<f64>,
    hessian_ns: Vec<f64>,
    rnea_ns: Vec<f64>,
    rnea_derivatives_ns: Vec<f64>,
    newton_dense_ns: Vec<f64>,
    linearize_fd_ns: Vec<f64>,
    hessian_fd_ns: Vec<f64>,
    reference: Option<Reference>,
    exponents: Exponents,
    /// The 1-minute load average before and after the whole-transcription timings.
    load_before: f64,
    load_after: f64,
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
    /// The Hessian by the route its dynamics curvature replaced, one thread.
    hessian_fd_ns: f64,
}

/// Nanoseconds per call of one batch running at least `budget` (at least one call).
fn batch_ns(budget: Duration, f: &mut dyn FnMut() -> f64) -> f64 {
    let start = Instant::now();
    let mut calls = 0u64;
    while start.elapsed() < budget || calls == 0 {
        black_box(f());
        calls += 1;
    }
    start.elapsed().as_nanos() as f64 / calls as f64
}

/// A kernel to time.
enum Kernel<'a> {
    /// A call of vito's, timed here.
    Here(&'a mut dyn FnMut() -> f64),
    /// One batch run elsewhere that reports its own time per call (ns).
    Reported(&'a mut dyn FnMut() -> f64),
}

/// The best of `budget.rounds` turns of every kernel in `kernels` (one warm-up call each first).
fn take_turns(budget: Budget, kernels: &mut [Kernel]) -> Vec<f64> {
    for k in kernels.iter_mut() {
        match k {
            Kernel::Here(f) | Kernel::Reported(f) => black_box(f()),
        };
    }
    let mut best = vec![f64::INFINITY; kernels.len()];
    for _ in 0..budget.rounds {
        for (b, k) in best.iter_mut().zip(kernels.iter_mut()) {
            let t = match k {
                Kernel::Here(f) => batch_ns(budget.batch, *f),
                Kernel::Reported(f) => f(),
            };
            *b = b.min(t);
        }
    }
    best
}

/// Pinocchio in a child Python process ([`tools/pinocchio_reference.py`]).
struct PinocchioReference {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    version: String,
    dir: PathBuf,
}

impl PinocchioReference {
    fn start(python: &PathBuf) -> anyhow::Result<Self> {
        let dir = std::env::temp_dir().join(format!("vito-bench-reference-{}", std::process::id()));
        std::fs::create_dir_all(&dir).with_context(|| dir.display().to_string())?;
        let script = dir.join("pinocchio_reference.py");
        std::fs::write(&script, include_str!("../../tools/pinocchio_reference.py"))
            .with_context(|| script.display().to_string())?;
        let mut files = Vec::new();
        for &links in &SIZES {
            let spec = PendulumSpec {
                links,
                ..PendulumSpec::default()
            };
            let path = dir.join(format!("pendulum{links}.urdf"));
            std::fs::write(&path, pendulum_urdf(&spec).map_err(anyhow::Error::msg)?)
                .with_context(|| path.display().to_string())?;
            files.push(path);
        }
        let mut child = Command::new(python)
            .arg(&script)
            .args(&files)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .with_context(|| format!("--reference {}: cannot run it", python.display()))?;
        let (Some(input), Some(output)) = (child.stdin.take(), child.stdout.take()) else {
            bail!("--reference {}: no pipes to the child", python.display());
        };
        let mut output = BufReader::new(output);
        let mut line = String::new();
        output.read_line(&mut line)?;
        let Some(version) = line.trim().strip_prefix("ready ") else {
            let _ = child.kill();
            bail!(
                "--reference {}: Pinocchio did not start (install it with `{} -m pip install pin numpy`)",
                python.display(),
                python.display()
            );
        };
        Ok(Self {
            version: version.to_string(),
            child,
            input,
            output,
            dir,
        })
    }

    /// One batch of `kernel` on the pendulum of `SIZES[index]`: ns per call.
    fn batch(&mut self, kernel: &str, index: usize, budget: Duration) -> f64 {
        let mut line = String::new();
        let asked = writeln!(self.input, "{kernel} {index} {}", budget.as_secs_f64())
            .and_then(|()| self.input.flush())
            .and_then(|()| self.output.read_line(&mut line));
        match asked {
            Ok(_) => line.trim().parse().unwrap_or(f64::NAN),
            Err(_) => f64::NAN,
        }
    }
}

impl Drop for PinocchioReference {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

pub fn run(args: BenchArgs) -> anyhow::Result<ExitCode> {
    if args.sqp {
        return run_sqp(&args);
    }
    let (budget, thread_budget) = if args.quick {
        let quick = Budget {
            batch: QUICK_BATCH,
            rounds: QUICK_ROUNDS,
        };
        (
            quick,
            Budget {
                rounds: QUICK_THREAD_ROUNDS,
                ..quick
            },
        )
    } else {
        (
            Budget {
                batch: BATCH,
                rounds: ROUNDS,
            },
            Budget {
                batch: THREAD_BATCH,
                rounds: THREAD_ROUNDS,
            },
        )
    };
    let progress = !args.json && std::io::stderr().is_terminal();
    let mut reference = args
        .reference
        .as_ref()
        .map(PinocchioReference::start)
        .transpose()?;
    let mut r = Report {
        rounds: budget.rounds,
        thread_rounds: thread_budget.rounds,
        sizes: SIZES.to_vec(),
        del_eval_ns: Vec::new(),
        newton_ns: Vec::new(),
        linearize_ns: Vec::new(),
        gradient_ns: Vec::new(),
        hessian_ns: Vec::new(),
        rnea_ns: Vec::new(),
        rnea_derivatives_ns: Vec::new(),
        newton_dense_ns: Vec::new(),
        linearize_fd_ns: Vec::new(),
        hessian_fd_ns: Vec::new(),
        reference: None,
        exponents: Exponents {
            del_eval: 0.0,
            newton: 0.0,
            linearize: 0.0,
            gradient: 0.0,
            hessian: 0.0,
            hessian_fd: 0.0,
        },
        load_before: f64::NAN,
        load_after: f64::NAN,
        transcriptions: Vec::new(),
    };
    let (mut ref_rnea, mut ref_derivatives) = (Vec::new(), Vec::new());
    for (index, &n) in SIZES.iter().enumerate() {
        let c = std::cell::RefCell::new(StageCase::pendulum(n, 1));
        let ext = std::cell::RefCell::new(reference.as_mut());
        let on_ref = |kernel: &str| {
            ext.borrow_mut()
                .as_mut()
                .map_or(f64::NAN, |p| p.batch(kernel, index, budget.batch))
        };
        let t = take_turns(
            budget,
            &mut [
                Kernel::Here(&mut || c.borrow_mut().del()),
                Kernel::Here(&mut || c.borrow_mut().newton()),
                Kernel::Here(&mut || c.borrow_mut().linearize()),
                Kernel::Here(&mut || c.borrow_mut().gradient()),
                Kernel::Here(&mut || c.borrow_mut().hessian()),
                Kernel::Here(&mut || c.borrow_mut().rnea()),
                Kernel::Here(&mut || c.borrow_mut().rnea_derivatives()),
                Kernel::Here(&mut || c.borrow_mut().newton_dense()),
                Kernel::Here(&mut || c.borrow_mut().linearize_fd()),
                Kernel::Here(&mut || c.borrow_mut().hessian_by_differences()),
                Kernel::Reported(&mut || on_ref("rnea")),
                Kernel::Reported(&mut || on_ref("rnea_derivatives")),
            ],
        );
        r.del_eval_ns.push(t[0]);
        r.newton_ns.push(t[1]);
        r.linearize_ns.push(t[2]);
        r.gradient_ns.push(t[3]);
        r.hessian_ns.push(t[4]);
        r.rnea_ns.push(t[5]);
        r.rnea_derivatives_ns.push(t[6]);
        r.newton_dense_ns.push(t[7]);
        r.linearize_fd_ns.push(t[8]);
        r.hessian_fd_ns.push(t[9]);
        ref_rnea.push(t[10]);
        ref_derivatives.push(t[11]);
        if progress {
            eprintln!("measured N = {n}");
        }
    }
    if let Some(p) = &reference {
        r.reference = Some(Reference {
            library: format!("pinocchio {}", p.version),
            del_eval_over_rnea: r
                .del_eval_ns
                .iter()
                .zip(&ref_rnea)
                .map(|(a, b)| a / b)
                .collect(),
            linearize_over_3_rnea_derivatives: r
                .linearize_ns
                .iter()
                .zip(&ref_derivatives)
                .map(|(a, b)| a / (3.0 * b))
                .collect(),
            rnea_ns: ref_rnea,
            rnea_derivatives_ns: ref_derivatives,
        });
    }
    drop(reference);
    // Exponents over N = 8..128 (the smallest size is dominated by fixed costs).
    let x: Vec<f64> = SIZES[1..].iter().map(|&n| n as f64).collect();
    let slope = |y: &[f64]| loglog_slope(&x, &y[1..]);
    r.exponents = Exponents {
        del_eval: slope(&r.del_eval_ns),
        newton: slope(&r.newton_ns),
        linearize: slope(&r.linearize_ns),
        gradient: slope(&r.gradient_ns),
        hessian: slope(&r.hessian_ns),
        hessian_fd: slope(&r.hessian_fd_ns),
    };
    let threads = thread_counts();
    r.load_before = load_average();
    for case in [
        ProblemCase::pendulum12(TRANSCRIPTION_STAGES),
        ProblemCase::humanoid(TRANSCRIPTION_STAGES),
    ] {
        let case = case.map_err(anyhow::Error::msg)?;
        for kind in [Transcription::SimpsonVi, Transcription::HermiteSimpson] {
            let mut case_nlp =
                TranscriptionCase::new(&case.problem, kind).map_err(anyhow::Error::msg)?;
            let mut t = TranscriptionTiming {
                problem: case.name,
                transcription: kind.name(),
                stages: TRANSCRIPTION_STAGES,
                variables: case_nlp.variables(),
                threads: threads.clone(),
                hessian_ns: Vec::new(),
                evaluation_ns: Vec::new(),
                hessian_fd_ns: f64::NAN,
            };
            // One pool after the other, its kernels taking turns inside it: pools taking turns
            // batch by batch measured no gain from a second thread in runs where this order,
            // just before and after, measured 1.8-2.0x.
            for &k in &threads {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(k).build()?;
                let times = pool.install(|| {
                    let c = std::cell::RefCell::new(&mut case_nlp);
                    let mut hessian = || c.borrow_mut().hessian();
                    let mut evaluation = || c.borrow_mut().evaluation();
                    let mut old = || c.borrow_mut().hessian_by_differences();
                    let mut kernels =
                        vec![Kernel::Here(&mut hessian), Kernel::Here(&mut evaluation)];
                    if k == 1 {
                        kernels.push(Kernel::Here(&mut old));
                    }
                    take_turns(thread_budget, &mut kernels)
                });
                t.hessian_ns.push(times[0]);
                t.evaluation_ns.push(times[1]);
                if k == 1 {
                    t.hessian_fd_ns = times[2];
                }
            }
            if progress {
                eprintln!("measured {} {}", case.name, kind.name());
            }
            r.transcriptions.push(t);
        }
    }
    r.load_after = load_average();
    if args.json {
        print_stdout(&(serde_json::to_string(&r)? + "\n"))?;
    } else {
        print_stdout(&table(&r))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The 1-minute load average (`/proc/loadavg`; NaN where there is none): on a shared machine
/// the other processes' load bounds what a second thread can gain.
fn load_average() -> f64 {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(f64::NAN)
}

/// One thread, then the size of rayon's global pool (`RAYON_NUM_THREADS`, else the number of
/// cores), at least 2.
fn thread_counts() -> Vec<usize> {
    vec![1, rayon::current_num_threads().max(2)]
}

fn fmt_ns(ns: f64) -> String {
    if ns.is_nan() {
        "–".into()
    } else if ns < 1e3 {
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
        "Simpson VI stage on N-link pendulums, time per call (best of {} batches taking turns)\n",
        r.rounds
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
        "\nDynamics curvature of one stage: ∇(λᵀr) (O(n)) and ∇²(λᵀr) (analytic) beside central differences of 2(s+1)n linearizations\n"
    );
    let _ = writeln!(s, "| N | gradient | Hessian | Hessian FD | speed-up |");
    let _ = writeln!(s, "|---:|---:|---:|---:|---:|");
    for (k, n) in r.sizes.iter().enumerate() {
        let _ = writeln!(
            s,
            "| {n} | {} | {} | {} | {:.0}× |",
            fmt_ns(r.gradient_ns[k]),
            fmt_ns(r.hessian_ns[k]),
            fmt_ns(r.hessian_fd_ns[k]),
            r.hessian_fd_ns[k] / r.hessian_ns[k],
        );
    }
    let _ = writeln!(
        s,
        "\nfitted log-log exponents over N = 8..128: DEL eval {:.2}, Newton {:.2}, linearize {:.2}, gradient {:.2}, Hessian {:.2} (by differences {:.2})",
        r.exponents.del_eval,
        r.exponents.newton,
        r.exponents.linearize,
        r.exponents.gradient,
        r.exponents.hessian,
        r.exponents.hessian_fd
    );
    let _ = writeln!(
        s,
        "\nRigid-body kernels on the same pendulums: vito's, and {} (from Python)\n",
        r.reference
            .as_ref()
            .map_or("no reference (--reference PYTHON)".to_string(), |x| x
                .library
                .clone())
    );
    let _ = writeln!(
        s,
        "| N | RNEA | RNEA derivatives | reference RNEA | reference RNEA derivatives | DEL eval / reference RNEA | linearize / 3 reference RNEA derivatives |"
    );
    let _ = writeln!(s, "|---:|---:|---:|---:|---:|---:|---:|");
    for (k, n) in r.sizes.iter().enumerate() {
        let (rr, rd, a, b) =
            r.reference
                .as_ref()
                .map_or((f64::NAN, f64::NAN, f64::NAN, f64::NAN), |x| {
                    (
                        x.rnea_ns[k],
                        x.rnea_derivatives_ns[k],
                        x.del_eval_over_rnea[k],
                        x.linearize_over_3_rnea_derivatives[k],
                    )
                });
        let mark = if *n == RATIO_SIZE { " ←" } else { "" };
        let _ = writeln!(
            s,
            "| {n} | {} | {} | {} | {} | {a:.2} | {b:.2}{mark} |",
            fmt_ns(r.rnea_ns[k]),
            fmt_ns(r.rnea_derivatives_ns[k]),
            fmt_ns(rr),
            fmt_ns(rd),
        );
    }
    let _ = writeln!(
        s,
        "\nWhole transcriptions at the starting point ({TRANSCRIPTION_STAGES} stages): the Lagrangian's Hessian and one NLP evaluation (objective, gradient, constraints, Jacobian, Hessian) by threads (best of {} batches, one pool after the other; 1-minute load average {:.2} before, {:.2} after), and the Hessian by the route it replaced (1 thread)\n",
        r.thread_rounds, r.load_before, r.load_after
    );
    let _ = writeln!(
        s,
        "| problem | transcription | variables | threads | Hessian | per stage | NLP evaluation | speed-up | Hessian FD | Hessian speed-up |"
    );
    let _ = writeln!(s, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for t in &r.transcriptions {
        for (k, threads) in t.threads.iter().enumerate() {
            let first = k == 0;
            let _ = writeln!(
                s,
                "| {} | {} | {} | {threads} | {} | {} | {} | {:.2}× | {} | {} |",
                t.problem,
                t.transcription,
                t.variables,
                fmt_ns(t.hessian_ns[k]),
                fmt_ns(t.hessian_ns[k] / t.stages as f64),
                fmt_ns(t.evaluation_ns[k]),
                t.evaluation_ns[0] / t.evaluation_ns[k],
                if first {
                    fmt_ns(t.hessian_fd_ns)
                } else {
                    String::new()
                },
                if first {
                    format!("{:.0}×", t.hessian_fd_ns / t.hessian_ns[0])
                } else {
                    String::new()
                },
            );
        }
    }
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
            let run = sqp_run(&args.problems, name, kind, args.method, args.qp)
                .map_err(anyhow::Error::msg)?;
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
        "| problem | transcription | method | status | iterations | solve (s) | QP (s) | median iteration (ms) | factorizations / iteration (mean, median) | objective |"
    );
    let _ = writeln!(s, "|---|---|---|---|---:|---:|---:|---:|---:|---:|");
    for r in runs {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {:.2} | {:.2} | {:.1} | {:.1}, {:.0} | {:.4e} |",
            r.problem,
            r.transcription,
            r.method,
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

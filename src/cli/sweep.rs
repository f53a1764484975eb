//! `vito sweep FILE.yaml --vary KEY=RANGE…`: solves a family of variants of one problem in
//! parallel and writes one table of them.

use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use vito::commands::{SweepOptions, SweepRow, SweepSource, sweep};
use vito::nlp::{Method, QpBackend};
use vito::problem::ProblemOverrides;
use vito::problem::TranscriptionKind;
use vito::problem::sweep::{Design, Variation};

#[derive(Args, Debug)]
pub struct SweepArgs {
    /// The problem file (YAML) the family varies.
    file: PathBuf,
    /// A varied field: KEY=RANGE or KEY+=RANGE (the value added to the number, or to each
    /// number of the list, at KEY); KEY a YAML path (terrain.boxes.0.top), RANGE lo:hi,
    /// lo:hi:n (n grid points) or a,b,c. Repeat for several.
    #[arg(long, required = true)]
    vary: Vec<Variation>,
    /// Number of instances drawn at random (each variation uniformly in its range).
    #[arg(long, default_value_t = 8, conflicts_with = "grid")]
    samples: usize,
    /// Seed of the random draws.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Every combination of the variations' grid points instead of random draws.
    #[arg(long)]
    grid: bool,
    /// Output directory (default: results/<file stem>-sweep). Instances already solved there
    /// are not solved again.
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// Instances solved at once (default: one per core).
    #[arg(long, default_value_t = 0)]
    jobs: usize,
    /// The solver for every instance: auto, interior_point or sqp.
    #[arg(long)]
    method: Option<Method>,
    /// QP backend for the SQP subproblems (implies the SQP).
    #[arg(long)]
    qp: Option<QpBackend>,
    /// Transcription: simpson_vi, trapezoid_vi, galerkin:S or hermite_simpson.
    #[arg(long)]
    transcription: Option<TranscriptionKind>,
}

pub fn run(args: SweepArgs) -> anyhow::Result<ExitCode> {
    let design = if args.grid {
        Design::Grid
    } else {
        Design::Samples {
            count: args.samples,
            seed: args.seed,
        }
    };
    let output = args.output.unwrap_or_else(|| {
        let stem = args
            .file
            .file_stem()
            .map_or_else(|| "problem".into(), |s| s.to_string_lossy().into_owned());
        PathBuf::from("results").join(format!("{stem}-sweep"))
    });
    let options = SweepOptions {
        overrides: ProblemOverrides {
            output: None,
            qp: args.qp,
            method: args.method,
            transcription: args.transcription,
        },
        jobs: args.jobs,
        progress: true,
    };
    let source = SweepSource::read(&args.file)?;
    let done = sweep(&source, &args.vary, design, &output, &options)?;
    let converged = done.rows.iter().filter(|r| r.status == "Converged").count();
    let mut times: Vec<f64> = done.rows.iter().map(|r| r.solve_s).collect();
    times.sort_by(f64::total_cmp);
    let median = times.get(times.len() / 2).copied().unwrap_or(0.0);
    eprintln!(
        "{converged} of {} instances Converged ({} from an earlier run); median solve time {median:.2} s",
        done.rows.len(),
        done.resumed
    );
    let values = |r: &SweepRow| -> String {
        let values: Vec<String> = done
            .keys
            .iter()
            .zip(&r.values)
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        values.join(", ")
    };
    let deepest = done
        .rows
        .iter()
        .filter(|r| r.status == "Converged")
        .filter_map(|r| Some((r.deepest_penetration_between_points?, r)))
        .max_by(|a, b| a.0.total_cmp(&b.0));
    if let Some((depth, r)) = deepest {
        eprintln!(
            "deepest penetration between the points of a converged instance {depth:.2e} m: {} ({})",
            r.instance,
            values(r)
        );
    }
    for r in done.rows.iter().filter(|r| r.status != "Converged") {
        eprintln!(
            "  {} ({}): {}{}",
            r.instance,
            values(r),
            r.status,
            r.error
                .as_ref()
                .map_or_else(String::new, |e| format!(": {e}"))
        );
    }
    let files: Vec<String> = done.files.iter().map(|p| p.display().to_string()).collect();
    eprintln!("wrote {} and one directory per instance", files.join(", "));
    Ok(if converged == done.rows.len() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    })
}

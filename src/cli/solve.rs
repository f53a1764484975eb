//! `vito solve FILE.yaml`: transcribes and solves a motion problem and writes its results.

use super::{RasterArg, parse_method, parse_qp};
use anyhow::Context;
use clap::Args;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;
use vito::output::{
    Formats, Report, ViewOptions, write_atomic, write_solve_figures, write_solve_report,
    write_views,
};
use vito::problem::{ProblemOverrides, TrajectoryProblem, TranscriptionKind, load_problem};
use vito::sqp::{Method, QpBackend, Status};
use vito::transcription::{Outcome, solve};

#[derive(Args, Debug)]
pub struct SolveArgs {
    /// The problem file (YAML).
    pub file: PathBuf,
    /// Output directory (default: the file's `output`, else results/<name>).
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// The solver: auto (the problem's `solver.method`, by default the interior-point method,
    /// the SQP for complementarity pairs and where it fails), interior_point or sqp.
    #[arg(long, value_parser = parse_method)]
    pub method: Option<Method>,
    /// QP backend for the SQP subproblems: clarabel or osqp (implies the SQP).
    #[arg(long, value_parser = parse_qp)]
    pub qp: Option<QpBackend>,
    /// Transcription: simpson_vi, trapezoid_vi, galerkin:S or hermite_simpson.
    #[arg(long)]
    pub transcription: Option<TranscriptionKind>,
    #[command(flatten)]
    pub images: RasterArg,
}

/// Writes to stderr and keeps a copy for `solver.log`.
pub struct Tee(pub Vec<u8>);

impl Write for Tee {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.extend_from_slice(buf);
        let _ = std::io::stderr().write_all(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}

/// Solves `prob`, printing the log, and writes every result file into `dir` (the rasters in
/// `formats` too).
pub fn solve_and_write(
    prob: &TrajectoryProblem,
    dir: &Path,
    formats: Formats,
) -> anyhow::Result<(Outcome, Report)> {
    eprintln!(
        "solving '{}': robot '{}' ({} DoF, {} actuated), {} stages over {} s, {}, method {}, QP {:?}, Hessian {:?}",
        prob.name,
        prob.model.name(),
        prob.model.dof(),
        prob.model.actuated_joints().len(),
        prob.stages,
        prob.duration,
        prob.transcription,
        prob.solver.method,
        prob.solver.qp,
        prob.solver.hessian
    );
    let mut log = Tee(Vec::new());
    let outcome = solve(prob, &mut log)?;
    let writing = Instant::now();
    write_atomic(&dir.join("solver.log"), &log.0).context("writing solver.log")?;
    let (report, files) = write_solve_report(dir, prob, &outcome)?;
    let (plots, views) = rayon::join(
        || write_solve_figures(dir, prob, &outcome, formats),
        || {
            let opts = ViewOptions {
                formats,
                ..ViewOptions::default()
            };
            write_views(dir, Some(&prob.model), &opts)
        },
    );
    let (plots, views) = (plots?, views?);
    let writing = writing.elapsed().as_secs_f64();
    let r = &outcome.result;
    eprintln!(
        "{:?} after {} iterations in {:.3} s (NLP {:.3} s, QP {:.3} s): objective {:.6e}, \
         constraint violation {:.1e}, dual infeasibility {:.1e}; {} variables, {} constraints, {} Jacobian nonzeros",
        r.status,
        r.iterations,
        r.timing.total.as_secs_f64(),
        r.timing.nlp_evaluation.as_secs_f64(),
        r.timing.qp.as_secs_f64(),
        r.objective,
        r.residuals.primal_infeasibility,
        r.residuals.dual_infeasibility,
        outcome.size.variables,
        outcome.size.constraints,
        outcome.size.jacobian_nonzeros
    );
    let mut names: Vec<String> = files
        .iter()
        .chain(&plots)
        .chain(&views)
        .map(|p| p.display().to_string())
        .collect();
    names.push(dir.join("solver.log").display().to_string());
    let a = &report.accuracy;
    eprintln!(
        "re-simulated by RK4 (step {:.0e} s): one-stage error {:.1e} ({} in stage {}) / {:.1e} (v), \
         open loop {:.1e}",
        a.step,
        a.local_q_error,
        prob.model.joint(a.local_q_coordinate).name,
        a.local_q_stage,
        a.local_v_error,
        a.open_loop_q_error
    );
    let e = &outcome.energy;
    eprintln!(
        "energy (J): actuators +{:.4} / {:.4}, springs {:.4}, dampers {:.4}, ground normal {:.4} \
         and friction {:.4} (positive {:.4}, {:.3} of the actuators'), ΔK {:.4}, ΔV {:.4}, \
         residual {:.2e}",
        e.actuator_positive_work,
        e.actuator_negative_work,
        e.spring_work,
        e.damper_work,
        e.ground_normal_work,
        e.ground_friction_work,
        e.ground_positive_work,
        e.ground_share(),
        e.kinetic_change,
        e.potential_change,
        e.residual
    );
    eprintln!("wrote {} in {writing:.3} s", names.join(", "));
    Ok((outcome, report))
}

/// Exit code for a finished solve: success only when converged.
pub fn exit_for(status: Status) -> ExitCode {
    if status == Status::Converged {
        ExitCode::SUCCESS
    } else {
        eprintln!(
            "error: the solve ended {status:?}, not Converged; its results were written anyway"
        );
        ExitCode::from(2)
    }
}

pub fn run(args: SolveArgs) -> anyhow::Result<ExitCode> {
    let overrides = ProblemOverrides {
        output: args.output,
        qp: args.qp,
        method: args.method,
        transcription: args.transcription,
    };
    let prob = load_problem(&args.file, &overrides)?;
    super::print_model_warnings(&prob.model);
    let (outcome, _) = solve_and_write(&prob, &prob.output, args.images.formats())?;
    Ok(exit_for(outcome.result.status))
}

//! `vito solve`'s work: solve a motion problem and write its result files.

use super::{CommandError, SolverLog, io_error};
use crate::output::{
    Formats, Report, ViewOptions, write_atomic, write_solve_figures, write_solve_report,
    write_views,
};
use crate::problem::TrajectoryProblem;
use crate::transcription::Outcome;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// A finished solve, converged or not.
pub struct Solved {
    /// The solver's result and the trajectory at its final iterate.
    pub outcome: Outcome,
    /// The content of `report.json` (written or not).
    pub report: Report,
    /// The solver's log (`solver.log`).
    pub log: Vec<u8>,
    /// The files written, in the order `vito solve` lists them (none without an output
    /// directory).
    pub files: Vec<PathBuf>,
}

/// Solves `prob` ([`crate::transcription::solve`]) and, with an `output` directory, writes
/// `vito solve`'s files there: `solver.log`, `report.json`, `knots.csv`, `trajectory.csv`
/// ([`write_solve_report`]), the figures in `formats` ([`write_solve_figures`]) and the viewer
/// ([`write_views`]). Without one the report is made as if written to `prob.output`. With
/// `echo` the solver's log and `vito solve`'s summary go to stderr.
///
/// # Errors
/// A [`CommandError`] when the problem cannot be transcribed or a file cannot be written.
pub fn solve(
    prob: &TrajectoryProblem,
    output: Option<&Path>,
    formats: Formats,
    echo: bool,
) -> Result<Solved, CommandError> {
    if echo {
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
    }
    let mut log = SolverLog::new(echo);
    let outcome = crate::transcription::solve(prob, &mut log)?;
    let log = log.into_bytes();
    let writing = Instant::now();
    let solved = match output {
        None => Solved {
            report: Report::new(prob, &outcome, &prob.output),
            outcome,
            log,
            files: Vec::new(),
        },
        Some(dir) => {
            let log_path = dir.join("solver.log");
            write_atomic(&log_path, &log).map_err(|e| io_error(log_path.clone(), e))?;
            let (report, mut files) = write_solve_report(dir, prob, &outcome)?;
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
            files.extend(plots?);
            files.extend(views?);
            files.push(log_path);
            Solved {
                outcome,
                report,
                log,
                files,
            }
        }
    };
    if echo {
        print_summary(prob, &solved, writing.elapsed().as_secs_f64());
    }
    Ok(solved)
}

/// `vito solve`'s lines after the log: status and sizes, re-simulation error, energy account,
/// files written.
fn print_summary(prob: &TrajectoryProblem, solved: &Solved, writing_s: f64) {
    let outcome = &solved.outcome;
    let r = &outcome.result;
    eprintln!(
        "{:?} after {} iterations in {:.3} s (NLP {:.3} s, linear algebra {:.3} s): objective {:.6e}, \
         constraint violation {:.1e}, dual infeasibility {:.1e}; {} variables, {} constraints, {} Jacobian nonzeros",
        r.status,
        r.iterations,
        r.timing.total.as_secs_f64(),
        r.timing.nlp_evaluation.as_secs_f64(),
        r.timing.linear.as_secs_f64(),
        r.objective,
        r.residuals.primal_infeasibility,
        r.residuals.dual_infeasibility,
        outcome.size.variables,
        outcome.size.constraints,
        outcome.size.jacobian_nonzeros
    );
    if !outcome.continuation.is_empty() {
        let steps: Vec<String> = outcome
            .continuation
            .iter()
            .map(|c| {
                format!(
                    "'{}' {:?} ({} iterations, {:.3} s{})",
                    c.problem,
                    c.status,
                    c.iterations,
                    c.solve_time_s,
                    if c.reused {
                        ", solved earlier in this process"
                    } else {
                        ""
                    }
                )
            })
            .collect();
        eprintln!(
            "continuation: started from {}; {:.3} s in all",
            steps.join(" → "),
            outcome.total_time_s()
        );
    }
    let a = &solved.report.accuracy;
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
    if let Some(c) = &outcome.contact {
        eprintln!(
            "contact: deepest penetration {:.1e} m at the points, {:.1e} m between them \
             (trajectory.csv), largest complementarity product {:.1e}, friction-cone violation \
             {:.1e} N",
            c.deepest_penetration,
            c.deepest_penetration_between_points,
            c.largest_complementarity_product,
            c.largest_friction_cone_violation
        );
    }
    let e = &outcome.energy;
    eprintln!(
        "energy (J): actuators +{:.4} / {:.4}, springs {:.4}, dampers {:.4}, ground normal {:.4} \
         and friction {:.4} (positive {:.4}, {}), ΔK {:.4}, ΔV {:.4}, \
         residual {:.2e}",
        e.actuator_positive_work,
        e.actuator_negative_work,
        e.spring_work,
        e.damper_work,
        e.ground_normal_work,
        e.ground_friction_work,
        e.ground_positive_work,
        e.ground_share_text(),
        e.kinetic_change,
        e.potential_change,
        e.residual
    );
    if !solved.files.is_empty() {
        let names: Vec<String> = solved
            .files
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        eprintln!("wrote {} in {writing_s:.3} s", names.join(", "));
    }
}

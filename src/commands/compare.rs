//! `vito compare`'s work: the same problem with the Simpson VI and with Hermite–Simpson
//! collocation, side by side, with the dynamic accuracy of each solution.

use super::{CommandError, io_error, solve};
use crate::nlp::Status;
use crate::output::{Formats, Report, ViewOptions, write_atomic, write_views};
use crate::problem::{InitialGuess, TrajectoryProblem, TranscriptionKind};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One of the two solves of a comparison.
pub struct ComparedRun {
    /// The problem as solved (its transcription and initial guess set).
    pub problem: TrajectoryProblem,
    /// Where the solve started: `problem` (the file's `initial_guess`) or the path of the
    /// solution it was warm-started from.
    pub initial_guess: String,
    /// The solve.
    pub solved: super::Solved,
}

/// Both solves of a comparison and their side-by-side table.
pub struct Comparison {
    /// The Simpson VI's solve, then Hermite–Simpson's.
    pub runs: Vec<ComparedRun>,
    /// The table of `compare.md`.
    pub markdown: String,
    /// `compare.md`, `compare.json` and the viewer files (none without an output directory).
    pub files: Vec<PathBuf>,
}

impl Comparison {
    /// `Converged` when both solves converged, else the status of the last one that did not.
    pub fn worst_status(&self) -> Status {
        self.runs
            .iter()
            .rev()
            .map(|r| r.solved.outcome.result.status)
            .find(|s| *s != Status::Converged)
            .unwrap_or(Status::Converged)
    }
}

/// An entry of `compare.json`.
#[derive(Serialize)]
struct Entry<'a> {
    transcription: String,
    /// Where the solve started: `problem` (the file's `initial_guess`) or the path of the
    /// solution it was warm-started from.
    initial_guess: &'a str,
    report: &'a Report,
}

/// Solves `base` with `simpson_vi` and with `hermite_simpson` ([`solve`], each into
/// `<output>/<transcription>` when there is an output directory) and, with one, writes
/// `compare.json`, `compare.md` and the viewer of both. With `warm_start` Hermite–Simpson
/// starts from the VI's `trajectory.csv`, so it needs an output directory. With `echo` each
/// solve's log and summary and the table go to stderr.
///
/// # Errors
/// A [`CommandError`] when a problem cannot be transcribed, a file cannot be written, or
/// `warm_start` is asked for without an output directory.
pub fn compare(
    base: &TrajectoryProblem,
    output: Option<&Path>,
    warm_start: bool,
    formats: Formats,
    echo: bool,
) -> Result<Comparison, CommandError> {
    if warm_start && output.is_none() {
        return Err(CommandError::Request(
            "a warm start reads the Simpson VI's trajectory.csv, so it needs an output directory"
                .into(),
        ));
    }
    let mut runs = Vec::new();
    for kind in [
        TranscriptionKind::Variational(2),
        TranscriptionKind::HermiteSimpson,
    ] {
        let mut problem = base.clone();
        problem.transcription = kind;
        let mut initial_guess = "problem".to_string();
        if let Some(dir) = output
            && warm_start
            && kind == TranscriptionKind::HermiteSimpson
        {
            let vi = dir
                .join(TranscriptionKind::Variational(2).to_string())
                .join("trajectory.csv");
            initial_guess = vi.display().to_string();
            problem.initial_guess = InitialGuess::FromCsv(vi);
        }
        let sub = output.map(|dir| dir.join(kind.to_string()));
        let solved = solve(&problem, sub.as_deref(), formats, echo)?;
        runs.push(ComparedRun {
            problem,
            initial_guess,
            solved,
        });
    }
    let entries: Vec<Entry<'_>> = runs
        .iter()
        .map(|r| Entry {
            transcription: r.problem.transcription.to_string(),
            initial_guess: &r.initial_guess,
            report: &r.solved.report,
        })
        .collect();
    let markdown = markdown(&base.name, base.stages, base.duration, &entries);
    let mut files = Vec::new();
    if let Some(dir) = output {
        let json = serde_json::to_string_pretty(&entries).map_err(|e| {
            crate::output::OutputError::Csv {
                path: dir.join("compare.json"),
                message: e.to_string(),
            }
        })?;
        for (name, bytes) in [
            ("compare.json", json.as_bytes()),
            ("compare.md", markdown.as_bytes()),
        ] {
            let path = dir.join(name);
            write_atomic(&path, bytes).map_err(|e| io_error(path.clone(), e))?;
        }
        let opts = ViewOptions {
            formats,
            ..ViewOptions::default()
        };
        let views = write_views(dir, Some(&base.model), &opts)?;
        if echo {
            eprint!("{markdown}");
            eprintln!(
                "wrote {}, {} and {}",
                dir.join("compare.md").display(),
                dir.join("compare.json").display(),
                views
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        files.extend([dir.join("compare.md"), dir.join("compare.json")]);
        files.extend(views);
    } else if echo {
        eprint!("{markdown}");
    }
    Ok(Comparison {
        runs,
        markdown,
        files,
    })
}

/// The side-by-side table of `compare.md`.
fn markdown(name: &str, stages: usize, duration: f64, entries: &[Entry<'_>]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# {name}: Simpson VI vs Hermite–Simpson collocation\n");
    let _ = writeln!(
        s,
        "{stages} stages over {duration} s, same QP backend and tolerances. Dynamic accuracy: each \
         solution's torques re-simulated by RK4 (step {:.1e} s) on the articulated-body dynamics \
         and compared with the trajectory the transcription claims — stage by stage from each \
         knot (the local error of the transcription), and open loop over the whole horizon \
         (which also measures how unstable the motion is).\n",
        entries.first().map_or(0.0, |e| e.report.accuracy.step)
    );
    let row = |label: &str, f: &dyn Fn(&Entry<'_>) -> String| {
        let mut line = format!("| {label} |");
        for e in entries {
            line.push_str(&format!(" {} |", f(e)));
        }
        line
    };
    let mut head = "| |".to_string();
    let mut rule = "|---|".to_string();
    for e in entries {
        head.push_str(&format!(" {} |", e.transcription));
        rule.push_str("---:|");
    }
    let _ = writeln!(s, "{head}\n{rule}");
    let lines = [
        row("status", &|e| e.report.status.clone()),
        row("initial guess", &|e| {
            if e.initial_guess == "problem" {
                "the problem's".to_string()
            } else {
                format!("`{}`", e.initial_guess)
            }
        }),
        row("variables", &|e| e.report.variables.to_string()),
        row("constraints", &|e| e.report.constraints.to_string()),
        row("Jacobian nonzeros", &|e| {
            e.report.jacobian_nonzeros.to_string()
        }),
        row("method", &|e| e.report.method.clone()),
        row("iterations", &|e| e.report.iterations.to_string()),
        row("solve time (s)", &|e| {
            format!("{:.3}", e.report.solve_time_s)
        }),
        row("  of which NLP evaluation (s)", &|e| {
            format!("{:.3}", e.report.nlp_evaluation_time_s)
        }),
        row("  of which QP (s)", &|e| {
            format!("{:.3}", e.report.qp_time_s)
        }),
        row("objective", &|e| format!("{:.6e}", e.report.objective)),
        row("one-stage re-simulation error, q", &|e| {
            format!("{:.2e}", e.report.accuracy.local_q_error)
        }),
        row("one-stage re-simulation error, v", &|e| {
            format!("{:.2e}", e.report.accuracy.local_v_error)
        }),
        row("open-loop error over the horizon, q", &|e| {
            format!("{:.2e}", e.report.accuracy.open_loop_q_error)
        }),
        row("open-loop error at T, q", &|e| {
            format!("{:.2e}", e.report.accuracy.final_q_error)
        }),
        row("actuators' work, positive / negative (J)", &|e| {
            let a = &e.report.energy;
            format!(
                "{:.4} / {:.4}",
                a.actuator_positive_work, a.actuator_negative_work
            )
        }),
        row("springs' and dampers' work (J)", &|e| {
            let a = &e.report.energy;
            format!("{:.4} / {:.4}", a.spring_work, a.damper_work)
        }),
        row("change of kinetic / potential energy (J)", &|e| {
            let a = &e.report.energy;
            format!("{:.4} / {:.4}", a.kinetic_change, a.potential_change)
        }),
        row("energy balance residual (J)", &|e| {
            format!("{:.2e}", e.report.energy.residual)
        }),
    ];
    for l in lines {
        let _ = writeln!(s, "{l}");
    }
    if entries.iter().any(|e| e.report.contact.is_some()) {
        let contact = |f: fn(&crate::transcription::ContactResiduals) -> f64| {
            move |e: &Entry<'_>| {
                e.report
                    .contact
                    .as_ref()
                    .map_or("–".into(), |c| format!("{:.2e}", f(&c.residuals)))
            }
        };
        for l in [
            row(
                "largest complementarity product",
                &contact(|c| c.largest_complementarity_product),
            ),
            row(
                "deepest penetration at the points (m)",
                &contact(|c| c.deepest_penetration),
            ),
            row(
                "deepest penetration between the points (m)",
                &contact(|c| c.deepest_penetration_between_points),
            ),
            row(
                "largest friction-cone violation (N)",
                &contact(|c| c.largest_friction_cone_violation),
            ),
            row("ground's normal / friction work (J)", &|e: &Entry<'_>| {
                let a = &e.report.energy;
                format!(
                    "{:.4} / {:.4}",
                    a.ground_normal_work, a.ground_friction_work
                )
            }),
            row("ground's positive work (J)", &|e: &Entry<'_>| {
                format!("{:.4}", e.report.energy.ground_positive_work)
            }),
        ] {
            let _ = writeln!(s, "{l}");
        }
    }
    s
}

//! `vito compare FILE.yaml`: the same problem with the Simpson VI and with Hermite–Simpson
//! collocation, side by side, with the dynamic accuracy of each solution.

use super::solve::{exit_for, solve_and_write};
use super::{RasterArg, parse_method, parse_qp};
use anyhow::Context;
use clap::Args;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use vito::output::{Report, ViewOptions, write_atomic, write_views};
use vito::problem::{InitialGuess, ProblemOverrides, TranscriptionKind, load_problem};
use vito::sqp::{Method, QpBackend, Status};

#[derive(Args, Debug)]
pub struct CompareArgs {
    /// The problem file (YAML).
    file: PathBuf,
    /// Output directory (default: results/<name>/compare).
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// The solver for both solves: auto, interior_point or sqp.
    #[arg(long, value_parser = parse_method)]
    method: Option<Method>,
    /// QP backend for both solves (implies the SQP).
    #[arg(long, value_parser = parse_qp)]
    qp: Option<QpBackend>,
    /// Start Hermite–Simpson from the Simpson VI's solution (its `trajectory.csv`) instead of
    /// the problem's initial guess.
    #[arg(long)]
    warm_start: bool,
    #[command(flatten)]
    images: RasterArg,
}

#[derive(Serialize)]
struct Entry {
    transcription: String,
    /// Where the solve started: `problem` (the file's `initial_guess`) or the path of the
    /// solution it was warm-started from.
    initial_guess: String,
    report: Report,
}

pub fn run(args: CompareArgs) -> anyhow::Result<ExitCode> {
    let base = load_problem(
        &args.file,
        &ProblemOverrides {
            qp: args.qp,
            method: args.method,
            ..ProblemOverrides::default()
        },
    )?;
    super::print_model_warnings(&base.model);
    let dir = args.output.unwrap_or_else(|| base.output.join("compare"));
    let mut entries = Vec::new();
    let mut worst = Status::Converged;
    for kind in [
        TranscriptionKind::Variational(2),
        TranscriptionKind::HermiteSimpson,
    ] {
        let mut prob = base.clone();
        prob.transcription = kind;
        let mut initial_guess = "problem".to_string();
        if args.warm_start && kind == TranscriptionKind::HermiteSimpson {
            let vi = dir
                .join(TranscriptionKind::Variational(2).to_string())
                .join("trajectory.csv");
            initial_guess = vi.display().to_string();
            prob.initial_guess = InitialGuess::FromCsv(vi);
        }
        let sub = dir.join(kind.to_string());
        let (outcome, report) = solve_and_write(&prob, &sub, args.images.formats())?;
        if outcome.result.status != Status::Converged {
            worst = outcome.result.status;
        }
        entries.push(Entry {
            transcription: kind.to_string(),
            initial_guess,
            report,
        });
    }
    let json = serde_json::to_string_pretty(&entries)?;
    write_atomic(&dir.join("compare.json"), json.as_bytes()).context("writing compare.json")?;
    let md = markdown(&base.name, base.stages, base.duration, &entries);
    write_atomic(&dir.join("compare.md"), md.as_bytes()).context("writing compare.md")?;
    let opts = ViewOptions {
        formats: args.images.formats(),
        ..ViewOptions::default()
    };
    let views = write_views(&dir, Some(&base.model), &opts)?;
    eprint!("{md}");
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
    Ok(exit_for(worst))
}

fn markdown(name: &str, stages: usize, duration: f64, entries: &[Entry]) -> String {
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
    let row = |label: &str, f: &dyn Fn(&Entry) -> String| {
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
        let contact = |f: fn(&vito::transcription::ContactResiduals) -> f64| {
            move |e: &Entry| {
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
                "deepest penetration (m)",
                &contact(|c| c.deepest_penetration),
            ),
            row(
                "largest friction-cone violation (N)",
                &contact(|c| c.largest_friction_cone_violation),
            ),
            row("ground's normal / friction work (J)", &|e: &Entry| {
                let a = &e.report.energy;
                format!(
                    "{:.4} / {:.4}",
                    a.ground_normal_work, a.ground_friction_work
                )
            }),
            row("ground's positive work (J)", &|e: &Entry| {
                format!("{:.4}", e.report.energy.ground_positive_work)
            }),
        ] {
            let _ = writeln!(s, "{l}");
        }
    }
    s
}

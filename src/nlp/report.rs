//! Iteration reporting: records, the observer interface, an IPOPT-style log table and a
//! progress bar.
//!
//! The solver hands every iterate to an [`Observer`]; it never prints from inside the
//! numerics. [`LogObserver`] writes one line per iteration:
//!
//! ```text
//! iter    objective    inf_pr   inf_du    compl  lg(mu)  lg(ms)  lg(rg)     alpha solves  fact   lin_ms  info
//!    0   1.6000000e1    1.2e1    1.2e1    0.0e0    -1.0      -      -    0.00e0      0     0     0.00
//! ```
//!
//! `inf_pr` is the largest constraint violation, `inf_du` the scaled dual infeasibility,
//! `compl` the scaled complementarity, `lg(mu)` the log10 of the interior-point method's
//! barrier parameter (`-` for the SQP), `lg(ms)` the log10 of the smoothing it drives with it
//! (`Solver::solve_smoothed`; `-` without), `lg(rg)` the log10 of the Hessian shift `δ` of the step
//! that produced this iterate (inertia correction), `alpha` its step length, `solves` its linear
//! solves (for the SQP the QP iterations: face solves of the working-set solver and backend
//! iterations; for the interior-point method the solves of its Newton system, corrections and
//! restoration steps included), `fact` the numeric factorizations and `lin_ms` the milliseconds
//! of the step's linear algebra (the QPs', or the Newton systems'). `info` flags a QP solved by the
//! backend (`b`), an elastic step (`e`), an accepted second-order correction (`s`), a step
//! accepted by the ℓ1-merit fallback instead of the filter (`m`), a feasibility restoration
//! (`f`), a retry with a strengthened Hessian model (`r`: a larger shift for exact Hessians, a
//! reset for BFGS), a return to the last solved barrier subproblem after a failed step (`k`,
//! interior point) and a decrease of the complementarity relaxation (`c`).

use std::io::{IsTerminal, Write};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::outcome::{IterationRecord, SolverResult};
use super::settings::Settings;

/// Receives the solver's progress.
pub trait Observer {
    /// Called once per iterate, including the starting point.
    fn iteration(&mut self, record: &IterationRecord);
    /// Called once at the end.
    fn finish(&mut self, result: &SolverResult) {
        let _ = result;
    }
}

/// Discards everything.
#[derive(Debug, Clone, Copy, Default)]
pub struct SilentObserver;

impl Observer for SilentObserver {
    fn iteration(&mut self, _record: &IterationRecord) {}
}

/// Writes the iteration table (print level >= 2) and a summary (print level >= 1) to a sink.
/// Write errors are ignored: logging never stops a solve.
pub struct LogObserver<'w> {
    sink: &'w mut dyn Write,
    print_level: u8,
}

impl<'w> LogObserver<'w> {
    /// A logger writing to `sink` at `print_level` (see [`Settings::print_level`](crate::nlp::Settings::print_level)).
    pub fn new(sink: &'w mut dyn Write, print_level: u8) -> Self {
        Self { sink, print_level }
    }
}

impl Observer for LogObserver<'_> {
    fn iteration(&mut self, r: &IterationRecord) {
        if self.print_level < 2 {
            return;
        }
        if r.iteration % 20 == 0 {
            let _ = writeln!(
                self.sink,
                "iter    objective    inf_pr   inf_du    compl  lg(mu)  lg(ms)  lg(rg)     alpha solves  fact   lin_ms  info"
            );
        }
        let lg = |v: f64| {
            if v > 0.0 {
                format!("{:6.1}", v.log10())
            } else {
                "     -".to_string()
            }
        };
        let mut info = String::new();
        for (flag, c) in [
            (r.backend_qp, 'b'),
            (r.elastic, 'e'),
            (r.second_order_correction, 's'),
            (r.merit_step, 'm'),
            (r.restoration, 'f'),
            (r.hessian_reset, 'r'),
            (r.retreat, 'k'),
            (r.relaxation_decreased, 'c'),
        ] {
            if flag {
                info.push(c);
            }
        }
        let _ = writeln!(
            self.sink,
            "{:4} {:14.7e} {:8.1e} {:8.1e} {:8.1e} {} {} {} {:9.2e} {:6} {:5} {:8.2}  {}",
            r.iteration,
            r.objective,
            r.primal_infeasibility,
            r.dual_infeasibility,
            r.complementarity,
            lg(r.barrier),
            lg(r.smoothing),
            lg(r.regularization),
            r.step_length,
            r.linear_solves,
            r.factorizations,
            r.linear_time_s * 1e3,
            info
        );
    }

    fn finish(&mut self, result: &SolverResult) {
        if self.print_level < 1 {
            return;
        }
        let t = &result.timing;
        let e = &result.evaluations;
        let _ = writeln!(
            self.sink,
            "status: {:?} — {}\nmethod {}, objective {:.10e}, iterations {}, linear solves {}\n\
             evaluations: f {}, ∇f {}, c {}, J {}, H {}\n\
             time: {:.3} s total, {:.3} s NLP, {:.3} s linear algebra, {:.3} s other",
            result.status,
            result.message,
            result.method,
            result.objective,
            result.iterations,
            result.linear_solves,
            e.objective,
            e.gradient,
            e.constraints,
            e.jacobian,
            e.hessian,
            t.total.as_secs_f64(),
            t.nlp_evaluation.as_secs_f64(),
            t.linear.as_secs_f64(),
            t.other().as_secs_f64(),
        );
    }
}

/// A progress bar on stderr, shown only when enabled and stderr is a terminal.
pub(crate) struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    /// The bar of one solve with `settings`: up to `max_iterations`, shown when
    /// `progress_bar` is set and `print_level` is above 0.
    pub(crate) fn new(settings: &Settings) -> Self {
        let enabled = settings.progress_bar && settings.print_level > 0;
        let bar = (enabled && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::with_draw_target(
                Some(settings.max_iterations as u64),
                ProgressDrawTarget::stderr(),
            );
            if let Ok(style) =
                ProgressStyle::with_template("solve {bar:30} {pos}/{len} iterations  {msg}")
            {
                bar.set_style(style);
            }
            bar
        });
        Self { bar }
    }

    pub(crate) fn iteration(&self, r: &IterationRecord) {
        if let Some(bar) = &self.bar {
            bar.set_position(r.iteration as u64);
            bar.set_message(format!(
                "f {:.6e}  inf_pr {:.1e}  inf_du {:.1e}",
                r.objective, r.primal_infeasibility, r.dual_infeasibility
            ));
        }
    }

    pub(crate) fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

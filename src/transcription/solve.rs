//! Solving a problem: transcribe, run the SQP, and read the trajectory back.

use super::{CollocationNlp, ContactResiduals, Solution, VariationalNlp};
use crate::problem::{ComplementarityMethod, TrajectoryProblem, TranscriptionKind};
use crate::sqp::{LogObserver, Nlp, Solver, SqpError, SqpResult};
use crate::sqp::{Settings, Status};
use std::io::Write;

/// Sizes of the transcribed NLP.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct NlpSize {
    /// Decision variables.
    pub variables: usize,
    /// Constraint rows.
    pub constraints: usize,
    /// Structural nonzeros of the constraint Jacobian.
    pub jacobian_nonzeros: usize,
}

/// What a solve produced.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The solver's result (status, residuals, timing, history).
    pub result: SqpResult,
    /// The trajectory at the final iterate (whatever the status).
    pub solution: Solution,
    /// The NLP's size.
    pub size: NlpSize,
    /// How well the solution meets the contact conditions, when the problem has contact.
    pub contact: Option<ContactResiduals>,
}

/// Why a problem could not be solved at all (as opposed to a solve that did not converge,
/// which is an [`Outcome`] with its status).
#[derive(Debug, thiserror::Error)]
pub enum SolveError {
    /// The transcription could not be built (for example an unreadable warm-start file).
    #[error("cannot transcribe the problem: {0}")]
    Transcription(String),
    /// The solver refused the problem or its settings.
    #[error(transparent)]
    Solver(#[from] SqpError),
}

fn size_of(nlp: &dyn Nlp) -> NlpSize {
    NlpSize {
        variables: nlp.num_variables(),
        constraints: nlp.num_constraints(),
        jacobian_nonzeros: nlp.jacobian_structure().len(),
    }
}

/// Transcribes `prob` as its `transcription` says, solves it, and returns the outcome; the
/// solver's iteration log goes to `log`.
///
/// # Errors
/// [`SolveError`] when the problem cannot be transcribed or the solver refuses it.
pub fn solve(prob: &TrajectoryProblem, log: &mut dyn Write) -> Result<Outcome, SolveError> {
    let solver = Solver::new(prob.solver.clone())?;
    let mut observer = LogObserver::new(log, prob.solver.print_level);
    let mut outcome = match prob.transcription {
        TranscriptionKind::Variational(s) => {
            let mut nlp = VariationalNlp::new(prob, s).map_err(SolveError::Transcription)?;
            run(&solver, &mut observer, &mut nlp, prob)
        }
        TranscriptionKind::HermiteSimpson => {
            let mut nlp = CollocationNlp::new(prob).map_err(SolveError::Transcription)?;
            run(&solver, &mut observer, &mut nlp, prob)
        }
    }?;
    check_contact(prob, &mut outcome);
    Ok(outcome)
}

/// Measures the contact conditions of the solution and keeps `Converged` only when they hold:
/// every complementarity product within `complementarity_tolerance`, penetration and
/// friction-cone violation within `constraint_tolerance` (the cone's in units of the force
/// scale). A converged solve that misses them is `Acceptable` when the acceptable tolerances
/// hold and `LocallyInfeasible` otherwise: a local solution of the penalized problem that is
/// not complementary.
fn check_contact(prob: &TrajectoryProblem, outcome: &mut Outcome) {
    let Some(contact) = &outcome.solution.contact else {
        return;
    };
    let s = &prob.solver;
    let res = contact.residuals(s.constraint_tolerance);
    outcome.contact = Some(res);
    let within = |product: f64, violation: f64| {
        res.largest_complementarity_product <= product
            && res.deepest_penetration <= violation
            && res.largest_friction_cone_violation <= violation * contact.force_scale
    };
    let r = &mut outcome.result;
    if r.status != Status::Converged || within(s.complementarity_tolerance, s.constraint_tolerance)
    {
        return;
    }
    r.status = if within(s.acceptable_tolerance, s.acceptable_constraint_tolerance) {
        Status::Acceptable
    } else {
        Status::LocallyInfeasible
    };
    r.message = format!(
        "the KKT conditions hold but the contact conditions do not: largest complementarity \
         product {:.1e}, penetration {:.1e} m, friction-cone violation {:.1e} N",
        res.largest_complementarity_product,
        res.deepest_penetration,
        res.largest_friction_cone_violation
    );
}

/// A transcription as the solve loop sees it.
trait Transcription: Nlp {
    /// The trajectory at `x`.
    fn solution(&mut self, x: &[f64]) -> Solution;
    /// Sets the smoothing of the contact complementarity rows.
    fn set_smoothing(&mut self, mu: f64);
    /// Starts the next solve from `x`.
    fn set_start(&mut self, x: &[f64]);
}

impl Transcription for VariationalNlp<'_> {
    fn solution(&mut self, x: &[f64]) -> Solution {
        VariationalNlp::solution(self, x)
    }
    fn set_smoothing(&mut self, mu: f64) {
        VariationalNlp::set_smoothing(self, mu);
    }
    fn set_start(&mut self, x: &[f64]) {
        VariationalNlp::set_start(self, x);
    }
}

impl Transcription for CollocationNlp<'_> {
    fn solution(&mut self, x: &[f64]) -> Solution {
        CollocationNlp::solution(self, x)
    }
    fn set_smoothing(&mut self, mu: f64) {
        CollocationNlp::set_smoothing(self, mu);
    }
    fn set_start(&mut self, x: &[f64]) {
        CollocationNlp::set_start(self, x);
    }
}

/// The smoothing levels of the solves: one solve without smoothing, or `μ` from `start`
/// down by factors of `smoothing_decrease` to the last level, `end` or, by default,
/// `smoothing_margin · √complementarity_tolerance`.
///
/// A smoothed solution has `a·b = μ²` in every pair, so the default last level is the first at
/// which the products meet the tolerance; smaller ones only make the solves harder (the
/// sticking rows become dependent as `μ²`, see ARCHITECTURE.md, "Contact").
fn smoothing_levels(method: ComplementarityMethod, settings: &Settings) -> Vec<Option<f64>> {
    match method {
        ComplementarityMethod::Smoothing { start, end } => {
            let end = end
                .unwrap_or(settings.smoothing_margin * settings.complementarity_tolerance.sqrt())
                .min(start);
            let mut out = Vec::new();
            let mut mu = start;
            while mu > end * (1.0 + 1e-9) {
                out.push(Some(mu));
                mu *= settings.smoothing_decrease;
            }
            out.push(Some(end));
            out
        }
        _ => vec![None],
    }
}

/// Solves a transcribed `nlp` (once, or along the smoothing levels of its contact
/// complementarity, each solve started where the last ended, every level but the last to
/// `smoothing_level_tolerance · μ` when that is set; the result then sums their iterations,
/// times and histories) and reads its trajectory back.
fn run<N: Transcription>(
    solver: &Solver,
    observer: &mut LogObserver<'_>,
    nlp: &mut N,
    prob: &TrajectoryProblem,
) -> Result<Outcome, SolveError> {
    let size = size_of(nlp);
    let mut total: Option<SqpResult> = None;
    // Without contact there is nothing to smooth: one solve, whatever the method.
    let levels = if prob.contact.is_some() {
        smoothing_levels(prob.complementarity, solver.settings())
    } else {
        vec![None]
    };
    let last = levels.len() - 1;
    for (i, level) in levels.into_iter().enumerate() {
        if let Some(mu) = level {
            nlp.set_smoothing(mu);
        }
        if let Some(prev) = &total {
            nlp.set_start(&prev.x);
        }
        let kappa = solver.settings().smoothing_level_tolerance;
        let warm = total.as_ref();
        let mut result = match level {
            Some(mu) if i < last && kappa > 0.0 => solver
                .loosened(kappa * mu, kappa * mu)
                .solve_warm(nlp, observer, warm)?,
            _ => solver.solve_warm(nlp, observer, warm)?,
        };
        if let Some(prev) = total.take() {
            let offset = prev.iterations;
            for h in &mut result.history {
                h.iteration += offset;
            }
            let mut history = prev.history;
            history.extend(result.history.into_iter().skip(1));
            result.history = history;
            result.iterations += prev.iterations;
            result.qp_iterations += prev.qp_iterations;
            result.timing.total += prev.timing.total;
            result.timing.nlp_evaluation += prev.timing.nlp_evaluation;
            result.timing.qp += prev.timing.qp;
        }
        let stop = !matches!(result.status, Status::Converged | Status::Acceptable);
        total = Some(result);
        if stop {
            break;
        }
    }
    let Some(result) = total else {
        return Err(SolveError::Transcription("no solve was run".into()));
    };
    let solution = nlp.solution(&result.x);
    Ok(Outcome {
        result,
        solution,
        size,
        contact: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn levels(start: f64, end: Option<f64>, tolerance: f64) -> Vec<f64> {
        let settings = Settings {
            complementarity_tolerance: tolerance,
            ..Settings::default()
        };
        smoothing_levels(ComplementarityMethod::Smoothing { start, end }, &settings)
            .into_iter()
            .map(|l| l.unwrap_or(f64::NAN))
            .collect()
    }

    fn close(a: &[f64], b: &[f64]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= 1e-12 * y)
    }

    #[test]
    fn the_last_smoothing_level_meets_the_complementarity_tolerance() {
        // μ_end = 0.5 √1e-6 = 5e-4: products μ² = 2.5e-7 ≤ 1e-6.
        let l = levels(1e-2, None, 1e-6);
        assert!(close(&l, &[1e-2, 1e-3, 5e-4]), "{l:?}");
        let end = l[l.len() - 1];
        assert!(end * end <= 1e-6 && end * end >= 0.2e-6, "{end}");
        // A named end wins; an end the tolerance allows above the start leaves one level.
        let l = levels(1e-2, Some(1e-4), 1e-6);
        assert!(close(&l, &[1e-2, 1e-3, 1e-4]), "{l:?}");
        assert!(close(&levels(1e-2, None, 1e-2), &[1e-2]));
        assert!(levels(1e-2, None, 1e-6).iter().all(|l| !l.is_nan()));
        let relaxed = smoothing_levels(ComplementarityMethod::Relaxation, &Settings::default());
        assert_eq!(relaxed, vec![None]);
    }
}

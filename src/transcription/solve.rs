//! Solving a problem: transcribe, run the SQP, and read the trajectory back.

use super::continuation::{ContinuationStep, solve_after};
use super::{
    CollocationNlp, ContactResiduals, EnergyAccount, Solution, VariationalNlp,
    deepest_sampled_penetration, energy_account,
};
use crate::nlp::{LogObserver, Nlp, SmoothingPath, SolverError, SolverResult};
use crate::nlp::{Settings, Status};
use crate::optimizer::Solver;
use crate::problem::{ComplementarityMethod, InitialGuess, TrajectoryProblem, TranscriptionKind};
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
    pub result: SolverResult,
    /// The trajectory at the final iterate (whatever the status).
    pub solution: Solution,
    /// The NLP's size.
    pub size: NlpSize,
    /// How well the solution meets the contact conditions, when the problem has contact.
    pub contact: Option<ContactResiduals>,
    /// The work of every force against the change of energy.
    pub energy: EnergyAccount,
    /// The problems solved before this one to start it (`initial_guess: {solve: …}`), the
    /// easiest first.
    pub continuation: Vec<ContinuationStep>,
    /// What the decision vector `result.x` is: the transcription's layout key (a problem
    /// started from this one takes `result.x` as it is where its own key is the same).
    pub variable_layout: String,
}

impl Outcome {
    /// Wall time of the solve and of the continuation steps solved for it (not those reused)
    /// (s).
    pub fn total_time_s(&self) -> f64 {
        self.result.timing.total.as_secs_f64()
            + self
                .continuation
                .iter()
                .filter(|c| !c.reused)
                .map(|c| c.solve_time_s)
                .sum::<f64>()
    }
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
    Solver(#[from] SolverError),
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
    if let InitialGuess::Solve(first) = &prob.initial_guess {
        return solve_after(first, prob, log);
    }
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
    outcome.energy = energy_account(&prob.model, &outcome.solution);
    check_contact(prob, &mut outcome);
    Ok(outcome)
}

/// Measures the contact conditions of the solution and keeps `Converged` only when they hold:
/// every complementarity product within `complementarity_tolerance`, penetration and
/// friction-cone violation within `constraint_tolerance` (the cone's in units of the force
/// scale), and the ground's positive work within `ground_work_fraction` of the actuators'
/// positive work plus `ground_work_allowance`. A converged solve that misses them is
/// `Acceptable` when the acceptable tolerances hold (for the ground's work: ten times its
/// tolerance) and `LocallyInfeasible` otherwise: a local solution of the penalized problem that
/// is not complementary, or not physical.
fn check_contact(prob: &TrajectoryProblem, outcome: &mut Outcome) {
    let Some(contact) = &outcome.solution.contact else {
        return;
    };
    let s = &prob.solver;
    // A force may act up to the terrain's reach from it (the force that stops an arriving
    // point acts at the point before touchdown, `contact/conditions.rs`), and the smoothing
    // lets it a little beyond ([`REACH_MARGIN`]).
    let reach = prob.contact.as_ref().map_or(0.0, |m| m.reach);
    let mut res = contact.residuals(reach + REACH_MARGIN.max(s.constraint_tolerance));
    if let Some(model) = &prob.contact {
        res.deepest_penetration_between_points =
            deepest_sampled_penetration(&prob.model, model, &outcome.solution, prob.stages);
    }
    outcome.contact = Some(res);
    let energy = &outcome.energy;
    let ground_work = |looseness: f64| {
        energy.ground_positive_work
            <= looseness
                * (s.ground_work_fraction * energy.actuator_positive_work + s.ground_work_allowance)
    };
    let within = |product: f64, violation: f64, looseness: f64| {
        res.largest_complementarity_product <= product
            && res.deepest_penetration <= violation
            && res.largest_friction_cone_violation <= violation * contact.force_scale
            && ground_work(looseness)
    };
    let r = &mut outcome.result;
    if r.status != Status::Converged
        || within(s.complementarity_tolerance, s.constraint_tolerance, 1.0)
    {
        return;
    }
    let loose = within(
        s.acceptable_tolerance,
        s.acceptable_constraint_tolerance,
        ACCEPTABLE_GROUND_WORK,
    );
    r.status = if loose {
        Status::Acceptable
    } else {
        Status::LocallyInfeasible
    };
    r.message = format!(
        "the KKT conditions hold but the contact conditions do not: largest complementarity \
         product {:.1e}, penetration {:.1e} m, friction-cone violation {:.1e} N, positive work \
         of the ground {:.3} J ({} positive work)",
        res.largest_complementarity_product,
        res.deepest_penetration,
        res.largest_friction_cone_violation,
        energy.ground_positive_work,
        energy.ground_share_text(),
    );
}

/// How many times its tolerance the ground's positive work may reach in an `Acceptable` solve.
const ACCEPTABLE_GROUND_WORK: f64 = 10.0;

/// How far beyond the terrain's reach a force still counts as acting at the reach in the
/// report's `largest_force_at_a_distance` (m). With smoothing the reach rows hold
/// `c (φ − δ) ≤ κ μ²` (`terms/contact.rs`), so a force of `c` force scales may act `κ μ² / c`
/// beyond the reach: 6.6 µm for one force scale at the smoothing path's default end. Measured
/// at the reach itself, the bundled contact results reported the forces that stop their
/// touchdowns (up to 720 N, a few µm beyond); beyond this margin the largest is 5.6 N (the
/// obstacle jump's), most are below 0.1 N.
const REACH_MARGIN: f64 = 2e-5;

/// The layout key of `prob`'s transcription ([`Transcription::variable_layout`]).
///
/// # Errors
/// [`SolveError::Transcription`] where the transcription cannot be built.
pub(super) fn variable_layout(prob: &TrajectoryProblem) -> Result<String, SolveError> {
    Ok(match prob.transcription {
        TranscriptionKind::Variational(s) => VariationalNlp::new(prob, s)
            .map_err(SolveError::Transcription)?
            .variable_layout(),
        TranscriptionKind::HermiteSimpson => CollocationNlp::new(prob)
            .map_err(SolveError::Transcription)?
            .variable_layout(),
    })
}

/// A transcription as the solve loop sees it.
trait Transcription: Nlp {
    /// The trajectory at `x`.
    fn solution(&mut self, x: &[f64]) -> Solution;
    /// What its decision variables are, as a key: equal keys, equal variables.
    fn variable_layout(&self) -> String;
}

impl Transcription for VariationalNlp<'_> {
    fn solution(&mut self, x: &[f64]) -> Solution {
        VariationalNlp::solution(self, x)
    }
    fn variable_layout(&self) -> String {
        VariationalNlp::variable_layout(self)
    }
}

impl Transcription for CollocationNlp<'_> {
    fn solution(&mut self, x: &[f64]) -> Solution {
        CollocationNlp::solution(self, x)
    }
    fn variable_layout(&self) -> String {
        CollocationNlp::variable_layout(self)
    }
}

/// The smoothing path of smoothed contact complementarity: from `start` to `end` or, by
/// default, [`Settings::smoothing_end`] (at most `start`).
///
/// A smoothed solution has `a·b = μ²` in every pair, so the default end is the first level
/// at which the products meet the tolerance; smaller ones only make the solves harder (the
/// sticking rows become dependent as `μ²`, see ARCHITECTURE.md, "Contact").
fn smoothing_path(method: ComplementarityMethod, settings: &Settings) -> Option<SmoothingPath> {
    match method {
        ComplementarityMethod::Smoothing { start, end } => Some(SmoothingPath {
            start,
            end: end
                .unwrap_or_else(|| settings.smoothing_end(start))
                .min(start),
        }),
        _ => None,
    }
}

/// Solves a transcribed `nlp` (along the smoothing path of its contact complementarity when
/// it has one: `Solver::solve_smoothed`) and reads its trajectory back.
fn run<N: Transcription>(
    solver: &Solver,
    observer: &mut LogObserver<'_>,
    nlp: &mut N,
    prob: &TrajectoryProblem,
) -> Result<Outcome, SolveError> {
    let size = size_of(nlp);
    let variable_layout = nlp.variable_layout();
    let path = prob
        .contact
        .as_ref()
        .and_then(|_| smoothing_path(prob.complementarity, solver.settings()));
    let result = match path {
        Some(path) => {
            let warm = prob.initial_guess.warm_for(&variable_layout);
            solver.solve_smoothed(nlp, observer, path, warm)?
        }
        None => solver.solve_warm(nlp, observer, None)?,
    };
    let solution = nlp.solution(&result.x);
    Ok(Outcome {
        result,
        solution,
        size,
        contact: None,
        energy: EnergyAccount::default(),
        continuation: Vec::new(),
        variable_layout,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_smoothing_end_is_the_first_level_meeting_the_tolerance() {
        let settings = Settings {
            complementarity_tolerance: 1e-6,
            ..Settings::default()
        };
        let smoothing = |start, end| ComplementarityMethod::Smoothing { start, end };
        // From 0.01 by 0.3: 0.01, 0.003, 9e-4, whose products 8.1e-7 meet 1e-6.
        let path = smoothing_path(smoothing(1e-2, None), &settings);
        let end = path.map_or(f64::NAN, |p| p.end);
        assert!((end - 9e-4).abs() < 1e-15, "{end}");
        assert!(
            end * end <= 1e-6 && (end / 0.3) * (end / 0.3) > 1e-6,
            "{end}"
        );
        // A named end wins.
        let path = smoothing_path(smoothing(1e-2, Some(1e-4)), &settings);
        assert_eq!(
            path,
            Some(SmoothingPath {
                start: 1e-2,
                end: 1e-4
            })
        );
        // A start that meets the tolerance is its own end.
        let loose = Settings {
            complementarity_tolerance: 1e-2,
            ..Settings::default()
        };
        let path = smoothing_path(smoothing(1e-2, None), &loose);
        assert_eq!(
            path,
            Some(SmoothingPath {
                start: 1e-2,
                end: 1e-2
            })
        );
        assert_eq!(
            smoothing_path(ComplementarityMethod::Relaxation, &settings),
            None
        );
    }
}

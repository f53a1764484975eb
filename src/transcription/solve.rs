//! Solving a problem: transcribe, run the SQP, and read the trajectory back.

use super::{CollocationNlp, ContactResiduals, Solution, VariationalNlp};
use crate::problem::{TrajectoryProblem, TranscriptionKind};
use crate::sqp::Status;
use crate::sqp::{LogObserver, Nlp, Solver, SqpError, SqpResult};
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
            run(&solver, &mut observer, &mut nlp, |nlp, x| nlp.solution(x))
        }
        TranscriptionKind::HermiteSimpson => {
            let mut nlp = CollocationNlp::new(prob).map_err(SolveError::Transcription)?;
            run(&solver, &mut observer, &mut nlp, |nlp, x| nlp.solution(x))
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

/// Solves a transcribed `nlp` and reads its trajectory back with `solution`.
fn run<N: Nlp>(
    solver: &Solver,
    observer: &mut LogObserver<'_>,
    nlp: &mut N,
    solution: impl FnOnce(&mut N, &[f64]) -> Solution,
) -> Result<Outcome, SolveError> {
    let size = size_of(nlp);
    let result = solver.solve_with_observer(nlp, observer)?;
    let solution = solution(nlp, &result.x);
    Ok(Outcome {
        result,
        solution,
        size,
        contact: None,
    })
}

//! Solving a problem: transcribe, run the SQP, and read the trajectory back.

use super::{CollocationNlp, Solution, VariationalNlp};
use crate::problem::{TrajectoryProblem, TranscriptionKind};
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
    match prob.transcription {
        TranscriptionKind::Variational(s) => {
            let mut nlp = VariationalNlp::new(prob, s).map_err(SolveError::Transcription)?;
            run(&solver, &mut observer, &mut nlp, |nlp, x| nlp.solution(x))
        }
        TranscriptionKind::HermiteSimpson => {
            let mut nlp = CollocationNlp::new(prob).map_err(SolveError::Transcription)?;
            run(&solver, &mut observer, &mut nlp, |nlp, x| nlp.solution(x))
        }
    }
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
    })
}

//! Continuation: a problem started from the trajectory of another, solved first
//! (`initial_guess: {solve: …}`), which may start from a third, and so on down to the easiest.
//!
//! The problems solved first are remembered for the life of the process, by their hash and
//! solver settings: a family of problems started from the same chain (a sweep of its last
//! step, edits of it from Python) solves the chain once. Solving it again would give the same
//! numbers: a solve is deterministic.

use super::{Outcome, SolveError, solve};
use crate::nlp::Status;
use crate::problem::{InitialGuess, Recording, TrajectoryProblem, fnv1a};
use std::collections::HashMap;
use std::io::Write;
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

/// A problem solved to start the next one, as it ended.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ContinuationStep {
    /// The problem's name.
    pub problem: String,
    /// Its solve's status.
    pub status: Status,
    /// Iterations.
    pub iterations: usize,
    /// Wall time (s) of its solve.
    pub solve_time_s: f64,
    /// Objective.
    pub objective: f64,
    /// Solved earlier in this process for another problem and reused: its time was not spent
    /// again.
    pub reused: bool,
}

/// What a problem solved first hands on: its trajectory, and its steps, its own last.
#[derive(Clone)]
struct Handed {
    recording: Arc<Recording>,
    steps: Vec<ContinuationStep>,
}

/// One slot per problem solved first, locked while it is being solved (a second caller waits
/// for it rather than solving it too).
type Memo = Mutex<HashMap<String, Arc<Mutex<Option<Handed>>>>>;

static SOLVED_FIRST: LazyLock<Memo> = LazyLock::new(Memo::default);

/// What makes a problem's solve what it is: its hash (files, robot, chain) and every setting
/// the command line may override.
fn memo_key(prob: &TrajectoryProblem) -> String {
    let settings = format!(
        "{:?} {:?} {:?}",
        prob.transcription, prob.complementarity, prob.solver
    );
    fnv1a(&[prob.hash.as_bytes(), settings.as_bytes()])
}

/// Solves `first` (and what it starts from), or takes it from an earlier solve in this
/// process, then `prob` from its trajectory, whatever its status: the last solve's status is
/// the outcome's; a failed step is logged and listed in [`Outcome::continuation`].
///
/// # Errors
/// A [`SolveError`] of any of the solves.
pub(super) fn solve_after(
    first: &TrajectoryProblem,
    prob: &TrajectoryProblem,
    log: &mut dyn Write,
) -> Result<Outcome, SolveError> {
    // Shown as this problem's solve is (a sweep turns its bar off).
    let mut first = first.clone();
    first.solver.progress_bar = prob.solver.progress_bar;
    let slot = Arc::clone(
        SOLVED_FIRST
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(memo_key(&first))
            .or_default(),
    );
    let mut held = slot.lock().unwrap_or_else(PoisonError::into_inner);
    // The log is the solver's printout: a line that cannot be written is not a solve's failure.
    let handed = if let Some(h) = held.as_ref() {
        let _ = writeln!(
            log,
            "continuation: '{}' was solved earlier in this process; solving '{}' from its trajectory",
            first.name, prob.name
        );
        let mut h = h.clone();
        for step in &mut h.steps {
            step.reused = true;
        }
        h
    } else {
        let h = solve_first(&first, prob, log)?;
        *held = Some(h.clone());
        h
    };
    drop(held);
    let mut next = prob.clone();
    next.initial_guess = InitialGuess::Recorded(handed.recording);
    let mut outcome = solve(&next, log)?;
    outcome.continuation = handed.steps;
    Ok(outcome)
}

/// Solves `first`, the problem `prob` starts from.
fn solve_first(
    first: &TrajectoryProblem,
    prob: &TrajectoryProblem,
    log: &mut dyn Write,
) -> Result<Handed, SolveError> {
    let _ = writeln!(
        log,
        "continuation: solving '{}' first, to start '{}' from its trajectory",
        first.name, prob.name
    );
    let before = solve(first, log)?;
    let r = &before.result;
    let step = ContinuationStep {
        problem: first.name.clone(),
        status: r.status,
        iterations: r.iterations,
        solve_time_s: r.timing.total.as_secs_f64(),
        objective: r.objective,
        reused: false,
    };
    let _ = writeln!(
        log,
        "continuation: '{}' ended {:?} after {} iterations in {:.3} s{}; solving '{}' from it",
        step.problem,
        step.status,
        step.iterations,
        step.solve_time_s,
        if r.status == Status::Converged {
            String::new()
        } else {
            format!(" ({})", r.message)
        },
        prob.name
    );
    let mut steps = before.continuation;
    steps.push(step);
    Ok(Handed {
        recording: Arc::new(before.solution.recording(first.stages)),
        steps,
    })
}

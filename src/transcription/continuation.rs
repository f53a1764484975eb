//! Continuation: a problem started from the trajectory of another, solved first
//! (`initial_guess: {solve: …}`), which may start from a third, and so on down to the easiest.
//!
//! Where the problem sets `solver.terrain_step`, the two differ in terrain numbers only (a box
//! raised or moved, gaps moved or widened: the same robot, horizon, contact points and rows, so
//! the same decision variables) and the first converged, the terrain is walked from the first's to this one's in steps
//! ([`Terrain::toward`]), each solved warm from the last one's decision vector and multipliers
//! at the smoothing's end (`InteriorPoint::warm_mu`): a warm interior point absorbs a move of
//! millimetres in a few dozen iterations where a cold start from the trajectory at the
//! smoothing's start wanders for hundreds (`docs/benchmarks.md`, "Families"). No step moves a
//! terrain number by more than `Settings::terrain_step`; a failed one (not `Converged` within
//! `terrain_step_iterations`) is halved and tried again from the last solved terrain, and
//! `terrain_step_streak` solved ones in a row double the next again, up to `terrain_step`. Below `terrain_step_min` the walk
//! ends and the problem is solved from the first problem's trajectory, as a continuation
//! without the walk is (a cold start from the walk's last point was worse: the jump's 0.08 m
//! box from the 0.05 m one ended `LocallyInfeasible`).
//!
//! The problems solved first are remembered for the life of the process, by their hash and
//! solver settings: a family of problems started from the same chain (a sweep of its last
//! step, edits of it from Python) solves the chain once. Solving it again would give the same
//! numbers: a solve is deterministic.

use super::solve::variable_layout;
use super::{Outcome, SolveError, solve};
use crate::contact::Terrain;
use crate::nlp::{HessianStrategy, Method, Status};
use crate::problem::{
    ComplementarityMethod, InitialGuess, Recording, SolvedVariables, TrajectoryProblem, fnv1a,
};
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

/// What a problem solved first hands on: its trajectory, its decision variables and
/// multipliers, its status, and its steps, its own last.
#[derive(Clone)]
struct Handed {
    recording: Arc<Recording>,
    variables: Arc<SolvedVariables>,
    status: Status,
    steps: Vec<ContinuationStep>,
}

impl Handed {
    /// What `outcome`, a solve of `prob`, hands on, after `steps`.
    fn from(outcome: Outcome, prob: &TrajectoryProblem, steps: Vec<ContinuationStep>) -> Self {
        Self {
            recording: Arc::new(outcome.solution.recording(prob.stages)),
            status: outcome.result.status,
            variables: Arc::new(SolvedVariables {
                layout: outcome.variable_layout,
                result: outcome.result,
            }),
            steps,
        }
    }

    /// The trajectory as a starting guess, with the variables for a warm start or without.
    fn guess(&self, warm: bool) -> InitialGuess {
        InitialGuess::Recorded {
            trajectory: Arc::clone(&self.recording),
            variables: warm.then(|| Arc::clone(&self.variables)),
        }
    }
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
    if let Some((from, to, change)) = terrain_path(&first, prob, &handed)? {
        return walk_terrain(prob, handed, (from, to, change), log);
    }
    from_trajectory(prob, handed.recording, handed.steps, log)
}

/// `prob` solved from `trajectory` (cold, at the smoothing's start), after `steps`.
fn from_trajectory(
    prob: &TrajectoryProblem,
    trajectory: Arc<Recording>,
    steps: Vec<ContinuationStep>,
    log: &mut dyn Write,
) -> Result<Outcome, SolveError> {
    let mut next = prob.clone();
    next.initial_guess = InitialGuess::Recorded {
        trajectory,
        variables: None,
    };
    let mut outcome = solve(&next, log)?;
    outcome.continuation = steps;
    Ok(outcome)
}

/// The terrains to walk between, `first`'s and `prob`'s, with the largest change of their
/// numbers, where a terrain walk applies: `prob` sets `terrain_step`, `first` converged, both
/// terrains of one shape and
/// apart, smoothed complementarity solved by the interior-point method (exact Hessians, not
/// `method: sqp`), and the same decision variables (layout keys).
///
/// # Errors
/// A [`SolveError`] where `prob`'s transcription cannot be built.
fn terrain_path(
    first: &TrajectoryProblem,
    prob: &TrajectoryProblem,
    handed: &Handed,
) -> Result<Option<(Terrain, Terrain, f64)>, SolveError> {
    let (Some(a), Some(b), Some(_)) = (&first.contact, &prob.contact, prob.solver.terrain_step)
    else {
        return Ok(None);
    };
    let s = &prob.solver;
    let applies = handed.status == Status::Converged
        && matches!(
            prob.complementarity,
            ComplementarityMethod::Smoothing { .. }
        )
        && s.hessian == HessianStrategy::Exact
        && s.method != Method::Sqp;
    let Some(change) = a.terrain.largest_change(&b.terrain) else {
        return Ok(None);
    };
    if !applies || change == 0.0 {
        return Ok(None);
    }
    let mut started = prob.clone();
    started.initial_guess = handed.guess(true);
    if variable_layout(&started)? != handed.variables.layout {
        return Ok(None);
    }
    Ok(Some((a.terrain.clone(), b.terrain.clone(), change)))
}

/// Walks the terrain from `from` to `to` (`prob`'s; `change` its largest change) in warm steps
/// from `handed` (module documentation); `prob`'s solve on its own terrain is the outcome, the
/// steps before it listed in [`Outcome::continuation`].
fn walk_terrain(
    prob: &TrajectoryProblem,
    handed: Handed,
    (from, to, change): (Terrain, Terrain, f64),
    log: &mut dyn Write,
) -> Result<Outcome, SolveError> {
    let settings = &prob.solver;
    let least = settings.terrain_step_min / change;
    let most = (settings.terrain_step.unwrap_or(change) / change).min(1.0);
    let (mut step, mut streak) = (most, 0);
    let origin = Arc::clone(&handed.recording);
    let (mut done, mut last) = (0.0, handed);
    loop {
        // A remainder shorter than the least step is taken with this one.
        let s = if done + step + least >= 1.0 {
            1.0
        } else {
            done + step
        };
        let mut next = prob.clone();
        if let Some(contact) = next.contact.as_mut() {
            contact.terrain = from.toward(&to, s).unwrap_or_else(|| to.clone());
        }
        next.solver.method = Method::InteriorPoint;
        next.solver.max_iterations = settings
            .max_iterations
            .min(settings.terrain_step_iterations);
        next.initial_guess = last.guess(true);
        let mut outcome = solve(&next, log)?;
        let r = &outcome.result;
        let solved = r.status == Status::Converged;
        let _ = writeln!(
            log,
            "continuation: '{}' with the terrain {:.1} % of the way ({:.2} of {:.2} cm): {:?} \
             after {} iterations in {:.3} s",
            prob.name,
            100.0 * s,
            100.0 * s * change,
            100.0 * change,
            r.status,
            r.iterations,
            r.timing.total.as_secs_f64()
        );
        if solved && s >= 1.0 {
            outcome.continuation = last.steps;
            return Ok(outcome);
        }
        let mut steps = last.steps.clone();
        steps.push(ContinuationStep {
            problem: format!("{} (terrain {:.1} %)", prob.name, 100.0 * s),
            status: r.status,
            iterations: r.iterations,
            solve_time_s: r.timing.total.as_secs_f64(),
            objective: r.objective,
            reused: false,
        });
        if solved {
            last = Handed::from(outcome, &next, steps);
            done = s;
            streak += 1;
            if streak >= settings.terrain_step_streak {
                step = (2.0 * step).min(most);
                streak = 0;
            }
        } else {
            last.steps = steps;
            streak = 0;
            step = (s - done) / 2.0;
            if step < least {
                let _ = writeln!(
                    log,
                    "continuation: a terrain step of {:.2} mm failed at {:.1} % of the way; \
                     solving '{}' from the trajectory of the problem solved first",
                    1e3 * 2.0 * step * change,
                    100.0 * s,
                    prob.name
                );
                return from_trajectory(prob, origin, last.steps, log);
            }
        }
    }
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
    let mut before = solve(first, log)?;
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
    let mut steps = std::mem::take(&mut before.continuation);
    steps.push(step);
    Ok(Handed::from(before, first, steps))
}

//! The loop both methods run: one iterate after another, each recorded and reported, tested
//! for termination (`termination.rs`) and left by a step, until a test or a failed step ends
//! the solve; then the result. A method is a type behind [`NlpMethod`]: its starting point,
//! its homotopies' updates at an iterate, its step, and what it reports.

use std::time::{Duration, Instant};

use super::outcome::{EvaluationCounts, IterationRecord, Residuals, SolverResult, Status, Timing};
use super::report::{Observer, Progress};
use super::settings::{Method, Settings};
use super::termination::Termination;

/// Why a method stops early.
pub(crate) struct Stop {
    pub(crate) status: Status,
    pub(crate) message: String,
}

impl Stop {
    pub(crate) fn new(status: Status, message: impl Into<String>) -> Self {
        Self {
            status,
            message: message.into(),
        }
    }
}

/// What one step did, for the record of the iterate it leads to. The method fills what it
/// knows; the loop adds the counts and times it measures around the step.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct StepInfo {
    /// The Hessian shift `δ` of the step's model.
    pub(crate) regularization: f64,
    /// The step length `α`.
    pub(crate) step_length: f64,
    /// `‖d‖∞`.
    pub(crate) step_norm: f64,
    /// Linear solves: the QP iterations of the SQP, the Newton-system solves of the interior
    /// point.
    pub(crate) linear_solves: usize,
    /// Time in linear algebra and QP backends (by the loop).
    pub(crate) linear_time: Duration,
    /// Wall time of the step (by the loop).
    pub(crate) step_time: Duration,
    /// Numeric factorizations (by the loop).
    pub(crate) factorizations: usize,
    pub(crate) backend_qp: bool,
    pub(crate) elastic: bool,
    pub(crate) second_order_correction: bool,
    pub(crate) merit_step: bool,
    pub(crate) restoration: bool,
    pub(crate) hessian_reset: bool,
}

/// A method's current point as the result reports it.
pub(crate) struct Current<'a> {
    pub(crate) x: &'a [f64],
    pub(crate) objective: f64,
    /// Every row's value and multiplier: the problem's own, then the product rows.
    pub(crate) c: &'a [f64],
    pub(crate) y: &'a [f64],
    /// The bound multipliers, vito's sign convention.
    pub(crate) z: &'a [f64],
    /// The problem's own rows (the rest are complementarity products).
    pub(crate) m_nlp: usize,
    pub(crate) relaxation: f64,
    pub(crate) evaluations: EvaluationCounts,
    pub(crate) nlp_time: Duration,
}

/// One method of solving a [`Problem`](super::problem::Problem), iterated by [`solve`].
pub(crate) trait NlpMethod {
    /// The method, for the result.
    const METHOD: Method;

    /// Evaluates the starting point.
    fn initialize(&mut self) -> Result<(), Stop>;

    /// Moves the method's homotopies (complementarity relaxation, barrier parameter,
    /// smoothing) at the current point; the residuals after the moves, and whether the
    /// relaxation decreased.
    fn update(&mut self) -> Result<(Residuals, bool), Stop>;

    /// Whether the problem solved now is the one asked for; until it is (a homotopy not at
    /// its end), only the limits end the solve.
    fn final_problem(&self) -> bool {
        true
    }

    /// Takes a step from the current point, recording in `info` what it did.
    fn step(&mut self, info: &mut StepInfo) -> Result<(), Stop>;

    /// Fills the record's columns of the method's own state: objective, merit penalty,
    /// barrier parameter, smoothing.
    fn describe(&self, record: &mut IterationRecord);

    /// The residuals at the current point.
    fn residuals(&mut self) -> Residuals;

    /// The current point.
    fn current(&self) -> Current<'_>;

    /// Numeric factorizations so far.
    fn factorizations(&self) -> usize;

    /// Time in linear algebra and QP backends so far.
    fn linear_time(&self) -> Duration;
}

/// Runs `method` from its starting point: every iterate recorded and reported to `observer`
/// and `progress`, until `settings`' termination tests or a failed step end the solve, whose
/// clock started at `start`.
pub(crate) fn solve<M: NlpMethod>(
    mut method: M,
    settings: &Settings,
    observer: &mut dyn Observer,
    progress: &Progress,
    start: Instant,
) -> SolverResult {
    let mut run = Run {
        start,
        history: Vec::new(),
        linear_solves: 0,
    };
    if let Err(stop) = method.initialize() {
        return run.finish(&mut method, stop.status, stop.message);
    }
    let mut termination = Termination::new(settings, start);
    let mut step = StepInfo::default();
    let mut iteration = 0;
    loop {
        let (r, relaxation_decreased) = match method.update() {
            Ok(updated) => updated,
            Err(stop) => return run.finish(&mut method, stop.status, stop.message),
        };
        let mut record = IterationRecord {
            iteration,
            primal_infeasibility: r.primal_infeasibility,
            dual_infeasibility: r.dual_infeasibility,
            complementarity: r.complementarity,
            complementarity_violation: r.complementarity_violation,
            regularization: step.regularization,
            step_length: step.step_length,
            step_norm: step.step_norm,
            linear_solves: step.linear_solves,
            linear_time_s: step.linear_time.as_secs_f64(),
            step_time_s: step.step_time.as_secs_f64(),
            factorizations: step.factorizations,
            backend_qp: step.backend_qp,
            elastic: step.elastic,
            second_order_correction: step.second_order_correction,
            merit_step: step.merit_step,
            restoration: step.restoration,
            hessian_reset: step.hessian_reset,
            relaxation_decreased,
            ..IterationRecord::default()
        };
        method.describe(&mut record);
        observer.iteration(&record);
        progress.iteration(&record);
        run.history.push(record);
        if let Some((status, message)) = termination.check(&r, iteration, method.final_problem()) {
            return run.finish(&mut method, status, message);
        }
        let timer = Instant::now();
        let (factorizations, linear_time) = (method.factorizations(), method.linear_time());
        step = StepInfo::default();
        let stepped = method.step(&mut step);
        step.step_time = timer.elapsed();
        step.factorizations = method.factorizations() - factorizations;
        step.linear_time = method.linear_time() - linear_time;
        run.linear_solves += step.linear_solves;
        if let Err(stop) = stepped {
            let (status, message) = if method.final_problem() {
                termination.after_failure(&r, stop.status, stop.message)
            } else {
                (stop.status, stop.message)
            };
            return run.finish(&mut method, status, message);
        }
        iteration += 1;
    }
}

/// What the loop keeps of a solve.
struct Run {
    start: Instant,
    history: Vec<IterationRecord>,
    linear_solves: usize,
}

impl Run {
    /// The result at `method`'s current point.
    fn finish<M: NlpMethod>(
        &mut self,
        method: &mut M,
        status: Status,
        message: impl Into<String>,
    ) -> SolverResult {
        let residuals = if method.current().objective.is_finite() {
            method.residuals()
        } else {
            Residuals::default()
        };
        let linear = method.linear_time();
        let p = method.current();
        SolverResult {
            status,
            message: message.into(),
            method: M::METHOD,
            x: p.x.to_vec(),
            objective: p.objective,
            constraints: p.c[..p.m_nlp].to_vec(),
            constraint_multipliers: p.y[..p.m_nlp].to_vec(),
            bound_multipliers: p.z.to_vec(),
            complementarity_multipliers: p.y[p.m_nlp..].to_vec(),
            residuals,
            relaxation: p.relaxation,
            iterations: self.history.len().saturating_sub(1),
            linear_solves: self.linear_solves,
            evaluations: p.evaluations,
            timing: Timing {
                total: self.start.elapsed(),
                nlp_evaluation: p.nlp_time,
                linear,
            },
            history: std::mem::take(&mut self.history),
        }
    }
}

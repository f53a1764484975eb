//! The SQP iteration: initialization, one step per iteration, termination, and the
//! complementarity relaxation homotopy; [`run`] is what `crate::optimizer` calls.
//!
//! The state of a solve is the current [`Iterate`] and a trial one, the step builder
//! (`step.rs`: Hessian model, QP data, working-set solver, backends) and the globalization
//! (`line_search.rs`: filter and merit penalty). Each iteration asks the builder for a
//! direction and the globalization for a step along it; a failed QP or line search retries the
//! step with a stronger Hessian model (a forced shift for exact Hessians, a reset for BFGS).

use std::time::Instant;

use super::hessian::HessianModel;
use super::iterate::Iterate;
use super::line_search::{Globalization, Search};
use super::quasi_newton::BlockBfgs;
use super::step::{StepBuilder, StepInfo, Stop};
use crate::nlp::outcome::{IterationRecord, Residuals, SolverResult, Status, Timing};
use crate::nlp::problem::Problem;
use crate::nlp::report::{Observer, Progress};
use crate::nlp::residuals::{Bounds, KktPoint, residuals};
use crate::nlp::settings::{Method, QpBackend, Settings};
use crate::nlp::termination::Termination;
use crate::qp::ClarabelQp;
use crate::qp::QpSolver;
use crate::qp::sparse::add_transpose_triplets;

/// The SQP on `problem` from its initial point, or from `from`, its QP backends made by
/// `make`; `smoothing` is the problem's smoothing level, for the iteration records (0 without
/// one).
#[allow(clippy::too_many_arguments)]
pub(crate) fn run(
    settings: &Settings,
    problem: Problem<'_>,
    make: &dyn Fn() -> Box<dyn QpSolver>,
    observer: &mut dyn Observer,
    progress: &Progress,
    start: Instant,
    from: Option<&[f64]>,
    smoothing: f64,
) -> SolverResult {
    let mut sqp = Sqp::new(settings, problem, make, start);
    sqp.smoothing = smoothing;
    match sqp.initialize(from) {
        Ok(()) => sqp.run(observer, progress),
        Err(message) => sqp.finish(Status::EvaluationError, message),
    }
}

/// The QP backend [`Settings::qp`] names.
pub(crate) fn default_backend(settings: &Settings) -> Box<dyn QpSolver> {
    match settings.qp {
        QpBackend::Clarabel => Box::new(ClarabelQp::new(
            settings.qp_tolerance,
            settings.qp_max_iterations,
        )),
        #[cfg(feature = "osqp")]
        QpBackend::Osqp => Box::new(crate::qp::OsqpQp::with_active_set(
            settings.qp_tolerance,
            settings.qp_max_iterations,
            settings.tuning.qp.clone(),
            settings.tuning.inertia,
        )),
        // Rejected by `Settings::validate` in builds without the feature.
        #[cfg(not(feature = "osqp"))]
        QpBackend::Osqp => Box::new(ClarabelQp::new(
            settings.qp_tolerance,
            settings.qp_max_iterations,
        )),
    }
}

/// The state of one solve.
struct Sqp<'s, 'p> {
    settings: &'s Settings,
    problem: Problem<'p>,
    current: Iterate,
    trial: Iterate,
    builder: StepBuilder,
    globalization: Globalization,
    start: Instant,
    stationarity: Vec<f64>,
    secant_s: Vec<f64>,
    secant_y: Vec<f64>,
    relaxation: f64,
    /// The Hessian shift a retried step asks for (0 for a first attempt).
    forced_shift: f64,
    /// `τ`, the factor of the constraints' curvature in the Hessian model.
    curvature_scale: f64,
    /// The problem's smoothing level, recorded with every iterate.
    smoothing: f64,
    history: Vec<IterationRecord>,
}

impl<'s, 'p> Sqp<'s, 'p> {
    fn new(
        settings: &'s Settings,
        mut problem: Problem<'p>,
        make: &dyn Fn() -> Box<dyn QpSolver>,
        start: Instant,
    ) -> Self {
        let n = problem.n;
        let hessian = match &problem.hessian_structure {
            Some(structure) => HessianModel::exact(n, structure),
            None => HessianModel::bfgs(BlockBfgs::new(
                n,
                problem.groups.as_deref(),
                settings.dense_quasi_newton_limit,
            )),
        };
        let relaxation = if problem.products.len() > 0 {
            settings.relaxation_initial
        } else {
            0.0
        };
        problem.set_relaxation(relaxation);
        Self {
            settings,
            builder: StepBuilder::new(&problem, hessian, settings, make),
            current: Iterate::new(&problem),
            trial: Iterate::new(&problem),
            globalization: Globalization::new(0.0, &settings.tuning),
            start,
            stationarity: vec![0.0; n],
            secant_s: vec![0.0; n],
            secant_y: vec![0.0; n],
            relaxation,
            forced_shift: 0.0,
            curvature_scale: 1.0,
            smoothing: 0.0,
            history: Vec::new(),
            problem,
        }
    }

    /// Evaluates everything at the starting point.
    /// Evaluates everything at the problem's initial point, or at `from` (moved into the
    /// variable bounds) when given.
    fn initialize(&mut self, from: Option<&[f64]>) -> Result<(), String> {
        self.current.x = self.problem.initial_point()?;
        if let Some(x) = from {
            let bounds = self.problem.x_lower.iter().zip(&self.problem.x_upper);
            for ((xi, &v), (&l, &u)) in self.current.x.iter_mut().zip(x).zip(bounds) {
                *xi = v.clamp(l, u);
            }
        }
        self.current.evaluate_values(&mut self.problem)?;
        self.current
            .evaluate_derivatives(&mut self.problem, self.curvature_scale)?;
        let theta0 = self.current.theta(&self.problem);
        self.globalization = Globalization::new(theta0, &self.settings.tuning);
        Ok(())
    }

    fn residuals(&mut self) -> Residuals {
        let it = &self.current;
        let point = KktPoint {
            x: &it.x,
            gradient: &it.g,
            c: &it.c,
            jacobian_structure: &self.problem.jacobian_structure,
            jacobian: &it.jac,
            lambda: &it.lambda,
            z: &it.z,
        };
        let bounds = Bounds {
            x_lower: &self.problem.x_lower,
            x_upper: &self.problem.x_upper,
            c_lower: &self.problem.c_lower,
            c_upper: &self.problem.c_upper,
        };
        let mut r = residuals(&point, &bounds, &mut self.stationarity);
        r.complementarity_violation = self
            .problem
            .complementarity_violation(&it.x, &it.c[..self.problem.m_nlp]);
        r
    }

    /// Shrinks the complementarity relaxation once the relaxed problem is solved to the
    /// accuracy of the current relaxation (`Problem::next_relaxation`).
    fn update_relaxation(&mut self, r: &Residuals) -> bool {
        let next = self
            .problem
            .next_relaxation(self.relaxation, &self.current.c, r, self.settings);
        let Some(eps) = next else {
            return false;
        };
        self.relaxation = eps;
        self.problem.set_relaxation(eps);
        // The violations the filter holds were measured against the old relaxation.
        self.globalization.filter.clear();
        true
    }

    fn run(&mut self, observer: &mut dyn Observer, progress: &Progress) -> SolverResult {
        let mut step = StepInfo::default();
        let mut termination = Termination::new(self.settings, self.start);
        let mut iteration = 0;
        loop {
            let mut r = self.residuals();
            let relaxation_decreased = self.update_relaxation(&r);
            if relaxation_decreased {
                r = self.residuals();
            }
            let record = IterationRecord {
                iteration,
                objective: self.current.f,
                primal_infeasibility: r.primal_infeasibility,
                dual_infeasibility: r.dual_infeasibility,
                complementarity: r.complementarity,
                complementarity_violation: r.complementarity_violation,
                regularization: step.regularization,
                step_length: step.step_length,
                step_norm: step.step_norm,
                penalty: self.globalization.penalty,
                barrier: 0.0,
                smoothing: self.smoothing,
                qp_iterations: step.qp_iterations,
                qp_time_s: step.qp_time.as_secs_f64(),
                step_time_s: step.step_time.as_secs_f64(),
                factorizations: step.factorizations,
                backend_qp: step.backend_qp,
                elastic: step.elastic,
                second_order_correction: step.second_order_correction,
                merit_step: step.merit_step,
                restoration: step.restoration,
                hessian_reset: step.hessian_reset,
                relaxation_decreased,
            };
            observer.iteration(&record);
            progress.iteration(&record);
            self.history.push(record);

            if let Some((status, message)) = termination.check(&r, iteration, true) {
                return self.finish(status, message);
            }
            let (step_start, factorizations) = (Instant::now(), self.builder.factorizations());
            match self.step() {
                Ok(info) => {
                    step = info;
                    step.step_time = step_start.elapsed();
                    step.factorizations = self.builder.factorizations() - factorizations;
                }
                Err(stop) => {
                    let (status, message) =
                        termination.after_failure(&r, stop.status, stop.message);
                    return self.finish(status, message);
                }
            }
            iteration += 1;
        }
    }

    /// Computes a direction and a step along it, retrying with a stronger Hessian model when
    /// the QP or the line search fails.
    fn step(&mut self) -> Result<StepInfo, Stop> {
        let attempts = self.settings.tuning.step_attempts;
        let mut info = StepInfo::default();
        for attempt in 0..attempts {
            let last_attempt = attempt + 1 == attempts;
            let direction = match self.builder.direction(
                &mut self.problem,
                &self.current,
                self.forced_shift,
                self.settings,
                &mut info,
            ) {
                Ok(direction) => direction,
                Err(stop) if stop.status == Status::QpFailure && !last_attempt => {
                    self.strengthen_hessian(&mut info);
                    continue;
                }
                Err(stop) => return Err(stop),
            };
            self.globalization.update_penalty(&direction);
            let curvature_scale = self.next_curvature_scale(&direction);
            let mut search = Search {
                problem: &mut self.problem,
                builder: &mut self.builder,
                current: &self.current,
                trial: &mut self.trial,
                settings: self.settings,
                info: &mut info,
                curvature_scale,
            };
            if self
                .globalization
                .search(&mut search, &direction, last_attempt)
            {
                self.curvature_scale = curvature_scale;
                self.accept();
                self.forced_shift = 0.0;
                return Ok(info);
            }
            self.strengthen_hessian(&mut info);
        }
        Err(Stop::new(
            Status::LineSearchFailure,
            "no step length decreased the merit function, even with a reset Hessian model",
        ))
    }

    /// `τ` for the next iterate's Hessian: divided by `curvature_decrease` after a step whose
    /// QP with the exact model needed a shift above `curvature_shift` while the objective's
    /// own curvature needs none that large, multiplied by it (up to 1) after one that needed
    /// no shift.
    fn next_curvature_scale(&self, direction: &super::step::Direction) -> f64 {
        let t = &self.settings.tuning;
        let convex_objective = self
            .builder
            .objective_shift
            .is_some_and(|s| s <= t.curvature_shift);
        if !direction.exact_model {
            self.curvature_scale
        } else if direction.shift > t.curvature_shift && convex_objective {
            self.curvature_scale / t.curvature_decrease
        } else if direction.shift == 0.0 {
            (self.curvature_scale * t.curvature_decrease).min(1.0)
        } else {
            self.curvature_scale
        }
    }

    /// Makes the model more conservative after a failed attempt: a larger shift for the
    /// exact Hessian, a reset for BFGS.
    fn strengthen_hessian(&mut self, info: &mut StepInfo) {
        let t = &self.settings.tuning;
        if self.builder.hessian.is_exact() {
            self.forced_shift = (self.forced_shift * t.retry_shift_growth)
                .max(info.regularization * t.retry_shift_growth)
                .max(t.retry_shift_min);
        } else {
            self.builder.hessian.reset();
        }
        info.hessian_reset = true;
    }

    /// Moves to the accepted trial point and updates the quasi-Newton model.
    fn accept(&mut self) {
        if !self.builder.hessian.is_exact() {
            // s = x⁺ - x and y = ∇L(x⁺, λ⁺) - ∇L(x, λ⁺).
            let structure = &self.problem.jacobian_structure;
            let (current, trial) = (&self.current, &self.trial);
            self.secant_y.copy_from_slice(&trial.g);
            add_transpose_triplets(structure, &trial.jac, &trial.lambda, &mut self.secant_y);
            self.secant_s.copy_from_slice(&current.g);
            add_transpose_triplets(structure, &current.jac, &trial.lambda, &mut self.secant_s);
            for (((y, s), x), t) in self
                .secant_y
                .iter_mut()
                .zip(&mut self.secant_s)
                .zip(&current.x)
                .zip(&trial.x)
            {
                *y -= *s;
                *s = t - x;
            }
            self.builder
                .hessian
                .secant_update(&self.secant_s, &self.secant_y);
        }
        std::mem::swap(&mut self.current, &mut self.trial);
    }

    fn finish(&mut self, status: Status, message: impl Into<String>) -> SolverResult {
        let residuals = if self.current.f.is_finite() {
            self.residuals()
        } else {
            Residuals::default()
        };
        let m_nlp = self.problem.m_nlp;
        let it = &self.current;
        SolverResult {
            status,
            message: message.into(),
            method: Method::Sqp,
            x: it.x.clone(),
            objective: it.f,
            constraints: it.c[..m_nlp].to_vec(),
            constraint_multipliers: it.lambda[..m_nlp].to_vec(),
            bound_multipliers: it.z.clone(),
            complementarity_multipliers: it.lambda[m_nlp..].to_vec(),
            residuals,
            relaxation: self.relaxation,
            iterations: self.history.len().saturating_sub(1),
            qp_iterations: self.builder.qp_iterations,
            evaluations: self.problem.counts,
            timing: Timing {
                total: self.start.elapsed(),
                nlp_evaluation: self.problem.time,
                qp: self.builder.qp_time,
            },
            history: std::mem::take(&mut self.history),
        }
    }
}

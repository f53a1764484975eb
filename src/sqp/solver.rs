//! The SQP iteration: initialization, one step per iteration and the complementarity
//! relaxation homotopy, as an [`NlpMethod`] run by the loop both methods share
//! (`crate::nlp::iteration`), which `crate::optimizer` runs.
//!
//! The state of a solve is the current [`Iterate`] and a trial one, the step builder
//! (`step.rs`: Hessian model, QP data, working-set solver, backends) and the globalization
//! (`line_search.rs`: filter and merit penalty). Each iteration asks the builder for a
//! direction and the globalization for a step along it; a failed QP or line search retries the
//! step with a stronger Hessian model (a forced shift for exact Hessians, a reset for BFGS).

use std::time::Duration;

use super::hessian::HessianModel;
use super::iterate::Iterate;
use super::line_search::{Globalization, Search};
use super::quasi_newton::BlockBfgs;
use super::step::StepBuilder;
use crate::nlp::curvature_scale::next_curvature_scale;
use crate::nlp::iteration::{Current, NlpMethod, StepInfo, Stop};
use crate::nlp::outcome::{IterationRecord, Residuals, Status};
use crate::nlp::problem::Problem;
use crate::nlp::residuals::{KktPoint, residuals};
use crate::nlp::settings::{Method, QpBackend, Settings};
use crate::qp::ClarabelQp;
use crate::qp::QpSolver;
use crate::qp::sparse::add_transpose_triplets;

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

/// The state of one SQP solve.
pub(crate) struct Sqp<'s, 'p, 'f> {
    settings: &'s Settings,
    problem: Problem<'p>,
    /// The starting point instead of the problem's initial one.
    from: Option<&'f [f64]>,
    current: Iterate,
    trial: Iterate,
    builder: StepBuilder,
    globalization: Globalization,
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
}

impl<'s, 'p, 'f> Sqp<'s, 'p, 'f> {
    /// The SQP on `problem` from its initial point, or from `from`, its QP backends made by
    /// `make`.
    pub(crate) fn new(
        settings: &'s Settings,
        mut problem: Problem<'p>,
        make: &dyn Fn() -> Box<dyn QpSolver>,
        from: Option<&'f [f64]>,
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
            from,
            stationarity: vec![0.0; n],
            secant_s: vec![0.0; n],
            secant_y: vec![0.0; n],
            relaxation,
            forced_shift: 0.0,
            curvature_scale: 1.0,
            smoothing: 0.0,
            problem,
        }
    }

    /// Records `smoothing` as the problem's smoothing level with every iterate.
    pub(crate) fn at_smoothing(mut self, smoothing: f64) -> Self {
        self.smoothing = smoothing;
        self
    }

    /// Evaluates everything at the problem's initial point, or at `from` (moved into the
    /// variable bounds) when given.
    fn start_at(&mut self) -> Result<(), String> {
        self.current.x = self.problem.initial_point()?;
        if let Some(x) = self.from {
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

    fn kkt_residuals(&mut self) -> Residuals {
        let it = &self.current;
        let point = KktPoint::new(&it.x, &it.g, &it.c, &it.jac, &it.lambda, &it.z);
        residuals(&self.problem, &point, &mut self.stationarity)
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

    /// Computes a direction and a step along it, retrying with a stronger Hessian model when
    /// the QP or the line search fails.
    fn attempt_steps(&mut self, info: &mut StepInfo) -> Result<(), Stop> {
        let attempts = self.settings.tuning.step_attempts;
        for attempt in 0..attempts {
            let last_attempt = attempt + 1 == attempts;
            let direction = match self.builder.direction(
                &mut self.problem,
                &self.current,
                self.forced_shift,
                self.settings,
                info,
            ) {
                Ok(direction) => direction,
                Err(stop) if stop.status == Status::QpFailure && !last_attempt => {
                    self.strengthen_hessian(info);
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
                info,
                curvature_scale,
            };
            if self
                .globalization
                .search(&mut search, &direction, last_attempt)
            {
                self.curvature_scale = curvature_scale;
                self.accept();
                self.forced_shift = 0.0;
                return Ok(());
            }
            self.strengthen_hessian(info);
        }
        Err(Stop::new(
            Status::LineSearchFailure,
            "no step length decreased the merit function, even with a reset Hessian model",
        ))
    }

    /// `τ` for the next iterate's Hessian (`crate::nlp::curvature_scale`), after a step
    /// optimal for the exact model; unchanged after one of the backends' convex model.
    fn next_curvature_scale(&self, direction: &super::step::Direction) -> f64 {
        let t = &self.settings.tuning;
        let convex_objective = self
            .builder
            .objective_shift
            .is_some_and(|s| s <= t.curvature_shift);
        if direction.exact_model {
            next_curvature_scale(self.curvature_scale, direction.shift, convex_objective, t)
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
}

impl NlpMethod for Sqp<'_, '_, '_> {
    const METHOD: Method = Method::Sqp;

    fn initialize(&mut self) -> Result<(), Stop> {
        self.start_at()
            .map_err(|message| Stop::new(Status::EvaluationError, message))
    }

    fn update(&mut self) -> Result<(Residuals, bool), Stop> {
        let r = self.kkt_residuals();
        if self.update_relaxation(&r) {
            Ok((self.kkt_residuals(), true))
        } else {
            Ok((r, false))
        }
    }

    fn step(&mut self, info: &mut StepInfo) -> Result<(), Stop> {
        self.attempt_steps(info)
    }

    fn describe(&self, record: &mut IterationRecord) {
        record.objective = self.current.f;
        record.penalty = self.globalization.penalty;
        record.smoothing = self.smoothing;
    }

    fn residuals(&mut self) -> Residuals {
        self.kkt_residuals()
    }

    fn current(&self) -> Current<'_> {
        let it = &self.current;
        Current {
            x: &it.x,
            objective: it.f,
            c: &it.c,
            y: &it.lambda,
            z: &it.z,
            m_nlp: self.problem.m_nlp,
            relaxation: self.relaxation,
            evaluations: self.problem.counts,
            nlp_time: self.problem.time,
        }
    }

    fn factorizations(&self) -> usize {
        self.builder.factorizations()
    }

    fn linear_time(&self) -> Duration {
        self.builder.qp_time
    }
}

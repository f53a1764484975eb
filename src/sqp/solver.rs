//! The SQP iteration: initialization, one step per iteration, termination.

use std::io::Write;
use std::time::{Duration, Instant};

use nalgebra_sparse::CscMatrix;

use super::error::SqpError;
use super::filter::Filter;
use super::hessian::{ActiveSet, Convexification, ExactHessian};
use super::merit::violation;
use super::nlp::Nlp;
use super::outcome::{Residuals, SqpResult, Status, Timing};
use super::polish::Polish;
use super::problem::Problem;
use super::qp::{QpSolution, QpSolver};
use super::qp_clarabel::ClarabelQp;
use super::quasi_newton::BlockBfgs;
use super::report::{IterationRecord, LogObserver, Observer, Progress, SilentObserver};
use super::residuals::{Bounds, KktPoint, residuals};
use super::settings::{HessianStrategy, QpBackend, Settings};
use super::sparse::add_transpose_triplets;
use super::subspace::SubspaceStep;

/// Largest shift of the exact Hessian model kept before the model falls back to the
/// objective's curvature (see `Sqp::prepare_hessian`): small against the effort weights of
/// trajectory problems (10⁻²–10⁻¹ per torque and quadrature weight), so that a shift that
/// barely perturbs the model does not discard the constraints' curvature.
const OBJECTIVE_CURVATURE_SHIFT: f64 = 1e-3;

/// Damping of the objective-curvature model after one of its QPs failed, relative to the
/// model's largest entry (see `Sqp::convexify`).
const OBJECTIVE_MODEL_DAMPING: f64 = 1e-3;

/// The SQP solver: validated settings, reusable for any number of problems.
///
/// ```
/// use vito::sqp::{Settings, Solver};
/// # use vito::sqp::{EvalError, Nlp};
/// # struct Circle;
/// # impl Nlp for Circle {
/// #     fn num_variables(&self) -> usize { 2 }
/// #     fn num_constraints(&self) -> usize { 1 }
/// #     fn variable_bounds(&self, l: &mut [f64], u: &mut [f64]) {
/// #         l.fill(f64::NEG_INFINITY); u.fill(f64::INFINITY);
/// #     }
/// #     fn constraint_bounds(&self, l: &mut [f64], u: &mut [f64]) { l[0] = 2.0; u[0] = 2.0; }
/// #     fn initial_point(&self, x: &mut [f64]) { x.fill(-1.0); x[1] = 0.5; }
/// #     fn objective(&mut self, x: &[f64]) -> Result<f64, EvalError> { Ok(x[0] + x[1]) }
/// #     fn gradient(&mut self, _x: &[f64], g: &mut [f64]) -> Result<(), EvalError> {
/// #         g.fill(1.0); Ok(())
/// #     }
/// #     fn constraints(&mut self, x: &[f64], c: &mut [f64]) -> Result<(), EvalError> {
/// #         c[0] = x[0] * x[0] + x[1] * x[1]; Ok(())
/// #     }
/// #     fn jacobian_structure(&self) -> Vec<(usize, usize)> { vec![(0, 0), (0, 1)] }
/// #     fn jacobian_values(&mut self, x: &[f64], v: &mut [f64]) -> Result<(), EvalError> {
/// #         v[0] = 2.0 * x[0]; v[1] = 2.0 * x[1]; Ok(())
/// #     }
/// #     fn hessian_structure(&self) -> Option<Vec<(usize, usize)>> { Some(vec![(0, 0), (1, 1)]) }
/// #     fn hessian_values(&mut self, _x: &[f64], _s: f64, l: &[f64], v: &mut [f64])
/// #         -> Result<(), EvalError> { v.fill(2.0 * l[0]); Ok(()) }
/// # }
/// let solver = Solver::new(Settings { print_level: 0, ..Settings::default() })?;
/// let result = solver.solve(&mut Circle)?;
/// assert_eq!(result.status, vito::sqp::Status::Converged);
/// assert!((result.objective + 2.0).abs() < 1e-8);
/// # Ok::<(), vito::sqp::SqpError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Solver {
    settings: Settings,
}

impl Solver {
    /// A solver with `settings`, which are validated here.
    pub fn new(settings: Settings) -> Result<Self, SqpError> {
        settings.validate()?;
        Ok(Self { settings })
    }

    /// The settings in use.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Solves `nlp` without a log (the progress bar still appears if enabled, see
    /// [`Settings::progress_bar`]).
    pub fn solve(&self, nlp: &mut dyn Nlp) -> Result<SqpResult, SqpError> {
        self.solve_with_observer(nlp, &mut SilentObserver)
    }

    /// Solves `nlp`, writing the iteration table and summary to `log`.
    pub fn solve_with_log(
        &self,
        nlp: &mut dyn Nlp,
        log: &mut dyn Write,
    ) -> Result<SqpResult, SqpError> {
        let mut observer = LogObserver::new(log, self.settings.print_level);
        self.solve_with_observer(nlp, &mut observer)
    }

    /// Solves `nlp`, reporting every iterate to `observer`.
    ///
    /// Returns `Err` only for invalid input (inconsistent sizes, bounds or structures);
    /// every other outcome, including failures, is an [`SqpResult`] with its [`Status`].
    pub fn solve_with_observer(
        &self,
        nlp: &mut dyn Nlp,
        observer: &mut dyn Observer,
    ) -> Result<SqpResult, SqpError> {
        let start = Instant::now();
        let problem = Problem::new(nlp, self.settings.hessian == HessianStrategy::Exact)?;
        let mut sqp = Sqp::new(&self.settings, problem, start);
        let progress = Progress::new(
            self.settings.max_iterations,
            self.settings.progress_bar && self.settings.print_level > 0,
        );
        let result = match sqp.initialize() {
            Ok(()) => sqp.run(observer, &progress),
            Err(message) => sqp.finish(Status::EvaluationError, message),
        };
        progress.finish();
        observer.finish(&result);
        Ok(result)
    }
}

fn backend(settings: &Settings) -> Box<dyn QpSolver> {
    match settings.qp {
        QpBackend::Clarabel => Box::new(ClarabelQp::new(
            settings.qp_tolerance,
            settings.qp_max_iterations,
        )),
        #[cfg(feature = "osqp")]
        QpBackend::Osqp => Box::new(super::qp_osqp::OsqpQp::new(
            settings.qp_tolerance,
            settings.qp_max_iterations,
        )),
        // Rejected by `Settings::validate` in builds without the feature.
        #[cfg(not(feature = "osqp"))]
        QpBackend::Osqp => Box::new(ClarabelQp::new(
            settings.qp_tolerance,
            settings.qp_max_iterations,
        )),
    }
}

/// The Hessian model in use.
pub(super) enum HessianModel {
    Exact(Box<ExactHessian>),
    Bfgs(BlockBfgs),
}

impl HessianModel {
    pub(super) fn matrix(&self) -> &CscMatrix<f64> {
        match self {
            Self::Exact(h) => &h.assembly.matrix,
            Self::Bfgs(b) => &b.assembly.matrix,
        }
    }
}

/// Why the iteration stops early.
pub(super) struct Stop {
    pub(super) status: Status,
    pub(super) message: String,
}

impl Stop {
    pub(super) fn new(status: Status, message: impl Into<String>) -> Self {
        Self {
            status,
            message: message.into(),
        }
    }
}

/// Facts about one step, for the iteration record.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct StepInfo {
    pub(super) regularization: f64,
    pub(super) augmentation: f64,
    pub(super) step_length: f64,
    pub(super) step_norm: f64,
    pub(super) qp_iterations: usize,
    pub(super) qp_time: Duration,
    pub(super) step_time: Duration,
    pub(super) factorizations: usize,
    pub(super) elastic: bool,
    pub(super) second_order_correction: bool,
    pub(super) merit_step: bool,
    pub(super) restoration: bool,
    pub(super) hessian_reset: bool,
    pub(super) objective_curvature: bool,
}

/// The solver state of one solve. Vectors are allocated once here and reused.
pub(super) struct Sqp<'s, 'p> {
    pub(super) settings: &'s Settings,
    pub(super) problem: Problem<'p>,
    pub(super) subproblem: super::subproblem::Subproblem,
    pub(super) hessian: HessianModel,
    pub(super) qp: Box<dyn QpSolver>,
    pub(super) elastic_qp: Box<dyn QpSolver>,
    pub(super) restoration_qp: Box<dyn QpSolver>,
    pub(super) qp_solution: QpSolution,
    pub(super) polish: Polish,
    start: Instant,
    pub(super) qp_time: Duration,
    pub(super) qp_iterations: usize,
    /// Factorizations the QP backends reported so far.
    pub(super) backend_factorizations: usize,
    // The current iterate.
    pub(super) x: Vec<f64>,
    pub(super) f: f64,
    pub(super) g: Vec<f64>,
    pub(super) c: Vec<f64>,
    pub(super) jac: Vec<f64>,
    pub(super) hess: Vec<f64>,
    /// `∇²f` alone, for the fallback model (see [`ExactHessian`]).
    objective_hess: Vec<f64>,
    no_multipliers: Vec<f64>,
    pub(super) lambda: Vec<f64>,
    pub(super) z: Vec<f64>,
    // The step and its multipliers.
    pub(super) d: Vec<f64>,
    pub(super) lambda_step: Vec<f64>,
    pub(super) z_step: Vec<f64>,
    pub(super) jd: Vec<f64>,
    /// `J d` for the QP solution just computed (which may be a second-order correction).
    pub(super) qp_jd: Vec<f64>,
    /// Primal warm start of the QP: zeros, since steps shrink to zero near a solution.
    pub(super) warm_x: Vec<f64>,
    /// Dual warm start of the QP: the current multipliers (scaled like the QP).
    pub(super) warm_y: Vec<f64>,
    // The trial point.
    pub(super) x_trial: Vec<f64>,
    pub(super) f_trial: f64,
    pub(super) g_trial: Vec<f64>,
    pub(super) c_trial: Vec<f64>,
    pub(super) jac_trial: Vec<f64>,
    pub(super) hess_trial: Vec<f64>,
    pub(super) lambda_trial: Vec<f64>,
    pub(super) z_trial: Vec<f64>,
    pub(super) shifted: Vec<f64>,
    // Quasi-Newton secant pair.
    secant_s: Vec<f64>,
    secant_y: Vec<f64>,
    stationarity: Vec<f64>,
    pub(super) hd: Vec<f64>,
    /// Gradient of the Hessian model's augmentation penalty for the QP being posed.
    pub(super) penalty_gradient: Vec<f64>,
    pub(super) penalty: f64,
    /// The rows last posed were the second-order correction's `shifted` values, not `c`.
    pub(super) posed_shifted: bool,
    pub(super) filter: Filter,
    /// The previous objective-curvature step near feasibility (see `subspace.rs`).
    pub(super) subspace: SubspaceStep,
    relaxation: f64,
    relaxation_final: f64,
    pub(super) forced_shift: f64,
    /// A QP of the objective-curvature model failed: that model is damped from then on.
    pub(super) damp_objective_model: bool,
    /// Length of the last accepted step, at most 1: the QP step scale.
    pub(super) step_scale: f64,
    history: Vec<IterationRecord>,
}

impl<'s, 'p> Sqp<'s, 'p> {
    fn new(settings: &'s Settings, problem: Problem<'p>, start: Instant) -> Self {
        let (n, m) = (problem.n, problem.m());
        let subproblem = super::subproblem::Subproblem::new(
            n,
            m,
            &problem.x_lower,
            &problem.x_upper,
            &problem.jacobian_structure,
        );
        let hessian = match &problem.hessian_structure {
            Some(structure) => HessianModel::Exact(Box::new(ExactHessian::new(
                n,
                structure,
                m,
                &problem.jacobian_structure,
            ))),
            None => HessianModel::Bfgs(BlockBfgs::new(
                n,
                problem.groups.as_deref(),
                settings.dense_quasi_newton_limit,
            )),
        };
        let nnz_jac = problem.jacobian_structure.len();
        let nnz_hess = problem.hessian_structure.as_ref().map_or(0, Vec::len);
        let rows = m + subproblem.bounded().len();
        let relaxation = if problem.products.len() > 0 {
            settings.relaxation_initial
        } else {
            0.0
        };
        let mut problem = problem;
        problem.set_relaxation(relaxation);
        Self {
            settings,
            subproblem,
            hessian,
            qp: backend(settings),
            elastic_qp: backend(settings),
            restoration_qp: backend(settings),
            qp_solution: QpSolution::default(),
            polish: Polish::default(),
            start,
            qp_time: Duration::ZERO,
            qp_iterations: 0,
            backend_factorizations: 0,
            x: vec![0.0; n],
            f: f64::NAN,
            g: vec![0.0; n],
            c: vec![0.0; m],
            jac: vec![0.0; nnz_jac],
            hess: vec![0.0; nnz_hess],
            objective_hess: vec![0.0; nnz_hess],
            no_multipliers: vec![0.0; m],
            lambda: vec![0.0; m],
            z: vec![0.0; n],
            d: vec![0.0; n],
            lambda_step: vec![0.0; m],
            z_step: vec![0.0; n],
            jd: vec![0.0; m],
            qp_jd: vec![0.0; m],
            warm_x: vec![0.0; n],
            warm_y: vec![0.0; rows],
            x_trial: vec![0.0; n],
            f_trial: f64::NAN,
            g_trial: vec![0.0; n],
            c_trial: vec![0.0; m],
            jac_trial: vec![0.0; nnz_jac],
            hess_trial: vec![0.0; nnz_hess],
            lambda_trial: vec![0.0; m],
            z_trial: vec![0.0; n],
            shifted: vec![0.0; m],
            secant_s: vec![0.0; n],
            secant_y: vec![0.0; n],
            stationarity: vec![0.0; n],
            hd: vec![0.0; n],
            penalty_gradient: vec![0.0; n],
            penalty: 0.0,
            posed_shifted: false,
            filter: Filter::default(),
            subspace: SubspaceStep::new(n),
            relaxation,
            relaxation_final: 0.1 * settings.complementarity_tolerance.powi(2),
            forced_shift: 0.0,
            damp_objective_model: false,
            step_scale: 1.0,
            history: Vec::new(),
            problem,
        }
    }

    /// Evaluates everything at the starting point.
    fn initialize(&mut self) -> Result<(), String> {
        self.x = self.problem.initial_point()?;
        self.f = self.problem.objective(&self.x)?;
        self.problem.gradient(&self.x, &mut self.g)?;
        self.problem.constraints(&self.x, &mut self.c)?;
        self.problem.jacobian(&self.x, &self.c, &mut self.jac)?;
        if let HessianModel::Exact(_) = self.hessian {
            self.problem
                .hessian(&self.x, &self.c, &self.jac, &self.lambda, &mut self.hess)?;
        }
        self.filter = Filter::new(violation(
            &self.c,
            &self.problem.c_lower,
            &self.problem.c_upper,
        ));
        Ok(())
    }

    fn residuals(&mut self) -> Residuals {
        let point = KktPoint {
            x: &self.x,
            gradient: &self.g,
            c: &self.c,
            jacobian_structure: &self.problem.jacobian_structure,
            jacobian: &self.jac,
            lambda: &self.lambda,
            z: &self.z,
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
            .complementarity_violation(&self.x, &self.c[..self.problem.m_nlp]);
        r
    }

    fn converged(&self, r: &Residuals) -> bool {
        let s = self.settings;
        r.primal_infeasibility <= s.constraint_tolerance
            && r.dual_infeasibility <= s.tolerance
            && r.complementarity <= s.tolerance
            && r.complementarity_violation <= s.complementarity_tolerance
    }

    fn acceptable(&self, r: &Residuals) -> bool {
        let s = self.settings;
        r.primal_infeasibility <= s.acceptable_constraint_tolerance
            && r.dual_infeasibility <= s.acceptable_tolerance
            && r.complementarity <= s.acceptable_tolerance
            && r.complementarity_violation <= s.acceptable_constraint_tolerance
    }

    /// Shrinks the complementarity relaxation once the relaxed problem is solved to the
    /// accuracy of the current relaxation: KKT residuals within `max(tolerance, ε)` and every
    /// product within `2ε`.
    fn update_relaxation(&mut self, r: &Residuals) -> bool {
        let eps = self.relaxation;
        let s = self.settings;
        let products_violation = self.c[self.problem.m_nlp..]
            .iter()
            .fold(0.0, |a: f64, &p| a.max(p - eps));
        if self.problem.products.len() == 0
            || eps <= self.relaxation_final
            || r.complementarity_violation <= s.complementarity_tolerance
            || products_violation > eps
            || r.primal_infeasibility > s.constraint_tolerance.max(eps)
            || r.dual_infeasibility > s.tolerance.max(eps)
            || r.complementarity > s.tolerance.max(eps)
        {
            return false;
        }
        self.relaxation = (s.relaxation_decrease * eps).max(self.relaxation_final);
        self.problem.set_relaxation(self.relaxation);
        // The violations the filter holds were measured against the old relaxation.
        self.filter.clear();
        true
    }

    fn run(&mut self, observer: &mut dyn Observer, progress: &Progress) -> SqpResult {
        let mut step = StepInfo::default();
        let mut acceptable_count = 0;
        let mut iteration = 0;
        loop {
            let mut r = self.residuals();
            let relaxation_decreased = self.update_relaxation(&r);
            if relaxation_decreased {
                r = self.residuals();
            }
            let record = IterationRecord {
                iteration,
                objective: self.f,
                primal_infeasibility: r.primal_infeasibility,
                dual_infeasibility: r.dual_infeasibility,
                complementarity: r.complementarity,
                complementarity_violation: r.complementarity_violation,
                regularization: step.regularization,
                augmentation: step.augmentation,
                step_length: step.step_length,
                step_norm: step.step_norm,
                penalty: self.penalty,
                qp_iterations: step.qp_iterations,
                qp_time_s: step.qp_time.as_secs_f64(),
                step_time_s: step.step_time.as_secs_f64(),
                factorizations: step.factorizations,
                elastic: step.elastic,
                second_order_correction: step.second_order_correction,
                merit_step: step.merit_step,
                restoration: step.restoration,
                hessian_reset: step.hessian_reset,
                objective_curvature: step.objective_curvature,
                relaxation_decreased,
            };
            observer.iteration(&record);
            progress.iteration(&record);
            self.history.push(record);

            if self.converged(&r) {
                return self.finish(Status::Converged, "all tolerances met");
            }
            acceptable_count = if self.acceptable(&r) {
                acceptable_count + 1
            } else {
                0
            };
            if acceptable_count >= self.settings.acceptable_iterations {
                return self.finish(
                    Status::Acceptable,
                    format!("acceptable tolerances met for {acceptable_count} iterates"),
                );
            }
            if iteration >= self.settings.max_iterations {
                return self.finish(Status::MaxIterations, "iteration limit reached");
            }
            if let Some(limit) = self.settings.time_limit_s
                && self.start.elapsed().as_secs_f64() >= limit
            {
                return self.finish(Status::TimeLimit, "time limit reached");
            }
            let (step_start, factorizations) = (Instant::now(), self.factorizations());
            match self.step() {
                Ok(info) => {
                    step = info;
                    step.step_time = step_start.elapsed();
                    step.factorizations = self.factorizations() - factorizations;
                }
                Err(stop) if self.acceptable(&r) && stop.status != Status::LocallyInfeasible => {
                    return self.finish(
                        Status::Acceptable,
                        format!(
                            "acceptable tolerances met; cannot continue: {}",
                            stop.message
                        ),
                    );
                }
                Err(stop) => return self.finish(stop.status, stop.message),
            }
            iteration += 1;
        }
    }

    /// Numeric factorizations so far: the inertia tests', the polish's and the backends'.
    fn factorizations(&self) -> usize {
        let inertia = match &self.hessian {
            HessianModel::Exact(h) => h.factorizations(),
            HessianModel::Bfgs(_) => 0,
        };
        inertia + self.polish.factorizations + self.backend_factorizations
    }

    /// Computes a direction and a step along it, retrying with a stronger Hessian model when
    /// the QP or the line search fails.
    fn step(&mut self) -> Result<StepInfo, Stop> {
        const ATTEMPTS: usize = 4;
        let mut info = StepInfo::default();
        for attempt in 0..ATTEMPTS {
            self.prepare_hessian(&mut info)?;
            let direction = match self.direction(&mut info) {
                Ok(direction) => direction,
                Err(stop) if stop.status == Status::QpFailure && attempt + 1 < ATTEMPTS => {
                    self.strengthen_hessian(&mut info);
                    continue;
                }
                Err(stop) => return Err(stop),
            };
            if self.line_search(&direction, &mut info, attempt + 1 == ATTEMPTS)? {
                if direction.subspace && !(info.merit_step || info.restoration) {
                    self.subspace.remember(&self.x, &self.x_trial);
                } else {
                    self.subspace.forget();
                }
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

    /// Makes the model more conservative after a failed attempt: a larger shift for the
    /// exact Hessian, a reset for BFGS.
    fn strengthen_hessian(&mut self, info: &mut StepInfo) {
        match &mut self.hessian {
            HessianModel::Exact(_) => {
                self.forced_shift = (self.forced_shift * 100.0)
                    .max(info.regularization * 100.0)
                    .max(1e-2);
            }
            HessianModel::Bfgs(bfgs) => bfgs.reset(),
        }
        info.hessian_reset = true;
    }

    /// Assembles the Hessian model at the current point and records its convexification.
    ///
    /// When the exact `∇²L` needs a shift above [`OBJECTIVE_CURVATURE_SHIFT`] (it is
    /// indefinite on the null space of the active constraints), the model falls back to the
    /// objective's curvature `∇²f` alone, shifted only if that too is indefinite there: a
    /// shift large enough for `∇²L` can dwarf the
    /// objective (10²–10⁷ against effort weights of 10⁻², on the 12-link pendulum), and the
    /// steps then crawl. Near a solution that satisfies the second-order sufficient
    /// conditions the exact model needs no shift and is used again, keeping the fast local
    /// convergence.
    fn prepare_hessian(&mut self, info: &mut StepInfo) -> Result<(), Stop> {
        if !matches!(self.hessian, HessianModel::Exact(_)) {
            return Ok(());
        }
        let mut convexification = self.convexify(false)?;
        if convexification.shift > OBJECTIVE_CURVATURE_SHIFT {
            self.problem
                .hessian(
                    &self.x,
                    &self.c,
                    &self.jac,
                    &self.no_multipliers,
                    &mut self.objective_hess,
                )
                .map_err(|message| Stop::new(Status::EvaluationError, message))?;
            convexification = self.convexify(true)?;
            info.objective_curvature = true;
        }
        info.regularization = convexification.shift;
        info.augmentation = convexification.augmentation;
        Ok(())
    }

    /// Assembles and convexifies the exact Hessian model from `∇²L`, or from `∇²f` alone if
    /// `objective_only`.
    ///
    /// `∇²f` leaves the variables the objective does not weigh without curvature: the
    /// configurations, and in the collocation the velocities and accelerations. The QP then
    /// moves along the light directions of the mass matrix almost for free; on the 12-link
    /// pendulum (mass-matrix eigenvalues 5.5·10⁻³ to 4.9·10², equality Jacobian singular
    /// values down to 10⁻⁴) Hermite–Simpson QPs asked for acceleration steps of 10⁴, the
    /// Jacobians at the resulting points were nearly singular and Clarabel ended most QPs
    /// with `NumericalError` (still at objective 1318 after 318 iterations, against the
    /// 669.7 that the damped model reaches in 144). Once a QP of this model has failed, the
    /// model gets the shift floor [`OBJECTIVE_MODEL_DAMPING`]` · max |∇²f|`, a
    /// Levenberg–Marquardt term that bounds such steps. It is not applied before a failure:
    /// on problems whose QPs solve it only slows the steps down (pendulum_swingup_2 with
    /// simpson_vi then cycles to MaxIterations).
    fn convexify(&mut self, objective_only: bool) -> Result<Convexification, Stop> {
        let HessianModel::Exact(h) = &mut self.hessian else {
            return Ok(Convexification::default());
        };
        let (values, floor) = if objective_only {
            let damping = if self.damp_objective_model {
                let largest = self
                    .objective_hess
                    .iter()
                    .fold(0.0, |a: f64, v| a.max(v.abs()));
                OBJECTIVE_MODEL_DAMPING * largest
            } else {
                0.0
            };
            (&self.objective_hess, self.forced_shift.max(damping))
        } else {
            (&self.hess, self.forced_shift)
        };
        h.problem_values().copy_from_slice(values);
        let active = ActiveSet {
            c: &self.c,
            x: &self.x,
            c_lower: &self.problem.c_lower,
            c_upper: &self.problem.c_upper,
            lambda: &self.lambda,
            x_lower: &self.problem.x_lower,
            x_upper: &self.problem.x_upper,
            z: &self.z,
            active_multiplier: self.qp.active_multiplier(),
        };
        h.assemble(&self.jac, &active, floor).ok_or_else(|| {
            Stop::new(
                Status::QpFailure,
                "the Hessian could not be made positive definite",
            )
        })
    }

    /// Moves to the accepted trial point and updates multipliers and the quasi-Newton model.
    fn accept(&mut self) {
        let moved = self
            .x
            .iter()
            .zip(&self.x_trial)
            .fold(0.0, |a: f64, (x, t)| a.max((x - t).abs()));
        self.step_scale = moved.clamp(1e-12, 1.0);
        if let HessianModel::Bfgs(bfgs) = &mut self.hessian {
            // s = x⁺ - x and y = ∇L(x⁺, λ⁺) - ∇L(x, λ⁺).
            let structure = &self.problem.jacobian_structure;
            self.secant_y.copy_from_slice(&self.g_trial);
            add_transpose_triplets(
                structure,
                &self.jac_trial,
                &self.lambda_trial,
                &mut self.secant_y,
            );
            self.secant_s.copy_from_slice(&self.g);
            add_transpose_triplets(structure, &self.jac, &self.lambda_trial, &mut self.secant_s);
            for (((y, s), x), t) in self
                .secant_y
                .iter_mut()
                .zip(&mut self.secant_s)
                .zip(&self.x)
                .zip(&self.x_trial)
            {
                *y -= *s;
                *s = t - x;
            }
            bfgs.update(&self.secant_s, &self.secant_y);
        }
        std::mem::swap(&mut self.x, &mut self.x_trial);
        std::mem::swap(&mut self.g, &mut self.g_trial);
        std::mem::swap(&mut self.c, &mut self.c_trial);
        std::mem::swap(&mut self.jac, &mut self.jac_trial);
        std::mem::swap(&mut self.hess, &mut self.hess_trial);
        std::mem::swap(&mut self.lambda, &mut self.lambda_trial);
        std::mem::swap(&mut self.z, &mut self.z_trial);
        self.f = self.f_trial;
    }

    fn finish(&mut self, status: Status, message: impl Into<String>) -> SqpResult {
        let residuals = if self.f.is_finite() {
            self.residuals()
        } else {
            Residuals::default()
        };
        let m_nlp = self.problem.m_nlp;
        SqpResult {
            status,
            message: message.into(),
            x: self.x.clone(),
            objective: self.f,
            constraints: self.c[..m_nlp].to_vec(),
            constraint_multipliers: self.lambda[..m_nlp].to_vec(),
            bound_multipliers: self.z.clone(),
            complementarity_multipliers: self.lambda[m_nlp..].to_vec(),
            residuals,
            relaxation: self.relaxation,
            iterations: self.history.len().saturating_sub(1),
            qp_iterations: self.qp_iterations,
            evaluations: self.problem.counts,
            timing: Timing {
                total: self.start.elapsed(),
                nlp_evaluation: self.problem.time,
                qp: self.qp_time,
            },
            history: std::mem::take(&mut self.history),
        }
    }
}

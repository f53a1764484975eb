//! The entry point of vito's NLP solvers: [`Solver`], built from validated [`Settings`], runs
//! the method [`Settings::method`] chooses ([`Method`]) on an [`Nlp`]: the interior-point
//! method (`crate::interior`) or the SQP (`crate::sqp`), by default the first for problems
//! with exact Hessians and without complementarity pairs with the SQP as its fallback, the SQP
//! otherwise; also along a smoothing path of the problem's rows (`smoothing.rs`).

use std::fmt;
use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

use crate::interior::InteriorPoint;
use crate::nlp::iteration::solve;
use crate::nlp::outcome::{SolverResult, Status};
use crate::nlp::problem::Problem;
use crate::nlp::report::{LogObserver, Observer, Progress, SilentObserver};
use crate::nlp::settings::{HessianStrategy, Method, Settings};
use crate::nlp::{Nlp, SolverError};
use crate::qp::QpSolver;
use crate::sqp::{Sqp, default_backend};

/// Makes the QP backend instances of a solve (see [`Solver::with_qp_solver`]).
pub type QpSolverFactory = dyn Fn() -> Box<dyn QpSolver> + Send + Sync;

/// The SQP solver: validated settings, reusable for any number of problems.
///
/// ```
/// use vito::nlp::Settings;
/// use vito::optimizer::Solver;
/// # use vito::nlp::{EvalError, Nlp};
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
/// assert_eq!(result.status, vito::nlp::Status::Converged);
/// assert!((result.objective + 2.0).abs() < 1e-6);
/// # Ok::<(), vito::nlp::SolverError>(())
/// ```
#[derive(Clone)]
pub struct Solver {
    settings: Settings,
    qp_solver: Option<Arc<QpSolverFactory>>,
}

impl fmt::Debug for Solver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Solver")
            .field("settings", &self.settings)
            .field("user_qp_solver", &self.qp_solver.is_some())
            .finish()
    }
}

impl Solver {
    /// A solver with `settings`, which are validated here.
    pub fn new(settings: Settings) -> Result<Self, SolverError> {
        settings.validate()?;
        Ok(Self {
            settings,
            qp_solver: None,
        })
    }

    /// Uses the QP backends `make` returns instead of the one [`Settings::qp`] names. A solve
    /// makes three (for the regular, the elastic and the restoration subproblems, each keeping
    /// its own setup); they are given convex QPs (see [`QpSolver`]).
    pub fn with_qp_solver(
        mut self,
        make: impl Fn() -> Box<dyn QpSolver> + Send + Sync + 'static,
    ) -> Self {
        self.qp_solver = Some(Arc::new(make));
        self
    }

    /// The same solver with its tolerances loosened to at least `tolerance` (dual
    /// infeasibility) and `constraint_tolerance`, the acceptable ones with them.
    pub fn loosened(&self, tolerance: f64, constraint_tolerance: f64) -> Self {
        let mut settings = self.settings.clone();
        settings.tolerance = settings.tolerance.max(tolerance);
        settings.constraint_tolerance = settings.constraint_tolerance.max(constraint_tolerance);
        settings.acceptable_tolerance = settings.acceptable_tolerance.max(settings.tolerance);
        settings.acceptable_constraint_tolerance = settings
            .acceptable_constraint_tolerance
            .max(settings.constraint_tolerance);
        Self {
            settings,
            qp_solver: self.qp_solver.clone(),
        }
    }

    /// The settings in use.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Solves `nlp` without a log (the progress bar still appears if enabled, see
    /// [`Settings::progress_bar`]).
    pub fn solve(&self, nlp: &mut dyn Nlp) -> Result<SolverResult, SolverError> {
        self.solve_with_observer(nlp, &mut SilentObserver)
    }

    /// Solves `nlp`, writing the iteration table and summary to `log`.
    pub fn solve_with_log(
        &self,
        nlp: &mut dyn Nlp,
        log: &mut dyn Write,
    ) -> Result<SolverResult, SolverError> {
        let mut observer = LogObserver::new(log, self.settings.print_level);
        self.solve_with_observer(nlp, &mut observer)
    }

    /// Solves `nlp`, reporting every iterate to `observer`.
    ///
    /// Returns `Err` only for invalid input (inconsistent sizes, bounds or structures);
    /// every other outcome, including failures, is an [`SolverResult`] with its [`Status`].
    pub fn solve_with_observer(
        &self,
        nlp: &mut dyn Nlp,
        observer: &mut dyn Observer,
    ) -> Result<SolverResult, SolverError> {
        self.solve_warm(nlp, observer, None)
    }

    /// Solves `nlp` from its initial point with the multipliers of `warm`, an earlier solve of
    /// a problem with the same variables and rows (a homotopy's previous level); the
    /// interior-point method starts there with a small barrier parameter, the SQP uses the
    /// point alone. A `warm` of other sizes is ignored.
    pub fn solve_warm(
        &self,
        nlp: &mut dyn Nlp,
        observer: &mut dyn Observer,
        warm: Option<&SolverResult>,
    ) -> Result<SolverResult, SolverError> {
        let start = Instant::now();
        let settings = &self.settings;
        let exact = settings.hessian == HessianStrategy::Exact;
        let problem = Problem::new(nlp, exact)?;
        let method = settings
            .method
            .resolve(settings.hessian, problem.products.len());
        let progress = Progress::new(settings);
        if method == Method::Sqp {
            let result = self.run_sqp(problem, observer, &progress, start, None, 0.0);
            progress.finish();
            observer.finish(&result);
            return Ok(result);
        }
        let method = InteriorPoint::new(settings, problem).warm_from(warm);
        let interior = solve(method, settings, observer, &progress, start);
        progress.finish();
        observer.finish(&interior);
        let from = match fallback(settings, interior.status) {
            None => return Ok(interior),
            Some(Fallback::FromStart) => None,
            Some(Fallback::FromPoint) => Some(interior.x.clone()),
        };
        let problem = Problem::new(nlp, exact)?;
        let progress = Progress::new(settings);
        let sqp = self.run_sqp(problem, observer, &progress, start, from.as_deref(), 0.0);
        progress.finish();
        observer.finish(&sqp);
        Ok(after_fallback(interior, sqp))
    }

    /// The SQP from the problem's initial point, or from `from`; `smoothing` is the
    /// problem's smoothing level, for the iteration records (0 without one).
    pub(super) fn run_sqp(
        &self,
        problem: Problem<'_>,
        observer: &mut dyn Observer,
        progress: &Progress,
        start: Instant,
        from: Option<&[f64]>,
        smoothing: f64,
    ) -> SolverResult {
        let settings = &self.settings;
        let make = || -> Box<dyn QpSolver> {
            match &self.qp_solver {
                Some(make) => make(),
                None => default_backend(settings),
            }
        };
        let method = Sqp::new(settings, problem, &make, from).at_smoothing(smoothing);
        solve(method, settings, observer, progress, start)
    }
}

/// Where [`Method::Auto`] starts the SQP after the interior-point method ended.
pub(super) enum Fallback {
    /// From the problem's start: the interior-point method failed.
    FromStart,
    /// From the interior-point method's point: it ended `Acceptable`.
    FromPoint,
}

/// The SQP's fallback after the interior-point method ended with `status`, if `settings`
/// ask for one (`Method::Auto`) and the status calls for it.
pub(super) fn fallback(settings: &Settings, status: Status) -> Option<Fallback> {
    match status {
        _ if settings.method != Method::Auto => None,
        Status::Acceptable => Some(Fallback::FromPoint),
        Status::MaxIterations
        | Status::LineSearchFailure
        | Status::LocallyInfeasible
        | Status::QpFailure => Some(Fallback::FromStart),
        _ => None,
    }
}

/// The result after the SQP `sqp` ran on from the interior-point method's `interior`: the
/// SQP's point and status (the interior-point method's when it was `Acceptable` and the SQP
/// ended worse), with both histories, iterations, evaluations and times, and a message that
/// says what happened.
pub(super) fn after_fallback(interior: SolverResult, sqp: SolverResult) -> SolverResult {
    let solved = |s: Status| matches!(s, Status::Converged | Status::Acceptable);
    if interior.status == Status::Acceptable && !solved(sqp.status) {
        let mut kept = interior;
        kept.message = format!(
            "{} (the SQP from this point ended {:?}: {})",
            kept.message, sqp.status, sqp.message
        );
        kept.timing.total = sqp.timing.total;
        return kept;
    }
    let message = format!(
        "{} (the SQP, after the interior-point method ended {:?} after {} iterations: {})",
        sqp.message, interior.status, interior.iterations, interior.message
    );
    let mut sqp = interior.followed_by(sqp);
    sqp.message = message;
    sqp
}

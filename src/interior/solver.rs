//! The interior-point iteration: the starting point, the barrier parameter's updates, one
//! Newton step per iteration with its line search (`line_search.rs`) or the restoration phase
//! (`restoration.rs`), and termination on vito's own residuals.

use std::time::{Duration, Instant};

use super::direction::{Direction, NewtonSystem};
use super::point::{Layout, Point, Row};
use crate::nlp::filter::Filter;
use crate::nlp::outcome::{IterationRecord, Residuals, SolverResult, Status, Timing};
use crate::nlp::problem::Problem;
use crate::nlp::report::{Observer, Progress};
use crate::nlp::residuals::{Bounds, KktPoint, residuals};
use crate::nlp::settings::{Method, Settings, Tuning};
use crate::nlp::termination::Termination;
use crate::nlp::{InteriorSettings, SmoothingPath};
use crate::qp::sparse::add_transpose_triplets;

/// IPOPT's `s_max` (Wächter & Biegler 2006, Eq. 5): the multipliers' mean above which the
/// optimality error is scaled down.
const S_MAX: f64 = 100.0;

/// What happened in one iteration, for its record.
#[derive(Default, Clone, Copy)]
pub(super) struct StepInfo {
    pub(super) shift: f64,
    pub(super) alpha: f64,
    pub(super) step_norm: f64,
    pub(super) factorizations: usize,
    pub(super) solves: usize,
    pub(super) linear_time: Duration,
    pub(super) second_order_correction: bool,
    pub(super) restoration: bool,
}

/// Why the iteration stops.
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

/// The state of one interior-point solve.
pub(crate) struct InteriorPoint<'s, 'p> {
    pub(super) settings: &'s Settings,
    pub(super) problem: Problem<'p>,
    pub(super) layout: Layout,
    /// The current point and the line search's trial point.
    pub(super) cur: Point,
    pub(super) trial: Point,
    /// The Newton step and a second-order correction.
    pub(super) d: Direction,
    pub(super) soc: Direction,
    pub(super) newton: NewtonSystem,
    /// The barrier parameter `μ` and the fraction to the boundary `τ`.
    pub(super) mu: f64,
    pub(super) tau: f64,
    pub(super) filter: Filter,
    /// `τ_c`, the factor of the constraints' curvature in the Hessian (see `accept_trial`).
    pub(super) curvature_scale: f64,
    /// Whether the objective's Hessian is positive semidefinite at the start.
    objective_convex: bool,
    /// The solve started from an earlier solution's multipliers.
    warm: bool,
    /// The relaxation `ε` of the complementarity product rows.
    relaxation: f64,
    /// The path of the problem's smoothing parameter, driven with `μ`, and its value now.
    smoothing_path: Option<SmoothingPath>,
    smoothing: f64,
    start: Instant,
    pub(super) linear_time: Duration,
    history: Vec<IterationRecord>,
    /// Scratch: stationarity, vito's bound multipliers, scaled multipliers, row values
    /// (`J d`, corrections' residuals) and a right-hand side.
    stationarity: Vec<f64>,
    z: Vec<f64>,
    pub(super) scaled: Vec<f64>,
    pub(super) rows: Vec<f64>,
    rhs: Vec<f64>,
}

impl<'s, 'p> InteriorPoint<'s, 'p> {
    pub(crate) fn new(settings: &'s Settings, mut problem: Problem<'p>, start: Instant) -> Self {
        let relaxation = if problem.products.len() > 0 {
            settings.relaxation_initial
        } else {
            0.0
        };
        problem.set_relaxation(relaxation);
        let layout = Layout::new(&problem);
        let (n, m) = (problem.n, problem.m());
        let ip = &settings.tuning.interior;
        Self {
            settings,
            cur: Point::new(&problem),
            trial: Point::new(&problem),
            d: Direction::new(n, m),
            soc: Direction::new(n, m),
            newton: NewtonSystem::new(&problem, &layout),
            mu: ip.mu_initial,
            tau: ip.tau_min.max(1.0 - ip.mu_initial),
            filter: Filter::default(),
            curvature_scale: 1.0,
            objective_convex: false,
            warm: false,
            relaxation,
            smoothing_path: None,
            smoothing: 0.0,
            start,
            linear_time: Duration::ZERO,
            history: Vec::new(),
            stationarity: vec![0.0; n],
            z: vec![0.0; n],
            scaled: vec![0.0; m],
            rows: vec![0.0; m],
            rhs: vec![0.0; n + m],
            layout,
            problem,
        }
    }

    /// Drives the problem's smoothing parameter along `path` with the barrier parameter
    /// (`smoothing_for`, from the solve's first `μ` on) instead of solving one problem per
    /// smoothing level.
    pub(crate) fn with_smoothing(mut self, path: SmoothingPath) -> Self {
        self.smoothing_path = Some(path);
        self
    }

    /// The smoothing at barrier parameter `mu`: `μ_s² = ρ μ` (`smoothing_barrier_ratio`
    /// `ρ`), within the path, and the path's end once `μ` is at its smallest. A smoothed pair
    /// has `a·b = μ_s²` as a barrier term's `z·s = μ`, so both homotopies stay centred together.
    fn smoothing_for(&self, mu: f64) -> f64 {
        let Some(path) = self.smoothing_path else {
            return 0.0;
        };
        if mu <= self.mu_min() {
            return path.end;
        }
        (self.ip().smoothing_barrier_ratio * mu)
            .sqrt()
            .clamp(path.end, path.start)
    }

    /// Whether the problem solved now is the one asked for (the smoothing at its end).
    fn final_problem(&self) -> bool {
        self.smoothing_path
            .is_none_or(|path| self.smoothing <= path.end)
    }

    pub(super) fn ip(&self) -> &InteriorSettings {
        &self.settings.tuning.interior
    }

    pub(super) fn tuning(&self) -> &Tuning {
        &self.settings.tuning
    }

    /// Solves from the problem's initial point (with the multipliers of `warm`, an earlier
    /// solve of a problem with the same rows, when given) and reports every iterate to
    /// `observer`.
    pub(crate) fn solve(
        mut self,
        observer: &mut dyn Observer,
        progress: &Progress,
        warm: Option<&SolverResult>,
    ) -> SolverResult {
        if self.smoothing_path.is_some() {
            self.smoothing = self.smoothing_for(self.mu);
            self.problem.set_smoothing(self.smoothing);
        }
        match self.initialize(warm) {
            Ok(()) => self.run(observer, progress),
            Err(stop) => self.finish(stop.status, stop.message),
        }
    }

    /// The starting point (IPOPT's, Wächter & Biegler §3.6): `x₀` pushed inside its bounds,
    /// slacks at `c(x₀)` pushed inside theirs, bound multipliers at
    /// `bound_multiplier_initial` and row multipliers by least squares. A warm start keeps
    /// `warm`'s multipliers (`warm_multipliers`), pushes by `warm_push` only and starts at
    /// `μ = mu_warm`.
    fn initialize(&mut self, warm: Option<&SolverResult>) -> Result<(), Stop> {
        let evaluation = |e: String| Stop::new(Status::EvaluationError, e);
        let x0 = self.problem.initial_point().map_err(evaluation)?;
        let ip = self.ip().clone();
        let warm = warm.filter(|w| {
            w.bound_multipliers.len() == self.problem.n
                && w.constraint_multipliers.len() + w.complementarity_multipliers.len()
                    == self.problem.m()
        });
        self.warm = warm.is_some();
        let (kappa1, kappa2) = if self.warm {
            self.mu = ip.mu_warm;
            self.tau = ip.tau_min.max(1.0 - self.mu);
            (ip.warm_push, ip.warm_push)
        } else {
            (ip.bound_push, ip.bound_fraction)
        };
        for (j, &x) in x0.iter().enumerate() {
            let (l, u) = (self.problem.x_lower[j], self.problem.x_upper[j]);
            self.cur.x[j] = if self.layout.fixed[j] {
                x
            } else {
                pushed(x, l, u, kappa1, kappa2)
            };
        }
        self.cur
            .evaluate_values(&mut self.problem)
            .map_err(evaluation)?;
        for i in 0..self.problem.m() {
            self.cur.s[i] = match self.layout.rows[i] {
                Row::Inequality => {
                    let (l, u) = (self.problem.c_lower[i], self.problem.c_upper[i]);
                    pushed(self.cur.c[i], l, u, kappa1, kappa2)
                }
                _ => 0.0,
            };
        }
        let b = ip.bound_multiplier_initial;
        let on = |present: bool| if present { b } else { 0.0 };
        for j in 0..self.problem.n {
            self.cur.zl[j] = on(self.layout.lower[j]);
            self.cur.zu[j] = on(self.layout.upper[j]);
        }
        for i in 0..self.problem.m() {
            self.cur.vl[i] = on(self.layout.s_lower[i]);
            self.cur.vu[i] = on(self.layout.s_upper[i]);
        }
        self.problem
            .gradient(&self.cur.x, &mut self.cur.g)
            .map_err(evaluation)?;
        self.problem
            .jacobian(&self.cur.x, &self.cur.c, &mut self.cur.jac)
            .map_err(evaluation)?;
        match warm {
            Some(w) => self.warm_multipliers(w),
            None => self.least_squares_multipliers(),
        }
        // The objective's own curvature decides whether the curvature scale may shrink.
        self.scaled.fill(0.0);
        let p = &mut self.cur;
        self.problem
            .hessian(&p.x, &p.c, &p.jac, &self.scaled, &mut p.hess)
            .map_err(evaluation)?;
        self.objective_convex =
            self.newton
                .positive_semidefinite(&self.problem, &self.layout, &self.cur.hess);
        let p = &mut self.cur;
        self.problem
            .hessian(&p.x, &p.c, &p.jac, &p.y, &mut p.hess)
            .map_err(evaluation)?;
        let theta = self.cur.theta(&self.layout, &self.problem);
        self.filter = Filter::new(theta, self.tuning());
        Ok(())
    }

    /// The multipliers of `warm`: `y` as they are (zero on rows without bounds), each bound
    /// multiplier from the sign of vito's `z` (of `y` for a slack's bounds), at least `μ /
    /// distance`, the central value at this point.
    fn warm_multipliers(&mut self, warm: &SolverResult) {
        let m_nlp = self.problem.m_nlp;
        let (mu, p) = (self.mu, &mut self.cur);
        p.y[..m_nlp].copy_from_slice(&warm.constraint_multipliers);
        p.y[m_nlp..].copy_from_slice(&warm.complementarity_multipliers);
        let (xl, xu, cl, cu) = self.problem.bounds();
        for j in 0..p.x.len() {
            let z = warm.bound_multipliers[j];
            if self.layout.lower[j] {
                p.zl[j] = (-z).max(mu / (p.x[j] - xl[j]));
            }
            if self.layout.upper[j] {
                p.zu[j] = z.max(mu / (xu[j] - p.x[j]));
            }
        }
        for i in 0..p.s.len() {
            if self.layout.rows[i] == Row::Free {
                p.y[i] = 0.0;
            }
            if self.layout.s_lower[i] {
                p.vl[i] = (-p.y[i]).max(mu / (p.s[i] - cl[i]));
            }
            if self.layout.s_upper[i] {
                p.vu[i] = p.y[i].max(mu / (cu[i] - p.s[i]));
            }
        }
    }

    /// `y` minimizing the dual infeasibility at the current point (IPOPT's least-squares
    /// estimate): `[I Jᵀ; J −D] [w; y] = [−(∇f − z_L + z_U); −(v_U − v_L)]`, `D` the rows'
    /// regularization plus 1 on inequality rows (the slacks' identity block); zero where it is
    /// larger than `multiplier_initial_max` or cannot be computed.
    pub(super) fn least_squares_multipliers(&mut self) {
        let timer = Instant::now();
        let (n, m) = (self.problem.n, self.problem.m());
        let ip = self.ip().clone();
        self.cur.y.fill(0.0);
        if self
            .newton
            .factor_identity(&self.problem, &self.layout, &self.cur, &ip)
        {
            let p = &self.cur;
            for j in 0..n {
                self.rhs[j] = if self.layout.fixed[j] {
                    0.0
                } else {
                    -(p.g[j] - p.zl[j] + p.zu[j])
                };
            }
            for i in 0..m {
                self.rhs[n + i] = match self.layout.rows[i] {
                    Row::Inequality => -(p.vu[i] - p.vl[i]),
                    _ => 0.0,
                };
            }
            self.newton.kkt.solve(&mut self.rhs);
            let y = &self.rhs[n..];
            let largest = y.iter().fold(0.0_f64, |a, v| a.max(v.abs()));
            if largest.is_finite() && largest <= ip.multiplier_initial_max {
                for (i, row) in self.layout.rows.iter().enumerate() {
                    if *row != Row::Free {
                        self.cur.y[i] = y[i];
                    }
                }
            }
        }
        self.linear_time += timer.elapsed();
    }

    /// vito's residuals at the current point (`residuals.rs`), with `z = z_U − z_L` (a fixed
    /// variable's closes its stationarity) and the complementarity of the slacks, which carry
    /// the rows' bounds.
    fn residuals(&mut self) -> Residuals {
        let p = &self.cur;
        self.stationarity.copy_from_slice(&p.g);
        add_transpose_triplets(
            &self.problem.jacobian_structure,
            &p.jac,
            &p.y,
            &mut self.stationarity,
        );
        for j in 0..p.x.len() {
            self.z[j] = if self.layout.fixed[j] {
                -self.stationarity[j]
            } else {
                p.zu[j] - p.zl[j]
            };
        }
        let point = KktPoint {
            x: &p.x,
            gradient: &p.g,
            c: &p.c,
            jacobian_structure: &self.problem.jacobian_structure,
            jacobian: &p.jac,
            lambda: &p.y,
            z: &self.z,
        };
        let bounds = Bounds {
            x_lower: &self.problem.x_lower,
            x_upper: &self.problem.x_upper,
            c_lower: &self.problem.c_lower,
            c_upper: &self.problem.c_upper,
        };
        let mut r = residuals(&point, &bounds, &mut self.stationarity);
        r.complementarity = self.complementarity(0.0);
        r.complementarity_violation = self
            .problem
            .complementarity_violation(&p.x, &p.c[..self.problem.m_nlp]);
        r
    }

    /// The largest `|z · distance − mu|` over the bounds of the variables and the slacks,
    /// divided by IPOPT's scale `s_c = max(1, mean z / 100)` of the bound multipliers.
    fn complementarity(&self, mu: f64) -> f64 {
        let p = &self.cur;
        let (xl, xu, cl, cu) = self.problem.bounds();
        let (mut largest, mut sum, mut count) = (0.0_f64, 0.0, 0usize);
        let mut add = |z: f64, distance: f64| {
            largest = largest.max((z * distance - mu).abs());
            sum += z;
            count += 1;
        };
        for j in 0..p.x.len() {
            if self.layout.lower[j] {
                add(p.zl[j], p.x[j] - xl[j]);
            }
            if self.layout.upper[j] {
                add(p.zu[j], xu[j] - p.x[j]);
            }
        }
        for i in 0..p.s.len() {
            if self.layout.s_lower[i] {
                add(p.vl[i], p.s[i] - cl[i]);
            }
            if self.layout.s_upper[i] {
                add(p.vu[i], cu[i] - p.s[i]);
            }
        }
        let s_c = (sum / count.max(1) as f64).max(S_MAX) / S_MAX;
        largest / s_c
    }

    /// The barrier subproblem's error `E_μ` (the paper's Eq. 5): the larger of the scaled
    /// dual infeasibility (of `x` and of the slacks), the largest residual of the barrier
    /// problem's equalities and the complementarity's distance from `μ`.
    fn barrier_error(&self, r: &Residuals) -> f64 {
        let p = &self.cur;
        let (mut primal, mut slack_dual) = (0.0_f64, 0.0_f64);
        for i in 0..p.s.len() {
            primal = primal.max(p.row_residual(&self.layout, &self.problem, i).abs());
            if self.layout.rows[i] == Row::Inequality {
                slack_dual = slack_dual.max((p.vu[i] - p.vl[i] - p.y[i]).abs());
            }
        }
        r.dual_infeasibility
            .max(slack_dual)
            .max(primal)
            .max(self.complementarity(self.mu))
    }

    /// The smallest barrier parameter, IPOPT's `ε_tol / (κ_ε + 1)`: the complementarity it
    /// leaves is below the tolerance.
    pub(super) fn mu_min(&self) -> f64 {
        self.settings.tolerance / (self.ip().barrier_tolerance_factor + 1.0)
    }

    /// Decreases `μ` while the barrier subproblem is solved to `κ_ε μ`: the monotone
    /// Fiacco–McCormick update of the paper (Eq. 7), `μ ← max(μ_min, min(κ_μ μ, μ^θ_μ))`, with
    /// `τ = max(τ_min, 1 − μ)` and an empty filter (its bounds stay those of the start).
    fn update_barrier(&mut self, r: &Residuals) {
        let ip = self.ip().clone();
        let mut decreased = false;
        while self.mu > self.mu_min()
            && self.barrier_error(r) <= ip.barrier_tolerance_factor * self.mu
        {
            self.mu = (ip.mu_linear_decrease * self.mu)
                .min(self.mu.powf(ip.mu_superlinear_decrease))
                .max(self.mu_min());
            self.tau = ip.tau_min.max(1.0 - self.mu);
            decreased = true;
        }
        if decreased {
            self.filter.clear();
        }
    }

    /// Moves the smoothing to the barrier parameter's (`smoothing_for`) and evaluates the
    /// current point's rows again; whether it moved.
    fn update_smoothing(&mut self) -> Result<bool, Stop> {
        let next = self.smoothing_for(self.mu);
        if self.smoothing_path.is_none() || next == self.smoothing {
            return Ok(false);
        }
        self.smoothing = next;
        self.problem.set_smoothing(next);
        let evaluation = |e: String| Stop::new(Status::EvaluationError, e);
        self.cur
            .evaluate_values(&mut self.problem)
            .map_err(evaluation)?;
        self.cur
            .evaluate_derivatives(&mut self.problem, self.curvature_scale, &mut self.scaled)
            .map_err(evaluation)?;
        self.filter.clear();
        Ok(true)
    }

    /// Shrinks the complementarity relaxation once the relaxed problem is solved to its
    /// accuracy (`Problem::next_relaxation`), moving the product rows' slacks below the new
    /// bound by `bound_fraction` of it; the filter starts afresh.
    fn update_relaxation(&mut self, r: &Residuals) -> bool {
        let next = self
            .problem
            .next_relaxation(self.relaxation, &self.cur.c, r, self.settings);
        let Some(eps) = next else {
            return false;
        };
        self.relaxation = eps;
        self.problem.set_relaxation(eps);
        let fraction = self.ip().bound_fraction;
        for i in self.problem.m_nlp..self.problem.m() {
            self.cur.s[i] = self.cur.s[i].min((1.0 - fraction) * eps);
        }
        self.filter.clear();
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
            self.update_barrier(&r);
            match self.update_smoothing() {
                Ok(true) => r = self.residuals(),
                Ok(false) => {}
                Err(stop) => return self.finish(stop.status, stop.message),
            }
            let record = IterationRecord {
                iteration,
                objective: self.cur.f,
                primal_infeasibility: r.primal_infeasibility,
                dual_infeasibility: r.dual_infeasibility,
                complementarity: r.complementarity,
                complementarity_violation: r.complementarity_violation,
                regularization: step.shift,
                step_length: step.alpha,
                step_norm: step.step_norm,
                barrier: self.mu,
                smoothing: self.smoothing,
                qp_iterations: step.solves,
                qp_time_s: step.linear_time.as_secs_f64(),
                factorizations: step.factorizations,
                second_order_correction: step.second_order_correction,
                restoration: step.restoration,
                relaxation_decreased,
                ..IterationRecord::default()
            };
            observer.iteration(&record);
            progress.iteration(&record);
            self.history.push(record);
            if let Some((status, message)) = termination.check(&r, iteration, self.final_problem())
            {
                return self.finish(status, message);
            }
            let (timer, factorizations) = (Instant::now(), self.newton.kkt.factorizations());
            let linear = self.linear_time;
            step = StepInfo::default();
            if let Err(stop) = self.step(&mut step) {
                let (status, message) = if self.final_problem() {
                    termination.after_failure(&r, stop.status, stop.message)
                } else {
                    (stop.status, stop.message)
                };
                return self.finish(status, message);
            }
            step.factorizations = self.newton.kkt.factorizations() - factorizations;
            step.linear_time = self.linear_time - linear;
            if let Some(last) = self.history.last_mut() {
                last.step_time_s = timer.elapsed().as_secs_f64();
            }
            iteration += 1;
        }
    }

    /// One iteration: the Newton step, its line search (or the restoration phase when the
    /// line search fails), and the new point's derivatives.
    fn step(&mut self, info: &mut StepInfo) -> Result<(), Stop> {
        let timer = Instant::now();
        let ip = self.ip().clone();
        let hess = std::mem::take(&mut self.cur.hess);
        let factored = self.newton.factor(
            &self.problem,
            &self.layout,
            &self.cur,
            &hess,
            &ip,
            &self.settings.tuning.inertia,
        );
        self.cur.hess = hess;
        if !factored {
            self.linear_time += timer.elapsed();
            return Err(Stop::new(
                Status::QpFailure,
                "no Hessian shift gave the Newton system the right inertia",
            ));
        }
        info.shift = self.newton.shift;
        let (cur, layout, problem) = (&self.cur, &self.layout, &self.problem);
        self.newton.solve(
            problem,
            layout,
            cur,
            self.mu,
            &ip,
            |i| cur.row_residual(layout, problem, i),
            None,
            &mut self.d,
        );
        info.solves += 1;
        self.linear_time += timer.elapsed();
        info.step_norm = self.d.dx.iter().fold(0.0, |a: f64, v| a.max(v.abs()));
        if !self.line_search(info) {
            info.restoration = true;
            self.restore(info)?;
        }
        self.accept_trial()
    }

    /// Evaluates the accepted trial point's derivatives with the curvature scale of the next
    /// Hessian and makes it the current point.
    ///
    /// The Hessian is `∇²f + τ_c Σ yᵢ∇²cᵢ`, vito's guard against poor multipliers far from a
    /// solution (the SQP's, `crate::sqp`): `τ_c` is divided by `curvature_decrease` after a
    /// step that needed a shift above `curvature_shift` — only on a cold start whose
    /// objective is convex — and multiplied by it, up to 1, after one that needed none. Near
    /// a solution no step needs a shift, `τ_c = 1` and the Newton steps are exact. Measured
    /// (`docs/benchmarks.md`): without it the single pendulum's swing-up follows a near-singular
    /// Newton step of 30 rad to a local optimum 50 times worse (as IPOPT does on the same
    /// NLP); on a warm start its multipliers are the last solution's and the contact rows'
    /// curvature is what the step needs.
    fn accept_trial(&mut self) -> Result<(), Stop> {
        let t = self.tuning();
        let shrink = !self.warm && self.objective_convex && self.newton.shift > t.curvature_shift;
        if shrink {
            self.curvature_scale /= t.curvature_decrease;
        } else if self.newton.shift == 0.0 {
            self.curvature_scale = (self.curvature_scale * t.curvature_decrease).min(1.0);
        }
        self.trial
            .evaluate_derivatives(&mut self.problem, self.curvature_scale, &mut self.scaled)
            .map_err(|e| Stop::new(Status::EvaluationError, e))?;
        std::mem::swap(&mut self.cur, &mut self.trial);
        Ok(())
    }

    fn finish(&mut self, status: Status, message: impl Into<String>) -> SolverResult {
        let residuals = if self.cur.f.is_finite() {
            self.residuals()
        } else {
            Residuals::default()
        };
        let m_nlp = self.problem.m_nlp;
        let p = &self.cur;
        SolverResult {
            status,
            message: message.into(),
            method: Method::InteriorPoint,
            x: p.x.clone(),
            objective: p.f,
            constraints: p.c[..m_nlp].to_vec(),
            constraint_multipliers: p.y[..m_nlp].to_vec(),
            bound_multipliers: self.z.clone(),
            complementarity_multipliers: p.y[m_nlp..].to_vec(),
            residuals,
            relaxation: self.relaxation,
            iterations: self.history.len().saturating_sub(1),
            qp_iterations: self.history.iter().map(|r| r.qp_iterations).sum(),
            evaluations: self.problem.counts,
            timing: Timing {
                total: self.start.elapsed(),
                nlp_evaluation: self.problem.time,
                qp: self.linear_time,
            },
            history: std::mem::take(&mut self.history),
        }
    }
}

/// `value` moved inside `[lower, upper]` by `κ₁ max(1, |bound|)`, at most `κ₂` of the
/// interval's width (IPOPT's `bound_push` and `bound_frac`); the midpoint of an interval too
/// narrow for both.
fn pushed(value: f64, lower: f64, upper: f64, kappa1: f64, kappa2: f64) -> f64 {
    let width = upper - lower;
    let push = |bound: f64| {
        let p = kappa1 * bound.abs().max(1.0);
        if width.is_finite() {
            p.min(kappa2 * width)
        } else {
            p
        }
    };
    let mut v = value;
    if lower.is_finite() {
        v = v.max(lower + push(lower));
    }
    if upper.is_finite() {
        v = v.min(upper - push(upper));
    }
    if width.is_finite() && !(v > lower && v < upper) {
        v = 0.5 * (lower + upper);
    }
    v
}

#[cfg(test)]
mod tests {
    use super::pushed;

    #[test]
    fn starting_values_are_pushed_inside_their_bounds() {
        let inf = f64::INFINITY;
        // One-sided: by 1e-2 max(1, |bound|).
        assert_eq!(pushed(0.0, 0.0, inf, 1e-2, 1e-2), 1e-2);
        assert_eq!(pushed(-500.0, -200.0, inf, 1e-2, 1e-2), -198.0);
        assert_eq!(pushed(3.0, -inf, 3.0, 1e-2, 1e-2), 2.97);
        // Inside already: unchanged.
        assert_eq!(pushed(0.5, 0.0, 1.0, 1e-2, 1e-2), 0.5);
        // Two-sided and narrow: at most a fraction of the width.
        assert!((pushed(0.0, 0.0, 1e-3, 1e-2, 1e-2) - 1e-5).abs() < 1e-18);
        // Free: unchanged.
        assert_eq!(pushed(7.0, -inf, inf, 1e-2, 1e-2), 7.0);
    }
}

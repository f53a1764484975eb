//! The interior-point iteration: the starting point, the barrier parameter's updates, one
//! Newton step per iteration with its line search (`line_search.rs`) or the restoration phase
//! (`restoration.rs`), as an [`NlpMethod`] run by the loop both methods share
//! (`crate::nlp::iteration`), which ends it on vito's own residuals.

use std::time::{Duration, Instant};

use super::direction::{Direction, NewtonSystem};
use super::point::{Layout, Point, Row};
use super::retreat::{Checkpoint, barrier_decrease};
use crate::nlp::curvature_scale::next_curvature_scale;
use crate::nlp::filter::Filter;
use crate::nlp::iteration::{Current, NlpMethod, StepInfo, Stop};
use crate::nlp::outcome::{IterationRecord, Residuals, SolverResult, Status};
use crate::nlp::problem::Problem;
use crate::nlp::residuals::{KktPoint, residuals};
use crate::nlp::settings::{Method, Settings, Tuning};
use crate::nlp::{InteriorSettings, SmoothingPath};
use crate::qp::sparse::add_transpose_triplets;

/// IPOPT's `s_max` (Wächter & Biegler 2006, Eq. 5): the multipliers' mean above which the
/// optimality error is scaled down.
const S_MAX: f64 = 100.0;

/// The state of one interior-point solve.
pub(crate) struct InteriorPoint<'s, 'p, 'w> {
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
    /// The last solved barrier subproblem, to return to when the next fails (`retreat.rs`).
    pub(super) checkpoint: Option<Checkpoint>,
    /// `μ` stays at the next update (a retreat's subproblem is solved first).
    pub(super) barrier_held: bool,
    /// The current point is a retreat's (for the iteration's record).
    pub(super) retreated: bool,
    /// The least ratio `μ_next / μ` of a barrier decrease: 0 until a subproblem is retried,
    /// then the retried decrease's (`retreat.rs`).
    pub(super) least_decrease: f64,
    /// Whether the objective's Hessian is positive semidefinite at the start.
    objective_convex: bool,
    /// An earlier solve of a problem with the same rows to start from (`warm_from`).
    warm_start: Option<&'w SolverResult>,
    /// The solve started from an earlier solution's multipliers.
    warm: bool,
    /// The relaxation `ε` of the complementarity product rows.
    pub(super) relaxation: f64,
    /// The path of the problem's smoothing parameter, driven with `μ`, and its value now.
    pub(super) smoothing_path: Option<SmoothingPath>,
    pub(super) smoothing: f64,
    pub(super) linear_time: Duration,
    /// Scratch: stationarity, vito's bound multipliers, scaled multipliers, row values
    /// (`J d`, corrections' residuals) and a right-hand side.
    stationarity: Vec<f64>,
    z: Vec<f64>,
    pub(super) scaled: Vec<f64>,
    pub(super) rows: Vec<f64>,
    rhs: Vec<f64>,
}

impl<'s, 'p, 'w> InteriorPoint<'s, 'p, 'w> {
    pub(crate) fn new(settings: &'s Settings, mut problem: Problem<'p>) -> Self {
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
            newton: NewtonSystem::new(&problem, &layout, &settings.tuning.inertia),
            mu: ip.mu_initial,
            tau: ip.tau_min.max(1.0 - ip.mu_initial),
            filter: Filter::default(),
            curvature_scale: 1.0,
            checkpoint: None,
            barrier_held: false,
            retreated: false,
            least_decrease: 0.0,
            objective_convex: false,
            warm_start: None,
            warm: false,
            relaxation,
            smoothing_path: None,
            smoothing: 0.0,
            linear_time: Duration::ZERO,
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

    pub(super) fn ip(&self) -> &InteriorSettings {
        &self.settings.tuning.interior
    }

    pub(super) fn tuning(&self) -> &Tuning {
        &self.settings.tuning
    }

    /// Starts from the multipliers of `warm`, an earlier solve of a problem with the same
    /// rows, when given (one of other sizes is ignored).
    pub(crate) fn warm_from(mut self, warm: Option<&'w SolverResult>) -> Self {
        self.warm_start = warm;
        self
    }

    /// The first barrier parameter of a warm start: along a smoothing path, the one whose
    /// smoothing is the path's end (`μ = μ_s² / ρ`, at least `μ_min`), where the warm point
    /// was solved (the last terrain step of a continuation, `transcription/continuation.rs`);
    /// otherwise `mu_warm`. The starting point is still evaluated at the smoothing of the
    /// first `μ` (`initialize`: the path's start), so the slacks of the rows whose bounds
    /// scale with `μ_s²` (the contact term's reach and knot power rows) start well inside
    /// their bounds, and the smoothing moves to the end with the first update. Measured on
    /// the jump's box raised by 5 mm: so, 16 iterations; with the smoothing at its end from
    /// the start (those slacks at their bounds), the step fails after 100, as steps of 1.25 mm
    /// do (`docs/benchmarks.md`, "The terrain walk").
    fn warm_mu(&self) -> f64 {
        match self.smoothing_path {
            Some(path) => {
                (path.end * path.end / self.ip().smoothing_barrier_ratio).max(self.mu_min())
            }
            None => self.ip().mu_warm,
        }
    }

    /// The starting point (IPOPT's, Wächter & Biegler §3.6): `x₀` pushed inside its bounds,
    /// slacks at `c(x₀)` pushed inside theirs, bound multipliers at
    /// `bound_multiplier_initial` and row multipliers by least squares. A warm start keeps
    /// `warm`'s multipliers (`warm_multipliers`), pushes by `warm_push` only and starts at
    /// `μ = warm_mu()`.
    fn start_at(&mut self) -> Result<(), Stop> {
        let evaluation = |e: String| Stop::new(Status::EvaluationError, e);
        let x0 = self.problem.initial_point().map_err(evaluation)?;
        let ip = self.ip().clone();
        let warm = self.warm_start.filter(|w| {
            w.bound_multipliers.len() == self.problem.n
                && w.constraint_multipliers.len() + w.complementarity_multipliers.len()
                    == self.problem.m()
        });
        self.warm = warm.is_some();
        let (kappa1, kappa2) = if self.warm {
            self.mu = self.warm_mu();
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
    fn kkt_residuals(&mut self) -> Residuals {
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
        let point = KktPoint::new(&p.x, &p.g, &p.c, &p.jac, &p.y, &self.z);
        let mut r = residuals(&self.problem, &point, &mut self.stationarity);
        r.complementarity = self.complementarity(0.0);
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
    pub(super) fn barrier_error(&self, r: &Residuals) -> f64 {
        let p = &self.cur;
        let mut slack_dual = 0.0_f64;
        for i in 0..p.s.len() {
            if self.layout.rows[i] == Row::Inequality {
                slack_dual = slack_dual.max((p.vu[i] - p.vl[i] - p.y[i]).abs());
            }
        }
        r.dual_infeasibility
            .max(slack_dual)
            .max(p.largest_residual(&self.layout, &self.problem))
            .max(self.complementarity(self.mu))
    }

    /// The smallest barrier parameter, IPOPT's `ε_tol / (κ_ε + 1)`: the complementarity it
    /// leaves is below the tolerance.
    pub(super) fn mu_min(&self) -> f64 {
        self.settings.tolerance / (self.ip().barrier_tolerance_factor + 1.0)
    }

    /// Decreases `μ` while the barrier subproblem is solved to `κ_ε μ`: the monotone
    /// Fiacco–McCormick update of the paper (Eq. 7), `μ ← max(μ_min, min(κ_μ μ, μ^θ_μ))`, with
    /// `τ = max(τ_min, 1 − μ)` and an empty filter (its bounds stay those of the start). The
    /// solved subproblem's point is kept (`retreat.rs`); after a retreat `μ` is held once, and
    /// no later decrease is steeper than the retried one (`least_decrease`).
    fn update_barrier(&mut self, r: &Residuals) {
        if std::mem::take(&mut self.barrier_held) {
            return;
        }
        let ip = self.ip().clone();
        let solved = self.mu;
        let mut decreased = false;
        while self.mu > self.mu_min()
            && self.barrier_error(r) <= ip.barrier_tolerance_factor * self.mu
        {
            self.mu = barrier_decrease(self.mu, &ip, self.least_decrease).max(self.mu_min());
            self.tau = ip.tau_min.max(1.0 - self.mu);
            decreased = true;
        }
        if decreased {
            self.filter.clear();
            self.checkpoint = Some(Checkpoint::new(
                &self.cur,
                solved,
                self.smoothing,
                self.relaxation,
                self.curvature_scale,
                self.mu,
            ));
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

    /// One iteration: the Newton step, its line search (or the restoration phase when the
    /// line search fails), and the new point's derivatives.
    fn newton_step(&mut self, info: &mut StepInfo) -> Result<(), Stop> {
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
        info.regularization = self.newton.shift;
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
        info.linear_solves += 1;
        self.linear_time += timer.elapsed();
        info.step_norm = self.d.dx.iter().fold(0.0, |a: f64, v| a.max(v.abs()));
        if !self.line_search(info) {
            info.restoration = true;
            self.restore(info)?;
        }
        self.accept_trial()
    }

    /// Evaluates the accepted trial point's derivatives with the curvature scale `τ_c` of the
    /// next Hessian (`crate::nlp::curvature_scale`; it may shrink only on a cold start whose
    /// objective is convex: on a warm start the multipliers are the last solution's and the
    /// contact rows' curvature is what the step needs) and makes it the current point.
    fn accept_trial(&mut self) -> Result<(), Stop> {
        let may_shrink = !self.warm && self.objective_convex;
        self.curvature_scale = next_curvature_scale(
            self.curvature_scale,
            self.newton.shift,
            may_shrink,
            self.tuning(),
        );
        self.trial
            .evaluate_derivatives(&mut self.problem, self.curvature_scale, &mut self.scaled)
            .map_err(|e| Stop::new(Status::EvaluationError, e))?;
        std::mem::swap(&mut self.cur, &mut self.trial);
        Ok(())
    }
}

impl NlpMethod for InteriorPoint<'_, '_, '_> {
    const METHOD: Method = Method::InteriorPoint;

    fn initialize(&mut self) -> Result<(), Stop> {
        if self.smoothing_path.is_some() {
            self.smoothing = self.smoothing_for(self.mu);
            self.problem.set_smoothing(self.smoothing);
        }
        self.start_at()
    }

    /// The relaxation's, then the barrier parameter's, then the smoothing's update.
    fn update(&mut self) -> Result<(Residuals, bool), Stop> {
        let mut r = self.kkt_residuals();
        let relaxation_decreased = self.update_relaxation(&r);
        if relaxation_decreased {
            r = self.kkt_residuals();
        }
        if self.retreat_if_stalled(&r) {
            r = self.kkt_residuals();
        }
        self.update_barrier(&r);
        if self.update_smoothing()? {
            r = self.kkt_residuals();
        }
        Ok((r, relaxation_decreased))
    }

    fn final_problem(&self) -> bool {
        self.smoothing_path
            .is_none_or(|path| self.smoothing <= path.end)
    }

    fn step(&mut self, info: &mut StepInfo) -> Result<(), Stop> {
        self.retreated = false;
        match self.newton_step(info) {
            Err(stop) => self.retreat_after(stop),
            stepped => stepped,
        }
    }

    fn describe(&self, record: &mut IterationRecord) {
        record.objective = self.cur.f;
        record.barrier = self.mu;
        record.smoothing = self.smoothing;
        record.retreat = self.retreated;
    }

    fn residuals(&mut self) -> Residuals {
        self.kkt_residuals()
    }

    fn current(&self) -> Current<'_> {
        let p = &self.cur;
        Current {
            x: &p.x,
            objective: p.f,
            c: &p.c,
            y: &p.y,
            z: &self.z,
            m_nlp: self.problem.m_nlp,
            relaxation: self.relaxation,
            evaluations: self.problem.counts,
            nlp_time: self.problem.time,
        }
    }

    fn factorizations(&self) -> usize {
        self.newton.kkt.factorizations()
    }

    fn linear_time(&self) -> Duration {
        self.linear_time
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

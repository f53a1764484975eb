//! The filter line search of the barrier problem (Wächter & Biegler 2006, §2.3–2.4).
//!
//! Along the Newton step the trial points `x + α d` start at the fraction to the boundary
//! `α_max` (every distance to a bound keeps at least `1 − τ` of its value) and halve. A trial
//! point is accepted when the filter (pairs `(θ, φ_μ)`, `crate::nlp::filter`) does not
//! dominate it and either the switching condition `α (−∇φᵀd)^s_φ > δ θ^s_θ` holds at a nearly
//! feasible point and `φ_μ` falls by Armijo's rule (an f-type step), or `θ` or `φ_μ` falls by a
//! margin of `θ` (then the filter takes the current pair). When the first trial point is
//! rejected with a larger violation, up to `soc_max` second-order corrections re-solve the step
//! with the rows' residuals `α c(x) + c(x + α d)` (accumulated); below `α_min` (Eq. 23) the
//! search gives up and the restoration phase takes over. The multipliers follow with the
//! primal step length (`y`) and their own fraction to the boundary (the bound multipliers),
//! kept within `κ_Σ` of `μ / distance` (Eq. 16).

use std::time::Instant;

use super::direction::Direction;
use super::point::{Row, barrier_gradient};
use super::solver::InteriorPoint;
use crate::nlp::filter::{LinePoint, Verdict};
use crate::nlp::iteration::StepInfo;

/// The step length's factor after a rejected trial point (IPOPT's default, also of the
/// restoration phase's search).
pub(super) const BACKTRACK: f64 = 0.5;

impl InteriorPoint<'_, '_, '_> {
    /// The largest step in `(0, 1]` along `d` that keeps every distance to a bound above
    /// `1 − τ` of its current value: of the primal variables and slacks (`primal`), or of the
    /// bound multipliers.
    pub(super) fn fraction_to_boundary(&self, d: &Direction, primal: bool) -> f64 {
        let (p, tau) = (&self.cur, self.tau);
        let mut alpha: f64 = 1.0;
        let mut limit = |value: f64, step: f64| {
            if step < 0.0 {
                alpha = alpha.min(-tau * value / step);
            }
        };
        let (xl, xu, cl, cu) = self.problem.bounds();
        for j in 0..p.x.len() {
            if self.layout.lower[j] {
                if primal {
                    limit(p.x[j] - xl[j], d.dx[j]);
                } else {
                    limit(p.zl[j], d.dzl[j]);
                }
            }
            if self.layout.upper[j] {
                if primal {
                    limit(xu[j] - p.x[j], -d.dx[j]);
                } else {
                    limit(p.zu[j], d.dzu[j]);
                }
            }
        }
        for i in 0..p.s.len() {
            if self.layout.s_lower[i] {
                if primal {
                    limit(p.s[i] - cl[i], d.ds[i]);
                } else {
                    limit(p.vl[i], d.dvl[i]);
                }
            }
            if self.layout.s_upper[i] {
                if primal {
                    limit(cu[i] - p.s[i], -d.ds[i]);
                } else {
                    limit(p.vu[i], d.dvu[i]);
                }
            }
        }
        alpha
    }

    /// The slope of the barrier terms at `mu` along `(dx, ds)` at the current point (without
    /// the objective's).
    pub(super) fn barrier_slope(&self, d: &Direction, mu: f64) -> f64 {
        let (p, damping) = (&self.cur, self.ip().damping);
        let (problem, layout) = (&self.problem, &self.layout);
        let mut slope = 0.0;
        for j in 0..p.x.len() {
            if !layout.fixed[j] {
                let bounds = (problem.x_lower[j], problem.x_upper[j]);
                let has = (layout.lower[j], layout.upper[j]);
                slope += barrier_gradient(p.x[j], bounds, has, mu, damping) * d.dx[j];
            }
        }
        for i in 0..p.s.len() {
            if layout.rows[i] == Row::Inequality {
                let bounds = (problem.c_lower[i], problem.c_upper[i]);
                let has = (layout.s_lower[i], layout.s_upper[i]);
                slope += barrier_gradient(p.s[i], bounds, has, mu, damping) * d.ds[i];
            }
        }
        slope
    }

    /// Sets the trial point's primal part to the current one plus `alpha d` and evaluates
    /// `f`, `c` there; its `(θ, φ_μ)`, or `None` where the problem cannot be evaluated.
    pub(super) fn try_point(&mut self, d: &Direction, alpha: f64) -> Option<(f64, f64)> {
        let (cur, trial) = (&self.cur, &mut self.trial);
        for (t, (x, dx)) in trial.x.iter_mut().zip(cur.x.iter().zip(&d.dx)) {
            *t = x + alpha * dx;
        }
        for (t, (s, ds)) in trial.s.iter_mut().zip(cur.s.iter().zip(&d.ds)) {
            *t = s + alpha * ds;
        }
        trial.evaluate_values(&mut self.problem).ok()?;
        let theta = self.trial.theta(&self.layout, &self.problem);
        let damping = self.ip().damping;
        let phi = self
            .trial
            .barrier(&self.layout, &self.problem, self.mu, damping);
        (theta.is_finite() && phi.is_finite()).then_some((theta, phi))
    }

    /// Backtracks along the Newton step; `true` with the trial point holding the accepted
    /// primal and dual values (derivatives not yet evaluated), `false` below `α_min`.
    pub(super) fn line_search(&mut self, info: &mut StepInfo) -> bool {
        let damping = self.ip().damping;
        let theta = self.cur.theta(&self.layout, &self.problem);
        let phi = self
            .cur
            .barrier(&self.layout, &self.problem, self.mu, damping);
        let d = std::mem::take(&mut self.d);
        let slope =
            d.dx.iter()
                .zip(&self.cur.g)
                .map(|(dx, g)| dx * g)
                .sum::<f64>()
                + self.barrier_slope(&d, self.mu);
        let p = LinePoint::new(theta, phi, slope, self.tuning());
        let alpha_min = self.filter.min_step(&p, self.tuning());
        let mut alpha = self.fraction_to_boundary(&d, true);
        let mut first = true;
        let accepted = loop {
            if let Some(trial) = self.try_point(&d, alpha) {
                let verdict = self
                    .filter
                    .verdict(&p, alpha, trial.0, trial.1, self.tuning());
                if verdict != Verdict::Reject {
                    self.take_duals(&d, alpha);
                    if verdict == Verdict::FilterStep {
                        self.augment_filter(p.theta, p.f);
                    }
                    info.step_length = alpha;
                    break true;
                }
                let corrected = first
                    && trial.0 >= theta
                    && self.settings.second_order_correction
                    && self.second_order_correction(alpha, &p, trial.0, info);
                if corrected {
                    break true;
                }
            }
            first = false;
            alpha *= BACKTRACK;
            if alpha < alpha_min {
                break false;
            }
        };
        self.d = d;
        accepted
    }

    /// Adds the margin pair `((1 − γ_θ) θ, φ − γ_φ θ)` of the current point to the filter.
    pub(super) fn augment_filter(&mut self, theta: f64, phi: f64) {
        self.filter.augment(theta, phi, &self.settings.tuning);
    }

    /// Up to `soc_max` second-order corrections after the first trial point (step `alpha`,
    /// violation `theta_trial`) was rejected; `true` with the trial point set when one is
    /// accepted.
    fn second_order_correction(
        &mut self,
        alpha: f64,
        current: &LinePoint,
        theta_trial: f64,
        info: &mut StepInfo,
    ) -> bool {
        let ip = self.ip().clone();
        for i in 0..self.rows.len() {
            self.rows[i] = alpha * self.cur.row_residual(&self.layout, &self.problem, i)
                + self.trial.row_residual(&self.layout, &self.problem, i);
        }
        let mut theta_old = theta_trial;
        let mut soc = std::mem::take(&mut self.soc);
        let mut accepted = false;
        for _ in 0..ip.soc_max {
            let timer = Instant::now();
            let (cur, rows) = (&self.cur, &self.rows);
            self.newton.solve(
                &self.problem,
                &self.layout,
                cur,
                self.mu,
                &ip,
                |i| rows[i],
                None,
                &mut soc,
            );
            info.linear_solves += 1;
            self.linear_time += timer.elapsed();
            let alpha_soc = self.fraction_to_boundary(&soc, true);
            let Some(trial) = self.try_point(&soc, alpha_soc) else {
                break;
            };
            let verdict = self
                .filter
                .verdict(current, alpha, trial.0, trial.1, self.tuning());
            if verdict != Verdict::Reject {
                self.take_duals(&soc, alpha_soc);
                if verdict == Verdict::FilterStep {
                    self.augment_filter(current.theta, current.f);
                }
                info.step_length = alpha_soc;
                info.second_order_correction = true;
                accepted = true;
                break;
            }
            if trial.0 > ip.soc_kappa * theta_old {
                break;
            }
            theta_old = trial.0;
            for i in 0..self.rows.len() {
                self.rows[i] = alpha_soc * self.rows[i]
                    + self.trial.row_residual(&self.layout, &self.problem, i);
            }
        }
        self.soc = soc;
        accepted
    }

    /// The trial point's multipliers: `y` with the primal step `alpha`, the bound multipliers
    /// with their own fraction to the boundary, then kept within `κ_Σ` of `μ / distance`.
    pub(super) fn take_duals(&mut self, d: &Direction, alpha: f64) {
        let alpha_z = self.fraction_to_boundary(d, false);
        let (mu, k) = (self.mu, self.ip().kappa_sigma);
        let (cur, trial) = (&self.cur, &mut self.trial);
        for i in 0..cur.y.len() {
            trial.y[i] = cur.y[i] + alpha * d.dy[i];
            trial.vl[i] = cur.vl[i] + alpha_z * d.dvl[i];
            trial.vu[i] = cur.vu[i] + alpha_z * d.dvu[i];
        }
        for j in 0..cur.x.len() {
            trial.zl[j] = cur.zl[j] + alpha_z * d.dzl[j];
            trial.zu[j] = cur.zu[j] + alpha_z * d.dzu[j];
        }
        let clamp = |z: f64, distance: f64| z.min(k * mu / distance).max(mu / (k * distance));
        let (xl, xu, cl, cu) = self.problem.bounds();
        for j in 0..trial.x.len() {
            if self.layout.lower[j] {
                trial.zl[j] = clamp(trial.zl[j], trial.x[j] - xl[j]);
            }
            if self.layout.upper[j] {
                trial.zu[j] = clamp(trial.zu[j], xu[j] - trial.x[j]);
            }
        }
        for i in 0..trial.s.len() {
            if self.layout.s_lower[i] {
                trial.vl[i] = clamp(trial.vl[i], trial.s[i] - cl[i]);
            }
            if self.layout.s_upper[i] {
                trial.vu[i] = clamp(trial.vu[i], cu[i] - trial.s[i]);
            }
        }
    }
}

//! The feasibility restoration phase, when the filter line search accepts no step.
//!
//! Levenberg–Marquardt steps on `½‖r(x, s)‖²`, `r` the barrier problem's equality residuals,
//! with the barrier terms at `μ_R = min(μ, restoration_barrier · ½‖r₀‖²)`, divided by ten
//! (down to the least barrier parameter) whenever the barrier outweighs the residual (the step
//! would not decrease `‖r‖`), and the regularization `ζ = ‖r‖₂` (Fan & Yuan's
//! choice), each step cut to the fraction to the boundary and backtracked by Armijo's rule on
//! that merit, until the filter (with the starting point added, as IPOPT does) accepts a point
//! whose violation is below `restoration_reduction` of the starting one. The bound
//! multipliers are then raised to their central values `μ / distance` where they fell below
//! them, and the row multipliers re-estimated by least squares. A step that promises to remove
//! less than `restoration_stationary` of `‖r‖²` to first order, or that cannot decrease the
//! merit, ends the solve `LocallyInfeasible`: the violation is stationary there.
//!
//! This replaces IPOPT's restoration phase (an interior-point solve of an ℓ1-elastic problem)
//! by a plainer one; measured on the Hock–Schittkowski problems from perturbed starts
//! (`tests/interior_point.rs`), every one of 102 runs converges.

use std::time::Instant;

use super::direction::Direction;
use super::line_search::BACKTRACK;
use super::point::{Point, Row};
use super::solver::InteriorPoint;
use crate::nlp::iteration::{StepInfo, Stop};
use crate::nlp::outcome::Status;

/// The factor of the restoration phase's barrier parameter while its Newton step is not yet
/// a descent direction of the residual (IPOPT's monotone decrease, `κ_μ = 0.1`).
const RESTORATION_BARRIER_DECREASE: f64 = 0.1;

impl InteriorPoint<'_, '_, '_> {
    /// `Σ rᵢ²` at `p`.
    fn residual_squares(&self, p: &Point) -> f64 {
        (0..p.c.len())
            .map(|i| p.row_residual(&self.layout, &self.problem, i).powi(2))
            .sum()
    }

    /// `½‖r‖²` plus the barrier terms at `mu`: the restoration phase's merit at `p`.
    fn restoration_merit(&self, p: &Point, mu: f64) -> f64 {
        let barrier = p.barrier(&self.layout, &self.problem, mu, self.ip().damping) - p.f;
        0.5 * self.residual_squares(p) + barrier
    }

    /// Runs the restoration phase from the current point; the trial point holds the result.
    pub(super) fn restore(&mut self, info: &mut StepInfo) -> Result<(), Stop> {
        let damping = self.ip().damping;
        let theta0 = self.cur.theta(&self.layout, &self.problem);
        let phi0 = self
            .cur
            .barrier(&self.layout, &self.problem, self.mu, damping);
        self.augment_filter(theta0, phi0);
        let mut d = std::mem::take(&mut self.d);
        let result = self.restoration_steps(&mut d, theta0, info);
        self.d = d;
        result?;
        // The accepted point: central bound multipliers, least-squares row multipliers.
        std::mem::swap(&mut self.cur, &mut self.trial);
        self.recenter_bound_multipliers();
        let evaluation = |e: String| Stop::new(Status::EvaluationError, e);
        let p = &mut self.cur;
        self.problem.gradient(&p.x, &mut p.g).map_err(evaluation)?;
        self.problem
            .jacobian(&p.x, &p.c, &mut p.jac)
            .map_err(evaluation)?;
        self.least_squares_multipliers();
        std::mem::swap(&mut self.cur, &mut self.trial);
        Ok(())
    }

    /// Raises every bound multiplier of the current point to at least `μ / distance`.
    fn recenter_bound_multipliers(&mut self) {
        let (mu, p) = (self.mu, &mut self.cur);
        let (xl, xu, cl, cu) = self.problem.bounds();
        for j in 0..p.x.len() {
            if self.layout.lower[j] {
                p.zl[j] = p.zl[j].max(mu / (p.x[j] - xl[j]));
            }
            if self.layout.upper[j] {
                p.zu[j] = p.zu[j].max(mu / (xu[j] - p.x[j]));
            }
        }
        for i in 0..p.s.len() {
            if self.layout.s_lower[i] {
                p.vl[i] = p.vl[i].max(mu / (p.s[i] - cl[i]));
            }
            if self.layout.s_upper[i] {
                p.vu[i] = p.vu[i].max(mu / (cu[i] - p.s[i]));
            }
        }
    }

    /// The phase's iterations; `Ok` with the accepted point in the trial point.
    fn restoration_steps(
        &mut self,
        d: &mut Direction,
        theta0: f64,
        info: &mut StepInfo,
    ) -> Result<(), Stop> {
        let ip = self.ip().clone();
        let mut mu_r = self
            .mu
            .min(ip.restoration_barrier * 0.5 * self.residual_squares(&self.cur));
        for _ in 0..ip.restoration_iterations {
            let timer = Instant::now();
            let zeta = self
                .residual_squares(&self.cur)
                .sqrt()
                .max(ip.restoration_regularization);
            if !self
                .newton
                .factor_restoration(&self.problem, &self.layout, &self.cur, zeta, &ip)
            {
                self.linear_time += timer.elapsed();
                return Err(Stop::new(
                    Status::LineSearchFailure,
                    "the restoration phase's Newton system could not be factored",
                ));
            }
            // The direction at `μ_R`; where the barrier outweighs the residual (the residual's
            // slope is not negative enough), again with `μ_R` divided by ten, down to `μ_min`.
            let squares = self.residual_squares(&self.cur);
            let residual_slope = loop {
                let (cur, layout, problem) = (&self.cur, &self.layout, &self.problem);
                self.newton.solve(
                    problem,
                    layout,
                    cur,
                    mu_r,
                    &ip,
                    |i| cur.row_residual(layout, problem, i),
                    Some(zeta),
                    d,
                );
                info.linear_solves += 1;
                let slope = self.residual_slope(d);
                if -slope > ip.restoration_stationary * squares || mu_r <= self.mu_min() {
                    break slope;
                }
                mu_r = (RESTORATION_BARRIER_DECREASE * mu_r).max(self.mu_min());
            };
            self.linear_time += timer.elapsed();
            let slope = residual_slope + self.barrier_slope(d, mu_r);
            let theta = self.cur.theta(&self.layout, &self.problem);
            let largest = self.cur.largest_residual(&self.layout, &self.problem);
            let feasible = largest <= self.settings.constraint_tolerance;
            let stationary = || stationary_violation(theta, largest, feasible);
            let descends = slope < 0.0;
            if !descends || -residual_slope <= ip.restoration_stationary * squares {
                return Err(stationary());
            }
            let merit = self.restoration_merit(&self.cur, mu_r);
            let mut alpha = self.fraction_to_boundary(d, true);
            let accepted = loop {
                if self.try_point(d, alpha).is_some()
                    && self.restoration_merit(&self.trial, mu_r)
                        <= merit + ip.restoration_armijo * alpha * slope
                {
                    break true;
                }
                alpha *= BACKTRACK;
                if alpha < ip.restoration_min_step {
                    break false;
                }
            };
            if !accepted {
                return Err(stationary());
            }
            self.take_duals(d, alpha);
            let theta = self.trial.theta(&self.layout, &self.problem);
            let phi = self
                .trial
                .barrier(&self.layout, &self.problem, self.mu, ip.damping);
            if theta <= ip.restoration_reduction * theta0 && self.filter.acceptable(theta, phi) {
                info.step_length = alpha;
                return Ok(());
            }
            // The row multipliers stay those of the phase's start.
            self.trial.y.copy_from_slice(&self.cur.y);
            let t = &mut self.trial;
            self.problem
                .jacobian(&t.x, &t.c, &mut t.jac)
                .map_err(|e| Stop::new(Status::EvaluationError, e))?;
            std::mem::swap(&mut self.cur, &mut self.trial);
        }
        Err(Stop::new(
            Status::LineSearchFailure,
            "the restoration phase reached no point the filter accepts",
        ))
    }

    /// `rᵀ(J dx − ds)`: the slope of `½‖r‖²` along `d` at the current point.
    fn residual_slope(&mut self, d: &Direction) -> f64 {
        self.rows.fill(0.0);
        for (&(i, j), &v) in self.problem.jacobian_structure.iter().zip(&self.cur.jac) {
            self.rows[i] += v * d.dx[j];
        }
        (0..self.rows.len())
            .map(|i| {
                let r = self.cur.row_residual(&self.layout, &self.problem, i);
                match self.layout.rows[i] {
                    Row::Equality => r * self.rows[i],
                    Row::Inequality => r * (self.rows[i] - d.ds[i]),
                    Row::Free => 0.0,
                }
            })
            .sum()
    }
}

/// The end of a restoration phase that cannot decrease the violation `theta` (1-norm;
/// `largest` its largest row): `LocallyInfeasible`, unless every row already meets the
/// constraint tolerance (`feasible`): then the line search, not the constraints, failed, and
/// the status says so (a feasible point is no evidence of infeasibility).
fn stationary_violation(theta: f64, largest: f64, feasible: bool) -> Stop {
    if feasible {
        Stop::new(
            Status::LineSearchFailure,
            format!(
                "the line search accepts no step from a point that meets the constraints \
                 (largest violation {largest:.1e}), and the restoration phase cannot decrease \
                 the violation further"
            ),
        )
    } else {
        Stop::new(
            Status::LocallyInfeasible,
            format!(
                "the restoration phase cannot decrease the violation {theta:.1e} (largest row \
                 {largest:.1e}): the constraints cannot be met near this point"
            ),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stationary_violation_is_infeasibility_only_where_a_row_is_violated() {
        let infeasible = stationary_violation(3.0, 0.5, false);
        assert_eq!(infeasible.status, Status::LocallyInfeasible);
        assert!(
            infeasible.message.contains("5.0e-1"),
            "{}",
            infeasible.message
        );
        let feasible = stationary_violation(2.5e-6, 1e-8, true);
        assert_eq!(feasible.status, Status::LineSearchFailure);
        assert!(feasible.message.contains("1.0e-8"), "{}", feasible.message);
    }
}

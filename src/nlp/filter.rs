//! The filter of the line search (Fletcher & Leyffer; in the line-search form of Wächter &
//! Biegler, "Line search filter methods for nonlinear programming", SIAM J. Optim. 16, 2005).
//!
//! The filter holds pairs `(θ_j, f_j)` of constraint violation and objective; a trial point
//! is acceptable when it is not dominated by any pair (it has a smaller violation or a
//! smaller objective than each) and its violation is below `θ_max = filter_theta_max ·
//! max(1, θ₀)`. `θ_min = filter_theta_min · max(1, θ₀)` is the violation below which the line
//! search asks for objective decrease (`θ₀` the violation at the starting point).
//!
//! IPOPT's `θ_max` factor is 10⁴; vito's is 10: with 10⁴ the first exact-Hessian step of HS 7
//! (from a point with `θ₀ = 25`) was accepted at `θ = 4.8·10⁴` for a large decrease of `f`, and
//! the solve needed 31 iterations to come back instead of 10 (the trajectory problems do not
//! notice the difference).

use super::settings::Tuning;

/// The filter's verdict on a trial point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Verdict {
    /// Rejected.
    Reject,
    /// Accepted by an Armijo decrease of `f` under the switching condition (an f-type step).
    ObjectiveStep,
    /// Accepted by sufficient decrease of `θ` or `f`; the filter is augmented.
    FilterStep,
}

/// What a filter line search knows of its current point and direction.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LinePoint {
    /// Constraint violation `θ`.
    pub theta: f64,
    /// The function the search decreases (the objective, or the interior-point method's
    /// barrier function `φ_μ`).
    pub f: f64,
    /// Its slope `∇fᵀd` along the direction.
    pub slope: f64,
    /// Increases of `f` up to this much count as none (rounding).
    pub allowance: f64,
}

impl LinePoint {
    /// The point with the allowance of `t.rounding` machine epsilons relative to `f`.
    pub(crate) fn new(theta: f64, f: f64, slope: f64, t: &Tuning) -> Self {
        Self {
            theta,
            f,
            slope,
            allowance: t.rounding * f64::EPSILON * f.abs().max(1.0),
        }
    }
}

/// Filter entries and the violation bounds.
#[derive(Debug, Clone, Default)]
pub(crate) struct Filter {
    entries: Vec<(f64, f64)>,
    /// Largest violation a trial point may have.
    pub(crate) theta_max: f64,
    /// Violation below which the switching condition may ask for an Armijo decrease of `f`.
    pub(crate) theta_min: f64,
}

impl Filter {
    /// An empty filter for a problem whose starting point has violation `theta0`.
    pub(crate) fn new(theta0: f64, tuning: &Tuning) -> Self {
        Self {
            entries: Vec::new(),
            theta_max: tuning.filter_theta_max * theta0.max(1.0),
            theta_min: tuning.filter_theta_min * theta0.max(1.0),
        }
    }

    /// Whether `(theta, f)` is below `θ_max` and not dominated by an entry.
    pub(crate) fn acceptable(&self, theta: f64, f: f64) -> bool {
        theta <= self.theta_max && self.entries.iter().all(|&(t, g)| theta < t || f < g)
    }

    /// Adds `(theta, f)`, dropping the entries it dominates.
    pub(crate) fn add(&mut self, theta: f64, f: f64) {
        self.entries.retain(|&(t, g)| t < theta || g < f);
        self.entries.push((theta, f));
    }

    /// The verdict on the trial point `(theta, f)` reached with step length `alpha` from `p`
    /// (Wächter & Biegler 2006, Eqs. 18–21): acceptable to the filter, then an f-type step
    /// when the switching condition holds at a small violation (Armijo on `f`), otherwise
    /// sufficient decrease of `θ` or `f`.
    pub(crate) fn verdict(
        &self,
        p: &LinePoint,
        alpha: f64,
        theta: f64,
        f: f64,
        t: &Tuning,
    ) -> Verdict {
        if !self.acceptable(theta, f) {
            return Verdict::Reject;
        }
        let switching = p.slope < 0.0
            && alpha * (-p.slope).powf(t.switching_s_f)
                > t.switching_delta * p.theta.powf(t.switching_s_theta);
        if switching && p.theta <= self.theta_min {
            if f <= p.f + t.filter_armijo * alpha * p.slope + p.allowance {
                Verdict::ObjectiveStep
            } else {
                Verdict::Reject
            }
        } else if theta <= (1.0 - t.filter_gamma_theta) * p.theta
            || f <= p.f - t.filter_gamma_f * p.theta + p.allowance
        {
            Verdict::FilterStep
        } else {
            Verdict::Reject
        }
    }

    /// The smallest step length of the backtracking from `p`, `α_min` of Eq. 23 with the
    /// safety factor `γ_α`.
    pub(crate) fn min_step(&self, p: &LinePoint, t: &Tuning) -> f64 {
        let mut bound = t.filter_gamma_theta;
        if p.slope < 0.0 {
            bound = bound.min(t.filter_gamma_f * p.theta / -p.slope);
            if p.theta <= self.theta_min {
                bound = bound.min(
                    t.switching_delta * p.theta.powf(t.switching_s_theta)
                        / (-p.slope).powf(t.switching_s_f),
                );
            }
        }
        t.filter_gamma_alpha * bound
    }

    /// Adds the margin pair `((1 − γ_θ) θ, f − γ_f θ)` of a point `(θ, f)` (after a step the
    /// filter, not the switching condition, accepted from it).
    pub(crate) fn augment(&mut self, theta: f64, f: f64, t: &Tuning) {
        self.add(
            (1.0 - t.filter_gamma_theta) * theta,
            f - t.filter_gamma_f * theta,
        );
    }

    /// Forgets every entry (after a step the filter did not accept, or when the constraints
    /// change).
    pub(crate) fn clear(&mut self) {
        self.entries.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dominated_points_are_rejected() {
        let mut filter = Filter::new(2.0, &Tuning::default());
        assert_eq!(filter.theta_max, 20.0);
        assert!(filter.acceptable(1.0, 5.0));
        filter.add(1.0, 5.0);
        assert!(!filter.acceptable(1.0, 5.0));
        assert!(!filter.acceptable(2.0, 6.0));
        assert!(filter.acceptable(0.5, 6.0));
        assert!(filter.acceptable(2.0, 4.0));
        assert!(!filter.acceptable(30.0, 0.0));
        filter.add(0.5, 4.0);
        assert_eq!(filter.entries, vec![(0.5, 4.0)]);
        filter.clear();
        assert!(filter.acceptable(1.0, 5.0));
    }
}

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

//! Step control of the barrier homotopy: a barrier subproblem that fails or stalls is retried
//! from the last solved one with a smaller decrease of `μ`.
//!
//! The superlinear update `μ ← μ^θ_μ` (Wächter & Biegler 2006, Eq. 7) rests on the next
//! subproblem's solution lying within Newton's reach of the last one, `O(μ)` away. Along a
//! smoothing path driven with `μ` (`μ_s² = ρ μ`) the contact rows themselves move by
//! `O(√μ)`: the update from `μ = 1.5·10⁻⁴` to `1.8·10⁻⁶` moves the smoothing by a factor of
//! nine at once, and on some contact problems the line search then accepts a step that
//! raises the violation a hundredfold, which the restoration phase cannot undo
//! (`docs/benchmarks.md`, "A failed barrier subproblem is retried"). As a continuation method
//! halves its step when the corrector fails, the solve then returns to the point where the
//! last subproblem was solved (its multipliers, relaxation, smoothing and curvature scale)
//! and aims at the geometric mean of that subproblem's `μ` and the failed one, holding it
//! until that subproblem is solved. A subproblem stalls when its error `E_μ` has not halved
//! (`stall_decrease`) in `stall_iterations` iterations: on others the barrier reaches its
//! floor and the steps stay cut by the fraction to the boundary, restoration after
//! restoration, until the iteration limit. A decrease already no faster than the linear
//! `κ_μ` is not retried: the failure stands, the stalled solve goes on.
//!
//! A retried subproblem says how long a step of the homotopy this problem takes, as a
//! continuation method keeps its halved step length after the corrector failed: no later
//! decrease of the solve is steeper than the retried one (at most the linear `κ_μ`), so the
//! solve does not fail again at every level below (`InteriorPoint::least_decrease`).

use super::point::Point;
use super::solver::InteriorPoint;
use crate::nlp::InteriorSettings;
use crate::nlp::iteration::Stop;
use crate::nlp::outcome::{Residuals, Status};

/// The point where a barrier subproblem was solved, and the decrease that followed it.
pub(super) struct Checkpoint {
    point: Point,
    /// The solved subproblem's barrier parameter, smoothing and relaxation, and the curvature
    /// scale of its point's Hessian.
    mu: f64,
    smoothing: f64,
    relaxation: f64,
    curvature_scale: f64,
    /// The barrier parameter the solve moved to from there.
    target: f64,
    /// The progress of the subproblem at `target`.
    progress: Progress,
}

/// The progress of a barrier subproblem: the error `E_μ` it last fell below a fraction of,
/// and the iterations since.
#[derive(Debug, Clone, Copy)]
struct Progress {
    reference_error: f64,
    stalled_for: usize,
}

impl Progress {
    fn new() -> Self {
        Self {
            reference_error: f64::INFINITY,
            stalled_for: 0,
        }
    }

    /// Counts one iteration at error `error`; whether the subproblem has stalled: its error
    /// has not fallen below `decrease` of the reference in `iterations` iterations.
    fn stalls(&mut self, error: f64, decrease: f64, iterations: usize) -> bool {
        if error < decrease * self.reference_error {
            self.reference_error = error;
            self.stalled_for = 0;
        } else {
            self.stalled_for += 1;
        }
        self.stalled_for >= iterations
    }
}

impl Checkpoint {
    pub(super) fn new(
        point: &Point,
        mu: f64,
        smoothing: f64,
        relaxation: f64,
        curvature_scale: f64,
        target: f64,
    ) -> Self {
        Self {
            point: point.clone(),
            mu,
            smoothing,
            relaxation,
            curvature_scale,
            target,
            progress: Progress::new(),
        }
    }
}

/// The barrier parameter a retry aims at after the decrease from `mu` to `target` failed:
/// their geometric mean, or `None` where `target` is at least `linear` of `mu` (no faster
/// than the linear decrease).
pub(super) fn retry_barrier(mu: f64, target: f64, linear: f64) -> Option<f64> {
    (target < linear * mu).then(|| (mu * target).sqrt())
}

/// The next barrier parameter after `mu` (above the floor): `min(κ_μ μ, μ^θ_μ)` (Wächter &
/// Biegler 2006, Eq. 7), no steeper than the ratio `least` a retried subproblem set (0 before
/// any).
pub(super) fn barrier_decrease(mu: f64, ip: &InteriorSettings, least: f64) -> f64 {
    (ip.mu_linear_decrease * mu)
        .min(mu.powf(ip.mu_superlinear_decrease))
        .max(least * mu)
}

/// Whether a failed step may be retried from the checkpoint: the line search's, the
/// restoration phase's and the inertia correction's failures (evaluation errors and the
/// limits stand).
fn retriable(status: Status) -> bool {
    matches!(
        status,
        Status::LineSearchFailure | Status::LocallyInfeasible | Status::QpFailure
    )
}

impl InteriorPoint<'_, '_, '_> {
    /// After the step failed with `stop`: back to the checkpoint with a smaller decrease, or
    /// the failure where there is none to retry.
    pub(super) fn retreat_after(&mut self, stop: Stop) -> Result<(), Stop> {
        if retriable(stop.status) && self.retreat() {
            Ok(())
        } else {
            Err(stop)
        }
    }

    /// Counts an iteration of the subproblem that followed the checkpoint, at the barrier
    /// error of the residuals `r` (evaluated only where there is a checkpoint), and retreats
    /// where it has stalled; whether it did.
    pub(super) fn retreat_if_stalled(&mut self, r: &Residuals) -> bool {
        if self.checkpoint.is_none() {
            return false;
        }
        let error = self.barrier_error(r);
        let (decrease, iterations) = (self.ip().stall_decrease, self.ip().stall_iterations);
        let stalled = self
            .checkpoint
            .as_mut()
            .is_some_and(|c| c.progress.stalls(error, decrease, iterations));
        stalled && self.retreat()
    }

    /// Back to the checkpoint aiming at a smaller decrease (`retry_barrier`); whether there
    /// was one to retry.
    fn retreat(&mut self) -> bool {
        let linear = self.ip().mu_linear_decrease;
        let Some(c) = self.checkpoint.as_mut() else {
            return false;
        };
        let Some(mu) = retry_barrier(c.mu, c.target, linear) else {
            return false;
        };
        self.least_decrease = self.least_decrease.max((mu / c.mu).min(linear));
        c.target = mu;
        c.progress = Progress::new();
        self.cur.clone_from(&c.point);
        self.relaxation = c.relaxation;
        self.problem.set_relaxation(c.relaxation);
        self.smoothing = c.smoothing;
        if self.smoothing_path.is_some() {
            self.problem.set_smoothing(c.smoothing);
        }
        self.curvature_scale = c.curvature_scale;
        self.mu = mu;
        self.tau = self.ip().tau_min.max(1.0 - mu);
        self.filter.clear();
        self.barrier_held = true;
        self.retreated = true;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_decrease_is_retried_at_the_geometric_mean_down_to_the_linear_rate() {
        // μ^1.5 from 1.5e-4: retried at the mean, then at the mean of that.
        let first = retry_barrier(1.5e-4, 1.5e-4_f64.powf(1.5), 0.2).unwrap();
        assert!((first - (1.5e-4_f64 * 1.5e-4_f64.powf(1.5)).sqrt()).abs() < 1e-18);
        let second = retry_barrier(1.5e-4, first, 0.2).unwrap();
        assert!(second > first && second < 1.5e-4);
        // A decrease by κ_μ or less is not retried.
        assert_eq!(retry_barrier(1e-3, 2e-4, 0.2), None);
        assert_eq!(retry_barrier(1e-3, 5e-4, 0.2), None);
    }

    #[test]
    fn after_a_retry_no_decrease_is_steeper_than_the_retried_one() {
        let ip = InteriorSettings::default();
        // Before any retry: Eq. 7, superlinear below μ = κ_μ² (1e-5^1.5 ≈ 3.2e-8).
        assert_eq!(barrier_decrease(1e-5, &ip, 0.0), 1e-5_f64.powf(1.5));
        assert_eq!(barrier_decrease(0.1, &ip, 0.0), 0.2 * 0.1);
        // A retry that went from 1e-4 to 1e-5 instead of 1e-6 allows tenfold decreases.
        let least = retry_barrier(1e-4, 1e-6, ip.mu_linear_decrease).unwrap() / 1e-4;
        assert!((barrier_decrease(1e-5, &ip, least) - 1e-6).abs() < 1e-18);
        // A slower rule than the limit is kept.
        assert_eq!(barrier_decrease(0.1, &ip, least), 0.2 * 0.1);
    }

    #[test]
    fn a_subproblem_stalls_when_its_error_has_not_halved_for_long() {
        let mut c = Progress::new();
        // Halving errors never stall.
        for k in 0..20 {
            assert!(!c.stalls(0.4_f64.powi(k), 0.5, 3));
        }
        // Three iterations without halving do.
        assert!(!c.stalls(1e-8, 0.5, 3));
        assert!(!c.stalls(0.9e-8, 0.5, 3));
        assert!(!c.stalls(2e-8, 0.5, 3));
        assert!(c.stalls(0.6e-8, 0.5, 3));
    }

    #[test]
    fn only_failures_of_the_step_are_retried() {
        assert!(retriable(Status::LineSearchFailure));
        assert!(retriable(Status::LocallyInfeasible));
        assert!(retriable(Status::QpFailure));
        assert!(!retriable(Status::EvaluationError));
        assert!(!retriable(Status::MaxIterations));
    }
}

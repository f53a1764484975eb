//! Solving a problem along the smoothing path of its rows ([`SmoothingPath`]: smoothed
//! complementarity, whose pairs hold `a·b = μ_s²`).
//!
//! The interior-point method drives the smoothing with its barrier parameter inside one
//! solve (`μ_s² = ρ μ`, `InteriorSettings::smoothing_barrier_ratio`): each barrier subproblem
//! is solved to `κ_ε μ` at its own smoothing, so no level is solved beyond what the next one
//! needs and no warm start jumps from one solved level to the next. The SQP solves one problem
//! per level instead: `μ_s` from the path's start down by factors of `smoothing_decrease` to
//! its end, each level from the last one's point, every level but the last to
//! `smoothing_level_tolerance · μ_s` when that is set.

use std::time::Instant;

use super::solver::{Fallback, Solver, after_fallback, fallback};
use crate::interior::InteriorPoint;
use crate::nlp::iteration::solve;
use crate::nlp::outcome::{SolverResult, Status};
use crate::nlp::problem::Problem;
use crate::nlp::report::{Observer, Progress};
use crate::nlp::settings::{HessianStrategy, Method, Settings};
use crate::nlp::{Nlp, SmoothingPath, SolverError};

/// The SQP's smoothing levels along `path`: from its start down by factors of
/// `smoothing_decrease`, then its end.
pub(crate) fn smoothing_levels(path: SmoothingPath, settings: &Settings) -> Vec<f64> {
    let end = path.end.min(path.start);
    let mut levels = Vec::new();
    let mut mu = path.start;
    while mu > end * (1.0 + 1e-9) {
        levels.push(mu);
        mu *= settings.smoothing_decrease;
    }
    levels.push(end);
    levels
}

impl Solver {
    /// Solves `nlp` along the smoothing `path` of its rows ([`Nlp::set_smoothing`]), from its
    /// initial point, and leaves the smoothing at the path's end. [`Method::Auto`] falls back
    /// to the SQP's levels as [`Solver::solve_warm`] does: from the start when the
    /// interior-point method fails, the last level from its point when it ends `Acceptable`.
    /// The result sums the iterations, evaluations, times and histories of every solve run.
    ///
    /// # Errors
    /// As [`Solver::solve_warm`], and [`SolverError::InvalidProblem`] for a path whose ends are
    /// not positive and finite or whose end is above its start.
    pub fn solve_smoothed(
        &self,
        nlp: &mut dyn Nlp,
        observer: &mut dyn Observer,
        path: SmoothingPath,
        warm: Option<&SolverResult>,
    ) -> Result<SolverResult, SolverError> {
        let valid = |v: f64| v > 0.0 && v.is_finite();
        if !(valid(path.start) && valid(path.end) && path.end <= path.start) {
            return Err(SolverError::InvalidProblem(format!(
                "the smoothing path from {} to {} is not a decreasing path of positive values",
                path.start, path.end
            )));
        }
        let start = Instant::now();
        let settings = self.settings();
        let exact = settings.hessian == HessianStrategy::Exact;
        let levels = smoothing_levels(path, settings);
        nlp.set_smoothing(path.start);
        let problem = Problem::new(nlp, exact)?;
        let method = settings
            .method
            .resolve(settings.hessian, problem.products.len());
        if method == Method::Sqp {
            drop(problem);
            return self.sqp_levels(nlp, observer, &levels, start, None);
        }
        let progress = Progress::new(settings);
        let method = InteriorPoint::new(settings, problem)
            .with_smoothing(path)
            .warm_from(warm);
        let interior = solve(method, settings, observer, &progress, start);
        progress.finish();
        observer.finish(&interior);
        let (levels, from) = match fallback(settings, interior.status) {
            None => return Ok(interior),
            Some(Fallback::FromStart) => (&levels[..], None),
            Some(Fallback::FromPoint) => (&levels[levels.len() - 1..], Some(interior.x.clone())),
        };
        let sqp = self.sqp_levels(nlp, observer, levels, start, from)?;
        Ok(after_fallback(interior, sqp))
    }

    /// The SQP at each of `levels` in turn, the first from `from` (or the problem's initial
    /// point), each next one from the last one's point, until one fails.
    fn sqp_levels(
        &self,
        nlp: &mut dyn Nlp,
        observer: &mut dyn Observer,
        levels: &[f64],
        start: Instant,
        from: Option<Vec<f64>>,
    ) -> Result<SolverResult, SolverError> {
        let settings = self.settings();
        let exact = settings.hessian == HessianStrategy::Exact;
        let kappa = settings.smoothing_level_tolerance;
        let mut total: Option<SolverResult> = None;
        for (i, &mu) in levels.iter().enumerate() {
            nlp.set_smoothing(mu);
            let solver = if i + 1 < levels.len() && kappa > 0.0 {
                self.loosened(kappa * mu, kappa * mu)
            } else {
                self.clone()
            };
            let problem = Problem::new(nlp, exact)?;
            let progress = Progress::new(settings);
            let from = total.as_ref().map(|r| r.x.as_slice()).or(from.as_deref());
            let result = solver.run_sqp(problem, observer, &progress, start, from, mu);
            progress.finish();
            observer.finish(&result);
            let failed = !matches!(result.status, Status::Converged | Status::Acceptable);
            let result = match total.take() {
                Some(before) => before.followed_by(result),
                None => result,
            };
            total = Some(result);
            if failed {
                break;
            }
        }
        total.ok_or_else(|| SolverError::InvalidProblem("the smoothing path has no levels".into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: &[f64], b: &[f64]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= 1e-12 * y)
    }

    #[test]
    fn levels_run_from_the_start_by_the_decrease_to_the_end() {
        let settings = Settings {
            smoothing_decrease: 0.1,
            ..Settings::default()
        };
        let path = |start, end| SmoothingPath { start, end };
        let l = smoothing_levels(path(1e-2, 5e-4), &settings);
        assert!(close(&l, &[1e-2, 1e-3, 5e-4]), "{l:?}");
        let l = smoothing_levels(path(1e-2, 1e-4), &settings);
        assert!(close(&l, &[1e-2, 1e-3, 1e-4]), "{l:?}");
        assert!(close(
            &smoothing_levels(path(1e-2, 1e-2), &settings),
            &[1e-2]
        ));
        let l = smoothing_levels(path(0.1, 8.1e-4), &Settings::default());
        assert!(close(&l, &[0.1, 0.03, 0.009, 0.0027, 8.1e-4]), "{l:?}");
    }
}

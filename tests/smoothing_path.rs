//! `Solver::solve_smoothed` on a problem whose row has a smoothing parameter: the
//! Fischer–Burmeister row `x + y − √(x² + y² + 2μ_s²) = 0` (it holds exactly when `x, y > 0`
//! and `x·y = μ_s²`) with the objective `(x − 1)² + (y − ½)²`. The interior-point method
//! drives `μ_s` with its barrier parameter, the SQP solves one level after another; both end
//! at the path's end with `x·y = μ_end²`, at the same point.

use vito::nlp::{EvalError, Method, Nlp, Settings, SmoothingPath, SolverError, Status};
use vito::optimizer::Solver;

/// The smoothed pair, recording every smoothing it was set to.
struct SmoothedPair {
    smoothing: f64,
    set: Vec<f64>,
    start: [f64; 2],
}

impl SmoothedPair {
    fn new() -> Self {
        Self {
            smoothing: f64::NAN,
            set: Vec::new(),
            start: [1.0, 1.0],
        }
    }

    fn radius(&self, x: &[f64]) -> f64 {
        (x[0] * x[0] + x[1] * x[1] + 2.0 * self.smoothing * self.smoothing).sqrt()
    }
}

impl Nlp for SmoothedPair {
    fn num_variables(&self) -> usize {
        2
    }
    fn num_constraints(&self) -> usize {
        1
    }
    fn variable_bounds(&self, lower: &mut [f64], upper: &mut [f64]) {
        lower.fill(f64::NEG_INFINITY);
        upper.fill(f64::INFINITY);
    }
    fn constraint_bounds(&self, lower: &mut [f64], upper: &mut [f64]) {
        lower[0] = 0.0;
        upper[0] = 0.0;
    }
    fn initial_point(&self, x: &mut [f64]) {
        x.copy_from_slice(&self.start);
    }
    fn objective(&mut self, x: &[f64]) -> Result<f64, EvalError> {
        Ok((x[0] - 1.0).powi(2) + (x[1] - 0.5).powi(2))
    }
    fn gradient(&mut self, x: &[f64], grad: &mut [f64]) -> Result<(), EvalError> {
        grad[0] = 2.0 * (x[0] - 1.0);
        grad[1] = 2.0 * (x[1] - 0.5);
        Ok(())
    }
    fn constraints(&mut self, x: &[f64], c: &mut [f64]) -> Result<(), EvalError> {
        c[0] = x[0] + x[1] - self.radius(x);
        Ok(())
    }
    fn jacobian_structure(&self) -> Vec<(usize, usize)> {
        vec![(0, 0), (0, 1)]
    }
    fn jacobian_values(&mut self, x: &[f64], values: &mut [f64]) -> Result<(), EvalError> {
        let r = self.radius(x);
        values[0] = 1.0 - x[0] / r;
        values[1] = 1.0 - x[1] / r;
        Ok(())
    }
    fn hessian_structure(&self) -> Option<Vec<(usize, usize)>> {
        Some(vec![(0, 0), (1, 0), (1, 1)])
    }
    /// `∇²c = −∇²r = −(I − g gᵀ)/r` with `g = (x, y)/r`.
    fn hessian_values(
        &mut self,
        x: &[f64],
        obj_factor: f64,
        lambda: &[f64],
        values: &mut [f64],
    ) -> Result<(), EvalError> {
        let r = self.radius(x);
        let (gx, gy) = (x[0] / r, x[1] / r);
        let l = lambda[0];
        values[0] = 2.0 * obj_factor - l * (1.0 - gx * gx) / r;
        values[1] = l * gx * gy / r;
        values[2] = 2.0 * obj_factor - l * (1.0 - gy * gy) / r;
        Ok(())
    }
    fn set_smoothing(&mut self, mu: f64) {
        self.smoothing = mu;
        self.set.push(mu);
    }
}

const PATH: SmoothingPath = SmoothingPath {
    start: 0.1,
    end: 1e-3,
};

fn settings(method: Method) -> Settings {
    Settings {
        method,
        print_level: 0,
        progress_bar: false,
        ..Settings::default()
    }
}

fn solve(
    settings: Settings,
    nlp: &mut SmoothedPair,
) -> Result<vito::nlp::SolverResult, SolverError> {
    Solver::new(settings)?.solve_smoothed(nlp, &mut vito::nlp::SilentObserver, PATH, None)
}

/// Started warm from its own solution (point and multipliers), the interior-point method
/// starts at the `μ` where that solution was found, the path's end's (`μ = μ_end² / ρ`), the
/// smoothing at the end from its first update on, and is done at once, at the same point.
#[test]
fn a_warm_start_along_the_path_starts_at_its_end() {
    let s = settings(Method::InteriorPoint);
    let cold = solve(s.clone(), &mut SmoothedPair::new()).unwrap();
    assert_eq!(cold.status, Status::Converged, "{}", cold.message);
    let mut nlp = SmoothedPair::new();
    nlp.start = [cold.x[0], cold.x[1]];
    let warm = Solver::new(s.clone())
        .unwrap()
        .solve_smoothed(&mut nlp, &mut vito::nlp::SilentObserver, PATH, Some(&cold))
        .unwrap();
    assert_eq!(warm.status, Status::Converged, "{}", warm.message);
    assert!(
        warm.iterations <= 1 && cold.iterations >= 5,
        "warm {} iterations, cold {}",
        warm.iterations,
        cold.iterations
    );
    let ratio = s.tuning.interior.smoothing_barrier_ratio;
    // The first record shows μ after its first update: the subproblem at the end's μ is
    // solved already, so μ may have gone down from there (to μ_min), never up.
    let first = warm.history[0].barrier;
    assert!(
        first <= PATH.end * PATH.end / ratio * (1.0 + 1e-12),
        "first μ {first:e}"
    );
    // At the path's start when the problem is built and its starting point evaluated, then at
    // its end from the first update on.
    let ends = nlp.set.iter().position(|&m| m == PATH.end);
    assert!(
        ends.is_some_and(|k| k > 0
            && nlp.set[..k].iter().all(|&m| m == PATH.start)
            && nlp.set[k..].iter().all(|&m| m == PATH.end)),
        "{:?}",
        nlp.set
    );
    assert!((warm.x[0] - cold.x[0]).abs() < 1e-6 && (warm.x[1] - cold.x[1]).abs() < 1e-6);
}

#[test]
fn the_interior_point_method_drives_the_smoothing_with_its_barrier_parameter() {
    let s = settings(Method::InteriorPoint);
    let mut nlp = SmoothedPair::new();
    let r = solve(s.clone(), &mut nlp).unwrap();
    assert_eq!(r.status, Status::Converged, "{}", r.message);
    assert_eq!(r.method, Method::InteriorPoint);
    // The solution is the smoothed pair's at the path's end (its row within the constraint
    // tolerance), near the branch x = 1, y = 0.
    let (x, y) = (r.x[0], r.x[1]);
    assert!(
        (x * y / (PATH.end * PATH.end) - 1.0).abs() < 1e-4,
        "x·y = {:e}",
        x * y
    );
    assert!((x - 1.0).abs() < 1e-3 && y > 0.0, "{:?}", r.x);
    assert_eq!(nlp.set.last(), Some(&PATH.end));
    // Every iterate's smoothing is the barrier parameter's, μ_s = √(ρ μ) within the path, and
    // the end once μ is at its smallest; it never grows.
    let ratio = s.tuning.interior.smoothing_barrier_ratio;
    let mu_min = s.tolerance / (s.tuning.interior.barrier_tolerance_factor + 1.0);
    for h in &r.history {
        let expected = if h.barrier <= mu_min {
            PATH.end
        } else {
            (ratio * h.barrier).sqrt().clamp(PATH.end, PATH.start)
        };
        assert_eq!(h.smoothing, expected, "iteration {}", h.iteration);
    }
    assert!(
        r.history
            .windows(2)
            .all(|w| w[1].smoothing <= w[0].smoothing)
    );
    assert_eq!(r.history[0].smoothing, PATH.start);
    assert_eq!(r.history.last().map(|h| h.smoothing), Some(PATH.end));
}

#[test]
fn the_sqp_solves_level_after_level_to_the_same_point() {
    let mut interior = SmoothedPair::new();
    let ip = solve(settings(Method::InteriorPoint), &mut interior).unwrap();
    let mut levels = SmoothedPair::new();
    let sqp = solve(settings(Method::Sqp), &mut levels).unwrap();
    assert_eq!(sqp.status, Status::Converged, "{}", sqp.message);
    assert_eq!(sqp.method, Method::Sqp);
    for (a, b) in ip.x.iter().zip(&sqp.x) {
        assert!((a - b).abs() < 1e-6, "{:?} against {:?}", ip.x, sqp.x);
    }
    // The levels 0.1, 0.03, 0.009, 0.0027 and the end (the default decrease is 0.3), each
    // solve's iterates recorded with its level; the smoothing is set once for the start and
    // once per level.
    let path: Vec<f64> = vec![
        0.1,
        0.1 * 0.3,
        0.1 * 0.3 * 0.3,
        0.1 * 0.3 * 0.3 * 0.3,
        PATH.end,
    ];
    let mut recorded: Vec<f64> = sqp.history.iter().map(|h| h.smoothing).collect();
    recorded.dedup();
    assert_eq!(recorded, path);
    assert_eq!(levels.set, [&[0.1][..], &path].concat());
    assert_eq!(sqp.iterations + 1, sqp.history.len());
}

#[test]
fn auto_solves_the_levels_with_the_sqp_when_the_interior_point_method_fails() {
    let s = Settings {
        max_iterations: 2,
        ..settings(Method::Auto)
    };
    let mut nlp = SmoothedPair::new();
    let r = solve(s, &mut nlp).unwrap();
    assert_eq!(r.method, Method::Sqp);
    assert_eq!(r.status, Status::MaxIterations);
    // The interior-point method's iterates (a barrier parameter), then the SQP's first level
    // from the start.
    let ip = r.history.iter().take_while(|h| h.barrier > 0.0).count();
    assert_eq!(ip, 3, "the starting point and two iterations");
    assert!(r.history[ip..].iter().all(|h| h.barrier == 0.0));
    assert_eq!(r.history[ip].smoothing, PATH.start);
    assert!(
        r.message
            .contains("interior-point method ended MaxIterations")
    );
    assert_eq!(nlp.set[nlp.set.len() - 1], PATH.start);
}

#[test]
fn a_path_that_does_not_decrease_is_refused() {
    for (start, end) in [
        (1e-3, 1e-2),
        (0.0, 0.0),
        (0.1, f64::NAN),
        (f64::INFINITY, 1.0),
    ] {
        let mut nlp = SmoothedPair::new();
        let err = Solver::new(settings(Method::InteriorPoint))
            .unwrap()
            .solve_smoothed(
                &mut nlp,
                &mut vito::nlp::SilentObserver,
                SmoothingPath { start, end },
                None,
            )
            .unwrap_err();
        assert!(
            matches!(err, SolverError::InvalidProblem(ref m) if m.contains("smoothing path")),
            "{err}"
        );
        assert!(nlp.set.is_empty());
    }
}

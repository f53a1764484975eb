//! Solver behaviour beyond reaching optima: convergence rate, infeasibility, evaluation
//! failures, limits, settings, input validation, logging and a sparse trajectory problem.

mod common;

use common::infeasible::{disc_and_half_plane, no_real_root};
use common::{Dense, INF, hs, hs::base};
use vito::nlp::{
    Complementarity, ComplementarityTerm, EvalError, HessianStrategy, Method, Nlp, QpBackend,
    Settings, SolverError, SolverResult, Status, Tuning,
};
use vito::optimizer::Solver;
use vito::qp::{ActiveSetSettings, InertiaSettings};

/// The SQP (these tests are about its behaviour), silent.
fn quiet() -> Settings {
    Settings {
        method: Method::Sqp,
        print_level: 0,
        ..Settings::default()
    }
}

fn backends() -> Vec<QpBackend> {
    let mut b = vec![QpBackend::Clarabel];
    if cfg!(feature = "osqp") {
        b.push(QpBackend::Osqp);
    }
    b
}

fn solve(problem: &mut dyn Nlp, settings: Settings) -> SolverResult {
    Solver::new(settings)
        .expect("valid settings")
        .solve(problem)
        .expect("valid problem")
}

#[test]
fn exact_hessians_converge_superlinearly() {
    for qp in backends() {
        for mut problem in [hs::hs071(), hs::hs078(), hs::hs100()] {
            let result = solve(&mut problem, Settings { qp, ..quiet() });
            assert_eq!(result.status, Status::Converged, "{}", problem.name);
            let errors: Vec<f64> = result.history.iter().map(|r| r.kkt_error()).collect();
            let ratios: Vec<f64> = errors.windows(2).map(|w| w[1] / w[0]).collect();
            let last = &ratios[ratios.len() - 3..];
            // The ratio of successive KKT residuals goes to zero.
            assert!(
                last[2] < last[1] && last[1] < last[0] && last[2] < 1e-2,
                "{} with {qp:?}: KKT residuals {errors:?}",
                problem.name
            );
        }
    }
}

/// `min A(−y + ε(x² + y²)/2) − μw − κw²/2` on the unit circle `x² + y² = 1`,
/// `−μ <= w <= 0`, with `A = 10⁶`, `ε = 0.4`, `μ = 10⁻⁴`, `κ = 1` (on that interval
/// `−μw − κw²/2 >= 0`), from a point on the circle 0.002 rad from the minimizer `(0, 1, 0)`.
/// There the circle's multiplier is `λ = A(1 − ε)/2` and the bound's `z_w = μ`, ten orders of
/// magnitude below it, and the exact `∇²L = diag(A, A, −κ)` has the eigenvalue `−κ` along `w`:
/// the QP is convex only with the weakly active bound in its working set (the 12-link
/// pendulum's tail in miniature, where speed limits are held with multipliers 10⁻⁶ of the
/// largest).
fn weak_bound_on_a_circle() -> Dense {
    const A: f64 = 1e6;
    const EPS: f64 = 0.4;
    const MU: f64 = 1e-4;
    const KAPPA: f64 = 1.0;
    Dense {
        x0: vec![0.002f64.sin(), 0.002f64.cos(), -0.5 * MU],
        x_lower: vec![-INF, -INF, -MU],
        x_upper: vec![INF, INF, 0.0],
        c_upper: vec![0.0],
        c_lower: vec![0.0],
        f: |x| {
            A * (-x[1] + 0.5 * EPS * (x[0] * x[0] + x[1] * x[1]))
                - MU * x[2]
                - 0.5 * KAPPA * x[2] * x[2]
        },
        grad: |x, g| {
            g[0] = A * EPS * x[0];
            g[1] = A * (-1.0 + EPS * x[1]);
            g[2] = -MU - KAPPA * x[2];
        },
        cons: |x, c| c[0] = x[0] * x[0] + x[1] * x[1] - 1.0,
        jac: |x, j| j.copy_from_slice(&[2.0 * x[0], 2.0 * x[1], 0.0]),
        hess: |_, s, l, h| {
            h[0] = s * A * EPS + 2.0 * l[0];
            h[4] = s * A * EPS + 2.0 * l[0];
            h[8] = -s * KAPPA;
        },
        f_star: -A * (1.0 - 0.5 * EPS),
        x_star: vec![0.0, 1.0, 0.0],
        ..base("weak_bound_on_a_circle", 3, 1)
    }
}

/// [`weak_bound_on_a_circle`] converges fast to its minimizer with every backend: the working
/// set keeps the weakly active bound, so the exact Newton model applies (with a model that
/// lacked the constraints' curvature the steps overshot along the circle by `1/ε = 2.5` and
/// the solve ended `Acceptable` after 320 iterations).
#[test]
fn weakly_active_bound_keeps_newton_steps() {
    for qp in backends() {
        let mut problem = weak_bound_on_a_circle();
        let result = solve(&mut problem, Settings { qp, ..quiet() });
        assert_eq!(
            result.status,
            Status::Converged,
            "{qp:?}: {}",
            result.message
        );
        assert!(
            result.iterations <= 12,
            "{qp:?}: {} iterations",
            result.iterations
        );
        for (x, x_star) in result.x.iter().zip(&problem.x_star) {
            assert!((x - x_star).abs() < 1e-6, "{qp:?}: {:?}", result.x);
        }
    }
}

#[test]
fn infeasible_problems_end_locally_infeasible() {
    for qp in backends() {
        for hessian in [HessianStrategy::Exact, HessianStrategy::Bfgs] {
            for mut problem in [no_real_root(), disc_and_half_plane()] {
                problem.hessian = hessian == HessianStrategy::Exact;
                let result = solve(
                    &mut problem,
                    Settings {
                        qp,
                        hessian,
                        ..quiet()
                    },
                );
                assert_eq!(
                    result.status,
                    Status::LocallyInfeasible,
                    "{} with {qp:?}/{hessian:?}: {}",
                    problem.name,
                    result.message
                );
                assert!(result.residuals.primal_infeasibility > 0.1);
            }
        }
    }
}

/// `f(x) = x - ln x` (minimum at 1), undefined for `x <= 0`; reported as NaN or as an error.
struct LogBarrier {
    start: f64,
    as_error: bool,
}

impl Nlp for LogBarrier {
    fn num_variables(&self) -> usize {
        1
    }
    fn num_constraints(&self) -> usize {
        0
    }
    fn variable_bounds(&self, lower: &mut [f64], upper: &mut [f64]) {
        lower[0] = -INF;
        upper[0] = INF;
    }
    fn constraint_bounds(&self, _lower: &mut [f64], _upper: &mut [f64]) {}
    fn initial_point(&self, x: &mut [f64]) {
        x[0] = self.start;
    }
    fn objective(&mut self, x: &[f64]) -> Result<f64, EvalError> {
        if self.as_error && x[0] <= 0.0 {
            return Err(EvalError::Failed(format!("ln({}) is undefined", x[0])));
        }
        Ok(x[0] - x[0].ln())
    }
    fn gradient(&mut self, x: &[f64], g: &mut [f64]) -> Result<(), EvalError> {
        g[0] = 1.0 - 1.0 / x[0];
        Ok(())
    }
    fn constraints(&mut self, _x: &[f64], _c: &mut [f64]) -> Result<(), EvalError> {
        Ok(())
    }
    fn jacobian_structure(&self) -> Vec<(usize, usize)> {
        Vec::new()
    }
    fn jacobian_values(&mut self, _x: &[f64], _values: &mut [f64]) -> Result<(), EvalError> {
        Ok(())
    }
    fn hessian_structure(&self) -> Option<Vec<(usize, usize)>> {
        Some(vec![(0, 0)])
    }
    fn hessian_values(
        &mut self,
        x: &[f64],
        obj_factor: f64,
        _lambda: &[f64],
        values: &mut [f64],
    ) -> Result<(), EvalError> {
        values[0] = obj_factor / (x[0] * x[0]);
        Ok(())
    }
}

#[test]
fn failed_evaluations_shorten_the_step() {
    for qp in backends() {
        for as_error in [false, true] {
            // The first Newton step from x = 5 lands at x = -15, where f is undefined.
            let mut problem = LogBarrier {
                start: 5.0,
                as_error,
            };
            let result = solve(&mut problem, Settings { qp, ..quiet() });
            assert_eq!(result.status, Status::Converged, "{}", result.message);
            assert!((result.x[0] - 1.0).abs() < 1e-6);
            assert!(result.history[1].step_length < 1.0);
        }
    }
}

#[test]
fn undefined_start_ends_with_evaluation_error() {
    for as_error in [false, true] {
        let mut problem = LogBarrier {
            start: -1.0,
            as_error,
        };
        let result = solve(&mut problem, quiet());
        assert_eq!(result.status, Status::EvaluationError);
        assert!(result.message.contains("objective"), "{}", result.message);
        assert_eq!(result.iterations, 0);
    }
}

#[test]
fn iteration_and_time_limits_are_reported() {
    let result = solve(
        &mut hs::hs071(),
        Settings {
            max_iterations: 2,
            ..quiet()
        },
    );
    assert_eq!(result.status, Status::MaxIterations);
    assert_eq!(result.iterations, 2);
    let result = solve(
        &mut hs::hs071(),
        Settings {
            time_limit_s: Some(1e-12),
            ..quiet()
        },
    );
    assert_eq!(result.status, Status::TimeLimit);
}

#[test]
fn result_accounts_for_evaluations_time_and_history() {
    let result = solve(&mut hs::hs071(), quiet());
    assert_eq!(result.history.len(), result.iterations + 1);
    assert_eq!(result.history[0].iteration, 0);
    let e = result.evaluations;
    assert!(e.objective > result.iterations && e.gradient == result.iterations + 1);
    // One Lagrangian Hessian per point, plus at most one objective-only Hessian per step
    // (the fallback model when the Lagrangian's needs a large shift).
    assert!(e.hessian >= e.gradient && e.hessian <= e.gradient + result.iterations);
    assert!(e.constraints >= e.jacobian && e.jacobian == e.gradient);
    let t = result.timing;
    assert!(t.total >= t.nlp_evaluation + t.linear);
    assert!(result.linear_solves > 0);
    assert_eq!(result.constraints.len(), 2);
    assert_eq!(result.constraint_multipliers.len(), 2);
    assert_eq!(result.bound_multipliers.len(), 4);
    // HS 71: x₀ = 1 sits on its lower bound, c₀ >= 25 is active at its lower bound.
    assert!(result.bound_multipliers[0] < 0.0);
    assert!(result.constraint_multipliers[0] < 0.0);
}

#[test]
fn log_lists_iterations_and_summary() {
    let solver = Solver::new(Settings {
        print_level: 2,
        progress_bar: false,
        ..quiet()
    })
    .unwrap();
    let mut log = Vec::new();
    let result = solver.solve_with_log(&mut hs::hs071(), &mut log).unwrap();
    let text = String::from_utf8(log).unwrap();
    assert!(text.starts_with("iter    objective    inf_pr   inf_du"));
    assert_eq!(
        text.lines()
            .filter(|l| l.trim_start().starts_with(char::is_numeric))
            .count(),
        result.iterations + 1
    );
    assert!(text.contains("status: Converged"));
    let solver = Solver::new(quiet()).unwrap();
    let mut log = Vec::new();
    solver.solve_with_log(&mut hs::hs071(), &mut log).unwrap();
    assert!(log.is_empty());
}

#[test]
fn invalid_settings_name_the_field() {
    let cases: Vec<(Settings, &str)> = vec![
        (
            Settings {
                tolerance: 0.0,
                ..quiet()
            },
            "tolerance",
        ),
        (
            Settings {
                tolerance: -1e-6,
                ..quiet()
            },
            "tolerance",
        ),
        (
            Settings {
                tolerance: f64::NAN,
                ..quiet()
            },
            "tolerance",
        ),
        (
            Settings {
                constraint_tolerance: f64::INFINITY,
                ..quiet()
            },
            "constraint_tolerance",
        ),
        (
            Settings {
                complementarity_tolerance: 0.0,
                ..quiet()
            },
            "complementarity_tolerance",
        ),
        (
            Settings {
                acceptable_tolerance: 1e-9,
                ..quiet()
            },
            "acceptable_tolerance",
        ),
        (
            Settings {
                max_iterations: 0,
                ..quiet()
            },
            "max_iterations",
        ),
        (
            Settings {
                acceptable_iterations: 0,
                ..quiet()
            },
            "acceptable_iterations",
        ),
        (
            Settings {
                time_limit_s: Some(0.0),
                ..quiet()
            },
            "time_limit_s",
        ),
        (
            Settings {
                time_limit_s: Some(f64::NAN),
                ..quiet()
            },
            "time_limit_s",
        ),
        (
            Settings {
                qp_tolerance: -1.0,
                ..quiet()
            },
            "qp_tolerance",
        ),
        (
            Settings {
                qp_max_iterations: 0,
                ..quiet()
            },
            "qp_max_iterations",
        ),
        (
            Settings {
                relaxation_decrease: 1.0,
                ..quiet()
            },
            "relaxation_decrease",
        ),
        (
            Settings {
                relaxation_initial: 0.0,
                ..quiet()
            },
            "relaxation_initial",
        ),
        (
            Settings {
                tuning: Tuning {
                    filter_min_step: 1.5,
                    ..Tuning::default()
                },
                ..quiet()
            },
            "tuning.filter_min_step",
        ),
        (
            Settings {
                tuning: Tuning {
                    curvature_decrease: 1.0,
                    ..Tuning::default()
                },
                ..quiet()
            },
            "tuning.curvature_decrease",
        ),
        (
            Settings {
                tuning: Tuning {
                    inertia: InertiaSettings {
                        shift_first: 1e50,
                        ..InertiaSettings::default()
                    },
                    ..Tuning::default()
                },
                ..quiet()
            },
            "tuning.inertia.shift_first",
        ),
        (
            Settings {
                tuning: Tuning {
                    qp: ActiveSetSettings {
                        rounds: 0,
                        ..ActiveSetSettings::default()
                    },
                    ..Tuning::default()
                },
                ..quiet()
            },
            "tuning.qp.rounds",
        ),
    ];
    for (settings, field) in cases {
        match Solver::new(settings) {
            Err(SolverError::InvalidSetting { field: f, .. }) => assert_eq!(f, field),
            other => panic!("{field}: expected an invalid-setting error, got {other:?}"),
        }
    }
    assert!(Settings::default().validate().is_ok());
}

#[test]
fn osqp_selection_matches_the_build() {
    let result = Settings {
        qp: QpBackend::Osqp,
        ..quiet()
    }
    .validate();
    if cfg!(feature = "osqp") {
        assert!(result.is_ok());
    } else {
        assert_eq!(result, Err(SolverError::BackendUnavailable("osqp")));
        assert!(result.unwrap_err().to_string().contains("--features osqp"));
    }
}

#[test]
fn settings_deserialize_from_a_partial_yaml() {
    let yaml =
        "qp: osqp\nhessian: bfgs\ntolerance: 1.0e-8\nmax_iterations: 50\ntime_limit_s: 2.5\n";
    let settings: Settings = serde_yaml_ng::from_str(yaml).unwrap();
    assert_eq!(settings.qp, QpBackend::Osqp);
    assert_eq!(settings.hessian, HessianStrategy::Bfgs);
    assert_eq!(settings.tolerance, 1e-8);
    assert_eq!(settings.max_iterations, 50);
    assert_eq!(settings.time_limit_s, Some(2.5));
    assert_eq!(
        settings.constraint_tolerance,
        Settings::default().constraint_tolerance
    );
    let tuned: Settings =
        serde_yaml_ng::from_str("tuning: {filter_min_step: 0.05, qp: {rounds: 8}}\n").unwrap();
    assert_eq!(tuned.tuning.filter_min_step, 0.05);
    assert_eq!(tuned.tuning.qp.rounds, 8);
    assert_eq!(
        tuned.tuning.qp.tolerance,
        ActiveSetSettings::default().tolerance
    );
    let inertia: Settings =
        serde_yaml_ng::from_str("tuning: {inertia: {shift_first: 1.0e-3}}\n").unwrap();
    assert_eq!(inertia.tuning.inertia.shift_first, 1e-3);
    assert_eq!(
        inertia.tuning.inertia.shift_max,
        InertiaSettings::default().shift_max
    );
    let misspelt = serde_yaml_ng::from_str::<Settings>("tuning: {qp: {round: 8}}\n");
    assert!(misspelt.unwrap_err().to_string().contains("round"));
    let unknown = serde_yaml_ng::from_str::<Settings>("tolerence: 1.0e-8\n");
    assert!(unknown.unwrap_err().to_string().contains("tolerence"));
    let bad_backend = serde_yaml_ng::from_str::<Settings>("qp: gurobi\n");
    assert!(bad_backend.is_err());
    let json = serde_json::to_string(&Settings::default()).unwrap();
    let back: Settings = serde_json::from_str(&json).unwrap();
    assert_eq!(back, Settings::default());
}

#[test]
fn inconsistent_problems_are_rejected() {
    let solver = Solver::new(quiet()).unwrap();
    let expect_invalid = |problem: &mut Dense, what: &str| match solver.solve(problem) {
        Err(SolverError::InvalidProblem(message)) => {
            assert!(message.contains(what), "{message}")
        }
        other => panic!("expected InvalidProblem({what}), got {other:?}"),
    };
    let mut crossed = hs::hs071();
    crossed.x_lower[2] = 6.0;
    expect_invalid(&mut crossed, "variable 2");
    let mut no_hessian = hs::hs071();
    no_hessian.hessian = false;
    expect_invalid(&mut no_hessian, "hessian_structure");
    let mut bad_pair = hs::hs071();
    bad_pair.pairs = vec![Complementarity {
        a: ComplementarityTerm::Variable(0),
        b: ComplementarityTerm::Constraint(7),
    }];
    expect_invalid(&mut bad_pair, "out of range");

    struct OutOfRange(Dense);
    impl Nlp for OutOfRange {
        fn num_variables(&self) -> usize {
            self.0.n
        }
        fn num_constraints(&self) -> usize {
            self.0.m
        }
        fn variable_bounds(&self, l: &mut [f64], u: &mut [f64]) {
            self.0.variable_bounds(l, u)
        }
        fn constraint_bounds(&self, l: &mut [f64], u: &mut [f64]) {
            self.0.constraint_bounds(l, u)
        }
        fn initial_point(&self, x: &mut [f64]) {
            self.0.initial_point(x)
        }
        fn objective(&mut self, x: &[f64]) -> Result<f64, EvalError> {
            self.0.objective(x)
        }
        fn gradient(&mut self, x: &[f64], g: &mut [f64]) -> Result<(), EvalError> {
            self.0.gradient(x, g)
        }
        fn constraints(&mut self, x: &[f64], c: &mut [f64]) -> Result<(), EvalError> {
            self.0.constraints(x, c)
        }
        fn jacobian_structure(&self) -> Vec<(usize, usize)> {
            vec![(0, 9)]
        }
        fn jacobian_values(&mut self, _x: &[f64], _v: &mut [f64]) -> Result<(), EvalError> {
            Ok(())
        }
    }
    let bfgs = Solver::new(Settings {
        hessian: HessianStrategy::Bfgs,
        ..quiet()
    })
    .unwrap();
    match bfgs.solve(&mut OutOfRange(hs::hs071())) {
        Err(SolverError::InvalidProblem(message)) => assert!(message.contains("Jacobian")),
        other => panic!("expected InvalidProblem, got {other:?}"),
    }
}

/// Pendulum swing-up by explicit Euler: knots `(θₖ, ωₖ, uₖ)`, `θₖ₊₁ = θₖ + h ωₖ`,
/// `ωₖ₊₁ = ωₖ + h (uₖ - sin θₖ)`, from rest at `θ = 0` to rest at `θ = π`, minimizing
/// `h Σ uₖ²`. Each knot is a variable group; the Jacobian is banded.
struct SwingUp {
    knots: usize,
    h: f64,
}

impl SwingUp {
    fn var(&self, k: usize, i: usize) -> usize {
        3 * k + i
    }
}

impl Nlp for SwingUp {
    fn num_variables(&self) -> usize {
        3 * self.knots
    }
    fn num_constraints(&self) -> usize {
        2 * (self.knots - 1)
    }
    fn variable_bounds(&self, lower: &mut [f64], upper: &mut [f64]) {
        lower.fill(-INF);
        upper.fill(INF);
        let last = self.knots - 1;
        for (k, theta) in [(0, 0.0), (last, std::f64::consts::PI)] {
            lower[self.var(k, 0)] = theta;
            upper[self.var(k, 0)] = theta;
            lower[self.var(k, 1)] = 0.0;
            upper[self.var(k, 1)] = 0.0;
        }
    }
    fn constraint_bounds(&self, lower: &mut [f64], upper: &mut [f64]) {
        lower.fill(0.0);
        upper.fill(0.0);
    }
    fn initial_point(&self, x: &mut [f64]) {
        let n = (self.knots - 1) as f64;
        for k in 0..self.knots {
            x[self.var(k, 0)] = std::f64::consts::PI * k as f64 / n;
            x[self.var(k, 1)] = std::f64::consts::PI / (n * self.h);
            x[self.var(k, 2)] = 0.0;
        }
    }
    fn objective(&mut self, x: &[f64]) -> Result<f64, EvalError> {
        Ok(self.h
            * (0..self.knots)
                .map(|k| x[self.var(k, 2)].powi(2))
                .sum::<f64>())
    }
    fn gradient(&mut self, x: &[f64], g: &mut [f64]) -> Result<(), EvalError> {
        g.fill(0.0);
        for k in 0..self.knots {
            g[self.var(k, 2)] = 2.0 * self.h * x[self.var(k, 2)];
        }
        Ok(())
    }
    fn constraints(&mut self, x: &[f64], c: &mut [f64]) -> Result<(), EvalError> {
        for k in 0..self.knots - 1 {
            let (th, om, u) = (x[self.var(k, 0)], x[self.var(k, 1)], x[self.var(k, 2)]);
            c[2 * k] = x[self.var(k + 1, 0)] - th - self.h * om;
            c[2 * k + 1] = x[self.var(k + 1, 1)] - om - self.h * (u - th.sin());
        }
        Ok(())
    }
    fn jacobian_structure(&self) -> Vec<(usize, usize)> {
        let mut s = Vec::new();
        for k in 0..self.knots - 1 {
            let r = 2 * k;
            s.extend([
                (r, self.var(k + 1, 0)),
                (r, self.var(k, 0)),
                (r, self.var(k, 1)),
                (r + 1, self.var(k + 1, 1)),
                (r + 1, self.var(k, 1)),
                (r + 1, self.var(k, 2)),
                (r + 1, self.var(k, 0)),
            ]);
        }
        s
    }
    fn jacobian_values(&mut self, x: &[f64], values: &mut [f64]) -> Result<(), EvalError> {
        for k in 0..self.knots - 1 {
            let th = x[self.var(k, 0)];
            values[7 * k..7 * k + 7].copy_from_slice(&[
                1.0,
                -1.0,
                -self.h,
                1.0,
                -1.0,
                -self.h,
                self.h * th.cos(),
            ]);
        }
        Ok(())
    }
    fn hessian_structure(&self) -> Option<Vec<(usize, usize)>> {
        Some(
            (0..self.knots)
                .flat_map(|k| {
                    [
                        (self.var(k, 0), self.var(k, 0)),
                        (self.var(k, 2), self.var(k, 2)),
                    ]
                })
                .collect(),
        )
    }
    fn hessian_values(
        &mut self,
        x: &[f64],
        obj_factor: f64,
        lambda: &[f64],
        values: &mut [f64],
    ) -> Result<(), EvalError> {
        for k in 0..self.knots {
            let curvature = if k + 1 < self.knots {
                -lambda[2 * k + 1] * self.h * x[self.var(k, 0)].sin()
            } else {
                0.0
            };
            values[2 * k] = curvature;
            values[2 * k + 1] = 2.0 * self.h * obj_factor;
        }
        Ok(())
    }
    fn variable_groups(&self) -> Option<Vec<std::ops::Range<usize>>> {
        Some((0..self.knots).map(|k| 3 * k..3 * k + 3).collect())
    }
}

#[test]
fn swing_up_trajectory_with_exact_and_block_bfgs_hessians() {
    let mut objectives = Vec::new();
    for qp in backends() {
        for hessian in [HessianStrategy::Exact, HessianStrategy::Bfgs] {
            let mut problem = SwingUp { knots: 41, h: 0.1 };
            let result = solve(
                &mut problem,
                Settings {
                    qp,
                    hessian,
                    ..quiet()
                },
            );
            assert_eq!(
                result.status,
                Status::Converged,
                "{qp:?}/{hessian:?}: {} after {} iterations",
                result.message,
                result.iterations
            );
            assert!(result.residuals.primal_infeasibility <= 1e-6);
            objectives.push(result.objective);
        }
    }
    for f in &objectives {
        assert!(
            (f - objectives[0]).abs() <= 1e-5 * objectives[0],
            "{objectives:?}"
        );
    }
}

/// A QP backend of the caller's: Clarabel behind a counter.
struct CountingQp {
    inner: vito::qp::ClarabelQp,
    calls: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl vito::qp::QpSolver for CountingQp {
    fn name(&self) -> &'static str {
        "counting"
    }

    fn solve(
        &mut self,
        qp: &vito::qp::QpProblem<'_>,
        warm_x: &[f64],
        warm_y: &[f64],
        solution: &mut vito::qp::QpSolution,
    ) {
        self.calls
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.inner.solve(qp, warm_x, warm_y, solution);
    }
}

/// `Solver::with_qp_solver` puts the caller's backend in place of the one the settings name:
/// the solve calls it (for its first QP at least) and converges as with Clarabel.
#[test]
fn user_supplied_qp_solver_is_used() {
    let calls = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = calls.clone();
    let solver = Solver::new(quiet())
        .expect("valid settings")
        .with_qp_solver(move || {
            Box::new(CountingQp {
                inner: vito::qp::ClarabelQp::new(1e-9, 1000),
                calls: counter.clone(),
            })
        });
    let mut problem = hs::hs071();
    let result = solver.solve(&mut problem).expect("valid problem");
    assert_eq!(result.status, Status::Converged);
    assert!((result.objective - problem.f_star).abs() < 1e-6);
    assert!(calls.load(std::sync::atomic::Ordering::Relaxed) >= 1);
}

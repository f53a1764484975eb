//! Mathematical programs with complementarity constraints (MacMPEC problems with published
//! solutions, and a larger family of independent pairs).

mod common;

use common::{Dense, INF, check_derivatives, hs::base};
use vito::nlp::{
    Complementarity, ComplementarityTerm as Term, EvalError, Method, Nlp, Settings, SolverResult,
    Status,
};
use vito::optimizer::Solver;

fn pair(a: Term, b: Term) -> Complementarity {
    Complementarity { a, b }
}

/// MacMPEC `gauvin` (Gauvin & Savard): `min x² + (y - 10)²` with `0 <= x <= 15` and `y`
/// solving an MCP, written with a multiplier `u`: `0 <= y ⟂ 4(x + 2y - 30) + u >= 0`,
/// `0 <= u ⟂ 20 - x - y >= 0`. Published optimum 20 at `(x, y, u) = (2, 14, 0)`.
fn gauvin() -> Dense {
    Dense {
        x0: vec![7.5, 0.0, 1.0],
        x_lower: vec![0.0, 0.0, 0.0],
        x_upper: vec![15.0, INF, INF],
        c_lower: vec![0.0, 0.0],
        c_upper: vec![INF, INF],
        f: |x| x[0] * x[0] + (x[1] - 10.0).powi(2),
        grad: |x, g| {
            g[0] = 2.0 * x[0];
            g[1] = 2.0 * (x[1] - 10.0);
            g[2] = 0.0;
        },
        cons: |x, c| {
            c[0] = 4.0 * (x[0] + 2.0 * x[1] - 30.0) + x[2];
            c[1] = 20.0 - x[0] - x[1];
        },
        jac: |_, j| j.copy_from_slice(&[4.0, 8.0, 1.0, -1.0, -1.0, 0.0]),
        hess: |_, s, _, h| {
            h[0] = 2.0 * s;
            h[4] = 2.0 * s;
        },
        f_star: 20.0,
        x_star: vec![2.0, 14.0, 0.0],
        pairs: vec![
            pair(Term::Variable(1), Term::Constraint(0)),
            pair(Term::Variable(2), Term::Constraint(1)),
        ],
        ..base("gauvin", 3, 2)
    }
}

/// MacMPEC `ralph2`: `min x² + y² - 4xy` with `0 <= x ⟂ y >= 0` from `(1, 1)`; optimum 0
/// at the origin.
fn ralph2() -> Dense {
    Dense {
        x0: vec![1.0, 1.0],
        x_lower: vec![0.0, 0.0],
        f: |x| x[0] * x[0] + x[1] * x[1] - 4.0 * x[0] * x[1],
        grad: |x, g| {
            g[0] = 2.0 * x[0] - 4.0 * x[1];
            g[1] = 2.0 * x[1] - 4.0 * x[0];
        },
        hess: |_, s, _, h| {
            h[0] = 2.0 * s;
            h[2] = -4.0 * s;
            h[3] = 2.0 * s;
        },
        f_star: 0.0,
        x_star: vec![0.0, 0.0],
        pairs: vec![pair(Term::Variable(0), Term::Variable(1))],
        ..base("ralph2", 2, 0)
    }
}

/// MacMPEC `desilva` (Facchinei, Jiang & Qi, problem 5): variables `x ∈ [0, 2]²`, `y`,
/// `l >= 0`; `min x₁² - 2x₁ + x₂² - 2x₂ + y₁² + y₂²` subject to the lower-level stationarity
/// `2yᵢ - 2xᵢ + 2(yᵢ - 1)lᵢ = 0` and `0 <= 0.25 - (yᵢ - 1)² ⟂ lᵢ >= 0`. Published optimum
/// -1 at `x = y = (0.5, 0.5)`, `l = 0`.
fn desilva() -> Dense {
    Dense {
        x0: vec![0.0; 6],
        x_lower: vec![0.0, 0.0, -INF, -INF, 0.0, 0.0],
        x_upper: vec![2.0, 2.0, INF, INF, INF, INF],
        c_lower: vec![0.0; 4],
        c_upper: vec![0.0, 0.0, INF, INF],
        f: |x| x[0] * x[0] - 2.0 * x[0] + x[1] * x[1] - 2.0 * x[1] + x[2] * x[2] + x[3] * x[3],
        grad: |x, g| {
            g.copy_from_slice(&[
                2.0 * x[0] - 2.0,
                2.0 * x[1] - 2.0,
                2.0 * x[2],
                2.0 * x[3],
                0.0,
                0.0,
            ]);
        },
        cons: |x, c| {
            for i in 0..2 {
                c[i] = 2.0 * x[2 + i] - 2.0 * x[i] + 2.0 * (x[2 + i] - 1.0) * x[4 + i];
                c[2 + i] = 0.25 - (x[2 + i] - 1.0).powi(2);
            }
        },
        jac: |x, j| {
            j.fill(0.0);
            for i in 0..2 {
                j[i * 6 + i] = -2.0;
                j[i * 6 + 2 + i] = 2.0 + 2.0 * x[4 + i];
                j[i * 6 + 4 + i] = 2.0 * (x[2 + i] - 1.0);
                j[(2 + i) * 6 + 2 + i] = -2.0 * (x[2 + i] - 1.0);
            }
        },
        hess: |_, s, l, h| {
            for i in 0..2 {
                h[i * 6 + i] = 2.0 * s;
                let y = 2 + i;
                h[y * 6 + y] = 2.0 * s - 2.0 * l[2 + i];
                h[(4 + i) * 6 + y] = 2.0 * l[i];
            }
        },
        f_star: -1.0,
        x_star: vec![0.5, 0.5, 0.5, 0.5, 0.0, 0.0],
        pairs: vec![
            pair(Term::Constraint(2), Term::Variable(4)),
            pair(Term::Constraint(3), Term::Variable(5)),
        ],
        ..base("desilva", 6, 4)
    }
}

fn settings() -> Settings {
    Settings {
        method: Method::Sqp,
        print_level: 0,
        ..Settings::default()
    }
}

fn solve_and_check(mut problem: Dense, settings: Settings) -> SolverResult {
    let result = Solver::new(settings)
        .expect("valid settings")
        .solve(&mut problem)
        .expect("valid problem");
    let name = problem.name;
    assert_eq!(
        result.status,
        Status::Converged,
        "{name}: {}",
        result.message
    );
    assert!(
        (result.objective - problem.f_star).abs() <= 1e-6 * problem.f_star.abs().max(1.0),
        "{name}: f = {} but f* = {}",
        result.objective,
        problem.f_star
    );
    assert!(problem.violation(&result.x) <= 1e-6, "{name}: infeasible");
    assert!(result.residuals.complementarity_violation <= 1e-6, "{name}");
    for (x, x_star) in result.x.iter().zip(&problem.x_star) {
        assert!((x - x_star).abs() <= 1e-4, "{name}: x = {:?}", result.x);
    }
    result
}

#[test]
fn mpcc_derivatives_match_finite_differences() {
    for p in [gauvin(), ralph2(), desilva()] {
        check_derivatives(&p, &p.x0);
        let shifted: Vec<f64> = p.x_star.iter().map(|v| v + 0.2).collect();
        check_derivatives(&p, &shifted);
    }
}

#[test]
fn gauvin_clarabel() {
    solve_and_check(gauvin(), settings());
}

#[test]
fn ralph2_clarabel() {
    solve_and_check(ralph2(), settings());
}

#[test]
fn desilva_clarabel() {
    solve_and_check(desilva(), settings());
}

/// The interior-point method relaxes the pairs as the SQP does (`Method::Auto` gives problems
/// with pairs to the SQP: on `desilva` it ends `LineSearchFailure`).
#[test]
fn gauvin_and_ralph2_with_the_interior_point_method() {
    for problem in [gauvin(), ralph2()] {
        let result = solve_and_check(
            problem,
            Settings {
                method: Method::InteriorPoint,
                ..settings()
            },
        );
        assert_eq!(result.method, Method::InteriorPoint);
    }
}

/// `ralph2` is left out for OSQP: its solution is biactive, so the relaxation has to reach
/// `ε ≈ 10⁻¹³` (both sides near `√ε`), and on those nearly degenerate subproblems OSQP's ADMM
/// does not reach the 10⁻⁹ accuracy within its iteration limit (the solve ends `QpFailure`).
#[cfg(feature = "osqp")]
mod osqp {
    use super::*;
    use vito::nlp::QpBackend;

    fn osqp() -> Settings {
        Settings {
            qp: QpBackend::Osqp,
            ..settings()
        }
    }

    #[test]
    fn gauvin_osqp() {
        solve_and_check(gauvin(), osqp());
    }

    #[test]
    fn desilva_osqp() {
        solve_and_check(desilva(), osqp());
    }
}

/// `min Σ (aᵢ - pᵢ)² + (bᵢ - qᵢ)²` with `0 <= aᵢ ⟂ bᵢ >= 0` for many independent pairs, half
/// of them declared on constraint rows `cᵢ = bᵢ`: every local solution puts each pair at
/// `(pᵢ, 0)` or `(0, qᵢ)`.
struct ManyPairs {
    p: Vec<f64>,
    q: Vec<f64>,
}

impl ManyPairs {
    fn new(count: usize) -> Self {
        let p = (0..count).map(|i| 1.0 + 0.01 * i as f64).collect();
        let q = (0..count).map(|i| 2.0 - 0.007 * i as f64).collect();
        Self { p, q }
    }
    fn count(&self) -> usize {
        self.p.len()
    }
    fn constrained(&self) -> usize {
        self.count() / 2
    }
}

impl Nlp for ManyPairs {
    fn num_variables(&self) -> usize {
        2 * self.count()
    }
    fn num_constraints(&self) -> usize {
        self.constrained()
    }
    fn variable_bounds(&self, lower: &mut [f64], upper: &mut [f64]) {
        lower.fill(0.0);
        upper.fill(f64::INFINITY);
    }
    fn constraint_bounds(&self, lower: &mut [f64], upper: &mut [f64]) {
        lower.fill(0.0);
        upper.fill(f64::INFINITY);
    }
    fn initial_point(&self, x: &mut [f64]) {
        for i in 0..self.count() {
            x[2 * i] = self.p[i];
            x[2 * i + 1] = self.q[i];
        }
    }
    fn objective(&mut self, x: &[f64]) -> Result<f64, EvalError> {
        Ok((0..self.count())
            .map(|i| (x[2 * i] - self.p[i]).powi(2) + (x[2 * i + 1] - self.q[i]).powi(2))
            .sum())
    }
    fn gradient(&mut self, x: &[f64], g: &mut [f64]) -> Result<(), EvalError> {
        for i in 0..self.count() {
            g[2 * i] = 2.0 * (x[2 * i] - self.p[i]);
            g[2 * i + 1] = 2.0 * (x[2 * i + 1] - self.q[i]);
        }
        Ok(())
    }
    fn constraints(&mut self, x: &[f64], c: &mut [f64]) -> Result<(), EvalError> {
        for (i, ci) in c.iter_mut().enumerate() {
            *ci = x[2 * i + 1];
        }
        Ok(())
    }
    fn jacobian_structure(&self) -> Vec<(usize, usize)> {
        (0..self.constrained()).map(|i| (i, 2 * i + 1)).collect()
    }
    fn jacobian_values(&mut self, _x: &[f64], values: &mut [f64]) -> Result<(), EvalError> {
        values.fill(1.0);
        Ok(())
    }
    fn hessian_structure(&self) -> Option<Vec<(usize, usize)>> {
        Some((0..self.num_variables()).map(|j| (j, j)).collect())
    }
    fn hessian_values(
        &mut self,
        _x: &[f64],
        obj_factor: f64,
        _lambda: &[f64],
        values: &mut [f64],
    ) -> Result<(), EvalError> {
        values.fill(2.0 * obj_factor);
        Ok(())
    }
    fn variable_groups(&self) -> Option<Vec<std::ops::Range<usize>>> {
        Some((0..self.count()).map(|i| 2 * i..2 * i + 2).collect())
    }
    fn complementarities(&self) -> Vec<Complementarity> {
        (0..self.count())
            .map(|i| {
                let b = if i < self.constrained() {
                    Term::Constraint(i)
                } else {
                    Term::Variable(2 * i + 1)
                };
                pair(Term::Variable(2 * i), b)
            })
            .collect()
    }
}

#[test]
fn many_pairs_reach_a_complementary_local_solution() {
    let mut problem = ManyPairs::new(300);
    let result = Solver::new(settings())
        .unwrap()
        .solve(&mut problem)
        .unwrap();
    assert_eq!(result.status, Status::Converged, "{}", result.message);
    assert!(result.residuals.complementarity_violation <= 1e-6);
    for i in 0..problem.count() {
        let (a, b) = (result.x[2 * i], result.x[2 * i + 1]);
        let at_a = (a - problem.p[i]).abs() < 1e-5 && b.abs() < 1e-5;
        let at_b = a.abs() < 1e-5 && (b - problem.q[i]).abs() < 1e-5;
        assert!(at_a || at_b, "pair {i}: ({a}, {b})");
    }
}

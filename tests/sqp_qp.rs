//! The QP backends on their own: row kinds, multiplier signs, in-place updates and honest
//! statuses.

use nalgebra_sparse::{CooMatrix, CscMatrix};
use vito::qp::{ClarabelQp, QpProblem, QpSolution, QpSolver, QpStatus};

fn backends() -> Vec<Box<dyn QpSolver>> {
    let clarabel: Box<dyn QpSolver> = Box::new(ClarabelQp::new(1e-9, 100_000));
    std::iter::once(clarabel).chain(osqp()).collect()
}

#[cfg(feature = "osqp")]
fn osqp() -> Option<Box<dyn QpSolver>> {
    Some(Box::new(vito::qp::OsqpQp::new(1e-9, 100_000)))
}

#[cfg(not(feature = "osqp"))]
fn osqp() -> Option<Box<dyn QpSolver>> {
    None
}

fn csc(rows: usize, cols: usize, entries: &[(usize, usize, f64)]) -> CscMatrix<f64> {
    let mut coo = CooMatrix::new(rows, cols);
    for &(r, c, v) in entries {
        coo.push(r, c, v);
    }
    CscMatrix::from(&coo)
}

const INF: f64 = f64::INFINITY;

/// `min ½‖x‖² - x₀ - x₁` subject to an equality, a one-sided row, a range row that ends up
/// active at its lower side, and a free row.
struct Fixture {
    hessian: CscMatrix<f64>,
    constraints: CscMatrix<f64>,
    linear: Vec<f64>,
    lower: Vec<f64>,
    upper: Vec<f64>,
}

impl Fixture {
    fn new() -> Self {
        Self {
            hessian: csc(2, 2, &[(0, 0, 1.0), (1, 1, 1.0)]),
            constraints: csc(
                4,
                2,
                &[
                    (0, 0, 1.0),
                    (0, 1, 1.0),
                    (1, 0, 1.0),
                    (1, 1, -1.0),
                    (2, 0, 1.0),
                    (3, 1, 1.0),
                ],
            ),
            linear: vec![-1.0, -1.0],
            lower: vec![1.0, -INF, 0.7, -INF],
            upper: vec![1.0, 0.5, 10.0, INF],
        }
    }

    fn qp(&self) -> QpProblem<'_> {
        QpProblem {
            hessian: &self.hessian,
            linear: &self.linear,
            constraints: &self.constraints,
            lower: &self.lower,
            upper: &self.upper,
        }
    }
}

fn close(a: &[f64], b: &[f64], tol: f64) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol)
}

#[test]
fn solutions_and_multiplier_signs_agree_across_backends() {
    for mut backend in backends() {
        let fixture = Fixture::new();
        let mut solution = QpSolution::default();
        backend.solve(&fixture.qp(), &[], &[], &mut solution);
        let name = backend.name();
        assert_eq!(
            solution.status,
            QpStatus::Solved,
            "{name}: {}",
            solution.message
        );
        // x = (0.7, 0.3): equality multiplier 0.7, range row at its lower side -0.4.
        assert!(
            close(&solution.x, &[0.7, 0.3], 1e-7),
            "{name}: {:?}",
            solution.x
        );
        assert!(
            close(&solution.y, &[0.7, 0.0, -0.4, 0.0], 1e-6),
            "{name}: {:?}",
            solution.y
        );
    }
}

#[test]
fn updated_values_give_the_same_answer_as_a_fresh_setup() {
    for mut backend in backends() {
        let mut fixture = Fixture::new();
        let mut solution = QpSolution::default();
        backend.solve(&fixture.qp(), &[], &[], &mut solution);
        // New values on the same pattern: x₀ - x₁ <= -0.2 becomes active at its upper side.
        fixture.hessian.values_mut().copy_from_slice(&[2.0, 1.0]);
        fixture.linear = vec![-3.0, 0.0];
        fixture.lower[2] = 0.0;
        fixture.upper[1] = -0.2;
        let guess_y = solution.y.clone();
        let guess_x = solution.x.clone();
        backend.solve(&fixture.qp(), &guess_x, &guess_y, &mut solution);
        assert_eq!(solution.status, QpStatus::Solved, "{}", backend.name());
        let mut fresh = backends().remove(0);
        let mut reference = QpSolution::default();
        fresh.solve(&fixture.qp(), &[], &[], &mut reference);
        assert!(close(&solution.x, &reference.x, 1e-7), "{}", backend.name());
        assert!(close(&solution.y, &reference.y, 1e-6), "{}", backend.name());
        // x = (0.4, 0.6) with the upper side of row 1 active: multiplier +1.4.
        assert!(close(&solution.x, &[0.4, 0.6], 1e-7), "{:?}", solution.x);
        assert!((solution.y[1] - 1.4).abs() < 1e-6, "{:?}", solution.y);
    }
}

#[test]
fn inconsistent_constraints_are_reported_infeasible() {
    for mut backend in backends() {
        let mut fixture = Fixture::new();
        // x₀ + x₁ = 1 and x₀ >= 0.7 and x₁ >= 0.5 cannot all hold.
        fixture.lower[3] = 0.5;
        let mut solution = QpSolution::default();
        backend.solve(&fixture.qp(), &[], &[], &mut solution);
        assert_eq!(
            solution.status,
            QpStatus::PrimalInfeasible,
            "{}: {}",
            backend.name(),
            solution.message
        );
        assert!(!solution.status.has_solution());
    }
}

// The working-set solver (`ActiveSetQp`) on QPs solved by hand.

use vito::qp::{
    ActiveSetFailure, ActiveSetQp, ActiveSetSettings, FaceSolution, InertiaSettings, Side,
};

type Answer = (Result<FaceSolution, ActiveSetFailure>, Vec<f64>, Vec<f64>);

/// A QP with dense data, for the working-set tests.
struct Qp {
    hessian: CscMatrix<f64>,
    constraints: CscMatrix<f64>,
    linear: Vec<f64>,
    lower: Vec<f64>,
    upper: Vec<f64>,
}

impl Qp {
    /// `p` lists the upper triangle of `P` as `(row, column, value)`, `a` the rows of `A`.
    fn new(
        n: usize,
        p: &[(usize, usize, f64)],
        q: &[f64],
        a: &[&[f64]],
        l: &[f64],
        u: &[f64],
    ) -> Self {
        let mut entries = Vec::new();
        for (i, row) in a.iter().enumerate() {
            for (j, &v) in row.iter().enumerate() {
                if v != 0.0 {
                    entries.push((i, j, v));
                }
            }
        }
        let mut upper = p.to_vec();
        for j in 0..n {
            if !p.iter().any(|&(r, c, _)| r == j && c == j) {
                upper.push((j, j, 0.0));
            }
        }
        Self {
            hessian: csc(n, n, &upper),
            constraints: csc(a.len(), n, &entries),
            linear: q.to_vec(),
            lower: l.to_vec(),
            upper: u.to_vec(),
        }
    }

    fn qp(&self) -> QpProblem<'_> {
        QpProblem {
            hessian: &self.hessian,
            linear: &self.linear,
            constraints: &self.constraints,
            lower: &self.lower,
            upper: &self.upper,
        }
    }

    /// `‖(P + δI)x + q + Aᵀy‖∞`.
    fn stationarity(&self, x: &[f64], y: &[f64], shift: f64) -> f64 {
        let p = nalgebra::DMatrix::from(&self.hessian);
        let full = &p + p.transpose() - nalgebra::DMatrix::from_diagonal(&p.diagonal());
        let a = nalgebra::DMatrix::from(&self.constraints);
        let x = nalgebra::DVector::from_column_slice(x);
        let y = nalgebra::DVector::from_column_slice(y);
        let r = &full * &x
            + shift * &x
            + nalgebra::DVector::from_column_slice(&self.linear)
            + a.transpose() * y;
        r.amax()
    }

    fn solve(&self, sides: &mut [Side]) -> Answer {
        self.solve_with(sides, &ActiveSetSettings::default())
    }

    fn solve_with(&self, sides: &mut [Side], settings: &ActiveSetSettings) -> Answer {
        let qp = self.qp();
        let mut solver = ActiveSetQp::new(
            &qp,
            &ActiveSetSettings::default(),
            &InertiaSettings::default(),
        );
        let (mut x, mut y) = (vec![0.0; self.linear.len()], vec![0.0; self.lower.len()]);
        let result = solver.solve(&qp, sides, 0.0, settings, &mut x, &mut y);
        (result, x, y)
    }
}

/// `min ½‖x − (3, 3)‖²` with `x₀ <= 1`, `x₁ <= 1` and their mean `(x₀ + x₁)/2 <= 1` (the
/// speed rows of a trajectory at their bound: three active rows of rank two), and the same
/// row written twice: the solution `(1, 1)` with any nonnegative multipliers that balance the
/// gradient `(2, 2)`.
#[test]
fn degenerate_active_set_is_solved() {
    let qp = Qp::new(
        2,
        &[(0, 0, 1.0), (1, 1, 1.0)],
        &[-3.0, -3.0],
        &[&[1.0, 0.0], &[0.0, 1.0], &[0.5, 0.5], &[0.5, 0.5]],
        &[-INF; 4],
        &[1.0; 4],
    );
    for start in [vec![Side::Inactive; 4], vec![Side::Upper; 4]] {
        let mut sides = start;
        let (result, x, y) = qp.solve(&mut sides);
        let solution = result.expect("solved");
        assert_eq!(solution.shift, 0.0);
        assert!(close(&x, &[1.0, 1.0], 1e-9), "{x:?}");
        assert!(y.iter().all(|&v| v >= -1e-9), "{y:?}");
        assert!(qp.stationarity(&x, &y, 0.0) < 1e-8, "{y:?}");
    }
}

/// `min ½‖x − (3, 1 + ε)‖²` with `x₀ <= 1` and `x₀ + εx₁ <= 1 + ε` (`ε = 10⁻⁵`), nearly
/// dependent rows, both active at the solution `(1, 1)` with multipliers `(1, 1)` (by hand:
/// the gradient `(2, ε)` is `y₀(1, 0) + y₁(1, ε)`). The face's smaller singular value squared
/// (`ε²/2`) is far below the dual regularization, where refinement on the regularized
/// factorization stalls and the face counted as inconsistent.
#[test]
fn nearly_dependent_active_rows_are_solved() {
    let eps = 1e-5;
    let qp = Qp::new(
        2,
        &[(0, 0, 1.0), (1, 1, 1.0)],
        &[-3.0, -(1.0 + eps)],
        &[&[1.0, 0.0], &[1.0, eps]],
        &[-INF; 2],
        &[1.0, 1.0 + eps],
    );
    for start in [vec![Side::Inactive; 2], vec![Side::Upper; 2]] {
        let mut sides = start;
        let (result, x, y) = qp.solve(&mut sides);
        let solution = result.expect("solved");
        assert_eq!(solution.shift, 0.0);
        assert_eq!(sides, [Side::Upper; 2]);
        assert!(close(&x, &[1.0, 1.0], 1e-9), "{x:?}");
        assert!(close(&y, &[1.0, 1.0], 1e-6), "{y:?}");
        assert!(qp.stationarity(&x, &y, 0.0) < 1e-8, "{y:?}");
    }
}

/// On a given face alone: `min ½‖x − (3, 3)‖²` with `x₀ <= 1` held and `x₁ <= 1` left out
/// has the face solution `(1, 3)` with multipliers `(2, 0)` (by hand), although it breaks the
/// row outside the face; the working set stays.
#[test]
fn face_solve_keeps_the_working_set() {
    let qp = Qp::new(
        2,
        &[(0, 0, 1.0), (1, 1, 1.0)],
        &[-3.0, -3.0],
        &[&[1.0, 0.0], &[0.0, 1.0]],
        &[-INF; 2],
        &[1.0, 1.0],
    );
    let problem = qp.qp();
    let settings = ActiveSetSettings::default();
    let mut solver = ActiveSetQp::new(&problem, &settings, &InertiaSettings::default());
    let (mut x, mut y) = (vec![0.0; 2], vec![0.0; 2]);
    let sides = [Side::Upper, Side::Inactive];
    let solution = solver
        .solve_on_face(&problem, &sides, 0.0, &settings, &mut x, &mut y)
        .expect("solved");
    assert_eq!(solution.shift, 0.0);
    assert!(close(&x, &[1.0, 3.0], 1e-12), "{x:?}");
    assert!(close(&y, &[2.0, 0.0], 1e-9), "{y:?}");
}

/// `x₀ + x₁ >= 2` and `x₀ + x₁ <= 1` cannot both hold: no working set is certified.
#[test]
fn infeasible_subproblem_is_not_certified() {
    let qp = Qp::new(
        2,
        &[(0, 0, 1.0), (1, 1, 1.0)],
        &[0.0, 0.0],
        &[&[1.0, 1.0], &[1.0, 1.0]],
        &[2.0, -INF],
        &[INF, 1.0],
    );
    for start in [vec![Side::Inactive; 2], vec![Side::Lower, Side::Upper]] {
        let mut sides = start;
        let (result, _, _) = qp.solve(&mut sides);
        assert!(result.is_err(), "{result:?}");
    }
}

/// `P = diag(1, −1)`, `q = (−1, −½)`, `−1 <= x₁ <= 1`. On the face `x₁ = 1` the reduced
/// Hessian is 1: the exact local minimizer `(1, 1)` with the bound's multiplier `−(−1·1 − ½) =
/// 1.5`, no shift. With the bound inactive the reduced Hessian is `P` itself, indefinite: the
/// solver shifts it and returns the shifted QP's solution `(1/(1 + δ), ½/(δ − 1))`; its
/// proximal steps (enough of them) follow the negative curvature to the bound and end at the
/// unshifted minimizer.
#[test]
fn indefinite_reduced_hessian_is_shifted() {
    let qp = Qp::new(
        2,
        &[(0, 0, 1.0), (1, 1, -1.0)],
        &[-1.0, -0.5],
        &[&[0.0, 1.0]],
        &[-1.0],
        &[1.0],
    );
    let mut sides = vec![Side::Upper];
    let (result, x, y) = qp.solve(&mut sides);
    assert_eq!(result.expect("solved").shift, 0.0);
    assert!(
        close(&x, &[1.0, 1.0], 1e-12) && (y[0] - 1.5).abs() < 1e-12,
        "{x:?} {y:?}"
    );

    let shifted_only = ActiveSetSettings {
        proximal_steps: 0,
        ..ActiveSetSettings::default()
    };
    let mut sides = vec![Side::Inactive];
    let (result, x, y) = qp.solve_with(&mut sides, &shifted_only);
    let delta = result.expect("solved").shift;
    assert!(delta > 1.0, "{delta}");
    assert!(
        close(&x, &[1.0 / (1.0 + delta), 0.5 / (delta - 1.0)], 1e-12),
        "{x:?}"
    );
    assert!(y[0] == 0.0 && qp.stationarity(&x, &y, delta) < 1e-12);

    let followed = ActiveSetSettings {
        proximal_steps: 5000,
        ..ActiveSetSettings::default()
    };
    let mut sides = vec![Side::Inactive];
    let (result, x, y) = qp.solve_with(&mut sides, &followed);
    assert!(result.expect("solved").shift > 1.0);
    assert_eq!(sides, vec![Side::Upper]);
    assert!(
        close(&x, &[1.0, 1.0], 1e-6) && (y[0] - 1.5).abs() < 1e-6,
        "{x:?} {y:?}"
    );
}

/// An indefinite `P` whose reduced Hessian is positive definite needs no shift: `P = [[1, 2],
/// [2, 1]]` (eigenvalues 3 and −1) on `x₀ − x₁ = 0` has curvature 6 along `(1, 1)`; with
/// `q = (−3, −3)` the minimizer is `x = (½, ½)` and `y = 0`.
#[test]
fn indefinite_hessian_with_convex_face_is_not_shifted() {
    let qp = Qp::new(
        2,
        &[(0, 0, 1.0), (0, 1, 2.0), (1, 1, 1.0)],
        &[-3.0, -3.0],
        &[&[1.0, -1.0]],
        &[0.0],
        &[0.0],
    );
    let mut sides = vec![Side::Inactive];
    let (result, x, y) = qp.solve(&mut sides);
    assert_eq!(result.expect("solved").shift, 0.0);
    assert!(close(&x, &[1.0, 1.0], 1e-12), "{x:?}");
    assert!(
        y[0].abs() < 1e-12 && qp.stationarity(&x, &y, 0.0) < 1e-12,
        "{y:?}"
    );
}

/// A warm start whose working set is wrong in every row: `min ½‖x‖² − x₀ − 2x₁ − 3x₂` over
/// the box `0 <= x <= 1.5` and `x₀ + x₁ + x₂ <= 3`. By hand: with the sum row's multiplier
/// `t`, `xᵢ = clip(i + 1 − t, 0, 1.5)`, and `t = 0.75` makes the sum 3: `x = (0.25, 1.25,
/// 1.5)`, `t = 0.75` and the bound `x₂ <= 1.5` with multiplier `1.5 − 3 + 0.75 + z = 0`,
/// `z = 0.75`. The start holds the sum row inactive, `x₀` at its upper bound and `x₁`, `x₂`
/// at their lower bounds. The primal method reaches the same point from the feasible `x = 0`.
#[test]
fn wrong_warm_start_reaches_the_solution() {
    let qp = Qp::new(
        3,
        &[(0, 0, 1.0), (1, 1, 1.0), (2, 2, 1.0)],
        &[-1.0, -2.0, -3.0],
        &[
            &[1.0, 1.0, 1.0],
            &[1.0, 0.0, 0.0],
            &[0.0, 1.0, 0.0],
            &[0.0, 0.0, 1.0],
        ],
        &[-INF, 0.0, 0.0, 0.0],
        &[3.0, 1.5, 1.5, 1.5],
    );
    let (x_star, y_star) = ([0.25, 1.25, 1.5], [0.75, 0.0, 0.0, 0.75]);
    let mut sides = vec![Side::Inactive, Side::Upper, Side::Lower, Side::Lower];
    let (result, x, y) = qp.solve(&mut sides);
    let solution = result.expect("solved");
    assert!(solution.rounds > 1, "{solution:?}");
    assert!(
        close(&x, &x_star, 1e-12) && close(&y, &y_star, 1e-12),
        "{x:?} {y:?}"
    );
    assert_eq!(
        sides,
        vec![Side::Upper, Side::Inactive, Side::Inactive, Side::Upper]
    );

    let problem = qp.qp();
    let mut solver = ActiveSetQp::new(
        &problem,
        &ActiveSetSettings::default(),
        &InertiaSettings::default(),
    );
    let (mut x, mut y) = (vec![0.0; 3], vec![0.0; 4]);
    let mut sides = vec![Side::Inactive; 4];
    let solution = solver
        .solve_from(
            &problem,
            &[0.0; 3],
            &mut sides,
            0.0,
            &ActiveSetSettings::default(),
            &mut x,
            &mut y,
        )
        .expect("solved");
    assert_eq!(solution.shift, 0.0);
    assert!(
        close(&x, &x_star, 1e-12) && close(&y, &y_star, 1e-12),
        "{x:?} {y:?}"
    );
}

/// Random strictly convex QPs with equality, range and one-sided rows, from a cold working
/// set: the same solutions as Clarabel's interior point (an independent route), to 1e-7.
#[test]
fn random_convex_qps_agree_with_clarabel() {
    let mut state: u64 = 7;
    let mut uniform = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    };
    for _ in 0..20 {
        let (n, m) = (6, 5);
        let g = nalgebra::DMatrix::from_fn(n, n, |_, _| uniform());
        let p = &g * g.transpose() + nalgebra::DMatrix::identity(n, n) * 0.1;
        let upper: Vec<(usize, usize, f64)> = (0..n)
            .flat_map(|j| (0..=j).map(move |i| (i, j)))
            .map(|(i, j)| (i, j, p[(i, j)]))
            .collect();
        let rows: Vec<Vec<f64>> = (0..m)
            .map(|_| (0..n).map(|_| uniform()).collect())
            .collect();
        let row_refs: Vec<&[f64]> = rows.iter().map(Vec::as_slice).collect();
        let q: Vec<f64> = (0..n).map(|_| 3.0 * uniform()).collect();
        let lower = [0.0, -0.5, -INF, -1.0, -INF];
        let upper_bounds = [0.0, 0.5, 0.3, INF, 0.2];
        let qp = Qp::new(n, &upper, &q, &row_refs, &lower, &upper_bounds);
        let mut reference = QpSolution::default();
        ClarabelQp::new(1e-10, 1000).solve(&qp.qp(), &[], &[], &mut reference);
        assert_eq!(reference.status, QpStatus::Solved);
        let mut sides = vec![Side::Inactive; m];
        let (result, x, y) = qp.solve(&mut sides);
        assert_eq!(result.expect("solved").shift, 0.0);
        assert!(close(&x, &reference.x, 1e-7), "{x:?} vs {:?}", reference.x);
        assert!(close(&y, &reference.y, 1e-6), "{y:?} vs {:?}", reference.y);
    }
}

//! The QP backends on their own: row kinds, multiplier signs, in-place updates and honest
//! statuses.

use nalgebra_sparse::{CooMatrix, CscMatrix};
use vito::sqp::{ClarabelQp, QpProblem, QpSolution, QpSolver, QpStatus};

fn backends() -> Vec<Box<dyn QpSolver>> {
    let clarabel: Box<dyn QpSolver> = Box::new(ClarabelQp::new(1e-9, 100_000));
    std::iter::once(clarabel).chain(osqp()).collect()
}

#[cfg(feature = "osqp")]
fn osqp() -> Option<Box<dyn QpSolver>> {
    Some(Box::new(vito::sqp::OsqpQp::new(1e-9, 100_000)))
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

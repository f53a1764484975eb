//! Active-set polishing of a QP solution by a direct solve on its face.
//!
//! The QP backends stop on tolerances relative to the size of the data. With an exact
//! Hessian the QP's `P` carries the augmentation `ρN` (see `hessian.rs`), and on trajectory
//! problems `ρ` has to reach `10⁵–10⁶` relative to the diagonal of `∇²L` (the dynamics give the
//! configurations curvature of order 10–100, the effort gives the torques 10⁻²–10⁻¹); the
//! backends' answers then carry errors far above the SQP tolerances, and the iterates stall
//! short of convergence. The polish takes the QP's active set and solves the equality QP on
//! that face directly:
//!
//! ```text
//! [ P   A_Wᵀ ] [ x ]   [ -q  ]
//! [ A_W   0  ] [ y ] = [ b_W ]
//! ```
//!
//! with `W` the equality rows and the rows whose slack is smaller than their multiplier
//! (OSQP's rule: lower side active when `a_iᵀx - l_i < -y_i`, upper side when
//! `u_i - a_iᵀx < y_i`) and `b_W` the active bounds. If the face solution violates an inactive
//! row or gives an active side a multiplier of the wrong sign, those rows change sides and the
//! face is solved again (a primal-dual active-set step, at most 10 solves). The backend only
//! has to point at the right face: on the 12-link pendulum Clarabel gives up
//! (`InsufficientProgress`) on QPs whose `ρ` reaches 10⁹–10¹⁰, and its last iterate usually
//! does. `P` is positive definite on the QPs the SQP
//! poses, so the matrix is quasi-definite once its (2,2) block is given the signs of `-εI`:
//! QDLDL factors it with dynamic regularization of the pivots (expected signs `+` for `x`,
//! `−` for `y`, as Clarabel does for its own KKT systems), and iterative refinement on the
//! unregularized system removes the regularization's bias. The result replaces the backend's
//! solution only if it is primal feasible (active rows at and inactive rows within their
//! bounds) and dual feasible (multipliers of the right sign), both to `10⁻⁹` relative, which
//! certifies it as the QP's solution whatever the backend reported; otherwise the backend's
//! answer stands.

use clarabel::algebra::CscMatrix as ClarabelCsc;
use clarabel::qdldl::{QDLDLFactorisation, QDLDLSettings};

use nalgebra_sparse::CscMatrix;

use super::qp::{QpProblem, QpSolution};

/// Most iterative refinement steps after the factorization.
const REFINEMENT_STEPS: usize = 20;
/// The `ε` of the `-εI` that makes the face KKT matrix quasi-definite.
const DUAL_REGULARIZATION: f64 = 1e-9;
/// Relative tolerance of the feasibility checks.
const CHECK_TOLERANCE: f64 = 1e-9;
/// Most face solves: the backend's active set and up to this many corrections of it.
const ACTIVE_SET_ROUNDS: usize = 10;

/// Which side of a row the polish holds it at.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Side {
    Inactive,
    Lower,
    Upper,
}

/// Workspace of the polish.
#[derive(Default)]
pub(crate) struct Polish {
    sides: Vec<Side>,
    working: Vec<usize>,
    ax: Vec<f64>,
    rhs: Vec<f64>,
    solution: Vec<f64>,
    residual: Vec<f64>,
    row_entries: Vec<Vec<(usize, f64)>>,
    identity: Option<CscMatrix<f64>>,
    shifted_step: Vec<f64>,
    zeros: Vec<f64>,
    /// Numeric factorizations performed so far.
    pub(crate) factorizations: usize,
}

impl Polish {
    /// Replaces `solution` (a solution of `qp` from a backend) by the direct solution on its
    /// active face when that passes the checks; returns whether it did.
    pub(crate) fn polish(&mut self, qp: &QpProblem<'_>, solution: &mut QpSolution) -> bool {
        let n = qp.linear.len();
        let m = qp.lower.len();
        if solution.x.len() != n || solution.y.len() != m {
            return false;
        }
        self.classify(qp, solution);
        for _ in 0..ACTIVE_SET_ROUNDS {
            if !self.solve_face(qp) {
                return false;
            }
            let Some(moved) = self.correct_sides(qp) else {
                return false;
            };
            if moved == 0 {
                solution.x.copy_from_slice(&self.solution[..n]);
                solution.y.fill(0.0);
                for (k, &i) in self.working.iter().enumerate() {
                    solution.y[i] = self.solution[n + k];
                }
                return true;
            }
        }
        false
    }

    /// Removes the shift `δ` from the multipliers of `solution`, a solution of `qp` just
    /// certified by [`Polish::polish`]: `P = M + δI` for the model `M`, so `qp`'s stationarity
    /// `Px + q + A_Wᵀy = 0` leaves `M x + q + A_Wᵀy = −δx`, and the multipliers of the model
    /// on the same face are `y + μ` with `μ = argmin ‖A_Wᵀμ − δx‖` (the face KKT system with
    /// `I` for `P`). Inequality multipliers that change sign are set to zero.
    ///
    /// Without this, a shift much larger than the objective's curvature (the effort's
    /// 10⁻²–10⁻¹ against shifts of 10²) scales the multipliers with `δ`, the next Lagrangian
    /// Hessian with them, and the next shift again (observed: 10² to 10¹² within ten
    /// iterations on the 12-link pendulum).
    pub(crate) fn unshift_multipliers(
        &mut self,
        qp: &QpProblem<'_>,
        shift: f64,
        solution: &mut QpSolution,
    ) {
        let n = qp.linear.len();
        let m = qp.lower.len();
        let identity = self
            .identity
            .take()
            .filter(|i| i.nrows() == n)
            .unwrap_or_else(|| CscMatrix::identity(n));
        self.shifted_step.clear();
        self.shifted_step
            .extend(solution.x.iter().map(|x| -shift * x));
        self.zeros.clear();
        self.zeros.resize(m, 0.0);
        let shifted_step = std::mem::take(&mut self.shifted_step);
        let zeros = std::mem::take(&mut self.zeros);
        let least_squares = QpProblem {
            hessian: &identity,
            linear: &shifted_step,
            lower: &zeros,
            upper: &zeros,
            ..*qp
        };
        if self.solve_face(&least_squares) {
            for (k, &i) in self.working.iter().enumerate() {
                let y = solution.y[i] + self.solution[n + k];
                solution.y[i] = match self.sides[i] {
                    _ if qp.lower[i] == qp.upper[i] => y,
                    Side::Upper => y.max(0.0),
                    _ => y.min(0.0),
                };
            }
        }
        self.shifted_step = shifted_step;
        self.zeros = zeros;
        self.identity = Some(identity);
    }

    /// Solves the KKT system of the current face; false if the factorization fails or the
    /// solution is not finite.
    fn solve_face(&mut self, qp: &QpProblem<'_>) -> bool {
        let Some(mut factor) = self.factor(qp) else {
            return false;
        };
        self.rhs.clear();
        self.rhs.extend(qp.linear.iter().map(|q| -q));
        for &i in &self.working {
            self.rhs.push(match self.sides[i] {
                Side::Upper => qp.upper[i],
                _ => qp.lower[i],
            });
        }
        self.solution.clone_from(&self.rhs);
        factor.solve(&mut self.solution);
        let mut last = f64::INFINITY;
        for _ in 0..REFINEMENT_STEPS {
            let residual = self.kkt_residual(qp);
            if residual >= 0.5 * last {
                break;
            }
            last = residual;
            factor.solve(&mut self.residual);
            for (s, r) in self.solution.iter_mut().zip(&self.residual) {
                *s += r;
            }
        }
        self.solution.iter().all(|v| v.is_finite())
    }

    /// The active sides from the backend's solution.
    fn classify(&mut self, qp: &QpProblem<'_>, solution: &QpSolution) {
        let m = qp.lower.len();
        self.ax.clear();
        self.ax.resize(m, 0.0);
        super::sparse::add_product(qp.constraints, &solution.x, &mut self.ax);
        self.sides.clear();
        self.working.clear();
        for i in 0..m {
            let (l, u, y, ax) = (qp.lower[i], qp.upper[i], solution.y[i], self.ax[i]);
            let side = if l == u || (l.is_finite() && ax - l < -y) {
                Side::Lower
            } else if u.is_finite() && u - ax < y {
                Side::Upper
            } else {
                Side::Inactive
            };
            self.sides.push(side);
            if side != Side::Inactive {
                self.working.push(i);
            }
        }
    }

    /// Assembles and factors the face KKT matrix (upper triangle).
    fn factor(&mut self, qp: &QpProblem<'_>) -> Option<QDLDLFactorisation<f64>> {
        self.factorizations += 1;
        let n = qp.linear.len();
        let w = self.working.len();
        self.row_entries.resize_with(w, Vec::new);
        for entries in &mut self.row_entries {
            entries.clear();
        }
        let mut position = vec![usize::MAX; qp.lower.len()];
        for (k, &i) in self.working.iter().enumerate() {
            position[i] = k;
        }
        let a = qp.constraints;
        for j in 0..n {
            for k in a.col_offsets()[j]..a.col_offsets()[j + 1] {
                let p = position[a.row_indices()[k]];
                if p != usize::MAX {
                    self.row_entries[p].push((j, a.values()[k]));
                }
            }
        }
        let p = qp.hessian;
        let mut colptr = Vec::with_capacity(n + w + 1);
        let mut rowval = Vec::new();
        let mut nzval = Vec::new();
        colptr.push(0);
        for j in 0..n {
            let mut diagonal = false;
            for k in p.col_offsets()[j]..p.col_offsets()[j + 1] {
                let i = p.row_indices()[k];
                if i <= j {
                    diagonal |= i == j;
                    rowval.push(i);
                    nzval.push(p.values()[k]);
                }
            }
            if !diagonal {
                rowval.push(j);
                nzval.push(0.0);
            }
            colptr.push(rowval.len());
        }
        for (k, entries) in self.row_entries.iter().enumerate() {
            for &(j, v) in entries {
                rowval.push(j);
                nzval.push(v);
            }
            rowval.push(n + k);
            nzval.push(-DUAL_REGULARIZATION);
            colptr.push(rowval.len());
        }
        let kkt = ClarabelCsc::new(n + w, n + w, colptr, rowval, nzval);
        let mut signs = vec![1i8; n + w];
        signs[n..].fill(-1);
        let settings = QDLDLSettings {
            Dsigns: Some(signs),
            regularize_enable: true,
            ..QDLDLSettings::default()
        };
        QDLDLFactorisation::new(&kkt, Some(settings)).ok()
    }

    /// `residual = rhs - K solution` for the unregularized face KKT system; returns its
    /// largest entry.
    fn kkt_residual(&mut self, qp: &QpProblem<'_>) -> f64 {
        let n = qp.linear.len();
        self.residual.clone_from(&self.rhs);
        let (x, y) = self.solution.split_at(n);
        let p = qp.hessian;
        for j in 0..n {
            for k in p.col_offsets()[j]..p.col_offsets()[j + 1] {
                let i = p.row_indices()[k];
                let v = p.values()[k];
                if i < j {
                    self.residual[i] -= v * x[j];
                    self.residual[j] -= v * x[i];
                } else if i == j {
                    self.residual[i] -= v * x[j];
                }
            }
        }
        for (k, entries) in self.row_entries.iter().enumerate() {
            for &(j, v) in entries {
                self.residual[j] -= v * y[k];
                self.residual[n + k] -= v * x[j];
            }
        }
        self.residual.iter().fold(0.0, |a: f64, r| a.max(r.abs()))
    }

    /// Checks the face solution: active rows at their bounds, inactive rows within their
    /// bounds, active inequality sides with multipliers of the right sign. Moves every row
    /// that fails the last two to the side it violates, or out of the working set (a
    /// primal-dual active-set step), and returns how many moved: 0 certifies the face
    /// solution as the QP's solution. `None` when the face itself is inconsistent (an active
    /// row off its bound: the `-εI` block let a huge multiplier absorb it).
    fn correct_sides(&mut self, qp: &QpProblem<'_>) -> Option<usize> {
        let n = qp.linear.len();
        let m = qp.lower.len();
        self.ax.clear();
        self.ax.resize(m, 0.0);
        super::sparse::add_product(qp.constraints, &self.solution[..n], &mut self.ax);
        let y_scale = self.solution[n..]
            .iter()
            .fold(1.0, |a: f64, v| a.max(v.abs()));
        let mut k = 0;
        let mut moved = 0;
        for i in 0..m {
            let (l, u, ax) = (qp.lower[i], qp.upper[i], self.ax[i]);
            let side = self.sides[i];
            let bound = match side {
                Side::Inactive => None,
                Side::Lower => Some(l),
                Side::Upper => Some(u),
            };
            if let Some(b) = bound
                && (ax - b).abs() > CHECK_TOLERANCE * (1.0 + b.abs())
            {
                return None;
            }
            let y = if side == Side::Inactive {
                0.0
            } else {
                k += 1;
                self.solution[n + k - 1]
            };
            let corrected = if l == u {
                side
            } else if ax > u + CHECK_TOLERANCE * (1.0 + u.abs()) {
                Side::Upper
            } else if ax < l - CHECK_TOLERANCE * (1.0 + l.abs()) {
                Side::Lower
            } else {
                match side {
                    Side::Lower if y > CHECK_TOLERANCE * y_scale => Side::Inactive,
                    Side::Upper if y < -CHECK_TOLERANCE * y_scale => Side::Inactive,
                    _ => side,
                }
            };
            if corrected != side {
                self.sides[i] = corrected;
                moved += 1;
            }
        }
        if moved > 0 {
            self.working.clear();
            self.working
                .extend((0..m).filter(|&i| self.sides[i] != Side::Inactive));
        }
        Some(moved)
    }
}

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
//! `u_i - a_iᵀx < y_i`) and `b_W` the active bounds. `P` is positive definite on the QPs the SQP
//! poses, so the matrix is quasi-definite once its (2,2) block is given the signs of `-εI`:
//! QDLDL factors it with dynamic regularization of the pivots (expected signs `+` for `x`,
//! `−` for `y`, as Clarabel does for its own KKT systems), and iterative refinement on the
//! unregularized system removes the regularization's bias. The result replaces the backend's
//! solution only if it is primal feasible (inactive rows within their bounds) and dual
//! feasible (multipliers of the right sign), both to `10⁻⁹` relative; otherwise the backend's
//! answer stands.

use clarabel::algebra::CscMatrix as ClarabelCsc;
use clarabel::qdldl::{QDLDLFactorisation, QDLDLSettings};

use super::qp::{QpProblem, QpSolution};

/// Most iterative refinement steps after the factorization.
const REFINEMENT_STEPS: usize = 20;
/// The `ε` of the `-εI` that makes the face KKT matrix quasi-definite.
const DUAL_REGULARIZATION: f64 = 1e-9;
/// Relative tolerance of the feasibility checks.
const CHECK_TOLERANCE: f64 = 1e-9;

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
        let Some(mut factor) = self.factor(qp) else {
            return false;
        };
        let size = n + self.working.len();
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
        if self.solution[..size].iter().any(|v| !v.is_finite()) || !self.feasible(qp) {
            return false;
        }
        solution.x.copy_from_slice(&self.solution[..n]);
        solution.y.fill(0.0);
        for (k, &i) in self.working.iter().enumerate() {
            solution.y[i] = self.solution[n + k];
        }
        true
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

    /// Whether the face solution keeps the inactive rows within their bounds and gives the
    /// active inequality sides multipliers of the right sign.
    fn feasible(&mut self, qp: &QpProblem<'_>) -> bool {
        let n = qp.linear.len();
        let m = qp.lower.len();
        self.ax.clear();
        self.ax.resize(m, 0.0);
        super::sparse::add_product(qp.constraints, &self.solution[..n], &mut self.ax);
        let y_scale = self.solution[n..]
            .iter()
            .fold(1.0, |a: f64, v| a.max(v.abs()));
        let mut k = 0;
        for i in 0..m {
            let (l, u, ax) = (qp.lower[i], qp.upper[i], self.ax[i]);
            let primal_ok = ax >= l - CHECK_TOLERANCE * (1.0 + l.abs())
                && ax <= u + CHECK_TOLERANCE * (1.0 + u.abs());
            let dual_ok = match self.sides[i] {
                Side::Inactive => true,
                _ if l == u => true,
                Side::Lower => self.solution[n + k] <= CHECK_TOLERANCE * y_scale,
                Side::Upper => self.solution[n + k] >= -CHECK_TOLERANCE * y_scale,
            };
            if self.sides[i] != Side::Inactive {
                k += 1;
            }
            if !(primal_ok && dual_ok) {
                return false;
            }
        }
        true
    }
}

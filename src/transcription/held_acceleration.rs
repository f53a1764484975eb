//! Hermite–Simpson's stance rows at acceleration level: `J(q₀) a₀ + J̇(q₀, v₀) v₀ = 0` for each
//! stance frame at the first point (6 rows: angular, then the linear acceleration of the frame's
//! origin, world axes).
//!
//! The stance term holds each frame's pose at every point. With `v₀` given, that leaves the
//! implicit Hermite–Simpson defects one motion of the point accelerations per held coordinate,
//! `+c` at every knot and `−c/2` at every midpoint, which moves neither positions nor
//! velocities; the inverse-dynamics rows turn it into a wrench that alternates between knots
//! and midpoints. One acceleration row at one point removes it; rows at every point would be
//! dependent on the pose rows (ARCHITECTURE.md, *Stance*).
//!
//! `r(q, v, a) = J(q) a + b(q, v)` is linear in `a` and quadratic in `v`, so its derivatives
//! over `a` are `J` and over `v` central differences with a unit step (exact); over `q` they are
//! five-point central differences with the step [`Q_STEP`]. The Hessian of `λᵀr` is the same
//! differences of that gradient.

use super::common::{lower_triangle, write_lower_triangle};
use crate::collocation::{HermiteSimpsonLayout, Var};
use crate::dynamics::{
    HeldFrame, Workspace, forward_kinematics, forward_velocities, frame_bias_acceleration,
    frame_jacobian,
};
use crate::model::Model;
use crate::problem::TrajectoryProblem;
use crate::spatial::Vec6;
use nalgebra::DMatrix;

/// Step of the five-point differences over `q` (rad or m): truncation `O(h⁴)` and rounding
/// `O(ε/h)` both near 1e-13 of the values.
const Q_STEP: f64 = 1e-3;

/// Rows per held frame.
const ROWS: usize = 6;

/// The point whose acceleration is held.
const POINT: usize = 0;

/// One held frame and the joints its acceleration depends on.
struct Held {
    frame: HeldFrame,
    chain: Vec<usize>,
}

/// The acceleration rows of a problem's stances at the first point.
pub(crate) struct HeldAcceleration {
    held: Vec<Held>,
    n: usize,
    ws: Workspace,
    jac: DMatrix<f64>,
}

impl HeldAcceleration {
    pub(crate) fn new(prob: &TrajectoryProblem) -> Self {
        let model = &prob.model;
        let held = prob
            .stances
            .iter()
            .map(|s| Held {
                frame: HeldFrame {
                    body: s.point.body,
                    placement: s.point.placement,
                },
                chain: model.ancestors_inclusive(s.point.body).collect(),
            })
            .map(|mut h| {
                h.chain.sort_unstable();
                h
            })
            .collect();
        Self {
            held,
            n: model.dof(),
            ws: Workspace::new(model),
            jac: DMatrix::zeros(6, model.dof()),
        }
    }

    pub(crate) fn num_rows(&self) -> usize {
        ROWS * self.held.len()
    }

    /// Entries of [`Self::jacobian_structure`].
    pub(crate) fn jacobian_len(&self) -> usize {
        self.held.iter().map(|h| ROWS * 3 * h.chain.len()).sum()
    }

    /// Entries of [`Self::hessian_structure`].
    pub(crate) fn hessian_len(&self) -> usize {
        self.held
            .iter()
            .map(|h| 3 * h.chain.len() * (3 * h.chain.len() + 1) / 2)
            .sum()
    }

    /// The variables of frame `k`'s rows: its chain's `q`, then `v`, then `a` at the point
    /// (increasing, as the layout keeps `q, v, a` of a point in that order).
    fn vars(&self, k: usize, l: &HermiteSimpsonLayout) -> Vec<usize> {
        let chain = &self.held[k].chain;
        [Var::Q, Var::V, Var::A]
            .iter()
            .flat_map(|&var| chain.iter().map(move |&j| l.start(POINT, var) + j))
            .collect()
    }

    /// `r` of frame `k` at `(q, v, a)`.
    fn residual(&mut self, model: &Model, k: usize, q: &[f64], v: &[f64], a: &[f64]) -> Vec6 {
        let f = &self.held[k].frame;
        forward_kinematics(model, &mut self.ws, q);
        forward_velocities(model, &mut self.ws, v);
        frame_jacobian(model, &self.ws, f.body, &f.placement, &mut self.jac);
        let mut r = frame_bias_acceleration(model, &self.ws, f, v);
        for (j, aj) in a.iter().enumerate() {
            for d in 0..6 {
                r[d] += self.jac[(d, j)] * aj;
            }
        }
        r
    }

    /// `∂r/∂(q_c, v_c, a_c)` of frame `k` over its chain `c`, 6 × 3|c|, at `state = (q, v, a)`.
    fn jacobian(&mut self, model: &Model, k: usize, state: &mut [f64]) -> DMatrix<f64> {
        let n = self.n;
        let chain = self.held[k].chain.clone();
        let m = chain.len();
        let mut out = DMatrix::zeros(ROWS, 3 * m);
        let eval = |this: &mut Self, s: &[f64]| {
            this.residual(model, k, &s[..n], &s[n..2 * n], &s[2 * n..])
        };
        for (c, &j) in chain.iter().enumerate() {
            // q: five-point central differences.
            let x0 = state[j];
            let mut d = Vec6::zeros();
            for (step, w) in [(2.0, -1.0), (1.0, 8.0), (-1.0, -8.0), (-2.0, 1.0)] {
                state[j] = x0 + step * Q_STEP;
                d += eval(self, state) * w;
            }
            state[j] = x0;
            out.column_mut(c).copy_from(&(d / (12.0 * Q_STEP)));
            // v: r is quadratic in v, so a unit central difference is exact.
            let v0 = state[n + j];
            state[n + j] = v0 + 1.0;
            let plus = eval(self, state);
            state[n + j] = v0 - 1.0;
            let minus = eval(self, state);
            state[n + j] = v0;
            out.column_mut(m + c).copy_from(&((plus - minus) / 2.0));
        }
        // a: J itself.
        eval(self, state);
        for (c, &j) in chain.iter().enumerate() {
            out.column_mut(2 * m + c).copy_from(&self.jac.column(j));
        }
        out
    }

    /// The point's `(q, v, a)` from `x`.
    fn state(&self, x: &[f64], l: &HermiteSimpsonLayout) -> Vec<f64> {
        let first = l.start(POINT, Var::Q);
        x[first..first + 3 * self.n].to_vec()
    }

    /// The rows' values into `out` (`num_rows` entries).
    pub(crate) fn constraints(
        &mut self,
        model: &Model,
        l: &HermiteSimpsonLayout,
        x: &[f64],
        out: &mut [f64],
    ) {
        let s = self.state(x, l);
        let n = self.n;
        for k in 0..self.held.len() {
            let r = self.residual(model, k, &s[..n], &s[n..2 * n], &s[2 * n..]);
            out[ROWS * k..ROWS * (k + 1)].copy_from_slice(r.as_slice());
        }
    }

    /// Jacobian triplets, the rows starting at `first_row`: each frame's rows against its
    /// variables, row by row.
    pub(crate) fn jacobian_structure(
        &self,
        l: &HermiteSimpsonLayout,
        first_row: usize,
    ) -> Vec<(usize, usize)> {
        let mut t = Vec::new();
        for k in 0..self.held.len() {
            let vars = self.vars(k, l);
            for r in 0..ROWS {
                t.extend(vars.iter().map(|&c| (first_row + ROWS * k + r, c)));
            }
        }
        t
    }

    /// Jacobian values in the order of [`Self::jacobian_structure`].
    pub(crate) fn jacobian_values(
        &mut self,
        model: &Model,
        l: &HermiteSimpsonLayout,
        x: &[f64],
        out: &mut [f64],
    ) {
        let mut s = self.state(x, l);
        let mut idx = 0;
        for k in 0..self.held.len() {
            let jac = self.jacobian(model, k, &mut s);
            for r in 0..ROWS {
                for c in 0..jac.ncols() {
                    out[idx] = jac[(r, c)];
                    idx += 1;
                }
            }
        }
    }

    /// Hessian triplets (lower triangle): each frame's variables against each other.
    pub(crate) fn hessian_structure(&self, l: &HermiteSimpsonLayout) -> Vec<(usize, usize)> {
        let mut t = Vec::new();
        for k in 0..self.held.len() {
            lower_triangle(&self.vars(k, l), &mut t);
        }
        t
    }

    /// Hessian values of `Σ_k λ_kᵀ r_k` in the order of [`Self::hessian_structure`]; `lambda`
    /// holds the rows' multipliers. Differences of the gradient `λᵀ ∂r/∂(q, v, a)`: five-point
    /// over `q`, unit central over `v` and `a` (the gradient is quadratic in `v`, linear in `a`).
    pub(crate) fn hessian_values(
        &mut self,
        model: &Model,
        l: &HermiteSimpsonLayout,
        x: &[f64],
        lambda: &[f64],
        out: &mut [f64],
    ) {
        let n = self.n;
        let mut s = self.state(x, l);
        let mut idx = 0;
        for k in 0..self.held.len() {
            let chain = self.held[k].chain.clone();
            let m = chain.len();
            let lam = nalgebra::Vector6::from_column_slice(&lambda[ROWS * k..ROWS * (k + 1)]);
            let gradient =
                |this: &mut Self, s: &mut [f64]| this.jacobian(model, k, s).transpose() * lam;
            let mut block = DMatrix::zeros(3 * m, 3 * m);
            for (c, &j) in chain.iter().enumerate() {
                for (kind, offset) in [(0, 0), (1, n), (2, 2 * n)] {
                    let i = offset + j;
                    let x0 = s[i];
                    let col = if kind == 0 {
                        let mut d = nalgebra::DVector::zeros(3 * m);
                        for (step, w) in [(2.0, -1.0), (1.0, 8.0), (-1.0, -8.0), (-2.0, 1.0)] {
                            s[i] = x0 + step * Q_STEP;
                            d += gradient(self, &mut s) * w;
                        }
                        d / (12.0 * Q_STEP)
                    } else {
                        s[i] = x0 + 1.0;
                        let plus = gradient(self, &mut s);
                        s[i] = x0 - 1.0;
                        let minus = gradient(self, &mut s);
                        (plus - minus) / 2.0
                    };
                    s[i] = x0;
                    block.column_mut(kind * m + c).copy_from(&col);
                }
            }
            let len = 3 * m * (3 * m + 1) / 2;
            write_lower_triangle(&block, &mut out[idx..idx + len]);
            idx += len;
        }
    }
}

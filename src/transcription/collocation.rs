//! The Hermite–Simpson collocation transcription (implicit form, seed 000 §5.3 and Table 1),
//! the baseline vito compares its variational integrator against.
//!
//! Decision variables: the collocation layout of [`HermiteSimpson`] — `[q_p, v_p, a_p, u_p]` at
//! each of the `2N + 1` knots and midpoints, `(8N+4)n` for a fully actuated robot. Rows: the
//! `(6N+1)n` inverse-dynamics and Hermite–Simpson defect rows, then the path constraints. The
//! boundary states and the velocity limits are bounds on `q_p` and `v_p`. The objective uses
//! Simpson's rule on the same points.

use super::common::{
    Objective, PathRows, Points, check_finite, fd_hessian_block, lower_triangle,
    write_lower_triangle,
};
use super::guess::initial_trajectory;
use super::solution::{Interpolant, Solution};
use crate::collocation::{HermiteSimpson, HermiteSimpsonLayout, Var};
use crate::dynamics::{InverseDynamicsDerivatives, Workspace, inverse_dynamics_derivatives};
use crate::problem::TrajectoryProblem;
use crate::sqp::{EvalError, Nlp};
use nalgebra::DMatrix;
use rayon::prelude::*;
use std::ops::Range;

/// Per-point buffers for the Hessian of the inverse-dynamics rows.
struct PointBuffers {
    ws: Workspace,
    der: InverseDynamicsDerivatives,
    state: Vec<f64>,
    column: Vec<f64>,
    hess: DMatrix<f64>,
}

/// The Hermite–Simpson transcription of a problem as an [`Nlp`].
pub struct CollocationNlp<'a> {
    prob: &'a TrajectoryProblem,
    hs: HermiteSimpson,
    layout: HermiteSimpsonLayout,
    points: Points,
    num_rows: usize,
    first_path_row: usize,
    objective: Objective,
    path: PathRows,
    path_structure: Vec<(usize, usize)>,
    buffers: Vec<PointBuffers>,
    start: Vec<f64>,
}

impl<'a> CollocationNlp<'a> {
    /// Transcribes `prob` with `prob.stages` Hermite–Simpson intervals.
    ///
    /// # Errors
    /// If the collocation cannot be built or the initial guess file cannot be read.
    pub fn new(prob: &'a TrajectoryProblem) -> Result<Self, String> {
        let model = &prob.model;
        let hs =
            HermiteSimpson::new(model, prob.stages, prob.duration).map_err(|e| e.to_string())?;
        let layout = hs.layout();
        let count = layout.points();
        let h = hs.interval_length();
        let weights = (0..count)
            .map(|p| {
                if p == 0 || p + 1 == count {
                    h / 6.0
                } else if p % 2 == 1 {
                    2.0 * h / 3.0
                } else {
                    h / 3.0
                }
            })
            .collect();
        let points = Points {
            times: (0..count).map(|p| hs.time(p)).collect(),
            weights,
            q: (0..count).map(|p| layout.start(p, Var::Q)).collect(),
            u: (0..count).map(|p| layout.start(p, Var::U)).collect(),
            final_v: Some(layout.start(count - 1, Var::V)),
        };
        let first_path_row = hs.num_rows();
        let path = PathRows::new(prob, &points);
        let path_structure = path.structure(prob, &points, first_path_row);
        let n = model.dof();
        let buffers = (0..count)
            .map(|_| PointBuffers {
                ws: Workspace::new(model),
                der: InverseDynamicsDerivatives::new(model),
                state: vec![0.0; 3 * n],
                column: vec![0.0; 3 * n],
                hess: DMatrix::zeros(3 * n, 3 * n),
            })
            .collect();
        let mut nlp = Self {
            num_rows: first_path_row + path.len(),
            prob,
            layout,
            points,
            first_path_row,
            objective: Objective::new(model),
            path,
            path_structure,
            buffers,
            hs,
            start: Vec::new(),
        };
        nlp.start = nlp.starting_point()?;
        Ok(nlp)
    }

    /// The knots and midpoints and where their variables are.
    pub fn points(&self) -> &Points {
        &self.points
    }

    fn starting_point(&self) -> Result<Vec<f64>, String> {
        let prob = self.prob;
        let l = &self.layout;
        let (q, u) = initial_trajectory(prob, &self.points.times)?;
        let mut x = vec![0.0; l.num_variables()];
        let last = l.points() - 1;
        for p in 0..l.points() {
            let (prev, next) = (p.saturating_sub(1), (p + 1).min(last));
            let span = self.points.times[next] - self.points.times[prev];
            for i in 0..l.n() {
                x[l.index(p, Var::Q, i)] = q[p][i];
                let slope = if span > 0.0 {
                    (q[next][i] - q[prev][i]) / span
                } else {
                    0.0
                };
                x[l.index(p, Var::V, i)] =
                    slope.clamp(prob.v_bounds.lower[i], prob.v_bounds.upper[i]);
            }
            for c in 0..l.n_u() {
                x[l.index(p, Var::U, c)] = u[p][c];
            }
        }
        for i in 0..l.n() {
            x[l.index(0, Var::V, i)] = prob.initial_v.guess(i, x[l.index(0, Var::V, i)]);
            x[l.index(last, Var::V, i)] = prob.final_v.guess(i, x[l.index(last, Var::V, i)]);
        }
        Ok(x)
    }

    /// The trajectory at `x`.
    pub fn solution(&self, x: &[f64]) -> Solution {
        let l = &self.layout;
        let model = &self.prob.model;
        let pick = |p: usize, var: Var| l.slice(x, p, var).to_vec();
        Solution {
            joint_names: model.joint_names(),
            actuated_names: model
                .actuated_joints()
                .iter()
                .map(|&i| model.joint(i).name.clone())
                .collect(),
            times: self.points.times.clone(),
            q: (0..l.points()).map(|p| pick(p, Var::Q)).collect(),
            v: (0..l.points()).map(|p| pick(p, Var::V)).collect(),
            u: (0..l.points()).map(|p| pick(p, Var::U)).collect(),
            interpolant: Interpolant::HermiteSimpson {
                layout: *l,
                h: self.hs.interval_length(),
                x: x[..l.end()].to_vec(),
            },
        }
    }

    /// `σ∇f(x) + Σ_path λ_r ∇c_r(x)`.
    fn side_gradient(&mut self, x: &[f64], obj_factor: f64, lambda: &[f64], out: &mut [f64]) {
        self.objective
            .evaluate(self.prob, &self.points, x, Some(out));
        for g in out.iter_mut() {
            *g *= obj_factor;
        }
        let mut vals = vec![0.0; self.path_structure.len()];
        self.path
            .jacobian_values(self.prob, &self.points, x, &mut vals);
        for (&(r, c), v) in self.path_structure.iter().zip(&vals) {
            out[c] += lambda[r] * v;
        }
    }

    /// The side-term curvature block of point `p`: `q_p`, plus `v_p` at the last point (the
    /// terminal velocity cost).
    fn side_block(&self, p: usize) -> Vec<usize> {
        let l = &self.layout;
        let mut vars: Vec<usize> = (l.start(p, Var::Q)..l.start(p, Var::Q) + l.n()).collect();
        if p + 1 == l.points() {
            vars.extend(l.start(p, Var::V)..l.start(p, Var::V) + l.n());
        }
        vars
    }
}

impl Nlp for CollocationNlp<'_> {
    fn num_variables(&self) -> usize {
        self.layout.num_variables()
    }

    fn num_constraints(&self) -> usize {
        self.num_rows
    }

    fn variable_bounds(&self, lower: &mut [f64], upper: &mut [f64]) {
        let prob = self.prob;
        let l = &self.layout;
        lower.fill(f64::NEG_INFINITY);
        upper.fill(f64::INFINITY);
        let last = l.points() - 1;
        for p in 0..l.points() {
            for i in 0..l.n() {
                let (mut ql, mut qu) = (prob.q_bounds.lower[i], prob.q_bounds.upper[i]);
                let (mut vl, mut vu) = (prob.v_bounds.lower[i], prob.v_bounds.upper[i]);
                if p == 0 {
                    ql = ql.max(prob.initial_q.lower[i]);
                    qu = qu.min(prob.initial_q.upper[i]);
                    vl = vl.max(prob.initial_v.lower[i]);
                    vu = vu.min(prob.initial_v.upper[i]);
                }
                if p == last {
                    ql = ql.max(prob.final_q.lower[i]);
                    qu = qu.min(prob.final_q.upper[i]);
                    vl = vl.max(prob.final_v.lower[i]);
                    vu = vu.min(prob.final_v.upper[i]);
                }
                (lower[l.index(p, Var::Q, i)], upper[l.index(p, Var::Q, i)]) = (ql, qu);
                (lower[l.index(p, Var::V, i)], upper[l.index(p, Var::V, i)]) = (vl, vu);
            }
            for c in 0..l.n_u() {
                lower[l.index(p, Var::U, c)] = prob.u_bounds.lower[c];
                upper[l.index(p, Var::U, c)] = prob.u_bounds.upper[c];
            }
        }
    }

    fn constraint_bounds(&self, lower: &mut [f64], upper: &mut [f64]) {
        lower.fill(0.0);
        upper.fill(0.0);
    }

    fn initial_point(&self, x: &mut [f64]) {
        x.copy_from_slice(&self.start);
    }

    fn objective(&mut self, x: &[f64]) -> Result<f64, EvalError> {
        self.objective.value(self.prob, &self.points, x)
    }

    fn gradient(&mut self, x: &[f64], grad: &mut [f64]) -> Result<(), EvalError> {
        self.objective.gradient(self.prob, &self.points, x, grad)
    }

    fn constraints(&mut self, x: &[f64], c: &mut [f64]) -> Result<(), EvalError> {
        let (dyn_rows, path_rows) = c.split_at_mut(self.first_path_row);
        self.hs.residuals(&self.prob.model, x, dyn_rows);
        self.path.values(self.prob, &self.points, x, path_rows);
        check_finite(c, "constraint values")
    }

    fn jacobian_structure(&self) -> Vec<(usize, usize)> {
        let mut t = self.hs.jacobian_structure();
        t.extend(self.path_structure.iter().copied());
        t
    }

    fn jacobian_values(&mut self, x: &[f64], values: &mut [f64]) -> Result<(), EvalError> {
        let (dyn_vals, path_vals) = values.split_at_mut(self.hs.nnz());
        self.hs.jacobian_values(&self.prob.model, x, dyn_vals);
        self.path
            .jacobian_values(self.prob, &self.points, x, path_vals);
        check_finite(values, "Jacobian values")
    }

    fn hessian_structure(&self) -> Option<Vec<(usize, usize)>> {
        let l = &self.layout;
        let n = l.n();
        let mut t = Vec::new();
        for p in 0..l.points() {
            // q, v, a of a point are contiguous: one lower-triangular 3n block.
            let first = l.start(p, Var::Q);
            let vars: Vec<usize> = (first..first + 3 * n).collect();
            lower_triangle(&vars, &mut t);
        }
        for p in 0..l.points() {
            for c in 0..l.n_u() {
                t.push((l.index(p, Var::U, c), l.index(p, Var::U, c)));
            }
        }
        for p in 0..l.points() {
            lower_triangle(&self.side_block(p), &mut t);
        }
        Some(t)
    }

    /// The Hessian of the Lagrangian: each point's inverse-dynamics curvature
    /// `Σ λ ∇²_{(q,v,a)} RNEA` by central differences of the exact derivatives (torques, springs
    /// and dampers enter linearly; the defects are linear), the effort term exactly, and the
    /// costs on `q` and the path constraints by central differences of their exact gradients.
    fn hessian_values(
        &mut self,
        x: &[f64],
        obj_factor: f64,
        lambda: &[f64],
        values: &mut [f64],
    ) -> Result<(), EvalError> {
        let l = self.layout;
        let n = l.n();
        let block = 3 * n;
        let tri = block * (block + 1) / 2;
        let model = &self.prob.model;
        let (point_values, rest) = values.split_at_mut(l.points() * tri);
        self.buffers
            .par_iter_mut()
            .zip(point_values.par_chunks_mut(tri))
            .enumerate()
            .for_each(|(p, (b, out))| {
                b.state
                    .copy_from_slice(&x[l.start(p, Var::Q)..l.start(p, Var::Q) + block]);
                let lam = &lambda[p * n..(p + 1) * n];
                for j in 0..block {
                    let x0 = b.state[j];
                    let h = super::common::FD_STEP * x0.abs().max(1.0);
                    b.column.fill(0.0);
                    for (sign, e) in [(1.0, h), (-1.0, -h)] {
                        b.state[j] = x0 + e;
                        let (q, rest) = b.state.split_at(n);
                        let (v, a) = rest.split_at(n);
                        inverse_dynamics_derivatives(model, &mut b.ws, q, v, a, &mut b.der);
                        for (c, col) in b.column.iter_mut().enumerate() {
                            let m = match c / n {
                                0 => &b.der.dtau_dq,
                                1 => &b.der.dtau_dv,
                                _ => &b.der.dtau_da,
                            };
                            let dot: f64 = (0..n).map(|i| m[(i, c % n)] * lam[i]).sum();
                            *col += sign * dot / (2.0 * h);
                        }
                    }
                    b.state[j] = x0;
                    for (c, col) in b.column.iter().enumerate() {
                        b.hess[(c, j)] = *col;
                    }
                }
                write_lower_triangle(&b.hess, out);
            });
        let mut idx = 0;
        for p in 0..l.points() {
            for c in 0..l.n_u() {
                rest[idx] = obj_factor * 2.0 * self.points.weights[p] * self.prob.costs.effort[c];
                idx += 1;
            }
        }
        for p in 0..l.points() {
            let vars = self.side_block(p);
            let len = vars.len() * (vars.len() + 1) / 2;
            let mut gradient =
                |xs: &[f64], g: &mut [f64]| self.side_gradient(xs, obj_factor, lambda, g);
            fd_hessian_block(&vars, x, &mut gradient, &mut rest[idx..idx + len]);
            idx += len;
        }
        check_finite(values, "Hessian values")
    }

    fn variable_groups(&self) -> Option<Vec<Range<usize>>> {
        let l = &self.layout;
        Some(
            (0..l.points())
                .map(|p| l.start(p, Var::Q)..l.start(p, Var::Q) + l.point_len())
                .collect(),
        )
    }
}

//! The Hermite–Simpson collocation transcription (implicit form, seed 000 §5.3 and Table 1),
//! the baseline vito compares its variational integrator against.
//!
//! Decision variables: the collocation layout of [`HermiteSimpson`] — `[q_p, v_p, a_p, u_p]` at
//! each of the `2N + 1` knots and midpoints, `(8N+4)n` for a fully actuated robot. Rows: the
//! `(6N+1)n` inverse-dynamics and Hermite–Simpson defect rows, then the path constraints. The
//! boundary states and the velocity limits are bounds on `q_p` and `v_p`. The objective uses
//! Simpson's rule on the same points.

use super::common::{FD_STEP, Points, check_finite, lower_triangle, write_lower_triangle};
use super::guess::initial_trajectory;
use super::solution::{Interpolant, Solution};
use super::terms::{ForceScratch, Terms, VelocityMap};
use crate::collocation::{HermiteSimpson, HermiteSimpsonLayout, Var};
use crate::dynamics::{
    InverseDynamicsDerivatives, Workspace, forward_kinematics, inverse_dynamics_derivatives,
    point_force_derivative, point_jacobian,
};
use crate::model::Model;
use crate::problem::TrajectoryProblem;
use crate::sqp::{Complementarity, EvalError, Nlp};
use crate::vi::PointLoad;
use nalgebra::DMatrix;
use rayon::prelude::*;
use std::ops::Range;

/// Per-point buffers for the contact forces in the inverse-dynamics rows and the Hessian.
struct PointBuffers {
    ws: Workspace,
    /// The configuration the loads are evaluated at.
    config: Vec<f64>,
    der: InverseDynamicsDerivatives,
    fs: ForceScratch,
    load: LoadTerms,
    state: Vec<f64>,
    grad_plus: Vec<f64>,
    grad_minus: Vec<f64>,
    hess: DMatrix<f64>,
}

/// The generalized force `Q = Σ_l J_l(q)ᵀ f_l` of the loads at one point and its derivatives.
struct LoadTerms {
    q: Vec<f64>,
    /// `∂Q/∂q` (n×n): the loads' stiffness plus `J_lᵀ ∂f_l/∂q`.
    dq: DMatrix<f64>,
    /// `∂Q/∂x_j` for the force variables, column by column.
    dvars: DMatrix<f64>,
    jac: DMatrix<f64>,
    stiffness: DMatrix<f64>,
}

impl LoadTerms {
    fn new(n: usize, vars: usize) -> Self {
        Self {
            q: vec![0.0; n],
            dq: DMatrix::zeros(n, n),
            dvars: DMatrix::zeros(n, vars),
            jac: DMatrix::zeros(3, n),
            stiffness: DMatrix::zeros(n, n),
        }
    }

    /// Evaluates `Q` and its derivatives from the forces in `fs` at configuration `q`.
    fn evaluate(
        &mut self,
        model: &Model,
        loads: &[PointLoad],
        ws: &mut Workspace,
        q: &[f64],
        fs: &ForceScratch,
    ) {
        forward_kinematics(model, ws, q);
        self.q.fill(0.0);
        self.dq.fill(0.0);
        self.dvars.fill(0.0);
        for (l, f, dfdq) in fs.each() {
            let load = &loads[l];
            point_jacobian(model, ws, load.body, &load.offset, &mut self.jac);
            point_force_derivative(model, ws, load.body, &load.offset, f, &mut self.stiffness);
            for j in 0..model.dof() {
                self.q[j] += (0..3).map(|d| self.jac[(d, j)] * f[d]).sum::<f64>();
            }
            self.dq += &self.stiffness;
            self.dq.gemm_tr(1.0, &self.jac, dfdq, 1.0);
        }
        for (c, (l, _, dv)) in fs.variables().enumerate() {
            let load = &loads[l];
            point_jacobian(model, ws, load.body, &load.offset, &mut self.jac);
            for j in 0..model.dof() {
                self.dvars[(j, c)] = (0..3).map(|d| self.jac[(d, j)] * dv[d]).sum::<f64>();
            }
        }
    }
}

/// The Hermite–Simpson transcription of a problem as an [`Nlp`].
pub struct CollocationNlp<'a> {
    prob: &'a TrajectoryProblem,
    hs: HermiteSimpson,
    layout: HermiteSimpsonLayout,
    points: Points,
    num_vars: usize,
    num_rows: usize,
    terms: Terms<'a>,
    loads: Vec<PointLoad>,
    /// Per point, the force variables `(load, variable)`.
    force_vars: Vec<Vec<(usize, usize)>>,
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
        let velocity = (0..count)
            .map(|p| VelocityMap::Variables(layout.start(p, Var::V)))
            .collect();
        let terms = Terms::new(
            prob,
            &points,
            velocity,
            layout.num_variables(),
            hs.num_rows(),
        );
        let n = model.dof();
        let loads = terms.loads().to_vec();
        let force_vars: Vec<Vec<(usize, usize)>> =
            (0..count).map(|p| terms.force_variables(p)).collect();
        let buffers = force_vars
            .iter()
            .map(|vars| PointBuffers {
                ws: Workspace::new(model),
                config: vec![0.0; n],
                der: InverseDynamicsDerivatives::new(model),
                fs: terms.force_scratch(prob.contact.as_ref()),
                load: LoadTerms::new(n, vars.len()),
                state: vec![0.0; 3 * n],
                grad_plus: vec![0.0; 3 * n + vars.len()],
                grad_minus: vec![0.0; 3 * n + vars.len()],
                hess: DMatrix::zeros(3 * n + vars.len(), 3 * n),
            })
            .collect();
        let mut nlp = Self {
            num_vars: layout.num_variables() + terms.num_variables(),
            num_rows: hs.num_rows() + terms.num_rows(),
            prob,
            layout,
            points,
            terms,
            loads,
            force_vars,
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

    fn starting_point(&mut self) -> Result<Vec<f64>, String> {
        let prob = self.prob;
        let l = &self.layout;
        let (q, u) = initial_trajectory(prob, &self.points.times)?;
        let mut x = vec![0.0; self.num_vars];
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
        self.terms.start(&mut x);
        Ok(x)
    }

    /// Sets the smoothing of the contact complementarity rows (method `smoothing`).
    pub fn set_smoothing(&mut self, mu: f64) {
        self.terms.set_smoothing(mu);
    }

    /// Starts the next solve from `x`.
    ///
    /// # Panics
    /// If `x` does not have one entry per variable.
    pub fn set_start(&mut self, x: &[f64]) {
        assert_eq!(x.len(), self.start.len(), "one start value per variable");
        self.start.copy_from_slice(x);
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
            contact: self.terms.contact_trajectory(x, self.prob.contact.as_ref()),
        }
    }

    /// The loads' generalized force at point `p` of `x`, its configuration replaced by
    /// `b.config`, with its derivatives, into `b.load`.
    fn loads_at(
        terms: &Terms,
        model: &Model,
        loads: &[PointLoad],
        p: usize,
        x: &[f64],
        b: &mut PointBuffers,
    ) {
        terms.forces(p, x, &b.config, &mut b.fs);
        b.load.evaluate(model, loads, &mut b.ws, &b.config, &b.fs);
    }
}

impl Nlp for CollocationNlp<'_> {
    fn num_variables(&self) -> usize {
        self.num_vars
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
        self.terms.variable_bounds(lower, upper);
    }

    fn constraint_bounds(&self, lower: &mut [f64], upper: &mut [f64]) {
        lower.fill(0.0);
        upper.fill(0.0);
        self.terms.row_bounds(lower, upper);
    }

    fn initial_point(&self, x: &mut [f64]) {
        x.copy_from_slice(&self.start);
    }

    fn objective(&mut self, x: &[f64]) -> Result<f64, EvalError> {
        let f = self.terms.objective(x);
        if f.is_finite() {
            Ok(f)
        } else {
            Err(EvalError::Failed("non-finite objective".into()))
        }
    }

    fn gradient(&mut self, x: &[f64], grad: &mut [f64]) -> Result<(), EvalError> {
        grad.fill(0.0);
        self.terms.add_gradient(x, 1.0, grad);
        check_finite(grad, "objective gradient")
    }

    fn constraints(&mut self, x: &[f64], c: &mut [f64]) -> Result<(), EvalError> {
        let first = self.hs.num_rows();
        self.hs.residuals(&self.prob.model, x, &mut c[..first]);
        if !self.loads.is_empty() {
            let n = self.layout.n();
            let (terms, model, loads, l) =
                (&self.terms, &self.prob.model, &self.loads, self.layout);
            self.buffers
                .par_iter_mut()
                .zip(c[..l.points() * n].par_chunks_mut(n))
                .enumerate()
                .for_each(|(p, (b, rows))| {
                    b.config
                        .copy_from_slice(&x[l.start(p, Var::Q)..l.start(p, Var::Q) + n]);
                    Self::loads_at(terms, model, loads, p, x, b);
                    for (r, qi) in rows.iter_mut().zip(&b.load.q) {
                        *r -= qi;
                    }
                });
        }
        self.terms.constraints(x, c);
        check_finite(c, "constraint values")
    }

    fn jacobian_structure(&self) -> Vec<(usize, usize)> {
        let mut t = self.hs.jacobian_structure();
        for p in 0..self.layout.points() {
            t.extend(self.load_structure(p));
        }
        t.extend(self.terms.jacobian_structure());
        t
    }

    fn jacobian_values(&mut self, x: &[f64], values: &mut [f64]) -> Result<(), EvalError> {
        let (dyn_vals, rest) = values.split_at_mut(self.hs.nnz());
        self.hs.jacobian_values(&self.prob.model, x, dyn_vals);
        let l = self.layout;
        let n = l.n();
        let load_len: Vec<usize> = (0..l.points())
            .map(|p| self.load_structure(p).len())
            .collect();
        let total: usize = load_len.iter().sum();
        let (load_vals, term_vals) = rest.split_at_mut(total);
        if total > 0 {
            let mut chunks = Vec::with_capacity(load_len.len());
            let mut remaining = load_vals;
            for &len in &load_len {
                let (head, tail) = remaining.split_at_mut(len);
                chunks.push(head);
                remaining = tail;
            }
            let (terms, model, loads) = (&self.terms, &self.prob.model, &self.loads);
            let chains = self.chains();
            self.buffers
                .par_iter_mut()
                .zip(chunks.into_par_iter())
                .enumerate()
                .for_each(|(p, (b, out))| {
                    b.config
                        .copy_from_slice(&x[l.start(p, Var::Q)..l.start(p, Var::Q) + n]);
                    Self::loads_at(terms, model, loads, p, x, b);
                    let mut idx = 0;
                    for &(i, j) in &chains {
                        out[idx] = -b.load.dq[(i, j)];
                        idx += 1;
                    }
                    for c in 0..b.load.dvars.ncols() {
                        for i in 0..n {
                            out[idx] = -b.load.dvars[(i, c)];
                            idx += 1;
                        }
                    }
                });
        }
        self.terms.jacobian_values(x, term_vals);
        check_finite(values, "Jacobian values")
    }

    fn hessian_structure(&self) -> Option<Vec<(usize, usize)>> {
        let l = &self.layout;
        let n = l.n();
        let mut t = Vec::new();
        for p in 0..l.points() {
            // q, v, a of a point are contiguous: one lower-triangular 3n block, then the force
            // variables against q.
            let first = l.start(p, Var::Q);
            let vars: Vec<usize> = (first..first + 3 * n).collect();
            lower_triangle(&vars, &mut t);
            for &(_, var) in &self.force_vars[p] {
                t.extend((first..first + n).map(|q| (var, q)));
            }
        }
        t.extend(self.terms.hessian_structure());
        Some(t)
    }

    /// The Hessian of the Lagrangian: each point's inverse-dynamics curvature
    /// `Σ λ ∇²_{(q,v,a)} (RNEA − Σ_l J_lᵀ f_l)` by central differences of the exact derivatives
    /// (torques, springs and dampers enter linearly, the defects are linear, the forces are
    /// linear in their variables), and the per-point terms by theirs (see
    /// [`Terms::hessian_values`]).
    fn hessian_values(
        &mut self,
        x: &[f64],
        obj_factor: f64,
        lambda: &[f64],
        values: &mut [f64],
    ) -> Result<(), EvalError> {
        let l = self.layout;
        let n = l.n();
        let model = &self.prob.model;
        let (terms, loads) = (&self.terms, &self.loads);
        let lens: Vec<usize> = self
            .force_vars
            .iter()
            .map(|v| 3 * n * (3 * n + 1) / 2 + v.len() * n)
            .collect();
        let total: usize = lens.iter().sum();
        let (point_values, rest) = values.split_at_mut(total);
        let mut chunks = Vec::with_capacity(lens.len());
        let mut remaining = point_values;
        for &len in &lens {
            let (head, tail) = remaining.split_at_mut(len);
            chunks.push(head);
            remaining = tail;
        }
        self.buffers
            .par_iter_mut()
            .zip(chunks.into_par_iter())
            .enumerate()
            .for_each(|(p, (b, out))| {
                b.state
                    .copy_from_slice(&x[l.start(p, Var::Q)..l.start(p, Var::Q) + 3 * n]);
                let lam = &lambda[p * n..(p + 1) * n];
                let with_loads = !loads.is_empty();
                for j in 0..3 * n {
                    let x0 = b.state[j];
                    let h = FD_STEP * x0.abs().max(1.0);
                    for plus in [true, false] {
                        b.state[j] = if plus { x0 + h } else { x0 - h };
                        let (q, rest) = b.state.split_at(n);
                        let (v, a) = rest.split_at(n);
                        inverse_dynamics_derivatives(model, &mut b.ws, q, v, a, &mut b.der);
                        if with_loads && j < n {
                            b.config.copy_from_slice(q);
                            Self::loads_at(terms, model, loads, p, x, b);
                        }
                        let g = if plus {
                            &mut b.grad_plus
                        } else {
                            &mut b.grad_minus
                        };
                        for (c, gc) in g.iter_mut().enumerate().take(3 * n) {
                            let m = match c / n {
                                0 => &b.der.dtau_dq,
                                1 => &b.der.dtau_dv,
                                _ => &b.der.dtau_da,
                            };
                            *gc = (0..n).map(|i| m[(i, c % n)] * lam[i]).sum();
                        }
                        if with_loads && j < n {
                            for (c, gc) in g.iter_mut().enumerate().take(n) {
                                *gc -= (0..n).map(|i| b.load.dq[(i, c)] * lam[i]).sum::<f64>();
                            }
                            for c in 0..b.load.dvars.ncols() {
                                g[3 * n + c] =
                                    -(0..n).map(|i| b.load.dvars[(i, c)] * lam[i]).sum::<f64>();
                            }
                        } else {
                            g[3 * n..].fill(0.0);
                        }
                    }
                    b.state[j] = x0;
                    if with_loads && j < n {
                        b.config.copy_from_slice(&b.state[..n]);
                        Self::loads_at(terms, model, loads, p, x, b);
                    }
                    for c in 0..b.grad_plus.len() {
                        b.hess[(c, j)] = (b.grad_plus[c] - b.grad_minus[c]) / (2.0 * h);
                    }
                }
                let tri = 3 * n * (3 * n + 1) / 2;
                let block = b.hess.view((0, 0), (3 * n, 3 * n)).into_owned();
                write_lower_triangle(&block, &mut out[..tri]);
                let mut idx = tri;
                for f in 3 * n..b.grad_plus.len() {
                    for j in 0..n {
                        out[idx] = b.hess[(f, j)];
                        idx += 1;
                    }
                }
            });
        self.terms.hessian_values(x, obj_factor, lambda, rest);
        check_finite(values, "Hessian values")
    }

    fn variable_groups(&self) -> Option<Vec<Range<usize>>> {
        let l = &self.layout;
        let mut groups: Vec<Range<usize>> = (0..l.points())
            .map(|p| l.start(p, Var::Q)..l.start(p, Var::Q) + l.point_len())
            .collect();
        if self.num_vars > l.end() {
            groups.push(l.end()..self.num_vars);
        }
        Some(groups)
    }

    fn complementarities(&self) -> Vec<Complementarity> {
        self.terms.complementarities()
    }
}

impl CollocationNlp<'_> {
    /// The joint pairs `(i, j)` on one contact point's path to the root (any contact point):
    /// where the loads' generalized force depends on the configuration.
    fn chains(&self) -> Vec<(usize, usize)> {
        let model = &self.prob.model;
        let mut pairs = Vec::new();
        for load in &self.loads {
            let chain: Vec<usize> = model.ancestors_inclusive(load.body).collect();
            for &i in &chain {
                for &j in &chain {
                    pairs.push((i, j));
                }
            }
        }
        pairs.sort_unstable();
        pairs.dedup();
        pairs
    }

    /// Jacobian triplets of the loads in the inverse-dynamics rows of point `p`: the
    /// configuration pairs of [`Self::chains`], then every row against each force variable.
    fn load_structure(&self, p: usize) -> Vec<(usize, usize)> {
        let l = &self.layout;
        let n = l.n();
        let mut t = Vec::new();
        if self.loads.is_empty() {
            return t;
        }
        let q = l.start(p, Var::Q);
        t.extend(self.chains().into_iter().map(|(i, j)| (p * n + i, q + j)));
        for &(_, var) in &self.force_vars[p] {
            t.extend((0..n).map(|i| (p * n + i, var)));
        }
        t
    }
}

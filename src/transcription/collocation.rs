//! The Hermite–Simpson collocation transcription (implicit form, seed 000 §5.3 and Table 1),
//! the baseline vito compares its variational integrator against.
//!
//! Decision variables: the collocation layout of [`HermiteSimpson`] — `[q_p, v_p, a_p, u_p]` at
//! each of the `2N + 1` knots and midpoints, `(8N+4)n` for a fully actuated robot. Rows: the
//! `(6N+1)n` inverse-dynamics and Hermite–Simpson defect rows, then the path constraints. The
//! boundary states and the velocity limits are bounds on `q_p` and `v_p`. The objective uses
//! Simpson's rule on the same points.

use super::common::{
    FD_STEP, Points, Route, central_difference, check_finite, load_coordinates, lower_triangle,
    write_leading_lower_triangle,
};
use super::guess::initial_trajectory;
use super::held_acceleration::HeldAcceleration;
use super::knot_impulse::KnotImpulse;
use super::loads::LoadTerms;
use super::solution::{Interpolant, Solution};
use super::terms::{ForceScratch, PointVelocity, Terms, VelocityMap};
use crate::collocation::{HermiteSimpson, HermiteSimpsonLayout, Var};
use crate::dynamics::{InverseDynamicsDerivatives, Workspace, inverse_dynamics_derivatives};
use crate::model::Model;
use crate::nlp::{Complementarity, EvalError, Nlp};
use crate::problem::TrajectoryProblem;
use crate::vi::{
    LagrangianCurvature, LoadWorkspace, PointLoad, PointWorkspace, lagrangian_curvature,
    load_gradient,
};
use nalgebra::{DMatrix, Vector3};
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
    /// The point's `[q, v, a]`.
    state: Vec<f64>,
    /// The Hessian block over `[q, v, a]` (3n columns), then the force variables' rows.
    hess: DMatrix<f64>,
    pw: PointWorkspace,
    /// `∇²ψ` at the state, `∇²χ`, and `∇²ψ` on either side of the difference along `(v, a)`.
    curvature: [LagrangianCurvature; 4],
    zeros: Vec<f64>,
    /// A shifted `[q, v]`.
    shifted: Vec<f64>,
    lw: LoadWorkspace,
    forces: Vec<f64>,
    load_gradient: [Vec<f64>; 2],
    load_velocity: Vec<f64>,
    load_variables: [Vec<f64>; 2],
    /// The gradient at either side of a difference, for
    /// [`CollocationNlp::hessian_values_by_differences`].
    grad_sides: [Vec<f64>; 2],
}

/// The Hermite–Simpson transcription of a problem as an [`Nlp`].
pub struct CollocationNlp<'a> {
    prob: &'a TrajectoryProblem,
    hs: HermiteSimpson,
    /// The stances' acceleration rows at the first point, after the terms' rows.
    held: HeldAcceleration,
    /// The velocity jumps of the interior knots, after the held rows.
    impulse: KnotImpulse,
    /// `(defect row, jump variable, coefficient)`: the jumps in the previous interval's defects.
    jumps: Vec<(usize, usize, f64)>,
    layout: HermiteSimpsonLayout,
    points: Points,
    num_vars: usize,
    num_rows: usize,
    terms: Terms<'a>,
    loads: Vec<PointLoad>,
    /// Per point, the force variables `(load, variable)`.
    force_vars: Vec<Vec<(usize, usize)>>,
    /// The joints that move a load's point, in increasing order.
    load_coordinates: Vec<usize>,
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
        // At the first and last points the boundary velocity is the point's own, unweighted.
        let velocity = (0..count)
            .map(|p| {
                let v = VelocityMap::Variables(layout.start(p, Var::V));
                PointVelocity {
                    before: (p == 0 || p + 1 == count).then(|| (v.clone(), 0.0)),
                    ..PointVelocity::single(v, points.weights[p])
                }
            })
            .collect();
        let terms = Terms::new(
            prob,
            &points,
            velocity,
            layout.num_variables(),
            hs.num_rows(),
        );
        terms.check_fixed_points(prob, prob.solver.constraint_tolerance)?;
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
                hess: DMatrix::zeros(3 * n + vars.len(), 3 * n),
                pw: PointWorkspace::new(model),
                curvature: std::array::from_fn(|_| LagrangianCurvature::new(model)),
                zeros: vec![0.0; n],
                shifted: vec![0.0; 2 * n],
                lw: LoadWorkspace::new(model),
                forces: vec![0.0; loads.len() * 3],
                load_gradient: [vec![0.0; n], vec![0.0; n]],
                load_velocity: vec![0.0; loads.len() * 3],
                load_variables: [Vec::new(), Vec::new()],
                grad_sides: [vec![0.0; 3 * n + vars.len()], vec![0.0; 3 * n + vars.len()]],
            })
            .collect();
        let load_coordinates = load_coordinates(model, &loads);
        let held = HeldAcceleration::new(prob);
        let impulse = KnotImpulse::new(
            prob,
            layout.intervals(),
            h,
            layout.num_variables() + terms.num_variables(),
            hs.num_rows() + terms.num_rows() + held.num_rows(),
        );
        let jumps = impulse.defect_coefficients(count * n);
        let mut nlp = Self {
            load_coordinates,
            num_vars: layout.num_variables() + terms.num_variables() + impulse.num_variables(),
            num_rows: hs.num_rows() + terms.num_rows() + held.num_rows() + impulse.num_rows(),
            held,
            impulse,
            jumps,
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

    /// What the decision variables are, as a key (`Terms::variable_layout`).
    pub fn variable_layout(&self) -> String {
        self.terms
            .variable_layout(self.prob, "hermite_simpson", self.num_vars)
    }

    /// The handed-on decision vector of a solve with the same variables
    /// (`InitialGuess::Recorded`), else the guess's trajectory with velocities from its slopes
    /// and the terms' and impulses' own variables made to fit it.
    fn starting_point(&mut self) -> Result<Vec<f64>, String> {
        let prob = self.prob;
        if let Some(warm) = prob.initial_guess.warm_for(&self.variable_layout()) {
            return Ok(warm.x.clone());
        }
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
        self.impulse.start(&mut x);
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
            weights: self.points.weights.clone(),
            q: (0..l.points()).map(|p| pick(p, Var::Q)).collect(),
            v: (0..l.points()).map(|p| pick(p, Var::V)).collect(),
            u: (0..l.points()).map(|p| pick(p, Var::U)).collect(),
            interpolant: Interpolant::HermiteSimpson {
                layout: *l,
                h: self.hs.interval_length(),
                x: x[..l.end()].to_vec(),
            },
            contact: self.terms.contact_trajectory(x, self.prob.contact.as_ref()),
            stance: self.terms.stance_trajectory(x),
        }
    }

    /// The Hessian of the Lagrangian with each point's inverse-dynamics curvature by the route
    /// the analytic one replaced: central differences of the exact inverse-dynamics derivatives
    /// along the point's `3n` state coordinates. Kept as the oracle of the tests and the
    /// baseline of `vito bench`; [`Nlp::hessian_values`] is the one to use.
    ///
    /// # Errors
    /// As [`Nlp::hessian_values`].
    #[doc(hidden)]
    pub fn hessian_values_by_differences(
        &mut self,
        x: &[f64],
        obj_factor: f64,
        lambda: &[f64],
        values: &mut [f64],
    ) -> Result<(), EvalError> {
        self.lagrangian_hessian(x, obj_factor, lambda, values, Route::Differences)
    }

    fn lagrangian_hessian(
        &mut self,
        x: &[f64],
        obj_factor: f64,
        lambda: &[f64],
        values: &mut [f64],
        route: Route,
    ) -> Result<(), EvalError> {
        let l = self.layout;
        let n = l.n();
        let model = &self.prob.model;
        let (terms, loads, coords) = (&self.terms, &self.loads, &self.load_coordinates);
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
                match route {
                    Route::Analytic => {
                        Self::point_curvature(model, terms, loads, coords, p, x, lam, b);
                    }
                    Route::Differences => {
                        Self::point_curvature_by_differences(model, terms, loads, p, x, lam, b);
                    }
                }
                let tri = 3 * n * (3 * n + 1) / 2;
                write_leading_lower_triangle(&b.hess, 3 * n, &mut out[..tri]);
                let mut idx = tri;
                for f in 3 * n..b.hess.nrows() {
                    for j in 0..n {
                        out[idx] = b.hess[(f, j)];
                        idx += 1;
                    }
                }
            });
        let (rest, impulse_vals) = rest.split_at_mut(rest.len() - self.impulse.hessian_len());
        let (term_vals, held_vals) = rest.split_at_mut(rest.len() - self.held.hessian_len());
        self.terms.hessian_values(x, obj_factor, lambda, term_vals);
        let (held_rows, impulse_rows) = self.tail_rows();
        self.held.hessian_values(
            &self.prob.model,
            &self.layout,
            x,
            &lambda[held_rows..impulse_rows],
            held_vals,
        );
        self.impulse.hessian_values(
            &self.prob.model,
            &self.layout,
            x,
            &lambda[impulse_rows..],
            impulse_vals,
        );
        check_finite(values, "Hessian values")
    }

    /// Point `p`'s Hessian block, into `b.hess` (`b.state` holds the point's state). With
    /// `ψ(q, v) = λᵀ M(q) v = λ·∂L/∂q̇` and `χ(q, v) = λ·∂L/∂q`, Lagrange's equations give
    /// `λᵀ τ(q, v, a) = ∇ψ(q, v)·(v, a) − χ(q, v)`, so over `z = (q, v, a)`, with `A = ∇²ψ`,
    /// `B = ∇²χ` ([`lagrangian_curvature`], O(n·d) each) and `D = D³ψ[(v, a)]` (central
    /// differences of `A` along the one direction `(v, a)`):
    ///
    /// ```text
    /// ∇²_qq = D_qq − B_qq    ∇²_qv = D_qv − B_qv + A_qq    ∇²_qa = A_qv
    /// ∇²_vv = A_qv + A_qvᵀ − B_vv                          ∇²_va = ∇²_aa = 0
    /// ```
    ///
    /// (`A_vv = 0`: `ψ` is linear in `v`). The loads by [`CollocationNlp::load_curvature`].
    #[allow(clippy::too_many_arguments)]
    fn point_curvature(
        model: &Model,
        terms: &Terms,
        loads: &[PointLoad],
        coords: &[usize],
        p: usize,
        x: &[f64],
        lam: &[f64],
        b: &mut PointBuffers,
    ) {
        let n = model.dof();
        let (q, rest) = b.state.split_at(n);
        let (v, a) = rest.split_at(n);
        let [ca, cb, cp, cm] = &mut b.curvature;
        lagrangian_curvature(model, &mut b.pw, q, v, &b.zeros, lam, ca);
        lagrangian_curvature(model, &mut b.pw, q, v, lam, &b.zeros, cb);
        let amax = |s: &[f64]| s.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let along = amax(v).max(amax(a));
        let h = FD_STEP * amax(q).max(amax(v)).max(1.0) / along.max(f64::MIN_POSITIVE);
        for (side, c) in [(1.0, &mut *cp), (-1.0, &mut *cm)] {
            for i in 0..n {
                b.shifted[i] = q[i] + side * h * v[i];
                b.shifted[n + i] = v[i] + side * h * a[i];
            }
            let (qs, vs) = b.shifted.split_at(n);
            lagrangian_curvature(model, &mut b.pw, qs, vs, &b.zeros, lam, c);
        }
        // D = (A⁺ − A⁻) / 2h, in place.
        let scale = if along > 0.0 { 0.5 / h } else { 0.0 };
        for (dp, dm) in [(&mut cp.qq, &cm.qq), (&mut cp.qv, &cm.qv)] {
            for (a, b) in dp.iter_mut().zip(dm.iter()) {
                *a = (*a - b) * scale;
            }
        }
        b.hess.fill(0.0);
        let hs = &mut b.hess;
        for j in 0..n {
            for i in 0..n {
                let qv = cp.qv[(i, j)] - cb.qv[(i, j)] + ca.qq[(i, j)];
                hs[(i, j)] = cp.qq[(i, j)] - cb.qq[(i, j)];
                hs[(i, n + j)] = qv;
                hs[(n + j, i)] = qv;
                hs[(i, 2 * n + j)] = ca.qv[(i, j)];
                hs[(2 * n + j, i)] = ca.qv[(i, j)];
                hs[(n + i, n + j)] = ca.qv[(i, j)] + ca.qv[(j, i)] - cb.vv[(i, j)];
            }
        }
        if !loads.is_empty() {
            Self::load_curvature(model, terms, loads, coords, p, x, lam, b);
        }
    }

    /// Adds the loads' curvature `−λ·Σ_l J_l(q)ᵀ f_l(q, x)` to point `p`'s block: central
    /// differences along the coordinates that move the loads (the forces depend on the
    /// configuration only through their points) of the loads' gradient
    /// `T(q) = ∂/∂q (λ·Σ_l J_lᵀ f_l)|_f + Σ_l (∂f_l/∂q)ᵀ J_l λ` ([`load_gradient`]) and of its
    /// part over the force variables `(∂f_l/∂x)·J_l λ`, the forces recomputed at each step.
    #[allow(clippy::too_many_arguments)]
    fn load_curvature(
        model: &Model,
        terms: &Terms,
        loads: &[PointLoad],
        coords: &[usize],
        p: usize,
        x: &[f64],
        lam: &[f64],
        b: &mut PointBuffers,
    ) {
        let n = model.dof();
        for &j in coords {
            let step = central_difference(
                b,
                |b| &mut b.state[j],
                |b, side| {
                    let q = &b.state[..n];
                    terms.forces(p, x, q, &mut b.fs);
                    for (l, f, _) in b.fs.each() {
                        b.forces[3 * l..3 * l + 3].copy_from_slice(f.as_slice());
                    }
                    let g = &mut b.load_gradient[side];
                    g.fill(0.0);
                    load_gradient(
                        model,
                        &mut b.lw,
                        q,
                        loads,
                        &b.forces,
                        lam,
                        g,
                        &mut b.load_velocity,
                    );
                    let w =
                        |l: usize| Vector3::from_column_slice(&b.load_velocity[3 * l..3 * l + 3]);
                    for (l, _, dfdq) in b.fs.each() {
                        let wl = w(l);
                        for (c, gc) in g.iter_mut().enumerate() {
                            *gc += (0..3).map(|d| dfdq[(d, c)] * wl[d]).sum::<f64>();
                        }
                    }
                    let xs = &mut b.load_variables[side];
                    xs.clear();
                    xs.extend(b.fs.variables().map(|(l, _, dv)| dv.dot(&w(l))));
                },
            );
            let [gp, gm] = &b.load_gradient;
            for i in 0..n {
                b.hess[(i, j)] -= step.quotient(gp[i], gm[i]);
            }
            let [vp, vm] = &b.load_variables;
            for (v, (pl, mi)) in vp.iter().zip(vm).enumerate() {
                b.hess[(3 * n + v, j)] = -step.quotient(*pl, *mi);
            }
        }
    }

    /// Point `p`'s Hessian block by central differences of the exact inverse-dynamics
    /// derivatives along `(q, v, a)`, into `b.hess` (the route of
    /// [`CollocationNlp::hessian_values_by_differences`]); `b.state` holds the point's state.
    fn point_curvature_by_differences(
        model: &Model,
        terms: &Terms,
        loads: &[PointLoad],
        p: usize,
        x: &[f64],
        lam: &[f64],
        b: &mut PointBuffers,
    ) {
        let n = model.dof();
        let with_loads = !loads.is_empty();
        for j in 0..3 * n {
            let loads_move = with_loads && j < n;
            let step = central_difference(
                b,
                |b| &mut b.state[j],
                |b, side| {
                    let (q, rest) = b.state.split_at(n);
                    let (v, a) = rest.split_at(n);
                    inverse_dynamics_derivatives(model, &mut b.ws, q, v, a, &mut b.der);
                    if loads_move {
                        b.config.copy_from_slice(q);
                        Self::loads_at(terms, model, loads, p, x, b);
                    }
                    let g = &mut b.grad_sides[side];
                    for (c, gc) in g.iter_mut().enumerate().take(3 * n) {
                        let m = match c / n {
                            0 => &b.der.dtau_dq,
                            1 => &b.der.dtau_dv,
                            _ => &b.der.dtau_da,
                        };
                        *gc = (0..n).map(|i| m[(i, c % n)] * lam[i]).sum();
                    }
                    if loads_move {
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
                },
            );
            if loads_move {
                b.config.copy_from_slice(&b.state[..n]);
                Self::loads_at(terms, model, loads, p, x, b);
            }
            let [gp, gm] = &b.grad_sides;
            for c in 0..gp.len() {
                b.hess[(c, j)] = step.quotient(gp[c], gm[c]);
            }
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
        self.impulse.variable_bounds(lower, upper);
    }

    fn constraint_bounds(&self, lower: &mut [f64], upper: &mut [f64]) {
        lower.fill(0.0);
        upper.fill(0.0);
        self.terms.row_bounds(lower, upper);
        self.impulse.row_bounds(lower, upper);
    }

    fn initial_point(&self, x: &mut [f64]) {
        x.copy_from_slice(&self.start);
    }

    fn objective(&mut self, x: &[f64]) -> Result<f64, EvalError> {
        self.terms.objective(x)
    }

    fn gradient(&mut self, x: &[f64], grad: &mut [f64]) -> Result<(), EvalError> {
        self.terms.gradient(x, grad)
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
        let (held_rows, impulse_rows) = self.tail_rows();
        self.held.constraints(
            &self.prob.model,
            &self.layout,
            x,
            &mut c[held_rows..impulse_rows],
        );
        for &(row, var, coefficient) in &self.jumps {
            c[row] += coefficient * x[var];
        }
        self.impulse
            .constraints(&self.prob.model, &self.layout, x, &mut c[impulse_rows..]);
        check_finite(c, "constraint values")
    }

    fn jacobian_structure(&self) -> Vec<(usize, usize)> {
        let mut t = self.hs.jacobian_structure();
        for p in 0..self.layout.points() {
            t.extend(self.load_structure(p));
        }
        t.extend(self.terms.jacobian_structure());
        t.extend(
            self.held
                .jacobian_structure(&self.layout, self.tail_rows().0),
        );
        t.extend(self.jumps.iter().map(|&(row, var, _)| (row, var)));
        t.extend(self.impulse.jacobian_structure(&self.layout));
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
        let (term_vals, impulse_vals) =
            term_vals.split_at_mut(term_vals.len() - self.impulse.jacobian_len());
        let (term_vals, jump_vals) = term_vals.split_at_mut(term_vals.len() - self.jumps.len());
        let (term_vals, held_vals) =
            term_vals.split_at_mut(term_vals.len() - self.held.jacobian_len());
        self.terms.jacobian_values(x, term_vals);
        self.held
            .jacobian_values(&self.prob.model, &self.layout, x, held_vals);
        for (value, &(_, _, coefficient)) in jump_vals.iter_mut().zip(&self.jumps) {
            *value = coefficient;
        }
        self.impulse
            .jacobian_values(&self.prob.model, &self.layout, x, impulse_vals);
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
        t.extend(self.held.hessian_structure(&self.layout));
        t.extend(self.impulse.hessian_structure(&self.layout));
        Some(t)
    }

    /// The Hessian of the Lagrangian: each point's inverse-dynamics curvature
    /// `Σ λ ∇²_{(q,v,a)} (RNEA − Σ_l J_lᵀ f_l)` (see `CollocationNlp::point_curvature`;
    /// torques, springs and dampers enter linearly, the defects are linear, the forces are linear
    /// in their variables), and the per-point terms by theirs (see `Terms::hessian_values`).
    fn hessian_values(
        &mut self,
        x: &[f64],
        obj_factor: f64,
        lambda: &[f64],
        values: &mut [f64],
    ) -> Result<(), EvalError> {
        self.lagrangian_hessian(x, obj_factor, lambda, values, Route::Analytic)
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
        let mut pairs = self.terms.complementarities();
        // The contact term's loads come first: site l is load l.
        let normal = |p: usize, site: usize| {
            self.force_vars[p]
                .iter()
                .find(|&&(load, _)| load == site)
                .map_or(usize::MAX, |&(_, var)| var)
        };
        let impulses = self.impulse.complementarities(&pairs, normal);
        pairs.extend(impulses);
        pairs
    }

    /// The smoothing of the contact complementarity rows (method `smoothing`).
    fn set_smoothing(&mut self, mu: f64) {
        self.terms.set_smoothing(mu);
        self.impulse.set_smoothing(mu);
    }
}

impl CollocationNlp<'_> {
    /// The first held-acceleration row and the first jump row.
    fn tail_rows(&self) -> (usize, usize) {
        let held = self.hs.num_rows() + self.terms.num_rows();
        (held, held + self.held.num_rows())
    }

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

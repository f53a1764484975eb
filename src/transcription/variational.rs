//! The Galerkin variational-integrator transcription (seed 000 §2.1, §4 and Table 1).
//!
//! Decision variables, in order: for every control point `g = k·s + α` (`g = 0..sN`) the
//! configuration `q_g` (n) followed by the torques `u_g` (n_u); then the initial discrete
//! momentum `p⁰` (n); then, only when the boundary velocity is neither fully fixed nor fully
//! free, the initial velocity `v⁰` (n) and the final velocity `v^N` (n). With a fully actuated
//! robot and fixed boundary velocities this is Table 1's `(4N+3)n` for the Simpson VI.
//!
//! Constraint rows, in order:
//! 1. the DEL equations 5a–5b of every stage, `s·n` rows per stage; Eq. 5c is substituted into
//!    the next stage (`p^{k+1}` of stage k enters row `r^{k+1,0}`), so Table 1's `N·n` momentum
//!    rows of Eq. 5c do not appear: `sNn` rows;
//! 2. `p⁰ − M(q_0) v⁰ = 0` (n rows) unless the initial velocity is entirely free;
//! 3. `p^N − M(q_{sN}) v^N = 0` (n rows, `p^N` from Eq. 5c of the last stage) unless the final
//!    velocity is entirely free;
//! 4. joint-velocity bounds on the interpolant `q̇^{k,α} = Σ_β b^{αβ} q^{k,β} / Δt` at every
//!    control point of every stage, for joints with finite velocity limits;
//! 5. the path constraints of the problem.
//!
//! The objective uses the Lobatto quadrature of the discrete Lagrangian (Eq. 4). Stage
//! residuals and linearizations are evaluated in parallel (rayon), each stage with its own
//! buffers, and the Jacobian values of each stage fill their own contiguous slice.

use super::common::{
    FD_STEP, Objective, PathRows, Points, check_finite, fd_hessian_block, lower_triangle,
    write_lower_triangle,
};
use super::guess::initial_trajectory;
use super::solution::{Interpolant, Solution};
use crate::dynamics::{Workspace, generalized_momentum, mass_matrix};
use crate::problem::TrajectoryProblem;
use crate::sqp::{EvalError, Nlp};
use crate::vi::{Galerkin, Stage, StageJacobian, StageWorkspace, del_residual, linearize};
use nalgebra::DMatrix;
use rayon::prelude::*;
use std::ops::Range;

/// Per-stage buffers.
struct StageBuffers {
    ws: StageWorkspace,
    jac: StageJacobian,
    q: Vec<f64>,
    u: Vec<f64>,
    r: Vec<f64>,
    p_next: Vec<f64>,
    /// Multipliers of the rows this stage writes, and the curvature block `Σ λ ∇²_qq`.
    lambda: Vec<f64>,
    column: Vec<f64>,
    hess: DMatrix<f64>,
}

/// A stage's inputs with `p^k = 0` (the transcription adds `p^k` itself).
fn stage_input<'a>(dt: f64, zero_p: &'a [f64], q: &'a [f64], u: &'a [f64]) -> Stage<'a> {
    Stage {
        dt,
        p: zero_p,
        q,
        u,
        loads: &[],
        forces: &[],
    }
}

/// Where a boundary momentum row block lives and which velocity it uses.
#[derive(Clone, Copy, Debug)]
struct Boundary {
    row: usize,
    /// Start index of the velocity variables, or `None` when the velocity is fixed.
    v: Option<usize>,
}

/// The VI transcription of a problem as an [`Nlp`].
pub struct VariationalNlp<'a> {
    prob: &'a TrajectoryProblem,
    gal: Galerkin,
    dt: f64,
    n: usize,
    n_u: usize,
    points: Points,
    p0: usize,
    num_vars: usize,
    initial: Option<Boundary>,
    last: Option<Boundary>,
    velocity_rows: Vec<(usize, usize, usize)>,
    first_velocity_row: usize,
    first_path_row: usize,
    num_rows: usize,
    stage_nnz: Vec<usize>,
    stages: Vec<StageBuffers>,
    side: Vec<(usize, usize)>,
    objective: Objective,
    path: PathRows,
    ws: Workspace,
    momentum: Vec<f64>,
    dmomentum: DMatrix<f64>,
    mass: DMatrix<f64>,
    start: Vec<f64>,
}

impl<'a> VariationalNlp<'a> {
    /// Transcribes `prob` with the Galerkin integrator of `s` intervals per stage.
    ///
    /// # Errors
    /// If the initial guess file cannot be read.
    pub fn new(prob: &'a TrajectoryProblem, s: usize) -> Result<Self, String> {
        let gal = Galerkin::new(s)?;
        let model = &prob.model;
        let (n, n_u) = (model.dof(), model.actuated_joints().len());
        let big_n = prob.stages;
        let dt = prob.duration / big_n as f64;
        let num_points = s * big_n + 1;
        let block = n + n_u;
        let mut times = Vec::with_capacity(num_points);
        let mut weights = vec![0.0; num_points];
        for k in 0..big_n {
            for al in 0..=s {
                let g = k * s + al;
                if al < s || k + 1 == big_n {
                    times.push((k as f64 + gal.nodes()[al]) * dt);
                }
                weights[g] += gal.w(al) * dt;
            }
        }
        let p0 = num_points * block;
        let mut num_vars = p0 + n;
        let mut boundary_v = |r: &crate::problem::Ranges| -> Option<usize> {
            if r.all_fixed() || r.all_free() {
                None
            } else {
                let at = num_vars;
                num_vars += n;
                Some(at)
            }
        };
        let v0 = boundary_v(&prob.initial_v);
        let vn = boundary_v(&prob.final_v);
        let points = Points {
            times,
            weights,
            q: (0..num_points).map(|g| g * block).collect(),
            u: (0..num_points).map(|g| g * block + n).collect(),
            final_v: vn,
        };
        let mut row = s * big_n * n;
        let initial = (!prob.initial_v.all_free()).then(|| {
            let b = Boundary { row, v: v0 };
            row += n;
            b
        });
        let last = (!prob.final_v.all_free()).then(|| {
            let b = Boundary { row, v: vn };
            row += n;
            b
        });
        let first_velocity_row = row;
        let mut velocity_rows = Vec::new();
        for k in 0..big_n {
            for al in 0..=s {
                for i in 0..n {
                    if prob.v_bounds.lower[i].is_finite() || prob.v_bounds.upper[i].is_finite() {
                        velocity_rows.push((k, al, i));
                    }
                }
            }
        }
        row += velocity_rows.len();
        let path = PathRows::new(prob, &points);
        let first_path_row = row;
        row += path.len();
        let stage_nnz = (0..big_n)
            .map(|k| {
                let blocks = if k + 1 < big_n || last.is_some() {
                    s + 1
                } else {
                    s
                };
                blocks * ((s + 1) * n * n + model.drives().len())
            })
            .collect();
        let stages = (0..big_n)
            .map(|_| StageBuffers {
                ws: StageWorkspace::new(model, &gal),
                jac: StageJacobian::new(model, &gal, 0),
                q: vec![0.0; (s + 1) * n],
                u: vec![0.0; (s + 1) * n_u],
                r: vec![0.0; s * n],
                p_next: vec![0.0; n],
                lambda: vec![0.0; (s + 1) * n],
                column: vec![0.0; (s + 1) * n],
                hess: DMatrix::zeros((s + 1) * n, (s + 1) * n),
            })
            .collect();
        let mut nlp = Self {
            prob,
            gal,
            dt,
            n,
            n_u,
            points,
            p0,
            num_vars,
            initial,
            last,
            velocity_rows,
            first_velocity_row,
            first_path_row,
            num_rows: row,
            stage_nnz,
            stages,
            side: Vec::new(),
            objective: Objective::new(model),
            path,
            ws: Workspace::new(model),
            momentum: vec![0.0; n],
            dmomentum: DMatrix::zeros(n, n),
            mass: DMatrix::zeros(n, n),
            start: Vec::new(),
        };
        nlp.side = nlp.side_structure();
        nlp.start = nlp.starting_point()?;
        Ok(nlp)
    }

    /// The sample points (control points) and where their variables are.
    pub fn points(&self) -> &Points {
        &self.points
    }

    /// The integrator.
    pub fn galerkin(&self) -> &Galerkin {
        &self.gal
    }

    /// Number of stages `N`.
    pub fn stages(&self) -> usize {
        self.prob.stages
    }

    /// The trajectory at `x`: control points, the knot velocities `v_k = M(q^k)⁻¹ p^k` of the
    /// discrete Legendre transform (`p^{k+1}` from Eq. 5c), and the interpolant through both.
    pub fn solution(&mut self, x: &[f64]) -> Solution {
        self.evaluate_stages(x);
        let (n, n_u, s, dt) = (self.n, self.n_u, self.gal.s(), self.dt);
        let model = &self.prob.model;
        let pts = &self.points;
        let q: Vec<Vec<f64>> = (0..pts.len())
            .map(|g| x[pts.q[g]..pts.q[g] + n].to_vec())
            .collect();
        let u: Vec<Vec<f64>> = (0..pts.len())
            .map(|g| x[pts.u[g]..pts.u[g] + n_u].to_vec())
            .collect();
        let mut knot_velocities = Vec::with_capacity(self.prob.stages + 1);
        for k in 0..=self.prob.stages {
            let p = if k == 0 {
                x[self.p0..self.p0 + n].to_vec()
            } else {
                self.stages[k - 1].p_next.clone()
            };
            mass_matrix(model, &mut self.ws, &q[k * s], &mut self.mass);
            let pv = nalgebra::DVector::from_column_slice(&p);
            knot_velocities.push(
                self.mass
                    .clone()
                    .cholesky()
                    .map_or_else(|| vec![f64::NAN; n], |c| c.solve(&pv).as_slice().to_vec()),
            );
        }
        let mut sol = Solution {
            joint_names: model.joint_names(),
            actuated_names: model
                .actuated_joints()
                .iter()
                .map(|&i| model.joint(i).name.clone())
                .collect(),
            times: pts.times.clone(),
            q,
            v: Vec::new(),
            u,
            interpolant: Interpolant::Galerkin {
                gal: self.gal.clone(),
                dt,
                stages: self.prob.stages,
                knot_velocities,
            },
        };
        sol.v = sol.times.iter().map(|&t| sol.sample(t).1).collect();
        sol
    }

    /// Algorithm 1 on every stage at `x` (in parallel), leaving `r` and `p^{k+1}` (computed with
    /// `p^k = 0`) in the stage buffers.
    fn evaluate_stages(&mut self, x: &[f64]) {
        let (n, n_u, s, dt) = (self.n, self.n_u, self.gal.s(), self.dt);
        let model = &self.prob.model;
        let gal = &self.gal;
        let points = &self.points;
        let zero_p = vec![0.0; n];
        self.stages.par_iter_mut().enumerate().for_each(|(k, st)| {
            Self::gather(points, s, n, n_u, k, x, st);
            let stage = stage_input(dt, &zero_p, &st.q, &st.u);
            del_residual(model, gal, &mut st.ws, &stage, &mut st.r, &mut st.p_next);
        });
    }

    /// Global row of DEL equation `α` of stage `k`.
    fn del_row(&self, k: usize, al: usize) -> usize {
        (k * self.gal.s() + al) * self.n
    }

    /// Row block receiving output `α` (`α = s`: `p^{k+1}`) of stage `k`, if any.
    fn output_row(&self, k: usize, al: usize) -> Option<usize> {
        let s = self.gal.s();
        if al < s {
            Some(self.del_row(k, al))
        } else if k + 1 < self.prob.stages {
            Some(self.del_row(k + 1, 0))
        } else {
            self.last.map(|b| b.row)
        }
    }

    fn starting_point(&mut self) -> Result<Vec<f64>, String> {
        let prob = self.prob;
        let (n, n_u) = (self.n, self.n_u);
        let (q, u) = initial_trajectory(prob, &self.points.times)?;
        let mut x = vec![0.0; self.num_vars];
        for g in 0..self.points.len() {
            x[self.points.q[g]..self.points.q[g] + n].copy_from_slice(&q[g]);
            x[self.points.u[g]..self.points.u[g] + n_u].copy_from_slice(&u[g]);
        }
        let v0: Vec<f64> = (0..n).map(|i| prob.initial_v.guess(i, 0.0)).collect();
        generalized_momentum(
            &prob.model,
            &mut self.ws,
            &q[0],
            &v0,
            &mut self.momentum,
            &mut self.dmomentum,
        );
        x[self.p0..self.p0 + n].copy_from_slice(&self.momentum);
        if let Some(Boundary { v: Some(iv), .. }) = self.initial {
            x[iv..iv + n].copy_from_slice(&v0);
        }
        if let Some(Boundary { v: Some(iv), .. }) = self.last {
            for i in 0..n {
                x[iv + i] = prob.final_v.guess(i, 0.0);
            }
        }
        Ok(x)
    }

    /// Copies stage `k`'s control points and torques out of `x`.
    fn gather(
        points: &Points,
        s: usize,
        n: usize,
        n_u: usize,
        k: usize,
        x: &[f64],
        st: &mut StageBuffers,
    ) {
        for al in 0..=s {
            let g = k * s + al;
            st.q[al * n..(al + 1) * n].copy_from_slice(&x[points.q[g]..points.q[g] + n]);
            st.u[al * n_u..(al + 1) * n_u].copy_from_slice(&x[points.u[g]..points.u[g] + n_u]);
        }
    }

    /// The generalized momentum `M(q) v` of the boundary row block `b` at point `g` of `x`
    /// (its velocity variables, or the fixed velocity `fixed`), with its derivative in `q`,
    /// into `self.momentum` and `self.dmomentum`.
    fn boundary_momentum(
        &mut self,
        b: &Boundary,
        fixed: &crate::problem::Ranges,
        g: usize,
        x: &[f64],
    ) {
        let v = match b.v {
            Some(iv) => x[iv..iv + self.n].to_vec(),
            None => fixed.lower.clone(),
        };
        let q = &x[self.points.q[g]..self.points.q[g] + self.n];
        generalized_momentum(
            &self.prob.model,
            &mut self.ws,
            q,
            &v,
            &mut self.momentum,
            &mut self.dmomentum,
        );
    }

    /// Jacobian triplets of every row block after the stages.
    fn side_structure(&self) -> Vec<(usize, usize)> {
        let (n, s) = (self.n, self.gal.s());
        let mut t = Vec::new();
        for i in 0..n {
            t.push((i, self.p0 + i));
        }
        let last_point = self.points.len() - 1;
        for (b, g, with_p) in [(self.initial, 0, true), (self.last, last_point, false)] {
            let Some(b) = b else { continue };
            if with_p {
                for i in 0..n {
                    t.push((b.row + i, self.p0 + i));
                }
            }
            for j in 0..n {
                for i in 0..n {
                    t.push((b.row + i, self.points.q[g] + j));
                }
            }
            if let Some(iv) = b.v {
                for j in 0..n {
                    for i in 0..n {
                        t.push((b.row + i, iv + j));
                    }
                }
            }
        }
        for (r, &(k, _, i)) in self.velocity_rows.iter().enumerate() {
            for be in 0..=s {
                t.push((self.first_velocity_row + r, self.points.q[k * s + be] + i));
            }
        }
        t.extend(
            self.path
                .structure(self.prob, &self.points, self.first_path_row),
        );
        t
    }

    /// Jacobian values of every row block after the stages (boundary momenta, velocity rows,
    /// path constraints), in the order of [`Self::side_structure`].
    fn side_jacobian_values(&mut self, x: &[f64], rest: &mut [f64]) {
        let (n, s, dt) = (self.n, self.gal.s(), self.dt);
        let prob = self.prob;
        let model = &prob.model;
        let mut idx = 0;
        for _ in 0..n {
            rest[idx] = 1.0;
            idx += 1;
        }
        let last_point = self.points.len() - 1;
        for (b, fixed, g, with_p) in [
            (self.initial, &prob.initial_v, 0, true),
            (self.last, &prob.final_v, last_point, false),
        ] {
            let Some(b) = b else { continue };
            if with_p {
                for _ in 0..n {
                    rest[idx] = 1.0;
                    idx += 1;
                }
            }
            self.boundary_momentum(&b, fixed, g, x);
            for j in 0..n {
                for i in 0..n {
                    rest[idx] = -self.dmomentum[(i, j)];
                    idx += 1;
                }
            }
            if b.v.is_some() {
                let q = &x[self.points.q[g]..self.points.q[g] + n];
                mass_matrix(model, &mut self.ws, q, &mut self.mass);
                for j in 0..n {
                    for i in 0..n {
                        rest[idx] = -self.mass[(i, j)];
                        idx += 1;
                    }
                }
            }
        }
        for &(_, al, _) in &self.velocity_rows {
            for be in 0..=s {
                rest[idx] = self.gal.b(al, be) / dt;
                idx += 1;
            }
        }
        self.path
            .jacobian_values(prob, &self.points, x, &mut rest[idx..]);
    }

    /// The variables of point `p` whose curvature the side terms carry: `q_p`, and the boundary
    /// velocity variables at the first and last points.
    fn side_block(&self, p: usize) -> Vec<usize> {
        let mut vars: Vec<usize> = (self.points.q[p]..self.points.q[p] + self.n).collect();
        let boundary = if p == 0 {
            self.initial
        } else if p + 1 == self.points.len() {
            self.last
        } else {
            None
        };
        if let Some(Boundary { v: Some(iv), .. }) = boundary {
            vars.extend(iv..iv + self.n);
        }
        vars
    }

    /// `σ∇f(x) + Σ_side λ_r ∇c_r(x)` over every row block after the stages.
    fn side_gradient(&mut self, x: &[f64], obj_factor: f64, lambda: &[f64], out: &mut [f64]) {
        self.objective
            .evaluate(self.prob, &self.points, x, Some(out));
        for g in out.iter_mut() {
            *g *= obj_factor;
        }
        let mut vals = vec![0.0; self.side.len()];
        self.side_jacobian_values(x, &mut vals);
        for (&(r, c), v) in self.side.iter().zip(&vals) {
            out[c] += lambda[r] * v;
        }
    }
}

impl Nlp for VariationalNlp<'_> {
    fn num_variables(&self) -> usize {
        self.num_vars
    }

    fn num_constraints(&self) -> usize {
        self.num_rows
    }

    fn variable_bounds(&self, lower: &mut [f64], upper: &mut [f64]) {
        let prob = self.prob;
        let (n, n_u) = (self.n, self.n_u);
        lower.fill(f64::NEG_INFINITY);
        upper.fill(f64::INFINITY);
        let last = self.points.len() - 1;
        for g in 0..self.points.len() {
            for i in 0..n {
                let (mut lo, mut hi) = (prob.q_bounds.lower[i], prob.q_bounds.upper[i]);
                if g == 0 {
                    lo = lo.max(prob.initial_q.lower[i]);
                    hi = hi.min(prob.initial_q.upper[i]);
                }
                if g == last {
                    lo = lo.max(prob.final_q.lower[i]);
                    hi = hi.min(prob.final_q.upper[i]);
                }
                lower[self.points.q[g] + i] = lo;
                upper[self.points.q[g] + i] = hi;
            }
            for c in 0..n_u {
                lower[self.points.u[g] + c] = prob.u_bounds.lower[c];
                upper[self.points.u[g] + c] = prob.u_bounds.upper[c];
            }
        }
        for (b, r) in [(self.initial, &prob.initial_v), (self.last, &prob.final_v)] {
            if let Some(Boundary { v: Some(iv), .. }) = b {
                lower[iv..iv + n].copy_from_slice(&r.lower);
                upper[iv..iv + n].copy_from_slice(&r.upper);
            }
        }
    }

    fn constraint_bounds(&self, lower: &mut [f64], upper: &mut [f64]) {
        lower.fill(0.0);
        upper.fill(0.0);
        for (r, &(_, _, i)) in self.velocity_rows.iter().enumerate() {
            lower[self.first_velocity_row + r] = self.prob.v_bounds.lower[i];
            upper[self.first_velocity_row + r] = self.prob.v_bounds.upper[i];
        }
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
        self.evaluate_stages(x);
        let (n, s, dt) = (self.n, self.gal.s(), self.dt);
        c.fill(0.0);
        for k in 0..self.prob.stages {
            for al in 0..s {
                let row = self.del_row(k, al);
                for i in 0..n {
                    c[row + i] += self.stages[k].r[al * n + i];
                }
            }
            if let Some(row) = self.output_row(k, s) {
                for i in 0..n {
                    c[row + i] += self.stages[k].p_next[i];
                }
            }
        }
        for i in 0..n {
            c[i] += x[self.p0 + i];
        }
        let prob = self.prob;
        let last_point = self.points.len() - 1;
        for (b, fixed, g, with_p) in [
            (self.initial, &prob.initial_v, 0, true),
            (self.last, &prob.final_v, last_point, false),
        ] {
            let Some(b) = b else { continue };
            self.boundary_momentum(&b, fixed, g, x);
            // Initial rows: p⁰ − M(q_0) v⁰. Final rows: p^N − M(q_sN) v^N, p^N having been
            // accumulated from the last stage above.
            for i in 0..n {
                let p = if with_p { x[self.p0 + i] } else { 0.0 };
                c[b.row + i] += p - self.momentum[i];
            }
        }
        for (r, &(k, al, i)) in self.velocity_rows.iter().enumerate() {
            let mut v = 0.0;
            for be in 0..=s {
                v += self.gal.b(al, be) * x[self.points.q[k * s + be] + i];
            }
            c[self.first_velocity_row + r] = v / dt;
        }
        let first = self.first_path_row;
        self.path.values(prob, &self.points, x, &mut c[first..]);
        check_finite(c, "constraint values")
    }

    fn jacobian_structure(&self) -> Vec<(usize, usize)> {
        let (n, s) = (self.n, self.gal.s());
        let drives = self.prob.model.drives();
        let mut t = Vec::new();
        for k in 0..self.prob.stages {
            for al in 0..=s {
                let Some(row) = self.output_row(k, al) else {
                    continue;
                };
                for ga in 0..=s {
                    let col = self.points.q[k * s + ga];
                    for j in 0..n {
                        for i in 0..n {
                            t.push((row + i, col + j));
                        }
                    }
                }
                for d in &drives {
                    t.push((row + d.joint, self.points.u[k * s + al] + d.column));
                }
            }
        }
        t.extend(self.side_structure());
        t
    }

    fn jacobian_values(&mut self, x: &[f64], values: &mut [f64]) -> Result<(), EvalError> {
        let (n, n_u, s, dt) = (self.n, self.n_u, self.gal.s(), self.dt);
        let model = &self.prob.model;
        let gal = &self.gal;
        let points = &self.points;
        let drives = model.drives();
        let total: usize = self.stage_nnz.iter().sum();
        let (stage_values, rest) = values.split_at_mut(total);
        let mut chunks = Vec::with_capacity(self.stage_nnz.len());
        let mut remaining = stage_values;
        for &len in &self.stage_nnz {
            let (head, tail) = remaining.split_at_mut(len);
            chunks.push(head);
            remaining = tail;
        }
        let zero_p = vec![0.0; n];
        self.stages
            .par_iter_mut()
            .zip(chunks.into_par_iter())
            .enumerate()
            .for_each(|(k, (st, out))| {
                Self::gather(points, s, n, n_u, k, x, st);
                let stage = stage_input(dt, &zero_p, &st.q, &st.u);
                linearize(model, gal, &mut st.ws, &stage, &mut st.jac);
                let blocks = out.len() / ((s + 1) * n * n + drives.len());
                let mut idx = 0;
                for al in 0..blocks {
                    for ga in 0..=s {
                        for j in 0..n {
                            for i in 0..n {
                                out[idx] = st.jac.dq[(al * n + i, ga * n + j)];
                                idx += 1;
                            }
                        }
                    }
                    for d in &drives {
                        out[idx] = st.jac.du[(al * n + d.joint, al * n_u + d.column)];
                        idx += 1;
                    }
                }
            });
        self.side_jacobian_values(x, rest);
        check_finite(values, "Jacobian values")
    }

    fn hessian_structure(&self) -> Option<Vec<(usize, usize)>> {
        let (n, s) = (self.n, self.gal.s());
        let mut t = Vec::new();
        for k in 0..self.prob.stages {
            let vars: Vec<usize> = (0..(s + 1) * n)
                .map(|a| self.points.q[k * s + a / n] + a % n)
                .collect();
            lower_triangle(&vars, &mut t);
        }
        for p in 0..self.points.len() {
            for c in 0..self.n_u {
                t.push((self.points.u[p] + c, self.points.u[p] + c));
            }
        }
        for p in 0..self.points.len() {
            lower_triangle(&self.side_block(p), &mut t);
        }
        Some(t)
    }

    /// The Hessian of the Lagrangian: each stage's DEL curvature `Σ λ ∇²_qq r` by central
    /// differences of its exact linearization (the torques enter linearly, so there is no `u`
    /// curvature), the effort term exactly, and the remaining terms (costs on `q`, boundary
    /// momenta, path constraints, all separable by point) by central differences of their
    /// exact gradients, point by point.
    fn hessian_values(
        &mut self,
        x: &[f64],
        obj_factor: f64,
        lambda: &[f64],
        values: &mut [f64],
    ) -> Result<(), EvalError> {
        let (n, n_u, s, dt) = (self.n, self.n_u, self.gal.s(), self.dt);
        let big_n = self.prob.stages;
        let block = (s + 1) * n;
        let tri = block * (block + 1) / 2;
        let rows: Vec<[Option<usize>; 7]> = (0..big_n)
            .map(|k| {
                let mut r = [None; 7];
                for (al, slot) in r.iter_mut().enumerate().take(s + 1) {
                    *slot = self.output_row(k, al);
                }
                r
            })
            .collect();
        let model = &self.prob.model;
        let gal = &self.gal;
        let points = &self.points;
        let zero_p = vec![0.0; n];
        let (stage_values, rest) = values.split_at_mut(big_n * tri);
        self.stages
            .par_iter_mut()
            .zip(stage_values.par_chunks_mut(tri))
            .enumerate()
            .for_each(|(k, (st, out))| {
                Self::gather(points, s, n, n_u, k, x, st);
                for (al, row) in rows[k].iter().enumerate().take(s + 1) {
                    for i in 0..n {
                        st.lambda[al * n + i] = row.map_or(0.0, |r| lambda[r + i]);
                    }
                }
                for j in 0..block {
                    let q0 = st.q[j];
                    let h = FD_STEP * q0.abs().max(1.0);
                    st.column.fill(0.0);
                    for (sign, e) in [(1.0, h), (-1.0, -h)] {
                        st.q[j] = q0 + e;
                        let stage = stage_input(dt, &zero_p, &st.q, &st.u);
                        linearize(model, gal, &mut st.ws, &stage, &mut st.jac);
                        for (c, col) in st.column.iter_mut().enumerate() {
                            let dot: f64 = st
                                .jac
                                .dq
                                .column(c)
                                .iter()
                                .zip(&st.lambda)
                                .map(|(a, b)| a * b)
                                .sum();
                            *col += sign * dot / (2.0 * h);
                        }
                    }
                    st.q[j] = q0;
                    for (c, col) in st.column.iter().enumerate() {
                        st.hess[(c, j)] = *col;
                    }
                }
                write_lower_triangle(&st.hess, out);
            });
        let mut idx = 0;
        for p in 0..self.points.len() {
            for c in 0..n_u {
                rest[idx] = obj_factor * 2.0 * self.points.weights[p] * self.prob.costs.effort[c];
                idx += 1;
            }
        }
        for p in 0..self.points.len() {
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
        let s = self.gal.s();
        let mut groups = Vec::new();
        let block = self.n + self.n_u;
        groups.push(0..block);
        for k in 0..self.prob.stages {
            groups.push((k * s + 1) * block..(k * s + s + 1) * block);
        }
        groups.push(self.p0..self.num_vars);
        Some(groups)
    }
}

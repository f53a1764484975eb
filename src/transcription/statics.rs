//! Static balance: a configuration, torques and term forces (stance wrenches) that hold the
//! robot at rest, as a small NLP of its own. `vito balance` finds the start pose of a balancing
//! motion with it.
//!
//! At zero velocity and acceleration the equations of motion of either transcription reduce to
//! the `n` rows
//!
//! ```text
//! r(q, u, own) = τ(q, 0, 0) − τ_passive(q, 0) − B u − Σ_l J_l(q)ᵀ f_l(own) = 0,
//! ```
//!
//! gravity against the springs, the motors and the loads of the per-point terms. Variables:
//! `[q | u | the terms' own variables]`; `q` within both `bounds.q` and `initial.q`. The terms
//! are the problem's at one point of weight 1 with zero velocity ([`at_start`] keeps those that
//! apply at `t = 0`): the stance rows and cones, frame bounds, joint equalities, frame
//! constraints at `time: start`, and the effort and tracking costs. The solver starts from the
//! tracking reference when there is one (the nominal pose), else from the middle of the start
//! ranges.

use super::common::{
    Points, central_difference, check_finite, lower_triangle, write_lower_triangle,
};
use super::loads::LoadTerms;
use super::solve::SolveError;
use super::stance::StanceTrajectory;
use super::terms::{ForceScratch, PointVelocity, Terms, VelocityMap};
use crate::dynamics::{
    InverseDynamicsDerivatives, Workspace, center_of_mass, inverse_dynamics_derivatives,
};
use crate::nlp::{EvalError, LogObserver, Method, Nlp, SolverResult};
use crate::optimizer::Solver;
use crate::problem::TrajectoryProblem;
use crate::spatial::Vec3;
use crate::vi::PointLoad;
use nalgebra::DMatrix;
use std::io::Write;

/// The problem restricted to what applies at its start: its costs and path constraints that
/// hold at every point or at `time: start` (`TermSpec::holds_at_start`).
pub fn at_start(prob: &TrajectoryProblem) -> TrajectoryProblem {
    let mut p = prob.clone();
    p.constraints.retain(|c| c.holds_at_start());
    p.costs.retain(|c| c.holds_at_start());
    p
}

/// The static balance of a problem as an [`Nlp`].
pub struct StaticNlp<'a> {
    prob: &'a TrajectoryProblem,
    terms: Terms<'a>,
    n: usize,
    n_u: usize,
    num_vars: usize,
    loads: Vec<PointLoad>,
    /// `(load, variable)` of the forces.
    force_vars: Vec<(usize, usize)>,
    /// The force variables, each once.
    force_columns: Vec<usize>,
    ws: Workspace,
    der: InverseDynamicsDerivatives,
    fs: ForceScratch,
    load: LoadTerms,
    stiffness: Vec<f64>,
    /// Zero velocity and acceleration.
    zero: Vec<f64>,
    residual: Vec<f64>,
    /// The gradient at either side of a difference.
    grad_sides: [Vec<f64>; 2],
    start: Vec<f64>,
}

impl<'a> StaticNlp<'a> {
    /// The static balance of `prob` (every term of it at one point: see [`at_start`]).
    pub fn new(prob: &'a TrajectoryProblem) -> Self {
        let model = &prob.model;
        let (n, n_u) = (model.dof(), model.actuated_joints().len());
        let points = Points {
            times: vec![0.0],
            weights: vec![1.0],
            q: vec![0],
            u: vec![n],
            final_v: None,
        };
        let terms = Terms::new(
            prob,
            &points,
            vec![PointVelocity::single(
                VelocityMap::Combination(Vec::new()),
                1.0,
            )],
            n + n_u,
            n,
        );
        let num_vars = n + n_u + terms.num_variables();
        let loads = terms.loads().to_vec();
        let force_vars = terms.force_variables(0);
        let mut force_columns: Vec<usize> = force_vars.iter().map(|&(_, v)| v).collect();
        force_columns.sort_unstable();
        force_columns.dedup();
        let fs = terms.force_scratch(prob.contact.as_ref());
        let mut nlp = Self {
            prob,
            n,
            n_u,
            num_vars,
            loads,
            load: LoadTerms::new(n, force_vars.len()),
            force_vars,
            force_columns,
            ws: Workspace::new(model),
            der: InverseDynamicsDerivatives::new(model),
            fs,
            stiffness: model
                .joints()
                .iter()
                .map(|j| j.spring.map_or(0.0, |s| s.stiffness))
                .collect(),
            zero: vec![0.0; n],
            residual: vec![0.0; n],
            grad_sides: [vec![0.0; num_vars], vec![0.0; num_vars]],
            terms,
            start: Vec::new(),
        };
        nlp.start = nlp.starting_point();
        nlp
    }

    fn starting_point(&mut self) -> Vec<f64> {
        let prob = self.prob;
        let model = &prob.model;
        let n = self.n;
        let mut x = vec![0.0; self.num_vars];
        for (i, xi) in x.iter_mut().enumerate().take(n) {
            let nominal = prob
                .costs
                .iter()
                .find_map(|c| c.posture())
                .map_or_else(|| prob.q_bounds.guess(i, 0.0), |q| q[i]);
            let (lo, hi) = self.q_range(i);
            *xi = if lo <= hi {
                prob.initial_q.guess(i, nominal).clamp(lo, hi)
            } else {
                nominal
            };
        }
        // The torques that hold the pose without loads.
        let zero = &self.zero;
        inverse_dynamics_derivatives(model, &mut self.ws, &x[..n], zero, zero, &mut self.der);
        for (c, &i) in model.actuated_joints().iter().enumerate() {
            let hold = self.der.tau[i] - model.passive_force(i, x[i], 0.0);
            x[n + c] = hold.clamp(prob.u_bounds.lower[c], prob.u_bounds.upper[c]);
        }
        self.terms.start(&mut x);
        x
    }

    /// The range of `q_i`: `bounds.q` and `initial.q` together.
    fn q_range(&self, i: usize) -> (f64, f64) {
        let p = self.prob;
        (
            p.q_bounds.lower[i].max(p.initial_q.lower[i]),
            p.q_bounds.upper[i].min(p.initial_q.upper[i]),
        )
    }

    /// The equilibrium rows at `x` into `r`, their derivatives into the buffers.
    fn equilibrium(&mut self, x: &[f64], r: &mut [f64]) {
        let model = &self.prob.model;
        let n = self.n;
        let q = &x[..n];
        let zero = &self.zero;
        inverse_dynamics_derivatives(model, &mut self.ws, q, zero, zero, &mut self.der);
        r.copy_from_slice(&self.der.tau);
        for (i, ri) in r.iter_mut().enumerate() {
            *ri -= model.passive_force(i, q[i], 0.0);
        }
        for d in model.drives() {
            r[d.joint] -= d.factor * x[n + d.column];
        }
        if !self.loads.is_empty() {
            self.terms.forces(0, x, q, &mut self.fs);
            self.load
                .evaluate(model, &self.loads, &mut self.ws, q, &self.fs);
            for (ri, qi) in r.iter_mut().zip(&self.load.q) {
                *ri -= qi;
            }
        }
    }

    /// `(∂r/∂x)ᵀ λ` over `[q | u | own]` at `x` into `g`.
    fn equilibrium_gradient(&mut self, x: &[f64], lambda: &[f64], g: &mut [f64]) {
        let n = self.n;
        let mut r = std::mem::take(&mut self.residual);
        self.equilibrium(x, &mut r);
        self.residual = r;
        g.fill(0.0);
        for j in 0..n {
            let mut s = self.stiffness[j] * lambda[j];
            for (i, l) in lambda.iter().enumerate().take(n) {
                let mut d = self.der.dtau_dq[(i, j)];
                if !self.loads.is_empty() {
                    d -= self.load.dq[(i, j)];
                }
                s += d * l;
            }
            g[j] = s;
        }
        for d in self.prob.model.drives() {
            g[n + d.column] -= d.factor * lambda[d.joint];
        }
        for (c, &(_, var)) in self.force_vars.iter().enumerate() {
            g[var] -= (0..n)
                .map(|i| self.load.dvars[(i, c)] * lambda[i])
                .sum::<f64>();
        }
    }

    /// The balance at `x`: configuration, torques, the stance feet and the centre of mass.
    pub fn balance(&mut self, x: &[f64]) -> (Vec<f64>, Vec<f64>, Option<StanceTrajectory>, Vec3) {
        let (n, n_u) = (self.n, self.n_u);
        let com = center_of_mass(&self.prob.model, &mut self.ws, &x[..n]);
        (
            x[..n].to_vec(),
            x[n..n + n_u].to_vec(),
            self.terms.stance_trajectory(x),
            com,
        )
    }
}

impl Nlp for StaticNlp<'_> {
    fn num_variables(&self) -> usize {
        self.num_vars
    }

    fn num_constraints(&self) -> usize {
        self.n + self.terms.num_rows()
    }

    fn variable_bounds(&self, lower: &mut [f64], upper: &mut [f64]) {
        let n = self.n;
        for i in 0..n {
            (lower[i], upper[i]) = self.q_range(i);
        }
        lower[n..n + self.n_u].copy_from_slice(&self.prob.u_bounds.lower);
        upper[n..n + self.n_u].copy_from_slice(&self.prob.u_bounds.upper);
        self.terms.variable_bounds(lower, upper);
    }

    fn constraint_bounds(&self, lower: &mut [f64], upper: &mut [f64]) {
        lower[..self.n].fill(0.0);
        upper[..self.n].fill(0.0);
        self.terms.row_bounds(lower, upper);
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
        let n = self.n;
        self.equilibrium(x, &mut c[..n]);
        self.terms.constraints(x, c);
        check_finite(c, "constraints")
    }

    fn jacobian_structure(&self) -> Vec<(usize, usize)> {
        let n = self.n;
        let mut t = Vec::new();
        for j in 0..n {
            t.extend((0..n).map(|i| (i, j)));
        }
        for d in self.prob.model.drives() {
            t.push((d.joint, n + d.column));
        }
        for &(_, var) in &self.force_vars {
            t.extend((0..n).map(|i| (i, var)));
        }
        t.extend(self.terms.jacobian_structure());
        t
    }

    fn jacobian_values(&mut self, x: &[f64], values: &mut [f64]) -> Result<(), EvalError> {
        let n = self.n;
        let mut r = std::mem::take(&mut self.residual);
        self.equilibrium(x, &mut r);
        self.residual = r;
        let mut e = 0;
        for j in 0..n {
            for i in 0..n {
                let mut d = self.der.dtau_dq[(i, j)];
                if i == j {
                    d += self.stiffness[j];
                }
                if !self.loads.is_empty() {
                    d -= self.load.dq[(i, j)];
                }
                values[e] = d;
                e += 1;
            }
        }
        for d in self.prob.model.drives() {
            values[e] = -d.factor;
            e += 1;
        }
        for c in 0..self.force_vars.len() {
            for i in 0..n {
                values[e] = -self.load.dvars[(i, c)];
                e += 1;
            }
        }
        self.terms.jacobian_values(x, &mut values[e..]);
        check_finite(values, "Jacobian values")
    }

    fn hessian_structure(&self) -> Option<Vec<(usize, usize)>> {
        let mut t = Vec::new();
        lower_triangle(&(0..self.n).collect::<Vec<_>>(), &mut t);
        for &var in &self.force_columns {
            t.extend((0..self.n).map(|j| (var, j)));
        }
        t.extend(self.terms.hessian_structure());
        Some(t)
    }

    /// The equilibrium rows' curvature `Σ λ_i ∇² r_i` over `q` and `q × own` by central
    /// differences of their exact gradient in `q` (the torques and forces enter linearly); the
    /// terms' by theirs.
    fn hessian_values(
        &mut self,
        x: &[f64],
        obj_factor: f64,
        lambda: &[f64],
        values: &mut [f64],
    ) -> Result<(), EvalError> {
        let n = self.n;
        // One evaluation per SQP iteration: the block and the shifted point are not kept.
        let mut block = DMatrix::zeros(self.num_vars, n);
        let mut xs = x.to_vec();
        let mut sides = std::mem::take(&mut self.grad_sides);
        for j in 0..n {
            let step = central_difference(
                &mut xs[..],
                |xs| &mut xs[j],
                |xs, side| {
                    self.equilibrium_gradient(xs, &lambda[..n], &mut sides[side]);
                },
            );
            for c in 0..self.num_vars {
                block[(c, j)] = step.quotient(sides[0][c], sides[1][c]);
            }
        }
        self.grad_sides = sides;
        let qq = block.view((0, 0), (n, n)).into_owned();
        let tri = n * (n + 1) / 2;
        write_lower_triangle(&qq, &mut values[..tri]);
        let mut e = tri;
        for &var in &self.force_columns {
            for j in 0..n {
                values[e] = block[(var, j)];
                e += 1;
            }
        }
        self.terms
            .hessian_values(x, obj_factor, lambda, &mut values[e..]);
        check_finite(values, "Hessian values")
    }
}

/// A solved static balance.
#[derive(Clone, Debug)]
pub struct Balance {
    /// The solver's result.
    pub result: SolverResult,
    /// The configuration.
    pub q: Vec<f64>,
    /// The torques of the actuated joints.
    pub u: Vec<f64>,
    /// The stance feet (wrench, centre of pressure, centre of mass in each sole frame).
    pub stance: Option<StanceTrajectory>,
    /// The centre of mass (world).
    pub com: Vec3,
}

/// Solves the static balance of `prob` at its start ([`at_start`]); the solver's log goes to
/// `log`.
///
/// # Errors
/// [`SolveError`] when the solver refuses the problem or its settings.
pub fn balance(prob: &TrajectoryProblem, log: &mut dyn Write) -> Result<Balance, SolveError> {
    let start = at_start(prob);
    let mut settings = start.solver.clone();
    if settings.method == Method::Auto {
        // The balance is a small NLP whose pose is copied into problem files: the SQP's
        // active-set solution is exact where the interior-point method's is within the
        // tolerance (a humanoid's balance pose moved by 1e-5 rad).
        settings.method = Method::Sqp;
    }
    let solver = Solver::new(settings)?;
    let mut observer = LogObserver::new(log, start.solver.print_level);
    let mut nlp = StaticNlp::new(&start);
    let result = solver.solve_with_observer(&mut nlp, &mut observer)?;
    let (q, u, stance, com) = nlp.balance(&result.x);
    Ok(Balance {
        result,
        q,
        u,
        stance,
        com,
    })
}

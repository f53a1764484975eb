//! The Galerkin variational-integrator transcription (seed 000 §2.1, §4 and Table 1).
//!
//! Decision variables, in order: for every control point `g = k·s + α` (`g = 0..sN`) the
//! configuration `q_g` (n) followed by the torques `u_g` (n_u); then the initial discrete
//! momentum `p⁰` (n); then the initial velocity `v⁰` (n) and the final velocity `v^N` (n),
//! each unless fully fixed, and unless fully free in a problem without velocity bounds; then,
//! in a problem with velocity bounds, the knot velocities `v^1 … v^{N−1}` (n each); then the
//! per-point terms' own variables (contact forces). With a fully actuated robot, fixed boundary
//! velocities, no velocity bounds and no contact this is Table 1's `(4N+3)n` for the Simpson VI.
//!
//! Constraint rows, in order:
//! 1. the DEL equations 5a–5b of every stage, `s·n` rows per stage; Eq. 5c is substituted into
//!    the next stage (`p^{k+1}` of stage k enters row `r^{k+1,0}`), so Table 1's `N·n` momentum
//!    rows of Eq. 5c do not appear: `sNn` rows. Loads of the per-point terms (contact forces)
//!    enter the DEL row of their control point, `w^α Δt J(q^{k,α})ᵀ f^{k,α}`, through the
//!    stage's point loads;
//! 2. the discrete Legendre transform at the knots that have a velocity (variables or fixed):
//!    `p⁰ − M(q_0) v⁰ = 0`, `p^N − M(q_{sN}) v^N = 0` and, with velocity bounds,
//!    `p^k − M(q_{ks}) v^k = 0`, `p^k` from Eq. 5c of stage `k − 1` (n rows each);
//! 3. with velocity bounds, for joints with finite limits, per stage: the `s` Bernstein
//!    coefficients of the velocity of Eq. 2's Lagrange interpolant,
//!    `Σ_β h_{iβ} q^{k,β} / Δt` ([`Galerkin::hodograph`]), which bound that velocity on the whole
//!    stage (its slopes at both ends, and for `s = 2` exactly these two). With the knot
//!    velocities' own bounds, every velocity vito reports keeps its bound: `v^k` at the knots,
//!    Eq. 2's slope at the interior control points ([`super::knot_interpolant`]). The rows and
//!    the knot-velocity bounds of a stage and joint are `s + 2` independent functionals of its
//!    `s` configuration differences and two knot velocities, so no set of them is dependent
//!    (bounding the `s + 1` node slopes was: they span only `s`, and so was bounding a written
//!    velocity that depends on the knot velocities beside both end slopes);
//! 4. the rows of the per-point terms (path constraints, contact conditions).
//!
//! The objective is the per-point terms' costs on the Lobatto quadrature of the discrete
//! Lagrangian (Eq. 4). Stage residuals and linearizations are evaluated in parallel (rayon),
//! each stage with its own buffers, and the Jacobian values of each stage fill their own
//! contiguous slice.

use super::common::{
    Points, Route, central_difference, check_finite, fd_hessian_block, load_coordinates,
    lower_triangle, write_lower_triangle,
};
use super::guess::initial_trajectory;
use super::solution::{Interpolant, Solution};
use super::terms::{ForceScratch, PointVelocity, Terms, VelocityMap};
use crate::dynamics::{Workspace, generalized_momentum, mass_matrix};
use crate::model::Model;
use crate::nlp::{Complementarity, EvalError, Nlp};
use crate::problem::TrajectoryProblem;
use crate::vi::{
    Galerkin, LagrangianCurvature, LoadWorkspace, PointLoad, PointWorkspace, Stage, StageJacobian,
    StageWorkspace, del_hessian, del_residual, lagrangian_curvature, linearize, load_gradient,
};
use nalgebra::{DMatrix, Vector3};
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
    /// World forces of the loads at each node, `[(α·L + l)·3 + d]`.
    forces: Vec<f64>,
    /// `∂f_l/∂q^{k,α}` (3×n) per node and load.
    force_dq: Vec<Vec<DMatrix<f64>>>,
    /// `(load, variable, ∂f/∂x)` per node.
    force_vars: Vec<Vec<(usize, usize, nalgebra::Vector3<f64>)>>,
    fs: ForceScratch,
    /// Multipliers of the rows this stage writes.
    lambda: Vec<f64>,
    /// The stage's Hessian block over `q^{k,0..=s}`.
    hess: DMatrix<f64>,
    /// Its rows of the nodes' force variables (in node order) over `q^{k,0..=s}`.
    cross: DMatrix<f64>,
    /// `w^α Δt λ^α` of one node.
    c1: Vec<f64>,
    load_ws: LoadWorkspace,
    /// The loads' gradient at the two sides of a difference, its velocities `J_l c_1`, and its
    /// part over the force variables.
    load_gradient: [Vec<f64>; 2],
    load_velocity: Vec<f64>,
    load_variables: [Vec<f64>; 2],
    /// The gradient of `λᵀ r` at the two sides of a difference, for
    /// [`VariationalNlp::hessian_values_by_differences`].
    grad_sides: [Vec<f64>; 2],
}

impl StageBuffers {
    /// The DEL rows' linearization (Algorithms 2/3) at the stage's configurations, torques and
    /// forces held here, with momentum `p` and the loads `loads`, into `jac`.
    fn linearize(
        &mut self,
        model: &Model,
        gal: &Galerkin,
        dt: f64,
        p: &[f64],
        loads: &[PointLoad],
    ) {
        let stage = Stage {
            dt,
            p,
            q: &self.q,
            u: &self.u,
            loads,
            forces: &self.forces,
        };
        linearize(model, gal, &mut self.ws, &stage, &mut self.jac);
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
    /// Per knot `k = 0..=N`, its Legendre-transform row block, if it has one.
    knots: Vec<Option<Boundary>>,
    /// `(k, i, joint)` of each velocity row: the hodograph coefficient `i` of stage `k`.
    velocity_rows: Vec<(usize, usize, usize)>,
    /// [`Galerkin::hodograph`].
    hodograph: Vec<Vec<f64>>,
    first_velocity_row: usize,
    num_rows: usize,
    /// Per stage: the force variables of each node (`(load, variable)`).
    stage_force_vars: Vec<Vec<Vec<(usize, usize)>>>,
    /// The joints that move a load's point, in increasing order.
    load_coordinates: Vec<usize>,
    /// Entries of [`Self::side_structure`].
    side_len: usize,
    stage_nnz: Vec<usize>,
    stages: Vec<StageBuffers>,
    loads: Vec<PointLoad>,
    terms: Terms<'a>,
    ws: Workspace,
    momentum: Vec<f64>,
    dmomentum: DMatrix<f64>,
    mass: DMatrix<f64>,
    boundary: BoundaryBuffers,
    start: Vec<f64>,
}

/// Buffers of [`VariationalNlp::boundary_curvature`].
struct BoundaryBuffers {
    pw: PointWorkspace,
    curvature: LagrangianCurvature,
    zeros: Vec<f64>,
    c2: Vec<f64>,
    block: DMatrix<f64>,
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
        let bounded: Vec<usize> = (0..n)
            .filter(|&i| prob.v_bounds.lower[i].is_finite() || prob.v_bounds.upper[i].is_finite())
            .collect();
        let with_bounds = !bounded.is_empty();
        // A knot has a velocity (and its Legendre-transform rows) when it is not entirely free,
        // or when the problem bounds velocities or rests contact points there (their rows are on
        // the velocity); variables unless it is entirely fixed.
        let resting = [!prob.at_rest[0].is_empty(), !prob.at_rest[1].is_empty()];
        let has_velocity: Vec<bool> = (0..=big_n)
            .map(|k| match k {
                0 => with_bounds || resting[0] || !prob.initial_v.all_free(),
                k if k == big_n => with_bounds || resting[1] || !prob.final_v.all_free(),
                _ => with_bounds,
            })
            .collect();
        let fixed = [prob.initial_v.all_fixed(), prob.final_v.all_fixed()];
        let mut knot_v = vec![None; big_n + 1];
        for k in [0, big_n].into_iter().chain(1..big_n) {
            let boundary_fixed = (k == 0 && fixed[0]) || (k == big_n && fixed[1]);
            if has_velocity[k] && !boundary_fixed {
                knot_v[k] = Some(num_vars);
                num_vars += n;
            }
        }
        let points = Points {
            times,
            weights,
            q: (0..num_points).map(|g| g * block).collect(),
            u: (0..num_points).map(|g| g * block + n).collect(),
            final_v: knot_v[big_n],
        };
        let mut row = s * big_n * n;
        let mut knots = vec![None; big_n + 1];
        for k in [0, big_n].into_iter().chain(1..big_n) {
            if has_velocity[k] {
                knots[k] = Some(Boundary { row, v: knot_v[k] });
                row += n;
            }
        }
        let first_velocity_row = row;
        let hodograph = gal.hodograph();
        let mut velocity_rows = Vec::new();
        for k in 0..big_n {
            for coefficient in 0..hodograph.len() {
                for &i in &bounded {
                    velocity_rows.push((k, coefficient, i));
                }
            }
        }
        row += velocity_rows.len();
        // Each point's velocity: the slope of its stage's interpolant (the following stage's
        // at a knot, the last stage's at the end), and at an interior knot also the slope the
        // stage before it ends on, each with its stage's Lobatto weight; at the first and last
        // points the boundary velocity `v⁰`, `v^N` in its place, unweighted, where it is a
        // variable.
        let slope = |k: usize, al: usize| {
            VelocityMap::Combination(
                (0..=s)
                    .map(|be| (points.q[k * s + be], gal.b(al, be) / dt))
                    .collect(),
            )
        };
        // At an interior knot, the velocity of the discrete Legendre transform with the mass
        // matrix frozen, over the control points of the stages on either side.
        let (knot_before, knot_after) = gal.knot_velocity();
        let knot_velocity = |k: usize| {
            let mut terms: Vec<(usize, f64)> = (0..=s)
                .map(|be| (points.q[(k - 1) * s + be], knot_before[be] / dt))
                .collect();
            terms[s].1 += knot_after[0] / dt;
            terms.extend((1..=s).map(|be| (points.q[k * s + be], knot_after[be] / dt)));
            VelocityMap::Combination(terms)
        };
        let velocity = (0..num_points)
            .map(|g| {
                let (k, al) = if g == num_points - 1 {
                    (big_n - 1, s)
                } else {
                    (g / s, g % s)
                };
                let boundary = match g {
                    0 => knot_v[0],
                    g if g == num_points - 1 => knot_v[big_n],
                    _ => None,
                };
                PointVelocity {
                    v: slope(k, al),
                    weight: gal.w(al) * dt,
                    before: match boundary {
                        Some(start) => Some((VelocityMap::Variables(start), 0.0)),
                        None => (al == 0 && k > 0).then(|| (slope(k - 1, s), gal.w(s) * dt)),
                    },
                    knot: (al == 0 && k > 0).then(|| knot_velocity(k)),
                }
            })
            .collect();
        let terms = Terms::new(prob, &points, velocity, num_vars, row);
        terms.check_fixed_points(prob, prob.solver.constraint_tolerance)?;
        num_vars += terms.num_variables();
        row += terms.num_rows();
        let loads = terms.loads().to_vec();
        let stage_force_vars: Vec<Vec<Vec<(usize, usize)>>> = (0..big_n)
            .map(|k| {
                (0..=s)
                    .map(|al| terms.force_variables(k * s + al))
                    .collect()
            })
            .collect();
        let stage_nnz = (0..big_n)
            .map(|k| {
                (0..=s)
                    .map(|al| {
                        let outputs = if al < s {
                            1
                        } else {
                            usize::from(k + 1 < big_n) + usize::from(knots[k + 1].is_some())
                        };
                        outputs
                            * ((s + 1) * n * n
                                + model.drives().len()
                                + stage_force_vars[k][al].len() * n)
                    })
                    .sum()
            })
            .collect();
        let stages = (0..big_n)
            .map(|k| {
                let force_vars: usize = stage_force_vars[k].iter().map(Vec::len).sum();
                let width = (s + 1) * n + force_vars;
                StageBuffers {
                    ws: StageWorkspace::new(model, &gal),
                    jac: StageJacobian::new(model, &gal, loads.len()),
                    q: vec![0.0; (s + 1) * n],
                    u: vec![0.0; (s + 1) * n_u],
                    r: vec![0.0; s * n],
                    p_next: vec![0.0; n],
                    forces: vec![0.0; (s + 1) * loads.len() * 3],
                    force_dq: vec![vec![DMatrix::zeros(3, n); loads.len()]; s + 1],
                    force_vars: vec![Vec::new(); s + 1],
                    fs: terms.force_scratch(prob.contact.as_ref()),
                    lambda: vec![0.0; (s + 1) * n],
                    hess: DMatrix::zeros((s + 1) * n, (s + 1) * n),
                    cross: DMatrix::zeros(force_vars, (s + 1) * n),
                    c1: vec![0.0; n],
                    load_ws: LoadWorkspace::new(model),
                    load_gradient: [vec![0.0; n], vec![0.0; n]],
                    load_velocity: vec![0.0; loads.len() * 3],
                    load_variables: [Vec::new(), Vec::new()],
                    grad_sides: [vec![0.0; width], vec![0.0; width]],
                }
            })
            .collect();
        let load_coordinates = load_coordinates(model, &loads);
        let mut nlp = Self {
            prob,
            gal,
            dt,
            n,
            n_u,
            points,
            p0,
            num_vars,
            knots,
            velocity_rows,
            hodograph,
            first_velocity_row,
            num_rows: row,
            stage_force_vars,
            load_coordinates,
            side_len: 0,
            stage_nnz,
            stages,
            loads,
            terms,
            ws: Workspace::new(model),
            momentum: vec![0.0; n],
            dmomentum: DMatrix::zeros(n, n),
            mass: DMatrix::zeros(n, n),
            boundary: BoundaryBuffers {
                pw: PointWorkspace::new(model),
                curvature: LagrangianCurvature::new(model),
                zeros: vec![0.0; n],
                c2: vec![0.0; n],
                block: DMatrix::zeros(2 * n, 2 * n),
            },
            start: Vec::new(),
        };
        nlp.side_len = nlp.side_structure().len();
        nlp.start = nlp.starting_point()?;
        Ok(nlp)
    }

    /// What the decision variables are, as a key (`Terms::variable_layout`; with the
    /// Galerkin order, the first momentum's and the knot velocities' places).
    pub fn variable_layout(&self) -> String {
        let knots: Vec<Option<usize>> = self.knots.iter().map(|k| k.and_then(|b| b.v)).collect();
        let name = format!("galerkin s={} p0={} knots={knots:?}", self.gal.s(), self.p0);
        self.terms.variable_layout(self.prob, &name, self.num_vars)
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
            weights: pts.weights.clone(),
            q,
            v: Vec::new(),
            u,
            interpolant: Interpolant::Galerkin {
                gal: self.gal.clone(),
                dt,
                stages: self.prob.stages,
                knot_velocities,
            },
            contact: None,
            stance: self.terms.stance_trajectory(x),
        };
        sol.v = sol.times.iter().map(|&t| sol.sample(t).1).collect();
        sol.contact = self.terms.contact_trajectory(x, self.prob.contact.as_ref());
        sol
    }

    /// The contact forces of stage `k`'s nodes at `x` (its configurations in `st.q`), with
    /// their derivatives, into the stage buffers.
    fn stage_forces(terms: &Terms, s: usize, k: usize, x: &[f64], st: &mut StageBuffers) {
        if terms.loads().is_empty() {
            return;
        }
        let n = st.q.len() / (s + 1);
        for al in 0..=s {
            Self::node_forces(terms, s, n, k, al, x, st);
        }
    }

    /// The forces of node `α` of stage `k`.
    fn node_forces(
        terms: &Terms,
        s: usize,
        n: usize,
        k: usize,
        al: usize,
        x: &[f64],
        st: &mut StageBuffers,
    ) {
        let nl = terms.loads().len();
        terms.forces(k * s + al, x, &st.q[al * n..(al + 1) * n], &mut st.fs);
        for (l, f, dq) in st.fs.each() {
            let f0 = (al * nl + l) * 3;
            st.forces[f0..f0 + 3].copy_from_slice(f.as_slice());
            st.force_dq[al][l].copy_from(dq);
        }
        st.force_vars[al].clear();
        st.force_vars[al].extend(st.fs.variables().map(|(l, v, d)| (l, v, *d)));
    }

    /// Algorithm 1 on every stage at `x` (in parallel), leaving `r` and `p^{k+1}` (computed with
    /// `p^k = 0`) in the stage buffers.
    fn evaluate_stages(&mut self, x: &[f64]) {
        let (n, n_u, s, dt) = (self.n, self.n_u, self.gal.s(), self.dt);
        let model = &self.prob.model;
        let gal = &self.gal;
        let points = &self.points;
        let terms = &self.terms;
        let loads = &self.loads;
        let zero_p = vec![0.0; n];
        self.stages.par_iter_mut().enumerate().for_each(|(k, st)| {
            Self::gather(points, s, n, n_u, k, x, st);
            Self::stage_forces(terms, s, k, x, st);
            let stage = Stage {
                dt,
                p: &zero_p,
                q: &st.q,
                u: &st.u,
                loads,
                forces: &st.forces,
            };
            del_residual(model, gal, &mut st.ws, &stage, &mut st.r, &mut st.p_next);
        });
    }

    /// Global row of DEL equation `α` of stage `k`.
    fn del_row(&self, k: usize, al: usize) -> usize {
        (k * self.gal.s() + al) * self.n
    }

    /// Row blocks receiving output `α` of stage `k`: its DEL equation, or for `α = s` the
    /// momentum `p^{k+1}`, which enters the next stage's first DEL equation and the knot's
    /// Legendre-transform rows.
    fn output_rows(&self, k: usize, al: usize) -> [Option<usize>; 2] {
        let s = self.gal.s();
        if al < s {
            [Some(self.del_row(k, al)), None]
        } else {
            [
                (k + 1 < self.prob.stages).then(|| self.del_row(k + 1, 0)),
                self.knots[k + 1].map(|b| b.row),
            ]
        }
    }

    /// The handed-on decision vector of a solve with the same variables
    /// (`InitialGuess::Recorded`), else the guess's trajectory with momenta, knot velocities
    /// and the terms' own variables (contact forces) made to fit it.
    fn starting_point(&mut self) -> Result<Vec<f64>, String> {
        let prob = self.prob;
        if let Some(warm) = prob.initial_guess.warm_for(&self.variable_layout()) {
            return Ok(warm.x.clone());
        }
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
        self.terms.start(&mut x);
        // Interior knot velocities from the guess's momenta, so that their rows hold.
        let big_n = self.prob.stages;
        if self.knots[1..big_n].iter().any(Option::is_some) {
            self.evaluate_stages(&x);
        }
        for k in 0..=big_n {
            let Some(Boundary { v: Some(iv), .. }) = self.knots[k] else {
                continue;
            };
            let v: Vec<f64> = if k == 0 {
                v0.clone()
            } else if k == big_n {
                (0..n).map(|i| prob.final_v.guess(i, 0.0)).collect()
            } else {
                let g = k * self.gal.s();
                mass_matrix(&prob.model, &mut self.ws, &q[g], &mut self.mass);
                let p = nalgebra::DVector::from_column_slice(&self.stages[k - 1].p_next);
                match self.mass.clone().cholesky() {
                    Some(c) => c.solve(&p).as_slice().to_vec(),
                    None => vec![0.0; n],
                }
            };
            x[iv..iv + n].copy_from_slice(&v);
        }
        Ok(x)
    }

    /// The Hessian of the Lagrangian with each stage's dynamics curvature by the route the
    /// analytic one replaced: central differences over the stage's `(s+1)n` configurations of
    /// its exact linearization (`2(s+1)n` linearizations per stage). Kept as the oracle of the
    /// tests and the baseline of `vito bench`; [`Nlp::hessian_values`] is the one to use.
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
        let (n, n_u, s, dt) = (self.n, self.n_u, self.gal.s(), self.dt);
        let big_n = self.prob.stages;
        let rows: Vec<[[Option<usize>; 2]; 7]> = (0..big_n)
            .map(|k| {
                let mut r = [[None; 2]; 7];
                for (al, slot) in r.iter_mut().enumerate().take(s + 1) {
                    *slot = self.output_rows(k, al);
                }
                r
            })
            .collect();
        let model = &self.prob.model;
        let gal = &self.gal;
        let points = &self.points;
        let terms = &self.terms;
        let loads = &self.loads;
        let coords = &self.load_coordinates;
        let zero_p = vec![0.0; n];
        let stage_len: Vec<usize> = (0..big_n)
            .map(|k| {
                let qn = (s + 1) * n;
                let f: usize = self.stage_force_vars[k].iter().map(Vec::len).sum();
                qn * (qn + 1) / 2 + f * qn
            })
            .collect();
        let total: usize = stage_len.iter().sum();
        let (stage_values, rest) = values.split_at_mut(total);
        let mut chunks = Vec::with_capacity(big_n);
        let mut remaining = stage_values;
        for &len in &stage_len {
            let (head, tail) = remaining.split_at_mut(len);
            chunks.push(head);
            remaining = tail;
        }
        self.stages
            .par_iter_mut()
            .zip(chunks.into_par_iter())
            .enumerate()
            .for_each(|(k, (st, out))| {
                Self::gather(points, s, n, n_u, k, x, st);
                for (al, outputs) in rows[k].iter().enumerate().take(s + 1) {
                    for i in 0..n {
                        st.lambda[al * n + i] =
                            outputs.iter().flatten().map(|r| lambda[r + i]).sum();
                    }
                }
                Self::stage_forces(terms, s, k, x, st);
                let qn = (s + 1) * n;
                match route {
                    Route::Analytic => {
                        let stage = Stage {
                            dt,
                            p: &zero_p,
                            q: &st.q,
                            u: &st.u,
                            loads: &[],
                            forces: &[],
                        };
                        del_hessian(model, gal, &mut st.ws, &stage, &st.lambda, &mut st.hess);
                        st.cross.fill(0.0);
                        if !loads.is_empty() {
                            Self::load_curvature(model, gal, terms, loads, coords, dt, k, x, st);
                        }
                    }
                    Route::Differences => {
                        Self::stage_hessian_by_differences(model, gal, terms, loads, dt, k, x, st)
                    }
                }
                let tri = qn * (qn + 1) / 2;
                write_lower_triangle(&st.hess, &mut out[..tri]);
                let mut idx = tri;
                for f in 0..st.cross.nrows() {
                    for j in 0..qn {
                        out[idx] = st.cross[(f, j)];
                        idx += 1;
                    }
                }
            });
        let mut idx = 0;
        for (b, fixed, g, _) in self.boundaries() {
            let vars = self.boundary_block(&b, g);
            let len = vars.len() * (vars.len() + 1) / 2;
            let out = &mut rest[idx..idx + len];
            match route {
                Route::Analytic => self.boundary_curvature(&b, fixed, g, lambda, x, out),
                Route::Differences => {
                    let mut gradient = |xs: &[f64], out: &mut [f64]| {
                        self.boundary_gradient(&b, fixed, g, lambda, xs, out);
                    };
                    fd_hessian_block(&vars, x, &mut gradient, out);
                }
            }
            idx += len;
        }
        self.terms
            .hessian_values(x, obj_factor, lambda, &mut rest[idx..]);
        check_finite(values, "Hessian values")
    }

    /// The loads' curvature in stage `k`'s Hessian block, node by node: the loads' part of the
    /// gradient of `λᵀ r` at node `α`,
    ///
    /// ```text
    /// T(q^α) = ∂/∂q (c_1·Σ_l J_l(q)ᵀ f_l)|_f + Σ_l (∂f_l/∂q)ᵀ J_l c_1,   c_1 = w^α Δt λ^α
    /// ```
    ///
    /// ([`load_gradient`] and the forces' derivatives) and over the node's force variables
    /// `(∂f_l/∂x)·J_l c_1`, differenced centrally along the coordinates that move the loads
    /// (the forces depend on the configuration only through their points), the forces
    /// recomputed at each step. O(n·d) per node and coordinate.
    #[allow(clippy::too_many_arguments)]
    fn load_curvature(
        model: &Model,
        gal: &Galerkin,
        terms: &Terms,
        loads: &[PointLoad],
        coords: &[usize],
        dt: f64,
        k: usize,
        x: &[f64],
        st: &mut StageBuffers,
    ) {
        let s = gal.s();
        let n = st.q.len() / (s + 1);
        let nl = loads.len();
        let mut first_var = 0;
        for al in 0..=s {
            let wdt = gal.w(al) * dt;
            for i in 0..n {
                st.c1[i] = wdt * st.lambda[al * n + i];
            }
            for &j in coords {
                let c = al * n + j;
                let step = central_difference(
                    st,
                    |st| &mut st.q[c],
                    |st, side| {
                        Self::node_forces(terms, s, n, k, al, x, st);
                        let g = &mut st.load_gradient[side];
                        g.fill(0.0);
                        load_gradient(
                            model,
                            &mut st.load_ws,
                            &st.q[al * n..(al + 1) * n],
                            loads,
                            &st.forces[al * nl * 3..(al + 1) * nl * 3],
                            &st.c1,
                            g,
                            &mut st.load_velocity,
                        );
                        let w = |l: usize| {
                            Vector3::from_column_slice(&st.load_velocity[3 * l..3 * l + 3])
                        };
                        for (l, dq) in st.force_dq[al].iter().enumerate() {
                            let wl = w(l);
                            for (jj, gj) in g.iter_mut().enumerate() {
                                *gj += (0..3).map(|d| dq[(d, jj)] * wl[d]).sum::<f64>();
                            }
                        }
                        let xs = &mut st.load_variables[side];
                        xs.clear();
                        xs.extend(st.force_vars[al].iter().map(|&(l, _, dv)| dv.dot(&w(l))));
                    },
                );
                let [gp, gm] = &st.load_gradient;
                for i in 0..n {
                    st.hess[(al * n + i, c)] += step.quotient(gp[i], gm[i]);
                }
                let [vp, vm] = &st.load_variables;
                for (v, (p, m)) in vp.iter().zip(vm).enumerate() {
                    st.cross[(first_var + v, c)] = step.quotient(*p, *m);
                }
            }
            Self::node_forces(terms, s, n, k, al, x, st);
            first_var += st.force_vars[al].len();
        }
    }

    /// Stage `k`'s Hessian block by central differences of its linearization (the route of
    /// [`VariationalNlp::hessian_values_by_differences`]); the stage's forces and multipliers
    /// are in `st`.
    #[allow(clippy::too_many_arguments)]
    fn stage_hessian_by_differences(
        model: &Model,
        gal: &Galerkin,
        terms: &Terms,
        loads: &[PointLoad],
        dt: f64,
        k: usize,
        x: &[f64],
        st: &mut StageBuffers,
    ) {
        let s = gal.s();
        let n = st.q.len() / (s + 1);
        let nl = loads.len();
        let qn = (s + 1) * n;
        let zero_p = vec![0.0; n];
        for j in 0..qn {
            let node = j / n;
            let step = central_difference(
                st,
                |st| &mut st.q[j],
                |st, side| {
                    Self::node_forces(terms, s, n, k, node, x, st);
                    st.linearize(model, gal, dt, &zero_p, loads);
                    let g = &mut st.grad_sides[side];
                    stage_gradient(&st.jac, &st.lambda, &st.force_dq, &st.force_vars, n, nl, g);
                },
            );
            Self::node_forces(terms, s, n, k, node, x, st);
            let [gp, gm] = &st.grad_sides;
            for c in 0..qn {
                st.hess[(c, j)] = step.quotient(gp[c], gm[c]);
            }
            for f in 0..st.cross.nrows() {
                st.cross[(f, j)] = step.quotient(gp[qn + f], gm[qn + f]);
            }
        }
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

    /// The knots' Legendre-transform row blocks with their fixed velocities (used where the
    /// block has no velocity variables: only at an entirely fixed boundary), their points, and
    /// whether `p⁰` enters them.
    fn boundaries(&self) -> Vec<(Boundary, &'a crate::problem::Ranges, usize, bool)> {
        let prob = self.prob;
        let big_n = prob.stages;
        let s = self.gal.s();
        (0..=big_n)
            .filter_map(|k| {
                let b = self.knots[k]?;
                let fixed = self.boundary_ranges(k).unwrap_or(&prob.v_bounds);
                Some((b, fixed, k * s, k == 0))
            })
            .collect()
    }

    /// The problem's velocity ranges of knot `k` when it is a boundary.
    fn boundary_ranges(&self, k: usize) -> Option<&'a crate::problem::Ranges> {
        match k {
            0 => Some(&self.prob.initial_v),
            k if k == self.prob.stages => Some(&self.prob.final_v),
            _ => None,
        }
    }

    /// The variable of knot `k`'s velocity of joint `i`, if it has one.
    fn knot_velocity_var(&self, k: usize, i: usize) -> Option<usize> {
        self.knots[k].and_then(|b| b.v).map(|iv| iv + i)
    }

    /// Jacobian triplets of the boundary momentum rows and the velocity rows.
    fn side_structure(&self) -> Vec<(usize, usize)> {
        let (n, s) = (self.n, self.gal.s());
        let mut t = Vec::new();
        for i in 0..n {
            t.push((i, self.p0 + i));
        }
        for (b, _, g, with_p) in self.boundaries() {
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
        t
    }

    /// Jacobian values of the boundary momentum rows and the velocity rows, in the order of
    /// [`Self::side_structure`].
    fn side_jacobian_values(&mut self, x: &[f64], rest: &mut [f64]) {
        let (n, s, dt) = (self.n, self.gal.s(), self.dt);
        let model = &self.prob.model;
        let mut idx = 0;
        for _ in 0..n {
            rest[idx] = 1.0;
            idx += 1;
        }
        for (b, fixed, g, with_p) in self.boundaries() {
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
        for &(_, coefficient, _) in &self.velocity_rows {
            for be in 0..=s {
                rest[idx] = self.hodograph[coefficient][be] / dt;
                idx += 1;
            }
        }
    }

    /// The variables of a boundary row block's curvature: `q` of its point and its velocity
    /// variables.
    fn boundary_block(&self, b: &Boundary, g: usize) -> Vec<usize> {
        let mut vars: Vec<usize> = (self.points.q[g]..self.points.q[g] + self.n).collect();
        if let Some(iv) = b.v {
            vars.extend(iv..iv + self.n);
        }
        vars
    }

    /// The lower triangle of the curvature of `Σ_r λ_r c_r` over one boundary row block's
    /// variables ([`Self::boundary_block`]): `−M(q)v` is its only nonlinear part, and
    /// `−λᵀM(q)v = c_2·∂L/∂q̇` with `c_2 = −λ`, whose curvature over `(q, v)` is
    /// [`lagrangian_curvature`] (its `v v` block is zero).
    fn boundary_curvature(
        &mut self,
        b: &Boundary,
        fixed: &crate::problem::Ranges,
        g: usize,
        lambda: &[f64],
        x: &[f64],
        out: &mut [f64],
    ) {
        let n = self.n;
        let bc = &mut self.boundary;
        for i in 0..n {
            bc.c2[i] = -lambda[b.row + i];
        }
        let v = match b.v {
            Some(iv) => &x[iv..iv + n],
            None => &fixed.lower[..],
        };
        let q = &x[self.points.q[g]..self.points.q[g] + n];
        let c = &mut bc.curvature;
        lagrangian_curvature(&self.prob.model, &mut bc.pw, q, v, &bc.zeros, &bc.c2, c);
        let block = if b.v.is_some() {
            let m = &mut bc.block;
            m.view_mut((0, 0), (n, n)).copy_from(&c.qq);
            m.view_mut((0, n), (n, n)).copy_from(&c.qv);
            m.view_mut((n, 0), (n, n)).copy_from(&c.qv.transpose());
            m.view_mut((n, n), (n, n)).fill(0.0);
            &bc.block
        } else {
            &c.qq
        };
        write_lower_triangle(block, out);
    }

    /// `Σ_r λ_r ∇c_r(x)` over one boundary row block (`−M(q)v` is its only nonlinear part).
    fn boundary_gradient(
        &mut self,
        b: &Boundary,
        fixed: &crate::problem::Ranges,
        g: usize,
        lambda: &[f64],
        x: &[f64],
        out: &mut [f64],
    ) {
        let n = self.n;
        out.fill(0.0);
        self.boundary_momentum(b, fixed, g, x);
        for j in 0..n {
            let col: f64 = (0..n)
                .map(|i| lambda[b.row + i] * self.dmomentum[(i, j)])
                .sum();
            out[self.points.q[g] + j] -= col;
        }
        if let Some(iv) = b.v {
            let q = &x[self.points.q[g]..self.points.q[g] + n];
            mass_matrix(&self.prob.model, &mut self.ws, q, &mut self.mass);
            for j in 0..n {
                let col: f64 = (0..n).map(|i| lambda[b.row + i] * self.mass[(i, j)]).sum();
                out[iv + j] -= col;
            }
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
        // Knot velocities: the boundary ranges (a fixed component stays fixed), within the
        // velocity bounds.
        for k in 0..=prob.stages {
            for i in 0..n {
                let Some(var) = self.knot_velocity_var(k, i) else {
                    continue;
                };
                let (mut lo, mut hi) = (prob.v_bounds.lower[i], prob.v_bounds.upper[i]);
                if let Some(r) = self.boundary_ranges(k) {
                    if r.lower[i] == r.upper[i] {
                        (lo, hi) = (r.lower[i], r.upper[i]);
                    } else {
                        (lo, hi) = (lo.max(r.lower[i]), hi.min(r.upper[i]));
                    }
                }
                lower[var] = lo;
                upper[var] = hi;
            }
        }
        self.terms.variable_bounds(lower, upper);
    }

    fn constraint_bounds(&self, lower: &mut [f64], upper: &mut [f64]) {
        lower.fill(0.0);
        upper.fill(0.0);
        for (r, &(_, _, i)) in self.velocity_rows.iter().enumerate() {
            lower[self.first_velocity_row + r] = self.prob.v_bounds.lower[i];
            upper[self.first_velocity_row + r] = self.prob.v_bounds.upper[i];
        }
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
            for row in self.output_rows(k, s).into_iter().flatten() {
                for i in 0..n {
                    c[row + i] += self.stages[k].p_next[i];
                }
            }
        }
        for i in 0..n {
            c[i] += x[self.p0 + i];
        }
        for (b, fixed, g, with_p) in self.boundaries() {
            self.boundary_momentum(&b, fixed, g, x);
            // Initial rows: p⁰ − M(q_0) v⁰. Final rows: p^N − M(q_sN) v^N, p^N having been
            // accumulated from the last stage above.
            for i in 0..n {
                let p = if with_p { x[self.p0 + i] } else { 0.0 };
                c[b.row + i] += p - self.momentum[i];
            }
        }
        for (r, &(k, coefficient, i)) in self.velocity_rows.iter().enumerate() {
            let v: f64 = (0..=s)
                .map(|be| self.hodograph[coefficient][be] * x[self.points.q[k * s + be] + i])
                .sum();
            c[self.first_velocity_row + r] = v / dt;
        }
        self.terms.constraints(x, c);
        check_finite(c, "constraint values")
    }

    fn jacobian_structure(&self) -> Vec<(usize, usize)> {
        let (n, s) = (self.n, self.gal.s());
        let drives = self.prob.model.drives();
        let mut t = Vec::new();
        for k in 0..self.prob.stages {
            for al in 0..=s {
                for row in self.output_rows(k, al).into_iter().flatten() {
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
                    for &(_, var) in &self.stage_force_vars[k][al] {
                        for i in 0..n {
                            t.push((row + i, var));
                        }
                    }
                }
            }
        }
        t.extend(self.side_structure());
        t.extend(self.terms.jacobian_structure());
        t
    }

    fn jacobian_values(&mut self, x: &[f64], values: &mut [f64]) -> Result<(), EvalError> {
        let (n, n_u, s, dt) = (self.n, self.n_u, self.gal.s(), self.dt);
        let model = &self.prob.model;
        let gal = &self.gal;
        let points = &self.points;
        let terms = &self.terms;
        let loads = &self.loads;
        let nl = loads.len();
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
        let big_n = self.prob.stages;
        let knots = &self.knots;
        self.stages
            .par_iter_mut()
            .zip(chunks.into_par_iter())
            .enumerate()
            .for_each(|(k, (st, out))| {
                Self::gather(points, s, n, n_u, k, x, st);
                Self::stage_forces(terms, s, k, x, st);
                st.linearize(model, gal, dt, &zero_p, loads);
                let mut idx = 0;
                for al in 0..=s {
                    let outputs = if al < s {
                        1
                    } else {
                        usize::from(k + 1 < big_n) + usize::from(knots[k + 1].is_some())
                    };
                    if outputs == 0 {
                        continue;
                    }
                    let block_start = idx;
                    for ga in 0..=s {
                        for j in 0..n {
                            for i in 0..n {
                                let mut v = st.jac.dq[(al * n + i, ga * n + j)];
                                if ga == al {
                                    for l in 0..nl {
                                        for d in 0..3 {
                                            v += st.jac.dforce[(al * n + i, (al * nl + l) * 3 + d)]
                                                * st.force_dq[al][l][(d, j)];
                                        }
                                    }
                                }
                                out[idx] = v;
                                idx += 1;
                            }
                        }
                    }
                    for d in &drives {
                        out[idx] = st.jac.du[(al * n + d.joint, al * n_u + d.column)];
                        idx += 1;
                    }
                    for &(l, _, dv) in &st.force_vars[al] {
                        for i in 0..n {
                            out[idx] = (0..3)
                                .map(|d| st.jac.dforce[(al * n + i, (al * nl + l) * 3 + d)] * dv[d])
                                .sum();
                            idx += 1;
                        }
                    }
                    // `p^{k+1}` in both the next stage's DEL rows and the knot's rows.
                    for _ in 1..outputs {
                        let len = idx - block_start;
                        out.copy_within(block_start..idx, idx);
                        idx += len;
                    }
                }
            });
        let side = self.side_len;
        let (side_values, term_values) = rest.split_at_mut(side);
        self.side_jacobian_values(x, side_values);
        self.terms.jacobian_values(x, term_values);
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
            for node in &self.stage_force_vars[k] {
                for &(_, var) in node {
                    t.extend(vars.iter().map(|&q| (var, q)));
                }
            }
        }
        for (b, _, g, _) in self.boundaries() {
            lower_triangle(&self.boundary_block(&b, g), &mut t);
        }
        t.extend(self.terms.hessian_structure());
        Some(t)
    }

    /// The Hessian of the Lagrangian: each stage's DEL curvature `Σ λ ∇² r` over its
    /// configurations and the force variables of its nodes ([`del_hessian`] for the rigid body,
    /// the loads by differences of their exact gradient with the forces recomputed, see
    /// `VariationalNlp::load_curvature`; the torques and the forces enter linearly, so there is
    /// no `u` and no force–force curvature); the boundary momentum rows from
    /// [`lagrangian_curvature`]; the per-point terms by theirs (see `Terms::hessian_values`).
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
        let s = self.gal.s();
        let mut groups = Vec::new();
        let block = self.n + self.n_u;
        groups.push(0..block);
        for k in 0..self.prob.stages {
            groups.push((k * s + 1) * block..(k * s + s + 1) * block);
        }
        let own = self.num_vars - self.terms.num_variables();
        groups.push(self.p0..own);
        if own < self.num_vars {
            groups.push(own..self.num_vars);
        }
        Some(groups)
    }

    fn complementarities(&self) -> Vec<Complementarity> {
        self.terms.complementarities()
    }

    /// The smoothing of the contact complementarity rows (method `smoothing`).
    fn set_smoothing(&mut self, mu: f64) {
        self.terms.set_smoothing(mu);
    }
}

/// The gradient of `λᵀ r` of a stage over its configurations and its nodes' force variables
/// (in node order), from its linearization and the forces' derivatives.
fn stage_gradient(
    jac: &StageJacobian,
    lambda: &[f64],
    force_dq: &[Vec<DMatrix<f64>>],
    force_vars: &[Vec<(usize, usize, nalgebra::Vector3<f64>)>],
    n: usize,
    nl: usize,
    out: &mut [f64],
) {
    let qn = jac.dq.ncols();
    for (c, o) in out.iter_mut().enumerate().take(qn) {
        *o = jac
            .dq
            .column(c)
            .iter()
            .zip(lambda)
            .map(|(a, b)| a * b)
            .sum();
    }
    let mut idx = qn;
    for (al, (dq, vars)) in force_dq.iter().zip(force_vars).enumerate() {
        // μ_{α,l} = J-weighted multipliers of the load forces at node α.
        let mu = |l: usize, d: usize| -> f64 {
            (0..n)
                .map(|i| lambda[al * n + i] * jac.dforce[(al * n + i, (al * nl + l) * 3 + d)])
                .sum()
        };
        for (l, dql) in dq.iter().enumerate() {
            let m = [mu(l, 0), mu(l, 1), mu(l, 2)];
            for j in 0..n {
                out[al * n + j] += (0..3).map(|d| m[d] * dql[(d, j)]).sum::<f64>();
            }
        }
        for &(l, _, dv) in vars {
            out[idx] = (0..3).map(|d| mu(l, d) * dv[d]).sum();
            idx += 1;
        }
    }
}

//! The terms of a problem laid out on a transcription's points: the costs and constraints it
//! lists (`crate::terms`, one file per kind) and the terms its physics implies, each one type
//! in a file of its own here: contact conditions (`contact.rs`), feet at rest at the ends
//! (`at_rest.rs`) and stances (`stance.rs`).
//!
//! A point's velocities come from a [`VelocityMap`] ([`PointVelocity`]); [`Terms`] maps
//! every term's values, Jacobian and curvature onto the decision vector through the linear
//! map `local = E x` of the point's local vector (`crate::terms` describes it) (Jacobians
//! `∂/∂local · E`, Hessians `Eᵀ ∇²_local E`, exactly), point by point, in parallel. Hessians
//! are central differences of the terms' exact local gradients over their curvature
//! variables, so their cost is linear in the number of points.

mod at_rest;
mod contact;
mod stance;

use super::common::{Points, central_difference, check_finite};
use super::contact::ContactTrajectory;
use super::stance::StanceTrajectory;
use crate::contact::{ContactSample, GAP};
use crate::dynamics::{Workspace, center_of_mass, forward_poses};
use crate::model::Model;
use crate::nlp::{Complementarity, ComplementarityTerm, EvalError};
use crate::problem::{TrajectoryProblem, fnv1a};
use crate::spatial::Vec3;
use crate::terms::{
    CONSTRAINTS, COSTS, Layout, LoadForces, Local, LocalIndex, PointInfo, PointTerm, Scratch, Side,
};
use crate::vi::PointLoad;
use nalgebra::DMatrix;
use rayon::prelude::*;
use std::collections::HashMap;

/// Where a point's velocity `v_p` comes from.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum VelocityMap {
    /// Its own decision variables, starting at this index.
    Variables(usize),
    /// `v_{p,i} = Σ_β c_β x[start_β + i]`: a combination of configuration blocks.
    Combination(Vec<(usize, f64)>),
}

/// The velocities of a point and their quadrature weights in integrals of velocities.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct PointVelocity {
    /// `v_p`.
    pub v: VelocityMap,
    /// The weight of `v_p`.
    pub weight: f64,
    /// At an interior knot of the VI, the slope `v⁻_p` the stage before it ends on, and its
    /// weight; at the first and last points the velocity the boundary conditions name (the
    /// VI's `v⁰`, `v^N` of the discrete Legendre transform), weighted 0, where it is a variable.
    pub before: Option<(VelocityMap, f64)>,
    /// At an interior knot of the VI, the knot's velocity `vᵏ_p` of the discrete Legendre
    /// transform with the mass matrix frozen.
    pub knot: Option<VelocityMap>,
}

impl PointVelocity {
    /// A point with one velocity, weighted as the point.
    pub fn single(v: VelocityMap, weight: f64) -> Self {
        Self {
            v,
            weight,
            before: None,
            knot: None,
        }
    }
}

/// Where one term's rows, own variables and pattern entries sit at one point.
#[derive(Clone, Debug)]
struct Block {
    ix: LocalIndex,
    /// Own variables: global start and count.
    own: usize,
    own_len: usize,
    /// Rows: global start and count.
    row: usize,
    rows: usize,
    /// Jacobian pattern (`row` within the term, point-local column).
    jac_pattern: Vec<(usize, usize)>,
    /// Hessian pattern (point-local, `a ≥ b`).
    hess_pattern: Vec<(usize, usize)>,
}

/// The curvature of a point: the union of its terms' Hessian patterns, the variables it
/// involves, and for each variable the terms whose curvature involves it.
#[derive(Clone, Debug, Default)]
struct Curvature {
    pattern: Vec<(usize, usize)>,
    vars: Vec<usize>,
    terms_of_var: Vec<Vec<usize>>,
}

impl Curvature {
    fn new(blocks: &[Block]) -> Self {
        let mut pattern: Vec<(usize, usize)> = blocks
            .iter()
            .flat_map(|b| b.hess_pattern.iter().copied())
            .collect();
        pattern.sort_unstable();
        pattern.dedup();
        let mut vars: Vec<usize> = pattern.iter().flat_map(|&(a, b)| [a, b]).collect();
        vars.sort_unstable();
        vars.dedup();
        let terms_of_var = vars
            .iter()
            .map(|&v| {
                (0..blocks.len())
                    .filter(|&t| {
                        blocks[t]
                            .hess_pattern
                            .iter()
                            .any(|&(a, b)| a == v || b == v)
                    })
                    .collect()
            })
            .collect();
        Self {
            pattern,
            vars,
            terms_of_var,
        }
    }
}

/// A local entry's share of a global triplet: `out[slot] += coeff · local[entry]`.
#[derive(Clone, Copy, Debug)]
struct Share {
    entry: usize,
    slot: usize,
    coeff: f64,
}

/// The layout of one point.
struct PointPlan {
    info: PointInfo,
    q: usize,
    /// Where the next point's configuration starts (the point's own at the last).
    q_next: usize,
    u: usize,
    v: VelocityMap,
    v_before: VelocityMap,
    v_knot: VelocityMap,
    /// Global start and count of the point's own variables (all terms).
    own: usize,
    own_len: usize,
    blocks: Vec<Block>,
    curvature: Curvature,
    /// Jacobian triplets of the point, contiguous in the global list, and their shares of the
    /// local entries (the terms' patterns, concatenated).
    jac_triplets: Vec<(usize, usize)>,
    jac_shares: Vec<Share>,
    /// Hessian triplets of the point and their shares of the local entries.
    hess_triplets: Vec<(usize, usize)>,
    hess_shares: Vec<Share>,
    /// Every local variable's shares of the global gradient (`slot`: the column).
    grad_shares: Vec<Share>,
}

impl PointPlan {
    /// The global variables (with coefficients) that point-local index `a` stands for.
    fn expand(&self, n: usize, n_u: usize, a: usize) -> Vec<(usize, f64)> {
        if a < n {
            vec![(self.q + a, 1.0)]
        } else if a < 4 * n {
            let (map, i) = (self.velocity((a - n) / n), a % n);
            match map {
                VelocityMap::Variables(start) => vec![(start + i, 1.0)],
                VelocityMap::Combination(terms) => {
                    terms.iter().map(|&(start, c)| (start + i, c)).collect()
                }
            }
        } else if a < 4 * n + n_u {
            vec![(self.u + a - 4 * n, 1.0)]
        } else if a < 5 * n + n_u {
            vec![(self.q_next + a - 4 * n - n_u, 1.0)]
        } else {
            vec![(self.own + a - 5 * n - n_u, 1.0)]
        }
    }

    /// The point's velocity block `b` of the local vector: `v`, `v⁻`, `vᵏ`.
    fn velocity(&self, b: usize) -> &VelocityMap {
        match b {
            0 => &self.v,
            1 => &self.v_before,
            _ => &self.v_knot,
        }
    }

    /// Builds the global gradient, Jacobian and Hessian triplets of the point and their shares.
    fn build_maps(&mut self, n: usize, n_u: usize) {
        for a in 0..5 * n + n_u + self.own_len {
            for (slot, coeff) in self.expand(n, n_u, a) {
                self.grad_shares.push(Share {
                    entry: a,
                    slot,
                    coeff,
                });
            }
        }
        let mut entry = 0;
        let mut jac_slots: HashMap<(usize, usize), usize> = HashMap::new();
        for b in &self.blocks {
            for &(r, a) in &b.jac_pattern {
                for (g, c) in self.expand(n, n_u, a) {
                    let key = (b.row + r, g);
                    let slot = *jac_slots.entry(key).or_insert_with(|| {
                        self.jac_triplets.push(key);
                        self.jac_triplets.len() - 1
                    });
                    self.jac_shares.push(Share {
                        entry,
                        slot,
                        coeff: c,
                    });
                }
                entry += 1;
            }
        }
        // G = Eᵀ H E: a local entry (a, b) contributes through both orders of the pair.
        let mut hess_slots: HashMap<(usize, usize), usize> = HashMap::new();
        for (entry, &(la, lb)) in self.curvature.pattern.iter().enumerate() {
            {
                let orders: &[(usize, usize)] = if la == lb {
                    &[(la, la)]
                } else {
                    &[(la, lb), (lb, la)]
                };
                for &(x, y) in orders {
                    for (gi, ci) in self.expand(n, n_u, x) {
                        for (gj, cj) in self.expand(n, n_u, y) {
                            if gi < gj {
                                continue;
                            }
                            let key = (gi, gj);
                            let slot = *hess_slots.entry(key).or_insert_with(|| {
                                self.hess_triplets.push(key);
                                self.hess_triplets.len() - 1
                            });
                            self.hess_shares.push(Share {
                                entry,
                                slot,
                                coeff: ci * cj,
                            });
                        }
                    }
                }
            }
        }
    }

    /// Copies the point's local vector out of `x`.
    fn gather(&self, n: usize, n_u: usize, x: &[f64], local: &mut [f64]) {
        local[..n].copy_from_slice(&x[self.q..self.q + n]);
        for b in 0..3 {
            let slot = &mut local[(b + 1) * n..(b + 2) * n];
            match self.velocity(b) {
                VelocityMap::Variables(start) => slot.copy_from_slice(&x[*start..*start + n]),
                VelocityMap::Combination(terms) => {
                    for (i, v) in slot.iter_mut().enumerate() {
                        *v = terms.iter().map(|&(start, c)| c * x[start + i]).sum();
                    }
                }
            }
        }
        local[4 * n..4 * n + n_u].copy_from_slice(&x[self.u..self.u + n_u]);
        local[4 * n + n_u..5 * n + n_u].copy_from_slice(&x[self.q_next..self.q_next + n]);
        let o = 5 * n + n_u;
        local[o..o + self.own_len].copy_from_slice(&x[self.own..self.own + self.own_len]);
    }
}

/// Per-point evaluation state (one per point, so that points run in parallel).
struct PointState {
    scratch: Scratch,
    local: Vec<f64>,
    jac: Vec<f64>,
    grad: Vec<f64>,
    /// The gradient at either side of a difference.
    grad_sides: [Vec<f64>; 2],
    /// The curvature block over `curvature.vars`, column `k` = `∂g/∂local[vars[k]]`.
    block: DMatrix<f64>,
    hess: Vec<f64>,
    rows: Vec<f64>,
    /// The point's cost, summed over the points in order afterwards (a parallel sum's order,
    /// and so its rounding, would change from run to run).
    cost: f64,
}

/// Buffers for evaluating the forces of the terms' loads at one point at a time (one per
/// thread or stage): see [`Terms::forces`].
pub(crate) struct ForceScratch {
    scratch: Scratch,
    local: Vec<f64>,
    forces: Vec<LoadForces>,
    /// Per term, the load indices and global variables of [`PointTerm::force_variables`] at
    /// the point last evaluated.
    variables: Vec<Vec<(usize, usize)>>,
}

impl ForceScratch {
    /// `(load index, world force, ∂f/∂q)` of every load at the point last evaluated.
    pub fn each(&self) -> impl Iterator<Item = (usize, &Vec3, &DMatrix<f64>)> + '_ {
        let mut first = 0;
        self.forces.iter().flat_map(move |f| {
            let start = first;
            first += f.force.len();
            f.force
                .iter()
                .zip(&f.dq)
                .enumerate()
                .map(move |(l, (force, dq))| (start + l, force, dq))
        })
    }

    /// `(load index, global variable, ∂f/∂x)` of every variable the forces depend on, in the
    /// order of [`Terms::force_variables`].
    pub fn variables(&self) -> impl Iterator<Item = (usize, usize, &Vec3)> + '_ {
        self.variables
            .iter()
            .zip(&self.forces)
            .flat_map(|(vars, f)| vars.iter().zip(&f.down).map(|(&(l, x), d)| (l, x, d)))
    }
}

impl PointState {
    /// Gathers the point's local vector out of `x` and does its forward kinematics (of `q⁺`
    /// too when `next`).
    fn load(&mut self, plan: &PointPlan, model: &Model, (n, n_u, next): Sizes, x: &[f64]) {
        plan.gather(n, n_u, x, &mut self.local);
        forward_poses(model, &mut self.scratch.kin, &self.local[..n]);
        if next {
            let q_next = &self.local[4 * n + n_u..5 * n + n_u];
            forward_poses(model, &mut self.scratch.kin_next, q_next);
        }
    }
}

/// `(n, n_u, whether a term uses q⁺)`.
type Sizes = (usize, usize, bool);

/// The terms of a problem laid out on a transcription's points.
pub(crate) struct Terms<'a> {
    model: &'a Model,
    terms: Vec<Box<dyn PointTerm>>,
    n: usize,
    n_u: usize,
    /// Whether some term's rows depend on the next point's configuration.
    next: bool,
    plans: Vec<PointPlan>,
    states: Vec<PointState>,
    num_own: usize,
    num_rows: usize,
    loads: Vec<PointLoad>,
    /// For each term, the index of its first load in `loads`.
    first_load: Vec<usize>,
    /// The stance terms' indices, with copies for reading solutions.
    stances: Vec<(usize, stance::StanceTerm)>,
}

impl<'a> Terms<'a> {
    /// The terms of `prob` on `points` (whose velocities are `velocity`), their own variables
    /// starting at `first_own` of the decision vector and their rows at `first_row` of the
    /// constraint vector.
    pub fn new(
        prob: &'a TrajectoryProblem,
        points: &Points,
        velocity: Vec<PointVelocity>,
        first_own: usize,
        first_row: usize,
    ) -> Self {
        let mut terms: Vec<Box<dyn PointTerm>> = Vec::new();
        let layout = Layout {
            model: &prob.model,
            duration: prob.duration,
            times: &points.times,
            terrain: prob.contact.as_ref().map(|c| &c.terrain),
        };
        for (kinds, specs) in [(COSTS, &prob.costs), (CONSTRAINTS, &prob.constraints)] {
            for kind in kinds {
                for spec in specs.iter().filter(|c| c.key() == kind.key) {
                    terms.extend(spec.build(&layout));
                }
            }
        }
        contact::add(prob, &mut terms);
        at_rest::add(prob, &mut terms);
        let stances = stance::add(prob, &mut terms);
        let model = &prob.model;
        let (n, n_u) = (model.dof(), model.actuated_joints().len());
        let count = points.len();
        let (mut own, mut row) = (first_own, first_row);
        let mut plans = Vec::with_capacity(count);
        for (p, velocity) in velocity.into_iter().enumerate() {
            let (v_before, before_weight) = velocity
                .before
                .unwrap_or((VelocityMap::Combination(Vec::new()), 0.0));
            let info = PointInfo {
                index: p,
                count,
                weight: points.weights[p],
                interval: points.times.get(p + 1).map_or(0.0, |t| t - points.times[p]),
                velocity_weight: velocity.weight,
                before_weight,
                knot_velocity: velocity.knot.is_some(),
                fixed_configuration: fixed_configuration(prob, p, count),
            };
            let point_own = own;
            let mut blocks = Vec::with_capacity(terms.len());
            for term in &terms {
                let ix = LocalIndex {
                    n,
                    n_u,
                    own_offset: own - point_own,
                };
                let mut b = Block {
                    ix,
                    own,
                    own_len: term.variables(&info),
                    row,
                    rows: term.rows(&info),
                    jac_pattern: Vec::new(),
                    hess_pattern: Vec::new(),
                };
                term.jacobian_pattern(&info, &ix, &mut b.jac_pattern);
                term.hessian_pattern(&info, &ix, &mut b.hess_pattern);
                own += b.own_len;
                row += b.rows;
                blocks.push(b);
            }
            let curvature = Curvature::new(&blocks);
            let mut plan = PointPlan {
                info,
                q: points.q[p],
                q_next: points.q[(p + 1).min(count - 1)],
                u: points.u[p],
                v: velocity.v,
                v_before,
                v_knot: velocity
                    .knot
                    .unwrap_or(VelocityMap::Combination(Vec::new())),
                own: point_own,
                own_len: own - point_own,
                blocks,
                curvature,
                jac_triplets: Vec::new(),
                jac_shares: Vec::new(),
                hess_triplets: Vec::new(),
                hess_shares: Vec::new(),
                grad_shares: Vec::new(),
            };
            plan.build_maps(n, n_u);
            plans.push(plan);
        }
        let mut loads = Vec::new();
        let mut first_load = Vec::with_capacity(terms.len());
        for term in &terms {
            first_load.push(loads.len());
            loads.extend(term.loads());
        }
        let states = plans
            .iter()
            .map(|plan| {
                let len = 5 * n + n_u + plan.own_len;
                let vars = plan.curvature.vars.len();
                PointState {
                    scratch: Scratch {
                        kin: Workspace::new(model),
                        kin_next: Workspace::new(model),
                        frame_jacobian: DMatrix::zeros(6, n),
                        contact: prob.contact.as_ref().map(|c| ContactSample::new(model, c)),
                    },
                    local: vec![0.0; len],
                    jac: vec![0.0; plan.blocks.iter().map(|b| b.jac_pattern.len()).sum()],
                    grad: vec![0.0; len],
                    grad_sides: [vec![0.0; len], vec![0.0; len]],
                    block: DMatrix::zeros(vars, vars),
                    hess: vec![0.0; plan.curvature.pattern.len()],
                    rows: vec![0.0; plan.blocks.iter().map(|b| b.rows).sum()],
                    cost: 0.0,
                }
            })
            .collect();
        let next = terms.iter().any(|t| t.uses_next_configuration());
        Self {
            model,
            terms,
            n,
            n_u,
            next,
            plans,
            states,
            num_own: own - first_own,
            num_rows: row - first_row,
            loads,
            first_load,
            stances,
        }
    }

    fn sizes(&self) -> Sizes {
        (self.n, self.n_u, self.next)
    }

    /// Sets the smoothing of every term's complementarity rows.
    pub fn set_smoothing(&mut self, mu: f64) {
        for term in &mut self.terms {
            term.set_smoothing(mu);
        }
    }

    /// Checks the rows the terms leave out where the problem fixes the configuration
    /// ([`PointInfo::fixed_configuration`]): each must hold at that configuration to
    /// `tolerance`, or the problem has no solution.
    ///
    /// # Errors
    /// The first row that does not hold, with its term, time, value and bounds.
    pub fn check_fixed_points(
        &self,
        prob: &TrajectoryProblem,
        tolerance: f64,
    ) -> Result<(), String> {
        let model = self.model;
        let (n, n_u) = (self.n, self.n_u);
        let mut scratch = Scratch {
            kin: Workspace::new(model),
            kin_next: Workspace::new(model),
            frame_jacobian: DMatrix::zeros(6, n),
            contact: prob.contact.as_ref().map(|c| ContactSample::new(model, c)),
        };
        let (v, u) = (vec![0.0; n], vec![0.0; n_u]);
        for plan in self.plans.iter().filter(|p| p.info.fixed_configuration) {
            let (q, field) = if plan.info.index == 0 {
                (&prob.initial_q.lower, "initial.q")
            } else {
                (&prob.final_q.lower, "final.q")
            };
            forward_poses(model, &mut scratch.kin, q);
            forward_poses(model, &mut scratch.kin_next, q);
            let free = PointInfo {
                fixed_configuration: false,
                ..plan.info
            };
            for term in &self.terms {
                let (kept, all) = (term.rows(&plan.info), term.rows(&free));
                if all == kept {
                    continue;
                }
                let own = vec![0.0; term.variables(&free)];
                let local = Local {
                    model,
                    q,
                    v: &v,
                    v_before: &v,
                    v_knot: &v,
                    u: &u,
                    own: &own,
                };
                let (mut rows, mut lower, mut upper) =
                    (vec![0.0; all], vec![0.0; all], vec![0.0; all]);
                term.row_bounds(&free, &mut lower, &mut upper);
                term.evaluate(&free, &local, &mut scratch, &mut rows, None);
                for r in kept..all {
                    if rows[r] < lower[r] - tolerance || rows[r] > upper[r] + tolerance {
                        return Err(format!(
                            "{field} fixes every joint, and there (t = {}) a {} row is {:.6e}, \
                             outside [{}, {}]: the problem has no solution",
                            if plan.info.index == 0 {
                                0.0
                            } else {
                                prob.duration
                            },
                            term.label(),
                            rows[r],
                            lower[r],
                            upper[r]
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// The layout key of a transcription's decision vector of `num_vars` variables, named
    /// `transcription` (with what only it knows): the horizon, the robot's coordinates and
    /// actuators, the contact points, where each point's configuration and torques sit, where
    /// each term's own variables and rows do, and how many rows there are. Equal keys, equal
    /// variables and rows (a warm start's multipliers fit).
    pub fn variable_layout(
        &self,
        prob: &TrajectoryProblem,
        transcription: &str,
        num_vars: usize,
    ) -> String {
        let contact = prob.contact.as_ref().map(|c| {
            let sites: Vec<&str> = c.sites.iter().map(|s| s.name.as_str()).collect();
            (sites, c.directions, c.force_scale.to_bits())
        });
        let points: Vec<(usize, usize)> = self.plans.iter().map(|p| (p.q, p.u)).collect();
        let rows: Vec<(&str, usize, usize)> = self
            .plans
            .iter()
            .flat_map(|plan| plan.blocks.iter().zip(&self.terms))
            .map(|(b, term)| (term.label(), b.row, b.rows))
            .collect();
        let own: Vec<(&str, usize, usize)> = self
            .plans
            .iter()
            .flat_map(|plan| plan.blocks.iter().zip(&self.terms))
            .filter(|(b, _)| b.own_len > 0)
            .map(|(b, term)| (term.label(), b.own, b.own_len))
            .collect();
        let key = format!(
            "{transcription} stages={} duration={:?} joints={:?} actuated={:?} variables={num_vars} \
             points={points:?} contact={contact:?} own={own:?} rows={rows:?} {}",
            prob.stages,
            prob.duration.to_bits(),
            self.model.joint_names(),
            self.model.actuated_joints(),
            self.num_rows,
        );
        fnv1a(&[key.as_bytes()])
    }

    /// Own variables of all terms.
    pub fn num_variables(&self) -> usize {
        self.num_own
    }

    /// Rows of all terms.
    pub fn num_rows(&self) -> usize {
        self.num_rows
    }

    /// The points where forces act on the robot (every term's loads, in order).
    pub fn loads(&self) -> &[PointLoad] {
        &self.loads
    }

    /// Writes the bounds of the own variables into the full-length `lower`, `upper`.
    pub fn variable_bounds(&self, lower: &mut [f64], upper: &mut [f64]) {
        for plan in &self.plans {
            for (term, b) in self.terms.iter().zip(&plan.blocks) {
                let r = b.own..b.own + b.own_len;
                term.variable_bounds(&plan.info, &mut lower[r.clone()], &mut upper[r]);
            }
        }
    }

    /// Writes the bounds of the terms' rows into the full-length `lower`, `upper`.
    pub fn row_bounds(&self, lower: &mut [f64], upper: &mut [f64]) {
        for plan in &self.plans {
            for (term, b) in self.terms.iter().zip(&plan.blocks) {
                let r = b.row..b.row + b.rows;
                term.row_bounds(&plan.info, &mut lower[r.clone()], &mut upper[r]);
            }
        }
    }

    /// Fills the own variables of `x` with their starting values (the rest of `x` must hold the
    /// starting trajectory).
    pub fn start(&mut self, x: &mut [f64]) {
        let (model, sizes) = (self.model, self.sizes());
        for (plan, st) in self.plans.iter().zip(&mut self.states) {
            st.load(plan, model, sizes, x);
            for (term, b) in self.terms.iter().zip(&plan.blocks) {
                let mut own = vec![0.0; b.own_len];
                let local = view(model, &b.ix, &st.local, b.own_len);
                term.start(&plan.info, &local, &mut st.scratch, &mut own);
                x[b.own..b.own + b.own_len].copy_from_slice(&own);
            }
        }
    }

    /// The terms' total cost at `x`, the transcriptions' objective; an evaluation error where it
    /// is not finite.
    pub fn objective(&mut self, x: &[f64]) -> Result<f64, EvalError> {
        let (model, sizes) = (self.model, self.sizes());
        let terms = &self.terms;
        self.plans
            .par_iter()
            .zip(self.states.par_iter_mut())
            .for_each(|(plan, st)| {
                st.load(plan, model, sizes, x);
                st.cost = 0.0;
                for (term, b) in terms.iter().zip(&plan.blocks) {
                    let local = view(model, &b.ix, &st.local, b.own_len);
                    st.cost += term.cost(&plan.info, &b.ix, &local, &mut st.scratch, None);
                }
            });
        let f = self.states.iter().map(|st| st.cost).sum();
        check_finite(&[f], "objective")?;
        Ok(f)
    }

    /// The gradient `∇f(x)` of [`Terms::objective`] into `grad` (overwritten); an evaluation
    /// error where it is not finite.
    pub fn gradient(&mut self, x: &[f64], grad: &mut [f64]) -> Result<(), EvalError> {
        let (model, sizes) = (self.model, self.sizes());
        let terms = &self.terms;
        self.plans
            .par_iter()
            .zip(self.states.par_iter_mut())
            .for_each(|(plan, st)| {
                st.load(plan, model, sizes, x);
                st.grad.fill(0.0);
                for (term, b) in terms.iter().zip(&plan.blocks) {
                    let local = view(model, &b.ix, &st.local, b.own_len);
                    term.cost(
                        &plan.info,
                        &b.ix,
                        &local,
                        &mut st.scratch,
                        Some((1.0, &mut st.grad)),
                    );
                }
            });
        grad.fill(0.0);
        for (plan, st) in self.plans.iter().zip(&self.states) {
            for sh in &plan.grad_shares {
                grad[sh.slot] += sh.coeff * st.grad[sh.entry];
            }
        }
        check_finite(grad, "objective gradient")
    }

    /// Writes the terms' rows at `x` into their places in the full-length `c`.
    pub fn constraints(&mut self, x: &[f64], c: &mut [f64]) {
        let (model, sizes) = (self.model, self.sizes());
        let terms = &self.terms;
        self.plans
            .par_iter()
            .zip(self.states.par_iter_mut())
            .for_each(|(plan, st)| {
                st.load(plan, model, sizes, x);
                let mut r = 0;
                for (term, b) in terms.iter().zip(&plan.blocks) {
                    let local = view(model, &b.ix, &st.local, b.own_len);
                    term.evaluate(
                        &plan.info,
                        &local,
                        &mut st.scratch,
                        &mut st.rows[r..r + b.rows],
                        None,
                    );
                    r += b.rows;
                }
            });
        for (plan, st) in self.plans.iter().zip(&self.states) {
            if let Some(first) = plan.blocks.first() {
                c[first.row..first.row + st.rows.len()].copy_from_slice(&st.rows);
            }
        }
    }

    /// Jacobian triplets of the terms' rows, point after point.
    pub fn jacobian_structure(&self) -> Vec<(usize, usize)> {
        self.plans
            .iter()
            .flat_map(|p| p.jac_triplets.iter().copied())
            .collect()
    }

    /// Jacobian values in the order of [`Terms::jacobian_structure`].
    pub fn jacobian_values(&mut self, x: &[f64], out: &mut [f64]) {
        let (model, sizes) = (self.model, self.sizes());
        let terms = &self.terms;
        let chunks = split(out, self.plans.iter().map(|p| p.jac_triplets.len()));
        self.plans
            .par_iter()
            .zip(self.states.par_iter_mut())
            .zip(chunks.into_par_iter())
            .for_each(|((plan, st), out)| {
                st.load(plan, model, sizes, x);
                let (mut r, mut e) = (0, 0);
                for (term, b) in terms.iter().zip(&plan.blocks) {
                    let local = view(model, &b.ix, &st.local, b.own_len);
                    let len = b.jac_pattern.len();
                    term.evaluate(
                        &plan.info,
                        &local,
                        &mut st.scratch,
                        &mut st.rows[r..r + b.rows],
                        Some(&mut st.jac[e..e + len]),
                    );
                    r += b.rows;
                    e += len;
                }
                out.fill(0.0);
                for s in &plan.jac_shares {
                    out[s.slot] += s.coeff * st.jac[s.entry];
                }
            });
    }

    /// Lower-triangle Hessian triplets of the terms, point after point.
    pub fn hessian_structure(&self) -> Vec<(usize, usize)> {
        self.plans
            .iter()
            .flat_map(|p| p.hess_triplets.iter().copied())
            .collect()
    }

    /// Values of `σ ∇²(costs) + Σ λ_r ∇²(rows)` in the order of
    /// [`Terms::hessian_structure`]: central differences of the terms' exact local gradients
    /// over each point's curvature variables.
    pub fn hessian_values(&mut self, x: &[f64], sigma: f64, lambda: &[f64], out: &mut [f64]) {
        let (n, n_u, model, sizes) = (self.n, self.n_u, self.model, self.sizes());
        let terms = &self.terms;
        let chunks = split(out, self.plans.iter().map(|p| p.hess_triplets.len()));
        self.plans
            .par_iter()
            .zip(self.states.par_iter_mut())
            .zip(chunks.into_par_iter())
            .for_each(|((plan, st), out)| {
                out.fill(0.0);
                if plan.curvature.vars.is_empty() {
                    return;
                }
                st.load(plan, model, sizes, x);
                let cv = &plan.curvature;
                for (k, &a) in cv.vars.iter().enumerate() {
                    let step = central_difference(
                        st,
                        |st| &mut st.local[a],
                        |st, side| {
                            kinematics_of(model, &mut st.scratch, &st.local, a, (n, n_u));
                            let g = &mut st.grad_sides[side];
                            g.fill(0.0);
                            for &t in &cv.terms_of_var[k] {
                                local_gradient(
                                    model,
                                    terms[t].as_ref(),
                                    plan,
                                    &plan.blocks[t],
                                    &st.local,
                                    &mut st.scratch,
                                    sigma,
                                    lambda,
                                    &mut st.rows,
                                    &mut st.jac,
                                    g,
                                );
                            }
                        },
                    );
                    // The kinematics at the point itself again, unless the next variable's
                    // differences redo the same workspace first.
                    let block = kinematic_block(a, (n, n_u));
                    if cv.vars.get(k + 1).map(|&b| kinematic_block(b, (n, n_u))) != Some(block) {
                        kinematics_of(model, &mut st.scratch, &st.local, a, (n, n_u));
                    }
                    let [gp, gm] = &st.grad_sides;
                    for (m, &b) in cv.vars.iter().enumerate() {
                        st.block[(m, k)] = step.quotient(gp[b], gm[b]);
                    }
                }
                for (e, &(a, b)) in cv.pattern.iter().enumerate() {
                    let (ka, kb) = (position(&cv.vars, a), position(&cv.vars, b));
                    st.hess[e] = 0.5 * (st.block[(ka, kb)] + st.block[(kb, ka)]);
                }
                for s in &plan.hess_shares {
                    out[s.slot] += s.coeff * st.hess[s.entry];
                }
            });
    }

    /// The terms' complementarity pairs in the decision and constraint vectors.
    pub fn complementarities(&self) -> Vec<Complementarity> {
        let mut out = Vec::new();
        let mut pairs = Vec::new();
        for plan in &self.plans {
            for (term, b) in self.terms.iter().zip(&plan.blocks) {
                pairs.clear();
                term.complementarity(&plan.info, &mut pairs);
                let global = |s: Side| match s {
                    Side::Row(r) => ComplementarityTerm::Constraint(b.row + r),
                    Side::Own(j) => ComplementarityTerm::Variable(b.own + j),
                };
                out.extend(pairs.iter().map(|&(a, c)| Complementarity {
                    a: global(a),
                    b: global(c),
                }));
            }
        }
        out
    }

    /// `(load index, global variable)` of every own variable the forces at point `p` depend
    /// on.
    pub fn force_variables(&self, p: usize) -> Vec<(usize, usize)> {
        let plan = &self.plans[p];
        let mut out = Vec::new();
        for (t, (term, b)) in self.terms.iter().zip(&plan.blocks).enumerate() {
            let first = self.first_load[t];
            out.extend(
                term.force_variables(&plan.info)
                    .into_iter()
                    .map(|(l, j)| (first + l, b.own + j)),
            );
        }
        out
    }

    /// Buffers for [`Terms::forces`].
    pub fn force_scratch(&self, contact: Option<&crate::contact::ContactModel>) -> ForceScratch {
        let n = self.n;
        ForceScratch {
            scratch: Scratch {
                kin: Workspace::new(self.model),
                kin_next: Workspace::new(self.model),
                frame_jacobian: DMatrix::zeros(6, n),
                contact: contact.map(|c| ContactSample::new(self.model, c)),
            },
            local: Vec::new(),
            forces: self
                .terms
                .iter()
                .map(|t| {
                    let l = t.loads().len();
                    LoadForces {
                        force: vec![Vec3::zeros(); l],
                        dq: vec![DMatrix::zeros(3, n); l],
                        down: Vec::new(),
                    }
                })
                .collect(),
            variables: vec![Vec::new(); self.terms.len()],
        }
    }

    /// The contact forces, gaps and variables at every point of `x` (`None` without contact).
    pub fn contact_trajectory(
        &self,
        x: &[f64],
        contact: Option<&crate::contact::ContactModel>,
    ) -> Option<ContactTrajectory> {
        let contact = contact?;
        let mut fs = self.force_scratch(Some(contact));
        let k = contact.per_site();
        let mut out = ContactTrajectory {
            names: contact.sites.iter().map(|s| s.name.clone()).collect(),
            force_scale: contact.force_scale,
            directions: contact.directions,
            friction: contact.terrain.friction,
            terrain: contact.terrain.clone(),
            forces: Vec::new(),
            positions: Vec::new(),
            gaps: Vec::new(),
            rows: Vec::new(),
            variables: Vec::new(),
        };
        for (p, plan) in self.plans.iter().enumerate() {
            self.forces(p, x, &x[plan.q..plan.q + self.n], &mut fs);
            let sample = fs.scratch.contact.as_ref()?;
            out.forces.push(sample.forces.clone());
            out.positions.push(sample.positions.clone());
            let sites = contact.sites.len();
            out.gaps
                .push((0..sites).map(|l| sample.rows[l * k + GAP]).collect());
            let mut rows = sample.rows.clone();
            for l in 0..sites {
                rows[l * k + GAP] = sample.pair_gaps[l];
            }
            out.rows.push(rows);
            let own = plan
                .blocks
                .iter()
                .zip(&self.terms)
                .find(|(_, t)| !t.loads().is_empty())
                .map(|(b, _)| x[b.own..b.own + b.own_len].to_vec())
                .unwrap_or_else(|| vec![0.0; k * contact.sites.len()]);
            out.variables.push(own);
        }
        Some(out)
    }

    /// The stance feet at every point of `x` (`None` without stances).
    pub fn stance_trajectory(&self, x: &[f64]) -> Option<StanceTrajectory> {
        if self.stances.is_empty() {
            return None;
        }
        let model = self.model;
        let mut ws = Workspace::new(model);
        let mut feet: Vec<_> = self.stances.iter().map(|(_, t)| t.track()).collect();
        for plan in &self.plans {
            let com = center_of_mass(model, &mut ws, &x[plan.q..plan.q + self.n]);
            for ((t, term), foot) in self.stances.iter().zip(&mut feet) {
                let b = &plan.blocks[*t];
                term.record(&x[b.own..b.own + b.own_len], &ws, &com, foot);
            }
        }
        Some(StanceTrajectory { feet })
    }

    /// The world forces of every load at point `p` of `x`, with the point's configuration
    /// replaced by `q`, and their derivatives, into `fs`.
    pub fn forces(&self, p: usize, x: &[f64], q: &[f64], fs: &mut ForceScratch) {
        if self.loads.is_empty() {
            return;
        }
        let (n, n_u, model) = (self.n, self.n_u, self.model);
        let plan = &self.plans[p];
        fs.local.resize(5 * n + n_u + plan.own_len, 0.0);
        plan.gather(n, n_u, x, &mut fs.local);
        fs.local[..n].copy_from_slice(q);
        forward_poses(model, &mut fs.scratch.kin, q);
        if self.next {
            let q_next = &fs.local[4 * n + n_u..5 * n + n_u];
            forward_poses(model, &mut fs.scratch.kin_next, q_next);
        }
        for (t, (term, b)) in self.terms.iter().zip(&plan.blocks).enumerate() {
            let f = &mut fs.forces[t];
            if f.force.is_empty() {
                continue;
            }
            let first = self.first_load[t];
            fs.variables[t].clear();
            fs.variables[t].extend(
                term.force_variables(&plan.info)
                    .into_iter()
                    .map(|(l, j)| (first + l, b.own + j)),
            );
            let local = view(model, &b.ix, &fs.local, b.own_len);
            f.down.clear();
            term.forces(&plan.info, &local, &mut fs.scratch, f);
        }
    }
}

/// The gradient of `σ cost + Σ_r λ_r row_r` of one term over the local vector, added to `g`
/// (`local` with its kinematics done).
#[allow(clippy::too_many_arguments)]
fn local_gradient(
    model: &Model,
    term: &dyn PointTerm,
    plan: &PointPlan,
    b: &Block,
    local: &[f64],
    scratch: &mut Scratch,
    sigma: f64,
    lambda: &[f64],
    rows: &mut [f64],
    jac: &mut [f64],
    g: &mut [f64],
) {
    let view = view(model, &b.ix, local, b.own_len);
    if sigma != 0.0 {
        term.cost(&plan.info, &b.ix, &view, scratch, Some((sigma, g)));
    }
    if b.rows > 0 {
        let len = b.jac_pattern.len();
        term.evaluate(
            &plan.info,
            &view,
            scratch,
            &mut rows[..b.rows],
            Some(&mut jac[..len]),
        );
        for (&(r, a), v) in b.jac_pattern.iter().zip(&jac[..len]) {
            g[a] += lambda[b.row + r] * v;
        }
    }
}

/// Whether the problem fixes every joint's configuration at point `p` of `count`: the first
/// when `initial.q` does, the last (of more than one) when `final.q` does.
fn fixed_configuration(prob: &TrajectoryProblem, p: usize, count: usize) -> bool {
    (p == 0 && prob.initial_q.all_fixed())
        || (count > 1 && p + 1 == count && prob.final_q.all_fixed())
}

/// Position of `value` in the sorted `list`.
fn position(list: &[usize], value: usize) -> usize {
    list.binary_search(&value).unwrap_or(0)
}

/// Splits `out` into consecutive chunks of the given lengths.
fn split(out: &mut [f64], lengths: impl Iterator<Item = usize>) -> Vec<&mut [f64]> {
    let mut chunks = Vec::new();
    let mut rest = out;
    for len in lengths {
        let (head, tail) = rest.split_at_mut(len);
        chunks.push(head);
        rest = tail;
    }
    chunks
}

/// Which workspace local entry `a` moves: 0 for `q`, 1 for `q⁺`, `None` for neither.
fn kinematic_block(a: usize, (n, n_u): (usize, usize)) -> Option<u8> {
    if a < n {
        Some(0)
    } else if (4 * n + n_u..5 * n + n_u).contains(&a) {
        Some(1)
    } else {
        None
    }
}

/// Redoes the kinematics that local entry `a` moves (of `q` or of `q⁺`).
fn kinematics_of(
    model: &Model,
    scratch: &mut Scratch,
    local: &[f64],
    a: usize,
    (n, n_u): (usize, usize),
) {
    match kinematic_block(a, (n, n_u)) {
        Some(0) => forward_poses(model, &mut scratch.kin, &local[..n]),
        Some(_) => forward_poses(
            model,
            &mut scratch.kin_next,
            &local[4 * n + n_u..5 * n + n_u],
        ),
        None => {}
    }
}

/// The local values of one term.
fn view<'a>(model: &'a Model, ix: &LocalIndex, local: &'a [f64], own_len: usize) -> Local<'a> {
    let n = ix.n;
    Local {
        model,
        q: &local[..n],
        v: &local[n..2 * n],
        v_before: &local[2 * n..3 * n],
        v_knot: &local[3 * n..4 * n],
        u: &local[4 * n..4 * n + ix.n_u],
        own: &local[ix.own(0)..ix.own(0) + own_len],
    }
}

#[cfg(test)]
mod tests {
    use crate::nlp::Status;
    use crate::problem::{ProblemOverrides, load_problem_str};
    use crate::transcription::solve;
    use std::path::Path;

    /// `crate::terms`'s worked example, the kind `joint_sum` compiled for the unit tests
    /// only (`src/terms/joint_sum.rs` and one line of its registry): a problem file with it
    /// loads, names its bad fields, and solves, the two joints of a double pendulum swinging
    /// with their sum held at every point.
    #[test]
    fn a_kind_added_in_one_file_loads_and_solves() {
        let robots = Path::new(env!("CARGO_MANIFEST_DIR")).join("robots");
        let problem = |constraint: &str| {
            let text = format!(
                "name: sum\nrobot: pendulum2.urdf\nduration: 1.0\nstages: 6\n\
                 initial: {{q: [0.1, 0.2], v: [0, 0]}}\nfinal: {{q: [0.9, free], v: [0, 0]}}\n\
                 bounds: {{u: [-50, 50]}}\ncosts: {{effort: 1.0}}\n\
                 constraints:\n  - joint_sum: {constraint}\n"
            );
            load_problem_str(&text, &robots, "sum.yaml", &ProblemOverrides::default())
        };
        let err = problem("{joints: [joint1, elbow], equals: 0.3}")
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("constraints[0].joint_sum.joints[1]") && err.contains("elbow"));
        let prob = problem("{joints: [joint1, joint2], equals: 0.3}").unwrap();
        assert_eq!(prob.constraint_kinds(), ["joint_sum"]);
        let outcome = solve(&prob, &mut std::io::sink()).unwrap();
        assert_eq!(outcome.result.status, Status::Converged);
        let q = &outcome.solution.q;
        for qp in q {
            assert!((qp[0] + qp[1] - 0.3).abs() < 1e-7, "{qp:?}");
        }
        assert!((q[q.len() - 1][1] + 0.6).abs() < 1e-7);
    }
}

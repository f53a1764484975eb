//! Time stepping with frictional contact: each stage of the Galerkin integrator is solved
//! together with the contact conditions of `contact/conditions.rs` at its nodes, as a
//! nonlinear complementarity problem, by a semismooth Newton method on the Fischer–Burmeister
//! reformulation.
//!
//! The conditions are the optimizer's transcription's (`transcription/terms/contact.rs`): a
//! force at every control point, entering the DEL row of its point with the quadrature weight,
//! its normal part answering for the gap of the *next* node, its friction for the node's own
//! interpolant velocity (the following stage's at a knot). Stage `k` solves for its control
//! points `q^{k,1..=s}` and the forces at its nodes `α = 0..s−1`: the start knot's (weighted by
//! the knot's share of both stages, `(w^s + w^0) Δt`, the part of the previous stage added to
//! `p^k` here) and the interior nodes'; the force at its end knot belongs to the next stage.
//! Each force moves the motion after it, so each node's force answers for a gap it moves: the
//! step's complementarity matrix is dominated by its diagonal (measured on a box landing on a
//! corner: `∂(interior gap, end gap)/∂(c₀, c₁) = (0.95, 0.25; 2.0, 2.0)·10⁻⁴`, determinant
//! positive), an arriving body is stopped by the node before the one where it meets the ground,
//! and a loaded point cannot leave the ground before the next node (ARCHITECTURE.md,
//! "Contact").

use super::simulate::{
    Charts, EnergyMeter, STEP_SPLITS, Simulation, SimulationOptions, StepFailure, Trajectory,
};
use super::{Galerkin, PointLoad, Stage, StageJacobian, StageWorkspace, linearize};
use crate::contact::{CONE, ContactModel, ContactSample, GAP, NORMAL, SLIDING};
use crate::dynamics::{Workspace, forward_kinematics};
use crate::model::Model;
use crate::spatial::Vec3;
use nalgebra::{DMatrix, DVector};

/// The contact forces and gaps of a simulation at its knots.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KnotContacts {
    /// Contact point names.
    pub names: Vec<String>,
    /// `[knot][contact]` world force (N): the force at the knot (at the last knot of a
    /// simulation that failed, the last interior node's).
    pub forces: Vec<Vec<Vec3>>,
    /// `[knot][contact]` normal force (N).
    pub normal: Vec<Vec<f64>>,
    /// `[knot][contact]` gap (m).
    pub gaps: Vec<Vec<f64>>,
}

/// Tolerance on the smoothed Fischer–Burmeister residuals of the contact conditions (m, m/s
/// and units of the force scale).
const CONTACT_TOLERANCE: f64 = 1e-9;

/// The least tolerance on the DEL rows of a contact step (relative to the momentum scale):
/// the smoothed conditions' Jacobian has a condition number near `1/μ`, so its Newton steps
/// are accurate to about `10⁻⁸·10⁻¹⁶` relative... of the order of `10⁻⁹`.
const CONTACT_DEL_TOLERANCE: f64 = 1e-9;

/// Levenberg–Marquardt damping, relative to the diagonal of `JᵀJ`: its start, the least it
/// falls to, the most before the step gives up, and the floor of a diagonal entry it scales.
const DAMPING_START: f64 = 1e-3;
const DAMPING_MIN: f64 = 1e-12;
const DAMPING_MAX: f64 = 1e12;
const DAMPING_FLOOR: f64 = 1e-12;

/// The shortest Newton step tried before a damped least-squares step.
const NEWTON_MIN_STEP: f64 = 1e-3;

/// Iterations of a contact step per Newton iteration allowed by the simulation settings.
const STEP_ITERATIONS: usize = 10;

/// The smoothed Fischer–Burmeister function `φ_μ(a, b) = a + b − √(a² + b² + 2μ²)`, zero
/// exactly when `a > 0, b > 0, ab = μ²` (for `μ = 0`: `a, b ≥ 0, ab = 0`), with its partial
/// derivatives. The smoothing makes each step's solution unique where the conditions leave it
/// open (a point in the air has `c = b = 0`, so its cone row is zero and its sliding speed
/// would be free; a sticking point may split its friction between opposite directions) and
/// is driven to [`SMOOTHING_END`] along the path of smoothed solutions.
fn fischer_burmeister(a: f64, b: f64, mu: f64) -> (f64, f64, f64) {
    let r = (a * a + b * b + 2.0 * mu * mu).sqrt();
    if r == 0.0 {
        let d = 1.0 - std::f64::consts::FRAC_1_SQRT_2;
        return (0.0, d, d);
    }
    (a + b - r, 1.0 - a / r, 1.0 - b / r)
}

/// Smoothing of the first Newton iterations of a step, and the factor it shrinks by, down to
/// [`SMOOTHING_END`], at which the step is solved: every pair then has `ab = μ²` (in the
/// units of [`Stepper::evaluate`]), so `min(a, b) ≤ 10⁻⁶`, and a gap under a force of `c` is
/// at most `10⁻¹²/c` in those units.
const SMOOTHING_START: f64 = 1e-2;
const SMOOTHING_DECREASE: f64 = 0.1;
const SMOOTHING_END: f64 = 1e-6;

/// Compliance of every pair, `a + ε b ⟂ b` (m per unit of force, m/s per unit of force,
/// force per m/s): makes each step's conditions strictly monotone, so that the forces of a
/// statically indeterminate contact (a box on its face) are unique; at rest it lets a point
/// sink by `ε c` (10⁻⁹ m per unit of the force scale).
const COMPLIANCE: f64 = 1e-9;

/// How close to its solution the smoothed system must be, relative to `μ`, before `μ`
/// shrinks.
const SMOOTHING_PATH: f64 = 10.0;

/// Buffers of the step solver.
struct Stepper<'a> {
    model: &'a Model,
    gal: &'a Galerkin,
    contact: &'a ContactModel,
    loads: Vec<PointLoad>,
    ws: StageWorkspace,
    jac: StageJacobian,
    kin: Workspace,
    samples: Vec<ContactSample>,
    end: ContactSample,
    /// The acceleration that measures the pairs' rows (m/s²): gravity's, or 1 without it.
    acceleration: f64,
    /// Whether the smoothing is in the transcription's units
    /// ([`SimulationOptions::contact_smoothing`]) rather than the step's.
    matched: bool,
    forces: Vec<f64>,
    v: Vec<f64>,
    residual: DVector<f64>,
    jacobian: DMatrix<f64>,
}

impl<'a> Stepper<'a> {
    fn new(
        model: &'a Model,
        gal: &'a Galerkin,
        contact: &'a ContactModel,
        opts: &SimulationOptions,
    ) -> Self {
        let s = gal.s();
        let loads: Vec<PointLoad> = contact
            .sites
            .iter()
            .map(|c| PointLoad {
                body: c.body,
                offset: c.offset,
            })
            .collect();
        let size = s * model.dof() + s * contact.sites.len() * contact.per_site();
        Self {
            model,
            gal,
            contact,
            ws: StageWorkspace::new(model, gal),
            jac: StageJacobian::new(model, gal, loads.len()),
            kin: Workspace::new(model),
            samples: (0..s).map(|_| ContactSample::new(model, contact)).collect(),
            end: ContactSample::new(model, contact),
            acceleration: match model.gravity().norm() {
                g if g > 0.0 => g,
                _ => 1.0,
            },
            matched: opts.contact_smoothing.is_some(),
            forces: vec![0.0; (s + 1) * loads.len() * 3],
            v: vec![0.0; model.dof()],
            residual: DVector::zeros(size),
            jacobian: DMatrix::zeros(size, size),
            loads,
        }
    }

    fn block(&self) -> usize {
        self.contact.sites.len() * self.contact.per_site()
    }

    /// Evaluates the residual `F(w)` and, with `derivatives`, its generalized Jacobian, for the
    /// stage from `q^{k,0} = q[..n]` with momentum `p` and torques `u`; `w = [q^{k,1..=s}; z]`
    /// is written into `q` (nodes 1..=s) and read from `z` (one contact block per node
    /// 0..s−1). `knot_factor` scales the start knot's force (its share of both stages).
    ///
    /// Each pair's row enters the Fischer–Burmeister function in the units a unit of force
    /// moves it by in one step: gaps in `g Δt²`, sliding speeds in `g Δt` (`g` gravity's
    /// acceleration), the cone row in force units. Unscaled, gaps of 10⁻⁷ m against forces of
    /// 10–100 stall the Newton steps on landings of several corners (measured: of 24 random box
    /// drops, 10 complete unscaled, 19 scaled).
    #[allow(clippy::too_many_arguments)]
    fn evaluate(
        &mut self,
        dt: f64,
        p: &[f64],
        q: &[f64],
        u: &[f64],
        z: &[f64],
        knot_factor: f64,
        mu: f64,
        derivatives: bool,
    ) {
        let (n, s) = (self.model.dof(), self.gal.s());
        let (nl, k) = (self.loads.len(), self.contact.per_site());
        let block = self.block();
        // Contact conditions at the nodes 0..s−1 and the gap at the end knot.
        self.forces.fill(0.0);
        for al in 0..s {
            for i in 0..n {
                self.v[i] = (0..=s)
                    .map(|be| self.gal.b(al, be) * q[be * n + i])
                    .sum::<f64>()
                    / dt;
            }
            forward_kinematics(self.model, &mut self.kin, &q[al * n..(al + 1) * n]);
            self.samples[al].evaluate(
                self.model,
                self.contact,
                &self.kin,
                &self.v,
                &z[al * block..(al + 1) * block],
                true,
            );
            let factor = if al == 0 { knot_factor } else { 1.0 };
            for l in 0..nl {
                let f = self.samples[al].forces[l] * factor;
                self.forces[(al * nl + l) * 3..(al * nl + l) * 3 + 3].copy_from_slice(f.as_slice());
            }
        }
        forward_kinematics(self.model, &mut self.kin, &q[s * n..]);
        self.v.fill(0.0);
        self.end.evaluate(
            self.model,
            self.contact,
            &self.kin,
            &self.v,
            &z[..block],
            true,
        );
        let stage = Stage {
            dt,
            p,
            q,
            u,
            loads: &self.loads,
            forces: &self.forces,
        };
        linearize(self.model, self.gal, &mut self.ws, &stage, &mut self.jac);
        let dofs = s * n;
        self.residual
            .rows_mut(0, dofs)
            .copy_from(&self.jac.value.rows(0, dofs));
        if derivatives {
            self.jacobian.fill(0.0);
            for al in 0..s {
                let factor = if al == 0 { knot_factor } else { 1.0 };
                for i in 0..n {
                    let row = al * n + i;
                    for be in 1..=s {
                        for j in 0..n {
                            let mut d = self.jac.dq[(row, be * n + j)];
                            if be == al {
                                for l in 0..nl {
                                    for c in 0..3 {
                                        d += self.jac.dforce[(row, (al * nl + l) * 3 + c)]
                                            * factor
                                            * self.samples[al].forces_dq[l][(c, j)];
                                    }
                                }
                            }
                            self.jacobian[(row, (be - 1) * n + j)] = d;
                        }
                    }
                    for l in 0..nl {
                        for var in 0..k {
                            let d: f64 = (0..3)
                                .map(|c| {
                                    self.jac.dforce[(row, (al * nl + l) * 3 + c)]
                                        * factor
                                        * self.samples[al].forces_dz[l][(c, var)]
                                })
                                .sum();
                            self.jacobian[(row, dofs + al * block + l * k + var)] = d;
                        }
                    }
                }
            }
        }
        // The complementarity pairs, node by node; the normal force of node `α` answers for
        // the gap of node `α + 1`.
        let constant = self.contact.variable_derivatives();
        let (gap_unit, speed_unit) = (self.acceleration * dt * dt, self.acceleration * dt);
        for al in 0..s {
            let sample = &self.samples[al];
            let target = al + 1;
            let next = if target < s {
                &self.samples[target]
            } else {
                &self.end
            };
            for l in 0..nl {
                for (row, var) in self.contact.pairs() {
                    let eq = dofs + al * block + l * k + row;
                    let zi = al * block + l * k + var;
                    let r = l * k + row;
                    let gap = row == GAP;
                    let unit = match row {
                        GAP => gap_unit,
                        CONE => 1.0,
                        _ => speed_unit,
                    };
                    let a = (if gap { next.rows[r] } else { sample.rows[r] } + COMPLIANCE * z[zi])
                        / unit;
                    // In the transcription's units the pair is `a·b = μ²` before scaling.
                    let mu_pair = if self.matched { mu / unit.sqrt() } else { mu };
                    let (phi, mut da, mut db) = fischer_burmeister(a, z[zi], mu_pair);
                    da /= unit;
                    db += da * COMPLIANCE;
                    self.residual[eq] = phi;
                    if !derivatives {
                        continue;
                    }
                    self.jacobian[(eq, dofs + zi)] += db;
                    for &(cr, cv, value) in &constant {
                        if cr == row {
                            self.jacobian[(eq, dofs + al * block + l * k + cv)] += da * value;
                        }
                    }
                    for j in 0..n {
                        if gap {
                            // Node `target`'s configuration is unknown `target − 1`.
                            self.jacobian[(eq, (target - 1) * n + j)] += da * next.rows_dq[(r, j)];
                            continue;
                        }
                        if al >= 1 {
                            self.jacobian[(eq, (al - 1) * n + j)] += da * sample.rows_dq[(r, j)];
                        }
                        for be in 1..=s {
                            self.jacobian[(eq, (be - 1) * n + j)] +=
                                da * sample.rows_dv[(r, j)] * self.gal.b(al, be) / dt;
                        }
                    }
                }
            }
        }
    }

    /// The largest residual: DEL rows relative to `scale`, contact rows as they are.
    fn residual_norm(&self, scale: f64) -> f64 {
        let dofs = self.gal.s() * self.model.dof();
        self.residual
            .iter()
            .enumerate()
            .map(|(i, r)| if i < dofs { r.abs() / scale } else { r.abs() })
            .fold(0.0, f64::max)
    }

    /// How far the pairs' residuals are outside their tolerance (≤ 0 when all hold):
    /// [`CONTACT_TOLERANCE`], and for a cone row that plus `2ε` times the point's largest
    /// friction variable. The compliance moves every pair by `ε` times its variable, so a
    /// point sticking with friction split between opposite directions `b` has sliding rows
    /// `ψ + d̂·ṗ + ε b = 0` for both, hence `ψ = −ε b`, while its cone row asks `ψ = 0`.
    fn pair_excess(&self, z: &[f64]) -> f64 {
        let dofs = self.gal.s() * self.model.dof();
        let k = self.contact.per_site();
        let mut excess = f64::NEG_INFINITY;
        for (i, r) in self.residual.iter().enumerate().skip(dofs) {
            let j = i - dofs;
            let first = j - j % k;
            let tolerance = if j % k == CONE {
                let friction = z[first + SLIDING + 1..first + k]
                    .iter()
                    .fold(0.0f64, |a, b| a.max(b.abs()));
                CONTACT_TOLERANCE + 2.0 * COMPLIANCE * friction
            } else {
                CONTACT_TOLERANCE
            };
            excess = excess.max(r.abs() - tolerance);
        }
        excess
    }

    fn merit(&self, scale: f64) -> f64 {
        let dofs = self.gal.s() * self.model.dof();
        self.residual
            .iter()
            .enumerate()
            .map(|(i, r)| if i < dofs { (r / scale).powi(2) } else { r * r })
            .sum::<f64>()
            * 0.5
    }
}

/// Simulates `model` from `(q0, v0)` with the Galerkin integrator `gal` on the terrain of
/// `contact` (see the module documentation); `controls(t, u)` fills the actuator torques at
/// time `t`. The trajectory carries the contact forces and gaps at its knots.
///
/// # Panics
/// If `q0`/`v0` do not have `model.dof()` entries or `opts.dt ≤ 0`.
pub fn simulate_with_contact(
    model: &Model,
    gal: &Galerkin,
    q0: &[f64],
    v0: &[f64],
    controls: &mut dyn FnMut(f64, &mut [f64]),
    contact: &ContactModel,
    opts: &SimulationOptions,
) -> Simulation {
    let n = model.dof();
    let s = gal.s();
    assert!(q0.len() == n && v0.len() == n && opts.dt > 0.0);
    let dt = opts.dt;
    let block = Stepper::new(model, gal, contact, opts).block();
    let (k_site, nl) = (contact.per_site(), contact.sites.len());
    let n_u = model.actuated_joints().len();
    let mut u = vec![0.0; (s + 1) * n_u];
    let mut p = EnergyMeter::new(model).momentum(q0, v0);
    let mut q = vec![0.0; (s + 1) * n];
    q[..n].copy_from_slice(q0);
    let mut z = vec![0.0; s * block];
    let mut traj = Trajectory {
        joint_names: model.joint_names(),
        ..Trajectory::default()
    };
    let mut contacts = KnotContacts {
        names: contact.sites.iter().map(|c| c.name.clone()).collect(),
        ..KnotContacts::default()
    };
    traj.push_knot(&mut EnergyMeter::new(model), 0.0, q0, &p);
    let mut v_knot = v0.to_vec();
    let mut failure = None;
    // March over the grid `kΔt`; a step that cannot be solved is split in halves, down to
    // Δt/2^STEP_SPLITS, and every knot reached is recorded.
    let end = opts.steps as f64 * dt;
    let mut t0 = 0.0;
    let mut h = dt;
    let mut h_prev: Option<f64> = None;
    let (mut q_saved, mut z_saved) = (q.clone(), z.clone());
    // One step past the end gives the last knot its force (and its momentum the force's
    // share); it is not recorded.
    let mut charts = Charts::new(model, q0);
    'charts: loop {
        let chart_model = charts.model(model);
        let model = &chart_model;
        let mut st = Stepper::new(model, gal, contact, opts);
        let mut ws = Workspace::new(model);
        let mut energy = EnergyMeter::new(model);
        loop {
            if charts.recentre(
                model,
                opts,
                &mut q[..n],
                &mut [&mut v_knot],
                &mut [&mut p],
                &mut traj,
            ) {
                continue 'charts;
            }
            let finishing = t0 >= end - 1e-12 * dt;
            let step = (t0 / dt + 1e-9).floor() as usize;
            let grid_next = if finishing {
                t0 + dt
            } else {
                ((step + 1) as f64 * dt).min(end)
            };
            h = h.min(grid_next - t0);
            for (al, &node) in gal.nodes().iter().enumerate() {
                controls(t0 + node * h, &mut u[al * n_u..(al + 1) * n_u]);
            }
            q_saved.copy_from_slice(&q);
            z_saved.copy_from_slice(&z);
            let knot_factor = knot_factor(gal, h, h_prev);
            let scale = p.iter().fold(1.0f64, |a, x| a.max(x.abs()));
            let shortest = h <= dt / f64::from(1u32 << STEP_SPLITS);
            predict(gal, h, &v_knot, &mut q);
            match solve_step(
                &mut st,
                h,
                &p,
                &mut q,
                &u,
                &mut z,
                knot_factor,
                scale,
                opts,
                false,
            ) {
                Ok(iterations) => traj.iterations.push(iterations),
                Err(_) if finishing => break,
                Err(message) => {
                    q.copy_from_slice(&q_saved);
                    z.copy_from_slice(&z_saved);
                    if !shortest {
                        h *= 0.5;
                        continue;
                    }
                    failure = Some(StepFailure {
                        step,
                        time: t0,
                        message,
                    });
                    break;
                }
            }
            // Forces and gaps at the start knot; the knot's momentum gains the previous stage's
            // share of its force now that the force is known.
            st.evaluate(h, &p, &q, &u, &z, knot_factor, 0.0, false);
            contacts
                .forces
                .push((0..nl).map(|l| st.samples[0].forces[l]).collect());
            contacts.normal.push(
                (0..nl)
                    .map(|l| contact.force_scale * z[l * k_site + NORMAL])
                    .collect(),
            );
            contacts.gaps.push(
                (0..nl)
                    .map(|l| st.samples[0].rows[l * k_site + GAP])
                    .collect(),
            );
            if let Some(hp) = h_prev {
                let extra = knot_momentum(model, &mut ws, &st, 0, gal.w(s) * hp, &q[..n]);
                let kp = traj.p.len() - 1;
                let corrected: Vec<f64> =
                    traj.p[kp].iter().zip(&extra).map(|(a, b)| a + b).collect();
                let (v, e) = energy.velocity_and_energy(&q[..n], &corrected);
                traj.p[kp] = corrected;
                traj.v[kp] = v;
                traj.energy[kp] = e;
            }
            if finishing {
                traj.iterations.pop();
                break;
            }
            p.copy_from_slice(st.jac.value.rows(s * n, n).as_slice());
            t0 += h;
            if (grid_next - t0).abs() < 1e-12 * dt {
                t0 = grid_next;
            }
            traj.push_knot(&mut energy, t0, &q[s * n..], &p);
            for (i, v) in v_knot.iter_mut().enumerate() {
                *v = (0..=s).map(|be| gal.b(s, be) * q[be * n + i]).sum::<f64>() / h;
            }
            q.copy_within(s * n.., 0);
            h_prev = Some(h);
            // Back to whole steps once the grid is reached again.
            if t0 == grid_next {
                h = dt;
            }
        }
        // A failed simulation's last knot has no force yet: the last interior node's stands in.
        if contacts.forces.len() < traj.q.len() {
            let last = s.saturating_sub(1);
            contacts
                .forces
                .push((0..nl).map(|l| st.samples[last].forces[l]).collect());
            contacts.normal.push(
                (0..nl)
                    .map(|l| contact.force_scale * z[last * block + l * k_site + NORMAL])
                    .collect(),
            );
            contacts
                .gaps
                .push((0..nl).map(|l| st.end.rows[l * k_site + GAP]).collect());
        }
        break;
    }
    charts.finish(&mut traj);
    traj.contact = Some(contacts);
    Simulation {
        trajectory: traj,
        failure,
    }
}

/// The factor of the start knot's force in a stage of length `h` after one of `h_prev` (none
/// at the start): its share of both stages, `(w^s h_prev + w^0 h) / (w^0 h)`.
fn knot_factor(gal: &Galerkin, h: f64, h_prev: Option<f64>) -> f64 {
    let s = gal.s();
    h_prev.map_or(1.0, |hp| 1.0 + gal.w(s) * hp / (gal.w(0) * h))
}

/// Starts a stage's control points `q^{k,1..=s}` along the knot velocity `v` from `q^{k,0}`.
fn predict(gal: &Galerkin, h: f64, v: &[f64], q: &mut [f64]) {
    let n = v.len();
    for (al, &node) in gal.nodes().iter().enumerate().skip(1) {
        for i in 0..n {
            q[al * n + i] = q[i] + node * h * v[i];
        }
    }
}

/// One stage of the contact simulation as [`simulate_with_contact`] solves it, from the knot
/// `q0` with the momentum `p` the stage before ended with (without its share of the start
/// knot's force, which this stage decides), torques `u` at the stage's `s + 1` nodes, a stage
/// of `h` after one of `h_prev` (none at the start). The step starts from the control points
/// predicted along `v` and no forces, or from `start`: control points `q^{k,0..=s}` and the
/// contact variables of the nodes `0..s−1`, at the end of the smoothing path. Returns the
/// stage's control points `q^{k,0..=s}` (`tests/contact_replay.rs`: from an optimized knot they
/// land on the next).
///
/// # Errors
/// The step solver's message when the stage has no solution it can find.
///
/// # Panics
/// If the lengths do not match the model.
#[allow(clippy::too_many_arguments)]
pub fn contact_stage(
    model: &Model,
    gal: &Galerkin,
    contact: &ContactModel,
    opts: &SimulationOptions,
    (h, h_prev): (f64, Option<f64>),
    p: &[f64],
    q0: &[f64],
    v: &[f64],
    u: &[f64],
    start: Option<(&[f64], &[f64])>,
) -> Result<Vec<f64>, String> {
    let (n, s) = (model.dof(), gal.s());
    assert!(q0.len() == n && p.len() == n && v.len() == n);
    let mut st = Stepper::new(model, gal, contact, opts);
    let mut q = vec![0.0; (s + 1) * n];
    let mut z = vec![0.0; s * st.block()];
    q[..n].copy_from_slice(q0);
    match start {
        Some((q_start, z_start)) => {
            q[n..].copy_from_slice(&q_start[n..]);
            z.copy_from_slice(z_start);
        }
        None => predict(gal, h, v, &mut q),
    }
    let scale = p.iter().fold(1.0f64, |a, x| a.max(x.abs()));
    solve_step(
        &mut st,
        h,
        p,
        &mut q,
        u,
        &mut z,
        knot_factor(gal, h, h_prev),
        scale,
        opts,
        start.is_some(),
    )?;
    Ok(q)
}

/// One stage by Levenberg–Marquardt on the smoothed Fischer–Burmeister system (Marquardt's
/// scaling by the diagonal of `JᵀJ`, Nielsen's damping update), following the smoothing path
/// from [`SMOOTHING_START`] to [`SMOOTHING_END`] (or to the options' `contact_smoothing`), or
/// solving at its end alone when `at_end`. Returns the iterations taken.
#[allow(clippy::too_many_arguments)]
fn solve_step(
    st: &mut Stepper,
    dt: f64,
    p: &[f64],
    q: &mut [f64],
    u: &[f64],
    z: &mut [f64],
    knot_factor: f64,
    scale: f64,
    opts: &SimulationOptions,
    at_end: bool,
) -> Result<usize, String> {
    let n = st.model.dof();
    let s = st.gal.s();
    let dofs = s * n;
    let size = st.residual.len();
    let (mut q_trial, mut z_trial) = (q.to_vec(), z.to_vec());
    // The merit at `w + t d`, written into `(q_trial, z_trial)`.
    #[allow(clippy::too_many_arguments)]
    let trial = |st: &mut Stepper,
                 q: &[f64],
                 z: &[f64],
                 d: &DVector<f64>,
                 t: f64,
                 mu: f64,
                 q_trial: &mut [f64],
                 z_trial: &mut [f64]| {
        q_trial.copy_from_slice(q);
        for i in 0..dofs {
            q_trial[n + i] = q[n + i] + t * d[i];
        }
        for (j, zt) in z_trial.iter_mut().enumerate() {
            *zt = z[j] + t * d[dofs + j];
        }
        st.evaluate(dt, p, q_trial, u, z_trial, knot_factor, mu, false);
        st.merit(scale)
    };
    let end = opts.contact_smoothing.unwrap_or(SMOOTHING_END);
    let mut mu = if at_end {
        end
    } else {
        SMOOTHING_START.max(end)
    };
    let mut lambda = DAMPING_START;
    let mut nu = 2.0;
    let limit = opts.max_iterations.max(1) * STEP_ITERATIONS;
    for it in 0..limit {
        st.evaluate(dt, p, q, u, z, knot_factor, mu, true);
        let del = st.residual.rows(0, dofs).amax() / scale;
        let pairs = st.pair_excess(z);
        if mu <= end && del <= opts.tolerance.max(CONTACT_DEL_TOLERANCE) && pairs <= 0.0 {
            return Ok(it + 1);
        }
        if mu > end && st.residual_norm(scale) <= SMOOTHING_PATH * mu {
            mu = (mu * SMOOTHING_DECREASE).max(end);
            st.evaluate(dt, p, q, u, z, knot_factor, mu, true);
        }
        let m0 = st.merit(scale);
        let mut jac = st.jacobian.clone();
        let mut rhs = -st.residual.clone();
        for r in 0..dofs {
            jac.row_mut(r).scale_mut(1.0 / scale);
            rhs[r] /= scale;
        }
        // A full Newton step when it decreases the merit.
        if let Some(dn) = jac.clone().lu().solve(&rhs) {
            let mut t = 1.0;
            let mut taken = false;
            while t > NEWTON_MIN_STEP {
                let m = trial(st, q, z, &dn, t, mu, &mut q_trial, &mut z_trial);
                if m.is_finite() && m <= (1.0 - 1e-4 * t) * m0 {
                    taken = true;
                    break;
                }
                t *= 0.5;
            }
            if taken {
                q.copy_from_slice(&q_trial);
                z.copy_from_slice(&z_trial);
                continue;
            }
        }
        let jt = jac.transpose();
        let normal = &jt * &jac;
        let gradient = &jt * &rhs;
        let mut damped = normal.clone();
        for i in 0..size {
            damped[(i, i)] += lambda * normal[(i, i)].max(DAMPING_FLOOR);
        }
        let Some(dw) = damped
            .cholesky()
            .map(|c| c.solve(&gradient))
            .filter(|d| d.iter().all(|x| x.is_finite()))
        else {
            lambda *= nu;
            nu *= 2.0;
            continue;
        };
        let m = trial(st, q, z, &dw, 1.0, mu, &mut q_trial, &mut z_trial);
        // Gain ratio: actual against predicted decrease of ½‖F‖².
        let predicted = 0.5
            * dw.dot(
                &(lambda * dw.component_mul(&normal.diagonal().map(|d| d.max(DAMPING_FLOOR)))
                    + &gradient),
            );
        let ratio = (m0 - m) / predicted.max(f64::MIN_POSITIVE);
        if m.is_finite() && ratio > 0.0 {
            q.copy_from_slice(&q_trial);
            z.copy_from_slice(&z_trial);
            lambda *= (1.0f64 / 3.0).max(1.0 - (2.0 * ratio - 1.0).powi(3));
            lambda = lambda.max(DAMPING_MIN);
            nu = 2.0;
        } else {
            lambda *= nu;
            nu *= 2.0;
            if lambda > DAMPING_MAX {
                return Err(format!(
                    "the contact step did not converge: residual {:.3e} (DEL rows relative to \
                     the momentum scale, contact rows in m, m/s and force units)",
                    st.residual_norm(scale)
                ));
            }
        }
    }
    Err(format!(
        "the contact step did not converge in {limit} iterations"
    ))
}

/// `w Σ_l J_l(q)ᵀ f_l` for the forces at node `node` in the stepper.
fn knot_momentum(
    model: &Model,
    ws: &mut Workspace,
    st: &Stepper,
    node: usize,
    weight: f64,
    q: &[f64],
) -> Vec<f64> {
    let n = model.dof();
    forward_kinematics(model, ws, q);
    let mut out = vec![0.0; n];
    let mut jac = DMatrix::zeros(3, n);
    for (l, site) in st.contact.sites.iter().enumerate() {
        crate::dynamics::point_jacobian(model, ws, site.body, &site.offset, &mut jac);
        let f = st.samples[node].forces[l];
        for (j, o) in out.iter_mut().enumerate() {
            *o += weight * (0..3).map(|c| jac[(c, j)] * f[c]).sum::<f64>();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contact::{ContactSite, Terrain, TerrainBox};
    use crate::model::{BaseKind, load_urdf};

    /// The step's generalized Jacobian against central differences of its residual, for the
    /// box on terrain with a rounded edge, away from the kinks of the smoothed conditions.
    #[test]
    fn step_jacobian_matches_finite_differences() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/robots/box.urdf");
        for base in [BaseKind::Planar, BaseKind::Floating] {
            let model = load_urdf(path, base).unwrap();
            let n = model.dof();
            let terrain = Terrain {
                friction: 0.6,
                edge_radius: 0.05,
                boxes: vec![TerrainBox {
                    x: [0.08, 0.5],
                    y: None,
                    top: 0.12,
                }],
                ..Terrain::default()
            };
            let sites = model
                .contact_points()
                .iter()
                .map(|c| ContactSite {
                    name: c.name.clone(),
                    body: c.body,
                    offset: c.offset,
                    radius: c.radius,
                })
                .collect();
            let contact = ContactModel::new(&model, terrain, sites);
            let gal = Galerkin::simpson();
            let mut st = Stepper::new(&model, &gal, &contact, &SimulationOptions::default());
            let s = gal.s();
            let dofs = s * n;
            let block = st.block();
            let mut q = vec![0.0; (s + 1) * n];
            for (i, v) in q.iter_mut().enumerate() {
                *v = 0.05 * ((i as f64) * 1.7).sin();
            }
            let zi = if base == BaseKind::Planar { 1 } else { 2 };
            for al in 0..=s {
                q[al * n + zi] += 0.08 + 0.01 * al as f64;
            }
            let z: Vec<f64> = (0..s * block)
                .map(|j| 0.3 + 0.2 * ((j as f64) * 0.9).cos())
                .collect();
            let p: Vec<f64> = (0..n).map(|i| 0.1 * (i as f64 + 1.0)).collect();
            let u = vec![0.0; (s + 1) * model.actuated_joints().len()];
            let (dt, factor, mu) = (0.01, 2.0, 1e-2);
            {
                st.evaluate(dt, &p, &q, &u, &z, factor, mu, true);
                let exact = st.jacobian.clone();
                let size = exact.nrows();
                let h = 1e-7;
                for c in 0..size {
                    let (mut qp, mut qm, mut zp, mut zm) =
                        (q.clone(), q.clone(), z.clone(), z.clone());
                    if c < dofs {
                        qp[n + c] += h;
                        qm[n + c] -= h;
                    } else {
                        zp[c - dofs] += h;
                        zm[c - dofs] -= h;
                    }
                    st.evaluate(dt, &p, &qp, &u, &zp, factor, mu, false);
                    let fp = st.residual.clone();
                    st.evaluate(dt, &p, &qm, &u, &zm, factor, mu, false);
                    let fd = (fp - &st.residual) / (2.0 * h);
                    for r in 0..size {
                        assert!(
                            (fd[r] - exact[(r, c)]).abs() < 1e-5 * (1.0 + exact[(r, c)].abs()),
                            "{base:?}: ∂F{r}/∂w{c}: {} vs {}",
                            fd[r],
                            exact[(r, c)]
                        );
                    }
                }
            }
        }
    }
}

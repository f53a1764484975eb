//! The complementarity conditions of frictional contact at one sample of a trajectory, the
//! same for every transcription and for the simulator (Stewart–Trinkle's time-stepping
//! conditions with maximum dissipation, as Manchester and Kuindersma code them; research notes
//! §1.2, §1.6).
//!
//! Each contact point `l` at a sample with configuration `q` and joint velocity `v` carries the
//! variables `z_l = (c, ψ, b_1, …, b_D)`, all `≥ 0`: the normal force `c` and the friction
//! forces `b_j` along the cone's directions `d̂_j` in units of the force scale `σ`, and `ψ`, the
//! sliding speed (m/s). Its world force is `f_l = σ (c n̂ + Σ_j b_j d̂_j)`. Its rows, all `≥ 0`,
//! and the pairs they form with the variables:
//!
//! ```text
//! gap      φ(p_l(q⁺)) − radius_l      ⟂ c      the point meets the ground by the next sample
//! cone     μ c − Σ_j b_j              ⟂ ψ      inside the friction pyramid; sliding on its edge
//! slip_j   ψ + d̂_jᵀ J_l(q) v + κ b_j  ⟂ b_j    friction opposes sliding (maximum dissipation)
//! ```
//!
//! The force acts at `q` and its normal part answers for the gap at `q⁺`, the configuration of
//! the next sample of the trajectory (the next control point of the integrator): a force moves
//! the motion after it, so the force that stops an arriving point acts before the sample where
//! the point meets the ground, and a loaded point stays on the ground until the next sample
//! (inelastic contact, no touch-and-go kick; ARCHITECTURE.md, "Contact"). [`ContactSample`]
//! evaluates the rows at `q` with the gap at `q` itself; the callers pair each force with the
//! next sample's gap ([`ContactSample::evaluate_gaps`]).
//!
//! When the point slides, `ψ` is its tangential speed, the friction force lies on the cone's
//! boundary and opposes the motion; when it sticks, `ψ = 0`, the tangential velocity vanishes
//! and the force may be anywhere in the cone.
//!
//! The creep `κ ≥ 0` (m/s per unit of friction force, 0 by default) regularizes sticking: a
//! point whose friction is inside the cone then moves against its friction force at the speed
//! `κ b_j` (a stiff tangential damper), and beyond `κ μ c` it slides as before. With `κ = 0` a
//! sticking point has `ψ = 0` and both slips zero, three rows that say `ψ = 0` and `ṗ_t = 0`
//! in two unknowns (maximum dissipation's failure of LICQ); with `κ > 0` only the slip of the
//! direction carrying the force vanishes, and it fixes that force.

use super::{ContactFrame, Distance, Terrain};
use crate::dynamics::{Workspace, point_jacobian, point_velocity_derivative};
use crate::model::Model;
use crate::spatial::Vec3;
use nalgebra::DMatrix;

/// A point of the robot that can touch the terrain.
#[derive(Clone, Debug, PartialEq)]
pub struct ContactSite {
    /// Name (the model's contact point).
    pub name: String,
    /// Body index.
    pub body: usize,
    /// Position in the body frame (the sphere's centre).
    pub offset: Vec3,
    /// Sphere radius: `φ` is measured from the sphere's surface.
    pub radius: f64,
}

/// The contact model of a problem: the terrain, the points that touch it, the friction
/// pyramid and the force scale.
#[derive(Clone, Debug)]
pub struct ContactModel {
    /// The terrain (and its friction coefficient).
    pub terrain: Terrain,
    /// The contact points.
    pub sites: Vec<ContactSite>,
    /// Friction directions per point: 2 for planar robots, 4 for spatial ones.
    pub directions: usize,
    /// Force scale `σ` (N per unit of `c` and `b_j`).
    pub force_scale: f64,
    /// Creep `κ` of a sticking point (m/s per unit of friction force `b_j`; 0: exact
    /// sticking).
    pub creep: f64,
    /// The farthest from the terrain a contact force may act on its point in an optimization
    /// of a robot with actuators (m): the resolution of a touchdown
    /// (`transcription/terms/contact.rs`). A passive body, or a simulation, does not choose when
    /// it lands and has no reach.
    pub reach: f64,
    /// The deepest an optimized trajectory of a robot with actuators may dip into the terrain
    /// between two of its points (m), if the problem bounds it: the penetration rows of
    /// `transcription/terms/contact.rs`. A passive body, or a simulation, lands where it falls
    /// and has no such rows.
    pub penetration: Option<f64>,
    /// Whether an optimized trajectory of a robot with actuators holds each point's power at
    /// the VI's interior knots, with the knot velocity the integrator carries there, at most
    /// zero: the knot power rows of `transcription/terms/contact.rs`. Off by default: a
    /// landing inside a stage makes that velocity point away from the ground at the next knot
    /// (the stage's polynomial dips and rebounds), and the rows then ask for soft landings.
    pub dissipative_knots: bool,
}

/// The default [`ContactModel::reach`] (m).
pub const DEFAULT_REACH: f64 = 2e-3;

/// Index of `c` in a point's variables.
pub const NORMAL: usize = 0;
/// Index of `ψ` in a point's variables.
pub const SLIDING: usize = 1;
/// Index of the gap row in a point's rows.
pub const GAP: usize = 0;
/// Index of the cone row in a point's rows.
pub const CONE: usize = 1;

impl ContactModel {
    /// The model of `model`'s contact points `sites` on `terrain`: two friction directions for
    /// a planar base, four otherwise, and forces in units of the robot's weight shared by its
    /// contact points.
    pub fn new(model: &Model, terrain: Terrain, sites: Vec<ContactSite>) -> Self {
        let directions = if model.base() == crate::model::BaseKind::Planar {
            2
        } else {
            4
        };
        let weight = model.total_mass() * model.gravity().norm();
        let force_scale = if weight > 0.0 && !sites.is_empty() {
            weight / sites.len() as f64
        } else {
            1.0
        };
        Self {
            terrain,
            sites,
            directions,
            force_scale,
            creep: 0.0,
            reach: DEFAULT_REACH,
            penetration: None,
            dissipative_knots: false,
        }
    }

    /// The world position of contact point `l`'s sphere centre and the terrain's distance
    /// from it (with its derivatives); `ws` must hold the forward kinematics of the
    /// configuration.
    fn locate(&self, ws: &Workspace, l: usize) -> (Vec3, Distance) {
        let site = &self.sites[l];
        let p = ws.body_pose(site.body).transform_point(&site.offset);
        (p, self.terrain.distance(&p))
    }

    /// The gap of contact point `l` (m): the terrain's signed distance from its sphere's
    /// surface, the `gap` row of [`ContactSample::evaluate`]. `ws` must hold the forward
    /// kinematics of the configuration.
    pub fn gap(&self, ws: &Workspace, l: usize) -> f64 {
        self.locate(ws, l).1.value - self.sites[l].radius
    }

    /// Variables (and rows) per contact point: `2 + D`.
    pub fn per_site(&self) -> usize {
        2 + self.directions
    }

    /// Index of `b_j` in a point's variables (and of `slip_j` in its rows).
    pub fn friction(&self, j: usize) -> usize {
        2 + j
    }

    /// The complementarity pairs of one point as (row, variable) indices within the point.
    pub fn pairs(&self) -> Vec<(usize, usize)> {
        let mut out = vec![(GAP, NORMAL), (CONE, SLIDING)];
        out.extend((0..self.directions).map(|j| (self.friction(j), self.friction(j))));
        out
    }

    /// `∂row/∂z` of one point: constant (`cone`: μ on `c`, −1 on each `b_j`; `slip_j`: 1 on
    /// `ψ` and, with a creep, `κ` on `b_j`), as `(row, variable, value)`.
    pub fn variable_derivatives(&self) -> Vec<(usize, usize, f64)> {
        let mut out = vec![(CONE, NORMAL, self.terrain.friction)];
        for j in 0..self.directions {
            out.push((CONE, self.friction(j), -1.0));
            out.push((self.friction(j), SLIDING, 1.0));
            if self.creep != 0.0 {
                out.push((self.friction(j), self.friction(j), self.creep));
            }
        }
        out
    }
}

/// The contact quantities of every point at one sample, with their derivatives; buffers are
/// allocated once per model.
#[derive(Clone, Debug)]
pub struct ContactSample {
    /// Rows `(gap, cone, slip_1..D)` per point, point after point.
    pub rows: Vec<f64>,
    /// `∂rows/∂q` (rows × n).
    pub rows_dq: DMatrix<f64>,
    /// `∂rows/∂v` (rows × n).
    pub rows_dv: DMatrix<f64>,
    /// World force of each point.
    pub forces: Vec<Vec3>,
    /// `∂f_l/∂q` (3×n) of each point.
    pub forces_dq: Vec<DMatrix<f64>>,
    /// `∂f_l/∂z_l` (3 × (2 + D)) of each point.
    pub forces_dz: Vec<DMatrix<f64>>,
    /// World position of each point (the sphere's centre).
    pub positions: Vec<Vec3>,
    /// The contact frame under each point.
    pub frames: Vec<ContactFrame>,
    /// Point Jacobians (3×n).
    pub jacobians: Vec<DMatrix<f64>>,
    /// Each point's gap at another configuration (see [`ContactSample::evaluate_gaps`]).
    pub pair_gaps: Vec<f64>,
    /// `∂gap_l/∂q` at that configuration (one row per point).
    pub pair_gaps_dq: DMatrix<f64>,
    /// Each point's gap rate `φ̇ = ∇φᵀ J_l v` at `(q, v)` (m/s); along `v` its derivative is the
    /// gap row's `∂gap/∂q`.
    pub gap_rates: Vec<f64>,
    /// `∂φ̇_l/∂q = ∇φᵀ ∂(J_l v)/∂q + (J_l v)ᵀ ∇²φ J_l` (one row per point).
    pub gap_rates_dq: DMatrix<f64>,
    /// Each point's power at another velocity than its rows' (W; see
    /// [`ContactSample::evaluate_powers`]).
    pub powers: Vec<f64>,
    /// `∂P_l/∂q` (one row per point).
    pub powers_dq: DMatrix<f64>,
    /// `∂P_l/∂v = f_lᵀ J_l` (one row per point).
    pub powers_dv: DMatrix<f64>,
    /// `∂P_l/∂z_l` (one row per point, one column per variable of the point).
    pub powers_dz: DMatrix<f64>,
    /// The terrain's distance under each point.
    distances: Vec<Distance>,
    /// Each point's velocity `ṗ_l = J_l v`.
    velocities: Vec<Vec3>,
    /// `∂(J_l v)/∂q` (3×n) of each point.
    velocities_dq: Vec<DMatrix<f64>>,
    /// `∂(J_l v)/∂q` at the velocity of [`ContactSample::evaluate_powers`].
    power_velocity_dq: DMatrix<f64>,
    pair_jacobian: DMatrix<f64>,
    /// What the buffers hold of the last [`ContactSample::evaluate`]'s configuration, of its
    /// velocity and of [`ContactSample::evaluate_gaps`]'s configuration.
    held: Held,
}

/// What a [`ContactSample`] keeps between evaluations. A solve's Hessian differentiates each
/// point's rows along one variable at a time, so most evaluations repeat the last one's
/// configuration or velocity, or move only the joints of one limb: each point's quantities of
/// the configuration alone (position, the terrain's distance and frame, Jacobian, gap row) are
/// functions of the world twists `S̄_j` of the joints on its path to the root and of its
/// position, and are kept while those are the same bit for bit; those of the velocity (`ṗ`,
/// `∂ṗ/∂q`, the gap rate and the slips' derivatives) also of the velocities of those joints,
/// and are kept while those are too; its force and the force's derivatives while its
/// configuration and its variables are; the paired gaps ([`ContactSample::evaluate_gaps`]) are
/// kept while the paired workspace's [`Workspace::kinematics_stamp`] is unchanged. The rows of
/// the points' variables are evaluated every time.
#[derive(Clone, Debug, Default)]
struct Held {
    /// Per point: what its quantities were evaluated from.
    sites: Vec<SiteHeld>,
    /// The current configuration's key of one point (scratch).
    key: Vec<f64>,
    /// The stamp of the paired configuration, and whether its derivatives were evaluated.
    paired: Option<(u64, bool)>,
}

/// What one point's kept quantities were evaluated from.
#[derive(Clone, Debug, Default)]
struct SiteHeld {
    /// The joints on the point's path to the root (its body's, towards the root).
    chain: Vec<usize>,
    /// The point's position and the world twists of its chain, in that order.
    key: Vec<f64>,
    /// Whether the configuration's quantities were evaluated, and with their derivatives.
    configuration: Option<bool>,
    /// The velocities of the chain's joints (valid only with the configuration).
    velocity: Vec<f64>,
    /// Whether the velocity's quantities were evaluated, and with their derivatives.
    velocity_derivatives: Option<bool>,
    /// The point's variables of its force (valid only with the configuration).
    variables: Vec<f64>,
    /// Whether the force was evaluated, and with its derivatives.
    force_derivatives: Option<bool>,
}

/// Whether a computation `held` as `(stamp, with derivatives)` serves one at `stamp`, with
/// `derivatives` if asked (a workspace never computed, stamp 0, holds nothing).
fn holds(held: Option<(u64, bool)>, stamp: u64, derivatives: bool) -> bool {
    held.is_some_and(|(s, d)| s == stamp && s != 0 && (d || !derivatives))
}

impl Held {
    /// Whether point `l`'s kept quantities serve an evaluation at the configuration whose
    /// forward kinematics `ws` holds, at the velocity `v` and with the point's variables `zl`,
    /// with their derivatives if `derivatives`: `(configuration, velocity, force)`. Records
    /// what the evaluation then computes.
    fn serve(
        &mut self,
        l: usize,
        ws: &Workspace,
        site: &ContactSite,
        (v, zl): (&[f64], &[f64]),
        derivatives: bool,
    ) -> (bool, bool, bool) {
        let held = &mut self.sites[l];
        let key = &mut self.key;
        key.clear();
        let p = ws.body_pose(site.body).transform_point(&site.offset);
        key.extend_from_slice(p.as_slice());
        for &j in &held.chain {
            key.extend_from_slice(ws.joint_twist(j).as_slice());
        }
        let configuration =
            serves(held.configuration, derivatives) && same_bits(&held.key, key.iter().copied());
        if !configuration {
            std::mem::swap(&mut held.key, key);
            held.configuration = Some(derivatives);
        }
        let velocity = configuration
            && serves(held.velocity_derivatives, derivatives)
            && same_bits(&held.velocity, held.chain.iter().map(|&j| v[j]));
        if !velocity {
            held.velocity.clear();
            held.velocity.extend(held.chain.iter().map(|&j| v[j]));
            held.velocity_derivatives = Some(derivatives);
        }
        let force = configuration
            && serves(held.force_derivatives, derivatives)
            && same_bits(&held.variables, zl.iter().copied());
        if !force {
            held.variables.clear();
            held.variables.extend_from_slice(zl);
            held.force_derivatives = Some(derivatives);
        }
        (configuration, velocity, force)
    }
}

/// Whether `held` and `current` are the same values bit for bit.
fn same_bits(held: &[f64], current: impl ExactSizeIterator<Item = f64>) -> bool {
    held.len() == current.len()
        && held
            .iter()
            .zip(current)
            .all(|(a, b)| a.to_bits() == b.to_bits())
}

/// Whether an evaluation `held` (with derivatives or not) serves one with `derivatives`.
fn serves(held: Option<bool>, derivatives: bool) -> bool {
    held.is_some_and(|d| d || !derivatives)
}

impl ContactSample {
    /// Buffers for `contact` on `model`.
    pub fn new(model: &Model, contact: &ContactModel) -> Self {
        let n = model.dof();
        let m = contact.sites.len();
        let rows = m * contact.per_site();
        let frame = ContactFrame::new(&contact.terrain.distance(&Vec3::zeros()));
        Self {
            rows: vec![0.0; rows],
            rows_dq: DMatrix::zeros(rows, n),
            rows_dv: DMatrix::zeros(rows, n),
            forces: vec![Vec3::zeros(); m],
            forces_dq: vec![DMatrix::zeros(3, n); m],
            forces_dz: vec![DMatrix::zeros(3, contact.per_site()); m],
            positions: vec![Vec3::zeros(); m],
            frames: vec![frame; m],
            jacobians: vec![DMatrix::zeros(3, n); m],
            pair_gaps: vec![0.0; m],
            pair_gaps_dq: DMatrix::zeros(m, n),
            gap_rates: vec![0.0; m],
            gap_rates_dq: DMatrix::zeros(m, n),
            powers: vec![0.0; m],
            powers_dq: DMatrix::zeros(m, n),
            powers_dv: DMatrix::zeros(m, n),
            powers_dz: DMatrix::zeros(m, contact.per_site()),
            distances: vec![contact.terrain.distance(&Vec3::zeros()); m],
            velocities: vec![Vec3::zeros(); m],
            velocities_dq: vec![DMatrix::zeros(3, n); m],
            power_velocity_dq: DMatrix::zeros(3, n),
            pair_jacobian: DMatrix::zeros(3, n),
            held: Held {
                sites: contact
                    .sites
                    .iter()
                    .map(|site| {
                        let chain: Vec<usize> = model.ancestors_inclusive(site.body).collect();
                        SiteHeld {
                            key: Vec::with_capacity(3 + 6 * model.dof()),
                            velocity: Vec::with_capacity(chain.len()),
                            variables: Vec::with_capacity(contact.per_site()),
                            chain,
                            ..SiteHeld::default()
                        }
                    })
                    .collect(),
                key: Vec::with_capacity(3 + 6 * model.dof()),
                paired: None,
            },
        }
    }

    /// Evaluates every point's gap, and with `derivatives` its gradient `∇φᵀ J_l`, at the
    /// configuration whose forward kinematics `ws` holds, into [`Self::pair_gaps`] and
    /// [`Self::pair_gaps_dq`]: the gaps a sample's normal forces answer for when they are paired
    /// with another configuration's (the next point's, `terms/contact.rs`).
    pub fn evaluate_gaps(
        &mut self,
        model: &Model,
        contact: &ContactModel,
        ws: &Workspace,
        derivatives: bool,
    ) {
        let stamp = ws.kinematics_stamp();
        if holds(self.held.paired, stamp, derivatives) {
            return;
        }
        self.held.paired = Some((stamp, derivatives));
        for (l, site) in contact.sites.iter().enumerate() {
            let (_, dist) = contact.locate(ws, l);
            self.pair_gaps[l] = dist.value - site.radius;
            if !derivatives {
                continue;
            }
            point_jacobian(model, ws, site.body, &site.offset, &mut self.pair_jacobian);
            for c in 0..model.dof() {
                self.pair_gaps_dq[(l, c)] = dist.gradient.dot(&column(&self.pair_jacobian, c));
            }
        }
    }

    /// Evaluates every point's rows and force at `(q, v, z)` (`z`: the points' variables, point
    /// after point), with their derivatives when `derivatives` is set. `ws` must hold the
    /// forward kinematics of `q`.
    ///
    /// # Panics
    /// If `v` or `z` have the wrong length.
    pub fn evaluate(
        &mut self,
        model: &Model,
        contact: &ContactModel,
        ws: &Workspace,
        v: &[f64],
        z: &[f64],
        derivatives: bool,
    ) {
        let k = contact.per_site();
        assert_eq!(
            z.len(),
            contact.sites.len() * k,
            "one variable block per point"
        );
        assert_eq!(v.len(), model.dof(), "v must have n entries");
        let mu = contact.terrain.friction;
        let sigma = contact.force_scale;
        let n = model.dof();
        for (l, site) in contact.sites.iter().enumerate() {
            let r0 = l * k;
            let zl = &z[l * k..(l + 1) * k];
            let (configuration, velocity, kept_force) =
                self.held.serve(l, ws, site, (v, zl), derivatives);
            if !configuration {
                let (p, dist) = contact.locate(ws, l);
                point_jacobian(model, ws, site.body, &site.offset, &mut self.jacobians[l]);
                self.rows[r0 + GAP] = dist.value - site.radius;
                self.positions[l] = p;
                self.distances[l] = dist;
                self.frames[l] = ContactFrame::new(&dist);
                if derivatives {
                    // gap: ∇φᵀ J.
                    let jac = &self.jacobians[l];
                    for c in 0..n {
                        self.rows_dq[(r0 + GAP, c)] = dist.gradient.dot(&column(jac, c));
                        self.rows_dv[(r0 + GAP, c)] = 0.0;
                        self.rows_dq[(r0 + CONE, c)] = 0.0;
                        self.rows_dv[(r0 + CONE, c)] = 0.0;
                    }
                }
            }
            let (dist, frame, jac) = (&self.distances[l], &self.frames[l], &self.jacobians[l]);
            if !velocity {
                let pdot = times_vector(jac, v);
                self.velocities[l] = pdot;
                self.gap_rates[l] = dist.gradient.dot(&pdot);
                if derivatives {
                    // slip_j: d̂_jᵀ ∂(Jv)/∂q + ṗᵀ (∂d̂_j/∂p) J, and d̂_jᵀ J along v.
                    let dvel = &mut self.velocities_dq[l];
                    point_velocity_derivative(model, ws, site.body, &site.offset, v, dvel);
                    let bend = dist.hessian * pdot;
                    for c in 0..n {
                        self.gap_rates_dq[(l, c)] =
                            dist.gradient.dot(&column(dvel, c)) + bend.dot(&column(jac, c));
                    }
                    for j in 0..contact.directions {
                        let (d, dd) = frame.direction(j);
                        let row = r0 + contact.friction(j);
                        let turn = dd.transpose() * pdot;
                        for c in 0..n {
                            let col = column(jac, c);
                            self.rows_dq[(row, c)] = d.dot(&column(dvel, c)) + turn.dot(&col);
                            self.rows_dv[(row, c)] = d.dot(&col);
                        }
                    }
                }
            }
            let pdot = self.velocities[l];
            self.rows[r0 + CONE] = mu * zl[NORMAL]
                - (0..contact.directions)
                    .map(|j| zl[contact.friction(j)])
                    .sum::<f64>();
            for j in 0..contact.directions {
                let (d, _) = frame.direction(j);
                let b = zl[contact.friction(j)];
                self.rows[r0 + contact.friction(j)] =
                    zl[SLIDING] + d.dot(&pdot) + contact.creep * b;
            }
            if kept_force {
                continue;
            }
            let mut force = frame.normal * zl[NORMAL];
            for j in 0..contact.directions {
                force += frame.direction(j).0 * zl[contact.friction(j)];
            }
            self.forces[l] = force * sigma;
            if !derivatives {
                continue;
            }
            let mut dforce_dp = frame.normal_derivative * zl[NORMAL];
            for j in 0..contact.directions {
                let (_, dd) = frame.direction(j);
                dforce_dp += dd * zl[contact.friction(j)];
            }
            for c in 0..n {
                let col = dforce_dp * column(jac, c) * sigma;
                self.forces_dq[l]
                    .fixed_view_mut::<3, 1>(0, c)
                    .copy_from(&col);
            }
            let fz = &mut self.forces_dz[l];
            fz.fill(0.0);
            fz.column_mut(NORMAL).copy_from(&(frame.normal * sigma));
            for j in 0..contact.directions {
                let (d, _) = frame.direction(j);
                fz.column_mut(contact.friction(j)).copy_from(&(d * sigma));
            }
        }
    }
}

impl ContactSample {
    /// Evaluates each point's power `P_l = f_l · J_l(q) v`, the rate at which its force does
    /// work on the robot moving with another velocity `v` than its rows', at the configuration
    /// and forces of the last [`ContactSample::evaluate`] (`ws` must hold its forward
    /// kinematics), with `∂P_l/∂q = (J_l v)ᵀ ∂f_l/∂q + f_lᵀ ∂(J_l v)/∂q`, `∂P_l/∂v = f_lᵀ J_l`
    /// and `∂P_l/∂z_l = σ (n̂, 0, d̂_j)ᵀ J_l v`, when `derivatives` is set (the evaluation must
    /// then have computed its derivatives too).
    ///
    /// # Panics
    /// If `v` has the wrong length.
    pub fn evaluate_powers(
        &mut self,
        model: &Model,
        contact: &ContactModel,
        ws: &Workspace,
        v: &[f64],
        derivatives: bool,
    ) {
        assert_eq!(v.len(), model.dof(), "v must have n entries");
        let sigma = contact.force_scale;
        for (l, site) in contact.sites.iter().enumerate() {
            let frame = &self.frames[l];
            let pdot = times_vector(&self.jacobians[l], v);
            let force = self.forces[l];
            self.powers[l] = force.dot(&pdot);
            self.powers_dz.row_mut(l).fill(0.0);
            self.powers_dz[(l, NORMAL)] = sigma * frame.normal.dot(&pdot);
            for j in 0..contact.directions {
                self.powers_dz[(l, contact.friction(j))] = sigma * frame.direction(j).0.dot(&pdot);
            }
            if !derivatives {
                continue;
            }
            let dvel = &mut self.power_velocity_dq;
            point_velocity_derivative(model, ws, site.body, &site.offset, v, dvel);
            for c in 0..model.dof() {
                self.powers_dq[(l, c)] =
                    pdot.dot(&column(&self.forces_dq[l], c)) + force.dot(&column(dvel, c));
                self.powers_dv[(l, c)] = force.dot(&column(&self.jacobians[l], c));
            }
        }
    }
}

/// Column `c` of a 3×n matrix.
fn column(m: &DMatrix<f64>, c: usize) -> Vec3 {
    Vec3::new(m[(0, c)], m[(1, c)], m[(2, c)])
}

/// `M v` for a 3×n matrix.
fn times_vector(m: &DMatrix<f64>, v: &[f64]) -> Vec3 {
    (0..v.len()).map(|c| column(m, c) * v[c]).sum()
}

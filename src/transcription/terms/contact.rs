//! Frictional contact with the terrain at every point (`contact/conditions.rs`): the contact
//! variables of each contact point as own variables, its gap, cone and slip rows (`≥ 0`), their
//! complementarity with the variables, and its world force as a load on the robot.
//!
//! The force at a point enters the dynamics of that point only, at the point's configuration:
//! in the VI the DEL row of the control point, weighted by the quadrature as
//! `w^α Δt J(q^{k,α})ᵀ f`; in Hermite–Simpson the inverse-dynamics row of the knot or midpoint.
//! Its normal part answers for the gap of the *next* point, `0 ≤ φ(q⁺) ⟂ c ≥ 0` (the last
//! point's, which moves only the final momentum, for its own): a force moves the motion after
//! it, so the force that stops an arriving body acts before the point where the body meets the
//! ground, touchdown can fall anywhere between two points, and a loaded point cannot leave the
//! ground before the next point (no touch-and-go kick; ARCHITECTURE.md, "Contact"). The first
//! point's own gap, which no force answers for, is a row `φ(q_0) ≥ 0` of its own. Friction
//! acts with the point's own velocity, as the force does.
//!
//! The force that stops a point arriving between two points acts at the point before, up to
//! one point's travel above the ground. A passive body has to land where it falls, but a robot
//! with actuators chooses its touchdowns, so for it the transcription (with smoothing) also
//! holds each force within the terrain's *reach* `δ` of the ground, `c (φ(q) − δ) ≤ κ μ²`
//! (`κ` = [`REACH_SLACK`]; default `δ` 2 mm): touchdowns fall on points or slowly enough to be
//! stopped within `δ`.
//!
//! Between two points the motion may still dip into the ground: a point arriving fast, stopped
//! inside a stage, follows the stage's polynomial through the ground and back to its next
//! point. For a robot with actuators the transcription can bound that dip by the terrain's
//! *penetration* `ε` (not bounded by default): between `p` and the next point, `h = t_{p+1} − t_p`
//! ahead, the quadratic through `q_p` with the slope `v_p` to `q_{p+1}` (in the Simpson VI
//! exactly the stage's Lagrange interpolant) has at the middle, to first order in the gap, the
//! gap `¾ φ(q_p) + ¼ φ(q_{p+1}) + (h/4) φ̇(q_p, v_p)`, and it is held `≥ −ε`.
//!
//! At an interior knot of the VI the point has two slopes, and the slip rows keep the
//! following one, but the velocity the integrator carries there (`knots.csv`'s, with which the
//! knot's impulse is weighed in the energy account) is that of the discrete Legendre transform,
//! `vᵏ`, which also bends with the change of the stages' accelerations across the knot. A point
//! that sticks across a knot and is carried away just after it (a foot loaded at its liftoff
//! knot) moves with `vᵏ` while both slopes rest, and its friction and normal force then push it
//! along. Where the problem asks (`terrain.dissipative_knots`), for a robot with actuators, with
//! smoothing, the transcription holds every point's power at every interior knot,
//! `f_l · J_l(q) vᵏ / σ ≤ κ_P μ² / h` (`κ_P` = [`POWER_SLACK`], `h` the time to the next point;
//! `vᵏ` with the mass matrix frozen, [`crate::vi::Galerkin::knot_velocity`]): the ground does
//! no work at the knots. Not by default: a point landing inside a stage follows the stage's
//! polynomial into the ground and back, so at the next knot `vᵏ` points away from the ground
//! while the landing force still acts, and the rows then ask for soft landings (the jump chain
//! does not converge with them; ARCHITECTURE.md, "Contact").

use crate::contact::{CONE, ContactModel, ContactSample, GAP, NORMAL, SLIDING};
use crate::problem::{ComplementarityMethod, TrajectoryProblem};
use crate::terms::{LoadForces, Local, LocalIndex, PointInfo, PointTerm, Scratch, Side};
use crate::vi::PointLoad;

struct Contact {
    model: ContactModel,
    /// The joints on each contact point's path to the root.
    chains: Vec<Vec<usize>>,
    /// The union of the chains, sorted.
    joints: Vec<usize>,
    method: ComplementarityMethod,
    /// The current smoothing `μ` of the Fischer–Burmeister rows (method `Smoothing`).
    smoothing: f64,
    /// The complementarity pairs of a contact point, `(row, variable)`.
    pairs: Vec<(usize, usize)>,
    /// The constant derivatives of a contact point's rows along its variables,
    /// `(row, variable, value)`.
    constant: Vec<(usize, usize, f64)>,
    /// Per row of a contact point: what it depends on (see [`Contact::row_uses`]).
    uses: Vec<RowUses>,
    /// Weight of the friction power `ψ Σ_j b_j` in the cost, per unit of the contact
    /// variables (`costs.friction_work` times the force scale; `terms/friction_work.rs`).
    friction_work: f64,
    /// Per contact point, whether the problem rests it on the ground at the start and at the
    /// end (`initial.at_rest`, `final.at_rest`, `terms/at_rest.rs`).
    resting: [Vec<bool>; 2],
    /// Whether the robot has actuators (and so the reach and penetration rows).
    actuated: bool,
}

/// What a row of a point's conditions depends on: `q`, the next point's `q⁺`, `v`, and its
/// constant derivatives along the point's own variables, `(variable, value)`.
struct RowUses {
    q: bool,
    q_next: bool,
    v: bool,
    constant: Vec<(usize, f64)>,
}

/// Adds the contact term when the problem has terrain.
pub(super) fn add(prob: &TrajectoryProblem, terms: &mut Vec<Box<dyn PointTerm>>) {
    let Some(model) = &prob.contact else {
        return;
    };
    let chains: Vec<Vec<usize>> = model
        .sites
        .iter()
        .map(|s| crate::terms::chain(&prob.model, s.body))
        .collect();
    let mut joints: Vec<usize> = chains.iter().flatten().copied().collect();
    joints.sort_unstable();
    joints.dedup();
    let constant = model.variable_derivatives();
    let uses = (0..model.per_site())
        .map(|row| RowUses {
            q: row != CONE && row != GAP,
            q_next: row == GAP,
            v: row != CONE && row != GAP,
            constant: constant
                .iter()
                .filter(|&&(r, _, _)| r == row)
                .map(|&(_, v, value)| (v, value))
                .collect(),
        })
        .collect();
    let resting = [0, 1].map(|b| {
        (0..model.sites.len())
            .map(|l| prob.at_rest[b].contains(&l))
            .collect()
    });
    terms.push(Box::new(Contact {
        resting,
        actuated: !prob.model.actuated_joints().is_empty(),
        model: model.clone(),
        chains,
        joints,
        method: prob.complementarity,
        smoothing: match prob.complementarity {
            ComplementarityMethod::Smoothing { start, .. } => start,
            _ => 0.0,
        },
        pairs: model.pairs(),
        constant,
        uses,
        friction_work: prob.friction_work() * model.force_scale,
    }));
}

impl Contact {
    fn size(&self) -> usize {
        self.model.sites.len() * self.model.per_site()
    }

    /// The own variables of contact point `l` that move its force: `c` and the `b_j`.
    fn force_own(&self, l: usize) -> impl Iterator<Item = usize> + '_ {
        let k = self.model.per_site();
        std::iter::once(NORMAL)
            .chain((0..self.model.directions).map(|j| self.model.friction(j)))
            .map(move |v| l * k + v)
    }

    fn smoothed(&self) -> bool {
        matches!(self.method, ComplementarityMethod::Smoothing { .. })
    }

    /// What row `row` of a point's conditions depends on: the gap on `q⁺`, the cone on the
    /// point's own variables alone, the slips on `q` and `v`.
    fn row_uses(&self, row: usize) -> &RowUses {
        &self.uses[row]
    }

    /// The rows `φ(q_0) ≥ 0` of the first point's own gaps: none elsewhere, and none where
    /// the problem fixes the first configuration (they are then checked, not solved for).
    fn own_gap_rows(&self, p: &PointInfo) -> usize {
        if p.index == 0 && p.count > 1 && !p.fixed_configuration {
            self.model.sites.len()
        } else {
            0
        }
    }

    /// Whether contact point `l`'s gap pair at `p` is closed by the problem: its gap is that of
    /// the last point, where `final.at_rest` holds it at zero. The pair's complementarity
    /// then holds whatever the force: with smoothing its row is `c ≥ 0` instead of the
    /// Fischer–Burmeister row (which has no solution at a zero gap), the gap row is free
    /// (`at_rest` holds it), and with relaxation the pair goes.
    fn closed(&self, p: &PointInfo, l: usize) -> bool {
        self.resting[1][l] && p.index + 2 >= p.count
    }

    /// The reach rows `c (φ(q) − δ) − κ μ² ≤ 0`, one per contact point, with smoothing, for a
    /// robot with actuators (a passive body cannot time its touchdowns).
    fn reach_rows(&self) -> usize {
        if self.smoothed() && self.actuated {
            self.model.sites.len()
        } else {
            0
        }
    }

    /// The penetration rows `¾ φ(q) + ¼ φ(q⁺) + (h/4) φ̇(q, v) ≥ −ε`, one per contact point, at
    /// every point but the last, for a robot with actuators whose problem bounds the dips.
    fn penetration_rows(&self, p: &PointInfo) -> usize {
        if self.actuated && self.model.penetration.is_some() && !p.is_last() {
            self.model.sites.len()
        } else {
            0
        }
    }

    /// The knot power rows `f_l · J_l vᵏ / σ − κ_P μ² / h ≤ 0`, one per contact point, at the
    /// interior knots of the VI, with smoothing, for a robot with actuators whose problem asks
    /// for them (`terrain.dissipative_knots`).
    fn power_rows(&self, p: &PointInfo) -> usize {
        if self.model.dissipative_knots && self.smoothed() && self.actuated && p.knot_velocity {
            self.model.sites.len()
        } else {
            0
        }
    }

    /// The number of condition rows and, with smoothing, Fischer–Burmeister rows.
    fn paired_rows(&self) -> usize {
        if self.smoothed() {
            2 * self.size()
        } else {
            self.size()
        }
    }

    /// Evaluates the contact conditions at the local values into the scratch: the point's own
    /// sample (forces, own gaps, slips) and the gaps of the next configuration.
    fn sample(&self, local: &Local, scratch: &mut Scratch, derivatives: bool) {
        if let Some(sample) = scratch.contact.as_mut() {
            sample.evaluate(
                local.model,
                &self.model,
                &scratch.kin,
                local.v,
                local.own,
                derivatives,
            );
            sample.evaluate_gaps(local.model, &self.model, &scratch.kin_next, derivatives);
        }
    }

    /// Row `row` of contact point `l`'s conditions in the sample: the paired gap for the gap
    /// row, the point's own row otherwise.
    fn condition(&self, sample: &ContactSample, l: usize, row: usize) -> f64 {
        if row == GAP {
            sample.pair_gaps[l]
        } else {
            sample.rows[l * self.model.per_site() + row]
        }
    }
}

impl PointTerm for Contact {
    fn variables(&self, _p: &PointInfo) -> usize {
        self.size()
    }

    /// Forces, sliding speeds and friction are nonnegative; with smoothing the
    /// Fischer–Burmeister rows imply it (see [`Self::row_bounds`]).
    fn variable_bounds(&self, _p: &PointInfo, lower: &mut [f64], upper: &mut [f64]) {
        lower.fill(if self.smoothed() {
            f64::NEG_INFINITY
        } else {
            0.0
        });
        upper.fill(f64::INFINITY);
    }

    /// Points whose next point touches the ground in the guess carry the weight, shared; the
    /// others start with a small force. The sliding speed starts at the guess's tangential
    /// speed and friction inside the cone, so that every pair starts positive (research notes
    /// §3, pitfall 4).
    fn start(&self, _p: &PointInfo, local: &Local, scratch: &mut Scratch, own: &mut [f64]) {
        let k = self.model.per_site();
        own.fill(0.0);
        self.sample(local, scratch, false);
        let Some(sample) = scratch.contact.as_ref() else {
            return;
        };
        let sites = self.model.sites.len();
        let touching: Vec<bool> = (0..sites)
            .map(|l| sample.pair_gaps[l] < START_CONTACT_DISTANCE)
            .collect();
        let count = touching.iter().filter(|&&t| t).count().max(1);
        let mu = self.model.terrain.friction;
        for l in 0..sites {
            let z = &mut own[l * k..(l + 1) * k];
            z[NORMAL] = if touching[l] {
                sites as f64 / count as f64
            } else {
                START_FORCE
            };
            // slip_j = ψ + d̂_j·ṗ: ψ at least the largest opposing speed keeps every slip row ≥ 0.
            let slowest = (0..self.model.directions)
                .map(|j| sample.rows[l * k + self.model.friction(j)])
                .fold(f64::INFINITY, f64::min);
            z[SLIDING] = (-slowest).max(0.0) + START_SLIDING;
            for j in 0..self.model.directions {
                z[self.model.friction(j)] = mu * z[NORMAL] / (2.0 * self.model.directions as f64);
            }
        }
    }

    /// The conditions' rows (`≥ 0`), with smoothing one Fischer–Burmeister row (`= 0`) per
    /// pair after them, at the first point its own gaps, with smoothing the reach rows, then the
    /// penetration rows and the knot power rows.
    fn rows(&self, p: &PointInfo) -> usize {
        self.paired_rows()
            + self.own_gap_rows(p)
            + self.reach_rows()
            + self.penetration_rows(p)
            + self.power_rows(p)
    }

    /// The conditions `≥ 0`. With smoothing the conditions are free rows and only the
    /// Fischer–Burmeister rows `a + b − √(a² + b² + 2μ²) = 0` bind: they imply `a, b > 0`, and
    /// a QP face holding such a row and both of its sides' bounds is inconsistent (measured on
    /// the hopper: the first level then failed in every QP; without the bounds it converged in
    /// 35–67 iterations). The last point's gap row repeats the row the point before pairs with
    /// (both are the last configuration's gap) and is free, but for relaxation, whose pairs need
    /// both sides bounded; the first point's own gaps are `≥ 0`. Pairs the problem closes
    /// ([`Contact::closed`]) keep `c ≥ 0` alone.
    fn row_bounds(&self, p: &PointInfo, lower: &mut [f64], upper: &mut [f64]) {
        let size = self.size();
        let k = self.model.per_site();
        lower.fill(0.0);
        upper.fill(f64::INFINITY);
        if self.smoothed() {
            lower[..size].fill(f64::NEG_INFINITY);
            upper[size..2 * size].fill(0.0);
        }
        let relaxed = self.method == ComplementarityMethod::Relaxation;
        for l in 0..self.model.sites.len() {
            let repeated = p.is_last() && p.count > 1 && !relaxed;
            if repeated || self.closed(p, l) {
                lower[l * k + GAP] = f64::NEG_INFINITY;
            }
            if self.smoothed() && self.closed(p, l) {
                upper[size + l * k + GAP] = f64::INFINITY;
            }
        }
        // The first point's own gaps, free where `initial.at_rest` holds them at zero.
        let first = self.paired_rows();
        for l in 0..self.own_gap_rows(p) {
            if self.resting[0][l] {
                lower[first + l] = f64::NEG_INFINITY;
            }
        }
        let reach = first + self.own_gap_rows(p);
        for l in 0..self.reach_rows() {
            lower[reach + l] = f64::NEG_INFINITY;
            upper[reach + l] = 0.0;
        }
        let penetration = reach + self.reach_rows();
        let depth = self.model.penetration.unwrap_or(0.0);
        lower[penetration..penetration + self.penetration_rows(p)].fill(-depth);
        let power = penetration + self.penetration_rows(p);
        let powers = power..power + self.power_rows(p);
        lower[powers.clone()].fill(f64::NEG_INFINITY);
        upper[powers].fill(0.0);
    }

    fn jacobian_pattern(&self, p: &PointInfo, ix: &LocalIndex, out: &mut Vec<(usize, usize)>) {
        let k = self.model.per_site();
        for (l, chain) in self.chains.iter().enumerate() {
            let r0 = l * k;
            out.extend(chain.iter().map(|&j| (r0 + GAP, ix.q_next(j))));
            for &(row, var, _) in &self.constant {
                out.push((r0 + row, ix.own(l * k + var)));
            }
            for j in 0..self.model.directions {
                let row = r0 + self.model.friction(j);
                out.extend(chain.iter().map(|&c| (row, ix.q(c))));
                out.extend(chain.iter().map(|&c| (row, ix.v(c))));
            }
        }
        if self.smoothed() {
            let size = self.size();
            for (l, chain) in self.chains.iter().enumerate() {
                for &(row, var) in &self.pairs {
                    let fb = size + l * k + row;
                    let RowUses {
                        q: uses_q,
                        q_next: uses_q_next,
                        v: uses_v,
                        constant,
                    } = self.row_uses(row);
                    if *uses_q {
                        out.extend(chain.iter().map(|&c| (fb, ix.q(c))));
                    }
                    if *uses_q_next {
                        out.extend(chain.iter().map(|&c| (fb, ix.q_next(c))));
                    }
                    if *uses_v {
                        out.extend(chain.iter().map(|&c| (fb, ix.v(c))));
                    }
                    out.extend(constant.iter().map(|&(v, _)| (fb, ix.own(l * k + v))));
                    out.push((fb, ix.own(l * k + var)));
                }
            }
        }
        let first = self.paired_rows();
        for l in 0..self.own_gap_rows(p) {
            out.extend(self.chains[l].iter().map(|&j| (first + l, ix.q(j))));
        }
        let reach = first + self.own_gap_rows(p);
        for l in 0..self.reach_rows() {
            out.extend(self.chains[l].iter().map(|&j| (reach + l, ix.q(j))));
            out.push((reach + l, ix.own(l * k + NORMAL)));
        }
        let penetration = reach + self.reach_rows();
        for l in 0..self.penetration_rows(p) {
            let chain = &self.chains[l];
            out.extend(chain.iter().map(|&j| (penetration + l, ix.q(j))));
            out.extend(chain.iter().map(|&j| (penetration + l, ix.v(j))));
            out.extend(chain.iter().map(|&j| (penetration + l, ix.q_next(j))));
        }
        let power = penetration + self.penetration_rows(p);
        for l in 0..self.power_rows(p) {
            let chain = &self.chains[l];
            out.extend(chain.iter().map(|&j| (power + l, ix.q(j))));
            out.extend(chain.iter().map(|&j| (power + l, ix.v_knot(j))));
            out.extend(self.force_own(l).map(|z| (power + l, ix.own(z))));
        }
    }

    fn evaluate(
        &self,
        p: &PointInfo,
        local: &Local,
        scratch: &mut Scratch,
        rows: &mut [f64],
        jac: Option<&mut [f64]>,
    ) {
        self.sample(local, scratch, jac.is_some());
        if self.power_rows(p) > 0
            && let Some(sample) = scratch.contact.as_mut()
        {
            sample.evaluate_powers(
                local.model,
                &self.model,
                &scratch.kin,
                local.v_knot,
                jac.is_some(),
            );
        }
        let Some(sample) = scratch.contact.as_ref() else {
            return;
        };
        let size = self.size();
        let k = self.model.per_site();
        let sites = self.model.sites.len();
        for l in 0..sites {
            for row in 0..k {
                rows[l * k + row] = self.condition(sample, l, row);
            }
        }
        // Fischer–Burmeister rows `a + b − r`, `r = √(a² + b² + 2μ²)`, and their partial
        // derivatives `1 − a/r`, `1 − b/r` along a and b.
        // A closed pair's row is its force alone, `(c, 0, 1)`.
        let mu = self.smoothing;
        let fischer_burmeister = |l: usize, row: usize, var: usize| {
            let (a, b) = (self.condition(sample, l, row), local.own[l * k + var]);
            if row == GAP && self.closed(p, l) {
                return (b, 0.0, 1.0);
            }
            let r = (a * a + b * b + 2.0 * mu * mu).sqrt();
            let r_safe = r.max(f64::MIN_POSITIVE);
            (a + b - r, 1.0 - a / r_safe, 1.0 - b / r_safe)
        };
        if self.smoothed() {
            for l in 0..sites {
                for &(row, var) in &self.pairs {
                    rows[size + l * k + row] = fischer_burmeister(l, row, var).0;
                }
            }
        }
        let first = self.paired_rows();
        let own_gaps = self.own_gap_rows(p);
        for l in 0..own_gaps {
            rows[first + l] = sample.rows[l * k + GAP];
        }
        let delta = self.model.reach;
        for l in 0..self.reach_rows() {
            let (gap, c) = (sample.rows[l * k + GAP], local.own[l * k + NORMAL]);
            rows[first + own_gaps + l] = c * (gap - delta) - REACH_SLACK * mu * mu;
        }
        let penetration = first + own_gaps + self.reach_rows();
        let quarter = 0.25 * p.interval;
        for l in 0..self.penetration_rows(p) {
            rows[penetration + l] = 0.75 * sample.rows[l * k + GAP]
                + 0.25 * sample.pair_gaps[l]
                + quarter * sample.gap_rates[l];
        }
        let power = penetration + self.penetration_rows(p);
        let scale = 1.0 / self.model.force_scale;
        let slack = POWER_SLACK * mu * mu / p.interval.max(f64::MIN_POSITIVE);
        for l in 0..self.power_rows(p) {
            rows[power + l] = scale * sample.powers[l] - slack;
        }
        let Some(jv) = jac else { return };
        let constant = &self.constant;
        let mut e = 0;
        for (l, chain) in self.chains.iter().enumerate() {
            let r0 = l * k;
            for &j in chain {
                jv[e] = sample.pair_gaps_dq[(l, j)];
                e += 1;
            }
            for &(_, _, value) in constant.iter() {
                jv[e] = value;
                e += 1;
            }
            for d in 0..self.model.directions {
                let row = r0 + self.model.friction(d);
                for &c in chain {
                    jv[e] = sample.rows_dq[(row, c)];
                    e += 1;
                }
                for &c in chain {
                    jv[e] = sample.rows_dv[(row, c)];
                    e += 1;
                }
            }
        }
        if self.smoothed() {
            for (l, chain) in self.chains.iter().enumerate() {
                for &(row, var) in &self.pairs {
                    let (_, da, db) = fischer_burmeister(l, row, var);
                    let r = l * k + row;
                    let RowUses {
                        q: uses_q,
                        q_next: uses_q_next,
                        v: uses_v,
                        constant,
                    } = self.row_uses(row);
                    if *uses_q {
                        for &c in chain {
                            jv[e] = da * sample.rows_dq[(r, c)];
                            e += 1;
                        }
                    }
                    if *uses_q_next {
                        for &c in chain {
                            jv[e] = da * sample.pair_gaps_dq[(l, c)];
                            e += 1;
                        }
                    }
                    if *uses_v {
                        for &c in chain {
                            jv[e] = da * sample.rows_dv[(r, c)];
                            e += 1;
                        }
                    }
                    for &(_, value) in constant.iter() {
                        jv[e] = da * value;
                        e += 1;
                    }
                    jv[e] = db;
                    e += 1;
                }
            }
        }
        for (l, chain) in self.chains.iter().enumerate().take(own_gaps) {
            for &j in chain {
                jv[e] = sample.rows_dq[(l * k + GAP, j)];
                e += 1;
            }
        }
        for (l, chain) in self.chains.iter().enumerate().take(self.reach_rows()) {
            let (gap, c) = (sample.rows[l * k + GAP], local.own[l * k + NORMAL]);
            for &j in chain {
                jv[e] = c * sample.rows_dq[(l * k + GAP, j)];
                e += 1;
            }
            jv[e] = gap - delta;
            e += 1;
        }
        for (l, chain) in self
            .chains
            .iter()
            .enumerate()
            .take(self.penetration_rows(p))
        {
            let gap_dq = sample.rows_dq.row(l * k + GAP);
            for &j in chain {
                jv[e] = 0.75 * gap_dq[j] + quarter * sample.gap_rates_dq[(l, j)];
                e += 1;
            }
            for &j in chain {
                jv[e] = quarter * gap_dq[j];
                e += 1;
            }
            for &j in chain {
                jv[e] = 0.25 * sample.pair_gaps_dq[(l, j)];
                e += 1;
            }
        }
        for (l, chain) in self.chains.iter().enumerate().take(self.power_rows(p)) {
            for &j in chain {
                jv[e] = scale * sample.powers_dq[(l, j)];
                e += 1;
            }
            for &j in chain {
                jv[e] = scale * sample.powers_dv[(l, j)];
                e += 1;
            }
            for z in self.force_own(l) {
                jv[e] = scale * sample.powers_dz[(l, z - l * k)];
                e += 1;
            }
        }
    }

    fn set_smoothing(&mut self, mu: f64) {
        self.smoothing = mu;
    }

    fn uses_next_configuration(&self) -> bool {
        true
    }

    /// With the penalty, `weight · Σ_pairs row · variable` at the point: its gradient is
    /// `weight (variable ∇row + row e_variable)`.
    fn cost(
        &self,
        p: &PointInfo,
        ix: &LocalIndex,
        local: &Local,
        scratch: &mut Scratch,
        mut grad: Option<(f64, &mut [f64])>,
    ) -> f64 {
        // The sliding speed and the friction forces, lightly: where the conditions leave them
        // open (ψ in the air; opposite friction directions of a sticking point) this picks the
        // least, and elsewhere they are fixed by the conditions.
        let k = self.model.per_site();
        let mut f_reg = 0.0;
        for l in 0..self.model.sites.len() {
            for var in std::iter::once(SLIDING)
                .chain((0..self.model.directions).map(|j| self.model.friction(j)))
            {
                let z = local.own[l * k + var];
                f_reg += REGULARIZATION * p.weight * z * z;
                if let Some((s, g)) = grad.as_mut() {
                    g[ix.own(l * k + var)] += *s * 2.0 * REGULARIZATION * p.weight * z;
                }
            }
        }
        // The energy friction dissipates (`costs.friction_work`): `w σ ψ Σ_j b_j` per point.
        if self.friction_work > 0.0 {
            let w = self.friction_work * p.weight;
            for l in 0..self.model.sites.len() {
                let psi = local.own[l * k + SLIDING];
                let friction = (0..self.model.directions)
                    .map(|j| local.own[l * k + self.model.friction(j)])
                    .sum::<f64>();
                f_reg += w * psi * friction;
                if let Some((s, g)) = grad.as_mut() {
                    g[ix.own(l * k + SLIDING)] += *s * w * friction;
                    for j in 0..self.model.directions {
                        g[ix.own(l * k + self.model.friction(j))] += *s * w * psi;
                    }
                }
            }
        }
        let ComplementarityMethod::Penalty(weight) = self.method else {
            return f_reg;
        };
        self.sample(local, scratch, grad.is_some());
        let Some(sample) = scratch.contact.as_ref() else {
            return f_reg;
        };
        let pairs = &self.pairs;
        let constant = &self.constant;
        let mut f = 0.0;
        for l in 0..self.model.sites.len() {
            for &(row, var) in pairs.iter() {
                f += self.condition(sample, l, row) * local.own[l * k + var];
            }
        }
        if let Some((s, g)) = grad {
            let w = s * weight;
            for (l, chain) in self.chains.iter().enumerate() {
                for &(row, var) in pairs.iter() {
                    let (r, z) = (l * k + row, l * k + var);
                    let factor = w * local.own[z];
                    for &j in chain {
                        if row == GAP {
                            g[ix.q_next(j)] += factor * sample.pair_gaps_dq[(l, j)];
                        } else {
                            g[ix.q(j)] += factor * sample.rows_dq[(r, j)];
                            g[ix.v(j)] += factor * sample.rows_dv[(r, j)];
                        }
                    }
                    for &(cr, cv, value) in constant.iter() {
                        if cr == row {
                            g[ix.own(l * k + cv)] += factor * value;
                        }
                    }
                    g[ix.own(z)] += w * self.condition(sample, l, row);
                }
            }
        }
        f_reg + weight * f
    }

    /// The gap rows curve in `q⁺`, the slip rows in `q` and `(q, v)`; the variables enter the
    /// rows linearly. The penalty adds each pair's variable against its row's arguments.
    fn hessian_pattern(&self, p: &PointInfo, ix: &LocalIndex, out: &mut Vec<(usize, usize)>) {
        for &a in &self.joints {
            for &b in &self.joints {
                if a >= b {
                    out.push((ix.q(a), ix.q(b)));
                    out.push((ix.q_next(a), ix.q_next(b)));
                }
                out.push((ix.v(a), ix.q(b)));
            }
        }
        let k = self.model.per_site();
        for l in 0..self.model.sites.len() {
            for var in std::iter::once(SLIDING)
                .chain((0..self.model.directions).map(|j| self.model.friction(j)))
            {
                let z = ix.own(l * k + var);
                out.push((z, z));
            }
            if self.friction_work > 0.0 {
                let psi = ix.own(l * k + SLIDING);
                for j in 0..self.model.directions {
                    let b = ix.own(l * k + self.model.friction(j));
                    out.push((psi.max(b), psi.min(b)));
                }
            }
            if self.reach_rows() > 0 {
                for &j in &self.chains[l] {
                    out.push((ix.own(l * k + NORMAL), ix.q(j)));
                }
            }
        }
        if self.smoothed() {
            // The knot power rows curve in (q, vᵏ) and (vᵏ, the forces) too.
            let knot_columns = if self.power_rows(p) > 0 {
                usize::MAX
            } else {
                0
            };
            for (l, chain) in self.chains.iter().enumerate() {
                let vars: Vec<usize> = chain
                    .iter()
                    .map(|&c| ix.q(c))
                    .chain(chain.iter().map(|&c| ix.v(c)))
                    .chain(chain.iter().map(|&c| ix.q_next(c)))
                    .chain((0..k).map(|v| ix.own(l * k + v)))
                    .chain(chain.iter().map(|&c| ix.v_knot(c)).take(knot_columns))
                    .collect();
                for &a in &vars {
                    for &b in &vars {
                        if a >= b {
                            out.push((a, b));
                        }
                    }
                }
            }
        }
        if let ComplementarityMethod::Penalty(_) = self.method {
            let constant = &self.constant;
            for (l, chain) in self.chains.iter().enumerate() {
                for &(row, var) in &self.pairs {
                    let z = ix.own(l * k + var);
                    for &j in chain {
                        if row == GAP {
                            out.push((z, ix.q_next(j)));
                        } else {
                            out.push((z, ix.q(j)));
                            out.push((z, ix.v(j)));
                        }
                    }
                    for &(cr, cv, _) in constant.iter() {
                        if cr == row {
                            let other = ix.own(l * k + cv);
                            out.push((z.max(other), z.min(other)));
                        }
                    }
                }
            }
        }
    }

    fn complementarity(&self, p: &PointInfo, out: &mut Vec<(Side, Side)>) {
        if self.method != ComplementarityMethod::Relaxation {
            return;
        }
        let k = self.model.per_site();
        for l in 0..self.model.sites.len() {
            for &(row, var) in &self.pairs {
                if row != GAP || !self.closed(p, l) {
                    out.push((Side::Row(l * k + row), Side::Own(l * k + var)));
                }
            }
        }
    }

    fn loads(&self) -> Vec<PointLoad> {
        self.model
            .sites
            .iter()
            .map(|s| PointLoad {
                body: s.body,
                offset: s.offset,
            })
            .collect()
    }

    /// The normal and friction forces move the force; `ψ` does not.
    fn force_variables(&self, _p: &PointInfo) -> Vec<(usize, usize)> {
        let k = self.model.per_site();
        let mut out = Vec::new();
        for l in 0..self.model.sites.len() {
            out.push((l, l * k + NORMAL));
            out.extend((0..self.model.directions).map(|j| (l, l * k + self.model.friction(j))));
        }
        out
    }

    fn forces(&self, _p: &PointInfo, local: &Local, scratch: &mut Scratch, out: &mut LoadForces) {
        self.sample(local, scratch, true);
        let Some(sample) = scratch.contact.as_ref() else {
            return;
        };
        for l in 0..self.model.sites.len() {
            out.force[l] = sample.forces[l];
            out.dq[l].copy_from(&sample.forces_dq[l]);
            let vars = std::iter::once(NORMAL)
                .chain((0..self.model.directions).map(|j| self.model.friction(j)));
            for var in vars {
                let d = sample.forces_dz[l].column(var);
                out.down.push(crate::spatial::Vec3::new(d[0], d[1], d[2]));
            }
        }
    }
}

/// A contact point closer than this to the terrain in the starting trajectory carries weight
/// there (m).
const START_CONTACT_DISTANCE: f64 = 0.01;
/// Starting normal force of a point off the ground (units of the force scale).
const START_FORCE: f64 = 0.01;
/// Weight of `∫ (ψ² + Σ b_j²) dt` (s⁻¹ in the variables' units): small against every other
/// cost, it only decides what the contact conditions leave open.
const REGULARIZATION: f64 = 1e-4;
/// `κ` of the reach rows `c (φ(q) − δ) ≤ κ μ²`: a point in the air carries the smoothed force
/// `c ≈ μ²/φ(q⁺)` of its next point's gap, so its row holds while its gap shrinks by less than
/// `κ` times from one point to the next beyond the reach `δ`.
const REACH_SLACK: f64 = 10.0;
/// `κ_P` of the knot power rows `f·J vᵏ/σ ≤ κ_P μ²/h`: with smoothing a point carries the
/// force `c ≈ μ²/φ(q⁺)` of its next point's gap, and leaving the ground at `φ̇` it reaches
/// `φ(q⁺) ≈ φ̇ h` at the next point, `h` ahead, so its power is about `μ²/h`. Measured on the
/// gaps walk: with 4 its last smoothing level took 245 iterations, with 20 it took 52.
const POWER_SLACK: f64 = 20.0;
/// Starting sliding speed beyond the guess's own (m/s).
const START_SLIDING: f64 = 0.01;

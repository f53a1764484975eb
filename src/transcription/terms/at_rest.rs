//! Contact points on the ground and at rest at the start or the end of the motion
//! (`initial.at_rest`, `final.at_rest`): at the first (last) point, for each named point `l`,
//!
//! ```text
//! φ(p_l(q)) − radius_l = 0        on the ground
//! J_l(q) v_b = 0                  not moving (x and z for a planar robot, x, y, z otherwise)
//! ```
//!
//! with `v_b` the boundary velocity the problem's `initial.v` and `final.v` name (the VI's `v⁰`,
//! `v^N` of the discrete Legendre transform, the local `v⁻`). A walk that starts with its stance
//! feet resting cannot be launched by an initial velocity that moves them, and a robot that ends
//! standing has its feet still. Where the problem fixes every joint's boundary velocity the
//! velocity rows are left out (the problem has said how everything moves), and where it fixes
//! the configuration the gap rows are (they are then checked,
//! [`super::Terms::check_fixed_points`]).

use crate::contact::ContactModel;
use crate::dynamics::{point_jacobian, point_velocity_derivative};
use crate::model::BaseKind;
use crate::problem::TrajectoryProblem;
use crate::terms::{Local, LocalIndex, PointInfo, PointTerm, Scratch, chain};
use nalgebra::DMatrix;

struct AtRest {
    contact: ContactModel,
    /// The resting points at the start and at the end (indices into the contact sites).
    points: [Vec<usize>; 2],
    /// Each contact site's joints to the root.
    chains: Vec<Vec<usize>>,
    /// The world axes a point's velocity has components along (x, z or x, y, z).
    axes: Vec<usize>,
    /// Whether the problem fixes every joint's velocity at the start and at the end.
    velocity_fixed: [bool; 2],
}

/// Adds the term when the problem rests contact points at either boundary.
pub(super) fn add(prob: &TrajectoryProblem, terms: &mut Vec<Box<dyn PointTerm>>) {
    let Some(contact) = &prob.contact else {
        return;
    };
    if prob.at_rest.iter().all(Vec::is_empty) {
        return;
    }
    terms.push(Box::new(AtRest {
        contact: contact.clone(),
        points: prob.at_rest.clone(),
        chains: contact
            .sites
            .iter()
            .map(|s| chain(&prob.model, s.body))
            .collect(),
        axes: if prob.model.base() == BaseKind::Planar {
            vec![0, 2]
        } else {
            vec![0, 1, 2]
        },
        velocity_fixed: [prob.initial_v.all_fixed(), prob.final_v.all_fixed()],
    }));
}

impl AtRest {
    /// The points resting at `p`: the first point's, the last point's, or none. Velocity rows
    /// come first, then gap rows unless the configuration is fixed.
    fn resting(&self, p: &PointInfo) -> &[usize] {
        if p.index == 0 {
            &self.points[0]
        } else if p.is_last() {
            &self.points[1]
        } else {
            &[]
        }
    }

    /// The points with velocity rows at `p`: the resting ones, unless the problem fixes the
    /// velocity there.
    fn moving(&self, p: &PointInfo) -> &[usize] {
        if self.velocity_fixed[usize::from(p.index != 0)] {
            &[]
        } else {
            self.resting(p)
        }
    }
}

impl PointTerm for AtRest {
    fn rows(&self, p: &PointInfo) -> usize {
        let gaps = if p.fixed_configuration {
            0
        } else {
            self.resting(p).len()
        };
        self.moving(p).len() * self.axes.len() + gaps
    }

    fn row_bounds(&self, _p: &PointInfo, lower: &mut [f64], upper: &mut [f64]) {
        lower.fill(0.0);
        upper.fill(0.0);
    }

    fn jacobian_pattern(&self, p: &PointInfo, ix: &LocalIndex, out: &mut Vec<(usize, usize)>) {
        let mut r = 0;
        for &l in self.moving(p) {
            for _ in &self.axes {
                out.extend(self.chains[l].iter().map(|&j| (r, ix.q(j))));
                out.extend(self.chains[l].iter().map(|&j| (r, ix.v_before(j))));
                r += 1;
            }
        }
        if !p.fixed_configuration {
            for &l in self.resting(p) {
                out.extend(self.chains[l].iter().map(|&j| (r, ix.q(j))));
                r += 1;
            }
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
        let (model, n) = (local.model, local.model.dof());
        let mut jacobian = DMatrix::zeros(3, n);
        let mut dvel = DMatrix::zeros(3, n);
        let mut jv = jac;
        let (mut r, mut e) = (0, 0);
        for &l in self.moving(p) {
            let site = &self.contact.sites[l];
            point_jacobian(model, &scratch.kin, site.body, &site.offset, &mut jacobian);
            if jv.is_some() {
                point_velocity_derivative(
                    model,
                    &scratch.kin,
                    site.body,
                    &site.offset,
                    local.v_before,
                    &mut dvel,
                );
            }
            for &a in &self.axes {
                rows[r] = (0..n).map(|j| jacobian[(a, j)] * local.v_before[j]).sum();
                r += 1;
                if let Some(jv) = jv.as_deref_mut() {
                    for &j in &self.chains[l] {
                        jv[e] = dvel[(a, j)];
                        e += 1;
                    }
                    for &j in &self.chains[l] {
                        jv[e] = jacobian[(a, j)];
                        e += 1;
                    }
                }
            }
        }
        if p.fixed_configuration {
            return;
        }
        for &l in self.resting(p) {
            let site = &self.contact.sites[l];
            rows[r] = self.contact.gap(&scratch.kin, l);
            r += 1;
            if let Some(jv) = jv.as_deref_mut() {
                let p_world = scratch
                    .kin
                    .body_pose(site.body)
                    .transform_point(&site.offset);
                let gradient = self.contact.terrain.distance(&p_world).gradient;
                point_jacobian(model, &scratch.kin, site.body, &site.offset, &mut jacobian);
                for &j in &self.chains[l] {
                    jv[e] = (0..3).map(|a| gradient[a] * jacobian[(a, j)]).sum();
                    e += 1;
                }
            }
        }
    }

    /// The gaps curve in `q`, the velocities in `(q, q)` and `(v_b, q)`.
    fn hessian_pattern(&self, p: &PointInfo, ix: &LocalIndex, out: &mut Vec<(usize, usize)>) {
        if p.fixed_configuration && self.moving(p).is_empty() {
            return;
        }
        for &l in self.resting(p) {
            for &a in &self.chains[l] {
                for &b in &self.chains[l] {
                    if a >= b {
                        out.push((ix.q(a), ix.q(b)));
                    }
                    out.push((ix.v_before(a), ix.q(b)));
                }
            }
        }
    }

    fn label(&self) -> &'static str {
        "at_rest"
    }
}

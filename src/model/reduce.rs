//! Reduced models: joints welded at a value, the bodies they carry merged into their parents.
//!
//! Locking joint `i` at `q_i = v` replaces it by the fixed placement `g_par,i(0) · exp(Ŝ_i v)`
//! (seed 000 §2.3), exactly as a URDF `fixed` joint is read: body `i`'s spatial inertia is moved
//! into its parent's frame (`transform_inertia`) and added there, its frames and contact points
//! follow it, and its children hang from the parent at the composed placement. A body locked to
//! the world (its parent is the world) leaves the model. The mass matrix of the reduced model is
//! the full one restricted to the free joints at the locked values, since kinetic energy of a
//! rigid assembly does not depend on how it is split into bodies.

use super::{Coupling, Frame, Joint, Model, ModelReport};
use crate::spatial::{Mat6, Transform, Vec3, exp_twist, transform_inertia};

/// Why a joint was locked.
#[derive(Clone, Debug, PartialEq)]
pub enum LockReason {
    /// Asked for (`--lock`, a problem's `lock:`).
    Requested,
    /// Its whole subtree is massless: its mass-matrix column would be zero.
    MovesNoMass,
    /// Its mimic leader (named) was locked.
    LeaderLocked(String),
}

/// A joint welded at a value.
#[derive(Clone, Debug, PartialEq)]
pub struct LockedJoint {
    /// Joint name.
    pub joint: String,
    /// The value it is welded at.
    pub value: f64,
    /// Why.
    pub reason: LockReason,
}

/// Where an old body ends up: on new body `body` (`None` = the world) at `placement`.
#[derive(Clone, Copy)]
struct Attach {
    body: Option<usize>,
    placement: Transform,
}

impl Model {
    /// The value a joint is locked at when none is given: 0 when the limits allow it, else the
    /// middle of the range (or its finite end).
    pub fn default_lock_value(&self, i: usize) -> f64 {
        let l = &self.joints[i].limits;
        if l.lower <= 0.0 && 0.0 <= l.upper {
            0.0
        } else if l.lower.is_finite() && l.upper.is_finite() {
            0.5 * (l.lower + l.upper)
        } else if l.lower.is_finite() {
            l.lower
        } else {
            l.upper
        }
    }

    /// The reduced model with the named joints welded at the given values (`None`: the
    /// [`Model::default_lock_value`]). Followers of a locked mimic leader are locked at their
    /// coupled value; a locked follower loses its coupling.
    ///
    /// # Errors
    /// A name that is not a non-base joint, or a value outside the joint's limits.
    pub fn locked(&self, locks: &[(String, Option<f64>)]) -> Result<Model, String> {
        let mut requests = Vec::new();
        for (name, value) in locks {
            let i = match self.joint_index(name) {
                Some(i) if !self.joints[i].is_base => i,
                Some(_) => {
                    return Err(format!(
                        "'{name}' is a base joint; choose the base with --base instead"
                    ));
                }
                None => {
                    return Err(format!(
                        "'{name}' is not a joint of robot '{}' (joints: {})",
                        self.name,
                        self.joint_names().join(", ")
                    ));
                }
            };
            let v = value.unwrap_or_else(|| self.default_lock_value(i));
            let l = &self.joints[i].limits;
            if !(v.is_finite() && l.lower <= v && v <= l.upper) {
                return Err(format!(
                    "joint '{name}' cannot be locked at {v}: its limits are [{}, {}]",
                    l.lower, l.upper
                ));
            }
            requests.push((i, v, LockReason::Requested));
        }
        Ok(self.locked_at(requests))
    }

    /// [`Model::locked`] for validated `(joint, value, reason)` requests.
    pub(crate) fn locked_at(&self, mut requests: Vec<(usize, f64, LockReason)>) -> Model {
        let n = self.dof();
        let mut value: Vec<Option<f64>> = vec![None; n];
        for (i, v, _) in &requests {
            value[*i] = Some(*v);
        }
        for c in &self.couplings {
            if let (Some(vl), None) = (value[c.leader], value[c.follower]) {
                let v = c.follower_value(vl);
                value[c.follower] = Some(v);
                let leader = self.joints[c.leader].name.clone();
                requests.push((c.follower, v, LockReason::LeaderLocked(leader)));
            }
        }
        let mut joints: Vec<Joint> = Vec::new();
        let mut new_index = vec![None; n];
        let mut att: Vec<Attach> = Vec::with_capacity(n);
        for (i, j) in self.joints.iter().enumerate() {
            let p = j.parent.map_or(
                Attach {
                    body: None,
                    placement: Transform::identity(),
                },
                |p| att[p],
            );
            let placement = p.placement.compose(&j.placement);
            match value[i] {
                Some(v) => att.push(Attach {
                    body: p.body,
                    placement: placement.compose(&exp_twist(&j.twist, v)),
                }),
                None => {
                    new_index[i] = Some(joints.len());
                    att.push(Attach {
                        body: Some(joints.len()),
                        placement: Transform::identity(),
                    });
                    joints.push(Joint {
                        parent: p.body,
                        placement,
                        inertia: Mat6::zeros(),
                        mass: 0.0,
                        com: Vec3::zeros(),
                        ..j.clone()
                    });
                }
            }
        }
        let mut first_moment = vec![Vec3::zeros(); joints.len()];
        for (j, a) in self.joints.iter().zip(&att) {
            if let Some(b) = a.body {
                joints[b].inertia += transform_inertia(&a.placement, &j.inertia);
                joints[b].mass += j.mass;
                first_moment[b] += j.mass * a.placement.transform_point(&j.com);
            }
        }
        for (j, fm) in joints.iter_mut().zip(&first_moment) {
            j.com = if j.mass > 0.0 {
                fm / j.mass
            } else {
                Vec3::zeros()
            };
        }
        let frames = self
            .frames
            .iter()
            .filter_map(|f| {
                let a = att[f.body];
                a.body.map(|body| Frame {
                    name: f.name.clone(),
                    body,
                    placement: a.placement.compose(&f.placement),
                })
            })
            .collect();
        let contacts = self
            .contacts
            .iter()
            .filter_map(|c| {
                let a = att[c.body];
                a.body.map(|body| super::ContactPoint {
                    name: c.name.clone(),
                    body,
                    offset: a.placement.transform_point(&c.offset),
                    radius: c.radius,
                })
            })
            .collect();
        let couplings = self
            .couplings
            .iter()
            .filter_map(|c| {
                Some(Coupling {
                    follower: new_index[c.follower]?,
                    leader: new_index[c.leader]?,
                    ..*c
                })
            })
            .collect();
        let mut report: ModelReport = self.report.clone();
        requests.sort_by_key(|r| r.0);
        for (i, v, reason) in requests {
            let into = att[i]
                .body
                .map_or("world".to_string(), |b| joints[b].body.clone());
            report.merged.push((self.joints[i].body.clone(), into));
            report.locked.push(LockedJoint {
                joint: self.joints[i].name.clone(),
                value: v,
                reason,
            });
        }
        Model::new(self.name.clone(), self.base, joints, contacts, frames)
            .with_parts(couplings, report)
            .with_gravity(self.gravity)
    }
}

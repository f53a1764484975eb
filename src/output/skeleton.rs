//! The stick figure of a robot, as segments between points fixed on its bodies: what the
//! filmstrip, the animation and the 3-D viewer draw where a body has no solid shape.
//!
//! Each body gets segments from its parent's joint origin (the world origin on a fixed base) to
//! its own and from its joint origin to its contact points and named frames, with an outline
//! through the contact points of a body that has several (a sole); the root link of a moving
//! base and a body from which nothing else leaves also get a segment to their centre of mass.
//! Segments of zero length at `q = 0` are left out. Limbs on the robot's left (+y at `q = 0`)
//! are [`Side::Left`], those on its right [`Side::Right`], the rest [`Side::Middle`].

use crate::dynamics::{Workspace, forward_kinematics};
use crate::model::Model;
use crate::spatial::Vec3;

/// Shortest segment kept, and the |y| beyond which a body is on one side (m).
const TOLERANCE: f64 = 1e-9;
const SIDE_Y: f64 = 1e-4;

/// The side of the robot a body is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Side {
    Left,
    Middle,
    Right,
}

impl Side {
    /// The colour of the side's limbs, as RGB.
    pub(super) fn rgb(self) -> (u8, u8, u8) {
        match self {
            Side::Left => (31, 119, 180),
            Side::Middle => (64, 64, 64),
            Side::Right => (255, 127, 14),
        }
    }

    /// The colour of the side's solid shapes: that of its limbs, the middle a lighter grey
    /// (a trunk of solid dark grey hides its own edges).
    pub(super) fn solid_rgb(self) -> (u8, u8, u8) {
        match self {
            Side::Middle => (128, 128, 128),
            other => other.rgb(),
        }
    }
}

/// A point fixed on a body, or on the world (`body: None`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Anchor {
    /// Body index.
    pub body: Option<usize>,
    /// Position in the body frame (world frame for the world).
    pub offset: Vec3,
}

impl Anchor {
    /// The origin of body `i`.
    pub(super) fn origin(body: usize) -> Self {
        Self {
            body: Some(body),
            offset: Vec3::zeros(),
        }
    }

    /// Its world position at the pose in `ws`.
    pub(super) fn world(&self, ws: &Workspace) -> Vec3 {
        self.body.map_or(self.offset, |i| {
            ws.body_pose(i).transform_point(&self.offset)
        })
    }
}

/// A segment of the stick figure.
#[derive(Clone, Copy, Debug)]
pub(super) struct Segment {
    /// Start: on the body whose link the segment depicts (or the world).
    pub a: Anchor,
    /// End.
    pub b: Anchor,
    /// Side of the body it depicts.
    pub side: Side,
}

/// The stick figure of a model.
#[derive(Clone, Debug)]
pub(super) struct Skeleton {
    /// The segments.
    pub bones: Vec<Segment>,
    /// Outlines through the contact points of each body with several (e.g. a sole).
    pub soles: Vec<(Side, Vec<Anchor>)>,
    /// The origins of the non-base joints.
    pub joints: Vec<Anchor>,
    /// The contact points, in the model's order.
    pub contacts: Vec<Anchor>,
    /// The root link's origin (the world origin for a fixed base).
    pub root: Anchor,
    /// The side of each body.
    pub sides: Vec<Side>,
}

impl Skeleton {
    /// The stick figure of `model` (`ws` is its workspace, left at `q = 0`).
    pub(super) fn new(model: &Model, ws: &mut Workspace) -> Self {
        forward_kinematics(model, ws, &vec![0.0; model.dof()]);
        let sides: Vec<Side> = (0..model.dof())
            .map(|i| {
                let y = ws.body_pose(i).translation.y;
                if y > SIDE_Y {
                    Side::Left
                } else if y < -SIDE_Y {
                    Side::Right
                } else {
                    Side::Middle
                }
            })
            .collect();
        let mut bones = Vec::new();
        let mut joints = Vec::new();
        for (i, joint) in model.joints().iter().enumerate() {
            if !joint.is_base {
                joints.push(Anchor::origin(i));
                let a = joint.parent.map_or(
                    Anchor {
                        body: None,
                        offset: Vec3::zeros(),
                    },
                    Anchor::origin,
                );
                bones.push(Segment {
                    a,
                    b: Anchor::origin(i),
                    side: sides[i],
                });
            }
        }
        let mut contacts = Vec::new();
        let mut soles: Vec<(usize, Vec<Anchor>)> = Vec::new();
        for c in model.contact_points() {
            let p = Anchor {
                body: Some(c.body),
                offset: c.offset,
            };
            contacts.push(p);
            bones.push(Segment {
                a: Anchor::origin(c.body),
                b: p,
                side: sides[c.body],
            });
            match soles.iter_mut().find(|(body, _)| *body == c.body) {
                Some((_, sole)) => sole.push(p),
                None => soles.push((c.body, vec![p])),
            }
        }
        for f in model.frames() {
            bones.push(Segment {
                a: Anchor::origin(f.body),
                b: Anchor {
                    body: Some(f.body),
                    offset: f.placement.translation,
                },
                side: sides[f.body],
            });
        }
        bones.retain(|b| (b.a.world(ws) - b.b.world(ws)).norm() > TOLERANCE);
        let root_body = model.base().dof().checked_sub(1);
        let mut mass_bones = Vec::new();
        for (i, joint) in model.joints().iter().enumerate() {
            let leaf = !bones.iter().any(|b| b.a.body == Some(i));
            if joint.mass > 0.0 && (leaf || Some(i) == root_body) && joint.com.norm() > TOLERANCE {
                mass_bones.push(Segment {
                    a: Anchor::origin(i),
                    b: Anchor {
                        body: Some(i),
                        offset: joint.com,
                    },
                    side: sides[i],
                });
            }
        }
        bones.extend(mass_bones);
        Skeleton {
            bones,
            soles: soles
                .into_iter()
                .filter(|(_, sole)| sole.len() > 1)
                .map(|(body, sole)| (sides[body], sole))
                .collect(),
            joints,
            contacts,
            root: root_body.map_or(
                Anchor {
                    body: None,
                    offset: Vec3::zeros(),
                },
                Anchor::origin,
            ),
            sides,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BaseKind, load_urdf};
    use std::path::Path;

    #[test]
    fn humanoid_limbs_have_sides_and_soles() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("robots/humanoid.urdf");
        let model = load_urdf(path, BaseKind::Floating).unwrap();
        let mut ws = Workspace::new(&model);
        let s = Skeleton::new(&model, &mut ws);
        let knee = |n: &str| s.sides[model.joint_index(n).unwrap()];
        assert_eq!(knee("l_leg_kny"), Side::Left);
        assert_eq!(knee("r_leg_kny"), Side::Right);
        assert_eq!(knee("back_bkz"), Side::Middle);
        assert_eq!(s.soles.len(), 2, "two feet with four sole corners each");
        assert!(s.soles.iter().all(|(_, sole)| sole.len() == 4));
        assert_eq!(s.joints.len(), 24, "the virtual base joints have no marker");
        assert_eq!(s.contacts.len(), model.contact_points().len());
        assert_eq!(s.root.body, Some(5), "the pelvis is the sixth body");
        assert!(s.bones.iter().all(|b| b.a != b.b));
    }
}

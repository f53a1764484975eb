//! URDF import (via `urdf-rs`) into a [`Model`].
//!
//! What is read:
//! - `revolute`, `continuous` and `prismatic` joints become model joints; `fixed` joints merge
//!   the child link into its parent body (spatial inertia lumped, frames composed, contact points
//!   and the link's frame kept). `floating`, `planar` and `spherical` URDF joints and `<mimic>`
//!   are refused: choose the base with [`BaseKind`] instead.
//! - Joint axes of any length are normalised (a zero axis is refused). Limits: a revolute or
//!   prismatic joint whose `<limit>` has `lower = upper = 0` (or none) is unbounded in position;
//!   an `effort` or `velocity` of 0 (or none) means no limit.
//! - `<inertial>`: origin `xyz` and `rpy`, mass and the inertia tensor about the centre of mass in
//!   the rotated frame. A link without `<inertial>` is massless; a link with one must have a
//!   positive mass and a physically possible inertia (positive semi-definite, principal moments
//!   obeying the triangle inequality `I₁ + I₂ ≥ I₃`; a thin rod's zero axial moment is fine).
//! - `<dynamics damping=".." spring_stiffness=".." spring_reference=".."/>` gives viscous damping
//!   and an optional linear joint spring (the spring attribute names follow SDF).
//! - Actuation: if the file has `<transmission>` elements, exactly the joints named in them are
//!   actuated; otherwise every joint is.
//! - **Contact points** are declared as `<collision>` elements with a `<sphere>` geometry: the
//!   sphere centre (collision origin) is the point, its radius is kept, and the collision's
//!   `name` attribute names it (default `<link>_contact<k>`). A flat foot gets four small spheres
//!   at its sole corners; a point foot one.
//! - **Named frames**: every link is a frame (`Model::frame("l_palm")`), including links merged
//!   by fixed joints, so a palm or tool frame is a massless link on a fixed joint. Links welded
//!   to the world by a fixed base carry no frame.
//!
//! Bodies are numbered depth-first from the root, children in the order their joints appear in
//! the file. The root must be unique.

use super::{BaseKind, ContactPoint, Frame, Joint, JointKind, JointLimits, Model, Spring};
use crate::spatial::{Mat3, Mat6, Transform, Vec3, spatial_inertia, stack, transform_inertia};
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// A URDF that cannot be read or is not a valid vito robot. Every message names the file and
/// the joint or link at fault.
#[derive(Debug, thiserror::Error)]
pub enum UrdfError {
    /// The file could not be read.
    #[error("{path}: cannot read the URDF: {source}")]
    Read {
        /// The file.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The XML is malformed or does not follow the URDF schema.
    #[error("{path}: not a valid URDF: {message}")]
    Parse {
        /// The file.
        path: String,
        /// The parser's message.
        message: String,
    },
    /// A feature vito does not model.
    #[error("{path}: joint '{joint}': {what} is not supported; {hint}")]
    Unsupported {
        /// The file.
        path: String,
        /// The joint.
        joint: String,
        /// What was found.
        what: String,
        /// What to do instead.
        hint: String,
    },
    /// A joint refers to a link that does not exist.
    #[error("{path}: joint '{joint}': its {role} link '{link}' does not exist")]
    MissingLink {
        /// The file.
        path: String,
        /// The joint.
        joint: String,
        /// `parent` or `child`.
        role: &'static str,
        /// The missing link name.
        link: String,
    },
    /// The links and joints do not form a single tree.
    #[error("{path}: {message}")]
    Tree {
        /// The file.
        path: String,
        /// What is wrong, naming the links or joints.
        message: String,
    },
    /// A link's mass or inertia is not physically possible.
    #[error("{path}: link '{link}': {message}")]
    Inertia {
        /// The file.
        path: String,
        /// The link.
        link: String,
        /// What is wrong.
        message: String,
    },
    /// A joint's axis, limits, damping or spring are invalid.
    #[error("{path}: joint '{joint}': {message}")]
    Joint {
        /// The file.
        path: String,
        /// The joint.
        joint: String,
        /// What is wrong.
        message: String,
    },
}

/// Reads a URDF file into a model with the given base.
///
/// # Errors
/// See [`UrdfError`].
pub fn load_urdf(path: impl AsRef<Path>, base: BaseKind) -> Result<Model, UrdfError> {
    let p = path.as_ref();
    let name = p.display().to_string();
    let text = std::fs::read_to_string(p).map_err(|source| UrdfError::Read {
        path: name.clone(),
        source,
    })?;
    parse_urdf(&text, &name, base)
}

/// Parses URDF text into a model; `source` names the text in error messages.
///
/// # Errors
/// See [`UrdfError`].
pub fn parse_urdf(text: &str, source: &str, base: BaseKind) -> Result<Model, UrdfError> {
    let extras = scan_extras(text).map_err(|message| UrdfError::Parse {
        path: source.to_string(),
        message,
    })?;
    let robot = urdf_rs::read_from_string(text).map_err(|e| UrdfError::Parse {
        path: source.to_string(),
        message: e.to_string(),
    })?;
    Builder {
        path: source,
        robot: &robot,
        extras: &extras,
    }
    .build(base)
}

/// What `urdf-rs` does not expose: which links declare `<inertial>`, joint springs, and the
/// joints named by transmissions.
#[derive(Default)]
struct Extras {
    links_with_inertial: HashSet<String>,
    springs: HashMap<String, (Option<String>, Option<String>)>,
    transmitted: Vec<String>,
    has_transmissions: bool,
}

fn scan_extras(text: &str) -> Result<Extras, String> {
    use quick_xml::events::{BytesStart, Event};
    let mut reader = quick_xml::Reader::from_str(text);
    let mut extras = Extras::default();
    // Stack of open element names with the `name` attribute of robot-level links and joints.
    let mut stack: Vec<(Vec<u8>, Option<String>)> = Vec::new();
    let attr = |e: &BytesStart, key: &str| -> Result<Option<String>, String> {
        match e.try_get_attribute(key).map_err(|x| x.to_string())? {
            Some(a) => Ok(Some(
                a.unescape_value().map_err(|x| x.to_string())?.into_owned(),
            )),
            None => Ok(None),
        }
    };
    loop {
        let event = reader
            .read_event()
            .map_err(|e| format!("XML error at byte {}: {e}", reader.error_position()))?;
        let (start, empty) = match &event {
            Event::Start(e) => (Some(e), false),
            Event::Empty(e) => (Some(e), true),
            Event::End(_) => {
                stack.pop();
                continue;
            }
            Event::Eof => break,
            _ => continue,
        };
        let Some(e) = start else { continue };
        let tag = e.name().as_ref().to_vec();
        let parent_tag = stack.last().map(|(t, _)| t.as_slice());
        let in_robot = stack.len() == 1;
        let name = attr(e, "name")?;
        match (tag.as_slice(), parent_tag) {
            (b"inertial", Some(b"link")) => {
                if let Some((_, Some(link))) = stack.last() {
                    extras.links_with_inertial.insert(link.clone());
                }
            }
            (b"dynamics", Some(b"joint")) => {
                if let Some((_, Some(joint))) = stack.last() {
                    let k = attr(e, "spring_stiffness")?;
                    let r = attr(e, "spring_reference")?;
                    if k.is_some() || r.is_some() {
                        extras.springs.insert(joint.clone(), (k, r));
                    }
                }
            }
            (b"transmission", _) if in_robot => extras.has_transmissions = true,
            (b"joint", Some(b"transmission")) => {
                if let Some(n) = &name {
                    extras.transmitted.push(n.clone());
                }
            }
            _ => {}
        }
        if !empty {
            let keep = in_robot || stack.is_empty();
            stack.push((tag, if keep { name } else { None }));
        }
    }
    Ok(extras)
}

/// Where a URDF link ends up: on model body `body` (`None` = the world) at `placement`.
#[derive(Clone, Copy)]
struct Attachment {
    body: Option<usize>,
    placement: Transform,
}

/// Accumulates lumped inertia per body.
#[derive(Clone)]
struct Lump {
    inertia: Mat6,
    mass: f64,
    first_moment: Vec3,
}

struct Builder<'a> {
    path: &'a str,
    robot: &'a urdf_rs::Robot,
    extras: &'a Extras,
}

impl Builder<'_> {
    fn err_tree(&self, message: String) -> UrdfError {
        UrdfError::Tree {
            path: self.path.to_string(),
            message,
        }
    }

    fn err_joint(&self, joint: &str, message: String) -> UrdfError {
        UrdfError::Joint {
            path: self.path.to_string(),
            joint: joint.to_string(),
            message,
        }
    }

    fn build(&self, base: BaseKind) -> Result<Model, UrdfError> {
        let robot = self.robot;
        let link_index: HashMap<&str, usize> = {
            let mut m = HashMap::new();
            for (i, l) in robot.links.iter().enumerate() {
                if m.insert(l.name.as_str(), i).is_some() {
                    return Err(self.err_tree(format!("link '{}' is defined twice", l.name)));
                }
            }
            m
        };
        if robot.links.is_empty() {
            return Err(self.err_tree("the robot has no links".into()));
        }
        let mut seen_joints = HashSet::new();
        let mut parent_joint: Vec<Option<usize>> = vec![None; robot.links.len()];
        let mut child_joints: Vec<Vec<usize>> = vec![Vec::new(); robot.links.len()];
        for (ji, j) in robot.joints.iter().enumerate() {
            if !seen_joints.insert(j.name.as_str()) {
                return Err(self.err_joint(&j.name, "defined twice".into()));
            }
            self.check_joint_kind(j)?;
            let missing = |role: &'static str, link: &str| UrdfError::MissingLink {
                path: self.path.to_string(),
                joint: j.name.clone(),
                role,
                link: link.to_string(),
            };
            let &p = link_index
                .get(j.parent.link.as_str())
                .ok_or_else(|| missing("parent", &j.parent.link))?;
            let &c = link_index
                .get(j.child.link.as_str())
                .ok_or_else(|| missing("child", &j.child.link))?;
            if let Some(other) = parent_joint[c] {
                return Err(self.err_tree(format!(
                    "link '{}' is the child of both joint '{}' and joint '{}'",
                    j.child.link, robot.joints[other].name, j.name
                )));
            }
            parent_joint[c] = Some(ji);
            child_joints[p].push(ji);
        }
        let roots: Vec<usize> = (0..robot.links.len())
            .filter(|&l| parent_joint[l].is_none())
            .collect();
        let root = match roots.as_slice() {
            [r] => *r,
            [] => return Err(self.err_tree("the joints form a cycle: no root link".into())),
            many => {
                let names: Vec<&str> = many.iter().map(|&l| robot.links[l].name.as_str()).collect();
                return Err(self.err_tree(format!(
                    "several root links ({}): a robot must be one tree",
                    names.join(", ")
                )));
            }
        };
        for l in &robot.links {
            self.check_inertia(l)?;
        }

        let mut joints: Vec<Joint> = Vec::new();
        let mut lumps: Vec<Lump> = Vec::new();
        let root_name = robot.links[root].name.clone();
        let root_body = self.add_base_joints(base, &root_name, &mut joints, &mut lumps);

        let mut attachments: Vec<Option<Attachment>> = vec![None; robot.links.len()];
        attachments[root] = Some(Attachment {
            body: root_body,
            placement: Transform::identity(),
        });
        let mut order = vec![root];
        // Depth-first traversal; children in file order.
        let mut stack: Vec<usize> = child_joints[root].iter().rev().copied().collect();
        while let Some(ji) = stack.pop() {
            let j = &robot.joints[ji];
            let parent_att = attachments[link_index[j.parent.link.as_str()]]
                .ok_or_else(|| self.err_tree(format!("joint '{}' is unreachable", j.name)))?;
            let c = link_index[j.child.link.as_str()];
            let origin = pose(&j.origin);
            let att = if j.joint_type == urdf_rs::JointType::Fixed {
                Attachment {
                    body: parent_att.body,
                    placement: parent_att.placement.compose(&origin),
                }
            } else {
                let body = joints.len();
                joints.push(self.make_joint(j, parent_att, origin)?);
                lumps.push(Lump::zero());
                Attachment {
                    body: Some(body),
                    placement: Transform::identity(),
                }
            };
            attachments[c] = Some(att);
            order.push(c);
            stack.extend(child_joints[c].iter().rev().copied());
        }
        if order.len() != robot.links.len() {
            let lost: Vec<&str> = (0..robot.links.len())
                .filter(|l| attachments[*l].is_none())
                .map(|l| robot.links[l].name.as_str())
                .collect();
            return Err(self.err_tree(format!(
                "links not connected to the root '{}': {}",
                root_name,
                lost.join(", ")
            )));
        }

        let mut contacts = Vec::new();
        let mut frames = Vec::new();
        for &l in &order {
            let link = &robot.links[l];
            let Some(att) = attachments[l] else { continue };
            let Some(body) = att.body else { continue };
            lumps[body].add(&att.placement, link, self.has_inertial(link));
            frames.push(Frame {
                name: link.name.clone(),
                body,
                placement: att.placement,
            });
            let mut k = 0;
            for c in &link.collision {
                if let urdf_rs::Geometry::Sphere { radius } = c.geometry {
                    if !(radius >= 0.0 && radius.is_finite()) {
                        return Err(UrdfError::Inertia {
                            path: self.path.to_string(),
                            link: link.name.clone(),
                            message: format!("contact sphere radius {radius} is not a length"),
                        });
                    }
                    let name = c
                        .name
                        .clone()
                        .unwrap_or_else(|| format!("{}_contact{k}", link.name));
                    k += 1;
                    contacts.push(ContactPoint {
                        name,
                        body,
                        offset: att.placement.transform_point(&vec3(&c.origin.xyz.0)),
                        radius,
                    });
                }
            }
        }
        for (j, lump) in joints.iter_mut().zip(&lumps) {
            j.inertia = lump.inertia;
            j.mass = lump.mass;
            j.com = if lump.mass > 0.0 {
                lump.first_moment / lump.mass
            } else {
                Vec3::zeros()
            };
        }
        self.check_moves_mass(&joints)?;
        if self.extras.has_transmissions {
            for name in &self.extras.transmitted {
                if !joints.iter().any(|j| &j.name == name) {
                    return Err(self.err_joint(
                        name,
                        "named by a <transmission> but not a revolute, continuous or prismatic joint"
                            .into(),
                    ));
                }
            }
            for j in joints.iter_mut().filter(|j| !j.is_base) {
                j.actuated = self.extras.transmitted.contains(&j.name);
            }
        }
        Ok(Model::new(
            robot.name.clone(),
            base,
            joints,
            contacts,
            frames,
        ))
    }

    fn check_joint_kind(&self, j: &urdf_rs::Joint) -> Result<(), UrdfError> {
        use urdf_rs::JointType as T;
        let unsupported = |what: String, hint: &str| UrdfError::Unsupported {
            path: self.path.to_string(),
            joint: j.name.clone(),
            what,
            hint: hint.to_string(),
        };
        if j.mimic.is_some() {
            return Err(unsupported(
                "a <mimic> joint".into(),
                "model the coupling as a constraint or make the joint independent",
            ));
        }
        match j.joint_type {
            T::Floating | T::Planar => Err(unsupported(
                format!("joint type '{:?}'", j.joint_type).to_lowercase(),
                "remove it and choose the base with --base planar|floating",
            )),
            T::Spherical => Err(unsupported(
                "joint type 'spherical'".into(),
                "replace it with three revolute joints",
            )),
            _ => Ok(()),
        }
    }

    fn has_inertial(&self, link: &urdf_rs::Link) -> bool {
        self.extras.links_with_inertial.contains(&link.name)
    }

    fn check_inertia(&self, link: &urdf_rs::Link) -> Result<(), UrdfError> {
        let bad = |message: String| UrdfError::Inertia {
            path: self.path.to_string(),
            link: link.name.clone(),
            message,
        };
        let i = &link.inertial;
        if !self.has_inertial(link) {
            return Ok(());
        }
        let m = i.mass.value;
        if !(m > 0.0 && m.is_finite()) {
            return Err(bad(format!("mass must be positive, got {m}")));
        }
        let t = &i.inertia;
        let vals = [t.ixx, t.ixy, t.ixz, t.iyy, t.iyz, t.izz];
        if vals.iter().any(|v| !v.is_finite()) {
            return Err(bad("inertia has a non-finite entry".into()));
        }
        let tensor = Mat3::new(
            t.ixx, t.ixy, t.ixz, t.ixy, t.iyy, t.iyz, t.ixz, t.iyz, t.izz,
        );
        let mut eig: Vec<f64> = tensor.symmetric_eigenvalues().iter().copied().collect();
        eig.sort_by(f64::total_cmp);
        let scale = eig[2].abs().max(f64::MIN_POSITIVE);
        let tol = 1e-9 * scale;
        if eig[0] < -tol {
            return Err(bad(format!(
                "inertia is not positive semi-definite (principal moments {:.6e}, {:.6e}, {:.6e})",
                eig[0], eig[1], eig[2]
            )));
        }
        if eig[0] + eig[1] < eig[2] - 1e-6 * scale {
            return Err(bad(format!(
                "inertia breaks the triangle inequality: principal moments {:.6e} + {:.6e} < {:.6e}",
                eig[0], eig[1], eig[2]
            )));
        }
        Ok(())
    }

    fn make_joint(
        &self,
        j: &urdf_rs::Joint,
        parent: Attachment,
        origin: Transform,
    ) -> Result<Joint, UrdfError> {
        use urdf_rs::JointType as T;
        let a = vec3(&j.axis.xyz.0);
        let norm = a.norm();
        if !(norm > 1e-12 && norm.is_finite()) {
            return Err(
                self.err_joint(&j.name, format!("axis {:?} has no direction", j.axis.xyz.0))
            );
        }
        let axis = a / norm;
        let kind = if j.joint_type == T::Prismatic {
            JointKind::Prismatic
        } else {
            JointKind::Revolute
        };
        let l = &j.limit;
        let (lower, upper) = if j.joint_type == T::Continuous || (l.lower == 0.0 && l.upper == 0.0)
        {
            (f64::NEG_INFINITY, f64::INFINITY)
        } else {
            (l.lower, l.upper)
        };
        if lower.is_nan() || upper.is_nan() || lower > upper {
            return Err(self.err_joint(
                &j.name,
                format!("lower limit {lower} exceeds upper limit {upper}"),
            ));
        }
        let positive_or_inf = |v: f64| if v > 0.0 { v } else { f64::INFINITY };
        let damping = j.dynamics.as_ref().map_or(0.0, |d| d.damping);
        if !(damping >= 0.0 && damping.is_finite()) {
            return Err(self.err_joint(&j.name, format!("damping {damping} is negative")));
        }
        let spring = match self.extras.springs.get(&j.name) {
            None => None,
            Some((k, r)) => {
                let parse = |s: &Option<String>, what: &str| -> Result<f64, UrdfError> {
                    match s {
                        None => Ok(0.0),
                        Some(s) => s.trim().parse::<f64>().map_err(|_| {
                            self.err_joint(&j.name, format!("{what} '{s}' is not a number"))
                        }),
                    }
                };
                let stiffness = parse(k, "spring_stiffness")?;
                let rest = parse(r, "spring_reference")?;
                if !(stiffness >= 0.0 && stiffness.is_finite() && rest.is_finite()) {
                    return Err(self.err_joint(
                        &j.name,
                        format!("spring_stiffness {stiffness} must be a non-negative number"),
                    ));
                }
                Some(Spring { stiffness, rest })
            }
        };
        let twist = match kind {
            JointKind::Revolute => stack(&axis, &Vec3::zeros()),
            JointKind::Prismatic => stack(&Vec3::zeros(), &axis),
        };
        Ok(Joint {
            name: j.name.clone(),
            body: j.child.link.clone(),
            kind,
            parent: parent.body,
            placement: parent.placement.compose(&origin),
            axis,
            twist,
            inertia: Mat6::zeros(),
            mass: 0.0,
            com: Vec3::zeros(),
            limits: JointLimits {
                lower,
                upper,
                velocity: positive_or_inf(l.velocity),
                effort: positive_or_inf(l.effort),
            },
            actuated: true,
            spring,
            damping,
            is_base: false,
        })
    }

    /// Adds the virtual base joints; returns the body the root link sits on.
    fn add_base_joints(
        &self,
        base: BaseKind,
        root_name: &str,
        joints: &mut Vec<Joint>,
        lumps: &mut Vec<Lump>,
    ) -> Option<usize> {
        let (x, y, z) = (Vec3::x(), Vec3::y(), Vec3::z());
        let chain: &[(&str, JointKind, Vec3)] = match base {
            BaseKind::Fixed => return None,
            BaseKind::Planar => &[
                ("base_x", JointKind::Prismatic, x),
                ("base_z", JointKind::Prismatic, z),
                ("base_pitch", JointKind::Revolute, y),
            ],
            BaseKind::Floating => &[
                ("base_x", JointKind::Prismatic, x),
                ("base_y", JointKind::Prismatic, y),
                ("base_z", JointKind::Prismatic, z),
                ("base_yaw", JointKind::Revolute, z),
                ("base_pitch", JointKind::Revolute, y),
                ("base_roll", JointKind::Revolute, x),
            ],
        };
        for (k, (name, kind, axis)) in chain.iter().enumerate() {
            let last = k + 1 == chain.len();
            let twist = match kind {
                JointKind::Revolute => stack(axis, &Vec3::zeros()),
                JointKind::Prismatic => stack(&Vec3::zeros(), axis),
            };
            joints.push(Joint {
                name: (*name).to_string(),
                body: if last {
                    root_name.to_string()
                } else {
                    format!("{name}_link")
                },
                kind: *kind,
                parent: k.checked_sub(1),
                placement: Transform::identity(),
                axis: *axis,
                twist,
                inertia: Mat6::zeros(),
                mass: 0.0,
                com: Vec3::zeros(),
                limits: JointLimits::UNLIMITED,
                actuated: false,
                spring: None,
                damping: 0.0,
                is_base: true,
            });
            lumps.push(Lump::zero());
        }
        Some(joints.len() - 1)
    }

    /// Refuses joints that carry no mass and no inertia at all (massless links only): their
    /// mass matrix would be singular everywhere.
    fn check_moves_mass(&self, joints: &[Joint]) -> Result<(), UrdfError> {
        let n = joints.len();
        let mut composite: Vec<Mat6> = joints.iter().map(|j| j.inertia).collect();
        for i in (0..n).rev() {
            if let Some(p) = joints[i].parent {
                let c = transform_inertia(&joints[i].placement, &composite[i]);
                composite[p] += c;
            }
        }
        for (j, c) in joints.iter().zip(&composite) {
            if c.amax() == 0.0 {
                return Err(self.err_joint(
                    &j.name,
                    "moves no mass: every link it carries is massless, so the mass matrix would \
                     be singular"
                        .into(),
                ));
            }
        }
        Ok(())
    }
}

impl Lump {
    fn zero() -> Self {
        Self {
            inertia: Mat6::zeros(),
            mass: 0.0,
            first_moment: Vec3::zeros(),
        }
    }

    /// Adds a link's inertia, the link frame being `placement` in the body frame.
    fn add(&mut self, placement: &Transform, link: &urdf_rs::Link, has_inertial: bool) {
        if !has_inertial {
            return;
        }
        let i = &link.inertial;
        let frame = placement.compose(&pose(&i.origin));
        let t = &i.inertia;
        let tensor = Mat3::new(
            t.ixx, t.ixy, t.ixz, t.ixy, t.iyy, t.iyz, t.ixz, t.iyz, t.izz,
        );
        let m = i.mass.value;
        let local = spatial_inertia(m, &Vec3::zeros(), &tensor);
        self.inertia += transform_inertia(&frame, &local);
        self.mass += m;
        self.first_moment += m * frame.translation;
    }
}

fn vec3(a: &[f64; 3]) -> Vec3 {
    Vec3::new(a[0], a[1], a[2])
}

fn pose(p: &urdf_rs::Pose) -> Transform {
    Transform::from_xyz_rpy(p.xyz.0, p.rpy.0)
}

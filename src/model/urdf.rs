//! URDF import into a [`Model`]: the document is read by the tolerant reader of
//! [`super::urdf_xml`], then checked and assembled here.
//!
//! What is read:
//! - `revolute`, `continuous` and `prismatic` joints become model joints; `fixed` joints merge
//!   the child link into its parent body (spatial inertia lumped, frames composed, contact points
//!   and the link's frame kept). `floating`, `planar` and `spherical` URDF joints are refused:
//!   choose the base with [`BaseKind`] instead.
//! - `<mimic joint="L" multiplier="m" offset="o"/>` keeps the joint as a joint of the tree and
//!   records the coupling `q = m q_L + o` ([`super::Coupling`]); chains of mimics are resolved to
//!   their first leader, a cycle is refused.
//! - Joint axes of any length are normalised (a zero axis is refused). Limits: a revolute or
//!   prismatic joint whose `<limit>` has `lower = upper = 0` (or none) is unbounded in position;
//!   an `effort` or `velocity` of 0 (or none) means no limit.
//! - `<inertial>`: origin `xyz` and `rpy`, mass and the inertia tensor about the centre of mass in
//!   the rotated frame. A link with no `<inertial>` or a zero mass is massless (a frame when it
//!   carries no inertia either); a negative or non-finite mass is refused. A link inertia that
//!   misses positive semi-definiteness or the triangle inequality beyond round-off
//!   ([`super::INERTIA_ROUND_OFF`]) is used as given with a warning per link; a body whose lumped
//!   inertia about its centre of mass is indefinite beyond
//!   [`super::INERTIA_INDEFINITE_TOLERANCE`] of its largest moment is refused. With
//!   [`UrdfOptions::fix_inertia`] each warned-about tensor is replaced by the nearest physical
//!   one ([`super::nearest_physical`]) and the change is reported.
//! - A joint whose whole subtree is massless would have a zero mass-matrix column: it is locked
//!   at its default value ([`Model::default_lock_value`]) with a warning naming it.
//! - `<dynamics damping=".." spring_stiffness=".." spring_reference=".."/>` gives viscous damping
//!   and an optional linear joint spring (the spring attribute names follow SDF).
//! - Actuation: if the file has `<transmission>` elements, exactly the moving joints named in
//!   them are actuated (a name that is not a moving joint is ignored with a warning); otherwise
//!   every joint is.
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

use super::urdf_xml::{self, Document, MeshFile, Primitive, ReadError};
use super::{
    BaseKind, ContactPoint, Coupling, Frame, INERTIA_INDEFINITE_TOLERANCE, INERTIA_ROUND_OFF,
    Joint, JointKind, JointLimits, LockReason, Model, ModelReport, Spring, inertia_defect,
    nearest_physical,
};
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
    /// The file is not a URDF (xacro, SDF, MJCF, …): the message says what to run.
    #[error("{path}: {message}")]
    NotUrdf {
        /// The file.
        path: String,
        /// What the file is and what to do.
        message: String,
    },
    /// The XML is malformed or a value vito reads is not a number.
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

/// How the URDF reader treats what it may repair.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UrdfOptions {
    /// Replace each inertia that misses physical consistency (within the tolerated amounts) by
    /// the nearest physical one, and report by how much it moved.
    pub fix_inertia: bool,
}

/// Reads a URDF file into a model with the given base.
///
/// # Errors
/// See [`UrdfError`].
pub fn load_urdf(path: impl AsRef<Path>, base: BaseKind) -> Result<Model, UrdfError> {
    load_urdf_with(path, base, &UrdfOptions::default())
}

/// [`load_urdf`] with options.
///
/// # Errors
/// See [`UrdfError`].
pub fn load_urdf_with(
    path: impl AsRef<Path>,
    base: BaseKind,
    options: &UrdfOptions,
) -> Result<Model, UrdfError> {
    let p = path.as_ref();
    let name = p.display().to_string();
    let text = std::fs::read_to_string(p).map_err(|source| UrdfError::Read {
        path: name.clone(),
        source,
    })?;
    parse_urdf_with(&text, &name, base, options)
}

/// Parses URDF text into a model; `source` names the text in error messages.
///
/// # Errors
/// See [`UrdfError`].
pub fn parse_urdf(text: &str, source: &str, base: BaseKind) -> Result<Model, UrdfError> {
    parse_urdf_with(text, source, base, &UrdfOptions::default())
}

/// [`parse_urdf`] with options.
///
/// # Errors
/// See [`UrdfError`].
pub fn parse_urdf_with(
    text: &str,
    source: &str,
    base: BaseKind,
    options: &UrdfOptions,
) -> Result<Model, UrdfError> {
    let doc = urdf_xml::read_document(text).map_err(|e| match e {
        ReadError::NotUrdf(message) => UrdfError::NotUrdf {
            path: source.to_string(),
            message,
        },
        ReadError::Invalid(message) => UrdfError::Parse {
            path: source.to_string(),
            message,
        },
    })?;
    Builder {
        path: source,
        doc: &doc,
        options: *options,
    }
    .build(base)
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

/// A link's inertial as used: the centre-of-mass frame in the link frame, the mass and the
/// rotational inertia about the centre of mass.
#[derive(Clone, Copy)]
struct LinkInertia {
    frame: Transform,
    mass: f64,
    tensor: Mat3,
}

struct Builder<'a> {
    path: &'a str,
    doc: &'a Document,
    options: UrdfOptions,
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

    fn err_link(&self, link: &str, message: String) -> UrdfError {
        UrdfError::Inertia {
            path: self.path.to_string(),
            link: link.to_string(),
            message,
        }
    }

    fn build(&self, base: BaseKind) -> Result<Model, UrdfError> {
        let doc = self.doc;
        let mut report = ModelReport::default();
        if doc.links.is_empty() {
            return Err(self.err_tree("the robot has no links".into()));
        }
        let mut link_index: HashMap<&str, usize> = HashMap::new();
        for (i, l) in doc.links.iter().enumerate() {
            if link_index.insert(l.name.as_str(), i).is_some() {
                return Err(self.err_tree(format!("link '{}' is defined twice", l.name)));
            }
        }
        let mut seen_joints = HashSet::new();
        let mut parent_joint: Vec<Option<usize>> = vec![None; doc.links.len()];
        let mut child_joints: Vec<Vec<usize>> = vec![Vec::new(); doc.links.len()];
        let mut ends = Vec::with_capacity(doc.joints.len());
        for (ji, j) in doc.joints.iter().enumerate() {
            if !seen_joints.insert(j.name.as_str()) {
                return Err(self.err_joint(&j.name, "defined twice".into()));
            }
            self.check_joint_kind(j)?;
            let end = |role: &'static str, link: &Option<String>| -> Result<usize, UrdfError> {
                let link = link.as_deref().ok_or_else(|| {
                    self.err_joint(&j.name, format!("has no <{role} link=\"…\"/>"))
                })?;
                link_index
                    .get(link)
                    .copied()
                    .ok_or_else(|| UrdfError::MissingLink {
                        path: self.path.to_string(),
                        joint: j.name.clone(),
                        role,
                        link: link.to_string(),
                    })
            };
            let p = end("parent", &j.parent)?;
            let c = end("child", &j.child)?;
            if let Some(other) = parent_joint[c] {
                return Err(self.err_tree(format!(
                    "link '{}' is the child of both joint '{}' and joint '{}'",
                    doc.links[c].name, doc.joints[other].name, j.name
                )));
            }
            parent_joint[c] = Some(ji);
            child_joints[p].push(ji);
            ends.push((p, c));
        }
        let roots: Vec<usize> = (0..doc.links.len())
            .filter(|&l| parent_joint[l].is_none())
            .collect();
        let root = match roots.as_slice() {
            [r] => *r,
            [] => return Err(self.err_tree(self.describe_loop(&parent_joint, &ends, 0))),
            many => {
                let names: Vec<&str> = many.iter().map(|&l| doc.links[l].name.as_str()).collect();
                return Err(self.err_tree(format!(
                    "several root links ({}): a robot must be one tree",
                    names.join(", ")
                )));
            }
        };
        let mut inertias = doc
            .links
            .iter()
            .map(|l| self.link_inertia(l))
            .collect::<Result<Vec<_>, _>>()?;

        let mut joints: Vec<Joint> = Vec::new();
        let mut lumps: Vec<Lump> = Vec::new();
        let root_name = doc.links[root].name.clone();
        let root_body = self.add_base_joints(base, &root_name, &mut joints, &mut lumps);

        let mut attachments: Vec<Option<Attachment>> = vec![None; doc.links.len()];
        attachments[root] = Some(Attachment {
            body: root_body,
            placement: Transform::identity(),
        });
        if root_body.is_none() {
            report.merged.push((root_name.clone(), "world".into()));
        }
        let mut order = vec![root];
        // Depth-first traversal; children in file order.
        let mut stack: Vec<usize> = child_joints[root].iter().rev().copied().collect();
        while let Some(ji) = stack.pop() {
            let j = &doc.joints[ji];
            let (p, c) = ends[ji];
            let parent_att = attachments[p]
                .ok_or_else(|| self.err_tree(format!("joint '{}' is unreachable", j.name)))?;
            let origin = pose(&j.origin);
            let att = if j.kind == "fixed" {
                let into = parent_att
                    .body
                    .map_or_else(|| "world".to_string(), |b| joints[b].body.clone());
                report.merged.push((doc.links[c].name.clone(), into));
                Attachment {
                    body: parent_att.body,
                    placement: parent_att.placement.compose(&origin),
                }
            } else {
                let body = joints.len();
                joints.push(self.make_joint(j, &doc.links[c].name, parent_att, origin)?);
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
        if order.len() != doc.links.len() {
            let lost: Vec<usize> = (0..doc.links.len())
                .filter(|l| attachments[*l].is_none())
                .collect();
            let names: Vec<&str> = lost.iter().map(|&l| doc.links[l].name.as_str()).collect();
            let message = if lost.iter().all(|&l| parent_joint[l].is_some()) {
                self.describe_loop(&parent_joint, &ends, lost[0])
            } else {
                format!(
                    "links not connected to the root '{}': {}",
                    root_name,
                    names.join(", ")
                )
            };
            return Err(self.err_tree(message));
        }

        let mut contacts = Vec::new();
        let mut frames = Vec::new();
        let mut used = Vec::new();
        for &l in &order {
            let link = &doc.links[l];
            let Some(att) = attachments[l] else { continue };
            let Some(body) = att.body else { continue };
            if let Some(li) = &mut inertias[l] {
                self.review_inertia(&link.name, li, &mut report);
                lumps[body].add(&att.placement, li);
                used.push((body, link.name.clone(), li.tensor));
            }
            frames.push(Frame {
                name: link.name.clone(),
                body,
                placement: att.placement,
            });
            let mut k = 0;
            for sphere in &link.collisions {
                let Some(Primitive::Sphere(radius)) = sphere.geometry else {
                    continue;
                };
                if !(radius >= 0.0 && radius.is_finite()) {
                    return Err(self.err_link(
                        &link.name,
                        format!("contact sphere radius {radius} is not a length"),
                    ));
                }
                let name = sphere
                    .name
                    .clone()
                    .unwrap_or_else(|| format!("{}_contact{k}", link.name));
                k += 1;
                contacts.push(ContactPoint {
                    name,
                    body,
                    offset: att
                        .placement
                        .transform_point(&Vec3::from(sphere.origin.xyz)),
                    radius,
                });
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
        self.check_bodies(&joints, &used)?;
        if let Some(transmitted) = &doc.transmitted {
            let mut names: Vec<&String> = transmitted.iter().collect();
            names.sort();
            for name in names {
                if !joints.iter().any(|j| &j.name == name) {
                    report.warnings.push(format!(
                        "a <transmission> names '{name}', which is not a revolute, continuous \
                         or prismatic joint; ignored"
                    ));
                }
            }
            for j in joints.iter_mut().filter(|j| !j.is_base) {
                j.actuated = transmitted.contains(&j.name);
            }
        }
        let couplings = self.couplings(&joints, &mut report)?;
        let name = if doc.name.is_empty() {
            "robot".to_string()
        } else {
            doc.name.clone()
        };
        let model = Model::new(name, base, joints, contacts, frames).with_parts(couplings, report);
        Ok(lock_massless(model))
    }

    /// Names the joints of the loop through link `start` (every link on it has a parent).
    fn describe_loop(
        &self,
        parent_joint: &[Option<usize>],
        ends: &[(usize, usize)],
        start: usize,
    ) -> String {
        let mut seen = vec![false; parent_joint.len()];
        let mut l = start;
        while !seen[l] {
            seen[l] = true;
            match parent_joint[l] {
                Some(j) => l = ends[j].0,
                None => break,
            }
        }
        let mut names = Vec::new();
        let first = l;
        while let Some(j) = parent_joint[l] {
            names.push(self.doc.joints[j].name.as_str());
            l = ends[j].0;
            if l == first {
                break;
            }
        }
        names.reverse();
        format!(
            "the joints {} form a loop (a link is its own ancestor); URDF describes trees only",
            names.join(" → ")
        )
    }

    fn check_joint_kind(&self, j: &urdf_xml::Joint) -> Result<(), UrdfError> {
        let unsupported = |what: String, hint: &str| UrdfError::Unsupported {
            path: self.path.to_string(),
            joint: j.name.clone(),
            what,
            hint: hint.to_string(),
        };
        match j.kind.as_str() {
            "revolute" | "continuous" | "prismatic" | "fixed" => Ok(()),
            k @ ("floating" | "planar") => Err(unsupported(
                format!("joint type '{k}'"),
                "remove it and choose the base with --base planar|floating",
            )),
            "spherical" => Err(unsupported(
                "joint type 'spherical'".into(),
                "replace it with three revolute joints",
            )),
            other => Err(self.err_joint(
                &j.name,
                format!(
                    "unknown joint type '{other}' (URDF types: revolute, continuous, prismatic, \
                     fixed, floating, planar)"
                ),
            )),
        }
    }

    /// The link's inertial as given, `None` for a link without one. Refuses a negative or
    /// non-finite mass or a non-finite inertia entry.
    fn link_inertia(&self, link: &urdf_xml::Link) -> Result<Option<LinkInertia>, UrdfError> {
        let Some(i) = &link.inertial else {
            return Ok(None);
        };
        let m = i.mass;
        if !(m >= 0.0 && m.is_finite()) {
            return Err(self.err_link(
                &link.name,
                format!("mass must be zero (a frame) or positive, got {m}"),
            ));
        }
        let t = i.inertia;
        if t.iter().any(|v| !v.is_finite()) {
            return Err(self.err_link(&link.name, "inertia has a non-finite entry".into()));
        }
        Ok(Some(LinkInertia {
            frame: pose(&i.origin),
            mass: m,
            tensor: Mat3::new(t[0], t[1], t[2], t[1], t[3], t[4], t[2], t[4], t[5]),
        }))
    }

    /// Warns about a used link inertia that is not physical beyond round-off and, with
    /// `fix_inertia`, replaces it by the nearest physical one.
    fn review_inertia(&self, link: &str, li: &mut LinkInertia, report: &mut ModelReport) {
        let d = inertia_defect(&li.tensor);
        let [l1, l2, l3] = d.moments;
        let mut problems = Vec::new();
        if d.indefinite > INERTIA_ROUND_OFF {
            problems.push(format!(
                "is not positive semi-definite (smallest principal moment {l1:.6e}, \
                 {:.2e} of the largest)",
                -d.indefinite
            ));
        }
        if d.triangle > INERTIA_ROUND_OFF {
            problems.push(format!(
                "breaks the triangle inequality (principal moments {l1:.6e} + {l2:.6e} < \
                 {l3:.6e}, short by {:.2e} of the largest)",
                d.triangle
            ));
        }
        if problems.is_empty() {
            return;
        }
        let action = if self.options.fix_inertia {
            let fixed = nearest_physical(&li.tensor);
            let moved = (fixed - li.tensor).norm() / li.tensor.norm();
            report.inertia_fixes.push((link.to_string(), moved));
            li.tensor = fixed;
            format!("replaced by the nearest physical inertia (moved by {moved:.2e} relative)")
        } else {
            "used as given (--fix-inertia projects it onto the nearest physical inertia)".into()
        };
        report.warnings.push(format!(
            "link '{link}': inertia {}; {action}",
            problems.join(" and ")
        ));
    }

    /// Refuses a body whose lumped rotational inertia about its centre of mass has a negative
    /// principal moment beyond [`INERTIA_INDEFINITE_TOLERANCE`] of its largest (or, for a body
    /// whose inertia is numerically zero, beyond [`INERTIA_ROUND_OFF`] of the robot's largest):
    /// its spatial inertia, and so the mass matrix, would be indefinite. Names the link of the
    /// body with the most negative moment of its own.
    fn check_bodies(
        &self,
        joints: &[Joint],
        links: &[(usize, String, Mat3)],
    ) -> Result<(), UrdfError> {
        let moments: Vec<[f64; 3]> = joints
            .iter()
            .map(|j| {
                let own = j.inertia - spatial_inertia(j.mass, &j.com, &Mat3::zeros());
                inertia_defect(&own.fixed_view::<3, 3>(0, 0).into_owned()).moments
            })
            .collect();
        let robot_scale = moments.iter().fold(0.0f64, |a, m| a.max(m[2]));
        for (b, m) in moments.iter().enumerate() {
            let allowed = INERTIA_INDEFINITE_TOLERANCE * m[2] + INERTIA_ROUND_OFF * robot_scale;
            if -m[0] <= allowed {
                continue;
            }
            let worst = links
                .iter()
                .filter(|(body, _, _)| *body == b)
                .map(|(_, name, t)| (name, inertia_defect(t).moments))
                .min_by(|x, y| x.1[0].total_cmp(&y.1[0]));
            let (name, own) = worst.map_or((&joints[b].body, *m), |(n, o)| (n, o));
            return Err(self.err_link(
                name,
                format!(
                    "inertia is not positive semi-definite (principal moments {:.6e}, {:.6e}, \
                     {:.6e}); body '{}' it belongs to would have a negative moment of inertia \
                     ({:.6e}, more than {INERTIA_INDEFINITE_TOLERANCE} of its largest, {:.6e}); \
                     fix the file, or pass --fix-inertia to use the nearest physical inertia",
                    own[0], own[1], own[2], joints[b].body, m[0], m[2]
                ),
            ));
        }
        Ok(())
    }

    fn make_joint(
        &self,
        j: &urdf_xml::Joint,
        child: &str,
        parent: Attachment,
        origin: Transform,
    ) -> Result<Joint, UrdfError> {
        let a = Vec3::from(j.axis);
        let norm = a.norm();
        if !(norm > 1e-12 && norm.is_finite()) {
            return Err(self.err_joint(&j.name, format!("axis {:?} has no direction", j.axis)));
        }
        let axis = a / norm;
        let kind = if j.kind == "prismatic" {
            JointKind::Prismatic
        } else {
            JointKind::Revolute
        };
        let (lower, upper) = if j.kind == "continuous" || (j.lower == 0.0 && j.upper == 0.0) {
            (f64::NEG_INFINITY, f64::INFINITY)
        } else {
            (j.lower, j.upper)
        };
        if lower.is_nan() || upper.is_nan() || lower > upper {
            return Err(self.err_joint(
                &j.name,
                format!("lower limit {lower} exceeds upper limit {upper}"),
            ));
        }
        let positive_or_inf = |v: f64| if v > 0.0 { v } else { f64::INFINITY };
        let damping = j.damping;
        if !(damping >= 0.0 && damping.is_finite()) {
            return Err(self.err_joint(&j.name, format!("damping {damping} is negative")));
        }
        let spring = match j.spring {
            None => None,
            Some((stiffness, rest)) => {
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
            body: child.to_string(),
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
                velocity: positive_or_inf(j.velocity),
                effort: positive_or_inf(j.effort),
            },
            actuated: true,
            spring,
            damping,
            is_base: false,
        })
    }

    /// The mimic couplings, each resolved to a leader that is not itself a follower.
    fn couplings(
        &self,
        joints: &[Joint],
        report: &mut ModelReport,
    ) -> Result<Vec<Coupling>, UrdfError> {
        let mimic: HashMap<&str, &urdf_xml::Mimic> = self
            .doc
            .joints
            .iter()
            .filter_map(|j| j.mimic.as_ref().map(|m| (j.name.as_str(), m)))
            .collect();
        let mut out = Vec::new();
        for (follower, j) in joints.iter().enumerate() {
            let Some(first) = mimic.get(j.name.as_str()) else {
                continue;
            };
            let (mut multiplier, mut offset) = (first.multiplier, first.offset);
            let mut chain = vec![j.name.as_str()];
            let mut leader = first.joint.as_str();
            while let Some(next) = mimic.get(leader) {
                if chain.contains(&leader) {
                    chain.push(leader);
                    return Err(self.err_joint(
                        &j.name,
                        format!(
                            "<mimic> joints follow each other in a loop: {}",
                            chain.join(" → ")
                        ),
                    ));
                }
                chain.push(leader);
                // q = m (m' q'' + o') + o
                offset += multiplier * next.offset;
                multiplier *= next.multiplier;
                leader = next.joint.as_str();
            }
            if !(multiplier.is_finite() && offset.is_finite()) {
                return Err(self.err_joint(
                    &j.name,
                    format!("<mimic> multiplier {multiplier} and offset {offset} must be finite"),
                ));
            }
            let Some(l) = joints.iter().position(|x| x.name == leader) else {
                if self.doc.joints.iter().any(|x| x.name == leader) {
                    return Err(self.err_joint(
                        &j.name,
                        format!(
                            "<mimic> follows joint '{leader}', which is not a revolute, \
                             continuous or prismatic joint"
                        ),
                    ));
                }
                report.warnings.push(format!(
                    "joint '{}': <mimic> follows joint '{leader}', which does not exist; the \
                     joint moves on its own",
                    j.name
                ));
                continue;
            };
            out.push(Coupling {
                follower,
                leader: l,
                multiplier,
                offset,
            });
        }
        Ok(out)
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
}

/// Locks the joints whose whole subtree carries no mass and no inertia (their mass-matrix
/// column would be zero), with a warning naming them. A massless mimic leader whose followers
/// carry mass stays: the coupling gives it their inertia in every problem.
fn lock_massless(model: Model) -> Model {
    let joints = model.joints();
    let n = joints.len();
    let mut composite: Vec<Mat6> = joints.iter().map(|j| j.inertia).collect();
    for i in (0..n).rev() {
        if let Some(p) = joints[i].parent {
            let c = transform_inertia(&joints[i].placement, &composite[i]);
            composite[p] += c;
        }
    }
    let empty = |i: usize| composite[i].amax() == 0.0 && !joints[i].is_base;
    let idle: Vec<usize> = (0..n)
        .filter(|&i| {
            empty(i)
                && model
                    .couplings()
                    .iter()
                    .filter(|c| c.leader == i)
                    .all(|c| empty(c.follower))
        })
        .collect();
    if idle.is_empty() {
        return model;
    }
    let requests = idle
        .iter()
        .map(|&i| (i, model.default_lock_value(i), LockReason::MovesNoMass))
        .collect();
    let names: Vec<&str> = idle.iter().map(|&i| joints[i].name.as_str()).collect();
    let warning = format!(
        "joints {} move no mass (every link they carry is massless): locked at their default \
         values so the mass matrix stays invertible",
        names.join(", ")
    );
    let mut reduced = model.locked_at(requests);
    let mut report = reduced.report().clone();
    report.warnings.push(warning);
    let couplings = reduced.couplings().to_vec();
    reduced = reduced.with_parts(couplings, report);
    reduced
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
    fn add(&mut self, placement: &Transform, li: &LinkInertia) {
        let frame = placement.compose(&li.frame);
        let local = spatial_inertia(li.mass, &Vec3::zeros(), &li.tensor);
        self.inertia += transform_inertia(&frame, &local);
        self.mass += li.mass;
        self.first_moment += li.mass * frame.translation;
    }
}

fn pose(p: &urdf_xml::Pose) -> Transform {
    Transform::from_xyz_rpy(p.xyz, p.rpy)
}

/// What a `<visual>` or `<collision>` shows: a primitive, or a mesh file (named, not opened).
#[derive(Clone, Debug, PartialEq)]
pub enum SolidShape {
    /// A box, cylinder, capsule or sphere.
    Primitive(Primitive),
    /// A mesh file with its scale.
    Mesh(MeshFile),
}

/// A visual or collision placed in its link frame.
#[derive(Clone, Debug, PartialEq)]
pub struct PlacedSolid {
    /// Its frame in the link frame (`origin`).
    pub origin: Transform,
    /// What it shows.
    pub shape: SolidShape,
    /// The material colour (`rgba`, each in [0, 1]) of a visual: its own `<color>`, else that
    /// of the robot's `<material>` of the same name.
    pub color: Option<[f64; 4]>,
}

/// The visuals and collisions of a link that show a primitive or a mesh.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkSolids {
    /// Link name.
    pub name: String,
    /// `<visual>` elements.
    pub visuals: Vec<PlacedSolid>,
    /// `<collision>` elements.
    pub collisions: Vec<PlacedSolid>,
}

/// What a picture of a URDF needs beyond the model: every link's primitives and meshes, the
/// fixed joints (`parent`, `child`, placement of the child in the parent) and the root link.
#[derive(Clone, Debug, PartialEq)]
pub struct UrdfSolids {
    /// The links.
    pub links: Vec<LinkSolids>,
    /// The fixed joints.
    pub fixed_joints: Vec<(String, String, Transform)>,
    /// The link no joint has as its child.
    pub root: Option<String>,
}

/// The primitives and meshes of the URDF text `text`, or `None` if it cannot be read. Mesh
/// files are only named: reading them is for whoever draws them.
pub fn urdf_solids(text: &str) -> Option<UrdfSolids> {
    let doc = urdf_xml::read_document(text).ok()?;
    let place = |p: &urdf_xml::Pose| Transform::from_xyz_rpy(p.xyz, p.rpy);
    let named_color = |name: &str| {
        doc.materials
            .iter()
            .rev()
            .find(|(n, c)| n == name && c.iter().all(|v| v.is_finite()))
            .map(|(_, c)| *c)
    };
    let solids = |list: &[urdf_xml::Solid]| {
        list.iter()
            .filter_map(|s| {
                let shape = match (&s.geometry, &s.mesh) {
                    (Some(p), _) => SolidShape::Primitive(*p),
                    (None, Some(m)) => SolidShape::Mesh(m.clone()),
                    (None, None) => return None,
                };
                Some(PlacedSolid {
                    origin: place(&s.origin),
                    shape,
                    color: s
                        .color
                        .or_else(|| s.material.as_deref().and_then(named_color)),
                })
            })
            .collect()
    };
    let is_child = |l: &str| doc.joints.iter().any(|j| j.child.as_deref() == Some(l));
    Some(UrdfSolids {
        links: doc
            .links
            .iter()
            .map(|l| LinkSolids {
                name: l.name.clone(),
                visuals: solids(&l.visuals),
                collisions: solids(&l.collisions),
            })
            .collect(),
        fixed_joints: doc
            .joints
            .iter()
            .filter(|j| j.kind == "fixed")
            .filter_map(|j| Some((j.parent.clone()?, j.child.clone()?, place(&j.origin))))
            .collect(),
        root: doc
            .links
            .iter()
            .find(|l| !is_child(&l.name))
            .map(|l| l.name.clone()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solids_name_their_meshes_and_colours_without_opening_them() {
        let text = r#"<robot name="r">
            <material name="red"><color rgba="1 0 0 1"/></material>
            <material name="textured"><texture filename="t.png"/></material>
            <link name="a">
              <visual><origin xyz="0 0 1" rpy="0 0 0"/>
                <geometry><mesh filename=" package://p/m.dae " scale="2 3 4"/></geometry>
                <material name="red"/></visual>
              <visual><geometry><mesh filename="x.stl"/></geometry>
                <material name="own"><color rgba="0 0.5 1 0.5"/></material></visual>
              <visual><geometry><mesh filename="y.stl" scale="1 oops 1"/></geometry>
                <material name="textured"/></visual>
              <visual><geometry><mesh/></geometry></visual>
              <visual><geometry><box size="1 2 3"/></geometry>
                <material name="bad"><color rgba="2 0 0 1"/></material></visual>
              <collision><geometry><mesh filename="c.stl"/></geometry></collision>
            </link></robot>"#;
        let solids = urdf_solids(text).unwrap();
        let link = &solids.links[0];
        let mesh = |s: &PlacedSolid| match &s.shape {
            SolidShape::Mesh(m) => (m.filename.clone(), m.scale),
            SolidShape::Primitive(p) => panic!("{p:?}"),
        };
        assert_eq!(
            link.visuals.len(),
            3,
            "the bad scale and the empty mesh are left out"
        );
        assert_eq!(
            mesh(&link.visuals[0]),
            ("package://p/m.dae".into(), [2.0, 3.0, 4.0])
        );
        assert_eq!(link.visuals[0].color, Some([1.0, 0.0, 0.0, 1.0]));
        assert_eq!(link.visuals[0].origin.translation, Vec3::new(0.0, 0.0, 1.0));
        assert_eq!(mesh(&link.visuals[1]), ("x.stl".into(), [1.0; 3]));
        assert_eq!(link.visuals[1].color, Some([0.0, 0.5, 1.0, 0.5]));
        assert_eq!(
            link.visuals[2].shape,
            SolidShape::Primitive(Primitive::Box([1.0, 2.0, 3.0]))
        );
        assert_eq!(link.visuals[2].color, None, "rgba beyond [0, 1]");
        assert_eq!(mesh(&link.collisions[0]), ("c.stl".into(), [1.0; 3]));
        assert_eq!(link.collisions[0].color, None);
        let model = parse_urdf(text, "r", BaseKind::Fixed);
        assert!(model.is_ok(), "meshes and materials never stop a load");
    }
}

//! The robot model: an immutable tree of rigid bodies joined by 1-DoF joints (seed 000 §2.3).
//!
//! Body `i` is moved by joint `i`; bodies are numbered in topological (depth-first) order, so
//! `parent(i) < i`. The body frame `{i}` is the joint frame (the URDF child-link frame), and
//!
//! ```text
//! g_i = g_par(i) · g_par(i),i(0) · exp(Ŝ_i q_i)
//! ```
//!
//! with `S_i = (a, 0)` for a revolute joint about the unit axis `a` through the frame origin and
//! `S_i = (0, a)` for a prismatic joint. Bodies carry their full spatial inertia about the frame
//! origin ([`crate::spatial::spatial_inertia`]), so the centre of mass need not be the origin.
//!
//! A floating base is a chain of virtual joints with massless intermediate bodies (see
//! [`BaseKind`]); the last virtual body is the URDF root link itself.

mod base_chart;
mod feet;
mod inertia;
mod pendulum;
mod reduce;
mod urdf;
mod urdf_xml;

pub use base_chart::BaseChart;
pub use feet::{FOOT_TOLERANCE, LikelyFoot, contact_points_yaml, likely_feet};
pub use inertia::{InertiaDefect, inertia_defect, nearest_physical};
pub use pendulum::{PendulumSpec, pendulum_urdf};
pub use reduce::{LockReason, LockedJoint};
pub use urdf::{
    LinkSolids, PlacedSolid, SolidShape, UrdfError, UrdfOptions, UrdfSolids, load_urdf,
    load_urdf_with, parse_urdf, parse_urdf_with, urdf_solids,
};
pub use urdf_xml::{MeshFile, Pose as UrdfPose, Primitive};

use crate::spatial::{Mat6, Transform, Vec3, Vec6};
use std::fmt;
use std::str::FromStr;

/// Standard gravity, m/s².
pub const STANDARD_GRAVITY: f64 = 9.81;

/// Largest negative principal moment a body's rotational inertia about its centre of mass (its
/// links lumped) may have, as a fraction of its largest principal moment, for the URDF reader to
/// use it as given (each indefinite link is warned about, naming `--fix-inertia`) rather than
/// refuse it. Other rigid-body libraries load any tensor, and public descriptions of real robots
/// rely on it: in a 69-file public collection the worst body misses positive
/// semi-definiteness by 22 % (romeo_laas_small's base: −2.13e-2 against 9.90e-2 kg·m²; its
/// hip-pitch links by 5 %), every other body by less than 1e-3. A sign error on a moment gives
/// 100 % or more, a swapped product of inertia 50 % or more; 0.3 loads the first kind and
/// refuses the second. Such a body makes the mass matrix indefinite only for motions in which
/// it turns alone about its negative axis.
pub const INERTIA_INDEFINITE_TOLERANCE: f64 = 0.3;

/// Defects below this fraction of the largest principal moment are round-off of the printed
/// digits and are neither warned about nor fixed; a body whose inertia is below this fraction of
/// the robot's largest moment counts as numerically zero.
pub const INERTIA_ROUND_OFF: f64 = 1e-9;

/// How the URDF root link is attached to the world.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BaseKind {
    /// The root link is welded to the world at the origin.
    #[default]
    Fixed,
    /// Three virtual joints `base_x` (prismatic along x), `base_z` (prismatic along z) and
    /// `base_pitch` (revolute about y): motion in the sagittal x–z plane.
    Planar,
    /// Six virtual joints `base_x, base_y, base_z` (prismatic along the world axes) then
    /// `base_yaw` (about z), `base_pitch` (about the new y) and `base_roll` (about the new x): the
    /// root orientation is `Rz(yaw) Ry(pitch) Rx(roll)`, singular (gimbal lock) at
    /// `pitch = ±π/2`, where yaw and roll turn about the same axis.
    Floating,
}

impl BaseKind {
    /// Number of virtual base joints.
    pub fn dof(self) -> usize {
        match self {
            BaseKind::Fixed => 0,
            BaseKind::Planar => 3,
            BaseKind::Floating => 6,
        }
    }
}

impl fmt::Display for BaseKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BaseKind::Fixed => "fixed",
            BaseKind::Planar => "planar",
            BaseKind::Floating => "floating",
        })
    }
}

impl FromStr for BaseKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "fixed" => Ok(BaseKind::Fixed),
            "planar" => Ok(BaseKind::Planar),
            "floating" => Ok(BaseKind::Floating),
            other => Err(format!(
                "unknown base '{other}' (expected fixed, planar or floating)"
            )),
        }
    }
}

/// The kind of a 1-DoF joint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JointKind {
    /// Rotation about the axis (q in radians).
    Revolute,
    /// Translation along the axis (q in metres).
    Prismatic,
}

/// Position, velocity and effort limits of a joint; absent limits are infinite.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointLimits {
    /// Lower position limit.
    pub lower: f64,
    /// Upper position limit.
    pub upper: f64,
    /// Largest speed |q̇|.
    pub velocity: f64,
    /// Largest effort |τ| (N·m or N).
    pub effort: f64,
}

impl JointLimits {
    /// No limits at all.
    pub const UNLIMITED: JointLimits = JointLimits {
        lower: f64::NEG_INFINITY,
        upper: f64::INFINITY,
        velocity: f64::INFINITY,
        effort: f64::INFINITY,
    };
}

/// A linear joint spring `τ = −k (q − q_rest)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spring {
    /// Stiffness `k` (N·m/rad or N/m).
    pub stiffness: f64,
    /// Rest position `q_rest`.
    pub rest: f64,
}

/// Joint `i` together with the body `i` it moves.
#[derive(Clone, Debug)]
pub struct Joint {
    /// Joint name (URDF joint name, or `base_*` for virtual base joints).
    pub name: String,
    /// Name of the body (URDF link) the joint moves.
    pub body: String,
    /// Revolute or prismatic.
    pub kind: JointKind,
    /// Parent body index, `None` for a body attached to the world.
    pub parent: Option<usize>,
    /// `g_par,i(0)`: the body frame at `q_i = 0` in the parent body frame.
    pub placement: Transform,
    /// Unit joint axis in the body frame.
    pub axis: Vec3,
    /// Joint twist `S_i` in the body frame (constant).
    pub twist: Vec6,
    /// Body spatial inertia `M_i` about the body-frame origin, body axes.
    pub inertia: Mat6,
    /// Body mass (kg).
    pub mass: f64,
    /// Body centre of mass in the body frame.
    pub com: Vec3,
    /// Position, velocity and effort limits.
    pub limits: JointLimits,
    /// Whether an actuator drives the joint.
    pub actuated: bool,
    /// Optional joint spring.
    pub spring: Option<Spring>,
    /// Viscous damping `d` in `τ = −d q̇`.
    pub damping: f64,
    /// Whether the joint is one of the virtual base joints.
    pub is_base: bool,
}

/// A named contact point fixed on a body.
#[derive(Clone, Debug, PartialEq)]
pub struct ContactPoint {
    /// Name (URDF collision name, or `<link>_contact<k>`).
    pub name: String,
    /// Body index.
    pub body: usize,
    /// Position in the body frame.
    pub offset: Vec3,
    /// Radius of the contact sphere (0 for a point).
    pub radius: f64,
}

/// A named frame fixed on a body (every URDF link, including merged ones, is one).
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    /// Name (the URDF link name).
    pub name: String,
    /// Body index.
    pub body: usize,
    /// The frame in the body frame.
    pub placement: Transform,
}

/// A mimic coupling `q_follower = multiplier · q_leader + offset` (URDF `<mimic>`). Both joints
/// stay joints of the tree; problems apply the coupling as a constraint.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Coupling {
    /// The joint that follows.
    pub follower: usize,
    /// The joint it follows (never itself a follower: chains are resolved at load).
    pub leader: usize,
    /// `m` in `q = m q_L + o`.
    pub multiplier: f64,
    /// `o` in `q = m q_L + o`.
    pub offset: f64,
}

impl Coupling {
    /// The coupled value of the follower for the leader at `q_leader`.
    pub fn follower_value(&self, q_leader: f64) -> f64 {
        self.multiplier * q_leader + self.offset
    }
}

/// One actuator input acting on one joint: joint `joint` receives `factor · u_column`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Drive {
    /// The actuator input (index into the `u` of [`Model::actuated_joints`]).
    pub column: usize,
    /// The joint it acts on.
    pub joint: usize,
    /// The factor.
    pub factor: f64,
}

/// What loading and reducing the model did: links merged into other bodies, joints locked,
/// inertias warned about or projected. `vito model` prints it; the other commands print the
/// warnings.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModelReport {
    /// `(link, body it was merged into)`; the body is `world` for links welded to the world.
    pub merged: Vec<(String, String)>,
    /// Joints welded at a value.
    pub locked: Vec<LockedJoint>,
    /// `(link, relative Frobenius change ‖ΔI‖/‖I‖)` of inertias projected by `--fix-inertia`.
    pub inertia_fixes: Vec<(String, f64)>,
    /// One line per thing the user should know about (a tolerated inertia, an auto-locked joint).
    pub warnings: Vec<String>,
}

/// An immutable robot model. Build it with [`load_urdf`] / [`parse_urdf`].
#[derive(Clone, Debug)]
pub struct Model {
    name: String,
    base: BaseKind,
    joints: Vec<Joint>,
    children: Vec<Vec<usize>>,
    contacts: Vec<ContactPoint>,
    frames: Vec<Frame>,
    couplings: Vec<Coupling>,
    coupling_forces: bool,
    report: ModelReport,
    gravity: Vec3,
}

impl Model {
    /// Assembles a model from joints in topological order.
    ///
    /// # Panics
    /// If a joint's parent index is not smaller than its own (an internal construction error).
    pub(crate) fn new(
        name: String,
        base: BaseKind,
        joints: Vec<Joint>,
        contacts: Vec<ContactPoint>,
        frames: Vec<Frame>,
    ) -> Self {
        let mut children = vec![Vec::new(); joints.len()];
        for (i, j) in joints.iter().enumerate() {
            if let Some(p) = j.parent {
                assert!(p < i, "joint {} precedes its parent", j.name);
                children[p].push(i);
            }
        }
        Self {
            name,
            base,
            joints,
            children,
            contacts,
            frames,
            couplings: Vec::new(),
            coupling_forces: false,
            report: ModelReport::default(),
            gravity: Vec3::new(0.0, 0.0, -STANDARD_GRAVITY),
        }
    }

    /// The same model with these couplings and this load report.
    pub(crate) fn with_parts(mut self, couplings: Vec<Coupling>, report: ModelReport) -> Self {
        self.couplings = couplings;
        self.report = report;
        self
    }

    /// The same model under another gravity vector (world frame, m/s²).
    pub fn with_gravity(mut self, gravity: Vec3) -> Self {
        self.gravity = gravity;
        self
    }

    /// The same model with exactly the named joints actuated (base joints never are).
    ///
    /// # Errors
    /// The first name that is not a non-base joint of the model.
    pub fn with_actuated(mut self, names: &[String]) -> Result<Self, String> {
        for n in names {
            match self.joint_index(n) {
                Some(i) if !self.joints[i].is_base => {}
                _ => return Err(format!("'{n}' is not a joint of robot '{}'", self.name)),
            }
        }
        for j in &mut self.joints {
            j.actuated = names.contains(&j.name);
        }
        Ok(self)
    }

    /// The same model without the mimic couplings of the named follower joints: they move
    /// independently of their leaders.
    ///
    /// # Errors
    /// The first name that is not a coupled (mimic) joint.
    pub fn uncoupled(mut self, names: &[String]) -> Result<Self, String> {
        for n in names {
            let i = self.joint_index(n);
            if i.is_none_or(|i| !self.couplings.iter().any(|c| c.follower == i)) {
                let followers: Vec<&str> = self
                    .couplings
                    .iter()
                    .map(|c| self.joints[c.follower].name.as_str())
                    .collect();
                return Err(format!(
                    "'{n}' is not a mimic joint of robot '{}' (mimic joints: {})",
                    self.name,
                    if followers.is_empty() {
                        "none".to_string()
                    } else {
                        followers.join(", ")
                    }
                ));
            }
        }
        let joints = &self.joints;
        self.couplings
            .retain(|c| !names.contains(&joints[c.follower].name));
        Ok(self)
    }

    /// The same model with one more contact point `name`, `offset` from the origin of `frame`
    /// (in that frame's axes), with a sphere of `radius` (0 for a point).
    ///
    /// # Errors
    /// A name already used by a frame or contact point, an unknown frame, or a non-finite offset
    /// or radius.
    pub fn with_contact_point(
        mut self,
        name: &str,
        frame: &str,
        offset: Vec3,
        radius: f64,
    ) -> Result<Self, String> {
        if self.frame(name).is_some() || self.contacts.iter().any(|c| c.name == name) {
            return Err(format!(
                "'{name}' is already a frame or contact point of robot '{}'",
                self.name
            ));
        }
        let f = self.frame(frame).ok_or_else(|| {
            let names: Vec<&str> = self.frames.iter().map(|f| f.name.as_str()).collect();
            format!(
                "'{frame}' is not a frame of robot '{}' (frames: {})",
                self.name,
                names.join(", ")
            )
        })?;
        if !(offset.iter().all(|x| x.is_finite()) && radius >= 0.0 && radius.is_finite()) {
            return Err(format!(
                "contact point '{name}' needs a finite offset and a radius ≥ 0, got {:?} and {radius}",
                [offset.x, offset.y, offset.z]
            ));
        }
        let point = ContactPoint {
            name: name.to_string(),
            body: f.body,
            offset: f.placement.transform_point(&offset),
            radius,
        };
        self.contacts.push(point);
        Ok(self)
    }

    /// The same model with each coupled follower's actuator input standing for its coupling's
    /// constraint force: the follower is actuated, and its input `λ` acts as the generalized
    /// force `λ ∇h = λ (e_f − m e_l)` of `h = q_f − m q_l − o`, on the follower with factor 1
    /// and on the leader with factor `−m` ([`Model::drives`]). With `h = 0` imposed along the
    /// path, the leader's input is then the torque of the mechanism's one motor, exactly as in
    /// the chain reduced by hand.
    pub fn with_coupling_forces(mut self) -> Self {
        for c in &self.couplings {
            self.joints[c.follower].actuated = true;
        }
        self.coupling_forces = true;
        self
    }

    /// Whether coupled followers' inputs are coupling forces ([`Model::with_coupling_forces`]).
    pub fn has_coupling_forces(&self) -> bool {
        self.coupling_forces
    }

    /// How the actuator inputs act on the joints: each actuated joint's own input with factor 1,
    /// then, with [`Model::with_coupling_forces`], each coupled follower's input on its leader
    /// with factor `−m`.
    pub fn drives(&self) -> Vec<Drive> {
        let actuated = self.actuated_joints();
        let mut out: Vec<Drive> = actuated
            .iter()
            .enumerate()
            .map(|(column, &joint)| Drive {
                column,
                joint,
                factor: 1.0,
            })
            .collect();
        if self.coupling_forces {
            for c in &self.couplings {
                if let Some(column) = actuated.iter().position(|&i| i == c.follower) {
                    out.push(Drive {
                        column,
                        joint: c.leader,
                        factor: -c.multiplier,
                    });
                }
            }
        }
        out
    }

    /// The mimic couplings still applied.
    pub fn couplings(&self) -> &[Coupling] {
        &self.couplings
    }

    /// What loading and reducing did (merged links, locked joints, warnings).
    pub fn report(&self) -> &ModelReport {
        &self.report
    }

    /// Robot name (from the URDF).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// How the root is attached to the world.
    pub fn base(&self) -> BaseKind {
        self.base
    }

    /// For a floating base, the angle (rad) between its orientation and the singularity of its
    /// yaw–pitch–roll coordinates: how far `base_pitch` is from the nearest `±π/2` (modulo π),
    /// where yaw and roll turn about the same axis, `M(q)` is singular and the velocities
    /// `M(q)⁻¹p` are not determined. `None` for a fixed or planar base.
    pub fn base_lock_distance(&self, q: &[f64]) -> Option<f64> {
        // The virtual joints come first: x, y, z, yaw, pitch, roll.
        const PITCH: usize = 4;
        (self.base == BaseKind::Floating).then(|| q[PITCH].cos().abs().min(1.0).asin())
    }

    /// Degrees of freedom `n` (base joints included).
    pub fn dof(&self) -> usize {
        self.joints.len()
    }

    /// The joints (= bodies) in topological order.
    pub fn joints(&self) -> &[Joint] {
        &self.joints
    }

    /// Joint `i`.
    pub fn joint(&self, i: usize) -> &Joint {
        &self.joints[i]
    }

    /// Index of the joint with this name.
    pub fn joint_index(&self, name: &str) -> Option<usize> {
        self.joints.iter().position(|j| j.name == name)
    }

    /// Joint names in order.
    pub fn joint_names(&self) -> Vec<String> {
        self.joints.iter().map(|j| j.name.clone()).collect()
    }

    /// Children of body `i`.
    pub fn children(&self, i: usize) -> &[usize] {
        &self.children[i]
    }

    /// Parent of body `i` (`None` for the world).
    pub fn parent(&self, i: usize) -> Option<usize> {
        self.joints[i].parent
    }

    /// Iterates over `i` and its ancestors, from `i` towards the root.
    pub fn ancestors_inclusive(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        std::iter::successors(Some(i), move |&j| self.joints[j].parent)
    }

    /// Whether `j` is `i` or one of its ancestors.
    pub fn is_ancestor_or_self(&self, j: usize, i: usize) -> bool {
        j <= i && self.ancestors_inclusive(i).any(|k| k == j)
    }

    /// Contact points.
    pub fn contact_points(&self) -> &[ContactPoint] {
        &self.contacts
    }

    /// Named frames.
    pub fn frames(&self) -> &[Frame] {
        &self.frames
    }

    /// The frame with this name.
    pub fn frame(&self, name: &str) -> Option<&Frame> {
        self.frames.iter().find(|f| f.name == name)
    }

    /// Gravity (world frame).
    pub fn gravity(&self) -> Vec3 {
        self.gravity
    }

    /// Total mass of the moving bodies.
    pub fn total_mass(&self) -> f64 {
        self.joints.iter().map(|j| j.mass).sum()
    }

    /// Indices of the actuated joints, in order.
    pub fn actuated_joints(&self) -> Vec<usize> {
        (0..self.dof())
            .filter(|&i| self.joints[i].actuated)
            .collect()
    }

    /// Passive joint forces from springs and dampers: `τ_i = −k_i (q_i − q_rest,i) − d_i q̇_i`.
    ///
    /// # Panics
    /// If `q`, `v` or `tau` do not have length [`Model::dof`].
    pub fn passive_forces(&self, q: &[f64], v: &[f64], tau: &mut [f64]) {
        assert!(q.len() == self.dof() && v.len() == self.dof() && tau.len() == self.dof());
        for (i, t) in tau.iter_mut().enumerate() {
            *t = self.passive_force(i, q[i], v[i]);
        }
    }

    /// The passive force of joint `i` at position `q` and speed `qd`.
    pub fn passive_force(&self, i: usize, q: f64, qd: f64) -> f64 {
        let j = &self.joints[i];
        let spring = j.spring.map_or(0.0, |s| -s.stiffness * (q - s.rest));
        spring - j.damping * qd
    }
}

//! The tolerant URDF reader: the subset of the URDF XML that vito uses, read with `quick-xml`.
//!
//! Only these elements are read, each where the URDF specification puts it:
//! `robot[name]`; `robot/link[name]` with `inertial/{origin, mass, inertia}` and
//! `collision[name]/{origin, geometry/sphere[radius]}`; `robot/joint[name, type]` with `parent`,
//! `child`, `origin`, `axis`, `limit`, `dynamics` (`damping`, `spring_stiffness`,
//! `spring_reference`) and `mimic`; and the `joint[name]` children of `robot/transmission`.
//! For the pictures, leniently (a value that does not parse leaves the item out): the
//! primitives and `mesh[filename, scale]` of `visual` and `collision`, the `material` of a
//! `visual` (its `color[rgba]`, or the name of a `robot/material` that has one). Mesh files are
//! only named here, never opened. Everything else (textures, `gazebo`, sensors, `ros2_control`,
//! unknown tags and attributes) is skipped without being interpreted, so nothing vito does not
//! use can stop a load. Absent numbers take the specification's defaults (origin and
//! inertia zero, axis `1 0 0`, mimic multiplier 1 and offset 0).
//!
//! A xacro file (an `xacro:` element or attribute, or a `${…}` expression where vito reads a
//! value) and a file whose root element is not `<robot>` are refused with an error that says
//! what the file is and what to run.

use std::collections::HashSet;

/// `origin xyz rpy`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Pose {
    pub xyz: [f64; 3],
    pub rpy: [f64; 3],
}

/// `<inertial>`: the centre-of-mass frame, the mass and the inertia tensor about the centre of
/// mass in that frame (`ixx ixy ixz iyy iyz izz`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Inertial {
    pub origin: Pose,
    pub mass: f64,
    pub inertia: [f64; 6],
}

/// A geometric primitive of a `<visual>` or `<collision>`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Primitive {
    /// `sphere radius`.
    Sphere(f64),
    /// `box size` (side lengths).
    Box([f64; 3]),
    /// `cylinder radius length` (along z, centred).
    Cylinder(f64, f64),
    /// `capsule radius length` (the cylinder with hemispherical ends).
    Capsule(f64, f64),
}

/// A `<mesh filename scale>`: the file as the URDF names it (a `package://` or `file://` URI,
/// or a path relative to the URDF's folder) and the scale along its axes.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshFile {
    /// The `filename` attribute.
    pub filename: String,
    /// The `scale` attribute (`1 1 1` when absent).
    pub scale: [f64; 3],
}

/// A `<visual>` or `<collision>`: its name, origin, primitive or mesh, and material.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Solid {
    /// The `name` attribute.
    pub name: Option<String>,
    /// `origin xyz rpy`.
    pub origin: Pose,
    /// The primitive (`None` for a mesh or anything else vito does not read).
    pub geometry: Option<Primitive>,
    /// The mesh file, for a `<mesh>` geometry.
    pub mesh: Option<MeshFile>,
    /// The `<material name>` of a visual.
    pub material: Option<String>,
    /// The `<material><color rgba>` of a visual.
    pub color: Option<[f64; 4]>,
}

/// A `<link>`.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Link {
    pub name: String,
    pub inertial: Option<Inertial>,
    pub collisions: Vec<Solid>,
    pub visuals: Vec<Solid>,
}

/// `<mimic joint multiplier offset>`: `q = multiplier · q_joint + offset`.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Mimic {
    pub joint: String,
    pub multiplier: f64,
    pub offset: f64,
}

/// A `<joint>`. Absent limits are 0 (meaning "none" for vito).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Joint {
    pub name: String,
    pub kind: String,
    pub parent: Option<String>,
    pub child: Option<String>,
    pub origin: Pose,
    pub axis: [f64; 3],
    pub lower: f64,
    pub upper: f64,
    pub effort: f64,
    pub velocity: f64,
    pub damping: f64,
    /// `spring_stiffness` and `spring_reference` of `<dynamics>` (SDF names), when either is given.
    pub spring: Option<(f64, f64)>,
    pub mimic: Option<Mimic>,
}

/// The parts of a URDF document vito uses.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Document {
    pub name: String,
    pub links: Vec<Link>,
    pub joints: Vec<Joint>,
    /// Joints named by `<transmission>` elements, `None` when the file has none.
    pub transmitted: Option<HashSet<String>>,
    /// The colours of the materials defined under `<robot>`, by name.
    pub materials: Vec<(String, [f64; 4])>,
}

const XACRO_HINT: &str = "it is a xacro file; expand it first: `xacro FILE > robot.urdf` \
                          (pip install xacro, or `ros2 run xacro xacro FILE` in ROS)";

/// Why a text could not be read as a URDF.
#[derive(Debug)]
pub(super) enum ReadError {
    /// The text is something else (xacro, SDF, MJCF, …); the message says what to run.
    NotUrdf(String),
    /// Malformed XML, or a value vito reads that is not a number.
    Invalid(String),
}

impl From<String> for ReadError {
    fn from(m: String) -> Self {
        ReadError::Invalid(m)
    }
}

impl From<&str> for ReadError {
    fn from(m: &str) -> Self {
        ReadError::Invalid(m.to_string())
    }
}

/// Where the reader is inside the document.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    Robot,
    Link,
    Inertial,
    Collision,
    Visual,
    /// The geometry of a collision (strict: a sphere's radius must parse) or a visual
    /// (lenient: a primitive that does not parse is left out).
    CollisionGeometry,
    VisualGeometry,
    /// A `<material>` of a visual, or one defined under `<robot>`.
    VisualMaterial,
    RobotMaterial,
    Joint,
    Transmission,
    /// Anything vito does not read, with everything inside it.
    Skipped,
}

/// Reads the document. Errors name the element (link or joint) and the attribute at fault.
pub(super) fn read_document(text: &str) -> Result<Document, ReadError> {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(text);
    let mut doc = Document::default();
    let mut stack: Vec<Place> = Vec::new();
    let mut seen_root = false;
    loop {
        let event = reader
            .read_event()
            .map_err(|e| format!("XML error at byte {}: {e}", reader.error_position()))?;
        let (e, empty) = match &event {
            Event::Start(e) => (e, false),
            Event::Empty(e) => (e, true),
            Event::End(_) => {
                stack.pop();
                continue;
            }
            Event::Eof if stack.is_empty() => break,
            Event::Eof => {
                return Err(ReadError::Invalid(
                    "XML error: the file ends inside an unclosed element".into(),
                ));
            }
            _ => continue,
        };
        let qname = String::from_utf8_lossy(e.name().as_ref()).into_owned();
        let attrs = Attrs::read(e)?;

        // Expanded files keep the `xmlns:xacro` declaration; only xacro elements, attributes
        // and expressions mean the file still needs expanding.
        if qname.starts_with("xacro:") || attrs.any_key_starts_with("xacro:") {
            return Err(ReadError::NotUrdf(XACRO_HINT.into()));
        }
        let tag = qname.rsplit(':').next().unwrap_or(&qname).to_string();
        let place = if !seen_root {
            seen_root = true;
            if tag != "robot" {
                return Err(ReadError::NotUrdf(not_urdf(&tag)));
            }
            doc.name = attrs.get("name").unwrap_or_default();
            Place::Robot
        } else {
            let link_name = doc.links.last().map(|l| l.name.clone()).unwrap_or_default();
            let at = |m: &str| format!("link '{link_name}': {m}");
            match (stack.last().copied(), tag.as_str()) {
                (Some(Place::Robot), "link") => {
                    let name = attrs
                        .get("name")
                        .ok_or_else(|| "a <link> has no name".to_string())?;
                    doc.links.push(Link {
                        name,
                        ..Link::default()
                    });
                    Place::Link
                }
                (Some(Place::Robot), "joint") => {
                    let name = attrs
                        .get("name")
                        .ok_or_else(|| "a <joint> has no name".to_string())?;
                    let kind = attrs
                        .get("type")
                        .ok_or_else(|| format!("joint '{name}': no type"))?;
                    doc.joints.push(Joint {
                        name,
                        kind,
                        parent: None,
                        child: None,
                        origin: Pose::default(),
                        axis: [1.0, 0.0, 0.0],
                        lower: 0.0,
                        upper: 0.0,
                        effort: 0.0,
                        velocity: 0.0,
                        damping: 0.0,
                        spring: None,
                        mimic: None,
                    });
                    Place::Joint
                }
                (Some(Place::Robot), "material") => {
                    doc.materials
                        .push((attrs.get("name").unwrap_or_default(), [f64::NAN; 4]));
                    Place::RobotMaterial
                }
                (Some(Place::RobotMaterial), "color") => {
                    if let (Some(rgba), Some(m)) = (attrs.color(), doc.materials.last_mut()) {
                        m.1 = rgba;
                    }
                    Place::Skipped
                }
                (Some(Place::Robot), "transmission") => {
                    doc.transmitted.get_or_insert_with(HashSet::new);
                    Place::Transmission
                }
                (Some(Place::Transmission), "joint") => {
                    if let (Some(n), Some(t)) = (attrs.get("name"), doc.transmitted.as_mut()) {
                        t.insert(n);
                    }
                    Place::Skipped
                }
                (Some(Place::Link), "inertial") => {
                    if let Some(l) = doc.links.last_mut() {
                        l.inertial = Some(Inertial::default());
                    }
                    Place::Inertial
                }
                (Some(Place::Link), kind @ ("collision" | "visual")) => {
                    let solid = Solid {
                        name: attrs.get("name"),
                        ..Solid::default()
                    };
                    if let Some(l) = doc.links.last_mut() {
                        if kind == "collision" {
                            l.collisions.push(solid);
                        } else {
                            l.visuals.push(solid);
                        }
                    }
                    if kind == "collision" {
                        Place::Collision
                    } else {
                        Place::Visual
                    }
                }
                (Some(Place::Inertial), t) => {
                    let i = doc
                        .links
                        .last_mut()
                        .and_then(|l| l.inertial.as_mut())
                        .ok_or("internal: inertial outside a link")?;
                    match t {
                        "origin" => i.origin = attrs.pose().map_err(|m| at(&m))?,
                        "mass" => i.mass = attrs.number("value", 0.0).map_err(|m| at(&m))?,
                        "inertia" => {
                            for (k, key) in ["ixx", "ixy", "ixz", "iyy", "iyz", "izz"]
                                .iter()
                                .enumerate()
                            {
                                i.inertia[k] = attrs.number(key, 0.0).map_err(|m| at(&m))?;
                            }
                        }
                        _ => {}
                    }
                    Place::Skipped
                }
                (Some(Place::Collision), "origin") => {
                    let pose = attrs.pose().map_err(|m| at(&m))?;
                    if let Some(s) = doc.links.last_mut().and_then(|l| l.collisions.last_mut()) {
                        s.origin = pose;
                    }
                    Place::Skipped
                }
                (Some(Place::Visual), "origin") => {
                    if let (Ok(pose), Some(s)) = (
                        attrs.pose(),
                        doc.links.last_mut().and_then(|l| l.visuals.last_mut()),
                    ) {
                        s.origin = pose;
                    }
                    Place::Skipped
                }
                (Some(Place::Collision), "geometry") => Place::CollisionGeometry,
                (Some(Place::Visual), "geometry") => Place::VisualGeometry,
                (Some(Place::Visual), "material") => {
                    if let Some(s) = doc.links.last_mut().and_then(|l| l.visuals.last_mut()) {
                        s.material = attrs.get("name");
                    }
                    Place::VisualMaterial
                }
                (Some(Place::VisualMaterial), "color") => {
                    if let (Some(rgba), Some(s)) = (
                        attrs.color(),
                        doc.links.last_mut().and_then(|l| l.visuals.last_mut()),
                    ) {
                        s.color = Some(rgba);
                    }
                    Place::Skipped
                }
                (Some(Place::CollisionGeometry), "sphere") => {
                    let r = attrs.number("radius", f64::NAN).map_err(|m| at(&m))?;
                    if let Some(s) = doc.links.last_mut().and_then(|l| l.collisions.last_mut()) {
                        s.geometry = Some(Primitive::Sphere(r));
                    }
                    Place::Skipped
                }
                (Some(place @ (Place::CollisionGeometry | Place::VisualGeometry)), t) => {
                    let mesh = (t == "mesh")
                        .then(|| attrs.get("filename").filter(|f| !f.trim().is_empty()))
                        .flatten()
                        .zip(attrs.triple("scale", [1.0; 3]).ok())
                        .map(|(filename, scale)| MeshFile {
                            filename: filename.trim().to_string(),
                            scale,
                        });
                    let primitive = match t {
                        "sphere" => attrs.number("radius", f64::NAN).ok().map(Primitive::Sphere),
                        "box" => attrs.triple("size", [f64::NAN; 3]).ok().map(Primitive::Box),
                        "cylinder" | "capsule" => attrs
                            .number("radius", f64::NAN)
                            .ok()
                            .zip(attrs.number("length", f64::NAN).ok())
                            .map(|(r, l)| {
                                if t == "cylinder" {
                                    Primitive::Cylinder(r, l)
                                } else {
                                    Primitive::Capsule(r, l)
                                }
                            }),
                        _ => None,
                    };
                    if let Some(l) = doc.links.last_mut() {
                        let list = if place == Place::CollisionGeometry {
                            &mut l.collisions
                        } else {
                            &mut l.visuals
                        };
                        if let Some(s) = list.last_mut() {
                            s.geometry = primitive;
                            s.mesh = mesh;
                        }
                    }
                    Place::Skipped
                }
                (Some(Place::Joint), t) => {
                    let j = doc.joints.last_mut().ok_or("internal: joint element")?;
                    let name = j.name.clone();
                    let at = |m: String| format!("joint '{name}': {m}");
                    match t {
                        "parent" => j.parent = attrs.get("link"),
                        "child" => j.child = attrs.get("link"),
                        "origin" => j.origin = attrs.pose().map_err(at)?,
                        "axis" => {
                            j.axis = attrs.triple("xyz", [1.0, 0.0, 0.0]).map_err(at)?;
                        }
                        "limit" => {
                            j.lower = attrs.number("lower", 0.0).map_err(at)?;
                            j.upper = attrs.number("upper", 0.0).map_err(at)?;
                            j.effort = attrs.number("effort", 0.0).map_err(at)?;
                            j.velocity = attrs.number("velocity", 0.0).map_err(at)?;
                        }
                        "dynamics" => {
                            j.damping = attrs.number("damping", 0.0).map_err(at)?;
                            if attrs.get("spring_stiffness").is_some()
                                || attrs.get("spring_reference").is_some()
                            {
                                j.spring = Some((
                                    attrs.number("spring_stiffness", 0.0).map_err(at)?,
                                    attrs.number("spring_reference", 0.0).map_err(at)?,
                                ));
                            }
                        }
                        "mimic" => {
                            let leader = attrs.get("joint").ok_or_else(|| {
                                at("<mimic> names no leader joint (joint=\"…\")".into())
                            })?;
                            j.mimic = Some(Mimic {
                                joint: leader,
                                multiplier: attrs.number("multiplier", 1.0).map_err(at)?,
                                offset: attrs.number("offset", 0.0).map_err(at)?,
                            });
                        }
                        _ => {}
                    }
                    Place::Skipped
                }
                _ => Place::Skipped,
            }
        };
        if !empty {
            stack.push(place);
        }
    }
    if !seen_root {
        return Err(ReadError::NotUrdf(
            "not a URDF: the file has no XML elements".into(),
        ));
    }
    Ok(doc)
}

fn not_urdf(root: &str) -> String {
    let what = match root {
        "sdf" => "an SDF file; convert it to URDF first (for example with the `sdformat_urdf` \
                  ROS package, or export URDF from your CAD tool)"
            .to_string(),
        "mujoco" => "a MuJoCo MJCF file; export the robot as URDF first".to_string(),
        "COLLADA" => "a COLLADA mesh, not a robot description".to_string(),
        other => format!("its root element is <{other}>, not <robot>"),
    };
    format!("not a URDF: {what}")
}

/// The attributes of one element, unescaped.
struct Attrs(Vec<(String, String)>);

impl Attrs {
    fn read(e: &quick_xml::events::BytesStart) -> Result<Self, String> {
        let mut out = Vec::new();
        for a in e.attributes().with_checks(false) {
            let a = a.map_err(|x| x.to_string())?;
            let key = String::from_utf8_lossy(a.key.as_ref()).into_owned();
            let value = a.unescape_value().map_err(|x| x.to_string())?.into_owned();
            out.push((key, value));
        }
        Ok(Self(out))
    }

    fn any_key_starts_with(&self, prefix: &str) -> bool {
        self.0.iter().any(|(k, _)| k.starts_with(prefix))
    }

    fn get(&self, key: &str) -> Option<String> {
        self.0
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
    }

    fn values(&self, key: &str) -> Result<Option<Vec<f64>>, String> {
        let Some(v) = self.get(key) else {
            return Ok(None);
        };
        if v.contains("${") || v.contains("$(") {
            return Err(format!("{key}=\"{v}\" is a xacro expression: {XACRO_HINT}"));
        }
        v.split_whitespace()
            .map(|s| s.parse::<f64>())
            .collect::<Result<Vec<_>, _>>()
            .map(Some)
            .map_err(|_| format!("{key}=\"{v}\" is not a number"))
    }

    fn number(&self, key: &str, default: f64) -> Result<f64, String> {
        match self.values(key)?.as_deref() {
            None | Some([]) => Ok(default),
            Some([x]) => Ok(*x),
            Some(_) => Err(format!(
                "{key}=\"{}\" is not one number",
                self.get(key).unwrap_or_default()
            )),
        }
    }

    fn triple(&self, key: &str, default: [f64; 3]) -> Result<[f64; 3], String> {
        match self.values(key)?.as_deref() {
            None | Some([]) => Ok(default),
            Some([x, y, z]) => Ok([*x, *y, *z]),
            Some(_) => Err(format!(
                "{key}=\"{}\" is not three numbers",
                self.get(key).unwrap_or_default()
            )),
        }
    }

    /// `rgba`: four numbers in [0, 1], or `None`.
    fn color(&self) -> Option<[f64; 4]> {
        match self.values("rgba").ok()??.as_slice() {
            &[r, g, b, a] if [r, g, b, a].iter().all(|c| (0.0..=1.0).contains(c)) => {
                Some([r, g, b, a])
            }
            _ => None,
        }
    }

    fn pose(&self) -> Result<Pose, String> {
        Ok(Pose {
            xyz: self.triple("xyz", [0.0; 3])?,
            rpy: self.triple("rpy", [0.0; 3])?,
        })
    }
}

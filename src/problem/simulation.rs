//! The simulation file of `vito simulate`.
//!
//! ```yaml
//! name: sim_pendulum12           # optional; default: the file name
//! robot: ../robots/pendulum12.urdf  # relative to this file
//! base: fixed                    # fixed | planar | floating
//! gravity: [0, 0, -9.81]         # optional
//! lock: {joint3: 0.0}            # optional: weld joints (null: 0 or mid-range)
//! uncouple: [finger2]            # optional: mimic joints that move on their own
//! contact_points: [{name: toe, frame: foot, offset: [0, 0, -0.02], radius: 0.01}]
//! integrator: simpson            # trapezoid | simpson | galerkin:S (S = 1..6)
//! dt: 0.01                       # time step (s), > 0
//! duration: 2.0                  # simulated time (s), > 0; rounded up to whole steps
//! q0: [0.1, -0.2, ...]           # initial configuration, joint order of `vito model` (mimic
//!                                # joints at their coupled values: the coupling holds throughout)
//! v0: [0, 0, ...]                # optional initial velocity (default zero)
//! torques:                       # optional actuator torques, piecewise in time
//!   joints: [joint1, joint2]     # default: every actuated joint
//!   times: [0.0, 1.0]            # strictly increasing
//!   values: [[0.5, 0.0], [0.0, 0.0]]   # one row per time, one column per joint
//!   interpolation: linear        # linear | hold (zero-order hold); held past the ends
//! constraints:                   # optional holonomic point constraints
//!   - point: tip                 # a frame or contact point of the robot
//!     to: world                  # world, or another frame or contact point
//!     axes: [x, z]               # world axes along which the two points stay as at q0
//! newton: {tolerance: 1.0e-11, max_iterations: 30}   # optional
//! output: results/sim_pendulum12 # optional; default results/<name>
//! ```

use super::{
    ContactPointFile, ModelEdits, ProblemError, base_dir_of, parse_yaml, read_text, relative_to,
};
use crate::dynamics::{Workspace, forward_kinematics};
use crate::model::{BaseKind, Model, load_urdf};
use crate::spatial::{Transform, Vec3};
use crate::vi::simulate::SimulationOptions;
use crate::vi::{Galerkin, PointConstraint, PointLoad};
use serde::Deserialize;
use std::fmt;
use std::path::{Path, PathBuf};

/// A Galerkin integrator choice: `trapezoid` (s = 1), `simpson` (s = 2) or `galerkin:S`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Integrator(pub usize);

impl Default for Integrator {
    fn default() -> Self {
        Integrator(2)
    }
}

impl std::str::FromStr for Integrator {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || {
            format!(
                "unknown integrator '{s}' (expected trapezoid, simpson or galerkin:S with S in 1..=6)"
            )
        };
        let i = match s.trim() {
            "trapezoid" => 1,
            "simpson" => 2,
            other => {
                let Some(rest) = other.strip_prefix("galerkin:") else {
                    return Err(bad());
                };
                rest.trim().parse::<usize>().map_err(|_| bad())?
            }
        };
        if (1..=6).contains(&i) {
            Ok(Integrator(i))
        } else {
            Err(bad())
        }
    }
}

impl fmt::Display for Integrator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            1 => f.write_str("trapezoid"),
            2 => f.write_str("simpson"),
            s => write!(f, "galerkin:{s}"),
        }
    }
}

impl<'de> Deserialize<'de> for Integrator {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SimulationFile {
    name: Option<String>,
    robot: String,
    #[serde(default)]
    base: BaseKind,
    gravity: Option<[f64; 3]>,
    #[serde(default)]
    lock: std::collections::BTreeMap<String, Option<f64>>,
    #[serde(default)]
    uncouple: Vec<String>,
    #[serde(default)]
    contact_points: Vec<ContactPointFile>,
    #[serde(default)]
    integrator: Integrator,
    dt: f64,
    duration: f64,
    q0: Vec<f64>,
    v0: Option<Vec<f64>>,
    torques: Option<TorqueFile>,
    #[serde(default)]
    constraints: Vec<ConstraintFile>,
    #[serde(default)]
    newton: NewtonFile,
    output: Option<String>,
    terrain: Option<super::terrain::TerrainFile>,
    contacts: Option<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TorqueFile {
    joints: Option<Vec<String>>,
    times: Vec<f64>,
    values: Vec<Vec<f64>>,
    #[serde(default)]
    interpolation: Interpolation,
}

/// How a torque schedule fills the time between its samples.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Interpolation {
    /// Straight lines between samples.
    #[default]
    Linear,
    /// Each sample held until the next.
    Hold,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConstraintFile {
    point: String,
    #[serde(default = "world")]
    to: String,
    axes: Vec<String>,
}

fn world() -> String {
    "world".into()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, default)]
struct NewtonFile {
    tolerance: f64,
    max_iterations: usize,
}

impl Default for NewtonFile {
    fn default() -> Self {
        let d = SimulationOptions::default();
        Self {
            tolerance: d.tolerance,
            max_iterations: d.max_iterations,
        }
    }
}

/// Actuator torques as a function of time, for `Model::actuated_joints()`.
#[derive(Clone, Debug, PartialEq)]
pub struct TorqueSchedule {
    /// Column of each actuated joint in `values`, `None` for zero torque.
    columns: Vec<Option<usize>>,
    times: Vec<f64>,
    values: Vec<Vec<f64>>,
    interpolation: Interpolation,
}

impl TorqueSchedule {
    /// Torques at time `t` into `u` (actuated-joint order).
    pub fn sample(&self, t: f64, u: &mut [f64]) {
        let k = self.times.partition_point(|&x| x <= t);
        for (slot, col) in u.iter_mut().zip(&self.columns) {
            *slot = match col {
                None => 0.0,
                Some(c) => {
                    if k == 0 {
                        self.values[0][*c]
                    } else if k == self.times.len() || self.interpolation == Interpolation::Hold {
                        self.values[k - 1][*c]
                    } else {
                        let (t0, t1) = (self.times[k - 1], self.times[k]);
                        let w = (t - t0) / (t1 - t0);
                        (1.0 - w) * self.values[k - 1][*c] + w * self.values[k][*c]
                    }
                }
            };
        }
    }
}

/// A validated simulation: everything `vi::simulate` needs.
#[derive(Clone, Debug)]
pub struct SimulationProblem {
    /// Name (for the default output directory).
    pub name: String,
    /// The robot, with gravity applied.
    pub model: Model,
    /// The robot's URDF file (relative to the working directory, as the simulation file names it).
    pub robot_file: PathBuf,
    /// The integrator.
    pub integrator: Integrator,
    /// Step, horizon and Newton settings.
    pub options: SimulationOptions,
    /// Initial configuration.
    pub q0: Vec<f64>,
    /// Initial velocity.
    pub v0: Vec<f64>,
    /// Actuator torques (zero when absent).
    pub torques: Option<TorqueSchedule>,
    /// Holonomic constraints.
    pub constraints: Vec<PointConstraint>,
    /// Contact with the terrain, if the file has a `terrain:`.
    pub contact: Option<crate::contact::ContactModel>,
    /// Output directory.
    pub output: PathBuf,
}

impl SimulationProblem {
    /// The Galerkin coefficients of the chosen integrator.
    pub fn galerkin(&self) -> Galerkin {
        Galerkin::new(self.integrator.0).unwrap_or_else(|_| Galerkin::simpson())
    }
}

/// Command-line values that replace those of the file (validated the same way).
#[derive(Clone, Debug, Default)]
pub struct SimulationOverrides {
    /// `--integrator`.
    pub integrator: Option<Integrator>,
    /// `--dt`.
    pub dt: Option<f64>,
    /// `--duration`.
    pub duration: Option<f64>,
    /// `--output`.
    pub output: Option<PathBuf>,
}

/// Reads and validates a simulation file: [`load_simulation_str`] on its text, with relative
/// paths starting from the file's directory.
///
/// # Errors
/// A [`ProblemError`] naming the file and field.
pub fn load_simulation(
    path: &Path,
    overrides: &SimulationOverrides,
) -> Result<SimulationProblem, ProblemError> {
    let text = read_text(path)?;
    load_simulation_str(
        &text,
        base_dir_of(path),
        &path.display().to_string(),
        overrides,
    )
}

/// Validates a simulation given as YAML (or JSON) text, as [`load_simulation`] does a file's.
/// The `robot` path starts from `base_dir`; errors name the file as `shown`, and without a
/// `name` the simulation is named after `shown`'s file stem.
///
/// # Errors
/// A [`ProblemError`] naming `shown` and the field.
pub fn load_simulation_str(
    text: &str,
    base_dir: &Path,
    shown: &str,
    overrides: &SimulationOverrides,
) -> Result<SimulationProblem, ProblemError> {
    let f: SimulationFile = parse_yaml(text, shown)?;
    let path = Path::new(shown);
    let shown = shown.to_string();
    let invalid = |field: &str, message: String| ProblemError::Invalid {
        path: shown.clone(),
        field: field.to_string(),
        message,
    };
    let name = f.name.clone().unwrap_or_else(|| {
        path.file_stem()
            .map_or_else(|| "simulation".into(), |s| s.to_string_lossy().into_owned())
    });
    let gravity = f
        .gravity
        .unwrap_or([0.0, 0.0, -crate::model::STANDARD_GRAVITY]);
    if gravity.iter().any(|g| !g.is_finite()) {
        return Err(invalid(
            "gravity",
            format!("must be three finite numbers, got {gravity:?}"),
        ));
    }
    let robot_file = relative_to(base_dir, &f.robot);
    let model = load_urdf(&robot_file, f.base)
        .map_err(|source| ProblemError::Robot {
            path: shown.clone(),
            source,
        })?
        .with_gravity(Vec3::from(gravity));
    let model = ModelEdits {
        lock: &f.lock,
        uncouple: &f.uncouple,
        contact_points: &f.contact_points,
    }
    .apply(model, &shown)?;
    let n = model.dof();
    let dt = overrides.dt.unwrap_or(f.dt);
    if !(dt > 0.0 && dt.is_finite()) {
        return Err(invalid(
            "dt",
            format!("must be a positive number of seconds, got {dt}"),
        ));
    }
    let duration = overrides.duration.unwrap_or(f.duration);
    if !(duration > 0.0 && duration.is_finite()) {
        return Err(invalid(
            "duration",
            format!("must be a positive number of seconds, got {duration}"),
        ));
    }
    let steps = (duration / dt - 1e-9).ceil().max(1.0);
    if steps > 1e8 {
        return Err(invalid(
            "dt",
            format!("{steps} steps are too many; raise dt"),
        ));
    }
    let joints = model.joint_names().join(", ");
    let check_len = |field: &str, v: &[f64]| -> Result<(), ProblemError> {
        if v.len() != n {
            return Err(invalid(
                field,
                format!(
                    "has {} values but robot '{}' has {n} DoF ({joints})",
                    v.len(),
                    model.name()
                ),
            ));
        }
        if let Some(i) = v.iter().position(|x| !x.is_finite()) {
            return Err(invalid(
                &format!("{field}[{i}]"),
                "must be a finite number".into(),
            ));
        }
        Ok(())
    };
    check_len("q0", &f.q0)?;
    let v0 = f.v0.clone().unwrap_or_else(|| vec![0.0; n]);
    check_len("v0", &v0)?;
    for c in model.couplings() {
        let (f_name, l_name) = (&model.joint(c.follower).name, &model.joint(c.leader).name);
        let q = c.follower_value(f.q0[c.leader]);
        let v = c.multiplier * v0[c.leader];
        for (field, got, want) in [("q0", f.q0[c.follower], q), ("v0", v0[c.follower], v)] {
            if (got - want).abs() > 1e-9 * want.abs().max(1.0) {
                return Err(invalid(
                    &format!("{field}[{}]", c.follower),
                    format!(
                        "joint '{f_name}' follows '{l_name}' (q = {} · q_{l_name} + {}), so it                          must be {want}, not {got} (or list it under uncouple)",
                        c.multiplier, c.offset
                    ),
                ));
            }
        }
    }
    if !(f.newton.tolerance > 0.0 && f.newton.tolerance.is_finite()) {
        return Err(invalid(
            "newton.tolerance",
            format!("must be positive, got {}", f.newton.tolerance),
        ));
    }
    if f.newton.max_iterations == 0 {
        return Err(invalid(
            "newton.max_iterations",
            "must be at least 1".into(),
        ));
    }
    let torques = match &f.torques {
        None => None,
        Some(t) => Some(torque_schedule(&model, t, &invalid)?),
    };
    let constraints = constraints(&model, &f.constraints, &f.q0, &invalid)?;
    let contact =
        super::terrain::contact_model(&shown, &model, f.terrain.as_ref(), f.contacts.as_deref())?;
    if contact.is_some() && !constraints.is_empty() {
        return Err(invalid(
            "constraints",
            "holonomic constraints cannot be combined with terrain contact in one simulation"
                .into(),
        ));
    }
    let output = overrides.output.clone().unwrap_or_else(|| match &f.output {
        Some(o) => PathBuf::from(o),
        None => PathBuf::from("results").join(&name),
    });
    Ok(SimulationProblem {
        contact,
        name,
        robot_file,
        integrator: overrides.integrator.unwrap_or(f.integrator),
        options: SimulationOptions {
            dt,
            steps: steps as usize,
            tolerance: f.newton.tolerance,
            max_iterations: f.newton.max_iterations,
            ..SimulationOptions::default()
        },
        q0: f.q0,
        v0,
        torques,
        constraints,
        output,
        model,
    })
}

fn torque_schedule(
    model: &Model,
    t: &TorqueFile,
    invalid: &dyn Fn(&str, String) -> ProblemError,
) -> Result<TorqueSchedule, ProblemError> {
    let actuated = model.actuated_joints();
    let names: Vec<String> = match &t.joints {
        Some(j) => j.clone(),
        None => actuated
            .iter()
            .map(|&i| model.joint(i).name.clone())
            .collect(),
    };
    let mut columns = vec![None; actuated.len()];
    for (c, name) in names.iter().enumerate() {
        let slot = actuated.iter().position(|&i| model.joint(i).name == *name);
        match slot {
            Some(k) => columns[k] = Some(c),
            None => {
                let allowed: Vec<&str> = actuated
                    .iter()
                    .map(|&i| model.joint(i).name.as_str())
                    .collect();
                return Err(invalid(
                    &format!("torques.joints[{c}]"),
                    format!(
                        "'{name}' is not an actuated joint (actuated: {})",
                        allowed.join(", ")
                    ),
                ));
            }
        }
    }
    if t.times.is_empty() {
        return Err(invalid("torques.times", "needs at least one time".into()));
    }
    for (k, w) in t.times.windows(2).enumerate() {
        if w[1].partial_cmp(&w[0]) != Some(std::cmp::Ordering::Greater) {
            return Err(invalid(
                &format!("torques.times[{}]", k + 1),
                format!("times must increase strictly, got {} after {}", w[1], w[0]),
            ));
        }
    }
    if t.values.len() != t.times.len() {
        return Err(invalid(
            "torques.values",
            format!(
                "has {} rows but there are {} times",
                t.values.len(),
                t.times.len()
            ),
        ));
    }
    for (k, row) in t.values.iter().enumerate() {
        if row.len() != names.len() {
            return Err(invalid(
                &format!("torques.values[{k}]"),
                format!(
                    "has {} values but there are {} joints",
                    row.len(),
                    names.len()
                ),
            ));
        }
        if row.iter().any(|x| !x.is_finite()) {
            return Err(invalid(
                &format!("torques.values[{k}]"),
                "must be finite".into(),
            ));
        }
    }
    Ok(TorqueSchedule {
        columns,
        times: t.times.clone(),
        values: t.values.clone(),
        interpolation: t.interpolation,
    })
}

/// Finds a frame or contact point by name: its body and offset.
fn point(model: &Model, name: &str) -> Option<PointLoad> {
    if let Some(f) = model.frame(name) {
        return Some(PointLoad {
            body: f.body,
            offset: f.placement.translation,
        });
    }
    model
        .contact_points()
        .iter()
        .find(|c| c.name == name)
        .map(|c| PointLoad {
            body: c.body,
            offset: c.offset,
        })
}

fn constraints(
    model: &Model,
    specs: &[ConstraintFile],
    q0: &[f64],
    invalid: &dyn Fn(&str, String) -> ProblemError,
) -> Result<Vec<PointConstraint>, ProblemError> {
    let mut ws = Workspace::new(model);
    forward_kinematics(model, &mut ws, q0);
    let world_point = |p: &PointLoad| ws.body_pose(p.body).transform_point(&p.offset);
    let mut out = Vec::new();
    let names = || {
        let mut v: Vec<&str> = model.frames().iter().map(|f| f.name.as_str()).collect();
        v.extend(model.contact_points().iter().map(|c| c.name.as_str()));
        v.join(", ")
    };
    for (k, c) in specs.iter().enumerate() {
        let a = point(model, &c.point).ok_or_else(|| {
            invalid(
                &format!("constraints[{k}].point"),
                format!(
                    "'{}' is not a frame or contact point (known: {})",
                    c.point,
                    names()
                ),
            )
        })?;
        let b = if c.to == "world" {
            None
        } else {
            Some(point(model, &c.to).ok_or_else(|| {
                invalid(
                    &format!("constraints[{k}].to"),
                    format!("'{}' is not 'world', a frame or a contact point", c.to),
                )
            })?)
        };
        if c.axes.is_empty() {
            return Err(invalid(
                &format!("constraints[{k}].axes"),
                "needs x, y or z".into(),
            ));
        }
        let pa = world_point(&a);
        let pb = b
            .as_ref()
            .map_or_else(|| Transform::identity().translation, world_point);
        for (j, axis) in c.axes.iter().enumerate() {
            let e = match axis.as_str() {
                "x" => Vec3::x(),
                "y" => Vec3::y(),
                "z" => Vec3::z(),
                other => {
                    return Err(invalid(
                        &format!("constraints[{k}].axes[{j}]"),
                        format!("'{other}' is not an axis (x, y or z)"),
                    ));
                }
            };
            out.push(PointConstraint {
                a,
                b,
                direction: e,
                target: e.dot(&(pa - pb)),
            });
        }
    }
    Ok(out)
}

//! The motion-problem file of `vito solve` and `vito compare`. Every field is documented in
//! `problems/README.md`; in short:
//!
//! ```yaml
//! name: pendulum_swingup_2          # required; results go to results/<name>/
//! robot: ../robots/pendulum2.urdf   # relative to this file
//! base: fixed                       # fixed | planar | floating
//! gravity: [0, 0, -9.81]
//! actuated: [joint2]                # optional: only these joints have motors
//! lock: {joint1: 0.3}               # optional: weld joints (null: 0 or mid-range)
//! uncouple: [finger2]               # optional: mimic joints that move on their own
//! contact_points: [{name: toe, frame: foot, offset: [0, 0, -0.02], radius: 0.01}]
//! duration: 3.0                     # horizon T (s)
//! stages: 30                        # N stages (intervals)
//! transcription: simpson_vi         # simpson_vi | trapezoid_vi | {galerkin: S} | hermite_simpson
//! initial: {q: [0, 0], v: [0, 0]}   # per joint: number (fixed), [lo, hi] (bounded) or free
//! final:   {q: [3.14159, 0], v: [0, 0]}
//! bounds:                           # defaults: the URDF limits
//!   q: {joint1: [-7, 7]}            # a map by joint, a list per joint, or one [lo, hi] for all
//!   v: [-20, 20]
//!   u: [-50, 50]                    # actuated joints only
//! costs:
//!   effort: 1.0                     # ∫ uᵀ W u dt: one weight, a list or a map by joint
//!   velocity: 0.01                  # ∫ q̇ᵀ W q̇ dt: one weight, a list or a map by joint
//!   tracking: {weight: 1.0, q: [...]}           # ∫ (q − q_ref)ᵀ W (q − q_ref) dt
//!   terminal: {weight: 100, q: [...], v: [...]} # |q(T) − q_T|² + |v(T) − v_T|²
//!   targets: [{frame: tool, position: [0.5, 0, 0.6], weight: 100, time: end}]
//! constraints:
//!   - frame_position: {frame: tool, position: [0.5, 0, 0.6], time: end, axes: [x, y, z]}
//!   - frame_orientation: {frame: tool, rpy: [0, 1.57, 0], time: end}
//!   - joint_equality: {joint: a, equals: b, ratio: 1.0, offset: 0.0}
//!   - frame_bounds: {frame: l_sole, z: [0.05, .inf]}       # at every point
//!   - obstacle_clearance: {frame: l_shank, from: [0, 0, 0], to: [0, 0, -0.42], samples: 10, margin: 0.025}
//! stance: [{frame: r_sole, friction: 0.8, sole: {x: [-0.09, 0.17], y: [-0.07, 0.06]}}]
//! solver: {qp: clarabel, tolerance: 1.0e-6, max_iterations: 300, hessian: exact}
//! initial_guess: interpolate        # or {from: ../results/x/trajectory.csv}, {solve: easier.yaml}
//! output: results/pendulum_swingup_2
//! ```

use super::recording::Recording;
use super::stance::{Stance, StanceFile, stances};
use super::terrain::{TerrainFile, contact_model};
use super::{
    ContactPointFile, ModelEdits, ProblemError, base_dir_of, parse_yaml, read_text, relative_to,
};
use crate::contact::ContactModel;
use crate::model::{BaseKind, Model, load_urdf};
use crate::spatial::{Mat3, Transform, Vec3};
use crate::sqp::{Method, QpBackend, Settings};
use serde::Deserialize;
use serde_yaml_ng::Value;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// How the dynamics become constraints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TranscriptionKind {
    /// The Galerkin variational integrator with `s` intervals per stage (`simpson_vi`: s = 2,
    /// `trapezoid_vi`: s = 1, `{galerkin: s}`).
    Variational(usize),
    /// Implicit Hermite–Simpson direct collocation.
    HermiteSimpson,
}

impl fmt::Display for TranscriptionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TranscriptionKind::Variational(1) => f.write_str("trapezoid_vi"),
            TranscriptionKind::Variational(2) => f.write_str("simpson_vi"),
            TranscriptionKind::Variational(s) => write!(f, "galerkin:{s}"),
            TranscriptionKind::HermiteSimpson => f.write_str("hermite_simpson"),
        }
    }
}

impl std::str::FromStr for TranscriptionKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || {
            format!(
                "unknown transcription '{s}' (expected simpson_vi, trapezoid_vi, galerkin:S with S in 1..=6, or hermite_simpson)"
            )
        };
        match s.trim() {
            "simpson_vi" => Ok(Self::Variational(2)),
            "trapezoid_vi" => Ok(Self::Variational(1)),
            "hermite_simpson" => Ok(Self::HermiteSimpson),
            other => {
                let rest = other.strip_prefix("galerkin:").ok_or_else(bad)?;
                match rest.trim().parse::<usize>() {
                    Ok(k) if (1..=6).contains(&k) => Ok(Self::Variational(k)),
                    _ => Err(bad()),
                }
            }
        }
    }
}

/// Per-joint lower and upper values; equal bounds fix a value, infinite ones leave it free.
#[derive(Clone, Debug, PartialEq)]
pub struct Ranges {
    /// Lower bounds.
    pub lower: Vec<f64>,
    /// Upper bounds.
    pub upper: Vec<f64>,
}

impl Ranges {
    fn free(n: usize) -> Self {
        Self {
            lower: vec![f64::NEG_INFINITY; n],
            upper: vec![f64::INFINITY; n],
        }
    }

    /// Whether every entry is fixed (`lower == upper`).
    pub fn all_fixed(&self) -> bool {
        self.lower.iter().zip(&self.upper).all(|(l, u)| l == u)
    }

    /// Whether every entry is free (both bounds infinite).
    pub fn all_free(&self) -> bool {
        self.lower.iter().all(|l| l.is_infinite()) && self.upper.iter().all(|u| u.is_infinite())
    }

    /// A representative value: the fixed value, the midpoint of a finite range, the finite end
    /// of a half range, or `fallback`.
    pub fn guess(&self, i: usize, fallback: f64) -> f64 {
        let (l, u) = (self.lower[i], self.upper[i]);
        match (l.is_finite(), u.is_finite()) {
            (true, true) => 0.5 * (l + u),
            (true, false) => l.max(fallback),
            (false, true) => u.min(fallback),
            (false, false) => fallback,
        }
    }
}

/// When a cost or constraint applies.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TimeSpec {
    /// At `t = 0`.
    Start,
    /// At `t = T`.
    End,
    /// At the control point nearest to this time (s).
    At(f64),
}

/// A point fixed on a body: a frame's origin or a contact point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyPoint {
    /// Body index.
    pub body: usize,
    /// Placement in the body frame.
    pub placement: Transform,
}

/// A squared-distance cost pulling a frame origin to a world position.
#[derive(Clone, Debug, PartialEq)]
pub struct FrameTarget {
    /// Frame name (for reports).
    pub name: String,
    /// The frame.
    pub point: BodyPoint,
    /// Target world position.
    pub position: Vec3,
    /// Weight.
    pub weight: f64,
    /// When (or `None`: integrated over the whole horizon).
    pub time: Option<TimeSpec>,
}

/// `w (|q(T) − q_T|² + |v(T) − v_T|²)`, each part optional.
#[derive(Clone, Debug, PartialEq)]
pub struct Terminal {
    /// Weight `w`.
    pub weight: f64,
    /// Target configuration.
    pub q: Option<Vec<f64>>,
    /// Target velocity.
    pub v: Option<Vec<f64>>,
}

/// `∫ Σ_i w_i (q_i − q_ref,i)² dt`.
#[derive(Clone, Debug, PartialEq)]
pub struct Tracking {
    /// `w_i` per joint.
    pub weight: Vec<f64>,
    /// The reference configuration `q_ref`.
    pub q: Vec<f64>,
}

/// The cost terms, all optional.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Costs {
    /// Weight of `∫ u_c² dt` per actuated joint.
    pub effort: Vec<f64>,
    /// Weight of `∫ q̇_i² dt` per joint.
    pub velocity: Vec<f64>,
    /// `∫ Σ_i w_i (q_i − q_ref,i)² dt`: the weight per joint and the reference configuration.
    pub tracking: Option<Tracking>,
    /// Terminal cost.
    pub terminal: Option<Terminal>,
    /// Frame targets.
    pub targets: Vec<FrameTarget>,
}

/// An equality constraint along the path.
#[derive(Clone, Debug, PartialEq)]
pub enum PathConstraint {
    /// `eᵀ p_frame(q(t)) = eᵀ target` along the chosen world axes.
    FramePosition {
        /// Frame name.
        name: String,
        /// The frame.
        point: BodyPoint,
        /// Target position.
        position: Vec3,
        /// Constrained world axes.
        axes: Vec<Vec3>,
        /// When.
        time: TimeSpec,
    },
    /// `½ vee(R_tᵀR − RᵀR_t) = 0`: the frame's orientation equals `R_t` (up to a half turn).
    FrameOrientation {
        /// Frame name.
        name: String,
        /// The frame.
        point: BodyPoint,
        /// Target world orientation.
        rotation: Mat3,
        /// When.
        time: TimeSpec,
    },
    /// `lower_k ≤ e_kᵀ p_frame(q) ≤ upper_k` along world axes `e_k` at every point.
    FrameBounds {
        /// Frame name.
        name: String,
        /// The frame.
        point: BodyPoint,
        /// `(e_k, lower_k, upper_k)` per bounded axis.
        axes: Vec<(Vec3, f64, f64)>,
    },
    /// `d_B(p_s(q)) ≥ margin` at every point, for samples `p_s` along a body segment and every
    /// terrain box and gap opening `B` (`d_B` the Euclidean distance to it).
    ObstacleClearance {
        /// Frame name.
        name: String,
        /// The samples, evenly spaced from `from` to `to` in the frame.
        samples: Vec<BodyPoint>,
        /// Smallest distance to an obstacle (m).
        margin: f64,
    },
    /// `q_a − ratio · q_b − offset = 0` at every control point.
    JointEquality {
        /// Joint index `a`.
        a: usize,
        /// Joint index `b`.
        b: usize,
        /// Ratio.
        ratio: f64,
        /// Offset.
        offset: f64,
    },
}

/// Where the solver starts.
#[derive(Clone, Debug)]
pub enum InitialGuess {
    /// Straight lines between the initial and final configurations, zero torques.
    Interpolate,
    /// A previous result's `trajectory.csv` (columns `t`, `q_<joint>`, `u_<joint>`),
    /// interpolated at the control points.
    FromCsv(PathBuf),
    /// Continuation: another problem (an easier one: flat ground before a box), solved first;
    /// this one starts from its trajectory.
    Solve(Box<TrajectoryProblem>),
    /// A trajectory in memory (what [`InitialGuess::Solve`] becomes once its problem is
    /// solved), interpolated at the control points.
    Recorded(Arc<Recording>),
}

/// A validated trajectory-optimization problem.
#[derive(Clone, Debug)]
pub struct TrajectoryProblem {
    /// Name.
    pub name: String,
    /// FNV-1a 64-bit hash of the problem file and the URDF text, as 16 hex digits.
    pub hash: String,
    /// The robot (gravity and actuation applied).
    pub model: Model,
    /// The robot's URDF file (relative to the working directory, as the problem file names it).
    pub robot_file: PathBuf,
    /// Horizon `T` (s).
    pub duration: f64,
    /// Number of stages `N`.
    pub stages: usize,
    /// Transcription.
    pub transcription: TranscriptionKind,
    /// Initial configuration bounds.
    pub initial_q: Ranges,
    /// Initial velocity bounds.
    pub initial_v: Ranges,
    /// Final configuration bounds.
    pub final_q: Ranges,
    /// Final velocity bounds.
    pub final_v: Ranges,
    /// Contact points (indices into `contact.sites`) on the ground and at rest at `t = 0`
    /// (`initial.at_rest`) and at `t = T` (`final.at_rest`).
    pub at_rest: [Vec<usize>; 2],
    /// Joint position bounds along the path.
    pub q_bounds: Ranges,
    /// Joint velocity bounds along the path.
    pub v_bounds: Ranges,
    /// Torque bounds of the actuated joints.
    pub u_bounds: Ranges,
    /// Costs.
    pub costs: Costs,
    /// Path constraints.
    pub constraints: Vec<PathConstraint>,
    /// SQP settings.
    pub solver: Settings,
    /// Starting point.
    pub initial_guess: InitialGuess,
    /// Output directory.
    pub output: PathBuf,
    /// Contact with the terrain, if the problem has a `terrain:`.
    pub contact: Option<ContactModel>,
    /// How the contact conditions' complementarity is solved.
    pub complementarity: ComplementarityMethod,
    /// Feet held flat on the ground for the whole motion.
    pub stances: Vec<Stance>,
}

/// How a transcription poses the complementarity of the contact conditions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ComplementarityMethod {
    /// Each pair goes to the SQP, which relaxes it to `a·b ≤ ε` and drives `ε` to zero.
    Relaxation,
    /// Exact ℓ1 penalty: `weight · Σ a·b` (every factor nonnegative) is added to the
    /// objective, and the pairs are checked after the solve.
    Penalty(f64),
    /// Smoothed Fischer–Burmeister equalities `a + b − √(a² + b² + 2μ²) = 0` (so `a, b > 0`,
    /// `ab = μ²`), solved for `μ` from `start` down to `end`, each solve warm-started from the
    /// one before (the schedule: `transcription::solve`). The default method.
    Smoothing {
        /// The first `μ`.
        start: f64,
        /// The last `μ`; `None` for the one the complementarity tolerance asks for
        /// (`Settings::smoothing_margin`).
        end: Option<f64>,
    },
}

/// Default first smoothing of the complementarity (`μ`, in the variables' units).
pub const DEFAULT_SMOOTHING_START: f64 = 1e-2;

/// Default weight of the complementarity penalty.
pub const DEFAULT_PENALTY_WEIGHT: f64 = 100.0;

/// Command-line values that replace those of the file.
#[derive(Clone, Debug, Default)]
pub struct ProblemOverrides {
    /// `--output`.
    pub output: Option<PathBuf>,
    /// `--qp`.
    pub qp: Option<QpBackend>,
    /// `--method`.
    pub method: Option<Method>,
    /// `--transcription`.
    pub transcription: Option<TranscriptionKind>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ProblemFile {
    name: String,
    robot: String,
    #[serde(default)]
    base: BaseKind,
    gravity: Option<[f64; 3]>,
    actuated: Option<Vec<String>>,
    #[serde(default)]
    lock: std::collections::BTreeMap<String, Option<f64>>,
    #[serde(default)]
    uncouple: Vec<String>,
    #[serde(default)]
    contact_points: Vec<ContactPointFile>,
    duration: f64,
    stages: usize,
    transcription: Option<Value>,
    #[serde(default)]
    initial: StateFile,
    #[serde(default, rename = "final")]
    final_state: StateFile,
    #[serde(default)]
    bounds: BoundsFile,
    #[serde(default)]
    costs: CostsFile,
    #[serde(default)]
    constraints: Vec<ConstraintFile>,
    #[serde(default)]
    solver: Settings,
    initial_guess: Option<Value>,
    output: Option<String>,
    terrain: Option<TerrainFile>,
    contacts: Option<Vec<String>>,
    complementarity: Option<ComplementarityFile>,
    #[serde(default)]
    stance: Vec<StanceFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ComplementarityFile {
    method: String,
    weight: Option<f64>,
    start: Option<f64>,
    end: Option<f64>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct StateFile {
    q: Option<Value>,
    v: Option<Value>,
    at_rest: Option<Vec<String>>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct BoundsFile {
    q: Option<Value>,
    v: Option<Value>,
    u: Option<Value>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct CostsFile {
    effort: Option<Value>,
    velocity: Option<Value>,
    tracking: Option<TrackingFile>,
    terminal: Option<TerminalFile>,
    #[serde(default)]
    targets: Vec<TargetFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TrackingFile {
    weight: Option<Value>,
    q: Vec<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TerminalFile {
    #[serde(default = "one")]
    weight: f64,
    q: Option<Vec<f64>>,
    v: Option<Vec<f64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TargetFile {
    frame: String,
    position: [f64; 3],
    #[serde(default = "one")]
    weight: f64,
    time: Option<Value>,
}

fn one() -> f64 {
    1.0
}

/// One path constraint: exactly one of the keys.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConstraintFile {
    frame_position: Option<FramePositionFile>,
    frame_orientation: Option<FrameOrientationFile>,
    joint_equality: Option<JointEqualityFile>,
    frame_bounds: Option<FrameBoundsFile>,
    obstacle_clearance: Option<ObstacleClearanceFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ObstacleClearanceFile {
    frame: String,
    from: [f64; 3],
    to: [f64; 3],
    samples: usize,
    margin: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FrameBoundsFile {
    frame: String,
    x: Option<Value>,
    y: Option<Value>,
    z: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FramePositionFile {
    frame: String,
    position: [f64; 3],
    time: Value,
    axes: Option<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FrameOrientationFile {
    frame: String,
    rpy: [f64; 3],
    time: Value,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JointEqualityFile {
    joint: String,
    equals: String,
    #[serde(default = "one")]
    ratio: f64,
    #[serde(default)]
    offset: f64,
}

/// Validation context: the file name for messages and the model's joints.
pub(super) struct Ctx<'a> {
    pub path: &'a str,
    pub model: &'a Model,
}

impl Ctx<'_> {
    pub fn invalid(&self, field: &str, message: impl Into<String>) -> ProblemError {
        ProblemError::Invalid {
            path: self.path.to_string(),
            field: field.to_string(),
            message: message.into(),
        }
    }

    fn number(&self, field: &str, v: &Value) -> Result<f64, ProblemError> {
        match v.as_f64() {
            Some(x) if x.is_finite() => Ok(x),
            _ => Err(self.invalid(field, format!("expected a finite number, got {}", show(v)))),
        }
    }

    fn range(&self, field: &str, v: &Value) -> Result<(f64, f64), ProblemError> {
        let seq = v.as_sequence().filter(|s| s.len() == 2).ok_or_else(|| {
            self.invalid(field, format!("expected [lower, upper], got {}", show(v)))
        })?;
        let lo = self.bound(&format!("{field}[0]"), &seq[0])?;
        let hi = self.bound(&format!("{field}[1]"), &seq[1])?;
        if lo > hi {
            return Err(self.invalid(field, format!("lower bound {lo} exceeds upper bound {hi}")));
        }
        Ok((lo, hi))
    }

    /// A bound: a number, or `.inf` / `-.inf`.
    fn bound(&self, field: &str, v: &Value) -> Result<f64, ProblemError> {
        match v.as_f64() {
            Some(x) if !x.is_nan() => Ok(x),
            _ => Err(self.invalid(field, format!("expected a number, got {}", show(v)))),
        }
    }

    /// Joint names of `joints` (indices), for messages.
    fn names(&self, joints: &[usize]) -> String {
        joints
            .iter()
            .map(|&i| self.model.joint(i).name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Parses a per-joint specification: a sequence over `joints`, or a map by joint name
    /// (joints not listed keep their entry of `defaults`). `entry` reads one value.
    fn per_joint<T: Clone>(
        &self,
        field: &str,
        v: &Value,
        joints: &[usize],
        defaults: Vec<T>,
        entry: &dyn Fn(&str, &Value) -> Result<T, ProblemError>,
    ) -> Result<Vec<T>, ProblemError> {
        let mut out = defaults;
        match v {
            Value::Sequence(seq) => {
                if seq.len() != joints.len() {
                    return Err(self.invalid(
                        field,
                        format!(
                            "has {} entries but needs {} ({})",
                            seq.len(),
                            joints.len(),
                            self.names(joints)
                        ),
                    ));
                }
                for (k, item) in seq.iter().enumerate() {
                    out[k] = entry(&format!("{field}[{k}]"), item)?;
                }
            }
            Value::Mapping(map) => {
                for (key, item) in map {
                    let name = key.as_str().unwrap_or_default();
                    let k = joints
                        .iter()
                        .position(|&i| self.model.joint(i).name == name)
                        .ok_or_else(|| {
                            self.invalid(
                                field,
                                format!(
                                    "'{}' is not one of the joints here ({})",
                                    show(key),
                                    self.names(joints)
                                ),
                            )
                        })?;
                    out[k] = entry(&format!("{field}.{name}"), item)?;
                }
            }
            other => {
                return Err(self.invalid(
                    field,
                    format!(
                        "expected a list (one entry per joint) or a map by joint name, got {}",
                        show(other)
                    ),
                ));
            }
        }
        Ok(out)
    }

    /// A boundary state: each joint a number (fixed), `[lo, hi]` or `free`.
    fn state(&self, field: &str, v: Option<&Value>, n: usize) -> Result<Ranges, ProblemError> {
        let Some(v) = v else {
            return Ok(Ranges::free(n));
        };
        let all: Vec<usize> = (0..n).collect();
        let entry = |f: &str, item: &Value| -> Result<(f64, f64), ProblemError> {
            match item {
                Value::String(s) if s == "free" => Ok((f64::NEG_INFINITY, f64::INFINITY)),
                Value::Sequence(_) => self.range(f, item),
                _ => match item.as_f64() {
                    Some(x) if x.is_finite() => Ok((x, x)),
                    _ => Err(self.invalid(
                        f,
                        format!(
                            "expected a number (fixed), [lower, upper] (bounded) or free, got {}",
                            show(item)
                        ),
                    )),
                },
            }
        };
        let free = vec![(f64::NEG_INFINITY, f64::INFINITY); n];
        let pairs = self.per_joint(field, v, &all, free, &entry)?;
        Ok(Ranges {
            lower: pairs.iter().map(|p| p.0).collect(),
            upper: pairs.iter().map(|p| p.1).collect(),
        })
    }

    /// Path bounds over `joints`: one `[lo, hi]` for all, a list of ranges, or a map.
    fn bounds(
        &self,
        field: &str,
        v: Option<&Value>,
        joints: &[usize],
        defaults: Ranges,
    ) -> Result<Ranges, ProblemError> {
        let Some(v) = v else {
            return Ok(defaults);
        };
        let pairs: Vec<(f64, f64)> = defaults
            .lower
            .iter()
            .copied()
            .zip(defaults.upper.iter().copied())
            .collect();
        let is_single = v
            .as_sequence()
            .is_some_and(|s| s.len() == 2 && s.iter().all(|x| x.as_f64().is_some()));
        let pairs = if is_single {
            let r = self.range(field, v)?;
            vec![r; joints.len()]
        } else {
            self.per_joint(field, v, joints, pairs, &|f, item| self.range(f, item))?
        };
        Ok(Ranges {
            lower: pairs.iter().map(|p| p.0).collect(),
            upper: pairs.iter().map(|p| p.1).collect(),
        })
    }

    fn time(
        &self,
        field: &str,
        v: Option<&Value>,
        duration: f64,
    ) -> Result<TimeSpec, ProblemError> {
        match v {
            None => Ok(TimeSpec::End),
            Some(Value::String(s)) if s == "end" => Ok(TimeSpec::End),
            Some(Value::String(s)) if s == "start" => Ok(TimeSpec::Start),
            Some(other) => match other.as_f64() {
                Some(t) if (0.0..=duration).contains(&t) => Ok(TimeSpec::At(t)),
                _ => Err(self.invalid(
                    field,
                    format!(
                        "expected start, end or a time in [0, {duration}] s, got {}",
                        show(other)
                    ),
                )),
            },
        }
    }

    pub fn point(&self, field: &str, name: &str) -> Result<BodyPoint, ProblemError> {
        if let Some(f) = self.model.frame(name) {
            return Ok(BodyPoint {
                body: f.body,
                placement: f.placement,
            });
        }
        if let Some(c) = self.model.contact_points().iter().find(|c| c.name == name) {
            return Ok(BodyPoint {
                body: c.body,
                placement: Transform::from_translation(c.offset),
            });
        }
        let mut known: Vec<&str> = self
            .model
            .frames()
            .iter()
            .map(|f| f.name.as_str())
            .collect();
        known.extend(self.model.contact_points().iter().map(|c| c.name.as_str()));
        Err(self.invalid(
            field,
            format!(
                "'{name}' is not a frame or contact point of the robot (known: {})",
                known.join(", ")
            ),
        ))
    }

    fn joint(&self, field: &str, name: &str) -> Result<usize, ProblemError> {
        self.model.joint_index(name).ok_or_else(|| {
            self.invalid(
                field,
                format!(
                    "'{name}' is not a joint (joints: {})",
                    self.model.joint_names().join(", ")
                ),
            )
        })
    }

    fn vector(&self, field: &str, v: &[f64], n: usize) -> Result<Vec<f64>, ProblemError> {
        if v.len() != n {
            return Err(self.invalid(
                field,
                format!(
                    "has {} values but the robot has {n} DoF ({})",
                    v.len(),
                    self.model.joint_names().join(", ")
                ),
            ));
        }
        if let Some(k) = v.iter().position(|x| !x.is_finite()) {
            return Err(self.invalid(&format!("{field}[{k}]"), "must be a finite number"));
        }
        Ok(v.to_vec())
    }

    fn nonnegative(&self, field: &str, w: f64) -> Result<f64, ProblemError> {
        if w >= 0.0 && w.is_finite() {
            Ok(w)
        } else {
            Err(self.invalid(field, format!("must be a non-negative number, got {w}")))
        }
    }
}

/// A YAML value as the user wrote it, for messages.
fn show(v: &Value) -> String {
    serde_yaml_ng::to_string(v)
        .map(|s| s.trim().replace('\n', " "))
        .unwrap_or_else(|_| "?".into())
}

/// The problem of `initial_guess: {solve: path}` in the file `shown` (reached through
/// `chain`), loaded with the same `overrides`.
///
/// # Errors
/// A [`ProblemError`] naming `shown` when `path` does not exist or is already in the chain (a
/// cycle), or naming `path` when its problem is invalid.
fn load_first(
    path: &Path,
    shown: &str,
    overrides: &ProblemOverrides,
    chain: &mut Chain,
) -> Result<TrajectoryProblem, ProblemError> {
    let invalid = |message: String| ProblemError::Invalid {
        path: shown.to_string(),
        field: "initial_guess.solve".to_string(),
        message,
    };
    let Ok(canonical) = path.canonicalize() else {
        return Err(invalid(format!("{} does not exist", path.display())));
    };
    if chain.contains(&canonical) {
        return Err(invalid(format!(
            "{} is solved to start itself (a cycle of initial_guess.solve)",
            path.display()
        )));
    }
    let text = read_text(path)?;
    chain.push(canonical);
    let first = load_in_chain(
        &text,
        base_dir_of(path),
        &path.display().to_string(),
        overrides,
        chain,
    );
    chain.pop();
    first
}

/// FNV-1a, 64 bit, of the bytes of `parts` in turn, as 16 hex digits.
pub(crate) fn fnv1a(parts: &[&[u8]]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for b in *part {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

/// Reads and validates a motion-problem file: [`load_problem_str`] on its text, with relative
/// paths starting from the file's directory.
///
/// # Errors
/// A [`ProblemError`] naming the file and the field.
pub fn load_problem(
    path: &Path,
    overrides: &ProblemOverrides,
) -> Result<TrajectoryProblem, ProblemError> {
    let text = read_text(path)?;
    load_in_chain(
        &text,
        base_dir_of(path),
        &path.display().to_string(),
        overrides,
        &mut path.canonicalize().into_iter().collect(),
    )
}

/// A problem file's YAML `text`, whose relative paths start from `base_dir`, with those paths
/// (`robot`, `initial_guess.from`, `initial_guess.solve`) made absolute: the same problem,
/// wherever the text is written. Text that is not a YAML mapping comes back as it is, for
/// the loader to refuse.
pub fn anchor_paths(text: &str, base_dir: &Path) -> String {
    let Ok(mut doc) = serde_yaml_ng::from_str::<Value>(text) else {
        return text.to_string();
    };
    let base = std::path::absolute(base_dir).unwrap_or_else(|_| base_dir.to_path_buf());
    let anchor = |v: &mut Value| {
        if let Value::String(p) = v {
            *p = relative_to(&base, p).display().to_string();
        }
    };
    let Value::Mapping(m) = &mut doc else {
        return text.to_string();
    };
    if let Some(robot) = m.get_mut("robot") {
        anchor(robot);
    }
    if let Some(Value::Mapping(guess)) = m.get_mut("initial_guess") {
        for key in ["from", "solve"] {
            if let Some(p) = guess.get_mut(key) {
                anchor(p);
            }
        }
    }
    serde_yaml_ng::to_string(&doc).unwrap_or_else(|_| text.to_string())
}

/// The files of the `initial_guess: {solve: …}` chain being loaded, outermost first (to
/// refuse a cycle).
type Chain = Vec<PathBuf>;

/// Validates a motion problem given as YAML text (JSON too: YAML is a superset of it), as
/// [`load_problem`] does a file's. Relative paths in it (`robot`, `initial_guess.from`) start
/// from `base_dir`; errors name the file as `shown`. The problem's hash covers `text`.
///
/// # Errors
/// A [`ProblemError`] naming `shown` and the field.
pub fn load_problem_str(
    text: &str,
    base_dir: &Path,
    shown: &str,
    overrides: &ProblemOverrides,
) -> Result<TrajectoryProblem, ProblemError> {
    load_in_chain(text, base_dir, shown, overrides, &mut Chain::new())
}

/// [`load_problem_str`] of a problem reached through `chain`.
fn load_in_chain(
    text: &str,
    base_dir: &Path,
    shown: &str,
    overrides: &ProblemOverrides,
    chain: &mut Chain,
) -> Result<TrajectoryProblem, ProblemError> {
    let f: ProblemFile = parse_yaml(text, shown)?;
    let shown = shown.to_string();
    let early = |field: &str, message: String| ProblemError::Invalid {
        path: shown.clone(),
        field: field.to_string(),
        message,
    };
    if f.name.trim().is_empty() || f.name.contains(['/', '\\']) {
        return Err(early(
            "name",
            format!("'{}' must be a non-empty name without slashes", f.name),
        ));
    }
    if f.stages == 0 {
        return Err(early("stages", "must be at least 1".into()));
    }
    if f.stages > 100_000 {
        return Err(early("stages", format!("{} stages are too many", f.stages)));
    }
    if !(f.duration > 0.0 && f.duration.is_finite()) {
        return Err(early(
            "duration",
            format!("must be a positive number of seconds, got {}", f.duration),
        ));
    }
    let gravity = f
        .gravity
        .unwrap_or([0.0, 0.0, -crate::model::STANDARD_GRAVITY]);
    if gravity.iter().any(|g| !g.is_finite()) {
        return Err(early(
            "gravity",
            format!("must be three finite numbers, got {gravity:?}"),
        ));
    }
    let robot_path = relative_to(base_dir, &f.robot);
    let mut model = load_urdf(&robot_path, f.base)
        .map_err(|source| ProblemError::Robot {
            path: shown.clone(),
            source,
        })?
        .with_gravity(Vec3::from(gravity));
    model = ModelEdits {
        lock: &f.lock,
        uncouple: &f.uncouple,
        contact_points: &f.contact_points,
    }
    .apply(model, &shown)?;
    if let Some(names) = &f.actuated {
        model = model
            .with_actuated(names)
            .map_err(|m| early("actuated", m))?;
    }
    // Each coupled follower's input is its coupling's constraint force: free and unbounded.
    model = model.with_coupling_forces();
    let transcription = match (&overrides.transcription, &f.transcription) {
        (Some(t), _) => *t,
        (None, None) => TranscriptionKind::Variational(2),
        (None, Some(Value::String(s))) => s.parse().map_err(|m| early("transcription", m))?,
        (None, Some(Value::Mapping(m))) if m.len() == 1 && m.contains_key("galerkin") => {
            match m.get("galerkin").and_then(Value::as_u64) {
                Some(s) if (1..=6).contains(&s) => TranscriptionKind::Variational(s as usize),
                _ => {
                    return Err(early(
                        "transcription.galerkin",
                        "expected an integer from 1 to 6".into(),
                    ));
                }
            }
        }
        (None, Some(other)) => {
            return Err(early(
                "transcription",
                format!(
                    "expected simpson_vi, trapezoid_vi, {{galerkin: S}} or hermite_simpson, got {}",
                    show(other)
                ),
            ));
        }
    };
    if transcription == TranscriptionKind::HermiteSimpson && !model.couplings().is_empty() {
        // Collocation has velocity and acceleration variables of its own that a coupling of
        // positions does not tie; the variational transcription has none.
        let followers: Vec<&str> = model
            .couplings()
            .iter()
            .map(|c| model.joint(c.follower).name.as_str())
            .collect();
        return Err(early(
            "transcription",
            format!(
                "hermite_simpson does not apply mimic couplings (joints {}); use a variational \
                 transcription, or list the joints under lock or uncouple",
                followers.join(", ")
            ),
        ));
    }
    let ctx = Ctx {
        path: &shown,
        model: &model,
    };
    let n = model.dof();
    let all: Vec<usize> = (0..n).collect();
    let actuated = model.actuated_joints();
    let initial_q = ctx.state("initial.q", f.initial.q.as_ref(), n)?;
    let initial_v = ctx.state("initial.v", f.initial.v.as_ref(), n)?;
    let final_q = ctx.state("final.q", f.final_state.q.as_ref(), n)?;
    let final_v = ctx.state("final.v", f.final_state.v.as_ref(), n)?;
    let limits = |get: &dyn Fn(usize) -> (f64, f64), joints: &[usize]| Ranges {
        lower: joints.iter().map(|&i| get(i).0).collect(),
        upper: joints.iter().map(|&i| get(i).1).collect(),
    };
    let q_bounds = ctx.bounds(
        "bounds.q",
        f.bounds.q.as_ref(),
        &all,
        limits(
            &|i| (model.joint(i).limits.lower, model.joint(i).limits.upper),
            &all,
        ),
    )?;
    let v_bounds = ctx.bounds(
        "bounds.v",
        f.bounds.v.as_ref(),
        &all,
        limits(
            &|i| {
                (
                    -model.joint(i).limits.velocity,
                    model.joint(i).limits.velocity,
                )
            },
            &all,
        ),
    )?;
    let mut u_bounds = ctx.bounds(
        "bounds.u",
        f.bounds.u.as_ref(),
        &actuated,
        limits(
            &|i| (-model.joint(i).limits.effort, model.joint(i).limits.effort),
            &actuated,
        ),
    )?;
    for (field, state) in [("initial.q", &initial_q), ("final.q", &final_q)] {
        for i in 0..n {
            if state.upper[i] < q_bounds.lower[i] || state.lower[i] > q_bounds.upper[i] {
                return Err(ctx.invalid(
                    &format!("{field}[{i}]"),
                    format!(
                        "joint '{}' must lie in [{}, {}] but its bounds are [{}, {}]",
                        model.joint(i).name,
                        q_bounds.lower[i],
                        q_bounds.upper[i],
                        state.lower[i],
                        state.upper[i]
                    ),
                ));
            }
        }
    }
    let mut effort = match &f.costs.effort {
        None => vec![0.0; actuated.len()],
        Some(v) if v.as_f64().is_some() => {
            let w = ctx.nonnegative("costs.effort", ctx.number("costs.effort", v)?)?;
            vec![w; actuated.len()]
        }
        Some(v) => ctx.per_joint(
            "costs.effort",
            v,
            &actuated,
            vec![0.0; actuated.len()],
            &|fld, item| ctx.nonnegative(fld, ctx.number(fld, item)?),
        )?,
    };
    // A coupled follower's input is a constraint force, not a motor: unbounded and free.
    for c in model.couplings() {
        if let Some(k) = actuated.iter().position(|&i| i == c.follower) {
            u_bounds.lower[k] = f64::NEG_INFINITY;
            u_bounds.upper[k] = f64::INFINITY;
            effort[k] = 0.0;
        }
    }
    let all_joints: Vec<usize> = (0..n).collect();
    let joint_weights = |field: &str, v: &Value| -> Result<Vec<f64>, ProblemError> {
        match v.as_f64() {
            Some(_) => Ok(vec![ctx.nonnegative(field, ctx.number(field, v)?)?; n]),
            None => ctx.per_joint(field, v, &all_joints, vec![0.0; n], &|fld, item| {
                ctx.nonnegative(fld, ctx.number(fld, item)?)
            }),
        }
    };
    let velocity = match &f.costs.velocity {
        None => vec![0.0; n],
        Some(v) => joint_weights("costs.velocity", v)?,
    };
    let tracking = match &f.costs.tracking {
        None => None,
        Some(t) => Some(Tracking {
            weight: match &t.weight {
                None => vec![1.0; n],
                Some(w) => joint_weights("costs.tracking.weight", w)?,
            },
            q: ctx.vector("costs.tracking.q", &t.q, n)?,
        }),
    };
    let terminal = match &f.costs.terminal {
        None => None,
        Some(t) => Some(Terminal {
            weight: ctx.nonnegative("costs.terminal.weight", t.weight)?,
            q: t.q
                .as_ref()
                .map(|q| ctx.vector("costs.terminal.q", q, n))
                .transpose()?,
            v: t.v
                .as_ref()
                .map(|v| ctx.vector("costs.terminal.v", v, n))
                .transpose()?,
        }),
    };
    let mut targets = Vec::new();
    for (k, t) in f.costs.targets.iter().enumerate() {
        let field = format!("costs.targets[{k}]");
        let time = match &t.time {
            Some(Value::String(s)) if s == "path" => None,
            other => Some(ctx.time(&format!("{field}.time"), other.as_ref(), f.duration)?),
        };
        targets.push(FrameTarget {
            name: t.frame.clone(),
            point: ctx.point(&format!("{field}.frame"), &t.frame)?,
            position: finite3(&ctx, &format!("{field}.position"), t.position)?,
            weight: ctx.nonnegative(&format!("{field}.weight"), t.weight)?,
            time,
        });
    }
    let contact = contact_model(&shown, &model, f.terrain.as_ref(), f.contacts.as_deref())?;
    let at_rest = [
        ("initial.at_rest", &f.initial.at_rest),
        ("final.at_rest", &f.final_state.at_rest),
    ]
    .map(|(field, names)| resting_points(&ctx, field, names.as_deref(), contact.as_ref()));
    let [initial_rest, final_rest] = at_rest;
    let at_rest = [initial_rest?, final_rest?];
    let mut constraints: Vec<PathConstraint> = model
        .couplings()
        .iter()
        .map(|c| PathConstraint::JointEquality {
            a: c.follower,
            b: c.leader,
            ratio: c.multiplier,
            offset: c.offset,
        })
        .collect();
    for (k, c) in f.constraints.iter().enumerate() {
        let field = format!("constraints[{k}]");
        let kinds = [
            c.frame_position.is_some(),
            c.frame_orientation.is_some(),
            c.joint_equality.is_some(),
            c.frame_bounds.is_some(),
            c.obstacle_clearance.is_some(),
        ];
        if kinds.iter().filter(|k| **k).count() != 1 {
            return Err(ctx.invalid(
                &field,
                "needs exactly one of frame_position, frame_orientation, joint_equality, \
                 frame_bounds or obstacle_clearance",
            ));
        }
        if let Some(o) = &c.obstacle_clearance {
            let f = format!("{field}.obstacle_clearance");
            if contact
                .as_ref()
                .is_none_or(|c| c.terrain.boxes.is_empty() && c.terrain.gaps.is_empty())
            {
                return Err(ctx.invalid(&f, "needs a terrain with at least one box or gap"));
            }
            let margin = ctx.nonnegative(&format!("{f}.margin"), o.margin)?;
            let from = finite3(&ctx, &format!("{f}.from"), o.from)?;
            let to = finite3(&ctx, &format!("{f}.to"), o.to)?;
            if o.samples < 2 && (o.samples == 0 || from != to) {
                return Err(ctx.invalid(
                    &format!("{f}.samples"),
                    format!(
                        "needs at least 2 samples (both ends), or 1 with `to` equal to `from`, \
                         got {}",
                        o.samples
                    ),
                ));
            }
            let frame = ctx.point(&format!("{f}.frame"), &o.frame)?;
            let samples = (0..o.samples)
                .map(|k| {
                    let s = k as f64 / (o.samples - 1).max(1) as f64;
                    BodyPoint {
                        body: frame.body,
                        placement: frame
                            .placement
                            .compose(&Transform::from_translation(from + s * (to - from))),
                    }
                })
                .collect();
            constraints.push(PathConstraint::ObstacleClearance {
                name: o.frame.clone(),
                samples,
                margin,
            });
        }
        if let Some(b) = &c.frame_bounds {
            let f = format!("{field}.frame_bounds");
            let mut axes = Vec::new();
            for (name, e, v) in [
                ("x", Vec3::x(), &b.x),
                ("y", Vec3::y(), &b.y),
                ("z", Vec3::z(), &b.z),
            ] {
                if let Some(v) = v {
                    let (lo, hi) = ctx.range(&format!("{f}.{name}"), v)?;
                    axes.push((e, lo, hi));
                }
            }
            if axes.is_empty() {
                return Err(ctx.invalid(&f, "needs a range for at least one of x, y or z"));
            }
            constraints.push(PathConstraint::FrameBounds {
                name: b.frame.clone(),
                point: ctx.point(&format!("{f}.frame"), &b.frame)?,
                axes,
            });
        }
        if let Some(FramePositionFile {
            frame,
            position,
            time,
            axes,
        }) = &c.frame_position
        {
            let axes = match axes {
                None => vec![Vec3::x(), Vec3::y(), Vec3::z()],
                Some(list) if !list.is_empty() => list
                    .iter()
                    .enumerate()
                    .map(|(j, a)| match a.as_str() {
                        "x" => Ok(Vec3::x()),
                        "y" => Ok(Vec3::y()),
                        "z" => Ok(Vec3::z()),
                        other => Err(ctx.invalid(
                            &format!("{field}.frame_position.axes[{j}]"),
                            format!("'{other}' is not an axis (x, y or z)"),
                        )),
                    })
                    .collect::<Result<Vec<_>, _>>()?,
                Some(_) => {
                    return Err(
                        ctx.invalid(&format!("{field}.frame_position.axes"), "needs x, y or z")
                    );
                }
            };
            constraints.push(PathConstraint::FramePosition {
                name: frame.clone(),
                point: ctx.point(&format!("{field}.frame_position.frame"), frame)?,
                position: finite3(&ctx, &format!("{field}.frame_position.position"), *position)?,
                axes,
                time: ctx.time(
                    &format!("{field}.frame_position.time"),
                    Some(time),
                    f.duration,
                )?,
            });
        }
        if let Some(FrameOrientationFile { frame, rpy, time }) = &c.frame_orientation {
            constraints.push(PathConstraint::FrameOrientation {
                name: frame.clone(),
                point: ctx.point(&format!("{field}.frame_orientation.frame"), frame)?,
                rotation: Transform::from_xyz_rpy(
                    [0.0; 3],
                    finite3(&ctx, &format!("{field}.frame_orientation.rpy"), *rpy)?.into(),
                )
                .rotation,
                time: ctx.time(
                    &format!("{field}.frame_orientation.time"),
                    Some(time),
                    f.duration,
                )?,
            });
        }
        if let Some(JointEqualityFile {
            joint,
            equals,
            ratio,
            offset,
        }) = &c.joint_equality
        {
            let a = ctx.joint(&format!("{field}.joint_equality.joint"), joint)?;
            let b = ctx.joint(&format!("{field}.joint_equality.equals"), equals)?;
            if a == b || !ratio.is_finite() || !offset.is_finite() {
                return Err(ctx.invalid(
                    &format!("{field}.joint_equality"),
                    "needs two different joints and a finite ratio and offset",
                ));
            }
            constraints.push(PathConstraint::JointEquality {
                a,
                b,
                ratio: *ratio,
                offset: *offset,
            });
        }
    }
    let mut solver = f.solver.clone();
    if let Some(qp) = overrides.qp {
        solver.qp = qp;
    }
    if let Some(method) = overrides.method {
        solver.method = method;
    }
    if solver.method == Method::Auto && overrides.qp.is_some() {
        // A QP backend asked for is the SQP's.
        solver.method = Method::Sqp;
    }
    solver
        .validate()
        .map_err(|e| ctx.invalid("solver", e.to_string()))?;
    let initial_guess = match &f.initial_guess {
        None => InitialGuess::Interpolate,
        Some(Value::String(s)) if s == "interpolate" => InitialGuess::Interpolate,
        Some(Value::Mapping(m))
            if m.len() == 1 && m.get("from").and_then(Value::as_str).is_some() =>
        {
            let from = m.get("from").and_then(Value::as_str).unwrap_or_default();
            let p = relative_to(base_dir, from);
            if !p.is_file() {
                return Err(ctx.invalid(
                    "initial_guess.from",
                    format!("{} does not exist", p.display()),
                ));
            }
            InitialGuess::FromCsv(p)
        }
        Some(Value::Mapping(m))
            if m.len() == 1 && m.get("solve").and_then(Value::as_str).is_some() =>
        {
            let solve = m.get("solve").and_then(Value::as_str).unwrap_or_default();
            InitialGuess::Solve(Box::new(load_first(
                &relative_to(base_dir, solve),
                shown.as_str(),
                overrides,
                chain,
            )?))
        }
        Some(other) => {
            return Err(ctx.invalid(
                "initial_guess",
                format!(
                    "expected interpolate, {{from: path/to/trajectory.csv}} or \
                     {{solve: easier_problem.yaml}}, got {}",
                    show(other)
                ),
            ));
        }
    };
    let stances = stances(&ctx, &f.stance, &initial_q)?;
    let complementarity = match &f.complementarity {
        None => ComplementarityMethod::Smoothing {
            start: DEFAULT_SMOOTHING_START,
            end: None,
        },
        Some(c) => match (c.method.as_str(), c.weight) {
            (m, _) if m != "smoothing" && (c.start.is_some() || c.end.is_some()) => {
                return Err(ctx.invalid(
                    "complementarity",
                    "start and end apply to method: smoothing only",
                ));
            }
            ("smoothing", None) => {
                let start = c.start.unwrap_or(DEFAULT_SMOOTHING_START);
                if !(start > 0.0 && start.is_finite()) {
                    return Err(ctx.invalid(
                        "complementarity.start",
                        format!("must be a positive number, got {start}"),
                    ));
                }
                if let Some(end) = c.end
                    && !(end > 0.0 && start >= end)
                {
                    return Err(ctx.invalid(
                        "complementarity",
                        format!("needs 0 < end <= start, got start {start}, end {end}"),
                    ));
                }
                ComplementarityMethod::Smoothing { start, end: c.end }
            }
            ("relaxation", None) => ComplementarityMethod::Relaxation,
            ("relaxation" | "smoothing", Some(_)) => {
                return Err(
                    ctx.invalid("complementarity.weight", "applies to method: penalty only")
                );
            }
            ("penalty", w) => {
                let w = w.unwrap_or(DEFAULT_PENALTY_WEIGHT);
                if !(w > 0.0 && w.is_finite()) {
                    return Err(ctx.invalid(
                        "complementarity.weight",
                        format!("must be a positive number, got {w}"),
                    ));
                }
                ComplementarityMethod::Penalty(w)
            }
            (other, _) => {
                return Err(ctx.invalid(
                    "complementarity.method",
                    format!("'{other}' is not a method (penalty, relaxation or smoothing)"),
                ));
            }
        },
    };
    let urdf = std::fs::read(&robot_path).unwrap_or_default();
    let output = overrides.output.clone().unwrap_or_else(|| match &f.output {
        Some(o) => PathBuf::from(o),
        None => PathBuf::from("results").join(&f.name),
    });
    // A problem solved first is part of this one.
    let first_hash = match &initial_guess {
        InitialGuess::Solve(first) => first.hash.as_str(),
        _ => "",
    };
    Ok(TrajectoryProblem {
        name: f.name.clone(),
        hash: fnv1a(&[text.as_bytes(), &urdf, first_hash.as_bytes()]),
        duration: f.duration,
        stages: f.stages,
        transcription,
        initial_q,
        initial_v,
        final_q,
        final_v,
        at_rest,
        q_bounds,
        v_bounds,
        u_bounds,
        costs: Costs {
            effort,
            velocity,
            tracking,
            terminal,
            targets,
        },
        constraints,
        solver,
        initial_guess,
        output,
        contact,
        complementarity,
        stances,
        model,
        robot_file: robot_path,
    })
}

/// The contact points a boundary's `at_rest` names, as indices into the contact model's sites.
fn resting_points(
    ctx: &Ctx,
    field: &str,
    names: Option<&[String]>,
    contact: Option<&ContactModel>,
) -> Result<Vec<usize>, ProblemError> {
    let Some(names) = names else {
        return Ok(Vec::new());
    };
    let Some(contact) = contact else {
        return Err(ctx.invalid(
            field,
            String::from("names contact points but the file has no terrain"),
        ));
    };
    let mut out = Vec::with_capacity(names.len());
    for (k, name) in names.iter().enumerate() {
        let Some(l) = contact.sites.iter().position(|s| &s.name == name) else {
            let known: Vec<&str> = contact.sites.iter().map(|s| s.name.as_str()).collect();
            return Err(ctx.invalid(
                &format!("{field}[{k}]"),
                format!(
                    "'{name}' is not one of the problem's contact points ({})",
                    known.join(", ")
                ),
            ));
        };
        if out.contains(&l) {
            return Err(ctx.invalid(&format!("{field}[{k}]"), format!("'{name}' is named twice")));
        }
        out.push(l);
    }
    Ok(out)
}

fn finite3(ctx: &Ctx, field: &str, v: [f64; 3]) -> Result<Vec3, ProblemError> {
    if v.iter().all(|x| x.is_finite()) {
        Ok(Vec3::from(v))
    } else {
        Err(ctx.invalid(field, format!("must be three finite numbers, got {v:?}")))
    }
}

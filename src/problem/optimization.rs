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
use crate::nlp::{Method, QpBackend, Settings};
use crate::schema::{Fields, Ranges, show};
use crate::spatial::Vec3;
use crate::terms::{Entry, JointEquality, TermSpec, parse_constraints, parse_costs};
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
    /// What [`InitialGuess::Solve`] becomes once its problem is solved: its trajectory,
    /// interpolated at the control points, and, for a warm start, its decision variables and
    /// multipliers, taken as they are by a transcription whose variables are the same.
    Recorded {
        /// The trajectory.
        trajectory: Arc<Recording>,
        /// The decision vector and multipliers, for a warm start.
        variables: Option<Arc<SolvedVariables>>,
    },
}

impl InitialGuess {
    /// The solve handed on whole ([`InitialGuess::Recorded`] with its variables) when its
    /// transcription's layout key is `layout`, the starting one's: a warm start.
    pub fn warm_for(&self, layout: &str) -> Option<&crate::nlp::SolverResult> {
        match self {
            Self::Recorded {
                variables: Some(v), ..
            } if v.layout == layout => Some(&v.result),
            _ => None,
        }
    }
}

/// A solve's decision vector and multipliers, handed on to a problem started from it warm: a
/// step of a terrain continuation (`transcription/continuation.rs`), whose problems have the
/// same variables and rows (configurations, torques, contact forces) on terrains a little
/// apart.
#[derive(Debug)]
pub struct SolvedVariables {
    /// What the variables are (the transcription's layout key): a problem whose key differs
    /// starts from the trajectory instead.
    pub layout: String,
    /// The solve's result (its last iterate and multipliers).
    pub result: crate::nlp::SolverResult,
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
    /// Costs, one per kind named under `costs:`.
    pub(crate) costs: Vec<Arc<dyn TermSpec>>,
    /// Path constraints (the robot's mimic couplings first, then the file's list).
    pub(crate) constraints: Vec<Arc<dyn TermSpec>>,
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

impl TrajectoryProblem {
    /// The kind of each path constraint (`frame_position`, …), the robot's mimic couplings
    /// (`joint_equality`) first, then the file's list in its order.
    pub fn constraint_kinds(&self) -> Vec<&'static str> {
        self.constraints.iter().map(|c| c.key()).collect()
    }

    /// The kind of each cost (`effort`, …), in the file's order.
    pub fn cost_kinds(&self) -> Vec<&'static str> {
        self.costs.iter().map(|c| c.key()).collect()
    }

    /// The weight (per joule) of the energy friction dissipates at the contact points
    /// (`costs.friction_work`; 0 without it).
    pub fn friction_work(&self) -> f64 {
        self.costs.iter().map(|c| c.friction_work()).sum()
    }
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

/// Default first smoothing of the complementarity (`μ`, in the variables' units): products
/// `μ² = 10⁻²`, a force of about a weight share at 1 cm, soft enough for the first subproblem
/// to converge from a straight-line guess (the biped's walk, the jump's flat step). Measured
/// against the earlier 10⁻² (docs/benchmarks.md, "Families"): the hopper family 12 of 12
/// `Converged` instead of 11, Go1's and Solo12's walks in fewer iterations, they and Go1's gap
/// at lower objectives; Solo12's gap fails from it and keeps 10⁻² in its file.
pub const DEFAULT_SMOOTHING_START: f64 = 0.1;

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
    costs: Option<Value>,
    #[serde(default)]
    constraints: Vec<Value>,
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
    let ctx = Fields {
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
    // A coupled follower's input is a constraint force, not a motor: unbounded (and free of
    // effort cost: `terms/effort.rs`).
    for c in model.couplings() {
        if let Some(k) = actuated.iter().position(|&i| i == c.follower) {
            u_bounds.lower[k] = f64::NEG_INFINITY;
            u_bounds.upper[k] = f64::INFINITY;
        }
    }
    let contact = contact_model(&shown, &model, f.terrain.as_ref(), f.contacts.as_deref())?;
    let at_rest = [
        ("initial.at_rest", &f.initial.at_rest),
        ("final.at_rest", &f.final_state.at_rest),
    ]
    .map(|(field, names)| resting_points(&ctx, field, names.as_deref(), contact.as_ref()));
    let [initial_rest, final_rest] = at_rest;
    let at_rest = [initial_rest?, final_rest?];
    let entry = Entry {
        fields: &ctx,
        duration: f.duration,
        terrain: contact.as_ref().map(|c| &c.terrain),
    };
    let costs = parse_costs(f.costs.as_ref(), &entry)?;
    let mut constraints: Vec<Arc<dyn TermSpec>> = model
        .couplings()
        .iter()
        .map(|c| {
            Arc::new(JointEquality {
                a: c.follower,
                b: c.leader,
                ratio: c.multiplier,
                offset: c.offset,
            }) as Arc<dyn TermSpec>
        })
        .collect();
    constraints.extend(parse_constraints(&f.constraints, &entry)?);
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
        costs,
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
    ctx: &Fields,
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

//! The costs and constraints a problem lists, and the interface through which both
//! transcriptions evaluate every per-point term at their sample points.
//!
//! A transcription samples its trajectory at points `p` (the VI's control points, the
//! collocation's knots and midpoints). At each point the terms see one *local* vector
//!
//! ```text
//! [ q_p (n) | v_p (n) | v⁻_p (n) | vᵏ_p (n) | u_p (n_u) | q_p⁺ (n) | own_p (the terms' own variables, in order) ]
//! ```
//!
//! where `v_p` is the velocity at the point: a decision variable in Hermite–Simpson, a linear
//! combination of the stage's control points in the VI (the slope of its Lagrange interpolant,
//! the following stage's at a knot), `v⁻_p` the slope the stage before a VI knot ends on (the
//! VI's interpolant has a kink at a knot wherever a force acts there) and at the first and last
//! points the boundary velocity (zero elsewhere), `vᵏ_p` at an interior VI knot the velocity of
//! the discrete Legendre transform there with the mass matrix frozen (a combination of the two
//! stages' control points, [`crate::vi::Galerkin::knot_velocity`]; what `knots.csv` reports;
//! zero elsewhere), and `q_p⁺` the configuration of the next point (the point's own at the
//! last), where a contact force at `p` meets the ground it answers for
//! (`transcription/terms/contact.rs`). A [`PointTerm`] may add variables of its own at a point
//! (contact forces), rows with lower and upper bounds, a cost, complementarity pairs between
//! its rows and variables, and point loads (world forces on the robot) that the transcription
//! puts into its dynamics. It supplies values and the Jacobian of its rows over the local
//! vector in a sparsity pattern of its own, and where it has curvature;
//! `transcription::terms::Terms` lays the terms out on a transcription's points and maps them
//! onto its decision vector.
//!
//! # Kinds of cost and constraint
//!
//! Each kind a problem may name under `costs:` or list under `constraints:` is one file here
//! that holds its YAML entry (a serde struct), its validation into a [`TermSpec`] and the
//! [`PointTerm`]s it builds; [`COSTS`] and [`CONSTRAINTS`] register the kinds. Adding a kind
//! is one new file and one line in a `register!` list, which declares the module and lists
//! it: the loader reads the entry through the kind's `parse`, the static balance asks it
//! whether it holds at the start, guesses and reports ask for its targets, and both
//! transcriptions lay its terms out on their points, kind by kind in the lists' order.
//! `joint_sum.rs`, a kind of constraint compiled for the unit tests only, is added that way:
//! its file and the line `#[cfg(test)] joint_sum,`.

pub(crate) use frame_orientation::{orientation_error, orientation_error_rate};
pub(crate) use joint_equality::JointEquality;

use crate::contact::{ContactSample, Terrain};
use crate::dynamics::Workspace;
use crate::model::Model;
use crate::schema::{BodyPoint, Fields, ProblemError, TimeSpec};
use crate::spatial::{Mat3, Transform, Vec3};
use crate::vi::PointLoad;
use nalgebra::DMatrix;
use serde_yaml_ng::Value;
use std::fmt;
use std::sync::Arc;

/// Declares each kind's module and lists its `KIND` in a registry.
macro_rules! register {
    ($(#[$doc:meta])* $list:ident = [$($(#[$attr:meta])* $kind:ident),* $(,)?]) => {
        $($(#[$attr])* mod $kind;)*

        $(#[$doc])*
        pub(crate) const $list: &[TermKind] = &[$($(#[$attr])* $kind::KIND),*];
    };
}

register! {
    /// The kinds of cost a problem file's `costs:` may name, in the order their terms are laid
    /// out.
    COSTS = [effort, velocity, tracking, terminal, targets, friction_work]
}

register! {
    /// The kinds of constraint a problem file's `constraints:` may list, in the order their
    /// terms are laid out (after the costs).
    CONSTRAINTS = [
        frame_position,
        frame_orientation,
        joint_equality,
        frame_bounds,
        obstacle_clearance,
        #[cfg(test)]
        joint_sum,
    ]
}

mod diagonal_quadratic;

/// One kind of cost or constraint: its key in a problem file and how its entry is read.
#[derive(Clone, Copy)]
pub(crate) struct TermKind {
    /// The entry's key (`effort: …` under `costs:`, `- frame_position: {…}` under
    /// `constraints:`).
    pub key: &'static str,
    /// Reads and validates the entry's value; `field` is its path for messages
    /// (`constraints[2].frame_position`).
    pub parse: ParseEntry,
}

/// Reads and validates one entry's value of a kind (see [`TermKind::parse`]).
pub(crate) type ParseEntry = fn(&Value, &Entry, &str) -> Result<Arc<dyn TermSpec>, ProblemError>;

/// What the validation of an entry may consult: the file's fields and robot, the horizon and
/// the terrain.
pub(crate) struct Entry<'a> {
    /// The file and its robot.
    pub fields: &'a Fields<'a>,
    /// Horizon `T` (s).
    pub duration: f64,
    /// The terrain, when the problem has one.
    pub terrain: Option<&'a Terrain>,
}

/// What a cost's or constraint's terms are built on: the robot, the horizon, the
/// transcription's points and the terrain.
pub(crate) struct Layout<'a> {
    /// The robot.
    pub model: &'a Model,
    /// Horizon `T` (s).
    pub duration: f64,
    /// The times of the points.
    pub times: &'a [f64],
    /// The terrain, when the problem has one.
    pub terrain: Option<&'a Terrain>,
}

/// A frame position a cost or constraint aims for: where starting guesses reach and what
/// reports draw.
#[derive(Clone, Debug)]
pub(crate) struct Target {
    /// Frame name.
    pub frame: String,
    /// The frame.
    pub point: BodyPoint,
    /// World position.
    pub position: Vec3,
    /// The world axes it is aimed along.
    pub axes: Vec<Vec3>,
    /// When (`None`: along the whole path).
    pub time: Option<TimeSpec>,
}

/// A validated cost or constraint of a problem: an entry of one of the [`COSTS`] or
/// [`CONSTRAINTS`] kinds.
pub(crate) trait TermSpec: fmt::Debug + Send + Sync {
    /// The key of its kind.
    fn key(&self) -> &'static str;

    /// Its terms on a transcription's points (none, one, or one per listed item).
    fn build(&self, on: &Layout) -> Vec<Box<dyn PointTerm>>;

    /// Whether it applies before the motion starts (at every point or at `t = 0`): what the
    /// static balance of the start keeps.
    fn holds_at_start(&self) -> bool;

    /// The frame positions it aims for.
    fn targets(&self) -> Vec<Target> {
        Vec::new()
    }

    /// The configuration it pulls the robot towards, if any: where the static balance starts.
    fn posture(&self) -> Option<&[f64]> {
        None
    }

    /// The weight (per joule) it puts on the energy friction dissipates at the contact points,
    /// which the contact term charges (`friction_work.rs`).
    fn friction_work(&self) -> f64 {
        0.0
    }
}

/// Reads a problem's `constraints:` list: each entry one key of a [`CONSTRAINTS`] kind.
///
/// # Errors
/// A [`ProblemError`] naming `constraints[k]` when an entry has not exactly one known key, or
/// the field its kind's validation refuses.
pub(crate) fn parse_constraints(
    entries: &[Value],
    entry: &Entry,
) -> Result<Vec<Arc<dyn TermSpec>>, ProblemError> {
    let fields = entry.fields;
    let one_of = || format!("needs exactly one of {}", keys(CONSTRAINTS));
    entries
        .iter()
        .enumerate()
        .map(|(k, value)| {
            let field = format!("constraints[{k}]");
            let (key, value) = value
                .as_mapping()
                .filter(|m| m.len() == 1)
                .and_then(|m| m.iter().next())
                .ok_or_else(|| fields.invalid(&field, one_of()))?;
            parse_entry(CONSTRAINTS, "constraint", key, value, entry, &field)
        })
        .collect()
}

/// Reads a problem's `costs:` mapping: each key a [`COSTS`] kind.
///
/// # Errors
/// A [`ProblemError`] naming `costs` when it is not a mapping or names an unknown kind, or the
/// field a kind's validation refuses.
pub(crate) fn parse_costs(
    costs: Option<&Value>,
    entry: &Entry,
) -> Result<Vec<Arc<dyn TermSpec>>, ProblemError> {
    let Some(costs) = costs.filter(|c| !c.is_null()) else {
        return Ok(Vec::new());
    };
    let map = costs.as_mapping().ok_or_else(|| {
        entry.fields.invalid(
            "costs",
            format!(
                "expected a map of costs ({}), got {}",
                keys(COSTS),
                crate::schema::show(costs)
            ),
        )
    })?;
    map.iter()
        .map(|(key, value)| parse_entry(COSTS, "cost", key, value, entry, "costs"))
        .collect()
}

/// The keys of `kinds`, for messages.
fn keys(kinds: &[TermKind]) -> String {
    kinds.iter().map(|k| k.key).collect::<Vec<_>>().join(", ")
}

/// Reads the entry `key: value` of one of `kinds` (`what`: "cost" or "constraint") under
/// `parent`.
fn parse_entry(
    kinds: &[TermKind],
    what: &str,
    key: &Value,
    value: &Value,
    entry: &Entry,
    parent: &str,
) -> Result<Arc<dyn TermSpec>, ProblemError> {
    let name = key.as_str().unwrap_or_default();
    let kind = kinds.iter().find(|c| c.key == name).ok_or_else(|| {
        entry.fields.invalid(
            parent,
            format!(
                "'{}' is not a kind of {what} ({})",
                crate::schema::show(key),
                keys(kinds)
            ),
        )
    })?;
    (kind.parse)(value, entry, &format!("{parent}.{name}"))
}

/// 1: the default of a weight or ratio an entry leaves out.
pub(crate) fn one() -> f64 {
    1.0
}

/// Reads an entry's value into its kind's serde struct; the error names `field`.
pub(crate) fn read_entry<T: serde::de::DeserializeOwned>(
    fields: &Fields,
    field: &str,
    value: &Value,
) -> Result<T, ProblemError> {
    serde_yaml_ng::from_value(value.clone()).map_err(|e| fields.invalid(field, e.to_string()))
}

/// World position of a frame origin after [`crate::dynamics::forward_kinematics`].
pub(crate) fn frame_origin(ws: &Workspace, point: &BodyPoint) -> Vec3 {
    ws.body_pose(point.body)
        .transform_point(&point.placement.translation)
}

/// World orientation of a frame after [`crate::dynamics::forward_kinematics`].
pub(crate) fn frame_rotation(ws: &Workspace, point: &BodyPoint) -> Mat3 {
    let g: Transform = ws.body_pose(point.body).compose(&point.placement);
    g.rotation
}

/// What a term knows of the point it is evaluated at.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PointInfo {
    /// Point index.
    pub index: usize,
    /// Number of points.
    pub count: usize,
    /// Quadrature weight (`∫ f dt ≈ Σ_p weight_p f(t_p)`).
    pub weight: f64,
    /// Time to the next point, `t_{p+1} − t_p` (0 at the last).
    pub interval: f64,
    /// Quadrature weights of `v_p` and `v⁻_p` in integrals of velocities: each stage's slope
    /// weighted on its own (`∫ g(v) dt ≈ Σ_p velocity_weight_p g(v_p) + before_weight_p
    /// g(v⁻_p)`).
    pub velocity_weight: f64,
    /// See `velocity_weight`.
    pub before_weight: f64,
    /// Whether the point has a knot velocity `vᵏ_p` (an interior knot of the VI).
    pub knot_velocity: bool,
    /// The problem fixes every joint's configuration here (the first point when `initial.q`
    /// fixes all joints, the last when `final.q` does). A row of the configuration alone is a
    /// constant there, a combination of the variables' bounds: the terms leave such rows out,
    /// and [`Terms::check_fixed_points`] checks that they hold.
    pub fixed_configuration: bool,
}

impl PointInfo {
    /// Whether this is the last point (`t = T`).
    pub fn is_last(&self) -> bool {
        self.index + 1 == self.count
    }
}

/// Indices into the local vector for one term: `q`, `v`, `u`, then its own variables.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LocalIndex {
    /// Degrees of freedom.
    pub n: usize,
    /// Actuated joints.
    pub n_u: usize,
    /// Where the term's own variables start among the point's own variables.
    pub own_offset: usize,
}

impl LocalIndex {
    /// Index of `q_i`.
    pub fn q(&self, i: usize) -> usize {
        i
    }
    /// Index of `v_i`.
    pub fn v(&self, i: usize) -> usize {
        self.n + i
    }
    /// Index of `v⁻_i`.
    pub fn v_before(&self, i: usize) -> usize {
        2 * self.n + i
    }
    /// Index of `vᵏ_i`.
    pub fn v_knot(&self, i: usize) -> usize {
        3 * self.n + i
    }
    /// Index of `u_c`.
    pub fn u(&self, c: usize) -> usize {
        4 * self.n + c
    }
    /// Index of `q⁺_i`, the next point's configuration.
    pub fn q_next(&self, i: usize) -> usize {
        4 * self.n + self.n_u + i
    }
    /// Index of the term's own variable `j`.
    pub fn own(&self, j: usize) -> usize {
        5 * self.n + self.n_u + self.own_offset + j
    }
}

/// The local values a term is evaluated at (the forward kinematics of `q`, and of `q⁺` where a
/// term asks for it, are in the [`Scratch`]).
pub(crate) struct Local<'a> {
    /// The robot.
    pub model: &'a Model,
    /// `q_p`.
    pub q: &'a [f64],
    /// `v_p`.
    pub v: &'a [f64],
    /// `v⁻_p` (zero where the point has one velocity).
    pub v_before: &'a [f64],
    /// `vᵏ_p` (zero where the point has none).
    pub v_knot: &'a [f64],
    /// `u_p`.
    pub u: &'a [f64],
    /// The term's own variables at the point.
    pub own: &'a [f64],
}

/// One side of a term's complementarity pair: one of its rows or own variables at the point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    /// Row `r` of the term at the point.
    Row(usize),
    /// Own variable `j` of the term at the point.
    Own(usize),
}

/// World forces of a term's loads at a point, with their derivatives over the local vector.
#[derive(Clone, Debug)]
pub(crate) struct LoadForces {
    /// `f_l` per load.
    pub force: Vec<Vec3>,
    /// `∂f_l/∂q` (3×n) per load.
    pub dq: Vec<DMatrix<f64>>,
    /// `∂f_l/∂own_j` in the order of [`PointTerm::force_variables`].
    pub down: Vec<Vec3>,
}

/// Buffers for evaluating terms at one point.
pub(crate) struct Scratch {
    /// Kinematics at the current local `q` (done before a term is called): poses and twists
    /// only ([`forward_poses`](crate::dynamics::forward_poses)), no inertias.
    pub kin: Workspace,
    /// Kinematics at the current local `q⁺` (done before a term is called when some term
    /// [uses it](PointTerm::uses_next_configuration)), as `kin`.
    pub kin_next: Workspace,
    /// A 6×n frame Jacobian.
    pub frame_jacobian: DMatrix<f64>,
    /// Contact quantities, when the problem has contact.
    pub contact: Option<ContactSample>,
}

/// A cost, constraint or contact condition evaluated point by point.
///
/// Every method has a neutral default, so a term implements only what it has. Row values and
/// Jacobian entries follow the order of [`PointTerm::jacobian_pattern`]; local indices come
/// from the [`LocalIndex`] passed in.
pub(crate) trait PointTerm: Send + Sync {
    /// Own variables at point `p`.
    fn variables(&self, _p: &PointInfo) -> usize {
        0
    }

    /// Bounds of the own variables at `p`.
    fn variable_bounds(&self, _p: &PointInfo, _lower: &mut [f64], _upper: &mut [f64]) {}

    /// Starting values of the own variables at `p`, given the starting trajectory there.
    fn start(&self, _p: &PointInfo, _local: &Local, _scratch: &mut Scratch, _own: &mut [f64]) {}

    /// Rows at point `p`.
    fn rows(&self, _p: &PointInfo) -> usize {
        0
    }

    /// Bounds of the rows at `p` (`lower == upper` for an equality).
    fn row_bounds(&self, _p: &PointInfo, _lower: &mut [f64], _upper: &mut [f64]) {}

    /// The `(row, local index)` entries of the rows' Jacobian at `p`.
    fn jacobian_pattern(&self, _p: &PointInfo, _ix: &LocalIndex, _out: &mut Vec<(usize, usize)>) {}

    /// Row values at `p` and, when `jac` is given, the Jacobian entries in pattern order.
    fn evaluate(
        &self,
        _p: &PointInfo,
        _local: &Local,
        _scratch: &mut Scratch,
        _rows: &mut [f64],
        _jac: Option<&mut [f64]>,
    ) {
    }

    /// The cost at `p`; when `grad = (s, g)` is given, `s` times its gradient over the local
    /// vector is added to `g`.
    fn cost(
        &self,
        _p: &PointInfo,
        _ix: &LocalIndex,
        _local: &Local,
        _scratch: &mut Scratch,
        _grad: Option<(f64, &mut [f64])>,
    ) -> f64 {
        0.0
    }

    /// The lower-triangle `(a, b)`, `a ≥ b`, local entries where the term's cost or rows have
    /// curvature at `p`.
    fn hessian_pattern(&self, _p: &PointInfo, _ix: &LocalIndex, _out: &mut Vec<(usize, usize)>) {}

    /// Complementarity pairs at `p`.
    fn complementarity(&self, _p: &PointInfo, _out: &mut Vec<(Side, Side)>) {}

    /// Points where the term pushes on the robot (the same at every point).
    fn loads(&self) -> Vec<PointLoad> {
        Vec::new()
    }

    /// The `(load, own variable)` pairs through which the term's own variables at `p` move its
    /// forces.
    fn force_variables(&self, _p: &PointInfo) -> Vec<(usize, usize)> {
        Vec::new()
    }

    /// Sets the smoothing of the term's complementarity rows, for a solve at that level.
    fn set_smoothing(&mut self, _mu: f64) {}

    /// Whether the term's rows depend on the next point's configuration `q⁺`.
    fn uses_next_configuration(&self) -> bool {
        false
    }

    /// What the term is, for messages (the problem file's name of its kind).
    fn label(&self) -> &'static str {
        "a per-point term"
    }

    /// The world forces at the term's loads at `p`, with their derivatives.
    fn forces(
        &self,
        _p: &PointInfo,
        _local: &Local,
        _scratch: &mut Scratch,
        _out: &mut LoadForces,
    ) {
    }
}

/// A frame at one point of the trajectory: where the frame-position and frame-orientation
/// terms apply and what they depend on.
struct TimedFrame {
    point: BodyPoint,
    /// The point index the time snaps to.
    at: usize,
    chain: Vec<usize>,
}

impl TimedFrame {
    fn new(on: &Layout, point: BodyPoint, time: TimeSpec) -> Self {
        Self {
            point,
            at: time.nearest(on.times, on.duration),
            chain: chain(on.model, point.body),
        }
    }

    /// Whether its rows are at `p`: its point, unless the problem fixes the configuration
    /// there.
    fn applies(&self, p: &PointInfo) -> bool {
        p.index == self.at && !p.fixed_configuration
    }

    /// `rows` at its point, none elsewhere.
    fn rows(&self, p: &PointInfo, rows: usize) -> usize {
        if self.applies(p) { rows } else { 0 }
    }

    /// Each of `rows` rows depends on the chain's configurations.
    fn jacobian_pattern(&self, rows: usize, ix: &LocalIndex, out: &mut Vec<(usize, usize)>) {
        for r in 0..rows {
            out.extend(self.chain.iter().map(|&j| (r, ix.q(j))));
        }
    }

    /// Curvature over the chain at its point.
    fn hessian_pattern(&self, p: &PointInfo, ix: &LocalIndex, out: &mut Vec<(usize, usize)>) {
        if self.applies(p) {
            chain_pattern(&self.chain, ix, out);
        }
    }
}

/// The joints on a body's path to the root, which a function of its pose depends on.
pub(crate) fn chain(model: &Model, body: usize) -> Vec<usize> {
    model.ancestors_inclusive(body).collect()
}

/// `∂x/∂q_j` of a point `x` from column `j` of its frame Jacobian (`[ω; v]` rows).
pub(crate) fn point_velocity_column(frame_jacobian: &DMatrix<f64>, j: usize) -> Vec3 {
    Vec3::new(
        frame_jacobian[(3, j)],
        frame_jacobian[(4, j)],
        frame_jacobian[(5, j)],
    )
}

/// The lower triangle over the configurations of a chain: where a function of a body's pose
/// has curvature.
pub(crate) fn chain_pattern(chain: &[usize], ix: &LocalIndex, out: &mut Vec<(usize, usize)>) {
    for &a in chain {
        for &b in chain {
            if a >= b {
                out.push((ix.q(a), ix.q(b)));
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::Entry;
    use crate::contact::Terrain;
    use crate::model::{BaseKind, Model, load_urdf};
    use crate::schema::Fields;

    /// One of the bundled robots, with a floating base.
    pub fn robot(file: &str) -> Model {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("robots")
            .join(file);
        load_urdf(path, BaseKind::Floating).unwrap()
    }

    /// `read` run on an entry of a one-second problem for `model` over `terrain`.
    pub fn entry_of<T>(model: &Model, terrain: Option<&Terrain>, read: impl Fn(&Entry) -> T) -> T {
        let fields = Fields {
            path: "test.yaml",
            model,
        };
        read(&Entry {
            fields: &fields,
            duration: 1.0,
            terrain,
        })
    }
}

//! The contact state of an optimized trajectory at its points, and how well it meets the
//! contact conditions: the largest complementarity product, the deepest penetration and the
//! largest friction-cone violation.

use super::Solution;
use crate::contact::{CONE, ContactModel, GAP, NORMAL, Terrain};
use crate::dynamics::{Workspace, forward_kinematics};
use crate::model::Model;
use crate::spatial::Vec3;

/// The deepest penetration of a contact sphere into the terrain along `sol`'s interpolant,
/// sampled on its [`Solution::fine_grid`] of `stages` (the rows of `trajectory.csv`; m, 0
/// without penetration).
pub fn deepest_sampled_penetration(
    model: &Model,
    contact: &ContactModel,
    sol: &Solution,
    stages: usize,
) -> f64 {
    let mut ws = Workspace::new(model);
    let mut deepest = 0.0_f64;
    for t in sol.fine_grid(stages) {
        forward_kinematics(model, &mut ws, &sol.sample(t).0);
        for l in 0..contact.sites.len() {
            deepest = deepest.max(-contact.gap(&ws, l));
        }
    }
    deepest
}

/// The contact state at every point of a trajectory: forces, positions, gaps, the contact rows
/// `(gap, cone, slip_1..D)` and variables `(c, ψ, b_1..D)` of each contact point (see
/// `contact/conditions.rs`; the gap row is the gap a point's force answers for, the next
/// point's, `transcription/terms/contact.rs`).
#[derive(Clone, Debug)]
pub struct ContactTrajectory {
    /// Contact point names.
    pub names: Vec<String>,
    /// Force scale `σ` (N per unit of `c`, `b`).
    pub force_scale: f64,
    /// Friction directions per point.
    pub directions: usize,
    /// Friction coefficient.
    pub friction: f64,
    /// The terrain.
    pub terrain: Terrain,
    /// `[point][contact]` world force (N).
    pub forces: Vec<Vec<Vec3>>,
    /// `[point][contact]` world position of the contact sphere's centre.
    pub positions: Vec<Vec<Vec3>>,
    /// `[point][contact]` the contact sphere's own gap (m).
    pub gaps: Vec<Vec<f64>>,
    /// `[point][contact·(2+D) + row]`.
    pub rows: Vec<Vec<f64>>,
    /// `[point][contact·(2+D) + variable]`.
    pub variables: Vec<Vec<f64>>,
}

/// How far a contact trajectory is from meeting the contact conditions exactly.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct ContactResiduals {
    /// Largest product of a complementarity pair, in the transcription's units (gap in m,
    /// forces in units of the force scale, speeds in m/s).
    pub largest_complementarity_product: f64,
    /// Largest `min(a, b)` over the pairs (0 when every pair is complementary).
    pub complementarity_violation: f64,
    /// Deepest penetration of a contact sphere into the terrain at the points (m; 0 without
    /// penetration).
    pub deepest_penetration: f64,
    /// Deepest penetration of a contact sphere into the terrain along the interpolant, on the
    /// grid of `trajectory.csv` ([`deepest_sampled_penetration`]; m, 0 without penetration):
    /// the motion also dips between the points where a point arriving or leaving inside a
    /// stage bends the stage's polynomial through the ground.
    pub deepest_penetration_between_points: f64,
    /// Largest friction-cone violation `|f_t| − μ f_n` (N; 0 inside the pyramid).
    pub largest_friction_cone_violation: f64,
    /// Largest force at a contact point that is off the ground by more than the distance
    /// given to [`ContactTrajectory::residuals`] (N): the solve's report uses the terrain's
    /// reach and a margin for the smoothing's slack (`transcription/solve.rs`).
    pub largest_force_at_a_distance: f64,
}

impl ContactTrajectory {
    /// The body and body-frame offset of each contact point, in the order of [`Self::names`]
    /// (points the model does not know are left out).
    pub fn sites(&self, model: &crate::model::Model) -> Vec<(usize, Vec3)> {
        self.names
            .iter()
            .filter_map(|name| {
                let p = model.contact_points().iter().find(|p| &p.name == name)?;
                Some((p.body, p.offset))
            })
            .collect()
    }

    fn per_site(&self) -> usize {
        2 + self.directions
    }

    /// The gap of contact `l` at point `p` (m).
    pub fn gap(&self, p: usize, l: usize) -> f64 {
        self.gaps[p][l]
    }

    /// The normal force of contact `l` at point `p` (N).
    pub fn normal_force(&self, p: usize, l: usize) -> f64 {
        self.force_scale * self.variables[p][l * self.per_site() + NORMAL]
    }

    /// Whether contact `l` touches the terrain at point `p`: a gap within `tolerance` and a
    /// normal force above `tolerance` times the force scale.
    pub fn touches(&self, p: usize, l: usize, tolerance: f64) -> bool {
        self.gap(p, l) <= tolerance && self.normal_force(p, l) > tolerance * self.force_scale
    }

    /// The residuals of the contact conditions; `distance` is the gap beyond which a force
    /// counts as acting at a distance.
    pub fn residuals(&self, distance: f64) -> ContactResiduals {
        let k = self.per_site();
        let pairs: Vec<(usize, usize)> = std::iter::once((GAP, NORMAL))
            .chain(std::iter::once((CONE, 1)))
            .chain((0..self.directions).map(|j| (2 + j, 2 + j)))
            .collect();
        let mut out = ContactResiduals::default();
        for ((rows, vars), gaps) in self.rows.iter().zip(&self.variables).zip(&self.gaps) {
            for l in 0..self.names.len() {
                for &(r, v) in &pairs {
                    let (a, b) = (rows[l * k + r], vars[l * k + v]);
                    out.largest_complementarity_product =
                        out.largest_complementarity_product.max(a * b);
                    out.complementarity_violation = out.complementarity_violation.max(a.min(b));
                }
                out.deepest_penetration = out.deepest_penetration.max(-gaps[l]);
                let cone = self.force_scale * rows[l * k + CONE];
                out.largest_friction_cone_violation =
                    out.largest_friction_cone_violation.max(-cone);
                if gaps[l] > distance {
                    out.largest_force_at_a_distance = out
                        .largest_force_at_a_distance
                        .max(self.force_scale * vars[l * k + NORMAL]);
                }
            }
        }
        out
    }
}

/// Columns per contact point in [`ContactTrajectory::header`] and [`ContactTrajectory::row`],
/// the gap last.
pub(crate) const COLUMNS: usize = 5;

impl ContactTrajectory {
    /// Column names of the contact values of a row: per contact point `P`, `fn_P` (normal
    /// force, N), `f_P_x`, `f_P_y`, `f_P_z` (world force, N) and `gap_P` (m).
    pub fn header(&self) -> Vec<String> {
        self.names
            .iter()
            .flat_map(|name| {
                [
                    format!("fn_{name}"),
                    format!("f_{name}_x"),
                    format!("f_{name}_y"),
                    format!("f_{name}_z"),
                    format!("gap_{name}"),
                ]
            })
            .collect()
    }

    /// The contact values of point `p` in the order of [`ContactTrajectory::header`].
    pub fn row(&self, p: usize) -> Vec<f64> {
        (0..self.names.len())
            .flat_map(|l| {
                let f = self.forces[p][l];
                [self.normal_force(p, l), f.x, f.y, f.z, self.gap(p, l)]
            })
            .collect()
    }

    /// The contact values at time `t`: the forces linear between the points at `times` (a
    /// transcription has forces at its points only), then in place of the linear gaps those
    /// in `gaps`, the gaps of the configuration sampled at `t` (one per contact point, or none
    /// to keep the linear ones).
    pub fn sample(&self, times: &[f64], t: f64, gaps: &[f64]) -> Vec<f64> {
        let mut values = super::common::sample_rows(times, t, |p| self.row(p));
        for (l, &gap) in gaps.iter().enumerate() {
            values[l * COLUMNS + COLUMNS - 1] = gap;
        }
        values
    }
}

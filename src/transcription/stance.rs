//! The stance feet of an optimized trajectory at its points — the ground's wrench on each
//! sole, its centre of pressure, the centre of mass over the sole, how far the sole moved — and
//! how well the trajectory meets the stance conditions: the largest face-form violation of the
//! contact wrench cone, the smallest margin of the centre of pressure inside the sole, the
//! largest drift of the held frame.

use crate::contact::{FACES, SoleRectangle};
use crate::problem::BodyPoint;
use crate::spatial::{Mat3, Vec3};
use nalgebra::Vector6;

/// One stance foot along a trajectory.
#[derive(Clone, Debug)]
pub struct StanceTrack {
    /// The held frame's name.
    pub name: String,
    /// The held frame on its body.
    pub point: BodyPoint,
    /// Its sole, in the frame.
    pub sole: SoleRectangle,
    /// Friction coefficient.
    pub friction: f64,
    /// Where the frame is held (world).
    pub position: Vec3,
    /// Its held orientation (world).
    pub rotation: Mat3,
    /// The force unit of the face values (N): the robot's weight shared by the stances.
    pub force_unit: f64,
    /// `[point]` wrench `(f, τ)` at the sole centre, in the held frame's axes (N, N·m).
    pub wrench: Vec<Vector6<f64>>,
    /// `[point]` the 16 face rows `F w` of the cone, each of unit norm over `(f/W, τ/(W ℓ))`
    /// (in units of the force unit; `≤ 0` inside the cone).
    pub faces: Vec<[f64; FACES]>,
    /// `[point]` centre of pressure `(x, y)` in the frame (m), `None` without normal force.
    pub cop: Vec<Option<(f64, f64)>>,
    /// `[point]` the robot's centre of mass in the held frame (m).
    pub com: Vec<Vec3>,
    /// `[point]` distance of the frame's origin from its held position (m) and angle from its
    /// held orientation (rad).
    pub drift: Vec<(f64, f64)>,
}

/// The stance feet of a trajectory.
#[derive(Clone, Debug, Default)]
pub struct StanceTrajectory {
    /// One per stance, in the problem's order.
    pub feet: Vec<StanceTrack>,
}

/// How far a trajectory is from meeting its stance conditions.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct StanceResiduals {
    /// Largest face-form value of the contact wrench cone over the points (units of the force
    /// unit; `≤ 0` when every wrench lies in its cone).
    pub largest_cone_violation: f64,
    /// The same in newtons.
    pub largest_cone_violation_n: f64,
    /// Smallest distance of the centre of pressure inside its sole's edges (m; negative
    /// outside, `-inf` when a foot carries no normal force).
    pub smallest_cop_margin: f64,
    /// Smallest normal force (N).
    pub smallest_normal_force: f64,
    /// Largest distance of a held frame from its position (m).
    pub largest_position_drift: f64,
    /// Largest angle of a held frame from its orientation (rad).
    pub largest_orientation_drift: f64,
}

impl StanceTrack {
    /// The world wrench `(f, τ)` at point `p` and where it is taken: the sole centre (world).
    pub fn world_wrench(&self, p: usize) -> (Vec3, Vec3, Vec3) {
        let w = &self.wrench[p];
        let r = &self.rotation;
        (
            r * Vec3::new(w[0], w[1], w[2]),
            r * Vec3::new(w[3], w[4], w[5]),
            self.position + r * self.sole.centre(),
        )
    }

    /// The world force and its world point of application (the centre of pressure on the
    /// ground) at point `p`, for drawing.
    pub fn world_force(&self, p: usize) -> Option<(Vec3, Vec3)> {
        let (x, y) = self.cop[p]?;
        let w = &self.wrench[p];
        let f = self.rotation * Vec3::new(w[0], w[1], w[2]);
        Some((self.position + self.rotation * Vec3::new(x, y, 0.0), f))
    }
}

impl StanceTrajectory {
    /// The residuals over every foot and point.
    pub fn residuals(&self) -> StanceResiduals {
        let mut r = StanceResiduals {
            largest_cone_violation: f64::NEG_INFINITY,
            largest_cone_violation_n: f64::NEG_INFINITY,
            smallest_cop_margin: f64::INFINITY,
            smallest_normal_force: f64::INFINITY,
            largest_position_drift: 0.0,
            largest_orientation_drift: 0.0,
        };
        for foot in &self.feet {
            for p in 0..foot.wrench.len() {
                let worst = foot.faces[p]
                    .iter()
                    .copied()
                    .fold(f64::NEG_INFINITY, f64::max);
                r.largest_cone_violation = r.largest_cone_violation.max(worst);
                r.largest_cone_violation_n =
                    r.largest_cone_violation_n.max(worst * foot.force_unit);
                let margin = foot.cop[p].map_or(f64::NEG_INFINITY, |(x, y)| foot.sole.margin(x, y));
                r.smallest_cop_margin = r.smallest_cop_margin.min(margin);
                r.smallest_normal_force = r.smallest_normal_force.min(foot.wrench[p][2]);
                r.largest_position_drift = r.largest_position_drift.max(foot.drift[p].0);
                r.largest_orientation_drift = r.largest_orientation_drift.max(foot.drift[p].1);
            }
        }
        r
    }

    /// Column names of a row: per foot `S`, the wrench at its sole centre in its held frame's
    /// axes `fx_S, fy_S, fz_S` (N), `tx_S, ty_S, tz_S` (N·m) and the centre of pressure
    /// `copx_S, copy_S` in the frame (m).
    pub fn header(&self) -> Vec<String> {
        self.feet
            .iter()
            .flat_map(|f| {
                ["fx", "fy", "fz", "tx", "ty", "tz", "copx", "copy"]
                    .iter()
                    .map(move |c| format!("{c}_{}", f.name))
            })
            .collect()
    }

    /// The values of point `p` in the order of [`StanceTrajectory::header`] (NaN for the
    /// centre of pressure of a foot without normal force).
    pub fn row(&self, p: usize) -> Vec<f64> {
        self.feet
            .iter()
            .flat_map(|f| {
                let (x, y) = f.cop[p].unwrap_or((f64::NAN, f64::NAN));
                let w = f.wrench[p];
                [w[0], w[1], w[2], w[3], w[4], w[5], x, y]
            })
            .collect()
    }

    /// The values at time `t`, linear between the points at `times`.
    pub fn sample(&self, times: &[f64], t: f64) -> Vec<f64> {
        super::common::sample_rows(times, t, |p| self.row(p))
    }
}

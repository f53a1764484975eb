//! A foot held flat on the ground at every point (`stance:`): a holonomic constraint whose force
//! is the ground's wrench on the sole, a decision variable inside the sole's contact wrench
//! cone (seed 000 Eq. 6 and §3.3; Table 1 counts such forces as variables).
//!
//! At each point the term has six own variables, the wrench `ŵ = (f̂, τ̂)` at the sole centre `o`
//! in the held frame's axes `R*` (`f = W f̂`, `τ = W ℓ τ̂`, with `W` the robot's weight shared by
//! the stances and `ℓ` the sole's half-length), and the rows
//!
//! - the 16 faces of the contact wrench cone (`contact::WrenchCone`), `F ŵ ≤ 0`, each scaled to
//!   unit norm: friction pyramid, centre of pressure inside the sole, yaw-torque bounds;
//! - `p_frame(q) − p* = 0` and `½ vee(R*ᵀR − RᵀR*) = 0`: the frame held at its pose (left out at
//!   the first point when `initial.q` fixes every joint, where they would repeat its bounds).
//!
//! The wrench acts on the robot as three point loads on the foot that sum to it exactly (a
//! rigid body feels only the total wrench): at `o` the force `f` with the couples' reactions,
//! at `o + ℓx̂` and `o + ℓŷ` the forces `W(−τ̂_y ẑ + τ̂_z ŷ)` and `W τ̂_x ẑ` (world axes of `R*`),
//! whose moments about `o` are `τ`. So it enters the DEL row of its point as
//! `w^α Δt J_sole(q)ᵀ w`, and Hermite–Simpson's inverse-dynamics row of its point, through the
//! loads path the contact forces use. The ground's frame `R*` is fixed, so the world forces do
//! not depend on `q`.

use crate::contact::FACES;
use crate::dynamics::{Workspace, center_of_mass, frame_jacobian};
use crate::problem::{Stance, TrajectoryProblem};
use crate::spatial::Vec3;
use crate::terms::{
    LoadForces, Local, LocalIndex, PointInfo, PointTerm, Scratch, chain, chain_pattern,
};
use crate::terms::{frame_origin, frame_rotation};
use crate::terms::{orientation_error, orientation_error_rate};
use crate::transcription::stance::StanceTrack;
use crate::vi::PointLoad;
use nalgebra::{SMatrix, Vector6};

/// Rows holding the frame's pose.
const POSE_ROWS: usize = 6;
/// Own variables per point: the scaled wrench.
const WRENCH: usize = 6;

/// One stance foot.
#[derive(Clone)]
pub(crate) struct StanceTerm {
    stance: Stance,
    chain: Vec<usize>,
    /// The stances' count (the weight is shared among them in the starting guess).
    count: usize,
    /// Force unit `W` (N).
    force_unit: f64,
    /// Lever `ℓ` (m): torques in units of `W ℓ`.
    lever: f64,
    /// The face rows over `ŵ`, each of unit norm.
    faces: SMatrix<f64, FACES, WRENCH>,
    /// Body-frame points of the three loads.
    loads: [Vec3; 3],
    /// `(load, variable, world force per unit of the variable)`.
    force_map: Vec<(usize, usize, Vec3)>,
}

/// Adds one term per stance; returns each one's index among the terms, with a copy for reading
/// solutions.
pub(super) fn add(
    prob: &TrajectoryProblem,
    terms: &mut Vec<Box<dyn PointTerm>>,
) -> Vec<(usize, StanceTerm)> {
    prob.stances
        .iter()
        .map(|s| {
            let term = StanceTerm::new(prob, s);
            terms.push(Box::new(term.clone()));
            (terms.len() - 1, term)
        })
        .collect()
}

impl StanceTerm {
    pub(crate) fn new(prob: &TrajectoryProblem, stance: &Stance) -> Self {
        let model = &prob.model;
        let count = prob.stances.len();
        let weight = model.total_mass() * model.gravity().norm();
        let force_unit = if weight > 0.0 {
            weight / count as f64
        } else {
            1.0
        };
        let (half_length, half_width) = stance.cone.sole.half_extents();
        let lever = half_length.max(half_width);
        let mut faces = stance.cone.faces();
        for mut row in faces.row_iter_mut() {
            for c in 3..WRENCH {
                row[c] *= lever;
            }
            let norm = row.norm();
            row /= norm;
        }
        let o = stance.cone.sole.centre();
        let place = |p: Vec3| stance.point.placement.transform_point(&p);
        let loads = [
            place(o),
            place(o + lever * Vec3::x()),
            place(o + lever * Vec3::y()),
        ];
        let axis = |k: usize| force_unit * stance.rotation.column(k).into_owned();
        let (ex, ey, ez) = (axis(0), axis(1), axis(2));
        let force_map = vec![
            (0, 0, ex),
            (0, 1, ey),
            (0, 2, ez),
            (0, 3, -ez),
            (0, 4, ez),
            (0, 5, -ey),
            (1, 4, -ez),
            (1, 5, ey),
            (2, 3, ez),
        ];
        Self {
            stance: stance.clone(),
            chain: chain(model, stance.point.body),
            count,
            force_unit,
            lever,
            faces,
            loads,
            force_map,
        }
    }

    /// The pose rows are left out where the problem fixes the configuration.
    fn has_pose_rows(&self, p: &PointInfo) -> bool {
        !p.fixed_configuration
    }

    /// An empty track of this foot.
    pub(super) fn track(&self) -> StanceTrack {
        let s = &self.stance;
        StanceTrack {
            name: s.name.clone(),
            point: s.point,
            sole: s.cone.sole,
            friction: s.cone.friction,
            position: s.position,
            rotation: s.rotation,
            force_unit: self.force_unit,
            wrench: Vec::new(),
            faces: Vec::new(),
            cop: Vec::new(),
            com: Vec::new(),
            drift: Vec::new(),
        }
    }

    /// Appends the foot's state at one point to `track`: its own variables there, the
    /// kinematics of the point's configuration and the robot's centre of mass (world).
    pub(super) fn record(&self, own: &[f64], kin: &Workspace, com: &Vec3, track: &mut StanceTrack) {
        let s = &self.stance;
        let w = self.wrench(own);
        track.faces.push(self.face_values(own));
        track.cop.push(s.cone.centre_of_pressure(&w));
        track.wrench.push(w);
        track.com.push(s.rotation.transpose() * (com - s.position));
        let position = (frame_origin(kin, &s.point) - s.position).norm();
        let angle = orientation_error(&s.rotation, &frame_rotation(kin, &s.point)).norm();
        track.drift.push((position, angle.min(1.0).asin()));
    }

    /// The wrench `(f, τ)` at the sole centre in the held frame's axes (N, N·m) of the own
    /// variables `ŵ`.
    pub(crate) fn wrench(&self, own: &[f64]) -> Vector6<f64> {
        let (w, l) = (self.force_unit, self.lever);
        Vector6::new(
            w * own[0],
            w * own[1],
            w * own[2],
            w * l * own[3],
            w * l * own[4],
            w * l * own[5],
        )
    }

    /// The face rows at `ŵ` (scaled to unit norm: in units of `W`).
    pub(crate) fn face_values(&self, own: &[f64]) -> [f64; FACES] {
        let w = Vector6::from_column_slice(&own[..WRENCH]);
        let v = self.faces * w;
        std::array::from_fn(|r| v[r])
    }
}

impl PointTerm for StanceTerm {
    fn variables(&self, _p: &PointInfo) -> usize {
        WRENCH
    }

    /// The normal force is at least zero (the cone implies it; the bound keeps the QPs'
    /// iterates there).
    fn variable_bounds(&self, _p: &PointInfo, lower: &mut [f64], upper: &mut [f64]) {
        lower.fill(f64::NEG_INFINITY);
        upper.fill(f64::INFINITY);
        lower[2] = 0.0;
    }

    /// The static wrench: each stance carries its share of the weight, with the moment the
    /// weight has about its sole centre (the centre of pressure under the centre of mass).
    fn start(&self, _p: &PointInfo, local: &Local, scratch: &mut Scratch, own: &mut [f64]) {
        let model = local.model;
        let r = &self.stance.rotation;
        let f = -model.total_mass() * model.gravity() / self.count as f64;
        let o = self.stance.position + r * self.stance.cone.sole.centre();
        let com = center_of_mass(model, &mut scratch.kin, local.q);
        let tau = (com - o).cross(&f);
        let (fl, tl) = (r.transpose() * f, r.transpose() * tau);
        for d in 0..3 {
            own[d] = fl[d] / self.force_unit;
            own[3 + d] = tl[d] / (self.force_unit * self.lever);
        }
    }

    fn rows(&self, p: &PointInfo) -> usize {
        FACES + if self.has_pose_rows(p) { POSE_ROWS } else { 0 }
    }

    fn row_bounds(&self, _p: &PointInfo, lower: &mut [f64], upper: &mut [f64]) {
        lower[..FACES].fill(f64::NEG_INFINITY);
        upper[..FACES].fill(0.0);
        lower[FACES..].fill(0.0);
        upper[FACES..].fill(0.0);
    }

    fn jacobian_pattern(&self, p: &PointInfo, ix: &LocalIndex, out: &mut Vec<(usize, usize)>) {
        for r in 0..FACES {
            out.extend((0..WRENCH).map(|j| (r, ix.own(j))));
        }
        if self.has_pose_rows(p) {
            for &j in &self.chain {
                out.extend((FACES..FACES + POSE_ROWS).map(|r| (r, ix.q(j))));
            }
        }
    }

    fn evaluate(
        &self,
        p: &PointInfo,
        local: &Local,
        scratch: &mut Scratch,
        rows: &mut [f64],
        jac: Option<&mut [f64]>,
    ) {
        rows[..FACES].copy_from_slice(&self.face_values(local.own));
        let pose = self.has_pose_rows(p);
        let target = &self.stance.rotation;
        let rm = frame_rotation(&scratch.kin, &self.stance.point);
        if pose {
            let d = frame_origin(&scratch.kin, &self.stance.point) - self.stance.position;
            rows[FACES..FACES + 3].copy_from_slice(d.as_slice());
            rows[FACES + 3..].copy_from_slice(orientation_error(target, &rm).as_slice());
        }
        let Some(jv) = jac else { return };
        let mut e = 0;
        for r in 0..FACES {
            for c in 0..WRENCH {
                jv[e] = self.faces[(r, c)];
                e += 1;
            }
        }
        if !pose {
            return;
        }
        let fj = &mut scratch.frame_jacobian;
        let point = &self.stance.point;
        frame_jacobian(local.model, &scratch.kin, point.body, &point.placement, fj);
        for &j in &self.chain {
            let w = Vec3::new(fj[(0, j)], fj[(1, j)], fj[(2, j)]);
            let rate = orientation_error_rate(target, &rm, &w);
            for d in 0..3 {
                jv[e + d] = fj[(3 + d, j)];
                jv[e + 3 + d] = rate[d];
            }
            e += POSE_ROWS;
        }
    }

    fn hessian_pattern(&self, p: &PointInfo, ix: &LocalIndex, out: &mut Vec<(usize, usize)>) {
        if self.has_pose_rows(p) {
            chain_pattern(&self.chain, ix, out);
        }
    }

    fn label(&self) -> &'static str {
        "stance"
    }

    fn loads(&self) -> Vec<PointLoad> {
        self.loads
            .iter()
            .map(|&offset| PointLoad {
                body: self.stance.point.body,
                offset,
            })
            .collect()
    }

    fn force_variables(&self, _p: &PointInfo) -> Vec<(usize, usize)> {
        self.force_map.iter().map(|&(l, j, _)| (l, j)).collect()
    }

    fn forces(&self, _p: &PointInfo, local: &Local, _scratch: &mut Scratch, out: &mut LoadForces) {
        for (f, dq) in out.force.iter_mut().zip(&mut out.dq) {
            *f = Vec3::zeros();
            dq.fill(0.0);
        }
        for &(l, j, unit) in &self.force_map {
            out.force[l] += local.own[j] * unit;
            out.down.push(unit);
        }
    }
}

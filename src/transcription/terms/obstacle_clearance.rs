//! `d_B(p_s(q)) ≥ margin` at every point, for every sample `p_s` of a body segment and every
//! obstacle `B` of the terrain: a leg kept out of a box without touching it, a foot kept
//! above the ground level where a gap is.
//!
//! The obstacles are the terrain's boxes and its gaps' openings. `d_B` is the exact Euclidean
//! distance to the box's sharp solid `x ∈ [x₀, x₁]`, `y ∈ [y₀, y₁]` (or all `y`), `z ≤ top`
//! (not the terrain's rounded surface, which lies up to `(√2 − 1) r` inside the sharp
//! corners), so a sample that meets its row is outside the box itself; or to a gap's opening,
//! the air over its footprint below the ground level, `x ∈ [x₀, x₁]`, `y ∈ [y₀, y₁]` (or all
//! `y`), `ground − depth ≤ z ≤ ground`: a foot's centre kept its radius from it never hangs
//! below the ground over the gap, and may still stand on the gap's edge (the opening's corner
//! is the sharp edge, outside the rounded surface). The segment between samples is outside
//! too when the margin is at least half their spacing: `d_B` is 1-Lipschitz, and every point
//! of the segment is within half a spacing of a sample. Outside the obstacle `d_B` is
//! continuously differentiable (the distance to a convex set); its Hessian is the terms'
//! central difference of the exact row gradient `∇d_Bᵀ J_s(q)`.

use super::{
    Local, LocalIndex, PointInfo, PointTerm, Scratch, chain, chain_pattern, point_velocity_column,
};
use crate::contact::{Distance, Gap, TerrainBox};
use crate::dynamics::frame_jacobian;
use crate::problem::{BodyPoint, PathConstraint, TrajectoryProblem};
use crate::spatial::Vec3;
use crate::transcription::common::frame_origin;

struct ObstacleClearance {
    samples: Vec<BodyPoint>,
    /// Per obstacle (boxes, then gap openings): its lower and upper corners.
    obstacles: Vec<(Vec3, Vec3)>,
    margin: f64,
    chain: Vec<usize>,
}

/// The `y` extent of a footprint (all `y` when it has none).
fn y_span(y: Option<[f64; 2]>) -> (f64, f64) {
    y.map_or((f64::NEG_INFINITY, f64::INFINITY), |y| (y[0], y[1]))
}

/// The solid of a terrain box: its footprint, from below the ground up to its top.
fn solid(b: &TerrainBox) -> (Vec3, Vec3) {
    let (y0, y1) = y_span(b.y);
    (
        Vec3::new(b.x[0], y0, f64::NEG_INFINITY),
        Vec3::new(b.x[1], y1, b.top),
    )
}

/// The opening of a gap in ground at height `ground`: its footprint, from its floor up to the
/// ground level.
fn opening(g: &Gap, ground: f64) -> (Vec3, Vec3) {
    let (y0, y1) = y_span(g.y);
    (
        Vec3::new(g.x[0], y0, ground - g.depth),
        Vec3::new(g.x[1], y1, ground),
    )
}

/// Adds one term per obstacle-clearance constraint (none without terrain).
pub(super) fn add(prob: &TrajectoryProblem, terms: &mut Vec<Box<dyn PointTerm>>) {
    let obstacles: Vec<(Vec3, Vec3)> = prob
        .contact
        .as_ref()
        .map(|c| {
            let t = &c.terrain;
            let openings = t.gaps.iter().map(|g| opening(g, t.ground));
            t.boxes.iter().map(solid).chain(openings).collect()
        })
        .unwrap_or_default();
    for c in &prob.constraints {
        if let PathConstraint::ObstacleClearance {
            samples, margin, ..
        } = c
        {
            let Some(first) = samples.first() else {
                continue;
            };
            terms.push(Box::new(ObstacleClearance {
                samples: samples.clone(),
                obstacles: obstacles.clone(),
                margin: *margin,
                chain: chain(&prob.model, first.body),
            }));
        }
    }
}

impl ObstacleClearance {
    fn distance(&self, b: usize, p: &Vec3) -> Distance {
        let (lower, upper) = &self.obstacles[b];
        Distance::to_box(p, lower, upper)
    }
}

impl PointTerm for ObstacleClearance {
    fn rows(&self, p: &PointInfo) -> usize {
        if p.fixed_configuration {
            0
        } else {
            self.samples.len() * self.obstacles.len()
        }
    }

    fn row_bounds(&self, _p: &PointInfo, lower: &mut [f64], upper: &mut [f64]) {
        lower.fill(self.margin);
        upper.fill(f64::INFINITY);
    }

    fn jacobian_pattern(&self, p: &PointInfo, ix: &LocalIndex, out: &mut Vec<(usize, usize)>) {
        for r in 0..self.rows(p) {
            out.extend(self.chain.iter().map(|&j| (r, ix.q(j))));
        }
    }

    fn evaluate(
        &self,
        p: &PointInfo,
        local: &Local,
        scratch: &mut Scratch,
        rows: &mut [f64],
        mut jac: Option<&mut [f64]>,
    ) {
        if p.fixed_configuration {
            return;
        }
        let (mut r, mut k) = (0, 0);
        for s in &self.samples {
            let x = frame_origin(&scratch.kin, s);
            if jac.is_some() {
                frame_jacobian(
                    local.model,
                    &scratch.kin,
                    s.body,
                    &s.placement,
                    &mut scratch.frame_jacobian,
                );
            }
            for b in 0..self.obstacles.len() {
                let d = self.distance(b, &x);
                rows[r] = d.value;
                r += 1;
                if let Some(jv) = jac.as_deref_mut() {
                    let fj = &scratch.frame_jacobian;
                    for &j in &self.chain {
                        jv[k] = d.gradient.dot(&point_velocity_column(fj, j));
                        k += 1;
                    }
                }
            }
        }
    }

    fn hessian_pattern(&self, p: &PointInfo, ix: &LocalIndex, out: &mut Vec<(usize, usize)>) {
        if !p.fixed_configuration {
            chain_pattern(&self.chain, ix, out);
        }
    }

    fn label(&self) -> &'static str {
        "obstacle_clearance"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The distance to the box's solid against the plain formula of a point beside, above
    /// and diagonally off an edge of a box (the Euclidean norm of the excess per axis).
    #[test]
    fn the_solid_distance_is_the_euclidean_distance_to_the_sharp_box() {
        let b = TerrainBox {
            x: [0.4, 0.55],
            y: None,
            top: 0.16,
        };
        let (lower, upper) = solid(&b);
        for (p, expected) in [
            (Vec3::new(0.3, 0.2, 0.05), 0.1),
            (Vec3::new(0.5, -3.0, 0.2), 0.04),
            (
                Vec3::new(0.58, 0.0, 0.2),
                (0.03f64.powi(2) + 0.04f64.powi(2)).sqrt(),
            ),
            (Vec3::new(0.35, 0.0, 0.16), 0.05),
        ] {
            let d = Distance::to_box(&p, &lower, &upper);
            assert!((d.value - expected).abs() < 1e-14, "{p:?}: {}", d.value);
        }
        let inside = Distance::to_box(&Vec3::new(0.45, 0.0, 0.1), &lower, &upper);
        assert!((inside.value + 0.05).abs() < 1e-14, "{}", inside.value);
    }

    /// The distance to a gap's opening: above it the height over the ground level, beside it
    /// on the ground the distance to its edge, diagonally off the edge the distance to the
    /// corner, and inside it the (negative) distance to the nearest of its floor, walls and
    /// ground level.
    #[test]
    fn the_opening_distance_is_the_distance_to_the_air_below_the_ground_level() {
        let g = Gap {
            x: [0.15, 0.23],
            y: None,
            depth: 0.1,
        };
        let (lower, upper) = opening(&g, 0.02);
        for (p, expected) in [
            (Vec3::new(0.19, 0.3, 0.05), 0.03),
            (Vec3::new(0.1, 0.0, 0.02), 0.05),
            (
                Vec3::new(0.26, 0.0, 0.06),
                (0.03f64.powi(2) + 0.04f64.powi(2)).sqrt(),
            ),
            (Vec3::new(0.16, 0.0, -0.02), -0.01),
            (Vec3::new(0.19, 0.0, 0.015), -0.005),
        ] {
            let d = Distance::to_box(&p, &lower, &upper);
            assert!((d.value - expected).abs() < 1e-14, "{p:?}: {}", d.value);
        }
    }
}

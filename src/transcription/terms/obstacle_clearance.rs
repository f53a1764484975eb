//! `d_B(p_s(q)) ≥ margin` at every point, for every sample `p_s` of a body segment and every
//! terrain box `B`: a leg kept out of an obstacle without touching it.
//!
//! `d_B` is the exact Euclidean distance to the box's sharp solid `x ∈ [x₀, x₁]`,
//! `y ∈ [y₀, y₁]` (or all `y`), `z ≤ top` (not the terrain's rounded surface, which lies up to
//! `(√2 − 1) r` inside the sharp corners), so a sample that meets its row is outside the box
//! itself. The segment between samples is outside too when the margin is at least half their
//! spacing: `d_B` is 1-Lipschitz, and every point of the segment is within half a spacing of a
//! sample. Outside the box `d_B` is continuously differentiable (the distance to a convex set);
//! its Hessian is the terms' central difference of the exact row gradient
//! `∇d_Bᵀ J_s(q)`.

use super::{
    Local, LocalIndex, PointInfo, PointTerm, Scratch, chain, chain_pattern, point_velocity_column,
};
use crate::contact::{Distance, TerrainBox};
use crate::dynamics::frame_jacobian;
use crate::problem::{BodyPoint, PathConstraint, TrajectoryProblem};
use crate::spatial::Vec3;
use crate::transcription::common::frame_origin;

struct ObstacleClearance {
    samples: Vec<BodyPoint>,
    /// Per box: the lower and upper corners of its solid.
    boxes: Vec<(Vec3, Vec3)>,
    margin: f64,
    chain: Vec<usize>,
}

/// The solid of a terrain box: its footprint, from below the ground up to its top.
fn solid(b: &TerrainBox) -> (Vec3, Vec3) {
    let (y0, y1) =
        b.y.map_or((f64::NEG_INFINITY, f64::INFINITY), |y| (y[0], y[1]));
    (
        Vec3::new(b.x[0], y0, f64::NEG_INFINITY),
        Vec3::new(b.x[1], y1, b.top),
    )
}

/// Adds one term per obstacle-clearance constraint (none without terrain boxes).
pub(super) fn add(prob: &TrajectoryProblem, terms: &mut Vec<Box<dyn PointTerm>>) {
    let boxes: Vec<(Vec3, Vec3)> = prob
        .contact
        .as_ref()
        .map(|c| c.terrain.boxes.iter().map(solid).collect())
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
                boxes: boxes.clone(),
                margin: *margin,
                chain: chain(&prob.model, first.body),
            }));
        }
    }
}

impl ObstacleClearance {
    fn distance(&self, b: usize, p: &Vec3) -> Distance {
        let (lower, upper) = &self.boxes[b];
        Distance::to_box(p, lower, upper)
    }
}

impl PointTerm for ObstacleClearance {
    fn rows(&self, p: &PointInfo) -> usize {
        if p.fixed_configuration {
            0
        } else {
            self.samples.len() * self.boxes.len()
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
            for b in 0..self.boxes.len() {
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
}

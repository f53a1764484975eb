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
    TermKind, TermSpec, Entry, Layout, Local, LocalIndex, PointInfo, PointTerm, Scratch,
    chain, chain_pattern, frame_origin, point_velocity_column, read_entry,
};
use crate::contact::{Distance, Gap, Terrain, TerrainBox};
use crate::dynamics::frame_jacobian;
use crate::schema::{BodyPoint, ProblemError};
use crate::spatial::{Transform, Vec3};
use serde::Deserialize;
use serde_yaml_ng::Value;
use std::sync::Arc;

/// A body segment kept `margin` away from every obstacle of the terrain at every point: an
/// entry `- obstacle_clearance: {frame, from, to, samples, margin}` of `constraints:`.
#[derive(Clone, Debug)]
struct ObstacleClearance {
    /// The samples, evenly spaced from `from` to `to` in the frame.
    samples: Vec<BodyPoint>,
    /// Smallest distance to an obstacle (m).
    margin: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ObstacleClearanceEntry {
    frame: String,
    from: [f64; 3],
    to: [f64; 3],
    samples: usize,
    margin: f64,
}

pub(super) const KIND: TermKind = TermKind {
    key: "obstacle_clearance",
    parse,
};

fn parse(value: &Value, entry: &Entry, field: &str) -> Result<Arc<dyn TermSpec>, ProblemError> {
    Ok(Arc::new(read(value, entry, field)?))
}

fn read(value: &Value, entry: &Entry, field: &str) -> Result<ObstacleClearance, ProblemError> {
    let fields = entry.fields;
    let e: ObstacleClearanceEntry = read_entry(fields, field, value)?;
    if entry
        .terrain
        .is_none_or(|t| t.boxes.is_empty() && t.gaps.is_empty())
    {
        return Err(fields.invalid(field, "needs a terrain with at least one box or gap"));
    }
    let margin = fields.nonnegative(&format!("{field}.margin"), e.margin)?;
    let from = fields.finite3(&format!("{field}.from"), e.from)?;
    let to = fields.finite3(&format!("{field}.to"), e.to)?;
    if e.samples < 2 && (e.samples == 0 || from != to) {
        return Err(fields.invalid(
            &format!("{field}.samples"),
            format!(
                "needs at least 2 samples (both ends), or 1 with `to` equal to `from`, got {}",
                e.samples
            ),
        ));
    }
    let frame = fields.point(&format!("{field}.frame"), &e.frame)?;
    let samples = (0..e.samples)
        .map(|k| {
            let s = k as f64 / (e.samples - 1).max(1) as f64;
            BodyPoint {
                body: frame.body,
                placement: frame
                    .placement
                    .compose(&Transform::from_translation(from + s * (to - from))),
            }
        })
        .collect();
    Ok(ObstacleClearance { samples, margin })
}

impl TermSpec for ObstacleClearance {
    fn key(&self) -> &'static str {
        KIND.key
    }

    fn build(&self, on: &Layout) -> Vec<Box<dyn PointTerm>> {
        vec![Box::new(ObstacleClearanceTerm {
            samples: self.samples.clone(),
            obstacles: on.terrain.map(obstacles).unwrap_or_default(),
            margin: self.margin,
            chain: chain(on.model, self.samples[0].body),
        })]
    }

    fn holds_at_start(&self) -> bool {
        true
    }
}

struct ObstacleClearanceTerm {
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

/// The terrain's obstacles: its boxes' solids, then its gaps' openings.
fn obstacles(t: &Terrain) -> Vec<(Vec3, Vec3)> {
    let openings = t.gaps.iter().map(|g| opening(g, t.ground));
    t.boxes.iter().map(solid).chain(openings).collect()
}

impl ObstacleClearanceTerm {
    fn distance(&self, b: usize, p: &Vec3) -> Distance {
        let (lower, upper) = &self.obstacles[b];
        Distance::to_box(p, lower, upper)
    }
}

impl PointTerm for ObstacleClearanceTerm {
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
    use crate::terms::tests::{entry_of, robot};

    fn clearance(terrain: &str, value: &str) -> Result<ObstacleClearance, ProblemError> {
        let model = robot("box.urdf");
        let terrain: Terrain = serde_yaml_ng::from_str(terrain).unwrap();
        entry_of(&model, Some(&terrain), |entry| {
            read(&serde_yaml_ng::from_str(value).unwrap(), entry, "c")
        })
    }

    #[test]
    fn samples_are_spread_evenly_from_one_end_to_the_other() {
        let c = clearance(
            "{friction: 0.5, boxes: [{x: [0.3, 0.5], top: 0.1}]}",
            "{frame: box, from: [0, 0, 0.05], to: [0, 0, -0.05], samples: 3, margin: 0.01}",
        )
        .unwrap();
        assert_eq!(c.margin, 0.01);
        let z: Vec<f64> = c
            .samples
            .iter()
            .map(|s| s.placement.translation.z)
            .collect();
        assert_eq!(z, [0.05, 0.0, -0.05]);
        // One sample where `to` is `from`, over a terrain with a gap and no box.
        let c = clearance(
            "{friction: 0.5, gaps: [{x: [0.3, 0.5], depth: 0.1}]}",
            "{frame: box, from: [0, 0, -0.05], to: [0, 0, -0.05], samples: 1, margin: 0.01}",
        )
        .unwrap();
        assert_eq!(c.samples.len(), 1);
        assert_eq!(c.samples[0].placement.translation.z, -0.05);
    }

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

//! `view.html`: one self-contained page (no network: script, style and data inline) that shows
//! a [`Scene`] in 3-D. The renderer is `viewer.js` (plain JavaScript on a 2-D canvas, embedded
//! at build time); the scene goes in as JSON: the static geometry in body frames and, per shown
//! time, the world pose of every body as position and unit quaternion.

use super::scene::Scene;
use super::shapes::Geometry;
use super::skeleton::{Anchor, Side};
use super::{OutputError, write_atomic};
use crate::spatial::{Transform, Vec3};
use nalgebra::{Rotation3, UnitQuaternion};
use serde::Serialize;
use std::path::Path;

/// The page around the renderer.
const TEMPLATE: &str = include_str!("viewer.html");
/// The renderer.
const SCRIPT: &str = include_str!("viewer.js");
/// Where the template takes the scene and the script.
const DATA_SLOT: &str = "/*VITO_SCENE*/";
const SCRIPT_SLOT: &str = "/*VITO_VIEWER*/";

/// Decimals kept of positions (m) and quaternion components: 0.1 mm, 1e-4 rad.
const DECIMALS: i32 = 4;

fn round(v: f64) -> f64 {
    let s = 10f64.powi(DECIMALS);
    let r = (v * s).round() / s;
    if r == 0.0 { 0.0 } else { r }
}

fn vec(v: &Vec3) -> [f64; 3] {
    [round(v.x), round(v.y), round(v.z)]
}

/// `[x, y, z, w, i, j, k]`: position and unit quaternion (scalar first).
fn pose(t: &Transform) -> [f64; 7] {
    let q = quaternion(t);
    let p = vec(&t.translation);
    [
        p[0],
        p[1],
        p[2],
        round(q.w),
        round(q.i),
        round(q.j),
        round(q.k),
    ]
}

fn quaternion(t: &Transform) -> UnitQuaternion<f64> {
    UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix_unchecked(t.rotation))
}

/// `[body, x, y, z]`, body −1 for the world.
fn anchor(a: &Anchor) -> [f64; 4] {
    let o = vec(&a.offset);
    [a.body.map_or(-1.0, |b| b as f64), o[0], o[1], o[2]]
}

fn side(s: Side) -> u8 {
    match s {
        Side::Left => 0,
        Side::Middle => 1,
        Side::Right => 2,
    }
}

fn hex((r, g, b): (u8, u8, u8)) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}

#[derive(Serialize)]
struct ShapeData {
    body: f64,
    kind: &'static str,
    /// Box sides; radius and length; or radius.
    size: Vec<f64>,
    pose: [f64; 7],
    side: u8,
}

#[derive(Serialize)]
struct BoneData {
    a: [f64; 4],
    b: [f64; 4],
    side: u8,
    /// Whether the body it depicts has no solid shape (the bone is drawn without the
    /// skeleton switch).
    bare: bool,
}

#[derive(Serialize)]
struct PointData {
    name: String,
    at: [f64; 4],
    contact: bool,
}

#[derive(Serialize)]
struct ForceData {
    point: usize,
    values: Vec<[f64; 3]>,
}

#[derive(Serialize)]
struct RunData {
    label: String,
    times: Vec<f64>,
    /// Per time, `[x, y, z, w, i, j, k]` of each body in turn.
    poses: Vec<Vec<f64>>,
    forces: Vec<ForceData>,
}

#[derive(Serialize)]
struct CheckData {
    frame: usize,
    points: Vec<[f64; 3]>,
}

#[derive(Serialize)]
struct SceneData<'a> {
    title: &'a str,
    info: &'a [String],
    bodies: usize,
    side_colors: [String; 3],
    solid_colors: [String; 3],
    shapes: Vec<ShapeData>,
    bones: Vec<BoneData>,
    joints: Vec<[f64; 4]>,
    soles: Vec<(u8, Vec<[f64; 4]>)>,
    root: [f64; 4],
    points: Vec<PointData>,
    traced: &'a [usize],
    runs: Vec<RunData>,
    targets: &'a [super::recorded::TargetRecord],
    terrain: &'a Option<crate::contact::Terrain>,
    ground: Option<f64>,
    bounds: [[f64; 3]; 2],
    /// Metres of arrow per newton.
    force_scale: f64,
    check: Option<CheckData>,
}

fn scene_data(scene: &Scene) -> SceneData<'_> {
    let bodies = scene.skeleton.sides.len();
    let shaped: Vec<Option<usize>> = scene.shapes.iter().map(|s| s.body).collect();
    SceneData {
        title: &scene.title,
        info: &scene.info,
        bodies,
        side_colors: [Side::Left, Side::Middle, Side::Right].map(|s| hex(s.rgb())),
        solid_colors: [Side::Left, Side::Middle, Side::Right].map(|s| hex(s.solid_rgb())),
        shapes: scene
            .shapes
            .iter()
            .map(|s| {
                let (kind, size) = match s.geometry {
                    Geometry::Box(d) => ("box", vec(&d).to_vec()),
                    Geometry::Cylinder(r, l) => ("cylinder", vec![round(r), round(l)]),
                    Geometry::Capsule(r, l) => ("capsule", vec![round(r), round(l)]),
                    Geometry::Sphere(r) => ("sphere", vec![round(r)]),
                };
                ShapeData {
                    body: s.body.map_or(-1.0, |b| b as f64),
                    kind,
                    size,
                    pose: pose(&s.placement),
                    side: s.body.map_or(1, |b| side(scene.skeleton.sides[b])),
                }
            })
            .collect(),
        bones: scene
            .skeleton
            .bones
            .iter()
            .map(|b| BoneData {
                a: anchor(&b.a),
                b: anchor(&b.b),
                side: side(b.side),
                bare: !shaped.contains(&b.a.body),
            })
            .collect(),
        joints: scene.skeleton.joints.iter().map(anchor).collect(),
        soles: scene
            .skeleton
            .soles
            .iter()
            .map(|(s, pts)| (side(*s), pts.iter().map(anchor).collect()))
            .collect(),
        root: anchor(&scene.skeleton.root),
        points: scene
            .points
            .iter()
            .map(|p| PointData {
                name: p.name.clone(),
                at: anchor(&p.anchor),
                contact: p.contact,
            })
            .collect(),
        traced: &scene.traced,
        runs: scene
            .runs
            .iter()
            .map(|r| RunData {
                label: r.label.clone(),
                times: r.times.iter().map(|t| round(*t)).collect(),
                poses: continuous_quaternions(&r.poses),
                forces: r
                    .forces
                    .iter()
                    .map(|(point, f)| ForceData {
                        point: *point,
                        values: f.iter().map(vec).collect(),
                    })
                    .collect(),
            })
            .collect(),
        targets: &scene.targets,
        terrain: &scene.terrain,
        ground: scene.ground,
        bounds: [vec(&scene.bounds.lo), vec(&scene.bounds.hi)],
        force_scale: scene.force_scale(),
        check: scene.check.as_ref().map(|(frame, pts)| CheckData {
            frame: *frame,
            points: pts.iter().map(vec).collect(),
        }),
    }
}

/// The poses of each time, flattened, with each body's quaternion on the side of the
/// previous time's (so that the viewer can interpolate between times component-wise).
fn continuous_quaternions(poses: &[Vec<Transform>]) -> Vec<Vec<f64>> {
    let mut previous: Vec<Option<UnitQuaternion<f64>>> =
        vec![None; poses.first().map_or(0, Vec::len)];
    poses
        .iter()
        .map(|frame| {
            frame
                .iter()
                .zip(&mut previous)
                .flat_map(|(t, prev)| {
                    let mut p = pose(t);
                    let q = quaternion(t);
                    let flip = prev.is_some_and(|r| r.coords.dot(&q.coords) < 0.0);
                    *prev = Some(if flip {
                        UnitQuaternion::new_unchecked(-q.into_inner())
                    } else {
                        q
                    });
                    if flip {
                        for c in &mut p[3..] {
                            *c = if *c == 0.0 { 0.0 } else { -*c };
                        }
                    }
                    p
                })
                .collect()
        })
        .collect()
}

/// The page showing `scene`.
pub(super) fn viewer_html(scene: &Scene) -> Result<String, String> {
    let json = serde_json::to_string(&scene_data(scene)).map_err(|e| e.to_string())?;
    // Inside a <script> element only "</" can end it early; "<\/" is the same JSON string.
    let json = json.replace("</", "<\\/");
    Ok(TEMPLATE
        .replacen(DATA_SLOT, &json, 1)
        .replacen(SCRIPT_SLOT, SCRIPT, 1))
}

/// Writes the page showing `scene` to `path`.
///
/// # Errors
/// An [`OutputError`] naming the file.
pub(super) fn write_viewer(path: &Path, scene: &Scene) -> Result<(), OutputError> {
    let html = viewer_html(scene).map_err(|message| OutputError::Draw {
        path: path.to_path_buf(),
        message,
    })?;
    write_atomic(path, html.as_bytes()).map_err(|source| OutputError::Io {
        path: path.to_path_buf(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_template_takes_the_scene_and_the_script_once() {
        assert_eq!(TEMPLATE.matches(DATA_SLOT).count(), 1);
        assert_eq!(TEMPLATE.matches(SCRIPT_SLOT).count(), 1);
        assert!(
            !SCRIPT.contains("</script"),
            "the script cannot end its element"
        );
        assert!(!SCRIPT.contains(DATA_SLOT) && !SCRIPT.contains(SCRIPT_SLOT));
        for offline in ["http://", "https://", "//cdn", "import "] {
            assert!(
                !TEMPLATE.contains(offline) && !SCRIPT.contains(offline),
                "{offline}"
            );
        }
    }

    #[test]
    fn quaternions_encode_the_rotation_and_stay_on_one_side() {
        let turn = |a: f64| {
            Transform::new(
                *Rotation3::from_axis_angle(&Vec3::y_axis(), a).matrix(),
                Vec3::new(1.0, 2.0, 3.0),
            )
        };
        let poses: Vec<Vec<Transform>> = (0..=40).map(|k| vec![turn(0.2 * k as f64)]).collect();
        let flat = continuous_quaternions(&poses);
        for (k, (row, t)) in flat.iter().zip(&poses).enumerate() {
            let q = UnitQuaternion::new_normalize(nalgebra::Quaternion::new(
                row[3], row[4], row[5], row[6],
            ));
            let err = (q.to_rotation_matrix().matrix() - t[0].rotation).norm();
            assert!(err < 1e-3, "{k}: {err}");
            assert_eq!(&row[..3], &[1.0, 2.0, 3.0]);
            if k > 0 {
                let prev = &flat[k - 1];
                let dot: f64 = (3..7).map(|i| prev[i] * row[i]).sum();
                assert!(dot > 0.0, "{k}: a jump to the other hemisphere");
            }
        }
    }
}

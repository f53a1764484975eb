//! `view.html`: one self-contained page (no network: script, style and data inline) that shows
//! a [`Scene`] in 3-D. The renderer is `viewer.js` (plain JavaScript on a 2-D canvas, embedded
//! at build time); the scene goes in as JSON: the static geometry in body frames and, per shown
//! time, the world pose of every body as position and unit quaternion.
//!
//! A page whose robot has meshes also carries three.js (`vendor/three.min.js`, see
//! `vendor/README.md`) and `viewer_solids.js`, which draw its solids (meshes, primitives and
//! terrain boxes) with WebGL into the 2-D canvas; the meshes go in as 16-bit coordinates within
//! their bounding box and 16- or 32-bit triangle indices, in base64. Pages without meshes carry
//! neither.

use super::scene::Scene;
use super::shapes::{Geometry, MeshAsset, Shape};
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
/// three.js, bundled (see `vendor/README.md`), and the renderer of solids on it.
const THREE: &str = include_str!("vendor/three.min.js");
const SOLIDS_SCRIPT: &str = include_str!("viewer_solids.js");
/// Where the template takes the scene, the scripts of a page with meshes, and the renderer.
const DATA_SLOT: &str = "/*VITO_SCENE*/";
const THREE_SLOT: &str = "<!--VITO_THREE-->";
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

/// A mesh: its vertices as 16-bit steps from `lo` (`lo + q · step`), three per vertex, and its
/// triangles as three vertex indices each (32-bit when `wide`), little-endian, in base64.
#[derive(Serialize)]
struct MeshData {
    lo: [f64; 3],
    step: [f64; 3],
    vertices: String,
    triangles: String,
    wide: bool,
}

/// A shape showing mesh `mesh`, scaled, at `pose` on `body`, in `color` (`null`: the side's).
#[derive(Serialize)]
struct MeshShapeData {
    body: f64,
    mesh: usize,
    pose: [f64; 7],
    scale: [f64; 3],
    color: Option<String>,
    opacity: f64,
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
    #[serde(skip_serializing_if = "Vec::is_empty")]
    meshes: Vec<MeshData>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    mesh_shapes: Vec<MeshShapeData>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    missing_meshes: &'a [String],
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

/// Standard base64 (RFC 4648, padded).
fn base64(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (k, &b)| n | u32::from(b) << (16 - 8 * k));
        for k in 0..4 {
            out.push(if k <= chunk.len() {
                char::from(DIGITS[(n >> (18 - 6 * k) & 63) as usize])
            } else {
                '='
            });
        }
    }
    out
}

fn mesh_data(asset: &MeshAsset) -> MeshData {
    let m = &asset.mesh;
    let (lo, hi) = m.bounds().unwrap_or(([0.0; 3], [0.0; 3]));
    let lo = lo.map(f64::from);
    let step: [f64; 3] = std::array::from_fn(|k| (f64::from(hi[k]) - lo[k]) / f64::from(u16::MAX));
    let vertices: Vec<u8> = m
        .vertices
        .iter()
        .flat_map(|v| {
            (0..3).flat_map(move |k| {
                let q = if step[k] > 0.0 {
                    ((f64::from(v[k]) - lo[k]) / step[k]).round()
                } else {
                    0.0
                };
                (q.clamp(0.0, f64::from(u16::MAX)) as u16).to_le_bytes()
            })
        })
        .collect();
    let wide = m.vertices.len() > usize::from(u16::MAX) + 1;
    let triangles: Vec<u8> = m
        .triangles
        .iter()
        .flatten()
        .flat_map(|&i| {
            if wide {
                i.to_le_bytes().to_vec()
            } else {
                (i as u16).to_le_bytes().to_vec()
            }
        })
        .collect();
    MeshData {
        lo,
        step,
        vertices: base64(&vertices),
        triangles: base64(&triangles),
        wide,
    }
}

fn scene_data(scene: &Scene) -> SceneData<'_> {
    let bodies = scene.skeleton.sides.len();
    let body_side = |body: Option<usize>| body.map_or(1, |b| side(scene.skeleton.sides[b]));
    let (meshed, primitive): (Vec<&Shape>, Vec<&Shape>) = scene
        .shapes
        .iter()
        .partition(|s| matches!(s.geometry, Geometry::Mesh { .. }));
    let shaped: Vec<Option<usize>> = primitive.iter().map(|s| s.body).collect();
    SceneData {
        title: &scene.title,
        info: &scene.info,
        bodies,
        side_colors: [Side::Left, Side::Middle, Side::Right].map(|s| hex(s.rgb())),
        solid_colors: [Side::Left, Side::Middle, Side::Right].map(|s| hex(s.solid_rgb())),
        shapes: primitive
            .iter()
            .filter_map(|s| {
                let (kind, size) = match s.geometry {
                    Geometry::Box(d) => ("box", vec(&d).to_vec()),
                    Geometry::Cylinder(r, l) => ("cylinder", vec![round(r), round(l)]),
                    Geometry::Capsule(r, l) => ("capsule", vec![round(r), round(l)]),
                    Geometry::Sphere(r) => ("sphere", vec![round(r)]),
                    Geometry::Mesh { .. } => return None,
                };
                Some(ShapeData {
                    body: s.body.map_or(-1.0, |b| b as f64),
                    kind,
                    size,
                    pose: pose(&s.placement),
                    side: body_side(s.body),
                })
            })
            .collect(),
        meshes: if meshed.is_empty() {
            Vec::new()
        } else {
            scene.meshes.iter().map(mesh_data).collect()
        },
        mesh_shapes: meshed
            .iter()
            .filter_map(|s| match s.geometry {
                Geometry::Mesh { index, scale, .. } => Some(MeshShapeData {
                    body: s.body.map_or(-1.0, |b| b as f64),
                    mesh: index,
                    pose: pose(&s.placement),
                    scale: scale.into(),
                    color: s.color.map(|c| {
                        let byte = |v: f64| (v * 255.0).round() as u8;
                        hex((byte(c[0]), byte(c[1]), byte(c[2])))
                    }),
                    opacity: s.color.map_or(1.0, |c| c[3]),
                    side: body_side(s.body),
                }),
                _ => None,
            })
            .collect(),
        missing_meshes: &scene.missing_meshes,
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
    let data = scene_data(scene);
    let solids = if data.mesh_shapes.is_empty() {
        String::new()
    } else {
        format!("<script>{THREE}</script>\n<script>{SOLIDS_SCRIPT}</script>\n")
    };
    let json = serde_json::to_string(&data).map_err(|e| e.to_string())?;
    // Inside a <script> element only "</" can end it early; "<\/" is the same JSON string.
    let json = json.replace("</", "<\\/");
    let slots = TEMPLATE.split_once(DATA_SLOT).and_then(|(head, rest)| {
        let (middle, rest) = rest.split_once(THREE_SLOT)?;
        let (before, tail) = rest.split_once(SCRIPT_SLOT)?;
        Some([head, middle, before, tail])
    });
    let Some([head, middle, before, tail]) = slots else {
        return Err("internal: the page template lacks a slot".into());
    };
    Ok([head, &json, middle, &solids, before, SCRIPT, tail].concat())
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
    fn the_template_takes_the_scene_and_the_scripts_once() {
        for slot in [DATA_SLOT, THREE_SLOT, SCRIPT_SLOT] {
            assert_eq!(TEMPLATE.matches(slot).count(), 1, "{slot}");
        }
        for (name, script) in [
            ("viewer.js", SCRIPT),
            ("viewer_solids.js", SOLIDS_SCRIPT),
            ("three.min.js", THREE),
        ] {
            assert!(
                !script.to_lowercase().contains("</script"),
                "{name} cannot end its element"
            );
            for slot in [DATA_SLOT, THREE_SLOT, SCRIPT_SLOT] {
                assert!(!script.contains(slot), "{name}: {slot}");
            }
        }
        for offline in ["http://", "https://", "//cdn", "import "] {
            for (name, text) in [
                ("viewer.html", TEMPLATE),
                ("viewer.js", SCRIPT),
                ("viewer_solids.js", SOLIDS_SCRIPT),
            ] {
                assert!(!text.contains(offline), "{name}: {offline}");
            }
        }
        // three.js names the XHTML namespace (an identifier, not a request) and loads nothing.
        let three = THREE.replace("http://www.w3.org/1999/xhtml", "");
        for online in ["http://", "https://", "import(", "fetch(", "XMLHttpRequest"] {
            assert!(!three.contains(online), "three.min.js: {online}");
        }
    }

    #[test]
    fn base64_is_the_standard_one() {
        for (bytes, text) in [
            (&b""[..], ""),
            (b"f", "Zg=="),
            (b"fo", "Zm8="),
            (b"foo", "Zm9v"),
            (b"foob", "Zm9vYg=="),
            (b"fooba", "Zm9vYmE="),
            (b"foobar", "Zm9vYmFy"),
            (&[0xff, 0xfe, 0x00, 0x3e, 0x3f], "//4APj8="),
        ] {
            assert_eq!(base64(bytes), text);
        }
    }

    /// The bytes of standard base64 text.
    fn unbase64(text: &str) -> Vec<u8> {
        const DIGITS: &[u8; 64] =
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let values: Vec<u32> = text
            .bytes()
            .filter(|&c| c != b'=')
            .map(|c| DIGITS.iter().position(|&d| d == c).unwrap() as u32)
            .collect();
        values
            .chunks(4)
            .flat_map(|g| {
                let n = g
                    .iter()
                    .enumerate()
                    .fold(0, |n, (k, v)| n | v << (18 - 6 * k));
                (0..g.len() - 1).map(move |k| (n >> (16 - 8 * k)) as u8)
            })
            .collect()
    }

    #[test]
    fn mesh_coordinates_are_quantized_within_their_box() {
        use super::super::meshes::TriMesh;
        let mesh = TriMesh {
            vertices: vec![[-0.1, 0.0, 2.0], [0.3, 0.25, 2.0], [0.05, 0.5, 2.0]],
            triangles: vec![[0, 1, 2]],
        };
        let data = mesh_data(&MeshAsset {
            file: "t.stl".into(),
            triangles_read: 1,
            outline: Vec::new(),
            mesh: mesh.clone(),
        });
        assert!(!data.wide);
        assert_eq!(unbase64(&data.triangles), [0, 0, 1, 0, 2, 0]);
        assert_eq!(data.step[2], 0.0, "a flat axis");
        let q: Vec<u16> = unbase64(&data.vertices)
            .chunks(2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
            .collect();
        assert_eq!(q.len(), 9);
        for (i, v) in mesh.vertices.iter().enumerate() {
            for k in 0..3 {
                let back = data.lo[k] + f64::from(q[3 * i + k]) * data.step[k];
                let err = (back - f64::from(v[k])).abs();
                assert!(err <= 0.5 * data.step[k] + 1e-9, "{i} {k}: {err}");
            }
        }
        assert_eq!((q[0], q[1], q[4], q[7]), (0, 0, 32768, 65535));
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

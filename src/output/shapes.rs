//! The solid shapes of a robot for the pictures: the URDF's `<visual>` primitives (boxes,
//! cylinders, capsules, spheres) and meshes, placed on the model's bodies.
//!
//! A link shows its `<visual>` elements; one with no visual that can be drawn shows its
//! non-sphere `<collision>` elements instead (sphere collisions are contact points, see
//! `model::urdf`), and one with neither is drawn as its stick figure. Mesh files are found and
//! read by [`super::meshes`]; one that is missing or unreadable is left out (and reported in
//! [`Solids::missing`]), so that the link falls back to its other visuals, its collisions or its
//! stick figure. The meshes of a robot share the page's triangle budget
//! ([`super::meshes::MAX_TRIANGLES`]). A link is placed through its model frame; on a fixed
//! base, links welded to the world (no frame) are placed by composing the fixed joints from the
//! root.

use super::meshes::{MAX_TRIANGLES, MeshPaths, TriMesh, decimate, locate, read_mesh, shares};
use crate::model::{BaseKind, MeshFile, Model, PlacedSolid, Primitive, SolidShape, urdf_solids};
use crate::spatial::{Transform, Vec3};
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::PathBuf;

/// The geometry of a shape, in its own frame (cylinders and capsules along z, centred).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Geometry {
    /// A box of these side lengths.
    Box(Vec3),
    /// A cylinder of radius and length.
    Cylinder(f64, f64),
    /// A capsule: the cylinder of radius and length with a hemisphere on each end.
    Capsule(f64, f64),
    /// A sphere of this radius.
    Sphere(f64),
    /// Mesh `index` of [`Solids::meshes`], scaled along its axes by `scale`; it lies within
    /// `radius` of the point `centre` of the shape's frame.
    Mesh {
        index: usize,
        scale: Vec3,
        centre: Vec3,
        radius: f64,
    },
}

impl Geometry {
    /// The radius of a sphere about [`Geometry::centre`] that holds the shape.
    pub(super) fn radius(&self) -> f64 {
        match *self {
            Geometry::Box(s) => 0.5 * s.norm(),
            Geometry::Cylinder(r, l) => (r * r + 0.25 * l * l).sqrt(),
            Geometry::Capsule(r, l) => r + 0.5 * l,
            Geometry::Sphere(r) => r,
            Geometry::Mesh { radius, .. } => radius,
        }
    }

    /// The centre of that sphere in the shape's frame.
    pub(super) fn centre(&self) -> Vec3 {
        match *self {
            Geometry::Mesh { centre, .. } => centre,
            _ => Vec3::zeros(),
        }
    }
}

/// A shape fixed on a body (or on the world: `body: None`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Shape {
    /// Body index.
    pub body: Option<usize>,
    /// The shape's frame in the body frame.
    pub placement: Transform,
    /// What it is.
    pub geometry: Geometry,
    /// The URDF's material colour of a visual (`rgba`, each in [0, 1]).
    pub color: Option<[f64; 4]>,
}

/// A mesh file as the pictures draw it.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct MeshAsset {
    /// The file.
    pub file: PathBuf,
    /// Its triangles in the file's units, decimated to its share of the page's budget.
    pub mesh: TriMesh,
    /// How many triangles the file has.
    pub triangles_read: usize,
    /// A few of its vertices whose convex hull is close to its own (for silhouettes).
    pub outline: Vec<Vec3>,
}

/// The solid shapes of a robot and the meshes they show.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Solids {
    pub shapes: Vec<Shape>,
    pub meshes: Vec<MeshAsset>,
    /// One line for each mesh that is not drawn: the link, the file and why.
    pub missing: Vec<String>,
    /// How many of those were not found (the others could not be read).
    pub not_found: usize,
}

fn geometry(g: &Primitive, collision: bool) -> Option<Geometry> {
    let length = |v: f64| v.is_finite() && v > 0.0;
    match *g {
        Primitive::Box(size) if size.iter().all(|&v| length(v)) => {
            Some(Geometry::Box(Vec3::from(size)))
        }
        Primitive::Cylinder(radius, l) if length(radius) && length(l) => {
            Some(Geometry::Cylinder(radius, l))
        }
        Primitive::Capsule(radius, l) if length(radius) && l >= 0.0 => {
            Some(Geometry::Capsule(radius, l))
        }
        Primitive::Sphere(radius) if !collision && length(radius) => Some(Geometry::Sphere(radius)),
        _ => None,
    }
}

/// A shape's geometry, or its mesh before the meshes are decimated: an index into
/// [`MeshFiles::read`] and a scale.
enum Pending {
    Ready(Geometry),
    Mesh(usize, Vec3),
}

/// A [`Shape`] whose geometry may still be [`Pending`].
struct PendingShape {
    body: Option<usize>,
    placement: Transform,
    color: Option<[f64; 4]>,
    geometry: Pending,
}

/// The mesh files read so far: each file once, by the path it was found at.
#[derive(Default)]
struct MeshFiles {
    read: Vec<(PathBuf, TriMesh)>,
    by_path: HashMap<PathBuf, Result<usize, String>>,
}

impl MeshFiles {
    /// The index of the mesh that `file` names, or why it cannot be drawn (and whether because
    /// it was not found).
    fn load(&mut self, file: &MeshFile, paths: &MeshPaths) -> Result<usize, (String, bool)> {
        if !file.scale.iter().all(|s| s.is_finite() && *s != 0.0) {
            return Err((
                format!(
                    "{}: scale {:?} is not three finite non-zero numbers",
                    file.filename, file.scale
                ),
                false,
            ));
        }
        let path =
            locate(&file.filename, paths).map_err(|e| (format!("{}: {e}", file.filename), true))?;
        let key = path.canonicalize().unwrap_or_else(|_| path.clone());
        let read = &mut self.read;
        self.by_path
            .entry(key)
            .or_insert_with(|| {
                let mesh = read_mesh(&path)?;
                read.push((path.clone(), mesh));
                Ok(read.len() - 1)
            })
            .clone()
            .map_err(|e| {
                (
                    format!("{} ({}): {e}", file.filename, path.display()),
                    false,
                )
            })
    }
}

/// The shapes of the robot described by `urdf` (the text `model` was read from), with its
/// meshes found through `paths`. A URDF that cannot be read, or whose links are not the
/// model's, gives no shapes: the pictures then show the stick figure.
pub(super) fn robot_solids(model: &Model, urdf: &str, paths: &MeshPaths) -> Solids {
    let Some(robot) = urdf_solids(urdf) else {
        return Solids::default();
    };
    let mut welded: HashMap<&str, Transform> = HashMap::new();
    if model.base() == BaseKind::Fixed {
        if let Some(root) = &robot.root {
            welded.insert(root.as_str(), Transform::identity());
            let mut grew = true;
            while grew {
                grew = false;
                for (parent, child, origin) in &robot.fixed_joints {
                    if welded.contains_key(child.as_str()) {
                        continue;
                    }
                    if let Some(p) = welded.get(parent.as_str()) {
                        let placed = p.compose(origin);
                        welded.insert(child.as_str(), placed);
                        grew = true;
                    }
                }
            }
        }
    }
    let mut files = MeshFiles::default();
    let mut missing = Vec::new();
    let mut not_found = 0;
    // Shapes whose meshes (an index into `files.read` and a scale) are sized once decimated.
    let mut placed: Vec<PendingShape> = Vec::new();
    for link in &robot.links {
        let (body, at) = match model.frame(&link.name) {
            Some(f) => (Some(f.body), f.placement),
            None => match welded.get(link.name.as_str()) {
                Some(t) => (None, *t),
                None => continue,
            },
        };
        for (tier, collision) in [(&link.visuals, false), (&link.collisions, true)] {
            let mut drawn = Vec::new();
            for PlacedSolid {
                origin,
                shape,
                color,
            } in tier
            {
                let pending = match shape {
                    SolidShape::Primitive(p) => geometry(p, collision).map(Pending::Ready),
                    SolidShape::Mesh(file) => match files.load(file, paths) {
                        Ok(index) => Some(Pending::Mesh(index, Vec3::from(file.scale))),
                        Err((why, unfound)) => {
                            missing.push(format!("link '{}': {why}", link.name));
                            not_found += usize::from(unfound);
                            None
                        }
                    },
                };
                let color = if collision { None } else { *color };
                drawn.extend(pending.map(|geometry| PendingShape {
                    body,
                    placement: at.compose(origin),
                    color,
                    geometry,
                }));
            }
            if !drawn.is_empty() {
                placed.extend(drawn);
                break;
            }
        }
    }
    let counts: Vec<usize> = files.read.iter().map(|(_, m)| m.triangles.len()).collect();
    let budget = shares(&counts, MAX_TRIANGLES);
    let meshes: Vec<MeshAsset> = files
        .read
        .into_par_iter()
        .zip(budget)
        .map(|((file, mesh), keep)| {
            let small = decimate(&mesh, keep);
            MeshAsset {
                file,
                triangles_read: mesh.triangles.len(),
                outline: small.outline(),
                mesh: small,
            }
        })
        .collect();
    let shapes = placed
        .into_iter()
        .map(|p| Shape {
            body: p.body,
            placement: p.placement,
            color: p.color,
            geometry: match p.geometry {
                Pending::Ready(g) => g,
                Pending::Mesh(index, scale) => {
                    let (lo, hi) = meshes[index].mesh.bounds().unwrap_or(([0.0; 3], [0.0; 3]));
                    let lo = Vec3::from(lo.map(f64::from)).component_mul(&scale);
                    let hi = Vec3::from(hi.map(f64::from)).component_mul(&scale);
                    Geometry::Mesh {
                        index,
                        scale,
                        centre: 0.5 * (lo + hi),
                        radius: 0.5 * (hi - lo).norm(),
                    }
                }
            },
        })
        .collect();
    Solids {
        shapes,
        meshes,
        missing,
        not_found,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{load_urdf, parse_urdf};
    use std::path::Path;

    fn shapes_of(model: &Model, urdf: &str) -> Vec<Shape> {
        let solids = robot_solids(model, urdf, &MeshPaths::default());
        assert!(solids.meshes.is_empty() && solids.missing.is_empty());
        solids.shapes
    }

    fn shipped(name: &str, base: BaseKind) -> (Model, String) {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("robots")
            .join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        (load_urdf(&path, base).unwrap(), text)
    }

    #[test]
    fn humanoid_visuals_land_on_their_bodies() {
        let (model, text) = shipped("humanoid.urdf", BaseKind::Floating);
        let shapes = shapes_of(&model, &text);
        assert_eq!(shapes.len(), text.matches("<visual>").count());
        let pelvis = model.joint_index("base_roll").unwrap();
        let pelvis_box = shapes
            .iter()
            .find(|s| s.geometry == Geometry::Box(Vec3::new(0.2, 0.3, 0.16)))
            .unwrap();
        assert_eq!(pelvis_box.body, Some(pelvis));
        assert!((pelvis_box.placement.translation - Vec3::new(0.0, 0.0, 0.02)).norm() < 1e-12);
        let shin = model.joint_index("l_leg_kny").unwrap();
        assert!(shapes.iter().any(|s| s.body == Some(shin)
            && matches!(s.geometry, Geometry::Cylinder(r, l) if r == 0.055 && l == 0.422)));
    }

    #[test]
    fn world_welded_links_of_a_fixed_base_are_placed() {
        let (model, text) = shipped("arm7.urdf", BaseKind::Fixed);
        let shapes = shapes_of(&model, &text);
        assert_eq!(shapes.len(), text.matches("<visual>").count());
        assert!(
            shapes.iter().any(|s| s.body.is_none()),
            "the arm's base plate"
        );
        assert!(
            shapes
                .iter()
                .all(|s| s.body.is_none_or(|b| b < model.dof()))
        );
    }

    #[test]
    fn collisions_stand_in_for_missing_visuals_and_spheres_are_contacts() {
        let urdf = r#"<robot name="r">
            <link name="a"/>
            <joint name="j" type="revolute"><parent link="a"/><child link="b"/>
              <axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
            <link name="b">
              <inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>
              <collision><origin xyz="0 0 -0.5"/><geometry><cylinder radius="0.1" length="1"/></geometry></collision>
              <collision name="foot"><origin xyz="0 0 -1"/><geometry><sphere radius="0.1"/></geometry></collision>
              <visual><geometry><mesh filename="b.stl"/></geometry></visual>
            </link></robot>"#;
        let model = parse_urdf(urdf, "r", BaseKind::Fixed).unwrap();
        let solids = robot_solids(&model, urdf, &MeshPaths::default());
        assert_eq!(solids.shapes.len(), 1);
        assert_eq!(solids.shapes[0].geometry, Geometry::Cylinder(0.1, 1.0));
        assert_eq!(solids.shapes[0].body, Some(0));
        assert_eq!(solids.missing.len(), 1);
        assert!(
            solids.missing[0].starts_with("link 'b': b.stl: not found"),
            "{:?}",
            solids.missing
        );
        assert!(shapes_of(&model, "not a urdf").is_empty());
    }

    fn fixture() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/meshed_arm")
    }

    #[test]
    fn meshes_are_read_placed_scaled_and_coloured() {
        let urdf = fixture().join("arm.urdf");
        let text = std::fs::read_to_string(&urdf).unwrap();
        let model = load_urdf(&urdf, BaseKind::Fixed).unwrap();
        let paths = MeshPaths {
            urdf_dir: Some(fixture()),
            package_path: Vec::new(),
        };
        let solids = robot_solids(&model, &text, &paths);
        assert!(solids.missing.is_empty(), "{:?}", solids.missing);
        let counts: Vec<usize> = solids.meshes.iter().map(|m| m.triangles_read).collect();
        assert_eq!(counts, [12, 28, 12], "base, upper arm, forearm (6 quads)");
        assert!(
            solids
                .meshes
                .iter()
                .all(|m| m.mesh.triangles.len() == m.triangles_read)
        );
        let bounds: Vec<([f32; 3], [f32; 3])> = solids
            .meshes
            .iter()
            .map(|m| m.mesh.bounds().unwrap())
            .collect();
        assert_eq!(bounds[0], ([-0.1, -0.1, -0.05], [0.1, 0.1, 0.0]));
        let r = 0.035f32;
        let near = |a: [f32; 3], b: [f32; 3]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6);
        assert!(near(bounds[1].0, [-r, -r, 0.0]) && near(bounds[1].1, [r, r, 0.4]));
        assert_eq!(bounds[2], ([-25.0, -20.0, 0.0], [25.0, 20.0, 300.0]));
        assert!(
            solids.meshes[2]
                .file
                .ends_with("vito_arm_meshes/meshes/forearm.obj")
        );
        assert_eq!(solids.shapes.len(), 3);
        let mesh_of = |s: &Shape| match s.geometry {
            Geometry::Mesh { index, scale, .. } => (index, scale),
            other => panic!("not a mesh: {other:?}"),
        };
        let [base, upper, forearm] = [0, 1, 2].map(|i| solids.shapes[i]);
        assert_eq!(base.body, None, "the base is welded to the world");
        assert_eq!(upper.body, model.frame("upper_arm").map(|f| f.body));
        assert_eq!(forearm.body, model.frame("forearm").map(|f| f.body));
        assert_eq!(mesh_of(&upper), (1, Vec3::repeat(1.0)));
        assert_eq!(mesh_of(&forearm), (2, Vec3::repeat(0.001)));
        assert_eq!(base.color, Some([0.35, 0.4, 0.45, 1.0]), "its own colour");
        assert_eq!(
            upper.color,
            Some([1.0, 0.5, 0.0, 1.0]),
            "the robot's material"
        );
        assert_eq!(forearm.color, Some([0.0, 0.6, 0.6, 1.0]));
        // The forearm's visual is turned by 90° about z: its 50 mm side lies along y.
        let corner = forearm
            .placement
            .transform_point(&Vec3::new(0.025, 0.02, 0.0));
        assert!(
            (corner - Vec3::new(-0.02, 0.025, 0.0)).norm() < 1e-12,
            "{corner:?}"
        );
        // The ball about the scaled mesh's centre that holds it, for the camera's bounds.
        assert!((forearm.geometry.centre() - Vec3::new(0.0, 0.0, 0.15)).norm() < 1e-9);
        let half = Vec3::new(0.025, 0.02, 0.15).norm();
        assert!((forearm.geometry.radius() - half).abs() < 1e-6);
    }

    #[test]
    fn a_missing_mesh_falls_back_to_primitives_or_the_stick_figure() {
        let text = std::fs::read_to_string(fixture().join("arm.urdf"))
            .unwrap()
            .replace(
                "<link name=\"forearm\">",
                "<link name=\"forearm\"><collision><origin xyz=\"0 0 0.15\"/>\
                 <geometry><box size=\"0.04 0.04 0.3\"/></geometry></collision>",
            );
        let model = parse_urdf(&text, "arm", BaseKind::Fixed).unwrap();
        let nowhere = std::env::temp_dir().join("vito-no-meshes-here");
        let solids = robot_solids(
            &model,
            &text,
            &MeshPaths {
                urdf_dir: Some(nowhere),
                package_path: Vec::new(),
            },
        );
        assert!(solids.meshes.is_empty());
        assert_eq!(solids.shapes.len(), 1, "the forearm's collision box");
        assert_eq!(
            solids.shapes[0].geometry,
            Geometry::Box(Vec3::new(0.04, 0.04, 0.3))
        );
        assert_eq!((solids.missing.len(), solids.not_found), (3, 3));
        for (line, file) in solids.missing.iter().zip([
            "link 'base': meshes/base.stl: not found",
            "link 'upper_arm': meshes/upper_arm.stl: not found",
            "link 'forearm': package://vito_arm_meshes/meshes/forearm.obj: package 'vito_arm_meshes' not found",
        ]) {
            assert!(line.starts_with(file), "{line}");
        }
    }

    #[test]
    fn an_unreadable_mesh_is_named_with_its_file() {
        let dir = std::env::temp_dir().join(format!("vito-bad-mesh-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("meshes")).unwrap();
        std::fs::write(dir.join("meshes/base.stl"), b"solid nothing\nfacet oops\n").unwrap();
        let text = std::fs::read_to_string(fixture().join("arm.urdf")).unwrap();
        let model = parse_urdf(&text, "arm", BaseKind::Fixed).unwrap();
        let solids = robot_solids(
            &model,
            &text,
            &MeshPaths {
                urdf_dir: Some(dir.clone()),
                package_path: vec![fixture()],
            },
        );
        assert_eq!(
            solids.shapes.len(),
            2,
            "the arm's meshes, from --package-path"
        );
        assert_eq!((solids.missing.len(), solids.not_found), (1, 0));
        let line = &solids.missing[0];
        assert!(
            line.starts_with("link 'base': meshes/base.stl (") && line.contains("base.stl): "),
            "{line}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

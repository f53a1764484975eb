//! The solid shapes of a robot for the pictures: the URDF's `<visual>` primitives (boxes,
//! cylinders, capsules, spheres), placed on the model's bodies.
//!
//! A link with no primitive `<visual>` contributes its non-sphere `<collision>` primitives
//! instead (sphere collisions are contact points, see `model::urdf`). Meshes are not drawn: a
//! body left without a shape is drawn as its stick figure. A link is placed through its model
//! frame; on a fixed base, links welded to the world (no frame) are placed by composing the
//! fixed joints from the root.

use crate::model::{BaseKind, Model, Primitive, urdf_solids};
use crate::spatial::{Transform, Vec3};
use std::collections::HashMap;

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
}

impl Geometry {
    /// The radius of a sphere about the shape's centre that holds it.
    pub(super) fn radius(&self) -> f64 {
        match *self {
            Geometry::Box(s) => 0.5 * s.norm(),
            Geometry::Cylinder(r, l) => (r * r + 0.25 * l * l).sqrt(),
            Geometry::Capsule(r, l) => r + 0.5 * l,
            Geometry::Sphere(r) => r,
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

/// The shapes of the robot described by `urdf` (the text `model` was read from). A URDF that
/// cannot be read, or whose links are not the model's, gives no shapes: the pictures then show
/// the stick figure.
pub(super) fn robot_shapes(model: &Model, urdf: &str) -> Vec<Shape> {
    let Some(robot) = urdf_solids(urdf) else {
        return Vec::new();
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
    let mut shapes = Vec::new();
    for link in &robot.links {
        let (body, at) = match model.frame(&link.name) {
            Some(f) => (Some(f.body), f.placement),
            None => match welded.get(link.name.as_str()) {
                Some(t) => (None, *t),
                None => continue,
            },
        };
        let visuals: Vec<(Transform, Geometry)> = link
            .visuals
            .iter()
            .filter_map(|(origin, g)| Some((*origin, geometry(g, false)?)))
            .collect();
        let solids = if visuals.is_empty() {
            link.collisions
                .iter()
                .filter_map(|(origin, g)| Some((*origin, geometry(g, true)?)))
                .collect()
        } else {
            visuals
        };
        shapes.extend(solids.into_iter().map(|(origin, geometry)| Shape {
            body,
            placement: at.compose(&origin),
            geometry,
        }));
    }
    shapes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{load_urdf, parse_urdf};
    use std::path::Path;

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
        let shapes = robot_shapes(&model, &text);
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
        let shapes = robot_shapes(&model, &text);
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
        let shapes = robot_shapes(&model, urdf);
        assert_eq!(shapes.len(), 1);
        assert_eq!(shapes[0].geometry, Geometry::Cylinder(0.1, 1.0));
        assert_eq!(shapes[0].body, Some(0));
        assert!(robot_shapes(&model, "not a urdf").is_empty());
    }
}

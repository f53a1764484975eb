//! The likely feet of a robot that declares no contact points: the leaf bodies whose lowest
//! point at the reference pose is within [`FOOT_TOLERANCE`] of the robot's lowest point, and a
//! `contact_points:` block for a problem file that makes a contact point of each.
//!
//! The reference pose is every joint at 0 (or, where 0 is outside its limits, at the value a
//! lock would take, [`Model::default_lock_value`]). A body's points are its frame origin, its
//! centre of mass, the origins of the frames merged into it and the URDF primitives of its links
//! (box corners, cylinder rims, the lowest points of spheres and capsule ends); mesh files are
//! not opened, so a link drawn only by meshes counts by its origin, centre of mass and frames.
//! A foot's contact point is the middle of its points within 1 mm of its lowest (the centre of
//! a flat sole, the bottom of a ball). A robot on a fixed base has feet only where two leaves or
//! more qualify (a legged robot loaded without its floating base), so that the tip of a hanging
//! chain is not taken for one.

use super::{BaseKind, Model, Primitive, SolidShape, urdf_solids};
use crate::spatial::{Transform, Vec3, exp_twist};
use std::fmt::Write;

/// How far above the robot's lowest point the lowest point of a leaf body may be for the body
/// to count as a foot (m).
pub const FOOT_TOLERANCE: f64 = 0.03;

/// Points within this of a body's lowest point make its contact point (m).
const SOLE_TOLERANCE: f64 = 1e-3;

/// Points on the rim of a cylinder.
const RIM: usize = 16;

/// A leaf body that probably stands on the ground.
#[derive(Clone, Debug, PartialEq)]
pub struct LikelyFoot {
    /// The link (the body's name, also a frame).
    pub link: String,
    /// A name for its contact point that is no frame or contact point of the robot yet.
    pub name: String,
    /// The contact point in the link's frame.
    pub offset: Vec3,
    /// Its height at the reference pose (m, world z).
    pub height: f64,
}

/// The world pose of every body at the reference pose.
fn reference_poses(model: &Model) -> Vec<Transform> {
    let mut poses: Vec<Transform> = Vec::with_capacity(model.dof());
    for (i, j) in model.joints().iter().enumerate() {
        let parent = j.parent.map_or(Transform::identity(), |p| poses[p]);
        let motion = exp_twist(&j.twist, model.default_lock_value(i));
        poses.push(parent.compose(&j.placement).compose(&motion));
    }
    poses
}

/// What is known of the extent of each body, in its own frame.
struct Extents {
    /// Points of each body.
    points: Vec<Vec<Vec3>>,
    /// Balls (centre and radius: spheres and capsule ends) of each body, whose lowest points
    /// depend on the body's pose.
    balls: Vec<Vec<(Vec3, f64)>>,
}

/// The points and balls of each body (see the module documentation).
fn extents(model: &Model, urdf: &str) -> Extents {
    let mut points: Vec<Vec<Vec3>> = model
        .joints()
        .iter()
        .map(|j| {
            let mut p = vec![Vec3::zeros()];
            if j.mass > 0.0 {
                p.push(j.com);
            }
            p
        })
        .collect();
    let mut balls: Vec<Vec<(Vec3, f64)>> = vec![Vec::new(); model.dof()];
    for f in model.frames() {
        points[f.body].push(f.placement.translation);
    }
    let Some(solids) = urdf_solids(urdf) else {
        return Extents { points, balls };
    };
    let finite = |v: &Vec3| v.iter().all(|c| c.is_finite());
    for link in &solids.links {
        let Some(frame) = model.frame(&link.name) else {
            continue;
        };
        for solid in link.visuals.iter().chain(&link.collisions) {
            let SolidShape::Primitive(p) = solid.shape else {
                continue;
            };
            let at = frame.placement.compose(&solid.origin);
            let rim = |r: f64, z: f64| {
                (0..RIM).map(move |k| {
                    let a = std::f64::consts::TAU * k as f64 / RIM as f64;
                    Vec3::new(r * a.cos(), r * a.sin(), z)
                })
            };
            let (corners, ends): (Vec<Vec3>, Vec<(Vec3, f64)>) = match p {
                Primitive::Box(d) => (
                    (0..8)
                        .map(|k| {
                            let c =
                                |bit: usize, v: f64| if k & bit == 0 { -0.5 * v } else { 0.5 * v };
                            Vec3::new(c(1, d[0]), c(2, d[1]), c(4, d[2]))
                        })
                        .collect(),
                    Vec::new(),
                ),
                Primitive::Cylinder(r, l) => (
                    rim(r, -0.5 * l).chain(rim(r, 0.5 * l)).collect(),
                    Vec::new(),
                ),
                Primitive::Sphere(r) => (Vec::new(), vec![(Vec3::zeros(), r)]),
                Primitive::Capsule(r, l) => (
                    Vec::new(),
                    vec![
                        (Vec3::new(0.0, 0.0, -0.5 * l), r),
                        (Vec3::new(0.0, 0.0, 0.5 * l), r),
                    ],
                ),
            };
            points[frame.body].extend(
                corners
                    .iter()
                    .filter(|v| finite(v))
                    .map(|v| at.transform_point(v)),
            );
            balls[frame.body].extend(
                ends.iter()
                    .filter(|(c, r)| finite(c) && r.is_finite() && *r >= 0.0)
                    .map(|(c, r)| (at.transform_point(c), *r)),
            );
        }
    }
    Extents { points, balls }
}

/// The likely feet of `model` (read from the URDF text `urdf`), lowest first: none when it has
/// contact points already.
pub fn likely_feet(model: &Model, urdf: &str) -> Vec<LikelyFoot> {
    if !model.contact_points().is_empty() || model.dof() == 0 {
        return Vec::new();
    }
    let poses = reference_poses(model);
    let Extents { points, balls } = extents(model, urdf);
    let world: Vec<Vec<Vec3>> = (0..model.dof())
        .map(|i| {
            let g = &poses[i];
            let lowest_of_ball = |(c, r): &(Vec3, f64)| g.transform_point(c) - Vec3::z() * *r;
            points[i]
                .iter()
                .map(|p| g.transform_point(p))
                .chain(balls[i].iter().map(lowest_of_ball))
                .collect()
        })
        .collect();
    let lowest = |pts: &[Vec3]| pts.iter().map(|p| p.z).fold(f64::INFINITY, f64::min);
    let floor = world
        .iter()
        .map(|p| lowest(p))
        .fold(f64::INFINITY, f64::min);
    let mut feet: Vec<LikelyFoot> = (0..model.dof())
        .filter(|&i| model.children(i).is_empty() && !model.joint(i).is_base)
        .filter(|&i| lowest(&world[i]) <= floor + FOOT_TOLERANCE)
        .map(|i| {
            let bottom = lowest(&world[i]);
            let sole: Vec<&Vec3> = world[i]
                .iter()
                .filter(|p| p.z <= bottom + SOLE_TOLERANCE)
                .collect();
            let mut middle = sole.iter().fold(Vec3::zeros(), |s, p| s + *p) / sole.len() as f64;
            middle.z = bottom;
            let link = model.joint(i).body.clone();
            let in_link = model
                .frame(&link)
                .map_or(poses[i], |f| poses[i].compose(&f.placement));
            LikelyFoot {
                name: free_name(model, &link),
                offset: in_link.inverse().transform_point(&middle),
                height: bottom,
                link,
            }
        })
        .collect();
    if model.base() == BaseKind::Fixed && feet.len() < 2 {
        return Vec::new();
    }
    feet.sort_by(|a, b| a.height.total_cmp(&b.height));
    feet
}

/// `<link>_contact`, or with a number where that is taken.
fn free_name(model: &Model, link: &str) -> String {
    let taken =
        |n: &str| model.frame(n).is_some() || model.contact_points().iter().any(|c| c.name == n);
    std::iter::once(format!("{link}_contact"))
        .chain((2..).map(|k| format!("{link}_contact{k}")))
        .find(|n| !taken(n))
        .unwrap_or_default()
}

/// A number with at most 4 decimals and no trailing zeros (`0.1120` → `0.112`, `-0.0` → `0`).
fn short(x: f64) -> String {
    let s = format!("{:.4}", x);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.into() }
}

/// The `contact_points:` block of a problem or simulation file that declares a contact point
/// (radius 0) at each foot.
pub fn contact_points_yaml(feet: &[LikelyFoot]) -> String {
    let mut s = String::from("contact_points:\n");
    for f in feet {
        let _ = writeln!(
            s,
            "  - {{name: {}, frame: {}, offset: [{}, {}, {}], radius: 0}}",
            f.name,
            f.link,
            short(f.offset.x),
            short(f.offset.y),
            short(f.offset.z)
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{PendulumSpec, load_urdf, parse_urdf, pendulum_urdf};
    use std::path::Path;

    /// The shipped quadruped without the sphere collisions that declare its feet.
    fn quadruped_without_feet() -> String {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("robots/quadruped.urdf");
        let mut text = std::fs::read_to_string(path).unwrap();
        while let Some(start) = text.find("<collision name=") {
            let end = start + text[start..].find("</collision>").unwrap() + "</collision>".len();
            text.replace_range(start..end, "");
        }
        text
    }

    #[test]
    fn the_quadruped_stands_on_its_lower_legs() {
        let text = quadruped_without_feet();
        let model = parse_urdf(&text, "quadruped", BaseKind::Floating).unwrap();
        assert!(model.contact_points().is_empty());
        let feet = likely_feet(&model, &text);
        let mut links: Vec<&str> = feet.iter().map(|f| f.link.as_str()).collect();
        links.sort_unstable();
        assert_eq!(
            links,
            [
                "fl_lower_leg",
                "fr_lower_leg",
                "hl_lower_leg",
                "hr_lower_leg"
            ]
        );
        for f in &feet {
            // The bottom of the foot ball: radius 0.01 at z = -0.102 of the lower leg.
            assert!(
                (f.offset - Vec3::new(0.0, 0.0, -0.112)).norm() < 1e-9,
                "{f:?}"
            );
            assert_eq!(f.name, format!("{}_contact", f.link));
        }
        let yaml = contact_points_yaml(&feet);
        assert!(
            yaml.starts_with("contact_points:\n  - {name: ")
                && yaml.contains("frame: fl_lower_leg, offset: [0, 0, -0.112], radius: 0}"),
            "{yaml}"
        );
        // With its contact points, no hint.
        let shipped = load_urdf(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("robots/quadruped.urdf"),
            BaseKind::Floating,
        )
        .unwrap();
        assert!(likely_feet(&shipped, "").is_empty());
        // On a fixed base the legs still qualify; a pendulum's tip does not.
        let fixed = parse_urdf(&text, "quadruped", BaseKind::Fixed).unwrap();
        assert_eq!(likely_feet(&fixed, &text).len(), 4);
        let urdf = pendulum_urdf(&PendulumSpec::default()).unwrap();
        let pendulum = parse_urdf(&urdf, "p", BaseKind::Fixed).unwrap();
        assert!(likely_feet(&pendulum, &urdf).is_empty());
    }

    #[test]
    fn a_flat_sole_gives_its_centre_and_an_arm_pointing_up_no_feet() {
        let legs = r#"<robot name="legs">
            <link name="hip"><inertial><mass value="5"/>
              <inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
            <joint name="l" type="revolute"><parent link="hip"/><child link="l_foot"/>
              <origin xyz="0 0.1 -0.5"/><axis xyz="0 1 0"/>
              <limit lower="0.05" upper="0.15" effort="1" velocity="1"/></joint>
            <link name="l_foot"><inertial><mass value="1"/>
              <inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>
              <visual><origin xyz="0.05 0 -0.03"/><geometry><box size="0.2 0.1 0.02"/></geometry></visual></link>
            <joint name="r" type="revolute"><parent link="hip"/><child link="r_foot"/>
              <origin xyz="0 -0.1 -0.5"/><axis xyz="0 1 0"/>
              <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
            <link name="r_foot"><inertial><mass value="1"/>
              <inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>
              <visual><origin xyz="0.05 0 -0.03"/><geometry><box size="0.2 0.1 0.02"/></geometry></visual></link>
            <link name="r_foot_contact"/>
            <joint name="mark" type="fixed"><parent link="r_foot"/><child link="r_foot_contact"/></joint>
          </robot>"#;
        let model = parse_urdf(legs, "legs", BaseKind::Floating).unwrap();
        let feet = likely_feet(&model, legs);
        assert_eq!(feet.len(), 2, "{feet:?}");
        // The right foot at q = 0: the sole's centre, flat.
        let right = feet.iter().find(|f| f.link == "r_foot").unwrap();
        assert!(
            (right.offset - Vec3::new(0.05, 0.0, -0.04)).norm() < 1e-9,
            "{right:?}"
        );
        assert_eq!(right.name, "r_foot_contact2", "r_foot_contact is a frame");
        // The left one turned by 0.1 rad (the middle of its range, which leaves out 0): its sole's lowest edge.
        let left = feet.iter().find(|f| f.link == "l_foot").unwrap();
        let (s, c) = 0.1f64.sin_cos();
        let edge_z = -0.5 - 0.15 * s - 0.04 * c;
        assert!((left.height - edge_z).abs() < 1e-9, "{left:?}");
        assert!(
            (left.offset - Vec3::new(0.15, 0.0, -0.04)).norm() < 1e-9,
            "{left:?}"
        );
        assert!(feet[0].height <= feet[1].height);

        let arm = r#"<robot name="arm">
            <link name="base"><visual><geometry><box size="0.3 0.3 0.1"/></geometry></visual></link>
            <joint name="j" type="revolute"><parent link="base"/><child link="tool"/>
              <origin xyz="0 0 0.05"/><axis xyz="0 1 0"/>
              <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
            <link name="tool"><inertial><origin xyz="0 0 0.3"/><mass value="1"/>
              <inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
          </robot>"#;
        let model = parse_urdf(arm, "arm", BaseKind::Floating).unwrap();
        assert!(likely_feet(&model, arm).is_empty(), "the base is lowest");
    }
}

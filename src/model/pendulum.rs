//! The N-link planar pendulum benchmark robot, written as URDF text.

use std::fmt::Write;

/// Dimensions of an N-link pendulum of identical uniform thin rods.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PendulumSpec {
    /// Number of links (≥ 1).
    pub links: usize,
    /// Mass of each rod (kg).
    pub mass: f64,
    /// Length of each rod (m).
    pub length: f64,
}

impl Default for PendulumSpec {
    fn default() -> Self {
        Self {
            links: 1,
            mass: 1.0,
            length: 0.5,
        }
    }
}

/// URDF of an N-link planar pendulum: continuous joints about the y axis, each rod hanging
/// along −z from its joint at `q = 0`, mass centre at mid-rod, thin-rod inertia `m L²/12` about
/// x and y and none about z. A fixed root link `base` is the pivot; a massless link `tip` on a
/// fixed joint marks the free end.
///
/// # Errors
/// A spec with no links or a non-positive mass or length.
pub fn pendulum_urdf(spec: &PendulumSpec) -> Result<String, String> {
    let PendulumSpec {
        links,
        mass,
        length,
    } = *spec;
    if links == 0 {
        return Err("a pendulum needs at least one link".into());
    }
    if !(mass > 0.0 && mass.is_finite()) {
        return Err(format!("link mass must be positive, got {mass}"));
    }
    if !(length > 0.0 && length.is_finite()) {
        return Err(format!("link length must be positive, got {length}"));
    }
    let inertia = mass * length * length / 12.0;
    let mut s = String::new();
    // Writing to a String cannot fail.
    let _ = writeln!(s, "<?xml version=\"1.0\"?>");
    let _ = writeln!(
        s,
        "<!-- {links}-link planar pendulum written by the command `vito robot pendulum` with {links} links:\n     \
         uniform thin rods of {mass} kg and {length} m, continuous joints about y, hanging along -z at q = 0. -->"
    );
    let _ = writeln!(s, "<robot name=\"pendulum{links}\">");
    let _ = writeln!(s, "  <link name=\"base\"/>");
    for k in 1..=links {
        let parent = if k == 1 {
            "base".to_string()
        } else {
            format!("link{}", k - 1)
        };
        let z = if k == 1 { 0.0 } else { -length };
        let _ = writeln!(
            s,
            "  <joint name=\"joint{k}\" type=\"continuous\">\n    \
             <parent link=\"{parent}\"/>\n    <child link=\"link{k}\"/>\n    \
             <origin xyz=\"0 0 {z}\" rpy=\"0 0 0\"/>\n    <axis xyz=\"0 1 0\"/>\n  </joint>"
        );
        let _ = writeln!(
            s,
            "  <link name=\"link{k}\">\n    <inertial>\n      \
             <origin xyz=\"0 0 {}\" rpy=\"0 0 0\"/>\n      <mass value=\"{mass}\"/>\n      \
             <inertia ixx=\"{inertia}\" ixy=\"0\" ixz=\"0\" iyy=\"{inertia}\" iyz=\"0\" izz=\"0\"/>\n    \
             </inertial>\n  </link>",
            -length / 2.0
        );
    }
    let _ = writeln!(
        s,
        "  <joint name=\"tip_joint\" type=\"fixed\">\n    <parent link=\"link{links}\"/>\n    \
         <child link=\"tip\"/>\n    <origin xyz=\"0 0 {}\" rpy=\"0 0 0\"/>\n  </joint>\n  \
         <link name=\"tip\"/>",
        -length
    );
    let _ = writeln!(s, "</robot>");
    Ok(s)
}

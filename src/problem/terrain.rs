//! The `terrain:` and `contacts:` keys shared by motion problems and simulations:
//!
//! ```yaml
//! terrain:
//!   friction: 0.8                 # Coulomb μ ≥ 0 (required)
//!   ground: 0.0                   # height of the flat ground (default 0)
//!   edge_radius: 0.01             # rounding of box and gap edges, m (default 0.01)
//!   creep: 0.0                    # sticking creep, m/s per weight share of friction (default 0)
//!   reach: 0.002                  # farthest from the ground an optimized contact force acts, m
//!   penetration: 0.0009           # deepest an optimized motion may dip between two points,
//!                                 #   m (default: not bounded)
//!   dissipative_knots: true       # the ground does no work at the VI's knots, with the knot
//!                                 #   velocity it reports (default false)
//!   boxes: [{x: [0.3, 0.5], y: [-1, 1], top: 0.16}]   # y optional: across the whole width
//!   gaps:  [{x: [0.15, 0.23], depth: 0.1}]             # y optional likewise
//! contacts: [l_heel, l_toe]       # which contact points touch it (default: all of them)
//! ```

use super::ProblemError;
use crate::contact::{
    ContactModel, ContactSite, DEFAULT_EDGE_RADIUS, DEFAULT_REACH, Gap, Terrain, TerrainBox,
};
use crate::model::Model;
use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TerrainFile {
    friction: f64,
    #[serde(default)]
    ground: f64,
    edge_radius: Option<f64>,
    #[serde(default)]
    creep: f64,
    reach: Option<f64>,
    penetration: Option<f64>,
    #[serde(default)]
    dissipative_knots: bool,
    #[serde(default)]
    boxes: Vec<BoxFile>,
    #[serde(default)]
    gaps: Vec<GapFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BoxFile {
    x: [f64; 2],
    y: Option<[f64; 2]>,
    top: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GapFile {
    x: [f64; 2],
    y: Option<[f64; 2]>,
    depth: f64,
}

/// Validates `terrain:` and `contacts:` of the file `path` against `model` into a contact
/// model (`None` when the file has no terrain).
///
/// # Errors
/// A [`ProblemError::Invalid`] naming the field: a negative or non-finite number, an extent
/// whose lower end is not below its upper, an edge radius too large for a feature, a robot
/// without contact points, an unknown contact point, or `contacts:` without `terrain:`.
pub(crate) fn contact_model(
    path: &str,
    model: &Model,
    terrain: Option<&TerrainFile>,
    contacts: Option<&[String]>,
) -> Result<Option<ContactModel>, ProblemError> {
    let invalid = |field: &str, message: String| ProblemError::Invalid {
        path: path.to_string(),
        field: field.to_string(),
        message,
    };
    let Some(t) = terrain else {
        if contacts.is_some() {
            return Err(invalid(
                "contacts",
                "names contact points but the file has no terrain".into(),
            ));
        }
        return Ok(None);
    };
    let finite = |field: &str, v: f64| {
        if v.is_finite() {
            Ok(v)
        } else {
            Err(invalid(field, format!("must be a finite number, got {v}")))
        }
    };
    let friction = finite("terrain.friction", t.friction)?;
    if friction < 0.0 {
        return Err(invalid(
            "terrain.friction",
            format!("a friction coefficient must be ≥ 0, got {friction}"),
        ));
    }
    let ground = finite("terrain.ground", t.ground)?;
    let edge_radius = finite(
        "terrain.edge_radius",
        t.edge_radius.unwrap_or(DEFAULT_EDGE_RADIUS),
    )?;
    if edge_radius < 0.0 {
        return Err(invalid(
            "terrain.edge_radius",
            format!("must be ≥ 0, got {edge_radius}"),
        ));
    }
    let creep = finite("terrain.creep", t.creep)?;
    if creep < 0.0 {
        return Err(invalid(
            "terrain.creep",
            format!("must be ≥ 0, got {creep}"),
        ));
    }
    let reach = finite("terrain.reach", t.reach.unwrap_or(DEFAULT_REACH))?;
    if reach < 0.0 {
        return Err(invalid(
            "terrain.reach",
            format!("must be ≥ 0, got {reach}"),
        ));
    }
    let penetration = t
        .penetration
        .map(|e| {
            let e = finite("terrain.penetration", e)?;
            if e < 0.0 {
                return Err(invalid(
                    "terrain.penetration",
                    format!("must be ≥ 0, got {e}"),
                ));
            }
            Ok(e)
        })
        .transpose()?;
    let extent = |field: String, e: [f64; 2]| -> Result<[f64; 2], ProblemError> {
        finite(&format!("{field}[0]"), e[0])?;
        finite(&format!("{field}[1]"), e[1])?;
        if e[0] >= e[1] {
            return Err(invalid(
                &field,
                format!(
                    "the lower end {} must be below the upper end {}",
                    e[0], e[1]
                ),
            ));
        }
        if e[1] - e[0] <= 2.0 * edge_radius {
            return Err(invalid(
                &field,
                format!(
                    "is {} wide, not more than twice the edge radius {edge_radius}",
                    e[1] - e[0]
                ),
            ));
        }
        Ok(e)
    };
    let mut boxes = Vec::new();
    for (k, b) in t.boxes.iter().enumerate() {
        let field = format!("terrain.boxes[{k}]");
        let top = finite(&format!("{field}.top"), b.top)?;
        if top <= ground + 2.0 * edge_radius {
            return Err(invalid(
                &format!("{field}.top"),
                format!(
                    "{top} must be above the ground ({ground}) by more than twice the edge radius"
                ),
            ));
        }
        boxes.push(TerrainBox {
            x: extent(format!("{field}.x"), b.x)?,
            y: b.y.map(|y| extent(format!("{field}.y"), y)).transpose()?,
            top,
        });
    }
    let mut gaps = Vec::new();
    for (k, g) in t.gaps.iter().enumerate() {
        let field = format!("terrain.gaps[{k}]");
        let depth = finite(&format!("{field}.depth"), g.depth)?;
        if depth <= 2.0 * edge_radius {
            return Err(invalid(
                &format!("{field}.depth"),
                format!("{depth} must be more than twice the edge radius {edge_radius}"),
            ));
        }
        gaps.push(Gap {
            x: extent(format!("{field}.x"), g.x)?,
            y: g.y.map(|y| extent(format!("{field}.y"), y)).transpose()?,
            depth,
        });
    }
    let available = model.contact_points();
    if available.is_empty() {
        return Err(invalid(
            "terrain",
            format!(
                "robot '{}' has no contact points (declare <collision> spheres in the URDF)",
                model.name()
            ),
        ));
    }
    let chosen: Vec<&crate::model::ContactPoint> = match contacts {
        None => available.iter().collect(),
        Some(names) => {
            if names.is_empty() {
                return Err(invalid(
                    "contacts",
                    "needs at least one contact point".into(),
                ));
            }
            let mut out = Vec::new();
            for (k, name) in names.iter().enumerate() {
                let c = available.iter().find(|c| &c.name == name).ok_or_else(|| {
                    invalid(
                        &format!("contacts[{k}]"),
                        format!(
                            "'{name}' is not a contact point of the robot (known: {})",
                            available
                                .iter()
                                .map(|c| c.name.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    )
                })?;
                if out
                    .iter()
                    .any(|o: &&crate::model::ContactPoint| o.name == *name)
                {
                    return Err(invalid(
                        &format!("contacts[{k}]"),
                        format!("'{name}' is listed twice"),
                    ));
                }
                out.push(c);
            }
            out
        }
    };
    let sites = chosen
        .into_iter()
        .map(|c| ContactSite {
            name: c.name.clone(),
            body: c.body,
            offset: c.offset,
            radius: c.radius,
        })
        .collect();
    let terrain = Terrain {
        friction,
        ground,
        edge_radius,
        boxes,
        gaps,
    };
    let mut contact = ContactModel::new(model, terrain, sites);
    contact.creep = creep;
    contact.reach = reach;
    contact.penetration = penetration;
    contact.dissipative_knots = t.dissipative_knots;
    Ok(Some(contact))
}

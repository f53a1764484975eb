//! Shared helpers for the tests that read committed results (`results/<name>/`): the problem
//! behind a result, its CSV columns by name, and the checks every contact solution must pass
//! on its written points.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use vito::dynamics::{Workspace, forward_kinematics};
use vito::problem::{ProblemOverrides, TrajectoryProblem, load_problem};
use vito::sqp::Status;
use vito::transcription::{initial_trajectory, solve};

/// The repository's root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The bundled problem `problems/<name>.yaml`, quiet.
pub fn load(name: &str) -> TrajectoryProblem {
    let mut prob = load_problem(
        &root().join(format!("problems/{name}.yaml")),
        &ProblemOverrides::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    prob.solver.print_level = 0;
    prob.solver.progress_bar = false;
    prob
}

/// The columns of a CSV file by name.
pub fn columns(path: &Path) -> HashMap<String, Vec<f64>> {
    let mut reader = csv::Reader::from_path(path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let names: Vec<String> = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_string)
        .collect();
    let mut cols: HashMap<String, Vec<f64>> = names.iter().map(|n| (n.clone(), vec![])).collect();
    for record in reader.records() {
        let record = record.unwrap();
        for (name, value) in names.iter().zip(record.iter()) {
            cols.get_mut(name).unwrap().push(
                value
                    .parse()
                    .unwrap_or_else(|e| panic!("{name}: {value}: {e}")),
            );
        }
    }
    cols
}

/// The committed `file` of the result `name`.
pub fn result(name: &str, file: &str) -> HashMap<String, Vec<f64>> {
    columns(&root().join(format!("results/{name}/{file}")))
}

/// The committed `report.json` of the result `name`.
pub fn report(name: &str) -> serde_json::Value {
    let path = root().join(format!("results/{name}/report.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path:?}: {e}"))
}

/// The configuration of row `i` of a result's columns, in the model's joint order.
pub fn configuration(
    prob: &TrajectoryProblem,
    k: &HashMap<String, Vec<f64>>,
    i: usize,
) -> Vec<f64> {
    prob.model
        .joint_names()
        .iter()
        .map(|j| k[&format!("q_{j}")][i])
        .collect()
}

/// The contact conditions at the points `k` of a solution of `prob`, recomputed from the
/// written forces and gaps: products within 10⁻⁶ (forces in units of the problem's force
/// scale), no point deeper than 1 mm, no pulling, the normal force the part of the force along
/// the terrain's normal and the rest inside the friction cone. The normal is the terrain's at
/// each contact point (its distance gradient where the configuration of `k` puts the point: z
/// on the ground, tilted near a box or a gap's edge, where a point in the air still carries
/// the smoothing's force at a distance).
pub fn meets_the_contact_conditions(prob: &TrajectoryProblem, k: &HashMap<String, Vec<f64>>) {
    let contact = prob.contact.as_ref().expect("the problem has terrain");
    let (scale, mu) = (contact.force_scale, contact.terrain.friction);
    let mut ws = Workspace::new(&prob.model);
    for i in 0..k["t"].len() {
        forward_kinematics(&prob.model, &mut ws, &configuration(prob, k, i));
        for site in &contact.sites {
            let p = &site.name;
            let (fnormal, gap) = (k[&format!("fn_{p}")][i], k[&format!("gap_{p}")][i]);
            let f = vito::spatial::Vec3::new(
                k[&format!("f_{p}_x")][i],
                k[&format!("f_{p}_y")][i],
                k[&format!("f_{p}_z")][i],
            );
            let t = k["t"][i];
            let product = fnormal / scale * gap.max(0.0);
            assert!(product <= 1e-6, "{p} at t = {t}: product {product:e}");
            assert!(gap >= -1e-3, "{p} at t = {t}: gap {gap}");
            assert!(fnormal >= -1e-6 * scale, "{p}: pulling {fnormal}");
            let at = ws.body_pose(site.body).transform_point(&site.offset);
            let normal = contact.terrain.distance(&at).gradient.normalize();
            let along = f.dot(&normal);
            assert!(
                (along - fnormal).abs() <= 1e-6 * scale,
                "{p} at t = {t}: {along} N along the normal, fn = {fnormal}"
            );
            let across = (f - along * normal).norm();
            assert!(
                across <= mu * fnormal + 1e-6 * scale,
                "{p} at t = {t}: friction {across} outside μ·fn = {}",
                mu * fnormal
            );
        }
    }
}

/// Each foot (named, with its contact points) leaves the ground (every one of its points
/// more than `lifted` m above the terrain) and later lands again (a normal force above 1 N on
/// one of its points), so the motion is made of steps, not a shuffle.
pub fn each_foot_lifts_and_lands(
    k: &HashMap<String, Vec<f64>>,
    feet: &[(&str, &[&str])],
    lifted: f64,
) {
    let touching = |p: &str, i: usize| k[&format!("fn_{p}")][i] > 1.0;
    let n = k["t"].len();
    for (foot, points) in feet {
        let lift = (0..n).find(|&i| points.iter().all(|p| k[&format!("gap_{p}")][i] > lifted));
        let Some(lift) = lift else {
            panic!("the {foot} foot never clears {lifted} m");
        };
        assert!(
            (lift..n).any(|i| points.iter().any(|p| touching(p, i))),
            "the {foot} foot lifts at t = {} and never lands",
            k["t"][lift]
        );
    }
}

/// In the starting point of `prob` (its straight-line guess, on 101 samples of the horizon)
/// every foot keeps a point within `lifted` m of the ground: the gait of a solution is not
/// the guess's.
pub fn the_initial_guess_never_lifts_a_foot(
    prob: &TrajectoryProblem,
    feet: &[(&str, &[&str])],
    lifted: f64,
) {
    let contact = prob.contact.as_ref().expect("the problem has terrain");
    let times: Vec<f64> = (0..=100)
        .map(|i| prob.duration * f64::from(i) / 100.0)
        .collect();
    let (q, _) = initial_trajectory(prob, &times).unwrap();
    let mut ws = Workspace::new(&prob.model);
    let site = |name: &str| {
        contact
            .sites
            .iter()
            .find(|s| s.name == name)
            .unwrap_or_else(|| panic!("no contact point {name}"))
    };
    for qt in &q {
        forward_kinematics(&prob.model, &mut ws, qt);
        for (foot, points) in feet {
            let heights: Vec<f64> = points
                .iter()
                .map(|p| {
                    let s = site(p);
                    ws.body_pose(s.body).transform_point(&s.offset).z - s.radius
                })
                .collect();
            assert!(
                heights.iter().any(|&h| h <= lifted),
                "the guess lifts the {foot} foot: {heights:?}"
            );
        }
    }
}

/// Solves `prob` from its own starting point: `Converged`, products within 10⁻⁶, no point
/// deeper than 1 mm.
pub fn converges(prob: &TrajectoryProblem) {
    let outcome = solve(prob, &mut std::io::sink()).unwrap();
    assert_eq!(
        outcome.result.status,
        Status::Converged,
        "{}",
        outcome.result.message
    );
    let c = outcome.contact.expect("contact residuals");
    assert!(c.largest_complementarity_product <= 1e-6, "{c:?}");
    assert!(c.deepest_penetration <= 1e-3, "{c:?}");
}

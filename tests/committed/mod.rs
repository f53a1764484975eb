//! Shared helpers for the tests that read committed results (`results/<name>/`): the problem
//! behind a result, its CSV columns by name, and the checks every contact solution must pass
//! on its written points.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use vito::dynamics::{Workspace, forward_kinematics};
use vito::nlp::Status;
use vito::problem::{ProblemOverrides, TrajectoryProblem, load_problem};
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
/// written forces and gaps: products of each normal force and the next point's gap within
/// 10⁻⁶ (forces in units of the problem's force scale), no point deeper than 1 mm, no pulling, the normal force the part of the force along
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
            // A force answers for the next point's gap, the last point's for its own.
            let paired = k[&format!("gap_{p}")][(i + 1).min(k["t"].len() - 1)];
            let product = fnormal / scale * paired.max(0.0);
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

/// Today's code reproduces the committed result `name`: the problem solved from its own
/// starting point ends `Converged` with products within 10⁻⁶ and no point deeper than 1 mm,
/// at the committed `report.json`'s objective to 10⁻⁸ (relative), so that the checks of the
/// committed files are checks of what the code computes now. The motion between the points
/// dips no deeper than 1 mm either (`contact_check.py`'s tolerance), and the solve measures
/// that dip as the committed `trajectory.csv`'s gap columns show it (the columns the checker
/// compares with its own gaps).
pub fn reproduces(name: &str) {
    let outcome = solve(&load(name), &mut std::io::sink()).unwrap();
    assert_eq!(
        outcome.result.status,
        Status::Converged,
        "{name}: {}",
        outcome.result.message
    );
    let c = outcome.contact.expect("contact residuals");
    assert!(c.largest_complementarity_product <= 1e-6, "{name}: {c:?}");
    assert!(c.deepest_penetration <= 1e-3, "{name}: {c:?}");
    assert!(
        c.deepest_penetration_between_points <= 1e-3,
        "{name}: {c:?}"
    );
    let written = result(name, "trajectory.csv")
        .iter()
        .filter(|(column, _)| column.starts_with("gap_"))
        .flat_map(|(_, gaps)| gaps.iter().map(|g| -g))
        .fold(0.0, f64::max);
    assert!(
        (c.deepest_penetration_between_points - written).abs() <= 1e-6,
        "{name}: {} m measured, {written} m in trajectory.csv",
        c.deepest_penetration_between_points
    );
    let committed = report(name);
    assert_eq!(committed["status"], "Converged", "{name}");
    let objective = committed["objective"].as_f64().unwrap();
    let today = outcome.result.objective;
    assert!(
        (today - objective).abs() <= 1e-8 * objective.abs().max(1.0),
        "{name}: objective {today} today, {objective} committed (results/{name}/ is stale: \
         solve it again)"
    );
}

/// The committed result `name` is physical as a passive rigid ground allows: its energy
/// account (`report.json`) has the ground's positive work within the solver's tolerance and
/// the normal forces' net work `≤ 0`, and no contact point toggles at the grid's frequency:
/// between two swings every stance (gap at most [`STANCE_GAP`]) spans at least 3 consecutive
/// points.
pub fn is_physical(name: &str, prob: &TrajectoryProblem, k: &HashMap<String, Vec<f64>>) {
    let energy = &report(name)["energy"];
    let work = |key: &str| {
        energy[key]
            .as_f64()
            .unwrap_or_else(|| panic!("{name}: report.json has no energy.{key}"))
    };
    let allowed = prob.solver.ground_work_fraction * work("actuator_positive_work")
        + prob.solver.ground_work_allowance;
    assert!(
        work("ground_positive_work") <= allowed,
        "{name}: the ground does {} J of positive work (allowed {allowed})",
        work("ground_positive_work")
    );
    assert!(work("ground_normal_work") <= 0.0, "{name}: {energy}");
    let contact = prob.contact.as_ref().expect("the problem has terrain");
    for site in &contact.sites {
        let gaps = &k[&format!("gap_{}", site.name)];
        let mut runs = vec![];
        let mut i = 0;
        while i < gaps.len() {
            let on = gaps[i] <= STANCE_GAP;
            let start = i;
            while i < gaps.len() && (gaps[i] <= STANCE_GAP) == on {
                i += 1;
            }
            runs.push((on, start, i - start));
        }
        for &(on, start, len) in &runs {
            let between_swings = start > 0 && start + len < gaps.len();
            assert!(
                !on || !between_swings || len >= 3,
                "{name}: {} stands for {len} point(s) from t = {} between two swings",
                site.name,
                k["t"][start]
            );
        }
    }
}

/// A contact point this close to the terrain (m) stands on it, for [`is_physical`]'s stance
/// runs: half the checker's penetration tolerance, far below a swing's clearance.
pub const STANCE_GAP: f64 = 5e-4;

/// The committed solution `k` of `prob` starts in a state of moving at `speed` (m/s): its
/// kinetic energy at `t = 0` within 20 % of a rigid body of the robot's mass translating at
/// that speed, and every point `initial.at_rest` names on the ground and still.
pub fn starts_in_a_state_of_moving(
    prob: &TrajectoryProblem,
    k: &HashMap<String, Vec<f64>>,
    speed: f64,
) {
    let model = &prob.model;
    let mut ws = Workspace::new(model);
    let q = configuration(prob, k, 0);
    let v: Vec<f64> = model
        .joint_names()
        .iter()
        .map(|j| k[&format!("v_{j}")][0])
        .collect();
    let kinetic = vito::dynamics::kinetic_energy(model, &mut ws, &q, &v);
    let rigid = 0.5 * model.total_mass() * speed * speed;
    assert!(
        (kinetic - rigid).abs() <= 0.2 * rigid.max(1e-3),
        "{}: kinetic energy {kinetic} J at t = 0, a rigid body at {speed} m/s has {rigid} J",
        prob.name
    );
    let contact = prob.contact.as_ref().expect("the problem has terrain");
    forward_kinematics(model, &mut ws, &q);
    let mut jacobian = nalgebra::DMatrix::zeros(3, model.dof());
    for &l in &prob.at_rest[0] {
        let site = &contact.sites[l];
        vito::dynamics::point_jacobian(model, &ws, site.body, &site.offset, &mut jacobian);
        let velocity = &jacobian * nalgebra::DVector::from_column_slice(&v);
        assert!(
            velocity.norm() <= 1e-6 && k[&format!("gap_{}", site.name)][0].abs() <= 1e-6,
            "{}: {} at t = 0 moves at {} m/s, gap {}",
            prob.name,
            site.name,
            velocity.norm(),
            k[&format!("gap_{}", site.name)][0]
        );
    }
}

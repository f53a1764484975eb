//! The biped walk (`problems/biped_walk.yaml`, issue 14), checked on its committed result
//! `results/biped_walk/knots.csv` (the transcription's own points) by reading the file alone:
//! the start speed, the contact conditions recomputed from the written forces and gaps, and a
//! gait in which each foot lifts and lands. The solve itself is `#[ignore]`d (minutes in a
//! debug build); README names the command.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use vito::dynamics::{Workspace, forward_kinematics};
use vito::problem::{ProblemOverrides, TrajectoryProblem, load_problem};
use vito::sqp::Status;
use vito::transcription::{initial_trajectory, solve};

const FEET: [(&str, [&str; 2]); 2] = [
    ("left", ["l_heel", "l_toe"]),
    ("right", ["r_heel", "r_toe"]),
];

/// The height both points of a foot must clear for the foot to count as lifted (m).
const LIFTED: f64 = 0.005;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn problem() -> TrajectoryProblem {
    let mut prob = load_problem(
        &root().join("problems/biped_walk.yaml"),
        &ProblemOverrides::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    prob.solver.print_level = 0;
    prob.solver.progress_bar = false;
    prob
}

/// The columns of a CSV file by name.
fn columns(path: &Path) -> HashMap<String, Vec<f64>> {
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

fn committed() -> HashMap<String, Vec<f64>> {
    columns(&root().join("results/biped_walk/knots.csv"))
}

#[test]
fn the_committed_walk_starts_at_its_walking_speed() {
    let k = committed();
    assert_eq!(k["t"][0], 0.0);
    assert!(
        (k["v_base_x"][0] - 0.26).abs() < 1e-9,
        "{}",
        k["v_base_x"][0]
    );
    let x = &k["q_base_x"];
    assert!(
        x[x.len() - 1] - x[0] > 0.39,
        "walked {} m",
        x[x.len() - 1] - x[0]
    );
}

/// Complementarity in the solver's units (the normal force in units of the force scale, the
/// gap in metres) within 10⁻⁶ at every point, no point deeper than 1 mm, and every contact
/// force inside the friction cone: recomputed from the written columns, not read from the
/// report.
#[test]
fn the_committed_walk_meets_the_contact_conditions() {
    let prob = problem();
    let contact = prob.contact.as_ref().expect("the walk has terrain");
    let (scale, mu) = (contact.force_scale, contact.terrain.friction);
    let k = committed();
    for (_, points) in FEET {
        for p in points {
            let (fnormal, gap) = (&k[&format!("fn_{p}")], &k[&format!("gap_{p}")]);
            let (fx, fz) = (&k[&format!("f_{p}_x")], &k[&format!("f_{p}_z")]);
            for i in 0..gap.len() {
                let product = fnormal[i] / scale * gap[i].max(0.0);
                assert!(
                    product <= 1e-6,
                    "{p} at t = {}: product {product:e}",
                    k["t"][i]
                );
                assert!(gap[i] >= -1e-3, "{p} at t = {}: gap {}", k["t"][i], gap[i]);
                assert!(fnormal[i] >= -1e-6 * scale, "{p}: pulling {}", fnormal[i]);
                // Flat ground: the normal is z, the friction is x.
                assert!(
                    (fz[i] - fnormal[i]).abs() <= 1e-6 * scale,
                    "{p}: normal {}",
                    fz[i]
                );
                assert!(
                    fx[i].abs() <= mu * fnormal[i] + 1e-6 * scale,
                    "{p} at t = {}: friction {} outside μ·fn = {}",
                    k["t"][i],
                    fx[i],
                    mu * fnormal[i]
                );
            }
        }
    }
}

/// Each foot leaves the ground (both of its points above [`LIFTED`]) and later lands again
/// (a normal force on one of its points), so the walk is made of steps, not a shuffle.
#[test]
fn each_foot_of_the_committed_walk_lifts_and_lands() {
    let k = committed();
    let touching = |p: &str, i: usize| k[&format!("fn_{p}")][i] > 1.0;
    for (foot, [heel, toe]) in FEET {
        let n = k["t"].len();
        let lifted = (0..n).find(|&i| {
            k[&format!("gap_{heel}")][i] > LIFTED && k[&format!("gap_{toe}")][i] > LIFTED
        });
        let Some(lift) = lifted else {
            panic!("the {foot} foot never clears {LIFTED} m");
        };
        assert!(
            (lift..n).any(|i| touching(heel, i) || touching(toe, i)),
            "the {foot} foot lifts at t = {} and never lands",
            k["t"][lift]
        );
    }
}

/// The starting point is not the gait: in the straight-line guess no foot ever clears
/// [`LIFTED`] (both feet slide along the ground), while the committed solution lifts each.
#[test]
fn the_walks_initial_guess_never_lifts_a_foot() {
    let prob = problem();
    let contact = prob.contact.as_ref().expect("the walk has terrain");
    let times: Vec<f64> = (0..=100)
        .map(|i| prob.duration * f64::from(i) / 100.0)
        .collect();
    let (q, _) = initial_trajectory(&prob, &times).unwrap();
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
        for (foot, points) in FEET {
            let heights = points.map(|p| {
                let s = site(p);
                ws.body_pose(s.body).transform_point(&s.offset).z - s.radius
            });
            assert!(
                heights.iter().any(|&h| h <= LIFTED),
                "the guess lifts the {foot} foot: {heights:?}"
            );
        }
    }
}

/// The solve from the problem's own starting point ends `Converged`
/// (`cargo test --release --test biped -- --ignored`).
#[test]
#[ignore = "a solve of minutes in a debug build; run with --release -- --ignored"]
fn the_walk_converges() {
    let prob = problem();
    let outcome = solve(&prob, &mut std::io::sink()).unwrap();
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

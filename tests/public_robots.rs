//! Walks of the public robots (`robots/README.md`, "Public robots"), checked on their committed
//! results by reading the files alone: Solo12's and Go1's walks (`problems/solo12_walk.yaml`,
//! `problems/go1_walk.yaml`) and their walks across a gap (`problems/solo12_gap.yaml`,
//! `problems/go1_gap.yaml`) converged, meet the contact conditions recomputed
//! from their written forces and gaps, are physical (the ground does no net positive work, no
//! foot toggles at the grid's frequency), are gaits (each foot lifts and lands, in stance for
//! several consecutive points between swings) and their loaded feet do not slide; every foot
//! crosses the gap. The solves themselves, checked to reproduce the committed results, are
//! `#[ignore]`d (minutes in release): `cargo test --release -- --ignored` runs them.

mod committed;

use committed::{
    STANCE_GAP, configuration, each_foot_lifts_and_lands, is_physical, load,
    meets_the_contact_conditions, report, reproduces, result, starts_in_a_state_of_moving,
};
use vito::dynamics::{Workspace, forward_kinematics};

const SOLO: &str = "solo12_walk";
const SOLO_GAP: &str = "solo12_gap";
const GO1: &str = "go1_walk";
const GO1_GAP: &str = "go1_gap";

/// Solo12's four foot spheres, each its own contact point.
const SOLO_FEET: [(&str, &[&str]); 4] = [
    ("front left", &["FL_foot"]),
    ("front right", &["FR_foot"]),
    ("hind left", &["HL_foot"]),
    ("hind right", &["HR_foot"]),
];

/// Go1's four foot spheres (the URDF's), each its own contact point.
const GO1_FEET: [(&str, &[&str]); 4] = [
    ("front left", &["FL_foot_contact0"]),
    ("front right", &["FR_foot_contact0"]),
    ("hind left", &["RL_foot_contact0"]),
    ("hind right", &["RR_foot_contact0"]),
];

/// The fastest a loaded foot may move along the ground (m/s): issue 35's bound.
const LOADED_SLIP: f64 = 0.05;

/// A foot carrying at least this share of its weight share is loaded.
const LOADED: f64 = 0.05;

#[test]
fn solo12_walks_in_a_trot_whose_loaded_feet_stick() {
    trots_with_its_loaded_feet_sticking(SOLO, &SOLO_FEET);
}

#[test]
fn solo12_crosses_the_gap_in_a_trot_whose_loaded_feet_stick() {
    crosses_the_gap(SOLO_GAP, &SOLO_FEET);
}

#[test]
fn go1_walks_in_a_trot_whose_loaded_feet_stick() {
    trots_with_its_loaded_feet_sticking(GO1, &GO1_FEET);
}

#[test]
fn go1_crosses_the_gap_in_a_trot_whose_loaded_feet_stick() {
    crosses_the_gap(GO1_GAP, &GO1_FEET);
}

/// Checks the committed result `name` as a walk (below) in which every foot crosses the
/// problem's gap.
fn crosses_the_gap(name: &str, feet: &[(&str, &[&str])]) {
    let centres = trots_with_its_loaded_feet_sticking(name, feet);
    let prob = load(name);
    let contact = prob.contact.as_ref().unwrap();
    let gap = &contact.terrain.gaps[0];
    for (l, site) in contact.sites.iter().enumerate() {
        let (first, last) = (centres[0][l].x, centres[centres.len() - 1][l].x);
        assert!(
            first < gap.x[0] && last > gap.x[1],
            "{} does not cross the gap {:?}: from x = {first} to {last}",
            site.name,
            gap.x
        );
    }
}

/// Checks the committed result `name` of a quadruped's walk on `feet`: converged, the contact
/// conditions, a gait, physical, and its loaded feet sticking; returns the foot spheres'
/// centres at every point.
fn trots_with_its_loaded_feet_sticking(
    name: &str,
    feet: &[(&str, &[&str])],
) -> Vec<Vec<nalgebra::Vector3<f64>>> {
    let r = report(name);
    assert_eq!(r["status"], "Converged", "{}", r["status"]);
    let (prob, k) = (load(name), result(name, "knots.csv"));
    meets_the_contact_conditions(&prob, &k);
    each_foot_lifts_and_lands(&k, feet, 0.01);
    starts_in_a_state_of_moving(&prob, &k, 0.0);
    is_physical(name, &prob, &k);
    // Loaded feet: the sphere centres' speed along the ground between consecutive points
    // where both carry a load on the ground (a force at a point stops the motion towards the
    // next point's gap, so the landing force acts one point before touchdown, in the air).
    let contact = prob.contact.as_ref().unwrap();
    let mut ws = Workspace::new(&prob.model);
    let times = &k["t"];
    let centres = |ws: &mut Workspace, i: usize| {
        forward_kinematics(&prob.model, ws, &configuration(&prob, &k, i));
        contact
            .sites
            .iter()
            .map(|s| ws.body_pose(s.body).transform_point(&s.offset))
            .collect::<Vec<_>>()
    };
    let all: Vec<_> = (0..times.len()).map(|i| centres(&mut ws, i)).collect();
    let mut fastest: f64 = 0.0;
    for i in 1..times.len() {
        let (before, now) = (&all[i - 1], &all[i]);
        for (l, site) in contact.sites.iter().enumerate() {
            let loaded = |j: usize| {
                k[&format!("fn_{}", site.name)][j] / contact.force_scale >= LOADED
                    && k[&format!("gap_{}", site.name)][j] <= STANCE_GAP
            };
            if loaded(i - 1) && loaded(i) {
                let d = now[l] - before[l];
                let speed = d.xy().norm() / (times[i] - times[i - 1]);
                assert!(
                    speed < LOADED_SLIP,
                    "{} slides at {speed} m/s at t = {}",
                    site.name,
                    times[i]
                );
                fastest = fastest.max(speed);
            }
        }
    }
    assert!(fastest > 0.0, "no loaded foot was measured");
    all
}

/// Today's solve of Solo12's walk from its trot is the committed one.
#[test]
#[ignore = "a solve of minutes in release; run with --release -- --ignored"]
fn solo12_walk_reproduces_its_committed_result() {
    reproduces(SOLO);
}

/// Today's solve of Solo12's walk across the gap from its trot is the committed one.
#[test]
#[ignore = "a solve of minutes in release; run with --release -- --ignored"]
fn solo12_gap_reproduces_its_committed_result() {
    reproduces(SOLO_GAP);
}

/// Today's solve of Go1's walk from its trot is the committed one.
#[test]
#[ignore = "a solve of minutes in release; run with --release -- --ignored"]
fn go1_walk_reproduces_its_committed_result() {
    reproduces(GO1);
}

/// Today's solve of Go1's walk across the gap from its trot is the committed one.
#[test]
#[ignore = "a solve of minutes in release; run with --release -- --ignored"]
fn go1_gap_reproduces_its_committed_result() {
    reproduces(GO1_GAP);
}

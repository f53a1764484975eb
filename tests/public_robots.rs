//! Walks of the public robots (`robots/README.md`, "Public robots"), checked on their committed
//! results by reading the files alone: Solo12's walk (`problems/solo12_walk.yaml`) converged,
//! meets the contact conditions recomputed from its written forces and gaps, is physical (the
//! ground does no net positive work, no foot toggles at the grid's frequency), is a gait (each
//! foot lifts and lands, in stance for several consecutive points between swings) and its loaded
//! feet do not slide. The solve itself, checked to reproduce the committed result, is
//! `#[ignore]`d (minutes in release): `cargo test --release -- --ignored` runs it.

mod committed;

use committed::{
    STANCE_GAP, configuration, each_foot_lifts_and_lands, is_physical, load,
    meets_the_contact_conditions, report, reproduces, result, starts_in_a_state_of_moving,
};
use vito::dynamics::{Workspace, forward_kinematics};

const SOLO: &str = "solo12_walk";

/// Solo12's four foot spheres, each its own contact point.
const SOLO_FEET: [(&str, &[&str]); 4] = [
    ("front left", &["FL_foot"]),
    ("front right", &["FR_foot"]),
    ("hind left", &["HL_foot"]),
    ("hind right", &["HR_foot"]),
];

/// The fastest a loaded foot may move along the ground (m/s): issue 35's bound.
const LOADED_SLIP: f64 = 0.05;

/// A foot carrying at least this share of its weight share is loaded.
const LOADED: f64 = 0.05;

#[test]
fn solo12_walks_in_a_trot_whose_loaded_feet_stick() {
    let r = report(SOLO);
    assert_eq!(r["status"], "Converged", "{}", r["status"]);
    let (prob, k) = (load(SOLO), result(SOLO, "knots.csv"));
    meets_the_contact_conditions(&prob, &k);
    each_foot_lifts_and_lands(&k, &SOLO_FEET, 0.01);
    starts_in_a_state_of_moving(&prob, &k, 0.0);
    is_physical(SOLO, &prob, &k);
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
    let mut before = centres(&mut ws, 0);
    let mut fastest: f64 = 0.0;
    for i in 1..times.len() {
        let now = centres(&mut ws, i);
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
        before = now;
    }
    assert!(fastest > 0.0, "no loaded foot was measured");
}

/// Today's solve of Solo12's walk from its trot is the committed one.
#[test]
#[ignore = "a solve of minutes in release; run with --release -- --ignored"]
fn solo12_walk_reproduces_its_committed_result() {
    reproduces(SOLO);
}

//! The biped walk (`problems/biped_walk.yaml`, issue 14) and its jump over a box
//! (`problems/biped_obstacle_jump.yaml`), checked on their committed results
//! (`results/<name>/knots.csv`, the transcription's own points, and `trajectory.csv`, its
//! interpolant) by reading the files alone: the start and average speeds, the contact
//! conditions recomputed from the written forces and gaps, a gait in which each foot lifts and
//! lands, and no leg segment inside the obstacle. The `*_reproduces_its_committed_result` tests
//! solve the problems again and check that today's code gives the committed results: the walk's
//! and the hop's in release builds (`.ci/run` runs them with `cargo test --release --test biped
//! -- reproduces`), the jump's (minutes) with every other long check by `cargo test --release --
//! --ignored`.

mod committed;

use committed::{
    configuration, each_foot_lifts_and_lands, is_physical, load, meets_the_contact_conditions,
    reproduces, result, starts_in_a_state_of_moving, the_initial_guess_never_lifts_a_foot,
};
use std::collections::HashMap;
use vito::dynamics::{Workspace, forward_kinematics};
use vito::problem::TrajectoryProblem;

/// Each foot with its contact points.
const FEET: [(&str, &[&str]); 2] = [
    ("left", &["l_heel", "l_toe"]),
    ("right", &["r_heel", "r_toe"]),
];

/// The height both points of a foot must clear for the foot to count as lifted (m).
const LIFTED: f64 = 0.005;

fn problem() -> TrajectoryProblem {
    load("biped_walk")
}

fn committed() -> HashMap<String, Vec<f64>> {
    result("biped_walk", "knots.csv")
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
    meets_the_contact_conditions(&problem(), &committed());
}

/// The committed walk starts walking (both feet on the ground and still, the kinetic energy
/// of the body at 0.26 m/s), the ground does no positive work beyond its tolerance and no
/// point toggles at the grid's frequency.
#[test]
fn the_committed_walk_is_physical() {
    let (prob, k) = (problem(), committed());
    starts_in_a_state_of_moving(&prob, &k, 0.26);
    is_physical("biped_walk", &prob, &k);
}

/// The hopper stands on the ground at rest at both ends and hops without the ground's help
/// (`problems/hopper_hop.yaml`).
#[test]
fn the_committed_hop_is_physical() {
    let (prob, k) = (load("hopper_hop"), result("hopper_hop", "knots.csv"));
    starts_in_a_state_of_moving(&prob, &k, 0.0);
    is_physical("hopper_hop", &prob, &k);
}

/// Each foot leaves the ground (both of its points above [`LIFTED`]) and later lands again
/// (a normal force on one of its points), so the walk is made of steps, not a shuffle.
#[test]
fn each_foot_of_the_committed_walk_lifts_and_lands() {
    each_foot_lifts_and_lands(&committed(), &FEET, LIFTED);
}

/// The starting point is not the gait: in the straight-line guess no foot ever clears
/// [`LIFTED`] (both feet slide along the ground), while the committed solution lifts each.
#[test]
fn the_walks_initial_guess_never_lifts_a_foot() {
    the_initial_guess_never_lifts_a_foot(&problem(), &FEET, LIFTED);
}

/// Today's solve of the walk is the committed one.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a solve of minutes in a debug build; .ci/run runs it with --release"
)]
fn the_walk_reproduces_its_committed_result() {
    reproduces("biped_walk");
}

/// Today's solve of the hop is the committed one.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a solve of a minute in a debug build; .ci/run runs it with --release"
)]
fn the_hop_reproduces_its_committed_result() {
    reproduces("hopper_hop");
}

const JUMP: &str = "biped_obstacle_jump";

/// Issue 14's speeds: the committed jump starts at 0.26 m/s and covers its distance at
/// 0.9 ± 0.1 m/s on average (base x over time, from `trajectory.csv`), ending past the box.
#[test]
fn the_committed_jump_starts_at_0_26_and_averages_0_9_m_per_s() {
    let prob = load(JUMP);
    let k = result(JUMP, "trajectory.csv");
    let (t, x) = (&k["t"], &k["q_base_x"]);
    let last = t.len() - 1;
    assert!(
        (k["v_base_x"][0] - 0.26).abs() < 1e-9,
        "{}",
        k["v_base_x"][0]
    );
    let average = (x[last] - x[0]) / (t[last] - t[0]);
    assert!((average - 0.9).abs() <= 0.1, "average speed {average} m/s");
    let contact = prob.contact.as_ref().expect("the jump has terrain");
    let obstacle = &contact.terrain.boxes[0];
    assert!(
        (obstacle.top - 0.16).abs() < 1e-12,
        "box {} m high",
        obstacle.top
    );
    let mut ws = Workspace::new(&prob.model);
    let q_end = configuration(&prob, &k, last);
    forward_kinematics(&prob.model, &mut ws, &q_end);
    for foot in ["l_heel", "r_heel"] {
        let c = prob
            .model
            .contact_points()
            .iter()
            .find(|c| c.name == foot)
            .expect("heel");
        let at = ws.body_pose(c.body).transform_point(&c.offset).x;
        assert!(
            at > obstacle.x[1],
            "{foot} ends at x = {at}, before the box's far side {}",
            obstacle.x[1]
        );
    }
}

/// Segment ends of one leg in the x–z plane: hip, knee, ankle, heel, toe.
type Leg = [[f64; 2]; 5];

/// The legs by the hand-written planar chain (every joint about +y, links along −z at q = 0,
/// robots/planar_biped.urdf: thigh and shank 0.42 m, heel 0.0575 m behind and toe 0.1725 m
/// ahead of the ankle, sole 0.04 m below it), from the base `(x, z, pitch)` and one leg's
/// `(hip, knee, ankle)`.
fn planar_leg(base: [f64; 3], joints: [f64; 3]) -> Leg {
    // A point (a, c) of a link turned by θ about +y: (a cos θ + c sin θ, −a sin θ + c cos θ).
    let turn = |p: [f64; 2], o: [f64; 2], th: f64| {
        [
            o[0] + p[0] * th.cos() + p[1] * th.sin(),
            o[1] - p[0] * th.sin() + p[1] * th.cos(),
        ]
    };
    let hip = [base[0], base[1]];
    let t1 = base[2] + joints[0];
    let knee = turn([0.0, -0.42], hip, t1);
    let t2 = t1 + joints[1];
    let ankle = turn([0.0, -0.42], knee, t2);
    let t3 = t2 + joints[2];
    [
        hip,
        knee,
        ankle,
        turn([-0.0575, -0.04], ankle, t3),
        turn([0.1725, -0.04], ankle, t3),
    ]
}

/// The legs by the model's kinematics: the thigh, shank and foot frames and the heel and toe
/// contact points of `q`.
fn model_legs(prob: &TrajectoryProblem, ws: &mut Workspace, q: &[f64]) -> [Leg; 2] {
    forward_kinematics(&prob.model, ws, q);
    let xz = |p: vito::spatial::Vec3| [p.x, p.z];
    ["l", "r"].map(|s| {
        let origin = |link: &str| {
            let f = prob.model.frame(link).unwrap_or_else(|| panic!("{link}"));
            xz(ws
                .body_pose(f.body)
                .transform_point(&f.placement.translation))
        };
        let point = |name: &str| {
            let c = prob
                .model
                .contact_points()
                .iter()
                .find(|c| c.name == name)
                .unwrap_or_else(|| panic!("{name}"));
            xz(ws.body_pose(c.body).transform_point(&c.offset))
        };
        [
            origin(&format!("{s}_thigh")),
            origin(&format!("{s}_shank")),
            origin(&format!("{s}_foot")),
            point(&format!("{s}_heel")),
            point(&format!("{s}_toe")),
        ]
    })
}

/// Issue 14's leg collision: at every sample of the committed `trajectory.csv` (10 per stage)
/// no point of a leg segment (hip–knee, knee–ankle, heel–toe, each sampled every 0.5 mm) is
/// inside the obstacle box (its sharp footprint up to its top), and some pass over it. The segments come from the
/// model's kinematics and agree with a hand-written planar chain to 1e-12 m.
#[test]
fn no_leg_segment_of_the_committed_jump_enters_the_box() {
    let prob = load(JUMP);
    let contact = prob.contact.as_ref().expect("the jump has terrain");
    let obstacle = &contact.terrain.boxes[0];
    let inside = |p: [f64; 2]| p[0] > obstacle.x[0] && p[0] < obstacle.x[1] && p[1] < obstacle.top;
    let k = result(JUMP, "trajectory.csv");
    let mut ws = Workspace::new(&prob.model);
    // Samples above the box: the legs do pass over it.
    let mut over = 0;
    for i in 0..k["t"].len() {
        let q = configuration(&prob, &k, i);
        let legs = model_legs(&prob, &mut ws, &q);
        for (leg, (s, side)) in legs.iter().zip([("l", "left"), ("r", "right")]) {
            let joint = |j: &str| k[&format!("q_{s}_{j}")][i];
            let planar = planar_leg(
                [k["q_base_x"][i], k["q_base_z"][i], k["q_base_pitch"][i]],
                [joint("hip"), joint("knee"), joint("ankle")],
            );
            for (a, b) in leg.iter().zip(&planar) {
                let d = (a[0] - b[0]).hypot(a[1] - b[1]);
                assert!(d < 1e-12, "{s} leg at t = {}: {a:?} vs {b:?}", k["t"][i]);
            }
            for (name, (a, b)) in [
                ("hip-knee", (leg[0], leg[1])),
                ("knee-ankle", (leg[1], leg[2])),
                ("heel-toe", (leg[3], leg[4])),
            ] {
                let length = (b[0] - a[0]).hypot(b[1] - a[1]);
                let n = (length / 5e-4).ceil() as usize;
                for j in 0..=n {
                    let s = j as f64 / n as f64;
                    let p = [a[0] + s * (b[0] - a[0]), a[1] + s * (b[1] - a[1])];
                    assert!(
                        !inside(p),
                        "{name} of the {side} leg inside the box at t = {}: {p:?}",
                        k["t"][i]
                    );
                    if p[0] > obstacle.x[0] && p[0] < obstacle.x[1] {
                        over += 1;
                    }
                }
            }
        }
    }
    assert!(over > 0, "no leg ever passes over the box");
}

/// The contact conditions and the physics of the walk's tests, on the jump's committed points.
#[test]
fn the_committed_jump_meets_the_contact_conditions() {
    let (prob, k) = (load(JUMP), result(JUMP, "knots.csv"));
    meets_the_contact_conditions(&prob, &k);
    starts_in_a_state_of_moving(&prob, &k, 0.26);
    is_physical(JUMP, &prob, &k);
}

/// The jump is made of steps too: each foot lifts and lands.
#[test]
fn each_foot_of_the_committed_jump_lifts_and_lands() {
    each_foot_lifts_and_lands(&result(JUMP, "knots.csv"), &FEET, LIFTED);
}

/// Today's solve of the jump, its four easier steps first (`initial_guess: {solve: …}`), is
/// the committed one (`cargo test --release --test biped -- --ignored`).
#[test]
#[ignore = "a solve of minutes in release; run with --release -- --ignored"]
fn the_jump_reproduces_its_committed_result() {
    reproduces(JUMP);
}

//! The quadruped of seed 000 §6.2 (issue 15): the flat walk (`problems/quadruped_walk.yaml`)
//! and the walk across two gaps (`problems/quadruped_gaps.yaml`), checked on their committed
//! results (`results/<name>/knots.csv`, the transcription's own points, and
//! `trajectory.csv`, its interpolant) by reading the files alone: the status, the contact
//! conditions recomputed from the written forces and gaps, the physics of a passive ground,
//! across the gaps a gait in which each foot lifts and lands, no foot inside a gap, and every
//! foot past both gaps at the end; and their starting trot (`problems/guesses/`). The solves
//! themselves, checked to reproduce the committed results, are `#[ignore]`d (minutes in
//! release): `cargo test --release -- --ignored` runs every such check.

mod committed;

use committed::{
    configuration, each_foot_lifts_and_lands, is_physical, load, meets_the_contact_conditions,
    report, reproduces, result, starts_in_a_state_of_moving,
};
use vito::contact::Terrain;
use vito::dynamics::{Workspace, forward_kinematics};
use vito::problem::TrajectoryProblem;
use vito::spatial::Vec3;
use vito::transcription::initial_trajectory;

const WALK: &str = "quadruped_walk";
const GAPS: &str = "quadruped_gaps";

/// The four point feet, each its own contact point.
const FEET: [(&str, &[&str]); 4] = [
    ("front left", &["fl_foot"]),
    ("front right", &["fr_foot"]),
    ("hind left", &["hl_foot"]),
    ("hind right", &["hr_foot"]),
];

/// The height a foot must clear to count as lifted (m): a thousand times the largest gap
/// under a foot carrying a force (4·10⁻⁶ m on the flat walk, the smoothing's `μ²/f`). Steps can
/// be low: the SQP's flat walk (`--method sqp`) lifts its feet by at most 3 mm
/// (problems/README.md, "The quadruped").
const LIFTED: f64 = 0.001;

/// The radius of the feet's collision spheres, from the model (every foot has the same).
fn foot_radius(prob: &TrajectoryProblem) -> f64 {
    let points = prob.model.contact_points();
    let radii: Vec<f64> = FEET
        .iter()
        .map(|(_, names)| {
            let p = points.iter().find(|c| c.name == names[0]);
            p.unwrap_or_else(|| panic!("no contact point {}", names[0]))
                .radius
        })
        .collect();
    assert!(
        radii.iter().all(|&r| r == radii[0] && r > 0.0),
        "foot radii {radii:?}"
    );
    radii[0]
}

/// How far the interpolant's foot may dip below a surface between the transcription's points
/// (m): the penetration tolerance of issue 15.
const DIP: f64 = 1e-3;

/// Issue 15's status and contact residuals, as the committed `report.json` of `name` records
/// them, the contact conditions recomputed from its `knots.csv` (and with `steps` a gait in
/// which each foot lifts and lands), the start standing still and the physics of a passive
/// ground (issue 32).
fn is_a_converged_walk(name: &str, steps: bool) {
    let r = report(name);
    assert_eq!(r["status"], "Converged", "{name}: {}", r["status"]);
    let c = &r["contact"];
    let product = c["largest_complementarity_product"].as_f64().unwrap();
    let depth = c["deepest_penetration"].as_f64().unwrap();
    assert!(product <= 1e-6, "{name}: product {product}");
    assert!(depth <= 1e-3, "{name}: penetration {depth}");
    let (prob, k) = (load(name), result(name, "knots.csv"));
    meets_the_contact_conditions(&prob, &k);
    if steps {
        each_foot_lifts_and_lands(&k, &FEET, LIFTED);
    }
    starts_in_a_state_of_moving(&prob, &k, 0.0);
    is_physical(name, &prob, &k);
}

/// The flat walk is physical, and a shuffle: with the physical contact model its feet mostly
/// stick and slide forward while lightly loaded, lifting at most a few millimetres
/// (problems/README.md, "The quadruped"), so the steps of issue 15 are not asked of it.
#[test]
fn the_committed_flat_walk_converged() {
    is_a_converged_walk(WALK, false);
}

/// The gaps walk steps over both gaps on a ground that does no work at the knots
/// (`terrain.dissipative_knots`).
#[test]
fn the_committed_gaps_walk_converged_and_steps() {
    is_a_converged_walk(GAPS, true);
}

/// The foot sphere centres of the starting trajectory of `prob` at 301 samples of the horizon.
fn guess_feet(prob: &TrajectoryProblem) -> Vec<[Vec3; 4]> {
    let times: Vec<f64> = (0..=300)
        .map(|i| prob.duration * f64::from(i) / 300.0)
        .collect();
    let (q, _) = initial_trajectory(prob, &times).expect("the guess file");
    let sites: Vec<_> = FEET
        .iter()
        .map(|(_, names)| {
            prob.model
                .contact_points()
                .iter()
                .find(|c| c.name == names[0])
                .unwrap_or_else(|| panic!("no contact point {}", names[0]))
                .clone()
        })
        .collect();
    let mut ws = Workspace::new(&prob.model);
    q.iter()
        .map(|qt| {
            forward_kinematics(&prob.model, &mut ws, qt);
            [0, 1, 2, 3].map(|f| {
                ws.body_pose(sites[f].body)
                    .transform_point(&sites[f].offset)
            })
        })
        .collect()
}

/// Both walks start from a trot (`tools/quadruped_trot_guess.py`): every foot lifts more than
/// 2 cm, stands on the ground (its sphere within 0.1 mm of it) at both ends, and in the gaps
/// walk's trot no foot stands over a gap (its centre at least its radius from the openings).
#[test]
fn the_walks_start_from_a_trot_that_keeps_out_of_the_gaps() {
    let gaps = load(GAPS).contact.expect("terrain").terrain.gaps;
    for name in [WALK, GAPS] {
        let prob = load(name);
        let feet = guess_feet(&prob);
        let radius = foot_radius(&prob);
        for f in 0..4 {
            let heights: Vec<f64> = feet.iter().map(|p| p[f].z - radius).collect();
            let highest = heights.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            assert!(
                highest > 0.02,
                "{name}: the {} foot lifts {highest} m",
                FEET[f].0
            );
            for h in [heights[0], heights[heights.len() - 1]] {
                assert!(
                    h.abs() < 1e-4,
                    "{name}: the {} foot ends {h} m up",
                    FEET[f].0
                );
            }
        }
        if name != GAPS {
            continue;
        }
        for p in &feet {
            for (f, foot) in p.iter().enumerate() {
                let standing = foot.z - radius < 1e-3;
                let over = gaps
                    .iter()
                    .any(|g| foot.x > g.x[0] - radius && foot.x < g.x[1] + radius);
                assert!(
                    !(standing && over),
                    "the {} foot stands over a gap at x = {}",
                    FEET[f].0,
                    foot.x
                );
            }
        }
    }
}

/// A rotation about x, y or z by `a` as a row-major 3 × 3 matrix.
fn rotation(axis: usize, a: f64) -> [[f64; 3]; 3] {
    let (c, s) = (a.cos(), a.sin());
    match axis {
        0 => [[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]],
        1 => [[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]],
        _ => [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]],
    }
}

fn multiply(a: &[[f64; 3]; 3], b: &[[f64; 3]; 3]) -> [[f64; 3]; 3] {
    let mut m = [[0.0; 3]; 3];
    for (i, row) in m.iter_mut().enumerate() {
        for (j, v) in row.iter_mut().enumerate() {
            *v = (0..3).map(|k| a[i][k] * b[k][j]).sum();
        }
    }
    m
}

fn apply(r: &[[f64; 3]; 3], p: [f64; 3]) -> [f64; 3] {
    [0, 1, 2].map(|i| (0..3).map(|k| r[i][k] * p[k]).sum())
}

/// The foot sphere centre of one leg by the hand-written chain of robots/quadruped.urdf: the
/// body at `base` (x, y, z, yaw, pitch, roll; orientation `Rz Ry Rx`), the hip roll joint at
/// (±0.101, ±0.03625, 0) about x, the hip pitch 0.0236 m outboard about y, the knee 0.0751 m
/// below it about y, the foot 0.102 m below the knee; `front` and `left` choose the signs.
fn chain_foot(base: &[f64], joints: [f64; 3], front: bool, left: bool) -> [f64; 3] {
    let (sx, sy) = (
        if front { 1.0 } else { -1.0 },
        if left { 1.0 } else { -1.0 },
    );
    let body = multiply(
        &multiply(&rotation(2, base[3]), &rotation(1, base[4])),
        &rotation(0, base[5]),
    );
    let hip = multiply(&body, &rotation(0, joints[0]));
    let upper = multiply(&hip, &rotation(1, joints[1]));
    let lower = multiply(&upper, &rotation(1, joints[2]));
    let mut p = [base[0], base[1], base[2]];
    for (r, offset) in [
        (&body, [sx * 0.101, sy * 0.03625, 0.0]),
        (&hip, [0.0, sy * 0.0236, 0.0]),
        (&upper, [0.0, 0.0, -0.0751]),
        (&lower, [0.0, 0.0, -0.102]),
    ] {
        let d = apply(r, offset);
        p = [0, 1, 2].map(|i| p[i] + d[i]);
    }
    p
}

/// The foot sphere centres at every sample of the committed `trajectory.csv` of `name` (10
/// per stage), by the model's kinematics, each checked against [`chain_foot`] to 1e-12 m:
/// `(t, [fl, fr, hl, hr])`.
fn feet_over_time(name: &str) -> Vec<(f64, [[f64; 3]; 4])> {
    let prob = load(name);
    let k = result(name, "trajectory.csv");
    let mut ws = Workspace::new(&prob.model);
    let base = ["x", "y", "z", "yaw", "pitch", "roll"];
    (0..k["t"].len())
        .map(|i| {
            forward_kinematics(&prob.model, &mut ws, &configuration(&prob, &k, i));
            let b: Vec<f64> = base.iter().map(|c| k[&format!("q_base_{c}")][i]).collect();
            let feet = [
                ("fl", true, true),
                ("fr", true, false),
                ("hl", false, true),
                ("hr", false, false),
            ]
            .map(|(leg, front, left)| {
                let site = prob
                    .model
                    .contact_points()
                    .iter()
                    .find(|c| c.name == format!("{leg}_foot"))
                    .unwrap_or_else(|| panic!("{leg}_foot"));
                let p = ws.body_pose(site.body).transform_point(&site.offset);
                let joint = |j: &str| k[&format!("q_{leg}_{j}")][i];
                let chain = chain_foot(
                    &b,
                    [joint("hip_roll"), joint("hip_pitch"), joint("knee")],
                    front,
                    left,
                );
                let d = ((p.x - chain[0]).powi(2)
                    + (p.y - chain[1]).powi(2)
                    + (p.z - chain[2]).powi(2))
                .sqrt();
                assert!(d < 1e-12, "{leg} at t = {}: {p:?} vs {chain:?}", k["t"][i]);
                [p.x, p.y, p.z]
            });
            (k["t"][i], feet)
        })
        .collect()
}

/// The flat walk's feet, by the model's kinematics checked against the hand-written chain at
/// every sample: each ends 0.75 m ahead of where it started (the end pose is the start's moved
/// by 0.75 m), on the ground at both ends.
#[test]
fn every_foot_of_the_committed_flat_walk_ends_0_75_m_ahead() {
    let feet = feet_over_time(WALK);
    let radius = foot_radius(&load(WALK));
    let (first, last) = (&feet[0].1, &feet[feet.len() - 1].1);
    for (f, (a, b)) in first.iter().zip(last).enumerate() {
        let moved = b[0] - a[0];
        assert!(
            (moved - 0.75).abs() < 1e-6,
            "the {} foot moved {moved} m",
            FEET[f].0
        );
        for p in [a, b] {
            let bottom = p[2] - radius;
            assert!(
                bottom.abs() < 1e-3,
                "the {} foot stands {bottom} m up",
                FEET[f].0
            );
        }
    }
}

/// What is wrong with a foot sphere centred at `p` over a gap's footprint, if anything: it
/// penetrates the terrain (with its rounded edges) by more than [`DIP`], or its lowest point
/// is below the ground surface (by more than [`DIP`]) while it does not stand on the gap's
/// edge, that is touch the terrain (within [`DIP`]) with its centre above the ground. A foot
/// standing on an edge with its centre just past it hangs its lowest point below the ground
/// (by about 1.6 mm with the centre 4 mm past an edge rounded by 0.002 m); a foot that skims
/// across the gap below the ground, or has gone into it, is wrong.
fn fault_over_a_gap(terrain: &Terrain, radius: f64, p: &[f64; 3]) -> Option<String> {
    let phi = terrain.distance(&Vec3::new(p[0], p[1], p[2])).value - radius;
    let below = terrain.ground - (p[2] - radius);
    let on_the_edge = phi <= DIP && p[2] >= terrain.ground;
    if phi < -DIP {
        Some(format!("penetrates the terrain by {} m", -phi))
    } else if below > DIP && !on_the_edge {
        Some(format!(
            "is {below} m below the ground, {phi} m from the terrain"
        ))
    } else {
        None
    }
}

/// The measure of [`fault_over_a_gap`] on feet placed by hand at the first gap's edge
/// (x = 0.15 m, rounded by 0.002 m): standing on the edge passes, skimming below the ground,
/// falling in and penetrating the edge do not.
#[test]
fn the_gap_measure_tells_standing_on_an_edge_from_being_in_the_gap() {
    let prob = load(GAPS);
    let terrain = &prob.contact.as_ref().expect("terrain").terrain;
    let (edge, rho, r) = (
        terrain.gaps[0].x[0],
        terrain.edge_radius,
        foot_radius(&prob),
    );
    assert_eq!(
        (edge, rho, r),
        (0.15, 0.002, 0.01),
        "the gap of the committed problem and the feet of robots/quadruped.urdf"
    );
    // Resting on the rounded edge, the centre 4 mm past it: the sphere touches the edge's
    // circle (centre (edge − ρ, −ρ)) from above.
    let a = 0.004;
    let z = ((r + rho).powi(2) - (a + rho).powi(2)).sqrt() - rho;
    assert!(z - r < -DIP, "the lowest point hangs {} m low", r - z);
    assert_eq!(fault_over_a_gap(terrain, r, &[edge + a, 0.0, z]), None);
    // Skimming: the centre 4 mm above the ground, 3 cm from the edges.
    assert!(fault_over_a_gap(terrain, r, &[0.18, 0.0, 0.004]).is_some());
    // Fallen in: the centre 5 mm below the ground, 2 cm from the edge.
    assert!(fault_over_a_gap(terrain, r, &[0.17, 0.0, -0.005]).is_some());
    // Through the edge: 2 mm lower than resting on it.
    assert!(fault_over_a_gap(terrain, r, &[edge + a, 0.0, z - 0.002]).is_some());
    // Gliding over the gap clear of the ground.
    assert_eq!(fault_over_a_gap(terrain, r, &[0.19, 0.0, r + 0.001]), None);
}

/// Issue 15: no foot is ever in a gap ([`fault_over_a_gap`] at every sample of the
/// interpolant whose foot centre is over a gap's footprint), and every foot does pass over
/// both gaps.
#[test]
fn no_foot_of_the_committed_gaps_walk_enters_a_gap() {
    let prob = load(GAPS);
    let terrain = &prob.contact.as_ref().expect("the walk has terrain").terrain;
    let radius = foot_radius(&prob);
    assert_eq!(terrain.gaps.len(), 2, "two gaps");
    let mut crossed = [[false; 2]; 4];
    for (t, feet) in feet_over_time(GAPS) {
        for (f, p) in feet.iter().enumerate() {
            for (g, gap) in terrain.gaps.iter().enumerate() {
                if p[0] > gap.x[0] && p[0] < gap.x[1] {
                    crossed[f][g] = true;
                    if let Some(fault) = fault_over_a_gap(terrain, radius, p) {
                        panic!("the {} foot over gap {g} at t = {t} {fault}", FEET[f].0);
                    }
                }
            }
        }
    }
    for (f, c) in crossed.iter().enumerate() {
        assert!(
            c[0] && c[1],
            "the {} foot never passes over both gaps: {c:?}",
            FEET[f].0
        );
    }
}

/// Issue 15: each foot ends past the second gap (its whole sphere beyond the gap's far edge).
#[test]
fn every_foot_of_the_committed_gaps_walk_ends_past_the_second_gap() {
    let prob = load(GAPS);
    let far = prob.contact.as_ref().expect("terrain").terrain.gaps[1].x[1];
    let radius = foot_radius(&prob);
    let (t, feet) = *feet_over_time(GAPS).last().expect("samples");
    for (f, p) in feet.iter().enumerate() {
        assert!(
            p[0] - radius > far,
            "the {} foot ends at x = {} (t = {t}), not past the second gap's far edge {far}",
            FEET[f].0,
            p[0]
        );
    }
}

/// Today's solve of the flat walk from its trot is the committed one
/// (`cargo test --release --test quadruped -- --ignored`).
#[test]
#[ignore = "a solve of minutes in release; run with --release -- --ignored"]
fn the_flat_walk_reproduces_its_committed_result() {
    reproduces(WALK);
}

/// Today's solve of the gaps walk from its trot is the committed one.
#[test]
#[ignore = "a solve of minutes in release; run with --release -- --ignored"]
fn the_gaps_walk_reproduces_its_committed_result() {
    reproduces(GAPS);
}

//! Simulation with contact against closed forms: a box sliding to a stop, a box on a slope
//! that sticks or slides, and dropped boxes that land and stay at rest.

mod scratch;

use std::path::{Path, PathBuf};
use vito::problem::{SimulationOverrides, SimulationProblem, load_simulation};
use vito::vi::contact_simulation::simulate_with_contact;
use vito::vi::simulate::Trajectory;

const G: f64 = 9.81;

fn problem_file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("problems")
        .join(name)
}

fn run(prob: &SimulationProblem) -> Trajectory {
    let contact = prob.contact.as_ref().expect("the simulation has terrain");
    let sim = simulate_with_contact(
        &prob.model,
        &prob.galerkin(),
        &prob.q0,
        &prob.v0,
        &mut |_, u| u.fill(0.0),
        contact,
        &prob.options,
    );
    if let Some(f) = &sim.failure {
        panic!("step {} at t = {} failed: {}", f.step, f.time, f.message);
    }
    sim.trajectory
}

fn load(path: &Path, dt: Option<f64>) -> SimulationProblem {
    let overrides = SimulationOverrides {
        dt,
        ..SimulationOverrides::default()
    };
    load_simulation(path, &overrides).unwrap_or_else(|e| panic!("{e}"))
}

/// A copy of a bundled simulation with some lines replaced.
fn variant(name: &str, replace: &[(&str, &str)]) -> PathBuf {
    let mut text = std::fs::read_to_string(problem_file(name)).unwrap();
    for (from, to) in replace {
        assert!(text.contains(from), "{name} has no '{from}'");
        text = text.replace(from, to);
    }
    text = text.replace("../robots", concat!(env!("CARGO_MANIFEST_DIR"), "/robots"));
    let dir = scratch::fresh_dir("vito-contact-sim");
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// From 1 m/s with μ = 0.5 the box stops after v0²/(2μg): within 1 % at dt = 0.01 s, and
/// the error shrinks with the step; it then stays where it stopped, on the ground.
#[test]
fn sliding_box_stops_after_the_closed_form_distance() {
    let (v0, mu) = (1.0, 0.5);
    let expected = v0 * v0 / (2.0 * mu * G);
    let mut errors = Vec::new();
    for dt in [0.01, 0.005, 0.0025] {
        let prob = load(&problem_file("sim_block_slide.yaml"), Some(dt));
        let traj = run(&prob);
        let last = traj.q.last().unwrap();
        let distance = last[0];
        let error = (distance - expected).abs() / expected;
        errors.push(error);
        assert!(
            error < 0.01,
            "dt = {dt}: stopped after {distance} m, expected {expected}"
        );
        assert!(
            last[1] > 0.05 - 1e-6 && last[1] < 0.05 + 1e-6,
            "height {}",
            last[1]
        );
        assert!(traj.v.last().unwrap()[0].abs() < 1e-6, "still moving");
    }
    assert!(
        errors[2] < errors[0],
        "the stopping error does not shrink with dt: {errors:?}"
    );
}

/// On a slope of θ = 0.3 rad (gravity tilted by θ): with μ = 0.5 > tan θ the box stays put;
/// with μ = 0.2 it accelerates at g (sin θ − μ cos θ).
#[test]
fn box_on_a_slope_sticks_or_slides_as_coulomb_says() {
    let theta: f64 = 0.3;
    let sticking = variant(
        "sim_block_slope.yaml",
        &[("terrain: {friction: 0.2}", "terrain: {friction: 0.5}")],
    );
    let traj = run(&load(&sticking, None));
    for q in &traj.q {
        assert!(q[0].abs() < 1e-6, "moved to x = {} with μ > tan θ", q[0]);
    }
    let traj = run(&load(&problem_file("sim_block_slope.yaml"), None));
    let expected = G * (theta.sin() - 0.2 * theta.cos());
    let (t, x) = (*traj.time.last().unwrap(), traj.q.last().unwrap()[0]);
    let a = 2.0 * x / (t * t);
    assert!(
        (a - expected).abs() / expected < 0.01,
        "acceleration {a}, expected {expected}"
    );
    let v = traj.v.last().unwrap()[0];
    assert!(
        (v - expected * t).abs() / (expected * t) < 0.01,
        "speed {v}"
    );
}

/// A box dropped on an edge lands, falls onto its face and stays at rest.
#[test]
fn dropped_box_comes_to_rest_without_penetration_or_rebound() {
    let prob = load(&problem_file("sim_box_drop.yaml"), None);
    assert_lands_and_rests_flat(&run(&prob), "sim_box_drop");
}

/// No corner of the box below the ground by more than 1e-6 m, its centre never rising by more
/// than 1e-6 m after the first touch, and at the end flat on its bottom face and still.
fn assert_lands_and_rests_flat(traj: &Trajectory, label: &str) {
    let contact = traj.contact.as_ref().expect("contact forces recorded");
    let deepest = contact
        .gaps
        .iter()
        .flatten()
        .fold(f64::INFINITY, |a, &g| a.min(g));
    assert!(deepest > -1e-6, "{label}: penetration {deepest}");
    let touch = contact
        .gaps
        .iter()
        .position(|g| g.iter().any(|&x| x < 1e-6))
        .expect("the box lands");
    for k in touch + 1..traj.q.len() {
        assert!(
            traj.q[k][2] <= traj.q[k - 1][2] + 1e-6,
            "{label}: rebound at t = {}: centre from {} to {}",
            traj.time[k],
            traj.q[k - 1][2],
            traj.q[k][2]
        );
    }
    let last = traj.q.last().unwrap();
    assert!(
        (last[2] - 0.05).abs() < 1e-6,
        "{label}: rests at z = {}",
        last[2]
    );
    assert!(
        last[4].abs() < 1e-6 && last[5].abs() < 1e-6,
        "{label}: rests tilted: {last:?}"
    );
    let v = traj.v.last().unwrap();
    assert!(
        v.iter().all(|x| x.abs() < 1e-5),
        "{label}: still moving: {v:?}"
    );
}

/// A body that reaches the ground between two nodes, at any phase of a step: each node's force
/// answers for the next node's gap, so the force that stops the body acts from the node
/// before the touchdown, which is still in the air, and no node goes below the ground. The
/// impact is inelastic up to the quadratic interpolant's resolution: from the second knot after
/// the touch the body keeps at most 2 % of its kinetic energy, it never rises by more than
/// 0.5 mm, and it rests.
#[test]
fn touchdown_between_knots_is_caught_by_the_node_before() {
    let dt = 0.01;
    // Touchdown times across a step: just after a knot, before, at and after the interior
    // node (t = 0.105 s), and just before the next knot.
    for t_touch in [0.1005, 0.1030, 0.1045, 0.1050, 0.1065, 0.1095] {
        let height = 0.05 + 0.5 * G * t_touch * t_touch;
        let file = variant(
            "sim_block_slide.yaml",
            &[
                ("q0: [0, 0.05, 0]", &format!("q0: [0, {height}, 0]")),
                ("v0: [1.0, 0, 0]", "v0: [0, 0, 0]"),
            ],
        );
        let traj = run(&load(&file, Some(dt)));
        let c = traj.contact.as_ref().unwrap();
        let bottom: Vec<usize> = c
            .names
            .iter()
            .enumerate()
            .filter(|(_, n)| n.ends_with("bottom"))
            .map(|(l, _)| l)
            .collect();
        for (k, gaps) in c.gaps.iter().enumerate() {
            for &l in &bottom {
                assert!(
                    gaps[l] > -1e-6,
                    "{t_touch}: knot {k} penetrates by {}",
                    -gaps[l]
                );
            }
        }
        let impact = 0.5 * (G * t_touch).powi(2);
        // The knot after the touchdown may still carry the arrival's last momentum (the next
        // step's knot force takes it); from the one after on, the box has lost it.
        let first = traj.time.iter().position(|&t| t > t_touch).unwrap();
        for k in first..traj.q.len() {
            let kinetic = traj.energy[k] - G * traj.q[k][1];
            assert!(
                k == first || kinetic <= 0.02 * impact,
                "{t_touch}: at t = {} the box keeps {kinetic} J of {impact} J",
                traj.time[k]
            );
            assert!(
                traj.q[k][1] - 0.05 <= 5e-4,
                "{t_touch}: rebound to {} mm at t = {}",
                (traj.q[k][1] - 0.05) * 1e3,
                traj.time[k]
            );
        }
        let last = traj.q.last().unwrap();
        assert!(
            (last[1] - 0.05).abs() < 1e-6,
            "{t_touch}: rests at {}",
            last[1]
        );
        assert!(traj.v.last().unwrap().iter().all(|v| v.abs() < 1e-5));
    }
}

/// A box dropped tilted about both horizontal axes lands on one corner and pivots on it while
/// its start knot and interior node both push, where the simulator's first pairing has no
/// solution (these three drops stopped the simulation at the corner's landing before its
/// fallback pairing existed). Each lands, settles onto its bottom face and rests there.
#[test]
fn doubly_tilted_box_drops_land_on_a_corner_and_come_to_rest() {
    for (pitch, roll) in [(0.2, 0.3), (0.3, 0.2), (0.1, 0.5)] {
        let file = variant(
            "sim_box_drop.yaml",
            &[(
                "q0: [0, 0, 0.3, 0, 0.2, 0]",
                &format!("q0: [0, 0, 0.3, 0, {pitch}, {roll}]"),
            )],
        );
        let label = format!("pitch {pitch}, roll {roll}");
        assert_lands_and_rests_flat(&run(&load(&file, None)), &label);
    }
}

/// A box dropped pitched by 1.25 rad topples onto the side its x axis points out of and rests
/// at pitch = π/2, the gimbal lock of the floating base's yaw–pitch–roll coordinates, where
/// its mass matrix is singular (before the simulator changed charts it stopped there, at
/// t = 1.27 s; pitched by 1.35 rad it also wrote NaN velocities on the way). It must come to rest on that side, 0.1 m up, with finite
/// velocities and energies throughout.
#[test]
fn box_toppling_onto_its_side_rests_at_the_gimbal_lock() {
    let file = variant(
        "sim_box_drop.yaml",
        &[("q0: [0, 0, 0.3, 0, 0.2, 0]", "q0: [0, 0, 0.4, 0, 1.25, 0]")],
    );
    let prob = load(&file, None);
    let traj = run(&prob);
    for (k, (v, e)) in traj.v.iter().zip(&traj.energy).enumerate() {
        assert!(
            v.iter().all(|x| x.is_finite()) && e.is_finite(),
            "knot {k} (t = {}): v {v:?}, energy {e}",
            traj.time[k]
        );
    }
    let last = traj.q.last().unwrap();
    let lock = prob.model.base_lock_distance(last).unwrap();
    assert!(lock < 1e-6, "the box rests {lock} rad from pitch = ±π/2");
    assert!((last[2] - 0.1).abs() < 1e-6, "base height {}", last[2]);
    // At rest: the energy is the potential of the centre 0.1 m up, m = 1 kg.
    let e = *traj.energy.last().unwrap();
    assert!((e - G * 0.1).abs() < 1e-5, "energy {e}");
}

/// Boxes thrown spinning onto the ground land without gaining energy: at every knot the energy
/// is at most the previous knot's plus the energy of lifting the box by 1 mm, no knot is more
/// than 1e-6 m in the ground, and the energy never exceeds the initial one. With the start
/// knot's force paired with the step's end gap (the simulator's pairing before the
/// transcription's), the first landed with a solution that threw it up with 4.8 J more (from
/// 1.4 J), the second with 2.3 J more.
#[test]
fn spinning_box_landings_do_not_gain_energy() {
    let cases = [
        (
            "[0, 0, 0.2460, 2.3874, -1.1039, -1.6143]",
            "[-0.6652, -0.5172, 0, 2.9290, -0.4739, -2.3067]",
            "0.795",
        ),
        (
            "[0, 0, 0.2906, 2.3280, -0.9450, 0.1386]",
            "[0.7612, -0.1542, 0, 2.1237, -1.5310, -1.7371]",
            "0.774",
        ),
    ];
    for (q0, v0, mu) in cases {
        let file = variant(
            "sim_box_drop.yaml",
            &[
                ("q0: [0, 0, 0.3, 0, 0.2, 0]", &format!("q0: {q0}\nv0: {v0}")),
                ("friction: 0.8", &format!("friction: {mu}")),
            ],
        );
        let traj = run(&load(&file, None));
        let lift = G * 1e-3;
        for k in 1..traj.energy.len() {
            let rise = traj.energy[k] - traj.energy[k - 1];
            assert!(
                rise <= lift,
                "{q0}: the energy rises by {rise} J at t = {}",
                traj.time[k]
            );
            assert!(
                traj.energy[k] <= traj.energy[0] + lift,
                "{q0}: t = {}",
                traj.time[k]
            );
        }
        let contact = traj.contact.as_ref().unwrap();
        let deepest = contact
            .gaps
            .iter()
            .flatten()
            .fold(f64::INFINITY, |a, &g| a.min(g));
        assert!(deepest >= -1e-6, "{q0}: a corner {deepest} m in the ground");
    }
}

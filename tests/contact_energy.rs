//! The contact model's energy: the ground only takes energy away. A passive ball dropped in an
//! optimization touches down inside a stage and does not bounce, a dropped box lands and rests,
//! the biped walks; in each the ground's positive work is within its tolerance and the energy
//! balance of `transcription::EnergyAccount` closes (the hopper's: `tests/problems.rs`).

mod scratch;

use nalgebra::{DMatrix, DVector};
use vito::dynamics::{Workspace, forward_kinematics, point_jacobian};
use vito::nlp::Status;
use vito::problem::{ProblemOverrides, TrajectoryProblem, load_problem};
use vito::transcription::{EnergyAccount, Outcome, solve};
use vito::vi::Galerkin;

const G: f64 = 9.81;

/// A solid ball of 0.5 kg and radius 0.05 m whose contact sphere is its surface.
const BALL: &str = r#"<robot name="ball">
  <link name="ball">
    <inertial><mass value="0.5"/><inertia ixx="5e-4" ixy="0" ixz="0" iyy="5e-4" iyz="0" izz="5e-4"/></inertial>
    <collision name="surface"><geometry><sphere radius="0.05"/></geometry></collision>
  </link>
</robot>
"#;

fn problem(name: &str, text: &str) -> TrajectoryProblem {
    let dir = scratch::fresh_dir("vito-contact-energy");
    std::fs::write(dir.join("ball.urdf"), BALL).unwrap();
    let robots = concat!(env!("CARGO_MANIFEST_DIR"), "/robots");
    let path = dir.join(format!("{name}.yaml"));
    std::fs::write(&path, text.replace("ROBOTS", robots)).unwrap();
    let mut prob =
        load_problem(&path, &ProblemOverrides::default()).unwrap_or_else(|e| panic!("{e}"));
    prob.solver.print_level = 0;
    prob.solver.progress_bar = false;
    prob
}

/// `problems/biped_walk.yaml`, quietly.
fn walk() -> TrajectoryProblem {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("problems/biped_walk.yaml");
    let mut prob =
        load_problem(&path, &ProblemOverrides::default()).unwrap_or_else(|e| panic!("{e}"));
    prob.solver.print_level = 0;
    prob.solver.progress_bar = false;
    prob
}

/// The walk with the sticking creep of 10⁻³ m/s per weight share its file set until the
/// smoothing's defaults made it unnecessary (problems/README.md, "The biped walk"): the walk
/// the penetration and knot power rows were measured on. Without the creep the walk with the
/// knot rows ends `LineSearchFailure`, and the penetration rows' first-order error reaches
/// 0.05 mm.
fn crept_walk() -> TrajectoryProblem {
    let mut prob = walk();
    prob.contact.as_mut().unwrap().creep = 1e-3;
    prob
}

fn converged(prob: &TrajectoryProblem) -> Outcome {
    let outcome = solve(prob, &mut std::io::sink()).unwrap();
    assert_eq!(
        outcome.result.status,
        Status::Converged,
        "{}: {}",
        prob.name,
        outcome.result.message
    );
    outcome
}

/// The ground's positive work within its tolerance and the balance closed to `residual` J.
fn assert_dissipative(prob: &TrajectoryProblem, e: &EnergyAccount, residual: f64) {
    let s = &prob.solver;
    assert!(
        e.ground_positive_work
            <= s.ground_work_fraction * e.actuator_positive_work + s.ground_work_allowance,
        "{}: {e:?}",
        prob.name
    );
    assert!(e.ground_normal_work <= 0.0, "{}: {e:?}", prob.name);
    assert!(e.residual.abs() <= residual, "{}: {e:?}", prob.name);
}

/// Dropped from 2 cm, the ball meets the ground at t = √(2h/g) = 63.9 ms, 78 % through the stage
/// [60, 65] ms. The force that stops it acts at the node before (62.5 ms, 1.6 mm up, within the
/// terrain's 2 mm reach), and from the stage's end knot on the ball rests: every later node on
/// the ground, no rise, no velocity. The ground took the fall's energy `m g h`.
#[test]
fn a_passive_ball_touches_down_inside_a_stage_and_does_not_bounce() {
    let h = 0.02;
    let prob = problem(
        "ball",
        &format!(
            "name: ball\nrobot: ball.urdf\nbase: planar\nduration: 0.2\nstages: 40\n\
             initial: {{q: [0, {}, 0], v: [0, 0, 0]}}\nterrain: {{friction: 0.5}}\n\
             complementarity: {{method: relaxation}}\n",
            0.05 + h
        ),
    );
    let outcome = converged(&prob);
    let sol = &outcome.solution;
    let contact = sol.contact.as_ref().unwrap();
    let t_touch = (2.0 * h / G).sqrt();
    let first = (0..sol.times.len())
        .find(|&p| contact.gap(p, 0) < 1e-6)
        .expect("the ball lands");
    assert!(
        (sol.times[first] - 0.065).abs() < 1e-9,
        "first on the ground at {} s, touchdown at {t_touch} s",
        sol.times[first]
    );
    assert!(sol.times[first - 2] < t_touch && t_touch < sol.times[first]);
    for p in first..sol.times.len() {
        assert!(
            contact.gap(p, 0) < 1e-5,
            "off the ground at {} s",
            sol.times[p]
        );
        assert!(
            sol.q[p][1] <= sol.q[first][1] + 1e-6,
            "rises at {} s",
            sol.times[p]
        );
    }
    let impact = 0.5 * 0.5 * (G * t_touch).powi(2);
    for p in (first + 2..sol.times.len()).step_by(2) {
        let kinetic = 0.5 * 0.5 * (sol.v[p][0].powi(2) + sol.v[p][1].powi(2));
        assert!(
            kinetic <= 0.01 * impact,
            "{kinetic} J at {} s",
            sol.times[p]
        );
    }
    let e = &outcome.energy;
    assert_dissipative(&prob, e, 1e-3);
    assert!(
        (e.ground_normal_work + 0.5 * G * h).abs() < 0.02 * 0.5 * G * h,
        "the ground takes the fall's m g h: {e:?}"
    );
}

/// The box of `problems/box_touchdown.yaml` dropped tilted and sliding, so that one bottom
/// edge lands before the other, with the default (smoothed) complementarity: it lands, rests,
/// and the ground dissipated.
#[test]
fn a_dropped_box_lands_and_rests() {
    let prob = problem(
        "box",
        "name: box\nrobot: ROBOTS/box.urdf\nbase: planar\nduration: 0.4\nstages: 20\n\
         initial: {q: [0, 0.075, 0.1], v: [0.2, 0, 0]}\nterrain: {friction: 0.6}\n\
         contacts: [front_left_bottom, back_left_bottom]\n",
    );
    let outcome = converged(&prob);
    let last = outcome.solution.v.last().unwrap();
    assert!(
        last.iter().all(|v| v.abs() < 1e-3),
        "still moving: {last:?}"
    );
    assert_dissipative(&prob, &outcome.energy, 1e-3);
}

/// The biped of `problems/biped_walk.yaml`, whose heels and toes touch down and lift off four
/// times over two steps: the ground's positive work within its tolerance, the balance closed
/// to 1 % of the actuators' positive work.
#[test]
fn the_biped_walks_on_a_dissipative_ground() {
    let prob = walk();
    let outcome = converged(&prob);
    let e = &outcome.energy;
    assert_dissipative(&prob, e, 0.01 * e.actuator_positive_work);
}

/// The deepest dip between two points of a VI solution, to first order in the gaps: on every
/// stage the quadratic through its three points' gaps (Simpson's Lagrange interpolant) at the
/// middles of its halves, `τ = ¼` and `¾` (m, positive below the ground).
fn deepest_dip(outcome: &Outcome) -> f64 {
    let contact = outcome.solution.contact.as_ref().unwrap();
    let mut deepest = 0.0_f64;
    for stage in contact.gaps.windows(3).step_by(2) {
        for ((&g0, &gm), &g1) in stage[0].iter().zip(&stage[1]).zip(&stage[2]) {
            let quarter = (3.0 * g0 + 6.0 * gm - g1) / 8.0;
            let three_quarters = (-g0 + 6.0 * gm + 3.0 * g1) / 8.0;
            deepest = deepest.max(-quarter).max(-three_quarters);
        }
    }
    deepest
}

/// `terrain.penetration` bounds the dips between the points: the crept walk dips deeper than
/// 0.25 mm between its points without the rows, and with them at 0.25 mm it stays within that,
/// up to the rows' first-order kinematics (0.02 mm), still walking on a dissipative ground (the
/// balance closed to 2 % of the actuators' positive work: the motion is another, with 10 J of
/// it).
#[test]
fn penetration_rows_bound_the_dips_between_the_points() {
    let mut prob = crept_walk();
    let free = deepest_dip(&converged(&prob));
    let depth = 2.5e-4;
    assert!(free > depth, "the walk without the rows dips only {free} m");
    prob.contact.as_mut().unwrap().penetration = Some(depth);
    let outcome = converged(&prob);
    let held = deepest_dip(&outcome);
    assert!(
        held <= depth + 2e-5,
        "dips {held} m with the rows at {depth} m"
    );
    let e = &outcome.energy;
    assert_dissipative(&prob, e, 0.02 * e.actuator_positive_work);
}

/// The largest power of a contact force at an interior knot of a Simpson VI solution, in W: with
/// the velocity the solution reports there (the discrete Legendre transform's), and with the
/// one the knot power rows see (the same with the mass matrix frozen).
fn largest_knot_powers(prob: &TrajectoryProblem, outcome: &Outcome) -> (f64, f64) {
    let (model, sol) = (&prob.model, &outcome.solution);
    let sites = &prob.contact.as_ref().unwrap().sites;
    let forces = &sol.contact.as_ref().unwrap().forces;
    let (before, after) = Galerkin::simpson().knot_velocity();
    let dt = prob.duration / prob.stages as f64;
    let mut ws = Workspace::new(model);
    let mut jacobian = DMatrix::zeros(3, model.dof());
    let mut largest = (f64::NEG_INFINITY, f64::NEG_INFINITY);
    for p in (2..sol.q.len() - 1).step_by(2) {
        forward_kinematics(model, &mut ws, &sol.q[p]);
        let written = DVector::from_column_slice(&sol.v[p]);
        let frozen = DVector::from_fn(model.dof(), |i, _| {
            (0..3)
                .map(|b| before[b] * sol.q[p - 2 + b][i] + after[b] * sol.q[p + b][i])
                .sum::<f64>()
                / dt
        });
        for (site, force) in sites.iter().zip(&forces[p]) {
            point_jacobian(model, &ws, site.body, &site.offset, &mut jacobian);
            let power = |v: &DVector<f64>| {
                let u = &jacobian * v;
                force.x * u[0] + force.y * u[1] + force.z * u[2]
            };
            largest = (
                largest.0.max(power(&written)),
                largest.1.max(power(&frozen)),
            );
        }
    }
    largest
}

/// `terrain.dissipative_knots` holds the ground's power at the knots: without the rows the
/// crept walk's heels, landed inside the stage before a knot, carry their landing force at the
/// knot while the knot's velocity lifts them (1.25 W), and with them no contact force does more
/// than the rows' smoothing allowance at the last level (0.04 W) with the velocity they see, the
/// frozen-mass one; with the written velocity the largest power falls by a third only (0.86 W:
/// the biped's mass matrix changes within the stages). The walk still converges on a
/// dissipative ground.
#[test]
fn dissipative_knots_hold_the_grounds_power_at_the_knots() {
    let mut prob = crept_walk();
    let (free, _) = largest_knot_powers(&prob, &converged(&prob));
    assert!(
        free > 1.0,
        "the walk's largest power at a knot is only {free} W"
    );
    prob.contact.as_mut().unwrap().dissipative_knots = true;
    let outcome = converged(&prob);
    let (written, frozen) = largest_knot_powers(&prob, &outcome);
    assert!(frozen <= 0.05, "{frozen} W at a knot with the rows");
    assert!(
        written <= 0.75 * free,
        "{written} W at a knot with the rows, {free} W without"
    );
    let e = &outcome.energy;
    assert_dissipative(&prob, e, 0.02 * e.actuator_positive_work);
}

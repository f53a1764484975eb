//! The humanoid ball pick of seed 000 §6.3 with the Simpson VI, on vito's Atlas-class humanoid
//! (`problems/humanoid_ball_pick.yaml`) and on PAL Robotics' Talos
//! (`problems/talos_ball_pick.yaml`): it converges, the hand reaches the ball at the last point, the stance sole's wrench stays
//! inside its contact wrench cone (the 16 faces evaluated on every reported wrench), the centre
//! of pressure inside the sole, the sole where it was, the left foot off the ground and every
//! limit held, and the torques re-simulated reproduce each stage. Both together take about 13 s
//! in the test profile; the timings are in `docs/benchmarks.md` (`vito solve`).

use std::path::Path;
use vito::dynamics::{Workspace, forward_kinematics, frame_pose};
use vito::nlp::Status;
use vito::problem::{ProblemOverrides, load_problem};
use vito::transcription::{RESIMULATION_STEP, dynamic_accuracy, solve};
use vito::vi::Galerkin;

/// One ball pick: the problem, the hand's frame, the ball and the lifted foot's contact points
/// (held 5 cm above the ground).
struct Pick {
    problem: &'static str,
    hand: &'static str,
    ball: [f64; 3],
    lifted: [&'static str; 4],
}

#[test]
fn the_humanoid_picks_the_ball_balanced_on_its_right_foot() {
    picks_the_ball(&Pick {
        problem: "humanoid_ball_pick",
        hand: "l_palm",
        ball: [0.35, 0.30, 0.50],
        lifted: [
            "l_foot_front_left",
            "l_foot_front_right",
            "l_foot_rear_left",
            "l_foot_rear_right",
        ],
    });
}

#[test]
fn talos_picks_the_ball_balanced_on_its_right_foot() {
    picks_the_ball(&Pick {
        problem: "talos_ball_pick",
        hand: "gripper_left_base_link",
        ball: [0.35, 0.3, 0.6],
        lifted: [
            "l_sole_front_left",
            "l_sole_front_right",
            "l_sole_rear_left",
            "l_sole_rear_right",
        ],
    });
}

fn picks_the_ball(pick: &Pick) {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("problems")
        .join(format!("{}.yaml", pick.problem));
    let mut prob = load_problem(&file, &ProblemOverrides::default()).unwrap();
    prob.solver.print_level = 0;
    prob.solver.progress_bar = false;
    let outcome = solve(&prob, &mut std::io::sink()).unwrap();
    assert_eq!(
        outcome.result.status,
        Status::Converged,
        "{}",
        outcome.result.message
    );
    let sol = &outcome.solution;
    let model = &prob.model;
    let mut ws = Workspace::new(model);
    // The hand on the ball at the last point.
    let hand = model.frame(pick.hand).unwrap();
    let last = sol.times.len() - 1;
    assert!((sol.times[last] - prob.duration).abs() < 1e-12);
    forward_kinematics(model, &mut ws, &sol.q[last]);
    let p = frame_pose(&ws, hand.body, &hand.placement).translation;
    let miss = (p - nalgebra::Vector3::from(pick.ball)).norm();
    assert!(miss < 1e-3, "the hand is {miss:e} m from the ball");
    // The stance conditions, from the reported wrenches and configurations.
    let st = sol.stance.as_ref().unwrap();
    let r = st.residuals();
    assert!(
        r.largest_cone_violation <= 1e-6,
        "cone {:e}",
        r.largest_cone_violation
    );
    assert!(
        r.smallest_cop_margin >= 0.0,
        "CoP margin {:e}",
        r.smallest_cop_margin
    );
    assert!(r.largest_position_drift <= 1e-6 && r.largest_orientation_drift <= 1e-6);
    let foot = &st.feet[0];
    for (p, w) in foot.wrench.iter().enumerate() {
        let faces = prob.stances[0].cone.faces() * w;
        assert!(
            faces.max() <= 1e-6 * foot.force_unit,
            "point {p}: {}",
            faces.max()
        );
    }
    // At rest at both ends.
    for v in [&sol.v[0], &sol.v[last]] {
        assert!(v.iter().all(|x| x.abs() < 1e-6), "{v:?}");
    }
    // The left foot off the ground and the limits of the URDF at every point.
    let corners: Vec<_> = pick
        .lifted
        .iter()
        .map(|c| {
            model
                .contact_points()
                .iter()
                .find(|p| p.name == *c)
                .unwrap()
        })
        .collect();
    let tol = 1e-6;
    for (p, q) in sol.q.iter().enumerate() {
        forward_kinematics(model, &mut ws, q);
        for c in &corners {
            let z = ws.body_pose(c.body).transform_point(&c.offset).z;
            assert!(z >= 0.05 - tol, "point {p}: {} at z = {z}", c.name);
        }
        for (i, x) in q.iter().enumerate() {
            let l = &model.joint(i).limits;
            assert!(
                l.lower - tol <= *x && *x <= l.upper + tol,
                "point {p}: q_{i} = {x}"
            );
        }
        for (c, &i) in model.actuated_joints().iter().enumerate() {
            let e = model.joint(i).limits.effort;
            assert!(
                sol.u[p][c].abs() <= e + tol,
                "point {p}: u_{i} = {}",
                sol.u[p][c]
            );
        }
    }
    // Speeds as the transcription bounds them: the slope of each stage's Lagrange interpolant
    // through its control points, `Σ_β b^{αβ} q^{k,β} / Δt`, at every control point.
    let gal = Galerkin::new(2).unwrap();
    let dt = prob.duration / prob.stages as f64;
    for k in 0..prob.stages {
        for al in 0..=2 {
            for i in 0..model.dof() {
                let v: f64 = (0..=2)
                    .map(|be| gal.b(al, be) * sol.q[2 * k + be][i])
                    .sum::<f64>()
                    / dt;
                let s = model.joint(i).limits.velocity;
                assert!(v.abs() <= s + tol, "stage {k}, node {al}: v_{i} = {v}");
            }
        }
    }
    // The torques and the wrench describe the motion: each stage re-simulated from its first
    // knot by RK4 with the foot held ends near the next knot. The ball pick's costs without
    // the speed term made every joint move in the last stage and missed it by 1.8 rad.
    let acc = dynamic_accuracy(model, sol, RESIMULATION_STEP);
    assert!(
        acc.local_q_error < 0.1,
        "one-stage error {:e} rad (joint {} in stage {})",
        acc.local_q_error,
        model.joint(acc.local_q_coordinate).name,
        acc.local_q_stage
    );
}

//! Forward dynamics with frames held fixed (`dynamics::held_forward_dynamics`): the frame's bias
//! acceleration against finite differences, the solution against inverse dynamics (RNEA) and
//! the constraint, a statically balanced humanoid that stays at rest under its balance torques
//! with the balance's wrench, and RK4 that keeps a held sole where it was.

use std::path::Path;
use vito::dynamics::{
    HeldFrame, HeldWorkspace, Workspace, forward_kinematics, forward_velocities,
    frame_bias_acceleration, frame_jacobian, frame_pose, held_forward_dynamics, inverse_dynamics,
    simulate_rk4_held,
};
use vito::model::{BaseKind, Model, load_urdf};
use vito::problem::{ProblemOverrides, load_problem};
use vito::transcription::balance;

fn humanoid() -> Model {
    load_urdf(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("robots/humanoid.urdf"),
        BaseKind::Floating,
    )
    .unwrap()
}

fn sole(model: &Model) -> HeldFrame {
    let f = model.frame("r_sole").unwrap();
    HeldFrame {
        body: f.body,
        placement: f.placement,
    }
}

/// A fixed pseudo-random state.
fn state(n: usize, seed: f64) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let wave = |k: usize, s: f64| ((k as f64 + 1.0) * s).sin();
    let mut q: Vec<f64> = (0..n).map(|k| 0.3 * wave(k, seed)).collect();
    q[2] = 0.9;
    let v = (0..n).map(|k| 0.8 * wave(k, seed + 0.37)).collect();
    let tau = (0..n).map(|k| 20.0 * wave(k, seed + 1.1)).collect();
    (q, v, tau)
}

#[test]
fn bias_acceleration_is_the_rate_of_the_frame_twist_at_zero_acceleration() {
    let model = humanoid();
    let n = model.dof();
    let frame = sole(&model);
    let mut ws = Workspace::new(&model);
    let mut jac = nalgebra::DMatrix::zeros(6, n);
    for seed in [0.7, 1.9] {
        let (q, v, _) = state(n, seed);
        forward_kinematics(&model, &mut ws, &q);
        forward_velocities(&model, &mut ws, &v);
        let exact = frame_bias_acceleration(&model, &ws, &frame, &v);
        // d/dt (J(q) q̇) along q̇ with q̈ = 0, by central differences in time.
        let eps = 1e-6;
        let twist = |sign: f64, ws: &mut Workspace, jac: &mut nalgebra::DMatrix<f64>| {
            let qs: Vec<f64> = q.iter().zip(&v).map(|(a, b)| a + sign * eps * b).collect();
            forward_kinematics(&model, ws, &qs);
            frame_jacobian(&model, ws, frame.body, &frame.placement, jac);
            &*jac * nalgebra::DVector::from_column_slice(&v)
        };
        let fd = (twist(1.0, &mut ws, &mut jac) - twist(-1.0, &mut ws, &mut jac)) / (2.0 * eps);
        let err = (nalgebra::DVector::from_column_slice(exact.as_slice()) - &fd).norm();
        assert!(
            err < 1e-6 * fd.norm().max(1.0),
            "J̇q̇ error {err:e} of {}",
            fd.norm()
        );
    }
}

#[test]
fn held_accelerations_satisfy_inverse_dynamics_and_the_constraint() {
    let model = humanoid();
    let n = model.dof();
    let frame = sole(&model);
    let mut ws = Workspace::new(&model);
    let mut hw = HeldWorkspace::new(&model, 1);
    let (q, v, tau) = state(n, 0.4);
    let mut qdd = vec![0.0; n];
    assert!(held_forward_dynamics(
        &model,
        &mut ws,
        &mut hw,
        &[frame],
        &q,
        &v,
        &tau,
        &mut qdd
    ));
    // M q̈ + b − τ = Jᵀ λ, by RNEA.
    let mut id = vec![0.0; n];
    inverse_dynamics(&model, &mut ws, &q, &v, &qdd, &mut id);
    let mut jac = nalgebra::DMatrix::zeros(6, n);
    forward_kinematics(&model, &mut ws, &q);
    frame_jacobian(&model, &ws, frame.body, &frame.placement, &mut jac);
    let force = jac.transpose() * &hw.wrenches;
    let scale = id.iter().fold(1.0f64, |m, x| m.max(x.abs()));
    for i in 0..n {
        assert!(
            (id[i] - tau[i] - force[i]).abs() < 1e-8 * scale,
            "joint {i}"
        );
    }
    // J q̈ + J̇ q̇ = 0.
    forward_velocities(&model, &mut ws, &v);
    let c = frame_bias_acceleration(&model, &ws, &frame, &v);
    let a = &jac * nalgebra::DVector::from_column_slice(&qdd);
    for d in 0..6 {
        assert!((a[d] + c[d]).abs() < 1e-8 * scale, "row {d}");
    }
}

#[test]
fn a_balanced_humanoid_stays_at_rest_with_the_balance_wrench() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("problems/humanoid_balance.yaml");
    let mut prob = load_problem(&file, &ProblemOverrides::default()).unwrap();
    prob.solver.print_level = 0;
    let bal = balance(&prob, &mut std::io::sink()).unwrap();
    let model = &prob.model;
    let n = model.dof();
    let mut tau = vec![0.0; n];
    for (c, &i) in model.actuated_joints().iter().enumerate() {
        tau[i] = bal.u[c];
    }
    let frame = sole(model);
    let mut ws = Workspace::new(model);
    let mut hw = HeldWorkspace::new(model, 1);
    let mut qdd = vec![0.0; n];
    let zero = vec![0.0; n];
    assert!(held_forward_dynamics(
        model,
        &mut ws,
        &mut hw,
        &[frame],
        &bal.q,
        &zero,
        &tau,
        &mut qdd
    ));
    let worst = qdd.iter().fold(0.0f64, |m, a| m.max(a.abs()));
    assert!(worst < 1e-6, "q̈ = {worst:e} at the balance");
    // The constraint wrench at r_sole's origin equals the balance's wrench moved there.
    let foot = &bal.stance.as_ref().unwrap().feet[0];
    let (f, tau_o, o) = foot.world_wrench(0);
    forward_kinematics(model, &mut ws, &bal.q);
    let origin = frame_pose(&ws, frame.body, &frame.placement).translation;
    let tau_origin = tau_o + (o - origin).cross(&f);
    for d in 0..3 {
        assert!((hw.wrenches[3 + d] - f[d]).abs() < 1e-6, "force {d}");
        assert!((hw.wrenches[d] - tau_origin[d]).abs() < 1e-6, "torque {d}");
    }
}

#[test]
fn rk4_keeps_a_held_sole_in_place() {
    let model = humanoid();
    let n = model.dof();
    let frame = sole(&model);
    let (q0, _, _) = state(n, 1.3);
    let v0 = vec![0.0; n];
    // Falls about the held foot under gravity and small torques.
    let mut controls = |t: f64, u: &mut [f64]| {
        for (c, x) in u.iter_mut().enumerate() {
            *x = 3.0 * ((c as f64 + 1.0) * (t + 0.2)).sin();
        }
    };
    let run = simulate_rk4_held(
        &model,
        &q0,
        &v0,
        &mut controls,
        &mut |_, _, _| {},
        &[frame],
        1e-3,
        200,
        50,
    );
    let mut ws = Workspace::new(&model);
    forward_kinematics(&model, &mut ws, &q0);
    let start = frame_pose(&ws, frame.body, &frame.placement);
    let (_, q, _) = run.last().unwrap();
    forward_kinematics(&model, &mut ws, q);
    let end = frame_pose(&ws, frame.body, &frame.placement);
    let moved: f64 = q
        .iter()
        .zip(&q0)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    assert!(moved > 1e-2, "the robot moved {moved}");
    let drift = (end.translation - start.translation).norm();
    assert!(drift < 1e-9, "the sole moved {drift:e} m");
    assert!((end.rotation - start.rotation).norm() < 1e-9);
}

//! Physical invariants of simulations with the variational integrator, and the constrained
//! Newton direction against a dense solve.

mod fixtures;

use fixtures::{rng, uniform};
use nalgebra::{DMatrix, DVector};
use vito::dynamics::{Workspace, forward_kinematics, forward_velocities, point_jacobian};
use vito::model::{BaseKind, Model, PendulumSpec, load_urdf, parse_urdf, pendulum_urdf};
use vito::spatial::{Vec3, Vec6};
use vito::vi::simulate::{SimulationOptions, Trajectory, simulate};
use vito::vi::{
    ConstraintWorkspace, Galerkin, PointConstraint, PointLoad, Stage, StageJacobian,
    StageWorkspace, constrained_newton_direction, linearize,
};

fn robot(name: &str, base: BaseKind) -> Model {
    load_urdf(
        format!("{}/robots/{name}.urdf", env!("CARGO_MANIFEST_DIR")),
        base,
    )
    .unwrap()
}

fn no_torque(_: f64, u: &mut [f64]) {
    u.fill(0.0);
}

/// A run of `steps` steps of `dt` with the Simpson VI and no torques, which must not stop.
fn unforced_simpson(model: &Model, q0: &[f64], v0: &[f64], dt: f64, steps: usize) -> Trajectory {
    let opts = SimulationOptions {
        dt,
        steps,
        ..SimulationOptions::default()
    };
    let sim = simulate(
        model,
        &Galerkin::simpson(),
        q0,
        v0,
        &mut no_torque,
        &[],
        &opts,
    );
    assert!(sim.failure.is_none(), "dt {dt}: {:?}", sim.failure);
    sim.trajectory
}

#[test]
fn energy_of_the_conservative_12_link_pendulum_stays_bounded() {
    let model = robot("pendulum12", BaseKind::Fixed);
    let mut r = rng(5);
    let q0 = uniform(&mut r, 12, std::f64::consts::PI / 12.0);
    let v0 = vec![0.0; 12];
    let trajectory = unforced_simpson(&model, &q0, &v0, 0.005, 10_000);
    let e = &trajectory.energy;
    assert_eq!(e.len(), 10_001);
    // No secular drift: the mean energy error of every tenth of the run stays within the
    // oscillation amplitude of the first tenth, and that amplitude is small.
    let chunks: Vec<&[f64]> = e.chunks(1000).collect();
    let amplitude = chunks[0]
        .iter()
        .map(|x| (x - e[0]).abs())
        .fold(0.0, f64::max);
    for (c, chunk) in chunks.iter().enumerate() {
        let mean = chunk.iter().map(|x| x - e[0]).sum::<f64>() / chunk.len() as f64;
        assert!(
            mean.abs() <= amplitude,
            "tenth {c}: mean error {mean:e} vs amplitude {amplitude:e}"
        );
    }
    let worst = e.iter().map(|x| (x - e[0]).abs()).fold(0.0, f64::max);
    assert!(
        worst / e[0].abs() < 1e-5,
        "largest relative energy error {:e}",
        worst / e[0].abs()
    );
}

/// A 128-link chain at `Δt = 0.01 s` (the seed's pendulum, 1 kg 0.5 m rods, at rest from
/// angles within ±15°): at t = 1.19 s the stage's DEL Jacobian grows singular along Newton's
/// path and no damped Newton step reaches a root (without the split the run stops there).
/// The step is split in halves; the run goes on through it, keeps every knot of the grid,
/// conserves energy, and follows the run at `Δt/4` (which needs no split).
#[test]
fn a_step_newton_cannot_solve_is_split_and_the_chain_runs_on() {
    let spec = PendulumSpec {
        links: 128,
        ..PendulumSpec::default()
    };
    let model = parse_urdf(
        &pendulum_urdf(&spec).unwrap(),
        "pendulum128",
        BaseKind::Fixed,
    )
    .unwrap();
    let q0 = uniform(&mut rng(0), 128, std::f64::consts::PI / 12.0);
    let v0 = vec![0.0; 128];
    let dt = 0.01;
    let coarse = unforced_simpson(&model, &q0, &v0, dt, 125);
    let fine = unforced_simpson(&model, &q0, &v0, dt / 4.0, 500);
    assert_eq!(fine.time.len(), 501, "the fine run needs no split");
    // Some steps were split, each into halves of halves, and every grid knot was reached.
    assert!(coarse.time.len() > 126, "no step was split");
    for w in coarse.time.windows(2) {
        let halvings = (dt / (w[1] - w[0])).log2();
        assert!(
            (halvings - halvings.round()).abs() < 1e-6 && (0.0..=4.0).contains(&halvings.round()),
            "a step of {} s between {} and {}",
            w[1] - w[0],
            w[0],
            w[1]
        );
    }
    let mut grid = 0;
    for (k, t) in coarse.time.iter().enumerate() {
        if (t / dt - (t / dt).round()).abs() < 1e-9 {
            let i = (t / dt).round() as usize;
            assert_eq!(i, grid, "grid knot {grid} missing");
            grid += 1;
            // The motion of the run at Δt/4 (max over the 128 angles; 0.027 rad measured).
            let gap = coarse.q[k]
                .iter()
                .zip(&fine.q[4 * i])
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max);
            assert!(gap < 0.05, "t = {t}: {gap} rad from the run at dt/4");
        }
    }
    assert_eq!(grid, 126);
    let e0 = coarse.energy[0];
    let worst = coarse
        .energy
        .iter()
        .map(|e| (e - e0).abs())
        .fold(0.0, f64::max);
    assert!(
        worst / e0.abs() < 1e-5,
        "relative energy error {:e}",
        worst / e0.abs()
    );
}

/// World-frame spatial momentum `Σ M̄_i v̄_i` of the whole robot.
fn spatial_momentum(model: &Model, ws: &mut Workspace, q: &[f64], v: &[f64]) -> Vec6 {
    forward_kinematics(model, ws, q);
    forward_velocities(model, ws, v);
    (0..model.dof())
        .map(|i| ws.body_inertia(i) * ws.body_velocity(i))
        .sum()
}

#[test]
fn momentum_of_a_free_floating_robot_is_conserved_without_gravity() {
    for (name, base) in [
        ("quadruped", BaseKind::Floating),
        ("humanoid", BaseKind::Floating),
        ("planar_biped", BaseKind::Planar),
    ] {
        let model = robot(name, base).with_gravity(Vec3::zeros());
        let n = model.dof();
        let mut r = rng(9);
        let mut q0 = uniform(&mut r, n, 0.3);
        let v0 = uniform(&mut r, n, 1.0);
        q0[0] = 0.0;
        let opts = SimulationOptions {
            dt: 0.01,
            steps: 200,
            tolerance: 1e-14,
            ..SimulationOptions::default()
        };
        let sim = simulate(
            &model,
            &Galerkin::simpson(),
            &q0,
            &v0,
            &mut no_torque,
            &[],
            &opts,
        );
        assert!(sim.failure.is_none(), "{name}: {:?}", sim.failure);
        let t = &sim.trajectory;
        let mut ws = Workspace::new(&model);
        let h0 = spatial_momentum(&model, &mut ws, &t.q[0], &t.v[0]);
        let mut worst_linear: f64 = 0.0;
        let mut worst_vertical: f64 = 0.0;
        for k in 0..t.q.len() {
            let h = spatial_momentum(&model, &mut ws, &t.q[k], &t.v[k]);
            let d = h - h0;
            worst_linear = worst_linear.max(d.fixed_rows::<3>(3).norm());
            // The base translations and (3-D) the yaw act linearly on the coordinates, so the
            // discrete Noether theorem conserves linear momentum and the angular momentum about
            // the vertical exactly; for the planar base the pitch axis is the symmetry instead.
            let axis = if base == BaseKind::Planar { 1 } else { 2 };
            worst_vertical = worst_vertical.max(d[axis].abs());
        }
        let scale = h0.norm().max(1.0);
        assert!(
            worst_linear / scale < 1e-10,
            "{name}: linear momentum drift {worst_linear:e}"
        );
        // Once a floating base comes within `chart_margin` of its coordinates' gimbal lock the
        // simulation continues in a chart whose yaw axis is the body's vertical at that knot,
        // not the world's: a rotation about the vertical is then no coordinate shift, and its
        // momentum is conserved to the integrator's accuracy only.
        let charted = t.q.iter().any(|q| {
            model
                .base_lock_distance(q)
                .is_some_and(|d| d < opts.chart_margin)
        });
        let bound = if charted { 1e-8 } else { 1e-10 };
        assert!(
            worst_vertical / scale < bound,
            "{name}: angular momentum drift {worst_vertical:e}"
        );
    }
}

#[test]
fn pinned_double_pendulum_tip_stays_on_its_line_and_conserves_energy() {
    // The tip of a 3-link pendulum slides on the vertical line x = x_tip(0): a closed chain.
    let model = robot("pendulum3", BaseKind::Fixed);
    let tip = model.frame("tip").unwrap().clone();
    let q0 = vec![0.6, -1.0, 0.5];
    let mut ws = Workspace::new(&model);
    forward_kinematics(&model, &mut ws, &q0);
    let p0 = ws
        .body_pose(tip.body)
        .transform_point(&tip.placement.translation);
    let con = PointConstraint {
        a: PointLoad {
            body: tip.body,
            offset: tip.placement.translation,
        },
        b: None,
        direction: Vec3::x(),
        target: p0.x,
    };
    // A velocity consistent with the constraint: null space of the tip's x row.
    let mut jp = DMatrix::zeros(3, 3);
    point_jacobian(&model, &ws, tip.body, &tip.placement.translation, &mut jp);
    let row = jp.row(0);
    let v0 = vec![row[1], -row[0], 0.0];
    let opts = SimulationOptions {
        dt: 0.005,
        steps: 400,
        ..SimulationOptions::default()
    };
    let sim = simulate(
        &model,
        &Galerkin::simpson(),
        &q0,
        &v0,
        &mut no_torque,
        &[con],
        &opts,
    );
    assert!(sim.failure.is_none(), "{:?}", sim.failure);
    for q in &sim.trajectory.q {
        forward_kinematics(&model, &mut ws, q);
        let p = ws
            .body_pose(tip.body)
            .transform_point(&tip.placement.translation);
        assert!(
            (p.x - p0.x).abs() < 1e-9,
            "constraint violated by {:e}",
            p.x - p0.x
        );
    }
    let e = &sim.trajectory.energy;
    let drift = e.iter().map(|x| (x - e[0]).abs()).fold(0.0, f64::max);
    assert!(drift < 1e-3 * e[0].abs().max(1.0), "energy drift {drift:e}");
}

#[test]
fn constrained_newton_direction_equals_the_dense_kkt_solve() {
    for (name, base, s) in [
        ("pendulum12", BaseKind::Fixed, 2),
        ("quadruped", BaseKind::Floating, 2),
        ("humanoid", BaseKind::Floating, 3),
    ] {
        let model = robot(name, base);
        let gal = Galerkin::new(s).unwrap();
        let n = model.dof();
        let mut r = rng(77);
        let q0 = uniform(&mut r, n, 0.5);
        let v = uniform(&mut r, n, 1.0);
        let dt = 0.02;
        let mut q = Vec::new();
        for &tau in gal.nodes() {
            for i in 0..n {
                q.push(q0[i] + tau * dt * v[i] + 1e-3 * (i as f64).sin());
            }
        }
        // Two constraints: the last body pinned along x and z to where it is, the middle body
        // tied to the last one along y.
        let last = PointLoad {
            body: n - 1,
            offset: Vec3::new(0.0, 0.0, -0.1),
        };
        let mid = PointLoad {
            body: n / 2,
            offset: Vec3::new(0.05, 0.0, 0.0),
        };
        // A planar chain cannot move along y: tie the bodies along a direction in its plane.
        let tie = if base == BaseKind::Fixed {
            Vec3::new(1.0, 0.0, 1.0).normalize()
        } else {
            Vec3::y()
        };
        let cons = [
            PointConstraint {
                a: last,
                b: None,
                direction: Vec3::x(),
                target: 0.1,
            },
            PointConstraint {
                a: last,
                b: None,
                direction: Vec3::z(),
                target: -0.3,
            },
            PointConstraint {
                a: mid,
                b: Some(last),
                direction: tie,
                target: 0.05,
            },
        ];
        let mc = cons.len();
        let lambda = uniform(&mut r, s * mc, 3.0);
        let p = uniform(&mut r, n, 1.0);
        let u = vec![0.0; (s + 1) * model.actuated_joints().len()];
        let stage = Stage {
            dt,
            p: &p,
            q: &q,
            u: &u,
            loads: &[],
            forces: &[],
        };
        let mut ws = StageWorkspace::new(&model, &gal);
        let mut cws = ConstraintWorkspace::new(&model, &gal, &cons);
        let (mut dq, mut dl) = (vec![0.0; s * n], vec![0.0; s * mc]);
        constrained_newton_direction(
            &model, &gal, &mut ws, &mut cws, &stage, &lambda, &mut dq, &mut dl,
        )
        .unwrap();
        // Dense KKT from the exact linearization with the constraint loads.
        let loads = cws.loads().to_vec();
        let forces = cws.forces().to_vec();
        let st = Stage {
            loads: &loads,
            forces: &forces,
            ..stage
        };
        let mut jac = StageJacobian::new(&model, &gal, loads.len());
        linearize(&model, &gal, &mut ws, &st, &mut jac);
        let rows = s * n;
        let size = s * n + s * mc;
        let mut kkt = DMatrix::zeros(size, size);
        let mut rhs = DVector::zeros(size);
        kkt.view_mut((0, 0), (rows, rows))
            .copy_from(&jac.dq.view((0, n), (rows, rows)));
        for i in 0..rows {
            rhs[i] = -jac.value[i];
        }
        // ∂r/∂λ through the load forces ±λ e.
        let nl = loads.len();
        let mut load_of = Vec::new();
        for c in &cons {
            load_of.push(c.b.is_some());
        }
        for al in 0..s {
            let mut li = 0;
            for (c, con) in cons.iter().enumerate() {
                let col = rows + al * mc + c;
                for d in 0..3 {
                    let e = con.direction[d];
                    for i in 0..rows {
                        let mut v = jac.dforce[(i, (al * nl + li) * 3 + d)] * e;
                        if load_of[c] {
                            v -= jac.dforce[(i, (al * nl + li + 1) * 3 + d)] * e;
                        }
                        kkt[(i, col)] += v;
                    }
                }
                li += if load_of[c] { 2 } else { 1 };
            }
        }
        // h(q^γ) and its gradient from the reference point Jacobians.
        let mut dws = Workspace::new(&model);
        let mut jp = DMatrix::zeros(3, n);
        for ga in 1..=s {
            let qg = &q[ga * n..(ga + 1) * n];
            forward_kinematics(&model, &mut dws, qg);
            for (c, con) in cons.iter().enumerate() {
                let row = rows + (ga - 1) * mc + c;
                let pa = dws.body_pose(con.a.body).transform_point(&con.a.offset);
                point_jacobian(&model, &dws, con.a.body, &con.a.offset, &mut jp);
                let mut grad = jp.transpose() * con.direction;
                let mut h = con.direction.dot(&pa) - con.target;
                if let Some(b) = con.b {
                    let pb = dws.body_pose(b.body).transform_point(&b.offset);
                    point_jacobian(&model, &dws, b.body, &b.offset, &mut jp);
                    grad -= jp.transpose() * con.direction;
                    h -= con.direction.dot(&pb);
                }
                for j in 0..n {
                    kkt[(row, (ga - 1) * n + j)] = grad[j];
                }
                rhs[row] = -h;
            }
        }
        let sol = kkt.lu().solve(&rhs).unwrap();
        let dq_dense = sol.rows(0, rows);
        let dl_dense = sol.rows(rows, s * mc);
        let eq = (DVector::from_vec(dq) - dq_dense).norm() / dq_dense.norm();
        let el = (DVector::from_vec(dl) - dl_dense).norm() / dl_dense.norm();
        assert!(eq < 1e-8 && el < 1e-8, "{name}: δq {eq:e}, δλ {el:e}");
    }
}

/// A box tumbling without gravity about an axis that takes its x axis through the vertical:
/// its floating base's yaw–pitch–roll coordinates pass the gimbal lock (pitch = ±π/2), where
/// the simulator continues in a chart centred on the body. Energy and the spatial momentum,
/// both chart-independent, stay conserved to the integrator's accuracy. In the model's own
/// chart throughout, the simulation stopped at the lock (a failed line search at step 21).
#[test]
fn box_tumbling_through_the_gimbal_lock_conserves_energy_and_momentum() {
    let model = robot("box", BaseKind::Floating).with_gravity(Vec3::zeros());
    let q0 = [0.0, 0.0, 0.0, 0.0, 0.3, 0.0];
    let v0 = [0.1, 0.0, 0.2, 0.1, 6.0, 0.05];
    let opts = SimulationOptions {
        dt: 0.01,
        steps: 200,
        tolerance: 1e-14,
        ..SimulationOptions::default()
    };
    let sim = simulate(
        &model,
        &Galerkin::simpson(),
        &q0,
        &v0,
        &mut no_torque,
        &[],
        &opts,
    );
    assert!(sim.failure.is_none(), "{:?}", sim.failure);
    let t = &sim.trajectory;
    let closest =
        t.q.iter()
            .map(|q| model.base_lock_distance(q).unwrap())
            .fold(f64::INFINITY, f64::min);
    assert!(
        closest < 0.05,
        "the box came only {closest} rad near the lock"
    );
    let e0 = t.energy[0];
    let drift = t.energy.iter().fold(0.0f64, |a, e| a.max((e - e0).abs()));
    assert!(drift < 1e-6 * e0, "energy drift {drift:e} of {e0}");
    let mut ws = Workspace::new(&model);
    let h0 = spatial_momentum(&model, &mut ws, &t.q[0], &t.v[0]);
    let worst =
        t.q.iter()
            .zip(&t.v)
            .map(|(q, v)| (spatial_momentum(&model, &mut ws, q, v) - h0).norm())
            .fold(0.0f64, f64::max);
    assert!(
        worst < 1e-6 * h0.norm(),
        "momentum drift {worst:e} of {}",
        h0.norm()
    );
}

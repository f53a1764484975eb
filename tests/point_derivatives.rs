//! Derivatives of point kinematics against central differences: the stiffness of a world
//! point load `∂(Jᵀf)/∂q` and the configuration derivative of a point's velocity `∂(J v)/∂q`,
//! on every shipped robot and on random trees with every base.

mod fixtures;

use fixtures::{random_tree, rng, shipped_robots, uniform};
use nalgebra::{DMatrix, DVector};
use vito::dynamics::{
    Workspace, forward_kinematics, point_force_derivative, point_jacobian,
    point_velocity_derivative,
};
use vito::model::{BaseKind, Model};
use vito::spatial::Vec3;

fn robots() -> Vec<(String, Model)> {
    let mut out = shipped_robots();
    for (seed, base) in [
        (3, BaseKind::Fixed),
        (4, BaseKind::Planar),
        (5, BaseKind::Floating),
    ] {
        out.push((format!("random tree {seed}"), random_tree(seed, 7, base)));
    }
    out
}

#[test]
fn point_load_stiffness_and_velocity_derivative_match_finite_differences() {
    let h = 1e-6;
    for (name, model) in robots() {
        let n = model.dof();
        let mut ws = Workspace::new(&model);
        let mut r = rng(11);
        let (mut jp, mut jm) = (DMatrix::zeros(3, n), DMatrix::zeros(3, n));
        let mut stiffness = DMatrix::zeros(n, n);
        let mut dvel = DMatrix::zeros(3, n);
        for trial in 0..3 {
            let q = uniform(&mut r, n, 1.0);
            let v = uniform(&mut r, n, 1.5);
            let body = (trial * 7 + 3) % n;
            let offset = Vec3::from_column_slice(&uniform(&mut r, 3, 0.3));
            let force = Vec3::from_column_slice(&uniform(&mut r, 3, 5.0));
            forward_kinematics(&model, &mut ws, &q);
            point_force_derivative(&model, &ws, body, &offset, &force, &mut stiffness);
            point_velocity_derivative(&model, &ws, body, &offset, &v, &mut dvel);
            assert!(
                (&stiffness - stiffness.transpose()).norm() < 1e-12,
                "{name}: stiffness not symmetric"
            );
            let vv = DVector::from_column_slice(&v);
            let f = DVector::from_column_slice(force.as_slice());
            for k in 0..n {
                let mut qp = q.clone();
                qp[k] += h;
                forward_kinematics(&model, &mut ws, &qp);
                point_jacobian(&model, &ws, body, &offset, &mut jp);
                let mut qm = q.clone();
                qm[k] -= h;
                forward_kinematics(&model, &mut ws, &qm);
                point_jacobian(&model, &ws, body, &offset, &mut jm);
                let dtau = (jp.transpose() * &f - jm.transpose() * &f) / (2.0 * h);
                let dv = (&jp * &vv - &jm * &vv) / (2.0 * h);
                let scale = 1.0 + stiffness.abs().max() + dvel.abs().max();
                for i in 0..n {
                    assert!(
                        (dtau[i] - stiffness[(i, k)]).abs() < 1e-6 * scale,
                        "{name}: ∂(Jᵀf)_{i}/∂q_{k}: {} vs {}",
                        dtau[i],
                        stiffness[(i, k)]
                    );
                }
                for i in 0..3 {
                    assert!(
                        (dv[i] - dvel[(i, k)]).abs() < 1e-6 * scale,
                        "{name}: ∂(Jv)_{i}/∂q_{k}: {} vs {}",
                        dv[i],
                        dvel[(i, k)]
                    );
                }
            }
        }
    }
}

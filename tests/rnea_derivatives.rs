//! Analytic derivatives of inverse dynamics against central differences, closed forms and
//! identities of Lagrangian mechanics, on random trees (every base) and the shipped robots.

mod fixtures;

use fixtures::{State, double_pendulum, random_tree, rel_err, shipped_robots, states};
use nalgebra::{DMatrix, DVector};
use vito::dynamics::{
    InverseDynamicsDerivatives, Workspace, bias_forces, inverse_dynamics,
    inverse_dynamics_derivatives, inverse_dynamics_gradient, mass_matrix,
};
use vito::model::{BaseKind, Model};

fn models() -> Vec<(String, Model)> {
    let mut out = Vec::new();
    for (seed, n) in [(21, 5), (22, 10), (23, 16)] {
        for base in [BaseKind::Fixed, BaseKind::Planar, BaseKind::Floating] {
            out.push((format!("random{seed} ({base})"), random_tree(seed, n, base)));
        }
    }
    out.extend(shipped_robots());
    out
}

/// `‖A − B‖_F / max(1, ‖B‖_F)`.
fn frob_rel(a: &DMatrix<f64>, b: &DMatrix<f64>) -> f64 {
    (a - b).norm() / b.norm().max(1.0)
}

/// Central differences of `τ = RNEA(q, q̇, q̈)` along each coordinate of `q` (`wrt_v = false`)
/// or of `q̇` (`wrt_v = true`).
fn rnea_central_differences(model: &Model, s: &State, wrt_v: bool) -> DMatrix<f64> {
    let n = model.dof();
    let mut ws = Workspace::new(model);
    let (mut tp, mut tm) = (vec![0.0; n], vec![0.0; n]);
    let h = 1e-6;
    let mut out = DMatrix::zeros(n, n);
    for j in 0..n {
        let (mut q, mut v) = (s.q.clone(), s.v.clone());
        let x = if wrt_v { &mut v } else { &mut q };
        x[j] += h;
        inverse_dynamics(model, &mut ws, &q, &v, &s.a, &mut tp);
        let x = if wrt_v { &mut v } else { &mut q };
        x[j] -= 2.0 * h;
        inverse_dynamics(model, &mut ws, &q, &v, &s.a, &mut tm);
        for i in 0..n {
            out[(i, j)] = (tp[i] - tm[i]) / (2.0 * h);
        }
    }
    out
}

#[test]
fn derivatives_match_central_differences() {
    let mut worst: f64 = 0.0;
    for (name, m) in models() {
        let n = m.dof();
        let mut ws = Workspace::new(&m);
        let mut d = InverseDynamicsDerivatives::new(&m);
        for s in states(n, 31, 3) {
            inverse_dynamics_derivatives(&m, &mut ws, &s.q, &s.v, &s.a, &mut d);
            let eq = frob_rel(&d.dtau_dq, &rnea_central_differences(&m, &s, false));
            let ev = frob_rel(&d.dtau_dv, &rnea_central_differences(&m, &s, true));
            worst = worst.max(eq).max(ev);
            assert!(eq < 1e-7, "{name}: ∂τ/∂q relative error {eq:e}");
            assert!(ev < 1e-7, "{name}: ∂τ/∂q̇ relative error {ev:e}");
        }
    }
    println!("largest relative error against central differences: {worst:.2e}");
}

#[test]
fn torques_and_mass_matrix_equal_the_reference_algorithms() {
    for (name, m) in models() {
        let n = m.dof();
        let mut ws = Workspace::new(&m);
        let mut d = InverseDynamicsDerivatives::new(&m);
        let mut tau = vec![0.0; n];
        let mut mm = DMatrix::zeros(n, n);
        for s in states(n, 32, 3) {
            inverse_dynamics_derivatives(&m, &mut ws, &s.q, &s.v, &s.a, &mut d);
            inverse_dynamics(&m, &mut ws, &s.q, &s.v, &s.a, &mut tau);
            mass_matrix(&m, &mut ws, &s.q, &mut mm);
            assert!(rel_err(&d.tau, &tau) < 1e-12, "{name}: τ");
            assert!(frob_rel(&d.dtau_da, &mm) < 1e-12, "{name}: M");
        }
    }
}

#[test]
fn entries_vanish_between_branches() {
    for (name, m) in models() {
        let n = m.dof();
        let mut ws = Workspace::new(&m);
        let mut d = InverseDynamicsDerivatives::new(&m);
        let s = &states(n, 33, 3)[0];
        inverse_dynamics_derivatives(&m, &mut ws, &s.q, &s.v, &s.a, &mut d);
        for i in 0..n {
            for j in 0..n {
                if !m.is_ancestor_or_self(i, j) && !m.is_ancestor_or_self(j, i) {
                    let e = [d.dtau_dq[(i, j)], d.dtau_dv[(i, j)], d.dtau_da[(i, j)]];
                    assert!(e == [0.0; 3], "{name}: ({i}, {j}) = {e:?}");
                }
            }
        }
    }
}

#[test]
fn velocity_derivative_identities() {
    // τ = M q̈ + C(q, q̇) q̇ + g with C(q, q̇) q̇ = Γ(q̇, q̇) quadratic in q̇, Γ the Christoffel
    // symbols of M, so (i) ∂τ/∂q̇ = 0 at q̇ = 0; (ii) Euler: (∂τ/∂q̇) q̇ = 2 (bias(q, q̇) − g(q));
    // (iii) ∂τ/∂q̇ + (∂τ/∂q̇)ᵀ = 2 Ṁ = 2 Σ_k ∂M/∂q_k q̇_k.
    for (name, m) in models() {
        let n = m.dof();
        let mut ws = Workspace::new(&m);
        let mut d = InverseDynamicsDerivatives::new(&m);
        let (mut bias, mut grav) = (vec![0.0; n], vec![0.0; n]);
        let (mut mp, mut mm) = (DMatrix::zeros(n, n), DMatrix::zeros(n, n));
        for s in states(n, 34, 3) {
            let zero = vec![0.0; n];
            inverse_dynamics_derivatives(&m, &mut ws, &s.q, &zero, &s.a, &mut d);
            assert!(d.dtau_dv.amax() == 0.0, "{name}: ∂τ/∂q̇ at rest");

            inverse_dynamics_derivatives(&m, &mut ws, &s.q, &s.v, &s.a, &mut d);
            bias_forces(&m, &mut ws, &s.q, &s.v, &mut bias);
            bias_forces(&m, &mut ws, &s.q, &zero, &mut grav);
            let lhs = &d.dtau_dv * DVector::from_column_slice(&s.v);
            let rhs: Vec<f64> = (0..n).map(|i| 2.0 * (bias[i] - grav[i])).collect();
            let e = rel_err(lhs.as_slice(), &rhs);
            assert!(e < 1e-11, "{name}: Euler identity, relative error {e:e}");

            let h = 1e-6;
            let shifted =
                |sign: f64| -> Vec<f64> { (0..n).map(|i| s.q[i] + sign * h * s.v[i]).collect() };
            mass_matrix(&m, &mut ws, &shifted(1.0), &mut mp);
            mass_matrix(&m, &mut ws, &shifted(-1.0), &mut mm);
            let m_dot = (&mp - &mm) / (2.0 * h);
            let sym = &d.dtau_dv + d.dtau_dv.transpose();
            let e = frob_rel(&sym, &(2.0 * m_dot));
            assert!(
                e < 1e-7,
                "{name}: symmetric part is Ṁ, relative error {e:e}"
            );
        }
    }
}

#[test]
fn position_derivative_at_rest_is_the_symmetric_gravity_hessian() {
    // At q̇ = q̈ = 0, τ = g(q) = ∂V/∂q, so ∂τ/∂q = ∂²V/∂q² is symmetric.
    for (name, m) in models() {
        let n = m.dof();
        let mut ws = Workspace::new(&m);
        let mut d = InverseDynamicsDerivatives::new(&m);
        let zero = vec![0.0; n];
        for s in states(n, 35, 3) {
            inverse_dynamics_derivatives(&m, &mut ws, &s.q, &zero, &zero, &mut d);
            let asym = (&d.dtau_dq - d.dtau_dq.transpose()).amax();
            assert!(
                asym < 1e-12 * d.dtau_dq.amax().max(1.0),
                "{name}: asymmetry {asym:e}"
            );
        }
    }
}

#[test]
fn double_pendulum_closed_form() {
    let (mass, len) = (1.3, 0.7);
    let m = double_pendulum(mass, len);
    let mut ws = Workspace::new(&m);
    let mut d = InverseDynamicsDerivatives::new(&m);
    let g = 9.81;
    let lc = len / 2.0;
    // τ1 = m11 q̈1 + m12 q̈2 + b1, τ2 = m12 q̈1 + m22 q̈2 + b2 with
    // m11 = … + 2 m L lc cos q2, m12 = … + m L lc cos q2, h = m L lc sin q2,
    // b1 = −h (2 q̇1 q̇2 + q̇2²) + m g lc s1 + m g (L s1 + lc s12), b2 = h q̇1² + m g lc s12.
    for s in states(2, 36, 3) {
        let (t1, t2) = (s.q[0], s.q[1]);
        let (d1, d2) = (s.v[0], s.v[1]);
        let (a1, a2) = (s.a[0], s.a[1]);
        let (s2, c2) = t2.sin_cos();
        let (c1, c12) = (t1.cos(), (t1 + t2).cos());
        let k = mass * len * lc;
        let h = k * s2;
        let dq = DMatrix::from_row_slice(
            2,
            2,
            &[
                mass * g * lc * c1 + mass * g * (len * c1 + lc * c12),
                -2.0 * k * s2 * a1 - k * s2 * a2 - k * c2 * (2.0 * d1 * d2 + d2 * d2)
                    + mass * g * lc * c12,
                mass * g * lc * c12,
                -k * s2 * a1 + k * c2 * d1 * d1 + mass * g * lc * c12,
            ],
        );
        let dv = DMatrix::from_row_slice(
            2,
            2,
            &[-2.0 * h * d2, -2.0 * h * (d1 + d2), 2.0 * h * d1, 0.0],
        );
        inverse_dynamics_derivatives(&m, &mut ws, &s.q, &s.v, &s.a, &mut d);
        assert!((&d.dtau_dq - &dq).amax() < 1e-12, "{} vs {dq}", d.dtau_dq);
        assert!((&d.dtau_dv - &dv).amax() < 1e-12, "{} vs {dv}", d.dtau_dv);
    }
}

#[test]
fn gradient_of_lambda_tau_is_the_transposed_derivatives() {
    for (name, model) in models() {
        let n = model.dof();
        let mut ws = Workspace::new(&model);
        let mut der = InverseDynamicsDerivatives::new(&model);
        let mut g = vec![0.0; 3 * n];
        for (k, st) in states(n, 91, 3).iter().enumerate() {
            let lambda: Vec<f64> = (0..n).map(|i| ((i + 3 * k) as f64 * 0.9).sin()).collect();
            inverse_dynamics_gradient(&model, &mut ws, &st.q, &st.v, &st.a, &lambda, &mut g);
            inverse_dynamics_derivatives(&model, &mut ws, &st.q, &st.v, &st.a, &mut der);
            let l = DVector::from_column_slice(&lambda);
            let mut want = Vec::with_capacity(3 * n);
            for m in [&der.dtau_dq, &der.dtau_dv, &der.dtau_da] {
                want.extend((m.transpose() * &l).iter());
            }
            let (got, want) = (DVector::from_vec(g.clone()), DVector::from_vec(want));
            let e = (&got - &want).norm() / want.norm().max(1.0);
            assert!(e < 1e-12, "{name}: ∇(λᵀτ) relative error {e:e}");
        }
    }
}

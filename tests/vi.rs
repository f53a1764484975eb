//! The variational integrator's stage algorithms against independent routes: finite differences
//! of the discrete Lagrangian (Algorithm 1), dense solves with finite-difference Jacobians
//! (Algorithms I.1/I.2), central finite differences (Algorithms 2, 3 and the chain rule), and
//! for the gradient and Hessian of `λᵀr` the transposed linearization, central differences of
//! the gradient and central differences of `λᵀJ` (the route the analytic Hessian replaced).

mod fixtures;

use fixtures::{random_tree, rng, uniform};
use nalgebra::{DMatrix, DVector};
use rand::RngExt;
use vito::dynamics::{
    Workspace, bias_forces, forward_kinematics, generalized_momentum, kinetic_energy,
    point_jacobian, potential_energy,
};
use vito::model::{BaseKind, Model, load_urdf};
use vito::spatial::Vec3;
use vito::vi::{
    Galerkin, LagrangianCurvature, PointLoad, PointWorkspace, Stage, StageGradient, StageJacobian,
    StageWorkspace, del_gradient, del_hessian, del_residual, lagrangian_curvature, linearize,
    newton_direction,
};

/// A stage with plausible control points, momentum, torques and two point loads.
struct StageData {
    dt: f64,
    p: Vec<f64>,
    q: Vec<f64>,
    u: Vec<f64>,
    loads: Vec<PointLoad>,
    forces: Vec<f64>,
}

impl StageData {
    fn random(model: &Model, gal: &Galerkin, seed: u64) -> Self {
        let mut r = rng(seed);
        let (n, m) = (model.dof(), gal.s() + 1);
        let dt = 0.05;
        let q0 = uniform(&mut r, n, 1.0);
        let v = uniform(&mut r, n, 2.0);
        let mut q = Vec::with_capacity(m * n);
        for &tau in gal.nodes() {
            for i in 0..n {
                q.push(q0[i] + tau * dt * v[i] + 0.01 * r.random_range(-1.0..1.0));
            }
        }
        let n_u = model.actuated_joints().len();
        let loads: Vec<PointLoad> = [n - 1, n / 2]
            .iter()
            .map(|&b| PointLoad {
                body: b,
                offset: Vec3::new(0.05, -0.1, 0.2),
            })
            .collect();
        Self {
            dt,
            p: uniform(&mut r, n, 1.0),
            q,
            u: uniform(&mut r, m * n_u, 5.0),
            forces: uniform(&mut r, m * loads.len() * 3, 10.0),
            loads,
        }
    }

    fn stage(&self) -> Stage<'_> {
        Stage {
            dt: self.dt,
            p: &self.p,
            q: &self.q,
            u: &self.u,
            loads: &self.loads,
            forces: &self.forces,
        }
    }
}

fn models_all_bases() -> Vec<(String, Model)> {
    let mut out = Vec::new();
    for (seed, joints) in [(21, 5), (22, 11)] {
        for base in [BaseKind::Fixed, BaseKind::Planar, BaseKind::Floating] {
            out.push((
                format!("random{seed} ({base})"),
                random_tree(seed, joints, base),
            ));
        }
    }
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/robots");
    for robot in ["pendulum3", "planar_biped", "quadruped", "humanoid", "arm7"] {
        for base in [BaseKind::Fixed, BaseKind::Planar, BaseKind::Floating] {
            let m = load_urdf(format!("{dir}/{robot}.urdf"), base).unwrap();
            out.push((format!("{robot} ({base})"), m));
        }
    }
    out
}

fn frob_rel(a: &DMatrix<f64>, b: &DMatrix<f64>) -> f64 {
    (a - b).norm() / b.norm().max(1e-300)
}

/// `D_{α+1} L_d` by central differences of `L_d = Σ_β w^β Δt (K − V)(q^β, q̇^β)`.
fn discrete_lagrangian_gradient(model: &Model, gal: &Galerkin, d: &StageData) -> Vec<f64> {
    let (n, m) = (model.dof(), gal.s() + 1);
    let mut ws = Workspace::new(model);
    let mut ld = |q: &[f64]| -> f64 {
        let mut total = 0.0;
        for be in 0..m {
            let qb = &q[be * n..(be + 1) * n];
            let qd: Vec<f64> = (0..n)
                .map(|i| (0..m).map(|g| gal.b(be, g) * q[g * n + i]).sum::<f64>() / d.dt)
                .collect();
            let l = kinetic_energy(model, &mut ws, qb, &qd) - potential_energy(model, &mut ws, qb);
            total += gal.w(be) * d.dt * l;
        }
        total
    };
    let h = 1e-6;
    let mut grad = vec![0.0; m * n];
    for (k, g) in grad.iter_mut().enumerate() {
        let mut qp = d.q.clone();
        let mut qm = d.q.clone();
        qp[k] += h;
        qm[k] -= h;
        *g = (ld(&qp) - ld(&qm)) / (2.0 * h);
    }
    grad
}

#[test]
fn del_residual_equals_discrete_lagrangian_derivatives_plus_forces() {
    for (name, model) in models_all_bases() {
        for s in [1, 2, 3] {
            let gal = Galerkin::new(s).unwrap();
            let d = StageData::random(&model, &gal, 31 + s as u64);
            let (n, m) = (model.dof(), s + 1);
            let mut ws = StageWorkspace::new(&model, &gal);
            let mut r = vec![0.0; s * n];
            let mut p_next = vec![0.0; n];
            del_residual(&model, &gal, &mut ws, &d.stage(), &mut r, &mut p_next);
            // Independent route: D L_d by finite differences plus F_d = w Δt (u + passive + Jᵀf).
            let grad = discrete_lagrangian_gradient(&model, &gal, &d);
            let mut dyn_ws = Workspace::new(&model);
            let act = model.actuated_joints();
            let mut jp = DMatrix::zeros(3, n);
            let mut expected = vec![0.0; m * n];
            for al in 0..m {
                let qa = &d.q[al * n..(al + 1) * n];
                let wdt = gal.w(al) * d.dt;
                forward_kinematics(&model, &mut dyn_ws, qa);
                let mut generalized = vec![0.0; n];
                for (c, &i) in act.iter().enumerate() {
                    generalized[i] += d.u[al * act.len() + c];
                }
                for i in 0..n {
                    let qd = (0..m).map(|g| gal.b(al, g) * d.q[g * n + i]).sum::<f64>() / d.dt;
                    generalized[i] += model.passive_force(i, qa[i], qd);
                }
                for (l, load) in d.loads.iter().enumerate() {
                    point_jacobian(&model, &dyn_ws, load.body, &load.offset, &mut jp);
                    let f0 = (al * d.loads.len() + l) * 3;
                    let f = DVector::from_column_slice(&d.forces[f0..f0 + 3]);
                    let q = jp.transpose() * f;
                    for i in 0..n {
                        generalized[i] += q[i];
                    }
                }
                for i in 0..n {
                    expected[al * n + i] = grad[al * n + i] + wdt * generalized[i];
                    if al == 0 {
                        expected[i] += d.p[i];
                    }
                }
            }
            let mut got = r.clone();
            got.extend_from_slice(&p_next);
            let err = DVector::from_vec(got.clone()) - DVector::from_vec(expected.clone());
            let scale = DVector::from_vec(expected).norm().max(1.0);
            assert!(
                err.norm() / scale < 1e-7,
                "{name} s={s}: {:e}",
                err.norm() / scale
            );
        }
    }
}

/// The stage outputs as a function of all control points, for finite differences.
fn outputs(
    model: &Model,
    gal: &Galerkin,
    ws: &mut StageWorkspace,
    d: &StageData,
    q: &[f64],
    u: &[f64],
    f: &[f64],
) -> DVector<f64> {
    let n = model.dof();
    let s = gal.s();
    let mut r = vec![0.0; s * n];
    let mut pn = vec![0.0; n];
    let stage = Stage {
        q,
        u,
        forces: f,
        ..d.stage()
    };
    del_residual(model, gal, ws, &stage, &mut r, &mut pn);
    r.extend_from_slice(&pn);
    DVector::from_vec(r)
}

fn fd_columns(
    len: usize,
    h: f64,
    mut eval: impl FnMut(usize, f64) -> DVector<f64>,
) -> DMatrix<f64> {
    let cols: Vec<DVector<f64>> = (0..len)
        .map(|k| (eval(k, h) - eval(k, -h)) / (2.0 * h))
        .collect();
    DMatrix::from_columns(&cols)
}

#[test]
fn linearization_matches_central_differences() {
    for (name, model) in models_all_bases() {
        for s in [1, 2, 3] {
            let gal = Galerkin::new(s).unwrap();
            let d = StageData::random(&model, &gal, 41 + s as u64);
            let mut ws = StageWorkspace::new(&model, &gal);
            let mut jac = StageJacobian::new(&model, &gal, d.loads.len());
            linearize(&model, &gal, &mut ws, &d.stage(), &mut jac);
            let base = outputs(&model, &gal, &mut ws, &d, &d.q, &d.u, &d.forces);
            assert!(
                (&jac.value - &base).amax() < 1e-12 * base.amax().max(1.0),
                "{name}"
            );
            let h = 1e-6;
            let fq = fd_columns(d.q.len(), h, |k, e| {
                let mut q = d.q.clone();
                q[k] += e;
                outputs(&model, &gal, &mut ws, &d, &q, &d.u, &d.forces)
            });
            let e = frob_rel(&jac.dq, &fq);
            assert!(e < 1e-6, "{name} s={s}: ∂/∂q relative error {e:e}");
            if !d.u.is_empty() {
                let fu = fd_columns(d.u.len(), h, |k, e| {
                    let mut u = d.u.clone();
                    u[k] += e;
                    outputs(&model, &gal, &mut ws, &d, &d.q, &u, &d.forces)
                });
                let e = frob_rel(&jac.du, &fu);
                assert!(e < 1e-6, "{name} s={s}: ∂/∂u relative error {e:e}");
            }
            let ff = fd_columns(d.forces.len(), h, |k, e| {
                let mut f = d.forces.clone();
                f[k] += e;
                outputs(&model, &gal, &mut ws, &d, &d.q, &d.u, &f)
            });
            let e = frob_rel(&jac.dforce, &ff);
            assert!(e < 1e-6, "{name} s={s}: ∂/∂f relative error {e:e}");
        }
    }
}

#[test]
fn newton_direction_equals_dense_solves() {
    for (name, model) in models_all_bases() {
        // A free-based pendulum repeats its first joint in `base_pitch` (same axis, same point,
        // massless root link): its mass matrix, and so the DEL Jacobian, is singular.
        if name.starts_with("pendulum") && !name.contains("fixed") {
            continue;
        }
        for s in [1, 2, 3] {
            let gal = Galerkin::new(s).unwrap();
            let d = StageData::random(&model, &gal, 51 + s as u64);
            let n = model.dof();
            let mut ws = StageWorkspace::new(&model, &gal);
            let mut dq = vec![0.0; s * n];
            newton_direction(&model, &gal, &mut ws, &d.stage(), &mut dq).unwrap();
            // Residual r^{0..s−1} and its Jacobian with respect to q^{1..=s}.
            let r = outputs(&model, &gal, &mut ws, &d, &d.q, &d.u, &d.forces)
                .rows(0, s * n)
                .into_owned();
            let unknown = |k: usize| n + k;
            // Fourth-order central differences: truncation O(h⁴) ≈ 1e-12 at h = 1e-3.
            let h = 1e-3;
            let mut at = |k: usize, e: f64| {
                let mut q = d.q.clone();
                q[unknown(k)] += e;
                outputs(&model, &gal, &mut ws, &d, &q, &d.u, &d.forces)
                    .rows(0, s * n)
                    .into_owned()
            };
            let cols: Vec<DVector<f64>> = (0..s * n)
                .map(|k| {
                    (8.0 * (at(k, h) - at(k, -h)) - (at(k, 2.0 * h) - at(k, -2.0 * h))) / (12.0 * h)
                })
                .collect();
            let fd = DMatrix::from_columns(&cols);
            let dense_fd = fd.lu().solve(&(-&r)).expect("FD Jacobian invertible");
            let mut jac = StageJacobian::new(&model, &gal, d.loads.len());
            linearize(&model, &gal, &mut ws, &d.stage(), &mut jac);
            let exact = jac.dq.view((0, n), (s * n, s * n)).into_owned();
            let dense = exact.lu().solve(&(-&r)).expect("Jacobian invertible");
            let got = DVector::from_vec(dq);
            let e_exact = (&got - &dense).norm() / dense.norm();
            let e_fd = (&got - &dense_fd).norm() / dense_fd.norm();
            assert!(
                e_exact < 1e-8,
                "{name} s={s}: vs exact Jacobian {e_exact:e}"
            );
            assert!(
                e_fd < 1e-6,
                "{name} s={s}: vs finite-difference Jacobian {e_fd:e}"
            );
        }
    }
}

/// Multipliers of the `s + 1` stage outputs.
fn multipliers(n: usize, m: usize, seed: u64) -> Vec<f64> {
    uniform(&mut rng(seed), m * n, 1.0)
}

#[test]
fn del_gradient_is_the_transposed_linearization() {
    for (name, model) in models_all_bases() {
        for s in [1, 2, 3] {
            let gal = Galerkin::new(s).unwrap();
            let d = StageData::random(&model, &gal, 61 + s as u64);
            let (n, m) = (model.dof(), s + 1);
            let lambda = multipliers(n, m, 62);
            let mut ws = StageWorkspace::new(&model, &gal);
            let mut g = StageGradient::new(&model, &gal, d.loads.len());
            del_gradient(&model, &gal, &mut ws, &d.stage(), &lambda, &mut g);
            let mut jac = StageJacobian::new(&model, &gal, d.loads.len());
            linearize(&model, &gal, &mut ws, &d.stage(), &mut jac);
            let l = DVector::from_column_slice(&lambda);
            let want_q = jac.dq.transpose() * &l;
            let want_f = jac.dforce.transpose() * &l;
            let eq = (DVector::from_column_slice(&g.dq) - &want_q).norm() / want_q.norm();
            let ef = (DVector::from_column_slice(&g.dforce) - &want_f).norm() / want_f.norm();
            assert!(eq < 1e-11, "{name} s={s}: ∂(λᵀr)/∂q relative error {eq:e}");
            assert!(ef < 1e-12, "{name} s={s}: ∂(λᵀr)/∂f relative error {ef:e}");
        }
    }
}

#[test]
fn del_hessian_is_the_jacobian_of_the_gradient_and_of_lambda_j() {
    for (name, model) in models_all_bases() {
        for s in [1, 2, 3] {
            let gal = Galerkin::new(s).unwrap();
            let d = StageData::random(&model, &gal, 71 + s as u64);
            let (n, m) = (model.dof(), s + 1);
            let lambda = multipliers(n, m, 72);
            let mut ws = StageWorkspace::new(&model, &gal);
            let mut hess = DMatrix::zeros(m * n, m * n);
            del_hessian(&model, &gal, &mut ws, &d.stage(), &lambda, &mut hess);
            assert!(
                (&hess - hess.transpose()).amax() < 1e-12 * hess.amax(),
                "{name} s={s}: not symmetric"
            );
            let h = 1e-6;
            let mut g = StageGradient::new(&model, &gal, d.loads.len());
            let by_gradient = fd_columns(d.q.len(), h, |k, e| {
                let mut q = d.q.clone();
                q[k] += e;
                let st = Stage { q: &q, ..d.stage() };
                del_gradient(&model, &gal, &mut ws, &st, &lambda, &mut g);
                DVector::from_column_slice(&g.dq)
            });
            let e = frob_rel(&hess, &by_gradient);
            assert!(
                e < 1e-6,
                "{name} s={s}: vs differences of the gradient {e:e}"
            );
            let mut jac = StageJacobian::new(&model, &gal, d.loads.len());
            let l = DVector::from_column_slice(&lambda);
            let by_linearization = fd_columns(d.q.len(), h, |k, e| {
                let mut q = d.q.clone();
                q[k] += e;
                let st = Stage { q: &q, ..d.stage() };
                linearize(&model, &gal, &mut ws, &st, &mut jac);
                jac.dq.transpose() * &l
            });
            let e = frob_rel(&hess, &by_linearization);
            assert!(e < 1e-6, "{name} s={s}: vs differences of λᵀJ {e:e}");
        }
    }
}

/// `[[qq, qv], [qvᵀ, vv]]`.
fn curvature_matrix(c: &LagrangianCurvature) -> DMatrix<f64> {
    let n = c.qq.nrows();
    let mut h = DMatrix::zeros(2 * n, 2 * n);
    h.view_mut((0, 0), (n, n)).copy_from(&c.qq);
    h.view_mut((0, n), (n, n)).copy_from(&c.qv);
    h.view_mut((n, 0), (n, n)).copy_from(&c.qv.transpose());
    h.view_mut((n, n), (n, n)).copy_from(&c.vv);
    h
}

#[test]
fn lagrangian_curvature_matches_differences_of_the_dynamics() {
    for (name, model) in models_all_bases() {
        let n = model.dof();
        let mut r = rng(81);
        let (q, qd, lambda) = (
            uniform(&mut r, n, 1.0),
            uniform(&mut r, n, 2.0),
            uniform(&mut r, n, 1.0),
        );
        let zeros = vec![0.0; n];
        let mut pw = PointWorkspace::new(&model);
        let mut c = LagrangianCurvature::new(&model);
        let mut dws = Workspace::new(&model);
        let (mut p, mut dp) = (vec![0.0; n], DMatrix::zeros(n, n));
        // λᵀ M(q) q̇: its gradient is ((∂(M q̇)/∂q)ᵀ λ, M λ) (generalized_momentum).
        lagrangian_curvature(&model, &mut pw, &q, &qd, &zeros, &lambda, &mut c);
        let h = 1e-6;
        let l = DVector::from_column_slice(&lambda);
        let fd = fd_columns(2 * n, h, |k, e| {
            let (mut qq, mut vv) = (q.clone(), qd.clone());
            if k < n {
                qq[k] += e;
            } else {
                vv[k - n] += e;
            }
            generalized_momentum(&model, &mut dws, &qq, &vv, &mut p, &mut dp);
            let gq = dp.transpose() * &l;
            generalized_momentum(&model, &mut dws, &qq, &lambda, &mut p, &mut dp);
            let mut g = gq.as_slice().to_vec();
            g.extend_from_slice(&p);
            DVector::from_vec(g)
        });
        let e = frob_rel(&curvature_matrix(&c), &fd);
        assert!(e < 1e-7, "{name}: ∇²(λᵀM q̇) relative error {e:e}");
        // λ·∂L/∂q = λ·((∂(M q̇)/∂q) q̇ − bias(q, q̇)), by second differences.
        if n > 12 {
            continue;
        }
        lagrangian_curvature(&model, &mut pw, &q, &qd, &lambda, &zeros, &mut c);
        let mut bias = vec![0.0; n];
        let mut phi = |x: &[f64]| -> f64 {
            let (qq, vv) = x.split_at(n);
            generalized_momentum(&model, &mut dws, qq, vv, &mut p, &mut dp);
            bias_forces(&model, &mut dws, qq, vv, &mut bias);
            let dl = &dp * DVector::from_column_slice(vv) - DVector::from_column_slice(&bias);
            dl.dot(&l)
        };
        let mut x: Vec<f64> = q.clone();
        x.extend_from_slice(&qd);
        let h = 1e-4;
        let mut fd = DMatrix::zeros(2 * n, 2 * n);
        for a in 0..2 * n {
            for b in 0..2 * n {
                let mut at = |da: f64, db: f64| {
                    let mut y = x.clone();
                    y[a] += da;
                    y[b] += db;
                    phi(&y)
                };
                fd[(a, b)] = (at(h, h) - at(h, -h) - at(-h, h) + at(-h, -h)) / (4.0 * h * h);
            }
        }
        let e = frob_rel(&curvature_matrix(&c), &fd);
        assert!(e < 1e-6, "{name}: ∇²(λ·∂L/∂q) relative error {e:e}");
    }
}

//! The Hermite–Simpson collocation baseline: sizes against seed 000's Table 1, the exact sparse
//! Jacobian against central differences, residuals against the reference dynamics, exactness
//! on cubic trajectories, and the convergence order of the defects on a true pendulum motion.

mod fixtures;

use fixtures::{random_tree, rel_err, rng, uniform};
use nalgebra::DMatrix;
use std::collections::HashSet;
use vito::collocation::{CollocationError, HermiteSimpson, HermiteSimpsonLayout, Var};
use vito::dynamics::{Workspace, forward_dynamics, inverse_dynamics};
use vito::model::{BaseKind, Model, load_urdf};

fn robot(stem: &str, base: BaseKind) -> Model {
    let path = format!("{}/robots/{stem}.urdf", env!("CARGO_MANIFEST_DIR"));
    load_urdf(&path, base).unwrap_or_else(|e| panic!("{e}"))
}

/// A random decision vector of `len` entries (q, v, a and u scaled alike).
fn random_x(len: usize, seed: u64) -> Vec<f64> {
    uniform(&mut rng(seed), len, 1.5)
}

/// The Jacobian assembled from the structure and values, dense.
fn dense_jacobian(hs: &mut HermiteSimpson, model: &Model, x: &[f64]) -> DMatrix<f64> {
    let mut values = vec![0.0; hs.nnz()];
    hs.jacobian_values(model, x, &mut values);
    let mut j = DMatrix::zeros(hs.num_rows(), x.len());
    for (&(r, c), v) in hs.jacobian_structure().iter().zip(&values) {
        j[(r, c)] += v;
    }
    j
}

/// Central differences of the residuals along every entry of `x`.
fn central_differences(hs: &mut HermiteSimpson, model: &Model, x: &[f64]) -> DMatrix<f64> {
    let m = hs.num_rows();
    let (mut rp, mut rm) = (vec![0.0; m], vec![0.0; m]);
    let mut out = DMatrix::zeros(m, x.len());
    let mut xs = x.to_vec();
    let h = 1e-6;
    for c in 0..x.len() {
        xs[c] = x[c] + h;
        hs.residuals(model, &xs, &mut rp);
        xs[c] = x[c] - h;
        hs.residuals(model, &xs, &mut rm);
        xs[c] = x[c];
        for r in 0..m {
            out[(r, c)] = (rp[r] - rm[r]) / (2.0 * h);
        }
    }
    out
}

#[test]
fn sizes_match_table_1_and_the_pattern_is_well_formed() {
    for (name, m) in [
        ("arm7", robot("arm7", BaseKind::Fixed)),
        ("pendulum2", robot("pendulum2", BaseKind::Fixed)),
        ("planar_biped", robot("planar_biped", BaseKind::Planar)),
        ("humanoid", robot("humanoid", BaseKind::Floating)),
    ] {
        let (n, n_u) = (m.dof(), m.actuated_joints().len());
        for big_n in 1..=4 {
            let offset = 3;
            let hs = HermiteSimpson::new(&m, big_n, 1.2)
                .unwrap()
                .with_offset(offset);
            assert_eq!(hs.num_rows(), (6 * big_n + 1) * n, "{name}");
            assert_eq!(
                hs.num_variables(),
                (2 * big_n + 1) * (3 * n + n_u),
                "{name}"
            );
            if n_u == n {
                assert_eq!(hs.num_variables(), (8 * big_n + 4) * n, "{name}");
            }
            let layout = hs.layout();
            assert_eq!(
                layout,
                HermiteSimpsonLayout::new(n, n_u, big_n).with_offset(offset)
            );
            assert_eq!(layout.end(), offset + hs.num_variables());
            let s = hs.jacobian_structure();
            assert_eq!(s.len(), hs.nnz(), "{name}");
            let unique: HashSet<_> = s.iter().collect();
            assert_eq!(unique.len(), s.len(), "{name}: duplicate entries");
            let rows: HashSet<_> = s.iter().map(|e| e.0).collect();
            assert_eq!(rows.len(), hs.num_rows(), "{name}: an empty row");
            assert!(
                s.iter().all(|&(_, c)| c >= offset && c < layout.end()),
                "{name}"
            );
            // Per-point runs first: point p's entries touch only its rows and columns.
            for p in 0..layout.points() {
                let run = &s[p * hs.point_nnz()..(p + 1) * hs.point_nnz()];
                let cols = layout.start(p, Var::Q)..layout.start(p, Var::Q) + layout.point_len();
                assert!(run.iter().all(|&(r, c)| r / n == p && cols.contains(&c)));
            }
        }
    }
    // Tree sparsity: the inverse-dynamics blocks keep only joint pairs on one path to the root.
    let humanoid = robot("humanoid", BaseKind::Floating);
    let (n, n_u) = (humanoid.dof(), humanoid.actuated_joints().len());
    let pairs = (HermiteSimpson::new(&humanoid, 1, 1.0).unwrap().point_nnz() - n_u) / 3;
    println!(
        "humanoid: {pairs} of {} joint pairs on one path to the root",
        n * n
    );
    assert!(pairs < n * n);
}

#[test]
fn invalid_inputs_are_errors() {
    let m = robot("pendulum2", BaseKind::Fixed);
    assert_eq!(
        HermiteSimpson::new(&m, 0, 1.0).err(),
        Some(CollocationError::NoIntervals)
    );
    for t in [0.0, -1.0, f64::INFINITY] {
        assert_eq!(
            HermiteSimpson::new(&m, 3, t).err(),
            Some(CollocationError::InvalidDuration(t))
        );
    }
    assert!(matches!(
        HermiteSimpson::new(&m, 3, f64::NAN),
        Err(CollocationError::InvalidDuration(_))
    ));
}

#[test]
fn jacobian_matches_central_differences() {
    let tree = random_tree(7, 6, BaseKind::Floating);
    assert!(
        tree.joints()
            .iter()
            .any(|j| j.spring.is_some() && j.damping > 0.0),
        "the random tree should carry a spring and a damper"
    );
    for (name, m, big_n, offset) in [
        (
            "pendulum2, N = 3",
            robot("pendulum2", BaseKind::Fixed),
            3,
            0,
        ),
        ("random tree (floating, springs), N = 2", tree, 2, 4),
        (
            "planar biped, N = 2",
            robot("planar_biped", BaseKind::Planar),
            2,
            1,
        ),
    ] {
        let mut hs = HermiteSimpson::new(&m, big_n, 0.7)
            .unwrap()
            .with_offset(offset);
        let x = random_x(hs.layout().end() + 2, 40 + big_n as u64);
        let analytic = dense_jacobian(&mut hs, &m, &x);
        let fd = central_differences(&mut hs, &m, &x);
        let err = (&analytic - &fd).norm() / fd.norm().max(1.0);
        let worst = (&analytic - &fd).amax();
        println!("{name}: relative error {err:.2e}, largest entry error {worst:.2e}");
        assert!(err < 1e-6, "{name}: relative error {err:e}");
    }
}

#[test]
fn residuals_match_the_reference_dynamics() {
    let m = robot("planar_biped", BaseKind::Planar);
    let (n, big_n, duration) = (m.dof(), 3, 0.9);
    let mut hs = HermiteSimpson::new(&m, big_n, duration)
        .unwrap()
        .with_offset(2);
    let l = hs.layout();
    let x = random_x(l.end(), 50);
    let mut r = vec![0.0; hs.num_rows()];
    hs.residuals(&m, &x, &mut r);

    let mut ws = Workspace::new(&m);
    let (mut tau, mut passive) = (vec![0.0; n], vec![0.0; n]);
    for p in 0..l.points() {
        let (q, v, a) = (
            l.slice(&x, p, Var::Q),
            l.slice(&x, p, Var::V),
            l.slice(&x, p, Var::A),
        );
        inverse_dynamics(&m, &mut ws, q, v, a, &mut tau);
        m.passive_forces(q, v, &mut passive);
        for (c, &i) in m.actuated_joints().iter().enumerate() {
            tau[i] -= x[l.index(p, Var::U, c)];
        }
        let expected: Vec<f64> = (0..n).map(|i| tau[i] - passive[i]).collect();
        assert!(
            rel_err(&r[p * n..(p + 1) * n], &expected) < 1e-13,
            "point {p}"
        );
    }
    let h = duration / big_n as f64;
    for k in 0..big_n {
        let y = |p: usize, var: Var, j: usize| x[l.index(p, var, j)];
        let (a, mid, b) = (l.knot(k), l.midpoint(k), l.knot(k + 1));
        let row = l.points() * n + 4 * k * n;
        for j in 0..n {
            let interp = |y0: Var, y1: Var| {
                y(mid, y0, j)
                    - 0.5 * (y(a, y0, j) + y(b, y0, j))
                    - h / 8.0 * (y(a, y1, j) - y(b, y1, j))
            };
            let simpson = |y0: Var, y1: Var| {
                y(b, y0, j)
                    - y(a, y0, j)
                    - h / 6.0 * (y(a, y1, j) + 4.0 * y(mid, y1, j) + y(b, y1, j))
            };
            let expected = [
                interp(Var::Q, Var::V),
                interp(Var::V, Var::A),
                simpson(Var::Q, Var::V),
                simpson(Var::V, Var::A),
            ];
            for (blk, e) in expected.iter().enumerate() {
                assert!(
                    (r[row + blk * n + j] - e).abs() < 1e-14,
                    "interval {k} block {blk}"
                );
            }
        }
    }

    let mut both = vec![0.0; hs.num_rows()];
    let mut values = vec![0.0; hs.nnz()];
    hs.residuals_and_jacobian(&m, &x, &mut both, &mut values);
    assert!(rel_err(&both, &r) < 1e-14);
}

/// The value and first two derivatives of `c0 + c1 t + c2 t² + c3 t³`.
fn cubic(c: &[f64; 4], t: f64) -> [f64; 3] {
    [
        c[0] + t * (c[1] + t * (c[2] + t * c[3])),
        c[1] + t * (2.0 * c[2] + 3.0 * t * c[3]),
        2.0 * c[2] + 6.0 * t * c[3],
    ]
}

#[test]
fn cubic_trajectories_are_reproduced_exactly() {
    // q(t) cubic (so v quadratic, a linear) and u(t) quadratic: every defect vanishes and the
    // interpolant returns the polynomials themselves.
    let m = robot("arm7", BaseKind::Fixed);
    let (n, big_n, duration) = (m.dof(), 4, 1.3);
    let mut hs = HermiteSimpson::new(&m, big_n, duration).unwrap();
    let l = hs.layout();
    let mut r = rng(60);
    let qc: Vec<[f64; 4]> = (0..n)
        .map(|_| {
            let c = uniform(&mut r, 4, 1.0);
            [c[0], c[1], c[2], c[3]]
        })
        .collect();
    let uc: Vec<[f64; 4]> = (0..n)
        .map(|_| {
            let c = uniform(&mut r, 3, 5.0);
            [c[0], c[1], c[2], 0.0]
        })
        .collect();
    let mut x = vec![0.0; l.end()];
    for p in 0..l.points() {
        let t = hs.time(p);
        assert!((t - duration * p as f64 / (2 * big_n) as f64).abs() < 1e-15);
        for j in 0..n {
            let [q, v, a] = cubic(&qc[j], t);
            x[l.index(p, Var::Q, j)] = q;
            x[l.index(p, Var::V, j)] = v;
            x[l.index(p, Var::A, j)] = a;
            x[l.index(p, Var::U, j)] = cubic(&uc[j], t)[0];
        }
    }
    assert_eq!(hs.time(2 * big_n), duration);
    let mut res = vec![0.0; hs.num_rows()];
    hs.residuals(&m, &x, &mut res);
    let defects = &res[l.points() * n..];
    let worst = defects.iter().fold(0.0_f64, |w, d| w.max(d.abs()));
    assert!(worst < 1e-13, "largest defect {worst:e}");

    let mut out = vec![0.0; n];
    let times: Vec<f64> = (0..=40)
        .map(|i| duration * i as f64 / 40.0)
        .chain([0.123, 1.2999])
        .collect();
    for t in times {
        for (var, deriv) in [(Var::Q, 0), (Var::V, 1), (Var::A, 2)] {
            hs.interpolate(&x, var, t, &mut out);
            let expected: Vec<f64> = qc.iter().map(|c| cubic(c, t)[deriv]).collect();
            assert!(rel_err(&out, &expected) < 1e-13, "{var:?} at {t}");
        }
        hs.interpolate(&x, Var::U, t, &mut out);
        let expected: Vec<f64> = uc.iter().map(|c| cubic(c, t)[0]).collect();
        assert!(rel_err(&out, &expected) < 1e-13, "U at {t}");
    }
    // Times outside [0, T] are clamped.
    hs.interpolate(&x, Var::Q, duration + 1.0, &mut out);
    let end: Vec<f64> = qc.iter().map(|c| cubic(c, duration)[0]).collect();
    assert!(rel_err(&out, &end) < 1e-13);
}

/// RK4 on the articulated-body forward dynamics with no actuation: `(q, v, a)` every `every`
/// steps of `dt`, `samples` of them.
fn rk4_samples(m: &Model, q0: &[f64], dt: f64, every: usize, samples: usize) -> Vec<[Vec<f64>; 3]> {
    let n = m.dof();
    let mut ws = Workspace::new(m);
    let mut passive = vec![0.0; n];
    let mut accel = |q: &[f64], v: &[f64]| -> Vec<f64> {
        let mut a = vec![0.0; n];
        m.passive_forces(q, v, &mut passive);
        forward_dynamics(m, &mut ws, q, v, &passive, &mut a);
        a
    };
    let axpy = |x: &[f64], s: f64, d: &[f64]| -> Vec<f64> {
        x.iter().zip(d).map(|(x, d)| x + s * d).collect()
    };
    let (mut q, mut v) = (q0.to_vec(), vec![0.0; n]);
    let mut out = Vec::with_capacity(samples);
    for step in 0..=(samples - 1) * every {
        let a1 = accel(&q, &v);
        if step % every == 0 {
            out.push([q.clone(), v.clone(), a1.clone()]);
        }
        let (q2, v2) = (axpy(&q, 0.5 * dt, &v), axpy(&v, 0.5 * dt, &a1));
        let a2 = accel(&q2, &v2);
        let (q3, v3) = (axpy(&q, 0.5 * dt, &v2), axpy(&v, 0.5 * dt, &a2));
        let a3 = accel(&q3, &v3);
        let (q4, v4) = (axpy(&q, dt, &v3), axpy(&v, dt, &a3));
        let a4 = accel(&q4, &v4);
        for i in 0..n {
            q[i] += dt / 6.0 * (v[i] + 2.0 * v2[i] + 2.0 * v3[i] + v4[i]);
            v[i] += dt / 6.0 * (a1[i] + 2.0 * a2[i] + 2.0 * a3[i] + a4[i]);
        }
    }
    out
}

#[test]
fn defects_of_a_true_motion_converge_at_orders_four_and_five() {
    // A free double pendulum sampled from an accurate RK4 solution (v and a exact at the
    // points, u = 0): the inverse-dynamics rows vanish to round-off, the interpolation defects
    // shrink like h⁴ and the integration defects like h⁵.
    let m = robot("pendulum2", BaseKind::Fixed);
    let n = m.dof();
    let duration = 1.0;
    let grids = [8, 16, 32, 64];
    let finest = 2 * grids[grids.len() - 1];
    let substeps = 32;
    let dt = duration / (finest * substeps) as f64;
    let truth = rk4_samples(&m, &[0.4, 0.2], dt, substeps, finest + 1);
    let mut maxima = Vec::new();
    for big_n in grids {
        let mut hs = HermiteSimpson::new(&m, big_n, duration).unwrap();
        let l = hs.layout();
        let stride = finest / (2 * big_n);
        let mut x = vec![0.0; l.end()];
        for p in 0..l.points() {
            for (var, values) in [Var::Q, Var::V, Var::A].into_iter().zip(&truth[p * stride]) {
                for (j, value) in values.iter().enumerate() {
                    x[l.index(p, var, j)] = *value;
                }
            }
        }
        let mut r = vec![0.0; hs.num_rows()];
        hs.residuals(&m, &x, &mut r);
        let max_of =
            |rows: &mut dyn Iterator<Item = usize>| rows.map(|i| r[i].abs()).fold(0.0, f64::max);
        let first = l.points() * n;
        let id = max_of(&mut (0..first));
        let interp =
            max_of(&mut (0..big_n).flat_map(|k| first + 4 * k * n..first + (4 * k + 2) * n));
        let integ =
            max_of(&mut (0..big_n).flat_map(|k| first + (4 * k + 2) * n..first + (4 * k + 4) * n));
        println!(
            "N = {big_n:2}: inverse dynamics {id:.1e}, interpolation {interp:.3e}, integration {integ:.3e}"
        );
        assert!(id < 1e-12, "inverse-dynamics rows {id:e}");
        maxima.push((interp, integ));
    }
    for w in maxima.windows(2) {
        let rate_interp = (w[0].0 / w[1].0).log2();
        let rate_integ = (w[0].1 / w[1].1).log2();
        println!("observed rates: interpolation {rate_interp:.2}, integration {rate_integ:.2}");
        assert!(
            (rate_interp - 4.0).abs() < 0.3,
            "interpolation rate {rate_interp}"
        );
        assert!(
            (rate_integ - 5.0).abs() < 0.3,
            "integration rate {rate_integ}"
        );
    }
}

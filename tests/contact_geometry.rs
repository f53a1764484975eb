//! The terrain's signed distance and contact frames: closed-form distances, derivatives
//! against finite differences, the eikonal property and continuity across rounded edges.

use vito::contact::{ContactFrame, Gap, Terrain, TerrainBox};
use vito::spatial::Vec3;

fn terrain() -> Terrain {
    Terrain {
        friction: 0.7,
        ground: 0.05,
        edge_radius: 0.02,
        boxes: vec![
            TerrainBox {
                x: [0.4, 0.6],
                y: None,
                top: 0.21,
            },
            TerrainBox {
                x: [-0.6, -0.3],
                y: Some([-0.2, 0.3]),
                top: 0.15,
            },
        ],
        gaps: vec![
            Gap {
                x: [0.8, 0.95],
                y: None,
                depth: 0.1,
            },
            Gap {
                x: [-1.2, -1.0],
                y: Some([-0.1, 0.1]),
                depth: 0.2,
            },
        ],
    }
}

/// Deterministic pseudo-random points in a region around the features.
fn points(count: usize) -> Vec<Vec3> {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    (0..count)
        .map(|_| {
            Vec3::new(
                -1.4 + 2.6 * next(),
                -0.4 + 0.8 * next(),
                0.0 + 0.35 * next(),
            )
        })
        .collect()
}

#[test]
fn closed_form_distances() {
    let t = terrain();
    // Above flat ground, far from every feature.
    let d = t.distance(&Vec3::new(2.0, 0.0, 0.3));
    assert!((d.value - 0.25).abs() < 1e-14);
    assert!((d.gradient - Vec3::z()).norm() < 1e-14);
    // Above the middle of the first box's top.
    let d = t.distance(&Vec3::new(0.5, 0.0, 0.3));
    assert!((d.value - 0.09).abs() < 1e-14, "{}", d.value);
    // Beside the box's left wall, half way up: the horizontal distance to the wall.
    let d = t.distance(&Vec3::new(0.3, 0.0, 0.18));
    assert!((d.value - 0.1).abs() < 1e-14, "{}", d.value);
    assert!((d.gradient + Vec3::x()).norm() < 1e-14);
    // Diagonally off the box's top-left edge: distance to the rounding cylinder of radius r
    // whose axis is at (0.4 + r, 0.21 − r).
    let r = t.edge_radius;
    let p = Vec3::new(0.35, 0.0, 0.26);
    let axis = Vec3::new(0.4 + r, 0.0, 0.21 - r);
    let expected = (p - axis).norm() - r;
    let d = t.distance(&p);
    assert!(
        (d.value - expected).abs() < 1e-14,
        "{} vs {expected}",
        d.value
    );
    // Over the middle of a gap: down to its floor.
    let d = t.distance(&Vec3::new(0.875, 0.0, 0.02));
    assert!(
        (d.value - (0.02 - (0.05 - 0.1))).abs() < 1e-14,
        "{}",
        d.value
    );
    // Inside the floor slab under flat ground: negative.
    assert!(t.distance(&Vec3::new(2.0, 0.0, 0.0)).value < 0.0);
}

#[test]
fn derivatives_match_finite_differences() {
    let t = terrain();
    let h = 1e-6;
    let mut checked = 0;
    for p in points(4000) {
        let d = t.distance(&p);
        for k in 0..3 {
            let mut e = Vec3::zeros();
            e[k] = h;
            let (dp, dm) = (t.distance(&(p + e)), t.distance(&(p - e)));
            // Skip points whose stencil crosses a seam where φ is only C¹ or C⁰ (the medial
            // set of the exact distances, inside the solid): detected by a jump in the
            // second-order stencil.
            let second = (dp.value - 2.0 * d.value + dm.value) / (h * h);
            if (second - d.hessian[(k, k)]).abs() > 1e-2 * (1.0 + d.hessian[(k, k)].abs()) {
                continue;
            }
            let grad = (dp.value - dm.value) / (2.0 * h);
            assert!(
                (grad - d.gradient[k]).abs() < 1e-7,
                "∂φ/∂p{k} at {p:?}: {grad} vs {}",
                d.gradient[k]
            );
            let col = (dp.gradient - dm.gradient) / (2.0 * h);
            for i in 0..3 {
                assert!(
                    (col[i] - d.hessian[(i, k)]).abs() < 1e-5 * (1.0 + d.hessian[(i, k)].abs()),
                    "∂²φ/∂p{i}∂p{k} at {p:?}: {} vs {}",
                    col[i],
                    d.hessian[(i, k)]
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 10_000, "only {checked} stencils checked");
}

#[test]
fn distance_is_eikonal_outside_the_fillets() {
    let t = terrain();
    let mut checked = 0;
    for p in points(3000) {
        let d = t.distance(&p);
        if d.value <= 0.0 {
            continue;
        }
        // The fillets of the box bases blend two distances; everywhere else |∇φ| = 1.
        let near_base = t
            .boxes
            .iter()
            .any(|b| (p.x - b.x[0]).abs() < 0.1 + p.z || (p.x - b.x[1]).abs() < 0.1 + p.z);
        if near_base {
            continue;
        }
        assert!((d.gradient.norm() - 1.0).abs() < 1e-12, "|∇φ| at {p:?}");
        checked += 1;
    }
    assert!(checked > 100);
}

#[test]
fn gradient_is_continuous_across_the_rounded_edges() {
    let t = terrain();
    // Walk around the top-left edge of the first box and over the rim of the first gap at a
    // fixed clearance; successive normals must turn smoothly.
    for (centre, z) in [(0.4, 0.21), (0.8, 0.05)] {
        let mut last: Option<Vec3> = None;
        for k in 0..=2000 {
            let x = centre - 0.05 + 1e-4 * k as f64 * 0.5;
            let p = Vec3::new(x, 0.0, z + 0.005);
            let g = t.distance(&p).gradient;
            if let Some(prev) = last {
                assert!((g - prev).norm() < 2e-2, "normal jumps at x = {x}");
            }
            last = Some(g);
        }
    }
}

#[test]
fn contact_frame_is_orthonormal_with_exact_derivatives() {
    let t = terrain();
    let h = 1e-6;
    for p in points(500) {
        let d = t.distance(&p);
        if d.value < 0.0 {
            continue;
        }
        if (d.gradient.y / d.gradient.norm()).abs() > 0.9 {
            // Walls facing ±y, where the frame is undefined by construction.
            continue;
        }
        let f = ContactFrame::new(&d);
        let [t1, t2] = f.tangents;
        assert!((f.normal.norm() - 1.0).abs() < 1e-12);
        assert!((t1.norm() - 1.0).abs() < 1e-12 && (t2.norm() - 1.0).abs() < 1e-12);
        assert!(f.normal.dot(&t1).abs() < 1e-12 && t1.dot(&t2).abs() < 1e-12);
        assert!(t1.y.abs() < 1e-12, "t̂₁ stays in the x–z plane");
        for k in 0..3 {
            let mut e = Vec3::zeros();
            e[k] = h;
            let (dp, dm) = (t.distance(&(p + e)), t.distance(&(p - e)));
            let second = (dp.value - 2.0 * d.value + dm.value) / (h * h);
            if (second - d.hessian[(k, k)]).abs() > 1e-2 * (1.0 + d.hessian[(k, k)].abs()) {
                continue;
            }
            let (fp, fm) = (ContactFrame::new(&dp), ContactFrame::new(&dm));
            let dn = (fp.normal - fm.normal) / (2.0 * h);
            assert!((dn - f.normal_derivative.column(k)).norm() < 1e-5);
            for j in 0..4 {
                let (_, dd) = f.direction(j);
                let fd = (fp.direction(j).0 - fm.direction(j).0) / (2.0 * h);
                assert!((fd - dd.column(k)).norm() < 1e-5, "direction {j} at {p:?}");
            }
        }
    }
}

mod fixtures;

use vito::contact::{ContactModel, ContactSample, ContactSite};
use vito::dynamics::{Workspace, forward_kinematics};
use vito::model::{BaseKind, load_urdf};

fn sites(model: &vito::model::Model) -> Vec<ContactSite> {
    model
        .contact_points()
        .iter()
        .map(|c| ContactSite {
            name: c.name.clone(),
            body: c.body,
            offset: c.offset,
            radius: c.radius,
        })
        .collect()
}

/// Rows and forces of the contact conditions against central differences in `q`, `v` and
/// `z`, on robots with several contact points near rounded terrain edges.
#[test]
fn contact_conditions_match_finite_differences() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/robots");
    let robots = [
        ("planar_biped.urdf", BaseKind::Planar, 0.88),
        ("quadruped.urdf", BaseKind::Floating, 0.1871),
    ];
    let h = 1e-6;
    for (file, base, height) in robots {
        let model = load_urdf(format!("{dir}/{file}"), base).unwrap();
        let n = model.dof();
        let mut contact = ContactModel::new(&model, terrain(), sites(&model));
        // A sticking creep, so that its derivative in `b_j` is checked too.
        contact.creep = 0.3;
        let k = contact.per_site();
        let m = contact.sites.len();
        let mut ws = Workspace::new(&model);
        let mut sample = ContactSample::new(&model, &contact);
        let mut plus = ContactSample::new(&model, &contact);
        let mut minus = ContactSample::new(&model, &contact);
        let mut r = fixtures::rng(5);
        let mut curved = 0;
        for trial in 0..12 {
            // Stand near the first box's edge (x ≈ 0.4) or the gap rim (x ≈ 0.8).
            let mut q = fixtures::uniform(&mut r, n, 0.3);
            q[0] = if trial % 2 == 0 { 0.38 } else { 0.78 } + 0.05 * q[0];
            let z_index = if base == BaseKind::Planar { 1 } else { 2 };
            q[z_index] = height + 0.1 + 0.1 * q[z_index];
            let v = fixtures::uniform(&mut r, n, 1.0);
            let z: Vec<f64> = fixtures::uniform(&mut r, m * k, 1.0)
                .iter()
                .map(|x| x.abs())
                .collect();
            forward_kinematics(&model, &mut ws, &q);
            sample.evaluate(&model, &contact, &ws, &v, &z, true);
            curved += sample
                .frames
                .iter()
                .filter(|f| f.normal_derivative.norm() > 1e-3)
                .count();
            let rows = sample.rows.len();
            let tol = |a: f64| 1e-6 * (1.0 + a.abs());
            for c in 0..n {
                for (vary_q, what) in [(true, "q"), (false, "v")] {
                    let (mut qp, mut qm, mut vp, mut vm) =
                        (q.clone(), q.clone(), v.clone(), v.clone());
                    if vary_q {
                        qp[c] += h;
                        qm[c] -= h;
                    } else {
                        vp[c] += h;
                        vm[c] -= h;
                    }
                    forward_kinematics(&model, &mut ws, &qp);
                    plus.evaluate(&model, &contact, &ws, &vp, &z, false);
                    forward_kinematics(&model, &mut ws, &qm);
                    minus.evaluate(&model, &contact, &ws, &vm, &z, false);
                    for row in 0..rows {
                        let fd = (plus.rows[row] - minus.rows[row]) / (2.0 * h);
                        let exact = if vary_q {
                            sample.rows_dq[(row, c)]
                        } else {
                            sample.rows_dv[(row, c)]
                        };
                        assert!(
                            (fd - exact).abs() < tol(exact),
                            "{file}: ∂row{row}/∂{what}{c}: {fd} vs {exact}"
                        );
                    }
                    if vary_q {
                        for l in 0..m {
                            let fd = (plus.forces[l] - minus.forces[l]) / (2.0 * h);
                            for d in 0..3 {
                                let exact = sample.forces_dq[l][(d, c)];
                                assert!(
                                    (fd[d] - exact).abs() < tol(exact) * contact.force_scale,
                                    "{file}: ∂f{l}_{d}/∂q{c}: {} vs {exact}",
                                    fd[d]
                                );
                            }
                        }
                    }
                }
            }
            forward_kinematics(&model, &mut ws, &q);
            let constant = contact.variable_derivatives();
            for j in 0..m * k {
                let (mut zp, mut zm) = (z.clone(), z.clone());
                zp[j] += h;
                zm[j] -= h;
                plus.evaluate(&model, &contact, &ws, &v, &zp, false);
                minus.evaluate(&model, &contact, &ws, &v, &zm, false);
                let (l, var) = (j / k, j % k);
                for row in 0..rows {
                    let fd = (plus.rows[row] - minus.rows[row]) / (2.0 * h);
                    let exact = if row / k == l {
                        constant
                            .iter()
                            .filter(|&&(rr, vv, _)| rr == row % k && vv == var)
                            .map(|t| t.2)
                            .sum()
                    } else {
                        0.0
                    };
                    assert!((fd - exact).abs() < 1e-6, "{file}: ∂row{row}/∂z{j}");
                }
                let fd = (plus.forces[l] - minus.forces[l]) / (2.0 * h);
                for d in 0..3 {
                    let exact = sample.forces_dz[l][(d, var)];
                    assert!((fd[d] - exact).abs() < 1e-6 * contact.force_scale);
                }
            }
        }
        assert!(curved > 0, "{file}: no point sampled a rounded edge");
    }
}

/// A sample evaluated again and again keeps what the last configuration and velocity gave
/// each point (`ContactSample`'s `Held`): along a sequence that changes one of `q`, `v`, `z`
/// and the derivatives at a time, or one joint of one leg, or one point's force, as a
/// Hessian's differences do,
/// every value it gives is the one a fresh sample computes at the same state, bit for bit.
#[test]
fn a_kept_evaluation_is_a_fresh_one() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/robots");
    let model = load_urdf(format!("{dir}/quadruped.urdf"), BaseKind::Floating).unwrap();
    let n = model.dof();
    let mut contact = ContactModel::new(&model, terrain(), sites(&model));
    contact.creep = 0.3;
    let size = contact.sites.len() * contact.per_site();
    let mut r = fixtures::rng(11);
    let state = |r: &mut _| {
        let mut q = fixtures::uniform(r, n, 0.3);
        q[0] = 0.38 + 0.05 * q[0];
        q[2] = 0.29 + 0.1 * q[2];
        let z: Vec<f64> = fixtures::uniform(r, size, 1.0)
            .iter()
            .map(|x| x.abs())
            .collect();
        (q, fixtures::uniform(r, n, 1.0), z)
    };
    let (q0, v0, z0) = state(&mut r);
    let (q1, v1, z1) = state(&mut r);
    // One joint of one leg moved, as the Hessian's differences move it: the points of the
    // other legs keep their quantities.
    let leg = n - 1;
    let mut q_leg = q0.clone();
    q_leg[leg] += 1e-3;
    let mut v_leg = v0.clone();
    v_leg[leg] -= 1e-3;
    let mut v_base = v0.clone();
    v_base[0] += 1e-3;
    // One variable of one point's force moved.
    let mut z_site = z0.clone();
    z_site[size - 1] += 1e-3;
    // (configuration, velocity, variables, derivatives, the paired configuration)
    let steps = [
        (&q0, &v0, &z0, false, &q1),
        (&q0, &v0, &z0, true, &q1),
        (&q0, &v0, &z1, true, &q1),
        (&q0, &v1, &z1, true, &q1),
        (&q0, &v1, &z1, false, &q0),
        (&q0, &v0, &z1, false, &q0),
        (&q0, &v0, &z1, true, &q0),
        (&q1, &v0, &z0, true, &q0),
        (&q1, &v0, &z0, true, &q1),
        (&q0, &v0, &z0, true, &q1),
        (&q_leg, &v0, &z0, true, &q1),
        (&q0, &v0, &z0, true, &q1),
        (&q0, &v_leg, &z0, true, &q1),
        (&q_leg, &v_leg, &z0, true, &q1),
        (&q0, &v_base, &z0, true, &q1),
        (&q_leg, &v_base, &z1, false, &q1),
        (&q_leg, &v_base, &z1, true, &q1),
        (&q0, &v0, &z0, true, &q1),
        (&q0, &v0, &z_site, true, &q1),
        (&q0, &v0, &z_site, false, &q1),
        (&q0, &v0, &z0, false, &q1),
        (&q0, &v0, &z0, true, &q1),
    ];
    let mut kept = ContactSample::new(&model, &contact);
    let (mut ws, mut paired) = (Workspace::new(&model), Workspace::new(&model));
    let (mut at, mut paired_at) = (None, None);
    for (i, &(q, v, z, derivatives, next)) in steps.iter().enumerate() {
        // The workspaces are computed again only where the configuration changes, as the
        // Hessian's differences do.
        if at != Some(q) {
            forward_kinematics(&model, &mut ws, q);
            at = Some(q);
        }
        if paired_at != Some(next) {
            forward_kinematics(&model, &mut paired, next);
            paired_at = Some(next);
        }
        kept.evaluate(&model, &contact, &ws, v, z, derivatives);
        kept.evaluate_gaps(&model, &contact, &paired, derivatives);
        let mut fresh = ContactSample::new(&model, &contact);
        fresh.evaluate(&model, &contact, &ws, v, z, derivatives);
        fresh.evaluate_gaps(&model, &contact, &paired, derivatives);
        assert_eq!(kept.rows, fresh.rows, "step {i}");
        assert_eq!(kept.forces, fresh.forces, "step {i}");
        assert_eq!(kept.positions, fresh.positions, "step {i}");
        assert_eq!(kept.frames, fresh.frames, "step {i}");
        assert_eq!(kept.gap_rates, fresh.gap_rates, "step {i}");
        assert_eq!(kept.pair_gaps, fresh.pair_gaps, "step {i}");
        if derivatives {
            assert_eq!(kept.rows_dq, fresh.rows_dq, "step {i}");
            assert_eq!(kept.rows_dv, fresh.rows_dv, "step {i}");
            assert_eq!(kept.forces_dq, fresh.forces_dq, "step {i}");
            assert_eq!(kept.forces_dz, fresh.forces_dz, "step {i}");
            assert_eq!(kept.jacobians, fresh.jacobians, "step {i}");
            assert_eq!(kept.gap_rates_dq, fresh.gap_rates_dq, "step {i}");
            assert_eq!(kept.pair_gaps_dq, fresh.pair_gaps_dq, "step {i}");
        }
    }
}

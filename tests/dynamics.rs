//! Cross-checks of the reference dynamics: identities between algorithms, closed forms, physical
//! invariants and finite differences, on random trees (every base) and the shipped robots.

mod fixtures;

use fixtures::{double_pendulum, quirk_robots, random_tree, rel_err, shipped_robots, states};
use nalgebra::{DMatrix, DVector};
use vito::dynamics::{
    Workspace, bias_forces, center_of_mass, forward_dynamics, forward_kinematics, forward_poses,
    frame_jacobian, frame_pose, generalized_momentum, inverse_dynamics, kinetic_energy,
    mass_matrix, point_jacobian, potential_energy,
};
use vito::model::{BaseKind, Model, parse_urdf};
use vito::spatial::{Transform, Vec3, vee};

fn models() -> Vec<(String, Model)> {
    let mut out = Vec::new();
    for (seed, n) in [(1, 4), (2, 9), (3, 15)] {
        for base in [BaseKind::Fixed, BaseKind::Planar, BaseKind::Floating] {
            out.push((format!("random{seed} ({base})"), random_tree(seed, n, base)));
        }
    }
    for (name, m) in shipped_robots() {
        out.push((name.clone(), m.clone()));
        if m.base() != BaseKind::Fixed {
            let fixed = vito::model::load_urdf(robot_path(&name), BaseKind::Fixed).unwrap();
            // A single rigid body welded to the world has no joint left.
            if fixed.dof() > 0 {
                out.push((format!("{name} as fixed"), fixed));
            }
        }
    }
    out.extend(quirk_robots());
    out
}

fn robot_path(label: &str) -> String {
    let stem = label.split(' ').next().unwrap();
    format!("{}/robots/{stem}.urdf", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn mass_matrix_is_symmetric_positive_definite() {
    for (name, m) in models() {
        let mut ws = Workspace::new(&m);
        let n = m.dof();
        let mut mm = DMatrix::zeros(n, n);
        for s in states(n, 11, 4) {
            mass_matrix(&m, &mut ws, &s.q, &mut mm);
            assert!((&mm - mm.transpose()).amax() < 1e-12 * mm.amax(), "{name}");
            let eig = mm.clone().symmetric_eigenvalues();
            assert!(eig.min() > 0.0, "{name}: smallest eigenvalue {}", eig.min());
            // ½ vᵀ M v is the kinetic energy computed body by body.
            let v = DVector::from_column_slice(&s.v);
            let ke = kinetic_energy(&m, &mut ws, &s.q, &s.v);
            assert!(
                (0.5 * v.dot(&(&mm * &v)) - ke).abs() < 1e-10 * ke.max(1.0),
                "{name}"
            );
        }
    }
}

/// The terms' kinematics without inertias (`forward_poses`) are those of `forward_kinematics`
/// bit for bit, each call with a new stamp, on every robot and base.
#[test]
fn poses_alone_are_the_forward_kinematics_poses() {
    for (name, m) in models() {
        let (mut full, mut poses) = (Workspace::new(&m), Workspace::new(&m));
        for s in states(m.dof(), 5, 3) {
            forward_kinematics(&m, &mut full, &s.q);
            let before = poses.kinematics_stamp();
            forward_poses(&m, &mut poses, &s.q);
            assert_ne!(poses.kinematics_stamp(), before, "{name}: no new stamp");
            for i in 0..m.dof() {
                assert_eq!(poses.body_pose(i), full.body_pose(i), "{name}: pose {i}");
                assert_eq!(
                    poses.joint_twist(i),
                    full.joint_twist(i),
                    "{name}: twist {i}"
                );
            }
        }
    }
}

#[test]
fn rnea_equals_mass_matrix_times_acceleration_plus_bias() {
    for (name, m) in models() {
        let mut ws = Workspace::new(&m);
        let n = m.dof();
        let mut mm = DMatrix::zeros(n, n);
        let (mut tau, mut bias) = (vec![0.0; n], vec![0.0; n]);
        for s in states(n, 12, 4) {
            inverse_dynamics(&m, &mut ws, &s.q, &s.v, &s.a, &mut tau);
            mass_matrix(&m, &mut ws, &s.q, &mut mm);
            bias_forces(&m, &mut ws, &s.q, &s.v, &mut bias);
            let ma = &mm * DVector::from_column_slice(&s.a);
            let rhs: Vec<f64> = (0..n).map(|i| ma[i] + bias[i]).collect();
            let e = rel_err(&tau, &rhs);
            assert!(e < 1e-10, "{name}: relative error {e:e}");
        }
    }
}

#[test]
fn aba_inverts_rnea() {
    for (name, m) in models() {
        let mut ws = Workspace::new(&m);
        let n = m.dof();
        let (mut tau, mut qdd) = (vec![0.0; n], vec![0.0; n]);
        for s in states(n, 13, 4) {
            inverse_dynamics(&m, &mut ws, &s.q, &s.v, &s.a, &mut tau);
            forward_dynamics(&m, &mut ws, &s.q, &s.v, &tau, &mut qdd);
            let e = rel_err(&qdd, &s.a);
            assert!(e < 1e-9, "{name}: relative error {e:e}");
        }
    }
}

#[test]
fn power_balance_with_gravity() {
    // Along q(t) = q + t v + t²/2 a, d(K + V)/dt = q̇ᵀ τ with τ = RNEA(q, v, a).
    for (name, m) in models() {
        let mut ws = Workspace::new(&m);
        let n = m.dof();
        let mut tau = vec![0.0; n];
        for s in states(n, 14, 4) {
            inverse_dynamics(&m, &mut ws, &s.q, &s.v, &s.a, &mut tau);
            let power: f64 = s.v.iter().zip(&tau).map(|(v, t)| v * t).sum();
            let mut energy = |t: f64| {
                let q: Vec<f64> = (0..n)
                    .map(|i| s.q[i] + t * s.v[i] + 0.5 * t * t * s.a[i])
                    .collect();
                let v: Vec<f64> = (0..n).map(|i| s.v[i] + t * s.a[i]).collect();
                kinetic_energy(&m, &mut ws, &q, &v) + potential_energy(&m, &mut ws, &q)
            };
            let h = 1e-5;
            let de = (energy(h) - energy(-h)) / (2.0 * h);
            let scale = power.abs().max(1.0);
            assert!((de - power).abs() < 1e-6 * scale, "{name}: {de} vs {power}");
        }
    }
}

#[test]
fn potential_energy_is_minus_total_mass_gravity_dot_com() {
    for (name, m) in models() {
        let mut ws = Workspace::new(&m);
        for s in states(m.dof(), 15, 4) {
            let com = center_of_mass(&m, &mut ws, &s.q);
            let v = potential_energy(&m, &mut ws, &s.q);
            let expected = -m.total_mass() * m.gravity().dot(&com);
            assert!(
                (v - expected).abs() < 1e-10 * expected.abs().max(1.0),
                "{name}"
            );
        }
    }
}

#[test]
fn double_pendulum_closed_form() {
    let (mass, len) = (1.3, 0.7);
    let m = double_pendulum(mass, len);
    let mut ws = Workspace::new(&m);
    let g = 9.81;
    let (lc, inertia) = (len / 2.0, mass * len * len / 12.0);
    let mut mm = DMatrix::zeros(2, 2);
    let mut bias = vec![0.0; 2];
    for s in states(2, 16, 4) {
        let (t1, t2) = (s.q[0], s.q[1]);
        let (d1, d2) = (s.v[0], s.v[1]);
        let c2 = t2.cos();
        let m11 =
            2.0 * inertia + mass * lc * lc + mass * (len * len + lc * lc + 2.0 * len * lc * c2);
        let m12 = inertia + mass * (lc * lc + len * lc * c2);
        let m22 = inertia + mass * lc * lc;
        let h = mass * len * lc * t2.sin();
        let b1 = -h * (2.0 * d1 * d2 + d2 * d2)
            + mass * g * lc * t1.sin()
            + mass * g * (len * t1.sin() + lc * (t1 + t2).sin());
        let b2 = h * d1 * d1 + mass * g * lc * (t1 + t2).sin();
        mass_matrix(&m, &mut ws, &s.q, &mut mm);
        bias_forces(&m, &mut ws, &s.q, &s.v, &mut bias);
        let expected = DMatrix::from_row_slice(2, 2, &[m11, m12, m12, m22]);
        assert!((&mm - &expected).amax() < 1e-13, "{mm} vs {expected}");
        assert!(rel_err(&bias, &[b1, b2]) < 1e-13, "{bias:?} vs {b1}, {b2}");
    }
}

#[test]
fn fixed_joint_merges_like_the_hand_merged_body() {
    // Link `a` carries a rigidly attached link `b` (fixed joint, offset and rotated);
    // the hand-merged URDF has one link with the lumped mass, centre and inertia.
    let two = r#"<robot name="two">
      <link name="root"/>
      <link name="a"><inertial><origin xyz="0 0 -0.2"/><mass value="2"/>
        <inertia ixx="0.02" ixy="0" ixz="0" iyy="0.03" iyz="0" izz="0.04"/></inertial></link>
      <link name="b"><inertial><origin xyz="0.1 0 0"/><mass value="1"/>
        <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
        <collision name="b_point"><origin xyz="0.2 0 0"/><geometry><sphere radius="0"/></geometry></collision></link>
      <link name="c"><inertial><origin xyz="0 0 -0.1"/><mass value="0.5"/>
        <inertia ixx="0.005" ixy="0" ixz="0" iyy="0.005" iyz="0" izz="0.001"/></inertial></link>
      <joint name="j1" type="revolute"><parent link="root"/><child link="a"/>
        <axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="10" velocity="5"/></joint>
      <joint name="weld" type="fixed"><parent link="a"/><child link="b"/>
        <origin xyz="0 0 -0.4" rpy="0 0 1.5707963267948966"/></joint>
      <joint name="j2" type="revolute"><parent link="b"/><child link="c"/>
        <origin xyz="0 0 -0.1"/><axis xyz="1 0 0"/><limit lower="-3" upper="3" effort="10" velocity="5"/></joint>
    </robot>"#;
    // b's centre in a's frame: (0,0,-0.4) + Rz(90°)(0.1,0,0) = (0, 0.1, -0.4); its inertia is
    // isotropic so rotation leaves it alone. Lumped: m = 3, centre = (2(0,0,-0.2) + (0,0.1,-0.4))/3.
    let (ma, ca) = (2.0, Vec3::new(0.0, 0.0, -0.2));
    let (mb, cb) = (1.0, Vec3::new(0.0, 0.1, -0.4));
    let mt = ma + mb;
    let c = (ca * ma + cb * mb) / mt;
    let parallel = |m: f64, d: Vec3| {
        m * (nalgebra::Matrix3::identity() * d.norm_squared() - d * d.transpose())
    };
    let ia = nalgebra::Matrix3::from_diagonal(&Vec3::new(0.02, 0.03, 0.04));
    let ib = nalgebra::Matrix3::from_diagonal(&Vec3::new(0.01, 0.01, 0.01));
    let i = ia + parallel(ma, ca - c) + ib + parallel(mb, cb - c);
    let one = format!(
        r#"<robot name="one">
      <link name="root"/>
      <link name="a"><inertial><origin xyz="{} {} {}"/><mass value="{mt}"/>
        <inertia ixx="{}" ixy="{}" ixz="{}" iyy="{}" iyz="{}" izz="{}"/></inertial></link>
      <link name="c"><inertial><origin xyz="0 0 -0.1"/><mass value="0.5"/>
        <inertia ixx="0.005" ixy="0" ixz="0" iyy="0.005" iyz="0" izz="0.001"/></inertial></link>
      <joint name="j1" type="revolute"><parent link="root"/><child link="a"/>
        <axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="10" velocity="5"/></joint>
      <joint name="j2" type="revolute"><parent link="a"/><child link="c"/>
        <origin xyz="0 0 -0.5" rpy="0 0 1.5707963267948966"/><axis xyz="1 0 0"/>
        <limit lower="-3" upper="3" effort="10" velocity="5"/></joint>
    </robot>"#,
        c.x,
        c.y,
        c.z,
        i[(0, 0)],
        i[(0, 1)],
        i[(0, 2)],
        i[(1, 1)],
        i[(1, 2)],
        i[(2, 2)]
    );
    let merged = parse_urdf(two, "two", BaseKind::Fixed).unwrap();
    let hand = parse_urdf(&one, "one", BaseKind::Fixed).unwrap();
    assert_eq!(merged.dof(), 2);
    let (mut w1, mut w2) = (Workspace::new(&merged), Workspace::new(&hand));
    let (mut m1, mut m2) = (DMatrix::zeros(2, 2), DMatrix::zeros(2, 2));
    let (mut b1, mut b2) = (vec![0.0; 2], vec![0.0; 2]);
    for s in states(2, 17, 4) {
        mass_matrix(&merged, &mut w1, &s.q, &mut m1);
        mass_matrix(&hand, &mut w2, &s.q, &mut m2);
        assert!((&m1 - &m2).amax() < 1e-13, "{m1} vs {m2}");
        bias_forces(&merged, &mut w1, &s.q, &s.v, &mut b1);
        bias_forces(&hand, &mut w2, &s.q, &s.v, &mut b2);
        assert!(rel_err(&b1, &b2) < 1e-13);
    }
    // The merged link's frame and contact point are kept on body `a`.
    let frame = merged.frame("b").expect("frame of the merged link");
    assert_eq!(frame.body, 0);
    assert!((frame.placement.translation - Vec3::new(0.0, 0.0, -0.4)).norm() < 1e-15);
    let cp = &merged.contact_points()[0];
    assert_eq!((cp.name.as_str(), cp.body), ("b_point", 0));
    assert!((cp.offset - Vec3::new(0.0, 0.2, -0.4)).norm() < 1e-15);
}

#[test]
fn jacobians_match_finite_differences() {
    for (name, m) in models() {
        let n = m.dof();
        let mut ws = Workspace::new(&m);
        let mut jp = DMatrix::zeros(3, n);
        let mut jf = DMatrix::zeros(6, n);
        let offset = Vec3::new(0.1, -0.2, 0.3);
        let placement = Transform::from_xyz_rpy([0.05, 0.1, -0.1], [0.3, -0.2, 0.9]);
        for s in states(n, 18, 4) {
            for body in [n - 1, n / 2] {
                forward_kinematics(&m, &mut ws, &s.q);
                point_jacobian(&m, &ws, body, &offset, &mut jp);
                frame_jacobian(&m, &ws, body, &placement, &mut jf);
                let h = 1e-6;
                let mut at = |q: &[f64]| {
                    forward_kinematics(&m, &mut ws, q);
                    let g = ws.body_pose(body).compose(&placement);
                    (ws.body_pose(body).transform_point(&offset), g)
                };
                let (_, g0) = at(&s.q);
                for j in 0..n {
                    let mut qp = s.q.clone();
                    let mut qm = s.q.clone();
                    qp[j] += h;
                    qm[j] -= h;
                    let ((pp, gp), (pm, gm)) = (at(&qp), at(&qm));
                    let dp = (pp - pm) / (2.0 * h);
                    assert!((dp - jp.column(j)).norm() < 1e-8, "{name} point column {j}");
                    let dr = (gp.rotation - gm.rotation) / (2.0 * h);
                    let w = vee(&(dr * g0.rotation.transpose()));
                    let dorigin = (gp.translation - gm.translation) / (2.0 * h);
                    assert!(
                        (w - jf.fixed_view::<3, 1>(0, j)).norm() < 1e-7,
                        "{name} ω col {j}"
                    );
                    assert!(
                        (dorigin - jf.fixed_view::<3, 1>(3, j)).norm() < 1e-8,
                        "{name} v col {j}"
                    );
                }
            }
        }
    }
}

#[test]
fn generalized_momentum_is_mass_matrix_times_velocity_with_exact_derivative() {
    for (name, m) in models() {
        let n = m.dof();
        let mut ws = Workspace::new(&m);
        let mut mm = DMatrix::zeros(n, n);
        let mut dp = DMatrix::zeros(n, n);
        let mut p = vec![0.0; n];
        for s in states(n, 19, 4) {
            generalized_momentum(&m, &mut ws, &s.q, &s.v, &mut p, &mut dp);
            mass_matrix(&m, &mut ws, &s.q, &mut mm);
            let mv = &mm * DVector::from_column_slice(&s.v);
            assert!(rel_err(&p, mv.as_slice()) < 1e-12, "{name}");
            let h = 1e-6;
            let mut fd = DMatrix::zeros(n, n);
            let mut scratch = DMatrix::zeros(n, n);
            for j in 0..n {
                let (mut pp, mut pm) = (vec![0.0; n], vec![0.0; n]);
                let mut q = s.q.clone();
                q[j] += h;
                generalized_momentum(&m, &mut ws, &q, &s.v, &mut pp, &mut scratch);
                q[j] -= 2.0 * h;
                generalized_momentum(&m, &mut ws, &q, &s.v, &mut pm, &mut scratch);
                for i in 0..n {
                    fd[(i, j)] = (pp[i] - pm[i]) / (2.0 * h);
                }
            }
            let e = (&dp - &fd).norm() / fd.norm().max(1.0);
            assert!(e < 1e-7, "{name}: ∂p/∂q relative error {e:e}");
        }
    }
}

/// The floating base's distance from gimbal lock against hand values, and against the mass
/// matrix: its smallest eigenvalue vanishes exactly there (yaw and roll turn about the same
/// axis) and grows as the squared distance away from it.
#[test]
fn floating_base_lock_distance_is_where_the_mass_matrix_turns_singular() {
    use std::f64::consts::{FRAC_PI_2, PI};
    let m = random_tree(2, 9, BaseKind::Floating);
    let n = m.dof();
    let at = |pitch: f64| {
        let mut q = vec![0.3; n];
        q[4] = pitch;
        q
    };
    for (pitch, distance) in [
        (0.0, FRAC_PI_2),
        (FRAC_PI_2 - 0.1, 0.1),
        (-FRAC_PI_2 + 0.02, 0.02),
        (PI + 0.3, FRAC_PI_2 - 0.3),
        (3.0 * FRAC_PI_2 + 0.2, 0.2),
    ] {
        let d = m.base_lock_distance(&at(pitch)).unwrap();
        assert!(
            (d - distance).abs() < 1e-12,
            "pitch {pitch}: {d} against {distance}"
        );
    }
    assert_eq!(
        random_tree(2, 9, BaseKind::Planar).base_lock_distance(&vec![0.0; n - 3]),
        None
    );
    let mut ws = Workspace::new(&m);
    let mut mm = DMatrix::zeros(n, n);
    let mut smallest = |pitch: f64| {
        mass_matrix(&m, &mut ws, &at(pitch), &mut mm);
        mm.clone().symmetric_eigenvalues().min() / mm.amax()
    };
    let (e0, e1, e2) = (
        smallest(FRAC_PI_2),
        smallest(FRAC_PI_2 - 1e-2),
        smallest(FRAC_PI_2 - 2e-2),
    );
    assert!(e0.abs() < 1e-14, "at the lock: {e0}");
    assert!(
        (e2 / e1 - 4.0).abs() < 0.1,
        "{e1} at 0.01, {e2} at 0.02 from the lock"
    );
}

/// A change of the floating base's chart (`BaseChart`) is a point transformation: in the new
/// chart's model the converted configuration puts the root and every robot body where it was, the converted
/// velocity has the same kinetic energy (the same body velocities), and the converted momentum
/// is the new model's `M(q') v'`; converting back returns the start. Checked near the lock,
/// where the conversion matters, and into the model's own chart at the lock itself, where the
/// rates are the least-norm ones of an angular velocity the chart can represent there.
#[test]
fn base_chart_change_keeps_poses_velocities_and_momenta() {
    use vito::model::BaseChart;
    let m = random_tree(2, 9, BaseKind::Floating);
    let n = m.dof();
    let momentum = |model: &Model, q: &[f64], v: &[f64]| {
        let mut ws = Workspace::new(model);
        let mut mm = DMatrix::zeros(n, n);
        mass_matrix(model, &mut ws, q, &mut mm);
        (&mm * DVector::from_column_slice(v)).as_slice().to_vec()
    };
    let poses = |model: &Model, q: &[f64]| {
        let mut ws = Workspace::new(model);
        forward_kinematics(model, &mut ws, q);
        // The root link (the last virtual body) and the robot's bodies; the virtual bodies
        // between the base's joints depend on the chart.
        (5..n)
            .map(|b| frame_pose(&ws, b, &Transform::identity()).to_homogeneous())
            .collect::<Vec<_>>()
    };
    let identity = BaseChart::identity();
    for (k, s) in states(n, 21, 4).into_iter().enumerate() {
        let mut q = s.q.clone();
        q[4] = 1.2 + 0.05 * k as f64;
        let p = momentum(&m, &q, &s.v);
        let chart = identity.centred_at(&q);
        let cm = chart.model(&m);
        let (mut q2, mut v2, mut p2) = (q.clone(), s.v.clone(), p.clone());
        identity.convert(&chart, &[0.0; 3], &mut q2, &mut [&mut v2], &mut [&mut p2]);
        assert!(q2[3..6].iter().all(|a| a.abs() < 1e-12), "{:?}", &q2[3..6]);
        for (a, b) in poses(&m, &q).iter().zip(&poses(&cm, &q2)) {
            assert!((a - b).amax() < 1e-12, "{a} against {b}");
        }
        let mut ws = Workspace::new(&m);
        let mut cws = Workspace::new(&cm);
        let (e1, e2) = (
            kinetic_energy(&m, &mut ws, &q, &s.v),
            kinetic_energy(&cm, &mut cws, &q2, &v2),
        );
        assert!((e1 - e2).abs() < 1e-12 * e1.max(1.0), "{e1} against {e2}");
        let p_model = momentum(&cm, &q2, &v2);
        assert!(rel_err(&p2, &p_model) < 1e-10, "{p2:?} against {p_model:?}");
        let near = [q[3], q[4], q[5]];
        chart.convert(&identity, &near, &mut q2, &mut [&mut v2], &mut [&mut p2]);
        assert!(rel_err(&q2, &q) < 1e-12 && rel_err(&v2, &s.v) < 1e-10 && rel_err(&p2, &p) < 1e-10);
    }
    // Back into the model's chart exactly at its lock: the same poses and kinetic energy.
    let mut q = states(n, 22, 1)[0].q.clone();
    q[3..6].copy_from_slice(&[0.0, 0.0, -0.2]);
    // At the lock the chart's rates span only two axes of the angular velocity; a roll rate
    // is one the chart can represent there.
    let mut v = states(n, 23, 1)[0].v.clone();
    v[3..6].copy_from_slice(&[0.0, 0.0, 0.7]);
    let lock = identity.centred_at(&{
        let mut r = q.clone();
        r[3..6].copy_from_slice(&[0.0, std::f64::consts::FRAC_PI_2, 0.0]);
        r
    });
    let lm = lock.model(&m);
    let (mut q2, mut v2) = (q.clone(), v.clone());
    lock.convert(
        &identity,
        &[0.1, 1.5, 0.1],
        &mut q2,
        &mut [&mut v2],
        &mut [],
    );
    assert!(
        m.base_lock_distance(&q2).unwrap() < 1e-12,
        "{:?}",
        &q2[3..6]
    );
    for (a, b) in poses(&lm, &q).iter().zip(&poses(&m, &q2)) {
        assert!((a - b).amax() < 1e-12);
    }
    let mut ws = Workspace::new(&m);
    let mut lws = Workspace::new(&lm);
    let (e1, e2) = (
        kinetic_energy(&lm, &mut lws, &q, &v),
        kinetic_energy(&m, &mut ws, &q2, &v2),
    );
    assert!((e1 - e2).abs() < 1e-10 * e1.max(1.0), "{e1} against {e2}");
}

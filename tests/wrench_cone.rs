//! The contact wrench cone of a rectangular sole (`contact::WrenchCone`): its 16-row face form
//! against its span form (the corner rays of the friction pyramids, Caron, Pham and Nakamura
//! 2015), membership decided independently by a linear program, and closed-form boundaries.

use clarabel::algebra::CscMatrix;
use clarabel::solver::{
    DefaultSettings, DefaultSolver, IPSolver, NonnegativeConeT, SolverStatus, SupportedConeT,
    ZeroConeT,
};
use nalgebra::{SMatrix, Vector6};
use vito::contact::{FACES, SoleRectangle, WrenchCone};

/// Soles of several shapes, off-centre in their frames, with several frictions.
fn cones() -> Vec<WrenchCone> {
    vec![
        WrenchCone {
            sole: SoleRectangle {
                x: [-0.0876, 0.1728],
                y: [-0.066, 0.0626],
            },
            friction: 0.8,
        },
        WrenchCone {
            sole: SoleRectangle {
                x: [-0.1, 0.1],
                y: [-0.05, 0.05],
            },
            friction: 0.3,
        },
        WrenchCone {
            sole: SoleRectangle {
                x: [0.2, 0.3],
                y: [-0.4, 0.1],
            },
            friction: 1.5,
        },
    ]
}

/// Whether `w = S λ` for some `λ ≥ 0`: the feasibility LP `min 0` s.t. `S λ = w`, `λ ≥ 0`,
/// solved by Clarabel.
fn in_span(s: &SMatrix<f64, 6, 16>, w: &Vector6<f64>) -> bool {
    // A = [S; −I] over the cones {0}⁶ × R₊¹⁶, b = [w; 0].
    let (mut colptr, mut rowval, mut nzval) = (vec![0], Vec::new(), Vec::new());
    for c in 0..16 {
        for r in 0..6 {
            rowval.push(r);
            nzval.push(s[(r, c)]);
        }
        rowval.push(6 + c);
        nzval.push(-1.0);
        colptr.push(rowval.len());
    }
    let a = CscMatrix::new(22, 16, colptr, rowval, nzval);
    let p = CscMatrix::new(16, 16, vec![0; 17], Vec::new(), Vec::new());
    let mut b = vec![0.0; 22];
    b[..6].copy_from_slice(w.as_slice());
    let cones: Vec<SupportedConeT<f64>> = vec![ZeroConeT(6), NonnegativeConeT(16)];
    let settings = DefaultSettings {
        verbose: false,
        ..DefaultSettings::default()
    };
    let mut solver =
        DefaultSolver::new(&p, &[0.0; 16], &a, &b, &cones, settings).expect("LP setup");
    solver.solve();
    match solver.solution.status {
        SolverStatus::Solved | SolverStatus::AlmostSolved => true,
        SolverStatus::PrimalInfeasible | SolverStatus::AlmostPrimalInfeasible => false,
        other => panic!("LP ended {other:?}"),
    }
}

fn worst(f: &SMatrix<f64, FACES, 6>, w: &Vector6<f64>) -> f64 {
    (f * w).max()
}

#[test]
fn every_generator_lies_in_the_cone_and_every_face_is_a_facet_of_their_span() {
    for cone in cones() {
        let (f, s) = (cone.faces(), cone.generators());
        let fs = f * s;
        assert!(fs.max() <= 1e-12, "a generator is outside: {}", fs.max());
        // A face of a cone in R⁶ is a facet when the generators on it span five dimensions.
        for r in 0..FACES {
            let on: Vec<usize> = (0..16).filter(|&c| fs[(r, c)].abs() <= 1e-12).collect();
            let m = nalgebra::DMatrix::from_fn(6, on.len(), |i, k| s[(i, on[k])]);
            let rank = m.svd(false, false).rank(1e-9);
            assert_eq!(rank, 5, "face {r} of {cone:?} holds generators {on:?}");
        }
    }
}

#[test]
fn face_and_span_forms_agree_on_random_wrenches() {
    // A fixed pseudo-random sequence (no dependency on the rand crate's streams).
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut uniform = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    let (mut inside, mut outside) = (0, 0);
    for cone in cones() {
        let (f, s) = (cone.faces(), cone.generators());
        let (x, y) = cone.sole.half_extents();
        let scale = Vector6::new(1.0, 1.0, 1.0, y, x, x + y);
        for _ in 0..300 {
            // Wrenches about a unit normal force, with tangential forces and torques around
            // the cone's size, so that both answers occur often.
            let mut w = Vector6::from_fn(|i, _| scale[i] * uniform());
            w[2] = 1.0;
            let face = worst(&f, &w);
            if face.abs() < 1e-6 {
                continue;
            }
            let span = in_span(&s, &w);
            assert_eq!(face < 0.0, span, "{cone:?}: w = {w:?}, face form {face:e}");
            if span {
                inside += 1;
            } else {
                outside += 1;
            }
        }
    }
    assert!(
        inside > 100 && outside > 100,
        "{inside} inside, {outside} outside"
    );
}

#[test]
fn closed_form_boundaries_of_a_centred_sole() {
    let cone = WrenchCone {
        sole: SoleRectangle {
            x: [-0.1, 0.1],
            y: [-0.05, 0.05],
        },
        friction: 0.5,
    };
    let f = cone.faces();
    let eps = 1e-9;
    let fz = 100.0;
    let at = |w: [f64; 6]| worst(&f, &Vector6::from_column_slice(&w));
    // Friction: |f_t| ≤ μ f_z along each axis.
    assert!(at([0.5 * fz - eps, 0.0, fz, 0.0, 0.0, 0.0]) < 0.0);
    assert!(at([0.5 * fz + 1e-6, 0.0, fz, 0.0, 0.0, 0.0]) > 0.0);
    assert!(at([0.0, -0.5 * fz - 1e-6, fz, 0.0, 0.0, 0.0]) > 0.0);
    // The centre of pressure at (px, py): τ = (py f_z, −px f_z, 0); inside iff |px| ≤ X, |py| ≤ Y.
    let cop = |px: f64, py: f64| at([0.0, 0.0, fz, py * fz, -px * fz, 0.0]);
    assert!(cop(0.1 - 1e-6, 0.05 - 1e-6) < 0.0);
    assert!(cop(0.1 + 1e-6, 0.0) > 0.0);
    assert!(cop(0.0, -0.05 - 1e-6) > 0.0);
    // Pure yaw on a centred normal force: |τ_z| ≤ μ (X + Y) f_z.
    let yaw = 0.5 * (0.1 + 0.05) * fz;
    assert!(at([0.0, 0.0, fz, 0.0, 0.0, yaw - 1e-6]) < 0.0);
    assert!(at([0.0, 0.0, fz, 0.0, 0.0, -yaw - 1e-6]) > 0.0);
    // Pulling: no wrench with f_z < 0.
    assert!(at([0.0, 0.0, -1.0, 0.0, 0.0, 0.0]) > 0.0);
}

#[test]
fn centre_of_pressure_of_a_point_force_is_its_point() {
    for cone in cones() {
        let o = cone.sole.centre();
        for (px, py) in [(0.01, 0.02), (-0.05, 0.0), (0.25, -0.3)] {
            let force = nalgebra::Vector3::new(3.0, -2.0, 40.0);
            let arm = nalgebra::Vector3::new(px, py, 0.0) - o;
            let tau = arm.cross(&force);
            let w = Vector6::new(force.x, force.y, force.z, tau.x, tau.y, tau.z);
            let (x, y) = cone.centre_of_pressure(&w).expect("pushing");
            assert!((x - px).abs() < 1e-12 && (y - py).abs() < 1e-12);
        }
    }
}

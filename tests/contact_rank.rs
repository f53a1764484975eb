//! The equality rows of the hopper's contact transcriptions at the default initial guess: their
//! smallest singular values over the free variables (`docs/benchmarks.md`, "Contact
//! measurements").

use nalgebra::DMatrix;
use std::path::Path;
use vito::dynamics::{Workspace, forward_kinematics, point_jacobian};
use vito::nlp::Nlp;
use vito::problem::{ProblemOverrides, TrajectoryProblem, TranscriptionKind, load_problem};
use vito::transcription::{CollocationNlp, VariationalNlp};

fn hopper(transcription: TranscriptionKind) -> TrajectoryProblem {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("problems/hopper_hop.yaml");
    load_problem(
        &file,
        &ProblemOverrides {
            transcription: Some(transcription),
            ..ProblemOverrides::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// The equality rows' Jacobian at the initial point over the variables their bounds leave
/// free, with `extra` zero columns appended, and each row's place in it (`usize::MAX` for the
/// inequality rows).
fn equality_jacobian(nlp: &mut dyn Nlp, extra: usize) -> (DMatrix<f64>, Vec<usize>) {
    let (n, m) = (nlp.num_variables(), nlp.num_constraints());
    let mut x = vec![0.0; n];
    nlp.initial_point(&mut x);
    let (mut xl, mut xu) = (vec![0.0; n], vec![0.0; n]);
    nlp.variable_bounds(&mut xl, &mut xu);
    let (mut cl, mut cu) = (vec![0.0; m], vec![0.0; m]);
    nlp.constraint_bounds(&mut cl, &mut cu);
    let mut col = vec![usize::MAX; n];
    let mut cols = 0;
    for i in (0..n).filter(|&i| xl[i] < xu[i]) {
        col[i] = cols;
        cols += 1;
    }
    let mut row = vec![usize::MAX; m];
    let mut rows = 0;
    for r in (0..m).filter(|&r| cl[r] == cu[r]) {
        row[r] = rows;
        rows += 1;
    }
    let st = nlp.jacobian_structure();
    let mut values = vec![0.0; st.len()];
    nlp.jacobian_values(&x, &mut values).unwrap();
    let mut j = DMatrix::zeros(rows, cols + extra);
    for (&(r, c), v) in st.iter().zip(&values) {
        if row[r] != usize::MAX && col[c] != usize::MAX {
            j[(row[r], col[c])] += v;
        }
    }
    (j, row)
}

/// How many singular values of `j` are below `threshold`, and the smallest.
fn below(j: &DMatrix<f64>, threshold: f64) -> (usize, f64) {
    let s = j.singular_values();
    (s.iter().filter(|&&v| v < threshold).count(), s.min())
}

#[test]
#[ignore = "dense SVDs of ~1300 x 1400: cargo test --release --test contact_rank -- --ignored"]
fn hermite_simpson_contact_rows_are_nearly_dependent_where_the_variational_ones_are_not() {
    let vi = hopper(TranscriptionKind::Variational(2));
    let hs = hopper(TranscriptionKind::HermiteSimpson);
    let (vi_count, vi_min) = below(
        &equality_jacobian(&mut VariationalNlp::new(&vi, 2).unwrap(), 0).0,
        1e-4,
    );
    let (hs_count, hs_min) = below(
        &equality_jacobian(&mut CollocationNlp::new(&hs).unwrap(), 0).0,
        1e-4,
    );
    // Measured: the VI's smallest 6.1e-4 (554 rows); Hermite–Simpson's 2.6e-6 with 33 below
    // 1e-4 (1294 rows): one per interval and the boundary points'.
    assert_eq!(vi_count, 0, "simpson_vi smallest {vi_min:e}");
    assert!(
        hs_count > hs.stages,
        "hermite_simpson: {hs_count} below 1e-4, smallest {hs_min:e}"
    );
}

/// With the foot on the ground at every knot and midpoint, the smoothed gap rows of an
/// interval's three points and its position interpolation are dependent but for the
/// Fischer–Burmeister rows' small `∂/∂c`: a free correction of each midpoint along its gap's
/// gradient (computed here from the kinematics and the terrain) in the interval's interpolation
/// rows removes all near-dependences but the boundary points'.
#[test]
#[ignore = "dense SVDs of ~1300 x 1400: cargo test --release --test contact_rank -- --ignored"]
fn a_midpoint_correction_along_the_gap_gradient_removes_the_interval_dependences() {
    let prob = hopper(TranscriptionKind::HermiteSimpson);
    let model = &prob.model;
    let contact = prob.contact.as_ref().unwrap();
    assert_eq!(contact.sites.len(), 1, "the hopper's foot");
    let site = &contact.sites[0];
    let mut nlp = CollocationNlp::new(&prob).unwrap();
    let points = nlp.points().clone();
    let (n, intervals) = (model.dof(), prob.stages);
    let mut x = vec![0.0; nlp.num_variables()];
    nlp.initial_point(&mut x);
    let (plain, _) = equality_jacobian(&mut nlp, 0);
    let (dependent, _) = below(&plain, 1e-4);
    let (mut corrected, row) = equality_jacobian(&mut nlp, intervals);
    let free = corrected.ncols() - intervals;
    let mut ws = Workspace::new(model);
    let mut jac = DMatrix::zeros(3, n);
    for k in 0..intervals {
        let q = &x[points.q[2 * k + 1]..points.q[2 * k + 1] + n];
        forward_kinematics(model, &mut ws, q);
        point_jacobian(model, &ws, site.body, &site.offset, &mut jac);
        let p = ws.body_pose(site.body).transform_point(&site.offset);
        let gradient = contact.terrain.distance(&p).gradient.transpose() * &jac;
        // Interval k's position-interpolation rows follow the points' inverse-dynamics rows.
        let interpolation = points.times.len() * n + 4 * k * n;
        for i in 0..n {
            corrected[(row[interpolation + i], free + k)] = -gradient[i];
        }
    }
    let (left, smallest) = below(&corrected, 1e-4);
    assert!(
        dependent > intervals && left <= 3,
        "{dependent} near-dependent rows, {left} with the corrections (smallest {smallest:e})"
    );
}

//! The equality rows of the hopper's contact transcriptions at the default initial guess:
//! their smallest singular values over the free variables (ARCHITECTURE.md, "Contact").

use nalgebra::DMatrix;
use std::path::Path;
use vito::problem::{ProblemOverrides, TranscriptionKind, load_problem};
use vito::sqp::Nlp;
use vito::transcription::{CollocationNlp, VariationalNlp};

/// The singular values of the equality rows' Jacobian over the variables that are not fixed by
/// their bounds, at the initial point, increasing.
fn singular_values(nlp: &mut dyn Nlp) -> Vec<f64> {
    let (n, m) = (nlp.num_variables(), nlp.num_constraints());
    let mut x = vec![0.0; n];
    nlp.initial_point(&mut x);
    let (mut xl, mut xu) = (vec![0.0; n], vec![0.0; n]);
    nlp.variable_bounds(&mut xl, &mut xu);
    let (mut cl, mut cu) = (vec![0.0; m], vec![0.0; m]);
    nlp.constraint_bounds(&mut cl, &mut cu);
    let mut col = vec![usize::MAX; n];
    let mut cols = 0;
    for i in 0..n {
        if xl[i] < xu[i] {
            col[i] = cols;
            cols += 1;
        }
    }
    let mut row = vec![usize::MAX; m];
    let mut rows = 0;
    for r in 0..m {
        if cl[r] == cu[r] {
            row[r] = rows;
            rows += 1;
        }
    }
    let st = nlp.jacobian_structure();
    let mut values = vec![0.0; st.len()];
    nlp.jacobian_values(&x, &mut values).unwrap();
    let mut j = DMatrix::<f64>::zeros(rows, cols);
    for (&(r, c), v) in st.iter().zip(&values) {
        if row[r] != usize::MAX && col[c] != usize::MAX {
            j[(row[r], col[c])] += v;
        }
    }
    let mut s: Vec<f64> = j.singular_values().iter().copied().collect();
    s.sort_by(f64::total_cmp);
    s
}

#[test]
#[ignore = "dense SVDs of ~1300 × 1400: cargo test --release --test contact_rank -- --ignored"]
fn hermite_simpson_contact_rows_are_nearly_dependent_where_the_variational_ones_are_not() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("problems/hopper_hop.yaml");
    let load = |t| {
        load_problem(
            &file,
            &ProblemOverrides {
                transcription: Some(t),
                ..ProblemOverrides::default()
            },
        )
        .unwrap_or_else(|e| panic!("{e}"))
    };
    let vi = load(TranscriptionKind::Variational(2));
    let hs = load(TranscriptionKind::HermiteSimpson);
    let s_vi = singular_values(&mut VariationalNlp::new(&vi, 2).unwrap());
    let s_hs = singular_values(&mut CollocationNlp::new(&hs).unwrap());
    let below = |s: &[f64], t: f64| s.iter().filter(|&&v| v < t).count();
    // Measured: the VI's smallest 6.1e-4 (554 rows), Hermite–Simpson's 2.6e-6 with 33 below
    // 1e-4 (1294 rows): one per interval and the boundary points'.
    assert_eq!(below(&s_vi, 1e-4), 0, "simpson_vi smallest {:e}", s_vi[0]);
    let intervals = hs.stages;
    assert!(
        below(&s_hs, 1e-4) > intervals,
        "hermite_simpson: {} below 1e-4, smallest {:e}",
        below(&s_hs, 1e-4),
        s_hs[0]
    );
}

//! Criterion benches of the NLP callbacks at a problem's starting point: what one iteration
//! spends in NLP evaluation, callback by callback, on the humanoid ball pick
//! (`problems/humanoid_ball_pick.yaml`, 30 DoF, 13 Simpson stages, stance feet) and Go1's walk
//! (`problems/go1_walk.yaml`, 18 DoF, 60 stages, four contact points). `cargo bench --bench
//! nlp_callbacks`; a whole solve's split into NLP evaluation and QP is in its `report.json`
//! (`vito solve`).

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::path::Path;
use vito::nlp::Nlp;
use vito::problem::{ProblemOverrides, load_problem};
use vito::transcription::VariationalNlp;

fn callbacks(c: &mut Criterion) {
    for (name, file) in [
        ("ball_pick", "problems/humanoid_ball_pick.yaml"),
        ("go1_walk", "problems/go1_walk.yaml"),
    ] {
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
        let prob =
            load_problem(&file, &ProblemOverrides::default()).unwrap_or_else(|e| panic!("{e}"));
        let mut nlp = VariationalNlp::new(&prob, 2).unwrap_or_else(|e| panic!("{e}"));
        let (n, m) = (nlp.num_variables(), nlp.num_constraints());
        let mut x = vec![0.0; n];
        nlp.initial_point(&mut x);
        let mut cons = vec![0.0; m];
        let mut grad = vec![0.0; n];
        let mut jac = vec![0.0; nlp.jacobian_structure().len()];
        let hess_len = nlp.hessian_structure().map_or(0, |s| s.len());
        let mut hess = vec![0.0; hess_len];
        let lambda: Vec<f64> = (0..m).map(|r| ((r as f64) * 0.7).sin()).collect();
        let mut g = c.benchmark_group(format!("{name}_nlp"));
        g.sample_size(10);
        g.bench_function("objective_and_gradient", |b| {
            b.iter(|| {
                black_box(nlp.objective(&x).ok());
                black_box(nlp.gradient(&x, &mut grad).ok());
            })
        });
        g.bench_function("constraints", |b| {
            b.iter(|| black_box(nlp.constraints(&x, &mut cons).ok()))
        });
        g.bench_function("jacobian", |b| {
            b.iter(|| black_box(nlp.jacobian_values(&x, &mut jac).ok()))
        });
        g.bench_function("hessian", |b| {
            b.iter(|| black_box(nlp.hessian_values(&x, 1.0, &lambda, &mut hess).ok()))
        });
        g.finish();
    }
}

criterion_group! {
    name = benches;
    // Criterion's plots need a system font; the numbers are in its console report.
    config = Criterion::default().without_plots();
    targets = callbacks
}
criterion_main!(benches);

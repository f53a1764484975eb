//! Criterion benches of the Simpson VI stage algorithms on N-link pendulums, beside the paths
//! they replace and the rigid-body kernels that bound them. `cargo bench --bench vi`;
//! `vito bench` prints the same comparison as tables (with Pinocchio's kernels on
//! `--reference PYTHON`).

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use vito::bench::StageCase;

/// A named kernel of [`StageCase`].
type Kernel = (&'static str, fn(&mut StageCase) -> f64);

fn stage_algorithms(c: &mut Criterion) {
    let mut g = c.benchmark_group("simpson_stage");
    for n in [4, 8, 16, 32, 64, 128] {
        let mut case = StageCase::pendulum(n, 1);
        let mut kernels: Vec<Kernel> = vec![
            ("del_eval", StageCase::del),
            ("newton", StageCase::newton),
            ("linearize", StageCase::linearize),
            ("gradient", StageCase::gradient),
            ("hessian", StageCase::hessian),
            ("rnea", StageCase::rnea),
            ("rnea_derivatives", StageCase::rnea_derivatives),
        ];
        if n <= 32 {
            kernels.push(("newton_dense", StageCase::newton_dense));
            kernels.push(("linearize_fd", StageCase::linearize_fd));
        }
        if n <= 16 {
            kernels.push(("hessian_fd", StageCase::hessian_by_differences));
        }
        for (name, kernel) in kernels {
            g.bench_with_input(BenchmarkId::new(name, n), &n, |b, _| {
                b.iter(|| black_box(kernel(&mut case)))
            });
        }
    }
    g.finish();
}

criterion_group! {
    name = benches;
    // Criterion's plots need system fonts, which a bare machine lacks; the numbers are the point.
    config = Criterion::default().without_plots();
    targets = stage_algorithms
}
criterion_main!(benches);

//! Criterion benches of the Simpson VI stage algorithms on N-link pendulums, beside the paths
//! they replace. `cargo bench --bench vi`; `vito bench` prints the same comparison as a table.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use vito::bench::StageCase;

fn stage_algorithms(c: &mut Criterion) {
    let mut g = c.benchmark_group("simpson_stage");
    for n in [4, 8, 16, 32, 64, 128] {
        let mut case = StageCase::pendulum(n, 1);
        g.bench_with_input(BenchmarkId::new("del_eval", n), &n, |b, _| {
            b.iter(|| black_box(case.del()))
        });
        g.bench_with_input(BenchmarkId::new("newton", n), &n, |b, _| {
            b.iter(|| black_box(case.newton()))
        });
        g.bench_with_input(BenchmarkId::new("linearize", n), &n, |b, _| {
            b.iter(|| black_box(case.linearize()))
        });
        if n <= 32 {
            g.bench_with_input(BenchmarkId::new("newton_dense", n), &n, |b, _| {
                b.iter(|| black_box(case.newton_dense()))
            });
            g.bench_with_input(BenchmarkId::new("linearize_fd", n), &n, |b, _| {
                b.iter(|| black_box(case.linearize_fd()))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, stage_algorithms);
criterion_main!(benches);

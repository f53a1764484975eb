//! Criterion benches of writing a solve's outputs, on the default problem
//! (problems/pendulum_swingup_2.yaml, solved once): the report and CSV files, the plots and
//! filmstrip, the viewer page, and all of them as `vito solve` writes them (plots beside the
//! viewer) — each by default (SVG figures, `view.html`) and with `--raster` (PNG figures and
//! `animation.gif` too). `cargo bench --bench output`.

use criterion::{Criterion, criterion_group, criterion_main};
use std::path::Path;
use vito::output::{Formats, ViewOptions, write_solve_figures, write_solve_report, write_views};
use vito::problem::{ProblemOverrides, load_problem};
use vito::transcription::solve;

fn outputs(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("vito-bench-output-{}", std::process::id()));
    let prob = load_problem(
        &root.join("problems/pendulum_swingup_2.yaml"),
        &ProblemOverrides {
            output: Some(dir.clone()),
            ..ProblemOverrides::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let outcome = solve(&prob, &mut std::io::sink()).unwrap_or_else(|e| panic!("{e}"));
    let mut g = c.benchmark_group("solve_outputs");
    g.sample_size(10);
    g.bench_function("report_and_csv", |b| {
        b.iter(|| write_solve_report(&dir, &prob, &outcome).unwrap())
    });
    for (name, formats) in [
        ("", Formats::default()),
        ("_raster", Formats { raster: true }),
    ] {
        let views = ViewOptions {
            formats,
            ..ViewOptions::default()
        };
        g.bench_function(format!("plots_and_filmstrip{name}"), |b| {
            b.iter(|| write_solve_figures(&dir, &prob, &outcome, formats).unwrap())
        });
        g.bench_function(format!("viewer{name}"), |b| {
            b.iter(|| write_views(&dir, Some(&prob.model), &views).unwrap())
        });
        g.bench_function(format!("all{name}"), |b| {
            b.iter(|| {
                write_solve_report(&dir, &prob, &outcome).unwrap();
                let (plots, views) = rayon::join(
                    || write_solve_figures(&dir, &prob, &outcome, formats),
                    || write_views(&dir, Some(&prob.model), &views),
                );
                plots.unwrap();
                views.unwrap();
            })
        });
    }
    g.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group! {
    name = benches;
    // Criterion's own charts need a system font, which the machines running this need not have.
    config = Criterion::default().without_plots();
    targets = outputs
}
criterion_main!(benches);

//! Why Hermite–Simpson cannot pose an inelastic touchdown (ARCHITECTURE.md, "Contact"): its
//! state `(q, v)` is a C¹ cubic per interval, one velocity per knot shared by both intervals,
//! so the velocity jump of an impact at a knot has no representation. The exact motion of the
//! passive box of `problems/box_touchdown.yaml` (free fall for 0.1 s, then at rest on the
//! ground) violates the position rows of the interval on the side of the touchdown knot whose
//! velocity it does not carry, by `hV/8` (interpolation) and `hV/6` (integration) for the
//! arrival speed `V = g·0.1 s`. Those rows hold no acceleration and no force, so no choice of
//! contact forces repairs them. With the knot's velocity split into the arrival and departure
//! values (interval 1 ending with the one, interval 2 starting with the other), every defect
//! row of both intervals holds to rounding.

use std::path::Path;
use vito::nlp::Nlp;
use vito::problem::{ProblemOverrides, TrajectoryProblem, TranscriptionKind, load_problem};
use vito::transcription::CollocationNlp;

const G: f64 = 9.81;
/// The box's base height at rest: its bottom face on the ground (`robots/box.urdf`).
const REST_HEIGHT: f64 = 0.05;
/// The base's vertical coordinate (planar base: x, z, pitch).
const Z: usize = 1;

/// The box's exact motion at the collocation points into `x`: `(q, v, a)` of the vertical
/// coordinate, the touchdown knot carrying the arrival (`arrival = true`) or the departure
/// values.
fn exact_motion(nlp: &CollocationNlp, n: usize, touchdown: f64, arrival: bool, x: &mut [f64]) {
    let points = nlp.points().clone();
    let z0 = REST_HEIGHT + 0.5 * G * touchdown * touchdown;
    for (p, &t) in points.times.iter().enumerate() {
        let q = points.q[p];
        let flying = t < touchdown - 1e-12 || (arrival && (t - touchdown).abs() <= 1e-12);
        let (z, vz, az) = if flying {
            (z0 - 0.5 * G * t * t, -G * t, -G)
        } else {
            (REST_HEIGHT, 0.0, 0.0)
        };
        for i in 0..n {
            x[q + i] = 0.0;
            x[q + n + i] = 0.0;
            x[q + 2 * n + i] = 0.0;
        }
        x[q + Z] = z;
        x[q + n + Z] = vz;
        x[q + 2 * n + Z] = az;
    }
}

/// The problem in `file`, transcribed with Hermite–Simpson.
fn hermite_simpson(file: &Path) -> TrajectoryProblem {
    load_problem(
        file,
        &ProblemOverrides {
            transcription: Some(TranscriptionKind::HermiteSimpson),
            ..ProblemOverrides::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn exact_touchdown_violates_the_hermite_simpson_position_rows_by_the_velocity_jump() {
    let prob =
        hermite_simpson(&Path::new(env!("CARGO_MANIFEST_DIR")).join("problems/box_touchdown.yaml"));
    let mut nlp = CollocationNlp::new(&prob).unwrap();
    let n = prob.model.dof();
    let points = nlp.points().clone();
    let count = points.times.len();
    let h = points.times[2] - points.times[0];
    // The problem's release height: a fall of exactly 0.1 s, onto knot 2 (point 4).
    let touchdown = ((prob.initial_q.lower[Z] - REST_HEIGHT) * 2.0 / G).sqrt();
    assert!(
        (touchdown - 0.1).abs() < 1e-12,
        "touchdown at {touchdown} s"
    );
    let knot = 4;
    assert!((points.times[knot] - touchdown).abs() < 1e-12);
    let speed = G * touchdown;

    let mut rows = vec![0.0; nlp.num_constraints()];
    let defects = |k: usize, block: usize| {
        let first = count * n + 4 * k * n + block * n;
        first + Z
    };
    let (q_interpolation, v_interpolation, q_integration, v_integration) = (0, 1, 2, 3);
    let mut x = vec![0.0; nlp.num_variables()];
    nlp.initial_point(&mut x);

    // The knot carries the arrival velocity: interval 1 (the fall's end) holds exactly,
    // interval 2 (at rest) misses its position rows by the jump.
    exact_motion(&nlp, n, touchdown, true, &mut x);
    nlp.constraints(&x, &mut rows).unwrap();
    for block in 0..4 {
        assert!(
            rows[defects(1, block)].abs() < 1e-12,
            "{}",
            rows[defects(1, block)]
        );
    }
    let miss = rows[defects(2, q_interpolation)];
    assert!((miss - h * speed / 8.0).abs() < 1e-12, "{miss}");
    let miss = rows[defects(2, q_integration)];
    assert!((miss - h * speed / 6.0).abs() < 1e-12, "{miss}");
    let arrival_rows = rows.clone();

    // The knot carries the departure velocity (at rest): now interval 1 misses them.
    exact_motion(&nlp, n, touchdown, false, &mut x);
    nlp.constraints(&x, &mut rows).unwrap();
    for block in 0..4 {
        assert!(
            rows[defects(2, block)].abs() < 1e-12,
            "{}",
            rows[defects(2, block)]
        );
    }
    let miss = rows[defects(1, q_interpolation)];
    assert!((miss - h * speed / 8.0).abs() < 1e-12, "{miss}");
    let miss = rows[defects(1, q_integration)];
    assert!((miss + h * speed / 6.0).abs() < 1e-12, "{miss}");

    // Every other interval holds with either choice: the motion is exact away from the jump.
    for k in (0..count / 2).filter(|&k| k != 1 && k != 2) {
        for block in [
            q_interpolation,
            v_interpolation,
            q_integration,
            v_integration,
        ] {
            for r in [defects(k, block), defects(k, block) - Z] {
                assert!(rows[r].abs() < 1e-12, "interval {k}: {}", rows[r]);
                assert!(
                    arrival_rows[r].abs() < 1e-12,
                    "interval {k}: {}",
                    arrival_rows[r]
                );
            }
        }
    }
}

/// With smoothing, a knot impulse pairs with its knot's gap by `gap·P ≤ μ²`, not by a
/// Fischer–Burmeister row: that row, with the knot force's `gap·c = μ²` on the same gap, forces
/// `P = c`, an impulse `h σ c` at every knot in stance (ARCHITECTURE.md, "Contact"). A foot
/// resting at the smoothed gap of its force admits no impulse (`P = 0`, no jump), and any
/// impulse up to `μ²/gap`.
#[test]
fn a_smoothed_knot_impulse_may_vanish_in_stance() {
    let dir = std::env::temp_dir().join(format!("vito-hs-impulse-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("stand.yaml");
    let robots = concat!(env!("CARGO_MANIFEST_DIR"), "/robots");
    std::fs::write(
        &file,
        format!(
            "name: stand\nrobot: {robots}/hopper.urdf\nbase: planar\nduration: 0.2\nstages: 2\n\
             initial: {{q: {{base_z: 0.55, hip: -0.5, knee: 1.0}}}}\nterrain: {{friction: 0.8}}\n\
             complementarity: {{method: smoothing, start: 0.01}}\ncosts: {{effort: 0.01}}\n"
        ),
    )
    .unwrap();
    let prob = hermite_simpson(&file);
    let mut nlp = CollocationNlp::new(&prob).unwrap();
    let n = prob.model.dof();
    // One interior knot, one contact point: its jump and impulse are the last variables, its
    // jump rows and product row the last rows.
    let (vars, m) = (nlp.num_variables(), nlp.num_constraints());
    let (jump, impulse) = (vars - n - 1, vars - 1);
    let product = m - 1;
    let mut x = vec![0.0; vars];
    nlp.initial_point(&mut x);
    let (mut lower, mut upper) = (vec![0.0; m], vec![0.0; m]);
    let mu: f64 = 0.01;
    nlp.constraint_bounds(&mut lower, &mut upper);
    assert_eq!(
        (lower[product], upper[product]),
        (f64::NEG_INFINITY, mu * mu)
    );
    let (mut xl, mut xu) = (vec![0.0; vars], vec![0.0; vars]);
    nlp.variable_bounds(&mut xl, &mut xu);
    assert_eq!((xl[impulse], xu[impulse]), (0.0, f64::INFINITY));

    x[jump..jump + n].fill(0.0);
    x[impulse] = 0.0;
    let mut rows = vec![0.0; m];
    nlp.constraints(&x, &mut rows).unwrap();
    for (r, row) in rows[m - n - 1..].iter().enumerate() {
        assert!(row.abs() < 1e-12, "row {r} of the knot: {row}");
    }
    // The knot's gap from the product with a unit impulse; `P = c = μ²/gap` is on the bound.
    x[impulse] = 1.0;
    nlp.constraints(&x, &mut rows).unwrap();
    let gap = rows[product];
    assert!(gap > 0.0, "the foot starts above the ground: {gap}");
    x[impulse] = mu * mu / gap;
    nlp.constraints(&x, &mut rows).unwrap();
    assert!((rows[product] - mu * mu).abs() < 1e-15, "{}", rows[product]);
    // The bound follows the smoothing level.
    nlp.set_smoothing(1e-3);
    nlp.constraint_bounds(&mut lower, &mut upper);
    assert!((upper[product] - 1e-6).abs() < 1e-18, "{}", upper[product]);
}

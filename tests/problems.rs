//! Every bundled motion problem converges with both transcriptions, its written trajectory keeps
//! every bound, and an optimized motion is dynamically consistent: its torques re-simulated open
//! loop by an independent integrator reproduce it, to an error that falls at the integrator's
//! order as the stages are refined.

use std::path::{Path, PathBuf};
use vito::nlp::{Method, QpBackend, Status};
use vito::output::write_solve_report;
use vito::problem::{
    ComplementarityMethod, ProblemOverrides, Ranges, TrajectoryProblem, TranscriptionKind,
    load_problem,
};
use vito::transcription::{Outcome, dynamic_accuracy, solve};

const PROBLEMS: [&str; 6] = [
    "pendulum_swingup_1",
    "pendulum_swingup_2",
    "pendulum_swingup_3",
    "acrobot_swingup",
    "arm_reach",
    TWELVE_LINK,
];

/// The slowest problem (about 50 s for both transcriptions with Clarabel in release), tested
/// on its own so that the test harness runs it alongside the others.
const TWELVE_LINK: &str = "pendulum12_reconfigure";

/// The problem `name` with `transcription`, solved by the SQP on `qp` when given, else by the
/// problem's own method (the interior-point method for every problem without contact).
fn load(name: &str, transcription: TranscriptionKind, qp: Option<QpBackend>) -> TrajectoryProblem {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("problems/{name}.yaml"));
    let mut prob = load_problem(
        &file,
        &ProblemOverrides {
            qp,
            transcription: Some(transcription),
            ..ProblemOverrides::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    prob.solver.print_level = 0;
    prob.solver.progress_bar = false;
    prob
}

/// Solves every problem with both transcriptions (see [`load`] for `qp`), asserts that all
/// converge and returns the iterations of each solve in order.
fn converges(qp: Option<QpBackend>, problems: &[&str]) -> Vec<usize> {
    let mut failures = Vec::new();
    let mut iterations = Vec::new();
    for name in problems {
        for kind in [
            TranscriptionKind::Variational(2),
            TranscriptionKind::HermiteSimpson,
        ] {
            let prob = load(name, kind, qp);
            let outcome = solve(&prob, &mut std::io::sink()).unwrap();
            let r = &outcome.result;
            eprintln!(
                "{name} {kind} {qp:?}: {:?} in {} iterations, {:.2} s, objective {:.6e}",
                r.status,
                r.iterations,
                r.timing.total.as_secs_f64(),
                r.objective
            );
            if r.status != Status::Converged {
                failures.push(format!("{name} {kind}: {:?} ({})", r.status, r.message));
            }
            failures.extend(
                written_bound_violations(&prob, &outcome, &format!("{name}-{kind}"))
                    .into_iter()
                    .map(|v| format!("{name} {kind}: {v}")),
            );
            iterations.push(r.iterations);
        }
    }
    assert!(failures.is_empty(), "not converged: {failures:#?}");
    iterations
}

/// Writes the solve's files into a fresh temporary directory named after `tag` (the caller
/// removes it) and returns it.
fn written(prob: &TrajectoryProblem, outcome: &Outcome, tag: &str) -> PathBuf {
    // Tests run in parallel and several solve the same problem: a counter keeps their
    // directories apart (one removing its own while another writes the same name failed).
    static WRITTEN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let serial = WRITTEN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!(
        "vito-{}-{}-{serial}",
        tag.replace(|c: char| !c.is_ascii_alphanumeric(), "_"),
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    write_solve_report(&dir, prob, outcome).unwrap();
    dir
}

/// Writes the solve's files into a fresh directory and reads `knots.csv` back: every position,
/// velocity and torque it holds (the transcription's own points; for the variational
/// integrator the knot velocities of the discrete Legendre transform and the interpolant's
/// velocity between them) within its bound to the solver's constraint tolerance. Returns the
/// violations.
fn written_bound_violations(prob: &TrajectoryProblem, outcome: &Outcome, tag: &str) -> Vec<String> {
    let dir = written(prob, outcome, &format!("bounds-{tag}"));
    let mut reader = csv::Reader::from_path(dir.join("knots.csv")).unwrap();
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    let model = &prob.model;
    let joints = model.joint_names();
    let actuated: Vec<String> = model
        .actuated_joints()
        .iter()
        .map(|&i| model.joint(i).name.clone())
        .collect();
    let families: [(&str, &[String], &Ranges); 3] = [
        ("q", &joints, &prob.q_bounds),
        ("v", &joints, &prob.v_bounds),
        ("u", &actuated, &prob.u_bounds),
    ];
    let tol = prob.solver.constraint_tolerance;
    let mut violations = Vec::new();
    let mut checked = 0;
    for record in reader.records() {
        let record = record.unwrap();
        let value = |col: &str| -> f64 {
            let c = header
                .iter()
                .position(|h| h == col)
                .unwrap_or_else(|| panic!("no {col}"));
            record[c].parse().unwrap()
        };
        let t = value("t");
        for (prefix, names, ranges) in families {
            for (i, joint) in names.iter().enumerate() {
                let x = value(&format!("{prefix}_{joint}"));
                let (lo, hi) = (ranges.lower[i], ranges.upper[i]);
                let slack = tol * lo.abs().max(hi.abs()).max(1.0);
                if lo.is_finite() || hi.is_finite() {
                    checked += 1;
                }
                if x < lo - slack || x > hi + slack {
                    violations.push(format!(
                        "t = {t}: {prefix}_{joint} = {x} outside [{lo}, {hi}]"
                    ));
                }
            }
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    assert!(checked > 0, "{tag}: no finite bound to check");
    violations
}

/// Every problem by its default method, the interior-point method, both transcriptions; the
/// twelve-link pendulum with the variational integrator only (with Hermite–Simpson the
/// interior-point method runs to its iteration limit and the SQP solves it again, about a
/// minute: `Method::Auto`).
#[test]
fn every_problem_converges_with_the_interior_point_method() {
    let iterations = converges(None, &PROBLEMS[..PROBLEMS.len() - 1]);
    assert!(iterations.iter().all(|&i| i <= 100), "{iterations:?}");
    let mut prob = load(TWELVE_LINK, TranscriptionKind::Variational(2), None);
    prob.solver.method = Method::InteriorPoint;
    let outcome = solve(&prob, &mut std::io::sink()).unwrap();
    assert_eq!(
        outcome.result.status,
        Status::Converged,
        "{}",
        outcome.result.message
    );
    assert!(outcome.result.iterations <= 150);
    let violations = written_bound_violations(&prob, &outcome, "twelve-link-ip");
    assert!(violations.is_empty(), "{violations:#?}");
}

#[test]
fn every_problem_converges_with_clarabel() {
    converges(Some(QpBackend::Clarabel), &PROBLEMS[..PROBLEMS.len() - 1]);
}

/// Also pins the variational solve's iteration count (78 before the working-set QP path, 473
/// when speed limits held at their bound with small multipliers were left out of the QP's
/// convexification).
#[test]
fn twelve_link_pendulum_converges_with_clarabel() {
    let iterations = converges(Some(QpBackend::Clarabel), &[TWELVE_LINK]);
    assert!(
        iterations[0] <= 150,
        "simpson_vi took {} iterations",
        iterations[0]
    );
}

/// The pendulum and acrobot swing-ups with OSQP, both transcriptions (about a minute in
/// release). The single-pendulum Hermite-Simpson swing-up stalled on merit steps of 10⁻⁶
/// before the merit fallback retried such steps with a stronger Hessian model; the acrobot
/// with Hermite-Simpson ended `QpFailure` while OSQP accepted infeasibility certificates at
/// 1e-6 (`qp_osqp.rs`).
#[cfg(feature = "osqp")]
#[test]
fn swingups_converge_with_osqp() {
    converges(Some(QpBackend::Osqp), &PROBLEMS[..4]);
}

/// Every problem with OSQP: minutes per problem (ADMM needs 10⁴–10⁵ iterations on some QPs of
/// the arm and the 12-link pendulum; 11 minutes in all here), so this runs on request:
/// `cargo test --release --features osqp --test problems -- --ignored`.
#[cfg(feature = "osqp")]
#[test]
#[ignore = "minutes per problem with OSQP"]
fn every_problem_converges_with_osqp() {
    converges(Some(QpBackend::Osqp), &PROBLEMS);
}

/// The passive box touching down on a knot (`problems/box_touchdown.yaml`, complementarity by
/// relaxation) converges with the Simpson VI, and its contact conditions hold: every product
/// within the complementarity tolerance, no penetration beyond the constraint tolerance.
#[test]
fn box_touchdown_converges_with_contact_conditions() {
    let prob = load("box_touchdown", TranscriptionKind::Variational(2), None);
    let outcome = solve(&prob, &mut std::io::sink()).unwrap();
    let r = &outcome.result;
    assert_eq!(r.status, Status::Converged, "{}", r.message);
    let contact = outcome.contact.expect("contact residuals");
    assert!(
        contact.largest_complementarity_product <= prob.solver.complementarity_tolerance,
        "{contact:?}"
    );
    assert!(
        contact.deepest_penetration <= prob.solver.constraint_tolerance,
        "{contact:?}"
    );
    trajectory_gaps_are_the_corners_heights(&prob, &outcome);
}

/// `trajectory.csv`'s gaps are those of the sampled configuration, not interpolated: on flat
/// ground at height 0 each bottom corner's gap is its height, `z − x_c sin θ + z_c cos θ` for
/// the planar base `(x, z, θ)` (a turn about y) and the corner at `(x_c, z_c)` in the box's
/// frame (`robots/box.urdf`: `(±0.1, −0.05)`). The deepest of those heights below the ground
/// is the solve's own measure of the penetration between the points.
fn trajectory_gaps_are_the_corners_heights(prob: &TrajectoryProblem, outcome: &Outcome) {
    let dir = written(prob, outcome, "box-gaps");
    let mut reader = csv::Reader::from_path(dir.join("trajectory.csv")).unwrap();
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let corners = [("front_left_bottom", 0.1), ("back_left_bottom", -0.1)];
    let mut largest_between_points = 0.0_f64;
    let mut deepest = 0.0_f64;
    for record in reader.records() {
        let r = record.unwrap();
        let value = |name: &str| -> f64 { r[col(name)].parse().unwrap() };
        let (z, theta) = (value("q_base_z"), value("q_base_pitch"));
        for (corner, xc) in corners {
            let height = z - xc * theta.sin() - 0.05 * theta.cos();
            let gap = value(&format!("gap_{corner}"));
            assert!(
                (gap - height).abs() < 1e-9,
                "t = {}: gap_{corner} = {gap}, corner height {height}",
                value("t")
            );
            largest_between_points = largest_between_points.max(gap.abs());
            deepest = deepest.max(-height);
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    assert!(
        largest_between_points > 0.01,
        "the box falls from above the ground"
    );
    let measured = outcome.contact.expect("contact residuals");
    assert!(
        (measured.deepest_penetration_between_points - deepest).abs() < 1e-9,
        "the solve measures {} m between the points, the corners' heights {deepest} m",
        measured.deepest_penetration_between_points
    );
}

/// Hermite–Simpson on the passive box converges too, now that its interior knots carry a
/// velocity jump and an impulse (`transcription/knot_impulse.rs`; without them the touchdown
/// has no representation, `tests/hermite_simpson_touchdown.rs`). Checked against the physics
/// rather than the solver: the fall is exact up to the touchdown knot (`v = −g t`), the box
/// then rests on the ground (no bounce: every later point within 10⁻⁶ m of the ground and
/// nearly still) and, its momentum nearly zero after the impact, the ground's force over the
/// rest carries its weight: Simpson's rule of the normal forces over `[0.1, 0.4]` s equals
/// `m g · 0.3 s` within 1 %.
#[test]
fn box_touchdown_converges_with_hermite_simpson() {
    let prob = load("box_touchdown", TranscriptionKind::HermiteSimpson, None);
    let outcome = solve(&prob, &mut std::io::sink()).unwrap();
    let r = &outcome.result;
    assert_eq!(r.status, Status::Converged, "{}", r.message);
    let residuals = outcome.contact.expect("contact residuals");
    assert!(
        residuals.largest_complementarity_product <= prob.solver.complementarity_tolerance,
        "{residuals:?}"
    );
    assert!(
        residuals.deepest_penetration <= prob.solver.constraint_tolerance,
        "{residuals:?}"
    );
    let s = &outcome.solution;
    let contact = s.contact.as_ref().expect("contact trajectory");
    let g = 9.81;
    let touchdown = 4;
    assert!((s.times[touchdown] - 0.1).abs() < 1e-12);
    // Free fall through the first interval; in the second the touchdown knot's force bends
    // the cubic (a knot's acceleration is shared by both of its intervals), by less than a
    // millimetre at its midpoint.
    let z0 = prob.initial_q.lower[1];
    for p in 0..touchdown {
        let t = s.times[p];
        let (z, v) = (z0 - 0.5 * g * t * t, -g * t);
        let tolerance = if p < 3 { 1e-9 } else { 1e-3 };
        assert!(
            (s.q[p][1] - z).abs() < tolerance,
            "point {p}: z {}",
            s.q[p][1]
        );
        assert!(
            (s.v[p][1] - v).abs() < 1e-6 || p == 3,
            "point {p}: v_z {}",
            s.v[p][1]
        );
    }
    for p in touchdown..s.times.len() {
        for l in 0..contact.names.len() {
            assert!(
                contact.gap(p, l) < 1e-6,
                "point {p}: gap {}",
                contact.gap(p, l)
            );
        }
        assert!(s.v[p][1].abs() < 1e-2, "point {p}: v_z {}", s.v[p][1]);
    }
    let weight = contact.force_scale * contact.names.len() as f64;
    let h = s.times[2] - s.times[0];
    let total = |p: usize| {
        (0..contact.names.len())
            .map(|l| contact.normal_force(p, l))
            .sum::<f64>()
    };
    let last = s.times.len() - 1;
    let rest: f64 = (touchdown..=last)
        .map(|p| {
            let w = if p == touchdown || p == last {
                1.0
            } else if (p - touchdown) % 2 == 1 {
                4.0
            } else {
                2.0
            };
            w * h / 6.0 * total(p)
        })
        .sum();
    let expected = weight * (s.times[last] - s.times[touchdown]);
    assert!(
        (rest - expected).abs() <= 0.01 * expected,
        "impulse over the rest {rest} N s, weight × time {expected} N s"
    );
}

/// The planar hopper (`problems/hopper_hop.yaml`, smoothed complementarity, the default
/// schedule) converges with the Simpson VI from the default guess, and its contact conditions
/// hold: every product within the complementarity tolerance, no penetration. Independently of
/// the solver's own test, every pair of the final level satisfies the Fischer–Burmeister
/// identity `a·b = μ²` of its last smoothing (`Settings::smoothing_end`)
/// (but the gap pairs of the last two points, whose gap `final.at_rest` holds at zero). The
/// ground does no positive work beyond its tolerance, and the energy balance closes: the work
/// of the actuators and of the ground is the change of energy (zero: the hopper stands at rest
/// at both ends) to the integrator's accuracy. The report's force at a distance leaves out
/// the forces that stop the touchdowns at the terrain's reach.
#[test]
fn hopper_converges_with_contact_conditions() {
    let prob = load("hopper_hop", TranscriptionKind::Variational(2), None);
    assert!(matches!(
        prob.complementarity,
        ComplementarityMethod::Smoothing { end: None, .. }
    ));
    let outcome = solve(&prob, &mut std::io::sink()).unwrap();
    let r = &outcome.result;
    assert_eq!(r.status, Status::Converged, "{}", r.message);
    let contact = outcome.contact.expect("contact residuals");
    assert!(
        contact.largest_complementarity_product <= prob.solver.complementarity_tolerance,
        "{contact:?}"
    );
    assert!(contact.deepest_penetration <= 1e-4, "{contact:?}");
    // The forces that stop the touchdowns act at the reach (more than the weight), the
    // report's force at a distance is the smoothing's tail beyond it (below 1 % of those),
    // and beyond 5 mm no force reaches 1 % of the weight (`contact_check.py`'s bound).
    let weight = prob.model.total_mass() * 9.81;
    let forces = outcome
        .solution
        .contact
        .as_ref()
        .expect("contact trajectory");
    let reach = prob.contact.as_ref().expect("terrain").reach;
    let stopping = forces.residuals(reach).largest_force_at_a_distance;
    assert!(
        stopping > weight,
        "{stopping} N at the reach, weight {weight} N"
    );
    assert!(
        contact.largest_force_at_a_distance < 0.01 * stopping,
        "{contact:?}, {stopping} N at the reach"
    );
    let far = forces.residuals(5e-3).largest_force_at_a_distance;
    assert!(
        far <= 0.01 * weight,
        "{far} N beyond 5 mm, weight {weight} N"
    );
    let s = &prob.solver;
    let ComplementarityMethod::Smoothing { start, .. } = prob.complementarity else {
        unreachable!("matched above")
    };
    let mu = s.smoothing_end(start);
    report_history_follows_the_path(&prob, &outcome, start, mu);
    let e = &outcome.energy;
    assert!(
        e.ground_positive_work
            <= s.ground_work_fraction * e.actuator_positive_work + s.ground_work_allowance,
        "{e:?}"
    );
    assert!(
        e.ground_normal_work < 0.0 && e.ground_friction_work < 0.0,
        "{e:?}"
    );
    assert!(
        (e.kinetic_change + e.potential_change).abs() < 1e-9,
        "at rest at both ends, on the same ground: {e:?}"
    );
    assert!(
        e.residual.abs() < 0.01 * e.actuator_positive_work,
        "the balance closes to 1 % of the actuators' work: {e:?}"
    );
    let trajectory = outcome
        .solution
        .contact
        .as_ref()
        .expect("contact trajectory");
    let k = 2 + trajectory.directions;
    for (p, (rows, vars)) in trajectory
        .rows
        .iter()
        .zip(&trajectory.variables)
        .enumerate()
    {
        let closed = p + 2 >= trajectory.rows.len();
        for (row, var) in [(0, 0), (1, 1)].into_iter().chain((2..k).map(|j| (j, j))) {
            if closed && row == 0 {
                assert!(rows[row].abs() < 1e-9 && vars[var] >= 0.0, "point {p}");
                continue;
            }
            let product = rows[row] * vars[var];
            assert!(
                (product / (mu * mu) - 1.0).abs() < 0.05,
                "point {p}, pair {row}: {} * {} = {product:e}, μ² = {:e}",
                rows[row],
                vars[var],
                mu * mu
            );
        }
    }
}

/// `report.json`'s history has a row per iterate with the barrier parameter and the smoothing
/// the solver recorded, the smoothing running from the path's `start` down to its `end`.
fn report_history_follows_the_path(
    prob: &TrajectoryProblem,
    outcome: &Outcome,
    start: f64,
    end: f64,
) {
    let dir = written(prob, outcome, "history");
    let text = std::fs::read_to_string(dir.join("report.json")).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    let report: serde_json::Value = serde_json::from_str(&text).unwrap();
    let rows = report["history"].as_array().expect("history rows");
    let recorded = &outcome.result.history;
    assert_eq!(rows.len(), outcome.result.iterations + 1);
    assert_eq!(rows.len(), recorded.len());
    // JSON's decimal round trip may be off by an ulp.
    let same = |a: f64, b: f64| (a - b).abs() <= 1e-14 * b.abs();
    let value = |row: &serde_json::Value, key: &str| row[key].as_f64().unwrap();
    for (row, h) in rows.iter().zip(recorded) {
        assert_eq!(row["iteration"], h.iteration);
        assert!(same(value(row, "barrier"), h.barrier), "{row}");
        assert!(same(value(row, "smoothing"), h.smoothing), "{row}");
        assert_eq!(row["factorizations"], h.factorizations, "{row}");
    }
    let smoothing = |row: &serde_json::Value| value(row, "smoothing");
    assert!(same(smoothing(&rows[0]), start), "{}", rows[0]);
    assert!(
        same(smoothing(&rows[rows.len() - 1]), end),
        "{}",
        rows[rows.len() - 1]
    );
    assert!(
        rows.windows(2)
            .all(|w| smoothing(&w[1]) <= smoothing(&w[0]))
    );
    if matches!(outcome.result.method, Method::InteriorPoint) {
        assert!(rows.iter().all(|row| row["barrier"].as_f64() > Some(0.0)));
    }
}

#[test]
fn optimized_torques_reproduce_the_motion_at_the_integrators_order() {
    // The single-pendulum swing-up with 30 and 60 stages (a smooth optimum, the same for both;
    // at 15 stages the solver may settle in another, under-resolved pumping optimum):
    // re-simulating each stage from its first knot with the optimized torques reproduces the
    // next knot to an error that shrinks by about 2⁵ when the stage halves (the local error of
    // the 4th-order Simpson VI).
    let mut errors = Vec::new();
    for stages in [30, 60] {
        let mut prob = load(
            "pendulum_swingup_1",
            TranscriptionKind::Variational(2),
            None,
        );
        prob.stages = stages;
        let outcome = solve(&prob, &mut std::io::sink()).unwrap();
        assert_eq!(outcome.result.status, Status::Converged);
        let acc = dynamic_accuracy(&prob.model, &outcome.solution, 1e-3);
        eprintln!("N = {stages}: {acc:?}");
        errors.push(acc.local_q_error);
    }
    let ratio = errors[0] / errors[1];
    assert!(
        errors[1] < 1e-4,
        "one-stage error {:e} at N = 60",
        errors[1]
    );
    assert!(
        ratio > 16.0,
        "error ratio {ratio:.1} when halving the stage (local order 5 gives 32)"
    );
}

//! A mimic-coupled chain moves exactly as the chain reduced by hand (one joint driving both
//! coupled links): simulated with the coupling as a holonomic constraint of the VI, and solved as
//! a trajectory optimization with the coupling as a joint equality. Without the coupling it does
//! not.

mod fixtures;
mod scratch;

use fixtures::quirks::{MIMIC_OFFSET, mimic_chain, mimic_chain_reduced};
use vito::model::{BaseKind, Model, parse_urdf};
use vito::nlp::Status;
use vito::problem::{ProblemOverrides, load_problem};
use vito::transcription::solve;
use vito::vi::Galerkin;
use vito::vi::simulate::{SimulationOptions, simulate};

fn models() -> (Model, Model) {
    let coupled = parse_urdf(&mimic_chain(), "mimic_chain", BaseKind::Fixed).unwrap();
    let reduced = parse_urdf(&mimic_chain_reduced(), "reduced", BaseKind::Fixed).unwrap();
    // Depth-first order: j3 hangs from A, so it comes before j2.
    assert_eq!(coupled.joint_names(), ["j1", "j3", "j2"]);
    assert_eq!(reduced.joint_names(), ["j1", "j3"]);
    (coupled, reduced)
}

/// `max_k max(|q₁ − r₁|, |q₃ − r₃|)` and `max_k |q₂ − (−q₁ + o)|` over a coupled trajectory
/// (joints j1, j3, j2) and a reduced one (j1, j3).
fn deviation(coupled: &[Vec<f64>], reduced: &[Vec<f64>]) -> (f64, f64) {
    assert_eq!(coupled.len(), reduced.len());
    let (mut motion, mut coupling) = (0.0f64, 0.0f64);
    for (c, r) in coupled.iter().zip(reduced) {
        motion = motion.max((c[0] - r[0]).abs()).max((c[1] - r[1]).abs());
        coupling = coupling.max((c[2] - (-c[0] + MIMIC_OFFSET)).abs());
    }
    (motion, coupling)
}

#[test]
fn simulated_mimic_chain_moves_as_the_hand_reduced_chain() {
    let (coupled, reduced) = models();
    let gal = Galerkin::simpson();
    let opts = SimulationOptions {
        dt: 0.01,
        steps: 150,
        tolerance: 1e-13,
        max_iterations: 40,
        ..SimulationOptions::default()
    };
    let mut no_torque = |_: f64, u: &mut [f64]| u.fill(0.0);
    let (q1, v1, q3, v3) = (0.6, 0.8, -0.4, 0.3);
    let mut run = |m: &Model| {
        simulate(
            m,
            &gal,
            &[q1, q3, -q1 + MIMIC_OFFSET],
            &[v1, v3, -v1],
            &mut no_torque,
            &[],
            &opts,
        )
    };
    let c = run(&coupled);
    assert!(c.failure.is_none(), "{:?}", c.failure);
    let r = simulate(
        &reduced,
        &gal,
        &[q1, q3],
        &[v1, v3],
        &mut |_: f64, u: &mut [f64]| u.fill(0.0),
        &[],
        &opts,
    );
    assert!(r.failure.is_none());
    let (motion, coupling) = deviation(&c.trajectory.q, &r.trajectory.q);
    assert!(motion < 1e-8, "coupled vs reduced: {motion:e}");
    assert!(coupling < 1e-10, "coupling violated by {coupling:e}");
    // Without the coupling, B swings on its own.
    let free = coupled.uncoupled(&["j2".into()]).unwrap();
    let f = run(&free);
    let (motion, coupling) = deviation(&f.trajectory.q, &r.trajectory.q);
    assert!(motion > 1e-3 && coupling > 1e-3, "{motion} {coupling}");
}

const SOLVER: &str = "solver: {tolerance: 1.0e-11, constraint_tolerance: 1.0e-12, \
                      max_iterations: 200, print_level: 0, progress_bar: false}";

fn solve_file(dir: &std::path::Path, name: &str, body: &str) -> vito::transcription::Outcome {
    let file = dir.join(format!("{name}.yaml"));
    std::fs::write(&file, format!("name: {name}\n{body}\n{SOLVER}\n")).unwrap();
    let prob = load_problem(&file, &ProblemOverrides::default()).unwrap_or_else(|e| panic!("{e}"));
    let out = solve(&prob, &mut std::io::sink()).unwrap();
    assert_eq!(out.result.status, Status::Converged, "{name}");
    out
}

#[test]
fn optimized_mimic_chain_moves_as_the_hand_reduced_chain() {
    for transcription in ["simpson_vi", "trapezoid_vi"] {
        optimized_mimic_chain(transcription);
    }
}

#[test]
fn collocation_refuses_mimic_couplings() {
    let dir = scratch::fresh_dir("vito-mimic-hs");
    std::fs::write(dir.join("coupled.urdf"), mimic_chain()).unwrap();
    let file = dir.join("hs.yaml");
    std::fs::write(
        &file,
        "name: hs\nrobot: coupled.urdf\nduration: 1\nstages: 4\ntranscription: hermite_simpson\n",
    )
    .unwrap();
    let err = load_problem(&file, &ProblemOverrides::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("hermite_simpson") && err.contains("j2"),
        "{err}"
    );
    std::fs::write(
        &file,
        "name: hs\nrobot: coupled.urdf\nduration: 1\nstages: 4\ntranscription: hermite_simpson\n\
         uncouple: [j2]\n",
    )
    .unwrap();
    assert!(load_problem(&file, &ProblemOverrides::default()).is_ok());
}

fn optimized_mimic_chain(transcription: &str) {
    let dir = scratch::fresh_dir("vito-mimic");
    std::fs::write(dir.join("coupled.urdf"), mimic_chain()).unwrap();
    std::fs::write(dir.join("reduced.urdf"), mimic_chain_reduced()).unwrap();
    let common = format!(
        "duration: 1.0\nstages: 8\ntranscription: {transcription}\nbounds: {{u: [-100, 100]}}"
    );
    // Rest to rest. The follower's input is the coupling force (free of cost, unbounded); the
    // leader's is the torque of the mechanism's one motor, as in the reduced chain.
    let coupled = solve_file(
        &dir,
        "coupled",
        &format!(
            "robot: coupled.urdf\n{common}\ninitial: {{q: [0, 0, free], v: [0, 0, 0]}}\n\
             final: {{q: [0.8, -0.4, free], v: [0, 0, 0]}}\ncosts: {{effort: 1.0}}"
        ),
    );
    let reduced = solve_file(
        &dir,
        "reduced",
        &format!(
            "robot: reduced.urdf\n{common}\ninitial: {{q: [0, 0], v: [0, 0]}}\n\
             final: {{q: [0.8, -0.4], v: [0, 0]}}\ncosts: {{effort: 1.0}}"
        ),
    );
    let (c, r) = (&coupled.solution, &reduced.solution);
    let (motion, coupling) = deviation(&c.q, &r.q);
    assert!(
        motion < 1e-8,
        "{transcription}: coupled vs reduced motion: {motion:e}"
    );
    assert!(coupling < 1e-10, "coupling violated by {coupling:e}");
    let mut torque = 0.0f64;
    for (uc, ur) in c.u.iter().zip(&r.u) {
        torque = torque.max((uc[0] - ur[0]).abs()).max((uc[1] - ur[1]).abs());
    }
    let scale = r.u.iter().flatten().fold(1.0f64, |a, x| a.max(x.abs()));
    assert!(torque < 1e-8 * scale, "torques differ by {torque:e}");
    let dobj = (coupled.result.objective - reduced.result.objective).abs();
    assert!(
        dobj < 1e-8 * reduced.result.objective,
        "objectives differ by {dobj:e}"
    );

    // Uncoupled, the second link moves on its own and the motion is another.
    let free = solve_file(
        &dir,
        "uncoupled",
        &format!(
            "robot: coupled.urdf\n{common}\nuncouple: [j2]\n\
             initial: {{q: [0, 0, 0.3], v: [0, 0, 0]}}\nfinal: {{q: [0.8, -0.4, 0.0], v: [0, 0, 0]}}\n\
             costs: {{effort: 1.0}}"
        ),
    );
    let (motion, coupling) = deviation(&free.solution.q, &r.q);
    assert!(motion > 1e-4 && coupling > 1e-3, "{motion} {coupling}");
}

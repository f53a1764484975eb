//! The transcriptions as NLPs: sizes against seed 000 Table 1, and their Jacobians and
//! Hessians against central finite differences on small instances.

mod fixtures;
mod scratch;

use nalgebra::DMatrix;
use std::path::PathBuf;
use vito::nlp::Nlp;
use vito::problem::{ProblemOverrides, TrajectoryProblem, load_problem};
use vito::transcription::{CollocationNlp, StaticNlp, VariationalNlp};

fn problem(name: &str, text: &str) -> TrajectoryProblem {
    let dir = scratch::fresh_dir("vito-transcription");
    let robots = concat!(env!("CARGO_MANIFEST_DIR"), "/robots");
    let p: PathBuf = dir.join(name);
    std::fs::write(&p, text.replace("ROBOTS", robots)).unwrap();
    load_problem(&p, &ProblemOverrides::default()).unwrap_or_else(|e| panic!("{e}"))
}

fn dense_jacobian(nlp: &mut dyn Nlp, x: &[f64]) -> DMatrix<f64> {
    let (n, m) = (nlp.num_variables(), nlp.num_constraints());
    let s = nlp.jacobian_structure();
    let mut v = vec![0.0; s.len()];
    nlp.jacobian_values(x, &mut v).unwrap();
    let mut j = DMatrix::zeros(m, n);
    for (&(r, c), val) in s.iter().zip(&v) {
        j[(r, c)] += val;
    }
    j
}

fn fd_jacobian(nlp: &mut dyn Nlp, x: &[f64]) -> DMatrix<f64> {
    let (n, m) = (nlp.num_variables(), nlp.num_constraints());
    let mut j = DMatrix::zeros(m, n);
    let (mut cp, mut cm) = (vec![0.0; m], vec![0.0; m]);
    let mut xp = x.to_vec();
    for c in 0..n {
        let h = 1e-6 * x[c].abs().max(1.0);
        xp[c] = x[c] + h;
        nlp.constraints(&xp, &mut cp).unwrap();
        xp[c] = x[c] - h;
        nlp.constraints(&xp, &mut cm).unwrap();
        xp[c] = x[c];
        for r in 0..m {
            j[(r, c)] = (cp[r] - cm[r]) / (2.0 * h);
        }
    }
    j
}

/// A point away from the starting guess, so that nothing is zero by accident.
fn perturbed(nlp: &dyn Nlp, seed: u64) -> Vec<f64> {
    let mut x = vec![0.0; nlp.num_variables()];
    nlp.initial_point(&mut x);
    for (k, v) in x.iter_mut().enumerate() {
        *v += 0.1 * (((k as u64 + 1) * (seed + 3)) as f64 * 0.618).sin();
    }
    x
}

fn rel(a: &DMatrix<f64>, b: &DMatrix<f64>) -> f64 {
    (a - b).norm() / b.norm().max(1e-12)
}

const PENDULUM2: &str = "name: p2\nrobot: ROBOTS/pendulum2.urdf\nduration: 1.0\nstages: 3\n\
initial: {q: [0.1, 0.2], v: [0, 0.2]}\nfinal: {q: [3.0, free], v: [0, 0]}\nbounds: {u: [-50, 50], v: [-30, 30]}\n\
costs: {effort: 1.0, velocity: 0.3, tracking: {weight: [0.5, 2], q: [1, 1]}, terminal: {weight: 2, q: [3, 0]},\n\
  targets: [{frame: tip, position: [0.3, 0, 0.2], weight: 3, time: 0.5}, {frame: tip, position: [0, 0, 0], weight: 0.1, time: path}]}\n\
constraints:\n  - frame_position: {frame: tip, position: [0.2, 0, 0.1], time: end, axes: [x]}\n  - joint_equality: {joint: joint1, equals: joint2, ratio: 0.5}\n";

const BIPED_FREE_V: &str = "name: b\nrobot: ROBOTS/planar_biped.urdf\nbase: planar\nduration: 0.4\nstages: 2\n\
initial: {q: {base_z: 0.9}, v: {base_x: 0.3, base_z: [-1, 1]}}\nfinal: {v: {base_x: [0, 1]}}\ncosts: {effort: 0.01, velocity: {base_x: 0.2, l_knee: 0.1}, terminal: {weight: 1, v: [0.3, 0, 0, 0, 0, 0, 0, 0, 0]}}\n\
constraints:\n  - frame_orientation: {frame: torso, rpy: [0, 0.1, 0], time: 0.2}\n";

/// The biped's toes beside a box's rounded edge (in its fillet with the ground): every
/// curvature term of the contact conditions is non-zero.
const BIPED_CONTACT: &str =
    "name: bc\nrobot: ROBOTS/planar_biped.urdf\nbase: planar\nduration: 0.2\n\
stages: 2\ninitial: {q: {base_z: 0.9}}\ncosts: {effort: 0.01}\n\
terrain: {friction: 0.7, edge_radius: 0.04, penetration: 0.001, dissipative_knots: true,
  boxes: [{x: [0.2, 0.6], top: 0.09}]}\n";

/// Clearance from the box of [`BIPED_CONTACT`]: samples beside it, off its top edge and
/// above its top (`obstacle_clearance`), on a foot and a shank.
const BIPED_CLEARANCE: &str = "constraints:\n  \
- obstacle_clearance: {frame: l_foot, from: [0.1725, 0, -0.04], to: [0.1, 0, 0.3], samples: 4, margin: 0.01}\n  \
- obstacle_clearance: {frame: r_foot, from: [0.1, 0, 0.15], to: [0.4, 0, 0.15], samples: 4, margin: 0.01}\n  \
- obstacle_clearance: {frame: r_shank, from: [0, 0, 0], to: [0, 0, -0.42], samples: 3, margin: 0.01}\n";

/// The quadruped's front feet over a gap's rounded rim, in 3-D (four friction directions).
const QUADRUPED_CONTACT: &str = "name: qc\nrobot: ROBOTS/quadruped.urdf\nbase: floating\n\
duration: 0.2\nstages: 2\ninitial: {q: {base_z: 0.19}}\ncosts: {effort: 0.01}\n\
terrain: {friction: 0.6, edge_radius: 0.03, penetration: 0.001, dissipative_knots: true,
  gaps: [{x: [0.1, 0.3], depth: 0.1}]}\n";

/// Clearance from the gap of [`QUADRUPED_CONTACT`]: the front left foot's centre (one
/// sample) near the opening's corner, a short segment of the front right foot.
const QUADRUPED_CLEARANCE: &str = "constraints:\n  \
- obstacle_clearance: {frame: fl_foot, from: [0, 0, 0], to: [0, 0, 0], samples: 1, margin: 0.01}\n  \
- obstacle_clearance: {frame: fr_foot, from: [0, 0, 0], to: [0.02, 0, -0.01], samples: 2, margin: 0.01}\n";

/// The humanoid on its right foot (stance wrench, cone and held pose at every point, the pose
/// rows at the first point too since `initial.q` is free), the left foot kept above the
/// ground, the palm pulled to a point.
const HUMANOID_STANCE: &str = "name: hs\nrobot: ROBOTS/humanoid.urdf\nbase: floating\n\
duration: 0.1\nstages: 1\ninitial: {q: {base_z: [0.9, 1.0], l_leg_kny: 0.5}}\n\
stance: [{frame: r_sole, friction: 0.7, sole: {x: [-0.09, 0.17], y: [-0.07, 0.06]}, \
position: [0.01, -0.09, 0.02], rpy: [0.02, -0.01, 0.03]}]\n\
constraints:\n  - frame_bounds: {frame: l_foot_rear_left, x: [-1, 1], z: [0.05, .inf]}\n  \
- frame_position: {frame: l_palm, position: [0.3, 0.3, 0.6], time: end}\n\
costs: {effort: 0.01, tracking: {weight: 0.5, q: [0, 0, 0.93, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]}}\n";

/// The contact problems' cost, and with the energy friction dissipates charged
/// (`costs.friction_work`, the bilinear `ψ Σ b` of the contact variables).
const FRICTIONLESS_COST: &str = "costs: {effort: 0.01}";
const FRICTION_WORK_COST: &str = "costs: {effort: 0.01, friction_work: 0.5}";

/// The mimic chain of `fixtures::quirks`: its follower's input acts on its leader too.
fn mimic_problem() -> TrajectoryProblem {
    let dir = scratch::fresh_dir("vito-transcription-mimic");
    std::fs::write(dir.join("chain.urdf"), fixtures::quirks::mimic_chain()).unwrap();
    let p = dir.join("m.yaml");
    std::fs::write(
        &p,
        "name: m\nrobot: chain.urdf\nduration: 0.5\nstages: 2\ninitial: {q: [0.1, 0, free]}\n\
         final: {q: [0.5, 0.2, free]}\ncosts: {effort: 1.0}\n",
    )
    .unwrap();
    let prob = load_problem(&p, &ProblemOverrides::default()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        prob.model.drives().len(),
        4,
        "j1, j3, j2 and j2's force on j1"
    );
    prob
}

fn instances() -> Vec<(String, TrajectoryProblem, usize)> {
    let p2 = problem("p2.yaml", PENDULUM2);
    let biped = problem("b.yaml", BIPED_FREE_V);
    let biped_contact = problem(
        "bc.yaml",
        &format!("{BIPED_CONTACT}complementarity: {{method: penalty}}\n"),
    );
    let quadruped_contact = problem(
        "qc.yaml",
        &format!("{QUADRUPED_CONTACT}complementarity: {{method: penalty}}\n"),
    );
    let humanoid_stance = problem("hs.yaml", HUMANOID_STANCE);
    let smoothed = problem(
        "bs.yaml",
        &format!(
            "{}complementarity: {{method: smoothing, start: 0.05}}\n",
            BIPED_CONTACT
                .replace(
                    "initial: {q: {base_z: 0.9}}",
                    "initial: {q: {base_z: 0.9}, at_rest: [l_heel, r_toe]}\nfinal: {at_rest: [l_toe]}"
                )
                .replace(FRICTIONLESS_COST, FRICTION_WORK_COST)
        ),
    );
    let clearance = problem(
        "bo.yaml",
        &format!("{BIPED_CONTACT}{BIPED_CLEARANCE}complementarity: {{method: penalty}}\n"),
    );
    let relaxed = problem(
        "br.yaml",
        &format!(
            "{}{QUADRUPED_CLEARANCE}complementarity: {{method: relaxation}}\n",
            QUADRUPED_CONTACT
                .replace(
                    "initial: {q: {base_z: 0.19}}",
                    "initial: {q: {base_z: 0.19}, v: {base_x: 0.1}, at_rest: [hl_foot]}\n\
                     final: {v: {base_z: 0}, at_rest: [fl_foot, hr_foot]}"
                )
                .replace(FRICTIONLESS_COST, FRICTION_WORK_COST)
        ),
    );
    vec![
        ("humanoid stance simpson".into(), humanoid_stance, 2),
        ("mimic chain simpson".into(), mimic_problem(), 2),
        ("pendulum2 simpson".into(), p2.clone(), 2),
        ("pendulum2 trapezoid".into(), p2.clone(), 1),
        ("pendulum2 galerkin:3".into(), p2, 3),
        ("biped simpson".into(), biped, 2),
        ("biped penalty contact simpson".into(), biped_contact, 2),
        (
            "quadruped penalty contact simpson".into(),
            quadruped_contact,
            2,
        ),
        (
            "biped smoothed contact at rest, friction work, simpson".into(),
            smoothed,
            2,
        ),
        ("biped obstacle clearance simpson".into(), clearance, 2),
        (
            "quadruped relaxed contact at rest, friction work, simpson".into(),
            relaxed,
            2,
        ),
    ]
}

/// Every transcription of every instance: the VI with its `s`, then Hermite–Simpson, and for
/// stances the static balance.
fn nlps(instances: &[(String, TrajectoryProblem, usize)]) -> Vec<(String, Box<dyn Nlp + '_>)> {
    let mut out: Vec<(String, Box<dyn Nlp + '_>)> = Vec::new();
    for (name, prob, s) in instances {
        if !prob.stances.is_empty() {
            let statics = name.replace("simpson", "static balance");
            out.push((statics, Box::new(StaticNlp::new(prob))));
        }
        out.push((
            name.clone(),
            Box::new(VariationalNlp::new(prob, *s).unwrap()),
        ));
        if *s == 2 {
            let hs = name.replace("simpson", "hermite_simpson");
            out.push((hs, Box::new(CollocationNlp::new(prob).unwrap())));
        }
    }
    out
}

#[test]
fn jacobians_match_finite_differences() {
    let inst = instances();
    for (name, mut nlp) in nlps(&inst) {
        let nlp = nlp.as_mut();
        let x = perturbed(nlp, 1);
        let exact = dense_jacobian(nlp, &x);
        let fd = fd_jacobian(nlp, &x);
        let e = rel(&exact, &fd);
        assert!(e < 1e-6, "{name}: Jacobian relative error {e:e}");
    }
}

/// The objective's gradient (every cost of every instance: effort, velocity, tracking,
/// terminal, frame targets, the contact penalty, the friction work) against central differences of the
/// objective.
#[test]
fn gradients_match_finite_differences() {
    let inst = instances();
    for (name, mut nlp) in nlps(&inst) {
        let nlp = nlp.as_mut();
        let x = perturbed(nlp, 2);
        let n = nlp.num_variables();
        let mut exact = vec![0.0; n];
        nlp.gradient(&x, &mut exact).unwrap();
        let mut xp = x.clone();
        let fd: Vec<f64> = (0..n)
            .map(|c| {
                let h = 1e-6 * x[c].abs().max(1.0);
                xp[c] = x[c] + h;
                let fp = nlp.objective(&xp).unwrap();
                xp[c] = x[c] - h;
                let fm = nlp.objective(&xp).unwrap();
                xp[c] = x[c];
                (fp - fm) / (2.0 * h)
            })
            .collect();
        let (exact, fd) = (DMatrix::from_vec(n, 1, exact), DMatrix::from_vec(n, 1, fd));
        let e = rel(&exact, &fd);
        assert!(e < 1e-6, "{name}: gradient relative error {e:e}");
    }
}

fn lagrangian_gradient(nlp: &mut dyn Nlp, x: &[f64], sigma: f64, lambda: &[f64]) -> Vec<f64> {
    let n = nlp.num_variables();
    let mut g = vec![0.0; n];
    nlp.gradient(x, &mut g).unwrap();
    for v in &mut g {
        *v *= sigma;
    }
    let s = nlp.jacobian_structure();
    let mut vals = vec![0.0; s.len()];
    nlp.jacobian_values(x, &mut vals).unwrap();
    for (&(r, c), v) in s.iter().zip(&vals) {
        g[c] += lambda[r] * v;
    }
    g
}

/// The Hessian of the Lagrangian from the lower-triangle triplets, as a full matrix.
fn dense_hessian(
    nlp: &mut dyn Nlp,
    x: &[f64],
    sigma: f64,
    lambda: &[f64],
    name: &str,
) -> DMatrix<f64> {
    let n = nlp.num_variables();
    let st = nlp.hessian_structure().unwrap();
    let mut vals = vec![0.0; st.len()];
    nlp.hessian_values(x, sigma, lambda, &mut vals).unwrap();
    let mut h = DMatrix::zeros(n, n);
    for (&(r, c), v) in st.iter().zip(&vals) {
        assert!(r >= c, "{name}: upper-triangle entry ({r}, {c})");
        h[(r, c)] += v;
        if r != c {
            h[(c, r)] += v;
        }
    }
    h
}

/// Central differences of the Lagrangian gradient.
fn fd_hessian(nlp: &mut dyn Nlp, x: &[f64], sigma: f64, lambda: &[f64]) -> DMatrix<f64> {
    let n = nlp.num_variables();
    let mut fd = DMatrix::zeros(n, n);
    let mut xp = x.to_vec();
    for c in 0..n {
        let step = 1e-5 * x[c].abs().max(1.0);
        xp[c] = x[c] + step;
        let gp = lagrangian_gradient(nlp, &xp, sigma, lambda);
        xp[c] = x[c] - step;
        let gm = lagrangian_gradient(nlp, &xp, sigma, lambda);
        xp[c] = x[c];
        for r in 0..n {
            fd[(r, c)] = (gp[r] - gm[r]) / (2.0 * step);
        }
    }
    fd
}

#[test]
fn hessians_match_differences_of_the_lagrangian_gradient() {
    hessians_against_lagrangian_differences(&instances());
}

#[test]
fn hessians_of_every_robot_match_differences_of_the_lagrangian_gradient() {
    hessians_against_lagrangian_differences(&every_robot());
}

fn hessians_against_lagrangian_differences(inst: &[(String, TrajectoryProblem, usize)]) {
    for (name, mut nlp) in nlps(inst) {
        let nlp = nlp.as_mut();
        let x = perturbed(nlp, 2);
        let m = nlp.num_constraints();
        let lambda: Vec<f64> = (0..m).map(|r| ((r as f64) * 1.3).cos()).collect();
        let sigma = 0.7;
        let h = dense_hessian(nlp, &x, sigma, &lambda, &name);
        let fd = fd_hessian(nlp, &x, sigma, &lambda);
        let e = rel(&h, &fd);
        assert!(e < 1e-5, "{name}: Hessian relative error {e:e}");
    }
}

/// One small problem per bundled robot beside the instances above: the arm, the humanoid, the
/// hopper (in contact with the ground), the box and the 12-link pendulum.
fn every_robot() -> Vec<(String, TrajectoryProblem, usize)> {
    let text = [
        (
            "arm7",
            "name: a\nrobot: ROBOTS/arm7.urdf\nduration: 0.5\nstages: 2\n\
             initial: {q: [0, 0.4, 0, -1, 0, 0.6, 0], v: [0, 0, 0, 0, 0, 0, 0]}\n\
             final: {q: [0.3, 0.2, 0.1, -0.8, 0.2, 0.4, 0.1]}\ncosts: {effort: 0.1}\n",
        ),
        (
            "humanoid",
            "name: h\nrobot: ROBOTS/humanoid.urdf\nbase: floating\nduration: 0.3\nstages: 2\n\
             initial: {q: {base_z: 0.94}}\nfinal: {q: {base_z: 0.9, l_arm_shx: 0.5, r_leg_kny: 0.4}}\n\
             costs: {effort: 0.01}\n",
        ),
        (
            "hopper contact",
            "name: ho\nrobot: ROBOTS/hopper.urdf\nbase: planar\nduration: 0.2\nstages: 2\n\
             initial: {q: {base_z: 0.55, hip: -0.5, knee: 1.0}}\nterrain: {friction: 0.8}\n\
             costs: {effort: 0.01}\n",
        ),
        (
            "box",
            "name: bx\nrobot: ROBOTS/box.urdf\nbase: floating\nduration: 0.3\nstages: 2\n\
             initial: {q: {base_z: 0.5, base_yaw: 0.3, base_roll: 0.2}}\n",
        ),
        (
            "pendulum12",
            "name: p12\nrobot: ROBOTS/pendulum12.urdf\nduration: 0.5\nstages: 2\n\
             initial: {q: [0.1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], v: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]}\n\
             costs: {effort: 1.0}\n",
        ),
    ];
    text.iter()
        .map(|(name, t)| {
            let prob = problem(&format!("{}.yaml", name.replace(' ', "_")), t);
            (format!("{name} simpson"), prob, 2)
        })
        .collect()
}

/// A transcription with the Hessian route its dynamics curvature replaced.
enum Both<'a> {
    Vi(Box<VariationalNlp<'a>>),
    Hs(Box<CollocationNlp<'a>>),
}

impl Both<'_> {
    fn nlp(&mut self) -> &mut dyn Nlp {
        match self {
            Both::Vi(n) => n.as_mut(),
            Both::Hs(n) => n.as_mut(),
        }
    }

    fn by_differences(&mut self, x: &[f64], sigma: f64, lambda: &[f64], out: &mut [f64]) {
        match self {
            Both::Vi(n) => n.hessian_values_by_differences(x, sigma, lambda, out),
            Both::Hs(n) => n.hessian_values_by_differences(x, sigma, lambda, out),
        }
        .unwrap();
    }
}

#[test]
fn hessians_match_the_route_they_replaced() {
    let mut inst = instances();
    inst.extend(every_robot());
    for (name, prob, s) in &inst {
        let n = prob.model.dof();
        // The dynamics rows come first: s·N·n DEL rows, or one inverse-dynamics block per
        // knot and midpoint.
        let mut both = vec![(
            name.clone(),
            Both::Vi(Box::new(VariationalNlp::new(prob, *s).unwrap())),
            s * prob.stages * n,
        )];
        if *s == 2 {
            both.push((
                name.replace("simpson", "hermite_simpson"),
                Both::Hs(Box::new(CollocationNlp::new(prob).unwrap())),
                (2 * prob.stages + 1) * n,
            ));
        }
        for (name, mut t, dynamics_rows) in both {
            let x = perturbed(t.nlp(), 3);
            let m = t.nlp().num_constraints();
            let len = t.nlp().hessian_structure().unwrap().len();
            // Every row and the objective; then the dynamics rows alone, so that nothing but
            // their curvature is compared.
            for (sigma, rows) in [(0.3, m), (0.0, dynamics_rows)] {
                let lambda: Vec<f64> = (0..m)
                    .map(|r| {
                        if r < rows {
                            ((r as f64) * 0.7).sin()
                        } else {
                            0.0
                        }
                    })
                    .collect();
                let (mut new, mut old) = (vec![0.0; len], vec![0.0; len]);
                t.nlp()
                    .hessian_values(&x, sigma, &lambda, &mut new)
                    .unwrap();
                t.by_differences(&x, sigma, &lambda, &mut old);
                let e = rel_vec(&new, &old);
                assert!(
                    e < 1e-6,
                    "{name} ({rows} rows): Hessian vs the route it replaced {e:e}"
                );
            }
        }
    }
}

fn rel_vec(a: &[f64], b: &[f64]) -> f64 {
    let d: f64 = a.iter().zip(b).map(|(x, y)| (x - y).powi(2)).sum();
    let n: f64 = b.iter().map(|y| y * y).sum();
    (d / n.max(1e-300)).sqrt()
}

#[test]
fn variable_and_constraint_counts_follow_table_1() {
    // Fully actuated, fixed boundary velocities, no path rows: Table 1 gives (4N+3)n variables
    // for the Simpson VI; its (3N)n constraints count the N·n momentum equations 5c that this
    // transcription substitutes into the next stage, leaving 2Nn DEL rows plus 2n boundary rows.
    for (links, stages) in [(1, 5), (3, 10), (12, 4)] {
        let text = format!(
            "name: t\nrobot: ROBOTS/pendulum{links}.urdf\nduration: 1\nstages: {stages}\n\
             initial: {{q: {z}, v: {z}}}\nfinal: {{v: {z}}}\n",
            z = format!("[{}]", vec!["0"; links].join(", "))
        );
        let prob = problem("count.yaml", &text);
        let nlp = VariationalNlp::new(&prob, 2).unwrap();
        let (n, big_n) = (links, stages);
        assert_eq!(
            nlp.num_variables(),
            (4 * big_n + 3) * n,
            "variables, n = {n}, N = {big_n}"
        );
        assert_eq!(
            nlp.num_constraints(),
            3 * big_n * n - (big_n - 2) * n,
            "rows, n = {n}, N = {big_n}"
        );
        assert_eq!(nlp.num_constraints(), 2 * big_n * n + 2 * n);
        // Implicit Hermite–Simpson: (8N+4)n variables and (6N+1)n constraints, as in Table 1.
        let hs = CollocationNlp::new(&prob).unwrap();
        assert_eq!(
            hs.num_variables(),
            (8 * big_n + 4) * n,
            "HS variables, n = {n}, N = {big_n}"
        );
        assert_eq!(
            hs.num_constraints(),
            (6 * big_n + 1) * n,
            "HS rows, n = {n}, N = {big_n}"
        );
    }
}

/// A stance foot is a holonomic constraint of `m = 6` with its force as variables at each of the
/// `2N + 1` points (Table 1's `(2N+1)m` variables for both transcriptions), held by six
/// position rows per point, plus the 16 rows of its wrench cone per point; Hermite–Simpson adds
/// six acceleration rows at its first point.
#[test]
fn a_stance_adds_its_wrench_and_rows_at_every_point() {
    let base = "name: t\nrobot: ROBOTS/box.urdf\nbase: floating\nduration: 0.3\nstages: 3\n\
                contact_points: [{name: bottom, frame: box, offset: [0, 0, -0.05]}]\n\
                initial: {q: {base_z: [0, 0.1]}, v: [0, 0, 0, 0, 0, 0]}\n";
    let stance = "stance: [{frame: bottom, friction: 0.5, sole: {x: [-0.1, 0.1], y: [-0.1, 0.1]}, \
                  position: [0, 0, 0], rpy: [0, 0, 0]}]\n";
    let free = problem("free.yaml", base);
    let held = problem("held.yaml", &format!("{base}{stance}"));
    let points = 2 * 3 + 1;
    let (m, cone) = (6, 16);
    let vi = |p| VariationalNlp::new(p, 2).unwrap();
    let (a, b) = (vi(&free), vi(&held));
    assert_eq!(b.num_variables() - a.num_variables(), points * m);
    assert_eq!(
        b.num_constraints() - a.num_constraints(),
        points * (m + cone)
    );
    let (a, b) = (
        CollocationNlp::new(&free).unwrap(),
        CollocationNlp::new(&held).unwrap(),
    );
    assert_eq!(b.num_variables() - a.num_variables(), points * m);
    // Hermite-Simpson also holds the sole's acceleration at the first point.
    assert_eq!(
        b.num_constraints() - a.num_constraints(),
        points * (m + cone) + m
    );
}

#[test]
fn straight_line_guess_ends_on_the_reach_target() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("problems/arm_reach.yaml");
    let prob = load_problem(&path, &ProblemOverrides::default()).unwrap_or_else(|e| panic!("{e}"));
    let (q, _) = vito::transcription::initial_trajectory(&prob, &[0.0, prob.duration]).unwrap();
    let model = &prob.model;
    for (i, &v) in q[1].iter().enumerate() {
        assert!(v >= prob.q_bounds.lower[i] && v <= prob.q_bounds.upper[i]);
    }
    assert_eq!(q[0], vec![0.0, 0.4, 0.0, -1.0, 0.0, 0.6, 0.0]);
    // Forward kinematics by composing the joint transforms directly (not the workspace).
    let tool = model.frame("tool").expect("arm has a tool frame");
    let mut pose = vec![vito::spatial::Transform::identity(); model.dof()];
    for j in 0..model.dof() {
        let joint = model.joint(j);
        let local = joint
            .placement
            .compose(&vito::spatial::exp_twist(&joint.twist, q[1][j]));
        pose[j] = match joint.parent {
            Some(p) => pose[p].compose(&local),
            None => local,
        };
    }
    let p = pose[tool.body].transform_point(&tool.placement.translation);
    let target = nalgebra::Vector3::new(0.55, 0.2, 0.45);
    assert!((p - target).norm() < 1e-6, "guess ends at {p:?}");
}

/// Hermite–Simpson's acceleration rows of a stance (its last six rows), alone: their Jacobian
/// against differences of the rows, and the Hessian of `λᵀr` with multipliers on those rows
/// only against differences of its gradient.
#[test]
fn hermite_simpson_stance_acceleration_rows_match_finite_differences() {
    let prob = problem("hs_acc.yaml", HUMANOID_STANCE);
    let mut nlp = CollocationNlp::new(&prob).unwrap();
    let x = perturbed(&nlp, 3);
    let m = nlp.num_constraints();
    let rows = m - 6..m;
    let exact = dense_jacobian(&mut nlp, &x)
        .rows(rows.start, 6)
        .into_owned();
    let fd = fd_jacobian(&mut nlp, &x).rows(rows.start, 6).into_owned();
    let e = rel(&exact, &fd);
    assert!(e < 1e-7, "Jacobian relative error {e:e}");
    assert!(
        exact.norm() > 1.0,
        "rows without dependence: {}",
        exact.norm()
    );
    let lambda: Vec<f64> = (0..m)
        .map(|r| {
            if rows.contains(&r) {
                1.0 + r as f64 % 3.0
            } else {
                0.0
            }
        })
        .collect();
    let h = dense_hessian(&mut nlp, &x, 0.0, &lambda, "acceleration rows");
    let fd = fd_hessian(&mut nlp, &x, 0.0, &lambda);
    let e = rel(&h, &fd);
    assert!(e < 1e-6, "Hessian relative error {e:e}");
    assert!(h.norm() > 1.0, "no curvature: {}", h.norm());
}

/// No constraint row is a combination of others or of the fixed variables: the whole Jacobian
/// of the 2-link pendulum problem (velocity bounds, a frame constraint at the end, boundary
/// rows), stacked over the unit rows of the variables the problem fixes (the initial
/// configuration and velocity), has full row rank for every `s`, away from the guess. (Its
/// joint equality is left out: a linear coupling of two velocity-bounded joints ties their
/// velocity rows through it, a dependency of the problem, not of the rows.)
#[test]
fn constraint_rows_are_independent() {
    let text = PENDULUM2.replace(
        "  - joint_equality: {joint: joint1, equals: joint2, ratio: 0.5}\n",
        "",
    );
    assert_ne!(text, PENDULUM2);
    let p2 = problem("p2.yaml", &text);
    for s in 1..=3 {
        let mut nlp = VariationalNlp::new(&p2, s).unwrap();
        let x = perturbed(&nlp, 2);
        let j = dense_jacobian(&mut nlp, &x);
        let fixed = bound_rows(&nlp, |l, u| l == u);
        assert_eq!(
            fixed.len(),
            3,
            "s = {s}: the initial configuration, the final joint1"
        );
        let rows: Vec<usize> = (0..j.nrows()).collect();
        let all = stack(&j, &rows, &fixed);
        let (lo, hi) = singular_range(&all);
        assert!(
            lo > 1e-8 * hi,
            "s = {s}: {} rows, smallest singular value {lo:e} of {hi:e}",
            all.nrows()
        );
    }
}

/// Smallest and largest singular value of `a`'s rows.
fn singular_range(a: &DMatrix<f64>) -> (f64, f64) {
    let sv = a.transpose().svd(false, false).singular_values;
    (sv.min(), sv.max())
}

/// The unit rows of the variables whose bounds `keep(lower, upper)` selects.
fn bound_rows(nlp: &dyn Nlp, keep: impl Fn(f64, f64) -> bool) -> Vec<usize> {
    let nv = nlp.num_variables();
    let (mut lower, mut upper) = (vec![0.0; nv], vec![0.0; nv]);
    nlp.variable_bounds(&mut lower, &mut upper);
    (0..nv).filter(|&j| keep(lower[j], upper[j])).collect()
}

/// `a`'s rows `rows` stacked over the unit rows of the variables `vars`.
fn stack(a: &DMatrix<f64>, rows: &[usize], vars: &[usize]) -> DMatrix<f64> {
    let mut out = DMatrix::zeros(rows.len() + vars.len(), a.ncols());
    for (r, &i) in rows.iter().enumerate() {
        out.set_row(r, &a.row(i));
    }
    for (r, &j) in vars.iter().enumerate() {
        out[(rows.len() + r, j)] = 1.0;
    }
    out
}

/// Every velocity bound of the VI can be active beside every other: its rows (the hodograph
/// coefficients of every stage) and the bounds of the knot velocities, all at once, have full
/// row rank, together with the fixed variables (the boundary configuration and velocity), for
/// `s = 1, 2, 3` and every bounded joint. Bounding Eq. 2's slope at all `s + 1` nodes fails
/// this (they span only `s`), and so does bounding, beside both end slopes, a velocity that
/// depends on the knot velocities (the quartic's slope at the midpoint for `s = 2` is
/// `¾(L'(0) + L'(1)) − ¼Δt(v_k + v_{k+1})`); its rank deficiency is one per stage and joint.
#[test]
fn velocity_bounds_are_independent_of_each_other() {
    let text = "name: t\nrobot: ROBOTS/pendulum2.urdf\nduration: 1\nstages: 4\n\
        initial: {q: [0, 0], v: [0, 0.5]}\nfinal: {v: [0, free]}\nbounds: {v: [-5, 5]}\n";
    let prob = problem("vi.yaml", text);
    let n = prob.model.dof();
    for s in 1..=3 {
        let mut nlp = VariationalNlp::new(&prob, s).unwrap();
        let x = perturbed(&nlp, 4);
        let j = dense_jacobian(&mut nlp, &x);
        let (mut cl, mut cu) = (vec![0.0; j.nrows()], vec![0.0; j.nrows()]);
        nlp.constraint_bounds(&mut cl, &mut cu);
        let rows: Vec<usize> = (0..j.nrows())
            .filter(|&r| cl[r] == -5.0 && cu[r] == 5.0)
            .collect();
        assert_eq!(rows.len(), 4 * s * n, "s = {s}: s rows per stage and joint");
        let knot_velocities = bound_rows(&nlp, |l, u| l == -5.0 && u == 5.0);
        let fixed = bound_rows(&nlp, |l, u| l == u);
        // Interior knots and the free final joint.
        assert_eq!(knot_velocities.len(), 3 * n + 1, "s = {s}");
        let vars: Vec<usize> = knot_velocities.iter().chain(&fixed).copied().collect();
        let family = stack(&j, &rows, &vars);
        let (lo, hi) = singular_range(&family);
        assert!(
            lo > 1e-8 * hi,
            "s = {s}: {} velocity bounds, smallest singular value {lo:e} of {hi:e}",
            family.nrows()
        );
    }
}

/// Where the problem fixes the whole configuration (here `initial.q` and `final.q`), a path
/// row of the configuration alone is a constant, a combination of the fixed variables' bounds:
/// both transcriptions leave the frame-bounds, frame-position and joint-equality rows out
/// there, and refuse a problem whose fixed configuration breaks one of them.
#[test]
fn configuration_rows_are_left_out_where_the_configuration_is_fixed() {
    let base = "name: f\nrobot: ROBOTS/pendulum2.urdf\nduration: 1\nstages: 3\n\
        initial: {q: [0.2, 0.4]}\nfinal: {q: [1.0, 2.0]}\n";
    let rows = "constraints:\n  - frame_bounds: {frame: tip, z: [-2, 2]}\n  \
        - joint_equality: {joint: joint1, equals: joint2, ratio: 0.5}\n  \
        - frame_position: {frame: tip, position: [0, 0, 0], time: start, axes: [x]}\n";
    let without = problem("f0.yaml", base);
    // The fixed start has its tip at x = 0 only if sin(0.2) + sin(0.6) = 0: a violated row,
    // so the start's frame position moves to the middle.
    let held = problem(
        "f1.yaml",
        &format!("{base}{}", rows.replace("time: start", "time: 0.5")),
    );
    for s in 1..=3 {
        let (a, b) = (
            VariationalNlp::new(&without, s).unwrap(),
            VariationalNlp::new(&held, s).unwrap(),
        );
        // Two rows (frame bounds, joint equality) at the 3s − 1 inner points, and one frame
        // position: none at the two fixed points.
        let inner = 3 * s - 1;
        assert_eq!(
            b.num_constraints() - a.num_constraints(),
            2 * inner + 1,
            "s = {s}"
        );
        let m = b.num_constraints();
        let (mut lower, mut upper) = (vec![0.0; m], vec![0.0; m]);
        b.constraint_bounds(&mut lower, &mut upper);
        let frame_rows = lower
            .iter()
            .zip(&upper)
            .filter(|&(l, u)| (*l, *u) == (-2.0, 2.0));
        assert_eq!(
            frame_rows.count(),
            inner,
            "s = {s}: frame bounds at the inner points"
        );
    }
    let (a, b) = (
        CollocationNlp::new(&without).unwrap(),
        CollocationNlp::new(&held).unwrap(),
    );
    assert_eq!(b.num_constraints() - a.num_constraints(), 2 * 5 + 1);
    let broken = problem("f2.yaml", &format!("{base}{rows}"));
    for e in [
        VariationalNlp::new(&broken, 2).err(),
        CollocationNlp::new(&broken).err(),
    ] {
        let e = e.expect("a violated row at the fixed start is refused");
        assert!(
            e.contains("initial.q") && e.contains("frame_position"),
            "{e}"
        );
    }
}

/// With velocity bounds the VI carries every knot's velocity, `(N − 1)n` variables and rows
/// beyond Table 1's, and bounds per stage and joint the `s` hodograph coefficients.
#[test]
fn velocity_bounds_add_knot_velocities_and_hodograph_rows() {
    for s in 1..=3 {
        let (n, big_n) = (2, 6);
        let text = format!(
            "name: t\nrobot: ROBOTS/pendulum2.urdf\nduration: 1\nstages: {big_n}\n\
             initial: {{q: [0, 0], v: [0, 0]}}\nfinal: {{v: [0, 0]}}\nbounds: {{v: [-5, 5]}}\n"
        );
        let prob = problem("vb.yaml", &text);
        let nlp = VariationalNlp::new(&prob, s).unwrap();
        let table1 = (s * big_n + 1) * 2 * n + n;
        assert_eq!(nlp.num_variables(), table1 + (big_n - 1) * n, "s = {s}");
        assert_eq!(
            nlp.num_constraints(),
            s * big_n * n + 2 * n + (big_n - 1) * n + big_n * s * n,
            "s = {s}"
        );
    }
}

/// The velocity cost of the VI integrates each stage's own slope: a motion at a constant speed
/// `V` costs `w V² T` for every `s`, and for Simpson's, giving every stage the same knots but
/// slope 0 at its start and `2V` at its end (a kink at every knot, which a force at the knots
/// produces) costs `4/3` of that, the exact `∫ v² dt` of those stages. With the Lobatto weights
/// on the following stage's slope alone it cost two thirds, and the ball pick's wrench then
/// alternated by 500 N between knots and midpoints.
#[test]
fn the_vi_velocity_cost_is_not_lowered_by_kinks_at_the_knots() {
    let prob = problem(
        "v.yaml",
        "name: v\nrobot: ROBOTS/pendulum1.urdf\nduration: 1.2\nstages: 6\n\
         bounds: {v: [-50, 50]}\ncosts: {velocity: 2.0}\n",
    );
    let (w, speed, stages) = (2.0, 0.7, 6);
    let dt = 1.2 / stages as f64;
    for s in 1..=3 {
        let mut nlp = VariationalNlp::new(&prob, s).unwrap();
        let mut x = vec![0.0; nlp.num_variables()];
        nlp.initial_point(&mut x);
        let block = 2;
        let nodes = vito::vi::Galerkin::new(s).unwrap().nodes().to_vec();
        for k in 0..stages {
            for (al, tau) in nodes.iter().enumerate() {
                x[(k * s + al) * block] = speed * (k as f64 + tau) * dt;
            }
        }
        let steady = nlp.objective(&x).unwrap();
        let exact = w * speed * speed * 1.2;
        assert!(
            (steady - exact).abs() < 1e-12 * exact,
            "s = {s}: {steady} against {exact}"
        );
        if s == 2 {
            for k in 0..stages {
                x[(2 * k + 1) * block] = speed * (k as f64 + 0.25) * dt;
            }
            let kinked = nlp.objective(&x).unwrap();
            let exact = 4.0 / 3.0 * steady;
            assert!(
                (kinked - exact).abs() < 1e-12 * exact,
                "kinked {kinked} against {exact}"
            );
        }
    }
}

/// Evaluations run stages and points in parallel; their results must not depend on how the
/// work is split between threads (a parallel sum's rounding does), or two runs of the same
/// solve take different paths. A 60-stage contact walk: each function evaluated on one thread,
/// then 20 times on seven, every result equal bit for bit.
#[test]
fn evaluations_do_not_depend_on_the_threads() {
    let text = BIPED_CONTACT
        .replace("stages: 2", "stages: 60")
        .replace("duration: 0.2", "duration: 1.2")
        .replace(
            "costs: {effort: 0.01}",
            "costs: {effort: 0.01, velocity: 0.1}",
        );
    let prob = problem(
        "brep.yaml",
        &format!("{text}complementarity: {{method: smoothing, start: 0.05}}\n"),
    );
    same_on_any_threads("simpson", VariationalNlp::new(&prob, 2).unwrap());
    same_on_any_threads("hermite_simpson", CollocationNlp::new(&prob).unwrap());
}

fn same_on_any_threads<N: Nlp + Send>(name: &str, mut nlp: N) {
    let pool = |threads| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
    };
    let x = perturbed(&nlp, 5);
    let (n, m) = (nlp.num_variables(), nlp.num_constraints());
    let mut evaluate = || {
        let (mut g, mut c) = (vec![0.0; n], vec![0.0; m]);
        let f = nlp.objective(&x).unwrap();
        nlp.gradient(&x, &mut g).unwrap();
        nlp.constraints(&x, &mut c).unwrap();
        let bits = |v: &[f64]| v.iter().map(|a| a.to_bits()).collect::<Vec<_>>();
        (f.to_bits(), bits(&g), bits(&c))
    };
    let first = pool(1).install(&mut evaluate);
    let seven = pool(7);
    for k in 0..20 {
        let again = seven.install(&mut evaluate);
        assert!(
            again.0 == first.0,
            "{name}: objective on 7 threads (run {k}) differs"
        );
        assert!(
            again.1 == first.1,
            "{name}: gradient on 7 threads (run {k}) differs"
        );
        assert!(
            again.2 == first.2,
            "{name}: constraints on 7 threads (run {k}) differ"
        );
    }
}

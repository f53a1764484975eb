//! The files of a solve: `report.json`, `knots.csv` and `trajectory.csv` (plots and the
//! filmstrip are added by [`super::write_solve_figures`], the viewer and the animation by
//! [`super::write_views`]).

use super::recorded::{RobotRecord, TargetRecord, targets};
use super::{OutputError, write_atomic, write_csv};
use crate::dynamics::{Workspace, forward_kinematics};
use crate::problem::TrajectoryProblem;
use crate::transcription::{Accuracy, Outcome, RESIMULATION_STEP, Solution, dynamic_accuracy};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// One iterate of the solve, as `solver.log` shows it.
#[derive(Serialize)]
struct HistoryRow {
    iteration: usize,
    objective: f64,
    primal_infeasibility: f64,
    dual_infeasibility: f64,
    complementarity: f64,
    /// The interior-point method's barrier parameter `μ` (0 for the SQP).
    barrier: f64,
    /// The problem's smoothing `μ_s` of this iterate (0 without a smoothing path).
    smoothing: f64,
    step_length: f64,
    regularization: f64,
    /// The step's linear solves (`IterationRecord::linear_solves`).
    qp_iterations: usize,
    factorizations: usize,
}

/// The contact part of a report: the contact points and the residuals of the contact
/// conditions.
#[derive(Serialize)]
pub struct ContactReport {
    /// The contact points.
    pub points: Vec<String>,
    /// Residuals of the contact conditions.
    #[serde(flatten)]
    pub residuals: crate::transcription::ContactResiduals,
}

/// One stance foot in a report: where it is held and its sole.
#[derive(Serialize)]
pub struct StanceFoot {
    /// The held frame.
    pub frame: String,
    /// Its held world position (m).
    pub position: [f64; 3],
    /// Its held world orientation (rotation matrix, rows).
    pub rotation: [[f64; 3]; 3],
    /// The sole rectangle in the frame (m).
    pub sole: crate::contact::SoleRectangle,
    /// Friction coefficient of the pyramid.
    pub friction: f64,
}

/// The stance part of a report: the feet and the residuals of the stance conditions (the
/// wrench cone's face form evaluated on each wrench, the centre of pressure's margin, the
/// held frames' drift).
#[derive(Serialize)]
pub struct StanceReport {
    /// The stance feet.
    pub feet: Vec<StanceFoot>,
    /// The residuals.
    #[serde(flatten)]
    pub residuals: crate::transcription::StanceResiduals,
}

impl StanceReport {
    /// The report of a stance trajectory.
    pub fn new(st: &crate::transcription::StanceTrajectory) -> Self {
        Self {
            feet: st
                .feet
                .iter()
                .map(|f| StanceFoot {
                    frame: f.name.clone(),
                    position: f.position.into(),
                    rotation: std::array::from_fn(|r| std::array::from_fn(|c| f.rotation[(r, c)])),
                    sole: f.sole,
                    friction: f.friction,
                })
                .collect(),
            residuals: st.residuals(),
        }
    }
}

/// The machine-readable summary of a solve.
#[derive(Serialize)]
pub struct Report {
    /// `"solve"`.
    pub kind: &'static str,
    /// Problem name.
    pub problem: String,
    /// Hash of the problem file and robot.
    pub problem_hash: String,
    /// vito's version.
    pub vito_version: &'static str,
    /// The robot: name, file, base and contact points.
    #[serde(flatten)]
    pub robot: RobotRecord,
    /// Degrees of freedom.
    pub dof: usize,
    /// Transcription name.
    pub transcription: String,
    /// Stages N.
    pub stages: usize,
    /// Horizon T (s).
    pub duration: f64,
    /// The method that ran: `interior_point` or `sqp`.
    pub method: String,
    /// QP backend (of the SQP).
    pub qp: String,
    /// Hessian strategy.
    pub hessian: String,
    /// Outcome status.
    pub status: String,
    /// The solver's message.
    pub message: String,
    /// Iterations (of every method that ran, see `method`).
    pub iterations: usize,
    /// Linear solves in total: QP iterations (SQP), Newton-system solves (interior point).
    pub qp_iterations: usize,
    /// Final objective.
    pub objective: f64,
    /// Final largest constraint violation.
    pub primal_infeasibility: f64,
    /// Final scaled dual infeasibility.
    pub dual_infeasibility: f64,
    /// Final scaled complementarity.
    pub complementarity: f64,
    /// Wall time of the solve (s).
    pub solve_time_s: f64,
    /// Of which in NLP evaluations (s).
    pub nlp_evaluation_time_s: f64,
    /// Of which in linear algebra: QP solves (SQP), Newton systems (interior point) (s).
    pub qp_time_s: f64,
    /// Decision variables.
    pub variables: usize,
    /// Constraint rows.
    pub constraints: usize,
    /// Jacobian structural nonzeros.
    pub jacobian_nonzeros: usize,
    /// The terrain, for a problem with contact.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub terrain: Option<crate::contact::Terrain>,
    /// How well the solution meets the contact conditions (problems with terrain).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contact: Option<ContactReport>,
    /// The stance feet and how well their conditions hold (problems with stances).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stance: Option<StanceReport>,
    /// The frame-position costs and constraints.
    pub targets: Vec<TargetRecord>,
    /// How closely the solution's torques and forces, re-simulated, reproduce its motion.
    pub accuracy: Accuracy,
    /// The work of every force over the horizon against the change of energy.
    pub energy: crate::transcription::EnergyAccount,
    /// The problems solved first to start this one (`initial_guess: {solve: …}`), the easiest
    /// first; `solve_time_s` is this problem's alone.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub continuation: Vec<crate::transcription::ContinuationStep>,
    history: Vec<HistoryRow>,
}

impl Report {
    /// The report of `outcome` for `prob`, written to `dir` (the robot file is recorded
    /// relative to it).
    pub fn new(prob: &TrajectoryProblem, outcome: &Outcome, dir: &Path) -> Self {
        let r = &outcome.result;
        Self {
            kind: "solve",
            problem: prob.name.clone(),
            problem_hash: prob.hash.clone(),
            vito_version: env!("CARGO_PKG_VERSION"),
            robot: RobotRecord::new(&prob.model, &prob.robot_file, dir),
            dof: prob.model.dof(),
            transcription: prob.transcription.to_string(),
            stages: prob.stages,
            duration: prob.duration,
            method: r.method.name().to_string(),
            qp: format!("{:?}", prob.solver.qp).to_lowercase(),
            hessian: format!("{:?}", prob.solver.hessian).to_lowercase(),
            status: format!("{:?}", r.status),
            message: r.message.clone(),
            iterations: r.iterations,
            qp_iterations: r.linear_solves,
            objective: r.objective,
            primal_infeasibility: r.residuals.primal_infeasibility,
            dual_infeasibility: r.residuals.dual_infeasibility,
            complementarity: r.residuals.complementarity,
            solve_time_s: r.timing.total.as_secs_f64(),
            nlp_evaluation_time_s: r.timing.nlp_evaluation.as_secs_f64(),
            qp_time_s: r.timing.linear.as_secs_f64(),
            variables: outcome.size.variables,
            constraints: outcome.size.constraints,
            jacobian_nonzeros: outcome.size.jacobian_nonzeros,
            contact: outcome.solution.contact.as_ref().zip(outcome.contact).map(
                |(c, residuals)| ContactReport {
                    points: c.names.clone(),
                    residuals,
                },
            ),
            stance: outcome.solution.stance.as_ref().map(StanceReport::new),
            targets: targets(prob, &outcome.solution.times),
            accuracy: dynamic_accuracy(&prob.model, &outcome.solution, RESIMULATION_STEP),
            energy: outcome.energy,
            continuation: outcome.continuation.clone(),
            terrain: prob.contact.as_ref().map(|c| c.terrain.clone()),
            history: r
                .history
                .iter()
                .map(|h| HistoryRow {
                    iteration: h.iteration,
                    objective: h.objective,
                    primal_infeasibility: h.primal_infeasibility,
                    dual_infeasibility: h.dual_infeasibility,
                    complementarity: h.complementarity,
                    barrier: h.barrier,
                    smoothing: h.smoothing,
                    step_length: h.step_length,
                    regularization: h.regularization,
                    qp_iterations: h.linear_solves,
                    factorizations: h.factorizations,
                })
                .collect(),
        }
    }
}

/// `t, q_<joint>…, v_<joint>…, u_<joint>…` at the given times, sampled from the solution's
/// interpolant, then the contact columns when there is contact (the forces linear between the
/// points, the gaps of the sampled configuration) and the stance columns (linear between the
/// points) when there are stances.
pub fn sampled_rows(prob: &TrajectoryProblem, sol: &Solution, times: &[f64]) -> Vec<Vec<f64>> {
    let mut ws = Workspace::new(&prob.model);
    let mut gaps = Vec::new();
    times
        .iter()
        .map(|&t| {
            let (q, v, u) = sol.sample(t);
            if let Some(model) = &prob.contact {
                forward_kinematics(&prob.model, &mut ws, &q);
                gaps.clear();
                gaps.extend((0..model.sites.len()).map(|l| model.gap(&ws, l)));
            }
            let mut row = vec![t];
            row.extend(q);
            row.extend(v);
            row.extend(u);
            if let Some(c) = &sol.contact {
                row.extend(c.sample(&sol.times, t, &gaps));
            }
            if let Some(s) = &sol.stance {
                row.extend(s.sample(&sol.times, t));
            }
            row
        })
        .collect()
}

/// The columns of `knots.csv` and `trajectory.csv` (the rows of [`sampled_rows`]): `t`,
/// `q_<joint>…`, `v_<joint>…`, `u_<actuated joint>…`, then the contact columns (per contact
/// point `fn_P`, `f_P_x`, `f_P_y`, `f_P_z`, `gap_P`) and the stance columns.
pub fn trajectory_header(sol: &Solution) -> Vec<String> {
    let mut h = vec!["t".to_string()];
    h.extend(sol.joint_names.iter().map(|j| format!("q_{j}")));
    h.extend(sol.joint_names.iter().map(|j| format!("v_{j}")));
    h.extend(sol.actuated_names.iter().map(|j| format!("u_{j}")));
    if let Some(c) = &sol.contact {
        h.extend(c.header());
    }
    if let Some(s) = &sol.stance {
        h.extend(s.header());
    }
    h
}

/// Writes `report.json`, `knots.csv` (the transcription's points: its own values of q, q̇ and
/// u) and `trajectory.csv` (the interpolant on a uniform grid of [`SAMPLES_PER_STAGE`](crate::transcription::SAMPLES_PER_STAGE) samples
/// per stage, [`Solution::fine_grid`]) into `dir`; returns the report and the paths written.
///
/// # Errors
/// An [`OutputError`] naming the file.
pub fn write_solve_report(
    dir: &Path,
    prob: &TrajectoryProblem,
    outcome: &Outcome,
) -> Result<(Report, Vec<PathBuf>), OutputError> {
    let sol = &outcome.solution;
    let report = Report::new(prob, outcome, dir);
    let json = serde_json::to_string_pretty(&report).map_err(|e| OutputError::Csv {
        path: dir.join("report.json"),
        message: e.to_string(),
    })?;
    let report_path = dir.join("report.json");
    write_atomic(&report_path, json.as_bytes()).map_err(|source| OutputError::Io {
        path: report_path.clone(),
        source,
    })?;
    let knots: Vec<Vec<f64>> = (0..sol.times.len())
        .map(|p| {
            let mut row = vec![sol.times[p]];
            row.extend(&sol.q[p]);
            row.extend(&sol.v[p]);
            row.extend(&sol.u[p]);
            if let Some(c) = &sol.contact {
                row.extend(c.row(p));
            }
            if let Some(s) = &sol.stance {
                row.extend(s.row(p));
            }
            row
        })
        .collect();
    let knots_path = dir.join("knots.csv");
    write_csv(&knots_path, &trajectory_header(sol), &knots)?;
    let traj_path = dir.join("trajectory.csv");
    write_csv(
        &traj_path,
        &trajectory_header(sol),
        &sampled_rows(prob, sol, &sol.fine_grid(prob.stages)),
    )?;
    Ok((report, vec![report_path, knots_path, traj_path]))
}

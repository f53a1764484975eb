//! Starting trajectories: straight lines between the boundary configurations (the final one
//! moved onto the frame-position targets of `time: end` by inverse kinematics), or a previous
//! result's `trajectory.csv` or of a problem solved before (warm start, continuation).

use crate::dynamics::{
    Workspace, forward_kinematics, frame_pose, inverse_dynamics, point_jacobian,
};
use crate::problem::{InitialGuess, Recording, TimeSpec, TrajectoryProblem};
use nalgebra::{DMatrix, DVector};

/// Rows of values, one per time.
type Rows = Vec<Vec<f64>>;

/// `(q, u)` at each of `times`, inside the problem's bounds. The interpolated guess moves in a
/// straight line from the initial to the final configuration with the torques that hold that
/// motion (inverse dynamics), so that the starting point is nearly dynamically consistent.
///
/// # Errors
/// A message naming the CSV file and what is wrong with it.
pub fn initial_trajectory(prob: &TrajectoryProblem, times: &[f64]) -> Result<(Rows, Rows), String> {
    let model = &prob.model;
    let n = model.dof();
    let actuated = model.actuated_joints();
    let clamp_q = |i: usize, v: f64| v.clamp(prob.q_bounds.lower[i], prob.q_bounds.upper[i]);
    let clamp_u = |c: usize, v: f64| v.clamp(prob.u_bounds.lower[c], prob.u_bounds.upper[c]);
    let (mut q, mut u) = match &prob.initial_guess {
        InitialGuess::Interpolate => {
            let start: Vec<f64> = (0..n)
                .map(|i| prob.initial_q.guess(i, prob.q_bounds.guess(i, 0.0)))
                .collect();
            let mut end: Vec<f64> = (0..n).map(|i| prob.final_q.guess(i, start[i])).collect();
            reach_end_targets(prob, &mut end);
            let q: Rows = times
                .iter()
                .map(|t| {
                    let w = t / prob.duration;
                    (0..n).map(|i| (1.0 - w) * start[i] + w * end[i]).collect()
                })
                .collect();
            // Torques that hold the straight-line motion: inverse dynamics at its constant
            // velocity, minus the springs and dampers.
            let v: Vec<f64> = (0..n)
                .map(|i| (end[i] - start[i]) / prob.duration)
                .collect();
            let mut ws = Workspace::new(model);
            let (mut tau, mut passive) = (vec![0.0; n], vec![0.0; n]);
            let zero = vec![0.0; n];
            let u = q
                .iter()
                .map(|qt| {
                    inverse_dynamics(model, &mut ws, qt, &v, &zero, &mut tau);
                    model.passive_forces(qt, &v, &mut passive);
                    actuated.iter().map(|&i| tau[i] - passive[i]).collect()
                })
                .collect();
            (q, u)
        }
        InitialGuess::FromCsv(path) => Recording::read_csv(path)?
            .resample(model, prob.duration, times)
            .map_err(|e| format!("{}: {e}", path.display()))?,
        InitialGuess::Recorded { trajectory, .. } => {
            trajectory.resample(model, prob.duration, times)?
        }
        InitialGuess::Solve(first) => {
            return Err(format!(
                "the problem to solve first ('{}', initial_guess.solve) has no result yet: \
                 crate::transcription::solve solves it before this one",
                first.name
            ));
        }
    };
    for row in &mut q {
        for (i, v) in row.iter_mut().enumerate() {
            *v = clamp_q(i, *v);
        }
    }
    for row in &mut u {
        for (c, v) in row.iter_mut().enumerate() {
            *v = clamp_u(c, *v);
        }
    }
    Ok((q, u))
}

/// Moves the free joints of the final configuration `end` (within their bounds) so that the
/// frames of the `time: end` frame-position constraints reach their targets, by damped least
/// squares from `end`. Without this the straight-line guess of a reaching problem stays where
/// it started, and the SQP's first linearization of a target half a metre away is
/// inconsistent with the joint limits: the arm reach spent 75 elastic iterations getting
/// there. Ends at the last iterate when the targets cannot be reached.
fn reach_end_targets(prob: &TrajectoryProblem, end: &mut [f64]) {
    const ITERATIONS: usize = 200;
    const DAMPING: f64 = 1e-2;
    const TOLERANCE: f64 = 1e-9;
    let model = &prob.model;
    let n = model.dof();
    let targets: Vec<_> = prob
        .constraints
        .iter()
        .flat_map(|c| c.targets())
        .filter(|t| t.time == Some(TimeSpec::End))
        .collect();
    let rows: usize = targets.iter().map(|t| t.axes.len()).sum();
    let free: Vec<usize> = (0..n)
        .filter(|&i| prob.final_q.lower[i] < prob.final_q.upper[i])
        .collect();
    if rows == 0 || free.is_empty() {
        return;
    }
    let lower = |i: usize| prob.final_q.lower[i].max(prob.q_bounds.lower[i]);
    let upper = |i: usize| prob.final_q.upper[i].min(prob.q_bounds.upper[i]);
    let mut ws = Workspace::new(model);
    let mut point_jac = DMatrix::zeros(3, n);
    let mut jac = DMatrix::zeros(rows, free.len());
    let mut error = DVector::zeros(rows);
    for _ in 0..ITERATIONS {
        forward_kinematics(model, &mut ws, end);
        let mut row = 0;
        for t in &targets {
            let (point, position) = (&t.point, &t.position);
            let p = frame_pose(&ws, point.body, &point.placement).translation;
            point_jacobian(
                model,
                &ws,
                point.body,
                &point.placement.translation,
                &mut point_jac,
            );
            for axis in &t.axes {
                error[row] = axis.dot(&(*position - p));
                for (k, &i) in free.iter().enumerate() {
                    jac[(row, k)] = axis.dot(&point_jac.fixed_view::<3, 1>(0, i).into_owned());
                }
                row += 1;
            }
        }
        if error.amax() < TOLERANCE {
            return;
        }
        let mut normal = &jac * jac.transpose();
        for r in 0..rows {
            normal[(r, r)] += DAMPING * DAMPING;
        }
        let Some(y) = normal.cholesky().map(|c| c.solve(&error)) else {
            return;
        };
        let step = jac.transpose() * y;
        for (k, &i) in free.iter().enumerate() {
            end[i] = (end[i] + step[k]).clamp(lower(i), upper(i));
        }
    }
}

//! Dynamic accuracy of an optimized trajectory: its controls re-simulated by an independent
//! integrator (RK4 on the articulated-body dynamics) and compared with the trajectory the
//! transcription claims — once open loop over the whole horizon, and stage by stage from each
//! knot (the local error, which does not grow with the instability of the motion). Stance feet
//! are held fixed in the re-simulation, as the transcription holds them, by the constraint
//! forces of `dynamics::held_forward_dynamics`: a light foot driven open loop by the reported
//! wrench would measure its own ill-conditioning (the 2 kg foot and 0.1 kg ankle link of the
//! humanoid under a 1.5 kN wrench), not the transcription.

use super::Solution;
use super::contact::COLUMNS;
use crate::dynamics::{
    HeldFrame, Workspace, forward_kinematics, point_jacobian, simulate_rk4_held,
    simulate_rk4_with_loads,
};
use crate::model::Model;
use serde::Serialize;

/// The largest RK4 step of the re-simulation that a solve's report carries (s).
pub const RESIMULATION_STEP: f64 = 1e-3;

/// How far re-simulated motions depart from the optimized one.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Accuracy {
    /// RK4 step (s).
    pub step: f64,
    /// Largest `‖q_sim − q_opt‖∞` when each stage is re-simulated from the solution's state at
    /// its first knot, measured at its last knot (rad or m).
    pub local_q_error: f64,
    /// The stage of `local_q_error`, from 0.
    pub local_q_stage: usize,
    /// The coordinate of `local_q_error`.
    pub local_q_coordinate: usize,
    /// The same for the velocities.
    pub local_v_error: f64,
    /// Largest `‖q_sim(t) − q_opt(t)‖∞` of one open-loop run over the whole horizon (grows with
    /// any instability of the motion, such as balancing upright).
    pub open_loop_q_error: f64,
    /// `‖q_sim(T) − q_opt(T)‖∞` of that run.
    pub final_q_error: f64,
}

/// The generalized force of a solution's contact forces at time `t` and configuration `q`
/// (the forces linear in time between the points, acting at the contact points), added to
/// `tau`.
struct ContactLoads<'a> {
    model: &'a Model,
    sol: &'a Solution,
    sites: Vec<(usize, crate::spatial::Vec3)>,
    ws: Workspace,
    jac: nalgebra::DMatrix<f64>,
}

impl<'a> ContactLoads<'a> {
    fn new(model: &'a Model, sol: &'a Solution) -> Self {
        let sites = sol
            .contact
            .as_ref()
            .map_or_else(Vec::new, |c| c.sites(model));
        Self {
            model,
            sol,
            sites,
            ws: Workspace::new(model),
            jac: nalgebra::DMatrix::zeros(3, model.dof()),
        }
    }

    fn add(&mut self, t: f64, q: &[f64], tau: &mut [f64]) {
        let Some(c) = &self.sol.contact else { return };
        let values = c.sample(&self.sol.times, t, &[]);
        forward_kinematics(self.model, &mut self.ws, q);
        // Columns per contact point: fn, f_x, f_y, f_z, gap.
        for (l, (body, offset)) in self.sites.iter().enumerate() {
            let f = &values[COLUMNS * l + 1..COLUMNS * l + 4];
            point_jacobian(self.model, &self.ws, *body, offset, &mut self.jac);
            for (j, tj) in tau.iter_mut().enumerate() {
                *tj += (0..3).map(|d| self.jac[(d, j)] * f[d]).sum::<f64>();
            }
        }
    }
}

/// Re-simulates `sol`'s controls (its own interpolant `u(t)`) and contact forces (linear
/// between the points), with its stance feet held, with RK4 steps of at most `max_step` and at
/// most a fiftieth of a stage.
pub fn dynamic_accuracy(model: &Model, sol: &Solution, max_step: f64) -> Accuracy {
    let mut contact = ContactLoads::new(model, sol);
    let held: Vec<HeldFrame> = sol.stance.as_ref().map_or_else(Vec::new, |s| {
        s.feet
            .iter()
            .map(|f| HeldFrame {
                body: f.point.body,
                placement: f.point.placement,
            })
            .collect()
    });
    let simulate = |q0: &[f64],
                    v0: &[f64],
                    controls: &mut dyn FnMut(f64, &mut [f64]),
                    loads: &mut crate::dynamics::Loads,
                    h: f64,
                    steps: usize,
                    every: usize| {
        if held.is_empty() {
            simulate_rk4_with_loads(model, q0, v0, controls, loads, h, steps, every)
        } else {
            simulate_rk4_held(model, q0, v0, controls, loads, &held, h, steps, every)
        }
    };
    let knots: Vec<usize> = sol.knot_indices().collect();
    let stages = knots.len().max(2) - 1;
    let t_end = sol.duration();
    let stage_len = t_end / stages as f64;
    let per_stage = ((stage_len / max_step.min(stage_len / 50.0)).ceil() as usize).max(1);
    let h = stage_len / per_stage as f64;
    // The coordinate of the largest `|a_i − b_i|`, and that difference.
    let arg_max = |a: &[f64], b: &[f64]| {
        a.iter()
            .zip(b)
            .map(|(x, y)| (x - y).abs())
            .enumerate()
            .fold((0, 0.0f64), |m, (i, e)| if e > m.1 { (i, e) } else { m })
    };
    let mut acc = Accuracy {
        step: h,
        local_q_error: 0.0,
        local_q_stage: 0,
        local_q_coordinate: 0,
        local_v_error: 0.0,
        open_loop_q_error: 0.0,
        final_q_error: 0.0,
    };
    for (stage, &knot) in knots[..stages].iter().enumerate() {
        let t0 = sol.times[knot];
        let (q0, v0, _) = sol.sample(t0);
        let mut controls = |t: f64, u: &mut [f64]| u.copy_from_slice(&sol.sample(t0 + t).2);
        let mut loads = |t: f64, q: &[f64], tau: &mut [f64]| contact.add(t0 + t, q, tau);
        let run = simulate(&q0, &v0, &mut controls, &mut loads, h, per_stage, per_stage);
        if let Some((_, q, v)) = run.last() {
            let (qe, ve, _) = sol.sample(t0 + stage_len);
            let (coordinate, e) = arg_max(q, &qe);
            if e > acc.local_q_error {
                acc.local_q_error = e;
                acc.local_q_stage = stage;
                acc.local_q_coordinate = coordinate;
            }
            acc.local_v_error = acc.local_v_error.max(arg_max(v, &ve).1);
        }
    }
    let (q0, v0, _) = sol.sample(0.0);
    let mut controls = |t: f64, u: &mut [f64]| u.copy_from_slice(&sol.sample(t).2);
    let mut loads = |t: f64, q: &[f64], tau: &mut [f64]| contact.add(t, q, tau);
    let run = simulate(
        &q0,
        &v0,
        &mut controls,
        &mut loads,
        h,
        per_stage * stages,
        per_stage,
    );
    for (t, q, _) in &run {
        let e = arg_max(q, &sol.sample(*t).0).1;
        acc.open_loop_q_error = acc.open_loop_q_error.max(e);
        acc.final_q_error = e;
    }
    acc
}

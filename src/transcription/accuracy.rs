//! Dynamic accuracy of an optimized trajectory: its controls re-simulated open loop by an
//! independent integrator (RK4 on the articulated-body dynamics), compared with the
//! trajectory the transcription claims.

use super::Solution;
use crate::dynamics::simulate_rk4;
use crate::model::Model;
use serde::Serialize;

/// How far the re-simulated motion departs from the optimized one.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Accuracy {
    /// RK4 step (s).
    pub step: f64,
    /// Largest `‖q_sim(t) − q_opt(t)‖∞` over the horizon (rad or m).
    pub max_q_error: f64,
    /// Largest `‖q̇_sim(t) − q̇_opt(t)‖∞` over the horizon.
    pub max_v_error: f64,
    /// Largest `‖q_sim − q_opt‖∞` at the knots (stage boundaries), where both transcriptions
    /// claim their full order.
    pub knot_q_error: f64,
    /// `‖q_sim(T) − q_opt(T)‖∞`.
    pub final_q_error: f64,
}

/// Re-simulates `sol`'s controls (its own interpolant `u(t)`) from its initial state with RK4
/// steps of at most `max_step` (and at most a fiftieth of the spacing of the solution's points),
/// comparing states at every 5th step.
pub fn open_loop_accuracy(model: &Model, sol: &Solution, max_step: f64) -> Accuracy {
    let t_end = sol.duration();
    let spacing = t_end / (sol.times.len().max(2) - 1) as f64;
    // Whole number of RK4 steps per stage, recorded every 5th step, so the knots are samples.
    let stages = sol.knot_indices().count().max(2) - 1;
    let per_stage = ((t_end / stages as f64 / max_step.min(spacing / 50.0)).ceil() as usize).max(1);
    let steps = per_stage.div_ceil(5) * 5 * stages;
    let h = t_end / steps as f64;
    let mut controls = |t: f64, u: &mut [f64]| {
        let (_, _, ut) = sol.sample(t);
        u.copy_from_slice(&ut);
    };
    let sim = simulate_rk4(model, &sol.q[0], &sol.v0(), &mut controls, h, steps, 5);
    let mut acc = Accuracy {
        step: h,
        max_q_error: 0.0,
        max_v_error: 0.0,
        knot_q_error: 0.0,
        final_q_error: 0.0,
    };
    let knots: Vec<f64> = sol.knot_indices().map(|p| sol.times[p]).collect();
    let inf_norm = |a: &[f64], b: &[f64]| {
        a.iter()
            .zip(b)
            .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()))
    };
    for (t, q, v) in &sim {
        let (qo, vo, _) = sol.sample(*t);
        let (eq, ev) = (inf_norm(q, &qo), inf_norm(v, &vo));
        acc.max_q_error = acc.max_q_error.max(eq);
        acc.max_v_error = acc.max_v_error.max(ev);
        acc.final_q_error = eq;
        if knots
            .iter()
            .any(|tk| (tk - t).abs() < 1e-9 * t_end.max(1.0))
        {
            acc.knot_q_error = acc.knot_q_error.max(eq);
        }
    }
    acc
}

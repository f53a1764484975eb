//! An optimized trajectory in the transcription's own terms: its control points and its own
//! interpolant, which samples `q(t)`, `q̇(t)` and `u(t)` at any time.

use super::contact::ContactTrajectory;
use super::knot_interpolant::{KnotWeights, knot_weights};
use super::stance::StanceTrajectory;
use crate::collocation::{HermiteSimpsonLayout, Var, interpolate};
use crate::problem::Recording;
use crate::vi::Galerkin;

/// Samples per stage of `trajectory.csv` ([`Solution::fine_grid`]).
pub const SAMPLES_PER_STAGE: usize = 10;

/// How the trajectory between the points is defined.
#[derive(Clone, Debug)]
pub enum Interpolant {
    /// The Galerkin VI: on stage `k` the polynomial of degree `2s + 1` through the control
    /// points whose velocity at both knots is that of the discrete Legendre transform,
    /// `v_k = M(q^k)⁻¹ p^k`, and at the interior control points that of Eq. 2's interpolant
    /// (`transcription/knot_interpolant.rs`); `u` is the Lagrange interpolant of the torques.
    Galerkin {
        /// The integrator's coefficients.
        gal: Galerkin,
        /// Stage length `Δt`.
        dt: f64,
        /// Number of stages.
        stages: usize,
        /// `v_k` at the N + 1 knots.
        knot_velocities: Vec<Vec<f64>>,
    },
    /// Hermite–Simpson: the state interpolant of
    /// [`collocation::interpolate`](crate::collocation::interpolate) (cubic `q` and `v` whose
    /// derivatives are the quadratics through the velocities and accelerations; quadratic `u`).
    HermiteSimpson {
        /// The variables' layout.
        layout: HermiteSimpsonLayout,
        /// Interval length `h`.
        h: f64,
        /// The collocation variables of the solution.
        x: Vec<f64>,
    },
}

/// Configurations, velocities and torques at the transcription's points, with its
/// interpolant.
#[derive(Clone, Debug)]
pub struct Solution {
    /// Joint names (columns of `q` and `v`).
    pub joint_names: Vec<String>,
    /// Actuated joint names (columns of `u`).
    pub actuated_names: Vec<String>,
    /// Point times.
    pub times: Vec<f64>,
    /// The transcription's quadrature weights at the points (`∫ g dt ≈ Σ_p weights_p g(t_p)`).
    pub weights: Vec<f64>,
    /// `q` at the points.
    pub q: Vec<Vec<f64>>,
    /// `q̇` at the points, from the interpolant.
    pub v: Vec<Vec<f64>>,
    /// `u` at the points.
    pub u: Vec<Vec<f64>>,
    /// The interpolant.
    pub interpolant: Interpolant,
    /// Contact forces and gaps at the points, when the problem has contact.
    pub contact: Option<ContactTrajectory>,
    /// The stance feet's wrenches at the points, when the problem has stances.
    pub stance: Option<StanceTrajectory>,
}

impl Solution {
    /// The horizon `T`.
    pub fn duration(&self) -> f64 {
        self.times.last().copied().unwrap_or(0.0)
    }

    /// Indices of the points that are knots (stage or interval boundaries).
    pub fn knot_indices(&self) -> impl Iterator<Item = usize> + '_ {
        let stride = match &self.interpolant {
            Interpolant::Galerkin { gal, .. } => gal.s(),
            Interpolant::HermiteSimpson { .. } => 2,
        };
        (0..self.times.len()).step_by(stride)
    }

    /// The uniform grid of `trajectory.csv`: [`SAMPLES_PER_STAGE`] samples per stage of
    /// `stages`.
    pub fn fine_grid(&self, stages: usize) -> Vec<f64> {
        let count = stages * SAMPLES_PER_STAGE;
        let t_end = self.duration();
        (0..=count)
            .map(|k| t_end * k as f64 / count as f64)
            .collect()
    }

    /// The configurations and torques of the interpolant on the [`Solution::fine_grid`] of
    /// `stages`, to start another solve from: the values of the `trajectory.csv` written of
    /// this solution, so that a continuation in one solve (`initial_guess: {solve: …}`) starts
    /// each step exactly where `initial_guess: {from: …/trajectory.csv}` would.
    pub fn recording(&self, stages: usize) -> Recording {
        let times = self.fine_grid(stages);
        let (q, u) = times
            .iter()
            .map(|&t| {
                let (q, _, u) = self.sample(t);
                (q, u)
            })
            .unzip();
        Recording {
            joint_names: self.joint_names.clone(),
            actuated_names: self.actuated_names.clone(),
            times,
            q,
            u,
        }
    }

    /// The initial velocity.
    pub fn v0(&self) -> Vec<f64> {
        self.sample(0.0).1
    }

    /// `(q(t), q̇(t), u(t))` from the interpolant (`t` is clamped to `[0, T]`).
    pub fn sample(&self, t: f64) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
        let t = t.clamp(0.0, self.duration());
        let n = self.joint_names.len();
        let n_u = self.actuated_names.len();
        match &self.interpolant {
            Interpolant::Galerkin {
                gal,
                dt,
                stages,
                knot_velocities,
            } => {
                let s = gal.s();
                let k = ((t / dt).floor() as usize).min(stages - 1);
                let tau = t / dt - k as f64;
                let wq = knot_weights(gal, tau, false);
                let wv = knot_weights(gal, tau, true);
                let mut q = vec![0.0; n];
                let mut v = vec![0.0; n];
                let mut u = vec![0.0; n_u];
                for i in 0..n {
                    let (v0, v1) = (knot_velocities[k][i] * dt, knot_velocities[k + 1][i] * dt);
                    let at = |w: &KnotWeights| {
                        (0..=s)
                            .map(|be| w.points[be] * self.q[k * s + be][i])
                            .sum::<f64>()
                            + w.start * v0
                            + w.end * v1
                    };
                    q[i] = at(&wq);
                    v[i] = at(&wv) / dt;
                }
                let mut l = vec![0.0; s + 1];
                gal.basis(tau, &mut l);
                for (be, lb) in l.iter().enumerate() {
                    for (uc, pc) in u.iter_mut().zip(&self.u[k * s + be]) {
                        *uc += lb * pc;
                    }
                }
                (q, v, u)
            }
            Interpolant::HermiteSimpson { layout, h, x } => {
                let mut q = vec![0.0; n];
                let mut v = vec![0.0; n];
                let mut u = vec![0.0; n_u];
                interpolate(layout, *h, x, Var::Q, t, &mut q);
                interpolate(layout, *h, x, Var::V, t, &mut v);
                interpolate(layout, *h, x, Var::U, t, &mut u);
                (q, v, u)
            }
        }
    }
}

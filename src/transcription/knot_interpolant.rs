//! The interpolant of a Galerkin VI solution on one stage, as weights on its unknowns.
//!
//! On stage `k`, with `τ = t/Δt − k ∈ [0, 1]`, vito's trajectory between the control points
//! `q^{k,0..=s}` is the polynomial of degree `s + 2` through them whose derivative at both knots
//! is the velocity of the discrete Legendre transform, `v_k = M(q^k)⁻¹ p^k` (order 2s accurate):
//!
//! `q(τ) = L(τ) + ω(τ)(A(1 − τ) + Bτ)`, with `L(τ) = Σ_β l_β(τ) q^{k,β}` Eq. 2's Lagrange
//! interpolant, `ω(τ) = Π_α (τ − τ_α)`, `A = (Δt v_k − L'(0))/ω'(0)` and
//! `B = (Δt v_{k+1} − L'(1))/ω'(1)`.
//!
//! Both `q(τ)` and `Δt q̇(τ) = dq/dτ` are linear in `(q^{k,0..=s}, Δt v_k, Δt v_{k+1})`; the
//! weights here are the one definition that the written trajectory
//! ([`super::Solution::sample`]) and the velocity-bound rows of the transcription share.

use crate::vi::Galerkin;

/// Weights of `q(τ)` (or of `dq/dτ`) on the stage's control points and on `Δt v_k`,
/// `Δt v_{k+1}`.
#[derive(Clone, Debug, PartialEq)]
pub struct KnotWeights {
    /// On `q^{k,β}`, `β = 0..=s`.
    pub points: Vec<f64>,
    /// On `Δt v_k`.
    pub start: f64,
    /// On `Δt v_{k+1}`.
    pub end: f64,
}

impl KnotWeights {
    /// Whether the knot velocities enter.
    pub fn involves_knots(&self) -> bool {
        self.start != 0.0 || self.end != 0.0
    }
}

/// `(ω(τ), ω'(τ))` for the nodes of `gal`.
fn node_polynomial(gal: &Galerkin, tau: f64) -> (f64, f64) {
    let nodes = gal.nodes();
    let w = nodes.iter().map(|a| tau - a).product();
    let wd = (0..nodes.len())
        .map(|a| {
            (0..nodes.len())
                .filter(|&b| b != a)
                .map(|b| tau - nodes[b])
                .product::<f64>()
        })
        .sum();
    (w, wd)
}

/// Weights of the stage interpolant at `τ`: of `q(τ)` when `derivative` is false, of `dq/dτ`
/// (that is `Δt q̇`) when it is true.
pub fn knot_weights(gal: &Galerkin, tau: f64, derivative: bool) -> KnotWeights {
    let s = gal.s();
    let (w, wd) = node_polynomial(gal, tau);
    let (_, wd0) = node_polynomial(gal, 0.0);
    let (_, wd1) = node_polynomial(gal, 1.0);
    let mut d0 = vec![0.0; s + 1];
    let mut d1 = vec![0.0; s + 1];
    let mut l = vec![0.0; s + 1];
    gal.basis_derivative(0.0, &mut d0);
    gal.basis_derivative(1.0, &mut d1);
    // The correction ω(τ)(A(1 − τ) + Bτ) and its τ-derivative, per unit A and per unit B.
    let (ca, cb) = if derivative {
        gal.basis_derivative(tau, &mut l);
        (wd * (1.0 - tau) - w, wd * tau + w)
    } else {
        gal.basis(tau, &mut l);
        (w * (1.0 - tau), w * tau)
    };
    let (ca, cb) = (ca / wd0, cb / wd1);
    KnotWeights {
        points: (0..=s)
            .map(|be| l[be] - ca * d0[be] - cb * d1[be])
            .collect(),
        start: ca,
        end: cb,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A polynomial of degree ≤ s + 2 is reproduced exactly from its values at the nodes and its
    /// slopes at the ends, in value and in slope, for s = 1, 2, 3.
    #[test]
    fn reproduces_polynomials_of_degree_s_plus_2() {
        for s in 1..=3 {
            let gal = Galerkin::new(s).unwrap();
            let p = |t: f64| 0.3 - 1.1 * t + 0.7 * t.powi(2) - 0.4 * t.powi(s as i32 + 2);
            let dp = |t: f64| -1.1 + 1.4 * t - 0.4 * (s as f64 + 2.0) * t.powi(s as i32 + 1);
            let values: Vec<f64> = gal.nodes().iter().map(|&t| p(t)).collect();
            for tau in [0.0, 0.13, 0.5, 0.77, 1.0] {
                for (derivative, exact) in [(false, p(tau)), (true, dp(tau))] {
                    let kw = knot_weights(&gal, tau, derivative);
                    let got: f64 = kw
                        .points
                        .iter()
                        .zip(&values)
                        .map(|(a, b)| a * b)
                        .sum::<f64>()
                        + kw.start * dp(0.0)
                        + kw.end * dp(1.0);
                    assert!(
                        (got - exact).abs() < 1e-12,
                        "s = {s}, τ = {tau}, derivative {derivative}: {got} vs {exact}"
                    );
                }
            }
        }
    }

    /// At the knots the slope is the knot velocity alone; at a node the value is the node's.
    #[test]
    fn interpolates_nodes_and_knot_slopes() {
        let gal = Galerkin::new(2).unwrap();
        let at0 = knot_weights(&gal, 0.0, true);
        assert!(at0.points.iter().all(|w| w.abs() < 1e-14) && (at0.start - 1.0).abs() < 1e-14);
        assert!(at0.end.abs() < 1e-14);
        let mid = knot_weights(&gal, 0.5, false);
        assert!((mid.points[1] - 1.0).abs() < 1e-14 && mid.start.abs() < 1e-14);
    }
}

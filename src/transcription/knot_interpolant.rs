//! The interpolant of a Galerkin VI solution on one stage, as weights on its unknowns.
//!
//! On stage `k`, with `τ = t/Δt − k ∈ [0, 1]`, vito's trajectory between the control points
//! `q^{k,0..=s}` is the polynomial of degree `2s + 1` through them whose velocity at both
//! knots is that of the discrete Legendre transform, `v_k = M(q^k)⁻¹ p^k`, and at the interior
//! control points that of Eq. 2's Lagrange interpolant, `q̇^{k,α} = Σ_β b^{αβ} q^{k,β} / Δt`
//! (the velocity the quadrature of Eq. 4 evaluates the Lagrangian at):
//!
//! `q(τ) = L(τ) + ω(τ)(A l_0(τ) + B l_s(τ))`, with `L(τ) = Σ_β l_β(τ) q^{k,β}` Eq. 2's
//! interpolant, `l_β` its Lagrange basis, `ω(τ) = Π_α (τ − τ_α)`,
//! `A = (Δt v_k − L'(0))/ω'(0)` and `B = (Δt v_{k+1} − L'(1))/ω'(1)`: the correction vanishes
//! with its slope at the interior nodes (`ω = 0` and `l_0 = l_s = 0` there) and sets the slopes
//! at the knots.
//!
//! Both `q(τ)` and `Δt q̇(τ) = dq/dτ` are linear in `(q^{k,0..=s}, Δt v_k, Δt v_{k+1})`; the
//! weights here are the one definition of the written trajectory ([`super::Solution::sample`]).
//! The velocities it reports at the control points are thus the transcription's own, which its
//! velocity bounds hold (see `VariationalNlp`).

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
    let mut basis = vec![0.0; s + 1];
    let mut basis_d = vec![0.0; s + 1];
    gal.basis_derivative(0.0, &mut d0);
    gal.basis_derivative(1.0, &mut d1);
    gal.basis(tau, &mut basis);
    gal.basis_derivative(tau, &mut basis_d);
    // The correction ω(τ)(A l_0(τ) + B l_s(τ)) and its τ-derivative, per unit A and per unit B.
    let (ca, cb, l) = if derivative {
        (
            wd * basis[0] + w * basis_d[0],
            wd * basis[s] + w * basis_d[s],
            basis_d,
        )
    } else {
        (w * basis[0], w * basis[s], basis)
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

    /// The polynomial of degree `2s + 1` with the given values and slopes at the nodes, by
    /// solving its Hermite conditions in the monomial basis: an independent route.
    fn hermite(nodes: &[f64], values: &[f64], slopes: &[f64], tau: f64) -> (f64, f64) {
        let m = 2 * nodes.len();
        let mut a = nalgebra::DMatrix::zeros(m, m);
        let mut rhs = nalgebra::DVector::zeros(m);
        for (j, &t) in nodes.iter().enumerate() {
            for p in 0..m {
                a[(2 * j, p)] = t.powi(p as i32);
                a[(2 * j + 1, p)] = if p == 0 {
                    0.0
                } else {
                    p as f64 * t.powi(p as i32 - 1)
                };
            }
            rhs[2 * j] = values[j];
            rhs[2 * j + 1] = slopes[j];
        }
        let c = a.lu().solve(&rhs).unwrap();
        let value = (0..m).map(|p| c[p] * tau.powi(p as i32)).sum();
        let slope = (1..m)
            .map(|p| c[p] * p as f64 * tau.powi(p as i32 - 1))
            .sum();
        (value, slope)
    }

    /// The weights are the Hermite interpolant through the control points with the knot
    /// velocities at the ends and the Lagrange interpolant's slopes at the interior nodes, in
    /// value and in slope, for every supported `s` (for `s = 1` the cubic Hermite spline).
    #[test]
    fn is_the_hermite_interpolant_of_the_transcription_velocities() {
        for s in 1..=crate::vi::galerkin::MAX_STAGE_ORDER {
            let gal = Galerkin::new(s).unwrap();
            let values: Vec<f64> = (0..=s).map(|b| (0.9 * b as f64 + 0.2).cos()).collect();
            let (v0, v1) = (0.7, -1.3);
            let mut d = vec![0.0; s + 1];
            let slopes: Vec<f64> = (0..=s)
                .map(|al| match al {
                    0 => v0,
                    al if al == s => v1,
                    al => {
                        gal.basis_derivative(gal.nodes()[al], &mut d);
                        d.iter().zip(&values).map(|(a, b)| a * b).sum()
                    }
                })
                .collect();
            for tau in [0.0, 0.13, 0.5, 0.77, 1.0] {
                let (value, slope) = hermite(gal.nodes(), &values, &slopes, tau);
                for (derivative, exact) in [(false, value), (true, slope)] {
                    let kw = knot_weights(&gal, tau, derivative);
                    let got: f64 = kw
                        .points
                        .iter()
                        .zip(&values)
                        .map(|(a, b)| a * b)
                        .sum::<f64>()
                        + kw.start * v0
                        + kw.end * v1;
                    assert!(
                        // The monomial route loses digits to its Vandermonde matrix at s = 6.
                        (got - exact).abs() < 1e-8 * (1.0 + exact.abs()),
                        "s = {s}, τ = {tau}, derivative {derivative}: {got} vs {exact}"
                    );
                }
            }
        }
    }

    /// At the knots the slope is the knot velocity alone; at an interior node the value is the
    /// node's and the slope Eq. 2's, without the knot velocities.
    #[test]
    fn interpolates_nodes_and_knot_slopes() {
        let gal = Galerkin::new(2).unwrap();
        let at0 = knot_weights(&gal, 0.0, true);
        assert!(at0.points.iter().all(|w| w.abs() < 1e-14) && (at0.start - 1.0).abs() < 1e-14);
        assert!(at0.end.abs() < 1e-14);
        let mid = knot_weights(&gal, 0.5, false);
        assert!((mid.points[1] - 1.0).abs() < 1e-14 && mid.start.abs() < 1e-14);
        let slope = knot_weights(&gal, 0.5, true);
        assert!(slope.start.abs() < 1e-14 && slope.end.abs() < 1e-14);
        for be in 0..=2 {
            assert!((slope.points[be] - gal.b(1, be)).abs() < 1e-14);
        }
    }
}

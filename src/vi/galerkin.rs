//! Coefficients of the Galerkin variational integrator with `s + 1` Lobatto control points
//! (seed 000 §2.1, Eqs. 2–4).
//!
//! On one stage `[kΔt, (k+1)Δt]` the configuration is the Lagrange interpolant of the control
//! points `q^{k,α}` at the Lobatto nodes `t^{k,α} = (k + τ_α)Δt`; the discrete Lagrangian is the
//! Lobatto quadrature `L_d = Σ_α w^α L(q^{k,α}, q̇^{k,α}) Δt` with `q̇^{k,α} = (1/Δt) Σ_β b^{αβ} q^{k,β}`.
//! The integrator has order `2s` (s = 1: trapezoidal, Example 1; s = 2: Simpson, Example 2).

/// Largest supported number of intervals per stage.
pub const MAX_STAGE_ORDER: usize = 6;

/// Quadrature and differentiation coefficients for `s + 1` Lobatto control points on `[0, 1]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Galerkin {
    s: usize,
    nodes: Vec<f64>,
    weights: Vec<f64>,
    b: Vec<f64>,
    a: Vec<f64>,
}

impl Galerkin {
    /// Coefficients for `s` intervals per stage (`s + 1` control points), `1 ≤ s ≤ 6`.
    ///
    /// # Errors
    /// If `s` is outside `1..=6`.
    pub fn new(s: usize) -> Result<Self, String> {
        if !(1..=MAX_STAGE_ORDER).contains(&s) {
            return Err(format!(
                "a Galerkin integrator needs 1 to {MAX_STAGE_ORDER} intervals per stage, got {s}"
            ));
        }
        let (nodes, weights) = lobatto(s);
        let m = s + 1;
        // Barycentric weights λ_j = 1 / Π_{k≠j} (τ_j − τ_k).
        let lam: Vec<f64> = (0..m)
            .map(|j| {
                1.0 / (0..m)
                    .filter(|&k| k != j)
                    .map(|k| nodes[j] - nodes[k])
                    .product::<f64>()
            })
            .collect();
        let mut b = vec![0.0; m * m];
        for al in 0..m {
            let mut diag = 0.0;
            for be in 0..m {
                if be != al {
                    let v = (lam[be] / lam[al]) / (nodes[al] - nodes[be]);
                    b[al * m + be] = v;
                    diag -= v;
                }
            }
            b[al * m + al] = diag;
        }
        let mut a = vec![0.0; m * m];
        for al in 0..m {
            for be in 0..m {
                a[al * m + be] = weights[be] * b[be * m + al];
            }
        }
        Ok(Self {
            s,
            nodes,
            weights,
            b,
            a,
        })
    }

    /// The trapezoidal variational integrator (s = 1, order 2).
    pub fn trapezoid() -> Self {
        Self::new(1).unwrap_or_else(|_| unreachable!("s = 1 is supported"))
    }

    /// The Simpson variational integrator (s = 2, order 4).
    pub fn simpson() -> Self {
        Self::new(2).unwrap_or_else(|_| unreachable!("s = 2 is supported"))
    }

    /// Intervals per stage `s`.
    pub fn s(&self) -> usize {
        self.s
    }

    /// Order of accuracy `2s`.
    pub fn order(&self) -> usize {
        2 * self.s
    }

    /// Lobatto nodes `τ_α ∈ [0, 1]`, `α = 0..=s`.
    pub fn nodes(&self) -> &[f64] {
        &self.nodes
    }

    /// Quadrature weight `w^α` (they sum to 1).
    pub fn w(&self, alpha: usize) -> f64 {
        self.weights[alpha]
    }

    /// `b^{αβ}`: the derivative at `τ_α` of the Lagrange basis polynomial of node `β`, on the
    /// unit interval (Eq. 2: `q̇^{k,α} = (1/Δt) Σ_β b^{αβ} q^{k,β}`).
    pub fn b(&self, alpha: usize, beta: usize) -> f64 {
        self.b[alpha * (self.s + 1) + beta]
    }

    /// `a^{αβ} = w^β b^{βα}` (Proposition 1).
    pub fn a(&self, alpha: usize, beta: usize) -> f64 {
        self.a[alpha * (self.s + 1) + beta]
    }

    /// Values of the Lagrange basis polynomials at `τ` (any real `τ`; outside `[0, 1]` this
    /// extrapolates), written to `out[β]`.
    ///
    /// # Panics
    /// If `out` does not have `s + 1` entries.
    pub fn basis(&self, tau: f64, out: &mut [f64]) {
        let m = self.s + 1;
        assert_eq!(out.len(), m);
        for (j, o) in out.iter_mut().enumerate() {
            let mut v = 1.0;
            for k in 0..m {
                if k != j {
                    v *= (tau - self.nodes[k]) / (self.nodes[j] - self.nodes[k]);
                }
            }
            *o = v;
        }
    }

    /// Derivatives (on the unit interval) of the Lagrange basis polynomials at `τ`.
    ///
    /// # Panics
    /// If `out` does not have `s + 1` entries.
    pub fn basis_derivative(&self, tau: f64, out: &mut [f64]) {
        let m = self.s + 1;
        assert_eq!(out.len(), m);
        for (j, o) in out.iter_mut().enumerate() {
            let mut sum = 0.0;
            for l in 0..m {
                if l == j {
                    continue;
                }
                let mut prod = 1.0 / (self.nodes[j] - self.nodes[l]);
                for k in 0..m {
                    if k != j && k != l {
                        prod *= (tau - self.nodes[k]) / (self.nodes[j] - self.nodes[k]);
                    }
                }
                sum += prod;
            }
            *o = sum;
        }
    }

    /// The velocity at a knot of the discrete Legendre transform with the mass matrix held
    /// constant, as weights on the control points of the stage before the knot (`before[β]`,
    /// `q^{k−1,β}`) and of the stage after it (`after[β]`, `q^{k,β}`), in units of `1/Δt`.
    ///
    /// At a knot the momentum the DEL equations carry (Eq. 7) is `p^k = D₂L_d^{k−1} + F⁺ =
    /// −D₁L_d^k − F⁻`, with the knot's own impulse split by the equal end weights `w⁰ = w^s`;
    /// the mean of the two sides cancels the knot's forces and potential, and with a constant
    /// `M` leaves the kinetic parts, `p^k = M v^k` with
    ///
    /// ```text
    /// v^k = ½ (Σ_α a^{sα} q̇^{k−1,α} − Σ_α a^{0α} q̇^{k,α}),   q̇^{k,α} = (1/Δt) Σ_β b^{αβ} q^{k,β}.
    /// ```
    ///
    /// It is what `knots.csv` reports at a knot (`M⁻¹p^k`) up to the change of `M` within the
    /// two stages, a function of the configurations alone: for `s = 1` the central difference
    /// `(q^{k+1} − q^{k−1}) / 2Δt`, for `s = 2` the five-point difference of order 4, and for
    /// every `s` exact on polynomials of degree `2⌊s/2⌋ + 2`.
    pub fn knot_velocity(&self) -> (Vec<f64>, Vec<f64>) {
        let (s, m) = (self.s, self.s + 1);
        let side = |end: usize, sign: f64| -> Vec<f64> {
            (0..m)
                .map(|be| {
                    0.5 * sign
                        * (0..m)
                            .map(|al| self.a(end, al) * self.b(al, be))
                            .sum::<f64>()
                })
                .collect()
        };
        (side(s, 1.0), side(0, -1.0))
    }

    /// The Bernstein coefficients of the derivative of Eq. 2's Lagrange interpolant on the unit
    /// interval, as weights on the control points: row `i = 0..s` gives `h_i = Σ_β h_{iβ} q^β`
    /// with `dq/dτ = Σ_i h_i C(s−1, i) τ^i (1 − τ)^{s−1−i}` (the hodograph of the interpolant's
    /// Bézier form). They are `s` independent functionals of the control points (a basis of the
    /// derivative's space), the first and the last are the end slopes `b^{0β}` and `b^{sβ}`,
    /// and by the convex-hull property `min_i h_i ≤ dq/dτ ≤ max_i h_i` on all of `[0, 1]`.
    /// For `s ≤ 2` they are the slopes at the ends, and the hull is exact.
    pub fn hodograph(&self) -> Vec<Vec<f64>> {
        let (s, m) = (self.s, self.s + 1);
        // The derivative at s points, and the Bernstein basis of degree s − 1 there.
        let at: Vec<f64> = if s == 1 {
            vec![0.0]
        } else {
            (0..s).map(|j| j as f64 / (s - 1) as f64).collect()
        };
        let mut values = nalgebra::DMatrix::zeros(s, m);
        let mut bernstein = nalgebra::DMatrix::zeros(s, s);
        let mut d = vec![0.0; m];
        for (j, &tau) in at.iter().enumerate() {
            self.basis_derivative(tau, &mut d);
            for (be, v) in d.iter().enumerate() {
                values[(j, be)] = *v;
            }
            for i in 0..s {
                bernstein[(j, i)] =
                    binomial(s - 1, i) * tau.powi(i as i32) * (1.0 - tau).powi((s - 1 - i) as i32);
            }
        }
        // The Bernstein matrix at distinct points is invertible.
        let h = bernstein
            .lu()
            .solve(&values)
            .unwrap_or_else(|| unreachable!("the Bernstein basis at distinct points is regular"));
        (0..s)
            .map(|i| (0..m).map(|be| h[(i, be)]).collect())
            .collect()
    }
}

/// `C(n, k)` as a float.
fn binomial(n: usize, k: usize) -> f64 {
    (0..k).fold(1.0, |c, j| c * (n - j) as f64 / (j + 1) as f64)
}

/// Gauss–Lobatto nodes and weights on `[0, 1]` for `s + 1` points: the endpoints and the roots
/// of `P'_s(2τ − 1)`, weights `1 / (s (s+1) P_s(x)²)`, by Newton's method on the Legendre
/// recurrence from Chebyshev–Lobatto starting points.
fn lobatto(s: usize) -> (Vec<f64>, Vec<f64>) {
    let m = s + 1;
    let mut x: Vec<f64> = (0..m)
        .map(|k| (std::f64::consts::PI * k as f64 / s as f64).cos())
        .collect();
    let legendre = |x: f64| {
        // Returns (P_s(x), P_{s−1}(x)).
        let (mut p0, mut p1) = (1.0, x);
        for k in 2..=s {
            let p2 = ((2 * k - 1) as f64 * x * p1 - (k - 1) as f64 * p0) / k as f64;
            p0 = p1;
            p1 = p2;
        }
        if s == 0 { (1.0, 0.0) } else { (p1, p0) }
    };
    for xi in x.iter_mut() {
        for _ in 0..100 {
            let (ps, pm) = legendre(*xi);
            let step = (*xi * ps - pm) / (m as f64 * ps);
            *xi -= step;
            if step.abs() < 1e-16 {
                break;
            }
        }
    }
    // Ascending on [0, 1].
    let nodes: Vec<f64> = x.iter().rev().map(|xi| 0.5 * (xi + 1.0)).collect();
    let weights: Vec<f64> = x
        .iter()
        .rev()
        .map(|&xi| {
            let (ps, _) = legendre(xi);
            0.5 * 2.0 / ((s * (s + 1)) as f64 * ps * ps)
        })
        .collect();
    let mut nodes = nodes;
    nodes[0] = 0.0;
    nodes[s] = 1.0;
    (nodes, weights)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The knot velocity of the frozen-mass Legendre transform: the closed forms for `s = 1, 2`
    /// and exactness on polynomials of degree `2⌊s/2⌋ + 2`.
    #[test]
    fn knot_velocity_is_the_legendre_transforms() {
        // s = 1: (q(1) − q(−1)) / 2, the knot's own point cancelling.
        let (before, after) = Galerkin::trapezoid().knot_velocity();
        assert!((before[0] + 0.5).abs() < 1e-14 && (after[1] - 0.5).abs() < 1e-14);
        assert!((before[1] + after[0]).abs() < 1e-14, "{before:?} {after:?}");
        // s = 2: (q(−1) − 8 q(−½) + 8 q(½) − q(1)) / 6, the knot's own point cancelling.
        let (before, after) = Galerkin::simpson().knot_velocity();
        let (b, a) = ([1.0 / 6.0, -4.0 / 3.0], [4.0 / 3.0, -1.0 / 6.0]);
        assert!((before[0] - b[0]).abs() < 1e-14 && (before[1] - b[1]).abs() < 1e-14);
        assert!((after[1] - a[0]).abs() < 1e-14 && (after[2] - a[1]).abs() < 1e-14);
        assert!((before[2] + after[0]).abs() < 1e-14, "{before:?} {after:?}");
        for s in 1..=MAX_STAGE_ORDER {
            let g = Galerkin::new(s).unwrap();
            let (before, after) = g.knot_velocity();
            for deg in 1..=2 * (s / 2) + 2 {
                // q(t) = t^deg about the knot at t = 0, one unit stage on each side.
                let q = |t: f64| t.powi(deg as i32);
                let v: f64 = (0..=s)
                    .map(|be| before[be] * q(g.nodes()[be] - 1.0) + after[be] * q(g.nodes()[be]))
                    .sum();
                let exact = if deg == 1 { 1.0 } else { 0.0 };
                assert!((v - exact).abs() < 1e-9, "s={s} deg={deg}: {v}");
            }
        }
    }

    #[test]
    fn trapezoid_is_example_1() {
        let g = Galerkin::trapezoid();
        assert_eq!(g.nodes(), &[0.0, 1.0]);
        assert!((g.w(0) - 0.5).abs() < 1e-15 && (g.w(1) - 0.5).abs() < 1e-15);
        for al in 0..2 {
            assert!((g.b(al, 0) + 1.0).abs() < 1e-15 && (g.b(al, 1) - 1.0).abs() < 1e-15);
        }
    }

    #[test]
    fn simpson_is_example_2() {
        let g = Galerkin::simpson();
        let expect_nodes = [0.0, 0.5, 1.0];
        let expect_w = [1.0 / 6.0, 4.0 / 6.0, 1.0 / 6.0];
        // q̇⁰ = (4q¹ − 3q⁰ − q²)/Δt, q̇¹ = (q² − q⁰)/Δt, q̇² = (q⁰ + 3q² − 4q¹)/Δt.
        let expect_b = [[-3.0, 4.0, -1.0], [-1.0, 0.0, 1.0], [1.0, -4.0, 3.0]];
        for al in 0..3 {
            assert!((g.nodes()[al] - expect_nodes[al]).abs() < 1e-15);
            assert!((g.w(al) - expect_w[al]).abs() < 1e-15);
            for be in 0..3 {
                assert!((g.b(al, be) - expect_b[al][be]).abs() < 1e-13);
                assert!((g.a(al, be) - expect_w[be] * expect_b[be][al]).abs() < 1e-13);
            }
        }
    }

    #[test]
    fn quadrature_is_exact_to_degree_2s_minus_1() {
        for s in 1..=MAX_STAGE_ORDER {
            let g = Galerkin::new(s).unwrap();
            for deg in 0..2 * s {
                let q: f64 = (0..=s)
                    .map(|a| g.w(a) * g.nodes()[a].powi(deg as i32))
                    .sum();
                assert!(
                    (q - 1.0 / (deg + 1) as f64).abs() < 1e-14,
                    "s={s} deg={deg}"
                );
            }
            // And not beyond (Lobatto has degree of exactness 2s − 1).
            let d = 2 * s;
            let q: f64 = (0..=s).map(|a| g.w(a) * g.nodes()[a].powi(d as i32)).sum();
            assert!((q - 1.0 / (d + 1) as f64).abs() > 1e-8, "s={s}");
        }
    }

    #[test]
    fn differentiation_is_exact_to_degree_s() {
        for s in 1..=MAX_STAGE_ORDER {
            let g = Galerkin::new(s).unwrap();
            let mut d = vec![0.0; s + 1];
            for deg in 0..=s {
                let f = |t: f64| t.powi(deg as i32);
                let df = |t: f64| {
                    if deg == 0 {
                        0.0
                    } else {
                        deg as f64 * t.powi(deg as i32 - 1)
                    }
                };
                for al in 0..=s {
                    let num: f64 = (0..=s).map(|be| g.b(al, be) * f(g.nodes()[be])).sum();
                    assert!(
                        (num - df(g.nodes()[al])).abs() < 1e-11,
                        "s={s} deg={deg} α={al}"
                    );
                }
                let tau = 0.37;
                g.basis_derivative(tau, &mut d);
                let num: f64 = (0..=s).map(|be| d[be] * f(g.nodes()[be])).sum();
                assert!((num - df(tau)).abs() < 1e-11);
                g.basis(1.3, &mut d);
                let num: f64 = (0..=s).map(|be| d[be] * f(g.nodes()[be])).sum();
                assert!((num - f(1.3)).abs() < 1e-11);
            }
        }
    }

    /// The hodograph's coefficients give back the derivative of the interpolant at any `τ`
    /// (an independent route: the Lagrange basis derivatives), start and end with the end
    /// slopes, and bound the derivative from both sides (sampled), for every supported `s`.
    #[test]
    fn hodograph_is_the_bernstein_form_of_the_derivative() {
        for s in 1..=MAX_STAGE_ORDER {
            let gal = Galerkin::new(s).unwrap();
            let h = gal.hodograph();
            assert_eq!(h.len(), s);
            for (be, (first, last)) in h[0].iter().zip(&h[s - 1]).enumerate() {
                assert!((first - gal.b(0, be)).abs() < 1e-9, "s = {s}");
                assert!((last - gal.b(s, be)).abs() < 1e-9, "s = {s}");
            }
            let q: Vec<f64> = (0..=s).map(|be| (1.3 * be as f64 + 0.4).sin()).collect();
            let coef: Vec<f64> = h
                .iter()
                .map(|row| row.iter().zip(&q).map(|(a, b)| a * b).sum())
                .collect();
            let (lo, hi) = coef
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, u), &c| {
                    (l.min(c), u.max(c))
                });
            let mut d = vec![0.0; s + 1];
            for j in 0..=40 {
                let tau = j as f64 / 40.0;
                gal.basis_derivative(tau, &mut d);
                let exact: f64 = d.iter().zip(&q).map(|(a, b)| a * b).sum();
                let bern: f64 = (0..s)
                    .map(|i| {
                        coef[i]
                            * binomial(s - 1, i)
                            * tau.powi(i as i32)
                            * (1.0 - tau).powi((s - 1 - i) as i32)
                    })
                    .sum();
                assert!(
                    (exact - bern).abs() < 1e-9 * (1.0 + exact.abs()),
                    "s = {s}, τ = {tau}"
                );
                assert!(
                    exact >= lo - 1e-9 && exact <= hi + 1e-9,
                    "s = {s}, τ = {tau}"
                );
            }
        }
    }

    #[test]
    fn nodes_are_symmetric_and_weights_positive() {
        for s in 1..=MAX_STAGE_ORDER {
            let g = Galerkin::new(s).unwrap();
            for a in 0..=s {
                assert!((g.nodes()[a] + g.nodes()[s - a] - 1.0).abs() < 1e-15);
                assert!(g.w(a) > 0.0);
            }
        }
        assert!(Galerkin::new(0).is_err() && Galerkin::new(7).is_err());
    }
}

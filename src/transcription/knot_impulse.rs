//! Hermite–Simpson's velocity jump at the interior knots: an impact (ARCHITECTURE.md,
//! "Contact").
//!
//! Hermite–Simpson's state is a C¹ cubic per interval with one velocity per knot, so the
//! velocity jump of an inelastic touchdown has no representation: a contact point that arrives
//! at the ground at a knot with normal speed `V` violates the position defects of the next
//! interval by `hV/8` and `hV/6` whatever the forces (`tests/hermite_simpson_touchdown.rs`), and
//! the only feasible touchdowns are bounces. As in Posa, Cantu & Tedrake's time stepping, where
//! the contact forces are impulses that change the velocity, each interior knot `k` gets a jump
//! `Δv_k` and a normal impulse `h σ P_l` per contact point:
//!
//! ```text
//! M(q_k) Δv_k − h Σ_l J_l(q_k)ᵀ σ P_l n̂_l(q_k) = 0,      0 ≤ gap_l(q_k) ⟂ P_l ≥ 0,
//! ```
//!
//! `v_k` is the velocity after the knot (the one its inverse dynamics, its contact rows and the
//! next interval use) and `v_k − Δv_k` the one before it (the previous interval's defects,
//! [`KnotImpulse::defect_coefficients`]). The impulse is normal (frictionless) and pairs with the
//! gap of its knot, as the knot's force does: by relaxation (the contact term's gap row) or by
//! its own Fischer–Burmeister row with smoothing; with the penalty method there are no jumps.
//!
//! Derivatives: exact first derivatives ([`KnotImpulse::jacobian`]); the Hessian of `λᵀr` is
//! central differences over `q` of the jump rows' exact gradient and of the gaps' gradients,
//! with the Fischer–Burmeister rows' exact second derivatives in `(gap, P)`.

use super::common::{FD_STEP, lower_triangle, write_lower_triangle};
use crate::collocation::{HermiteSimpsonLayout, Var};
use crate::contact::{ContactModel, ContactSample, GAP, NORMAL};
use crate::dynamics::{
    InverseDynamicsDerivatives, Workspace, forward_kinematics, inverse_dynamics_derivatives,
    mass_matrix, point_force_derivative,
};
use crate::model::Model;
use crate::problem::{ComplementarityMethod, TrajectoryProblem};
use crate::sqp::{Complementarity, ComplementarityTerm};
use nalgebra::{DMatrix, DVector};
use std::ops::AddAssign;

/// Starting normal impulse (units of `h σ`): every pair starts positive (research notes §3,
/// pitfall 4).
const START_IMPULSE: f64 = 0.01;

/// The velocity jumps and impulses of a problem's interior knots.
pub(crate) struct KnotImpulse {
    contact: Option<ContactModel>,
    n: usize,
    h: f64,
    /// Interior knots `1..N`.
    knots: usize,
    smoothed: bool,
    smoothing: f64,
    /// First variable and first row of the jumps.
    first_var: usize,
    first_row: usize,
    ws: Workspace,
    der: InverseDynamicsDerivatives,
    sample: Option<ContactSample>,
}

/// One knot's values: the configuration, the jump and the impulses.
struct KnotValues {
    q: Vec<f64>,
    dv: Vec<f64>,
    p: Vec<f64>,
}

impl KnotImpulse {
    /// The jumps of `prob` on `intervals` intervals of length `h`, their variables from
    /// `first_var` and rows from `first_row`.
    pub(crate) fn new(
        prob: &TrajectoryProblem,
        intervals: usize,
        h: f64,
        first_var: usize,
        first_row: usize,
    ) -> Self {
        let contact = prob
            .contact
            .clone()
            .filter(|_| !matches!(prob.complementarity, ComplementarityMethod::Penalty(_)));
        let (smoothed, smoothing) = match prob.complementarity {
            ComplementarityMethod::Smoothing { start, .. } => (true, start),
            _ => (false, 0.0),
        };
        let sample = contact.as_ref().map(|c| ContactSample::new(&prob.model, c));
        Self {
            knots: if contact.is_some() {
                intervals.saturating_sub(1)
            } else {
                0
            },
            contact,
            n: prob.model.dof(),
            h,
            smoothed,
            smoothing,
            first_var,
            first_row,
            ws: Workspace::new(&prob.model),
            der: InverseDynamicsDerivatives::new(&prob.model),
            sample,
        }
    }

    fn sites(&self) -> usize {
        self.contact.as_ref().map_or(0, |c| c.sites.len())
    }

    fn vars_per_knot(&self) -> usize {
        self.n + self.sites()
    }

    fn rows_per_knot(&self) -> usize {
        self.n + if self.smoothed { self.sites() } else { 0 }
    }

    pub(crate) fn num_variables(&self) -> usize {
        self.knots * self.vars_per_knot()
    }

    pub(crate) fn num_rows(&self) -> usize {
        self.knots * self.rows_per_knot()
    }

    /// Sets the smoothing `μ` of the Fischer–Burmeister rows.
    pub(crate) fn set_smoothing(&mut self, mu: f64) {
        self.smoothing = mu;
    }

    /// The point of interior knot `j` (knot `j + 1`).
    fn point(j: usize) -> usize {
        2 * (j + 1)
    }

    fn dv_var(&self, j: usize, i: usize) -> usize {
        self.first_var + j * self.vars_per_knot() + i
    }

    fn impulse_var(&self, j: usize, l: usize) -> usize {
        self.first_var + j * self.vars_per_knot() + self.n + l
    }

    /// The variables of knot `j`'s rows, increasing: `q_k`, `Δv_k`, `P_k`.
    fn vars(&self, j: usize, l: &HermiteSimpsonLayout) -> Vec<usize> {
        let q = l.start(Self::point(j), Var::Q);
        (q..q + self.n)
            .chain((0..self.vars_per_knot()).map(|i| self.first_var + j * self.vars_per_knot() + i))
            .collect()
    }

    fn values(&self, j: usize, l: &HermiteSimpsonLayout, x: &[f64]) -> KnotValues {
        let vars = self.vars(j, l);
        let pick = |r: std::ops::Range<usize>| vars[r].iter().map(|&i| x[i]).collect();
        KnotValues {
            q: pick(0..self.n),
            dv: pick(self.n..2 * self.n),
            p: pick(2 * self.n..vars.len()),
        }
    }

    /// Bounds: jumps free, impulses nonnegative (free with smoothing, whose rows imply it).
    pub(crate) fn variable_bounds(&self, lower: &mut [f64], upper: &mut [f64]) {
        for j in 0..self.knots {
            for l in 0..self.sites() {
                let v = self.impulse_var(j, l);
                lower[v] = if self.smoothed {
                    f64::NEG_INFINITY
                } else {
                    0.0
                };
                upper[v] = f64::INFINITY;
            }
        }
    }

    /// No jump and a small impulse.
    pub(crate) fn start(&self, x: &mut [f64]) {
        for j in 0..self.knots {
            for i in 0..self.n {
                x[self.dv_var(j, i)] = 0.0;
            }
            for l in 0..self.sites() {
                x[self.impulse_var(j, l)] = START_IMPULSE;
            }
        }
    }

    /// The jump rows of one knot (`n`) and, with smoothing, its Fischer–Burmeister rows, with
    /// the gaps and their gradient.
    fn residual(
        &mut self,
        model: &Model,
        k: &KnotValues,
        out: &mut [f64],
    ) -> (Vec<f64>, DMatrix<f64>) {
        let n = self.n;
        let contact = self.contact.as_ref().expect("jumps only with contact");
        let sample = self.sample.as_mut().expect("jumps only with contact");
        let mut m = DMatrix::zeros(n, n);
        mass_matrix(model, &mut self.ws, &k.q, &mut m);
        forward_kinematics(model, &mut self.ws, &k.q);
        let per = contact.per_site();
        let mut z = vec![0.0; contact.sites.len() * per];
        for (l, &p) in k.p.iter().enumerate() {
            z[l * per + NORMAL] = p;
        }
        sample.evaluate(model, contact, &self.ws, &vec![0.0; n], &z, true);
        let momentum = &m * DVector::from_column_slice(&k.dv);
        out[..n].copy_from_slice(momentum.as_slice());
        for (l, f) in sample.forces.iter().enumerate() {
            let jac = &sample.jacobians[l];
            for i in 0..n {
                out[i] -= self.h * (0..3).map(|d| jac[(d, i)] * f[d]).sum::<f64>();
            }
        }
        let sites = contact.sites.len();
        let gaps: Vec<f64> = (0..sites).map(|l| sample.rows[l * per + GAP]).collect();
        let mut grad = DMatrix::zeros(sites, n);
        for l in 0..sites {
            for c in 0..n {
                grad[(l, c)] = sample.rows_dq[(l * per + GAP, c)];
            }
        }
        if self.smoothed {
            for l in 0..sites {
                let (a, b) = (gaps[l], k.p[l]);
                out[n + l] = a + b - (a * a + b * b + 2.0 * self.smoothing.powi(2)).sqrt();
            }
        }
        (gaps, grad)
    }

    /// The Jacobian of knot `j`'s rows over its variables ([`Self::vars`]), rows × (2n + s):
    /// over `q` `∂τ/∂q(q, 0, Δv) − ∂τ/∂q(q, 0, 0)` (the inverse dynamics at zero velocity are
    /// `M(q) a + g(q)`) minus `h Σ_l (∂(J_lᵀ f)/∂q|_f + J_lᵀ ∂f_l/∂q)`, over `Δv` `M(q)`, over
    /// `P_l` `−h J_lᵀ σ n̂_l`.
    fn jacobian(&mut self, model: &Model, k: &KnotValues) -> DMatrix<f64> {
        let (n, s) = (self.n, self.sites());
        let rows = self.rows_per_knot();
        let mut jac = DMatrix::zeros(rows, 2 * n + s);
        let zeros = vec![0.0; n];
        inverse_dynamics_derivatives(model, &mut self.ws, &k.q, &zeros, &zeros, &mut self.der);
        jac.view_mut((0, 0), (n, n))
            .copy_from(&(-&self.der.dtau_dq));
        inverse_dynamics_derivatives(model, &mut self.ws, &k.q, &zeros, &k.dv, &mut self.der);
        jac.view_mut((0, 0), (n, n)).add_assign(&self.der.dtau_dq);
        jac.view_mut((0, n), (n, n)).copy_from(&self.der.dtau_da);
        let mut r = vec![0.0; rows];
        let (gaps, grad) = self.residual(model, k, &mut r);
        let contact = self.contact.as_ref().expect("jumps only with contact");
        let sample = self.sample.as_ref().expect("jumps only with contact");
        let mut stiffness = DMatrix::zeros(n, n);
        for (l, site) in contact.sites.iter().enumerate() {
            point_force_derivative(
                model,
                &self.ws,
                site.body,
                &site.offset,
                &sample.forces[l],
                &mut stiffness,
            );
            stiffness.gemm_tr(1.0, &sample.jacobians[l], &sample.forces_dq[l], 1.0);
            jac.view_mut((0, 0), (n, n))
                .add_assign(&(-self.h * &stiffness));
            let normal = sample.forces_dz[l].column(NORMAL);
            for i in 0..n {
                jac[(i, 2 * n + l)] = -self.h
                    * (0..3)
                        .map(|d| sample.jacobians[l][(d, i)] * normal[d])
                        .sum::<f64>();
            }
        }
        if self.smoothed {
            for l in 0..s {
                let (da, db) = self.fb_partials(gaps[l], k.p[l]);
                for c in 0..n {
                    jac[(n + l, c)] = da * grad[(l, c)];
                }
                jac[(n + l, 2 * n + l)] = db;
            }
        }
        jac
    }

    /// `∂FB/∂a`, `∂FB/∂b` of `FB(a, b) = a + b − √(a² + b² + 2μ²)`.
    fn fb_partials(&self, a: f64, b: f64) -> (f64, f64) {
        let r = (a * a + b * b + 2.0 * self.smoothing.powi(2))
            .sqrt()
            .max(f64::MIN_POSITIVE);
        (1.0 - a / r, 1.0 - b / r)
    }

    /// The rows' values into `out` ([`Self::num_rows`] entries).
    pub(crate) fn constraints(
        &mut self,
        model: &Model,
        l: &HermiteSimpsonLayout,
        x: &[f64],
        out: &mut [f64],
    ) {
        let rows = self.rows_per_knot();
        for j in 0..self.knots {
            let k = self.values(j, l, x);
            self.residual(model, &k, &mut out[j * rows..(j + 1) * rows]);
        }
    }

    /// Jacobian triplets: each knot's rows against its variables, row by row.
    pub(crate) fn jacobian_structure(&self, l: &HermiteSimpsonLayout) -> Vec<(usize, usize)> {
        let mut t = Vec::new();
        for j in 0..self.knots {
            let vars = self.vars(j, l);
            for r in 0..self.rows_per_knot() {
                t.extend(
                    vars.iter()
                        .map(|&c| (self.first_row + j * self.rows_per_knot() + r, c)),
                );
            }
        }
        t
    }

    /// Entries of [`Self::jacobian_structure`].
    pub(crate) fn jacobian_len(&self) -> usize {
        self.knots * self.rows_per_knot() * (2 * self.n + self.sites())
    }

    /// Jacobian values in the order of [`Self::jacobian_structure`].
    pub(crate) fn jacobian_values(
        &mut self,
        model: &Model,
        l: &HermiteSimpsonLayout,
        x: &[f64],
        out: &mut [f64],
    ) {
        let mut idx = 0;
        for j in 0..self.knots {
            let k = self.values(j, l, x);
            let jac = self.jacobian(model, &k);
            for r in 0..jac.nrows() {
                for c in 0..jac.ncols() {
                    out[idx] = jac[(r, c)];
                    idx += 1;
                }
            }
        }
    }

    /// Hessian triplets (lower triangle): each knot's variables against each other.
    pub(crate) fn hessian_structure(&self, l: &HermiteSimpsonLayout) -> Vec<(usize, usize)> {
        let mut t = Vec::new();
        for j in 0..self.knots {
            lower_triangle(&self.vars(j, l), &mut t);
        }
        t
    }

    /// Entries of [`Self::hessian_structure`].
    pub(crate) fn hessian_len(&self) -> usize {
        let m = 2 * self.n + self.sites();
        self.knots * m * (m + 1) / 2
    }

    /// Hessian values of `λᵀr` in the order of [`Self::hessian_structure`]; `lambda` holds the
    /// rows' multipliers. Central differences over `q` of the gradient `Jᵀλ`
    /// ([`Self::jacobian`]), and the Fischer–Burmeister rows' second derivatives in `(gap, P)`
    /// exactly.
    pub(crate) fn hessian_values(
        &mut self,
        model: &Model,
        l: &HermiteSimpsonLayout,
        x: &[f64],
        lambda: &[f64],
        out: &mut [f64],
    ) {
        let (n, s) = (self.n, self.sites());
        let m = 2 * n + s;
        let rows = self.rows_per_knot();
        let len = m * (m + 1) / 2;
        for j in 0..self.knots {
            let lam = DVector::from_column_slice(&lambda[j * rows..(j + 1) * rows]);
            // The jump rows by differences; the Fischer–Burmeister rows below, exactly.
            let mut jump = lam.clone();
            jump.rows_mut(n, rows - n).fill(0.0);
            let mut k = self.values(j, l, x);
            let mut block = DMatrix::zeros(m, m);
            let mut curvature = vec![DMatrix::zeros(n, n); s];
            let mut r = vec![0.0; rows];
            for c in 0..n {
                let q0 = k.q[c];
                let step = FD_STEP * q0.abs().max(1.0);
                k.q[c] = q0 + step;
                let plus = self.jacobian(model, &k).transpose() * &jump;
                let (_, grad_plus) = self.residual(model, &k, &mut r);
                k.q[c] = q0 - step;
                let minus = self.jacobian(model, &k).transpose() * &jump;
                let (_, grad_minus) = self.residual(model, &k, &mut r);
                k.q[c] = q0;
                block
                    .column_mut(c)
                    .copy_from(&((plus - minus) / (2.0 * step)));
                for (site, hess) in curvature.iter_mut().enumerate() {
                    for d in 0..n {
                        hess[(d, c)] =
                            (grad_plus[(site, d)] - grad_minus[(site, d)]) / (2.0 * step);
                    }
                }
            }
            // The q-columns hold the (Δv, P) × q blocks too; mirror them.
            for c in 0..n {
                for r in n..m {
                    block[(c, r)] = block[(r, c)];
                }
            }
            if self.smoothed {
                let (gaps, grad) = self.residual(model, &k, &mut r);
                let mu2 = 2.0 * self.smoothing.powi(2);
                for (site, hess) in curvature.iter().enumerate() {
                    let (a, b) = (gaps[site], k.p[site]);
                    let rr = (a * a + b * b + mu2).sqrt().max(f64::MIN_POSITIVE);
                    let r3 = rr * rr * rr;
                    let (faa, fab, fbb) = (-(b * b + mu2) / r3, a * b / r3, -(a * a + mu2) / r3);
                    let (da, _) = self.fb_partials(a, b);
                    let w = lam[n + site];
                    let pv = 2 * n + site;
                    for c in 0..n {
                        for d in 0..n {
                            block[(c, d)] +=
                                w * (faa * grad[(site, c)] * grad[(site, d)] + da * hess[(c, d)]);
                        }
                        block[(pv, c)] += w * fab * grad[(site, c)];
                        block[(c, pv)] += w * fab * grad[(site, c)];
                    }
                    block[(pv, pv)] += w * fbb;
                }
            }
            write_lower_triangle(&block, &mut out[j * len..(j + 1) * len]);
        }
    }

    /// Each impulse paired with its knot's gap, by relaxation: the gap row of the contact term
    /// at the same knot, found as the row its normal force `normal_var(point, site)` is paired
    /// with in `terms_pairs`.
    pub(crate) fn complementarities(
        &self,
        terms_pairs: &[Complementarity],
        normal_var: impl Fn(usize, usize) -> usize,
    ) -> Vec<Complementarity> {
        if self.smoothed {
            return Vec::new();
        }
        let mut out = Vec::new();
        for j in 0..self.knots {
            for l in 0..self.sites() {
                let normal = ComplementarityTerm::Variable(normal_var(Self::point(j), l));
                if let Some(pair) = terms_pairs.iter().find(|c| c.b == normal) {
                    out.push(Complementarity {
                        a: pair.a,
                        b: ComplementarityTerm::Variable(self.impulse_var(j, l)),
                    });
                }
            }
        }
        out
    }

    /// The previous interval's defects see the velocity before the knot, `v_k − Δv_k`: per
    /// interior knot, `(defect row, Δv variable, coefficient)` with the coefficients of `v_k` in
    /// interval `k − 1`'s four blocks negated (`q` interpolation `+h/8`, `v` interpolation
    /// `−1/2`, `q` integration `−h/6`, `v` integration `1`); `defect_start` is the first defect
    /// row.
    pub(crate) fn defect_coefficients(&self, defect_start: usize) -> Vec<(usize, usize, f64)> {
        let n = self.n;
        let h = self.h;
        let coefficients = [-h / 8.0, 0.5, h / 6.0, -1.0];
        let mut out = Vec::new();
        for j in 0..self.knots {
            // Knot j + 1 ends interval j.
            for (b, &c) in coefficients.iter().enumerate() {
                for i in 0..n {
                    out.push((defect_start + 4 * j * n + b * n + i, self.dv_var(j, i), c));
                }
            }
        }
        out
    }
}

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
//! gap of its knot, as the knot's force does: by relaxation the contact term's gap row is
//! paired with it; with smoothing its own row `gap_l(q_k) P_l ≤ μ²` (`P_l ≥ 0`) relaxes the pair
//! at the smoothing level `μ`. A Fischer–Burmeister row there would force `P_l = c_l` (both
//! `gap·c = μ²` and `gap·P = μ²` on the same gap), an impulse `h σ c_l` at every knot in stance.
//! With the penalty method there are no jumps.
//!
//! Derivatives: exact first derivatives ([`Buffers::jacobian`]); the Hessian of `λᵀr` is central
//! differences over `q` of the jump rows' exact gradient and of the gaps' gradients, with the
//! product rows' second derivatives in `(gap, P)` exactly. Every knot has its own buffers and
//! the knots are evaluated in parallel.

use super::common::{central_difference, lower_triangle, write_lower_triangle};
use crate::collocation::{HermiteSimpsonLayout, Var};
use crate::contact::{ContactModel, ContactSample, GAP, NORMAL};
use crate::dynamics::{
    InverseDynamicsDerivatives, Workspace, forward_kinematics, inverse_dynamics_derivatives,
    mass_matrix, point_force_derivative,
};
use crate::model::Model;
use crate::nlp::{Complementarity, ComplementarityTerm};
use crate::problem::{ComplementarityMethod, TrajectoryProblem};
use nalgebra::DMatrix;
use rayon::prelude::*;

/// Starting normal impulse (units of `h σ`): every pair starts positive (research notes §3,
/// pitfall 4).
const START_IMPULSE: f64 = 0.01;

/// What every knot's rows share: the sizes, the contact model and the smoothing.
struct Shape<'a> {
    contact: &'a ContactModel,
    n: usize,
    h: f64,
    smoothed: bool,
}

impl Shape<'_> {
    fn sites(&self) -> usize {
        self.contact.sites.len()
    }

    fn rows(&self) -> usize {
        self.n + if self.smoothed { self.sites() } else { 0 }
    }

    /// Variables of a knot's rows: `q_k`, `Δv_k`, `P_k`.
    fn columns(&self) -> usize {
        2 * self.n + self.sites()
    }
}

/// One knot's values and the buffers of its evaluation, allocated once.
struct Buffers {
    ws: Workspace,
    der: InverseDynamicsDerivatives,
    sample: ContactSample,
    /// The knot's configuration, jump and impulses.
    q: Vec<f64>,
    dv: Vec<f64>,
    p: Vec<f64>,
    zeros: Vec<f64>,
    /// The contact variables with the impulses as normal forces.
    z: Vec<f64>,
    mass: DMatrix<f64>,
    stiffness: DMatrix<f64>,
    /// The rows, the gaps and their gradient (sites × n).
    rows: Vec<f64>,
    gaps: Vec<f64>,
    gap_grad: DMatrix<f64>,
    /// The Jacobian over the knot's variables (rows × columns).
    jac: DMatrix<f64>,
    /// The Hessian block over the knot's variables, the gaps' Hessians, the jump rows'
    /// multipliers (the product rows' zeroed) and the gradient on either side of a difference.
    block: DMatrix<f64>,
    curvature: Vec<DMatrix<f64>>,
    jump: Vec<f64>,
    grad_sides: [Vec<f64>; 2],
    gap_grad_plus: DMatrix<f64>,
}

impl Buffers {
    fn new(model: &Model, shape: &Shape) -> Self {
        let (n, s) = (shape.n, shape.sites());
        let (rows, cols) = (shape.rows(), shape.columns());
        Self {
            ws: Workspace::new(model),
            der: InverseDynamicsDerivatives::new(model),
            sample: ContactSample::new(model, shape.contact),
            q: vec![0.0; n],
            dv: vec![0.0; n],
            p: vec![0.0; s],
            zeros: vec![0.0; n],
            z: vec![0.0; s * shape.contact.per_site()],
            mass: DMatrix::zeros(n, n),
            stiffness: DMatrix::zeros(n, n),
            rows: vec![0.0; rows],
            gaps: vec![0.0; s],
            gap_grad: DMatrix::zeros(s, n),
            jac: DMatrix::zeros(rows, cols),
            block: DMatrix::zeros(cols, cols),
            curvature: vec![DMatrix::zeros(n, n); s],
            jump: vec![0.0; rows],
            grad_sides: [vec![0.0; cols], vec![0.0; cols]],
            gap_grad_plus: DMatrix::zeros(s, n),
        }
    }

    /// Reads the knot's values from `x` (`vars` as [`KnotImpulse::vars`]).
    fn load(&mut self, x: &[f64], q: usize, own: usize, n: usize) {
        self.q.copy_from_slice(&x[q..q + n]);
        self.dv.copy_from_slice(&x[own..own + n]);
        let s = self.p.len();
        self.p.copy_from_slice(&x[own + n..own + n + s]);
    }

    /// The rows into `self.rows` (the jump rows, and with smoothing the products `gap·P`), the
    /// gaps and their gradient; `derivatives` also keeps the contact sample's derivatives.
    fn residual(&mut self, model: &Model, shape: &Shape, derivatives: bool) {
        let (n, contact) = (shape.n, shape.contact);
        mass_matrix(model, &mut self.ws, &self.q, &mut self.mass);
        forward_kinematics(model, &mut self.ws, &self.q);
        let per = contact.per_site();
        self.z.fill(0.0);
        for (l, &p) in self.p.iter().enumerate() {
            self.z[l * per + NORMAL] = p;
        }
        let sample = &mut self.sample;
        sample.evaluate(model, contact, &self.ws, &self.zeros, &self.z, derivatives);
        for i in 0..n {
            self.rows[i] = (0..n).map(|c| self.mass[(i, c)] * self.dv[c]).sum::<f64>();
        }
        for (l, f) in sample.forces.iter().enumerate() {
            let jac = &sample.jacobians[l];
            for i in 0..n {
                self.rows[i] -= shape.h * (0..3).map(|d| jac[(d, i)] * f[d]).sum::<f64>();
            }
        }
        for l in 0..shape.sites() {
            self.gaps[l] = sample.rows[l * per + GAP];
            if derivatives {
                for c in 0..n {
                    self.gap_grad[(l, c)] = sample.rows_dq[(l * per + GAP, c)];
                }
            }
            if shape.smoothed {
                self.rows[n + l] = self.gaps[l] * self.p[l];
            }
        }
    }

    /// The Jacobian of the rows over the knot's variables into `self.jac`: over `q`
    /// `∂τ/∂q(q, 0, Δv) − ∂τ/∂q(q, 0, 0)` (the inverse dynamics at zero velocity are
    /// `M(q) a + g(q)`) minus `h Σ_l (∂(J_lᵀ f)/∂q|_f + J_lᵀ ∂f_l/∂q)`, over `Δv` `M(q)`, over
    /// `P_l` `−h J_lᵀ σ n̂_l`; the product rows `P_l ∇gap_l` over `q` and `gap_l` over `P_l`.
    fn jacobian(&mut self, model: &Model, shape: &Shape) {
        let n = shape.n;
        inverse_dynamics_derivatives(
            model,
            &mut self.ws,
            &self.q,
            &self.zeros,
            &self.zeros,
            &mut self.der,
        );
        self.jac.fill(0.0);
        for i in 0..n {
            for c in 0..n {
                self.jac[(i, c)] = -self.der.dtau_dq[(i, c)];
            }
        }
        inverse_dynamics_derivatives(
            model,
            &mut self.ws,
            &self.q,
            &self.zeros,
            &self.dv,
            &mut self.der,
        );
        for i in 0..n {
            for c in 0..n {
                self.jac[(i, c)] += self.der.dtau_dq[(i, c)];
                self.jac[(i, n + c)] = self.der.dtau_da[(i, c)];
            }
        }
        self.residual(model, shape, true);
        let sample = &self.sample;
        for (l, site) in shape.contact.sites.iter().enumerate() {
            point_force_derivative(
                model,
                &self.ws,
                site.body,
                &site.offset,
                &sample.forces[l],
                &mut self.stiffness,
            );
            self.stiffness
                .gemm_tr(1.0, &sample.jacobians[l], &sample.forces_dq[l], 1.0);
            for i in 0..n {
                for c in 0..n {
                    self.jac[(i, c)] -= shape.h * self.stiffness[(i, c)];
                }
            }
            let normal = sample.forces_dz[l].column(NORMAL);
            for i in 0..n {
                self.jac[(i, 2 * n + l)] = -shape.h
                    * (0..3)
                        .map(|d| sample.jacobians[l][(d, i)] * normal[d])
                        .sum::<f64>();
            }
            if shape.smoothed {
                for c in 0..n {
                    self.jac[(n + l, c)] = self.p[l] * self.gap_grad[(l, c)];
                }
                self.jac[(n + l, 2 * n + l)] = self.gaps[l];
            }
        }
    }

    /// `Jᵀ jump` into `out`.
    fn jump_gradient(&self, out: &mut [f64]) {
        for (c, o) in out.iter_mut().enumerate() {
            *o = (0..self.jump.len())
                .map(|r| self.jac[(r, c)] * self.jump[r])
                .sum();
        }
    }

    /// The Hessian block of `λᵀr` over the knot's variables into `self.block`.
    fn hessian(&mut self, model: &Model, shape: &Shape, lambda: &[f64]) {
        let (n, m) = (shape.n, shape.columns());
        // The jump rows by differences of their exact gradient; the product rows below.
        self.jump.copy_from_slice(lambda);
        self.jump[n..].fill(0.0);
        self.block.fill(0.0);
        for c in 0..n {
            // The gaps' gradient of the minus side stays in `gap_grad`.
            let step = central_difference(
                self,
                |b| &mut b.q[c],
                |b, side| {
                    b.jacobian(model, shape);
                    let mut g = std::mem::take(&mut b.grad_sides[side]);
                    b.jump_gradient(&mut g);
                    b.grad_sides[side] = g;
                    if side == 0 {
                        b.gap_grad_plus.copy_from(&b.gap_grad);
                    }
                },
            );
            let [gp, gm] = &self.grad_sides;
            for r in 0..m {
                self.block[(r, c)] = step.quotient(gp[r], gm[r]);
            }
            for (site, hess) in self.curvature.iter_mut().enumerate() {
                for d in 0..n {
                    hess[(d, c)] =
                        step.quotient(self.gap_grad_plus[(site, d)], self.gap_grad[(site, d)]);
                }
            }
        }
        // The q-columns hold the (Δv, P) × q blocks too; mirror them.
        for c in 0..n {
            for r in n..m {
                self.block[(c, r)] = self.block[(r, c)];
            }
        }
        if shape.smoothed {
            self.residual(model, shape, true);
            for site in 0..shape.sites() {
                let w = lambda[n + site];
                let pv = 2 * n + site;
                for c in 0..n {
                    for d in 0..n {
                        self.block[(c, d)] += w * self.p[site] * self.curvature[site][(c, d)];
                    }
                    self.block[(pv, c)] += w * self.gap_grad[(site, c)];
                    self.block[(c, pv)] += w * self.gap_grad[(site, c)];
                }
            }
        }
    }
}

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
    /// One per interior knot.
    buffers: Vec<Buffers>,
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
        let knots = if contact.is_some() {
            intervals.saturating_sub(1)
        } else {
            0
        };
        let mut out = Self {
            contact,
            n: prob.model.dof(),
            h,
            knots,
            smoothed,
            smoothing,
            first_var,
            first_row,
            buffers: Vec::new(),
        };
        if let Some(contact) = &out.contact {
            let shape = Shape {
                contact,
                n: out.n,
                h,
                smoothed,
            };
            out.buffers = (0..knots)
                .map(|_| Buffers::new(&prob.model, &shape))
                .collect();
        }
        out
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

    /// Sets the smoothing `μ` of the product rows' bound `μ²`.
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

    /// Bounds: jumps free, impulses nonnegative.
    pub(crate) fn variable_bounds(&self, lower: &mut [f64], upper: &mut [f64]) {
        for j in 0..self.knots {
            for l in 0..self.sites() {
                let v = self.impulse_var(j, l);
                lower[v] = 0.0;
                upper[v] = f64::INFINITY;
            }
        }
    }

    /// Row bounds: the jumps are equalities; with smoothing the products `gap·P ≤ μ²`.
    pub(crate) fn row_bounds(&self, lower: &mut [f64], upper: &mut [f64]) {
        if !self.smoothed {
            return;
        }
        let rows = self.rows_per_knot();
        for j in 0..self.knots {
            for l in 0..self.sites() {
                let r = self.first_row + j * rows + self.n + l;
                lower[r] = f64::NEG_INFINITY;
                upper[r] = self.smoothing * self.smoothing;
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

    /// Runs `f` on every knot in parallel with its buffers loaded from `x` and its `len`
    /// entries of `out`.
    fn each_knot(
        &mut self,
        l: &HermiteSimpsonLayout,
        x: &[f64],
        out: &mut [f64],
        len: usize,
        f: impl Fn(&Shape, &mut Buffers, usize, &mut [f64]) + Sync,
    ) {
        let (n, first_var, per) = (self.n, self.first_var, self.vars_per_knot());
        let Some(contact) = self.contact.as_ref() else {
            return;
        };
        let shape = Shape {
            contact,
            n,
            h: self.h,
            smoothed: self.smoothed,
        };
        self.buffers
            .par_iter_mut()
            .zip(out[..self.knots * len].par_chunks_mut(len))
            .enumerate()
            .for_each(|(j, (b, chunk))| {
                b.load(x, l.start(Self::point(j), Var::Q), first_var + j * per, n);
                f(&shape, b, j, chunk);
            });
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
        self.each_knot(l, x, out, rows, |shape, b, _, chunk| {
            b.residual(model, shape, false);
            chunk.copy_from_slice(&b.rows);
        });
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
        let len = self.rows_per_knot() * (2 * self.n + self.sites());
        self.each_knot(l, x, out, len, |shape, b, _, chunk| {
            b.jacobian(model, shape);
            let cols = b.jac.ncols();
            for r in 0..b.jac.nrows() {
                for c in 0..cols {
                    chunk[r * cols + c] = b.jac[(r, c)];
                }
            }
        });
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
    /// rows' multipliers. Central differences over `q` of the jump rows' gradient `Jᵀλ`
    /// ([`Buffers::jacobian`]), and the product rows' second derivatives exactly.
    pub(crate) fn hessian_values(
        &mut self,
        model: &Model,
        l: &HermiteSimpsonLayout,
        x: &[f64],
        lambda: &[f64],
        out: &mut [f64],
    ) {
        let m = 2 * self.n + self.sites();
        let rows = self.rows_per_knot();
        self.each_knot(l, x, out, m * (m + 1) / 2, |shape, b, j, chunk| {
            b.hessian(model, shape, &lambda[j * rows..(j + 1) * rows]);
            write_lower_triangle(&b.block, chunk);
        });
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

//! Steps of the objective-curvature model near feasibility, taken to the minimizer of the
//! Lagrangian's quadratic model over the QP step and the previous step.
//!
//! When `∇²L` needs a shift, the solver poses its QP with `∇²f` alone (`Sqp::prepare_hessian`).
//! That model lacks the constraints' curvature `Σλᵢ∇²cᵢ`, and near a solution its steps are
//! preconditioned gradient steps on the Lagrangian: along a direction where the model has less
//! curvature than `∇²L` the full step overshoots the minimizer by the ratio of the two, and
//! above a ratio of 2 successive steps oscillate with growing amplitude. The objective hardly
//! changes along such tangential steps, so the filter accepts them all. This was the tail of
//! the 12-link pendulum's variational solve with OSQP, whose augmentation leaves out the speed
//! limits held at their bound with small multipliers (`QpSolver::active_multiplier`): the
//! steps went back and forth along one direction, the dual infeasibility grew ×1.34 per
//! iteration until a second-order correction cut it back, and the solve ended `Acceptable`
//! after 938 iterations (with a speed limit of 1 rad/s: curvature 0.081 in the model and
//! 0.188 in `∇²L` along the steps, `Acceptable` after 313).
//!
//! Near feasibility (violation within the filter's `θ_min`) such a step `d`, with the QP's
//! multipliers `(y, z)`, is therefore replaced by the minimizer `s = a d + b p` of
//! `q(s) = ∇L(x, y, z)ᵀs + ½ sᵀ∇²L s` over `d` and the previous step `p`, when that step was
//! of the same kind and `q` is convex on their span: conjugate gradients on the Lagrangian,
//! the QP supplying the preconditioned residual (the model's curvature) and the feasibility
//! of `d`. Without such a previous step (or where `q` is not convex on the span) the step is
//! shortened to the minimizer along `d` if that lies below 1. The 12-link solve with OSQP now
//! converges in 157 iterations, and `weak_bound_on_a_circle` in `tests/sqp_behaviour.rs`
//! (the same tail in three variables) in 9 instead of ending `Acceptable` after 320.
//!
//! The feasibility part of `d` is scaled with it, so near a solution the violation falls by
//! `1 − a` per step rather than quadratically; the second-order correction of the line search
//! restores it where the filter asks for it. The steps of the exact model carry at least the
//! Lagrangian's curvature and are left alone.

use super::sparse::add_transpose_triplets;

/// The Lagrangian's quadratic model at the current point, with the QP step's multipliers.
pub(super) struct LagrangianModel<'a> {
    pub(super) hessian_structure: &'a [(usize, usize)],
    /// `∇²L` at the current point, one triangle (repeated positions add up).
    pub(super) hessian: &'a [f64],
    pub(super) gradient: &'a [f64],
    pub(super) jacobian_structure: &'a [(usize, usize)],
    pub(super) jacobian: &'a [f64],
    /// The QP's row multipliers `y`.
    pub(super) lambda: &'a [f64],
    /// The QP's bound multipliers `z`.
    pub(super) z: &'a [f64],
}

impl LagrangianModel<'_> {
    /// `∇L(x, y, z) = ∇f + Jᵀy + z` into `out`.
    fn gradient(&self, out: &mut [f64]) {
        for ((o, &g), &z) in out.iter_mut().zip(self.gradient).zip(self.z) {
            *o = g + z;
        }
        add_transpose_triplets(self.jacobian_structure, self.jacobian, self.lambda, out);
    }

    /// `out = ∇²L v`.
    fn product(&self, v: &[f64], out: &mut [f64]) {
        out.fill(0.0);
        for (&(i, j), &h) in self.hessian_structure.iter().zip(self.hessian) {
            out[i] += h * v[j];
            if i != j {
                out[j] += h * v[i];
            }
        }
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The previous step and scratch vectors, allocated once.
pub(super) struct SubspaceStep {
    previous: Vec<f64>,
    has_previous: bool,
    lagrangian_gradient: Vec<f64>,
    hd: Vec<f64>,
    hp: Vec<f64>,
}

impl SubspaceStep {
    pub(super) fn new(n: usize) -> Self {
        Self {
            previous: vec![0.0; n],
            has_previous: false,
            lagrangian_gradient: vec![0.0; n],
            hd: vec![0.0; n],
            hp: vec![0.0; n],
        }
    }

    /// Replaces the QP step `d` by the minimizer of the Lagrangian's model over `d` and the
    /// previous step, if there is one and the model is convex on their span; returns the first
    /// step length for the line search (below 1 when `d` alone overshoots the minimizer
    /// along it).
    pub(super) fn apply(&mut self, model: &LagrangianModel<'_>, d: &mut [f64]) -> f64 {
        model.gradient(&mut self.lagrangian_gradient);
        model.product(d, &mut self.hd);
        let (gd, dhd) = (dot(&self.lagrangian_gradient, d), dot(d, &self.hd));
        if self.has_previous {
            model.product(&self.previous, &mut self.hp);
            let gp = dot(&self.lagrangian_gradient, &self.previous);
            let (php, dhp) = (dot(&self.previous, &self.hp), dot(d, &self.hp));
            let det = dhd * php - dhp * dhp;
            // Convex on the span, with a margin against near-parallel steps.
            if dhd > 0.0 && php > 0.0 && det > 1e-8 * dhd * php {
                let a = (-gd * php + gp * dhp) / det;
                let b = (-gp * dhd + gd * dhp) / det;
                if a.is_finite() && b.is_finite() {
                    for (di, &pi) in d.iter_mut().zip(&self.previous) {
                        *di = a * *di + b * pi;
                    }
                    return 1.0;
                }
            }
        }
        if dhd > 0.0 && gd < 0.0 {
            (-gd / dhd).min(1.0)
        } else {
            1.0
        }
    }

    /// Keeps the step just taken, `x_new − x`, for the next [`apply`](Self::apply).
    pub(super) fn remember(&mut self, x: &[f64], x_new: &[f64]) {
        for ((p, &a), &b) in self.previous.iter_mut().zip(x).zip(x_new) {
            *p = b - a;
        }
        self.has_previous = true;
    }

    /// Drops the previous step (the last step was not of this kind).
    pub(super) fn forget(&mut self) {
        self.has_previous = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `q(s) = gᵀs + ½ sᵀHs` with `H = diag(1, 4, 9)` (lower triangle triplets) and no
    /// constraints: from any two independent directions the step reaches the minimizer of `q`
    /// on their span, checked against the closed form.
    #[test]
    fn reaches_the_minimizer_on_the_span() {
        let structure = [(0, 0), (1, 1), (2, 2), (1, 0)];
        let hessian = [1.0, 4.0, 9.0, 0.5];
        let gradient = [1.0, -2.0, 3.0];
        let model = LagrangianModel {
            hessian_structure: &structure,
            hessian: &hessian,
            gradient: &gradient,
            jacobian_structure: &[],
            jacobian: &[],
            lambda: &[],
            z: &[0.0; 3],
        };
        let mut subspace = SubspaceStep::new(3);
        subspace.remember(&[0.0; 3], &[0.0, 1.0, 1.0]);
        let mut d = [1.0, 0.0, 1.0];
        assert_eq!(subspace.apply(&model, &mut d), 1.0);
        // Minimize over s = a u + b v with u = (1, 0, 1), v = (0, 1, 1): the 2×2 system
        // [uᵀHu uᵀHv; vᵀHu vᵀHv] [a; b] = -[gᵀu; gᵀv], with H's (1, 0) entry 0.5.
        let h = |x: [f64; 3], y: [f64; 3]| {
            x[0] * y[0] + 4.0 * x[1] * y[1] + 9.0 * x[2] * y[2] + 0.5 * (x[0] * y[1] + x[1] * y[0])
        };
        let (u, v) = ([1.0, 0.0, 1.0], [0.0, 1.0, 1.0]);
        let (huu, huv, hvv) = (h(u, u), h(u, v), h(v, v));
        let (gu, gv) = (dot(&gradient, &u), dot(&gradient, &v));
        let det = huu * hvv - huv * huv;
        let a = (-gu * hvv + gv * huv) / det;
        let b = (-gv * huu + gu * huv) / det;
        for k in 0..3 {
            assert!((d[k] - (a * u[k] + b * v[k])).abs() < 1e-12, "{d:?}");
        }
        // The gradient of q at the step is orthogonal to the span.
        let mut grad = [0.0; 3];
        model.product(&d, &mut grad);
        for (g, &g0) in grad.iter_mut().zip(&gradient) {
            *g += g0;
        }
        assert!(dot(&grad, &u).abs() < 1e-12 && dot(&grad, &v).abs() < 1e-12);
    }

    /// Without a previous step a step that overshoots the minimizer along it is shortened to
    /// it, and one that falls short is left at length 1.
    #[test]
    fn shortens_an_overshooting_step() {
        let structure = [(0, 0)];
        let hessian = [4.0];
        let gradient = [-2.0];
        let model = LagrangianModel {
            hessian_structure: &structure,
            hessian: &hessian,
            gradient: &gradient,
            jacobian_structure: &[(0, 0)],
            jacobian: &[1.0],
            lambda: &[0.5],
            z: &[0.0],
        };
        let mut subspace = SubspaceStep::new(1);
        // ∇L = -2 + 0.5 = -1.5, curvature 4: the minimizer along d = 1 is at 0.375.
        assert!((subspace.apply(&model, &mut [1.0]) - 0.375).abs() < 1e-15);
        assert_eq!(subspace.apply(&model, &mut [0.1]), 1.0);
        subspace.remember(&[0.0], &[1.0]);
        subspace.forget();
        assert!((subspace.apply(&model, &mut [1.0]) - 0.375).abs() < 1e-15);
    }
}

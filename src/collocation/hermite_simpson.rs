//! The Hermite–Simpson constraint rows, their exact sparse Jacobian and the interpolant of a
//! collocation solution.

use super::{CollocationError, HermiteSimpsonLayout, Var};
use crate::dynamics::{
    InverseDynamicsDerivatives, Workspace, inverse_dynamics, inverse_dynamics_derivatives,
};
use crate::model::{Drive, Model};
use rayon::prelude::*;

/// One nonzero of the defect rows of interval 0; interval `k` has the same entries shifted by
/// `4kn` rows and `2k (3n + n_u)` columns.
#[derive(Clone, Copy, Debug)]
struct DefectEntry {
    /// Row within the interval's `4n` defect rows.
    row: usize,
    /// Column relative to the start of knot `k` (`layout.start(2k, Var::Q)`).
    col: usize,
    /// The constant coefficient.
    value: f64,
}

/// Everything fixed at construction: sizes, the sparsity pattern and the defect coefficients.
#[derive(Clone, Debug)]
struct Plan {
    layout: HermiteSimpsonLayout,
    duration: f64,
    h: f64,
    /// `B` of `τ = B u`: the actuator inputs' joints and factors ([`Model::drives`]).
    drives: Vec<Drive>,
    /// Spring stiffness `k_i` (0 without a spring): `∂(−τ_passive,i)/∂q_i`.
    stiffness: Vec<f64>,
    /// Damping `d_i`: `∂(−τ_passive,i)/∂q̇_i`.
    damping: Vec<f64>,
    /// Joint pairs `(i, j)` on one path to the root, sorted by `j` then `i`: the nonzeros of
    /// `∂τ/∂q`, `∂τ/∂q̇` and `M`.
    pairs: Vec<(usize, usize)>,
    /// The `20n` defect entries of one interval, 5 per row, rows in order.
    defect: Vec<DefectEntry>,
}

/// Per-point buffers.
#[derive(Clone, Debug)]
struct PointBuffers {
    ws: Workspace,
    der: InverseDynamicsDerivatives,
}

/// The Hermite–Simpson transcription of one robot on `N` intervals of length `h = T/N`: its
/// `(6N + 1) n` constraint rows, the fixed sparsity pattern of their Jacobian, the exact
/// Jacobian values and the interpolant of a solution. See the [module docs](super) for the row
/// order and the layout of the Jacobian values.
///
/// Built once per model, `N` and `T`, it holds one [`Workspace`] and one
/// [`InverseDynamicsDerivatives`] per point, so evaluations allocate nothing and run in
/// parallel over points. The evaluation methods take the model they were built for.
#[derive(Clone, Debug)]
pub struct HermiteSimpson {
    plan: Plan,
    buffers: Vec<PointBuffers>,
    scratch: Vec<f64>,
}

impl HermiteSimpson {
    /// The transcription of `model` on `intervals` intervals over `[0, duration]`, its
    /// variables starting at index 0 of the decision vector (see [`Self::with_offset`]).
    ///
    /// # Errors
    /// If `intervals` is 0, `duration` is not positive and finite, or the model has no degree
    /// of freedom.
    pub fn new(model: &Model, intervals: usize, duration: f64) -> Result<Self, CollocationError> {
        if intervals == 0 {
            return Err(CollocationError::NoIntervals);
        }
        if !(duration.is_finite() && duration > 0.0) {
            return Err(CollocationError::InvalidDuration(duration));
        }
        let n = model.dof();
        if n == 0 {
            return Err(CollocationError::NoDegreesOfFreedom(
                model.name().to_string(),
            ));
        }
        let layout = HermiteSimpsonLayout::new(n, model.actuated_joints().len(), intervals);
        let h = duration / intervals as f64;
        let mut pairs = Vec::new();
        for i in 0..n {
            for j in model.ancestors_inclusive(i) {
                pairs.push((i, j));
                if j != i {
                    pairs.push((j, i));
                }
            }
        }
        pairs.sort_unstable_by_key(|&(i, j)| (j, i));
        let buffers = (0..layout.points())
            .map(|_| PointBuffers {
                ws: Workspace::new(model),
                der: InverseDynamicsDerivatives::new(model),
            })
            .collect();
        let plan = Plan {
            layout,
            duration,
            h,
            stiffness: model
                .joints()
                .iter()
                .map(|j| j.spring.map_or(0.0, |s| s.stiffness))
                .collect(),
            damping: model.joints().iter().map(|j| j.damping).collect(),
            drives: model.drives(),
            pairs,
            defect: defect_entries(&layout, h),
        };
        let scratch = vec![0.0; plan.num_rows()];
        Ok(Self {
            plan,
            buffers,
            scratch,
        })
    }

    /// The same transcription with its variables starting at `offset` in a larger decision
    /// vector (the constraint rows keep their numbering from 0).
    pub fn with_offset(mut self, offset: usize) -> Self {
        self.plan.layout = self.plan.layout.with_offset(offset);
        self
    }

    /// The variable layout.
    pub fn layout(&self) -> HermiteSimpsonLayout {
        self.plan.layout
    }

    /// The duration `T`.
    pub fn duration(&self) -> f64 {
        self.plan.duration
    }

    /// The interval length `h = T/N`.
    pub fn interval_length(&self) -> f64 {
        self.plan.h
    }

    /// The time of point `p`, `t_p = p T / (2N)`: knot `k` at `k h`, midpoint `k` at
    /// `(k + ½) h`.
    pub fn time(&self, point: usize) -> f64 {
        let points = self.plan.layout.points() - 1;
        self.plan.duration * point as f64 / points as f64
    }

    /// Number of constraint rows, `(2N + 1) n + 4 N n = (6N + 1) n` (seed 000, Table 1).
    pub fn num_rows(&self) -> usize {
        self.plan.num_rows()
    }

    /// Number of decision variables, `(2N + 1)(3n + n_u)`.
    pub fn num_variables(&self) -> usize {
        self.plan.layout.num_variables()
    }

    /// Jacobian nonzeros of the inverse-dynamics rows of one point: `3P + n_u`, `P` being the
    /// number of joint pairs `(i, j)` on one path to the root.
    pub fn point_nnz(&self) -> usize {
        self.plan.point_nnz()
    }

    /// Jacobian nonzeros of the defect rows of one interval, `20n`.
    pub fn interval_nnz(&self) -> usize {
        self.plan.defect.len()
    }

    /// Total Jacobian nonzeros, `(2N + 1)·point_nnz + N·interval_nnz`.
    pub fn nnz(&self) -> usize {
        self.plan.nnz()
    }

    /// The `(row, column)` pattern of the constraint Jacobian, fixed for the life of `self`:
    /// rows from 0 (this block's own numbering), columns in the decision vector (offset
    /// included). First the inverse-dynamics entries of point 0, 1, …, 2N, each point a
    /// contiguous run of [`Self::point_nnz`] entries (`∂/∂q` on the pairs, then `∂/∂q̇`, then
    /// `∂/∂q̈`, then `∂/∂u`); then the defect entries of interval 0, 1, …, N−1, each a
    /// contiguous run of [`Self::interval_nnz`] entries. No `(row, column)` appears twice.
    pub fn jacobian_structure(&self) -> Vec<(usize, usize)> {
        let plan = &self.plan;
        let l = &plan.layout;
        let n = l.n();
        let mut t = Vec::with_capacity(self.nnz());
        for p in 0..l.points() {
            for var in [Var::Q, Var::V, Var::A] {
                let col = l.start(p, var);
                t.extend(plan.pairs.iter().map(|&(i, j)| (p * n + i, col + j)));
            }
            let col = l.start(p, Var::U);
            t.extend(
                plan.drives
                    .iter()
                    .map(|d| (p * n + d.joint, col + d.column)),
            );
        }
        let first = l.points() * n;
        for k in 0..l.intervals() {
            let (row, col) = (first + 4 * k * n, l.start(l.knot(k), Var::Q));
            t.extend(plan.defect.iter().map(|e| (row + e.row, col + e.col)));
        }
        t
    }

    /// The constraint residuals at `x` (the whole decision vector), in the row order of the
    /// [module docs](super); evaluated in parallel over points and intervals.
    ///
    /// # Panics
    /// If `model` has another size than the one this was built for, `x` is shorter than
    /// `layout().end()` or `out` does not have [`Self::num_rows`] entries.
    pub fn residuals(&mut self, model: &Model, x: &[f64], out: &mut [f64]) {
        let Self { plan, buffers, .. } = self;
        plan.check(model, x, out, None);
        let (id, defects) = out.split_at_mut(plan.layout.points() * plan.layout.n());
        rayon::join(
            || {
                buffers
                    .par_iter_mut()
                    .zip(id.par_chunks_mut(plan.layout.n()))
                    .enumerate()
                    .for_each(|(p, (buf, r))| {
                        let (q, v, a) = plan.state(x, p);
                        inverse_dynamics(model, &mut buf.ws, q, v, a, r);
                        plan.subtract_applied_forces(model, x, p, r);
                    });
            },
            || plan.defect_residuals(x, defects),
        );
    }

    /// The Jacobian values at `x` in the order of [`Self::jacobian_structure`]: the
    /// inverse-dynamics blocks from [`inverse_dynamics_derivatives`] (`∂τ/∂q + K`,
    /// `∂τ/∂q̇ + D`, `M(q)`, `−B`, with `K`, `D` the diagonal spring stiffnesses and damping
    /// coefficients) and the constant defect coefficients. Each point and each interval fills
    /// its own contiguous slice, in parallel.
    ///
    /// # Panics
    /// As [`Self::residuals_and_jacobian`].
    pub fn jacobian_values(&mut self, model: &Model, x: &[f64], out: &mut [f64]) {
        let mut scratch = std::mem::take(&mut self.scratch);
        self.residuals_and_jacobian(model, x, &mut scratch, out);
        self.scratch = scratch;
    }

    /// [`Self::residuals`] and [`Self::jacobian_values`] in one parallel pass (the derivative
    /// algorithm yields `τ` as well).
    ///
    /// # Panics
    /// If `model` has another size than the one this was built for, `x` is shorter than
    /// `layout().end()`, `residuals` does not have [`Self::num_rows`] entries or `values` does
    /// not have [`Self::nnz`] entries.
    pub fn residuals_and_jacobian(
        &mut self,
        model: &Model,
        x: &[f64],
        residuals: &mut [f64],
        values: &mut [f64],
    ) {
        let Self { plan, buffers, .. } = self;
        plan.check(model, x, residuals, Some(values.len()));
        let l = plan.layout;
        let (id, defects) = residuals.split_at_mut(l.points() * l.n());
        let (id_values, defect_values) = values.split_at_mut(l.points() * plan.point_nnz());
        rayon::join(
            || {
                buffers
                    .par_iter_mut()
                    .zip(id.par_chunks_mut(l.n()))
                    .zip(id_values.par_chunks_mut(plan.point_nnz()))
                    .enumerate()
                    .for_each(|(p, ((buf, r), jac))| {
                        let (q, v, a) = plan.state(x, p);
                        inverse_dynamics_derivatives(model, &mut buf.ws, q, v, a, &mut buf.der);
                        r.copy_from_slice(&buf.der.tau);
                        plan.subtract_applied_forces(model, x, p, r);
                        plan.point_jacobian(&buf.der, jac);
                    });
            },
            || {
                rayon::join(
                    || plan.defect_residuals(x, defects),
                    || {
                        defect_values
                            .par_chunks_mut(plan.defect.len())
                            .for_each(|chunk| {
                                for (v, e) in chunk.iter_mut().zip(&plan.defect) {
                                    *v = e.value;
                                }
                            });
                    },
                );
            },
        );
    }

    /// Interpolates the block `var` of the solution `x` at time `t` (clamped to `[0, T]`) into
    /// `out`. On interval `k` with `s = (t − k h)/h ∈ [0, 1]` and the quadratic Lagrange basis
    /// `ℓ_0(s) = (1 − s)(1 − 2s)`, `ℓ_½(s) = 4s(1 − s)`, `ℓ_1(s) = s(2s − 1)` on the knot,
    /// midpoint and next knot:
    ///
    /// - `A`, `U`: the quadratic `Σ ℓ_c(s) y_c` through the three points;
    /// - `V`: the cubic `v_k + h Σ L_c(s) a_c`, `L_c(s) = ∫_0^s ℓ_c`, whose derivative is the
    ///   quadratic acceleration;
    /// - `Q`: the cubic `q_k + h Σ L_c(s) v_c`, whose derivative is the quadratic through the
    ///   three velocities.
    ///
    /// This is the Hermite–Simpson interpolant of the state `(q, v)` (Kelly, SIAM Review 59(4),
    /// 2017, §4): where the defects vanish, `q` and `v` pass through all three points, are
    /// continuous across knots, and `q` equals the cubic Hermite interpolant of
    /// `(q_k, v_k, q_{k+1}, v_{k+1})`. In between points `dq/dt` and `v` agree to `O(h³)` only,
    /// as in the transcription itself.
    ///
    /// # Panics
    /// If `x` is shorter than `layout().end()` or `out` has the wrong length.
    pub fn interpolate(&self, x: &[f64], var: Var, t: f64, out: &mut [f64]) {
        interpolate(&self.plan.layout, self.plan.h, x, var, t, out);
    }
}

/// [`HermiteSimpson::interpolate`] for a layout with intervals of length `h`, without the
/// evaluation buffers (for solutions kept after the solve).
///
/// # Panics
/// If `x` is shorter than `layout.end()` or `out` has the wrong length.
pub fn interpolate(l: &HermiteSimpsonLayout, h: f64, x: &[f64], var: Var, t: f64, out: &mut [f64]) {
    assert!(x.len() >= l.end(), "decision vector too short");
    assert_eq!(out.len(), l.block_len(var), "output has the wrong length");
    let last = l.intervals() - 1;
    let t = t.clamp(0.0, h * l.intervals() as f64);
    // `as` saturates: a NaN time lands on interval 0 and propagates NaN.
    let k = ((t / h).floor() as usize).min(last);
    let s = t / h - k as f64;
    let points = [l.knot(k), l.midpoint(k), l.knot(k + 1)];
    let quadratic = [
        (1.0 - s) * (1.0 - 2.0 * s),
        4.0 * s * (1.0 - s),
        s * (2.0 * s - 1.0),
    ];
    let (s2, s3) = (s * s, s * s * s);
    let integral = [
        2.0 * s3 / 3.0 - 1.5 * s2 + s,
        2.0 * s2 - 4.0 * s3 / 3.0,
        2.0 * s3 / 3.0 - 0.5 * s2,
    ];
    let (base, rate, weights, scale) = match var {
        Var::Q => (Some(Var::Q), Var::V, integral, h),
        Var::V => (Some(Var::V), Var::A, integral, h),
        Var::A => (None, Var::A, quadratic, 1.0),
        Var::U => (None, Var::U, quadratic, 1.0),
    };
    for (j, o) in out.iter_mut().enumerate() {
        let start = base.map_or(0.0, |b| x[l.index(points[0], b, j)]);
        let sum: f64 = points
            .iter()
            .zip(&weights)
            .map(|(&p, w)| w * x[l.index(p, rate, j)])
            .sum();
        *o = start + scale * sum;
    }
}

impl Plan {
    fn num_rows(&self) -> usize {
        let l = &self.layout;
        (l.points() + 4 * l.intervals()) * l.n()
    }

    fn point_nnz(&self) -> usize {
        3 * self.pairs.len() + self.drives.len()
    }

    fn nnz(&self) -> usize {
        let l = &self.layout;
        l.points() * self.point_nnz() + l.intervals() * self.defect.len()
    }

    #[track_caller]
    fn check(&self, model: &Model, x: &[f64], residuals: &[f64], values: Option<usize>) {
        let l = &self.layout;
        assert!(
            model.dof() == l.n() && model.joints().iter().filter(|j| j.actuated).count() == l.n_u(),
            "collocation built for another model"
        );
        assert!(x.len() >= l.end(), "decision vector too short");
        assert_eq!(residuals.len(), self.num_rows(), "residual buffer length");
        if let Some(len) = values {
            assert_eq!(len, self.nnz(), "Jacobian value buffer length");
        }
    }

    fn state<'a>(&self, x: &'a [f64], p: usize) -> (&'a [f64], &'a [f64], &'a [f64]) {
        let l = &self.layout;
        (
            l.slice(x, p, Var::Q),
            l.slice(x, p, Var::V),
            l.slice(x, p, Var::A),
        )
    }

    /// `r ← r − B u_p − τ_passive(q_p, v_p)`, turning `τ = RNEA(q_p, v_p, a_p)` into the
    /// inverse-dynamics residual of point `p`.
    fn subtract_applied_forces(&self, model: &Model, x: &[f64], p: usize, r: &mut [f64]) {
        let l = &self.layout;
        let (q, v) = (l.slice(x, p, Var::Q), l.slice(x, p, Var::V));
        for (i, ri) in r.iter_mut().enumerate() {
            *ri -= model.passive_force(i, q[i], v[i]);
        }
        let u = l.slice(x, p, Var::U);
        for d in &self.drives {
            r[d.joint] -= d.factor * u[d.column];
        }
    }

    /// The Jacobian values of one point's inverse-dynamics rows, in structure order.
    fn point_jacobian(&self, der: &InverseDynamicsDerivatives, out: &mut [f64]) {
        let np = self.pairs.len();
        let (dq, rest) = out.split_at_mut(np);
        let (dv, rest) = rest.split_at_mut(np);
        let (da, du) = rest.split_at_mut(np);
        for (e, &(i, j)) in self.pairs.iter().enumerate() {
            let (k, d) = if i == j {
                (self.stiffness[i], self.damping[i])
            } else {
                (0.0, 0.0)
            };
            dq[e] = der.dtau_dq[(i, j)] + k;
            dv[e] = der.dtau_dv[(i, j)] + d;
            da[e] = der.dtau_da[(i, j)];
        }
        for (e, d) in du.iter_mut().zip(&self.drives) {
            *e = -d.factor;
        }
    }

    /// The defect rows of every interval, in parallel over intervals.
    fn defect_residuals(&self, x: &[f64], out: &mut [f64]) {
        let l = &self.layout;
        out.par_chunks_mut(4 * l.n())
            .enumerate()
            .for_each(|(k, r)| {
                let base = l.start(l.knot(k), Var::Q);
                for (ri, row) in r.iter_mut().zip(self.defect.chunks_exact(5)) {
                    *ri = row.iter().map(|e| e.value * x[base + e.col]).sum();
                }
            });
    }
}

/// The defect entries of interval 0 (knot 0, midpoint 1, knot 2), 5 per row, rows in order:
/// interpolation of `q`, of `v`, integration of `q`, of `v`.
fn defect_entries(layout: &HermiteSimpsonLayout, h: f64) -> Vec<DefectEntry> {
    let n = layout.n();
    // (point of the interval: 0 knot k, 1 midpoint, 2 knot k+1; derivative?; coefficient)
    let interpolation = [
        (1, false, 1.0),
        (0, false, -0.5),
        (2, false, -0.5),
        (0, true, -h / 8.0),
        (2, true, h / 8.0),
    ];
    let integration = [
        (2, false, 1.0),
        (0, false, -1.0),
        (0, true, -h / 6.0),
        (1, true, -2.0 * h / 3.0),
        (2, true, -h / 6.0),
    ];
    let blocks = [
        (&interpolation, Var::Q, Var::V),
        (&interpolation, Var::V, Var::A),
        (&integration, Var::Q, Var::V),
        (&integration, Var::V, Var::A),
    ];
    let origin = layout.start(0, Var::Q);
    let mut out = Vec::with_capacity(20 * n);
    for (b, (terms, y, y_dot)) in blocks.into_iter().enumerate() {
        for j in 0..n {
            for &(point, derivative, value) in terms {
                let var = if derivative { y_dot } else { y };
                out.push(DefectEntry {
                    row: b * n + j,
                    col: layout.index(point, var, j) - origin,
                    value,
                });
            }
        }
    }
    out
}

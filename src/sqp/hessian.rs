//! The exact Hessian model: the Lagrangian Hessian assembled into a fixed upper-triangle CSC
//! pattern and convexified so that the QP is convex (both backends require a positive
//! semidefinite `P`) without spoiling the Newton step.
//!
//! At a minimizer only the *reduced* Hessian, on the null space of the active constraint
//! gradients, has to be positive definite; `∇²L` itself is often indefinite there (HS 71, and
//! every trajectory problem: the dynamics rows carry curvature in `q` that the objective does
//! not balance). Shifting the whole matrix by `δI` until it is positive definite would never
//! vanish near such a solution, cutting SQP down to linear convergence, and far from it the
//! shift can dwarf the objective's own curvature: the QP then returns multipliers scaled by
//! `δ`, the next `∇²L` grows with them and so does the next shift (observed on the pendulum
//! swing-ups: `δ = 10² → 10⁴ → 10⁶` within three iterations). The model is therefore built
//! around the predicted active set `A`:
//!
//! - **Active set.** Equality rows, fixed variables, and inequality rows and bounds whose
//!   multiplier exceeds `κ max(1, ‖λ‖∞, ‖z‖∞)` (`κ` from the QP backend,
//!   [`QpSolver::active_multiplier`]: 10⁻⁹ for Clarabel, 10⁻⁶ for OSQP) and whose value is
//!   within `10⁻²` (relative) of the bound the multiplier points at, which is their target
//!   `tᵢ`. Rows with more than [`AUGMENTED_ROW_LIMIT`] Jacobian entries are left out so that
//!   the pattern, which holds `∇cᵢ∇cᵢᵀ` for every other row, stays sparse.
//! - **Shift (inertia correction).** With unit normals `nᵢ = ∇cᵢ / ‖∇cᵢ‖` (`e_j` for a bound)
//!   and `N = Σ_{i∈A} nᵢnᵢᵀ`, the KKT matrix `[H + δI, N_Aᵀ; N_A, -εI]` has the wanted inertia
//!   (`n` positive, `|A|` negative eigenvalues) exactly when its Schur complement
//!   `H + δI + N/ε` is positive definite. With `ε = 1/ρ_max` this is the test IPOPT applies to
//!   its KKT matrix, done on a positive-definite-or-rejected matrix, so that QDLDL's
//!   factorization without pivoting stays safe even where `H` has zero diagonal entries (the
//!   configurations, whose only curvature comes from the dynamics). `δ` follows IPOPT's
//!   schedule (see `inertia.rs`) and is zero whenever the reduced Hessian is positive definite.
//! - **Augmentation.** The QP gets `P = H + δI + ρN` with the smallest `ρ` on the grid
//!   `s·10^k`, `k = -2..=8`, `s = max(1, max_i |H_ii|)` (starting one step below the last one)
//!   that keeps `P` positive definite; `ρ_max = s·10⁸` always does. The augmentation enters the
//!   QP objective as the *shifted* penalty `ρ/2 Σ_{i∈A} wᵢ (rᵢ + ∇cᵢᵀd − tᵢ)²`
//!   (`wᵢ = 1/‖∇cᵢ‖²`, `r` the constant part of the linearization; `ρ/2 (x_j + d_j − t_j)²` for
//!   a bound), i.e. `P` above and the linear term `∇f + ρ Σ wᵢ (rᵢ − tᵢ) ∇cᵢ`. On the face
//!   where the constraints of `A` hold at their targets the penalty and its gradient vanish,
//!   so the QP's step *and multipliers* are those of the unconvexified QP once the active set
//!   is identified (superlinear convergence survives an indefinite `∇²L`). Where the QP
//!   relaxes rows (the elastic subproblem) the penalty is a quadratic penalty on the
//!   linearized violation, pulling the same way as the elastic `ℓ1` term, instead of a pull
//!   towards `∇cᵢᵀd = 0` that an unshifted `ρ dᵀNd` would add.
//!
//! Without active constraints (or when `H` is already positive definite) the model is
//! `H + δI` with the shift alone.
//!
//! The solver assembles this model from `∇²L`, and when that needs a shift above `10⁻³` it
//! assembles it again from `∇²f` alone (`Sqp::prepare_hessian`): a convex model whose steps
//! are not crushed by a shift of 10²–10⁷, and that gives way to `∇²L` near a solution. The QP
//! multipliers carry `ρ` times the QP's residual on the face; they are turned into the model's
//! own by [`ExactHessian::unaugment_multipliers`].

use super::inertia::InertiaCorrection;
#[cfg(doc)]
use super::qp::QpSolver;
use super::sparse::CscAssembly;

/// Rows with more Jacobian entries than this are not augmented (their outer product would
/// fill the Hessian pattern). A row left out leaves the directions it constrains in the
/// inertia test, which then asks for a shift to convexify them: with the former limit of 64
/// the 74-entry dynamics rows of the 12-link pendulum (two stages of 3 control points × 12
/// joints, and a torque) were left out and the shift reached 10⁴–10⁶.
pub const AUGMENTED_ROW_LIMIT: usize = 512;

/// Number of points of the `ρ` grid; the last one is `ρ_max`.
const RHO_STEPS: i32 = 11;

/// An inequality is predicted active only within this relative distance of its bound: the
/// augmentation pulls the constraint to its target, which far from it (after an elastic step,
/// whose multipliers are the elastic penalty) only distorts the step.
const NEAR_TARGET: f64 = 1e-2;

/// What the convexification used.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Convexification {
    /// The shift `δ`.
    pub(crate) shift: f64,
    /// The augmentation weight `ρ`.
    pub(crate) augmentation: f64,
}

/// The current point's bounds and multipliers, from which the active set is predicted.
pub(crate) struct ActiveSet<'a> {
    pub(crate) c: &'a [f64],
    pub(crate) c_lower: &'a [f64],
    pub(crate) c_upper: &'a [f64],
    pub(crate) lambda: &'a [f64],
    pub(crate) x: &'a [f64],
    pub(crate) x_lower: &'a [f64],
    pub(crate) x_upper: &'a [f64],
    pub(crate) z: &'a [f64],
    /// A multiplier counts as nonzero (its constraint as active) above this fraction of the
    /// largest multiplier (at least 1); see [`QpSolver::active_multiplier`].
    pub(crate) active_multiplier: f64,
}

/// The exact-Hessian model: assembly of the problem's triplets, the diagonal and the
/// augmentation outer products, and the active set with its targets.
pub(crate) struct ExactHessian {
    pub(crate) assembly: CscAssembly,
    triplet_values: Vec<f64>,
    num_problem_triplets: usize,
    n: usize,
    /// Augmentation triplets after the diagonal: `(row, Jacobian triplet a, triplet b)`.
    pairs: Vec<(usize, usize, usize)>,
    jacobian: Vec<(usize, usize)>,
    /// Whether a row is short enough to be augmented.
    augmentable: Vec<bool>,
    /// `wᵢ = 1/‖∇cᵢ‖²` for the rows of `A`, 0 for the others.
    row_weight: Vec<f64>,
    row_target: Vec<f64>,
    /// 1 for the bounds of `A`, 0 for the others.
    bound_weight: Vec<f64>,
    bound_target: Vec<f64>,
    base: Vec<f64>,
    augmentation: Vec<f64>,
    trial: Vec<f64>,
    rho: f64,
    last_rho_step: Option<i32>,
    correction: InertiaCorrection,
}

impl ExactHessian {
    /// The pattern for an `n × n` Hessian with lower-triangle triplets `structure`, the
    /// diagonal, and the outer products of the rows of an `m`-row Jacobian with triplets
    /// `jacobian` (rows up to [`AUGMENTED_ROW_LIMIT`] entries).
    pub(crate) fn new(
        n: usize,
        structure: &[(usize, usize)],
        m: usize,
        jacobian: &[(usize, usize)],
    ) -> Self {
        let mut upper: Vec<(usize, usize)> = structure.iter().map(|&(r, c)| (c, r)).collect();
        upper.extend((0..n).map(|i| (i, i)));
        let mut by_row: Vec<Vec<usize>> = vec![Vec::new(); m];
        for (t, &(row, _)) in jacobian.iter().enumerate() {
            by_row[row].push(t);
        }
        let mut pairs = Vec::new();
        let augmentable = by_row
            .iter()
            .map(|triplets| triplets.len() <= AUGMENTED_ROW_LIMIT)
            .collect();
        for (row, triplets) in by_row.iter().enumerate() {
            if triplets.len() > AUGMENTED_ROW_LIMIT {
                continue;
            }
            for &a in triplets {
                for &b in triplets {
                    let (ca, cb) = (jacobian[a].1, jacobian[b].1);
                    if ca <= cb {
                        pairs.push((row, a, b));
                        upper.push((ca, cb));
                    }
                }
            }
        }
        let assembly = CscAssembly::new(n, n, &upper);
        let correction = InertiaCorrection::new(&assembly);
        let nnz = assembly.matrix.nnz();
        Self {
            triplet_values: vec![0.0; upper.len()],
            num_problem_triplets: structure.len(),
            n,
            pairs,
            jacobian: jacobian.to_vec(),
            augmentable,
            row_weight: vec![0.0; m],
            row_target: vec![0.0; m],
            bound_weight: vec![0.0; n],
            bound_target: vec![0.0; n],
            base: vec![0.0; nnz],
            augmentation: vec![0.0; nnz],
            trial: vec![0.0; nnz],
            rho: 0.0,
            last_rho_step: None,
            assembly,
            correction,
        }
    }

    /// Numeric factorizations of the inertia tests so far.
    pub(crate) fn factorizations(&self) -> usize {
        self.correction.factorizations
    }

    /// The problem's part of the triplet values, to be written from the Hessian callback.
    pub(crate) fn problem_values(&mut self) -> &mut [f64] {
        &mut self.triplet_values[..self.num_problem_triplets]
    }

    /// Assembles `∇²L` from the problem values, then convexifies it (see the module
    /// documentation) using the Jacobian values `jacobian` and the predicted active set; the
    /// shift is at least `floor`. Returns `None` if no shift helps (non-finite entries).
    pub(crate) fn assemble(
        &mut self,
        jacobian: &[f64],
        active: &ActiveSet<'_>,
        floor: f64,
    ) -> Option<Convexification> {
        let k = self.num_problem_triplets;
        self.triplet_values[k..].fill(0.0);
        self.assembly.fill(&self.triplet_values);
        self.base.copy_from_slice(self.assembly.matrix.values());
        self.rho = 0.0;
        if floor == 0.0 && self.correction.positive_definite(&self.base, 0.0) {
            self.last_rho_step = None;
            return Some(Convexification::default());
        }
        if !self.build_augmentation(jacobian, active) {
            self.last_rho_step = None;
            let shift = self.correction.shift(&self.base, floor)?;
            self.store(0.0, shift);
            return Some(Convexification {
                shift,
                augmentation: 0.0,
            });
        }
        let scale = self
            .correction
            .diagonal
            .iter()
            .map(|&k| self.base[k].abs())
            .fold(1.0, f64::max);
        let rho_at = |step: i32| scale * 10f64.powi(step - 2);
        self.set_trial(rho_at(RHO_STEPS - 1));
        let shift = self.correction.shift(&self.trial, floor)?;
        let first = self.last_rho_step.map_or(0, |s| (s - 1).max(0));
        let mut chosen = RHO_STEPS - 1;
        for step in first..RHO_STEPS - 1 {
            self.set_trial(rho_at(step));
            if self.correction.positive_definite(&self.trial, shift) {
                chosen = step;
                break;
            }
        }
        self.last_rho_step = Some(chosen);
        self.rho = rho_at(chosen);
        self.store(self.rho, shift);
        Some(Convexification {
            shift,
            augmentation: self.rho,
        })
    }

    /// `trial = base + ρN`.
    fn set_trial(&mut self, rho: f64) {
        for ((t, b), a) in self
            .trial
            .iter_mut()
            .zip(&self.base)
            .zip(&self.augmentation)
        {
            *t = b + rho * a;
        }
    }

    /// Writes `base + δI + ρN` into the assembled matrix.
    fn store(&mut self, rho: f64, shift: f64) {
        self.set_trial(rho);
        for &k in &self.correction.diagonal {
            self.trial[k] += shift;
        }
        self.assembly
            .matrix
            .values_mut()
            .copy_from_slice(&self.trial);
    }

    /// Adds the gradient at `d = 0` of the augmentation penalty,
    /// `ρ Σ_{i∈A} wᵢ (rᵢ − tᵢ) ∇cᵢ + ρ Σ_{j∈A} (x_j − t_j) e_j`, to `out`, for the constant
    /// part `r` of the linearization and Jacobian values `jacobian` at `x`.
    pub(crate) fn add_penalty_gradient(
        &self,
        jacobian: &[f64],
        r: &[f64],
        x: &[f64],
        out: &mut [f64],
    ) {
        if self.rho == 0.0 {
            return;
        }
        for (&(row, col), &v) in self.jacobian.iter().zip(jacobian) {
            let w = self.row_weight[row];
            if w > 0.0 {
                out[col] += self.rho * w * (r[row] - self.row_target[row]) * v;
            }
        }
        for (j, o) in out.iter_mut().enumerate() {
            if self.bound_weight[j] > 0.0 {
                *o += self.rho * (x[j] - self.bound_target[j]);
            }
        }
    }

    /// Turns the multipliers `y` of a QP posed with this model's augmentation (rows, then the
    /// variables of `bounded`) into multipliers of the Lagrangian model, for the QP step `d`
    /// with `jd = J d` and the constant part `r` of the linearization at `x`. The QP's
    /// stationarity `(H + ρN) d + ∇f + ρ Σ wᵢ (rᵢ − tᵢ) ∇cᵢ + Jᵀy = 0` is
    /// `H d + ∇f + Jᵀy' = 0` with `y'ᵢ = yᵢ + ρ wᵢ (rᵢ + ∇cᵢᵀd − tᵢ)` (and
    /// `ρ (x_j + d_j − t_j)` for a bound): exact whatever the QP's accuracy on the face, where
    /// the backend's `y` alone carries `ρ` times its primal residual (`ρ` reaches 10¹⁰ on the
    /// 12-link pendulum, and the dual infeasibility stalled at 0.4).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn unaugment_multipliers(
        &self,
        jd: &[f64],
        r: &[f64],
        x: &[f64],
        d: &[f64],
        bounded: &[usize],
        y: &mut [f64],
    ) {
        if self.rho == 0.0 {
            return;
        }
        let m = jd.len();
        for (i, yi) in y[..m].iter_mut().enumerate() {
            let w = self.row_weight[i];
            if w > 0.0 {
                *yi += self.rho * w * (r[i] + jd[i] - self.row_target[i]);
            }
        }
        for (k, &j) in bounded.iter().enumerate() {
            if self.bound_weight[j] > 0.0 {
                y[m + k] += self.rho * (x[j] + d[j] - self.bound_target[j]);
            }
        }
    }

    /// `ρ dᵀNd` for a step `d` with constraint-row products `jd = J d`: the part of `dᵀPd`
    /// that the augmentation contributes.
    pub(crate) fn augmentation_form(&self, d: &[f64], jd: &[f64]) -> f64 {
        if self.rho == 0.0 {
            return 0.0;
        }
        let rows: f64 = self.row_weight.iter().zip(jd).map(|(w, v)| w * v * v).sum();
        let bounds: f64 = self
            .bound_weight
            .iter()
            .zip(d)
            .map(|(w, v)| w * v * v)
            .sum();
        self.rho * (rows + bounds)
    }

    /// Predicts the active set with its targets and assembles `N = Σ_{i∈A} nᵢnᵢᵀ` into
    /// `augmentation`; false when `A` is empty.
    fn build_augmentation(&mut self, jacobian: &[f64], active: &ActiveSet<'_>) -> bool {
        self.row_weight.fill(0.0);
        for (&(row, _), &v) in self.jacobian.iter().zip(jacobian) {
            self.row_weight[row] += v * v;
        }
        // Interior-point QP solvers return tiny nonzero multipliers for inactive constraints.
        let threshold = active.active_multiplier
            * active
                .lambda
                .iter()
                .chain(active.z)
                .fold(1.0, |a: f64, v| a.max(v.abs()));
        let mut any = false;
        for (i, w) in self.row_weight.iter_mut().enumerate() {
            let target = target(
                active.c[i],
                active.c_lower[i],
                active.c_upper[i],
                active.lambda[i],
                threshold,
            );
            *w = match target {
                Some(t) if *w > 0.0 && self.augmentable[i] => {
                    any = true;
                    self.row_target[i] = t;
                    1.0 / *w
                }
                _ => 0.0,
            };
        }
        let k = self.num_problem_triplets;
        self.triplet_values[..k].fill(0.0);
        for j in 0..self.n {
            let target = target(
                active.x[j],
                active.x_lower[j],
                active.x_upper[j],
                active.z[j],
                threshold,
            );
            self.bound_weight[j] = match target {
                Some(t) => {
                    any = true;
                    self.bound_target[j] = t;
                    1.0
                }
                None => 0.0,
            };
            self.triplet_values[k + j] = self.bound_weight[j];
        }
        for (p, &(row, a, b)) in self.pairs.iter().enumerate() {
            self.triplet_values[k + self.n + p] = self.row_weight[row] * jacobian[a] * jacobian[b];
        }
        self.assembly.fill(&self.triplet_values);
        self.augmentation
            .copy_from_slice(self.assembly.matrix.values());
        any
    }
}

/// The value a constraint with value `value`, bounds `[lower, upper]` and multiplier
/// `multiplier` is predicted to be held at: the fixed value of an equality, or the finite
/// bound a multiplier above `threshold` points at if `value` is within
/// [`NEAR_TARGET`]` (1 + |bound|)` of it; `None` (predicted inactive) otherwise.
fn target(value: f64, lower: f64, upper: f64, multiplier: f64, threshold: f64) -> Option<f64> {
    let near = |bound: f64| (value - bound).abs() <= NEAR_TARGET * (1.0 + bound.abs());
    if lower == upper {
        Some(lower)
    } else if multiplier > threshold && upper.is_finite() && near(upper) {
        Some(upper)
    } else if multiplier < -threshold && lower.is_finite() && near(lower) {
        Some(lower)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_constraints() -> ActiveSet<'static> {
        ActiveSet {
            c: &[],
            x: &[0.0; 2],
            c_lower: &[],
            c_upper: &[],
            lambda: &[],
            x_lower: &[f64::NEG_INFINITY; 2],
            x_upper: &[f64::INFINITY; 2],
            z: &[0.0, 0.0],
            active_multiplier: 1e-9,
        }
    }

    #[test]
    fn indefinite_matrix_without_constraints_is_shifted() {
        // [[1, 2], [2, 1]] has eigenvalues 3 and -1.
        let mut h = ExactHessian::new(2, &[(0, 0), (1, 0), (1, 1)], 0, &[]);
        h.problem_values().copy_from_slice(&[1.0, 2.0, 1.0]);
        let c = h.assemble(&[], &no_constraints(), 0.0).unwrap();
        assert!(c.shift > 1.0 && c.shift < 1.0 * 8.0 * 100.0, "{c:?}");
        assert_eq!(c.augmentation, 0.0);
        let mut pd = ExactHessian::new(2, &[(0, 0), (1, 1)], 0, &[]);
        pd.problem_values().copy_from_slice(&[1.0, 3.0]);
        assert_eq!(
            pd.assemble(&[], &no_constraints(), 0.0),
            Some(Convexification::default())
        );
    }

    #[test]
    fn positive_reduced_hessian_is_augmented_not_shifted() {
        // H = diag(1, -1) is positive definite on the null space of the row 2 x1 = 0.
        let mut h = ExactHessian::new(2, &[(0, 0), (1, 1)], 1, &[(0, 1)]);
        h.problem_values().copy_from_slice(&[1.0, -1.0]);
        let active = ActiveSet {
            c: &[0.0],
            c_lower: &[0.0],
            c_upper: &[0.0],
            lambda: &[0.0],
            ..no_constraints()
        };
        let c = h.assemble(&[2.0], &active, 0.0).unwrap();
        assert_eq!(c.shift, 0.0);
        assert!(c.augmentation > 1.0, "{c:?}");
        let values = h.assembly.matrix.values();
        assert_eq!(values[0], 1.0);
        assert!(values[1] > 0.0);
        // The penalty ρ/2 w (r + 2 d1 - 0)² has gradient ρ w r ∇c = ρ r / 2 in d1 at d = 0.
        let mut g = [0.0; 2];
        h.add_penalty_gradient(&[2.0], &[0.5], &[0.0, 0.0], &mut g);
        assert_eq!(g, [0.0, c.augmentation * 0.25]);
        assert_eq!(h.augmentation_form(&[0.0, 1.0], &[2.0]), c.augmentation);
    }

    #[test]
    fn negative_reduced_hessian_is_shifted_with_the_augmentation_kept() {
        // H = diag(-1, -1): on the null space of x1 = const the curvature is -1.
        let mut h = ExactHessian::new(2, &[(0, 0), (1, 1)], 1, &[(0, 1)]);
        h.problem_values().copy_from_slice(&[-1.0, -1.0]);
        let active = ActiveSet {
            c: &[0.0],
            c_lower: &[0.0],
            c_upper: &[0.0],
            lambda: &[0.0],
            ..no_constraints()
        };
        let c = h.assemble(&[1.0], &active, 0.0).unwrap();
        assert!(c.shift > 1.0 && c.shift <= 100.0, "{c:?}");
        assert!(c.augmentation > 0.0, "{c:?}");
    }

    #[test]
    fn targets_follow_the_multiplier_sign() {
        assert_eq!(target(0.5, 1.0, 1.0, 0.0, 1e-6), Some(1.0));
        assert_eq!(target(2.0, 0.0, 2.0, 1.0, 1e-6), Some(2.0));
        assert_eq!(target(0.0, 0.0, 2.0, -1.0, 1e-6), Some(0.0));
        assert_eq!(target(1.0, 0.0, 2.0, -1.0, 1e-6), None);
        assert_eq!(target(0.0, 0.0, 2.0, 1e-9, 1e-6), None);
        assert_eq!(target(2.0, f64::NEG_INFINITY, 2.0, -1.0, 1e-6), None);
    }
}

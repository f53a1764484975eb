//! The exact Hessian model: the Lagrangian Hessian assembled into a fixed upper-triangle CSC
//! pattern, made positive definite so that the QP is convex (both backends require it)
//! without spoiling the Newton step near a solution.
//!
//! Both QP backends need a positive semidefinite `P`, but at a minimizer only the *reduced*
//! Hessian (on the null space of the active constraint gradients) has to be positive
//! definite; `∇²L` itself is often indefinite there (HS 71 is an example). Shifting by `δI`
//! would then never vanish and would cut SQP down to linear convergence. The model is
//! therefore convexified in two stages:
//!
//! 1. **Augmentation.** With the predicted active set `A` (equality rows, and inequality rows
//!    and bounds whose multiplier exceeds `10⁻⁶ max(1, ‖λ‖∞, ‖z‖∞)`) the model is
//!    `H + ρ Σ_{i∈A} n_i n_iᵀ` with unit normals `n_i = ∇c_i / ‖∇c_i‖` (or `e_j` for a bound).
//!    On the face `J_A d = const` of the QP the added term is constant, so the QP solution
//!    is unchanged once the active set is identified; by Finsler's lemma some finite `ρ` makes
//!    the matrix positive definite exactly when the reduced Hessian is. `ρ` is tried on the
//!    grid `s·10^k`, `k = -2..=6`, `s = max(1, max_i |H_ii|)`, starting one step below the last
//!    successful value. Rows whose gradient has more than [`AUGMENTED_ROW_LIMIT`] entries are
//!    left out, so that the pattern (which holds `∇c_i ∇c_iᵀ` for every other row) stays
//!    sparse.
//! 2. **Shift.** If no `ρ` works (the reduced Hessian is not positive definite, or after a
//!    failed step), `δI` is added to `H` following IPOPT's inertia-correction schedule: start
//!    from `δ₀ = 1e-4` (or a third of the last nonzero shift, or the requested floor) and
//!    multiply by 100 (first time) or 8.
//!
//! Positive definiteness is tested with a sparse `LDLᵀ` factorization (Clarabel's QDLDL with
//! AMD ordering and no internal regularization): the matrix is positive definite exactly when
//! all `n` pivots are positive.

use clarabel::algebra::CscMatrix as ClarabelCsc;
use clarabel::qdldl::{QDLDLFactorisation, QDLDLSettings};

use super::sparse::CscAssembly;

const DELTA_FIRST: f64 = 1e-4;
const DELTA_MIN: f64 = 1e-20;
const DELTA_MAX: f64 = 1e40;
const DECREASE: f64 = 1.0 / 3.0;
const INCREASE: f64 = 8.0;
const FIRST_INCREASE: f64 = 100.0;

/// Shifts a symmetric matrix (upper-triangle CSC, full diagonal) until it is positive
/// definite.
pub(crate) struct InertiaCorrection {
    factor: Option<QDLDLFactorisation<f64>>,
    pattern: ClarabelCsc<f64>,
    indices: Vec<usize>,
    pub(crate) diagonal: Vec<usize>,
    shifted: Vec<f64>,
    last_delta: f64,
}

impl InertiaCorrection {
    /// Prepares the correction for the pattern of `assembly` (which must contain the diagonal).
    pub(crate) fn new(assembly: &CscAssembly) -> Self {
        let a = &assembly.matrix;
        let diagonal = (0..a.ncols())
            .map(|j| {
                let (start, end) = (a.col_offsets()[j], a.col_offsets()[j + 1]);
                start + a.row_indices()[start..end].partition_point(|&r| r < j)
            })
            .collect();
        let pattern = ClarabelCsc::new(
            a.nrows(),
            a.ncols(),
            a.col_offsets().to_vec(),
            a.row_indices().to_vec(),
            vec![1.0; a.nnz()],
        );
        Self {
            factor: None,
            indices: (0..a.nnz()).collect(),
            diagonal,
            shifted: vec![0.0; a.nnz()],
            pattern,
            last_delta: 0.0,
        }
    }

    /// Whether `values + δI` is positive definite.
    pub(crate) fn positive_definite(&mut self, values: &[f64], delta: f64) -> bool {
        self.shifted.copy_from_slice(values);
        for &k in &self.diagonal {
            self.shifted[k] += delta;
        }
        let n = self.diagonal.len();
        let factor = match self.factor.as_mut() {
            Some(f) => {
                f.update_values(&self.indices, &self.shifted);
                if f.refactor().is_err() {
                    return false;
                }
                f
            }
            None => {
                self.pattern.nzval.copy_from_slice(&self.shifted);
                let settings = QDLDLSettings {
                    regularize_enable: false,
                    ..QDLDLSettings::default()
                };
                match QDLDLFactorisation::new(&self.pattern, Some(settings)) {
                    Ok(f) => self.factor.insert(f),
                    Err(_) => return false,
                }
            }
        };
        factor.positive_inertia() == n && factor.D.iter().all(|d| d.is_finite())
    }

    /// Adds the smallest shift of the schedule, and at least `floor`, that makes `values`
    /// positive definite and returns it, or `None` if even `δ_max` fails (non-finite
    /// entries).
    pub(crate) fn apply(&mut self, values: &mut [f64], floor: f64) -> Option<f64> {
        let delta = if floor == 0.0 && self.positive_definite(values, 0.0) {
            0.0
        } else {
            let mut delta = if self.last_delta == 0.0 {
                DELTA_FIRST
            } else {
                (DECREASE * self.last_delta).max(DELTA_MIN)
            }
            .max(floor);
            let growth = if self.last_delta == 0.0 {
                FIRST_INCREASE
            } else {
                INCREASE
            };
            while !self.positive_definite(values, delta) {
                delta *= growth;
                if delta > DELTA_MAX {
                    return None;
                }
            }
            delta
        };
        self.last_delta = delta;
        for &k in &self.diagonal {
            values[k] += delta;
        }
        Some(delta)
    }
}

/// Rows with more Jacobian entries than this are not augmented (their outer product would
/// fill the Hessian pattern).
pub const AUGMENTED_ROW_LIMIT: usize = 64;

const RHO_STEPS: i32 = 9;

/// A multiplier counts as nonzero (its constraint as active) above this fraction of the
/// largest multiplier (at least 1).
const ACTIVE_MULTIPLIER: f64 = 1e-6;

/// What the convexification used.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Convexification {
    /// The shift `δ`.
    pub(crate) shift: f64,
    /// The augmentation weight `ρ`.
    pub(crate) augmentation: f64,
}

/// The predicted active set, from the current multipliers.
pub(crate) struct ActiveSet<'a> {
    pub(crate) c_lower: &'a [f64],
    pub(crate) c_upper: &'a [f64],
    pub(crate) lambda: &'a [f64],
    pub(crate) z: &'a [f64],
}

/// The exact-Hessian model: assembly of the problem's triplets, the diagonal and the
/// augmentation outer products.
pub(crate) struct ExactHessian {
    pub(crate) assembly: CscAssembly,
    triplet_values: Vec<f64>,
    num_problem_triplets: usize,
    n: usize,
    /// Augmentation triplets after the diagonal: `(row, Jacobian triplet a, triplet b)`.
    pairs: Vec<(usize, usize, usize)>,
    jacobian_rows: Vec<usize>,
    row_weight: Vec<f64>,
    base: Vec<f64>,
    augmentation: Vec<f64>,
    trial: Vec<f64>,
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
            jacobian_rows: jacobian.iter().map(|&(r, _)| r).collect(),
            row_weight: vec![0.0; m],
            base: vec![0.0; nnz],
            augmentation: vec![0.0; nnz],
            trial: vec![0.0; nnz],
            last_rho_step: None,
            assembly,
            correction,
        }
    }

    /// The problem's part of the triplet values, to be written from the Hessian callback.
    pub(crate) fn problem_values(&mut self) -> &mut [f64] {
        &mut self.triplet_values[..self.num_problem_triplets]
    }

    /// Assembles `∇²L` from the problem values, then convexifies it (see the module
    /// documentation) using the Jacobian values `jacobian` and the predicted active set; with
    /// `floor > 0` the augmentation is skipped and the shift is at least `floor`. Returns
    /// `None` if no shift helps (non-finite entries).
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
        if floor == 0.0 && self.correction.positive_definite(&self.base, 0.0) {
            self.last_rho_step = None;
            return Some(Convexification::default());
        }
        if floor == 0.0 && self.build_augmentation(jacobian, active) {
            let scale = (0..self.n)
                .map(|j| self.diagonal_value(j).abs())
                .fold(1.0, f64::max);
            let first = self.last_rho_step.map_or(0, |s| (s - 1).max(0));
            for step in first..RHO_STEPS {
                let rho = scale * 10f64.powi(step - 2);
                for ((t, b), a) in self
                    .trial
                    .iter_mut()
                    .zip(&self.base)
                    .zip(&self.augmentation)
                {
                    *t = b + rho * a;
                }
                if self.correction.positive_definite(&self.trial, 0.0) {
                    self.last_rho_step = Some(step);
                    self.assembly
                        .matrix
                        .values_mut()
                        .copy_from_slice(&self.trial);
                    return Some(Convexification {
                        shift: 0.0,
                        augmentation: rho,
                    });
                }
            }
        }
        self.last_rho_step = None;
        let values = self.assembly.matrix.values_mut();
        values.copy_from_slice(&self.base);
        let shift = self.correction.apply(values, floor)?;
        Some(Convexification {
            shift,
            augmentation: 0.0,
        })
    }

    fn diagonal_value(&self, j: usize) -> f64 {
        self.base[self.correction.diagonal[j]]
    }

    /// Assembles `Σ_{i∈A} n_i n_iᵀ` into `augmentation`; false when `A` is empty.
    fn build_augmentation(&mut self, jacobian: &[f64], active: &ActiveSet<'_>) -> bool {
        self.row_weight.fill(0.0);
        for (t, &row) in self.jacobian_rows.iter().enumerate() {
            self.row_weight[row] += jacobian[t] * jacobian[t];
        }
        // Interior-point QP solvers return tiny nonzero multipliers for inactive constraints.
        let threshold = ACTIVE_MULTIPLIER
            * active
                .lambda
                .iter()
                .chain(active.z)
                .fold(1.0, |a: f64, v| a.max(v.abs()));
        let mut any = false;
        for (i, w) in self.row_weight.iter_mut().enumerate() {
            let is_active =
                active.c_lower[i] == active.c_upper[i] || active.lambda[i].abs() > threshold;
            *w = if is_active && *w > 0.0 {
                any = true;
                1.0 / *w
            } else {
                0.0
            };
        }
        let k = self.num_problem_triplets;
        self.triplet_values[..k].fill(0.0);
        for (j, &zj) in active.z.iter().enumerate() {
            let bound_active = zj.abs() > threshold;
            any |= bound_active;
            self.triplet_values[k + j] = if bound_active { 1.0 } else { 0.0 };
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

#[cfg(test)]
mod tests {
    use super::*;

    fn no_constraints() -> ActiveSet<'static> {
        ActiveSet {
            c_lower: &[],
            c_upper: &[],
            lambda: &[],
            z: &[0.0, 0.0],
        }
    }

    #[test]
    fn indefinite_matrix_is_shifted_just_enough() {
        // [[1, 2], [2, 1]] has eigenvalues 3 and -1.
        let mut h = ExactHessian::new(2, &[(0, 0), (1, 0), (1, 1)], 0, &[]);
        h.problem_values().copy_from_slice(&[1.0, 2.0, 1.0]);
        let c = h.assemble(&[], &no_constraints(), 0.0).unwrap();
        assert!(c.shift > 1.0 && c.shift < 1.0 * 8.0 * 100.0, "{c:?}");
        let mut pd = ExactHessian::new(2, &[(0, 0), (1, 1)], 0, &[]);
        pd.problem_values().copy_from_slice(&[1.0, 3.0]);
        assert_eq!(
            pd.assemble(&[], &no_constraints(), 0.0),
            Some(Convexification::default())
        );
    }

    #[test]
    fn positive_reduced_hessian_is_augmented_not_shifted() {
        // H = diag(1, -1) is positive definite on the null space of the row x1 = const.
        let mut h = ExactHessian::new(2, &[(0, 0), (1, 1)], 1, &[(0, 1)]);
        h.problem_values().copy_from_slice(&[1.0, -1.0]);
        let active = ActiveSet {
            c_lower: &[0.0],
            c_upper: &[0.0],
            lambda: &[0.0],
            z: &[0.0, 0.0],
        };
        let c = h.assemble(&[2.0], &active, 0.0).unwrap();
        assert_eq!(c.shift, 0.0);
        assert!(c.augmentation > 1.0, "{c:?}");
        let values = h.assembly.matrix.values();
        assert_eq!(values[0], 1.0);
        assert!(values[1] > 0.0);
    }
}

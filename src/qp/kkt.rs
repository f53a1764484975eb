//! A symmetric KKT matrix with a fixed pattern, factored by `LDLᵀ` without pivoting in an
//! order that is stable for the inertia the optimizers want, with its inertia read off `D`.
//!
//! The matrix is
//!
//! ```text
//! [ H + diag(p)   Jᵀ       ]
//! [ J            −diag(r)  ]     r > 0
//! ```
//!
//! over `n` primal and `m` dual unknowns, `H` and `J` given as triplets. Triplets the caller
//! masks out (fixed variables, rows that are not constraints) are left out of the pattern.
//!
//! **Multipliers first.** The dual unknowns of rows with at most `dense_row` entries are
//! eliminated first. Their pivots are `−rᵢ < 0`, and what remains is `H + diag(p) + Σ
//! aᵢaᵢᵀ/rᵢ` (with the longer rows), which is positive definite exactly when the whole matrix
//! has `n` positive and `m` negative eigenvalues. The `LDLᵀ` without pivoting is then a
//! Cholesky factorization of a positive definite matrix, stable in any order (AMD orders the
//! rest), and the number of positive entries of `D` is the matrix's positive inertia
//! (Sylvester's law). This is how the working-set QP (`active_set.rs`) and the interior-point
//! method (`crate::interior`) get IPOPT's inertia test without a pivoting factorization.
//!
//! **Refinement.** The elimination of a row with a small `rᵢ` puts `aᵢaᵢᵀ/rᵢ` into the primal
//! block, so the factorization is accurate only to about `ε_mach · ‖a‖²/r` relative; a few steps
//! of iterative refinement on the matrix itself ([`KktMatrix::solve`]) remove that error. The
//! working-set QP refines on its unregularized face system instead, by GMRES with the plain
//! back-solve [`KktMatrix::solve_factored`] as preconditioner.
//!
//! **Users.** The interior-point method's Newton system (`crate::interior`) and the SQP's
//! convex model (`crate::sqp`) build it from triplets ([`KktMatrix::new`]); the working-set
//! QP (`active_set.rs`) from the QP's CSC matrices ([`KktMatrix::from_csc`]), writing one
//! face's values per working set and refactoring only when they changed
//! ([`KktMatrix::factor_if_changed`]).
//!
//! **Inertia correction.** When the inertia is wrong, the primal block is shifted by `δI` with
//! `δ` from IPOPT's schedule ([`InertiaSettings`], searched by [`smallest_shift`]). The
//! working-set QP, the SQP's convex model (a `KktMatrix` without rows: the `LDLᵀ` of `H + δI`)
//! and the interior-point method's Newton system all correct their inertia this way.

use clarabel::algebra::CscMatrix as ClarabelCsc;
use clarabel::qdldl::{QDLDLFactorisation, QDLDLSettings};
use nalgebra_sparse::CscMatrix;
use serde::{Deserialize, Serialize};

use super::sparse::CscAssembly;
use crate::settings_check::{Check, InvalidSetting};

/// Refinement steps of [`KktMatrix::solve`] at most.
const REFINEMENT_STEPS: usize = 10;

/// The KKT matrix of one pattern with its factorization.
pub(crate) struct KktMatrix {
    n: usize,
    /// The upper triangle in CSC, values refilled by [`KktMatrix::assemble`].
    matrix: ClarabelCsc<f64>,
    all: Vec<usize>,
    /// Value index of each `H` triplet (`usize::MAX` when masked out).
    hessian_slot: Vec<usize>,
    /// Value index of each `J` triplet (`usize::MAX` when masked out).
    jacobian_slot: Vec<usize>,
    /// Value index of the diagonal entry of each unknown (primal, then dual).
    diagonal: Vec<usize>,
    factor: Option<QDLDLFactorisation<f64>>,
    /// The values [`KktMatrix::factor_if_changed`] last factored, and whether they had the
    /// right inertia (`None` when [`KktMatrix::factor`] factored since).
    factored_values: Vec<f64>,
    factored: Option<bool>,
    residual: Vec<f64>,
    correction: Vec<f64>,
    factorizations: usize,
}

impl KktMatrix {
    /// The pattern over `n` primal unknowns and one dual unknown per row, from the lower
    /// triangle triplets of `H` (`row >= column`) and the `(row, column)` triplets of `J`;
    /// `keep_column[j]` and `keep_row[i]` say which primal unknowns and rows take part (the
    /// others get only their diagonal).
    pub(crate) fn new(
        n: usize,
        hessian: &[(usize, usize)],
        jacobian: &[(usize, usize)],
        keep_column: &[bool],
        keep_row: &[bool],
        dense_row: usize,
    ) -> Self {
        let m = keep_row.len();
        let mut triplets = Vec::with_capacity(hessian.len() + jacobian.len() + n + m);
        let mut primal_pairs = Vec::with_capacity(hessian.len());
        for &(r, c) in hessian {
            if keep_column[r] && keep_column[c] {
                triplets.push((c, r));
                primal_pairs.push((c, r));
            }
        }
        let mut rows: Vec<Vec<usize>> = vec![Vec::new(); m];
        for &(i, j) in jacobian {
            if keep_row[i] && keep_column[j] {
                triplets.push((j, n + i));
                rows[i].push(j);
            }
        }
        for row in &mut rows {
            row.sort_unstable();
            row.dedup();
        }
        triplets.extend((0..n + m).map(|k| (k, k)));
        let assembly = CscAssembly::new(n + m, n + m, &triplets);
        let slot_of = |r: usize, c: usize| {
            let matrix = &assembly.matrix;
            let (start, end) = (matrix.col_offsets()[c], matrix.col_offsets()[c + 1]);
            start + matrix.row_indices()[start..end].partition_point(|&x| x < r)
        };
        let hessian_slot = hessian
            .iter()
            .map(|&(r, c)| {
                if keep_column[r] && keep_column[c] {
                    slot_of(c, r)
                } else {
                    usize::MAX
                }
            })
            .collect();
        let jacobian_slot = jacobian
            .iter()
            .map(|&(i, j)| {
                if keep_row[i] && keep_column[j] {
                    slot_of(j, n + i)
                } else {
                    usize::MAX
                }
            })
            .collect();
        let diagonal = (0..n + m).map(|k| slot_of(k, k)).collect();
        let perm = multipliers_first(n, &primal_pairs, &rows, dense_row);
        let csc = &assembly.matrix;
        let matrix = ClarabelCsc::new(
            n + m,
            n + m,
            csc.col_offsets().to_vec(),
            csc.row_indices().to_vec(),
            vec![1.0; csc.nnz()],
        );
        let symbolic = QDLDLSettings {
            perm: Some(perm),
            logical: true,
            regularize_enable: false,
            ..QDLDLSettings::default()
        };
        // The pattern has every diagonal entry, so the symbolic analysis cannot fail.
        let factor = QDLDLFactorisation::new(&matrix, Some(symbolic)).ok();
        Self {
            n,
            all: (0..matrix.nnz()).collect(),
            matrix,
            hessian_slot,
            jacobian_slot,
            diagonal,
            factor,
            factored_values: Vec::new(),
            factored: None,
            residual: vec![0.0; n + m],
            correction: vec![0.0; n + m],
            factorizations: 0,
        }
    }

    /// The pattern of the QP matrices `P` (CSC, symmetric, only its upper triangle read) and
    /// `A` (CSC, one dual unknown per row, every row taking part): [`KktMatrix::assemble`]
    /// then takes `P`'s and `A`'s value arrays as the `H` and `J` triplet values.
    pub(crate) fn from_csc(p: &CscMatrix<f64>, a: &CscMatrix<f64>, dense_row: usize) -> Self {
        let (n, m) = (p.ncols(), a.nrows());
        let entries = |matrix: &CscMatrix<f64>| {
            let (offsets, rows) = (matrix.col_offsets(), matrix.row_indices());
            (0..matrix.ncols())
                .flat_map(move |j| (offsets[j]..offsets[j + 1]).map(move |k| (k, rows[k], j)))
                .collect::<Vec<_>>()
        };
        // Entry `(i, j)`, `i <= j`, of `P` is the lower triangle triplet `(j, i)`.
        let upper: Vec<(usize, usize, usize)> =
            entries(p).into_iter().filter(|&(_, i, j)| i <= j).collect();
        let hessian: Vec<(usize, usize)> = upper.iter().map(|&(_, i, j)| (j, i)).collect();
        let jacobian: Vec<(usize, usize)> = entries(a).iter().map(|&(_, i, j)| (i, j)).collect();
        let mut kkt = Self::new(
            n,
            &hessian,
            &jacobian,
            &vec![true; n],
            &vec![true; m],
            dense_row,
        );
        // Slots by value index of `P`; the entries below its diagonal are left out.
        let mut hessian_slot = vec![usize::MAX; p.nnz()];
        for (&(k, _, _), &slot) in upper.iter().zip(&kkt.hessian_slot) {
            hessian_slot[k] = slot;
        }
        kkt.hessian_slot = hessian_slot;
        kkt
    }

    /// Numeric factorizations so far.
    pub(crate) fn factorizations(&self) -> usize {
        self.factorizations
    }

    /// Fills the values: `H` from its triplet values (`hessian` may be empty for `H = 0`),
    /// `J` from its triplet values, `primal` added to the primal diagonal and `−dual` on the
    /// dual one.
    pub(crate) fn assemble(
        &mut self,
        hessian: &[f64],
        jacobian: &[f64],
        primal: &[f64],
        dual: &[f64],
    ) {
        let values = &mut self.matrix.nzval;
        values.fill(0.0);
        for (&slot, &v) in self.hessian_slot.iter().zip(hessian) {
            if slot != usize::MAX {
                values[slot] += v;
            }
        }
        for (&slot, &v) in self.jacobian_slot.iter().zip(jacobian) {
            if slot != usize::MAX {
                values[slot] += v;
            }
        }
        let (primal_diagonal, dual_diagonal) = self.diagonal.split_at(self.n);
        for (&slot, &p) in primal_diagonal.iter().zip(primal) {
            values[slot] += p;
        }
        for (&slot, &r) in dual_diagonal.iter().zip(dual) {
            values[slot] = -r;
        }
    }

    /// Factors the assembled values; whether the factorization exists with `n` positive
    /// (and so `m` negative) pivots, all finite.
    pub(crate) fn factor(&mut self) -> bool {
        self.factorizations += 1;
        self.factored = None;
        let (n, all, values) = (self.n, &self.all, &self.matrix.nzval);
        self.factor.as_mut().is_some_and(|f| {
            f.update_values(all, values);
            f.refactor().is_ok()
                && f.positive_inertia() == n
                && f.D.iter().all(|d| d.is_finite() && *d != 0.0)
        })
    }

    /// [`KktMatrix::factor`], unless the values are those it factored the last time it was
    /// called through here: then the factorization is kept and the same answer returned.
    pub(crate) fn factor_if_changed(&mut self) -> bool {
        if let Some(good) = self.factored
            && self.matrix.nzval == self.factored_values
        {
            return good;
        }
        let good = self.factor();
        self.factored_values.clone_from(&self.matrix.nzval);
        self.factored = Some(good);
        good
    }

    /// Solves the factored system in place (`rhs` becomes the solution) without refinement.
    pub(crate) fn solve_factored(&mut self, rhs: &mut [f64]) {
        if let Some(factor) = self.factor.as_mut() {
            factor.solve(rhs);
        }
    }

    /// Solves the factored system in place (`rhs` becomes the solution), refined until the
    /// residual stops halving; returns the residual's largest entry relative to
    /// `1 + ‖rhs‖∞`.
    pub(crate) fn solve(&mut self, rhs: &mut [f64]) -> f64 {
        let Some(factor) = self.factor.as_mut() else {
            return f64::INFINITY;
        };
        let scale = 1.0 + rhs.iter().fold(0.0_f64, |a, v| a.max(v.abs()));
        self.correction.copy_from_slice(rhs);
        factor.solve(&mut self.correction);
        // `residual` keeps the right-hand side, `rhs` the solution from here on.
        self.residual.copy_from_slice(rhs);
        rhs.copy_from_slice(&self.correction);
        let mut last = f64::INFINITY;
        for _ in 0..REFINEMENT_STEPS {
            let norm = residual(&self.matrix, rhs, &self.residual, &mut self.correction);
            if norm >= 0.5 * last || norm <= f64::EPSILON * scale {
                return last.min(norm) / scale;
            }
            last = norm;
            factor.solve(&mut self.correction);
            for (x, c) in rhs.iter_mut().zip(&self.correction) {
                *x += c;
            }
        }
        last / scale
    }
}

/// `out = b − K x` for the symmetric `K` stored as its upper triangle; returns `‖out‖∞`.
fn residual(upper: &ClarabelCsc<f64>, x: &[f64], b: &[f64], out: &mut [f64]) -> f64 {
    out.copy_from_slice(b);
    for c in 0..upper.n {
        for k in upper.colptr[c]..upper.colptr[c + 1] {
            let (r, v) = (upper.rowval[k], upper.nzval[k]);
            out[r] -= v * x[c];
            if r != c {
                out[c] -= v * x[r];
            }
        }
    }
    out.iter().fold(0.0, |a: f64, v| a.max(v.abs()))
}

/// The elimination order: the dual unknowns of rows with at most `dense_row` entries first,
/// then AMD on what remains (the primal block with those rows' cliques, and the longer rows).
/// `primal_pairs` is the primal block's pattern, `rows[i]` the columns of row `i`.
fn multipliers_first(
    n: usize,
    primal_pairs: &[(usize, usize)],
    rows: &[Vec<usize>],
    dense_row: usize,
) -> Vec<usize> {
    let long: Vec<usize> = (0..rows.len())
        .filter(|&i| rows[i].len() > dense_row)
        .collect();
    let size = n + long.len();
    let mut triplets: Vec<(usize, usize)> = primal_pairs
        .iter()
        .map(|&(i, j)| (i.min(j), i.max(j)))
        .collect();
    triplets.extend((0..n).map(|j| (j, j)));
    for row in rows.iter().filter(|r| r.len() <= dense_row) {
        for (t, &a) in row.iter().enumerate() {
            for &b in &row[t + 1..] {
                triplets.push((a.min(b), a.max(b)));
            }
        }
    }
    for (t, &i) in long.iter().enumerate() {
        triplets.extend(rows[i].iter().map(|&j| (j, n + t)));
        triplets.push((n + t, n + t));
    }
    let reduced = CscAssembly::new(size, size, &triplets);
    let matrix = &reduced.matrix;
    let pattern = ClarabelCsc::new(
        size,
        size,
        matrix.col_offsets().to_vec(),
        matrix.row_indices().to_vec(),
        vec![1.0; matrix.nnz()],
    );
    let logical = QDLDLSettings {
        logical: true,
        ..QDLDLSettings::default()
    };
    let inner: Vec<usize> = match QDLDLFactorisation::new(&pattern, Some(logical)) {
        Ok(f) => f.perm,
        Err(_) => (0..size).collect(),
    };
    let mut perm: Vec<usize> = (0..rows.len())
        .filter(|&i| rows[i].len() <= dense_row)
        .map(|i| n + i)
        .collect();
    perm.extend(
        inner
            .into_iter()
            .map(|v| if v < n { v } else { n + long[v - n] }),
    );
    perm
}

/// The constants of IPOPT's inertia correction (Wächter & Biegler 2006, §3.1, Algorithm IC),
/// with the paper's values as defaults: the shifts the search `smallest_shift` tries, and the
/// elimination order that lets the `LDLᵀ` of `kkt.rs` read the inertia without pivoting.
/// One set for the working-set QP, the SQP's convex model and the interior-point method's
/// Newton system ([`crate::nlp::Tuning::inertia`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct InertiaSettings {
    /// `δ̄_w⁰`: the first shift when there was no earlier one.
    pub shift_first: f64,
    /// `δ̄_w^min`: the smallest shift of the schedule.
    pub shift_min: f64,
    /// `δ̄_w^max`: the largest shift tried before giving up.
    pub shift_max: f64,
    /// `κ_w⁻`: the next search's first shift, as a fraction of the last one.
    pub shift_decrease: f64,
    /// `κ_w⁺`: growth of the shift while the inertia is wrong, after an earlier shift.
    pub shift_increase: f64,
    /// `κ̄_w⁺`: growth of the shift while the inertia is wrong, without an earlier shift.
    pub shift_first_increase: f64,
    /// Rows with more entries than this are ordered by AMD instead of first (see "Multipliers
    /// first" in the module documentation).
    pub dense_row: usize,
}

impl Default for InertiaSettings {
    fn default() -> Self {
        Self {
            shift_first: 1e-4,
            shift_min: 1e-20,
            shift_max: 1e40,
            shift_decrease: 1.0 / 3.0,
            shift_increase: 8.0,
            shift_first_increase: 100.0,
            dense_row: 512,
        }
    }
}

impl InertiaSettings {
    /// The schedule after a last nonzero shift `last_shift` (0 when there was none): the first
    /// shift to try when the unshifted matrix has the wrong inertia, and the growth factor of
    /// the next ones. The working-set QP and the interior-point method's Newton system follow
    /// it; the SQP's convex model, built afresh for each call, starts at `shift_first` and
    /// grows by `shift_increase`.
    pub(crate) fn shift_schedule(&self, last_shift: f64) -> (f64, f64) {
        if last_shift == 0.0 {
            (self.shift_first, self.shift_first_increase)
        } else {
            (
                (self.shift_decrease * last_shift).max(self.shift_min),
                self.shift_increase,
            )
        }
    }

    /// Checks every constant in order; the first one out of its domain.
    pub fn validate(&self) -> Result<(), InvalidSetting> {
        Check::new()
            .positive("shift_first", self.shift_first)
            .positive("shift_min", self.shift_min)
            .positive("shift_max", self.shift_max)
            .growth("shift_increase", self.shift_increase)
            .growth("shift_first_increase", self.shift_first_increase)
            .unit("shift_decrease", self.shift_decrease)
            .count("dense_row", self.dense_row)
            .require(
                "shift_first",
                self.shift_first,
                !(self.shift_min > self.shift_first || self.shift_first > self.shift_max),
                "must lie between `shift_min` and `shift_max`",
            )
            .finish()
    }
}

/// IPOPT's inertia correction (Wächter & Biegler 2006, Algorithm IC) as one search, shared by
/// the working-set QP, the SQP's convexification and the interior-point method's Newton
/// system: `factors(δ)` factors the matrix shifted by `δ` and says whether it has the right
/// inertia. Tries `first` when given (the unshifted matrix, or the shift that worked last),
/// then `start`, `start·growth`, `start·growth²`, … while at most `max`; the shift that worked,
/// or `None`.
pub(crate) fn smallest_shift(
    first: Option<f64>,
    start: f64,
    growth: f64,
    max: f64,
    mut factors: impl FnMut(f64) -> bool,
) -> Option<f64> {
    if let Some(delta) = first
        && factors(delta)
    {
        return Some(delta);
    }
    let mut delta = start;
    while delta <= max {
        if factors(delta) {
            return Some(delta);
        }
        delta *= growth;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The search against the schedule written out: the first try, then the geometric
    /// shifts up to the ceiling.
    #[test]
    fn the_shift_search_tries_first_then_the_schedule_up_to_its_ceiling() {
        let mut tried = Vec::new();
        let found = smallest_shift(Some(0.0), 1e-4, 10.0, 1.0, |d| {
            tried.push(d);
            d >= 0.05
        });
        assert_eq!(found, Some(1e-4 * 10.0 * 10.0 * 10.0));
        assert_eq!(tried.len(), 5);
        assert_eq!(tried[0], 0.0);
        let mut tried = 0;
        assert_eq!(
            smallest_shift(None, 1e-4, 10.0, 1.5, |_| {
                tried += 1;
                false
            }),
            None
        );
        assert_eq!(tried, 5);
    }

    /// `[h 0 a; 0 h b; a b −r]` with `h` of either sign.
    fn small(h: f64) -> (KktMatrix, Vec<f64>, Vec<f64>) {
        let hessian = [(0, 0), (1, 1)];
        let jacobian = [(0, 0), (0, 1)];
        let kkt = KktMatrix::new(2, &hessian, &jacobian, &[true; 2], &[true], 512);
        (kkt, vec![h, h], vec![1.0, 2.0])
    }

    #[test]
    fn inertia_is_read_off_the_factorization() {
        // Reduced Hessian on the null space of (1, 2) is h (both eigenvalues of H are h).
        let (mut kkt, hessian, jacobian) = small(1.0);
        kkt.assemble(&hessian, &jacobian, &[0.0; 2], &[1e-9]);
        assert!(kkt.factor());
        let (mut kkt, hessian, jacobian) = small(-1.0);
        kkt.assemble(&hessian, &jacobian, &[0.0; 2], &[1e-9]);
        assert!(!kkt.factor());
        // A shift of 2 makes H + 2I = I positive definite.
        kkt.assemble(&hessian, &jacobian, &[2.0; 2], &[1e-9]);
        assert!(kkt.factor());
        assert_eq!(kkt.factorizations(), 2);
    }

    #[test]
    fn refined_solutions_solve_the_regularized_system() {
        // H indefinite (diag(1, −0.5)) but positive on the null space of J = (1, 2): the
        // reduced Hessian is (4 − 0.5)/5 > 0.
        let hessian = [(0, 0), (1, 1), (1, 0)];
        let jacobian = [(0, 0), (0, 1)];
        let mut kkt = KktMatrix::new(2, &hessian, &jacobian, &[true; 2], &[true], 512);
        let r = 1e-10;
        kkt.assemble(&[1.0, -0.5, 0.0], &[1.0, 2.0], &[0.0; 2], &[r]);
        assert!(kkt.factor());
        let b = [1.0, -2.0, 3.0];
        let mut x = b;
        let error = kkt.solve(&mut x);
        assert!(error < 1e-14, "{error}");
        // Dense check of K x = b.
        let k = [[1.0, 0.0, 1.0], [0.0, -0.5, 2.0], [1.0, 2.0, -r]];
        for (row, bi) in k.iter().zip(b) {
            let kx: f64 = row.iter().zip(&x).map(|(a, v)| a * v).sum();
            assert!((kx - bi).abs() < 1e-12, "{kx} vs {bi}");
        }
    }

    #[test]
    fn csc_matrices_give_the_triplet_pattern_and_unchanged_values_are_not_refactored() {
        // P = [2 1; 1 3] with both triangles stored (the lower one is not read), A = (1 1).
        let p = CscMatrix::try_from_csc_data(
            2,
            2,
            vec![0, 2, 4],
            vec![0, 1, 0, 1],
            vec![2.0, 9.0, 1.0, 3.0],
        )
        .unwrap();
        let a =
            CscMatrix::try_from_csc_data(1, 2, vec![0, 1, 2], vec![0, 0], vec![1.0, 1.0]).unwrap();
        let mut from_csc = KktMatrix::from_csc(&p, &a, 512);
        from_csc.assemble(p.values(), a.values(), &[0.0; 2], &[1e-12]);
        assert!(from_csc.factor_if_changed());
        assert!(from_csc.factor_if_changed());
        assert_eq!(from_csc.factorizations(), 1);
        let mut triplets = KktMatrix::new(
            2,
            &[(0, 0), (1, 0), (1, 1)],
            &[(0, 0), (0, 1)],
            &[true; 2],
            &[true],
            512,
        );
        triplets.assemble(&[2.0, 1.0, 3.0], &[1.0, 1.0], &[0.0; 2], &[1e-12]);
        assert!(triplets.factor());
        let (mut x, mut y) = ([1.0, 2.0, 3.0], [1.0, 2.0, 3.0]);
        from_csc.solve_factored(&mut x);
        triplets.solve_factored(&mut y);
        assert_eq!(x, y);
    }

    #[test]
    fn masked_entries_stay_out_of_the_system() {
        // Column 1 fixed: its diagonal alone, its Jacobian entry gone.
        let hessian = [(0, 0), (1, 1), (1, 0)];
        let jacobian = [(0, 0), (0, 1)];
        let mut kkt = KktMatrix::new(2, &hessian, &jacobian, &[true, false], &[true], 512);
        kkt.assemble(&[2.0, 7.0, 5.0], &[1.0, 9.0], &[0.0, 1.0], &[1e-12]);
        assert!(kkt.factor());
        let mut x = [4.0, 3.0, 1.0];
        kkt.solve(&mut x);
        // [2 0 1; 0 1 0; 1 0 0] x = (4, 3, 1): x = (1, 3, 2).
        for (v, e) in x.iter().zip([1.0, 3.0, 2.0]) {
            assert!((v - e).abs() < 1e-9, "{x:?}");
        }
    }
}

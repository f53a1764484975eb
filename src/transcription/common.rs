//! What both transcriptions share besides their per-point terms: the points where the
//! trajectory is sampled, frame helpers and the pieces of their Hessian blocks.

use crate::model::Model;
use crate::nlp::EvalError;
use crate::problem::TimeSpec;
use crate::vi::PointLoad;
use nalgebra::DMatrix;
use rayon::prelude::*;

/// The sample points of a transcription: times, quadrature weights (so that
/// `∫ f dt ≈ Σ_p weight_p f(t_p)`), and where `q_p` and `u_p` sit in the decision vector.
#[derive(Clone, Debug, PartialEq)]
pub struct Points {
    /// Times `t_p`, increasing from 0 to T.
    pub times: Vec<f64>,
    /// Quadrature weights.
    pub weights: Vec<f64>,
    /// Start index of `q_p` (n entries).
    pub q: Vec<usize>,
    /// Start index of `u_p` (n_u entries).
    pub u: Vec<usize>,
    /// Start index of the final velocity, if it is a decision variable.
    pub final_v: Option<usize>,
}

impl Points {
    /// Index of the point nearest to `time`.
    pub fn at(&self, time: TimeSpec, duration: f64) -> usize {
        time.nearest(&self.times, duration)
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.times.len()
    }

    /// Whether there are no points.
    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }
}

/// The values at time `t`, linear between the rows `row(k)` of the points at `times` (held
/// beyond the ends).
pub(crate) fn sample_rows(times: &[f64], t: f64, row: impl Fn(usize) -> Vec<f64>) -> Vec<f64> {
    let last = times.len().saturating_sub(1);
    if last == 0 {
        return row(0);
    }
    let k = times.partition_point(|&tp| tp <= t).clamp(1, last);
    let (t0, t1) = (times[k - 1], times[k]);
    let w = if t1 > t0 {
        ((t - t0) / (t1 - t0)).clamp(0.0, 1.0)
    } else {
        0.0
    };
    row(k - 1)
        .iter()
        .zip(row(k))
        .map(|(a, b)| a + w * (b - a))
        .collect()
}

/// An evaluation error when any value is NaN or infinite.
pub(crate) fn check_finite(values: &[f64], what: &str) -> Result<(), EvalError> {
    if values
        .par_iter()
        .with_min_len(CHECK_CHUNK)
        .all(|v| v.is_finite())
    {
        Ok(())
    } else {
        Err(EvalError::Failed(format!("non-finite {what}")))
    }
}

/// Values per task of [`check_finite`]'s parallel scan.
const CHECK_CHUNK: usize = 8192;

/// Relative step of the central differences that give the Hessians' curvature terms.
pub(crate) const FD_STEP: f64 = 1e-6;

/// How a transcription takes its dynamics curvature ([`VariationalNlp`]'s stages,
/// [`CollocationNlp`]'s points).
///
/// [`VariationalNlp`]: super::VariationalNlp
/// [`CollocationNlp`]: super::CollocationNlp
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Route {
    /// In closed form (`del_hessian`, `lagrangian_curvature`), the loads by central differences
    /// of their exact gradient.
    Analytic,
    /// By central differences of the exact first derivatives (the stage linearization, the
    /// inverse-dynamics derivatives): the route the analytic one replaced, kept as the tests'
    /// oracle and the baseline of `vito bench`.
    Differences,
}

/// The coordinates that move the loads, along which their curvature is differenced: the joints
/// on the paths of the loads' bodies to the root, increasing, each once.
pub(crate) fn load_coordinates(model: &Model, loads: &[PointLoad]) -> Vec<usize> {
    let mut coords: Vec<usize> = loads
        .iter()
        .flat_map(|l| model.ancestors_inclusive(l.body))
        .collect();
    coords.sort_unstable();
    coords.dedup();
    coords
}

/// The step `h` of one coordinate's central difference (see [`central_difference`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Step(f64);

impl Step {
    /// `(plus − minus)/(2h)`: the central-difference derivative of a quantity whose values at
    /// `x_j + h` and `x_j − h` are `plus` and `minus`.
    pub(crate) fn quotient(self, plus: f64, minus: f64) -> f64 {
        (plus - minus) / (2.0 * self.0)
    }
}

/// One coordinate's central difference `∂g/∂x_j ≈ (g(x_j + h) − g(x_j − h))/(2h)`,
/// `h = FD_STEP·max(1, |x_j|)`: sets the coordinate `x_j = *coordinate(state)` to `x_j + h` and
/// runs `evaluate(state, 0)`, then to `x_j − h` and runs `evaluate(state, 1)` (each writes `g`
/// at its side into the caller's buffers), restores `x_j` and returns the step, whose
/// [`Step::quotient`] of the two sides' values is the derivative.
pub(crate) fn central_difference<S: ?Sized>(
    state: &mut S,
    coordinate: impl Fn(&mut S) -> &mut f64,
    mut evaluate: impl FnMut(&mut S, usize),
) -> Step {
    let x0 = *coordinate(state);
    let h = FD_STEP * x0.abs().max(1.0);
    for (side, xs) in [x0 + h, x0 - h].into_iter().enumerate() {
        *coordinate(state) = xs;
        evaluate(state, side);
    }
    *coordinate(state) = x0;
    Step(h)
}

/// Central differences ([`central_difference`]) of a gradient over a block of variables,
/// symmetrized: writes the lower triangle (`a ≥ b` in the order of `vars`) of
/// `∂g_{vars[a]}/∂x_{vars[b]}` into `out`. `gradient(x, g)` overwrites `g` (full length) with
/// the gradient at `x`.
pub(crate) fn fd_hessian_block(
    vars: &[usize],
    x: &[f64],
    gradient: &mut dyn FnMut(&[f64], &mut [f64]),
    out: &mut [f64],
) {
    let mut xs = x.to_vec();
    let mut sides = [vec![0.0; x.len()], vec![0.0; x.len()]];
    let mut block = DMatrix::zeros(vars.len(), vars.len());
    for (j, &vj) in vars.iter().enumerate() {
        let step = central_difference(
            &mut xs[..],
            |xs| &mut xs[vj],
            |xs, side| {
                gradient(xs, &mut sides[side]);
            },
        );
        for (a, &va) in vars.iter().enumerate() {
            block[(a, j)] = step.quotient(sides[0][va], sides[1][va]);
        }
    }
    write_lower_triangle(&block, out);
}

/// The lower-triangle triplets `(vars[a], vars[b])`, `a ≥ b`, of a dense block whose variables
/// are increasing (so that every triplet has row ≥ column).
pub(crate) fn lower_triangle(vars: &[usize], out: &mut Vec<(usize, usize)>) {
    for a in 0..vars.len() {
        for b in 0..=a {
            out.push((vars[a], vars[b]));
        }
    }
}

/// Writes the lower triangle of the symmetric part `(B + Bᵀ)/2` of the leading `len × len`
/// block of `block`, row by row, in the order of [`lower_triangle`].
pub(crate) fn write_leading_lower_triangle(block: &DMatrix<f64>, len: usize, out: &mut [f64]) {
    let mut idx = 0;
    for a in 0..len {
        for b in 0..=a {
            out[idx] = 0.5 * (block[(a, b)] + block[(b, a)]);
            idx += 1;
        }
    }
}

/// [`write_leading_lower_triangle`] of a whole square block.
pub(crate) fn write_lower_triangle(block: &DMatrix<f64>, out: &mut [f64]) {
    write_leading_lower_triangle(block, block.nrows(), out);
}

//! The curvature scale `τ_c` of both methods' Hessians, `∇²f + τ_c Σ yᵢ∇²cᵢ`: vito's guard
//! against poor multipliers far from a solution.
//!
//! `τ_c` is divided by `curvature_decrease` after a step whose model needed a shift above
//! `curvature_shift` while the objective's own curvature needs none that large, and multiplied
//! by it, up to 1, after a step that needed no shift. Near a solution no step needs a shift,
//! `τ_c = 1` and the steps are exact Newton steps. Measured (`docs/benchmarks.md`): without it
//! the single pendulum's swing-up follows a near-singular Newton step of 30 rad to a local
//! optimum 50 times worse (as IPOPT does on the same NLP).

use super::settings::Tuning;

/// `τ_c` for the next iterate after a step from one with `scale` whose model needed the shift
/// `shift`; `may_shrink` says whether the objective's curvature allows a decrease (it is
/// convex up to `curvature_shift`, and the method has no better multipliers to trust).
pub(crate) fn next_curvature_scale(scale: f64, shift: f64, may_shrink: bool, t: &Tuning) -> f64 {
    if may_shrink && shift > t.curvature_shift {
        scale / t.curvature_decrease
    } else if shift == 0.0 {
        (scale * t.curvature_decrease).min(1.0)
    } else {
        scale
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scale_shrinks_after_large_shifts_and_recovers_to_one() {
        let t = Tuning::default();
        let large = 10.0 * t.curvature_shift;
        assert_eq!(
            next_curvature_scale(1.0, large, true, &t),
            1.0 / t.curvature_decrease
        );
        // Not when the objective itself needs the shift, nor for small shifts.
        assert_eq!(next_curvature_scale(1.0, large, false, &t), 1.0);
        assert_eq!(
            next_curvature_scale(0.5, 0.5 * t.curvature_shift, true, &t),
            0.5
        );
        // Back up by the same factor after unshifted steps, never above 1.
        let low = 1.0 / (t.curvature_decrease * t.curvature_decrease);
        assert_eq!(
            next_curvature_scale(low, 0.0, true, &t),
            1.0 / t.curvature_decrease
        );
        assert_eq!(next_curvature_scale(0.9, 0.0, true, &t), 1.0);
    }
}

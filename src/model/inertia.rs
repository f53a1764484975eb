//! Physical consistency of a rotational inertia about the centre of mass, and its projection
//! onto the nearest physical inertia.
//!
//! A rigid body's inertia `I` about its centre of mass is *physical* when its principal moments
//! `λ₁ ≤ λ₂ ≤ λ₃` are non-negative (positive semi-definite, which makes the spatial inertia and
//! so the mass matrix positive semi-definite) and obey the triangle inequality `λ₁ + λ₂ ≥ λ₃`
//! (which every non-negative density gives, since `λ₁ + λ₂ − λ₃ = 2∫ρ z² dV` along the axis of
//! `λ₃`; the three inequalities together imply non-negativity). The set of physical inertias is
//! a convex cone invariant under rotations, so its Frobenius-nearest point to a symmetric `I`
//! keeps the principal axes and moves only the moments: the Euclidean projection of `λ` onto
//! the polyhedral cone `{λᵢ + λⱼ ≥ λₖ}` ([`nearest_physical`]).

use crate::spatial::Mat3;
use nalgebra::Vector3;

/// How far an inertia is from physical, in units of its largest principal moment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InertiaDefect {
    /// Principal moments, ascending.
    pub moments: [f64; 3],
    /// `max(0, −λ₁) / λ₃`: how negative the smallest moment is.
    pub indefinite: f64,
    /// `max(0, λ₃ − λ₁ − λ₂) / λ₃`: how far the triangle inequality is missed.
    pub triangle: f64,
}

/// The principal moments of the symmetric tensor `ixx ixy ixz iyy iyz izz` and how far they are
/// from physical. A zero tensor has no defect.
pub fn inertia_defect(tensor: &Mat3) -> InertiaDefect {
    let mut m: Vec<f64> = tensor.symmetric_eigenvalues().iter().copied().collect();
    m.sort_by(f64::total_cmp);
    let scale = m[2].abs().max(m[0].abs());
    let rel = |x: f64| if scale > 0.0 { x.max(0.0) / scale } else { 0.0 };
    InertiaDefect {
        moments: [m[0], m[1], m[2]],
        indefinite: rel(-m[0]),
        triangle: rel(m[2] - m[0] - m[1]),
    }
}

/// The physical inertia nearest to the symmetric `tensor` in the Frobenius norm.
pub fn nearest_physical(tensor: &Mat3) -> Mat3 {
    let eig = tensor.symmetric_eigen();
    let projected = project_moments(&eig.eigenvalues);
    eig.eigenvectors * Mat3::from_diagonal(&projected) * eig.eigenvectors.transpose()
}

/// Euclidean projection of `λ` onto `{x : xᵢ + xⱼ − xₖ ≥ 0 for every k}` by enumerating the
/// active sets: for active rows `N_A`, `x = λ + N_Aᵀ μ` with `μ = −(N_A N_Aᵀ)⁻¹ N_A λ`, and the
/// projection is the candidate that is feasible with `μ ≥ 0` (the KKT conditions, which a
/// convex projection satisfies at exactly one point).
fn project_moments(lambda: &Vector3<f64>) -> Vector3<f64> {
    let row = |k: usize| {
        let mut n = Vector3::repeat(1.0);
        n[k] = -1.0;
        n
    };
    let rows = [row(0), row(1), row(2)];
    let feasible = |x: &Vector3<f64>| {
        let tol = 1e-12 * x.amax().max(f64::MIN_POSITIVE);
        rows.iter().all(|n| n.dot(x) >= -tol)
    };
    if feasible(lambda) {
        return *lambda;
    }
    let mut best: Option<(f64, Vector3<f64>)> = None;
    for mask in 1u8..8 {
        let active: Vec<&Vector3<f64>> = (0..3)
            .filter(|k| mask & (1 << k) != 0)
            .map(|k| &rows[k])
            .collect();
        let a = active.len();
        let gram = nalgebra::DMatrix::from_fn(a, a, |i, j| active[i].dot(active[j]));
        let rhs = nalgebra::DVector::from_fn(a, |i, _| -active[i].dot(lambda));
        let Some(mu) = gram.lu().solve(&rhs) else {
            continue;
        };
        if mu.iter().any(|m| *m < -1e-12 * lambda.amax()) {
            continue;
        }
        let x = active
            .iter()
            .zip(mu.iter())
            .fold(*lambda, |x, (n, m)| x + **n * *m);
        if feasible(&x) {
            let d = (x - lambda).norm();
            if best.as_ref().is_none_or(|(bd, _)| d < *bd) {
                best = Some((d, x));
            }
        }
    }
    best.map_or_else(Vector3::zeros, |(_, x)| x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::Xoshiro256PlusPlus;
    use rand::{RngExt, SeedableRng};

    fn random_symmetric(r: &mut Xoshiro256PlusPlus) -> Mat3 {
        let a = Mat3::from_fn(|_, _| r.random_range(-1.0..1.0));
        let s = a + a.transpose();
        // Shift some towards physical, some far from it.
        s + Mat3::identity() * r.random_range(-1.0..3.0)
    }

    /// A random physical inertia: point masses with non-negative weights.
    fn random_physical(r: &mut Xoshiro256PlusPlus) -> Mat3 {
        let mut i = Mat3::zeros();
        for _ in 0..4 {
            let p = nalgebra::Vector3::from_fn(|_, _| r.random_range(-1.0..1.0));
            let m = r.random_range(0.0..2.0);
            i += m * (Mat3::identity() * p.dot(&p) - p * p.transpose());
        }
        i
    }

    #[test]
    fn physical_inertias_have_no_defect_and_are_kept() {
        let mut r = Xoshiro256PlusPlus::seed_from_u64(1);
        for _ in 0..200 {
            let i = random_physical(&mut r);
            let d = inertia_defect(&i);
            assert!(d.indefinite < 1e-12 && d.triangle < 1e-12, "{d:?}");
            assert!((nearest_physical(&i) - i).amax() < 1e-12 * i.amax());
        }
    }

    #[test]
    fn defects_are_measured_against_the_largest_moment() {
        let d = inertia_defect(&Mat3::from_diagonal(&Vector3::new(0.1, 0.1, 0.5)));
        assert!((d.triangle - 0.6).abs() < 1e-12 && d.indefinite == 0.0);
        let d = inertia_defect(&Mat3::from_diagonal(&Vector3::new(-0.1, 0.3, 0.4)));
        assert!((d.indefinite - 0.25).abs() < 1e-12);
        assert_eq!(inertia_defect(&Mat3::zeros()).triangle, 0.0);
    }

    /// The projection is physical and no physical inertia is nearer: for every physical `Y`,
    /// `⟨X − P, Y − P⟩ ≤ 0` (the variational inequality that characterizes the projection onto
    /// a closed convex set), checked against many random physical `Y`.
    #[test]
    fn nearest_physical_is_the_projection() {
        let mut r = Xoshiro256PlusPlus::seed_from_u64(2);
        let others: Vec<Mat3> = (0..300).map(|_| random_physical(&mut r)).collect();
        for _ in 0..200 {
            let x = random_symmetric(&mut r);
            let p = nearest_physical(&x);
            let d = inertia_defect(&p);
            assert!(
                d.indefinite < 1e-10 && d.triangle < 1e-10,
                "{x} -> {p}: {d:?}"
            );
            assert!((p - p.transpose()).amax() < 1e-14);
            let gap = x - p;
            for y in &others {
                let inner = gap.component_mul(&(y - p)).sum();
                assert!(
                    inner <= 1e-10 * (1.0 + gap.norm() * (y - p).norm()),
                    "{inner}"
                );
            }
        }
    }
}

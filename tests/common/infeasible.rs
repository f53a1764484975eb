//! Problems without a feasible point, whose violation is stationary somewhere.

use super::hs::base;
use super::{Dense, INF};

/// `c(x) = x² + 1 = 0` has no solution; the violation is stationary at `x = 0`.
pub fn no_real_root() -> Dense {
    Dense {
        x0: vec![1.0],
        c_upper: vec![0.0],
        f: |x| x[0],
        grad: |_, g| g[0] = 1.0,
        cons: |x, c| c[0] = x[0] * x[0] + 1.0,
        jac: |x, j| j[0] = 2.0 * x[0],
        hess: |_, _, l, h| h[0] = 2.0 * l[0],
        ..base("no_real_root", 1, 1)
    }
}

/// The unit disc and the half plane `x₀ + x₁ >= 3` do not meet.
pub fn disc_and_half_plane() -> Dense {
    Dense {
        c_lower: vec![-INF, 3.0],
        c_upper: vec![1.0, INF],
        f: |x| x[0] * x[0] + x[1] * x[1],
        grad: |x, g| {
            g[0] = 2.0 * x[0];
            g[1] = 2.0 * x[1];
        },
        cons: |x, c| {
            c[0] = x[0] * x[0] + x[1] * x[1];
            c[1] = x[0] + x[1];
        },
        jac: |x, j| j.copy_from_slice(&[2.0 * x[0], 2.0 * x[1], 1.0, 1.0]),
        hess: |_, s, l, h| {
            h[0] = 2.0 * s + 2.0 * l[0];
            h[3] = 2.0 * s + 2.0 * l[0];
        },
        ..base("disc_and_half_plane", 2, 2)
    }
}

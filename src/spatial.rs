//! Rigid-body motion on SE(3) in the notation of the core paper (seed 000 §2.2).
//!
//! - A configuration `g = (R, p)` maps body coordinates to world coordinates, `x ↦ R x + p`.
//! - Twists are 6-vectors `v = (ω, v_O)`: angular part first. The body velocity is
//!   `v = (g⁻¹ġ)^∨`, the spatial (world) velocity `v̄ = (ġ g⁻¹)^∨ = Ad_g v`, whose linear part is
//!   the velocity of the body-fixed point passing through the world origin.
//! - Wrenches are 6-vectors `F = (τ, f)`, paired with twists by `⟨F, v⟩ = Fᵀ v`; a body wrench
//!   becomes a spatial wrench by `F̄ = Ad_g^{-T} F` (moment about the world origin).
//! - `Ad_g = [[R, 0], [p̂R, R]]`, `ad_v = [[ω̂, 0], [v̂_O, ω̂]]`, `ad^D_F = [[τ̂, f̂], [f̂, 0]]`, so that
//!   `Fᵀ ad_{v1} v2 = v2ᵀ ad^D_F v1 = −v1ᵀ ad^D_F v2` and `ad_vᵀ F = ad^D_F v`.
//! - A body's spatial inertia `M` (body frame) becomes `M̄ = Ad_g^{-T} M Ad_g^{-1}` in the world
//!   frame, and the kinetic energy is `½ v̄ᵀ M̄ v̄ = ½ vᵀ M v`.

use nalgebra::{Matrix3, Matrix4, Matrix6, Rotation3, Vector3, Vector6};

/// A twist or wrench 6-vector, angular part first.
pub type Vec6 = Vector6<f64>;
/// A 6×6 spatial matrix (adjoint, inertia).
pub type Mat6 = Matrix6<f64>;
/// A 3-vector.
pub type Vec3 = Vector3<f64>;
/// A 3×3 matrix.
pub type Mat3 = Matrix3<f64>;

/// An element `g = (R, p)` of SE(3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transform {
    /// Rotation `R` (orthonormal, det +1).
    pub rotation: Mat3,
    /// Translation `p`.
    pub translation: Vec3,
}

impl Default for Transform {
    fn default() -> Self {
        Self::identity()
    }
}

impl Transform {
    /// The identity `g = (I, 0)`.
    pub fn identity() -> Self {
        Self {
            rotation: Mat3::identity(),
            translation: Vec3::zeros(),
        }
    }

    /// Builds `g = (R, p)` from a rotation and a translation.
    pub fn new(rotation: Mat3, translation: Vec3) -> Self {
        Self {
            rotation,
            translation,
        }
    }

    /// A pure translation.
    pub fn from_translation(translation: Vec3) -> Self {
        Self::new(Mat3::identity(), translation)
    }

    /// The URDF pose convention: `xyz` translation and fixed-axis roll-pitch-yaw rotation
    /// `R = Rz(yaw) Ry(pitch) Rx(roll)`.
    pub fn from_xyz_rpy(xyz: [f64; 3], rpy: [f64; 3]) -> Self {
        let r = Rotation3::from_euler_angles(rpy[0], rpy[1], rpy[2]);
        Self::new(*r.matrix(), Vec3::new(xyz[0], xyz[1], xyz[2]))
    }

    /// The composition `g h`.
    pub fn compose(&self, h: &Transform) -> Transform {
        Transform {
            rotation: self.rotation * h.rotation,
            translation: self.rotation * h.translation + self.translation,
        }
    }

    /// The inverse `g⁻¹ = (Rᵀ, −Rᵀp)`.
    pub fn inverse(&self) -> Transform {
        let rt = self.rotation.transpose();
        Transform {
            rotation: rt,
            translation: -(rt * self.translation),
        }
    }

    /// Maps a point from body to world coordinates: `R x + p`.
    pub fn transform_point(&self, x: &Vec3) -> Vec3 {
        self.rotation * x + self.translation
    }

    /// `Ad_g = [[R, 0], [p̂R, R]]`.
    pub fn adjoint(&self) -> Mat6 {
        let r = self.rotation;
        let pr = hat(&self.translation) * r;
        let mut a = Mat6::zeros();
        a.fixed_view_mut::<3, 3>(0, 0).copy_from(&r);
        a.fixed_view_mut::<3, 3>(3, 0).copy_from(&pr);
        a.fixed_view_mut::<3, 3>(3, 3).copy_from(&r);
        a
    }

    /// `Ad_g⁻¹ = Ad_{g⁻¹} = [[Rᵀ, 0], [−Rᵀp̂, Rᵀ]]`.
    pub fn adjoint_inverse(&self) -> Mat6 {
        self.inverse().adjoint()
    }

    /// `Ad_g v` without forming the 6×6 matrix.
    pub fn act_twist(&self, v: &Vec6) -> Vec6 {
        let w = self.rotation * v.fixed_rows::<3>(0);
        let lin = self.rotation * v.fixed_rows::<3>(3) + self.translation.cross(&w);
        stack(&w, &lin)
    }

    /// `Ad_g^{-T} F`: a body wrench expressed as a spatial wrench (moment about the world origin).
    pub fn act_wrench(&self, f: &Vec6) -> Vec6 {
        let force = self.rotation * f.fixed_rows::<3>(3);
        let torque = self.rotation * f.fixed_rows::<3>(0) + self.translation.cross(&force);
        stack(&torque, &force)
    }

    /// The 4×4 homogeneous matrix `[[R, p], [0, 1]]`.
    pub fn to_homogeneous(&self) -> Matrix4<f64> {
        let mut m = Matrix4::identity();
        m.fixed_view_mut::<3, 3>(0, 0).copy_from(&self.rotation);
        m.fixed_view_mut::<3, 1>(0, 3).copy_from(&self.translation);
        m
    }
}

/// Stacks two 3-vectors into a 6-vector.
pub fn stack(top: &Vec3, bottom: &Vec3) -> Vec6 {
    Vec6::new(top.x, top.y, top.z, bottom.x, bottom.y, bottom.z)
}

/// The angular (first) half of a twist or wrench.
pub fn upper(v: &Vec6) -> Vec3 {
    Vec3::new(v[0], v[1], v[2])
}

/// The linear (second) half of a twist or wrench.
pub fn lower(v: &Vec6) -> Vec3 {
    Vec3::new(v[3], v[4], v[5])
}

/// `â`: the skew matrix with `â b = a × b`.
pub fn hat(a: &Vec3) -> Mat3 {
    Mat3::new(0.0, -a.z, a.y, a.z, 0.0, -a.x, -a.y, a.x, 0.0)
}

/// The inverse of [`hat`] on skew matrices.
pub fn vee(m: &Mat3) -> Vec3 {
    Vec3::new(m[(2, 1)], m[(0, 2)], m[(1, 0)])
}

/// `v̂ = [[ω̂, v_O], [0, 0]]`, the 4×4 form of a twist.
pub fn twist_hat(v: &Vec6) -> Matrix4<f64> {
    let mut m = Matrix4::zeros();
    m.fixed_view_mut::<3, 3>(0, 0).copy_from(&hat(&upper(v)));
    m.fixed_view_mut::<3, 1>(0, 3).copy_from(&lower(v));
    m
}

/// The inverse of [`twist_hat`].
pub fn twist_vee(m: &Matrix4<f64>) -> Vec6 {
    let w = vee(&m.fixed_view::<3, 3>(0, 0).into_owned());
    let v = m.fixed_view::<3, 1>(0, 3).into_owned();
    stack(&w, &v)
}

/// `ad_v = [[ω̂, 0], [v̂_O, ω̂]]`.
pub fn ad(v: &Vec6) -> Mat6 {
    let w = hat(&upper(v));
    let l = hat(&lower(v));
    let mut a = Mat6::zeros();
    a.fixed_view_mut::<3, 3>(0, 0).copy_from(&w);
    a.fixed_view_mut::<3, 3>(3, 0).copy_from(&l);
    a.fixed_view_mut::<3, 3>(3, 3).copy_from(&w);
    a
}

/// `ad^D_F = [[τ̂, f̂], [f̂, 0]]`, so that `ad_vᵀ F = ad^D_F v`.
pub fn ad_dual(f: &Vec6) -> Mat6 {
    let t = hat(&upper(f));
    let l = hat(&lower(f));
    let mut a = Mat6::zeros();
    a.fixed_view_mut::<3, 3>(0, 0).copy_from(&t);
    a.fixed_view_mut::<3, 3>(0, 3).copy_from(&l);
    a.fixed_view_mut::<3, 3>(3, 0).copy_from(&l);
    a
}

/// `ad_v w = (ω×ω', v_O×ω' + ω×v'_O)`, the Lie bracket, without forming a matrix.
pub fn ad_mul(v: &Vec6, w: &Vec6) -> Vec6 {
    let (wv, lv) = (upper(v), lower(v));
    let (ww, lw) = (upper(w), lower(w));
    stack(&wv.cross(&ww), &(lv.cross(&ww) + wv.cross(&lw)))
}

/// `ad_vᵀ F = ad^D_F v = (τ×ω + f×v_O, f×ω)`, without forming a matrix.
pub fn ad_transpose_mul(v: &Vec6, f: &Vec6) -> Vec6 {
    let (w, l) = (upper(v), lower(v));
    let (t, fo) = (upper(f), lower(f));
    stack(&(t.cross(&w) + fo.cross(&l)), &fo.cross(&w))
}

/// `exp(Ŝ θ)` for any twist `S`: the rigid motion of flowing along `S` for time `θ`.
///
/// For `S = (ω, v)` with `ω ≠ 0` this is the screw motion
/// `R = exp(ω̂θ)`, `p = (I − R)(ω × v)/|ω|² + ω ωᵀ v θ/|ω|²`; for `ω = 0` a translation `vθ`.
pub fn exp_twist(s: &Vec6, theta: f64) -> Transform {
    let w = upper(s);
    let v = lower(s);
    let wn2 = w.norm_squared();
    if wn2 < 1e-24 {
        return Transform::from_translation(v * theta);
    }
    let wn = wn2.sqrt();
    let axis = w / wn;
    let angle = wn * theta;
    let r = *Rotation3::from_axis_angle(&nalgebra::Unit::new_unchecked(axis), angle).matrix();
    let p = (Mat3::identity() - r) * w.cross(&v) / wn2 + w * (w.dot(&v) * theta / wn2);
    Transform::new(r, p)
}

/// The body-frame spatial inertia of a rigid body with mass `m`, centre of mass `c` (body
/// frame) and rotational inertia `I_c` about the centre of mass (body axes):
/// `M = [[I_c − m ĉĉ, m ĉ], [−m ĉ, m I]]`, so that `½ vᵀ M v` is the kinetic energy.
pub fn spatial_inertia(mass: f64, com: &Vec3, inertia_com: &Mat3) -> Mat6 {
    let c = hat(com);
    let mut m = Mat6::zeros();
    m.fixed_view_mut::<3, 3>(0, 0)
        .copy_from(&(inertia_com - mass * c * c));
    m.fixed_view_mut::<3, 3>(0, 3).copy_from(&(mass * c));
    m.fixed_view_mut::<3, 3>(3, 0).copy_from(&(-mass * c));
    m.fixed_view_mut::<3, 3>(3, 3)
        .copy_from(&(mass * Mat3::identity()));
    m
}

/// A spatial inertia in compact form, `M = [[J, ĥ], [−ĥ, m I]]`: mass `m`, first moment
/// `h = m c` (`c` the centre of mass) and rotational inertia `J` about the frame origin. Every
/// rigid body's inertia has this form, and so has any sum of them (a subtree's composite), so
/// products and sums cost 24 and 13 operations instead of 36 and 36.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Inertia {
    /// Mass `m`.
    pub mass: f64,
    /// First moment `h = m c`.
    pub moment: Vec3,
    /// Rotational inertia `J = I_c − m ĉĉ` about the frame origin.
    pub rotational: Mat3,
}

impl Inertia {
    /// No mass.
    pub fn zero() -> Self {
        Self {
            mass: 0.0,
            moment: Vec3::zeros(),
            rotational: Mat3::zeros(),
        }
    }

    /// Reads `m`, `h` and `J` from the blocks of a rigid-body inertia matrix.
    pub fn from_matrix(m: &Mat6) -> Self {
        let h = m.fixed_view::<3, 3>(0, 3).into_owned();
        Self {
            mass: m[(3, 3)],
            moment: vee(&h),
            rotational: m.fixed_view::<3, 3>(0, 0).into_owned(),
        }
    }

    /// The 6×6 matrix.
    pub fn matrix(&self) -> Mat6 {
        let h = hat(&self.moment);
        let mut a = Mat6::zeros();
        a.fixed_view_mut::<3, 3>(0, 0).copy_from(&self.rotational);
        a.fixed_view_mut::<3, 3>(0, 3).copy_from(&h);
        a.fixed_view_mut::<3, 3>(3, 0).copy_from(&(-h));
        a.fixed_view_mut::<3, 3>(3, 3)
            .copy_from(&(self.mass * Mat3::identity()));
        a
    }

    /// `M v = (J ω + h × v_O, m v_O − h × ω)` for a twist `v = (ω, v_O)`.
    pub fn mul_twist(&self, v: &Vec6) -> Vec6 {
        let (w, l) = (upper(v), lower(v));
        stack(
            &(self.rotational * w + self.moment.cross(&l)),
            &(self.mass * l - self.moment.cross(&w)),
        )
    }

    /// The inertia seen in the frame `g` maps into, `Ad_g^{-T} M Ad_g^{-1}`: with `a = R h`,
    /// `h' = a + m p` and `J' = R J Rᵀ − (â p̂ + p̂ â) − m p̂ p̂`.
    pub fn transformed(&self, g: &Transform) -> Inertia {
        let (r, p) = (&g.rotation, &g.translation);
        let a = r * self.moment;
        let (ah, ph) = (hat(&a), hat(p));
        Inertia {
            mass: self.mass,
            moment: a + self.mass * p,
            rotational: r * self.rotational * r.transpose()
                - (ah * ph + ph * ah)
                - self.mass * ph * ph,
        }
    }
}

impl Inertia {
    /// The rate of change of this (world-frame) inertia when its body moves with the spatial
    /// twist `η = (ω, v)`, `−ad_ηᵀ M − M ad_η`, again in compact form: no mass change,
    /// `δh = ω × h + m v` and `δJ = ω̂ J − J ω̂ − (v̂ ĥ + ĥ v̂)` (from `J = −Σ m x̂ x̂` and
    /// `δx = ω × x + v`).
    pub fn variation(&self, eta: &Vec6) -> Inertia {
        let (w, v) = (upper(eta), lower(eta));
        let (wh, vh, hh) = (hat(&w), hat(&v), hat(&self.moment));
        let wj = wh * self.rotational;
        Inertia {
            mass: 0.0,
            moment: w.cross(&self.moment) + self.mass * v,
            rotational: wj + wj.transpose() - (vh * hh + hh * vh),
        }
    }
}

impl std::ops::AddAssign for Inertia {
    fn add_assign(&mut self, o: Inertia) {
        self.mass += o.mass;
        self.moment += o.moment;
        self.rotational += o.rotational;
    }
}

/// `Ad_g^{-T} M Ad_g^{-1}`: a body-frame spatial inertia seen in the frame that `g` maps into.
pub fn transform_inertia(g: &Transform, m: &Mat6) -> Mat6 {
    let ai = g.adjoint_inverse();
    ai.transpose() * m * ai
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::Xoshiro256PlusPlus;
    use rand::{RngExt, SeedableRng};

    fn rng() -> Xoshiro256PlusPlus {
        Xoshiro256PlusPlus::seed_from_u64(7)
    }

    fn rand_vec6(r: &mut Xoshiro256PlusPlus) -> Vec6 {
        Vec6::from_fn(|_, _| r.random_range(-1.0..1.0))
    }

    fn rand_transform(r: &mut Xoshiro256PlusPlus) -> Transform {
        let xyz = [
            r.random_range(-2.0..2.0),
            r.random_range(-2.0..2.0),
            r.random_range(-2.0..2.0),
        ];
        let rpy = [
            r.random_range(-3.0..3.0),
            r.random_range(-1.5..1.5),
            r.random_range(-3.0..3.0),
        ];
        Transform::from_xyz_rpy(xyz, rpy)
    }

    #[test]
    fn compact_inertia_matches_the_matrix_forms() {
        let mut r = rng();
        let ic = Mat3::new(0.3, 0.01, -0.02, 0.01, 0.2, 0.03, -0.02, 0.03, 0.25);
        let com = Vec3::new(0.1, -0.2, 0.05);
        let m = spatial_inertia(2.5, &com, &ic);
        let c = Inertia::from_matrix(&m);
        assert!((c.matrix() - m).norm() < 1e-14);
        let g = rand_transform(&mut r);
        let moved = c.transformed(&g);
        assert!((moved.matrix() - transform_inertia(&g, &m)).norm() < 1e-12);
        let v = rand_vec6(&mut r);
        assert!((moved.mul_twist(&v) - transform_inertia(&g, &m) * v).norm() < 1e-12);
        let mut sum = moved;
        sum += c;
        assert!((sum.matrix() - transform_inertia(&g, &m) - m).norm() < 1e-12);
        // The variation along a twist against central differences of the moved inertia, and
        // against −ad_ηᵀ M − M ad_η.
        let eta = rand_vec6(&mut r);
        let h = 1e-6;
        let at = |e: f64| c.transformed(&exp_twist(&eta, e).compose(&g)).matrix();
        let fd = (at(h) - at(-h)) / (2.0 * h);
        let exact = moved.variation(&eta).matrix();
        assert!(
            (exact - fd).norm() < 1e-8 * fd.norm(),
            "{:e}",
            (exact - fd).norm()
        );
        let mm = moved.matrix();
        assert!((exact + ad(&eta).transpose() * mm + mm * ad(&eta)).norm() < 1e-12);
    }

    /// The matrix exponential of a 4×4 matrix by its Taylor series (many terms, small norm).
    fn expm_series(a: &Matrix4<f64>) -> Matrix4<f64> {
        // Scale and square so the series converges fast.
        let k = 8;
        let scaled = a / f64::from(1u32 << k);
        let mut term = Matrix4::identity();
        let mut sum = Matrix4::identity();
        for i in 1..30 {
            term = term * scaled / f64::from(i);
            sum += term;
        }
        for _ in 0..k {
            sum = sum * sum;
        }
        sum
    }

    #[test]
    fn hat_vee_round_trip_and_cross_product() {
        let a = Vec3::new(0.3, -1.2, 2.0);
        let b = Vec3::new(-0.7, 0.4, 0.1);
        assert_eq!(vee(&hat(&a)), a);
        assert!((hat(&a) * b - a.cross(&b)).norm() < 1e-15);
        let v = Vec6::new(0.1, 0.2, 0.3, 0.4, 0.5, 0.6);
        assert_eq!(twist_vee(&twist_hat(&v)), v);
    }

    #[test]
    fn pairing_identities_of_ad_and_ad_dual() {
        let mut r = rng();
        for _ in 0..20 {
            let (v1, v2, f) = (rand_vec6(&mut r), rand_vec6(&mut r), rand_vec6(&mut r));
            let a = f.dot(&(ad(&v1) * v2));
            let b = v2.dot(&(ad_dual(&f) * v1));
            let c = -v1.dot(&(ad_dual(&f) * v2));
            assert!((a - b).abs() < 1e-14 && (a - c).abs() < 1e-14);
            assert!((ad(&v1).transpose() * f - ad_dual(&f) * v1).norm() < 1e-14);
            assert!((ad_mul(&v1, &v2) - ad(&v1) * v2).norm() < 1e-14);
            assert!((ad_transpose_mul(&v1, &f) - ad(&v1).transpose() * f).norm() < 1e-14);
        }
    }

    #[test]
    fn ad_is_the_matrix_commutator() {
        let mut r = rng();
        let (v1, v2) = (rand_vec6(&mut r), rand_vec6(&mut r));
        let (h1, h2) = (twist_hat(&v1), twist_hat(&v2));
        let bracket = twist_vee(&(h1 * h2 - h2 * h1));
        assert!((bracket - ad(&v1) * v2).norm() < 1e-14);
    }

    #[test]
    fn adjoint_is_a_homomorphism_and_matches_conjugation() {
        let mut r = rng();
        for _ in 0..20 {
            let (g, h) = (rand_transform(&mut r), rand_transform(&mut r));
            let lhs = g.compose(&h).adjoint();
            assert!((lhs - g.adjoint() * h.adjoint()).norm() < 1e-13);
            assert!((g.adjoint() * g.adjoint_inverse() - Mat6::identity()).norm() < 1e-13);
            let v = rand_vec6(&mut r);
            let conj = g.to_homogeneous() * twist_hat(&v) * g.inverse().to_homogeneous();
            assert!((twist_vee(&conj) - g.adjoint() * v).norm() < 1e-13);
            assert!((g.act_twist(&v) - g.adjoint() * v).norm() < 1e-13);
            let f = rand_vec6(&mut r);
            let ad_inv_t = g.adjoint_inverse().transpose();
            assert!((g.act_wrench(&f) - ad_inv_t * f).norm() < 1e-13);
        }
    }

    #[test]
    fn time_derivative_of_adjoint_is_ad_of_spatial_velocity() {
        // g(t) = exp(ξ t) g0 has spatial velocity ξ; d/dt Ad_g = ad_ξ Ad_g.
        let mut r = rng();
        let g0 = rand_transform(&mut r);
        let xi = rand_vec6(&mut r);
        let at = |t: f64| exp_twist(&xi, t).compose(&g0).adjoint();
        let h = 1e-5;
        let fd = (at(h) - at(-h)) / (2.0 * h);
        assert!((fd - ad(&xi) * g0.adjoint()).norm() < 1e-8);
    }

    #[test]
    fn exp_matches_the_matrix_series() {
        let mut r = rng();
        for _ in 0..20 {
            let s = rand_vec6(&mut r);
            let theta = r.random_range(-3.0..3.0);
            let g = exp_twist(&s, theta).to_homogeneous();
            let series = expm_series(&(twist_hat(&s) * theta));
            assert!((g - series).norm() < 1e-12, "{}", (g - series).norm());
        }
        let pure = Vec6::new(0.0, 0.0, 0.0, 1.0, -2.0, 0.5);
        let g = exp_twist(&pure, 0.3).to_homogeneous();
        assert!((g - expm_series(&(twist_hat(&pure) * 0.3))).norm() < 1e-14);
    }

    #[test]
    fn inertia_transform_preserves_kinetic_energy() {
        let mut r = rng();
        let c = Vec3::new(0.1, -0.2, 0.3);
        let ic = Mat3::new(0.5, 0.01, 0.02, 0.01, 0.4, 0.03, 0.02, 0.03, 0.3);
        let m = spatial_inertia(2.0, &c, &ic);
        let g = rand_transform(&mut r);
        let v = rand_vec6(&mut r);
        let vbar = g.act_twist(&v);
        let mbar = transform_inertia(&g, &m);
        assert!((vbar.dot(&(mbar * vbar)) - v.dot(&(m * v))).abs() < 1e-12);
        // Kinetic energy from first principles: ½ m |v_c|² + ½ ωᵀ I_c ω.
        let w = upper(&v);
        let vc = lower(&v) + w.cross(&c);
        let ke = 0.5 * 2.0 * vc.norm_squared() + 0.5 * w.dot(&(ic * w));
        assert!((0.5 * v.dot(&(m * v)) - ke).abs() < 1e-14);
    }
}

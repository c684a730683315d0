//! `Gf2_192` = GF(2^64)\[y\] / (y³ + y + 1), stored as three `Gf2_64`
//! coefficients `(c0, c1, c2)` (`#[repr(C)]`, lowest first).
//!
//! y³ + y + 1 is irreducible over GF(2^64) (its roots lie in GF(8), which
//! GF(2^64) does not contain since 3 ∤ 64). A base-field twiddle scales the
//! three coefficients alike and addition is coefficientwise, so a transform
//! over n `Gf2_192` lanes with base-field twiddles is exactly the `Gf2_64`
//! transform over 3n lanes: extension data runs on the base kernels through
//! [`ExtensionOf::as_base_slice_mut`].

use super::{impl_field_ops, BinaryField, ExtensionOf, Field, Gf2_64};
use alloc::vec::Vec;

/// An element of GF(2^192) as a cubic extension of GF(2^64).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(C)]
pub struct Gf2_192(pub [Gf2_64; 3]);

impl Gf2_192 {
    /// 0.
    pub const ZERO: Self = Self([Gf2_64::ZERO; 3]);
    /// 1.
    pub const ONE: Self = Self([Gf2_64::ONE, Gf2_64::ZERO, Gf2_64::ZERO]);

    /// The element c0 + c1·y + c2·y².
    pub const fn new(c0: Gf2_64, c1: Gf2_64, c2: Gf2_64) -> Self {
        Self([c0, c1, c2])
    }

    #[inline(always)]
    const fn add_impl(self, rhs: Self) -> Self {
        let (a, b) = (self.0, rhs.0);
        Self([
            Gf2_64::new(a[0].bits() ^ b[0].bits()),
            Gf2_64::new(a[1].bits() ^ b[1].bits()),
            Gf2_64::new(a[2].bits() ^ b[2].bits()),
        ])
    }

    #[inline(always)]
    const fn sub_impl(self, rhs: Self) -> Self {
        self.add_impl(rhs)
    }

    /// Schoolbook product, then y³ = y + 1 and y⁴ = y² + y.
    #[inline]
    fn mul_impl(self, rhs: Self) -> Self {
        let ([a0, a1, a2], [b0, b1, b2]) = (self.0, rhs.0);
        let c0 = a0 * b0;
        let c1 = a0 * b1 + a1 * b0;
        let c2 = a0 * b2 + a1 * b1 + a2 * b0;
        let c3 = a1 * b2 + a2 * b1;
        let c4 = a2 * b2;
        Self([c0 + c3, c1 + c3 + c4, c2 + c4])
    }

    /// a^(2^64): the Frobenius of GF(2^192) over GF(2^64).
    fn frobenius(self) -> Self {
        (0..64).fold(self, |x, _| x * x)
    }
}

impl_field_ops!(Gf2_192);

impl core::fmt::Debug for Gf2_192 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "({:#x}, {:#x}, {:#x})",
            self.0[0].bits(),
            self.0[1].bits(),
            self.0[2].bits()
        )
    }
}

impl Field for Gf2_192 {
    const NAME: &'static str = "Gf2_192";
    type Twiddle = Self;

    #[inline(always)]
    fn prepare_twiddle(w: Self) -> Self {
        w
    }

    #[inline(always)]
    fn mul_twiddle(self, w: Self) -> Self {
        self * w
    }

    /// Embeds the `Gf2_64` element with bit pattern `x`.
    fn from_u64(x: u64) -> Self {
        Self([Gf2_64::new(x), Gf2_64::ZERO, Gf2_64::ZERO])
    }

    /// The bit pattern of c0 (the whole element only for base-field values).
    fn to_canonical_u64(self) -> u64 {
        self.0[0].bits()
    }

    /// a⁻¹ = (a^q · a^(q²)) / N(a), with q = 2^64 and the norm
    /// N(a) = a · a^q · a^(q²) in GF(2^64).
    fn inverse(self) -> Option<Self> {
        if self == Self::ZERO {
            return None;
        }
        let a_q = self.frobenius();
        let a_q2 = a_q.frobenius();
        let conjugates = a_q * a_q2;
        let norm = (self * conjugates).0[0];
        let norm_inv = Self::from_base(norm.inverse()?);
        Some(conjugates * norm_inv)
    }
}

impl BinaryField for Gf2_192 {
    const DEGREE: usize = 192;

    /// x^(i mod 64) · y^(i / 64).
    fn standard_basis(i: usize) -> Self {
        let mut c = [Gf2_64::ZERO; 3];
        c[i / 64] = Gf2_64::standard_basis(i % 64);
        Self(c)
    }

    fn cantor_basis(dim: usize) -> Vec<Self> {
        Gf2_64::cantor_basis(dim)
            .into_iter()
            .map(Self::from_base)
            .collect()
    }
}

// SAFETY: `#[repr(C)]` over `[Gf2_64; 3]`: three base coefficients, lowest
// first, no padding.
unsafe impl ExtensionOf<Gf2_64> for Gf2_192 {
    type Degree = typenum::U3;

    fn coefficient(&self, i: usize) -> Gf2_64 {
        self.0[i]
    }

    fn from_coefficients(mut f: impl FnMut(usize) -> Gf2_64) -> Self {
        Self([f(0), f(1), f(2)])
    }
}

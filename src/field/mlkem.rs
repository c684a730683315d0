//! `MlKem`: integers modulo q = 3329, the ML-KEM (FIPS 203) coefficient ring.
//!
//! An element stores its canonical residue in `[0, q)` as an `i16`, so a
//! polynomial `[MlKem; 256]` has exactly the memory layout of the standard's
//! coefficient arrays. Multiplication uses signed Montgomery reduction with
//! R = 2^16 (as mlkem-native does); twiddles are kept in Montgomery form
//! (`w·R mod q`) so that multiplying a coefficient by a twiddle costs one
//! Montgomery reduction and stays in the plain domain:
//! `montgomery_reduce(a · wR) = a·w`.
//!
//! Constant time on values: construction (`new`, `from_u64`, without a
//! division), `+`, `−`, `×`, `pow` (public exponent) and the twiddle
//! product are branch-free and index-free. Not constant time: `inverse`
//! (`None` reveals a zero), and the derived `==`/`Hash` and `is_zero`.

use super::{impl_field_ops, Field, TwoAdicField};

/// The ML-KEM modulus.
pub const Q: i16 = 3329;
/// q⁻¹ mod 2^16, as a signed 16-bit value (62209 = −3327).
pub const QINV: i16 = -3327;
/// R² mod q with R = 2^16 (= 1353): `montgomery_reduce(a · R2) = a·R`.
pub const R2: i16 = ((1i64 << 32) % Q as i64) as i16;

/// Signed Montgomery reduction: for `|a| < q·2^15` returns `r ≡ a·2^−16`
/// (mod q) with `|r| < q`.
#[inline(always)]
pub const fn montgomery_reduce(a: i32) -> i16 {
    let t = (a as i16).wrapping_mul(QINV);
    ((a - (t as i32) * (Q as i32)) >> 16) as i16
}

/// `a·b·2^−16 mod q` for `|a·b| < q·2^15`, result `|r| < q`.
#[inline(always)]
pub const fn fqmul(a: i16, b: i16) -> i16 {
    montgomery_reduce(a as i32 * b as i32)
}

/// Barrett reduction of any `i16` to the centred range `|r| ≤ q/2 + 1 < q`
/// (v = round(2^26/q) = 20159, as mlkem-native).
#[inline(always)]
pub const fn barrett_reduce(a: i16) -> i16 {
    const V: i32 = ((1i32 << 26) + Q as i32 / 2) / Q as i32;
    let t = ((V * a as i32 + (1 << 25)) >> 26) as i16;
    a.wrapping_sub(t.wrapping_mul(Q))
}

/// Maps `|a| < 2^15` to its canonical residue in `[0, q)` without branches
/// (Barrett with v = round(2^26/q) = 20159, then one conditional subtraction
/// done by masking).
#[inline(always)]
pub const fn reduce_canonical(a: i16) -> i16 {
    let r = barrett_reduce(a);
    // Add q if negative, then subtract q if ≥ q: both by masks.
    let r = r + ((r >> 15) & Q);
    let s = r - Q;
    s + ((s >> 15) & Q)
}

/// An integer modulo 3329 in canonical form.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(transparent)]
pub struct MlKem(i16);

impl MlKem {
    /// The modulus q = 3329.
    pub const MODULUS: u64 = Q as u64;
    /// 0.
    pub const ZERO: Self = Self(0);
    /// 1.
    pub const ONE: Self = Self(1);

    /// The residue of `x` (any `i16`, e.g. a lazily reduced coefficient).
    #[inline(always)]
    pub const fn new(x: i16) -> Self {
        Self(reduce_canonical(x))
    }

    /// The element of `r` for `|r| < q` (a Montgomery product's range):
    /// adds q to a negative `r` by a mask, nothing else.
    #[inline(always)]
    pub(crate) const fn from_centred(r: i16) -> Self {
        Self(r + ((r >> 15) & Q))
    }

    /// The canonical residue in `[0, q)`.
    #[inline(always)]
    pub const fn value(self) -> i16 {
        self.0
    }

    #[inline(always)]
    const fn add_impl(self, rhs: Self) -> Self {
        let s = self.0 + rhs.0 - Q;
        Self(s + ((s >> 15) & Q))
    }

    #[inline(always)]
    const fn sub_impl(self, rhs: Self) -> Self {
        let s = self.0 - rhs.0;
        Self(s + ((s >> 15) & Q))
    }

    #[inline(always)]
    const fn mul_impl(self, rhs: Self) -> Self {
        // a·b·R⁻¹, then ·R²·R⁻¹ to cancel: two reductions, both |r| < q.
        let r = fqmul(fqmul(self.0, rhs.0), R2);
        Self(r + ((r >> 15) & Q))
    }
}

impl_field_ops!(MlKem);

impl core::fmt::Debug for MlKem {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl core::fmt::Display for MlKem {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl Field for MlKem {
    const NAME: &'static str = "MlKem";
    /// `w·R mod q` (Montgomery form), in `(−q, q)`.
    type Twiddle = i16;

    #[inline(always)]
    fn prepare_twiddle(w: Self) -> i16 {
        fqmul(w.0, R2)
    }

    #[inline(always)]
    fn mul_twiddle(self, w: i16) -> Self {
        let r = fqmul(self.0, w);
        Self(r + ((r >> 15) & Q))
    }

    fn from_u64(x: u64) -> Self {
        Self(super::lattice::reduce_u64(x, Q as u64) as i16)
    }

    fn to_canonical_u64(self) -> u64 {
        self.0 as u64
    }

    fn inverse(self) -> Option<Self> {
        (self.0 != 0).then(|| self.pow(Q as u64 - 2))
    }
}

impl TwoAdicField for MlKem {
    /// q − 1 = 3328 = 2^8 · 13.
    const TWO_ADICITY: usize = 8;

    /// 3 generates (Z/3329)^×.
    fn multiplicative_generator() -> Self {
        Self(3)
    }

    /// ζ = 17 is the primitive 256th root of FIPS 203; smaller roots are its
    /// squares.
    fn two_adic_generator(bits: usize) -> Option<Self> {
        (bits <= Self::TWO_ADICITY).then(|| Self(17).pow(1 << (Self::TWO_ADICITY - bits)))
    }
}

impl super::lattice::LatticeField for MlKem {
    type Raw = i16;
    const Q: u64 = Q as u64;
    /// 9·q = 29961 < 2^15, and |a·w| < 9·q² < q·2^15 for Montgomery products.
    const MAX_BOUND: u32 = 9;

    #[inline(always)]
    fn montgomery_mul(a: i16, w: i16) -> i16 {
        fqmul(a, w)
    }

    #[inline(always)]
    fn barrett_reduce(a: i16) -> i16 {
        barrett_reduce(a)
    }

    /// [`reduce_canonical`] with its masks behind
    /// [`opaque`](super::lattice::opaque), so no compiler turns them into
    /// a conditional move.
    #[inline(always)]
    fn canonical(a: i16) -> i16 {
        use super::lattice::opaque;
        let r = barrett_reduce(a);
        let r = r + (opaque(i32::from(r >> 15)) as i16 & Q);
        let s = r - Q;
        s + (opaque(i32::from(s >> 15)) as i16 & Q)
    }

    fn from_raw_residue(a: i16) -> Self {
        Self::new(a)
    }

    fn raw_slice(data: &mut [Self]) -> &mut [i16] {
        // SAFETY: `MlKem` is `repr(transparent)` over `i16`, so the slice has
        // the same layout; lattice kernels write back canonical values.
        unsafe { core::slice::from_raw_parts_mut(data.as_mut_ptr().cast::<i16>(), data.len()) }
    }
}

super::lattice::raw_views!(MlKem, i16, Q);

//! `MlDsa`: integers modulo q = 8380417 = 2^23 − 2^13 + 1, the ML-DSA
//! (FIPS 204) coefficient ring.
//!
//! An element stores its canonical residue in `[0, q)` as an `i32` (the
//! standard's coefficient layout). Multiplication uses signed Montgomery
//! reduction with R = 2^32; twiddles are kept in Montgomery form (`w·R mod q`)
//! so that a coefficient times a twiddle is one reduction and stays in the
//! plain domain.
//!
//! Constant time on values: construction (`new`, `from_u64`, without a
//! division), `+`, `−`, `×`, `pow` (public exponent) and the twiddle
//! product are branch-free and index-free. Not constant time: `inverse`
//! (`None` reveals a zero), and the derived `==`/`Hash` and `is_zero`.

use super::lattice::LatticeField;
use super::{impl_field_ops, Field, TwoAdicField};

/// The ML-DSA modulus.
pub const Q: i32 = 8_380_417;
/// q⁻¹ mod 2^32 (58728449).
pub const QINV: i32 = {
    let mut inv: u32 = 1;
    let mut i = 0;
    while i < 5 {
        inv = inv.wrapping_mul(2u32.wrapping_sub((Q as u32).wrapping_mul(inv)));
        i += 1;
    }
    inv as i32
};
/// R² mod q with R = 2^32: `montgomery_reduce(a · R2) = a·R`.
pub const R2: i32 = ((1i128 << 64) % Q as i128) as i32;

/// Signed Montgomery reduction: for `|a| < q·2^31` returns `r ≡ a·2^−32`
/// (mod q) with `|r| < q`.
#[inline(always)]
pub const fn montgomery_reduce(a: i64) -> i32 {
    let t = (a as i32).wrapping_mul(QINV);
    ((a - (t as i64) * (Q as i64)) >> 32) as i32
}

/// `a·b·2^−32 mod q` for `|a·b| < q·2^31`, result `|r| < q`.
#[inline(always)]
pub const fn fqmul(a: i32, b: i32) -> i32 {
    montgomery_reduce(a as i64 * b as i64)
}

/// Any `i32` to `|r| < q` with the same residue: subtract round(a / 2^23)·q
/// (q = 2^23 − 2^13 + 1, so a / 2^23 estimates a / q to within 2).
#[inline(always)]
pub const fn barrett_reduce(a: i32) -> i32 {
    let t = (a as i64 + (1 << 22)) >> 23;
    (a as i64 - t * Q as i64) as i32
}

/// Any `i32` to its canonical residue in `[0, q)`, branch-free.
#[inline(always)]
pub const fn reduce_canonical(a: i32) -> i32 {
    let r = barrett_reduce(a); // |r| < q
    let r = r + ((r >> 31) & Q);
    let s = r - Q;
    s + ((s >> 31) & Q)
}

/// An integer modulo 8380417 in canonical form.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(transparent)]
pub struct MlDsa(i32);

impl MlDsa {
    /// The modulus q = 8380417.
    pub const MODULUS: u64 = Q as u64;
    /// 0.
    pub const ZERO: Self = Self(0);
    /// 1.
    pub const ONE: Self = Self(1);

    /// The residue of `x` (any `i32`, e.g. a lazily reduced coefficient).
    #[inline(always)]
    pub const fn new(x: i32) -> Self {
        Self(reduce_canonical(x))
    }

    /// The canonical residue in `[0, q)`.
    #[inline(always)]
    pub const fn value(self) -> i32 {
        self.0
    }

    #[inline(always)]
    const fn add_impl(self, rhs: Self) -> Self {
        let s = self.0 + rhs.0 - Q;
        Self(s + ((s >> 31) & Q))
    }

    #[inline(always)]
    const fn sub_impl(self, rhs: Self) -> Self {
        let s = self.0 - rhs.0;
        Self(s + ((s >> 31) & Q))
    }

    #[inline(always)]
    const fn mul_impl(self, rhs: Self) -> Self {
        let r = fqmul(fqmul(self.0, rhs.0), R2);
        Self(r + ((r >> 31) & Q))
    }
}

impl_field_ops!(MlDsa);

impl core::fmt::Debug for MlDsa {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl core::fmt::Display for MlDsa {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl Field for MlDsa {
    const NAME: &'static str = "MlDsa";
    /// `w·R mod q` (Montgomery form), `|w| < q`.
    type Twiddle = i32;

    #[inline(always)]
    fn prepare_twiddle(w: Self) -> i32 {
        fqmul(w.0, R2)
    }

    #[inline(always)]
    fn mul_twiddle(self, w: i32) -> Self {
        let r = fqmul(self.0, w);
        Self(r + ((r >> 31) & Q))
    }

    fn from_u64(x: u64) -> Self {
        Self(super::lattice::reduce_u64(x, Q as u64) as i32)
    }

    fn to_canonical_u64(self) -> u64 {
        self.0 as u64
    }

    fn inverse(self) -> Option<Self> {
        (self.0 != 0).then(|| self.pow(Q as u64 - 2))
    }
}

impl TwoAdicField for MlDsa {
    /// q − 1 = 2^13 · 1023.
    const TWO_ADICITY: usize = 13;

    /// 10 generates (Z/q)^× (FIPS 204 takes ζ = 1753 = 10^((q−1)/512)).
    fn multiplicative_generator() -> Self {
        Self(10)
    }

    /// Chosen so the 512th root is FIPS 204's ζ = 1753: the 2^13-th root is
    /// 111508 = (10^((q−1)/2^13))^181, the smallest odd power of that root
    /// whose 2^4-th power is 1753 (the test suite checks both facts).
    fn two_adic_generator(bits: usize) -> Option<Self> {
        (bits <= Self::TWO_ADICITY).then(|| Self(111_508).pow(1 << (Self::TWO_ADICITY - bits)))
    }
}

impl LatticeField for MlDsa {
    type Raw = i32;
    const Q: u64 = Q as u64;
    /// 255·q < 2^31, and |a·w| < 255·q² < q·2^31 for Montgomery products.
    const MAX_BOUND: u32 = 255;

    #[inline(always)]
    fn montgomery_mul(a: i32, w: i32) -> i32 {
        fqmul(a, w)
    }

    #[inline(always)]
    fn barrett_reduce(a: i32) -> i32 {
        barrett_reduce(a)
    }

    /// [`reduce_canonical`] with its masks behind
    /// [`opaque`](super::lattice::opaque), so no compiler turns them into
    /// a conditional move.
    #[inline(always)]
    fn canonical(a: i32) -> i32 {
        use super::lattice::opaque;
        let r = barrett_reduce(a);
        let r = r + (opaque(r >> 31) & Q);
        let s = r - Q;
        s + (opaque(s >> 31) & Q)
    }

    fn from_raw_residue(a: i32) -> Self {
        Self::new(a)
    }

    fn raw_slice(data: &mut [Self]) -> &mut [i32] {
        // SAFETY: `MlDsa` is `repr(transparent)` over `i32`, so the slice has
        // the same layout; lattice kernels write back canonical values.
        unsafe { core::slice::from_raw_parts_mut(data.as_mut_ptr().cast::<i32>(), data.len()) }
    }
}

super::lattice::raw_views!(MlDsa, i32, Q);

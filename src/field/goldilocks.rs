//! `Goldilocks`: p = 2^64 − 2^32 + 1, two-adicity 32.
//!
//! Elements store the canonical value in a `u64`. A 128-bit product
//! `lo + 2^64·(hi_lo + 2^32·hi_hi)` reduces with 2^64 ≡ 2^32 − 1 and
//! 2^96 ≡ −1: `lo − hi_hi + hi_lo·(2^32 − 1)`, then one conditional
//! subtraction. Roots of unity are Plonky3 0.8.0's.

use super::{impl_field_ops, Field, TwoAdicField};

const P: u64 = 0xffff_ffff_0000_0001;
/// 2^32 − 1 = 2^64 mod p.
const EPSILON: u64 = 0xffff_ffff;

/// `c` if `flag`, else 0, without a branch.
#[inline(always)]
const fn mask(c: u64, flag: bool) -> u64 {
    c & (flag as u64).wrapping_neg()
}

/// An element of the Goldilocks field.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(transparent)]
pub struct Goldilocks(u64);

impl Goldilocks {
    /// The prime p.
    pub const MODULUS: u64 = P;
    /// 0.
    pub const ZERO: Self = Self(0);
    /// 1.
    pub const ONE: Self = Self(1);

    /// The element with canonical value `x mod p` (branch-free: data-dependent
    /// branches mispredict on random data).
    #[inline(always)]
    pub const fn new(x: u64) -> Self {
        let (d, borrow) = x.overflowing_sub(P);
        // x < p: keep x; else x − p.
        Self(d.wrapping_add(mask(P, borrow)))
    }

    /// The canonical value.
    #[inline(always)]
    pub const fn value(self) -> u64 {
        self.0
    }

    /// `x mod p` for a 128-bit x.
    #[inline(always)]
    pub const fn reduce128(x: u128) -> Self {
        let lo = x as u64;
        let hi = (x >> 64) as u64;
        let hi_hi = hi >> 32;
        let hi_lo = hi & EPSILON;
        // lo − hi_hi (mod p): on borrow, subtract EPSILON (adding 2^64 − p... ≡ −2^32+1).
        let (t0, borrow) = lo.overflowing_sub(hi_hi);
        let t0 = t0.wrapping_sub(mask(EPSILON, borrow));
        let t1 = hi_lo * EPSILON;
        let (t2, carry) = t0.overflowing_add(t1);
        let t2 = t2.wrapping_add(mask(EPSILON, carry));
        Self::new(t2)
    }
}

impl Goldilocks {
    /// This element as ±2^k with k < 96, if it is one: the 192 powers of 2
    /// (2 has order 192, 2^96 = −1), among them every 64th root of unity and
    /// so every twiddle of a DFT's six smallest layers. 2^k is the word 2^k
    /// for k < 64 and 2^(k−64)·(2^32 − 1) for 64 ≤ k < 96 (2^64 ≡ 2^32 − 1);
    /// −2^k is p minus that. Multiplying by such an element takes shifts
    /// instead of a 128-bit product (the AVX-512 kernel's shift butterflies).
    #[cfg_attr(
        not(target_arch = "x86_64"),
        allow(dead_code, reason = "only the AVX-512 kernel multiplies by shifts")
    )]
    pub(crate) fn signed_power_of_two(self) -> Option<(u32, bool)> {
        let exponent = |v: u64| {
            if v.is_power_of_two() {
                return Some(v.trailing_zeros());
            }
            let q = v / EPSILON;
            (v.is_multiple_of(EPSILON) && q.is_power_of_two() && q.trailing_zeros() < 32)
                .then(|| 64 + q.trailing_zeros())
        };
        exponent(self.0)
            .map(|k| (k, false))
            .or_else(|| exponent(P - self.0).map(|k| (k, true)))
    }

    #[inline(always)]
    fn add_impl(self, rhs: Self) -> Self {
        let (s, carry) = self.0.overflowing_add(rhs.0);
        // On carry the true sum is s + 2^64 ≡ s + EPSILON, and s + EPSILON < p.
        Self::new(s.wrapping_add(mask(EPSILON, carry)))
    }

    #[inline(always)]
    fn sub_impl(self, rhs: Self) -> Self {
        let (d, borrow) = self.0.overflowing_sub(rhs.0);
        Self(d.wrapping_add(mask(P, borrow)))
    }

    #[inline(always)]
    fn mul_impl(self, rhs: Self) -> Self {
        Self::reduce128(self.0 as u128 * rhs.0 as u128)
    }
}

impl_field_ops!(Goldilocks);

impl core::fmt::Debug for Goldilocks {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl core::fmt::Display for Goldilocks {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl Field for Goldilocks {
    const NAME: &'static str = "Goldilocks";
    type Twiddle = Self;

    #[inline(always)]
    fn prepare_twiddle(w: Self) -> Self {
        w
    }

    #[inline(always)]
    fn mul_twiddle(self, w: Self) -> Self {
        self * w
    }

    fn from_u64(x: u64) -> Self {
        Self::new(x)
    }

    fn to_canonical_u64(self) -> u64 {
        self.0
    }

    fn inverse(self) -> Option<Self> {
        (self.0 != 0).then(|| self.pow(P - 2))
    }
}

impl TwoAdicField for Goldilocks {
    const TWO_ADICITY: usize = 32;

    /// 7, as Plonky3's `Goldilocks::GENERATOR`.
    fn multiplicative_generator() -> Self {
        Self(7)
    }

    /// Plonky3 0.8.0's `TWO_ADIC_GENERATORS[32]` = 0x185629dcda58878c and its
    /// repeated squares.
    fn two_adic_generator(bits: usize) -> Option<Self> {
        (bits <= 32).then(|| Self(0x1856_29dc_da58_878c).pow(1 << (32 - bits)))
    }
}

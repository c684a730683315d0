//! `BabyBear`: p = 2^31 − 2^27 + 1 = 2013265921, two-adicity 27.
//!
//! Elements are stored in Montgomery form `x·2^32 mod p` in a `u32`, the
//! representation Plonky3 0.8.0 uses, so slices of either crate's elements
//! hold the same bits. Twiddles are plain elements (already Montgomery form).

use super::{impl_field_ops, Field, TwoAdicField};

const P: u32 = 0x7800_0001;
/// p⁻¹ mod 2^32 (Newton iteration: each step doubles the correct low bits).
const P_INV: u32 = {
    let mut inv: u32 = 1;
    let mut i = 0;
    while i < 5 {
        inv = inv.wrapping_mul(2u32.wrapping_sub(P.wrapping_mul(inv)));
        i += 1;
    }
    inv
};
/// 2^64 mod p: `monty_reduce(x · R2) = x·2^32 mod p` converts into Montgomery form.
const R2: u64 = ((1u128 << 64) % P as u128) as u64;

/// `x · 2^−32 mod p` for `x < p · 2^32`, result in `[0, p)`, branch-free.
#[inline(always)]
const fn monty_reduce(x: u64) -> u32 {
    let m = (x as u32).wrapping_mul(P_INV);
    let u = m as u64 * P as u64;
    let (d, borrow) = x.overflowing_sub(u);
    let hi = (d >> 32) as u32;
    hi.wrapping_add(P & (borrow as u32).wrapping_neg())
}

/// An element of the BabyBear field.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(transparent)]
pub struct BabyBear(u32);

impl BabyBear {
    /// The prime p.
    pub const MODULUS: u64 = P as u64;
    /// 0.
    pub const ZERO: Self = Self(0);
    /// 1 (Montgomery form of 1 is 2^32 mod p).
    pub const ONE: Self = Self(((1u64 << 32) % P as u64) as u32);

    /// The element with canonical value `x mod p`.
    #[inline]
    pub const fn new(x: u32) -> Self {
        Self(monty_reduce((x % P) as u64 * R2))
    }

    /// The raw Montgomery-form word (`x·2^32 mod p`), as Plonky3 stores it.
    #[inline(always)]
    pub const fn to_monty(self) -> u32 {
        self.0
    }

    /// The element whose Montgomery-form word is `m`, `None` unless `m < p`.
    #[inline]
    pub const fn from_monty(m: u32) -> Option<Self> {
        if m < P {
            Some(Self(m))
        } else {
            None
        }
    }

    #[inline(always)]
    const fn add_impl(self, rhs: Self) -> Self {
        let s = self.0 + rhs.0; // < 2p < 2^32
        let (d, borrow) = s.overflowing_sub(P);
        Self(d.wrapping_add(P & (borrow as u32).wrapping_neg()))
    }

    #[inline(always)]
    const fn sub_impl(self, rhs: Self) -> Self {
        let (d, borrow) = self.0.overflowing_sub(rhs.0);
        Self(d.wrapping_add(P & (borrow as u32).wrapping_neg()))
    }

    #[inline(always)]
    const fn mul_impl(self, rhs: Self) -> Self {
        Self(monty_reduce(self.0 as u64 * rhs.0 as u64))
    }
}

impl_field_ops!(BabyBear);

impl core::fmt::Debug for BabyBear {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}", self.to_canonical_u64())
    }
}

impl core::fmt::Display for BabyBear {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}", self.to_canonical_u64())
    }
}

impl Field for BabyBear {
    const NAME: &'static str = "BabyBear";
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
        Self::new((x % P as u64) as u32)
    }

    fn to_canonical_u64(self) -> u64 {
        monty_reduce(self.0 as u64) as u64
    }

    fn inverse(self) -> Option<Self> {
        (self.0 != 0).then(|| self.pow(P as u64 - 2))
    }
}

impl TwoAdicField for BabyBear {
    const TWO_ADICITY: usize = 27;

    /// 31, as Plonky3's `BabyBear::GENERATOR`.
    fn multiplicative_generator() -> Self {
        Self::new(31)
    }

    /// Plonky3 0.8.0's choice: the 2^27-th root 0x1a427a41 = 31^((p−1)/2^27)
    /// and its repeated squares.
    fn two_adic_generator(bits: usize) -> Option<Self> {
        (bits <= Self::TWO_ADICITY)
            .then(|| Self::new(0x1a42_7a41).pow(1 << (Self::TWO_ADICITY - bits)))
    }
}

//! `Gf2_64`: GF(2)[x] / (x^64 + x^4 + x^3 + x + 1).
//!
//! Bit i of the `u64` is the coefficient of x^i; x is a primitive element.
//! Multiplication is one 64×64 carry-less multiply to 128 bits followed by
//! the shift-XOR reduction (two folds of the high word by x^4 + x^3 + x + 1).
//! The carry-less multiply uses the CPU instruction (`pclmulqdq`, `pmull`)
//! when run-time detection finds it, and a constant-time portable loop
//! otherwise.

use super::{impl_field_ops, BinaryField, Field};
use alloc::vec::Vec;

/// An element of GF(2^64).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(transparent)]
pub struct Gf2_64(u64);

impl Gf2_64 {
    /// 0.
    pub const ZERO: Self = Self(0);
    /// 1.
    pub const ONE: Self = Self(1);

    /// The element whose polynomial coefficients are the bits of `bits`.
    #[inline(always)]
    pub const fn new(bits: u64) -> Self {
        Self(bits)
    }

    /// The bit pattern (coefficient of x^i in bit i).
    #[inline(always)]
    pub const fn bits(self) -> u64 {
        self.0
    }

    #[inline(always)]
    const fn add_impl(self, rhs: Self) -> Self {
        Self(self.0 ^ rhs.0)
    }

    #[inline(always)]
    const fn sub_impl(self, rhs: Self) -> Self {
        Self(self.0 ^ rhs.0)
    }

    #[inline(always)]
    fn mul_impl(self, rhs: Self) -> Self {
        let (lo, hi) = clmul(self.0, rhs.0);
        Self(reduce(lo, hi))
    }
}

/// Reduces `lo + hi·x^64` modulo x^64 + x^4 + x^3 + x + 1.
///
/// `hi·x^64 ≡ hi·(x^4 + x^3 + x + 1)`; the bits of that product above x^63
/// are `s = (hi>>63) ^ (hi>>61) ^ (hi>>60)`, folded once more.
#[inline(always)]
pub const fn reduce(lo: u64, hi: u64) -> u64 {
    let s = (hi >> 63) ^ (hi >> 61) ^ (hi >> 60);
    let v = hi ^ s;
    lo ^ v ^ (v << 1) ^ (v << 3) ^ (v << 4)
}

/// Entry t (t = the top nibble of a product's high word `hi`): the second
/// fold of the reduction, s·(x^4 + x^3 + x + 1) with
/// s = (hi >> 63) ⊕ (hi >> 61) ⊕ (hi >> 60) (see [`reduce`]). The SIMD kernels look it up with a byte shuffle
/// (`vpshufb`, `tbl`) in place of three shifts and two XORs.
/// GF(2)-linear in t, at most 8 bits, and 0 for t = 0.
pub(crate) const FOLD_TOP_NIBBLE: [u8; 16] = {
    let mut table = [0u8; 16];
    let mut t = 0;
    while t < 16 {
        let s = t ^ (t >> 1) ^ (t >> 3);
        table[t] = (s ^ (s << 1) ^ (s << 3) ^ (s << 4)) as u8;
        t += 1;
    }
    table
};

/// Carry-less product of two 64-bit polynomials as `(low, high)` words.
#[inline]
pub fn clmul(a: u64, b: u64) -> (u64, u64) {
    #[cfg(target_arch = "x86_64")]
    {
        if x86_has!("pclmulqdq") {
            // SAFETY: pclmulqdq (and the SSE2 baseline of x86-64) was detected just above.
            return unsafe { clmul_pclmulqdq(a, b) };
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        if aarch64_has!("aes") {
            // SAFETY: the `aes` extension (which provides PMULL) was detected just above.
            return unsafe { clmul_pmull(a, b) };
        }
    }
    clmul_portable(a, b)
}

/// Portable carry-less multiply: 64 masked shift-XOR steps, no branch or
/// index depends on the operands.
#[inline]
pub const fn clmul_portable(a: u64, b: u64) -> (u64, u64) {
    let mut lo = 0u64;
    let mut hi = 0u64;
    let mut i = 0;
    while i < 64 {
        let mask = 0u64.wrapping_sub((b >> i) & 1);
        lo ^= (a << i) & mask;
        // a >> (64 − i) for i ≥ 1; written as two shifts so i = 0 gives 0.
        hi ^= ((a >> 1) >> (63 - i)) & mask;
        i += 1;
    }
    (lo, hi)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "pclmulqdq")]
unsafe fn clmul_pclmulqdq(a: u64, b: u64) -> (u64, u64) {
    use core::arch::x86_64::*;
    let x = _mm_set_epi64x(0, a as i64);
    let y = _mm_set_epi64x(0, b as i64);
    let p = _mm_clmulepi64_si128::<0x00>(x, y);
    let lo = _mm_cvtsi128_si64(p) as u64;
    let hi = _mm_cvtsi128_si64(_mm_unpackhi_epi64(p, p)) as u64;
    (lo, hi)
}

#[cfg(target_arch = "aarch64")]
#[target_feature(enable = "aes")]
unsafe fn clmul_pmull(a: u64, b: u64) -> (u64, u64) {
    use core::arch::aarch64::*;
    let p: u128 = vmull_p64(a, b);
    (p as u64, (p >> 64) as u64)
}

impl_field_ops!(Gf2_64);

impl core::fmt::Debug for Gf2_64 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{:#x}", self.0)
    }
}

impl core::fmt::Display for Gf2_64 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{:#x}", self.0)
    }
}

impl Field for Gf2_64 {
    const NAME: &'static str = "Gf2_64";
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
        Self(x)
    }

    fn to_canonical_u64(self) -> u64 {
        self.0
    }

    /// a^(2^64 − 2) (Fermat), `None` for zero.
    fn inverse(self) -> Option<Self> {
        (self.0 != 0).then(|| self.pow(u64::MAX - 1))
    }
}

impl BinaryField for Gf2_64 {
    const DEGREE: usize = 64;

    fn standard_basis(i: usize) -> Self {
        assert!(i < 64, "Gf2_64 has a basis of 64 elements, asked for {i}");
        Self(1 << i)
    }

    fn cantor_basis(dim: usize) -> Vec<Self> {
        super::cantor::cantor_basis(dim)
    }
}

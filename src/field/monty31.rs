//! 31-bit prime fields in Montgomery form (R = 2^32): BabyBear, KoalaBear.
//!
//! Elements store `x·2^32 mod p` in a `u32`, the representation Plonky3 0.8.0
//! uses, so slices of either crate's elements hold the same bits. A field is
//! its parameters ([`MontyParams`]); arithmetic, kernels and tests are shared
//! (a new 31-bit field is a new parameter block, not a new kernel).

use super::{Field, TwoAdicField};
use core::marker::PhantomData;

/// The constants of a 31-bit Montgomery field.
pub trait MontyParams:
    Copy + Clone + Default + Eq + core::hash::Hash + Send + Sync + core::fmt::Debug + 'static
{
    /// The name plans print.
    const NAME: &'static str;
    /// The prime, < 2^31.
    const PRIME: u32;
    /// The largest k with 2^k | p − 1.
    const TWO_ADICITY: usize;
    /// The canonical value of Plonky3 0.8.0's primitive 2^TWO_ADICITY-th root
    /// of unity; smaller roots are its repeated squares.
    const TWO_ADIC_ROOT: u32;
    /// A generator of the multiplicative group (Plonky3's `GENERATOR`).
    const GENERATOR: u32;
}

/// BabyBear: p = 2^31 − 2^27 + 1, two-adicity 27.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct BabyBearParams;
impl MontyParams for BabyBearParams {
    const NAME: &'static str = "BabyBear";
    const PRIME: u32 = 0x7800_0001;
    const TWO_ADICITY: usize = 27;
    /// 0x1a427a41 = 31^((p−1)/2^27).
    const TWO_ADIC_ROOT: u32 = 0x1a42_7a41;
    const GENERATOR: u32 = 31;
}

/// KoalaBear: p = 2^31 − 2^24 + 1, two-adicity 24.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct KoalaBearParams;
impl MontyParams for KoalaBearParams {
    const NAME: &'static str = "KoalaBear";
    const PRIME: u32 = 0x7f00_0001;
    const TWO_ADICITY: usize = 24;
    /// Plonky3 0.8.0's `TWO_ADIC_GENERATORS[24]`.
    const TWO_ADIC_ROOT: u32 = 0x6ac4_9f88;
    const GENERATOR: u32 = 3;
}

/// An element of the 31-bit Montgomery field with parameters `P`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(transparent)]
pub struct Monty31<P: MontyParams> {
    value: u32,
    _params: PhantomData<P>,
}

/// BabyBear, p = 2^31 − 2^27 + 1 (Plonky3's `BabyBear`, same bits).
pub type BabyBear = Monty31<BabyBearParams>;
/// KoalaBear, p = 2^31 − 2^24 + 1 (Plonky3's `KoalaBear`, same bits).
pub type KoalaBear = Monty31<KoalaBearParams>;

impl<P: MontyParams> Monty31<P> {
    /// The prime p.
    pub const MODULUS: u64 = P::PRIME as u64;
    /// p⁻¹ mod 2^32 (Newton iteration: each step doubles the correct low bits).
    pub const P_INV: u32 = {
        let mut inv: u32 = 1;
        let mut i = 0;
        while i < 5 {
            inv = inv.wrapping_mul(2u32.wrapping_sub(P::PRIME.wrapping_mul(inv)));
            i += 1;
        }
        inv
    };
    /// 2^64 mod p: `monty_reduce(x · R2) = x·2^32 mod p`.
    const R2: u64 = ((1u128 << 64) % P::PRIME as u128) as u64;
    /// 0.
    pub const ZERO: Self = Self::from_raw(0);
    /// 1 (2^32 mod p in Montgomery form).
    pub const ONE: Self = Self::from_raw(((1u64 << 32) % P::PRIME as u64) as u32);

    const fn from_raw(value: u32) -> Self {
        Self {
            value,
            _params: PhantomData,
        }
    }

    /// `d + p` if `borrow`, else `d` (branch-free): undoes a wrapped subtraction.
    #[inline(always)]
    const fn add_p_if(d: u32, borrow: bool) -> u32 {
        d.wrapping_add(P::PRIME & (borrow as u32).wrapping_neg())
    }

    /// `x · 2^−32 mod p` for `x < p · 2^32`, result in `[0, p)`, branch-free.
    #[inline(always)]
    pub const fn monty_reduce(x: u64) -> u32 {
        let m = (x as u32).wrapping_mul(Self::P_INV);
        let u = m as u64 * P::PRIME as u64;
        let (d, borrow) = x.overflowing_sub(u);
        let hi = (d >> 32) as u32;
        hi.wrapping_add(P::PRIME & (borrow as u32).wrapping_neg())
    }

    /// The element with canonical value `x mod p`.
    #[inline]
    pub const fn new(x: u32) -> Self {
        Self::from_raw(Self::monty_reduce((x % P::PRIME) as u64 * Self::R2))
    }

    /// The canonical value in `[0, p)` (as `Goldilocks::value`; the
    /// stored word is the Montgomery form, [`to_monty`](Self::to_monty)).
    ///
    /// ```
    /// use nttfuse::BabyBear;
    /// assert_eq!(BabyBear::new(5).value(), 5);
    /// assert_eq!((BabyBear::new(0) - BabyBear::new(1)).value(), BabyBear::MODULUS as u32 - 1);
    /// ```
    #[inline]
    pub const fn value(self) -> u32 {
        Self::monty_reduce(self.value as u64)
    }

    /// The raw Montgomery-form word (`x·2^32 mod p`), as Plonky3 stores it.
    #[inline(always)]
    pub const fn to_monty(self) -> u32 {
        self.value
    }

    /// The element's plain value w and its Shoup quotient k = ⌊w·2^32/p⌋,
    /// for multiplying by it with Shoup's method: for any u32 `a`,
    /// `a·w − ⌊a·k/2^32⌋·p` lies in [0, 2p) and is ≡ a·w (mod p). Derived
    /// from the Montgomery word w̃ = w·2^32 mod p without a division:
    /// w·2^32 = k·p + w̃ gives k ≡ −w̃·p⁻¹ (mod 2^32) and w = (k·p + w̃)/2^32.
    #[inline(always)]
    pub(crate) const fn shoup(self) -> (u32, u32) {
        let m = self.value;
        let k = m.wrapping_mul(Self::P_INV).wrapping_neg();
        let w = ((k as u64 * P::PRIME as u64 + m as u64) >> 32) as u32;
        (w, k)
    }

    /// The element whose Montgomery-form word is `m`, `None` unless `m < p`.
    #[inline]
    pub const fn from_monty(m: u32) -> Option<Self> {
        if m < P::PRIME {
            Some(Self::from_raw(m))
        } else {
            None
        }
    }
}

impl<P: MontyParams> core::ops::Add for Monty31<P> {
    type Output = Self;
    #[inline(always)]
    fn add(self, rhs: Self) -> Self {
        let s = self.value + rhs.value; // < 2p < 2^32
        let (d, borrow) = s.overflowing_sub(P::PRIME);
        Self::from_raw(Self::add_p_if(d, borrow))
    }
}

impl<P: MontyParams> core::ops::Sub for Monty31<P> {
    type Output = Self;
    #[inline(always)]
    fn sub(self, rhs: Self) -> Self {
        let (d, borrow) = self.value.overflowing_sub(rhs.value);
        Self::from_raw(Self::add_p_if(d, borrow))
    }
}

impl<P: MontyParams> core::ops::Mul for Monty31<P> {
    type Output = Self;
    #[inline(always)]
    fn mul(self, rhs: Self) -> Self {
        Self::from_raw(Self::monty_reduce(self.value as u64 * rhs.value as u64))
    }
}

impl<P: MontyParams> core::ops::Neg for Monty31<P> {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        Self::ZERO - self
    }
}

impl<P: MontyParams> core::ops::AddAssign for Monty31<P> {
    fn add_assign(&mut self, rhs: Self) {
        *self = *self + rhs;
    }
}
impl<P: MontyParams> core::ops::SubAssign for Monty31<P> {
    fn sub_assign(&mut self, rhs: Self) {
        *self = *self - rhs;
    }
}
impl<P: MontyParams> core::ops::MulAssign for Monty31<P> {
    fn mul_assign(&mut self, rhs: Self) {
        *self = *self * rhs;
    }
}
impl<P: MontyParams> num_traits::Zero for Monty31<P> {
    fn zero() -> Self {
        Self::ZERO
    }
    fn is_zero(&self) -> bool {
        self.value == 0
    }
}
impl<P: MontyParams> num_traits::One for Monty31<P> {
    fn one() -> Self {
        Self::ONE
    }
}

impl<P: MontyParams> core::fmt::Debug for Monty31<P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}", self.to_canonical_u64())
    }
}

impl<P: MontyParams> core::fmt::Display for Monty31<P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}", self.to_canonical_u64())
    }
}

/// A 31-bit Montgomery field's twiddle as plans store it, prepared for
/// Shoup's multiplication: the element's canonical value w and its quotient
/// k = ⌊w·2^32/p⌋ ([`Field::Twiddle`] of [`Monty31`]).
///
/// The SIMD kernels load both words as they are (a broadcast twiddle is two
/// broadcast loads, a register of per-lane twiddles two vector loads), where
/// a Montgomery word would have to be turned into the pair on every load.
/// The product `a·w − ⌊a·k/2^32⌋·p` lies in [0, 2p) for every u32 `a`;
/// for a Montgomery word ã = a·2^32 mod p it is the Montgomery word of a·w.
///
/// ```
/// use nttfuse::{BabyBear, Field};
/// let (a, w) = (BabyBear::new(12345), BabyBear::new(678));
/// let t = BabyBear::prepare_twiddle(w);
/// assert_eq!(t.element(), w);
/// assert_eq!(a.mul_twiddle(t), a * w);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(C)]
pub struct ShoupTwiddle<P: MontyParams> {
    w: u32,
    k: u32,
    _params: PhantomData<P>,
}

impl<P: MontyParams> ShoupTwiddle<P> {
    /// The twiddle of `x`.
    #[inline(always)]
    pub const fn new(x: Monty31<P>) -> Self {
        let (w, k) = x.shoup();
        Self {
            w,
            k,
            _params: PhantomData,
        }
    }

    /// The element this twiddle multiplies by (its Montgomery word is
    /// −k·p mod 2^32: w·2^32 = k·p + w̃ with 0 ≤ w̃ < p).
    #[inline(always)]
    pub const fn element(self) -> Monty31<P> {
        Monty31::from_raw(self.k.wrapping_mul(P::PRIME).wrapping_neg())
    }

    /// A table slot holding two raw words, not a twiddle: the compact
    /// lane tables of transposed groups store two Montgomery-form twiddles
    /// per slot (`Packed::lane_table`), which only their kernels read
    /// (AVX-512's, so far).
    #[cfg(target_arch = "x86_64")]
    pub(crate) const fn word_pair(first: u32, second: u32) -> Self {
        Self {
            w: first,
            k: second,
            _params: PhantomData,
        }
    }

    /// The canonical value w.
    #[inline(always)]
    pub const fn plain(self) -> u32 {
        self.w
    }

    /// The Shoup quotient k = ⌊w·2^32/p⌋.
    #[inline(always)]
    pub const fn quotient(self) -> u32 {
        self.k
    }
}

impl<P: MontyParams> Field for Monty31<P> {
    const NAME: &'static str = P::NAME;
    type Twiddle = ShoupTwiddle<P>;

    #[inline(always)]
    fn prepare_twiddle(w: Self) -> ShoupTwiddle<P> {
        ShoupTwiddle::new(w)
    }

    /// Shoup's product: `ã·w − ⌊ã·k/2^32⌋·p` in [0, 2p), then one
    /// conditional subtraction (branch-free); the same word as `self * w`.
    #[inline(always)]
    fn mul_twiddle(self, t: ShoupTwiddle<P>) -> Self {
        let a = self.value;
        let q = ((a as u64 * t.k as u64) >> 32) as u32;
        let r = a.wrapping_mul(t.w).wrapping_sub(q.wrapping_mul(P::PRIME));
        Self::from_raw(r.min(r.wrapping_sub(P::PRIME)))
    }

    fn from_u64(x: u64) -> Self {
        Self::new((x % P::PRIME as u64) as u32)
    }

    fn to_canonical_u64(self) -> u64 {
        Self::monty_reduce(self.value as u64) as u64
    }

    fn inverse(self) -> Option<Self> {
        (self.value != 0).then(|| self.pow(P::PRIME as u64 - 2))
    }
}

impl<P: MontyParams> TwoAdicField for Monty31<P> {
    const TWO_ADICITY: usize = P::TWO_ADICITY;

    fn multiplicative_generator() -> Self {
        Self::new(P::GENERATOR)
    }

    fn two_adic_generator(bits: usize) -> Option<Self> {
        (bits <= P::TWO_ADICITY)
            .then(|| Self::new(P::TWO_ADIC_ROOT).pow(1 << (P::TWO_ADICITY - bits)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[allow(unused_imports)]
    use crate::test_prelude::*;

    /// `shoup` against its definition (a division) at the edges and at
    /// spread-out values, for both 31-bit fields.
    fn shoup_matches_division<P: MontyParams>() {
        let p = P::PRIME;
        let values = [0, 1, 2, p / 2, p - 2, p - 1]
            .into_iter()
            .chain((0..1000u64).map(|i| (i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 33) as u32 % p));
        for x in values {
            let (w, k) = Monty31::<P>::new(x).shoup();
            assert_eq!(w, x);
            assert_eq!(u64::from(k), (u64::from(x) << 32) / u64::from(p), "x = {x}");
        }
    }

    #[test]
    fn shoup_pairs_match_their_definition() {
        shoup_matches_division::<BabyBearParams>();
        shoup_matches_division::<KoalaBearParams>();
    }

    /// Plans' twiddles (`ShoupTwiddle`): the element reads back, and the
    /// scalar Shoup product is the Montgomery product bit for bit, for every
    /// pair of edge and spread-out elements (the Montgomery words 0, 1,
    /// p − 1 … among the operands as well as the values).
    fn shoup_twiddles_multiply_as_the_field<P: MontyParams>() {
        let p = P::PRIME;
        let words = [0, 1, 2, p / 2, p / 2 + 1, p - 2, p - 1];
        let elements: Vec<Monty31<P>> = words
            .iter()
            .map(|&m| Monty31::from_monty(m).unwrap())
            .chain(words.iter().map(|&x| Monty31::new(x)))
            .chain((1..40u64).map(|i| Monty31::from_u64(i.wrapping_mul(0x9e37_79b9_7f4a_7c15))))
            .collect();
        for &w in &elements {
            let t = Monty31::prepare_twiddle(w);
            assert_eq!(t.element(), w);
            assert_eq!(t.plain(), w.value());
            for &a in &elements {
                assert_eq!(a.mul_twiddle(t), a * w, "{a:?} · {w:?}");
            }
        }
    }

    #[test]
    fn shoup_twiddles_equal_montgomery_products() {
        shoup_twiddles_multiply_as_the_field::<BabyBearParams>();
        shoup_twiddles_multiply_as_the_field::<KoalaBearParams>();
    }
}

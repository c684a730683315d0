//! What a number is: the field traits and the concrete fields.
//!
//! ```text
//!             Field                 add, sub, mul, neg, inverse, canonical u64
//!            /     \
//!  TwoAdicField   BinaryField       multiplicative NTT roots | additive NTT basis
//!            \     /
//!          ExtensionOf<B>           Degree base coefficients, #[repr(C)]
//! ```
//!
//! This module imports nothing else of the crate. Each field lives in its own
//! file with its scalar arithmetic; kernels reach field-specific tricks through
//! [`Field::Twiddle`] (a twiddle prepared once at plan time, e.g. in Montgomery
//! form, so that the hot loop multiplies by it with one reduction).

use alloc::vec::Vec;
mod babybear4;
mod cantor;
mod convert;
mod gf2_192;
mod gf2_64;
mod goldilocks;
mod lattice;
pub(crate) mod mldsa;
pub(crate) mod mlkem;
mod monty31;

use core::fmt::Debug;
use core::hash::Hash;
use core::ops::{Add, AddAssign, Mul, MulAssign, Neg, Sub, SubAssign};
use num_traits::{One, Zero};
use typenum::Unsigned;

pub use babybear4::BabyBear4;
pub use cantor::{cantor_basis, solve_artin_schreier};
pub use gf2_192::Gf2_192;
pub(crate) use gf2_64::FOLD_TOP_NIBBLE;
pub use gf2_64::{clmul, Gf2_64};
pub use goldilocks::Goldilocks;
pub(crate) use lattice::LatticeField;
pub use mldsa::MlDsa;
pub use mlkem::MlKem;
pub use monty31::{
    BabyBear, BabyBearParams, KoalaBear, KoalaBearParams, Monty31, MontyParams, ShoupTwiddle,
};

/// A finite field element, stored as one fixed-size value.
///
/// Every value that arithmetic produces compares equal to the value it
/// represents; [`Field::to_canonical_u64`] returns the canonical integer
/// (residue in `[0, p)` for prime fields, the bit pattern for binary fields).
pub trait Field:
    Copy
    + Eq
    + Hash
    + Send
    + Sync
    + Debug
    + Default
    + 'static
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
    + Zero
    + One
{
    /// Short name used in plans and error messages (`"BabyBear"`).
    const NAME: &'static str;

    /// A twiddle factor prepared for fast multiplication (Montgomery form,
    /// precomputed quotient, …). Plans store twiddles in this form.
    type Twiddle: Copy + Send + Sync + Debug + 'static;

    /// Prepares `w` for [`Field::mul_twiddle`].
    fn prepare_twiddle(w: Self) -> Self::Twiddle;

    /// `self · w`, where `w` was prepared by [`Field::prepare_twiddle`].
    fn mul_twiddle(self, w: Self::Twiddle) -> Self;

    /// The field element with canonical integer `x` (reduced modulo the
    /// characteristic for prime fields; the bit pattern for binary fields).
    fn from_u64(x: u64) -> Self;

    /// The canonical integer of this element (for an extension field, of
    /// its coefficient 0: the whole element only for base-field values).
    fn to_canonical_u64(self) -> u64;

    /// The multiplicative inverse, `None` for zero.
    fn inverse(self) -> Option<Self>;

    /// `self²`.
    fn square(self) -> Self {
        self * self
    }

    /// `self^e` by square-and-multiply (the exponent is public).
    fn pow(self, mut e: u64) -> Self {
        let mut base = self;
        let mut acc = Self::one();
        while e > 0 {
            if e & 1 == 1 {
                acc *= base;
            }
            base = base.square();
            e >>= 1;
        }
        acc
    }
}

/// A field whose multiplicative group has a large power-of-two subgroup:
/// the home of multiplicative (Cooley–Tukey / Gentleman–Sande) NTTs.
pub trait TwoAdicField: Field {
    /// The largest `k` with `2^k | p − 1`.
    const TWO_ADICITY: usize;

    /// A generator of the whole multiplicative group (used for coset shifts).
    fn multiplicative_generator() -> Self;

    /// A primitive `2^bits`-th root of unity, `None` if `bits > TWO_ADICITY`.
    /// For each field the roots are those its peer ecosystem uses (Plonky3
    /// 0.8.0 for the STARK fields, FIPS 203 for ML-KEM), so transforms agree
    /// bit for bit; the smaller roots are squares of the larger ones.
    fn two_adic_generator(bits: usize) -> Option<Self>;
}

/// A field of characteristic 2 (addition is XOR): the home of the additive NTT.
pub trait BinaryField: Field {
    /// Dimension over GF(2), i.e. the field has `2^DEGREE` elements.
    const DEGREE: usize;

    /// Element `i` of the standard basis (`x^i`), `i < DEGREE`.
    fn standard_basis(i: usize) -> Self;

    /// The first `dim` elements of the Cantor basis (v_0 = 1,
    /// v_i² + v_i = v_(i−1)), in the convention of Plonky3's p3-binary-dft.
    fn cantor_basis(dim: usize) -> Vec<Self>;
}

/// An extension field laid out as `Degree` base-field coefficients
/// (`#[repr(C)]`, lowest coefficient first).
///
/// A transform over `n` extension lanes whose twiddles lie in the base field is
/// the base transform over `Degree · n` lanes, so extensions need no kernels
/// of their own: [`ExtensionOf::as_base_slice_mut`] hands extension data to a
/// base-field plan. Every field is trivially an extension of degree 1 of itself.
///
/// # Safety
/// Implementors must be laid out exactly as `Degree` consecutive `B` values
/// (coefficient 0 first) with no padding and no other fields.
pub unsafe trait ExtensionOf<B: Field>: Field {
    /// The extension degree as a type-level integer.
    type Degree: Unsigned;

    /// Coefficient `i < Degree` of this element.
    fn coefficient(&self, i: usize) -> B;

    /// The element with coefficients `f(0), …, f(Degree − 1)`.
    fn from_coefficients(f: impl FnMut(usize) -> B) -> Self;

    /// Embeds a base-field element.
    fn from_base(b: B) -> Self {
        Self::from_coefficients(|i| if i == 0 { b } else { B::zero() })
    }

    /// The base-field coefficients of a slice of extension elements, in
    /// memory order (`Degree` per element): the data a base-field plan over
    /// `Degree ×` the lanes transforms.
    fn as_base_slice_mut(data: &mut [Self]) -> &mut [B] {
        let len = data.len() * Self::Degree::USIZE;
        // SAFETY: the trait's contract: each element is `Degree` consecutive
        // `B` values, so the slice is `len` initialised `B`s with B's alignment.
        unsafe { core::slice::from_raw_parts_mut(data.as_mut_ptr().cast::<B>(), len) }
    }

    /// Read-only [`ExtensionOf::as_base_slice_mut`].
    fn as_base_slice(data: &[Self]) -> &[B] {
        let len = data.len() * Self::Degree::USIZE;
        // SAFETY: as in `as_base_slice_mut`.
        unsafe { core::slice::from_raw_parts(data.as_ptr().cast::<B>(), len) }
    }
}

macro_rules! impl_trivial_extension {
    ($($t:ty),*) => {$(
        // SAFETY: an element is one base element.
        unsafe impl ExtensionOf<$t> for $t {
            type Degree = typenum::U1;
            fn coefficient(&self, _i: usize) -> $t {
                *self
            }
            fn from_coefficients(mut f: impl FnMut(usize) -> $t) -> Self {
                f(0)
            }
        }
    )*};
}
impl_trivial_extension!(MlKem, MlDsa, Goldilocks, Gf2_64);

// SAFETY: an element is one base element.
unsafe impl<P: MontyParams> ExtensionOf<Monty31<P>> for Monty31<P> {
    type Degree = typenum::U1;
    fn coefficient(&self, _i: usize) -> Self {
        *self
    }
    fn from_coefficients(mut f: impl FnMut(usize) -> Self) -> Self {
        f(0)
    }
}

/// Implements the operator traits of a field from `add`, `sub`, `mul`, `neg`
/// inherent `const fn`s, plus `Zero`/`One`.
macro_rules! impl_field_ops {
    ($t:ty) => {
        impl core::ops::Add for $t {
            type Output = Self;
            #[inline(always)]
            fn add(self, rhs: Self) -> Self {
                <$t>::add_impl(self, rhs)
            }
        }
        impl core::ops::Sub for $t {
            type Output = Self;
            #[inline(always)]
            fn sub(self, rhs: Self) -> Self {
                <$t>::sub_impl(self, rhs)
            }
        }
        impl core::ops::Mul for $t {
            type Output = Self;
            #[inline(always)]
            fn mul(self, rhs: Self) -> Self {
                <$t>::mul_impl(self, rhs)
            }
        }
        impl core::ops::Neg for $t {
            type Output = Self;
            #[inline(always)]
            fn neg(self) -> Self {
                <$t>::sub_impl(<$t>::ZERO, self)
            }
        }
        impl core::ops::AddAssign for $t {
            #[inline(always)]
            fn add_assign(&mut self, rhs: Self) {
                *self = *self + rhs;
            }
        }
        impl core::ops::SubAssign for $t {
            #[inline(always)]
            fn sub_assign(&mut self, rhs: Self) {
                *self = *self - rhs;
            }
        }
        impl core::ops::MulAssign for $t {
            #[inline(always)]
            fn mul_assign(&mut self, rhs: Self) {
                *self = *self * rhs;
            }
        }
        impl num_traits::Zero for $t {
            fn zero() -> Self {
                <$t>::ZERO
            }
            fn is_zero(&self) -> bool {
                *self == <$t>::ZERO
            }
        }
        impl num_traits::One for $t {
            fn one() -> Self {
                <$t>::ONE
            }
        }
    };
}
pub(crate) use impl_field_ops;

#[cfg(test)]
mod tests;

//! Conversions between field elements and plain integers, the same shape on
//! every field:
//!
//! - `From<small unsigned>` where every value is a residue (`u8` and `u16`
//!   into the prime fields, `u64` into `Gf2_64`), `TryFrom<integer>` where
//!   not (a value outside `[0, p)` is [`Error::NotCanonical`]: no silent
//!   reduction);
//! - `From<element>` into the integer types that hold its canonical value;
//! - `value()` reads the canonical value back on every field (`Gf2_64`'s is
//!   its bit pattern);
//! - zero-copy slice views where the element's memory is its canonical
//!   value: the lattice fields (`MlKem::try_from_raw`, …), [`Goldilocks`]
//!   and [`Gf2_64`]. `BabyBear` and `KoalaBear` store Montgomery words, so
//!   their slices convert element by element.
//!
//! ```
//! use nttfuse::{BabyBear, Gf2_64, Goldilocks, MlKem};
//! assert_eq!(MlKem::try_from(3328i16)?.value(), 3328);
//! assert!(MlKem::try_from(3329i16).is_err());
//! assert_eq!(u32::from(BabyBear::from(7u16)), 7);
//! assert_eq!(Goldilocks::try_from_raw(&[1u64, 2, 3])?[2], Goldilocks::new(3));
//! assert_eq!(Gf2_64::from_raw(&[5u64])[0].value(), 5);
//! # Ok::<(), nttfuse::Error>(())
//! ```

use super::{BabyBear, BabyBear4, Gf2_192, Gf2_64, Goldilocks, MlDsa, MlKem, Monty31, MontyParams};
use crate::Error;

fn not_canonical(field: &'static str) -> Error {
    Error::NotCanonical { field, len: 1 }
}

/// `From` small unsigned integers (always residues) and `TryFrom` the
/// field's raw and wider integer types (checked against q), and the
/// element's value into integers that hold it.
macro_rules! lattice_conversions {
    ($field:ty, $raw:ty, $q:expr, from: [$($small:ty),*], try: [$($wide:ty),*], into: [$($out:ty),*]) => {
        $(
            impl From<$small> for $field {
                /// Every value of this type is a residue.
                fn from(x: $small) -> Self {
                    Self::new(x as $raw)
                }
            }
        )*
        $(
            impl TryFrom<$wide> for $field {
                type Error = Error;
                /// The element of canonical value `x`; `x` outside `[0, q)` is
                /// [`Error::NotCanonical`].
                fn try_from(x: $wide) -> Result<Self, Error> {
                    if (0..$q as i64).contains(&(x as i64)) && x as i64 as $wide == x {
                        Ok(Self::new(x as $raw))
                    } else {
                        Err(not_canonical(<$field as super::Field>::NAME))
                    }
                }
            }
        )*
        $(
            impl From<$field> for $out {
                /// The canonical value.
                fn from(x: $field) -> Self {
                    x.value() as $out
                }
            }
        )*
    };
}

lattice_conversions!(MlKem, i16, 3329, from: [u8], try: [i16, u16, i32, u32, i64, u64],
    into: [i16, i32, i64, u16, u32, u64]);
lattice_conversions!(MlDsa, i32, 8_380_417, from: [u8, u16], try: [i32, u32, i64, u64],
    into: [i32, i64, u32, u64]);

impl<P: MontyParams> From<u8> for Monty31<P> {
    fn from(x: u8) -> Self {
        Self::new(u32::from(x))
    }
}

impl<P: MontyParams> From<u16> for Monty31<P> {
    fn from(x: u16) -> Self {
        Self::new(u32::from(x))
    }
}

impl<P: MontyParams> TryFrom<u32> for Monty31<P> {
    type Error = Error;
    /// The element of canonical value `x`; `x ≥ p` is [`Error::NotCanonical`].
    fn try_from(x: u32) -> Result<Self, Error> {
        if u64::from(x) < Self::MODULUS {
            Ok(Self::new(x))
        } else {
            Err(not_canonical(<Self as super::Field>::NAME))
        }
    }
}

impl<P: MontyParams> TryFrom<u64> for Monty31<P> {
    type Error = Error;
    /// The element of canonical value `x`; `x ≥ p` is [`Error::NotCanonical`].
    fn try_from(x: u64) -> Result<Self, Error> {
        u32::try_from(x)
            .map_err(|_| not_canonical(<Self as super::Field>::NAME))
            .and_then(Self::try_from)
    }
}

impl<P: MontyParams> From<Monty31<P>> for u32 {
    fn from(x: Monty31<P>) -> Self {
        x.value()
    }
}

impl<P: MontyParams> From<Monty31<P>> for u64 {
    fn from(x: Monty31<P>) -> Self {
        u64::from(x.value())
    }
}

macro_rules! goldilocks_from_small {
    ($($t:ty),*) => {$(
        impl From<$t> for Goldilocks {
            fn from(x: $t) -> Self {
                Self::new(u64::from(x))
            }
        }
    )*};
}
goldilocks_from_small!(u8, u16, u32);

impl TryFrom<u64> for Goldilocks {
    type Error = Error;
    /// The element of canonical value `x`; `x ≥ p` is [`Error::NotCanonical`].
    fn try_from(x: u64) -> Result<Self, Error> {
        if x < Self::MODULUS {
            Ok(Self::new(x))
        } else {
            Err(not_canonical("Goldilocks"))
        }
    }
}

impl From<Goldilocks> for u64 {
    fn from(x: Goldilocks) -> Self {
        x.value()
    }
}

impl Goldilocks {
    /// The canonical values of `elements`, zero-copy.
    pub fn as_raw(elements: &[Self]) -> &[u64] {
        // SAFETY: `Goldilocks` is `repr(transparent)` over its canonical
        // `u64`; the length is kept.
        unsafe { core::slice::from_raw_parts(elements.as_ptr().cast(), elements.len()) }
    }

    /// `raw` as elements, zero-copy, if every word is below p;
    /// [`Error::NotCanonical`] otherwise.
    pub fn try_from_raw(raw: &[u64]) -> Result<&[Self], Error> {
        Self::check(raw)?;
        // SAFETY: `repr(transparent)`, every word canonical (checked).
        Ok(unsafe { core::slice::from_raw_parts(raw.as_ptr().cast(), raw.len()) })
    }

    /// [`try_from_raw`](Self::try_from_raw), mutable.
    pub fn try_from_raw_mut(raw: &mut [u64]) -> Result<&mut [Self], Error> {
        Self::check(raw)?;
        // SAFETY: as in `try_from_raw`; the borrow is handed on.
        Ok(unsafe { core::slice::from_raw_parts_mut(raw.as_mut_ptr().cast(), raw.len()) })
    }

    fn check(raw: &[u64]) -> Result<(), Error> {
        if raw.iter().all(|&w| w < Self::MODULUS) {
            Ok(())
        } else {
            Err(Error::NotCanonical {
                field: "Goldilocks",
                len: raw.len(),
            })
        }
    }
}

impl From<u64> for Gf2_64 {
    /// Every bit pattern is an element (bit i is the coefficient of x^i).
    fn from(bits: u64) -> Self {
        Self::new(bits)
    }
}

impl From<Gf2_64> for u64 {
    fn from(x: Gf2_64) -> Self {
        x.bits()
    }
}

impl Gf2_64 {
    /// The element's bit pattern (bit i is the coefficient of x^i): the
    /// read-back name every field shares (the same as [`bits`](Self::bits)).
    pub const fn value(self) -> u64 {
        self.bits()
    }

    /// The bit patterns of `elements`, zero-copy.
    pub fn as_raw(elements: &[Self]) -> &[u64] {
        // SAFETY: `Gf2_64` is `repr(transparent)` over `u64`.
        unsafe { core::slice::from_raw_parts(elements.as_ptr().cast(), elements.len()) }
    }

    /// `raw` as elements, zero-copy: every `u64` is one.
    pub fn from_raw(raw: &[u64]) -> &[Self] {
        // SAFETY: `repr(transparent)` over `u64`, every bit pattern valid.
        unsafe { core::slice::from_raw_parts(raw.as_ptr().cast(), raw.len()) }
    }

    /// [`from_raw`](Self::from_raw), mutable.
    pub fn from_raw_mut(raw: &mut [u64]) -> &mut [Self] {
        // SAFETY: as in `from_raw`; the borrow is handed on.
        unsafe { core::slice::from_raw_parts_mut(raw.as_mut_ptr().cast(), raw.len()) }
    }
}

impl From<[u64; 3]> for Gf2_192 {
    /// c0 + c1·y + c2·y² from the coefficients' bit patterns.
    fn from(c: [u64; 3]) -> Self {
        Self(c.map(Gf2_64::new))
    }
}

impl From<Gf2_192> for [u64; 3] {
    fn from(x: Gf2_192) -> Self {
        x.0.map(Gf2_64::bits)
    }
}

impl From<[BabyBear; 4]> for BabyBear4 {
    /// c0 + c1·X + c2·X² + c3·X³.
    fn from(c: [BabyBear; 4]) -> Self {
        Self(c)
    }
}

impl From<BabyBear4> for [BabyBear; 4] {
    fn from(x: BabyBear4) -> Self {
        x.0
    }
}

impl From<BabyBear> for BabyBear4 {
    /// The base-field element as a constant.
    fn from(x: BabyBear) -> Self {
        Self([x, BabyBear::new(0), BabyBear::new(0), BabyBear::new(0)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[allow(unused_imports)]
    use crate::test_prelude::*;

    #[test]
    fn conversions_accept_exactly_the_canonical_values() {
        assert_eq!(MlKem::try_from(0i16).unwrap().value(), 0);
        assert_eq!(MlKem::try_from(3328u64).unwrap().value(), 3328);
        for bad in [-1i64, 3329, i64::MAX, i64::MIN] {
            assert!(MlKem::try_from(bad).is_err(), "{bad}");
        }
        for bad in [-1i64, 8_380_417, i64::MAX, i64::MIN] {
            assert!(MlDsa::try_from(bad).is_err(), "{bad}");
        }
        assert!(MlKem::try_from(u64::MAX).is_err());
        assert!(MlDsa::try_from(8_380_417u32).is_err());
        assert_eq!(i32::from(MlDsa::try_from(8_380_416i32).unwrap()), 8_380_416);
        assert_eq!(u16::from(MlKem::from(200u8)), 200);
        assert!(BabyBear::try_from(2_013_265_921u32).is_err());
        assert_eq!(
            u64::from(BabyBear::try_from(2_013_265_920u64).unwrap()),
            2_013_265_920
        );
        assert!(BabyBear::try_from(1u64 << 40).is_err());
        assert!(Goldilocks::try_from(Goldilocks::MODULUS).is_err());
        assert!(Goldilocks::try_from_raw(&[0, Goldilocks::MODULUS]).is_err());
        assert_eq!(u64::from(Goldilocks::from(9u32)), 9);
        assert_eq!(u64::from(Gf2_64::from(u64::MAX)), u64::MAX);
        assert_eq!(<[u64; 3]>::from(Gf2_192::from([1, 2, 3])), [1, 2, 3]);
        let mut words = [7u64, 8];
        Gf2_64::from_raw_mut(&mut words)[1] = Gf2_64::new(9);
        assert_eq!(words, [7, 9]);
    }
}

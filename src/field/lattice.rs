//! Signed Montgomery words with deferred reduction: what lattice kernels
//! compute on.
//!
//! A lattice field's element is canonical (`[0, q)`), but inside a kernel its
//! coefficients live as raw signed words that may grow to a documented bound
//! (a multiple of q) before they are reduced. Each operation states the bound
//! it takes and the bound it returns; the planner tracks the bound through a
//! plan's register groups (and the tests drive every group at its bound).
//! Every operation is branch-free and index-free on values.

use super::Field;
use core::fmt::Debug;
use core::ops::{Add, Neg, Sub};

/// `x mod q` for an odd `q < 2^32`, without a division: a Barrett quotient
/// from one 64 × 64 → 128-bit product leaves `r < 2q`, and a mask (not a
/// branch) subtracts the last q. A `u64 %` by a constant is a multiply on
/// 64-bit targets but a call to a variable-time division routine on some
/// 32-bit ones; this is the same code everywhere.
#[inline]
pub(crate) const fn reduce_u64(x: u64, q: u64) -> u64 {
    // m = ⌊(2^64 − 1)/q⌋ = (2^64 − s)/q with 1 ≤ s < q (q odd), so
    // x·m/2^64 = x/q − x·s/(q·2^64) > x/q − 1: the quotient is ⌊x/q⌋ or one
    // less, and r < 2q. (Constant time as far as the 64 × 64-bit multiply
    // is: so on every 64-bit core, not on ones whose multiplier exits
    // early, such as the Cortex-M3.)
    let m = u64::MAX / q;
    let quotient = ((x as u128 * m as u128) >> 64) as u64;
    let r = x - quotient * q;
    let t = r.wrapping_sub(q);
    // t's top bit is set exactly when r < q (r < 2q < 2^63).
    t.wrapping_add(q & 0u64.wrapping_sub(t >> 63))
}

/// `x`, unchanged, through a value the compiler cannot see into: a sign
/// mask that passes here stays a mask. Without it LLVM turns the masked
/// conditional additions of `canonical` (`s + ((s >> 15) & q)`) into
/// `test; cmovns` on x86-64 and `tst; csel` on AArch64 wherever it
/// compiles them as scalar code (the two-column register groups), which
/// `nttfuse-ct disasm` (tests/ct) reports as secret-dependent selects.
#[inline(always)]
pub(crate) fn opaque(x: i32) -> i32 {
    #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
    {
        // A whole register (64 bits on both), so the operand needs no
        // sub-register modifier.
        let mut x = x as i64;
        // SAFETY: an empty instruction sequence: it reads and writes only
        // the register holding `x` (declared `inout`), touches no memory,
        // stack or flags (`nomem, nostack, preserves_flags`).
        unsafe {
            core::arch::asm!("/* {0} */", inout(reg) x, options(pure, nomem, nostack, preserves_flags));
        }
        x as i32
    }
    // Miri runs no inline assembly; elsewhere `black_box` is the best
    // barrier on offer.
    #[cfg(not(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri))))]
    {
        core::hint::black_box(x)
    }
}

/// A field whose kernels compute on raw signed words lazily.
pub trait LatticeField: Field<Twiddle = <Self as LatticeField>::Raw> {
    /// The raw signed word (`i16` for ML-KEM, `i32` for ML-DSA).
    type Raw: Copy
        + Debug
        + Default
        + PartialOrd
        + Send
        + Sync
        + 'static
        + Add<Output = Self::Raw>
        + Sub<Output = Self::Raw>
        + Neg<Output = Self::Raw>;

    /// The modulus q (the kernels' tests read it).
    #[cfg_attr(not(test), allow(dead_code))]
    const Q: u64;

    /// Raw words stay below `MAX_BOUND · q` in absolute value: the largest k
    /// with k·q < 2^(bits − 1), so sums and Montgomery products never overflow.
    const MAX_BOUND: u32;

    /// `a · w · R⁻¹` for `|a| < MAX_BOUND · q` and a prepared twiddle `w`
    /// (`|w| < q`); returns `|r| < q`.
    fn montgomery_mul(a: Self::Raw, w: Self::Raw) -> Self::Raw;

    /// Barrett reduction: any raw word to `|r| < q` (same residue).
    fn barrett_reduce(a: Self::Raw) -> Self::Raw;

    /// Any raw word to its canonical residue in `[0, q)`.
    fn canonical(a: Self::Raw) -> Self::Raw;

    /// The raw words of a slice of elements (same memory, `repr(transparent)`).
    fn raw_slice(data: &mut [Self]) -> &mut [Self::Raw];

    /// The element a raw word (any value) stands for (the kernels' tests
    /// use it).
    #[cfg_attr(not(test), allow(dead_code))]
    fn from_raw_residue(a: Self::Raw) -> Self;
}

/// Zero-copy views between a lattice field's elements and its raw words
/// (`repr(transparent)`), for codebases whose polynomials are `[i16; 256]`
/// or `[i32; 256]`. Raw words become elements only when every one is
/// canonical, checked in one constant-time pass.
macro_rules! raw_views {
    ($field:ty, $raw:ty, $q:expr) => {
        impl $field {
            /// The raw words of `elements` (canonical residues), zero-copy.
            ///
            /// ```
            #[doc = concat!("use nttfuse::", stringify!($field), ";")]
            #[doc = concat!("let poly = [", stringify!($field), "::new(5); 256];")]
            #[doc = concat!("let raw: &[", stringify!($raw), "] = ", stringify!($field), "::as_raw(&poly);")]
            /// assert_eq!(raw[0], 5);
            /// ```
            pub fn as_raw(elements: &[Self]) -> &[$raw] {
                // SAFETY: `Self` is `repr(transparent)` over the raw word:
                // same size, alignment and validity; the length is kept.
                unsafe { core::slice::from_raw_parts(elements.as_ptr().cast(), elements.len()) }
            }

            /// `raw` as elements, zero-copy, if every word is canonical
            /// (in `[0, q)`); [`Error::NotCanonical`](crate::Error::NotCanonical)
            /// otherwise. The check is branch-free over the words (one
            /// branch on its verdict).
            ///
            /// ```
            #[doc = concat!("use nttfuse::", stringify!($field), ";")]
            #[doc = concat!("let raw: [", stringify!($raw), "; 4] = [0, 1, 2, 3];")]
            #[doc = concat!("let poly = ", stringify!($field), "::try_from_raw(&raw)?;")]
            #[doc = concat!("assert_eq!(poly[3], ", stringify!($field), "::new(3));")]
            #[doc = concat!("assert!(", stringify!($field), "::try_from_raw(&[-1]).is_err());")]
            /// # Ok::<(), nttfuse::Error>(())
            /// ```
            pub fn try_from_raw(raw: &[$raw]) -> Result<&[Self], crate::Error> {
                Self::check_canonical(raw)?;
                // SAFETY: `repr(transparent)`, and every word is canonical
                // (the invariant of `Self`), checked just above.
                Ok(unsafe { core::slice::from_raw_parts(raw.as_ptr().cast(), raw.len()) })
            }

            /// [`try_from_raw`](Self::try_from_raw), mutable: the elements
            /// can be transformed in place and read back as raw words.
            pub fn try_from_raw_mut(raw: &mut [$raw]) -> Result<&mut [Self], crate::Error> {
                Self::check_canonical(raw)?;
                // SAFETY: as in `try_from_raw`; the borrow is handed on.
                Ok(unsafe { core::slice::from_raw_parts_mut(raw.as_mut_ptr().cast(), raw.len()) })
            }

            /// [`as_raw`](Self::as_raw) for arrays (e.g. `[_; 256]`
            /// polynomials), zero-copy.
            pub fn as_raw_array<const N: usize>(elements: &[Self; N]) -> &[$raw; N] {
                // SAFETY: `repr(transparent)`: an array of N elements is an
                // array of N words.
                unsafe { &*(elements as *const [Self; N]).cast::<[$raw; N]>() }
            }

            /// [`try_from_raw`](Self::try_from_raw) for arrays, zero-copy.
            pub fn try_from_raw_array<const N: usize>(raw: &[$raw; N]) -> Result<&[Self; N], crate::Error> {
                Self::check_canonical(raw)?;
                // SAFETY: `repr(transparent)`, every word canonical (checked).
                Ok(unsafe { &*(raw as *const [$raw; N]).cast::<[Self; N]>() })
            }

            /// [`try_from_raw_mut`](Self::try_from_raw_mut) for arrays,
            /// zero-copy.
            pub fn try_from_raw_array_mut<const N: usize>(
                raw: &mut [$raw; N],
            ) -> Result<&mut [Self; N], crate::Error> {
                Self::check_canonical(raw)?;
                // SAFETY: as in `try_from_raw_array`; the borrow is handed on.
                Ok(unsafe { &mut *(raw as *mut [$raw; N]).cast::<[Self; N]>() })
            }

            /// `Ok` if every word is in `[0, q)`: the words' sign bits and
            /// those of `q − 1 − x` are ORed together, so the pass has no
            /// branch and no index that depends on a word.
            fn check_canonical(raw: &[$raw]) -> Result<(), crate::Error> {
                let q: $raw = $q;
                let flags = raw.iter().fold(0, |acc: $raw, &x| acc | x | (q - 1).wrapping_sub(x));
                if flags < 0 {
                    Err(crate::Error::NotCanonical {
                        field: <Self as crate::field::Field>::NAME,
                        len: raw.len(),
                    })
                } else {
                    Ok(())
                }
            }
        }
    };
}
pub(crate) use raw_views;

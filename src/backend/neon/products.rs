//! The lattice products' lanes on NEON (8 × `i16`, 4 × `i32`); the kernels
//! are `backend::ring::products`'. `vpmaddwd` is `smull` + `smull2` +
//! `addp`; a 16-bit high product is `sqdmulh` halved (q is positive, so it
//! never saturates).

use crate::backend::ring::products::{
    dsa_product_entry_points, kem_product_entry_points, DsaMul, KemMul,
};
use crate::field::{mldsa, mlkem};
use core::arch::aarch64::*;

#[derive(Clone, Copy)]
pub(crate) struct Kem(int16x8_t);

/// hi16(a·b) for b ≠ −2^15: `sqdmulh` is floor(2ab / 2^16), halved.
#[inline(always)]
fn mulhi(a: int16x8_t, b: int16x8_t) -> int16x8_t {
    // SAFETY: NEON is enabled (see the impl below).
    unsafe { vshrq_n_s16::<1>(vqdmulhq_s16(a, b)) }
}

// SAFETY: NEON is enabled for every AArch64 target this crate builds for
// (a compile-time check in `backend::neon`), and the entry points enable it.
unsafe impl KemMul for Kem {
    const LANES: usize = 8;
    #[inline(always)]
    unsafe fn load(p: *const i16) -> Self {
        // SAFETY: the caller gives 8 readable words.
        Self(unsafe { vld1q_s16(p) })
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut i16) {
        // SAFETY: the caller gives 8 writable words.
        unsafe { vst1q_s16(p, self.0) }
    }
    #[inline(always)]
    fn zero() -> Self {
        // SAFETY: see the impl.
        Self(unsafe { vdupq_n_s16(0) })
    }
    #[inline(always)]
    fn madd(self, v: Self) -> Self {
        // SAFETY: see the impl.
        unsafe {
            let lo = vmull_s16(vget_low_s16(self.0), vget_low_s16(v.0));
            let hi = vmull_high_s16(self.0, v.0);
            Self(vreinterpretq_s16_s32(vpaddq_s32(lo, hi)))
        }
    }
    #[inline(always)]
    fn add32(self, b: Self) -> Self {
        // SAFETY: see the impl.
        unsafe {
            Self(vreinterpretq_s16_s32(vaddq_s32(
                vreinterpretq_s32_s16(self.0),
                vreinterpretq_s32_s16(b.0),
            )))
        }
    }
    #[inline(always)]
    fn add16(self, b: Self) -> Self {
        // SAFETY: see the impl.
        Self(unsafe { vaddq_s16(self.0, b.0) })
    }
    /// `trn1`/`trn2` gather the sums' low and high halves as `i16` pairs,
    /// then `hi − hi16(lo·q⁻¹·q)`.
    #[inline(always)]
    fn reduce_pairs(c0: Self, c1: Self) -> Self {
        // SAFETY: see the impl.
        unsafe {
            let low = vtrn1q_s16(c0.0, c1.0);
            let high = vtrn2q_s16(c0.0, c1.0);
            let t = vmulq_s16(low, vdupq_n_s16(mlkem::QINV));
            Self(vsubq_s16(high, mulhi(t, vdupq_n_s16(mlkem::Q))))
        }
    }
    #[inline(always)]
    fn montmul(self, w: Self, wq: Self) -> Self {
        // SAFETY: see the impl.
        unsafe {
            let m = vmulq_s16(self.0, wq.0);
            Self(vsubq_s16(
                mulhi(self.0, w.0),
                mulhi(m, vdupq_n_s16(mlkem::Q)),
            ))
        }
    }
    #[inline(always)]
    fn swap_pairs(self) -> Self {
        // SAFETY: see the impl.
        Self(unsafe { vrev32q_s16(self.0) })
    }
    #[inline(always)]
    fn reduce(self) -> Self {
        // SAFETY: see the impl.
        unsafe {
            let t = vrshrq_n_s16::<11>(vqdmulhq_s16(self.0, vdupq_n_s16(20159)));
            Self(vmlsq_s16(self.0, t, vdupq_n_s16(mlkem::Q)))
        }
    }
    #[inline(always)]
    fn positive(self) -> Self {
        // SAFETY: see the impl.
        unsafe {
            let q = vandq_s16(vshrq_n_s16::<15>(self.0), vdupq_n_s16(mlkem::Q));
            Self(vaddq_s16(self.0, q))
        }
    }
}

/// 4 × `i32`; its wide halves are lanes 0–1 and 2–3 as `i64` pairs.
#[derive(Clone, Copy)]
pub(crate) struct Dsa(int32x4_t);

/// `(x − m·q) / 2^32` for m = lo32(x)·q⁻¹, on an `i64` pair.
#[inline(always)]
fn reduce_half(x: int64x2_t) -> int32x2_t {
    // SAFETY: NEON is enabled (see the impl below).
    unsafe {
        let m = vmul_s32(vmovn_s64(x), vdup_n_s32(mldsa::QINV));
        vshrn_n_s64::<32>(vmlsl_s32(x, m, vdup_n_s32(mldsa::Q)))
    }
}

// SAFETY: as `Kem`'s.
unsafe impl DsaMul for Dsa {
    const LANES: usize = 4;
    #[inline(always)]
    unsafe fn load(p: *const i32) -> Self {
        // SAFETY: the caller gives 4 readable words.
        Self(unsafe { vld1q_s32(p) })
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut i32) {
        // SAFETY: the caller gives 4 writable words.
        unsafe { vst1q_s32(p, self.0) }
    }
    #[inline(always)]
    fn zero() -> Self {
        // SAFETY: see the impl.
        Self(unsafe { vdupq_n_s32(0) })
    }
    #[inline(always)]
    fn mul_wide(self, b: Self) -> (Self, Self) {
        // SAFETY: see the impl.
        unsafe {
            (
                Self(vreinterpretq_s32_s64(vmull_s32(
                    vget_low_s32(self.0),
                    vget_low_s32(b.0),
                ))),
                Self(vreinterpretq_s32_s64(vmull_high_s32(self.0, b.0))),
            )
        }
    }
    #[inline(always)]
    fn add64(self, b: Self) -> Self {
        // SAFETY: see the impl.
        unsafe {
            Self(vreinterpretq_s32_s64(vaddq_s64(
                vreinterpretq_s64_s32(self.0),
                vreinterpretq_s64_s32(b.0),
            )))
        }
    }
    #[inline(always)]
    fn reduce_wide(even: Self, odd: Self) -> Self {
        // SAFETY: see the impl.
        unsafe {
            Self(vcombine_s32(
                reduce_half(vreinterpretq_s64_s32(even.0)),
                reduce_half(vreinterpretq_s64_s32(odd.0)),
            ))
        }
    }
    #[inline(always)]
    fn times_r(self) -> Self {
        // SAFETY: see the impl.
        let r2 = Self(unsafe { vdupq_n_s32(mldsa::R2) });
        let (e, o) = self.mul_wide(r2);
        Self::reduce_wide(e, o)
    }
    #[inline(always)]
    fn twist(self) -> Self {
        // SAFETY: see the impl.
        Self(unsafe { vmulq_s32(self.0, vdupq_n_s32(mldsa::QINV)) })
    }
    #[inline(always)]
    fn mul_twisted(self, b: Self, bt: Self) -> Self {
        // SAFETY: see the impl.
        unsafe {
            let m = vmulq_s32(self.0, bt.0);
            let q = vdup_n_s32(mldsa::Q);
            let lo = vmlsl_s32(
                vmull_s32(vget_low_s32(self.0), vget_low_s32(b.0)),
                vget_low_s32(m),
                q,
            );
            let hi = vmlsl_s32(vmull_high_s32(self.0, b.0), vget_high_s32(m), q);
            Self(vcombine_s32(vshrn_n_s64::<32>(lo), vshrn_n_s64::<32>(hi)))
        }
    }
    #[inline(always)]
    fn reduce(self) -> Self {
        // SAFETY: see the impl.
        unsafe {
            let t = vrshrq_n_s32::<23>(self.0);
            Self(vmlsq_s32(self.0, t, vdupq_n_s32(mldsa::Q)))
        }
    }
    #[inline(always)]
    fn positive(self) -> Self {
        // SAFETY: see the impl.
        unsafe {
            let q = vandq_s32(vshrq_n_s32::<31>(self.0), vdupq_n_s32(mldsa::Q));
            Self(vaddq_s32(self.0, q))
        }
    }
}

kem_product_entry_points!(kem, super::Kem, "neon");
dsa_product_entry_points!(Dsa, "neon", DSA_PRODUCTS);

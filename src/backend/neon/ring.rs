//! The lattice rings on NEON, run by the generic kernels of
//! `backend::ring`: blocks of 16 q registers (ML-KEM 8 × `i16`, ML-DSA
//! 4 × `i32` per register), the first layer (ML-KEM) or two (ML-DSA) as
//! phase 1 over registers half or a quarter polynomial apart.
//!
//! Twiddle products are Barrett products with `sqrdmulh`: with the plain
//! twiddle w and w' = round(w·2^(bits−1)/q), `t = sqrdmulh(b, w')`,
//! `r = b·w − t·q` (`mul`, `mls`), |r| ≤ q for any word b. The two stages
//! are `trn1`/`trn2` on 64-bit and 32-bit elements.

use crate::backend::ring::{kem_inverse_reduces_sums_after, RingLanes};
use crate::field::{mldsa, mlkem};
use core::arch::aarch64::*;

/// The twiddle tables of the NEON kernels.
pub(crate) type KemTwiddles = crate::backend::ring::tables::Barrett<i16, 8, 16, 16>;
pub(crate) type DsaTwiddles = crate::backend::ring::tables::Barrett<i32, 4, 16, 32>;

/// ML-KEM coefficients: 8 × `i16`.
#[derive(Clone, Copy)]
pub(crate) struct KemQ(int16x8_t);

// SAFETY: NEON is enabled for every AArch64 target this crate builds for
// (a compile-time check in `backend::neon`), and the entry points enable it.
unsafe impl RingLanes for KemQ {
    type Word = i16;
    const LANES: usize = 8;
    const BLOCK: usize = 16;
    const LAYERS: usize = 7;
    const LANE_TWIDDLE: usize = 2;
    const SPLAT_TWIDDLE: usize = 2;

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
    fn add(self, b: Self) -> Self {
        // SAFETY: see the impl.
        Self(unsafe { vaddq_s16(self.0, b.0) })
    }
    #[inline(always)]
    fn sub(self, b: Self) -> Self {
        // SAFETY: see the impl.
        Self(unsafe { vsubq_s16(self.0, b.0) })
    }
    #[inline(always)]
    unsafe fn mul_splat(self, t: *const i16) -> Self {
        // SAFETY: the caller gives the twiddle's two vectors.
        unsafe { self.mul_lanes(t) }
    }
    #[inline(always)]
    unsafe fn mul_lanes(self, t: *const i16) -> Self {
        // SAFETY: the caller gives (w, w'), 16 words.
        unsafe {
            let (w, wt) = (vld1q_s16(t), vld1q_s16(t.add(8)));
            let est = vqrdmulhq_s16(self.0, wt);
            Self(vmlsq_s16(vmulq_s16(self.0, w), est, vdupq_n_s16(mlkem::Q)))
        }
    }
    /// round(a·v / 2^26) from `sqdmulh` (floor(2·a·v / 2^16)) and a rounding
    /// shift by 11: the scalar Barrett reduction, exactly.
    #[inline(always)]
    fn reduce(self) -> Self {
        // SAFETY: see the impl.
        unsafe {
            let t = vrshrq_n_s16::<11>(vqdmulhq_s16(self.0, vdupq_n_s16(20159)));
            Self(vmlsq_s16(self.0, t, vdupq_n_s16(mlkem::Q)))
        }
    }
    #[inline(always)]
    fn canonical(self) -> Self {
        self.reduce().positive()
    }
    #[inline(always)]
    fn positive(self) -> Self {
        // Negative control of `nttfuse-ct disasm` (tests/ct), never in a
        // normal build: an early exit when no secret lane is negative
        // (sminv, then a branch on the result), which the check must report.
        // (`black_box` keeps LLVM from turning the exit into a select.)
        #[cfg(nttfuse_ct_leak)]
        // SAFETY: see the impl.
        if unsafe { vminvq_s16(self.0) } >= 0 {
            return core::hint::black_box(self);
        }
        // SAFETY: see the impl.
        unsafe {
            let q = vandq_s16(vshrq_n_s16::<15>(self.0), vdupq_n_s16(mlkem::Q));
            Self(vaddq_s16(self.0, q))
        }
    }
    #[inline(always)]
    fn exchange(a: Self, b: Self, stage: usize) -> (Self, Self) {
        // SAFETY: see the impl.
        unsafe {
            if stage == 1 {
                let (a, b) = (vreinterpretq_s64_s16(a.0), vreinterpretq_s64_s16(b.0));
                (
                    Self(vreinterpretq_s16_s64(vtrn1q_s64(a, b))),
                    Self(vreinterpretq_s16_s64(vtrn2q_s64(a, b))),
                )
            } else {
                let (a, b) = (vreinterpretq_s32_s16(a.0), vreinterpretq_s32_s16(b.0));
                (
                    Self(vreinterpretq_s16_s32(vtrn1q_s32(a, b))),
                    Self(vreinterpretq_s16_s32(vtrn2q_s32(a, b))),
                )
            }
        }
    }
    fn inverse_reduces_input(any_input: bool) -> bool {
        any_input
    }
    fn inverse_reduces_sums_after(step: usize, any_input: bool) -> bool {
        kem_inverse_reduces_sums_after(step, any_input)
    }
}

/// ML-DSA coefficients: 4 × `i32`.
#[derive(Clone, Copy)]
pub(crate) struct DsaQ(int32x4_t);

// SAFETY: as `KemQ`'s.
unsafe impl RingLanes for DsaQ {
    type Word = i32;
    const LANES: usize = 4;
    const BLOCK: usize = 16;
    const LAYERS: usize = 8;
    const LANE_TWIDDLE: usize = 2;
    const SPLAT_TWIDDLE: usize = 2;

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
    fn add(self, b: Self) -> Self {
        // SAFETY: see the impl.
        Self(unsafe { vaddq_s32(self.0, b.0) })
    }
    #[inline(always)]
    fn sub(self, b: Self) -> Self {
        // SAFETY: see the impl.
        Self(unsafe { vsubq_s32(self.0, b.0) })
    }
    #[inline(always)]
    unsafe fn mul_splat(self, t: *const i32) -> Self {
        // SAFETY: the caller gives the twiddle's two vectors.
        unsafe { self.mul_lanes(t) }
    }
    #[inline(always)]
    unsafe fn mul_lanes(self, t: *const i32) -> Self {
        // SAFETY: the caller gives (w, w'), 8 words.
        unsafe {
            let (w, wt) = (vld1q_s32(t), vld1q_s32(t.add(4)));
            let est = vqrdmulhq_s32(self.0, wt);
            Self(vmlsq_s32(vmulq_s32(self.0, w), est, vdupq_n_s32(mldsa::Q)))
        }
    }
    /// round(a / 2^23)·q subtracted (q = 2^23 − 2^13 + 1).
    #[inline(always)]
    fn reduce(self) -> Self {
        // SAFETY: see the impl.
        unsafe {
            let t = vrshrq_n_s32::<23>(self.0);
            Self(vmlsq_s32(self.0, t, vdupq_n_s32(mldsa::Q)))
        }
    }
    #[inline(always)]
    fn canonical(self) -> Self {
        self.reduce().positive()
    }
    #[inline(always)]
    fn positive(self) -> Self {
        // SAFETY: see the impl.
        unsafe {
            let q = vandq_s32(vshrq_n_s32::<31>(self.0), vdupq_n_s32(mldsa::Q));
            Self(vaddq_s32(self.0, q))
        }
    }
    #[inline(always)]
    fn exchange(a: Self, b: Self, stage: usize) -> (Self, Self) {
        // SAFETY: see the impl.
        unsafe {
            if stage == 1 {
                let (a, b) = (vreinterpretq_s64_s32(a.0), vreinterpretq_s64_s32(b.0));
                (
                    Self(vreinterpretq_s32_s64(vtrn1q_s64(a, b))),
                    Self(vreinterpretq_s32_s64(vtrn2q_s64(a, b))),
                )
            } else {
                (Self(vtrn1q_s32(a.0, b.0)), Self(vtrn2q_s32(a.0, b.0)))
            }
        }
    }
    fn inverse_reduces_input(_any_input: bool) -> bool {
        false
    }
    fn inverse_reduces_sums_after(_step: usize, _any_input: bool) -> bool {
        // From |a| < q, eight layers double the sums to < 256q < 2^31.
        false
    }
}

crate::backend::ring::ring_entry_points!(KemQ, i16, "neon", MLKEM: mlkem_forward, mlkem_inverse);
crate::backend::ring::ring_entry_points!(DsaQ, i32, "neon", MLDSA: mldsa_forward, mldsa_inverse);

//! ML-KEM's NTT-domain product (FIPS 203 Algorithm 12) on NEON: 8 residues
//! per step, bit for bit the portable `transform::mlkem::multiply_ntts`.
//!
//! ```text
//!   vld2q: (a0…, a1…), (b0…, b1…)          even and odd coefficients apart
//!   b1γ = Montgomery(b1·γR)                 as the portable fqmul
//!   c0 = Montgomery(a0·b0 + a1·b1γ)         vmull/vmlal sums in i32
//!   c1 = Montgomery(a0·b1 + a1·b0)
//!   c = Montgomery(c·R²), + q where negative; vst2q interleaves them back
//! ```
//!
//! Every step is the portable one on 8 lanes (the same Montgomery
//! reductions of the same i32 values), and no branch or address depends on
//! a coefficient.

use crate::field::mlkem::{Q, QINV, R2};
use crate::field::MlKem;
use core::arch::aarch64::*;

/// The Montgomery reduction `p·R⁻¹` of the 8 i32 products `(lo, hi)`
/// (|p| < q·2^15): t = p·q⁻¹ mod 2^16, then (p − t·q)/2^16, exact.
#[inline(always)]
fn montgomery(lo: int32x4_t, hi: int32x4_t) -> int16x8_t {
    // SAFETY: NEON is enabled for every target this module compiles for
    // (checked in `neon/mod.rs`); no pointer is involved.
    unsafe {
        let t = vmulq_s16(
            vcombine_s16(vmovn_s32(lo), vmovn_s32(hi)),
            vdupq_n_s16(QINV),
        );
        let q = vdupq_n_s16(Q);
        let tq_lo = vmull_s16(vget_low_s16(t), vget_low_s16(q));
        let tq_hi = vmull_high_s16(t, q);
        vcombine_s16(
            vshrn_n_s32::<16>(vsubq_s32(lo, tq_lo)),
            vshrn_n_s32::<16>(vsubq_s32(hi, tq_hi)),
        )
    }
}

/// `x·y·R⁻¹` lane by lane, as the portable `fqmul`.
#[inline(always)]
fn fqmul(x: int16x8_t, y: int16x8_t) -> int16x8_t {
    // SAFETY: as in `montgomery`.
    unsafe {
        montgomery(
            vmull_s16(vget_low_s16(x), vget_low_s16(y)),
            vmull_high_s16(x, y),
        )
    }
}

/// The NTT-domain product `a ∘ b` of two ML-KEM NTT outputs.
pub(crate) fn multiply_ntts(a: &[MlKem; 256], b: &[MlKem; 256]) -> [MlKem; 256] {
    let gammas = &crate::transform::mlkem::GAMMAS_MONTGOMERY;
    let mut out = [MlKem::ZERO; 256];
    for i in (0..256).step_by(16) {
        // SAFETY: NEON is enabled (see `montgomery`); `i + 16 ≤ 256` and
        // `i/2 + 8 ≤ 128`, so every 16-coefficient and 8-gamma access is in
        // bounds; `MlKem` is `repr(transparent)` over i16, and the stores
        // write canonical residues (the mask below), valid `MlKem` values.
        unsafe {
            let a = vld2q_s16(a.as_ptr().cast::<i16>().add(i));
            let b = vld2q_s16(b.as_ptr().cast::<i16>().add(i));
            let (a0, a1, b0, b1) = (a.0, a.1, b.0, b.1);
            let b1_gamma = fqmul(b1, vld1q_s16(gammas.as_ptr().add(i / 2)));
            let sum = |x0: int16x8_t, y0: int16x8_t, x1: int16x8_t, y1: int16x8_t| {
                let lo = vmull_s16(vget_low_s16(x0), vget_low_s16(y0));
                let hi = vmull_high_s16(x0, y0);
                montgomery(
                    vmlal_s16(lo, vget_low_s16(x1), vget_low_s16(y1)),
                    vmlal_high_s16(hi, x1, y1),
                )
            };
            let r2 = vdupq_n_s16(R2);
            let q = vdupq_n_s16(Q);
            let canonical = |c: int16x8_t| {
                let c = fqmul(c, r2);
                vaddq_s16(c, vandq_s16(vshrq_n_s16::<15>(c), q))
            };
            let c0 = canonical(sum(a0, b0, a1, b1_gamma));
            let c1 = canonical(sum(a0, b1, a1, b0));
            vst2q_s16(out.as_mut_ptr().cast::<i16>().add(i), int16x8x2_t(c0, c1));
        }
    }
    out
}

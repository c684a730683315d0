//! AVX-512 kernels (x86-64 with AVX-512 F and BW).
//!
//! Every function here is `#[target_feature]`; callers reach it only through
//! [`Backend::check`](super::Backend::check), which detects the features at
//! run time first. The in-register stage shuffles of
//! [`layout`](super::layout) are implemented here once, for any lane width.

pub(super) mod mldsa;
pub(super) mod mlkem;
pub(super) mod packed;

use core::arch::x86_64::*;

/// Stage shuffles on a register pair (see `backend::layout`): all four are
/// involutions, so forward and inverse kernels share them.
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) fn stage1(a: __m512i, b: __m512i) -> (__m512i, __m512i) {
    (
        _mm512_shuffle_i64x2::<0x44>(a, b),
        _mm512_shuffle_i64x2::<0xEE>(a, b),
    )
}

#[inline]
#[target_feature(enable = "avx512f")]
pub(super) fn stage2(a: __m512i, b: __m512i) -> (__m512i, __m512i) {
    let lo = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0);
    let hi = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
    (
        _mm512_permutex2var_epi64(a, lo, b),
        _mm512_permutex2var_epi64(a, hi, b),
    )
}

#[inline]
#[target_feature(enable = "avx512f")]
pub(super) fn stage3(a: __m512i, b: __m512i) -> (__m512i, __m512i) {
    (_mm512_unpacklo_epi64(a, b), _mm512_unpackhi_epi64(a, b))
}

#[inline]
#[target_feature(enable = "avx512f")]
pub(super) fn stage4(a: __m512i, b: __m512i) -> (__m512i, __m512i) {
    (
        _mm512_mask_blend_epi32(0xAAAA, a, _mm512_slli_epi64::<32>(b)),
        _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64::<32>(a), b),
    )
}

#[cfg(test)]
mod tests {
    use super::super::layout::stage;
    use super::*;

    fn lanes(v: __m512i) -> [u16; 32] {
        // SAFETY: both types are 64 bytes of plain data.
        unsafe { core::mem::transmute(v) }
    }

    fn from(v: &[usize]) -> __m512i {
        let a: [u16; 32] = core::array::from_fn(|i| v[i] as u16);
        // SAFETY: both types are 64 bytes of plain data.
        unsafe { core::mem::transmute(a) }
    }

    #[test]
    fn stage_shuffles_match_the_layout_simulation() {
        if !super::super::Backend::Avx512.cpu_supports() {
            eprintln!("skipped: this CPU lacks AVX-512");
            return;
        }
        let a: Vec<usize> = (0..32).collect();
        let b: Vec<usize> = (32..64).collect();
        type Stage = unsafe fn(__m512i, __m512i) -> (__m512i, __m512i);
        let stages: [Stage; 4] = [stage1, stage2, stage3, stage4];
        for (s, f) in stages.iter().enumerate() {
            // SAFETY: AVX-512 F was detected above.
            let (x, y) = unsafe { f(from(&a), from(&b)) };
            let (ex, ey) = stage(s + 1, &a, &b);
            let got: Vec<usize> = lanes(x)
                .iter()
                .chain(&lanes(y))
                .map(|&v| v as usize)
                .collect();
            let want: Vec<usize> = ex.iter().chain(&ey).copied().collect();
            assert_eq!(got, want, "stage {}", s + 1);
        }
    }
}

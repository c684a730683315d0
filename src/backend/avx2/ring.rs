//! The lattice rings on AVX2, run by the generic kernels of
//! `backend::ring`: blocks of eight ymm registers (ML-KEM 16 × `i16`, ML-DSA
//! 8 × `i32` per register), the first layers (one for ML-KEM, two for
//! ML-DSA) as phase 1 over registers a half or a quarter polynomial apart.
//!
//! The products are those of the AVX-512 kernels on half the lanes: 16-bit
//! Montgomery for ML-KEM, 32-bit Montgomery for ML-DSA. The three stages are
//! `vperm2i128`, `vpunpck[lh]qdq`, and `vmovsldup` + `vpblendd` / shift +
//! `vpblendd`.

use crate::backend::ring::{kem_inverse_reduces_sums_after, RingLanes};
use crate::field::{mldsa, mlkem};
use core::arch::x86_64::*;

/// The three stage exchanges of 32-byte registers (any lane width).
#[inline(always)]
fn exchange(a: __m256i, b: __m256i, stage: usize) -> (__m256i, __m256i) {
    // SAFETY: AVX2 is enabled in every kernel these inline into.
    unsafe {
        match stage {
            1 => (
                _mm256_permute2x128_si256::<0x20>(a, b),
                _mm256_permute2x128_si256::<0x31>(a, b),
            ),
            2 => (_mm256_unpacklo_epi64(a, b), _mm256_unpackhi_epi64(a, b)),
            _ => {
                let b_even = _mm256_castps_si256(_mm256_moveldup_ps(_mm256_castsi256_ps(b)));
                (
                    _mm256_blend_epi32::<0xAA>(a, b_even),
                    _mm256_blend_epi32::<0xAA>(_mm256_srli_epi64::<32>(a), b),
                )
            }
        }
    }
}

/// ML-KEM coefficients: 16 × `i16`.
#[derive(Clone, Copy)]
pub(crate) struct KemYmm(__m256i);

// SAFETY: every method is `#[inline(always)]` and uses AVX2 only; the entry
// points below enable it and are reached after detection.
unsafe impl RingLanes for KemYmm {
    type Word = i16;
    const LANES: usize = 16;
    const BLOCK: usize = 8;
    const LAYERS: usize = 7;
    const LANE_TWIDDLE: usize = 2;
    const SPLAT_TWIDDLE: usize = 2;
    const INTERLEAVE: usize = 2;

    #[inline(always)]
    unsafe fn load(p: *const i16) -> Self {
        // SAFETY: the caller gives 16 readable words.
        Self(unsafe { _mm256_loadu_si256(p.cast()) })
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut i16) {
        // SAFETY: the caller gives 16 writable words.
        unsafe { _mm256_storeu_si256(p.cast(), self.0) }
    }
    #[inline(always)]
    fn zero() -> Self {
        // SAFETY: see the impl.
        Self(unsafe { _mm256_setzero_si256() })
    }
    #[inline(always)]
    fn add(self, b: Self) -> Self {
        // SAFETY: see the impl.
        Self(unsafe { _mm256_add_epi16(self.0, b.0) })
    }
    #[inline(always)]
    fn sub(self, b: Self) -> Self {
        // SAFETY: see the impl.
        Self(unsafe { _mm256_sub_epi16(self.0, b.0) })
    }
    #[inline(always)]
    unsafe fn mul_splat(self, t: *const i16) -> Self {
        // SAFETY: the caller gives the twiddle's two vectors.
        unsafe { self.mul_lanes(t) }
    }
    /// `mulhi(b, w) − mulhi(mullo(b, w·q⁻¹), q)`: |r| < 0.75·q.
    #[inline(always)]
    unsafe fn mul_lanes(self, t: *const i16) -> Self {
        // SAFETY: the caller gives the twiddle's two vectors (32 words).
        unsafe {
            let w = _mm256_loadu_si256(t.cast());
            let wq = _mm256_loadu_si256(t.add(16).cast());
            let hi = _mm256_mulhi_epi16(self.0, w);
            let m = _mm256_mullo_epi16(self.0, wq);
            Self(_mm256_sub_epi16(
                hi,
                _mm256_mulhi_epi16(m, _mm256_set1_epi16(mlkem::Q)),
            ))
        }
    }
    /// `(a + hi) − c` and `(a − hi) + c` for the product `hi − c` of
    /// `mul_lanes`: the adds of `hi` run while `c`'s two multiplies do (as
    /// mlkem-native's AVX2 butterflies), same words as `a ± b·w`.
    #[inline(always)]
    unsafe fn ct_lanes(a: Self, b: Self, t: *const i16) -> (Self, Self) {
        // SAFETY: the caller gives the twiddle's two vectors (32 words).
        unsafe {
            let w = _mm256_loadu_si256(t.cast());
            let wq = _mm256_loadu_si256(t.add(16).cast());
            let hi = _mm256_mulhi_epi16(b.0, w);
            let c = _mm256_mulhi_epi16(_mm256_mullo_epi16(b.0, wq), _mm256_set1_epi16(mlkem::Q));
            (
                Self(_mm256_sub_epi16(_mm256_add_epi16(a.0, hi), c)),
                Self(_mm256_add_epi16(_mm256_sub_epi16(a.0, hi), c)),
            )
        }
    }
    #[inline(always)]
    unsafe fn ct_splat(a: Self, b: Self, t: *const i16) -> (Self, Self) {
        // SAFETY: as `ct_lanes`; a splat twiddle has the same two vectors.
        unsafe { Self::ct_lanes(a, b, t) }
    }
    /// Barrett with v = round(2^26/q): `a − round(⌊a·v/2^16⌋/2^10)·q`, the
    /// rounding shift as a `vpmulhrsw` (four instructions, |r| ≤ 1664).
    #[inline(always)]
    fn reduce(self) -> Self {
        // SAFETY: see the impl.
        unsafe {
            // round(floor(a·v / 2^16) / 2^10) as one rounding multiply.
            let t = _mm256_mulhrs_epi16(
                _mm256_mulhi_epi16(self.0, _mm256_set1_epi16(20159)),
                _mm256_set1_epi16(1 << 5),
            );
            Self(_mm256_sub_epi16(
                self.0,
                _mm256_mullo_epi16(t, _mm256_set1_epi16(mlkem::Q)),
            ))
        }
    }
    /// `(a >> 16) − mulhi(mullo(a, q⁻¹), q)` (`backend::ring::kem_reduce_input`:
    /// a·2^−16, |r| ≤ 1665 from any word): two multiplies deep where
    /// `reduce` is three.
    #[inline(always)]
    fn reduce_input(self) -> Self {
        // SAFETY: see the impl.
        unsafe {
            let m = _mm256_mullo_epi16(self.0, _mm256_set1_epi16(-3327)); // q⁻¹ mod 2^16
            Self(_mm256_sub_epi16(
                _mm256_srai_epi16::<15>(self.0),
                _mm256_mulhi_epi16(m, _mm256_set1_epi16(mlkem::Q)),
            ))
        }
    }
    /// `a − round(a·10/2^15)·q` (`backend::ring::kem_reduce_sums`, |r| ≤
    /// 2056 from the sums' |a| ≤ 26,640): two multiplies deep where
    /// `reduce` is three.
    #[inline(always)]
    fn reduce_sums(self) -> Self {
        // SAFETY: see the impl.
        unsafe {
            let t = _mm256_mulhrs_epi16(self.0, _mm256_set1_epi16(10));
            Self(_mm256_sub_epi16(
                self.0,
                _mm256_mullo_epi16(t, _mm256_set1_epi16(mlkem::Q)),
            ))
        }
    }
    /// From |a| < 8q: + 8q, then four unsigned minima.
    #[inline(always)]
    fn canonical(self) -> Self {
        // SAFETY: see the impl.
        unsafe {
            let q = mlkem::Q;
            let mut a = _mm256_add_epi16(self.0, _mm256_set1_epi16(8 * q));
            for k in [8, 4, 2, 1] {
                a = _mm256_min_epu16(a, _mm256_sub_epi16(a, _mm256_set1_epi16(k * q)));
            }
            Self(a)
        }
    }
    #[inline(always)]
    fn positive(self) -> Self {
        // SAFETY: see the impl.
        unsafe {
            let q = _mm256_and_si256(_mm256_srai_epi16::<15>(self.0), _mm256_set1_epi16(mlkem::Q));
            Self(_mm256_add_epi16(self.0, q))
        }
    }
    #[inline(always)]
    fn exchange(a: Self, b: Self, stage: usize) -> (Self, Self) {
        let (x, y) = exchange(a.0, b.0, stage);
        (Self(x), Self(y))
    }
    fn inverse_reduces_input(any_input: bool) -> bool {
        any_input
    }
    fn inverse_reduces_sums_after(step: usize, any_input: bool) -> bool {
        kem_inverse_reduces_sums_after(step, any_input)
    }
}

/// ML-DSA coefficients: 8 × `i32`.
#[derive(Clone, Copy)]
pub(crate) struct DsaYmm(__m256i);

impl DsaYmm {
    /// The Montgomery product (see `avx512::ring`), the high words merged
    /// by a shift and a blend.
    #[inline(always)]
    unsafe fn montmul(self, w: *const i32, wo: *const i32, wq: *const i32) -> Self {
        // SAFETY: the caller gives three readable vectors; AVX2 is enabled.
        unsafe {
            let b = self.0;
            let q = _mm256_set1_epi32(mldsa::Q);
            let m = _mm256_mullo_epi32(b, _mm256_loadu_si256(wq.cast()));
            let even = _mm256_sub_epi64(
                _mm256_mul_epi32(b, _mm256_loadu_si256(w.cast())),
                _mm256_mul_epi32(m, q),
            );
            let odd = _mm256_sub_epi64(
                _mm256_mul_epi32(
                    _mm256_shuffle_epi32::<0xF5>(b),
                    _mm256_loadu_si256(wo.cast()),
                ),
                _mm256_mul_epi32(_mm256_srli_epi64::<32>(m), q),
            );
            Self(_mm256_blend_epi32::<0xAA>(
                _mm256_srli_epi64::<32>(even),
                odd,
            ))
        }
    }
}

// SAFETY: every method is `#[inline(always)]` and uses AVX2 only; the entry
// points below enable it and are reached after detection.
unsafe impl RingLanes for DsaYmm {
    type Word = i32;
    const LANES: usize = 8;
    const BLOCK: usize = 8;
    const LAYERS: usize = 8;
    const LANE_TWIDDLE: usize = 3;
    const SPLAT_TWIDDLE: usize = 2;
    const INTERLEAVE: usize = 2;

    #[inline(always)]
    unsafe fn load(p: *const i32) -> Self {
        // SAFETY: the caller gives 8 readable words.
        Self(unsafe { _mm256_loadu_si256(p.cast()) })
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut i32) {
        // SAFETY: the caller gives 8 writable words.
        unsafe { _mm256_storeu_si256(p.cast(), self.0) }
    }
    #[inline(always)]
    fn zero() -> Self {
        // SAFETY: see the impl.
        Self(unsafe { _mm256_setzero_si256() })
    }
    #[inline(always)]
    fn add(self, b: Self) -> Self {
        // SAFETY: see the impl.
        Self(unsafe { _mm256_add_epi32(self.0, b.0) })
    }
    #[inline(always)]
    fn sub(self, b: Self) -> Self {
        // SAFETY: see the impl.
        Self(unsafe { _mm256_sub_epi32(self.0, b.0) })
    }
    #[inline(always)]
    unsafe fn mul_splat(self, t: *const i32) -> Self {
        // SAFETY: the caller gives (w, w·q⁻¹); every lane's w is the same.
        unsafe { self.montmul(t, t, t.add(8)) }
    }
    #[inline(always)]
    unsafe fn mul_lanes(self, t: *const i32) -> Self {
        // SAFETY: the caller gives (w, w of the odd lanes, w·q⁻¹).
        unsafe { self.montmul(t, t.add(8), t.add(16)) }
    }
    #[inline(always)]
    fn reduce(self) -> Self {
        // SAFETY: see the impl.
        Self(unsafe { dsa_barrett(self.0) })
    }
    #[inline(always)]
    fn canonical(self) -> Self {
        // SAFETY: see the impl.
        Self(unsafe { dsa_positive(dsa_barrett(self.0)) })
    }
    #[inline(always)]
    fn positive(self) -> Self {
        // SAFETY: see the impl.
        Self(unsafe { dsa_positive(self.0) })
    }
    #[inline(always)]
    fn exchange(a: Self, b: Self, stage: usize) -> (Self, Self) {
        let (x, y) = exchange(a.0, b.0, stage);
        (Self(x), Self(y))
    }
    fn inverse_reduces_input(_any_input: bool) -> bool {
        false
    }
    fn inverse_reduces_sums_after(_step: usize, _any_input: bool) -> bool {
        // From |a| < q, eight layers double the sums to < 256q < 2^31.
        false
    }
}

/// Any `i32` to |r| ≤ q/2 + 2^13 (as the AVX-512 `dsa_barrett`).
#[inline(always)]
unsafe fn dsa_barrett(a: __m256i) -> __m256i {
    // SAFETY: AVX2 is enabled in every kernel this inlines into.
    unsafe {
        let t = _mm256_srai_epi32::<23>(_mm256_add_epi32(a, _mm256_set1_epi32(1 << 22)));
        let tq = _mm256_add_epi32(
            _mm256_sub_epi32(_mm256_slli_epi32::<23>(t), _mm256_slli_epi32::<13>(t)),
            t,
        );
        _mm256_sub_epi32(a, tq)
    }
}

/// `[0, q)` from |a| < q.
#[inline(always)]
unsafe fn dsa_positive(a: __m256i) -> __m256i {
    // SAFETY: AVX2 is enabled in every kernel this inlines into.
    unsafe {
        let q = _mm256_and_si256(_mm256_srai_epi32::<31>(a), _mm256_set1_epi32(mldsa::Q));
        _mm256_add_epi32(a, q)
    }
}

crate::backend::ring::ring_entry_points!(KemYmm, i16, "avx2", MLKEM: mlkem_forward, mlkem_inverse);
crate::backend::ring::ring_entry_points!(DsaYmm, i32, "avx2", MLDSA: mldsa_forward, mldsa_inverse);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::ring::{kem_reduce_input, kem_reduce_sums};
    #[allow(unused_imports)]
    use crate::test_prelude::*;

    /// The words checked: every `i16`; under Miri (an interpreter, where
    /// all of them take five minutes) every 41st run of 16 and the runs
    /// holding zero and `i16::MAX`, which still sends both signs, zero and
    /// the extremes through every lane's loads and stores.
    fn words() -> Vec<i16> {
        let every: Vec<i16> = (i16::MIN..=i16::MAX).collect();
        let runs = every.chunks_exact(16);
        let last = runs.len() - 1;
        runs.enumerate()
            .filter(|&(k, _)| !cfg!(miri) || k % 41 == 0 || k == last || k == 2048)
            .flat_map(|(_, run)| run.iter().copied())
            .collect()
    }

    /// `reduce_input` (`INPUT`) or `reduce_sums` of `words`, 16 at a time.
    ///
    /// # Safety
    /// The CPU has the features enabled here.
    #[target_feature(enable = "avx2")]
    unsafe fn of_every_word<const INPUT: bool>(words: &[i16]) -> Vec<i16> {
        let mut out = alloc::vec![0i16; words.len()];
        for (a, r) in words.chunks_exact(16).zip(out.chunks_exact_mut(16)) {
            // SAFETY: 16 words each side; the features are enabled.
            unsafe {
                let x = KemYmm::load(a.as_ptr());
                let y = if INPUT {
                    x.reduce_input()
                } else {
                    x.reduce_sums()
                };
                y.store(r.as_mut_ptr())
            }
        }
        out
    }

    #[test]
    fn kem_reductions_match_the_scalar_references_bit_for_bit() {
        if !x86_has!("avx2") {
            return;
        }
        let words = words();
        assert!(cfg!(miri) || words.len() == 1 << 16);
        // SAFETY: detected just above.
        let (input, sums) = unsafe {
            (
                of_every_word::<true>(&words),
                of_every_word::<false>(&words),
            )
        };
        for ((&a, i), s) in words.iter().zip(input).zip(sums) {
            assert_eq!(i, kem_reduce_input(a), "input {a}");
            assert_eq!(s, kem_reduce_sums(a), "sums {a}");
        }
    }
}

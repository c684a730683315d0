//! The lattice rings on AVX-512: a whole polynomial in one block of zmm
//! registers (ML-KEM 8 × 32 `i16`, ML-DSA 16 × 16 `i32`), run by the
//! generic kernels of `backend::ring`.
//!
//! ML-KEM twiddle products are 16-bit Montgomery products with twisted
//! twiddles (three multiplies); ML-DSA's 32-bit Montgomery products with the twisted
//! twiddle's low word from one `vpmulld` for all lanes (five multiplies
//! where the even/odd form takes six). Stages 1–3 are one
//! shuffle per output register; stage 4 and the return to the standard
//! order are one `vpermt2d` / `vpermt2w` per output.

use crate::backend::ring::{kem_inverse_reduces_sums_after, RingLanes};
use crate::field::{mldsa, mlkem};
use core::arch::x86_64::*;

/// Lane positions, within a pair (X | Y), of a pair's coefficients after
/// all four stages of 64-byte registers of `N` lanes.
const fn after_stages<const N: usize>() -> [usize; 64] {
    let mut a = [0usize; 64];
    let mut b = [0usize; 64];
    let mut i = 0;
    while i < N {
        a[i] = i;
        b[i] = N + i;
        i += 1;
    }
    let mut stage = 1;
    while stage <= 4 {
        let granule = N >> stage;
        let (mut x, mut y) = ([0usize; 64], [0usize; 64]);
        let mut start = 0;
        let mut at = 0;
        while start < N {
            let mut k = 0;
            while k < granule {
                x[at + k] = a[start + k];
                x[at + granule + k] = b[start + k];
                y[at + k] = a[start + granule + k];
                y[at + granule + k] = b[start + granule + k];
                k += 1;
            }
            at += 2 * granule;
            start += 2 * granule;
        }
        a = x;
        b = y;
        stage += 1;
    }
    // Where each coefficient is: lane of X (< N) or N + lane of Y.
    let mut position = [0usize; 64];
    let mut j = 0;
    while j < N {
        position[a[j]] = j;
        position[b[j]] = N + j;
        j += 1;
    }
    position
}

/// `permutex2var` indices taking a pair from its layout after the stages to
/// the standard order (`to`), and back (`from`).
const fn standard_indices<const N: usize>() -> ([u16; 64], [u16; 64]) {
    let position = after_stages::<N>();
    let (mut to, mut from) = ([0u16; 64], [0u16; 64]);
    let mut c = 0;
    while c < 2 * N {
        // Standard lane c (A then B) reads the coefficient where it is now.
        to[c] = position[c] as u16;
        // Layout lane position[c] reads standard lane c.
        from[position[c]] = c as u16;
        c += 1;
    }
    (to, from)
}

const KEM_INDICES: ([u16; 64], [u16; 64]) = standard_indices::<32>();
const DSA_INDICES: ([u16; 64], [u16; 64]) = standard_indices::<16>();

/// The 32-bit lanes of `v[..16]` as indices.
const fn dwords(v: &[u16; 64], offset: usize) -> [i32; 16] {
    let mut out = [0i32; 16];
    let mut i = 0;
    while i < 16 {
        out[i] = v[offset + i] as i32;
        i += 1;
    }
    out
}

const fn words(v: &[u16; 64], offset: usize) -> [i16; 32] {
    let mut out = [0i16; 32];
    let mut i = 0;
    while i < 32 {
        out[i] = v[offset + i] as i16;
        i += 1;
    }
    out
}

static KEM_TO: [[i16; 32]; 2] = [words(&KEM_INDICES.0, 0), words(&KEM_INDICES.0, 32)];
static KEM_FROM: [[i16; 32]; 2] = [words(&KEM_INDICES.1, 0), words(&KEM_INDICES.1, 32)];
static DSA_TO: [[i32; 16]; 2] = [dwords(&DSA_INDICES.0, 0), dwords(&DSA_INDICES.0, 16)];
static DSA_FROM: [[i32; 16]; 2] = [dwords(&DSA_INDICES.1, 0), dwords(&DSA_INDICES.1, 16)];
/// Stage 4's `vpermt2d` indices: X = [A.d0 B.d0 A.d2 B.d2 …], Y = [A.d1 B.d1 …].
static STAGE4: [[i32; 16]; 2] = {
    let (mut x, mut y) = ([0i32; 16], [0i32; 16]);
    let mut i = 0;
    while i < 8 {
        x[2 * i] = 2 * i as i32;
        x[2 * i + 1] = 16 + 2 * i as i32;
        y[2 * i] = 2 * i as i32 + 1;
        y[2 * i + 1] = 16 + 2 * i as i32 + 1;
        i += 1;
    }
    [x, y]
};

#[inline(always)]
fn vector<T>(v: &[T]) -> __m512i {
    debug_assert!(core::mem::size_of_val(v) == 64);
    // SAFETY: `v` is 64 bytes of plain data (the static index tables);
    // AVX-512 F is enabled in every kernel these inline into.
    unsafe { _mm512_loadu_si512(v.as_ptr().cast()) }
}

/// The four stage exchanges of 64-byte registers (any lane width).
#[inline(always)]
fn exchange(a: __m512i, b: __m512i, stage: usize) -> (__m512i, __m512i) {
    // SAFETY: AVX-512 F is enabled in every kernel these inline into.
    unsafe {
        match stage {
            1 => (
                _mm512_shuffle_i64x2::<0x44>(a, b),
                _mm512_shuffle_i64x2::<0xEE>(a, b),
            ),
            2 => {
                let lo = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0);
                let hi = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
                (
                    _mm512_permutex2var_epi64(a, lo, b),
                    _mm512_permutex2var_epi64(a, hi, b),
                )
            }
            3 => (_mm512_unpacklo_epi64(a, b), _mm512_unpackhi_epi64(a, b)),
            _ => (
                _mm512_permutex2var_epi32(a, vector(&STAGE4[0]), b),
                _mm512_permutex2var_epi32(a, vector(&STAGE4[1]), b),
            ),
        }
    }
}

/// ML-KEM coefficients: 32 × `i16`.
#[derive(Clone, Copy)]
pub(crate) struct KemZmm(__m512i);

// SAFETY: every method is `#[inline(always)]` and uses AVX-512 F/BW only;
// the entry points below enable both and are reached after detection.
unsafe impl RingLanes for KemZmm {
    type Word = i16;
    const LANES: usize = 32;
    const BLOCK: usize = 8;
    const LAYERS: usize = 7;
    const LANE_TWIDDLE: usize = 2;
    const SPLAT_TWIDDLE: usize = 2;

    #[inline(always)]
    unsafe fn load(p: *const i16) -> Self {
        // SAFETY: the caller gives 32 readable words.
        Self(unsafe { _mm512_loadu_si512(p.cast()) })
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut i16) {
        // SAFETY: the caller gives 32 writable words.
        unsafe { _mm512_storeu_si512(p.cast(), self.0) }
    }
    #[inline(always)]
    fn zero() -> Self {
        // SAFETY: see the impl.
        Self(unsafe { _mm512_setzero_si512() })
    }
    #[inline(always)]
    fn add(self, b: Self) -> Self {
        // SAFETY: see the impl.
        Self(unsafe { _mm512_add_epi16(self.0, b.0) })
    }
    #[inline(always)]
    fn sub(self, b: Self) -> Self {
        // SAFETY: see the impl.
        Self(unsafe { _mm512_sub_epi16(self.0, b.0) })
    }
    #[inline(always)]
    unsafe fn mul_splat(self, t: *const i16) -> Self {
        // SAFETY: the caller gives the twiddle's two vectors.
        unsafe { self.mul_lanes(t) }
    }
    /// `mulhi(b, w) − mulhi(mullo(b, w·q⁻¹), q)`: |r| < 0.75·q for any b
    /// and a centred w.
    #[inline(always)]
    unsafe fn mul_lanes(self, t: *const i16) -> Self {
        // SAFETY: the caller gives the twiddle's two vectors (64 words).
        unsafe {
            let w = _mm512_loadu_si512(t.cast());
            let wq = _mm512_loadu_si512(t.add(32).cast());
            let hi = _mm512_mulhi_epi16(self.0, w);
            let m = _mm512_mullo_epi16(self.0, wq);
            Self(_mm512_sub_epi16(
                hi,
                _mm512_mulhi_epi16(m, _mm512_set1_epi16(mlkem::Q)),
            ))
        }
    }
    /// `(a + hi) − c` and `(a − hi) + c` for the product `hi − c` of
    /// `mul_lanes`: the adds of `hi` run while `c`'s two multiplies do (as
    /// mlkem-native's AVX2 butterflies), same words as `a ± b·w`.
    #[inline(always)]
    unsafe fn ct_lanes(a: Self, b: Self, t: *const i16) -> (Self, Self) {
        // SAFETY: the caller gives the twiddle's two vectors (64 words).
        unsafe {
            let w = _mm512_loadu_si512(t.cast());
            let wq = _mm512_loadu_si512(t.add(32).cast());
            let hi = _mm512_mulhi_epi16(b.0, w);
            let c = _mm512_mulhi_epi16(_mm512_mullo_epi16(b.0, wq), _mm512_set1_epi16(mlkem::Q));
            (
                Self(_mm512_sub_epi16(_mm512_add_epi16(a.0, hi), c)),
                Self(_mm512_add_epi16(_mm512_sub_epi16(a.0, hi), c)),
            )
        }
    }
    #[inline(always)]
    unsafe fn ct_splat(a: Self, b: Self, t: *const i16) -> (Self, Self) {
        // SAFETY: as `ct_lanes`; a splat twiddle has the same two vectors.
        unsafe { Self::ct_lanes(a, b, t) }
    }
    /// Barrett with v = round(2^26/q): `a − round(⌊a·v/2^16⌋/2^10)·q`, the
    /// rounding shift as a `vpmulhrsw` (four instructions, |r| ≤ 1664, the
    /// scalar `barrett_reduce`'s value).
    #[inline(always)]
    fn reduce(self) -> Self {
        // SAFETY: see the impl.
        unsafe {
            let t = _mm512_mulhrs_epi16(
                _mm512_mulhi_epi16(self.0, _mm512_set1_epi16(20159)),
                _mm512_set1_epi16(1 << 5),
            );
            Self(_mm512_sub_epi16(
                self.0,
                _mm512_mullo_epi16(t, _mm512_set1_epi16(mlkem::Q)),
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
            let t = _mm512_mulhrs_epi16(self.0, _mm512_set1_epi16(10));
            Self(_mm512_sub_epi16(
                self.0,
                _mm512_mullo_epi16(t, _mm512_set1_epi16(mlkem::Q)),
            ))
        }
    }
    /// From |a| < 8q: + 8q into [0, 16q) (unsigned), then four conditional
    /// subtractions as unsigned minima (no multiply).
    #[inline(always)]
    fn canonical(self) -> Self {
        // SAFETY: see the impl.
        unsafe {
            let q = mlkem::Q;
            let mut a = _mm512_add_epi16(self.0, _mm512_set1_epi16(8 * q));
            for k in [8, 4, 2, 1] {
                a = _mm512_min_epu16(a, _mm512_sub_epi16(a, _mm512_set1_epi16(k * q)));
            }
            Self(a)
        }
    }
    #[inline(always)]
    fn positive(self) -> Self {
        // SAFETY: see the impl.
        unsafe {
            let negative = _mm512_movepi16_mask(self.0);
            // Negative control of `nttfuse-ct disasm` (tests/ct), never in a
            // normal build: an early exit on the secret lanes' signs
            // (kortest + jcc), which the check must report.
            #[cfg(nttfuse_ct_leak)]
            if negative == 0 {
                return self;
            }
            Self(_mm512_mask_add_epi16(
                self.0,
                negative,
                self.0,
                _mm512_set1_epi16(mlkem::Q),
            ))
        }
    }
    #[inline(always)]
    fn exchange(a: Self, b: Self, stage: usize) -> (Self, Self) {
        let (x, y) = exchange(a.0, b.0, stage);
        (Self(x), Self(y))
    }
    #[inline(always)]
    fn to_standard(x: Self, y: Self) -> (Self, Self) {
        // SAFETY: see the impl.
        unsafe {
            (
                Self(_mm512_permutex2var_epi16(x.0, vector(&KEM_TO[0]), y.0)),
                Self(_mm512_permutex2var_epi16(x.0, vector(&KEM_TO[1]), y.0)),
            )
        }
    }
    #[inline(always)]
    fn from_standard(a: Self, b: Self) -> (Self, Self) {
        // SAFETY: see the impl.
        unsafe {
            (
                Self(_mm512_permutex2var_epi16(a.0, vector(&KEM_FROM[0]), b.0)),
                Self(_mm512_permutex2var_epi16(a.0, vector(&KEM_FROM[1]), b.0)),
            )
        }
    }
    fn inverse_reduces_input(any_input: bool) -> bool {
        any_input
    }
    fn inverse_reduces_sums_after(step: usize, any_input: bool) -> bool {
        kem_inverse_reduces_sums_after(step, any_input)
    }
}

/// ML-DSA coefficients: 16 × `i32`.
#[derive(Clone, Copy)]
pub(crate) struct DsaZmm(__m512i);

impl DsaZmm {
    /// The Montgomery product with w at `w`, the odd lanes' w at `wo`
    /// and w·q⁻¹ at `wq`: `m = lo32(b·wq)`, `r = hi32(b·w) − hi32(m·q)`,
    /// the odd lanes brought down by a shuffle (b) and a shift (m, on
    /// another port), the high words merged by one `vpermt2d`.
    #[inline(always)]
    unsafe fn montmul(self, w: *const i32, wo: *const i32, wq: *const i32) -> Self {
        // SAFETY: the caller gives three readable vectors; AVX-512 F is
        // enabled (see the impl).
        unsafe {
            let b = self.0;
            let q = _mm512_set1_epi32(mldsa::Q);
            let m = _mm512_mullo_epi32(b, _mm512_loadu_si512(wq.cast()));
            let even = _mm512_sub_epi64(
                _mm512_mul_epi32(b, _mm512_loadu_si512(w.cast())),
                _mm512_mul_epi32(m, q),
            );
            let odd = _mm512_sub_epi64(
                _mm512_mul_epi32(
                    _mm512_shuffle_epi32::<0xF5>(b),
                    _mm512_loadu_si512(wo.cast()),
                ),
                _mm512_mul_epi32(_mm512_srli_epi64::<32>(m), q),
            );
            let high = _mm512_set_epi32(31, 15, 29, 13, 27, 11, 25, 9, 23, 7, 21, 5, 19, 3, 17, 1);
            Self(_mm512_permutex2var_epi32(even, high, odd))
        }
    }
}

// SAFETY: every method is `#[inline(always)]` and uses AVX-512 F only; the
// entry points below enable it and are reached after detection.
unsafe impl RingLanes for DsaZmm {
    type Word = i32;
    const LANES: usize = 16;
    const BLOCK: usize = 16;
    const LAYERS: usize = 8;
    const LANE_TWIDDLE: usize = 3;
    const SPLAT_TWIDDLE: usize = 2;

    #[inline(always)]
    unsafe fn load(p: *const i32) -> Self {
        // SAFETY: the caller gives 16 readable words.
        Self(unsafe { _mm512_loadu_si512(p.cast()) })
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut i32) {
        // SAFETY: the caller gives 16 writable words.
        unsafe { _mm512_storeu_si512(p.cast(), self.0) }
    }
    #[inline(always)]
    fn zero() -> Self {
        // SAFETY: see the impl.
        Self(unsafe { _mm512_setzero_si512() })
    }
    #[inline(always)]
    fn add(self, b: Self) -> Self {
        // SAFETY: see the impl.
        Self(unsafe { _mm512_add_epi32(self.0, b.0) })
    }
    #[inline(always)]
    fn sub(self, b: Self) -> Self {
        // SAFETY: see the impl.
        Self(unsafe { _mm512_sub_epi32(self.0, b.0) })
    }
    #[inline(always)]
    unsafe fn mul_splat(self, t: *const i32) -> Self {
        // SAFETY: the caller gives (w, w·q⁻¹); every lane's w is the same.
        unsafe { self.montmul(t, t, t.add(16)) }
    }
    #[inline(always)]
    unsafe fn mul_lanes(self, t: *const i32) -> Self {
        // SAFETY: the caller gives (w, w of the odd lanes, w·q⁻¹).
        unsafe { self.montmul(t, t.add(16), t.add(32)) }
    }
    #[inline(always)]
    fn reduce(self) -> Self {
        Self(dsa_barrett(self.0))
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
    #[inline(always)]
    fn to_standard(x: Self, y: Self) -> (Self, Self) {
        // SAFETY: see the impl.
        unsafe {
            (
                Self(_mm512_permutex2var_epi32(x.0, vector(&DSA_TO[0]), y.0)),
                Self(_mm512_permutex2var_epi32(x.0, vector(&DSA_TO[1]), y.0)),
            )
        }
    }
    #[inline(always)]
    fn from_standard(a: Self, b: Self) -> (Self, Self) {
        // SAFETY: see the impl.
        unsafe {
            (
                Self(_mm512_permutex2var_epi32(a.0, vector(&DSA_FROM[0]), b.0)),
                Self(_mm512_permutex2var_epi32(a.0, vector(&DSA_FROM[1]), b.0)),
            )
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

/// Any `i32` to |r| ≤ q/2 + 2^13: subtract round(a / 2^23)·q, the product
/// as shifts (q = 2^23 − 2^13 + 1).
#[inline(always)]
fn dsa_barrett(a: __m512i) -> __m512i {
    // SAFETY: AVX-512 F is enabled in every kernel this inlines into.
    unsafe {
        let t = _mm512_srai_epi32::<23>(_mm512_add_epi32(a, _mm512_set1_epi32(1 << 22)));
        let tq = _mm512_add_epi32(
            _mm512_sub_epi32(_mm512_slli_epi32::<23>(t), _mm512_slli_epi32::<13>(t)),
            t,
        );
        _mm512_sub_epi32(a, tq)
    }
}

/// `[0, q)` from |a| < q.
#[inline(always)]
unsafe fn dsa_positive(a: __m512i) -> __m512i {
    // SAFETY: AVX-512 F is enabled in every kernel this inlines into.
    unsafe {
        let negative = _mm512_cmplt_epi32_mask(a, _mm512_setzero_si512());
        _mm512_mask_add_epi32(a, negative, a, _mm512_set1_epi32(mldsa::Q))
    }
}

// An ML-KEM polynomial is one block of 8 zmm registers: a batch's pairs run
// together in 16 of the 32 (ML-DSA's block is 16 registers: a pair would
// spill, and measured 5-10 % slower than one at a time).
crate::backend::ring::ring_entry_points!(
    KemZmm,
    i16,
    "avx512f,avx512bw",
    MLKEM: mlkem_forward,
    mlkem_inverse,
    pairs: mlkem_forward2,
    mlkem_inverse2
);
crate::backend::ring::ring_entry_points!(DsaZmm, i32, "avx512f", MLDSA: mldsa_forward, mldsa_inverse);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::ring::kem_reduce_sums;
    #[allow(unused_imports)]
    use crate::test_prelude::*;

    /// `reduce_sums` of every `i16`, 32 at a time.
    ///
    /// # Safety
    /// The CPU has the features enabled here.
    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn reduce_sums_of_every_word() -> Vec<i16> {
        let words: Vec<i16> = (i16::MIN..=i16::MAX).collect();
        let mut out = alloc::vec![0i16; words.len()];
        for (a, r) in words.chunks_exact(32).zip(out.chunks_exact_mut(32)) {
            // SAFETY: 32 words each side; the features are enabled.
            unsafe { KemZmm::load(a.as_ptr()).reduce_sums().store(r.as_mut_ptr()) }
        }
        out
    }

    #[test]
    // Miri implements no 512-bit vpmulhrsw; the native test runs keep it.
    #[cfg_attr(miri, ignore = "Miri lacks llvm.x86.avx512.pmul.hr.sw.512")]
    fn kem_reduce_sums_matches_the_scalar_reference_bit_for_bit() {
        if !x86_has!("avx512bw") {
            return;
        }
        // SAFETY: detected just above.
        let out = unsafe { reduce_sums_of_every_word() };
        for (a, r) in (i16::MIN..=i16::MAX).zip(out) {
            assert_eq!(r, kem_reduce_sums(a), "{a}");
        }
    }
}

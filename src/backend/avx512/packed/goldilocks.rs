//! Goldilocks on AVX-512: 8 canonical elements per zmm.

use super::*;

/// Goldilocks (p = 2^64 − 2^32 + 1): 8 canonical elements per zmm. Products
/// are built from four `vpmuludq` of 32-bit halves and reduced as the scalar
/// field reduces (2^64 ≡ 2^32 − 1, 2^96 ≡ −1), carries and borrows as masks;
/// `min(x, x − p)` makes every result canonical. Bit-identical to the scalar
/// field.
#[derive(Clone, Copy)]
pub(crate) struct PackedGoldilocks(__m512i);

/// A Goldilocks twiddle register: w and its high 32-bit halves.
#[derive(Clone, Copy)]
pub(crate) struct GoldilocksTwiddle {
    w: __m512i,
    w_hi: __m512i,
}

use crate::backend::packed::PowerOfTwo;
use crate::field::Goldilocks;

impl PackedGoldilocks {
    #[inline(always)]
    fn prime() -> __m512i {
        // SAFETY: AVX-512 F was detected before any kernel runs.
        unsafe { _mm512_set1_epi64(Goldilocks::MODULUS as i64) }
    }

    #[inline(always)]
    fn epsilon() -> __m512i {
        // SAFETY: AVX-512 F was detected before any kernel runs.
        unsafe { _mm512_set1_epi64(0xffff_ffff) }
    }

    /// x mod p for x < 2^64 (one conditional subtraction).
    #[inline(always)]
    fn canonical(x: __m512i) -> __m512i {
        // SAFETY: AVX-512 F was detected before any kernel runs.
        unsafe { _mm512_min_epu64(x, _mm512_sub_epi64(x, Self::prime())) }
    }

    /// A 128-bit value lo + hi_lo·2^64 + hi_hi·2^96 mod p, canonical: hi_lo
    /// is the low half of `hi` (the half `vpmuludq` reads), lo < 2^64 and
    /// hi_hi < 2^63. With 2^64 ≡ 2^32 − 1 and 2^96 ≡ −1 that is lo − hi_hi
    /// + hi_lo·(2^32 − 1), carries and borrows as masks.
    #[inline(always)]
    fn reduce(lo: __m512i, hi_hi: __m512i, hi: __m512i) -> __m512i {
        // SAFETY: AVX-512 F was detected before any kernel runs.
        unsafe {
            let eps = Self::epsilon();
            // lo − hi_hi (mod p): on borrow subtract 2^32 − 1 (the wrapped
            // difference is at least 2^64 − hi_hi > 2^32 − 1).
            let t0 = _mm512_sub_epi64(lo, hi_hi);
            let borrow = _mm512_cmplt_epu64_mask(lo, hi_hi);
            let t0 = _mm512_mask_sub_epi64(t0, borrow, t0, eps);
            // + hi_lo·(2^32 − 1) ≤ 2^64 − 2^33 + 1: on carry add 2^32 − 1.
            let t1 = _mm512_mul_epu32(hi, eps);
            let t2 = _mm512_add_epi64(t0, t1);
            let carry = _mm512_cmplt_epu64_mask(t2, t1);
            let t2 = _mm512_mask_add_epi64(t2, carry, t2, eps);
            Self::canonical(t2)
        }
    }

    /// x·2^k mod p for k < 96, by shifts: x·2^k < 2^160 splits into its low
    /// word, bits 64–95 and bits 96 up ([`PowerOfTwo::split_counts`]),
    /// reduced as a product's. Five shifts and an OR in place of four
    /// `vpmuludq` and the eight steps that add their halves up.
    #[inline(always)]
    fn mul_pow2(x: __m512i, w: PowerOfTwo) -> __m512i {
        let [low, mid_right, mid_left, high] = w.split_counts();
        // SAFETY: AVX-512 F was detected before any kernel runs.
        let hi = unsafe {
            _mm512_or_si512(
                shift_64::<false>(x, mid_right),
                shift_64::<true>(x, mid_left),
            )
        };
        Self::reduce(shift_64::<true>(x, low), shift_64::<false>(x, high), hi)
    }

    /// All lanes where the twiddle is −2^k, none where it is 2^k.
    #[inline(always)]
    fn sign_mask(w: PowerOfTwo) -> __mmask8 {
        if w.negative {
            0xff
        } else {
            0
        }
    }

    #[inline(always)]
    fn twiddle(w: __m512i) -> GoldilocksTwiddle {
        // SAFETY: AVX-512 F was detected before any kernel runs.
        unsafe {
            GoldilocksTwiddle {
                w,
                w_hi: _mm512_srli_epi64::<32>(w),
            }
        }
    }
}

impl Packed for PackedGoldilocks {
    const NAME: &'static str = "avx512 Goldilocks";
    const TRANSPOSED_NAME: &'static str = "avx512 Goldilocks, blocks transposed in registers";
    type F = Goldilocks;
    const LANES: usize = 8;
    type Twiddle = GoldilocksTwiddle;
    pair_methods!(load_pair_64, store_pair_64, Self);

    #[inline(always)]
    fn load(s: &[Goldilocks], n: usize) -> Self {
        assert!(n <= 8 && s.len() >= n);
        // SAFETY: AVX-512 F was detected before any kernel runs; the masked
        // load reads only the first n elements (`repr(transparent)` u64s),
        // which are in bounds.
        unsafe {
            Self(_mm512_maskz_loadu_epi64(
                lanes_mask(n) as u8,
                s.as_ptr().cast(),
            ))
        }
    }

    #[inline(always)]
    fn store(self, s: &mut [Goldilocks], n: usize) {
        assert!(n <= 8 && s.len() >= n);
        // SAFETY: as in `load`; the masked store writes only n elements, all
        // canonical (every operation returns canonical values).
        unsafe { _mm512_mask_storeu_epi64(s.as_mut_ptr().cast(), lanes_mask(n) as u8, self.0) }
    }

    #[inline(always)]
    fn store_streaming(self, s: &mut [Self::F]) {
        stream_64(self.0, s)
    }

    #[inline(always)]
    fn broadcast(w: Goldilocks) -> GoldilocksTwiddle {
        // SAFETY: AVX-512 F was detected before any kernel runs.
        Self::twiddle(unsafe { _mm512_set1_epi64(w.value() as i64) })
    }

    #[inline(always)]
    fn add(self, b: Self) -> Self {
        // SAFETY: AVX-512 F was detected before any kernel runs.
        unsafe {
            // a + b = a − (p − b): no borrow iff a + b ≥ p, and then that
            // difference is a + b − p < p; on borrow, adding p back gives
            // a + b < p. Four instructions, one fewer than a carry fix-up
            // followed by a conditional subtraction.
            let p = Self::prime();
            let nb = _mm512_sub_epi64(p, b.0);
            let t = _mm512_sub_epi64(self.0, nb);
            let borrow = _mm512_cmplt_epu64_mask(self.0, nb);
            Self(_mm512_mask_add_epi64(t, borrow, t, p))
        }
    }

    #[inline(always)]
    fn sub(self, b: Self) -> Self {
        // SAFETY: AVX-512 F was detected before any kernel runs.
        unsafe {
            let d = _mm512_sub_epi64(self.0, b.0);
            let borrow = _mm512_cmplt_epu64_mask(self.0, b.0);
            Self(_mm512_mask_add_epi64(d, borrow, d, Self::prime()))
        }
    }

    #[inline(always)]
    fn mul(self, t: GoldilocksTwiddle) -> Self {
        // SAFETY: AVX-512 F was detected before any kernel runs.
        unsafe {
            let a = self.0;
            let a_hi = _mm512_srli_epi64::<32>(a);
            // The 128-bit product from 32-bit halves; no sum below overflows.
            let ll = _mm512_mul_epu32(a, t.w);
            let lh = _mm512_mul_epu32(a, t.w_hi);
            let hl = _mm512_mul_epu32(a_hi, t.w);
            let hh = _mm512_mul_epu32(a_hi, t.w_hi);
            let eps = Self::epsilon();
            let mid = _mm512_add_epi64(lh, _mm512_srli_epi64::<32>(ll));
            let mid2 = _mm512_add_epi64(hl, _mm512_and_si512(mid, eps));
            // lo: ll's low half under mid2's low half, one two-source
            // permute (port 5) where a shift and a blend took two.
            const LOW_HALVES: [u32; 16] =
                [0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30];
            let lo = permute2_32(ll, &LOW_HALVES, mid2);
            let hi = _mm512_add_epi64(
                _mm512_add_epi64(hh, _mm512_srli_epi64::<32>(mid)),
                _mm512_srli_epi64::<32>(mid2),
            );
            Self(Self::reduce(lo, _mm512_srli_epi64::<32>(hi), hi))
        }
    }

    const SHIFT_TWIDDLES: bool = true;

    #[inline(always)]
    fn power_of_two(w: &Goldilocks) -> Option<PowerOfTwo> {
        PowerOfTwo::goldilocks(w)
    }

    #[inline(always)]
    fn ct_butterfly_pow2(self, b: Self, w: PowerOfTwo) -> (Self, Self) {
        // (a ± 2^k·b), and for −2^k the two outputs swapped.
        let r = Self(Self::mul_pow2(b.0, w));
        let (s, d) = (self.add(r), self.sub(r));
        let m = Self::sign_mask(w);
        // SAFETY: AVX-512 F was detected before any kernel runs.
        unsafe {
            (
                Self(_mm512_mask_blend_epi64(m, s.0, d.0)),
                Self(_mm512_mask_blend_epi64(m, d.0, s.0)),
            )
        }
    }

    #[inline(always)]
    fn gs_butterfly_pow2(self, b: Self, w: PowerOfTwo) -> (Self, Self) {
        // (a + b, (a − b)·2^k), and for −2^k the difference the other way.
        let m = Self::sign_mask(w);
        // SAFETY: AVX-512 F was detected before any kernel runs.
        let (x, y) = unsafe {
            (
                Self(_mm512_mask_blend_epi64(m, self.0, b.0)),
                Self(_mm512_mask_blend_epi64(m, b.0, self.0)),
            )
        };
        (x.add(y), Self(Self::mul_pow2(x.sub(y).0, w)))
    }

    #[inline(always)]
    fn exchange(self, b: Self, bit: usize) -> (Self, Self) {
        let [ia, ib] = &EXCHANGE_64[bit];
        (
            Self(permute2_64(self.0, ia, b.0)),
            Self(permute2_64(self.0, ib, b.0)),
        )
    }

    #[inline(always)]
    fn load_twiddles(w: &[Goldilocks], shift: usize) -> GoldilocksTwiddle {
        let n = 8 >> shift;
        assert!(w.len() >= n);
        // SAFETY: AVX-512 F was detected before any kernel runs; the masked
        // load reads only the first n twiddles, which are in bounds.
        unsafe {
            let v = _mm512_maskz_loadu_epi64(lanes_mask(n) as u8, w.as_ptr().cast());
            Self::twiddle(permute2_64(v, &SPREAD_64[shift], v))
        }
    }

    #[inline(always)]
    fn twiddle_is_trivial(w: &Goldilocks) -> bool {
        *w == Goldilocks::ONE
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::packed::goldilocks_checks;

    /// The packed Goldilocks checks with AVX-512: the general products and
    /// butterflies, and the shift butterflies for every ±2^k.
    ///
    /// # Safety
    /// The CPU has AVX-512 F.
    #[target_feature(enable = "avx512f")]
    unsafe fn check() {
        goldilocks_checks::every_triple::<PackedGoldilocks>();
        goldilocks_checks::every_power_of_two::<PackedGoldilocks>();
    }

    #[test]
    fn goldilocks_butterflies_match_the_field_at_the_reduction_edges() {
        if !x86_has!("avx512f") {
            return;
        }
        // SAFETY: detected just above.
        unsafe { check() }
    }
}

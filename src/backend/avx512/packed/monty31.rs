//! The 31-bit Montgomery fields (BabyBear, KoalaBear) on AVX-512: 16
//! elements per zmm, Shoup products.

use super::*;

/// A twiddle register for [`PackedMonty31`], for Shoup's multiplication: the
/// twiddle's plain value w (not its Montgomery word) and its Shoup quotient
/// k = ⌊w·2^32/p⌋, whose odd lanes are also kept in the even positions
/// (`vpmuludq` reads even lanes). For a broadcast twiddle the two copies of
/// k are the same register. Both come from the Montgomery word without a
/// division, as [`Monty31::shoup`] derives them.
#[derive(Clone, Copy)]
pub(crate) struct MontyTwiddle {
    w: __m512i,
    k: __m512i,
    k_odd: __m512i,
}

/// `a`, hidden from the optimizer (an empty `asm!` block; the identity under
/// Miri, which cannot run `asm!`).
///
/// # Safety
/// The CPU must have AVX-512 F.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn opaque(a: __m512i) -> __m512i {
    #[cfg(not(miri))]
    {
        let mut a = a;
        // SAFETY: the template is empty: the register is read and written
        // back unchanged, nothing else is touched.
        unsafe {
            core::arch::asm!("/* {0} */", inout(zmm_reg) a, options(pure, nomem, nostack, preserves_flags));
        }
        a
    }
    #[cfg(miri)]
    {
        a
    }
}

/// The high 32-bit halves of the 64-bit lanes of `even` (into the even
/// positions) and of `odd` (kept in the odd positions).
#[inline(always)]
fn high_halves(even: __m512i, odd: __m512i) -> __m512i {
    // One `vpermt2d` (LLVM turns a merging `vmovshdup` into two `vshufps`).
    const HIGH: [u32; 16] = [1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31];
    permute2_32(even, &HIGH, odd)
}

/// The odd 32-bit lanes of `a`, moved to the even positions.
#[inline(always)]
fn odd_lanes(a: __m512i) -> __m512i {
    // SAFETY: AVX-512 F was detected before any kernel runs.
    unsafe { _mm512_castps_si512(_mm512_movehdup_ps(_mm512_castsi512_ps(a))) }
}

/// A 31-bit Montgomery field (BabyBear, KoalaBear): 16 elements per zmm.
/// Elements stay in Montgomery form; products by twiddles use Shoup's
/// method with the twiddle's plain value w and quotient k = ⌊w·2^32/p⌋
/// ([`MontyTwiddle`]): q = ⌊a·k/2^32⌋ from two `vpmuludq` (even and odd
/// lanes) and one merging shuffle, r = a·w − q·p from two `vpmulld`, and
/// `min(r, r − p)` brings [0, 2p) to [0, p). That is two multiplies and
/// one shuffle fewer than a Montgomery reduction of a·w̃. Sums and
/// differences use the same `min` trick. Bit-identical to the scalar
/// Montgomery product.
#[derive(Clone, Copy)]
pub(crate) struct PackedMonty31<P: MontyParams>(__m512i, core::marker::PhantomData<P>);

use crate::backend::packed::{
    lazy_ct_butterfly, lazy_sum_difference, lazy_sum_difference_of_product, LazySteps,
};
use crate::field::{Monty31, MontyParams, ShoupTwiddle};
use alloc::vec::Vec;

impl<P: MontyParams> PackedMonty31<P> {
    #[inline(always)]
    fn wrap(v: __m512i) -> Self {
        Self(v, core::marker::PhantomData)
    }

    #[inline(always)]
    fn prime() -> __m512i {
        // SAFETY: AVX-512 F was detected before any kernel runs.
        unsafe { _mm512_set1_epi32(P::PRIME as i32) }
    }
}

impl<P: MontyParams> LazySteps for PackedMonty31<P> {
    #[inline(always)]
    fn reduce_lazy(self) -> Self {
        // SAFETY: AVX-512 F was detected before any kernel runs.
        unsafe {
            Self::wrap(_mm512_min_epu32(
                self.0,
                _mm512_sub_epi32(self.0, Self::prime()),
            ))
        }
    }

    #[inline(always)]
    fn sum_difference_below_2p(self, b: Self) -> (Self, Self) {
        // SAFETY: AVX-512 F was detected before any kernel runs.
        unsafe {
            (
                Self::wrap(_mm512_add_epi32(self.0, b.0)),
                Self::wrap(_mm512_add_epi32(
                    _mm512_sub_epi32(self.0, b.0),
                    Self::prime(),
                )),
            )
        }
    }
}

impl<P: MontyParams> Packed for PackedMonty31<P> {
    const NAME: &'static str = "avx512 Montgomery";
    const TRANSPOSED_NAME: &'static str = "avx512 Montgomery, blocks transposed in registers";
    type F = Monty31<P>;
    const LANES: usize = 16;
    type Twiddle = MontyTwiddle;
    pair_methods!(load_pair_32, store_pair_32, Self::wrap);

    #[inline(always)]
    fn load(s: &[Self::F], n: usize) -> Self {
        assert!(n <= 16 && s.len() >= n);
        // SAFETY: AVX-512 F was detected before any kernel runs; the masked
        // load reads only the first n elements, which are in bounds.
        unsafe { Self::wrap(_mm512_maskz_loadu_epi32(lanes_mask(n), s.as_ptr().cast())) }
    }

    #[inline(always)]
    fn store(self, s: &mut [Self::F], n: usize) {
        assert!(n <= 16 && s.len() >= n);
        // SAFETY: as in `load`; the masked store writes only n elements.
        unsafe { _mm512_mask_storeu_epi32(s.as_mut_ptr().cast(), lanes_mask(n), self.0) }
    }

    #[inline(always)]
    fn store_streaming(self, s: &mut [Self::F]) {
        stream_64(self.0, s)
    }

    #[inline(always)]
    fn broadcast(t: ShoupTwiddle<P>) -> MontyTwiddle {
        // SAFETY: AVX-512 F was detected before any kernel runs.
        unsafe {
            // Opaque, so LLVM does not see a splat it can multiply as 64 bits.
            let k = opaque(_mm512_set1_epi32(t.quotient() as i32));
            MontyTwiddle {
                w: _mm512_set1_epi32(t.plain() as i32),
                k,
                k_odd: k,
            }
        }
    }

    #[inline(always)]
    fn add(self, b: Self) -> Self {
        // SAFETY: AVX-512 F was detected before any kernel runs.
        unsafe {
            let t = _mm512_add_epi32(self.0, b.0);
            Self::wrap(_mm512_min_epu32(t, _mm512_sub_epi32(t, Self::prime())))
        }
    }

    #[inline(always)]
    fn sub(self, b: Self) -> Self {
        // SAFETY: AVX-512 F was detected before any kernel runs.
        unsafe {
            let t = _mm512_sub_epi32(self.0, b.0);
            Self::wrap(_mm512_min_epu32(t, _mm512_add_epi32(t, Self::prime())))
        }
    }

    #[inline(always)]
    fn mul(self, t: MontyTwiddle) -> Self {
        // SAFETY: AVX-512 F was detected before any kernel runs.
        unsafe {
            let p = Self::prime();
            let a = self.0;
            // Shoup: q = ⌊a·k/2^32⌋ from the high halves of the even and odd
            // 64-bit products, then r = a·w − q·p (mod 2^32) lies in [0, 2p)
            // and one `min` makes it canonical. a·w̃·2^−32 ≡ a·w (mod p), so
            // this is the Montgomery product bit for bit.
            let q = high_halves(
                _mm512_mul_epu32(a, t.k),
                _mm512_mul_epu32(odd_lanes(a), t.k_odd),
            );
            let r = _mm512_sub_epi32(_mm512_mullo_epi32(a, t.w), _mm512_mullo_epi32(q, p));
            Self::wrap(_mm512_min_epu32(r, _mm512_sub_epi32(r, p)))
        }
    }

    const LAZY: bool = true;

    #[inline(always)]
    fn ct_butterfly_lazy<const IN: bool, const OUT: bool>(
        self,
        b: Self,
        t: MontyTwiddle,
    ) -> (Self, Self) {
        lazy_ct_butterfly::<Self, IN, OUT>(self, b, t)
    }

    #[inline(always)]
    fn sum_difference_lazy<const IN: bool, const OUT: bool>(self, b: Self) -> (Self, Self) {
        lazy_sum_difference::<Self, IN, OUT>(self, b)
    }

    #[inline(always)]
    fn exchange(self, b: Self, bit: usize) -> (Self, Self) {
        let [ia, ib] = &EXCHANGE_32[bit];
        (
            Self::wrap(permute2_32(self.0, ia, b.0)),
            Self::wrap(permute2_32(self.0, ib, b.0)),
        )
    }

    #[inline(always)]
    fn load_twiddles(t: &[ShoupTwiddle<P>], shift: usize) -> MontyTwiddle {
        let n = 16 >> shift;
        assert!(t.len() >= n);
        let words = t.as_ptr().cast::<i32>();
        // SAFETY: AVX-512 F was detected before any kernel runs. The loads
        // read only the first n twiddles' 2n words, which are in bounds
        // (`ShoupTwiddle` is `repr(C)`: w, then k, as two u32): all 32 for 16
        // twiddles, else the first 2n ≤ 16 masked.
        unsafe {
            let (lo, hi) = if n == 16 {
                (
                    _mm512_loadu_si512(words.cast()),
                    _mm512_loadu_si512(words.add(16).cast()),
                )
            } else {
                let v = _mm512_maskz_loadu_epi32(lanes_mask(2 * n), words.cast());
                (v, v)
            };
            let [iw, ik] = &PAIRS_32[shift];
            let k = permute2_32(lo, ik, hi);
            MontyTwiddle {
                w: permute2_32(lo, iw, hi),
                k,
                k_odd: _mm512_srli_epi64::<32>(k),
            }
        }
    }

    #[inline(always)]
    fn twiddle_is_trivial(t: &ShoupTwiddle<P>) -> bool {
        t.plain() == 1
    }

    // Compact lanes: a single column's transposed group reads a twiddle per
    // butterfly pair, so its table (8 bytes a Shoup twiddle) streamed twice
    // the column's bytes from memory. As Montgomery words it is half that,
    // and a lane register is one load and one `vmovshdup` (Shoup's took two
    // loads, two `vpermt2d` and a shift); the product takes one µop more.
    const COMPACT_LANES: bool = true;

    fn lane_table(standard: Vec<ShoupTwiddle<P>>) -> Vec<ShoupTwiddle<P>> {
        // Per chunk, [k][super-block] as before, one word each: the
        // twiddle's Montgomery form w̃ = w·2^32 mod p, two to a slot.
        standard
            .chunks_exact(2)
            .map(|t| ShoupTwiddle::word_pair(t[0].element().to_monty(), t[1].element().to_monty()))
            .collect()
    }

    #[inline(always)]
    fn load_compact_lanes(
        chunk: &[ShoupTwiddle<P>],
        k: usize,
        r: usize,
        shift: usize,
    ) -> MontyTwiddle {
        let n = 16 >> shift;
        // Vector k's n words start at word k·r (`ShoupTwiddle` is `repr(C)`,
        // two u32 words: the slots hold the words in order).
        assert!(n == r && (k + 1) * r <= 2 * chunk.len());
        // SAFETY: AVX-512 F was detected before any kernel runs. The load
        // reads words k·r .. k·r + n of the chunk's 2·len words, in bounds
        // (asserted).
        unsafe {
            let words = chunk.as_ptr().cast::<i32>().add(k * r);
            let w = if n == 16 {
                _mm512_loadu_si512(words.cast())
            } else {
                let v = _mm512_maskz_loadu_epi32(lanes_mask(n), words.cast());
                permute2_32(v, &SPREAD_32[shift], v)
            };
            // Opaque, as a broadcast's quotient (see `broadcast`): seen
            // through, LLVM multiplies these lanes as 64-bit words.
            let (w, w_odd) = (opaque(w), opaque(odd_lanes(w)));
            MontyTwiddle {
                w,
                k: w,
                k_odd: w_odd,
            }
        }
    }

    #[inline(always)]
    fn ct_compact<const IN: bool, const OUT: bool>(self, b: Self, t: MontyTwiddle) -> (Self, Self) {
        lazy_sum_difference_of_product::<Self, IN, OUT>(self, b.mul_montgomery(t))
    }

    #[inline(always)]
    fn gs_compact(self, b: Self, t: MontyTwiddle) -> (Self, Self) {
        // a − b + p of canonical a, b lies in (0, 2p): any word will do for
        // the product.
        let (s, d) = self.sum_difference_below_2p(b);
        (s.reduce_lazy(), d.mul_montgomery(t))
    }
}

impl<P: MontyParams> PackedMonty31<P> {
    /// Montgomery's product a·w̃·2^−32 mod p of any word a by a compact lane
    /// twiddle (its w̃ < p, and w̃'s odd lanes in `k_odd`): the even and odd
    /// 64-bit products t, m = t·p⁻¹ mod 2^32, t − m·p = 2^32·d with d in
    /// (−p, p), then + p where negative. Equal, canonical, to the Shoup
    /// product by w: a·w̃·2^−32 ≡ a·w.
    #[inline(always)]
    fn mul_montgomery(self, t: MontyTwiddle) -> Self {
        // SAFETY: AVX-512 F was detected before any kernel runs.
        unsafe {
            let p = opaque(Self::prime());
            let p_inv = opaque(_mm512_set1_epi32(Monty31::<P>::P_INV as i32));
            let a = self.0;
            let even = _mm512_mul_epu32(a, t.w);
            let odd = _mm512_mul_epu32(odd_lanes(a), t.k_odd);
            // Opaque: only their low halves are read next, and LLVM would
            // narrow `vpmuludq` to a plain 64-bit product, then fold
            // a·w̃·p⁻¹ into a per-twiddle w̃·p⁻¹ and a `vpmullq` per product
            // (three µops on Intel).
            let m_even = opaque(_mm512_mul_epu32(even, p_inv));
            let m_odd = opaque(_mm512_mul_epu32(odd, p_inv));
            let d = high_halves(
                _mm512_sub_epi64(even, _mm512_mul_epu32(m_even, p)),
                _mm512_sub_epi64(odd, _mm512_mul_epu32(m_odd, p)),
            );
            Self::wrap(_mm512_min_epu32(d, _mm512_add_epi32(d, p)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::{BabyBearParams, Field, KoalaBearParams};
    #[allow(unused_imports)]
    use crate::test_prelude::*;

    /// Compact lane twiddles against the field: their loads (full and
    /// spread) and Montgomery's product, from any word (lazy ones up to
    /// 2^32 − 1), equal Shoup's product by the same twiddles, in the
    /// butterflies that use them.
    ///
    /// # Safety
    /// The CPU has AVX-512 F.
    #[target_feature(enable = "avx512f")]
    unsafe fn check<P: MontyParams>() {
        type F<P> = Monty31<P>;
        let p = P::PRIME;
        let edges = [
            0,
            1,
            2,
            p - 1,
            p,
            p + 1,
            2 * p - 1,
            u32::MAX,
            1 << 31,
            0x1234_5678,
        ];
        let twiddles: Vec<ShoupTwiddle<P>> = [0u32, 1, 2, p - 1, p - 2, 0x0abc_def1, 7, p / 2]
            .iter()
            .cycle()
            .take(32)
            .enumerate()
            .map(|(i, &w)| F::<P>::prepare_twiddle(F::<P>::new(w ^ i as u32)))
            .collect();
        let compact = PackedMonty31::<P>::lane_table(twiddles.clone());
        assert_eq!(compact.len(), 16);
        for shift in 0..4 {
            let r = 16 >> shift;
            for k in 0..32 / r {
                let lanes = PackedMonty31::<P>::load_compact_lanes(&compact, k, r, shift);
                let shoup = PackedMonty31::<P>::load_twiddles(&twiddles[k * r..], shift);
                for (e, &edge) in edges.iter().enumerate() {
                    let words: [u32; 16] = core::array::from_fn(|i| {
                        edge.wrapping_add(i as u32 * 0x0101_0101 * e as u32)
                    });
                    // SAFETY: AVX-512 F (the caller's contract); words are
                    // any u32, which `PackedMonty31` holds as raw words.
                    let b = PackedMonty31::<P>::wrap(unsafe {
                        core::mem::transmute::<[u32; 16], __m512i>(words)
                    });
                    let got: [u32; 16] = unsafe { core::mem::transmute(b.mul_montgomery(lanes).0) };
                    let want: [u32; 16] = unsafe { core::mem::transmute(b.mul(shoup).0) };
                    assert_eq!(got, want, "shift {shift}, k {k}, words {words:x?}");
                    for (lane, &g) in got.iter().enumerate() {
                        let t = twiddles[k * r + (lane >> shift)];
                        let expected = F::<P>::from_monty(words[lane] % p).unwrap().mul_twiddle(t);
                        assert_eq!(g, expected.to_monty(), "lane {lane}");
                    }
                }
            }
        }
    }

    #[test]
    fn compact_lane_products_match_shoup_and_the_field() {
        if !x86_has!("avx512f") {
            return;
        }
        // SAFETY: detected just above.
        unsafe {
            check::<BabyBearParams>();
            check::<KoalaBearParams>();
        }
    }
}

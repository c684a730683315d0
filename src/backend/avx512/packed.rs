//! AVX-512 packed forms of the fields, for the generic register-group
//! kernel of `backend::packed`: 8 × u64 (GF(2^64)) and 16 × u32 (31-bit
//! Montgomery fields) per zmm. Tails shorter than a register use masked
//! loads and stores.

use crate::backend::packed::{run_group_generic, Packed};
use crate::backend::GroupKernel;
use core::arch::x86_64::*;

/// The mask of the first `n` lanes of 8 or 16.
#[inline(always)]
pub(super) fn lanes_mask(n: usize) -> u16 {
    if n >= 16 {
        u16::MAX
    } else {
        (1u16 << n) - 1
    }
}

/// Runs a register group of 1 to 4 layers with AVX-512 packed arithmetic.
///
/// # Safety
/// The CPU must have AVX-512 F, BW, DQ, VL and VPCLMULQDQ (the features
/// this function is compiled with).
#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,vpclmulqdq")]
pub(crate) unsafe fn run_group<P: Packed>(buf: &mut [P::F], group: &GroupKernel<'_, P::F>) {
    run_group_generic::<P>(buf, group)
}

/// GF(2^64): 8 elements per zmm. Products: `vpclmulqdq` on the even and the
/// odd qwords, then the shift-XOR reduction by x^64 + x^4 + x^3 + x + 1 with
/// three-way XORs as `vpternlogq 0x96`.
#[derive(Clone, Copy)]
pub(crate) struct PackedGf2_64(__m512i);

impl Packed for PackedGf2_64 {
    type F = crate::field::Gf2_64;
    const LANES: usize = 8;
    type Twiddle = __m512i;

    #[inline(always)]
    fn load(s: &[Self::F], n: usize) -> Self {
        assert!(n <= 8 && s.len() >= n);
        // SAFETY: AVX-512 F was detected before any kernel runs; the masked
        // load reads only the first n elements, which are in bounds.
        unsafe {
            Self(_mm512_maskz_loadu_epi64(
                lanes_mask(n) as u8,
                s.as_ptr().cast(),
            ))
        }
    }

    #[inline(always)]
    fn store(self, s: &mut [Self::F], n: usize) {
        assert!(n <= 8 && s.len() >= n);
        // SAFETY: as in `load`; the masked store writes only n elements.
        unsafe { _mm512_mask_storeu_epi64(s.as_mut_ptr().cast(), lanes_mask(n) as u8, self.0) }
    }

    #[inline(always)]
    fn broadcast(w: Self::F) -> __m512i {
        // SAFETY: AVX-512 F was detected before any kernel runs.
        unsafe { _mm512_set1_epi64(w.bits() as i64) }
    }

    #[inline(always)]
    fn add(self, b: Self) -> Self {
        // SAFETY: AVX-512 F was detected before any kernel runs.
        unsafe { Self(_mm512_xor_si512(self.0, b.0)) }
    }

    #[inline(always)]
    fn sub(self, b: Self) -> Self {
        self.add(b)
    }

    #[inline(always)]
    fn mul(self, w: __m512i) -> Self {
        // SAFETY: AVX-512 F and VPCLMULQDQ were detected before any kernel runs.
        unsafe {
            let even = _mm512_clmulepi64_epi128::<0x00>(self.0, w);
            let odd = _mm512_clmulepi64_epi128::<0x01>(self.0, w);
            let lo = _mm512_unpacklo_epi64(even, odd);
            let hi = _mm512_unpackhi_epi64(even, odd);
            let s = _mm512_ternarylogic_epi64::<0x96>(
                _mm512_srli_epi64::<63>(hi),
                _mm512_srli_epi64::<61>(hi),
                _mm512_srli_epi64::<60>(hi),
            );
            let v = _mm512_xor_si512(hi, s);
            let r = _mm512_ternarylogic_epi64::<0x96>(lo, v, _mm512_slli_epi64::<1>(v));
            Self(_mm512_ternarylogic_epi64::<0x96>(
                r,
                _mm512_slli_epi64::<3>(v),
                _mm512_slli_epi64::<4>(v),
            ))
        }
    }
}

/// A 31-bit Montgomery field (BabyBear, KoalaBear): 16 elements per zmm.
/// Products run on the even and the odd lanes with `vpmuludq`:
/// `(a·w − ((a·w') mod 2^32)·p) / 2^32` with the twisted twiddle
/// w' = w·p⁻¹ mod 2^32, then `min(r, r + p)` brings (−p, p) to [0, p);
/// sums and differences use the same `min` trick. Bit-identical to the
/// scalar Montgomery reduction.
#[derive(Clone, Copy)]
pub(crate) struct PackedMonty31<P: MontyParams>(__m512i, core::marker::PhantomData<P>);

use crate::field::{Monty31, MontyParams};

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

impl<P: MontyParams> Packed for PackedMonty31<P> {
    type F = Monty31<P>;
    const LANES: usize = 16;
    /// (w, w·p⁻¹ mod 2^32), each broadcast.
    type Twiddle = (__m512i, __m512i);

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
    fn broadcast(w: Self::F) -> (__m512i, __m512i) {
        let m = w.to_monty();
        // SAFETY: AVX-512 F was detected before any kernel runs.
        unsafe {
            (
                _mm512_set1_epi32(m as i32),
                _mm512_set1_epi32(m.wrapping_mul(Monty31::<P>::P_INV) as i32),
            )
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
    fn mul(self, (w, wq): (__m512i, __m512i)) -> Self {
        // SAFETY: AVX-512 F was detected before any kernel runs.
        unsafe {
            let p = Self::prime();
            let a = self.0;
            let odd = _mm512_castps_si512(_mm512_movehdup_ps(_mm512_castsi512_ps(a)));
            let even_product = _mm512_mul_epu32(a, w);
            let odd_product = _mm512_mul_epu32(odd, w);
            let even_m = _mm512_mul_epu32(_mm512_mul_epu32(a, wq), p);
            let odd_m = _mm512_mul_epu32(_mm512_mul_epu32(odd, wq), p);
            let even = _mm512_sub_epi64(even_product, even_m);
            let odd = _mm512_sub_epi64(odd_product, odd_m);
            // The results are the high halves of the 64-bit differences.
            let r = _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64::<32>(even), odd);
            Self::wrap(_mm512_min_epu32(r, _mm512_add_epi32(r, p)))
        }
    }
}

//! The lattice products' lanes on AVX2 (16 × `i16`, 8 × `i32`); the
//! kernels are `backend::ring::products'`.

use crate::backend::ring::products::{
    dsa_product_entry_points, kem_product_entry_points, DsaMul, KemMul,
};
use crate::field::{mldsa, mlkem};
use core::arch::x86_64::*;

#[derive(Clone, Copy)]
pub(crate) struct Kem(__m256i);

// SAFETY: every method is `#[inline(always)]` and uses AVX2 only; the
// entry points below enable it and are reached after detection.
unsafe impl KemMul for Kem {
    const LANES: usize = 16;
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
    fn madd(self, v: Self) -> Self {
        // SAFETY: see the impl.
        Self(unsafe { _mm256_madd_epi16(self.0, v.0) })
    }
    #[inline(always)]
    fn add32(self, b: Self) -> Self {
        // SAFETY: see the impl.
        Self(unsafe { _mm256_add_epi32(self.0, b.0) })
    }
    #[inline(always)]
    fn add16(self, b: Self) -> Self {
        // SAFETY: see the impl.
        Self(unsafe { _mm256_add_epi16(self.0, b.0) })
    }
    #[inline(always)]
    fn reduce_pairs(c0: Self, c1: Self) -> Self {
        // SAFETY: see the impl.
        unsafe {
            let low = _mm256_blend_epi16::<0xAA>(c0.0, _mm256_slli_epi32::<16>(c1.0));
            let high = _mm256_blend_epi16::<0xAA>(_mm256_srli_epi32::<16>(c0.0), c1.0);
            let t = _mm256_mullo_epi16(low, _mm256_set1_epi16(mlkem::QINV));
            Self(_mm256_sub_epi16(
                high,
                _mm256_mulhi_epi16(t, _mm256_set1_epi16(mlkem::Q)),
            ))
        }
    }
    #[inline(always)]
    fn montmul(self, w: Self, wq: Self) -> Self {
        // SAFETY: see the impl.
        unsafe {
            let hi = _mm256_mulhi_epi16(self.0, w.0);
            let m = _mm256_mullo_epi16(self.0, wq.0);
            Self(_mm256_sub_epi16(
                hi,
                _mm256_mulhi_epi16(m, _mm256_set1_epi16(mlkem::Q)),
            ))
        }
    }
    #[inline(always)]
    fn swap_pairs(self) -> Self {
        // SAFETY: see the impl.
        unsafe {
            Self(_mm256_or_si256(
                _mm256_slli_epi32::<16>(self.0),
                _mm256_srli_epi32::<16>(self.0),
            ))
        }
    }
    #[inline(always)]
    fn reduce(self) -> Self {
        // SAFETY: see the impl.
        unsafe {
            let t = _mm256_srai_epi16::<10>(_mm256_add_epi16(
                _mm256_mulhi_epi16(self.0, _mm256_set1_epi16(20159)),
                _mm256_set1_epi16(512),
            ));
            Self(_mm256_sub_epi16(
                self.0,
                _mm256_mullo_epi16(t, _mm256_set1_epi16(mlkem::Q)),
            ))
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
}

#[derive(Clone, Copy)]
pub(crate) struct Dsa(__m256i);

// SAFETY: every method is `#[inline(always)]` and uses AVX2 only; the
// entry points below enable it and are reached after detection.
unsafe impl DsaMul for Dsa {
    const LANES: usize = 8;
    const FUSED_MULTIPLY: bool = false;
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
    fn mul_wide(self, b: Self) -> (Self, Self) {
        // SAFETY: see the impl.
        unsafe {
            (
                Self(_mm256_mul_epi32(self.0, b.0)),
                Self(_mm256_mul_epi32(
                    _mm256_shuffle_epi32::<0xF5>(self.0),
                    _mm256_srli_epi64::<32>(b.0),
                )),
            )
        }
    }
    #[inline(always)]
    fn add64(self, b: Self) -> Self {
        // SAFETY: see the impl.
        Self(unsafe { _mm256_add_epi64(self.0, b.0) })
    }
    #[inline(always)]
    fn reduce_wide(even: Self, odd: Self) -> Self {
        // SAFETY: see the impl.
        unsafe {
            let low = _mm256_blend_epi32::<0xAA>(even.0, _mm256_slli_epi64::<32>(odd.0));
            let m = _mm256_mullo_epi32(low, _mm256_set1_epi32(mldsa::QINV));
            let q = _mm256_set1_epi32(mldsa::Q);
            let re = _mm256_sub_epi64(even.0, _mm256_mul_epi32(m, q));
            let ro = _mm256_sub_epi64(odd.0, _mm256_mul_epi32(_mm256_srli_epi64::<32>(m), q));
            Self(_mm256_blend_epi32::<0xAA>(_mm256_srli_epi64::<32>(re), ro))
        }
    }
    #[inline(always)]
    fn times_r(self) -> Self {
        // SAFETY: see the impl.
        let r2 = Self(unsafe { _mm256_set1_epi32(mldsa::R2) });
        let (e, o) = self.mul_wide(r2);
        Self::reduce_wide(e, o)
    }
    #[inline(always)]
    fn twist(self) -> Self {
        // SAFETY: see the impl.
        Self(unsafe { _mm256_mullo_epi32(self.0, _mm256_set1_epi32(mldsa::QINV)) })
    }
    #[inline(always)]
    fn mul_twisted(self, b: Self, bt: Self) -> Self {
        // SAFETY: see the impl.
        unsafe {
            let q = _mm256_set1_epi32(mldsa::Q);
            let m = _mm256_mullo_epi32(self.0, bt.0);
            let ae = _mm256_mul_epi32(self.0, b.0);
            let ao = _mm256_mul_epi32(
                _mm256_shuffle_epi32::<0xF5>(self.0),
                _mm256_srli_epi64::<32>(b.0),
            );
            let re = _mm256_sub_epi64(ae, _mm256_mul_epi32(m, q));
            let ro = _mm256_sub_epi64(ao, _mm256_mul_epi32(_mm256_srli_epi64::<32>(m), q));
            Self(_mm256_blend_epi32::<0xAA>(_mm256_srli_epi64::<32>(re), ro))
        }
    }
    #[inline(always)]
    fn reduce(self) -> Self {
        // SAFETY: see the impl.
        unsafe {
            let a = self.0;
            let t = _mm256_srai_epi32::<23>(_mm256_add_epi32(a, _mm256_set1_epi32(1 << 22)));
            let tq = _mm256_add_epi32(
                _mm256_sub_epi32(_mm256_slli_epi32::<23>(t), _mm256_slli_epi32::<13>(t)),
                t,
            );
            Self(_mm256_sub_epi32(a, tq))
        }
    }
    #[inline(always)]
    fn positive(self) -> Self {
        // SAFETY: see the impl.
        unsafe {
            let q = _mm256_and_si256(_mm256_srai_epi32::<31>(self.0), _mm256_set1_epi32(mldsa::Q));
            Self(_mm256_add_epi32(self.0, q))
        }
    }
}

kem_product_entry_points!(kem, super::Kem, "avx2");
dsa_product_entry_points!(Dsa, "avx2", DSA_PRODUCTS);

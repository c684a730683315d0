//! The lattice products' lanes on AVX-512 (32 × `i16`, 16 × `i32`); the
//! kernels are `backend::ring::products`'.

use crate::backend::ring::products::{
    dsa_product_entry_points, kem_product_entry_points, DsaMul, KemMul,
};
use crate::field::{mldsa, mlkem};
use core::arch::x86_64::*;

#[derive(Clone, Copy)]
pub(crate) struct Kem(__m512i);

// SAFETY: every method is `#[inline(always)]` and uses AVX-512 F/BW only;
// the entry points below enable both and are reached after detection.
unsafe impl KemMul for Kem {
    const LANES: usize = 32;
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
    fn madd(self, v: Self) -> Self {
        // SAFETY: see the impl.
        Self(unsafe { _mm512_madd_epi16(self.0, v.0) })
    }
    #[inline(always)]
    fn add32(self, b: Self) -> Self {
        // SAFETY: see the impl.
        Self(unsafe { _mm512_add_epi32(self.0, b.0) })
    }
    #[inline(always)]
    fn add16(self, b: Self) -> Self {
        // SAFETY: see the impl.
        Self(unsafe { _mm512_add_epi16(self.0, b.0) })
    }
    /// The low and the high halves of the sums interleaved as `i16`
    /// pairs (c0's in even lanes, c1's in odd ones), then `hi − hi16(t·q)`
    /// for `t = lo·q⁻¹` (exact: the low halves of c and t·q agree).
    #[inline(always)]
    fn reduce_pairs(c0: Self, c1: Self) -> Self {
        // SAFETY: see the impl.
        unsafe {
            let low = _mm512_mask_blend_epi16(0xAAAA_AAAA, c0.0, _mm512_slli_epi32::<16>(c1.0));
            let high = _mm512_mask_blend_epi16(0xAAAA_AAAA, _mm512_srli_epi32::<16>(c0.0), c1.0);
            let t = _mm512_mullo_epi16(low, _mm512_set1_epi16(mlkem::QINV));
            Self(_mm512_sub_epi16(
                high,
                _mm512_mulhi_epi16(t, _mm512_set1_epi16(mlkem::Q)),
            ))
        }
    }
    #[inline(always)]
    fn montmul(self, w: Self, wq: Self) -> Self {
        // SAFETY: see the impl.
        unsafe {
            let hi = _mm512_mulhi_epi16(self.0, w.0);
            let m = _mm512_mullo_epi16(self.0, wq.0);
            Self(_mm512_sub_epi16(
                hi,
                _mm512_mulhi_epi16(m, _mm512_set1_epi16(mlkem::Q)),
            ))
        }
    }
    #[inline(always)]
    fn swap_pairs(self) -> Self {
        // SAFETY: see the impl.
        Self(unsafe { _mm512_rol_epi32::<16>(self.0) })
    }
    #[inline(always)]
    fn reduce(self) -> Self {
        // SAFETY: see the impl.
        unsafe {
            let t = _mm512_srai_epi16::<10>(_mm512_add_epi16(
                _mm512_mulhi_epi16(self.0, _mm512_set1_epi16(20159)),
                _mm512_set1_epi16(512),
            ));
            Self(_mm512_sub_epi16(
                self.0,
                _mm512_mullo_epi16(t, _mm512_set1_epi16(mlkem::Q)),
            ))
        }
    }
    #[inline(always)]
    fn positive(self) -> Self {
        // SAFETY: see the impl.
        unsafe {
            let negative = _mm512_movepi16_mask(self.0);
            Self(_mm512_mask_add_epi16(
                self.0,
                negative,
                self.0,
                _mm512_set1_epi16(mlkem::Q),
            ))
        }
    }
}

#[derive(Clone, Copy)]
pub(crate) struct Dsa(__m512i);

// SAFETY: every method is `#[inline(always)]` and uses AVX-512 F only; the
// entry points below enable it (with BW) and are reached after detection.
unsafe impl DsaMul for Dsa {
    const LANES: usize = 16;
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
    fn mul_wide(self, b: Self) -> (Self, Self) {
        // SAFETY: see the impl.
        unsafe {
            (
                Self(_mm512_mul_epi32(self.0, b.0)),
                // The odd lanes down: a shuffle for one operand, a shift
                // for the other (two different ports).
                Self(_mm512_mul_epi32(
                    _mm512_shuffle_epi32::<0xF5>(self.0),
                    _mm512_srli_epi64::<32>(b.0),
                )),
            )
        }
    }
    #[inline(always)]
    fn add64(self, b: Self) -> Self {
        // SAFETY: see the impl.
        Self(unsafe { _mm512_add_epi64(self.0, b.0) })
    }
    /// Per half, m = lo32(x)·q⁻¹ (the low word of a `vpmuldq`), then
    /// `(x − m·q) / 2^32` (exact), the halves' high words merged by one
    /// `vpermt2d`.
    #[inline(always)]
    fn reduce_wide(even: Self, odd: Self) -> Self {
        // SAFETY: see the impl.
        unsafe {
            let qinv = _mm512_set1_epi32(mldsa::QINV);
            let q = _mm512_set1_epi32(mldsa::Q);
            let re = _mm512_sub_epi64(even.0, _mm512_mul_epi32(_mm512_mul_epi32(even.0, qinv), q));
            let ro = _mm512_sub_epi64(odd.0, _mm512_mul_epi32(_mm512_mul_epi32(odd.0, qinv), q));
            let high = _mm512_set_epi32(31, 15, 29, 13, 27, 11, 25, 9, 23, 7, 21, 5, 19, 3, 17, 1);
            Self(_mm512_permutex2var_epi32(re, high, ro))
        }
    }
    #[inline(always)]
    fn times_r(self) -> Self {
        // SAFETY: see the impl.
        let r2 = Self(unsafe { _mm512_set1_epi32(mldsa::R2) });
        let (e, o) = self.mul_wide(r2);
        Self::reduce_wide(e, o)
    }
    #[inline(always)]
    fn twist(self) -> Self {
        // SAFETY: see the impl.
        Self(unsafe { _mm512_mullo_epi32(self.0, _mm512_set1_epi32(mldsa::QINV)) })
    }
    #[inline(always)]
    fn mul_twisted(self, b: Self, bt: Self) -> Self {
        // SAFETY: see the impl.
        unsafe {
            let q = _mm512_set1_epi32(mldsa::Q);
            let m = _mm512_mullo_epi32(self.0, bt.0);
            let ae = _mm512_mul_epi32(self.0, b.0);
            let ao = _mm512_mul_epi32(
                _mm512_shuffle_epi32::<0xF5>(self.0),
                _mm512_srli_epi64::<32>(b.0),
            );
            let re = _mm512_sub_epi64(ae, _mm512_mul_epi32(m, q));
            let ro = _mm512_sub_epi64(ao, _mm512_mul_epi32(_mm512_srli_epi64::<32>(m), q));
            let high = _mm512_set_epi32(31, 15, 29, 13, 27, 11, 25, 9, 23, 7, 21, 5, 19, 3, 17, 1);
            Self(_mm512_permutex2var_epi32(re, high, ro))
        }
    }
    #[inline(always)]
    fn reduce(self) -> Self {
        // SAFETY: see the impl.
        unsafe {
            let a = self.0;
            let t = _mm512_srai_epi32::<23>(_mm512_add_epi32(a, _mm512_set1_epi32(1 << 22)));
            let tq = _mm512_add_epi32(
                _mm512_sub_epi32(_mm512_slli_epi32::<23>(t), _mm512_slli_epi32::<13>(t)),
                t,
            );
            Self(_mm512_sub_epi32(a, tq))
        }
    }
    #[inline(always)]
    fn positive(self) -> Self {
        // SAFETY: see the impl.
        unsafe {
            let negative = _mm512_cmplt_epi32_mask(self.0, _mm512_setzero_si512());
            Self(_mm512_mask_add_epi32(
                self.0,
                negative,
                self.0,
                _mm512_set1_epi32(mldsa::Q),
            ))
        }
    }
}

/// ML-KEM lanes with VNNI: `vpdpwssd` multiplies and accumulates in one.
#[derive(Clone, Copy)]
pub(crate) struct KemVnni(Kem);

// SAFETY: as `Kem`'s, plus AVX-512 VNNI, which the VNNI entry points enable
// (chosen only where it was detected).
unsafe impl KemMul for KemVnni {
    const LANES: usize = 32;
    #[inline(always)]
    unsafe fn load(p: *const i16) -> Self {
        // SAFETY: as `Kem::load`.
        Self(unsafe { Kem::load(p) })
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut i16) {
        // SAFETY: as `Kem::store`.
        unsafe { self.0.store(p) }
    }
    #[inline(always)]
    fn zero() -> Self {
        Self(Kem::zero())
    }
    #[inline(always)]
    fn madd(self, v: Self) -> Self {
        Self(self.0.madd(v.0))
    }
    #[inline(always)]
    fn add32(self, b: Self) -> Self {
        Self(self.0.add32(b.0))
    }
    #[inline(always)]
    fn madd_add(acc: Self, x: Self, v: Self) -> Self {
        // SAFETY: see the impl.
        Self(Kem(unsafe {
            _mm512_dpwssd_epi32(acc.0 .0, x.0 .0, v.0 .0)
        }))
    }
    #[inline(always)]
    fn add16(self, b: Self) -> Self {
        Self(self.0.add16(b.0))
    }
    #[inline(always)]
    fn reduce_pairs(c0: Self, c1: Self) -> Self {
        Self(Kem::reduce_pairs(c0.0, c1.0))
    }
    #[inline(always)]
    fn montmul(self, w: Self, wq: Self) -> Self {
        Self(self.0.montmul(w.0, wq.0))
    }
    #[inline(always)]
    fn swap_pairs(self) -> Self {
        Self(self.0.swap_pairs())
    }
    #[inline(always)]
    fn reduce(self) -> Self {
        Self(self.0.reduce())
    }
    #[inline(always)]
    fn positive(self) -> Self {
        Self(self.0.positive())
    }
}

kem_product_entry_points!(kem, super::Kem, "avx512f,avx512bw");
kem_product_entry_points!(kem_vnni, super::KemVnni, "avx512f,avx512bw,avx512vnni");
dsa_product_entry_points!(Dsa, "avx512f,avx512bw", DSA_PRODUCTS);

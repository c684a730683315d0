//! One AVX-512 register-group kernel for every field with a packed form.
//!
//! Row j of a butterfly set is one contiguous run of `stride · width`
//! elements sharing the set's twiddles (twiddles are per block, not per
//! position), so the kernel walks the runs a register at a time — 8 × u64 or
//! 16 × u32 — and the same code serves interleaved matrices (SIMD across
//! columns) and single columns (SIMD along the run). A run shorter than a
//! register, or its tail, is handled with masked loads and stores.

use crate::backend::GroupKernel;
use crate::field::Field;
use crate::transform::ButterflyKind;
use core::arch::x86_64::*;

/// A zmm register of field elements with the arithmetic butterflies need.
/// Methods are only called from kernels compiled with the backend's target
/// features, after run-time detection (see `Kernels::has_kernels`).
pub(crate) trait Packed: Copy {
    /// The field.
    type F: Field;
    /// Elements per register.
    const LANES: usize;
    /// A twiddle prepared for [`Packed::mul`] (broadcast to every lane).
    type Twiddle: Copy;
    /// Loads `n ≤ LANES` elements (the rest zero).
    fn load(s: &[Self::F], n: usize) -> Self;
    /// Stores the first `n ≤ LANES` elements.
    fn store(self, s: &mut [Self::F], n: usize);
    fn broadcast(w: <Self::F as Field>::Twiddle) -> Self::Twiddle;
    fn add(self, b: Self) -> Self;
    fn sub(self, b: Self) -> Self;
    fn mul(self, w: Self::Twiddle) -> Self;
}

/// The mask of the first `n` lanes of 8 or 16.
#[inline(always)]
pub(super) fn lanes_mask(n: usize) -> u16 {
    if n >= 16 {
        u16::MAX
    } else {
        (1u16 << n) - 1
    }
}

/// Runs a register group of 1 to 4 layers with packed arithmetic.
///
/// # Safety
/// The CPU must have the target features `P`'s methods use (AVX-512 F, BW,
/// DQ, VL, and VPCLMULQDQ for GF(2^64)).
#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,vpclmulqdq")]
pub(crate) unsafe fn run_group<P: Packed>(buf: &mut [P::F], group: &GroupKernel<'_, P::F>) {
    // Every (radix, butterfly) pair is its own monomorphic loop: no branch on
    // the kind inside the butterflies, and the layer loops unroll.
    macro_rules! by_kind {
        ($r:literal) => {
            match group.kind {
                ButterflyKind::CooleyTukey => run::<P, $r, CT>(buf, group),
                ButterflyKind::GentlemanSande => run::<P, $r, GS>(buf, group),
                ButterflyKind::Additive => run::<P, $r, ADD>(buf, group),
                ButterflyKind::AdditiveInverse => run::<P, $r, ADD_INV>(buf, group),
            }
        };
    }
    match group.log_radix {
        1 => by_kind!(2),
        2 => by_kind!(4),
        3 => by_kind!(8),
        4 => by_kind!(16),
        g => panic!("packed register groups merge 1 to 4 layers, not {g}"),
    }
}

const CT: u8 = 0;
const GS: u8 = 1;
const ADD: u8 = 2;
const ADD_INV: u8 = 3;

#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,vpclmulqdq")]
fn run<P: Packed, const R: usize, const KIND: u8>(buf: &mut [P::F], group: &GroupKernel<'_, P::F>) {
    let block_len = group.width << group.log_rows;
    let run_len = block_len / R;
    assert!(run_len > 0 && buf.len() % block_len == 0);
    let scale = group
        .scale
        .map(|s| P::broadcast(<P::F as Field>::prepare_twiddle(s)));
    for (block, twiddles) in buf
        .chunks_exact_mut(block_len)
        .zip(group.twiddles.chunks_exact(R - 1).cycle())
    {
        let w: [P::Twiddle; R] = core::array::from_fn(|k| P::broadcast(twiddles[k.min(R - 2)]));
        for start in (0..run_len).step_by(P::LANES) {
            let n = P::LANES.min(run_len - start);
            let mut x: [P; R] = core::array::from_fn(|j| P::load(&block[j * run_len + start..], n));
            let g = R.trailing_zeros() as usize;
            if KIND == CT || KIND == ADD {
                for i in 0..g {
                    layer::<P, R, KIND>(&mut x, &w, i);
                }
            } else {
                for i in (0..g).rev() {
                    layer::<P, R, KIND>(&mut x, &w, i);
                }
            }
            if let Some(s) = scale {
                x = x.map(|v| v.mul(s));
            }
            for (j, v) in x.iter().enumerate() {
                v.store(&mut block[j * run_len + start..], n);
            }
        }
    }
}

/// Layer i of a butterfly set of R rows in registers.
#[inline(always)]
fn layer<P: Packed, const R: usize, const KIND: u8>(x: &mut [P; R], w: &[P::Twiddle; R], i: usize) {
    let half = R >> (i + 1);
    for k in 0..1usize << i {
        let t = w[(1 << i) - 1 + k];
        for j in k * 2 * half..k * 2 * half + half {
            let (a, b) = (x[j], x[j + half]);
            (x[j], x[j + half]) = match KIND {
                CT => {
                    let m = b.mul(t);
                    (a.add(m), a.sub(m))
                }
                GS => (a.add(b), a.sub(b).mul(t)),
                ADD => {
                    let a = a.add(b.mul(t));
                    (a, b.add(a))
                }
                _ => {
                    let b = b.add(a);
                    (a.add(b.mul(t)), b)
                }
            };
        }
    }
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

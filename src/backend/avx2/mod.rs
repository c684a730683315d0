//! AVX2 packed forms of the fields, for the generic register-group kernel of
//! `backend::packed`: 8 × u32 (31-bit Montgomery fields) and 4 × u64
//! (Goldilocks; GF(2^64) with 256-bit `vpclmulqdq`) per ymm. This is the
//! SIMD path of x86-64 CPUs without AVX-512 (AMD Zen 2/3, Intel before Ice
//! Lake and its client parts since Alder Lake).
//!
//! The arithmetic is that of the AVX-512 forms on half the lanes, bit for bit
//! the scalar fields' results; AVX2 lacks unsigned 64-bit compares and
//! masked loads of arbitrary width, so Goldilocks carries and borrows are
//! signed compares of sign-flipped words and loads of fewer than a
//! register's lanes go through a small stack buffer.
//!
//! Two sets of entry points: [`plain`] (AVX2 only) for the Montgomery fields
//! and Goldilocks, [`clmul`] (AVX2 with PCLMULQDQ and VPCLMULQDQ) for
//! GF(2^64), so a CPU with AVX2 but without 256-bit carry-less products
//! (Haswell to Coffee Lake) still runs the prime fields here.

pub(crate) mod products;
pub(crate) mod ring;

use crate::backend::packed::{
    lazy_ct_butterfly, lazy_sum_difference, LazySteps, Packed, PowerOfTwo,
};
use crate::field::{Gf2_64, Goldilocks, Monty31, MontyParams, ShoupTwiddle, FOLD_TOP_NIBBLE};
use core::arch::x86_64::*;
use core::marker::PhantomData;

/// The packed kernel compiled with AVX2 (prime fields).
pub(crate) mod plain {
    // `run_group` and `run_group_moving`, compiled with AVX2: callers reach
    // them only after `Backend::check` found AVX2.
    crate::backend::packed::packed_entry_points!("avx2", available: true);
}

/// The packed kernel compiled with AVX2, PCLMULQDQ and VPCLMULQDQ (GF(2^64)).
pub(crate) mod clmul {
    // `run_group` and `run_group_moving`, compiled with AVX2 and VPCLMULQDQ:
    // callers reach them only after `Backend::check` and
    // `Kernels::has_kernels` found those.
    crate::backend::packed::packed_entry_points!(
        "avx2,pclmulqdq,vpclmulqdq",
        available: [x86_has!("pclmulqdq"), x86_has!("vpclmulqdq")] == [true; 2]
    );
}

/// Loads `n ≤ N` words of `s` (the rest zero) as 256 bits: straight from
/// `s` when `n = N` (the kernels' constant case), else through a zeroed
/// stack copy, so nothing past `s[n − 1]` is read. `T` is a field's
/// `repr(transparent)` integer form (any bits are valid for the register).
#[inline(always)]
fn load_words<T: Copy, const N: usize>(s: &[T], n: usize) -> __m256i {
    assert!(n <= N && s.len() >= n && core::mem::size_of::<T>() * N == 32);
    if n == N {
        // SAFETY: AVX was detected before any kernel runs (AVX2 implies it);
        // `s` holds N words of 32 bytes in all (checked).
        unsafe { _mm256_loadu_si256(s.as_ptr().cast()) }
    } else {
        let mut bytes = [0u8; 32];
        // SAFETY: `s` holds n words, n·size_of::<T>() ≤ 32 bytes (checked),
        // copied as plain bytes into `bytes`; AVX was detected.
        unsafe {
            core::ptr::copy_nonoverlapping(
                s.as_ptr().cast::<u8>(),
                bytes.as_mut_ptr(),
                n * core::mem::size_of::<T>(),
            );
            _mm256_loadu_si256(bytes.as_ptr().cast())
        }
    }
}

/// Stores the 32 bytes of `v` (N words) at the front of `s`: a
/// non-temporal (streaming) store where `s` is 32-byte aligned, as
/// `vmovntdq` requires, a plain one elsewhere.
#[inline(always)]
fn stream_32<T: Copy, const N: usize>(v: __m256i, s: &mut [T]) {
    assert!(s.len() >= N && core::mem::size_of::<T>() * N == 32);
    let p = s.as_mut_ptr().cast::<__m256i>();
    // SAFETY: AVX was detected before any kernel runs; `s` holds the 32
    // bytes written (checked); the streaming store is only used at a
    // 32-byte-aligned address. (Under Miri, which cannot run the streaming
    // store's inline assembly, plain stores.)
    unsafe {
        if p.is_aligned() && !cfg!(miri) {
            _mm256_stream_si256(p, v)
        } else {
            _mm256_storeu_si256(p, v)
        }
    }
}

/// Stores the first `n ≤ N` words of `v` to `s`: straight to `s` when
/// `n = N`, else through a stack copy, so nothing past `s[n − 1]` is
/// written. The words are valid `T`s (the kernels keep every lane a field
/// element's `repr(transparent)` form).
#[inline(always)]
fn store_words<T: Copy, const N: usize>(v: __m256i, s: &mut [T], n: usize) {
    assert!(n <= N && s.len() >= n && core::mem::size_of::<T>() * N == 32);
    if n == N {
        // SAFETY: AVX was detected before any kernel runs; `s` holds N words
        // of 32 bytes in all (checked).
        unsafe { _mm256_storeu_si256(s.as_mut_ptr().cast(), v) }
    } else {
        let mut bytes = [0u8; 32];
        // SAFETY: `bytes` is 32 writable bytes; then n words, at most 32
        // bytes (checked), are copied into `s`, which holds them.
        unsafe {
            _mm256_storeu_si256(bytes.as_mut_ptr().cast(), v);
            core::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                s.as_mut_ptr().cast::<u8>(),
                n * core::mem::size_of::<T>(),
            );
        }
    }
}

/// `a`, hidden from the optimizer (an empty `asm!` block; the identity under
/// Miri, which cannot run `asm!`).
///
/// # Safety
/// The CPU must have AVX.
#[inline]
#[target_feature(enable = "avx")]
unsafe fn opaque(a: __m256i) -> __m256i {
    #[cfg(not(miri))]
    {
        let mut a = a;
        // SAFETY: the template is empty: the register is read and written
        // back unchanged, nothing else is touched.
        unsafe {
            core::arch::asm!("/* {0} */", inout(ymm_reg) a, options(pure, nomem, nostack, preserves_flags));
        }
        a
    }
    #[cfg(miri)]
    {
        a
    }
}

/// One exchange step on 32-bit lanes (see [`Packed::exchange`]).
#[inline(always)]
fn exchange_32(a: __m256i, b: __m256i, bit: usize) -> (__m256i, __m256i) {
    // SAFETY: AVX2 was detected before any kernel runs.
    unsafe {
        match bit {
            0 => (
                _mm256_blend_epi32::<0b1010_1010>(a, _mm256_slli_epi64::<32>(b)),
                _mm256_blend_epi32::<0b1010_1010>(_mm256_srli_epi64::<32>(a), b),
            ),
            1 => exchange_64(a, b, 0),
            2 => exchange_64(a, b, 1),
            _ => panic!("8 lanes have 3 lane bits, not {}", bit + 1),
        }
    }
}

/// One exchange step on 64-bit lanes (see [`Packed::exchange`]).
#[inline(always)]
fn exchange_64(a: __m256i, b: __m256i, bit: usize) -> (__m256i, __m256i) {
    // SAFETY: AVX2 was detected before any kernel runs.
    unsafe {
        match bit {
            0 => (_mm256_unpacklo_epi64(a, b), _mm256_unpackhi_epi64(a, b)),
            1 => (
                _mm256_permute2x128_si256::<0x20>(a, b),
                _mm256_permute2x128_si256::<0x31>(a, b),
            ),
            _ => panic!("4 lanes have 2 lane bits, not {}", bit + 1),
        }
    }
}

/// Lane i of the result holds 64-bit word `i >> shift` of `v`.
#[inline(always)]
fn spread_64(v: __m256i, shift: usize) -> __m256i {
    // SAFETY: AVX2 was detected before any kernel runs.
    unsafe {
        match shift {
            0 => v,
            1 => _mm256_permute4x64_epi64::<0b01_01_00_00>(v),
            2 => _mm256_permute4x64_epi64::<0>(v),
            _ => panic!("4 lanes spread by at most 2 bits, not {shift}"),
        }
    }
}

/// The odd 32-bit lanes of `a`, moved to the even positions.
#[inline(always)]
fn odd_lanes(a: __m256i) -> __m256i {
    // SAFETY: AVX was detected before any kernel runs.
    unsafe { _mm256_castps_si256(_mm256_movehdup_ps(_mm256_castsi256_ps(a))) }
}

/// The high 32-bit halves of the 64-bit lanes of `even` (into the even
/// positions) and of `odd` (kept in the odd positions).
#[inline(always)]
fn high_halves(even: __m256i, odd: __m256i) -> __m256i {
    // SAFETY: AVX2 was detected before any kernel runs.
    unsafe { _mm256_blend_epi32::<0b1010_1010>(odd_lanes(even), odd) }
}

/// A 31-bit Montgomery field (BabyBear, KoalaBear): 8 elements per ymm,
/// computed as [`PackedMonty31`](super::avx512) does on AVX-512: elements in
/// Montgomery form, products by twiddles with Shoup's method (q = ⌊a·k/2^32⌋
/// from `vpmuludq` on the even and the odd lanes, r = a·w − q·p from two
/// `vpmulld`), and `min(r, r ± p)` to bring sums, differences and products
/// to [0, p).
#[derive(Clone, Copy)]
pub(crate) struct PackedMonty31<P: MontyParams>(__m256i, PhantomData<P>);

/// A twiddle register for [`PackedMonty31`]: the twiddle's plain value w and
/// its Shoup quotient k = ⌊w·2^32/p⌋ ([`Monty31::shoup`]), with k's odd lanes
/// also moved to the even positions (the same register for a broadcast
/// twiddle).
#[derive(Clone, Copy)]
pub(crate) struct MontyTwiddle {
    w: __m256i,
    k: __m256i,
    k_odd: __m256i,
}

impl<P: MontyParams> PackedMonty31<P> {
    #[inline(always)]
    fn wrap(v: __m256i) -> Self {
        Self(v, PhantomData)
    }

    #[inline(always)]
    fn prime() -> __m256i {
        // SAFETY: AVX was detected before any kernel runs.
        unsafe { _mm256_set1_epi32(P::PRIME as i32) }
    }
}

impl<P: MontyParams> LazySteps for PackedMonty31<P> {
    #[inline(always)]
    fn reduce_lazy(self) -> Self {
        // SAFETY: AVX2 was detected before any kernel runs.
        unsafe {
            Self::wrap(_mm256_min_epu32(
                self.0,
                _mm256_sub_epi32(self.0, Self::prime()),
            ))
        }
    }

    #[inline(always)]
    fn sum_difference_below_2p(self, b: Self) -> (Self, Self) {
        // SAFETY: AVX2 was detected before any kernel runs.
        unsafe {
            (
                Self::wrap(_mm256_add_epi32(self.0, b.0)),
                Self::wrap(_mm256_add_epi32(
                    _mm256_sub_epi32(self.0, b.0),
                    Self::prime(),
                )),
            )
        }
    }
}

impl<P: MontyParams> Packed for PackedMonty31<P> {
    const NAME: &'static str = "avx2 Montgomery";
    const TRANSPOSED_NAME: &'static str = "avx2 Montgomery, blocks transposed in registers";
    type F = Monty31<P>;
    const LANES: usize = 8;
    type Twiddle = MontyTwiddle;

    #[inline(always)]
    fn load(s: &[Self::F], n: usize) -> Self {
        Self::wrap(load_words::<Self::F, 8>(s, n))
    }

    #[inline(always)]
    fn store(self, s: &mut [Self::F], n: usize) {
        store_words::<Self::F, 8>(self.0, s, n)
    }

    #[inline(always)]
    fn store_streaming(self, s: &mut [Self::F]) {
        stream_32::<Self::F, 8>(self.0, s)
    }

    #[inline(always)]
    fn broadcast(t: ShoupTwiddle<P>) -> MontyTwiddle {
        // SAFETY: AVX was detected before any kernel runs.
        unsafe {
            // Opaque, so LLVM does not see a splat it can multiply as 64 bits.
            let k = opaque(_mm256_set1_epi32(t.quotient() as i32));
            MontyTwiddle {
                w: _mm256_set1_epi32(t.plain() as i32),
                k,
                k_odd: k,
            }
        }
    }

    #[inline(always)]
    fn add(self, b: Self) -> Self {
        // SAFETY: AVX2 was detected before any kernel runs.
        unsafe {
            let t = _mm256_add_epi32(self.0, b.0);
            Self::wrap(_mm256_min_epu32(t, _mm256_sub_epi32(t, Self::prime())))
        }
    }

    #[inline(always)]
    fn sub(self, b: Self) -> Self {
        // SAFETY: AVX2 was detected before any kernel runs.
        unsafe {
            let t = _mm256_sub_epi32(self.0, b.0);
            Self::wrap(_mm256_min_epu32(t, _mm256_add_epi32(t, Self::prime())))
        }
    }

    #[inline(always)]
    fn mul(self, t: MontyTwiddle) -> Self {
        // SAFETY: AVX2 was detected before any kernel runs.
        unsafe {
            let p = Self::prime();
            let a = self.0;
            // Shoup: r = a·w − ⌊a·k/2^32⌋·p (mod 2^32) lies in [0, 2p).
            let q = high_halves(
                _mm256_mul_epu32(a, t.k),
                _mm256_mul_epu32(odd_lanes(a), t.k_odd),
            );
            let r = _mm256_sub_epi32(_mm256_mullo_epi32(a, t.w), _mm256_mullo_epi32(q, p));
            Self::wrap(_mm256_min_epu32(r, _mm256_sub_epi32(r, p)))
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
        let (x, y) = exchange_32(self.0, b.0, bit);
        (Self::wrap(x), Self::wrap(y))
    }

    #[inline(always)]
    fn load_twiddles(t: &[ShoupTwiddle<P>], shift: usize) -> MontyTwiddle {
        let n = 8 >> shift;
        // SAFETY: AVX2 was detected before any kernel runs.
        let (w, k) = unsafe {
            if n == 8 {
                // Each half's four pairs (w, k) sorted into [w w w w k k k k],
                // then the halves' w and k quarters put together.
                let sort = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
                let a = _mm256_permutevar8x32_epi32(load_words::<_, 4>(t, 4), sort);
                let b = _mm256_permutevar8x32_epi32(load_words::<_, 4>(&t[4..], 4), sort);
                (
                    _mm256_permute2x128_si256::<0x20>(a, b),
                    _mm256_permute2x128_si256::<0x31>(a, b),
                )
            } else {
                // Lane i takes pair i >> shift: words 2·(i >> shift) and the next.
                let v = load_words::<_, 4>(t, n);
                let pair = _mm256_slli_epi32::<1>(_mm256_srlv_epi32(
                    _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                    _mm256_set1_epi32(shift as i32),
                ));
                (
                    _mm256_permutevar8x32_epi32(v, pair),
                    _mm256_permutevar8x32_epi32(v, _mm256_add_epi32(pair, _mm256_set1_epi32(1))),
                )
            }
        };
        MontyTwiddle {
            w,
            k,
            // SAFETY: AVX2 was detected before any kernel runs.
            k_odd: unsafe { _mm256_srli_epi64::<32>(k) },
        }
    }

    #[inline(always)]
    fn twiddle_is_trivial(t: &ShoupTwiddle<P>) -> bool {
        t.plain() == 1
    }
}

/// Unsigned `a < b` on 64-bit lanes, as all-ones lanes: a signed compare
/// of the words with their top bits flipped.
#[inline(always)]
fn less_u64(a: __m256i, b: __m256i) -> __m256i {
    // SAFETY: AVX2 was detected before any kernel runs.
    unsafe {
        let top = _mm256_set1_epi64x(i64::MIN);
        _mm256_cmpgt_epi64(_mm256_xor_si256(b, top), _mm256_xor_si256(a, top))
    }
}

/// `vpmuludq`: the products of the qwords' low 32-bit halves, kept opaque
/// to LLVM. Given the intrinsic, LLVM folds the four half products of a
/// 64 × 64 multiply back into generic 64-bit multiplies and lowers each of
/// those to three `vpmuludq` (AVX2 has no `vpmullq`): the Goldilocks
/// product took 8 multiplies instead of 4 (seen in the disassembly). Miri
/// runs no assembly, so it gets the intrinsic. (A `target_feature`
/// function, so that the `ymm` register class exists; it inlines into the
/// kernels, which are compiled with AVX2.)
#[inline]
#[target_feature(enable = "avx2")]
fn mul_halves(a: __m256i, b: __m256i) -> __m256i {
    #[cfg(not(miri))]
    {
        let out: __m256i;
        // SAFETY: the caller runs with AVX2 (this function's feature); the
        // instruction reads two registers and writes one, touching no
        // memory or flags.
        unsafe {
            core::arch::asm!(
                "vpmuludq {out}, {a}, {b}",
                out = lateout(ymm_reg) out,
                a = in(ymm_reg) a,
                b = in(ymm_reg) b,
                options(pure, nomem, nostack, preserves_flags),
            );
        }
        out
    }
    #[cfg(miri)]
    {
        _mm256_mul_epu32(a, b)
    }
}

/// Goldilocks (p = 2^64 − 2^32 + 1): 4 canonical elements per ymm, computed
/// as the AVX-512 form does (four `vpmuludq` of 32-bit halves, reduced by
/// 2^64 ≡ 2^32 − 1 and 2^96 ≡ −1) with carries and borrows as compare masks.
#[derive(Clone, Copy)]
pub(crate) struct PackedGoldilocks(__m256i);

/// A Goldilocks twiddle register: w and its high 32-bit halves.
/// `vpsllvq` (`LEFT`) or `vpsrlvq` by one count in every lane: counts of 64
/// and more give 0. Under Miri the same on arrays.
#[inline(always)]
fn shift_64x4<const LEFT: bool>(a: __m256i, count: u64) -> __m256i {
    #[cfg(not(miri))]
    {
        // SAFETY: AVX2 was detected before any kernel runs.
        unsafe {
            let c = _mm256_set1_epi64x(count as i64);
            if LEFT {
                _mm256_sllv_epi64(a, c)
            } else {
                _mm256_srlv_epi64(a, c)
            }
        }
    }
    #[cfg(miri)]
    {
        // SAFETY: __m256i and [u64; 4] have the same size; any bits are valid.
        let a: [u64; 4] = unsafe { core::mem::transmute(a) };
        let r = a.map(|x| match (count < 64, LEFT) {
            (false, _) => 0,
            (true, true) => x << count,
            (true, false) => x >> count,
        });
        // SAFETY: as above.
        unsafe { core::mem::transmute(r) }
    }
}

#[derive(Clone, Copy)]
pub(crate) struct GoldilocksTwiddle {
    w: __m256i,
    w_hi: __m256i,
}

impl PackedGoldilocks {
    #[inline(always)]
    fn prime() -> __m256i {
        // SAFETY: AVX was detected before any kernel runs.
        unsafe { _mm256_set1_epi64x(Goldilocks::MODULUS as i64) }
    }

    #[inline(always)]
    fn epsilon() -> __m256i {
        // SAFETY: AVX was detected before any kernel runs.
        unsafe { _mm256_set1_epi64x(0xffff_ffff) }
    }

    /// 2^63 in every lane. A word x "shifted" is x ⊕ 2^63 (= x + 2^63 mod
    /// 2^64): unsigned order of words is signed order of shifted words, so
    /// one `vpcmpgtq` compares them, and a sum or difference of a shifted
    /// and an unshifted word is the shifted result.
    #[inline(always)]
    fn sign() -> __m256i {
        // SAFETY: AVX was detected before any kernel runs.
        unsafe { _mm256_set1_epi64x(i64::MIN) }
    }

    /// a·w mod p, canonical and shifted, for canonical a (the form
    /// Plonky3's AVX2 Goldilocks reduces in): the 128-bit product from four
    /// `vpmuludq` of 32-bit halves, then lo − hi_hi + hi_lo·(2^32 − 1)
    /// (2^96 ≡ −1, 2^64 ≡ 2^32 − 1) on the shifted low word, each carry or
    /// borrow found by a 32-bit compare of the high halves (exact here: the
    /// term added or subtracted is at most 2^64 − 2^32, so the high halves
    /// alone decide), then one conditional subtraction of p.
    #[inline(always)]
    fn mul_shifted(a: __m256i, t: GoldilocksTwiddle) -> __m256i {
        // SAFETY: AVX2 was detected before any kernel runs.
        unsafe {
            let a_hi = Self::high_halves(a);
            // The 128-bit product from 32-bit halves; no sum below overflows.
            let ll = mul_halves(a, t.w);
            let lh = mul_halves(a, t.w_hi);
            let hl = mul_halves(a_hi, t.w);
            let hh = mul_halves(a_hi, t.w_hi);
            let eps = Self::epsilon();
            let mid = _mm256_add_epi64(lh, _mm256_srli_epi64::<32>(ll));
            let mid2 = _mm256_add_epi64(hl, _mm256_and_si256(mid, eps));
            let lo = _mm256_blend_epi32::<0b1010_1010>(ll, _mm256_slli_epi64::<32>(mid2));
            let hi = _mm256_add_epi64(
                _mm256_add_epi64(hh, _mm256_srli_epi64::<32>(mid)),
                _mm256_srli_epi64::<32>(mid2),
            );
            Self::reduce_shifted(lo, _mm256_srli_epi64::<32>(hi), hi)
        }
    }

    /// lo + hi_lo·2^64 + hi_hi·2^96 mod p, canonical and shifted (hi_lo the
    /// low half of `hi`, which `vpmuludq` reads): lo − hi_hi + hi_lo·(2^32
    /// − 1) on the shifted low word. hi_hi < 2^32 from a product, < 2^63
    /// from a shift product: either way a borrow moves the shifted word up
    /// by 2^64 − hi_hi ≥ 2^32 and no borrow moves it down, so the high
    /// halves' 32-bit compare decides the borrow.
    #[inline(always)]
    fn reduce_shifted(lo: __m256i, hi_hi: __m256i, hi: __m256i) -> __m256i {
        // SAFETY: AVX2 was detected before any kernel runs.
        unsafe {
            let eps = Self::epsilon();
            // lo − hi_hi: on borrow, also subtract 2^32 − 1 (the mask's
            // high half shifted down).
            let lo_s = _mm256_xor_si256(lo, Self::sign());
            let r_s = _mm256_sub_epi64(lo_s, hi_hi);
            let borrow = _mm256_cmpgt_epi32(r_s, lo_s);
            let r_s = _mm256_sub_epi64(r_s, _mm256_srli_epi64::<32>(borrow));
            // + hi_lo·(2^32 − 1) ≤ 2^64 − 2^33 + 1: on carry add 2^32 − 1.
            let t1 = mul_halves(hi, eps);
            let u_s = _mm256_add_epi64(r_s, t1);
            let carry = _mm256_cmpgt_epi32(r_s, u_s);
            let u_s = _mm256_add_epi64(u_s, _mm256_srli_epi64::<32>(carry));
            // u mod p: u ≥ p (signed, shifted) takes p off, i.e. adds
            // 2^32 − 1 mod 2^64.
            let p_s = _mm256_set1_epi64x((Goldilocks::MODULUS ^ (1 << 63)) as i64);
            let below = _mm256_cmpgt_epi64(p_s, u_s);
            _mm256_add_epi64(u_s, _mm256_andnot_si256(below, eps))
        }
    }

    /// x·2^k mod p for k < 96, canonical and shifted, by shifts: x·2^k's
    /// three parts ([`PowerOfTwo::split_counts`]) reduced as a product's.
    #[inline(always)]
    fn mul_pow2_shifted(x: __m256i, w: PowerOfTwo) -> __m256i {
        let [low, mid_right, mid_left, high] = w.split_counts();
        // SAFETY: AVX2 was detected before any kernel runs.
        let hi = unsafe {
            _mm256_or_si256(
                shift_64x4::<false>(x, mid_right),
                shift_64x4::<true>(x, mid_left),
            )
        };
        Self::reduce_shifted(shift_64x4::<true>(x, low), shift_64x4::<false>(x, high), hi)
    }

    /// Every lane's bits set where the twiddle is −2^k, none where 2^k.
    #[inline(always)]
    fn sign_mask(w: PowerOfTwo) -> __m256i {
        // SAFETY: AVX was detected before any kernel runs.
        unsafe { _mm256_set1_epi64x(-i64::from(w.negative)) }
    }

    /// (a + b, a − b) mod p, canonical and unshifted, from canonical a and
    /// b given shifted. a + b = a − (p − b), plus p back on borrow, where
    /// (p − b) shifted is p − b_s; a − b, plus p back on borrow. (The
    /// difference of a shifted and a shifted word is the unshifted one.)
    #[inline(always)]
    fn sum_and_difference(a_s: __m256i, b_s: __m256i) -> (Self, Self) {
        // SAFETY: AVX2 was detected before any kernel runs.
        unsafe {
            let p = Self::prime();
            let nb_s = _mm256_sub_epi64(p, b_s);
            let sum = _mm256_sub_epi64(a_s, nb_s);
            let sum_borrow = _mm256_cmpgt_epi64(nb_s, a_s);
            let sum = _mm256_add_epi64(sum, _mm256_and_si256(sum_borrow, p));
            let diff = _mm256_sub_epi64(a_s, b_s);
            let diff_borrow = _mm256_cmpgt_epi64(b_s, a_s);
            let diff = _mm256_add_epi64(diff, _mm256_and_si256(diff_borrow, p));
            (Self(sum), Self(diff))
        }
    }

    #[inline(always)]
    fn twiddle(w: __m256i) -> GoldilocksTwiddle {
        GoldilocksTwiddle {
            w,
            w_hi: Self::high_halves(w),
        }
    }

    /// Each qword's high 32 bits copied into its low half (`vmovshdup`, a
    /// shuffle), for `vpmuludq`, which reads only the low halves. A shift
    /// right by 32 would do too, but LLVM then knows the high halves are
    /// zero, rewrites the `vpmuludq` sums into plain 64-bit multiplies and
    /// lowers those (AVX2 has no `vpmullq`) to three `vpmuludq` each: 8
    /// multiplies per product instead of 5 (seen in the disassembly).
    #[inline(always)]
    fn high_halves(x: __m256i) -> __m256i {
        // SAFETY: AVX was detected before any kernel runs.
        unsafe { _mm256_castps_si256(_mm256_movehdup_ps(_mm256_castsi256_ps(x))) }
    }
}

impl Packed for PackedGoldilocks {
    const NAME: &'static str = "avx2 Goldilocks";
    const TRANSPOSED_NAME: &'static str = "avx2 Goldilocks, blocks transposed in registers";
    type F = Goldilocks;
    const LANES: usize = 4;
    type Twiddle = GoldilocksTwiddle;

    #[inline(always)]
    fn load(s: &[Goldilocks], n: usize) -> Self {
        Self(load_words::<Goldilocks, 4>(s, n))
    }

    #[inline(always)]
    fn store(self, s: &mut [Goldilocks], n: usize) {
        // Every operation returns canonical values.
        store_words::<Goldilocks, 4>(self.0, s, n)
    }

    #[inline(always)]
    fn store_streaming(self, s: &mut [Goldilocks]) {
        stream_32::<Goldilocks, 4>(self.0, s)
    }

    #[inline(always)]
    fn broadcast(w: Goldilocks) -> GoldilocksTwiddle {
        // SAFETY: AVX was detected before any kernel runs.
        Self::twiddle(unsafe { _mm256_set1_epi64x(w.value() as i64) })
    }

    #[inline(always)]
    fn add(self, b: Self) -> Self {
        // SAFETY: AVX2 was detected before any kernel runs.
        unsafe {
            // a + b = a − (p − b), plus p back on borrow (as on AVX-512):
            // one unsigned compare instead of two.
            let p = Self::prime();
            let nb = _mm256_sub_epi64(p, b.0);
            let t = _mm256_sub_epi64(self.0, nb);
            let borrow = less_u64(self.0, nb);
            Self(_mm256_add_epi64(t, _mm256_and_si256(borrow, p)))
        }
    }

    #[inline(always)]
    fn sub(self, b: Self) -> Self {
        // SAFETY: AVX2 was detected before any kernel runs.
        unsafe {
            let d = _mm256_sub_epi64(self.0, b.0);
            let borrow = less_u64(self.0, b.0);
            Self(_mm256_add_epi64(d, _mm256_and_si256(borrow, Self::prime())))
        }
    }

    #[inline(always)]
    fn mul(self, t: GoldilocksTwiddle) -> Self {
        // SAFETY: AVX was detected before any kernel runs.
        Self(unsafe { _mm256_xor_si256(Self::mul_shifted(self.0, t), Self::sign()) })
    }

    #[inline(always)]
    fn ct_butterfly(self, b: Self, t: GoldilocksTwiddle) -> (Self, Self) {
        // SAFETY: AVX was detected before any kernel runs.
        let a_s = unsafe { _mm256_xor_si256(self.0, Self::sign()) };
        // The product stays shifted: both compares read it so.
        Self::sum_and_difference(a_s, Self::mul_shifted(b.0, t))
    }

    #[inline(always)]
    fn gs_butterfly(self, b: Self, t: GoldilocksTwiddle) -> (Self, Self) {
        // SAFETY: AVX was detected before any kernel runs.
        let (a_s, b_s) = unsafe {
            (
                _mm256_xor_si256(self.0, Self::sign()),
                _mm256_xor_si256(b.0, Self::sign()),
            )
        };
        let (sum, diff) = Self::sum_and_difference(a_s, b_s);
        (sum, diff.mul(t))
    }

    const SHIFT_TWIDDLES: bool = true;

    #[inline(always)]
    fn power_of_two(w: &Goldilocks) -> Option<PowerOfTwo> {
        PowerOfTwo::goldilocks(w)
    }

    #[inline(always)]
    fn ct_butterfly_pow2(self, b: Self, w: PowerOfTwo) -> (Self, Self) {
        // (a ± 2^k·b), and for −2^k the two outputs swapped.
        // SAFETY: AVX2 was detected before any kernel runs.
        unsafe {
            let a_s = _mm256_xor_si256(self.0, Self::sign());
            let (s, d) = Self::sum_and_difference(a_s, Self::mul_pow2_shifted(b.0, w));
            let m = Self::sign_mask(w);
            (
                Self(_mm256_blendv_epi8(s.0, d.0, m)),
                Self(_mm256_blendv_epi8(d.0, s.0, m)),
            )
        }
    }

    #[inline(always)]
    fn gs_butterfly_pow2(self, b: Self, w: PowerOfTwo) -> (Self, Self) {
        // (a + b, (a − b)·2^k), and for −2^k the difference the other way.
        // SAFETY: AVX2 was detected before any kernel runs.
        unsafe {
            let (sign, m) = (Self::sign(), Self::sign_mask(w));
            let x_s = _mm256_xor_si256(_mm256_blendv_epi8(self.0, b.0, m), sign);
            let y_s = _mm256_xor_si256(_mm256_blendv_epi8(b.0, self.0, m), sign);
            let (sum, diff) = Self::sum_and_difference(x_s, y_s);
            let product = Self::mul_pow2_shifted(diff.0, w);
            (sum, Self(_mm256_xor_si256(product, sign)))
        }
    }

    #[inline(always)]
    fn exchange(self, b: Self, bit: usize) -> (Self, Self) {
        let (x, y) = exchange_64(self.0, b.0, bit);
        (Self(x), Self(y))
    }

    #[inline(always)]
    fn load_twiddles(w: &[Goldilocks], shift: usize) -> GoldilocksTwiddle {
        let v = load_words::<Goldilocks, 4>(w, 4 >> shift);
        Self::twiddle(spread_64(v, shift))
    }

    #[inline(always)]
    fn twiddle_is_trivial(w: &Goldilocks) -> bool {
        *w == Goldilocks::ONE
    }
}

/// GF(2^64): 4 elements per ymm. Products: 256-bit `vpclmulqdq` on the even
/// and the odd qwords, then the reduction by x^64 + x^4 + x^3 + x + 1 as on
/// AVX-512 (hi·(x + 1)·(x^3 + 1) by shifts and XORs, the bits pushed past
/// x^63 folded by one `vpshufb` lookup, [`FOLD_TOP_NIBBLE`]); without
/// `vpternlogq`, the three-way XOR is two.
#[derive(Clone, Copy)]
pub(crate) struct PackedGf2_64(__m256i);

impl Packed for PackedGf2_64 {
    const NAME: &'static str = "avx2 vpclmulqdq";
    const TRANSPOSED_NAME: &'static str = "avx2 vpclmulqdq, blocks transposed in registers";
    type F = Gf2_64;
    const LANES: usize = 4;
    type Twiddle = __m256i;

    #[inline(always)]
    fn load(s: &[Gf2_64], n: usize) -> Self {
        Self(load_words::<Gf2_64, 4>(s, n))
    }

    #[inline(always)]
    fn store(self, s: &mut [Gf2_64], n: usize) {
        store_words::<Gf2_64, 4>(self.0, s, n)
    }

    #[inline(always)]
    fn store_streaming(self, s: &mut [Gf2_64]) {
        stream_32::<Gf2_64, 4>(self.0, s)
    }

    #[inline(always)]
    fn broadcast(w: Gf2_64) -> __m256i {
        // SAFETY: AVX was detected before any kernel runs.
        unsafe { _mm256_set1_epi64x(w.bits() as i64) }
    }

    #[inline(always)]
    fn add(self, b: Self) -> Self {
        // SAFETY: AVX2 was detected before any kernel runs.
        unsafe { Self(_mm256_xor_si256(self.0, b.0)) }
    }

    #[inline(always)]
    fn sub(self, b: Self) -> Self {
        self.add(b)
    }

    #[inline(always)]
    fn mul(self, w: __m256i) -> Self {
        // SAFETY: AVX2 and VPCLMULQDQ were detected before any plan used
        // this backend for GF(2^64) (`Kernels::has_kernels`).
        unsafe {
            let even = _mm256_clmulepi64_epi128::<0x00>(self.0, w);
            let odd = _mm256_clmulepi64_epi128::<0x11>(self.0, w);
            let lo = _mm256_unpacklo_epi64(even, odd);
            let hi = _mm256_unpackhi_epi64(even, odd);
            let fold = _mm256_shuffle_epi8(
                _mm256_broadcastsi128_si256(_mm_loadu_si128(FOLD_TOP_NIBBLE.as_ptr().cast())),
                _mm256_srli_epi64::<60>(hi),
            );
            let t = _mm256_xor_si256(hi, _mm256_slli_epi64::<1>(hi));
            let r = _mm256_xor_si256(_mm256_xor_si256(lo, t), _mm256_slli_epi64::<3>(t));
            Self(_mm256_xor_si256(r, fold))
        }
    }

    #[inline(always)]
    fn exchange(self, b: Self, bit: usize) -> (Self, Self) {
        let (x, y) = exchange_64(self.0, b.0, bit);
        (Self(x), Self(y))
    }

    #[inline(always)]
    fn load_twiddles(w: &[Gf2_64], shift: usize) -> __m256i {
        spread_64(load_words::<Gf2_64, 4>(w, 4 >> shift), shift)
    }

    #[inline(always)]
    fn twiddle_is_trivial(w: &Gf2_64) -> bool {
        w.bits() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[allow(unused_imports)]
    use crate::test_prelude::*;

    /// The packed Goldilocks checks (`packed::goldilocks_checks`) with AVX2:
    /// the general products and butterflies, and the shift butterflies.
    ///
    /// # Safety
    /// The CPU has AVX2.
    #[target_feature(enable = "avx2")]
    unsafe fn check_every_triple() {
        crate::backend::packed::goldilocks_checks::every_triple::<PackedGoldilocks>();
        crate::backend::packed::goldilocks_checks::every_power_of_two::<PackedGoldilocks>();
    }

    #[test]
    fn goldilocks_butterflies_match_the_field_at_the_reduction_edges() {
        if !x86_has!("avx2") {
            return;
        }
        // SAFETY: detected just above.
        unsafe { check_every_triple() }
    }
}

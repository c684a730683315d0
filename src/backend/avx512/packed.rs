//! AVX-512 packed forms of the fields, for the generic register-group
//! kernel of `backend::packed`: 8 × u64 (GF(2^64)) and 16 × u32 (31-bit
//! Montgomery fields) per zmm. Tails shorter than a register use masked
//! loads and stores.

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

/// `permutex2var` indices for [`Packed::exchange`] on `N` lanes at lane bit
/// `bit`: the first output keeps lanes with the bit clear from `a` and takes
/// the others from `b` one piece lower; the second takes `a` one piece higher
/// where the bit is clear and keeps `b` elsewhere.
const fn exchange_indices<const N: usize>(bit: usize) -> [[u32; N]; 2] {
    let mut idx = [[0u32; N]; 2];
    let d = 1 << bit;
    let mut x = 0;
    while x < N {
        if x & d == 0 {
            idx[0][x] = x as u32;
            idx[1][x] = (x + d) as u32;
        } else {
            idx[0][x] = (N + x - d) as u32;
            idx[1][x] = (N + x) as u32;
        }
        x += 1;
    }
    idx
}

/// `permutexvar` indices spreading `N >> shift` values over `N` lanes
/// (lane i takes value i >> shift).
const fn spread_indices<const N: usize>(shift: usize) -> [u32; N] {
    let mut idx = [0u32; N];
    let mut x = 0;
    while x < N {
        idx[x] = (x >> shift) as u32;
        x += 1;
    }
    idx
}

const EXCHANGE_32: [[[u32; 16]; 2]; 4] = [
    exchange_indices::<16>(0),
    exchange_indices::<16>(1),
    exchange_indices::<16>(2),
    exchange_indices::<16>(3),
];
const SPREAD_32: [[u32; 16]; 5] = [
    spread_indices::<16>(0),
    spread_indices::<16>(1),
    spread_indices::<16>(2),
    spread_indices::<16>(3),
    spread_indices::<16>(4),
];
const EXCHANGE_64: [[[u64; 8]; 2]; 3] = widen(&[
    exchange_indices::<8>(0),
    exchange_indices::<8>(1),
    exchange_indices::<8>(2),
]);
const SPREAD_64: [[u64; 8]; 4] = [
    widen1(spread_indices::<8>(0)),
    widen1(spread_indices::<8>(1)),
    widen1(spread_indices::<8>(2)),
    widen1(spread_indices::<8>(3)),
];

const fn widen1(v: [u32; 8]) -> [u64; 8] {
    let mut out = [0u64; 8];
    let mut i = 0;
    while i < 8 {
        out[i] = v[i] as u64;
        i += 1;
    }
    out
}

const fn widen(v: &[[[u32; 8]; 2]; 3]) -> [[[u64; 8]; 2]; 3] {
    let mut out = [[[0u64; 8]; 2]; 3];
    let mut b = 0;
    while b < 3 {
        out[b][0] = widen1(v[b][0]);
        out[b][1] = widen1(v[b][1]);
        b += 1;
    }
    out
}

/// Loads 512 bits of indices (unused under Miri, which emulates the
/// permutes on arrays).
#[cfg(not(miri))]
#[inline(always)]
fn indices<T>(idx: &[T]) -> __m512i {
    assert_eq!(core::mem::size_of_val(idx), 64);
    // SAFETY: AVX-512 F was detected before any kernel runs; `idx` is 64
    // readable bytes (checked).
    unsafe { _mm512_loadu_si512(idx.as_ptr().cast()) }
}

/// `vpermt2d`: lane x of the result is lane `idx[x] mod 16` of `a`, or of
/// `b` when bit 4 of `idx[x]` is set. Under Miri, which lacks the
/// intrinsic, the same selection on arrays.
#[inline(always)]
fn permute2_32(a: __m512i, idx: &[u32; 16], b: __m512i) -> __m512i {
    #[cfg(not(miri))]
    {
        // SAFETY: AVX-512 F was detected before any kernel runs.
        unsafe { _mm512_permutex2var_epi32(a, indices(idx), b) }
    }
    #[cfg(miri)]
    {
        // SAFETY: __m512i and [u32; 16] have the same size; any bits are valid.
        let (a, b): ([u32; 16], [u32; 16]) =
            unsafe { (core::mem::transmute(a), core::mem::transmute(b)) };
        let r: [u32; 16] = core::array::from_fn(|x| {
            if idx[x] & 16 == 0 {
                a[idx[x] as usize & 15]
            } else {
                b[idx[x] as usize & 15]
            }
        });
        // SAFETY: as above.
        unsafe { core::mem::transmute(r) }
    }
}

/// `vpermt2q`: as [`permute2_32`] on 8 × u64 (bit 3 of the index picks `b`).
#[inline(always)]
fn permute2_64(a: __m512i, idx: &[u64; 8], b: __m512i) -> __m512i {
    #[cfg(not(miri))]
    {
        // SAFETY: AVX-512 F was detected before any kernel runs.
        unsafe { _mm512_permutex2var_epi64(a, indices(idx), b) }
    }
    #[cfg(miri)]
    {
        // SAFETY: __m512i and [u64; 8] have the same size; any bits are valid.
        let (a, b): ([u64; 8], [u64; 8]) =
            unsafe { (core::mem::transmute(a), core::mem::transmute(b)) };
        let r: [u64; 8] = core::array::from_fn(|x| {
            if idx[x] & 8 == 0 {
                a[idx[x] as usize & 7]
            } else {
                b[idx[x] as usize & 7]
            }
        });
        // SAFETY: as above.
        unsafe { core::mem::transmute(r) }
    }
}

// `run_group` and `run_group_moving`, compiled with AVX-512 F, BW, DQ, VL,
// VPCLMULQDQ and GFNI: callers reach them only after `Backend::check` found
// those. (Every CPU with AVX-512 and VPCLMULQDQ has GFNI: Ice Lake and
// later, Zen 4 and later.)
crate::backend::packed::packed_entry_points!("avx512f,avx512bw,avx512dq,avx512vl,vpclmulqdq,gfni");

/// GF(2^64): 8 elements per zmm. Products: `vpclmulqdq` on the even and the
/// odd qwords (of the element and of the twiddle, so twiddles may differ per
/// lane), then the reduction by x^64 + x^4 + x^3 + x + 1, hi·x^64 ≡
/// hi·(x^4 + x^3 + x + 1), done byte by byte with GFNI's bit-matrix
/// multiply (`vgf2p8affineqb`): three of them ([`FOLD_OWN`], [`FOLD_CARRY`],
/// [`FOLD_WRAP`]) and one rotate, summed with the low word by one three-way
/// XOR (`vpternlogq 0x96`). Nine instructions, three of them shuffles or
/// shifts; the shift-XOR fold with a `vpshufb` lookup it replaces took
/// eleven, six of them on the shuffle and shift pipes that bound the
/// kernel on Zen 4 (about 10% slower, measured by the `binary` bench's
/// register ceiling).
#[derive(Clone, Copy)]
pub(crate) struct PackedGf2_64(__m512i);

/// The 8 × 8 bit matrix of the linear map on bytes given by its images of
/// the 8 unit bytes, as `vgf2p8affineqb` reads it: byte 7 − i holds the
/// input bits that output bit i sums.
const fn affine_matrix(images: [u8; 8]) -> u64 {
    let mut m = 0u64;
    let mut i = 0;
    while i < 8 {
        let mut row = 0u8;
        let mut j = 0;
        while j < 8 {
            if (images[j] >> i) & 1 == 1 {
                row |= 1 << j;
            }
            j += 1;
        }
        m |= (row as u64) << (8 * (7 - i));
        i += 1;
    }
    m
}

/// hi·(x^4 + x^3 + x + 1) byte by byte: a byte's own bits below x^8.
const fn fold_own(b: u8) -> u8 {
    b ^ (b << 1) ^ (b << 3) ^ (b << 4)
}

/// The bits a byte of hi·(x^4 + x^3 + x + 1) carries into the next byte up.
const fn fold_carry(b: u8) -> u8 {
    (b >> 7) ^ (b >> 5) ^ (b >> 4)
}

/// The bits the top byte pushes past x^63, folded once more into byte 0.
const fn fold_wrap(b: u8) -> u8 {
    fold_own(fold_carry(b))
}

/// The images of the unit bytes under `f`.
macro_rules! unit_images {
    ($f:ident) => {
        [$f(1), $f(2), $f(4), $f(8), $f(16), $f(32), $f(64), $f(128)]
    };
}

/// The matrix of [`fold_own`].
const FOLD_OWN: u64 = affine_matrix(unit_images!(fold_own));
/// The matrix of [`fold_carry`].
const FOLD_CARRY: u64 = affine_matrix(unit_images!(fold_carry));
/// The matrix of [`fold_wrap`].
const FOLD_WRAP: u64 = affine_matrix(unit_images!(fold_wrap));

/// Stores the 64 bytes of `v` at the front of `s`: a non-temporal
/// (streaming) store where `s` is 64-byte aligned, as `vmovntdq` requires,
/// a plain one elsewhere.
#[inline(always)]
fn stream_64<T>(v: __m512i, s: &mut [T]) {
    assert!(core::mem::size_of_val(s) >= 64);
    let p = s.as_mut_ptr().cast::<__m512i>();
    // SAFETY: AVX-512 F was detected before any kernel runs; the 64 bytes
    // written are in bounds (checked); the streaming store is only used at
    // a 64-byte-aligned address. (Under Miri, which cannot run the
    // streaming store's inline assembly, plain stores.)
    unsafe {
        if p.is_aligned() && !cfg!(miri) {
            _mm512_stream_si512(p.cast(), v)
        } else {
            _mm512_storeu_si512(p.cast(), v)
        }
    }
}

/// Lanes `[0, h)` of 16 × u32 from `lo` and lanes `[h, 16)` from `hi`'s
/// first `16 − h` (two masked loads: each reads one cache line where the
/// run they come from is re-framed, see `Packed::ALIGN`).
#[inline(always)]
fn load_pair_32<T>(lo: &[T], hi: &[T], h: usize) -> __m512i {
    assert!(
        core::mem::size_of::<T>() == 4 && 0 < h && h < 16 && lo.len() >= h && hi.len() >= 16 - h
    );
    let m = lanes_mask(h);
    // SAFETY: AVX-512 F was detected before any kernel runs. The first load
    // reads lanes [0, h) from `lo`, in bounds; the second reads lanes
    // [h, 16) at `hi` − h + lane, that is hi[0 .. 16 − h], in bounds; its
    // masked-off lanes are not accessed (the pointer below `hi` is only
    // formed, with wrapping arithmetic, never read through).
    unsafe {
        let x = _mm512_maskz_loadu_epi32(m, lo.as_ptr().cast());
        _mm512_mask_loadu_epi32(x, !m, hi.as_ptr().cast::<i32>().wrapping_sub(h))
    }
}

/// Stores lanes `[0, h)` of 16 × u32 to `lo` and lanes `[h, 16)` to `hi`'s
/// first `16 − h`: the inverse of [`load_pair_32`].
#[inline(always)]
fn store_pair_32<T>(v: __m512i, lo: &mut [T], hi: &mut [T], h: usize) {
    assert!(
        core::mem::size_of::<T>() == 4 && 0 < h && h < 16 && lo.len() >= h && hi.len() >= 16 - h
    );
    let m = lanes_mask(h);
    // SAFETY: as in `load_pair_32`, for writes: lanes [0, h) go to lo[..h],
    // lanes [h, 16) to hi[..16 − h]; masked-off lanes are not written.
    unsafe {
        _mm512_mask_storeu_epi32(lo.as_mut_ptr().cast(), m, v);
        _mm512_mask_storeu_epi32(hi.as_mut_ptr().cast::<i32>().wrapping_sub(h), !m, v);
    }
}

/// [`load_pair_32`] for 8 × u64.
#[inline(always)]
fn load_pair_64<T>(lo: &[T], hi: &[T], h: usize) -> __m512i {
    assert!(core::mem::size_of::<T>() == 8 && 0 < h && h < 8 && lo.len() >= h && hi.len() >= 8 - h);
    let m = lanes_mask(h) as u8;
    // SAFETY: as in `load_pair_32`, with 8-byte lanes.
    unsafe {
        let x = _mm512_maskz_loadu_epi64(m, lo.as_ptr().cast());
        _mm512_mask_loadu_epi64(x, !m, hi.as_ptr().cast::<i64>().wrapping_sub(h))
    }
}

/// [`store_pair_32`] for 8 × u64.
#[inline(always)]
fn store_pair_64<T>(v: __m512i, lo: &mut [T], hi: &mut [T], h: usize) {
    assert!(core::mem::size_of::<T>() == 8 && 0 < h && h < 8 && lo.len() >= h && hi.len() >= 8 - h);
    let m = lanes_mask(h) as u8;
    // SAFETY: as in `store_pair_32`, with 8-byte lanes.
    unsafe {
        _mm512_mask_storeu_epi64(lo.as_mut_ptr().cast(), m, v);
        _mm512_mask_storeu_epi64(hi.as_mut_ptr().cast::<i64>().wrapping_sub(h), !m, v);
    }
}

/// `ALIGN`, `load_pair` and `store_pair` of an AVX-512 packed type from
/// its lane width's pair functions; `$wrap` makes the type from a register.
macro_rules! pair_methods {
    ($load:ident, $store:ident, $wrap:path) => {
        const ALIGN: usize = 64;

        #[inline(always)]
        fn load_pair(lo: &[Self::F], hi: &[Self::F], h: usize) -> Self {
            $wrap($load(lo, hi, h))
        }

        /// Every lane stored is as the type holds it (canonical).
        #[inline(always)]
        fn store_pair(self, lo: &mut [Self::F], hi: &mut [Self::F], h: usize) {
            $store(self.0, lo, hi, h)
        }
    };
}

impl Packed for PackedGf2_64 {
    type F = crate::field::Gf2_64;
    const LANES: usize = 8;
    type Twiddle = __m512i;
    pair_methods!(load_pair_64, store_pair_64, Self);

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
    fn store_streaming(self, s: &mut [Self::F]) {
        stream_64(self.0, s)
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
        // SAFETY: AVX-512 F, BW, VPCLMULQDQ and GFNI were detected before
        // any kernel runs (`has_kernels`).
        unsafe {
            let even = _mm512_clmulepi64_epi128::<0x00>(self.0, w);
            let odd = _mm512_clmulepi64_epi128::<0x11>(self.0, w);
            let lo = _mm512_unpacklo_epi64(even, odd);
            let hi = _mm512_unpackhi_epi64(even, odd);
            // hi·x^64 ≡ hi·(x^4 + x^3 + x + 1), byte by byte: each byte's
            // own bits below x^8, the bits the byte below carries in (read
            // from hi rotated up a byte) and, in byte 0, the bits the top
            // byte pushes past x^63 folded once more.
            let own = _mm512_gf2p8affine_epi64_epi8::<0>(hi, _mm512_set1_epi64(FOLD_OWN as i64));
            let below = _mm512_rol_epi64::<8>(hi);
            let carried =
                _mm512_gf2p8affine_epi64_epi8::<0>(below, _mm512_set1_epi64(FOLD_CARRY as i64));
            let carried = _mm512_mask_gf2p8affine_epi64_epi8::<0>(
                carried,
                0x0101_0101_0101_0101,
                below,
                _mm512_set1_epi64(FOLD_WRAP as i64),
            );
            Self(_mm512_ternarylogic_epi64::<0x96>(lo, own, carried))
        }
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
    fn load_twiddles(w: &[Self::F], shift: usize) -> __m512i {
        let n = 8 >> shift;
        assert!(w.len() >= n);
        // SAFETY: AVX-512 F was detected before any kernel runs; the masked
        // load reads only the first n twiddles, which are in bounds.
        unsafe {
            let v = _mm512_maskz_loadu_epi64(lanes_mask(n) as u8, w.as_ptr().cast());
            permute2_64(v, &SPREAD_64[shift], v)
        }
    }

    #[inline(always)]
    fn twiddle_is_trivial(w: &Self::F) -> bool {
        w.bits() == 0
    }
}

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
    fn broadcast(w: Self::F) -> MontyTwiddle {
        let (plain, k) = w.shoup();
        // SAFETY: AVX-512 F was detected before any kernel runs.
        unsafe {
            // Opaque, so LLVM does not see a splat it can multiply as 64 bits.
            let k = opaque(_mm512_set1_epi32(k as i32));
            MontyTwiddle {
                w: _mm512_set1_epi32(plain as i32),
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

    #[inline(always)]
    fn exchange(self, b: Self, bit: usize) -> (Self, Self) {
        let [ia, ib] = &EXCHANGE_32[bit];
        (
            Self::wrap(permute2_32(self.0, ia, b.0)),
            Self::wrap(permute2_32(self.0, ib, b.0)),
        )
    }

    #[inline(always)]
    fn load_twiddles(w: &[Self::F], shift: usize) -> MontyTwiddle {
        let n = 16 >> shift;
        assert!(w.len() >= n);
        // SAFETY: AVX-512 F was detected before any kernel runs; the masked
        // load reads only the first n twiddles (u32 Montgomery forms,
        // `Monty31` is `repr(transparent)`), which are in bounds.
        unsafe {
            let v = _mm512_maskz_loadu_epi32(lanes_mask(n), w.as_ptr().cast());
            let m = permute2_32(v, &SPREAD_32[shift], v);
            let neg_p_inv = _mm512_set1_epi32(Monty31::<P>::P_INV.wrapping_neg() as i32);
            let k = _mm512_mullo_epi32(m, neg_p_inv);
            let k_odd = odd_lanes(k);
            // w = (k·p + w̃) / 2^32, exactly, on the even and the odd lanes.
            let p = Self::prime();
            let even = _mm512_add_epi64(
                _mm512_mul_epu32(k, p),
                _mm512_and_si512(m, _mm512_set1_epi64(0xffff_ffff)),
            );
            let odd = _mm512_add_epi64(_mm512_mul_epu32(k_odd, p), _mm512_srli_epi64::<32>(m));
            MontyTwiddle {
                w: high_halves(even, odd),
                k,
                k_odd,
            }
        }
    }

    #[inline(always)]
    fn twiddle_is_trivial(w: &Self::F) -> bool {
        *w == Monty31::<P>::ONE
    }
}

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
            let lo = _mm512_mask_blend_epi32(0xAAAA, ll, _mm512_slli_epi64::<32>(mid2));
            let hi = _mm512_add_epi64(
                _mm512_add_epi64(hh, _mm512_srli_epi64::<32>(mid)),
                _mm512_srli_epi64::<32>(mid2),
            );
            // lo − hi_hi (mod p): on borrow subtract 2^32 − 1.
            let hi_hi = _mm512_srli_epi64::<32>(hi);
            let t0 = _mm512_sub_epi64(lo, hi_hi);
            let borrow = _mm512_cmplt_epu64_mask(lo, hi_hi);
            let t0 = _mm512_mask_sub_epi64(t0, borrow, t0, eps);
            // + hi_lo·(2^32 − 1): on carry add 2^32 − 1.
            let t1 = _mm512_mul_epu32(hi, eps);
            let t2 = _mm512_add_epi64(t0, t1);
            let carry = _mm512_cmplt_epu64_mask(t2, t1);
            let t2 = _mm512_mask_add_epi64(t2, carry, t2, eps);
            Self(Self::canonical(t2))
        }
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
    use super::{FOLD_CARRY, FOLD_OWN, FOLD_WRAP};
    #[allow(unused_imports)]
    use alloc::{
        borrow::ToOwned,
        boxed::Box,
        string::{String, ToString},
        vec::Vec,
    };

    /// `vgf2p8affineqb` on one byte, as the instruction reference defines
    /// it: output bit i is the parity of the matrix's byte 7 − i AND the input.
    fn affine_byte(matrix: u64, b: u8) -> u8 {
        (0..8).fold(0, |out, i| {
            let row = (matrix >> (8 * (7 - i))) as u8;
            out | ((((row & b).count_ones() & 1) as u8) << i)
        })
    }

    /// The three matrices, applied byte by byte as the kernel applies them,
    /// give hi·(x^4 + x^3 + x + 1) reduced below x^64.
    #[test]
    fn byte_matrices_fold_the_high_word() {
        let mut h = 0x0123_4567_89ab_cdefu64;
        // Pure arithmetic: a few words suffice to check it under Miri.
        let words = if cfg!(miri) { 20 } else { 10_000 };
        for k in 0..words {
            h = h.wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(17) ^ k;
            for hi in [h, h | 0xf << 60, 1 << 63, u64::MAX, 0] {
                let bytes = hi.to_le_bytes();
                let folded = (0..8).fold(0u64, |acc, i| {
                    let carried = if i == 0 {
                        affine_byte(FOLD_WRAP, bytes[7])
                    } else {
                        affine_byte(FOLD_CARRY, bytes[i - 1])
                    };
                    acc | u64::from(affine_byte(FOLD_OWN, bytes[i]) ^ carried) << (8 * i)
                });
                let spill = (hi >> 60) ^ (hi >> 61) ^ (hi >> 63);
                let expected = hi
                    ^ (hi << 1)
                    ^ (hi << 3)
                    ^ (hi << 4)
                    ^ spill
                    ^ (spill << 1)
                    ^ (spill << 3)
                    ^ (spill << 4);
                assert_eq!(folded, expected, "hi = {hi:#018x}");
            }
        }
    }
}

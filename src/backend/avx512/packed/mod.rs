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

/// `permutex2var` indices gathering `16 >> shift` (w, k) word pairs of
/// Shoup twiddles over 16 lanes: `[0]` takes lane x's w (word 2·(x >> shift)),
/// `[1]` its k (the word after it).
const fn pair_indices(shift: usize) -> [[u32; 16]; 2] {
    let mut idx = [[0u32; 16]; 2];
    let mut x = 0;
    while x < 16 {
        idx[0][x] = 2 * (x >> shift) as u32;
        idx[1][x] = 2 * (x >> shift) as u32 + 1;
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
const PAIRS_32: [[[u32; 16]; 2]; 5] = [
    pair_indices(0),
    pair_indices(1),
    pair_indices(2),
    pair_indices(3),
    pair_indices(4),
];
/// Lane i takes word i >> shift (compact lane twiddles, shifts 1 to 4).
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

/// `vpsllvq` (`LEFT`) or `vpsrlvq` by one count in every lane: counts of 64
/// and more give 0. Under Miri, which lacks the intrinsics, the same on
/// arrays.
#[inline(always)]
fn shift_64<const LEFT: bool>(a: __m512i, count: u64) -> __m512i {
    #[cfg(not(miri))]
    {
        // SAFETY: AVX-512 F was detected before any kernel runs.
        unsafe {
            let c = _mm512_set1_epi64(count as i64);
            if LEFT {
                _mm512_sllv_epi64(a, c)
            } else {
                _mm512_srlv_epi64(a, c)
            }
        }
    }
    #[cfg(miri)]
    {
        // SAFETY: __m512i and [u64; 8] have the same size; any bits are valid.
        let a: [u64; 8] = unsafe { core::mem::transmute(a) };
        let r = a.map(|x| match (count < 64, LEFT) {
            (false, _) => 0,
            (true, true) => x << count,
            (true, false) => x >> count,
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
crate::backend::packed::packed_entry_points!(
    "avx512f,avx512bw,avx512dq,avx512vl,vpclmulqdq,gfni",
    available: [x86_has!("vpclmulqdq"), x86_has!("gfni")] == [true; 2]
);

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

mod gf2_64;
mod goldilocks;
mod monty31;

pub(crate) use gf2_64::PackedGf2_64;
pub(crate) use goldilocks::PackedGoldilocks;
pub(crate) use monty31::PackedMonty31;

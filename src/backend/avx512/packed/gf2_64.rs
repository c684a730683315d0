//! GF(2^64) on AVX-512: 8 elements per zmm, `vpclmulqdq` products folded
//! with GFNI.

use super::*;

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

impl Packed for PackedGf2_64 {
    const NAME: &'static str = "avx512 vpclmulqdq+gfni";
    const TRANSPOSED_NAME: &'static str = "avx512 vpclmulqdq+gfni, blocks transposed in registers";
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

#[cfg(test)]
mod tests {
    use super::{FOLD_CARRY, FOLD_OWN, FOLD_WRAP};
    #[allow(unused_imports)]
    use crate::test_prelude::*;

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

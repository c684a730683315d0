//! ML-KEM's NTT-domain product (FIPS 203 Algorithm 12) on AVX2: 8 residues
//! (16 coefficients) per 256-bit register, bit for bit the portable
//! `transform::mlkem::multiply_ntts`.
//!
//! ```text
//!   A = (a0 a1)…  B = (b0 b1)…          16 × i16, residue pairs in place
//!   G = fqmul(B, Γ)  = (b0·R·R⁻¹, b1·γR·R⁻¹) = (≡ b0, b1·γ), |·| < q
//!   x0 = vpmaddwd(A, G)       = a0·b0' + a1·b1γ   (i32, < 2q²)
//!   x1 = vpmaddwd(A, swap(B)) = a0·b1 + a1·b0
//!   (c0 c1) = Montgomery(x0) | Montgomery(x1) << 16, then fqmul by R² and
//!   one mask to [0, q)
//! ```
//!
//! Every product is a 16-bit `vpmullw`/`vpmulhw` Montgomery step or a
//! `vpmaddwd`; no branch or address depends on a coefficient.

use crate::field::mlkem::{Q, QINV, R2};
use crate::field::MlKem;
use core::arch::x86_64::*;

/// `R mod q` (R = 2^16): fqmul(b, R) ≡ b.
const R_MOD_Q: i16 = ((1i32 << 16) % Q as i32) as i16;

/// Γ: per coefficient pair, R mod q for the even coefficient and γ_i·R mod q
/// for the odd one.
static GAMMA_PAIRS: [i16; 256] = {
    let gammas = crate::transform::mlkem::GAMMAS_MONTGOMERY;
    let mut t = [0i16; 256];
    let mut i = 0;
    while i < 128 {
        t[2 * i] = R_MOD_Q;
        t[2 * i + 1] = gammas[i];
        i += 1;
    }
    t
};

/// Γ·q⁻¹ mod 2^16, lane by lane: the low factor of each Montgomery step.
static GAMMA_PAIRS_QINV: [i16; 256] = {
    let mut t = [0i16; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = GAMMA_PAIRS[i].wrapping_mul(QINV);
        i += 1;
    }
    t
};

/// `x·y·R⁻¹` lane by lane (|·| < q), with `y_qinv = y·q⁻¹ mod 2^16`: the
/// exact value of the portable `fqmul(x, y)`, as the low halves of x·y and
/// t·q cancel.
#[inline(always)]
fn fqmul(x: __m256i, y: __m256i, y_qinv: __m256i) -> __m256i {
    // SAFETY: AVX2 was detected before this module's entry point ran.
    unsafe {
        let t = _mm256_mullo_epi16(x, y_qinv);
        let hi = _mm256_mulhi_epi16(x, y);
        _mm256_sub_epi16(hi, _mm256_mulhi_epi16(t, _mm256_set1_epi16(Q)))
    }
}

/// The Montgomery reduction `x·R⁻¹` of each i32 lane (|x| < q·2^15), in
/// the lane's low 16 bits (the high 16 bits are left as garbage).
#[inline(always)]
fn montgomery_i32(x: __m256i) -> __m256i {
    // SAFETY: AVX2 was detected before this module's entry point ran.
    unsafe {
        let t = _mm256_mullo_epi16(x, _mm256_set1_epi16(QINV));
        let tq_hi = _mm256_mulhi_epi16(t, _mm256_set1_epi16(Q));
        _mm256_sub_epi16(_mm256_srli_epi32::<16>(x), tq_hi)
    }
}

/// The NTT-domain product `a ∘ b` of two ML-KEM NTT outputs.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn multiply_ntts(a: &[MlKem; 256], b: &[MlKem; 256]) -> [MlKem; 256] {
    let mut out = [MlKem::ZERO; 256];
    // Swaps the two i16 of each i32 lane: (b0, b1) → (b1, b0).
    let swap = _mm256_setr_epi8(
        2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9,
        14, 15, 12, 13,
    );
    let r2 = _mm256_set1_epi16(R2);
    let r2_qinv = _mm256_set1_epi16(R2.wrapping_mul(QINV));
    let q = _mm256_set1_epi16(Q);
    for i in (0..256).step_by(16) {
        // SAFETY: `i + 16 ≤ 256`, so each 32-byte access stays inside the
        // arrays; `MlKem` is `repr(transparent)` over i16; the stores write
        // canonical residues (the mask below), valid `MlKem` values.
        unsafe {
            let load = |p: *const i16| _mm256_loadu_si256(p.add(i).cast());
            let a = load(a.as_ptr().cast());
            let b = load(b.as_ptr().cast());
            let g = fqmul(
                b,
                load(GAMMA_PAIRS.as_ptr()),
                load(GAMMA_PAIRS_QINV.as_ptr()),
            );
            let x0 = _mm256_madd_epi16(a, g);
            let x1 = _mm256_madd_epi16(a, _mm256_shuffle_epi8(b, swap));
            let c = _mm256_blend_epi16::<0xAA>(
                montgomery_i32(x0),
                _mm256_slli_epi32::<16>(montgomery_i32(x1)),
            );
            let c = fqmul(c, r2, r2_qinv);
            let c = _mm256_add_epi16(c, _mm256_and_si256(_mm256_srai_epi16::<15>(c), q));
            _mm256_storeu_si256(out.as_mut_ptr().cast::<i16>().add(i).cast(), c);
        }
    }
    out
}

//! ML-KEM's product in the NTT domain (FIPS 203 Algorithms 11 and 12).
//!
//! The NTT of ML-KEM is incomplete: its output is 128 residues of degree 1,
//! `(F[2i], F[2i+1])` modulo `X² − γ_i` with γ_i = ζ^(2·BitRev7(i)+1). The
//! product of two such vectors multiplies residue by residue:
//! `c0 = a0·b0 + a1·b1·γ_i`, `c1 = a0·b1 + a1·b0`. All arithmetic is
//! branch-free on coefficient values (constant time).

use super::bit_reverse;
use crate::field::{Field, MlKem};

/// γ_i = 17^(2·BitRev7(i) + 1) for i < 128 (FIPS 203 Appendix A, second table).
pub fn gammas() -> [MlKem; 128] {
    let zeta = MlKem::new(17);
    core::array::from_fn(|i| zeta.pow(2 * bit_reverse(i, 7) as u64 + 1))
}

/// γ_i·R mod q (Montgomery form, R = 2^16), computed at compile time from
/// the same formula: 17^(2·BitRev7(i) + 1) · 2^16 mod 3329.
pub(crate) const GAMMAS_MONTGOMERY: [i16; 128] = {
    const Q: u32 = 3329;
    let mut table = [0i16; 128];
    let mut i = 0;
    while i < 128 {
        let exponent = 2 * ((i as u32).reverse_bits() >> 25) + 1;
        let mut power = 1u32;
        let mut e = 0;
        while e < exponent {
            power = power * 17 % Q;
            e += 1;
        }
        table[i] = ((power << 16) % Q) as i16;
        i += 1;
    }
    table
};

/// FIPS 203 Algorithm 11 (BaseCaseMultiply): the product of
/// `a0 + a1·X` and `b0 + b1·X` modulo `X² − gamma`.
#[inline]
pub fn base_case_multiply(a: [MlKem; 2], b: [MlKem; 2], gamma: MlKem) -> [MlKem; 2] {
    [a[0] * b[0] + a[1] * b[1] * gamma, a[0] * b[1] + a[1] * b[0]]
}

/// FIPS 203 Algorithm 12 (MultiplyNTTs): the NTT-domain product `a ∘ b` of two
/// ML-KEM NTT outputs (each 256 coefficients), in portable code.
///
/// Per residue, the two sums are formed exactly in `i32`
/// (`a0·b0 + a1·(b1·γ mod q)` and `a0·b1 + a1·b0`, each below 2q² < q·2^15)
/// and reduced once by Montgomery, then once more to undo R⁻¹. Branch-free
/// (constant time); equal to [`multiply_ntts_reference`] for every input.
/// For the SIMD kernels, products into caller buffers, cached operands and
/// k-term multiply-accumulates, use [`MlKemProducts`](crate::MlKemProducts).
///
/// ```
/// use nttfuse::{transform::mlkem::multiply_ntts, MlKem};
/// // NTT of the constant polynomial 1: every residue is (1, 0).
/// let one_hat: [MlKem; 256] = core::array::from_fn(|i| MlKem::new((i % 2 == 0) as i16));
/// let mut x = [MlKem::new(0); 256];
/// x[5] = MlKem::new(42);
/// assert_eq!(multiply_ntts(&x, &one_hat), x);
/// ```
pub fn multiply_ntts(a: &[MlKem; 256], b: &[MlKem; 256]) -> [MlKem; 256] {
    multiply_ntts_portable(a, b)
}

/// [`multiply_ntts`] under the name the constant-time harness uses.
#[doc(hidden)]
pub fn multiply_ntts_portable(a: &[MlKem; 256], b: &[MlKem; 256]) -> [MlKem; 256] {
    use crate::field::mlkem::{fqmul, montgomery_reduce, R2};
    // γ_i in Montgomery form (γ·R mod q), so fqmul(b1, γR) = b1·γ.
    let gammas = &GAMMAS_MONTGOMERY;
    let mut out = [MlKem::ZERO; 256];
    for (((out, a), b), &gamma) in out
        .chunks_exact_mut(2)
        .zip(a.chunks_exact(2))
        .zip(b.chunks_exact(2))
        .zip(gammas)
    {
        let (a0, a1) = (a[0].value() as i32, a[1].value() as i32);
        let (b0, b1) = (b[0].value() as i32, b[1].value() as i32);
        let b1_gamma = fqmul(b1 as i16, gamma) as i32; // |·| < q
        let c0 = montgomery_reduce(a0 * b0 + a1 * b1_gamma); // (a0b0 + a1b1γ)·R⁻¹
        let c1 = montgomery_reduce(a0 * b1 + a1 * b0);
        // fqmul(·, R²) undoes R⁻¹ and returns |·| < q: one mask to canonical.
        out[0] = MlKem::from_centred(fqmul(c0, R2));
        out[1] = MlKem::from_centred(fqmul(c1, R2));
    }
    out
}

/// FIPS 203 Algorithm 12 written literally with [`base_case_multiply`] on
/// field elements: the reference [`multiply_ntts`] is tested against.
pub fn multiply_ntts_reference(a: &[MlKem; 256], b: &[MlKem; 256]) -> [MlKem; 256] {
    let gammas = gammas();
    let mut out = [MlKem::new(0); 256];
    for i in 0..128 {
        let [c0, c1] = base_case_multiply(
            [a[2 * i], a[2 * i + 1]],
            [b[2 * i], b[2 * i + 1]],
            gammas[i],
        );
        out[2 * i] = c0;
        out[2 * i + 1] = c1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{multiply_ntts, multiply_ntts_reference};
    use crate::field::{Field, MlKem};
    #[allow(unused_imports)]
    use crate::test_prelude::*;

    /// The portable product against FIPS 203's literal algorithm, on
    /// worst-case, edge and random inputs (the SIMD products are checked
    /// against both in the integration suite).
    #[test]
    fn portable_product_equals_the_literal_algorithm() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            MlKem::from_u64(state)
        };
        let worst = [MlKem::new(3328); 256];
        let edges: [MlKem; 256] =
            core::array::from_fn(|i| MlKem::new([0, 1, 3328, 1664, 1665][i % 5]));
        let mut cases = vec![(worst, worst), (edges, worst), (worst, edges)];
        for _ in 0..if cfg!(miri) { 4 } else { 200 } {
            cases.push((
                core::array::from_fn(|_| next()),
                core::array::from_fn(|_| next()),
            ));
        }
        for (a, b) in cases {
            assert_eq!(multiply_ntts(&a, &b), multiply_ntts_reference(&a, &b));
        }
    }
}

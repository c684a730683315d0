//! The lattice rings' transforms as a KEM or signature codebase uses them:
//! which order the NTT domain is kept in, and how far outputs are reduced.
//!
//! FIPS 203 and 204 define the NTT's output order and canonical
//! coefficients; that is the default ([`NttOrder::Standard`],
//! [`Reduction::Canonical`]). A codebase that keeps the NTT domain private
//! (it only multiplies there and transforms back, as mlkem-native and the
//! Dilithium AVX2 code do) can ask for the order the SIMD kernels leave
//! ([`NttOrder::Permuted`]) and for coefficients left within a stated bound
//! ([`Reduction::Lazy`]), which saves the final shuffles and reductions.
//!
//! The permuted order is one fixed permutation of the standard order, the
//! same on every backend: it moves one index bit (the bit of the last
//! butterfly layer) up to the register-pair bit of a 64-byte register.
//!
//! ```text
//!   address bits (7 … 0) of standard coefficient c = (c7 c6 … c0):
//!   ML-KEM  permuted: c7 c6 c1 c5 c4 c3 c2 c0     (c0: the residue's X term)
//!   ML-DSA  permuted: c7 c6 c5 c0 c4 c3 c2 c1
//! ```
//!
//! ML-KEM's products act on degree-1 residues (c0 pairs), which the
//! permutation keeps adjacent, so products take either order (with the
//! residues' γ laid out to match); ML-DSA's are coefficient-wise.

use super::{bit_reverse, Direction, Family, Transform};
use crate::field::{MlDsa, MlKem};

/// The standard NTT of a lattice ring: 256 coefficients, `layers`
/// Cooley–Tukey layers with twiddle ζ^BitRev(k) for the root `zeta`.
fn ring_forward<F: Ring + crate::field::LatticeField>(layers: u32, zeta: u64) -> Transform<F> {
    let mut t = Transform::new(Family::Negacyclic, Direction::Forward, 8, 8);
    t.layer_end = Some(layers);
    t.negacyclic_root = F::from_u64(zeta);
    t.permuted_address = |c| permuted_address(c, F::WORD_BYTES, F::LAST_BIT);
    t.twiddles_fn = super::multiplicative::negacyclic_twiddles::<F>;
    t.reference_fn = super::reference::negacyclic_column::<F>;
    t
}

/// Its inverse: Gentleman–Sande layers, then × 2^−layers.
fn ring_inverse<F: Ring + crate::field::LatticeField>(layers: u32, zeta: u64) -> Transform<F> {
    let mut t = ring_forward::<F>(layers, zeta);
    t.direction = Direction::Inverse;
    t.scale_fn = super::multiplicative::inverse_scale::<F>;
    t
}

impl Transform<MlKem> {
    /// The ML-KEM NTT, FIPS 203 Algorithm 9: 256 coefficients, 7 Cooley–Tukey
    /// layers with twiddle ζ^BitRev7(k), ζ = 17; output in the standard's
    /// (bit-reversed) order of 128 degree-1 residues.
    pub fn negacyclic_forward() -> Self {
        ring_forward(7, 17)
    }

    /// The inverse ML-KEM NTT, FIPS 203 Algorithm 10 (Gentleman–Sande layers,
    /// then × 128⁻¹ = 3303).
    pub fn negacyclic_inverse() -> Self {
        ring_inverse(7, 17)
    }
}

impl Transform<MlDsa> {
    /// The ML-DSA NTT, FIPS 204 Algorithm 41: 256 coefficients, 8
    /// Cooley–Tukey layers with twiddle ζ^BitRev8(k), ζ = 1753; output
    /// `ŵ[i] = w(ζ^(2·BitRev8(i)+1))`.
    pub fn negacyclic_forward() -> Self {
        ring_forward(8, 1753)
    }

    /// The inverse ML-DSA NTT, FIPS 204 Algorithm 42 (Gentleman–Sande layers,
    /// then × 256⁻¹ = 8347681).
    pub fn negacyclic_inverse() -> Self {
        ring_inverse(8, 1753)
    }
}

/// How far a lattice transform reduces its outputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Reduction {
    /// Canonical residues in `[0, q)`: the standards' values, bit for bit on
    /// every backend.
    #[default]
    Canonical,
    /// Raw signed words within the plan's stated output bound (e.g. `|a| <
    /// 8q` after the ML-KEM NTT), congruent to the canonical result; which
    /// representative a backend returns may differ between backends. Run
    /// with [`Plan::execute_raw`](crate::Plan::execute_raw).
    Lazy,
}

/// The order the NTT domain is kept in (the forward NTT's output, the
/// inverse's input, and the products' operands).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum NttOrder {
    /// FIPS 203 / 204 order.
    #[default]
    Standard,
    /// The order the 512-bit kernels leave (see the [module](self) doc):
    /// the same permutation on every backend, cheaper to produce.
    Permuted,
}

/// The lattice ring of a field: its NTT's shape, for the permuted order.
pub(crate) trait Ring {
    /// Bytes of one coefficient word.
    const WORD_BYTES: usize;
    /// The index bit of the last butterfly layer (1 for ML-KEM's incomplete
    /// NTT, 0 for ML-DSA's).
    const LAST_BIT: usize;
}

impl Ring for crate::field::MlKem {
    const WORD_BYTES: usize = 2;
    const LAST_BIT: usize = 1;
}

impl Ring for crate::field::MlDsa {
    const WORD_BYTES: usize = 4;
    const LAST_BIT: usize = 0;
}

/// Where standard-order coefficient `c` (of 256) sits in the permuted order:
/// bit `last` moves to bit `pair` (the register-pair bit of 64-byte
/// registers of `64 / word_bytes` lanes) and the bits between move down one.
pub(crate) const fn permuted_address(c: usize, word_bytes: usize, last: usize) -> usize {
    let pair = (64 / word_bytes).trailing_zeros() as usize;
    let below = c & ((1 << last) - 1);
    let between = (c >> (last + 1)) & ((1 << (pair - last)) - 1);
    let above = c & !((1 << (pair + 1)) - 1);
    above | (((c >> last) & 1) << pair) | (between << last) | below
}

/// `permuted[permuted_address(c)] = standard[c]` for a ring `R`.
pub(crate) fn to_permuted<R: Ring, T: Copy>(standard: &[T], permuted: &mut [T]) {
    for (c, &v) in standard.iter().enumerate() {
        permuted[permuted_address(c, R::WORD_BYTES, R::LAST_BIT)] = v;
    }
}

/// `standard[c] = permuted[permuted_address(c)]` for a ring `R`.
pub(crate) fn from_permuted<R: Ring, T: Copy>(permuted: &[T], standard: &mut [T]) {
    for (c, v) in standard.iter_mut().enumerate() {
        *v = permuted[permuted_address(c, R::WORD_BYTES, R::LAST_BIT)];
    }
}

/// ML-KEM's residue i (coefficients 2i, 2i + 1 in standard order) has
/// γ_i = ζ^(2·BitRev7(i)+1); in `order`, the residue stored at pair p.
pub(crate) fn mlkem_residue_at(pair: usize, order: NttOrder) -> usize {
    match order {
        NttOrder::Standard => pair,
        NttOrder::Permuted => {
            // The permutation keeps c0 in place, so pairs map to pairs.
            (0..128)
                .find(|&i| permuted_address(2 * i, 2, 1) == 2 * pair)
                .expect("a permutation")
        }
    }
}

/// The exponent of γ for ML-KEM residue i: 2·BitRev7(i) + 1.
pub(crate) fn mlkem_gamma_exponent(residue: usize) -> u64 {
    2 * bit_reverse(residue, 7) as u64 + 1
}

#[cfg(test)]
mod tests {
    use super::*;
    #[allow(unused_imports)]
    use crate::test_prelude::*;

    #[test]
    fn permuted_order_is_a_permutation_that_keeps_residues_together() {
        for (bytes, last) in [(2, 1), (4, 0)] {
            let mut seen = [false; 256];
            for c in 0..256 {
                let a = permuted_address(c, bytes, last);
                assert!(!seen[a], "twice {a}");
                seen[a] = true;
            }
        }
        for c in (0..256).step_by(2) {
            assert_eq!(permuted_address(c + 1, 2, 1), permuted_address(c, 2, 1) + 1);
        }
        // The documented bit pictures.
        let kem = |c: usize| {
            let b = |i: usize| (c >> i) & 1;
            [b(7), b(6), b(1), b(5), b(4), b(3), b(2), b(0)]
                .iter()
                .fold(0, |acc, &x| 2 * acc + x)
        };
        let dsa = |c: usize| {
            let b = |i: usize| (c >> i) & 1;
            [b(7), b(6), b(5), b(0), b(4), b(3), b(2), b(1)]
                .iter()
                .fold(0, |acc, &x| 2 * acc + x)
        };
        for c in 0..256 {
            assert_eq!(permuted_address(c, 2, 1), kem(c));
            assert_eq!(permuted_address(c, 4, 0), dsa(c));
        }
    }
}

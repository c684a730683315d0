//! Twiddle schedules of the multiplicative (Cooley–Tukey) families.
//!
//! Both are polynomial-remainder trees with one twiddle per block:
//! - cyclic, n = 2^d: block k of layer ℓ splits x^m − ω^(2e) into
//!   x^(m/2) ∓ ω^e with e = BitRev_(d−1)(k) (a prefix of one shared table);
//! - negacyclic with c layers and ζ a primitive 2^(c+1)-th root: block k of
//!   layer ℓ uses ζ^BitRev_c(2^ℓ + k), exactly the `zetas` of FIPS 203/204.
//!
//! Inverse transforms use the inverse of each twiddle (Gentleman–Sande) and
//! a final scale of 2^−(layers run).

use super::{bit_reverse, Direction, Transform};
use crate::field::{Field, TwoAdicField};
use alloc::vec::Vec;

/// Per-layer, per-block twiddles of a cyclic DFT (inverted for the inverse).
pub(super) fn cyclic_twiddles<F: TwoAdicField>(t: &Transform<F>) -> Vec<Vec<F>> {
    let d = t.log_n() as usize;
    if d == 0 {
        return Vec::new();
    }
    let omega = F::two_adic_generator(d).expect("validated: log_n ≤ two-adicity");
    let half = 1usize << (d - 1);
    let mut powers = Vec::with_capacity(half);
    let mut w = F::one();
    for _ in 0..half {
        powers.push(w);
        w *= omega;
    }
    let inverse = t.direction() == Direction::Inverse;
    // ω^(−e) = −ω^(n/2 − e) for 0 < e < n/2, since ω^(n/2) = −1.
    let pick = |e: usize| match (inverse, e) {
        (false, _) | (true, 0) => powers[e],
        (true, _) => -powers[half - e],
    };
    // A coset s·⟨ω⟩ is the remainder tree of x^n − s^n: layer ℓ's twiddles
    // are scaled by s^(2^(d−1−ℓ)) (inverted for the inverse transform).
    let shift = if inverse {
        t.coset_shift().inverse().expect("shift is non-zero")
    } else {
        t.coset_shift()
    };
    let mut layer_scale = vec![F::one(); d];
    let mut s = shift;
    for ell in (0..d).rev() {
        layer_scale[ell] = s;
        s = s.square();
    }
    (0..d)
        .map(|layer| {
            if layer < t.first_layer() as usize {
                return Vec::new();
            }
            (0..1usize << layer)
                .map(|k| pick(bit_reverse(k, d - 1)) * layer_scale[layer])
                .collect()
        })
        .collect()
}

/// Per-layer, per-block twiddles of a negacyclic NTT (FIPS 203 Algorithm 9
/// `zetas`, inverted for the inverse).
pub(super) fn negacyclic_twiddles<F: Field>(t: &Transform<F>) -> Vec<Vec<F>> {
    let layers = t.layer_end() as usize;
    let zeta = t.negacyclic_root();
    let order = 1u64 << (layers + 1);
    let inverse = t.direction() == Direction::Inverse;
    (0..t.log_n() as usize)
        .map(|layer| {
            if layer >= layers {
                return Vec::new();
            }
            (0..1usize << layer)
                .map(|k| {
                    // 1 ≤ e < 2^layers: the inverse's exponent order − e
                    // needs no reduction.
                    let e = bit_reverse((1 << layer) + k, layers) as u64;
                    zeta.pow(if inverse { order - e } else { e })
                })
                .collect()
        })
        .collect()
}

/// 2^−(layers run): the scale that ends an inverse multiplicative transform.
pub(super) fn inverse_scale<F: Field>(t: &Transform<F>) -> Option<F> {
    let layers = t.layer_end() - t.first_layer();
    let two = F::one() + F::one();
    Some(
        two.inverse()
            .expect("odd characteristic")
            .pow(layers as u64),
    )
}

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

use super::{bit_reverse, Direction, Family, LogBlowup, Transform};
use crate::field::{Field, TwoAdicField};
use alloc::vec::Vec;

/// The multiplicative families' constructors over any two-adic field.
impl<F: TwoAdicField> Transform<F> {
    /// Cyclic DFT of 2^log_n rows: `out[k] = Σ_j a_j ω^(jk)` with
    /// ω = `F::two_adic_generator(log_n)` (Plonky3's choice of root).
    pub fn dft(log_n: u32) -> Self {
        let mut t = Self::new(
            Family::Cyclic,
            Direction::Forward,
            log_n,
            F::TWO_ADICITY as u32,
        );
        t.order_settable = true;
        t.shift = F::one();
        t.twiddles_fn = cyclic_twiddles::<F>;
        t.reference_fn = super::reference::cyclic_column::<F>;
        t
    }

    /// Inverse cyclic DFT: `a_j = n⁻¹ Σ_k A_k ω^(−jk)`.
    pub fn idft(log_n: u32) -> Self {
        let mut t = Self::dft(log_n);
        t.direction = Direction::Inverse;
        t.scale_fn = inverse_scale::<F>;
        t
    }

    /// Coset DFT: `out[k] = Σ_j a_j (shift·ω^k)^j`, the evaluations on
    /// `shift · ⟨ω⟩` (Plonky3's `coset_dft_batch`).
    pub fn coset_dft(log_n: u32, shift: F) -> Self {
        Self::dft(log_n).shift(shift)
    }

    /// Inverse coset DFT: coefficients from evaluations on `shift · ⟨ω⟩`.
    pub fn coset_idft(log_n: u32, shift: F) -> Self {
        Self::idft(log_n).shift(shift)
    }

    /// Reed–Solomon encode over a coset: the input is the 2^(log_n −
    /// log_blowup) coefficients of each column (the rest zero), the output
    /// their evaluations on `shift · ⟨ω_(2^log_n)⟩` (`log_n` is the
    /// codeword's size). The first log_blowup layers of the zero-padded
    /// transform only copy, so they are not run: the first pass reads the
    /// message for every replica block. The blowup is a [`LogBlowup`], so
    /// the two sizes cannot be swapped.
    pub fn dft_encode(log_n: u32, log_blowup: LogBlowup, shift: F) -> Self {
        let mut t = Self::dft(log_n).shift(shift);
        t.first_layer = log_blowup.0;
        t.encode = true;
        t
    }

    /// [`Transform::dft`] from a size `n`, which must be a power of two.
    pub fn dft_of_len(n: usize) -> Self {
        let mut t = Self::dft(n.checked_ilog2().unwrap_or(0));
        if !n.is_power_of_two() {
            t.bad_len = Some(n);
        }
        t
    }

    /// [`Transform::idft`] from a size `n`, which must be a power of two.
    pub fn idft_of_len(n: usize) -> Self {
        let mut t = Self::idft(n.checked_ilog2().unwrap_or(0));
        if !n.is_power_of_two() {
            t.bad_len = Some(n);
        }
        t
    }
}

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

//! The additive (Lin–Chung–Han) NTT: subspace polynomials, the novel basis
//! and the per-block twiddle schedule.
//!
//! With a basis b_0, b_1, … of the domain, W_0(X) = X and
//! W_(i+1)(X) = W_i(X)·(W_i(X) + W_i(b_i)); Ŵ_i = W_i / W_i(b_i). The novel
//! basis is X_j = ∏_(i ∈ bits(j)) Ŵ_i. Layer ℓ of a 2^L transform works at
//! depth i = L − ℓ − 1, and block β uses the twiddle
//! t = Ŵ_i(s) + Σ_k bit_k(β)·Ŵ_i(b_(i+1+k)): F₂-linear in β, so a layer's
//! twiddles are subset sums of L − i − 1 values (plus the coset shift s).

use super::{Direction, Family, LogBlowup, Transform};
use crate::field::BinaryField;
use alloc::vec::Vec;

/// The additive family's constructors over any binary field.
impl<F: BinaryField> Transform<F> {
    /// Additive NTT of 2^log_n rows in the standard basis:
    /// `out[v] = Σ_j a_j X_j(v)`, natural order in and out.
    pub fn additive_ntt(log_n: u32) -> Self {
        let mut t = Self::new(
            Family::Additive,
            Direction::Forward,
            log_n,
            F::DEGREE.min(63) as u32,
        );
        t.twiddles_fn = additive_twiddles::<F>;
        t.fold_fn = prune_fold::<F>;
        t.reference_fn = super::reference::additive_column::<F>;
        t
    }

    /// Inverse additive NTT (layers in reverse, inverse butterflies).
    pub fn additive_intt(log_n: u32) -> Self {
        let mut t = Self::additive_ntt(log_n);
        t.direction = Direction::Inverse;
        t
    }

    /// Reed–Solomon encode at rate 2^−log_inv_rate: the input is a message of
    /// 2^(log_n − log_inv_rate) rows (the first coefficients; the rest are
    /// zero), the output the 2^log_n-row codeword (`log_n` is the
    /// codeword's size). Runs layers log_inv_rate … log_n − 1 on replicas of
    /// the message. The inverse rate is a [`LogBlowup`], so the two sizes
    /// cannot be swapped.
    pub fn additive_encode(log_n: u32, log_inv_rate: LogBlowup) -> Self {
        let mut t = Self::additive_ntt(log_n);
        t.first_layer = log_inv_rate.0;
        t.encode = true;
        t
    }

    /// Skips the first `r` layers: the input is taken to be 2^r blocks, and
    /// each block is transformed by layers r … log_n − 1 (for replicas of a
    /// message this is the encode of that message). On an inverse it undoes
    /// exactly that.
    pub fn from_layer(mut self, r: u32) -> Self {
        self.first_layer = r;
        self
    }

    /// The top `log_n` layers of a 2^(log_n + depth)-point transform over
    /// the same basis and shift: rows are its rows' top bits, and layer ℓ's
    /// twiddles are the larger transform's layer ℓ's (the out-of-core
    /// encode's outer pass).
    pub(crate) fn at_depth(mut self, depth: u32) -> Self {
        self.depth = depth;
        self
    }

    /// The depth of [`at_depth`](Self::at_depth) (0 for every public
    /// transform).
    pub(crate) fn depth(&self) -> u32 {
        self.depth
    }

    /// Chooses the basis of the domain (default: standard).
    pub fn basis(mut self, basis: Basis) -> Self {
        self.basis = basis;
        self
    }
}

/// The basis of an additive transform's domain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Basis {
    /// b_i = x^i: domain point v is the field element whose bits are v.
    Standard,
    /// The Cantor basis (v_0 = 1, v_i² + v_i = v_(i−1)): W_i(v_i) = 1, and
    /// the transform equals Plonky3's p3-binary-dft `LchNtt`.
    Cantor,
}

impl Basis {
    /// The name plans print.
    pub fn name(self) -> &'static str {
        match self {
            Basis::Standard => "standard",
            Basis::Cantor => "Cantor",
        }
    }

    /// The first `dim` basis elements.
    pub fn elements<F: BinaryField>(self, dim: usize) -> Vec<F> {
        match self {
            Basis::Standard => (0..dim).map(F::standard_basis).collect(),
            Basis::Cantor => F::cantor_basis(dim),
        }
    }
}

/// The subspace polynomials of a basis, evaluated where the transform needs them.
pub(crate) struct SubspacePolys<F: BinaryField> {
    basis: Vec<F>,
    /// W_i(b_i), the normalisers (non-zero for a linearly independent basis).
    norms: Vec<F>,
    norm_inverses: Vec<F>,
}

impl<F: BinaryField> SubspacePolys<F> {
    pub(crate) fn new(basis: Vec<F>) -> Self {
        let dim = basis.len();
        // w[j] holds W_i(b_j) as i advances.
        let mut w = basis.clone();
        let mut norms = Vec::with_capacity(dim);
        for i in 0..dim {
            let norm = w[i];
            norms.push(norm);
            for wj in w.iter_mut().skip(i) {
                *wj = *wj * (*wj + norm);
            }
        }
        let norm_inverses = norms
            .iter()
            .map(|n| {
                n.inverse()
                    .expect("basis elements are linearly independent")
            })
            .collect();
        Self {
            basis,
            norms,
            norm_inverses,
        }
    }

    /// Ŵ_i(x) for i < dim.
    pub(crate) fn normalized_at(&self, x: F) -> Vec<F> {
        let mut out = Vec::with_capacity(self.basis.len());
        let mut w = x;
        for i in 0..self.basis.len() {
            out.push(w * self.norm_inverses[i]);
            w = w * (w + self.norms[i]);
        }
        out
    }

    /// The domain point p_v = Σ_k bit_k(v)·b_k.
    pub(crate) fn point(&self, v: usize) -> F {
        self.basis
            .iter()
            .enumerate()
            .filter(|(k, _)| (v >> k) & 1 == 1)
            .fold(F::zero(), |acc, (_, b)| acc + *b)
    }

    /// X_j(x) for j < 2^dim.
    pub(crate) fn novel_basis_at(&self, x: F, count: usize) -> Vec<F> {
        let w_hat = self.normalized_at(x);
        let mut out = Vec::with_capacity(count);
        out.push(F::one());
        for j in 1..count {
            let top = usize::BITS as usize - 1 - j.leading_zeros() as usize;
            out.push(out[j - (1 << top)] * w_hat[top]);
        }
        out
    }
}

/// The fold of a pruned forward additive NTT ([`Transform::retain_prefix`]):
/// the first k layers, restricted to the kept rows, are a' = a + w_ℓ·b with
/// w_ℓ = Ŵ_(d−ℓ−1)(shift), the twiddle of block 0; composed, kept row r
/// receives Σ_j c_j · x[r + j·2^(d−k)] with c_j the product of the w_ℓ whose
/// bit (k−1−ℓ) is set in j. Empty when every c_j beyond c_0 = 1 is zero (an
/// unshifted domain: the high coefficients vanish on the kept points).
pub(super) fn prune_fold<F: BinaryField>(t: &Transform<F>) -> Vec<F> {
    let dim = t.log_n() as usize;
    let k = t.pruned_bits() as usize;
    let polys = SubspacePolys::new(t.domain_basis().elements::<F>(dim));
    let shift_hat = polys.normalized_at(t.coset_shift());
    let c: Vec<F> = (0..1usize << k)
        .map(|j| {
            (0..k)
                .filter(|&l| (j >> (k - 1 - l)) & 1 == 1)
                .fold(F::one(), |acc, l| acc * shift_hat[dim - l - 1])
        })
        .collect();
    if c[1..].iter().all(|x| *x == F::zero()) {
        Vec::new()
    } else {
        c
    }
}

/// Per-layer, per-block twiddles of an additive NTT (the same for forward and
/// inverse; the butterfly kind differs).
pub(super) fn additive_twiddles<F: BinaryField>(t: &Transform<F>) -> Vec<Vec<F>> {
    let dim = t.log_n() as usize;
    // At depth e the layers are the top ones of a 2^(dim + e)-point
    // transform: layer ℓ works at depth i = dim + e − ℓ − 1.
    let depth = t.depth() as usize;
    let polys = SubspacePolys::new(t.domain_basis().elements::<F>(dim + depth));
    // w_hat[j][i] = Ŵ_i(b_j); shift_hat[i] = Ŵ_i(s).
    let w_hat: Vec<Vec<F>> = polys
        .basis
        .iter()
        .map(|&b| polys.normalized_at(b))
        .collect();
    let shift_hat = polys.normalized_at(t.coset_shift());
    (0..dim)
        .map(|layer| {
            if layer < t.first_layer() as usize {
                return Vec::new();
            }
            let i = dim + depth - layer - 1;
            let mut tw = Vec::with_capacity(1 << layer);
            tw.push(shift_hat[i]);
            for beta in 1usize..1 << layer {
                let top = usize::BITS as usize - 1 - beta.leading_zeros() as usize;
                tw.push(tw[beta - (1 << top)] + w_hat[i + 1 + top][i]);
            }
            tw
        })
        .collect()
}

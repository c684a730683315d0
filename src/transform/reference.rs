//! Naive references: every transform evaluated straight from its definition,
//! in O(n²) field operations (O(n³) for the inverse additive NTT, which solves
//! the linear system). Slow on purpose: they share no code with the layered
//! algorithms, so agreeing with them means something.
//!
//! ```
//! use nttfuse::{reference, BabyBear, Field, Transform};
//! let spec = Transform::<BabyBear>::dft(3);
//! let input: Vec<BabyBear> = (1..=8).map(BabyBear::from_u64).collect();
//! let out = reference::evaluate(&spec, &input).unwrap();
//! // out[0] is the sum of the coefficients.
//! assert_eq!(out[0], BabyBear::from_u64(36));
//! ```

use super::additive::SubspacePolys;
use super::{bit_reverse, Direction, Order, Transform};
use crate::error::Error;
use crate::field::{BinaryField, Field, TwoAdicField};
use alloc::vec::Vec;

/// Evaluates `spec` on `input` (rows × lanes × batch, the plan's input
/// layout) by the definition, column by column.
pub fn evaluate<F: Field>(spec: &Transform<F>, input: &[F]) -> Result<Vec<F>, Error> {
    let in_len = spec.input_len()?;
    if input.len() != in_len {
        return Err(Error::LengthMismatch {
            what: "input",
            expected: in_len,
            got: input.len(),
        });
    }
    let lanes = spec.lane_count();
    let in_rows = in_len / lanes / spec.batch_count();
    // A pruned transform keeps a prefix of each column's outputs.
    let out_rows = spec.output_len()? / lanes / spec.batch_count();
    let mut out = vec![F::zero(); spec.output_len()?];
    for (item_in, item_out) in input
        .chunks_exact(in_rows * lanes)
        .zip(out.chunks_exact_mut(out_rows * lanes))
    {
        for lane in 0..lanes {
            let column: Vec<F> = if spec.input_is_lane_major() {
                item_in[lane * in_rows..(lane + 1) * in_rows].to_vec()
            } else {
                (0..in_rows).map(|r| item_in[r * lanes + lane]).collect()
            };
            let result = (spec.reference_fn)(spec, &column);
            for (r, v) in result.into_iter().take(out_rows).enumerate() {
                item_out[r * lanes + lane] = v;
            }
        }
    }
    Ok(out)
}

/// Cyclic DFT of one column: `out[k] = Σ_j a_j ω^(jk)`, ω = generator(log n).
///
/// Panics unless the length is a power of two within the field's
/// two-adicity (a reference for tests, not a checked entry point).
pub fn dft<F: TwoAdicField>(coeffs: &[F]) -> Vec<F> {
    assert!(
        coeffs.len().is_power_of_two(),
        "reference::dft: length {} is not a power of two",
        coeffs.len()
    );
    let log_n = coeffs.len().ilog2() as usize;
    let omega = F::two_adic_generator(log_n).expect("size within two-adicity");
    evaluate_powers(coeffs, omega)
}

/// Inverse cyclic DFT of one column: `a_j = n⁻¹ Σ_k A_k ω^(−jk)`.
///
/// Panics as [`dft`].
pub fn idft<F: TwoAdicField>(evals: &[F]) -> Vec<F> {
    let n = evals.len();
    assert!(
        n.is_power_of_two(),
        "reference::idft: length {n} is not a power of two"
    );
    let omega = F::two_adic_generator(n.ilog2() as usize).expect("size within two-adicity");
    let n_inv = F::from_u64(n as u64).inverse().expect("n invertible");
    evaluate_powers(evals, omega.inverse().expect("root is non-zero"))
        .into_iter()
        .map(|x| x * n_inv)
        .collect()
}

/// `out[k] = Σ_j a_j (ω^k)^j` by Horner at each point.
fn evaluate_powers<F: Field>(coeffs: &[F], omega: F) -> Vec<F> {
    let mut point = F::one();
    (0..coeffs.len())
        .map(|_| {
            let value = horner(coeffs, point);
            point *= omega;
            value
        })
        .collect()
}

fn horner<F: Field>(coeffs: &[F], x: F) -> F {
    coeffs.iter().rev().fold(F::zero(), |acc, &c| acc * x + c)
}

fn permute_bit_reversed<F: Field>(values: &[F]) -> Vec<F> {
    let bits = values.len().ilog2() as usize;
    (0..values.len())
        .map(|k| values[bit_reverse(k, bits)])
        .collect()
}

/// Coset DFT of one column (possibly a zero-padded message): the
/// evaluations of Σ_j a_j X^j at shift·ω^k for k < n, ω = generator(log n).
pub fn coset_dft<F: TwoAdicField>(coeffs: &[F], log_n: usize, shift: F) -> Vec<F> {
    let omega = F::two_adic_generator(log_n).expect("size within two-adicity");
    let mut point = shift;
    (0..1usize << log_n)
        .map(|_| {
            let value = horner(coeffs, point);
            point *= omega;
            value
        })
        .collect()
}

/// Inverse coset DFT of one column: `a_j = n⁻¹ s^(−j) Σ_k A_k ω^(−jk)`.
pub fn coset_idft<F: TwoAdicField>(evals: &[F], shift: F) -> Vec<F> {
    let s_inv = shift.inverse().expect("shift is non-zero");
    let mut power = F::one();
    idft(evals)
        .into_iter()
        .map(|a| {
            let v = a * power;
            power *= s_inv;
            v
        })
        .collect()
}

pub(super) fn cyclic_column<F: TwoAdicField>(spec: &Transform<F>, column: &[F]) -> Vec<F> {
    let log_n = spec.log_n() as usize;
    let shift = spec.coset_shift();
    match (spec.direction(), spec.evaluation_order()) {
        (Direction::Forward, Order::Natural) => coset_dft(column, log_n, shift),
        (Direction::Forward, Order::BitReversed) => {
            permute_bit_reversed(&coset_dft(column, log_n, shift))
        }
        (Direction::Inverse, Order::Natural) => coset_idft(column, shift),
        (Direction::Inverse, Order::BitReversed) => {
            coset_idft(&permute_bit_reversed(column), shift)
        }
    }
}

/// Negacyclic NTT of one column with `layers` layers and ζ a primitive
/// 2^(layers+1)-th root: residues of s = n / 2^layers coefficients,
/// `out[i·s + b] = Σ_j f[j·s + b]·γ_i^j` with γ_i = ζ^(2·BitRev(i) + 1).
/// For ML-KEM (layers = 7) this is FIPS 203's definition of NTT(f).
pub fn negacyclic<F: Field>(coeffs: &[F], layers: usize, zeta: F) -> Vec<F> {
    negacyclic_map(coeffs, layers, zeta, false)
}

/// Inverse of [`negacyclic`]: `f[j·s + b] = 2^−layers Σ_i F[i·s + b]·γ_i^(−j)`.
pub fn negacyclic_inverse<F: Field>(evals: &[F], layers: usize, zeta: F) -> Vec<F> {
    negacyclic_map(evals, layers, zeta, true)
}

fn negacyclic_map<F: Field>(values: &[F], layers: usize, zeta: F, inverse: bool) -> Vec<F> {
    let points = 1usize << layers;
    assert!(
        values.len().is_multiple_of(points),
        "reference::negacyclic: length {} is not a multiple of 2^{layers}",
        values.len()
    );
    let residue = values.len() / points;
    let two_inv = (F::one() + F::one()).inverse().expect("odd characteristic");
    let scale = if inverse {
        two_inv.pow(layers as u64)
    } else {
        F::one()
    };
    let mut out = vec![F::zero(); values.len()];
    for i in 0..points {
        let gamma = zeta.pow(2 * bit_reverse(i, layers) as u64 + 1);
        for b in 0..residue {
            if inverse {
                // Row j of the output gathers every evaluation i at γ_i^(−j).
                let g_inv = gamma.inverse().expect("root is non-zero");
                let mut g = F::one();
                for j in 0..points {
                    out[j * residue + b] += values[i * residue + b] * g * scale;
                    g *= g_inv;
                }
            } else {
                let column: Vec<F> = (0..points).map(|j| values[j * residue + b]).collect();
                out[i * residue + b] = horner(&column, gamma);
            }
        }
    }
    out
}

/// A lattice NTT column, in the transform's NTT-domain order (the forward
/// output, the inverse input).
pub(super) fn negacyclic_column<F: Field>(spec: &Transform<F>, column: &[F]) -> Vec<F> {
    let layers = spec.layer_end() as usize;
    match spec.direction() {
        Direction::Forward => {
            let standard = negacyclic(column, layers, spec.negacyclic_root());
            let mut out = standard.clone();
            for (c, &v) in standard.iter().enumerate() {
                out[spec.ntt_address(c)] = v;
            }
            out
        }
        Direction::Inverse => {
            let standard: Vec<F> = (0..column.len())
                .map(|c| column[spec.ntt_address(c)])
                .collect();
            negacyclic_inverse(&standard, layers, spec.negacyclic_root())
        }
    }
}

/// Additive NTT of one column, by the definition: with m = 2^(L − r) and
/// block β(v) = v / m, `out[v] = Σ_(j<m) a[β(v)·m + j]·X_j(s + p_v)`.
/// With r = 0 this is `out[v] = Σ_j a_j X_j(s + p_v)`. If `encode`, the input
/// is just the message (m rows) and every block reads it.
pub fn additive<F: BinaryField>(
    input: &[F],
    log_n: usize,
    first_layer: usize,
    basis: &[F],
    shift: F,
    encode: bool,
) -> Vec<F> {
    let polys = SubspacePolys::new(basis.to_vec());
    let m = 1usize << (log_n - first_layer);
    (0..1usize << log_n)
        .map(|v| {
            let x = polys.novel_basis_at(shift + polys.point(v), m);
            let block = if encode { 0 } else { v / m };
            (0..m).fold(F::zero(), |acc, j| acc + input[block * m + j] * x[j])
        })
        .collect()
}

/// Inverse of [`additive`] (not for encodes): solves each block's m × m
/// system by Gaussian elimination, O(m³).
pub fn additive_inverse<F: BinaryField>(
    evals: &[F],
    log_n: usize,
    first_layer: usize,
    basis: &[F],
    shift: F,
) -> Vec<F> {
    let polys = SubspacePolys::new(basis.to_vec());
    let m = 1usize << (log_n - first_layer);
    let mut out = Vec::with_capacity(evals.len());
    for (block, values) in evals.chunks_exact(m).enumerate() {
        let matrix: Vec<Vec<F>> = (0..m)
            .map(|w| polys.novel_basis_at(shift + polys.point(block * m + w), m))
            .collect();
        out.extend(solve(matrix, values.to_vec()));
    }
    out
}

/// Solves `matrix · x = rhs` (square, invertible) by Gauss–Jordan elimination.
fn solve<F: Field>(mut matrix: Vec<Vec<F>>, mut rhs: Vec<F>) -> Vec<F> {
    let n = rhs.len();
    for col in 0..n {
        let pivot = (col..n)
            .find(|&r| matrix[r][col] != F::zero())
            .expect("the transform is invertible");
        matrix.swap(col, pivot);
        rhs.swap(col, pivot);
        let inv = matrix[col][col].inverse().expect("pivot is non-zero");
        matrix[col][col..].iter_mut().for_each(|x| *x *= inv);
        rhs[col] *= inv;
        let pivot_row = matrix[col].clone();
        for (r, row) in matrix.iter_mut().enumerate() {
            if r != col && row[col] != F::zero() {
                let factor = row[col];
                for (x, &p) in row[col..].iter_mut().zip(&pivot_row[col..]) {
                    *x -= factor * p;
                }
                let delta = factor * rhs[col];
                rhs[r] -= delta;
            }
        }
    }
    rhs
}

pub(super) fn additive_column<F: BinaryField>(spec: &Transform<F>, column: &[F]) -> Vec<F> {
    let log_n = spec.log_n() as usize;
    let basis = spec.domain_basis().elements::<F>(log_n);
    let r = spec.first_layer() as usize;
    match spec.direction() {
        Direction::Forward => additive(
            column,
            log_n,
            r,
            &basis,
            spec.coset_shift(),
            spec.is_encode(),
        ),
        Direction::Inverse => additive_inverse(column, log_n, r, &basis, spec.coset_shift()),
    }
}

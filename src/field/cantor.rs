//! The Cantor basis of GF(2^64): v_0 = 1 and v_i² + v_i = v_(i−1).
//!
//! Each step solves the Artin–Schreier equation x² + x = c, which is
//! GF(2)-linear in x: the map S(x) = x² + x has kernel {0, 1}, so of the two
//! roots x and x + 1 we take the one with `parity(x & 0x4e809da07ccefae7) = 0`
//! (the convention of Plonky3's p3-binary-dft, whose `LchNtt` computes the
//! transform in this basis). With it W_i(v_i) = 1, so Ŵ_i = W_i.

use super::Gf2_64;
use alloc::vec::Vec;

/// The parity selector that picks one of the two roots.
const ROOT_SELECTOR: u64 = 0x4e80_9da0_7cce_fae7;

/// The first `dim` (≤ 64) Cantor basis elements (computed once per process:
/// every Cantor-basis plan and reference evaluation asks for them).
pub fn cantor_basis(dim: usize) -> Vec<Gf2_64> {
    assert!(dim <= 64, "GF(2^64) has a Cantor basis of 64 elements");
    // Grown on demand and kept: a plan of 2^k rows needs the first k.
    static BASIS: crate::sync::Mutex<Vec<Gf2_64>> = crate::sync::Mutex::new(Vec::new());
    let mut basis = BASIS.lock();
    extend_cantor_basis(&mut basis, dim);
    basis[..dim].to_vec()
}

fn extend_cantor_basis(basis: &mut Vec<Gf2_64>, dim: usize) {
    let mut previous = basis.last().copied().unwrap_or(Gf2_64::ONE);
    for i in basis.len()..dim {
        let v = if i == 0 {
            Gf2_64::ONE
        } else {
            solve_artin_schreier(previous).expect("Cantor basis elements exist up to 2^64")
        };
        basis.push(v);
        previous = v;
    }
}

/// The root x of x² + x = c with `parity(x & ROOT_SELECTOR) = 0`, if any
/// (there is one exactly when the trace of c is 0).
pub fn solve_artin_schreier(c: Gf2_64) -> Option<Gf2_64> {
    // Columns of S: S(x^k) as bit vectors; solve S·x = c by Gaussian
    // elimination over GF(2), rows = output bits.
    let columns: Vec<u64> = (0..64)
        .map(|k| {
            let e = Gf2_64::new(1 << k);
            (e * e + e).bits()
        })
        .collect();
    // Augmented rows: bit k of row r = bit r of column k; bit 64 = bit r of c.
    let mut rows: Vec<u128> = (0..64)
        .map(|r| {
            let coeffs = (0..64).fold(0u128, |acc, k| acc | (((columns[k] >> r) & 1) as u128) << k);
            coeffs | (((c.bits() >> r) & 1) as u128) << 64
        })
        .collect();
    let mut pivot_of_col = [usize::MAX; 64];
    let mut next = 0;
    for (col, pivot) in pivot_of_col.iter_mut().enumerate() {
        let Some(p) = (next..64).find(|&r| (rows[r] >> col) & 1 == 1) else {
            continue;
        };
        rows.swap(next, p);
        for r in 0..64 {
            if r != next && (rows[r] >> col) & 1 == 1 {
                rows[r] ^= rows[next];
            }
        }
        *pivot = next;
        next += 1;
    }
    // Inconsistent: a zero row with a non-zero right-hand side.
    if rows[next..].iter().any(|&r| (r >> 64) & 1 == 1) {
        return None;
    }
    // Free variables set to zero.
    let x = (0..64).fold(0u64, |acc, col| match pivot_of_col[col] {
        usize::MAX => acc,
        r => acc | (((rows[r] >> 64) & 1) as u64) << col,
    });
    let x = Gf2_64::new(x);
    debug_assert_eq!(x * x + x, c);
    // The other root is x + 1.
    Some(
        if (x.bits() & ROOT_SELECTOR).count_ones().is_multiple_of(2) {
            x
        } else {
            x + Gf2_64::ONE
        },
    )
}

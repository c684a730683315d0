//! Where each coefficient sits inside registers, for the whole-polynomial
//! SIMD kernels (plan-time bookkeeping, no intrinsics).
//!
//! A polynomial of `regs × N` coefficients lives in `regs` registers of N
//! lanes. The first log₂(regs) layers pair whole registers. The last four
//! pair lanes inside a register pair (A, B); before each of them one
//! *stage* shuffle splits partners into (X, Y) so that the butterfly works
//! lane-wise, X holding the lower coefficient:
//!
//! ```text
//!   stage 1 (32-byte granules): X = [A.h0 B.h0]          Y = [A.h1 B.h1]
//!   stage 2 (16-byte granules): X = [A.0 B.0 A.2 B.2]    Y = [A.1 B.1 A.3 B.3]
//!   stage 3 ( 8-byte granules): per 16-byte lane X = [A.q0 B.q0], Y = [A.q1 B.q1]
//!   stage 4 ( 4-byte granules): X = [A.d0 B.d0 A.d2 B.d2 …]  Y = [A.d1 B.d1 …]
//! ```
//!
//! Every stage is an involution, so the inverse transform walks the same
//! stages backwards. The stages are chained (the output of one butterfly is
//! the input of the next stage), so after the last butterfly the pair is
//! permuted once back to natural order. This module simulates the stages on
//! coefficient indices to lay out, at plan time, each lane's twiddle and the
//! final permutation; the tests check the simulation against the real
//! shuffles.

/// Coefficient indices (within a register pair) held by each lane of X and Y.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairLayout {
    /// Lanes of X.
    pub x: Vec<usize>,
    /// Lanes of Y.
    pub y: Vec<usize>,
}

/// Applies stage `stage` (1…4) to 64-byte registers of `a.len()` lanes.
pub fn stage(stage: usize, a: &[usize], b: &[usize]) -> (Vec<usize>, Vec<usize>) {
    stage_in(64, stage, a, b)
}

/// Applies stage `stage` (1…4) to registers of `register_bytes` bytes
/// (64 for zmm, 16 for NEON q registers, where only stages 3 and 4 exist).
pub fn stage_in(
    register_bytes: usize,
    stage: usize,
    a: &[usize],
    b: &[usize],
) -> (Vec<usize>, Vec<usize>) {
    let n = a.len();
    let bytes = register_bytes / n;
    let granule = match stage {
        1 => 32,
        2 => 16,
        3 => 8,
        4 => 4,
        _ => panic!("stages are 1 to 4"),
    } / bytes;
    let group = 2 * granule; // an (even, odd) granule pair
    let (mut x, mut y) = (Vec::with_capacity(n), Vec::with_capacity(n));
    match stage {
        // Whole halves: X = [A.h0 B.h0], Y = [A.h1 B.h1].
        1 => {
            x.extend_from_slice(&a[..granule]);
            x.extend_from_slice(&b[..granule]);
            y.extend_from_slice(&a[granule..]);
            y.extend_from_slice(&b[granule..]);
        }
        // Per pair of granules (g_even, g_odd): X gets A.even then B.even,
        // Y gets A.odd then B.odd.
        _ => {
            for start in (0..n).step_by(group) {
                x.extend_from_slice(&a[start..start + granule]);
                x.extend_from_slice(&b[start..start + granule]);
                y.extend_from_slice(&a[start + granule..start + group]);
                y.extend_from_slice(&b[start + granule..start + group]);
            }
        }
    }
    (x, y)
}

/// The layouts of a register pair of `lanes` lanes at each of the four
/// in-register layers (after stages 1, 1-2, 1-2-3, 1-2-3-4).
pub fn pair_layouts(lanes: usize) -> [PairLayout; 4] {
    let mut a: Vec<usize> = (0..lanes).collect();
    let mut b: Vec<usize> = (lanes..2 * lanes).collect();
    core::array::from_fn(|s| {
        let (x, y) = stage(s + 1, &a, &b);
        (a, b) = (x.clone(), y.clone());
        PairLayout { x, y }
    })
}

/// The plan-time table of a whole-polynomial kernel, in the order the kernel
/// reads it:
///
/// ```text
///   [ (w, w') for each inter-register twiddle, padded to a multiple of N ]
///   [ for each register pair m, for each in-register layer s:
///       w of every lane (N), w' of every lane (N) ]
///   [ final permutation: lanes of natural A from (X, Y), of natural B (N each);
///     initial permutation of the inverse: X from (A, B), Y from (A, B) (N each) ]
/// ```
///
/// `heap` holds the group's twiddles in heap order (layer ℓ block k at
/// 2^ℓ − 1 + k); `twist(w)` is w·q⁻¹ mod 2^bits; `index(i)` makes a
/// permutation index of the lane type.
pub fn whole_polynomial_table<T: Copy + Default>(
    heap: &[T],
    regs: usize,
    lanes: usize,
    twist: impl Fn(T) -> T,
    index: impl Fn(usize) -> T,
) -> Vec<T> {
    let outer = regs.trailing_zeros() as usize; // layers between registers
    let layers = outer + 4;
    assert_eq!(
        heap.len(),
        (1 << layers) - 1,
        "heap table of the group's layers"
    );
    let coeffs = regs * lanes;
    let mut table = Vec::new();
    for &w in &heap[..(1 << outer) - 1] {
        table.push(w);
        table.push(twist(w));
    }
    table.resize(table.len().next_multiple_of(lanes), T::default());
    let layouts = pair_layouts(lanes);
    for pair in 0..regs / 2 {
        for (s, layout) in layouts.iter().enumerate() {
            let layer = outer + s;
            let block_coeffs = coeffs >> layer;
            let w: Vec<T> = layout
                .x
                .iter()
                .map(|&c| heap[(1 << layer) - 1 + (pair * 2 * lanes + c) / block_coeffs])
                .collect();
            table.extend(w.iter().copied());
            table.extend(w.iter().map(|&w| twist(w)));
        }
    }
    let last = &layouts[3];
    let position = |c: usize| {
        last.x
            .iter()
            .position(|&v| v == c)
            .or_else(|| last.y.iter().position(|&v| v == c).map(|p| p + lanes))
            .expect("every coefficient is somewhere")
    };
    table.extend((0..2 * lanes).map(|c| index(position(c))));
    table.extend(last.x.iter().chain(&last.y).map(|&c| index(c)));
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_are_involutions_and_pair_partners() {
        for lanes in [32, 16] {
            let layouts = pair_layouts(lanes);
            let span = |s: usize| lanes >> (s + 1);
            for (s, layout) in layouts.iter().enumerate() {
                for (x, y) in layout.x.iter().zip(&layout.y) {
                    assert_eq!(x + span(s), *y, "stage {} lanes {lanes}", s + 1);
                }
                let (a, b) = stage(s + 1, &layout.x, &layout.y);
                let (x, y) = stage(s + 1, &a, &b);
                assert_eq!((x, y), (layout.x.clone(), layout.y.clone()));
            }
        }
    }
}

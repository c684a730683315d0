//! Portable kernels: one generic register-group kernel for every field.
//!
//! A butterfly set of 2^g rows (g ≤ 4) is loaded column by column into a
//! local array, all g layers run on it, and it is stored once: g layers cost
//! one read and one write of the rows (layer merging). No branch or index
//! depends on element values.

use super::GroupKernel;
use crate::field::Field;
use crate::transform::ButterflyKind;

pub(super) fn run_group<F: Field>(buf: &mut [F], group: &GroupKernel<'_, F>) {
    let superblocks = buf.len() / (group.width << group.log_rows);
    let per_set = (1 << group.log_radix) - 1;
    let sets = group.twiddles.len() / per_set;
    assert!(
        sets > 0
            && superblocks.is_multiple_of(sets)
            && group.twiddles.len().is_multiple_of(per_set),
        "twiddle sets cycle over the super-blocks"
    );
    match group.log_radix {
        1 => run::<F, 2>(buf, group),
        2 => run::<F, 4>(buf, group),
        3 => run::<F, 8>(buf, group),
        4 => run::<F, 16>(buf, group),
        g => panic!("register groups merge 1 to 4 layers, not {g}"),
    }
}

fn run<F: Field, const R: usize>(buf: &mut [F], group: &GroupKernel<'_, F>) {
    let width = group.width;
    let rows = 1usize << group.log_rows;
    let stride = rows / R;
    let sets = R - 1;
    for (block, twiddles) in buf
        .chunks_exact_mut(rows * width)
        .zip(group.twiddles.chunks_exact(sets).cycle())
    {
        for offset in 0..stride {
            let base = offset * width;
            for column in 0..width {
                let mut x = [F::zero(); R];
                for (j, v) in x.iter_mut().enumerate() {
                    *v = block[base + j * stride * width + column];
                }
                butterflies::<F, R>(&mut x, twiddles, group.kind);
                if let Some(scale) = group.scale {
                    for v in x.iter_mut() {
                        *v *= scale;
                    }
                }
                for (j, v) in x.iter().enumerate() {
                    block[base + j * stride * width + column] = *v;
                }
            }
        }
    }
}

/// The g = log₂ R layers of one butterfly set, in registers.
#[inline(always)]
fn butterflies<F: Field, const R: usize>(
    x: &mut [F; R],
    twiddles: &[F::Twiddle],
    kind: ButterflyKind,
) {
    let g = R.trailing_zeros() as usize;
    let layer = |x: &mut [F; R], i: usize| {
        let half = R >> (i + 1);
        for k in 0..1usize << i {
            let w = twiddles[(1 << i) - 1 + k];
            for j in k * 2 * half..k * 2 * half + half {
                let (a, b) = (x[j], x[j + half]);
                let (a, b) = butterfly(a, b, w, kind);
                x[j] = a;
                x[j + half] = b;
            }
        }
    };
    if kind.descending_spans() {
        for i in 0..g {
            layer(x, i);
        }
    } else {
        for i in (0..g).rev() {
            layer(x, i);
        }
    }
}

/// One butterfly (see [`ButterflyKind`] for the four formulas).
#[inline(always)]
pub(crate) fn butterfly<F: Field>(a: F, b: F, w: F::Twiddle, kind: ButterflyKind) -> (F, F) {
    match kind {
        ButterflyKind::CooleyTukey => {
            let t = b.mul_twiddle(w);
            (a + t, a - t)
        }
        ButterflyKind::GentlemanSande => (a + b, (a - b).mul_twiddle(w)),
        ButterflyKind::Additive => {
            let a = a + b.mul_twiddle(w);
            (a, b + a)
        }
        ButterflyKind::AdditiveInverse => {
            let b = b + a;
            (a + b.mul_twiddle(w), b)
        }
    }
}

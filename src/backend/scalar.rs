//! Portable kernels: one generic register-group kernel for every field.
//!
//! Row j of a butterfly set of 2^g rows (g ≤ 4) is one contiguous run of
//! `stride · width` elements sharing the set's twiddles, so the kernel takes
//! up to 8 neighbouring elements of every row at once, runs all g layers on
//! them in locals, and stores them once: g layers cost one read and one
//! write of the rows (layer merging), and the compiler may vectorise across
//! the 8. Each (radix, butterfly) pair is its own monomorphic loop. No branch
//! or index depends on element values.

use super::GroupKernel;
use crate::field::Field;
use crate::transform::ButterflyKind;

const CT: u8 = 0;
const GS: u8 = 1;
const ADD: u8 = 2;
const ADD_INV: u8 = 3;

pub(super) fn run_group<F: Field>(buf: &mut [F], group: &GroupKernel<'_, F>) {
    super::assert_twiddle_sets(buf.len(), group);
    macro_rules! by_kind {
        ($r:literal) => {
            match group.kind {
                ButterflyKind::CooleyTukey => by_chunk::<F, $r, CT>(buf, group),
                ButterflyKind::GentlemanSande => by_chunk::<F, $r, GS>(buf, group),
                ButterflyKind::Additive => by_chunk::<F, $r, ADD>(buf, group),
                ButterflyKind::AdditiveInverse => by_chunk::<F, $r, ADD_INV>(buf, group),
            }
        };
    }
    match group.log_radix {
        1 => by_kind!(2),
        2 => by_kind!(4),
        3 => by_kind!(8),
        4 => by_kind!(16),
        g => panic!("register groups merge 1 to 4 layers, not {g}"),
    }
}

fn by_chunk<F: Field, const R: usize, const KIND: u8>(buf: &mut [F], group: &GroupKernel<'_, F>) {
    let run_len = (group.width << group.log_rows) / R;
    match run_len {
        n if n.is_multiple_of(8) => run::<F, R, KIND, 8>(buf, group),
        n if n.is_multiple_of(4) => run::<F, R, KIND, 4>(buf, group),
        n if n.is_multiple_of(2) => run::<F, R, KIND, 2>(buf, group),
        _ => run::<F, R, KIND, 1>(buf, group),
    }
}

fn run<F: Field, const R: usize, const KIND: u8, const C: usize>(
    buf: &mut [F],
    group: &GroupKernel<'_, F>,
) {
    let block_len = group.width << group.log_rows;
    let run_len = block_len / R;
    for (block, twiddles) in buf
        .chunks_exact_mut(block_len)
        .zip(group.twiddles.chunks_exact(R - 1).cycle())
    {
        let w: [F::Twiddle; R] = core::array::from_fn(|k| twiddles[k.min(R - 2)]);
        for start in (0..run_len).step_by(C) {
            let mut x = [[F::zero(); C]; R];
            for (j, row) in x.iter_mut().enumerate() {
                row.copy_from_slice(&block[j * run_len + start..j * run_len + start + C]);
            }
            let g = R.trailing_zeros() as usize;
            if KIND == CT || KIND == ADD {
                for i in 0..g {
                    layer::<F, R, KIND, C>(&mut x, &w, i);
                }
            } else {
                for i in (0..g).rev() {
                    layer::<F, R, KIND, C>(&mut x, &w, i);
                }
            }
            if let Some(scale) = group.scale {
                x.iter_mut().flatten().for_each(|v| *v *= scale);
            }
            for (j, row) in x.iter().enumerate() {
                block[j * run_len + start..j * run_len + start + C].copy_from_slice(row);
            }
        }
    }
}

/// Layer i of a butterfly set, C neighbouring elements side by side.
#[inline(always)]
fn layer<F: Field, const R: usize, const KIND: u8, const C: usize>(
    x: &mut [[F; C]; R],
    w: &[F::Twiddle; R],
    i: usize,
) {
    let half = R >> (i + 1);
    for k in 0..1usize << i {
        let t = w[(1 << i) - 1 + k];
        for j in k * 2 * half..k * 2 * half + half {
            let (top, bottom) = x.split_at_mut(j + half);
            let (a, b) = (&mut top[j], &mut bottom[0]);
            for l in 0..C {
                (a[l], b[l]) = butterfly::<F, KIND>(a[l], b[l], t);
            }
        }
    }
}

/// One butterfly (see [`ButterflyKind`] for the four formulas).
#[inline(always)]
fn butterfly<F: Field, const KIND: u8>(a: F, b: F, w: F::Twiddle) -> (F, F) {
    match KIND {
        CT => {
            let t = b.mul_twiddle(w);
            (a + t, a - t)
        }
        GS => (a + b, (a - b).mul_twiddle(w)),
        ADD => {
            let a = a + b.mul_twiddle(w);
            (a, b + a)
        }
        _ => {
            let b = b + a;
            (a + b.mul_twiddle(w), b)
        }
    }
}

/// `dst[i] = a[i] + c·b[i]` (`a` = `dst` when `None`): the portable form of
/// `Kernels::mul_add`.
pub(crate) fn mul_add<F: Field>(dst: &mut [F], a: Option<&[F]>, b: &[F], c: F::Twiddle) {
    match a {
        Some(a) => {
            for ((d, &x), &y) in dst.iter_mut().zip(a).zip(b) {
                *d = x + y.mul_twiddle(c);
            }
        }
        None => {
            for (d, &y) in dst.iter_mut().zip(b) {
                *d += y.mul_twiddle(c);
            }
        }
    }
}

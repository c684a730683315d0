//! Portable lattice kernels: raw signed words with deferred reduction.
//!
//! A group loads each butterfly set of 2^g coefficients, runs its layers on
//! raw words without reducing (Cooley–Tukey adds < q per layer; Gentleman–
//! Sande doubles the top half), Barrett-reduces only where the next layer
//! could overflow, and stores. The schedule of reductions depends only on the
//! group's shape and input bound — never on coefficient values — so the
//! kernel is constant time; the planner computes the same schedule with
//! [`lazy_bounds`] and prints it.

use super::GroupKernel;
use crate::field::LatticeField;
use crate::transform::ButterflyKind;

/// The bounds of a lazily reduced register group, in multiples of q:
/// coefficients enter with `|a| < input·q` and leave with `|a| < output·q`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LazyBounds {
    /// Input bound.
    pub input: u32,
    /// Output bound (before any canonical reduction).
    pub output: u32,
    /// Barrett reductions the group makes (all coefficients, before a layer).
    pub reductions: u32,
}

/// Whether a layer with input bound `bound` must reduce first, and the bound
/// after it (without and with that reduction).
fn layer_step(kind: ButterflyKind, bound: u32, max: u32) -> (bool, u32) {
    match kind {
        // a ± t with |t| < q: one more q.
        ButterflyKind::CooleyTukey => {
            if bound < max {
                (false, bound + 1)
            } else {
                (true, 2)
            }
        }
        // a + b and a − b: twice the bound (the product half ends below q).
        _ => {
            if 2 * bound <= max {
                (false, 2 * bound)
            } else {
                (true, 2)
            }
        }
    }
}

/// The bounds of a group of `layers` layers of `kind` over field `F` whose
/// input is bounded by `input`·q.
pub fn lazy_bounds<F: LatticeField>(kind: ButterflyKind, layers: usize, input: u32) -> LazyBounds {
    let mut bound = input;
    let mut reductions = 0;
    for _ in 0..layers {
        let (reduce, next) = layer_step(kind, bound, F::MAX_BOUND);
        reductions += u32::from(reduce);
        bound = next;
    }
    LazyBounds {
        input,
        output: bound,
        reductions,
    }
}

pub(super) fn run_group<F: LatticeField>(buf: &mut [F], group: &GroupKernel<'_, F>) {
    super::assert_twiddle_sets(buf.len(), group);
    match group.log_radix {
        1 => by_chunk::<F, 2>(buf, group),
        2 => by_chunk::<F, 4>(buf, group),
        3 => by_chunk::<F, 8>(buf, group),
        4 => by_chunk::<F, 16>(buf, group),
        g => panic!("scalar register groups merge 1 to 4 layers, not {g}"),
    }
}

/// Picks how many neighbouring columns run side by side: row j of a
/// butterfly set is one contiguous run of `stride · width` words, so up to
/// 16 of them go through the layers together as arrays the compiler turns
/// into SIMD (and scalar words never alias vector stores).
fn by_chunk<F: LatticeField, const R: usize>(buf: &mut [F], group: &GroupKernel<'_, F>) {
    let run_len = (group.width << group.log_rows) / R;
    match run_len {
        n if n % 16 == 0 => run::<F, R, 16>(buf, group),
        n if n % 8 == 0 => run::<F, R, 8>(buf, group),
        n if n % 4 == 0 => run::<F, R, 4>(buf, group),
        n if n % 2 == 0 => run::<F, R, 2>(buf, group),
        _ => run::<F, R, 1>(buf, group),
    }
}

fn run<F: LatticeField, const R: usize, const C: usize>(buf: &mut [F], group: &GroupKernel<'_, F>) {
    let block_len = group.width << group.log_rows;
    let run_len = block_len / R;
    let scale = group.scale.map(F::prepare_twiddle);
    let raw = F::raw_slice(buf);
    for (block, twiddles) in raw
        .chunks_exact_mut(block_len)
        .zip(group.twiddles.chunks_exact(R - 1).cycle())
    {
        let twiddles: &[F::Raw; R] = &core::array::from_fn(|k| {
            if k + 1 < R {
                twiddles[k]
            } else {
                F::Raw::default()
            }
        });
        for start in (0..run_len).step_by(C) {
            let mut x = [[F::Raw::default(); C]; R];
            for (j, row) in x.iter_mut().enumerate() {
                row.copy_from_slice(&block[j * run_len + start..j * run_len + start + C]);
            }
            butterflies::<F, R, C>(&mut x, twiddles, group.kind, group.input_bound);
            for row in x.iter_mut() {
                for v in row.iter_mut() {
                    if let Some(s) = scale {
                        *v = F::montgomery_mul(*v, s);
                    }
                    if group.canonical_output {
                        *v = F::canonical(*v);
                    }
                }
            }
            for (j, row) in x.iter().enumerate() {
                block[j * run_len + start..j * run_len + start + C].copy_from_slice(row);
            }
        }
    }
}

/// The g = log₂ R layers of one butterfly set, C columns side by side.
#[inline(always)]
fn butterflies<F: LatticeField, const R: usize, const C: usize>(
    x: &mut [[F::Raw; C]; R],
    twiddles: &[F::Raw; R],
    kind: ButterflyKind,
    input_bound: u32,
) {
    let g = R.trailing_zeros() as usize;
    let mut bound = input_bound;
    let forward = kind == ButterflyKind::CooleyTukey;
    for step in 0..g {
        let i = if forward { step } else { g - 1 - step };
        let (reduce, next) = layer_step(kind, bound, F::MAX_BOUND);
        if reduce {
            x.iter_mut()
                .flatten()
                .for_each(|v| *v = F::barrett_reduce(*v));
        }
        bound = next;
        let half = R >> (i + 1);
        for k in 0..1usize << i {
            let w = twiddles[(1 << i) - 1 + k];
            for j in k * 2 * half..k * 2 * half + half {
                let (top, bottom) = x.split_at_mut(j + half);
                let (a, b) = (&mut top[j], &mut bottom[0]);
                for l in 0..C {
                    if forward {
                        let t = F::montgomery_mul(b[l], w);
                        b[l] = a[l] - t;
                        a[l] = a[l] + t;
                    } else {
                        let d = a[l] - b[l];
                        a[l] = a[l] + b[l];
                        b[l] = F::montgomery_mul(d, w);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    //! Every group shape at its worst-case input bound, under overflow checks
    //! (the test profile keeps them), against canonical field arithmetic.
    use super::*;
    use crate::backend::scalar;
    use crate::field::{MlDsa, MlKem};
    #[allow(unused_imports)]
    use crate::test_prelude::*;

    fn worst_case<F: LatticeField>(kind: ButterflyKind, layers: usize, input_bound: u32)
    where
        F::Raw: TryFrom<i64>,
        <F::Raw as TryFrom<i64>>::Error: core::fmt::Debug,
    {
        let rows = 1usize << layers;
        let max = (input_bound as i64) * F::Q as i64 - 1;
        let patterns: [fn(usize, i64) -> i64; 4] = [
            |_, m| m,
            |_, m| -m,
            |j, m| if j % 2 == 0 { m } else { -m },
            |j, m| if j % 3 == 0 { -m } else { m },
        ];
        for pattern in patterns {
            let raw: Vec<F::Raw> = (0..rows)
                .map(|j| F::Raw::try_from(pattern(j, max)).unwrap())
                .collect();
            // Twiddles at the extremes of their range too.
            let twiddles: Vec<F> = (0..rows - 1)
                .map(|k| F::from_u64(if k % 2 == 0 { F::Q - 1 } else { (F::Q - 1) / 2 }))
                .collect();
            let prepared: Vec<F::Raw> = twiddles.iter().map(|&w| F::prepare_twiddle(w)).collect();
            let mut lazy: Vec<F> = vec![F::zero(); rows];
            F::raw_slice(&mut lazy).copy_from_slice(&raw);
            let mut canonical: Vec<F> = raw.iter().map(|&r| F::from_raw_residue(r)).collect();
            let group = |canonical_output| GroupKernel {
                log_radix: layers,
                log_rows: layers,
                width: 1,
                kind,
                twiddles: &prepared,
                scale: None,
                input_bound,
                canonical_output,
                whole_block: false,
            };
            run_group(&mut lazy, &group(false));
            scalar::run_group(&mut canonical, &group(true));
            let bounds = lazy_bounds::<F>(kind, layers, input_bound);
            for (l, c) in F::raw_slice(&mut lazy).iter().zip(&canonical) {
                let limit = F::Raw::try_from(bounds.output as i64 * F::Q as i64).unwrap();
                assert!(*l < limit && -limit < *l, "{l:?} beyond {}q", bounds.output);
                assert_eq!(F::from_raw_residue(*l), *c);
            }
        }
    }

    #[test]
    fn every_group_shape_survives_its_worst_case_input() {
        for kind in [ButterflyKind::CooleyTukey, ButterflyKind::GentlemanSande] {
            for layers in 1..=4 {
                // Every ML-KEM bound natively; under Miri (an interpreter,
                // two minutes for all) the smallest and the largest.
                let kem: alloc::vec::Vec<u32> = if cfg!(miri) {
                    alloc::vec![1, MlKem::MAX_BOUND]
                } else {
                    (1..=MlKem::MAX_BOUND).collect()
                };
                for bound in kem {
                    worst_case::<MlKem>(kind, layers, bound);
                }
                let dsa: &[u32] = if cfg!(miri) {
                    &[1, 255]
                } else {
                    &[1, 2, 4, 8, 64, 128, 200, 255]
                };
                for bound in dsa.iter().copied() {
                    worst_case::<MlDsa>(kind, layers, bound);
                }
            }
        }
    }
}

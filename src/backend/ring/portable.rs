//! Portable whole-polynomial kernels: the layers one after another as
//! plain loops over the coefficient array (which the compiler vectorises
//! where the target allows), with the same lazy-reduction schedule and the
//! same orders as the SIMD kernels. Their table is the group's twiddles in
//! heap order (the field's Montgomery form), after the inverse's scale.

use crate::field::LatticeField;
use crate::field::{MlDsa, MlKem};
use crate::transform::ring::{from_permuted, to_permuted, Ring};
use alloc::vec::Vec;

/// The word arithmetic a portable kernel needs, per field.
pub(crate) trait PortableRing: LatticeField + Ring {
    /// The twiddle as the portable kernel reads it: ML-KEM's centred, so
    /// that a product of any `i16` stays below 0.75·q.
    fn table_twiddle(w: Self::Raw) -> Self::Raw;
    /// Whether the inverse reduces every word before its step `step`.
    fn inverse_reduces_before(step: usize, any_input: bool) -> bool;
    /// Layers of the transform.
    const LAYERS: usize;
}

impl PortableRing for MlKem {
    const LAYERS: usize = 7;
    fn table_twiddle(w: i16) -> i16 {
        let q = crate::field::mlkem::Q;
        let r = (w % q + q) % q;
        if r > q / 2 {
            r - q
        } else {
            r
        }
    }
    fn inverse_reduces_before(step: usize, any_input: bool) -> bool {
        crate::backend::ring::kem_inverse_reduces_before(step, any_input)
    }
}

impl PortableRing for MlDsa {
    const LAYERS: usize = 8;
    fn table_twiddle(w: i32) -> i32 {
        w
    }
    fn inverse_reduces_before(_step: usize, _any_input: bool) -> bool {
        false
    }
}

/// The portable forward table: the heap twiddles as the kernel reads them.
pub(crate) fn forward_table<F: PortableRing>(heap: &[F::Raw]) -> Vec<F::Raw> {
    heap.iter().map(|&w| F::table_twiddle(w)).collect()
}

/// The portable inverse table: the scale, then the heap twiddles.
pub(crate) fn inverse_table<F: PortableRing>(heap: &[F::Raw], f: F::Raw) -> Vec<F::Raw> {
    core::iter::once(F::table_twiddle(f))
        .chain(heap.iter().map(|&w| F::table_twiddle(w)))
        .collect()
}

/// One Cooley–Tukey layer of half-span `SPAN`, block twiddles `ws`.
#[inline(always)]
fn ct_layer<F: PortableRing, const SPAN: usize>(a: &mut [F::Raw; 256], ws: &[F::Raw]) {
    for (block, &w) in a.chunks_exact_mut(2 * SPAN).zip(ws) {
        let (lo, hi) = block.split_at_mut(SPAN);
        for (x, y) in lo.iter_mut().zip(hi.iter_mut()) {
            let t = F::montgomery_mul(*y, w);
            *y = *x - t;
            *x = *x + t;
        }
    }
}

/// One Gentleman–Sande layer of half-span `SPAN`.
#[inline(always)]
fn gs_layer<F: PortableRing, const SPAN: usize>(a: &mut [F::Raw; 256], ws: &[F::Raw]) {
    for (block, &w) in a.chunks_exact_mut(2 * SPAN).zip(ws) {
        let (lo, hi) = block.split_at_mut(SPAN);
        for (x, y) in lo.iter_mut().zip(hi.iter_mut()) {
            let d = *x - *y;
            *x = *x + *y;
            *y = F::montgomery_mul(d, w);
        }
    }
}

/// Runs `layer(ℓ)` for the layers in the given order, each with its span
/// as a constant (so the inner loops have fixed lengths).
macro_rules! by_span {
    ($layer:ident, $field:ty, $a:expr, $heap:expr, $l:expr) => {{
        let ws = &$heap[(1 << $l) - 1..(2 << $l) - 1];
        match $l {
            0 => $layer::<$field, 128>($a, ws),
            1 => $layer::<$field, 64>($a, ws),
            2 => $layer::<$field, 32>($a, ws),
            3 => $layer::<$field, 16>($a, ws),
            4 => $layer::<$field, 8>($a, ws),
            5 => $layer::<$field, 4>($a, ws),
            6 => $layer::<$field, 2>($a, ws),
            _ => $layer::<$field, 1>($a, ws),
        }
    }};
}

/// The forward NTT: input |a| < q, output below the field's lazy bound
/// (canonical if `CANONICAL`), standard order unless `PERMUTED`.
fn forward<F: PortableRing, const CANONICAL: bool, const PERMUTED: bool>(
    a: &mut [F::Raw; 256],
    heap: &[F::Raw],
) {
    for layer in 0..F::LAYERS {
        by_span!(ct_layer, F, a, heap, layer);
    }
    finish::<F, CANONICAL, PERMUTED>(a, false);
}

/// The inverse NTT: input any word if `ANY_INPUT` (ML-KEM) else |a| < q,
/// in standard order unless `PERMUTED`; output |a| < q, canonical if
/// `CANONICAL`.
fn inverse<F: PortableRing, const CANONICAL: bool, const PERMUTED: bool, const ANY_INPUT: bool>(
    a: &mut [F::Raw; 256],
    table: &[F::Raw],
) {
    if PERMUTED {
        let permuted = *a;
        from_permuted::<F, _>(&permuted, a);
    }
    let (f, heap) = (table[0], &table[1..]);
    for (step, layer) in (0..F::LAYERS).rev().enumerate() {
        if F::inverse_reduces_before(step, ANY_INPUT) {
            a.iter_mut().for_each(|v| *v = F::barrett_reduce(*v));
        }
        by_span!(gs_layer, F, a, heap, layer);
    }
    a.iter_mut().for_each(|v| *v = F::montgomery_mul(*v, f));
    finish::<F, CANONICAL, false>(a, true);
}

/// Canonical output (from the forward's bound, or from |a| < q after the
/// inverse's scale), then the permuted order where asked.
#[inline(always)]
fn finish<F: PortableRing, const CANONICAL: bool, const PERMUTED: bool>(
    a: &mut [F::Raw; 256],
    below_q: bool,
) {
    if CANONICAL {
        let _ = below_q;
        a.iter_mut().for_each(|v| *v = F::canonical(*v));
    }
    if PERMUTED {
        let standard = *a;
        to_permuted::<F, _>(&standard, a);
    }
}

macro_rules! entry_points {
    ($field:ty, $word:ty, $name:ident: $forward:ident, $inverse:ident) => {
        /// The portable forward NTT of one polynomial (the kernel signature
        /// every ISA shares; nothing here is unsafe).
        ///
        /// # Safety
        /// None beyond the signature's: `table` is this kernel's table.
        pub(crate) unsafe fn $forward<const CANONICAL: bool, const PERMUTED: bool>(
            poly: &mut [$word; 256],
            table: &[$word],
        ) {
            forward::<$field, CANONICAL, PERMUTED>(poly, table);
            #[cfg(nttfuse_ct_leak)]
            if CANONICAL {
                leak::fault(poly);
            }
        }

        /// The portable inverse NTT of one polynomial.
        ///
        /// # Safety
        /// None beyond the signature's: `table` is this kernel's table.
        pub(crate) unsafe fn $inverse<
            const CANONICAL: bool,
            const PERMUTED: bool,
            const ANY_INPUT: bool,
        >(
            poly: &mut [$word; 256],
            table: &[$word],
        ) {
            inverse::<$field, CANONICAL, PERMUTED, ANY_INPUT>(poly, table)
        }

        /// Every mode's entry point.
        pub(crate) const $name: super::RingFns<$word> = super::ring_fns!($forward, $inverse);
    };
}

/// Negative control of `nttfuse-ct disasm` (tests/ct), never in a normal
/// build: a count of small canonical outputs, kept in an atomic. An atomic
/// read-modify-write is never speculated, so the binary must branch on the
/// secret comparison whatever LLVM's inlining and code-unit split (a
/// range test written as a select, the control before, was hoisted or not
/// depending on them); the check must report it.
#[cfg(nttfuse_ct_leak)]
mod leak {
    use core::sync::atomic::{AtomicUsize, Ordering::Relaxed};

    /// Small outputs seen (never read).
    static SMALL: AtomicUsize = AtomicUsize::new(0);

    #[inline(always)]
    pub(super) fn fault<W: Copy + PartialOrd + From<i16>>(poly: &mut [W; 256]) {
        for v in poly.iter() {
            if *v < W::from(1000) {
                SMALL.fetch_add(1, Relaxed);
            }
        }
    }
}

entry_points!(MlKem, i16, MLKEM: mlkem_forward, mlkem_inverse);
entry_points!(MlDsa, i32, MLDSA: mldsa_forward, mldsa_inverse);

//! The ML-KEM NTT and its inverse with the whole polynomial in eight zmm
//! registers (32 × i16 each): layers 1–3 pair whole registers, layers 4–7
//! pair lanes after the stage shuffles of `backend::layout`.
//!
//! Montgomery products use precomputed twisted twiddles (w, w' = w·q⁻¹ mod
//! 2^16): `mulhi(b, w) − mulhi(mullo(b, w'), q)`, three multiplies and no
//! separate reduction. Bounds (multiples of q): the forward NTT takes
//! canonical input (< q) and grows by one q per layer (< 8q after layer 7),
//! then reduces to canonical; the inverse doubles the sums per layer
//! (< 8q after layers 7, 6, 5), Barrett-reduces every lane before layer 4
//! (→ |a| ≤ (q−1)/2), reaches < 8q again after layers 4…1 (only r0 and r4),
//! then scales by 2^−7 and reduces to canonical. No branch or address depends on a coefficient: the schedule of
//! reductions is fixed, masks replace conditional subtraction.

use super::{stage1, stage2, stage3, stage4};
use crate::backend::layout::whole_polynomial_table;
use crate::field::mlkem::{fqmul, Q, QINV, R2};
use crate::transform::ButterflyKind;
use core::arch::x86_64::*;

const REGS: usize = 8;
const LANES: usize = 32;
/// Offset of the lane twiddles in the table (after 7 scalar pairs, padded).
const VECTORS: usize = LANES;
/// Offset of the permutation indices.
const PERMUTES: usize = VECTORS + (REGS / 2) * 4 * 2 * LANES;
/// Table length per polynomial.
pub(crate) const TABLE_LEN: usize = PERMUTES + 4 * LANES;

/// The kernel's table from the group's heap-ordered twiddles (127 of them).
pub(crate) fn table(heap: &[i16]) -> Vec<i16> {
    let table = whole_polynomial_table(heap, REGS, LANES, |w| w.wrapping_mul(QINV), |i| i as i16);
    debug_assert_eq!(table.len(), TABLE_LEN);
    table
}

/// Runs the NTT (Cooley–Tukey) or its inverse (Gentleman–Sande) on every
/// 256-coefficient polynomial of `polys`.
///
/// # Safety
/// The CPU must support AVX-512 F and BW.
#[target_feature(enable = "avx512f,avx512bw")]
pub(crate) unsafe fn run(
    polys: &mut [i16],
    table: &[i16],
    kind: ButterflyKind,
    scale: Option<i16>,
) {
    assert!(
        table.len() == TABLE_LEN && polys.len().is_multiple_of(256),
        "one table, whole polynomials"
    );
    // Only plan-shaped groups get here (`Kernels::run_group` checks): an
    // inverse always carries its scale.
    let scale = match kind {
        ButterflyKind::CooleyTukey => None,
        _ => Some(scale.expect("whole-polynomial inverse groups carry their scale")),
    };
    for poly in polys.chunks_exact_mut(256) {
        match scale {
            None => forward(poly, table),
            Some(scale) => inverse(poly, table, scale),
        }
    }
}

#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn load(s: &[i16]) -> __m512i {
    assert!(s.len() >= LANES);
    // SAFETY: 32 i16 = 64 bytes are in bounds (checked); unaligned load.
    unsafe { _mm512_loadu_si512(s.as_ptr().cast()) }
}

#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn store(s: &mut [i16], v: __m512i) {
    assert!(s.len() >= LANES);
    // SAFETY: 64 bytes are in bounds (checked); unaligned store.
    unsafe { _mm512_storeu_si512(s.as_mut_ptr().cast(), v) }
}

/// `b·w·2^−16` for a twisted twiddle (w, wq): |r| < q for any i16 b.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn montmul(b: __m512i, w: __m512i, wq: __m512i) -> __m512i {
    let q = _mm512_set1_epi16(Q);
    _mm512_sub_epi16(
        _mm512_mulhi_epi16(b, w),
        _mm512_mulhi_epi16(_mm512_mullo_epi16(b, wq), q),
    )
}

/// Barrett reduction to |r| ≤ (q − 1)/2, as the scalar `barrett_reduce`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn barrett(a: __m512i) -> __m512i {
    let v = _mm512_set1_epi16(20159);
    let t = _mm512_srai_epi16::<10>(_mm512_add_epi16(
        _mm512_mulhi_epi16(a, v),
        _mm512_set1_epi16(512),
    ));
    _mm512_sub_epi16(a, _mm512_mullo_epi16(t, _mm512_set1_epi16(Q)))
}

/// Canonical residue in [0, q): Barrett, then add q to negative lanes.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn canonical(a: __m512i) -> __m512i {
    let r = barrett(a);
    _mm512_mask_add_epi16(r, _mm512_movepi16_mask(r), r, _mm512_set1_epi16(Q))
}

#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn ct(a: __m512i, b: __m512i, w: __m512i, wq: __m512i) -> (__m512i, __m512i) {
    let t = montmul(b, w, wq);
    (_mm512_add_epi16(a, t), _mm512_sub_epi16(a, t))
}

#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn gs(a: __m512i, b: __m512i, w: __m512i, wq: __m512i) -> (__m512i, __m512i) {
    (
        _mm512_add_epi16(a, b),
        montmul(_mm512_sub_epi16(a, b), w, wq),
    )
}

/// Broadcast twiddle pair i of the inter-register layers.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn scalar_twiddle(table: &[i16], i: usize) -> (__m512i, __m512i) {
    (
        _mm512_set1_epi16(table[2 * i]),
        _mm512_set1_epi16(table[2 * i + 1]),
    )
}

/// Lane twiddles of register pair `pair` at in-register layer `s` (0…3).
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn lane_twiddle(table: &[i16], pair: usize, s: usize) -> (__m512i, __m512i) {
    let at = VECTORS + (pair * 4 + s) * 2 * LANES;
    (load(&table[at..]), load(&table[at + LANES..]))
}

/// Inter-register layers: layer ℓ (0…2) pairs register i with i + 2^(2−ℓ);
/// `(i, j, t)` = the pair and its twiddle's heap index. Written out so that
/// the eight registers stay in registers (no indexed stack array).
macro_rules! outer_layers {
    ($bfly:ident, $table:expr, $r:ident, [$(($i:tt, $j:tt, $t:literal)),*]) => {
        $(
            let (w, wq) = scalar_twiddle($table, $t);
            ($r.$i, $r.$j) = $bfly($r.$i, $r.$j, w, wq);
        )*
    };
}

// Not inlined into the loop over polynomials: LLVM would hoist every
// twiddle load out of that loop and spill them all to the stack.
#[inline(never)]
#[target_feature(enable = "avx512f,avx512bw")]
fn forward(poly: &mut [i16], table: &[i16]) {
    let mut r = (
        load(&poly[0..]),
        load(&poly[LANES..]),
        load(&poly[2 * LANES..]),
        load(&poly[3 * LANES..]),
        load(&poly[4 * LANES..]),
        load(&poly[5 * LANES..]),
        load(&poly[6 * LANES..]),
        load(&poly[7 * LANES..]),
    );
    // Layers 1–3: |a| < q → < 4q.
    outer_layers!(ct, table, r, [(0, 4, 0), (1, 5, 0), (2, 6, 0), (3, 7, 0)]);
    outer_layers!(ct, table, r, [(0, 2, 1), (1, 3, 1), (4, 6, 2), (5, 7, 2)]);
    outer_layers!(ct, table, r, [(0, 1, 3), (2, 3, 4), (4, 5, 5), (6, 7, 6)]);
    let (a0, b0) = forward_pair(r.0, r.1, table, 0);
    let (a1, b1) = forward_pair(r.2, r.3, table, 1);
    let (a2, b2) = forward_pair(r.4, r.5, table, 2);
    let (a3, b3) = forward_pair(r.6, r.7, table, 3);
    for (i, v) in [a0, b0, a1, b1, a2, b2, a3, b3].into_iter().enumerate() {
        store(&mut poly[i * LANES..], v);
    }
}

/// Layers 4–7 on registers 2·pair and 2·pair + 1: < 4q → < 8q, then
/// canonical, then back to natural order.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn forward_pair(a: __m512i, b: __m512i, table: &[i16], pair: usize) -> (__m512i, __m512i) {
    let (x, y) = stage1(a, b);
    let (w, wq) = lane_twiddle(table, pair, 0);
    let (x, y) = ct(x, y, w, wq);
    let (x, y) = stage2(x, y);
    let (w, wq) = lane_twiddle(table, pair, 1);
    let (x, y) = ct(x, y, w, wq);
    let (x, y) = stage3(x, y);
    let (w, wq) = lane_twiddle(table, pair, 2);
    let (x, y) = ct(x, y, w, wq);
    let (x, y) = stage4(x, y);
    let (w, wq) = lane_twiddle(table, pair, 3);
    let (x, y) = ct(x, y, w, wq);
    let (x, y) = (canonical(x), canonical(y));
    let to_a = load(&table[PERMUTES..]);
    let to_b = load(&table[PERMUTES + LANES..]);
    (
        _mm512_permutex2var_epi16(x, to_a, y),
        _mm512_permutex2var_epi16(x, to_b, y),
    )
}

/// From natural order to the layout of layer 7, then layers 7, 6, 5
/// (< q → < 8q), a Barrett reduction, and layer 4 (→ < q), back to natural.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn inverse_pair(a: __m512i, b: __m512i, table: &[i16], pair: usize) -> (__m512i, __m512i) {
    let to_x = load(&table[PERMUTES + 2 * LANES..]);
    let to_y = load(&table[PERMUTES + 3 * LANES..]);
    let (x, y) = (
        _mm512_permutex2var_epi16(a, to_x, b),
        _mm512_permutex2var_epi16(a, to_y, b),
    );
    let (w, wq) = lane_twiddle(table, pair, 3);
    let (x, y) = gs(x, y, w, wq);
    let (x, y) = stage4(x, y);
    let (w, wq) = lane_twiddle(table, pair, 2);
    let (x, y) = gs(x, y, w, wq);
    let (x, y) = stage3(x, y);
    let (w, wq) = lane_twiddle(table, pair, 1);
    let (x, y) = gs(x, y, w, wq);
    let (x, y) = stage2(barrett(x), barrett(y));
    let (w, wq) = lane_twiddle(table, pair, 0);
    let (x, y) = gs(x, y, w, wq);
    stage1(x, y)
}

// Not inlined into the loop over polynomials: LLVM would hoist every
// twiddle load out of that loop and spill them all to the stack.
#[inline(never)]
#[target_feature(enable = "avx512f,avx512bw")]
fn inverse(poly: &mut [i16], table: &[i16], scale: i16) {
    let (r0, r1) = inverse_pair(load(&poly[0..]), load(&poly[LANES..]), table, 0);
    let (r2, r3) = inverse_pair(load(&poly[2 * LANES..]), load(&poly[3 * LANES..]), table, 1);
    let (r4, r5) = inverse_pair(load(&poly[4 * LANES..]), load(&poly[5 * LANES..]), table, 2);
    let (r6, r7) = inverse_pair(load(&poly[6 * LANES..]), load(&poly[7 * LANES..]), table, 3);
    let mut r = (r0, r1, r2, r3, r4, r5, r6, r7);
    // Layers 3, 2, 1 between registers: from < q to < 8q (r0), sums only.
    outer_layers!(gs, table, r, [(0, 1, 3), (2, 3, 4), (4, 5, 5), (6, 7, 6)]);
    outer_layers!(gs, table, r, [(0, 2, 1), (1, 3, 1), (4, 6, 2), (5, 7, 2)]);
    outer_layers!(gs, table, r, [(0, 4, 0), (1, 5, 0), (2, 6, 0), (3, 7, 0)]);
    let f = fqmul(scale, R2); // scale in Montgomery form: montmul(x, f) = x·scale
    let (f, fq) = (
        _mm512_set1_epi16(f),
        _mm512_set1_epi16(f.wrapping_mul(QINV)),
    );
    for (i, v) in [r.0, r.1, r.2, r.3, r.4, r.5, r.6, r.7]
        .into_iter()
        .enumerate()
    {
        store(&mut poly[i * LANES..], canonical(montmul(v, f, fq)));
    }
}

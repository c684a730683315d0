//! The ML-DSA NTT and its inverse with the whole polynomial in sixteen zmm
//! registers (16 × i32 each): layers 1–4 pair whole registers, layers 5–8
//! pair lanes after the stage shuffles of `backend::layout`.
//!
//! Montgomery products (R = 2^32) take twisted twiddles (w, w' = w·q⁻¹ mod
//! 2^32) and run on even and odd lanes separately with `vpmuldq` (signed
//! 32 × 32 → 64): `(b·w − (b·w' mod 2^32)·q) / 2^32`, |r| < q. Bounds
//! (multiples of q): the forward NTT grows by one q per layer, < q → < 9q,
//! then reduces to canonical; the inverse doubles the sums per layer,
//! < q → < 256q < 2^31 after layer 1 (so no intermediate reduction is
//! needed, and |x·f| < 256q² < q·2^31 for the final scaling), then scales by
//! 2^−8 and reduces to canonical. No branch or address depends on a
//! coefficient; the canonical reduction uses masks.

use super::{stage1, stage2, stage3, stage4};
use crate::backend::layout::whole_polynomial_table;
use crate::field::mldsa::{fqmul, Q, QINV, R2};
use crate::transform::ButterflyKind;
use core::arch::x86_64::*;

const REGS: usize = 16;
const LANES: usize = 16;
/// Offset of the lane twiddles in the table (after 15 scalar pairs, padded).
const VECTORS: usize = 2 * LANES;
/// Offset of the permutation indices.
const PERMUTES: usize = VECTORS + (REGS / 2) * 4 * 2 * LANES;
/// Table length per polynomial.
pub(crate) const TABLE_LEN: usize = PERMUTES + 4 * LANES;

/// The kernel's table from the group's heap-ordered twiddles (255 of them).
pub(crate) fn table(heap: &[i32]) -> Vec<i32> {
    let table = whole_polynomial_table(heap, REGS, LANES, |w| w.wrapping_mul(QINV), |i| i as i32);
    debug_assert_eq!(table.len(), TABLE_LEN);
    table
}

/// Runs the NTT (Cooley–Tukey) or its inverse (Gentleman–Sande) on every
/// 256-coefficient polynomial of `polys`.
///
/// # Safety
/// The CPU must support AVX-512 F.
#[target_feature(enable = "avx512f")]
pub(crate) unsafe fn run(
    polys: &mut [i32],
    table: &[i32],
    kind: ButterflyKind,
    scale: Option<i32>,
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
#[target_feature(enable = "avx512f")]
fn load(s: &[i32]) -> __m512i {
    assert!(s.len() >= LANES);
    // SAFETY: 16 i32 = 64 bytes are in bounds (checked); unaligned load.
    unsafe { _mm512_loadu_si512(s.as_ptr().cast()) }
}

#[inline]
#[target_feature(enable = "avx512f")]
fn store(s: &mut [i32], v: __m512i) {
    assert!(s.len() >= LANES);
    // SAFETY: 64 bytes are in bounds (checked); unaligned store.
    unsafe { _mm512_storeu_si512(s.as_mut_ptr().cast(), v) }
}

/// The odd 32-bit lanes moved to the even positions (where `vpmuldq` reads).
#[inline]
#[target_feature(enable = "avx512f")]
fn odd(v: __m512i) -> __m512i {
    _mm512_castps_si512(_mm512_movehdup_ps(_mm512_castsi512_ps(v)))
}

/// `b·w·2^−32` for a twisted twiddle (w, wq): |r| < q for |b·w| < q·2^31.
#[inline]
#[target_feature(enable = "avx512f")]
fn montmul(b: __m512i, w: __m512i, wq: __m512i) -> __m512i {
    let q = _mm512_set1_epi32(Q);
    let (bo, wo, wqo) = (odd(b), odd(w), odd(wq));
    let even = _mm512_sub_epi64(
        _mm512_mul_epi32(b, w),
        _mm512_mul_epi32(_mm512_mul_epi32(b, wq), q),
    );
    let odd = _mm512_sub_epi64(
        _mm512_mul_epi32(bo, wo),
        _mm512_mul_epi32(_mm512_mul_epi32(bo, wqo), q),
    );
    // The results are the high halves of the 64-bit differences.
    _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64::<32>(even), odd)
}

/// Canonical residue in [0, q): subtract round(a / 2^23)·q (with
/// q = 2^23 − 2^13 + 1 the product is shifts and adds), then add q to
/// negative lanes.
#[inline]
#[target_feature(enable = "avx512f")]
fn canonical(a: __m512i) -> __m512i {
    let t = _mm512_srai_epi32::<23>(_mm512_add_epi32(a, _mm512_set1_epi32(1 << 22)));
    let tq = _mm512_add_epi32(
        _mm512_sub_epi32(_mm512_slli_epi32::<23>(t), _mm512_slli_epi32::<13>(t)),
        t,
    );
    let r = _mm512_sub_epi32(a, tq);
    let negative = _mm512_cmplt_epi32_mask(r, _mm512_setzero_si512());
    _mm512_mask_add_epi32(r, negative, r, _mm512_set1_epi32(Q))
}

#[inline]
#[target_feature(enable = "avx512f")]
fn ct(a: __m512i, b: __m512i, w: __m512i, wq: __m512i) -> (__m512i, __m512i) {
    let t = montmul(b, w, wq);
    (_mm512_add_epi32(a, t), _mm512_sub_epi32(a, t))
}

#[inline]
#[target_feature(enable = "avx512f")]
fn gs(a: __m512i, b: __m512i, w: __m512i, wq: __m512i) -> (__m512i, __m512i) {
    (
        _mm512_add_epi32(a, b),
        montmul(_mm512_sub_epi32(a, b), w, wq),
    )
}

#[inline]
#[target_feature(enable = "avx512f")]
fn scalar_twiddle(table: &[i32], i: usize) -> (__m512i, __m512i) {
    (
        _mm512_set1_epi32(table[2 * i]),
        _mm512_set1_epi32(table[2 * i + 1]),
    )
}

#[inline]
#[target_feature(enable = "avx512f")]
fn lane_twiddle(table: &[i32], pair: usize, s: usize) -> (__m512i, __m512i) {
    let at = VECTORS + (pair * 4 + s) * 2 * LANES;
    (load(&table[at..]), load(&table[at + LANES..]))
}

/// Inter-register layers: `(i, j, t)` = registers paired and the heap index
/// of their twiddle. Written out so the sixteen registers stay in registers.
macro_rules! outer_layers {
    ($bfly:ident, $table:expr, $r:ident, [$(($i:tt, $j:tt, $t:literal)),*]) => {
        $(
            let (w, wq) = scalar_twiddle($table, $t);
            ($r.$i, $r.$j) = $bfly($r.$i, $r.$j, w, wq);
        )*
    };
}

macro_rules! layer1 {
    ($bfly:ident, $table:expr, $r:ident) => {
        outer_layers!(
            $bfly,
            $table,
            $r,
            [
                (0, 8, 0),
                (1, 9, 0),
                (2, 10, 0),
                (3, 11, 0),
                (4, 12, 0),
                (5, 13, 0),
                (6, 14, 0),
                (7, 15, 0)
            ]
        );
    };
}
macro_rules! layer2 {
    ($bfly:ident, $table:expr, $r:ident) => {
        outer_layers!(
            $bfly,
            $table,
            $r,
            [
                (0, 4, 1),
                (1, 5, 1),
                (2, 6, 1),
                (3, 7, 1),
                (8, 12, 2),
                (9, 13, 2),
                (10, 14, 2),
                (11, 15, 2)
            ]
        );
    };
}
macro_rules! layer3 {
    ($bfly:ident, $table:expr, $r:ident) => {
        outer_layers!(
            $bfly,
            $table,
            $r,
            [
                (0, 2, 3),
                (1, 3, 3),
                (4, 6, 4),
                (5, 7, 4),
                (8, 10, 5),
                (9, 11, 5),
                (12, 14, 6),
                (13, 15, 6)
            ]
        );
    };
}
macro_rules! layer4 {
    ($bfly:ident, $table:expr, $r:ident) => {
        outer_layers!(
            $bfly,
            $table,
            $r,
            [
                (0, 1, 7),
                (2, 3, 8),
                (4, 5, 9),
                (6, 7, 10),
                (8, 9, 11),
                (10, 11, 12),
                (12, 13, 13),
                (14, 15, 14)
            ]
        );
    };
}

macro_rules! load16 {
    ($poly:expr) => {
        (
            load(&$poly[0..]),
            load(&$poly[16..]),
            load(&$poly[32..]),
            load(&$poly[48..]),
            load(&$poly[64..]),
            load(&$poly[80..]),
            load(&$poly[96..]),
            load(&$poly[112..]),
            load(&$poly[128..]),
            load(&$poly[144..]),
            load(&$poly[160..]),
            load(&$poly[176..]),
            load(&$poly[192..]),
            load(&$poly[208..]),
            load(&$poly[224..]),
            load(&$poly[240..]),
        )
    };
}

// Not inlined into the loop over polynomials: LLVM would hoist every
// twiddle load out of that loop and spill them all to the stack.
#[inline(never)]
#[target_feature(enable = "avx512f")]
fn forward(poly: &mut [i32], table: &[i32]) {
    let mut r = load16!(poly);
    // Layers 1–4: |a| < q → < 5q.
    layer1!(ct, table, r);
    layer2!(ct, table, r);
    layer3!(ct, table, r);
    layer4!(ct, table, r);
    let pairs = [
        forward_pair(r.0, r.1, table, 0),
        forward_pair(r.2, r.3, table, 1),
        forward_pair(r.4, r.5, table, 2),
        forward_pair(r.6, r.7, table, 3),
        forward_pair(r.8, r.9, table, 4),
        forward_pair(r.10, r.11, table, 5),
        forward_pair(r.12, r.13, table, 6),
        forward_pair(r.14, r.15, table, 7),
    ];
    for (pair, (a, b)) in pairs.into_iter().enumerate() {
        store(&mut poly[2 * pair * LANES..], a);
        store(&mut poly[(2 * pair + 1) * LANES..], b);
    }
}

/// Layers 5–8 on registers 2·pair and 2·pair + 1: < 5q → < 9q, then
/// canonical, then back to natural order.
#[inline]
#[target_feature(enable = "avx512f")]
fn forward_pair(a: __m512i, b: __m512i, table: &[i32], pair: usize) -> (__m512i, __m512i) {
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
        _mm512_permutex2var_epi32(x, to_a, y),
        _mm512_permutex2var_epi32(x, to_b, y),
    )
}

/// From natural order to the layout of layer 8, then layers 8…5
/// (< q → < 16q), back to natural order.
#[inline]
#[target_feature(enable = "avx512f")]
fn inverse_pair(a: __m512i, b: __m512i, table: &[i32], pair: usize) -> (__m512i, __m512i) {
    let to_x = load(&table[PERMUTES + 2 * LANES..]);
    let to_y = load(&table[PERMUTES + 3 * LANES..]);
    let (x, y) = (
        _mm512_permutex2var_epi32(a, to_x, b),
        _mm512_permutex2var_epi32(a, to_y, b),
    );
    let (w, wq) = lane_twiddle(table, pair, 3);
    let (x, y) = gs(x, y, w, wq);
    let (x, y) = stage4(x, y);
    let (w, wq) = lane_twiddle(table, pair, 2);
    let (x, y) = gs(x, y, w, wq);
    let (x, y) = stage3(x, y);
    let (w, wq) = lane_twiddle(table, pair, 1);
    let (x, y) = gs(x, y, w, wq);
    let (x, y) = stage2(x, y);
    let (w, wq) = lane_twiddle(table, pair, 0);
    let (x, y) = gs(x, y, w, wq);
    stage1(x, y)
}

// Not inlined into the loop over polynomials: LLVM would hoist every
// twiddle load out of that loop and spill them all to the stack.
#[inline(never)]
#[target_feature(enable = "avx512f")]
fn inverse(poly: &mut [i32], table: &[i32], scale: i32) {
    let p = |i: usize| load(&poly[i * LANES..]);
    let (r0, r1) = inverse_pair(p(0), p(1), table, 0);
    let (r2, r3) = inverse_pair(p(2), p(3), table, 1);
    let (r4, r5) = inverse_pair(p(4), p(5), table, 2);
    let (r6, r7) = inverse_pair(p(6), p(7), table, 3);
    let (r8, r9) = inverse_pair(p(8), p(9), table, 4);
    let (r10, r11) = inverse_pair(p(10), p(11), table, 5);
    let (r12, r13) = inverse_pair(p(12), p(13), table, 6);
    let (r14, r15) = inverse_pair(p(14), p(15), table, 7);
    let mut r = (
        r0, r1, r2, r3, r4, r5, r6, r7, r8, r9, r10, r11, r12, r13, r14, r15,
    );
    // Layers 4…1: < 16q → < 256q.
    layer4!(gs, table, r);
    layer3!(gs, table, r);
    layer2!(gs, table, r);
    layer1!(gs, table, r);
    let f = fqmul(scale, R2); // scale in Montgomery form: montmul(x, f) = x·scale
    let (f, fq) = (
        _mm512_set1_epi32(f),
        _mm512_set1_epi32(f.wrapping_mul(QINV)),
    );
    let all = [
        r.0, r.1, r.2, r.3, r.4, r.5, r.6, r.7, r.8, r.9, r.10, r.11, r.12, r.13, r.14, r.15,
    ];
    for (i, v) in all.into_iter().enumerate() {
        store(&mut poly[i * LANES..], canonical(montmul(v, f, fq)));
    }
}

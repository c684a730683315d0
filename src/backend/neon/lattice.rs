//! The NEON lattice kernels, written once over the lane type
//! (8 × i16 for ML-KEM, 4 × i32 for ML-DSA).

use crate::backend::layout::stage_in;
use crate::transform::ButterflyKind;
use core::arch::aarch64::*;

/// A q register of lattice coefficients.
pub(crate) trait Lanes: Copy {
    /// The coefficient word.
    type Word: Copy + Default + core::fmt::Debug;
    /// Lanes per register.
    const LANES: usize;
    /// Layers of the transform (7 for ML-KEM, 8 for ML-DSA).
    const LAYERS: usize;
    fn load(s: &[Self::Word]) -> Self;
    fn store(self, s: &mut [Self::Word]);
    fn splat(x: Self::Word) -> Self;
    fn add(self, b: Self) -> Self;
    fn sub(self, b: Self) -> Self;
    /// Barrett multiplication by plain twiddle w with w' = round(w·2^(bits−1)/q).
    fn mul(self, w: Self, wt: Self) -> Self;
    /// Same residue, |r| ≤ (q − 1)/2 for ML-KEM (the scalar Barrett
    /// reduction, exactly); for ML-DSA |r| stays a little above (q − 1)/2
    /// for inputs below 8q (about 4.26·10^6), far inside the later growth's
    /// room.
    fn barrett(self) -> Self;
    /// Canonical residue in [0, q).
    fn canonical(self) -> Self;
    /// (X, Y) = ([A.q0 B.q0], [A.q1 B.q1]): stage 3, an involution.
    fn trn64(a: Self, b: Self) -> (Self, Self);
    /// (X, Y) = ([A.d0 B.d0 A.d2 B.d2], [A.d1 B.d1 A.d3 B.d3]): stage 4.
    fn trn32(a: Self, b: Self) -> (Self, Self);
    /// The twisted twiddle w' of a plain twiddle w.
    fn twist(w: Self::Word) -> Self::Word;
    /// A plain (centred) twiddle from its Montgomery form.
    fn plain(montgomery: Self::Word) -> Self::Word;
}

/// Layers of group A.
const fn outer<V: Lanes>() -> usize {
    V::LAYERS - 4
}

/// The kernel's table from the group's heap-ordered Montgomery twiddles:
///
/// ```text
///   A: (w, w') for each twiddle of layers 1…a (heap order)
///   B: per block of 4 registers: layer a+1 (w, w'), layer a+2 2 × (w, w')
///   C: per block, per register pair: layer a+3 lane w, w'; layer a+4 lane w, w'
/// ```
pub(crate) fn table<V: Lanes>(heap: &[V::Word]) -> Vec<V::Word> {
    let a = outer::<V>();
    let lanes = V::LANES;
    let coeffs = 256;
    let plain: Vec<V::Word> = heap.iter().map(|&w| V::plain(w)).collect();
    let pair = |w: V::Word| [w, V::twist(w)];
    let mut t: Vec<V::Word> = plain[..(1 << a) - 1]
        .iter()
        .flat_map(|&w| pair(w))
        .collect();
    let blocks = coeffs / (4 * lanes);
    for blk in 0..blocks {
        t.extend(pair(plain[(1 << a) - 1 + blk]));
        for k in 0..2 {
            t.extend(pair(plain[(1 << (a + 1)) - 1 + 2 * blk + k]));
        }
    }
    for blk in 0..blocks {
        for half in 0..2 {
            let base = blk * 4 * lanes + half * 2 * lanes;
            let mut x: Vec<usize> = (0..lanes).collect();
            let mut y: Vec<usize> = (lanes..2 * lanes).collect();
            for (s, layer) in [(3, a + 2), (4, a + 3)] {
                (x, y) = stage_in(16, s, &x, &y);
                let block_coeffs = coeffs >> layer;
                let w: Vec<V::Word> = x
                    .iter()
                    .map(|&c| plain[(1 << layer) - 1 + (base + c) / block_coeffs])
                    .collect();
                t.extend(w.iter().copied());
                t.extend(w.iter().map(|&w| V::twist(w)));
                // The layout chains: the next stage starts from this one.
            }
        }
    }
    t
}

fn twiddle<V: Lanes>(t: &[V::Word], i: usize) -> (V, V) {
    (V::splat(t[2 * i]), V::splat(t[2 * i + 1]))
}

fn ct<V: Lanes>(a: V, b: V, (w, wt): (V, V)) -> (V, V) {
    let t = b.mul(w, wt);
    (a.add(t), a.sub(t))
}

fn gs<V: Lanes>(a: V, b: V, (w, wt): (V, V)) -> (V, V) {
    (a.add(b), a.sub(b).mul(w, wt))
}

/// Runs the NTT or its inverse on every 256-coefficient polynomial.
pub(crate) fn run<V: Lanes>(
    polys: &mut [V::Word],
    table: &[V::Word],
    kind: ButterflyKind,
    scale: Option<V::Word>,
) {
    assert!(polys.len() % 256 == 0);
    // Only plan-shaped groups get here (`Kernels::run_group` checks): an
    // inverse always carries its scale.
    let scale = match kind {
        ButterflyKind::CooleyTukey => None,
        _ => Some(scale.expect("whole-polynomial inverse groups carry their scale")),
    };
    for poly in polys.chunks_exact_mut(256) {
        match scale {
            None => {
                group_a::<V>(poly, table, true, None);
                group_b::<V>(poly, table, true);
            }
            Some(scale) => {
                group_b::<V>(poly, table, false);
                group_a::<V>(poly, table, false, Some(scale));
            }
        }
    }
}

/// Layers 1…a, column by column: register j holds the lanes 256/2^a · j + col.
fn group_a<V: Lanes>(
    poly: &mut [V::Word],
    table: &[V::Word],
    forward: bool,
    scale: Option<V::Word>,
) {
    let a = outer::<V>();
    let regs = 1 << a;
    let stride = 256 / regs;
    // The scale is a plain value: Barrett multiplication takes it as it is.
    let scale = scale.map(|s| (V::splat(s), V::splat(V::twist(s))));
    for col in (0..stride).step_by(V::LANES) {
        let mut r = [V::splat(V::Word::default()); 16];
        for (j, v) in r.iter_mut().enumerate().take(regs) {
            *v = V::load(&poly[j * stride + col..]);
        }
        let layers: [usize; 4] = if forward { [0, 1, 2, 3] } else { [3, 2, 1, 0] };
        for &layer in layers.iter().filter(|&&l| l < a) {
            let span = regs >> (layer + 1);
            for block in 0..1 << layer {
                let tw = twiddle::<V>(table, (1 << layer) - 1 + block);
                for i in block * 2 * span..block * 2 * span + span {
                    (r[i], r[i + span]) = if forward {
                        ct(r[i], r[i + span], tw)
                    } else {
                        gs(r[i], r[i + span], tw)
                    };
                }
            }
        }
        for (j, v) in r.iter().enumerate().take(regs) {
            let mut v = *v;
            if let Some((f, ft)) = scale {
                v = v.mul(f, ft).canonical();
            }
            v.store(&mut poly[j * stride + col..]);
        }
    }
}

/// Layers a+1…a+4 on each block of four registers.
fn group_b<V: Lanes>(poly: &mut [V::Word], table: &[V::Word], forward: bool) {
    let a = outer::<V>();
    let lanes = V::LANES;
    let blocks = 256 / (4 * lanes);
    let b_at = 2 * ((1 << a) - 1);
    let c_at = b_at + 6 * blocks;
    let lane = |blk: usize, half: usize, s: usize| {
        let at = c_at + ((blk * 2 + half) * 2 + s) * 2 * lanes;
        (V::load(&table[at..]), V::load(&table[at + lanes..]))
    };
    for blk in 0..blocks {
        let at = blk * 4 * lanes;
        let mut r: [V; 4] = core::array::from_fn(|i| V::load(&poly[at + i * lanes..]));
        let t0 = twiddle::<V>(&table[b_at + 6 * blk..], 0);
        let (t1, t2) = (
            twiddle::<V>(&table[b_at + 6 * blk..], 1),
            twiddle::<V>(&table[b_at + 6 * blk..], 2),
        );
        if forward {
            (r[0], r[2]) = ct(r[0], r[2], t0);
            (r[1], r[3]) = ct(r[1], r[3], t0);
            (r[0], r[1]) = ct(r[0], r[1], t1);
            (r[2], r[3]) = ct(r[2], r[3], t2);
            for half in 0..2 {
                let (x, y) = V::trn64(r[2 * half], r[2 * half + 1]);
                let (x, y) = ct(x, y, lane(blk, half, 0));
                let (x, y) = V::trn32(x, y);
                let (x, y) = ct(x, y, lane(blk, half, 1));
                let (x, y) = (x.canonical(), y.canonical());
                let (x, y) = V::trn32(x, y);
                (r[2 * half], r[2 * half + 1]) = V::trn64(x, y);
            }
        } else {
            for half in 0..2 {
                let (x, y) = V::trn64(r[2 * half], r[2 * half + 1]);
                let (x, y) = V::trn32(x, y);
                let (x, y) = gs(x, y, lane(blk, half, 1));
                let (x, y) = V::trn32(x, y);
                let (x, y) = gs(x, y, lane(blk, half, 0));
                (r[2 * half], r[2 * half + 1]) = V::trn64(x, y);
            }
            (r[0], r[1]) = gs(r[0], r[1], t1);
            (r[2], r[3]) = gs(r[2], r[3], t2);
            // Sums are < 8q here; one more layer would pass 2^15 for ML-KEM.
            r = r.map(V::barrett);
            (r[0], r[2]) = gs(r[0], r[2], t0);
            (r[1], r[3]) = gs(r[1], r[3], t0);
        }
        for (i, v) in r.iter().enumerate() {
            v.store(&mut poly[at + i * lanes..]);
        }
    }
}

impl Lanes for int16x8_t {
    type Word = i16;
    const LANES: usize = 8;
    const LAYERS: usize = 7;
    fn load(s: &[i16]) -> Self {
        assert!(s.len() >= 8);
        // SAFETY: 8 i16 in bounds (checked).
        unsafe { vld1q_s16(s.as_ptr()) }
    }
    fn store(self, s: &mut [i16]) {
        assert!(s.len() >= 8);
        // SAFETY: 8 i16 in bounds (checked).
        unsafe { vst1q_s16(s.as_mut_ptr(), self) }
    }
    fn splat(x: i16) -> Self {
        // SAFETY: NEON is part of the AArch64 baseline, enabled for every
        // aarch64 target this crate builds for; no pointer is involved.
        unsafe { vdupq_n_s16(x) }
    }
    fn add(self, b: Self) -> Self {
        // SAFETY: NEON is part of the AArch64 baseline, enabled for every
        // aarch64 target this crate builds for; no pointer is involved.
        unsafe { vaddq_s16(self, b) }
    }
    fn sub(self, b: Self) -> Self {
        // SAFETY: NEON is part of the AArch64 baseline, enabled for every
        // aarch64 target this crate builds for; no pointer is involved.
        unsafe { vsubq_s16(self, b) }
    }
    fn mul(self, w: Self, wt: Self) -> Self {
        // SAFETY: NEON is part of the AArch64 baseline, enabled for every
        // aarch64 target this crate builds for; no pointer is involved.
        unsafe {
            let t = vqrdmulhq_s16(self, wt);
            vmlsq_s16(vmulq_s16(self, w), t, vdupq_n_s16(crate::field::mlkem::Q))
        }
    }
    fn barrett(self) -> Self {
        // SAFETY: NEON is part of the AArch64 baseline, enabled for every
        // aarch64 target this crate builds for; no pointer is involved.
        unsafe {
            // floor(a·v / 2^15), then a rounding shift by 11: round(a·v / 2^26).
            let t = vrshrq_n_s16::<11>(vqdmulhq_s16(self, vdupq_n_s16(20159)));
            vmlsq_s16(self, t, vdupq_n_s16(crate::field::mlkem::Q))
        }
    }
    fn canonical(self) -> Self {
        // SAFETY: NEON is part of the AArch64 baseline, enabled for every
        // aarch64 target this crate builds for; no pointer is involved.
        unsafe {
            let r = self.barrett();
            vaddq_s16(
                r,
                vandq_s16(vshrq_n_s16::<15>(r), vdupq_n_s16(crate::field::mlkem::Q)),
            )
        }
    }
    fn trn64(a: Self, b: Self) -> (Self, Self) {
        // SAFETY: NEON is part of the AArch64 baseline, enabled for every
        // aarch64 target this crate builds for; no pointer is involved.
        unsafe {
            let (a, b) = (vreinterpretq_s64_s16(a), vreinterpretq_s64_s16(b));
            (
                vreinterpretq_s16_s64(vtrn1q_s64(a, b)),
                vreinterpretq_s16_s64(vtrn2q_s64(a, b)),
            )
        }
    }
    fn trn32(a: Self, b: Self) -> (Self, Self) {
        // SAFETY: NEON is part of the AArch64 baseline, enabled for every
        // aarch64 target this crate builds for; no pointer is involved.
        unsafe {
            let (a, b) = (vreinterpretq_s32_s16(a), vreinterpretq_s32_s16(b));
            (
                vreinterpretq_s16_s32(vtrn1q_s32(a, b)),
                vreinterpretq_s16_s32(vtrn2q_s32(a, b)),
            )
        }
    }
    fn twist(w: i16) -> i16 {
        let q = crate::field::mlkem::Q as f64;
        (w as f64 * 32768.0 / q).round() as i16
    }
    fn plain(montgomery: i16) -> i16 {
        crate::field::mlkem::montgomery_reduce(montgomery as i32)
    }
}

impl Lanes for int32x4_t {
    type Word = i32;
    const LANES: usize = 4;
    const LAYERS: usize = 8;
    fn load(s: &[i32]) -> Self {
        assert!(s.len() >= 4);
        // SAFETY: 4 i32 in bounds (checked).
        unsafe { vld1q_s32(s.as_ptr()) }
    }
    fn store(self, s: &mut [i32]) {
        assert!(s.len() >= 4);
        // SAFETY: 4 i32 in bounds (checked).
        unsafe { vst1q_s32(s.as_mut_ptr(), self) }
    }
    fn splat(x: i32) -> Self {
        // SAFETY: NEON is part of the AArch64 baseline, enabled for every
        // aarch64 target this crate builds for; no pointer is involved.
        unsafe { vdupq_n_s32(x) }
    }
    fn add(self, b: Self) -> Self {
        // SAFETY: NEON is part of the AArch64 baseline, enabled for every
        // aarch64 target this crate builds for; no pointer is involved.
        unsafe { vaddq_s32(self, b) }
    }
    fn sub(self, b: Self) -> Self {
        // SAFETY: NEON is part of the AArch64 baseline, enabled for every
        // aarch64 target this crate builds for; no pointer is involved.
        unsafe { vsubq_s32(self, b) }
    }
    fn mul(self, w: Self, wt: Self) -> Self {
        // SAFETY: NEON is part of the AArch64 baseline, enabled for every
        // aarch64 target this crate builds for; no pointer is involved.
        unsafe {
            let t = vqrdmulhq_s32(self, wt);
            vmlsq_s32(vmulq_s32(self, w), t, vdupq_n_s32(crate::field::mldsa::Q))
        }
    }
    fn barrett(self) -> Self {
        // SAFETY: NEON is part of the AArch64 baseline, enabled for every
        // aarch64 target this crate builds for; no pointer is involved.
        unsafe {
            // round(a / 2^23) · q subtracted (q = 2^23 − 2^13 + 1).
            let t = vrshrq_n_s32::<23>(self);
            vmlsq_s32(self, t, vdupq_n_s32(crate::field::mldsa::Q))
        }
    }
    fn canonical(self) -> Self {
        // SAFETY: NEON is part of the AArch64 baseline, enabled for every
        // aarch64 target this crate builds for; no pointer is involved.
        unsafe {
            let r = self.barrett();
            vaddq_s32(
                r,
                vandq_s32(vshrq_n_s32::<31>(r), vdupq_n_s32(crate::field::mldsa::Q)),
            )
        }
    }
    fn trn64(a: Self, b: Self) -> (Self, Self) {
        // SAFETY: NEON is part of the AArch64 baseline, enabled for every
        // aarch64 target this crate builds for; no pointer is involved.
        unsafe {
            let (a, b) = (vreinterpretq_s64_s32(a), vreinterpretq_s64_s32(b));
            (
                vreinterpretq_s32_s64(vtrn1q_s64(a, b)),
                vreinterpretq_s32_s64(vtrn2q_s64(a, b)),
            )
        }
    }
    fn trn32(a: Self, b: Self) -> (Self, Self) {
        // SAFETY: NEON is part of the AArch64 baseline, enabled for every
        // aarch64 target this crate builds for; no pointer is involved.
        unsafe { (vtrn1q_s32(a, b), vtrn2q_s32(a, b)) }
    }
    fn twist(w: i32) -> i32 {
        let q = crate::field::mldsa::Q as f64;
        (w as f64 * 2147483648.0 / q).round() as i32
    }
    fn plain(montgomery: i32) -> i32 {
        crate::field::mldsa::montgomery_reduce(montgomery as i64)
    }
}

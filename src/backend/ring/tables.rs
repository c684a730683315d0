//! Plan-time tables of the whole-polynomial kernels: each twiddle as the
//! vectors a kernel reads, in the order it reads them.

use crate::field::{mldsa, mlkem};
use alloc::vec::Vec;

/// How a field's twiddles become table vectors on one ISA (plan-time code,
/// no intrinsics).
pub(crate) trait TwiddleVectors {
    /// The coefficient word.
    type Word: Copy + Default;
    /// Words per register.
    const LANES: usize;
    /// Registers a block holds.
    const BLOCK: usize;
    /// Layers of the transform.
    const LAYERS: usize;
    /// Vectors (`LANE_TWIDDLE · LANES` words) for lane twiddles `ws` (the
    /// field's Montgomery-form twiddles, one per lane).
    fn lane_vectors(ws: &[Self::Word]) -> Vec<Self::Word>;
    /// Vectors (`SPLAT_TWIDDLE · LANES` words) for one twiddle on all lanes.
    fn splat_vectors(w: Self::Word) -> Vec<Self::Word>;
    /// `w · f` for Montgomery-form twiddles (the inverse's scale folded in).
    fn times(w: Self::Word, f: Self::Word) -> Self::Word;
}

/// The shape of a kernel's registers, for the table builders.
pub(super) struct Shape {
    pub(super) lanes: usize,
    pub(super) block: usize,
    pub(super) layers: usize,
    pub(super) stages: usize,
    pub(super) inter: usize,
    pub(super) split: usize,
}

impl Shape {
    fn of<T: TwiddleVectors>() -> Self {
        let stages = (T::LANES * core::mem::size_of::<T::Word>() / 4).trailing_zeros() as usize;
        let inter = T::BLOCK.trailing_zeros() as usize;
        Shape {
            lanes: T::LANES,
            block: T::BLOCK,
            layers: T::LAYERS,
            stages,
            inter,
            split: T::LAYERS - inter - stages,
        }
    }

    /// Coefficients (within a pair of registers, 0 … 2·lanes) in X after
    /// stage `stage` (1 …).
    pub(super) fn pair_x(&self, stage: usize) -> Vec<usize> {
        let n = self.lanes;
        let mut a: Vec<usize> = (0..n).collect();
        let mut b: Vec<usize> = (n..2 * n).collect();
        for s in 1..=stage {
            let granule = n >> s;
            let (mut x, mut y) = (Vec::new(), Vec::new());
            for start in (0..n).step_by(2 * granule) {
                x.extend_from_slice(&a[start..start + granule]);
                x.extend_from_slice(&b[start..start + granule]);
                y.extend_from_slice(&a[start + granule..start + 2 * granule]);
                y.extend_from_slice(&b[start + granule..start + 2 * granule]);
            }
            (a, b) = (x, y);
        }
        a
    }

    /// The heap index of the twiddle of coefficient `c`'s block at `layer`.
    fn heap_index(&self, layer: usize, c: usize) -> usize {
        (1 << layer) - 1 + (c >> (8 - layer))
    }
}

/// The forward kernel's table from the group's heap-ordered twiddles (the
/// field's Montgomery form, `2^LAYERS − 1` of them).
pub(crate) fn forward_table<T: TwiddleVectors>(heap: &[T::Word]) -> Vec<T::Word> {
    let s = Shape::of::<T>();
    assert_eq!(heap.len(), (1 << s.layers) - 1, "one twiddle per block");
    let mut table = Vec::new();
    for layer in 0..s.split {
        for k in 0..1 << layer {
            table.extend(T::splat_vectors(heap[(1 << layer) - 1 + k]));
        }
    }
    let regs = 256 / s.lanes;
    for block in 0..regs / s.block {
        for i in 0..s.inter {
            let layer = s.split + i;
            for k in 0..1 << i {
                let first_coeff = (block * s.block + k * (s.block >> i)) * s.lanes;
                table.extend(T::splat_vectors(heap[s.heap_index(layer, first_coeff)]));
            }
        }
        table.extend(lane_twiddles::<T>(&s, heap, block, |w| w));
    }
    table
}

/// The lane twiddles of a block: per pair, per stage, one vector set.
fn lane_twiddles<T: TwiddleVectors>(
    s: &Shape,
    heap: &[T::Word],
    block: usize,
    map: impl Fn(T::Word) -> T::Word,
) -> Vec<T::Word> {
    let mut out = Vec::new();
    for pair in 0..s.block / 2 {
        let pair_base = (block * s.block + 2 * pair) * s.lanes;
        for stage in 1..=s.stages {
            let layer = s.split + s.inter + stage - 1;
            let ws: Vec<T::Word> = s
                .pair_x(stage)
                .iter()
                .map(|&c| map(heap[s.heap_index(layer, pair_base + c)]))
                .collect();
            out.extend(T::lane_vectors(&ws));
        }
    }
    out
}

/// The inverse kernel's table: the scale, then per block its lane
/// twiddles and its layers between registers (last layer first), then
/// phase 1's; layer 0's twiddles carry the scale `f` (Montgomery form).
pub(crate) fn inverse_table<T: TwiddleVectors>(heap: &[T::Word], f: T::Word) -> Vec<T::Word> {
    let s = Shape::of::<T>();
    assert_eq!(heap.len(), (1 << s.layers) - 1, "one twiddle per block");
    let scaled = |layer: usize, w: T::Word| if layer == 0 { T::times(w, f) } else { w };
    let mut table = T::splat_vectors(f);
    let regs = 256 / s.lanes;
    for block in 0..regs / s.block {
        table.extend(lane_twiddles::<T>(&s, heap, block, |w| w));
        for i in (0..s.inter).rev() {
            let layer = s.split + i;
            for k in 0..1 << i {
                let first_coeff = (block * s.block + k * (s.block >> i)) * s.lanes;
                let w = heap[s.heap_index(layer, first_coeff)];
                table.extend(T::splat_vectors(scaled(layer, w)));
            }
        }
    }
    for layer in (0..s.split).rev() {
        for k in 0..1 << layer {
            table.extend(T::splat_vectors(scaled(layer, heap[(1 << layer) - 1 + k])));
        }
    }
    table
}

/// ML-KEM twiddles for 16-bit Montgomery products (AVX2, AVX-512):
/// `mulhi(b, w) − mulhi(mullo(b, w·q⁻¹), q)`, with w = w_plain·2^16 mod q
/// centred to |w| ≤ (q − 1)/2, so that |r| < 0.75·q for any `i16` b.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) struct KemMontgomery<const LANES: usize, const BLOCK: usize>;

impl<const LANES: usize, const BLOCK: usize> TwiddleVectors for KemMontgomery<LANES, BLOCK> {
    type Word = i16;
    const LANES: usize = LANES;
    const BLOCK: usize = BLOCK;
    const LAYERS: usize = 7;

    fn lane_vectors(ws: &[i16]) -> Vec<i16> {
        let ws: Vec<i16> = ws.iter().map(|&w| centre_kem(w)).collect();
        let mut v = ws.clone();
        v.extend(ws.iter().map(|&w| w.wrapping_mul(mlkem::QINV)));
        v
    }

    fn splat_vectors(w: i16) -> Vec<i16> {
        Self::lane_vectors(&[w; LANES])
    }

    fn times(w: i16, f: i16) -> i16 {
        mlkem::fqmul(w, f)
    }
}

/// `w` (any residue with |w| < 2q) centred to |w| ≤ (q − 1)/2.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
fn centre_kem(w: i16) -> i16 {
    let q = mlkem::Q;
    let r = (w % q + q) % q;
    if r > q / 2 {
        r - q
    } else {
        r
    }
}

/// ML-DSA twiddles for 32-bit Montgomery products (AVX2, AVX-512): w =
/// w_plain·2^32 mod q centred to |w| ≤ (q − 1)/2 and w' = w·q⁻¹ mod 2^32;
/// `m = lo32(b·w')` (one `vpmulld` for every lane), then
/// `r = hi32(b·w) − hi32(m·q)` from `vpmuldq` on the even and the odd
/// lanes: |r| < q for |b·w| < 2^31·q. Vectors: w, the odd lanes' w moved
/// to the even positions (where `vpmuldq` reads), w'. A twiddle shared by
/// every lane needs no second vector. (Five multiplies against a rounded
/// Shoup product's four, but fewer other instructions: 7.3 against 9.0
/// cycles per butterfly of 16 lanes on Zen 4, measured.)
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) struct DsaMontgomery<const LANES: usize, const BLOCK: usize>;

/// An ML-DSA Montgomery-form twiddle centred to |w| ≤ (q − 1)/2.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
fn centre_dsa(w: i32) -> i32 {
    let q = mldsa::Q as i64;
    let r = (w as i64).rem_euclid(q);
    (if r > q / 2 { r - q } else { r }) as i32
}

impl<const LANES: usize, const BLOCK: usize> TwiddleVectors for DsaMontgomery<LANES, BLOCK> {
    type Word = i32;
    const LANES: usize = LANES;
    const BLOCK: usize = BLOCK;
    const LAYERS: usize = 8;

    fn lane_vectors(ws: &[i32]) -> Vec<i32> {
        let ws: Vec<i32> = ws.iter().map(|&w| centre_dsa(w)).collect();
        let mut v = ws.clone();
        v.extend((0..LANES).map(|j| if j % 2 == 0 { ws[j + 1] } else { 0 }));
        v.extend(ws.iter().map(|&w| w.wrapping_mul(mldsa::QINV)));
        v
    }

    fn splat_vectors(w: i32) -> Vec<i32> {
        let w = centre_dsa(w);
        let mut v = vec![w; LANES];
        v.extend([w.wrapping_mul(mldsa::QINV); LANES]);
        v
    }

    fn times(w: i32, f: i32) -> i32 {
        mldsa::fqmul(w, f)
    }
}

/// Twiddles for the NEON Barrett products (`sqrdmulh`): plain w centred to
/// |w| ≤ (q − 1)/2 and w' = round(w·2^(bits−1)/q); `r = b·w − q·sqrdmulh(b,
/// w')` has |r| ≤ q for any word b. `BITS` is 16 (ML-KEM) or 32 (ML-DSA).
#[cfg_attr(not(target_arch = "aarch64"), allow(dead_code))]
pub(crate) struct Barrett<W, const LANES: usize, const BLOCK: usize, const BITS: u32>(
    core::marker::PhantomData<W>,
);

/// A lattice word the Barrett tables are made of.
#[cfg_attr(not(target_arch = "aarch64"), allow(dead_code))]
pub(crate) trait BarrettWord: Copy + Default {
    /// The field's modulus.
    const Q: i64;
    /// Layers of the field's NTT.
    const LAYERS: usize;
    /// The plain value of a Montgomery-form word.
    fn plain(montgomery: Self) -> i64;
    /// `a·b·R⁻¹` of Montgomery forms.
    fn times(a: Self, b: Self) -> Self;
    fn from_i64(x: i64) -> Self;
}

impl BarrettWord for i16 {
    const Q: i64 = mlkem::Q as i64;
    const LAYERS: usize = 7;
    fn plain(montgomery: i16) -> i64 {
        mlkem::montgomery_reduce(montgomery as i32) as i64
    }
    fn times(a: i16, b: i16) -> i16 {
        mlkem::fqmul(a, b)
    }
    fn from_i64(x: i64) -> i16 {
        x as i16
    }
}

impl BarrettWord for i32 {
    const Q: i64 = mldsa::Q as i64;
    const LAYERS: usize = 8;
    fn plain(montgomery: i32) -> i64 {
        mldsa::montgomery_reduce(montgomery as i64) as i64
    }
    fn times(a: i32, b: i32) -> i32 {
        mldsa::fqmul(a, b)
    }
    fn from_i64(x: i64) -> i32 {
        x as i32
    }
}

#[cfg_attr(not(target_arch = "aarch64"), allow(dead_code))]
impl<W: BarrettWord, const LANES: usize, const BLOCK: usize, const BITS: u32>
    Barrett<W, LANES, BLOCK, BITS>
{
    /// (w, w') of a Montgomery-form twiddle.
    fn pair(w: W) -> (W, W) {
        let q = W::Q;
        let r = W::plain(w).rem_euclid(q);
        let w = if r > q / 2 { r - q } else { r };
        // round(w·2^(BITS−1)/q) in integers (q is odd: never a tie).
        let scaled = i128::from(w) << (BITS - 1);
        let wt = (2 * scaled + i128::from(q)).div_euclid(2 * i128::from(q)) as i64;
        (W::from_i64(w), W::from_i64(wt))
    }
}

impl<W: BarrettWord, const LANES: usize, const BLOCK: usize, const BITS: u32> TwiddleVectors
    for Barrett<W, LANES, BLOCK, BITS>
{
    type Word = W;
    const LANES: usize = LANES;
    const BLOCK: usize = BLOCK;
    const LAYERS: usize = W::LAYERS;

    fn lane_vectors(ws: &[W]) -> Vec<W> {
        let pairs: Vec<(W, W)> = ws.iter().map(|&w| Self::pair(w)).collect();
        let mut v: Vec<W> = pairs.iter().map(|p| p.0).collect();
        v.extend(pairs.iter().map(|p| p.1));
        v
    }

    fn splat_vectors(w: W) -> Vec<W> {
        Self::lane_vectors(&[w; LANES])
    }

    fn times(w: W, f: W) -> W {
        W::times(w, f)
    }
}

//! The packed kernel's transposed form: narrow columns loaded as registers
//! of several rows, the first layers run inside registers after an
//! in-register transpose.

use super::*;

#[inline(always)]
pub(crate) fn run_transposed_body<P: Packed, const R: usize, const KIND: u8>(
    buf: &mut [P::F],
    group: &GroupKernel<'_, P::F>,
) {
    let chunk = R * P::LANES;
    // Table slots per chunk: R − 1 twiddles per super-block, two to a slot
    // where they are compact.
    let set = if P::COMPACT_LANES {
        R * (R - 1) / 2
    } else {
        R * (R - 1)
    };
    assert!(
        group.width << group.log_rows == P::LANES
            && 1 << group.log_rows == R
            && buf.len().is_multiple_of(chunk)
            && group.twiddles.len().is_multiple_of(set),
        "a transposed group holds R super-blocks of one register each"
    );
    let shift = group.width.trailing_zeros() as usize;
    let scale = group
        .scale
        .map(|s| P::broadcast(<P::F as Field>::prepare_twiddle(s)));
    for (block, twiddles) in buf
        .chunks_exact_mut(chunk)
        .zip(group.twiddles.chunks_exact(set).cycle())
    {
        if P::COMPACT_LANES {
            let w = CompactLanes {
                chunk: twiddles,
                r: R,
                shift,
            };
            transposed_chunk::<P, R, KIND>(block, &w, scale, shift);
        } else {
            let w = LaneTwiddles {
                table: twiddles,
                stride: R,
                shift,
            };
            transposed_chunk::<P, R, KIND>(block, &w, scale, shift);
        }
    }
}

/// One chunk of R super-blocks: loaded, transposed, the butterflies, and
/// transposed back.
#[allow(
    clippy::needless_range_loop,
    reason = "plain index loops: iterator adapters here left calls in the kernel"
)]
#[inline(always)]
fn transposed_chunk<P: Packed, const R: usize, const KIND: u8>(
    block: &mut [P::F],
    w: &impl LayerTwiddles<P>,
    scale: Option<P::Twiddle>,
    shift: usize,
) {
    let mut x = [P::load(block, P::LANES); R];
    for j in 1..R {
        x[j] = P::load(&block[j * P::LANES..], P::LANES);
    }
    transpose(&mut x, shift);
    butterflies::<P, R, KIND, false>(&mut x, w, scale);
    transpose(&mut x, shift);
    for (j, v) in x.iter().enumerate() {
        v.store(&mut block[j * P::LANES..], P::LANES);
    }
}

/// A chunk's compact lane twiddles ([`Packed::COMPACT_LANES`]), loaded where
/// a layer uses them. Their products are Montgomery's, so only the
/// multiplicative butterflies read them: a packing with compact lanes is a
/// prime field's (CT or GS groups).
struct CompactLanes<'a, T> {
    chunk: &'a [T],
    r: usize,
    shift: usize,
}

impl<P: Packed> LayerTwiddles<P> for CompactLanes<'_, <P::F as Field>::Twiddle> {
    #[inline(always)]
    fn twiddle(&self, k: usize) -> P::Twiddle {
        P::load_compact_lanes(self.chunk, k, self.r, self.shift)
    }
    #[inline(always)]
    fn ct(&self, k: usize, a: P, b: P) -> (P, P) {
        a.ct_compact::<false, false>(b, P::load_compact_lanes(self.chunk, k, self.r, self.shift))
    }
    #[inline(always)]
    fn gs(&self, k: usize, a: P, b: P) -> (P, P) {
        a.gs_compact(b, P::load_compact_lanes(self.chunk, k, self.r, self.shift))
    }
    #[inline(always)]
    fn ct_lazy<const IN: bool, const OUT: bool>(&self, k: usize, a: P, b: P) -> (P, P) {
        a.ct_compact::<IN, OUT>(b, P::load_compact_lanes(self.chunk, k, self.r, self.shift))
    }
}

/// The R × R transpose of `2^shift`-element pieces across `x` (its own
/// inverse): step t exchanges register-index bit t with lane bit shift + t.
#[inline(always)]
fn transpose<P: Packed, const R: usize>(x: &mut [P; R], shift: usize) {
    // Literal steps (as the layers in `butterflies`), so `x` stays in
    // registers.
    let g = R.trailing_zeros() as usize;
    exchange_step(x, shift, 0);
    if g > 1 {
        exchange_step(x, shift, 1);
    }
    if g > 2 {
        exchange_step(x, shift, 2);
    }
    if g > 3 {
        exchange_step(x, shift, 3);
    }
}

/// Step t of [`transpose`]: exchanges register-index bit t with lane bit
/// shift + t.
#[inline(always)]
fn exchange_step<P: Packed, const R: usize>(x: &mut [P; R], shift: usize, t: usize) {
    let d = 1 << t;
    for i in 0..R {
        if i & d == 0 {
            (x[i], x[i + d]) = x[i].exchange(x[i + d], shift + t);
        }
    }
}

/// Lays out a transposed group's twiddles: given in heap order per
/// super-block ([super-block][k], R − 1 each), returns them per chunk of R
/// super-blocks as [k][super-block], the order [`run_transposed`] loads them.
/// `None` if the super-blocks do not fill whole chunks.
pub(crate) fn transposed_twiddles<T: Copy>(heap: &[T], superblocks: usize) -> Option<Vec<T>> {
    let per = heap.len() / superblocks.max(1);
    let r = per + 1;
    if per == 0 || !r.is_power_of_two() || !superblocks.is_multiple_of(r) {
        return None;
    }
    let mut out = Vec::with_capacity(heap.len());
    for chunk in heap.chunks_exact(r * per) {
        for k in 0..per {
            out.extend((0..r).map(|s| chunk[s * per + k]));
        }
    }
    Some(out)
}

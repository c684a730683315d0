//! Memory kernels: moving rows between the data and per-thread scratch.
//!
//! A gathered pass works on *row groups*: 2^g rows that lie `stride` rows
//! apart inside one block, `chunk` consecutive rows at a time:
//!
//! ```text
//!   block of block_rows rows:
//!   [chunk q of row 0 ....][....][chunk q of row stride][....]…   (2^g rows)
//!        tile (block, q)  =  { q·chunk + j·stride + [0, chunk) : j < 2^g }
//! ```
//!
//! Distinct tiles touch disjoint rows, so they may run on different threads
//! at once. Safe Rust cannot express "these strided row sets are disjoint"
//! with slices, so [`StridedTiles`] keeps the data as a raw pointer, computes
//! every tile's rows itself, and hands each tile out exactly once.

use core::marker::PhantomData;

use crate::field::Field;
use crate::transform::bit_reverse;

mod reorder;
pub use reorder::{
    bit_reverse_rows, bit_reverse_rows_from, for_each_chunk_bit_reversed, reversal_is_blocked,
    transpose_rows_from,
};

/// The tiles of one gathered pass over a buffer of whole blocks.
pub struct StridedTiles<'a, F> {
    data: SharedPtr<F>,
    len: usize,
    width: usize,
    block_rows: usize,
    group_rows: usize,
    chunk: usize,
    _data: PhantomData<&'a mut [F]>,
}

/// A raw pointer that may cross threads; see the SAFETY notes where it is used.
struct SharedPtr<F>(*mut F);
impl<F> Clone for SharedPtr<F> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<F> Copy for SharedPtr<F> {}
impl<F> SharedPtr<F> {
    /// The pointer (a method, so closures capture the `Send` wrapper whole).
    fn get(self) -> *mut F {
        self.0
    }
}
// SAFETY: the pointer is only dereferenced through `TileRows`, and
// `StridedTiles::for_each_tile` creates each tile once; tiles address disjoint
// rows (module doc), so no element is reached from two threads.
// `for_each_tile_across_blocks` hands out only the first block's tiles, each
// owning its offsets in every block: still disjoint.
// `for_each_chunk_bit_reversed` makes each chunk once (bit reversal is a
// bijection): disjoint too.
unsafe impl<F: Send> Send for SharedPtr<F> {}
// SAFETY: as above; sharing the pointer itself gives no access to elements.
unsafe impl<F: Send> Sync for SharedPtr<F> {}

impl<'a, F: Copy + Send + Sync> StridedTiles<'a, F> {
    /// Splits `data` (whole blocks of `block_rows` rows × `width`) into tiles
    /// of `group_rows` rows, `block_rows / group_rows` apart, `chunk`
    /// consecutive rows each.
    ///
    /// Panics unless `group_rows · chunk` divides `block_rows` and `data` is
    /// whole blocks: the planner only builds such shapes. Crate-private: the
    /// tiles' rows are reached through raw pointers whose bounds rest on
    /// these checks.
    pub(crate) fn new(
        data: &'a mut [F],
        width: usize,
        block_rows: usize,
        group_rows: usize,
        chunk: usize,
    ) -> Self {
        assert!(width > 0 && group_rows > 0 && chunk > 0);
        // Checked products: a wrapped one could pass these tests with rows
        // beyond `data`, which the tiles' raw pointers would then reach.
        assert!(
            group_rows
                .checked_mul(chunk)
                .is_some_and(|tile| block_rows.is_multiple_of(tile)),
            "tiles divide a block"
        );
        assert!(
            block_rows
                .checked_mul(width)
                .is_some_and(|block| block > 0 && data.len().is_multiple_of(block)),
            "data is whole blocks"
        );
        Self {
            len: data.len(),
            data: SharedPtr(data.as_mut_ptr()),
            width,
            block_rows,
            group_rows,
            chunk,
            _data: PhantomData,
        }
    }

    /// Number of tiles.
    pub fn len(&self) -> usize {
        self.len / (self.width * self.chunk * self.group_rows)
    }

    /// Elements of scratch one tile needs.
    pub fn scratch_len(&self) -> usize {
        self.group_rows * self.chunk * self.width
    }

    /// Calls `f` once for every tile, on the rayon pool if `parallel`.
    pub fn for_each_tile(self, parallel: bool, f: impl Fn(TileRows<'_, F>) + Sync + Send) {
        let tiles = self.len();
        let per_block = self.block_rows / (self.group_rows * self.chunk);
        let make = |t: usize| TileRows {
            data: self.data,
            width: self.width,
            first_row: (t / per_block) * self.block_rows + (t % per_block) * self.chunk,
            stride: self.block_rows / self.group_rows,
            group_rows: self.group_rows,
            chunk: self.chunk,
            block: t / per_block,
            offset_in_block: (t % per_block) * self.chunk,
            block_rows: self.block_rows,
            blocks_owned: 1,
            _tile: PhantomData,
        };
        crate::par::for_each_index(parallel, tiles, 1, |t| f(make(t)));
    }

    /// Calls `f` once for every tile of the *first* block; each such tile
    /// owns the same rows of every block as well ([`TileRows::in_block`]).
    /// A pass that reads one block and writes several (a fused LDE: the
    /// coefficients in block 0, a replica per block) runs this way.
    pub fn for_each_tile_across_blocks(
        self,
        parallel: bool,
        f: impl Fn(TileRows<'_, F>) + Sync + Send,
    ) {
        let per_block = self.block_rows / (self.group_rows * self.chunk);
        let blocks = self.len / (self.block_rows * self.width);
        let make = |t: usize| TileRows {
            data: self.data,
            width: self.width,
            first_row: t * self.chunk,
            stride: self.block_rows / self.group_rows,
            group_rows: self.group_rows,
            chunk: self.chunk,
            block: 0,
            offset_in_block: t * self.chunk,
            block_rows: self.block_rows,
            blocks_owned: blocks,
            _tile: PhantomData,
        };
        crate::par::for_each_index(parallel, per_block, 1, |t| f(make(t)));
    }
}

/// The rows of one tile: `group_rows` runs of `chunk` rows, `stride` apart.
pub struct TileRows<'t, F> {
    data: SharedPtr<F>,
    width: usize,
    first_row: usize,
    stride: usize,
    group_rows: usize,
    chunk: usize,
    block: usize,
    offset_in_block: usize,
    block_rows: usize,
    /// Blocks, from `block` on, whose rows at this tile's offsets it owns:
    /// 1, or all of them for a tile from
    /// [`StridedTiles::for_each_tile_across_blocks`].
    blocks_owned: usize,
    _tile: PhantomData<&'t mut [F]>,
}

impl<'t, F: Copy> TileRows<'t, F> {
    /// Index of the block (within the data the tiles were made from).
    pub fn block(&self) -> usize {
        self.block
    }

    /// The same rows `b` blocks further on, as a tile of their own (for as
    /// long as it is borrowed). Panics unless this tile owns them, i.e. it
    /// came from [`StridedTiles::for_each_tile_across_blocks`].
    pub fn in_block(&mut self, b: usize) -> TileRows<'_, F> {
        assert!(b < self.blocks_owned, "the tile owns block {b}'s rows");
        TileRows {
            data: self.data,
            width: self.width,
            first_row: self.first_row + b * self.block_rows,
            stride: self.stride,
            group_rows: self.group_rows,
            chunk: self.chunk,
            block: self.block + b,
            offset_in_block: self.offset_in_block,
            block_rows: self.block_rows,
            blocks_owned: 1,
            _tile: PhantomData,
        }
    }

    fn run_len(&self) -> usize {
        self.chunk * self.width
    }

    fn run_start(&self, j: usize) -> usize {
        (self.first_row + j * self.stride) * self.width
    }

    /// The tile's runs as rows a kernel reads in place of scratch rows
    /// (run j ↔ scratch row j): the gather, fused into the first group.
    pub fn rows_from(&self) -> RowsFrom<'t, F> {
        let run = self.run_len();
        let pitch = self.stride * self.width;
        RowsFrom {
            // The runs are the tile's own; the shape was checked by
            // `StridedTiles::new` (the last run ends inside the data).
            ptr: self.data.0.wrapping_add(self.run_start(0)),
            pitch,
            rows: self.group_rows,
            width: run,
            reversed: false,
            fold: Folded::NONE,
            _data: PhantomData,
        }
    }

    /// The tile's runs as rows a kernel writes in place of scratch rows: the
    /// scatter, fused into the last group.
    pub fn rows_to(&mut self) -> RowsTo<'_, F> {
        let run = self.run_len();
        let pitch = self.stride * self.width;
        RowsTo {
            ptr: self.data.0.wrapping_add(self.run_start(0)),
            pitch,
            rows: self.group_rows,
            width: run,
            streaming: false,
            _data: PhantomData,
        }
    }

    /// [`TileRows::rows_to`] written with non-temporal (streaming) stores
    /// where the kernel and the rows' alignment allow: the rows go to
    /// memory without first being read into the cache, which saves the
    /// read-for-ownership of destinations the pass did not read (an
    /// out-of-place first pass, the replicas of an encode). The caller ends
    /// the tile with `store_fence`.
    pub fn rows_to_streaming(&mut self) -> RowsTo<'_, F> {
        RowsTo {
            streaming: true,
            ..self.rows_to()
        }
    }

    /// The same runs of `source` (one block laid out like the data's
    /// blocks) as rows to read: [`TileRows::gather_from`], fused.
    pub fn rows_of<'s>(&self, source: &'s [F]) -> RowsFrom<'s, F> {
        self.rows_of_folded(source, Folded::NONE)
    }

    /// [`TileRows::rows_of`] with a pruned transform's fold riding on the
    /// loads: row i reads as `source` row i plus `fold.terms` more terms,
    /// `fold.unit` elements apart (see [`RowsFrom::folded`]).
    pub fn rows_of_folded<'s>(&self, source: &'s [F], fold: Folded) -> RowsFrom<'s, F> {
        let start = self.offset_in_block * self.width;
        RowsFrom::folded(
            &source[start..],
            self.group_rows,
            self.run_len(),
            self.stride * self.width,
            fold,
        )
    }
}

/// Asks for every line of the `n` elements at `p` (see [`prefetch`]).
#[inline(always)]
pub(crate) fn prefetch_elements<F>(p: *const F, n: usize) {
    let start = p.cast::<u8>();
    let end = start.wrapping_add(n * core::mem::size_of::<F>());
    let mut line = start.wrapping_sub(start as usize % 64);
    while line < end {
        prefetch(line);
        line = line.wrapping_add(64);
    }
}

/// A hint to bring the line at `p` into the caches (`prefetcht0`); a no-op
/// elsewhere. It never faults, whatever `p` is.
#[inline(always)]
fn prefetch(p: *const u8) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    // SAFETY: a prefetch reads nothing architecturally and never faults, for
    // any address; SSE is part of x86-64.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p.cast())
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    let _ = p;
}

/// Orders earlier streaming stores before later stores (`sfence`), so rows
/// written through [`TileRows::rows_to_streaming`] are visible to whoever
/// is handed them next.
pub fn store_fence() {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    // SAFETY: `sfence` has no operands and SSE is part of x86-64.
    unsafe {
        core::arch::x86_64::_mm_sfence()
    }
}

/// Rows of another buffer, `pitch` elements apart, that a register group
/// reads its input from in place of its own buffer's rows: row i of the
/// group's buffer ↔ the elements at `i · pitch ..` here. A gathered pass's
/// first group loads its tile straight from the data this way, with no copy
/// into scratch. Only the executor builds one, from a tile it owns.
#[derive(Clone, Copy, Debug)]
pub struct RowsFrom<'a, F> {
    ptr: *const F,
    pitch: usize,
    rows: usize,
    width: usize,
    /// Row i of the group's buffer is row BitRev(i) here (`rows` a power
    /// of two): a deep pass reading its block bit-reversed from the source.
    reversed: bool,
    /// Further terms each row reads (a pruned transform's fold).
    fold: Folded,
    _data: PhantomData<&'a [F]>,
}

/// The shape of a pruned transform's fold riding on a group's loads: each
/// row a group reads is `row + Σ_t c_t · (row + (t + 1)·unit)`, with the
/// coefficients c_t in [`RowMoves::fold`]. No terms: a plain read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Folded {
    /// Terms beyond the row itself.
    pub terms: usize,
    /// Elements between consecutive terms.
    pub unit: usize,
}

impl Folded {
    /// No fold.
    pub const NONE: Folded = Folded { terms: 0, unit: 0 };
}

/// As [`RowsFrom`], for a group's output: its last group stores the tile
/// straight back to the data's rows.
#[derive(Debug)]
pub struct RowsTo<'a, F> {
    ptr: *mut F,
    pitch: usize,
    rows: usize,
    width: usize,
    /// Whether to store with non-temporal stores (see
    /// [`TileRows::rows_to_streaming`]).
    pub(crate) streaming: bool,
    _data: PhantomData<&'a mut [F]>,
}

/// Where a register group's rows come from and go to when they are not its
/// own buffer's (see [`RowsFrom`]). The default for both is the buffer.
#[derive(Debug)]
pub struct RowMoves<'a, F: Field> {
    pub(crate) from: Option<RowsFrom<'a, F>>,
    pub(crate) to: Option<RowsTo<'a, F>>,
    /// The coefficients of the fold riding on `from`'s loads, one per term
    /// of its [`Folded`] (empty: none).
    pub(crate) fold: &'a [F::Twiddle],
}

impl<'a, F: Field> RowMoves<'a, F> {
    /// Moves from and to the given rows; a fold on `from` takes its
    /// coefficients from `fold` (checked: one per term).
    pub(crate) fn new(
        from: Option<RowsFrom<'a, F>>,
        to: Option<RowsTo<'a, F>>,
        fold: &'a [F::Twiddle],
    ) -> Self {
        let terms = from.as_ref().map_or(0, |f| f.fold.terms);
        assert_eq!(terms, fold.len(), "one fold coefficient per term");
        Self { from, to, fold }
    }
}

impl<'a, F: Copy> RowsFrom<'a, F> {
    /// `rows` rows of `width` elements, `pitch` apart, from the start of `source`.
    pub(crate) fn new(source: &'a [F], rows: usize, width: usize, pitch: usize) -> Self {
        Self::folded(source, rows, width, pitch, Folded::NONE)
    }

    /// As [`RowsFrom::new`], each row read with the further terms of `fold`
    /// (which must lie inside `source` too).
    pub(crate) fn folded(
        source: &'a [F],
        rows: usize,
        width: usize,
        pitch: usize,
        fold: Folded,
    ) -> Self {
        assert!(rows > 0 && width <= pitch);
        let end = (rows - 1) * pitch + width + fold.terms * fold.unit;
        assert!(
            end <= source.len(),
            "every term of every row lies inside the source"
        );
        Self {
            ptr: source.as_ptr(),
            pitch,
            rows,
            width,
            reversed: false,
            fold,
            _data: PhantomData,
        }
    }

    /// The fold riding on these rows' loads.
    pub(crate) fn fold(&self) -> Folded {
        self.fold
    }

    /// As [`RowsFrom::new`], with row i of the group's buffer at row
    /// BitRev(i) of these (`rows` a power of two).
    pub(crate) fn bit_reversed(source: &'a [F], rows: usize, width: usize, pitch: usize) -> Self {
        assert!(rows.is_power_of_two());
        Self {
            reversed: true,
            ..Self::new(source, rows, width, pitch)
        }
    }

    /// Where row i of the group's buffer is among these rows.
    #[inline(always)]
    fn at(&self, i: usize) -> usize {
        if self.reversed {
            crate::transform::bit_reverse(i, self.rows.trailing_zeros() as usize)
        } else {
            i
        }
    }

    /// Row `i` (`width` elements).
    #[inline(always)]
    pub(crate) fn row(&self, i: usize) -> &[F] {
        self.term_row(i, 0)
    }

    /// Term `t` (0: the row itself, up to `fold().terms`) of row `i`'s fold.
    #[inline(always)]
    pub(crate) fn term_row(&self, i: usize, t: usize) -> &[F] {
        assert!(i < self.rows && t <= self.fold.terms);
        let at = self.at(i) * self.pitch + t * self.fold.unit;
        // SAFETY: `folded` checked that every term of every row lies inside
        // `source` (`at` maps 0..rows onto itself: bit reversal of a power
        // of two), which this borrows for 'a; nothing writes those rows
        // while it lives.
        unsafe { core::slice::from_raw_parts(self.ptr.add(at), self.width) }
    }

    /// Pointers to rows `first + j·step` for j < R, each to `width`
    /// elements: a butterfly set's rows, looked up once for all its
    /// registers. Pointers, not slices: a kernel whose destination rows are
    /// these same rows (an in-place gathered pass of one group) makes a
    /// fresh reference for each access, so that no reference to a row lives
    /// across a write to it. Panics unless the last row exists. A row's
    /// fold terms lie `t · fold().unit` elements on, for t ≤ `fold().terms`.
    #[inline(always)]
    pub(crate) fn row_ptrs<const R: usize>(&self, first: usize, step: usize) -> [*const F; R] {
        assert!(first + (R - 1) * step < self.rows);
        core::array::from_fn(|j| {
            self.ptr
                .wrapping_add(self.at(first + j * step) * self.pitch)
        })
    }

    /// Whether row i is row BitRev(i) here (see [`RowsFrom::bit_reversed`]).
    pub(crate) fn is_reversed(&self) -> bool {
        self.reversed
    }

    /// Asks for every line of rows `first + j·step` (j < R) ahead of their
    /// loads: the rows a deep pass reads bit-reversed lie far apart, a few
    /// lines each, where no hardware prefetcher finds a stream. Rows past
    /// the last are skipped; a hint, never a load.
    #[inline(always)]
    pub(crate) fn prefetch_rows<const R: usize>(&self, first: usize, step: usize) {
        if first + (R - 1) * step >= self.rows {
            return;
        }
        for j in 0..R {
            let row = self
                .ptr
                .wrapping_add(self.at(first + j * step) * self.pitch);
            prefetch_elements(row, self.width);
        }
    }

    /// Elements per row.
    pub(crate) fn width(&self) -> usize {
        self.width
    }

    /// Rows.
    pub(crate) fn rows(&self) -> usize {
        self.rows
    }

    /// Copies row i into `buf`'s row i, for every row: the move a kernel
    /// that cannot fuse it makes first.
    pub(crate) fn copy_into(&self, buf: &mut [F]) {
        for (i, dst) in buf.chunks_exact_mut(self.width).take(self.rows).enumerate() {
            dst.copy_from_slice(self.row(i));
        }
    }
}

impl<'a, F: Copy> RowsTo<'a, F> {
    /// The contiguous rows of `dst` (`width` elements each) to write, with
    /// non-temporal stores where `streaming`: a deep pass's tile, which its
    /// last group writes from the scratch rows it ran in.
    pub(crate) fn contiguous(dst: &'a mut [F], width: usize, streaming: bool) -> Self {
        assert!(width > 0 && dst.len().is_multiple_of(width) && !dst.is_empty());
        Self {
            ptr: dst.as_mut_ptr(),
            pitch: width,
            rows: dst.len() / width,
            width,
            streaming,
            _data: PhantomData,
        }
    }

    /// Row `i` (`width` elements), to write. The caller holds no other
    /// reference into row i while the returned slice lives.
    #[inline(always)]
    pub(crate) fn row(&mut self, i: usize) -> &mut [F] {
        assert!(i < self.rows);
        // SAFETY: the constructor (`TileRows::rows_to`) made every row lie
        // inside the tile's data, whose rows the tile owns alone for 'a;
        // `&mut self` makes this slice the only access through it.
        unsafe { core::slice::from_raw_parts_mut(self.ptr.add(i * self.pitch), self.width) }
    }

    /// As [`RowsFrom::row_ptrs`], to write: each pointer is valid for
    /// writes of `width` elements while `self` is borrowed, and no other
    /// reference into those rows exists but the kernel's own.
    #[inline(always)]
    pub(crate) fn row_ptrs<const R: usize>(&mut self, first: usize, step: usize) -> [*mut F; R] {
        assert!(first + (R - 1) * step < self.rows);
        core::array::from_fn(|j| self.ptr.wrapping_add((first + j * step) * self.pitch))
    }

    /// Elements per row.
    pub(crate) fn width(&self) -> usize {
        self.width
    }

    /// Copies `buf`'s rows back to these: the move a kernel that cannot fuse
    /// it makes last.
    pub(crate) fn copy_from(&mut self, buf: &[F]) {
        let streaming = self.streaming;
        for (i, src) in buf.chunks_exact(self.width).take(self.rows).enumerate() {
            let dst = self.row(i);
            if streaming {
                // SAFETY: `dst` is a row of `width` elements, writable and
                // not overlapping `buf` (another buffer).
                unsafe { stream_copy(dst.as_mut_ptr(), src) }
            } else {
                dst.copy_from_slice(src);
            }
        }
    }
}

/// Copies `src` to `dst` with non-temporal stores where the target has them
/// (x86-64: `movntdq` for the 16-byte-aligned middle), plain copies for the
/// unaligned ends and elsewhere. Callers end a run of these with
/// [`store_fence`] before others read the data.
///
/// # Safety
/// `dst` is valid for writes of `src.len()` elements and does not overlap
/// `src`.
unsafe fn stream_copy<F: Copy>(dst: *mut F, src: &[F]) {
    let bytes = core::mem::size_of_val(src);
    let (d, s) = (dst.cast::<u8>(), src.as_ptr().cast::<u8>());
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        let head = d.align_offset(16).min(bytes);
        let lines = (bytes - head) / 16;
        // SAFETY: head + 16·lines ≤ bytes, inside both buffers (caller), which
        // do not overlap. The asm copies bytes as they are (it never
        // interprets them, so any `F`, padding included, is copied exactly);
        // dst + head is 16-byte aligned as `movntdq` requires; SSE2 is part
        // of x86-64.
        unsafe {
            core::ptr::copy_nonoverlapping(s, d, head);
            if lines > 0 {
                core::arch::asm!(
                    "2:",
                    "movdqu {x}, xmmword ptr [{s}]",
                    "movntdq xmmword ptr [{d}], {x}",
                    "add {s}, 16",
                    "add {d}, 16",
                    "dec {n}",
                    "jnz 2b",
                    s = inout(reg) s.add(head) => _,
                    d = inout(reg) d.add(head) => _,
                    n = inout(reg) lines => _,
                    x = out(xmm_reg) _,
                    options(nostack),
                );
            }
            let done = head + 16 * lines;
            core::ptr::copy_nonoverlapping(s.add(done), d.add(done), bytes - done);
        }
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    // SAFETY: the caller's contract.
    unsafe {
        core::ptr::copy_nonoverlapping(s, d, bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[allow(unused_imports)]
    use crate::test_prelude::*;
    use std::sync::Mutex;

    #[test]
    fn bit_reversed_chunks_visit_each_chunk_once_in_counter_order() {
        for parallel in [false, true] {
            let mut data: Vec<usize> = (0..8 * 3).collect();
            let order = Mutex::new(Vec::new());
            let done = for_each_chunk_bit_reversed(&mut data, 3, parallel, |(t, chunk)| {
                assert_eq!(chunk, [3 * t, 3 * t + 1, 3 * t + 2]);
                chunk.iter_mut().for_each(|x| *x += 100);
                order.lock().unwrap().push(t);
            });
            assert!(done);
            assert!(data.iter().enumerate().all(|(i, &x)| x == i + 100));
            let mut order = order.into_inner().unwrap();
            if !parallel {
                assert_eq!(order, [0, 4, 2, 6, 1, 5, 3, 7]);
            }
            order.sort();
            assert_eq!(order, (0..8).collect::<Vec<_>>());
        }
        // Not a power of two of whole chunks: declined, nothing called.
        for (len, chunk) in [(12, 4), (10, 4), (8, 0), (0, 4)] {
            let mut data = vec![0u8; len];
            assert!(!for_each_chunk_bit_reversed(
                &mut data,
                chunk,
                false,
                |_| { panic!("called") }
            ));
        }
    }

    /// Both bit reversals, in place and from a source, serial and parallel,
    /// equal the definition out[k] = in[BitRev(k)] for rows of 4 to 64
    /// bytes, on both sides of the blocked form's size threshold (4-byte
    /// rows go blocked from 2^10 rows, 32-byte rows from 2^4; 64-byte rows
    /// never do).
    #[test]
    fn bit_reversals_match_the_definition_blocked_or_not() {
        fn check<T: Copy + Send + Sync + PartialEq + core::fmt::Debug>(
            width: usize,
            log_rows: usize,
            make: impl Fn(usize) -> T,
        ) {
            let rows = 1usize << log_rows;
            let input: Vec<T> = (0..rows * width).map(&make).collect();
            let expected: Vec<T> = (0..rows)
                .flat_map(|k| {
                    let j = bit_reverse(k, log_rows);
                    input[j * width..(j + 1) * width].to_vec()
                })
                .collect();
            for parallel in [false, true] {
                let mut data = input.clone();
                bit_reverse_rows(&mut data, width, log_rows, parallel);
                assert!(data == expected, "in place, {width} × 2^{log_rows}");
                let mut out = vec![make(usize::MAX); rows * width];
                bit_reverse_rows_from(&input, &mut out, width, log_rows, parallel);
                assert!(out == expected, "from a source, {width} × 2^{log_rows}");
            }
        }
        if cfg!(miri) {
            // Miri: one blocked shape per function and edge, one not.
            for (width, log_rows) in [(8, 3), (8, 4), (8, 5), (3, 8), (1, 0)] {
                check(width, log_rows, |i| i as u32);
            }
        } else {
            for log_rows in [0, 1, 3, 4, 5, 7, 8, 9, 10, 11, 16] {
                for width in [1, 2, 3, 8, 16] {
                    check(width, log_rows, |i| i as u32);
                }
                check(1, log_rows, |i| i as u64);
            }
        }
        assert_eq!(reorder::blocked_edge::<u32>(1, 10), Some(5));
        assert_eq!(reorder::blocked_edge::<u32>(1, 9), None);
        assert_eq!(reorder::blocked_edge::<u32>(8, 4), Some(2));
        assert_eq!(reorder::blocked_edge::<u32>(16, 20), None);
    }
}

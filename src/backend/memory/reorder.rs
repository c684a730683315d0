//! Whole-buffer row reorders: a lane-major input transposed to rows, and
//! bit reversals of rows (in place, from a source, or as a visiting order).

use super::*;

/// Rows `first_row ..` of a lane-major `source` (column c is
/// `source[c·source_rows .. (c+1)·source_rows]`) written row-major into `dst`
/// (`dst.len() / width` rows of `width`), in blocks of rows so that each
/// column is read in runs of whole cache lines.
pub fn transpose_rows_from<F: Copy>(
    source: &[F],
    source_rows: usize,
    first_row: usize,
    dst: &mut [F],
    width: usize,
) {
    const BLOCK_ROWS: usize = 8;
    let rows = dst.len() / width;
    for (b, block) in dst.chunks_mut(BLOCK_ROWS * width).enumerate() {
        let start = first_row + b * BLOCK_ROWS;
        let block_rows = block.len() / width;
        if block_rows == BLOCK_ROWS {
            // Eight rows at a time: one 8-element run per column, then the
            // rows, with no index that the compiler cannot see in bounds.
            for (lane, column) in source.chunks_exact(source_rows).take(width).enumerate() {
                let run: [F; BLOCK_ROWS] = column[start..start + BLOCK_ROWS]
                    .try_into()
                    .expect("eight rows");
                for (row, v) in block.chunks_exact_mut(width).zip(run) {
                    row[lane] = v;
                }
            }
        } else {
            for (r, row) in block.chunks_exact_mut(width).enumerate() {
                for (x, column) in row.iter_mut().zip(source.chunks_exact(source_rows)) {
                    *x = column[start + r];
                }
            }
        }
    }
    debug_assert_eq!(rows * width, dst.len());
}

/// Permutes the rows of `data` (2^log_rows rows × `width`) into bit-reversed
/// order, in place, on the rayon pool if `parallel`.
pub fn bit_reverse_rows<F: Copy + Send + Sync>(
    data: &mut [F],
    width: usize,
    log_rows: usize,
    parallel: bool,
) {
    // Checked: a wrapped size could match `data.len()` with rows beyond it,
    // which the parallel swaps below reach through raw pointers.
    let rows = 1usize.checked_shl(log_rows as u32).unwrap_or(0);
    assert!(
        rows > 0 && rows.checked_mul(width) == Some(data.len()),
        "data is 2^log_rows rows"
    );
    if let Some(edge) = blocked_edge::<F>(width, log_rows) {
        bit_reverse_rows_blocked(data, width, log_rows, edge, parallel);
        return;
    }
    // Rows BitRev(i) lie far apart, where no hardware prefetcher finds a
    // stream: each visit asks for the partner row a few visits on.
    let ahead = prefetch_distance::<F>(width);
    let prefetch_partner = |base: *const F, i: usize| {
        if i + ahead < rows {
            prefetch_elements(
                base.wrapping_add(bit_reverse(i + ahead, log_rows) * width),
                width,
            );
        }
    };
    if !parallel {
        for i in 0..rows {
            prefetch_partner(data.as_ptr(), i);
            let j = bit_reverse(i, log_rows);
            if i < j {
                let (lo, hi) = data.split_at_mut(j * width);
                lo[i * width..(i + 1) * width].swap_with_slice(&mut hi[..width]);
            }
        }
        return;
    }
    let ptr = SharedPtr(data.as_mut_ptr());
    crate::par::for_each_index(true, rows, 64, |i| {
        let base = ptr.get();
        prefetch_partner(base, i);
        let j = bit_reverse(i, log_rows);
        if i < j {
            // SAFETY: rows i and j = BitRev(i) are in bounds (checked length);
            // bit reversal pairs every row with exactly one partner, and only
            // the smaller index of a pair swaps it, so no row is reached from
            // two iterations, and the two rows of a pair are distinct (i < j).
            unsafe {
                let a = core::slice::from_raw_parts_mut(base.add(i * width), width);
                let b = core::slice::from_raw_parts_mut(base.add(j * width), width);
                a.swap_with_slice(b);
            }
        }
    });
}

/// The edge bits of a blocked bit reversal of 2^log_rows rows of `width`
/// elements: 2^e consecutive rows make at least 128 bytes, so every run
/// read or written is whole lines, and a block's 2^e runs of 2^e rows
/// (4 KiB of 4-byte rows) stay in L1 while they fill. `None` for rows of
/// 64 bytes or more (each row is whole lines already; the row-by-row
/// reversal prefetches its far rows) or too few rows for two edges.
pub(super) fn blocked_edge<F>(width: usize, log_rows: usize) -> Option<usize> {
    let row_bytes = width * core::mem::size_of::<F>();
    if row_bytes == 0 || row_bytes >= 64 {
        return None;
    }
    let edge = (128 / row_bytes).next_power_of_two().trailing_zeros() as usize;
    (log_rows >= 2 * edge).then_some(edge)
}

/// Whether the bit reversals of 2^log_rows rows of `width` elements go
/// block by block (rows under 64 bytes, enough of them): then a separate
/// reversal step beats reading the rows bit-reversed a row at a time.
pub fn reversal_is_blocked<F>(width: usize, log_rows: usize) -> bool {
    blocked_edge::<F>(width, log_rows).is_some()
}

/// Row index hi·2^(m+e) + mid·2^e + lo (e = `edge` bits at each end, m =
/// the middle bits); its bit reversal is rev(lo)·2^(m+e) + rev(mid)·2^e +
/// rev(hi).
#[derive(Clone, Copy)]
struct BlockedIndex {
    edge: usize,
    middle: usize,
}

impl BlockedIndex {
    /// 2^log_rows rows with `edge` bits at each end (log_rows ≥ 2·edge).
    fn new(log_rows: usize, edge: usize) -> Self {
        Self {
            edge,
            middle: log_rows - 2 * edge,
        }
    }

    #[inline(always)]
    fn at(self, hi: usize, mid: usize, lo: usize) -> usize {
        (hi << (self.middle + self.edge)) | (mid << self.edge) | lo
    }
}

/// [`bit_reverse_rows`] block by block (see [`blocked_edge`]): for each
/// middle value mid ≤ rev(mid), row (hi, mid, lo) swaps with (rev lo,
/// rev mid, rev hi). The rows of mid are read in runs of 2^e; their
/// partners fill 2^e runs of block rev(mid) a row at a time (4 KiB of
/// 4-byte rows), where the row-by-row reversal touched a far line per row.
/// (Copying both blocks through contiguous tiles first measured slower:
/// with runs of 256 bytes the natural-order BabyBear column of 2^20 took
/// 2.3–2.5× its bit-reversed DFT that way, 1.9–2.1× this way, 2.9× row by
/// row; runs of 64 to 1024 bytes measured alike.)
fn bit_reverse_rows_blocked<F: Copy + Send + Sync>(
    data: &mut [F],
    width: usize,
    log_rows: usize,
    edge: usize,
    parallel: bool,
) {
    let index = BlockedIndex::new(log_rows, edge);
    let side = 1usize << edge;
    let ptr = SharedPtr(data.as_mut_ptr());
    crate::par::for_each_index(parallel, 1 << index.middle, 16, |mid| {
        let rmid = bit_reverse(mid, index.middle);
        if rmid < mid {
            return;
        }
        let base = ptr.get();
        for hi in 0..side {
            let rhi = bit_reverse(hi, edge);
            for lo in 0..side {
                let (a, b) = (
                    index.at(hi, mid, lo),
                    index.at(bit_reverse(lo, edge), rmid, rhi),
                );
                if mid == rmid && b <= a {
                    // Within one block, each pair once (and a row that
                    // is its own partner stays).
                    continue;
                }
                // SAFETY: a and b are below 2^log_rows (three fields of
                // their widths), so both rows lie inside `data` (checked
                // length 2^log_rows · width), and a ≠ b. The rows touched
                // for `mid` have middle bits mid or rev(mid) only; no
                // other call touches those (the call for rev(mid) > mid
                // returns at once), and within this call each pair of
                // rows is swapped once: no row is reached from two
                // threads.
                unsafe {
                    let ra = core::slice::from_raw_parts_mut(base.add(a * width), width);
                    let rb = core::slice::from_raw_parts_mut(base.add(b * width), width);
                    ra.swap_with_slice(rb);
                }
            }
        }
    });
}

/// Bytes of the stack tile a blocked reversal from a source goes through:
/// at most 2^(2e) rows of under 64 bytes with 2^e·row ≥ 128 bytes
/// ([`blocked_edge`]), 4 KiB for 4-byte rows.
const TILE_BYTES: usize = 4 << 10;

/// A line-aligned stack buffer for [`bit_reverse_rows_from_blocked`]'s
/// tiles: execution allocates nothing once a plan is warm.
#[repr(C, align(64))]
struct TileBuffer([core::mem::MaybeUninit<u8>; TILE_BYTES]);

/// [`bit_reverse_rows_from`] block by block: the source's block mid (2^e
/// runs read whole) is copied into a contiguous tile, then block rev(mid)
/// of `out` is written run by run from it, row (hi, rev mid, lo) taking
/// source row (rev lo, mid, rev hi). (Writing the rows straight to their
/// places left the 2^e runs being filled, 2^(m+e) rows apart, evicting
/// each other from the same cache sets: slower than row by row.)
fn bit_reverse_rows_from_blocked<F: Copy + Send + Sync>(
    source: &[F],
    out: &mut [F],
    width: usize,
    log_rows: usize,
    edge: usize,
    parallel: bool,
) {
    let index = BlockedIndex::new(log_rows, edge);
    let side = 1usize << edge;
    let run_len = side * width;
    let tile_len = side * run_len;
    assert!(
        tile_len * core::mem::size_of::<F>() <= TILE_BYTES
            && core::mem::align_of::<F>() <= core::mem::align_of::<TileBuffer>(),
        "a block fits the stack tile"
    );
    let ptr = SharedPtr(out.as_mut_ptr());
    crate::par::for_each_index(parallel, 1 << index.middle, 16, |mid| {
        let rmid = bit_reverse(mid, index.middle);
        let mut buffer = TileBuffer([core::mem::MaybeUninit::uninit(); TILE_BYTES]);
        let tile = buffer.0.as_mut_ptr().cast::<F>();
        for hi in 0..side {
            let at = index.at(hi, mid, 0) * width;
            let run = &source[at..at + run_len];
            // SAFETY: the tile holds tile_len elements of F (checked size
            // and alignment); run hi goes to elements hi·run_len .. + run_len,
            // inside it, and `run` is another buffer.
            unsafe { core::ptr::copy_nonoverlapping(run.as_ptr(), tile.add(hi * run_len), run_len) }
        }
        // SAFETY: every element of the tile was written just above (side
        // runs of run_len), so it is initialized F values.
        let tile = unsafe { core::slice::from_raw_parts(tile.cast_const(), tile_len) };
        let base = ptr.get();
        for hi in 0..side {
            let rhi = bit_reverse(hi, edge);
            // SAFETY: run (hi, rev(mid), ·) is rows below 2^log_rows, inside
            // `out` (checked length), which does not overlap `source`. The
            // call for `mid` writes only block rev(mid), a bijection, so no
            // two calls (threads) write the same run.
            let run = unsafe {
                core::slice::from_raw_parts_mut(base.add(index.at(hi, rmid, 0) * width), run_len)
            };
            for (lo, row) in run.chunks_exact_mut(width).enumerate() {
                let at = (bit_reverse(lo, edge) * side + rhi) * width;
                row.copy_from_slice(&tile[at..at + width]);
            }
        }
    });
}

/// How many rows ahead a bit reversal asks for its far rows: about 4 KiB
/// of them, 2 to 16 rows.
fn prefetch_distance<F>(width: usize) -> usize {
    (4096 / (width * core::mem::size_of::<F>()).max(1)).clamp(2, 16)
}

/// `out[row k] = source[row BitRev(k)]`, parallel over rows when `parallel`.
pub fn bit_reverse_rows_from<F: Copy + Send + Sync>(
    source: &[F],
    out: &mut [F],
    width: usize,
    log_rows: usize,
    parallel: bool,
) {
    let rows = 1usize << log_rows;
    assert!(
        source.len() >= rows * width && out.len() == rows * width,
        "source and output are 2^log_rows rows"
    );
    if let Some(edge) = blocked_edge::<F>(width, log_rows) {
        bit_reverse_rows_from_blocked(source, out, width, log_rows, edge, parallel);
        return;
    }
    let ahead = prefetch_distance::<F>(width);
    let copy = |(k, row): (usize, &mut [F])| {
        if k + ahead < rows {
            let next = bit_reverse(k + ahead, log_rows) * width;
            prefetch_elements(source.as_ptr().wrapping_add(next), width);
        }
        let j = bit_reverse(k, log_rows);
        row.copy_from_slice(&source[j * width..(j + 1) * width]);
    };
    crate::par::for_each_chunk(parallel, out, width, copy);
}

/// Calls `f((t, chunk t))` for each of the `chunk`-element chunks of `data`
/// (a power of two of them), visiting chunk t = BitRev(k) for k = 0, 1, …
/// (rayon splits the k range when `parallel`).
///
/// A deep pass that reads its rows bit-reversed from a source visits its
/// blocks this way: block t reads the source rows ≡ BitRev(t) modulo the
/// block count, so consecutive visits read adjacent rows and share their
/// pages (and TLB entries) and prefetched lines, where block order would jump
/// a page per row. Returns `false`, calling nothing, when the chunks do not
/// tile `data` as a power of two of them.
pub fn for_each_chunk_bit_reversed<F: Send>(
    data: &mut [F],
    chunk: usize,
    parallel: bool,
    f: impl Fn((usize, &mut [F])) + Sync + Send,
) -> bool {
    let count = data.len().checked_div(chunk).unwrap_or(0);
    if !count.is_power_of_two() || count * chunk != data.len() {
        return false;
    }
    let log = count.trailing_zeros() as usize;
    let ptr = SharedPtr(data.as_mut_ptr());
    let visit = |k: usize| {
        let t = bit_reverse(k, log);
        // SAFETY: t < count, so chunk t lies inside `data` (count · chunk =
        // len), which is borrowed mutably for this call; bit reversal is a
        // bijection on 0..count, so each chunk is made exactly once and no
        // two calls (or threads) reach the same element.
        let chunk = unsafe { core::slice::from_raw_parts_mut(ptr.get().add(t * chunk), chunk) };
        f((t, chunk));
    };
    // Runs of up to 16 consecutive k per split keep each thread's visits
    // adjacent, while still leaving two runs per thread to balance.
    let run = (count / (2 * crate::par::current_num_threads())).clamp(1, 16);
    crate::par::for_each_index(parallel, count, run, visit);
    true
}

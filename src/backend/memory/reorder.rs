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

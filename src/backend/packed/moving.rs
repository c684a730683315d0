//! The packed kernel's row-moving form: a group whose loads and stores go
//! where a [`RowMoves`] says (rows gathered from a source, written to
//! scratch or to a bit-reversed place), block by block.

use super::*;

/// [`run_body`], row by row, with the rows' loads and stores going where
/// `moves` says.
#[inline(always)]
pub(crate) fn run_moving_body<P: Packed, const R: usize, const KIND: u8>(
    buf: &mut [P::F],
    group: &GroupKernel<'_, P::F>,
    moves: &mut RowMoves<'_, P::F>,
) {
    let width = group.width;
    let block_rows = 1usize << group.log_rows;
    let block_len = width << group.log_rows;
    let rows_per_run = block_rows / R;
    assert!(rows_per_run > 0 && width.is_multiple_of(P::LANES) && buf.len() % block_len == 0);
    let scale = group
        .scale
        .map(|s| P::broadcast(<P::F as Field>::prepare_twiddle(s)));
    let shifts = shift_twiddles::<P, KIND>(group.twiddles);
    // A pruned transform's fold riding on the loads: a kernel of its own,
    // so that groups without one keep their registers for butterflies.
    let fold = moves.from.as_ref().is_some_and(|f| f.fold().terms > 0);
    for (b, (block, twiddles)) in buf
        .chunks_exact_mut(block_len)
        .zip(group.twiddles.chunks_exact(R - 1).cycle())
        .enumerate()
    {
        let (w, first_trivial) = block_twiddles::<P, R>(twiddles);
        let rows = BlockRows {
            first: b * block_rows,
            per_run: rows_per_run,
            width,
        };
        if fold {
            // General products (right for any twiddle, ±2^k included).
            if first_trivial {
                run_block_moving::<P, R, KIND, true, true>(block, rows, &w, scale, moves);
            } else {
                run_block_moving::<P, R, KIND, false, true>(block, rows, &w, scale, moves);
            }
        } else if shifts {
            let w = Pow2Twiddles::<P, R>::new(w, twiddles);
            if first_trivial {
                run_block_moving::<P, R, KIND, true, false>(block, rows, &w, scale, moves);
            } else {
                run_block_moving::<P, R, KIND, false, false>(block, rows, &w, scale, moves);
            }
        } else if first_trivial {
            run_block_moving::<P, R, KIND, true, false>(block, rows, &w, scale, moves);
        } else {
            run_block_moving::<P, R, KIND, false, false>(block, rows, &w, scale, moves);
        }
    }
}

/// Where a block's rows are: `first` is its first row's index in the group's
/// buffer, run j of a butterfly set is rows `j·per_run ..` of the block.
#[derive(Clone, Copy)]
struct BlockRows {
    first: usize,
    per_run: usize,
    width: usize,
}

/// The `n` elements at column `c` of a row from `RowsFrom::row_ptrs`.
///
/// # Safety
/// `row` points at a row valid for reads of at least `c + n` elements,
/// which nothing writes while the returned slice lives.
#[inline(always)]
unsafe fn row_at<'r, T>(row: *const T, c: usize, n: usize) -> &'r [T] {
    // SAFETY: the caller's contract.
    unsafe { core::slice::from_raw_parts(row.add(c), n) }
}

/// As [`row_at`], to write (a row from `RowsTo::row_ptrs`).
///
/// # Safety
/// `row` points at a row valid for writes of at least `c + n` elements,
/// which nothing else reads or writes while the returned slice lives.
#[inline(always)]
unsafe fn row_at_mut<'r, T>(row: *mut T, c: usize, n: usize) -> &'r mut [T] {
    // SAFETY: the caller's contract.
    unsafe { core::slice::from_raw_parts_mut(row.add(c), n) }
}

/// [`run_block`] row by row: the register at column c of row r of run j
/// comes from `moves.from` (or the block) and goes to `moves.to` (or the
/// block). A butterfly set's rows are looked up once per row, not per
/// register; each access then makes its own short-lived slice, as the
/// source and destination rows are the same in an in-place one-group pass.
#[allow(
    clippy::needless_range_loop,
    reason = "plain index loops: iterator adapters here left calls in the kernel"
)]
#[inline(always)]
fn run_block_moving<
    P: Packed,
    const R: usize,
    const KIND: u8,
    const FIRST_TRIVIAL: bool,
    const FOLD: bool,
>(
    block: &mut [P::F],
    rows: BlockRows,
    w: &impl LayerTwiddles<P>,
    scale: Option<P::Twiddle>,
    moves: &mut RowMoves<'_, P::F>,
) {
    let width = rows.width;
    assert!(
        width.is_multiple_of(P::LANES)
            && moves.from.as_ref().is_none_or(|f| f.width() == width)
            && moves.to.as_ref().is_none_or(|t| t.width() == width),
        "moved rows are the group's rows, whole registers"
    );
    let streaming = moves.to.as_ref().is_some_and(|to| to.streaming);
    // A pruned transform's fold riding on the loads: its coefficients
    // broadcast once per block, and where each term lies.
    let unit = moves.from.as_ref().map_or(0, |f| f.fold().unit);
    let fold = FOLD.then(|| FoldTerms::<P>::new(moves.fold, unit));
    // Rows read bit-reversed: the next butterfly set's rows are asked for
    // while this one runs (the next block's first set after the last).
    let prefetch = moves.from.as_ref().filter(|f| f.is_reversed());
    for r in 0..rows.per_run {
        let first = rows.first + r;
        if let Some(f) = prefetch {
            let next = if r + 1 < rows.per_run {
                first + 1
            } else {
                rows.first + R * rows.per_run
            };
            f.prefetch_rows::<R>(next, rows.per_run);
        }
        let from = moves
            .from
            .as_ref()
            .map(|f| f.row_ptrs::<R>(first, rows.per_run));
        let to = moves
            .to
            .as_mut()
            .map(|t| t.row_ptrs::<R>(first, rows.per_run));

        // The frame of the stores (see `Packed::ALIGN`): every destination
        // row of the set must share it, else none is re-framed. The aligned
        // registers go first, in address order (the prefetchers' stream),
        // then the pair of each row's head and tail.
        let h = match to {
            Some(to) => {
                let h = frame::<P>(to[0], width);
                let same = to.iter().all(|&t| frame::<P>(t, width) == h);
                if same {
                    h
                } else {
                    0
                }
            }
            None => frame::<P>(block[r * width..].as_ptr(), width),
        };
        // Streaming stores only where they write every line of the rows
        // whole (rows aligned for them, or an ISA that never re-frames):
        // beside plain stores to the head and tail lines of re-framed rows
        // they measured slower than plain stores alone (1.17 × in the
        // gathered pass of the 56-lane GF(2^64) encode of 2^20 rows).
        let whole_lines = P::ALIGN == 0
            || (h == 0
                && to.is_some_and(|to| to.iter().all(|&t| (t as usize).is_multiple_of(P::ALIGN))));
        let set = MovingSet {
            from,
            fold: fold.as_ref(),
            to,
            r,
            per_run: rows.per_run,
            width,
            streaming: streaming && whole_lines,
        };
        let (first, end) = if h > 0 {
            (h, width - (P::LANES - h))
        } else {
            (0, width)
        };
        for c in (first..end).step_by(P::LANES) {
            moving_register::<P, R, KIND, FIRST_TRIVIAL, FOLD, false>(block, &set, c, 0, w, scale);
        }
        if h > 0 {
            moving_register::<P, R, KIND, FIRST_TRIVIAL, FOLD, true>(block, &set, 0, h, w, scale);
        }
    }
}

/// Row r of every run of one butterfly set of a moving group: where its
/// registers come from (`from`, else the block's rows) and go (`to`, else
/// the block's rows).
struct MovingSet<'f, P: Packed, const R: usize> {
    from: Option<[*const P::F; R]>,
    /// The fold riding on `from`'s loads (where the kernel folds).
    fold: Option<&'f FoldTerms<'f, P>>,
    to: Option<[*mut P::F; R]>,
    r: usize,
    per_run: usize,
    width: usize,
    streaming: bool,
}

/// One register of every row of `set`: the one at column `c`, or (`PAIR`)
/// the pair of each row's first `h` elements and its last `LANES − h`
/// ([`Packed::load_pair`]).
#[allow(
    clippy::needless_range_loop,
    reason = "plain index loops: iterator adapters here left calls in the kernel"
)]
#[inline(always)]
fn moving_register<
    P: Packed,
    const R: usize,
    const KIND: u8,
    const FIRST_TRIVIAL: bool,
    const FOLD: bool,
    const PAIR: bool,
>(
    block: &mut [P::F],
    set: &MovingSet<'_, P, R>,
    c: usize,
    h: usize,
    w: &impl LayerTwiddles<P>,
    scale: Option<P::Twiddle>,
) {
    let mut x = [moving_load::<P, R, FOLD, PAIR>(block, set, 0, c, h); R];
    for j in 1..R {
        x[j] = moving_load::<P, R, FOLD, PAIR>(block, set, j, c, h);
    }
    butterflies::<P, R, KIND, FIRST_TRIVIAL>(&mut x, w, scale);
    for j in 0..R {
        moving_store::<P, R, PAIR>(x[j], block, set, j, c, h);
    }
}

// SAFETY (every `row_at` and `row_at_mut` in `moving_load` and
// `moving_store`): the pointers are rows of `width` elements (checked by
// `run_block_moving` and by `row_ptrs`), valid for reads (`from`: the
// source, or the tile's own rows) or writes (`to`: the tile's rows, which it
// owns alone); a full register reads c .. c + LANES ≤ width (width is whole
// registers and c a register start of the frame), a pair 0 .. h and
// width − (LANES − h) .. width; each slice ends with its one load or store,
// so no reference to a row outlives an access to it through another.

/// The register of run j of [`moving_register`]. Plain functions, not
/// closures: they must inline into the target-feature loops.
#[inline(always)]
fn moving_load<P: Packed, const R: usize, const FOLD: bool, const PAIR: bool>(
    block: &[P::F],
    set: &MovingSet<'_, P, R>,
    j: usize,
    c: usize,
    h: usize,
) -> P {
    let (width, l) = (set.width, P::LANES);
    let tail = width - (l - h);
    let row = (j * set.per_run + set.r) * width;
    match set.from {
        Some(from) => {
            // SAFETY: see above.
            let mut x = unsafe { load_from::<P, PAIR>(from[j], c, h, tail) };
            if let (true, Some(fold)) = (FOLD, set.fold) {
                for t in 0..fold.terms() {
                    let term = from[j].wrapping_add((t + 1) * fold.unit);
                    // SAFETY: as above, with `RowsFrom::folded`'s check that
                    // every term (t · unit elements on, t ≤ terms) of every
                    // row lies inside the source.
                    let y = unsafe { load_from::<P, PAIR>(term, c, h, tail) };
                    x = x.add(y.mul(fold.coefficient(t)));
                }
            }
            x
        }
        None if PAIR => P::load_pair(&block[row..], &block[row + tail..], h),
        None => P::load(&block[row + c..], l),
    }
}

/// The register at column `c` of the source row at `row` (`PAIR`: the pair
/// of its first `h` elements and those from `tail` on).
///
/// # Safety
/// `row` points at a row of at least `tail + LANES − h` elements (`PAIR`)
/// or `c + LANES` elements, valid for reads, which nothing writes while this
/// runs.
#[inline(always)]
unsafe fn load_from<P: Packed, const PAIR: bool>(
    row: *const P::F,
    c: usize,
    h: usize,
    tail: usize,
) -> P {
    let l = P::LANES;
    if PAIR {
        // SAFETY: the caller's contract.
        unsafe { P::load_pair(row_at(row, 0, h), row_at(row, tail, l - h), h) }
    } else {
        // SAFETY: the caller's contract.
        P::load(unsafe { row_at(row, c, l) }, l)
    }
}

/// The most fold terms whose coefficients are held broadcast (a pruned
/// transform keeping 2^-3 of its rows has 7); further terms broadcast their
/// coefficient at each use.
const HELD_TERMS: usize = 7;

/// A pruned transform's fold coefficients, the first [`HELD_TERMS`] as
/// registers, and the elements between its terms.
struct FoldTerms<'c, P: Packed> {
    held: [P::Twiddle; HELD_TERMS],
    coefficients: &'c [<P::F as Field>::Twiddle],
    unit: usize,
}

impl<'c, P: Packed> FoldTerms<'c, P> {
    #[inline(always)]
    fn new(coefficients: &'c [<P::F as Field>::Twiddle], unit: usize) -> Self {
        let one = <P::F as Field>::prepare_twiddle(<P::F as num_traits::One>::one());
        let mut held = [P::broadcast(one); HELD_TERMS];
        for (h, &c) in held.iter_mut().zip(coefficients) {
            *h = P::broadcast(c);
        }
        Self {
            held,
            coefficients,
            unit,
        }
    }

    #[inline(always)]
    fn terms(&self) -> usize {
        self.coefficients.len()
    }

    /// Coefficient `t`, broadcast.
    #[inline(always)]
    fn coefficient(&self, t: usize) -> P::Twiddle {
        match self.held.get(t) {
            Some(&w) => w,
            None => P::broadcast(self.coefficients[t]),
        }
    }
}

/// Stores register `x` of run j of [`moving_register`].
#[inline(always)]
fn moving_store<P: Packed, const R: usize, const PAIR: bool>(
    x: P,
    block: &mut [P::F],
    set: &MovingSet<'_, P, R>,
    j: usize,
    c: usize,
    h: usize,
) {
    let (width, l) = (set.width, P::LANES);
    let tail = width - (l - h);
    let row = (j * set.per_run + set.r) * width;
    match set.to {
        // SAFETY: see above.
        Some(to) if PAIR => unsafe {
            x.store_pair(row_at_mut(to[j], 0, h), row_at_mut(to[j], tail, l - h), h)
        },
        // SAFETY: see above.
        Some(to) if set.streaming => x.store_streaming(unsafe { row_at_mut(to[j], c, l) }),
        // SAFETY: see above.
        Some(to) => x.store(unsafe { row_at_mut(to[j], c, l) }, l),
        None if PAIR => {
            let (head, rest) = block[row..].split_at_mut(tail);
            x.store_pair(head, rest, h)
        }
        None => x.store(&mut block[row + c..], l),
    }
}

//! The driver: walks a plan's steps, splits passes into tiles over rayon and
//! calls the backend's kernels on them.
//!
//! ```text
//!   execute_from(input, output)            execute(data)   (in place)
//!     first pass reads input tiles           first pass reads data tiles
//!     (an encode reads the message for      (an encode's message sits at the
//!      every replica block)                  front of each item: replica
//!                                            blocks first, the message last)
//! ```

use super::{Pass, PassKind, Plan, Step};
use crate::backend::{
    bit_reverse_rows, bit_reverse_rows_from, for_each_chunk_bit_reversed, store_fence,
    transpose_rows_from, GroupKernel, Kernels, RowMoves, RowsFrom, RowsTo, StridedTiles,
};
use crate::error::Error;
use crate::transform::bit_reverse;
use core::ops::Range;
use rayon::prelude::*;
use std::sync::Mutex;

/// Where tiles get scratch from.
enum Scratch<'s, F: Kernels> {
    Pool,
    Caller(Mutex<&'s mut [F]>),
}

/// How a pass's tiles read a separate source: its rows in order, or row k
/// from source row BitRev(k) (a fused bit reversal).
#[derive(Clone, Copy)]
enum SourceRows<'a, F> {
    Plain(&'a [F]),
    BitReversed(&'a [F]),
}

/// Where the first pass reads from.
#[derive(Clone, Copy)]
enum Source<'a, F> {
    /// The data itself (in place).
    InPlace,
    /// A separate buffer: per item, `rows` rows (the message of an encode or
    /// the whole input of an out-of-place run).
    Buffer(&'a [F]),
}

impl<F: Kernels> Plan<F> {
    /// Runs the transform in place on `data` (rows × lanes × batch elements,
    /// row-major, items one after another). For an encode, each item's message
    /// occupies its first 2^(log_n − rate) rows and is overwritten by the codeword.
    pub fn execute(&self, data: &mut [F]) -> Result<(), Error> {
        if let (true, Some(ring)) = (self.ring_direct, &self.ring) {
            return self.execute_ring(ring, data);
        }
        self.check_in_place()?;
        self.check_len("data", data.len(), self.len())?;
        self.run(data, Source::InPlace, &Scratch::Pool);
        Ok(())
    }

    /// Runs the transform from `input` into `output` (input: the plan's
    /// [`input_len`](Plan::input_len); output: [`len`](Plan::len)). The first
    /// pass reads `input` directly, so this costs no extra sweep.
    pub fn execute_from(&self, input: &[F], output: &mut [F]) -> Result<(), Error> {
        self.check_len("input", input.len(), self.input_len())?;
        self.check_len("output", output.len(), self.len())?;
        if let (true, Some(ring)) = (self.ring_direct, &self.ring) {
            output.copy_from_slice(input);
            return self.execute_ring(ring, output);
        }
        self.run(output, Source::Buffer(input), &Scratch::Pool);
        Ok(())
    }

    /// Runs in place on the calling thread with caller-owned scratch of at
    /// least [`scratch_len`](Plan::scratch_len) elements (rustfft style).
    pub fn execute_with_scratch(&self, data: &mut [F], scratch: &mut [F]) -> Result<(), Error> {
        if let (true, Some(ring)) = (self.ring_direct, &self.ring) {
            return self.execute_ring(ring, data);
        }
        self.check_in_place()?;
        self.check_len("data", data.len(), self.len())?;
        if scratch.len() < self.scratch_len() {
            return Err(Error::LengthMismatch {
                what: "scratch",
                expected: self.scratch_len(),
                got: scratch.len(),
            });
        }
        let scratch = Scratch::Caller(Mutex::new(scratch));
        self.run_steps(data, Source::InPlace, &scratch, false);
        Ok(())
    }

    /// Whether the input is lane-major with more than one lane (one lane is
    /// the same either way).
    fn lane_major(&self) -> bool {
        self.spec.input_is_lane_major() && self.lanes > 1
    }

    fn check_in_place(&self) -> Result<(), Error> {
        if self.spec.pruned_bits() > 0 {
            return Err(Error::Unsupported {
                what: "in-place execution of a pruned transform (its output is shorter than its input; use execute_from)",
            });
        }
        if self.lane_major() {
            return Err(Error::Unsupported {
                what: "in-place execution of a lane-major input (use execute_from)",
            });
        }
        Ok(())
    }

    pub(super) fn check_len(
        &self,
        what: &'static str,
        got: usize,
        expected: usize,
    ) -> Result<(), Error> {
        if got == expected {
            Ok(())
        } else {
            Err(Error::LengthMismatch {
                what,
                expected,
                got,
            })
        }
    }

    /// Copies `src` into `dst` (equal lengths) on this plan's threads, in
    /// chunks of 256 KiB.
    pub(crate) fn copy_on_threads(&self, src: &[F], dst: &mut [F]) {
        assert_eq!(src.len(), dst.len());
        let chunk = ((256 << 10) / core::mem::size_of::<F>().max(1)).max(1);
        let parallel = |dst: &mut [F]| {
            dst.par_chunks_mut(chunk)
                .zip(src.par_chunks(chunk))
                .for_each(|(d, s)| d.copy_from_slice(s))
        };
        match (&self.pool, self.threads) {
            (_, super::Threads::Count(1)) => dst.copy_from_slice(src),
            (Some(pool), _) => pool.install(|| parallel(dst)),
            (None, _) => parallel(dst),
        }
    }

    fn run(&self, data: &mut [F], source: Source<'_, F>, scratch: &Scratch<'_, F>) {
        self.on_threads(|threads| self.run_steps(data, source, scratch, threads));
    }

    /// Runs `f(threads)` on this plan's threads: `threads` says whether
    /// passes may spread their tiles over the (installed) rayon pool.
    fn on_threads(&self, f: impl FnOnce(bool) + Send) {
        match (&self.pool, self.threads) {
            (_, super::Threads::Count(1)) => f(false),
            (Some(pool), _) => pool.install(|| f(true)),
            (None, _) => f(true),
        }
    }

    fn run_steps(
        &self,
        data: &mut [F],
        source: Source<'_, F>,
        scratch: &Scratch<'_, F>,
        threads: bool,
    ) {
        self.run_step_range(data, source, scratch, threads, 0..self.steps.len());
    }

    /// Runs `steps` of the plan (a proper subrange only for a fused LDE,
    /// which runs the last pass of its inverse DFT and the first of its
    /// encode itself).
    fn run_step_range(
        &self,
        data: &mut [F],
        source: Source<'_, F>,
        scratch: &Scratch<'_, F>,
        threads: bool,
        steps: Range<usize>,
    ) {
        let mut source = source;
        if let Source::Buffer(input) = source {
            if !self.fold.is_empty() {
                self.fold_into(input, data, threads);
                source = Source::InPlace;
            } else if self.lane_major() {
                self.transpose_into(input, data, threads);
                source = Source::InPlace;
            }
        }
        if self.steps.is_empty() {
            // No layer to run (a 1-row transform): the output is the input
            // (its first row, for a pruned transform).
            if let Source::Buffer(input) = source {
                let source_item = self.source_rows * self.lanes;
                for (item, src) in data
                    .chunks_exact_mut(self.item_len())
                    .zip(input.chunks_exact(source_item))
                {
                    item.copy_from_slice(&src[..item.len()]);
                }
            }
        }
        // A bit reversal read from a separate source and followed by a deep
        // pass (an inverse DFT from natural order, out of place) is fused:
        // the pass's tiles read their rows bit-reversed straight from the
        // source, one sweep fewer.
        let fused_reversal = matches!(source, Source::Buffer(_)) && self.fuses_reversal();
        for (index, step) in self
            .steps
            .iter()
            .enumerate()
            .take(steps.end)
            .skip(steps.start)
        {
            match step {
                Step::BitReverse if fused_reversal && index == 0 => continue,
                Step::BitReverse => self.bit_reverse(data, source, threads),
                Step::Pass(pass) => {
                    let reversed = fused_reversal && index == 1;
                    self.run_pass(index, pass, data, source, reversed, scratch, threads)
                }
            }
            source = Source::InPlace;
        }
        let no_layers = self.steps.iter().all(|s| matches!(s, Step::BitReverse));
        if let Some(scale) = self.scale.filter(|_| no_layers) {
            data.iter_mut().for_each(|x| *x *= scale);
        }
    }

    /// A pruned transform's fold: kept row r of each item receives
    /// Σ_j c_j · (input row r + j·rows), one sweep over the input.
    fn fold_into(&self, input: &[F], data: &mut [F], threads: bool) {
        let (lanes, rows) = (self.lanes, 1usize << self.log_n);
        let source_item = self.source_rows * lanes;
        let lane_major = self.lane_major();
        let fold_rows = |(r0, out): (usize, &mut [F]), src: &[F]| {
            for (i, x) in out.iter_mut().enumerate() {
                let (r, lane) = (r0 + i / lanes, i % lanes);
                let at = |j: usize| {
                    if lane_major {
                        src[lane * self.source_rows + j * rows + r]
                    } else {
                        src[(j * rows + r) * lanes + lane]
                    }
                };
                *x = self
                    .fold
                    .iter()
                    .enumerate()
                    .skip(1)
                    .fold(at(0), |acc, (j, &c)| acc + c * at(j));
            }
        };
        const CHUNK_ROWS: usize = 256;
        for (item, src) in data
            .chunks_exact_mut(self.item_len())
            .zip(input.chunks_exact(source_item))
        {
            let chunk_len = CHUNK_ROWS * lanes;
            if threads && self.cost.data_bytes >= 1 << 16 {
                item.par_chunks_mut(chunk_len)
                    .enumerate()
                    .for_each(|(c, out)| fold_rows((c * CHUNK_ROWS, out), src));
            } else {
                item.chunks_mut(chunk_len)
                    .enumerate()
                    .for_each(|(c, out)| fold_rows((c * CHUNK_ROWS, out), src));
            }
        }
    }

    /// The transpose step of a lane-major input: each item's input rows (the
    /// message of an encode, the kept rows of a pruned transform) go
    /// row-major to the front of its output item, in cache-tiled blocks of
    /// rows (every column read in whole cache lines), parallel over blocks.
    /// The passes then run in place.
    fn transpose_into(&self, input: &[F], data: &mut [F], threads: bool) {
        let lanes = self.lanes;
        let rows = self.source_rows.min(1 << self.log_n);
        const BLOCK_ROWS: usize = 512;
        for (item, src) in data
            .chunks_exact_mut(self.item_len())
            .zip(input.chunks_exact(self.source_rows * lanes))
        {
            let head = &mut item[..rows * lanes];
            let block = |(b, dst): (usize, &mut [F])| {
                transpose_rows_from(src, self.source_rows, b * BLOCK_ROWS, dst, lanes)
            };
            if threads && self.cost.data_bytes >= 1 << 16 {
                head.par_chunks_mut(BLOCK_ROWS * lanes)
                    .enumerate()
                    .for_each(block);
            } else {
                head.chunks_mut(BLOCK_ROWS * lanes)
                    .enumerate()
                    .for_each(block);
            }
        }
    }

    /// Whether an out-of-place run skips the first step, a bit reversal,
    /// because the deep pass after it reads its rows bit-reversed from the
    /// source.
    pub(crate) fn fuses_reversal(&self) -> bool {
        self.source_rows == 1 << self.log_n
            && matches!(
                self.steps.as_slice(),
                [
                    Step::BitReverse,
                    Step::Pass(Pass {
                        kind: PassKind::Deep,
                        ..
                    }),
                    ..
                ]
            )
    }

    fn item_len(&self) -> usize {
        self.lanes << self.log_n
    }

    fn bit_reverse(&self, data: &mut [F], source: Source<'_, F>, threads: bool) {
        let (lanes, log_n) = (self.lanes, self.log_n);
        let parallel = threads && self.cost.data_bytes >= 1 << 16;
        let items = data.chunks_exact_mut(self.item_len());
        match source {
            Source::InPlace => {
                items.for_each(|item| bit_reverse_rows(item, lanes, log_n, parallel))
            }
            Source::Buffer(input) => items
                .zip(input.chunks_exact(self.source_rows * lanes))
                .for_each(|(item, src)| {
                    let len = item.len();
                    bit_reverse_rows_from(&src[..len], item, lanes, log_n, parallel)
                }),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn run_pass(
        &self,
        step: usize,
        pass: &Pass,
        data: &mut [F],
        source: Source<'_, F>,
        reversed: bool,
        scratch: &Scratch<'_, F>,
        threads: bool,
    ) {
        let parallel = threads && pass.parallel;
        let source_item = self.source_rows * self.lanes;
        let replicas = self.item_len() / source_item;
        match source {
            Source::Buffer(input) => {
                for (item, src) in data
                    .chunks_exact_mut(self.item_len())
                    .zip(input.chunks_exact(source_item))
                {
                    let src = if reversed {
                        SourceRows::BitReversed(src)
                    } else {
                        SourceRows::Plain(src)
                    };
                    self.run_tiles(step, pass, item, Some(src), 0, scratch, parallel);
                }
            }
            Source::InPlace if pass.reads_source && replicas > 1 => {
                // Encode in place: the message is the front of each item.
                // Replica blocks read it first; the block holding it runs last.
                for item in data.chunks_exact_mut(self.item_len()) {
                    let head_len = source_item.max(match pass.kind {
                        PassKind::Deep => (pass.blocks_per_tile
                            * (self.lanes << pass.log_block_rows))
                            .min(item.len()),
                        PassKind::Gathered => 0,
                    });
                    let (head, tail) = item.split_at_mut(head_len);
                    let first_block = head_len / (self.lanes << pass.log_block_rows);
                    self.run_tiles(
                        step,
                        pass,
                        tail,
                        Some(SourceRows::Plain(&head[..source_item])),
                        first_block,
                        scratch,
                        parallel,
                    );
                    if head_len > source_item {
                        // One deep tile holds the message and replicas of it.
                        let (msg, rest) = head.split_at_mut(source_item);
                        rest.chunks_exact_mut(source_item)
                            .for_each(|r| r.copy_from_slice(msg));
                    }
                    self.run_tiles(step, pass, head, None, 0, scratch, parallel);
                }
            }
            Source::InPlace => self.run_tiles(step, pass, data, None, 0, scratch, parallel),
        }
    }

    /// Runs `pass` on `data` (whole blocks; its first block is block
    /// `first_block` of an item), reading tiles from `source` (one item's
    /// input, replicated over blocks) when given.
    #[allow(clippy::too_many_arguments)]
    fn run_tiles(
        &self,
        step: usize,
        pass: &Pass,
        data: &mut [F],
        source: Option<SourceRows<'_, F>>,
        first_block: usize,
        scratch: &Scratch<'_, F>,
        parallel: bool,
    ) {
        if data.is_empty() {
            return;
        }
        let lanes = self.lanes;
        let block_len = lanes << pass.log_block_rows;
        // The rows of the source one item reads: the message an encode
        // replicates, the whole input, or the kept rows of a pruned input.
        let unit = self.source_rows.min(1 << self.log_n) * lanes;
        let blocks_per_item = 1usize << (self.log_n - pass.log_block_rows);
        match pass.kind {
            PassKind::Deep => {
                let tile_len = pass.blocks_per_tile * block_len;
                let run = |(t, tile): (usize, &mut [F])| {
                    let block = (first_block + t * pass.blocks_per_tile) % blocks_per_item;
                    match source {
                        Some(SourceRows::Plain(src)) => {
                            for (b, dst) in tile.chunks_exact_mut(unit.min(tile_len)).enumerate() {
                                let start = ((block * block_len + b * dst.len()) % unit)
                                    .min(unit - dst.len());
                                dst.copy_from_slice(&src[start..start + dst.len()]);
                            }
                        }
                        Some(SourceRows::BitReversed(src)) => {
                            let first_row = block << pass.log_block_rows;
                            for (i, row) in tile.chunks_exact_mut(lanes).enumerate() {
                                let j = bit_reverse(first_row + i, self.log_n);
                                row.copy_from_slice(&src[j * lanes..(j + 1) * lanes]);
                            }
                        }
                        None => {}
                    }
                    self.run_groups(step, pass, tile, lanes, block, 0, (None, None));
                };
                let reversed = matches!(source, Some(SourceRows::BitReversed(_)));
                if reversed && for_each_chunk_bit_reversed(data, tile_len, parallel, run) {
                    // Visited so that consecutive tiles read adjacent rows.
                } else if parallel {
                    data.par_chunks_mut(tile_len).enumerate().for_each(run);
                } else {
                    data.chunks_mut(tile_len).enumerate().for_each(run);
                }
            }
            PassKind::Gathered => {
                let group_rows = 1usize << pass.layers.len();
                // Scratch rows take the data rows' alignment (`with_like`).
                let like = data.as_ptr() as usize;
                let tiles = StridedTiles::new(
                    data,
                    lanes,
                    1 << pass.log_block_rows,
                    group_rows,
                    pass.chunk_rows,
                );
                let scratch_len = tiles.scratch_len();
                tiles.for_each_tile(parallel, |mut tile| {
                    let block = (first_block + tile.block()) % blocks_per_item;
                    let mut work = |buf: &mut [F]| {
                        let buf = &mut buf[..scratch_len];
                        let width = lanes * pass.chunk_rows;
                        let row_shift = pass.log_block_rows - pass.layers.len();
                        let from = match source {
                            Some(SourceRows::Plain(src)) => {
                                tile.rows_of(&src[(block * block_len) % unit..])
                            }
                            Some(SourceRows::BitReversed(_)) => {
                                unreachable!("only deep passes read a bit-reversed source")
                            }
                            None => tile.rows_from(),
                        };
                        // The gather rides on the first group's loads, the
                        // scatter on the last group's stores (streaming
                        // ones where the pass streams).
                        let streams = source.is_some() && pass.streams;
                        let to = if streams {
                            tile.rows_to_streaming()
                        } else {
                            tile.rows_to()
                        };
                        let moves = (Some(from), Some(to));
                        self.run_groups(step, pass, buf, width, block, row_shift, moves);
                        if streams {
                            store_fence();
                        }
                    };
                    match scratch {
                        Scratch::Pool => self.scratch.with_like(like, work),
                        Scratch::Caller(s) => {
                            work(&mut s.lock().unwrap_or_else(|e| e.into_inner()))
                        }
                    }
                });
            }
        }
    }

    /// Runs the pass's groups on `buf`: consecutive blocks of the pass's first
    /// layer starting at `block`, rows of `width` elements, each block
    /// 2^(log_block_rows − row_shift) rows of `buf`.
    /// `moves`: the tile's rows, which the first group reads and the last
    /// group writes in place of `buf`'s where given (a gathered pass's fused
    /// gather and scatter).
    #[allow(clippy::too_many_arguments)]
    fn run_groups(
        &self,
        step: usize,
        pass: &Pass,
        buf: &mut [F],
        width: usize,
        block: usize,
        row_shift: usize,
        moves: (Option<RowsFrom<'_, F>>, Option<RowsTo<'_, F>>),
    ) {
        let (mut from, mut to) = moves;
        let last = pass.groups.len() - 1;
        let x = pass.layers.start;
        let block_rows_log = pass.log_block_rows - row_shift;
        let block_len = width << block_rows_log;
        // A tile is either inside one item or whole items; kernels cycle
        // through the twiddles of at most one item's blocks.
        let blocks_per_item = 1usize << (self.log_n - pass.log_block_rows);
        let blocks = (buf.len() / block_len).min(blocks_per_item);
        for (index, (group, table)) in pass.groups.iter().zip(&self.twiddles[step]).enumerate() {
            let p = group.layers.start;
            let g = group.layers.len();
            let per_block = table.per_superblock << (p - x);
            let first = block * per_block;
            let kernel = GroupKernel {
                log_radix: g,
                log_rows: block_rows_log - (p - x),
                width,
                kind: group.kind,
                twiddles: &table.data[first..first + blocks * per_block],
                scale: if group.scales { self.scale } else { None },
                input_bound: group.bounds.map_or(1, |b| b.input),
                canonical_output: group.canonical_output,
                whole_block: group.whole_block,
            };
            let mut moves = RowMoves {
                from: from.take(),
                to: if index == last { to.take() } else { None },
            };
            if let (Some(ring), true) = (&self.ring, group.whole_block) {
                // Whole polynomials: the plan's ring kernel, on the tile's
                // blocks (one item's polynomial each).
                crate::backend::moves_around(buf, &mut moves, |buf| ring.run(F::ring_words(buf)));
            } else if moves.from.is_none() && moves.to.is_none() {
                self.kernels.run(buf, &kernel);
            } else {
                self.kernels.run_group_moving(buf, &kernel, &mut moves);
            }
        }
    }
}

/// The fused coset LDE: an inverse DFT whose last pass is gathered, and an
/// encode whose first pass is gathered over the same row sets of every
/// replica block, run as one pass (see [`Plan::fuses_into_encode`]).
impl<F: Kernels> Plan<F> {
    /// Whether `self` (an inverse DFT of n rows) and `encode` (its coset
    /// encode to 2^r·n rows in place, batch 1) can run with the inverse's last
    /// pass and the encode's first as one pass: both gathered, tiling a block
    /// of n rows the same way (same row groups, same runs), the encode's
    /// pass reading the message for every replica block. Each tile then
    /// reads its rows of the inverse's previous pass, runs the inverse's
    /// groups and, from the coefficients left in scratch, the encode's groups
    /// once per replica, writing every replica block's rows: the
    /// coefficients never go to memory.
    pub(super) fn fuses_into_encode(&self, encode: &Plan<F>) -> bool {
        let (Some(Step::Pass(last)), Some(Step::Pass(first))) =
            (self.steps.last(), encode.steps.first())
        else {
            return false;
        };
        self.steps.len() >= 2
            && self.batch == 1
            && encode.batch == 1
            && self.lanes == encode.lanes
            && self.kernels == encode.kernels
            && self.threads == encode.threads
            && self.fold.is_empty()
            && !self.lane_major()
            && encode.fold.is_empty()
            && !encode.lane_major()
            && encode.source_rows == 1 << self.log_n
            && encode.log_n > self.log_n
            && last.kind == PassKind::Gathered
            && first.kind == PassKind::Gathered
            && first.reads_source
            && last.log_block_rows == self.log_n
            && first.log_block_rows == self.log_n
            && last.layers.len() == first.layers.len()
            && last.chunk_rows == first.chunk_rows
    }

    /// Elements of scratch per thread the fused pass uses: the coefficients
    /// of a tile and a replica being encoded from them.
    pub(super) fn fused_lde_scratch_len(&self) -> usize {
        match self.steps.last() {
            Some(Step::Pass(last)) => 2 * (last.tile_bytes / core::mem::size_of::<F>().max(1)),
            _ => 0,
        }
    }

    /// Runs the LDE `self` then `encode` from `evals` into `out` with the
    /// middle two passes fused (the caller checked
    /// [`fuses_into_encode`](Plan::fuses_into_encode)): the inverse's
    /// passes before its last into `out`'s first n rows, the fused pass,
    /// then the encode's passes after its first, in place. Wrong lengths
    /// are typed errors.
    pub(super) fn run_fused_lde(
        &self,
        encode: &Plan<F>,
        evals: &[F],
        out: &mut [F],
        scratch: &super::scratch::ScratchPool<F>,
    ) -> Result<(), Error> {
        self.check_len("input", evals.len(), self.input_len())?;
        encode.check_len("output", out.len(), encode.len())?;
        self.run_fused(encode, out, Some(evals), scratch);
        Ok(())
    }

    /// [`Plan::run_fused_lde`] in place: the evaluations are `data`'s first
    /// n rows. The inverse reads them into the last block of n rows (out of
    /// place, so its leading bit reversal stays fused into its first pass),
    /// and the fused pass reads the coefficients from there, writing that
    /// block last.
    pub(super) fn run_fused_lde_in_place(
        &self,
        encode: &Plan<F>,
        data: &mut [F],
        scratch: &super::scratch::ScratchPool<F>,
    ) -> Result<(), Error> {
        encode.check_len("data", data.len(), encode.len())?;
        self.run_fused(encode, data, None, scratch);
        Ok(())
    }

    /// The fused LDE on `out`, from `evals` (the coefficients then go to
    /// block 0) or, without them, from `out`'s first n rows (the
    /// coefficients go to the last block): every step of this inverse but
    /// its last pass, the fused pass, then the encode's steps after its
    /// first.
    fn run_fused(
        &self,
        encode: &Plan<F>,
        out: &mut [F],
        evals: Option<&[F]>,
        scratch: &super::scratch::ScratchPool<F>,
    ) {
        self.on_threads(|threads| {
            let n = self.len();
            let inverse = 0..self.steps.len() - 1;
            let coefficients = match evals {
                Some(evals) => {
                    let source = Source::Buffer(evals);
                    self.run_step_range(&mut out[..n], source, &Scratch::Pool, threads, inverse);
                    0
                }
                None => {
                    let block = out.len() / n - 1;
                    let (evals, last) = out.split_at_mut(block * n);
                    let source = Source::Buffer(&evals[..n]);
                    self.run_step_range(last, source, &Scratch::Pool, threads, inverse);
                    block
                }
            };
            self.run_fused_pass(encode, out, coefficients, scratch, threads);
            let rest = 1..encode.steps.len();
            encode.run_step_range(out, Source::InPlace, &Scratch::Pool, threads, rest);
        });
    }

    /// The fused pass: per tile of block `coefficients` (n rows), the
    /// inverse's last groups into scratch, then for each other replica
    /// block, last to first, the encode's first groups from those
    /// coefficients, stored to that block's rows (streaming where the
    /// encode's pass streams); last, block `coefficients`, whose rows the
    /// tile read at the start, with plain stores.
    fn run_fused_pass(
        &self,
        encode: &Plan<F>,
        out: &mut [F],
        coefficients: usize,
        scratch: &super::scratch::ScratchPool<F>,
        threads: bool,
    ) {
        let step = self.steps.len() - 1;
        let (Step::Pass(last), Step::Pass(first)) = (&self.steps[step], &encode.steps[0]) else {
            unreachable!("checked by fuses_into_encode");
        };
        let lanes = self.lanes;
        let replicas = out.len() / self.len();
        let group_rows = 1usize << last.layers.len();
        let like = out.as_ptr() as usize;
        let tiles = StridedTiles::new(out, lanes, 1 << self.log_n, group_rows, last.chunk_rows);
        let tile_len = tiles.scratch_len();
        let width = lanes * last.chunk_rows;
        let row_shift = last.log_block_rows - last.layers.len();
        let parallel = threads && (last.parallel || first.parallel);
        tiles.for_each_tile_across_blocks(parallel, |mut tile| {
            scratch.with_like(like, |buf| {
                let (coeffs, work) = buf.split_at_mut(tile_len);
                let work = &mut work[..tile_len];
                let moves = (Some(tile.in_block(coefficients).rows_from()), None);
                self.run_groups(step, last, coeffs, width, 0, row_shift, moves);
                for replica in (0..replicas).rev().filter(|&r| r != coefficients) {
                    let mut dst = tile.in_block(replica);
                    let from = RowsFrom::new(coeffs, group_rows, width, width);
                    let to = if first.streams {
                        dst.rows_to_streaming()
                    } else {
                        dst.rows_to()
                    };
                    let moves = (Some(from), Some(to));
                    encode.run_groups(0, first, work, width, replica, row_shift, moves);
                    if first.streams {
                        store_fence();
                    }
                }
                let mut dst = tile.in_block(coefficients);
                let moves = (None, Some(dst.rows_to()));
                encode.run_groups(0, first, coeffs, width, coefficients, row_shift, moves);
            })
        });
    }
}

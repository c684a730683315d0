//! Running one pass: its tiles (deep blocks in place, gathered row groups
//! through scratch) and, per tile, its register groups' kernels.

use super::execute::{Scratch, Source, SourceRows};
use super::{Pass, PassKind, Plan};
use crate::backend::{
    for_each_chunk_bit_reversed, store_fence, Folded, GroupKernel, Kernels, RowMoves, RowsFrom,
    RowsTo, StridedTiles,
};
use crate::transform::bit_reverse;

/// One pass as it runs: which step it is, where its tiles get scratch,
/// and whether they spread over threads.
pub(super) struct PassRun<'p, 's, F: Kernels> {
    pub(super) step: usize,
    pub(super) pass: &'p Pass,
    pub(super) scratch: &'p Scratch<'s, F>,
    pub(super) parallel: bool,
}

/// Where a tile's groups run: rows of `width` elements, the tile's first
/// block (of the pass's first layer) `block`, each block 2^(log_block_rows
/// − row_shift) rows of the buffer.
#[derive(Clone, Copy)]
pub(super) struct TileAt {
    pub(super) width: usize,
    pub(super) block: usize,
    pub(super) row_shift: usize,
}

impl<F: Kernels> Plan<F> {
    /// Runs `run.pass` on `data`, its tiles reading `source` where it is a
    /// separate buffer (bit-reversed where `reversed`).
    pub(super) fn run_pass(
        &self,
        run: &PassRun<'_, '_, F>,
        data: &mut [F],
        source: Source<'_, F>,
        reversed: bool,
    ) {
        let pass = run.pass;
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
                    self.run_tiles(run, item, Some(src), 0);
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
                        run,
                        tail,
                        Some(SourceRows::Plain(&head[..source_item])),
                        first_block,
                    );
                    if head_len > source_item {
                        // One deep tile holds the message and replicas of it.
                        let (msg, rest) = head.split_at_mut(source_item);
                        rest.chunks_exact_mut(source_item)
                            .for_each(|r| r.copy_from_slice(msg));
                    }
                    self.run_tiles(run, head, None, 0);
                }
            }
            Source::InPlace => self.run_tiles(run, data, None, 0),
        }
    }

    /// Runs `pass` on `data` (whole blocks; its first block is block
    /// `first_block` of an item), reading tiles from `source` (one item's
    /// input, replicated over blocks) when given.
    fn run_tiles(
        &self,
        run: &PassRun<'_, '_, F>,
        data: &mut [F],
        source: Option<SourceRows<'_, F>>,
        first_block: usize,
    ) {
        let (step, pass, scratch, parallel) = (run.step, run.pass, run.scratch, run.parallel);
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
                let like = data.as_ptr() as usize;
                let run = |(t, tile): (usize, &mut [F])| {
                    let block = (first_block + t * pass.blocks_per_tile) % blocks_per_item;
                    let at = TileAt {
                        width: lanes,
                        block,
                        row_shift: 0,
                    };
                    // A block read bit-reversed from the source: its row i
                    // is source row BitRev_b(i)·2^(n−b) + BitRev_(n−b)(block)
                    // (b = log_block_rows), which the first group loads
                    // straight from the source (no copy into the tile).
                    let from = match source {
                        Some(SourceRows::BitReversed(src))
                            if pass.blocks_per_tile == 1
                                && lanes * core::mem::size_of::<F>()
                                    >= super::planner::FUSED_REVERSAL_MIN_ROW_BYTES =>
                        {
                            let (n, b) = (self.log_n, pass.log_block_rows);
                            let base = bit_reverse(block, n - b) * lanes;
                            Some(RowsFrom::bit_reversed(
                                &src[base..],
                                1 << b,
                                lanes,
                                lanes << (n - b),
                            ))
                        }
                        _ => None,
                    };
                    let fill = |buf: &mut [F]| {
                        if from.is_none() {
                            self.fill_deep_tile(buf, source, block, block_len, unit);
                        }
                    };
                    if source.is_some() && pass.streams {
                        // The output exceeds the last-level cache: the tile
                        // runs in scratch and its last group stores it with
                        // streaming stores, so the output's lines are never
                        // read for ownership.
                        let mut work = |buf: &mut [F]| {
                            let buf = &mut buf[..tile.len()];
                            fill(buf);
                            let to = RowsTo::contiguous(tile, lanes, true);
                            self.run_groups(step, pass, buf, at, (from, Some(to)));
                            store_fence();
                        };
                        match scratch {
                            Scratch::Pool => self.scratch.with_like(like, work),
                            Scratch::Caller(s) => work(&mut s.lock()),
                        }
                    } else {
                        fill(tile);
                        self.run_groups(step, pass, tile, at, (from, None));
                    }
                };
                let reversed = matches!(source, Some(SourceRows::BitReversed(_)));
                if reversed && for_each_chunk_bit_reversed(data, tile_len, parallel, run) {
                    // Visited so that consecutive tiles read adjacent rows.
                } else {
                    crate::par::for_each_chunk(parallel, data, tile_len, run);
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
                            Some(SourceRows::Plain(src)) if !self.fold_twiddles.is_empty() => {
                                // A pruned transform's fold, riding on the
                                // first group's loads of the source rows.
                                let at = (block * block_len) % unit;
                                let fold = Folded {
                                    terms: self.fold_twiddles.len(),
                                    unit,
                                };
                                Some(tile.rows_of_folded(&src[at..], fold))
                            }
                            Some(SourceRows::Plain(src)) => {
                                Some(tile.rows_of(&src[(block * block_len) % unit..]))
                            }
                            Some(SourceRows::BitReversed(_)) => {
                                unreachable!("only deep passes read a bit-reversed source")
                            }
                            None => Some(tile.rows_from()),
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
                        let moves = (from, Some(to));
                        let at = TileAt {
                            width,
                            block,
                            row_shift,
                        };
                        self.run_groups(step, pass, buf, at, moves);
                        if streams {
                            store_fence();
                        }
                    };
                    match scratch {
                        Scratch::Pool => self.scratch.with_like(like, work),
                        Scratch::Caller(s) => work(&mut s.lock()),
                    }
                });
            }
        }
    }

    /// Fills a deep tile (`tile.len()` elements from block `block` on) from
    /// `source`: the message an encode replicates, the input, or its rows
    /// bit-reversed; nothing when the pass runs in place.
    fn fill_deep_tile(
        &self,
        tile: &mut [F],
        source: Option<SourceRows<'_, F>>,
        block: usize,
        block_len: usize,
        unit: usize,
    ) {
        let lanes = self.lanes;
        match source {
            Some(SourceRows::Plain(src)) => {
                for (b, dst) in tile.chunks_exact_mut(unit.min(tile.len())).enumerate() {
                    let start = ((block * block_len + b * dst.len()) % unit).min(unit - dst.len());
                    if self.fold_twiddles.is_empty() {
                        dst.copy_from_slice(&src[start..start + dst.len()]);
                    } else {
                        self.fold_run(dst, src, start, unit);
                    }
                }
            }
            Some(SourceRows::BitReversed(src)) => {
                let first_row = block * block_len / lanes;
                for (i, row) in tile.chunks_exact_mut(lanes).enumerate() {
                    let j = bit_reverse(first_row + i, self.log_n);
                    row.copy_from_slice(&src[j * lanes..(j + 1) * lanes]);
                }
            }
            None => {}
        }
    }

    /// Runs the pass's groups on `buf`: consecutive blocks of the pass's first
    /// layer starting at `block`, rows of `width` elements, each block
    /// 2^(log_block_rows − row_shift) rows of `buf`.
    /// `moves`: the tile's rows, which the first group reads and the last
    /// group writes in place of `buf`'s where given (a gathered pass's fused
    /// gather and scatter).
    pub(super) fn run_groups(
        &self,
        step: usize,
        pass: &Pass,
        buf: &mut [F],
        at: TileAt,
        moves: (Option<RowsFrom<'_, F>>, Option<RowsTo<'_, F>>),
    ) {
        let TileAt {
            width,
            block,
            row_shift,
        } = at;
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
            let superblocks = table.range(block << (p - x), blocks << (p - x));
            let kernel = GroupKernel {
                log_radix: g,
                log_rows: block_rows_log - (p - x),
                width,
                kind: group.kind,
                twiddles: &table.data[superblocks],
                scale: if group.scales { self.scale } else { None },
                input_bound: group.bounds.map_or(1, |b| b.input),
                canonical_output: group.canonical_output,
                whole_block: group.whole_block,
            };
            let from = from.take();
            // A fold rides on the first group's loads of the source rows.
            let fold = match &from {
                Some(f) if f.fold().terms > 0 => &self.fold_twiddles[..],
                _ => &[],
            };
            let mut moves = RowMoves::new(from, if index == last { to.take() } else { None }, fold);
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

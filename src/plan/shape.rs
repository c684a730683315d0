//! How a transform's layers are cut into passes and register groups (the
//! planner's geometry; see the `plan` module doc's picture).

use super::{Group, Pass, PassKind};
use crate::field::Field;
use crate::transform::{ButterflyKind, Schedule};
use alloc::vec::Vec;

/// Consecutive bytes a gathered pass moves at a time: 4 cache lines, so every
/// run is whole lines and the hardware prefetcher sees a stream.
const MIN_RUN_BYTES: usize = 256;
/// The largest radix (log₂) of a gathered pass's groups. Its first and last
/// groups move rows between the data and the tile, a source and a
/// destination pointer per row (and one per fold term), and at radix 16
/// those no longer fit the registers beside the data: a pruned GF(2^64)
/// NTT 2^20 × 8 whose first pass folded into one radix-16 group took
/// 1.22–1.29 × as long as with two radix-4 groups (Intel Xeon, 1 thread,
/// builds alternated).
const MAX_MOVING_LOG_RADIX: usize = 3;
/// Below this many bytes a pass runs on one thread: spreading it costs more
/// than it saves.
const PARALLEL_MIN_BYTES: usize = 64 << 10;

/// What the planner sees of a transform.
pub(super) struct Shape {
    pub(super) log_n: usize,
    pub(super) first: usize,
    pub(super) end: usize,
    pub(super) row_bytes: usize,
    pub(super) batch: usize,
    pub(super) tile_budget: usize,
    pub(super) max_log_radix: usize,
    pub(super) descending: bool,
    /// The butterfly of every group.
    pub(super) kind: ButterflyKind,
    pub(super) registers_overridden: bool,
    /// Final layers the backend runs as one transposed group
    /// (`Kernels::transposed_tail`), 0 if none.
    pub(super) transposed_tail: usize,
}

impl Shape {
    /// Cuts layers [first, end) into passes, in execution order.
    pub(super) fn passes(&self, whole_block: &dyn Fn(usize, usize) -> bool) -> Vec<Pass> {
        if self.first >= self.end {
            return Vec::new();
        }
        // Deep pass: from the first layer whose blocks fit the tile budget.
        let mut deep_start = self.first;
        while deep_start < self.end
            && (self.row_bytes << (self.log_n - deep_start)) > self.tile_budget
        {
            deep_start += 1;
        }
        let mut passes = self.gathered_passes(deep_start);
        if deep_start < self.end {
            passes.push(self.deep_pass(deep_start, whole_block));
        }
        if !self.descending {
            passes.reverse();
        }
        passes
    }

    /// Gathered passes over [first, deep_start), layers split evenly.
    fn gathered_passes(&self, deep_start: usize) -> Vec<Pass> {
        let layers = deep_start - self.first;
        if layers == 0 {
            return Vec::new();
        }
        // Rows moved together: at least MIN_RUN_BYTES, at most what the
        // stride of the last gathered layer allows.
        let stride_rows = 1usize << (self.log_n - deep_start);
        let chunk = MIN_RUN_BYTES
            .div_ceil(self.row_bytes)
            .next_power_of_two()
            .min(stride_rows);
        let run_bytes = chunk * self.row_bytes;
        let max_layers = (self.tile_budget / run_bytes).max(2).ilog2() as usize;
        let count = layers.div_ceil(max_layers);
        let mut start = self.first;
        (0..count)
            .map(|i| {
                let len = layers / count + usize::from(i < layers % count);
                let tile_bytes = (run_bytes << len).max(1);
                // Tiles are widened (more rows per run, up to the stride) to
                // half the tile budget: longer contiguous runs are what the
                // prefetchers stream, and fewer tiles pay fewer scratch
                // hand-outs and tasks. (64 KiB tiles of 1 KiB runs left the
                // 8-lane GF(2^64) encode of 2^20 rows 19% slower, the
                // BabyBear LDE 8%.)
                let widen = ((self.tile_budget / 2).max(1) / tile_bytes)
                    .max(1)
                    .next_power_of_two();
                let chunk = (chunk * widen).min(stride_rows);
                let pass = self.gathered_pass(start..start + len, chunk);
                start += len;
                pass
            })
            .collect()
    }

    fn gathered_pass(&self, layers: core::ops::Range<usize>, chunk: usize) -> Pass {
        let log_block_rows = self.log_n - layers.start;
        let group_rows = 1usize << layers.len();
        let tile_bytes = group_rows * chunk * self.row_bytes;
        let tiles = (self.batch << self.log_n) / (group_rows * chunk);
        Pass {
            kind: PassKind::Gathered,
            groups: self.groups_up_to(layers.clone(), self.max_log_radix.min(MAX_MOVING_LOG_RADIX)),
            layers,
            log_block_rows,
            chunk_rows: chunk,
            blocks_per_tile: 1,
            tiles,
            tile_bytes,
            parallel: tiles > 1 && tiles * tile_bytes >= PARALLEL_MIN_BYTES,
            reads_source: false,
            streams: false,
        }
    }

    /// The deep pass over [start, end): blocks of 2^(log_n − start) rows,
    /// several per tile while they fit the budget.
    fn deep_pass(&self, start: usize, whole_block: &dyn Fn(usize, usize) -> bool) -> Pass {
        let log_block_rows = self.log_n - start;
        let layers = start..self.end;
        let groups = if !self.registers_overridden && whole_block(log_block_rows, layers.len()) {
            vec![Group {
                layers: layers.clone(),
                scales: false,
                whole_block: true,
                kind: self.kind,
                bounds: None,
                canonical_output: false,
            }]
        } else {
            let tail = self.transposed_tail;
            // The transposed kernel takes R = 2^tail super-blocks (of 2^tail
            // rows) at once: a block must hold R of them.
            let use_tail = tail > 0
                && self.end == self.log_n
                && tail <= layers.len()
                && log_block_rows >= 2 * tail
                && (!self.registers_overridden || tail <= self.max_log_radix);
            if use_tail {
                let mut groups = self.groups(start..self.end - tail);
                let group = Group {
                    layers: self.end - tail..self.end,
                    scales: false,
                    whole_block: true,
                    kind: self.kind,
                    bounds: None,
                    canonical_output: false,
                };
                if self.descending {
                    groups.push(group);
                } else {
                    groups.insert(0, group);
                }
                groups
            } else {
                self.groups(layers.clone())
            }
        };
        let block_bytes = self.row_bytes << log_block_rows;
        let blocks_per_item = 1usize << start;
        let fit = (self.tile_budget / block_bytes).max(1);
        // Small items (an ML-KEM polynomial) share a tile: whole items, as
        // many as fit, so a batch costs one kernel call per tile.
        let blocks_per_tile = if fit >= 2 * blocks_per_item && self.batch > 1 {
            blocks_per_item * (fit / blocks_per_item).min(self.batch)
        } else {
            (1usize << fit.ilog2()).min(blocks_per_item)
        };
        let tiles = (self.batch * blocks_per_item).div_ceil(blocks_per_tile);
        let tile_bytes = blocks_per_tile * block_bytes;
        Pass {
            kind: PassKind::Deep,
            groups,
            layers,
            log_block_rows,
            chunk_rows: 1,
            blocks_per_tile,
            tiles,
            tile_bytes,
            parallel: tiles > 1 && tiles * tile_bytes >= PARALLEL_MIN_BYTES,
            reads_source: false,
            streams: false,
        }
    }

    /// Register groups over `layers`, as even as possible, larger first, in
    /// execution order.
    fn groups(&self, layers: core::ops::Range<usize>) -> Vec<Group> {
        self.groups_up_to(layers, self.max_log_radix)
    }

    /// [`Shape::groups`] of at most 2^max_log_radix rows each.
    fn groups_up_to(&self, layers: core::ops::Range<usize>, max_log_radix: usize) -> Vec<Group> {
        let count = layers.len().div_ceil(max_log_radix);
        let mut start = layers.start;
        let mut groups: Vec<Group> = (0..count)
            .map(|i| {
                let len = layers.len() / count + usize::from(i < layers.len() % count);
                let g = Group {
                    layers: start..start + len,
                    scales: false,
                    whole_block: false,
                    kind: self.kind,
                    bounds: None,
                    canonical_output: false,
                };
                start += len;
                g
            })
            .collect();
        if !self.descending {
            groups.reverse();
        }
        groups
    }
}

/// A group's twiddles in kernel order: for each super-block K (block of the
/// group's first layer p), layer p + i contributes its blocks K·2^i … K·2^i + 2^i − 1.
pub(super) fn group_twiddles<F: Field>(schedule: &Schedule<F>, group: &Group) -> Vec<F::Twiddle> {
    let p = group.layers.start;
    let g = group.layers.len();
    let mut table = Vec::with_capacity((1usize << p) * ((1 << g) - 1));
    for k in 0..1usize << p {
        for i in 0..g {
            let layer = &schedule.twiddles[p + i];
            table.extend(
                layer[k << i..(k + 1) << i]
                    .iter()
                    .map(|&w| F::prepare_twiddle(w)),
            );
        }
    }
    table
}

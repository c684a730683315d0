//! The reshaping steps before a plan's passes: a pruned transform's fold
//! and the transpose of a lane-major input, each one sweep over the input.

use super::Plan;

/// Elements of a fold's chunk (32 KiB of 64-bit words): it stays in L1
/// while each term is added to it.
const FOLD_CHUNK_ELEMENTS: usize = 4096;
use crate::backend::{transpose_rows_from, Kernels};

impl<F: Kernels> Plan<F> {
    /// A pruned transform's fold: kept row r of each item receives
    /// Σ_j c_j · (input row r + j·rows), one sweep over the input.
    pub(super) fn fold_into(&self, input: &[F], data: &mut [F], threads: bool) {
        let (lanes, rows) = (self.lanes, 1usize << self.log_n);
        let source_item = self.source_rows * lanes;
        let lane_major = self.lane_major();
        if !lane_major {
            // Row-major: each block j of the input is contiguous, so a
            // chunk of kept rows is one term at a time of the backend's
            // `mul_add` (block 0 plus c_1 × block 1, then in place), on a
            // chunk small enough to stay in L1 between terms.
            let chunk_len = (FOLD_CHUNK_ELEMENTS / lanes).max(1) * lanes;
            let kernels = self.kernels;
            for (item, src) in data
                .chunks_exact_mut(self.item_len())
                .zip(input.chunks_exact(source_item))
            {
                let parallel = threads && self.cost.data_bytes >= 1 << 16;
                crate::par::for_each_chunk(parallel, item, chunk_len, |(c, out)| {
                    let start = c * chunk_len;
                    let block = |j: usize| &src[j * rows * lanes + start..];
                    for (j, &w) in self.fold_twiddles.iter().enumerate() {
                        let a = if j == 0 { Some(block(0)) } else { None };
                        F::mul_add(kernels, out, a, block(j + 1), w);
                    }
                });
            }
            return;
        }
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
            let parallel = threads && self.cost.data_bytes >= 1 << 16;
            crate::par::for_each_chunk(parallel, item, chunk_len, |(c, out)| {
                fold_rows((c * CHUNK_ROWS, out), src)
            });
        }
    }

    /// `dst = Σ_j c_j · src[at + j·unit ..]` (c_0 = 1): the fold of the
    /// kept elements `at ..` of one item, done while a pass loads them.
    pub(super) fn fold_run(&self, dst: &mut [F], src: &[F], at: usize, unit: usize) {
        for (j, &w) in self.fold_twiddles.iter().enumerate() {
            let a = (j == 0).then(|| &src[at..]);
            F::mul_add(self.kernels, dst, a, &src[at + (j + 1) * unit..], w);
        }
    }

    /// Whether the fold rides on the first pass's loads (row-major input
    /// whose first step is a pass) rather than a sweep of its own.
    pub(crate) fn folds_in_first_pass(&self) -> bool {
        !self.fold.is_empty()
            && !self.lane_major()
            && matches!(self.steps.first(), Some(super::Step::Pass(_)))
    }

    /// The transpose step of a lane-major input: each item's input rows (the
    /// message of an encode, the kept rows of a pruned transform) go
    /// row-major to the front of its output item, in cache-tiled blocks of
    /// rows (every column read in whole cache lines), parallel over blocks.
    /// The passes then run in place.
    pub(super) fn transpose_into(&self, input: &[F], data: &mut [F], threads: bool) {
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
            let parallel = threads && self.cost.data_bytes >= 1 << 16;
            crate::par::for_each_chunk(parallel, head, BLOCK_ROWS * lanes, block);
        }
    }
}

//! The fused coset LDE pass: an inverse DFT's last gathered pass and its
//! encode's first, run as one (see `plan::lde`).

use super::execute::{Scratch, Source};
use super::passes::TileAt;
use super::PassKind;
use super::{Plan, Step};
use crate::backend::{store_fence, Kernels, RowsFrom, StridedTiles};
use crate::error::Error;

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
        self.on_threads(self.uses_threads() || encode.uses_threads(), |threads| {
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
                let at = |block| TileAt {
                    width,
                    block,
                    row_shift,
                };
                self.run_groups(step, last, coeffs, at(0), moves);
                for replica in (0..replicas).rev().filter(|&r| r != coefficients) {
                    let mut dst = tile.in_block(replica);
                    let from = RowsFrom::new(coeffs, group_rows, width, width);
                    let to = if first.streams {
                        dst.rows_to_streaming()
                    } else {
                        dst.rows_to()
                    };
                    let moves = (Some(from), Some(to));
                    encode.run_groups(0, first, work, at(replica), moves);
                    if first.streams {
                        store_fence();
                    }
                }
                let mut dst = tile.in_block(coefficients);
                let moves = (None, Some(dst.rows_to()));
                encode.run_groups(0, first, coeffs, at(coefficients), moves);
            })
        });
    }
}

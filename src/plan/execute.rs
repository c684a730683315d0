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

use super::passes::PassRun;
use super::{Pass, PassKind, Plan, Step};
use crate::backend::{bit_reverse_rows, bit_reverse_rows_from, Kernels};
use crate::error::Error;
use crate::sync::Mutex;
use core::ops::Range;

/// Where tiles get scratch from.
pub(super) enum Scratch<'s, F: Kernels> {
    Pool,
    Caller(Mutex<&'s mut [F]>),
}

/// How a pass's tiles read a separate source: its rows in order, or row k
/// from source row BitRev(k) (a fused bit reversal).
#[derive(Clone, Copy)]
pub(super) enum SourceRows<'a, F> {
    Plain(&'a [F]),
    BitReversed(&'a [F]),
}

/// Where the first pass reads from.
#[derive(Clone, Copy)]
pub(super) enum Source<'a, F> {
    /// The data itself (in place).
    InPlace,
    /// A separate buffer: per item, `rows` rows (the message of an encode or
    /// the whole input of an out-of-place run).
    Buffer(&'a [F]),
}

/// The smallest row move (bit reversal, fold, transpose) of a plan whose
/// passes are all one tile that is worth a hand-off to a pool: a move is a
/// memory sweep, and handing a run to rayon and waiting for it took 25 µs
/// on a 2-core Xeon, more than splitting a move of under 4 MiB saves
/// (2^13 rows × 56 BabyBear columns, 1.8 MiB in one tile plus a bit
/// reversal: 832 µs on one thread, 1,064 µs on two).
const PARALLEL_MOVE_BYTES: usize = 4 << 20;

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

    /// One run for measured planning, the way users run the plan: in place
    /// on `output` where the transform runs in place (an encode's message
    /// then reads whatever the last run left there, which costs the same),
    /// else from `input`; a ring plan from `input` (a lazy plan's raw words
    /// land in field elements, scratch never read as such).
    #[cfg(feature = "std")]
    pub(super) fn run_for_measuring(&self, input: &[F], output: &mut [F]) {
        if let (true, Some(ring)) = (self.ring_direct, &self.ring) {
            output.copy_from_slice(input);
            ring.run(F::ring_words(output));
        } else if self.check_in_place().is_ok() {
            self.run(output, Source::InPlace, &Scratch::Pool);
        } else {
            self.run(output, Source::Buffer(input), &Scratch::Pool);
        }
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
    pub(super) fn lane_major(&self) -> bool {
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
            crate::par::for_each_chunk_pair(true, dst, src, chunk, |d, s| d.copy_from_slice(s))
        };
        let small = core::mem::size_of_val(src) < 1 << 16;
        match (&self.pool, self.threads) {
            (_, super::Threads::Count(1)) => dst.copy_from_slice(src),
            _ if small => dst.copy_from_slice(src),
            (Some(pool), _) => pool.install(|| parallel(dst)),
            (None, _) => parallel(dst),
        }
    }

    fn run(&self, data: &mut [F], source: Source<'_, F>, scratch: &Scratch<'_, F>) {
        self.on_threads(self.uses_threads(), |threads| {
            self.run_steps(data, source, scratch, threads)
        });
    }

    /// Whether a run of this plan spreads work over threads: a pass split
    /// into tiles (several, of at least 64 KiB in all), or a row move (bit
    /// reversal, fold, transpose) of at least [`PARALLEL_MOVE_BYTES`].
    /// Otherwise it runs on the calling thread whatever its thread setting:
    /// handing a run to a pool and waiting for it costs more than it saves
    /// (the plan's text says so).
    pub(crate) fn uses_threads(&self) -> bool {
        self.parallel_work
    }

    /// [`uses_threads`](Self::uses_threads) worked out from the plan's
    /// steps (once, by the planner).
    pub(super) fn wants_threads(&self) -> bool {
        let split = self
            .steps
            .iter()
            .any(|s| matches!(s, Step::Pass(p) if p.parallel));
        let moves = self.steps.iter().any(|s| matches!(s, Step::BitReverse))
            || !self.fold.is_empty()
            || self.lane_major();
        self.threads != super::Threads::Count(1)
            && (split || (moves && self.cost.data_bytes >= PARALLEL_MOVE_BYTES))
    }

    /// Runs `f(threads)`: on this plan's threads when `parallel_work` (the
    /// plan's pool installed, `threads` true: passes may spread their tiles
    /// over it), else on the calling thread with `threads` false.
    pub(super) fn on_threads(&self, parallel_work: bool, f: impl FnOnce(bool) + Send) {
        match (&self.pool, parallel_work) {
            (_, false) => f(false),
            (Some(pool), true) => pool.install(|| f(true)),
            (None, true) => f(true),
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
    pub(super) fn run_step_range(
        &self,
        data: &mut [F],
        source: Source<'_, F>,
        scratch: &Scratch<'_, F>,
        threads: bool,
        steps: Range<usize>,
    ) {
        let mut source = source;
        if let Source::Buffer(input) = source {
            if !self.fold.is_empty() && !self.folds_in_first_pass() {
                self.fold_into(input, data, threads);
                source = Source::InPlace;
            } else if self.lane_major() {
                self.transpose_into(input, data, threads);
                source = Source::InPlace;
            }
        }
        if self.steps.is_empty() {
            // No layer to run (a 1-row transform, or an encode of a one-row
            // message): the output is the input (its first row, for a
            // pruned transform; the row replicated, for an encode).
            let source_item = self.source_rows * self.lanes;
            let unit = source_item.min(self.item_len());
            match source {
                Source::Buffer(input) => {
                    for (item, src) in data
                        .chunks_exact_mut(self.item_len())
                        .zip(input.chunks_exact(source_item))
                    {
                        for copy in item.chunks_exact_mut(unit) {
                            copy.copy_from_slice(&src[..unit]);
                        }
                    }
                }
                Source::InPlace => {
                    for item in data.chunks_exact_mut(self.item_len()) {
                        let (message, rest) = item.split_at_mut(unit);
                        for copy in rest.chunks_exact_mut(unit) {
                            copy.copy_from_slice(message);
                        }
                    }
                }
            }
        }
        // A bit reversal read from a separate source and followed by a deep
        // pass (an inverse DFT from natural order, or a forward one into
        // natural order with rows of 256 bytes or more, out of place) is
        // fused: the pass's tiles read their rows bit-reversed straight from
        // the source, one sweep fewer.
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
                    let run = PassRun {
                        step: index,
                        pass,
                        scratch,
                        parallel: threads && pass.parallel,
                    };
                    self.run_pass(&run, data, source, reversed)
                }
            }
            source = Source::InPlace;
        }
        let no_layers = self.steps.iter().all(|s| matches!(s, Step::BitReverse));
        if let Some(scale) = self.scale.filter(|_| no_layers) {
            data.iter_mut().for_each(|x| *x *= scale);
        }
    }

    /// Whether an out-of-place run skips the first step, a bit reversal,
    /// because the deep pass after it reads its rows bit-reversed from the
    /// source. Not for rows the reversal moves block by block (under 64
    /// bytes), which the pass would gather a row, and a far line, at a time.
    pub(crate) fn fuses_reversal(&self) -> bool {
        !crate::backend::reversal_is_blocked::<F>(self.lanes, self.log_n)
            && self.source_rows == 1 << self.log_n
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

    pub(super) fn item_len(&self) -> usize {
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
}

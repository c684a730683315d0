//! Out-of-core additive encodes over binary fields: the Reed–Solomon
//! codeword of a message larger than memory, file to file.
//!
//! The encode of a message of n = 2^d rows at rate 2^−r is the additive NTT
//! of 2^(d+r) rows run from layer r on 2^r replicas of the message. Block k
//! of the codeword (rows k·n …) is the d-point NTT of the message on the
//! coset s + Σ_j bit_j(k)·b_(d+j), so when a block fits the budget one pass
//! does it all:
//!
//! ```text
//!   one pass   per block k: the message (kept resident when two blocks fit
//!              the budget, else read again), the d-point NTT with the
//!              block's shift; rows k·n … of the output
//! ```
//!
//! Otherwise the message is split as rows i₁·2^(d−l) + i₂ (i₁ < 2^l): the
//! top r + l layers work across i₁ (a stride), the bottom d − l within
//! blocks of 2^(d−l) contiguous rows, so two passes stream the files:
//!
//! ```text
//!   pass 1  tiles of rows i₂ ∈ [t, t+w) of every run i₁: layers r … r+l−1
//!           of the whole transform (an encode of 2^l rows to 2^(r+l), its
//!           twiddles the whole transform's, lanes w × columns); row
//!           u = k·2^l + v₁ of the tile to rows u·2^(d−l) + i₂ of the output
//!   pass 2  blocks u of 2^(d−l) rows, in place: the (d−l)-point NTT with
//!           shift s + Σ_j bit_j(u)·b_(d−l+j) (the bottom layers)
//! ```
//!
//! Disk traffic: one pass reads n (or m = 2^r·n when the message is read
//! again per block) and writes m rows; two passes read n + m and write 2m.
//! Field arithmetic is exact, so the output is bit-identical to the
//! in-memory encode's, whatever the budget and thread count.
//!
//! Extension fields run on their base path: a [`Gf2_192`](crate::Gf2_192)
//! file stores each element as its three `Gf2_64` coefficients, so its rows
//! of w columns are `Gf2_64` rows of 3w columns, and the encode over
//! `Gf2_64` with `lanes(3 * w)` is the extension's encode.
//!
//! ```
//! use nttfuse::prelude::*;
//! use nttfuse::out_of_core::{MemRows, OutOfCore};
//! let spec = Transform::<Gf2_64>::additive_encode(12, LogBlowup(1)).lanes(4);
//! // 64 KiB of message, 128 KiB of codeword, 48 KiB resident: two passes.
//! let ooc = OutOfCore::new(48 << 10).plan_encode(&spec)?;
//! assert_eq!(ooc.passes(), 2);
//! let message: Vec<Gf2_64> = (0..8192u64).map(|i| Gf2_64::new(i * 0x9e37_79b9)).collect();
//! let mut out = vec![Gf2_64::ZERO; 16384];
//! ooc.run(&mut MemRows::new(&message[..], 4), &mut MemRows::new(&mut out[..], 4))?;
//! let encode = Planner::new().plan(&spec)?;
//! let mut expected = vec![Gf2_64::ZERO; encode.len()];
//! encode.execute_from(&message, &mut expected)?;
//! assert_eq!(out, expected);
//! # Ok::<(), nttfuse::Error>(())
//! ```

use super::{
    open_files, read_budget, read_columns, read_planner, resident_buffer, same_text, staging_bytes,
    tables_bytes, text_error, ticker, FileElement, FileRows, OutOfCore, Progress, RowSource,
    RowStore,
};
use crate::backend::Kernels;
use crate::error::Error;
use crate::field::BinaryField;
use crate::plan::{Plan, Planner};
use crate::transform::{Direction, Family, LogBlowup, Transform};
use std::fmt;
use std::ops::{ControlFlow, Range};
use std::path::Path;
use std::string::ToString;
use std::vec::Vec;

/// How an out-of-core encode streams the files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// One pass, the message resident beside the block.
    Resident,
    /// One pass, the message read again for every block.
    Reread,
    /// Two passes: the top layers across runs, then blocks.
    TwoPass,
}

/// An out-of-core additive encode: one or two streaming passes, see the
/// [module doc](self).
pub struct OutOfCoreEncode<F: Kernels> {
    spec: Transform<F>,
    columns: Range<usize>,
    budget: usize,
    staging: usize,
    planner: Planner,
    mode: Mode,
    /// The message's rows are 2^log_d; the codeword's 2^(log_d + r).
    log_d: u32,
    r: u32,
    /// Bits of the message's row index taken by pass 1 (0 in one pass).
    l: u32,
    /// Rows of i₂ per pass-1 tile.
    tile: usize,
    /// Pass 1's encode over the runs (two passes only).
    outer: Option<Plan<F>>,
    /// Block 0's NTT (every block runs this plan with its own shift).
    block: Plan<F>,
    /// The domain's basis, 2^(log_d + r) points.
    basis: Vec<F>,
    /// The shift of block 0 (the spec's, or the coset shard's).
    shift: F,
    /// Elements of the one resident buffer.
    buffer_len: usize,
}

impl OutOfCore {
    /// Plans the additive encode `spec` ([`Transform::additive_encode`], or
    /// a forward [`Transform::additive_ntt`], any basis and shift, natural
    /// order, one batch item) out of core. With [`coset`](Self::coset)(k)
    /// it plans block k of the codeword alone (its 2^(log_n − rate) rows,
    /// rows k·2^(log_n − rate) … of the whole), with
    /// [`columns`](Self::columns) a range of the files' columns.
    pub fn plan_encode<F: Kernels + BinaryField>(
        &self,
        spec: &Transform<F>,
    ) -> Result<OutOfCoreEncode<F>, Error> {
        OutOfCoreEncode::new(self, spec)
    }
}

impl<F: Kernels + BinaryField> OutOfCoreEncode<F> {
    fn new(settings: &OutOfCore, spec: &Transform<F>) -> Result<Self, Error> {
        let unsupported = |what| Err(Error::Unsupported { what });
        if spec.family() != Family::Additive || spec.direction() != Direction::Forward {
            return unsupported("an out-of-core encode of anything but a forward additive NTT");
        }
        if !spec.is_encode() && spec.first_layer() != 0 {
            return unsupported("an out-of-core additive NTT from a layer other than the first");
        }
        if spec.pruned_bits() != 0 || spec.batch_count() != 1 || spec.input_is_lane_major() {
            return unsupported(
                "an out-of-core encode that is pruned, batched or reads lane-major input",
            );
        }
        spec.validate()?;
        let dim = spec.log_n();
        let (mut r, log_d) = (spec.first_layer(), dim - spec.first_layer());
        let basis = spec.domain_basis().elements::<F>(dim as usize);
        let mut shift = spec.coset_shift();
        let width = spec.lane_count();
        let mut spec = spec.clone();
        if let Some(k) = settings.coset {
            if k >> r != 0 {
                return unsupported("a coset index at or beyond the encode's 2^rate blocks");
            }
            // Block k is the message's NTT on its own coset: planned (and
            // printed) as that NTT, like the LDE's coset shards.
            shift = block_shift(shift, &basis, log_d, k);
            r = 0;
            spec = Transform::<F>::additive_ntt(log_d)
                .basis(spec.domain_basis())
                .shift(shift)
                .lanes(width);
        }
        let spec = &spec;
        let columns = settings.columns.clone().unwrap_or(0..width);
        if columns.is_empty() || columns.end > width {
            return unsupported("a column range that is empty or beyond the spec's lanes");
        }
        let c = columns.len();
        let size = core::mem::size_of::<F>();
        let staging = staging_bytes(settings.budget);
        let workers = settings.planner.thread_setting().workers().max(1);
        let budget = settings.budget;
        let fixed = 2 * staging;
        let plan = |t: &Transform<F>| settings.planner.plan(t);
        let block_spec = |l: u32| {
            Transform::<F>::additive_ntt(log_d - l)
                .basis(spec.domain_basis())
                .shift(shift)
                .lanes(c)
        };
        let extra =
            |p: &Plan<F>, rows: usize| p.scratch_len() * workers * size + tables_bytes::<F>(rows);
        let build = |mode, l, tile, outer, block, buffer_len| OutOfCoreEncode {
            spec: spec.clone(),
            columns: columns.clone(),
            budget,
            staging,
            planner: settings.planner.clone(),
            mode,
            log_d,
            r,
            l,
            tile,
            outer,
            block,
            basis: basis.clone(),
            shift,
            buffer_len,
        };
        // One pass: a block of the message's size fits (twice: resident).
        let n = 1usize << log_d;
        let mut smallest = usize::MAX;
        let block = plan(&block_spec(0))?;
        let need = fixed + extra(&block, n);
        for (mode, copies) in [(Mode::Resident, 2), (Mode::Reread, 1)] {
            if mode == Mode::Resident && r == 0 {
                continue;
            }
            if need + copies * n * c * size <= budget {
                return Ok(build(mode, 0, 0, None, block, copies * n * c));
            }
            smallest = smallest.min(need + copies * n * c * size);
        }
        drop(block);
        // Two passes: the fewest outer bits whose blocks and tiles fit.
        for l in 1..=log_d {
            let (rows, outer_rows) = (1usize << (log_d - l), 1usize << (r + l));
            let buffer_len = (rows * c).max(outer_rows * c);
            let tile = (1usize << (buffer_len / (outer_rows * c)).ilog2()).min(rows);
            let block = plan(&block_spec(l))?;
            let outer = plan(
                &Transform::<F>::additive_encode(r + l, LogBlowup(r))
                    .basis(spec.domain_basis())
                    .shift(shift)
                    .at_depth(log_d - l)
                    .lanes(tile * c),
            )?;
            let total = fixed + buffer_len * size + extra(&block, rows) + extra(&outer, outer_rows);
            if total <= budget {
                return Ok(build(
                    Mode::TwoPass,
                    l,
                    tile,
                    Some(outer),
                    block,
                    buffer_len,
                ));
            }
            smallest = smallest.min(total);
        }
        Err(Error::BudgetTooSmall {
            budget,
            needed: smallest,
        })
    }

    /// Reads a plan back from its text ([`fmt::Display`]): the spec from
    /// the first line, the columns and the budget from the next two, the
    /// planner's settings from the block's in-memory plan; plans again and
    /// accepts only the very same text (else [`Error::PlanText`]), so every
    /// worker of a sharded run can check it runs the plan it was handed.
    ///
    /// ```
    /// use nttfuse::prelude::*;
    /// use nttfuse::out_of_core::{OutOfCore, OutOfCoreEncode};
    /// let spec = Transform::<Gf2_64>::additive_encode(14, LogBlowup(2)).lanes(4);
    /// let plan = OutOfCore::new(64 << 10).columns(1..3).plan_encode(&spec)?;
    /// let text = plan.to_string();
    /// let again = OutOfCoreEncode::<Gf2_64>::from_text(&text)?;
    /// assert_eq!(again.to_string(), text);
    /// assert_eq!(again.transform(), &spec);
    /// # Ok::<(), nttfuse::Error>(())
    /// ```
    pub fn from_text(text: &str) -> Result<Self, Error>
    where
        F: FileElement,
    {
        let lines: Vec<&str> = text.trim_end().lines().collect();
        let line = lines
            .first()
            .and_then(|l| l.strip_prefix("out-of-core  "))
            .ok_or_else(|| text_error(1, "not an out-of-core encode plan"))?;
        let spec = Transform::<F>::read(line, &F::constructors()).map_err(|r| text_error(1, r))?;
        let (columns, _) = read_columns(
            lines
                .get(1)
                .and_then(|l| l.strip_prefix("columns    "))
                .and_then(|l| l.split_once(": ").map(|(c, _)| c)),
            2,
        )?;
        let budget = read_budget(&lines, 2)?;
        let block = lines
            .iter()
            .position(|l| l.ends_with("(block 0) --"))
            .ok_or_else(|| text_error(lines.len(), "no block plan"))?;
        let planner = read_planner::<F>(&lines, block + 1)?;
        let plan = OutOfCore::new(budget)
            .planner(planner)
            .columns(columns)
            .plan_encode(&spec)?;
        same_text(&plan.to_string(), text)?;
        Ok(plan)
    }

    /// The spec (its `lanes` are the files' columns; a
    /// [`coset`](OutOfCore::coset) shard's is the NTT of its block).
    pub fn transform(&self) -> &Transform<F> {
        &self.spec
    }

    /// The files' columns this plan encodes.
    pub fn column_range(&self) -> Range<usize> {
        self.columns.clone()
    }

    /// Passes over the files: 1 when a block of the message's size fits
    /// the budget, else 2.
    pub fn passes(&self) -> usize {
        if self.mode == Mode::TwoPass {
            2
        } else {
            1
        }
    }

    /// Rows of the message (2^(log_n − rate)).
    pub fn input_rows(&self) -> usize {
        1 << self.log_d
    }

    /// Rows of the output: the codeword's 2^log_n, or one block's
    /// 2^(log_n − rate) for a [`coset`](OutOfCore::coset) shard.
    pub fn output_rows(&self) -> usize {
        self.input_rows() << self.r
    }

    /// Rows read and written, all passes.
    fn io_rows(&self) -> (usize, usize) {
        let (n, m) = (self.input_rows(), self.output_rows());
        match self.mode {
            Mode::Resident => (n, m),
            Mode::Reread => (m, m),
            Mode::TwoPass => (n + m, 2 * m),
        }
    }

    /// Bytes the run reads and writes, all passes (of this plan's columns).
    pub fn io_bytes(&self) -> u64
    where
        F: FileElement,
    {
        let (reads, writes) = self.io_rows();
        (reads + writes) as u64 * (self.columns.len() * F::BYTES) as u64
    }

    /// Disk sweeps: bytes moved ÷ (one read of the input + one write of
    /// the output).
    pub fn disk_sweeps(&self) -> f64 {
        let (reads, writes) = self.io_rows();
        (reads + writes) as f64 / (self.input_rows() + self.output_rows()) as f64
    }

    /// Bytes of each file's staging buffer ([`FileRows::staging`]) that
    /// the budget counts.
    pub fn staging_bytes(&self) -> usize {
        self.staging
    }

    /// Bytes of the resident buffer (the budget's largest share).
    pub fn buffer_bytes(&self) -> usize {
        self.buffer_len * core::mem::size_of::<F>()
    }

    /// The in-memory plans the passes run: pass 1's encode over the runs
    /// (two passes only) and block 0's NTT (each block runs it planned with
    /// its own shift).
    pub fn plans(&self) -> (Option<&Plan<F>>, &Plan<F>) {
        (self.outer.as_ref(), &self.block)
    }

    /// Runs the encode from `input` (the message) into `output` (rows of
    /// the spec's `lanes` columns; this plan's columns of them).
    pub fn run(
        &self,
        input: &mut impl RowSource<F>,
        output: &mut impl RowStore<F>,
    ) -> Result<(), Error>
    where
        F: FileElement,
    {
        self.run_with(input, output, |_| ControlFlow::Continue(()))
    }

    /// Opens `input` (read only) and `output` (created, grown to the
    /// output's size if shorter; never truncated, so shards can share it)
    /// and runs the encode between them. A short input is an error before
    /// any work.
    pub fn run_files(&self, input: &Path, output: &Path) -> Result<(), Error>
    where
        F: FileElement,
    {
        self.run_files_with(input, output, |_| ControlFlow::Continue(()))
    }

    /// [`run_files`](Self::run_files) with a progress callback (see
    /// [`run_with`](Self::run_with)).
    pub fn run_files_with(
        &self,
        input: &Path,
        output: &Path,
        progress: impl FnMut(Progress) -> ControlFlow<()>,
    ) -> Result<(), Error>
    where
        F: FileElement,
    {
        let width = self.spec.lane_count();
        let files = open_files::<F>(input, output, width, self.input_rows(), self.output_rows())?;
        self.run_with(
            &mut FileRows::new(&files.source, files.input_name.clone(), width)
                .staging(self.staging),
            &mut FileRows::new(&files.sink, files.output_name.clone(), width).staging(self.staging),
            progress,
        )?;
        files.sync()
    }

    /// [`run`](Self::run), calling `progress` after every tile and block;
    /// `ControlFlow::Break` stops the run with [`Error::Interrupted`]. The
    /// input is only read, so a stopped (or failed) run resumes by running
    /// again: the output is written whole.
    pub fn run_with(
        &self,
        input: &mut impl RowSource<F>,
        output: &mut impl RowStore<F>,
        mut progress: impl FnMut(Progress) -> ControlFlow<()>,
    ) -> Result<(), Error>
    where
        F: FileElement,
    {
        let cols = self.columns.clone();
        let c = cols.len();
        let row_bytes = (c * F::BYTES) as u64;
        let mut tick = ticker(self.passes(), self.io_bytes(), row_bytes, &mut progress);
        let mut buf = resident_buffer::<F>(self.buffer_len)?;
        let (log_d, r, l) = (self.log_d, self.r, self.l);
        let rows = 1usize << (log_d - l);
        let block_len = rows * c;
        // Block u's NTT: block 0's plan, planned again with u's shift.
        let run_block = |u: usize, block: &mut [F]| -> Result<(), Error> {
            if u == 0 {
                return self.block.execute(block);
            }
            let shift = block_shift(self.shift, &self.basis, log_d - l, u);
            self.planner
                .plan(
                    &Transform::<F>::additive_ntt(log_d - l)
                        .basis(self.spec.domain_basis())
                        .shift(shift)
                        .lanes(c),
                )?
                .execute(block)
        };
        let Some(outer) = &self.outer else {
            let (work, message) = buf.split_at_mut(block_len);
            if self.mode == Mode::Resident {
                input.read_rows(0, cols.clone(), message)?;
                tick(1, rows)?;
            }
            for k in 0..1usize << r {
                if self.mode == Mode::Resident {
                    work.copy_from_slice(message);
                } else {
                    input.read_rows(0, cols.clone(), work)?;
                    tick(1, rows)?;
                }
                run_block(k, work)?;
                output.write_rows(k * rows, cols.clone(), work)?;
                tick(1, rows)?;
            }
            return Ok(());
        };
        // Pass 1: the top layers over the runs, tile by tile.
        let (runs, outer_rows, t) = (1usize << l, 1usize << (r + l), self.tile);
        for t0 in (0..rows).step_by(t) {
            let tile = &mut buf[..outer_rows * t * c];
            for (i1, run) in tile[..runs * t * c].chunks_exact_mut(t * c).enumerate() {
                input.read_rows(i1 * rows + t0, cols.clone(), run)?;
            }
            tick(1, runs * t)?;
            outer.execute(tile)?;
            for (u, run) in tile.chunks_exact(t * c).enumerate() {
                output.write_rows(u * rows + t0, cols.clone(), run)?;
            }
            tick(1, outer_rows * t)?;
        }
        // Pass 2: the bottom layers, block by block, in place.
        for u in 0..outer_rows {
            let block = &mut buf[..block_len];
            output.read_rows(u * rows, cols.clone(), block)?;
            tick(2, rows)?;
            run_block(u, block)?;
            output.write_rows(u * rows, cols.clone(), block)?;
            tick(2, rows)?;
        }
        Ok(())
    }
}

/// The shift of block `u` of 2^low rows: s + Σ_j bit_j(u)·b_(low+j).
fn block_shift<F: BinaryField>(shift: F, basis: &[F], low: u32, u: usize) -> F {
    basis[low as usize..]
        .iter()
        .enumerate()
        .filter(|(j, _)| (u >> j) & 1 == 1)
        .fold(shift, |acc, (_, b)| acc + *b)
}

impl<F: Kernels + BinaryField> fmt::Display for OutOfCoreEncode<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (d, r, l) = (self.log_d, self.r, self.l);
        let mib = |b: usize| b as f64 / f64::from(1 << 20);
        writeln!(
            f,
            "out-of-core  {}\ncolumns    {}..{} of {}: n = 2^{d} → 2^{} rows",
            self.spec.describe(),
            self.columns.start,
            self.columns.end,
            self.spec.lane_count(),
            d + r,
        )?;
        writeln!(
            f,
            "budget     {} bytes ({:.1} MiB) resident: one buffer of {:.1} MiB, staging {:.1} MiB",
            self.budget,
            mib(self.budget),
            mib(self.buffer_bytes()),
            mib(2 * self.staging)
        )?;
        let blocks = 1usize << (r + l);
        match self.mode {
            Mode::Resident | Mode::Reread => writeln!(
                f,
                "pass 1     {blocks} blocks of 2^{d} rows: the message ({}), the 2^{d}-point NTT with the block's shift s + Σ bit_j(k)·b_({d}+j)",
                if self.mode == Mode::Resident {
                    "read once, kept resident"
                } else {
                    "read again per block"
                }
            )?,
            Mode::TwoPass => {
                writeln!(
                    f,
                    "pass 1     tiles of {} rows × {} runs (stride 2^{}): layers {}…{} (an encode 2^{l} → 2^{}, the whole transform's twiddles); rows u·2^{} + i₂ of the output",
                    self.tile,
                    1usize << l,
                    d - l,
                    r + 1,
                    r + l,
                    r + l,
                    d - l
                )?;
                writeln!(
                    f,
                    "pass 2     {blocks} blocks of 2^{} rows, in place: the 2^{}-point NTT with the block's shift s + Σ bit_j(u)·b_({}+j)",
                    d - l,
                    d - l,
                    d - l
                )?;
            }
        }
        let (reads, writes) = match self.mode {
            Mode::Resident => ("n", "m"),
            Mode::Reread => ("m", "m"),
            Mode::TwoPass => ("n + m", "2m"),
        };
        writeln!(
            f,
            "disk       {} pass{}: reads {reads}, writes {writes} rows (n = 2^{d}, m = 2^{}) = {:.2} sweeps of (input read + output write)",
            self.passes(),
            if self.passes() == 1 { "" } else { "es" },
            d + r,
            self.disk_sweeps()
        )?;
        match &self.outer {
            Some(outer) => write!(
                f,
                "-- pass 1 --\n{outer}\n-- pass 2 (block 0) --\n{}",
                self.block
            ),
            None => write!(f, "-- pass 1 (block 0) --\n{}", self.block),
        }
    }
}

impl<F: Kernels + BinaryField> fmt::Debug for OutOfCoreEncode<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OutOfCoreEncode")
            .field("spec", &self.spec)
            .field("columns", &self.columns)
            .field("budget", &self.budget)
            .field("mode", &self.mode)
            .field("log_d", &self.log_d)
            .field("l", &self.l)
            .field("tile", &self.tile)
            .finish()
    }
}

//! Coset LDEs of traces larger than memory: the input and the output live
//! in files (or in any [`RowSource`] / [`RowStore`] of the caller's), and
//! the run keeps at most a **resident budget** of the caller's choosing in
//! memory.
//!
//! The LDE of n = n₁·n₂ rows to m = 2^r·n rows (natural order, shift g) runs
//! as three passes, each a stream over the files, each built from the
//! in-memory plans (the four-step decomposition, on both sides of the
//! coefficients):
//!
//! ```text
//!   pass 1  tiles of rows i₂ ∈ [t, t+w) of every run i₁ (rows i₁·n₂ + i₂):
//!           inverse DFT of size n₁ over i₁ (lanes w × columns), times
//!           ω_n^(−i₂·k₁); rows k₁·n₂ + i₂ of the output file
//!   pass 2  blocks k₁ = n₁−1 … 0 of n₂ rows: an in-memory coset LDE of size
//!           n₂ (shift g^n₁) gives 2^r·n₂ rows, row j times (g·ω_m^j)^k₁;
//!           rows k₁·2^r·n₂ + j of the output file (last block first, so
//!           each write lands on rows already read)
//!   pass 3  tiles of rows j ∈ [t, t+w) of every block k₁: DFT of size n₁
//!           over k₁, in place: row u₁·2^r·n₂ + j is output row j + 2^r·n₂·u₁
//! ```
//!
//! Disk traffic: pass 1 reads the input and writes n rows, pass 2 reads n and
//! writes m, pass 3 reads and writes m: reads 2n + m, writes n + 2m rows,
//! against n + m for one read of the input and one write of the output. When
//! 2^r·n rows fit in the budget, one pass does it all (read n, write m).
//! Field arithmetic is exact, so the output is bit-identical to the
//! in-memory [`LdePlan`]'s, whatever the budget and thread count.
//!
//! Shards: [`OutOfCore::columns`] plans the LDE of a range of the files'
//! columns; workers that run disjoint ranges (on one machine or many, with
//! the caller's own scheduler) write disjoint bytes of one output file, and
//! the pieces are the whole. The plan is deterministic and prints as text
//! ([`fmt::Display`]), so every worker can check it runs the same plan.
//!
//! File format: row-major, each element its canonical value in
//! [`FileElement::BYTES`] little-endian bytes.
//!
//! ```
//! use nttfuse::prelude::*;
//! use nttfuse::out_of_core::{MemRows, OutOfCore};
//! let spec = Transform::<BabyBear>::coset_lde(10, LogBlowup(1)).shift(BabyBear::new(7)).lanes(4);
//! // 16 KiB of trace, 32 KiB of LDE, 12 KiB resident: three passes.
//! let ooc = OutOfCore::new(12 << 10).planner(Planner::new().threads(Threads::Count(1))).plan(&spec)?;
//! assert_eq!(ooc.passes(), 3);
//! let trace: Vec<BabyBear> = (0..4096u32).map(BabyBear::new).collect();
//! let mut out = vec![BabyBear::ZERO; 8192];
//! ooc.run(&mut MemRows::new(&trace[..], 4), &mut MemRows::new(&mut out[..], 4))?;
//! let lde = Planner::new().plan(&spec)?;
//! let mut expected = vec![BabyBear::ZERO; lde.len()];
//! lde.execute_from(&trace, &mut expected)?;
//! assert_eq!(out, expected);
//! # Ok::<(), nttfuse::Error>(())
//! ```

use crate::backend::Kernels;
use crate::error::Error;
use crate::field::{BabyBear, Field, Gf2_64, Goldilocks, KoalaBear, TwoAdicField};
use crate::plan::{LdePlan, Plan, Planner, Threads};
use crate::transform::{CosetLde, Order, Transform};
use std::fmt;
use std::format;
use std::fs::File;
use std::ops::{ControlFlow, Range};
use std::path::Path;
use std::string::{String, ToString};
use std::vec::Vec;

/// The binary-field encode out of core (its module doc explains the passes).
pub mod encode;
pub use encode::OutOfCoreEncode;

/// A field element as stored in files: its canonical value in `BYTES`
/// little-endian bytes.
pub trait FileElement: Field {
    /// Bytes per element.
    const BYTES: usize;
    /// Writes the canonical value into `out` (`BYTES` bytes).
    fn put(self, out: &mut [u8]);
    /// The element stored in `bytes` (`BYTES` bytes), `None` when they hold
    /// no canonical value.
    fn get(bytes: &[u8]) -> Option<Self>;
}

macro_rules! file_element {
    ($field:ty, $word:ty) => {
        impl FileElement for $field {
            const BYTES: usize = core::mem::size_of::<$word>();
            fn put(self, out: &mut [u8]) {
                out.copy_from_slice(&<$word>::from(self).to_le_bytes());
            }
            fn get(bytes: &[u8]) -> Option<Self> {
                let word = <$word>::from_le_bytes(bytes.try_into().ok()?);
                <$field>::try_from(word).ok()
            }
        }
    };
}
file_element!(BabyBear, u32);
file_element!(KoalaBear, u32);
file_element!(Goldilocks, u64);

impl FileElement for Gf2_64 {
    const BYTES: usize = 8;
    fn put(self, out: &mut [u8]) {
        out.copy_from_slice(&self.value().to_le_bytes());
    }
    fn get(bytes: &[u8]) -> Option<Self> {
        Some(Gf2_64::new(u64::from_le_bytes(bytes.try_into().ok()?)))
    }
}

/// Rows of a row-major matrix that a run reads: the input of an
/// out-of-core LDE (a file, a caller's tiles, memory).
pub trait RowSource<F> {
    /// Fills `out` with `out.len() / columns.len()` rows from `first_row`,
    /// columns `columns` of each.
    fn read_rows(
        &mut self,
        first_row: usize,
        columns: Range<usize>,
        out: &mut [F],
    ) -> Result<(), Error>;
}

/// Rows a run reads and writes: the output of an out-of-core LDE, which
/// also holds the passes' intermediate rows.
pub trait RowStore<F>: RowSource<F> {
    /// Writes `data` (`data.len() / columns.len()` rows) from `first_row`,
    /// into columns `columns` of each.
    fn write_rows(
        &mut self,
        first_row: usize,
        columns: Range<usize>,
        data: &[F],
    ) -> Result<(), Error>;
}

/// A matrix in memory as rows (`buf` holds rows × `columns` elements,
/// row-major): for tests, and for callers whose storage is memory they map
/// or fill themselves.
#[derive(Debug)]
pub struct MemRows<B> {
    buf: B,
    columns: usize,
}

impl<B> MemRows<B> {
    /// `buf` as rows of `columns` elements.
    pub fn new(buf: B, columns: usize) -> Self {
        MemRows { buf, columns }
    }

    /// The buffer back.
    pub fn into_inner(self) -> B {
        self.buf
    }

    /// `Ok` when `rows` rows from `first_row`, columns `columns`, lie in a
    /// buffer of `len` elements; the typed error naming them otherwise.
    fn span(
        &self,
        len: usize,
        first_row: usize,
        columns: &Range<usize>,
        rows: usize,
    ) -> Result<(), Error> {
        let end = (first_row + rows) * self.columns;
        if columns.end > self.columns || end > len {
            return Err(Error::Io {
                file: "memory".into(),
                offset: (end.min(len)) as u64,
                reason: format!(
                    "rows {first_row}..{} columns {columns:?} are beyond {} rows of {} columns",
                    first_row + rows,
                    len / self.columns.max(1),
                    self.columns
                ),
            });
        }
        Ok(())
    }
}

impl<F: Copy, B: AsRef<[F]>> RowSource<F> for MemRows<B> {
    fn read_rows(
        &mut self,
        first_row: usize,
        columns: Range<usize>,
        out: &mut [F],
    ) -> Result<(), Error> {
        let width = columns.len();
        let rows = out.len() / width;
        let buf = self.buf.as_ref();
        self.span(buf.len(), first_row, &columns, rows)?;
        for (r, row) in out.chunks_exact_mut(width).enumerate() {
            let at = (first_row + r) * self.columns + columns.start;
            row.copy_from_slice(&buf[at..at + width]);
        }
        Ok(())
    }
}

impl<F: Copy, B: AsRef<[F]> + AsMut<[F]>> RowStore<F> for MemRows<B> {
    fn write_rows(
        &mut self,
        first_row: usize,
        columns: Range<usize>,
        data: &[F],
    ) -> Result<(), Error> {
        let width = columns.len();
        let rows = data.len() / width;
        let len = self.buf.as_ref().len();
        self.span(len, first_row, &columns, rows)?;
        let stride = self.columns;
        let buf = self.buf.as_mut();
        for (r, row) in data.chunks_exact(width).enumerate() {
            let at = (first_row + r) * stride + columns.start;
            buf[at..at + width].copy_from_slice(row);
        }
        Ok(())
    }
}

/// Bytes a file access moves through its staging buffer at most.
const STAGING_BYTES: usize = 4 << 20;

/// A file as rows of `columns` elements ([`FileElement`] format), read and
/// written with positioned I/O (`pread`/`pwrite`: nothing is mapped, so
/// the file's pages never count in the process's resident memory).
#[derive(Debug)]
pub struct FileRows<'a> {
    file: &'a File,
    name: String,
    columns: usize,
    staging: Vec<u8>,
    staging_limit: usize,
}

impl<'a> FileRows<'a> {
    /// `file` (named `name` in errors) as rows of `columns` elements.
    pub fn new(file: &'a File, name: impl Into<String>, columns: usize) -> Self {
        FileRows {
            file,
            name: name.into(),
            columns,
            staging: Vec::new(),
            staging_limit: STAGING_BYTES,
        }
    }

    /// Moves at most `bytes` per access through the staging buffer
    /// (default 4 MiB): the buffer is part of the resident memory.
    pub fn staging(mut self, bytes: usize) -> Self {
        self.staging_limit = bytes.max(1);
        self
    }

    fn error(&self, offset: u64, reason: impl ToString) -> Error {
        Error::Io {
            file: self.name.clone(),
            offset,
            reason: reason.to_string(),
        }
    }

    /// Runs `f(row, rows, staging bytes, byte offsets per row)` over `rows`
    /// rows from `first_row` in chunks that fit the staging buffer: a
    /// chunk is one contiguous byte range when the columns are whole rows.
    fn chunks<T: FileElement>(
        &mut self,
        first_row: usize,
        columns: &Range<usize>,
        rows: usize,
        mut f: impl FnMut(&mut Self, usize, usize) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let row_bytes = columns.len() * T::BYTES;
        let per_chunk = (self.staging_limit / row_bytes.max(1)).max(1);
        if self.staging.len() < per_chunk.min(rows) * row_bytes {
            self.staging.resize(per_chunk.min(rows) * row_bytes, 0);
        }
        let mut done = 0;
        while done < rows {
            let n = per_chunk.min(rows - done);
            f(self, first_row + done, n)?;
            done += n;
        }
        Ok(())
    }

    /// Byte offset of `row`, column `column`.
    fn offset<T: FileElement>(&self, row: usize, column: usize) -> u64 {
        ((row * self.columns + column) * T::BYTES) as u64
    }
}

#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}
#[cfg(unix)]
fn write_at(file: &File, buf: &[u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(file, buf, offset)
}
#[cfg(windows)]
fn read_at(file: &File, mut buf: &mut [u8], mut offset: u64) -> std::io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !buf.is_empty() {
        match file.seek_read(buf, offset)? {
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            n => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
        }
    }
    Ok(())
}
#[cfg(windows)]
fn write_at(file: &File, mut buf: &[u8], mut offset: u64) -> std::io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !buf.is_empty() {
        match file.seek_write(buf, offset)? {
            0 => return Err(std::io::ErrorKind::WriteZero.into()),
            n => {
                buf = &buf[n..];
                offset += n as u64;
            }
        }
    }
    Ok(())
}

impl<T: FileElement> RowSource<T> for FileRows<'_> {
    fn read_rows(
        &mut self,
        first_row: usize,
        columns: Range<usize>,
        out: &mut [T],
    ) -> Result<(), Error> {
        let width = columns.len();
        let rows = out.len() / width;
        let whole = columns.start == 0 && width == self.columns;
        let row_bytes = width * T::BYTES;
        self.chunks::<T>(first_row, &columns, rows, |this, row, n| {
            let bytes = n * row_bytes;
            let mut staging = core::mem::take(&mut this.staging);
            let result = (|| {
                if whole {
                    let at = this.offset::<T>(row, 0);
                    read_at(this.file, &mut staging[..bytes], at).map_err(|e| this.error(at, e))?;
                } else {
                    for r in 0..n {
                        let at = this.offset::<T>(row + r, columns.start);
                        read_at(
                            this.file,
                            &mut staging[r * row_bytes..(r + 1) * row_bytes],
                            at,
                        )
                        .map_err(|e| this.error(at, e))?;
                    }
                }
                let out = &mut out[(row - first_row) * width..][..n * width];
                decode(&staging[..bytes], out).map_err(|i| {
                    let (r, c) = (i / width, i % width);
                    this.error(
                        this.offset::<T>(row + r, columns.start + c),
                        format!("not a canonical {} element", T::NAME),
                    )
                })?;
                Ok(())
            })();
            this.staging = staging;
            result
        })
    }
}

impl<T: FileElement> RowStore<T> for FileRows<'_> {
    fn write_rows(
        &mut self,
        first_row: usize,
        columns: Range<usize>,
        data: &[T],
    ) -> Result<(), Error> {
        let width = columns.len();
        let rows = data.len() / width;
        let whole = columns.start == 0 && width == self.columns;
        let row_bytes = width * T::BYTES;
        self.chunks::<T>(first_row, &columns, rows, |this, row, n| {
            let data = &data[(row - first_row) * width..][..n * width];
            let mut staging = core::mem::take(&mut this.staging);
            encode(data, &mut staging[..n * row_bytes]);
            let result = (|| {
                if whole {
                    let at = this.offset::<T>(row, 0);
                    write_at(this.file, &staging[..n * row_bytes], at)
                        .map_err(|e| this.error(at, e))
                } else {
                    for r in 0..n {
                        let at = this.offset::<T>(row + r, columns.start);
                        write_at(this.file, &staging[r * row_bytes..(r + 1) * row_bytes], at)
                            .map_err(|e| this.error(at, e))?;
                    }
                    Ok(())
                }
            })();
            this.staging = staging;
            result
        })
    }
}

/// Elements per parallel piece of a conversion.
const CONVERT_PIECE: usize = 16 << 10;

/// `out[i]` = the element in `bytes[i·BYTES..]`, converted on all threads;
/// the index of a word that is not canonical otherwise.
fn decode<T: FileElement>(bytes: &[u8], out: &mut [T]) -> Result<(), usize> {
    use rayon::prelude::*;
    out.par_chunks_mut(CONVERT_PIECE)
        .zip(bytes.par_chunks(CONVERT_PIECE * T::BYTES))
        .enumerate()
        .try_for_each(|(piece, (out, bytes))| {
            for (i, (x, b)) in out.iter_mut().zip(bytes.chunks_exact(T::BYTES)).enumerate() {
                *x = T::get(b).ok_or(piece * CONVERT_PIECE + i)?;
            }
            Ok(())
        })
}

/// `bytes[i·BYTES..]` = element `data[i]`, converted on all threads.
fn encode<T: FileElement>(data: &[T], bytes: &mut [u8]) {
    use rayon::prelude::*;
    data.par_chunks(CONVERT_PIECE)
        .zip(bytes.par_chunks_mut(CONVERT_PIECE * T::BYTES))
        .for_each(|(data, bytes)| {
            for (x, b) in data.iter().zip(bytes.chunks_exact_mut(T::BYTES)) {
                x.put(b);
            }
        });
}

/// Where a run is, for a progress display (and to stop it: return
/// `ControlFlow::Break` from the callback).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// The pass running (1-based).
    pub pass: usize,
    /// Passes of the plan.
    pub passes: usize,
    /// Bytes read and written so far, all passes.
    pub bytes_done: u64,
    /// Bytes the whole run reads and writes.
    pub bytes_total: u64,
}

/// Plans out-of-core LDEs: a [`Planner`] for the in-memory plans each pass
/// runs, a resident-memory budget and, for a shard, a range of columns.
#[derive(Clone, Debug)]
pub struct OutOfCore {
    planner: Planner,
    budget: usize,
    columns: Option<Range<usize>>,
    coset: Option<usize>,
}

impl OutOfCore {
    /// Plans that keep at most `budget` bytes resident for their buffers,
    /// tables and staging (the process's own code and the thread pool come
    /// on top: a few MiB).
    pub fn new(budget: usize) -> Self {
        OutOfCore {
            planner: Planner::new(),
            budget,
            columns: None,
            coset: None,
        }
    }

    /// The planner (backend, threads, cache budgets) for the passes'
    /// in-memory plans.
    pub fn planner(mut self, planner: Planner) -> Self {
        self.planner = planner;
        self
    }

    /// A shard: only columns `columns` of the files (whose rows have the
    /// spec's `lanes` columns).
    pub fn columns(mut self, columns: Range<usize>) -> Self {
        self.columns = Some(columns);
        self
    }

    /// A shard: only coset `index` of the LDE's domain. The m = 2^r·n
    /// points g·ω_m^j split into 2^r cosets of n points, coset c holding
    /// j ≡ c (mod 2^r), that is g·ω_m^c·⟨ω_n⟩; its n output rows are the
    /// full LDE's rows c, c + 2^r, c + 2·2^r, … The shard is planned as the
    /// LDE with no blowup and shift g·ω_m^c (what the plan prints), so a
    /// worker's output file holds n rows, and workers running the 2^r
    /// cosets (with or without a column range) together hold the whole
    /// LDE. An index ≥ 2^r is refused when planning.
    ///
    /// ```
    /// use nttfuse::prelude::*;
    /// use nttfuse::out_of_core::{MemRows, OutOfCore};
    /// let spec = Transform::<BabyBear>::coset_lde(8, LogBlowup(2)).lanes(2);
    /// let trace: Vec<BabyBear> = (0..512u32).map(BabyBear::new).collect();
    /// let lde = Planner::new().plan(&spec)?;
    /// let mut whole = vec![BabyBear::ZERO; lde.len()];
    /// lde.execute_from(&trace, &mut whole)?;
    /// let shard = OutOfCore::new(1 << 20).coset(3).plan(&spec)?;
    /// let mut rows = vec![BabyBear::ZERO; 512];
    /// shard.run(&mut MemRows::new(&trace[..], 2), &mut MemRows::new(&mut rows[..], 2))?;
    /// for (t, row) in rows.chunks_exact(2).enumerate() {
    ///     let j = 3 + 4 * t;
    ///     assert_eq!(row, &whole[2 * j..2 * j + 2]);
    /// }
    /// # Ok::<(), nttfuse::Error>(())
    /// ```
    pub fn coset(mut self, index: usize) -> Self {
        self.coset = Some(index);
        self
    }

    /// Plans the coset LDE `spec` (natural order) out of core.
    pub fn plan<F: Kernels + TwoAdicField>(
        &self,
        spec: &CosetLde<F>,
    ) -> Result<OutOfCoreLde<F>, Error> {
        if spec.pruned_bits() > 0 {
            return Err(Error::Unsupported {
                what: "an out-of-core coset LDE that is pruned (plan the LDE at the blowup kept)",
            });
        }
        match self.coset {
            None => OutOfCoreLde::new(self, spec),
            Some(c) => OutOfCoreLde::new(self, &coset_shard(spec, c)?),
        }
    }
}

/// Coset `c` of `spec`'s domain as an LDE of its own: no blowup, shift
/// g·ω_m^c (see [`OutOfCore::coset`]).
fn coset_shard<F: TwoAdicField>(spec: &CosetLde<F>, c: usize) -> Result<CosetLde<F>, Error> {
    let (log_n, r) = (spec.log_n(), spec.log_blowup().0);
    if r >= usize::BITS || c >> r != 0 {
        return Err(Error::Unsupported {
            what: "a coset index at or beyond the LDE's 2^blowup cosets",
        });
    }
    let log_m = (log_n + r) as usize;
    let omega = F::two_adic_generator(log_m).ok_or(Error::SizeTooLarge {
        field: F::NAME,
        log_n: log_m as u32,
        max_log_n: F::TWO_ADICITY as u32,
    })?;
    Ok(
        Transform::<F>::coset_lde(log_n, crate::transform::LogBlowup(0))
            .shift(spec.coset_shift() * omega.pow(c as u64))
            .lanes(spec.lane_count())
            .order(spec.evaluation_order()),
    )
}

/// An out-of-core coset LDE: three streaming passes (or one when the
/// output fits the budget), see the [module doc](self).
pub struct OutOfCoreLde<F: Kernels> {
    spec: CosetLde<F>,
    columns: Range<usize>,
    budget: usize,
    /// Bytes of each file's staging buffer.
    staging: usize,
    threads: Threads,
    log_n1: u32,
    log_n2: u32,
    /// Rows per run of pass 1's and pass 3's tiles.
    tile1: usize,
    tile3: usize,
    /// Pass 1's inverse DFT and pass 3's DFT over the n₁ runs (`None` in
    /// one pass).
    outer: Option<(Plan<F>, Plan<F>)>,
    /// Pass 2's in-memory LDE of n₂ rows.
    inner: LdePlan<F>,
    /// Elements of the one resident buffer.
    buffer_len: usize,
}

impl<F: Kernels + TwoAdicField> OutOfCoreLde<F> {
    fn new(settings: &OutOfCore, spec: &CosetLde<F>) -> Result<Self, Error> {
        if spec.evaluation_order() != Order::Natural {
            return Err(Error::Unsupported {
                what: "an out-of-core LDE in bit-reversed order (it writes natural order)",
            });
        }
        spec.output_len()?;
        let width = spec.lane_count();
        let columns = settings.columns.clone().unwrap_or(0..width);
        if columns.is_empty() || columns.end > width {
            return Err(Error::Unsupported {
                what: "a column range that is empty or beyond the spec's lanes",
            });
        }
        let c = columns.len();
        let (log_n, r) = (spec.log_n(), spec.log_blowup().0);
        let size = core::mem::size_of::<F>();
        let staging = staging_bytes(settings.budget);
        let workers = settings.planner.thread_setting().workers().max(1);
        let budget = settings.budget;
        // The largest block of 2^log_n2 rows whose buffer, plans' tables,
        // per-thread scratch and the two staging buffers fit the budget.
        let mut smallest = usize::MAX;
        for log_n2 in (0..=log_n).rev() {
            let buffer_len = (c << log_n2) << r;
            let fixed = 2 * staging + buffer_len * size;
            if fixed > budget {
                continue;
            }
            let log_n1 = log_n - log_n2;
            let (n1, n2) = (1usize << log_n1, 1usize << log_n2);
            let inner = inner_plan(settings, spec, log_n1, log_n2, c)?;
            let mut extra =
                inner.scratch_len() * workers * size + tables_bytes::<F>(inner.len() / c);
            let outer = if log_n1 == 0 {
                None
            } else {
                let tile = |cap: usize| (1usize << (buffer_len / (n1 * c)).max(1).ilog2()).min(cap);
                let (tile1, tile3) = (tile(n2), tile(n2 << r));
                if n1 * c > buffer_len {
                    smallest = smallest.min(2 * staging + n1 * c * size);
                    continue;
                }
                let first = settings
                    .planner
                    .plan(&Transform::<F>::idft(log_n1).lanes(tile1 * c))?;
                let last = settings
                    .planner
                    .plan(&Transform::<F>::dft(log_n1).lanes(tile3 * c))?;
                extra += (first.scratch_len() + last.scratch_len()) * workers * size
                    + 2 * tables_bytes::<F>(n1);
                Some((tile1, tile3, first, last))
            };
            if fixed + extra > budget {
                smallest = smallest.min(fixed + extra);
                continue;
            }
            let (tile1, tile3, outer) = match outer {
                Some((t1, t3, first, last)) => (t1, t3, Some((first, last))),
                None => (0, 0, None),
            };
            return Ok(OutOfCoreLde {
                spec: spec.clone(),
                columns,
                budget,
                staging,
                threads: settings.planner.thread_setting(),
                log_n1,
                log_n2,
                tile1,
                tile3,
                outer,
                inner,
                buffer_len,
            });
        }
        Err(Error::BudgetTooSmall {
            budget,
            needed: smallest.min(2 * staging + ((2 * c) << r) * size),
        })
    }

    /// Reads a plan back from its text ([`fmt::Display`]): the spec, the
    /// columns and the budget from the first lines, the planner's settings
    /// from the first in-memory plan's text; plans again and accepts only
    /// the very same text (else [`Error::PlanText`]), so every worker of a
    /// sharded run can check it runs the plan it was handed.
    pub fn from_text(text: &str) -> Result<Self, Error>
    where
        F: FileElement,
    {
        let lines: Vec<&str> = text.trim_end().lines().collect();
        let head = lines
            .first()
            .and_then(|l| l.strip_prefix("out-of-core coset LDE  "))
            .ok_or_else(|| text_error(1, "not an out-of-core LDE plan"))?;
        let number = |s: &str| number(s, 1);
        // "{NAME}, n = 2^{a} → 2^{b} rows, shift {s}, columns {c0}..{c1} of {w}"
        let parts: Vec<&str> = head.split(", ").collect();
        let [name, sizes, shift, columns] = parts[..] else {
            return Err(text_error(1, "the header has four parts"));
        };
        if name != F::NAME {
            return Err(text_error(1, "the plan is for another field"));
        }
        let (log_n, log_m) = sizes
            .strip_prefix("n = 2^")
            .and_then(|s| s.strip_suffix(" rows"))
            .and_then(|s| s.split_once(" → 2^"))
            .ok_or_else(|| text_error(1, "sizes"))?;
        let (log_n, log_m) = (number(log_n)? as u32, number(log_m)? as u32);
        let shift = number(
            shift
                .strip_prefix("shift ")
                .ok_or_else(|| text_error(1, "shift"))?,
        )?;
        let (columns, width) = read_columns(columns.strip_prefix("columns "), 1)?;
        let budget = read_budget(&lines, 1)?;
        // The planner's settings: the first in-memory plan's.
        let first = lines
            .iter()
            .position(|l| l.starts_with("transform  "))
            .ok_or_else(|| text_error(lines.len(), "no in-memory plan"))?;
        let planner = read_planner::<F>(&lines, first)?;
        if log_m < log_n {
            return Err(text_error(1, "sizes"));
        }
        let spec = Transform::<F>::coset_lde(log_n, crate::transform::LogBlowup(log_m - log_n))
            .shift(F::from_u64(shift))
            .lanes(width);
        let plan = OutOfCore::new(budget)
            .planner(planner)
            .columns(columns)
            .plan(&spec)?;
        same_text(&plan.to_string(), text)?;
        Ok(plan)
    }

    /// The spec (its `lanes` are the files' columns).
    pub fn transform(&self) -> &CosetLde<F> {
        &self.spec
    }

    /// The files' columns this plan transforms.
    pub fn column_range(&self) -> Range<usize> {
        self.columns.clone()
    }

    /// Passes over the files: 1 when the output fits the budget, else 3.
    pub fn passes(&self) -> usize {
        if self.outer.is_some() {
            3
        } else {
            1
        }
    }

    /// Rows of the input (2^log_n).
    pub fn input_rows(&self) -> usize {
        1 << self.spec.log_n()
    }

    /// Rows of the output (2^(log_n + log_blowup)).
    pub fn output_rows(&self) -> usize {
        self.input_rows() << self.spec.log_blowup().0
    }

    /// Bytes the run reads and writes, all passes (of this plan's columns).
    pub fn io_bytes(&self) -> u64
    where
        F: FileElement,
    {
        let (n, m) = (self.input_rows() as u64, self.output_rows() as u64);
        let rows = if self.outer.is_some() {
            3 * n + 3 * m
        } else {
            n + m
        };
        rows * (self.columns.len() * F::BYTES) as u64
    }

    /// Disk sweeps: bytes moved ÷ (one read of the input + one write of
    /// the output).
    pub fn disk_sweeps(&self) -> f64 {
        let (n, m) = (self.input_rows() as f64, self.output_rows() as f64);
        if self.outer.is_some() {
            (3.0 * n + 3.0 * m) / (n + m)
        } else {
            1.0
        }
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

    /// The in-memory plans the passes run: pass 1's inverse DFT, pass 2's
    /// LDE, pass 3's DFT (only the LDE in one pass).
    pub fn plans(&self) -> (Option<&Plan<F>>, &LdePlan<F>, Option<&Plan<F>>) {
        match &self.outer {
            Some((first, last)) => (Some(first), &self.inner, Some(last)),
            None => (None, &self.inner, None),
        }
    }

    /// Runs the LDE from `input` into `output` (rows of the spec's `lanes`
    /// columns; this plan's columns of them).
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
    /// and runs the LDE between them. A short input is an error before any
    /// work.
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
        let (log_n1, log_n2, r) = (self.log_n1, self.log_n2, self.spec.log_blowup().0);
        let (n1, n2) = (1usize << log_n1, 1usize << log_n2);
        let block_out = n2 << r;
        let Some((first, last)) = &self.outer else {
            input.read_rows(0, cols.clone(), &mut buf[..n2 * c])?;
            tick(1, n2)?;
            self.inner.execute(&mut buf)?;
            output.write_rows(0, cols, &buf)?;
            return tick(1, block_out);
        };
        let log_n = self.spec.log_n();
        let log_m = log_n + r;
        let root = |bits: u32| F::two_adic_generator(bits as usize).expect("validated by the spec");
        let parallel = self.threads != Threads::Count(1);
        // Pass 1: inverse DFT over the runs, then the four-step twiddles.
        let w_inv = root(log_n).inverse().expect("a root of unity is nonzero");
        let t = self.tile1;
        for t0 in (0..n2).step_by(t) {
            let tile = &mut buf[..n1 * t * c];
            for (i1, run) in tile.chunks_exact_mut(t * c).enumerate() {
                input.read_rows(i1 * n2 + t0, cols.clone(), run)?;
            }
            tick(1, n1 * t)?;
            first.execute(tile)?;
            crate::par::for_each_chunk(parallel, tile, t * c, |(k1, run)| {
                let step = w_inv.pow(k1 as u64);
                scale_rows(run, c, step.pow(t0 as u64), step);
            });
            for (k1, run) in tile.chunks_exact(t * c).enumerate() {
                output.write_rows(k1 * n2 + t0, cols.clone(), run)?;
            }
            tick(1, n1 * t)?;
        }
        // Pass 2: each block's LDE, last block first.
        let (g, w_m) = (self.spec.coset_shift(), root(log_m));
        for k1 in (0..n1).rev() {
            output.read_rows(k1 * n2, cols.clone(), &mut buf[..n2 * c])?;
            tick(2, n2)?;
            self.inner.execute(&mut buf)?;
            if k1 > 0 {
                let (start, step) = (g.pow(k1 as u64), w_m.pow(k1 as u64));
                let per = (block_out / self.threads.workers().max(1)).max(1);
                crate::par::for_each_chunk(parallel, &mut buf, per * c, |(i, rows)| {
                    scale_rows(rows, c, start * step.pow((i * per) as u64), step);
                });
            }
            output.write_rows(k1 * block_out, cols.clone(), &buf)?;
            tick(2, block_out)?;
        }
        // Pass 3: DFT over the blocks, in place.
        let t = self.tile3;
        for t0 in (0..block_out).step_by(t) {
            let tile = &mut buf[..n1 * t * c];
            for (k1, run) in tile.chunks_exact_mut(t * c).enumerate() {
                output.read_rows(k1 * block_out + t0, cols.clone(), run)?;
            }
            tick(3, n1 * t)?;
            last.execute(tile)?;
            for (u1, run) in tile.chunks_exact(t * c).enumerate() {
                output.write_rows(u1 * block_out + t0, cols.clone(), run)?;
            }
            tick(3, n1 * t)?;
        }
        Ok(())
    }
}

/// The two files of a file-to-file run: the input opened read only and
/// checked long enough, the output created and grown (never truncated, so
/// shards can share it).
struct Files {
    source: File,
    sink: File,
    input_name: String,
    output_name: String,
}

impl Files {
    /// Flushes the output to the disk.
    fn sync(&self) -> Result<(), Error> {
        self.sink.sync_data().map_err(|e| Error::Io {
            file: self.output_name.clone(),
            offset: 0,
            reason: e.to_string(),
        })
    }
}

/// Opens a run's files: `input` must hold `input_rows` rows of `width`
/// elements (a shorter one is an error naming where it ends), `output` is
/// grown to `output_rows` rows if shorter.
fn open_files<T: FileElement>(
    input: &Path,
    output: &Path,
    width: usize,
    input_rows: usize,
    output_rows: usize,
) -> Result<Files, Error> {
    let name = |p: &Path| p.display().to_string();
    let io = |p: &Path, offset: u64, e: std::io::Error| Error::Io {
        file: name(p),
        offset,
        reason: e.to_string(),
    };
    let source = File::open(input).map_err(|e| io(input, 0, e))?;
    let have = source.metadata().map_err(|e| io(input, 0, e))?.len();
    let need = (input_rows * width * T::BYTES) as u64;
    if have < need {
        return Err(Error::Io {
            file: name(input),
            offset: have,
            reason: format!(
                "the file ends at byte {have}; the plan reads {need} ({input_rows} rows of {width} {} elements)",
                T::NAME
            ),
        });
    }
    let sink = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(output)
        .map_err(|e| io(output, 0, e))?;
    let out_bytes = (output_rows * width * T::BYTES) as u64;
    let len = sink.metadata().map_err(|e| io(output, 0, e))?.len();
    if len < out_bytes {
        sink.set_len(out_bytes).map_err(|e| io(output, len, e))?;
    }
    Ok(Files {
        source,
        sink,
        input_name: name(input),
        output_name: name(output),
    })
}

/// Multiplies row i of `rows` (rows of `c` elements) by start·step^i.
fn scale_rows<F: Field>(rows: &mut [F], c: usize, start: F, step: F) {
    let mut factor = start;
    for row in rows.chunks_exact_mut(c) {
        let w = F::prepare_twiddle(factor);
        for x in row {
            *x = x.mul_twiddle(w);
        }
        factor *= step;
    }
}

/// Pass 2's in-memory LDE: 2^log_n2 rows, the spec's blowup, shift g^n₁.
fn inner_plan<F: Kernels + TwoAdicField>(
    settings: &OutOfCore,
    spec: &CosetLde<F>,
    log_n1: u32,
    log_n2: u32,
    c: usize,
) -> Result<LdePlan<F>, Error> {
    settings.planner.plan(
        &Transform::<F>::coset_lde(log_n2, spec.log_blowup())
            .shift(spec.coset_shift().pow(1u64 << log_n1))
            .lanes(c),
    )
}

/// Resident bytes of a plan's tables for `rows` rows (twiddles in kernel
/// order, about two elements per row, counted twice for slack).
fn tables_bytes<F>(rows: usize) -> usize {
    4 * rows * core::mem::size_of::<F>()
}

/// The progress callback of a run as `tick(pass, rows)`: counts the rows'
/// bytes and turns `ControlFlow::Break` into [`Error::Interrupted`].
fn ticker<'a>(
    passes: usize,
    io_bytes: u64,
    row_bytes: u64,
    progress: &'a mut impl FnMut(Progress) -> ControlFlow<()>,
) -> impl FnMut(usize, usize) -> Result<(), Error> + 'a {
    let mut state = Progress {
        pass: 1,
        passes,
        bytes_done: 0,
        bytes_total: io_bytes,
    };
    move |pass: usize, rows: usize| {
        state.pass = pass;
        state.bytes_done += rows as u64 * row_bytes;
        match progress(state) {
            ControlFlow::Continue(()) => Ok(()),
            ControlFlow::Break(()) => Err(Error::Interrupted { pass, passes }),
        }
    }
}

/// The resident buffer of `len` elements, or [`Error::OutOfMemory`].
fn resident_buffer<F: Field>(len: usize) -> Result<Vec<F>, Error> {
    let mut buf = Vec::new();
    buf.try_reserve_exact(len).map_err(|_| Error::OutOfMemory {
        what: "the out-of-core buffer",
        bytes: len * core::mem::size_of::<F>(),
    })?;
    buf.resize(len, F::zero());
    Ok(buf)
}

/// A plan-text error on (1-based) `line`.
fn text_error(line: usize, reason: impl Into<String>) -> Error {
    Error::PlanText {
        line,
        reason: reason.into(),
    }
}

/// A number on (1-based) `line` of an out-of-core plan's text.
fn number(s: &str, line: usize) -> Result<u64, Error> {
    s.trim()
        .parse::<u64>()
        .map_err(|_| text_error(line, "a number was expected"))
}

/// "{c0}..{c1} of {w}": the shard's columns and the files' width.
fn read_columns(text: Option<&str>, line: usize) -> Result<(Range<usize>, usize), Error> {
    let (range, width) = text
        .and_then(|s| s.split_once(" of "))
        .ok_or_else(|| text_error(line, "columns"))?;
    let (c0, c1) = range
        .split_once("..")
        .ok_or_else(|| text_error(line, "columns"))?;
    let column = |s| number(s, line).map(|c| c as usize);
    Ok((column(c0)?..column(c1)?, column(width)?))
}

/// The budget from line `index` ("budget     {bytes} bytes …").
fn read_budget(lines: &[&str], index: usize) -> Result<usize, Error> {
    let budget = lines
        .get(index)
        .and_then(|l| l.strip_prefix("budget     "))
        .and_then(|l| l.split_once(" bytes"))
        .ok_or_else(|| text_error(index + 1, "the budget line"))?
        .0;
    Ok(number(budget, index + 1)? as usize)
}

/// The planner's settings (backend, threads, cache budgets) read from the
/// in-memory plan whose text starts at line `first` and runs to the next
/// "-- " section line.
fn read_planner<F: Kernels>(lines: &[&str], first: usize) -> Result<Planner, Error> {
    let end = lines[first..]
        .iter()
        .position(|l| l.starts_with("-- ") || l.starts_with("predicted: "))
        .map_or(lines.len(), |i| first + i);
    let sub = Plan::<F>::from_text(&lines[first..end].join("\n")).map_err(|e| match e {
        Error::PlanText { line, reason } => text_error(line + first, reason),
        other => other,
    })?;
    Ok(Planner::new()
        .backend(sub.backend())
        .threads(sub.threads())
        .budgets(sub.budgets()))
}

/// Accepts a plan read back only if planning again printed `text` itself.
fn same_text(again: &str, text: &str) -> Result<(), Error> {
    match again.lines().zip(text.lines()).position(|(a, b)| a != b) {
        None if again.trim_end() == text.trim_end() => Ok(()),
        at => Err(text_error(
            at.map_or(again.lines().count().min(text.lines().count()) + 1, |i| {
                i + 1
            }),
            "this build and CPU plan it differently",
        )),
    }
}

/// Each file's staging buffer under `budget`: 1/16 of it, 4 KiB to 4 MiB.
fn staging_bytes(budget: usize) -> usize {
    (budget / 16).clamp(4 << 10, STAGING_BYTES)
}

impl<F: Kernels + TwoAdicField> fmt::Display for OutOfCoreLde<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (log_n, r) = (self.spec.log_n(), self.spec.log_blowup().0);
        let mib = |b: usize| b as f64 / f64::from(1 << 20);
        writeln!(
            f,
            "out-of-core coset LDE  {}, n = 2^{log_n} → 2^{} rows, shift {}, columns {}..{} of {}",
            F::NAME,
            log_n + r,
            self.spec.coset_shift().to_canonical_u64(),
            self.columns.start,
            self.columns.end,
            self.spec.lane_count()
        )?;
        writeln!(
            f,
            "budget     {} bytes ({:.1} MiB) resident: one buffer of {:.1} MiB, staging {:.1} MiB",
            self.budget,
            mib(self.budget),
            mib(self.buffer_bytes()),
            mib(2 * self.staging)
        )?;
        let (n1, n2) = (1usize << self.log_n1, 1usize << self.log_n2);
        match &self.outer {
            None => {
                writeln!(
                    f,
                    "pass 1     the whole LDE in memory: read 2^{log_n} rows, write 2^{} rows",
                    log_n + r
                )?;
                writeln!(
                    f,
                    "disk       1 pass: reads the input once, writes the output once (1.00 sweeps)"
                )?;
                write!(f, "-- LDE --\n{}", self.inner)
            }
            Some((first, last)) => {
                writeln!(
                    f,
                    "pass 1     tiles of {} rows × {n1} runs (stride 2^{}): inverse DFT 2^{} over the runs, four-step twiddles; rows k₁·2^{} + i₂ of the output",
                    self.tile1, self.log_n2, self.log_n1, self.log_n2
                )?;
                writeln!(
                    f,
                    "pass 2     {n1} blocks of 2^{} rows, last first: in-memory LDE 2^{} → 2^{} (shift g^{n1}), row twiddles (g·ω^j)^k₁; written in place",
                    self.log_n2,
                    self.log_n2,
                    self.log_n2 + r
                )?;
                writeln!(
                    f,
                    "pass 3     tiles of {} rows × {n1} runs (stride 2^{}): DFT 2^{} over the blocks, in place",
                    self.tile3,
                    self.log_n2 + r,
                    self.log_n1
                )?;
                writeln!(
                    f,
                    "disk       3 passes: reads 2n + m, writes n + 2m rows (n = 2^{log_n}, m = 2^{}) = {:.2} sweeps of (input read + output write)",
                    log_n + r,
                    self.disk_sweeps()
                )?;
                let _ = n2;
                write!(
                    f,
                    "-- pass 1 --\n{first}\n-- pass 2 --\n{}\n-- pass 3 --\n{last}",
                    self.inner
                )
            }
        }
    }
}

impl<F: Kernels + TwoAdicField> fmt::Debug for OutOfCoreLde<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OutOfCoreLde")
            .field("spec", &self.spec)
            .field("columns", &self.columns)
            .field("budget", &self.budget)
            .field("log_n1", &self.log_n1)
            .field("log_n2", &self.log_n2)
            .field("tile1", &self.tile1)
            .field("tile3", &self.tile3)
            .finish()
    }
}

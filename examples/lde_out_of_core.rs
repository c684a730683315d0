//! A coset LDE (prime fields) or an additive Reed–Solomon encode
//! (`--field gf2_64`) of a trace larger than its memory budget, file to file.
//!
//! ```text
//! cargo run --release --example lde_out_of_core -- [--trace-mib 1024] [--budget-mib 256]
//!     [--columns 256] [--log-blowup 1] [--field babybear|koalabear|goldilocks|gf2_64]
//!     [--dir DIR] [--keep]
//! ```
//!
//! Writes a synthetic row-major trace (`--trace-mib`, at least 4× the budget
//! by default), times a plain sequential read+write of it (the disk's
//! bandwidth, same run), runs the planned out-of-core LDE (or encode) into an
//! output file with `--budget-mib` of resident memory, reads the peak
//! resident memory from the OS (`VmHWM`, reset before the run), then checks
//! four columns of the output, every row, bit for bit against the in-memory
//! plan. Exits non-zero on a mismatch or a peak above budget + 10%.

use nttfuse::out_of_core::{
    FileElement, FileRows, OutOfCore, OutOfCoreEncode, OutOfCoreLde, Progress, RowSource, RowStore,
};
use nttfuse::prelude::*;
use std::fs::File;
use std::io::{IsTerminal, Read, Write};
use std::ops::{ControlFlow, Range};
use std::path::{Path, PathBuf};
use std::time::Instant;

struct Args {
    trace_mib: usize,
    budget_mib: usize,
    columns: usize,
    log_blowup: u32,
    field: String,
    dir: PathBuf,
    keep: bool,
}

fn args() -> Args {
    let mut a = Args {
        trace_mib: 1024,
        budget_mib: 256,
        columns: 256,
        log_blowup: 1,
        field: "babybear".into(),
        dir: std::env::temp_dir(),
        keep: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| panic!("{flag} needs a value"));
        match flag.as_str() {
            "--trace-mib" => a.trace_mib = value().parse().expect("--trace-mib N"),
            "--budget-mib" => a.budget_mib = value().parse().expect("--budget-mib N"),
            "--columns" => a.columns = value().parse().expect("--columns N"),
            "--log-blowup" => a.log_blowup = value().parse().expect("--log-blowup N"),
            "--field" => a.field = value().to_lowercase(),
            "--dir" => a.dir = PathBuf::from(value()),
            "--keep" => a.keep = true,
            other => panic!("unknown argument {other}"),
        }
    }
    a
}

/// Storage that adds the time of every read and write (positioned I/O and
/// the conversion from and to the file format) to `seconds`.
struct Timed<'a, R> {
    rows: R,
    read: &'a std::cell::Cell<f64>,
    write: &'a std::cell::Cell<f64>,
}

impl<F, R: RowSource<F>> RowSource<F> for Timed<'_, R> {
    fn read_rows(&mut self, row: usize, cols: Range<usize>, out: &mut [F]) -> Result<(), Error> {
        let t = Instant::now();
        let r = self.rows.read_rows(row, cols, out);
        self.read.set(self.read.get() + t.elapsed().as_secs_f64());
        r
    }
}

impl<F, R: RowStore<F>> RowStore<F> for Timed<'_, R> {
    fn write_rows(&mut self, row: usize, cols: Range<usize>, data: &[F]) -> Result<(), Error> {
        let t = Instant::now();
        let r = self.rows.write_rows(row, cols, data);
        self.write.set(self.write.get() + t.elapsed().as_secs_f64());
        r
    }
}

/// The process's peak resident set (VmHWM), bytes.
fn peak_rss() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<usize>().ok())
        .map_or(0, |kib| kib << 10)
}

/// Resets VmHWM to the current resident set (Linux: `5` into clear_refs).
fn reset_peak_rss() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// Row `row`, column `col` of the synthetic trace.
fn trace_value(row: usize, col: usize) -> u64 {
    let mut x = (row as u64) << 20 ^ col as u64 ^ 0x9e37_79b9_7f4a_7c15;
    x ^= x >> 31;
    x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^= x >> 29;
    x >> 1
}

/// Writes the trace in 4 MiB chunks (never the whole trace in memory).
fn write_trace<F: FileElement>(path: &Path, rows: usize, columns: usize) {
    let mut file = std::io::BufWriter::with_capacity(4 << 20, File::create(path).unwrap());
    let mut bytes = vec![0u8; columns * F::BYTES];
    for row in 0..rows {
        for (col, b) in bytes.chunks_exact_mut(F::BYTES).enumerate() {
            F::from_u64(trace_value(row, col)).put(b);
        }
        file.write_all(&bytes).unwrap();
    }
    file.into_inner().unwrap().sync_all().unwrap();
}

/// A plain sequential read+write of `src` into `dst` in 4 MiB chunks:
/// seconds.
fn plain_copy(src: &Path, dst: &Path) -> f64 {
    let start = Instant::now();
    let mut input = File::open(src).unwrap();
    let mut output = File::create(dst).unwrap();
    let mut buf = vec![0u8; 4 << 20];
    loop {
        let n = input.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        output.write_all(&buf[..n]).unwrap();
    }
    output.sync_data().unwrap();
    start.elapsed().as_secs_f64()
}

/// Reads columns `cols` of every row of a row-major file of `columns`.
fn read_columns<F: FileElement>(path: &Path, columns: usize, cols: &[usize]) -> Vec<F> {
    let mut file = std::io::BufReader::with_capacity(4 << 20, File::open(path).unwrap());
    let mut row = vec![0u8; columns * F::BYTES];
    let mut out = Vec::new();
    while file.read_exact(&mut row).is_ok() {
        for &c in cols {
            out.push(F::get(&row[c * F::BYTES..][..F::BYTES]).expect("canonical"));
        }
    }
    out
}

/// What the example runs: an out-of-core LDE or encode, and the same
/// transform in memory for the check.
trait Job<F: FileElement>: std::fmt::Display {
    /// "LDE" or "encode".
    const WHAT: &'static str;
    fn passes(&self) -> usize;
    fn disk_sweeps(&self) -> f64;
    fn io_bytes(&self) -> u64;
    fn staging_bytes(&self) -> usize;
    fn run_with(
        &self,
        input: &mut impl RowSource<F>,
        output: &mut impl RowStore<F>,
        progress: impl FnMut(Progress) -> ControlFlow<()>,
    ) -> Result<(), Error>;
    /// The whole output of `lanes` columns of the input, in memory.
    fn in_memory(&self, input: &[F], lanes: usize) -> Vec<F>;
}

/// `Job` for an out-of-core plan type: its own methods, and its spec
/// planned in memory for the check.
macro_rules! job {
    ($plan:ident, $bound:ident, $what:literal) => {
        impl<F: Kernels + $bound + FileElement> Job<F> for $plan<F> {
            const WHAT: &'static str = $what;
            fn passes(&self) -> usize {
                self.passes()
            }
            fn disk_sweeps(&self) -> f64 {
                self.disk_sweeps()
            }
            fn io_bytes(&self) -> u64 {
                self.io_bytes()
            }
            fn staging_bytes(&self) -> usize {
                self.staging_bytes()
            }
            fn run_with(
                &self,
                input: &mut impl RowSource<F>,
                output: &mut impl RowStore<F>,
                progress: impl FnMut(Progress) -> ControlFlow<()>,
            ) -> Result<(), Error> {
                self.run_with(input, output, progress)
            }
            fn in_memory(&self, input: &[F], lanes: usize) -> Vec<F> {
                let plan = Planner::new()
                    .plan(&self.transform().clone().lanes(lanes))
                    .unwrap();
                let mut out = vec![F::zero(); plan.len()];
                plan.execute_from(input, &mut out).unwrap();
                out
            }
        }
    };
}
job!(OutOfCoreLde, TwoAdicField, "LDE");
job!(OutOfCoreEncode, BinaryField, "encode");

/// log₂ of the trace's rows: the largest power of two within `--trace-mib`.
fn log_rows<F: FileElement>(a: &Args) -> u32 {
    ((a.trace_mib << 20) / (a.columns * F::BYTES))
        .max(2)
        .ilog2()
}

/// The coset LDE of the trace (a prime field).
fn lde<F: Kernels + TwoAdicField + FileElement>(a: &Args) -> bool {
    let spec = Transform::<F>::coset_lde(log_rows::<F>(a), LogBlowup(a.log_blowup))
        .shift(F::multiplicative_generator())
        .lanes(a.columns);
    match OutOfCore::new(a.budget_mib << 20).plan(&spec) {
        Ok(plan) => run(a, &plan),
        Err(e) => {
            eprintln!("planning failed: {e}");
            false
        }
    }
}

/// The Reed–Solomon encode of the trace as a message (a binary field).
fn encode<F: Kernels + BinaryField + FileElement>(a: &Args) -> bool {
    let spec =
        Transform::<F>::additive_encode(log_rows::<F>(a) + a.log_blowup, LogBlowup(a.log_blowup))
            .lanes(a.columns);
    match OutOfCore::new(a.budget_mib << 20).plan_encode(&spec) {
        Ok(plan) => run(a, &plan),
        Err(e) => {
            eprintln!("planning failed: {e}");
            false
        }
    }
}

fn run<F: Kernels + FileElement, J: Job<F>>(a: &Args, ooc: &J) -> bool {
    let size = F::BYTES;
    let row_bytes = a.columns * size;
    let log_n = log_rows::<F>(a);
    let (rows, budget) = (1usize << log_n, a.budget_mib << 20);
    let (input, output, copy) = (
        a.dir
            .join(format!("nttfuse-trace-{}.bin", std::process::id())),
        a.dir
            .join(format!("nttfuse-out-{}.bin", std::process::id())),
        a.dir
            .join(format!("nttfuse-copy-{}.bin", std::process::id())),
    );
    let (in_bytes, out_bytes) = (rows * row_bytes, (rows * row_bytes) << a.log_blowup);
    println!("{ooc}\n");
    println!(
        "trace      {} × {} {} = {:.0} MiB ({:.1}× the budget), output {:.0} MiB, in {}",
        rows,
        a.columns,
        F::NAME,
        in_bytes as f64 / 1048576.0,
        in_bytes as f64 / budget as f64,
        out_bytes as f64 / 1048576.0,
        a.dir.display()
    );
    write_trace::<F>(&input, rows, a.columns);
    // The disk's plain sequential read+write, twice, the faster kept.
    let copy_s = plain_copy(&input, &copy).min(plain_copy(&input, &copy));
    let _ = std::fs::remove_file(&copy);
    let bandwidth = 2.0 * in_bytes as f64 / copy_s;
    let tty = std::io::stderr().is_terminal();
    let rss_reset = reset_peak_rss();
    let before = peak_rss();
    let start = Instant::now();
    let mut last_draw = Instant::now();
    let mut pass_ends = vec![0.0f64; ooc.passes()];
    let (read_s, write_s) = (std::cell::Cell::new(0.0), std::cell::Cell::new(0.0));
    let source = File::open(&input).unwrap();
    let sink = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(&output)
        .unwrap();
    sink.set_len(out_bytes as u64).unwrap();
    let staging = ooc.staging_bytes();
    let mut source_rows = Timed {
        rows: FileRows::new(&source, input.display().to_string(), a.columns).staging(staging),
        read: &read_s,
        write: &write_s,
    };
    let mut sink_rows = Timed {
        rows: FileRows::new(&sink, output.display().to_string(), a.columns).staging(staging),
        read: &read_s,
        write: &write_s,
    };
    let result = ooc.run_with(&mut source_rows, &mut sink_rows, |p: Progress| {
        pass_ends[p.pass - 1] = start.elapsed().as_secs_f64();
        if tty && last_draw.elapsed().as_millis() > 200 {
            last_draw = Instant::now();
            let done = p.bytes_done as f64 / p.bytes_total as f64;
            let bar = (done * 40.0) as usize;
            eprint!(
                "\rpass {}/{} [{}{}] {:5.1}%",
                p.pass,
                p.passes,
                "#".repeat(bar),
                " ".repeat(40 - bar),
                100.0 * done
            );
        }
        ControlFlow::Continue(())
    });
    let result = result.and_then(|()| {
        sink.sync_data().map_err(|e| Error::Io {
            file: output.display().to_string(),
            offset: 0,
            reason: e.to_string(),
        })
    });
    let seconds = start.elapsed().as_secs_f64();
    if tty {
        eprintln!();
    }
    let peak = peak_rss();
    if let Err(e) = result {
        eprintln!("out-of-core {} failed: {e}", J::WHAT);
        return false;
    }
    let moved = ooc.io_bytes() as f64;
    let useful = (in_bytes + out_bytes) as f64;
    println!(
        "disk       plain sequential read+write: {:.2} GB/s ({:.3} s for {:.0} MiB read + written)",
        bandwidth / 1e9,
        copy_s,
        in_bytes as f64 / 1048576.0
    );
    println!(
        "{:<10} {:.3} s: {:.2} GB/s of input read + output written = {:.2} of the plain bandwidth (goal ≥ 0.5); \
         bytes moved {:.2} GB/s = {:.2} of it ({} passes, {:.2} sweeps)",
        J::WHAT,
        seconds,
        useful / seconds / 1e9,
        useful / seconds / bandwidth,
        moved / seconds / 1e9,
        moved / seconds / bandwidth,
        ooc.passes(),
        ooc.disk_sweeps()
    );
    let times: Vec<String> = pass_ends
        .iter()
        .scan(0.0, |prev, &end| {
            let t = end - *prev;
            *prev = end;
            Some(format!("{t:.2} s"))
        })
        .collect();
    println!(
        "passes     {} (sync to disk after the last: {:.2} s); reads + decoding {:.2} s, encoding + writes {:.2} s, \
         computing {:.2} s",
        times.join(", "),
        seconds - pass_ends.last().copied().unwrap_or(0.0),
        read_s.get(),
        write_s.get(),
        pass_ends.last().copied().unwrap_or(0.0) - read_s.get() - write_s.get()
    );
    let limit = budget + budget / 10;
    let rss_ok = peak <= limit;
    println!(
        "memory     peak resident (VmHWM{}) {:.1} MiB, before the run {:.1} MiB; budget {:.0} MiB, limit +10% {:.1} MiB: {}",
        if rss_reset { ", reset before the run" } else { ", not resettable: whole process" },
        peak as f64 / 1048576.0,
        before as f64 / 1048576.0,
        budget as f64 / 1048576.0,
        limit as f64 / 1048576.0,
        if rss_ok { "ok" } else { "OVER" }
    );
    // Check four columns, every row, against the in-memory plan.
    let cols: Vec<usize> = [0, 1, a.columns / 2, a.columns - 1]
        .into_iter()
        .filter(|&c| c < a.columns)
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let trace = read_columns::<F>(&input, a.columns, &cols);
    let expected = ooc.in_memory(&trace, cols.len());
    drop(trace);
    let got = read_columns::<F>(&output, a.columns, &cols);
    let same = got == expected;
    println!(
        "check      columns {cols:?}, all {} rows, against the in-memory plan: {}",
        expected.len() / cols.len(),
        if same { "bit-identical" } else { "MISMATCH" }
    );
    if !a.keep {
        let _ = std::fs::remove_file(&input);
        let _ = std::fs::remove_file(&output);
    }
    same && rss_ok
}

fn main() {
    let a = args();
    println!(
        "CPU        {}, {} threads",
        std::fs::read_to_string("/proc/cpuinfo")
            .unwrap_or_default()
            .lines()
            .find_map(|l| l.strip_prefix("model name"))
            .map_or("unknown".into(), |m| m
                .trim_start_matches([' ', '\t', ':'])
                .to_string()),
        rayon::current_num_threads()
    );
    let ok = match a.field.as_str() {
        "babybear" => lde::<BabyBear>(&a),
        "koalabear" => lde::<KoalaBear>(&a),
        "goldilocks" => lde::<Goldilocks>(&a),
        "gf2_64" => encode::<Gf2_64>(&a),
        other => panic!("--field babybear|koalabear|goldilocks|gf2_64, not {other}"),
    };
    if !ok {
        std::process::exit(1);
    }
}

//! STARK-field DFTs against Plonky3 0.8.0 in the same run, with "sweeps"
//! (time ÷ one plain read+write pass over the output buffer, same run).
//!
//! `cargo bench --manifest-path benches/peers/Cargo.toml --bench stark` prints one table of medians. Plonky3 is
//! measured with `Radix2DitParallel`, `Radix2DFTSmallBatch` and
//! `RecursiveDft` (31-bit fields); the best of them is the reference. Its
//! APIs consume their input matrix, so each run's copy of the input is made
//! before its timing starts (`common::timed_fresh`; subtracting a separately
//! measured copy time proved unstable on a noisy host). Every contestant of
//! a shape runs once per round, in turn (each round starting one contestant
//! later), for 5 rounds after a warm-up round, and each one's median is
//! reported (`common::interleaved_medians`): a slow phase of a shared host
//! then hits all of them alike, and no contestant always runs right after
//! another. Each run, ours
//! included, reads an input copied just before it starts, so every
//! contestant finds its input as warm in the caches as the others do. Plonky3's SIMD
//! packings are chosen at compile time: run with
//! `RUSTFLAGS="-C target-cpu=native"` to give it its AVX-512 code (nttfuse
//! detects features at run time either way).
//!
//! Our DFTs are timed twice: out of place (`execute_from`, the input kept)
//! and in place on a fresh copy of the input, made before the timing starts
//! ("in place (drop-in)": what `plonky3::NttfuseDft::dft_batch` does with
//! the matrix it is handed, as Plonky3's own DFTs do). Out of place writes a
//! second buffer, which costs a read for ownership of every output line.
//!
//! Plonky3's LDEs make their output on every call (the input matrix's
//! vector, grown), so their times include first-touch page faults on the
//! new rows (a fresh 128 MiB costs about 55 ms on a 2-vCPU Zen 4 VM, about
//! 1.7 µs per 4 KiB page), while our LDE rows write into a reused buffer.
//! The LDE rows add the like-for-like figure:
//! `plonky3::NttfuseDft::coset_lde_batch`, which grows the matrix's vector
//! per call as Plonky3 does and runs the LDE in place in it.
//!
//! Single columns are also measured against tfhe-ntt 0.7.1 (`prime32::Plan`,
//! its forward negacyclic NTT modulo the BabyBear prime, in place, 1 thread;
//! it selects AVX-512 at run time), beside ours in place. The two run
//! alternately, 21 rounds, and each side's median is reported.
//!
//! `NTTFUSE_BENCH_QUICK=1` shrinks every shape by 2^4 (a smoke run);
//! `NTTFUSE_BENCH_ONLY=babybear-col,goldilocks-dft` runs only the named rows
//! (`{babybear,koalabear,goldilocks}-{dft,lde,col}`; `simd`: the
//! detected backend against the portable kernels, same plan shapes, 1
//! thread; `order`: DFTs and inverse DFTs into and from natural order
//! against the same in bit-reversed order, 1 thread: 2^16 × 256 and a
//! single BabyBear column of 2^20).

#[path = "../../common/mod.rs"]
mod common;

use common::{interleaved_medians, median, register_ceiling_ns, timed_fresh, timed_on_copy};

use nttfuse::*;
use p3_dft::{Radix2DFTSmallBatch, Radix2DitParallel, TwoAdicSubgroupDft};
use p3_field::PrimeCharacteristicRing;
use p3_matrix::dense::RowMajorMatrix;
use std::time::Duration;

/// Whether the row `id` was asked for (`NTTFUSE_BENCH_ONLY`, default all).
fn wanted(id: &str) -> bool {
    std::env::var("NTTFUSE_BENCH_ONLY").map_or(true, |only| only.split(',').any(|w| w == id))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

struct Row {
    name: String,
    threads: usize,
    ours: Duration,
    theirs: Vec<(&'static str, Duration)>,
    sweep: Duration,
    /// Issue 32's target for the ratio ("" where the row has none).
    target: &'static str,
}

/// Issue 32's targets for ours ÷ the best peer: STARK fields' batched DFTs
/// (Goldilocks ≤ 0.6; the 31-bit fields held where they stood, 0.55 on a
/// Zen 4), LDEs into a reused buffer (BabyBear and KoalaBear ≤ 0.45,
/// Goldilocks ≤ 0.6), LDEs through the drop-in (≤ 0.5, Goldilocks ≤ 0.6),
/// a single column against tfhe-ntt (≤ 0.9).
fn target(field: &str, row: &str) -> &'static str {
    match (field == "Goldilocks", row) {
        (true, "dft" | "lde" | "lde drop-in") => "≤ 0.60",
        (false, "dft") => "≤ 0.55",
        (false, "lde") => "≤ 0.45",
        (false, "lde drop-in") => "≤ 0.50",
        (_, "column") => "≤ 0.90",
        _ => "",
    }
}

impl Row {
    fn print(&self) {
        let (best_name, best) = self
            .theirs
            .iter()
            .min_by_key(|(_, t)| *t)
            .copied()
            .unwrap_or(("-", Duration::ZERO));
        println!(
            "{:<46} {:>3} {:>9.1} {:>9.1} {:>7.2} {:>7} {:>7.1}   best of theirs: {best_name} ({})",
            self.name,
            self.threads,
            ms(self.ours),
            ms(best),
            self.ours.as_secs_f64() / best.as_secs_f64(),
            self.target,
            self.ours.as_secs_f64() / self.sweep.as_secs_f64(),
            self.theirs
                .iter()
                .map(|(n, t)| format!("{n} {:.1}", ms(*t)))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
}

fn sweep_of(elements: usize, elem_bytes: usize) -> Duration {
    let mut words = vec![1u64; elements * elem_bytes / 8];
    median(5, || common::sweep(&mut words))
}

/// Rounds of the single-column comparison with tfhe-ntt (one run of each
/// side per round).
const TFHE_ROUNDS: usize = 21;

/// A single BabyBear column, in place, against tfhe-ntt's forward NTT of the
/// same length modulo the same prime (1 thread: tfhe-ntt is sequential).
fn tfhe_row(log_n: u32) {
    let n = 1usize << log_n;
    let plan = Planner::new()
        .threads(Threads::Count(1))
        .plan(&Transform::<BabyBear>::dft(log_n).order(Order::BitReversed))
        .expect("plan");
    let mut ours_buf: Vec<BabyBear> = (0..n as u64)
        .map(|i| BabyBear::from_u64(i.wrapping_mul(0x9e37_79b9)))
        .collect();
    let tfhe = tfhe_ntt::prime32::Plan::try_new(n, BabyBear::MODULUS as u32).expect("tfhe plan");
    let mut theirs_buf: Vec<u32> = (0..n as u64)
        .map(|i| (i.wrapping_mul(0x9e37_79b9) % BabyBear::MODULUS) as u32)
        .collect();
    // Alternating runs, so that a slow phase of a shared host hits both
    // sides alike; the medians of each side's runs are compared.
    let time = |f: &mut dyn FnMut()| {
        let start = std::time::Instant::now();
        f();
        start.elapsed()
    };
    let mut ours_run = || plan.execute(&mut ours_buf).expect("execute");
    let mut theirs_run = || tfhe.fwd(&mut theirs_buf);
    // Warm-up, then the rounds.
    time(&mut ours_run);
    time(&mut theirs_run);
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..TFHE_ROUNDS {
        ours.push(time(&mut ours_run));
        theirs.push(time(&mut theirs_run));
    }
    ours.sort();
    theirs.sort();
    let (ours, theirs) = (ours[TFHE_ROUNDS / 2], theirs[TFHE_ROUNDS / 2]);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool");
    let sweep = pool.install(|| sweep_of(n, 4));
    Row {
        name: format!("BabyBear dft 2^{log_n} × 1 in place"),
        threads: 1,
        ours,
        theirs: vec![("tfhe-ntt prime32 fwd", theirs)],
        sweep,
        target: target("BabyBear", "column"),
    }
    .print();
}

/// Plonky3's `RecursiveDft` for `$n` rows as `$name` (31-bit Montgomery
/// fields only; nothing for the others).
macro_rules! recursive_dft {
    (true, $theirs:ty, $n:expr, $name:ident) => {
        let $name = p3_monty_31::dft::RecursiveDft::<$theirs>::new($n);
    };
    (false, $theirs:ty, $n:expr, $name:ident) => {};
}

/// Adds the run `$run` as Plonky3's `RecursiveDft` contestant, where that
/// exists (the run names the instance `recursive_dft!` made).
macro_rules! push_recursive {
    (true, $contestants:ident, $run:expr) => {
        $contestants.push(("RecursiveDft", Box::new($run)));
    };
    (false, $contestants:ident, $run:expr) => {
        let _ = &mut $contestants;
    };
}

/// A contestant: a name and one timed run (on its own fresh input).
type Contestant<'a> = (&'static str, Box<dyn FnMut() -> Duration + Send + 'a>);

/// Our runs and Plonky3's, measured in alternating rounds (a warm-up round,
/// then `ROUNDS`), each of Plonky3's on `threads` threads: our medians and
/// Plonky3's named medians.
fn contest(
    threads: usize,
    ours: Vec<Contestant<'_>>,
    theirs: Vec<Contestant<'_>>,
) -> (Vec<Duration>, Vec<(&'static str, Duration)>) {
    const ROUNDS: usize = 5;
    let pool = pool(threads);
    let names: Vec<&'static str> = theirs.iter().map(|(name, _)| *name).collect();
    let ours_len = ours.len();
    let mut runs: Vec<Box<dyn FnMut() -> Duration + Send + '_>> =
        ours.into_iter().map(|(_, r)| r).collect();
    for (_, mut run) in theirs {
        let pool = &pool;
        runs.push(Box::new(move || pool.install(&mut run)));
    }
    let mut refs: Vec<&mut dyn FnMut() -> Duration> = runs
        .iter_mut()
        .map(|r| r.as_mut() as &mut dyn FnMut() -> Duration)
        .collect();
    let medians = interleaved_medians(ROUNDS, &mut refs);
    let (ours, theirs) = medians.split_at(ours_len);
    (
        ours.to_vec(),
        names.into_iter().zip(theirs.iter().copied()).collect(),
    )
}

macro_rules! dft_rows {
    ($ours:ty, $theirs:ty, $log_n:expr, $lanes:expr, $threads:expr, $recursive:tt) => {{
        let (log_n, lanes, threads): (u32, usize, usize) = ($log_n, $lanes, $threads);
        let n = 1usize << log_n;
        let values: Vec<u64> = (0..n * lanes)
            .map(|i| (i as u64).wrapping_mul(0x9e37_79b9) % <$ours>::MODULUS)
            .collect();
        let planner = Planner::new().threads(Threads::Count(threads));
        let plan = planner
            .plan(
                &Transform::<$ours>::dft(log_n)
                    .lanes(lanes)
                    .order(Order::BitReversed),
            )
            .expect("plan");
        let input: Vec<$ours> = values.iter().map(|&v| <$ours>::from_u64(v)).collect();
        let mut out = vec![<$ours>::from_u64(0); plan.len()];
        let theirs_input: Vec<$theirs> = values.iter().map(|&v| <$theirs>::from_u64(v)).collect();
        let parallel = Radix2DitParallel::<$theirs>::default();
        let small = Radix2DFTSmallBatch::<$theirs>::default();
        recursive_dft!($recursive, $theirs, n, recursive);
        let ours: Vec<Contestant<'_>> = vec![
            (
                "out of place",
                Box::new(timed_on_copy(&input, |copy| {
                    plan.execute_from(copy, &mut out).expect("execute")
                })),
            ),
            // In place on a fresh copy of the input: what
            // `plonky3::NttfuseDft` does with the matrix `dft_batch` hands
            // it, like Plonky3's own.
            (
                "in place",
                Box::new(timed_fresh(
                    || input.clone(),
                    |mut data| {
                        plan.execute(&mut data).expect("execute");
                        data
                    },
                )),
            ),
        ];
        let mut theirs: Vec<Contestant<'_>> = vec![
            (
                "Radix2DitParallel",
                Box::new(timed_fresh(
                    || theirs_input.clone(),
                    |input| parallel.dft_batch(RowMajorMatrix::new(input, lanes)),
                )),
            ),
            (
                "Radix2DFTSmallBatch",
                Box::new(timed_fresh(
                    || theirs_input.clone(),
                    |input| small.dft_batch(RowMajorMatrix::new(input, lanes)),
                )),
            ),
        ];
        push_recursive!(
            $recursive,
            theirs,
            timed_fresh(
                || theirs_input.clone(),
                |input| recursive.dft_batch(RowMajorMatrix::new(input, lanes)),
            )
        );
        let (ours, theirs) = contest(threads, ours, theirs);
        let sweep = pool(threads).install(|| sweep_of(n * lanes, core::mem::size_of::<$ours>()));
        Row {
            name: format!("{} dft 2^{log_n} × {lanes}", <$ours as Field>::NAME),
            threads,
            ours: ours[0],
            theirs: theirs.clone(),
            sweep,
            target: if lanes > 1 {
                target(<$ours as Field>::NAME, "dft")
            } else {
                ""
            },
        }
        .print();
        Row {
            name: format!(
                "{} dft 2^{log_n} × {lanes} in place (drop-in)",
                <$ours as Field>::NAME
            ),
            threads,
            ours: ours[1],
            theirs,
            sweep,
            target: if lanes > 1 {
                target(<$ours as Field>::NAME, "dft")
            } else {
                ""
            },
        }
        .print();
    }};
}

macro_rules! lde_rows {
    ($ours:ty, $theirs:ty, $log_n:expr, $lanes:expr, $threads:expr, $recursive:tt) => {{
        let (log_n, lanes, threads): (u32, usize, usize) = ($log_n, $lanes, $threads);
        let n = 1usize << log_n;
        let values: Vec<u64> = (0..n * lanes)
            .map(|i| (i as u64 ^ 0x5555) % <$ours>::MODULUS)
            .collect();
        let shift_u64 = 7;
        let planner = Planner::new().threads(Threads::Count(threads));
        let lde = planner
            .plan(&Transform::<$ours>::coset_lde(log_n, LogBlowup(1)).shift(<$ours>::from_u64(shift_u64)).lanes(lanes).order(Order::BitReversed))
            .expect("plan");
        let input: Vec<$ours> = values.iter().map(|&v| <$ours>::from_u64(v)).collect();
        let mut out = vec![<$ours>::from_u64(0); lde.len()];
        let theirs_input: Vec<$theirs> = values.iter().map(|&v| <$theirs>::from_u64(v)).collect();
        let parallel = Radix2DitParallel::<$theirs>::default();
        let small = Radix2DFTSmallBatch::<$theirs>::default();
        recursive_dft!($recursive, $theirs, 2 * n, recursive);
        // The same two plans run one after the other (the coefficients go to
        // memory between them), to show what fusing their middle passes saves.
        let mut unfused_out = vec![<$ours>::from_u64(0); lde.len()];
        let [idft, encode] = lde.plans()[..] else {
            unreachable!("a coset LDE runs two plans")
        };
        let drop_in = nttfuse::plonky3::NttfuseDft::with_planner(planner.clone());
        // The drop-in runs on `threads` threads, as its plans do.
        let ours_pool = pool(threads);
        let shift = <$theirs>::from_u64(shift_u64);
        let mut ours: Vec<Contestant<'_>> = vec![
            (
                "out of place",
                Box::new(timed_on_copy(&input, |copy| {
                    lde.execute_from(copy, &mut out).expect("execute")
                })),
            ),
            (
                "two plans",
                Box::new(timed_on_copy(&input, |copy| {
                    idft.execute_from(copy, &mut unfused_out[..n * lanes])
                        .expect("execute");
                    encode.execute(&mut unfused_out).expect("execute");
                })),
            ),
        ];
        ours.push((
            "drop-in",
            Box::new(timed_fresh(
                || theirs_input.clone(),
                |input| {
                    ours_pool.install(|| {
                        drop_in.coset_lde_batch(RowMajorMatrix::new(input, lanes), 1, shift)
                    })
                },
            )),
        ));
        let mut theirs: Vec<Contestant<'_>> = vec![
            (
                "Radix2DitParallel",
                Box::new(timed_fresh(
                    || theirs_input.clone(),
                    |input| parallel.coset_lde_batch(RowMajorMatrix::new(input, lanes), 1, shift),
                )),
            ),
            (
                "Radix2DFTSmallBatch",
                Box::new(timed_fresh(
                    || theirs_input.clone(),
                    |input| small.coset_lde_batch(RowMajorMatrix::new(input, lanes), 1, shift),
                )),
            ),
        ];
        push_recursive!(
            $recursive,
            theirs,
            timed_fresh(
                || theirs_input.clone(),
                |input| { recursive.coset_lde_batch(RowMajorMatrix::new(input, lanes), 1, shift) },
            )
        );
        let (ours, theirs) = contest(threads, ours, theirs);
        assert!(out == unfused_out, "fused and unfused LDEs differ");
        let best = theirs.iter().map(|t| t.1).min().expect("a peer");
        let sweep =
            pool(threads).install(|| sweep_of(2 * n * lanes, core::mem::size_of::<$ours>()));
        Row {
            name: format!(
                "{} coset LDE 2^{log_n} × {lanes} +1 bit",
                <$ours as Field>::NAME
            ),
            threads,
            ours: ours[0],
            theirs,
            sweep,
            target: target(<$ours as Field>::NAME, "lde"),
        }
        .print();
        if lde.is_fused() {
            println!(
                "{:<46} {:>3} {:>9.1}   fused ÷ the same two plans run one after the other: {:.2}",
                "  (inverse DFT, then encode: two plans)",
                threads,
                ms(ours[1]),
                ours[0].as_secs_f64() / ours[1].as_secs_f64()
            );
        }
        // Like for like: the drop-in grows the matrix's vector per call, as
        // Plonky3 does, and pays the first touch of the new pages.
        if let Some(&drop_in) = ours.get(2) {
            println!(
                "{:<46} {:>3} {:>9.1}   ratio {:.2}, target {} (the output grown from the input per call, as Plonky3's is); ÷ ours into a reused buffer: {:.2}",
                "  (plonky3::NttfuseDft::coset_lde_batch)",
                threads,
                ms(drop_in),
                drop_in.as_secs_f64() / best.as_secs_f64(),
                target(<$ours as Field>::NAME, "lde drop-in"),
                drop_in.as_secs_f64() / ours[0].as_secs_f64(),
            );
        }
    }};
}

/// A rayon pool of `threads` threads.
fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("pool")
}

fn main() {
    let shrink = if std::env::var_os("NTTFUSE_BENCH_QUICK").is_some() {
        4
    } else {
        0
    };
    println!(
        "\nnttfuse stark bench: backend {} (BabyBear), {} (Goldilocks); medians of 5 alternating rounds; ratio = ours ÷ best of Plonky3; sweeps = ours ÷ one read+write pass over the output\n",
        Backend::detect::<BabyBear>().name(),
        Backend::detect::<Goldilocks>().name()
    );
    // The ceiling of the register groups' own instructions (1 thread).
    if let (Some(bb), Some(gl)) = (
        register_ceiling_ns::<BabyBear>(),
        register_ceiling_ns::<Goldilocks>(),
    ) {
        let log: u32 = 16 - shrink;
        println!(
            "register ceiling (radix-8 butterflies on registers only, 1 thread): BabyBear {bb:.3} ns, Goldilocks {gl:.3} ns per lane-butterfly; the BabyBear dft 2^{log} × 256 at that rate: {:.1} ms\n",
            f64::from(log) * (1u64 << (log - 1)) as f64 * 256.0 * bb * 1e-6
        );
    }
    let p3_lacks = if !cfg!(target_feature = "avx512f") && Backend::Avx512.cpu_supports() {
        Some("AVX-512")
    } else if !cfg!(target_feature = "avx2") && Backend::Avx2.cpu_supports() {
        Some("AVX2")
    } else {
        None
    };
    if let Some(simd) = p3_lacks {
        println!(
            "note: Plonky3 is built without its {simd} code (it selects SIMD at compile time); rerun with RUSTFLAGS=\"-C target-cpu=native\" for a fair comparison\n"
        );
    }
    println!(
        "{:<46} {:>3} {:>9} {:>9} {:>7} {:>7} {:>7}",
        "shape", "thr", "ours ms", "p3 ms", "ratio", "target", "sweeps"
    );
    for threads in [1, 2] {
        if wanted("babybear-dft") {
            dft_rows!(
                BabyBear,
                p3_baby_bear::BabyBear,
                16 - shrink,
                256,
                threads,
                true
            );
        }
        if wanted("babybear-lde") {
            lde_rows!(
                BabyBear,
                p3_baby_bear::BabyBear,
                18 - shrink,
                64,
                threads,
                true
            );
        }
        if wanted("babybear-col") {
            dft_rows!(
                BabyBear,
                p3_baby_bear::BabyBear,
                20 - shrink,
                1,
                threads,
                true
            );
            if threads == 1 {
                tfhe_row(20 - shrink);
            }
        }
        if wanted("koalabear-dft") {
            dft_rows!(
                KoalaBear,
                p3_koala_bear::KoalaBear,
                16 - shrink,
                256,
                threads,
                true
            );
        }
        if wanted("goldilocks-dft") {
            dft_rows!(
                Goldilocks,
                p3_goldilocks::Goldilocks,
                16 - shrink,
                256,
                threads,
                false
            );
        }
        if wanted("goldilocks-lde") {
            lde_rows!(
                Goldilocks,
                p3_goldilocks::Goldilocks,
                18 - shrink,
                64,
                threads,
                false
            );
        }
    }
    if wanted("order") {
        println!(
            "\nwhat natural order costs, 1 thread, out of place, {ORDER_ROUNDS} alternating rounds: the DFT into (inverse: from) natural order ÷ the same into (from) bit-reversed order\n"
        );
        println!(
            "{:<46} {:>10} {:>9} {:>7}",
            "shape", "natural ms", "bitrev ms", "ratio"
        );
        for inverse in [false, true] {
            order_row::<BabyBear>("BabyBear", 16 - shrink, 256, inverse);
            order_row::<Goldilocks>("Goldilocks", 16 - shrink, 256, inverse);
        }
        // Single columns: rows too narrow to fuse the reversal into a
        // pass, so it is a step of its own (blocked for rows under 64 bytes).
        for inverse in [false, true] {
            order_row::<BabyBear>("BabyBear", 20 - shrink, 1, inverse);
        }
    }
    if wanted("simd") {
        println!(
            "\nbackend speedup, 1 thread, in place, {} alternating rounds: detected backend ÷ portable kernels (same plan shape)\n",
            SIMD_ROUNDS
        );
        println!(
            "{:<46} {:>10} {:>9} {:>9} {:>7}",
            "shape", "backend", "simd ms", "scalar ms", "ratio"
        );
        simd_row::<BabyBear>("BabyBear", 16 - shrink, 256);
        simd_row::<BabyBear>("BabyBear", 20 - shrink, 1);
        simd_row::<Goldilocks>("Goldilocks", 16 - shrink, 256);
        simd_row::<Goldilocks>("Goldilocks", 20 - shrink, 1);
    }
    println!();
}

/// Rounds of the natural-order comparison.
const ORDER_ROUNDS: usize = 7;

/// A DFT (or inverse DFT) of `2^log_n × lanes` out of place on 1 thread,
/// into (from) natural order and into (from) bit-reversed order, in
/// alternating rounds: what the bit reversal costs where it is fused or
/// where it takes a step of its own (the plan says which).
fn order_row<F: Kernels + TwoAdicField>(name: &str, log_n: u32, lanes: usize, inverse: bool) {
    let plan = |order: Order| {
        let spec = if inverse {
            Transform::<F>::idft(log_n)
        } else {
            Transform::<F>::dft(log_n)
        };
        Planner::new()
            .threads(Threads::Count(1))
            .plan(&spec.lanes(lanes).order(order))
            .expect("plan")
    };
    let (natural, reversed) = (plan(Order::Natural), plan(Order::BitReversed));
    let input: Vec<F> = (0..(natural.len() as u64))
        .map(|i| F::from_u64(i.wrapping_mul(0x9e37_79b9)))
        .collect();
    let (mut out_a, mut out_b) = (
        vec![F::zero(); natural.len()],
        vec![F::zero(); reversed.len()],
    );
    let mut a = timed_on_copy(&input, |copy| {
        natural.execute_from(copy, &mut out_a).expect("execute")
    });
    let mut b = timed_on_copy(&input, |copy| {
        reversed.execute_from(copy, &mut out_b).expect("execute")
    });
    let medians = interleaved_medians(ORDER_ROUNDS, &mut [&mut a, &mut b]);
    println!(
        "{:<46} {:>10.1} {:>9.1} {:>7.2}",
        format!(
            "{name} {} 2^{log_n} × {lanes}",
            if inverse { "idft" } else { "dft" }
        ),
        ms(medians[0]),
        ms(medians[1]),
        medians[0].as_secs_f64() / medians[1].as_secs_f64()
    );
}

/// Rounds of the backend comparison.
const SIMD_ROUNDS: usize = 7;

/// One DFT of `2^log_n × lanes`, in place on 1 thread, with the detected
/// backend and with the portable kernels, in alternating rounds: the SIMD
/// speedup measured in one run.
fn simd_row<F: Kernels + TwoAdicField>(name: &str, log_n: u32, lanes: usize) {
    let backend = Backend::detect::<F>();
    let spec = Transform::<F>::dft(log_n)
        .lanes(lanes)
        .order(Order::BitReversed);
    let plan_on = |b: Backend| {
        Planner::new()
            .threads(Threads::Count(1))
            .backend(b)
            .plan(&spec)
            .expect("plan")
    };
    let (simd, scalar) = (plan_on(backend), plan_on(Backend::Scalar));
    let input: Vec<F> = (0..(simd.len() as u64))
        .map(|i| F::from_u64(i.wrapping_mul(0x9e37_79b9)))
        .collect();
    let run = |plan: Plan<F>| {
        let input = &input;
        timed_fresh(
            move || input.clone(),
            move |mut data: Vec<F>| {
                plan.execute(&mut data).expect("execute");
                data
            },
        )
    };
    let (mut a, mut b) = (run(simd), run(scalar));
    let medians = interleaved_medians(SIMD_ROUNDS, &mut [&mut a, &mut b]);
    println!(
        "{:<46} {:>10} {:>9.2} {:>9.2} {:>7.2}",
        format!("{name} dft 2^{log_n} × {lanes}"),
        backend.name(),
        ms(medians[0]),
        ms(medians[1]),
        medians[0].as_secs_f64() / medians[1].as_secs_f64()
    );
}

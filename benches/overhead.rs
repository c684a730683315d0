//! Costs around the kernels, in ratios measured in the same run:
//!
//! - `threads/…`: a BabyBear DFT of 2^9 … 2^16 rows × 56 columns on one
//!   thread and on two (`Threads::Count`); up to 2^13 rows the plans run on
//!   the calling thread whatever the count (their text says why), from 2^14
//!   their passes split into tiles.
//! - `sweep/…`: the yardstick sweeps are measured in (`common::sweep`, a
//!   vectorised in-place pass) against a `black_box` per word (the yardstick
//!   before) and a `copy_from_slice` into a second buffer, on 16 and 64 MiB.
//!
//! `cargo bench --bench overhead` prints a summary table (medians of
//! interleaved rounds, with the ratios) before criterion's own report.

use criterion::{criterion_group, Criterion};
use nttfuse::*;
use rayon::prelude::*;
use std::hint::black_box;
use std::time::Duration;

#[allow(dead_code, reason = "the shared module serves every bench")]
mod common;

fn dft_plans(log_n: u32) -> (Plan<BabyBear>, Plan<BabyBear>) {
    let spec = Transform::<BabyBear>::dft(log_n).lanes(56);
    let plan = |n| {
        Planner::new()
            .threads(Threads::Count(n))
            .plan(&spec)
            .expect("plan")
    };
    (plan(1), plan(2))
}

fn data(len: usize) -> Vec<BabyBear> {
    (0..len as u32).map(BabyBear::new).collect()
}

/// The yardstick before: a `black_box` per word keeps it scalar.
fn sweep_per_word(words: &mut [u64]) {
    words
        .par_chunks_mut(1 << 14)
        .for_each(|c| c.iter_mut().for_each(|w| *w = black_box(*w) + 1));
}

fn copy(src: &[u64], dst: &mut [u64]) {
    dst.par_chunks_mut(1 << 14)
        .zip(src.par_chunks(1 << 14))
        .for_each(|(d, s)| d.copy_from_slice(black_box(s)));
}

fn timed(mut f: impl FnMut()) -> impl FnMut() -> Duration {
    move || {
        let start = std::time::Instant::now();
        f();
        start.elapsed()
    }
}

fn summary() {
    let rounds = if std::env::var_os("NTTFUSE_BENCH_QUICK").is_some() {
        11
    } else {
        101
    };
    println!("threads: BabyBear DFT × 56 columns, medians of {rounds} interleaved rounds (µs)");
    for log_n in 9..=16 {
        let (one, two) = dft_plans(log_n);
        let (mut a, mut b) = (data(one.len()), data(two.len()));
        let mut run_one = timed(|| one.execute(&mut a).expect("execute"));
        let mut run_two = timed(|| two.execute(&mut b).expect("execute"));
        let t = common::interleaved_medians(rounds, &mut [&mut run_one, &mut run_two]);
        let serial = two.to_string().contains("runs on the calling thread");
        println!(
            "  2^{log_n:<2}  1 thread {:>9.1}  2 threads {:>9.1}  ratio {:.2}{}",
            t[0].as_secs_f64() * 1e6,
            t[1].as_secs_f64() * 1e6,
            t[1].as_secs_f64() / t[0].as_secs_f64(),
            if serial {
                "  (plan: on the calling thread)"
            } else {
                ""
            }
        );
    }
    println!("sweep: one read+write pass, all threads, medians of 21 interleaved rounds (ms)");
    for mib in [16usize, 64] {
        let n = (mib << 20) / 8;
        let (mut w1, mut w2, src, mut dst) =
            (vec![1u64; n], vec![1u64; n], vec![1u64; n], vec![0u64; n]);
        let mut ours = timed(|| common::sweep(&mut w1));
        let mut per_word = timed(|| sweep_per_word(&mut w2));
        let mut copied = timed(|| copy(&src, &mut dst));
        let t = common::interleaved_medians(21, &mut [&mut ours, &mut per_word, &mut copied]);
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        println!(
            "  {mib:>3} MiB  yardstick {:.3}  black_box per word {:.3} ({:.2}×)  copy_from_slice {:.3} ({:.2}×)",
            ms(t[0]),
            ms(t[1]),
            ms(t[1]) / ms(t[0]),
            ms(t[2]),
            ms(t[2]) / ms(t[0]),
        );
    }
}

fn overhead(c: &mut Criterion) {
    summary();
    let mut group = c.benchmark_group("threads");
    for log_n in [9, 13, 14] {
        let (one, two) = dft_plans(log_n);
        let mut a = data(one.len());
        group.bench_function(format!("dft_2e{log_n}x56/1"), |b| {
            b.iter(|| one.execute(&mut a).expect("execute"))
        });
        group.bench_function(format!("dft_2e{log_n}x56/2"), |b| {
            b.iter(|| two.execute(&mut a).expect("execute"))
        });
    }
    group.finish();
    let mut group = c.benchmark_group("sweep");
    let mut words = vec![1u64; (64 << 20) / 8];
    group.bench_function("64MiB/yardstick", |b| b.iter(|| common::sweep(&mut words)));
    group.bench_function("64MiB/black_box_per_word", |b| {
        b.iter(|| sweep_per_word(&mut words))
    });
    group.finish();
}

criterion_group!(benches, overhead);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
}

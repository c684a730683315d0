//! ML-KEM-512, -768 and -1024 (FIPS 203) on nttfuse's NTT: KeyGen, Encaps
//! and Decaps from fixed seeds, a round-trip check, the time per operation
//! (median of many runs, one thread) and the share of it spent in the calls
//! into nttfuse (`ring.rs`, the only module that uses the crate).
//!
//! ```text
//! cargo run --release --example mlkem_kem
//! ```
//!
//! The share is given two ways: *timed* wraps every nttfuse call in two
//! `Instant::now` (a few tens of ns each, so it overstates the share), and
//! *estimated* multiplies each operation's call counts by the median time
//! of each call measured alone (warm caches, so it may understate it).
//! The implementation is in `kem.rs` (algorithms), `auxiliary.rs` (hashes,
//! encodings, sampling) and `ring.rs` (the NTT layer); `tests/mlkem_kem.rs`
//! checks it against C2SP CCTV's intermediate values.

// Shared with tests/mlkem_kem.rs; the example uses only part of them (not
// the ipd variant, the traces or the individual checks).
#[allow(dead_code)]
mod auxiliary;
#[allow(dead_code)]
mod kem;
#[allow(dead_code)]
mod ring;

use kem::{Kem, Params, ML_KEM_1024, ML_KEM_512, ML_KEM_768};
use ring::{Op, Poly, Ring};
use std::hint::black_box;
use std::time::Instant;

/// Runs per timed operation (an odd count, so the median is one run).
const RUNS: usize = 1001;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let per_call = time_ring_calls()?;
    println!("ML-KEM (FIPS 203) on nttfuse, one thread, median of {RUNS} runs per operation");
    println!(
        "one call into nttfuse (ring.rs, conversions included): NTT {:.0} ns, NTT⁻¹ {:.0} ns, \
         product {:.0} ns, product-accumulate {:.0} ns\n",
        per_call[0], per_call[1], per_call[2], per_call[3]
    );
    println!(
        "{:<12} {:<7} {:>10} {:>16} {:>22}",
        "", "", "median", "nttfuse calls", "nttfuse share"
    );
    println!(
        "{:<12} {:<7} {:>10} {:>16} {:>22}",
        "", "", "", "NTT/inv/mul/acc", "estimated / timed"
    );
    for (i, params) in [ML_KEM_512, ML_KEM_768, ML_KEM_1024]
        .into_iter()
        .enumerate()
    {
        run(params, i as u8, &per_call)?;
    }
    Ok(())
}

/// One parameter set: the round trip, then the three timed operations.
fn run(params: Params, seed: u8, per_call: &[f64; 4]) -> Result<(), Box<dyn std::error::Error>> {
    let kem = Kem::new(params)?;
    let (d, z, m) = ([seed; 32], [seed + 0x40; 32], [seed + 0x80; 32]);
    let (ek, dk) = kem.key_gen(&d, &z)?;
    let (key, c) = kem.encaps(&ek, &m)?;
    if kem.decaps(&dk, &c)? != key {
        return Err(format!("{}: Decaps did not recover the shared secret", params.name).into());
    }
    let prefix: String = key[..8].iter().map(|b| format!("{b:02x}")).collect();
    println!(
        "{}: round trip ok, K = {prefix}…  (ek {} B, dk {} B, c {} B)",
        params.name,
        ek.len(),
        dk.len(),
        c.len()
    );
    report(
        "KeyGen",
        &|| drop(black_box(kem.key_gen(black_box(&d), &z))),
        per_call,
    );
    report(
        "Encaps",
        &|| drop(black_box(kem.encaps(black_box(&ek), &m))),
        per_call,
    );
    report(
        "Decaps",
        &|| drop(black_box(kem.decaps(black_box(&dk), &c))),
        per_call,
    );
    Ok(())
}

/// Times `op` and prints its line: median, nttfuse calls per run, and the
/// share of the time in them.
fn report(name: &str, op: &dyn Fn(), per_call: &[f64; 4]) {
    let (median, calls) = time_operation(op);
    let estimated: f64 = (0..4).map(|i| calls[i] * per_call[i]).sum::<f64>() / median;
    let timed = timed_share(op);
    println!(
        "{:<12} {:<7} {:>7.1} µs {:>16} {:>10.0}% / {:>3.0}%",
        "",
        name,
        median / 1e3,
        format!("{}/{}/{}/{}", calls[0], calls[1], calls[2], calls[3]),
        100.0 * estimated,
        100.0 * timed
    );
}

/// The median time of `op` in ns and its calls into nttfuse per run.
fn time_operation(op: &dyn Fn()) -> (f64, [f64; 4]) {
    op(); // warm-up
    ring::set_timing(false);
    ring::reset_stats();
    let mut samples: Vec<u64> = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            op();
            start.elapsed().as_nanos() as u64
        })
        .collect();
    let calls = ring::stats().calls.map(|n| n as f64 / RUNS as f64);
    samples.sort_unstable();
    (samples[RUNS / 2] as f64, calls)
}

/// The share of `op`'s wall time spent inside nttfuse calls, each timed.
fn timed_share(op: &dyn Fn()) -> f64 {
    ring::set_timing(true);
    ring::reset_stats();
    let start = Instant::now();
    for _ in 0..RUNS {
        op();
    }
    let total = start.elapsed().as_nanos() as f64;
    ring::set_timing(false);
    ring::stats().nanos as f64 / total
}

/// The median ns of one call of each [`Op`], each in a loop of its own.
fn time_ring_calls() -> Result<[f64; 4], kem::KemError> {
    const BATCH: usize = 64;
    let ring = Ring::new()?;
    let a: Poly = core::array::from_fn(|i| ((i * 1103 + 7) % 3329) as i16);
    let b: Poly = core::array::from_fn(|i| ((i * i * 31 + 3) % 3329) as i16);
    let mut acc = a;
    let mut per_call = [0.0; 4];
    for op in Op::ALL {
        let mut samples = Vec::with_capacity(RUNS);
        for _ in 0..RUNS {
            let start = Instant::now();
            for _ in 0..BATCH {
                match op {
                    Op::Ntt => drop(black_box(ring.ntt(black_box(&a))?)),
                    Op::InverseNtt => drop(black_box(ring.inverse_ntt(black_box(&a))?)),
                    Op::Multiply => drop(black_box(ring.multiply_ntts(black_box(&a), &b))),
                    Op::MultiplyAccumulate => ring.multiply_accumulate(black_box(&mut acc), &a, &b),
                }
            }
            samples.push(start.elapsed().as_nanos() as f64 / BATCH as f64);
        }
        samples.sort_unstable_by(f64::total_cmp);
        per_call[op as usize] = samples[RUNS / 2];
    }
    Ok(per_call)
}

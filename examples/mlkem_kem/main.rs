//! ML-KEM-512, -768 and -1024 (FIPS 203) on nttfuse's NTT: KeyGen, Encaps
//! and Decaps from fixed seeds, a round-trip check, the time per operation
//! (median of many runs, one thread), what each operation asks of nttfuse
//! and the share of its time spent there (`ring.rs`, the only module that
//! uses the crate).
//!
//! ```text
//! RUSTFLAGS="-C target-cpu=native" cargo run --release --example mlkem_kem
//! ```
//!
//! (Built without `target-cpu=native`, nttfuse's x86-64 ring NTT kernels
//! currently run far slower, about 2 µs per polynomial instead of 50 ns on
//! an AVX-512 host, and the share below grows accordingly.)
//!
//! ring.rs runs the NTTs in place on the KEM's `[i16; 256]` polynomials
//! (`execute_raw`, zero-copy), one call per vector of k polynomials (ŝ, ê,
//! ŷ, NTT(u′), u) and one per lone polynomial (v, w), and the NTT-domain
//! products as `MlKemProducts` multiply-accumulates: ŝ's caches serve every
//! row of Â·ŝ, ŷ's every row of Âᵀ·ŷ and t̂ᵀ·ŷ, as mlkem-native's mulcache.
//! Values private to K-PKE stay lazily reduced; what FIPS 203 encodes,
//! decodes or samples in the NTT domain (t̂, ŝ, Â) is canonical and in the
//! standard order (ring.rs's module doc has the table and the reasons).
//!
//! The report gives per operation the calls into nttfuse (and the
//! polynomials or product terms they handle) and the *share* of the
//! operation's time inside them: every call timed with two `Instant::now`,
//! whose own cost (measured first, on calls that do nothing) is taken out
//! of both the calls' time and the operation's. The peer harness
//! (`benches/peers`, `--only kem`) times the same code against libcrux and
//! RustCrypto's ml-kem.
//!
//! The implementation is in `kem.rs` (algorithms), `auxiliary.rs` (hashes,
//! encodings, sampling) and `ring.rs` (the NTT layer); `tests/mlkem_kem.rs`
//! checks it against C2SP CCTV's intermediate values.

// Shared with tests/mlkem_kem.rs and benches/peers; the example uses only
// part of them (not the ipd variant, the traces or the individual checks).
#[allow(dead_code)]
mod auxiliary;
#[allow(dead_code)]
mod kem;
#[allow(dead_code)]
mod ring;

use kem::{Kem, Params, ML_KEM_1024, ML_KEM_512, ML_KEM_768};
use ring::{Op, TimerCost};
use std::hint::black_box;
use std::time::Instant;

/// Runs per timed operation (an odd count, so the median is one run).
const RUNS: usize = 1001;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cost = ring::timer_cost();
    let (ntt_backend, products_backend) =
        ring::Ring::new(2).map_err(kem::KemError::from)?.backends();
    println!("ML-KEM (FIPS 203) on nttfuse, one thread, median of {RUNS} runs per operation");
    println!(
        "nttfuse backends: {ntt_backend} (NTT), {products_backend} (products); a timed call \
         costs {:.0} ns more, {:.0} ns of it inside (subtracted from the share)\n",
        cost.per_call, cost.inside
    );
    println!(
        "{:<9}{:>9}   {:<32}{:>7}",
        "", "median", "calls into nttfuse, polys/terms", "nttfuse"
    );
    println!(
        "{:<9}{:>9}   {:<8}{:<8}{:<8}{:<8}{:>7}",
        "", "", "NTT", "NTT⁻¹", "cache", "mul-acc", "share"
    );
    for (i, params) in [ML_KEM_512, ML_KEM_768, ML_KEM_1024]
        .into_iter()
        .enumerate()
    {
        run(params, i as u8, cost)?;
    }
    Ok(())
}

/// One parameter set: the round trip, then the three timed operations.
fn run(params: Params, seed: u8, cost: TimerCost) -> Result<(), Box<dyn std::error::Error>> {
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
        cost,
    );
    report(
        "Encaps",
        &|| drop(black_box(kem.encaps(black_box(&ek), &m))),
        cost,
    );
    report(
        "Decaps",
        &|| drop(black_box(kem.decaps(black_box(&dk), &c))),
        cost,
    );
    Ok(())
}

/// Times `op` and prints its line: median, nttfuse calls per run, and the
/// share of the time in them.
fn report(name: &str, op: &dyn Fn(), cost: TimerCost) {
    let (median, stats) = time_operation(op);
    let calls: Vec<String> = Op::ALL
        .iter()
        .map(|&op| {
            let i = op as usize;
            format!("{} ({})", stats.calls[i], stats.polys[i])
        })
        .collect();
    println!(
        "  {:<7}{:>6.1} µs   {:<8}{:<8}{:<8}{:<8}{:>6.0}%",
        name,
        median / 1e3,
        calls[0],
        calls[1],
        calls[2],
        calls[3],
        100.0 * timed_share(op, cost)
    );
}

/// The median time of `op` in ns and its calls into nttfuse in one run.
fn time_operation(op: &dyn Fn()) -> (f64, ring::Stats) {
    op(); // warm-up
    ring::set_timing(false);
    ring::reset_stats();
    op();
    let calls = ring::stats();
    let mut samples: Vec<u64> = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            op();
            start.elapsed().as_nanos() as u64
        })
        .collect();
    samples.sort_unstable();
    (samples[RUNS / 2] as f64, calls)
}

/// The share of `op`'s wall time spent inside nttfuse calls, each timed
/// (the timers' cost taken out).
fn timed_share(op: &dyn Fn(), cost: TimerCost) -> f64 {
    ring::set_timing(true);
    ring::reset_stats();
    let start = Instant::now();
    for _ in 0..RUNS {
        op();
    }
    let total = start.elapsed().as_nanos() as f64;
    ring::set_timing(false);
    ring::stats().share(total, cost)
}

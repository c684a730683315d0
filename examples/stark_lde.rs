//! The commit-phase LDE of a STARK trace: a BabyBear trace matrix of
//! 2^log_rows rows × columns, given as evaluations on the trace domain, is
//! extended by a blowup of 2 onto the coset g·⟨ω_(2·rows)⟩ in bit-reversed
//! order (what FRI and Merkle commitments consume). Prints the plans, the
//! time, and the sweeps (time ÷ one read+write pass over the LDE buffer,
//! same run); checks a sample row against the definition.
//!
//! ```text
//! cargo run --release --example stark_lde [log_rows] [columns]
//! ```

use nttfuse::*;
use rayon::prelude::*;
use std::time::{Duration, Instant};

fn median(runs: usize, mut f: impl FnMut()) -> Duration {
    f();
    let mut t: Vec<Duration> = (0..runs)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed()
        })
        .collect();
    t.sort();
    t[runs / 2]
}

fn main() -> Result<(), Error> {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let log_rows = args.first().copied().unwrap_or(18) as u32;
    let columns = args.get(1).copied().unwrap_or(64);
    let shift = BabyBear::multiplicative_generator();

    let trace: Vec<BabyBear> = (0..columns << log_rows)
        .map(|i| BabyBear::from_u64((i as u64).wrapping_mul(2654435761) ^ 0x1234))
        .collect();
    let lde = Planner::new().plan(
        &Transform::<BabyBear>::coset_lde(log_rows, LogBlowup(1))
            .shift(shift)
            .lanes(columns)
            .order(Order::BitReversed),
    )?;
    println!("{lde}\n");

    let mut out = vec![BabyBear::ZERO; lde.len()];
    // The LDE against its own two plans run one after the other (the
    // coefficients go to memory between them), in alternating rounds.
    let mut unfused = vec![BabyBear::ZERO; lde.len()];
    let [idft, encode] = lde.plans()[..] else {
        unreachable!("a coset LDE runs two plans")
    };
    let (mut fused_times, mut unfused_times) = (Vec::new(), Vec::new());
    for round in 0..6 {
        let start = Instant::now();
        lde.execute_from(&trace, &mut out)?;
        let fused = start.elapsed();
        let start = Instant::now();
        idft.execute_from(&trace, &mut unfused[..lde.input_len()])?;
        encode.execute(&mut unfused)?;
        if round > 0 {
            // Round 0 warms up (first touches, scratch).
            fused_times.push(fused);
            unfused_times.push(start.elapsed());
        }
    }
    assert!(
        out == unfused,
        "the fused LDE equals its two plans run apart"
    );
    fused_times.sort();
    unfused_times.sort();
    let time = fused_times[fused_times.len() / 2];
    let two_plans = unfused_times[unfused_times.len() / 2];
    let mut words = vec![1u64; lde.len() / 2];
    let sweep = median(5, || {
        // The fastest plain pass (see the quickstart's `sweep`).
        words.par_chunks_mut(1 << 14).for_each(|c| {
            std::hint::black_box(c)
                .iter_mut()
                .for_each(|w| *w = w.wrapping_add(1))
        })
    });
    let bytes = lde.len() * 4;
    println!(
        "LDE 2^{log_rows} × {columns} (+1 bit) on {} threads: {:.2} ms, {:.2} GB/s of output; one read+write sweep of the {} MiB output: {:.2} ms; LDE = {:.1} sweeps (plans predict {:.1})",
        rayon::current_num_threads(),
        time.as_secs_f64() * 1e3,
        bytes as f64 / time.as_secs_f64() / 1e9,
        bytes >> 20,
        sweep.as_secs_f64() * 1e3,
        time.as_secs_f64() / sweep.as_secs_f64(),
        lde.sweeps(),
    );
    if lde.is_fused() {
        println!(
            "the same two plans run one after the other: {:.2} ms; fused ÷ two plans = {:.2}",
            two_plans.as_secs_f64() * 1e3,
            time.as_secs_f64() / two_plans.as_secs_f64()
        );
    }

    // Spot check: output row k (bit-reversed) is the column-0 interpolant at
    // shift · ω_(2n)^BitRev(k).
    let n = 1usize << log_rows;
    let column: Vec<BabyBear> = (0..n).map(|r| trace[r * columns]).collect();
    let coeffs = {
        let plan = Planner::new().plan(&Transform::<BabyBear>::idft(log_rows))?;
        let mut c = vec![BabyBear::ZERO; n];
        plan.execute_from(&column, &mut c)?;
        c
    };
    let omega = BabyBear::two_adic_generator(log_rows as usize + 1).expect("two-adic");
    for k in [0usize, 1, 2 * n / 3, 2 * n - 1] {
        let point = shift * omega.pow(transform::bit_reverse(k, log_rows as usize + 1) as u64);
        let value = coeffs
            .iter()
            .rev()
            .fold(BabyBear::ZERO, |acc, &c| acc * point + c);
        assert_eq!(out[k * columns], value, "row {k}");
    }
    println!("sampled rows equal the interpolant evaluated on the coset");
    Ok(())
}

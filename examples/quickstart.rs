//! The headline transforms of both worlds: plan them, print the plans, run
//! them, and compare each time with one plain read+write sweep of the same
//! buffer (measured in the same run).
//!
//! ```text
//! cargo run --release --example quickstart
//! ```

use nttfuse::*;
use rayon::prelude::*;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Median wall time of `runs` calls of `f`.
fn median(runs: usize, mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[runs / 2]
}

/// One read+write pass over `words`, on all threads: the memory-bandwidth
/// yardstick a transform's time is divided by ("sweeps"). The fastest plain
/// pass we could write: each chunk hidden from the optimiser once, then
/// incremented in whole vector registers in place (a `black_box` per word
/// took 1.7–2.6× as long, a `copy_from_slice` into a second buffer 1.3–2.2×).
fn sweep(words: &mut [u64]) {
    words
        .par_chunks_mut(1 << 14)
        .for_each(|c| black_box(c).iter_mut().for_each(|w| *w = w.wrapping_add(1)));
}

fn sweep_time(bytes: usize, runs: usize) -> Duration {
    let mut words = vec![1u64; bytes / 8];
    sweep(&mut words);
    median(runs, || sweep(&mut words))
}

fn report<F: Kernels>(plan: &Plan<F>, input: &[F], runs: usize) -> Result<(), Error> {
    println!("{plan}");
    let mut data = vec![F::zero(); plan.len()];
    plan.execute_from(input, &mut data)?; // warm-up: first touch, scratch
    let time = median(runs, || {
        plan.execute_from(input, &mut data).expect("execute")
    });
    let sweep = sweep_time(plan.cost().data_bytes, runs);
    let ratio = time.as_secs_f64() / sweep.as_secs_f64();
    println!(
        "=> {:.2} ms (median of {runs}); one read+write sweep of the {} MiB buffer: {:.2} ms; transform = {ratio:.1} sweeps",
        time.as_secs_f64() * 1e3,
        plan.cost().data_bytes >> 20,
        sweep.as_secs_f64() * 1e3,
    );
    explain(plan.cost().sweeps as f64, ratio);
    Ok(())
}

/// One line on predicted against measured sweeps.
fn explain(predicted: f64, measured: f64) {
    let why = if measured > 1.5 * predicted {
        format!(
            "compute-bound here: the butterflies on {} core(s) take longer than moving the data",
            rayon::current_num_threads()
        )
    } else {
        "memory-bound, as predicted".to_string()
    };
    println!("   (the plan's {predicted:.1} sweeps count its memory traffic; measured {measured:.1}: {why})\n");
}

fn mlkem() -> Result<(), Error> {
    let planner = Planner::new().threads(Threads::Count(1));
    let forward = planner.plan(&Transform::<MlKem>::negacyclic_forward())?;
    let inverse = planner.plan(&Transform::<MlKem>::negacyclic_inverse())?;
    println!("{forward}\n");
    println!("{inverse}");
    let poly: Vec<MlKem> = (0..256u64).map(|i| MlKem::from_u64(i * 1103 + 7)).collect();
    let mut data = poly.clone();
    const CALLS: usize = 20_000;
    let per_call = |plan: &Plan<MlKem>, data: &mut Vec<MlKem>| {
        median(5, || {
            for _ in 0..CALLS {
                plan.execute(black_box(data)).expect("execute");
            }
        })
        .as_secs_f64()
            / CALLS as f64
    };
    let f = per_call(&forward, &mut data);
    let i = per_call(&inverse, &mut data);
    // 7 layers × 128 butterflies.
    println!(
        "=> ML-KEM NTT {:.0} ns, inverse {:.0} ns per polynomial ({:.2} / {:.2} ns per butterfly), {} backend\n",
        f * 1e9,
        i * 1e9,
        f * 1e9 / 896.0,
        i * 1e9 / 896.0,
        forward.backend().name()
    );
    let mut check = poly.clone();
    forward.execute(&mut check)?;
    inverse.execute(&mut check)?;
    assert_eq!(check, poly, "inverse undoes forward");
    Ok(())
}

fn main() -> Result<(), Error> {
    println!(
        "nttfuse quickstart: {} threads; backends: ML-KEM {}, BabyBear {}, Gf2_64 {}\n",
        rayon::current_num_threads(),
        Backend::detect::<MlKem>().name(),
        Backend::detect::<BabyBear>().name(),
        Backend::detect::<Gf2_64>().name()
    );
    mlkem()?;

    let dft = Planner::new().plan(&Transform::<BabyBear>::dft(20).lanes(64))?;
    let input: Vec<BabyBear> = (0..dft.input_len() as u64)
        .map(BabyBear::from_u64)
        .collect();
    report(&dft, &input, 3)?;

    // The STARK commit-phase LDE (Plonky3's coset_lde_batch): 2^18 × 64
    // BabyBear evaluations to the coset of 2^19, bit-reversed for FRI; its
    // inverse DFT's last pass and the encode's first run as one.
    let lde = Planner::new().plan(
        &Transform::<BabyBear>::coset_lde(18, LogBlowup(1))
            .shift(BabyBear::multiplicative_generator())
            .lanes(64)
            .order(Order::BitReversed),
    )?;
    println!("{lde}");
    let mut extended = vec![BabyBear::ZERO; lde.len()];
    let evals = &input[..lde.input_len()];
    lde_report(lde.len() * 4, lde.sweeps(), || {
        lde.execute_from(evals, &mut extended)
    })?;

    let encode =
        Planner::new().plan(&Transform::<Gf2_64>::additive_encode(20, LogBlowup(1)).lanes(8))?;
    let message: Vec<Gf2_64> = (0..encode.input_len() as u64)
        .map(|i| Gf2_64::new(i.wrapping_mul(0x9e37_79b9_7f4a_7c15)))
        .collect();
    report(&encode, &message, 5)?;

    // The binary-field LDE from evaluations (p3-binary-dft's lde_batch):
    // systematic at rate 1/2, its inverse and forward NTTs fused.
    let lde = Planner::new().plan(
        &Transform::<Gf2_64>::additive_lde(19, LogBlowup(1))
            .basis(Basis::Cantor)
            .lanes(8),
    )?;
    println!("{lde}");
    let mut extended = vec![Gf2_64::ZERO; lde.len()];
    lde_report(lde.len() * 8, lde.sweeps(), || {
        lde.execute_from(&message, &mut extended)
    })?;
    assert_eq!(extended[..message.len()], message[..], "systematic");
    Ok(())
}

/// Times an LDE (`run`, writing `bytes` of output) after a warm-up run and
/// prints it against one read+write sweep of its output.
fn lde_report(
    bytes: usize,
    predicted: f64,
    mut run: impl FnMut() -> Result<(), Error>,
) -> Result<(), Error> {
    run()?; // warm-up
    let time = median(5, || run().expect("execute"));
    let sweep = sweep_time(bytes, 5);
    let measured = time.as_secs_f64() / sweep.as_secs_f64();
    println!(
        "=> {:.2} ms (median of 5); one read+write sweep of the {} MiB output: {:.2} ms; LDE = {measured:.1} sweeps",
        time.as_secs_f64() * 1e3,
        bytes >> 20,
        sweep.as_secs_f64() * 1e3,
    );
    explain(predicted, measured);
    Ok(())
}

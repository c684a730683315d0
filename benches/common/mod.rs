//! Shared by the benches: the plain memory sweep that "sweeps" are measured in.

use rayon::prelude::*;
use std::hint::black_box;

/// One read+write pass over `words` on all threads of the current pool: the
/// bandwidth yardstick (a transform taking k times as long is "k sweeps").
/// It is the fastest plain pass we could write: each chunk is hidden from
/// the optimiser once (`black_box` on the slice), then incremented in whole
/// vector registers in place. A `black_box` per word (this yardstick before)
/// took 1.7–2.6× as long, and `copy_from_slice` into a second buffer
/// 1.3–2.2× (Intel Xeon, 1 and 2 threads, 16–256 MiB), so every sweep count
/// measured against it is an honest one.
pub fn sweep(words: &mut [u64]) {
    let bump = |c: &mut [u64]| black_box(c).iter_mut().for_each(|w| *w += 1);
    words.par_chunks_mut(1 << 14).for_each(bump);
}

/// The ceiling of the register groups' own instructions for `F` on the
/// detected backend (`Backend::register_rounds`: radix-8 butterflies on
/// registers only, no memory traffic; 1 thread), in ns per lane-butterfly;
/// `None` where that backend has no packed kernel for `F`.
pub fn register_ceiling_ns<F: nttfuse::Kernels>() -> Option<f64> {
    let backend = nttfuse::Backend::detect::<F>();
    let mut data: Vec<F> = (1..=256u64).map(|i| F::from_u64(i * 0x9e37_79b9)).collect();
    let twiddles: [F; 7] = core::array::from_fn(|k| F::from_u64(0x1234_5678_9abc_def1 ^ k as u64));
    let mut butterflies = 0;
    let t = median(7, || {
        butterflies = backend
            .register_rounds(&mut data, &twiddles, 100_000)
            .unwrap_or(0);
    });
    (butterflies > 0).then(|| t.as_secs_f64() * 1e9 / butterflies as f64)
}

/// The median of `runs` timings of `f` after one warm-up run; what `f`
/// returns is dropped after its timing stops.
pub fn median<R>(runs: usize, mut f: impl FnMut() -> R) -> std::time::Duration {
    median_fresh(runs, || (), |()| f())
}

/// [`median`] for APIs that consume their input (Plonky3's `dft_batch` takes
/// the matrix by value): `make` builds each run's input before its timing
/// starts, so the copy is never timed.
pub fn median_fresh<T, R>(
    runs: usize,
    make: impl FnMut() -> T,
    f: impl FnMut(T) -> R,
) -> std::time::Duration {
    let mut run = timed_fresh(make, f);
    run();
    let mut times: Vec<std::time::Duration> = (0..runs).map(|_| run()).collect();
    times.sort();
    times[runs / 2]
}

/// One timed run: builds its input (untimed), then times `f` on it; what
/// `f` returns is dropped after the timing stops.
pub fn timed_fresh<T, R>(
    mut make: impl FnMut() -> T,
    mut f: impl FnMut(T) -> R,
) -> impl FnMut() -> std::time::Duration {
    move || {
        let input = make();
        let start = std::time::Instant::now();
        let out = f(input);
        let elapsed = start.elapsed();
        drop(out);
        elapsed
    }
}

/// One timed run of `f` on a copy of `input` made just before it starts
/// (untimed), so that our out-of-place runs find their input as warm in the
/// caches as a peer finds the matrix copied for it.
pub fn timed_on_copy<'a, T: Clone>(
    input: &'a [T],
    mut f: impl FnMut(&[T]) + 'a,
) -> impl FnMut() -> std::time::Duration + 'a {
    timed_fresh(
        move || input.to_vec(),
        move |copy| {
            f(&copy);
            copy
        },
    )
}

/// The median time of each contestant, measured in alternating rounds
/// (one warm-up round, then `rounds` rounds of one run each, in turn), so
/// that a slow phase of a shared host hits every contestant alike instead
/// of whichever happened to be running. Each round starts one contestant
/// later than the last (round k runs k, k + 1, …, wrapping): on 2 threads
/// the run right after another of ours measured up to 1.3 × slower than
/// the same run placed first, whichever it was, so a fixed order would
/// favour the first.
#[allow(dead_code, reason = "not every bench compares contestants")]
pub fn interleaved_medians(
    rounds: usize,
    contestants: &mut [&mut dyn FnMut() -> std::time::Duration],
) -> Vec<std::time::Duration> {
    let n = contestants.len();
    let mut times = vec![Vec::with_capacity(rounds); n];
    for round in 0..=rounds {
        for i in 0..n {
            let c = (round + i) % n;
            let t = contestants[c]();
            if round > 0 {
                times[c].push(t);
            }
        }
    }
    times
        .into_iter()
        .map(|mut t| {
            t.sort();
            t[t.len() / 2]
        })
        .collect()
}

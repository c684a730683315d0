//! Shared by the benches: the plain memory sweep that "sweeps" are measured in.

use rayon::prelude::*;
use std::hint::black_box;

/// One read+write pass over `words` on all threads of the current pool: the
/// bandwidth yardstick (a transform taking k times as long is "k sweeps").
pub fn sweep(words: &mut [u64]) {
    words.par_chunks_mut(1 << 14).for_each(|c| {
        c.iter_mut()
            .for_each(|w| *w = black_box(*w).wrapping_add(1))
    });
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
    mut make: impl FnMut() -> T,
    mut f: impl FnMut(T) -> R,
) -> std::time::Duration {
    drop(f(make()));
    let mut times: Vec<std::time::Duration> = (0..runs)
        .map(|_| {
            let input = make();
            let start = std::time::Instant::now();
            let out = f(input);
            let elapsed = start.elapsed();
            drop(out);
            elapsed
        })
        .collect();
    times.sort();
    times[runs / 2]
}

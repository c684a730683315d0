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

//! Data parallelism: rayon's with the `std` feature; without it (`no_std`)
//! every loop runs on the calling thread, visiting the same items in index
//! order, so outputs are the same bits either way.

#[cfg(feature = "std")]
use rayon::prelude::*;

/// `f(i)` for every `i < n`, spread over the installed rayon pool in runs of
/// at least `min_len` indices when `parallel`.
pub(crate) fn for_each_index(
    parallel: bool,
    n: usize,
    min_len: usize,
    f: impl Fn(usize) + Sync + Send,
) {
    #[cfg(feature = "std")]
    if parallel {
        (0..n).into_par_iter().with_min_len(min_len).for_each(f);
        return;
    }
    let _ = (parallel, min_len);
    (0..n).for_each(f);
}

/// `f((i, chunk i))` for the `len`-element chunks of `data` (the last may
/// be shorter), in parallel when `parallel`.
pub(crate) fn for_each_chunk<T: Send>(
    parallel: bool,
    data: &mut [T],
    len: usize,
    f: impl Fn((usize, &mut [T])) + Sync + Send,
) {
    #[cfg(feature = "std")]
    if parallel {
        data.par_chunks_mut(len).enumerate().for_each(f);
        return;
    }
    let _ = parallel;
    data.chunks_mut(len).enumerate().for_each(f);
}

/// `f(d, s)` for the matching `len`-element chunks of `dst` and `src`, in
/// parallel when `parallel`.
pub(crate) fn for_each_chunk_pair<T: Send + Sync>(
    parallel: bool,
    dst: &mut [T],
    src: &[T],
    len: usize,
    f: impl Fn(&mut [T], &[T]) + Sync + Send,
) {
    #[cfg(feature = "std")]
    if parallel {
        dst.par_chunks_mut(len)
            .zip(src.par_chunks(len))
            .for_each(|(d, s)| f(d, s));
        return;
    }
    let _ = parallel;
    dst.chunks_mut(len)
        .zip(src.chunks(len))
        .for_each(|(d, s)| f(d, s));
}

/// Threads of the current rayon pool (1 without `std`).
pub(crate) fn current_num_threads() -> usize {
    #[cfg(feature = "std")]
    {
        rayon::current_num_threads()
    }
    #[cfg(not(feature = "std"))]
    {
        1
    }
}

/// A plan's thread pool.
#[cfg(feature = "std")]
pub(crate) type Pool = rayon::ThreadPool;

/// A plan's thread pool: without `std` there is only the calling thread.
#[cfg(not(feature = "std"))]
#[derive(Debug)]
pub(crate) struct Pool;

#[cfg(not(feature = "std"))]
impl Pool {
    /// Runs `f` (on the calling thread).
    pub(crate) fn install<R>(&self, f: impl FnOnce() -> R) -> R {
        f()
    }
}

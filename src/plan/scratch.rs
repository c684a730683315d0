//! Per-thread scratch that outlives executions: buffers are taken from a
//! pool and returned. The pool is filled at plan time with one buffer per
//! thread, so executions allocate nothing (a caller running the plan from
//! more threads at once than that grows the pool once).

use crate::error::Error;
use std::sync::Mutex;

pub(super) struct ScratchPool<F> {
    len: usize,
    free: Mutex<Vec<Vec<F>>>,
}

impl<F: Copy + Default> ScratchPool<F> {
    /// One buffer of `len` elements per thread, or
    /// [`Error::OutOfMemory`] if the allocator cannot provide them (a huge
    /// thread count).
    pub(super) fn new(len: usize, threads: usize) -> Result<Self, Error> {
        let buffers = if len == 0 { 0 } else { threads };
        let out_of_memory = || Error::OutOfMemory {
            what: "per-thread scratch buffers",
            bytes: len
                .saturating_mul(buffers)
                .saturating_mul(core::mem::size_of::<F>()),
        };
        let mut free = Vec::new();
        free.try_reserve_exact(buffers)
            .map_err(|_| out_of_memory())?;
        for _ in 0..buffers {
            let mut buf = Vec::new();
            buf.try_reserve_exact(len).map_err(|_| out_of_memory())?;
            buf.resize(len, F::default());
            free.push(buf);
        }
        Ok(Self {
            len,
            free: Mutex::new(free),
        })
    }

    /// Elements of each buffer.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Runs `f` with a scratch buffer of the pool's length.
    pub(super) fn with<R>(&self, f: impl FnOnce(&mut [F]) -> R) -> R {
        let taken = self.free.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let mut buf = taken.unwrap_or_else(|| vec![F::default(); self.len]);
        let result = f(&mut buf);
        self.free
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(buf);
        result
    }
}

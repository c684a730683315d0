//! Per-thread scratch that outlives executions: buffers are taken from a
//! pool and returned. The pool is filled at plan time with one buffer per
//! thread, so executions allocate nothing (a caller running the plan from
//! more threads at once than that grows the pool once).

use std::sync::Mutex;

pub(super) struct ScratchPool<F> {
    len: usize,
    free: Mutex<Vec<Vec<F>>>,
}

impl<F: Copy + Default> ScratchPool<F> {
    pub(super) fn new(len: usize, threads: usize) -> Self {
        let buffers = if len == 0 { 0 } else { threads };
        Self {
            len,
            free: Mutex::new((0..buffers).map(|_| vec![F::default(); len]).collect()),
        }
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

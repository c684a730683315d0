//! Per-thread scratch that outlives executions: buffers are taken from a
//! pool and returned. The pool is filled at plan time with one buffer per
//! thread, so executions allocate nothing (a caller running the plan from
//! more threads at once than that grows the pool once).

use crate::error::Error;
use crate::sync::Mutex;
use alloc::vec::Vec;

pub(super) struct ScratchPool<F> {
    /// Elements handed out per buffer; each buffer holds [`slack`] more, so
    /// its hand-out can start at any 64-byte phase.
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
            buf.try_reserve_exact(len + slack::<F>())
                .map_err(|_| out_of_memory())?;
            buf.resize(len + slack::<F>(), F::default());
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

    /// Runs `f` with a scratch buffer of the pool's length that starts at
    /// the same offset within a 64-byte line as the address `like` (where
    /// the element size allows): rows of a tile in scratch then share the
    /// alignment of the data rows they are moved from and to, so the
    /// kernels' re-framed registers are aligned in both
    /// (`backend::packed::Packed::ALIGN`).
    pub(super) fn with_like<R>(&self, like: usize, f: impl FnOnce(&mut [F]) -> R) -> R {
        let taken = self.free.lock().pop();
        let mut buf = taken.unwrap_or_else(|| vec![F::default(); self.len + slack::<F>()]);
        // Bytes from the buffer's phase to `like`'s, in whole elements
        // (else the buffer's start: an element size that does not divide
        // the distance cannot match it).
        let size = core::mem::size_of::<F>().max(1);
        let bytes = (like % 64 + 64 - buf.as_ptr() as usize % 64) % 64;
        let offset = if bytes.is_multiple_of(size) {
            bytes / size
        } else {
            0
        };
        let result = f(&mut buf[offset..offset + self.len]);
        self.free.lock().push(buf);
        result
    }
}

/// Elements past a buffer's length that let its hand-out start at any
/// 64-byte phase an element can start at.
fn slack<F>() -> usize {
    64 / core::mem::size_of::<F>().max(1)
}

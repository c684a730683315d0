//! The planner's settings: cache budgets, thread counts and the shared
//! rayon pools plans run on.

use crate::error::Error;
use alloc::sync::Arc;
#[cfg(feature = "std")]
use alloc::{string::ToString, vec::Vec};
#[cfg(feature = "std")]
use std::sync::{Mutex, Weak};

/// Cache sizes the planner fits tiles into, in bytes (per thread).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budgets {
    /// Values per column a register group may hold (its largest radix);
    /// `None`: the backend's register file decides. Gathered passes take
    /// at most 8 whatever this says: their first and last groups move rows
    /// through a pointer each.
    pub register_values: Option<usize>,
    /// L1 data cache.
    pub l1: usize,
    /// L2 cache. A tile (gathered row group or deep block) takes at most
    /// all of it where a row's twiddles come to at most an eighth of its
    /// data (the last-level cache backs what the twiddles push out; bigger
    /// deep blocks leave fewer layers to the gathered pass), and at most
    /// half of it otherwise, leaving the rest to the twiddles (a single
    /// column has one per butterfly).
    pub l2: usize,
    /// Last-level cache share.
    pub l3: usize,
}

impl Budgets {
    /// Budgets read from the OS (Linux sysfs), falling back to 32 KiB /
    /// 1 MiB / 32 MiB (always, without the `std` feature).
    pub fn detect() -> Self {
        #[allow(unused_mut)]
        let mut b = Budgets {
            register_values: None,
            l1: 32 << 10,
            l2: 1 << 20,
            l3: 32 << 20,
        };
        #[cfg(feature = "std")]
        for index in 0..8 {
            let dir = format!("/sys/devices/system/cpu/cpu0/cache/index{index}");
            let read = |f: &str| std::fs::read_to_string(format!("{dir}/{f}")).ok();
            let (Some(level), Some(size)) = (read("level"), read("size")) else {
                continue;
            };
            if read("type").is_some_and(|t| t.trim() == "Instruction") {
                continue;
            }
            let size = size.trim();
            let bytes = match size.strip_suffix('K') {
                Some(k) => k.parse::<usize>().ok().map(|k| k << 10),
                None => size
                    .strip_suffix('M')
                    .and_then(|m| m.parse::<usize>().ok().map(|m| m << 20)),
            };
            if let Some(bytes) = bytes {
                match level.trim() {
                    "1" => b.l1 = bytes,
                    "2" => b.l2 = bytes,
                    "3" => b.l3 = bytes,
                    _ => {}
                }
            }
        }
        b
    }

    /// Fixed budgets (tests pin these so plans do not depend on the machine).
    pub fn fixed(l1: usize, l2: usize, l3: usize) -> Self {
        Budgets {
            register_values: None,
            l1,
            l2,
            l3,
        }
    }
}

/// The started pool of `n` threads that plans with `Threads::Count(n)`
/// share: plans hold it, the registry only a weak reference, so a pool ends
/// with the last plan using it. Before, every such plan (both plans of an
/// LDE, every shape a Plonky3 drop-in cached) started threads of its own.
#[cfg(feature = "std")]
pub(super) fn shared_pool(n: usize) -> Result<Arc<rayon::ThreadPool>, Error> {
    static POOLS: Mutex<Vec<(usize, Weak<rayon::ThreadPool>)>> = Mutex::new(Vec::new());
    let mut pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
    pools.retain(|(_, pool)| pool.strong_count() > 0);
    if let Some(pool) = pools
        .iter()
        .filter(|(threads, _)| *threads == n)
        .find_map(|(_, pool)| pool.upgrade())
    {
        return Ok(pool);
    }
    // Started under the lock, so two planners asking at once share one
    // pool; the threads' start handler does not touch the registry.
    let pool = Arc::new(started_pool(n)?);
    pools.push((n, Arc::downgrade(&pool)));
    Ok(pool)
}

/// A rayon pool of `n` threads, returned once every thread is running: a
/// thread that started late would allocate its work queue during some later
/// `execute`, which promises no allocation after its first run (beyond
/// rayon's injector blocks, one per 63 hand-offs).
#[cfg(feature = "std")]
fn started_pool(n: usize) -> Result<rayon::ThreadPool, Error> {
    // rayon quietly caps a pool's size; waiting for more threads than it
    // starts would never end.
    if n > rayon::max_num_threads() {
        return Err(Error::Threads {
            reason: format!(
                "{n} threads asked for; rayon runs at most {}",
                rayon::max_num_threads()
            ),
        });
    }
    let started = Arc::new((std::sync::Mutex::new(0usize), std::sync::Condvar::new()));
    let signal = Arc::clone(&started);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .start_handler(move |_| {
            let (count, ready) = &*signal;
            *count.lock().unwrap_or_else(|e| e.into_inner()) += 1;
            ready.notify_all();
        })
        .build()
        .map_err(|e| Error::Threads {
            reason: e.to_string(),
        })?;
    let (count, ready) = &*started;
    let mut running = count.lock().unwrap_or_else(|e| e.into_inner());
    let threads = pool.current_num_threads();
    while *running < threads {
        running = ready.wait(running).unwrap_or_else(|e| e.into_inner());
    }
    Ok(pool)
}

/// Without `std` there are no threads to start: every plan runs on the
/// calling thread, with the same bits as on n threads.
#[cfg(not(feature = "std"))]
pub(super) fn shared_pool(_n: usize) -> Result<Arc<crate::par::Pool>, Error> {
    Ok(Arc::new(crate::par::Pool))
}

/// How many threads execution may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Threads {
    /// rayon's global pool.
    All,
    /// Exactly this many (1: the calling thread only).
    Count(usize),
}

impl Threads {
    /// How many threads may run tiles at once: the per-thread scratch buffers
    /// a plan fills its pool with.
    pub(crate) fn workers(self) -> usize {
        match self {
            Threads::All => crate::par::current_num_threads(),
            Threads::Count(n) => n,
        }
    }
}

//! The planner: groups a schedule's layers into passes and register groups.

use super::{scratch::ScratchPool, Cost, Group, Pass, PassKind, Plan, Step};
use crate::backend::{Backend, Kernels};
use crate::error::Error;
use crate::field::Field;
use crate::transform::{ButterflyKind, Schedule, Transform};
use std::sync::{Arc, Mutex, Weak};

/// Consecutive bytes a gathered pass moves at a time: 4 cache lines, so every
/// run is whole lines and the hardware prefetcher sees a stream.
const MIN_RUN_BYTES: usize = 256;
/// Below this many bytes a pass runs on one thread: spreading it costs more
/// than it saves.
const PARALLEL_MIN_BYTES: usize = 64 << 10;

/// Cache sizes the planner fits tiles into, in bytes (per thread).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budgets {
    /// Values per column a register group may hold (its largest radix);
    /// `None`: the backend's register file decides.
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
    /// 1 MiB / 32 MiB.
    pub fn detect() -> Self {
        let mut b = Budgets {
            register_values: None,
            l1: 32 << 10,
            l2: 1 << 20,
            l3: 32 << 20,
        };
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
fn shared_pool(n: usize) -> Result<Arc<rayon::ThreadPool>, Error> {
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

/// Checks that the allocator can provide a plan's own tables before any of
/// them is built: the twiddles of the schedule and their copy in kernel order
/// take about one field element per row each. A valid transform far larger
/// than memory (say 2^50 rows of GF(2^64)) then fails with
/// [`Error::OutOfMemory`] instead of aborting the process part-way.
fn reserve_tables<F>(rows: usize) -> Result<(), Error> {
    let elems = rows.saturating_mul(2);
    if elems.saturating_mul(core::mem::size_of::<F>()) <= 64 << 20 {
        return Ok(());
    }
    let mut probe: Vec<F> = Vec::new();
    probe
        .try_reserve_exact(elems)
        .map_err(|_| Error::OutOfMemory {
            what: "the plan's twiddle tables",
            bytes: elems.saturating_mul(core::mem::size_of::<F>()),
        })
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
            Threads::All => rayon::current_num_threads(),
            Threads::Count(n) => n,
        }
    }
}

/// Builds [`Plan`]s. Settings default to the fastest backend for the field,
/// all threads and budgets detected from this machine.
///
/// ```
/// use nttfuse::{Budgets, Gf2_64, Planner, Threads, Transform};
/// let plan = Planner::new()
///     .threads(Threads::Count(1))
///     .budgets(Budgets::fixed(32 << 10, 64 << 10, 1 << 20))
///     .plan(&Transform::<Gf2_64>::additive_encode(12, 1).lanes(8))?;
/// assert_eq!(plan.passes().len(), 2); // 256 KiB > 64 KiB of L2: gathered + deep
/// # Ok::<(), nttfuse::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Planner {
    backend: Option<Backend>,
    threads: Threads,
    budgets: Budgets,
}

impl Default for Planner {
    fn default() -> Self {
        Self::new()
    }
}

impl Planner {
    /// A planner with detected budgets, the best backend and all threads.
    pub fn new() -> Self {
        Planner {
            backend: None,
            threads: Threads::All,
            budgets: Budgets::detect(),
        }
    }

    /// Forces a backend; planning fails if this CPU (or this field) lacks it.
    pub fn backend(mut self, backend: Backend) -> Self {
        self.backend = Some(backend);
        self
    }

    /// Sets the threads execution may use.
    pub fn threads(mut self, threads: Threads) -> Self {
        self.threads = threads;
        self
    }

    /// Overrides the cache budgets (e.g. small ones to force deep plans).
    pub fn budgets(mut self, budgets: Budgets) -> Self {
        self.budgets = budgets;
        self
    }

    /// Plans `spec`: validates it, picks a backend, groups its layers,
    /// precomputes twiddles in kernel order.
    ///
    /// Code generic over the field bounds it by [`Kernels`] (every field of
    /// this crate implements it), plus `TwoAdicField` or `BinaryField` for
    /// the transforms that need them:
    ///
    /// ```
    /// use nttfuse::{Kernels, Planner, Transform, TwoAdicField};
    /// fn forward<F: Kernels + TwoAdicField>(data: &mut [F]) -> Result<(), nttfuse::Error> {
    ///     let log_n = data.len().ilog2();
    ///     Planner::new().plan(&Transform::<F>::dft(log_n))?.execute(data)
    /// }
    /// let mut data = vec![nttfuse::Goldilocks::ONE; 8];
    /// forward(&mut data)?;
    /// assert_eq!(data[0], nttfuse::Goldilocks::new(8));
    /// # Ok::<(), nttfuse::Error>(())
    /// ```
    pub fn plan<F: Kernels>(&self, spec: &Transform<F>) -> Result<Plan<F>, Error> {
        spec.validate()?;
        reserve_tables::<F>(spec.rows())?;
        let schedule = spec.schedule()?;
        let kernels = match self.backend {
            Some(b) => b.check::<F>()?,
            None => Backend::detect_checked::<F>(),
        };
        let backend = kernels.backend();
        let pool = match self.threads {
            Threads::Count(0) => {
                return Err(Error::Threads {
                    reason: "thread count must be at least 1".into(),
                })
            }
            Threads::Count(1) | Threads::All => None,
            Threads::Count(n) => Some(shared_pool(n)?),
        };
        let register_values = self
            .budgets
            .register_values
            .unwrap_or_else(|| F::register_values(backend));
        let max_log_radix = (register_values.max(2).ilog2() as usize).min(4);
        let elem = core::mem::size_of::<F>();
        let shape = Shape {
            log_n: schedule.log_n,
            first: schedule.layers.start,
            end: schedule.layers.end,
            row_bytes: schedule.lanes * elem,
            batch: schedule.batch,
            // A tile takes the whole L2 budget when its twiddles come to at
            // most an eighth of its data (the last-level cache backs what
            // they push out), half of it otherwise: a single column's
            // twiddles, one per butterfly, outweigh its data.
            tile_budget: if 8 * core::mem::size_of::<F::Twiddle>() <= schedule.lanes * elem {
                self.budgets.l2
            } else {
                self.budgets.l2 / 2
            }
            .max(1),
            max_log_radix,
            descending: schedule.kind.descending_spans(),
            kind: schedule.kind,
            registers_overridden: self.budgets.register_values.is_some(),
            transposed_tail: F::transposed_tail(backend, schedule.lanes),
        };
        // Blocks that are whole transforms (one twiddle set for every block:
        // not the replica blocks of an encode, each with its own shift).
        let whole_block = |log_rows: usize, layers: usize| {
            log_rows == schedule.log_n
                && F::whole_block_in_registers(backend, log_rows, schedule.lanes, layers)
        };
        let mut passes = shape.passes(&whole_block);
        // A whole-transform block covers every layer, so its group is the
        // plan's only one: whole-polynomial kernels take canonical input and
        // give canonical (and, inverse, scaled) output, never beside lazily
        // reduced groups.
        debug_assert!(
            !F::only_whole_blocks(backend)
                || passes.iter().map(|p| p.groups.len()).sum::<usize>() == 1
                || !passes.iter().flat_map(|p| &p.groups).any(|g| g.whole_block),
            "a whole-polynomial group beside others"
        );
        if F::only_whole_blocks(backend)
            && !passes.iter().flat_map(|p| &p.groups).any(|g| g.whole_block)
        {
            // This backend's kernels for F run whole blocks only, and this
            // plan has none: every group would run the portable kernels
            // under the backend's name. Forced, that is an error; detected,
            // the plan is the scalar one (its own register groups).
            return match self.backend {
                Some(b) => Err(Error::BackendUnavailable {
                    backend: b.name(),
                    reason: format!(
                        "its {} kernels run whole polynomials of 2^8 rows laid out one after \
                         another (the standard NTT and inverse with lanes = 1; use batch for \
                         many), and this plan ({} lanes, budgets as given) has none",
                        F::NAME,
                        schedule.lanes
                    ),
                }),
                None => self.clone().backend(Backend::Scalar).plan(spec),
            };
        }
        if self.threads == Threads::Count(1) {
            // One thread: no pass is split, and the plan says so.
            passes.iter_mut().for_each(|p| p.parallel = false);
        }
        if let Some(last) = passes.last_mut() {
            if schedule.scale.is_some() {
                if let Some(g) = last.groups.last_mut() {
                    g.scales = true;
                }
            }
        }
        if !schedule.bit_reverse_before {
            let data_bytes = shape
                .row_bytes
                .saturating_mul(1 << shape.log_n)
                .saturating_mul(shape.batch);
            if let Some(first) = passes.first_mut() {
                first.reads_source = true;
                first.streams = first.kind == PassKind::Gathered && data_bytes > self.budgets.l3;
            }
        }
        // Deferred reductions: the bound travels through the groups in
        // execution order; the last group returns canonical values.
        let mut bound = 1;
        let group_count = passes.iter().map(|p| p.groups.len()).sum::<usize>();
        for (index, group) in passes
            .iter_mut()
            .flat_map(|p| p.groups.iter_mut())
            .enumerate()
        {
            group.canonical_output = index + 1 == group_count;
            if group.whole_block {
                continue;
            }
            group.bounds = F::group_bounds(schedule.kind, group.layers.len(), bound);
            bound = group.bounds.map_or(1, |b| b.output);
        }
        let mut steps: Vec<Step> = Vec::new();
        if schedule.bit_reverse_before {
            steps.push(Step::BitReverse);
        }
        steps.extend(passes.into_iter().map(Step::Pass));
        if schedule.bit_reverse_after {
            steps.push(Step::BitReverse);
        }
        let twiddles: Vec<Vec<super::GroupTable<F::Twiddle>>> = steps
            .iter()
            .map(|s| match s {
                Step::Pass(p) => p
                    .groups
                    .iter()
                    .map(|g| {
                        let superblocks = 1usize << g.layers.start;
                        let data = F::layout_twiddles(
                            backend,
                            g.whole_block,
                            group_twiddles(&schedule, g),
                            superblocks,
                        );
                        super::GroupTable {
                            per_superblock: data.len() / superblocks,
                            data,
                        }
                    })
                    .collect(),
                Step::BitReverse => Vec::new(),
            })
            .collect();
        let twiddle_bytes = twiddles
            .iter()
            .flatten()
            .map(|t| t.data.len() * core::mem::size_of::<F::Twiddle>())
            .sum();
        let scratch_bytes = steps
            .iter()
            .filter_map(|s| match s {
                Step::Pass(p) if p.kind == PassKind::Gathered => Some(p.tile_bytes),
                _ => None,
            })
            .max()
            .unwrap_or(0);
        let ring = super::ring::ring_kernel(spec, kernels, &steps, &twiddles, schedule.scale)?;
        let steps_len = steps.len();
        let twiddle_bytes = ring.as_ref().map_or(twiddle_bytes, |r| r.table_bytes());
        let data_bytes = (schedule.lanes << schedule.log_n) * schedule.batch * elem;
        // Input rows of one item: the message of an encode, all 2^log_n rows
        // of a pruned transform (whose schedule is only the kept part's).
        let source_rows = spec.input_len()? / (schedule.lanes * schedule.batch);
        let fold = spec.fold_coefficients();
        // A fold, or the transpose of a lane-major input, is one more sweep.
        let lane_major = spec.input_is_lane_major() && schedule.lanes > 1;
        let sweeps = steps.len() + usize::from(!fold.is_empty() || lane_major);
        Ok(Plan {
            spec: spec.clone(),
            log_n: schedule.log_n,
            lanes: schedule.lanes,
            batch: schedule.batch,
            kind: schedule.kind,
            source_rows,
            fold,
            cost: Cost {
                sweeps,
                data_bytes,
                scratch_bytes,
                twiddle_bytes,
            },
            steps,
            twiddles,
            scale: schedule.scale,
            kernels,
            threads: self.threads,
            pool,
            budgets: self.budgets,
            scratch: ScratchPool::new(scratch_bytes / elem.max(1), self.threads.workers())?,
            ring_direct: ring.is_some() && steps_len == 1,
            ring,
        })
    }
}

/// What the planner sees of a transform.
struct Shape {
    log_n: usize,
    first: usize,
    end: usize,
    row_bytes: usize,
    batch: usize,
    tile_budget: usize,
    max_log_radix: usize,
    descending: bool,
    /// The butterfly of every group.
    kind: ButterflyKind,
    registers_overridden: bool,
    /// Final layers the backend runs as one transposed group
    /// (`Kernels::transposed_tail`), 0 if none.
    transposed_tail: usize,
}

impl Shape {
    /// Cuts layers [first, end) into passes, in execution order.
    fn passes(&self, whole_block: &dyn Fn(usize, usize) -> bool) -> Vec<Pass> {
        if self.first >= self.end {
            return Vec::new();
        }
        // Deep pass: from the first layer whose blocks fit the tile budget.
        let mut deep_start = self.first;
        while deep_start < self.end
            && (self.row_bytes << (self.log_n - deep_start)) > self.tile_budget
        {
            deep_start += 1;
        }
        let mut passes = self.gathered_passes(deep_start);
        if deep_start < self.end {
            passes.push(self.deep_pass(deep_start, whole_block));
        }
        if !self.descending {
            passes.reverse();
        }
        passes
    }

    /// Gathered passes over [first, deep_start), layers split evenly.
    fn gathered_passes(&self, deep_start: usize) -> Vec<Pass> {
        let layers = deep_start - self.first;
        if layers == 0 {
            return Vec::new();
        }
        // Rows moved together: at least MIN_RUN_BYTES, at most what the
        // stride of the last gathered layer allows.
        let stride_rows = 1usize << (self.log_n - deep_start);
        let chunk = MIN_RUN_BYTES
            .div_ceil(self.row_bytes)
            .next_power_of_two()
            .min(stride_rows);
        let run_bytes = chunk * self.row_bytes;
        let max_layers = (self.tile_budget / run_bytes).max(2).ilog2() as usize;
        let count = layers.div_ceil(max_layers);
        let mut start = self.first;
        (0..count)
            .map(|i| {
                let len = layers / count + usize::from(i < layers % count);
                let tile_bytes = (run_bytes << len).max(1);
                // Tiles are widened (more rows per run, up to the stride) to
                // half the tile budget: longer contiguous runs are what the
                // prefetchers stream, and fewer tiles pay fewer scratch
                // hand-outs and tasks. (64 KiB tiles of 1 KiB runs left the
                // 8-lane GF(2^64) encode of 2^20 rows 19% slower, the
                // BabyBear LDE 8%.)
                let widen = ((self.tile_budget / 2).max(1) / tile_bytes)
                    .max(1)
                    .next_power_of_two();
                let chunk = (chunk * widen).min(stride_rows);
                let pass = self.gathered_pass(start..start + len, chunk);
                start += len;
                pass
            })
            .collect()
    }

    fn gathered_pass(&self, layers: core::ops::Range<usize>, chunk: usize) -> Pass {
        let log_block_rows = self.log_n - layers.start;
        let group_rows = 1usize << layers.len();
        let tile_bytes = group_rows * chunk * self.row_bytes;
        let tiles = (self.batch << self.log_n) / (group_rows * chunk);
        Pass {
            kind: PassKind::Gathered,
            groups: self.groups(layers.clone()),
            layers,
            log_block_rows,
            chunk_rows: chunk,
            blocks_per_tile: 1,
            tiles,
            tile_bytes,
            parallel: tiles > 1 && tiles * tile_bytes >= PARALLEL_MIN_BYTES,
            reads_source: false,
            streams: false,
        }
    }

    /// The deep pass over [start, end): blocks of 2^(log_n − start) rows,
    /// several per tile while they fit the budget.
    fn deep_pass(&self, start: usize, whole_block: &dyn Fn(usize, usize) -> bool) -> Pass {
        let log_block_rows = self.log_n - start;
        let layers = start..self.end;
        let groups = if !self.registers_overridden && whole_block(log_block_rows, layers.len()) {
            vec![Group {
                layers: layers.clone(),
                scales: false,
                whole_block: true,
                kind: self.kind,
                bounds: None,
                canonical_output: false,
            }]
        } else {
            let tail = self.transposed_tail;
            // The transposed kernel takes R = 2^tail super-blocks (of 2^tail
            // rows) at once: a block must hold R of them.
            let use_tail = tail > 0
                && self.end == self.log_n
                && tail <= layers.len()
                && log_block_rows >= 2 * tail
                && (!self.registers_overridden || tail <= self.max_log_radix);
            if use_tail {
                let mut groups = self.groups(start..self.end - tail);
                let group = Group {
                    layers: self.end - tail..self.end,
                    scales: false,
                    whole_block: true,
                    kind: self.kind,
                    bounds: None,
                    canonical_output: false,
                };
                if self.descending {
                    groups.push(group);
                } else {
                    groups.insert(0, group);
                }
                groups
            } else {
                self.groups(layers.clone())
            }
        };
        let block_bytes = self.row_bytes << log_block_rows;
        let blocks_per_item = 1usize << start;
        let fit = (self.tile_budget / block_bytes).max(1);
        // Small items (an ML-KEM polynomial) share a tile: whole items, as
        // many as fit, so a batch costs one kernel call per tile.
        let blocks_per_tile = if fit >= 2 * blocks_per_item && self.batch > 1 {
            blocks_per_item * (fit / blocks_per_item).min(self.batch)
        } else {
            (1usize << fit.ilog2()).min(blocks_per_item)
        };
        let tiles = (self.batch * blocks_per_item).div_ceil(blocks_per_tile);
        let tile_bytes = blocks_per_tile * block_bytes;
        Pass {
            kind: PassKind::Deep,
            groups,
            layers,
            log_block_rows,
            chunk_rows: 1,
            blocks_per_tile,
            tiles,
            tile_bytes,
            parallel: tiles > 1 && tiles * tile_bytes >= PARALLEL_MIN_BYTES,
            reads_source: false,
            streams: false,
        }
    }

    /// Register groups over `layers`, as even as possible, larger first, in
    /// execution order.
    fn groups(&self, layers: core::ops::Range<usize>) -> Vec<Group> {
        let count = layers.len().div_ceil(self.max_log_radix);
        let mut start = layers.start;
        let mut groups: Vec<Group> = (0..count)
            .map(|i| {
                let len = layers.len() / count + usize::from(i < layers.len() % count);
                let g = Group {
                    layers: start..start + len,
                    scales: false,
                    whole_block: false,
                    kind: self.kind,
                    bounds: None,
                    canonical_output: false,
                };
                start += len;
                g
            })
            .collect();
        if !self.descending {
            groups.reverse();
        }
        groups
    }
}

/// A group's twiddles in kernel order: for each super-block K (block of the
/// group's first layer p), layer p + i contributes its blocks K·2^i … K·2^i + 2^i − 1.
fn group_twiddles<F: Field>(schedule: &Schedule<F>, group: &Group) -> Vec<F::Twiddle> {
    let p = group.layers.start;
    let g = group.layers.len();
    let mut table = Vec::with_capacity((1usize << p) * ((1 << g) - 1));
    for k in 0..1usize << p {
        for i in 0..g {
            let layer = &schedule.twiddles[p + i];
            table.extend(
                layer[k << i..(k + 1) << i]
                    .iter()
                    .map(|&w| F::prepare_twiddle(w)),
            );
        }
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::BabyBear;

    #[test]
    fn plans_with_the_same_thread_count_share_one_pool() {
        let planner = Planner::new().threads(Threads::Count(3));
        let a = planner.plan(&Transform::<BabyBear>::dft(4)).expect("plan");
        let b = planner.plan(&Transform::<BabyBear>::dft(6)).expect("plan");
        let other = Planner::new().threads(Threads::Count(5));
        let c = other.plan(&Transform::<BabyBear>::dft(4)).expect("plan");
        let (pa, pb, pc) = (
            a.pool.clone().expect("a pool"),
            b.pool.clone().expect("a pool"),
            c.pool.clone().expect("a pool"),
        );
        assert!(Arc::ptr_eq(&pa, &pb), "same count: one pool");
        assert!(!Arc::ptr_eq(&pa, &pc), "other count: its own pool");
        assert_eq!((pa.current_num_threads(), pc.current_num_threads()), (3, 5));
        // The pool ends with the last plan holding it: a new plan then
        // starts a fresh one.
        let weak = Arc::downgrade(&pa);
        drop((a, b, pa, pb));
        assert_eq!(weak.strong_count(), 0);
        let d = planner.plan(&Transform::<BabyBear>::dft(4)).expect("plan");
        assert_eq!(d.pool.as_ref().map(|p| p.current_num_threads()), Some(3));
    }
}

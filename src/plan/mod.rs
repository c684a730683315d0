//! How to compute it: the planner, plans as data, and the driver.
//!
//! The planner sees only the layers of a [`Schedule`](crate::transform::Schedule),
//! the size of a row (lanes × element size) and the cache budgets. It cuts the
//! layers into *passes* (one read+write sweep of the buffer each) and each
//! pass into *register groups* (1–4 layers merged in registers):
//!
//! ```text
//! layers:  0 ............ deep_start ............ d
//!          |-- gathered pass(es) --|--- deep pass ---|
//!
//! gathered: row groups of 2^g rows, 2^(d−g) apart, `chunk` consecutive rows
//!           at a time, held in per-thread scratch between register groups
//!           (SIMD kernels load the first group's rows straight from the
//!           data and store the last group's straight back; the portable
//!           ones copy the tile in and out)
//! deep:     contiguous blocks of 2^(d−deep_start) rows (≤ the tile budget),
//!           run in place
//! ```
//!
//! A transform that fits the tile budget (L2, or half of it for narrow rows)
//! is one deep pass; a 2^20+-row one is a
//! gathered pass plus a deep pass (two sweeps). Cyclic DFTs with natural
//! output add a bit-reversal step. Twiddles are laid out per group at plan
//! time in the order the kernels read them; `execute` computes none and, after
//! its first run on a thread, allocates nothing — except that a plan with more
//! than one thread hands each run to its rayon pool through the pool's job
//! injector, which allocates a block of 63 job slots when one fills: about
//! one allocation per 63 runs.

use alloc::vec::Vec;
mod display;
mod execute;
mod fused;
mod lde;
#[cfg(feature = "std")]
mod measure;
mod passes;
mod planner;
mod products;
mod reshape;
mod ring;
mod scratch;
mod settings;
mod shape;
mod text;
#[cfg(feature = "std")]
mod wisdom;
#[cfg(feature = "std")]
pub use wisdom::Wisdom;

pub use crate::backend::ring::products::{MlDsaCache, MlKemCache};
#[allow(deprecated)]
pub use lde::AdditiveLdePlan;
pub use lde::LdePlan;
pub use planner::{Planner, Spec};
pub use products::{MlDsaProducts, MlKemProducts};
pub use settings::{Budgets, Threads};

use crate::backend::{Backend, Checked, Kernels, LazyBounds};
use crate::transform::{ButterflyKind, Transform};
use alloc::sync::Arc;
use core::ops::Range;

/// A group's twiddles in the order its kernel reads them: one equal-sized
/// table per `2^span_log` super-blocks (blocks of the group's first layer):
/// per super-block, but per chunk of R for compact lane twiddles, whose
/// R − 1 words a super-block fill half slots (`Packed::lane_table`).
#[derive(Clone, Debug)]
struct GroupTable<T> {
    data: Vec<T>,
    /// Slots per `2^span_log` super-blocks.
    slots: usize,
    span_log: usize,
}

impl<T> GroupTable<T> {
    /// The table of `superblocks` super-blocks: the fewest super-blocks,
    /// a power of two, whose twiddles fill whole slots.
    fn new(data: Vec<T>, superblocks: usize) -> Self {
        let mut span_log = 0;
        while (1 << span_log) < superblocks && !(data.len() << span_log).is_multiple_of(superblocks)
        {
            span_log += 1;
        }
        Self {
            slots: (data.len() << span_log) / superblocks.max(1),
            data,
            span_log,
        }
    }

    /// The slots of `count` super-blocks from super-block `first` (both
    /// multiples of the table's span).
    fn range(&self, first: usize, count: usize) -> core::ops::Range<usize> {
        let span = 1 << self.span_log;
        assert!(
            first.is_multiple_of(span) && count.is_multiple_of(span),
            "tiles hold whole twiddle spans"
        );
        let start = (first >> self.span_log) * self.slots;
        start..start + (count >> self.span_log) * self.slots
    }
}

/// How a pass reaches its rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PassKind {
    /// Row groups far apart, gathered into scratch, run there, written back.
    Gathered,
    /// Contiguous blocks, run in place.
    Deep,
}

/// Consecutive layers merged in registers (radix 2^layers).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// The layers, 0-based (0 = largest span).
    pub layers: Range<usize>,
    /// Whether the group multiplies its outputs by the final scale (n⁻¹).
    pub scales: bool,
    /// Whether the group holds whole blocks in registers: all the pass's
    /// layers in one kernel (an ML-KEM polynomial in eight zmm), or the last
    /// layers of a packed field, whose blocks are narrower than a register,
    /// run on R blocks transposed across R registers.
    pub whole_block: bool,
    /// The butterfly (the plan's own, except in the groups a fused plan
    /// took from the transform that follows, e.g. an additive LDE's forward
    /// NTT after its inverse).
    pub kind: ButterflyKind,
    /// Lazily reduced fields: the coefficient bounds the group takes and
    /// returns, as multiples of q.
    pub bounds: Option<LazyBounds>,
    /// Lazily reduced fields: the group ends with canonical outputs.
    pub canonical_output: bool,
}

impl Group {
    /// 2^(number of layers).
    pub fn radix(&self) -> usize {
        1 << self.layers.len()
    }
}

/// One sweep over the buffer that runs a range of layers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pass {
    /// Gathered or deep.
    pub kind: PassKind,
    /// The layers, 0-based.
    pub layers: Range<usize>,
    /// Register groups, in execution order.
    pub groups: Vec<Group>,
    /// log₂ of the rows of one block at the pass's first layer.
    pub log_block_rows: usize,
    /// Consecutive rows moved together (gathered) — 1 for deep passes.
    pub chunk_rows: usize,
    /// Blocks per tile (deep) — 1 for gathered passes.
    pub blocks_per_tile: usize,
    /// Tiles per execution (all batch items).
    pub tiles: usize,
    /// Bytes of one tile.
    pub tile_bytes: usize,
    /// Whether tiles are spread over threads.
    pub parallel: bool,
    /// Whether the pass reads its input from the source (the message of an
    /// encode, or the input of an out-of-place execution) instead of the data.
    pub reads_source: bool,
    /// Whether the pass writes tiles read from a separate source (out of
    /// place, or an encode's replicas) with streaming (non-temporal) stores:
    /// chosen for gathered first passes whose output exceeds the last-level
    /// cache budget, where a plain store would first read every destination
    /// line from memory only to overwrite it. Only whole, aligned lines are
    /// streamed; the rest take plain stores.
    pub streams: bool,
}

/// A step of a plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// A pass of layers.
    Pass(Pass),
    /// Rows permuted into bit-reversed order.
    BitReverse,
}

/// The planner's estimate of what executing a plan costs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cost {
    /// Read+write sweeps over the buffer (one per step).
    pub sweeps: usize,
    /// Bytes of the buffer (output) of one execution.
    pub data_bytes: usize,
    /// Scratch bytes per thread.
    pub scratch_bytes: usize,
    /// Bytes of precomputed twiddles.
    pub twiddle_bytes: usize,
}

/// A planned transform: built once, executed many times from any thread.
///
/// ```
/// use nttfuse::{BabyBear, Field, Planner, Transform, Threads};
/// let plan = Planner::new().threads(Threads::Count(1)).plan(&Transform::<BabyBear>::dft(4))?;
/// let mut data: Vec<BabyBear> = (0..16).map(BabyBear::from_u64).collect();
/// plan.execute(&mut data)?;
/// assert_eq!(data[0], BabyBear::from_u64((0..16).sum()));
/// # Ok::<(), nttfuse::Error>(())
/// ```
pub struct Plan<F: Kernels> {
    spec: Transform<F>,
    log_n: usize,
    lanes: usize,
    batch: usize,
    kind: ButterflyKind,
    /// Rows of the input of one item (the message of an encode).
    source_rows: usize,
    /// A pruned transform's fold coefficients (empty: no fold step).
    fold: Vec<F>,
    /// `fold[1..]` prepared for `Kernels::mul_add`.
    fold_twiddles: Vec<F::Twiddle>,
    steps: Vec<Step>,
    /// `twiddles[step][group]`: each group's table in kernel order.
    twiddles: Vec<Vec<GroupTable<F::Twiddle>>>,
    scale: Option<F>,
    /// The backend, checked for `F` on this CPU: the token its kernels take.
    kernels: Checked<F>,
    threads: Threads,
    pool: Option<Arc<crate::par::Pool>>,
    budgets: Budgets,
    scratch: scratch::ScratchPool<F>,
    cost: Cost,
    /// The whole-polynomial kernel of a ring plan (the lattice NTTs over
    /// whole polynomials): `execute` runs it directly.
    ring: Option<crate::backend::ring::RingKernel<F::Twiddle>>,
    /// The plan is its ring kernel and nothing else (one pass, no bit
    /// reversal): `execute` calls the kernel straight away.
    ring_direct: bool,
    /// Runs hand their work to the pool (decided at plan time, see
    /// [`Plan::uses_threads`]).
    parallel_work: bool,
    /// Lines on how the plan was chosen (`measured   …`, `wisdom     …`),
    /// printed after the budgets: empty for a plan by the rules.
    notes: Vec<alloc::string::String>,
}

impl<F: Kernels> Plan<F> {
    /// The transform this plan computes.
    pub fn transform(&self) -> &Transform<F> {
        &self.spec
    }
    /// The steps, in execution order.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }
    /// The passes of layers, in execution order.
    pub fn passes(&self) -> Vec<&Pass> {
        self.steps
            .iter()
            .filter_map(|s| match s {
                Step::Pass(p) => Some(p),
                Step::BitReverse => None,
            })
            .collect()
    }
    /// All register groups, in execution order.
    pub fn groups(&self) -> Vec<&Group> {
        self.passes().into_iter().flat_map(|p| &p.groups).collect()
    }
    /// The backend whose kernels run this plan.
    pub fn backend(&self) -> Backend {
        self.kernels.backend()
    }
    /// The thread setting.
    pub fn threads(&self) -> Threads {
        self.threads
    }
    /// The cache budgets the plan was made for.
    pub fn budgets(&self) -> Budgets {
        self.budgets
    }
    /// The cost estimate.
    pub fn cost(&self) -> Cost {
        self.cost
    }
    /// Elements of the in-place buffer (= output) of [`Plan::execute`].
    pub fn len(&self) -> usize {
        (self.lanes << self.log_n) * self.batch
    }
    /// Whether the buffer is empty (never: sizes are at least 1).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Elements of the input of [`Plan::execute_from`].
    pub fn input_len(&self) -> usize {
        self.source_rows * self.lanes * self.batch
    }
    /// Elements of scratch [`Plan::execute_with_scratch`] needs.
    pub fn scratch_len(&self) -> usize {
        self.cost.scratch_bytes / core::mem::size_of::<F>().max(1)
    }
}

impl<F: Kernels> Plan<F> {
    /// `self`, then `next`, as one plan over the same buffer: `next`'s steps
    /// run in place after `self`'s. Where `self`'s last pass and `next`'s
    /// first tile the buffer the same way, they become one pass — each tile
    /// runs both transforms' groups while it is in cache, one sweep fewer.
    /// `None` unless the plans have the same rows, lanes, batch, backend,
    /// threads and budgets, neither scales, and `next` reads exactly the
    /// buffer it writes (no encode, fold or lane-major input).
    pub(crate) fn fused_with(mut self, next: Plan<F>) -> Option<Plan<F>> {
        let compatible = self.log_n == next.log_n
            && self.lanes == next.lanes
            && self.batch == next.batch
            && self.kernels == next.kernels
            && self.threads == next.threads
            && self.budgets == next.budgets
            && self.scale.is_none()
            && next.scale.is_none()
            && next.fold.is_empty()
            && self.ring.is_none()
            && next.ring.is_none()
            && next.source_rows == 1 << next.log_n
            && !next.spec.input_is_lane_major();
        if !compatible {
            return None;
        }
        let mut steps = next.steps;
        let mut twiddles = next.twiddles;
        for step in &mut steps {
            if let Step::Pass(pass) = step {
                pass.reads_source = false;
                pass.streams = false;
            }
        }
        let mut merged = 0;
        if let (Some(Step::Pass(a)), Some(Step::Pass(b))) = (self.steps.last_mut(), steps.first()) {
            let same_tiles = a.kind == b.kind
                && a.layers == b.layers
                && a.log_block_rows == b.log_block_rows
                && a.chunk_rows == b.chunk_rows
                && a.blocks_per_tile == b.blocks_per_tile
                && a.tiles == b.tiles
                && a.tile_bytes == b.tile_bytes;
            if same_tiles {
                a.groups.extend(b.groups.iter().cloned());
                a.parallel |= b.parallel;
                let first = twiddles.remove(0);
                self.twiddles.last_mut()?.extend(first);
                steps.remove(0);
                merged = 1;
            }
        }
        self.steps.extend(steps);
        self.twiddles.extend(twiddles);
        if next.cost.scratch_bytes > self.cost.scratch_bytes {
            self.scratch = next.scratch;
        }
        self.cost = Cost {
            sweeps: self.cost.sweeps + next.cost.sweeps - merged,
            data_bytes: self.cost.data_bytes,
            scratch_bytes: self.cost.scratch_bytes.max(next.cost.scratch_bytes),
            twiddle_bytes: self.cost.twiddle_bytes + next.cost.twiddle_bytes,
        };
        Some(self)
    }
}

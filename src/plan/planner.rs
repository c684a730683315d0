//! The planner: groups a schedule's layers into passes and register groups.

use super::settings::{shared_pool, Budgets, Threads};
use super::shape::{group_twiddles, Shape};
use super::{scratch::ScratchPool, Cost, GroupTable, LdePlan, Pass, PassKind, Plan, Step};
use crate::backend::{Backend, Kernels};
use crate::error::Error;
use crate::field::{BinaryField, Field, TwoAdicField};
use crate::transform::{AdditiveLde, ButterflyKind, CosetLde, Schedule, Transform};
use alloc::sync::Arc;
use alloc::vec::Vec;

/// The smallest row (in bytes) whose bit reversal a deep pass fuses into
/// its first group's loads, and for which a natural-order DFT reverses its
/// rows first (`Schedule::reversed_first`). Shorter rows are read at
/// scattered addresses a few cache lines at a time, which costs more than
/// the reversal on its own. Zen 3, 1 thread, 2^16 rows, natural-order DFT
/// time ÷ the bit-reversed-order plan's in the same run, Cooley–Tukey with
/// the reversal after → reversed first: 128-byte rows 1.55 → 1.82, 256
/// 1.43 → 1.36 (BabyBear) and 1.24 → 1.23 (Goldilocks), 512 1.41 → 1.22
/// and 1.35 → 1.15, 1 KiB 1.35 → 1.09, 2 KiB 1.14 → 1.02.
pub(crate) const FUSED_REVERSAL_MIN_ROW_BYTES: usize = 256;

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

mod sealed {
    pub trait Sealed {}
}

/// What [`Planner::plan`] plans: a [`Transform`] (into a [`Plan`]) or a
/// low-degree extension, [`CosetLde`] or [`AdditiveLde`] (into an
/// [`LdePlan`]). Sealed: the planner knows every spec.
pub trait Spec: sealed::Sealed {
    /// The plan the spec becomes.
    type Plan;
    /// Plans `self` with `planner`'s settings ([`Planner::plan`] calls this).
    #[doc(hidden)]
    fn plan_with(&self, planner: &Planner) -> Result<Self::Plan, Error>;
}

impl<F: Kernels> sealed::Sealed for Transform<F> {}
impl<F: Kernels> Spec for Transform<F> {
    type Plan = Plan<F>;
    fn plan_with(&self, planner: &Planner) -> Result<Plan<F>, Error> {
        planner.plan_transform(self)
    }
}

impl<F: Kernels + TwoAdicField> sealed::Sealed for CosetLde<F> {}
impl<F: Kernels + TwoAdicField> Spec for CosetLde<F> {
    type Plan = LdePlan<F>;
    fn plan_with(&self, planner: &Planner) -> Result<LdePlan<F>, Error> {
        LdePlan::coset(planner, self)
    }
}

impl<F: Kernels + BinaryField> sealed::Sealed for AdditiveLde<F> {}
impl<F: Kernels + BinaryField> Spec for AdditiveLde<F> {
    type Plan = LdePlan<F>;
    fn plan_with(&self, planner: &Planner) -> Result<LdePlan<F>, Error> {
        LdePlan::additive(planner, self)
    }
}

/// Builds [`Plan`]s. Settings default to the fastest backend for the field,
/// all threads and budgets detected from this machine.
///
/// ```
/// use nttfuse::{Budgets, Gf2_64, LogBlowup, Planner, Threads, Transform};
/// let plan = Planner::new()
///     .threads(Threads::Count(1))
///     .budgets(Budgets::fixed(32 << 10, 64 << 10, 1 << 20))
///     .plan(&Transform::<Gf2_64>::additive_encode(12, LogBlowup(1)).lanes(8))?;
/// assert_eq!(plan.passes().len(), 2); // 256 KiB > 64 KiB of L2: gathered + deep
/// # Ok::<(), nttfuse::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Planner {
    backend: Option<Backend>,
    threads: Threads,
    budgets: Budgets,
    /// Measured planning's time budget (`None`: plan by the rules).
    #[cfg(feature = "std")]
    measure: Option<std::time::Duration>,
    /// Plans measured before, reused without measuring.
    #[cfg(feature = "std")]
    wisdom: Option<Arc<super::wisdom::Wisdom>>,
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
            #[cfg(feature = "std")]
            measure: None,
            #[cfg(feature = "std")]
            wisdom: None,
        }
    }

    /// A planner with these settings, nothing detected (plans read back
    /// from text carry their own budgets).
    pub(super) fn with_settings(backend: Backend, threads: Threads, budgets: Budgets) -> Self {
        Planner {
            backend: Some(backend),
            threads,
            budgets,
            #[cfg(feature = "std")]
            measure: None,
            #[cfg(feature = "std")]
            wisdom: None,
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

    /// Measured planning (FFTW's `FFTW_MEASURE`): instead of trusting its
    /// rules, the planner builds the plans they choose between — every
    /// backend this CPU has for the field (unless one is forced), group
    /// radices (the register budget), tile sizes (the L2 budget), streaming
    /// stores on or off (the L3 budget), one thread against the setting —
    /// times them on scratch data in interleaved rounds, knob by knob, and
    /// keeps the fastest; a change must win by more than 2% to be taken, so
    /// on a tie the rules' plan stays. Planning takes about `budget` (a
    /// candidate whose single run would pass it is not started; the rules'
    /// plan is always timed). The plan's text gets a `measured` line with
    /// the times. Without this, planning is exactly the rules.
    ///
    /// ```
    /// use nttfuse::{BabyBear, Planner, Transform};
    /// use std::time::Duration;
    /// let plan = Planner::new()
    ///     .measure(Duration::from_millis(20))
    ///     .plan(&Transform::<BabyBear>::dft(10).lanes(4))?;
    /// assert!(plan.to_string().contains("\nmeasured   "));
    /// # Ok::<(), nttfuse::Error>(())
    /// ```
    #[cfg(feature = "std")]
    pub fn measure(mut self, budget: std::time::Duration) -> Self {
        self.measure = Some(budget);
        self
    }

    /// [`Planner::measure`] with [`Planner::MEASURE_BUDGET`].
    #[cfg(feature = "std")]
    pub fn measured(self) -> Self {
        self.measure(Self::MEASURE_BUDGET)
    }

    /// The suggested measuring budget, 250 ms: enough to time every knob of
    /// a transform that runs in under ~5 ms (a 2^20-row column, 2^16 × 16
    /// BabyBear, every lattice NTT); a bigger one gets fewer knobs (the plan
    /// says "stopped early"), and one whose single run passes it is timed
    /// once and keeps the rules' plan.
    #[cfg(feature = "std")]
    pub const MEASURE_BUDGET: std::time::Duration = std::time::Duration::from_millis(250);

    /// Plans from `wisdom` where it holds a plan of the same transform made
    /// with the same thread setting (and backend, if one is forced) on this
    /// CPU: that plan, read back from its text, with no measuring (a plan
    /// costs what planning by the rules costs). Wisdom made on another CPU
    /// is ignored, and the plan's text says so. Where wisdom has nothing,
    /// the planner measures if [`Planner::measure`] is set, else plans by
    /// its rules.
    #[cfg(feature = "std")]
    pub fn with_wisdom(mut self, wisdom: Arc<super::wisdom::Wisdom>) -> Self {
        self.wisdom = Some(wisdom);
        self
    }

    /// Plans `spec`: a [`Transform`] becomes a [`Plan`] (validated, a
    /// backend picked, its layers grouped, twiddles precomputed in kernel
    /// order); an LDE spec ([`CosetLde`](crate::CosetLde),
    /// [`AdditiveLde`](crate::AdditiveLde)) becomes an [`LdePlan`] of
    /// such plans.
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
    pub fn plan<S: Spec>(&self, spec: &S) -> Result<S::Plan, Error> {
        spec.plan_with(self)
    }

    /// Plans a transform (see [`Planner::plan`]): from wisdom where it
    /// holds this transform, by measuring where asked, else by the rules.
    pub(super) fn plan_transform<F: Kernels>(&self, spec: &Transform<F>) -> Result<Plan<F>, Error> {
        #[cfg(feature = "std")]
        {
            let mut notes = Vec::new();
            if let Some(wisdom) = &self.wisdom {
                match wisdom.plan_for(self, spec, &mut notes) {
                    Some(plan) => return Ok(plan),
                    None if self.measure.is_none() => {
                        let mut plan = self.plan_by_rules(spec)?;
                        plan.notes = notes;
                        return Ok(plan);
                    }
                    None => {}
                }
            }
            if let Some(budget) = self.measure {
                let mut plan = super::measure::measured(&self.by_rules(), spec, budget)?;
                notes.append(&mut plan.notes);
                plan.notes = notes;
                return Ok(plan);
            }
        }
        self.plan_by_rules(spec)
    }

    /// This planner without measuring or wisdom: the rules alone.
    #[cfg(feature = "std")]
    pub(super) fn by_rules(&self) -> Planner {
        Planner {
            #[cfg(feature = "std")]
            measure: None,
            #[cfg(feature = "std")]
            wisdom: None,
            ..self.clone()
        }
    }

    /// The backend forced on this planner, if any.
    #[cfg(feature = "std")]
    pub(super) fn forced_backend(&self) -> Option<Backend> {
        self.backend
    }

    /// The thread setting.
    #[cfg(feature = "std")]
    pub(crate) fn thread_setting(&self) -> Threads {
        self.threads
    }

    /// The budgets.
    #[cfg(feature = "std")]
    pub(super) fn budget_setting(&self) -> Budgets {
        self.budgets
    }

    /// Plans a transform by the planner's fixed rules.
    pub(super) fn plan_by_rules<F: Kernels>(&self, spec: &Transform<F>) -> Result<Plan<F>, Error> {
        spec.validate()?;
        reserve_tables::<F>(spec.rows())?;
        let mut schedule = spec.schedule()?;
        // Fields reduced canonically by every operation take the reversed
        // tree for a natural-order DFT; the lattice fields' lazy bounds and
        // whole-polynomial kernels are those of the Cooley–Tukey tree.
        // Short rows are left to the Cooley–Tukey tree (see
        // `FUSED_REVERSAL_MIN_ROW_BYTES`).
        if spec.is_plain_natural_dft()
            && F::group_bounds(ButterflyKind::GentlemanSande, 1, 1).is_none()
            && spec.lane_count() * core::mem::size_of::<F>() >= FUSED_REVERSAL_MIN_ROW_BYTES
        {
            schedule = schedule.reversed_first();
        }
        let kernels = match self.backend {
            Some(b) => b.check::<F>()?,
            None => Backend::detect_checked::<F>(),
        };
        let pool = self.pool()?;
        let shape = self.shape::<F>(&schedule, kernels.backend());
        let mut passes = self.cut_into_passes::<F>(&schedule, &shape, kernels.backend());
        if F::only_whole_blocks(kernels.backend())
            && !passes.iter().flat_map(|p| &p.groups).any(|g| g.whole_block)
        {
            return self.without_whole_blocks(spec, schedule.lanes);
        }
        self.mark_passes(&mut passes, &schedule, &shape);
        schedule_reductions::<F>(&mut passes, schedule.kind);
        let steps = steps(passes, &schedule);
        let twiddles = tables(&steps, &schedule, kernels.backend());
        let ring = super::ring::ring_kernel(spec, kernels, &steps, &twiddles, schedule.scale)?;
        let cost = cost::<F>(spec, &schedule, &steps, &twiddles, ring.as_ref())?;
        let mut plan = Plan {
            spec: spec.clone(),
            log_n: schedule.log_n,
            lanes: schedule.lanes,
            batch: schedule.batch,
            kind: schedule.kind,
            // Input rows of one item: the message of an encode, all
            // 2^log_n rows of a pruned transform (whose schedule is only
            // the kept part's).
            source_rows: spec.input_len()? / (schedule.lanes * schedule.batch),
            fold: spec.fold_coefficients(),
            fold_twiddles: spec
                .fold_coefficients()
                .iter()
                .skip(1)
                .map(|&c| F::prepare_twiddle(c))
                .collect(),
            cost,
            ring_direct: ring.is_some() && steps.len() == 1,
            steps,
            twiddles,
            scale: schedule.scale,
            kernels,
            threads: self.threads,
            pool,
            budgets: self.budgets,
            scratch: ScratchPool::new(
                cost.scratch_bytes / core::mem::size_of::<F>().max(1),
                self.threads.workers(),
            )?,
            ring,
            parallel_work: false,
            notes: Vec::new(),
        };
        plan.parallel_work = plan.wants_threads();
        Ok(plan)
    }

    /// The shared pool of a `Threads::Count(n ≥ 2)` setting; none for one
    /// thread or rayon's global pool; an error for zero.
    fn pool(&self) -> Result<Option<Arc<crate::par::Pool>>, Error> {
        match self.threads {
            Threads::Count(0) => Err(Error::Threads {
                reason: "thread count must be at least 1".into(),
            }),
            Threads::Count(1) | Threads::All => Ok(None),
            Threads::Count(n) => Ok(Some(shared_pool(n)?)),
        }
    }

    /// What the planner sees of `schedule` on `backend`.
    fn shape<F: Kernels>(&self, schedule: &Schedule<F>, backend: Backend) -> Shape {
        let register_values = self
            .budgets
            .register_values
            .unwrap_or_else(|| F::register_values(backend));
        let elem = core::mem::size_of::<F>();
        Shape {
            log_n: schedule.log_n,
            first: schedule.layers.start,
            end: schedule.layers.end,
            row_bytes: schedule.lanes * elem,
            batch: schedule.batch,
            // A tile takes the whole L2 budget when its twiddles come to at
            // most an eighth of its data (the last-level cache backs what
            // they push out). Otherwise a row's share of the budget is its
            // own bytes beside a twiddle's (about one per row a layer in a
            // deep pass's last groups), at most half: a single BabyBear
            // column (4-byte rows, 8-byte Shoup twiddles) takes a third
            // (blocks of a quarter). At half its 2^20 DFT took 1.01–1.04 ×
            // as long (Intel Xeon, 1 thread, same process).
            tile_budget: {
                let twiddle = core::mem::size_of::<F::Twiddle>();
                let row = schedule.lanes * elem;
                if 8 * twiddle <= row {
                    self.budgets.l2
                } else {
                    (self.budgets.l2 / 2).min(self.budgets.l2 / (row + twiddle) * row)
                }
            }
            .max(1),
            max_log_radix: (register_values.max(2).ilog2() as usize).min(4),
            descending: schedule.kind.descending_spans(),
            kind: schedule.kind,
            registers_overridden: self.budgets.register_values.is_some(),
            transposed_tail: F::transposed_tail(backend, schedule.lanes),
        }
    }

    /// The passes of `shape`, with a whole-block group where the field's
    /// kernels hold a whole transform in registers.
    fn cut_into_passes<F: Kernels>(
        &self,
        schedule: &Schedule<F>,
        shape: &Shape,
        backend: Backend,
    ) -> Vec<Pass> {
        // Blocks that are whole transforms (one twiddle set for every block:
        // not the replica blocks of an encode, each with its own shift).
        let whole_block = |log_rows: usize, layers: usize| {
            log_rows == schedule.log_n
                && F::whole_block_in_registers(backend, log_rows, schedule.lanes, layers)
        };
        let passes = shape.passes(&whole_block);
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
        passes
    }

    /// A backend whose kernels for F run whole blocks only, and a plan with
    /// none: every group would run the portable kernels under the backend's
    /// name. Forced, that is an error; detected, the plan is the scalar one
    /// (its own register groups).
    fn without_whole_blocks<F: Kernels>(
        &self,
        spec: &Transform<F>,
        lanes: usize,
    ) -> Result<Plan<F>, Error> {
        match self.backend {
            Some(b) => Err(Error::BackendUnavailable {
                backend: b.name(),
                reason: format!(
                    "its {} kernels run whole polynomials of 2^8 rows laid out one after \
                     another (the standard NTT and inverse with lanes = 1; use batch for \
                     many), and this plan ({lanes} lanes, budgets as given) has none",
                    F::NAME,
                ),
            }),
            None => self.clone().backend(Backend::Scalar).plan_by_rules(spec),
        }
    }

    /// Per pass: serial on one thread; the last group scales; the first pass
    /// reads the source, streaming its stores when the output exceeds the
    /// last-level cache.
    fn mark_passes<F: Field>(&self, passes: &mut [Pass], schedule: &Schedule<F>, shape: &Shape) {
        if self.threads == Threads::Count(1) {
            // One thread: no pass is split, and the plan says so.
            passes.iter_mut().for_each(|p| p.parallel = false);
        }
        if schedule.scale.is_some() {
            if let Some(g) = passes.last_mut().and_then(|p| p.groups.last_mut()) {
                g.scales = true;
            }
        }
        let data_bytes = shape
            .row_bytes
            .saturating_mul(1 << shape.log_n)
            .saturating_mul(shape.batch);
        if let Some(first) = passes.first_mut() {
            // A first pass reading a separate source writes lines it never
            // read: streaming stores skip their read for ownership. A deep
            // pass after a bit reversal reads the source (bit-reversed) too
            // when the plan runs out of place, which is when it streams.
            if !schedule.bit_reverse_before {
                first.reads_source = true;
                first.streams = data_bytes > self.budgets.l3;
            } else if first.kind == PassKind::Deep {
                first.streams = data_bytes > self.budgets.l3;
            }
            // A deep pass streams from scratch through its groups' row
            // moves; whole-block groups (the lattice fields' ring kernels)
            // run on their tile in place.
            if first.kind == PassKind::Deep && first.groups.iter().any(|g| g.whole_block) {
                first.streams = false;
            }
        }
    }
}

/// Deferred reductions: the bound travels through the groups in execution
/// order; the last group returns canonical values.
fn schedule_reductions<F: Kernels>(passes: &mut [Pass], kind: ButterflyKind) {
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
        group.bounds = F::group_bounds(kind, group.layers.len(), bound);
        bound = group.bounds.map_or(1, |b| b.output);
    }
}

/// The passes with the schedule's bit reversals around them.
fn steps<F: Field>(passes: Vec<Pass>, schedule: &Schedule<F>) -> Vec<Step> {
    let mut steps: Vec<Step> = Vec::new();
    if schedule.bit_reverse_before {
        steps.push(Step::BitReverse);
    }
    steps.extend(passes.into_iter().map(Step::Pass));
    if schedule.bit_reverse_after {
        steps.push(Step::BitReverse);
    }
    steps
}

/// Every group's twiddles in the order its kernel reads them.
fn tables<F: Kernels>(
    steps: &[Step],
    schedule: &Schedule<F>,
    backend: Backend,
) -> Vec<Vec<GroupTable<F::Twiddle>>> {
    steps
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
                        group_twiddles(schedule, g),
                        superblocks,
                    );
                    GroupTable::new(data, superblocks)
                })
                .collect(),
            Step::BitReverse => Vec::new(),
        })
        .collect()
}

/// The cost estimate: sweeps (one per step, one more for a fold or the
/// transpose of a lane-major input), buffer, scratch and table bytes.
fn cost<F: Kernels>(
    spec: &Transform<F>,
    schedule: &Schedule<F>,
    steps: &[Step],
    twiddles: &[Vec<GroupTable<F::Twiddle>>],
    ring: Option<&crate::backend::ring::RingKernel<F::Twiddle>>,
) -> Result<Cost, Error> {
    let twiddle_bytes = match ring {
        Some(ring) => ring.table_bytes(),
        None => twiddles
            .iter()
            .flatten()
            .map(|t| t.data.len() * core::mem::size_of::<F::Twiddle>())
            .sum(),
    };
    let scratch_bytes = steps
        .iter()
        .filter_map(|s| match s {
            // Gathered tiles run in scratch, and so do the tiles of a deep
            // pass that streams its stores.
            Step::Pass(p) if p.kind == PassKind::Gathered || p.streams => Some(p.tile_bytes),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    let lane_major = spec.input_is_lane_major() && schedule.lanes > 1;
    // A fold rides on the first pass's loads when the input is row-major
    // and the first step is a pass (`Plan::folds_in_first_pass`).
    let folds = !spec.fold_coefficients().is_empty()
        && (lane_major || !matches!(steps.first(), Some(Step::Pass(_))));
    Ok(Cost {
        sweeps: steps.len() + usize::from(folds || lane_major),
        data_bytes: (schedule.lanes << schedule.log_n) * schedule.batch * core::mem::size_of::<F>(),
        scratch_bytes,
        twiddle_bytes,
    })
}

// Thread pools exist with `std` only.
#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;
    use crate::field::BabyBear;
    #[allow(unused_imports)]
    use crate::test_prelude::*;

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

//! The only door into nttfuse: the NTT and its inverse run in place on the
//! KEM's own `[i16; 256]` words (`Plan::execute_raw`, zero-copy), `k`
//! polynomials per call where the KEM transforms a vector, and the
//! NTT-domain products as `MlKemProducts` multiply-accumulates over a cache
//! of the second operand (mlkem-native's mulcache): the cache of ŝ or ŷ is
//! computed once and serves every row of Â·ŝ, Âᵀ·ŷ and t̂ᵀ·ŷ.
//!
//! # Which values are lazy, and in which order
//!
//! FIPS 203 fixes the NTT domain at three boundaries only: Â is sampled in
//! it (SampleNTT), and t̂ (in ek) and ŝ (in dk) are serialized with
//! ByteEncode12, all in the standard order with coefficients in `[0, q)`.
//! Everything else in the NTT domain is private to K-PKE, so it may hold
//! any representative nttfuse's contracts allow:
//!
//! | value | made by | held as | because |
//! | --- | --- | --- | --- |
//! | ŝ (KeyGen) | [`Ring::ntt`], k at once | `[0, q)` | ByteEncode12 into dk |
//! | ê | [`Ring::ntt_lazy`], k at once | \|·\| < 8q | only added into t̂ |
//! | t̂ (KeyGen) | [`Ring::dot_canonical`] per row, + ê, [`reduce`] | `[0, q)` | ByteEncode12 into ek |
//! | ŷ, NTT(u′) | [`Ring::ntt_lazy`], k at once | \|·\| < 8q | only multiplied (products take any `i16`) |
//! | Âᵀ∘ŷ, t̂ᵀ∘ŷ, ŝᵀ∘û′ | [`Ring::dot`] | \|·\| < (2k + 1)q/2 | only transformed back (the lazy inverse takes any `i16`) |
//! | u, v, NTT⁻¹(ŝᵀ∘û′) | [`Ring::inverse_ntt_lazy`] (u: k at once) | \|·\| < q | + e1, + e2 + μ, v′ − ·: one [`reduce`] to `[0, q)` before Compress |
//!
//! t̂ = Â∘ŝ + ê takes canonical products: lazy ones (< 4.5q at k = 4) plus
//! a lazy ê (< 8q) could overflow an `i16`, canonical ones (< q) cannot
//! (< 9q), and a lazy ê saves more than lazy products would.
//!
//! **Order: standard everywhere.** Every product in K-PKE has one operand
//! that crosses a boundary (Â sampled, t̂ decoded from ek, ŝ decoded from
//! dk or encoded into it), and both operands of a product must be in the
//! same order, so the permuted order would mean permuting k² + k
//! polynomials per operation (a gather of 256 words each, or index tables
//! inside SampleNTT and ByteDecode12 / ByteEncode12) to save the last
//! shuffles of the NTTs: measured on an AVX-512 AMD EPYC core, about 4 ns per
//! polynomial of the lazy forward NTT and 8 ns of the lazy inverse, under
//! 0.1 µs per operation against 30 to 90 µs. Not worth it. The lazy forward
//! NTT saves about 18 ns per polynomial against the canonical one; lazy
//! reductions are kept wherever the table above allows.
//!
//! Every call is counted per thread (a `Cell` increment: cheap enough to
//! leave on), with the polynomials (or product terms) it handles, so the
//! example can report what an operation asks of nttfuse and, with
//! [`set_timing`], how long it spends there.

use nttfuse::{
    Error, MlKem, MlKemCache, MlKemProducts, NttOrder, Plan, Planner, Reduction, Threads, Transform,
};
use std::cell::Cell;
use std::time::Instant;

/// The ML-KEM modulus.
const Q: i16 = 3329;

/// A polynomial of R_q = Z_q[X]/(X^256 + 1), or its NTT representation:
/// 256 coefficients, canonical in `[0, q)` unless a function here says it
/// leaves them lazy (see the [module](self) doc for which).
pub type Poly = [i16; 256];

/// The plans and products of one rank k, built once per KEM instance
/// (planning is far slower than executing, so never per call).
pub struct Ring {
    /// k polynomials, canonical output (ŝ, encoded into dk).
    forward: Plan<MlKem>,
    /// k polynomials, output |a| < 8q (ê, ŷ, NTT(u′)).
    forward_lazy: Plan<MlKem>,
    /// k polynomials, any input, output |a| < q (u).
    inverse_lazy: Plan<MlKem>,
    /// One polynomial, any input, output |a| < q (v, and Decrypt's w).
    inverse_lazy_one: Plan<MlKem>,
    /// Canonical sums (the rows of t̂).
    products: MlKemProducts,
    /// Sums below `MlKemProducts::lazy_bound(k)` (everything transformed back).
    products_lazy: MlKemProducts,
}

/// The caches of the k polynomials of a vector (ŝ or ŷ), each the second
/// operand of every product it takes part in.
pub struct Caches(Vec<MlKemCache>);

/// The NTT layer failed (planning or executing); carries nttfuse's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RingError(pub String);

impl From<Error> for RingError {
    fn from(e: Error) -> Self {
        RingError(e.to_string())
    }
}

impl Ring {
    /// Plans FIPS 203's NTT (Algorithm 9) and inverse (Algorithm 10) for
    /// vectors of `k` polynomials and single ones, on the calling thread (a
    /// 256-point transform is far too small to share), and the products
    /// (Algorithms 11 and 12) on the fastest backend here, standard order.
    pub fn new(k: usize) -> Result<Self, RingError> {
        let planner = Planner::new().threads(Threads::Count(1));
        let forward = Transform::<MlKem>::negacyclic_forward();
        let inverse = Transform::<MlKem>::negacyclic_inverse().reduction(Reduction::Lazy);
        Ok(Ring {
            forward: planner.plan(&forward.clone().batch(k))?,
            forward_lazy: planner.plan(&forward.reduction(Reduction::Lazy).batch(k))?,
            inverse_lazy: planner.plan(&inverse.clone().batch(k))?,
            inverse_lazy_one: planner.plan(&inverse)?,
            products: MlKemProducts::new().order(NttOrder::Standard),
            products_lazy: MlKemProducts::new()
                .order(NttOrder::Standard)
                .reduction(Reduction::Lazy),
        })
    }

    /// The backends that run: the NTT plans' and the products'.
    pub fn backends(&self) -> (&'static str, &'static str) {
        (
            self.forward.backend().name(),
            self.products.backend().name(),
        )
    }

    /// NTT(f) of each of the k polynomials of `v` in place, FIPS 203
    /// Algorithm 9, canonical: for ŝ, which dk stores. Input `[0, q)`.
    pub fn ntt(&self, v: &mut [Poly]) -> Result<(), RingError> {
        let timer = Timer::start(Op::Ntt, v.len());
        self.forward.execute_raw(v.as_flattened_mut())?;
        timer.stop();
        Ok(())
    }

    /// [`ntt`](Self::ntt) leaving each coefficient a representative with
    /// |a| < 8q: for values that are only multiplied or added before a
    /// reduction (ê, ŷ, NTT(u′)). Input `[0, q)`.
    pub fn ntt_lazy(&self, v: &mut [Poly]) -> Result<(), RingError> {
        let timer = Timer::start(Op::Ntt, v.len());
        self.forward_lazy.execute_raw(v.as_flattened_mut())?;
        timer.stop();
        Ok(())
    }

    /// NTT⁻¹ (FIPS 203 Algorithm 10, the factor 128⁻¹ included) of each
    /// polynomial of `v` in place, k of them or one: any `i16` input (a
    /// lazy product), output |a| < q, to be [`reduce`]d.
    pub fn inverse_ntt_lazy(&self, v: &mut [Poly]) -> Result<(), RingError> {
        let timer = Timer::start(Op::InverseNtt, v.len());
        let plan = if v.len() == 1 {
            &self.inverse_lazy_one
        } else {
            &self.inverse_lazy
        };
        plan.execute_raw(v.as_flattened_mut())?;
        timer.stop();
        Ok(())
    }

    /// The caches of the k polynomials of `v` (any `i16` words), computed
    /// once per vector: the second operands of [`dot`](Self::dot).
    pub fn cache(&self, v: &[Poly]) -> Caches {
        let timer = Timer::start(Op::Cache, v.len());
        let caches = Caches(v.iter().map(|p| self.products.cache(p)).collect());
        timer.stop();
        caches
    }

    /// `out = Σ_j a[j] ∘ b[j]` (FIPS 203 MultiplyNTTs, summed; one row of
    /// a matrix-vector product or a dot product), reduced once for all
    /// terms but not to `[0, q)`: |out| < (2k + 1)q/2. Any `i16` in `a`.
    pub fn dot(&self, a: &[Poly], b: &Caches, out: &mut Poly) -> Result<(), RingError> {
        let timer = Timer::start(Op::MultiplyAccumulate, a.len());
        self.products_lazy.multiply_accumulate(a, &b.0, out)?;
        timer.stop();
        Ok(())
    }

    /// [`dot`](Self::dot) reduced to `[0, q)`.
    pub fn dot_canonical(&self, a: &[Poly], b: &Caches, out: &mut Poly) -> Result<(), RingError> {
        let timer = Timer::start(Op::MultiplyAccumulate, a.len());
        self.products.multiply_accumulate(a, &b.0, out)?;
        timer.stop();
        Ok(())
    }
}

/// Every coefficient of `f` (any `i16`) to its residue in `[0, q)`:
/// Barrett's quotient round(x·20159 / 2^26) leaves |x − t·q| ≤ q/2, then a
/// mask adds q to a negative one. No branch on the data. This is the one
/// place the KEM closes the lazy values nttfuse leaves (the sums before it
/// are kept below 2^15 by the bounds in the [module](self) doc).
pub fn reduce(f: &mut Poly) {
    for x in f.iter_mut() {
        let t = (i32::from(*x) * 20159 + (1 << 25)) >> 26;
        let r = (i32::from(*x) - t * i32::from(Q)) as i16;
        *x = r + ((r >> 15) & Q);
    }
}

/// Canonical copies of lazily reduced polynomials (for traces only).
pub fn to_canonical(v: &[Poly]) -> Vec<Poly> {
    v.iter()
        .map(|p| {
            let mut p = *p;
            reduce(&mut p);
            p
        })
        .collect()
}

/// The four calls into nttfuse, as indices into [`Stats::calls`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// [`Ring::ntt`] and [`Ring::ntt_lazy`].
    Ntt = 0,
    /// [`Ring::inverse_ntt_lazy`].
    InverseNtt = 1,
    /// [`Ring::cache`].
    Cache = 2,
    /// [`Ring::dot`] and [`Ring::dot_canonical`].
    MultiplyAccumulate = 3,
}

impl Op {
    /// All four, in index order.
    pub const ALL: [Op; 4] = [Op::Ntt, Op::InverseNtt, Op::Cache, Op::MultiplyAccumulate];
}

/// Calls into nttfuse on this thread since the last [`reset_stats`], and the
/// time spent in them while [`set_timing`] was on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Calls per [`Op`], indexed by `op as usize`.
    pub calls: [u64; 4],
    /// What those calls handled: polynomials transformed or cached, terms
    /// multiplied.
    pub polys: [u64; 4],
    /// Nanoseconds inside timed calls.
    pub nanos: u64,
}

impl Stats {
    /// The share of `elapsed_ns` (the wall time of a stretch run with
    /// timing on) spent inside nttfuse calls, with the timers' own cost
    /// (see [`timer_cost`]) taken out of both.
    pub fn share(&self, elapsed_ns: f64, cost: TimerCost) -> f64 {
        let calls = self.calls.iter().sum::<u64>() as f64;
        let inside = (self.nanos as f64 - calls * cost.inside).max(0.0);
        inside / (elapsed_ns - calls * cost.per_call).max(1.0)
    }
}

thread_local! {
    static STATS: Cell<Stats> = const {
        Cell::new(Stats { calls: [0; 4], polys: [0; 4], nanos: 0 })
    };
    static TIMING: Cell<bool> = const { Cell::new(false) };
}

/// This thread's counters.
pub fn stats() -> Stats {
    STATS.with(Cell::get)
}

/// Zeroes this thread's counters.
pub fn reset_stats() {
    STATS.with(|s| s.set(Stats::default()));
}

/// Times every call on this thread (two `Instant::now` per call, which the
/// measured time then includes: see [`timer_cost`]) or only counts them
/// (the default).
pub fn set_timing(on: bool) {
    TIMING.with(|t| t.set(on));
}

/// What timing one call adds, in ns: the part that lands between its two
/// clock reads (counted as time in nttfuse) and the whole (added to the
/// wall time of the operation).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TimerCost {
    /// ns a timed call of no work reports.
    pub inside: f64,
    /// ns a timed call of no work takes.
    pub per_call: f64,
}

/// Measures [`TimerCost`] on this thread: the median of 101 runs of 1000
/// timed calls that do nothing. Leaves the counters zeroed and timing off.
pub fn timer_cost() -> TimerCost {
    const CALLS: u64 = 1000;
    set_timing(true);
    let mut runs: Vec<(f64, f64)> = (0..101)
        .map(|_| {
            reset_stats();
            let start = Instant::now();
            for _ in 0..CALLS {
                Timer::started().stop();
            }
            let total = start.elapsed().as_nanos() as f64;
            (stats().nanos as f64 / CALLS as f64, total / CALLS as f64)
        })
        .collect();
    set_timing(false);
    reset_stats();
    runs.sort_by(|a, b| a.1.total_cmp(&b.1));
    let (inside, per_call) = runs[runs.len() / 2];
    TimerCost { inside, per_call }
}

/// Counts one call at its start and, while timing is on, adds its duration.
struct Timer(Option<Instant>);

impl Timer {
    #[inline]
    fn start(op: Op, polys: usize) -> Self {
        STATS.with(|s| {
            let mut v = s.get();
            v.calls[op as usize] += 1;
            v.polys[op as usize] += polys as u64;
            s.set(v);
        });
        Self::started()
    }

    /// The clock alone (no call counted).
    #[inline]
    fn started() -> Self {
        Timer(TIMING.with(Cell::get).then(Instant::now))
    }

    #[inline]
    fn stop(self) {
        if let Some(start) = self.0 {
            let nanos = start.elapsed().as_nanos() as u64;
            STATS.with(|s| {
                let mut v = s.get();
                v.nanos += nanos;
                s.set(v);
            });
        }
    }
}

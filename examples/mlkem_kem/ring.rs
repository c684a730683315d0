//! The only door into nttfuse: forward and inverse NTT of one polynomial,
//! the NTT-domain product and its accumulating form.
//!
//! The rest of the KEM sees polynomials as plain [`Poly`] = `[i16; 256]`
//! with canonical coefficients in `[0, q)`, so porting this file to another
//! NTT API (e.g. raw `[i16; 256]` entry points) touches nothing else.
//!
//! Every call is counted per thread (a `Cell` increment: cheap enough to
//! leave on), so the example can report how many NTT-layer calls an
//! operation makes and, with [`set_timing`], how long they take.

use nttfuse::transform::mlkem::multiply_ntts as nttfuse_multiply_ntts;
use nttfuse::{Error, MlKem, Plan, Planner, Threads, Transform};
use std::cell::Cell;
use std::time::Instant;

/// The ML-KEM modulus.
const Q: i16 = 3329;

/// A polynomial of R_q = Z_q[X]/(X^256 + 1), or its NTT representation:
/// 256 coefficients, each the canonical residue in `[0, q)`.
pub type Poly = [i16; 256];

/// The plans, built once per KEM instance (planning is far slower than
/// executing, so never per call).
pub struct Ring {
    forward: Plan<MlKem>,
    inverse: Plan<MlKem>,
}

/// The NTT layer failed (planning or executing); carries nttfuse's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RingError(pub String);

impl From<Error> for RingError {
    fn from(e: Error) -> Self {
        RingError(e.to_string())
    }
}

impl Ring {
    /// Plans FIPS 203's NTT (Algorithm 9) and inverse (Algorithm 10) on the
    /// calling thread: a 256-point transform is far too small to share.
    pub fn new() -> Result<Self, RingError> {
        let planner = Planner::new().threads(Threads::Count(1));
        Ok(Ring {
            forward: planner.plan(&Transform::<MlKem>::negacyclic_forward())?,
            inverse: planner.plan(&Transform::<MlKem>::negacyclic_inverse())?,
        })
    }

    /// NTT(f), FIPS 203 Algorithm 9.
    pub fn ntt(&self, f: &Poly) -> Result<Poly, RingError> {
        let timer = Timer::start(Op::Ntt);
        let mut x = to_field(f);
        self.forward.execute(&mut x)?;
        timer.stop();
        Ok(from_field(&x))
    }

    /// NTT⁻¹(f̂), FIPS 203 Algorithm 10 (including the factor 128⁻¹).
    pub fn inverse_ntt(&self, f_hat: &Poly) -> Result<Poly, RingError> {
        let timer = Timer::start(Op::InverseNtt);
        let mut x = to_field(f_hat);
        self.inverse.execute(&mut x)?;
        timer.stop();
        Ok(from_field(&x))
    }

    /// The NTT-domain product f̂ ∘ ĝ (FIPS 203 Algorithm 11).
    pub fn multiply_ntts(&self, f_hat: &Poly, g_hat: &Poly) -> Poly {
        let timer = Timer::start(Op::Multiply);
        let h = nttfuse_multiply_ntts(&to_field(f_hat), &to_field(g_hat));
        timer.stop();
        from_field(&h)
    }

    /// `acc ← acc + f̂ ∘ ĝ`: one term of a matrix-vector or inner product.
    /// `acc` must be canonical (as every `Poly` of the KEM is).
    pub fn multiply_accumulate(&self, acc: &mut Poly, f_hat: &Poly, g_hat: &Poly) {
        let timer = Timer::start(Op::MultiplyAccumulate);
        let h = nttfuse_multiply_ntts(&to_field(f_hat), &to_field(g_hat));
        // The sum in i16 with a masked subtraction: no round trip of acc
        // through MlKem.
        for (a, h) in acc.iter_mut().zip(h) {
            let s = *a + h.value() - Q;
            *a = s + ((s >> 15) & Q);
        }
        timer.stop();
    }
}

/// The price of today's `[MlKem; 256]` API: a copy and a (vectorised)
/// reduction per coefficient each way, which raw `[i16; 256]` entry points
/// would remove. `MlKem::new` reduces any `i16`, so unreduced input is safe.
fn to_field(f: &Poly) -> [MlKem; 256] {
    f.map(MlKem::new)
}

fn from_field(f: &[MlKem; 256]) -> Poly {
    f.map(|c| c.value())
}

/// The four calls into nttfuse, as indices into [`Stats::calls`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// [`Ring::ntt`].
    Ntt = 0,
    /// [`Ring::inverse_ntt`].
    InverseNtt = 1,
    /// [`Ring::multiply_ntts`].
    Multiply = 2,
    /// [`Ring::multiply_accumulate`].
    MultiplyAccumulate = 3,
}

impl Op {
    /// All four, in index order.
    pub const ALL: [Op; 4] = [
        Op::Ntt,
        Op::InverseNtt,
        Op::Multiply,
        Op::MultiplyAccumulate,
    ];
}

/// Calls into nttfuse on this thread since the last [`reset_stats`], and the
/// time spent in them while [`set_timing`] was on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Calls per [`Op`], indexed by `op as usize`.
    pub calls: [u64; 4],
    /// Nanoseconds inside timed calls (conversions to and from nttfuse's
    /// `MlKem` included: they are the price of this boundary).
    pub nanos: u64,
}

thread_local! {
    static STATS: Cell<Stats> = const { Cell::new(Stats { calls: [0; 4], nanos: 0 }) };
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
/// measured time then includes) or only counts them (the default).
pub fn set_timing(on: bool) {
    TIMING.with(|t| t.set(on));
}

/// Counts one call at its start and, while timing is on, adds its duration.
struct Timer(Option<Instant>);

impl Timer {
    #[inline]
    fn start(op: Op) -> Self {
        STATS.with(|s| {
            let mut v = s.get();
            v.calls[op as usize] += 1;
            s.set(v);
        });
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

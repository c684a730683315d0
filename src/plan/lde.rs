//! Low-degree extensions: an inverse transform and an encode, planned
//! together and run in the output buffer. The coset LDE:
//!
//! ```text
//!   evaluations on ⟨ω_n⟩ ──idft──▶ coefficients (first n rows of the output)
//!        ──encode: replicas read from the coefficients, shift in the twiddles──▶
//!   evaluations on shift·⟨ω_(n·2^r)⟩ (natural or bit-reversed order)
//! ```
//!
//! Plonky3's `coset_lde_batch` semantics. The zero padding is never written
//! or transformed: the encode's first pass reads the coefficients for every
//! replica block, so the LDE costs the inverse DFT on n rows plus the encode
//! on n·2^r rows, in the output buffer, with only per-thread scratch.
//!
//! When the inverse DFT's last pass and the encode's first are both gathered
//! and tile a block of n rows alike (the same row groups and runs, as the
//! planner makes them for large shapes), they run as **one pass**:
//!
//! ```text
//!   tile (rows q + j·stride of block 0)
//!     ──inverse's last groups──▶ coefficients in scratch
//!     ──encode's first groups, replica 2^r−1 … 1──▶ the same rows of block r (streamed)
//!     ──encode's first groups, replica 0, in scratch──▶ block 0's rows (read above)
//! ```
//!
//! The coefficients never go to memory: the pass reads n rows and writes
//! n·2^r, where the two plans would read n, write n, then read the n rows
//! again per replica and write n·2^r. Each tile owns its rows in every block,
//! so the pass is safe in place and parallel over tiles.

use super::scratch::ScratchPool;
use super::{Budgets, Plan, Planner, Threads};
use crate::backend::{Backend, Kernels};
use crate::error::Error;
use crate::field::{BinaryField, TwoAdicField};
use crate::transform::{AdditiveLde, Basis, CosetLde, Lde, LogBlowup, Order, Transform};
use alloc::vec::Vec;
use core::fmt;

/// A planned low-degree extension, coset ([`CosetLde`]) or additive
/// ([`AdditiveLde`]): what [`Planner::plan`] makes of either spec (see the
/// module doc for how the two transforms share the output buffer).
///
/// Its accessors have the shape of [`Plan`]'s: [`transform`](Self::transform),
/// [`input_len`](Self::input_len), [`len`](Self::len),
/// [`scratch_len`](Self::scratch_len), [`sweeps`](Self::sweeps),
/// [`backend`](Self::backend), [`execute`](Self::execute),
/// [`execute_from`](Self::execute_from); [`plans`](Self::plans) lists the
/// plans it runs.
///
/// ```
/// use nttfuse::prelude::*;
/// let spec = Transform::<BabyBear>::coset_lde(4, LogBlowup(1)).shift(BabyBear::new(31)).lanes(2);
/// let lde = Planner::new().plan(&spec)?;
/// let evals = vec![BabyBear::ONE; 16 * 2]; // the constant 1 on ⟨ω_16⟩
/// let mut out = vec![BabyBear::ZERO; lde.len()];
/// lde.execute_from(&evals, &mut out)?;
/// assert!(out.iter().all(|&x| x == BabyBear::ONE)); // still 1 on the coset
/// # Ok::<(), nttfuse::Error>(())
/// ```
pub struct LdePlan<F: Kernels> {
    spec: Lde<F>,
    /// The inverse transform; for an additive LDE at rate ½ (which copies
    /// its input), the inverse NTT fused with the NTT of the second coset
    /// (shift b_log_n), run from the input into the output's second half.
    first: Plan<F>,
    /// The encode of the whole output, in place (`None`: the rate-½
    /// additive LDE, whose `first` computes the only new coset).
    encode: Option<Plan<F>>,
    /// Whether the inverse's last pass and the encode's first run as one
    /// (see the module doc), and the scratch that pass takes per thread.
    fused: Option<ScratchPool<F>>,
}

/// The additive LDE's old name: one plan type serves both LDEs now.
#[deprecated(
    since = "0.2.0",
    note = "use `LdePlan`: one plan type serves both LDEs"
)]
pub type AdditiveLdePlan<F> = LdePlan<F>;

impl<F: Kernels + TwoAdicField> LdePlan<F> {
    /// Plans `spec` (see [`CosetLde`]): the inverse DFT out of place into
    /// the output's first rows, then the coset encode in place.
    pub(super) fn coset(planner: &Planner, spec: &CosetLde<F>) -> Result<Self, Error> {
        let [inverse, encode] = spec.parts()?;
        let encode = planner.plan(&encode)?;
        let idft = planner.plan(&inverse)?;
        let fused = fused_scratch(&idft, &encode)?;
        Ok(LdePlan {
            spec: Lde::Coset(spec.clone()),
            first: idft,
            encode: Some(encode),
            fused,
        })
    }
}

impl<F: Kernels + BinaryField> LdePlan<F> {
    /// Plans `spec` (see [`AdditiveLde`]). The input domain is the first
    /// coset of the output's, so at rate ½ the output's first half is the
    /// input, copied, and only the other coset is computed: the inverse NTT
    /// fused with an NTT shifted by b_log_n into one plan (the inverse's
    /// last pass and the forward's first tile the rows alike, so each tile
    /// runs both while in cache), skipping the encode's replica 0 (a third
    /// of the butterflies). At lower rates: the inverse NTT and an in-place
    /// encode, their middle passes fused as in the coset LDE where both are
    /// gathered and tile alike.
    pub(super) fn additive(planner: &Planner, spec: &AdditiveLde<F>) -> Result<Self, Error> {
        let [inverse, encode] = spec.parts()?;
        encode.validate()?;
        let intt = planner.plan(&inverse)?;
        // A pruned LDE is the LDE at the blowup it keeps.
        let kept = spec.kept_part()?;
        let (log_n, blowup) = (kept.log_n(), kept.log_blowup());
        if blowup.0 > 1 {
            let encode = planner.plan(&encode)?;
            let fused = fused_scratch(&intt, &encode)?;
            return Ok(LdePlan {
                spec: Lde::Additive(spec.clone()),
                first: intt,
                encode: Some(encode),
                fused,
            });
        }
        let basis = kept.domain_basis();
        let shift = basis.elements::<F>((log_n + blowup.0) as usize)[log_n as usize];
        let coset = planner.plan(
            &Transform::<F>::additive_ntt(log_n)
                .basis(basis)
                .shift(shift)
                .lanes(kept.lane_count()),
        )?;
        let first = intt
            .fused_with(coset)
            .expect("an inverse and a forward NTT of one shape fuse");
        Ok(LdePlan {
            spec: Lde::Additive(spec.clone()),
            first,
            encode: None,
            fused: None,
        })
    }
}

impl Planner {
    /// Plans the coset LDE of `lanes` columns from 2^log_n evaluations on
    /// ⟨ω_(2^log_n)⟩ to 2^(log_n + log_blowup) evaluations on
    /// `shift · ⟨ω_(2^(log_n+log_blowup))⟩` in `order`.
    #[deprecated(
        since = "0.2.0",
        note = "use `plan(&Transform::coset_lde(log_n, LogBlowup(b)).shift(s).lanes(l).order(o))`: named, typed parameters"
    )]
    pub fn plan_coset_lde<F: Kernels + TwoAdicField>(
        &self,
        log_n: u32,
        log_blowup: u32,
        shift: F,
        lanes: usize,
        order: Order,
    ) -> Result<LdePlan<F>, Error> {
        self.plan(
            &Transform::<F>::coset_lde(log_n, LogBlowup(log_blowup))
                .shift(shift)
                .lanes(lanes)
                .order(order),
        )
    }

    /// Plans the additive LDE of `lanes` columns from 2^log_n evaluations
    /// to 2^(log_n + log_blowup), in `basis`.
    #[deprecated(
        since = "0.2.0",
        note = "use `plan(&Transform::additive_lde(log_n, LogBlowup(b)).basis(basis).lanes(l))`: named, typed parameters"
    )]
    pub fn plan_additive_lde<F: Kernels + BinaryField>(
        &self,
        log_n: u32,
        log_blowup: u32,
        basis: Basis,
        lanes: usize,
    ) -> Result<LdePlan<F>, Error> {
        self.plan(
            &Transform::<F>::additive_lde(log_n, LogBlowup(log_blowup))
                .basis(basis)
                .lanes(lanes),
        )
    }
}

impl<F: Kernels> LdePlan<F> {
    /// The LDE this plan computes.
    pub fn transform(&self) -> &Lde<F> {
        &self.spec
    }

    /// Elements of the input: 2^log_n rows × lanes.
    pub fn input_len(&self) -> usize {
        self.first.len()
    }

    /// Elements of the output: 2^(log_n + log_blowup) rows × lanes.
    pub fn len(&self) -> usize {
        match &self.encode {
            Some(encode) => encode.len(),
            None => 2 * self.first.len(),
        }
    }

    /// Never empty.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The backend whose kernels run the plans.
    pub fn backend(&self) -> Backend {
        self.first.backend()
    }

    /// The thread setting.
    pub fn threads(&self) -> Threads {
        self.first.threads()
    }

    /// The cache budgets the plans were made for.
    pub fn budgets(&self) -> Budgets {
        self.first.budgets()
    }

    /// The plans, in the order they run: the inverse transform, then the
    /// encode; for the rate-½ additive LDE the one plan of its inverse NTT
    /// fused with the second coset's NTT.
    pub fn plans(&self) -> Vec<&Plan<F>> {
        core::iter::once(&self.first).chain(&self.encode).collect()
    }

    /// Whether the output's first 2^log_n rows are the input copied, with
    /// only the other coset computed (the additive LDE at rate ½). Every
    /// additive LDE's output begins with its input (the input domain is the
    /// output's first coset); this says how the plan gets there.
    pub fn copies_input(&self) -> bool {
        self.encode.is_none()
    }

    /// The old name of [`copies_input`](Self::copies_input), which read as
    /// the coding property (every additive LDE has it) rather than the
    /// strategy it names.
    #[deprecated(since = "0.2.0", note = "use `copies_input`")]
    pub fn is_systematic(&self) -> bool {
        self.copies_input()
    }

    /// Whether the inverse's last pass and the encode's first run as one
    /// pass, so the coefficients never go to memory (see the module doc;
    /// the plan's display says so too).
    pub fn is_fused(&self) -> bool {
        self.fused.is_some()
    }

    /// Scratch elements per thread: the largest of the plans' and of the
    /// fused pass's (a tile's coefficients and one replica).
    pub fn scratch_len(&self) -> usize {
        let fused = self.fused.as_ref().map_or(0, ScratchPool::len);
        self.plans()
            .iter()
            .map(|plan| plan.scratch_len())
            .fold(fused, usize::max)
    }

    /// Read+write sweeps of the output buffer the plans predict. The
    /// inverse runs on the first 2^−log_blowup of it, out of place (a
    /// leading bit reversal fused into its first pass); fused with the
    /// encode, its last pass writes no coefficients (the encode's first
    /// pass reads them from scratch). A copy of the input counts as one
    /// sweep of its rows.
    pub fn sweeps(&self) -> f64 {
        let ratio = self.first.len() as f64 / self.len() as f64;
        let first = self.first.cost().sweeps;
        match &self.encode {
            None => (first + 1) as f64 * ratio,
            Some(encode) => {
                let inverse =
                    first - usize::from(self.first.fuses_reversal()) - usize::from(self.is_fused());
                inverse as f64 * ratio + encode.cost().sweeps as f64
            }
        }
    }

    /// Runs the LDE from `evals` ([`input_len`](Self::input_len) elements)
    /// into `out` ([`len`](Self::len) elements).
    pub fn execute_from(&self, evals: &[F], out: &mut [F]) -> Result<(), Error> {
        len_is("output", self.len(), out)?;
        match &self.encode {
            None => {
                let (domain, coset) = out.split_at_mut(self.first.len());
                self.first.execute_from(evals, coset)?;
                self.first.copy_on_threads(evals, domain);
                Ok(())
            }
            Some(encode) => {
                run_inverse_then_encode(&self.first, encode, self.fused.as_ref(), evals, out)
            }
        }
    }

    /// Runs the LDE in place: `data` holds [`len`](Self::len) elements, the
    /// evaluations in its first [`input_len`](Self::input_len) (the rest is
    /// overwritten, whatever it holds).
    ///
    /// This is how a caller that owns the trace's vector extends it without
    /// a second allocation: `resize` it to `len()` (glibc grows a large
    /// vector by remapping it, without copying or touching its pages), then
    /// run this; a fresh output costs the first touch of every page, a good
    /// part of a large LDE's time. Fused, the inverse writes the
    /// coefficients into the last block of 2^log_n rows, read from there by
    /// the fused pass; unfused, it runs in place before the encode. The
    /// additive LDE at rate ½ leaves the evaluations where they are and
    /// computes the second half from them.
    ///
    /// ```
    /// use nttfuse::prelude::*;
    /// let spec = Transform::<BabyBear>::coset_lde(4, LogBlowup(2)).shift(BabyBear::new(31)).lanes(2);
    /// let lde = Planner::new().plan(&spec)?;
    /// let mut data = vec![BabyBear::new(5); lde.input_len()]; // the constant 5
    /// data.resize(lde.len(), BabyBear::ZERO);
    /// lde.execute(&mut data)?;
    /// assert!(data.iter().all(|&x| x == BabyBear::new(5)));
    /// # Ok::<(), nttfuse::Error>(())
    /// ```
    pub fn execute(&self, data: &mut [F]) -> Result<(), Error> {
        match &self.encode {
            None => {
                len_is("data", self.len(), data)?;
                let (domain, coset) = data.split_at_mut(self.first.len());
                self.first.execute_from(domain, coset)
            }
            Some(encode) => {
                run_inverse_then_encode_in_place(&self.first, encode, self.fused.as_ref(), data)
            }
        }
    }
}

impl<F: Kernels> fmt::Display for LdePlan<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (name, inverse) = match &self.spec {
            Lde::Coset(_) => ("coset LDE", "inverse DFT"),
            Lde::Additive(_) => ("additive LDE", "inverse NTT"),
        };
        let pruned = self.spec.pruned_bits();
        if pruned > 0 {
            let (log_n, b) = (self.spec.log_n(), self.spec.log_blowup().0);
            writeln!(
                f,
                "prune      keeps 2^{} of 2^{} rows: the first 2^{} of 2^{b} cosets, as the LDE at blowup 2^{}; the other cosets are never computed ({:.0}% of the encode's rows skipped)",
                log_n + b - pruned,
                log_n + b,
                b - pruned,
                b - pruned,
                100.0 * (1.0 - 1.0 / f64::from(1u32 << pruned.min(31)))
            )?;
        }
        match &self.encode {
            None => write!(
                f,
                "{name}, systematic: the input copied into the first half; \
                 in the second half, the inverse NTT fused with the NTT of the coset \
                 b_log_n + span (groups marked \"next transform\")\n{}",
                self.first
            )?,
            Some(encode) => {
                let then = match &self.spec {
                    Lde::Coset(_) => "a coset encode",
                    Lde::Additive(_) => "an encode",
                };
                writeln!(
                    f,
                    "{name}: {inverse} into the output's first rows, then {then} in place"
                )?;
                if self.is_fused() {
                    fused_line(f, &self.first, encode)?;
                }
                write!(f, "-- 1 --\n{}\n-- 2 --\n{}", self.first, encode)?
            }
        }
        write!(f, "\npredicted: {:.2} sweeps of the output", self.sweeps())
    }
}

impl<F: Kernels> fmt::Debug for LdePlan<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LdePlan")
            .field("spec", &self.spec)
            .field("first", &self.first)
            .field("encode", &self.encode)
            .field("copies_input", &self.copies_input())
            .field("fused", &self.is_fused())
            .finish()
    }
}

/// Scratch for the fused middle pass of `inverse` then `encode`, when their
/// passes fuse ([`Plan::fuses_into_encode`]): one pool buffer per thread.
fn fused_scratch<F: Kernels>(
    inverse: &Plan<F>,
    encode: &Plan<F>,
) -> Result<Option<ScratchPool<F>>, Error> {
    inverse
        .fuses_into_encode(encode)
        .then(|| ScratchPool::new(inverse.fused_lde_scratch_len(), inverse.threads().workers()))
        .transpose()
}

/// Runs `inverse` from `evals` into the first rows of `out`, then `encode`
/// in place: with their middle passes fused when `fused` holds scratch.
fn run_inverse_then_encode<F: Kernels>(
    inverse: &Plan<F>,
    encode: &Plan<F>,
    fused: Option<&ScratchPool<F>>,
    evals: &[F],
    out: &mut [F],
) -> Result<(), Error> {
    len_is("output", encode.len(), out)?;
    let n = inverse.len();
    match fused {
        Some(scratch) => inverse.run_fused_lde(encode, evals, out, scratch),
        None => {
            inverse.execute_from(evals, &mut out[..n])?;
            encode.execute(out)
        }
    }
}

/// As [`run_inverse_then_encode`], in place: the evaluations are `data`'s
/// first `inverse.len()` elements.
fn run_inverse_then_encode_in_place<F: Kernels>(
    inverse: &Plan<F>,
    encode: &Plan<F>,
    fused: Option<&ScratchPool<F>>,
    data: &mut [F],
) -> Result<(), Error> {
    len_is("data", encode.len(), data)?;
    match fused {
        Some(scratch) => inverse.run_fused_lde_in_place(encode, data, scratch),
        None => {
            inverse.execute(&mut data[..inverse.len()])?;
            encode.execute(data)
        }
    }
}

/// The line a fused LDE's display adds: which passes run as one.
fn fused_line<F: Kernels>(
    f: &mut fmt::Formatter<'_>,
    inverse: &Plan<F>,
    encode: &Plan<F>,
) -> fmt::Result {
    let Some(last) = inverse.passes().last().copied() else {
        return Ok(());
    };
    let (index, replicas) = (inverse.steps().len(), encode.len() / inverse.len());
    writeln!(
        f,
        "fused      pass {index} of 1 and pass 1 of 2 run as one: each tile of {} KiB runs \
         the inverse's groups, then the encode's once per replica ({replicas}, last \
         first) from the coefficients in scratch; the coefficients never go to memory \
         (scratch {} KiB per thread)",
        last.tile_bytes >> 10,
        (inverse.fused_lde_scratch_len() * core::mem::size_of::<F>()) >> 10
    )
}

/// `Ok` when `buf` holds `expected` elements, else the typed length error
/// naming it `what`.
fn len_is<F>(what: &'static str, expected: usize, buf: &[F]) -> Result<(), Error> {
    if buf.len() == expected {
        Ok(())
    } else {
        Err(Error::LengthMismatch {
            what,
            expected,
            got: buf.len(),
        })
    }
}

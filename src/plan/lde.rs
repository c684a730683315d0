//! The coset low-degree extension: an inverse DFT and a coset encode, planned
//! together and run in the output buffer.
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
use super::{Plan, Planner};
use crate::backend::Kernels;
use crate::error::Error;
use crate::field::{BinaryField, TwoAdicField};
use crate::transform::{Basis, Order, Transform};
use core::fmt;

/// A planned coset LDE (see the module doc).
///
/// ```
/// use nttfuse::{BabyBear, Field, Order, Planner};
/// let lde = Planner::new().plan_coset_lde::<BabyBear>(4, 1, BabyBear::new(31), 2, Order::Natural)?;
/// let evals = vec![BabyBear::ONE; 16 * 2]; // the constant 1 on ⟨ω_16⟩
/// let mut out = vec![BabyBear::ZERO; lde.len()];
/// lde.execute_from(&evals, &mut out)?;
/// assert!(out.iter().all(|&x| x == BabyBear::ONE)); // still 1 on the coset
/// # Ok::<(), nttfuse::Error>(())
/// ```
pub struct LdePlan<F: Kernels> {
    idft: Plan<F>,
    encode: Plan<F>,
    /// Whether the inverse's last pass and the encode's first run as one
    /// (see the module doc), and the scratch that pass takes per thread.
    fused: Option<ScratchPool<F>>,
}

impl Planner {
    /// Plans the coset LDE of `lanes` columns from 2^log_n evaluations on
    /// ⟨ω_(2^log_n)⟩ to 2^(log_n + log_blowup) evaluations on
    /// `shift · ⟨ω_(2^(log_n+log_blowup))⟩` in `order`.
    ///
    /// Errors: [`Error::Unsupported`] for `log_blowup` = 0 (a coset DFT) and
    /// `log_n` = 0 (one row, which every output row copies); the errors of
    /// [`Planner::plan`] for the inverse DFT and the encode (sizes beyond the
    /// field's two-adicity after the blowup, a zero shift, zero lanes, …).
    pub fn plan_coset_lde<F: Kernels + TwoAdicField>(
        &self,
        log_n: u32,
        log_blowup: u32,
        shift: F,
        lanes: usize,
        order: Order,
    ) -> Result<LdePlan<F>, Error> {
        if log_blowup == 0 {
            return Err(Error::Unsupported {
                what: "a low-degree extension with blowup 2^0 (use coset_dft)",
            });
        }
        if log_n == 0 {
            return Err(Error::Unsupported {
                what: "a low-degree extension of one row (log_n = 0): every output row is that row",
            });
        }
        let log_out = log_n.checked_add(log_blowup).ok_or(Error::SizeTooLarge {
            field: F::NAME,
            log_n: u32::MAX,
            max_log_n: F::TWO_ADICITY as u32,
        })?;
        let encode = self.plan(
            &Transform::<F>::dft_encode(log_out, log_blowup, shift)
                .lanes(lanes)
                .order(order),
        )?;
        let idft = self.plan(&Transform::<F>::idft(log_n).lanes(lanes))?;
        let fused = fused_scratch(&idft, &encode)?;
        Ok(LdePlan {
            idft,
            encode,
            fused,
        })
    }
}

impl<F: Kernels + TwoAdicField> LdePlan<F> {
    /// Elements of the input: 2^log_n rows × lanes.
    pub fn input_len(&self) -> usize {
        self.idft.len()
    }

    /// Elements of the output: 2^(log_n + log_blowup) rows × lanes.
    pub fn len(&self) -> usize {
        self.encode.len()
    }

    /// Never empty.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The two plans: inverse DFT, then the coset encode.
    pub fn plans(&self) -> (&Plan<F>, &Plan<F>) {
        (&self.idft, &self.encode)
    }

    /// Whether the inverse DFT's last pass and the encode's first run as
    /// one pass, so the coefficients never go to memory (see the module
    /// doc; the plan's display says so too).
    pub fn is_fused(&self) -> bool {
        self.fused.is_some()
    }

    /// Scratch elements per thread: the larger of the two plans', and of the
    /// fused pass's (a tile's coefficients and one replica).
    pub fn scratch_len(&self) -> usize {
        let fused = self.fused.as_ref().map_or(0, ScratchPool::len);
        fused
            .max(self.idft.scratch_len())
            .max(self.encode.scratch_len())
    }

    /// Read+write sweeps of the output buffer the plans predict (the inverse
    /// DFT runs on the first 2^−log_blowup of it).
    pub fn sweeps(&self) -> f64 {
        let ratio = self.idft.len() as f64 / self.encode.len() as f64;
        // The inverse DFT runs out of place: a leading bit reversal is
        // fused into its first pass. Fused with the encode, its last pass
        // writes no coefficients: the encode's first pass (one sweep of the
        // output) reads them from scratch instead.
        let idft_sweeps = self.idft.cost().sweeps
            - usize::from(self.idft.fuses_reversal())
            - usize::from(self.is_fused());
        idft_sweeps as f64 * ratio + self.encode.cost().sweeps as f64
    }

    /// Runs the LDE from `evals` into `out`.
    pub fn execute_from(&self, evals: &[F], out: &mut [F]) -> Result<(), Error> {
        let fused = self.fused.as_ref();
        run_inverse_then_encode(&self.idft, &self.encode, fused, evals, out)
    }

    /// Runs the LDE in place: `data` holds [`len`](LdePlan::len) elements,
    /// the evaluations in its first [`input_len`](LdePlan::input_len) (the
    /// rest is overwritten, whatever it holds).
    ///
    /// This is how a caller that owns the trace's vector extends it without
    /// a second allocation: `resize` it to `len()` (glibc grows a large
    /// vector by remapping it, without copying or touching its pages), then
    /// run this.
    /// A fresh output costs the first touch of every page, a good part of
    /// a large LDE's time (`cargo bench --features plonky3 --bench stark`).
    /// Fused, the inverse DFT writes the coefficients into the last block of
    /// n rows, so it still reads the evaluations bit-reversed in its first
    /// pass; unfused, the inverse runs in place (with its own bit-reversal
    /// pass) before the encode.
    ///
    /// ```
    /// use nttfuse::{BabyBear, Field, Order, Planner};
    /// let lde = Planner::new().plan_coset_lde::<BabyBear>(4, 2, BabyBear::new(31), 2, Order::Natural)?;
    /// let mut data = vec![BabyBear::new(5); lde.input_len()]; // the constant 5
    /// data.resize(lde.len(), BabyBear::ZERO);
    /// lde.execute(&mut data)?;
    /// assert!(data.iter().all(|&x| x == BabyBear::new(5)));
    /// # Ok::<(), nttfuse::Error>(())
    /// ```
    pub fn execute(&self, data: &mut [F]) -> Result<(), Error> {
        run_inverse_then_encode_in_place(&self.idft, &self.encode, self.fused.as_ref(), data)
    }
}

impl<F: Kernels + TwoAdicField> fmt::Display for LdePlan<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "coset LDE: inverse DFT into the output's first rows, then a coset encode in place"
        )?;
        if self.is_fused() {
            fused_line(f, &self.idft, &self.encode)?;
        }
        writeln!(f, "-- 1 --\n{}", self.idft)?;
        write!(
            f,
            "-- 2 --\n{}\npredicted: {:.2} sweeps of the output",
            self.encode,
            self.sweeps()
        )
    }
}

/// A planned additive (binary-field) low-degree extension: 2^log_n
/// evaluations on span(b_0 … b_(log_n−1)) to 2^(log_n + log_blowup)
/// evaluations on span(b_0 … b_(log_n+log_blowup−1)), in the basis's natural
/// order — the inverse additive NTT followed by a Reed–Solomon encode at rate
/// 2^−log_blowup, as Plonky3's p3-binary-dft `lde_batch` defines it.
///
/// The evaluation domain is the first coset of the extended one, so at rate
/// ½ the LDE is *systematic*: the output's first half is the input, copied,
/// and only the other coset is computed — the inverse NTT into the second
/// half, then an NTT shifted by b_log_n in place. That skips the encode's
/// replica 0 (a third of the butterflies). The two transforms are fused
/// into one plan: the inverse's last pass and the forward's first tile the
/// rows the same way, so each tile runs both while it is in cache (one
/// sweep fewer). At lower rates the plan is the inverse NTT into the first
/// rows and an in-place encode, their middle passes fused into one as in
/// [`LdePlan`] when both are gathered and tile alike (large shapes).
///
/// ```
/// use nttfuse::{Basis, Gf2_64, Planner};
/// let lde = Planner::new().plan_additive_lde::<Gf2_64>(4, 1, Basis::Cantor, 2)?;
/// let evals: Vec<Gf2_64> = (0..32).map(|i| Gf2_64::new(i * 0x9e37_79b9)).collect();
/// let mut out = vec![Gf2_64::ZERO; lde.len()];
/// lde.execute_from(&evals, &mut out)?;
/// assert_eq!(out[..32], evals[..]); // systematic: the domain comes first
/// # Ok::<(), nttfuse::Error>(())
/// ```
pub struct AdditiveLdePlan<F: Kernels + BinaryField> {
    /// Systematic (rate ½): the inverse NTT and the NTT of the second coset
    /// (shift b_log_n) fused into one plan, run from the input into the
    /// output's second half. Lower rates: the inverse NTT.
    first: Plan<F>,
    /// Lower rates: the encode of the whole output, in place.
    encode: Option<Plan<F>>,
    /// Lower rates, large shapes: the inverse's last pass and the encode's
    /// first run as one (as in [`LdePlan`]), with this scratch per thread.
    fused: Option<ScratchPool<F>>,
}

impl Planner {
    /// Plans the additive LDE of `lanes` columns from 2^log_n evaluations
    /// to 2^(log_n + log_blowup), in `basis` (see [`AdditiveLdePlan`]).
    /// The errors are the encode's (as `Transform::additive_encode(log_n +
    /// log_blowup, log_blowup)`: a single row, `log_n` = 0, leaves it no
    /// layer), and `Unsupported` for `log_blowup` = 0.
    pub fn plan_additive_lde<F: Kernels + BinaryField>(
        &self,
        log_n: u32,
        log_blowup: u32,
        basis: Basis,
        lanes: usize,
    ) -> Result<AdditiveLdePlan<F>, Error> {
        if log_blowup == 0 {
            return Err(Error::Unsupported {
                what: "a low-degree extension with blowup 2^0 (use additive_ntt)",
            });
        }
        // The encode's own checks give the typed errors (size beyond the
        // basis, lanes); an overflowing sum is reported as the largest size.
        let log_out = log_n.saturating_add(log_blowup);
        let encode = Transform::<F>::additive_encode(log_out, log_blowup)
            .basis(basis)
            .lanes(lanes);
        encode.validate()?;
        let intt = self.plan(
            &Transform::<F>::additive_intt(log_n)
                .basis(basis)
                .lanes(lanes),
        )?;
        if log_blowup > 1 {
            let encode = self.plan(&encode)?;
            let fused = fused_scratch(&intt, &encode)?;
            return Ok(AdditiveLdePlan {
                first: intt,
                encode: Some(encode),
                fused,
            });
        }
        let shift = basis.elements::<F>(log_out as usize)[log_n as usize];
        let coset = self.plan(
            &Transform::<F>::additive_ntt(log_n)
                .basis(basis)
                .shift(shift)
                .lanes(lanes),
        )?;
        let first = intt
            .fused_with(coset)
            .expect("an inverse and a forward NTT of one shape fuse");
        Ok(AdditiveLdePlan {
            first,
            encode: None,
            fused: None,
        })
    }
}

impl<F: Kernels + BinaryField> AdditiveLdePlan<F> {
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

    /// Whether the output's first 2^log_n rows are the input, copied, and
    /// only the other coset is computed (rate ½).
    pub fn is_systematic(&self) -> bool {
        self.encode.is_none()
    }

    /// The plans, in order: systematic, the fused inverse NTT + coset NTT
    /// alone; otherwise the inverse NTT and the encode.
    pub fn plans(&self) -> Vec<&Plan<F>> {
        core::iter::once(&self.first).chain(&self.encode).collect()
    }

    /// Read+write sweeps of the output buffer the plans predict (a copy of
    /// the input counts as one sweep of its rows).
    pub fn sweeps(&self) -> f64 {
        let part = |plan: &Plan<F>| plan.cost().sweeps as f64 * plan.len() as f64;
        let rest = match &self.encode {
            Some(encode) => part(encode),
            None => self.first.len() as f64,
        };
        // Fused, the inverse's last pass writes no coefficients: the
        // encode's first pass reads them from scratch.
        let saved = if self.is_fused() {
            self.first.len() as f64
        } else {
            0.0
        };
        (part(&self.first) - saved + rest) / self.len() as f64
    }

    /// Whether (at rates below ½) the inverse NTT's last pass and the
    /// encode's first run as one pass, as in [`LdePlan::is_fused`].
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

    /// Runs the LDE from `evals` into `out`.
    pub fn execute_from(&self, evals: &[F], out: &mut [F]) -> Result<(), Error> {
        len_is("output", self.len(), out)?;
        let n = self.first.len();
        match &self.encode {
            None => {
                let (domain, coset) = out.split_at_mut(n);
                self.first.execute_from(evals, coset)?;
                self.first.copy_on_threads(evals, domain);
                Ok(())
            }
            Some(encode) => {
                run_inverse_then_encode(&self.first, encode, self.fused.as_ref(), evals, out)
            }
        }
    }

    /// Runs the LDE in place: `data` holds [`len`](AdditiveLdePlan::len)
    /// elements, the evaluations in its first
    /// [`input_len`](AdditiveLdePlan::input_len) (the rest is overwritten,
    /// whatever it holds) — a caller that owns the evaluations' vector
    /// `resize`s it and runs this, with no second buffer to allocate and
    /// first-touch.
    ///
    /// Systematic (rate ½), the evaluations stay where they are and the
    /// fused inverse + coset NTT reads them into the second half. At lower
    /// rates the inverse NTT runs in place (fused: into the last block of
    /// 2^log_n rows, read from there by the fused pass) before the encode.
    ///
    /// ```
    /// use nttfuse::{Basis, Gf2_64, Planner};
    /// let lde = Planner::new().plan_additive_lde::<Gf2_64>(4, 2, Basis::Cantor, 2)?;
    /// let evals: Vec<Gf2_64> = (0..32).map(|i| Gf2_64::new(i * 0x9e37_79b9)).collect();
    /// let mut out = vec![Gf2_64::ZERO; lde.len()];
    /// lde.execute_from(&evals, &mut out)?;
    /// let mut data = evals.clone();
    /// data.resize(lde.len(), Gf2_64::ZERO);
    /// lde.execute(&mut data)?;
    /// assert_eq!(data, out);
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

impl<F: Kernels + BinaryField> fmt::Display for AdditiveLdePlan<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.encode {
            None => write!(
                f,
                "additive LDE, systematic: the input copied into the first half; \
                 in the second half, the inverse NTT fused with the NTT of the coset \
                 b_log_n + span (groups marked \"next transform\")\n{}",
                self.first
            )?,
            Some(encode) => {
                writeln!(
                    f,
                    "additive LDE: inverse NTT into the output's first rows, then an encode in place"
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

impl<F: Kernels + TwoAdicField> fmt::Debug for LdePlan<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LdePlan")
            .field("idft", &self.idft)
            .field("encode", &self.encode)
            .field("fused", &self.is_fused())
            .finish()
    }
}

impl<F: Kernels + BinaryField> fmt::Debug for AdditiveLdePlan<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AdditiveLdePlan")
            .field("first", &self.first)
            .field("encode", &self.encode)
            .field("systematic", &self.is_systematic())
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

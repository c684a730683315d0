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

use super::{Plan, Planner};
use crate::backend::Kernels;
use crate::error::Error;
use crate::field::TwoAdicField;
use crate::transform::{Order, Transform};
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
}

impl Planner {
    /// Plans the coset LDE of `lanes` columns from 2^log_n evaluations on
    /// ⟨ω_(2^log_n)⟩ to 2^(log_n + log_blowup) evaluations on
    /// `shift · ⟨ω_(2^(log_n+log_blowup))⟩` in `order`.
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
        Ok(LdePlan { idft, encode })
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

    /// Read+write sweeps of the output buffer the plans predict (the inverse
    /// DFT runs on the first 2^−log_blowup of it).
    pub fn sweeps(&self) -> f64 {
        let ratio = self.idft.len() as f64 / self.encode.len() as f64;
        self.idft.cost().sweeps as f64 * ratio + self.encode.cost().sweeps as f64
    }

    /// Runs the LDE from `evals` into `out`.
    pub fn execute_from(&self, evals: &[F], out: &mut [F]) -> Result<(), Error> {
        if out.len() != self.len() {
            return Err(Error::LengthMismatch {
                what: "output",
                expected: self.len(),
                got: out.len(),
            });
        }
        let n = self.idft.len();
        self.idft.execute_from(evals, &mut out[..n])?;
        self.encode.execute(out)
    }
}

impl<F: Kernels + TwoAdicField> fmt::Display for LdePlan<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "coset LDE: inverse DFT into the output's first rows, then a coset encode in place"
        )?;
        writeln!(f, "-- 1 --\n{}", self.idft)?;
        write!(
            f,
            "-- 2 --\n{}\npredicted: {:.2} sweeps of the output",
            self.encode,
            self.sweeps()
        )
    }
}

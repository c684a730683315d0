//! Low-degree extensions as specs: what [`Planner::plan`](crate::Planner::plan)
//! turns into an [`LdePlan`](crate::LdePlan), described like a [`Transform`]
//! (a constructor with the sizes, then builder methods with names).
//!
//! ```text
//!   CosetLde     2^log_n evaluations on ⟨ω_n⟩ ─▶ 2^(log_n+b) on shift·⟨ω_(n·2^b)⟩
//!   AdditiveLde  2^log_n evaluations on span(b_0…b_(log_n−1))
//!                  ─▶ 2^(log_n+b) on span(b_0…b_(log_n+b−1))
//! ```
//!
//! The blowup is a [`LogBlowup`], not a second `u32`: `coset_lde(10,
//! LogBlowup(2))` cannot be written with the two sizes swapped.

use super::{Basis, Order, Transform};
use crate::error::Error;
use crate::field::{BinaryField, Field, TwoAdicField};

/// log₂ of a Reed–Solomon blowup (the inverse rate): `LogBlowup(1)` doubles
/// the rows (rate ½), `LogBlowup(2)` quadruples them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LogBlowup(pub u32);

impl LogBlowup {
    /// The factor the rows grow by, 2^self.0 (`None` past `usize`).
    pub fn factor(self) -> Option<usize> {
        1usize.checked_shl(self.0)
    }
}

/// A coset low-degree extension (Plonky3's `coset_lde_batch`): the
/// evaluations of `lanes` polynomials of degree < 2^log_n on ⟨ω_(2^log_n)⟩
/// in, their evaluations on `shift · ⟨ω_(2^(log_n + blowup))⟩` out.
///
/// ```
/// use nttfuse::prelude::*;
/// let spec = Transform::<BabyBear>::coset_lde(10, LogBlowup(1)).lanes(8);
/// assert_eq!((spec.input_len()?, spec.output_len()?), (1024 * 8, 2048 * 8));
/// assert_eq!(spec.coset_shift(), BabyBear::multiplicative_generator()); // the default
/// let lde = Planner::new().plan(&spec)?;
/// assert_eq!(lde.transform(), &Lde::Coset(spec));
/// # Ok::<(), nttfuse::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CosetLde<F> {
    log_n: u32,
    blowup: LogBlowup,
    shift: F,
    lanes: usize,
    order: Order,
    prune: u32,
}

/// An additive (binary-field) low-degree extension (p3-binary-dft's
/// `lde_batch`): the evaluations of `lanes` polynomials on span(b_0 …
/// b_(log_n−1)) in, their evaluations on span(b_0 … b_(log_n+blowup−1)) out,
/// in the basis's natural order. The input domain is the first coset of the
/// output's, so the output's first 2^log_n rows are the input.
///
/// ```
/// use nttfuse::prelude::*;
/// let spec = Transform::<Gf2_64>::additive_lde(4, LogBlowup(2)).basis(Basis::Cantor).lanes(2);
/// let lde = Planner::new().plan(&spec)?;
/// let evals: Vec<Gf2_64> = (0..32).map(|i| Gf2_64::new(i * 0x9e37_79b9)).collect();
/// let mut out = vec![Gf2_64::ZERO; lde.len()];
/// lde.execute_from(&evals, &mut out)?;
/// assert_eq!(out[..32], evals[..]); // the input domain comes first
/// # Ok::<(), nttfuse::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AdditiveLde<F> {
    log_n: u32,
    blowup: LogBlowup,
    basis: Basis,
    lanes: usize,
    prune: u32,
    _field: core::marker::PhantomData<F>,
}

/// Either LDE spec: what an [`LdePlan`](crate::LdePlan) computes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lde<F> {
    /// A coset LDE over a two-adic field.
    Coset(CosetLde<F>),
    /// An additive LDE over a binary field.
    Additive(AdditiveLde<F>),
}

impl<F: TwoAdicField> Transform<F> {
    /// The coset LDE from 2^log_n rows to 2^(log_n + blowup) (see
    /// [`CosetLde`]; shift: the field's multiplicative generator, as
    /// Plonky3's `coset_lde_batch` callers pass; order natural; 1 lane).
    pub fn coset_lde(log_n: u32, blowup: LogBlowup) -> CosetLde<F> {
        CosetLde {
            log_n,
            blowup,
            shift: F::multiplicative_generator(),
            lanes: 1,
            order: Order::Natural,
            prune: 0,
        }
    }
}

impl<F: BinaryField> Transform<F> {
    /// The additive LDE from 2^log_n rows to 2^(log_n + blowup) (see
    /// [`AdditiveLde`]; basis standard, 1 lane).
    pub fn additive_lde(log_n: u32, blowup: LogBlowup) -> AdditiveLde<F> {
        AdditiveLde {
            log_n,
            blowup,
            basis: Basis::Standard,
            lanes: 1,
            prune: 0,
            _field: core::marker::PhantomData,
        }
    }
}

impl<F: TwoAdicField> CosetLde<F> {
    /// The coset the output evaluates on (default: the field's
    /// multiplicative generator).
    pub fn shift(mut self, shift: F) -> Self {
        self.shift = shift;
        self
    }
    /// Interleaved columns (row-major), default 1.
    pub fn lanes(mut self, lanes: usize) -> Self {
        self.lanes = lanes;
        self
    }
    /// The output's order (default natural).
    pub fn order(mut self, order: Order) -> Self {
        self.order = order;
        self
    }
    /// log₂ of the input rows.
    pub fn log_n(&self) -> u32 {
        self.log_n
    }
    /// The blowup.
    pub fn log_blowup(&self) -> LogBlowup {
        self.blowup
    }
    /// The coset shift.
    pub fn coset_shift(&self) -> F {
        self.shift
    }
    /// Interleaved columns.
    pub fn lane_count(&self) -> usize {
        self.lanes
    }
    /// The output's order.
    pub fn evaluation_order(&self) -> Order {
        self.order
    }
    /// Keeps only the first 2^(log_n + blowup − k) output rows. In
    /// bit-reversed order those are the evaluations on shift·⟨ω_(m/2^k)⟩,
    /// so with k ≤ blowup this is the LDE at blowup 2^(blowup − k) — the
    /// dropped cosets are never computed. In natural order the first rows
    /// are no coset (nothing to skip), and k > blowup keeps fewer rows than
    /// the input: both are [`Error::Unsupported`] when planned.
    ///
    /// ```
    /// use nttfuse::prelude::*;
    /// let full = Transform::<BabyBear>::coset_lde(6, LogBlowup(3)).order(Order::BitReversed);
    /// let evals: Vec<BabyBear> = (0..64u32).map(BabyBear::new).collect();
    /// let mut whole = vec![BabyBear::ZERO; 512];
    /// Planner::new().plan(&full)?.execute_from(&evals, &mut whole)?;
    /// let pruned = Planner::new().plan(&full.clone().retain_prefix(2))?;
    /// let mut kept = vec![BabyBear::ZERO; pruned.len()];
    /// pruned.execute_from(&evals, &mut kept)?;
    /// assert_eq!(kept[..], whole[..128]);
    /// # Ok::<(), nttfuse::Error>(())
    /// ```
    pub fn retain_prefix(mut self, k: u32) -> Self {
        self.prune = k;
        self
    }
    /// log₂ of the share of output rows dropped ([`CosetLde::retain_prefix`]).
    pub fn pruned_bits(&self) -> u32 {
        self.prune
    }
    /// Elements of the input (2^log_n rows × lanes).
    pub fn input_len(&self) -> Result<usize, Error> {
        self.inverse().input_len()
    }
    /// Elements of the output (2^(log_n + blowup − pruned bits) rows ×
    /// lanes).
    pub fn output_len(&self) -> Result<usize, Error> {
        self.encode()?.output_len()
    }
    /// The two transforms it is made of: the inverse DFT of the input's
    /// rows, then the coset encode of its coefficients (at the blowup kept,
    /// when pruned). Running them one after the other computes the LDE (the
    /// plan fuses them where it can).
    pub fn parts(&self) -> Result<[Transform<F>; 2], Error> {
        Ok([self.inverse(), self.encode()?])
    }

    /// The LDE a pruned one computes: the same at blowup 2^(blowup − k).
    pub(crate) fn kept_part(&self) -> Result<Self, Error> {
        if self.prune == 0 {
            return Ok(self.clone());
        }
        if self.order != Order::BitReversed {
            return Err(Error::Unsupported {
                what: "retain_prefix on a coset LDE in natural order (its first rows are no coset; prune the bit-reversed output)",
            });
        }
        let blowup = self
            .blowup
            .0
            .checked_sub(self.prune)
            .ok_or(Error::Unsupported {
                what: "retain_prefix(k) with k above a coset LDE's blowup (fewer rows than the input)",
            })?;
        Ok(CosetLde {
            blowup: LogBlowup(blowup),
            prune: 0,
            ..self.clone()
        })
    }

    fn inverse(&self) -> Transform<F> {
        Transform::idft(self.log_n).lanes(self.lanes)
    }

    fn encode(&self) -> Result<Transform<F>, Error> {
        check_coset_sizes::<F>(self.log_n, self.blowup)?;
        let kept = self.kept_part()?;
        let (log_out, blowup) = (kept.log_n + kept.blowup.0, kept.blowup);
        Ok(Transform::dft_encode(log_out, blowup, self.shift)
            .lanes(self.lanes)
            .order(self.order))
    }
}

impl<F: BinaryField> AdditiveLde<F> {
    /// The basis of the domains (default standard; [`Basis::Cantor`] is
    /// p3-binary-dft's).
    pub fn basis(mut self, basis: Basis) -> Self {
        self.basis = basis;
        self
    }
    /// Interleaved columns (row-major), default 1.
    pub fn lanes(mut self, lanes: usize) -> Self {
        self.lanes = lanes;
        self
    }
    /// log₂ of the input rows.
    pub fn log_n(&self) -> u32 {
        self.log_n
    }
    /// The blowup.
    pub fn log_blowup(&self) -> LogBlowup {
        self.blowup
    }
    /// The basis.
    pub fn domain_basis(&self) -> Basis {
        self.basis
    }
    /// Interleaved columns.
    pub fn lane_count(&self) -> usize {
        self.lanes
    }
    /// Keeps only the first 2^(log_n + blowup − k) output rows, the points
    /// of span(b_0 … b_(log_n+blowup−k−1)): with k < blowup the LDE at
    /// blowup 2^(blowup − k), the dropped cosets never computed. With
    /// k ≥ blowup the kept rows are the input's own first rows (the input
    /// domain is the output's first coset): [`Error::Unsupported`] when
    /// planned, as there is nothing to compute.
    ///
    /// ```
    /// use nttfuse::prelude::*;
    /// let full = Transform::<Gf2_64>::additive_lde(5, LogBlowup(3)).lanes(2);
    /// let evals: Vec<Gf2_64> = (0..64).map(|i| Gf2_64::new(i * 0x9e37_79b9)).collect();
    /// let mut whole = vec![Gf2_64::ZERO; 512];
    /// Planner::new().plan(&full)?.execute_from(&evals, &mut whole)?;
    /// let pruned = Planner::new().plan(&full.clone().retain_prefix(1))?;
    /// let mut kept = vec![Gf2_64::ZERO; pruned.len()];
    /// pruned.execute_from(&evals, &mut kept)?;
    /// assert_eq!(kept[..], whole[..256]);
    /// # Ok::<(), nttfuse::Error>(())
    /// ```
    pub fn retain_prefix(mut self, k: u32) -> Self {
        self.prune = k;
        self
    }
    /// log₂ of the share of output rows dropped ([`AdditiveLde::retain_prefix`]).
    pub fn pruned_bits(&self) -> u32 {
        self.prune
    }
    /// Elements of the input (2^log_n rows × lanes).
    pub fn input_len(&self) -> Result<usize, Error> {
        self.inverse().input_len()
    }
    /// Elements of the output (2^(log_n + blowup − pruned bits) rows ×
    /// lanes).
    pub fn output_len(&self) -> Result<usize, Error> {
        self.encode()?.output_len()
    }
    /// The two transforms it is made of: the inverse additive NTT of the
    /// input's rows, then the encode of its coefficients at rate
    /// 2^−blowup (the blowup kept, when pruned). Running them one after the
    /// other computes the LDE.
    pub fn parts(&self) -> Result<[Transform<F>; 2], Error> {
        Ok([self.inverse(), self.encode()?])
    }

    /// The LDE a pruned one computes: the same at blowup 2^(blowup − k).
    pub(crate) fn kept_part(&self) -> Result<Self, Error> {
        if self.prune == 0 {
            return Ok(self.clone());
        }
        if self.prune >= self.blowup.0 {
            return Err(Error::Unsupported {
                what: "retain_prefix(k) with k at or above an additive LDE's blowup (the kept rows are the input's own)",
            });
        }
        Ok(AdditiveLde {
            blowup: LogBlowup(self.blowup.0 - self.prune),
            prune: 0,
            ..self.clone()
        })
    }

    pub(crate) fn inverse(&self) -> Transform<F> {
        Transform::additive_intt(self.log_n)
            .basis(self.basis)
            .lanes(self.lanes)
    }

    pub(crate) fn encode(&self) -> Result<Transform<F>, Error> {
        if self.prune > 0 {
            return self.kept_part()?.encode();
        }
        if self.blowup.0 == 0 {
            return Err(Error::Unsupported {
                what: "a low-degree extension with blowup 2^0 (use additive_ntt)",
            });
        }
        // The encode's own checks give the typed errors (one input row
        // leaves it no layer to run: rate too high; size beyond the basis);
        // an overflowing sum is reported as the largest size.
        let log_out = self.log_n.saturating_add(self.blowup.0);
        Ok(Transform::additive_encode(log_out, self.blowup)
            .basis(self.basis)
            .lanes(self.lanes))
    }
}

impl<F: Field> Lde<F> {
    /// log₂ of the input rows.
    pub fn log_n(&self) -> u32 {
        match self {
            Lde::Coset(s) => s.log_n,
            Lde::Additive(s) => s.log_n,
        }
    }
    /// The blowup.
    pub fn log_blowup(&self) -> LogBlowup {
        match self {
            Lde::Coset(s) => s.blowup,
            Lde::Additive(s) => s.blowup,
        }
    }
    /// Interleaved columns.
    pub fn lane_count(&self) -> usize {
        match self {
            Lde::Coset(s) => s.lanes,
            Lde::Additive(s) => s.lanes,
        }
    }
    /// log₂ of the share of output rows dropped (`retain_prefix`).
    pub fn pruned_bits(&self) -> u32 {
        match self {
            Lde::Coset(s) => s.prune,
            Lde::Additive(s) => s.prune,
        }
    }
}

/// The errors a coset LDE's sizes give before any plan: one input row (no
/// layer left to run: every output row is that row), and a sum past the
/// field's largest transform. Blowup 2^0 is allowed (as Plonky3's
/// `coset_lde_batch` allows it): the evaluations on the coset g·H of the
/// interpolant, an inverse DFT and a coset DFT.
fn check_coset_sizes<F: TwoAdicField>(log_n: u32, blowup: LogBlowup) -> Result<(), Error> {
    if log_n == 0 {
        return Err(Error::Unsupported {
            what: "a low-degree extension of one row (log_n = 0): every output row is that row",
        });
    }
    match log_n.checked_add(blowup.0) {
        Some(_) => Ok(()),
        None => Err(Error::SizeTooLarge {
            field: F::NAME,
            log_n: u32::MAX,
            max_log_n: F::TWO_ADICITY as u32,
        }),
    }
}

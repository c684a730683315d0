//! What to compute, with no thought of speed.
//!
//! A transform of 2^d rows is a sequence of *layers*. Layer ℓ (0 = largest
//! span) pairs rows 2^(d−ℓ−1) apart inside blocks of 2^(d−ℓ) rows and applies
//! one [`ButterflyKind`] with **one twiddle per block**:
//!
//! ```text
//!   layer 0   |a0 a1 a2 a3 b0 b1 b2 b3|          1 block,  twiddle t[0][0]
//!   layer 1   |a0 a1 b0 b1|a0 a1 b0 b1|          2 blocks, twiddles t[1][0..2]
//!   layer 2   |a0 b0|a0 b0|a0 b0|a0 b0|          4 blocks, twiddles t[2][0..4]
//! ```
//!
//! The twiddle *schedule* is what tells the families apart:
//! - cyclic DFT over a [`TwoAdicField`](crate::field::TwoAdicField): block k of layer ℓ uses ω^brv(k)
//!   (the polynomial-remainder tree of x^n − 1), natural input → bit-reversed
//!   output; natural output is a bit-reversal permutation after the layers;
//! - negacyclic (FIPS 203 / 204): block k of layer ℓ uses ζ^BitRev(2^ℓ + k);
//! - additive (Lin–Chung–Han novel basis, [`BinaryField`](crate::field::BinaryField)): block β of layer ℓ
//!   uses Σ_k bit_k(β)·Ŵ_i(b_(i+1+k)) with i = d − ℓ − 1.
//!
//! Inverses run the same layers in reverse with the inverse butterfly. A
//! [`Schedule`] is this description as data; the planner groups its layers and
//! never changes what they compute. The [`reference`](mod@reference) module evaluates every
//! transform by its O(n²) definition.

use alloc::vec::Vec;
mod additive;
mod describe;
mod lde;
pub mod mldsa;
pub mod mlkem;
mod multiplicative;
mod read;
pub mod reference;
pub mod ring;

use crate::error::Error;
use crate::field::Field;

pub use additive::Basis;
pub use lde::{AdditiveLde, CosetLde, Lde, LogBlowup};
#[doc(hidden)]
pub use read::Constructors;
pub use ring::{NttOrder, Reduction};

/// Forward or inverse.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Coefficients → evaluations.
    Forward,
    /// Evaluations → coefficients.
    Inverse,
}

/// Order of the evaluations (the output of a forward transform, the input of
/// an inverse one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Order {
    /// Evaluation k at the k-th domain point.
    Natural,
    /// Evaluation k at domain point BitRev(k) (what FRI folding wants).
    BitReversed,
}

/// The transform families.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// DFT over the subgroup ⟨ω⟩ of a two-adic field.
    Cyclic,
    /// Negacyclic NTT of the lattice standards (FIPS 203 / 204), possibly
    /// incomplete (ML-KEM stops at degree-1 residues).
    Negacyclic,
    /// Additive NTT over a binary field (novel polynomial basis).
    Additive,
}

/// The butterfly a layer applies to a pair (a, b) with twiddle w.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ButterflyKind {
    /// Cooley–Tukey: (a, b) → (a + w·b, a − w·b).
    CooleyTukey,
    /// Gentleman–Sande: (a, b) → (a + b, (a − b)·w).
    GentlemanSande,
    /// Additive: a' = a + w·b, b' = b + a'.
    Additive,
    /// Inverse additive: b = b' + a', a = a' + w·b.
    AdditiveInverse,
}

impl ButterflyKind {
    /// Whether layers run from the largest span down (forward kinds) or from
    /// the smallest span up (inverse kinds).
    pub fn descending_spans(self) -> bool {
        matches!(self, ButterflyKind::CooleyTukey | ButterflyKind::Additive)
    }
}

/// A transform description: what to compute, on data of what shape.
///
/// Build one with a family constructor, adjust its shape, then hand it to
/// [`Planner::plan`](crate::Planner::plan). Shape errors are reported by the
/// planner as typed [`Error`]s.
///
/// ```
/// use nttfuse::{BabyBear, Order, Transform};
/// let spec = Transform::<BabyBear>::dft(10).lanes(4).order(Order::BitReversed);
/// assert_eq!(spec.rows(), 1024);
/// assert_eq!(spec, Transform::<BabyBear>::dft(10).order(Order::BitReversed).lanes(4));
/// assert_ne!(spec, Transform::<BabyBear>::dft(10).lanes(4));
/// ```
#[derive(Clone, Debug)]
pub struct Transform<F: Field> {
    family: Family,
    direction: Direction,
    log_n: u32,
    bad_len: Option<usize>,
    max_log_n: u32,
    lanes: usize,
    batch: usize,
    order: Order,
    order_settable: bool,
    unsupported: Option<&'static str>,
    first_layer: u32,
    layer_end: Option<u32>,
    /// An additive transform's twiddles are those of the top `log_n` layers
    /// of a 2^(log_n + depth)-point transform over the same basis (the
    /// out-of-core encode's outer pass); 0 for every public transform.
    depth: u32,
    encode: bool,
    negacyclic_root: F,
    basis: Basis,
    shift: F,
    lane_major_input: bool,
    prune: u32,
    reduction: Reduction,
    ntt_order: NttOrder,
    /// Where a standard-order coefficient sits in the permuted order (the
    /// lattice transforms; the identity elsewhere).
    permuted_address: fn(usize) -> usize,
    twiddles_fn: fn(&Transform<F>) -> Vec<Vec<F>>,
    fold_fn: fn(&Transform<F>) -> Vec<F>,
    scale_fn: fn(&Transform<F>) -> Option<F>,
    pub(crate) reference_fn: fn(&Transform<F>, &[F]) -> Vec<F>,
}

/// Two descriptions are equal when they describe the same transform: every
/// parameter alike (the functions behind them follow from the family, the
/// direction and the field, so they are not compared).
impl<F: Field> PartialEq for Transform<F> {
    fn eq(&self, other: &Self) -> bool {
        self.family == other.family
            && self.direction == other.direction
            && self.log_n == other.log_n
            && self.bad_len == other.bad_len
            && self.max_log_n == other.max_log_n
            && self.lanes == other.lanes
            && self.batch == other.batch
            && self.order == other.order
            && self.order_settable == other.order_settable
            && self.unsupported == other.unsupported
            && self.first_layer == other.first_layer
            && self.layer_end == other.layer_end
            && self.depth == other.depth
            && self.encode == other.encode
            && self.negacyclic_root == other.negacyclic_root
            && self.basis == other.basis
            && self.shift == other.shift
            && self.lane_major_input == other.lane_major_input
            && self.prune == other.prune
            && self.reduction == other.reduction
            && self.ntt_order == other.ntt_order
    }
}

impl<F: Field> Eq for Transform<F> {}

impl<F: Field> Transform<F> {
    fn new(family: Family, direction: Direction, log_n: u32, max_log_n: u32) -> Self {
        Self {
            family,
            direction,
            log_n,
            bad_len: None,
            max_log_n,
            lanes: 1,
            batch: 1,
            order: Order::Natural,
            order_settable: false,
            unsupported: None,
            first_layer: 0,
            layer_end: None,
            depth: 0,
            encode: false,
            negacyclic_root: F::zero(),
            basis: Basis::Standard,
            shift: F::zero(),
            lane_major_input: false,
            prune: 0,
            reduction: Reduction::Canonical,
            ntt_order: NttOrder::Standard,
            permuted_address: |c| c,
            twiddles_fn: |_| Vec::new(),
            fold_fn: |_| Vec::new(),
            scale_fn: |_| None,
            reference_fn: |_, column| column.to_vec(),
        }
    }

    /// Number of interleaved columns: row i holds coefficient i of every
    /// column (row-major matrix). Default 1.
    pub fn lanes(mut self, lanes: usize) -> Self {
        self.lanes = lanes;
        self
    }

    /// Takes the input lane-major: per item, column c is the contiguous run
    /// `input[c·rows .. (c+1)·rows]` (as a prover holds its trace columns),
    /// instead of interleaved rows. The output stays row-major. The plan
    /// begins with a cache-tiled, parallel transpose of the input rows into
    /// the front of the output (for an encode, just the message), then runs
    /// in place: one more sweep of the input, and no buffer of your own for
    /// the transposed rows. Needs [`Plan::execute_from`](crate::Plan::execute_from)
    /// (in-place execution of more than one lane is an [`Error::Unsupported`]).
    ///
    /// ```
    /// use nttfuse::{Field, Gf2_64, LogBlowup, Planner, Transform};
    /// // Two columns of 4 coefficients, encoded at rate 1/2.
    /// let spec = Transform::<Gf2_64>::additive_encode(3, LogBlowup(1)).lanes(2);
    /// let plan = Planner::new().plan(&spec.clone().lane_major_input())?;
    /// let columns: Vec<Gf2_64> = (1..=8).map(Gf2_64::from_u64).collect();
    /// let mut codeword = vec![Gf2_64::ZERO; plan.len()];
    /// plan.execute_from(&columns, &mut codeword)?;
    /// // The same as interleaving the rows first.
    /// let rows: Vec<Gf2_64> = (0..8).map(|i| columns[(i % 2) * 4 + i / 2]).collect();
    /// let mut expected = vec![Gf2_64::ZERO; plan.len()];
    /// Planner::new().plan(&spec)?.execute_from(&rows, &mut expected)?;
    /// assert_eq!(codeword, expected);
    /// # Ok::<(), nttfuse::Error>(())
    /// ```
    pub fn lane_major_input(mut self) -> Self {
        self.lane_major_input = true;
        self
    }

    /// Keeps only the first 2^(log_n − k) outputs of a forward additive NTT
    /// (the points of `shift + span(b_0, …, b_(log_n−k−1))`), skipping the
    /// work of the rest: the novel-basis polynomials X_j with j ≥ 2^(log_n−k)
    /// are constant on those points (zero when unshifted), so the result is
    /// the 2^(log_n−k)-row transform of the first coefficients — plus, for a
    /// shifted domain, a *fold* that adds each higher coefficient block times
    /// a product of the constants Ŵ_i(shift). Output: 2^(log_n−k) rows.
    /// Runs out of place ([`Plan::execute_from`](crate::Plan::execute_from)).
    ///
    /// On an encode ([`Transform::additive_encode`], rate 2^−r) it keeps the
    /// first 2^(log_n − k) rows of the codeword: with k ≤ r those are its
    /// first 2^(r−k) blocks, computed as the encode at rate 2^−(r−k) (the
    /// dropped blocks cost nothing); with k > r they are fewer than the
    /// message's rows, computed as the message's NTT pruned by k − r.
    ///
    /// ```
    /// use nttfuse::{Field, Gf2_64, LogBlowup, Planner, Transform};
    /// let full = Transform::<Gf2_64>::additive_encode(10, LogBlowup(2)).shift(Gf2_64::new(9));
    /// let message: Vec<Gf2_64> = (0..256).map(|i| Gf2_64::from_u64(i * 31 + 7)).collect();
    /// let mut codeword = vec![Gf2_64::ZERO; 1024];
    /// Planner::new().plan(&full)?.execute_from(&message, &mut codeword)?;
    /// for k in [1, 2, 3, 6] {
    ///     let pruned = Planner::new().plan(&full.clone().retain_prefix(k))?;
    ///     let mut kept = vec![Gf2_64::ZERO; 1024 >> k];
    ///     pruned.execute_from(&message, &mut kept)?;
    ///     assert_eq!(kept[..], codeword[..1024 >> k]);
    /// }
    /// # Ok::<(), nttfuse::Error>(())
    /// ```
    ///
    /// ```
    /// use nttfuse::{Field, Gf2_64, Planner, Transform};
    /// let full = Transform::<Gf2_64>::additive_ntt(10).lanes(2);
    /// let pruned = full.clone().retain_prefix(3); // keep 2^7 of 2^10 rows
    /// let input: Vec<Gf2_64> = (0..2048).map(|i| Gf2_64::from_u64(i * 77 + 1)).collect();
    /// let (mut a, mut b) = (vec![Gf2_64::ZERO; 2048], vec![Gf2_64::ZERO; 256]);
    /// Planner::new().plan(&full)?.execute_from(&input, &mut a)?;
    /// Planner::new().plan(&pruned)?.execute_from(&input, &mut b)?;
    /// assert_eq!(a[..256], b[..]);
    /// # Ok::<(), nttfuse::Error>(())
    /// ```
    pub fn retain_prefix(mut self, k: u32) -> Self {
        self.prune = k;
        self
    }

    /// log₂ of the share of outputs dropped ([`Transform::retain_prefix`]).
    pub fn pruned_bits(&self) -> u32 {
        self.prune
    }

    /// The transform a pruned one runs after its fold: the same domain's
    /// first 2^(log_n − k) points, as a 2^(log_n − k)-row transform. For
    /// an encode at rate 2^−r: with k ≤ r the encode of the first 2^(r−k)
    /// blocks (rate 2^−(r−k)); with k > r the kept points are fewer than
    /// the message's rows, and the kept part is that of the message's
    /// pruned NTT ([`Transform::message_ntt`]).
    pub(crate) fn kept_part(&self) -> Self {
        let mut sub = self.clone();
        sub.log_n = self.log_n - self.prune;
        sub.prune = 0;
        if self.encode {
            match self.first_layer.checked_sub(self.prune) {
                Some(rate) => sub.first_layer = rate,
                None => {
                    sub.first_layer = 0;
                    sub.encode = false;
                }
            }
        }
        sub
    }

    /// A pruned encode that keeps fewer rows than its message has, as the
    /// forward NTT of the message (2^(log_n − r) rows, the same basis and
    /// shift) pruned by k − r: the same outputs.
    fn message_ntt(&self) -> Self {
        let mut t = self.clone();
        t.log_n = self.log_n - self.first_layer;
        t.prune = self.prune - self.first_layer;
        t.first_layer = 0;
        t.encode = false;
        t
    }

    /// The fold of a pruned transform: coefficient c_j (j < 2^k) multiplying
    /// input block j (rows j·2^(log_n−k) …) into the kept rows; empty when
    /// every c_j with j > 0 is zero (an unshifted domain), so there is none.
    /// A pruned encode folds only when it keeps fewer rows than its message.
    pub(crate) fn fold_coefficients(&self) -> Vec<F> {
        if self.prune == 0 || (self.encode && self.prune <= self.first_layer) {
            Vec::new()
        } else if self.encode {
            let ntt = self.message_ntt();
            (ntt.fold_fn)(&ntt)
        } else {
            (self.fold_fn)(self)
        }
    }

    /// Whether the input is lane-major ([`Transform::lane_major_input`]).
    pub fn input_is_lane_major(&self) -> bool {
        self.lane_major_input
    }

    /// Number of independent transforms stored one after another. Default 1.
    pub fn batch(mut self, batch: usize) -> Self {
        self.batch = batch;
        self
    }

    /// Order of the evaluations: the output of a forward DFT, the input of an
    /// inverse one. Default natural. Only cyclic DFTs have this option.
    pub fn order(mut self, order: Order) -> Self {
        if !self.order_settable {
            self.unsupported = Some("an evaluation order on a transform whose order is fixed");
        }
        self.order = order;
        self
    }

    /// Evaluates on a coset: `shift + span(basis)` for additive transforms,
    /// `shift · ⟨ω⟩` for cyclic ones. The shift lives in the twiddles (each
    /// layer's twiddles are scaled by a power of it), so a coset transform
    /// costs what a plain one does. Negacyclic transforms have no coset form.
    pub fn shift(mut self, shift: F) -> Self {
        if self.family == Family::Negacyclic {
            self.unsupported = Some("a coset shift on a negacyclic transform");
        }
        self.shift = shift;
        self
    }

    /// How far a lattice NTT reduces its outputs: [`Reduction::Canonical`]
    /// (the default, the standards' values) or [`Reduction::Lazy`] (raw
    /// words within the bound the plan prints, for
    /// [`Plan::execute_raw`](crate::Plan::execute_raw)). A lazy inverse
    /// ML-KEM NTT also takes any `i16` as input (as mlkem-native's does).
    /// Only the ML-KEM and ML-DSA NTTs (one column per polynomial) have
    /// this option.
    ///
    /// ```
    /// use nttfuse::{MlKem, Planner, Reduction, Transform};
    /// let spec = Transform::<MlKem>::negacyclic_forward().reduction(Reduction::Lazy);
    /// let plan = Planner::new().plan(&spec)?;
    /// let mut poly = [1i16; 256];
    /// plan.execute_raw(&mut poly)?;
    /// assert!(poly.iter().all(|&a| a.unsigned_abs() < 8 * 3329));
    /// # Ok::<(), nttfuse::Error>(())
    /// ```
    pub fn reduction(mut self, reduction: Reduction) -> Self {
        if self.family != Family::Negacyclic {
            self.unsupported = Some("a reduction mode on a transform that is not a lattice NTT");
        }
        self.reduction = reduction;
        self
    }

    /// The order of a lattice NTT's output (forward) or input (inverse):
    /// [`NttOrder::Standard`] (the default, FIPS 203 / 204) or
    /// [`NttOrder::Permuted`], the order the SIMD kernels leave, for
    /// codebases that keep the NTT domain private (products take either).
    pub fn ntt_order(mut self, order: NttOrder) -> Self {
        if self.family != Family::Negacyclic {
            self.unsupported = Some("an NTT order on a transform that is not a lattice NTT");
        }
        self.ntt_order = order;
        self
    }

    /// The reduction mode ([`Transform::reduction`]).
    pub fn reduction_mode(&self) -> Reduction {
        self.reduction
    }

    /// The NTT-domain order ([`Transform::ntt_order`]).
    pub fn ntt_domain_order(&self) -> NttOrder {
        self.ntt_order
    }

    /// Where standard-order coefficient `c` sits in this transform's NTT
    /// domain order.
    pub(crate) fn ntt_address(&self, c: usize) -> usize {
        match self.ntt_order {
            NttOrder::Standard => c,
            NttOrder::Permuted => (self.permuted_address)(c),
        }
    }

    /// The family.
    pub fn family(&self) -> Family {
        self.family
    }
    /// Forward or inverse.
    pub fn direction(&self) -> Direction {
        self.direction
    }
    /// log₂ of the rows of one transform.
    pub fn log_n(&self) -> u32 {
        self.log_n
    }
    /// Rows of one transform (2^log_n), 0 if that overflows.
    pub fn rows(&self) -> usize {
        1usize.checked_shl(self.log_n).unwrap_or(0)
    }
    /// Interleaved columns.
    pub fn lane_count(&self) -> usize {
        self.lanes
    }
    /// Transforms in the batch.
    pub fn batch_count(&self) -> usize {
        self.batch
    }
    /// The evaluation order.
    pub fn evaluation_order(&self) -> Order {
        self.order
    }
    /// First layer run (the rate of an encode, or `from_layer`).
    pub fn first_layer(&self) -> u32 {
        self.first_layer
    }
    /// One past the last layer run (7 for ML-KEM's incomplete NTT).
    pub fn layer_end(&self) -> u32 {
        self.layer_end.unwrap_or(self.log_n)
    }
    /// Whether this is an encode: input is a message of 2^(log_n − first_layer)
    /// rows, output a codeword of 2^log_n rows.
    pub fn is_encode(&self) -> bool {
        self.encode
    }
    /// The basis of an additive transform's domain.
    pub fn domain_basis(&self) -> Basis {
        self.basis
    }
    /// The coset shift: the domain is `shift + span(basis)` for additive
    /// transforms (default zero) and `shift · ⟨ω⟩` for cyclic ones (default one).
    pub fn coset_shift(&self) -> F {
        self.shift
    }
    /// The primitive root ζ of a negacyclic transform.
    pub(crate) fn negacyclic_root(&self) -> F {
        self.negacyclic_root
    }

    /// Elements of the input of one execution (all batch items).
    pub fn input_len(&self) -> Result<usize, Error> {
        self.validate()?;
        let rows = if self.encode {
            1usize << (self.log_n - self.first_layer)
        } else {
            1usize << self.log_n
        };
        Ok(rows * self.lanes * self.batch)
    }

    /// Elements of the output (and of the in-place buffer) of one execution.
    pub fn output_len(&self) -> Result<usize, Error> {
        self.validate()?;
        Ok((1usize << (self.log_n - self.prune)) * self.lanes * self.batch)
    }

    /// Checks the description; the planner calls this first.
    pub fn validate(&self) -> Result<(), Error> {
        if let Some(len) = self.bad_len {
            return Err(Error::NotPowerOfTwo { len });
        }
        if let Some(what) = self.unsupported {
            return Err(Error::Unsupported { what });
        }
        // Checked here, not when the shift is set, so that a later shift
        // replaces a zero one.
        if self.family == Family::Cyclic && self.shift == F::zero() {
            return Err(Error::Unsupported {
                what: "a zero coset shift on a cyclic transform",
            });
        }
        if self.log_n > self.max_log_n {
            return Err(Error::SizeTooLarge {
                field: F::NAME,
                log_n: self.log_n,
                max_log_n: self.max_log_n,
            });
        }
        if self.lanes == 0 {
            return Err(Error::ZeroLanes);
        }
        if self.batch == 0 {
            return Err(Error::ZeroBatch);
        }
        let total = 1usize
            .checked_shl(self.log_n) // None from log n = usize::BITS up
            .and_then(|rows| rows.checked_mul(self.lanes))
            .and_then(|x| x.checked_mul(self.batch))
            .and_then(|x| x.checked_mul(core::mem::size_of::<F>()));
        if total.is_none_or(|bytes| bytes > isize::MAX as usize) {
            return Err(Error::SizeOverflow {
                log_n: self.log_n,
                lanes: self.lanes,
                batch: self.batch,
            });
        }
        if self.prune > 0 {
            if self.family != Family::Additive
                || self.direction != Direction::Forward
                || (self.first_layer > 0 && !self.encode)
                || self.depth > 0
            {
                return Err(Error::Unsupported {
                    what: "retain_prefix on anything but a forward additive NTT or encode",
                });
            }
            if self.prune > self.log_n {
                return Err(Error::Unsupported {
                    what: "retain_prefix(k) with k above log n",
                });
            }
        }
        // An additive encode may start past its last layer: a one-row
        // message, whose codeword is that row at every point (X_0 = 1).
        // Anything else must leave a layer to run.
        let one_row_message = self.encode && self.family == Family::Additive;
        if self.first_layer > self.log_n
            || (self.first_layer > 0 && self.first_layer == self.log_n && !one_row_message)
        {
            return Err(Error::RateTooHigh {
                log_inv_rate: self.first_layer,
                log_n: self.log_n,
            });
        }
        Ok(())
    }

    /// The layer description the planner groups (twiddles computed here, once).
    pub fn schedule(&self) -> Result<Schedule<F>, Error> {
        self.validate()?;
        if self.prune > 0 {
            return self.kept_part().schedule();
        }
        let kind = match (self.family, self.direction) {
            (Family::Additive, Direction::Forward) => ButterflyKind::Additive,
            (Family::Additive, Direction::Inverse) => ButterflyKind::AdditiveInverse,
            (_, Direction::Forward) => ButterflyKind::CooleyTukey,
            (_, Direction::Inverse) => ButterflyKind::GentlemanSande,
        };
        let bit_reverse = self.family == Family::Cyclic && self.order == Order::Natural;
        Ok(Schedule {
            log_n: self.log_n as usize,
            layers: self.first_layer as usize..self.layer_end() as usize,
            kind,
            twiddles: (self.twiddles_fn)(self),
            scale: (self.scale_fn)(self),
            bit_reverse_before: bit_reverse && self.direction == Direction::Inverse,
            bit_reverse_after: bit_reverse && self.direction == Direction::Forward,
            replicate: self.encode,
            lanes: self.lanes,
            batch: self.batch,
        })
    }
}

impl<F: Field> Transform<F> {
    /// Whether this is a whole forward DFT into natural order on ⟨ω⟩ (no
    /// coset, encode or pruning), which [`Schedule::reversed_first`] may
    /// run as the inverse's tree does.
    pub(crate) fn is_plain_natural_dft(&self) -> bool {
        self.family == Family::Cyclic
            && self.order == Order::Natural
            && self.direction == Direction::Forward
            && self.first_layer == 0
            && self.layer_end() == self.log_n
            && !self.encode
            && self.prune == 0
            && self.coset_shift() == F::one()
    }
}

impl<F: Field> Schedule<F> {
    /// A whole forward DFT into natural order run as the inverse's tree
    /// is: rows bit-reversed first (which a first deep pass fuses into its
    /// reads from the source), then Gentleman–Sande butterflies with the
    /// same, forward, twiddles. The Cooley–Tukey tree leaves the reversal
    /// after the layers, a sweep of its own (31 of 294 ms of a Goldilocks
    /// 2^16 × 256 DFT on Zen 3). DFT_ω = n·IDFT_(ω⁻¹), and the inverse tree
    /// of ω⁻¹ uses ω^e where that of ω uses ω^−e: the forward table. Only
    /// for a schedule of [`Transform::is_plain_natural_dft`]: a coset's
    /// shift scales the input, where the reversed tree would scale the
    /// output.
    pub(crate) fn reversed_first(mut self) -> Self {
        debug_assert!(self.bit_reverse_after && self.kind == ButterflyKind::CooleyTukey);
        self.kind = ButterflyKind::GentlemanSande;
        self.bit_reverse_before = true;
        self.bit_reverse_after = false;
        self
    }
}

/// A transform as the planner sees it: layers, butterfly kind, twiddles.
#[derive(Clone, Debug)]
pub struct Schedule<F: Field> {
    /// log₂ of the rows of one transform.
    pub log_n: usize,
    /// Layers to run (0 = largest span), in increasing index; inverse kinds
    /// run them in decreasing index.
    pub layers: core::ops::Range<usize>,
    /// The butterfly every layer applies.
    pub kind: ButterflyKind,
    /// `twiddles[ℓ][k]`: twiddle of block k of layer ℓ (empty for layers not run).
    pub twiddles: Vec<Vec<F>>,
    /// Multiply every output by this (n⁻¹ of inverse multiplicative transforms).
    pub scale: Option<F>,
    /// Bit-reverse the rows before the layers.
    pub bit_reverse_before: bool,
    /// Bit-reverse the rows after the layers.
    pub bit_reverse_after: bool,
    /// The input is a message of 2^(log_n − layers.start) rows, replicated.
    pub replicate: bool,
    /// Interleaved columns.
    pub lanes: usize,
    /// Transforms one after another.
    pub batch: usize,
}

/// Reverses the low `bits` bits of `x`.
#[inline]
pub fn bit_reverse(x: usize, bits: usize) -> usize {
    if bits == 0 {
        0
    } else {
        x.reverse_bits() >> (usize::BITS as usize - bits)
    }
}

//! A Plonky3 drop-in: [`NttfuseDft`] implements `p3_dft::TwoAdicSubgroupDft`
//! (Plonky3 0.8.0) for BabyBear, KoalaBear and Goldilocks, backed by plans
//! cached per shape (feature `plonky3`).
//!
//! ```text
//!   Plonky3 matrix ──(same Montgomery words: no copy)──▶ nttfuse plan
//!   dft / coset dft / coset LDE outputs stay bit-reversed in memory and are
//!   returned as Plonky3's BitReversedMatrixView (natural logical order),
//!   exactly as Radix2DitParallel does: no bit-reversal sweep
//! ```
//!
//! BabyBear and KoalaBear elements have the same Montgomery words in both
//! crates, so matrices are reinterpreted in place. Plonky3's Goldilocks words
//! may be non-canonical; they are reduced in place on the way in.
//!
//! ```
//! use nttfuse::plonky3::NttfuseDft;
//! use p3_dft::TwoAdicSubgroupDft;
//! use p3_matrix::{dense::RowMajorMatrix, Matrix};
//! use p3_baby_bear::BabyBear;
//! use p3_field::PrimeCharacteristicRing;
//! let dft = NttfuseDft::default();
//! let m = RowMajorMatrix::new(vec![BabyBear::ONE; 64 * 4], 4);
//! let evals = dft.dft_batch(m).to_row_major_matrix();
//! assert_eq!(evals.values[0], BabyBear::from_u64(64));
//! ```

use crate::backend::Kernels;
use crate::field::{Field, TwoAdicField};
use crate::plan::{LdePlan, Plan, Planner};
use crate::transform::{LogBlowup, Order, Transform};
use alloc::vec::Vec;
use p3_dft::TwoAdicSubgroupDft;
use p3_matrix::bitrev::{BitReversalPerm, BitReversedMatrixView};
use p3_matrix::dense::RowMajorMatrix;
use p3_matrix::Matrix;
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// A Plonky3 field this crate has a twin for.
pub trait PlonkyField: p3_field::TwoAdicField {
    /// The nttfuse field with the same elements.
    type Ours: Kernels + TwoAdicField;
    /// This field's elements as ours: in place where
    /// [`same_words`](PlonkyField::same_words), else element by element.
    fn into_ours(values: Vec<Self>) -> Vec<Self::Ours>;
    /// Our elements as this field's, likewise.
    fn from_ours(values: Vec<Self::Ours>) -> Vec<Self>;
    /// One element as ours.
    fn to_ours(x: Self) -> Self::Ours;
    /// Whether this Plonky3 build stores elements in the words ours does
    /// (checked once, on sample values, against the element-wise
    /// conversion): the zero-copy reinterpretation is used only then, so a
    /// Plonky3 release that changes its representation costs a copy, never
    /// a wrong answer. `benches/peers/tests/plonky3.rs` asserts it holds for the pinned
    /// version.
    fn same_words() -> bool;
}

/// The word of `x` (same size checked).
fn word_of<T, W: Copy>(x: &T) -> W {
    assert_eq!(core::mem::size_of::<T>(), core::mem::size_of::<W>());
    // SAFETY: same size (checked); `W` is an integer type, for which every
    // bit pattern is valid, and `T` has no padding (one word).
    unsafe { core::mem::transmute_copy::<T, W>(x) }
}

/// Whether `theirs` and `ours` hold the same words for the sample values
/// (both built from the canonical value, so both representations are
/// compared, not assumed).
fn words_agree<T: PlonkyField>(samples: &[u64]) -> bool
where
    T::Ours: Copy,
{
    samples.iter().all(|&v| {
        let theirs = T::from_u64(v);
        let ours = T::to_ours(theirs);
        match core::mem::size_of::<T>() {
            4 => word_of::<T, u32>(&theirs) == word_of::<T::Ours, u32>(&ours),
            8 => word_of::<T, u64>(&theirs) == word_of::<T::Ours, u64>(&ours),
            _ => false,
        }
    })
}

/// Sample values for [`words_agree`]: edges and a spread of others.
const SAMPLES: [u64; 8] = [
    0,
    1,
    2,
    3,
    1 << 20,
    0x1234_5678,
    2_013_265_920,
    2_130_706_432,
];

/// Reinterprets a vector of one `repr(transparent)` word type as another.
///
/// # Safety
/// `A` and `B` must have the same size and alignment, and every value of `A`
/// in `v` must be a valid value of `B`.
unsafe fn cast_vec<A, B>(v: Vec<A>) -> Vec<B> {
    assert!(core::mem::size_of::<A>() == core::mem::size_of::<B>());
    assert!(core::mem::align_of::<A>() == core::mem::align_of::<B>());
    let mut v = core::mem::ManuallyDrop::new(v);
    // SAFETY: same size and alignment (checked), so the allocation's layout
    // is unchanged; validity of the values is the caller's promise.
    unsafe { Vec::from_raw_parts(v.as_mut_ptr().cast::<B>(), v.len(), v.capacity()) }
}

macro_rules! monty_twin {
    ($theirs:ty, $ours:ty) => {
        impl PlonkyField for $theirs {
            type Ours = $ours;
            fn into_ours(values: Vec<Self>) -> Vec<$ours> {
                if !Self::same_words() {
                    return values.into_iter().map(Self::to_ours).collect();
                }
                // SAFETY: both hold the u32 Montgomery word x·2^32 mod p of
                // the same prime, always < p (checked by `same_words`; size
                // and alignment checked by `cast_vec`).
                unsafe { cast_vec(values) }
            }
            fn from_ours(values: Vec<$ours>) -> Vec<Self> {
                if !Self::same_words() {
                    use p3_field::PrimeCharacteristicRing;
                    return values
                        .into_iter()
                        .map(|x| Self::from_u64(x.to_canonical_u64()))
                        .collect();
                }
                // SAFETY: as above; our words are < p as well.
                unsafe { cast_vec(values) }
            }
            fn to_ours(x: Self) -> $ours {
                use p3_field::PrimeField32;
                <$ours>::new(x.as_canonical_u32())
            }
            fn same_words() -> bool {
                static SAME: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
                *SAME.get_or_init(|| {
                    let p = <$ours>::MODULUS;
                    let samples: Vec<u64> = SAMPLES.iter().map(|&v| v % p).collect();
                    words_agree::<Self>(&samples)
                })
            }
        }
    };
}
monty_twin!(p3_baby_bear::BabyBear, crate::field::BabyBear);
monty_twin!(p3_koala_bear::KoalaBear, crate::field::KoalaBear);

impl PlonkyField for p3_goldilocks::Goldilocks {
    type Ours = crate::field::Goldilocks;
    fn into_ours(values: Vec<Self>) -> Vec<crate::field::Goldilocks> {
        if !Self::same_words() {
            return values.into_iter().map(Self::to_ours).collect();
        }
        // SAFETY: both hold the value as a u64 (checked by `same_words`);
        // every u64 is a valid Plonky3 word, and ours must be < p: reduced
        // just below.
        let mut words: Vec<u64> = unsafe { cast_vec(values) };
        // In parallel, and written only where a block holds a word >= p: a
        // canonical matrix (the usual case) is only read, its lines stay clean.
        const P: u64 = crate::field::Goldilocks::MODULUS;
        words.par_chunks_mut(1 << 12).for_each(|block| {
            if block.iter().any(|&w| w >= P) {
                block
                    .iter_mut()
                    .for_each(|w| *w -= if *w >= P { P } else { 0 });
            }
        });
        // SAFETY: canonical u64 values are exactly our elements.
        unsafe { cast_vec(words) }
    }
    fn from_ours(values: Vec<crate::field::Goldilocks>) -> Vec<Self> {
        if !Self::same_words() {
            use p3_field::PrimeCharacteristicRing;
            return values
                .into_iter()
                .map(|x| Self::from_u64(x.value()))
                .collect();
        }
        // SAFETY: canonical u64 values are valid Plonky3 words (checked by
        // `same_words`).
        unsafe { cast_vec(values) }
    }
    fn to_ours(x: Self) -> crate::field::Goldilocks {
        use p3_field::PrimeField64;
        crate::field::Goldilocks::new(x.as_canonical_u64())
    }
    fn same_words() -> bool {
        static SAME: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        *SAME.get_or_init(|| {
            let p = crate::field::Goldilocks::MODULUS;
            let mut samples: Vec<u64> = SAMPLES.to_vec();
            samples.extend([p - 1, p - 2, u64::from(u32::MAX) << 16]);
            words_agree::<Self>(&samples)
        })
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Shape {
    Dft {
        log_n: u32,
        lanes: usize,
        shift: u64,
    },
    Idft {
        log_n: u32,
        lanes: usize,
        shift: u64,
        /// The input's rows in bit-reversed order.
        bit_reversed: bool,
    },
    Lde {
        log_n: u32,
        lanes: usize,
        blowup: u32,
        shift: u64,
    },
}

/// One cached plan; entries live behind an `Arc` in the cache, so the size
/// difference of the variants costs nothing per call.
#[allow(clippy::large_enum_variant)]
enum Cached<F: Kernels> {
    Plan(Plan<F>),
    Lde(LdePlan<F>),
}

type PlanCache = HashMap<(core::any::TypeId, Shape), Arc<dyn core::any::Any + Send + Sync>>;

/// `p3_dft::TwoAdicSubgroupDft` backed by nttfuse plans, cached per shape
/// (log n, columns, shift, blowup) for each field; clones share the cache.
#[derive(Clone, Default)]
pub struct NttfuseDft {
    cache: Arc<Mutex<PlanCache>>,
    planner: Option<Planner>,
}

impl NttfuseDft {
    /// A DFT whose plans come from `planner` (threads, budgets, backend).
    pub fn with_planner(planner: Planner) -> Self {
        Self {
            cache: Arc::default(),
            planner: Some(planner),
        }
    }

    /// The inverse DFT of evaluations on ⟨ω⟩ whose rows are in
    /// bit-reversed order: what `dft_batch` keeps inside the
    /// `BitReversedMatrixView` it returns (take it with
    /// `BitReversibleMatrix::bit_reverse_rows`, no copy), or what FRI
    /// folding produces. Plonky3's `idft_batch` wants natural order, so a
    /// caller would first permute the rows (a sweep); here the permutation
    /// is folded into the transform. Returns the coefficients in natural
    /// order, as `idft_batch` does.
    ///
    /// ```
    /// use nttfuse::plonky3::NttfuseDft;
    /// use p3_dft::TwoAdicSubgroupDft;
    /// use p3_matrix::bitrev::BitReversibleMatrix;
    /// use p3_matrix::dense::RowMajorMatrix;
    /// use p3_baby_bear::BabyBear;
    /// use p3_field::PrimeCharacteristicRing;
    /// let dft = NttfuseDft::default();
    /// let coeffs = RowMajorMatrix::new((0..64u32 * 2).map(BabyBear::from_u32).collect(), 2);
    /// let evals = dft.dft_batch(coeffs.clone()).bit_reverse_rows(); // rows stored bit-reversed
    /// assert_eq!(dft.idft_batch_bit_reversed(evals), coeffs);
    /// ```
    pub fn idft_batch_bit_reversed<P: PlonkyField>(
        &self,
        mat: RowMajorMatrix<P>,
    ) -> RowMajorMatrix<P> {
        self.coset_idft(mat, P::ONE, Order::BitReversed)
    }

    /// [`idft_batch_bit_reversed`](Self::idft_batch_bit_reversed) for
    /// evaluations on the coset shift·⟨ω⟩ (`coset_dft_batch`'s).
    pub fn coset_idft_batch_bit_reversed<P: PlonkyField>(
        &self,
        mat: RowMajorMatrix<P>,
        shift: P,
    ) -> RowMajorMatrix<P> {
        self.coset_idft(mat, shift, Order::BitReversed)
    }

    /// The inverse coset DFT of `mat`, whose rows are in `order`.
    fn coset_idft<P: PlonkyField>(
        &self,
        mat: RowMajorMatrix<P>,
        shift: P,
        order: Order,
    ) -> RowMajorMatrix<P> {
        let (log_n, lanes) = shape_of(&mat);
        let ours = P::to_ours(shift);
        let shape = Shape::Idft {
            log_n,
            lanes,
            shift: ours.to_canonical_u64(),
            bit_reversed: order == Order::BitReversed,
        };
        let out = self.run(mat, shape, || {
            Transform::coset_idft(log_n, ours).lanes(lanes).order(order)
        });
        RowMajorMatrix::new(P::from_ours(out), lanes)
    }

    fn cached<F: Kernels + TwoAdicField>(
        &self,
        shape: Shape,
        make: impl FnOnce(&Planner) -> Cached<F>,
    ) -> Arc<Cached<F>> {
        let key = (core::any::TypeId::of::<F>(), shape);
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        let entry = cache.entry(key).or_insert_with(|| {
            let planner = self.planner.clone().unwrap_or_default();
            let plan: Arc<Cached<F>> = Arc::new(make(&planner));
            plan
        });
        Arc::clone(entry)
            .downcast::<Cached<F>>()
            .unwrap_or_else(|_| unreachable!("the key holds the field's type"))
    }

    fn run<P: PlonkyField>(
        &self,
        mat: RowMajorMatrix<P>,
        shape: Shape,
        spec: impl FnOnce() -> Transform<P::Ours>,
    ) -> Vec<P::Ours> {
        let plan = self.cached::<P::Ours>(shape, |planner| {
            Cached::Plan(
                planner
                    .plan(&spec())
                    .expect("nttfuse plans every shape Plonky3 accepts"),
            )
        });
        let mut data = P::into_ours(mat.values);
        match &*plan {
            Cached::Plan(plan) => plan.execute(&mut data).expect("shape checked by the plan"),
            Cached::Lde(_) => unreachable!("plan shapes hold plans"),
        }
        data
    }
}

/// `rows` copies of `row` (`lanes` values) as a matrix.
fn constant_rows<P: PlonkyField>(row: &[P], rows: usize, lanes: usize) -> RowMajorMatrix<P> {
    RowMajorMatrix::new(row.repeat(rows), lanes)
}

fn shape_of<P: PlonkyField>(mat: &RowMajorMatrix<P>) -> (u32, usize) {
    let height = mat.height();
    assert!(
        height.is_power_of_two(),
        "Plonky3 DFTs take power-of-two heights"
    );
    (height.ilog2(), mat.width())
}

impl<P: PlonkyField> TwoAdicSubgroupDft<P> for NttfuseDft {
    type Evaluations = BitReversedMatrixView<RowMajorMatrix<P>>;

    fn dft_batch(&self, mat: RowMajorMatrix<P>) -> Self::Evaluations {
        self.coset_dft_batch(mat, P::ONE)
    }

    fn coset_dft_batch(&self, mat: RowMajorMatrix<P>, shift: P) -> Self::Evaluations {
        let (log_n, lanes) = shape_of(&mat);
        if shift == P::ZERO {
            // Every point of the "coset" is 0: each output row is p(0), the
            // constant coefficients (row 0), as Plonky3 computes it.
            let rows = 1usize << log_n;
            return BitReversalPerm::new_view(constant_rows(&mat.values[..lanes], rows, lanes));
        }
        let ours = P::to_ours(shift);
        let shape = Shape::Dft {
            log_n,
            lanes,
            shift: ours.to_canonical_u64(),
        };
        let out = self.run(mat, shape, || {
            Transform::coset_dft(log_n, ours)
                .lanes(lanes)
                .order(Order::BitReversed)
        });
        BitReversalPerm::new_view(RowMajorMatrix::new(P::from_ours(out), lanes))
    }

    fn idft_batch(&self, mat: RowMajorMatrix<P>) -> RowMajorMatrix<P> {
        self.coset_idft_batch(mat, P::ONE)
    }

    fn coset_idft_batch(&self, mat: RowMajorMatrix<P>, shift: P) -> RowMajorMatrix<P> {
        self.coset_idft(mat, shift, Order::Natural)
    }

    fn coset_lde_batch(
        &self,
        mat: RowMajorMatrix<P>,
        added_bits: usize,
        shift: P,
    ) -> Self::Evaluations {
        let (log_n, lanes) = shape_of(&mat);
        let blowup = u32::try_from(added_bits)
            .ok()
            .filter(|&bits| log_n + bits < usize::BITS)
            .expect("coset_lde_batch: added_bits leaves no addressable height");
        if shift == P::ZERO {
            // Every point is 0: each output row is the interpolant's constant
            // coefficients.
            let coeffs = self.idft_batch(mat);
            let rows = 1usize << (log_n + blowup);
            return BitReversalPerm::new_view(constant_rows(&coeffs.values[..lanes], rows, lanes));
        }
        if added_bits == 0 || log_n == 0 {
            // No layer to skip: a plain coset DFT of the interpolant.
            let coeffs = self.idft_batch(mat);
            let mut values = coeffs.values;
            values.resize(values.len() << added_bits, P::ZERO);
            return self.coset_dft_batch(RowMajorMatrix::new(values, lanes), shift);
        }
        let ours = P::to_ours(shift);
        let shape = Shape::Lde {
            log_n,
            lanes,
            blowup,
            shift: ours.to_canonical_u64(),
        };
        let plan = self.cached::<P::Ours>(shape, |planner| {
            Cached::Lde(
                planner
                    .plan(
                        &Transform::coset_lde(log_n, LogBlowup(blowup))
                            .shift(ours)
                            .lanes(lanes)
                            .order(Order::BitReversed),
                    )
                    .expect("nttfuse plans every shape Plonky3 accepts"),
            )
        });
        let Cached::Lde(lde) = &*plan else {
            unreachable!("LDE shapes hold LDE plans")
        };
        // In the matrix's own vector, grown as Plonky3 grows it: glibc's
        // realloc of a large block remaps it (no copy, no touch of the old
        // pages), so only the new rows take first-touch page faults (a fresh
        // output would take them on every page), and they take them zeroed
        // in parallel. Other allocators may copy; the result is the same.
        let mut values = P::into_ours(mat.values);
        let zero = <P::Ours as num_traits::Zero>::zero();
        let extra = lde.len() - values.len();
        values.reserve_exact(extra);
        values.par_extend(rayon::iter::repeat_n(zero, extra));
        lde.execute(&mut values).expect("shape checked by the plan");
        BitReversalPerm::new_view(RowMajorMatrix::new(P::from_ours(values), lanes))
    }
}

//! The Plonky3 drop-in: `NttfuseDft` equals Plonky3 0.8.0's
//! `Radix2DitParallel` bit for bit on every `TwoAdicSubgroupDft` method,
//! for BabyBear, KoalaBear and Goldilocks, including extension-field columns
//! through the algebra variants. Run with `cargo test --manifest-path benches/peers/Cargo.toml`
//! (this crate turns the feature on).

use nttfuse::plonky3::NttfuseDft;
use p3_dft::{Radix2DitParallel, TwoAdicSubgroupDft};
use p3_field::extension::BinomialExtensionField;
use p3_field::{Field, PrimeCharacteristicRing, TwoAdicField};
use p3_matrix::bitrev::BitReversibleMatrix;
use p3_matrix::dense::RowMajorMatrix;
use p3_matrix::Matrix;

// The integration tests' helpers: the splitmix64 `Rng` among them.
#[path = "../../../tests/common/mod.rs"]
mod common;

use common::Rng;

const SHAPES: [(usize, usize); 7] = [(0, 1), (1, 3), (3, 1), (5, 7), (8, 2), (10, 16), (12, 3)];

fn all_methods_agree<F>()
where
    F: TwoAdicField + PrimeCharacteristicRing + nttfuse::plonky3::PlonkyField,
    NttfuseDft: TwoAdicSubgroupDft<F>,
    Radix2DitParallel<F>: TwoAdicSubgroupDft<F>,
{
    // Default budgets, and budgets so small that the larger shapes take
    // gathered passes (and their LDEs the fused middle pass).
    let tiny = nttfuse::Planner::new().budgets(nttfuse::Budgets::fixed(1 << 10, 2 << 10, 16 << 10));
    for ours in [NttfuseDft::default(), NttfuseDft::with_planner(tiny)] {
        agree_with::<F>(&ours);
    }
}

fn agree_with<F>(ours: &NttfuseDft)
where
    F: TwoAdicField + PrimeCharacteristicRing + nttfuse::plonky3::PlonkyField,
    NttfuseDft: TwoAdicSubgroupDft<F>,
    Radix2DitParallel<F>: TwoAdicSubgroupDft<F>,
{
    let theirs = Radix2DitParallel::<F>::default();
    for (log_n, width) in SHAPES {
        let mut rng = Rng((log_n * 100 + width) as u64);
        let values: Vec<F> = (0..width << log_n)
            .map(|_| F::from_u64(rng.next()))
            .collect();
        let mat = || RowMajorMatrix::new(values.clone(), width);
        let shift = F::GENERATOR;
        assert_eq!(
            ours.dft_batch(mat()).to_row_major_matrix(),
            theirs.dft_batch(mat()).to_row_major_matrix(),
            "dft_batch 2^{log_n} × {width}"
        );
        assert_eq!(
            ours.idft_batch(mat()),
            theirs.idft_batch(mat()),
            "idft_batch 2^{log_n} × {width}"
        );
        assert_eq!(
            ours.coset_dft_batch(mat(), shift).to_row_major_matrix(),
            theirs.coset_dft_batch(mat(), shift).to_row_major_matrix(),
            "coset_dft_batch 2^{log_n} × {width}"
        );
        assert_eq!(
            ours.coset_idft_batch(mat(), shift),
            theirs.coset_idft_batch(mat(), shift),
            "coset_idft_batch 2^{log_n} × {width}"
        );
        // Evaluations stored in bit-reversed row order (as dft_batch keeps
        // them, as FRI folding makes them) into natural-order coefficients.
        let reversed = || mat().bit_reverse_rows().to_row_major_matrix();
        assert_eq!(
            ours.idft_batch_bit_reversed(reversed()),
            theirs.idft_batch(mat()),
            "idft_batch_bit_reversed 2^{log_n} × {width}"
        );
        assert_eq!(
            ours.coset_idft_batch_bit_reversed(reversed(), shift),
            theirs.coset_idft_batch(mat(), shift),
            "coset_idft_batch_bit_reversed 2^{log_n} × {width}"
        );
        // dft_batch's stored rows go straight back, no permutation.
        assert_eq!(
            ours.idft_batch_bit_reversed(
                ours.dft_batch(mat())
                    .bit_reverse_rows()
                    .to_row_major_matrix()
            ),
            mat(),
            "idft_batch_bit_reversed ∘ dft_batch 2^{log_n} × {width}"
        );
        for added_bits in [0, 1, 3] {
            assert_eq!(
                ours.coset_lde_batch(mat(), added_bits, shift)
                    .to_row_major_matrix(),
                theirs
                    .coset_lde_batch(mat(), added_bits, shift)
                    .to_row_major_matrix(),
                "coset_lde_batch 2^{log_n} × {width} +{added_bits}"
            );
        }
        // A zero shift (every point 0), which Plonky3 accepts for the
        // forward methods: every row is the constant coefficients.
        assert_eq!(
            ours.coset_dft_batch(mat(), F::ZERO).to_row_major_matrix(),
            theirs.coset_dft_batch(mat(), F::ZERO).to_row_major_matrix(),
            "coset_dft_batch 2^{log_n} × {width}, shift 0"
        );
        for added_bits in [0, 2] {
            assert_eq!(
                ours.coset_lde_batch(mat(), added_bits, F::ZERO)
                    .to_row_major_matrix(),
                theirs
                    .coset_lde_batch(mat(), added_bits, F::ZERO)
                    .to_row_major_matrix(),
                "coset_lde_batch 2^{log_n} × {width} +{added_bits}, shift 0"
            );
        }
        // Repeated calls hit the plan cache and give the same bits.
        assert_eq!(ours.idft_batch(mat()), theirs.idft_batch(mat()));
        assert!(ours.dft_batch(mat()).height() == 1 << log_n);
    }
}

#[test]
fn babybear_drop_in_equals_radix2_dit_parallel() {
    all_methods_agree::<p3_baby_bear::BabyBear>();
}

#[test]
fn koalabear_drop_in_equals_radix2_dit_parallel() {
    all_methods_agree::<p3_koala_bear::KoalaBear>();
}

#[test]
fn goldilocks_drop_in_equals_radix2_dit_parallel() {
    all_methods_agree::<p3_goldilocks::Goldilocks>();
}

/// Plonky3's Goldilocks words may be non-canonical (`Goldilocks::new` keeps
/// any u64): the drop-in reduces them on the way in. Every method on words
/// in [p, 2^64) — p itself and u64::MAX among them — equals
/// `Radix2DitParallel` on their canonical forms.
#[test]
fn non_canonical_goldilocks_words_through_the_drop_in() {
    type G = p3_goldilocks::Goldilocks;
    const P: u64 = 0xffff_ffff_0000_0001;
    let ours = NttfuseDft::default();
    let theirs = Radix2DitParallel::<G>::default();
    for (log_n, width) in [(0usize, 1usize), (3, 2), (10, 5)] {
        let mut rng = Rng(log_n as u64 + 99);
        // c + p fits a u64 for every c ≤ 2^64 − 1 − p.
        let mut canon: Vec<u64> = (0..width << log_n)
            .map(|_| rng.next() % (u64::MAX - P + 1))
            .collect();
        canon[0] = 0; // the word p
        let last = canon.len() - 1;
        canon[last] = u64::MAX - P; // the word u64::MAX
        let raw: Vec<G> = canon.iter().map(|&c| G::new(c + P)).collect();
        let canonical: Vec<G> = canon.iter().map(|&c| G::new(c)).collect();
        let m = |v: &[G]| RowMajorMatrix::new(v.to_vec(), width);
        let g = G::GENERATOR;
        let pairs = [
            (
                ours.dft_batch(m(&raw)).to_row_major_matrix(),
                theirs.dft_batch(m(&canonical)).to_row_major_matrix(),
            ),
            (ours.idft_batch(m(&raw)), theirs.idft_batch(m(&canonical))),
            (
                ours.coset_dft_batch(m(&raw), g).to_row_major_matrix(),
                theirs
                    .coset_dft_batch(m(&canonical), g)
                    .to_row_major_matrix(),
            ),
            (
                ours.coset_idft_batch(m(&raw), g),
                theirs.coset_idft_batch(m(&canonical), g),
            ),
            (
                ours.coset_lde_batch(m(&raw), 2, g).to_row_major_matrix(),
                theirs
                    .coset_lde_batch(m(&canonical), 2, g)
                    .to_row_major_matrix(),
            ),
        ];
        for (i, (a, b)) in pairs.iter().enumerate() {
            assert_eq!(a, b, "method {i}, 2^{log_n} × {width}");
        }
    }
}

#[test]
fn extension_columns_through_the_algebra_variants() {
    type F = p3_baby_bear::BabyBear;
    type E = BinomialExtensionField<F, 4>;
    let ours = NttfuseDft::default();
    let theirs = Radix2DitParallel::<F>::default();
    for (log_n, width) in [(4usize, 1usize), (9, 3)] {
        let mut rng = Rng(log_n as u64);
        let values: Vec<E> = (0..width << log_n)
            .map(|_| E::new(core::array::from_fn(|_| F::from_u64(rng.next()))))
            .collect();
        let mat = || RowMajorMatrix::new(values.clone(), width);
        assert_eq!(
            TwoAdicSubgroupDft::<F>::dft_algebra_batch(&ours, mat()).to_row_major_matrix(),
            TwoAdicSubgroupDft::<F>::dft_algebra_batch(&theirs, mat()).to_row_major_matrix()
        );
        assert_eq!(
            TwoAdicSubgroupDft::<F>::coset_lde_algebra_batch(&ours, mat(), 1, F::GENERATOR)
                .to_row_major_matrix(),
            TwoAdicSubgroupDft::<F>::coset_lde_algebra_batch(&theirs, mat(), 1, F::GENERATOR)
                .to_row_major_matrix()
        );
    }
}

/// Plonky3's own generic DFT tests (`p3-field-testing` 0.8.0), the ones its
/// field crates instantiate for every DFT they ship, here instantiated for
/// `NttfuseDft` with the same extension fields: every method and its algebra
/// variant against Plonky3's `NaiveDft`, inverse ∘ forward, the large
/// (2^14..2^17-row) extension round trip, and large coset LDEs against
/// `Radix2DitParallel`.
mod plonky3_harness {
    // The macros open their own modules without importing anything, so the
    // types are named through `super`.
    use p3_field::extension::BinomialExtensionField;
    use p3_field_testing::{test_field_dft, test_field_dft_consistency, test_field_dft_large};

    type Dft = nttfuse::plonky3::NttfuseDft;
    type BabyBear = p3_baby_bear::BabyBear;
    type KoalaBear = p3_koala_bear::KoalaBear;
    type Goldilocks = p3_goldilocks::Goldilocks;
    type BabyBear4 = BinomialExtensionField<BabyBear, 4>;
    type KoalaBear4 = BinomialExtensionField<KoalaBear, 4>;
    type Goldilocks5 = BinomialExtensionField<Goldilocks, 5>;
    type Peer<F> = p3_dft::Radix2DitParallel<F>;

    test_field_dft!(babybear, super::BabyBear, super::BabyBear4, super::Dft);
    test_field_dft!(koalabear, super::KoalaBear, super::KoalaBear4, super::Dft);
    test_field_dft!(
        goldilocks,
        super::Goldilocks,
        super::Goldilocks5,
        super::Dft
    );
    test_field_dft_large!(
        babybear_large,
        super::BabyBear,
        super::BabyBear4,
        super::Dft
    );
    test_field_dft_consistency!(
        babybear_large_coset_ldes,
        super::BabyBear,
        super::BabyBear4,
        super::Dft,
        super::Peer<super::BabyBear>
    );
    test_field_dft_consistency!(
        koalabear_large_coset_ldes,
        super::KoalaBear,
        super::KoalaBear4,
        super::Dft,
        super::Peer<super::KoalaBear>
    );
    test_field_dft_consistency!(
        goldilocks_large_coset_ldes,
        super::Goldilocks,
        super::Goldilocks5,
        super::Dft,
        super::Peer<super::Goldilocks>
    );
}

/// The drop-in reinterprets Plonky3's matrices in place only because the
/// pinned Plonky3 stores the same words as ours (Montgomery x·2^32 mod p
/// for BabyBear and KoalaBear, the value for Goldilocks); a release that
/// changes that must fail here (the drop-in would then copy, still
/// correct).
#[test]
fn plonky3_stores_the_words_the_drop_in_reinterprets() {
    use nttfuse::plonky3::PlonkyField;
    assert!(p3_baby_bear::BabyBear::same_words());
    assert!(p3_koala_bear::KoalaBear::same_words());
    assert!(p3_goldilocks::Goldilocks::same_words());
}

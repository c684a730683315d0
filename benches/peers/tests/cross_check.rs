//! Bit-for-bit cross-checks against the peer crates: Plonky3 0.8.0's
//! `Radix2DitParallel` (BabyBear, KoalaBear, Goldilocks: dft, idft, coset
//! dft, coset LDE) and its two-adic generators, p3-binary-dft's `LchNtt`
//! (the Cantor-basis transform and `lde_batch`) and tfhe-ntt's prime NTT.
//! They live in this crate, not in nttfuse's own tests, so that a fresh
//! `cargo test` of nttfuse does not build the peers; CI runs them
//! (`cargo test --manifest-path benches/peers/Cargo.toml`).

#[path = "../../../tests/common/mod.rs"]
mod common;

use common::*;
use nttfuse::*;

// ---- Plonky3 0.8.0: two-adic generators and the Montgomery words.

#[test]
fn babybear_roots_match_plonky3() {
    use p3_field::{PrimeField32, TwoAdicField as P3TwoAdic};
    for bits in 0..=27 {
        let ours = BabyBear::two_adic_generator(bits).unwrap();
        let theirs = p3_baby_bear::BabyBear::two_adic_generator(bits);
        assert_eq!(
            ours.to_canonical_u64(),
            theirs.as_canonical_u32() as u64,
            "2^{bits}"
        );
    }
    assert_eq!(
        BabyBear::two_adic_generator(27).unwrap().to_canonical_u64(),
        0x1a427a41
    );
}

#[test]
fn koalabear_and_goldilocks_roots_match_plonky3() {
    use p3_field::{PrimeField32, PrimeField64, TwoAdicField as P3TwoAdic};
    for bits in 0..=24 {
        let ours = KoalaBear::two_adic_generator(bits).unwrap();
        let theirs = p3_koala_bear::KoalaBear::two_adic_generator(bits);
        assert_eq!(
            ours.to_canonical_u64(),
            theirs.as_canonical_u32() as u64,
            "KoalaBear 2^{bits}"
        );
    }
    for bits in 0..=32 {
        let ours = Goldilocks::two_adic_generator(bits).unwrap();
        let theirs = p3_goldilocks::Goldilocks::two_adic_generator(bits);
        assert_eq!(
            ours.to_canonical_u64(),
            theirs.as_canonical_u64(),
            "Goldilocks 2^{bits}"
        );
    }
}

#[test]
fn babybear_montgomery_form_matches_plonky3() {
    use p3_field::PrimeCharacteristicRing;
    for x in [0u32, 1, 2, 12345, 2013265920] {
        let theirs = p3_baby_bear::BabyBear::from_u32(x);
        // Plonky3 stores x·2^32 mod p; its Debug/Display show canonical values,
        // so compare through the transmute-free route: same canonical value
        // and our Montgomery word is x·2^32 mod p.
        let ours = BabyBear::new(x);
        assert_eq!(format!("{theirs}"), format!("{ours}"));
        assert_eq!(
            ours.to_monty() as u64,
            ((x as u64) << 32) % BabyBear::MODULUS
        );
    }
}

// ---- Plonky3 0.8.0: `Radix2DitParallel`.

#[test]
fn babybear_dft_matches_plonky3_bit_for_bit() {
    use p3_dft::{Radix2DitParallel, TwoAdicSubgroupDft};
    use p3_field::{PrimeCharacteristicRing, PrimeField32};
    use p3_matrix::dense::RowMajorMatrix;
    use p3_matrix::Matrix;
    let planner = planner(tiny(), 2);
    for (log_n, lanes) in [(0u32, 1usize), (1, 3), (5, 1), (8, 7), (11, 4)] {
        let mut rng = Rng(log_n as u64 * 31 + lanes as u64);
        let values: Vec<u32> = (0..lanes << log_n)
            .map(|_| (rng.next() % BabyBear::MODULUS) as u32)
            .collect();
        let ours = run(
            &planner,
            &Transform::<BabyBear>::dft(log_n).lanes(lanes),
            &values.iter().map(|&v| BabyBear::new(v)).collect::<Vec<_>>(),
        );
        let matrix = RowMajorMatrix::new(
            values
                .iter()
                .map(|&v| p3_baby_bear::BabyBear::from_u32(v))
                .collect::<Vec<_>>(),
            lanes,
        );
        let theirs = Radix2DitParallel::default()
            .dft_batch(matrix)
            .to_row_major_matrix();
        let theirs: Vec<u64> = theirs
            .values
            .iter()
            .map(|v| v.as_canonical_u32() as u64)
            .collect();
        let ours: Vec<u64> = ours.iter().map(|v| v.to_canonical_u64()).collect();
        assert_eq!(ours, theirs, "2^{log_n} × {lanes}");
    }
}

/// Plonky3's `Radix2DitParallel` (dft, idft, coset dft, coset LDE) against
/// ours, for one field, on random matrices of several shapes.
macro_rules! matches_plonky3 {
    ($name:ident, $ours:ty, $theirs:ty, $to_u64:ident) => {
        #[test]
        fn $name() {
            use p3_dft::{Radix2DitParallel, TwoAdicSubgroupDft};
            #[allow(unused_imports)]
            use p3_field::{PrimeCharacteristicRing, PrimeField32, PrimeField64};
            use p3_matrix::dense::RowMajorMatrix;
            use p3_matrix::Matrix;
            let p3 = Radix2DitParallel::<$theirs>::default();
            let planner = planner(tiny(), 2);
            for (log_n, lanes) in [(0u32, 1usize), (1, 2), (4, 1), (7, 5), (10, 3)] {
                let mut rng = Rng(log_n as u64 * 131 + lanes as u64);
                let values: Vec<u64> = (0..lanes << log_n)
                    .map(|_| rng.next() % <$ours>::MODULUS)
                    .collect();
                let ours_in: Vec<$ours> = values.iter().map(|&v| <$ours>::from_u64(v)).collect();
                let theirs_in = || {
                    RowMajorMatrix::new(
                        values
                            .iter()
                            .map(|&v| <$theirs>::from_u64(v))
                            .collect::<Vec<_>>(),
                        lanes,
                    )
                };
                let canon = |m: RowMajorMatrix<$theirs>| {
                    m.values
                        .iter()
                        .map(|v| v.$to_u64() as u64)
                        .collect::<Vec<u64>>()
                };
                let ours = |spec: Transform<$ours>, input: &[$ours]| {
                    run(&planner, &spec.lanes(lanes), input)
                        .iter()
                        .map(|v| v.to_canonical_u64())
                        .collect::<Vec<u64>>()
                };
                let shift_u64 = 7u64;
                let shift = <$ours>::from_u64(shift_u64);
                let their_shift = <$theirs>::from_u64(shift_u64);
                assert_eq!(
                    ours(Transform::dft(log_n), &ours_in),
                    canon(p3.dft_batch(theirs_in()).to_row_major_matrix()),
                    "dft 2^{log_n} × {lanes}"
                );
                assert_eq!(
                    ours(Transform::idft(log_n), &ours_in),
                    canon(p3.idft_batch(theirs_in())),
                    "idft 2^{log_n} × {lanes}"
                );
                assert_eq!(
                    ours(Transform::coset_dft(log_n, shift), &ours_in),
                    canon(
                        p3.coset_dft_batch(theirs_in(), their_shift)
                            .to_row_major_matrix()
                    ),
                    "coset dft 2^{log_n} × {lanes}"
                );
                // Coset LDE: inverse DFT, then a coset encode with blowup 2^2
                // (a 1-row message has no layer left to run: a typed error).
                if log_n == 0 {
                    continue;
                }
                let coeffs = run(
                    &planner,
                    &Transform::<$ours>::idft(log_n).lanes(lanes),
                    &ours_in,
                );
                assert_eq!(
                    ours(
                        Transform::dft_encode(log_n + 2, LogBlowup(2), shift),
                        &coeffs
                    ),
                    canon(
                        p3.coset_lde_batch(theirs_in(), 2, their_shift)
                            .to_row_major_matrix()
                    ),
                    "coset lde 2^{log_n} × {lanes}"
                );
            }
        }
    };
}

matches_plonky3!(
    babybear_matches_plonky3,
    BabyBear,
    p3_baby_bear::BabyBear,
    as_canonical_u32
);
matches_plonky3!(
    koalabear_matches_plonky3,
    KoalaBear,
    p3_koala_bear::KoalaBear,
    as_canonical_u32
);
matches_plonky3!(
    goldilocks_matches_plonky3,
    Goldilocks,
    p3_goldilocks::Goldilocks,
    as_canonical_u64
);

// ---- tfhe-ntt 0.7.1: the single-column prime NTT.

/// tfhe-ntt's forward NTT modulo the BabyBear prime evaluates at the odd
/// powers of a 2n-th root ψ: the coset ψ·⟨ψ²⟩. Our coset DFT with that shift
/// evaluates at the same points in another order; matched point by point,
/// the values must agree on random polynomials.
#[test]
fn single_columns_equal_tfhe_ntt() {
    let p = BabyBear::MODULUS;
    for log_n in 5..=12u32 {
        let n = 1usize << log_n;
        let tfhe = tfhe_ntt::prime32::Plan::try_new(n, p as u32).expect("tfhe plan");
        // The transform of the polynomial x lists tfhe-ntt's points.
        let mut points = vec![0u32; n];
        points[1] = 1;
        tfhe.fwd(&mut points);
        let shift = BabyBear::from_u64(points[0] as u64);
        let spec = Transform::<BabyBear>::coset_dft(log_n, shift);
        let plan = Planner::new().plan(&spec).unwrap();
        let mut x = vec![BabyBear::ZERO; n];
        x[1] = BabyBear::ONE;
        plan.execute(&mut x).unwrap();
        let index: std::collections::HashMap<u64, usize> = x
            .iter()
            .enumerate()
            .map(|(j, v)| (v.to_canonical_u64(), j))
            .collect();
        assert_eq!(index.len(), n, "our coset points are distinct");
        for seed in 0..4 {
            let a = Rng(seed * 1000 + log_n as u64).vec::<BabyBear>(n);
            let mut theirs: Vec<u32> = a.iter().map(|v| v.to_canonical_u64() as u32).collect();
            tfhe.fwd(&mut theirs);
            let mut ours = a.clone();
            plan.execute(&mut ours).unwrap();
            for (k, (&point, &value)) in points.iter().zip(&theirs).enumerate() {
                let j = index[&(point as u64 % p)];
                assert_eq!(
                    ours[j].to_canonical_u64(),
                    value as u64 % p,
                    "log n {log_n}, tfhe-ntt output {k}"
                );
            }
        }
    }
}

// ---- p3-binary-dft 0.9.0-rc.2: `LchNtt` and its LDE.

/// Plonky3's p3-binary-dft `LchNtt` over `Poly64` computes the Cantor-basis
/// transform: ours must equal it bit for bit, plain, batched and shifted.
#[test]
fn cantor_transforms_equal_plonky3_lch_ntt() {
    use p3_binary_dft::{AdditiveNtt, LchNtt};
    use p3_binary_field::Poly64;
    use p3_matrix_09::dense::RowMajorMatrix;
    let lch = LchNtt::<Poly64>::default();
    for (log_n, lanes, seed) in [(3u32, 1usize, 1u64), (6, 3, 2), (10, 8, 3), (12, 5, 4)] {
        let mut rng = Rng(seed);
        let shift = Gf2_64::new(rng.next());
        let values: Vec<u64> = (0..lanes << log_n).map(|_| rng.next()).collect();
        let theirs_matrix =
            || RowMajorMatrix::new(values.iter().map(|&v| Poly64::new(v)).collect(), lanes);
        let bits =
            |m: RowMajorMatrix<Poly64>| m.values.iter().map(|x| x.to_bits()).collect::<Vec<u64>>();
        let ours = |spec: Transform<Gf2_64>| {
            let input: Vec<Gf2_64> = values.iter().map(|&v| Gf2_64::new(v)).collect();
            let out = run(&planner(tiny(), 2), &spec.lanes(lanes), &input);
            out.iter().map(|x| x.bits()).collect::<Vec<u64>>()
        };
        let cantor = |t: Transform<Gf2_64>| t.basis(Basis::Cantor);
        assert_eq!(
            ours(cantor(Transform::additive_ntt(log_n))),
            bits(lch.ntt_batch(theirs_matrix()))
        );
        assert_eq!(
            ours(cantor(Transform::additive_intt(log_n))),
            bits(lch.intt_batch(theirs_matrix()))
        );
        assert_eq!(
            ours(cantor(Transform::additive_ntt(log_n)).shift(shift)),
            bits(lch.shifted_ntt_batch(theirs_matrix(), Poly64::new(shift.bits())))
        );
        // Encode at rate 1/4 from coefficients = their padded NTT.
        let message = RowMajorMatrix::new(values.iter().map(|&v| Poly64::new(v)).collect(), lanes);
        let theirs = bits(lch.ntt_batch_borrowed(message.as_view(), 2));
        let input: Vec<Gf2_64> = values.iter().map(|&v| Gf2_64::new(v)).collect();
        let spec = cantor(Transform::additive_encode(log_n + 2, LogBlowup(2))).lanes(lanes);
        let ours_encode: Vec<u64> = run(&planner(tiny(), 1), &spec, &input)
            .iter()
            .map(|x| x.bits())
            .collect();
        assert_eq!(ours_encode, theirs, "encode 2^{log_n} × {lanes}");
    }
}

/// Plonky3's p3-binary-dft `lde_batch` (Cantor basis) equals ours.
#[test]
fn additive_lde_equals_plonky3_lde_batch() {
    use p3_binary_dft::{AdditiveNtt, LchNtt};
    use p3_binary_field::Poly64;
    use p3_matrix_09::dense::RowMajorMatrix;
    let lch = LchNtt::<Poly64>::default();
    for (log_n, log_blowup, lanes, seed) in [(3u32, 1u32, 1usize, 5u64), (7, 1, 4, 6), (9, 2, 3, 7)]
    {
        let values = Rng(seed).vec::<Gf2_64>(lanes << log_n);
        let theirs = lch.lde_batch(
            RowMajorMatrix::new(
                values.iter().map(|v| Poly64::new(v.bits())).collect(),
                lanes,
            ),
            log_blowup as usize,
        );
        let lde = planner(tiny(), 2)
            .plan(
                &Transform::<Gf2_64>::additive_lde(log_n, LogBlowup(log_blowup))
                    .basis(Basis::Cantor)
                    .lanes(lanes),
            )
            .unwrap();
        let mut out = vec![Gf2_64::ZERO; lde.len()];
        lde.execute_from(&values, &mut out).unwrap();
        let ours: Vec<u64> = out.iter().map(|x| x.bits()).collect();
        let theirs: Vec<u64> = theirs.values.iter().map(|x| x.to_bits()).collect();
        assert_eq!(
            ours, theirs,
            "LDE 2^{log_n} × {lanes}, blowup 2^{log_blowup}"
        );
    }
}

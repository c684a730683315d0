//! STARK fields at scale: coset DFTs and encodes against the definition,
//! every DFT against Plonky3 0.8.0 bit for bit, extension columns on the base
//! path.

use crate::common::*;
use nttfuse::*;
use quickcheck::QuickCheck;

#[test]
fn coset_transforms_equal_the_definition() {
    QuickCheck::new().tests(40).quickcheck(
        (|seed: u64, log_n: u8, lanes: u8, blowup: u8, tiny_budgets: bool| {
            let log_n = log_n as u32 % 11;
            let lanes = 1 + lanes as usize % 9;
            let blowup = if log_n == 0 {
                0
            } else {
                blowup as u32 % log_n.min(4)
            };
            let shift = BabyBear::from_u64(seed | 1).pow(3) + BabyBear::ONE;
            let planner = planner(if tiny_budgets { tiny() } else { roomy() }, 1);
            [
                Transform::<BabyBear>::coset_dft(log_n, shift),
                Transform::<BabyBear>::coset_idft(log_n, shift),
                Transform::<BabyBear>::coset_dft(log_n, shift).order(Order::BitReversed),
                Transform::<BabyBear>::dft_encode(log_n, LogBlowup(blowup), shift),
                Transform::<BabyBear>::dft_encode(log_n, LogBlowup(blowup), shift)
                    .order(Order::BitReversed),
            ]
            .into_iter()
            .all(|spec| {
                let spec = spec.lanes(lanes);
                let input = Rng(seed).vec::<BabyBear>(spec.input_len().unwrap());
                let expected = reference::evaluate(&spec, &input).unwrap();
                run(&planner, &spec, &input) == expected
                    && run_in_place(&planner, &spec, &input) == expected
            })
        }) as fn(u64, u8, u8, u8, bool) -> bool,
    );
}

#[test]
fn babybear4_columns_run_on_the_base_path() {
    for (log_n, lanes) in [(5u32, 1usize), (8, 3)] {
        let mut rng = Rng(log_n as u64);
        let ext = Transform::<BabyBear4>::coset_dft(log_n, BabyBear4::from_u64(5)).lanes(lanes);
        let input: Vec<BabyBear4> = (0..ext.input_len().unwrap())
            .map(|_| {
                BabyBear4([rng.next(), rng.next(), rng.next(), rng.next()].map(BabyBear::from_u64))
            })
            .collect();
        let expected = reference::evaluate(&ext, &input).unwrap();
        let base = Transform::<BabyBear>::coset_dft(log_n, BabyBear::from_u64(5)).lanes(4 * lanes);
        for backend in [Backend::Scalar, Backend::Avx512, Backend::Avx2] {
            let Ok(plan) = Planner::new().backend(backend).budgets(tiny()).plan(&base) else {
                continue;
            };
            let mut out = vec![BabyBear4::ZERO; expected.len()];
            plan.execute_from(
                BabyBear4::as_base_slice(&input),
                BabyBear4::as_base_slice_mut(&mut out),
            )
            .unwrap();
            assert_eq!(out, expected, "{}", backend.name());
        }
    }
}

/// The coset LDE plan (inverse DFT, then the encode, the two middle passes
/// fused where the planner can), out of place and in place, equals the two
/// transforms run one after the other, on every backend this CPU runs, 1 and 2 threads, small budgets
/// (fused plans) and roomy ones (one pass each); against the definition on
/// the smaller shapes.
macro_rules! lde_equals_idft_then_encode {
    ($name:ident, $field:ty) => {
        #[test]
        fn $name() {
            let mut fused = 0;
            for (log_n, lanes) in [(3u32, 2usize), (6, 1), (10, 1), (10, 5), (12, 16), (9, 64)] {
                for log_blowup in 1..=3u32 {
                    let shift = <$field>::from_u64(7);
                    let idft = Transform::<$field>::idft(log_n).lanes(lanes);
                    let evals = Rng(u64::from(log_n * 8 + log_blowup)).vec::<$field>(idft.input_len().unwrap());
                    let reference_planner = planner(roomy(), 1);
                    let coeffs = run(&reference_planner, &idft, &evals);
                    for order in [Order::BitReversed, Order::Natural] {
                        let encode = Transform::<$field>::dft_encode(log_n + log_blowup, LogBlowup(log_blowup), shift)
                            .lanes(lanes)
                            .order(order);
                        let expected = if log_n <= 6 {
                            let coeffs = reference::evaluate(&idft, &evals).unwrap();
                            reference::evaluate(&encode, &coeffs).unwrap()
                        } else {
                            run(&reference_planner, &encode, &coeffs)
                        };
                        for backend in [Backend::Scalar, Backend::Avx512, Backend::Avx2, Backend::Neon] {
                            for (budgets, threads) in [(tiny(), 1), (tiny(), 2), (roomy(), 2)] {
                                let what = format!(
                                    "{} 2^{log_n} × {lanes} +{log_blowup} {order:?} {} {threads} threads",
                                    <$field>::NAME,
                                    backend.name()
                                );
                                let Ok(lde) = Planner::new()
                                    .backend(backend)
                                    .threads(Threads::Count(threads))
                                    .budgets(budgets)
                                    .plan(&Transform::<$field>::coset_lde(log_n, LogBlowup(log_blowup)).shift(shift).lanes(lanes).order(order))
                                else {
                                    continue;
                                };
                                let mut out = vec![<$field>::from_u64(0xdead); lde.len()];
                                lde.execute_from(&evals, &mut out).unwrap();
                                assert!(out == expected, "{what}");
                                // In place: the evaluations in the first rows,
                                // garbage after them.
                                let mut data = evals.clone();
                                data.resize(lde.len(), <$field>::from_u64(0xbeef));
                                lde.execute(&mut data).unwrap();
                                assert!(data == expected, "{what}, in place");
                                assert_eq!(
                                    lde.is_fused(),
                                    lde.to_string().contains("run as one"),
                                    "{what}"
                                );
                                assert!(lde.scratch_len() >= lde.plans()[1].scratch_len());
                                fused += usize::from(lde.is_fused());
                            }
                        }
                    }
                }
            }
            // Small budgets fuse the two passes on every shape with a gathered
            // pass on both sides.
            assert!(fused >= 20, "only {fused} fused LDE plans were checked");
        }
    };
}

lde_equals_idft_then_encode!(babybear_lde_equals_idft_then_encode, BabyBear);
lde_equals_idft_then_encode!(goldilocks_lde_equals_idft_then_encode, Goldilocks);

/// The extension fields' own plans (their portable kernels, in every family
/// and option, 1 and 2 threads, small and roomy budgets) equal the naive
/// definition evaluated in the extension field.
#[test]
fn extension_field_plans_equal_the_definition() {
    fn check<F: Kernels>(spec: Transform<F>, seed: u64) {
        let input = Rng(seed).vec::<F>(spec.input_len().unwrap());
        let expected = reference::evaluate(&spec, &input).unwrap();
        for budgets in [tiny(), roomy()] {
            for threads in [1, 2] {
                assert!(
                    run(&planner(budgets, threads), &spec, &input) == expected,
                    "{} {threads} threads",
                    spec.describe()
                );
            }
        }
    }
    let shift4 = BabyBear4::from_u64(5);
    for log_n in [1u32, 4, 7] {
        for order in [Order::Natural, Order::BitReversed] {
            check(Transform::<BabyBear4>::dft(log_n).order(order).lanes(2), 1);
            check(Transform::<BabyBear4>::idft(log_n).order(order).lanes(3), 2);
            check(
                Transform::<BabyBear4>::coset_idft(log_n, shift4).order(order),
                3,
            );
            check(
                Transform::<BabyBear4>::dft_encode(log_n + 1, LogBlowup(1), shift4)
                    .order(order)
                    .batch(2),
                4,
            );
        }
        let shift192 = Gf2_192::from_u64(0x1234_5678);
        check(Transform::<Gf2_192>::additive_intt(log_n).lanes(2), 5);
        check(
            Transform::<Gf2_192>::additive_ntt(log_n)
                .shift(shift192)
                .batch(2),
            6,
        );
        check(
            Transform::<Gf2_192>::additive_encode(log_n + 2, LogBlowup(2)).lanes(3),
            7,
        );
        check(
            Transform::<Gf2_192>::additive_intt(log_n + 1)
                .basis(Basis::Cantor)
                .from_layer(1),
            8,
        );
    }
}

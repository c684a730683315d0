//! Every transform equals its naive definition; inverses undo forwards;
//! transforms are linear; known answers from the standards and DESIGN.md.

use crate::common::*;
use nttfuse::transform::mlkem::multiply_ntts;
use nttfuse::*;
use quickcheck::{Arbitrary, Gen, QuickCheck};

/// A random transform shape: log n ≤ 10, lanes 1…9, batch 1…2, a seed.
#[derive(Clone, Debug)]
struct Shape {
    log_n: u32,
    lanes: usize,
    batch: usize,
    rate: u32,
    bit_reversed: bool,
    tiny_budgets: bool,
    seed: u64,
}

impl Arbitrary for Shape {
    fn arbitrary(g: &mut Gen) -> Self {
        let log_n = u32::arbitrary(g) % 11;
        Shape {
            log_n,
            lanes: 1 + usize::arbitrary(g) % 9,
            batch: 1 + usize::arbitrary(g) % 2,
            rate: if log_n == 0 {
                0
            } else {
                u32::arbitrary(g) % log_n
            },
            bit_reversed: bool::arbitrary(g),
            tiny_budgets: bool::arbitrary(g),
            seed: u64::arbitrary(g),
        }
    }
}

impl Shape {
    fn planner(&self) -> Planner {
        planner(if self.tiny_budgets { tiny() } else { roomy() }, 1)
    }
    fn order(&self) -> Order {
        if self.bit_reversed {
            Order::BitReversed
        } else {
            Order::Natural
        }
    }
}

fn equals_reference<F: Kernels>(shape: &Shape, spec: Transform<F>) -> bool {
    let spec = spec.lanes(shape.lanes).batch(shape.batch);
    let input = Rng(shape.seed).vec::<F>(spec.input_len().unwrap());
    let expected = reference::evaluate(&spec, &input).unwrap();
    let planner = shape.planner();
    run(&planner, &spec, &input) == expected && run_in_place(&planner, &spec, &input) == expected
}

fn quickcheck(tests: u64, property: fn(Shape) -> bool) {
    QuickCheck::new().tests(tests).quickcheck(property);
}

#[test]
fn dft_equals_naive_evaluation() {
    quickcheck(40, |s| {
        equals_reference(&s, Transform::<BabyBear>::dft(s.log_n).order(s.order()))
    });
}

#[test]
fn idft_equals_naive_interpolation() {
    quickcheck(40, |s| {
        equals_reference(&s, Transform::<BabyBear>::idft(s.log_n).order(s.order()))
    });
}

#[test]
fn additive_ntt_equals_naive_evaluation() {
    quickcheck(30, |s| {
        equals_reference(&s, Transform::<Gf2_64>::additive_ntt(s.log_n))
    });
}

#[test]
fn additive_from_layer_equals_blockwise_evaluation() {
    quickcheck(30, |s| {
        equals_reference(
            &s,
            Transform::<Gf2_64>::additive_ntt(s.log_n).from_layer(s.rate),
        )
    });
}

#[test]
fn additive_encode_equals_naive_evaluation() {
    quickcheck(30, |s| {
        equals_reference(
            &s,
            Transform::<Gf2_64>::additive_encode(s.log_n, LogBlowup(s.rate)),
        )
    });
}

#[test]
fn additive_inverse_equals_naive_solve() {
    // The reference inverse solves a linear system (O(n³)): sizes ≤ 2^7.
    quickcheck(30, |mut s| {
        s.log_n %= 8;
        s.rate = if s.log_n == 0 { 0 } else { s.rate % s.log_n };
        equals_reference(
            &s,
            Transform::<Gf2_64>::additive_intt(s.log_n).from_layer(s.rate),
        )
    });
}

#[test]
fn coset_additive_ntt_equals_naive_evaluation() {
    quickcheck(20, |s| {
        let shift = Gf2_64::new(Rng(s.seed ^ 1).next());
        equals_reference(&s, Transform::<Gf2_64>::additive_ntt(s.log_n).shift(shift))
            && equals_reference(
                &s,
                Transform::<Gf2_64>::additive_encode(s.log_n, LogBlowup(s.rate)).shift(shift),
            )
    });
}

#[test]
fn mlkem_ntt_equals_naive_evaluation() {
    quickcheck(20, |s| {
        equals_reference(&s, Transform::<MlKem>::negacyclic_forward())
            && equals_reference(&s, Transform::<MlKem>::negacyclic_inverse())
    });
}

#[test]
fn mldsa_ntt_equals_naive_evaluation() {
    quickcheck(20, |s| {
        equals_reference(&s, Transform::<MlDsa>::negacyclic_forward())
            && equals_reference(&s, Transform::<MlDsa>::negacyclic_inverse())
    });
}

#[test]
fn mldsa_root_is_fips_204s() {
    // ζ = 1753 is a primitive 512th root of unity, the 2^9-th root this
    // field's two-adic generator picks.
    let zeta = MlDsa::new(1753);
    assert_eq!(zeta.pow(256), -MlDsa::ONE);
    assert_eq!(MlDsa::two_adic_generator(9), Some(zeta));
}

fn negacyclic_schoolbook<F: Field>(a: &[F], b: &[F]) -> Vec<F> {
    let mut c = vec![F::zero(); 256];
    for i in 0..256 {
        for j in 0..256 {
            let p = a[i] * b[j];
            if i + j < 256 {
                c[i + j] += p;
            } else {
                c[i + j - 256] -= p;
            }
        }
    }
    c
}

#[test]
fn mldsa_convolution_theorem() {
    quickcheck(10, |s| {
        let mut rng = Rng(s.seed);
        let (a, b) = (rng.vec::<MlDsa>(256), rng.vec::<MlDsa>(256));
        let planner = s.planner();
        let fa = run(&planner, &Transform::<MlDsa>::negacyclic_forward(), &a);
        let fb = run(&planner, &Transform::<MlDsa>::negacyclic_forward(), &b);
        let product =
            nttfuse::transform::mldsa::pointwise(&fa.try_into().unwrap(), &fb.try_into().unwrap());
        run(
            &planner,
            &Transform::<MlDsa>::negacyclic_inverse(),
            &product,
        ) == negacyclic_schoolbook(&a, &b)
    });
}

fn round_trip<F: Kernels>(shape: &Shape, forward: Transform<F>, inverse: Transform<F>) -> bool {
    let forward = forward.lanes(shape.lanes).batch(shape.batch);
    let inverse = inverse.lanes(shape.lanes).batch(shape.batch);
    let input = Rng(shape.seed).vec::<F>(forward.input_len().unwrap());
    let planner = shape.planner();
    let evals = run(&planner, &forward, &input);
    run(&planner, &inverse, &evals) == input
}

#[test]
fn inverse_undoes_forward() {
    quickcheck(40, |s| {
        round_trip(
            &s,
            Transform::<BabyBear>::dft(s.log_n).order(s.order()),
            Transform::<BabyBear>::idft(s.log_n).order(s.order()),
        ) && round_trip(
            &s,
            Transform::<Gf2_64>::additive_ntt(s.log_n).from_layer(s.rate),
            Transform::<Gf2_64>::additive_intt(s.log_n).from_layer(s.rate),
        ) && round_trip(
            &s,
            Transform::<MlKem>::negacyclic_forward(),
            Transform::<MlKem>::negacyclic_inverse(),
        ) && round_trip(
            &s,
            Transform::<MlDsa>::negacyclic_forward(),
            Transform::<MlDsa>::negacyclic_inverse(),
        )
    });
}

fn linear<F: Kernels>(shape: &Shape, spec: Transform<F>) -> bool {
    let spec = spec.lanes(shape.lanes);
    let mut rng = Rng(shape.seed);
    let (x, y) = (
        rng.vec::<F>(spec.input_len().unwrap()),
        rng.vec::<F>(spec.input_len().unwrap()),
    );
    let c = F::from_u64(rng.next());
    let combined: Vec<F> = x.iter().zip(&y).map(|(&a, &b)| a * c + b).collect();
    let planner = shape.planner();
    let (tx, ty) = (run(&planner, &spec, &x), run(&planner, &spec, &y));
    let expected: Vec<F> = tx.iter().zip(&ty).map(|(&a, &b)| a * c + b).collect();
    run(&planner, &spec, &combined) == expected
}

#[test]
fn transforms_are_linear() {
    quickcheck(30, |s| {
        linear(&s, Transform::<BabyBear>::dft(s.log_n))
            && linear(&s, Transform::<BabyBear>::idft(s.log_n).order(s.order()))
            && linear(
                &s,
                Transform::<Gf2_64>::additive_encode(s.log_n, LogBlowup(s.rate)),
            )
            && linear(&s, Transform::<MlKem>::negacyclic_forward())
    });
}

#[test]
fn dft_convolution_theorem() {
    // DFT(a ⊛ b) = DFT(a) · DFT(b) for the cyclic convolution ⊛.
    quickcheck(20, |s| {
        let n = 1usize << s.log_n.min(8);
        let mut rng = Rng(s.seed);
        let (a, b) = (rng.vec::<BabyBear>(n), rng.vec::<BabyBear>(n));
        let mut conv = vec![BabyBear::ZERO; n];
        for i in 0..n {
            for j in 0..n {
                conv[(i + j) % n] += a[i] * b[j];
            }
        }
        let planner = s.planner();
        let spec = Transform::<BabyBear>::dft(n.ilog2());
        let (fa, fb) = (run(&planner, &spec, &a), run(&planner, &spec, &b));
        let product: Vec<BabyBear> = fa.iter().zip(&fb).map(|(&x, &y)| x * y).collect();
        run(&planner, &spec, &conv) == product
    });
}

#[test]
fn mlkem_convolution_theorem() {
    // NTT⁻¹(NTT(a) ∘ NTT(b)) is the product of a and b modulo X^256 + 1.
    quickcheck(10, |s| {
        let mut rng = Rng(s.seed);
        let (a, b) = (rng.vec::<MlKem>(256), rng.vec::<MlKem>(256));
        let schoolbook = negacyclic_schoolbook(&a, &b);
        let planner = s.planner();
        let fa = run(&planner, &Transform::<MlKem>::negacyclic_forward(), &a);
        let fb = run(&planner, &Transform::<MlKem>::negacyclic_forward(), &b);
        let product = multiply_ntts(&fa.try_into().unwrap(), &fb.try_into().unwrap());
        run(
            &planner,
            &Transform::<MlKem>::negacyclic_inverse(),
            &product,
        ) == schoolbook
    });
}

fn hex(values: &[u64]) -> Vec<Gf2_64> {
    values.iter().map(|&v| Gf2_64::new(v)).collect()
}

#[test]
fn additive_known_answers() {
    let planner = planner(roomy(), 1);
    let input = hex(&[1, 2, 3, 4, 5, 6, 7, 8]);
    assert_eq!(
        run(&planner, &Transform::additive_ntt(3), &input),
        hex(&[0x1, 0x3, 0xe, 0x8, 0xac, 0x80, 0xd8, 0xf8])
    );
    assert_eq!(
        run(
            &planner,
            &Transform::additive_encode(3, LogBlowup(1)),
            &input[..4]
        ),
        hex(&[0x1, 0x3, 0xe, 0x8, 0x63, 0x79, 0x4c, 0x52])
    );
}

fn parse_list(text: &str, name: &str) -> Vec<MlKem> {
    let line = text
        .lines()
        .find(|l| l.starts_with(&format!("{name} = ")))
        .unwrap_or_else(|| panic!("{name} in test data"));
    let body = line
        .split_once('{')
        .unwrap()
        .1
        .trim_end()
        .trim_end_matches('}');
    body.split(',')
        .map(|v| MlKem::new(v.trim().parse::<i16>().unwrap()))
        .collect()
}

#[test]
fn mlkem_ntt_matches_cctv_known_answer() {
    let text = include_str!("../data/mlkem768_cctv_s0.txt");
    let s0 = parse_list(text, "s[0]");
    let expected = parse_list(text, "NTT(s[0])");
    assert_eq!((s0.len(), expected.len()), (256, 256));
    for budgets in [roomy(), tiny()] {
        for threads in [1, 2] {
            let planner = planner(budgets, threads);
            assert_eq!(
                run(&planner, &Transform::<MlKem>::negacyclic_forward(), &s0),
                expected
            );
            assert_eq!(
                run(
                    &planner,
                    &Transform::<MlKem>::negacyclic_inverse(),
                    &expected
                ),
                s0
            );
        }
    }
    assert_eq!(reference::negacyclic(&s0, 7, MlKem::new(17)), expected);
}

fn lane_major_agrees<F: Kernels>(spec: Transform<F>, seed: u64, tiny_budgets: bool) -> bool {
    let budgets = if tiny_budgets { tiny() } else { roomy() };
    let lane_major = spec.clone().lane_major_input();
    let input = Rng(seed).vec::<F>(spec.input_len().unwrap());
    let rows = from_lane_major(&input, spec.lane_count(), spec.batch_count());
    let expected = reference::evaluate(&spec, &rows).unwrap();
    if reference::evaluate(&lane_major, &input).unwrap() != expected {
        return false;
    }
    every_planner::<F>(budgets).iter().all(|planner| {
        let plan = match planner.plan(&lane_major) {
            Ok(plan) => plan,
            // A forced lattice SIMD backend refuses polynomials across
            // lanes (its kernels hold whole polynomials one after another).
            Err(Error::BackendUnavailable { reason, .. }) => {
                return spec.lane_count() > 1 && reason.contains("whole polynomials")
            }
            Err(e) => panic!("{e}"),
        };
        let mut out = vec![F::zero(); plan.len()];
        plan.execute_from(&input, &mut out).unwrap();
        let mut data = vec![F::zero(); plan.len()];
        let in_place = plan.execute(&mut data);
        let in_place_ok = if spec.lane_count() > 1 {
            matches!(in_place, Err(Error::Unsupported { .. }))
        } else {
            in_place.is_ok()
        };
        out == expected && in_place_ok
    })
}

/// A lane-major input (each column contiguous) gives the bits of the same
/// transform on the interleaved rows, on every family and plan shape
/// (gathered and deep first passes, bit reversal first), on every backend
/// (`every_planner`), 1 and 2 threads.
#[test]
fn lane_major_input_equals_interleaved_rows() {
    QuickCheck::new().tests(30).quickcheck(
        (|seed: u64, log_n: u8, lanes: u8, batch: u8, rate: u8, tiny_budgets: bool| {
            let log_n = 1 + log_n as u32 % 10;
            let lanes = 1 + lanes as usize % 9;
            let batch = 1 + batch as usize % 2;
            let rate = rate as u32 % log_n.min(4);
            let shift = BabyBear::new(seed as u32 | 1);
            lane_major_agrees(
                Transform::<Gf2_64>::additive_encode(log_n, LogBlowup(rate.max(1).min(log_n - 1)))
                    .lanes(lanes)
                    .batch(batch),
                seed,
                tiny_budgets,
            ) && lane_major_agrees(
                Transform::<Gf2_64>::additive_ntt(log_n)
                    .lanes(lanes)
                    .batch(batch)
                    .basis(Basis::Cantor),
                seed,
                tiny_budgets,
            ) && lane_major_agrees(
                Transform::<BabyBear>::dft(log_n).lanes(lanes).batch(batch),
                seed,
                tiny_budgets,
            ) && lane_major_agrees(
                Transform::<BabyBear>::dft_encode(log_n, LogBlowup(rate), shift)
                    .lanes(lanes)
                    .order(Order::BitReversed),
                seed,
                tiny_budgets,
            ) && lane_major_agrees(
                Transform::<Goldilocks>::idft(log_n).lanes(lanes),
                seed,
                tiny_budgets,
            ) && lane_major_agrees(
                Transform::<Goldilocks>::idft(log_n)
                    .lanes(lanes)
                    .order(Order::BitReversed),
                seed,
                tiny_budgets,
            )
        }) as fn(u64, u8, u8, u8, u8, bool) -> bool,
    );
    // The plan shows the transpose step before every kind of first step:
    // a gathered pass, a deep pass, a bit reversal.
    let text = |spec: Transform<BabyBear>, budgets| {
        planner(budgets, 1)
            .plan(&spec.lanes(3).lane_major_input())
            .unwrap()
            .to_string()
    };
    for (plan, first) in [
        (
            text(
                Transform::dft_encode(10, LogBlowup(1), BabyBear::ONE),
                tiny(),
            ),
            "gathered",
        ),
        (
            text(
                Transform::dft_encode(6, LogBlowup(1), BabyBear::ONE),
                roomy(),
            ),
            "deep",
        ),
        (text(Transform::idft(6), roomy()), "bit-reverse"),
    ] {
        let lines: Vec<&str> = plan.lines().collect();
        assert!(lines[0].contains("lanes = 3 (input lane-major)"), "{plan}");
        assert!(
            lines[3].starts_with("transpose  lane-major input to rows"),
            "{plan}"
        );
        assert!(lines[4].contains(first), "{plan}");
    }
    assert!(lane_major_agrees(
        Transform::<BabyBear>::dft_encode(10, LogBlowup(1), BabyBear::ONE).lanes(3),
        3,
        true
    ));
    // ML-KEM batches too (the lattice path reads its input the same way).
    assert!(lane_major_agrees(
        Transform::<MlKem>::negacyclic_forward().lanes(3).batch(2),
        7,
        false
    ));
}

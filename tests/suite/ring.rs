//! Ring plans (the ML-KEM and ML-DSA NTTs over whole polynomials) in every
//! mode — canonical or lazy output, standard or permuted NTT order — on
//! every backend this CPU has: against the definition, bit for bit across
//! backends where canonical, within the printed bound where lazy, at random
//! and at worst-case inputs, single and batched, through `execute` and
//! `execute_raw`.

use crate::common::*;
use nttfuse::*;

/// Every backend this CPU runs for `F`, scalar first.
fn backends<F: Kernels>() -> Vec<Backend> {
    let mut b = vec![Backend::Scalar];
    b.extend(simd_backends::<F>());
    b
}

fn plan<F: Kernels>(backend: Backend, spec: &Transform<F>) -> Plan<F> {
    Planner::new()
        .backend(backend)
        .threads(Threads::Count(1))
        .plan(spec)
        .unwrap_or_else(|e| panic!("{backend:?}: {e}"))
}

/// The lattice fields as raw words.
trait RawRing: Kernels {
    type Raw: Copy + PartialEq + core::fmt::Debug;
    const Q: i64;
    /// The lazy forward NTT's output bound (multiples of q).
    const LAZY_FORWARD: i64;
    /// Whether the lazy inverse takes any word.
    const ANY_INVERSE_INPUT: bool;
    fn execute_raw(plan: &Plan<Self>, data: &mut [Self::Raw]) -> Result<(), Error>;
    fn raw(x: i64) -> Self::Raw;
    fn wide(x: Self::Raw) -> i64;
    fn min_raw() -> i64;
    fn max_raw() -> i64;
}

impl RawRing for MlKem {
    type Raw = i16;
    const Q: i64 = 3329;
    const LAZY_FORWARD: i64 = 8;
    const ANY_INVERSE_INPUT: bool = true;
    fn execute_raw(plan: &Plan<Self>, data: &mut [i16]) -> Result<(), Error> {
        plan.execute_raw(data)
    }
    fn raw(x: i64) -> i16 {
        x as i16
    }
    fn wide(x: i16) -> i64 {
        x as i64
    }
    fn min_raw() -> i64 {
        i16::MIN as i64
    }
    fn max_raw() -> i64 {
        i16::MAX as i64
    }
}

impl RawRing for MlDsa {
    type Raw = i32;
    const Q: i64 = 8_380_417;
    const LAZY_FORWARD: i64 = 9;
    const ANY_INVERSE_INPUT: bool = false;
    fn execute_raw(plan: &Plan<Self>, data: &mut [i32]) -> Result<(), Error> {
        plan.execute_raw(data)
    }
    fn raw(x: i64) -> i32 {
        x as i32
    }
    fn wide(x: i32) -> i64 {
        x as i64
    }
    fn min_raw() -> i64 {
        i32::MIN as i64
    }
    fn max_raw() -> i64 {
        i32::MAX as i64
    }
}

/// Raw inputs within `lo..=hi`: both extremes, alternating extremes, zero,
/// and random words.
fn raw_inputs<F: RawRing>(seed: u64, len: usize, lo: i64, hi: i64) -> Vec<Vec<i64>> {
    let mut rng = Rng(seed);
    let span = (hi - lo + 1) as u64;
    let mut cases = vec![
        vec![hi; len],
        vec![lo; len],
        (0..len).map(|i| if i % 2 == 0 { hi } else { lo }).collect(),
        (0..len).map(|i| if i % 3 == 0 { lo } else { hi }).collect(),
        vec![0; len],
    ];
    for _ in 0..4 {
        cases.push((0..len).map(|_| lo + (rng.next() % span) as i64).collect());
    }
    cases
}

/// Checks one spec on every backend: canonical outputs equal the
/// definition (applied to the canonical residues of the input) bit for
/// bit; lazy ones are congruent and within `bound`·q.
fn check<F: RawRing>(spec: Transform<F>, input_lo: i64, input_hi: i64, bound: i64, seed: u64) {
    let len = spec.input_len().unwrap();
    let canonical = spec.reduction_mode() == Reduction::Canonical;
    for input in raw_inputs::<F>(seed, len, input_lo, input_hi) {
        let residues: Vec<F> = input
            .iter()
            .map(|&x| F::from_u64(x.rem_euclid(F::Q) as u64))
            .collect();
        let expected = reference::evaluate(&spec, &residues).unwrap();
        for backend in backends::<F>() {
            let plan = plan(backend, &spec);
            let mut raw: Vec<F::Raw> = input.iter().map(|&x| F::raw(x)).collect();
            F::execute_raw(&plan, &mut raw).unwrap();
            for (i, (&got, want)) in raw.iter().zip(&expected).enumerate() {
                let got = F::wide(got);
                let what = format!("{backend:?} {} word {i}: {got}", spec.describe());
                if canonical {
                    assert!((0..F::Q).contains(&got), "{what} not canonical");
                } else {
                    assert!(got.abs() < bound * F::Q, "{what} beyond {bound}q");
                }
                assert_eq!(
                    got.rem_euclid(F::Q) as u64,
                    want.to_canonical_u64(),
                    "{what}"
                );
            }
            // The typed entry point agrees where it applies.
            if canonical {
                let mut typed = residues.clone();
                plan.execute(&mut typed).unwrap();
                assert_eq!(typed, expected, "{backend:?} typed {}", spec.describe());
            }
        }
    }
}

fn every_mode<F: RawRing>(forward: fn() -> Transform<F>, inverse: fn() -> Transform<F>, seed: u64) {
    let q = F::Q;
    for batch in [1, 3] {
        for order in [NttOrder::Standard, NttOrder::Permuted] {
            for reduction in [Reduction::Canonical, Reduction::Lazy] {
                let lazy = reduction == Reduction::Lazy;
                let f = forward().batch(batch).ntt_order(order).reduction(reduction);
                check(
                    f,
                    -(q - 1),
                    q - 1,
                    if lazy { F::LAZY_FORWARD } else { 1 },
                    seed,
                );
                let i = inverse().batch(batch).ntt_order(order).reduction(reduction);
                let (lo, hi) = if lazy && F::ANY_INVERSE_INPUT {
                    (F::min_raw(), F::max_raw())
                } else {
                    (-(q - 1), q - 1)
                };
                check(i, lo, hi, 1, seed ^ 1);
            }
        }
    }
}

#[test]
fn mlkem_ring_plans_match_the_definition_in_every_mode_on_every_backend() {
    every_mode::<MlKem>(
        Transform::<MlKem>::negacyclic_forward,
        Transform::<MlKem>::negacyclic_inverse,
        11,
    );
}

#[test]
fn mldsa_ring_plans_match_the_definition_in_every_mode_on_every_backend() {
    every_mode::<MlDsa>(
        Transform::<MlDsa>::negacyclic_forward,
        Transform::<MlDsa>::negacyclic_inverse,
        12,
    );
}

#[test]
fn permuted_forward_then_permuted_inverse_is_the_identity() {
    let mut rng = Rng(5);
    for backend in backends::<MlKem>() {
        let f = plan(
            backend,
            &Transform::<MlKem>::negacyclic_forward()
                .ntt_order(NttOrder::Permuted)
                .reduction(Reduction::Lazy),
        );
        let i = plan(
            backend,
            &Transform::<MlKem>::negacyclic_inverse()
                .ntt_order(NttOrder::Permuted)
                .reduction(Reduction::Lazy),
        );
        let poly: [i16; 256] = core::array::from_fn(|_| (rng.next() % 3329) as i16);
        let mut x = poly;
        f.execute_raw(&mut x).unwrap();
        i.execute_raw(&mut x).unwrap();
        for (a, b) in x.iter().zip(&poly) {
            assert_eq!((*a as i32).rem_euclid(3329), *b as i32, "{backend:?}");
        }
    }
}

#[test]
fn lazy_or_permuted_outside_ring_plans_is_a_typed_error() {
    let lazy = Transform::<MlKem>::negacyclic_forward().reduction(Reduction::Lazy);
    // Two interleaved columns: no whole-polynomial kernel.
    let e = Planner::new().plan(&lazy.clone().lanes(2)).unwrap_err();
    assert!(matches!(e, Error::Unsupported { .. }), "{e}");
    // A lazy plan's output is raw words: the typed entry point refuses it.
    let plan = Planner::new().plan(&lazy).unwrap();
    let mut poly = [MlKem::ZERO; 256];
    let e = plan.execute(&mut poly).unwrap_err();
    assert!(matches!(e, Error::Unsupported { .. }), "{e}");
    // Not a lattice NTT.
    let e = Planner::new()
        .plan(&Transform::<BabyBear>::dft(4).ntt_order(NttOrder::Permuted))
        .unwrap_err();
    assert!(matches!(e, Error::Unsupported { .. }), "{e}");
}

#[test]
fn raw_views_check_canonical_words() {
    let mut raw = [0i16, 1, 3328, 5];
    assert_eq!(MlKem::try_from_raw(&raw).unwrap()[2], MlKem::new(3328));
    MlKem::try_from_raw_mut(&mut raw).unwrap()[0] = MlKem::new(7);
    assert_eq!(raw[0], 7);
    for bad in [-1i16, 3329, i16::MIN, i16::MAX] {
        let e = MlKem::try_from_raw(&[0, bad]).unwrap_err();
        assert_eq!(
            e,
            Error::NotCanonical {
                field: "MlKem",
                len: 2
            }
        );
    }
    for bad in [-1i32, 8_380_417, i32::MIN, i32::MAX] {
        let e = MlDsa::try_from_raw(&[bad]).unwrap_err();
        assert_eq!(
            e,
            Error::NotCanonical {
                field: "MlDsa",
                len: 1
            }
        );
    }
    // A non-ring plan takes canonical raw words only.
    let two = Planner::new()
        .plan(&Transform::<MlKem>::negacyclic_forward().lanes(2))
        .unwrap();
    let mut words = vec![3329i16; 512];
    assert!(matches!(
        two.execute_raw(&mut words),
        Err(Error::NotCanonical { .. })
    ));
    let mut words = vec![1i16; 511];
    assert!(matches!(
        Planner::new()
            .plan(&Transform::<MlKem>::negacyclic_forward())
            .unwrap()
            .execute_raw(&mut words),
        Err(Error::LengthMismatch { .. })
    ));
}

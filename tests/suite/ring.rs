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

/// The negacyclic product f·g mod (X^256 + 1, q), by schoolbook.
fn schoolbook(f: &[i64], g: &[i64], q: i64) -> Vec<i64> {
    let mut out = vec![0i64; 256];
    for i in 0..256 {
        for j in 0..256 {
            let p = f[i] * g[j] % q;
            if i + j < 256 {
                out[i + j] += p;
            } else {
                out[i + j - 256] -= p;
            }
        }
    }
    out.iter().map(|x| x.rem_euclid(q)).collect()
}

/// Extremes and random words of a raw type.
fn raw_poly(rng: &mut Rng, lo: i64, hi: i64, kind: usize) -> Vec<i64> {
    match kind {
        0 => vec![hi; 256],
        1 => vec![lo; 256],
        2 => (0..256).map(|i| if i % 2 == 0 { hi } else { lo }).collect(),
        _ => (0..256)
            .map(|_| lo + (rng.next() % (hi - lo + 1) as u64) as i64)
            .collect(),
    }
}

#[test]
fn mlkem_products_match_fips_203_on_every_backend_in_both_orders() {
    let q = 3329i64;
    let mut rng = Rng(77);
    for k in [1usize, 2, 3, 4, 8, 9, 17] {
        for case in 0..4 {
            let a: Vec<[i16; 256]> = (0..k)
                .map(|j| {
                    let p = raw_poly(&mut rng, i16::MIN as i64, i16::MAX as i64, (case + j) % 4);
                    core::array::from_fn(|i| p[i] as i16)
                })
                .collect();
            let b: Vec<[i16; 256]> = (0..k)
                .map(|j| {
                    let p = raw_poly(
                        &mut rng,
                        i16::MIN as i64,
                        i16::MAX as i64,
                        (case + 2 * j) % 4,
                    );
                    core::array::from_fn(|i| p[i] as i16)
                })
                .collect();
            // FIPS 203 MultiplyNTTs, summed, on canonical residues.
            let canon = |p: &[i16; 256]| -> [MlKem; 256] {
                core::array::from_fn(|i| MlKem::from_u64((p[i] as i64).rem_euclid(q) as u64))
            };
            let mut expected = [MlKem::ZERO; 256];
            for (a, b) in a.iter().zip(&b) {
                let term = transform::mlkem::multiply_ntts_reference(&canon(a), &canon(b));
                expected.iter_mut().zip(term).for_each(|(x, y)| *x += y);
            }
            let mut first: Option<([i16; 256], Vec<MlKemCache>)> = None;
            for backend in backends::<MlKem>() {
                let products = MlKemProducts::on(backend).unwrap();
                let caches: Vec<MlKemCache> = b.iter().map(|p| products.cache(p)).collect();
                let mut out = [0i16; 256];
                products.multiply_accumulate(&a, &caches, &mut out).unwrap();
                assert_eq!(
                    MlKem::try_from_raw(&out).unwrap(),
                    &expected[..],
                    "{backend:?} k = {k}"
                );
                // Caches and canonical results are the same on every backend.
                match &first {
                    None => first = Some((out, caches.clone())),
                    Some((o, c)) => {
                        assert_eq!(&out, o, "{backend:?}");
                        assert_eq!(&caches, c, "{backend:?} caches");
                    }
                }
                let lazy = products.clone().reduction(Reduction::Lazy);
                let mut raw = [0i16; 256];
                lazy.multiply_accumulate(&a, &caches, &mut raw).unwrap();
                for (r, e) in raw.iter().zip(&expected) {
                    assert!(
                        (r.unsigned_abs() as u32) < MlKemProducts::lazy_bound(k),
                        "{backend:?} lazy {r}"
                    );
                    assert_eq!((*r as i64).rem_euclid(q) as i16, e.value());
                }
                if k == 1 {
                    let mut single = [0i16; 256];
                    products.multiply(&a[0], &b[0], &mut single);
                    assert_eq!(single, out);
                    assert_eq!(
                        products.multiply_elements(&canon(&a[0]), &canon(&b[0])),
                        expected
                    );
                }
            }
        }
    }
}

/// The convolution theorem through the permuted order: NTT both factors,
/// multiply, transform back, against the schoolbook product.
#[test]
fn permuted_order_products_give_the_negacyclic_product() {
    let q = 3329i64;
    let mut rng = Rng(78);
    for backend in backends::<MlKem>() {
        for order in [NttOrder::Standard, NttOrder::Permuted] {
            let forward = plan(
                backend,
                &Transform::<MlKem>::negacyclic_forward()
                    .ntt_order(order)
                    .reduction(Reduction::Lazy),
            );
            let inverse = plan(
                backend,
                &Transform::<MlKem>::negacyclic_inverse()
                    .ntt_order(order)
                    .reduction(Reduction::Lazy),
            );
            let products = MlKemProducts::on(backend).unwrap().order(order);
            let f: Vec<i64> = (0..256).map(|_| (rng.next() % 3329) as i64).collect();
            let g: Vec<i64> = (0..256).map(|_| (rng.next() % 3329) as i64).collect();
            let mut fh: [i16; 256] = core::array::from_fn(|i| f[i] as i16);
            let mut gh: [i16; 256] = core::array::from_fn(|i| g[i] as i16);
            forward.execute_raw(&mut fh).unwrap();
            forward.execute_raw(&mut gh).unwrap();
            let mut h = [0i16; 256];
            products.multiply(&fh, &gh, &mut h);
            inverse.execute_raw(&mut h).unwrap();
            let got: Vec<i64> = h.iter().map(|&x| (x as i64).rem_euclid(q)).collect();
            assert_eq!(got, schoolbook(&f, &g, q), "{backend:?} {order:?}");
            // A cache of the other order is refused, not misused.
            let other = if order == NttOrder::Standard {
                NttOrder::Permuted
            } else {
                NttOrder::Standard
            };
            let foreign = MlKemProducts::on(backend).unwrap().order(other).cache(&gh);
            assert!(matches!(
                products.multiply_cached(&fh, &foreign, &mut h),
                Err(Error::Unsupported { .. })
            ));
        }
    }
}

#[test]
fn mldsa_products_match_fips_204_on_every_backend() {
    let q = 8_380_417i64;
    let mut rng = Rng(79);
    for k in [1usize, 2, 4, 7, 64] {
        for case in 0..4 {
            let a: Vec<[i32; 256]> = (0..k)
                .map(|j| {
                    let p = raw_poly(&mut rng, i32::MIN as i64, i32::MAX as i64, (case + j) % 4);
                    core::array::from_fn(|i| p[i] as i32)
                })
                .collect();
            let b: Vec<[i32; 256]> = (0..k)
                .map(|j| {
                    let p = raw_poly(
                        &mut rng,
                        i32::MIN as i64,
                        i32::MAX as i64,
                        (case + 3 * j) % 4,
                    );
                    core::array::from_fn(|i| p[i] as i32)
                })
                .collect();
            let expected: Vec<i64> = (0..256)
                .map(|i| {
                    a.iter()
                        .zip(&b)
                        .map(|(a, b)| (a[i] as i64).rem_euclid(q) * (b[i] as i64).rem_euclid(q) % q)
                        .sum::<i64>()
                        % q
                })
                .collect();
            let mut first: Option<[i32; 256]> = None;
            for backend in backends::<MlDsa>() {
                let products = MlDsaProducts::on(backend).unwrap();
                let caches: Vec<MlDsaCache> = b.iter().map(|p| products.cache(p)).collect();
                let mut out = [0i32; 256];
                products.multiply_accumulate(&a, &caches, &mut out).unwrap();
                let got: Vec<i64> = out.iter().map(|&x| x as i64).collect();
                assert_eq!(got, expected, "{backend:?} k = {k}");
                assert_eq!(*first.get_or_insert(out), out, "{backend:?}");
                let mut lazy = [0i32; 256];
                products
                    .clone()
                    .reduction(Reduction::Lazy)
                    .multiply_accumulate(&a, &caches, &mut lazy)
                    .unwrap();
                for (r, e) in lazy.iter().zip(&expected) {
                    assert!(
                        r.unsigned_abs() as u64 <= MlDsaProducts::lazy_bound(k),
                        "{backend:?} lazy {r}"
                    );
                    assert_eq!((*r as i64).rem_euclid(q), *e);
                }
                if k == 1 {
                    // The one-shot product (no cache) gives the cached
                    // product's words, canonical and lazy.
                    for reduction in [Reduction::Canonical, Reduction::Lazy] {
                        let products = products.clone().reduction(reduction);
                        let (mut direct, mut cached) = ([0i32; 256], [0i32; 256]);
                        products.multiply(&a[0], &b[0], &mut direct);
                        products.multiply_cached(&a[0], &caches[0], &mut cached);
                        assert_eq!(direct, cached, "{backend:?} {reduction:?}");
                    }
                }
            }
        }
    }
    let products = MlDsaProducts::new();
    let mut out = [0i32; 256];
    assert!(matches!(
        products.multiply_accumulate(&[[0; 256]; 2], &[products.cache(&[0; 256])], &mut out),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(
        products.multiply_batch(&[0; 256], &[0; 512], &mut [0; 256]),
        Err(Error::LengthMismatch { .. })
    ));
}

//! The lattice path: every backend this CPU has gives the scalar path's
//! results bit for bit, at random and at worst-case inputs, single and batched.

mod common;

use common::*;
use nttfuse::*;
use quickcheck::QuickCheck;

/// Backends this machine can run for `F` (always Scalar).
fn backends<F: Kernels>() -> Vec<Backend> {
    [Backend::Scalar, Backend::Avx512, Backend::Neon]
        .into_iter()
        .filter(|b| b.check::<F>().is_ok())
        .collect()
}

fn on(backend: Backend) -> Planner {
    Planner::new()
        .backend(backend)
        .threads(Threads::Count(1))
        .budgets(roomy())
}

/// Inputs at the edges of the canonical range, and random ones.
fn inputs<F: Kernels>(seed: u64, len: usize, q: u64) -> Vec<Vec<F>> {
    let mut rng = Rng(seed);
    vec![
        vec![F::from_u64(q - 1); len],
        vec![F::zero(); len],
        (0..len)
            .map(|i| F::from_u64(if i % 2 == 0 { q - 1 } else { 0 }))
            .collect(),
        (0..len)
            .map(|i| F::from_u64(if i % 3 == 0 { 1 } else { q - 1 }))
            .collect(),
        rng.vec(len),
        rng.vec(len),
    ]
}

fn backends_agree<F: Kernels>(spec: Transform<F>, q: u64, seed: u64) -> bool {
    let len = spec.input_len().unwrap();
    inputs::<F>(seed, len, q).iter().all(|input| {
        let expected = run(&on(Backend::Scalar), &spec, input);
        backends::<F>().into_iter().all(|b| {
            run(&on(b), &spec, input) == expected && run_in_place(&on(b), &spec, input) == expected
        })
    })
}

#[test]
fn mlkem_backends_agree_bit_for_bit() {
    QuickCheck::new().tests(30).quickcheck(
        (|seed: u64, k: u8| {
            let batch = 1 + k as usize % 5;
            backends_agree(
                Transform::<MlKem>::negacyclic_forward().batch(batch),
                3329,
                seed,
            ) && backends_agree(
                Transform::<MlKem>::negacyclic_inverse().batch(batch),
                3329,
                seed,
            )
        }) as fn(u64, u8) -> bool,
    );
}

#[test]
fn mldsa_backends_agree_bit_for_bit() {
    QuickCheck::new().tests(30).quickcheck(
        (|seed: u64, k: u8| {
            let batch = 1 + k as usize % 9;
            backends_agree(
                Transform::<MlDsa>::negacyclic_forward().batch(batch),
                8380417,
                seed,
            ) && backends_agree(
                Transform::<MlDsa>::negacyclic_inverse().batch(batch),
                8380417,
                seed,
            )
        }) as fn(u64, u8) -> bool,
    );
}

#[test]
fn neon_runs_wherever_aarch64_does() {
    // NEON is baseline on AArch64, so there the comparisons above are never
    // against scalar alone.
    if cfg!(target_arch = "aarch64") {
        assert!(backends::<MlKem>().contains(&Backend::Neon));
        assert!(backends::<MlDsa>().contains(&Backend::Neon));
        assert_eq!(Backend::detect::<MlKem>(), Backend::Neon);
    }
}

#[test]
fn simd_backends_hold_the_whole_polynomial_in_registers() {
    for backend in backends::<MlKem>()
        .into_iter()
        .filter(|&b| b != Backend::Scalar)
    {
        for spec in [
            Transform::<MlKem>::negacyclic_forward(),
            Transform::<MlKem>::negacyclic_inverse(),
        ] {
            let plan = on(backend).plan(&spec.batch(3)).unwrap();
            let groups = plan.groups();
            assert_eq!(groups.len(), 1, "\n{plan}");
            assert!(
                groups[0].whole_block && groups[0].layers == (0..7),
                "\n{plan}"
            );
            assert!(
                plan.to_string().contains("layers 1-7 whole block"),
                "\n{plan}"
            );
        }
    }
}

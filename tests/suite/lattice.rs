//! The lattice path: every backend this CPU has gives the scalar path's
//! results bit for bit, at random and at worst-case inputs, single and batched.

use crate::common::*;
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

/// ByteDecode12 (FIPS 203 Algorithm 6) of a hex string.
fn byte_decode12(hex: &str) -> Vec<MlKem> {
    let bytes: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect();
    bytes
        .chunks_exact(3)
        .flat_map(|b| {
            let lo = b[0] as u16 | ((b[1] as u16 & 0xf) << 8);
            let hi = (b[1] as u16 >> 4) | ((b[2] as u16) << 4);
            [lo, hi]
        })
        .map(|c| MlKem::from_u64(c as u64))
        .collect()
}

fn cctv(name: &str) -> Vec<MlKem> {
    let text = include_str!("../data/mlkem768_cctv_vectors.txt");
    let line = text
        .lines()
        .find(|l| l.starts_with(&format!("{name} = ")))
        .unwrap_or_else(|| panic!("{name} in test data"));
    byte_decode12(line.split_once(" = ").unwrap().1)
}

#[test]
fn mlkem768_cctv_ntts_and_products_on_every_backend() {
    use nttfuse::transform::mlkem::multiply_ntts;
    let k = 3;
    let a_hat = cctv("A");
    let (s, s_hat) = (cctv("s"), cctv("NTT(s)"));
    let (e, e_hat) = (cctv("e"), cctv("NTT(e)"));
    let (r, r_hat) = (cctv("r"), cctv("NTT(r)"));
    let (u, u_hat) = (cctv("uᵈ"), cctv("NTT(uᵈ)"));
    let t_hat = cctv("t");
    assert_eq!(
        (a_hat.len(), s.len(), t_hat.len()),
        (k * k * 256, k * 256, k * 256)
    );
    for backend in backends::<MlKem>() {
        let planner = on(backend);
        // All k polynomials of a vector as one batch.
        let ntt = Transform::<MlKem>::negacyclic_forward().batch(k);
        let intt = Transform::<MlKem>::negacyclic_inverse().batch(k);
        for (x, x_hat) in [(&s, &s_hat), (&e, &e_hat), (&r, &r_hat), (&u, &u_hat)] {
            assert_eq!(&run(&planner, &ntt, x), x_hat, "{}", backend.name());
            assert_eq!(&run(&planner, &intt, x_hat), x, "{}", backend.name());
        }
        // t̂ = Â ∘ ŝ + ê, Â row-major.
        let ours_s_hat = run(&planner, &ntt, &s);
        for i in 0..k {
            let mut acc: [MlKem; 256] = e_hat[256 * i..256 * (i + 1)].try_into().unwrap();
            for j in 0..k {
                let a: &[MlKem; 256] = a_hat[256 * (i * k + j)..][..256].try_into().unwrap();
                let s: &[MlKem; 256] = ours_s_hat[256 * j..][..256].try_into().unwrap();
                let product = multiply_ntts(a, s);
                acc.iter_mut().zip(product).for_each(|(x, p)| *x += p);
            }
            assert_eq!(
                &acc[..],
                &t_hat[256 * i..256 * (i + 1)],
                "t̂[{i}] on {}",
                backend.name()
            );
        }
    }
}

#[test]
fn fast_basemul_equals_fips_203_algorithm_11() {
    use nttfuse::transform::mlkem::{multiply_ntts, multiply_ntts_reference};
    QuickCheck::new().tests(200).quickcheck(
        (|seed: u64| {
            let mut rng = Rng(seed);
            let a: [MlKem; 256] = rng.vec::<MlKem>(256).try_into().unwrap();
            let b: [MlKem; 256] = rng.vec::<MlKem>(256).try_into().unwrap();
            let worst = [MlKem::new(3328); 256];
            multiply_ntts(&a, &b) == multiply_ntts_reference(&a, &b)
                && multiply_ntts(&worst, &worst) == multiply_ntts_reference(&worst, &worst)
        }) as fn(u64) -> bool,
    );
}

#[test]
fn gammas_are_fips_203s() {
    // FIPS 203 Appendix A: γ_0 = 17, γ_1 = −17, γ_2 = 2761; pairs are ±.
    let g = nttfuse::transform::mlkem::gammas();
    assert_eq!([g[0], g[1], g[2]].map(|x| x.value()), [17, 3312, 2761]);
    for i in 0..64 {
        assert_eq!(g[2 * i + 1], -g[2 * i]);
    }
}

/// Every plan over a lattice field, on every planner (each SIMD backend
/// forced, the detected one, scalar), under roomy and tiny budgets and an
/// overridden register count: either a plan whose output equals the
/// definition, or — only on a forced SIMD backend whose kernels would not
/// run any of its groups — a typed refusal. Covers the cyclic DFTs and
/// coset encodes the two-adicity allows (ML-DSA up to 2^13), where a
/// whole-polynomial block can follow a gathered pass.
#[test]
fn every_lattice_plan_is_exact_or_refused() {
    fn check<F: Kernels + TwoAdicField>(spec: Transform<F>, seed: u64) {
        let input = Rng(seed).vec::<F>(spec.input_len().unwrap());
        let expected = reference::evaluate(&spec, &input).unwrap();
        let mut squeezed = roomy();
        squeezed.register_values = Some(8);
        for budgets in [roomy(), tiny(), squeezed] {
            let mut planners = every_planner::<F>(budgets);
            planners.push(Planner::new().budgets(budgets).backend(Backend::Scalar));
            for planner in planners {
                let plan = match planner.plan(&spec) {
                    Ok(plan) => plan,
                    Err(Error::BackendUnavailable { reason, .. }) => {
                        assert!(reason.contains("whole polynomials"), "{reason}");
                        continue;
                    }
                    Err(e) => panic!("{e}"),
                };
                let mut out = vec![F::zero(); plan.len()];
                plan.execute_from(&input, &mut out).unwrap();
                assert_eq!(out, expected, "{spec:?}\n{plan}");
                let whole = plan.to_string().contains("whole block");
                assert!(
                    plan.backend() == Backend::Scalar || whole,
                    "a SIMD lattice plan without a whole-block group:\n{plan}"
                );
            }
        }
    }
    check(Transform::<MlKem>::negacyclic_forward().batch(3), 1);
    check(Transform::<MlKem>::negacyclic_inverse().lanes(2), 2);
    check(Transform::<MlKem>::dft(8), 3);
    for log_n in 8..=13 {
        check(Transform::<MlDsa>::dft(log_n), 4);
        check(Transform::<MlDsa>::idft(log_n).batch(2), 5);
        let shift = MlDsa::new(10);
        check(
            Transform::<MlDsa>::dft_encode(log_n, LogBlowup(log_n - 8), shift),
            6,
        );
    }
    check(Transform::<MlDsa>::negacyclic_forward().lanes(3), 7);
    check(Transform::<MlDsa>::negacyclic_inverse(), 8);
}

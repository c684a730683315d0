//! Bad input gets a typed error with a clear message, never a panic.

use crate::common::*;
use nttfuse::*;

fn plan_err<F: Kernels>(spec: Transform<F>) -> Error {
    planner(roomy(), 1)
        .plan(&spec)
        .expect_err("planning should fail")
}

#[test]
fn wrong_data_length_names_both_lengths() {
    let plan = planner(roomy(), 1)
        .plan(&Transform::<BabyBear>::dft(4).lanes(3))
        .unwrap();
    for len in [0, 47, 49, 96] {
        let mut data = vec![BabyBear::ZERO; len];
        let err = plan.execute(&mut data).unwrap_err();
        assert_eq!(
            err,
            Error::LengthMismatch {
                what: "data",
                expected: 48,
                got: len
            }
        );
        assert!(
            err.to_string().contains(&format!("{len} elements")) && err.to_string().contains("48")
        );
    }
    let mut out = vec![BabyBear::ZERO; 48];
    assert!(matches!(
        plan.execute_from(&[BabyBear::ZERO; 47], &mut out),
        Err(Error::LengthMismatch {
            what: "input",
            expected: 48,
            got: 47
        })
    ));
    assert!(matches!(
        plan.execute_from(&[BabyBear::ZERO; 48], &mut out[..40]),
        Err(Error::LengthMismatch {
            what: "output",
            expected: 48,
            got: 40
        })
    ));
}

#[test]
fn encode_message_length_is_checked() {
    let plan = planner(roomy(), 1)
        .plan(&Transform::<Gf2_64>::additive_encode(5, LogBlowup(2)).lanes(2))
        .unwrap();
    assert_eq!(plan.input_len(), 16);
    let mut out = vec![Gf2_64::ZERO; 64];
    assert!(matches!(
        plan.execute_from(&[Gf2_64::ZERO; 64], &mut out),
        Err(Error::LengthMismatch {
            what: "input",
            expected: 16,
            got: 64
        })
    ));
}

#[test]
fn size_not_a_power_of_two() {
    assert_eq!(
        plan_err(Transform::<BabyBear>::dft_of_len(12)),
        Error::NotPowerOfTwo { len: 12 }
    );
    assert_eq!(
        plan_err(Transform::<BabyBear>::idft_of_len(0)),
        Error::NotPowerOfTwo { len: 0 }
    );
    assert!(planner(roomy(), 1)
        .plan(&Transform::<BabyBear>::dft_of_len(16))
        .is_ok());
}

#[test]
fn size_beyond_the_field() {
    assert_eq!(
        plan_err(Transform::<BabyBear>::dft(28)),
        Error::SizeTooLarge {
            field: "BabyBear",
            log_n: 28,
            max_log_n: 27
        }
    );
    assert_eq!(
        plan_err(Transform::<Gf2_64>::additive_ntt(64)),
        Error::SizeTooLarge {
            field: "Gf2_64",
            log_n: 64,
            max_log_n: 63
        }
    );
    assert!(matches!(
        plan_err(Transform::<MlKem>::dft(9)),
        Error::SizeTooLarge { max_log_n: 8, .. }
    ));
    assert!(plan_err(Transform::<BabyBear>::dft(28))
        .to_string()
        .contains("beyond BabyBear's limit of 2^27"));
}

#[test]
fn zero_lanes_or_batch() {
    assert_eq!(
        plan_err(Transform::<BabyBear>::dft(4).lanes(0)),
        Error::ZeroLanes
    );
    assert_eq!(
        plan_err(Transform::<MlKem>::negacyclic_forward().batch(0)),
        Error::ZeroBatch
    );
}

#[test]
fn sizes_that_overflow_memory() {
    assert!(matches!(
        plan_err(Transform::<Gf2_64>::additive_ntt(60).lanes(1 << 10)),
        Error::SizeOverflow { .. }
    ));
    assert!(matches!(
        plan_err(Transform::<BabyBear>::dft(20).lanes(usize::MAX / 2)),
        Error::SizeOverflow { .. }
    ));
}

#[test]
fn rate_leaving_no_layer() {
    assert_eq!(
        plan_err(Transform::<Gf2_64>::additive_encode(4, LogBlowup(5))),
        Error::RateTooHigh {
            log_inv_rate: 5,
            log_n: 4
        }
    );
    assert!(matches!(
        plan_err(Transform::<Gf2_64>::additive_encode(4, LogBlowup(9))),
        Error::RateTooHigh { .. }
    ));
    assert!(matches!(
        plan_err(Transform::<Gf2_64>::additive_ntt(3).from_layer(3)),
        Error::RateTooHigh { .. }
    ));
}

#[test]
fn order_on_a_fixed_order_transform() {
    assert!(matches!(
        plan_err(Transform::<MlKem>::negacyclic_forward().order(Order::BitReversed)),
        Error::Unsupported { .. }
    ));
}

#[test]
fn forced_backend_the_cpu_or_field_lacks() {
    // BabyBear4 has no SIMD kernels (its data runs through a BabyBear plan
    // over 4 × the lanes): refused whatever the CPU.
    for backend in [Backend::Avx512, Backend::Avx2, Backend::Neon] {
        let err = Planner::new()
            .backend(backend)
            .plan(&Transform::<BabyBear4>::dft(4))
            .unwrap_err();
        assert!(matches!(err, Error::BackendUnavailable { .. }), "{err}");
        assert!(err.to_string().contains(backend.name()));
    }
    // A backend this CPU lacks is refused for every field.
    let foreign = if cfg!(target_arch = "x86_64") {
        Backend::Neon
    } else {
        Backend::Avx512
    };
    let err = Planner::new()
        .backend(foreign)
        .plan(&Transform::<MlKem>::negacyclic_forward())
        .unwrap_err();
    assert!(err.to_string().contains("CPU lacks"), "{err}");
    // AVX2 runs the lattice NTTs where the CPU has it (its ring kernels),
    // and is refused where it lacks it.
    let avx2 = Planner::new()
        .backend(Backend::Avx2)
        .plan(&Transform::<MlKem>::negacyclic_forward());
    match Backend::Avx2.check::<MlKem>() {
        Ok(_) => assert_eq!(avx2.unwrap().backend(), Backend::Avx2),
        Err(e) => assert_eq!(avx2.unwrap_err(), e),
    }
    assert!(Planner::new()
        .backend(Backend::Scalar)
        .plan(&Transform::<BabyBear>::dft(4))
        .is_ok());
}

#[test]
fn lattice_simd_backends_refuse_what_their_kernels_do_not_run() {
    // The lattice SIMD kernels hold whole polynomials one after another:
    // polynomials interleaved across lanes, or a plain cyclic DFT over the
    // lattice field, would run only portable code. Forced, that is an error
    // naming the way out; detected, the plan says scalar.
    let across_lanes = Transform::<MlKem>::negacyclic_forward().lanes(2);
    let cyclic = Transform::<MlKem>::dft(8);
    for backend in simd_backends::<MlKem>() {
        let err = Planner::new()
            .backend(backend)
            .plan(&across_lanes)
            .unwrap_err();
        assert!(matches!(err, Error::BackendUnavailable { .. }), "{err}");
        assert!(err.to_string().contains("use batch"), "{err}");
        assert!(Planner::new()
            .backend(backend)
            .plan(&Transform::<MlKem>::negacyclic_inverse().batch(2))
            .is_ok());
    }
    for backend in simd_backends::<MlKem>() {
        let err = Planner::new().backend(backend).plan(&cyclic).unwrap_err();
        assert!(matches!(err, Error::BackendUnavailable { .. }), "{err}");
    }
    assert_eq!(
        Planner::new().plan(&across_lanes).unwrap().backend(),
        Backend::Scalar
    );
    assert_eq!(
        Planner::new().plan(&cyclic).unwrap().backend(),
        Backend::Scalar
    );
    // An ML-DSA cyclic DFT of 2^8 has the NTT's eight layers: the
    // whole-polynomial kernels run it, and get it right.
    let spec = Transform::<MlDsa>::dft(8).batch(2);
    let input = Rng(5).vec::<MlDsa>(512);
    let expected = reference::evaluate(&spec, &input).unwrap();
    for backend in simd_backends::<MlDsa>() {
        let plan = Planner::new().backend(backend).plan(&spec).unwrap();
        assert!(
            plan.to_string().contains("whole block") && plan.to_string().contains("inside them"),
            "{plan}"
        );
        let mut out = vec![MlDsa::ZERO; 512];
        plan.execute_from(&input, &mut out).unwrap();
        assert_eq!(out, expected, "{backend:?}");
    }
}

#[test]
fn zero_threads() {
    assert!(matches!(
        Planner::new()
            .threads(Threads::Count(0))
            .plan(&Transform::<BabyBear>::dft(4)),
        Err(Error::Threads { .. })
    ));
}

#[test]
fn hostile_parameters_never_panic() {
    let result = std::panic::catch_unwind(|| {
        // Valid huge sizes (2^27 BabyBear, 2^28 Gf2_64) are left out: they plan
        // fine and their twiddle tables are as large as one column.
        for lanes in [0usize, 1, 3, usize::MAX] {
            for rate in [0u32, 1, 63, u32::MAX] {
                for log_n in [0u32, 1, 64, 65, 200, u32::MAX] {
                    let _ = planner(roomy(), 1).plan(
                        &Transform::<Gf2_64>::additive_encode(log_n, LogBlowup(rate)).lanes(lanes),
                    );
                    let _ = planner(roomy(), 1).plan(
                        &Transform::<Gf2_64>::additive_intt(log_n)
                            .from_layer(rate)
                            .lanes(lanes),
                    );
                }
                for log_n in [0u32, 1, 28, 31, 64, 200, u32::MAX] {
                    let _ = planner(roomy(), 1).plan(
                        &Transform::<BabyBear>::dft(log_n)
                            .lanes(lanes)
                            .batch(rate as usize),
                    );
                    let _ = Transform::<BabyBear>::idft(log_n).lanes(lanes).input_len();
                }
            }
        }
    });
    assert!(result.is_ok());
}

#[test]
fn in_place_lane_major_input_needs_execute_from() {
    let spec = Transform::<Gf2_64>::additive_encode(6, LogBlowup(1))
        .lanes(4)
        .lane_major_input();
    let plan = Planner::new().plan(&spec).unwrap();
    let mut data = vec![Gf2_64::ZERO; plan.len()];
    let mut scratch = vec![Gf2_64::ZERO; plan.scratch_len()];
    for result in [
        plan.execute(&mut data),
        plan.execute_with_scratch(&mut data, &mut scratch),
    ] {
        match result {
            Err(Error::Unsupported { what }) => assert!(what.contains("lane-major"), "{what}"),
            other => panic!("expected Unsupported, got {other:?}"),
        }
    }
    // One lane is the same either way, so it runs in place.
    let one = Planner::new()
        .plan(&Transform::<Gf2_64>::additive_encode(6, LogBlowup(1)).lane_major_input())
        .unwrap();
    let mut data = vec![Gf2_64::ONE; one.len()];
    assert!(one.execute(&mut data).is_ok());
}

/// Blowup 2^0 plans (as Plonky3 allows it): in bit-reversed order it is
/// the first half of the blowup-2 LDE's rows (the points whose reversed
/// index is even, g·⟨ω_n⟩).
#[test]
fn coset_lde_with_no_blowup_is_the_first_half_of_a_blowup_of_two() {
    let spec = |b| {
        Transform::coset_lde(4, LogBlowup(b))
            .shift(BabyBear::new(31))
            .lanes(2)
            .order(Order::BitReversed)
    };
    let input = Rng(3).vec::<BabyBear>(32);
    let run = |b| {
        let plan = Planner::new().plan(&spec(b)).unwrap();
        let mut out = vec![BabyBear::ZERO; plan.len()];
        plan.execute_from(&input, &mut out).unwrap();
        out
    };
    assert_eq!(run(0), run(1)[..32]);
}

#[test]
fn coset_lde_of_one_row_is_unsupported() {
    let planner = Planner::new();
    for (log_n, blowup) in [(0, 1), (0, 3), (0, 0)] {
        let err = planner
            .plan(
                &Transform::coset_lde(log_n, LogBlowup(blowup))
                    .shift(BabyBear::new(31))
                    .lanes(2)
                    .order(Order::BitReversed),
            )
            .err()
            .unwrap_or_else(|| panic!("log n {log_n}, blowup {blowup}: accepted"));
        assert!(
            matches!(err, Error::Unsupported { .. }),
            "log n {log_n}, blowup {blowup}: {err}"
        );
    }
}

#[test]
fn short_scratch_says_it_is_a_minimum() {
    let plan = Planner::new()
        .budgets(Budgets::fixed(1 << 10, 2 << 10, 16 << 10))
        .plan(&Transform::<BabyBear>::dft(12).lanes(8))
        .expect("plan");
    assert!(plan.scratch_len() > 0, "small budgets make a gathered pass");
    let mut data = vec![BabyBear::ONE; plan.len()];
    let mut scratch = vec![BabyBear::ZERO; plan.scratch_len() - 1];
    let err = plan
        .execute_with_scratch(&mut data, &mut scratch)
        .expect_err("short scratch");
    assert!(err.to_string().contains("at least"), "{err}");
}

#[test]
#[should_panic(expected = "must return canonical values")]
fn lattice_group_on_its_own_must_return_canonical_values() {
    let twiddles = [MlKem::prepare_twiddle(MlKem::ONE)];
    let group = one_layer_group(&twiddles, false);
    let mut buf = vec![MlKem::new(0), MlKem::new(1)];
    let _ = Backend::Scalar.run_group(&mut buf, &group);
}

#[test]
#[should_panic(expected = "not a power of two")]
fn reference_dft_refuses_a_length_that_is_not_a_power_of_two() {
    let _ = reference::dft(&[BabyBear::ONE; 3]);
}

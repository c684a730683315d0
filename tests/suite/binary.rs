//! Binary fields: the Cantor basis, GF(2^192) as a cubic extension running on
//! the GF(2^64) path, and known answers.

use crate::common::*;
use nttfuse::*;
use quickcheck::QuickCheck;

fn hex(values: &[u64]) -> Vec<Gf2_64> {
    values.iter().map(|&v| Gf2_64::new(v)).collect()
}

#[test]
fn cantor_basis_known_values() {
    let basis = Gf2_64::cantor_basis(64);
    assert_eq!(
        basis[..4].iter().map(|v| v.bits()).collect::<Vec<_>>(),
        [
            0x1,
            0x19c9369f278adc03,
            0xb848d14948d52b97,
            0xe5f0921e86ad769e
        ]
    );
    for i in 1..64 {
        assert_eq!(basis[i] * basis[i] + basis[i], basis[i - 1], "v_{i}");
    }
}

#[test]
fn cantor_basis_known_answer() {
    let spec = Transform::<Gf2_64>::additive_ntt(3).basis(Basis::Cantor);
    let input = hex(&[1, 2, 3, 4, 5, 6, 7, 8]);
    let expected = hex(&[
        0x1,
        0x3,
        0x54b6b742d13ec808,
        0x54b6b742d13ec80e,
        0x972c295230dc2092,
        0x3e4147d792a1b082,
        0xd36d3c41cb0aa233,
        0x7a0052c46977322f,
    ]);
    assert_eq!(reference::evaluate(&spec, &input).unwrap(), expected);
    for backend in [Backend::Scalar, Backend::Avx512, Backend::Avx2] {
        if let Ok(plan) = Planner::new().backend(backend).plan(&spec) {
            let mut data = input.clone();
            plan.execute(&mut data).unwrap();
            assert_eq!(data, expected, "{}", backend.name());
        }
    }
}

#[test]
fn cantor_transforms_equal_the_definition_and_invert() {
    QuickCheck::new().tests(30).quickcheck(
        (|seed: u64, log_n: u8, lanes: u8, rate: u8| {
            let log_n = 1 + log_n as u32 % 9;
            let lanes = 1 + lanes as usize % 9;
            let rate = rate as u32 % log_n;
            let shift = Gf2_64::new(seed.rotate_left(7));
            let forward = Transform::<Gf2_64>::additive_encode(log_n, LogBlowup(rate))
                .basis(Basis::Cantor)
                .shift(shift)
                .lanes(lanes);
            let input = Rng(seed).vec::<Gf2_64>(forward.input_len().unwrap());
            let planner = planner(tiny(), 1);
            let codeword = run(&planner, &forward, &input);
            let ntt = Transform::<Gf2_64>::additive_ntt(log_n)
                .basis(Basis::Cantor)
                .lanes(lanes);
            let intt = Transform::<Gf2_64>::additive_intt(log_n)
                .basis(Basis::Cantor)
                .lanes(lanes);
            let x = Rng(seed ^ 5).vec::<Gf2_64>(ntt.input_len().unwrap());
            codeword == reference::evaluate(&forward, &input).unwrap()
                && run(&planner, &intt, &run(&planner, &ntt, &x)) == x
        }) as fn(u64, u8, u8, u8) -> bool,
    );
}

fn gf2_192(rng: &mut Rng) -> Gf2_192 {
    Gf2_192::new(
        Gf2_64::new(rng.next()),
        Gf2_64::new(rng.next()),
        Gf2_64::new(rng.next()),
    )
}

#[test]
fn gf2_192_is_a_field() {
    QuickCheck::new().tests(300).quickcheck(
        (|seed: u64| {
            let mut rng = Rng(seed);
            let (a, b, c) = (gf2_192(&mut rng), gf2_192(&mut rng), gf2_192(&mut rng));
            a * b == b * a
                && (a * b) * c == a * (b * c)
                && a * (b + c) == a * b + a * c
                && a * Gf2_192::ONE == a
                && a.inverse().is_none_or(|i| i * a == Gf2_192::ONE)
        }) as fn(u64) -> bool,
    );
    // y³ = y + 1.
    let y = Gf2_192::new(Gf2_64::ZERO, Gf2_64::ONE, Gf2_64::ZERO);
    assert_eq!(y * y * y, y + Gf2_192::ONE);
}

#[test]
fn gf2_192_encode_runs_on_the_gf2_64_path_over_three_times_the_lanes() {
    for (log_n, rate, lanes, basis) in [
        (6u32, 1u32, 2usize, Basis::Standard),
        (8, 4, 3, Basis::Cantor),
        (5, 0, 1, Basis::Standard),
    ] {
        let mut rng = Rng(log_n as u64);
        let ext = Transform::<Gf2_192>::additive_encode(log_n, LogBlowup(rate))
            .basis(basis)
            .lanes(lanes);
        let message: Vec<Gf2_192> = (0..ext.input_len().unwrap())
            .map(|_| gf2_192(&mut rng))
            .collect();
        // The definition, evaluated with GF(2^192) arithmetic.
        let expected = reference::evaluate(&ext, &message).unwrap();
        // The GF(2^64) plan over 3 × lanes, on the same memory.
        let base = Transform::<Gf2_64>::additive_encode(log_n, LogBlowup(rate))
            .basis(basis)
            .lanes(3 * lanes);
        for backend in [Backend::Scalar, Backend::Avx512, Backend::Avx2] {
            let Ok(plan) = Planner::new().backend(backend).budgets(tiny()).plan(&base) else {
                continue;
            };
            let mut codeword = vec![Gf2_192::ZERO; expected.len()];
            plan.execute_from(
                Gf2_192::as_base_slice(&message),
                Gf2_192::as_base_slice_mut(&mut codeword),
            )
            .unwrap();
            assert_eq!(codeword, expected, "{}", backend.name());
        }
    }
}

/// A pruned additive NTT (only the first 2^(log n − k) outputs kept) equals
/// the prefix of the full transform and the definition, shifted or not, in
/// either basis, lane-major or not, on every backend and plan shape; an
/// unshifted one never reads the dropped input rows.
#[test]
fn pruned_ntt_equals_the_prefix_of_the_full_one() {
    QuickCheck::new().tests(40).quickcheck(
        (|seed: u64,
          log_n: u8,
          k: u8,
          lanes: u8,
          shifted: bool,
          cantor: bool,
          tiny_budgets: bool| {
            let log_n = log_n as u32 % 11;
            let k = k as u32 % (log_n + 1);
            let lanes = 1 + lanes as usize % 9;
            let basis = if cantor {
                Basis::Cantor
            } else {
                Basis::Standard
            };
            let shift = if shifted {
                Gf2_64::new(seed | 1 << 40)
            } else {
                Gf2_64::ZERO
            };
            let full = Transform::<Gf2_64>::additive_ntt(log_n)
                .basis(basis)
                .shift(shift)
                .lanes(lanes)
                .batch(2);
            let pruned = full.clone().retain_prefix(k);
            let budgets = if tiny_budgets { tiny() } else { roomy() };
            let input = Rng(seed).vec::<Gf2_64>(full.input_len().unwrap());
            let whole = run(&planner(budgets, 1), &full, &input);
            let item = whole.len() / 2;
            let kept = item >> k;
            let expected: Vec<Gf2_64> = whole
                .chunks_exact(item)
                .flat_map(|c| c[..kept].to_vec())
                .collect();
            if reference::evaluate(&pruned, &input).unwrap() != expected {
                return false;
            }
            every_planner::<Gf2_64>(budgets).iter().all(|p| {
                let plan = p.plan(&pruned).unwrap();
                let mut out = vec![Gf2_64::ZERO; plan.len()];
                plan.execute_from(&input, &mut out).unwrap();
                // Unshifted: the dropped input rows are never read.
                let mut poisoned = input.clone();
                if !shifted {
                    for c in poisoned.chunks_exact_mut(item) {
                        c[kept..].iter_mut().for_each(|x| *x = Gf2_64::new(0xdead));
                    }
                }
                let mut out2 = vec![Gf2_64::ZERO; plan.len()];
                plan.execute_from(&poisoned, &mut out2).unwrap();
                let lane_major = p.plan(&pruned.clone().lane_major_input()).unwrap();
                let columns = to_lane_major(&input, lanes, 2);
                let mut out3 = vec![Gf2_64::ZERO; plan.len()];
                lane_major.execute_from(&columns, &mut out3).unwrap();
                out == expected
                    && out2 == expected
                    && out3 == expected
                    && plan.to_string().contains(if shifted && k > 0 {
                        "fold"
                    } else if k > 0 {
                        "prune"
                    } else {
                        ""
                    })
            })
        }) as fn(u64, u8, u8, u8, bool, bool, bool) -> bool,
    );
}

/// A shifted pruned NTT whose fold rides on the first gathered pass's loads
/// equals the prefix of the full transform on every backend and thread
/// count: 1, 3 and 15 fold terms (the SIMD kernels hold 7 coefficients in
/// registers and broadcast the rest at each use), register-filling lanes
/// and not, aligned rows and rows that start mid-register.
#[test]
fn a_fold_on_the_first_pass_loads_matches_the_full_transform() {
    for (log_n, lanes, k) in [(12, 8, 1), (12, 3, 2), (11, 16, 4), (10, 8, 4)] {
        let full = Transform::<Gf2_64>::additive_ntt(log_n)
            .shift(Gf2_64::new(0x1234_5678_9abc_def1))
            .lanes(lanes)
            .batch(2);
        let pruned = full.clone().retain_prefix(k);
        let input = Rng(u64::from(log_n) << 8 | k as u64).vec::<Gf2_64>(full.input_len().unwrap());
        let whole = run(&planner(roomy(), 1), &full, &input);
        let item = whole.len() / 2;
        let expected: Vec<Gf2_64> = whole
            .chunks_exact(item)
            .flat_map(|c| c[..item >> k].to_vec())
            .collect();
        for p in every_planner::<Gf2_64>(tiny()) {
            let plan = p.plan(&pruned).unwrap();
            assert!(
                plan.to_string().contains("done as pass 1 loads its rows"),
                "{plan}"
            );
            // Offset by one element: rows that start mid-register.
            let mut shifted_input = vec![Gf2_64::ZERO; input.len() + 1];
            shifted_input[1..].copy_from_slice(&input);
            for source in [&input[..], &shifted_input[1..]] {
                let mut out = vec![Gf2_64::ZERO; plan.len()];
                plan.execute_from(source, &mut out).unwrap();
                assert!(out == expected, "2^{log_n} × {lanes}, keep 2^-{k}\n{plan}");
            }
        }
    }
}

/// A one-row message (`additive_encode(L, L)`, rate 2^−L) is allowed, as
/// the definition allows: its codeword is the row at every point (X_0 = 1),
/// in and out of place, on every backend; so is the LDE of one row.
#[test]
fn a_one_row_message_encodes_to_its_row_everywhere() {
    for log_n in [0, 1, 5, 9] {
        let spec = Transform::<Gf2_64>::additive_encode(log_n, LogBlowup(log_n))
            .shift(Gf2_64::new(0x77))
            .lanes(3)
            .batch(2);
        let message = Rng(u64::from(log_n)).vec::<Gf2_64>(6);
        let expected: Vec<Gf2_64> = message
            .chunks_exact(3)
            .flat_map(|row| row.repeat(1 << log_n))
            .collect();
        assert_eq!(reference::evaluate(&spec, &message).unwrap(), expected);
        for p in every_planner::<Gf2_64>(roomy()) {
            let plan = p.plan(&spec).unwrap();
            assert_eq!(run(&p, &spec, &message), expected);
            let mut data = vec![Gf2_64::ZERO; plan.len()];
            for (item, row) in data
                .chunks_exact_mut(3 << log_n)
                .zip(message.chunks_exact(3))
            {
                item[..3].copy_from_slice(row);
            }
            plan.execute(&mut data).unwrap();
            assert_eq!(data, expected);
        }
    }
    let lde = Planner::new()
        .plan(&Transform::<Gf2_64>::additive_lde(0, LogBlowup(2)).lanes(2))
        .unwrap();
    let mut out = vec![Gf2_64::ZERO; 8];
    lde.execute_from(&[Gf2_64::new(4), Gf2_64::new(5)], &mut out)
        .unwrap();
    assert_eq!(out, [4, 5, 4, 5, 4, 5, 4, 5].map(Gf2_64::new));
}

/// A pruned encode (the first 2^(log n − k) codeword rows) equals the
/// prefix of the full encode and the definition for every k, below, at and
/// above the rate (where it folds the message), shifted or not, in either
/// basis, on every backend and plan shape; when it keeps fewer rows than the
/// message and the domain is unshifted, the dropped message rows are never
/// read; its plan says what it skips.
#[test]
fn pruned_encode_equals_the_prefix_of_the_full_one() {
    QuickCheck::new().tests(40).quickcheck(
        (|seed: u64,
          log_n: u8,
          r: u8,
          k: u8,
          lanes: u8,
          shifted: bool,
          cantor: bool,
          tiny_budgets: bool| {
            let log_n = log_n as u32 % 11;
            let r = r as u32 % (log_n + 1).min(5);
            let k = k as u32 % (log_n + 1);
            let lanes = 1 + lanes as usize % 3;
            let basis = if cantor {
                Basis::Cantor
            } else {
                Basis::Standard
            };
            let shift = if shifted {
                Gf2_64::new(seed | 1 << 40)
            } else {
                Gf2_64::ZERO
            };
            let full = Transform::<Gf2_64>::additive_encode(log_n, LogBlowup(r))
                .basis(basis)
                .shift(shift)
                .lanes(lanes)
                .batch(2);
            let pruned = full.clone().retain_prefix(k);
            let budgets = if tiny_budgets { tiny() } else { roomy() };
            let input = Rng(seed).vec::<Gf2_64>(full.input_len().unwrap());
            let whole = run(&planner(budgets, 1), &full, &input);
            let (item, message) = (whole.len() / 2, input.len() / 2);
            let kept = item >> k;
            let expected: Vec<Gf2_64> = whole
                .chunks_exact(item)
                .flat_map(|c| c[..kept].to_vec())
                .collect();
            if reference::evaluate(&pruned, &input).unwrap() != expected {
                return false;
            }
            every_planner::<Gf2_64>(budgets).iter().all(|p| {
                let plan = p.plan(&pruned).unwrap();
                let mut out = vec![Gf2_64::ZERO; plan.len()];
                plan.execute_from(&input, &mut out).unwrap();
                let mut poisoned = input.clone();
                if !shifted && kept < message / lanes * lanes {
                    for c in poisoned.chunks_exact_mut(message) {
                        c[kept..].iter_mut().for_each(|x| *x = Gf2_64::new(0xdead));
                    }
                }
                let mut out2 = vec![Gf2_64::ZERO; plan.len()];
                plan.execute_from(&poisoned, &mut out2).unwrap();
                let text = plan.to_string();
                out == expected
                    && out2 == expected
                    && (k == 0 || text.contains("% saved)"))
                    && Plan::<Gf2_64>::from_text(&text).is_ok_and(|again| again == plan)
            })
        }) as fn(u64, u8, u8, u8, u8, bool, bool, bool) -> bool,
    );
}

#[test]
fn pruning_errors() {
    let err = |spec: Transform<Gf2_64>| planner(roomy(), 1).plan(&spec).err();
    assert!(matches!(
        err(Transform::additive_ntt(4).retain_prefix(5)),
        Some(Error::Unsupported { .. })
    ));
    assert!(matches!(
        err(Transform::additive_intt(4).retain_prefix(1)),
        Some(Error::Unsupported { .. })
    ));
    assert!(matches!(
        err(Transform::additive_ntt(6).from_layer(1).retain_prefix(1)),
        Some(Error::Unsupported { .. })
    ));
    assert!(matches!(
        err(Transform::additive_encode(6, LogBlowup(1)).retain_prefix(7)),
        Some(Error::Unsupported { .. })
    ));
    // An encode keeps any prefix down to one row.
    let one_row = planner(roomy(), 1)
        .plan(&Transform::<Gf2_64>::additive_encode(6, LogBlowup(1)).retain_prefix(6))
        .unwrap();
    assert_eq!((one_row.input_len(), one_row.len()), (32, 1));
    let plan = planner(roomy(), 1)
        .plan(&Transform::<Gf2_64>::additive_ntt(6).retain_prefix(2))
        .unwrap();
    assert_eq!((plan.input_len(), plan.len()), (64, 16));
    let mut data = vec![Gf2_64::ZERO; 64];
    assert!(matches!(
        plan.execute(&mut data),
        Err(Error::Unsupported { .. })
    ));
    let mut short = vec![Gf2_64::ZERO; 15];
    assert!(matches!(
        plan.execute_from(&data, &mut short),
        Err(Error::LengthMismatch { .. })
    ));
}

/// The additive LDE equals the inverse NTT followed by the encode (and, for
/// small shapes, the definition), at every rate, in either basis, on every
/// backend and plan shape; at rate ½ its first half is the input itself.
#[test]
fn additive_lde_equals_intt_then_encode() {
    QuickCheck::new().tests(40).quickcheck(
        (|seed: u64, log_n: u8, log_blowup: u8, lanes: u8, cantor: bool, tiny_budgets: bool| {
            let log_n = 1 + log_n as u32 % 10;
            let log_blowup = 1 + log_blowup as u32 % 3;
            let lanes = 1 + lanes as usize % 9;
            let basis = if cantor {
                Basis::Cantor
            } else {
                Basis::Standard
            };
            let budgets = if tiny_budgets { tiny() } else { roomy() };
            let evals = Rng(seed).vec::<Gf2_64>(lanes << log_n);
            let intt = Transform::<Gf2_64>::additive_intt(log_n)
                .basis(basis)
                .lanes(lanes);
            let encode =
                Transform::<Gf2_64>::additive_encode(log_n + log_blowup, LogBlowup(log_blowup))
                    .basis(basis)
                    .lanes(lanes);
            let coefficients = run(&planner(budgets, 1), &intt, &evals);
            let expected = run(&planner(budgets, 1), &encode, &coefficients);
            if log_n + log_blowup <= 7 {
                let naive = reference::evaluate(&intt, &evals).unwrap();
                if reference::evaluate(&encode, &naive).unwrap() != expected {
                    return false;
                }
            }
            every_planner::<Gf2_64>(budgets).iter().all(|p| {
                let lde = p
                    .plan(
                        &Transform::<Gf2_64>::additive_lde(log_n, LogBlowup(log_blowup))
                            .basis(basis)
                            .lanes(lanes),
                    )
                    .unwrap();
                let mut out = vec![Gf2_64::new(0xdead); lde.len()];
                lde.execute_from(&evals, &mut out).unwrap();
                // In place, over garbage past the evaluations.
                let mut data = evals.clone();
                data.resize(lde.len(), Gf2_64::new(0xbeef));
                lde.execute(&mut data).unwrap();
                // Systematic: the inverse NTT's last pass and the coset
                // NTT's first tile alike, so the fused plan saves a sweep.
                let fused = lde.plans()[0].cost().sweeps;
                let apart = p.plan(&intt).unwrap().cost().sweeps
                    + p.plan(
                        &Transform::<Gf2_64>::additive_ntt(log_n)
                            .basis(basis)
                            .lanes(lanes),
                    )
                    .unwrap()
                    .cost()
                    .sweeps;
                let sweeps_ok = log_blowup > 1 || fused + 1 == apart;
                lde.input_len() == evals.len()
                    && sweeps_ok
                    && lde.is_fused() == lde.to_string().contains("run as one")
                    && lde.scratch_len() >= lde.plans()[0].scratch_len()
                    && out == expected
                    && data == expected
                    && out[..evals.len()] == evals[..]
                    && lde.copies_input() == (log_blowup == 1)
                    && lde.to_string().contains(if log_blowup == 1 {
                        "systematic"
                    } else {
                        "encode in place"
                    })
            })
        }) as fn(u64, u8, u8, u8, bool, bool) -> bool,
    );
}

/// At rates below ½ with small budgets, the inverse NTT's last pass and the
/// encode's first run as one pass; the result equals the two plans run
/// apart, on every backend this CPU runs, on 1 and 2 threads.
#[test]
fn fused_additive_lde_equals_its_two_plans() {
    let mut fused = 0;
    for (log_n, lanes, log_blowup) in [(10u32, 1usize, 2u32), (10, 3, 3), (9, 8, 2), (11, 2, 4)] {
        for basis in [Basis::Standard, Basis::Cantor] {
            let evals = Rng(u64::from(log_n * 16 + log_blowup)).vec::<Gf2_64>(lanes << log_n);
            let reference_planner = planner(roomy(), 1);
            let coefficients = run(
                &reference_planner,
                &Transform::<Gf2_64>::additive_intt(log_n)
                    .basis(basis)
                    .lanes(lanes),
                &evals,
            );
            let expected = run(
                &reference_planner,
                &Transform::<Gf2_64>::additive_encode(log_n + log_blowup, LogBlowup(log_blowup))
                    .basis(basis)
                    .lanes(lanes),
                &coefficients,
            );
            for backend in [
                Backend::Scalar,
                Backend::Avx512,
                Backend::Avx2,
                Backend::Neon,
            ] {
                for threads in [1, 2] {
                    let Ok(lde) = Planner::new()
                        .backend(backend)
                        .threads(Threads::Count(threads))
                        .budgets(tiny())
                        .plan(
                            &Transform::<Gf2_64>::additive_lde(log_n, LogBlowup(log_blowup))
                                .basis(basis)
                                .lanes(lanes),
                        )
                    else {
                        continue;
                    };
                    let what = format!(
                        "2^{log_n} × {lanes} rate 2^-{log_blowup} {basis:?} {} {threads} threads",
                        backend.name()
                    );
                    let mut out = vec![Gf2_64::new(0xdead); lde.len()];
                    lde.execute_from(&evals, &mut out).unwrap();
                    assert!(out == expected, "{what}");
                    let mut data = evals.clone();
                    data.resize(lde.len(), Gf2_64::new(0xbeef));
                    lde.execute(&mut data).unwrap();
                    assert!(data == expected, "{what}, in place");
                    fused += usize::from(lde.is_fused());
                }
            }
        }
    }
    assert!(
        fused >= 8,
        "only {fused} fused additive LDE plans were checked"
    );
}

/// Pruned LDEs: the first 2^(log n + b − k) rows of the LDE, computed as
/// the LDE at blowup b − k, equal the prefix of the full one (additive, and
/// the coset LDE's bit-reversed output), in and out of place, on every
/// backend; the plan says what it skips; the cases with nothing to skip are
/// typed errors.
#[test]
fn pruned_ldes_equal_the_prefix_of_the_full_one() {
    for budgets in [roomy(), tiny()] {
        for p in every_planner::<Gf2_64>(budgets) {
            for (log_n, b, lanes) in [(3, 2, 1), (6, 3, 2), (9, 2, 3)] {
                for k in 1..b {
                    let full = Transform::<Gf2_64>::additive_lde(log_n, LogBlowup(b))
                        .basis(Basis::Cantor)
                        .lanes(lanes);
                    let input = Rng(u64::from(log_n + k)).vec::<Gf2_64>(lanes << log_n);
                    let whole = p.plan(&full).unwrap();
                    let mut expected = vec![Gf2_64::ZERO; whole.len()];
                    whole.execute_from(&input, &mut expected).unwrap();
                    let pruned = p.plan(&full.clone().retain_prefix(k)).unwrap();
                    assert_eq!(pruned.len(), expected.len() >> k);
                    assert!(pruned.to_string().starts_with("prune      keeps"));
                    let mut out = vec![Gf2_64::ZERO; pruned.len()];
                    pruned.execute_from(&input, &mut out).unwrap();
                    assert!(out[..] == expected[..out.len()], "{pruned}");
                    let mut data = input.clone();
                    data.resize(pruned.len(), Gf2_64::ZERO);
                    pruned.execute(&mut data).unwrap();
                    assert!(data == out);
                }
            }
        }
        for p in every_planner::<BabyBear>(budgets) {
            for (log_n, b, lanes) in [(3, 1, 1), (6, 3, 2), (9, 2, 3)] {
                for k in 1..=b {
                    let full = Transform::<BabyBear>::coset_lde(log_n, LogBlowup(b))
                        .order(Order::BitReversed)
                        .lanes(lanes);
                    let input = Rng(u64::from(log_n + k)).vec::<BabyBear>(lanes << log_n);
                    let whole = p.plan(&full).unwrap();
                    let mut expected = vec![BabyBear::ZERO; whole.len()];
                    whole.execute_from(&input, &mut expected).unwrap();
                    let pruned = p.plan(&full.clone().retain_prefix(k)).unwrap();
                    let mut out = vec![BabyBear::ZERO; pruned.len()];
                    pruned.execute_from(&input, &mut out).unwrap();
                    assert_eq!(out.len(), expected.len() >> k);
                    assert!(out[..] == expected[..out.len()], "{pruned}");
                }
            }
        }
    }
    fn refused<F: Kernels>(e: Result<LdePlan<F>, Error>) -> bool {
        matches!(e, Err(Error::Unsupported { .. }))
    }
    let p = Planner::new();
    assert!(refused(p.plan(
        &Transform::<Gf2_64>::additive_lde(5, LogBlowup(2)).retain_prefix(2)
    )));
    let coset = Transform::<BabyBear>::coset_lde(5, LogBlowup(2));
    assert!(refused(p.plan(&coset.clone().retain_prefix(1))));
    assert!(refused(
        p.plan(&coset.order(Order::BitReversed).retain_prefix(3))
    ));
}

#[test]
fn additive_lde_errors() {
    let p = planner(roomy(), 1);
    let lde = |log_n, log_blowup, lanes| {
        p.plan(
            &Transform::<Gf2_64>::additive_lde(log_n, LogBlowup(log_blowup))
                .basis(Basis::Standard)
                .lanes(lanes),
        )
        .err()
    };
    assert!(matches!(lde(4, 0, 1), Some(Error::Unsupported { .. })));
    assert!(matches!(lde(60, 4, 1), Some(Error::SizeTooLarge { .. })));
    assert!(matches!(
        lde(u32::MAX, 2, 1),
        Some(Error::SizeTooLarge { .. })
    ));
    assert!(matches!(lde(4, 1, 0), Some(Error::ZeroLanes)));
    let plan = p
        .plan(
            &Transform::<Gf2_64>::additive_lde(4, LogBlowup(1))
                .basis(Basis::Standard)
                .lanes(2),
        )
        .unwrap();
    let evals = vec![Gf2_64::ONE; 32];
    let mut short = vec![Gf2_64::ZERO; 63];
    assert!(matches!(
        plan.execute_from(&evals, &mut short),
        Err(Error::LengthMismatch { .. })
    ));
    let mut out = vec![Gf2_64::ZERO; 64];
    assert!(matches!(
        plan.execute_from(&evals[..31], &mut out),
        Err(Error::LengthMismatch { .. })
    ));
    // In place, systematic and not: the buffer is the output's length.
    for log_blowup in [1, 2] {
        let plan = p
            .plan(
                &Transform::<Gf2_64>::additive_lde(4, LogBlowup(log_blowup))
                    .basis(Basis::Standard)
                    .lanes(2),
            )
            .unwrap();
        for len in [0, plan.input_len(), plan.len() - 1, plan.len() + 1] {
            let mut data = vec![Gf2_64::ONE; len];
            assert!(
                matches!(plan.execute(&mut data), Err(Error::LengthMismatch { .. })),
                "length {len}"
            );
        }
    }
}

/// W_i(x) = ∏ over u in span(b_0 … b_(i−1)) of (x − u), by its definition
/// as a product over the subspace: no recursion, nothing shared with the
/// crate's subspace polynomials.
fn subspace_poly_by_product(basis: &[Gf2_64], i: usize, x: Gf2_64) -> Gf2_64 {
    (0..1usize << i)
        .map(|bits| span_point(basis, bits))
        .fold(Gf2_64::ONE, |acc, u| acc * (x + u))
}

/// Σ_k bit_k(bits) · b_k.
fn span_point(basis: &[Gf2_64], bits: usize) -> Gf2_64 {
    (0..usize::BITS as usize)
        .filter(|k| bits >> k & 1 == 1)
        .fold(Gf2_64::ZERO, |acc, k| acc + basis[k])
}

/// The additive NTT by its definition, from subspace polynomials computed as
/// products: with m = 2^(L − r), `out[v] = Σ_(j<m) a[⌊v/m⌋·m + j] · X_j(s + p_v)`,
/// X_j = ∏_(i ∈ bits(j)) W_i / W_i(b_i).
fn additive_by_products(
    input: &[Gf2_64],
    log_n: usize,
    r: usize,
    basis: &[Gf2_64],
    shift: Gf2_64,
) -> Vec<Gf2_64> {
    let m = 1usize << (log_n - r);
    let norms: Vec<Gf2_64> = (0..log_n)
        .map(|i| {
            subspace_poly_by_product(basis, i, basis[i])
                .inverse()
                .expect("W_i(b_i) ≠ 0 for independent b")
        })
        .collect();
    (0..1usize << log_n)
        .map(|v| {
            let x = shift + span_point(basis, v);
            let normalized: Vec<Gf2_64> = (0..log_n - r)
                .map(|i| subspace_poly_by_product(basis, i, x) * norms[i])
                .collect();
            (0..m).fold(Gf2_64::ZERO, |acc, j| {
                let novel = (0..log_n - r)
                    .filter(|i| j >> i & 1 == 1)
                    .fold(Gf2_64::ONE, |p, i| p * normalized[i]);
                acc + input[v / m * m + j] * novel
            })
        })
        .collect()
}

/// The crate's additive NTTs (standard and Cantor basis, shifted or not,
/// from a later layer or not) equal the definition computed from subspace
/// polynomials as plain products over the subspace, on every backend: an
/// oracle independent of the crate's own subspace-polynomial code (which
/// `reference::additive` shares with the twiddle generator).
#[test]
fn additive_ntt_equals_the_definition_from_subspace_products() {
    let log_n = 6u32;
    for basis_kind in [Basis::Standard, Basis::Cantor] {
        let basis: Vec<Gf2_64> = match basis_kind {
            Basis::Standard => (0..log_n).map(|i| Gf2_64::new(1 << i)).collect(),
            _ => Gf2_64::cantor_basis(log_n as usize),
        };
        for shift in [
            Gf2_64::ZERO,
            Gf2_64::new(1 << 40),
            Gf2_64::new(0x9e37_79b9_7f4a_7c15),
        ] {
            for r in [0u32, 2] {
                let spec = Transform::<Gf2_64>::additive_ntt(log_n)
                    .basis(basis_kind)
                    .shift(shift)
                    .from_layer(r)
                    .lanes(3);
                let input = Rng(u64::from(r) + 7).vec::<Gf2_64>(3 << log_n);
                let expected: Vec<Gf2_64> = {
                    let columns: Vec<Vec<Gf2_64>> = (0..3)
                        .map(|c| {
                            let column: Vec<Gf2_64> =
                                input.iter().skip(c).step_by(3).copied().collect();
                            additive_by_products(&column, log_n as usize, r as usize, &basis, shift)
                        })
                        .collect();
                    (0..input.len()).map(|i| columns[i % 3][i / 3]).collect()
                };
                for planner in every_planner::<Gf2_64>(tiny()) {
                    assert_eq!(
                        run(&planner, &spec, &input),
                        expected,
                        "{basis_kind:?} shift {shift:?} from layer {r}"
                    );
                }
            }
        }
    }
}

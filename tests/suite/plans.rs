//! Plans as data: golden files, every shape the planner emits, thread counts.

use crate::common::*;
use nttfuse::*;

/// The budgets golden plans are made for: Zen 5's caches (48 KiB L1d,
/// 1 MiB L2, 32 MiB L3 per CCD), pinned so files do not depend on the machine.
fn zen5() -> Budgets {
    Budgets::fixed(48 << 10, 1 << 20, 32 << 20)
}

/// Compares the plan's text with `plans/<name>.plan`; `UPDATE_PLANS=1`
/// rewrites the file instead.
fn golden<F: Kernels>(name: &str, spec: Transform<F>, budgets: Budgets) {
    golden_on(Backend::Scalar, name, spec, budgets)
}

/// As [`golden`], for plans of a SIMD backend (skipped, and said so, on a
/// CPU without it: the planner refuses a backend it cannot run).
fn golden_on<F: Kernels>(backend: Backend, name: &str, spec: Transform<F>, budgets: Budgets) {
    if backend.check::<F>().is_err() {
        eprintln!(
            "golden plan {name} not checked: this CPU cannot run {}",
            backend.name()
        );
        return;
    }
    let plan = Planner::new()
        .backend(backend)
        .threads(Threads::All)
        .budgets(budgets)
        .plan(&spec)
        .unwrap();
    compare_golden(name, format!("{plan}\n"));
    reads_back(name, &plan);
}

/// The plan's golden text reads back into an equal plan (`Plan::from_text`).
fn reads_back<F: Kernels>(name: &str, plan: &Plan<F>) {
    let path = format!("{}/plans/{name}.plan", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    let again = Plan::<F>::from_text(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert_eq!(&again, plan, "{path} reads back into another plan");
    assert_eq!(format!("{again}\n"), text);
}

/// Compares `text` with `plans/<name>.plan` (or rewrites it, `UPDATE_PLANS=1`).
fn compare_golden(name: &str, text: String) {
    let path = format!("{}/plans/{name}.plan", env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("UPDATE_PLANS").is_some() {
        std::fs::write(&path, &text).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{path}: {e} (run UPDATE_PLANS=1 cargo test to create it)"));
    assert_eq!(
        text, expected,
        "{path} differs from the planner's output (UPDATE_PLANS=1 rewrites it)"
    );
}

#[test]
fn golden_plans_match_the_planner() {
    golden(
        "mlkem_forward_scalar",
        Transform::<MlKem>::negacyclic_forward(),
        zen5(),
    );
    golden(
        "mlkem_inverse_scalar",
        Transform::<MlKem>::negacyclic_inverse(),
        zen5(),
    );
    golden(
        "babybear_dft_2e20x1",
        Transform::<BabyBear>::dft(20),
        zen5(),
    );
    golden(
        "babybear_dft_2e16x256",
        Transform::<BabyBear>::dft(16).lanes(256),
        zen5(),
    );
    golden(
        "babybear_dft_2e12x8_small_budgets",
        Transform::<BabyBear>::dft(12).lanes(8),
        tiny(),
    );
    golden(
        "gf2_64_encode_2e20x8_rate1",
        Transform::<Gf2_64>::additive_encode(20, LogBlowup(1)).lanes(8),
        zen5(),
    );
    golden(
        "gf2_64_encode_2e20x56_rate1",
        Transform::<Gf2_64>::additive_encode(20, LogBlowup(1)).lanes(56),
        zen5(),
    );
    golden(
        "gf2_64_ntt_2e12x8_small_budgets",
        Transform::<Gf2_64>::additive_ntt(12).lanes(8),
        tiny(),
    );
    golden(
        "mldsa_forward_scalar",
        Transform::<MlDsa>::negacyclic_forward(),
        zen5(),
    );
    golden(
        "mldsa_inverse_scalar",
        Transform::<MlDsa>::negacyclic_inverse(),
        zen5(),
    );
}

/// The AVX2 plans of a wide matrix and a single column (the single column
/// ends in a transposed group on 8-lane registers).
#[test]
fn golden_stark_plans_avx2() {
    golden_on(
        Backend::Avx2,
        "babybear_dft_2e16x256_bitrev_avx2",
        Transform::<BabyBear>::dft(16)
            .lanes(256)
            .order(Order::BitReversed),
        zen5(),
    );
    golden_on(
        Backend::Avx2,
        "babybear_dft_2e20x1_bitrev_avx2",
        Transform::<BabyBear>::dft(20).order(Order::BitReversed),
        zen5(),
    );
}

/// The STARK shapes of issue 4 on AVX-512 (LDE plans print both halves).
#[test]
fn golden_stark_plans_avx512() {
    let avx = Backend::Avx512;
    golden_on(
        avx,
        "babybear_dft_2e16x256_bitrev_avx512",
        Transform::<BabyBear>::dft(16)
            .lanes(256)
            .order(Order::BitReversed),
        zen5(),
    );
    golden_on(
        avx,
        "babybear_dft_2e20x1_bitrev_avx512",
        Transform::<BabyBear>::dft(20).order(Order::BitReversed),
        zen5(),
    );
    for (name, log_n, lanes) in [
        ("babybear_lde_2e18x64_blowup2_avx512", 18u32, 64usize),
        ("babybear_lde_2e22x64_blowup2_avx512", 22, 64),
    ] {
        if avx.check::<BabyBear>().is_err() {
            eprintln!("golden plan {name} not checked: this CPU cannot run avx512");
            continue;
        }
        let lde = Planner::new()
            .backend(avx)
            .threads(Threads::All)
            .budgets(zen5())
            .plan(
                &Transform::<BabyBear>::coset_lde(log_n, LogBlowup(1))
                    .shift(BabyBear::new(31))
                    .lanes(lanes)
                    .order(Order::BitReversed),
            )
            .unwrap();
        compare_golden(name, format!("{lde}\n"));
        // Each of its two plans reads back from its section of the text.
        let text =
            std::fs::read_to_string(format!("{}/plans/{name}.plan", env!("CARGO_MANIFEST_DIR")))
                .unwrap();
        let (_, sections) = text.split_once("-- 1 --\n").unwrap();
        let (first, rest) = sections.split_once("-- 2 --\n").unwrap();
        let (second, _) = rest.split_once("\npredicted").unwrap();
        let plans = lde.plans();
        assert_eq!(&Plan::<BabyBear>::from_text(first).unwrap(), plans[0]);
        assert_eq!(&Plan::<BabyBear>::from_text(second).unwrap(), plans[1]);
    }
    // The binary LDE of issue 5's bench (p3-binary-dft's lde_batch shape).
    let name = "gf2_64_lde_2e18x64_rate1_cantor_avx512";
    if avx.check::<Gf2_64>().is_err() {
        eprintln!("golden plan {name} not checked: this CPU cannot run avx512");
    } else {
        let lde = Planner::new()
            .backend(avx)
            .threads(Threads::All)
            .budgets(zen5())
            .plan(
                &Transform::<Gf2_64>::additive_lde(18, LogBlowup(1))
                    .basis(Basis::Cantor)
                    .lanes(64),
            )
            .unwrap();
        compare_golden(name, format!("{lde}\n"));
    }
}

#[test]
fn golden_lattice_plans_per_backend() {
    let avx = Backend::Avx512;
    golden_on(
        avx,
        "mlkem_forward_avx512",
        Transform::<MlKem>::negacyclic_forward(),
        zen5(),
    );
    golden_on(
        avx,
        "mlkem_inverse_avx512",
        Transform::<MlKem>::negacyclic_inverse(),
        zen5(),
    );
    golden_on(
        avx,
        "mlkem_forward_avx512_batch4",
        Transform::<MlKem>::negacyclic_forward().batch(4),
        zen5(),
    );
    golden_on(
        avx,
        "mldsa_forward_avx512",
        Transform::<MlDsa>::negacyclic_forward(),
        zen5(),
    );
    golden_on(
        avx,
        "mldsa_inverse_avx512",
        Transform::<MlDsa>::negacyclic_inverse(),
        zen5(),
    );
    golden_on(
        avx,
        "gf2_64_encode_2e20x8_rate1_avx512",
        Transform::<Gf2_64>::additive_encode(20, LogBlowup(1)).lanes(8),
        zen5(),
    );
    golden_on(
        avx,
        "gf2_64_encode_2e20x56_rate1_avx512",
        Transform::<Gf2_64>::additive_encode(20, LogBlowup(1)).lanes(56),
        zen5(),
    );
    golden_on(
        avx,
        "gf2_192_encode_2e20x16_rate16_avx512",
        Transform::<Gf2_64>::additive_encode(20, LogBlowup(4))
            .basis(Basis::Cantor)
            .lanes(3 * 16),
        zen5(),
    );
    // The KEM modes: lazy output and the permuted NTT order, and the AVX2
    // kernels of CPUs without AVX-512.
    let lazy_permuted =
        |t: Transform<MlKem>| t.reduction(Reduction::Lazy).ntt_order(NttOrder::Permuted);
    golden_on(
        avx,
        "mlkem_forward_lazy_permuted_avx512",
        lazy_permuted(Transform::<MlKem>::negacyclic_forward()),
        zen5(),
    );
    golden_on(
        avx,
        "mlkem_inverse_lazy_permuted_avx512_batch3",
        lazy_permuted(Transform::<MlKem>::negacyclic_inverse()).batch(3),
        zen5(),
    );
    golden_on(
        Backend::Scalar,
        "mlkem_forward_lazy_permuted_scalar",
        lazy_permuted(Transform::<MlKem>::negacyclic_forward()),
        zen5(),
    );
    let avx2 = Backend::Avx2;
    golden_on(
        avx2,
        "mlkem_forward_avx2",
        Transform::<MlKem>::negacyclic_forward(),
        zen5(),
    );
    golden_on(
        avx2,
        "mlkem_inverse_lazy_permuted_avx2",
        lazy_permuted(Transform::<MlKem>::negacyclic_inverse()),
        zen5(),
    );
    golden_on(
        avx2,
        "mldsa_forward_avx2",
        Transform::<MlDsa>::negacyclic_forward(),
        zen5(),
    );
    golden_on(
        avx2,
        "mldsa_inverse_lazy_avx2",
        Transform::<MlDsa>::negacyclic_inverse().reduction(Reduction::Lazy),
        zen5(),
    );
    let neon = Backend::Neon;
    golden_on(
        neon,
        "mlkem_forward_lazy_permuted_neon",
        lazy_permuted(Transform::<MlKem>::negacyclic_forward()),
        zen5(),
    );
    golden_on(
        neon,
        "mlkem_forward_neon",
        Transform::<MlKem>::negacyclic_forward(),
        zen5(),
    );
    golden_on(
        neon,
        "mlkem_inverse_neon",
        Transform::<MlKem>::negacyclic_inverse(),
        zen5(),
    );
    golden_on(
        neon,
        "mldsa_forward_neon",
        Transform::<MlDsa>::negacyclic_forward(),
        zen5(),
    );
    golden_on(
        neon,
        "mldsa_inverse_neon",
        Transform::<MlDsa>::negacyclic_inverse(),
        zen5(),
    );
}

/// What a plan looks like, coarsely: pass kinds in order, and bit reversals.
fn shape<F: Kernels>(plan: &Plan<F>) -> Vec<&'static str> {
    plan.steps()
        .iter()
        .map(|s| match s {
            Step::Pass(p) if p.kind == PassKind::Gathered => "gathered",
            Step::Pass(_) => "deep",
            Step::BitReverse => "bitrev",
        })
        .collect()
}

/// Plans `spec` with `budgets`, checks the shape, and checks the output
/// against one-layer-at-a-time execution and the naive reference, in place
/// and out of place.
fn check_shape<F: Kernels>(spec: Transform<F>, budgets: Budgets, expected: &[&str]) {
    let naive = spec.clone();
    check_shape_against(spec, budgets, expected, move |input, output| {
        assert_eq!(reference::evaluate(&naive, input).unwrap(), output)
    })
}

/// [`check_shape`] with the naive definition checked by `oracle(input,
/// output)`.
fn check_shape_against<F: Kernels>(
    spec: Transform<F>,
    budgets: Budgets,
    expected: &[&str],
    oracle: impl Fn(&[F], &[F]),
) {
    let plan = planner(budgets, 1).plan(&spec).unwrap();
    assert_eq!(shape(&plan), expected, "\n{plan}");
    let input = Rng(7).vec::<F>(spec.input_len().unwrap());
    let plain = run_one_layer_at_a_time(&spec, &input);
    assert_eq!(run(&planner(budgets, 1), &spec, &input), plain, "\n{plan}");
    assert_eq!(
        run_in_place(&planner(budgets, 2), &spec, &input),
        plain,
        "\n{plan}"
    );
    oracle(&input, &plain);
}

#[test]
fn one_deep_pass_when_the_transform_fits() {
    check_shape(
        Transform::<BabyBear>::dft(10).lanes(3),
        roomy(),
        &["deep", "bitrev"],
    );
    // Rows of 256 bytes or more: a natural-order DFT reverses its rows
    // first, and out of place its one pass reads them bit-reversed from
    // the source.
    check_shape(
        Transform::<BabyBear>::dft(8).lanes(64),
        roomy(),
        &["bitrev", "deep"],
    );
    check_shape(Transform::<MlKem>::negacyclic_forward(), tiny(), &["deep"]);
    check_shape(Transform::<Gf2_64>::additive_ntt(9), roomy(), &["deep"]);
}

#[test]
fn gathered_then_deep_when_it_does_not_fit() {
    // 2^10 rows × 5 lanes × 4 B = 20 KiB against a 2 KiB L2 budget.
    check_shape(
        Transform::<BabyBear>::dft(10)
            .lanes(5)
            .order(Order::BitReversed),
        Budgets::fixed(1 << 10, 8 << 10, 1 << 20),
        &["gathered", "deep"],
    );
    check_shape(
        Transform::<Gf2_64>::additive_encode(10, LogBlowup(1)).lanes(2),
        Budgets::fixed(1 << 10, 8 << 10, 1 << 20),
        &["gathered", "deep"],
    );
}

#[test]
fn inverse_runs_deep_first() {
    check_shape(
        Transform::<BabyBear>::idft(10).lanes(5),
        Budgets::fixed(1 << 10, 8 << 10, 1 << 20),
        &["bitrev", "deep", "gathered"],
    );
    // The naive inverse solves a 2^10 × 2^10 system per column (O(n³): most
    // of this suite's time, minutes under qemu); the output is checked by
    // the definition it inverts instead, the O(n²) forward evaluation, which
    // must give back the input.
    check_shape_against(
        Transform::<Gf2_64>::additive_intt(10).lanes(2),
        Budgets::fixed(1 << 10, 8 << 10, 1 << 20),
        &["deep", "gathered"],
        |input, output| {
            let forward = Transform::<Gf2_64>::additive_ntt(10).lanes(2);
            assert_eq!(reference::evaluate(&forward, output).unwrap(), input)
        },
    );
}

#[test]
fn several_gathered_passes_when_scratch_is_small() {
    // Tiles of 1 KiB hold 2^2 runs of 256 B: two layers per gathered pass.
    check_shape(
        Transform::<Gf2_64>::additive_ntt(10).lanes(4),
        Budgets::fixed(256, 2 << 10, 1 << 12),
        &["gathered", "gathered", "gathered", "deep"],
    );
}

#[test]
fn gathered_only_when_no_block_fits() {
    // A row of 64 lanes × 4 B = 256 B; a 2-row block is already over budget.
    let budgets = Budgets::fixed(256, 256, 1 << 12);
    check_shape(
        Transform::<BabyBear>::dft(6)
            .lanes(64)
            .order(Order::BitReversed),
        budgets,
        &[
            "gathered", "gathered", "gathered", "gathered", "gathered", "gathered",
        ],
    );
    check_shape(
        Transform::<MlKem>::negacyclic_inverse(),
        Budgets::fixed(2, 2, 2),
        &["gathered"; 7],
    );
}

#[test]
fn deep_tiles_hold_several_blocks_of_an_encode() {
    let spec = Transform::<Gf2_64>::additive_encode(10, LogBlowup(3)).lanes(3);
    let plan = planner(roomy(), 1).plan(&spec).unwrap();
    assert_eq!(plan.passes()[0].blocks_per_tile, 8, "\n{plan}");
    check_shape(spec, roomy(), &["deep"]);
    // Blocks split over tiles: the message block runs last in place.
    let budgets = Budgets::fixed(1 << 10, 1 << 10, 1 << 20);
    let spec = Transform::<Gf2_64>::additive_encode(8, LogBlowup(2));
    let plan = planner(budgets, 1).plan(&spec).unwrap();
    assert_eq!(plan.passes()[0].blocks_per_tile, 1, "\n{plan}");
    check_shape(spec.clone().batch(3), budgets, &["deep"]);
}

#[test]
fn register_groups_respect_the_register_budget() {
    for (values, largest) in [(2, 2), (4, 4), (8, 8), (16, 16), (1024, 16)] {
        let budgets = Budgets {
            register_values: Some(values),
            ..roomy()
        };
        let plan = planner(budgets, 1)
            .plan(&Transform::<BabyBear>::dft(12))
            .unwrap();
        let radices: Vec<usize> = plan.groups().iter().map(|g| g.radix()).collect();
        assert_eq!(radices.iter().max(), Some(&largest), "{radices:?}");
        assert_eq!(radices.iter().product::<usize>(), 1 << 12);
        check_shape(
            Transform::<BabyBear>::idft(9).lanes(2),
            budgets,
            &["bitrev", "deep"],
        );
    }
}

#[test]
fn one_and_two_threads_agree_bit_for_bit() {
    let budgets = Budgets::fixed(4 << 10, 16 << 10, 1 << 20);
    let cases: Vec<Box<dyn Fn(usize) -> Vec<u64>>> = vec![
        Box::new(|t| {
            canonical(run(
                &planner(budgets, t),
                &Transform::<BabyBear>::dft(14).lanes(4),
                &Rng(1).vec(1 << 16),
            ))
        }),
        Box::new(|t| {
            canonical(run_in_place(
                &planner(budgets, t),
                &Transform::<BabyBear>::idft(13).lanes(5).batch(2),
                &Rng(2).vec(5 << 14),
            ))
        }),
        Box::new(|t| {
            canonical(run_in_place(
                &planner(budgets, t),
                &Transform::<Gf2_64>::additive_encode(13, LogBlowup(1)).lanes(8),
                &Rng(3).vec(8 << 12),
            ))
        }),
        Box::new(|t| {
            canonical(run(
                &planner(budgets, t),
                &Transform::<MlKem>::negacyclic_forward().batch(300),
                &Rng(4).vec(256 * 300),
            ))
        }),
    ];
    for case in cases {
        let serial = case(1);
        assert_eq!(case(2), serial);
        assert_eq!(case(3), serial);
    }
    // Threads::All uses rayon's global pool.
    let spec = Transform::<Gf2_64>::additive_ntt(14).lanes(4);
    let input = Rng(5).vec::<Gf2_64>(4 << 14);
    let all = Planner::new()
        .threads(Threads::All)
        .budgets(budgets)
        .plan(&spec)
        .unwrap();
    let mut out = vec![Gf2_64::ZERO; all.len()];
    all.execute_from(&input, &mut out).unwrap();
    assert_eq!(out, run(&planner(budgets, 1), &spec, &input));
}

fn canonical<F: Kernels>(v: Vec<F>) -> Vec<u64> {
    v.into_iter().map(|x| x.to_canonical_u64()).collect()
}

#[test]
fn caller_scratch_gives_the_same_result() {
    let spec = Transform::<BabyBear>::dft(11).lanes(3);
    let plan = planner(tiny(), 2).plan(&spec).unwrap();
    assert!(plan.scratch_len() > 0);
    let input = Rng(9).vec::<BabyBear>(plan.len());
    let mut a = input.clone();
    plan.execute(&mut a).unwrap();
    let mut b = input.clone();
    let mut scratch = vec![BabyBear::ZERO; plan.scratch_len()];
    plan.execute_with_scratch(&mut b, &mut scratch).unwrap();
    assert_eq!(a, b);
    let mut short = vec![BabyBear::ZERO; plan.scratch_len() - 1];
    assert!(matches!(
        plan.execute_with_scratch(&mut b, &mut short),
        Err(Error::LengthMismatch {
            what: "scratch",
            ..
        })
    ));
}

#[test]
fn a_plan_runs_concurrently_from_many_threads() {
    let spec = Transform::<Gf2_64>::additive_encode(12, LogBlowup(1)).lanes(4);
    let plan = planner(tiny(), 2).plan(&spec).unwrap();
    let input = Rng(11).vec::<Gf2_64>(spec.input_len().unwrap());
    let expected = run(&planner(tiny(), 1), &spec, &input);
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for _ in 0..3 {
                    let mut out = vec![Gf2_64::ZERO; plan.len()];
                    plan.execute_from(&input, &mut out).unwrap();
                    assert_eq!(out, expected);
                }
            });
        }
    });
}

#[test]
fn cost_counts_sweeps_scratch_and_twiddles() {
    let plan = planner(zen5(), 1)
        .plan(&Transform::<BabyBear>::dft(20))
        .unwrap();
    let cost = plan.cost();
    assert_eq!(cost.sweeps, plan.steps().len());
    assert_eq!(cost.data_bytes, 4 << 20);
    assert!(cost.scratch_bytes <= zen5().l2);
    // n − 1 twiddles in all, of 8 bytes each (Shoup's w and k).
    assert_eq!(size_of::<<BabyBear as Field>::Twiddle>(), 8);
    assert_eq!(cost.twiddle_bytes, ((1 << 20) - 1) * 8);
    // Two passes of layers plus the bit reversal for natural order.
    assert_eq!(shape(&plan), ["gathered", "deep", "bitrev"]);
}

/// The budgets read from the OS are whole cache sizes, ordered L1 ≤ L2 ≤ L3
/// (a cache level skipped or a size unit misread would break this).
#[test]
fn detected_budgets_are_ordered_and_nonzero() {
    let b = Budgets::detect();
    assert!(b.l1 >= 4 << 10, "{b:?}");
    assert!(b.l1 <= b.l2 && b.l2 <= b.l3, "{b:?}");
    assert_eq!(b.register_values, None);
}

/// Where Linux describes the caches, `Budgets::detect` reports exactly the
/// data (or unified) cache sizes of cpu0 per level.
#[test]
#[cfg(feature = "std")]
fn detected_budgets_match_sysfs() {
    let mut expected = [None; 4];
    for index in 0..8 {
        let dir = format!("/sys/devices/system/cpu/cpu0/cache/index{index}");
        let read = |f: &str| std::fs::read_to_string(format!("{dir}/{f}")).ok();
        let (Some(level), Some(size), Some(kind)) = (read("level"), read("size"), read("type"))
        else {
            continue;
        };
        if kind.trim() == "Instruction" {
            continue;
        }
        let size = size.trim();
        let bytes = if let Some(k) = size.strip_suffix('K') {
            k.parse::<usize>().unwrap() * 1024
        } else {
            size.strip_suffix('M').unwrap().parse::<usize>().unwrap() * 1024 * 1024
        };
        expected[level.trim().parse::<usize>().unwrap().min(3)] = Some(bytes);
    }
    let b = Budgets::detect();
    for (level, got) in [(1, b.l1), (2, b.l2), (3, b.l3)] {
        if let Some(bytes) = expected[level] {
            assert_eq!(got, bytes, "L{level}: {b:?}");
        }
    }
}

/// Whether the plan's first pass streams its stores (after a bit reversal
/// that a first deep pass fuses into its reads).
fn first_streams<F: Kernels>(plan: &Plan<F>) -> bool {
    let first_pass = plan.steps().iter().find_map(|s| match s {
        Step::Pass(p) => Some(p),
        Step::BitReverse => None,
    });
    first_pass.is_some_and(|p| p.streams)
}

/// Every backend this CPU runs (scalar first).
fn backends<F: Kernels>() -> Vec<Backend> {
    [
        Backend::Scalar,
        Backend::Avx512,
        Backend::Avx2,
        Backend::Neon,
    ]
    .into_iter()
    .filter(|b| b.check::<F>().is_ok())
    .collect()
}

/// Runs `plan` from `input` into a buffer at element offsets that start
/// 64-byte aligned, then one element, 16 and 32 bytes past that, comparing
/// each output with `expected`: streaming stores go only to registers
/// aligned for them, plain ones elsewhere, and the bits must not tell.
fn execute_at_aligned_offsets<F: Kernels>(plan: &Plan<F>, input: &[F], expected: &[F]) {
    let size = core::mem::size_of::<F>();
    let mut buf = vec![F::default(); plan.len() + 96 / size];
    let base = buf.as_ptr().align_offset(64);
    for offset in [base, base + 1, base + 16 / size, base + 32 / size] {
        let out = &mut buf[offset..offset + plan.len()];
        out.fill(F::default());
        plan.execute_from(input, out).unwrap();
        assert!(out == expected, "{} offset {offset}", plan.backend().name());
    }
}

/// A first pass whose output exceeds the last-level cache budget streams
/// its stores (a gathered one, or a deep one reading its rows bit-reversed
/// from the source, from scratch through its last group); the bits are those of the plain-store plan, out of
/// place at 64-byte-aligned and unaligned offsets (on SIMD backends the
/// aligned rows take non-temporal stores straight from the registers) and
/// for an encode's replicas in place, on every backend.
#[test]
fn streaming_first_pass_when_the_output_exceeds_the_llc() {
    let small_llc = Budgets::fixed(1 << 10, 2 << 10, 16 << 10);
    let large_llc = Budgets::fixed(1 << 10, 2 << 10, 64 << 20);
    let on = |backend: Backend, budgets: Budgets, threads: usize| {
        Planner::new()
            .backend(backend)
            .threads(Threads::Count(threads))
            .budgets(budgets)
    };
    for backend in backends::<BabyBear>() {
        for threads in [1, 2] {
            // 3 lanes: rows copied through scratch; 16: whole registers, so
            // on SIMD backends the first group reads the rows straight from
            // the source and the last stores them straight to the output.
            for spec in [
                Transform::<BabyBear>::dft(11).lanes(3),
                Transform::<BabyBear>::dft_encode(11, LogBlowup(2), BabyBear::new(7)).lanes(3),
                Transform::<BabyBear>::dft(11).lanes(16),
                Transform::<BabyBear>::dft_encode(11, LogBlowup(2), BabyBear::new(7)).lanes(16),
                // Rows of 256 bytes: the rows reversed first, the first
                // (deep) pass reading them bit-reversed from the source.
                Transform::<BabyBear>::dft(9).lanes(64),
                // Whole transforms, two per deep tile: each block's rows
                // copied bit-reversed into scratch.
                Transform::<BabyBear>::dft(2).lanes(64).batch(128),
            ] {
                let streaming = on(backend, small_llc, threads).plan(&spec).unwrap();
                let plain = on(backend, large_llc, threads).plan(&spec).unwrap();
                assert!(first_streams(&streaming), "{streaming}");
                assert!(!first_streams(&plain), "{plain}");
                assert!(streaming.to_string().contains("streaming (non-temporal)"));
                let input = Rng(5).vec::<BabyBear>(spec.input_len().unwrap());
                let expected = reference::evaluate(&spec, &input).unwrap();
                assert_eq!(run(&planner(large_llc, threads), &spec, &input), expected);
                execute_at_aligned_offsets(&streaming, &input, &expected);
                if spec.is_encode() {
                    let mut data = vec![BabyBear::ZERO; streaming.len()];
                    data[..input.len()].copy_from_slice(&input);
                    streaming.execute(&mut data).unwrap();
                    assert_eq!(data, expected);
                }
            }
        }
    }
    let gf2 = Transform::<Gf2_64>::additive_encode(11, LogBlowup(1)).lanes(8);
    let input = Rng(6).vec::<Gf2_64>(gf2.input_len().unwrap());
    let expected = reference::evaluate(&gf2, &input).unwrap();
    for backend in backends::<Gf2_64>() {
        let streaming = on(backend, small_llc, 1).plan(&gf2).unwrap();
        assert!(first_streams(&streaming));
        execute_at_aligned_offsets(&streaming, &input, &expected);
    }
}

/// Tiles go to the thread pool only when a pass has several and moves at
/// least 64 KiB; otherwise the pool's overhead outweighs the work.
#[test]
fn only_passes_with_several_tiles_and_enough_bytes_are_parallel() {
    let passes = |budgets: Budgets, spec: Transform<BabyBear>| -> Vec<Pass> {
        planner(budgets, 2)
            .plan(&spec)
            .unwrap()
            .passes()
            .into_iter()
            .cloned()
            .collect()
    };
    // Several tiles, 4 KiB in all: serial.
    let small = passes(tiny(), Transform::<BabyBear>::dft(10));
    assert!(small.iter().any(|p| p.tiles > 1));
    assert!(small.iter().all(|p| !p.parallel));
    // One tile of 64 KiB: serial.
    let one = passes(roomy(), Transform::<BabyBear>::dft(14));
    assert_eq!(
        (one.len(), one[0].tiles, one[0].tile_bytes),
        (1, 1, 64 << 10)
    );
    assert!(!one[0].parallel);
    // Many tiles, 2 MiB: parallel, gathered and deep.
    let large = passes(roomy(), Transform::<BabyBear>::dft(16).lanes(8));
    assert!(large.len() >= 2);
    assert!(large.iter().all(|p| p.tiles > 1 && p.parallel));
}

/// Batched small items share a deep tile as soon as two fit its budget.
#[test]
fn batched_items_share_a_tile_when_two_fit() {
    // An ML-KEM polynomial is 512 bytes; a 1 KiB tile budget holds two.
    let spec = Transform::<MlKem>::negacyclic_forward().batch(4);
    let plan = planner(Budgets::fixed(1 << 10, 2 << 10, 1 << 20), 1)
        .plan(&spec)
        .unwrap();
    let pass = plan.passes()[0];
    assert_eq!((pass.blocks_per_tile, pass.tiles), (2, 2), "\n{plan}");
    let input = Rng(3).vec::<MlKem>(spec.input_len().unwrap());
    assert_eq!(
        run(
            &planner(Budgets::fixed(1 << 10, 2 << 10, 1 << 20), 1),
            &spec,
            &input
        ),
        reference::evaluate(&spec, &input).unwrap()
    );
}

/// A register budget caps the transposed group too: it needs 2^tail values
/// per column in registers.
#[test]
fn register_budget_caps_the_transposed_tail() {
    if Backend::Avx512.check::<BabyBear>().is_err() {
        eprintln!("not checked: this CPU cannot run avx512");
        return;
    }
    let spec = Transform::<BabyBear>::dft(12);
    let tail = BabyBear::transposed_tail(Backend::Avx512, 1);
    assert_eq!(tail, 4);
    let transposed = |values: usize| {
        let mut budgets = roomy();
        budgets.register_values = Some(values);
        Planner::new()
            .backend(Backend::Avx512)
            .budgets(budgets)
            .plan(&spec)
            .unwrap()
            .groups()
            .iter()
            .any(|g| g.whole_block)
    };
    assert!(transposed(16), "radix 16 allowed: the 4-layer tail fits");
    assert!(!transposed(8), "radix 8 at most: the 4-layer tail does not");
}

/// A tile takes the whole L2 budget where its twiddles are small beside its
/// data (rows of many lanes), and where they are not (a single column: one
/// twiddle per butterfly) a row's bytes beside a twiddle's share of it, at
/// most half; gathered tiles never exceed it.
#[test]
fn tiles_fill_l2_unless_twiddles_outweigh_the_data() {
    let l2 = 1 << 20;
    fn deep<F: Kernels>(plan: &Plan<F>, l2: usize) -> usize {
        let passes = plan.passes();
        assert!(passes.iter().all(|p| p.tile_bytes <= l2), "\n{plan}");
        let deep = passes.iter().find(|p| p.kind == PassKind::Deep);
        deep.expect("a deep pass").tile_bytes
    }
    let wide = planner(zen5(), 1)
        .plan(&Transform::<Gf2_64>::additive_encode(20, LogBlowup(1)).lanes(8))
        .unwrap();
    assert_eq!(deep(&wide, l2), l2, "\n{wide}");
    let wide = planner(zen5(), 1)
        .plan(&Transform::<BabyBear>::dft(16).lanes(256))
        .unwrap();
    assert_eq!(deep(&wide, l2), l2, "\n{wide}");
    // A BabyBear column: 4-byte rows beside 8-byte twiddles take a third
    // of L2, so blocks of a quarter; a Goldilocks one (8 and 8) half.
    let column = planner(zen5(), 1)
        .plan(&Transform::<BabyBear>::dft(20))
        .unwrap();
    assert_eq!(deep(&column, l2), l2 / 4, "\n{column}");
    let column = planner(zen5(), 1)
        .plan(&Transform::<Goldilocks>::dft(20))
        .unwrap();
    assert_eq!(deep(&column, l2), l2 / 2, "\n{column}");
}

#[test]
fn one_thread_plans_do_not_claim_parallel_passes() {
    // The same large transform (and a lane-major input, whose transpose
    // step names its threads too) on one thread and on two.
    let spec = Transform::<BabyBear>::dft(16).lanes(8).lane_major_input();
    let text = |threads| {
        Planner::new()
            .threads(Threads::Count(threads))
            .budgets(zen5())
            .plan(&spec)
            .unwrap()
            .to_string()
    };
    let (one, two) = (text(1), text(2));
    assert!(!one.contains("parallel"), "{one}");
    assert!(two.matches("parallel").count() >= 2, "{two}");
}

/// A plan with nothing worth a hand-off (one tile per pass, a small bit
/// reversal) runs on the calling thread whatever its thread setting, and
/// says so; one whose passes split into tiles does not. Both give the bits
/// of one thread.
#[test]
fn small_plans_run_on_the_calling_thread_and_say_so() {
    let small = Transform::<BabyBear>::dft(9).lanes(56);
    let split = Transform::<BabyBear>::dft(12).lanes(8);
    let roomy = Budgets::fixed(32 << 10, 1 << 20, 8 << 20);
    let tight = Budgets::fixed(8 << 10, 32 << 10, 256 << 10);
    for (spec, budgets, serial) in [(small, roomy, true), (split, tight, false)] {
        let plan = |n| {
            Planner::new()
                .backend(Backend::Scalar)
                .threads(Threads::Count(n))
                .budgets(budgets)
                .plan(&spec)
                .unwrap()
        };
        let (one, two) = (plan(1), plan(2));
        let text = two.to_string();
        assert_eq!(
            text.contains("runs on the calling thread"),
            serial,
            "{text}"
        );
        assert!(!one.to_string().contains("runs on the calling thread"));
        assert_eq!(text.contains(", parallel"), !serial, "{text}");
        let input = Rng(5).vec::<BabyBear>(one.len());
        let (mut a, mut b) = (input.clone(), input);
        one.execute(&mut a).unwrap();
        two.execute(&mut b).unwrap();
        assert!(a == b);
    }
}

/// Every kind of transform description reads back into the same spec, and
/// its plan (scalar, small budgets: gathered and deep passes) into an equal
/// plan, on one and two threads.
#[test]
fn plan_text_reads_back_for_every_transform_kind() {
    fn check<F: Kernels>(spec: Transform<F>) {
        for threads in [Threads::All, Threads::Count(1), Threads::Count(2)] {
            for budgets in [tiny(), Budgets::fixed(48 << 10, 1 << 20, 32 << 20)] {
                let plan = Planner::new()
                    .backend(Backend::Scalar)
                    .threads(threads)
                    .budgets(budgets)
                    .plan(&spec)
                    .unwrap();
                let text = plan.to_string();
                let again: Plan<F> = text.parse().unwrap_or_else(|e| panic!("{text}\n{e}"));
                assert_eq!(again.transform(), &spec);
                assert_eq!(again, plan);
            }
        }
    }
    let shift = BabyBear::new(31);
    check(Transform::<BabyBear>::dft(10).lanes(4));
    check(
        Transform::<BabyBear>::idft(11)
            .order(Order::BitReversed)
            .batch(3),
    );
    check(Transform::<KoalaBear>::coset_dft(9, KoalaBear::new(3)).lanes(2));
    check(Transform::<BabyBear>::coset_idft(9, shift));
    check(Transform::<BabyBear>::dft_encode(12, LogBlowup(2), shift).lanes(8));
    check(Transform::<BabyBear>::dft(10).lanes(8).lane_major_input());
    check(
        Transform::<Goldilocks>::dft(12)
            .order(Order::BitReversed)
            .lanes(3),
    );
    check(Transform::<BabyBear4>::coset_dft(8, BabyBear4::from_u64(7)).lanes(2));
    check(Transform::<Gf2_64>::additive_ntt(10).lanes(2));
    check(Transform::<Gf2_64>::additive_intt(10).basis(Basis::Cantor));
    check(Transform::<Gf2_64>::additive_encode(12, LogBlowup(1)).lanes(4));
    check(Transform::<Gf2_64>::additive_ntt(10).from_layer(2).lanes(2));
    check(
        Transform::<Gf2_64>::additive_ntt(10)
            .lanes(2)
            .retain_prefix(3),
    );
    check(Transform::<Gf2_192>::additive_ntt(8).basis(Basis::Cantor));
    // Shifted domains: the shift is part of the text (a plan read back
    // without it would compute another transform).
    check(Transform::<Gf2_64>::additive_ntt(10).shift(Gf2_64::new(0x3039)));
    check(
        Transform::<Gf2_64>::additive_encode(12, LogBlowup(2))
            .basis(Basis::Cantor)
            .shift(Gf2_64::new(1 << 40))
            .lanes(2),
    );
    check(
        Transform::<Gf2_64>::additive_ntt(10)
            .shift(Gf2_64::new(0xdead_beef))
            .retain_prefix(2),
    );
    check(Transform::<Gf2_64>::additive_intt(9).shift(Gf2_64::new(5)));
    check(Transform::<Gf2_192>::additive_ntt(8).shift(Gf2_192::from_u64(0x77)));
    check(Transform::<MlKem>::negacyclic_forward());
    check(
        Transform::<MlKem>::negacyclic_inverse()
            .reduction(Reduction::Lazy)
            .ntt_order(NttOrder::Permuted)
            .batch(3),
    );
    check(Transform::<MlDsa>::negacyclic_forward().reduction(Reduction::Lazy));
    check(Transform::<MlDsa>::negacyclic_inverse().batch(2));
    check(Transform::<MlKem>::dft(7));
}

/// A shift the reader cannot rebuild (an extension element beyond the
/// base field) is a typed error, never a plan on another domain.
#[test]
fn an_unreadable_shift_is_an_error_not_another_domain() {
    let shift = Gf2_192::new(Gf2_64::new(3), Gf2_64::new(5), Gf2_64::ZERO);
    let plan = Planner::new()
        .backend(Backend::Scalar)
        .plan(&Transform::<Gf2_192>::additive_ntt(6).shift(shift))
        .unwrap();
    let text = plan.to_string();
    assert!(text.lines().next().unwrap().contains(", shift ("), "{text}");
    let e = Plan::<Gf2_192>::from_text(&text).unwrap_err();
    assert!(matches!(e, Error::PlanText { line: 1, .. }), "{e}");
}

/// Text that is not a plan's, or that this CPU plans differently, is a
/// typed error naming the line.
#[test]
fn plan_text_errors_name_the_line() {
    let plan = Planner::new()
        .backend(Backend::Scalar)
        .budgets(tiny())
        .plan(&Transform::<BabyBear>::dft(12).lanes(8))
        .unwrap();
    let text = plan.to_string();
    let line_of = |e: Error| match e {
        Error::PlanText { line, .. } => line,
        other => panic!("expected a plan text error, got {other}"),
    };
    // Another field's text.
    assert_eq!(
        line_of(Plan::<Goldilocks>::from_text(&text).unwrap_err()),
        1
    );
    // Garbage and truncation.
    assert_eq!(line_of(Plan::<BabyBear>::from_text("").unwrap_err()), 1);
    assert_eq!(
        line_of(Plan::<BabyBear>::from_text("hello").unwrap_err()),
        1
    );
    let two_lines: String = text.lines().take(2).collect::<Vec<_>>().join("\n");
    assert_eq!(
        line_of(Plan::<BabyBear>::from_text(&two_lines).unwrap_err()),
        3
    );
    let cut: String = text.lines().take(5).collect::<Vec<_>>().join("\n");
    assert_eq!(line_of(Plan::<BabyBear>::from_text(&cut).unwrap_err()), 6);
    // An edited pass line: the planner would not plan it.
    let edited = text.replacen("128 tiles", "127 tiles", 1);
    assert_ne!(edited, text);
    let e = Plan::<BabyBear>::from_text(&edited).unwrap_err();
    assert!(line_of(e) >= 4);
    // Unknown backend, unreadable budgets.
    let e = Plan::<BabyBear>::from_text(&text.replacen("scalar", "quantum", 1)).unwrap_err();
    assert_eq!(line_of(e), 2);
    let e = Plan::<BabyBear>::from_text(&text.replacen("L2 2 KiB", "L2 two", 1)).unwrap_err();
    assert_eq!(line_of(e), 3);
    // A backend this CPU lacks is the planner's own error.
    let foreign = if cfg!(target_arch = "x86_64") {
        "neon"
    } else {
        "avx512"
    };
    let e = Plan::<BabyBear>::from_text(&text.replacen("scalar", foreign, 1)).unwrap_err();
    assert!(matches!(e, Error::BackendUnavailable { .. }), "{e}");
}

/// Goldilocks groups whose every twiddle is ±2^k (the six smallest layers of
/// a plain DFT or inverse) print that they multiply by shifts on the SIMD
/// backends that do (AVX-512, AVX2); no group of a coset DFT (its twiddles
/// carry the shift), of another field or of the portable kernels does.
#[test]
fn goldilocks_shift_groups_are_printed() {
    let shifted = |text: &str| -> Vec<(usize, usize)> {
        text.lines()
            .filter(|l| l.contains("products by shifts"))
            .map(|l| {
                let span = l.split_whitespace().nth(2).expect("group line");
                let (a, b) = span.split_once('-').unwrap_or((span, span));
                (a.parse().unwrap(), b.parse().unwrap())
            })
            .collect()
    };
    let plan = |backend: Backend, spec: &Transform<Goldilocks>| {
        Planner::new()
            .backend(backend)
            .threads(Threads::Count(1))
            .budgets(zen5())
            .plan(spec)
    };
    let mut checked = 0;
    for backend in [
        Backend::Avx512,
        Backend::Avx2,
        Backend::Neon,
        Backend::Scalar,
    ] {
        for spec in [
            Transform::<Goldilocks>::dft(16).lanes(256),
            Transform::<Goldilocks>::idft(16).lanes(256),
            Transform::<Goldilocks>::dft(14)
                .lanes(8)
                .order(Order::BitReversed),
        ] {
            let Ok(p) = plan(backend, &spec) else {
                continue;
            };
            let text = p.to_string();
            let groups = shifted(&text);
            if matches!(backend, Backend::Avx512 | Backend::Avx2) {
                checked += 1;
                // Every group within layers 1-6 is printed, and only those.
                let small: usize = text
                    .lines()
                    .filter(|l| l.trim_start().starts_with("group"))
                    .filter(|l| {
                        let span = l.split_whitespace().nth(2).unwrap();
                        span.split('-').all(|x| x.parse::<usize>().unwrap() <= 6)
                    })
                    .count();
                assert!(!groups.is_empty() && groups.len() == small, "{text}");
                assert!(groups.iter().all(|&(_, end)| end <= 6), "{text}");
            } else {
                assert!(groups.is_empty(), "{text}");
            }
            let coset = Transform::<Goldilocks>::coset_dft(16, Goldilocks::from_u64(7)).lanes(256);
            assert!(shifted(&plan(backend, &coset).unwrap().to_string()).is_empty());
        }
        if let Ok(p) = Planner::new()
            .backend(backend)
            .plan(&Transform::<BabyBear>::dft(16).lanes(256))
        {
            assert!(shifted(&p.to_string()).is_empty());
        }
    }
    assert!(
        checked > 0 || !cfg!(target_arch = "x86_64"),
        "every x86-64 CPU this suite runs on has AVX2"
    );
}

//! Every backend this CPU has computes every transform shape bit for bit as
//! the scalar backend does (and as the naive definition, spot-checked).

use crate::common::*;
use nttfuse::*;
use quickcheck::{Arbitrary, Gen, QuickCheck};

fn planner_on(backend: Backend, budgets: Budgets, threads: usize) -> Planner {
    Planner::new()
        .backend(backend)
        .threads(Threads::Count(threads))
        .budgets(budgets)
}

#[derive(Clone, Debug)]
struct Shape {
    log_n: u32,
    lanes: usize,
    rate: u32,
    /// Budgets: 0 tiny (one-group gathered passes), 1 medium (gathered
    /// passes of several register groups, whose first group loads from the
    /// source and whose last stores to the data), 2 roomy.
    budgets: u8,
    /// Transforms one after another (a deep tile may hold several whole
    /// items, and their twiddles cycle across them).
    batch: usize,
    seed: u64,
}

impl Arbitrary for Shape {
    fn arbitrary(g: &mut Gen) -> Self {
        let log_n = 1 + u32::arbitrary(g) % 12;
        let lanes = *g.choose(&[1usize, 2, 3, 4, 7, 8, 9, 16, 56]).unwrap();
        Shape {
            log_n,
            lanes,
            rate: u32::arbitrary(g) % log_n,
            budgets: u8::arbitrary(g) % 3,
            batch: *g.choose(&[1usize, 1, 2, 3]).unwrap(),
            seed: u64::arbitrary(g),
        }
    }
}

impl Shape {
    /// Natural or bit-reversed evaluation order, from the seed.
    fn order(&self) -> Order {
        if self.seed.is_multiple_of(2) {
            Order::Natural
        } else {
            Order::BitReversed
        }
    }
}

fn agree<F: Kernels>(shape: &Shape, spec: Transform<F>) -> bool {
    let spec = spec.lanes(shape.lanes).batch(shape.batch);
    let input = Rng(shape.seed).vec::<F>(spec.input_len().unwrap());
    let budgets = [tiny(), medium(), roomy()][shape.budgets as usize];
    let expected = run(&planner_on(Backend::Scalar, budgets, 1), &spec, &input);
    simd_backends::<F>().into_iter().all(|b| {
        [1, 2].into_iter().all(|threads| {
            let planner = planner_on(b, budgets, threads);
            run(&planner, &spec, &input) == expected
                && run_in_place(&planner, &spec, &input) == expected
        })
    })
}

/// Budgets under which 2^10–2^12-row transforms take gathered passes of
/// several register groups (radix 8 at most: with AVX-512's radix 16 those
/// passes would be one group).
fn medium() -> Budgets {
    Budgets {
        register_values: Some(8),
        ..Budgets::fixed(4 << 10, 8 << 10, 256 << 10)
    }
}

/// Whether the plan has a gathered pass of at least two register groups.
fn has_multi_group_gathered_pass<F: Kernels>(plan: &Plan<F>) -> bool {
    plan.steps()
        .iter()
        .any(|s| matches!(s, Step::Pass(p) if p.kind == PassKind::Gathered && p.groups.len() >= 2))
}

/// Gathered passes of several groups on every SIMD backend: the first group
/// reads its butterfly sets' rows far apart (from the source out of place,
/// from the data in place), the last stores them to the data; each field's
/// packed type, out of place and in place, 1 and 2 threads.
#[test]
fn multi_group_gathered_passes_agree_bit_for_bit() {
    fn check<F: Kernels>(spec: Transform<F>) -> usize {
        let input = Rng(11).vec::<F>(spec.input_len().unwrap());
        let expected = run(&planner_on(Backend::Scalar, roomy(), 1), &spec, &input);
        let mut checked = 0;
        for backend in simd_backends::<F>() {
            let plan = planner_on(backend, medium(), 1).plan(&spec).unwrap();
            assert!(has_multi_group_gathered_pass(&plan), "{plan}");
            assert!(run(&planner_on(backend, medium(), 1), &spec, &input) == expected);
            assert!(run_in_place(&planner_on(backend, medium(), 2), &spec, &input) == expected);
            checked += 1;
        }
        checked
    }
    let mut checked = 0;
    for lanes in [8, 56] {
        checked += check(Transform::<Gf2_64>::additive_ntt(12).lanes(lanes));
        checked += check(Transform::<Gf2_64>::additive_encode(12, LogBlowup(1)).lanes(lanes));
    }
    checked += check(Transform::<BabyBear>::dft(12).lanes(16));
    checked +=
        check(Transform::<BabyBear>::dft_encode(12, LogBlowup(2), BabyBear::new(7)).lanes(32));
    checked += check(Transform::<Goldilocks>::idft(12).lanes(8));
    // Without `std` a SIMD backend runs only where the build enables it.
    let expected = cfg!(all(
        feature = "std",
        any(target_arch = "x86_64", target_arch = "aarch64")
    ));
    assert!(checked > 0 || !expected, "no SIMD backend ran");
}

/// AVX-512's register groups take up to 16 values (radix 16) in deep
/// passes, and at most 8 in gathered passes (their first and last groups
/// move rows through a pointer each). Plans with radix-16 deep groups equal
/// the scalar bits for every packed field, out of place and in place, 1 and
/// 2 threads.
#[test]
fn radix_16_groups_agree_bit_for_bit() {
    fn check<F: Kernels>(spec: Transform<F>) {
        let input = Rng(16).vec::<F>(spec.input_len().unwrap());
        let expected = run(&planner_on(Backend::Scalar, roomy(), 1), &spec, &input);
        let mut radix_16 = false;
        for k in 2..=12 {
            let budgets = Budgets::fixed(1 << (k + 8), 1 << (k + 10), 1 << (k + 16));
            let plan = planner_on(Backend::Avx512, budgets, 1).plan(&spec).unwrap();
            let mut deep_radix_16 = false;
            for step in plan.steps() {
                if let Step::Pass(p) = step {
                    for g in p.groups.iter().filter(|g| !g.whole_block) {
                        match p.kind {
                            PassKind::Gathered => assert!(g.layers.len() <= 3, "{plan}"),
                            _ => deep_radix_16 |= g.layers.len() == 4,
                        }
                    }
                }
            }
            if !deep_radix_16 {
                continue;
            }
            radix_16 = true;
            for threads in [1, 2] {
                let planner = planner_on(Backend::Avx512, budgets, threads);
                assert!(
                    run(&planner, &spec, &input) == expected,
                    "{}",
                    spec.describe()
                );
                assert!(
                    run_in_place(&planner, &spec, &input) == expected,
                    "{}",
                    spec.describe()
                );
            }
        }
        assert!(
            radix_16,
            "no budgets give {} a radix-16 group",
            spec.describe()
        );
    }
    if Backend::Avx512.check::<BabyBear>().is_err() {
        // The AVX-512 golden plans say the same: this CPU cannot run them.
        eprintln!("radix_16_groups_agree_bit_for_bit: no AVX-512 on this CPU");
        return;
    }
    check(Transform::<BabyBear>::dft(13).lanes(16));
    check(Transform::<BabyBear>::dft_encode(12, LogBlowup(1), BabyBear::new(7)).lanes(32));
    check(Transform::<Goldilocks>::idft(13).lanes(8));
    check(Transform::<Gf2_64>::additive_ntt(13).lanes(8));
    check(Transform::<Gf2_64>::additive_encode(12, LogBlowup(1)).lanes(56));
}

#[test]
fn gf2_64_backends_agree_bit_for_bit() {
    QuickCheck::new().tests(60).quickcheck(
        (|s: Shape| {
            agree(&s, Transform::<Gf2_64>::additive_ntt(s.log_n))
                && agree(
                    &s,
                    Transform::<Gf2_64>::additive_intt(s.log_n).from_layer(s.rate),
                )
                && agree(
                    &s,
                    Transform::<Gf2_64>::additive_encode(s.log_n, LogBlowup(s.rate)),
                )
                && agree(
                    &s,
                    Transform::<Gf2_64>::additive_ntt(s.log_n).shift(Gf2_64::new(s.seed | 1)),
                )
        }) as fn(Shape) -> bool,
    );
}

#[test]
fn monty31_backends_agree_bit_for_bit() {
    QuickCheck::new().tests(60).quickcheck(
        (|s: Shape| {
            let order = s.order();
            agree(&s, Transform::<BabyBear>::dft(s.log_n).order(order))
                && agree(&s, Transform::<BabyBear>::idft(s.log_n).order(order))
                && agree(&s, Transform::<KoalaBear>::dft(s.log_n))
                && agree(&s, Transform::<KoalaBear>::idft(s.log_n).order(order))
                && agree(
                    &s,
                    Transform::<KoalaBear>::dft_encode(
                        s.log_n,
                        LogBlowup(s.rate),
                        KoalaBear::new(3),
                    )
                    .order(order),
                )
        }) as fn(Shape) -> bool,
    );
}

#[test]
fn goldilocks_backends_agree_bit_for_bit() {
    QuickCheck::new().tests(60).quickcheck(
        (|s: Shape| {
            let order = s.order();
            let shift = Goldilocks::from_u64(s.seed | 1);
            agree(&s, Transform::<Goldilocks>::dft(s.log_n).order(order))
                && agree(&s, Transform::<Goldilocks>::idft(s.log_n).order(order))
                && agree(&s, Transform::<Goldilocks>::coset_dft(s.log_n, shift))
                && agree(
                    &s,
                    Transform::<Goldilocks>::coset_idft(s.log_n, shift).order(order),
                )
                && agree(
                    &s,
                    Transform::<Goldilocks>::dft_encode(s.log_n, LogBlowup(s.rate), shift),
                )
        }) as fn(Shape) -> bool,
    );
}

#[test]
fn gf2_64_simd_matches_the_definition() {
    for backend in simd_backends::<Gf2_64>() {
        for (log_n, lanes, rate) in [(6u32, 8usize, 1u32), (7, 3, 2), (5, 56, 0)] {
            let spec = Transform::<Gf2_64>::additive_encode(log_n, LogBlowup(rate)).lanes(lanes);
            let input = Rng(log_n as u64).vec::<Gf2_64>(spec.input_len().unwrap());
            let expected = reference::evaluate(&spec, &input).unwrap();
            assert_eq!(
                run(&planner_on(backend, tiny(), 1), &spec, &input),
                expected
            );
        }
    }
}

/// Columns narrower than a register end with a transposed group (the last
/// layers' butterflies pair lanes of one register). Every such shape, at
/// every size around the threshold (a block must hold R = 2^tail
/// super-blocks), in every butterfly family, equals the scalar bits, and the
/// plans pick the transposed group exactly where they can.
#[test]
fn transposed_tails_match_scalar() {
    fn check<F: Kernels>(spec: Transform<F>, tail_possible: bool) {
        let input = Rng(spec.rows() as u64 ^ 0xc0de).vec::<F>(spec.input_len().unwrap());
        for budgets in [roomy(), tiny()] {
            let expected = run(&planner_on(Backend::Scalar, budgets, 1), &spec, &input);
            for backend in simd_backends::<F>() {
                let planner = planner_on(backend, budgets, 2);
                let plan = planner.plan(&spec).unwrap();
                let tail = F::transposed_tail(backend, spec.lane_count());
                let transposed = plan.groups().iter().any(|g| g.whole_block);
                if budgets == roomy() && tail > 0 && tail_possible {
                    assert_eq!(
                        transposed,
                        spec.rows() >= 1 << (2 * tail),
                        "{} on {}:\n{plan}",
                        spec.describe(),
                        backend.name()
                    );
                }
                assert_eq!(
                    run(&planner, &spec, &input),
                    expected,
                    "{}",
                    spec.describe()
                );
                assert_eq!(
                    run_in_place(&planner, &spec, &input),
                    expected,
                    "{}",
                    spec.describe()
                );
            }
        }
    }
    for log_n in 1..=10u32 {
        for lanes in [1usize, 2, 4, 8] {
            let shift = BabyBear::from_u64(7);
            check(Transform::<BabyBear>::dft(log_n).lanes(lanes), true);
            check(
                Transform::<BabyBear>::idft(log_n)
                    .lanes(lanes)
                    .order(Order::BitReversed),
                true,
            );
            check(
                Transform::<KoalaBear>::coset_dft(log_n, KoalaBear::from_u64(3)).lanes(lanes),
                true,
            );
            check(
                Transform::<BabyBear>::coset_idft(log_n, shift).lanes(lanes),
                true,
            );
            check(
                Transform::<BabyBear>::dft_encode(log_n, LogBlowup(1.min(log_n - 1)), shift)
                    .lanes(lanes),
                false,
            );
            check(Transform::<Goldilocks>::dft(log_n).lanes(lanes), true);
            check(
                Transform::<Goldilocks>::coset_idft(log_n, Goldilocks::from_u64(5)).lanes(lanes),
                true,
            );
            check(Transform::<Gf2_64>::additive_ntt(log_n).lanes(lanes), true);
            check(Transform::<Gf2_64>::additive_intt(log_n).lanes(lanes), true);
            check(
                Transform::<Gf2_64>::additive_encode(log_n, LogBlowup(1.min(log_n - 1)))
                    .lanes(lanes),
                false,
            );
        }
    }
}

#[test]
fn neon_packed_kernels_are_exercised_on_aarch64() {
    // NEON is baseline on AArch64, and every AArch64 CPU we test on (qemu's
    // default model included) has PMULL, so the comparisons above include it.
    if cfg!(target_arch = "aarch64") {
        assert!(simd_backends::<Gf2_64>().contains(&Backend::Neon));
        assert!(simd_backends::<BabyBear>().contains(&Backend::Neon));
        assert!(simd_backends::<KoalaBear>().contains(&Backend::Neon));
        assert!(simd_backends::<Goldilocks>().contains(&Backend::Neon));
    }
}

#[test]
fn avx2_packed_kernels_are_exercised_on_avx2_cpus() {
    // Every x86-64 CPU with AVX2 runs the prime fields' AVX2 kernels in the
    // comparisons above (AVX-512 CPUs too: they are not skipped there), and
    // GF(2^64)'s where it also has VPCLMULQDQ.
    if Backend::Avx2.cpu_supports() {
        assert!(simd_backends::<BabyBear>().contains(&Backend::Avx2));
        assert!(simd_backends::<KoalaBear>().contains(&Backend::Avx2));
        assert!(simd_backends::<Goldilocks>().contains(&Backend::Avx2));
        #[cfg(target_arch = "x86_64")]
        assert_eq!(
            simd_backends::<Gf2_64>().contains(&Backend::Avx2),
            std::arch::is_x86_feature_detected!("vpclmulqdq")
        );
    }
}

/// Goldilocks values at the carry and borrow edges of the packed reduction
/// (near p, near 2^32, 2^63) give the scalar bits on every backend.
#[test]
fn goldilocks_edge_values_match_scalar() {
    let p = Goldilocks::MODULUS;
    let edges = [
        0,
        1,
        2,
        p - 1,
        p - 2,
        p - (1 << 32),
        (1 << 32) - 1,
        1 << 32,
        (1 << 32) + 1,
        1 << 63,
        (1 << 63) - 1,
        u64::MAX - (1 << 33),
    ];
    for log_n in [4u32, 8] {
        for lanes in [1usize, 8, 9] {
            let spec = Transform::<Goldilocks>::dft(log_n).lanes(lanes);
            let input: Vec<Goldilocks> = (0..spec.input_len().unwrap())
                .map(|i| Goldilocks::from_u64(edges[(i * 7 + i / 5) % edges.len()]))
                .collect();
            let expected = reference::evaluate(&spec, &input).unwrap();
            for backend in [Backend::Scalar]
                .into_iter()
                .chain(simd_backends::<Goldilocks>())
            {
                let planner = planner_on(backend, roomy(), 1);
                assert_eq!(run(&planner, &spec, &input), expected, "{}", backend.name());
                let inverse = Transform::<Goldilocks>::idft(log_n).lanes(lanes);
                assert_eq!(
                    run(&planner, &inverse, &expected),
                    input,
                    "{}",
                    backend.name()
                );
            }
        }
    }
}

/// `Backend::register_rounds` runs the groups' own butterflies: its result
/// equals the scalar kernel running the same radix-8 group on the same two
/// blocks as many times, and its errors are typed.
fn register_rounds_match_the_scalar_group<F: Kernels>(kind: ButterflyKind) {
    let mut rng = Rng(0x5eed_0000 + kind as u64);
    let data: Vec<F> = rng.vec(256);
    let twiddles: [F; 7] = core::array::from_fn(|_| rng.vec::<F>(1)[0]);
    let rounds = 5;
    for backend in simd_backends::<F>() {
        let mut ours = data.clone();
        let butterflies = backend
            .register_rounds(&mut ours, &twiddles, rounds)
            .expect("a SIMD backend has packed kernels");
        let lanes = (butterflies / (24 * rounds as u64)) as usize;
        assert!(lanes.is_power_of_two() && butterflies == 24 * rounds as u64 * lanes as u64);
        // Two blocks of 8 rows × `lanes`: rows are the registers.
        let prepared: Vec<F::Twiddle> = twiddles.iter().map(|&w| F::prepare_twiddle(w)).collect();
        let group = nttfuse::backend::GroupKernel {
            log_radix: 3,
            log_rows: 3,
            width: lanes,
            kind,
            twiddles: &prepared,
            scale: None,
            input_bound: 1,
            canonical_output: true,
            whole_block: false,
        };
        let mut expected = data.clone();
        for _ in 0..rounds {
            Backend::Scalar
                .run_group(&mut expected[..16 * lanes], &group)
                .expect("the scalar backend runs every field");
        }
        assert_eq!(ours, expected, "{} {}", backend.name(), F::NAME);
        // Zero rounds leave the data alone.
        let mut same = data.clone();
        assert_eq!(backend.register_rounds(&mut same, &twiddles, 0), Ok(0));
        assert_eq!(same, data);
        // Too little data.
        assert!(matches!(
            backend.register_rounds(&mut ours[..255], &twiddles, 1),
            Err(Error::LengthMismatch {
                expected: 256,
                got: 255,
                ..
            })
        ));
    }
    // The scalar backend has no packed kernel.
    assert!(matches!(
        Backend::Scalar.register_rounds(&mut data.clone(), &twiddles, 1),
        Err(Error::Unsupported { .. })
    ));
}

#[test]
fn register_rounds_run_the_groups_butterflies() {
    register_rounds_match_the_scalar_group::<Gf2_64>(ButterflyKind::Additive);
    register_rounds_match_the_scalar_group::<BabyBear>(ButterflyKind::CooleyTukey);
    register_rounds_match_the_scalar_group::<Goldilocks>(ButterflyKind::CooleyTukey);
}

/// Batches large enough that two threads really split them (a pass spreads
/// its tiles over threads from 64 KiB up), on every backend with whole-block
/// lattice kernels, 1 and 2 threads: the scalar bits.
#[test]
fn lattice_batches_split_over_threads_match_scalar() {
    fn check<F: Kernels>(spec: Transform<F>) {
        let input = Rng(spec.input_len().unwrap() as u64).vec::<F>(spec.input_len().unwrap());
        let expected = run(&planner_on(Backend::Scalar, roomy(), 1), &spec, &input);
        for backend in simd_backends::<F>() {
            for threads in [1, 2] {
                let planner = planner_on(backend, roomy(), threads);
                assert!(
                    run(&planner, &spec, &input) == expected,
                    "{backend:?} {threads}"
                );
                assert!(
                    run_in_place(&planner, &spec, &input) == expected,
                    "{backend:?} {threads}"
                );
            }
        }
    }
    // 256 ML-KEM polynomials: 128 KiB; 128 ML-DSA ones: 128 KiB.
    check(Transform::<MlKem>::negacyclic_forward().batch(256));
    check(Transform::<MlKem>::negacyclic_inverse().batch(256));
    check(Transform::<MlDsa>::negacyclic_forward().batch(128));
    check(Transform::<MlDsa>::negacyclic_inverse().batch(128));
}

/// An in-place run, where the shape has one.
type InPlace<'a, F> = Option<&'a dyn Fn(&mut [F])>;

/// Runs a plan (through `run_from` and `run_in_place`) on `input` placed
/// at every element phase within a 64-byte line, the output at the same
/// phase and at another, out of place and in place, and compares each
/// result with `expected`. A large `Vec` starts 16 bytes into a line; the AVX-512
/// kernels walk misaligned runs in a shifted frame (aligned registers, then
/// one register of each run's head and tail), and no phase may change a bit.
fn at_every_phase<F: Kernels>(
    what: &str,
    len: usize,
    input: &[F],
    expected: &[F],
    run_from: &dyn Fn(&[F], &mut [F]),
    run_in_place: InPlace<'_, F>,
) {
    let phases = 64 / core::mem::size_of::<F>();
    let mut source = vec![F::zero(); input.len() + 2 * phases];
    let mut out = vec![F::zero(); len + 2 * phases];
    let (s0, o0) = (
        source.as_ptr().align_offset(64),
        out.as_ptr().align_offset(64),
    );
    for p in 0..phases {
        let src = &mut source[s0 + p..s0 + p + input.len()];
        src.copy_from_slice(input);
        for q in [p, (p + 3) % phases] {
            let dst = &mut out[o0 + q..o0 + q + len];
            dst.fill(F::zero());
            run_from(src, dst);
            assert!(dst == expected, "{what}: input phase {p}, output phase {q}");
        }
        if let Some(run_in_place) = run_in_place {
            let dst = &mut out[o0 + p..o0 + p + len];
            dst.fill(F::zero());
            dst[..input.len()].copy_from_slice(input);
            run_in_place(dst);
            assert!(dst == expected, "{what}: in place at phase {p}");
        }
    }
}

/// Every phase of the data within a cache line gives the scalar bits on
/// every SIMD backend: deep passes, gathered passes whose first group reads
/// the source and whose last stores to the data, rows of one register and
/// of several, single columns, streaming first passes and encodes in place.
#[test]
fn every_phase_within_a_cache_line_gives_the_same_bits() {
    let small_llc = Budgets::fixed(1 << 10, 2 << 10, 16 << 10);
    fn check<F: Kernels>(spec: Transform<F>, budgets: Budgets) {
        let input = Rng(23).vec::<F>(spec.input_len().unwrap());
        let expected = run(&planner_on(Backend::Scalar, budgets, 1), &spec, &input);
        for backend in simd_backends::<F>() {
            for threads in [1, 2] {
                let plan = planner_on(backend, budgets, threads).plan(&spec).unwrap();
                let from = |src: &[F], dst: &mut [F]| plan.execute_from(src, dst).unwrap();
                let in_place = |data: &mut [F]| plan.execute(data).unwrap();
                // In place, an encode's message is the front of the data.
                let in_place: InPlace<'_, F> = (spec.batch_count() == 1).then_some(&in_place);
                let what = format!("{} {spec:?} {threads} threads", backend.name());
                at_every_phase(&what, plan.len(), &input, &expected, &from, in_place);
            }
        }
    }
    for budgets in [tiny(), medium(), roomy()] {
        // Rows of one register and of three; a single column (runs of many
        // registers, then its transposed tail).
        check(Transform::<BabyBear>::dft(10).lanes(16), budgets);
        check(Transform::<KoalaBear>::idft(9).lanes(48), budgets);
        check(Transform::<BabyBear>::dft(12), budgets);
        check(Transform::<Goldilocks>::dft(9).lanes(24), budgets);
        check(Transform::<Gf2_64>::additive_ntt(10).lanes(8), budgets);
        check(Transform::<Gf2_64>::additive_intt(9).lanes(16), budgets);
    }
    // Streaming first passes (an output beyond the last-level cache budget),
    // out of place and for an encode's replicas in place.
    check(Transform::<BabyBear>::dft(11).lanes(16), small_llc);
    check(
        Transform::<BabyBear>::dft_encode(11, LogBlowup(2), BabyBear::new(7)).lanes(32),
        small_llc,
    );
    check(
        Transform::<Gf2_64>::additive_encode(11, LogBlowup(1)).lanes(8),
        small_llc,
    );
    check(
        Transform::<Goldilocks>::dft(10)
            .order(Order::BitReversed)
            .lanes(8),
        small_llc,
    );
}

/// The fused coset LDE (its middle pass's scratch takes the output's phase)
/// gives the unfused plans' bits at every phase of its input and output.
#[test]
fn fused_lde_at_every_phase_gives_the_same_bits() {
    let budgets = Budgets::fixed(1 << 10, 16 << 10, 64 << 10);
    let shift = BabyBear::new(31);
    let input = Rng(29).vec::<BabyBear>((1 << 10) * 16);
    let scalar = planner_on(Backend::Scalar, budgets, 1)
        .plan(
            &Transform::<BabyBear>::coset_lde(10, LogBlowup(2))
                .shift(shift)
                .lanes(16)
                .order(Order::BitReversed),
        )
        .unwrap();
    let mut expected = vec![BabyBear::ZERO; scalar.len()];
    scalar.execute_from(&input, &mut expected).unwrap();
    for backend in simd_backends::<BabyBear>() {
        for threads in [1, 2] {
            let lde = planner_on(backend, budgets, threads)
                .plan(
                    &Transform::<BabyBear>::coset_lde(10, LogBlowup(2))
                        .shift(shift)
                        .lanes(16)
                        .order(Order::BitReversed),
                )
                .unwrap();
            assert!(lde.is_fused(), "{lde}");
            let from = |src: &[BabyBear], dst: &mut [BabyBear]| lde.execute_from(src, dst).unwrap();
            let in_place = |data: &mut [BabyBear]| lde.execute(data).unwrap();
            let what = format!("{} LDE, {threads} threads", backend.name());
            at_every_phase(&what, lde.len(), &input, &expected, &from, Some(&in_place));
        }
    }
}

//! A suite small enough for Miri
//! (`cargo +nightly miri test --test suite miri::`), run by plain
//! `cargo test` too: every family, every plan shape (forced by
//! tiny budgets), every `execute` variant, serial and on two threads, on
//! every backend this build can run, each checked against the naive
//! definition. Under Miri it checks the unsafe code (strided tiles, scratch
//! pool, kernels' raw loads and stores) for undefined behaviour.
//!
//! SIMD kernels run under Miri when their target features are enabled at
//! compile time (detection then short-circuits to true), as `.ci/run` does:
//!
//! ```text
//! RUSTFLAGS="-C target-feature=+pclmulqdq,+avx512f,+avx512bw,+avx512vl,+avx512dq,+vpclmulqdq,+gfni" \
//! MIRIFLAGS="-Zmiri-disable-isolation -Zmiri-tree-borrows -Zmiri-permissive-provenance -Zmiri-ignore-leaks" \
//! cargo +nightly miri test --test suite miri::
//! ```
//!
//! It is a module of the suite binary, not a test file of its own, so that a
//! native `cargo test` instantiates the generic kernels once (a binary of its
//! own cost a minute or two of build time); Miri builds the whole suite but
//! interprets only these tests.
//!
//! Isolation is off so `Budgets::detect` can read sysfs; Tree Borrows
//! because crossbeam-epoch (under rayon) breaks the Stacked Borrows rules;
//! permissive provenance for crossbeam's integer-to-pointer casts; leaks
//! ignored because rayon's global pool threads outlive `main`. Tests of
//! kernels using intrinsics Miri does not implement are gated below, each
//! naming the intrinsic: the AVX-512 packed Montgomery kernels run, the
//! AVX-512 lattice and GF(2^64) kernels do not.

use crate::common::*;
use nttfuse::*;

/// Sizes shrink under Miri (an interpreter) and stay modest natively.
const LOG_N: u32 = if cfg!(miri) { 4 } else { 8 };
/// GF(2^64) columns: 9 and 8 natively (an odd run and exactly one zmm row);
/// under Miri 3 and 2, as only the portable kernel runs there.
const GF2_LANES: [usize; 2] = if cfg!(miri) { [3, 2] } else { [9, 8] };

/// Thread counts each shape runs with. Under Miri two threads run only in
/// `parallel_passes_share_tiles_soundly`: the interpreter's scheduler makes
/// every rayon pool cost minutes.
const THREADS: &[usize] = if cfg!(miri) { &[1] } else { &[1, 2] };

fn budgets_for_shapes() -> [Budgets; 4] {
    [
        // One deep pass.
        Budgets::fixed(32 << 10, 1 << 20, 32 << 20),
        // Gathered + deep.
        Budgets::fixed(256, 512, 1 << 12),
        // Several gathered passes, radix 2 register groups.
        Budgets {
            register_values: Some(2),
            ..Budgets::fixed(64, 128, 1 << 10)
        },
        // Gathered only (no block fits).
        Budgets::fixed(2, 2, 2),
    ]
}

/// Runs `spec` on `backend` with every shape, serial and on two threads,
/// out of place, in place and with caller scratch, against the reference.
fn check_everywhere<F: Kernels>(backend: Backend, spec: Transform<F>) {
    let t0 = std::time::Instant::now();
    let _g = Timer(t0, spec.describe());
    if backend.check::<F>().is_err() {
        return; // this backend does not run here
    }
    let input = Rng(3).vec::<F>(spec.input_len().unwrap());
    // The naive definition is quadratic and gathered passes over 256 rows
    // take Miri minutes: under Miri the 256-coefficient lattice transforms
    // run the deep and gathered+deep shapes and must agree with each other
    // (natively they are checked against the definition, here and in the
    // other suites).
    let big = cfg!(miri) && spec.rows() > 64;
    let mut expected = if big {
        None
    } else {
        Some(reference::evaluate(&spec, &input).unwrap())
    };
    let all = budgets_for_shapes();
    let shapes = if big { &all[..2] } else { &all[..] };
    let mut ran = 0;
    // Natively every shape runs out of place, in place and with caller
    // scratch. Under Miri each shape runs one of the three, turning with the
    // shape and starting where the spec's description puts it, so that
    // across the specs every shape meets every variant (all three per shape
    // cost the interpreter twenty minutes of CI).
    let start = spec.describe().len();
    for (shape, &budgets) in shapes.iter().enumerate() {
        let runs = |variant: usize| !cfg!(miri) || (start + shape) % 3 == variant;
        for &threads in THREADS {
            let plan = match Planner::new()
                .backend(backend)
                .budgets(budgets)
                .threads(Threads::Count(threads))
                .plan(&spec)
            {
                Ok(plan) => plan,
                // A lattice SIMD backend under budgets that split the
                // polynomial: its whole-polynomial kernels would not run,
                // so forcing it is refused (the scalar sweep runs the shape).
                Err(Error::BackendUnavailable { reason, .. })
                    if reason.contains("whole polynomials") =>
                {
                    continue
                }
                Err(e) => panic!("{e}"),
            };
            let what = format!(
                "{} on {}, {threads} threads\n{plan}",
                F::NAME,
                backend.name()
            );
            if runs(0) {
                let mut out = vec![F::zero(); plan.len()];
                plan.execute_from(&input, &mut out).unwrap();
                let expected = expected.get_or_insert_with(|| out.clone());
                assert!(out == *expected, "out of place: {what}");
            }

            let items = spec.batch_count();
            let (item_in, item_out) = (plan.input_len() / items, plan.len() / items);
            let mut data = vec![F::zero(); plan.len()];
            for (dst, src) in data
                .chunks_exact_mut(item_out)
                .zip(input.chunks_exact(item_in))
            {
                dst[..item_in].copy_from_slice(src);
            }
            if runs(1) {
                let mut data = data.clone();
                plan.execute(&mut data).unwrap();
                let expected = expected.get_or_insert_with(|| data.clone());
                assert!(data == *expected, "in place: {what}");
            }

            if runs(2) {
                // Unaligned (one element in) caller scratch.
                let mut scratch = vec![F::zero(); plan.scratch_len() + 1];
                plan.execute_with_scratch(&mut data, &mut scratch[1..])
                    .unwrap();
                let expected = expected.get_or_insert_with(|| data.clone());
                assert!(data == *expected, "caller scratch: {what}");
            }
            ran += 1;
        }
    }
    assert!(ran > 0, "no budget shape planned {}", spec.describe());
}

fn lattice_families(backend: Backend) {
    check_everywhere(backend, Transform::<MlKem>::negacyclic_forward());
    check_everywhere(backend, Transform::<MlKem>::negacyclic_inverse().batch(2));
    check_everywhere(backend, Transform::<MlDsa>::negacyclic_forward());
    check_everywhere(backend, Transform::<MlDsa>::negacyclic_inverse());
}

fn prime_families(backend: Backend) {
    check_everywhere(backend, Transform::<BabyBear>::dft(LOG_N).lanes(3));
    check_everywhere(
        backend,
        Transform::<BabyBear>::coset_idft(LOG_N, BabyBear::new(7))
            .lanes(16)
            .order(Order::BitReversed),
    );
    check_everywhere(
        backend,
        Transform::<KoalaBear>::dft_encode(LOG_N, LogBlowup(1), KoalaBear::new(3)).lanes(2),
    );
    check_everywhere(backend, Transform::<Goldilocks>::idft(LOG_N).lanes(2));
    // Narrow columns: a transposed group for the last layers on SIMD backends.
    check_everywhere(backend, Transform::<BabyBear>::dft(LOG_N).lanes(4));
    check_everywhere(backend, Transform::<BabyBear4>::dft(LOG_N - 1));
}

fn binary_families(backend: Backend) {
    check_everywhere(
        backend,
        Transform::<Gf2_64>::additive_ntt(LOG_N).lanes(GF2_LANES[0]),
    );
    check_everywhere(
        backend,
        Transform::<Gf2_64>::additive_intt(LOG_N)
            .lanes(GF2_LANES[1])
            .basis(Basis::Cantor),
    );
    check_everywhere(
        backend,
        Transform::<Gf2_64>::additive_encode(LOG_N, LogBlowup(2))
            .lanes(3)
            .batch(2),
    );
    check_everywhere(backend, Transform::<Gf2_192>::additive_ntt(LOG_N - 1));
}

#[test]
fn scalar_lattice() {
    lattice_families(Backend::Scalar);
}

#[test]
fn scalar_prime_fields() {
    prime_families(Backend::Scalar);
}

#[test]
fn scalar_binary_fields() {
    binary_families(Backend::Scalar);
}

/// Gathered passes on two threads: tiles of strided rows handed to rayon
/// workers, each with its own scratch from the pool.
#[test]
fn parallel_passes_share_tiles_soundly() {
    let spec = Transform::<BabyBear>::dft(LOG_N).lanes(4);
    let plan = Planner::new()
        .backend(Backend::Scalar)
        .budgets(Budgets::fixed(64, 128, 1 << 10))
        .threads(Threads::Count(2))
        .plan(&spec)
        .unwrap();
    assert!(plan.passes().len() > 1, "{plan}");
    let input = Rng(5).vec::<BabyBear>(plan.len());
    let mut data = input.clone();
    plan.execute(&mut data).unwrap();
    assert_eq!(data, reference::evaluate(&spec, &input).unwrap());
}

/// The coset LDE, with its two middle passes fused (tiles that own their
/// rows in every replica block, on two threads), against the definition.
#[test]
fn lde_plan_matches_the_reference() {
    for threads in [1, 2] {
        let lde = Planner::new()
            .backend(Backend::Scalar)
            .threads(Threads::Count(threads))
            .budgets(Budgets::fixed(16, 32, 1 << 12))
            .plan(
                &Transform::coset_lde(LOG_N - 1, LogBlowup(2))
                    .shift(BabyBear::new(31))
                    .lanes(2)
                    .order(Order::BitReversed),
            )
            .unwrap();
        assert!(lde.is_fused(), "{lde}");
        let evals = Rng(9).vec::<BabyBear>(lde.input_len());
        let mut out = vec![BabyBear::ZERO; lde.len()];
        lde.execute_from(&evals, &mut out).unwrap();
        let coeffs =
            reference::evaluate(&Transform::<BabyBear>::idft(LOG_N - 1).lanes(2), &evals).unwrap();
        let spec = Transform::<BabyBear>::dft_encode(LOG_N + 1, LogBlowup(2), BabyBear::new(31))
            .lanes(2)
            .order(Order::BitReversed);
        assert_eq!(out, reference::evaluate(&spec, &coeffs).unwrap());
        // In place: the inverse reads block 0 into the last block, and the
        // fused pass writes that block last.
        let mut data = evals.clone();
        data.resize(lde.len(), BabyBear::ONE);
        lde.execute(&mut data).unwrap();
        assert_eq!(data, out, "in place");
    }
}

// The AVX-512 lattice kernels' stage shuffles use `_mm512_permutex2var_epi16`
// (llvm.x86.avx512.vpermi2var.hi.512), which Miri does not implement.
#[cfg_attr(
    miri,
    ignore = "Miri lacks llvm.x86.avx512.vpermi2var.hi.512 (_mm512_permutex2var_epi16)"
)]
#[test]
fn avx512_lattice() {
    lattice_families(Backend::Avx512);
}

#[test]
fn avx512_prime_fields() {
    prime_families(Backend::Avx512);
    // Rows of whole registers that start mid-line, in runs of 8 registers
    // and more (two rows a run in the first group under Miri): the shifted
    // frame's masked head-and-tail loads and stores.
    off_phase(
        Backend::Avx512,
        Transform::<BabyBear>::dft(LOG_N).lanes(64),
        5,
    );
    off_phase(
        Backend::Avx512,
        Transform::<Goldilocks>::dft(LOG_N).lanes(32),
        3,
    );
    // A single column: the transposed tail loads 16 compact (Montgomery)
    // twiddles a register (one full load), where narrower columns take
    // masked ones spread over their lanes.
    check_everywhere(Backend::Avx512, Transform::<BabyBear>::dft(8));
}

/// Runs `spec` out of place and in place on data `phase` elements past a
/// 64-byte boundary (so the AVX-512 kernels walk its runs in a shifted
/// frame) under a deep and a gathered+deep shape, against the reference.
fn off_phase<F: Kernels>(backend: Backend, spec: Transform<F>, phase: usize) {
    if backend.check::<F>().is_err() {
        return;
    }
    let input = Rng(7).vec::<F>(spec.input_len().unwrap());
    let expected = reference::evaluate(&spec, &input).unwrap();
    for budgets in &budgets_for_shapes()[..2] {
        let plan = Planner::new()
            .backend(backend)
            .budgets(*budgets)
            .threads(Threads::Count(1))
            .plan(&spec)
            .unwrap();
        let mut backing = vec![F::zero(); plan.len() + 64];
        let start = backing.as_ptr().align_offset(64) + phase;
        let out = &mut backing[start..start + plan.len()];
        plan.execute_from(&input, out).unwrap();
        assert!(
            out == expected.as_slice(),
            "{} out of place at phase {phase}",
            F::NAME
        );
        out.copy_from_slice(&input);
        plan.execute(out).unwrap();
        assert!(
            out == expected.as_slice(),
            "{} in place at phase {phase}",
            F::NAME
        );
    }
}

// The AVX-512 GF(2^64) kernel's reduction uses `_mm512_ternarylogic_epi64`
// (llvm.x86.avx512.pternlog.q.512), which Miri does not implement.
#[cfg_attr(
    miri,
    ignore = "Miri lacks llvm.x86.avx512.pternlog.q.512 (_mm512_ternarylogic_epi64)"
)]
#[test]
fn avx512_binary_fields() {
    binary_families(Backend::Avx512);
}

// One transform per AVX2 packed form (each with partial-register loads and
// stores, lanes not a multiple of the register's), not the whole families:
// the AVX2 kernels share the generic kernel the AVX-512 and portable runs
// above already take through every shape, and Miri minutes are CI minutes.
#[test]
fn avx2_kernels() {
    check_everywhere(Backend::Avx2, Transform::<BabyBear>::dft(LOG_N).lanes(3));
    // A single column: 8 Shoup twiddle pairs a register in its transposed
    // tail (two loads, sorted into the values and the quotients).
    check_everywhere(Backend::Avx2, Transform::<BabyBear>::dft(6));
    check_everywhere(Backend::Avx2, Transform::<Goldilocks>::idft(LOG_N).lanes(2));
    check_everywhere(
        Backend::Avx2,
        Transform::<Gf2_64>::additive_ntt(LOG_N).lanes(GF2_LANES[0]),
    );
}

/// A shifted pruned NTT whose fold rides on the first gathered pass's
/// loads (the packed kernels read each row's fold terms beside it), out of
/// place on every backend this CPU has; AVX-512 natively only (see
/// `avx512_binary_fields`).
#[test]
fn pruned_fold_rides_on_the_first_pass_loads() {
    let spec = Transform::<Gf2_64>::additive_ntt(LOG_N)
        .shift(Gf2_64::new(0x1234_5678_9abc_def1))
        .lanes(4)
        .retain_prefix(1);
    let input = Rng(5).vec::<Gf2_64>(spec.input_len().unwrap());
    let expected = reference::evaluate(&spec, &input).unwrap();
    let backends = [
        Backend::Scalar,
        Backend::Avx2,
        Backend::Avx512,
        Backend::Neon,
    ];
    let mut ran = 0;
    for backend in backends {
        if backend.check::<Gf2_64>().is_err() || (cfg!(miri) && backend == Backend::Avx512) {
            continue;
        }
        let plan = Planner::new()
            .backend(backend)
            .budgets(Budgets::fixed(64, 128, 1 << 10))
            .threads(Threads::Count(1))
            .plan(&spec)
            .unwrap();
        let text = plan.to_string();
        assert!(
            text.contains("done as pass 1 loads its rows") && text.contains("pass 1     gathered"),
            "{text}"
        );
        let mut out = vec![Gf2_64::ZERO; plan.len()];
        plan.execute_from(&input, &mut out).unwrap();
        assert!(out == expected, "{text}");
        ran += 1;
    }
    assert!(ran >= 2, "the scalar backend and a SIMD one ran");
}

#[test]
fn neon_every_family() {
    lattice_families(Backend::Neon);
    prime_families(Backend::Neon);
    binary_families(Backend::Neon);
}

/// Prints how long a spec took (seen with `--nocapture`): under Miri this is
/// where the CI minutes go.
struct Timer(std::time::Instant, String);
impl Drop for Timer {
    fn drop(&mut self) {
        eprintln!("{:?} {}", self.0.elapsed(), self.1);
    }
}

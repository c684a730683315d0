//! Hostile input: every public constructor, planner entry point and
//! `execute` variant tried with adversarial parameters returns a typed error
//! (or a correct answer), never panics, and never asks the allocator for an
//! absurd amount of memory before failing. Unaligned slices give the same
//! bits as aligned ones on every backend.

mod common;

use common::*;
use nttfuse::*;
use std::alloc::{GlobalAlloc, Layout, System};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Records the high-water mark of live heap bytes (allocations the system
/// granted; a request it refuses costs nothing), and refuses every single
/// request above [`SANE_BYTES`], as a machine without the memory would: the
/// crate's fallible reservations must then turn into `Error::OutOfMemory`,
/// and an infallible allocation of that size would abort the test.
struct PeakRequest;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK_LIVE: AtomicUsize = AtomicUsize::new(0);
/// Tests in this file share the counter: run them one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

unsafe impl GlobalAlloc for PeakRequest {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.size() > SANE_BYTES {
            return core::ptr::null_mut();
        }
        // SAFETY: forwarded unchanged to the system allocator.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK_LIVE.fetch_max(live, Ordering::Relaxed);
        }
        ptr
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOC: PeakRequest = PeakRequest;

/// No call here may hold more heap than this (above what was live before it).
const SANE_BYTES: usize = 64 << 20;

/// Runs `f` under `catch_unwind`, asserting it neither panics nor holds more
/// than [`SANE_BYTES`] of heap at any moment.
fn hostile<R>(what: &str, f: impl FnOnce() -> R) -> R {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK_LIVE.store(before, Ordering::Relaxed);
    let result = catch_unwind(AssertUnwindSafe(f))
        .unwrap_or_else(|_| panic!("{what}: panicked instead of returning an error"));
    let peak = PEAK_LIVE.load(Ordering::Relaxed) - before;
    assert!(peak <= SANE_BYTES, "{what}: held {peak} bytes of heap");
    result
}

/// The error of `result`, which must be one `kind` accepts (its message
/// must also name the problem: the variant's own text, never empty).
fn expect_err<T>(what: &str, result: Result<T, Error>, kind: fn(&Error) -> bool) -> Error {
    match result {
        Ok(_) => panic!("{what}: accepted"),
        Err(e) => {
            assert!(kind(&e), "{what}: unexpected error {e:?}");
            e
        }
    }
}

fn length(e: &Error) -> bool {
    matches!(e, Error::LengthMismatch { .. })
}

fn unsupported(e: &Error) -> bool {
    matches!(e, Error::Unsupported { .. })
}

fn any_kind(_: &Error) -> bool {
    true
}

const LANES: [usize; 8] = [
    0,
    1,
    3,
    1 << 20,
    usize::MAX / 3,
    usize::MAX / 2 + 1,
    usize::MAX - 1,
    usize::MAX,
];
const LOG_NS: [u32; 14] = [0, 1, 2, 27, 28, 32, 33, 40, 50, 60, 63, 64, 65, u32::MAX];

fn planners() -> Vec<Planner> {
    let mut planners = vec![
        planner(roomy(), 1),
        planner(tiny(), 2),
        Planner::new(),
        Planner::new().budgets(Budgets::fixed(0, 0, 0)),
        Planner::new().budgets(Budgets::fixed(usize::MAX, usize::MAX, usize::MAX)),
    ];
    for register_values in [0, 1, 3, 5, usize::MAX] {
        planners.push(Planner::new().budgets(Budgets {
            register_values: Some(register_values),
            ..tiny()
        }));
    }
    planners
}

/// The plan for a size the planner accepts must be valid, and any refusal
/// must come as a typed error; sizes large enough to need huge buffers must
/// be refused before allocating anything of their size.
#[test]
fn hostile_plan_parameters_are_refused_without_panic_or_huge_allocation() {
    let _guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    for planner in planners() {
        for lanes in LANES {
            for log_n in LOG_NS {
                for rate in [0u32, 1, log_n, log_n.saturating_add(1), u32::MAX] {
                    let what = format!("log n {log_n} lanes {lanes} rate {rate} {planner:?}");
                    let encode =
                        Transform::<Gf2_64>::additive_encode(log_n, LogBlowup(rate)).lanes(lanes);
                    let intt = Transform::<Gf2_64>::additive_intt(log_n)
                        .from_layer(rate)
                        .lanes(lanes)
                        .basis(Basis::Cantor);
                    let dft =
                        Transform::<BabyBear>::dft_encode(log_n, LogBlowup(rate), BabyBear::new(7))
                            .lanes(lanes)
                            .batch(rate.max(1) as usize);
                    let gl =
                        Transform::<Goldilocks>::coset_idft(log_n, Goldilocks::new(3)).lanes(lanes);
                    let g4 = Transform::<BabyBear4>::dft(log_n).lanes(lanes);
                    let g192 = Transform::<Gf2_192>::additive_ntt(log_n).lanes(lanes);
                    hostile(&what, || {
                        check_refused(&what, &planner, &encode);
                        check_refused(&what, &planner, &intt);
                        check_refused(&what, &planner, &dft);
                        check_refused(&what, &planner, &gl);
                        check_refused(&what, &planner, &g4);
                        check_refused(&what, &planner, &g192);
                        let lde_spec = Transform::<KoalaBear>::dft_encode(
                            log_n.saturating_add(rate),
                            LogBlowup(rate),
                            KoalaBear::new(3),
                        )
                        .lanes(lanes);
                        if lde_spec.validate().is_err() {
                            expect_err(
                                &what,
                                planner.plan(
                                    &Transform::coset_lde(log_n, LogBlowup(rate))
                                        .shift(KoalaBear::new(3))
                                        .lanes(lanes)
                                        .order(Order::BitReversed),
                                ),
                                any_kind,
                            );
                        }
                    });
                }
            }
        }
    }
}

/// A description the field refuses must fail to plan with that error; a
/// valid one must plan or fail with `OutOfMemory` when its tables exceed
/// what the test allocator grants (`SANE_BYTES` a request): always beyond
/// 2^40 rows, and wherever the twiddle tables outgrow 64 MiB below it.
fn check_refused<F: Kernels>(what: &str, planner: &Planner, spec: &Transform<F>) {
    let _ = (spec.input_len(), spec.output_len(), spec.describe());
    match spec.validate() {
        Err(invalid) => assert_eq!(
            expect_err(what, planner.plan(spec), any_kind),
            invalid,
            "{what}"
        ),
        Ok(()) if spec.log_n() >= 40 => {
            let err = expect_err(what, planner.plan(spec), any_kind);
            assert!(matches!(err, Error::OutOfMemory { .. }), "{what}: {err}");
        }
        // Rows wider than 4 MiB need tiles (scratch) of several rows: valid,
        // and beyond this wrapper's 64 MiB sanity bound on held heap;
        // `valid_wide_rows_plan_and_run` covers them.
        Ok(()) if spec.lane_count().saturating_mul(core::mem::size_of::<F>()) > 4 << 20 => {}
        Ok(()) => match planner.plan(spec) {
            Ok(plan) => assert_eq!(plan.len(), spec.output_len().unwrap(), "{what}"),
            Err(e) => assert!(
                matches!(
                    e,
                    Error::OutOfMemory { .. }
                        | Error::Threads { .. }
                        | Error::BackendUnavailable { .. }
                ),
                "{what}: {e}"
            ),
        },
    }
}

/// Valid transforms of very wide rows (2^20 and 2^22 lanes) plan, or fail
/// with `OutOfMemory` only; the one that fits here runs and matches the
/// definition.
#[test]
fn valid_wide_rows_plan_and_run() {
    let _guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    for lanes in [1usize << 20, 1 << 22] {
        for threads in [1, 2] {
            let planner = Planner::new().threads(Threads::Count(threads));
            let spec = Transform::<BabyBear>::dft(1).lanes(lanes);
            match planner.plan(&spec) {
                Ok(plan) if lanes == 1 << 20 => {
                    let input = Rng(3).vec::<BabyBear>(plan.input_len());
                    let mut out = vec![BabyBear::ZERO; plan.len()];
                    plan.execute_from(&input, &mut out).unwrap();
                    assert_eq!(out, reference::evaluate(&spec, &input).unwrap());
                }
                Ok(plan) => assert_eq!(plan.len(), 2 * lanes),
                Err(e) => assert!(matches!(e, Error::OutOfMemory { .. }), "{lanes}: {e}"),
            }
            let spec = Transform::<Gf2_192>::additive_ntt(2).lanes(lanes);
            match planner.plan(&spec) {
                Ok(plan) => assert_eq!(plan.len(), 4 * lanes),
                Err(e) => assert!(matches!(e, Error::OutOfMemory { .. }), "{lanes}: {e}"),
            }
        }
    }
}

/// Small parameters are exercised for real: whatever the planner accepts
/// runs and matches the naive definition; the rest are typed errors.
#[test]
fn small_hostile_parameters_plan_correctly_or_fail_typed() {
    let _guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let mut rng = Rng(99);
    for planner in planners() {
        for log_n in 0..=4u32 {
            for rate in [0u32, 1, log_n, log_n + 1] {
                for lanes in [1usize, 2] {
                    let what = format!("log n {log_n} rate {rate} lanes {lanes} {planner:?}");
                    let spec =
                        Transform::<Gf2_64>::additive_encode(log_n, LogBlowup(rate)).lanes(lanes);
                    let planned = hostile(&what, || planner.plan(&spec));
                    match planned {
                        Ok(plan) => {
                            let input = rng.vec::<Gf2_64>(plan.input_len());
                            let mut out = vec![Gf2_64::ZERO; plan.len()];
                            plan.execute_from(&input, &mut out).unwrap();
                            assert_eq!(out, reference::evaluate(&spec, &input).unwrap(), "{what}");
                        }
                        Err(e) => assert!(
                            matches!(e, Error::RateTooHigh { .. } | Error::Threads { .. }),
                            "{what}: {e}"
                        ),
                    }
                    let spec = Transform::<BabyBear>::dft(log_n).lanes(lanes);
                    if let Ok(plan) = hostile(&what, || planner.plan(&spec)) {
                        let input = rng.vec::<BabyBear>(plan.input_len());
                        let mut out = vec![BabyBear::ZERO; plan.len()];
                        plan.execute_from(&input, &mut out).unwrap();
                        assert_eq!(out, reference::evaluate(&spec, &input).unwrap(), "{what}");
                    }
                }
            }
        }
    }
}

/// Every `execute` variant with empty, short, long and absurd slices.
#[test]
fn hostile_slices_get_length_errors() {
    let _guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let mut rng = Rng(5);
    let dft = planner(tiny(), 2)
        .plan(&Transform::<BabyBear>::dft(9).lanes(3))
        .unwrap();
    let encode = planner(tiny(), 2)
        .plan(&Transform::<Gf2_64>::additive_encode(9, LogBlowup(2)).lanes(2))
        .unwrap();
    let mlkem = Planner::new()
        .plan(&Transform::<MlKem>::negacyclic_forward().batch(2))
        .unwrap();
    let lde = Planner::new()
        .plan(
            &Transform::coset_lde(6, LogBlowup(1))
                .shift(BabyBear::new(31))
                .lanes(2)
                .order(Order::Natural),
        )
        .unwrap();
    fn lengths(n: usize) -> [usize; 5] {
        [0, 1, n - 1, n + 1, 2 * n]
    }
    for bad in lengths(dft.len()) {
        let what = format!("dft with {bad}");
        let mut data = rng.vec::<BabyBear>(bad);
        let good = rng.vec::<BabyBear>(dft.len());
        let mut out = vec![BabyBear::ZERO; dft.len()];
        hostile(&what, || {
            expect_err(&what, dft.execute(&mut data), length);
            expect_err(&what, dft.execute_from(&data, &mut out), length);
            expect_err(&what, dft.execute_from(&good, &mut data), length);
            let mut scratch = vec![BabyBear::ZERO; dft.scratch_len()];
            expect_err(
                &what,
                dft.execute_with_scratch(&mut data, &mut scratch),
                length,
            );
        });
    }
    // Scratch one element short (or empty) is refused too.
    let mut data = rng.vec::<BabyBear>(dft.len());
    for scratch_len in [0, dft.scratch_len().saturating_sub(1)] {
        if scratch_len < dft.scratch_len() {
            let mut scratch = vec![BabyBear::ZERO; scratch_len];
            hostile("short scratch", || {
                expect_err(
                    "short scratch",
                    dft.execute_with_scratch(&mut data, &mut scratch),
                    length,
                )
            });
        }
    }
    for bad in lengths(encode.input_len()) {
        let what = format!("encode message of {bad}");
        let message = rng.vec::<Gf2_64>(bad);
        let mut out = vec![Gf2_64::ZERO; encode.len()];
        hostile(&what, || {
            expect_err(&what, encode.execute_from(&message, &mut out), length);
        });
    }
    for bad in lengths(256 * 2) {
        let what = format!("ML-KEM batch of {bad}");
        let mut data = vec![MlKem::new(1); bad];
        hostile(&what, || {
            expect_err(&what, mlkem.execute(&mut data), length)
        });
        let mut raw = vec![1i16; bad];
        hostile(&what, || {
            expect_err(&what, mlkem.execute_raw(&mut raw), length)
        });
    }
    // Small budgets fuse the LDE's middle passes: its own length checks.
    let fused_lde = planner(tiny(), 2)
        .plan(
            &Transform::coset_lde(9, LogBlowup(2))
                .shift(BabyBear::new(31))
                .lanes(3)
                .order(Order::BitReversed),
        )
        .unwrap();
    assert!(fused_lde.is_fused() && !lde.is_fused());
    for lde in [&lde, &fused_lde] {
        for bad in lengths(lde.input_len()) {
            let what = format!("LDE input of {bad}");
            let evals = rng.vec::<BabyBear>(bad);
            let mut out = vec![BabyBear::ZERO; lde.len()];
            hostile(&what, || {
                expect_err(&what, lde.execute_from(&evals, &mut out), length)
            });
        }
        for bad in lengths(lde.len()) {
            let what = format!("LDE output of {bad}");
            let evals = rng.vec::<BabyBear>(lde.input_len());
            let mut out = vec![BabyBear::ZERO; bad];
            hostile(&what, || {
                expect_err(&what, lde.execute_from(&evals, &mut out), length)
            });
            let what = format!("LDE in place on {bad}");
            let mut data = rng.vec::<BabyBear>(bad);
            hostile(&what, || expect_err(&what, lde.execute(&mut data), length));
        }
    }
}

/// A coset shift of zero has no coset: refused, not a division by zero.
#[test]
fn zero_coset_shift_is_refused() {
    let _guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    for spec in [
        Transform::<BabyBear>::coset_dft(4, BabyBear::ZERO),
        Transform::<BabyBear>::coset_idft(4, BabyBear::ZERO),
        Transform::<BabyBear>::dft_encode(5, LogBlowup(1), BabyBear::ZERO),
    ] {
        hostile("zero shift", || {
            expect_err("zero shift", planner(roomy(), 1).plan(&spec), unsupported)
        });
        // A later non-zero shift replaces the zero one.
        let spec = spec.shift(BabyBear::new(7));
        assert!(planner(roomy(), 1).plan(&spec).is_ok(), "shift replaced");
    }
}

/// Data that starts one element past a 64-byte boundary (so every SIMD load
/// and store is unaligned) gives the same bits as aligned data, on every
/// backend this CPU has, for every family.
#[test]
fn unaligned_slices_give_the_same_bits_on_every_backend() {
    let _guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    fn check<F: Kernels>(spec: Transform<F>) {
        let input = Rng(17).vec::<F>(spec.input_len().unwrap());
        // Every backend against the scalar backend's aligned run (and that
        // against the definition), never against itself.
        let scalar = Planner::new()
            .backend(Backend::Scalar)
            .threads(Threads::Count(1))
            .plan(&spec)
            .unwrap();
        let mut expected = vec![F::zero(); scalar.len()];
        scalar.execute_from(&input, &mut expected).unwrap();
        assert_eq!(
            expected,
            reference::evaluate(&spec, &input).unwrap(),
            "{}",
            F::NAME
        );
        let mut ran = 0;
        for backend in [
            Backend::Scalar,
            Backend::Avx512,
            Backend::Avx2,
            Backend::Neon,
        ] {
            let Ok(plan) = Planner::new()
                .backend(backend)
                .budgets(tiny())
                .threads(Threads::Count(2))
                .plan(&spec)
            else {
                continue;
            };
            ran += 1;
            let mut aligned = vec![F::zero(); plan.len()];
            plan.execute_from(&input, &mut aligned).unwrap();
            assert!(
                aligned == expected,
                "{} {} aligned",
                F::NAME,
                backend.name()
            );
            for offset in 1..4 {
                let mut backing = vec![F::zero(); plan.len() + offset];
                let mut input_backing = vec![F::zero(); plan.input_len() + offset];
                input_backing[offset..].copy_from_slice(&input);
                let out = &mut backing[offset..];
                plan.execute_from(&input_backing[offset..], out).unwrap();
                assert!(
                    out == expected.as_slice(),
                    "{} {} offset {offset}",
                    F::NAME,
                    backend.name()
                );
                if plan.input_len() == plan.len() {
                    out.copy_from_slice(&input);
                    plan.execute(out).unwrap();
                    assert!(
                        out == expected.as_slice(),
                        "{} {} in place",
                        F::NAME,
                        backend.name()
                    );
                }
            }
        }
        assert!(ran >= 1, "no backend ran {}", F::NAME);
    }
    check(Transform::<MlKem>::negacyclic_forward().batch(3));
    check(Transform::<MlKem>::negacyclic_inverse());
    check(Transform::<MlDsa>::negacyclic_forward().batch(2));
    check(Transform::<MlDsa>::negacyclic_inverse());
    check(Transform::<BabyBear>::dft(10).lanes(3));
    check(Transform::<KoalaBear>::coset_idft(9, KoalaBear::new(3)).lanes(17));
    check(Transform::<Goldilocks>::dft(9).lanes(2));
    check(Transform::<Gf2_64>::additive_ntt(10).lanes(9));
    check(Transform::<Gf2_64>::additive_encode(10, LogBlowup(1)).lanes(8));
    check(Transform::<Gf2_64>::additive_intt(8).lanes(1));
}

/// A thread count beyond what rayon runs is refused (rayon would quietly
/// start fewer threads, and waiting for the rest would never end). Without
/// `std` no thread is started: every plan runs on the calling thread.
#[cfg(feature = "std")]
#[test]
fn thread_counts_rayon_cannot_run_are_refused() {
    let _guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    for threads in [rayon::max_num_threads() + 1, usize::MAX] {
        let what = format!("{threads} threads");
        let planner = Planner::new().threads(Threads::Count(threads));
        let error = hostile(&what, || {
            expect_err(&what, planner.plan(&Transform::<BabyBear>::dft(4)), |e| {
                matches!(e, Error::Threads { .. })
            })
        });
        assert!(matches!(error, Error::Threads { .. }), "{what}: {error}");
    }
}

/// The kernel-level entry points check the backend first: one this CPU (or
/// this field) lacks is a typed error, never its instructions run blind.
#[test]
fn kernel_entry_points_refuse_unavailable_backends() {
    let _guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let twiddles = [BabyBear::prepare_twiddle(BabyBear::ONE)];
    let group = one_layer_group(&twiddles, true);
    for b in [Backend::Avx512, Backend::Avx2, Backend::Neon] {
        let mut buf = vec![BabyBear::new(5), BabyBear::new(3)];
        let ran = b.run_group(&mut buf, &group);
        match b.check::<BabyBear>() {
            Ok(_) => {
                ran.expect("an available backend runs the group");
                assert_eq!(buf, [BabyBear::new(8), BabyBear::new(2)], "{b:?}");
            }
            Err(e) => {
                assert_eq!(ran, Err(e), "{b:?}");
                assert_eq!(
                    buf,
                    [BabyBear::new(5), BabyBear::new(3)],
                    "{b:?}: untouched"
                );
            }
        }
        let mut data = vec![BabyBear::ONE; 256];
        if b.check::<BabyBear>().is_err() {
            expect_err(
                "register rounds",
                b.register_rounds(&mut data, &[BabyBear::ONE; 7], 1),
                |e| matches!(e, Error::BackendUnavailable { .. }),
            );
        }
    }
    // The lattice fields run on every backend the CPU has (whole
    // polynomials as ring kernels, other groups portable), and are refused
    // where it lacks one.
    let mlkem_twiddles = [MlKem::prepare_twiddle(MlKem::ONE)];
    let mlkem_group = one_layer_group(&mlkem_twiddles, true);
    for b in [Backend::Avx512, Backend::Avx2, Backend::Neon] {
        let mut poly = vec![MlKem::new(5), MlKem::new(3)];
        let ran = b.run_group(&mut poly, &mlkem_group);
        match b.check::<MlKem>() {
            Ok(_) => {
                ran.expect("an available backend runs the group");
                assert_eq!(poly, [MlKem::new(8), MlKem::new(2)], "{b:?}");
            }
            Err(e) => assert_eq!(ran, Err(e), "{b:?}"),
        }
    }
}

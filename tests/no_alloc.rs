//! After its first run on a thread, `execute` allocates nothing: twiddles are
//! computed at plan time and scratch is reused. One exception, rayon's: a
//! plan with more than one thread hands each run to its pool through the
//! pool's job injector, which takes a new block of 63 job slots when one
//! fills, so such plans allocate about once per 63 runs (amortised, never
//! per run). Runs are counted over many runs here to check both.

mod common;

use common::*;
use nttfuse::*;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

std::thread_local! {
    /// This thread's allocations (a const-initialised `Cell` without a
    /// destructor: reading it never allocates).
    static MINE: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Allocations so far: all threads' for a plan that runs on a pool, only
/// the calling thread's for one that runs on it (a 1-thread plan's idle
/// pool thread may start late and allocate its deque at any time, which is
/// not the run's doing).
fn count(threads: usize) -> usize {
    if threads == 1 {
        MINE.with(|m| m.get())
    } else {
        ALLOCATIONS.load(Ordering::SeqCst)
    }
}

// SAFETY: forwards to the system allocator and only counts calls.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
        MINE.with(|m| m.set(m.get() + 1));
        // SAFETY: same contract as ours.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations_in_steady_state<F: Kernels>(spec: Transform<F>, threads: usize) -> usize {
    let plan = planner(tiny(), threads).plan(&spec).unwrap();
    let mut data = Rng(1).vec::<F>(plan.len());
    let input = Rng(2).vec::<F>(plan.input_len());
    // Pruned and lane-major plans run out of place only.
    let in_place = spec.pruned_bits() == 0 && !spec.input_is_lane_major();
    let mut run = || {
        if in_place {
            plan.execute(&mut data).unwrap();
        }
        plan.execute_from(&input, &mut data).unwrap();
    };
    // Warm up until a run allocates nothing: scratch appears on each thread's
    // first run, and a pool's threads may start late on a loaded machine
    // (a starting rayon thread allocates its deque).
    for _ in 0..200 {
        let before = count(threads);
        run();
        if count(threads) == before {
            break;
        }
    }
    let before = count(threads);
    for _ in 0..RUNS {
        run();
    }
    let allocations = count(threads) - before;
    // Never drop the plan here: its pool's threads would exit (and free
    // their thread-local state, which allocates) during the next measurement.
    std::mem::forget(plan);
    allocations
}

// One test function: the counter is global, and the harness runs test
// functions concurrently.
#[test]
fn execution_never_allocates_after_warm_up() {
    // The harness's main thread allocates when it first blocks waiting for
    // this test (its channel's wait context); let it get there first.
    std::thread::sleep(std::time::Duration::from_millis(200));
    serial_execution_never_allocates_after_warm_up();
    caller_scratch_execution_never_allocates();
    parallel_execution_never_allocates_after_warm_up();
}

fn serial_execution_never_allocates_after_warm_up() {
    // Gathered + deep passes, bit reversal, encode replication: all shapes.
    assert_eq!(
        allocations_in_steady_state(Transform::<BabyBear>::dft(12).lanes(3), 1),
        0
    );
    assert_eq!(
        allocations_in_steady_state(Transform::<BabyBear>::idft(12).lanes(3), 1),
        0
    );
    assert_eq!(
        allocations_in_steady_state(
            Transform::<Gf2_64>::additive_encode(12, LogBlowup(2)).lanes(2),
            1
        ),
        0
    );
    assert_eq!(
        allocations_in_steady_state(Transform::<MlKem>::negacyclic_forward().batch(4), 1),
        0
    );
}

fn caller_scratch_execution_never_allocates() {
    let plan = planner(tiny(), 1)
        .plan(&Transform::<Gf2_64>::additive_ntt(12).lanes(2))
        .unwrap();
    let mut data = Rng(1).vec::<Gf2_64>(plan.len());
    let mut scratch = vec![Gf2_64::ZERO; plan.scratch_len()];
    let before = ALLOCATIONS.load(Ordering::SeqCst);
    for _ in 0..5 {
        plan.execute_with_scratch(&mut data, &mut scratch).unwrap();
    }
    assert_eq!(ALLOCATIONS.load(Ordering::SeqCst) - before, 0);
}

fn parallel_execution_never_allocates_after_warm_up() {
    let plan_shape = Transform::<BabyBear>::dft(14).lanes(4);
    assert!(allocations_in_steady_state(plan_shape, 2) <= allowed(2));
    let encode = Transform::<Gf2_64>::additive_encode(13, LogBlowup(1)).lanes(4);
    assert!(allocations_in_steady_state(encode.clone(), 2) <= allowed(2));
    // A lane-major message, and a pruned transform with its fold sweep.
    assert!(allocations_in_steady_state(encode.lane_major_input(), 2) <= allowed(2));
    let pruned = Transform::<Gf2_64>::additive_ntt(14)
        .lanes(2)
        .shift(Gf2_64::new(1 << 20))
        .retain_prefix(2);
    assert!(allocations_in_steady_state(pruned.clone(), 2) <= allowed(2));
    assert_eq!(allocations_in_steady_state(pruned, 1), 0);
    // The additive LDE: systematic (copy + two plans) and through the encode
    // (its middle passes fused, with the fused pass's own scratch).
    for (log_blowup, threads) in [(1, 2), (1, 1), (2, 2), (2, 1)] {
        let lde = planner(tiny(), threads)
            .plan(
                &Transform::<Gf2_64>::additive_lde(13, LogBlowup(log_blowup))
                    .basis(Basis::Cantor)
                    .lanes(4),
            )
            .unwrap();
        assert_eq!(lde.is_fused(), log_blowup > 1);
        let evals = Rng(3).vec::<Gf2_64>(lde.input_len());
        let mut out = vec![Gf2_64::ZERO; lde.len()];
        let allocations = steady_allocations(|| lde.execute_from(&evals, &mut out).unwrap());
        assert!(
            allocations <= allowed(threads),
            "LDE blowup 2^{log_blowup}: {allocations}"
        );
        let allocations = steady_allocations(|| lde.execute(&mut out).unwrap());
        assert!(
            allocations <= allowed(threads),
            "LDE blowup 2^{log_blowup} in place: {allocations}"
        );
        std::mem::forget(lde);
    }
    // The coset LDE, fused, on 2 threads and 1.
    for threads in [2, 1] {
        let lde = planner(tiny(), threads)
            .plan(
                &Transform::<BabyBear>::coset_lde(12, LogBlowup(2))
                    .shift(BabyBear::new(31))
                    .lanes(4)
                    .order(Order::BitReversed),
            )
            .unwrap();
        assert!(lde.is_fused());
        let evals = Rng(4).vec::<BabyBear>(lde.input_len());
        let mut out = vec![BabyBear::ZERO; lde.len()];
        let allocations = steady_allocations(|| lde.execute_from(&evals, &mut out).unwrap());
        assert!(
            allocations <= allowed(threads),
            "coset LDE on {threads} threads: {allocations}"
        );
        let allocations = steady_allocations(|| lde.execute(&mut out).unwrap());
        assert!(
            allocations <= allowed(threads),
            "coset LDE in place on {threads} threads: {allocations}"
        );
        std::mem::forget(lde);
    }
}

/// Allocations of [`RUNS`] runs of `run` once it has stopped allocating
/// (rayon's workers each take their scratch on their first tile).
fn steady_allocations(mut run: impl FnMut()) -> usize {
    for _ in 0..200 {
        let before = ALLOCATIONS.load(Ordering::SeqCst);
        run();
        if ALLOCATIONS.load(Ordering::SeqCst) == before {
            break;
        }
    }
    let before = ALLOCATIONS.load(Ordering::SeqCst);
    for _ in 0..RUNS {
        run();
    }
    ALLOCATIONS.load(Ordering::SeqCst) - before
}

/// Runs counted in steady state: four blocks of rayon's injector at one
/// hand-off per run.
const RUNS: usize = 4 * 63;

/// What [`RUNS`] runs of a plan on `threads` threads may allocate: nothing
/// on one thread; on more, rayon's injector blocks (a few hand-offs to the
/// pool per run, 63 per block), far fewer than one per run.
fn allowed(threads: usize) -> usize {
    if threads == 1 {
        0
    } else {
        RUNS / 8
    }
}

//! One plan shared by many threads: executed at once on different buffers,
//! from inside a rayon pool task (nested parallelism) and from several rayon
//! pools at once, it gives the bits of a serial run and never deadlocks.

use crate::common::*;
use nttfuse::*;
use rayon::prelude::*;
use std::sync::{Arc, Barrier};

// `Plan` is shared across threads by reference and by `Arc`: it must stay
// `Send + Sync` for every field (a compile-time check).
const _: () = {
    const fn shareable<T: Send + Sync>() {}
    shareable::<Plan<MlKem>>();
    shareable::<Plan<MlDsa>>();
    shareable::<Plan<BabyBear>>();
    shareable::<Plan<KoalaBear>>();
    shareable::<Plan<Goldilocks>>();
    shareable::<Plan<Gf2_64>>();
    shareable::<Arc<Plan<BabyBear>>>();
};

/// Inputs for `count` independent executions of `plan`, and the outputs a
/// serial single-threaded run gives for them.
fn serial_answers<F: Kernels>(
    plan: &Plan<F>,
    count: usize,
    seed: u64,
) -> (Vec<Vec<F>>, Vec<Vec<F>>) {
    let mut rng = Rng(seed);
    let inputs: Vec<Vec<F>> = (0..count).map(|_| rng.vec(plan.input_len())).collect();
    let serial = Planner::new()
        .backend(plan.backend())
        .budgets(plan.budgets())
        .threads(Threads::Count(1))
        .plan(plan.transform())
        .unwrap();
    let outputs = inputs
        .iter()
        .map(|input| {
            let mut out = vec![F::zero(); serial.len()];
            serial.execute_from(input, &mut out).unwrap();
            out
        })
        .collect();
    (inputs, outputs)
}

/// Runs `plan` from `threads` OS threads at once (released together by a
/// barrier), each on its own buffers, several times over.
fn many_threads_at_once<F: Kernels>(plan: Plan<F>, threads: usize) {
    let (inputs, expected) = serial_answers(&plan, threads, 7);
    let plan = Arc::new(plan);
    let barrier = Arc::new(Barrier::new(threads));
    let handles: Vec<_> = inputs
        .into_iter()
        .zip(expected)
        .map(|(input, expected)| {
            let (plan, barrier) = (Arc::clone(&plan), Arc::clone(&barrier));
            std::thread::spawn(move || {
                let mut out = vec![F::zero(); plan.len()];
                for _ in 0..4 {
                    barrier.wait();
                    plan.execute_from(&input, &mut out).unwrap();
                    assert!(out == expected, "a concurrent execution differs");
                    // In place too (an encode's in-place input is its prefix).
                    let mut data = vec![F::zero(); plan.len()];
                    if plan.input_len() == plan.len() {
                        data.copy_from_slice(&input);
                        plan.execute(&mut data).unwrap();
                        assert!(data == expected, "a concurrent in-place execution differs");
                    }
                }
            })
        })
        .collect();
    for handle in handles {
        handle.join().expect("a thread panicked");
    }
}

/// Plans for every family, with budgets small enough that they take gathered
/// passes and use the rayon pool and per-thread scratch.
fn shared_plans(threads: Threads) -> (Plan<BabyBear>, Plan<Gf2_64>, Plan<MlKem>, Plan<Goldilocks>) {
    let planner = Planner::new().budgets(tiny()).threads(threads);
    (
        planner
            .plan(
                &Transform::<BabyBear>::coset_dft(10, BabyBear::multiplicative_generator())
                    .lanes(3),
            )
            .unwrap(),
        planner
            .plan(&Transform::<Gf2_64>::additive_ntt(10).lanes(2))
            .unwrap(),
        planner
            .plan(&Transform::<MlKem>::negacyclic_forward().batch(4))
            .unwrap(),
        planner
            .plan(&Transform::<Goldilocks>::idft(10).lanes(2))
            .unwrap(),
    )
}

#[test]
fn one_plan_executed_from_many_threads_at_once() {
    for threads in [Threads::All, Threads::Count(1), Threads::Count(3)] {
        let (a, b, c, d) = shared_plans(threads);
        many_threads_at_once(a, 8);
        many_threads_at_once(b, 8);
        many_threads_at_once(c, 8);
        many_threads_at_once(d, 8);
    }
}

#[test]
fn encode_plan_executed_from_many_threads_at_once() {
    let plan = Planner::new()
        .budgets(tiny())
        .plan(&Transform::<Gf2_64>::additive_encode(11, LogBlowup(2)).lanes(3))
        .unwrap();
    many_threads_at_once(plan, 6);
}

/// Executions inside rayon tasks: the plan's own parallel passes nest in the
/// caller's pool (and in a pool of a single thread, where a blocking wait
/// would deadlock).
#[test]
fn executions_nested_in_rayon_tasks_match_serial() {
    let (plan, ..) = shared_plans(Threads::All);
    let (inputs, expected) = serial_answers(&plan, 24, 11);
    for pool_threads in [1, 2, 5] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(pool_threads)
            .build()
            .unwrap();
        let outputs: Vec<Vec<BabyBear>> = pool.install(|| {
            inputs
                .par_iter()
                .map(|input| {
                    let mut out = vec![BabyBear::ZERO; plan.len()];
                    plan.execute_from(input, &mut out).unwrap();
                    out
                })
                .collect()
        });
        assert!(outputs == expected, "nested in a pool of {pool_threads}");
    }
}

/// The same plan driven from several rayon pools and plain threads at once.
#[test]
fn executions_from_several_pools_at_once_match_serial() {
    let (_, plan, ..) = shared_plans(Threads::Count(2));
    let plan = Arc::new(plan);
    let (inputs, expected) = serial_answers(&*plan, 12, 5);
    let inputs = Arc::new(inputs);
    let expected = Arc::new(expected);
    let handles: Vec<_> = (0..3)
        .map(|p| {
            let (plan, inputs, expected) = (plan.clone(), inputs.clone(), expected.clone());
            std::thread::spawn(move || {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(p + 1)
                    .build()
                    .unwrap();
                pool.install(|| {
                    inputs
                        .par_iter()
                        .zip(expected.par_iter())
                        .for_each(|(input, expected)| {
                            let mut data = input.clone();
                            plan.execute(&mut data).unwrap();
                            assert!(&data == expected);
                        })
                })
            })
        })
        .collect();
    for handle in handles {
        handle.join().expect("a pool thread panicked");
    }
}

/// A plan built on one thread and dropped on another, while a third still
/// uses a clone of the `Arc`: no shared state outlives its owner.
#[test]
fn plans_move_between_threads() {
    let plan = std::thread::spawn(|| {
        Planner::new()
            .budgets(tiny())
            .plan(&Transform::<KoalaBear>::dft(11).lanes(2))
            .unwrap()
    })
    .join()
    .unwrap();
    let (inputs, expected) = serial_answers(&plan, 2, 3);
    let plan = Arc::new(plan);
    let user = {
        let (plan, input, expected) = (plan.clone(), inputs[0].clone(), expected[0].clone());
        std::thread::spawn(move || {
            let mut data = input;
            plan.execute(&mut data).unwrap();
            assert!(data == expected);
        })
    };
    std::thread::spawn(move || drop(plan)).join().unwrap();
    user.join().unwrap();
}

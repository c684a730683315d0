//! Helpers shared by the integration tests.
#![allow(dead_code)]

use nttfuse::*;

/// A small deterministic generator (splitmix64) for test data.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn vec<F: Kernels>(&mut self, len: usize) -> Vec<F> {
        (0..len).map(|_| F::from_u64(self.next())).collect()
    }
}

/// Budgets large enough that nothing small is split.
pub fn roomy() -> Budgets {
    Budgets::fixed(32 << 10, 1 << 20, 32 << 20)
}

/// Budgets so small that a 2^10-row transform needs gathered passes.
pub fn tiny() -> Budgets {
    Budgets::fixed(1 << 10, 2 << 10, 16 << 10)
}

pub fn planner(budgets: Budgets, threads: usize) -> Planner {
    Planner::new()
        .backend(Backend::Scalar)
        .threads(Threads::Count(threads))
        .budgets(budgets)
}

/// The SIMD backends this CPU has for `F`.
pub fn simd_backends<F: Kernels>() -> Vec<Backend> {
    [Backend::Avx512, Backend::Avx2, Backend::Neon]
        .into_iter()
        .filter(|b| b.check::<F>().is_ok())
        .collect()
}

/// The scalar backend on 1 and 2 threads, every SIMD backend this CPU has
/// for `F` forced on 2 threads (AVX2 too on an AVX-512 machine), and the
/// detected backend on all threads: every planner a bit-identity check runs
/// under.
pub fn every_planner<F: Kernels>(budgets: Budgets) -> Vec<Planner> {
    let mut planners = vec![planner(budgets, 1), planner(budgets, 2)];
    planners.extend(simd_backends::<F>().into_iter().map(|b| {
        Planner::new()
            .backend(b)
            .threads(Threads::Count(2))
            .budgets(budgets)
    }));
    planners.push(Planner::new().budgets(budgets));
    planners
}

/// Plans and runs `spec` out of place on `input`.
pub fn run<F: Kernels>(planner: &Planner, spec: &Transform<F>, input: &[F]) -> Vec<F> {
    let plan = planner.plan(spec).expect("plan");
    let mut out = vec![F::zero(); plan.len()];
    plan.execute_from(input, &mut out).expect("execute");
    out
}

/// Plans and runs `spec` in place (for an encode, the message goes at the
/// front of each item).
pub fn run_in_place<F: Kernels>(planner: &Planner, spec: &Transform<F>, input: &[F]) -> Vec<F> {
    let plan = planner.plan(spec).expect("plan");
    let item_in = input.len() / spec.batch_count();
    let item_out = plan.len() / spec.batch_count();
    let mut data = vec![F::zero(); plan.len()];
    for (dst, src) in data
        .chunks_exact_mut(item_out)
        .zip(input.chunks_exact(item_in))
    {
        dst[..item_in].copy_from_slice(src);
    }
    plan.execute(&mut data).expect("execute");
    data
}

/// Runs the transform one layer at a time: every layer its own pass and
/// register group (budgets of one row, radix 2), the plainest schedule.
pub fn run_one_layer_at_a_time<F: Kernels>(spec: &Transform<F>, input: &[F]) -> Vec<F> {
    let budgets = Budgets {
        register_values: Some(2),
        ..Budgets::fixed(1, 1, 1)
    };
    run(&planner(budgets, 1), spec, input)
}

/// Lane-major items (column c contiguous) → row-major items:
/// `rows[r·lanes + c] = columns[c·n + r]` within each of `batch` items.
pub fn from_lane_major<F: Copy>(columns: &[F], lanes: usize, batch: usize) -> Vec<F> {
    relayout(columns, lanes, batch, false)
}

/// Row-major items → lane-major items (the inverse of [`from_lane_major`]).
pub fn to_lane_major<F: Copy>(rows: &[F], lanes: usize, batch: usize) -> Vec<F> {
    relayout(rows, lanes, batch, true)
}

fn relayout<F: Copy>(data: &[F], lanes: usize, batch: usize, to_columns: bool) -> Vec<F> {
    let item = data.len() / batch;
    let n = item / lanes;
    data.chunks_exact(item)
        .flat_map(|it| {
            (0..item).map(move |i| {
                if to_columns {
                    it[(i % n) * lanes + i / n]
                } else {
                    it[(i % lanes) * n + i / lanes]
                }
            })
        })
        .collect()
}

/// One radix-2 Cooley–Tukey layer on a super-block of 2 rows × 1 column,
/// with `twiddles` (one per super-block): the smallest group the kernel
/// entry points take.
pub fn one_layer_group<F: Field>(
    twiddles: &[F::Twiddle],
    canonical_output: bool,
) -> backend::GroupKernel<'_, F> {
    backend::GroupKernel {
        log_radix: 1,
        log_rows: 1,
        width: 1,
        kind: ButterflyKind::CooleyTukey,
        twiddles,
        scale: None,
        input_bound: 1,
        canonical_output,
        whole_block: false,
    }
}

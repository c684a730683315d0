//! STARK-field transforms: BabyBear DFTs, beside a plain sweep of the same
//! buffer (same run) so results read as sweeps.
//!
//! `cargo bench --bench stark`

mod common;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use nttfuse::*;

fn babybear(c: &mut Criterion) {
    let mut group = c.benchmark_group("babybear");
    group.sample_size(10);
    for (log_n, lanes) in [(16u32, 16usize), (20, 1)] {
        let plan = Planner::new()
            .plan(
                &Transform::<BabyBear>::dft(log_n)
                    .lanes(lanes)
                    .order(Order::BitReversed),
            )
            .expect("plan");
        let input: Vec<BabyBear> = (0..plan.len() as u64).map(BabyBear::from_u64).collect();
        let mut data = input.clone();
        group.throughput(Throughput::Bytes(plan.cost().data_bytes as u64));
        group.bench_function(
            format!("dft_bitrev/2^{log_n}x{lanes}/{}", plan.backend().name()),
            |b| b.iter(|| plan.execute_from(&input, &mut data).expect("execute")),
        );
        let mut words = vec![1u64; plan.cost().data_bytes / 8];
        group.bench_function(format!("sweep/2^{log_n}x{lanes}"), |b| {
            b.iter(|| common::sweep(&mut words))
        });
    }
    group.finish();
}

criterion_group!(benches, babybear);
criterion_main!(benches);

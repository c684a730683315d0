//! Binary-field transforms: Gf2_64 Reed–Solomon encode, beside a plain sweep
//! of the codeword buffer (same run) so results read as sweeps.
//!
//! `cargo bench --bench binary`

mod common;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use nttfuse::*;

fn gf2_64(c: &mut Criterion) {
    let mut group = c.benchmark_group("gf2_64");
    group.sample_size(10);
    for (log_n, lanes) in [(16u32, 8usize), (16, 56)] {
        let plan = Planner::new()
            .plan(&Transform::<Gf2_64>::additive_encode(log_n, 1).lanes(lanes))
            .expect("plan");
        let message: Vec<Gf2_64> = (0..plan.input_len() as u64).map(Gf2_64::new).collect();
        let mut codeword = vec![Gf2_64::ZERO; plan.len()];
        group.throughput(Throughput::Bytes(plan.cost().data_bytes as u64));
        group.bench_function(
            format!(
                "encode_rate_half/2^{log_n}x{lanes}/{}",
                plan.backend().name()
            ),
            |b| b.iter(|| plan.execute_from(&message, &mut codeword).expect("execute")),
        );
        let mut words = vec![1u64; plan.cost().data_bytes / 8];
        group.bench_function(format!("sweep/2^{log_n}x{lanes}"), |b| {
            b.iter(|| common::sweep(&mut words))
        });
    }
    group.finish();
}

criterion_group!(benches, gf2_64);
criterion_main!(benches);

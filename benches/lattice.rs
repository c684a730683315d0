//! Lattice transforms: ML-KEM NTT and inverse, ns per polynomial.
//!
//! `cargo bench --bench lattice`

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use nttfuse::*;
use std::hint::black_box;

fn mlkem(c: &mut Criterion) {
    let planner = Planner::new().threads(Threads::Count(1));
    let poly: Vec<MlKem> = (0..256u64).map(|i| MlKem::from_u64(i * 1103 + 7)).collect();
    let mut group = c.benchmark_group("mlkem");
    group.throughput(Throughput::Elements(1));
    for (name, spec) in [
        ("ntt", Transform::<MlKem>::negacyclic_forward()),
        ("intt", Transform::<MlKem>::negacyclic_inverse()),
    ] {
        let plan = planner.plan(&spec).expect("plan");
        let backend = plan.backend().name();
        group.bench_function(format!("{name}/{backend}"), |b| {
            b.iter_batched_ref(
                || poly.clone(),
                |data| plan.execute(black_box(data)).expect("execute"),
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, mlkem);
criterion_main!(benches);

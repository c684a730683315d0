//! Lattice transforms: ML-KEM and ML-DSA NTT and inverse, single and batched,
//! on every backend this CPU has.
//!
//! `cargo bench --bench lattice` prints, before criterion's own report, a
//! table of TSC ticks per polynomial (rdtsc around loops of many calls,
//! median of several loops) with the speedup over the scalar backend measured
//! in the same run.

use criterion::{criterion_group, BatchSize, Criterion, Throughput};
use nttfuse::*;
use std::hint::black_box;

fn backends<F: Kernels>() -> Vec<Backend> {
    [
        Backend::Scalar,
        Backend::Avx2,
        Backend::Avx512,
        Backend::Neon,
    ]
    .into_iter()
    .filter(|b| b.check::<F>().is_ok())
    .collect()
}

fn plan<F: Kernels>(backend: Backend, spec: &Transform<F>) -> Plan<F> {
    Planner::new()
        .backend(backend)
        .threads(Threads::Count(1))
        .plan(spec)
        .expect("plan")
}

/// Ticks of the time-stamp counter (wall-clock nanoseconds off x86-64).
fn ticks() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: rdtsc has no preconditions on x86-64.
        unsafe { core::arch::x86_64::_rdtsc() }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    }
}

/// Median over 7 loops of ticks per polynomial.
fn ticks_per_poly<F: Kernels>(plan: &Plan<F>, data: &mut [F], polys: usize) -> f64 {
    const CALLS: usize = 20_000;
    let mut samples: Vec<f64> = (0..7)
        .map(|_| {
            let start = ticks();
            for _ in 0..CALLS / polys {
                plan.execute(black_box(&mut *data)).expect("execute");
            }
            (ticks() - start) as f64 / ((CALLS / polys) * polys) as f64
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    samples[3]
}

fn lattice_ticks() {
    println!("\nTSC ticks per polynomial (median of 7 loops of 20000 polynomials), speedup over scalar in the same run:");
    println!(
        "{:<10} {:<6} {:>5} {:>10} {:>10} {:>10}",
        "field", "dir", "batch", "backend", "ticks", "speedup"
    );
    fn rows<F: Kernels>(
        name: &str,
        forward: Transform<F>,
        inverse: Transform<F>,
        batches: &[usize],
    ) {
        for (dir, spec) in [("ntt", forward), ("intt", inverse)] {
            for &batch in batches {
                let spec = spec.clone().batch(batch);
                let mut data: Vec<F> = (0..256 * batch as u64)
                    .map(|i| F::from_u64(i * 7919 + 1))
                    .collect();
                let mut scalar = 0.0;
                for backend in backends::<F>() {
                    let t = ticks_per_poly(&plan(backend, &spec), &mut data, batch);
                    if backend == Backend::Scalar {
                        scalar = t;
                    }
                    println!(
                        "{:<10} {:<6} {:>5} {:>10} {:>10.0} {:>9.1}x",
                        name,
                        dir,
                        batch,
                        backend.name(),
                        t,
                        scalar / t
                    );
                }
            }
        }
    }
    rows(
        "ML-KEM",
        Transform::<MlKem>::negacyclic_forward(),
        Transform::<MlKem>::negacyclic_inverse(),
        &[1, 2, 3, 4],
    );
    rows(
        "ML-DSA",
        Transform::<MlDsa>::negacyclic_forward(),
        Transform::<MlDsa>::negacyclic_inverse(),
        &[1, 4, 8],
    );
    println!();
}

fn bench_field<F: Kernels>(
    c: &mut Criterion,
    name: &str,
    forward: Transform<F>,
    inverse: Transform<F>,
    batches: &[usize],
) {
    let mut group = c.benchmark_group(name);
    for (dir, spec) in [("ntt", forward), ("intt", inverse)] {
        for &batch in batches {
            let spec = spec.clone().batch(batch);
            let input: Vec<F> = (0..256 * batch as u64)
                .map(|i| F::from_u64(i * 7919 + 1))
                .collect();
            group.throughput(Throughput::Elements(batch as u64));
            for backend in backends::<F>() {
                let plan = plan(backend, &spec);
                group.bench_function(format!("{dir}/batch{batch}/{}", backend.name()), |b| {
                    b.iter_batched_ref(
                        || input.clone(),
                        |data| plan.execute(black_box(data)).expect("execute"),
                        BatchSize::SmallInput,
                    )
                });
            }
        }
    }
    group.finish();
}

fn lattice(c: &mut Criterion) {
    bench_field(
        c,
        "mlkem",
        Transform::<MlKem>::negacyclic_forward(),
        Transform::<MlKem>::negacyclic_inverse(),
        &[1, 3],
    );
    bench_field(
        c,
        "mldsa",
        Transform::<MlDsa>::negacyclic_forward(),
        Transform::<MlDsa>::negacyclic_inverse(),
        &[1, 4],
    );
}

criterion_group!(benches, lattice);

fn main() {
    lattice_ticks();
    benches();
    Criterion::default().configure_from_args().final_summary();
}

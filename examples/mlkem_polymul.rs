//! Multiplies two ML-KEM polynomials through the NTT (NTT → NTT-domain
//! product → inverse NTT) on raw `[i16; 256]` words, in the standard order
//! with canonical values and in the lazy, permuted mode a KEM codebase uses
//! when the NTT domain stays private; checks both against the schoolbook
//! negacyclic product modulo q = 3329 on every backend this CPU has, and
//! times a whole multiplication and the NTT-domain product alone.
//!
//! ```text
//! cargo run --release --example mlkem_polymul
//! ```

use nttfuse::*;
use std::hint::black_box;
use std::time::Instant;

const Q: i64 = 3329;

/// The product modulo (X^256 + 1, q), by the definition.
fn schoolbook(a: &[i16; 256], b: &[i16; 256]) -> [i16; 256] {
    let mut c = [0i64; 256];
    for i in 0..256 {
        for j in 0..256 {
            let p = a[i] as i64 * b[j] as i64;
            if i + j < 256 {
                c[i + j] += p;
            } else {
                c[i + j - 256] -= p;
            }
        }
    }
    c.map(|x| x.rem_euclid(Q) as i16)
}

/// ns per call of `f`, median of 5 loops.
fn time(mut f: impl FnMut()) -> f64 {
    const RUNS: u32 = 20_000;
    let mut loops: Vec<f64> = (0..5)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..RUNS {
                f();
            }
            start.elapsed().as_nanos() as f64 / RUNS as f64
        })
        .collect();
    loops.sort_by(f64::total_cmp);
    loops[2]
}

fn main() -> Result<(), Error> {
    let a: [i16; 256] = core::array::from_fn(|i| ((i * i * 31 + 7) % 3329) as i16);
    let b: [i16; 256] = core::array::from_fn(|i| ((i * 1103 + 3328) % 3329) as i16);
    let expected = schoolbook(&a, &b);
    for backend in [
        Backend::Scalar,
        Backend::Avx2,
        Backend::Avx512,
        Backend::Neon,
    ] {
        if backend.check::<MlKem>().is_err() {
            println!("{:>7}: not available on this CPU", backend.name());
            continue;
        }
        let planner = Planner::new().backend(backend).threads(Threads::Count(1));
        for (reduction, order) in [
            (Reduction::Canonical, NttOrder::Standard),
            (Reduction::Lazy, NttOrder::Permuted),
        ] {
            let ntt = planner.plan(
                &Transform::<MlKem>::negacyclic_forward()
                    .reduction(reduction)
                    .ntt_order(order),
            )?;
            let intt = planner.plan(
                &Transform::<MlKem>::negacyclic_inverse()
                    .reduction(reduction)
                    .ntt_order(order),
            )?;
            let products = MlKemProducts::on(backend)?
                .order(order)
                .reduction(reduction);
            let multiply = |out: &mut [i16; 256]| -> Result<(), Error> {
                let (mut a_hat, mut b_hat) = (a, b);
                ntt.execute_raw(&mut a_hat)?;
                ntt.execute_raw(&mut b_hat)?;
                products.multiply(&a_hat, &b_hat, out);
                intt.execute_raw(out)
            };
            let mut c = [0i16; 256];
            multiply(&mut c)?;
            let c = c.map(|x| (x as i64).rem_euclid(Q) as i16);
            assert_eq!(
                c,
                expected,
                "{} disagrees with the schoolbook product",
                backend.name()
            );
            let whole = time(|| {
                let mut c = [0i16; 256];
                multiply(black_box(&mut c)).expect("multiply");
                black_box(&c);
            });
            let (a_hat, b_hat) = (a, b);
            let cache = products.cache(&b_hat);
            let product = time(|| {
                let mut c = [0i16; 256];
                products
                    .multiply_cached(black_box(&a_hat), &cache, &mut c)
                    .expect("a cache of these products");
                black_box(&c);
            });
            println!(
                "{:>7} {:<9} {:<8}: equals the schoolbook product; {whole:.0} ns per multiplication (2 NTTs, product, inverse), {product:.0} ns per NTT-domain product (cached operand)",
                backend.name(),
                format!("{reduction:?}"),
                format!("{order:?}"),
            );
        }
    }
    Ok(())
}

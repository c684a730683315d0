//! Multiplies two ML-KEM polynomials through the NTT (NTT → NTT-domain
//! product → inverse NTT) and checks the result against the schoolbook
//! negacyclic product modulo q = 3329, on every backend this CPU has, and
//! times the NTT-domain product alone.
//!
//! ```text
//! cargo run --release --example mlkem_polymul
//! ```

use nttfuse::transform::mlkem::multiply_ntts;
use nttfuse::*;
use std::time::Instant;

/// The product modulo X^256 + 1, by the definition.
fn schoolbook(a: &[MlKem], b: &[MlKem]) -> Vec<MlKem> {
    let mut c = vec![MlKem::new(0); 256];
    for i in 0..256 {
        for j in 0..256 {
            let p = a[i] * b[j];
            if i + j < 256 {
                c[i + j] += p;
            } else {
                c[i + j - 256] -= p;
            }
        }
    }
    c
}

fn main() -> Result<(), Error> {
    let a: Vec<MlKem> = (0..256u64)
        .map(|i| MlKem::from_u64(i * i * 31 + 7))
        .collect();
    let b: Vec<MlKem> = (0..256u64)
        .map(|i| MlKem::from_u64(i * 1103 + 3328))
        .collect();
    let expected = schoolbook(&a, &b);
    for backend in [Backend::Scalar, Backend::Avx512, Backend::Neon] {
        let planner = Planner::new().backend(backend).threads(Threads::Count(1));
        let (Ok(ntt), Ok(intt)) = (
            planner.plan(&Transform::<MlKem>::negacyclic_forward()),
            planner.plan(&Transform::<MlKem>::negacyclic_inverse()),
        ) else {
            println!("{:>7}: not available on this CPU", backend.name());
            continue;
        };
        let multiply = || -> Result<Vec<MlKem>, Error> {
            let (mut a_hat, mut b_hat) = (a.clone(), b.clone());
            ntt.execute(&mut a_hat)?;
            ntt.execute(&mut b_hat)?;
            let mut c =
                multiply_ntts(&a_hat.try_into().unwrap(), &b_hat.try_into().unwrap()).to_vec();
            intt.execute(&mut c)?;
            Ok(c)
        };
        let c = multiply()?;
        assert_eq!(
            c,
            expected,
            "{} disagrees with the schoolbook product",
            backend.name()
        );
        const RUNS: u32 = 20_000;
        let start = Instant::now();
        for _ in 0..RUNS {
            std::hint::black_box(multiply()?);
        }
        println!(
            "{:>7}: NTT-based product equals the schoolbook product; {:.0} ns per multiplication (2 NTTs, basemul, inverse NTT)",
            backend.name(),
            start.elapsed().as_nanos() as f64 / RUNS as f64
        );
    }
    // The NTT-domain product alone (it runs on the calling thread, the
    // same code whatever the backend).
    let (a_hat, b_hat): ([MlKem; 256], [MlKem; 256]) =
        (a.clone().try_into().unwrap(), b.clone().try_into().unwrap());
    const RUNS: u32 = 200_000;
    let start = Instant::now();
    for _ in 0..RUNS {
        std::hint::black_box(multiply_ntts(
            std::hint::black_box(&a_hat),
            std::hint::black_box(&b_hat),
        ));
    }
    let path = if cfg!(target_arch = "x86_64") && avx2() {
        "AVX2"
    } else {
        "portable"
    };
    println!(
        "basemul: {:.0} ns per NTT-domain product (multiply_ntts, 128 residues, {path} path)",
        start.elapsed().as_nanos() as f64 / RUNS as f64
    );
    Ok(())
}

/// Whether `multiply_ntts` takes its AVX2 path here.
fn avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::arch::is_x86_feature_detected!("avx2");
    #[allow(unreachable_code)]
    false
}

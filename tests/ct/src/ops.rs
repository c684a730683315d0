//! Every lattice operation of one backend, as `secrets` runs it on
//! secret-marked coefficients: the ML-KEM and ML-DSA NTT and inverse NTT in
//! every mode (canonical and lazy, standard and permuted order, through
//! `execute_raw`), the NTT-domain products (caches, multiply-accumulates of
//! 1 to 9 terms, canonical and lazy, either order), a two-column plan (the
//! portable lattice register groups) and the portable FIPS 203 product.
//! Together they reach every kernel entry point the binary-level check
//! (`disasm`) inspects.

use crate::Rng;
use nttfuse::transform::mlkem::multiply_ntts_portable;
use nttfuse::{
    Backend, MlDsa, MlDsaProducts, MlKem, MlKemProducts, NttOrder, Planner, Reduction, Threads,
    Transform,
};

/// The words an operation works on: its inputs, then its outputs (raw
/// words, or field elements for the entry points that take only those:
/// raw words there would first be checked canonical, a branch on the
/// OR-folded verdict that is public by design but that valgrind and
/// MemorySanitizer would report).
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Words {
    Kem(Vec<i16>),
    Dsa(Vec<i32>),
    KemField(Vec<MlKem>),
    DsaField(Vec<MlDsa>),
}

/// An operation: its name, its input, and how it runs in place.
pub struct Op {
    pub name: String,
    pub input: Words,
    #[allow(clippy::type_complexity)]
    pub run: Box<dyn Fn(&mut Words) -> Result<(), String>>,
}

fn kem_words(rng: &mut Rng, n: usize) -> Vec<i16> {
    (0..n).map(|_| (rng.next() % 3329) as i16).collect()
}

fn dsa_words(rng: &mut Rng, n: usize) -> Vec<i32> {
    (0..n).map(|_| (rng.next() % 8_380_417) as i32).collect()
}

fn kem(w: &mut Words) -> &mut Vec<i16> {
    match w {
        Words::Kem(v) => v,
        _ => unreachable!("an ML-KEM operation on raw words"),
    }
}

fn dsa(w: &mut Words) -> &mut Vec<i32> {
    match w {
        Words::Dsa(v) => v,
        _ => unreachable!("an ML-DSA operation on raw words"),
    }
}

fn kem_field(w: &mut Words) -> &mut Vec<MlKem> {
    match w {
        Words::KemField(v) => v,
        _ => unreachable!("an ML-KEM operation on field elements"),
    }
}

fn dsa_field(w: &mut Words) -> &mut Vec<MlDsa> {
    match w {
        Words::DsaField(v) => v,
        _ => unreachable!("an ML-DSA operation on field elements"),
    }
}

fn polys<T>(w: &[T]) -> &[[T; 256]] {
    w.as_chunks::<256>().0
}

fn polys_mut<T>(w: &mut [T]) -> &mut [[T; 256]] {
    w.as_chunks_mut::<256>().0
}

/// Every operation of `backend`.
pub fn all(backend: Backend, rng: &mut Rng) -> Result<Vec<Op>, String> {
    let e = |e: nttfuse::Error| e.to_string();
    let planner = Planner::new().backend(backend).threads(Threads::Count(1));
    let mut ops = Vec::new();
    for reduction in [Reduction::Canonical, Reduction::Lazy] {
        for order in [NttOrder::Standard, NttOrder::Permuted] {
            let mode = format!("{reduction:?}, {order:?}");
            for inverse in [false, true] {
                let dir = if inverse { "inverse NTT" } else { "NTT" };
                let spec = |t: Transform<MlKem>| t.reduction(reduction).ntt_order(order);
                let kem_plan = planner
                    .plan(&spec(if inverse {
                        Transform::<MlKem>::negacyclic_inverse()
                    } else {
                        Transform::<MlKem>::negacyclic_forward()
                    }))
                    .map_err(e)?;
                ops.push(Op {
                    name: format!("ML-KEM {dir} ({mode})"),
                    input: Words::Kem(kem_words(rng, 256)),
                    run: Box::new(move |w| kem_plan.execute_raw(kem(w)).map_err(e)),
                });
                let spec = |t: Transform<MlDsa>| t.reduction(reduction).ntt_order(order);
                let dsa_plan = planner
                    .plan(&spec(if inverse {
                        Transform::<MlDsa>::negacyclic_inverse()
                    } else {
                        Transform::<MlDsa>::negacyclic_forward()
                    }))
                    .map_err(e)?;
                ops.push(Op {
                    name: format!("ML-DSA {dir} ({mode})"),
                    input: Words::Dsa(dsa_words(rng, 256)),
                    run: Box::new(move |w| dsa_plan.execute_raw(dsa(w)).map_err(e)),
                });
            }
            // Products: k terms a_i · b_i, the b_i cached (secret too).
            let kem_products = MlKemProducts::on(backend)
                .map_err(e)?
                .order(order)
                .reduction(reduction);
            for k in [1usize, 2, 3, 4, 5, 9] {
                let p = kem_products.clone();
                ops.push(Op {
                    name: format!("ML-KEM products, {k} terms ({mode})"),
                    input: Words::Kem(kem_words(rng, (2 * k + 1) * 256)),
                    run: Box::new(move |w| {
                        let (inputs, out) = kem(w).split_at_mut(2 * k * 256);
                        let (a, b) = inputs.split_at(k * 256);
                        let caches: Vec<_> = polys(b).iter().map(|b| p.cache(b)).collect();
                        p.multiply_accumulate(polys(a), &caches, &mut polys_mut(out)[0])
                            .map_err(e)
                    }),
                });
            }
            let p = kem_products.clone();
            ops.push(Op {
                name: format!("ML-KEM product ({mode})"),
                input: Words::Kem(kem_words(rng, 3 * 256)),
                run: Box::new(move |w| {
                    let (inputs, out) = kem(w).split_at_mut(2 * 256);
                    p.multiply(&polys(inputs)[0], &polys(inputs)[1], &mut polys_mut(out)[0]);
                    Ok(())
                }),
            });
            let dsa_products = MlDsaProducts::on(backend).map_err(e)?.reduction(reduction);
            for k in [1usize, 2, 3, 4, 5] {
                let p = dsa_products.clone();
                ops.push(Op {
                    name: format!("ML-DSA products, {k} terms ({mode})"),
                    input: Words::Dsa(dsa_words(rng, (2 * k + 1) * 256)),
                    run: Box::new(move |w| {
                        let (inputs, out) = dsa(w).split_at_mut(2 * k * 256);
                        let (a, b) = inputs.split_at(k * 256);
                        let caches: Vec<_> = polys(b).iter().map(|b| p.cache(b)).collect();
                        p.multiply_accumulate(polys(a), &caches, &mut polys_mut(out)[0])
                            .map_err(e)
                    }),
                });
            }
            let p = dsa_products.clone();
            ops.push(Op {
                name: format!("ML-DSA product ({mode})"),
                input: Words::Dsa(dsa_words(rng, 3 * 256)),
                run: Box::new(move |w| {
                    let (inputs, out) = dsa(w).split_at_mut(2 * 256);
                    p.multiply(&polys(inputs)[0], &polys(inputs)[1], &mut polys_mut(out)[0]);
                    Ok(())
                }),
            });
        }
    }
    // Two columns: the portable lattice register groups
    // (`backend::lattice`; the SIMD backends run whole polynomials only).
    let planner = Planner::new()
        .backend(Backend::Scalar)
        .threads(Threads::Count(1));
    for inverse in [false, true] {
        let dir = if inverse { "inverse NTT" } else { "NTT" };
        let kem_plan = planner
            .plan(
                &if inverse {
                    Transform::<MlKem>::negacyclic_inverse()
                } else {
                    Transform::<MlKem>::negacyclic_forward()
                }
                .lanes(2),
            )
            .map_err(e)?;
        ops.push(Op {
            name: format!("ML-KEM {dir}, 2 columns"),
            input: Words::KemField(kem_words(rng, 512).into_iter().map(MlKem::new).collect()),
            run: Box::new(move |w| kem_plan.execute(kem_field(w)).map_err(e)),
        });
        let dsa_plan = planner
            .plan(
                &if inverse {
                    Transform::<MlDsa>::negacyclic_inverse()
                } else {
                    Transform::<MlDsa>::negacyclic_forward()
                }
                .lanes(2),
            )
            .map_err(e)?;
        ops.push(Op {
            name: format!("ML-DSA {dir}, 2 columns"),
            input: Words::DsaField(dsa_words(rng, 512).into_iter().map(MlDsa::new).collect()),
            run: Box::new(move |w| dsa_plan.execute(dsa_field(w)).map_err(e)),
        });
    }
    ops.push(Op {
        name: "ML-KEM product, portable (multiply_ntts_portable)".into(),
        input: Words::KemField(
            kem_words(rng, 3 * 256)
                .into_iter()
                .map(MlKem::new)
                .collect(),
        ),
        run: Box::new(|w| {
            let (inputs, out) = kem_field(w).split_at_mut(2 * 256);
            let c = multiply_ntts_portable(&polys(inputs)[0], &polys(inputs)[1]);
            out.copy_from_slice(&c);
            Ok(())
        }),
    });
    Ok(ops)
}

//! The portable products: plain loops over the coefficient arrays (the
//! compiler vectorises them), the same arithmetic and chunking as the
//! generic kernels, so canonical results agree bit for bit.

use super::*;

fn kem_cache(b: &[i16; 256], twiddles: &[[i16; 256]; 2], cache: &mut MlKemCache) {
    let (first, second) = cache.words.split_at_mut(256);
    for ((c, &b), &w) in first.iter_mut().zip(b).zip(&twiddles[0]) {
        *c = mlkem::fqmul(b, w);
    }
    for (c, b) in second.chunks_exact_mut(2).zip(b.chunks_exact(2)) {
        c[0] = mlkem::fqmul(b[1], mlkem::R2);
        c[1] = mlkem::fqmul(b[0], mlkem::R2);
    }
}

fn kem_multiply_accumulate<const CANONICAL: bool>(
    a: &[[i16; 256]],
    caches: &[MlKemCache],
    out: &mut [i16; 256],
) {
    assert!(a.len() == caches.len() && !a.is_empty(), "k terms, k ≥ 1");
    let mut total = [0i16; 256];
    for (chunk, (a, caches)) in a
        .chunks(KEM_TERMS)
        .zip(caches.chunks(KEM_TERMS))
        .enumerate()
    {
        // sums[2i] = c0 of residue i, sums[2i + 1] = c1.
        let mut sums = [0i32; 256];
        for (a, cache) in a.iter().zip(caches) {
            let (first, second) = cache.words.split_at(256);
            for (((s, a), f), g) in sums
                .chunks_exact_mut(2)
                .zip(a.chunks_exact(2))
                .zip(first.chunks_exact(2))
                .zip(second.chunks_exact(2))
            {
                let (a0, a1) = (a[0] as i32, a[1] as i32);
                s[0] += a0 * f[0] as i32 + a1 * f[1] as i32;
                s[1] += a0 * g[0] as i32 + a1 * g[1] as i32;
            }
        }
        for (t, &s) in total.iter_mut().zip(&sums) {
            let part = mlkem::montgomery_reduce(s);
            *t = match chunk {
                0 => part,
                1 => mlkem::barrett_reduce(*t) + mlkem::barrett_reduce(part),
                _ => mlkem::barrett_reduce(*t + mlkem::barrett_reduce(part)),
            };
        }
    }
    for (o, &t) in out.iter_mut().zip(&total) {
        *o = if CANONICAL {
            let r = mlkem::barrett_reduce(t);
            r + ((r >> 15) & mlkem::Q)
        } else {
            t
        };
    }
}

fn dsa_cache(b: &[i32; 256], cache: &mut MlDsaCache) {
    for ((c, t), &b) in cache.words.iter_mut().zip(cache.twisted.iter_mut()).zip(b) {
        *c = mldsa::fqmul(b, mldsa::R2);
        *t = c.wrapping_mul(mldsa::QINV);
    }
}

fn dsa_multiply_accumulate<const CANONICAL: bool>(
    a: &[[i32; 256]],
    caches: &[MlDsaCache],
    out: &mut [i32; 256],
) {
    assert!(
        a.len() == caches.len() && (1..=256).contains(&a.len()),
        "1 ≤ k ≤ 256 terms"
    );
    let mut sums = [0i64; 256];
    for (a, cache) in a.iter().zip(caches) {
        for ((s, &a), &c) in sums.iter_mut().zip(a).zip(&cache.words) {
            *s += a as i64 * c as i64;
        }
    }
    let one_term = a.len() == 1;
    for (o, &s) in out.iter_mut().zip(&sums) {
        let r = mldsa::montgomery_reduce(s);
        *o = if CANONICAL {
            // One term: |r| < q already (|a·b·R| < 2^31·q).
            let r = if one_term {
                r
            } else {
                mldsa::barrett_reduce(r)
            };
            r + ((r >> 31) & mldsa::Q)
        } else {
            r
        };
    }
}

/// `out = a · b` with no cache: b·R, then the one-term product (the words
/// of `dsa_cache` then `dsa_multiply_accumulate`).
fn dsa_multiply<const CANONICAL: bool>(a: &[i32; 256], b: &[i32; 256], out: &mut [i32; 256]) {
    for ((o, &a), &b) in out.iter_mut().zip(a).zip(b) {
        let r = mldsa::montgomery_reduce(a as i64 * mldsa::fqmul(b, mldsa::R2) as i64);
        *o = if CANONICAL {
            r + ((r >> 31) & mldsa::Q)
        } else {
            r
        };
    }
}

/// The portable ML-KEM products (safe functions behind the shared
/// `unsafe fn` signature).
pub(crate) const KEM_PRODUCTS: KemProductFns = KemProductFns {
    cache: kem_cache,
    multiply_accumulate: [
        kem_multiply_accumulate::<false>,
        kem_multiply_accumulate::<true>,
    ],
};
/// The portable ML-DSA products.
pub(crate) const DSA_PRODUCTS: DsaProductFns = DsaProductFns {
    cache: dsa_cache,
    multiply_accumulate: [
        dsa_multiply_accumulate::<false>,
        dsa_multiply_accumulate::<true>,
    ],
    multiply: [dsa_multiply::<false>, dsa_multiply::<true>],
};

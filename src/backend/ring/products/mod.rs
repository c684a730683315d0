//! NTT-domain products of the lattice rings, written once over a lane type
//! per ISA: ML-KEM's base-case products (FIPS 203 Algorithm 11) and
//! ML-DSA's coefficient-wise ones (FIPS 204 MultiplyNTT), as
//! multiply-accumulates over k terms with one reduction at the end.
//!
//! ML-KEM: the second operand is *cached* (computed once per polynomial
//! and reused for every row it multiplies, as mlkem-native's mulcache) in
//! the form `vpmaddwd` wants, per residue i with γ_i in the NTT order:
//!
//! ```text
//!   cache[2i], cache[2i+1]             = b0·R, b1·γ_i·R   (mod q, |·| < q)
//!   cache[256+2i], cache[256+2i+1]     = b1·R, b0·R
//!   Σ_k madd(a_k, cache_k[..256])      = Σ a0·b0·R + a1·b1·γ·R  (i32, c0·R)
//!   Σ_k madd(a_k, cache_k[256..])      = Σ a0·b1·R + a1·b0·R    (i32, c1·R)
//! ```
//!
//! one Montgomery reduction takes the sums to `c·R·R⁻¹ = c` exactly (no
//! Montgomery factor left over), then Barrett to canonical or |c| ≤ q/2.
//! Sums of up to 8 terms fit `i32` for any `i16` input; more terms are
//! reduced 8 at a time and added.
//!
//! ML-DSA: the cache is `b·R mod q`; `vpmuldq` products accumulate in 64
//! bits (any `i32` inputs, up to 256 terms), one Montgomery reduction
//! gives `Σ a·b` exactly.
//!
//! No branch or address depends on a coefficient.

use crate::field::{mldsa, mlkem};

/// Terms an ML-KEM sum takes before it is reduced: 8 · 2 · 2^15 · q plus
/// the Montgomery rounding stays below 2^31.
const KEM_TERMS: usize = 8;

/// The bound (exclusive) of a lazy ML-KEM sum of `k` terms of any `i16`
/// inputs: one Montgomery reduction of |x| ≤ k·2·2^15·q gives
/// |c| ≤ (2k + 1)·q/2 for k ≤ 8; longer sums are reduced 8 terms at a time
/// (|c| ≤ q/2 + 1 each) and added: below 2q for 9 to 16 terms, and below q
/// once every further chunk's sum is reduced again.
pub(crate) const fn kem_lazy_bound(k: usize) -> u32 {
    let q = mlkem::Q as u32;
    match k {
        0..=8 => ((2 * k as u32 + 1) * q).div_ceil(2) + 1,
        9..=16 => 2 * q,
        _ => q,
    }
}

/// An ML-KEM NTT-domain polynomial prepared as the second operand of
/// [`MlKemProducts`](crate::MlKemProducts): b·R and b1·γ·R per residue,
/// in the order the products read them (see the `backend::ring::products`
/// module doc). Compute it once per polynomial that multiplies several
/// others (ŝ in Â·ŝ). 1 KiB, 64-byte aligned; its content is the same on
/// every backend.
#[derive(Clone, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct MlKemCache {
    pub(crate) words: [i16; 512],
    /// The NTT order whose γ it holds.
    pub(crate) order: crate::transform::NttOrder,
}

impl Default for MlKemCache {
    fn default() -> Self {
        Self {
            words: [0; 512],
            order: crate::transform::NttOrder::Standard,
        }
    }
}

/// An ML-DSA NTT-domain polynomial prepared as the second operand of
/// [`MlDsaProducts`](crate::MlDsaProducts): `b·R mod q` (|·| < q), 64-byte
/// aligned; the same on every backend.
#[derive(Clone, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct MlDsaCache {
    /// b·R mod q, |·| < q.
    pub(crate) words: [i32; 256],
    /// b·R·q⁻¹ mod 2^32: the low factor of a one-term Montgomery product.
    pub(crate) twisted: [i32; 256],
}

impl Default for MlDsaCache {
    fn default() -> Self {
        Self {
            words: [0; 256],
            twisted: [0; 256],
        }
    }
}

/// The registers of one ISA for ML-KEM products.
///
/// # Safety
/// As [`RingLanes`](super::RingLanes): methods run only inside functions
/// compiled with the ISA's features.
pub(crate) unsafe trait KemMul: Copy {
    /// `i16` lanes per register.
    const LANES: usize;
    /// # Safety
    /// `LANES` readable words at `p`.
    unsafe fn load(p: *const i16) -> Self;
    /// # Safety
    /// `LANES` writable words at `p`.
    unsafe fn store(self, p: *mut i16);
    fn zero() -> Self;
    /// `vpmaddwd`: adjacent `i16` products summed into `i32` lanes.
    fn madd(self, v: Self) -> Self;
    fn add32(self, b: Self) -> Self;
    /// `acc + madd(x, v)` (one `vpdpwssd` where the CPU has VNNI).
    #[inline(always)]
    fn madd_add(acc: Self, x: Self, v: Self) -> Self {
        acc.add32(x.madd(v))
    }
    fn add16(self, b: Self) -> Self;
    /// Montgomery reduction of `i32` lanes `c0` and `c1` into `i16` pairs
    /// `(c0·R⁻¹, c1·R⁻¹)`, each |·| < 2^15.
    fn reduce_pairs(c0: Self, c1: Self) -> Self;
    /// The 16-bit Montgomery product with (w, w·q⁻¹).
    fn montmul(self, w: Self, wq: Self) -> Self;
    /// Swaps the two `i16` of every `i32` lane.
    fn swap_pairs(self) -> Self;
    /// Barrett: |r| ≤ q/2 + 1.
    fn reduce(self) -> Self;
    /// Adds q to negative lanes.
    fn positive(self) -> Self;
}

/// Per coefficient, the Montgomery twiddle that turns b into the cache's
/// first half: R² for even coefficients, γ_i·R² for odd ones (so
/// `montmul(b, ·)` = b·R, b1·γ·R), with its q⁻¹ twist; residues in
/// `order` (γ follows the residue stored at each pair).
pub(crate) fn kem_cache_twiddles(order: crate::transform::NttOrder) -> [[i16; 256]; 2] {
    use crate::transform::ring::{mlkem_gamma_exponent, mlkem_residue_at};
    let r2 = mlkem::R2;
    let mut w = [0i16; 256];
    for pair in 0..128 {
        let residue = mlkem_residue_at(pair, order);
        let gamma =
            crate::field::Field::pow(crate::field::MlKem::new(17), mlkem_gamma_exponent(residue));
        // γ·R² mod q = fqmul(γ·R², R²)… as γ·R mod q times R: fqmul(γ, R²)
        // is γ·R, and fqmul(γ·R, R²) is γ·R².
        let gamma_r = mlkem::fqmul(gamma.value(), r2);
        w[2 * pair] = r2;
        w[2 * pair + 1] = mlkem::fqmul(gamma_r, r2);
    }
    let wq = w.map(|x| x.wrapping_mul(mlkem::QINV));
    [w, wq]
}

/// The cache of `b` with the twiddles of [`kem_cache_twiddles`].
///
/// # Safety
/// `L`'s features are enabled.
#[inline(always)]
pub(crate) unsafe fn kem_cache<L: KemMul>(
    b: &[i16; 256],
    twiddles: &[[i16; 256]; 2],
    cache: &mut MlKemCache,
) {
    let r2 = [mlkem::R2; 64];
    let r2q = [mlkem::R2.wrapping_mul(mlkem::QINV); 64];
    for at in (0..256).step_by(L::LANES) {
        // SAFETY: `at + LANES ≤ 256` for every array read and written (LANES
        // divides 256, and 512 for the cache); the features are enabled.
        unsafe {
            let v = L::load(b.as_ptr().add(at));
            let first = v.montmul(
                L::load(twiddles[0].as_ptr().add(at)),
                L::load(twiddles[1].as_ptr().add(at)),
            );
            let both_r = v.montmul(L::load(r2.as_ptr()), L::load(r2q.as_ptr()));
            first.store(cache.words.as_mut_ptr().add(at));
            both_r
                .swap_pairs()
                .store(cache.words.as_mut_ptr().add(256 + at));
        }
    }
}

/// `out = Σ a_k ∘ b_k` for the cached `b_k`: canonical if `CANONICAL`, else
/// within [`kem_lazy_bound`]. Any `i16` inputs; `a` and `caches` of equal
/// length ≥ 1. One to four terms run with the term loop written out.
///
/// # Safety
/// `L`'s features are enabled.
#[inline(always)]
pub(crate) unsafe fn kem_multiply_accumulate<L: KemMul, const CANONICAL: bool>(
    a: &[[i16; 256]],
    caches: &[MlKemCache],
    out: &mut [i16; 256],
) {
    assert!(a.len() == caches.len() && !a.is_empty(), "k terms, k ≥ 1");
    // SAFETY (every arm): `L`'s features are enabled (this function's
    // contract); each call gets as many terms as it says.
    unsafe {
        match a.len() {
            1 => kem_sum::<L, 1, CANONICAL>(a, caches, out),
            2 => kem_sum::<L, 2, CANONICAL>(a, caches, out),
            3 => kem_sum::<L, 3, CANONICAL>(a, caches, out),
            4 => kem_sum::<L, 4, CANONICAL>(a, caches, out),
            k if k <= KEM_TERMS => kem_sum::<L, 0, CANONICAL>(a, caches, out),
            _ => {
                // Eight terms at a time, each chunk's sum reduced and added
                // (the portable kernel does the same, step for step).
                let mut part = [0i16; 256];
                for (chunk, (a, caches)) in a
                    .chunks(KEM_TERMS)
                    .zip(caches.chunks(KEM_TERMS))
                    .enumerate()
                {
                    kem_sum::<L, 0, false>(a, caches, &mut part);
                    for at in (0..256).step_by(L::LANES) {
                        let p = L::load(part.as_ptr().add(at)).reduce();
                        let t = L::load(out.as_ptr().add(at));
                        let t = match chunk {
                            0 => p,
                            1 => t.reduce().add16(p),
                            _ => t.add16(p).reduce(),
                        };
                        t.store(out.as_mut_ptr().add(at));
                    }
                }
                if CANONICAL {
                    for at in (0..256).step_by(L::LANES) {
                        let t = L::load(out.as_ptr().add(at));
                        t.reduce().positive().store(out.as_mut_ptr().add(at));
                    }
                }
            }
        }
    }
}

/// Σ of up to 8 terms (`K` of them, or `a.len()` if `K` is 0), one
/// Montgomery reduction, then canonical if `CANONICAL`.
///
/// # Safety
/// `L`'s features are enabled.
#[inline(always)]
unsafe fn kem_sum<L: KemMul, const K: usize, const CANONICAL: bool>(
    a: &[[i16; 256]],
    caches: &[MlKemCache],
    out: &mut [i16; 256],
) {
    let k = if K == 0 { a.len() } else { K };
    assert!(k <= KEM_TERMS && a.len() >= k && caches.len() >= k);
    for at in (0..256).step_by(L::LANES) {
        let (mut c0, mut c1) = (L::zero(), L::zero());
        for (a, cache) in a[..k].iter().zip(&caches[..k]) {
            // SAFETY: `at + LANES ≤ 256` (LANES divides 256): inside `a`,
            // and inside both halves of the cache.
            unsafe {
                let x = L::load(a.as_ptr().add(at));
                c0 = L::madd_add(c0, x, L::load(cache.words.as_ptr().add(at)));
                c1 = L::madd_add(c1, x, L::load(cache.words.as_ptr().add(256 + at)));
            }
        }
        let mut r = L::reduce_pairs(c0, c1);
        if CANONICAL {
            r = r.reduce().positive();
        }
        // SAFETY: as above.
        unsafe { r.store(out.as_mut_ptr().add(at)) }
    }
}

/// The registers of one ISA for ML-DSA products.
///
/// # Safety
/// As [`KemMul`].
pub(crate) unsafe trait DsaMul: Copy {
    /// `i32` lanes per register.
    const LANES: usize;
    /// Whether the one-shot product makes b·R in registers ([`dsa_multiply`]);
    /// else it goes through a cache on the stack (faster where the 64-bit
    /// reduction takes more shuffles than the cache's twisted product).
    const FUSED_MULTIPLY: bool = true;
    /// # Safety
    /// `LANES` readable words at `p`.
    unsafe fn load(p: *const i32) -> Self;
    /// # Safety
    /// `LANES` writable words at `p`.
    unsafe fn store(self, p: *mut i32);
    fn zero() -> Self;
    /// Products of the even lanes and of the odd lanes, as 64-bit lanes.
    fn mul_wide(self, b: Self) -> (Self, Self);
    fn add64(self, b: Self) -> Self;
    /// Montgomery reduction of the 64-bit sums of the even and odd lanes
    /// into `i32` lanes `Σ·R⁻¹`.
    fn reduce_wide(even: Self, odd: Self) -> Self;
    /// `x·R` for |x| < 2^31, |·| < q (a Montgomery product by R²).
    fn times_r(self) -> Self;
    /// `x·q⁻¹ mod 2^32` lane by lane.
    fn twist(self) -> Self;
    /// The Montgomery product `self·b·R⁻¹` for `b` with its twist `bt`:
    /// m = lo32(self·bt), r = hi32(self·b) − hi32(m·q); |r| < q for
    /// |self·b| < 2^31·q.
    fn mul_twisted(self, b: Self, bt: Self) -> Self;
    /// Any `i32` to |r| ≤ q/2 + 2^13.
    fn reduce(self) -> Self;
    /// Adds q to negative lanes.
    fn positive(self) -> Self;
}

/// The cache of `b`: `b·R mod q`.
///
/// # Safety
/// `L`'s features are enabled.
#[inline(always)]
pub(crate) unsafe fn dsa_cache<L: DsaMul>(b: &[i32; 256], cache: &mut MlDsaCache) {
    for at in (0..256).step_by(L::LANES) {
        // SAFETY: `at + LANES ≤ 256`; the features are enabled.
        unsafe {
            let br = L::load(b.as_ptr().add(at)).times_r();
            br.store(cache.words.as_mut_ptr().add(at));
            br.twist().store(cache.twisted.as_mut_ptr().add(at));
        }
    }
}

/// `out = Σ a_k · b_k` coefficient-wise for the cached `b_k`: canonical if
/// `CANONICAL`, else |out| ≤ (k + 1)·q/2 (one Montgomery reduction of
/// |x| ≤ k·2^31·q). Any `i32` inputs, 1 ≤ k ≤ 256 terms; one to four with
/// the term loop written out.
///
/// # Safety
/// `L`'s features are enabled.
#[inline(always)]
pub(crate) unsafe fn dsa_multiply_accumulate<L: DsaMul, const CANONICAL: bool>(
    a: &[[i32; 256]],
    caches: &[MlDsaCache],
    out: &mut [i32; 256],
) {
    // 256 · 2^31 · q < 2^63 − 2^31·q: the 64-bit sums cannot overflow.
    assert!(
        a.len() == caches.len() && (1..=256).contains(&a.len()),
        "1 ≤ k ≤ 256 terms"
    );
    // SAFETY (every arm): the features are enabled; the term counts match.
    unsafe {
        match a.len() {
            1 => dsa_product::<L, CANONICAL>(&a[0], &caches[0], out),
            2 => dsa_sum::<L, 2, CANONICAL>(a, caches, out),
            3 => dsa_sum::<L, 3, CANONICAL>(a, caches, out),
            4 => dsa_sum::<L, 4, CANONICAL>(a, caches, out),
            _ => dsa_sum::<L, 0, CANONICAL>(a, caches, out),
        }
    }
}

/// One term: a Montgomery product with the cache's twist (five multiplies
/// where the 64-bit sum and its reduction take six); |r| < q.
///
/// # Safety
/// `L`'s features are enabled.
#[inline(always)]
unsafe fn dsa_product<L: DsaMul, const CANONICAL: bool>(
    a: &[i32; 256],
    cache: &MlDsaCache,
    out: &mut [i32; 256],
) {
    for at in (0..256).step_by(L::LANES) {
        // SAFETY: `at + LANES ≤ 256`.
        unsafe {
            let r = L::load(a.as_ptr().add(at)).mul_twisted(
                L::load(cache.words.as_ptr().add(at)),
                L::load(cache.twisted.as_ptr().add(at)),
            );
            let r = if CANONICAL { r.positive() } else { r };
            r.store(out.as_mut_ptr().add(at));
        }
    }
}

/// `out = a · b` coefficient-wise with no cache of the caller's: b·R (a
/// Montgomery product by R², |·| < q) in registers, then the one-term
/// Montgomery product of a with it (or, where `L::FUSED_MULTIPLY` is off,
/// through a cache on the stack). The same words as [`dsa_cache`] then [`dsa_product`] (the same
/// x = a·b·R and the same m mod 2^32), without the cache's round trip
/// through memory.
///
/// # Safety
/// `L`'s features are enabled.
#[inline(always)]
pub(crate) unsafe fn dsa_multiply<L: DsaMul, const CANONICAL: bool>(
    a: &[i32; 256],
    b: &[i32; 256],
    out: &mut [i32; 256],
) {
    if !L::FUSED_MULTIPLY {
        let mut cache = MlDsaCache::default();
        // SAFETY: the features are enabled (this function's contract).
        unsafe {
            dsa_cache::<L>(b, &mut cache);
            dsa_product::<L, CANONICAL>(a, &cache, out);
        }
        return;
    }
    for at in (0..256).step_by(L::LANES) {
        // SAFETY: `at + LANES ≤ 256` for the three arrays.
        unsafe {
            let br = L::load(b.as_ptr().add(at)).times_r();
            let (e, o) = L::load(a.as_ptr().add(at)).mul_wide(br);
            // |a·bR| < 2^31·q: |r| < q.
            let r = L::reduce_wide(e, o);
            let r = if CANONICAL { r.positive() } else { r };
            r.store(out.as_mut_ptr().add(at));
        }
    }
}

/// Σ of `K` terms (`a.len()` if `K` is 0), one Montgomery reduction.
///
/// # Safety
/// `L`'s features are enabled.
#[inline(always)]
unsafe fn dsa_sum<L: DsaMul, const K: usize, const CANONICAL: bool>(
    a: &[[i32; 256]],
    caches: &[MlDsaCache],
    out: &mut [i32; 256],
) {
    let k = if K == 0 { a.len() } else { K };
    assert!(a.len() >= k && caches.len() >= k);
    for at in (0..256).step_by(L::LANES) {
        let (mut even, mut odd) = (L::zero(), L::zero());
        for (a, cache) in a[..k].iter().zip(&caches[..k]) {
            // SAFETY: `at + LANES ≤ 256`.
            let (e, o) = unsafe {
                L::load(a.as_ptr().add(at)).mul_wide(L::load(cache.words.as_ptr().add(at)))
            };
            even = even.add64(e);
            odd = odd.add64(o);
        }
        let mut r = L::reduce_wide(even, odd);
        if CANONICAL {
            // One term: |r| < q already (|a·b·R| < 2^31·q).
            r = if k == 1 {
                r.positive()
            } else {
                r.reduce().positive()
            };
        }
        // SAFETY: as above.
        unsafe { r.store(out.as_mut_ptr().add(at)) }
    }
}

/// A multiply-accumulate entry point: `(a, caches of b, out)`.
pub(crate) type KemSum = unsafe fn(&[[i16; 256]], &[MlKemCache], &mut [i16; 256]);
/// ML-DSA's multiply-accumulate entry point.
pub(crate) type DsaSum = unsafe fn(&[[i32; 256]], &[MlDsaCache], &mut [i32; 256]);

/// One ISA's product entry points: `[lazy, canonical]` for the sums.
pub(crate) struct KemProductFns {
    pub(crate) cache: unsafe fn(&[i16; 256], &[[i16; 256]; 2], &mut MlKemCache),
    pub(crate) multiply_accumulate: [KemSum; 2],
}

/// ML-DSA's one-shot product entry point: `(a, b, out)`.
pub(crate) type DsaProduct = unsafe fn(&[i32; 256], &[i32; 256], &mut [i32; 256]);

/// One ISA's ML-DSA product entry points (`[lazy, canonical]`).
pub(crate) struct DsaProductFns {
    pub(crate) cache: unsafe fn(&[i32; 256], &mut MlDsaCache),
    pub(crate) multiply_accumulate: [DsaSum; 2],
    pub(crate) multiply: [DsaProduct; 2],
}

/// An ISA's ML-KEM product entry points for its lane type `$kem` (a path
/// from inside module `$module`), compiled with `$features`, as
/// `$module::FNS`.
macro_rules! kem_product_entry_points {
    ($module:ident, $kem:ty, $features:literal) => {
        pub(crate) mod $module {
            #[target_feature(enable = $features)]
            unsafe fn cache(
                b: &[i16; 256],
                twiddles: &[[i16; 256]; 2],
                cache: &mut $crate::backend::ring::products::MlKemCache,
            ) {
                // SAFETY: this function's features are the lane type's.
                unsafe { $crate::backend::ring::products::kem_cache::<$kem>(b, twiddles, cache) }
            }
            #[target_feature(enable = $features)]
            unsafe fn multiply_accumulate<const CANONICAL: bool>(
                a: &[[i16; 256]],
                caches: &[$crate::backend::ring::products::MlKemCache],
                out: &mut [i16; 256],
            ) {
                // SAFETY: as above.
                unsafe {
                    $crate::backend::ring::products::kem_multiply_accumulate::<$kem, CANONICAL>(
                        a, caches, out,
                    )
                }
            }
            /// The ML-KEM products of this lane type.
            pub(crate) const FNS: $crate::backend::ring::products::KemProductFns =
                $crate::backend::ring::products::KemProductFns {
                    cache,
                    multiply_accumulate: [
                        multiply_accumulate::<false>,
                        multiply_accumulate::<true>,
                    ],
                };
        }
    };
}
pub(crate) use kem_product_entry_points;

/// An ISA's ML-DSA product entry points for its lane type, as `$name`.
macro_rules! dsa_product_entry_points {
    ($dsa:ty, $features:literal, $name:ident) => {
        #[target_feature(enable = $features)]
        unsafe fn dsa_cache(
            b: &[i32; 256],
            cache: &mut $crate::backend::ring::products::MlDsaCache,
        ) {
            // SAFETY: this function's features are the lane type's.
            unsafe { $crate::backend::ring::products::dsa_cache::<$dsa>(b, cache) }
        }
        #[target_feature(enable = $features)]
        unsafe fn dsa_multiply_accumulate<const CANONICAL: bool>(
            a: &[[i32; 256]],
            caches: &[$crate::backend::ring::products::MlDsaCache],
            out: &mut [i32; 256],
        ) {
            // SAFETY: as above.
            unsafe {
                $crate::backend::ring::products::dsa_multiply_accumulate::<$dsa, CANONICAL>(
                    a, caches, out,
                )
            }
        }
        #[target_feature(enable = $features)]
        unsafe fn dsa_multiply<const CANONICAL: bool>(
            a: &[i32; 256],
            b: &[i32; 256],
            out: &mut [i32; 256],
        ) {
            // SAFETY: as above.
            unsafe { $crate::backend::ring::products::dsa_multiply::<$dsa, CANONICAL>(a, b, out) }
        }
        /// The ML-DSA products of this lane type.
        pub(crate) const $name: $crate::backend::ring::products::DsaProductFns =
            $crate::backend::ring::products::DsaProductFns {
                cache: dsa_cache,
                multiply_accumulate: [
                    dsa_multiply_accumulate::<false>,
                    dsa_multiply_accumulate::<true>,
                ],
                multiply: [dsa_multiply::<false>, dsa_multiply::<true>],
            };
    };
}
pub(crate) use dsa_product_entry_points;

/// The portable products: plain loops over the coefficient arrays (the
/// compiler vectorises them), the same arithmetic and chunking as the
/// generic kernels, so canonical results agree bit for bit.
pub(crate) mod portable;

//! NTT-domain products of the lattice rings, as a KEM or signature
//! codebase calls them: into caller buffers, on raw words or field
//! elements, with a precomputed operand (the *cache*, like mlkem-native's
//! mulcache) and k-term multiply-accumulates that reduce once.
//!
//! Built once (like a plan: the backend is detected or forced, the order
//! and reduction chosen), then called many times from any thread.

use crate::backend::ring::products::{DsaProductFns, KemProductFns, MlDsaCache, MlKemCache};
use crate::backend::ring::select;
use crate::backend::Backend;
use crate::error::Error;
use crate::field::{MlDsa, MlKem};
use crate::transform::{NttOrder, Reduction};
use alloc::boxed::Box;

/// ML-KEM's NTT-domain products (FIPS 203 Algorithms 11 and 12,
/// MultiplyNTTs and BaseCaseMultiply) with `vpmaddwd` sums on AVX2 and
/// AVX-512 and the portable code elsewhere; every backend gives the same
/// canonical results.
///
/// Operands are NTT-domain polynomials in the products' [`NttOrder`] (the
/// standard one by default, or the permuted order of
/// [`Transform::ntt_order`](crate::Transform::ntt_order)). Raw operands may be
/// any `i16` (a lazy NTT's output included); the result is canonical, or
/// with [`Reduction::Lazy`] a representative below
/// [`lazy_bound`](Self::lazy_bound) (no final reduction, as mlkem-native's
/// `basemul_acc` leaves it).
///
/// ```
/// use nttfuse::{MlKem, MlKemProducts, Planner, Transform};
/// let ntt = Planner::new().plan(&Transform::<MlKem>::negacyclic_forward())?;
/// let products = MlKemProducts::new();
/// // One row of Â·ŝ for k = 3: cache each ŝ_j once, reuse it for every row.
/// let mut s = [[3i16; 256], [5; 256], [7; 256]];
/// for p in &mut s {
///     ntt.execute_raw(p)?;
/// }
/// let caches: Vec<_> = s.iter().map(|p| products.cache(p)).collect();
/// let row = [[1i16; 256], [2; 256], [3; 256]]; // Â's row, in the NTT domain
/// let mut t = [0i16; 256];
/// products.multiply_accumulate(&row, &caches, &mut t)?;
/// // The same as three products added.
/// let mut sum = [MlKem::ZERO; 256];
/// for (a, b) in row.iter().zip(&s) {
///     let term = products.multiply_elements(MlKem::try_from_raw_array(a)?, MlKem::try_from_raw_array(b)?);
///     sum.iter_mut().zip(term).for_each(|(x, y)| *x += y);
/// }
/// assert_eq!(MlKem::try_from_raw(&t)?, &sum[..]);
/// # Ok::<(), nttfuse::Error>(())
/// ```
#[derive(Clone)]
pub struct MlKemProducts {
    fns: &'static KemProductFns,
    backend: Backend,
    order: NttOrder,
    reduction: Reduction,
    /// Per coefficient: R² (even) or γ·R² (odd), and its q⁻¹ twist.
    twiddles: Box<[[i16; 256]; 2]>,
}

impl Default for MlKemProducts {
    fn default() -> Self {
        Self::new()
    }
}

impl core::fmt::Debug for MlKemProducts {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("MlKemProducts")
            .field("backend", &self.backend)
            .field("order", &self.order)
            .field("reduction", &self.reduction)
            .finish_non_exhaustive()
    }
}

/// `Ok` if `a` and `b` hold the same number (≥ 1) of terms.
fn check_terms(a: usize, b: usize) -> Result<(), Error> {
    if a == b && a > 0 {
        Ok(())
    } else {
        Err(Error::LengthMismatch {
            what: "product terms",
            expected: a.max(1),
            got: b,
        })
    }
}

/// Whole polynomials, the same number in each of `lens`.
fn check_batch(lens: [usize; 3]) -> Result<usize, Error> {
    if lens.iter().all(|&l| l == lens[0] && l % 256 == 0) && lens[0] > 0 {
        Ok(lens[0] / 256)
    } else {
        Err(Error::LengthMismatch {
            what: "product batch",
            expected: lens[0].next_multiple_of(256).max(256),
            got: lens[1].min(lens[2]),
        })
    }
}

impl MlKemProducts {
    /// The products on the fastest backend this CPU has, standard order,
    /// canonical output.
    pub fn new() -> Self {
        Self::from_checked(Backend::detect_checked::<MlKem>())
    }

    /// The products on `backend`: [`Error::BackendUnavailable`] where this
    /// CPU lacks it.
    pub fn on(backend: Backend) -> Result<Self, Error> {
        Ok(Self::from_checked(backend.check::<MlKem>()?))
    }

    fn from_checked(checked: crate::backend::Checked<MlKem>) -> Self {
        Self {
            fns: select::kem_products(checked),
            backend: checked.backend(),
            order: NttOrder::Standard,
            reduction: Reduction::Canonical,
            twiddles: Box::new(crate::backend::ring::products::kem_cache_twiddles(
                NttOrder::Standard,
            )),
        }
    }

    /// Operands in `order` (the NTT output order of the plans they come
    /// from).
    pub fn order(mut self, order: NttOrder) -> Self {
        if order != self.order {
            self.order = order;
            self.twiddles = Box::new(crate::backend::ring::products::kem_cache_twiddles(order));
        }
        self
    }

    /// Canonical results (the default) or lazy ones (within
    /// [`lazy_bound`](Self::lazy_bound), from the raw-word entry points).
    pub fn reduction(mut self, reduction: Reduction) -> Self {
        self.reduction = reduction;
        self
    }

    /// The bound (exclusive) on |c| of a lazy sum of `k` terms, for any
    /// `i16` inputs: (2k + 1)·q/2 up to 8 terms (one Montgomery reduction
    /// of the `i32` sums), 2q for 9 to 16, q beyond (sums reduced 8 terms at
    /// a time).
    ///
    /// ```
    /// assert_eq!(nttfuse::MlKemProducts::lazy_bound(3), 11_653);
    /// ```
    pub fn lazy_bound(k: usize) -> u32 {
        crate::backend::ring::products::kem_lazy_bound(k)
    }

    /// The backend whose kernels run.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The cache of `b` (any `i16` words, NTT domain).
    pub fn cache(&self, b: &[i16; 256]) -> MlKemCache {
        let mut cache = MlKemCache::default();
        self.cache_into(b, &mut cache);
        cache
    }

    /// [`cache`](Self::cache) into a caller's buffer.
    pub fn cache_into(&self, b: &[i16; 256], cache: &mut MlKemCache) {
        cache.order = self.order;
        // SAFETY: `fns` are the kernels of a backend `Backend::check` found
        // on this CPU (`from_checked`).
        unsafe { (self.fns.cache)(b, &self.twiddles, cache) }
    }

    /// `out = Σ_k a_k ∘ b_k` (FIPS 203 MultiplyNTTs, summed), one reduction
    /// per 8 terms. Any `i16` words in `a`. Errors:
    /// [`Error::LengthMismatch`] unless `a` and `b` hold the same number
    /// (≥ 1) of polynomials, [`Error::Unsupported`] for a cache made for
    /// another order.
    pub fn multiply_accumulate(
        &self,
        a: &[[i16; 256]],
        b: &[MlKemCache],
        out: &mut [i16; 256],
    ) -> Result<(), Error> {
        check_terms(a.len(), b.len())?;
        // Public: the order each cache was made for.
        if b.iter().any(|c| c.order != self.order) {
            return Err(Error::Unsupported {
                what: "a cache made for another NTT order than these products'",
            });
        }
        // SAFETY: as in `cache_into`.
        unsafe { (self.fns.multiply_accumulate[self.canonical()])(a, b, out) }
        Ok(())
    }

    /// `out = a ∘ b` for a cached `b` ([`Error::Unsupported`] for a cache
    /// made for another order).
    pub fn multiply_cached(
        &self,
        a: &[i16; 256],
        b: &MlKemCache,
        out: &mut [i16; 256],
    ) -> Result<(), Error> {
        self.multiply_accumulate(core::slice::from_ref(a), core::slice::from_ref(b), out)
    }

    /// `out = a ∘ b` (caches `b` on the stack first).
    pub fn multiply(&self, a: &[i16; 256], b: &[i16; 256], out: &mut [i16; 256]) {
        let cache = self.cache(b);
        // SAFETY: as in `cache_into`; the cache is this one's.
        unsafe {
            (self.fns.multiply_accumulate[self.canonical()])(
                core::slice::from_ref(a),
                core::slice::from_ref(&cache),
                out,
            )
        }
    }

    /// `out[i] = a[i] ∘ b[i]` for polynomials one after another (the layout
    /// of a `.batch(k)` plan): [`Error::LengthMismatch`] unless the three
    /// hold the same whole number of polynomials.
    pub fn multiply_batch(&self, a: &[i16], b: &[i16], out: &mut [i16]) -> Result<(), Error> {
        check_batch([a.len(), b.len(), out.len()])?;
        let (out, _) = out.as_chunks_mut::<256>();
        for ((a, b), out) in a
            .as_chunks::<256>()
            .0
            .iter()
            .zip(b.as_chunks::<256>().0)
            .zip(out)
        {
            self.multiply(a, b, out);
        }
        Ok(())
    }

    /// `a ∘ b` of field elements (canonical, whatever the reduction
    /// setting): FIPS 203 MultiplyNTTs.
    pub fn multiply_elements(&self, a: &[MlKem; 256], b: &[MlKem; 256]) -> [MlKem; 256] {
        let (a, b) = (as_raw_kem(a), as_raw_kem(b));
        let cache = self.cache(b);
        let mut out = [0i16; 256];
        // SAFETY: as in `cache_into`; the canonical kernel.
        unsafe {
            (self.fns.multiply_accumulate[1])(
                core::slice::from_ref(a),
                core::slice::from_ref(&cache),
                &mut out,
            )
        }
        out.map(MlKem::new)
    }

    fn canonical(&self) -> usize {
        usize::from(self.reduction == Reduction::Canonical)
    }
}

fn as_raw_kem(a: &[MlKem; 256]) -> &[i16; 256] {
    MlKem::as_raw_array(a)
}

fn as_raw_dsa(a: &[MlDsa; 256]) -> &[i32; 256] {
    MlDsa::as_raw_array(a)
}

/// ML-DSA's NTT-domain products (FIPS 204 MultiplyNTT, coefficient-wise):
/// 64-bit sums of `vpmuldq` products and one Montgomery reduction per
/// k-term sum on AVX2 and AVX-512, the portable code elsewhere; the same
/// canonical results on every backend. The order of the operands does not
/// matter (the product is coefficient-wise), so both NTT orders work.
/// Raw operands may be any `i32`; results canonical, or with
/// [`Reduction::Lazy`] below [`lazy_bound`](Self::lazy_bound).
///
/// ```
/// use nttfuse::{MlDsa, MlDsaProducts};
/// let products = MlDsaProducts::new();
/// let c = [2i32; 256];
/// let cache = products.cache(&c); // ĉ multiplies ŝ1, ŝ2, t̂0: cache it once
/// let mut out = [0i32; 256];
/// products.multiply_cached(&[21; 256], &cache, &mut out);
/// assert_eq!(out, [42; 256]);
/// ```
#[derive(Clone)]
pub struct MlDsaProducts {
    fns: &'static DsaProductFns,
    backend: Backend,
    reduction: Reduction,
}

impl Default for MlDsaProducts {
    fn default() -> Self {
        Self::new()
    }
}

impl core::fmt::Debug for MlDsaProducts {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("MlDsaProducts")
            .field("backend", &self.backend)
            .field("reduction", &self.reduction)
            .finish_non_exhaustive()
    }
}

impl MlDsaProducts {
    /// The products on the fastest backend this CPU has, canonical output.
    pub fn new() -> Self {
        Self::from_checked(Backend::detect_checked::<MlDsa>())
    }

    /// The products on `backend`: [`Error::BackendUnavailable`] where this
    /// CPU lacks it.
    pub fn on(backend: Backend) -> Result<Self, Error> {
        Ok(Self::from_checked(backend.check::<MlDsa>()?))
    }

    fn from_checked(checked: crate::backend::Checked<MlDsa>) -> Self {
        Self {
            fns: select::dsa_products(checked),
            backend: checked.backend(),
            reduction: Reduction::Canonical,
        }
    }

    /// Canonical results (the default) or lazy ones (within
    /// [`lazy_bound`](Self::lazy_bound)).
    pub fn reduction(mut self, reduction: Reduction) -> Self {
        self.reduction = reduction;
        self
    }

    /// The bound (inclusive) on |c| of a lazy sum of `k` terms of any `i32`
    /// inputs: one Montgomery reduction of |x| ≤ k·2^31·q gives
    /// |c| ≤ (k + 1)·q/2.
    ///
    /// ```
    /// assert_eq!(nttfuse::MlDsaProducts::lazy_bound(1), 8_380_417);
    /// ```
    pub fn lazy_bound(k: usize) -> u64 {
        (k as u64 + 1) * crate::field::mldsa::Q as u64 / 2
    }

    /// The backend whose kernels run.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The cache of `b` (any `i32` words).
    pub fn cache(&self, b: &[i32; 256]) -> MlDsaCache {
        let mut cache = MlDsaCache::default();
        self.cache_into(b, &mut cache);
        cache
    }

    /// [`cache`](Self::cache) into a caller's buffer.
    pub fn cache_into(&self, b: &[i32; 256], cache: &mut MlDsaCache) {
        // SAFETY: `fns` are the kernels of a backend `Backend::check` found
        // on this CPU (`from_checked`).
        unsafe { (self.fns.cache)(b, cache) }
    }

    /// `out = Σ_k a_k · b_k` coefficient-wise, one reduction per sum; any
    /// `i32` words in `a`. [`Error::LengthMismatch`] unless `a` and `b`
    /// hold the same number of polynomials, from 1 to 256.
    pub fn multiply_accumulate(
        &self,
        a: &[[i32; 256]],
        b: &[MlDsaCache],
        out: &mut [i32; 256],
    ) -> Result<(), Error> {
        check_terms(a.len(), b.len())?;
        if a.len() > 256 {
            return Err(Error::LengthMismatch {
                what: "product terms",
                expected: 256,
                got: a.len(),
            });
        }
        // SAFETY: as in `cache_into`.
        unsafe { (self.fns.multiply_accumulate[self.canonical()])(a, b, out) }
        Ok(())
    }

    /// `out = a · b` coefficient-wise for a cached `b`.
    pub fn multiply_cached(&self, a: &[i32; 256], b: &MlDsaCache, out: &mut [i32; 256]) {
        // SAFETY: as in `cache_into`; one term.
        unsafe {
            (self.fns.multiply_accumulate[self.canonical()])(
                core::slice::from_ref(a),
                core::slice::from_ref(b),
                out,
            )
        }
    }

    /// `out = a · b` coefficient-wise, in one pass with no cache (b·R is
    /// made in registers): the same words as [`cache`](Self::cache) then
    /// [`multiply_cached`](Self::multiply_cached). Cache `b` instead when
    /// it multiplies several polynomials.
    pub fn multiply(&self, a: &[i32; 256], b: &[i32; 256], out: &mut [i32; 256]) {
        // SAFETY: as in `cache_into`.
        unsafe { (self.fns.multiply[self.canonical()])(a, b, out) }
    }

    /// `out[i] = a[i] · b[i]` for polynomials one after another:
    /// [`Error::LengthMismatch`] unless the three hold the same whole number
    /// of polynomials.
    pub fn multiply_batch(&self, a: &[i32], b: &[i32], out: &mut [i32]) -> Result<(), Error> {
        check_batch([a.len(), b.len(), out.len()])?;
        let (out, _) = out.as_chunks_mut::<256>();
        for ((a, b), out) in a
            .as_chunks::<256>()
            .0
            .iter()
            .zip(b.as_chunks::<256>().0)
            .zip(out)
        {
            self.multiply(a, b, out);
        }
        Ok(())
    }

    /// `a · b` of field elements (canonical whatever the reduction
    /// setting): FIPS 204 MultiplyNTT.
    pub fn multiply_elements(&self, a: &[MlDsa; 256], b: &[MlDsa; 256]) -> [MlDsa; 256] {
        let cache = self.cache(as_raw_dsa(b));
        let mut out = [0i32; 256];
        // SAFETY: as in `cache_into`; the canonical kernel.
        unsafe {
            (self.fns.multiply_accumulate[1])(
                core::slice::from_ref(as_raw_dsa(a)),
                core::slice::from_ref(&cache),
                &mut out,
            )
        }
        out.map(MlDsa::new)
    }

    fn canonical(&self) -> usize {
        usize::from(self.reduction == Reduction::Canonical)
    }
}

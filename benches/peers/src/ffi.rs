//! The peers' entry points, as `csrc/*.c` (our glue) exports them, with safe
//! wrappers over 64-byte-aligned buffers.
//!
//! mlkem-native (`MLKEM_NATIVE_DIR`), one build per row of `MLKEM_BUILDS` in
//! build.rs, each exporting `peer_mlkem_<build>_<fn>`:
//!
//! | export | mlkem-native function | semantics |
//! | --- | --- | --- |
//! | `poly_ntt(int16_t r[256])` | `mlk_poly_ntt` | in: \|a\| < q, normal order; out: \|r\| < 8q, FIPS 203 (bit-reversed) order, or the AVX2 backend's own order |
//! | `poly_invntt_tomont(int16_t r[256])` | `mlk_poly_invntt_tomont` | in: any int16, NTT order as above; out: NTT⁻¹ · 2^16 (mod q), \|r\| < 8q, normal order |
//! | `polyvec_ntt` / `polyvec_invntt_tomont(int16_t v[256k])` | `mlk_polyvec_*` | the above on k polynomials |
//! | `poly_mulcache_compute(int16_t c[128], const int16_t b[256])` | `mlk_poly_mulcache_compute` | c[i] = b[2i+1] · γ_i mod q, \|c\| < q (a Montgomery product with γ_i·2^16), for the base multiplication |
//! | `polyvec_mulcache_compute(int16_t c[128k], const int16_t b[256k])` | `mlk_polyvec_mulcache_compute` | the above on k polynomials |
//! | `polyvec_basemul_acc_montgomery_cached(r, a, b, c)` | same name | in: a ∈ [0, 4096), b, c = mulcache(b); out: r = Σ_k a_k ∘ b_k · 2^−16 (mod q), not reduced to a canonical range |
//! | `permute_bitrev_to_custom(int16_t r[256])` | `mlk_nttunpack_avx2_asm` | FIPS 203 NTT order → the AVX2 backend's order (returns 0 and does nothing in the portable build) |
//! | `k()` | — | k of the build |
//!
//! pq-crystals/dilithium (`DILITHIUM_DIR`), mode 3 (the NTT is the same in
//! every mode), q = 8380417:
//!
//! | export | dilithium function | semantics |
//! | --- | --- | --- |
//! | `peer_dilithium_avx2_ntt(int32_t a[256])` | `pqcrystals_dilithium3_avx2_ntt_avx(a, qdata)` | in: normal order (small or \|a\| < q); out: \|r\| < 9q, the avx2 code's own order |
//! | `peer_dilithium_avx2_invntt_tomont` | `pqcrystals_dilithium3_avx2_invntt_avx(a, qdata)` | in: \|a\| < q, avx2 order; out: NTT⁻¹ · 2^32 (mod q), \|r\| < q |
//! | `peer_dilithium_avx2_pointwise_montgomery(c, a, b)` | `pqcrystals_dilithium3_avx2_pointwise_avx(c, a, b, qdata)` | c = a ∘ b · 2^−32 (mod q), \|c\| < q |
//! | `peer_dilithium_avx2_nttunpack(a)` | `pqcrystals_dilithium3_avx2_nttunpack_avx(a)` | FIPS 204 NTT order → the avx2 code's order |
//! | `peer_dilithium_ref_ntt(int32_t a[256])` | `pqcrystals_dilithium3_ref_ntt` | in: normal order; out: FIPS 204 (bit-reversed) order, no reduction (\|r\| < 9q for \|a\| < q) |
//! | `peer_dilithium_ref_invntt_tomont` | `pqcrystals_dilithium3_ref_invntt_tomont` | in: \|a\| < q; out: NTT⁻¹ · 2^32 (mod q), \|r\| < q |

#![allow(dead_code)]

/// A 64-byte-aligned value: every buffer handed to a peer (whose assembly
/// uses aligned loads) and, for the same cache behaviour, to nttfuse.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct Aligned<T>(pub T);

/// One ML-KEM polynomial.
pub type Poly16 = Aligned<[i16; 256]>;
/// K ML-KEM polynomials one after another (an mlkem-native polyvec).
pub type PolyVec16<const K: usize> = Aligned<[[i16; 256]; K]>;
/// K mulcaches of 128 entries (an mlkem-native polyvec_mulcache).
pub type Cache16<const K: usize> = Aligned<[[i16; 128]; K]>;
/// One ML-DSA polynomial.
pub type Poly32 = Aligned<[i32; 256]>;

#[cfg(has_mlkem_native)]
macro_rules! mlkem_native_build {
    ($module:ident, $prefix:literal) => {
        pub mod $module {
            extern "C" {
                #[link_name = concat!($prefix, "_k")]
                pub fn k() -> i32;
                #[link_name = concat!($prefix, "_poly_ntt")]
                pub fn poly_ntt(r: *mut i16);
                #[link_name = concat!($prefix, "_poly_invntt_tomont")]
                pub fn poly_invntt_tomont(r: *mut i16);
                #[link_name = concat!($prefix, "_polyvec_ntt")]
                pub fn polyvec_ntt(v: *mut i16);
                #[link_name = concat!($prefix, "_polyvec_invntt_tomont")]
                pub fn polyvec_invntt_tomont(v: *mut i16);
                #[link_name = concat!($prefix, "_poly_mulcache_compute")]
                pub fn poly_mulcache_compute(cache: *mut i16, p: *const i16);
                #[link_name = concat!($prefix, "_polyvec_mulcache_compute")]
                pub fn polyvec_mulcache_compute(cache: *mut i16, v: *const i16);
                #[link_name = concat!($prefix, "_polyvec_basemul_acc_montgomery_cached")]
                pub fn polyvec_basemul_acc_montgomery_cached(
                    r: *mut i16,
                    a: *const i16,
                    b: *const i16,
                    b_cache: *const i16,
                );
                #[link_name = concat!($prefix, "_permute_bitrev_to_custom")]
                pub fn permute_bitrev_to_custom(r: *mut i16) -> i32;
            }
        }
    };
}

#[cfg(has_mlkem_native)]
mlkem_native_build!(mlkem_avx2_k2, "peer_mlkem_avx2_k2");
#[cfg(has_mlkem_native)]
mlkem_native_build!(mlkem_avx2_k3, "peer_mlkem_avx2_k3");
#[cfg(has_mlkem_native)]
mlkem_native_build!(mlkem_avx2_k4, "peer_mlkem_avx2_k4");
#[cfg(has_mlkem_native)]
mlkem_native_build!(mlkem_c_k3, "peer_mlkem_c_k3");

/// One build of mlkem-native: its entry points as function pointers (the
/// constants below are known at compile time, so calls through them are
/// direct calls once the closures that use them are inlined).
#[derive(Clone, Copy)]
pub struct MlkemNative {
    /// How the table names it.
    pub name: &'static str,
    /// k of the build (2, 3 or 4).
    pub k: usize,
    /// Whether it is the AVX2 backend (else the portable C).
    pub avx2: bool,
    k_fn: unsafe extern "C" fn() -> i32,
    poly_ntt: unsafe extern "C" fn(*mut i16),
    poly_invntt_tomont: unsafe extern "C" fn(*mut i16),
    polyvec_ntt: unsafe extern "C" fn(*mut i16),
    polyvec_invntt_tomont: unsafe extern "C" fn(*mut i16),
    poly_mulcache_compute: unsafe extern "C" fn(*mut i16, *const i16),
    polyvec_mulcache_compute: unsafe extern "C" fn(*mut i16, *const i16),
    basemul_acc: unsafe extern "C" fn(*mut i16, *const i16, *const i16, *const i16),
    permute: unsafe extern "C" fn(*mut i16) -> i32,
}

#[cfg(has_mlkem_native)]
macro_rules! mlkem_native_const {
    ($const:ident, $module:ident, $name:literal, $k:literal, $avx2:literal) => {
        pub const $const: MlkemNative = MlkemNative {
            name: $name,
            k: $k,
            avx2: $avx2,
            k_fn: $module::k,
            poly_ntt: $module::poly_ntt,
            poly_invntt_tomont: $module::poly_invntt_tomont,
            polyvec_ntt: $module::polyvec_ntt,
            polyvec_invntt_tomont: $module::polyvec_invntt_tomont,
            poly_mulcache_compute: $module::poly_mulcache_compute,
            polyvec_mulcache_compute: $module::polyvec_mulcache_compute,
            basemul_acc: $module::polyvec_basemul_acc_montgomery_cached,
            permute: $module::permute_bitrev_to_custom,
        };
    };
}

#[cfg(has_mlkem_native)]
mlkem_native_const!(MLKEM_AVX2_K2, mlkem_avx2_k2, "mlkem-native avx2", 2, true);
#[cfg(has_mlkem_native)]
mlkem_native_const!(MLKEM_AVX2_K3, mlkem_avx2_k3, "mlkem-native avx2", 3, true);
#[cfg(has_mlkem_native)]
mlkem_native_const!(MLKEM_AVX2_K4, mlkem_avx2_k4, "mlkem-native avx2", 4, true);
#[cfg(has_mlkem_native)]
mlkem_native_const!(MLKEM_C_K3, mlkem_c_k3, "mlkem-native C", 3, false);

/// The AVX2 builds, k = 2, 3, 4.
#[cfg(has_mlkem_native)]
pub const MLKEM_AVX2: [MlkemNative; 3] = [MLKEM_AVX2_K2, MLKEM_AVX2_K3, MLKEM_AVX2_K4];

// The wrappers are safe: every buffer is an `Aligned` array exactly as long
// as the peer reads or writes (K is checked against the build's k), and the
// peers touch nothing else. Bounds on the *values* are the caller's business
// (a value out of range gives a wrong result, not undefined behaviour).
impl MlkemNative {
    /// k as the C build reports it (from the size of its polyvec).
    pub fn reported_k(&self) -> usize {
        // SAFETY: no arguments.
        unsafe { (self.k_fn)() as usize }
    }

    #[inline(always)]
    pub fn poly_ntt(&self, p: &mut Poly16) {
        // SAFETY: 256 aligned coefficients.
        unsafe { (self.poly_ntt)(p.0.as_mut_ptr()) }
    }

    #[inline(always)]
    pub fn poly_invntt_tomont(&self, p: &mut Poly16) {
        // SAFETY: 256 aligned coefficients.
        unsafe { (self.poly_invntt_tomont)(p.0.as_mut_ptr()) }
    }

    #[inline(always)]
    pub fn polyvec_ntt<const K: usize>(&self, v: &mut PolyVec16<K>) {
        assert_eq!(K, self.k, "polyvec of the build's k");
        // SAFETY: k·256 aligned coefficients.
        unsafe { (self.polyvec_ntt)(v.0.as_mut_ptr().cast()) }
    }

    #[inline(always)]
    pub fn polyvec_invntt_tomont<const K: usize>(&self, v: &mut PolyVec16<K>) {
        assert_eq!(K, self.k, "polyvec of the build's k");
        // SAFETY: k·256 aligned coefficients.
        unsafe { (self.polyvec_invntt_tomont)(v.0.as_mut_ptr().cast()) }
    }

    /// The mulcache of one polynomial.
    #[inline(always)]
    pub fn poly_mulcache_compute(&self, cache: &mut Cache16<1>, p: &Poly16) {
        // SAFETY: 128 and 256 aligned coefficients.
        unsafe { (self.poly_mulcache_compute)(cache.0.as_mut_ptr().cast(), p.0.as_ptr()) }
    }

    /// The mulcaches of the k polynomials of `v`.
    #[inline(always)]
    pub fn polyvec_mulcache_compute<const K: usize>(
        &self,
        cache: &mut Cache16<K>,
        v: &PolyVec16<K>,
    ) {
        assert_eq!(K, self.k, "polyvec of the build's k");
        // SAFETY: k·128 and k·256 aligned coefficients.
        unsafe { (self.polyvec_mulcache_compute)(cache.0.as_mut_ptr().cast(), v.0.as_ptr().cast()) }
    }

    /// r = Σ_{i<k} a_i ∘ b_i · 2^−16, with `cache` = mulcache of `b`.
    #[inline(always)]
    pub fn basemul_acc<const K: usize>(
        &self,
        r: &mut Poly16,
        a: &PolyVec16<K>,
        b: &PolyVec16<K>,
        cache: &Cache16<K>,
    ) {
        assert_eq!(K, self.k, "polyvec of the build's k");
        // SAFETY: all aligned and of the build's k.
        unsafe {
            (self.basemul_acc)(
                r.0.as_mut_ptr(),
                a.0.as_ptr().cast(),
                b.0.as_ptr().cast(),
                cache.0.as_ptr().cast(),
            )
        }
    }

    /// FIPS 203 NTT order → this build's NTT order (a no-op for the C build).
    pub fn permute_bitrev_to_custom(&self, p: &mut Poly16) {
        // SAFETY: 256 aligned coefficients.
        unsafe {
            (self.permute)(p.0.as_mut_ptr());
        }
    }
}

#[cfg(has_dilithium)]
mod dilithium_sys {
    extern "C" {
        pub fn peer_dilithium_avx2_ntt(a: *mut i32);
        pub fn peer_dilithium_avx2_invntt_tomont(a: *mut i32);
        pub fn peer_dilithium_avx2_pointwise_montgomery(c: *mut i32, a: *const i32, b: *const i32);
        pub fn peer_dilithium_avx2_nttunpack(a: *mut i32);
        pub fn peer_dilithium_ref_ntt(a: *mut i32);
        pub fn peer_dilithium_ref_invntt_tomont(a: *mut i32);
    }
}

/// pq-crystals/dilithium, avx2 and ref.
#[cfg(has_dilithium)]
pub mod dilithium {
    use super::{dilithium_sys as sys, Poly32};

    #[inline(always)]
    pub fn avx2_ntt(a: &mut Poly32) {
        // SAFETY: 256 aligned coefficients.
        unsafe { sys::peer_dilithium_avx2_ntt(a.0.as_mut_ptr()) }
    }

    #[inline(always)]
    pub fn avx2_invntt_tomont(a: &mut Poly32) {
        // SAFETY: 256 aligned coefficients.
        unsafe { sys::peer_dilithium_avx2_invntt_tomont(a.0.as_mut_ptr()) }
    }

    #[inline(always)]
    pub fn avx2_pointwise_montgomery(c: &mut Poly32, a: &Poly32, b: &Poly32) {
        // SAFETY: three distinct aligned polynomials.
        unsafe {
            sys::peer_dilithium_avx2_pointwise_montgomery(
                c.0.as_mut_ptr(),
                a.0.as_ptr(),
                b.0.as_ptr(),
            )
        }
    }

    /// FIPS 204 NTT order → the avx2 code's NTT order.
    pub fn avx2_nttunpack(a: &mut Poly32) {
        // SAFETY: 256 aligned coefficients.
        unsafe { sys::peer_dilithium_avx2_nttunpack(a.0.as_mut_ptr()) }
    }

    #[inline(always)]
    pub fn ref_ntt(a: &mut Poly32) {
        // SAFETY: 256 coefficients.
        unsafe { sys::peer_dilithium_ref_ntt(a.0.as_mut_ptr()) }
    }

    #[inline(always)]
    pub fn ref_invntt_tomont(a: &mut Poly32) {
        // SAFETY: 256 coefficients.
        unsafe { sys::peer_dilithium_ref_invntt_tomont(a.0.as_mut_ptr()) }
    }
}

//! ML-KEM (FIPS 203): K-PKE (Algorithms 13–15), the internal KEM
//! (Algorithms 16–18, implicit rejection included) and the outer KEM
//! (Algorithms 19–21 with the input checks of §7.2 and §7.3), with the
//! randomness (d, z, m) supplied by the caller.
//!
//! Polynomials are [`Poly`] = `[i16; 256]`, canonical in `[0, q)` except
//! the NTT-domain values K-PKE keeps private, which stay lazily reduced
//! until they leave it (ring.rs's module doc lists them). The NTT and the
//! NTT-domain products come from [`Ring`], the only user of nttfuse: each
//! vector is transformed in one call, and the second operand of every
//! product (ŝ, ŷ) is cached once per vector. Every algorithm can report its
//! intermediate values to a [`Trace`] (the unit type `()` ignores them at no
//! cost), which is how the test compares them with C2SP CCTV's intermediate
//! values; lazy values are reported reduced.

use crate::auxiliary::{
    byte_decode, byte_encode, compress, decompress, g, h, j, prf, sample_ntt, sample_poly_cbd,
};
use crate::ring::{reduce, to_canonical, Poly, Ring, RingError};

/// A parameter set (FIPS 203 Table 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// "ML-KEM-512", "ML-KEM-768" or "ML-KEM-1024".
    pub name: &'static str,
    /// Module rank: vectors have k polynomials, Â is k × k.
    pub k: usize,
    /// CBD parameter of s, e and y.
    pub eta1: usize,
    /// CBD parameter of e1 and e2.
    pub eta2: usize,
    /// Bits per coefficient of u in the ciphertext.
    pub du: u32,
    /// Bits per coefficient of v in the ciphertext.
    pub dv: u32,
}

/// ML-KEM-512: k = 2, η1 = 3, η2 = 2, du = 10, dv = 4.
pub const ML_KEM_512: Params = Params {
    name: "ML-KEM-512",
    k: 2,
    eta1: 3,
    eta2: 2,
    du: 10,
    dv: 4,
};
/// ML-KEM-768: k = 3, η1 = η2 = 2, du = 10, dv = 4.
pub const ML_KEM_768: Params = Params {
    name: "ML-KEM-768",
    k: 3,
    eta1: 2,
    eta2: 2,
    du: 10,
    dv: 4,
};
/// ML-KEM-1024: k = 4, η1 = η2 = 2, du = 11, dv = 5.
pub const ML_KEM_1024: Params = Params {
    name: "ML-KEM-1024",
    k: 4,
    eta1: 2,
    eta2: 2,
    du: 11,
    dv: 5,
};

impl Params {
    /// Bytes of an encapsulation key: 384k + 32.
    pub const fn ek_len(&self) -> usize {
        384 * self.k + 32
    }

    /// Bytes of a decapsulation key: 768k + 96.
    pub const fn dk_len(&self) -> usize {
        768 * self.k + 96
    }

    /// Bytes of a ciphertext: 32(du·k + dv).
    pub const fn ciphertext_len(&self) -> usize {
        32 * (self.du as usize * self.k + self.dv as usize)
    }
}

/// Which text of FIPS 203 to follow. Encapsulation and decapsulation are
/// the same in both; key generation differs in one place.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Variant {
    /// FIPS 203 as published (August 2024): K-PKE.KeyGen derives
    /// (ρ, σ) = G(d ‖ k), the rank k appended as one byte (domain
    /// separation between parameter sets).
    #[default]
    Fips203,
    /// The initial public draft (FIPS 203 ipd, August 2023) as NIST's
    /// October 2023 intermediate values and C2SP CCTV's ML-KEM vectors
    /// implement it: (ρ, σ) = G(d), without the byte k, so the same d gives
    /// other keys than [`Variant::Fips203`]. Everything else is the final
    /// standard, the matrix included: the ipd's text printed
    /// XOF(ρ, i, j) for Â[i, j] (Algorithms 12 and 13, step 6), a slip
    /// those vectors revert and the final text fixes, so both variants
    /// use Â[i, j] = SampleNTT(ρ ‖ j ‖ i) (checked against CCTV's Â).
    Ipd,
}

/// Why a KEM call refused its input (or, never in practice, the NTT failed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KemError {
    /// An encapsulation key of the wrong length (type check, §7.2).
    EncapsulationKeyLength {
        /// 384k + 32.
        expected: usize,
        /// The length given.
        found: usize,
    },
    /// A decapsulation key of the wrong length (type check, §7.3).
    DecapsulationKeyLength {
        /// 768k + 96.
        expected: usize,
        /// The length given.
        found: usize,
    },
    /// A ciphertext of the wrong length (type check, §7.3).
    CiphertextLength {
        /// 32(du·k + dv).
        expected: usize,
        /// The length given.
        found: usize,
    },
    /// The encapsulation key holds a 12-bit coefficient ≥ q (modulus check,
    /// §7.2): ByteEncode12(ByteDecode12(ek[0 : 384k])) ≠ ek[0 : 384k].
    EncapsulationKeyNotReduced,
    /// The hash stored in the decapsulation key is not H(ek) of the ek it
    /// stores (hash check, §7.3).
    DecapsulationKeyHashMismatch,
    /// [`Params`] other than the three of FIPS 203.
    UnknownParameterSet,
    /// The NTT layer failed (planning; execution cannot fail on 256-arrays).
    Ring(String),
}

impl core::fmt::Display for KemError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            KemError::EncapsulationKeyLength { expected, found } => {
                write!(f, "encapsulation key of {found} bytes, expected {expected}")
            }
            KemError::DecapsulationKeyLength { expected, found } => {
                write!(f, "decapsulation key of {found} bytes, expected {expected}")
            }
            KemError::CiphertextLength { expected, found } => {
                write!(f, "ciphertext of {found} bytes, expected {expected}")
            }
            KemError::EncapsulationKeyNotReduced => {
                write!(
                    f,
                    "encapsulation key has a coefficient not reduced modulo q"
                )
            }
            KemError::DecapsulationKeyHashMismatch => {
                write!(f, "decapsulation key's H(ek) does not match its ek")
            }
            KemError::UnknownParameterSet => write!(f, "not an ML-KEM parameter set"),
            KemError::Ring(message) => write!(f, "NTT layer: {message}"),
        }
    }
}

impl std::error::Error for KemError {}

impl From<RingError> for KemError {
    fn from(e: RingError) -> Self {
        KemError::Ring(e.0)
    }
}

/// Receives an algorithm's intermediate values, named after FIPS 203's
/// symbols ("rho", "s_hat", "A_hat", "u'", …). Both methods default to
/// doing nothing; `()` is the trace that records nothing.
pub trait Trace {
    /// A byte string.
    fn bytes(&mut self, _name: &'static str, _value: &[u8]) {}
    /// A vector of polynomials (a lone polynomial as a vector of one; a
    /// matrix row by row).
    fn polys(&mut self, _name: &'static str, _value: &[Poly]) {}
    /// A vector of lazily reduced polynomials (any representatives, as
    /// nttfuse's lazy NTT leaves them): passed on to [`Trace::polys`]
    /// reduced to `[0, q)`.
    fn lazy_polys(&mut self, name: &'static str, value: &[Poly]) {
        self.polys(name, &to_canonical(value));
    }
}

/// Records nothing, and reduces nothing for it.
impl Trace for () {
    fn lazy_polys(&mut self, _name: &'static str, _value: &[Poly]) {}
}

/// An ML-KEM instance: a parameter set, the text it follows and the NTT
/// plans it runs on.
pub struct Kem {
    params: Params,
    variant: Variant,
    ring: Ring,
}

impl Kem {
    /// ML-KEM with `params`, following FIPS 203 as published.
    pub fn new(params: Params) -> Result<Self, KemError> {
        Self::with_variant(params, Variant::Fips203)
    }

    /// ML-KEM with `params`, following `variant`'s text.
    pub fn with_variant(params: Params, variant: Variant) -> Result<Self, KemError> {
        // The fields are public; sizes and shifts assume one of the three.
        if ![ML_KEM_512, ML_KEM_768, ML_KEM_1024].contains(&params) {
            return Err(KemError::UnknownParameterSet);
        }
        Ok(Kem {
            params,
            variant,
            ring: Ring::new(params.k)?,
        })
    }

    /// The parameter set.
    pub fn params(&self) -> Params {
        self.params
    }

    /// ML-KEM.KeyGen (Algorithm 19) with the caller's random seeds d and z:
    /// returns (ek, dk). Identical to [`Kem::key_gen_internal`].
    pub fn key_gen(&self, d: &[u8; 32], z: &[u8; 32]) -> Result<(Vec<u8>, Vec<u8>), KemError> {
        self.key_gen_internal(d, z, &mut ())
    }

    /// ML-KEM.Encaps (Algorithm 20) with the caller's random m: checks ek
    /// (§7.2: length, then modulus), then returns (K, c).
    pub fn encaps(&self, ek: &[u8], m: &[u8; 32]) -> Result<([u8; 32], Vec<u8>), KemError> {
        self.check_ek(ek)?;
        self.encaps_internal(ek, m, &mut ())
    }

    /// ML-KEM.Decaps (Algorithm 21): checks dk (§7.3: its length, then the
    /// hash of the ek inside it) and c's length, then returns K (the
    /// implicit-rejection key J(z ‖ c) if c does not re-encrypt to itself).
    pub fn decaps(&self, dk: &[u8], c: &[u8]) -> Result<[u8; 32], KemError> {
        self.check_dk(dk)?;
        self.decaps_internal(dk, c, &mut ())
    }

    /// The encapsulation-key checks of §7.2.
    pub fn check_ek(&self, ek: &[u8]) -> Result<(), KemError> {
        self.check_ek_len(ek)?;
        let t_bytes = &ek[..384 * self.params.k];
        let mut reencoded = [0u8; 384];
        for chunk in t_bytes.chunks_exact(384) {
            byte_encode(12, &byte_decode(12, chunk), &mut reencoded);
            if reencoded[..] != *chunk {
                return Err(KemError::EncapsulationKeyNotReduced);
            }
        }
        Ok(())
    }

    /// The decapsulation-key check of §7.3 (the ciphertext's length is
    /// checked by [`Kem::decaps_internal`]).
    pub fn check_dk(&self, dk: &[u8]) -> Result<(), KemError> {
        self.check_dk_len(dk)?;
        let k = self.params.k;
        if h(&[&dk[384 * k..768 * k + 32]])[..] != dk[768 * k + 32..768 * k + 64] {
            return Err(KemError::DecapsulationKeyHashMismatch);
        }
        Ok(())
    }

    /// ML-KEM.KeyGen_internal (Algorithm 16): ek = ek_PKE,
    /// dk = dk_PKE ‖ ek ‖ H(ek) ‖ z.
    pub fn key_gen_internal(
        &self,
        d: &[u8; 32],
        z: &[u8; 32],
        trace: &mut impl Trace,
    ) -> Result<(Vec<u8>, Vec<u8>), KemError> {
        let (ek, dk_pke) = self.pke_key_gen(d, trace)?;
        let ek_hash = h(&[&ek]);
        let dk = [&dk_pke[..], &ek, &ek_hash, z].concat();
        trace.bytes("z", z);
        trace.bytes("H(ek)", &ek_hash);
        trace.bytes("dk", &dk);
        Ok((ek, dk))
    }

    /// ML-KEM.Encaps_internal (Algorithm 17): (K, r) = G(m ‖ H(ek)),
    /// c = K-PKE.Encrypt(ek, m, r). Checks only ek's length.
    pub fn encaps_internal(
        &self,
        ek: &[u8],
        m: &[u8; 32],
        trace: &mut impl Trace,
    ) -> Result<([u8; 32], Vec<u8>), KemError> {
        self.check_ek_len(ek)?;
        let (key, r) = g(&[m, &h(&[ek])]);
        trace.bytes("m", m);
        trace.bytes("K", &key);
        trace.bytes("r", &r);
        let c = self.pke_encrypt(ek, m, &r, trace)?;
        Ok((key, c))
    }

    /// ML-KEM.Decaps_internal (Algorithm 18) with implicit rejection: K' from
    /// G(m' ‖ h) if c re-encrypts to itself, else K̄ = J(z ‖ c). The
    /// comparison and the choice run in constant time. Checks lengths only.
    pub fn decaps_internal(
        &self,
        dk: &[u8],
        c: &[u8],
        trace: &mut impl Trace,
    ) -> Result<[u8; 32], KemError> {
        self.check_dk_len(dk)?;
        self.check_ciphertext_len(c)?;
        let k = self.params.k;
        let dk_pke = &dk[..384 * k];
        let ek_pke = &dk[384 * k..768 * k + 32];
        let ek_hash = &dk[768 * k + 32..768 * k + 64];
        let z = &dk[768 * k + 64..];
        let m_prime = self.pke_decrypt(dk_pke, c, trace)?;
        let (key_prime, r_prime) = g(&[&m_prime, ek_hash]);
        let key_bar = j(&[z, c]);
        trace.bytes("K_bar", &key_bar);
        // Encrypt's own trace would overwrite the encryption's values
        // under the same names, so the re-encryption is not traced.
        let c_prime = self.pke_encrypt(ek_pke, &m_prime, &r_prime, &mut ())?;
        trace.bytes("c'", &c_prime);
        let keep = equal_mask(c, &c_prime);
        let key = core::array::from_fn(|i| (key_prime[i] & keep) | (key_bar[i] & !keep));
        trace.bytes("K'", &key);
        Ok(key)
    }

    /// K-PKE.KeyGen (Algorithm 13): returns (ek_PKE, dk_PKE).
    fn pke_key_gen(
        &self,
        d: &[u8; 32],
        trace: &mut impl Trace,
    ) -> Result<(Vec<u8>, Vec<u8>), KemError> {
        let Params { k, eta1, .. } = self.params;
        let (rho, sigma) = match self.variant {
            Variant::Fips203 => g(&[d, &[k as u8]]),
            Variant::Ipd => g(&[d]),
        };
        trace.bytes("d", d);
        trace.bytes("rho", &rho);
        trace.bytes("sigma", &sigma);
        let a_hat = self.sample_matrix(&rho, false);
        trace.polys("A_hat", &a_hat);
        // N counts PRF calls: s takes 0..k, e takes k..2k. Each vector is
        // transformed in place, all k polynomials in one call.
        let mut s_hat = self.sample_vector(eta1, &sigma, 0);
        let mut e_hat = self.sample_vector(eta1, &sigma, k as u8);
        trace.polys("s", &s_hat);
        trace.polys("e", &e_hat);
        // ŝ is encoded into dk: canonical. ê is only added into t̂: lazy.
        self.ring.ntt(&mut s_hat)?;
        self.ring.ntt_lazy(&mut e_hat)?;
        trace.polys("s_hat", &s_hat);
        trace.lazy_polys("e_hat", &e_hat);
        // t̂[i] = ê[i] + Σ_j Â[i, j] ∘ ŝ[j]: ŝ cached once for the k rows;
        // canonical rows plus the lazy ê (< 9q in all), reduced for ek.
        let s_cache = self.ring.cache(&s_hat);
        let mut t_hat = vec![[0i16; 256]; k];
        for ((t, row), e) in t_hat.iter_mut().zip(a_hat.chunks_exact(k)).zip(&e_hat) {
            self.ring.dot_canonical(row, &s_cache, t)?;
            for (t, e) in t.iter_mut().zip(e) {
                *t += e;
            }
            reduce(t);
        }
        trace.polys("t_hat", &t_hat);
        let mut ek = encode_vector(12, &t_hat);
        ek.extend_from_slice(&rho);
        let dk = encode_vector(12, &s_hat);
        trace.bytes("ek", &ek);
        trace.bytes("dk_PKE", &dk);
        Ok((ek, dk))
    }

    /// K-PKE.Encrypt (Algorithm 14) of the 32-byte message m with the
    /// 32-byte randomness r; `ek` has been length-checked.
    fn pke_encrypt(
        &self,
        ek: &[u8],
        m: &[u8; 32],
        r: &[u8; 32],
        trace: &mut impl Trace,
    ) -> Result<Vec<u8>, KemError> {
        let Params {
            k,
            eta1,
            eta2,
            du,
            dv,
            ..
        } = self.params;
        let t_hat = decode_vector(12, &ek[..384 * k]);
        let rho: &[u8; 32] =
            ek[384 * k..]
                .try_into()
                .map_err(|_| KemError::EncapsulationKeyLength {
                    expected: self.params.ek_len(),
                    found: ek.len(),
                })?;
        // Â^T row by row: row i holds Â[j, i] for j = 0..k.
        let a_hat_t = self.sample_matrix(rho, true);
        // N counts PRF calls: y takes 0..k, e1 takes k..2k, e2 takes 2k.
        let mut y_hat = self.sample_vector(eta1, r, 0);
        let e1 = self.sample_vector(eta2, r, k as u8);
        let e2 = sample_poly_cbd(eta2, &prf(eta2, r, 2 * k as u8));
        let mu = decompress(1, &byte_decode(1, m));
        trace.polys("mu", core::slice::from_ref(&mu));
        trace.polys("A_hat^T", &a_hat_t);
        trace.polys("y", &y_hat);
        trace.polys("e1", &e1);
        trace.polys("e2", core::slice::from_ref(&e2));
        // ŷ is only multiplied: lazy, and cached once for the k + 1 rows.
        self.ring.ntt_lazy(&mut y_hat)?;
        trace.lazy_polys("y_hat", &y_hat);
        let y_cache = self.ring.cache(&y_hat);
        // u = NTT⁻¹(Â^T ∘ ŷ) + e1: k lazy rows, transformed back in one
        // call, plus e1, reduced for Compress.
        let mut u = vec![[0i16; 256]; k];
        for (u, row) in u.iter_mut().zip(a_hat_t.chunks_exact(k)) {
            self.ring.dot(row, &y_cache, u)?;
        }
        self.ring.inverse_ntt_lazy(&mut u)?;
        for (u, e1) in u.iter_mut().zip(&e1) {
            for (u, e) in u.iter_mut().zip(e1) {
                *u += e;
            }
            reduce(u);
        }
        // v = NTT⁻¹(t̂^T ∘ ŷ) + e2 + μ, likewise (|·| < q + 2q before the
        // reduction).
        let mut v = [0i16; 256];
        self.ring.dot(&t_hat, &y_cache, &mut v)?;
        self.ring.inverse_ntt_lazy(core::slice::from_mut(&mut v))?;
        for ((v, e), mu) in v.iter_mut().zip(&e2).zip(&mu) {
            *v += e + mu;
        }
        reduce(&mut v);
        let u_compressed: Vec<Poly> = u.iter().map(|p| compress(du, p)).collect();
        let v_compressed = compress(dv, &v);
        let c1 = encode_vector(du, &u_compressed);
        let mut c2 = vec![0u8; 32 * dv as usize];
        byte_encode(dv, &v_compressed, &mut c2);
        trace.polys("u", &u);
        trace.polys("Compress(u)", &u_compressed);
        trace.bytes("c1", &c1);
        trace.polys("v", core::slice::from_ref(&v));
        trace.polys("Compress(v)", core::slice::from_ref(&v_compressed));
        trace.bytes("c2", &c2);
        let c = [c1, c2].concat();
        trace.bytes("c", &c);
        Ok(c)
    }

    /// K-PKE.Decrypt (Algorithm 15): the 32-byte message of `c` under
    /// dk_PKE = ByteEncode12(ŝ); both have been length-checked.
    fn pke_decrypt(
        &self,
        dk_pke: &[u8],
        c: &[u8],
        trace: &mut impl Trace,
    ) -> Result<[u8; 32], KemError> {
        let Params { k, du, dv, .. } = self.params;
        let (c1, c2) = c.split_at(32 * du as usize * k);
        let mut u_prime_hat: Vec<Poly> = c1
            .chunks_exact(32 * du as usize)
            .map(|chunk| decompress(du, &byte_decode(du, chunk)))
            .collect();
        let v_prime = decompress(dv, &byte_decode(dv, c2));
        trace.polys("u'", &u_prime_hat);
        trace.polys("v'", core::slice::from_ref(&v_prime));
        // ŝ, decoded canonical, is cached; NTT(u') is only multiplied: lazy.
        let s_cache = self.ring.cache(&decode_vector(12, dk_pke));
        self.ring.ntt_lazy(&mut u_prime_hat)?;
        trace.lazy_polys("NTT(u')", &u_prime_hat);
        // w = v' − NTT⁻¹(ŝ^T ∘ NTT(u')): a lazy dot product, transformed
        // back lazily (|·| < q), subtracted from v', reduced for Compress.
        let mut s_u = [0i16; 256];
        self.ring.dot(&u_prime_hat, &s_cache, &mut s_u)?;
        self.ring
            .inverse_ntt_lazy(core::slice::from_mut(&mut s_u))?;
        let mut w = v_prime;
        for (w, x) in w.iter_mut().zip(&s_u) {
            *w -= x;
        }
        reduce(&mut w);
        let mut m = [0u8; 32];
        byte_encode(1, &compress(1, &w), &mut m);
        trace.polys("w", core::slice::from_ref(&w));
        trace.bytes("m'", &m);
        Ok(m)
    }

    /// Â (`transposed` false) or Â^T (true), row-major, k × k, with
    /// Â[i, j] = SampleNTT(ρ ‖ j ‖ i) in both variants (see [`Variant`]).
    fn sample_matrix(&self, rho: &[u8; 32], transposed: bool) -> Vec<Poly> {
        let k = self.params.k;
        let mut seed = [0u8; 34];
        seed[..32].copy_from_slice(rho);
        let mut matrix = Vec::with_capacity(k * k);
        for row in 0..k {
            for col in 0..k {
                let (i, j) = if transposed { (col, row) } else { (row, col) };
                seed[32] = j as u8;
                seed[33] = i as u8;
                matrix.push(sample_ntt(&seed));
            }
        }
        matrix
    }

    /// k polynomials SamplePolyCBD_η(PRF_η(seed, N)), N = first, first + 1, …
    fn sample_vector(&self, eta: usize, seed: &[u8; 32], first: u8) -> Vec<Poly> {
        (0..self.params.k as u8)
            .map(|n| sample_poly_cbd(eta, &prf(eta, seed, first + n)))
            .collect()
    }

    fn check_ek_len(&self, ek: &[u8]) -> Result<(), KemError> {
        let expected = self.params.ek_len();
        if ek.len() != expected {
            return Err(KemError::EncapsulationKeyLength {
                expected,
                found: ek.len(),
            });
        }
        Ok(())
    }

    fn check_dk_len(&self, dk: &[u8]) -> Result<(), KemError> {
        let expected = self.params.dk_len();
        if dk.len() != expected {
            return Err(KemError::DecapsulationKeyLength {
                expected,
                found: dk.len(),
            });
        }
        Ok(())
    }

    fn check_ciphertext_len(&self, c: &[u8]) -> Result<(), KemError> {
        let expected = self.params.ciphertext_len();
        if c.len() != expected {
            return Err(KemError::CiphertextLength {
                expected,
                found: c.len(),
            });
        }
        Ok(())
    }
}

/// 0xff if `a == b` (equal lengths), else 0x00, without an early exit or a
/// branch on the data.
fn equal_mask(a: &[u8], b: &[u8]) -> u8 {
    let diff = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    // black_box keeps the optimiser from turning the mask into a branch.
    let diff = core::hint::black_box(diff) as u16;
    (diff.wrapping_sub(1) >> 8) as u8
}

/// ByteEncode_d of each polynomial, concatenated.
fn encode_vector(d: u32, v: &[Poly]) -> Vec<u8> {
    let mut out = vec![0u8; 32 * d as usize * v.len()];
    for (p, chunk) in v.iter().zip(out.chunks_exact_mut(32 * d as usize)) {
        byte_encode(d, p, chunk);
    }
    out
}

/// ByteDecode_d of each 32·d-byte chunk.
fn decode_vector(d: u32, bytes: &[u8]) -> Vec<Poly> {
    bytes
        .chunks_exact(32 * d as usize)
        .map(|chunk| byte_decode(d, chunk))
        .collect()
}

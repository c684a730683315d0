//! FIPS 203 §4: the symmetric primitives (H, J, G, PRF, XOF), ByteEncode /
//! ByteDecode, Compress / Decompress, SampleNTT and SamplePolyCBD. (Sums
//! of polynomials are reduced in kem.rs with ring.rs's `reduce`, since some
//! of their terms are nttfuse's lazy outputs.)
//!
//! Everything that touches secret data here is free of secret-dependent
//! branches and memory indices: reductions use masks, and the one division
//! (by q, in Compress) is a multiplication.

use crate::ring::Poly;
use sha3::digest::{ExtendableOutput, Update, XofReader};
use sha3::{Digest, Sha3_256, Sha3_512, Shake128, Shake256};

/// The ML-KEM modulus q.
pub const Q: i16 = 3329;

/// H(s) = SHA3-256(s), of the concatenation of `parts`.
pub fn h(parts: &[&[u8]]) -> [u8; 32] {
    let mut hash = Sha3_256::new();
    for part in parts {
        Digest::update(&mut hash, part);
    }
    hash.finalize().into()
}

/// J(s) = SHAKE256(s, 8·32): the implicit-rejection key.
pub fn j(parts: &[&[u8]]) -> [u8; 32] {
    let mut out = [0u8; 32];
    shake256(parts, &mut out);
    out
}

/// G(c) = SHA3-512(c), split into its two 32-byte halves.
pub fn g(parts: &[&[u8]]) -> ([u8; 32], [u8; 32]) {
    let mut hash = Sha3_512::new();
    for part in parts {
        Digest::update(&mut hash, part);
    }
    let out = hash.finalize();
    let (a, b) = out.split_at(32);
    // Both halves are exactly 32 bytes of a 64-byte digest.
    let mut halves = ([0u8; 32], [0u8; 32]);
    halves.0.copy_from_slice(a);
    halves.1.copy_from_slice(b);
    halves
}

/// PRF_η(s, b) = SHAKE256(s ‖ b, 8·64η): the 64η bytes SamplePolyCBD_η reads.
pub fn prf(eta: usize, s: &[u8; 32], b: u8) -> Vec<u8> {
    let mut out = vec![0u8; 64 * eta];
    shake256(&[s, &[b]], &mut out);
    out
}

fn shake256(parts: &[&[u8]], out: &mut [u8]) {
    let mut xof = Shake256::default();
    for part in parts {
        Update::update(&mut xof, part);
    }
    xof.finalize_xof().read(out);
}

/// SampleNTT (FIPS 203 Algorithm 7): rejection-samples a uniform element of
/// T_q from the XOF SHAKE128(`seed`), `seed` = ρ ‖ two index bytes.
///
/// Reads whole 168-byte SHAKE128 blocks (a multiple of 3, so the same
/// 3-byte groups as the standard's byte-at-a-time loop). Runs in variable
/// time, which is fine: ρ and the matrix are public.
pub fn sample_ntt(seed: &[u8; 34]) -> Poly {
    let mut xof = Shake128::default();
    xof.update(seed);
    let mut reader = xof.finalize_xof();
    let mut a = [0i16; 256];
    let mut j = 0;
    let mut block = [0u8; 168];
    while j < 256 {
        reader.read(&mut block);
        for c in block.chunks_exact(3) {
            let d1 = c[0] as i16 | ((c[1] as i16 & 0x0f) << 8);
            let d2 = (c[1] as i16 >> 4) | ((c[2] as i16) << 4);
            if d1 < Q {
                a[j] = d1;
                j += 1;
            }
            if d2 < Q && j < 256 {
                a[j] = d2;
                j += 1;
            }
            if j == 256 {
                break;
            }
        }
    }
    a
}

/// SamplePolyCBD_η (FIPS 203 Algorithm 8): each coefficient is the
/// difference of two sums of η bits of `bytes` (64η bytes), modulo q.
pub fn sample_poly_cbd(eta: usize, bytes: &[u8]) -> Poly {
    debug_assert_eq!(bytes.len(), 64 * eta);
    let bit = |k: usize| ((bytes[k >> 3] >> (k & 7)) & 1) as i16;
    core::array::from_fn(|i| {
        let base = 2 * i * eta;
        let x: i16 = (0..eta).map(|j| bit(base + j)).sum();
        let y: i16 = (0..eta).map(|j| bit(base + eta + j)).sum();
        add_q_if_negative(x - y)
    })
}

/// ByteEncode_d (FIPS 203 Algorithm 5): packs 256 d-bit integers, least
/// significant bit first, into the 32·d bytes of `out`.
pub fn byte_encode(d: u32, f: &Poly, out: &mut [u8]) {
    debug_assert!((1..=12).contains(&d) && out.len() == 32 * d as usize);
    let mask = (1u32 << d) - 1;
    let (mut acc, mut bits, mut o) = (0u32, 0u32, 0usize);
    for &c in f {
        acc |= (c as u32 & mask) << bits;
        bits += d;
        while bits >= 8 {
            out[o] = acc as u8;
            o += 1;
            acc >>= 8;
            bits -= 8;
        }
    }
}

/// ByteDecode_d (FIPS 203 Algorithm 6): unpacks 256 d-bit integers from
/// 32·d bytes. For d = 12 the result is reduced modulo q, as the standard
/// says (the encapsulation-key check is what rejects unreduced input).
pub fn byte_decode(d: u32, bytes: &[u8]) -> Poly {
    debug_assert!((1..=12).contains(&d) && bytes.len() == 32 * d as usize);
    let mask = (1u32 << d) - 1;
    let mut f = [0i16; 256];
    let (mut acc, mut bits, mut i) = (0u32, 0u32, 0usize);
    for &b in bytes {
        acc |= (b as u32) << bits;
        bits += 8;
        while bits >= d {
            f[i] = (acc & mask) as i16;
            i += 1;
            acc >>= d;
            bits -= d;
        }
    }
    if d == 12 {
        // Values < 2^12 < 2q: one masked subtraction reduces them (ŝ is
        // secret, so no branch).
        f = f.map(|x| add_q_if_negative(x - Q));
    }
    f
}

/// Compress_d (FIPS 203 (4.7)) of every coefficient: ⌈(2^d / q)·x⌋ mod 2^d,
/// computed exactly as ⌊(2^d·x + (q−1)/2) / q⌋ (q is odd, so no tie).
///
/// The division by q is a multiplication by ⌈2^35 / q⌉ and a shift, exact
/// for numerators below 2^23 (here < 2^11·q + q): no `div` instruction on
/// secret data at any optimisation level (cf. KyberSlash).
pub fn compress(d: u32, f: &Poly) -> Poly {
    const MAGIC: u64 = (1u64 << 35).div_ceil(Q as u64);
    let mask = (1u64 << d) - 1;
    f.map(|x| {
        let numerator = ((x as u64) << d) + (Q as u64 - 1) / 2;
        (((numerator * MAGIC) >> 35) & mask) as i16
    })
}

/// Decompress_d (FIPS 203 (4.8)) of every coefficient: ⌈(q / 2^d)·y⌋,
/// computed exactly as ⌊(q·y + 2^(d−1)) / 2^d⌋.
pub fn decompress(d: u32, f: &Poly) -> Poly {
    f.map(|y| ((Q as u32 * y as u32 + (1 << (d - 1))) >> d) as i16)
}

/// `x + q` if `x < 0`, else `x`, by a mask: maps (−q, q) onto [0, q).
fn add_q_if_negative(x: i16) -> i16 {
    x + ((x >> 15) & Q)
}

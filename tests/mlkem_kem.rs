//! The ML-KEM example (`examples/mlkem_kem`, FIPS 203 on nttfuse's NTT):
//! every line of C2SP CCTV's ML-KEM-768 intermediate values, accumulated
//! vectors (C2SP CCTV for the ipd variant, Go's crypto/mlkem for the final
//! standard), round trips for all three parameter sets, implicit rejection,
//! the input checks and the typed errors.

// The example's modules, shared with it; each side uses only a part.
#[allow(dead_code)]
#[path = "../examples/mlkem_kem/auxiliary.rs"]
mod auxiliary;
#[allow(dead_code)]
#[path = "../examples/mlkem_kem/kem.rs"]
mod kem;
#[allow(dead_code)]
#[path = "../examples/mlkem_kem/ring.rs"]
mod ring;

use kem::{Kem, KemError, Params, Trace, Variant, ML_KEM_1024, ML_KEM_512, ML_KEM_768};
use ring::Poly;
use sha3::digest::{ExtendableOutput, Update, XofReader};
use sha3::Shake128;
use std::collections::HashMap;

const ALL: [Params; 3] = [ML_KEM_512, ML_KEM_768, ML_KEM_1024];

// ---------------------------------------------------------------------------
// C2SP CCTV intermediate values
// ---------------------------------------------------------------------------

/// Every intermediate value of one run, by the names kem.rs gives them.
#[derive(Default)]
struct Recorder {
    bytes: HashMap<&'static str, Vec<u8>>,
    polys: HashMap<&'static str, Vec<Poly>>,
}

impl Trace for Recorder {
    fn bytes(&mut self, name: &'static str, value: &[u8]) {
        assert!(
            self.bytes.insert(name, value.to_vec()).is_none(),
            "{name} traced twice"
        );
    }

    fn polys(&mut self, name: &'static str, value: &[Poly]) {
        assert!(
            self.polys.insert(name, value.to_vec()).is_none(),
            "{name} traced twice"
        );
    }
}

impl Recorder {
    fn bytes(&self, name: &str) -> &[u8] {
        self.bytes
            .get(name)
            .unwrap_or_else(|| panic!("{name} not traced"))
    }

    fn polys(&self, name: &str) -> &[Poly] {
        self.polys
            .get(name)
            .unwrap_or_else(|| panic!("{name} not traced"))
    }
}

/// What a line of the file is compared with.
#[derive(Debug)]
enum Expect {
    /// A traced byte string, equal to the line's hex.
    Bytes(&'static str),
    /// A traced vector of polynomials: the line's hex decoded as
    /// ByteEncode12, and its decimal list if it has one.
    Polys(&'static str),
    /// The first polynomial of a traced vector (lines named `x[0]`).
    FirstPoly(&'static str),
}

/// The checks for the `occurrence`-th line labelled `label` (the file uses
/// "r" and "dkPKE" twice each). `None` for a line this test cannot place,
/// which fails the test.
fn expectations(label: &str, occurrence: usize) -> Option<&'static [Expect]> {
    use Expect::*;
    Some(match (label, occurrence) {
        // K-PKE.KeyGen and ML-KEM.KeyGen.
        ("d", 0) => &[Bytes("d")],
        ("ρ", 0) => &[Bytes("rho")],
        ("σ", 0) => &[Bytes("sigma")],
        ("A[0, 0]", 0) => &[FirstPoly("A_hat")],
        ("A", 0) => &[Polys("A_hat")],
        ("s[0]", 0) => &[FirstPoly("s")],
        ("s", 0) => &[Polys("s")],
        ("NTT(s[0])", 0) => &[FirstPoly("s_hat")],
        // Printed "dkPKE = NTT(s) = …": dk_PKE is ByteEncode12(ŝ).
        ("dkPKE", 0) => &[Bytes("dk_PKE"), Polys("s_hat")],
        ("e", 0) => &[Polys("e")],
        ("NTT(e)", 0) => &[Polys("e_hat")],
        ("t", 0) => &[Polys("t_hat")],
        ("ek", 0) => &[Bytes("ek")],
        // The file's second "dkPKE" holds ek_PKE (= ek), a label slip there.
        ("dkPKE", 1) => &[Bytes("ek")],
        ("z", 0) => &[Bytes("z")],
        ("H(ek)", 0) => &[Bytes("H(ek)")],
        ("dk", 0) => &[Bytes("dk")],
        // ML-KEM.Encaps and K-PKE.Encrypt; Decaps must recover m and K.
        ("m", 0) => &[Bytes("m"), Bytes("m'")],
        ("K", 0) => &[Bytes("K"), Bytes("K'")],
        ("r", 0) => &[Bytes("r")],
        ("μ", 0) => &[Polys("mu")],
        ("A^T", 0) => &[Polys("A_hat^T")],
        // The ipd's name for the vector FIPS 203 calls y.
        ("r", 1) => &[Polys("y")],
        ("NTT(r)", 0) => &[Polys("y_hat")],
        ("e1", 0) => &[Polys("e1")],
        ("e2", 0) => &[Polys("e2")],
        ("u", 0) => &[Polys("u")],
        ("u[0]", 0) => &[FirstPoly("u")],
        ("compress(u[0])", 0) => &[FirstPoly("Compress(u)")],
        ("c1", 0) => &[Bytes("c1")],
        ("v", 0) => &[Polys("v")],
        ("compress(v)", 0) => &[Polys("Compress(v)")],
        ("c2", 0) => &[Bytes("c2")],
        // Decaps' re-encryption must give c again.
        ("c", 0) => &[Bytes("c"), Bytes("c'")],
        // ML-KEM.Decaps and K-PKE.Decrypt.
        ("uᵈ", 0) => &[Polys("u'")],
        ("NTT(uᵈ)", 0) => &[Polys("NTT(u')")],
        ("vᵈ", 0) => &[Polys("v'")],
        ("w", 0) => &[Polys("w")],
        ("KBar", 0) => &[Bytes("K_bar")],
        _ => return None,
    })
}

/// One line: `label = hex`, `label = {decimals}`, `label = {decimals} = hex`
/// or `label = name = hex`.
struct Line<'a> {
    label: &'a str,
    decimals: Option<Vec<i16>>,
    hex: Option<Vec<u8>>,
}

fn parse_line(line: &str) -> Line<'_> {
    let (label, rest) = line.split_once(" = ").expect("`label = value`");
    if let Some(rest) = rest.strip_prefix('{') {
        let (list, after) = rest.split_once('}').expect("closing brace");
        let decimals = list
            .split(", ")
            .map(|x| x.parse().expect("decimal"))
            .collect();
        let hex = after.strip_prefix(" = ").map(unhex);
        Line {
            label,
            decimals: Some(decimals),
            hex,
        }
    } else {
        let hex = rest.rsplit(" = ").next().map(unhex);
        Line {
            label,
            decimals: None,
            hex,
        }
    }
}

fn unhex(s: &str) -> Vec<u8> {
    assert!(s.len().is_multiple_of(2), "odd-length hex");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

/// ByteEncode12 read back, written here independently of kem.rs.
fn decode12(bytes: &[u8]) -> Vec<i16> {
    bytes
        .chunks_exact(3)
        .flat_map(|b| {
            let lo = b[0] as i16 | ((b[1] as i16 & 0xf) << 8);
            let hi = (b[1] as i16 >> 4) | ((b[2] as i16) << 4);
            [lo, hi]
        })
        .collect()
}

fn flat(polys: &[Poly]) -> Vec<i16> {
    polys.iter().flatten().copied().collect()
}

fn cctv_lines() -> Vec<Line<'static>> {
    include_str!("data/mlkem768_cctv_intermediate.txt")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(parse_line)
        .collect()
}

fn cctv_bytes<const N: usize>(lines: &[Line], label: &str) -> [u8; N] {
    let line = lines.iter().find(|l| l.label == label).expect("label");
    line.hex
        .as_deref()
        .expect("hex")
        .try_into()
        .expect("length")
}

#[test]
fn cctv_768_every_intermediate_value() {
    let lines = cctv_lines();
    let (d, z, m) = (
        cctv_bytes(&lines, "d"),
        cctv_bytes(&lines, "z"),
        cctv_bytes(&lines, "m"),
    );
    let kem = Kem::with_variant(ML_KEM_768, Variant::Ipd).unwrap();
    let mut rec = Recorder::default();
    let (ek, dk) = kem.key_gen_internal(&d, &z, &mut rec).unwrap();
    let (key, c) = kem.encaps_internal(&ek, &m, &mut rec).unwrap();
    assert_eq!(kem.decaps_internal(&dk, &c, &mut rec).unwrap(), key);

    let mut seen: HashMap<&str, usize> = HashMap::new();
    let (mut lines_checked, mut comparisons) = (0, 0);
    for line in &lines {
        let occurrence = seen.entry(line.label).or_default();
        let expects = expectations(line.label, *occurrence)
            .unwrap_or_else(|| panic!("no check for line {:?} #{occurrence}", line.label));
        *occurrence += 1;
        for expect in expects {
            let ours = match expect {
                Expect::Bytes(name) => {
                    assert!(line.decimals.is_none(), "{}", line.label);
                    assert_eq!(
                        line.hex.as_deref(),
                        Some(rec.bytes(name)),
                        "{} vs {name}",
                        line.label
                    );
                    comparisons += 1;
                    continue;
                }
                Expect::Polys(name) => flat(rec.polys(name)),
                Expect::FirstPoly(name) => rec.polys(name)[0].to_vec(),
            };
            if let Some(hex) = &line.hex {
                assert_eq!(
                    decode12(hex),
                    ours,
                    "{} (ByteEncode12) vs {expect:?}",
                    line.label
                );
                comparisons += 1;
            }
            if let Some(decimals) = &line.decimals {
                assert_eq!(decimals, &ours, "{} (decimal) vs {expect:?}", line.label);
                comparisons += 1;
            }
        }
        lines_checked += 1;
    }
    // 39 lines; 4 of them carry both a decimal list and its ByteEncode12,
    // and m, K, c, dkPKE are each compared with two traced values.
    assert_eq!((lines_checked, comparisons), (39, 47));

    // The outer API, with its input checks, gives the same bytes.
    assert_eq!(kem.key_gen(&d, &z).unwrap(), (ek.clone(), dk.clone()));
    assert_eq!(kem.encaps(&ek, &m).unwrap(), (key, c.clone()));
    assert_eq!(kem.decaps(&dk, &c).unwrap(), key);
}

/// What tells the file's text apart from the final standard: (ρ, σ) = G(d)
/// without the byte k, while the matrix is already Â[i, j] =
/// SampleNTT(ρ ‖ j ‖ i), not the ipd text's printed XOF(ρ, i, j).
#[test]
fn cctv_768_uses_g_of_d_and_the_corrected_matrix_index_order() {
    let lines = cctv_lines();
    let d: [u8; 32] = cctv_bytes(&lines, "d");
    let rho: [u8; 32] = cctv_bytes(&lines, "ρ");
    let sigma: [u8; 32] = cctv_bytes(&lines, "σ");
    assert_eq!(auxiliary::g(&[&d]), (rho, sigma));
    assert_ne!(auxiliary::g(&[&d, &[3]]).0, rho);
    let a_hat = decode12(
        lines
            .iter()
            .find(|l| l.label == "A")
            .unwrap()
            .hex
            .as_ref()
            .unwrap(),
    );
    let entry = |i: usize, j: usize| &a_hat[256 * (3 * i + j)..][..256];
    let sample = |b0: u8, b1: u8| {
        let mut seed = [0u8; 34];
        seed[..32].copy_from_slice(&rho);
        (seed[32], seed[33]) = (b0, b1);
        auxiliary::sample_ntt(&seed).to_vec()
    };
    for (i, j) in [(0, 1), (1, 0), (1, 2), (2, 1)] {
        assert_eq!(
            entry(i, j),
            sample(j as u8, i as u8),
            "Â[{i}, {j}] = SampleNTT(ρ ‖ j ‖ i)"
        );
        assert_ne!(entry(i, j), sample(i as u8, j as u8));
    }
    // The final standard on the same seeds: another ρ, so other keys.
    let fips = Kem::new(ML_KEM_768).unwrap();
    let ipd = Kem::with_variant(ML_KEM_768, Variant::Ipd).unwrap();
    assert_ne!(
        fips.key_gen(&d, &d).unwrap().0,
        ipd.key_gen(&d, &d).unwrap().0
    );
}

// ---------------------------------------------------------------------------
// Accumulated vectors
// ---------------------------------------------------------------------------

/// C2SP CCTV's accumulated pq-crystals vectors: from one SHAKE128 stream
/// of empty input draw d, z, m and a random ciphertext per test; absorb ek,
/// dk, c, K and Decaps(dk, random ciphertext) into another; 32 bytes out.
/// Set `go_style` for the layout of Go's crypto/mlkem TestAccumulated
/// (d ‖ z, m, random ciphertext drawn the same; dk not absorbed).
fn accumulate(params: Params, variant: Variant, tests: usize, go_style: bool) -> String {
    let kem = Kem::with_variant(params, variant).unwrap();
    let mut rng = Shake128::default().finalize_xof();
    let mut sink = Shake128::default();
    let (mut d, mut z, mut m) = ([0u8; 32], [0u8; 32], [0u8; 32]);
    let mut random_c = vec![0u8; params.ciphertext_len()];
    for _ in 0..tests {
        rng.read(&mut d);
        rng.read(&mut z);
        rng.read(&mut m);
        rng.read(&mut random_c);
        let (ek, dk) = kem.key_gen(&d, &z).unwrap();
        let (key, c) = kem.encaps(&ek, &m).unwrap();
        assert_eq!(kem.decaps(&dk, &c).unwrap(), key);
        let rejected = kem.decaps(&dk, &random_c).unwrap();
        sink.update(&ek);
        if !go_style {
            sink.update(&dk);
        }
        for part in [&c[..], &key, &rejected] {
            sink.update(part);
        }
    }
    let mut out = [0u8; 32];
    sink.finalize_xof().read(&mut out);
    out.iter().map(|b| format!("{b:02x}")).collect()
}

/// C2SP CCTV ML-KEM README, "Accumulated pq-crystals vectors", 10 000 tests
/// each (FIPS 203 ipd with the Â fix, the variant of the intermediate file).
#[test]
fn cctv_accumulated_ipd_vectors_all_parameter_sets() {
    let expected = [
        "845913ea5a308b803c764a9ed8e9d814ca1fd9c82ba43c7b1e64b79c7a6ec8e4",
        "f7db260e1137a742e05fe0db9525012812b004d29040a5b606aad3d134b548d3",
        "47ac888fe61544efc0518f46094b4f8a600965fc89822acb06dc7169d24f3543",
    ];
    for (params, expected) in ALL.into_iter().zip(expected) {
        assert_eq!(
            accumulate(params, Variant::Ipd, 10_000, false),
            expected,
            "{}",
            params.name
        );
    }
}

/// Go's crypto/mlkem TestAccumulated (final FIPS 203, ML-KEM-768): 100 and
/// 10 000 tests.
#[test]
fn go_accumulated_final_fips203_768() {
    assert_eq!(
        accumulate(ML_KEM_768, Variant::Fips203, 100, true),
        "1114b1b6699ed191734fa339376afa7e285c9e6acf6ff0177d346696ce564415"
    );
    assert_eq!(
        accumulate(ML_KEM_768, Variant::Fips203, 10_000, true),
        "8a518cc63da366322a8e7a818c7a0d63483cb3528d34a4cf42f35d5ad73f22fc"
    );
}

// ---------------------------------------------------------------------------
// Round trips, implicit rejection, input checks
// ---------------------------------------------------------------------------

/// xorshift64*: seeds for the tests, deterministic and dependency-free.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn bytes32(&mut self) -> [u8; 32] {
        let mut out = [0u8; 32];
        for chunk in out.chunks_exact_mut(8) {
            chunk.copy_from_slice(&self.next().to_le_bytes());
        }
        out
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn round_trip_all_parameter_sets_many_seeds() {
    let mut rng = XorShift(0x6d6c_6b65_6d20_3230);
    for params in ALL {
        for variant in [Variant::Fips203, Variant::Ipd] {
            let kem = Kem::with_variant(params, variant).unwrap();
            for _ in 0..200 {
                let (d, z, m) = (rng.bytes32(), rng.bytes32(), rng.bytes32());
                let (ek, dk) = kem.key_gen(&d, &z).unwrap();
                assert_eq!((ek.len(), dk.len()), (params.ek_len(), params.dk_len()));
                let (key, c) = kem.encaps(&ek, &m).unwrap();
                assert_eq!(c.len(), params.ciphertext_len());
                assert_eq!(
                    kem.decaps(&dk, &c).unwrap(),
                    key,
                    "{} {variant:?}",
                    params.name
                );
            }
        }
    }
}

#[test]
fn tampered_ciphertext_gives_the_implicit_rejection_key() {
    let mut rng = XorShift(0x7461_6d70_6572_6564);
    for params in ALL {
        let kem = Kem::new(params).unwrap();
        for _ in 0..50 {
            let (ek, dk) = kem.key_gen(&rng.bytes32(), &rng.bytes32()).unwrap();
            let (key, c) = kem.encaps(&ek, &rng.bytes32()).unwrap();
            let z = &dk[dk.len() - 32..];
            // A bit anywhere: in c1, in c2 (the last byte), at random.
            for position in [0, c.len() - 1, rng.below(c.len())] {
                let mut bad = c.clone();
                bad[position] ^= 1 << rng.below(8);
                let rejected = kem.decaps(&dk, &bad).unwrap();
                assert_eq!(rejected, auxiliary::j(&[z, &bad]), "{}", params.name);
                assert_ne!(rejected, key);
            }
        }
    }
}

#[test]
fn wrong_lengths_are_typed_errors() {
    for params in ALL {
        let kem = Kem::new(params).unwrap();
        let (ek, dk) = kem.key_gen(&[1; 32], &[2; 32]).unwrap();
        let (_, c) = kem.encaps(&ek, &[3; 32]).unwrap();
        let (e, d, n) = (params.ek_len(), params.dk_len(), params.ciphertext_len());
        for found in [0, e - 1, e + 1] {
            let ek = vec![0u8; found];
            let error = KemError::EncapsulationKeyLength { expected: e, found };
            assert_eq!(kem.encaps(&ek, &[0; 32]), Err(error.clone()));
            assert_eq!(
                kem.encaps_internal(&ek, &[0; 32], &mut ()),
                Err(error.clone())
            );
            assert_eq!(kem.check_ek(&ek), Err(error));
        }
        for found in [0, d - 1, d + 1] {
            let dk = vec![0u8; found];
            let error = KemError::DecapsulationKeyLength { expected: d, found };
            assert_eq!(kem.decaps(&dk, &c), Err(error.clone()));
            assert_eq!(kem.decaps_internal(&dk, &c, &mut ()), Err(error));
        }
        for found in [0, n - 1, n + 1] {
            let c = vec![0u8; found];
            let error = KemError::CiphertextLength { expected: n, found };
            assert_eq!(kem.decaps(&dk, &c), Err(error.clone()));
            assert_eq!(kem.decaps_internal(&dk, &c, &mut ()), Err(error));
        }
        // Parameters outside FIPS 203 are refused up front.
        let odd = Params { du: 12, ..params };
        assert_eq!(Kem::new(odd).err(), Some(KemError::UnknownParameterSet));
        // A key of another parameter set is a length error, too.
        let other = if params == ML_KEM_768 {
            ML_KEM_1024
        } else {
            ML_KEM_768
        };
        let (other_ek, _) = Kem::new(other)
            .unwrap()
            .key_gen(&[1; 32], &[2; 32])
            .unwrap();
        assert!(matches!(
            kem.encaps(&other_ek, &[0; 32]),
            Err(KemError::EncapsulationKeyLength { .. })
        ));
    }
}

/// Sets the 12-bit coefficient `index` of ByteEncode12-packed `bytes`.
fn set_coefficient(bytes: &mut [u8], index: usize, value: u16) {
    let (byte, shift) = (index * 12 / 8, (index * 12) % 8);
    let mut word = bytes[byte] as u32 | (bytes[byte + 1] as u32) << 8;
    word = (word & !(0xfff << shift)) | (value as u32) << shift;
    bytes[byte] = word as u8;
    bytes[byte + 1] = (word >> 8) as u8;
}

#[test]
fn encapsulation_key_modulus_check() {
    let mut rng = XorShift(0x006d_6f64_756c_7573);
    for params in ALL {
        let kem = Kem::new(params).unwrap();
        let (ek, _) = kem.key_gen(&rng.bytes32(), &rng.bytes32()).unwrap();
        let coefficients = 256 * params.k;
        for index in [0, 1, coefficients - 1, rng.below(coefficients)] {
            for value in [3329, 3330, 4095] {
                let mut bad = ek.clone();
                set_coefficient(&mut bad, index, value);
                assert_eq!(
                    kem.check_ek(&bad),
                    Err(KemError::EncapsulationKeyNotReduced)
                );
                assert_eq!(
                    kem.encaps(&bad, &[0; 32]),
                    Err(KemError::EncapsulationKeyNotReduced)
                );
                // The internal algorithm has no such check (it reduces).
                assert!(kem.encaps_internal(&bad, &[0; 32], &mut ()).is_ok());
            }
            let mut edge = ek.clone();
            set_coefficient(&mut edge, index, 3328);
            assert_eq!(kem.check_ek(&edge), Ok(()), "q − 1 is reduced");
        }
    }
}

#[test]
fn decapsulation_key_hash_check() {
    for params in ALL {
        let kem = Kem::new(params).unwrap();
        let (ek, dk) = kem.key_gen(&[7; 32], &[8; 32]).unwrap();
        let (_, c) = kem.encaps(&ek, &[9; 32]).unwrap();
        let k = params.k;
        // A byte of the stored ek, then of the stored H(ek).
        for position in [384 * k, 768 * k + 31, 768 * k + 32, 768 * k + 63] {
            let mut bad = dk.clone();
            bad[position] ^= 0x80;
            assert_eq!(
                kem.check_dk(&bad),
                Err(KemError::DecapsulationKeyHashMismatch)
            );
            assert_eq!(
                kem.decaps(&bad, &c),
                Err(KemError::DecapsulationKeyHashMismatch)
            );
        }
        // dk_PKE and z are not covered by the hash.
        let mut other_z = dk.clone();
        other_z[768 * k + 64] ^= 1;
        assert_eq!(kem.check_dk(&other_z), Ok(()));
    }
}

/// Every NTT-layer call goes through ring.rs, as many as the algorithms
/// need, each vector in one call and each cache made once per vector:
/// KeyGen transforms ŝ and ê (2k NTTs in 2 calls), caches ŝ and takes k
/// rows of k products; Encrypt transforms ŷ (k NTTs, 1 call), caches it,
/// takes k + 1 rows of k products and transforms u (k polynomials, 1 call)
/// and v back; Decrypt adds NTT(u') (1 call), ŝ's caches, one dot product
/// and one inverse.
#[test]
fn ring_calls_per_operation() {
    use ring::Op;
    for params in ALL {
        let k = params.k as u64;
        let kem = Kem::new(params).unwrap();
        let calls = |f: &mut dyn FnMut()| {
            ring::reset_stats();
            f();
            let s = ring::stats();
            (
                Op::ALL.map(|op| s.calls[op as usize]),
                Op::ALL.map(|op| s.polys[op as usize]),
            )
        };
        let mut keys = None;
        let keygen = calls(&mut || keys = Some(kem.key_gen(&[1; 32], &[2; 32]).unwrap()));
        let (ek, dk) = keys.unwrap();
        let mut c = Vec::new();
        let encaps = calls(&mut || c = kem.encaps(&ek, &[3; 32]).unwrap().1);
        let decaps = calls(&mut || assert!(kem.decaps(&dk, &c).is_ok()));
        // Calls, then polynomials (or product terms): [NTT, inverse, cache,
        // multiply-accumulate].
        assert_eq!(keygen, ([2, 0, 1, k], [2 * k, 0, k, k * k]));
        assert_eq!(encaps, ([1, 2, 1, k + 1], [k, k + 1, k, (k + 1) * k]));
        assert_eq!(
            decaps,
            ([2, 3, 2, k + 2], [2 * k, k + 2, 2 * k, (k + 2) * k])
        );
    }
}

/// ring.rs's `reduce` takes every `i16` to its residue in [0, q).
#[test]
fn ring_reduce_is_canonical_for_every_word() {
    let words: Vec<i16> = (i16::MIN..=i16::MAX).collect();
    for chunk in words.chunks(256) {
        let mut f = [0i16; 256];
        f[..chunk.len()].copy_from_slice(chunk);
        ring::reduce(&mut f);
        for (&x, &r) in chunk.iter().zip(&f) {
            assert_eq!(r, (x as i32).rem_euclid(3329) as i16, "reduce({x})");
        }
    }
}

// ---------------------------------------------------------------------------
// The auxiliary algorithms against their definitions
// ---------------------------------------------------------------------------

#[test]
fn compress_and_decompress_match_their_rational_definitions() {
    let q = 3329u64;
    for d in 1..=11u32 {
        let all: Vec<i16> = (0..q as i16).collect();
        for chunk in all.chunks(256) {
            let mut x = [0i16; 256];
            x[..chunk.len()].copy_from_slice(chunk);
            let y = auxiliary::compress(d, &x);
            for (&x, &y) in x.iter().zip(&y) {
                // ⌈2^d·x/q⌋ mod 2^d, rounding half up, in integers.
                let exact = (((2 * x as u64) << d) + q) / (2 * q) % (1 << d);
                assert_eq!(y as u64, exact, "Compress_{d}({x})");
            }
        }
        let mut y = [0i16; 256];
        for (i, c) in y.iter_mut().enumerate() {
            *c = (i % (1 << d)) as i16;
        }
        for (&y, &x) in y.iter().zip(&auxiliary::decompress(d, &y)) {
            let exact = (2 * q * y as u64 + (1 << d)) / (2 << d);
            assert_eq!(x as u64, exact, "Decompress_{d}({y})");
        }
    }
}

#[test]
fn byte_encode_and_decode_are_inverse() {
    let mut rng = XorShift(0x656e_636f_6465);
    for d in 1..=12u32 {
        let modulus = if d == 12 { 3329 } else { 1 << d };
        for _ in 0..20 {
            let f: Poly = core::array::from_fn(|_| rng.below(modulus) as i16);
            let mut bytes = vec![0u8; 32 * d as usize];
            auxiliary::byte_encode(d, &f, &mut bytes);
            assert_eq!(auxiliary::byte_decode(d, &bytes), f, "d = {d}");
        }
    }
    // ByteDecode12 reduces modulo q: 4095 → 766.
    assert_eq!(auxiliary::byte_decode(12, &[0xff; 384])[0], 4095 - 3329);
}

#[test]
fn sample_poly_cbd_stays_within_eta() {
    let mut rng = XorShift(0x0063_6264);
    for eta in [2, 3] {
        let bytes: Vec<u8> = (0..64 * eta).map(|_| rng.next() as u8).collect();
        let f = auxiliary::sample_poly_cbd(eta, &bytes);
        assert!(f.iter().all(|&c| c <= eta as i16 || c >= 3329 - eta as i16));
        // All ones: every coefficient is η − η = 0.
        assert_eq!(
            auxiliary::sample_poly_cbd(eta, &vec![0xff; 64 * eta]),
            [0; 256]
        );
    }
}

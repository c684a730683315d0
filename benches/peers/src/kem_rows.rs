//! KEM-level rows: ML-KEM-512/768/1024 (FIPS 203) KeyGen, Encaps and
//! Decaps of the example (`examples/mlkem_kem`, included as modules, so
//! this times exactly the code the example and its tests run on nttfuse)
//! against libcrux-ml-kem and RustCrypto's ml-kem, after an interop check
//! that all three give the same bytes. Pure Rust: these rows run whether
//! or not the C peers were built.
//!
//! Every side takes bytes and returns bytes, with the input checks of
//! FIPS 203 §7.2 / §7.3 each library offers (see `NOTES`). Each round times
//! a loop of N operations of each side, plus one loop of ours with ring.rs's
//! per-call timing on (the share of the operation inside nttfuse), in an
//! order that rotates every round.

use crate::kem::{Kem, Params, ML_KEM_1024, ML_KEM_512, ML_KEM_768};
use crate::{median, ring, time_loop, Rng, Runner};
use std::hint::black_box;
use std::rc::Rc;
use std::time::Instant;

const SETS: [Params; 3] = [ML_KEM_512, ML_KEM_768, ML_KEM_1024];
const OPS: [&str; 3] = ["KeyGen", "Encaps", "Decaps"];
/// Seed sets per parameter set in the interop check.
const INTEROP_SEEDS: usize = 4;

const NOTES: [&str; 5] = [
    "KEM rows: ticks per operation, bytes in and bytes out, one thread; ours = examples/mlkem_kem (kem.rs, auxiliary.rs with RustCrypto sha3 0.10, ring.rs on nttfuse), libcrux-ml-kem 0.0.11 (its AVX2 code, chosen at run time), ml-kem 0.3 (RustCrypto, portable Rust)",
    "KeyGen(d, z): ours and libcrux return ek and the 768k+96-byte dk; ml-kem builds its key from the 64-byte seed d‖z (its stored form) and exports ek",
    "Encaps(ek, m) with the §7.2 modulus check: ours Kem::encaps, libcrux validate_public_key + encapsulate, ml-kem EncapsulationKey::new (decode, check, H(ek)) + encapsulate_deterministic",
    "Decaps(dk, c) with the §7.3 hash check: ours Kem::decaps, libcrux validate_private_key + decapsulate, ml-kem from_expanded_bytes (decode, checks) + decapsulate",
    "NTT share: the time of ours inside ring.rs's calls into nttfuse (NTTs, caches, multiply-accumulates), each call timed with Instant::now in a separate loop of the same round, the timers' own cost subtracted (ring::timer_cost)",
];

/// Whether the KEM rows run under `--only`: always without it, alone for
/// `--only kem`, otherwise when the row text contains the substring.
pub fn selected(filter: Option<&str>, row: &str) -> bool {
    match filter {
        None | Some("kem") => true,
        Some(f) => format!("{row} ours libcrux-ml-kem ml-kem")
            .to_lowercase()
            .contains(f),
    }
}

/// The seeds of one KEM run: KeyGen's d and z, Encaps' m.
#[derive(Clone, Copy)]
struct Seeds {
    d: [u8; 32],
    z: [u8; 32],
    m: [u8; 32],
}

impl Seeds {
    fn draw(rng: &mut Rng) -> Seeds {
        let mut bytes = || core::array::from_fn(|_| rng.next() as u8);
        Seeds {
            d: bytes(),
            z: bytes(),
            m: bytes(),
        }
    }

    /// d ‖ z: libcrux's and ml-kem's KeyGen input.
    fn dz(&self) -> [u8; 64] {
        let mut out = [0u8; 64];
        out[..32].copy_from_slice(&self.d);
        out[32..].copy_from_slice(&self.z);
        out
    }
}

/// Everything one implementation returns for one set of seeds.
struct Outputs {
    ek: Vec<u8>,
    dk: Vec<u8>,
    c: Vec<u8>,
    key: [u8; 32],
    /// Decaps(dk, c).
    decapsulated: [u8; 32],
    /// Decaps(dk, c with its first bit flipped): the implicit-rejection key.
    rejected: [u8; 32],
}

/// A peer at one parameter set: its outputs for given seeds, and loops of
/// n KeyGen, Encaps and Decaps on inputs it made from the seeds.
struct Peer {
    name: &'static str,
    outputs: fn(&Seeds) -> Outputs,
    runners: fn(&Seeds) -> [Runner; 3],
}

fn flip(c: &[u8]) -> Vec<u8> {
    let mut bad = c.to_vec();
    bad[0] ^= 1;
    bad
}

macro_rules! libcrux {
    ($set:ident) => {{
        use libcrux_ml_kem::$set as m;
        fn outputs(s: &Seeds) -> Outputs {
            let pair = m::generate_key_pair(s.dz());
            let (c, key) = m::encapsulate(pair.public_key(), s.m);
            let bad = libcrux_ml_kem::MlKemCiphertext::try_from(&flip(c.as_ref())[..]).unwrap();
            Outputs {
                ek: pair.pk().to_vec(),
                dk: pair.sk().to_vec(),
                c: c.as_ref().to_vec(),
                key,
                decapsulated: m::decapsulate(pair.private_key(), &c),
                rejected: m::decapsulate(pair.private_key(), &bad),
            }
        }
        fn runners(s: &Seeds) -> [Runner; 3] {
            let (dz, msg) = (s.dz(), s.m);
            let pair = m::generate_key_pair(dz);
            let (c, _) = m::encapsulate(pair.public_key(), msg);
            let pair2 = m::generate_key_pair(dz);
            [
                Box::new(move |n| {
                    for _ in 0..n {
                        black_box(m::generate_key_pair(black_box(dz)));
                    }
                }),
                Box::new(move |n| {
                    for _ in 0..n {
                        let pk = black_box(pair.public_key());
                        assert!(m::validate_public_key(pk));
                        black_box(m::encapsulate(pk, black_box(msg)));
                    }
                }),
                Box::new(move |n| {
                    for _ in 0..n {
                        let sk = black_box(pair2.private_key());
                        assert!(m::validate_private_key(sk, &c));
                        black_box(m::decapsulate(sk, &c));
                    }
                }),
            ]
        }
        Peer {
            name: "libcrux-ml-kem",
            outputs,
            runners,
        }
    }};
}

macro_rules! rustcrypto {
    ($set:ident) => {{
        #[allow(deprecated)] // the 768k+96-byte dk form, FIPS 203's own
        use ml_kem::ExpandedKeyEncoding;
        use ml_kem::{Decapsulate, KeyExport, TryKeyInit};
        type Dk = ml_kem::DecapsulationKey<ml_kem::$set>;
        type Ek = ml_kem::EncapsulationKey<ml_kem::$set>;
        fn outputs(s: &Seeds) -> Outputs {
            let dk = Dk::from_seed(s.dz().into());
            let ek = dk.encapsulation_key().to_bytes().to_vec();
            // Encaps from the bytes, as a sender would.
            let sender = Ek::new_from_slice(&ek).expect("ml-kem: its own ek");
            let (c, key) = sender.encapsulate_deterministic(&s.m.into());
            #[allow(deprecated)]
            let dk_bytes = dk.to_expanded_bytes().to_vec();
            Outputs {
                ek,
                dk: dk_bytes,
                c: c.to_vec(),
                key: key.into(),
                decapsulated: dk.decapsulate(&c).into(),
                rejected: dk.decapsulate_slice(&flip(&c)).unwrap().into(),
            }
        }
        fn runners(s: &Seeds) -> [Runner; 3] {
            let (dz, msg) = (s.dz(), s.m.into());
            let dk = Dk::from_seed(dz.into());
            let ek = dk.encapsulation_key().to_bytes();
            #[allow(deprecated)]
            let dk_bytes = dk.to_expanded_bytes();
            let (c, _) = dk.encapsulation_key().encapsulate_deterministic(&msg);
            [
                Box::new(move |n| {
                    for _ in 0..n {
                        let dk = Dk::from_seed(black_box(dz).into());
                        black_box(dk.encapsulation_key().to_bytes());
                        black_box(dk);
                    }
                }),
                Box::new(move |n| {
                    for _ in 0..n {
                        let ek = Ek::new(black_box(&ek)).expect("ml-kem ek");
                        black_box(ek.encapsulate_deterministic(black_box(&msg)));
                    }
                }),
                Box::new(move |n| {
                    for _ in 0..n {
                        #[allow(deprecated)]
                        let dk = Dk::from_expanded_bytes(black_box(&dk_bytes)).expect("ml-kem dk");
                        black_box(dk.decapsulate(black_box(&c)));
                    }
                }),
            ]
        }
        Peer {
            name: "ml-kem",
            outputs,
            runners,
        }
    }};
}

/// libcrux and ml-kem at `params`.
fn peers(params: Params) -> [Peer; 2] {
    match params.k {
        2 => [libcrux!(mlkem512), rustcrypto!(MlKem512)],
        3 => [libcrux!(mlkem768), rustcrypto!(MlKem768)],
        _ => [libcrux!(mlkem1024), rustcrypto!(MlKem1024)],
    }
}

fn ours_outputs(kem: &Kem, s: &Seeds) -> Outputs {
    let (ek, dk) = kem.key_gen(&s.d, &s.z).expect("ours: KeyGen");
    let (key, c) = kem.encaps(&ek, &s.m).expect("ours: Encaps");
    Outputs {
        decapsulated: kem.decaps(&dk, &c).expect("ours: Decaps"),
        rejected: kem.decaps(&dk, &flip(&c)).expect("ours: Decaps"),
        ek,
        dk,
        c,
        key,
    }
}

fn ours_runners(params: Params, s: &Seeds) -> [Runner; 3] {
    let kem = Rc::new(Kem::new(params).expect("ours: Kem"));
    let Seeds { d, z, m } = *s;
    let (ek, dk) = kem.key_gen(&d, &z).expect("ours: KeyGen");
    let (_, c) = kem.encaps(&ek, &m).expect("ours: Encaps");
    let (k1, k2, k3) = (kem.clone(), kem.clone(), kem);
    [
        Box::new(move |n| {
            for _ in 0..n {
                black_box(k1.key_gen(black_box(&d), &z).expect("KeyGen"));
            }
        }),
        Box::new(move |n| {
            for _ in 0..n {
                black_box(k2.encaps(black_box(&ek), &m).expect("Encaps"));
            }
        }),
        Box::new(move |n| {
            for _ in 0..n {
                black_box(k3.decaps(black_box(&dk), &c).expect("Decaps"));
            }
        }),
    ]
}

/// The first difference between ours and a peer's outputs, if any.
fn differences(ours: &Outputs, peer: &Outputs) -> Vec<String> {
    let fields: [(&str, &[u8], &[u8]); 6] = [
        ("ek", &ours.ek, &peer.ek),
        ("dk", &ours.dk, &peer.dk),
        ("ciphertext", &ours.c, &peer.c),
        ("shared secret (Encaps)", &ours.key, &peer.key),
        (
            "shared secret (Decaps)",
            &ours.decapsulated,
            &peer.decapsulated,
        ),
        ("implicit-rejection key", &ours.rejected, &peer.rejected),
    ];
    fields
        .iter()
        .filter(|(_, a, b)| a != b)
        .map(
            |(name, a, b)| match a.iter().zip(b.iter()).position(|(x, y)| x != y) {
                _ if a.len() != b.len() => format!("{name}: {} bytes vs {}", a.len(), b.len()),
                Some(i) => format!(
                    "{name} differs from byte {i} of {} (ours {:02x}, peer {:02x})",
                    a.len(),
                    a[i],
                    b[i]
                ),
                None => format!("{name} differs"),
            },
        )
        .collect()
}

/// Keys, ciphertexts and shared secrets of all three sides, byte for
/// byte: the failures, empty if all agree.
fn interop() -> Vec<String> {
    let mut failures = Vec::new();
    let mut rng = Rng(0x4B45_4D00);
    for params in SETS {
        let kem = Kem::new(params).expect("ours: Kem");
        let peers = peers(params);
        for round in 0..INTEROP_SEEDS {
            let seeds = Seeds::draw(&mut rng);
            let ours = ours_outputs(&kem, &seeds);
            if ours.decapsulated != ours.key {
                failures.push(format!(
                    "{} seeds #{round}: ours fails its round trip",
                    params.name
                ));
            }
            for peer in &peers {
                for what in differences(&ours, &(peer.outputs)(&seeds)) {
                    failures.push(format!(
                        "{} seeds #{round}: {}: {what}",
                        params.name, peer.name
                    ));
                }
            }
        }
    }
    failures
}

/// One row's timing: medians of ticks per operation for ours and each
/// peer, and the median share of ours inside nttfuse.
fn time_row(
    sides: &mut [Runner; 3],
    rounds: usize,
    target: u64,
    cost: ring::TimerCost,
) -> ([f64; 3], f64) {
    // Warm up, then pick n so that the slowest side's loop takes ~target.
    let mut slowest = 0;
    for _ in 0..2 {
        slowest = sides.iter_mut().map(|s| time_loop(s, 2)).max().unwrap_or(1);
    }
    let n = (target * 2 / slowest.max(1)).clamp(1, 100_000);
    let mut samples: [Vec<f64>; 3] = Default::default();
    let mut shares = Vec::with_capacity(rounds);
    for round in 0..rounds {
        for slot in 0..4 {
            match (slot + round) % 4 {
                3 => {
                    ring::set_timing(true);
                    ring::reset_stats();
                    let start = Instant::now();
                    (sides[0])(n);
                    let elapsed = start.elapsed().as_nanos() as f64;
                    ring::set_timing(false);
                    shares.push(ring::stats().share(elapsed, cost));
                }
                i => samples[i].push(time_loop(&mut sides[i], n) as f64 / n as f64),
            }
        }
    }
    (samples.map(|mut s| median(&mut s)), median(&mut shares))
}

/// The interop check, then the rows `filter` selects (see [`selected`]).
/// Exits with status 1 if the sides disagree.
pub fn run(filter: Option<&str>, rounds: usize, target: u64) {
    let rows: Vec<(Params, usize)> = SETS
        .into_iter()
        .flat_map(|p| (0..3).map(move |op| (p, op)))
        .filter(|(p, op)| selected(filter, &format!("{} {}", p.name, OPS[*op])))
        .collect();
    if rows.is_empty() {
        return;
    }
    println!();
    let failures = interop();
    if !failures.is_empty() {
        println!("kem interop: FAILED");
        for f in &failures {
            println!("  {f}");
        }
        std::process::exit(1);
    }
    println!(
        "kem interop: ok (ML-KEM-512/768/1024, final FIPS 203, {INTEROP_SEEDS} seed sets each: \
         ek, dk, ciphertext, shared secret, Decaps and implicit rejection byte-identical \
         with libcrux-ml-kem and ml-kem)"
    );
    let cost = ring::timer_cost();
    println!();
    println!(
        "{:<26} {:>8} {:>8} {:>8}  {:>12} {:>11}  {:>9}",
        "KEM operation [per op]",
        "ours",
        "libcrux",
        "ml-kem",
        "ours/libcrux",
        "ours/ml-kem",
        "NTT share"
    );
    let mut rng = Rng(0x4B45_4D01);
    for (params, op) in rows {
        let seeds = Seeds::draw(&mut rng);
        let [ours, libcrux, ml_kem] = [
            ours_runners(params, &seeds),
            (peers(params)[0].runners)(&seeds),
            (peers(params)[1].runners)(&seeds),
        ]
        .map(|mut r| std::mem::replace(&mut r[op], Box::new(|_| {})));
        let mut sides = [ours, libcrux, ml_kem];
        let ([t_ours, t_libcrux, t_ml_kem], share) = time_row(&mut sides, rounds, target, cost);
        println!(
            "{:<26} {t_ours:>8.0} {t_libcrux:>8.0} {t_ml_kem:>8.0}  {:>12.2} {:>11.2}  {:>8.0}%",
            format!("{} {}", params.name, OPS[op]),
            t_ours / t_libcrux,
            t_ours / t_ml_kem,
            100.0 * share
        );
    }
    println!();
    println!("KEM notes:");
    for note in NOTES {
        println!("- {note}");
    }
    println!(
        "- a timed ring.rs call costs {:.0} ns here, {:.0} ns of it between its clock reads",
        cost.per_call, cost.inside
    );
}

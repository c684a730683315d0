//! Same-process timings of nttfuse's lattice operations against peers
//! compiled from their checkouts (see build.rs and README.md):
//! mlkem-native (AVX2 assembly and portable C) and pq-crystals/dilithium
//! (avx2 and ref).
//!
//! Every row pairs one nttfuse contender with one peer anchor doing the same
//! operation. Each round times a loop of N calls of ours and a loop of N
//! calls of the peer back to back, alternating which goes first; the table
//! gives the median over the rounds of each side's ticks per polynomial (or
//! per product) and the ratio ours ÷ peer (below 1: ours is faster).
//!
//! The KEM-level rows (`kem_rows`, pure Rust, run with or without the C
//! peers) time the ML-KEM example's KeyGen, Encaps and Decaps against
//! libcrux-ml-kem and RustCrypto's ml-kem after an interop check.
//!
//! ```text
//! cargo run --release --manifest-path benches/peers/Cargo.toml -- [--quick] [--only SUBSTRING]
//! ```

mod ffi;
mod kem_rows;
mod overhead;

// The ML-KEM example's modules, included as they are (kem.rs reaches its
// siblings through `crate::`), so the KEM rows time exactly its code.
#[allow(dead_code)]
#[path = "../../../examples/mlkem_kem/auxiliary.rs"]
mod auxiliary;
#[allow(dead_code)]
#[path = "../../../examples/mlkem_kem/kem.rs"]
mod kem;
#[allow(dead_code)]
#[path = "../../../examples/mlkem_kem/ring.rs"]
mod ring;

use ffi::Aligned;
// Used by the peer sanity code only.
#[cfg_attr(not(any(has_mlkem_native, has_dilithium)), allow(unused_imports))]
use nttfuse::transform::{mldsa, mlkem};
use nttfuse::*;
use std::hint::black_box;

const KEM_Q: i64 = 3329;
const DSA_Q: i64 = 8_380_417;

// ───────────────────────────── timer ─────────────────────────────

/// Time-stamp counter, fenced on both sides so the loop being timed neither
/// starts before the first read nor finishes after the second.
#[inline(always)]
fn ticks() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_lfence, _rdtsc};
        // SAFETY: lfence and rdtsc have no preconditions on x86-64.
        unsafe {
            _mm_lfence();
            let t = _rdtsc();
            _mm_lfence();
            t
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        use std::time::Instant;
        thread_local!(static START: Instant = Instant::now());
        START.with(|s| s.elapsed().as_nanos() as u64)
    }
}

/// Ticks of one loop of `n` calls.
fn time_loop(run: &mut dyn FnMut(u64), n: u64) -> u64 {
    let start = ticks();
    run(n);
    ticks() - start
}

fn median(samples: &mut [f64]) -> f64 {
    samples.sort_by(f64::total_cmp);
    let mid = samples.len() / 2;
    if samples.len() % 2 == 1 {
        samples[mid]
    } else {
        (samples[mid - 1] + samples[mid]) / 2.0
    }
}

// ───────────────────────────── table model ─────────────────────────────

/// Which peer anchors an operation (so a missing peer can be named).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Peer {
    MlkemNative,
    Dilithium,
}

/// SIMD code is compared with SIMD code, portable with portable.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Simd,
    Portable,
}

/// One operation: every contender and anchor of it does the same work per
/// call on inputs of the same size and bounds.
struct Op {
    name: &'static str,
    peer: Peer,
    /// What one unit is ("poly", "product").
    unit: &'static str,
    /// Units per call (k for a batch of k polynomials or a k-term sum).
    per_call: usize,
    /// For operations whose output breaks their input bound (forward NTTs):
    /// a loop that only copies a fresh input into the work buffer, as every
    /// contender marked `copies_input` does before each call. Its ticks,
    /// measured in the same round, are subtracted from those contenders.
    copy: Option<Runner>,
    /// Printed under the table.
    note: &'static str,
}

type Runner = Box<dyn FnMut(u64)>;

/// One side of a row: a named closure that runs `n` calls.
struct Contender {
    op: &'static str,
    class: Class,
    name: String,
    /// Copies a fresh input in before each call (the op's copy loop is
    /// subtracted).
    copies_input: bool,
    run: Runner,
}

impl Contender {
    fn new(
        op: &'static str,
        class: Class,
        name: impl Into<String>,
        copies_input: bool,
        run: impl FnMut(u64) + 'static,
    ) -> Self {
        Contender {
            op,
            class,
            name: name.into(),
            copies_input,
            run: Box::new(run),
        }
    }
}

// Operation names (the keys that tie contenders, anchors and ops together).
const KEM_NTT_1: &str = "ML-KEM NTT";
const KEM_INTT_1: &str = "ML-KEM invNTT";
const KEM_NTT: [&str; 3] = ["ML-KEM NTT k=2", "ML-KEM NTT k=3", "ML-KEM NTT k=4"];
const KEM_INTT: [&str; 3] = [
    "ML-KEM invNTT k=2",
    "ML-KEM invNTT k=3",
    "ML-KEM invNTT k=4",
];
const KEM_DOT: [&str; 3] = ["ML-KEM dot k=2", "ML-KEM dot k=3", "ML-KEM dot k=4"];
const DSA_NTT: &str = "ML-DSA NTT";
const DSA_INTT: &str = "ML-DSA invNTT";
const DSA_POINTWISE: &str = "ML-DSA pointwise";

const NOTE_FORWARD: &str = "forward NTTs: each call copies a fresh canonical input into the work buffer first (the peers' NTTs need |a| < q and return up to 8q–9q); a loop of bare copies is timed in the same round and subtracted from every side that copies (column copy: the ticks subtracted; nttfuse's execute_from reads the input buffer directly and copies nothing)";
const NOTE_INVERSE: &str = "inverse NTTs run over and over on the same buffer, valid for every side: nttfuse maps canonical to canonical, mlkem-native's invNTT takes any int16, dilithium's takes |a| < q and returns |r| < q; the peers' outputs carry a Montgomery factor (2^16, 2^32) and are not canonical, nttfuse's are canonical";
const NOTE_DOT: &str = "ticks per product of a k-term sum Σ a_i∘b_i in the NTT domain (a row of Â·ŝ); nttfuse: MlKemProducts::multiply_accumulate (one reduction per sum; canonical output, or \"lazy\": |c| < MlKemProducts::lazy_bound(k)) with the caches of b made outside the timed loop (\"cached\") or inside it (\"+cache\"); mlkem-native: polyvec_basemul_acc_montgomery_cached, output times 2^-16 and not reduced, with the mulcache of b computed outside the timed loop (\"cached\") or inside it (\"+mulcache\")";
const NOTE_POINTWISE: &str = "nttfuse: MlDsaProducts::multiply_cached (a Montgomery product with the cache's twist: exact a·b, canonical or \"lazy\" |c| < q) with the cache made outside the timed loop, or multiply (\"+cache\": the cache made every call); dilithium's pointwise_avx returns a∘b·2^-32, |c| < q. Rows whose buffers happen to sit 4 KiB apart can read 2x slow in one run and not the next (store-to-load aliasing): compare several runs";

fn ops() -> Vec<Op> {
    let mut ops = vec![
        Op {
            name: KEM_NTT_1,
            peer: Peer::MlkemNative,
            unit: "poly",
            per_call: 1,
            copy: Some(copy_loop(Aligned([0i16; 256]))),
            note: NOTE_FORWARD,
        },
        Op {
            name: KEM_INTT_1,
            peer: Peer::MlkemNative,
            unit: "poly",
            per_call: 1,
            copy: None,
            note: NOTE_INVERSE,
        },
    ];
    ops.push(kem_ntt_op::<2>());
    ops.push(kem_ntt_op::<3>());
    ops.push(kem_ntt_op::<4>());
    for k in 2..=4 {
        ops.push(Op {
            name: KEM_INTT[k - 2],
            peer: Peer::MlkemNative,
            unit: "poly",
            per_call: k,
            copy: None,
            note: NOTE_INVERSE,
        });
    }
    for k in 2..=4 {
        ops.push(Op {
            name: KEM_DOT[k - 2],
            peer: Peer::MlkemNative,
            unit: "product",
            per_call: k,
            copy: None,
            note: NOTE_DOT,
        });
    }
    ops.push(Op {
        name: DSA_NTT,
        peer: Peer::Dilithium,
        unit: "poly",
        per_call: 1,
        copy: Some(copy_loop(Aligned([0i32; 256]))),
        note: NOTE_FORWARD,
    });
    ops.push(Op {
        name: DSA_INTT,
        peer: Peer::Dilithium,
        unit: "poly",
        per_call: 1,
        copy: None,
        note: NOTE_INVERSE,
    });
    ops.push(Op {
        name: DSA_POINTWISE,
        peer: Peer::Dilithium,
        unit: "poly",
        per_call: 1,
        copy: None,
        note: NOTE_POINTWISE,
    });
    ops
}

fn kem_ntt_op<const K: usize>() -> Op {
    Op {
        name: KEM_NTT[K - 2],
        peer: Peer::MlkemNative,
        unit: "poly",
        per_call: K,
        copy: Some(copy_loop(Aligned([[0i16; 256]; K]))),
        note: NOTE_FORWARD,
    }
}

/// The bare copy that contenders marked `copies_input` do before each call:
/// `*work = *input` on a value of the same type and size as theirs.
fn copy_loop<T: Copy + 'static>(value: T) -> Runner {
    let input = Box::new(value);
    let mut work = Box::new(value);
    Box::new(move |n| {
        for _ in 0..n {
            *work = *black_box(&*input);
            black_box(&mut *work);
        }
    })
}

// ───────────────────────────── inputs ─────────────────────────────

/// SplitMix64: fixed seeds, so every run times the same inputs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, q: i64) -> i64 {
        (self.next() % q as u64) as i64
    }
}

fn kem_poly(rng: &mut Rng) -> [MlKem; 256] {
    core::array::from_fn(|_| MlKem::new(rng.below(KEM_Q) as i16))
}

fn dsa_poly(rng: &mut Rng) -> [MlDsa; 256] {
    core::array::from_fn(|_| MlDsa::new(rng.below(DSA_Q) as i32))
}

#[cfg_attr(not(has_mlkem_native), allow(dead_code))] // used by the peer code only
fn kem_raw(p: &[MlKem; 256]) -> [i16; 256] {
    p.map(MlKem::value)
}

#[cfg_attr(not(has_dilithium), allow(dead_code))] // used by the peer code only
fn dsa_raw(p: &[MlDsa; 256]) -> [i32; 256] {
    p.map(MlDsa::value)
}

fn plan<F: Kernels>(backend: Option<Backend>, spec: &Transform<F>) -> Plan<F> {
    let planner = Planner::new().threads(Threads::Count(1));
    let planner = match backend {
        Some(b) => planner.backend(b),
        None => planner,
    };
    planner.plan(spec).expect("nttfuse plan")
}

fn class_of(backend: Option<Backend>) -> Class {
    if backend == Some(Backend::Scalar) {
        Class::Portable
    } else {
        Class::Simd
    }
}

// ───────────────────────────── ours ─────────────────────────────

/// nttfuse's contenders. To time a new entry point, add one entry here: an
/// op name (a key of `ops()`), the class of anchors to compare it with, a
/// name, whether it copies a fresh input in before each call, and the
/// closure that makes `n` calls.
fn ours() -> Vec<Contender> {
    let mut list = Vec::new();
    for backend in [None, Some(Backend::Scalar)] {
        list.push(kem_ntt::<1>(backend, KEM_NTT_1));
        list.push(kem_ntt_from(backend));
        list.push(kem_intt::<1>(backend, KEM_INTT_1));
        list.push(kem_ntt::<2>(backend, KEM_NTT[0]));
        list.push(kem_ntt::<3>(backend, KEM_NTT[1]));
        list.push(kem_ntt::<4>(backend, KEM_NTT[2]));
        list.push(kem_intt::<2>(backend, KEM_INTT[0]));
        list.push(kem_intt::<3>(backend, KEM_INTT[1]));
        list.push(kem_intt::<4>(backend, KEM_INTT[2]));
        list.push(dsa_ntt(backend));
        list.push(dsa_intt(backend));
    }
    // The raw-word entry point in each mode, on the detected backend and on
    // AVX2 forced (where the CPU has it).
    for backend in [None, Some(Backend::Avx2)] {
        if backend.is_some_and(|b| b.check::<MlKem>().is_err()) {
            continue;
        }
        for (reduction, order) in [
            (Reduction::Canonical, NttOrder::Standard),
            (Reduction::Lazy, NttOrder::Permuted),
        ] {
            list.push(raw_ntt::<MlKem, i16, 1>(
                backend, KEM_NTT_1, false, reduction, order,
            ));
            list.push(raw_ntt::<MlKem, i16, 1>(
                backend, KEM_INTT_1, true, reduction, order,
            ));
            list.push(raw_ntt::<MlKem, i16, 2>(
                backend, KEM_NTT[0], false, reduction, order,
            ));
            list.push(raw_ntt::<MlKem, i16, 3>(
                backend, KEM_NTT[1], false, reduction, order,
            ));
            list.push(raw_ntt::<MlKem, i16, 4>(
                backend, KEM_NTT[2], false, reduction, order,
            ));
            list.push(raw_ntt::<MlKem, i16, 2>(
                backend,
                KEM_INTT[0],
                true,
                reduction,
                order,
            ));
            list.push(raw_ntt::<MlKem, i16, 3>(
                backend,
                KEM_INTT[1],
                true,
                reduction,
                order,
            ));
            list.push(raw_ntt::<MlKem, i16, 4>(
                backend,
                KEM_INTT[2],
                true,
                reduction,
                order,
            ));
            list.push(raw_ntt::<MlDsa, i32, 1>(
                backend, DSA_NTT, false, reduction, order,
            ));
            list.push(raw_ntt::<MlDsa, i32, 1>(
                backend, DSA_INTT, true, reduction, order,
            ));
        }
    }
    // NTT-domain products: MlKemProducts with the caches of b made outside
    // the timed loop (as the peer's mulcache) and inside it; the portable
    // kernels forced; ML-DSA's likewise.
    for backend in [None, Some(Backend::Avx2), Some(Backend::Scalar)] {
        if backend.is_some_and(|b| b.check::<MlKem>().is_err()) {
            continue;
        }
        for (cached, reduction) in [
            (true, Reduction::Canonical),
            (true, Reduction::Lazy),
            (false, Reduction::Canonical),
        ] {
            list.push(kem_mac::<2>(backend, cached, reduction));
            list.push(kem_mac::<3>(backend, cached, reduction));
            list.push(kem_mac::<4>(backend, cached, reduction));
            list.push(dsa_mul(backend, cached, reduction));
        }
    }
    list
}

/// The raw words of a lattice field (`execute_raw`).
trait Raw: Kernels {
    type Word: Copy + Default + 'static;
    const Q: i64;
    fn execute_raw(plan: &Plan<Self>, data: &mut [Self::Word]);
    fn word(x: i64) -> Self::Word;
    fn spec(inverse: bool) -> Transform<Self>;
}

impl Raw for MlKem {
    type Word = i16;
    const Q: i64 = KEM_Q;
    fn execute_raw(plan: &Plan<Self>, data: &mut [i16]) {
        plan.execute_raw(data).expect("execute_raw");
    }
    fn word(x: i64) -> i16 {
        x as i16
    }
    fn spec(inverse: bool) -> Transform<Self> {
        if inverse {
            Transform::<Self>::negacyclic_inverse()
        } else {
            Transform::<Self>::negacyclic_forward()
        }
    }
}

impl Raw for MlDsa {
    type Word = i32;
    const Q: i64 = DSA_Q;
    fn execute_raw(plan: &Plan<Self>, data: &mut [i32]) {
        plan.execute_raw(data).expect("execute_raw");
    }
    fn word(x: i64) -> i32 {
        x as i32
    }
    fn spec(inverse: bool) -> Transform<Self> {
        if inverse {
            Transform::<Self>::negacyclic_inverse()
        } else {
            Transform::<Self>::negacyclic_forward()
        }
    }
}

/// The NTT (or inverse) of K polynomials of raw words with `execute_raw`
/// in the given mode: forward on a fresh canonical input each call, the
/// inverse repeated in place (its output is within its input contract).
fn raw_ntt<F: Raw<Word = W>, W: Copy + Default + 'static, const K: usize>(
    backend: Option<Backend>,
    op: &'static str,
    inverse: bool,
    reduction: Reduction,
    order: NttOrder,
) -> Contender {
    let spec = F::spec(inverse)
        .batch(K)
        .reduction(reduction)
        .ntt_order(order);
    let plan = plan(backend, &spec);
    let mode = match (reduction, order) {
        (Reduction::Canonical, NttOrder::Standard) => "raw",
        (Reduction::Lazy, NttOrder::Permuted) => "raw lazy permuted",
        (Reduction::Lazy, _) => "raw lazy",
        _ => "raw permuted",
    };
    let name = format!("nttfuse {} {mode}", plan.backend().name());
    let mut rng = Rng(0x4A57_0000 + K as u64);
    let input: Box<Aligned<[[W; 256]; K]>> = Box::new(Aligned(core::array::from_fn(|_| {
        core::array::from_fn(|_| F::word(rng.below(F::Q)))
    })));
    let mut work = Box::new(*input);
    Contender::new(op, class_of(backend), name, !inverse, move |n| {
        for _ in 0..n {
            if !inverse {
                *work = *black_box(&*input);
            }
            F::execute_raw(&plan, black_box(&mut *work).0.as_flattened_mut());
            black_box(&mut *work);
        }
    })
}

fn products_name(
    backend: Option<Backend>,
    what: &str,
    cached: bool,
    reduction: Reduction,
) -> String {
    let name = match backend {
        None => "",
        Some(Backend::Avx2) => " avx2",
        Some(Backend::Scalar) => " portable",
        Some(_) => " simd",
    };
    format!(
        "nttfuse{name} {what}{}{}",
        if reduction == Reduction::Lazy {
            " lazy"
        } else {
            ""
        },
        if cached { " (cached)" } else { " +cache" }
    )
}

/// Σ_{i<K} a_i ∘ b_i with `MlKemProducts::multiply_accumulate`; the caches
/// of b made once outside the loop (`cached`) or every call.
fn kem_mac<const K: usize>(
    backend: Option<Backend>,
    cached: bool,
    reduction: Reduction,
) -> Contender {
    let products = match backend {
        Some(b) => MlKemProducts::on(b).expect("products"),
        None => MlKemProducts::new(),
    }
    .reduction(reduction);
    let mut rng = Rng(0xD07_0000 + K as u64);
    let a: Box<Aligned<[[i16; 256]; K]>> = Box::new(Aligned(core::array::from_fn(|_| {
        kem_raw(&kem_poly(&mut rng))
    })));
    let b: Box<Aligned<[[i16; 256]; K]>> = Box::new(Aligned(core::array::from_fn(|_| {
        kem_raw(&kem_poly(&mut rng))
    })));
    let mut caches: Vec<MlKemCache> = b.0.iter().map(|p| products.cache(p)).collect();
    let mut out = Box::new(Aligned([0i16; 256]));
    let name = products_name(backend, "multiply_accumulate", cached, reduction);
    Contender::new(KEM_DOT[K - 2], class_of(backend), name, false, move |n| {
        for _ in 0..n {
            if !cached {
                for (p, c) in black_box(&*b).0.iter().zip(caches.iter_mut()) {
                    products.cache_into(p, c);
                }
            }
            products
                .multiply_accumulate(&black_box(&*a).0, &caches, &mut out.0)
                .expect("multiply_accumulate");
            black_box(&mut *out);
        }
    })
}

/// ML-DSA's coefficient-wise product with `MlDsaProducts`.
fn dsa_mul(backend: Option<Backend>, cached: bool, reduction: Reduction) -> Contender {
    let products = match backend {
        Some(b) => MlDsaProducts::on(b).expect("products"),
        None => MlDsaProducts::new(),
    }
    .reduction(reduction);
    let mut rng = Rng(0xD5A_0003);
    let a = Box::new(Aligned(dsa_poly(&mut rng).map(MlDsa::value)));
    let b = Box::new(Aligned(dsa_poly(&mut rng).map(MlDsa::value)));
    let cache = products.cache(&b.0);
    let mut out = Box::new(Aligned([0i32; 256]));
    let name = products_name(backend, "multiply", cached, reduction);
    Contender::new(DSA_POINTWISE, class_of(backend), name, false, move |n| {
        for _ in 0..n {
            if cached {
                products.multiply_cached(&black_box(&*a).0, &cache, &mut out.0);
            } else {
                products.multiply(&black_box(&*a).0, &black_box(&*b).0, &mut out.0);
            }
            black_box(&mut *out);
        }
    })
}

/// Forward ML-KEM NTT of K polynomials (one plan with `.batch(K)` for K > 1).
fn kem_ntt<const K: usize>(backend: Option<Backend>, op: &'static str) -> Contender {
    let spec = Transform::<MlKem>::negacyclic_forward();
    let plan = plan(backend, &if K > 1 { spec.batch(K) } else { spec });
    let name = format!("nttfuse {}", plan.backend().name());
    let mut rng = Rng(0x4E77_0000 + K as u64);
    let input = Box::new(Aligned::<[[MlKem; 256]; K]>(core::array::from_fn(|_| {
        kem_poly(&mut rng)
    })));
    let mut work = Box::new(*input);
    Contender::new(op, class_of(backend), name, true, move |n| {
        for _ in 0..n {
            *work = *black_box(&*input);
            plan.execute(work.0.as_flattened_mut()).expect("execute");
            black_box(&mut *work);
        }
    })
}

/// Forward ML-KEM NTT of one polynomial with `execute_from`: reads the input
/// buffer directly, so no copy to subtract.
fn kem_ntt_from(backend: Option<Backend>) -> Contender {
    let plan = plan(backend, &Transform::<MlKem>::negacyclic_forward());
    let name = format!("nttfuse {} execute_from", plan.backend().name());
    let mut rng = Rng(0x4E77_0001);
    let input = Box::new(Aligned(kem_poly(&mut rng)));
    let mut out = Box::new(Aligned([MlKem::ZERO; 256]));
    Contender::new(KEM_NTT_1, class_of(backend), name, false, move |n| {
        for _ in 0..n {
            plan.execute_from(&black_box(&*input).0, &mut out.0)
                .expect("execute_from");
            black_box(&mut *out);
        }
    })
}

/// Inverse ML-KEM NTT of K polynomials, repeated in place.
fn kem_intt<const K: usize>(backend: Option<Backend>, op: &'static str) -> Contender {
    let spec = Transform::<MlKem>::negacyclic_inverse();
    let plan = plan(backend, &if K > 1 { spec.batch(K) } else { spec });
    let name = format!("nttfuse {}", plan.backend().name());
    let mut rng = Rng(0x1A77_0000 + K as u64);
    let mut work = Box::new(Aligned::<[[MlKem; 256]; K]>(core::array::from_fn(|_| {
        kem_poly(&mut rng)
    })));
    Contender::new(op, class_of(backend), name, false, move |n| {
        for _ in 0..n {
            plan.execute(black_box(&mut *work).0.as_flattened_mut())
                .expect("execute");
        }
    })
}

fn dsa_ntt(backend: Option<Backend>) -> Contender {
    let plan = plan(backend, &Transform::<MlDsa>::negacyclic_forward());
    let name = format!("nttfuse {}", plan.backend().name());
    let mut rng = Rng(0xD5A_0001);
    let input = Box::new(Aligned(dsa_poly(&mut rng)));
    let mut work = Box::new(*input);
    Contender::new(DSA_NTT, class_of(backend), name, true, move |n| {
        for _ in 0..n {
            *work = *black_box(&*input);
            plan.execute(&mut work.0).expect("execute");
            black_box(&mut *work);
        }
    })
}

fn dsa_intt(backend: Option<Backend>) -> Contender {
    let plan = plan(backend, &Transform::<MlDsa>::negacyclic_inverse());
    let name = format!("nttfuse {}", plan.backend().name());
    let mut rng = Rng(0xD5A_0002);
    let mut work = Box::new(Aligned(dsa_poly(&mut rng)));
    Contender::new(DSA_INTT, class_of(backend), name, false, move |n| {
        for _ in 0..n {
            plan.execute(&mut black_box(&mut *work).0).expect("execute");
        }
    })
}

// ───────────────────────────── peers ─────────────────────────────

/// Why each peer is or is not in this binary (from build.rs).
fn peer_status(peer: Peer) -> (&'static str, bool, &'static str) {
    match peer {
        Peer::MlkemNative => (
            "mlkem-native",
            cfg!(has_mlkem_native),
            env!("NTTFUSE_PEERS_MLKEM_NATIVE"),
        ),
        Peer::Dilithium => (
            "pq-crystals/dilithium",
            cfg!(has_dilithium),
            env!("NTTFUSE_PEERS_DILITHIUM"),
        ),
    }
}

/// The peers' anchors, as far as they were built.
fn anchors() -> Vec<Contender> {
    #[allow(unused_mut)]
    let mut list = Vec::new();
    #[cfg(has_mlkem_native)]
    mlkem_native_anchors(&mut list);
    #[cfg(has_dilithium)]
    dilithium_anchors(&mut list);
    list
}

#[cfg(has_mlkem_native)]
fn mlkem_native_anchors(list: &mut Vec<Contender>) {
    use ffi::{MlkemNative, MLKEM_AVX2_K2, MLKEM_AVX2_K3, MLKEM_AVX2_K4, MLKEM_C_K3};

    fn class(peer: &MlkemNative) -> Class {
        if peer.avx2 {
            Class::Simd
        } else {
            Class::Portable
        }
    }

    fn poly_ntt(peer: MlkemNative) -> Contender {
        let mut rng = Rng(0x4E77_0000 + 1);
        let input = Box::new(Aligned(kem_raw(&kem_poly(&mut rng))));
        let mut work = Box::new(*input);
        Contender::new(
            KEM_NTT_1,
            class(&peer),
            format!("{} poly_ntt", peer.name),
            true,
            move |n| {
                for _ in 0..n {
                    *work = *black_box(&*input);
                    peer.poly_ntt(&mut work);
                    black_box(&mut *work);
                }
            },
        )
    }

    fn poly_intt(peer: MlkemNative) -> Contender {
        let mut rng = Rng(0x1A77_0000 + 1);
        let mut work = Box::new(Aligned(kem_raw(&kem_poly(&mut rng))));
        let name = format!("{} poly_invntt_tomont", peer.name);
        Contender::new(KEM_INTT_1, class(&peer), name, false, move |n| {
            for _ in 0..n {
                peer.poly_invntt_tomont(black_box(&mut *work));
            }
        })
    }

    fn polyvec_ntt<const K: usize>(peer: MlkemNative) -> Contender {
        let mut rng = Rng(0x4E77_0000 + K as u64);
        let input = Box::new(Aligned::<[[i16; 256]; K]>(core::array::from_fn(|_| {
            kem_raw(&kem_poly(&mut rng))
        })));
        let mut work = Box::new(*input);
        let name = format!("{} polyvec_ntt", peer.name);
        Contender::new(KEM_NTT[K - 2], class(&peer), name, true, move |n| {
            for _ in 0..n {
                *work = *black_box(&*input);
                peer.polyvec_ntt(&mut work);
                black_box(&mut *work);
            }
        })
    }

    fn polyvec_intt<const K: usize>(peer: MlkemNative) -> Contender {
        let mut rng = Rng(0x1A77_0000 + K as u64);
        let mut work = Box::new(Aligned::<[[i16; 256]; K]>(core::array::from_fn(|_| {
            kem_raw(&kem_poly(&mut rng))
        })));
        let name = format!("{} polyvec_invntt_tomont", peer.name);
        Contender::new(KEM_INTT[K - 2], class(&peer), name, false, move |n| {
            for _ in 0..n {
                peer.polyvec_invntt_tomont(black_box(&mut *work));
            }
        })
    }

    /// `with_cache`: the mulcache of b is computed in every call (else once,
    /// outside the timed loop).
    fn dot<const K: usize>(peer: MlkemNative, with_cache: bool) -> Contender {
        let mut rng = Rng(0xD07_0000 + K as u64);
        // Canonical inputs (a must lie in [0, 4096)); the order does not
        // matter to the cost.
        let a = Box::new(Aligned::<[[i16; 256]; K]>(core::array::from_fn(|_| {
            kem_raw(&kem_poly(&mut rng))
        })));
        let b = Box::new(Aligned::<[[i16; 256]; K]>(core::array::from_fn(|_| {
            kem_raw(&kem_poly(&mut rng))
        })));
        let mut cache = Box::new(Aligned([[0i16; 128]; K]));
        peer.polyvec_mulcache_compute(&mut cache, &b);
        let mut out = Box::new(Aligned([0i16; 256]));
        let name = if with_cache {
            format!("{} mulcache+basemul_acc", peer.name)
        } else {
            format!("{} basemul_acc (cached)", peer.name)
        };
        Contender::new(KEM_DOT[K - 2], class(&peer), name, false, move |n| {
            for _ in 0..n {
                let b = black_box(&*b);
                if with_cache {
                    peer.polyvec_mulcache_compute(&mut cache, b);
                }
                peer.basemul_acc(&mut out, black_box(&*a), b, black_box(&*cache));
                black_box(&mut *out);
            }
        })
    }

    for peer in [MLKEM_AVX2_K3, MLKEM_C_K3] {
        list.push(poly_ntt(peer));
        list.push(poly_intt(peer));
    }
    list.push(polyvec_ntt::<2>(MLKEM_AVX2_K2));
    list.push(polyvec_ntt::<3>(MLKEM_AVX2_K3));
    list.push(polyvec_ntt::<4>(MLKEM_AVX2_K4));
    list.push(polyvec_ntt::<3>(MLKEM_C_K3));
    list.push(polyvec_intt::<2>(MLKEM_AVX2_K2));
    list.push(polyvec_intt::<3>(MLKEM_AVX2_K3));
    list.push(polyvec_intt::<4>(MLKEM_AVX2_K4));
    list.push(polyvec_intt::<3>(MLKEM_C_K3));
    for with_cache in [false, true] {
        list.push(dot::<2>(MLKEM_AVX2_K2, with_cache));
        list.push(dot::<3>(MLKEM_AVX2_K3, with_cache));
        list.push(dot::<4>(MLKEM_AVX2_K4, with_cache));
        list.push(dot::<3>(MLKEM_C_K3, with_cache));
    }
}

#[cfg(has_dilithium)]
fn dilithium_anchors(list: &mut Vec<Contender>) {
    use ffi::dilithium;

    type Kernel = fn(&mut ffi::Poly32);
    let sides: [(Class, &str, Kernel, Kernel); 2] = [
        (
            Class::Simd,
            "dilithium avx2",
            dilithium::avx2_ntt,
            dilithium::avx2_invntt_tomont,
        ),
        (
            Class::Portable,
            "dilithium ref",
            dilithium::ref_ntt,
            dilithium::ref_invntt_tomont,
        ),
    ];
    for (class, name, ntt, intt) in sides {
        let mut rng = Rng(0xD5A_0001);
        let input = Box::new(Aligned(dsa_raw(&dsa_poly(&mut rng))));
        let mut work = Box::new(*input);
        list.push(Contender::new(
            DSA_NTT,
            class,
            format!("{name} ntt"),
            true,
            move |n| {
                for _ in 0..n {
                    *work = *black_box(&*input);
                    ntt(&mut work);
                    black_box(&mut *work);
                }
            },
        ));
        let mut rng = Rng(0xD5A_0002);
        let mut work = Box::new(Aligned(dsa_raw(&dsa_poly(&mut rng))));
        let label = format!("{name} invntt_tomont");
        list.push(Contender::new(DSA_INTT, class, label, false, move |n| {
            for _ in 0..n {
                intt(black_box(&mut *work));
            }
        }));
    }
    let mut rng = Rng(0xD5A_0003);
    let a = Box::new(Aligned(dsa_raw(&dsa_poly(&mut rng))));
    let b = Box::new(Aligned(dsa_raw(&dsa_poly(&mut rng))));
    let mut c = Box::new(Aligned([0i32; 256]));
    let name = "dilithium avx2 pointwise";
    list.push(Contender::new(
        DSA_POINTWISE,
        Class::Simd,
        name,
        false,
        move |n| {
            for _ in 0..n {
                dilithium::avx2_pointwise_montgomery(&mut c, black_box(&*a), black_box(&*b));
                black_box(&mut *c);
            }
        },
    ));
}

// ───────────────────────────── peer sanity ─────────────────────────────

/// Checks each peer against nttfuse (or against itself, by a round trip)
/// so that a mis-wired call is caught before anything is timed. Returns the
/// list of failures.
fn peer_sanity() -> Vec<String> {
    #[allow(unused_mut)]
    let mut failures = Vec::new();
    #[cfg(has_mlkem_native)]
    mlkem_native_sanity(&mut failures);
    #[cfg(has_dilithium)]
    dilithium_sanity(&mut failures);
    failures
}

#[cfg_attr(not(any(has_mlkem_native, has_dilithium)), allow(dead_code))]
/// Whether `got[i] · factor ≡ want[i] (mod q)` for every i, and |got| < bound.
fn congruent(got: &[i64], want: &[i64], factor: i64, q: i64, bound: i64) -> Result<(), String> {
    assert_eq!(got.len(), want.len());
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        if g.abs() >= bound {
            return Err(format!("coefficient {i} = {g} is out of its bound {bound}"));
        }
        if (g * factor - w).rem_euclid(q) != 0 {
            return Err(format!(
                "coefficient {i}: got {g} (· {factor} ≡ {}), want ≡ {}",
                (g * factor).rem_euclid(q),
                w.rem_euclid(q)
            ));
        }
    }
    Ok(())
}

#[cfg_attr(not(any(has_mlkem_native, has_dilithium)), allow(dead_code))]
fn widen<T: Copy + Into<i64>>(values: &[T]) -> Vec<i64> {
    values.iter().map(|&v| v.into()).collect()
}

#[cfg(has_mlkem_native)]
fn mlkem_native_sanity(failures: &mut Vec<String>) {
    use ffi::{MlkemNative, Poly16, MLKEM_AVX2, MLKEM_C_K3};
    const MONT: i64 = (1 << 16) % KEM_Q; // 2^16 mod q

    let forward = plan(None, &Transform::<MlKem>::negacyclic_forward());
    // nttfuse's NTT (FIPS 203 order) as the peer's order.
    let ours_ntt = |peer: &MlkemNative, x: &[MlKem; 256]| -> Poly16 {
        let mut y = *x;
        forward.execute(&mut y).expect("execute");
        let mut y = Aligned(kem_raw(&y));
        peer.permute_bitrev_to_custom(&mut y);
        y
    };

    fn vec_checks<const K: usize>(
        peer: MlkemNative,
        ours_ntt: &dyn Fn(&MlkemNative, &[MlKem; 256]) -> Poly16,
        rng: &mut Rng,
    ) -> Result<(), String> {
        let x: [[MlKem; 256]; K] = core::array::from_fn(|_| kem_poly(rng));
        let mut v = Aligned(x.map(|p| kem_raw(&p)));
        peer.polyvec_ntt(&mut v);
        for (i, p) in x.iter().enumerate() {
            let want = ours_ntt(&peer, p);
            congruent(&widen(&v.0[i]), &widen(&want.0), 1, KEM_Q, 8 * KEM_Q)
                .map_err(|e| format!("polyvec_ntt poly {i}: {e}"))?;
        }
        peer.polyvec_invntt_tomont(&mut v);
        for (i, p) in x.iter().enumerate() {
            // The inverse returns x · 2^16.
            let want: Vec<i64> = kem_raw(p).iter().map(|&c| c as i64 * MONT).collect();
            congruent(&widen(&v.0[i]), &want, 1, KEM_Q, 8 * KEM_Q)
                .map_err(|e| format!("polyvec_invntt_tomont poly {i}: {e}"))?;
        }
        // The k-term product: canonical a, b in FIPS 203 order for nttfuse,
        // the same permuted for the peer; its result carries 2^-16.
        let a: [[MlKem; 256]; K] = core::array::from_fn(|_| kem_poly(rng));
        let b: [[MlKem; 256]; K] = core::array::from_fn(|_| kem_poly(rng));
        let mut want = [MlKem::ZERO; 256];
        for i in 0..K {
            let term = mlkem::multiply_ntts_reference(&a[i], &b[i]);
            for (w, t) in want.iter_mut().zip(term) {
                *w += t;
            }
        }
        let permuted = |p: &[MlKem; 256]| {
            let mut p = Aligned(kem_raw(p));
            peer.permute_bitrev_to_custom(&mut p);
            p.0
        };
        let pa = Aligned(a.each_ref().map(&permuted));
        let pb = Aligned(b.each_ref().map(&permuted));
        let mut cache = Aligned([[0i16; 128]; K]);
        peer.polyvec_mulcache_compute(&mut cache, &pb);
        let mut single = Aligned([[0i16; 128]; 1]);
        peer.poly_mulcache_compute(&mut single, &Aligned(pb.0[0]));
        if single.0[0] != cache.0[0] {
            return Err("poly_mulcache_compute ≠ polyvec_mulcache_compute[0]".into());
        }
        let mut r = Aligned([0i16; 256]);
        peer.basemul_acc(&mut r, &pa, &pb, &cache);
        let want = permuted(&want);
        congruent(&widen(&r.0), &widen(&want), MONT, KEM_Q, 1 << 15)
            .map_err(|e| format!("polyvec_basemul_acc_montgomery_cached: {e}"))?;
        Ok(())
    }

    let mut rng = Rng(0x5A17);
    for peer in MLKEM_AVX2.into_iter().chain([MLKEM_C_K3]) {
        let label = format!("{} k={}", peer.name, peer.k);
        let outcome = (|| -> Result<(), String> {
            if peer.reported_k() != peer.k {
                return Err(format!("the C build reports k = {}", peer.reported_k()));
            }
            let x = kem_poly(&mut rng);
            let mut p = Aligned(kem_raw(&x));
            peer.poly_ntt(&mut p);
            let want = ours_ntt(&peer, &x);
            congruent(&widen(&p.0), &widen(&want.0), 1, KEM_Q, 8 * KEM_Q).map_err(|e| {
                let mut got: Vec<i64> = p.0.iter().map(|&c| (c as i64).rem_euclid(KEM_Q)).collect();
                let mut want: Vec<i64> = widen(&want.0);
                got.sort_unstable();
                want.sort_unstable();
                let multiset = if got == want { "equal" } else { "different" };
                format!("poly_ntt vs nttfuse: {e} (as multisets mod q: {multiset})")
            })?;
            peer.poly_invntt_tomont(&mut p);
            let want: Vec<i64> = kem_raw(&x).iter().map(|&c| c as i64 * MONT).collect();
            congruent(&widen(&p.0), &want, 1, KEM_Q, 8 * KEM_Q)
                .map_err(|e| format!("poly_invntt_tomont(poly_ntt(x)) vs x·2^16: {e}"))?;
            match peer.k {
                2 => vec_checks::<2>(peer, &ours_ntt, &mut rng),
                3 => vec_checks::<3>(peer, &ours_ntt, &mut rng),
                4 => vec_checks::<4>(peer, &ours_ntt, &mut rng),
                k => Err(format!("unexpected k = {k}")),
            }
        })();
        if let Err(e) = outcome {
            failures.push(format!("{label}: {e}"));
        }
    }
}

#[cfg(has_dilithium)]
fn dilithium_sanity(failures: &mut Vec<String>) {
    use ffi::dilithium;
    const MONT: i64 = (1 << 32) % DSA_Q; // 2^32 mod q

    let forward = plan(None, &Transform::<MlDsa>::negacyclic_forward());
    let mut rng = Rng(0x5A18);
    let x = dsa_poly(&mut rng);
    let mut ours = x;
    forward.execute(&mut ours).expect("execute");
    let x_times_mont: Vec<i64> = dsa_raw(&x).iter().map(|&c| c as i64 * MONT).collect();

    type Kernel = fn(&mut ffi::Poly32);
    let sides: [(&str, Kernel, Kernel, bool); 2] = [
        (
            "dilithium avx2",
            dilithium::avx2_ntt,
            dilithium::avx2_invntt_tomont,
            true,
        ),
        (
            "dilithium ref",
            dilithium::ref_ntt,
            dilithium::ref_invntt_tomont,
            false,
        ),
    ];
    for (name, ntt, intt, unpack) in sides {
        let mut want = Aligned(dsa_raw(&ours));
        if unpack {
            dilithium::avx2_nttunpack(&mut want);
        }
        let mut p = Aligned(dsa_raw(&x));
        ntt(&mut p);
        if let Err(e) = congruent(&widen(&p.0), &widen(&want.0), 1, DSA_Q, 9 * DSA_Q) {
            failures.push(format!("{name} ntt vs nttfuse: {e}"));
            continue;
        }
        // The inverse wants |a| < q: reduce the NTT output first.
        let mut p = Aligned(p.0.map(|c| MlDsa::new(c).value()));
        intt(&mut p);
        if let Err(e) = congruent(&widen(&p.0), &x_times_mont, 1, DSA_Q, DSA_Q) {
            failures.push(format!("{name} invntt_tomont(ntt(x)) vs x·2^32: {e}"));
        }
    }
    let a = dsa_poly(&mut rng);
    let b = dsa_poly(&mut rng);
    let mut c = Aligned([0i32; 256]);
    dilithium::avx2_pointwise_montgomery(&mut c, &Aligned(dsa_raw(&a)), &Aligned(dsa_raw(&b)));
    let want: Vec<i64> = mldsa::pointwise(&a, &b)
        .iter()
        .map(|v| v.value() as i64)
        .collect();
    if let Err(e) = congruent(&widen(&c.0), &want, MONT, DSA_Q, DSA_Q) {
        failures.push(format!("dilithium avx2 pointwise vs a∘b·2^-32: {e}"));
    }
}

// ───────────────────────────── driver ─────────────────────────────

struct Options {
    only: Option<String>,
    quick: bool,
}

impl Options {
    fn parse() -> Options {
        let mut options = Options {
            only: None,
            quick: false,
        };
        let mut args = std::env::args().skip(1);
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--quick" => options.quick = true,
                "--only" => match args.next() {
                    Some(s) => options.only = Some(s),
                    None => usage("--only needs a substring"),
                },
                "-h" | "--help" => {
                    println!("{}", USAGE);
                    std::process::exit(0);
                }
                other => usage(&format!("unknown argument {other:?}")),
            }
        }
        options
    }

    /// Rounds per row, and the ticks one loop of N calls aims at.
    fn budget(&self) -> (usize, u64) {
        if self.quick {
            (11, 60_000)
        } else {
            (201, 1_000_000)
        }
    }
}

const USAGE: &str = "usage: nttfuse-peers [--quick] [--only SUBSTRING]\n  \
    --quick        11 rounds of short loops instead of 201 (a smoke run)\n  \
    --only S       only rows whose operation or contender names contain S (case-insensitive);\n                 \
    --only kem selects the KEM-level rows alone (KeyGen, Encaps, Decaps)";

fn usage(why: &str) -> ! {
    eprintln!("{why}\n{USAGE}");
    std::process::exit(2);
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, m)| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown (no /proc/cpuinfo model name)".into())
}

/// One timed row.
struct Timing {
    ours: f64,
    peer: Option<f64>,
    /// The subtracted copy, ticks per unit (when a side copies).
    copy: Option<f64>,
}

/// Interleaved rounds: ours, the anchor and the op's copy loop each time a
/// loop of `n` calls per round, in an order that rotates every round.
fn time_row(
    ours: &mut Contender,
    mut peer: Option<&mut Contender>,
    per_call: usize,
    copy: Option<&mut Runner>,
    rounds: usize,
    target: u64,
) -> Timing {
    let per = per_call as f64;
    // Warm up, then pick n so that the slower side's loop takes ~target.
    let mut slowest = 0u64;
    for _ in 0..2 {
        slowest = time_loop(&mut ours.run, 4);
        if let Some(p) = peer.as_deref_mut() {
            slowest = slowest.max(time_loop(&mut p.run, 4));
        }
    }
    let n = (target * 4 / slowest.max(1)).clamp(1, 1_000_000);

    let needs_copy = ours.copies_input || peer.as_ref().is_some_and(|p| p.copies_input);
    let mut copy = if needs_copy { copy } else { None };
    let mut ours_samples = Vec::with_capacity(rounds);
    let mut peer_samples = Vec::with_capacity(rounds);
    let mut copy_samples = Vec::with_capacity(rounds);
    for round in 0..rounds {
        let (mut t_ours, mut t_peer, mut t_copy) = (0, 0, 0);
        let slots = 2 + copy.is_some() as usize;
        for slot in 0..slots {
            match (slot + round) % slots {
                0 => t_ours = time_loop(&mut ours.run, n),
                1 => {
                    if let Some(p) = peer.as_deref_mut() {
                        t_peer = time_loop(&mut p.run, n);
                    }
                }
                _ => {
                    if let Some(c) = copy.as_deref_mut() {
                        t_copy = time_loop(c, n);
                    }
                }
            }
        }
        let net = |t: u64, copies: bool| {
            (t as f64 - if copies { t_copy as f64 } else { 0.0 }) / (n as f64 * per)
        };
        ours_samples.push(net(t_ours, ours.copies_input));
        copy_samples.push(t_copy as f64 / (n as f64 * per));
        if let Some(p) = peer.as_ref() {
            peer_samples.push(net(t_peer, p.copies_input));
        }
    }
    Timing {
        ours: median(&mut ours_samples),
        peer: peer.map(|_| median(&mut peer_samples)),
        copy: copy.map(|_| median(&mut copy_samples)),
    }
}

/// One line of the table (ticks per unit; the ratio when there is a peer).
fn print_row(
    op: &str,
    ours: &str,
    t_ours: f64,
    anchor: &str,
    t_peer: Option<f64>,
    copy: Option<f64>,
) {
    let (peer, ratio) = match t_peer {
        Some(p) => (format!("{p:.0}"), format!("{:.2}", t_ours / p)),
        None => ("—".into(), "—".into()),
    };
    let copy = copy.map_or(String::new(), |c| format!("{c:.0}"));
    let line =
        format!("{op:<26} {ours:<38} {t_ours:>7.0}  {anchor:<40} {peer:>7}  {ratio:>9}  {copy:>5}");
    println!("{}", line.trim_end());
}

fn main() {
    let options = Options::parse();
    let (rounds, target) = options.budget();

    println!("nttfuse-peers: nttfuse vs mlkem-native and pq-crystals/dilithium, same process");
    println!("CPU: {}", cpu_model());
    println!(
        "Unit: TSC ticks (rdtsc between lfences), the constant-rate time-stamp counter, \
         not core cycles; medians over {rounds} interleaved rounds{}",
        if options.quick {
            " (--quick: a smoke run)"
        } else {
            ""
        }
    );
    for peer in [Peer::MlkemNative, Peer::Dilithium] {
        let (name, built, why) = peer_status(peer);
        if built {
            println!("peer {name}: {why}");
        } else {
            println!("peer {name}: MISSING, its rows are skipped: {why}");
        }
    }

    let filter = options.only.as_ref().map(|s| s.to_lowercase());
    // `--only kem` selects the KEM-level rows alone (the primitive rows'
    // operation names all contain "ML-KEM" or "ML-DSA").
    if filter.as_deref() != Some("kem") {
        primitive_rows(filter.as_deref(), rounds, target);
    }
    kem_rows::run(filter.as_deref(), rounds, target);
}

/// The C peers' sanity check, then the primitive rows (NTTs, products)
/// that `filter` selects.
fn primitive_rows(filter: Option<&str>, rounds: usize, target: u64) {
    let failures = peer_sanity();
    if !failures.is_empty() {
        println!("peer sanity: FAILED");
        for f in &failures {
            println!("  {f}");
        }
        std::process::exit(1);
    }
    if cfg!(any(has_mlkem_native, has_dilithium)) {
        println!("peer sanity: ok (each peer's results match nttfuse's modulo q, up to its order and Montgomery factor)");
    } else {
        println!("peer sanity: no peer built");
    }

    let matches = |text: &str| filter.is_none_or(|f| text.to_lowercase().contains(f));

    let mut ops = ops();
    let mut ours = ours();
    let mut anchors = anchors();

    println!();
    println!(
        "{}",
        format!(
            "{:<26} {:<38} {:>7}  {:<40} {:>7}  {:>9}  {:>5}",
            "operation [per]", "ours", "ticks", "anchor", "ticks", "ours/peer", "copy"
        )
        .trim_end()
    );
    let mut used_notes: Vec<&'static str> = Vec::new();
    for op in ops.iter_mut() {
        let (peer_name, built, _) = peer_status(op.peer);
        let unit = format!("{} [{}]", op.name, op.unit);
        let op_name = op.name;
        for contender in ours.iter_mut().filter(|c| c.op == op_name) {
            let mut paired: Vec<&mut Contender> = anchors
                .iter_mut()
                .filter(|a| a.op == op.name && a.class == contender.class)
                .collect();
            let wanted =
                |a: &Contender| matches(&format!("{} {} {}", op.name, contender.name, a.name));
            paired.retain(|a| wanted(a));
            let lone = matches(&format!("{} {}", op.name, contender.name));
            if paired.is_empty() {
                if !lone {
                    continue;
                }
                let t = time_row(
                    contender,
                    None,
                    op.per_call,
                    op.copy.as_mut(),
                    rounds,
                    target,
                );
                let anchor = if built {
                    match contender.class {
                        Class::Simd => "(no SIMD anchor)".to_string(),
                        Class::Portable => "(no portable anchor)".to_string(),
                    }
                } else {
                    format!("skipped: {peer_name} missing")
                };
                print_row(&unit, &contender.name, t.ours, &anchor, None, t.copy);
            }
            for anchor in paired {
                let t = time_row(
                    contender,
                    Some(&mut *anchor),
                    op.per_call,
                    op.copy.as_mut(),
                    rounds,
                    target,
                );
                print_row(&unit, &contender.name, t.ours, &anchor.name, t.peer, t.copy);
            }
            if !used_notes.contains(&op.note) {
                used_notes.push(op.note);
            }
        }
    }
    println!();
    println!("Notes:");
    for note in used_notes {
        println!("- {note}");
    }
    println!("- k=2..4 rows: k polynomials (or k products) per call, ticks divided by k.");
    println!(
        "- classes: nttfuse's default backend (best on this CPU) is compared with the peers' \
         SIMD code, nttfuse's scalar backend with their portable C."
    );
    if matches("overhead") {
        overhead::report(rounds);
    }
}

//! Constant-time checks of nttfuse's lattice path (ML-KEM and ML-DSA NTT,
//! inverse NTT and NTT-domain products), each shown able to fail by a
//! negative control.
//!
//! ```text
//! nttfuse-ct secrets BACKEND [--control branch|index]
//! nttfuse-ct timing BACKEND [--control branch|graded] [--measurements N] [--threshold T]
//! nttfuse-ct disasm BINARY [--arch x86_64|aarch64] [--objdump PATH]
//! ```
//!
//! * `secrets` marks the secret coefficients as undefined and runs every
//!   lattice operation on them. Built normally and run under
//!   `valgrind --error-exitcode=1`, the marking is a valgrind client request
//!   (`VALGRIND_MAKE_MEM_UNDEFINED`), and memcheck reports any branch or
//!   address computed from a secret. Built with `--cfg ct_msan` under
//!   `-Zsanitizer=memory`, the marking is `__msan_poison` and MemorySanitizer
//!   does the same for code valgrind cannot decode (AVX-512). Outputs are
//!   declassified only after the operation, then checked for correctness.
//! * `timing` is a dudect-style test (Reparaz, Balasch, Verbauwhede 2017):
//!   it times the operation on a fixed input class and a random input class,
//!   interleaved at random, and fails when Welch's t statistic between the
//!   two classes exceeds the threshold (default 10, dudect's "definitely
//!   not constant time"), over several percentile croppings, in each of
//!   three independent runs (a flagged operation is measured again).
//! * `disasm` checks the machine code of a release binary statically: a
//!   taint analysis of every lattice kernel's disassembly (see
//!   [`disasm`]); built with `--cfg nttfuse_ct_leak`, nttfuse plants a
//!   leak in three kernels, which it must report.
//! * `--control` swaps in a deliberately leaky function (a secret-dependent
//!   branch or table index); the check must then fail. CI runs both ways.
//!   `timing --control graded` measures the timing test's power: the
//!   ML-KEM NTT of BACKEND followed by a secret-dependent delay of 2^k
//!   iterations of a dependent add (only when the first coefficient is
//!   zero, as in the fixed class), for growing k; it prints each leak's
//!   size in ticks and |t|, and the smallest leak the test flags. It fails
//!   if even the largest is not flagged.

mod disasm;
mod dudect;
mod ops;
mod secret;

use nttfuse::transform::{
    mldsa::pointwise,
    mlkem::{multiply_ntts, multiply_ntts_portable},
};
use nttfuse::{
    Backend, MlDsa, MlDsaProducts, MlKem, MlKemProducts, Plan, Planner, Threads, Transform,
};
use std::process::ExitCode;

/// A deliberately leaky function, for the negative controls.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Control {
    /// A branch on a secret coefficient (an early-exit comparison).
    Branch,
    /// A table lookup indexed by a secret coefficient.
    Index,
    /// Secret-dependent delays of growing size after the ML-KEM NTT: the
    /// timing test's power.
    Graded,
}

struct Args {
    command: String,
    backend: Backend,
    control: Option<Control>,
    measurements: usize,
    threshold: f64,
}

fn parse_args() -> Result<Args, String> {
    let mut it = std::env::args().skip(1);
    let usage = "usage: nttfuse-ct secrets|timing scalar|avx2|avx512|neon [--control branch|index] [--measurements N] [--threshold T]\n       nttfuse-ct disasm BINARY [--arch x86_64|aarch64] [--objdump PATH]";
    let command = it.next().ok_or(usage)?;
    let backend = match it.next().as_deref() {
        Some("scalar") => Backend::Scalar,
        Some("avx512") => Backend::Avx512,
        Some("avx2") => Backend::Avx2,
        Some("neon") => Backend::Neon,
        _ => return Err(usage.into()),
    };
    let mut args = Args {
        command,
        backend,
        control: None,
        measurements: 1_000_000,
        threshold: 10.0,
    };
    while let Some(flag) = it.next() {
        let value = it.next().ok_or(usage)?;
        match flag.as_str() {
            "--control" => {
                args.control = Some(match value.as_str() {
                    "branch" => Control::Branch,
                    "index" => Control::Index,
                    "graded" => Control::Graded,
                    _ => return Err(usage.into()),
                })
            }
            "--measurements" => args.measurements = value.parse().map_err(|_| usage)?,
            "--threshold" => args.threshold = value.parse().map_err(|_| usage)?,
            _ => return Err(usage.into()),
        }
    }
    Ok(args)
}

/// The lattice plans of one backend, serial (a constant-time check of the
/// kernels, not of rayon).
struct Lattice {
    kem_ntt: Plan<MlKem>,
    kem_intt: Plan<MlKem>,
    dsa_ntt: Plan<MlDsa>,
    dsa_intt: Plan<MlDsa>,
}

impl Lattice {
    fn new(backend: Backend) -> Result<Self, nttfuse::Error> {
        let planner = Planner::new().backend(backend).threads(Threads::Count(1));
        Ok(Lattice {
            kem_ntt: planner.plan(&Transform::<MlKem>::negacyclic_forward())?,
            kem_intt: planner.plan(&Transform::<MlKem>::negacyclic_inverse())?,
            dsa_ntt: planner.plan(&Transform::<MlDsa>::negacyclic_forward())?,
            dsa_intt: planner.plan(&Transform::<MlDsa>::negacyclic_inverse())?,
        })
    }
}

/// A small deterministic generator (splitmix64) for public test data.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn kem(&mut self) -> [MlKem; 256] {
        core::array::from_fn(|_| MlKem::new((self.next() % 3329) as i16))
    }
    fn dsa(&mut self) -> [MlDsa; 256] {
        core::array::from_fn(|_| MlDsa::new((self.next() % 8_380_417) as i32))
    }
}

/// The negative controls' leaky functions. The branch control is the classic
/// mistake in ML-KEM decapsulation: comparing the re-encrypted (secret)
/// ciphertext with an early-exit loop instead of in constant time.
fn leaky_equal(a: &[MlKem; 256], public: &[MlKem; 256]) -> bool {
    for (x, y) in a.iter().zip(public) {
        if x.value() != y.value() {
            return false;
        }
    }
    true
}

static TABLE: [u16; 3329] = {
    let mut t = [0u16; 3329];
    let mut i = 0;
    while i < 3329 {
        t[i] = ((i * 17) % 3329) as u16;
        i += 1;
    }
    t
};

fn leaky_lookup(a: &[MlKem; 256]) -> u32 {
    a.iter()
        .map(|c| u32::from(TABLE[std::hint::black_box(c.value()) as usize % 3329]))
        .sum()
}

/// Marks every word of `w` secret.
fn classify_words(w: &mut ops::Words) {
    match w {
        ops::Words::Kem(v) => secret::classify(v),
        ops::Words::Dsa(v) => secret::classify(v),
        ops::Words::KemField(v) => secret::classify(v),
        ops::Words::DsaField(v) => secret::classify(v),
    }
}

/// Marks every word of `w` public again.
fn declassify_words(w: &mut ops::Words) {
    match w {
        ops::Words::Kem(v) => secret::declassify(v),
        ops::Words::Dsa(v) => secret::declassify(v),
        ops::Words::KemField(v) => secret::declassify(v),
        ops::Words::DsaField(v) => secret::declassify(v),
    }
}

/// Whether every word of `w` is still secret.
fn all_secret_words(w: &ops::Words) -> bool {
    match w {
        ops::Words::Kem(v) => secret::all_secret(v),
        ops::Words::Dsa(v) => secret::all_secret(v),
        ops::Words::KemField(v) => secret::all_secret(v),
        ops::Words::DsaField(v) => secret::all_secret(v),
    }
}

/// `secrets`: every lattice operation on secret-marked coefficients.
fn secrets(args: &Args) -> Result<(), String> {
    let tool = secret::tool();
    if !secret::active() {
        return Err(format!(
            "{tool} is not watching this process: run it as `valgrind -q --error-exitcode=1 nttfuse-ct secrets ...` (or build with MemorySanitizer)"
        ));
    }
    let mut rng = Rng(1);
    if let Some(control) = args.control {
        let mut s = rng.kem();
        secret::classify(&mut s);
        let leaked = match control {
            Control::Branch => leaky_equal(&s, &[MlKem::ZERO; 256]) as u32,
            Control::Index => leaky_lookup(&s),
            Control::Graded => return Err("the graded control is a timing control".into()),
        };
        let mut out = [leaked];
        secret::declassify(&mut out);
        println!(
            "negative control ({control:?}) ran under {tool}: {} (the tool must have reported it)",
            out[0]
        );
        return Ok(());
    }
    let ops = ops::all(args.backend, &mut rng)?;
    for op in &ops {
        // The expected result from public words, then the same operation on
        // secret-marked ones: the tool reports any branch or address that
        // depends on them; the result must stay secret and be the same.
        let mut expected = op.input.clone();
        (op.run)(&mut expected)?;
        let mut words = op.input.clone();
        classify_words(&mut words);
        (op.run)(&mut words)?;
        if !all_secret_words(&words) {
            return Err(format!("{tool} lost track of the secrets in {}", op.name));
        }
        declassify_words(&mut words);
        if words != expected {
            return Err(format!(
                "{}: another result on secret-marked input",
                op.name
            ));
        }
    }
    println!(
        "{tool}: {} lattice operations on {} (ML-KEM and ML-DSA NTT and inverse NTT in every mode, products with caches and 1 to 9 terms, two-column groups, the portable FIPS 203 product) ran on secret-marked coefficients with no secret-dependent branch or address; every word stayed secret",
        ops.len(),
        args.backend.name()
    );
    Ok(())
}

/// How many independent runs a flagged operation gets before it is called
/// leaky. A leak in the code shows in every run (the branch control reads
/// |t| in the hundreds each time); a co-tenant burst on a shared CI host
/// has, rarely, pushed one run of an operation the tools prove branch- and
/// index-free just past the threshold (|t| = 10.2 once, in a run whose other
/// twelve operations read at most 3.1). Requiring every run to exceed the
/// threshold keeps real leaks failing and such a one-off from failing CI.
const ATTEMPTS: usize = 3;

/// Runs `measure` up to [`ATTEMPTS`] times, stopping at the first run whose
/// |t| is within `threshold`, prints each run, and says whether the
/// operation passed (some run within the threshold).
fn confirm(name: &str, threshold: f64, mut measure: impl FnMut() -> dudect::Outcome) -> bool {
    for attempt in 1..=ATTEMPTS {
        let result = measure();
        let pass = result.max_t.abs() <= threshold;
        let verdict = match (pass, attempt) {
            (true, 1) => "ok".to_string(),
            (true, _) => {
                format!("ok (run {attempt} of {ATTEMPTS}: the earlier runs did not reproduce)")
            }
            (false, ATTEMPTS) => format!("LEAKS (every one of {ATTEMPTS} runs over the threshold)"),
            (false, _) => format!("over the threshold in run {attempt}; measuring again"),
        };
        println!(
            "{name:<34} {:>9} measurements  max |t| = {:6.2} (threshold {threshold}) {verdict}",
            result.measurements,
            result.max_t.abs(),
        );
        if pass {
            return true;
        }
    }
    false
}

/// `timing`: the dudect-style test of the forward and inverse NTTs and the
/// NTT-domain products (or of the control, when asked). An operation leaks
/// when [`ATTEMPTS`] independent runs all exceed the threshold.
fn timing(args: &Args) -> Result<bool, String> {
    let lattice = Lattice::new(args.backend).map_err(|e| e.to_string())?;
    let mut rng = Rng(2);
    let fixed_kem = [MlKem::ZERO; 256];
    let fixed_dsa = [MlDsa::ZERO; 256];
    let (n, threshold) = (args.measurements, args.threshold);
    if args.control == Some(Control::Branch) {
        return Ok(confirm("control: early-exit comparison", threshold, || {
            dudect::run(n, &mut rng, fixed_kem, Rng::kem, |a| {
                leaky_equal(&a, &fixed_kem)
            })
        }));
    }
    if args.control == Some(Control::Graded) {
        return graded(args, &lattice, &mut rng);
    }
    if args.control.is_some() {
        return Err("timing has the branch and graded controls only".into());
    }
    fn kem(p: &Plan<MlKem>) -> impl Fn([MlKem; 256]) -> i16 + '_ {
        move |mut a| {
            p.execute(&mut a).unwrap();
            a[0].value()
        }
    }
    fn dsa(p: &Plan<MlDsa>) -> impl Fn([MlDsa; 256]) -> i32 + '_ {
        move |mut a| {
            p.execute(&mut a).unwrap();
            a[0].value()
        }
    }
    let backend = args.backend.name();
    // The NTT-domain products' second factors: public and fixed.
    let b_kem = rng.kem();
    let b_dsa = rng.dsa();
    let mut all_pass = true;
    let mut check = |name: &str, measure: &mut dyn FnMut(&mut Rng) -> dudect::Outcome| {
        all_pass &= confirm(name, threshold, || measure(&mut rng));
    };
    check(&format!("ML-KEM NTT ({backend})"), &mut |rng| {
        dudect::run(n, rng, fixed_kem, Rng::kem, kem(&lattice.kem_ntt))
    });
    check(&format!("ML-KEM inverse NTT ({backend})"), &mut |rng| {
        dudect::run(n, rng, fixed_kem, Rng::kem, kem(&lattice.kem_intt))
    });
    check(&format!("ML-DSA NTT ({backend})"), &mut |rng| {
        dudect::run(n, rng, fixed_dsa, Rng::dsa, dsa(&lattice.dsa_ntt))
    });
    check(&format!("ML-DSA inverse NTT ({backend})"), &mut |rng| {
        dudect::run(n, rng, fixed_dsa, Rng::dsa, dsa(&lattice.dsa_intt))
    });
    // The NTT-domain products are the same on every backend: ML-KEM's on
    // AVX2 where the CPU has it, and the portable one.
    check("ML-KEM NTT-domain product", &mut |rng| {
        dudect::run(n, rng, fixed_kem, Rng::kem, |a| {
            multiply_ntts(&a, &b_kem)[0].value()
        })
    });
    check("ML-KEM NTT-domain product, portable", &mut |rng| {
        dudect::run(n, rng, fixed_kem, Rng::kem, |a| {
            multiply_ntts_portable(&a, &b_kem)[0].value()
        })
    });
    check("ML-DSA NTT-domain product", &mut |rng| {
        dudect::run(n, rng, fixed_dsa, Rng::dsa, |a| {
            pointwise(&a, &b_dsa)[0].value()
        })
    });
    // The products of this backend (caches and multiply-accumulates).
    let kem_products = MlKemProducts::on(args.backend).map_err(|e| e.to_string())?;
    let dsa_products = MlDsaProducts::on(args.backend).map_err(|e| e.to_string())?;
    let (b_kem, b_dsa) = (b_kem.map(|x| x.value()), b_dsa.map(|x| x.value()));
    check(&format!("ML-KEM products ({backend})"), &mut |rng| {
        dudect::run(n, rng, fixed_kem, Rng::kem, |a| {
            let mut out = [0i16; 256];
            kem_products.multiply(&a.map(|x| x.value()), &b_kem, &mut out);
            out[0]
        })
    });
    check(&format!("ML-DSA products ({backend})"), &mut |rng| {
        dudect::run(n, rng, fixed_dsa, Rng::dsa, |a| {
            let mut out = [0i32; 256];
            dsa_products.multiply(&a.map(|x| x.value()), &b_dsa, &mut out);
            out[0]
        })
    });
    Ok(all_pass)
}

/// `iterations` dependent additions the compiler cannot fold (each waits
/// for the previous one through `black_box`'s memory round trip).
#[inline(never)]
fn delay(iterations: u32) -> u64 {
    let mut x = 0u64;
    for _ in 0..iterations {
        x = std::hint::black_box(x) + 1;
    }
    x
}

/// `timing --control graded`: the ML-KEM NTT of the backend, then a delay
/// of `2^k` iterations when the first output coefficient is zero, a leak
/// the fixed class (all zeros) always takes and the random class almost
/// never (1 in 3329). One run per size, no re-measuring; prints the leak in
/// ticks (the classes' mean difference) and |t|, then the smallest leak
/// flagged. Fails (a control that is not flagged) if the largest is not.
fn graded(args: &Args, lattice: &Lattice, rng: &mut Rng) -> Result<bool, String> {
    let plan = &lattice.kem_ntt;
    let fixed = [MlKem::ZERO; 256];
    let threshold = args.threshold;
    let mut smallest = None;
    let mut flagged_largest = false;
    for k in [0u32, 1, 2, 3, 4, 5, 6, 7, 8] {
        let iterations = if k == 0 { 0 } else { 1 << (k - 1) };
        let outcome = dudect::run(args.measurements, rng, fixed, Rng::kem, |mut a| {
            plan.execute(&mut a).unwrap();
            let secret = a[0].value();
            delay(if secret == 0 { iterations } else { 0 })
        });
        let flagged = outcome.max_t.abs() > threshold;
        if flagged && smallest.is_none() && iterations > 0 {
            smallest = Some((iterations, outcome.mean_difference));
        }
        flagged_largest = flagged;
        println!(
            "graded control ({}): {iterations:>3}-iteration delay, leak {:7.1} ticks, max |t| = {:7.2} {}",
            args.backend.name(),
            outcome.mean_difference,
            outcome.max_t.abs(),
            if flagged { "flagged" } else { "not flagged" },
        );
    }
    match smallest {
        Some((iterations, ticks)) => println!(
            "power ({}): the smallest leak flagged was a secret branch and a {iterations}-iteration delay (class means {ticks:.1} ticks apart below the 95th percentile) per ML-KEM NTT, {} measurements, threshold {threshold}",
            args.backend.name(),
            args.measurements
        ),
        None => println!("power ({}): no leak flagged", args.backend.name()),
    }
    if flagged_largest {
        println!("LEAKS (planted): the largest delay was flagged");
    } else {
        println!("the largest planted delay was not flagged");
    }
    // A control: it fails (exit 1) when the test sees the leak.
    Ok(!flagged_largest)
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    if argv.first().map(String::as_str) == Some("disasm") {
        return match disasm::run(&argv[1..]) {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::from(1),
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::from(2)
            }
        };
    }
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let result = match args.command.as_str() {
        "secrets" => secrets(&args).map(|()| true),
        "timing" => timing(&args),
        other => Err(format!("unknown command {other}")),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

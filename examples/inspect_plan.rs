//! Prints the plan for a transform given on the command line.
//!
//! ```text
//! cargo run --example inspect_plan -- <transform> <log_n> [lanes] [options]
//!   transform: mlkem-ntt | mlkem-intt | mldsa-ntt | mldsa-intt   (no log_n)
//!              dft | idft | coset-dft | lde                      (prime fields)
//!              additive-ntt | additive-intt | encode | additive-lde  (GF(2^64))
//!   options:   --field F        babybear (default) | koalabear | goldilocks
//!              --rate R         encode rate 2^-R, LDE blowup 2^R (default 1)
//!              --bit-reversed   bit-reversed evaluation order (prime fields)
//!              --cantor         Cantor basis (additive transforms)
//!              --shift S        coset shift S (additive NTT, a u64)
//!              --keep K         keep the first 2^(log_n−K) outputs (additive NTT)
//!              --batch K        K transforms one after another
//!              --l2 BYTES       override the L2 budget (forces deeper plans)
//!              --threads N      thread count (default: all)
//!              --measure MS     measured planning within MS milliseconds
//! e.g. cargo run --example inspect_plan -- dft 20 64
//!      cargo run --example inspect_plan -- lde 18 64 --field goldilocks --bit-reversed
//!      cargo run --example inspect_plan -- encode 20 8 --rate 1 --l2 65536
//! ```

use nttfuse::*;

const USAGE: &str = "usage: inspect_plan <mlkem-ntt|mlkem-intt|mldsa-ntt|mldsa-intt|dft|idft|coset-dft|lde|additive-ntt|additive-intt|encode|additive-lde> <log_n> [lanes] [--field babybear|koalabear|goldilocks] [--rate R] [--bit-reversed] [--cantor] [--shift S] [--keep K] [--batch K] [--l2 BYTES] [--threads N] [--measure MS]";

fn usage() -> ! {
    eprintln!("{USAGE}");
    std::process::exit(2)
}

fn number<T: std::str::FromStr>(s: Option<&String>) -> T {
    s.and_then(|s| s.parse().ok()).unwrap_or_else(|| usage())
}

/// The command line, parsed.
struct Args {
    kind: String,
    log_n: u32,
    lanes: usize,
    rate: u32,
    batch: usize,
    order: Order,
    basis: Basis,
    shift: u64,
    keep: u32,
    planner: Planner,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(kind) = args.first() else { usage() };
    let lattice = kind.starts_with("mlkem") || kind.starts_with("mldsa");
    let log_n: u32 = if lattice { 8 } else { number(args.get(1)) };
    let mut a = Args {
        kind: kind.clone(),
        log_n,
        lanes: 1,
        rate: 1,
        batch: 1,
        order: Order::Natural,
        basis: Basis::Standard,
        shift: 0,
        keep: 0,
        planner: Planner::new(),
    };
    let mut field = "babybear".to_string();
    let mut rest = args.iter().skip(if lattice { 1 } else { 2 }).peekable();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--field" => field = rest.next().cloned().unwrap_or_else(|| usage()),
            "--rate" => a.rate = number(rest.next()),
            "--batch" => a.batch = number(rest.next()),
            "--bit-reversed" => a.order = Order::BitReversed,
            "--cantor" => a.basis = Basis::Cantor,
            "--shift" => a.shift = number(rest.next()),
            "--keep" => a.keep = number(rest.next()),
            "--l2" => {
                let l2: usize = number(rest.next());
                a.planner = a.planner.budgets(Budgets {
                    l2,
                    ..Budgets::detect()
                });
            }
            "--threads" => a.planner = a.planner.threads(Threads::Count(number(rest.next()))),
            "--measure" => {
                let ms: u64 = number(rest.next());
                a.planner = a.planner.measure(std::time::Duration::from_millis(ms));
            }
            other => a.lanes = number(Some(&other.to_string())),
        }
    }
    let text = match (kind.as_str(), field.as_str()) {
        ("mlkem-ntt", _) => show(&a, Transform::<MlKem>::negacyclic_forward()),
        ("mlkem-intt", _) => show(&a, Transform::<MlKem>::negacyclic_inverse()),
        ("mldsa-ntt", _) => show(&a, Transform::<MlDsa>::negacyclic_forward()),
        ("mldsa-intt", _) => show(&a, Transform::<MlDsa>::negacyclic_inverse()),
        ("additive-ntt" | "additive-intt" | "encode" | "additive-lde", _) => additive(&a),
        (_, "babybear") => prime::<BabyBear>(&a),
        (_, "koalabear") => prime::<KoalaBear>(&a),
        (_, "goldilocks") => prime::<Goldilocks>(&a),
        _ => usage(),
    };
    match text {
        Ok(text) => println!("{text}"),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}

/// The prime-field transforms over `F`; the coset ones shift by the
/// field's multiplicative generator, as Plonky3's LDEs do.
fn prime<F: Kernels + TwoAdicField>(a: &Args) -> Result<String, Error> {
    let shift = F::multiplicative_generator();
    let spec = match a.kind.as_str() {
        "dft" => Transform::<F>::dft(a.log_n),
        "idft" => Transform::<F>::idft(a.log_n),
        "coset-dft" => Transform::<F>::coset_dft(a.log_n, shift),
        "lde" => {
            return a
                .planner
                .plan(
                    &Transform::coset_lde(a.log_n, LogBlowup(a.rate))
                        .shift(shift)
                        .lanes(a.lanes)
                        .order(a.order),
                )
                .map(|plan| plan.to_string())
        }
        _ => usage(),
    };
    show(a, spec.order(a.order))
}

/// The additive transforms over GF(2^64).
fn additive(a: &Args) -> Result<String, Error> {
    let spec = match a.kind.as_str() {
        "additive-ntt" => Transform::<Gf2_64>::additive_ntt(a.log_n)
            .shift(Gf2_64::new(a.shift))
            .retain_prefix(a.keep),
        "additive-intt" => Transform::<Gf2_64>::additive_intt(a.log_n),
        "encode" => Transform::<Gf2_64>::additive_encode(a.log_n, LogBlowup(a.rate)),
        "additive-lde" => {
            return a
                .planner
                .plan(
                    &Transform::<Gf2_64>::additive_lde(a.log_n, LogBlowup(a.rate))
                        .basis(a.basis)
                        .lanes(a.lanes),
                )
                .map(|plan| plan.to_string())
        }
        _ => usage(),
    };
    show(a, spec.basis(a.basis))
}

/// The plan of `spec` over the command line's lanes and batch, as text.
fn show<F: Kernels>(a: &Args, spec: Transform<F>) -> Result<String, Error> {
    a.planner
        .plan(&spec.lanes(a.lanes).batch(a.batch))
        .map(|plan| plan.to_string())
}

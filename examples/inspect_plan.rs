//! Prints the plan for a transform given on the command line.
//!
//! ```text
//! cargo run --example inspect_plan -- <transform> <log_n> [lanes] [options]
//!   transform: mlkem-ntt | mlkem-intt | dft | idft | additive-ntt | additive-intt | encode
//!   options:   --rate R         encode rate 2^-R (default 1)
//!              --bit-reversed   bit-reversed evaluation order (dft, idft)
//!              --batch K        K transforms one after another
//!              --l2 BYTES       override the L2 budget (forces deeper plans)
//!              --threads N      thread count (default: all)
//! e.g. cargo run --example inspect_plan -- dft 20 64
//!      cargo run --example inspect_plan -- encode 20 8 --rate 1 --l2 65536
//! ```

use nttfuse::*;

fn usage() -> ! {
    eprintln!("usage: inspect_plan <mlkem-ntt|mlkem-intt|dft|idft|additive-ntt|additive-intt|encode> <log_n> [lanes] [--rate R] [--bit-reversed] [--batch K] [--l2 BYTES] [--threads N]");
    std::process::exit(2)
}

fn number<T: std::str::FromStr>(s: Option<&String>) -> T {
    s.and_then(|s| s.parse().ok()).unwrap_or_else(|| usage())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(kind) = args.first() else { usage() };
    let log_n: u32 = if kind.starts_with("mlkem") {
        8
    } else {
        number(args.get(1))
    };
    let positional = args
        .iter()
        .skip(if kind.starts_with("mlkem") { 1 } else { 2 });
    let mut lanes = 1usize;
    let (mut rate, mut batch, mut order) = (1u32, 1usize, Order::Natural);
    let mut planner = Planner::new();
    let mut rest = positional.peekable();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--rate" => rate = number(rest.next()),
            "--batch" => batch = number(rest.next()),
            "--bit-reversed" => order = Order::BitReversed,
            "--l2" => {
                let l2: usize = number(rest.next());
                planner = planner.budgets(Budgets {
                    l2,
                    ..Budgets::detect()
                });
            }
            "--threads" => planner = planner.threads(Threads::Count(number(rest.next()))),
            other => lanes = number(Some(&other.to_string())),
        }
    }
    let text = match kind.as_str() {
        "mlkem-ntt" => show(
            &planner,
            Transform::<MlKem>::negacyclic_forward().batch(batch),
        ),
        "mlkem-intt" => show(
            &planner,
            Transform::<MlKem>::negacyclic_inverse().batch(batch),
        ),
        "dft" => show(
            &planner,
            Transform::<BabyBear>::dft(log_n)
                .order(order)
                .lanes(lanes)
                .batch(batch),
        ),
        "idft" => show(
            &planner,
            Transform::<BabyBear>::idft(log_n)
                .order(order)
                .lanes(lanes)
                .batch(batch),
        ),
        "additive-ntt" => show(
            &planner,
            Transform::<Gf2_64>::additive_ntt(log_n)
                .lanes(lanes)
                .batch(batch),
        ),
        "additive-intt" => show(
            &planner,
            Transform::<Gf2_64>::additive_intt(log_n)
                .lanes(lanes)
                .batch(batch),
        ),
        "encode" => show(
            &planner,
            Transform::<Gf2_64>::additive_encode(log_n, rate)
                .lanes(lanes)
                .batch(batch),
        ),
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

fn show<F: Kernels>(planner: &Planner, spec: Transform<F>) -> Result<String, Error> {
    planner.plan(&spec).map(|plan| plan.to_string())
}

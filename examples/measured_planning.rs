//! Measured planning against the rules, per shape, in the same run: the
//! rules' plan and the measured plan timed in interleaved rounds (medians),
//! their ratio, what the measurement changed, and what planning costs by the
//! rules, by measuring, and from wisdom.
//!
//! ```text
//! cargo run --release --example measured_planning [-- --quick] [-- --budget-ms N]
//! ```

use nttfuse::*;
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Interleaved rounds over `plans`, all on one buffer (so that no plan
/// gets a better-aligned one), each timed `reps` times back to back; the
/// median seconds per call of each.
fn race<F: Kernels>(
    plans: &[&Plan<F>],
    input: &[F],
    buf: &mut [F],
    rounds: usize,
    reps: usize,
) -> Vec<f64> {
    let in_place = plans[0].input_len() == plans[0].len();
    let run = |plan: &Plan<F>, buf: &mut [F]| {
        if in_place {
            plan.execute(black_box(buf)).unwrap()
        } else {
            plan.execute_from(input, black_box(buf)).unwrap()
        }
    };
    for plan in plans {
        run(plan, buf);
    }
    let mut times = vec![Vec::new(); plans.len()];
    for _ in 0..rounds {
        for (plan, t) in plans.iter().zip(&mut times) {
            let start = Instant::now();
            for _ in 0..reps {
                run(plan, buf);
            }
            t.push(start.elapsed().as_secs_f64() / reps as f64);
        }
    }
    times
        .into_iter()
        .map(|mut t| {
            t.sort_by(f64::total_cmp);
            t[t.len() / 2]
        })
        .collect()
}

fn time(seconds: f64) -> String {
    if seconds >= 1e-3 {
        format!("{:.2} ms", seconds * 1e3)
    } else {
        format!("{:.2} µs", seconds * 1e6)
    }
}

/// What the measured plan's `measured` line says it changed, and its
/// runner-up.
fn change(text: &str) -> String {
    let line = text
        .lines()
        .find(|l| l.starts_with("measured   "))
        .unwrap_or_default();
    let chosen = match line.split_once(": this plan (") {
        Some((_, rest)) => rest.split(')').next().unwrap_or_default(),
        None => "the rules' own plan",
    };
    match line.split_once("; runner-up ") {
        Some((_, rest)) => format!(
            "{chosen}; runner-up {}",
            rest.split(" in the same round").next().unwrap_or_default()
        ),
        None => chosen.to_string(),
    }
}

struct Row {
    name: String,
    rules: f64,
    measured: f64,
    change: String,
    plan_rules: f64,
    plan_measured: f64,
    plan_wisdom: f64,
}

/// Plans `spec` by the rules, by measuring (`budget`), and from the wisdom
/// the measurement leaves; times both plans.
fn shape<F: Kernels>(
    name: &str,
    spec: &Transform<F>,
    budget: Duration,
    rounds: usize,
    threads: Threads,
) -> Row {
    let rules_planner = Planner::new().threads(threads);
    let t = Instant::now();
    let rules = rules_planner.plan(spec).unwrap();
    let plan_rules = t.elapsed().as_secs_f64();
    let asked = rules_planner.clone().measure(budget);
    let t = Instant::now();
    let measured = asked.plan(spec).unwrap();
    let plan_measured = t.elapsed().as_secs_f64();
    let mut wisdom = Wisdom::new();
    wisdom.add(&asked, &measured);
    let wisdom = Arc::new(wisdom);
    let t = Instant::now();
    let wise = rules_planner
        .clone()
        .with_wisdom(wisdom)
        .plan(spec)
        .unwrap();
    let plan_wisdom = t.elapsed().as_secs_f64();
    assert!(wise.to_string().contains("from wisdom"));
    let input: Vec<F> = (0..rules.input_len())
        .map(|i| F::from_u64(i as u64 * 7919 + 3))
        .collect();
    let mut a = vec![F::zero(); rules.len()];
    let mut b = vec![F::zero(); rules.len()];
    rules.execute_from(&input, &mut a).unwrap();
    measured.execute_from(&input, &mut b).unwrap();
    assert!(a == b, "{name}: the measured plan computes other bits");
    // Small transforms: many calls per timing.
    let reps = (1 << 16) / rules.len().max(1) + 1;
    let times = race(&[&rules, &measured], &input, &mut a, rounds, reps);
    Row {
        name: name.to_string(),
        rules: times[0],
        measured: times[1],
        change: change(&measured.to_string()),
        plan_rules,
        plan_measured,
        plan_wisdom,
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--quick");
    let budget_ms = args
        .iter()
        .position(|a| a == "--budget-ms")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(if quick { 50 } else { 500 });
    let budget = Duration::from_millis(budget_ms);
    let rounds = if quick { 5 } else { 21 };
    let (big, lanes) = if quick { (14, 64) } else { (16, 256) };
    let single = if quick { 16 } else { 20 };
    let all = Threads::All;
    println!(
        "measured planning vs the rules, same run: medians of {rounds} interleaved rounds; measuring budget {budget_ms} ms per plan"
    );
    let rows = vec![
        shape(
            "ML-KEM NTT",
            &Transform::<MlKem>::negacyclic_forward(),
            budget,
            rounds,
            all,
        ),
        shape(
            "ML-KEM invNTT",
            &Transform::<MlKem>::negacyclic_inverse(),
            budget,
            rounds,
            all,
        ),
        shape(
            "ML-DSA NTT",
            &Transform::<MlDsa>::negacyclic_forward(),
            budget,
            rounds,
            all,
        ),
        shape(
            "ML-DSA invNTT",
            &Transform::<MlDsa>::negacyclic_inverse(),
            budget,
            rounds,
            all,
        ),
        shape(
            &format!("BabyBear dft 2^{big} x {lanes}"),
            &Transform::<BabyBear>::dft(big).lanes(lanes),
            budget,
            rounds,
            all,
        ),
        shape(
            &format!("Goldilocks dft 2^{big} x {lanes}"),
            &Transform::<Goldilocks>::dft(big).lanes(lanes),
            budget,
            rounds,
            all,
        ),
        shape(
            &format!("BabyBear dft 2^{single} x 1"),
            &Transform::<BabyBear>::dft(single),
            budget,
            rounds,
            all,
        ),
        shape(
            &format!("Goldilocks dft 2^{single} x 1"),
            &Transform::<Goldilocks>::dft(single),
            budget,
            rounds,
            all,
        ),
        shape(
            "BabyBear coset encode 2^19 x 64 (the LDE's encode)",
            &Transform::<BabyBear>::dft_encode(
                if quick { 15 } else { 19 },
                LogBlowup(1),
                BabyBear::multiplicative_generator(),
            )
            .lanes(64)
            .order(Order::BitReversed),
            budget,
            rounds,
            all,
        ),
        shape(
            "GF(2^64) encode 2^20 x 8 rate 1/2",
            &Transform::<Gf2_64>::additive_encode(if quick { 16 } else { 20 }, LogBlowup(1))
                .lanes(8),
            budget,
            rounds,
            all,
        ),
        shape(
            "GF(2^64) encode 2^20 x 56 rate 1/2",
            &Transform::<Gf2_64>::additive_encode(if quick { 14 } else { 20 }, LogBlowup(1))
                .lanes(56),
            budget,
            rounds,
            all,
        ),
    ];
    println!(
        "{:<48} {:>11} {:>11} {:>8}  {:>10} {:>10} {:>10}  change",
        "shape", "rules", "measured", "ratio", "plan rules", "measuring", "wisdom"
    );
    let mut gains = 0;
    let mut worst: f64 = 0.0;
    for r in &rows {
        let ratio = r.measured / r.rules;
        worst = worst.max(ratio);
        if ratio <= 0.9 {
            gains += 1;
        }
        println!(
            "{:<48} {:>11} {:>11} {:>8.3}  {:>10} {:>10} {:>10}  {}",
            r.name,
            time(r.rules),
            time(r.measured),
            ratio,
            time(r.plan_rules),
            time(r.plan_measured),
            time(r.plan_wisdom),
            r.change
        );
    }
    println!(
        "worst ratio {worst:.3} (target <= 1.02); {gains} shapes gain >= 10% (target: three, or the table shows the rules already pick the winner)"
    );
}

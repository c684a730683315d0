//! Measured planning ([`Planner::measure`]): the plans the rules choose
//! between, timed on this machine, knob by knob.
//!
//! Every choice the rules make is a function of the planner's settings (the
//! backend, the register budget that caps group radices, the L2 budget that
//! sizes tiles, the L3 budget that turns streaming stores on, the thread
//! setting), so a candidate is a planner with one setting moved, and the
//! plan it gives is an ordinary plan whose text says what it is: it reads
//! back with [`Plan::from_text`] like any other.

use super::{Plan, Planner, Threads};
use crate::backend::{Backend, Kernels};
use crate::error::Error;
use crate::transform::Transform;
use alloc::{
    format,
    string::{String, ToString},
    vec,
    vec::Vec,
};
use std::time::{Duration, Instant};

/// A change must be this much faster than the plan it would replace (the
/// noise of one run's median on a shared machine).
const MARGIN: f64 = 0.98;

/// The label of the rules' own plan.
const RULES: &str = "the rules' plan";

/// Timed rounds of a comparison: at least, and at most.
const RUNS: usize = 3;
const MAX_RUNS: usize = 15;

/// A timed plan and the planner that makes it.
struct Candidate<F: Kernels> {
    planner: Planner,
    plan: Plan<F>,
    /// What sets it apart from the plan it was tried against.
    label: String,
    /// Run times of the current comparison, in seconds.
    times: Vec<f64>,
}

impl<F: Kernels> Candidate<F> {
    fn median(&self) -> f64 {
        let mut t = self.times.clone();
        t.sort_by(f64::total_cmp);
        t.get(t.len() / 2).copied().unwrap_or(f64::INFINITY)
    }
}

/// Scratch data and the clock.
struct Bench<F> {
    input: Vec<F>,
    output: Vec<F>,
    start: Instant,
    budget: Duration,
}

/// A sample is at least this long (small transforms repeat within one).
const SAMPLE: f64 = 50e-6;

impl<F: Kernels> Bench<F> {
    /// `reps` runs of `plan`, in seconds per run.
    fn run(&mut self, plan: &Plan<F>, reps: usize) -> f64 {
        let t = Instant::now();
        for _ in 0..reps {
            plan.run_for_measuring(&self.input, &mut self.output);
        }
        t.elapsed().as_secs_f64() / reps as f64
    }

    /// Seconds of the budget left.
    fn left(&self) -> f64 {
        self.budget.as_secs_f64() - self.start.elapsed().as_secs_f64()
    }

    /// A warm-up run of `c` and its time per run, in runs per sample long
    /// enough to time: `(seconds per run, runs per sample)`.
    fn calibrate(&mut self, c: &Candidate<F>) -> (f64, usize) {
        self.run(&c.plan, 1);
        let mut reps = 1;
        loop {
            let t = self.run(&c.plan, reps);
            if t * reps as f64 >= SAMPLE || reps >= 1 << 20 {
                return (t, reps);
            }
            reps *= 2;
        }
    }

    /// Interleaved rounds over `candidates` (after a warm-up each: at least
    /// [`RUNS`] rounds, more while `share` seconds allow, at most
    /// [`MAX_RUNS`]), their times replacing the old ones.
    fn compare(&mut self, candidates: &mut [&mut Candidate<F>], share: f64) {
        for c in candidates.iter_mut() {
            let t = self.calibrate(c).0;
            c.times = vec![t];
        }
        // A plan half again as slow as the fastest in its first runs has
        // lost (a scalar backend beside a SIMD one): not timed further.
        let fastest = candidates
            .iter()
            .map(|c| c.times[0])
            .fold(f64::INFINITY, f64::min);
        let mut racing: Vec<&mut &mut Candidate<F>> = candidates
            .iter_mut()
            .filter(|c| c.times[0] <= 1.5 * fastest)
            .collect();
        let slowest = racing.iter().map(|c| c.times[0]).fold(0.0, f64::max);
        let reps = ((SAMPLE / slowest.max(1e-9)).ceil() as usize).max(1);
        let round = slowest * reps as f64 * racing.len() as f64;
        let rounds = ((share / round.max(1e-9)) as usize).clamp(RUNS, MAX_RUNS);
        for c in racing.iter_mut() {
            c.times.clear();
        }
        for _ in 0..rounds {
            for c in racing.iter_mut() {
                let t = self.run(&c.plan, reps);
                c.times.push(t);
            }
        }
    }
}

/// The text that tells plans apart: all but the budgets line (settings
/// that give the same passes, groups and kernels give the same plan).
fn identity<F: Kernels>(plan: &Plan<F>) -> String {
    plan.to_string()
        .lines()
        .filter(|l| !l.starts_with("budgets    "))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The planners one knob's alternatives to `current` give.
fn alternatives<F: Kernels>(
    knob: usize,
    current: &Candidate<F>,
    forced: Option<Backend>,
) -> Vec<(Planner, String)> {
    let p = &current.planner;
    let plan = &current.plan;
    let budgets = p.budget_setting();
    let mut out = Vec::new();
    match knob {
        // Every backend this CPU has for the field.
        0 if forced.is_none() => {
            for b in [
                Backend::Avx512,
                Backend::Avx2,
                Backend::Neon,
                Backend::Scalar,
            ] {
                if b != plan.backend() && b.check::<F>().is_ok() {
                    let budgets = super::Budgets {
                        register_values: None,
                        ..budgets
                    };
                    out.push((
                        p.clone().backend(b).budgets(budgets),
                        format!("backend {}", b.name()),
                    ));
                }
            }
        }
        // Group radices: half and twice the register budget.
        1 => {
            let r = budgets
                .register_values
                .unwrap_or_else(|| F::register_values(plan.backend()));
            for r in [r / 2, r * 2] {
                if (2..=16).contains(&r) {
                    let budgets = super::Budgets {
                        register_values: Some(r),
                        ..budgets
                    };
                    out.push((p.clone().budgets(budgets), format!("registers {r} values")));
                }
            }
        }
        // Tiles: half and twice the L2 budget.
        2 => {
            for l2 in [budgets.l2 / 2, budgets.l2 * 2] {
                if l2 >= 1 << 10 {
                    let budgets = super::Budgets { l2, ..budgets };
                    out.push((
                        p.clone().budgets(budgets),
                        format!("L2 budget {} KiB", l2 >> 10),
                    ));
                }
            }
        }
        // Streaming stores flipped.
        3 => {
            let streams = plan.passes().first().is_some_and(|pass| pass.streams);
            let (l3, label) = if streams {
                (1usize << 40, "no streaming stores")
            } else {
                (plan.cost().data_bytes / 2, "streaming stores")
            };
            if l3 >= 1 << 10 {
                let budgets = super::Budgets { l3, ..budgets };
                out.push((p.clone().budgets(budgets), String::from(label)));
            }
        }
        // One thread against the setting.
        4 if p.thread_setting() != Threads::Count(1) && plan.uses_threads() => {
            out.push((
                p.clone().threads(Threads::Count(1)),
                String::from("one thread"),
            ));
        }
        _ => {}
    }
    out
}

/// Time as plans print it.
fn time(seconds: f64) -> String {
    if seconds >= 1e-3 {
        format!("{:.2} ms", seconds * 1e3)
    } else if seconds >= 1e-6 {
        format!("{:.1} µs", seconds * 1e6)
    } else {
        format!("{:.1} ns", seconds * 1e9)
    }
}

/// The fastest of the plans `rules` chooses between for `spec`, within about
/// `budget` of planning time.
pub(super) fn measured<F: Kernels>(
    rules: &Planner,
    spec: &Transform<F>,
    budget: Duration,
) -> Result<Plan<F>, Error> {
    let start = Instant::now();
    let default = rules.plan_by_rules(spec)?;
    // Canonical scratch input (every plan, lazy ring plans too, reads it).
    let input = (0..default.input_len())
        .map(|i| F::from_u64((i as u64).wrapping_mul(0x9E37_79B9) % 65_521 + 1))
        .collect();
    let output = vec![F::zero(); default.len()];
    let mut bench = Bench {
        input,
        output,
        start,
        budget,
    };
    let mut best = Candidate {
        planner: rules.clone(),
        plan: default,
        label: String::from(RULES),
        times: Vec::new(),
    };
    let rules_time = bench.calibrate(&best).0;
    best.times = vec![rules_time];
    let mut seen = vec![identity(&best.plan)];
    let mut timed = 1;
    let mut stopped = false;
    let mut runner_up: Option<(String, f64, f64)> = None;
    for knob in 0..5 {
        let mut candidates: Vec<Candidate<F>> = Vec::new();
        for (planner, label) in alternatives(knob, &best, rules.forced_backend()) {
            let Ok(plan) = planner.plan_by_rules(spec) else {
                continue;
            };
            let text = identity(&plan);
            if seen.contains(&text) {
                continue;
            }
            seen.push(text);
            candidates.push(Candidate {
                planner,
                plan,
                label,
                times: Vec::new(),
            });
        }
        if candidates.is_empty() {
            continue;
        }
        // A comparison costs at least RUNS + 2 runs of each plan (a warm-up,
        // a calibration); it may take its share of what is left for the
        // knobs to come.
        let cost = (candidates.len() + 1) as f64 * (RUNS + 2) as f64 * best.median();
        if cost > bench.left() {
            stopped = true;
            break;
        }
        {
            let share = bench.left() / (5 - knob) as f64;
            let mut all: Vec<&mut Candidate<F>> = vec![&mut best];
            all.extend(candidates.iter_mut());
            bench.compare(&mut all, share);
        }
        timed += candidates.len();
        let winner = candidates
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.median().total_cmp(&b.1.median()))
            .map(|(i, c)| (i, c.median()));
        if let Some((i, t)) = winner {
            if t < MARGIN * best.median() {
                let loser = (best.label.clone(), best.median(), t);
                let mut winner = candidates.swap_remove(i);
                if best.label != RULES {
                    winner.label = format!("{}, {}", best.label, winner.label);
                }
                best = winner;
                runner_up = Some(loser);
            } else if runner_up
                .as_ref()
                .is_none_or(|r| t / best.median() < r.1 / r.2)
            {
                runner_up = Some((candidates[i].label.clone(), t, best.median()));
            }
        }
    }
    // The winner against the rules' plan, head to head, where the budget
    // allows (the rules' plan may have left the race knobs ago).
    let against_rules = if best.label == RULES {
        None
    } else {
        let cost = 2.0 * (RUNS + 2) as f64 * best.median();
        match rules.plan_by_rules(spec) {
            Ok(plan) if cost <= bench.left() => {
                let mut rules_plan = Candidate {
                    planner: rules.clone(),
                    plan,
                    label: String::from(RULES),
                    times: Vec::new(),
                };
                let share = bench.left();
                bench.compare(&mut [&mut best, &mut rules_plan], share);
                Some(format!(
                    "{} against the rules' plan {} in the same round",
                    time(best.median()),
                    time(rules_plan.median())
                ))
            }
            _ => Some(format!(
                "{}, the rules' plan {} in its first run",
                time(best.median()),
                time(rules_time)
            )),
        }
    };
    let chosen = match against_rules {
        Some(text) => format!("this plan ({}) {text}", best.label),
        None => format!("the rules' own plan, {}", time(best.median())),
    };
    let mut plan = best.plan;
    let runner = match runner_up {
        Some((label, t, against)) => format!(
            "; runner-up ({label}) {} against {} in the same round",
            time(t),
            time(against)
        ),
        None => String::new(),
    };
    plan.notes.push(format!(
        "measured   {timed} plan{} timed in {} ms of a {} ms budget{}: {chosen}{runner} (medians of interleaved rounds)",
        if timed == 1 { "" } else { "s" },
        start.elapsed().as_millis(),
        budget.as_millis(),
        if stopped { ", stopped early" } else { "" },
    ));
    Ok(plan)
}

//! Measured planning and wisdom: measured plans compute the rules' bits,
//! read back from their text, and wisdom round-trips through files, refuses
//! other CPUs' plans and reports corrupt files as typed errors.

use crate::common::*;
use nttfuse::*;
use std::sync::Arc;
use std::time::Duration;

fn budget() -> Duration {
    Duration::from_millis(30)
}

/// The measured plan of `spec` computes what the rules' plan computes, says
/// it was measured, and reads back from its text (its note included).
fn measured_matches_rules<F: Kernels>(spec: Transform<F>, budgets: Budgets) {
    for threads in [Threads::All, Threads::Count(1)] {
        let rules = Planner::new()
            .threads(threads)
            .budgets(budgets)
            .plan(&spec)
            .unwrap();
        let measured = Planner::new()
            .threads(threads)
            .budgets(budgets)
            .measure(budget())
            .plan(&spec)
            .unwrap();
        let text = measured.to_string();
        assert!(text.contains("\nmeasured   "), "{text}");
        assert!(!rules.to_string().contains("measured"));
        let input: Vec<F> = (0..rules.input_len())
            .map(|i| F::from_u64(i as u64 * 7919 + 3))
            .collect();
        let (mut a, mut b) = (vec![F::zero(); rules.len()], vec![F::zero(); rules.len()]);
        if spec.reduction_mode() == Reduction::Canonical {
            rules.execute_from(&input, &mut a).unwrap();
            measured.execute_from(&input, &mut b).unwrap();
            assert!(a == b, "{text}");
        }
        let again = Plan::<F>::from_text(&text).unwrap_or_else(|e| panic!("{text}\n{e}"));
        assert_eq!(again.to_string(), text);
        assert_eq!(again, measured);
    }
}

#[test]
fn measured_plans_compute_the_rules_bits() {
    measured_matches_rules(Transform::<BabyBear>::dft(12).lanes(8), tiny());
    measured_matches_rules(
        Transform::<BabyBear>::dft(14)
            .lanes(16)
            .order(Order::BitReversed),
        Budgets::detect(),
    );
    measured_matches_rules(Transform::<Goldilocks>::idft(11).lanes(4), tiny());
    measured_matches_rules(
        Transform::<Gf2_64>::additive_encode(13, LogBlowup(1)).lanes(8),
        tiny(),
    );
    measured_matches_rules(
        Transform::<Gf2_64>::additive_ntt(12)
            .lanes(2)
            .retain_prefix(1),
        tiny(),
    );
    measured_matches_rules(
        Transform::<MlKem>::negacyclic_forward().batch(3),
        Budgets::detect(),
    );
    measured_matches_rules(
        Transform::<MlKem>::negacyclic_inverse()
            .reduction(Reduction::Lazy)
            .ntt_order(NttOrder::Permuted),
        Budgets::detect(),
    );
    measured_matches_rules(Transform::<MlDsa>::negacyclic_inverse(), Budgets::detect());
}

#[test]
fn a_forced_backend_is_kept_when_measuring() {
    let plan = Planner::new()
        .backend(Backend::Scalar)
        .measure(budget())
        .plan(&Transform::<BabyBear>::dft(12).lanes(8))
        .unwrap();
    assert_eq!(plan.backend(), Backend::Scalar);
}

#[test]
fn measured_lde_plans_compute_the_rules_bits() {
    let spec = Transform::<BabyBear>::coset_lde(11, LogBlowup(1)).lanes(8);
    let rules = Planner::new().budgets(tiny()).plan(&spec).unwrap();
    let measured = Planner::new()
        .budgets(tiny())
        .measure(budget())
        .plan(&spec)
        .unwrap();
    let input: Vec<BabyBear> = (0..rules.input_len())
        .map(|i| BabyBear::from_u64(i as u64 * 31 + 1))
        .collect();
    let (mut a, mut b) = (
        vec![BabyBear::ZERO; rules.len()],
        vec![BabyBear::ZERO; rules.len()],
    );
    rules.execute_from(&input, &mut a).unwrap();
    measured.execute_from(&input, &mut b).unwrap();
    assert_eq!(a, b);
}

fn temp(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("nttfuse-{}-{name}.wisdom", std::process::id()))
}

/// Wisdom with a measured plan of two shapes.
fn some_wisdom() -> (Wisdom, Planner, Vec<Transform<BabyBear>>) {
    let asked = Planner::new().budgets(tiny()).measure(budget());
    let specs = vec![
        Transform::<BabyBear>::dft(12).lanes(8),
        Transform::<BabyBear>::idft(10).lanes(4),
    ];
    let mut wisdom = Wisdom::new();
    for spec in &specs {
        wisdom.add(&asked, &asked.plan(spec).unwrap());
    }
    (wisdom, asked, specs)
}

#[test]
fn wisdom_round_trips_and_plans_without_measuring() {
    let (wisdom, asked, specs) = some_wisdom();
    assert_eq!(wisdom.len(), 2);
    let text = wisdom.to_string();
    assert_eq!(Wisdom::from_text(&text, "text").unwrap(), wisdom);
    let path = temp("round-trip");
    wisdom.save(&path).unwrap();
    let loaded = Arc::new(Wisdom::load(&path).unwrap());
    assert_eq!(*loaded, wisdom);
    for spec in &specs {
        let wise = Planner::new()
            .budgets(tiny())
            .with_wisdom(Arc::clone(&loaded))
            .plan(spec)
            .unwrap();
        let text = wise.to_string();
        assert!(text.contains("\nwisdom     from wisdom"), "{text}");
        assert!(text.contains("\nmeasured   "), "{text}");
        assert_eq!(Plan::<BabyBear>::from_text(&text).unwrap(), wise);
    }
    // Another thread setting is another question: planned by the rules.
    let other = Planner::new()
        .threads(Threads::Count(1))
        .with_wisdom(Arc::clone(&loaded))
        .plan(&specs[0])
        .unwrap();
    assert!(!other.to_string().contains("wisdom"));
    // Saving merges with what the file holds.
    let mut more = Wisdom::new();
    let spec = Transform::<BabyBear>::dft(9).lanes(2);
    more.add(&asked, &asked.plan(&spec).unwrap());
    more.save(&path).unwrap();
    assert_eq!(Wisdom::load(&path).unwrap().len(), 3);
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn wisdom_of_another_cpu_is_ignored_and_the_plan_says_so() {
    let (wisdom, _, specs) = some_wisdom();
    let text = wisdom.to_string().replacen(
        &format!("cpu        {}", wisdom.cpu()),
        "cpu        Some Other CPU",
        1,
    );
    let foreign = Arc::new(Wisdom::from_text(&text, "text").unwrap());
    let plan = Planner::new()
        .budgets(tiny())
        .with_wisdom(foreign)
        .plan(&specs[0])
        .unwrap();
    let text = plan.to_string();
    assert!(
        text.contains("wisdom     ignored: made on another CPU (Some Other CPU)"),
        "{text}"
    );
    assert!(!text.contains("measured"));
}

#[test]
fn corrupt_or_truncated_wisdom_is_a_typed_error() {
    let (wisdom, _, specs) = some_wisdom();
    let text = wisdom.to_string();
    // Every cut short of the whole text fails with a line number.
    let lines: Vec<&str> = text.lines().collect();
    for keep in 0..lines.len() {
        let cut = lines[..keep].join("\n");
        match Wisdom::from_text(&cut, "cut") {
            Err(Error::Wisdom { line, .. }) => assert!(line >= 1 && line <= keep + 1),
            other => panic!("{keep} lines: {other:?}"),
        }
    }
    // Cut mid-line too.
    for at in (0..text.trim_end().len()).step_by(7) {
        if text.is_char_boundary(at) {
            assert!(Wisdom::from_text(&text[..at], "cut").is_err());
        }
    }
    for garbage in [
        "",
        "nttfuse wisdom 2\n",
        "hello\nworld",
        "nttfuse wisdom 1\ncpu        x\n== plan, threads asked: lots, backend asked: any\n== end",
    ] {
        assert!(matches!(
            Wisdom::from_text(garbage, "g"),
            Err(Error::Wisdom { .. })
        ));
    }
    // A missing file names the file.
    let missing = temp("missing");
    match Wisdom::load(&missing) {
        Err(e @ Error::Wisdom { line: 0, .. }) => {
            assert!(e.to_string().contains("missing"), "{e}")
        }
        other => panic!("{other:?}"),
    }
    // An entry this build plans differently is not run; the plan says why.
    let edited = text.replacen("tiles of", "tiles  of", 1);
    let edited = Arc::new(Wisdom::from_text(&edited, "edited").unwrap());
    let plan = Planner::new()
        .budgets(tiny())
        .with_wisdom(edited)
        .plan(&specs[0])
        .unwrap();
    assert!(plan
        .to_string()
        .contains("wisdom     entry not used: plan text, line"));
}

#[test]
fn wisdom_files_are_read_while_written() {
    let (wisdom, _, _) = some_wisdom();
    let path = temp("concurrent");
    wisdom.save(&path).unwrap();
    std::thread::scope(|s| {
        s.spawn(|| {
            for _ in 0..50 {
                wisdom.save(&path).unwrap();
            }
        });
        for _ in 0..2 {
            s.spawn(|| {
                for _ in 0..100 {
                    assert_eq!(Wisdom::load(&path).unwrap(), wisdom);
                }
            });
        }
    });
    std::fs::remove_file(&path).unwrap();
}

//! Out-of-core coset LDEs: every budget (one pass, three passes with small
//! and large tiles), column shards, thread counts and fields give the
//! in-memory plan's bits; files round-trip; bad files are typed errors.

use nttfuse::out_of_core::{
    FileElement, MemRows, OutOfCore, OutOfCoreEncode, OutOfCoreLde, Progress,
};
use nttfuse::prelude::*;
use nttfuse::ExtensionOf;
use std::ops::ControlFlow;
use std::path::PathBuf;

/// Two staging buffers of the smallest size, and room for small plans.
const STAGING: usize = 32 << 10;

fn pseudo_random<F: Kernels>(len: usize, seed: u64) -> Vec<F> {
    crate::common::Rng(seed).vec(len)
}

fn in_memory<F: Kernels + TwoAdicField>(spec: &CosetLde<F>, trace: &[F]) -> Vec<F> {
    let lde = Planner::new().plan(spec).unwrap();
    let mut out = vec![F::zero(); lde.len()];
    lde.execute_from(trace, &mut out).unwrap();
    out
}

/// Budgets from "everything fits" down to the smallest tiles, each run on
/// 1 and 2 threads, against the in-memory LDE.
fn every_budget<F: Kernels + TwoAdicField + FileElement>(log_n: u32, r: u32, lanes: usize) {
    let spec = Transform::<F>::coset_lde(log_n, LogBlowup(r))
        .shift(F::multiplicative_generator())
        .lanes(lanes);
    let trace = pseudo_random::<F>(lanes << log_n, u64::from(log_n) * 31 + lanes as u64);
    let expected = in_memory(&spec, &trace);
    let size = core::mem::size_of::<F>();
    let staging = STAGING;
    let whole = (lanes << (log_n + r)) * size;
    let mut shapes = Vec::new();
    for budget in [
        staging + 4 * whole,
        staging + whole / 4,
        staging + whole / 16,
        staging + whole / 64,
    ] {
        for threads in [1, 2] {
            let ooc = OutOfCore::new(budget)
                .planner(Planner::new().threads(Threads::Count(threads)))
                .plan(&spec)
                .unwrap();
            let mut out = vec![F::zero(); expected.len()];
            ooc.run(
                &mut MemRows::new(&trace[..], lanes),
                &mut MemRows::new(&mut out[..], lanes),
            )
            .unwrap();
            assert!(
                out == expected,
                "{} 2^{log_n} r {r} × {lanes}, budget {budget}, {threads} threads:\n{ooc}",
                F::NAME
            );
            shapes.push((ooc.passes(), ooc.buffer_bytes()));
        }
    }
    assert_eq!(shapes[0].0, 1, "a budget 4× the output runs in one pass");
    assert_eq!(
        shapes.last().unwrap().0,
        3,
        "a budget of 1/64 of the output takes three passes"
    );
    assert!(shapes.iter().all(|&(_, bytes)| bytes > 0));
}

#[test]
fn every_budget_matches_the_in_memory_lde() {
    every_budget::<BabyBear>(12, 1, 8);
    every_budget::<BabyBear>(11, 2, 3);
    every_budget::<KoalaBear>(12, 1, 5);
    every_budget::<Goldilocks>(11, 1, 4);
    every_budget::<Goldilocks>(10, 3, 2);
}

#[test]
fn column_shards_put_together_are_the_whole() {
    let (log_n, lanes) = (11, 10);
    let spec = Transform::<BabyBear>::coset_lde(log_n, LogBlowup(1))
        .shift(BabyBear::new(7))
        .lanes(lanes);
    let trace = pseudo_random::<BabyBear>(lanes << log_n, 5);
    let expected = in_memory(&spec, &trace);
    let mut out = vec![BabyBear::ZERO; expected.len()];
    let budget = STAGING + (lanes << log_n); // three passes for every shard
    let mut texts = Vec::new();
    for columns in [0..3, 3..4, 4..10] {
        let shard = OutOfCore::new(budget)
            .planner(Planner::new().threads(Threads::Count(1)))
            .columns(columns.clone())
            .plan(&spec)
            .unwrap();
        assert_eq!(shard.column_range(), columns);
        assert_eq!(shard.passes(), 3, "{shard}");
        shard
            .run(
                &mut MemRows::new(&trace[..], lanes),
                &mut MemRows::new(&mut out[..], lanes),
            )
            .unwrap();
        // A worker elsewhere plans the same shard to the same text.
        let again = OutOfCore::new(budget)
            .planner(Planner::new().threads(Threads::Count(1)))
            .columns(columns)
            .plan(&spec)
            .unwrap();
        assert_eq!(shard.to_string(), again.to_string());
        // ... or reads the text it was handed back into the same plan.
        let text = shard.to_string();
        let read = OutOfCoreLde::<BabyBear>::from_text(&text).unwrap();
        assert_eq!(read.to_string(), text);
        assert_eq!(read.column_range(), shard.column_range());
        texts.push(text);
    }
    assert!(out == expected);
    assert!(texts[0].contains("columns 0..3 of 10"));
}

/// Coset shards (with and without a column range, three passes and one)
/// put together are the whole LDE; an index past the cosets is refused.
#[test]
fn coset_shards_put_together_are_the_whole() {
    fn check<F: Kernels + TwoAdicField + FileElement>(log_n: u32, r: u32, lanes: usize) {
        let spec = Transform::<F>::coset_lde(log_n, LogBlowup(r)).lanes(lanes);
        let trace = pseudo_random::<F>(lanes << log_n, 9);
        let expected = in_memory(&spec, &trace);
        let size = std::mem::size_of::<F>();
        for budget in [STAGING + (lanes << log_n) * size, 64 << 20] {
            let mut whole = vec![F::zero(); expected.len()];
            for c in 0..1usize << r {
                for columns in [0..lanes, 0..1, 1..lanes] {
                    if columns.is_empty() {
                        continue;
                    }
                    let shard = OutOfCore::new(budget)
                        .planner(Planner::new().threads(Threads::Count(2)))
                        .columns(columns.clone())
                        .coset(c)
                        .plan(&spec)
                        .unwrap();
                    let mut rows = vec![F::zero(); lanes << log_n];
                    shard
                        .run(
                            &mut MemRows::new(&trace[..], lanes),
                            &mut MemRows::new(&mut rows[..], lanes),
                        )
                        .unwrap();
                    for (t, row) in rows.chunks_exact(lanes).enumerate() {
                        let j = c + (t << r);
                        whole[j * lanes + columns.start..j * lanes + columns.end]
                            .copy_from_slice(&row[columns.clone()]);
                    }
                    // The shard's text reads back into the same plan.
                    let text = shard.to_string();
                    assert_eq!(
                        OutOfCoreLde::<F>::from_text(&text).unwrap().to_string(),
                        text
                    );
                }
            }
            assert!(whole == expected, "{} 2^{log_n} x {lanes} r {r}", F::NAME);
        }
        assert!(matches!(
            OutOfCore::new(64 << 20).coset(1 << r).plan(&spec),
            Err(Error::Unsupported { .. })
        ));
    }
    check::<BabyBear>(10, 2, 3);
    check::<Goldilocks>(9, 1, 2);
    check::<KoalaBear>(11, 1, 1);
}

fn temp_path(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("nttfuse-ooc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn write_trace<F: FileElement>(path: &PathBuf, trace: &[F]) {
    let mut bytes = vec![0u8; trace.len() * F::BYTES];
    for (x, b) in trace.iter().zip(bytes.chunks_exact_mut(F::BYTES)) {
        x.put(b);
    }
    std::fs::write(path, bytes).unwrap();
}

fn read_output<F: FileElement>(path: &PathBuf) -> Vec<F> {
    std::fs::read(path)
        .unwrap()
        .chunks_exact(F::BYTES)
        .map(|b| F::get(b).unwrap())
        .collect()
}

#[test]
fn files_round_trip_bit_for_bit() {
    let (log_n, lanes) = (12, 6);
    let spec = Transform::<Goldilocks>::coset_lde(log_n, LogBlowup(1))
        .shift(Goldilocks::multiplicative_generator())
        .lanes(lanes);
    let trace = pseudo_random::<Goldilocks>(lanes << log_n, 9);
    let expected = in_memory(&spec, &trace);
    let (input, output) = (temp_path("gl-in"), temp_path("gl-out"));
    write_trace(&input, &trace);
    let ooc = OutOfCore::new(STAGING + (lanes << log_n) * 2)
        .plan(&spec)
        .unwrap();
    assert_eq!(ooc.passes(), 3);
    let mut seen = Vec::new();
    ooc.run_files_with(&input, &output, |p| {
        seen.push(p);
        ControlFlow::Continue(())
    })
    .unwrap();
    assert!(read_output::<Goldilocks>(&output) == expected);
    let last: Progress = *seen.last().unwrap();
    assert_eq!((last.pass, last.passes), (3, 3));
    assert_eq!(last.bytes_done, last.bytes_total);
    assert_eq!(last.bytes_total, ooc.io_bytes());
    assert!(seen.windows(2).all(|w| w[0].bytes_done < w[1].bytes_done));
    // Shards into one shared output file.
    std::fs::remove_file(&output).unwrap();
    for columns in [0..2, 2..6] {
        OutOfCore::new(STAGING + 4096)
            .columns(columns)
            .plan(&spec)
            .unwrap()
            .run_files(&input, &output)
            .unwrap();
    }
    assert!(read_output::<Goldilocks>(&output) == expected);
}

#[test]
fn bad_files_are_typed_errors_naming_file_and_offset() {
    let (log_n, lanes) = (10, 2);
    let spec = Transform::<BabyBear>::coset_lde(log_n, LogBlowup(1)).lanes(lanes);
    let ooc = OutOfCore::new(STAGING + 4096).plan(&spec).unwrap();
    let trace = pseudo_random::<BabyBear>(lanes << log_n, 3);
    let (input, output) = (temp_path("bb-in"), temp_path("bb-out"));
    // Short input: refused before any work.
    write_trace(&input, &trace[..trace.len() - 1]);
    match ooc.run_files(&input, &output) {
        Err(Error::Io {
            file,
            offset,
            reason,
        }) => {
            assert!(file.ends_with("bb-in"), "{file}");
            assert_eq!(offset, (trace.len() as u64 - 1) * 4);
            assert!(reason.contains("ends at byte"), "{reason}");
        }
        other => panic!("short input: {other:?}"),
    }
    // A word that is not canonical: the offset of that word.
    write_trace(&input, &trace);
    let mut bytes = std::fs::read(&input).unwrap();
    bytes[4 * 77..4 * 78].copy_from_slice(&u32::MAX.to_le_bytes());
    std::fs::write(&input, &bytes).unwrap();
    match ooc.run_files(&input, &output) {
        Err(Error::Io { offset, reason, .. }) => {
            assert_eq!(offset, 4 * 77);
            assert!(reason.contains("canonical"), "{reason}");
        }
        other => panic!("non-canonical input: {other:?}"),
    }
    write_trace(&input, &trace);
    // A missing input and an output that cannot be written.
    assert!(matches!(
        ooc.run_files(&temp_path("missing"), &output),
        Err(Error::Io { offset: 0, .. })
    ));
    assert!(matches!(
        ooc.run_files(
            &input,
            std::path::Path::new("/proc/nttfuse-no-such-dir/out")
        ),
        Err(Error::Io { .. })
    ));
    // A full disk: /dev/full takes no byte.
    #[cfg(target_os = "linux")]
    match ooc.run_files(&input, std::path::Path::new("/dev/full")) {
        Err(Error::Io { file, reason, .. }) => assert!(file == "/dev/full", "{file}: {reason}"),
        other => panic!("/dev/full: {other:?}"),
    }
    // Interrupted: a typed error, and running again completes.
    let small = OutOfCore::new(STAGING + 2048).plan(&spec).unwrap();
    assert_eq!(small.passes(), 3);
    let stop = small.run_files_with(&input, &output, |p| {
        if p.pass == 2 {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    assert_eq!(stop, Err(Error::Interrupted { pass: 2, passes: 3 }));
    small.run_files(&input, &output).unwrap();
    assert!(read_output::<BabyBear>(&output) == in_memory(&spec, &trace));
}

#[test]
fn budgets_and_specs_out_of_reach_are_typed_errors() {
    let spec = Transform::<BabyBear>::coset_lde(12, LogBlowup(1)).lanes(4);
    assert!(matches!(
        OutOfCore::new(1 << 10).plan(&spec),
        Err(Error::BudgetTooSmall { budget: 1024, .. })
    ));
    assert!(matches!(
        OutOfCore::new(64 << 20).plan(&spec.clone().order(Order::BitReversed)),
        Err(Error::Unsupported { .. })
    ));
    assert!(matches!(
        OutOfCore::new(64 << 20).columns(3..5).plan(&spec),
        Err(Error::Unsupported { .. })
    ));
    // Storage shorter than the plan: a typed error, not a panic.
    let ooc = OutOfCore::new(64 << 20).plan(&spec).unwrap();
    let short = vec![BabyBear::ZERO; 100];
    let mut out = vec![BabyBear::ZERO; 4 << 13];
    assert!(matches!(
        ooc.run(
            &mut MemRows::new(&short[..], 4),
            &mut MemRows::new(&mut out[..], 4)
        ),
        Err(Error::Io { .. })
    ));
}

#[test]
fn plans_read_back_from_their_text() {
    for (budget, passes) in [(64 << 20, 1), (STAGING + 8192, 3)] {
        for threads in [Threads::Count(1), Threads::Count(2)] {
            let spec = Transform::<Goldilocks>::coset_lde(11, LogBlowup(2)).lanes(3);
            let plan = OutOfCore::new(budget)
                .planner(Planner::new().threads(threads))
                .plan(&spec)
                .unwrap();
            assert_eq!(plan.passes(), passes);
            let text = plan.to_string();
            let read = OutOfCoreLde::<Goldilocks>::from_text(&text).unwrap();
            assert_eq!(read.to_string(), text);
            assert_eq!(read.transform(), &spec);
            // Another budget, field or a cut-short text is refused.
            let edited = text.replacen(
                &format!("budget     {budget} bytes"),
                &format!("budget     {} bytes", budget * 2),
                1,
            );
            assert!(
                matches!(
                    OutOfCoreLde::<Goldilocks>::from_text(&edited),
                    Err(Error::PlanText { .. })
                ),
                "{edited}"
            );
            assert!(matches!(
                OutOfCoreLde::<BabyBear>::from_text(&text),
                Err(Error::PlanText { line: 1, .. })
            ));
            let cut: String = text.lines().take(3).collect::<Vec<_>>().join("\n");
            assert!(OutOfCoreLde::<Goldilocks>::from_text(&cut).is_err());
        }
    }
}

/// A full disk: CI mounts a small tmpfs and names it in
/// `NTTFUSE_SMALL_DISK` (`.ci/run`, check "out-of-core on a full disk");
/// the output does not fit, and the write that fails is a typed error
/// naming the output file and the offset.
#[test]
#[ignore = "needs a small filesystem named in NTTFUSE_SMALL_DISK (.ci/run mounts one)"]
fn a_full_disk_is_a_typed_error_naming_file_and_offset() {
    let dir = std::env::var("NTTFUSE_SMALL_DISK").expect("NTTFUSE_SMALL_DISK: a small filesystem");
    let space = std::env::var("NTTFUSE_SMALL_DISK_BYTES")
        .ok()
        .and_then(|b| b.parse::<u64>().ok())
        .expect("NTTFUSE_SMALL_DISK_BYTES: its size");
    let (log_n, lanes) = (12, 8);
    let spec = Transform::<BabyBear>::coset_lde(log_n, LogBlowup(1)).lanes(lanes);
    let out_bytes = (lanes << (log_n + 1)) as u64 * 4;
    assert!(out_bytes > 2 * space, "the output must not fit");
    let trace = pseudo_random::<BabyBear>(lanes << log_n, 11);
    let input = temp_path("full-in");
    write_trace(&input, &trace);
    let output = std::path::Path::new(&dir).join("lde.bin");
    let ooc = OutOfCore::new(STAGING + 16384).plan(&spec).unwrap();
    assert_eq!(ooc.passes(), 3);
    match ooc.run_files(&input, &output) {
        Err(Error::Io {
            file,
            offset,
            reason,
        }) => {
            assert_eq!(file, output.display().to_string());
            assert!(
                offset <= space && offset + (64 << 10) >= space / 2,
                "offset {offset} on a disk of {space}"
            );
            assert!(reason.to_lowercase().contains("space"), "{reason}");
        }
        other => panic!("a full disk: {other:?}"),
    }
    let _ = std::fs::remove_file(&output);
}

/// The in-memory encode of `message` (its spec's lanes).
fn encode_in_memory<F: Kernels + BinaryField>(spec: &Transform<F>, message: &[F]) -> Vec<F> {
    let plan = Planner::new().plan(spec).unwrap();
    let mut out = vec![F::zero(); plan.len()];
    plan.execute_from(message, &mut out).unwrap();
    out
}

/// Out-of-core additive encodes: every mode (one pass with the message
/// resident, one pass reading it per block, two passes with large and small
/// blocks), both bases, shifted and not, 1 and 2 threads, against the
/// in-memory encode.
#[test]
fn every_encode_budget_matches_the_in_memory_encode() {
    fn check(dim: u32, r: u32, lanes: usize, basis: Basis, shift: u64) -> usize {
        let spec = Transform::<Gf2_64>::additive_encode(dim, LogBlowup(r))
            .basis(basis)
            .shift(Gf2_64::new(shift))
            .lanes(lanes);
        let message = pseudo_random::<Gf2_64>(lanes << (dim - r), u64::from(dim) * 7 + shift);
        let expected = encode_in_memory(&spec, &message);
        let whole = expected.len() * 8;
        let mut seen = Vec::new();
        // The largest budget (halving from the output's size) that takes
        // two passes: small shapes fit one pass under tiny budgets.
        let two_pass = (1..20)
            .map(|k| whole >> k)
            .find(|&b| {
                OutOfCore::new(b)
                    .plan_encode(&spec)
                    .is_ok_and(|p| p.passes() == 2)
            })
            .expect("some budget takes two passes");
        for budget in [
            STAGING + 4 * whole,
            STAGING + whole + whole / 4,
            STAGING + whole / 8,
            two_pass,
        ] {
            for threads in [1, 2] {
                let ooc = OutOfCore::new(budget)
                    .planner(Planner::new().threads(Threads::Count(threads)))
                    .plan_encode(&spec)
                    .unwrap();
                let mut out = vec![Gf2_64::ZERO; expected.len()];
                ooc.run(
                    &mut MemRows::new(&message[..], lanes),
                    &mut MemRows::new(&mut out[..], lanes),
                )
                .unwrap();
                assert!(
                    out == expected,
                    "2^{dim} rate 2^-{r} × {lanes}, {basis:?}, shift {shift}, budget {budget}, {threads} threads:\n{ooc}"
                );
                assert!(ooc.buffer_bytes() + 2 * ooc.staging_bytes() <= budget);
                seen.push((ooc.passes(), ooc.io_bytes()));
                // Every mode's plan reads back from its text.
                let text = ooc.to_string();
                let again = OutOfCoreEncode::<Gf2_64>::from_text(&text)
                    .unwrap_or_else(|e| panic!("{text}\n{e}"));
                assert_eq!(again.to_string(), text);
                assert_eq!(again.transform(), &spec);
            }
        }
        let row = (lanes * 8) as u64;
        let (n, m) = (1u64 << (dim - r), 1u64 << dim);
        // Resident message: reads n, writes m; read per block: 2m; two
        // passes: n + m reads, 2m writes.
        let modes = [(1, (n + m) * row), (1, 2 * m * row), (2, (n + 3 * m) * row)];
        let rank = |s: &(usize, u64)| modes.iter().position(|m| m == s);
        assert_eq!(seen[0], modes[0], "{spec:?}");
        assert_eq!(seen[6], modes[2], "{spec:?}");
        // A smaller budget never picks a mode with less traffic.
        let ranks: Vec<_> = seen
            .iter()
            .map(|s| rank(s).expect("one of the three modes"))
            .collect();
        assert!(ranks.windows(2).all(|w| w[0] <= w[1]), "{ranks:?}");
        ranks[2]
    }
    // A quarter more than the output: the message re-read per block.
    assert_eq!(check(12, 1, 4, Basis::Standard, 0), 1);
    check(12, 1, 3, Basis::Cantor, 0);
    check(11, 2, 2, Basis::Standard, 0x1234_5678_9abc);
    check(11, 3, 5, Basis::Cantor, 99);
}

/// Column shards and block ("coset") shards of an encode put together are
/// the whole codeword; the block shard's rows are the codeword's rows
/// k·2^(log_n − rate) …; an index past the blocks is refused.
#[test]
fn encode_shards_put_together_are_the_whole() {
    let (dim, r, lanes) = (11, 2, 3);
    let spec = Transform::<Gf2_64>::additive_encode(dim, LogBlowup(r))
        .basis(Basis::Cantor)
        .shift(Gf2_64::new(5))
        .lanes(lanes);
    let message = pseudo_random::<Gf2_64>(lanes << (dim - r), 3);
    let expected = encode_in_memory(&spec, &message);
    let block = lanes << (dim - r);
    for budget in [STAGING + block * 8 / 8, 64 << 20] {
        let mut whole = vec![Gf2_64::ZERO; expected.len()];
        for k in 0..1usize << r {
            for columns in [0..1, 1..3] {
                let shard = OutOfCore::new(budget)
                    .planner(Planner::new().threads(Threads::Count(2)))
                    .columns(columns.clone())
                    .coset(k)
                    .plan_encode(&spec)
                    .unwrap();
                // A worker handed the shard's text runs that very plan.
                let shard = OutOfCoreEncode::<Gf2_64>::from_text(&shard.to_string()).unwrap();
                assert_eq!(shard.output_rows(), 1 << (dim - r));
                assert_eq!(shard.column_range(), columns);
                let mut rows = vec![Gf2_64::ZERO; block];
                shard
                    .run(
                        &mut MemRows::new(&message[..], lanes),
                        &mut MemRows::new(&mut rows[..], lanes),
                    )
                    .unwrap();
                for (t, row) in rows.chunks_exact(lanes).enumerate() {
                    let j = (k << (dim - r)) + t;
                    whole[j * lanes + columns.start..j * lanes + columns.end]
                        .copy_from_slice(&row[columns.clone()]);
                }
            }
        }
        assert!(whole == expected, "budget {budget}");
    }
    assert!(matches!(
        OutOfCore::new(64 << 20).coset(1 << r).plan_encode(&spec),
        Err(Error::Unsupported { .. })
    ));
}

/// A Gf2_192 message runs on its base path: the Gf2_64 encode over three
/// times the lanes, two passes, is the extension's encode.
#[test]
fn gf2_192_encodes_out_of_core_on_its_base_path() {
    let (dim, r, lanes) = (11, 1, 2);
    let message: Vec<Gf2_192> = pseudo_random::<Gf2_64>(3 * (lanes << (dim - r)), 11)
        .chunks_exact(3)
        .map(|c| Gf2_192::new(c[0], c[1], c[2]))
        .collect();
    let spec = Transform::<Gf2_192>::additive_encode(dim, LogBlowup(r)).lanes(lanes);
    let expected = encode_in_memory(&spec, &message);
    let base = Transform::<Gf2_64>::additive_encode(dim, LogBlowup(r)).lanes(3 * lanes);
    let ooc = OutOfCore::new(STAGING + ((3 * lanes) << dim) * 8 / 16)
        .plan_encode(&base)
        .unwrap();
    assert_eq!(ooc.passes(), 2, "{ooc}");
    let mut out = vec![Gf2_192::ZERO; expected.len()];
    ooc.run(
        &mut MemRows::new(Gf2_192::as_base_slice(&message), 3 * lanes),
        &mut MemRows::new(Gf2_192::as_base_slice_mut(&mut out), 3 * lanes),
    )
    .unwrap();
    assert!(out == expected);
}

/// Files: a two-pass encode file to file, its progress to the last byte,
/// and the errors of specs it cannot run.
#[test]
fn encode_files_round_trip_and_bad_specs_are_typed_errors() {
    let (dim, r, lanes) = (12, 1, 4);
    let spec = Transform::<Gf2_64>::additive_encode(dim, LogBlowup(r)).lanes(lanes);
    let message = pseudo_random::<Gf2_64>(lanes << (dim - r), 17);
    let expected = encode_in_memory(&spec, &message);
    let (input, output) = (temp_path("enc-in"), temp_path("enc-out"));
    write_trace(&input, &message);
    let ooc = OutOfCore::new(STAGING + (lanes << dim) * 8 / 16)
        .plan_encode(&spec)
        .unwrap();
    assert_eq!(ooc.passes(), 2);
    let text = ooc.to_string();
    assert!(
        text.starts_with("out-of-core  Gf2_64 additive encode, n = 2^12, rate 2^-1"),
        "{text}"
    );
    // Edited, cut-short or foreign text is refused, naming a line.
    let edited = text.replacen("budget     ", "budget     1", 1);
    assert!(matches!(
        OutOfCoreEncode::<Gf2_64>::from_text(&edited),
        Err(Error::PlanText { .. }) | Err(Error::BudgetTooSmall { .. })
    ));
    let cut: String = text.lines().take(4).collect::<Vec<_>>().join("\n");
    assert!(OutOfCoreEncode::<Gf2_64>::from_text(&cut).is_err());
    assert!(matches!(
        OutOfCoreEncode::<Gf2_64>::from_text("out-of-core coset LDE  BabyBear"),
        Err(Error::PlanText { line: 1, .. })
    ));
    assert!(matches!(
        OutOfCoreEncode::<Gf2_64>::from_text(&text.replacen("rate 2^-1", "rate 2^-x", 1)),
        Err(Error::PlanText { line: 1, .. })
    ));
    assert!(text.contains("2.33 sweeps"), "{text}");
    let mut seen = Vec::new();
    ooc.run_files_with(&input, &output, |p| {
        seen.push(p);
        ControlFlow::Continue(())
    })
    .unwrap();
    assert!(read_output::<Gf2_64>(&output) == expected);
    let last: Progress = *seen.last().unwrap();
    assert_eq!((last.pass, last.passes), (2, 2));
    assert_eq!(last.bytes_done, ooc.io_bytes());
    // Stopped mid-run: a typed error naming the pass.
    let mut calls = 0;
    assert!(matches!(
        ooc.run_files_with(&input, &output, |_| {
            calls += 1;
            if calls > 3 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        }),
        Err(Error::Interrupted { pass: 1, passes: 2 })
    ));
    // A message file shorter than the plan reads.
    std::fs::write(&input, vec![0u8; 100]).unwrap();
    match ooc.run_files(&input, &output) {
        Err(Error::Io { file, offset, .. }) => {
            assert!(file.contains("enc-in"));
            assert_eq!(offset, 100);
        }
        other => panic!("{other:?}"),
    }
    let _ = std::fs::remove_file(&input);
    let _ = std::fs::remove_file(&output);
    // Specs an out-of-core encode does not run, and a budget too small.
    for bad in [
        Transform::<Gf2_64>::additive_intt(10),
        Transform::<Gf2_64>::additive_ntt(10).from_layer(2),
        Transform::<Gf2_64>::additive_ntt(10).batch(2),
    ] {
        assert!(matches!(
            OutOfCore::new(64 << 20).plan_encode(&bad),
            Err(Error::Unsupported { .. })
        ));
    }
    assert!(matches!(
        OutOfCore::new(1 << 10).plan_encode(&spec),
        Err(Error::BudgetTooSmall { budget: 1024, .. })
    ));
}

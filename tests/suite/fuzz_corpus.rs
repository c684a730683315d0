//! The saved fuzz corpus, replayed by `cargo test` (no nightly, no
//! cargo-fuzz): every file of `tests/data/fuzz-corpus/<target>/` goes
//! through the fuzz targets' own decoding and property code, which this
//! module includes from `fuzz/src/lib.rs` (so a corpus file means the same
//! case here as under `cargo fuzz`). The corpus is a minimised set of
//! inputs that together reach the backends' kernels (`fuzz/README.md`
//! says how it was made and how to refresh it); a regression any of them
//! catches fails here.
//!
//! A missing or empty corpus directory fails too: a replay of nothing
//! would pass whatever the code does.

#[path = "../../fuzz/src/lib.rs"]
mod fuzz;

use fuzz::Target;
use std::path::{Path, PathBuf};

/// The corpus files of `target`, sorted (panics if there are none).
fn corpus(target: Target) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/fuzz-corpus")
        .join(target.name());
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| {
            panic!(
                "no corpus for `{}` at {}: {e}",
                target.name(),
                dir.display()
            )
        })
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    assert!(
        !files.is_empty(),
        "the corpus of `{}` at {} is empty",
        target.name(),
        dir.display()
    );
    files
}

/// Replays every file of `target`'s corpus, then fails listing the files
/// whose case panicked (each panic's message is printed as it happens).
fn replay(target: Target) {
    let mut findings = Vec::new();
    for file in corpus(target) {
        let data = std::fs::read(&file).expect("a readable corpus file");
        if std::panic::catch_unwind(|| fuzz::fuzz(target, &data)).is_err() {
            findings.push(file.display().to_string());
        }
    }
    assert!(
        findings.is_empty(),
        "{} corpus file(s) of `{}` fail (reproduce one with `cargo +nightly fuzz run {} <file>` in fuzz/):\n{}",
        findings.len(),
        target.name(),
        target.name(),
        findings.join("\n")
    );
}

/// Every target has a corpus directory with at least one input (a target
/// added to `fuzz/` without a saved corpus fails here).
#[test]
fn every_target_has_a_corpus() {
    for target in Target::ALL {
        assert!(!corpus(target).is_empty());
    }
}

#[test]
fn plan_corpus() {
    replay(Target::Plan);
}

#[test]
fn execute_corpus() {
    replay(Target::Execute);
}

#[test]
fn lde_corpus() {
    replay(Target::Lde);
}

#[test]
fn lattice_corpus() {
    replay(Target::Lattice);
}

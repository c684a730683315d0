//! The low-degree extensions: `Transform::coset_lde` (BabyBear, KoalaBear,
//! Goldilocks) and `Transform::additive_lde` (GF(2^64), both bases) planned
//! by `Planner::plan` (fused passes where they tile alike), run with
//! `execute_from` and in place, against the naive inverse then encode.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nttfuse_fuzz::{fuzz, Target};

fuzz_target!(|data: &[u8]| fuzz(Target::Lde, data));

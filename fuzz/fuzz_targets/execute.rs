//! Execution: valid small transforms of every family and field (bases,
//! coset shifts, encodes, pruning, lane-major inputs, 1 to 64 lanes) on
//! every backend the CPU has, run out of place, in place or with caller
//! scratch, on slices starting at unaligned offsets, against the naive
//! definition.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nttfuse_fuzz::{fuzz, Target};

fuzz_target!(|data: &[u8]| fuzz(Target::Execute, data));

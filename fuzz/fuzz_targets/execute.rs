//! Execution: valid small transforms of every family, run out of place, in
//! place or with caller scratch, on slices starting at unaligned offsets,
//! against the naive definition.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nttfuse_fuzz::{check, Case};

fuzz_target!(|case: Case| check(&case, true));

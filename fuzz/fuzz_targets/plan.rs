//! Planner parameters: any family × log n × lanes × rate × budgets × radix
//! limit × threads × backend either gives the typed error of the
//! description's validation (or a backend/thread error) or a plan whose
//! execution equals the naive definition.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nttfuse_fuzz::{check, Case};

fuzz_target!(|case: Case| check(&case, false));

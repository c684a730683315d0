//! Planner parameters: any family × log n × lanes × rate × budgets × radix
//! limit × threads × backend (misused options too) either gives the typed
//! error of the description's validation (or the backend's or the thread
//! count's) or a plan whose execution equals the naive definition.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nttfuse_fuzz::{fuzz, Target};

fuzz_target!(|data: &[u8]| fuzz(Target::Plan, data));

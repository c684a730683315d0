//! The integration suite as one test binary: one link and one instantiation
//! of the generic kernels instead of one per file, which is most of the
//! build time of `cargo test`. Tests that need a process of their own (a
//! counting global allocator, sanitizer controls, the `plonky3`
//! feature) stay separate files in `tests/`.

#[path = "../common/mod.rs"]
mod common;

mod backends;
mod binary;
mod concurrency;
mod errors;
mod fuzz_corpus;
mod lattice;
mod miri;
#[cfg(feature = "std")]
mod out_of_core;
mod plans;
mod ring;
mod stark;
mod transforms;
#[cfg(feature = "std")]
mod wisdom;

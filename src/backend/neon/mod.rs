//! NEON kernels (AArch64 Advanced SIMD, baseline on every AArch64 CPU).
//!
//! The lattice NTTs are the generic ring kernels on q registers
//! (`ring`); the STARK fields' packed kernels are in `packed`.

// The intrinsics below are called from plain functions, relying on NEON
// being enabled at compile time (it is in every AArch64 target with std);
// a target without it fails here rather than compiling them unchecked.
#[cfg(not(target_feature = "neon"))]
compile_error!("nttfuse's NEON backend needs an AArch64 target with NEON enabled");

pub(super) mod packed;
pub(crate) mod products;
pub(crate) mod ring;

//! NEON kernels (AArch64 Advanced SIMD, baseline on every AArch64 CPU).
//!
//! The lattice NTTs run in two register groups, as the fast AArch64 ML-KEM
//! and ML-DSA code does:
//!
//! ```text
//!   group A: layers 1…a   (a = 3 for ML-KEM, 4 for ML-DSA) on 2^a registers
//!            whose lanes are 256/2^a coefficients apart, column by column
//!   group B: layers a+1…a+4 on blocks of 4 registers: two layers between
//!            registers, two inside them after trn (8- then 4-byte granules)
//! ```
//!
//! Products use the Barrett multiplication of `sqrdmulh`: with the plain
//! twiddle w and w' = round(w · 2^(bits−1) / q), `t = sqrdmulh(b, w')`,
//! `r = b·w − t·q` (`mul`, `mls`), so |r| ≤ q. Bounds as multiples of q:
//! forward, canonical input grows by at most q per layer (< 8q for ML-KEM,
//! < 9q for ML-DSA) and is reduced to canonical at the end; inverse, sums
//! double per layer and every lane is Barrett-reduced before layer a + 1,
//! the last of group B to run backwards (its sums would otherwise pass 2^15
//! for ML-KEM), then scaled by 2^−layers and reduced to canonical. No branch or
//! address depends on a coefficient.

// The intrinsics below are called from plain functions, relying on NEON
// being enabled at compile time (it is in every AArch64 target with std);
// a target without it fails here rather than compiling them unchecked.
#[cfg(not(target_feature = "neon"))]
compile_error!("nttfuse's NEON backend needs an AArch64 target with NEON enabled");

pub(super) mod lattice;
pub(super) mod packed;

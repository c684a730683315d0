//! # nttfuse
//!
//! One planner for additive (binary-field) and multiplicative (Montgomery)
//! number-theoretic transforms, for lattice cryptography (ML-KEM, ML-DSA)
//! and STARK / PCS provers (BabyBear, KoalaBear and Goldilocks DFTs and
//! LDEs, GF(2^64) Reed–Solomon encoding with the additive NTT).
//!
//! 1. describe **what** to compute: a [`Transform`];
//! 2. **plan** how to compute it on this machine: [`Planner::plan`] returns a
//!    [`Plan`], plain data you can print and inspect;
//! 3. **execute** it as often as you like, from any thread.
//!
//! `use nttfuse::prelude::*;` brings the types and the field traits.
//!
//! ## Lattice cryptography: ML-KEM and ML-DSA on your own `[i16; 256]`
//!
//! ```
//! use nttfuse::prelude::*;
//! let ntt = Planner::new().plan(&Transform::<MlKem>::negacyclic_forward())?; // FIPS 203 Alg. 9
//! let products = MlKemProducts::new();                                    // Alg. 11/12
//! let (mut a, mut b) = ([7i16; 256], [11i16; 256]);
//! ntt.execute_raw(&mut a)?;
//! ntt.execute_raw(&mut b)?;
//! let mut c = [0i16; 256];
//! products.multiply_accumulate(&[a], &[products.cache(&b)], &mut c)?;
//! # Ok::<(), nttfuse::Error>(())
//! ```
//! Lazy outputs and the kernels' own NTT order ([`Reduction`], [`NttOrder`])
//! for codebases that keep the NTT domain private; [`MlDsa`] and
//! [`MlDsaProducts`] likewise.
//!
//! ## STARK provers: column-major traces, DFTs and coset LDEs
//!
//! ```
//! use nttfuse::prelude::*;
//! // 2^10 rows × 8 columns, row-major (Plonky3's RowMajorMatrix layout).
//! let plan = Planner::new().plan(&Transform::<BabyBear>::dft(10).lanes(8))?;
//! let mut trace = vec![BabyBear::ONE; plan.len()];
//! plan.execute(&mut trace)?;
//! let lde = Planner::new().plan(&Transform::<BabyBear>::coset_lde(10, LogBlowup(1)).lanes(8))?;
//! let mut extended = vec![BabyBear::ZERO; lde.len()];
//! lde.execute_from(&trace, &mut extended)?;
//! # Ok::<(), nttfuse::Error>(())
//! ```
//! The `plonky3` feature adds [`plonky3::NttfuseDft`](crate::plonky3), a
//! `p3_dft::TwoAdicSubgroupDft` drop-in.
//!
//! ## Binary fields and PCS: the additive NTT over GF(2^64)
//!
//! ```
//! use nttfuse::prelude::*;
//! // Reed–Solomon encode at rate ½: 2^9 message rows → 2^10 codeword rows.
//! let encode = Planner::new().plan(&Transform::<Gf2_64>::additive_encode(10, LogBlowup(1)).lanes(4))?;
//! let message = vec![Gf2_64::new(5); encode.input_len()];
//! let mut codeword = vec![Gf2_64::ZERO; encode.len()];
//! encode.execute_from(&message, &mut codeword)?;
//! # Ok::<(), nttfuse::Error>(())
//! ```
//! [`Basis::Cantor`] for p3-binary-dft's convention; [`Gf2_192`] runs
//! through the base field's kernels ([`ExtensionOf`]).
//!
//! ## Plans in tests (snapshot testing)
//!
//! A plan prints as stable text (`println!("{plan}")`: passes, register
//! groups, bounds, cost), the same as the golden files under `plans/`. Three
//! knobs make that text independent of the machine: [`Planner::backend`]
//! (else detected), [`Planner::threads`] (else all cores) and
//! [`Planner::budgets`] (else the detected cache sizes).
//!
//! ```
//! use nttfuse::prelude::*;
//! let plan = Planner::new()
//!     .backend(Backend::Scalar)
//!     .threads(Threads::Count(1))
//!     .budgets(Budgets::fixed(32 << 10, 1 << 20, 32 << 20))
//!     .plan(&Transform::<BabyBear>::dft(12).lanes(8))?;
//! assert!(plan.to_string().starts_with("transform  BabyBear DFT forward, n = 2^12"));
//! # Ok::<(), nttfuse::Error>(())
//! ```
//!
//! Layers of the code, imports pointing downward only:
//! `plan` (planner, plan data, driver) → `backend` (kernels) → `transform`
//! (what a transform is, references) → `field` (what a number is).

#![no_std]
// Targets without a SIMD backend (e.g. thumbv7em) compile the scalar kernels
// only; the SIMD kernels' shared scaffolding (entry-point macros, table
// builders, detection helpers) then has no user there.
#![cfg_attr(
    not(any(target_arch = "x86_64", target_arch = "aarch64")),
    allow(unused)
)]
#![deny(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]

#[macro_use]
extern crate alloc;
#[cfg(any(feature = "std", test))]
extern crate std;

/// Whether the CPU has x86 feature `$f`: detected at run time with `std`;
/// without it, whether the build enables it (`-C target-feature`), so a
/// `no_std` build never runs an instruction its target may lack.
#[cfg(target_arch = "x86_64")]
macro_rules! x86_has {
    ($f:tt) => {{
        #[cfg(feature = "std")]
        {
            std::arch::is_x86_feature_detected!($f)
        }
        #[cfg(not(feature = "std"))]
        {
            cfg!(target_feature = $f)
        }
    }};
}

/// [`x86_has`]'s AArch64 counterpart.
#[cfg(target_arch = "aarch64")]
macro_rules! aarch64_has {
    ($f:tt) => {{
        #[cfg(feature = "std")]
        {
            std::arch::is_aarch64_feature_detected!($f)
        }
        #[cfg(not(feature = "std"))]
        {
            cfg!(target_feature = $f)
        }
    }};
}

pub mod backend;
mod error;
pub mod field;
// Test builds (debug assertions on) only: release builds share no generics.
#[cfg(debug_assertions)]
#[doc(hidden)]
pub mod instances;
#[cfg(feature = "std")]
pub mod out_of_core;
mod par;
pub mod plan;
#[cfg(feature = "plonky3")]
pub mod plonky3;
mod sync;
/// What the unit tests use of `alloc` (the crate is `no_std`, so its
/// prelude has none of it).
#[cfg(test)]
mod test_prelude {
    pub(crate) use alloc::vec::Vec;
}
pub mod transform;

pub use backend::{Backend, Checked, Kernels};
pub use error::Error;
pub use field::{
    BabyBear, BabyBear4, BinaryField, ExtensionOf, Field, Gf2_192, Gf2_64, Goldilocks, KoalaBear,
    MlDsa, MlKem, TwoAdicField,
};
/// The `num-traits` this crate's fields implement (`Zero`, `One`), so
/// `BabyBear4::zero()` and friends work without a dependency of your own.
pub use num_traits;
#[allow(deprecated)]
pub use plan::AdditiveLdePlan;
#[cfg(feature = "std")]
pub use plan::Wisdom;
pub use plan::{
    Budgets, Cost, Group, LdePlan, MlDsaCache, MlDsaProducts, MlKemCache, MlKemProducts, Pass,
    PassKind, Plan, Planner, Spec, Step, Threads,
};
pub use transform::{
    reference, AdditiveLde, Basis, ButterflyKind, CosetLde, Direction, Family, Lde, LogBlowup,
    NttOrder, Order, Reduction, Transform,
};

/// Everything a user of the crate usually names, and the traits whose
/// methods they call (`pow`, `two_adic_generator`, `basis`, …):
/// `use nttfuse::prelude::*;`.
///
/// ```
/// use nttfuse::prelude::*;
/// let w = BabyBear::two_adic_generator(3).unwrap();
/// assert_eq!(w.pow(8), BabyBear::ONE);
/// let plan = Planner::new().plan(&Transform::<MlKem>::negacyclic_forward())?;
/// assert_eq!(plan.len(), 256);
/// # Ok::<(), nttfuse::Error>(())
/// ```
pub mod prelude {
    pub use crate::{
        AdditiveLde, BabyBear, BabyBear4, Backend, Basis, BinaryField, Budgets, CosetLde, Error,
        ExtensionOf, Field, Gf2_192, Gf2_64, Goldilocks, Kernels, KoalaBear, Lde, LdePlan,
        LogBlowup, MlDsa, MlDsaCache, MlDsaProducts, MlKem, MlKemCache, MlKemProducts, NttOrder,
        Order, Plan, Planner, Reduction, Threads, Transform, TwoAdicField,
    };
}

/// Compile-time check: plans can be shared across threads.
const _: () = {
    const fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Plan<MlKem>>();
    assert_send_sync::<Plan<BabyBear>>();
    assert_send_sync::<Plan<Gf2_64>>();
    assert_send_sync::<Plan<MlDsa>>();
    assert_send_sync::<Plan<Gf2_192>>();
    assert_send_sync::<Plan<KoalaBear>>();
    assert_send_sync::<Plan<Goldilocks>>();
};

/// The README's examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

//! # nttfuse
//!
//! One planner for additive (binary-field) and multiplicative (Montgomery)
//! number-theoretic transforms, for lattice cryptography (ML-KEM) and STARK /
//! PCS provers (BabyBear DFTs, GF(2^64) Reed–Solomon encoding).
//!
//! 1. describe **what** to compute: a [`Transform`];
//! 2. **plan** how to compute it on this machine: [`Planner::plan`] returns a
//!    [`Plan`], plain data you can print and inspect;
//! 3. **execute** it as often as you like, from any thread.
//!
//! ```
//! use nttfuse::{Field, MlKem, Planner, Transform};
//! let forward = Planner::new().plan(&Transform::<MlKem>::negacyclic_forward())?;
//! let inverse = Planner::new().plan(&Transform::<MlKem>::negacyclic_inverse())?;
//! let poly: Vec<MlKem> = (0..256).map(|i| MlKem::from_u64(i * 7)).collect();
//! let mut data = poly.clone();
//! forward.execute(&mut data)?;
//! inverse.execute(&mut data)?;
//! assert_eq!(data, poly);
//! println!("{forward}"); // the plan: passes, register groups, cost
//! # Ok::<(), nttfuse::Error>(())
//! ```
//!
//! Layers of the code, imports pointing downward only:
//! `plan` (planner, plan data, driver) → `backend` (kernels) → `transform`
//! (what a transform is, references) → `field` (what a number is).

#![deny(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]

pub mod backend;
mod error;
pub mod field;
pub mod plan;
#[cfg(feature = "plonky3")]
pub mod plonky3;
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
pub use plan::{
    AdditiveLdePlan, Budgets, Cost, Group, LdePlan, MlDsaCache, MlDsaProducts, MlKemCache,
    MlKemProducts, Pass, PassKind, Plan, Planner, Step, Threads,
};
pub use transform::{
    reference, Basis, ButterflyKind, Direction, Family, NttOrder, Order, Reduction, Transform,
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
        AdditiveLdePlan, BabyBear, BabyBear4, Backend, Basis, BinaryField, Budgets, Error,
        ExtensionOf, Field, Gf2_192, Gf2_64, Goldilocks, Kernels, KoalaBear, LdePlan, MlDsa,
        MlDsaCache, MlDsaProducts, MlKem, MlKemCache, MlKemProducts, NttOrder, Order, Plan,
        Planner, Reduction, Threads, Transform, TwoAdicField,
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

//! The generic entry points of every field of this crate, compiled once
//! here: with shared generics (the default at the low optimisation levels of
//! test builds), a test or example that plans and runs these fields links
//! these copies instead of compiling the planner and every kernel again
//! (most of a fresh `cargo test`'s build time was that, once per binary):
//! 278 s against 146 s for a fresh `cargo test --no-run` on a 2-core Intel
//! Xeon. Compiled only with debug assertions (the test profile): optimised
//! release builds do not share generics, so there these copies would only
//! cost time.

use crate::field::{BabyBear, BabyBear4, Gf2_192, Gf2_64, Goldilocks, KoalaBear, MlDsa, MlKem};
use crate::{AdditiveLde, CosetLde};
use crate::{Error, Kernels, LdePlan, Plan, Planner, Transform};

/// Function pointers that make the compiler emit `F`'s instances here.
fn transform<F: Kernels>() -> [usize; 6] {
    [
        Planner::plan::<Transform<F>> as fn(&Planner, &Transform<F>) -> Result<Plan<F>, Error>
            as usize,
        Plan::<F>::execute as fn(&Plan<F>, &mut [F]) -> Result<(), Error> as usize,
        Plan::<F>::execute_from as fn(&Plan<F>, &[F], &mut [F]) -> Result<(), Error> as usize,
        Plan::<F>::execute_with_scratch as fn(&Plan<F>, &mut [F], &mut [F]) -> Result<(), Error>
            as usize,
        <Plan<F> as alloc::string::ToString>::to_string as fn(&Plan<F>) -> alloc::string::String
            as usize,
        core::ptr::drop_in_place::<Plan<F>> as unsafe fn(*mut Plan<F>) as usize,
    ]
}

/// The LDE entry points of `F` (its LDE spec `S`).
fn lde<F: Kernels, S: crate::Spec<Plan = LdePlan<F>>>() -> [usize; 4] {
    [
        Planner::plan::<S> as fn(&Planner, &S) -> Result<LdePlan<F>, Error> as usize,
        LdePlan::<F>::execute as fn(&LdePlan<F>, &mut [F]) -> Result<(), Error> as usize,
        LdePlan::<F>::execute_from as fn(&LdePlan<F>, &[F], &mut [F]) -> Result<(), Error> as usize,
        core::ptr::drop_in_place::<LdePlan<F>> as unsafe fn(*mut LdePlan<F>) as usize,
    ]
}

/// Every instance above (never called: taking the pointers is the point).
#[doc(hidden)]
pub fn all() -> alloc::vec::Vec<usize> {
    let mut v = alloc::vec::Vec::new();
    v.extend(transform::<BabyBear>());
    v.extend(transform::<KoalaBear>());
    v.extend(transform::<Goldilocks>());
    v.extend(transform::<BabyBear4>());
    v.extend(transform::<Gf2_64>());
    v.extend(transform::<Gf2_192>());
    v.extend(transform::<MlKem>());
    v.extend(transform::<MlDsa>());
    v.extend(lde::<BabyBear, CosetLde<BabyBear>>());
    v.extend(lde::<KoalaBear, CosetLde<KoalaBear>>());
    v.extend(lde::<Goldilocks, CosetLde<Goldilocks>>());
    v.extend(lde::<Gf2_64, AdditiveLde<Gf2_64>>());
    v.extend(lde::<Gf2_192, AdditiveLde<Gf2_192>>());
    v
}

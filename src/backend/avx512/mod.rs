//! AVX-512 kernels (x86-64 with AVX-512 F and BW).
//!
//! Every function here is `#[target_feature]`; callers reach it only through
//! [`Backend::check`](super::Backend::check), which detects the features at
//! run time first.

pub(super) mod packed;
pub(crate) mod products;
pub(crate) mod ring;

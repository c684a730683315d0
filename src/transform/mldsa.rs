//! ML-DSA's product in the NTT domain (FIPS 204 Algorithm 45,
//! MultiplyNTT): the NTT is complete, so the product is coefficient-wise.
//! Branch-free on values (constant time).

use crate::field::MlDsa;

/// `ĉ[i] = â[i] · b̂[i]`, the NTT-domain product of two ML-DSA NTT outputs.
///
/// ```
/// use nttfuse::{transform::mldsa::pointwise, MlDsa};
/// let a = [MlDsa::new(3); 256];
/// let b = [MlDsa::new(-1); 256];
/// assert_eq!(pointwise(&a, &b)[0], MlDsa::new(-3));
/// ```
pub fn pointwise(a: &[MlDsa; 256], b: &[MlDsa; 256]) -> [MlDsa; 256] {
    core::array::from_fn(|i| a[i] * b[i])
}

//! Ring plans: the ML-KEM and ML-DSA NTTs over whole polynomials, run by
//! one whole-polynomial kernel per polynomial (`backend::ring`), straight
//! from `execute` (a length check and one indirect call), and on raw words
//! for codebases whose polynomials are `[i16; 256]` / `[i32; 256]`.

use super::{GroupTable, Plan, Step};
use crate::backend::ring::{RingKernel, RingMode};
use crate::backend::{Checked, Kernels};
use crate::error::Error;
use crate::field::{MlDsa, MlKem};
use crate::transform::{Direction, NttOrder, Reduction, Transform};
use alloc::vec::Vec;

/// The ring kernel of a plan whose only group holds whole polynomials, if
/// the field has one; an error if the transform asks for a lazy output or
/// the permuted order and the plan has none (only ring kernels run those).
pub(super) fn ring_kernel<F: Kernels>(
    spec: &Transform<F>,
    kernels: Checked<F>,
    steps: &[Step],
    twiddles: &[Vec<GroupTable<F::Twiddle>>],
    scale: Option<F>,
) -> Result<Option<RingKernel<F::Twiddle>>, Error> {
    // The whole-polynomial group is its pass's only one (a cyclic DFT of
    // 2^8 over ML-DSA has a bit reversal beside it).
    let whole = steps.iter().enumerate().find_map(|(i, step)| match step {
        Step::Pass(pass) if pass.groups.len() == 1 && pass.groups[0].whole_block => Some(i),
        _ => None,
    });
    let mode = RingMode {
        inverse: spec.direction() == Direction::Inverse,
        canonical: spec.reduction_mode() == Reduction::Canonical,
        permuted: spec.ntt_domain_order() == NttOrder::Permuted,
        any_input: false,
    };
    let kernel = whole.and_then(|i| F::ring_kernel(kernels, mode, &twiddles[i][0].data, scale));
    if kernel.is_none() && (!mode.canonical || mode.permuted) {
        return Err(Error::Unsupported {
            what: "a lazy reduction or the permuted NTT order outside whole-polynomial kernels \
                   (they need lanes = 1 and the default register budget)",
        });
    }
    Ok(kernel)
}

impl<F: Kernels> Plan<F> {
    /// `execute` of a ring plan: canonical plans only (elements hold
    /// canonical residues; a lazy plan writes raw words).
    #[inline]
    pub(super) fn execute_ring(
        &self,
        ring: &RingKernel<F::Twiddle>,
        data: &mut [F],
    ) -> Result<(), Error> {
        self.check_len("data", data.len(), self.len())?;
        if self.spec.reduction_mode() == Reduction::Lazy {
            return Err(lazy_needs_raw());
        }
        ring.run(F::ring_words(data));
        Ok(())
    }
}

fn lazy_needs_raw() -> Error {
    Error::Unsupported {
        what: "a lazy plan's output is raw words, not field elements: run it with execute_raw",
    }
}

macro_rules! raw_entry_point {
    ($field:ty, $raw:ty, $q:expr) => {
        impl Plan<$field> {
            #[doc = concat!(
                "Runs the transform in place on raw `", stringify!($raw),
                "` words (e.g. a `[", stringify!($raw), "; 256]` polynomial, or `batch` of them)."
            )]
            ///
            /// A ring plan (the standard NTT or inverse over whole
            /// polynomials) runs straight on the words, zero-copy, within
            /// the input contract its text prints: `|a| < q` for the
            /// forward NTT and the canonical inverse, any word for the lazy
            /// ML-KEM inverse. Words outside the contract are the caller's
            /// error, caught by a debug assertion (as mlkem-native's
            /// contracts are); a lazy plan leaves words within its printed
            /// output bound, a canonical one in `[0, q)`. Any other plan
            /// takes canonical words only:
            /// [`Error::NotCanonical`](crate::Error::NotCanonical) otherwise.
            ///
            /// ```
            #[doc = concat!("use nttfuse::{", stringify!($field), ", Planner, Transform};")]
            #[doc = concat!("let forward = Planner::new().plan(&Transform::<", stringify!($field), ">::negacyclic_forward())?;")]
            #[doc = concat!("let inverse = Planner::new().plan(&Transform::<", stringify!($field), ">::negacyclic_inverse())?;")]
            #[doc = concat!("let mut poly: [", stringify!($raw), "; 256] = core::array::from_fn(|i| i as ", stringify!($raw), ");")]
            /// forward.execute_raw(&mut poly)?;
            /// inverse.execute_raw(&mut poly)?;
            #[doc = concat!("assert!(poly.iter().enumerate().all(|(i, &a)| a == i as ", stringify!($raw), "));")]
            /// # Ok::<(), nttfuse::Error>(())
            /// ```
            pub fn execute_raw(&self, data: &mut [$raw]) -> Result<(), Error> {
                match (self.ring_direct, &self.ring) {
                    (true, Some(ring)) => {
                        self.check_len("data", data.len(), self.len())?;
                        debug_assert!(
                            self.raw_input_in_contract(data),
                            "raw input outside the plan's input contract"
                        );
                        ring.run(data);
                        Ok(())
                    }
                    _ => self.execute(<$field>::try_from_raw_mut(data)?),
                }
            }

            /// For benchmarks: the ring kernel's entry point (one polynomial,
            /// its table) that `execute_raw` calls, so that the call's
            /// overhead can be measured against the bare kernel. `None` for
            /// a plan that is not a ring kernel alone.
            ///
            /// Calling it is `unsafe`: only with this table, on the CPU the
            /// plan was built on (it may use instructions only that CPU has).
            #[doc(hidden)]
            #[allow(clippy::type_complexity)]
            pub fn bare_ring_kernel(&self) -> Option<(unsafe fn(&mut [$raw; 256], &[$raw]), &[$raw])> {
                match (self.ring_direct, &self.ring) {
                    (true, Some(ring)) => Some(ring.parts()),
                    _ => None,
                }
            }

            /// Whether raw input words meet the ring kernel's contract
            /// (debug builds only: it branches on the words).
            fn raw_input_in_contract(&self, data: &[$raw]) -> bool {
                let any = self.spec.direction() == Direction::Inverse
                    && self.spec.reduction_mode() == Reduction::Lazy
                    && <$field as crate::field::Field>::NAME == "MlKem";
                any || data.iter().all(|&a| a.unsigned_abs() < $q as _)
            }
        }
    };
}

raw_entry_point!(MlKem, i16, crate::field::mlkem::Q);
raw_entry_point!(MlDsa, i32, crate::field::mldsa::Q);

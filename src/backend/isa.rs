//! The instruction sets kernels are written for, their run-time detection,
//! and the [`Checked`] token that proves a backend was detected before its
//! kernels run.

use super::kernels::{GroupKernel, Kernels};
use crate::error::Error;
use core::marker::PhantomData;

/// An instruction set the kernels can be written for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// Portable Rust, every CPU.
    Scalar,
    /// x86-64 with AVX-512 F, BW, VL and DQ.
    Avx512,
    /// x86-64 with AVX2 (and, for GF(2^64), VPCLMULQDQ): the SIMD path of
    /// x86-64 CPUs without AVX-512. Kernels for the STARK fields; the
    /// lattice fields run their portable kernels elsewhere.
    Avx2,
    /// AArch64 Advanced SIMD.
    Neon,
}

impl Backend {
    /// The name plans print.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Scalar => "scalar",
            Backend::Avx512 => "avx512",
            Backend::Avx2 => "avx2",
            Backend::Neon => "neon",
        }
    }

    /// Whether this CPU has the instructions the backend needs (without the
    /// `std` feature: whether the build enables them).
    // Without `std` the tests are constants, which clippy would fold.
    #[allow(clippy::nonminimal_bool, clippy::eq_op)]
    pub fn cpu_supports(self) -> bool {
        match self {
            Backend::Scalar => true,
            Backend::Avx512 => {
                #[cfg(target_arch = "x86_64")]
                {
                    x86_has!("avx512f")
                        && x86_has!("avx512bw")
                        && x86_has!("avx512vl")
                        && x86_has!("avx512dq")
                }
                #[cfg(not(target_arch = "x86_64"))]
                {
                    false
                }
            }
            Backend::Avx2 => {
                #[cfg(target_arch = "x86_64")]
                {
                    x86_has!("avx2")
                }
                #[cfg(not(target_arch = "x86_64"))]
                {
                    false
                }
            }
            Backend::Neon => {
                #[cfg(target_arch = "aarch64")]
                {
                    aarch64_has!("neon")
                }
                #[cfg(not(target_arch = "aarch64"))]
                {
                    false
                }
            }
        }
    }

    /// `Ok` if this backend can run transforms over `F` on this CPU, with
    /// the [`Checked`] token that lets this backend's kernels run `F`.
    pub fn check<F: Kernels>(self) -> Result<Checked<F>, Error> {
        if !self.cpu_supports() {
            return Err(Error::BackendUnavailable {
                backend: self.name(),
                reason: "this CPU lacks its instructions".into(),
            });
        }
        if !F::has_kernels(self) {
            return Err(Error::BackendUnavailable {
                backend: self.name(),
                reason: format!("it has no kernels for {} yet", F::NAME),
            });
        }
        Ok(Checked {
            backend: self,
            field: PhantomData,
        })
    }

    /// The compute ceiling of this backend's register groups for `F`, for
    /// benchmarks: runs `rounds` rounds of two radix-8 butterfly sets (the
    /// additive butterfly for binary fields, Cooley–Tukey's for prime fields)
    /// held in registers, on the first 16 registers' worth of `data`, with
    /// the 7 `twiddles` broadcast once and no load or store between rounds.
    /// It is the layer code every register group runs, without the memory
    /// traffic, so a transform's time per butterfly over this one's says how
    /// much goes to memory and loop overhead. Returns the lane-butterflies
    /// run: 24 per lane of a register per round.
    ///
    /// Errors: [`Error::BackendUnavailable`] where this backend cannot run
    /// `F` on this CPU, [`Error::Unsupported`] where it has no packed kernel
    /// for `F` (the scalar backend), [`Error::LengthMismatch`] for `data`
    /// shorter than 256 elements.
    ///
    /// ```
    /// use nttfuse::{Backend, Field, Gf2_64};
    /// let backend = Backend::detect::<Gf2_64>();
    /// let mut data = vec![Gf2_64::new(3); 256];
    /// let twiddles = [Gf2_64::new(0x1234_5678_9abc_def1); 7];
    /// match backend.register_rounds(&mut data, &twiddles, 1000) {
    ///     Ok(butterflies) => assert_eq!(butterflies % 24_000, 0),
    ///     Err(e) => println!("no packed kernel here: {e}"),
    /// }
    /// # Ok::<(), nttfuse::Error>(())
    /// ```
    pub fn register_rounds<F: Kernels>(
        self,
        data: &mut [F],
        twiddles: &[F; 7],
        rounds: usize,
    ) -> Result<u64, Error> {
        let checked = self.check::<F>()?;
        if data.len() < 256 {
            return Err(Error::LengthMismatch {
                what: "register-round data",
                expected: 256,
                got: data.len(),
            });
        }
        let twiddles = twiddles.map(F::prepare_twiddle);
        match F::register_rounds(checked, data, &twiddles, rounds) {
            Some(lanes) => Ok((rounds as u64).saturating_mul(24 * lanes as u64)),
            None => Err(Error::Unsupported {
                what: "register rounds on a backend without a packed kernel for this field",
            }),
        }
    }

    /// The fastest backend that runs `F` on this CPU.
    pub fn detect<F: Kernels>() -> Backend {
        Self::detect_checked::<F>().backend()
    }

    /// [`Backend::detect`], as the token that runs its kernels.
    pub(crate) fn detect_checked<F: Kernels>() -> Checked<F> {
        [
            Backend::Avx512,
            Backend::Avx2,
            Backend::Neon,
            Backend::Scalar,
        ]
        .into_iter()
        .find_map(|b| b.check::<F>().ok())
        .expect("the scalar backend runs every field")
    }

    /// How many values per column the register file holds for a butterfly
    /// set: the largest radix a register group may have on this backend.
    pub fn register_values(self) -> usize {
        match self {
            // 16 general-purpose registers: a radix-8 set plus twiddles and addresses.
            Backend::Scalar => 8,
            // 32 vector registers: radix-16 plus twiddles.
            Backend::Avx512 | Backend::Neon => 16,
            // 16 vector registers: radix-8 plus twiddles (spilled ones are
            // memory operands).
            Backend::Avx2 => 8,
        }
    }
}

/// A [`Backend`] that [`Backend::check`] found able to run `F` on this CPU:
/// the features its kernels for `F` are compiled with were detected at run
/// time. Only `Backend::check` makes one, and every way into a backend's
/// kernels ([`Kernels::run_group`], [`Kernels::run_group_moving`],
/// [`Kernels::register_rounds`]) takes one, so no kernel compiled with
/// instructions this CPU lacks can be reached from safe code.
///
/// ```
/// use nttfuse::{Backend, BabyBear};
/// let checked = Backend::Scalar.check::<BabyBear>()?;
/// assert_eq!(checked.backend(), Backend::Scalar);
/// # Ok::<(), nttfuse::Error>(())
/// ```
pub struct Checked<F> {
    backend: Backend,
    field: PhantomData<fn() -> F>,
}

impl<F> Checked<F> {
    /// The backend that was checked.
    pub fn backend(self) -> Backend {
        self.backend
    }
}

impl<F> Clone for Checked<F> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<F> Copy for Checked<F> {}

impl<F> PartialEq for Checked<F> {
    fn eq(&self, other: &Self) -> bool {
        self.backend == other.backend
    }
}

impl<F> Eq for Checked<F> {}

impl<F> core::fmt::Debug for Checked<F> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Checked({:?})", self.backend)
    }
}

impl Backend {
    /// Runs `group` on every super-block of `buf` with this backend's
    /// kernels, after [`Backend::check`]: [`Error::BackendUnavailable`] if
    /// this CPU (or this field) lacks the backend. Panics on a malformed
    /// group, as [`Checked::run_group`].
    ///
    /// ```
    /// use nttfuse::backend::GroupKernel;
    /// use nttfuse::{Backend, BabyBear, ButterflyKind, Field};
    /// // One radix-2 Cooley–Tukey layer on 2 rows × 1 column, twiddle 1.
    /// let mut buf = vec![BabyBear::from_u64(5), BabyBear::from_u64(3)];
    /// let twiddles = [BabyBear::prepare_twiddle(BabyBear::from_u64(1))];
    /// let group = GroupKernel {
    ///     log_radix: 1,
    ///     log_rows: 1,
    ///     width: 1,
    ///     kind: ButterflyKind::CooleyTukey,
    ///     twiddles: &twiddles,
    ///     scale: None,
    ///     input_bound: 1,
    ///     canonical_output: true,
    ///     whole_block: false,
    /// };
    /// Backend::Scalar.run_group(&mut buf, &group)?;
    /// assert_eq!(buf, [BabyBear::from_u64(8), BabyBear::from_u64(2)]);
    /// # Ok::<(), nttfuse::Error>(())
    /// ```
    pub fn run_group<F: Kernels>(
        self,
        buf: &mut [F],
        group: &GroupKernel<'_, F>,
    ) -> Result<(), Error> {
        self.check::<F>()?.run_group(buf, group);
        Ok(())
    }
}

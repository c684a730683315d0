//! Who computes it: per-ISA kernels behind one small interface.
//!
//! A kernel runs one *register group* — `log_radix` consecutive layers — on a
//! buffer of super-blocks:
//!
//! ```text
//!   buffer = [super-block 0][super-block 1]…   each 2^log_rows rows × width
//!   inside a super-block, radix-2^g butterfly sets of rows
//!   {o, o + s, o + 2s, …}, s = 2^(log_rows − g), share 2^g − 1 twiddles
//! ```
//!
//! Twiddles come in the order the kernel reads them: for each super-block,
//! the group's first layer (1 twiddle), then its second (2), … (heap order).
//! This module also owns the memory kernels that move rows: the strided
//! gather/scatter of gathered passes (`StridedTiles`) and the bit-reversal
//! permutation. It never sees a plan.
//!
//! Each field's kernels are chosen through the [`Kernels`] trait; a backend
//! without kernels for a field is refused by [`Backend::check`] rather than
//! run as scalar code under another name.

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
mod lattice;
mod memory;
#[cfg(target_arch = "aarch64")]
mod neon;
#[allow(dead_code)] // used by the SIMD backends of the target's architecture
mod packed;
pub(crate) mod ring;
mod scalar;

pub(crate) use memory::{
    bit_reverse_rows, bit_reverse_rows_from, for_each_chunk_bit_reversed, store_fence,
    transpose_rows_from,
};
pub(crate) use memory::{RowMoves, RowsFrom, RowsTo, StridedTiles};

use crate::error::Error;
use crate::field::{
    BabyBear4, Field, Gf2_192, Gf2_64, Goldilocks, MlDsa, MlKem, Monty31, MontyParams,
};
use crate::transform::ButterflyKind;
use core::marker::PhantomData;

pub(crate) use lattice::lazy_bounds;
pub use lattice::LazyBounds;

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

    /// Whether this CPU has the instructions the backend needs.
    pub fn cpu_supports(self) -> bool {
        match self {
            Backend::Scalar => true,
            Backend::Avx512 => {
                #[cfg(target_arch = "x86_64")]
                {
                    std::arch::is_x86_feature_detected!("avx512f")
                        && std::arch::is_x86_feature_detected!("avx512bw")
                        && std::arch::is_x86_feature_detected!("avx512vl")
                        && std::arch::is_x86_feature_detected!("avx512dq")
                }
                #[cfg(not(target_arch = "x86_64"))]
                {
                    false
                }
            }
            Backend::Avx2 => {
                #[cfg(target_arch = "x86_64")]
                {
                    std::arch::is_x86_feature_detected!("avx2")
                }
                #[cfg(not(target_arch = "x86_64"))]
                {
                    false
                }
            }
            Backend::Neon => {
                #[cfg(target_arch = "aarch64")]
                {
                    std::arch::is_aarch64_feature_detected!("neon")
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

/// One register group, as a kernel sees it.
#[derive(Clone, Copy, Debug)]
pub struct GroupKernel<'a, F: Field> {
    /// Layers merged (radix 2^log_radix).
    pub log_radix: usize,
    /// log₂ of the rows of one super-block.
    pub log_rows: usize,
    /// Elements per row of the buffer.
    pub width: usize,
    /// The butterfly.
    pub kind: ButterflyKind,
    /// 2^log_radix − 1 twiddles per super-block, heap order.
    pub twiddles: &'a [F::Twiddle],
    /// Multiply every output of the group by this.
    pub scale: Option<F>,
    /// Lazy fields: the bound (multiple of q) of the input words.
    pub input_bound: u32,
    /// Lazy fields: reduce the outputs to canonical form.
    pub canonical_output: bool,
    /// The group holds whole blocks in registers (a whole-block kernel).
    pub whole_block: bool,
}

mod sealed {
    /// Only this crate's fields implement [`Kernels`](super::Kernels): its
    /// methods run `unsafe` kernels on the promises of the field types, and
    /// new ones may be added without breaking anyone.
    pub trait Sealed {}
    impl Sealed for crate::field::MlKem {}
    impl Sealed for crate::field::MlDsa {}
    impl<P: crate::field::MontyParams> Sealed for crate::field::Monty31<P> {}
    impl Sealed for crate::field::Goldilocks {}
    impl Sealed for crate::field::Gf2_64 {}
    impl Sealed for crate::field::Gf2_192 {}
    impl Sealed for crate::field::BabyBear4 {}
}

/// The kernels a field has, per backend: every field of this crate
/// implements it (the trait is sealed), and generic code bounds its field
/// parameter by it (`F: Kernels + TwoAdicField`). Inside the crate, a new
/// field gets the generic scalar kernels with an empty impl; fields with
/// SIMD kernels or deferred reductions override the methods.
pub trait Kernels: Field + sealed::Sealed {
    /// Whether `backend` has kernels for this field.
    fn has_kernels(backend: Backend) -> bool {
        backend == Backend::Scalar
    }

    /// Whether `backend` runs all the layers of a block of 2^log_rows rows ×
    /// `lanes` as one group held in registers (e.g. a whole ML-KEM
    /// polynomial in eight zmm registers).
    fn whole_block_in_registers(
        backend: Backend,
        log_rows: usize,
        lanes: usize,
        layers: usize,
    ) -> bool {
        let _ = (backend, log_rows, lanes, layers);
        false
    }

    /// Whether `backend`'s kernels for this field run only groups that hold
    /// a whole block in registers ([`whole_block_in_registers`]), every other
    /// group falling to the portable kernels: the lattice fields' AVX-512
    /// and NEON kernels, which hold whole polynomials. The planner refuses
    /// such a backend (or, detected, plans scalar) for a plan without a
    /// whole-block group, such as polynomials interleaved across lanes.
    ///
    /// [`whole_block_in_registers`]: Kernels::whole_block_in_registers
    fn only_whole_blocks(backend: Backend) -> bool {
        let _ = backend;
        false
    }

    /// How many final layers of a transform over `lanes` columns `backend`
    /// runs as one *transposed* group (marked `whole_block`): the layers
    /// whose butterflies pair elements closer than a SIMD register (the last
    /// layers of a single column), run on R super-blocks transposed in
    /// registers. 0 when the backend has no such kernel for this field.
    fn transposed_tail(backend: Backend, lanes: usize) -> usize {
        let _ = (backend, lanes);
        0
    }

    /// For fields computed lazily: the bounds of a group of `layers` layers
    /// given its input bound; `None` for fields whose
    /// values stay canonical.
    fn group_bounds(kind: ButterflyKind, layers: usize, input_bound: u32) -> Option<LazyBounds> {
        let _ = (kind, layers, input_bound);
        None
    }

    /// Values per column a register group may hold on `backend` for this
    /// field (its largest radix), unless the budgets say otherwise.
    fn register_values(backend: Backend) -> usize {
        backend.register_values()
    }

    /// Lays out a group's twiddles (given in heap order per super-block: the
    /// first layer's block, then the second layer's two, …) in the order
    /// `backend`'s kernel reads them. Every super-block's table must have
    /// the same length. The default keeps heap order.
    fn layout_twiddles(
        backend: Backend,
        whole_block: bool,
        heap: Vec<Self::Twiddle>,
        superblocks: usize,
    ) -> Vec<Self::Twiddle> {
        let _ = (backend, whole_block, superblocks);
        heap
    }

    /// The name of the kernel that runs a group, as plans print it.
    fn kernel_name(backend: Backend, whole_block: bool) -> &'static str {
        let _ = (backend, whole_block);
        "portable"
    }

    /// Runs `group` on every super-block of `buf` with `backend`'s kernels.
    fn run_group(backend: Checked<Self>, buf: &mut [Self], group: &GroupKernel<'_, Self>) {
        let _ = backend;
        scalar::run_group(buf, group);
    }

    /// [`Kernels::run_group`] with the group's input rows read from
    /// `moves.from` and its output rows written to `moves.to` where given,
    /// in place of `buf`'s rows: a gathered pass's gather and scatter. The
    /// default copies the rows through `buf` around the group; SIMD kernels
    /// load and store them directly, which saves a pass through L1.
    fn run_group_moving(
        backend: Checked<Self>,
        buf: &mut [Self],
        group: &GroupKernel<'_, Self>,
        moves: &mut RowMoves<'_, Self>,
    ) {
        moves_around(buf, moves, |buf| Self::run_group(backend, buf, group));
    }

    /// The whole-polynomial kernel of a lattice ring plan on `backend` (the
    /// ML-KEM and ML-DSA NTTs over whole polynomials), from the transform's
    /// heap-ordered twiddles and, inverse, its scale; `None` for fields
    /// without one. Internal: plans call it.
    #[doc(hidden)]
    fn ring_kernel(
        backend: Checked<Self>,
        mode: ring::RingMode,
        heap: &[Self::Twiddle],
        scale: Option<Self>,
    ) -> Option<ring::RingKernel<Self::Twiddle>> {
        let _ = (backend, mode, heap, scale);
        None
    }

    /// The raw words of elements a ring kernel runs on (the lattice fields'
    /// `repr(transparent)` words). Internal: only plans holding a ring
    /// kernel call it, and only lattice fields have one.
    #[doc(hidden)]
    fn ring_words(data: &mut [Self]) -> &mut [Self::Twiddle] {
        let _ = data;
        unreachable!("only the lattice fields have ring kernels")
    }

    /// For [`Backend::register_rounds`]: runs `rounds` rounds of two radix-8
    /// butterfly sets held in `backend`'s registers and returns the
    /// register's lanes, or `None` where `backend` has no packed kernel for
    /// this field. `data` holds at least 16 registers, `twiddles` 7.
    fn register_rounds(
        backend: Checked<Self>,
        data: &mut [Self],
        twiddles: &[Self::Twiddle],
        rounds: usize,
    ) -> Option<usize> {
        let _ = (backend, data, twiddles, rounds);
        None
    }
}

/// Runs `run` on `buf` between the copies `moves` asks for.
pub(crate) fn moves_around<F: Copy>(
    buf: &mut [F],
    moves: &mut RowMoves<'_, F>,
    run: impl FnOnce(&mut [F]),
) {
    if let Some(from) = &moves.from {
        from.copy_into(buf);
    }
    run(buf);
    if let Some(to) = &mut moves.to {
        to.copy_from(buf);
    }
}

/// Fields with a packed SIMD form: the generic packed kernel on AVX-512 and
/// NEON (runs shorter than a register go to the portable kernel).
macro_rules! packed_kernels {
    ([$($generics:tt)*] $field:ty, kind: $kind:ident, entry: $entry:ident, clmul: $clmul:literal,
     avx512: $avx:ty, $avx_lanes:literal, $avx_name:literal,
     avx2: $avx2:ty, $avx2_lanes:literal, $avx2_name:literal,
     neon: $neon:ty, $neon_lanes:literal, $neon_name:literal) => {
        impl<$($generics)*> Kernels for $field {
            fn has_kernels(backend: Backend) -> bool {
                match backend {
                    Backend::Scalar => true,
                    // The AVX-512 entry point is compiled with VPCLMULQDQ and
                    // GFNI among its features.
                    #[cfg(target_arch = "x86_64")]
                    Backend::Avx512 => {
                        std::arch::is_x86_feature_detected!("vpclmulqdq")
                            && std::arch::is_x86_feature_detected!("gfni")
                    }
                    // GF(2^64)'s AVX2 entry point is compiled with PCLMULQDQ
                    // and VPCLMULQDQ, the prime fields' with AVX2 alone.
                    #[cfg(target_arch = "x86_64")]
                    Backend::Avx2 => {
                        !$clmul
                            || (std::arch::is_x86_feature_detected!("pclmulqdq")
                                && std::arch::is_x86_feature_detected!("vpclmulqdq"))
                    }
                    // GF(2^64)'s NEON entry point is compiled with `aes`
                    // (PMULL), the prime fields' with NEON alone.
                    #[cfg(target_arch = "aarch64")]
                    Backend::Neon => !$clmul || std::arch::is_aarch64_feature_detected!("aes"),
                    _ => false,
                }
            }
            fn register_values(backend: Backend) -> usize {
                match backend {
                    // 8 data registers + 7 broadcast twiddles + the product's temporaries.
                    Backend::Avx512 | Backend::Neon | Backend::Avx2 => 8,
                    _ => backend.register_values(),
                }
            }
            fn transposed_tail(backend: Backend, lanes: usize) -> usize {
                let register = match backend {
                    Backend::Avx512 => $avx_lanes,
                    Backend::Avx2 => $avx2_lanes,
                    Backend::Neon => $neon_lanes,
                    Backend::Scalar => return 0,
                };
                if lanes.is_power_of_two() && lanes < register {
                    (register / lanes).ilog2() as usize
                } else {
                    0
                }
            }
            fn layout_twiddles(
                backend: Backend,
                whole_block: bool,
                heap: Vec<Self::Twiddle>,
                superblocks: usize,
            ) -> Vec<Self::Twiddle> {
                match (backend, whole_block) {
                    (Backend::Avx512 | Backend::Avx2 | Backend::Neon, true) => {
                        packed::transposed_twiddles(&heap, superblocks)
                            .expect("the planner makes transposed groups of whole chunks")
                    }
                    _ => heap,
                }
            }
            fn kernel_name(backend: Backend, whole_block: bool) -> &'static str {
                match (backend, whole_block) {
                    (Backend::Avx512, false) => $avx_name,
                    (Backend::Avx512, true) => concat!($avx_name, ", blocks transposed in registers"),
                    (Backend::Avx2, false) => $avx2_name,
                    (Backend::Avx2, true) => concat!($avx2_name, ", blocks transposed in registers"),
                    (Backend::Neon, false) => $neon_name,
                    (Backend::Neon, true) => concat!($neon_name, ", blocks transposed in registers"),
                    _ => "portable",
                }
            }
            fn run_group(backend: Checked<Self>, buf: &mut [Self], group: &GroupKernel<'_, Self>) {
                match backend.backend() {
                    #[cfg(target_arch = "x86_64")]
                    // SAFETY: a `Checked<Self>` for Backend::Avx512 is only
                    // made by `Backend::check`, after it found AVX-512
                    // F/BW/VL/DQ, VPCLMULQDQ and GFNI on this CPU (the
                    // features of the AVX-512 entry points).
                    Backend::Avx512
                        if group.whole_block || packed_runs_fill_registers(group, $avx_lanes) =>
                    unsafe { avx512::packed::run_group::<$avx>(buf, group) },
                    #[cfg(target_arch = "x86_64")]
                    // SAFETY: a `Checked<Self>` for Backend::Avx2 is only made
                    // by `Backend::check`, after it found AVX2 (and, for
                    // GF(2^64), PCLMULQDQ and VPCLMULQDQ) on this CPU.
                    Backend::Avx2
                        if group.whole_block || packed_runs_fill_registers(group, $avx2_lanes) =>
                    unsafe { avx2::$entry::run_group::<$avx2>(buf, group) },
                    #[cfg(target_arch = "aarch64")]
                    // SAFETY: a `Checked<Self>` for Backend::Neon is only made
                    // by `Backend::check`, after it found NEON (and, for
                    // GF(2^64), the `aes` extension) on this CPU.
                    Backend::Neon
                        if group.whole_block || packed_runs_fill_registers(group, $neon_lanes) =>
                    unsafe { neon::packed::$entry::run_group::<$neon>(buf, group) },
                    _ => {
                        assert!(!group.whole_block, "transposed groups run on SIMD backends");
                        scalar::run_group(buf, group)
                    }
                }
            }
            fn run_group_moving(
                backend: Checked<Self>,
                buf: &mut [Self],
                group: &GroupKernel<'_, Self>,
                moves: &mut RowMoves<'_, Self>,
            ) {
                match backend.backend() {
                    #[cfg(target_arch = "x86_64")]
                    // SAFETY: as in `run_group`.
                    Backend::Avx512 if packed_rows_fill_registers(group, $avx_lanes) => unsafe {
                        avx512::packed::run_group_moving::<$avx>(buf, group, moves)
                    },
                    #[cfg(target_arch = "x86_64")]
                    // SAFETY: as in `run_group`.
                    Backend::Avx2 if packed_rows_fill_registers(group, $avx2_lanes) => unsafe {
                        avx2::$entry::run_group_moving::<$avx2>(buf, group, moves)
                    },
                    #[cfg(target_arch = "aarch64")]
                    // SAFETY: as in `run_group`.
                    Backend::Neon if packed_rows_fill_registers(group, $neon_lanes) => unsafe {
                        neon::packed::$entry::run_group_moving::<$neon>(buf, group, moves)
                    },
                    _ => moves_around(buf, moves, |buf| Self::run_group(backend, buf, group)),
                }
            }
            fn register_rounds(
                backend: Checked<Self>,
                data: &mut [Self],
                twiddles: &[Self::Twiddle],
                rounds: usize,
            ) -> Option<usize> {
                assert!(data.len() >= 16 * 16 && twiddles.len() >= 7);
                match backend.backend() {
                    #[cfg(target_arch = "x86_64")]
                    // SAFETY: as in `run_group`.
                    Backend::Avx512 => unsafe {
                        avx512::packed::register_rounds::<$avx, { packed::$kind }>(data, twiddles, rounds);
                        Some($avx_lanes)
                    },
                    #[cfg(target_arch = "x86_64")]
                    // SAFETY: as in `run_group`.
                    Backend::Avx2 => unsafe {
                        avx2::$entry::register_rounds::<$avx2, { packed::$kind }>(data, twiddles, rounds);
                        Some($avx2_lanes)
                    },
                    #[cfg(target_arch = "aarch64")]
                    // SAFETY: as in `run_group`.
                    Backend::Neon => unsafe {
                        neon::packed::$entry::register_rounds::<$neon, { packed::$kind }>(data, twiddles, rounds);
                        Some($neon_lanes)
                    },
                    _ => None,
                }
            }
        }
    };
}

packed_kernels!([P: MontyParams] Monty31<P>, kind: CT, entry: plain, clmul: false,
    avx512: avx512::packed::PackedMonty31<P>, 16, "avx512 Montgomery",
    avx2: avx2::PackedMonty31<P>, 8, "avx2 Montgomery",
    neon: neon::packed::PackedMonty31<P>, 4, "neon Montgomery");
packed_kernels!([] Gf2_64, kind: ADD, entry: clmul, clmul: true,
    avx512: avx512::packed::PackedGf2_64, 8, "avx512 vpclmulqdq+gfni",
    avx2: avx2::PackedGf2_64, 4, "avx2 vpclmulqdq",
    neon: neon::packed::PackedGf2_64, 2, "neon pmull");
packed_kernels!([] Goldilocks, kind: CT, entry: plain, clmul: false,
    avx512: avx512::packed::PackedGoldilocks, 8, "avx512 Goldilocks",
    avx2: avx2::PackedGoldilocks, 4, "avx2 Goldilocks",
    neon: neon::packed::PackedGoldilocks, 2, "neon Goldilocks");

/// Extension data is best run through a `BabyBear` plan over 4 × the lanes
/// (`ExtensionOf::as_base_slice_mut`); a `BabyBear4` plan uses the portable kernels.
impl Kernels for BabyBear4 {}

/// Extension data is best run through a `Gf2_64` plan over 3 × the lanes
/// (`ExtensionOf::as_base_slice_mut`); a `Gf2_192` plan uses the portable kernels.
impl Kernels for Gf2_192 {}

/// The lattice fields' kernels: whole polynomials (the NTT and its inverse
/// over 256 coefficients, one column each) run as ring kernels on every
/// backend (`backend::ring`); other shapes (interleaved columns, DFTs of
/// other sizes, budgets that force smaller groups) run portable lazy groups.
macro_rules! lattice_kernels {
    ($field:ty, $raw:ty, $layers:literal, $select:ident) => {
        impl Kernels for $field {
            fn has_kernels(backend: Backend) -> bool {
                matches!(
                    backend,
                    Backend::Scalar | Backend::Avx512 | Backend::Avx2 | Backend::Neon
                )
            }
            fn whole_block_in_registers(
                backend: Backend,
                log_rows: usize,
                lanes: usize,
                layers: usize,
            ) -> bool {
                let _ = backend;
                log_rows == 8 && lanes == 1 && layers == $layers
            }
            fn only_whole_blocks(backend: Backend) -> bool {
                backend != Backend::Scalar
            }
            fn group_bounds(
                kind: ButterflyKind,
                layers: usize,
                input_bound: u32,
            ) -> Option<LazyBounds> {
                Some(lazy_bounds::<$field>(kind, layers, input_bound))
            }
            fn kernel_name(backend: Backend, whole_block: bool) -> &'static str {
                let _ = backend;
                if whole_block {
                    "ring kernel"
                } else {
                    "portable lazy"
                }
            }
            fn run_group(backend: Checked<Self>, buf: &mut [Self], group: &GroupKernel<'_, Self>) {
                // Whole polynomials run as the plan's ring kernel, never here.
                let _ = backend;
                assert!(!group.whole_block, "whole polynomials run as ring kernels");
                lattice::run_group(buf, group)
            }
            fn ring_kernel(
                backend: Checked<Self>,
                mode: ring::RingMode,
                heap: &[$raw],
                scale: Option<Self>,
            ) -> Option<ring::RingKernel<$raw>> {
                let scale = scale.map_or(0, <$field>::prepare_twiddle);
                Some(ring::select::$select(backend, mode, heap, scale))
            }
            fn ring_words(data: &mut [Self]) -> &mut [$raw] {
                use crate::field::LatticeField;
                <$field>::raw_slice(data)
            }
        }
    };
}

lattice_kernels!(MlKem, i16, 7, mlkem);
lattice_kernels!(MlDsa, i32, 8, mldsa);

/// Checks the shape every portable kernel relies on: `buf` is whole
/// super-blocks and `twiddles` holds whole sets of 2^log_radix − 1 that cycle
/// over them (one item's blocks, repeated for batched items).
pub(crate) fn assert_twiddle_sets<F: Field>(buf_len: usize, group: &GroupKernel<'_, F>) {
    let superblocks = buf_len / (group.width << group.log_rows);
    let per_set = (1 << group.log_radix) - 1;
    let sets = group.twiddles.len() / per_set;
    assert!(
        sets > 0
            && superblocks.is_multiple_of(sets)
            && group.twiddles.len().is_multiple_of(per_set),
        "twiddle sets cycle over the super-blocks"
    );
}

/// Whether a group's contiguous runs (row j of a butterfly set) hold at
/// least one full register of `lanes` elements. Shorter runs (the last
/// layers of a single column) would fill a register with one or two lanes:
/// the portable kernel, which handles them side by side, is faster there.
fn packed_runs_fill_registers<F: Field>(group: &GroupKernel<'_, F>, lanes: usize) -> bool {
    (group.width << group.log_rows) >> group.log_radix >= lanes
}

/// Whether a group's rows are whole registers of `lanes` elements, as the
/// packed kernel that moves rows needs (it loads row by row).
fn packed_rows_fill_registers<F: Field>(group: &GroupKernel<'_, F>, lanes: usize) -> bool {
    !group.whole_block
        && group.width.is_multiple_of(lanes)
        && packed_runs_fill_registers(group, lanes)
}

impl<F: Kernels> Checked<F> {
    /// [`Checked::run_group`] with row moves (see [`Kernels::run_group_moving`]).
    pub(crate) fn run_group_moving(
        self,
        buf: &mut [F],
        group: &GroupKernel<'_, F>,
        moves: &mut RowMoves<'_, F>,
    ) {
        assert_whole_superblocks(buf.len(), group);
        F::run_group_moving(self, buf, group, moves);
    }

    /// Runs `group` on every super-block of `buf` with this backend's
    /// kernels.
    ///
    /// Panics unless `buf.len()` is a multiple of `width · 2^log_rows` and
    /// `twiddles` holds `2^log_radix − 1` entries per super-block (or, for a
    /// group marked `whole_block`, the table the field's kernel reads).
    /// Fields computed lazily (the lattice fields) must ask for canonical
    /// output here: their elements hold canonical residues, and a lazy
    /// word written into one would break its equality and hashing.
    pub fn run_group(self, buf: &mut [F], group: &GroupKernel<'_, F>) {
        if !group.whole_block {
            assert_twiddle_sets(buf.len(), group);
        }
        assert!(
            group.canonical_output
                || F::group_bounds(group.kind, group.log_radix, group.input_bound).is_none(),
            "a lazily reduced field's group run on its own must return canonical values"
        );
        self.run(buf, group);
    }

    /// [`Checked::run_group`] for the executor, whose groups may leave lazy
    /// words for the next group of the same plan.
    pub(crate) fn run(self, buf: &mut [F], group: &GroupKernel<'_, F>) {
        assert_whole_superblocks(buf.len(), group);
        F::run_group(self, buf, group);
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

/// Checks that `buf_len` elements are whole super-blocks of `group`.
fn assert_whole_superblocks<F: Field>(buf_len: usize, group: &GroupKernel<'_, F>) {
    let sb_len = group
        .width
        .checked_shl(group.log_rows as u32)
        .filter(|&l| l >> group.log_rows == group.width);
    assert!(
        sb_len.is_some_and(|l| l > 0 && buf_len.is_multiple_of(l)),
        "buffer is whole super-blocks"
    );
}

//! Which kernel runs which field on which ISA: the `Kernels` impls of every
//! field. Packed fields (31-bit Montgomery, Goldilocks, GF(2^64)) run the
//! generic packed register-group kernel with their packed type per ISA, as
//! the table below says, one row per field; the lattice fields run whole
//! polynomials as ring kernels (`backend::ring`) and other shapes as
//! portable lazy groups.
//!
//! Adding a packed field is its packed types (one per ISA, in the ISA's
//! module) plus one row here. Adding an ISA is its module (packed types and
//! one `packed_entry_points!` per feature set), one associated type in
//! [`PackedField`], one entry per row, and one arm per method of the
//! blanket `Kernels` impl below.

use super::kernels::{
    moves_around, packed_rows_fill_registers, packed_runs_fill_registers, GroupKernel, Kernels,
};
use super::lattice::{self, lazy_bounds, LazyBounds};
use super::memory::RowMoves;
#[cfg(target_arch = "aarch64")]
use super::neon;
use super::packed::{self, Absent, Entry};
#[cfg(target_arch = "x86_64")]
use super::{avx2, avx512};
use super::{ring, scalar, Backend, Checked};
use crate::field::{
    BabyBear4, Field, Gf2_192, Gf2_64, Goldilocks, MlDsa, MlKem, Monty31, MontyParams,
};
use crate::transform::{ButterflyKind, Constructors};
use alloc::vec::Vec;

/// A field with packed kernels: its butterfly family and, per ISA, the
/// entry points and packed type that run it ([`Absent`] where this build
/// does not compile the ISA).
pub(crate) trait PackedField: Field {
    /// `packed::CT` (multiplicative) or `packed::ADD` (additive).
    const KIND: u8;
    /// AVX-512 (x86-64).
    type Avx512: Entry<F = Self>;
    /// AVX2 (x86-64).
    type Avx2: Entry<F = Self>;
    /// NEON (AArch64).
    type Neon: Entry<F = Self>;
    /// The transforms a plan's text reads back into.
    fn constructors() -> Constructors<Self>;
}

// The table: one row per packed field.

impl<P: MontyParams> PackedField for Monty31<P> {
    const KIND: u8 = packed::CT;
    #[cfg(target_arch = "x86_64")]
    type Avx512 = avx512::packed::Kernel<avx512::packed::PackedMonty31<P>>;
    #[cfg(target_arch = "x86_64")]
    type Avx2 = avx2::plain::Kernel<avx2::PackedMonty31<P>>;
    #[cfg(target_arch = "aarch64")]
    type Neon = neon::packed::plain::Kernel<neon::packed::PackedMonty31<P>>;
    #[cfg(not(target_arch = "x86_64"))]
    type Avx512 = Absent<Self>;
    #[cfg(not(target_arch = "x86_64"))]
    type Avx2 = Absent<Self>;
    #[cfg(not(target_arch = "aarch64"))]
    type Neon = Absent<Self>;
    fn constructors() -> Constructors<Self> {
        Constructors::two_adic()
    }
}

impl PackedField for Goldilocks {
    const KIND: u8 = packed::CT;
    #[cfg(target_arch = "x86_64")]
    type Avx512 = avx512::packed::Kernel<avx512::packed::PackedGoldilocks>;
    #[cfg(target_arch = "x86_64")]
    type Avx2 = avx2::plain::Kernel<avx2::PackedGoldilocks>;
    #[cfg(target_arch = "aarch64")]
    type Neon = neon::packed::plain::Kernel<neon::packed::PackedGoldilocks>;
    #[cfg(not(target_arch = "x86_64"))]
    type Avx512 = Absent<Self>;
    #[cfg(not(target_arch = "x86_64"))]
    type Avx2 = Absent<Self>;
    #[cfg(not(target_arch = "aarch64"))]
    type Neon = Absent<Self>;
    fn constructors() -> Constructors<Self> {
        Constructors::two_adic()
    }
}

impl PackedField for Gf2_64 {
    const KIND: u8 = packed::ADD;
    #[cfg(target_arch = "x86_64")]
    type Avx512 = avx512::packed::Kernel<avx512::packed::PackedGf2_64>;
    #[cfg(target_arch = "x86_64")]
    type Avx2 = avx2::clmul::Kernel<avx2::PackedGf2_64>;
    #[cfg(target_arch = "aarch64")]
    type Neon = neon::packed::clmul::Kernel<neon::packed::PackedGf2_64>;
    #[cfg(not(target_arch = "x86_64"))]
    type Avx512 = Absent<Self>;
    #[cfg(not(target_arch = "x86_64"))]
    type Avx2 = Absent<Self>;
    #[cfg(not(target_arch = "aarch64"))]
    type Neon = Absent<Self>;
    fn constructors() -> Constructors<Self> {
        Constructors::binary()
    }
}

/// Every packed field's kernels, read from its row.
impl<F: PackedField> Kernels for F {
    fn constructors() -> Constructors<Self> {
        <F as PackedField>::constructors()
    }
    fn has_kernels(backend: Backend) -> bool {
        match backend {
            Backend::Scalar => true,
            Backend::Avx512 => F::Avx512::available(),
            Backend::Avx2 => F::Avx2::available(),
            Backend::Neon => F::Neon::available(),
        }
    }
    fn register_values(backend: Backend) -> usize {
        match backend {
            // 32 zmm: 16 data registers, the twiddles of the layer at hand
            // and the product's temporaries; the others wait in L1 (a
            // broadcast reload is a load, no ALU work). Radix 16 measured
            // faster than radix 8 on an Intel Xeon (AVX-512, 1 thread, same
            // process): BabyBear DFT 2^16 × 256 0.94 ×, GF(2^64) NTT 0.95 ×,
            // Goldilocks 2^16 × 256 0.94 ×, single columns 0.97–1.00 ×.
            Backend::Avx512 => 16,
            // 8 data registers + 7 broadcast twiddles + the product's
            // temporaries (AVX2 has 16 ymm registers).
            Backend::Neon | Backend::Avx2 => 8,
            _ => backend.register_values(),
        }
    }
    fn transposed_tail(backend: Backend, lanes: usize) -> usize {
        let register = match backend {
            Backend::Avx512 => F::Avx512::LANES,
            Backend::Avx2 => F::Avx2::LANES,
            Backend::Neon => F::Neon::LANES,
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
        if !whole_block || backend == Backend::Scalar {
            return heap;
        }
        let standard = packed::transposed_twiddles(&heap, superblocks)
            .expect("the planner makes transposed groups of whole chunks");
        match backend {
            Backend::Avx512 => F::Avx512::lane_table(standard),
            Backend::Avx2 => F::Avx2::lane_table(standard),
            Backend::Neon => F::Neon::lane_table(standard),
            Backend::Scalar => standard,
        }
    }
    fn shift_twiddles(backend: Backend, kind: ButterflyKind, twiddles: &[Self::Twiddle]) -> bool {
        match backend {
            Backend::Avx512 => F::Avx512::shift_twiddles(kind, twiddles),
            Backend::Avx2 => F::Avx2::shift_twiddles(kind, twiddles),
            Backend::Neon => F::Neon::shift_twiddles(kind, twiddles),
            Backend::Scalar => false,
        }
    }
    fn kernel_name(backend: Backend, whole_block: bool) -> &'static str {
        match (backend, whole_block) {
            (Backend::Avx512, false) => F::Avx512::NAME,
            (Backend::Avx512, true) => F::Avx512::TRANSPOSED_NAME,
            (Backend::Avx2, false) => F::Avx2::NAME,
            (Backend::Avx2, true) => F::Avx2::TRANSPOSED_NAME,
            (Backend::Neon, false) => F::Neon::NAME,
            (Backend::Neon, true) => F::Neon::TRANSPOSED_NAME,
            _ => "portable",
        }
    }
    fn run_group(backend: Checked<Self>, buf: &mut [Self], group: &GroupKernel<'_, Self>) {
        let fills = |lanes| group.whole_block || packed_runs_fill_registers(group, lanes);
        match backend.backend() {
            // SAFETY (each arm): a `Checked<Self>` for a backend is only made
            // by `Backend::check`, after it found the backend's features and
            // `has_kernels` (the entry's `available`) on this CPU.
            Backend::Avx512 if fills(F::Avx512::LANES) => unsafe {
                F::Avx512::run_group(buf, group)
            },
            // SAFETY: as above.
            Backend::Avx2 if fills(F::Avx2::LANES) => unsafe { F::Avx2::run_group(buf, group) },
            // SAFETY: as above.
            Backend::Neon if fills(F::Neon::LANES) => unsafe { F::Neon::run_group(buf, group) },
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
        let fills = |lanes| packed_rows_fill_registers(group, lanes);
        match backend.backend() {
            // SAFETY: as in `run_group`.
            Backend::Avx512 if fills(F::Avx512::LANES) => unsafe {
                F::Avx512::run_group_moving(buf, group, moves)
            },
            // SAFETY: as in `run_group`.
            Backend::Avx2 if fills(F::Avx2::LANES) => unsafe {
                F::Avx2::run_group_moving(buf, group, moves)
            },
            // SAFETY: as in `run_group`.
            Backend::Neon if fills(F::Neon::LANES) => unsafe {
                F::Neon::run_group_moving(buf, group, moves)
            },
            _ => moves_around(buf, moves, |buf| Self::run_group(backend, buf, group)),
        }
    }
    fn mul_add(
        backend: Checked<Self>,
        dst: &mut [Self],
        a: Option<&[Self]>,
        b: &[Self],
        c: Self::Twiddle,
    ) {
        assert!(b.len() >= dst.len() && a.is_none_or(|a| a.len() >= dst.len()));
        match backend.backend() {
            // SAFETY: as in `run_group`.
            Backend::Avx512 => unsafe { F::Avx512::mul_add(dst, a, b, c) },
            // SAFETY: as in `run_group`.
            Backend::Avx2 => unsafe { F::Avx2::mul_add(dst, a, b, c) },
            // SAFETY: as in `run_group`.
            Backend::Neon => unsafe { F::Neon::mul_add(dst, a, b, c) },
            Backend::Scalar => scalar::mul_add(dst, a, b, c),
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
            // SAFETY: as in `run_group`.
            Backend::Avx512 => unsafe {
                F::Avx512::register_rounds(F::KIND, data, twiddles, rounds);
                Some(F::Avx512::LANES)
            },
            // SAFETY: as in `run_group`.
            Backend::Avx2 => unsafe {
                F::Avx2::register_rounds(F::KIND, data, twiddles, rounds);
                Some(F::Avx2::LANES)
            },
            // SAFETY: as in `run_group`.
            Backend::Neon => unsafe {
                F::Neon::register_rounds(F::KIND, data, twiddles, rounds);
                Some(F::Neon::LANES)
            },
            Backend::Scalar => None,
        }
    }
}

/// Extension data is best run through a `BabyBear` plan over 4 × the lanes
/// (`ExtensionOf::as_base_slice_mut`); a `BabyBear4` plan uses the portable kernels.
impl Kernels for BabyBear4 {
    fn constructors() -> Constructors<Self> {
        Constructors::two_adic()
    }
}

/// Extension data is best run through a `Gf2_64` plan over 3 × the lanes
/// (`ExtensionOf::as_base_slice_mut`); a `Gf2_192` plan uses the portable kernels.
impl Kernels for Gf2_192 {
    fn constructors() -> Constructors<Self> {
        Constructors::binary()
    }
}

/// The lattice fields' kernels: whole polynomials (the NTT and its inverse
/// over 256 coefficients, one column each) run as ring kernels on every
/// backend (`backend::ring`); other shapes (interleaved columns, DFTs of
/// other sizes, budgets that force smaller groups) run portable lazy groups.
macro_rules! lattice_kernels {
    ($field:ty, $raw:ty, $layers:literal, $select:ident) => {
        impl Kernels for $field {
            fn constructors() -> Constructors<Self> {
                Constructors::ring(
                    crate::Transform::<$field>::negacyclic_forward,
                    crate::Transform::<$field>::negacyclic_inverse,
                )
            }
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

//! Which kernel runs which field on which ISA: the `Kernels` impls of every
//! field. Packed fields (31-bit Montgomery, Goldilocks, GF(2^64)) run the
//! generic packed register-group kernel instantiated per ISA with their
//! packed type; the lattice fields run whole polynomials as ring kernels
//! (`backend::ring`) and other shapes as portable lazy groups. Adding an ISA
//! is one kernel module plus one arm per macro here; adding a packed field
//! is its packed types plus one `packed_kernels!` row.

use super::kernels::{
    moves_around, packed_rows_fill_registers, packed_runs_fill_registers, GroupKernel, Kernels,
};
use super::lattice::{self, lazy_bounds, LazyBounds};
use super::memory::RowMoves;
#[cfg(target_arch = "aarch64")]
use super::neon;
#[cfg(target_arch = "x86_64")]
use super::{avx2, avx512};
use super::{packed, ring, scalar, Backend, Checked};
use crate::field::{
    BabyBear4, Field, Gf2_192, Gf2_64, Goldilocks, MlDsa, MlKem, Monty31, MontyParams,
};
use crate::transform::ButterflyKind;
use alloc::vec::Vec;

/// The constructors of a packed field: the multiplicative families for
/// Cooley–Tukey fields, the additive one for binary fields.
macro_rules! constructors {
    (CT) => {
        crate::transform::Constructors::two_adic()
    };
    (ADD) => {
        crate::transform::Constructors::binary()
    };
}

/// Fields with a packed SIMD form: the generic packed kernel on AVX-512 and
/// NEON (runs shorter than a register go to the portable kernel).
macro_rules! packed_kernels {
    ([$($generics:tt)*] $field:ty, kind: $kind:ident, entry: $entry:ident, clmul: $clmul:literal,
     avx512: $avx:ty, $avx_lanes:literal, $avx_name:literal,
     avx2: $avx2:ty, $avx2_lanes:literal, $avx2_name:literal,
     neon: $neon:ty, $neon_lanes:literal, $neon_name:literal) => {
        impl<$($generics)*> Kernels for $field {
            fn constructors() -> crate::transform::Constructors<Self> {
                constructors!($kind)
            }
            fn has_kernels(backend: Backend) -> bool {
                match backend {
                    Backend::Scalar => true,
                    // The AVX-512 entry point is compiled with VPCLMULQDQ and
                    // GFNI among its features.
                    #[cfg(target_arch = "x86_64")]
                    Backend::Avx512 => {
                        x86_has!("vpclmulqdq")
                            && x86_has!("gfni")
                    }
                    // GF(2^64)'s AVX2 entry point is compiled with PCLMULQDQ
                    // and VPCLMULQDQ, the prime fields' with AVX2 alone.
                    #[cfg(target_arch = "x86_64")]
                    Backend::Avx2 => {
                        !$clmul
                            || (x86_has!("pclmulqdq")
                                && x86_has!("vpclmulqdq"))
                    }
                    // GF(2^64)'s NEON entry point is compiled with `aes`
                    // (PMULL), the prime fields' with NEON alone.
                    #[cfg(target_arch = "aarch64")]
                    Backend::Neon => !$clmul || aarch64_has!("aes"),
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
impl Kernels for BabyBear4 {
    fn constructors() -> crate::transform::Constructors<Self> {
        crate::transform::Constructors::two_adic()
    }
}

/// Extension data is best run through a `Gf2_64` plan over 3 × the lanes
/// (`ExtensionOf::as_base_slice_mut`); a `Gf2_192` plan uses the portable kernels.
impl Kernels for Gf2_192 {
    fn constructors() -> crate::transform::Constructors<Self> {
        crate::transform::Constructors::binary()
    }
}

/// The lattice fields' kernels: whole polynomials (the NTT and its inverse
/// over 256 coefficients, one column each) run as ring kernels on every
/// backend (`backend::ring`); other shapes (interleaved columns, DFTs of
/// other sizes, budgets that force smaller groups) run portable lazy groups.
macro_rules! lattice_kernels {
    ($field:ty, $raw:ty, $layers:literal, $select:ident) => {
        impl Kernels for $field {
            fn constructors() -> crate::transform::Constructors<Self> {
                crate::transform::Constructors::ring(
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

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
    bit_reverse_rows, bit_reverse_rows_from, for_each_chunk_bit_reversed, reversal_is_blocked,
    store_fence, transpose_rows_from,
};
pub(crate) use memory::{Folded, RowMoves, RowsFrom, RowsTo, StridedTiles};

mod dispatch;
mod isa;
mod kernels;

pub use isa::{Backend, Checked};
pub(crate) use kernels::assert_twiddle_sets;
pub(crate) use kernels::moves_around;
pub use kernels::{GroupKernel, Kernels};

pub use lattice::LazyBounds;

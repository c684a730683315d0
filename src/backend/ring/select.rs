//! Which whole-polynomial kernel runs a ring plan: one row per backend and
//! field (the lane type, its table layout), chosen after `Backend::check`.

use super::tables::{forward_table, inverse_table, TwiddleVectors};
use super::{portable, RingFns, RingKernel, RingMode};
#[cfg(target_arch = "x86_64")]
use super::{DsaMontgomery, KemMontgomery};
use crate::backend::{Backend, Checked};
use crate::field::{MlDsa, MlKem};
use alloc::{string::String, string::ToString, vec::Vec};

/// The table of a SIMD kernel for `mode`.
fn simd_table<T: TwiddleVectors>(mode: RingMode, heap: &[T::Word], scale: T::Word) -> Vec<T::Word> {
    if mode.inverse {
        inverse_table::<T>(heap, scale)
    } else {
        forward_table::<T>(heap)
    }
}

/// How a kernel of `T`'s shape walks the layers, as plans print it.
fn shape_text<T: TwiddleVectors>(isa: &str, register: &str) -> String {
    let stages = (T::LANES * core::mem::size_of::<T::Word>() / 4).trailing_zeros() as usize;
    let inter = T::BLOCK.trailing_zeros() as usize;
    let split = T::LAYERS - inter - stages;
    let range = |a: usize, b: usize| {
        if a + 1 == b {
            format!("layer {b}")
        } else {
            format!("layers {}-{b}", a + 1)
        }
    };
    let inside = format!(
        "{} between {} {register}, {} inside them",
        range(split, split + inter),
        T::BLOCK,
        range(split + inter, T::LAYERS)
    );
    if split == 0 {
        format!("{isa}: {inside}")
    } else {
        format!(
            "{isa}: {} across {} parts, then per part {inside}",
            range(0, split),
            1 << split
        )
    }
}

/// How the AVX2 kernels (`RingLanes::INTERLEAVE` = 2) run their parts.
#[cfg(target_arch = "x86_64")]
const TOGETHER: &str = " (two parts at a time, layer by layer)";

/// The contract of a mode, as plans print it.
fn contract(mode: RingMode, lazy_forward_bound: u32, word: &str) -> String {
    let order = if mode.permuted {
        "permuted order"
    } else {
        "standard order"
    };
    if mode.inverse {
        let input = if mode.any_input {
            format!("any {word}")
        } else {
            "|a| < q".to_string()
        };
        let output = if mode.canonical {
            "canonical"
        } else {
            "|a| < q (lazy)"
        };
        format!("in {input}, {order}; out {output}")
    } else {
        let output = if mode.canonical {
            "canonical".to_string()
        } else {
            format!("|a| < {lazy_forward_bound}q (lazy)")
        };
        format!("in |a| < q; out {output}, {order}")
    }
}

/// Builds a kernel of `fns` with `T`'s table.
///
/// # Safety
/// The CPU has `fns`'s target features, and `T` is the table layout of the
/// lane type `fns` was compiled for.
#[allow(dead_code)] // used by the SIMD backends of the target's architecture
unsafe fn simd<T: TwiddleVectors>(
    fns: &RingFns<T::Word>,
    mode: RingMode,
    heap: &[T::Word],
    scale: T::Word,
    text: String,
) -> RingKernel<T::Word>
where
    T::Word: Copy,
{
    let table = simd_table::<T>(mode, heap, scale);
    // SAFETY: as this function's contract.
    unsafe { RingKernel::new(fns, mode, table, text) }
}

/// The portable kernel of `fns`.
fn portable_kernel<F: portable::PortableRing>(
    fns: &RingFns<F::Raw>,
    mode: RingMode,
    heap: &[F::Raw],
    scale: F::Raw,
    text: String,
) -> RingKernel<F::Raw> {
    let table = if mode.inverse {
        portable::inverse_table::<F>(heap, scale)
    } else {
        portable::forward_table::<F>(heap)
    };
    // SAFETY: portable code needs no CPU feature; the table is its own.
    unsafe { RingKernel::new(fns, mode, table, text) }
}

/// The ML-KEM kernel of `backend` for `mode`, from the transform's heap-
/// ordered Montgomery twiddles (127) and, inverse, its scale.
pub(crate) fn mlkem(
    backend: Checked<MlKem>,
    mode: RingMode,
    heap: &[i16],
    scale: i16,
) -> RingKernel<i16> {
    // ML-KEM's lazy inverse takes any word (its first layer reduces).
    let mode = RingMode {
        any_input: mode.inverse && !mode.canonical,
        ..mode
    };
    let contract = contract(mode, 8, "i16");
    // The AVX2 kernels' input reduction multiplies by 2^−16 (Montgomery, two
    // multiplies deep); their scale carries 2^16 back.
    #[cfg(target_arch = "x86_64")]
    let avx2_scale = super::kem_input_scale(scale, mode.inverse && mode.any_input);
    match backend.backend() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a `Checked<MlKem>` for AVX-512 is made only after AVX-512
        // F/BW were detected; the table is the 32-lane Montgomery layout.
        Backend::Avx512 => unsafe {
            type T = KemMontgomery<32, 8>;
            let text = format!(
                "{}, a batch's polynomials two at a time; {contract}",
                shape_text::<T>("avx512", "zmm")
            );
            simd::<T>(
                &crate::backend::avx512::ring::MLKEM,
                mode,
                heap,
                scale,
                text,
            )
        },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above, with AVX2 detected and the 16-lane layout.
        Backend::Avx2 => unsafe {
            type T = KemMontgomery<16, 8>;
            let text = format!("{}{TOGETHER}; {contract}", shape_text::<T>("avx2", "ymm"));
            simd::<T>(
                &crate::backend::avx2::ring::MLKEM,
                mode,
                heap,
                avx2_scale,
                text,
            )
        },
        #[cfg(target_arch = "aarch64")]
        // SAFETY: as above, NEON detected, its own table layout.
        Backend::Neon => unsafe {
            type T = crate::backend::neon::ring::KemTwiddles;
            let text = format!("{}; {contract}", shape_text::<T>("neon", "q registers"));
            simd::<T>(&crate::backend::neon::ring::MLKEM, mode, heap, scale, text)
        },
        _ => portable_kernel::<MlKem>(
            &portable::MLKEM,
            mode,
            heap,
            scale,
            format!("portable: layer by layer; {contract}"),
        ),
    }
}

/// The ML-DSA kernel of `backend` for `mode` (255 twiddles).
pub(crate) fn mldsa(
    backend: Checked<MlDsa>,
    mode: RingMode,
    heap: &[i32],
    scale: i32,
) -> RingKernel<i32> {
    let contract = contract(mode, 9, "i32");
    match backend.backend() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a `Checked<MlDsa>` for AVX-512 is made only after AVX-512
        // F was detected; the table is the 16-lane Montgomery layout.
        Backend::Avx512 => unsafe {
            type T = DsaMontgomery<16, 16>;
            let text = format!("{}; {contract}", shape_text::<T>("avx512", "zmm"));
            simd::<T>(
                &crate::backend::avx512::ring::MLDSA,
                mode,
                heap,
                scale,
                text,
            )
        },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above, with AVX2 detected and the 8-lane layout.
        Backend::Avx2 => unsafe {
            type T = DsaMontgomery<8, 8>;
            let text = format!("{}{TOGETHER}; {contract}", shape_text::<T>("avx2", "ymm"));
            simd::<T>(&crate::backend::avx2::ring::MLDSA, mode, heap, scale, text)
        },
        #[cfg(target_arch = "aarch64")]
        // SAFETY: as above, NEON detected, its own table layout.
        Backend::Neon => unsafe {
            type T = crate::backend::neon::ring::DsaTwiddles;
            let text = format!("{}; {contract}", shape_text::<T>("neon", "q registers"));
            simd::<T>(&crate::backend::neon::ring::MLDSA, mode, heap, scale, text)
        },
        _ => portable_kernel::<MlDsa>(
            &portable::MLDSA,
            mode,
            heap,
            scale,
            format!("portable: layer by layer; {contract}"),
        ),
    }
}

/// The ML-KEM product kernels of `backend` (AVX-512 with VNNI where the
/// CPU has it; scalar: the portable ones, which the compiler vectorises).
pub(crate) fn kem_products(backend: Checked<MlKem>) -> &'static super::products::KemProductFns {
    match backend.backend() {
        #[cfg(target_arch = "x86_64")]
        Backend::Avx512 if x86_has!("avx512vnni") => {
            &crate::backend::avx512::products::kem_vnni::FNS
        }
        #[cfg(target_arch = "x86_64")]
        Backend::Avx512 => &crate::backend::avx512::products::kem::FNS,
        #[cfg(target_arch = "x86_64")]
        Backend::Avx2 => &crate::backend::avx2::products::kem::FNS,
        #[cfg(target_arch = "aarch64")]
        Backend::Neon => &crate::backend::neon::products::kem::FNS,
        _ => &super::products::portable::KEM_PRODUCTS,
    }
}

/// The ML-DSA product kernels of `backend`.
pub(crate) fn dsa_products(backend: Checked<MlDsa>) -> &'static super::products::DsaProductFns {
    match backend.backend() {
        #[cfg(target_arch = "x86_64")]
        Backend::Avx512 => &crate::backend::avx512::products::DSA_PRODUCTS,
        #[cfg(target_arch = "x86_64")]
        Backend::Avx2 => &crate::backend::avx2::products::DSA_PRODUCTS,
        #[cfg(target_arch = "aarch64")]
        Backend::Neon => &crate::backend::neon::products::DSA_PRODUCTS,
        _ => &super::products::portable::DSA_PRODUCTS,
    }
}

//! NEON packed forms of the fields, for the generic register-group kernel of
//! `backend::packed`: 2 × u64 (GF(2^64), `pmull`) and 4 × u32 (31-bit
//! Montgomery fields) per q register. Tails shorter than a register go
//! through a small stack buffer.

use crate::backend::packed::Packed;
use crate::field::FOLD_TOP_NIBBLE;
use crate::field::{Gf2_64, Monty31, MontyParams, ShoupTwiddle};
use core::arch::aarch64::*;

/// The packed kernel compiled with NEON alone (the prime fields), so CPUs
/// without the crypto extension (Cortex-A72 in a Raspberry Pi 4, some A53
/// parts) still run them.
pub(crate) mod plain {
    // `run_group` and `run_group_moving`, compiled with NEON: callers reach
    // them only after `Backend::check` found NEON.
    crate::backend::packed::packed_entry_points!("neon", available: true);
}

/// The packed kernel compiled with NEON and `aes` (PMULL), for GF(2^64).
pub(crate) mod clmul {
    // `run_group` and `run_group_moving`, compiled with NEON and `aes`:
    // callers reach them only after `Backend::check` and
    // `Kernels::has_kernels` found both.
    crate::backend::packed::packed_entry_points!("neon,aes", available: aarch64_has!("aes"));
}

/// GF(2^64), 2 lanes: `pmull`/`pmull2` products, reduced in vector
/// registers (shifts, XORs and one `tbl` lookup, [`FOLD_TOP_NIBBLE`]).
#[derive(Clone, Copy)]
pub(crate) struct PackedGf2_64(uint64x2_t);

impl Packed for PackedGf2_64 {
    const NAME: &'static str = "neon pmull";
    const TRANSPOSED_NAME: &'static str = "neon pmull, blocks transposed in registers";
    type F = Gf2_64;
    const LANES: usize = 2;
    /// One twiddle per lane.
    type Twiddle = uint64x2_t;

    #[inline(always)]
    fn load(s: &[Gf2_64], n: usize) -> Self {
        assert!(n <= 2 && s.len() >= n);
        let mut lanes = [0u64; 2];
        for (l, v) in lanes.iter_mut().zip(&s[..n]) {
            *l = v.bits();
        }
        // SAFETY: NEON is baseline on AArch64; `lanes` is two readable u64.
        unsafe { Self(vld1q_u64(lanes.as_ptr())) }
    }

    #[inline(always)]
    fn store(self, s: &mut [Gf2_64], n: usize) {
        assert!(n <= 2 && s.len() >= n);
        let mut lanes = [0u64; 2];
        // SAFETY: NEON is baseline on AArch64; `lanes` is two writable u64.
        unsafe { vst1q_u64(lanes.as_mut_ptr(), self.0) };
        for (v, l) in s[..n].iter_mut().zip(lanes) {
            *v = Gf2_64::new(l);
        }
    }

    #[inline(always)]
    fn broadcast(w: Gf2_64) -> uint64x2_t {
        // SAFETY: NEON is baseline on AArch64.
        unsafe { vdupq_n_u64(w.bits()) }
    }

    #[inline(always)]
    fn add(self, b: Self) -> Self {
        // SAFETY: NEON is baseline on AArch64.
        unsafe { Self(veorq_u64(self.0, b.0)) }
    }

    #[inline(always)]
    fn sub(self, b: Self) -> Self {
        self.add(b)
    }

    #[inline(always)]
    fn mul(self, w: uint64x2_t) -> Self {
        // SAFETY: PMULL (`aes`) was detected before any plan used this
        // backend for GF(2^64) (only the `clmul` entry points, compiled with
        // `aes`, run this type); NEON is baseline; the `tbl` table is read
        // whole from `FOLD_TOP_NIBBLE`, 16 bytes.
        unsafe {
            // `pmull` on lane 0, `pmull2` on lane 1: two 128-bit products.
            let p0 = pmull(self.0, w);
            let p1 = pmull2(self.0, w);
            let lo = vzip1q_u64(p0, p1);
            let hi = vzip2q_u64(p0, p1);
            // hi·x^64 ≡ hi·(x^4 + x^3 + x + 1): the part below x^64 by
            // vector shifts, the overflow's second fold by one `tbl` lookup
            // on the top nibble (as the AVX-512 kernel does).
            let fold = vreinterpretq_u64_u8(vqtbl1q_u8(
                vld1q_u8(FOLD_TOP_NIBBLE.as_ptr()),
                vreinterpretq_u8_u64(vshrq_n_u64::<60>(hi)),
            ));
            // hi·(x + 1) = t, then hi·(x^4 + x^3) = t·x^3: one shift fewer.
            let t = veorq_u64(hi, vshlq_n_u64::<1>(hi));
            let r = veorq_u64(veorq_u64(lo, t), vshlq_n_u64::<3>(t));
            Self(veorq_u64(r, fold))
        }
    }

    #[inline(always)]
    fn twiddle_is_trivial(w: &Gf2_64) -> bool {
        w.bits() == 0
    }

    #[inline(always)]
    fn exchange(self, b: Self, bit: usize) -> (Self, Self) {
        assert_eq!(bit, 0, "two lanes have one lane bit");
        // SAFETY: NEON is baseline on AArch64.
        unsafe { (Self(vtrn1q_u64(self.0, b.0)), Self(vtrn2q_u64(self.0, b.0))) }
    }

    #[inline(always)]
    fn load_twiddles(w: &[Gf2_64], shift: usize) -> uint64x2_t {
        let lanes = [w[0].bits(), w[1 >> shift].bits()];
        // SAFETY: NEON is baseline on AArch64; `lanes` is two readable u64.
        unsafe { vld1q_u64(lanes.as_ptr()) }
    }
}

/// The 128-bit carry-less product of the low lanes (`pmull`), as two words.
///
/// # Safety
/// The CPU must have the `aes` extension.
#[inline]
#[target_feature(enable = "neon,aes")]
unsafe fn pmull(a: uint64x2_t, b: uint64x2_t) -> uint64x2_t {
    vreinterpretq_u64_p128(vmull_p64(vgetq_lane_u64::<0>(a), vgetq_lane_u64::<0>(b)))
}

/// The 128-bit carry-less product of the high lanes (`pmull2`), as two words.
///
/// # Safety
/// The CPU must have the `aes` extension.
#[inline]
#[target_feature(enable = "neon,aes")]
unsafe fn pmull2(a: uint64x2_t, b: uint64x2_t) -> uint64x2_t {
    vreinterpretq_u64_p128(vmull_high_p64(
        vreinterpretq_p64_u64(a),
        vreinterpretq_p64_u64(b),
    ))
}

/// A 31-bit Montgomery field, 4 lanes: `umull`/`umull2` products, the
/// Montgomery quotient from `mul` with w' = w·p⁻¹ mod 2^32, high halves by
/// `uzp2`, and `min(r, r + p)` to land in [0, p). Bit-identical to the scalar
/// reduction.
#[derive(Clone, Copy)]
pub(crate) struct PackedMonty31<P: MontyParams>(uint32x4_t, core::marker::PhantomData<P>);

impl<P: MontyParams> PackedMonty31<P> {
    #[inline(always)]
    fn wrap(v: uint32x4_t) -> Self {
        Self(v, core::marker::PhantomData)
    }

    #[inline(always)]
    fn prime() -> uint32x4_t {
        // SAFETY: NEON is baseline on AArch64.
        unsafe { vdupq_n_u32(P::PRIME) }
    }
}

impl<P: MontyParams> Packed for PackedMonty31<P> {
    const NAME: &'static str = "neon Montgomery";
    const TRANSPOSED_NAME: &'static str = "neon Montgomery, blocks transposed in registers";
    type F = Monty31<P>;
    const LANES: usize = 4;
    type Twiddle = (uint32x4_t, uint32x4_t);

    #[inline(always)]
    fn load(s: &[Self::F], n: usize) -> Self {
        assert!(n <= 4 && s.len() >= n);
        let mut lanes = [0u32; 4];
        for (l, v) in lanes.iter_mut().zip(&s[..n]) {
            *l = v.to_monty();
        }
        // SAFETY: NEON is baseline on AArch64; `lanes` is four readable u32.
        unsafe { Self::wrap(vld1q_u32(lanes.as_ptr())) }
    }

    #[inline(always)]
    fn store(self, s: &mut [Self::F], n: usize) {
        assert!(n <= 4 && s.len() >= n);
        let mut lanes = [0u32; 4];
        // SAFETY: NEON is baseline on AArch64; `lanes` is four writable u32.
        unsafe { vst1q_u32(lanes.as_mut_ptr(), self.0) };
        for (v, l) in s[..n].iter_mut().zip(lanes) {
            *v = Monty31::from_monty(l).expect("kernel outputs are below p");
        }
    }

    #[inline(always)]
    fn broadcast(t: ShoupTwiddle<P>) -> (uint32x4_t, uint32x4_t) {
        let m = t.element().to_monty();
        // SAFETY: NEON is baseline on AArch64.
        unsafe {
            (
                vdupq_n_u32(m),
                vdupq_n_u32(m.wrapping_mul(Monty31::<P>::P_INV)),
            )
        }
    }

    #[inline(always)]
    fn add(self, b: Self) -> Self {
        // SAFETY: NEON is baseline on AArch64.
        unsafe {
            let t = vaddq_u32(self.0, b.0);
            Self::wrap(vminq_u32(t, vsubq_u32(t, Self::prime())))
        }
    }

    #[inline(always)]
    fn sub(self, b: Self) -> Self {
        // SAFETY: NEON is baseline on AArch64.
        unsafe {
            let t = vsubq_u32(self.0, b.0);
            Self::wrap(vminq_u32(t, vaddq_u32(t, Self::prime())))
        }
    }

    #[inline(always)]
    fn mul(self, (w, wq): (uint32x4_t, uint32x4_t)) -> Self {
        // SAFETY: NEON is baseline on AArch64.
        unsafe {
            let p = Self::prime();
            let a = self.0;
            let lo = vmull_u32(vget_low_u32(a), vget_low_u32(w));
            let hi = vmull_high_u32(a, w);
            let m = vmulq_u32(a, wq);
            let lo = vsubq_u64(lo, vmull_u32(vget_low_u32(m), vget_low_u32(p)));
            let hi = vsubq_u64(hi, vmull_high_u32(m, p));
            // The results are the high halves of the 64-bit differences.
            let r = vuzp2q_u32(vreinterpretq_u32_u64(lo), vreinterpretq_u32_u64(hi));
            Self::wrap(vminq_u32(r, vaddq_u32(r, p)))
        }
    }

    #[inline(always)]
    fn exchange(self, b: Self, bit: usize) -> (Self, Self) {
        // SAFETY: NEON is baseline on AArch64.
        unsafe {
            match bit {
                0 => (
                    Self::wrap(vtrn1q_u32(self.0, b.0)),
                    Self::wrap(vtrn2q_u32(self.0, b.0)),
                ),
                1 => {
                    let (a, b) = (vreinterpretq_u64_u32(self.0), vreinterpretq_u64_u32(b.0));
                    (
                        Self::wrap(vreinterpretq_u32_u64(vtrn1q_u64(a, b))),
                        Self::wrap(vreinterpretq_u32_u64(vtrn2q_u64(a, b))),
                    )
                }
                _ => panic!("four lanes have two lane bits, not {bit}"),
            }
        }
    }

    #[inline(always)]
    fn load_twiddles(t: &[ShoupTwiddle<P>], shift: usize) -> (uint32x4_t, uint32x4_t) {
        let lanes: [u32; 4] = core::array::from_fn(|i| t[i >> shift].element().to_monty());
        // SAFETY: NEON is baseline on AArch64; `lanes` is four readable u32.
        unsafe {
            let w = vld1q_u32(lanes.as_ptr());
            (w, vmulq_u32(w, vdupq_n_u32(Monty31::<P>::P_INV)))
        }
    }

    #[inline(always)]
    fn twiddle_is_trivial(t: &ShoupTwiddle<P>) -> bool {
        t.plain() == 1
    }
}

/// Goldilocks, 2 lanes. NEON has no 64 × 64-bit multiply, so products run
/// per lane on the scalar `umulh`/`mul` path; sums and differences are
/// vector compares and masks. Bit-identical to the scalar field.
#[derive(Clone, Copy)]
pub(crate) struct PackedGoldilocks(uint64x2_t);

use crate::field::Goldilocks;

impl PackedGoldilocks {
    #[inline(always)]
    fn prime() -> uint64x2_t {
        // SAFETY: NEON is baseline on AArch64.
        unsafe { vdupq_n_u64(Goldilocks::MODULUS) }
    }

    #[inline(always)]
    fn lanes(self) -> [Goldilocks; 2] {
        // SAFETY: NEON is baseline on AArch64.
        unsafe {
            [
                Goldilocks::new(vgetq_lane_u64::<0>(self.0)),
                Goldilocks::new(vgetq_lane_u64::<1>(self.0)),
            ]
        }
    }

    #[inline(always)]
    fn from_lanes(l: [Goldilocks; 2]) -> Self {
        let v = [l[0].value(), l[1].value()];
        // SAFETY: NEON is baseline on AArch64; `v` is two readable u64.
        unsafe { Self(vld1q_u64(v.as_ptr())) }
    }
}

impl Packed for PackedGoldilocks {
    const NAME: &'static str = "neon Goldilocks";
    const TRANSPOSED_NAME: &'static str = "neon Goldilocks, blocks transposed in registers";
    type F = Goldilocks;
    const LANES: usize = 2;
    /// One twiddle per lane.
    type Twiddle = [Goldilocks; 2];

    #[inline(always)]
    fn load(s: &[Goldilocks], n: usize) -> Self {
        assert!(n <= 2 && s.len() >= n);
        let mut l = [Goldilocks::ZERO; 2];
        l[..n].copy_from_slice(&s[..n]);
        Self::from_lanes(l)
    }

    #[inline(always)]
    fn store(self, s: &mut [Goldilocks], n: usize) {
        assert!(n <= 2 && s.len() >= n);
        s[..n].copy_from_slice(&self.lanes()[..n]);
    }

    #[inline(always)]
    fn broadcast(w: Goldilocks) -> [Goldilocks; 2] {
        [w; 2]
    }

    #[inline(always)]
    fn add(self, b: Self) -> Self {
        // SAFETY: NEON is baseline on AArch64.
        unsafe {
            // a + b = a − (p − b), plus p back on borrow (as on AVX-512):
            // one compare instead of two.
            let p = Self::prime();
            let nb = vsubq_u64(p, b.0);
            let t = vsubq_u64(self.0, nb);
            let borrow = vcltq_u64(self.0, nb);
            Self(vaddq_u64(t, vandq_u64(borrow, p)))
        }
    }

    #[inline(always)]
    fn sub(self, b: Self) -> Self {
        // SAFETY: NEON is baseline on AArch64.
        unsafe {
            let d = vsubq_u64(self.0, b.0);
            let borrow = vcltq_u64(self.0, b.0);
            Self(vaddq_u64(d, vandq_u64(borrow, Self::prime())))
        }
    }

    #[inline(always)]
    fn mul(self, w: [Goldilocks; 2]) -> Self {
        let [a0, a1] = self.lanes();
        Self::from_lanes([a0 * w[0], a1 * w[1]])
    }

    #[inline(always)]
    fn exchange(self, b: Self, bit: usize) -> (Self, Self) {
        assert_eq!(bit, 0, "two lanes have one lane bit");
        // SAFETY: NEON is baseline on AArch64.
        unsafe { (Self(vtrn1q_u64(self.0, b.0)), Self(vtrn2q_u64(self.0, b.0))) }
    }

    #[inline(always)]
    fn load_twiddles(w: &[Goldilocks], shift: usize) -> [Goldilocks; 2] {
        [w[0], w[1 >> shift]]
    }

    #[inline(always)]
    fn twiddle_is_trivial(w: &Goldilocks) -> bool {
        *w == Goldilocks::ONE
    }
}

//! Whole-polynomial kernels for the lattice rings (ML-KEM, ML-DSA): the NTT
//! and its inverse on 256 coefficients held in registers, written once over
//! a [`RingLanes`] type per ISA and field, and the NTT-domain products.
//!
//! A polynomial is `REGS = 256 / LANES` registers. A kernel keeps `BLOCK` of
//! them at a time (as many as leave room for temporaries):
//!
//! ```text
//!   layers:  0 ... split | split ... split+I | split+I ... LAYERS
//!            phase 1     | phase 2: between  | phase 2: inside registers,
//!            (registers  | registers of a    | pairs (A, B) exchanged one
//!            2^(I+…)     | block (I = log₂   | granule per layer (stage 1:
//!            apart)      | BLOCK)            | half a register … last: 4 B)
//! ```
//!
//! 512-bit registers hold a whole ML-KEM or ML-DSA polynomial in one block
//! (no phase 1); 256-bit and 128-bit ones run the first layers as phase 1
//! over strided registers, then each block. After the stages the pair bit
//! holds the last layer's index bit: stored as it is, that is the
//! [`NttOrder::Permuted`](crate::transform::NttOrder) order (the same on every
//! ISA: a narrower register stores its pair bit one address bit higher per
//! missing stage); otherwise the pair is permuted back to the standard order.
//!
//! Twiddles come from a plan-time table read in kernel order, each twiddle as
//! whole vectors (memory operands, no broadcasts on the hot path). Every
//! reduction happens at a fixed point of the schedule, never depending on a
//! coefficient: the kernels are constant time.

/// `body` with `i` = 0, …, N − 1, written out (no closure, no loop): the
/// indices are constants, so arrays of registers indexed by them stay in
/// registers (a closure the inliner declines would leave them on the
/// stack, as it did for ML-DSA's 16-register blocks).
use alloc::{string::String, vec::Vec};
macro_rules! unroll {
    // One arm per count: a nested unroll expands to the product of the
    // counts, not 16 per level (16^3 copies of the stage body took rustc's
    // type checker over a minute per kernel).
    (1, $i:ident => $body:block) => { unroll!(@each $i, $body, 0) };
    (2, $i:ident => $body:block) => { unroll!(@each $i, $body, 0 1) };
    (4, $i:ident => $body:block) => { unroll!(@each $i, $body, 0 1 2 3) };
    (8, $i:ident => $body:block) => { unroll!(@each $i, $body, 0 1 2 3 4 5 6 7) };
    (16, $i:ident => $body:block) => {
        unroll!(@each $i, $body, 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15)
    };
    (@each $i:ident, $body:block, $($k:literal)*) => {
        $(
            {
                #[allow(clippy::identity_op)]
                let $i: usize = $k;
                $body
            }
        )*
    };
}

mod kernel;
pub(crate) mod portable;
pub(crate) mod products;
pub(crate) mod select;
pub(crate) mod tables;

#[cfg(target_arch = "x86_64")]
pub(crate) use tables::{DsaMontgomery, KemMontgomery};

pub(crate) use kernel::{forward, inverse};

/// The registers of one ISA holding coefficients of one lattice field.
///
/// # Safety
/// Implementations call SIMD intrinsics. Their methods may only be called
/// from a function compiled with the target features of the ISA (the entry
/// points are `#[target_feature]` functions reached after run-time
/// detection); every method is `#[inline(always)]` so that it is compiled
/// into that function.
pub(crate) unsafe trait RingLanes: Copy {
    /// The coefficient word (`i16` for ML-KEM, `i32` for ML-DSA).
    type Word: Copy + Default + 'static;
    /// Words per register.
    const LANES: usize;
    /// Registers a block holds (a power of two).
    const BLOCK: usize;
    /// Layers of the transform (7 for ML-KEM, 8 for ML-DSA).
    const LAYERS: usize;
    /// Vectors per twiddle of a layer inside registers (one twiddle per lane).
    const LANE_TWIDDLE: usize;
    /// Vectors per twiddle of a layer between registers (one for all lanes).
    const SPLAT_TWIDDLE: usize;

    /// # Safety
    /// `p` points to `LANES` readable words.
    unsafe fn load(p: *const Self::Word) -> Self;
    /// All lanes zero (a register's initial value before it is loaded).
    fn zero() -> Self;
    /// # Safety
    /// `p` points to `LANES` writable words.
    unsafe fn store(self, p: *mut Self::Word);
    fn add(self, b: Self) -> Self;
    fn sub(self, b: Self) -> Self;
    /// `self · w` for the twiddle at `t` (`SPLAT_TWIDDLE` vectors), same
    /// residue, |r| < q.
    ///
    /// # Safety
    /// `t` points to `SPLAT_TWIDDLE · LANES` readable words.
    unsafe fn mul_splat(self, t: *const Self::Word) -> Self;
    /// `self · w` lane by lane for the twiddles at `t` (`LANE_TWIDDLE`
    /// vectors).
    ///
    /// # Safety
    /// `t` points to `LANE_TWIDDLE · LANES` readable words.
    unsafe fn mul_lanes(self, t: *const Self::Word) -> Self;
    /// The Cooley–Tukey butterfly `(a + b·w, a − b·w)` with `b·w` as
    /// [`mul_splat`](Self::mul_splat) gives it, bit for bit. A lane type
    /// whose product is a difference `hi − c` may override it to add `hi`
    /// to `a` while `c` is still being computed (one step shorter per
    /// layer, one more add).
    ///
    /// # Safety
    /// As [`mul_splat`](Self::mul_splat).
    #[inline(always)]
    unsafe fn ct_splat(a: Self, b: Self, t: *const Self::Word) -> (Self, Self) {
        // SAFETY: the caller's contract is mul_splat's.
        let p = unsafe { b.mul_splat(t) };
        (a.add(p), a.sub(p))
    }
    /// [`ct_splat`](Self::ct_splat) with lane-by-lane twiddles.
    ///
    /// # Safety
    /// As [`mul_lanes`](Self::mul_lanes).
    #[inline(always)]
    unsafe fn ct_lanes(a: Self, b: Self, t: *const Self::Word) -> (Self, Self) {
        // SAFETY: the caller's contract is mul_lanes's.
        let p = unsafe { b.mul_lanes(t) };
        (a.add(p), a.sub(p))
    }
    /// Same residue, |r| ≤ q/2 (rounded up), from any word.
    fn reduce(self) -> Self;
    /// Same residue from the inverse's sums where its schedule reduces them
    /// (ML-KEM: |a| ≤ 26,640), |r| ≤ 2056 (`KEM_SUMS_REDUCED`): a lane type may
    /// trade `reduce`'s tight bound for a shorter chain here (see
    /// [`kem_reduce_sums`]). Default: `reduce`.
    #[inline(always)]
    fn reduce_sums(self) -> Self {
        self.reduce()
    }
    /// The any-input inverse's first step on every word, from any word to
    /// |r| ≤ 1665: the same residue (default: `reduce`), or, on AVX2, the
    /// residue times 2^−16 (a Montgomery reduction, one multiply shallower),
    /// which that kernel's table carries back in its scale
    /// ([`kem_input_scale`], applied in `select::mlkem`).
    #[inline(always)]
    fn reduce_input(self) -> Self {
        self.reduce()
    }
    /// The canonical residue in `[0, q)` from the forward NTT's output
    /// (|a| < (LAYERS + 1)·q).
    fn canonical(self) -> Self;
    /// `[0, q)` from |a| < q: adds q to negative lanes.
    fn positive(self) -> Self;
    /// Stage `stage` (1 …): `X = [A.g0 B.g0 A.g2 B.g2 …]`,
    /// `Y = [A.g1 B.g1 A.g3 B.g3 …]` for granules of `LANES >> stage` words.
    fn exchange(a: Self, b: Self, stage: usize) -> (Self, Self);
    /// A pair after all stages, back to the standard order. Default: the
    /// stages backwards (each is an involution).
    #[inline(always)]
    fn to_standard(x: Self, y: Self) -> (Self, Self) {
        let (mut x, mut y) = (x, y);
        unroll!(4, s => {
            if s < Self::STAGES {
                (x, y) = Self::exchange(x, y, Self::STAGES - s);
            }
        });
        (x, y)
    }
    /// A pair in standard order to its layout after all stages.
    #[inline(always)]
    fn from_standard(a: Self, b: Self) -> (Self, Self) {
        let (mut a, mut b) = (a, b);
        unroll!(4, s => {
            if s < Self::STAGES {
                (a, b) = Self::exchange(a, b, s + 1);
            }
        });
        (a, b)
    }

    /// Layers run inside registers: log₂ of a register's bytes / 4.
    const STAGES: usize =
        (Self::LANES * core::mem::size_of::<Self::Word>() / 4).trailing_zeros() as usize;
    /// Layers run between the registers of a block.
    const INTER: usize = Self::BLOCK.trailing_zeros() as usize;
    /// Layers of phase 1.
    const SPLIT: usize = Self::LAYERS - Self::INTER - Self::STAGES;
    /// Registers of a polynomial.
    const REGS: usize = 256 / Self::LANES;
    /// Phase-2 blocks the kernels run together, layer by layer across
    /// them (1 or 2): two where one block's chain alone leaves the
    /// multipliers idle and the register file holds both blocks (spills
    /// permitting).
    const INTERLEAVE: usize = 1;
    /// Whether the inverse reduces every register before its first layer,
    /// given whether its input is any word (`any_input`) or |a| < q.
    fn inverse_reduces_input(any_input: bool) -> bool;
    /// Whether the inverse reduces the sums of its step `step` (0 = the
    /// first layer it runs) right after that layer. Only the sums grow (a
    /// difference leaves as a twiddle product, |r| < q), so reducing them
    /// alone, at the point where they are still separate from the products,
    /// does half the work of reducing every register.
    fn inverse_reduces_sums_after(step: usize, any_input: bool) -> bool;
}

/// One polynomial's kernel: `(coefficients, table)`.
///
/// # Safety
/// The CPU has the kernel's target features and `table` is the table built
/// for it (see [`RingKernel`], the only place these are called).
pub(crate) type RingFn<W> = unsafe fn(&mut [W; 256], &[W]);

/// Two polynomials' kernel, run together: `(first, second, table)`.
///
/// # Safety
/// As [`RingFn`].
pub(crate) type RingPairFn<W> = unsafe fn(&mut [W; 256], &mut [W; 256], &[W]);

/// Entry points for every mode: `forward[canonical][permuted]`,
/// `inverse[canonical][permuted][any input]`.
pub(crate) struct ModeTable<T> {
    pub(crate) forward: [[T; 2]; 2],
    pub(crate) inverse: [[[T; 2]; 2]; 2],
}

impl<T: Copy> ModeTable<T> {
    /// The entry point of `mode`.
    pub(crate) fn pick(&self, mode: RingMode) -> T {
        let (c, p, a) = (
            usize::from(mode.canonical),
            usize::from(mode.permuted),
            usize::from(mode.any_input),
        );
        if mode.inverse {
            self.inverse[c][p][a]
        } else {
            self.forward[c][p]
        }
    }
}

/// A kernel's entry points: one polynomial per call, and, where the ISA
/// has the registers for it, two polynomials run together (a batch's
/// pairs: one polynomial's chain of layers alone leaves the multipliers
/// idle).
pub(crate) struct RingFns<W: 'static> {
    pub(crate) one: ModeTable<RingFn<W>>,
    pub(crate) pairs: Option<ModeTable<RingPairFn<W>>>,
}

/// The [`ModeTable`] of a pair of generic entry points.
macro_rules! mode_table {
    ($forward:ident, $inverse:ident) => {
        $crate::backend::ring::ModeTable {
            forward: [
                [$forward::<false, false>, $forward::<false, true>],
                [$forward::<true, false>, $forward::<true, true>],
            ],
            inverse: [
                [
                    [
                        $inverse::<false, false, false>,
                        $inverse::<false, false, true>,
                    ],
                    [
                        $inverse::<false, true, false>,
                        $inverse::<false, true, true>,
                    ],
                ],
                [
                    [
                        $inverse::<true, false, false>,
                        $inverse::<true, false, true>,
                    ],
                    [$inverse::<true, true, false>, $inverse::<true, true, true>],
                ],
            ],
        }
    };
}
pub(crate) use mode_table;

/// The [`RingFns`] of one-polynomial entry points (and of pair ones).
macro_rules! ring_fns {
    ($forward:ident, $inverse:ident) => {
        $crate::backend::ring::RingFns {
            one: $crate::backend::ring::mode_table!($forward, $inverse),
            pairs: None,
        }
    };
    ($forward:ident, $inverse:ident, $forward2:ident, $inverse2:ident) => {
        $crate::backend::ring::RingFns {
            one: $crate::backend::ring::mode_table!($forward, $inverse),
            pairs: Some($crate::backend::ring::mode_table!($forward2, $inverse2)),
        }
    };
}
pub(crate) use ring_fns;

/// An ISA's entry points for one lane type: the generic kernels compiled
/// with `$features`, one polynomial per call (not inlined into a caller's
/// loop, where LLVM would hoist every twiddle load and spill them), and
/// their [`RingFns`] as `$name`; with `pairs`, also two polynomials per
/// call, run together.
macro_rules! ring_entry_points {
    ($lanes:ty, $word:ty, $features:literal, $name:ident: $forward:ident, $inverse:ident) => {
        $crate::backend::ring::ring_entry_points!(@one $lanes, $word, $features, $forward, $inverse);
        /// Every mode's entry point.
        pub(crate) const $name: $crate::backend::ring::RingFns<$word> =
            $crate::backend::ring::ring_fns!($forward, $inverse);
    };
    ($lanes:ty, $word:ty, $features:literal, $name:ident: $forward:ident, $inverse:ident,
     pairs: $forward2:ident, $inverse2:ident) => {
        $crate::backend::ring::ring_entry_points!(@one $lanes, $word, $features, $forward, $inverse);

        /// Two polynomials' forward NTTs, run together (see
        /// `backend::ring::forward`).
        ///
        /// # Safety
        /// As the one-polynomial entry point.
        #[inline(never)]
        #[target_feature(enable = $features)]
        pub(crate) unsafe fn $forward2<const CANONICAL: bool, const PERMUTED: bool>(
            a: &mut [$word; 256],
            b: &mut [$word; 256],
            table: &[$word],
        ) {
            // SAFETY: as this function's contract; `a` and `b` are distinct
            // (two `&mut`).
            unsafe {
                $crate::backend::ring::forward::<$lanes, 2, CANONICAL, PERMUTED>(
                    [a.as_mut_ptr(), b.as_mut_ptr()],
                    table.as_ptr(),
                )
            }
        }

        /// Two polynomials' inverse NTTs, run together.
        ///
        /// # Safety
        /// As the one-polynomial entry point.
        #[inline(never)]
        #[target_feature(enable = $features)]
        pub(crate) unsafe fn $inverse2<
            const CANONICAL: bool,
            const PERMUTED: bool,
            const ANY_INPUT: bool,
        >(
            a: &mut [$word; 256],
            b: &mut [$word; 256],
            table: &[$word],
        ) {
            // SAFETY: as this function's contract.
            unsafe {
                $crate::backend::ring::inverse::<$lanes, 2, CANONICAL, PERMUTED, ANY_INPUT>(
                    [a.as_mut_ptr(), b.as_mut_ptr()],
                    table.as_ptr(),
                )
            }
        }

        /// Every mode's entry points.
        pub(crate) const $name: $crate::backend::ring::RingFns<$word> =
            $crate::backend::ring::ring_fns!($forward, $inverse, $forward2, $inverse2);
    };
    (@one $lanes:ty, $word:ty, $features:literal, $forward:ident, $inverse:ident) => {
        /// One polynomial's forward NTT (see `backend::ring::forward`).
        ///
        /// # Safety
        /// The CPU has the features enabled here; `table` is the forward
        /// table of this lane type.
        #[inline(never)]
        #[target_feature(enable = $features)]
        pub(crate) unsafe fn $forward<const CANONICAL: bool, const PERMUTED: bool>(
            poly: &mut [$word; 256],
            table: &[$word],
        ) {
            let p = poly.as_mut_ptr();
            // SAFETY: as this function's contract (the second pointer is
            // never read: one polynomial).
            unsafe {
                $crate::backend::ring::forward::<$lanes, 1, CANONICAL, PERMUTED>([p, p], table.as_ptr())
            }
        }

        /// One polynomial's inverse NTT (see `backend::ring::inverse`).
        ///
        /// # Safety
        /// As the forward entry point, with the inverse table.
        #[inline(never)]
        #[target_feature(enable = $features)]
        pub(crate) unsafe fn $inverse<
            const CANONICAL: bool,
            const PERMUTED: bool,
            const ANY_INPUT: bool,
        >(
            poly: &mut [$word; 256],
            table: &[$word],
        ) {
            let p = poly.as_mut_ptr();
            // SAFETY: as this function's contract.
            unsafe {
                $crate::backend::ring::inverse::<$lanes, 1, CANONICAL, PERMUTED, ANY_INPUT>(
                    [p, p],
                    table.as_ptr(),
                )
            }
        }
    };
}
pub(crate) use ring_entry_points;

/// What a ring plan computes: direction and mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RingMode {
    /// The inverse NTT (else the forward one).
    pub(crate) inverse: bool,
    /// Canonical output (else lazy).
    pub(crate) canonical: bool,
    /// The NTT domain in the permuted order (else the standard one).
    pub(crate) permuted: bool,
    /// The inverse takes any word (ML-KEM's lazy inverse).
    pub(crate) any_input: bool,
}

/// A whole-polynomial kernel with its table, chosen for one plan: runs a
/// batch's polynomials two at a time where the ISA has pair entry points,
/// else one after another.
pub struct RingKernel<W: 'static> {
    run: RingFn<W>,
    pairs: Option<RingPairFn<W>>,
    table: Vec<W>,
    description: String,
}

impl<W: Copy> RingKernel<W> {
    /// A kernel of `fns` for `mode` with its `table`.
    ///
    /// # Safety
    /// The CPU has the target features of `fns`, and `table` is the table
    /// its kernels read for `mode`.
    pub(crate) unsafe fn new(
        fns: &RingFns<W>,
        mode: RingMode,
        table: Vec<W>,
        description: String,
    ) -> Self {
        Self {
            run: fns.one.pick(mode),
            pairs: fns.pairs.as_ref().map(|p| p.pick(mode)),
            table,
            description,
        }
    }

    /// Runs every polynomial of `polys` (a multiple of 256 words).
    #[inline]
    pub(crate) fn run(&self, polys: &mut [W]) {
        let (mut polys, rest) = polys.as_chunks_mut::<256>();
        debug_assert!(rest.is_empty(), "whole polynomials");
        if let [poly] = polys {
            // One polynomial (the common call): straight to the kernel.
            // SAFETY: as below.
            unsafe { (self.run)(poly, &self.table) };
            return;
        }
        if let Some(pairs) = self.pairs {
            while let [a, b, tail @ ..] = polys {
                // SAFETY: as below; `a` and `b` are distinct polynomials.
                unsafe { pairs(a, b, &self.table) }
                polys = tail;
            }
        }
        for poly in polys {
            // SAFETY: `new`'s contract: the features were detected and the
            // table is this kernel's.
            unsafe { (self.run)(poly, &self.table) }
        }
    }

    /// The entry point and its table (for benchmarks that time the bare
    /// kernel against a plan's call).
    pub(crate) fn parts(&self) -> (RingFn<W>, &[W]) {
        (self.run, &self.table)
    }

    /// What the kernel runs, as plans print it.
    pub(crate) fn description(&self) -> &str {
        &self.description
    }

    /// Bytes of its table.
    pub(crate) fn table_bytes(&self) -> usize {
        self.table.len() * core::mem::size_of::<W>()
    }
}

/// ML-KEM's inverse schedule of the portable kernel (whole arrays, every
/// word reduced): from |a| < q, layers 7, 6, 5 reach 8q; a Barrett
/// reduction (|a| ≤ q/2 + 1) leaves room for the other four. From any
/// `i16`: reduce first, then after four layers.
pub(crate) const fn kem_inverse_reduces_before(step: usize, any_input: bool) -> bool {
    if any_input {
        step == 0 || step == 4
    } else {
        step == 3
    }
}

/// The bound of ML-KEM's `RingLanes::reduce_sums` from |a| ≤ 26,640
/// (`kem_reduce_sums`'s, checked exhaustively below).
#[cfg(test)]
pub(crate) const KEM_SUMS_REDUCED: i32 = 2056;

/// The x86 `reduce_sums` of ML-KEM, a word at a time (the reference its
/// SIMD forms are tested against): `a − round(a·10/2^15)·q`, the quotient
/// from one rounding multiply (`vpmulhrsw`; 10/2^15 is 1/q to 1.6 %, so the
/// error grows with |a|: |r| ≤ 2056 from |a| ≤ 26,640, where Barrett's two
/// dependent multiplies give 1664). Three instructions and two multiplies
/// deep instead of four and three.
#[cfg(test)]
pub(crate) const fn kem_reduce_sums(a: i16) -> i16 {
    let t = ((a as i32 * 10 + (1 << 14)) >> 15) as i16;
    a.wrapping_sub(t.wrapping_mul(crate::field::mlkem::Q))
}

/// The AVX2 `reduce_input` of ML-KEM, a word at a time (the reference its
/// SIMD forms are tested against): the Montgomery reduction of `a` itself,
/// `(a − m·q)/2^16` with m = a·q⁻¹ mod 2^16, ≡ a·2^−16, |r| ≤ 1665 from any
/// word; `a >> 16` is a shift, so the chain is two multiplies deep where
/// Barrett's is three.
#[cfg(test)]
pub(crate) const fn kem_reduce_input(a: i16) -> i16 {
    let m = a.wrapping_mul(-3327); // q⁻¹ mod 2^16
    (((a as i32) >> 16) - ((m as i32 * crate::field::mlkem::Q as i32) >> 16)) as i16
}

/// The inverse's scale `f` (Montgomery form) for a kernel whose
/// `reduce_input` multiplies by 2^−16: f·2^16, as `fqmul(f, 2^32 mod q)`.
#[cfg(any(target_arch = "x86_64", test))]
pub(crate) const fn kem_input_scale(f: i16, montgomery_input: bool) -> i16 {
    if montgomery_input {
        crate::field::mlkem::fqmul(f, 1353) // 2^32 mod q
    } else {
        f
    }
}

/// ML-KEM's inverse schedule of the register kernels (every ISA), on the
/// sums alone. A layer's sum pairs two words of the same history (both sums
/// or both products of the layer before), so the largest word after a layer
/// is twice the largest before it, or a product (|r| ≤ 2497 < 0.75·q for any
/// `i16` times a centred twiddle). From any `i16`: every word reduced first
/// (|a| ≤ 1664 by Barrett, ≤ 1665 by the AVX2 Montgomery input reduction), then the sums after step 3 (they reach 26,640 there; one
/// more layer would pass 2^15); steps 4–6 end below 19,976 and the last
/// layer's sums leave as products of the scale. From |a| < q: the sums after
/// steps 2 and 5 (26,624 and 19,976). `kem_schedule_bounds` in the tests
/// checks both against 2^15.
pub(crate) const fn kem_inverse_reduces_sums_after(step: usize, any_input: bool) -> bool {
    if any_input {
        step == 3
    } else {
        step == 2 || step == 5
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::mlkem::Q;
    #[allow(unused_imports)]
    use crate::test_prelude::*;

    /// The largest |word| through ML-KEM's inverse under the register
    /// kernels' schedule, checked against `i16`: the input's reduction
    /// leaves ≤ 1665 (`reduce_input`: Barrett's 1664 or Montgomery's 1665),
    /// the sums' reduction takes ≤ 26,640 to ≤ `KEM_SUMS_REDUCED`
    /// (whichever of `reduce` and `reduce_sums` a lane type runs), a twiddle
    /// product ≤ 2497.
    #[test]
    fn kem_schedule_bounds() {
        const PRODUCT: i32 = 2497;
        const REDUCED: i32 = 1665; // reduce_input's (Barrett's is 1664)
        for any_input in [false, true] {
            // Any input is reduced before the first layer.
            let mut largest = if any_input { REDUCED } else { Q as i32 - 1 };
            for step in 0..7 {
                let sums = 2 * largest;
                assert!(
                    sums <= i16::MAX as i32,
                    "step {step}, any {any_input}: {sums}"
                );
                let sums = if step == 6 {
                    PRODUCT // the last layer's sums are multiplied by the scale
                } else if kem_inverse_reduces_sums_after(step, any_input) {
                    assert!(
                        sums <= 26_640,
                        "step {step}: {sums} past reduce_sums' range"
                    );
                    KEM_SUMS_REDUCED
                } else {
                    sums
                };
                largest = sums.max(PRODUCT);
            }
            assert!(largest < Q as i32, "output bound |a| < q");
            assert!(!kem_inverse_reduces_sums_after(6, any_input));
        }
    }

    #[test]
    fn kem_reduce_sums_keeps_the_residue_within_its_bound() {
        // Every sum natively; under Miri (an interpreter: safe arithmetic,
        // already checked natively with overflow checks) every 31st and the
        // ends.
        let step = if cfg!(miri) { 31 } else { 1 };
        for a in (-26_640i32..=26_640).step_by(step).chain([26_640]) {
            let r = kem_reduce_sums(a as i16) as i32;
            assert_eq!((a - r).rem_euclid(Q as i32), 0, "{a}");
            assert!(r.abs() <= KEM_SUMS_REDUCED, "{a} -> {r}");
        }
        // The bound is tight.
        assert!((-26_640i32..=26_640)
            .any(|a| kem_reduce_sums(a as i16).abs() as i32 == KEM_SUMS_REDUCED));
    }

    #[test]
    fn kem_reduce_input_is_a_montgomery_reduction_within_1665() {
        let r_inverse = 169; // 2^−16 mod q
        assert_eq!(r_inverse * 65536 % Q as i32, 1);
        let step = if cfg!(miri) { 31 } else { 1 };
        for a in (i16::MIN..=i16::MAX).step_by(step).chain([i16::MAX]) {
            let r = kem_reduce_input(a) as i32;
            assert_eq!((a as i32 * r_inverse - r).rem_euclid(Q as i32), 0, "{a}");
            assert!(r.abs() <= 1665, "{a} -> {r}");
        }
        // The scale takes the factor back: f·2^16·2^−16 = f.
        let f = 1441;
        let scaled = kem_input_scale(f, true) as i32;
        assert_eq!((scaled * r_inverse - f as i32).rem_euclid(Q as i32), 0);
    }
}

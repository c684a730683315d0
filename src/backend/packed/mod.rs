//! One register-group kernel for every field with a packed SIMD form, on
//! every ISA (AVX-512, AVX2, NEON): written once over [`Packed`].
//!
//! Row j of a butterfly set is one contiguous run of `stride · width`
//! elements sharing the set's twiddles (twiddles are per block, not per
//! position), so the kernel walks the runs a register at a time and the same
//! code serves interleaved matrices (SIMD across columns) and single columns
//! (SIMD along the run). Each (radix, butterfly) pair is its own monomorphic
//! loop; no branch or index depends on element values.

use crate::backend::{GroupKernel, RowMoves};
use crate::field::Field;
use crate::transform::ButterflyKind;
use alloc::vec::Vec;

mod moving;
mod transposed;

pub(crate) use moving::run_moving_body;
pub(crate) use transposed::{run_transposed_body, transposed_twiddles};

/// A SIMD register of field elements with the arithmetic butterflies need.
/// Methods are only called from kernels compiled with the backend's target
/// features, after run-time detection (see `Kernels::has_kernels`).
pub(crate) trait Packed: Copy {
    /// The field.
    type F: Field;
    /// Elements per register.
    /// The kernel's name in plans (`"avx512 Montgomery"`), and with its
    /// transposed groups.
    const NAME: &'static str;
    const TRANSPOSED_NAME: &'static str;
    const LANES: usize;
    /// A twiddle prepared for [`Packed::mul`] (broadcast to every lane).
    type Twiddle: Copy;
    /// Loads `n ≤ LANES` elements (the rest zero).
    fn load(s: &[Self::F], n: usize) -> Self;
    /// Stores the first `n ≤ LANES` elements.
    fn store(self, s: &mut [Self::F], n: usize);
    /// Stores all `LANES` elements with a non-temporal (streaming) store
    /// where the ISA has one and `s` is aligned for it, else as
    /// [`Packed::store`]. Callers fence (`store_fence`) before the data is
    /// handed on.
    #[inline(always)]
    fn store_streaming(self, s: &mut [Self::F]) {
        self.store(s, Self::LANES)
    }
    fn broadcast(w: <Self::F as Field>::Twiddle) -> Self::Twiddle;
    fn add(self, b: Self) -> Self;
    fn sub(self, b: Self) -> Self;
    fn mul(self, w: Self::Twiddle) -> Self;
    /// The Cooley–Tukey butterfly `(self + w·b, self − w·b)`. A field whose
    /// packed form can share work between the sum and the difference (a
    /// product left in an intermediate form both read) overrides it.
    #[inline(always)]
    fn ct_butterfly(self, b: Self, w: Self::Twiddle) -> (Self, Self) {
        let m = b.mul(w);
        (self.add(m), self.sub(m))
    }
    /// The Gentleman–Sande butterfly `(self + b, (self − b)·w)`; overridden
    /// as [`Packed::ct_butterfly`] is.
    #[inline(always)]
    fn gs_butterfly(self, b: Self, w: Self::Twiddle) -> (Self, Self) {
        (self.add(b), self.sub(b).mul(w))
    }
    /// Whether the Cooley–Tukey butterflies inside a register group may
    /// leave values in [0, 2p) between its layers
    /// ([`Packed::ct_butterfly_lazy`]): the 31-bit Montgomery fields. A
    /// group's first layer reads canonical values and its last writes them,
    /// so memory only ever holds canonical words.
    const LAZY: bool = false;
    /// [`Packed::ct_butterfly`] on lazy values: inputs in [0, 2p) where
    /// `IN` (canonical otherwise), outputs in [0, 2p) where `OUT`
    /// (canonical otherwise). The default is the plain butterfly.
    #[inline(always)]
    fn ct_butterfly_lazy<const IN: bool, const OUT: bool>(
        self,
        b: Self,
        w: Self::Twiddle,
    ) -> (Self, Self) {
        self.ct_butterfly(b, w)
    }
    /// `(self + b, self − b)` on lazy values, as
    /// [`Packed::ct_butterfly_lazy`] (the trivial twiddle 1).
    #[inline(always)]
    fn sum_difference_lazy<const IN: bool, const OUT: bool>(self, b: Self) -> (Self, Self) {
        (self.add(b), self.sub(b))
    }
    /// Whether this packing multiplies by twiddles ±2^k with shifts
    /// ([`Packed::power_of_two`], [`Packed::ct_butterfly_pow2`]): groups
    /// whose every twiddle is one run those butterflies instead.
    const SHIFT_TWIDDLES: bool = false;
    /// `w` as ±2^k where [`Packed::SHIFT_TWIDDLES`] is set and it is one.
    #[inline(always)]
    fn power_of_two(_w: &<Self::F as Field>::Twiddle) -> Option<PowerOfTwo> {
        None
    }
    /// [`Packed::ct_butterfly`] with the twiddle ±2^k; called only with
    /// what [`Packed::power_of_two`] returned.
    #[inline(always)]
    fn ct_butterfly_pow2(self, _b: Self, _w: PowerOfTwo) -> (Self, Self) {
        unreachable!("no packing without shift products returns a power of two")
    }
    /// [`Packed::gs_butterfly`] with the twiddle ±2^k; as
    /// [`Packed::ct_butterfly_pow2`].
    #[inline(always)]
    fn gs_butterfly_pow2(self, _b: Self, _w: PowerOfTwo) -> (Self, Self) {
        unreachable!("no packing without shift products returns a power of two")
    }
    /// One step of an in-register transpose: exchanges lane bit `bit` with
    /// the bit that tells `self` (0) from `b` (1). With d = 2^bit, the first
    /// output holds `self[x]` where bit `bit` of x is clear and `b[x − d]`
    /// where it is set; the second holds `self[x + d]` and `b[x]`.
    fn exchange(self, b: Self, bit: usize) -> (Self, Self);
    /// A twiddle register whose lane i holds `w[i >> shift]`
    /// (`w` holds at least `LANES >> shift` twiddles).
    fn load_twiddles(w: &[<Self::F as Field>::Twiddle], shift: usize) -> Self::Twiddle;
    /// Whether a transposed group's per-lane twiddles are *compact*: one
    /// 32-bit word each (the twiddle's Montgomery form), two to a table
    /// slot ([`Packed::lane_table`]), multiplied by Montgomery's method
    /// ([`Packed::ct_compact`], [`Packed::gs_compact`]) rather than as
    /// [`Packed::Twiddle`]s. The last layers of a single column have a
    /// twiddle per butterfly pair, so their table is as large as the data
    /// twice over; compact, it is half that.
    const COMPACT_LANES: bool = false;
    /// A transposed group's table in this packing's layout, from the
    /// standard one ([`transposed_twiddles`]: per chunk of R super-blocks,
    /// [k][super-block]). The standard layout unless [`Packed::COMPACT_LANES`].
    fn lane_table(standard: Vec<<Self::F as Field>::Twiddle>) -> Vec<<Self::F as Field>::Twiddle> {
        standard
    }
    /// Compact lanes ([`Packed::COMPACT_LANES`]): twiddle vector k of a
    /// chunk of `r` super-blocks, lane i holding the twiddle of super-block
    /// i >> shift, as a register for [`Packed::ct_compact`] and
    /// [`Packed::gs_compact`] only.
    #[inline(always)]
    fn load_compact_lanes(
        _chunk: &[<Self::F as Field>::Twiddle],
        _k: usize,
        _r: usize,
        _shift: usize,
    ) -> Self::Twiddle {
        unreachable!("only packings with compact lanes load them")
    }
    /// [`Packed::ct_butterfly_lazy`] by a twiddle of
    /// [`Packed::load_compact_lanes`].
    #[inline(always)]
    fn ct_compact<const IN: bool, const OUT: bool>(
        self,
        _b: Self,
        _w: Self::Twiddle,
    ) -> (Self, Self) {
        unreachable!("only packings with compact lanes load them")
    }
    /// [`Packed::gs_butterfly`] by a twiddle of [`Packed::load_compact_lanes`].
    #[inline(always)]
    fn gs_compact(self, _b: Self, _w: Self::Twiddle) -> (Self, Self) {
        unreachable!("only packings with compact lanes load them")
    }
    /// The alignment, in bytes, at which a full register load or store
    /// touches one cache line (the register's size, 64, on AVX-512); 0
    /// where the kernels do not re-frame runs: NEON (16-byte registers, and
    /// allocators align large buffers to 16 bytes) and AVX2 (whose 32-byte
    /// registers split a line at every other one on such buffers; not built
    /// or measured).
    ///
    /// Large `Vec`s come from the allocator 16 bytes past a page boundary,
    /// so every 64-byte register of their rows would straddle two cache
    /// lines. Where `ALIGN` is set, a run whose start is not aligned is
    /// walked in a shifted frame instead: one register holds the run's
    /// first `h` elements and its last `LANES − h` ([`Packed::load_pair`]),
    /// and every other register starts on an aligned address. Butterflies
    /// treat lanes alike (one twiddle per run), so which elements share a
    /// register does not change the result.
    const ALIGN: usize = 0;
    /// Lanes `[0, h)` from `lo[..h]` and lanes `[h, LANES)` from
    /// `hi[..LANES − h]` (0 < h < LANES).
    #[inline(always)]
    fn load_pair(lo: &[Self::F], hi: &[Self::F], h: usize) -> Self {
        // Portable form through a buffer. Kernels call it only where `ALIGN`
        // is set, and the one ISA that sets it (AVX-512) overrides it with
        // two masked loads, so no kernel reaches this body today; it keeps
        // a new ISA that sets `ALIGN` correct before it has its own.
        let mut buf = [<Self::F as num_traits::Zero>::zero(); 16];
        buf[..h].copy_from_slice(&lo[..h]);
        buf[h..Self::LANES].copy_from_slice(&hi[..Self::LANES - h]);
        Self::load(&buf, Self::LANES)
    }
    /// Stores lanes `[0, h)` to `lo[..h]` and lanes `[h, LANES)` to
    /// `hi[..LANES − h]` (0 < h < LANES): the inverse of
    /// [`Packed::load_pair`].
    #[inline(always)]
    fn store_pair(self, lo: &mut [Self::F], hi: &mut [Self::F], h: usize) {
        let mut buf = [<Self::F as num_traits::Zero>::zero(); 16];
        self.store(&mut buf, Self::LANES);
        lo[..h].copy_from_slice(&buf[..h]);
        hi[..Self::LANES - h].copy_from_slice(&buf[h..Self::LANES]);
    }
    /// Whether multiplying by `w` is trivial for this field's butterflies:
    /// `w` = 0 for additive (binary-field) twiddles — the subspace
    /// polynomial vanishes at the first block of every layer of an unshifted
    /// transform — and `w` = 1 for multiplicative ones (the first block of
    /// every layer of a plain DFT). Those products are skipped.
    #[inline(always)]
    fn twiddle_is_trivial(_w: &<Self::F as Field>::Twiddle) -> bool {
        false
    }
}

/// The two steps a packing with lazy values ([`Packed::LAZY`]) provides
/// for [`lazy_ct_butterfly`] and [`lazy_sum_difference`].
pub(crate) trait LazySteps: Packed {
    /// A lazy value in [0, 2p) brought to [0, p).
    fn reduce_lazy(self) -> Self;
    /// `(a + b, a − b + p)` of canonical a and b: both in [0, 2p), no
    /// reduction.
    fn sum_difference_below_2p(self, b: Self) -> (Self, Self);
}

/// [`Packed::ct_butterfly_lazy`] of a lazy packing: Shoup's product takes
/// any word (a lazy b too) to a canonical m, and a + m, a − m + p of a
/// canonical a lie in [0, 2p): three instructions where the canonical sum
/// and difference take six.
#[inline(always)]
pub(crate) fn lazy_ct_butterfly<P: LazySteps, const IN: bool, const OUT: bool>(
    a: P,
    b: P,
    w: P::Twiddle,
) -> (P, P) {
    lazy_sum_difference_of_product::<P, IN, OUT>(a, b.mul(w))
}

/// The sum and difference of a lazy Cooley–Tukey butterfly, given its
/// product m (canonical, whichever method made it): a reduced where `IN`,
/// then a + m and a − m + p in [0, 2p) where `OUT`, canonical otherwise.
#[inline(always)]
pub(crate) fn lazy_sum_difference_of_product<P: LazySteps, const IN: bool, const OUT: bool>(
    a: P,
    m: P,
) -> (P, P) {
    let a = if IN { a.reduce_lazy() } else { a };
    if OUT {
        a.sum_difference_below_2p(m)
    } else {
        (a.add(m), a.sub(m))
    }
}

/// [`Packed::sum_difference_lazy`] of a lazy packing.
#[inline(always)]
pub(crate) fn lazy_sum_difference<P: LazySteps, const IN: bool, const OUT: bool>(
    a: P,
    b: P,
) -> (P, P) {
    let (a, b) = if IN {
        (a.reduce_lazy(), b.reduce_lazy())
    } else {
        (a, b)
    };
    if OUT {
        a.sum_difference_below_2p(b)
    } else {
        (a.add(b), a.sub(b))
    }
}

/// A twiddle ±2^k, k < 96 (Goldilocks: 2^96 = −1), for the shift products
/// of [`Packed::ct_butterfly_pow2`]. Twiddles are public, so `negative`
/// selects registers through a mask, never a branch on data.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PowerOfTwo {
    pub(crate) k: u32,
    pub(crate) negative: bool,
}

impl PowerOfTwo {
    /// A Goldilocks twiddle as ±2^k, k < 96, if it is one.
    #[cfg_attr(
        not(target_arch = "x86_64"),
        allow(dead_code, reason = "only the x86-64 kernels multiply by shifts")
    )]
    #[inline(always)]
    pub(crate) fn goldilocks(w: &crate::field::Goldilocks) -> Option<Self> {
        w.signed_power_of_two()
            .map(|(k, negative)| Self { k, negative })
    }

    /// The shift counts that split x·2^k (x < 2^64, k < 96) into its low
    /// word x << `low`, bits 64–95 (x >> `mid_right`) | (x << `mid_left`)
    /// (one of the two counts is 64 or more, which `vpsrlvq`/`vpsllvq` make
    /// 0: the first serves k ≤ 64, the second k > 64) and bits 96 up,
    /// x >> `high` (< 2^63): `[low, mid_right, mid_left, high]`.
    #[cfg_attr(
        not(target_arch = "x86_64"),
        allow(dead_code, reason = "only the x86-64 kernels multiply by shifts")
    )]
    #[inline(always)]
    pub(crate) fn split_counts(self) -> [u64; 4] {
        let k = u64::from(self.k);
        [k, 64u64.wrapping_sub(k), k.wrapping_sub(64), 96 - k]
    }
}

/// `$run::<P, R, KIND>(args)` for the group's butterfly kind at radix R.
macro_rules! by_kind {
    ($kind:expr, $run:ident::<$p:ty, $r:literal>($($arg:expr),*)) => {
        // SAFETY: the loops need the packed ISA's features, which the ISA
        // entry points calling them have: those run only after run-time
        // detection found the features.
        unsafe {
            match $kind {
                $crate::transform::ButterflyKind::CooleyTukey => {
                    $run::<$p, $r, { $crate::backend::packed::CT }>($($arg),*)
                }
                $crate::transform::ButterflyKind::GentlemanSande => {
                    $run::<$p, $r, { $crate::backend::packed::GS }>($($arg),*)
                }
                $crate::transform::ButterflyKind::Additive => {
                    $run::<$p, $r, { $crate::backend::packed::ADD }>($($arg),*)
                }
                $crate::transform::ButterflyKind::AdditiveInverse => {
                    $run::<$p, $r, { $crate::backend::packed::ADD_INV }>($($arg),*)
                }
            }
        }
    };
}
pub(crate) use by_kind;

/// `$run::<P, R, KIND>(args)` for the group's radix and kind: every (radix,
/// butterfly) pair is its own monomorphic loop, so there is no branch on the
/// kind inside the butterflies and the layer loops unroll.
macro_rules! by_radix_and_kind {
    ($group:expr, $run:ident::<$p:ty>($($arg:expr),*)) => {
        match $group.log_radix {
            1 => $crate::backend::packed::by_kind!($group.kind, $run::<$p, 2>($($arg),*)),
            2 => $crate::backend::packed::by_kind!($group.kind, $run::<$p, 4>($($arg),*)),
            3 => $crate::backend::packed::by_kind!($group.kind, $run::<$p, 8>($($arg),*)),
            4 => $crate::backend::packed::by_kind!($group.kind, $run::<$p, 16>($($arg),*)),
            g => panic!("packed register groups merge 1 to 4 layers, not {g}"),
        }
    };
}
pub(crate) use by_radix_and_kind;

/// An ISA's entry points to the packed kernel, compiled with its target
/// features (`$features`): `run_group` and `run_group_moving`, and one
/// loop per (radix, butterfly) pair under them. The loops' bodies are the
/// `#[inline(always)]` generic functions of this module, so they take the
/// features of the wrapper they inline into; every ISA module instantiates
/// this macro once per feature set, and no loop compiled for one ISA's
/// features is ever called on a CPU that only has another's.
///
/// The loops are each their own function: optimised builds inline them into
/// the entry point; unoptimised ones keep a frame per loop (all of them
/// inlined into the entry point took a frame of 1.6 MiB, which overflowed a
/// 2 MiB thread stack in debug builds).
macro_rules! packed_entry_points {
    ($features:literal, available: $available:expr) => {
        use $crate::backend::packed::{by_radix_and_kind, Packed};
        use $crate::backend::{GroupKernel, RowMoves};

        /// These entry points for packed type `P`: what the dispatch table
        /// (`backend::dispatch`) names for a field on this ISA.
        pub(crate) struct Kernel<P>(core::marker::PhantomData<P>);

        // SAFETY: every entry point is compiled with `$features`, and
        // `available` is true only where the CPU has those beyond the
        // backend's own (which `Backend::check` found).
        unsafe impl<P: Packed> $crate::backend::packed::Entry for Kernel<P> {
            type F = P::F;
            const LANES: usize = P::LANES;
            const NAME: &'static str = P::NAME;
            const TRANSPOSED_NAME: &'static str = P::TRANSPOSED_NAME;
            fn available() -> bool {
                $available
            }
            fn shift_twiddles(
                kind: $crate::transform::ButterflyKind,
                twiddles: &[<P::F as $crate::field::Field>::Twiddle],
            ) -> bool {
                use $crate::backend::packed::{shift_twiddles, CT, GS};
                use $crate::transform::ButterflyKind;
                match kind {
                    ButterflyKind::CooleyTukey => shift_twiddles::<P, CT>(twiddles),
                    ButterflyKind::GentlemanSande => shift_twiddles::<P, GS>(twiddles),
                    _ => false,
                }
            }
            fn lane_table(
                standard: ::alloc::vec::Vec<<P::F as $crate::field::Field>::Twiddle>,
            ) -> ::alloc::vec::Vec<<P::F as $crate::field::Field>::Twiddle> {
                P::lane_table(standard)
            }
            unsafe fn run_group(buf: &mut [P::F], group: &GroupKernel<'_, P::F>) {
                // SAFETY: the caller's promise (the trait's contract).
                unsafe { run_group::<P>(buf, group) }
            }
            unsafe fn run_group_moving(
                buf: &mut [P::F],
                group: &GroupKernel<'_, P::F>,
                moves: &mut RowMoves<'_, P::F>,
            ) {
                // SAFETY: as above.
                unsafe { run_group_moving::<P>(buf, group, moves) }
            }
            unsafe fn mul_add(
                dst: &mut [P::F],
                a: Option<&[P::F]>,
                b: &[P::F],
                c: <P::F as $crate::field::Field>::Twiddle,
            ) {
                // SAFETY: as above.
                unsafe { mul_add::<P>(dst, a, b, c) }
            }
            unsafe fn register_rounds(
                kind: u8,
                data: &mut [P::F],
                twiddles: &[<P::F as $crate::field::Field>::Twiddle],
                rounds: usize,
            ) {
                use $crate::backend::packed::{ADD, CT};
                // SAFETY: as above.
                unsafe {
                    if kind == ADD {
                        register_rounds::<P, ADD>(data, twiddles, rounds)
                    } else {
                        register_rounds::<P, CT>(data, twiddles, rounds)
                    }
                }
            }
        }

        /// Runs a register group of 1 to 4 layers with packed arithmetic.
        ///
        /// # Safety
        /// The CPU must have the features this function is compiled with.
        #[target_feature(enable = $features)]
        pub(crate) unsafe fn run_group<P: Packed>(buf: &mut [P::F], group: &GroupKernel<'_, P::F>) {
            if group.whole_block {
                by_radix_and_kind!(group, run_transposed::<P>(buf, group))
            } else {
                by_radix_and_kind!(group, run::<P>(buf, group))
            }
        }

        /// [`run_group`] with row moves: the group reads its input rows
        /// from `moves.from` and writes its output rows to `moves.to` where
        /// given (a gathered pass's tile, straight from and to the data),
        /// else from and to `buf`. Rows are whole registers (checked by the
        /// caller).
        ///
        /// # Safety
        /// As [`run_group`].
        #[target_feature(enable = $features)]
        pub(crate) unsafe fn run_group_moving<P: Packed>(
            buf: &mut [P::F],
            group: &GroupKernel<'_, P::F>,
            moves: &mut RowMoves<'_, P::F>,
        ) {
            by_radix_and_kind!(group, run_moving::<P>(buf, group, moves))
        }

        /// # Safety
        /// As [`run_group`].
        #[target_feature(enable = $features)]
        #[inline]
        unsafe fn run<P: Packed, const R: usize, const KIND: u8>(
            buf: &mut [P::F],
            group: &GroupKernel<'_, P::F>,
        ) {
            $crate::backend::packed::run_body::<P, R, KIND>(buf, group)
        }

        /// # Safety
        /// As [`run_group`].
        #[target_feature(enable = $features)]
        #[inline]
        unsafe fn run_moving<P: Packed, const R: usize, const KIND: u8>(
            buf: &mut [P::F],
            group: &GroupKernel<'_, P::F>,
            moves: &mut RowMoves<'_, P::F>,
        ) {
            $crate::backend::packed::run_moving_body::<P, R, KIND>(buf, group, moves)
        }

        /// # Safety
        /// As [`run_group`].
        #[target_feature(enable = $features)]
        #[inline]
        unsafe fn run_transposed<P: Packed, const R: usize, const KIND: u8>(
            buf: &mut [P::F],
            group: &GroupKernel<'_, P::F>,
        ) {
            $crate::backend::packed::run_transposed_body::<P, R, KIND>(buf, group)
        }

        /// `dst = a + c·b` (`a` = `dst` when `None`), a register at a time.
        ///
        /// # Safety
        /// As [`run_group`].
        #[target_feature(enable = $features)]
        pub(crate) unsafe fn mul_add<P: Packed>(
            dst: &mut [P::F],
            a: Option<&[P::F]>,
            b: &[P::F],
            c: <P::F as $crate::field::Field>::Twiddle,
        ) {
            $crate::backend::packed::mul_add_body::<P>(dst, a, b, c)
        }

        /// `rounds` rounds of two radix-8 butterfly sets of kind `KIND`
        /// held in registers, with no load or store between rounds (see
        /// [`register_rounds_body`](crate::backend::packed::register_rounds_body)).
        ///
        /// # Safety
        /// As [`run_group`].
        #[target_feature(enable = $features)]
        pub(crate) unsafe fn register_rounds<P: Packed, const KIND: u8>(
            data: &mut [P::F],
            twiddles: &[<P::F as $crate::field::Field>::Twiddle],
            rounds: usize,
        ) {
            $crate::backend::packed::register_rounds_body::<P, KIND>(data, twiddles, rounds)
        }
    };
}
pub(crate) use packed_entry_points;

/// One ISA's packed kernels for one field (`Kernel<P>` of an ISA module's
/// [`packed_entry_points`]), as the dispatch table names them.
///
/// # Safety
/// Implementors' entry points are compiled with their ISA's features and
/// `available` checks those beyond the backend's.
pub(crate) unsafe trait Entry {
    /// The field.
    type F: Field;
    /// Field elements per register.
    const LANES: usize;
    /// The kernel's name in plans, and with transposed groups.
    const NAME: &'static str;
    const TRANSPOSED_NAME: &'static str;
    /// Whether this CPU has the features of these entry points beyond the
    /// backend's own (e.g. VPCLMULQDQ for GF(2^64) on AVX2).
    fn available() -> bool;
    /// Whether a group of `kind` with these twiddles runs shift butterflies
    /// (see [`shift_twiddles`]).
    fn shift_twiddles(kind: ButterflyKind, twiddles: &[<Self::F as Field>::Twiddle]) -> bool;
    /// A transposed group's table in this packing's layout
    /// ([`Packed::lane_table`]).
    fn lane_table(standard: Vec<<Self::F as Field>::Twiddle>) -> Vec<<Self::F as Field>::Twiddle>;
    /// A register group (see the ISA's `run_group`).
    ///
    /// # Safety
    /// `Backend::check` found the ISA for this field and `available()`.
    unsafe fn run_group(buf: &mut [Self::F], group: &GroupKernel<'_, Self::F>);
    /// A register group with row moves (see the ISA's `run_group_moving`).
    ///
    /// # Safety
    /// As [`Entry::run_group`].
    unsafe fn run_group_moving(
        buf: &mut [Self::F],
        group: &GroupKernel<'_, Self::F>,
        moves: &mut RowMoves<'_, Self::F>,
    );
    /// `dst[i] = a[i] + c·b[i]` (`a` = `dst` when `None`): a pruned
    /// transform's fold, one term at a time. `a` and `b` are at least as
    /// long as `dst`.
    ///
    /// # Safety
    /// As [`Entry::run_group`].
    unsafe fn mul_add(
        dst: &mut [Self::F],
        a: Option<&[Self::F]>,
        b: &[Self::F],
        c: <Self::F as Field>::Twiddle,
    );
    /// Register rounds of butterflies of `kind` ([`ADD`], else [`CT`]; see
    /// the ISA's `register_rounds`).
    ///
    /// # Safety
    /// As [`Entry::run_group`].
    unsafe fn register_rounds(
        kind: u8,
        data: &mut [Self::F],
        twiddles: &[<Self::F as Field>::Twiddle],
        rounds: usize,
    );
}

/// No kernels: an ISA this build does not compile (AVX-512 and AVX2 on
/// AArch64, NEON on x86-64). Never available, so never called.
pub(crate) struct Absent<F>(core::marker::PhantomData<F>);

// SAFETY: never available, so `Backend::check` refuses the backend and no
// entry point is reached.
unsafe impl<F: Field> Entry for Absent<F> {
    type F = F;
    const LANES: usize = 1;
    const NAME: &'static str = "portable";
    const TRANSPOSED_NAME: &'static str = "portable";
    fn available() -> bool {
        false
    }
    fn lane_table(standard: Vec<F::Twiddle>) -> Vec<F::Twiddle> {
        standard
    }
    fn shift_twiddles(_: ButterflyKind, _: &[F::Twiddle]) -> bool {
        false
    }
    unsafe fn run_group(_: &mut [F], _: &GroupKernel<'_, F>) {
        unreachable!("an ISA this build lacks")
    }
    unsafe fn run_group_moving(_: &mut [F], _: &GroupKernel<'_, F>, _: &mut RowMoves<'_, F>) {
        unreachable!("an ISA this build lacks")
    }
    unsafe fn mul_add(_: &mut [F], _: Option<&[F]>, _: &[F], _: F::Twiddle) {
        unreachable!("an ISA this build lacks")
    }
    unsafe fn register_rounds(_: u8, _: &mut [F], _: &[F::Twiddle], _: usize) {
        unreachable!("an ISA this build lacks")
    }
}

/// The body of the ISAs' `mul_add`: `dst = a + c·b` a register at a time,
/// the tail with a partial load and store.
#[inline(always)]
pub(crate) fn mul_add_body<P: Packed>(
    dst: &mut [P::F],
    a: Option<&[P::F]>,
    b: &[P::F],
    c: <P::F as Field>::Twiddle,
) {
    let n = dst.len();
    assert!(b.len() >= n && a.is_none_or(|a| a.len() >= n));
    let w = P::broadcast(c);
    // Whole registers with a constant count (plain loads and stores), then
    // the partial tail.
    let whole = n / P::LANES * P::LANES;
    for at in (0..whole).step_by(P::LANES) {
        mul_add_register::<P>(dst, a, b, w, at, P::LANES);
    }
    if whole < n {
        mul_add_register::<P>(dst, a, b, w, whole, n - whole);
    }
}

/// The `m` elements at `at` of [`mul_add_body`]. A plain function, not a
/// closure: it must inline into the target-feature loop.
#[inline(always)]
fn mul_add_register<P: Packed>(
    dst: &mut [P::F],
    a: Option<&[P::F]>,
    b: &[P::F],
    w: P::Twiddle,
    at: usize,
    m: usize,
) {
    let x = match a {
        Some(a) => P::load(&a[at..], m),
        None => P::load(&dst[at..], m),
    };
    let y = P::load(&b[at..], m);
    x.add(y.mul(w)).store(&mut dst[at..], m);
}

pub(crate) const CT: u8 = 0;
pub(crate) const GS: u8 = 1;
pub(crate) const ADD: u8 = 2;
pub(crate) const ADD_INV: u8 = 3;

/// The butterfly sets of a plain group, block by block. This and the other
/// loop bodies below inline into the per-ISA wrappers of
/// [`packed_entry_points`], and run only there, with the ISA's features.
#[inline(always)]
pub(crate) fn run_body<P: Packed, const R: usize, const KIND: u8>(
    buf: &mut [P::F],
    group: &GroupKernel<'_, P::F>,
) {
    let block_len = group.width << group.log_rows;
    let run_len = block_len / R;
    assert!(run_len > 0 && buf.len() % block_len == 0);
    let scale = group
        .scale
        .map(|s| P::broadcast(<P::F as Field>::prepare_twiddle(s)));
    let shifts = shift_twiddles::<P, KIND>(group.twiddles);
    for (block, twiddles) in buf
        .chunks_exact_mut(block_len)
        .zip(group.twiddles.chunks_exact(R - 1).cycle())
    {
        let (w, first_trivial) = block_twiddles::<P, R>(twiddles);
        if shifts {
            let w = Pow2Twiddles::<P, R>::new(w, twiddles);
            if first_trivial {
                run_block::<P, R, KIND, true>(block, run_len, &w, scale);
            } else {
                run_block::<P, R, KIND, false>(block, run_len, &w, scale);
            }
        } else if first_trivial {
            run_block::<P, R, KIND, true>(block, run_len, &w, scale);
        } else {
            run_block::<P, R, KIND, false>(block, run_len, &w, scale);
        }
    }
}

/// Whether a group of kind `KIND` runs shift butterflies: the packing has
/// them, the butterflies multiply (Cooley–Tukey or Gentleman–Sande), and
/// every twiddle of the group is ±2^k (a plain Goldilocks DFT's six
/// smallest layers). Decided once per group call from its (public)
/// twiddles; a group with a general twiddle fails at the first.
#[inline(always)]
pub(crate) fn shift_twiddles<P: Packed, const KIND: u8>(
    twiddles: &[<P::F as Field>::Twiddle],
) -> bool {
    if !P::SHIFT_TWIDDLES || !(KIND == CT || KIND == GS) {
        return false;
    }
    for w in twiddles {
        if P::power_of_two(w).is_none() {
            return false;
        }
    }
    true
}

/// A block's R − 1 twiddles broadcast to registers, and whether the first
/// sub-block of every layer has a trivial twiddle: 0 in the first block of
/// an unshifted additive transform, 1 in that of a plain DFT. Such a block
/// runs a variant without those products. Twiddles are public: the branch
/// this feeds depends on the plan, never on the data.
#[inline(always)]
fn block_twiddles<P: Packed, const R: usize>(
    twiddles: &[<P::F as Field>::Twiddle],
) -> ([P::Twiddle; R], bool) {
    // Plain loops, not closures: everything here must inline into the
    // target-feature loops (`run_body`, …), whose features closures would not
    // inherit.
    let mut w = [P::broadcast(twiddles[0]); R];
    for k in 1..R - 1 {
        w[k] = P::broadcast(twiddles[k]);
    }
    let mut first_trivial = true;
    for i in 0..R.trailing_zeros() as usize {
        first_trivial &= P::twiddle_is_trivial(&twiddles[(1 << i) - 1]);
    }
    (w, first_trivial)
}

/// The compute ceiling of a radix-8 register group: two butterfly sets of
/// 8 registers each (`data`'s first 16 registers' worth) run `rounds` times
/// with the same 7 broadcast `twiddles` and no load or store in between,
/// then stored back. The same layer code as every group (`butterflies`),
/// minus the memory traffic and the twiddle loads; the two sets are
/// independent, so the rounds are bound by throughput, not latency.
#[inline(always)]
pub(crate) fn register_rounds_body<P: Packed, const KIND: u8>(
    data: &mut [P::F],
    twiddles: &[<P::F as Field>::Twiddle],
    rounds: usize,
) {
    assert!(data.len() >= 16 * P::LANES && twiddles.len() >= 7);
    let (w, _) = block_twiddles::<P, 8>(twiddles);
    let mut x = [P::load(data, P::LANES); 8];
    let mut y = x;
    for j in 0..8 {
        x[j] = P::load(&data[j * P::LANES..], P::LANES);
        y[j] = P::load(&data[(8 + j) * P::LANES..], P::LANES);
    }
    for _ in 0..rounds {
        butterflies::<P, 8, KIND, false>(&mut x, &w, None);
        butterflies::<P, 8, KIND, false>(&mut y, &w, None);
    }
    for j in 0..8 {
        x[j].store(&mut data[j * P::LANES..], P::LANES);
        y[j].store(&mut data[(8 + j) * P::LANES..], P::LANES);
    }
}

/// Registers a run needs before it is re-framed: a shorter run's two masked
/// loads and two masked stores per pair cost more than the line splits they
/// save (in L2, 8-lane GF(2^64) rows, one register a run in the last groups,
/// took 1.07 × as long re-framed; from 8 registers on re-framing is neutral
/// in L2 and saves the splits' cost in memory-bound passes).
const MIN_REFRAMED_REGISTERS: usize = 8;

/// The re-framing offset of a run of `len` elements at `ptr` (see
/// [`Packed::ALIGN`]): the elements before the first aligned address, or 0
/// where the run is aligned, shorter than [`MIN_REFRAMED_REGISTERS`] or not
/// whole registers, or `P` never re-frames. Runs `len` apart share it.
#[inline(always)]
fn frame<P: Packed>(ptr: *const P::F, len: usize) -> usize {
    let size = core::mem::size_of::<P::F>();
    if P::ALIGN == 0 || len < MIN_REFRAMED_REGISTERS * P::LANES || !len.is_multiple_of(P::LANES) {
        return 0;
    }
    let misaligned = ptr as usize % P::ALIGN;
    if misaligned == 0 || !misaligned.is_multiple_of(size) {
        return 0;
    }
    (P::ALIGN - misaligned) / size
}

/// The butterfly sets of one block: R runs of `run_len` elements, a
/// register at a time. `FIRST_TRIVIAL`: the first sub-block of every layer
/// has a trivial twiddle (0 for additive kinds, 1 for multiplicative ones),
/// and its products are skipped.
#[allow(
    clippy::needless_range_loop,
    reason = "plain index loops: iterator adapters here left calls in the kernel"
)]
#[inline(always)]
fn run_block<P: Packed, const R: usize, const KIND: u8, const FIRST_TRIVIAL: bool>(
    block: &mut [P::F],
    run_len: usize,
    w: &impl LayerTwiddles<P>,
    scale: Option<P::Twiddle>,
) {
    let h = frame::<P>(block.as_ptr(), run_len);
    let (first, end) = if h > 0 {
        (h, run_len - (P::LANES - h))
    } else {
        (0, run_len)
    };
    // Whole registers with full loads and stores (a constant mask, which
    // the ISAs' masked forms fold away), then a partial last register where
    // a run is not whole registers.
    let whole = first + (end - first) / P::LANES * P::LANES;
    // The one bounds check of the block: every register below lies in it.
    assert!(R * run_len <= block.len() && end <= run_len);
    for start in (first..whole).step_by(P::LANES) {
        block_register::<P, R, KIND, FIRST_TRIVIAL>(block, run_len, start, P::LANES, w, scale);
    }
    if whole < end {
        block_register::<P, R, KIND, FIRST_TRIVIAL>(block, run_len, whole, end - whole, w, scale);
    }
    // A misaligned block (run_len whole registers, so every run shares the
    // block's alignment): aligned registers, then the register of each run's
    // head and tail (see `Packed::ALIGN`; last, so the aligned ones walk
    // each run in address order, as the prefetchers expect).
    if h > 0 {
        let tail = run_len - (P::LANES - h);
        let mut x = [P::load_pair(block, &block[tail..], h); R];
        for j in 1..R {
            let run = &block[j * run_len..];
            x[j] = P::load_pair(run, &run[tail..], h);
        }
        butterflies::<P, R, KIND, FIRST_TRIVIAL>(&mut x, w, scale);
        for (j, v) in x.iter().enumerate() {
            let (head, rest) = block[j * run_len..].split_at_mut(tail);
            v.store_pair(head, rest, h);
        }
    }
}

/// The butterflies of the `n` elements at `start` of every run of a block.
#[allow(
    clippy::needless_range_loop,
    reason = "plain index loops: iterator adapters here left calls in the kernel"
)]
#[inline(always)]
fn block_register<P: Packed, const R: usize, const KIND: u8, const FIRST_TRIVIAL: bool>(
    block: &mut [P::F],
    run_len: usize,
    start: usize,
    n: usize,
    w: &impl LayerTwiddles<P>,
    scale: Option<P::Twiddle>,
) {
    debug_assert!(R * run_len <= block.len() && start + n <= run_len && n <= P::LANES);
    // Raw slices of the R registers, not `block[j * run_len + start..]`:
    // those bounds checks, two per register, cost the radix-8 groups of a
    // single column (one set per block) about as many scalar instructions
    // as their stores.
    let base = block.as_mut_ptr();
    // SAFETY (every `run_slice` below): `run_block` checked R·run_len ≤
    // block.len() and start + n ≤ run_len for every register it asks for,
    // so elements j·run_len + start .. + n (j < R) lie inside `block`, which
    // this function borrows mutably; each slice lives for its one load or
    // store.
    let mut x = [P::load(unsafe { run_slice(base, start, n) }, n); R];
    for j in 1..R {
        x[j] = P::load(unsafe { run_slice(base, j * run_len + start, n) }, n);
    }
    butterflies::<P, R, KIND, FIRST_TRIVIAL>(&mut x, w, scale);
    for (j, v) in x.iter().enumerate() {
        v.store(unsafe { run_slice(base, j * run_len + start, n) }, n);
    }
}

/// The `n` elements at `at` of the buffer at `base`.
///
/// # Safety
/// `base + at .. base + at + n` lies inside one buffer valid for reads and
/// writes, and nothing else accesses it while the slice lives.
#[inline(always)]
unsafe fn run_slice<'a, T>(base: *mut T, at: usize, n: usize) -> &'a mut [T] {
    // SAFETY: the caller's contract.
    unsafe { core::slice::from_raw_parts_mut(base.add(at), n) }
}

/// Runs a *transposed* group: its super-blocks are one register each
/// (R rows × a run of r = `width` elements = `LANES`), so its butterflies
/// would pair lanes of one register (the last layers of a single column).
/// R consecutive super-blocks are transposed in registers instead — an
/// R × R transpose of r-element pieces in log₂R exchange steps — which puts
/// row j of all R super-blocks in register j, lane s·r + p holding super-block
/// s. The butterflies then run as in [`run_body`] with one twiddle per lane.
/// The twiddles are laid out per chunk of R super-blocks as [k][super-block]
/// ([`transposed_twiddles`]).
#[allow(
    clippy::needless_range_loop,
    reason = "plain index loops: iterator adapters here left calls in the kernel"
)]
/// Where the layers of a butterfly set find twiddle k (in heap order: the
/// first layer's, then the second layer's two, …).
pub(crate) trait LayerTwiddles<P: Packed> {
    fn twiddle(&self, k: usize) -> P::Twiddle;
    /// The Cooley–Tukey butterfly with twiddle k.
    #[inline(always)]
    fn ct(&self, k: usize, a: P, b: P) -> (P, P) {
        a.ct_butterfly(b, self.twiddle(k))
    }
    /// The Gentleman–Sande butterfly with twiddle k.
    #[inline(always)]
    fn gs(&self, k: usize, a: P, b: P) -> (P, P) {
        a.gs_butterfly(b, self.twiddle(k))
    }
    /// [`LayerTwiddles::ct`] on lazy values ([`Packed::ct_butterfly_lazy`]).
    #[inline(always)]
    fn ct_lazy<const IN: bool, const OUT: bool>(&self, k: usize, a: P, b: P) -> (P, P) {
        a.ct_butterfly_lazy::<IN, OUT>(b, self.twiddle(k))
    }
}

/// A block's twiddles, every one ±2^k: the butterflies multiply by shifts
/// ([`Packed::ct_butterfly_pow2`]); `w` serves the group's other uses.
pub(crate) struct Pow2Twiddles<P: Packed, const R: usize> {
    w: [P::Twiddle; R],
    pow2: [PowerOfTwo; R],
}

impl<P: Packed, const R: usize> Pow2Twiddles<P, R> {
    /// From the block's broadcast twiddles and their R − 1 field values,
    /// each ±2^k ([`shift_twiddles`] checked the group's).
    #[inline(always)]
    pub(crate) fn new(w: [P::Twiddle; R], twiddles: &[<P::F as Field>::Twiddle]) -> Self {
        let mut pow2 = [PowerOfTwo {
            k: 0,
            negative: false,
        }; R];
        for k in 0..R - 1 {
            if let Some(p) = P::power_of_two(&twiddles[k]) {
                pow2[k] = p;
            }
        }
        Self { w, pow2 }
    }
}

impl<P: Packed, const R: usize> LayerTwiddles<P> for Pow2Twiddles<P, R> {
    #[inline(always)]
    fn twiddle(&self, k: usize) -> P::Twiddle {
        self.w[k]
    }
    #[inline(always)]
    fn ct(&self, k: usize, a: P, b: P) -> (P, P) {
        a.ct_butterfly_pow2(b, self.pow2[k])
    }
    #[inline(always)]
    fn gs(&self, k: usize, a: P, b: P) -> (P, P) {
        a.gs_butterfly_pow2(b, self.pow2[k])
    }
    #[inline(always)]
    fn ct_lazy<const IN: bool, const OUT: bool>(&self, k: usize, a: P, b: P) -> (P, P) {
        // Shift products are Goldilocks', whose values stay canonical.
        debug_assert!(!P::LAZY);
        a.ct_butterfly_pow2(b, self.pow2[k])
    }
}

/// Twiddles broadcast to registers once per block (one twiddle for every
/// lane).
impl<P: Packed, const R: usize> LayerTwiddles<P> for [P::Twiddle; R] {
    #[inline(always)]
    fn twiddle(&self, k: usize) -> P::Twiddle {
        self[k]
    }
}

/// Twiddles that differ per lane (a transposed group), loaded where a layer
/// uses them rather than all at once: R − 1 of them would not fit the
/// register file beside the R data registers.
struct LaneTwiddles<'a, T> {
    table: &'a [T],
    /// Twiddles per k (one per super-block of the chunk).
    stride: usize,
    shift: usize,
}

impl<P: Packed> LayerTwiddles<P> for LaneTwiddles<'_, <P::F as Field>::Twiddle> {
    #[inline(always)]
    fn twiddle(&self, k: usize) -> P::Twiddle {
        P::load_twiddles(&self.table[k * self.stride..], self.shift)
    }
}

/// All the layers of a butterfly set of R rows in registers (in the kind's
/// order), then the optional scale.
#[inline(always)]
fn butterflies<P: Packed, const R: usize, const KIND: u8, const FIRST_TRIVIAL: bool>(
    x: &mut [P; R],
    w: &impl LayerTwiddles<P>,
    scale: Option<P::Twiddle>,
) {
    let g = R.trailing_zeros() as usize;
    // Literal layer indices, not a loop over them: each layer's loops then
    // have constant bounds and unroll fully, so `x` stays in registers.
    if KIND == CT || KIND == ADD {
        layer::<P, R, KIND, FIRST_TRIVIAL>(x, w, 0);
        if g > 1 {
            layer::<P, R, KIND, FIRST_TRIVIAL>(x, w, 1);
        }
        if g > 2 {
            layer::<P, R, KIND, FIRST_TRIVIAL>(x, w, 2);
        }
        if g > 3 {
            layer::<P, R, KIND, FIRST_TRIVIAL>(x, w, 3);
        }
    } else {
        if g > 3 {
            layer::<P, R, KIND, FIRST_TRIVIAL>(x, w, 3);
        }
        if g > 2 {
            layer::<P, R, KIND, FIRST_TRIVIAL>(x, w, 2);
        }
        if g > 1 {
            layer::<P, R, KIND, FIRST_TRIVIAL>(x, w, 1);
        }
        layer::<P, R, KIND, FIRST_TRIVIAL>(x, w, 0);
    }
    if let Some(s) = scale {
        for v in x.iter_mut() {
            *v = v.mul(s);
        }
    }
}

/// Layer i of a butterfly set of R rows in registers. `FIRST_TRIVIAL`: the
/// twiddle of sub-block 0 is 0 (additive kinds: the product vanishes) or 1
/// (multiplicative kinds: the product is the factor itself).
#[inline(always)]
fn layer<P: Packed, const R: usize, const KIND: u8, const FIRST_TRIVIAL: bool>(
    x: &mut [P; R],
    w: &impl LayerTwiddles<P>,
    i: usize,
) {
    let half = R >> (i + 1);
    // Cooley–Tukey layers run first to last (i = 0 … log₂R − 1): lazy
    // packings keep [0, 2p) after every layer but the last.
    let g = R.trailing_zeros() as usize;
    let (lazy_in, lazy_out) = (P::LAZY && i > 0, P::LAZY && i + 1 < g);
    for k in 0..1usize << i {
        let index = (1 << i) - 1 + k;
        // The additive butterflies multiply by the twiddle itself, loaded
        // once per k; the multiplicative ones go through `w`, whose twiddles
        // may be in another form (compact lanes).
        let t = if KIND == ADD || KIND == ADD_INV {
            Some(w.twiddle(index))
        } else {
            None
        };
        for j in k * 2 * half..k * 2 * half + half {
            let (a, b) = (x[j], x[j + half]);
            (x[j], x[j + half]) = match KIND {
                ADD | ADD_INV if FIRST_TRIVIAL && k == 0 => (a, b.add(a)),
                CT if FIRST_TRIVIAL && k == 0 => match (lazy_in, lazy_out) {
                    (false, false) => a.sum_difference_lazy::<false, false>(b),
                    (false, true) => a.sum_difference_lazy::<false, true>(b),
                    (true, false) => a.sum_difference_lazy::<true, false>(b),
                    (true, true) => a.sum_difference_lazy::<true, true>(b),
                },
                GS if FIRST_TRIVIAL && k == 0 => (a.add(b), a.sub(b)),
                CT => match (lazy_in, lazy_out) {
                    (false, false) => w.ct(index, a, b),
                    (false, true) => w.ct_lazy::<false, true>(index, a, b),
                    (true, false) => w.ct_lazy::<true, false>(index, a, b),
                    (true, true) => w.ct_lazy::<true, true>(index, a, b),
                },
                GS => w.gs(index, a, b),
                ADD => {
                    let a = a.add(b.mul(t.expect("loaded for additive kinds")));
                    (a, b.add(a))
                }
                _ => {
                    let b = b.add(a);
                    (a.add(b.mul(t.expect("loaded for additive kinds"))), b)
                }
            };
        }
    }
}

/// Checks of a packed Goldilocks form against the field, shared by the ISAs'
/// unit tests (each calls them from a function compiled with its features).
#[cfg(test)]
pub(crate) mod goldilocks_checks {
    use super::Packed;
    use crate::field::{Field, Goldilocks};
    #[allow(unused_imports)]
    use crate::test_prelude::*;

    /// Canonical words at the edges of the packed reductions' carries and
    /// borrows (0, 1, near p, near 2^32, near 2^63), then scattered ones.
    pub(crate) fn words() -> Vec<u64> {
        let p = Goldilocks::MODULUS;
        let mut words = alloc::vec![
            0,
            1,
            2,
            p - 1,
            p - 2,
            p - (1 << 32),
            (1 << 32) - 1,
            1 << 32,
            (1 << 32) + 1,
            1 << 63,
            (1 << 63) - 1,
            (1 << 63) + (1 << 32),
            p >> 1,
            (p >> 1) + 1,
        ];
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..if cfg!(miri) { 2 } else { 18 } {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            words.push(x % p);
        }
        words
    }

    fn out<P: Packed<F = Goldilocks>>(v: P) -> Vec<Goldilocks> {
        let mut s = alloc::vec![Goldilocks::new(0); P::LANES];
        v.store(&mut s, P::LANES);
        s
    }

    /// `mul`, `ct_butterfly` and `gs_butterfly` of every triple of
    /// [`words`] (a, b, w), a register of lanes at a time with a different
    /// twiddle in each lane, and the sums and differences alone; every
    /// result canonical. Miri takes every 37th triple.
    #[inline(always)]
    pub(crate) fn every_triple<P: Packed<F = Goldilocks>>() {
        let words = words();
        let g = Goldilocks::new;
        let mut triples = Vec::new();
        for &a in &words {
            for &b in &words {
                for &w in &words {
                    triples.push((g(a), g(b), g(w)));
                }
            }
        }
        let step = if cfg!(miri) { 37 } else { 1 };
        let triples: Vec<_> = triples.into_iter().step_by(step).collect();
        for chunk in triples.chunks_exact(P::LANES) {
            let a: Vec<Goldilocks> = chunk.iter().map(|t| t.0).collect();
            let b: Vec<Goldilocks> = chunk.iter().map(|t| t.1).collect();
            let w: Vec<Goldilocks> = chunk.iter().map(|t| t.2).collect();
            let (pa, pb) = (P::load(&a, P::LANES), P::load(&b, P::LANES));
            let pw = P::load_twiddles(&w, 0);
            let (ct0, ct1) = pa.ct_butterfly(pb, pw);
            let (gs0, gs1) = pa.gs_butterfly(pb, pw);
            let (product, sum, diff) = (pb.mul(pw), pa.add(pb), pa.sub(pb));
            let outs = [product, sum, diff, ct0, ct1, gs0, gs1].map(out::<P>);
            for i in 0..P::LANES {
                let (x, y, t) = (a[i], b[i], w[i]);
                let expected = [
                    y * t,
                    x + y,
                    x - y,
                    x + y * t,
                    x - y * t,
                    x + y,
                    (x - y) * t,
                ];
                for (name, (got, want)) in [
                    "mul",
                    "add",
                    "sub",
                    "ct sum",
                    "ct difference",
                    "gs sum",
                    "gs product",
                ]
                .iter()
                .zip(outs.iter().map(|o| o[i]).zip(expected))
                {
                    // Messages formatted only on failure (Miri's time).
                    let (x, y, t) = (x.value(), y.value(), t.value());
                    assert_eq!(got, want, "{name}: a {x} b {y} w {t}");
                    assert!(
                        got.value() < Goldilocks::MODULUS,
                        "{name} not canonical: a {x} b {y} w {t}"
                    );
                }
            }
        }
    }

    /// The shift butterflies against the field for every twiddle ±2^k
    /// (k < 96, both signs) and every pair of [`words`], a register of
    /// pairs at a time; every result canonical. Miri takes a sample.
    #[inline(always)]
    pub(crate) fn every_power_of_two<P: Packed<F = Goldilocks>>() {
        assert!(P::SHIFT_TWIDDLES);
        let words = words();
        let g = Goldilocks::new;
        let pairs: Vec<(Goldilocks, Goldilocks)> = words
            .iter()
            .flat_map(|&a| words.iter().map(move |&b| (g(a), g(b))))
            .step_by(if cfg!(miri) { 3 } else { 1 })
            .collect();
        let two = g(2);
        // Under Miri every 13th exponent: both signs, small and large k.
        for e in (0..192u64).step_by(if cfg!(miri) { 13 } else { 1 }) {
            let w = two.pow(e);
            let pw = P::power_of_two(&w).expect("every power of 2 is one");
            assert_eq!((pw.k, pw.negative), (e as u32 % 96, e >= 96));
            for chunk in pairs.chunks_exact(P::LANES) {
                let a: Vec<Goldilocks> = chunk.iter().map(|t| t.0).collect();
                let b: Vec<Goldilocks> = chunk.iter().map(|t| t.1).collect();
                let (pa, pb) = (P::load(&a, P::LANES), P::load(&b, P::LANES));
                let (ct0, ct1) = pa.ct_butterfly_pow2(pb, pw);
                let (gs0, gs1) = pa.gs_butterfly_pow2(pb, pw);
                let outs = [ct0, ct1, gs0, gs1].map(out::<P>);
                for i in 0..P::LANES {
                    let (x, y) = (a[i], b[i]);
                    let expected = [x + y * w, x - y * w, x + y, (x - y) * w];
                    for (got, want) in outs.iter().map(|o| o[i]).zip(expected) {
                        let (x, y) = (x.value(), y.value());
                        assert_eq!(got, want, "a {x} b {y} w 2^{e}");
                        assert!(
                            got.value() < Goldilocks::MODULUS,
                            "not canonical: a {x} b {y} w 2^{e}"
                        );
                    }
                }
            }
        }
        assert!(P::power_of_two(&g(3)).is_none() && P::power_of_two(&g(0)).is_none());
    }
}

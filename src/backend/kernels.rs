//! The interface between the driver and the kernels: one register group as
//! a kernel sees it ([`GroupKernel`]), the per-field kernel table
//! ([`Kernels`], sealed), and the shape checks every kernel relies on.

use super::isa::{Backend, Checked};
use super::lattice::LazyBounds;
use super::memory::RowMoves;
use super::{ring, scalar};
use crate::field::Field;
use crate::transform::ButterflyKind;
use alloc::vec::Vec;

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
    impl<F: crate::backend::dispatch::PackedField> Sealed for F {}
    impl Sealed for crate::field::Gf2_192 {}
    impl Sealed for crate::field::BabyBear4 {}
}

/// The kernels a field has, per backend: every field of this crate
/// implements it (the trait is sealed), and generic code bounds its field
/// parameter by it (`F: Kernels + TwoAdicField`). Inside the crate, a new
/// field gets the generic scalar kernels with an empty impl; fields with
/// SIMD kernels or deferred reductions override the methods.
pub trait Kernels: Field + sealed::Sealed {
    /// The transforms of this field a plan's text reads back into
    /// ([`Plan::from_text`](crate::Plan::from_text)).
    #[doc(hidden)]
    fn constructors() -> crate::transform::Constructors<Self> {
        crate::transform::Constructors::none()
    }

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

    /// Whether a register group of `kind` with these twiddles multiplies by
    /// shifts on `backend`: every twiddle is ±2^k and the backend's packing
    /// has shift products (Goldilocks on AVX-512 and AVX2, where the six
    /// smallest layers of a plain DFT qualify). Plans print it; the kernel
    /// decides the same from the twiddles it is handed.
    fn shift_twiddles(backend: Backend, kind: ButterflyKind, twiddles: &[Self::Twiddle]) -> bool {
        let _ = (backend, kind, twiddles);
        false
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

    /// `dst[i] = a[i] + c·b[i]` (`a` = `dst` when `None`) with `backend`'s
    /// kernels: one term of a pruned transform's fold. `a` and `b` are at
    /// least as long as `dst`.
    fn mul_add(
        backend: Checked<Self>,
        dst: &mut [Self],
        a: Option<&[Self]>,
        b: &[Self],
        c: Self::Twiddle,
    ) {
        let _ = backend;
        scalar::mul_add(dst, a, b, c);
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
pub(crate) fn moves_around<F: Field>(
    buf: &mut [F],
    moves: &mut RowMoves<'_, F>,
    run: impl FnOnce(&mut [F]),
) {
    if let Some(from) = &moves.from {
        from.copy_into(buf);
        let width = from.width();
        for (t, &c) in moves.fold.iter().enumerate() {
            for (i, dst) in buf.chunks_exact_mut(width).take(from.rows()).enumerate() {
                scalar::mul_add(dst, None, from.term_row(i, t + 1), c);
            }
        }
    }
    run(buf);
    if let Some(to) = &mut moves.to {
        to.copy_from(buf);
    }
}

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
pub(super) fn packed_runs_fill_registers<F: Field>(
    group: &GroupKernel<'_, F>,
    lanes: usize,
) -> bool {
    (group.width << group.log_rows) >> group.log_radix >= lanes
}

/// Whether a group's rows are whole registers of `lanes` elements, as the
/// packed kernel that moves rows needs (it loads row by row).
pub(super) fn packed_rows_fill_registers<F: Field>(
    group: &GroupKernel<'_, F>,
    lanes: usize,
) -> bool {
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

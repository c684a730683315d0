//! The generic whole-polynomial NTT and inverse over a [`RingLanes`] type
//! (see the `backend::ring` module doc for the phases and the table).

use super::RingLanes;
#[cfg(test)]
use crate::transform::ring::permuted_address;

/// Where register `reg` of a block (after its stages) is stored in the
/// permuted order, as a register index within the block: the pair bit
/// (bit 0) moves up one place per stage this ISA lacks against 512-bit
/// registers.
const fn permuted_slot(reg: usize, missing_stages: usize) -> usize {
    let pair = reg & 1;
    let rest = reg >> 1;
    let low = rest & ((1 << missing_stages) - 1);
    let high = rest >> missing_stages;
    (high << (missing_stages + 1)) | (pair << missing_stages) | low
}

/// Stages a register of `L` lacks against a 64-byte one.
const fn missing_stages(stages: usize) -> usize {
    4 - stages
}

/// Word offsets into a kernel's table, in the order the kernel reads it.
struct Cursor(usize);

impl Cursor {
    #[inline(always)]
    fn take(&mut self, words: usize) -> usize {
        let at = self.0;
        self.0 += words;
        at
    }
}

/// A Cooley–Tukey layer between the first `BLOCK` registers of `r`:
/// registers `distance` apart, the layer's k-th twiddle at
/// `twiddles + k·SPLAT_TWIDDLE·LANES`.
///
/// # Safety
/// `twiddles` points to the layer's twiddles; `L`'s features are enabled.
#[inline(always)]
unsafe fn ct_between<L: RingLanes>(r: &mut [L; 16], distance: usize, twiddles: *const L::Word) {
    unroll!(16, i => {
        if i < L::BLOCK && i & distance == 0 {
            let k = i / (2 * distance);
            // SAFETY: twiddle k of the layer, inside the table.
            (r[i], r[i + distance]) = unsafe {
                L::ct_splat(r[i], r[i + distance], twiddles.add(k * L::SPLAT_TWIDDLE * L::LANES))
            };
        }
    });
}

/// How a Gentleman–Sande layer leaves its sums.
#[derive(Clone, Copy)]
enum Sums<W> {
    /// As they are.
    Raw,
    /// Reduced (`RingLanes::reduce_sums`).
    Reduced,
    /// Multiplied by the twiddle at this address (the inverse's last layer,
    /// whose differences' twiddles carry the scale).
    Scaled(*const W),
}

/// A Gentleman–Sande layer between the registers of `r`.
///
/// # Safety
/// As [`ct_between`]; a `Sums::Scaled` address points to a twiddle.
#[inline(always)]
unsafe fn gs_between<L: RingLanes>(
    r: &mut [L; 16],
    distance: usize,
    twiddles: *const L::Word,
    sums: Sums<L::Word>,
) {
    unroll!(16, i => {
        if i < L::BLOCK && i & distance == 0 {
            let k = i / (2 * distance);
            let (a, b) = (r[i], r[i + distance]);
            // SAFETY: twiddle k of the layer, and the scale, in the table.
            unsafe {
                r[i] = match sums {
                    Sums::Raw => a.add(b),
                    Sums::Reduced => a.add(b).reduce_sums(),
                    Sums::Scaled(f) => a.add(b).mul_splat(f),
                };
                r[i + distance] = a
                    .sub(b)
                    .mul_splat(twiddles.add(k * L::SPLAT_TWIDDLE * L::LANES));
            }
        }
    });
}

/// Words of one phase-2 block's table: its lane twiddles (the stages),
/// its splat twiddles (the layers between its registers), and both, the
/// stride from one block's table to the next.
#[inline(always)]
const fn block_table_words<L: RingLanes>() -> (usize, usize, usize) {
    let lanes = L::BLOCK / 2 * L::STAGES * L::LANE_TWIDDLE * L::LANES;
    let inter = ((1 << L::INTER) - 1) * L::SPLAT_TWIDDLE * L::LANES;
    (lanes, inter, lanes + inter)
}

/// Phase 2's unit `g` of `group`: block `unit_block` of polynomial
/// `g / INTERLEAVE`.
#[inline(always)]
fn unit_block<L: RingLanes>(group: usize, g: usize) -> usize {
    group * L::INTERLEAVE + g % L::INTERLEAVE
}

/// The first word of phase 2's unit `g` of `group`.
///
/// # Safety
/// `polys[g / INTERLEAVE]` holds a polynomial.
#[inline(always)]
unsafe fn unit_base<L: RingLanes>(
    polys: [*mut L::Word; 2],
    group: usize,
    g: usize,
) -> *mut L::Word {
    // SAFETY: the block is inside the polynomial (as the caller's contract).
    unsafe { polys[g / L::INTERLEAVE].add(unit_block::<L>(group, g) * L::BLOCK * L::LANES) }
}

/// Phase 1's register `i` of `round`: 2^SPLIT registers REGS/2^SPLIT
/// apart × BLOCK/2^SPLIT consecutive columns.
#[inline(always)]
fn phase1_register<L: RingLanes>(round: usize, i: usize) -> usize {
    let columns = L::BLOCK >> L::SPLIT;
    let stride = L::REGS >> L::SPLIT;
    (i / columns) * stride + round * columns + i % columns
}

/// The forward NTT (Cooley–Tukey) of the `P` (1 or 2) polynomials at
/// `polys` with the table at `table` (two run layer by layer together, as
/// `INTERLEAVE` blocks do): input |a| < q; output |a| < (LAYERS + 1)·q, or
/// canonical if `CANONICAL`; in standard order unless `PERMUTED`.
///
/// # Safety
/// `polys[..P]` each hold 256 words (distinct polynomials), `table`
/// `tables::forward_table`'s words for `L`;
/// the caller was compiled with `L`'s target features.
#[inline(always)]
pub(crate) unsafe fn forward<
    L: RingLanes,
    const P: usize,
    const CANONICAL: bool,
    const PERMUTED: bool,
>(
    polys: [*mut L::Word; 2],
    table: *const L::Word,
) {
    const { assert!(P >= 1 && L::INTERLEAVE * P <= 2) };
    let n = L::LANES;
    let mut at = Cursor(0);
    let columns = L::BLOCK >> L::SPLIT;
    // SAFETY (whole function): every register index is < REGS, so every
    // load and store stays inside the 256 words of `poly`; every table
    // offset is inside the table, whose layout `forward_table` writes in
    // this same order.
    unsafe {
        if L::SPLIT > 0 {
            // Phase 1: the first SPLIT layers, BLOCK registers at a time;
            // every round reads the same twiddles.
            let start = at.0;
            for (poly, round) in (0..P * L::REGS / L::BLOCK)
                .map(|u| (polys[u / (L::REGS / L::BLOCK)], u % (L::REGS / L::BLOCK)))
            {
                let mut r = [L::zero(); 16];
                unroll!(16, i => {
                    if i < L::BLOCK {
                        r[i] = L::load(poly.add(phase1_register::<L>(round, i) * n));
                    }
                });
                let mut t = Cursor(start);
                unroll!(2, layer => {
                    if layer < L::SPLIT {
                        let first = t.take((1 << layer) * L::SPLAT_TWIDDLE * n);
                        ct_between::<L>(
                            &mut r,
                            columns << (L::SPLIT - 1 - layer),
                            table.add(first),
                        );
                    }
                });
                at.0 = t.0;
                unroll!(16, i => {
                    if i < L::BLOCK {
                        r[i].store(poly.add(phase1_register::<L>(round, i) * n));
                    }
                });
            }
        }
        // Phase 2: blocks of BLOCK consecutive registers, INTERLEAVE at a
        // time, layer by layer across them (as in `inverse`).
        let (_, inter_words, block_words) = block_table_words::<L>();
        let first_block = at.take(L::REGS / L::BLOCK * block_words);
        for group in 0..L::REGS / L::BLOCK / L::INTERLEAVE {
            let mut r = [[L::zero(); 16]; 2];
            unroll!(2, g => {
                if g < L::INTERLEAVE * P {
                    let base = unit_base::<L>(polys, group, g);
                    unroll!(16, i => {
                        if i < L::BLOCK {
                            r[g][i] = L::load(base.add(i * n));
                        }
                    });
                }
            });
            let mut t = Cursor(0);
            unroll!(4, layer => {
                if layer < L::INTER {
                    let first = t.take((1 << layer) * L::SPLAT_TWIDDLE * n);
                    unroll!(2, g => {
                        if g < L::INTERLEAVE * P {
                            let block = table.add(first_block + unit_block::<L>(group, g) * block_words);
                            ct_between::<L>(&mut r[g], L::BLOCK >> (layer + 1), block.add(first));
                        }
                    });
                }
            });
            // Stage by stage across the pairs, as in `inverse`: the pairs'
            // chains are independent and the out-of-order window sees them
            // all at once.
            unroll!(4, s => {
                if s < L::STAGES {
                    unroll!(2, g => {
                        if g < L::INTERLEAVE * P {
                            let lanes = table.add(
                                first_block + unit_block::<L>(group, g) * block_words + inter_words,
                            );
                            unroll!(8, pair => {
                                if pair < L::BLOCK / 2 {
                                    let (x, y) = L::exchange(r[g][2 * pair], r[g][2 * pair + 1], s + 1);
                                    let w = lanes.add((pair * L::STAGES + s) * L::LANE_TWIDDLE * n);
                                    (r[g][2 * pair], r[g][2 * pair + 1]) = L::ct_lanes(x, y, w);
                                }
                            });
                        }
                    });
                }
            });
            unroll!(2, g => {
                if g < L::INTERLEAVE * P {
                    let base = unit_base::<L>(polys, group, g);
                    unroll!(8, pair => {
                        if pair < L::BLOCK / 2 {
                            let (mut x, mut y) = (r[g][2 * pair], r[g][2 * pair + 1]);
                            if CANONICAL {
                                (x, y) = (x.canonical(), y.canonical());
                            }
                            if PERMUTED {
                                let missing = missing_stages(L::STAGES);
                                x.store(base.add(permuted_slot(2 * pair, missing) * n));
                                y.store(base.add(permuted_slot(2 * pair + 1, missing) * n));
                            } else {
                                let (a, b) = L::to_standard(x, y);
                                a.store(base.add(2 * pair * n));
                                b.store(base.add((2 * pair + 1) * n));
                            }
                        }
                    });
                }
            });
        }
    }
}

/// The inverse NTT (Gentleman–Sande, then × n⁻¹) of the `P` polynomials at
/// `polys` (as [`forward`]): input
/// any word if `ANY_INPUT`, else |a| < q; in standard order unless
/// `PERMUTED`; output canonical if `CANONICAL`, else |a| < q.
///
/// # Safety
/// As [`forward`], with `tables::inverse_table`'s layout.
#[inline(always)]
pub(crate) unsafe fn inverse<
    L: RingLanes,
    const P: usize,
    const CANONICAL: bool,
    const PERMUTED: bool,
    const ANY_INPUT: bool,
>(
    polys: [*mut L::Word; 2],
    table: *const L::Word,
) {
    const { assert!(P >= 1 && L::INTERLEAVE * P <= 2) };
    let n = L::LANES;
    let mut at = Cursor(0);
    let columns = L::BLOCK >> L::SPLIT;
    // The sums of layer 0 are scaled by n⁻¹ separately (the differences'
    // twiddles carry it); the scale's twiddle comes first.
    let scale = table.wrapping_add(at.take(L::SPLAT_TWIDDLE * n));
    // SAFETY (whole function): as in `forward`, with `inverse_table`.
    unsafe {
        // Phase 2, INTERLEAVE blocks at a time, layer by layer across them:
        // one block's chain alone leaves the multipliers idle (a layer's
        // latency is longer than its four butterflies' issue time).
        let (lane_words, _, block_words) = block_table_words::<L>();
        let first_block = at.take(L::REGS / L::BLOCK * block_words);
        for group in 0..L::REGS / L::BLOCK / L::INTERLEAVE {
            let mut r = [[L::zero(); 16]; 2];
            unroll!(2, g => {
                if g < L::INTERLEAVE * P {
                    let base = unit_base::<L>(polys, group, g);
                    unroll!(8, pair => {
                        if pair < L::BLOCK / 2 {
                            let (mut x, mut y) = if PERMUTED {
                                let missing = missing_stages(L::STAGES);
                                (
                                    L::load(base.add(permuted_slot(2 * pair, missing) * n)),
                                    L::load(base.add(permuted_slot(2 * pair + 1, missing) * n)),
                                )
                            } else {
                                L::from_standard(
                                    L::load(base.add(2 * pair * n)),
                                    L::load(base.add((2 * pair + 1) * n)),
                                )
                            };
                            if L::inverse_reduces_input(ANY_INPUT) {
                                (x, y) = (x.reduce_input(), y.reduce_input());
                            }
                            (r[g][2 * pair], r[g][2 * pair + 1]) = (x, y);
                        }
                    });
                }
            });
            // Stage by stage across the pairs (not pair by pair): the pairs'
            // chains are independent, and in this order the out-of-order
            // window sees all of them at once.
            unroll!(4, s => {
                if s < L::STAGES {
                    let stage = L::STAGES - s;
                    unroll!(2, g => {
                        if g < L::INTERLEAVE * P {
                            let lanes =
                                table.add(first_block + unit_block::<L>(group, g) * block_words);
                            unroll!(8, pair => {
                                if pair < L::BLOCK / 2 {
                                    let (mut x, mut y) = (r[g][2 * pair], r[g][2 * pair + 1]);
                                    let w = lanes
                                        .add((pair * L::STAGES + stage - 1) * L::LANE_TWIDDLE * n);
                                    (x, y) = (x.add(y), x.sub(y).mul_lanes(w));
                                    if L::inverse_reduces_sums_after(s, ANY_INPUT) {
                                        // The sums alone, before the exchange
                                        // mixes them with the products.
                                        x = x.reduce_sums();
                                    }
                                    (r[g][2 * pair], r[g][2 * pair + 1]) = L::exchange(x, y, stage);
                                }
                            });
                        }
                    });
                }
            });
            let mut t = Cursor(0);
            unroll!(4, i => {
                if i < L::INTER {
                    let layer = L::INTER - 1 - i;
                    let first = lane_words + t.take((1 << layer) * L::SPLAT_TWIDDLE * n);
                    let last = L::SPLIT == 0 && layer == 0;
                    unroll!(2, g => {
                        if g < L::INTERLEAVE * P {
                            let block =
                                table.add(first_block + unit_block::<L>(group, g) * block_words);
                            gs_between::<L>(
                                &mut r[g],
                                L::BLOCK >> (layer + 1),
                                block.add(first),
                                sums::<L, ANY_INPUT>(L::STAGES + i, last, scale),
                            );
                        }
                    });
                }
            });
            unroll!(2, g => {
                if g < L::INTERLEAVE * P {
                    if L::SPLIT == 0 {
                        finish_inverse::<L, CANONICAL>(&mut r[g]);
                    }
                    let base = unit_base::<L>(polys, group, g);
                    unroll!(16, i => {
                        if i < L::BLOCK {
                            r[g][i].store(base.add(i * n));
                        }
                    });
                }
            });
        }
        if L::SPLIT > 0 {
            let start = at.0;
            for (poly, round) in (0..P * L::REGS / L::BLOCK)
                .map(|u| (polys[u / (L::REGS / L::BLOCK)], u % (L::REGS / L::BLOCK)))
            {
                let mut r = [L::zero(); 16];
                unroll!(16, i => {
                    if i < L::BLOCK {
                        r[i] = L::load(poly.add(phase1_register::<L>(round, i) * n));
                    }
                });
                let mut t = Cursor(start);
                unroll!(2, i => {
                    if i < L::SPLIT {
                        let layer = L::SPLIT - 1 - i;
                        let first = t.take((1 << layer) * L::SPLAT_TWIDDLE * n);
                        gs_between::<L>(
                            &mut r,
                            columns << (L::SPLIT - 1 - layer),
                            table.add(first),
                            sums::<L, ANY_INPUT>(L::STAGES + L::INTER + i, layer == 0, scale),
                        );
                    }
                });
                finish_inverse::<L, CANONICAL>(&mut r);
                unroll!(16, i => {
                    if i < L::BLOCK {
                        r[i].store(poly.add(phase1_register::<L>(round, i) * n));
                    }
                });
            }
        }
    }
}

/// How the inverse's step `step` leaves its sums: scaled in the last layer,
/// reduced where the lane type's schedule says.
#[inline(always)]
fn sums<L: RingLanes, const ANY_INPUT: bool>(
    step: usize,
    last: bool,
    scale: *const L::Word,
) -> Sums<L::Word> {
    if last {
        Sums::Scaled(scale)
    } else if L::inverse_reduces_sums_after(step, ANY_INPUT) {
        Sums::Reduced
    } else {
        Sums::Raw
    }
}

/// The inverse's last step: every word is a twiddle product (|r| < q);
/// canonical output adds q to the negative ones.
#[inline(always)]
fn finish_inverse<L: RingLanes, const CANONICAL: bool>(r: &mut [L; 16]) {
    if CANONICAL {
        unroll!(16, i => {
            if i < L::BLOCK {
                r[i] = r[i].positive();
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::super::tables::Shape;
    use super::*;
    #[allow(unused_imports)]
    use crate::test_prelude::*;

    #[test]
    fn permuted_slots_match_the_permuted_order() {
        // A block's register `reg` after its stages holds, at lane j, the
        // coefficient the layout says; stored at `permuted_slot`, it must
        // land where `permuted_address` puts it.
        for (word_bytes, last, layers) in [(2usize, 1usize, 7usize), (4, 0, 8)] {
            for register_bytes in [64usize, 32, 16] {
                let lanes = register_bytes / word_bytes;
                let stages = (register_bytes / 4).trailing_zeros() as usize;
                let block = match register_bytes {
                    64 => 256 / lanes,
                    32 => 8,
                    _ => 16,
                };
                let inter = block.trailing_zeros() as usize;
                let split = layers - inter - stages;
                let s = Shape {
                    lanes,
                    block,
                    layers,
                    stages,
                    inter,
                    split,
                };
                let x = s.pair_x(stages);
                // Y holds each X coefficient's partner at the last layer.
                let last_span = 1usize << last;
                for b in 0..256 / lanes / block {
                    for pair in 0..block / 2 {
                        let base = (b * block + 2 * pair) * lanes;
                        for (j, &c) in x.iter().enumerate() {
                            let coeff = base + c;
                            let partner = coeff + last_span;
                            let slot_x = b * block + permuted_slot(2 * pair, 4 - stages);
                            let slot_y = b * block + permuted_slot(2 * pair + 1, 4 - stages);
                            assert_eq!(
                                permuted_address(coeff, word_bytes, last),
                                slot_x * lanes + j,
                                "{register_bytes} B, word {word_bytes}"
                            );
                            assert_eq!(
                                permuted_address(partner, word_bytes, last),
                                slot_y * lanes + j
                            );
                        }
                    }
                }
            }
        }
    }
}

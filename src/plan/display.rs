//! The stable text form of a plan (what the golden files under `plans/` hold).
//!
//! Layers print 1-based, as FIPS 203 and mlkem-native number them: layer 1 has
//! the largest span. Sizes print in B / KiB / MiB.

use super::{Pass, PassKind, Plan, Step, Threads};
use crate::backend::Kernels;
use crate::transform::ButterflyKind;
use alloc::{string::String, string::ToString};
use core::fmt;

fn bytes(n: usize) -> String {
    let exact = |unit: usize| n.is_multiple_of(unit);
    if n >= 1 << 20 {
        if exact(1 << 20) {
            format!("{} MiB", n >> 20)
        } else {
            format!("{:.1} MiB", n as f64 / (1 << 20) as f64)
        }
    } else if n >= 1 << 10 {
        if exact(1 << 10) {
            format!("{} KiB", n >> 10)
        } else {
            format!("{:.1} KiB", n as f64 / 1024.0)
        }
    } else {
        format!("{n} B")
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn layers(r: &core::ops::Range<usize>) -> String {
    if r.len() == 1 {
        format!("layer {}", r.start + 1)
    } else {
        format!("layers {}-{}", r.start + 1, r.end)
    }
}

impl<F: Kernels> Plan<F> {
    fn fmt_pass(&self, f: &mut fmt::Formatter<'_>, index: usize, pass: &Pass) -> fmt::Result {
        let tiles = format!(
            "{} of {}{}",
            plural(pass.tiles, "tile", "tiles"),
            bytes(pass.tile_bytes),
            if pass.parallel { ", parallel" } else { "" }
        );
        let span = pass.layers.len();
        match pass.kind {
            PassKind::Gathered => writeln!(
                f,
                "pass {index}     gathered, {}: row groups of 2^{span} rows 2^{} apart, {} per run, via scratch; {tiles}",
                layers(&pass.layers),
                pass.log_block_rows - span,
                plural(pass.chunk_rows, "row", "rows"),
            )?,
            PassKind::Deep => writeln!(
                f,
                "pass {index}     deep, {}: blocks of 2^{} rows in place, {} per tile; {tiles}",
                layers(&pass.layers),
                pass.log_block_rows,
                pass.blocks_per_tile,
            )?,
        }
        if pass.reads_source && self.spec.is_encode() {
            writeln!(
                f,
                "  source   every replica block reads the message (no copy pass)"
            )?;
        }
        if pass.streams {
            writeln!(
                f,
                "  stores   streaming (non-temporal) where the output is aligned for it, when reading a separate source: the output exceeds the last-level cache"
            )?;
        }
        let scaled_layers = self.spec.layer_end() - self.spec.first_layer();
        for (group_index, group) in pass.groups.iter().enumerate() {
            let mut line = format!("  group    {}", layers(&group.layers));
            let kernel = match &self.ring {
                Some(ring) if group.whole_block => ring.description(),
                _ => F::kernel_name(self.backend(), group.whole_block),
            };
            if group.whole_block {
                line += &format!(" whole block ({kernel})");
            } else {
                line += &format!(" radix-{} in registers ({kernel})", group.radix());
                let table = &self.twiddles[index - 1][group_index].data;
                if self.ring.is_none() && F::shift_twiddles(self.backend(), group.kind, table) {
                    line += ", twiddles ±2^k: products by shifts";
                }
            }
            if let Some(b) = group.bounds {
                let q = |k: u32| {
                    if k == 1 {
                        "q".to_string()
                    } else {
                        format!("{k}q")
                    }
                };
                line += &format!(", |a| < {} -> < {}", q(b.input), q(b.output));
                if b.reductions > 0 {
                    line += &format!(
                        " ({} Barrett reduction{})",
                        b.reductions,
                        if b.reductions == 1 { "" } else { "s" }
                    );
                }
            }
            if group.scales {
                line += &format!(", then × 2^-{scaled_layers}");
            }
            if group.kind != self.kind {
                line += match group.kind {
                    ButterflyKind::CooleyTukey | ButterflyKind::Additive => {
                        ", next transform (forward)"
                    }
                    _ => ", next transform (inverse)",
                };
            }
            if group.canonical_output
                && self.ring.is_none()
                && (group.bounds.is_some()
                    || (group.whole_block && F::group_bounds(self.kind, 1, 1).is_some()))
            {
                line += ", canonical out";
            }
            writeln!(f, "{line}")?;
        }
        Ok(())
    }
}

impl<F: Kernels> fmt::Display for Plan<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "transform  {}", self.spec.describe())?;
        let threads = match self.threads {
            Threads::All => "all".to_string(),
            Threads::Count(n) => n.to_string(),
        };
        let serial = if self.threads != Threads::Count(1) && !self.uses_threads() {
            " (runs on the calling thread: no pass has two tiles of 64 KiB in all, no row move of 4 MiB)"
        } else {
            ""
        };
        writeln!(
            f,
            "backend    {}, threads: {threads}{serial}",
            self.backend().name()
        )?;
        let b = self.budgets;
        let regs = b
            .register_values
            .unwrap_or_else(|| F::register_values(self.backend()));
        writeln!(
            f,
            "budgets    registers {regs} values, L1 {}, L2 {}, L3 {}",
            bytes(b.l1),
            bytes(b.l2),
            bytes(b.l3)
        )?;
        for note in &self.notes {
            writeln!(f, "{note}")?;
        }
        let k = self.spec.pruned_bits() as usize;
        if k > 0 {
            let (kept, all) = (self.log_n, self.log_n + k);
            // The input rows the fold (or prune) reads from: 2^source, and
            // the share of the full transform's butterflies still computed.
            let source = self.source_rows.ilog2() as usize;
            let r = self.spec.first_layer() as usize;
            let work = |log_n: usize, first: usize| (log_n - first) << log_n.max(1) >> 1;
            let full = work(all, r);
            let done = if source <= kept {
                work(kept, kept - source)
            } else {
                work(kept, 0)
                    + (((1 << (source - kept)) - 1) << kept) * usize::from(!self.fold.is_empty())
            };
            let saves = format!(
                "computes {} of the full transform's {full} butterflies per column ({:.0}% saved)",
                done,
                100.0 * (1.0 - done as f64 / full.max(1) as f64)
            );
            if source <= kept {
                writeln!(
                    f,
                    "prune      keeps 2^{kept} of 2^{all} rows: the first 2^{} of 2^{r} blocks, encoded at rate 2^-{}; {saves}",
                    kept - source,
                    kept - source
                )?;
            } else if self.fold.is_empty() {
                writeln!(
                    f,
                    "prune      keeps 2^{kept} of 2^{all} rows: reads only the first 2^{kept} of 2^{source} input rows (the higher coefficients vanish on the kept points); {saves}"
                )?;
            } else {
                let k = source - kept;
                writeln!(
                    f,
                    "fold       keeps 2^{kept} of 2^{all} rows: kept row r = sum over j < 2^{k} of c_j * input row (r + j*2^{kept}), c_j products of the shift terms ({saves}, fold mul-adds counted as butterflies); {}",
                    if self.folds_in_first_pass() {
                        "done as pass 1 loads its rows (no sweep of its own)"
                    } else {
                        "one sweep into the output, then the passes in place"
                    }
                )?;
            }
        }
        if self.spec.input_is_lane_major() && self.lanes > 1 {
            if self.fold.is_empty() {
                writeln!(
                    f,
                    "transpose  lane-major input to rows at the front of the output, blocks of 8 rows x {} lanes (whole cache lines per column){}; the steps below run in place",
                    self.lanes,
                    if self.threads == Threads::Count(1) { "" } else { ", parallel" }
                )?;
            } else {
                writeln!(
                    f,
                    "transpose  lane-major input read column-wise by the fold"
                )?;
            }
        }
        for (i, step) in self.steps.iter().enumerate() {
            match step {
                Step::Pass(p) => self.fmt_pass(f, i + 1, p)?,
                Step::BitReverse if i == 0 && self.fuses_reversal() => writeln!(
                    f,
                    "step 1     bit-reverse rows (out of place: fused into pass 2, which reads its rows bit-reversed from the input)"
                )?,
                Step::BitReverse => writeln!(f, "step {}     bit-reverse rows", i + 1)?,
            }
        }
        let c = self.cost;
        write!(
            f,
            "cost       {} sweep{} over {}{}; scratch {} per thread; twiddles {}",
            c.sweeps,
            if c.sweeps == 1 { "" } else { "s" },
            bytes(c.data_bytes),
            if c.data_bytes <= b.l3 {
                " (within L3)"
            } else {
                ""
            },
            bytes(c.scratch_bytes),
            bytes(c.twiddle_bytes)
        )
    }
}

impl<F: Kernels> fmt::Debug for Plan<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Plan")
            .field("transform", &self.spec.describe())
            .field("backend", &self.backend())
            .field("threads", &self.threads)
            .field("budgets", &self.budgets)
            .field("steps", &self.steps)
            .field("cost", &self.cost)
            .finish_non_exhaustive()
    }
}

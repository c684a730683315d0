//! Executing micro-operations: reads, addresses, loads and stores through
//! the memory regions a pointer may designate.

use super::*;

impl Analysis<'_> {
    pub(super) fn read(
        &mut self,
        s: &Src,
        st: &State,
        tmps: &[Val; 8],
        insn: &Insn,
        func: &str,
    ) -> Val {
        match s {
            Src::Reg(l) => {
                let v = st.regs[*l as usize];
                if v.undef {
                    let name = (self.isa.loc_name)(*l);
                    self.report(
                        func,
                        insn,
                        format!("reads {name}, which the configuration says carries no argument (wrong ABI shape)"),
                    );
                }
                Val { undef: false, ..v }
            }
            Src::Tmp(t) => tmps[*t as usize],
            Src::Flags(mask) => Val {
                taint: st.flag_taint(*mask),
                ..Val::CLEAN
            },
        }
    }

    pub(super) fn read_all(
        &mut self,
        srcs: &[Src],
        st: &State,
        tmps: &[Val; 8],
        insn: &Insn,
        func: &str,
    ) -> Vec<Val> {
        srcs.iter()
            .map(|s| self.read(s, st, tmps, insn, func))
            .collect()
    }

    /// The pointer an address designates, after checking it.
    pub(super) fn address(&mut self, a: &Addr, st: &State, insn: &Insn, func: &str) -> Val {
        if a.constant {
            return Val::CLEAN;
        }
        let base = (!a.base.is_empty()).then(|| {
            let vals: Vec<Val> = a
                .base
                .iter()
                .map(|l| self.read(&Src::Reg(*l), st, &[Val::CLEAN; 8], insn, func))
                .collect();
            join_all(&vals)
        });
        let index: Vec<Val> = a
            .index
            .iter()
            .map(|l| self.read(&Src::Reg(*l), st, &[Val::CLEAN; 8], insn, func))
            .collect();
        let index = if index.is_empty() {
            vec![]
        } else {
            vec![join_all(&index)]
        };
        let all: Vec<Val> = base.iter().copied().chain(index.iter().copied()).collect();
        if all.iter().any(|v| v.taint) {
            let mut regs: Vec<String> = a
                .regs()
                .filter(|l| st.regs[*l as usize].taint)
                .map(|l| (self.isa.loc_name)(l))
                .collect();
            regs.dedup();
            self.report(
                func,
                insn,
                format!("memory address depends on a secret ({})", regs.join(", ")),
            );
        }
        let origin = all.iter().fold(0, |o, v| o | v.origin);
        self.derefs |= origin;
        // Every register of the address derived from lengths alone: the
        // configuration has a pointer where the code has a length.
        let from_lengths =
            |v: &Val| v.origin != 0 && v.origin & self.pointer_args == 0 && !v.is_pointer();
        if !all.is_empty() && all.iter().all(from_lengths) {
            self.report(
                func,
                insn,
                "dereferences a value derived only from arguments the configuration calls lengths (wrong ABI shape)",
            );
        }
        match (base, index.is_empty()) {
            (Some(b), true) => Val {
                frame: match b.frame {
                    Frame::At(o) => Frame::At(o.wrapping_add(a.disp)),
                    f => f,
                },
                konst: None,
                ..b
            },
            _ => Val::mix(all),
        }
    }

    /// The value loaded through `ptr` by the access `a`.
    pub(super) fn load(&self, st: &State, ptr: Val, a: &Addr, fc: &FnCtx) -> Val {
        let (constant, size) = (a.constant, a.size);
        if constant {
            // A GOT slot's address stands for the function it holds.
            let got = a.abs.filter(|s| self.program.got.contains_key(s));
            return Val {
                konst: got.map(|s| s as i64),
                ..Val::CLEAN
            };
        }
        let mut v = Val::CLEAN;
        if ptr.secret {
            v = v.join(Val::SECRET);
        }
        if ptr.outer {
            v = v.join(fc.outer_in);
        }
        match (ptr.frame, size) {
            (Frame::No, _) => {}
            (Frame::At(o), Some(s)) => {
                let reload = !a.vector && a.index.is_empty();
                v = v.join(st.load_slot(o, s, fc.outer_in, reload))
            }
            _ => v = v.join(st.whole_frame(fc.outer_in)),
        }
        v
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn store(
        &mut self,
        st: &mut State,
        ptr: Val,
        constant: bool,
        size: Option<u64>,
        val: Val,
        spill: bool,
        insn: &Insn,
        func: &str,
        fc: &mut FnCtx,
    ) {
        let val = Val {
            undef: false,
            ..val
        };
        if ptr.outer {
            fc.outer_dirty = fc.outer_dirty.join(val);
        }
        match (ptr.frame, size) {
            (Frame::No, _) => {}
            (Frame::At(o), Some(s)) => st.store_slot(o, s, val, spill),
            _ => st.smear = st.smear.join(val),
        }
        let public = constant || !ptr.is_pointer();
        if public && (val.taint || val.secret) {
            self.report(
                func,
                insn,
                "stores secret data (or a secret pointer) to memory the configuration calls public",
            );
        }
    }

    pub(super) fn micro(
        &mut self,
        m: &Micro,
        st: &mut State,
        tmps: &mut [Val; 8],
        insn: &Insn,
        func: &str,
        fc: &mut FnCtx,
    ) {
        match m {
            Micro::Check(srcs, why) => {
                let vals = self.read_all(srcs, st, tmps, insn, func);
                if vals.iter().any(|v| v.taint) {
                    self.report(func, insn, *why);
                }
            }
            Micro::Load { addr, tmp } => {
                let p = self.address(addr, st, insn, func);
                tmps[*tmp as usize] = self.load(st, p, addr, fc);
            }
            Micro::Store { addr, srcs } => {
                let p = self.address(addr, st, insn, func);
                self.stores |= p.origin;
                let vals: Vec<Val> = srcs
                    .iter()
                    .map(|s| match s {
                        Src::Reg(l) => st.regs[*l as usize],
                        _ => self.read(s, st, tmps, insn, func),
                    })
                    .collect();
                // The slots of one register: their join (a 64-bit value
                // stored whole keeps its pointer offset and constant).
                let v = join_all(&vals);
                // A general-purpose store at a fixed offset (a spill, a
                // scalar local).
                let spill = !addr.vector && addr.index.is_empty();
                self.store(st, p, addr.constant, addr.size, v, spill, insn, func, fc);
            }
            Micro::Touch(addr) => {
                self.address(addr, st, insn, func);
            }
            Micro::Assign { dst, srcs, merge } => {
                let v = Val::mix(self.read_all(srcs, st, tmps, insn, func));
                for d in dst {
                    let slot = match d {
                        Dst::Reg(l) => &mut st.regs[*l as usize],
                        Dst::Tmp(t) => &mut tmps[*t as usize],
                        Dst::ZeroExt(l) => {
                            st.regs[*l as usize] = zero_extension(v);
                            continue;
                        }
                    };
                    *slot = if *merge {
                        Val::mix([
                            Val {
                                undef: false,
                                ..*slot
                            },
                            v,
                        ])
                    } else {
                        v
                    };
                }
            }
            Micro::Copy { dst, src } => {
                let v = self.read(src, st, tmps, insn, func);
                match dst {
                    Dst::Reg(l) => st.regs[*l as usize] = v,
                    Dst::Tmp(t) => tmps[*t as usize] = v,
                    Dst::ZeroExt(l) => st.regs[*l as usize] = zero_extension(v),
                }
            }
            Micro::AddImm { dst, src, imm } => {
                let v = self.read(&Src::Reg(*src), st, tmps, insn, func);
                st.regs[*dst as usize] = Val {
                    frame: match v.frame {
                        Frame::At(o) => Frame::At(o.wrapping_add(*imm)),
                        f => f,
                    },
                    konst: v.konst.map(|k| k.wrapping_add(*imm)),
                    ..v
                };
            }
            Micro::Lea { dst, addr } => {
                let v = if addr.constant {
                    Val::CLEAN
                } else {
                    let base = (!addr.base.is_empty()).then(|| {
                        let vals: Vec<Val> = addr
                            .base
                            .iter()
                            .map(|l| self.read(&Src::Reg(*l), st, tmps, insn, func))
                            .collect();
                        join_all(&vals)
                    });
                    let index: Vec<Val> = addr
                        .index
                        .iter()
                        .map(|l| self.read(&Src::Reg(*l), st, tmps, insn, func))
                        .collect();
                    match (base, index.is_empty()) {
                        (Some(b), true) => Val {
                            frame: match b.frame {
                                Frame::At(o) => Frame::At(o.wrapping_add(addr.disp)),
                                f => f,
                            },
                            konst: b.konst.map(|k| k.wrapping_add(addr.disp)),
                            ..b
                        },
                        _ => Val::mix(base.into_iter().chain(index)),
                    }
                };
                st.regs[*dst as usize] = v;
            }
            Micro::Const { dst, value } => {
                st.regs[*dst as usize] = Val {
                    konst: *value,
                    ..Val::CLEAN
                };
            }
            Micro::SetFlags { mask, srcs, merge } => {
                let t = self
                    .read_all(srcs, st, tmps, insn, func)
                    .iter()
                    .any(|v| v.taint);
                for (bit, i) in [(CF, 0), (REST, 1)] {
                    if mask & bit != 0 {
                        st.flags[i] = t || (*merge && st.flags[i]);
                    }
                }
            }
        }
    }
}

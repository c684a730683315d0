//! Calls: into nttfuse functions (analysed with the caller's state), into
//! the memory functions (by their contract), anywhere else (panics never
//! return; other callees must receive no secret).

use super::*;

impl Analysis<'_> {
    pub(super) fn name_at(&self, addr: u64) -> Option<String> {
        if let Some(f) = self.program.functions.get(&addr) {
            return Some(f.name.clone());
        }
        self.program
            .symbols
            .iter()
            .find(|s| s.addr == addr)
            .map(|s| s.name.clone())
    }

    pub(super) fn call(
        &mut self,
        target: u64,
        st: State,
        insn: &Insn,
        func: &str,
        fc: &mut FnCtx,
    ) -> Option<State> {
        let Some(name) = self.name_at(target) else {
            self.report(
                func,
                insn,
                format!("call to {target:#x}: no function there"),
            );
            return None;
        };
        if !descends(&name) || mem_function(&name).is_some() {
            return self.external(&name, st, insn, func, fc);
        }
        let mut entry = State::new(self.isa.nlocs);
        for (e, v) in entry.regs.iter_mut().zip(&st.regs) {
            *e = to_callee(*v);
        }
        for l in self.isa.sp {
            entry.regs[*l as usize] = Val {
                frame: Frame::At(0),
                ..Val::CLEAN
            };
        }
        entry.flags = st.flags;
        let outer_in = st.whole_frame(fc.outer_in);
        let s = self.analyse(target, entry, outer_in, func);
        let exit = s.exit?;
        let mut out = st.clone();
        for (l, v) in exit.regs.iter().enumerate() {
            let l16 = l as Loc;
            if self.isa.callee_saved.contains(&l16) {
                continue;
            }
            let back = to_caller(*v);
            out.regs[l] = if self.isa.vector_saved.contains(&l16) {
                out.regs[l].join(back)
            } else {
                back
            };
        }
        out.flags = exit.flags;
        out.smear = out.smear.join(s.outer_dirty);
        fc.outer_dirty = fc.outer_dirty.join(s.outer_dirty);
        Some(out)
    }

    /// A call not analysed: the memory functions by their contract, panics
    /// as never returning, anything else only if no secret reaches it.
    pub(super) fn external(
        &mut self,
        name: &str,
        mut st: State,
        insn: &Insn,
        func: &str,
        fc: &mut FnCtx,
    ) -> Option<State> {
        let args = self.isa.args;
        let arg = |st: &State, i: usize| reg_val(st, args[i]);
        if let Some(mf) = mem_function(name) {
            let (dst, src, len) = (arg(&st, 0), arg(&st, 1), arg(&st, 2));
            self.derefs |= dst.origin;
            if mf != "memset" {
                self.derefs |= src.origin;
            }
            if matches!(mf, "memset" | "memcpy" | "memmove") {
                self.stores |= dst.origin;
            }
            if len.taint {
                self.report(func, insn, format!("{mf} length depends on a secret"));
            }
            let size = len.konst.map(|n| n as u64);
            match mf {
                "memset" => {
                    let v = Val::mix([src]);
                    self.store(&mut st, dst, false, size, v, false, insn, func, fc);
                }
                "memcmp" | "bcmp" => {
                    let region = Addr {
                        size,
                        vector: true,
                        ..Addr::default()
                    };
                    let a = self.load(&st, dst, &region, fc);
                    let b = self.load(&st, src, &region, fc);
                    if a.taint || b.taint {
                        self.report(
                            func,
                            insn,
                            format!("{mf} of secret memory (it exits early)"),
                        );
                    }
                }
                _ => {
                    let region = Addr {
                        size,
                        vector: true,
                        ..Addr::default()
                    };
                    let v = self.load(&st, src, &region, fc);
                    self.store(&mut st, dst, false, size, v, false, insn, func, fc);
                }
            }
            self.clobber(&mut st);
            for l in self.isa.ret {
                st.regs[*l as usize] = dst;
            }
            return Some(st);
        }
        if noreturn(name) {
            return None;
        }
        let leaked: Vec<String> = args[..6]
            .iter()
            .filter(|r| {
                let v = reg_val(&st, r);
                v.taint || v.secret
            })
            .map(|r| (self.isa.loc_name)(r[0]))
            .collect();
        if !leaked.is_empty() {
            self.report(
                func,
                insn,
                format!(
                    "call into {name} (not analysed) with secret data or a secret pointer in {}",
                    leaked.join(", ")
                ),
            );
        }
        self.clobber(&mut st);
        Some(st)
    }

    /// After a call into unanalysed code: caller-saved registers hold
    /// public garbage, the flags too.
    pub(super) fn clobber(&self, st: &mut State) {
        for l in 0..self.isa.nlocs as Loc {
            if !self.isa.callee_saved.contains(&l) && !self.isa.vector_saved.contains(&l) {
                st.regs[l as usize] = Val::CLEAN;
            }
        }
        st.flags = [false; 2];
    }
}

/// A caller's value as the callee sees it: pointers into the caller's
/// frame become pointers into an outer frame.
pub(super) fn to_callee(v: Val) -> Val {
    Val {
        outer: v.outer || v.frame != Frame::No,
        frame: Frame::No,
        ..v
    }
}

/// A callee's value as the caller sees it: pointers into outer frames may
/// be into the caller's (anywhere), or further out; pointers into the
/// callee's dead frame are treated the same way.
pub(super) fn to_caller(v: Val) -> Val {
    if v.outer || v.frame != Frame::No {
        Val {
            frame: Frame::Any,
            ..v
        }
    } else {
        v
    }
}

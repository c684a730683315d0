//! The taint analysis: per function, a forward data-flow analysis over its
//! control-flow graph to a fixpoint (join = union), following direct calls
//! into nttfuse's own functions with the caller's state (memoised by entry
//! state), and reporting every instruction whose timing or address could
//! depend on a secret.

use super::ir::{Addr, Dst, Flow, Frame, Insn, JumpTable, Loc, Micro, Src, State, Val, CF, REST};
use super::objdump::{GotEntry, Program, RawInsn};
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::rc::Rc;

mod calls;
mod exec;

/// An ISA's decoder: one instruction's micro-operations and control flow.
pub type Decoder = fn(&RawInsn) -> Result<(Vec<Micro>, Flow), String>;

/// What one ISA contributes.
pub struct Isa {
    pub nlocs: usize,
    /// The stack pointer's slots.
    pub sp: &'static [Loc],
    /// Argument registers in order, each as its slots (AArch64: x0–x7,
    /// then x8 for sret).
    pub args: &'static [&'static [Loc]],
    /// Slots of the registers a callee restores (by the ABI).
    pub callee_saved: &'static [Loc],
    /// Registers whose value survives a call into unanalysed code besides
    /// the callee-saved ones (AArch64's v8–v15 low halves).
    pub vector_saved: std::ops::Range<Loc>,
    pub ret: &'static [Loc],
    pub decode: Decoder,
    pub jump_table: fn(&[Insn], usize, &Program) -> Option<JumpTable>,
    pub loc_name: fn(Loc) -> String,
}

/// A reported instruction.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Finding {
    pub addr: u64,
    pub func: String,
    pub text: String,
    pub why: String,
}

/// A function decoded once: its instructions and basic blocks.
struct Func {
    name: String,
    start: u64,
    end: u64,
    insns: Vec<Insn>,
    errors: Vec<(usize, String)>,
    /// Blocks as [first, last] instruction indices.
    blocks: Vec<(usize, usize)>,
    block_of: HashMap<u64, usize>,
    /// Resolved jump tables, by the index of their `jmp`.
    tables: HashMap<usize, JumpTable>,
}

fn decode_function(isa: &Isa, program: &Program, f: &super::objdump::Function, next: u64) -> Func {
    let mut insns = Vec::new();
    let mut errors = Vec::new();
    for (i, raw) in f.insns.iter().enumerate() {
        let text = format!("{} {}", raw.mnemonic, raw.operands)
            .trim()
            .to_string();
        match (isa.decode)(raw) {
            Ok((micro, flow)) => insns.push(Insn {
                addr: raw.addr,
                text,
                micro,
                flow,
            }),
            Err(e) => {
                errors.push((i, e));
                insns.push(Insn {
                    addr: raw.addr,
                    text,
                    micro: vec![],
                    flow: Flow::Next,
                });
            }
        }
    }
    let (start, end) = (f.addr, next);
    let inside = |t: u64| t >= start && t < end;
    let mut tables = HashMap::new();
    let mut unresolved = false;
    for (i, insn) in insns.iter().enumerate() {
        if insn.flow == Flow::IndirectJump {
            match (isa.jump_table)(&insns, i, program) {
                Some(t) => {
                    tables.insert(i, t);
                }
                None => unresolved = true,
            }
        }
    }
    // An indirect jump whose targets are unknown may reach any instruction.
    let mut leader = vec![unresolved; insns.len()];
    let index_of: HashMap<u64, usize> =
        insns.iter().enumerate().map(|(i, x)| (x.addr, i)).collect();
    for t in tables.values() {
        for a in &t.targets {
            leader[index_of[a]] = true;
        }
    }
    if !leader.is_empty() {
        leader[0] = true;
    }
    let index: HashMap<u64, usize> = insns.iter().enumerate().map(|(i, x)| (x.addr, i)).collect();
    for (i, insn) in insns.iter().enumerate() {
        if let Flow::Jump(t) | Flow::Branch(t) = insn.flow {
            if let Some(&j) = index.get(&t).filter(|_| inside(t)) {
                leader[j] = true;
            }
        }
        let ends_block = matches!(
            insn.flow,
            Flow::Jump(_) | Flow::Branch(_) | Flow::IndirectJump | Flow::Return | Flow::Halt
        );
        if ends_block && i + 1 < leader.len() {
            leader[i + 1] = true;
        }
    }
    let mut blocks = Vec::new();
    let mut block_of = HashMap::new();
    let mut first = 0;
    for i in 0..insns.len() {
        if i + 1 == insns.len() || leader[i + 1] {
            block_of.insert(insns[first].addr, blocks.len());
            blocks.push((first, i));
            first = i + 1;
        }
    }
    Func {
        name: f.name.clone(),
        start,
        end,
        insns,
        errors,
        blocks,
        block_of,
        tables,
    }
}

/// What a call contributes back to its caller.
#[derive(Clone)]
struct Summary {
    exit: Option<State>,
    outer_dirty: Val,
}

/// Per analysed function: the caller frames it may read (`outer_in`) and
/// what it stored into them.
struct FnCtx {
    outer_in: Val,
    outer_dirty: Val,
    exit: Option<State>,
}

/// The analysis of one top-level function and everything it calls.
pub struct Analysis<'a> {
    pub program: &'a Program,
    pub isa: &'a Isa,
    decoded: HashMap<u64, Rc<Func>>,
    memo: HashMap<(u64, Vec<Val>, [bool; 2], Val), Summary>,
    stack: Vec<u64>,
    pub findings: BTreeSet<Finding>,
    /// Argument bits that were dereferenced (loads and stores), and stored
    /// through.
    pub derefs: u16,
    pub stores: u16,
    /// Argument bits the configuration says are pointers.
    pub pointer_args: u16,
    /// Functions analysed (start address → instructions).
    pub visited: BTreeMap<u64, (String, usize)>,
    /// The top-level function's exit state (join over its returns).
    pub exit: Option<State>,
}

const MAX_DEPTH: usize = 24;

/// Whether a call target is analysed as part of the kernel.
pub fn descends(name: &str) -> bool {
    name.trim_start_matches('<').starts_with("nttfuse::")
}

fn noreturn(name: &str) -> bool {
    name.contains("panic")
        || name.contains("unwrap_failed")
        || name.contains("handle_error")
        || name.contains("handle_alloc_error")
        || name.contains("::abort")
        || (name.starts_with("core::slice::index::") && name.contains("fail"))
        || name.starts_with("core::option::expect_failed")
        || name.starts_with("core::result::unwrap_failed")
}

fn mem_function(name: &str) -> Option<&'static str> {
    let base = name.split('@').next().unwrap_or(name);
    ["memcpy", "memmove", "memset", "memcmp", "bcmp"]
        .into_iter()
        .find(|m| base == *m || base == format!("__{m}_chk") || base == format!("{m}_chk"))
}

impl<'a> Analysis<'a> {
    pub fn new(program: &'a Program, isa: &'a Isa) -> Self {
        Analysis {
            program,
            isa,
            decoded: HashMap::new(),
            memo: HashMap::new(),
            stack: Vec::new(),
            findings: BTreeSet::new(),
            derefs: 0,
            stores: 0,
            pointer_args: 0,
            visited: BTreeMap::new(),
            exit: None,
        }
    }

    /// Resets everything but the decoded functions, for the next top-level
    /// function.
    pub fn reset(&mut self, pointer_args: u16) {
        self.memo.clear();
        self.findings.clear();
        self.derefs = 0;
        self.stores = 0;
        self.pointer_args = pointer_args;
        self.visited.clear();
        self.exit = None;
    }

    fn func(&mut self, addr: u64) -> Option<Rc<Func>> {
        if let Some(f) = self.decoded.get(&addr) {
            return Some(f.clone());
        }
        let f = self.program.functions.get(&addr)?;
        let next = self
            .program
            .functions
            .range(addr + 1..)
            .next()
            .map(|(a, _)| *a)
            .unwrap_or(u64::MAX);
        let d = Rc::new(decode_function(self.isa, self.program, f, next));
        self.decoded.insert(addr, d.clone());
        Some(d)
    }

    fn report(&mut self, func: &str, insn: &Insn, why: impl Into<String>) {
        self.findings.insert(Finding {
            addr: insn.addr,
            func: func.to_string(),
            text: insn.text.clone(),
            why: why.into(),
        });
    }

    /// Analyses the top-level function at `addr` from `entry`.
    pub fn run_top(&mut self, addr: u64, entry: State) {
        let summary = self.analyse(addr, entry, Val::CLEAN, "");
        self.exit = summary.exit;
    }

    fn analyse(&mut self, addr: u64, entry: State, outer_in: Val, caller: &str) -> Summary {
        let key = (addr, entry.regs.clone(), entry.flags, outer_in);
        if let Some(s) = self.memo.get(&key) {
            return s.clone();
        }
        let Some(f) = self.func(addr) else {
            self.findings.insert(Finding {
                addr,
                func: caller.to_string(),
                text: String::new(),
                why: format!("call to {addr:#x}, which objdump did not disassemble"),
            });
            return Summary {
                exit: None,
                outer_dirty: Val::CLEAN,
            };
        };
        if self.stack.contains(&addr) || self.stack.len() >= MAX_DEPTH {
            self.findings.insert(Finding {
                addr,
                func: f.name.clone(),
                text: String::new(),
                why: "recursive (or too deep) call: not analysed".into(),
            });
            return Summary {
                exit: Some(entry),
                outer_dirty: Val::SECRET,
            };
        }
        self.visited.insert(addr, (f.name.clone(), f.insns.len()));
        for (i, e) in &f.errors {
            let insn = f.insns[*i].clone();
            self.report(&f.name, &insn, format!("cannot analyse: {e}"));
        }
        self.stack.push(addr);
        let mut fc = FnCtx {
            outer_in,
            outer_dirty: Val::CLEAN,
            exit: None,
        };
        let n = f.blocks.len();
        let mut input: Vec<Option<State>> = vec![None; n];
        let mut queued = vec![false; n];
        let mut work = VecDeque::new();
        if n > 0 {
            input[0] = Some(entry);
            work.push_back(0);
            queued[0] = true;
        }
        while let Some(b) = work.pop_front() {
            queued[b] = false;
            let Some(state) = input[b].clone() else {
                continue;
            };
            let (first, last) = f.blocks[b];
            let Some(out) = self.block(&f, first, last, state, &mut fc) else {
                continue;
            };
            let last_insn = &f.insns[last];
            let mut succ = Vec::new();
            let fall = (last + 1 < f.insns.len()).then(|| b + 1);
            match last_insn.flow {
                Flow::Next | Flow::Call(_) | Flow::CallGot(_) | Flow::IndirectCall(_) => {
                    succ.extend(fall)
                }
                Flow::Jump(t) | Flow::Branch(t) => {
                    if t >= f.start && t < f.end {
                        match f.block_of.get(&t) {
                            Some(&s) => succ.push(s),
                            None => {
                                let insn = last_insn.clone();
                                self.report(&f.name, &insn, "jump into the middle of a block");
                            }
                        }
                    } else {
                        // A tail call.
                        let after = self.call(t, out.clone(), last_insn, &f.name, &mut fc);
                        if let Some(s) = after {
                            join_into(&mut fc.exit, &s);
                        }
                    }
                    if matches!(last_insn.flow, Flow::Branch(_)) {
                        succ.extend(fall);
                    }
                }
                Flow::IndirectJump => match f.tables.get(&last) {
                    Some(t) if out.regs[t.base_reg as usize].konst == Some(t.base as i64) => {
                        succ.extend(t.targets.iter().filter_map(|a| f.block_of.get(a)));
                    }
                    Some(_) => {
                        let insn = last_insn.clone();
                        self.report(
                            &f.name,
                            &insn,
                            "jump table: its base register does not hold the table here",
                        );
                        succ.extend(0..n);
                    }
                    None => succ.extend(0..n),
                },
                Flow::Return => join_into(&mut fc.exit, &out),
                Flow::Halt => {}
            }
            for s in succ {
                let changed = match &mut input[s] {
                    Some(st) => st.join_from(&out),
                    slot @ None => {
                        *slot = Some(out.clone());
                        true
                    }
                };
                if changed && !queued[s] {
                    queued[s] = true;
                    work.push_back(s);
                }
            }
        }
        self.stack.pop();
        let summary = Summary {
            exit: fc.exit,
            outer_dirty: fc.outer_dirty,
        };
        self.memo.insert(key, summary.clone());
        summary
    }

    /// Runs instructions `first..=last`; `None` if a call never returns.
    fn block(
        &mut self,
        f: &Func,
        first: usize,
        last: usize,
        mut st: State,
        fc: &mut FnCtx,
    ) -> Option<State> {
        let trace = std::env::var("NTTFUSE_CT_TRACE")
            .ok()
            .and_then(|a| u64::from_str_radix(a.trim_start_matches("0x"), 16).ok())
            == Some(f.start);
        for insn in &f.insns[first..=last] {
            if trace {
                self.trace(insn, &st);
            }
            let mut tmps = [Val::CLEAN; 8];
            for m in &insn.micro {
                self.micro(m, &mut st, &mut tmps, insn, &f.name, fc);
            }
            let got = |slot: u64| (slot, self.program.got.get(&slot).cloned());
            let slot = match &insn.flow {
                Flow::CallGot(slot) => Some(got(*slot)),
                // A register loaded from a GOT slot (`mov r8,[rip+x]`
                // … `call r8`).
                Flow::IndirectCall(r) if !r.is_empty() => reg_val(&st, r)
                    .konst
                    .map(|k| got(k as u64))
                    .filter(|(_, e)| e.is_some()),
                _ => None,
            };
            st = match (&insn.flow, slot) {
                (Flow::Call(t), _) => self.call(*t, st, insn, &f.name, fc)?,
                (_, Some((_, Some(GotEntry::Address(a))))) => {
                    self.call(a, st, insn, &f.name, fc)?
                }
                (_, Some((_, Some(GotEntry::Named(n))))) => {
                    self.external(&n, st, insn, &f.name, fc)?
                }
                (Flow::CallGot(_), _) => {
                    self.external("an unresolved GOT slot", st, insn, &f.name, fc)?
                }
                (Flow::IndirectCall(_), _) => {
                    self.external("an indirect call", st, insn, &f.name, fc)?
                }
                _ => st,
            };
        }
        Some(st)
    }

    /// Debugging aid (`NTTFUSE_CT_TRACE=<function address>`): the state
    /// before each instruction of one function.
    fn trace(&self, insn: &Insn, st: &State) {
        let regs: Vec<String> = st
            .regs
            .iter()
            .enumerate()
            .filter(|(_, v)| v.taint || v.is_pointer())
            .map(|(l, v)| {
                let kind = match (v.taint, v.secret, v.frame, v.outer) {
                    (true, ..) => "T".to_string(),
                    (_, true, ..) => "S".to_string(),
                    (_, _, Frame::At(o), _) => format!("F{o}"),
                    (_, _, Frame::Any, _) => "F?".to_string(),
                    _ => "O".to_string(),
                };
                format!("{}:{kind}", (self.isa.loc_name)(l as Loc))
            })
            .collect();
        let slots = st.frame.values().filter(|s| s.val.taint).count();
        eprintln!(
            "{:x} {:<50} flags {:?} smear {} tainted slots {slots} | {}",
            insn.addr,
            insn.text,
            st.flags,
            st.smear.taint,
            regs.join(" ")
        );
    }
}

/// The join of values (none: public).
fn join_all(vals: &[Val]) -> Val {
    vals.iter().copied().reduce(Val::join).unwrap_or(Val::CLEAN)
}

/// A register's value: the join of its slots.
pub fn reg_val(st: &State, slots: &[Loc]) -> Val {
    join_all(
        &slots
            .iter()
            .map(|l| st.regs[*l as usize])
            .collect::<Vec<_>>(),
    )
}

/// The upper half a 32-bit write leaves: zero bits.
fn zero_extension(v: Val) -> Val {
    Val {
        konst: v.konst,
        origin: v.origin,
        ..Val::CLEAN
    }
}

fn join_into(slot: &mut Option<State>, s: &State) {
    match slot {
        Some(x) => {
            x.join_from(s);
        }
        None => *slot = Some(s.clone()),
    }
}

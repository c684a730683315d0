//! x86-64 general-purpose instructions, control flow and jump tables.

use super::super::ir::{Insn, JumpTable};
use super::super::objdump::Program;
use super::*;

pub(super) fn scalar_insn(
    b: &mut Builder,
    m: &str,
    ops: &[Operand],
    rep: bool,
    comment: &str,
) -> Result<Flow, String> {
    let op = |i: usize| -> Result<&Operand, String> {
        ops.get(i).ok_or(format!("{m}: missing operand {i}"))
    };
    // Control flow.
    if m == "jmp" {
        return Ok(match &op(0)?.opd {
            Opd::Target(t) => Flow::Jump(*t),
            _ => {
                let t = b.read(op(0)?);
                b.check(t, "indirect jump through a secret");
                Flow::IndirectJump
            }
        });
    }
    if m == "jrcxz" || m == "jecxz" {
        b.check(reg_srcs(1), "branch on a secret rcx");
        return target(op(0)?).map(Flow::Branch);
    }
    if let Some(cc) = m.strip_prefix('j').and_then(condition) {
        b.check(vec![Src::Flags(cc)], "conditional branch on secret flags");
        return target(op(0)?).map(Flow::Branch);
    }
    if m == "call" {
        return Ok(match &op(0)?.opd {
            Opd::Target(t) => Flow::Call(*t),
            Opd::Mem(a) if a.constant && !comment.is_empty() => {
                let slot = comment.split_whitespace().next().unwrap_or("");
                Flow::CallGot(
                    u64::from_str_radix(slot, 16).map_err(|_| format!("GOT slot in {comment}"))?,
                )
            }
            _ => {
                let t = b.read(op(0)?);
                b.check(t, "indirect call through a secret");
                match &op(0)?.opd {
                    Opd::Gpr(g) => Flow::IndirectCall(g.read()),
                    _ => Flow::IndirectCall(vec![]),
                }
            }
        });
    }
    match m {
        "ret" => return Ok(Flow::Return),
        "ud2" | "ud1" | "ud0" | "int3" | "hlt" => return Ok(Flow::Halt),
        "endbr64" | "pause" | "lfence" | "mfence" | "sfence" | "fnop" => return Ok(Flow::Next),
        "vzeroupper" | "vzeroall" => {
            for n in 0..16 {
                let first = if m == "vzeroall" { 0 } else { 1 };
                for p in first..3 {
                    b.micro.push(Micro::Const {
                        dst: vec_loc(n, p),
                        value: Some(0),
                    });
                }
            }
            return Ok(Flow::Next);
        }
        _ => {}
    }
    if m.starts_with("prefetch") {
        if let Opd::Mem(a) = &op(0)?.opd {
            b.micro.push(Micro::Touch(a.clone()));
        }
        return Ok(Flow::Next);
    }
    if let Some(cc) = m.strip_prefix("set").and_then(condition) {
        b.check(vec![Src::Flags(cc)], "setcc on secret flags");
        b.write(op(0)?, vec![Src::Flags(cc)], false, false);
        return Ok(Flow::Next);
    }
    if let Some(cc) = m.strip_prefix("cmov").and_then(condition) {
        b.check(vec![Src::Flags(cc)], "cmov on secret flags");
        let mut srcs = b.read(op(1)?);
        srcs.push(Src::Flags(cc));
        b.write(op(0)?, srcs, true, false);
        return Ok(Flow::Next);
    }
    let n = ops.len();
    match m {
        "mov" | "movabs" | "movnti" => {
            let (d, s) = (op(0)?, op(1)?);
            match (&d.opd, &s.opd) {
                (Opd::Gpr(g), Opd::Imm(v)) if g.bits >= 32 => {
                    let v = if g.bits == 32 { *v as u32 as i64 } else { *v };
                    b.konst(*g, Some(v));
                }
                (Opd::Gpr(g), Opd::Gpr(r)) if g.bits == 64 => b.copy_reg(g.n, r.n),
                (Opd::Gpr(g), Opd::Mem(_)) if g.bits == 64 => {
                    let t = b.read(s).remove(0);
                    b.copy_from(g.n, t);
                }
                _ => {
                    let srcs = b.read(s);
                    b.write(d, srcs, false, false);
                }
            }
        }
        "movzx" | "movsx" | "movsxd" | "bswap" | "popcnt" | "lzcnt" | "tzcnt" | "bsf" | "bsr" => {
            let srcs = b.read(op(n - 1)?);
            let bitscan = m == "bsf" || m == "bsr" || m == "bswap";
            b.write(op(0)?, srcs.clone(), bitscan, false);
            if matches!(m, "popcnt" | "lzcnt" | "tzcnt" | "bsf" | "bsr") {
                b.flags(ALL, srcs, false);
            }
        }
        "lea" => match (&op(0)?.opd, &op(1)?.opd) {
            // A PC-relative address: a public constant (objdump's comment
            // gives it; jump tables need it).
            (Opd::Gpr(g), Opd::Mem(a)) if a.constant => b.konst(
                *g,
                comment
                    .split_whitespace()
                    .next()
                    .and_then(|c| u64::from_str_radix(c, 16).ok())
                    .map(|v| v as i64),
            ),
            (Opd::Gpr(g), Opd::Mem(a)) => {
                for d in g.write() {
                    match d {
                        Dst::Reg(l) => b.micro.push(Micro::Lea {
                            dst: l,
                            addr: a.clone(),
                        }),
                        _ => b.micro.push(Micro::Assign {
                            dst: vec![d],
                            srcs: vec![],
                            merge: false,
                        }),
                    }
                }
            }
            _ => return Err("lea operands".into()),
        },
        "add" | "sub" | "and" | "or" | "xor" | "adc" | "sbb" => {
            let (d, s) = (op(0)?, op(1)?);
            if (m == "xor" || m == "sub") && same_reg(d, s) {
                b.write(d, vec![], false, false);
                b.flags(ALL, vec![], false);
                return Ok(Flow::Next);
            }
            let imm = match s.opd {
                Opd::Imm(v) => Some(v),
                _ => None,
            };
            if let (Opd::Gpr(g), Some(v), "add" | "sub") = (&d.opd, imm, m) {
                if g.bits == 64 {
                    let v = if m == "sub" { v.wrapping_neg() } else { v };
                    b.add_imm(g.n, v);
                    b.flags(ALL, reg_srcs(g.n), false);
                    return Ok(Flow::Next);
                }
            }
            let mut srcs = b.read(d);
            srcs.extend(b.read(s));
            if m == "adc" || m == "sbb" {
                srcs.push(Src::Flags(CF));
            }
            b.write(d, srcs.clone(), false, false);
            b.flags(ALL, srcs, false);
        }
        "inc" | "dec" | "neg" | "not" => {
            let srcs = b.read(op(0)?);
            b.write(op(0)?, srcs.clone(), false, false);
            match m {
                "inc" | "dec" => b.flags(REST, srcs, false),
                "neg" => b.flags(ALL, srcs, false),
                _ => {}
            }
        }
        "cmp" | "test" | "bt" => {
            let srcs = ops.iter().flat_map(|o| b.read(o)).collect();
            b.flags(ALL, srcs, false);
        }
        "bts" | "btr" | "btc" => {
            let srcs: Vec<Src> = ops.iter().flat_map(|o| b.read(o)).collect();
            b.write(op(0)?, srcs.clone(), false, false);
            b.flags(ALL, srcs, false);
        }
        "shl" | "sal" | "shr" | "sar" | "rol" | "ror" | "rcl" | "rcr" | "shld" | "shrd" => {
            let mut srcs: Vec<Src> = ops.iter().flat_map(|o| b.read(o)).collect();
            if m == "rcl" || m == "rcr" {
                srcs.push(Src::Flags(CF));
            }
            // A count in cl may be 0: the flags may keep their old value.
            let by_cl = !matches!(ops.last().map(|o| &o.opd), Some(Opd::Imm(_))) || n == 1;
            let rotate = m.starts_with("ro") || m.starts_with("rc");
            b.write(op(0)?, srcs.clone(), false, false);
            b.flags(ALL, srcs, by_cl || rotate);
        }
        "shlx" | "shrx" | "sarx" | "rorx" | "andn" | "bextr" | "bzhi" | "blsr" | "blsi"
        | "blsmsk" | "pdep" | "pext" => {
            let srcs: Vec<Src> = ops[1..].iter().flat_map(|o| b.read(o)).collect();
            if m == "pdep" || m == "pext" {
                b.check(
                    srcs.clone(),
                    "pdep/pext on a secret (microcoded on AMD before Zen 3)",
                );
            }
            b.write(op(0)?, srcs.clone(), false, false);
            if matches!(m, "andn" | "bextr" | "bzhi" | "blsr" | "blsi" | "blsmsk") {
                b.flags(ALL, srcs, false);
            }
        }
        "imul" | "mul" if n == 1 => {
            let mut srcs = b.read(op(0)?);
            srcs.extend(reg_srcs(0));
            b.micro.push(Micro::Assign {
                dst: [slots(0), slots(2)]
                    .concat()
                    .into_iter()
                    .map(Dst::Reg)
                    .collect(),
                srcs: srcs.clone(),
                merge: false,
            });
            b.flags(ALL, srcs, false);
        }
        "imul" => {
            let mut srcs: Vec<Src> = ops[1..].iter().flat_map(|o| b.read(o)).collect();
            if n == 2 {
                srcs.extend(b.read(op(0)?));
            }
            b.write(op(0)?, srcs.clone(), false, false);
            b.flags(ALL, srcs, false);
        }
        "mulx" => {
            let mut srcs = b.read(op(2)?);
            srcs.extend(reg_srcs(2));
            b.write(op(0)?, srcs.clone(), false, false);
            b.write(op(1)?, srcs, false, false);
        }
        "div" | "idiv" => {
            let mut srcs = b.read(op(0)?);
            srcs.extend(reg_srcs(0));
            srcs.extend(reg_srcs(2));
            b.check(
                srcs.clone(),
                "division with a secret operand (variable time)",
            );
            b.micro.push(Micro::Assign {
                dst: [slots(0), slots(2)]
                    .concat()
                    .into_iter()
                    .map(Dst::Reg)
                    .collect(),
                srcs: srcs.clone(),
                merge: false,
            });
            b.flags(ALL, srcs, false);
        }
        "cdq" | "cqo" | "cwd" => b.micro.push(Micro::Assign {
            dst: slots(2).into_iter().map(Dst::Reg).collect(),
            srcs: reg_srcs(0),
            merge: false,
        }),
        "cdqe" | "cwde" | "cbw" => b.micro.push(Micro::Assign {
            dst: slots(0).into_iter().map(Dst::Reg).collect(),
            srcs: reg_srcs(0),
            merge: false,
        }),
        "xchg" => {
            let (x, y) = (op(0)?, op(1)?);
            let (vx, vy) = (b.read(x), b.read(y));
            let t = b.tmps;
            b.tmps += 2;
            b.micro.push(Micro::Assign {
                dst: vec![Dst::Tmp(t)],
                srcs: vx,
                merge: false,
            });
            b.micro.push(Micro::Assign {
                dst: vec![Dst::Tmp(t + 1)],
                srcs: vy,
                merge: false,
            });
            b.write(x, vec![Src::Tmp(t + 1)], false, false);
            b.write(y, vec![Src::Tmp(t)], false, false);
        }
        "push" => {
            let srcs = b.read(op(0)?);
            b.add_imm(4, -8);
            b.micro.push(Micro::Store {
                addr: stack_top(),
                srcs,
            });
        }
        "pop" => {
            let t = b.load(&stack_top());
            match &op(0)?.opd {
                Opd::Gpr(g) if g.bits == 64 => b.copy_from(g.n, t),
                _ => b.write(op(0)?, vec![t], false, false),
            }
            b.add_imm(4, 8);
        }
        "leave" => {
            b.copy_reg(4, 5);
            let t = b.load(&stack_top());
            b.copy_from(5, t);
            b.add_imm(4, 8);
        }
        "cpuid" | "rdtsc" | "rdtscp" | "xgetbv" => {
            for n in 0..4 {
                for l in slots(n) {
                    b.micro.push(Micro::Const {
                        dst: l,
                        value: None,
                    });
                }
            }
        }
        "stos" | "movs" => {
            if rep {
                b.check(reg_srcs(1), "rep count depends on a secret");
            }
            let size = if rep {
                None
            } else {
                ops.first().and_then(mem_size_of)
            };
            let at = |n: u16| Addr {
                base: slots(n).to_vec(),
                size,
                ..Addr::default()
            };
            let value = if m == "stos" {
                reg_srcs(0)
            } else {
                vec![b.load(&at(6))]
            };
            b.micro.push(Micro::Store {
                addr: at(7),
                srcs: value,
            });
            for n in [7, 6] {
                if m == "movs" || n == 7 {
                    let mut srcs = reg_srcs(n);
                    srcs.extend(reg_srcs(1));
                    b.micro.push(Micro::Assign {
                        dst: slots(n).into_iter().map(Dst::Reg).collect(),
                        srcs,
                        merge: false,
                    });
                }
            }
            if rep {
                b.konst(
                    Gpr {
                        n: 1,
                        bits: 64,
                        high: false,
                    },
                    Some(0),
                );
            }
        }
        _ => return Err(format!("unknown instruction {m}")),
    }
    Ok(Flow::Next)
}

fn mem_size_of(o: &Operand) -> Option<u64> {
    match &o.opd {
        Opd::Mem(a) => a.size,
        _ => None,
    }
}

fn stack_top() -> Addr {
    Addr {
        base: RSP.to_vec(),
        size: Some(8),
        ..Addr::default()
    }
}

fn target(o: &Operand) -> Result<u64, String> {
    match o.opd {
        Opd::Target(t) => Ok(t),
        _ => Err("branch without a direct target".into()),
    }
}

/// The targets of the jump table LLVM emits for a `match` before the
/// `jmp R` at `at`:
///
/// ```text
///   lea    T,[rip+X]               # the table (possibly hoisted far up)
///   cmp    I,N ; ja default         # the bound (N + 1 entries)
///   movsxd R,DWORD PTR [T+I*4]
///   add    R,T
///   jmp    R
/// ```
///
/// The entries are read from the binary; the analysis then confirms that
/// `T` holds the table's address when the jump runs.
pub fn jump_table(insns: &[Insn], at: usize, program: &Program) -> Option<JumpTable> {
    let text = |i: usize| insns.get(i).map(|x| x.text.as_str());
    let r = text(at)?.strip_prefix("jmp ")?.trim();
    // The `add R,T` and, before it, the `movsxd R,…`, with other
    // instructions (writing neither R nor T) in between.
    let writes = |i: usize, reg: &str| {
        text(i).is_some_and(|x| {
            x.split_once(' ')
                .is_some_and(|(_, ops)| ops.starts_with(&format!("{reg},")))
        })
    };
    // LLVM's scheduler may put unrelated instructions (constant broadcasts
    // for the arms) between the three; 24 is room enough, and none of
    // them may be a branch.
    let window = at.saturating_sub(24)..at;
    let add_at = window.clone().rev().find(|&i| writes(i, r))?;
    let (_, t) = text(add_at)?.strip_prefix("add ")?.split_once(',')?;
    let t = t.trim();
    let load_at = (window.start..add_at).rev().find(|&i| writes(i, r))?;
    if ((load_at + 1)..add_at).any(|i| writes(i, t))
        || (add_at + 1..at).any(|i| writes(i, t))
        || (load_at..at).any(|i| insns[i].flow != Flow::Next)
    {
        return None;
    }
    let (_, mem) = text(load_at)?.strip_prefix("movsxd ")?.split_once(',')?;
    let inner = mem.trim().strip_prefix("DWORD PTR [")?;
    let inner = inner
        .strip_suffix("*4]")
        .or_else(|| inner.strip_suffix("*4+0x0]"))?;
    let (t2, index) = inner.split_once('+')?;
    if t2 != t {
        return None;
    }
    let base_reg = slots(gpr(t)?.n)[0];
    // The nearest earlier `lea T,[rip+X]`.
    let base = insns[..load_at]
        .iter()
        .rev()
        .find_map(|x| match x.micro.first() {
            Some(Micro::Const {
                dst,
                value: Some(v),
            }) if *dst == base_reg && x.text.starts_with("lea ") => Some(*v as u64),
            _ => None,
        })?;
    // The bound, from a `cmp I,N` shortly before.
    let bound = insns[load_at.saturating_sub(10)..load_at]
        .iter()
        .rev()
        .find_map(|x| {
            let (i, n) = x.text.strip_prefix("cmp ")?.split_once(',')?;
            (i.trim() == index).then(|| parse_int(n.trim()))?
        })
        .map(|n| n as usize + 1);
    let (start, end) = (insns.first()?.addr, insns.last()?.addr);
    let is_insn = |a: u64| a >= start && a <= end && insns.iter().any(|x| x.addr == a);
    let mut targets = Vec::new();
    for k in 0..bound.unwrap_or(4096) {
        let e = program.read_i32(base + 4 * k as u64)?;
        let t = base.wrapping_add(e as i64 as u64);
        // The table ends where its entries stop naming instructions of
        // this function (or at the bound).
        if !is_insn(t) {
            break;
        }
        targets.push(t);
    }
    (!targets.is_empty()).then_some(JumpTable {
        base_reg,
        base,
        targets,
    })
}

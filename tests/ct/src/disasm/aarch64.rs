//! AArch64 semantics (GNU objdump syntax) as micro-operations.
//!
//! Register slots: x0–x30 (w writes clear the upper half), sp, and v0–v31
//! (one slot per register: scalar and 64-bit vector writes clear the rest,
//! lane inserts such as `ins`/`mov v0.s[1], w0`/`ld1 {v0.h}[3]` merge).
//! As on x86-64, the first operand is the destination and the others its
//! sources; the instructions that accumulate into their destination
//! (`mla`, `mls`, `bsl`, `movk`, `sdot`, the `…2` narrowing forms, …) also
//! read it. Unknown mnemonics outside these classes are an error.

use super::ir::{Addr, Dst, Flow, Insn, JumpTable, Loc, Micro, Src, ALL, REST};
use super::objdump::{Program, RawInsn};

pub const SP: &[Loc] = &[31];
pub const NLOCS: usize = 64;
/// AAPCS64 argument registers x0–x7, then x8 (indirect result).
pub const ARGS: &[&[Loc]] = &[&[0], &[1], &[2], &[3], &[4], &[5], &[6], &[7], &[8]];
/// Callee-saved: x19–x29, x30 (the caller's return address), sp.
pub const CALLEE_SAVED: [Loc; 13] = [19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31];
pub const RET: &[Loc] = &[0];

pub fn loc_name(l: Loc) -> String {
    match l {
        0..=30 => format!("x{l}"),
        31 => "sp".into(),
        _ => format!("v{}", l - 32),
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Opd {
    /// A general register (x or w; sp), with its width in bits.
    X(Loc, u16),
    /// xzr / wzr.
    Zero,
    /// A SIMD&FP register: slot, access size in bytes, a lane (`v0.s[1]`).
    V(Loc, u64, bool),
    /// `{v0.8h, v1.8h}` / `{v0.8h-v3.8h}`, bytes per register, lane form.
    List(Vec<Loc>, u64, bool),
    /// `[base, …]`, pre-indexed (`!`) or not.
    Mem(Addr, Option<i64>),
    Imm(i64),
    Target(u64),
    /// A condition, prefetch operation, system register, shift or extend.
    Word(String),
}

fn parse_int(s: &str) -> Option<i64> {
    let s = s.trim().trim_start_matches('#');
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let v = match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok()? as i64,
        None => s.parse::<u64>().ok()? as i64,
    };
    Some(if neg { v.wrapping_neg() } else { v })
}

fn arrangement_bytes(arr: &str) -> u64 {
    match arr {
        "8b" | "4h" | "2s" | "1d" => 8,
        "b" => 1,
        "h" => 2,
        "s" => 4,
        "d" => 8,
        _ => 16,
    }
}

fn vreg(s: &str) -> Option<Opd> {
    let (name, lane) = match s.split_once('[') {
        Some((n, _)) => (n, true),
        None => (s, false),
    };
    let (reg, arr) = match name.split_once('.') {
        Some((r, a)) => (r, Some(a)),
        None => (name, None),
    };
    let kind = reg.chars().next()?;
    let n: u16 = reg[1..].parse().ok().filter(|n| *n < 32)?;
    let bytes = match (kind, arr) {
        ('v', Some(a)) => arrangement_bytes(a),
        ('v', None) => 16,
        ('q', None) => 16,
        ('d', None) => 8,
        ('s', None) => 4,
        ('h', None) => 2,
        ('b', None) => 1,
        _ => return None,
    };
    Some(Opd::V(32 + n, bytes, lane))
}

fn xreg(s: &str) -> Option<Opd> {
    match s {
        "sp" => return Some(Opd::X(31, 64)),
        "wsp" => return Some(Opd::X(31, 32)),
        "xzr" | "wzr" => return Some(Opd::Zero),
        _ => {}
    }
    let (bits, n) = match s.split_at_checked(1)? {
        ("x", n) => (64, n),
        ("w", n) => (32, n),
        _ => return None,
    };
    let n: u16 = n.parse().ok().filter(|n| *n <= 30)?;
    Some(Opd::X(n, bits))
}

fn split_top(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let (mut depth, mut cur) = (0, String::new());
    for c in s.chars() {
        match c {
            '[' | '{' | '<' => depth += 1,
            ']' | '}' | '>' => depth -= 1,
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut cur).trim().to_string());
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

fn parse_operand(s: &str) -> Result<Opd, String> {
    if let Some(inner) = s.strip_prefix('[') {
        let pre = inner.ends_with("]!");
        let inner = inner.trim_end_matches('!').trim_end_matches(']');
        let parts = split_top(inner);
        let mut addr = Addr::default();
        let mut pre_imm = None;
        for (i, p) in parts.iter().enumerate() {
            match (i, parse_operand(p)?) {
                (0, Opd::X(l, _)) => addr.base = vec![l],
                (_, Opd::X(l, _)) => addr.index.push(l),
                (_, Opd::Imm(v)) => {
                    addr.disp = v;
                    pre_imm = Some(v);
                }
                (_, Opd::Word(_)) => {} // lsl #1, sxtw #2
                _ => return Err(format!("address {s}")),
            }
        }
        return Ok(Opd::Mem(addr, if pre { pre_imm.or(Some(0)) } else { None }));
    }
    if let Some(inner) = s.strip_prefix('{') {
        let (list, lane) = match inner.split_once('}') {
            Some((l, rest)) => (l, rest.starts_with('[')),
            None => return Err(format!("register list {s}")),
        };
        let mut regs = Vec::new();
        let mut bytes = 16;
        for item in split_top(list) {
            let (first, last) = item.split_once('-').unwrap_or((&item, &item));
            let (Some(Opd::V(a, b, _)), Some(Opd::V(z, _, _))) =
                (vreg(first.trim()), vreg(last.trim()))
            else {
                return Err(format!("register list {s}"));
            };
            bytes = b;
            let mut r = a;
            loop {
                regs.push(r);
                if r == z {
                    break;
                }
                r = 32 + (r - 32 + 1) % 32;
            }
        }
        return Ok(Opd::List(regs, bytes, lane));
    }
    if let Some(v) = s.strip_prefix('#') {
        return parse_int(v)
            .map(Opd::Imm)
            .or_else(|| Some(Opd::Word(s.to_string()))) // #:lo12:, floats
            .ok_or_else(|| format!("immediate {s}"));
    }
    if let Some((a, _)) = s.split_once(" <") {
        if let Ok(t) = u64::from_str_radix(a.trim(), 16) {
            return Ok(Opd::Target(t));
        }
    }
    if let Some(o) = xreg(s).or_else(|| vreg(s)) {
        return Ok(o);
    }
    if let Ok(t) = u64::from_str_radix(s, 16) {
        if s.chars().all(|c| c.is_ascii_hexdigit()) && s.len() > 2 {
            return Ok(Opd::Target(t));
        }
    }
    Ok(Opd::Word(s.to_string()))
}

/// Instructions that also read their destination.
fn accumulates(m: &str) -> bool {
    matches!(
        m,
        "mla"
            | "mls"
            | "fmla"
            | "fmls"
            | "sdot"
            | "udot"
            | "usdot"
            | "sudot"
            | "bsl"
            | "bit"
            | "bif"
            | "ins"
            | "movk"
            | "bfi"
            | "bfxil"
            | "bfm"
            | "sli"
            | "sri"
            | "ssra"
            | "usra"
            | "srsra"
            | "ursra"
            | "saba"
            | "uaba"
            | "sadalp"
            | "uadalp"
            | "sqrdmlah"
            | "sqrdmlsh"
            | "tbx"
    ) || (m.ends_with('2')
        && ["xtn", "shrn", "hn", "fcvtn", "fcvtxn"]
            .iter()
            .any(|p| m.contains(p)))
        || [
            "smlal", "umlal", "smlsl", "umlsl", "sqdmlal", "sqdmlsl", "sabal", "uabal",
        ]
        .iter()
        .any(|p| m.starts_with(p))
}

fn condition_select(m: &str) -> bool {
    matches!(
        m,
        "csel"
            | "csinc"
            | "csinv"
            | "csneg"
            | "cset"
            | "csetm"
            | "cinc"
            | "cinv"
            | "cneg"
            | "fcsel"
    )
}

struct B {
    micro: Vec<Micro>,
    tmps: u8,
}

impl B {
    fn srcs(&self, o: &Opd) -> Vec<Src> {
        match o {
            Opd::X(l, _) => vec![Src::Reg(*l)],
            Opd::V(l, _, _) => vec![Src::Reg(*l)],
            Opd::List(ls, _, _) => ls.iter().map(|l| Src::Reg(*l)).collect(),
            _ => vec![],
        }
    }
    fn write(&mut self, o: &Opd, srcs: Vec<Src>, merge: bool) {
        let (locs, lane) = match o {
            Opd::X(l, _) => (vec![*l], false),
            Opd::V(l, _, lane) => (vec![*l], *lane),
            Opd::List(ls, _, lane) => (ls.clone(), *lane),
            _ => return,
        };
        self.micro.push(Micro::Assign {
            dst: locs.into_iter().map(Dst::Reg).collect(),
            srcs,
            merge: merge || lane,
        });
    }
    fn check(&mut self, srcs: Vec<Src>, why: &'static str) {
        self.micro.push(Micro::Check(srcs, why));
    }
}

fn access_bytes(m: &str, o: &Opd) -> Option<u64> {
    let by_name = match m.trim_start_matches("ld").trim_start_matches("st") {
        s if s.ends_with("rb") || s.ends_with("rsb") || s.ends_with("urb") => Some(1),
        s if s.ends_with("rh") || s.ends_with("rsh") || s.ends_with("urh") => Some(2),
        s if s.ends_with("rsw") || s == "psw" => Some(4),
        _ => None,
    };
    by_name.or(match o {
        Opd::X(_, bits) => Some(*bits as u64 / 8),
        Opd::V(_, bytes, _) => Some(*bytes),
        Opd::List(ls, bytes, _) => Some(ls.len() as u64 * bytes),
        _ => None,
    })
}

/// A load or store: `regs` are the data operands, `mem` the address,
/// `post` a post-index operand.
fn memory(b: &mut B, m: &str, regs: &[Opd], mem: &Opd, post: Option<&Opd>) -> Result<(), String> {
    let Opd::Mem(addr, pre) = mem else {
        return Err("memory operand".into());
    };
    let base = *addr.base.first().ok_or("address without base")?;
    let mut at = addr.clone();
    if let Some(imm) = pre {
        b.micro.push(Micro::AddImm {
            dst: base,
            src: base,
            imm: *imm,
        });
        at.disp = 0;
    }
    let load = m.starts_with("ld");
    let exclusive_store = m.starts_with("st") && m.contains('x') && regs.len() > 1;
    let data = if exclusive_store { &regs[1..] } else { regs };
    if exclusive_store {
        b.micro.push(Micro::Const {
            dst: match regs[0] {
                Opd::X(l, _) => l,
                _ => return Err("status register".into()),
            },
            value: None,
        });
    }
    // Pairs are two accesses (each register its own stack slot); lists one.
    let pair = data.len() == 2 && !matches!(data[0], Opd::List(..));
    let each: Vec<&Opd> = if pair {
        data.iter().collect()
    } else {
        data.iter().take(1).collect()
    };
    let mut disp = at.disp;
    for o in each {
        let size = access_bytes(m, o);
        let a = Addr {
            disp,
            size,
            vector: !matches!(o, Opd::X(..)),
            ..at.clone()
        };
        disp += size.unwrap_or(0) as i64;
        if load {
            let tmp = b.tmps;
            b.tmps += 1;
            b.micro.push(Micro::Load { addr: a, tmp });
            let lane = matches!(o, Opd::V(_, _, true) | Opd::List(_, _, true));
            match o {
                Opd::X(l, 64) if !lane => b.micro.push(Micro::Copy {
                    dst: Dst::Reg(*l),
                    src: Src::Tmp(tmp),
                }),
                _ => b.write(o, vec![Src::Tmp(tmp)], lane),
            }
        } else {
            let srcs = b.srcs(o);
            b.micro.push(Micro::Store { addr: a, srcs });
        }
    }
    match post {
        Some(Opd::Imm(v)) => b.micro.push(Micro::AddImm {
            dst: base,
            src: base,
            imm: *v,
        }),
        Some(Opd::X(l, _)) => b.micro.push(Micro::Assign {
            dst: vec![Dst::Reg(base)],
            srcs: vec![Src::Reg(base), Src::Reg(*l)],
            merge: false,
        }),
        _ => {}
    }
    Ok(())
}

pub fn decode(raw: &RawInsn) -> Result<(Vec<Micro>, Flow), String> {
    let m = raw.mnemonic.as_str();
    let mut ops = Vec::new();
    let parts = if raw.operands.is_empty() {
        vec![]
    } else {
        split_top(&raw.operands)
    };
    for p in &parts {
        let o = parse_operand(p)?;
        // `add x0, x1, #0x1, lsl #12`: the shift scales the immediate.
        if let (Opd::Word(w), Some(Opd::Imm(v))) = (&o, ops.last()) {
            if let Some(k) = w.strip_prefix("lsl #").and_then(|k| k.parse::<u32>().ok()) {
                let v = v << k;
                ops.pop();
                ops.push(Opd::Imm(v));
                continue;
            }
        }
        ops.push(o);
    }
    let mut b = B {
        micro: Vec::new(),
        tmps: 0,
    };
    let target = |o: Option<&Opd>| match o {
        Some(Opd::Target(t)) => Ok(*t),
        _ => Err(format!("{m}: branch target")),
    };
    // Control flow.
    match m {
        "b" => return Ok((vec![], Flow::Jump(target(ops.first())?))),
        "bl" => return Ok((vec![], Flow::Call(target(ops.first())?))),
        "ret" => return Ok((vec![], Flow::Return)),
        "br" | "blr" | "braa" | "blraa" => {
            let s = b.srcs(ops.first().ok_or("target register")?);
            let call = m.starts_with("bl");
            b.check(
                s,
                if call {
                    "indirect call through a secret"
                } else {
                    "indirect jump through a secret"
                },
            );
            let slots = match ops.first() {
                Some(Opd::X(l, _)) => vec![*l],
                _ => vec![],
            };
            return Ok((
                b.micro,
                if call {
                    Flow::IndirectCall(slots)
                } else {
                    Flow::IndirectJump
                },
            ));
        }
        "cbz" | "cbnz" | "tbz" | "tbnz" => {
            let s = b.srcs(ops.first().ok_or("register")?);
            b.check(s, "branch on a secret register (cbz/tbz)");
            return Ok((b.micro, Flow::Branch(target(ops.last())?)));
        }
        "brk" | "udf" | "hlt" => return Ok((vec![], Flow::Halt)),
        "nop" | "hint" | "bti" | "paciasp" | "autiasp" | "pacibsp" | "autibsp" | "xpaclri"
        | "dmb" | "dsb" | "isb" | "yield" | "csdb" | "sb" | "clrex" | "msr" => {
            return Ok((vec![], Flow::Next))
        }
        _ => {}
    }
    if let Some(_cc) = m.strip_prefix("b.") {
        b.check(vec![Src::Flags(REST)], "conditional branch on secret flags");
        return Ok((b.micro, Flow::Branch(target(ops.first())?)));
    }
    let mem_at = ops.iter().position(|o| matches!(o, Opd::Mem(..)));
    if m.starts_with("prfm") || m.starts_with("prfum") {
        if let Some(Opd::Mem(a, _)) = mem_at.map(|i| &ops[i]) {
            b.micro.push(Micro::Touch(a.clone()));
        }
        return Ok((b.micro, Flow::Next));
    }
    if (m.starts_with("ld") || m.starts_with("st")) && !m.starts_with("stur")
        || m.starts_with("stur")
    {
        if let Some(i) = mem_at {
            memory(&mut b, m, &ops[..i], &ops[i], ops.get(i + 1))?;
            return Ok((b.micro, Flow::Next));
        }
        if m.starts_with("ldr") {
            // A PC-relative literal: constant public data.
            if let Some(o) = ops.first() {
                b.write(o, vec![], false);
            }
            return Ok((b.micro, Flow::Next));
        }
        return Err(format!("unknown memory instruction {m}"));
    }
    let regs: Vec<&Opd> = ops
        .iter()
        .filter(|o| matches!(o, Opd::X(..) | Opd::V(..) | Opd::List(..) | Opd::Zero))
        .collect();
    let all_srcs = |b: &B, from: usize| -> Vec<Src> {
        regs.iter().skip(from).flat_map(|o| b.srcs(o)).collect()
    };
    match m {
        "cmp" | "cmn" | "tst" | "fcmp" | "fcmpe" => {
            let s = all_srcs(&b, 0);
            b.micro.push(Micro::SetFlags {
                mask: ALL,
                srcs: s,
                merge: false,
            });
            return Ok((b.micro, Flow::Next));
        }
        "ccmp" | "ccmn" | "fccmp" | "fccmpe" => {
            b.check(vec![Src::Flags(ALL)], "conditional compare on secret flags");
            let mut s = all_srcs(&b, 0);
            s.push(Src::Flags(ALL));
            b.micro.push(Micro::SetFlags {
                mask: ALL,
                srcs: s,
                merge: false,
            });
            return Ok((b.micro, Flow::Next));
        }
        _ => {}
    }
    let Some(dst) = regs.first().copied() else {
        return Err(format!("unknown instruction {m}"));
    };
    let dst = dst.clone();
    if dst == Opd::Zero {
        // `ands xzr, …` and the like: only the flags.
        let s = all_srcs(&b, 1);
        if m.ends_with('s') {
            b.micro.push(Micro::SetFlags {
                mask: ALL,
                srcs: s,
                merge: false,
            });
        }
        return Ok((b.micro, Flow::Next));
    }
    let mut srcs = all_srcs(&b, 1);
    let src_regs: Vec<&&Opd> = regs.iter().skip(1).collect();
    let imm = ops.iter().find_map(|o| match o {
        Opd::Imm(v) => Some(*v),
        _ => None,
    });
    if condition_select(m) {
        b.check(vec![Src::Flags(ALL)], "conditional select on secret flags");
        srcs.push(Src::Flags(ALL));
        b.write(&dst, srcs, false);
        return Ok((b.micro, Flow::Next));
    }
    match m {
        "mov" | "fmov" | "movz" | "movn" | "movi" | "mvni" | "adr" | "adrp" | "mrs" => {
            match (&dst, src_regs.first()) {
                (Opd::X(d, _), Some(Opd::X(s, _))) => b.micro.push(Micro::Copy {
                    dst: Dst::Reg(*d),
                    src: Src::Reg(*s),
                }),
                (Opd::X(d, _), None) => b.micro.push(Micro::Const {
                    dst: *d,
                    value: if m == "mov" { imm } else { None },
                }),
                (_, Some(_)) => b.write(&dst, srcs, false),
                (_, None) => b.write(&dst, vec![], false),
            }
            return Ok((b.micro, Flow::Next));
        }
        "add" | "sub" => {
            if let (Opd::X(d, 64), [Opd::X(s, 64)], Some(v)) = (&dst, src_regs.as_slice(), imm) {
                b.micro.push(Micro::AddImm {
                    dst: *d,
                    src: *s,
                    imm: if m == "sub" { v.wrapping_neg() } else { v },
                });
                return Ok((b.micro, Flow::Next));
            }
        }
        "udiv" | "sdiv" => b.check(
            srcs.clone(),
            "division with a secret operand (variable time)",
        ),
        "fdiv" | "fsqrt" => b.check(
            srcs.clone(),
            "division or square root on a secret (variable time)",
        ),
        _ => {}
    }
    // Zeroing idioms: eor/sub/bic of a register with itself.
    if matches!(m, "eor" | "sub" | "bic")
        && src_regs.len() == 2
        && src_regs[0] == src_regs[1]
        && !matches!(dst, Opd::V(_, _, true))
    {
        b.write(&dst, vec![], false);
        return Ok((b.micro, Flow::Next));
    }
    let flag_data = matches!(m, "adc" | "adcs" | "sbc" | "sbcs" | "ngc" | "ngcs");
    if flag_data {
        srcs.push(Src::Flags(ALL));
    }
    b.write(&dst, srcs.clone(), accumulates(m));
    if matches!(
        m,
        "adds" | "subs" | "ands" | "bics" | "adcs" | "sbcs" | "negs" | "ngcs"
    ) {
        if accumulates(m) {
            srcs.push(Src::Reg(match dst {
                Opd::X(l, _) => l,
                _ => 0,
            }));
        }
        b.micro.push(Micro::SetFlags {
            mask: ALL,
            srcs,
            merge: false,
        });
    }
    Ok((b.micro, Flow::Next))
}

/// Jump tables: none resolved on AArch64 (an indirect jump then may reach
/// every instruction of its function).
pub fn jump_table(_insns: &[Insn], _at: usize, _program: &Program) -> Option<JumpTable> {
    None
}

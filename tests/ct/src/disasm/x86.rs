//! x86-64 semantics (objdump's Intel syntax) as micro-operations.
//!
//! Register slots: the 16 GPRs (one slot each, any width), each vector
//! register as three slots (bits 0–127, 128–255, 256–511: a legacy SSE write
//! to an xmm register keeps the upper slots, a VEX/EVEX write clears them),
//! and the AVX-512 mask registers k0–k7. Writes of 8 or 16 bits merge with
//! the register's old value; 32-bit writes clear the upper half.
//!
//! Mnemonics the decoder does not know are an error (the check fails)
//! rather than a guess, except vector instructions, which follow one rule:
//! the first operand is the destination, the others sources; a legacy SSE
//! destination is also read (`paddw xmm0, xmm1`) unless the instruction is
//! a move; a VEX/EVEX destination is read only by the instructions that
//! accumulate into it (FMA, `vpdpwssd`, `vpermt2*`, `vpternlog*`, …) or
//! under a merge mask (`{k1}` without `{z}`).

use super::ir::{Addr, Dst, Flow, Insn, JumpTable, Loc, Micro, Src, ALL, CF, REST};
use super::objdump::{Program, RawInsn};

pub const NLOCS: usize = 64 + 96 + 8;

const GPRS: [&str; 16] = [
    "rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12", "r13",
    "r14", "r15",
];

/// The slots of GPR `n`: bits 0–7, 8–15, 16–31, 32–63.
const fn slots(n: u16) -> [Loc; 4] {
    [4 * n, 4 * n + 1, 4 * n + 2, 4 * n + 3]
}

pub const RSP: &[Loc] = &slots(4);
/// System V argument registers, in order: rdi, rsi, rdx, rcx, r8, r9.
pub const ARGS: &[&[Loc]] = &[
    &slots(7),
    &slots(6),
    &slots(2),
    &slots(1),
    &slots(8),
    &slots(9),
];
/// Callee-saved registers (restored at return, by the ABI): rbx, rsp,
/// rbp, r12–r15.
pub const CALLEE_SAVED: &[Loc] = &[
    12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59,
    60, 61, 62, 63,
];
/// The return value register (rax).
pub const RET: &[Loc] = &slots(0);

/// The slot of vector register `n`, part `p` (0: bits 0–127, 1: 128–255,
/// 2: 256–511).
pub fn vec_loc(n: u8, p: u8) -> Loc {
    64 + 3 * n as Loc + p as Loc
}

fn mask_loc(k: u8) -> Loc {
    160 + k as Loc
}

pub fn loc_name(l: Loc) -> String {
    match l {
        0..=63 => GPRS[l as usize / 4].to_string(),
        64..=159 => {
            let (n, p) = ((l - 64) / 3, (l - 64) % 3);
            format!("zmm{n}[{}]", ["0:127", "128:255", "256:511"][p as usize])
        }
        _ => format!("k{}", l - 160),
    }
}

/// A general register operand: number, width, and whether it is one of
/// ah/ch/dh/bh.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Gpr {
    n: u16,
    bits: u16,
    high: bool,
}

impl Gpr {
    /// The slots a read of this width sees.
    fn read(self) -> Vec<Loc> {
        let s = slots(self.n);
        match (self.bits, self.high) {
            (8, true) => vec![s[1]],
            (8, false) => vec![s[0]],
            (16, _) => s[..2].to_vec(),
            (32, _) => s[..3].to_vec(),
            _ => s.to_vec(),
        }
    }
    /// The destinations of a write of this width (a 32-bit write clears
    /// the upper half).
    fn write(self) -> Vec<Dst> {
        let s = slots(self.n);
        match self.bits {
            32 => vec![
                Dst::Reg(s[0]),
                Dst::Reg(s[1]),
                Dst::Reg(s[2]),
                Dst::ZeroExt(s[3]),
            ],
            _ => self.read().into_iter().map(Dst::Reg).collect(),
        }
    }
}

/// A GPR by any of its names.
fn gpr(name: &str) -> Option<Gpr> {
    let g = |n: u16, bits: u16, high: bool| Some(Gpr { n, bits, high });
    if let Some(i) = GPRS.iter().position(|g| *g == name) {
        return g(i as u16, 64, false);
    }
    const OLD: [(&str, &str, &str, &str); 8] = [
        ("eax", "ax", "al", "ah"),
        ("ecx", "cx", "cl", "ch"),
        ("edx", "dx", "dl", "dh"),
        ("ebx", "bx", "bl", "bh"),
        ("esp", "sp", "spl", ""),
        ("ebp", "bp", "bpl", ""),
        ("esi", "si", "sil", ""),
        ("edi", "di", "dil", ""),
    ];
    for (i, (d, w, b, h)) in OLD.iter().enumerate() {
        let i = i as u16;
        if name == *d {
            return g(i, 32, false);
        }
        if name == *w {
            return g(i, 16, false);
        }
        if name == *b {
            return g(i, 8, false);
        }
        if !h.is_empty() && name == *h {
            return g(i, 8, true);
        }
    }
    let rest = name.strip_prefix('r')?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let n: u16 = digits.parse().ok().filter(|n| (8..16).contains(n))?;
    let bits = match &rest[digits.len()..] {
        "d" => 32,
        "w" => 16,
        "b" => 8,
        _ => return None,
    };
    g(n, bits, false)
}

#[derive(Clone, Debug, PartialEq)]
enum Opd {
    Gpr(Gpr),
    Vec(u8, u16),
    Mask(u8),
    Mem(Addr),
    Imm(i64),
    Target(u64),
}

#[derive(Clone, Debug, PartialEq)]
struct Operand {
    opd: Opd,
    /// `{kN}` write mask.
    mask: Option<u8>,
    /// `{z}`: masked-off lanes are zeroed, not kept.
    zeroing: bool,
}

fn parse_int(s: &str) -> Option<i64> {
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

fn mem_size(kw: &str) -> Option<u64> {
    Some(match kw {
        "BYTE" => 1,
        "WORD" => 2,
        "DWORD" => 4,
        "FWORD" => 6,
        "QWORD" => 8,
        "TBYTE" => 10,
        "XMMWORD" | "OWORD" => 16,
        "YMMWORD" => 32,
        "ZMMWORD" => 64,
        _ => return None,
    })
}

fn parse_mem(s: &str) -> Result<Addr, String> {
    let mut addr = Addr::default();
    let mut s = s.trim();
    if let Some((kw, rest)) = s.split_once(" PTR ") {
        addr.size = mem_size(kw.trim());
        s = rest.trim();
    }
    // Segment override: fs/gs (thread-local) and absolute addresses are
    // constant public memory; es/ds just name the default segment.
    if let Some((seg, rest)) = s.split_once(':') {
        if seg == "fs" || seg == "gs" {
            addr.constant = true;
            return Ok(addr);
        }
        s = rest;
    }
    let Some(inner) = s.strip_prefix('[').and_then(|r| r.strip_suffix(']')) else {
        if parse_int(s).is_some() {
            addr.constant = true;
            return Ok(addr);
        }
        return Err(format!("memory operand {s}"));
    };
    let mut term = String::new();
    let mut terms = Vec::new();
    for c in inner.chars() {
        if (c == '+' || c == '-') && !term.is_empty() {
            terms.push(std::mem::take(&mut term));
        }
        term.push(c);
    }
    terms.push(term);
    for t in terms {
        let (neg, body) = match t.strip_prefix('-') {
            Some(b) => (true, b),
            None => (false, t.strip_prefix('+').unwrap_or(&t)),
        };
        if body == "rip" {
            addr.constant = true;
        } else if let Some((reg, _scale)) = body.split_once('*') {
            if let Some(g) = gpr(reg) {
                addr.index.extend(g.read());
            } else if let Some((n, bits)) = vector(reg) {
                addr.index.extend(vec_parts(n, bits).map(|p| vec_loc(n, p)));
            } else {
                return Err(format!("index register {reg}"));
            }
        } else if let Some(g) = gpr(body) {
            if addr.base.is_empty() {
                addr.base = g.read();
            } else {
                addr.index.extend(g.read());
            }
        } else if let Some(v) = parse_int(body) {
            addr.disp = addr
                .disp
                .wrapping_add(if neg { v.wrapping_neg() } else { v });
        } else {
            return Err(format!("address term {body}"));
        }
    }
    if addr.constant {
        addr.base.clear();
    }
    Ok(addr)
}

fn vector(s: &str) -> Option<(u8, u16)> {
    for (prefix, bits) in [("xmm", 128), ("ymm", 256), ("zmm", 512)] {
        if let Some(n) = s.strip_prefix(prefix).and_then(|n| n.parse::<u8>().ok()) {
            return (n < 32).then_some((n, bits));
        }
    }
    None
}

fn vec_parts(_n: u8, bits: u16) -> std::ops::Range<u8> {
    0..(bits / 128) as u8
}

/// Splits operands at top-level commas.
fn split_operands(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut cur = String::new();
    for c in s.chars() {
        match c {
            '[' | '{' | '(' => depth += 1,
            ']' | '}' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        out.push(cur);
    }
    out.into_iter().map(|s| s.trim().to_string()).collect()
}

fn parse_operand(s: &str) -> Result<Option<Operand>, String> {
    let mut s = s.trim().to_string();
    let mut mask = None;
    let mut zeroing = false;
    while let Some(open) = s.rfind('{') {
        let deco = s[open + 1..].trim_end_matches('}').to_string();
        s.truncate(open);
        if let Some(k) = deco.strip_prefix('k').and_then(|k| k.parse::<u8>().ok()) {
            mask = Some(k);
        } else if deco == "z" {
            zeroing = true;
        } // {1toN} broadcasts, {sae}, {rn-sae}: no effect on the analysis.
    }
    let s = s.trim();
    if s.is_empty() {
        return Ok(None); // a lone {sae}
    }
    let opd = if let Some(g) = gpr(s) {
        Opd::Gpr(g)
    } else if let Some((n, bits)) = vector(s) {
        Opd::Vec(n, bits)
    } else if let Some(k) = s.strip_prefix('k').and_then(|k| k.parse::<u8>().ok()) {
        Opd::Mask(k)
    } else if s.contains('[') || s.contains(" PTR ") || s.contains(':') {
        Opd::Mem(parse_mem(s)?)
    } else if let Some(v) = parse_int(s) {
        Opd::Imm(v)
    } else {
        return Err(format!("operand {s}"));
    };
    Ok(Some(Operand { opd, mask, zeroing }))
}

/// Builds one instruction's micro-operations.
struct Builder {
    micro: Vec<Micro>,
    tmps: u8,
}

impl Builder {
    fn new() -> Self {
        Builder {
            micro: Vec::new(),
            tmps: 0,
        }
    }
    fn load(&mut self, addr: &Addr) -> Src {
        let tmp = self.tmps;
        self.tmps += 1;
        self.micro.push(Micro::Load {
            addr: addr.clone(),
            tmp,
        });
        Src::Tmp(tmp)
    }
    /// The inputs an operand contributes (a memory operand is loaded).
    fn read(&mut self, o: &Operand) -> Vec<Src> {
        let mut v = match &o.opd {
            Opd::Gpr(g) => g.read().into_iter().map(Src::Reg).collect(),
            Opd::Vec(n, bits) => vec_parts(*n, *bits)
                .map(|p| Src::Reg(vec_loc(*n, p)))
                .collect(),
            Opd::Mask(k) => vec![Src::Reg(mask_loc(*k))],
            Opd::Mem(a) => vec![self.load(a)],
            Opd::Imm(_) | Opd::Target(_) => vec![],
        };
        if let Some(k) = o.mask {
            v.push(Src::Reg(mask_loc(k)));
        }
        v
    }
    /// Writes `srcs` to `o`: a GPR's slots of the width written; a vector
    /// register written by a legacy instruction (`!vex`) keeps its upper
    /// slots, by a VEX/EVEX one has them cleared.
    fn write(&mut self, o: &Operand, srcs: Vec<Src>, merge: bool, vex: bool) {
        match &o.opd {
            Opd::Gpr(g) => self.micro.push(Micro::Assign {
                dst: g.write(),
                srcs,
                merge,
            }),
            Opd::Vec(n, bits) => {
                let written = if vex { vec_parts(*n, *bits) } else { 0..1 };
                self.micro.push(Micro::Assign {
                    dst: written.clone().map(|p| Dst::Reg(vec_loc(*n, p))).collect(),
                    srcs,
                    merge,
                });
                if vex {
                    for p in written.end..3 {
                        self.micro.push(Micro::Const {
                            dst: vec_loc(*n, p),
                            value: Some(0),
                        });
                    }
                }
            }
            Opd::Mask(k) => self.micro.push(Micro::Assign {
                dst: vec![Dst::Reg(mask_loc(*k))],
                srcs,
                merge,
            }),
            Opd::Mem(a) => self.micro.push(Micro::Store {
                addr: a.clone(),
                srcs,
            }),
            Opd::Imm(_) | Opd::Target(_) => {}
        }
    }
    /// GPR `n` := GPR `r`, slot by slot.
    fn copy_reg(&mut self, n: u16, r: u16) {
        for (d, s) in slots(n).into_iter().zip(slots(r)) {
            self.micro.push(Micro::Copy {
                dst: Dst::Reg(d),
                src: Src::Reg(s),
            });
        }
    }
    /// GPR `n` := a 64-bit value (a loaded temporary).
    fn copy_from(&mut self, n: u16, src: Src) {
        for d in slots(n) {
            self.micro.push(Micro::Copy {
                dst: Dst::Reg(d),
                src: src.clone(),
            });
        }
    }
    /// GPR `n` += `imm` (pointer arithmetic).
    fn add_imm(&mut self, n: u16, imm: i64) {
        for l in slots(n) {
            self.micro.push(Micro::AddImm {
                dst: l,
                src: l,
                imm,
            });
        }
    }
    /// A public constant into the slots a write of `g` covers.
    fn konst(&mut self, g: Gpr, value: Option<i64>) {
        for d in g.write() {
            let (Dst::Reg(l) | Dst::ZeroExt(l)) = d else {
                continue;
            };
            self.micro.push(Micro::Const { dst: l, value });
        }
    }
    fn flags(&mut self, mask: u8, srcs: Vec<Src>, merge: bool) {
        self.micro.push(Micro::SetFlags { mask, srcs, merge });
    }
    fn check(&mut self, srcs: Vec<Src>, why: &'static str) {
        self.micro.push(Micro::Check(srcs, why));
    }
}

/// Every slot of GPR `n`, as inputs.
fn reg_srcs(n: u16) -> Vec<Src> {
    slots(n).into_iter().map(Src::Reg).collect()
}

/// The flags a condition code reads.
fn condition(cc: &str) -> Option<u8> {
    Some(match cc {
        "b" | "c" | "nae" | "ae" | "nb" | "nc" => CF,
        "be" | "na" | "a" | "nbe" => ALL,
        "o" | "no" | "e" | "z" | "ne" | "nz" | "s" | "ns" | "p" | "pe" | "np" | "po" | "l"
        | "nge" | "ge" | "nl" | "le" | "ng" | "g" | "nle" => REST,
        _ => return None,
    })
}

const PREFIXES: [&str; 16] = [
    "lock", "rep", "repz", "repe", "repnz", "repne", "data16", "addr32", "cs", "ds", "es", "ss",
    "fs", "gs", "notrack", "bnd",
];

/// Vector instructions whose VEX/EVEX destination is also an input.
const ACCUMULATE: [&str; 15] = [
    "vfmadd",
    "vfmsub",
    "vfnmadd",
    "vfnmsub",
    "vpdpwssd",
    "vpdpbusd",
    "vpdpbssd",
    "vpdpwusd",
    "vpermt2",
    "vpermi2",
    "vpternlog",
    "vpmadd52",
    "vpshldv",
    "vpshrdv",
    "gather",
];

/// Legacy SSE instructions that only write their destination.
fn legacy_move(m: &str) -> bool {
    matches!(
        m,
        "movd"
            | "movq"
            | "movdqa"
            | "movdqu"
            | "movaps"
            | "movups"
            | "movapd"
            | "movupd"
            | "lddqu"
            | "movntdqa"
            | "movntdq"
            | "movntps"
            | "movntpd"
            | "pshufd"
            | "pshuflw"
            | "pshufhw"
            | "movmskps"
            | "movmskpd"
            | "pmovmskb"
            | "extractps"
            | "movddup"
            | "movshdup"
            | "movsldup"
            | "sqrtps"
            | "sqrtpd"
            | "rcpps"
            | "rsqrtps"
            | "roundps"
            | "roundpd"
            | "pabsb"
            | "pabsw"
            | "pabsd"
            | "phminposuw"
            | "cvtdq2ps"
            | "cvtps2dq"
            | "cvttps2dq"
            | "cvtdq2pd"
            | "cvtps2pd"
            | "cvttsd2si"
            | "cvttss2si"
            | "cvtsd2si"
            | "cvtss2si"
    ) || m.starts_with("pmovsx")
        || m.starts_with("pmovzx")
        || m.starts_with("pextr")
}

/// Instructions whose latency depends on their operands' values.
fn variable_time(m: &str) -> bool {
    let m = m.strip_prefix('v').unwrap_or(m);
    m.starts_with("div") || m.starts_with("sqrt") || m.starts_with("rsqrt14")
}

/// Translates one instruction.
pub fn decode(raw: &RawInsn) -> Result<(Vec<Micro>, Flow), String> {
    let mut mnemonic = raw.mnemonic.as_str();
    let mut rest = raw.operands.as_str();
    let mut rep = false;
    while PREFIXES.contains(&mnemonic) {
        rep |= mnemonic.starts_with("rep");
        let (m, r) = rest.split_once(' ').unwrap_or((rest, ""));
        mnemonic = m;
        rest = r.trim();
    }
    if mnemonic.is_empty()
        || mnemonic == "nop"
        || mnemonic.starts_with("nop")
        || mnemonic == "xchg" && rest == "ax,ax"
    {
        return Ok((vec![], Flow::Next));
    }
    let mut ops = Vec::new();
    // A branch target: `e80fb <name+0x12cb>` (names may hold commas).
    let target = rest
        .split_once(" <")
        .and_then(|(a, _)| u64::from_str_radix(a, 16).ok());
    if let Some(t) = target {
        ops.push(Operand {
            opd: Opd::Target(t),
            mask: None,
            zeroing: false,
        });
    } else {
        let abs = raw
            .comment
            .split_whitespace()
            .next()
            .and_then(|c| u64::from_str_radix(c, 16).ok());
        for s in split_operands(rest) {
            if let Some(mut o) = parse_operand(&s)? {
                if let Opd::Mem(a) = &mut o.opd {
                    if a.constant {
                        a.abs = abs;
                    }
                }
                ops.push(o);
            }
        }
    }
    let any_vector = ops
        .iter()
        .any(|o| matches!(o.opd, Opd::Vec(..) | Opd::Mask(_)));
    let mut b = Builder::new();
    let flow = if any_vector {
        vector_insn(&mut b, mnemonic, &ops)?;
        Flow::Next
    } else {
        scalar_insn(&mut b, mnemonic, &ops, rep, &raw.comment)?
    };
    Ok((b.micro, flow))
}

fn same_reg(a: &Operand, b: &Operand) -> bool {
    match (&a.opd, &b.opd) {
        (Opd::Vec(x, _), Opd::Vec(y, _)) => x == y,
        (Opd::Gpr(x), Opd::Gpr(y)) => x.n == y.n,
        (Opd::Mask(x), Opd::Mask(y)) => x == y,
        _ => false,
    }
}

fn vector_insn(b: &mut Builder, m: &str, ops: &[Operand]) -> Result<(), String> {
    let vex = m.starts_with('v') || m.starts_with('k');
    if m == "vzeroupper" || m == "vzeroall" {
        return Ok(()); // no operands: handled in scalar_insn
    }
    if matches!(
        m,
        "ptest" | "vptest" | "vtestps" | "vtestpd" | "comiss" | "comisd" | "ucomiss" | "ucomisd"
    ) || ["vcomis", "vucomis", "kortest", "ktest"]
        .iter()
        .any(|p| m.starts_with(p))
    {
        let srcs = ops.iter().flat_map(|o| b.read(o)).collect();
        b.flags(ALL, srcs, false);
        return Ok(());
    }
    let (dst, srcs) = ops.split_first().ok_or(format!("{m} without operands"))?;
    let unmasked = dst.mask.is_none();
    // Zeroing (and all-ones) idioms: the result does not depend on the
    // register.
    let regs: Vec<&Operand> = srcs
        .iter()
        .filter(|o| !matches!(o.opd, Opd::Imm(_)))
        .collect();
    let base = m.strip_prefix('v').unwrap_or(m);
    let idiom = [
        "pxor", "xorp", "psub", "pcmpgt", "pcmpeq", "pandn", "kxor", "kxnor", "kandn",
    ]
    .iter()
    .any(|p| base.starts_with(p) || m.starts_with(p));
    let same = if vex {
        regs.len() == 2 && same_reg(regs[0], regs[1])
    } else {
        regs.len() == 1 && same_reg(dst, regs[0])
    };
    let ternlog_const = m.starts_with("vpternlog")
        && matches!(srcs.last().map(|o| &o.opd), Some(Opd::Imm(0 | 0xff)));
    if unmasked && ((idiom && same) || ternlog_const) {
        b.write(dst, vec![], false, vex);
        return Ok(());
    }
    if variable_time(m) {
        let all: Vec<Src> = srcs.iter().flat_map(|o| b.read(o)).collect();
        b.check(all, "division or square root on a secret (variable time)");
    }
    let accumulates = vex && ACCUMULATE.iter().any(|p| m.contains(p));
    let merge_masked = dst.mask.is_some() && !dst.zeroing && !matches!(dst.opd, Opd::Mem(_));
    let legacy_reads_dst = !vex
        && !legacy_move(m)
        && !((m == "movss" || m == "movsd") && matches!(srcs[0].opd, Opd::Mem(_)));
    let mut inputs: Vec<Src> = srcs.iter().flat_map(|o| b.read(o)).collect();
    if let Some(k) = dst.mask {
        inputs.push(Src::Reg(mask_loc(k)));
    }
    let reads_dst = accumulates || merge_masked || legacy_reads_dst;
    if reads_dst && matches!(dst.opd, Opd::Mem(_)) {
        let old = b.read(dst);
        inputs.extend(old);
    }
    b.write(dst, inputs, reads_dst, vex);
    // A vector instruction's memory accesses (stack arrays, not scalar
    // slots: see `engine::FrameFacts`).
    for mc in b.micro.iter_mut() {
        if let Micro::Load { addr, .. } | Micro::Store { addr, .. } = mc {
            addr.vector = true;
        }
    }
    Ok(())
}

fn scalar_insn(
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
    let add = text(at.checked_sub(1)?)?.strip_prefix("add ")?;
    let (r2, t) = add.split_once(',')?;
    let load = text(at.checked_sub(2)?)?.strip_prefix("movsxd ")?;
    let (r3, mem) = load.split_once(',')?;
    let (t, r) = (t.trim(), r);
    if r2.trim() != r || r3.trim() != r {
        return None;
    }
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
    let base = insns[..at - 2]
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
    let bound = insns[at.saturating_sub(10)..at - 2]
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
        if !is_insn(t) {
            if bound.is_some() {
                return None;
            }
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

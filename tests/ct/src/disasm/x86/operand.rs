//! x86-64 operands (registers, memory, immediates, targets) and the
//! builder of an instruction's micro-operations.

use super::*;

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Opd {
    Gpr(Gpr),
    Vec(u8, u16),
    Mask(u8),
    Mem(Addr),
    Imm(i64),
    Target(u64),
}

#[derive(Clone, Debug, PartialEq)]
pub(super) struct Operand {
    pub(super) opd: Opd,
    /// `{kN}` write mask.
    pub(super) mask: Option<u8>,
    /// `{z}`: masked-off lanes are zeroed, not kept.
    pub(super) zeroing: bool,
}

pub(super) fn parse_int(s: &str) -> Option<i64> {
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

pub(super) fn mem_size(kw: &str) -> Option<u64> {
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

pub(super) fn parse_mem(s: &str) -> Result<Addr, String> {
    let mut addr = Addr::default();
    let mut s = s.trim();
    // `DWORD PTR [..]`, or `DWORD BCST [..]` (an element broadcast).
    if let Some((kw, rest)) = s.split_once(" PTR ").or_else(|| s.split_once(" BCST ")) {
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

pub(super) fn vector(s: &str) -> Option<(u8, u16)> {
    for (prefix, bits) in [("xmm", 128), ("ymm", 256), ("zmm", 512)] {
        if let Some(n) = s.strip_prefix(prefix).and_then(|n| n.parse::<u8>().ok()) {
            return (n < 32).then_some((n, bits));
        }
    }
    None
}

/// The slots a vector register of this width covers: xmm the first, ymm
/// two, zmm all three (the third slot is bits 256–511).
pub(super) fn vec_parts(_n: u8, bits: u16) -> std::ops::Range<u8> {
    match bits {
        128 => 0..1,
        256 => 0..2,
        _ => 0..3,
    }
}

/// Splits operands at top-level commas.
pub(super) fn split_operands(s: &str) -> Vec<String> {
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

pub(super) fn parse_operand(s: &str) -> Result<Option<Operand>, String> {
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
pub(super) struct Builder {
    pub(super) micro: Vec<Micro>,
    pub(super) tmps: u8,
}

impl Builder {
    pub(super) fn new() -> Self {
        Builder {
            micro: Vec::new(),
            tmps: 0,
        }
    }
    pub(super) fn load(&mut self, addr: &Addr) -> Src {
        let tmp = self.tmps;
        self.tmps += 1;
        self.micro.push(Micro::Load {
            addr: addr.clone(),
            tmp,
        });
        Src::Tmp(tmp)
    }
    /// The inputs an operand contributes (a memory operand is loaded).
    pub(super) fn read(&mut self, o: &Operand) -> Vec<Src> {
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
    pub(super) fn write(&mut self, o: &Operand, srcs: Vec<Src>, merge: bool, vex: bool) {
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
    pub(super) fn copy_reg(&mut self, n: u16, r: u16) {
        for (d, s) in slots(n).into_iter().zip(slots(r)) {
            self.micro.push(Micro::Copy {
                dst: Dst::Reg(d),
                src: Src::Reg(s),
            });
        }
    }
    /// GPR `n` := a 64-bit value (a loaded temporary).
    pub(super) fn copy_from(&mut self, n: u16, src: Src) {
        for d in slots(n) {
            self.micro.push(Micro::Copy {
                dst: Dst::Reg(d),
                src: src.clone(),
            });
        }
    }
    /// GPR `n` += `imm` (pointer arithmetic).
    pub(super) fn add_imm(&mut self, n: u16, imm: i64) {
        for l in slots(n) {
            self.micro.push(Micro::AddImm {
                dst: l,
                src: l,
                imm,
            });
        }
    }
    /// A public constant into the slots a write of `g` covers.
    pub(super) fn konst(&mut self, g: Gpr, value: Option<i64>) {
        for d in g.write() {
            let (Dst::Reg(l) | Dst::ZeroExt(l)) = d else {
                continue;
            };
            self.micro.push(Micro::Const { dst: l, value });
        }
    }
    pub(super) fn flags(&mut self, mask: u8, srcs: Vec<Src>, merge: bool) {
        self.micro.push(Micro::SetFlags { mask, srcs, merge });
    }
    pub(super) fn check(&mut self, srcs: Vec<Src>, why: &'static str) {
        self.micro.push(Micro::Check(srcs, why));
    }
}

/// Every slot of GPR `n`, as inputs.
pub(super) fn reg_srcs(n: u16) -> Vec<Src> {
    slots(n).into_iter().map(Src::Reg).collect()
}

/// The flags a condition code reads.
pub(super) fn condition(cc: &str) -> Option<u8> {
    Some(match cc {
        "b" | "c" | "nae" | "ae" | "nb" | "nc" => CF,
        "be" | "na" | "a" | "nbe" => ALL,
        "o" | "no" | "e" | "z" | "ne" | "nz" | "s" | "ns" | "p" | "pe" | "np" | "po" | "l"
        | "nge" | "ge" | "nl" | "le" | "ng" | "g" | "nle" => REST,
        _ => return None,
    })
}

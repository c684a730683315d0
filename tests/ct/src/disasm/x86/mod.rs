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

mod operand;
mod scalar;
mod vector;

use super::ir::{Addr, Dst, Flow, Loc, Micro, Src, ALL, CF, REST};
use super::objdump::RawInsn;
use operand::*;
pub use scalar::jump_table;
use scalar::scalar_insn;
use vector::vector_insn;

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

const PREFIXES: [&str; 16] = [
    "lock", "rep", "repz", "repe", "repnz", "repne", "data16", "addr32", "cs", "ds", "es", "ss",
    "fs", "gs", "notrack", "bnd",
];

/// Translates one instruction.
pub fn decode(raw: &RawInsn) -> Result<(Vec<Micro>, Flow), String> {
    let mut mnemonic = raw.mnemonic.as_str();
    let mut rest = raw.operands.as_str();
    let mut rep = false;
    // Prefixes, and objdump's encoding hints (`{evex}`, `{vex}`, `{vex3}`).
    while PREFIXES.contains(&mnemonic) || mnemonic.starts_with('{') {
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

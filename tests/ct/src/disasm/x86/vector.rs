//! x86-64 vector instructions (SSE, AVX, AVX-512, mask registers).

use super::*;

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

pub(super) fn vector_insn(b: &mut Builder, m: &str, ops: &[Operand]) -> Result<(), String> {
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
    // A vector instruction's memory accesses (never the reload of a
    // general-purpose spill: see `State::load_slot`).
    for mc in b.micro.iter_mut() {
        if let Micro::Load { addr, .. } | Micro::Store { addr, .. } = mc {
            addr.vector = true;
        }
    }
    Ok(())
}

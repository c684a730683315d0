//! `nttfuse-ct disasm BINARY [--arch x86_64|aarch64] [--objdump PATH]`: a
//! static constant-time check of the lattice kernels on the machine code of
//! a release binary, exactly as built.
//!
//! # What it checks
//!
//! objdump disassembles the binary (`objdump -d --no-show-raw-insn -M intel
//! -C` on x86-64, `aarch64-linux-gnu-objdump -d --no-show-raw-insn -C` on
//! AArch64). The kernels are selected by demangled name from the symbol
//! table ([`kernels`]): every ring entry point (`mlkem_forward`,
//! `mlkem_inverse`, `mldsa_forward`, `mldsa_inverse`, every monomorphised
//! mode) of every ISA module the architecture has (AVX-512, AVX2; NEON) and
//! the portable ones, the products (`cache`, `multiply_accumulate`, ML-DSA's
//! `dsa_cache`, `dsa_multiply_accumulate`; VNNI; portable), the lattice
//! register groups (`backend::lattice::run_group`) and
//! `transform::mlkem::multiply_ntts_portable`. A kernel missing from the
//! binary, or present with another number of monomorphisations, fails the
//! check (with `--native`, for a `-C target-cpu=native` build, the AVX-512
//! ML-KEM products without VNNI may be absent: with VNNI in the build's
//! target features their selection arm is dead code). `field::lattice::check_canonical` is not in the set: it branches
//! once, by design, on the OR-folded verdict (valid or not), which is public.
//!
//! # How it decides
//!
//! Each kernel is analysed from its entry with an ABI configuration: which
//! argument registers point to secret memory (the coefficients, caches and
//! outputs), which to public memory (twiddle tables, the group
//! description), which are public lengths. The configuration is checked
//! against the code: every configured pointer must be dereferenced, every
//! output stored through, the hidden result pointer returned in `rax`,
//! no value derived only from lengths used as an address, and no other
//! argument register read before it is written; any mismatch fails.
//!
//! The analysis ([`engine`]) is a forward data-flow (taint) analysis over
//! each function's control-flow graph, to a fixpoint, joins being unions.
//! Its state is, per register (GPRs; vector registers in 128-bit slots on
//! x86-64, so that legacy SSE writes keep the upper bits and VEX writes
//! clear them; GPRs in slots of bits 0–7, 8–15, 16–31, 32–63, so that
//! `sete al` after a secret in `rax` leaves `al` public; AVX-512 mask
//! registers; AArch64 x and v registers), the
//! flags (x86-64: the carry flag apart from the others) and each stack slot
//! stored to (`[rsp+X]`, `[rbp+X]` once `rbp` is known to hold a stack
//! address, `[sp, #X]`): whether the value may be derived from a secret
//! (*taint*), and whether it may point into secret memory, into this
//! frame (with its offset while known) or into a caller's frame.
//!
//! * A load through a secret pointer is tainted; through a public pointer,
//!   a PC-relative or literal address, public; from a stack slot, what was
//!   stored there. Stores at unknown places in the frame (through a run-time
//!   index: stack arrays) are joined into every later frame load, except
//!   (the one coarse rule that is an assumption, not a proof) into the
//!   reload of a register spill — a general-purpose load of bytes that one
//!   general-purpose store at a fixed offset wrote — and of a slot holding
//!   pointers: safe Rust's bounds checks keep an index inside its array and
//!   LLVM gives spills their own slots. Without that rule every spilled loop
//!   counter of the two-column register groups, which keep their registers
//!   in stack arrays, would read as secret. It would miss a leak only where
//!   a stack array of integers is written at a constant offset with a
//!   public value, overwritten with a secret through an index, and read
//!   back at the constant offset.
//! * Pointer arithmetic (moves, `lea`, `add`/`sub` of constants, `ADR`,
//!   `ADD`) keeps what a pointer points to; any arithmetic on a tainted
//!   source taints its destinations and the flags it writes. A register
//!   written only from public sources, or by a zeroing idiom (`xor eax,eax`,
//!   `vpxor x,x,x`, `eor v0.16b,v0.16b,v0.16b`, `movi v0.2d,#0`), is
//!   public. Destinations that are also inputs (two-operand x86 ALU, FMA,
//!   `vpdpwssd`, `vpermt2*`, `vpternlog*`, merge masks `{k}` without `{z}`,
//!   partial register writes, AArch64 `mla`/`mls`/`bsl`/`ins`/`movk`…) keep
//!   their old taint.
//! * Direct calls into nttfuse functions are analysed with the caller's
//!   state (memoised per entry state); registers the ABI says are preserved
//!   keep the caller's values. Calls into core/std/alloc are not: panics
//!   never return, `memcpy`/`memmove`/`memset` copy taint between the
//!   regions their pointers name (their length register must be public),
//!   and any other call fails the check if an argument register holds a
//!   secret or a secret pointer.
//! * Jump tables (`movsxd`/`add`/`jmp` on x86-64) are read from the binary;
//!   the analysis confirms that the table register holds the table's
//!   address at the jump. Any other indirect jump through a public register
//!   may go to any instruction of its function.
//!
//! Violations: a conditional branch reading tainted flags or a tainted
//! register (`jcc`, `jrcxz`; `b.cond`, `cbz`/`cbnz`, `tbz`/`tbnz`);
//! `cmovcc`/`setcc`/`csel`/`csinc`/`csinv`/`csneg`/`cset`/`cinc`/`ccmp`/
//! `fcsel` reading tainted flags; a memory access (load, store, prefetch,
//! gather, scatter, pre/post-indexed forms) whose address uses a tainted
//! register; an indirect call or jump through a tainted register; a
//! division (or square root) with a tainted operand; a secret stored to
//! memory the configuration calls public (which would hide it from the
//! analysis). An instruction the decoders do not know fails the check.
//!
//! # What it does not see
//!
//! The timing of individual instructions beyond divisions (e.g. multiplies
//! with operand-dependent latency on some CPUs); code outside the selected
//! kernels and their nttfuse callees (the callers, which only pass the
//! buffers); and it trusts its ABI configuration where the shape checks
//! cannot refute it, the compiler's stack discipline (callee-saved
//! registers restored, the register-save area not addressed by indexed
//! accesses) and that no pointer to secret memory is stored in memory
//! other than the stack.

pub mod aarch64;
pub mod engine;
pub mod ir;
pub mod kernels;
pub mod objdump;
#[cfg(test)]
mod tests;
pub mod x86;

use engine::Isa;

pub const X86_64: Isa = Isa {
    nlocs: x86::NLOCS,
    sp: x86::RSP,
    args: x86::ARGS,
    callee_saved: x86::CALLEE_SAVED,
    vector_saved: 0..0,
    ret: x86::RET,
    decode: x86::decode,
    jump_table: x86::jump_table,
    loc_name: x86::loc_name,
};

pub const AARCH64: Isa = Isa {
    nlocs: aarch64::NLOCS,
    sp: aarch64::SP,
    args: aarch64::ARGS,
    callee_saved: &aarch64::CALLEE_SAVED,
    vector_saved: 40..48,
    ret: aarch64::RET,
    decode: aarch64::decode,
    jump_table: aarch64::jump_table,
    loc_name: aarch64::loc_name,
};

/// The ELF machine of `binary`: x86_64 or aarch64.
fn elf_arch(binary: &str) -> Result<&'static str, String> {
    let bytes = std::fs::read(binary).map_err(|e| format!("cannot read {binary}: {e}"))?;
    if bytes.len() < 20 || &bytes[..4] != b"\x7fELF" {
        return Err(format!("{binary} is not an ELF file"));
    }
    match u16::from_le_bytes([bytes[18], bytes[19]]) {
        0x3e => Ok("x86_64"),
        0xb7 => Ok("aarch64"),
        m => Err(format!(
            "{binary}: ELF machine {m:#x} is neither x86-64 nor AArch64"
        )),
    }
}

/// Runs the check; `Ok(false)` if any kernel fails or is missing.
pub fn run(args: &[String]) -> Result<bool, String> {
    let usage =
        "usage: nttfuse-ct disasm BINARY [--arch x86_64|aarch64] [--objdump PATH] [--native]";
    let mut it = args.iter();
    let binary = it.next().ok_or(usage)?.clone();
    let (mut arch, mut objdump, mut native) = (None, None, false);
    while let Some(flag) = it.next() {
        if flag == "--native" {
            native = true;
            continue;
        }
        let value = it.next().ok_or(usage)?.clone();
        match flag.as_str() {
            "--arch" => arch = Some(value),
            "--objdump" => objdump = Some(value),
            _ => return Err(usage.into()),
        }
    }
    let arch = match arch {
        Some(a) => a,
        None => elf_arch(&binary)?.to_string(),
    };
    let (isa, default_objdump) = match arch.as_str() {
        "x86_64" => (&X86_64, "objdump"),
        "aarch64" => (&AARCH64, "aarch64-linux-gnu-objdump"),
        _ => return Err(usage.into()),
    };
    let objdump = objdump.unwrap_or_else(|| default_objdump.to_string());
    let program = objdump::load(&objdump, &binary, arch == "x86_64")?;
    let (results, missing, dropped) = kernels::check_all(&program, isa, &arch, native);
    println!("{binary} ({arch}, {objdump}):");
    let mut failed = 0;
    let (mut insns, mut symbols) = (0, 0);
    let mut callees = std::collections::BTreeMap::new();
    for r in &results {
        insns += r.insns;
        symbols += r.aliases;
        let callee_insns: usize = r.callees.iter().map(|c| c.2).sum();
        for (a, n, c) in &r.callees {
            callees.insert(*a, (n.clone(), *c));
        }
        let also = if r.callees.is_empty() {
            String::new()
        } else {
            format!(" (+{callee_insns} in {} callees)", r.callees.len())
        };
        let alias = if r.aliases > 1 {
            format!(" [{} symbols]", r.aliases)
        } else {
            String::new()
        };
        if r.problems.is_empty() {
            println!(
                "  ok    {:#x} {}{alias}: {} instructions{also}",
                r.addr, r.name, r.insns
            );
        } else {
            failed += 1;
            println!(
                "  FAIL  {:#x} {}{alias}: {} instructions{also}",
                r.addr, r.name, r.insns
            );
            for p in &r.problems {
                println!("          {p}");
            }
        }
    }
    for m in &missing {
        println!("  MISSING {m}");
    }
    for d in &dropped {
        println!("  absent  {d} (a --native build whose CPU has AVX-512 VNNI never reaches it)");
    }
    let callee_total: usize = callees.values().map(|c| c.1).sum();
    println!(
        "{} kernel functions ({symbols} symbols), {insns} instructions, +{callee_total} instructions in {} distinct callees; {failed} with violations, {} missing",
        results.len(),
        callees.len(),
        missing.len()
    );
    if failed == 0 && missing.is_empty() {
        println!("disasm: no secret-dependent branch, conditional move, address or division in the lattice kernels of {binary}");
        Ok(true)
    } else {
        println!("disasm: VIOLATIONS in {binary}");
        Ok(false)
    }
}

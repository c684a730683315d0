//! Which functions are the lattice kernels, and how their arguments arrive
//! (which registers point to secret memory), checked against the code.
//!
//! Rust's ABI on System V x86-64 and AAPCS64: a `&[T]` is two registers
//! (pointer, length), a `&[T; N]` / `&mut [T; N]` / `&Struct` one pointer;
//! a large return value goes through a hidden pointer (x86-64: `rdi`,
//! before the arguments, returned again in `rax`; AArch64: `x8`).

use super::engine::{Analysis, Isa};
use super::ir::{Frame, State, Val};
use super::objdump::Program;
use std::collections::BTreeMap;

/// One argument register's role.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    /// Points to secret memory the kernel reads.
    Secret,
    /// Points to secret memory the kernel writes (and may read).
    Out,
    /// Points to public memory (twiddle tables, the group description).
    Public,
    /// A public length.
    Len,
}

/// A kernel entry point: its demangled name, how many monomorphised
/// symbols it has (`None`: at least one), its arguments, and whether it
/// returns through a hidden pointer (secret output).
#[derive(Clone, Debug)]
pub struct Kernel {
    pub name: String,
    pub symbols: Option<usize>,
    /// May be absent from a `-C target-cpu=native` build: the AVX-512
    /// ML-KEM products without VNNI, unreachable (and removed) when the
    /// build's CPU has VNNI and `is_x86_feature_detected!` is constant.
    pub native_may_drop: bool,
    pub args: Vec<Arg>,
    pub sret: bool,
}

fn k(name: String, symbols: Option<usize>, args: &[Arg]) -> Kernel {
    Kernel {
        name,
        symbols,
        native_may_drop: false,
        args: args.to_vec(),
        sret: false,
    }
}

/// Every kernel entry point of a build for `arch`.
pub fn kernels(arch: &str) -> Vec<Kernel> {
    use Arg::*;
    let isas: &[&str] = match arch {
        "aarch64" => &["neon"],
        _ => &["avx512", "avx2"],
    };
    let ring = [Out, Public, Len];
    let kem_cache = [Secret, Public, Out];
    let sum = [Secret, Len, Secret, Len, Out];
    let dsa_cache = [Secret, Out];
    let dsa_product = [Secret, Secret, Out];
    let mut out = Vec::new();
    let lanes = |prefix: &str, out: &mut Vec<Kernel>| {
        for (f, n) in [
            ("mlkem_forward", 4),
            ("mlkem_inverse", 8),
            ("mldsa_forward", 4),
            ("mldsa_inverse", 8),
        ] {
            out.push(k(format!("{prefix}::{f}"), Some(n), &ring));
        }
    };
    for isa in isas {
        lanes(&format!("nttfuse::backend::{isa}::ring"), &mut out);
        if *isa == "avx512" {
            // ML-KEM's pair entry points: two polynomials run together.
            let pair = [Out, Out, Public, Len];
            for (f, n) in [("mlkem_forward2", 4), ("mlkem_inverse2", 8)] {
                out.push(k(
                    format!("nttfuse::backend::avx512::ring::{f}"),
                    Some(n),
                    &pair,
                ));
            }
        }
        let products = format!("nttfuse::backend::{isa}::products");
        let kem_modules: &[&str] = if *isa == "avx512" {
            &["kem", "kem_vnni"]
        } else {
            &["kem"]
        };
        for m in kem_modules {
            let drop = *m == "kem" && *isa == "avx512";
            for (f, n, args) in [
                ("cache", 1, &kem_cache[..]),
                ("multiply_accumulate", 2, &sum),
            ] {
                out.push(Kernel {
                    native_may_drop: drop,
                    ..k(format!("{products}::{m}::{f}"), Some(n), args)
                });
            }
        }
        out.push(k(format!("{products}::dsa_cache"), Some(1), &dsa_cache));
        out.push(k(
            format!("{products}::dsa_multiply"),
            Some(2),
            &dsa_product,
        ));
        out.push(k(
            format!("{products}::dsa_multiply_accumulate"),
            Some(2),
            &sum,
        ));
    }
    lanes("nttfuse::backend::ring::portable", &mut out);
    let portable = "nttfuse::backend::ring::products::portable";
    out.push(k(format!("{portable}::kem_cache"), Some(1), &kem_cache));
    out.push(k(
        format!("{portable}::kem_multiply_accumulate"),
        Some(2),
        &sum,
    ));
    out.push(k(format!("{portable}::dsa_cache"), Some(1), &dsa_cache));
    out.push(k(
        format!("{portable}::dsa_multiply"),
        Some(2),
        &dsa_product,
    ));
    out.push(k(
        format!("{portable}::dsa_multiply_accumulate"),
        Some(2),
        &sum,
    ));
    out.push(k(
        "nttfuse::backend::lattice::run_group".into(),
        None,
        &[Out, Len, Public],
    ));
    out.push(Kernel {
        name: "nttfuse::transform::mlkem::multiply_ntts_portable".into(),
        symbols: Some(1),
        native_may_drop: false,
        args: vec![Secret, Secret],
        sret: true,
    });
    out
}

/// Where each argument (and the hidden result pointer) arrives: bit i of a
/// value's origin is register `isa.args[i]`.
fn layout(kernel: &Kernel, isa: &Isa, arch: &str) -> Vec<(usize, Arg)> {
    let mut regs = Vec::new();
    let mut next = 0;
    if kernel.sret {
        if arch == "aarch64" {
            regs.push((8, Arg::Out));
        } else {
            regs.push((0, Arg::Out));
            next = 1;
        }
    }
    for a in &kernel.args {
        regs.push((next, *a));
        next += 1;
    }
    assert!(regs.iter().all(|(i, _)| *i < isa.args.len()));
    regs
}

/// The entry state: configured pointers, public lengths, every other
/// argument register undefined.
fn entry(kernel: &Kernel, isa: &Isa, arch: &str) -> (State, u16) {
    let mut st = State::new(isa.nlocs);
    let mut pointers = 0u16;
    // Only the low slot: code may copy a register whose low byte alone
    // it wrote (`mov cl,1` … `mov r8d,ecx`).
    for r in isa.args {
        st.regs[r[0] as usize] = Val {
            undef: true,
            ..Val::CLEAN
        };
    }
    for (i, a) in layout(kernel, isa, arch) {
        let bit = 1u16 << i;
        let secret = matches!(a, Arg::Secret | Arg::Out);
        if a != Arg::Len {
            pointers |= bit;
        }
        for l in isa.args[i] {
            st.regs[*l as usize] = Val {
                secret,
                origin: bit,
                ..Val::CLEAN
            };
        }
    }
    for l in isa.sp {
        st.regs[*l as usize] = Val {
            frame: Frame::At(0),
            ..Val::CLEAN
        };
    }
    (st, pointers)
}

/// The result of checking one function.
pub struct Checked {
    pub name: String,
    pub addr: u64,
    pub aliases: usize,
    pub insns: usize,
    /// Functions analysed with it: (address, name, instructions).
    pub callees: Vec<(u64, String, usize)>,
    /// Violations and shape errors: (address, function, instruction, why).
    pub problems: Vec<String>,
}

/// Checks every configured kernel; `Err` lists kernels missing from the
/// binary or present with another number of symbols.
pub fn check_all(
    program: &Program,
    isa: &Isa,
    arch: &str,
    native: bool,
) -> (Vec<Checked>, Vec<String>, Vec<String>) {
    let mut by_name: BTreeMap<&str, Vec<u64>> = BTreeMap::new();
    for s in &program.symbols {
        by_name.entry(s.name.as_str()).or_default().push(s.addr);
    }
    let mut results = Vec::new();
    let mut missing = Vec::new();
    let mut dropped = Vec::new();
    let mut analysis = Analysis::new(program, isa);
    for kernel in kernels(arch) {
        let addrs = by_name
            .get(kernel.name.as_str())
            .cloned()
            .unwrap_or_default();
        match kernel.symbols {
            Some(_) if addrs.is_empty() && native && kernel.native_may_drop => {
                dropped.push(kernel.name.clone());
                continue;
            }
            Some(n) if addrs.len() != n => {
                missing.push(format!(
                    "{}: {} symbols in the binary, expected {n} (one per monomorphisation)",
                    kernel.name,
                    addrs.len()
                ));
                if addrs.is_empty() {
                    continue;
                }
            }
            None if addrs.is_empty() => {
                missing.push(format!("{}: not in the binary", kernel.name));
                continue;
            }
            _ => {}
        }
        let mut unique: BTreeMap<u64, usize> = BTreeMap::new();
        for a in &addrs {
            *unique.entry(*a).or_default() += 1;
        }
        for (addr, aliases) in unique {
            results.push(check_one(
                &mut analysis,
                program,
                isa,
                arch,
                &kernel,
                addr,
                aliases,
            ));
        }
    }
    (results, missing, dropped)
}

fn check_one(
    analysis: &mut Analysis,
    program: &Program,
    isa: &Isa,
    arch: &str,
    kernel: &Kernel,
    addr: u64,
    aliases: usize,
) -> Checked {
    let (st, pointers) = entry(kernel, isa, arch);
    analysis.reset(pointers);
    let mut problems = Vec::new();
    if !program.functions.contains_key(&addr) {
        problems.push(format!(
            "symbol at {addr:#x} does not start a function objdump disassembled"
        ));
    } else {
        analysis.run_top(addr, st);
    }
    for f in &analysis.findings {
        let at = if f.text.is_empty() {
            format!("{:#x} in {}", f.addr, f.func)
        } else {
            format!("{:#x} `{}` in {}", f.addr, f.text, f.func)
        };
        problems.push(format!("{at}: {}", f.why));
    }
    // The configuration against the code.
    for (i, a) in layout(kernel, isa, arch) {
        let reg = (isa.loc_name)(isa.args[i][0]);
        let bit = 1u16 << i;
        if a != Arg::Len && analysis.derefs & bit == 0 {
            problems.push(format!(
                "shape: {reg} is configured as a pointer ({a:?}) but never dereferenced"
            ));
        }
        if a == Arg::Out && analysis.stores & bit == 0 {
            problems.push(format!(
                "shape: {reg} is configured as the output but nothing is stored through it"
            ));
        }
    }
    match &analysis.exit {
        None if program.functions.contains_key(&addr) => {
            problems.push("shape: the function never returns".into())
        }
        Some(exit)
            if kernel.sret
                && arch != "aarch64"
                && super::engine::reg_val(exit, isa.ret).origin & 1 == 0 =>
        {
            problems.push("shape: rax at return is not the result pointer (rdi)".into());
        }
        _ => {}
    }
    let insns = program.functions.get(&addr).map_or(0, |f| f.insns.len());
    let callees = analysis
        .visited
        .iter()
        .filter(|(a, _)| **a != addr)
        .map(|(a, (n, c))| (*a, n.clone(), *c))
        .collect();
    Checked {
        name: kernel.name.clone(),
        addr,
        aliases,
        insns,
        callees,
        problems,
    }
}

//! Unit tests of the decoders and the analysis on hand-written code.

use super::engine::{Analysis, Isa};
use super::ir::{Frame, State, Val};
use super::objdump::{parse_line, Function, Program};
use super::{AARCH64, X86_64};
use std::collections::BTreeMap;

/// A program of functions, each given as instruction lines at consecutive
/// addresses (`0x1000`, `0x2000`, … ; instruction i at base + 4·i). Branch
/// targets are written `@N` (instruction N of the same function) or `%F`
/// (function F's start).
fn program(functions: &[(&str, &[&str])], x86: bool) -> Program {
    let mut out = BTreeMap::new();
    let base = |f: usize| 0x1000 * (f as u64 + 1);
    for (f, (name, lines)) in functions.iter().enumerate() {
        let insns = lines
            .iter()
            .enumerate()
            .map(|(i, line)| {
                let mut text = line.to_string();
                for (k, _) in lines.iter().enumerate().rev() {
                    let to = base(f) + 4 * k as u64;
                    text =
                        text.replace(&format!("@{k}"), &format!("{to:x} <{name}+0x{:x}>", 4 * k));
                }
                for (g, (callee, _)) in functions.iter().enumerate() {
                    text = text.replace(&format!("%{g}"), &format!("{:x} <{callee}>", base(g)));
                }
                parse_line(base(f) + 4 * i as u64, &text, x86).expect("an instruction")
            })
            .collect();
        out.insert(
            base(f),
            Function {
                name: name.to_string(),
                addr: base(f),
                insns,
            },
        );
    }
    Program {
        functions: out,
        symbols: vec![],
        got: BTreeMap::new(),
        image: vec![],
    }
}

/// The findings of analysing the first function with argument 0 a secret
/// pointer, argument 1 a public pointer, argument 2 a length.
fn findings(isa: &Isa, functions: &[(&str, &[&str])]) -> Vec<String> {
    let p = program(functions, std::ptr::eq(isa, &X86_64));
    let mut st = State::new(isa.nlocs);
    for (i, regs) in isa.args.iter().enumerate() {
        for l in *regs {
            st.regs[*l as usize] = match i {
                0 => Val {
                    secret: true,
                    origin: 1,
                    ..Val::CLEAN
                },
                1 | 2 => Val {
                    origin: 1 << i,
                    ..Val::CLEAN
                },
                _ => Val {
                    undef: true,
                    ..Val::CLEAN
                },
            };
        }
    }
    for l in isa.sp {
        st.regs[*l as usize] = Val {
            frame: Frame::At(0),
            ..Val::CLEAN
        };
    }
    let mut a = Analysis::new(&p, isa);
    a.reset(0b11);
    a.run_top(0x1000, st);
    a.findings
        .iter()
        .map(|f| format!("{}: {}", f.text, f.why))
        .collect()
}

fn x86(lines: &[&str]) -> Vec<String> {
    findings(&X86_64, &[("f", lines)])
}

fn arm(lines: &[&str]) -> Vec<String> {
    findings(&AARCH64, &[("f", lines)])
}

fn flagged(found: &[String], text: &str, why: &str) -> bool {
    found.iter().any(|f| f.starts_with(text) && f.contains(why))
}

#[test]
fn x86_branch_on_a_secret_is_flagged() {
    let f = x86(&[
        "mov eax,DWORD PTR [rdi]",
        "cmp eax,0x5",
        "je @4",
        "nop",
        "ret",
    ]);
    assert!(
        flagged(&f, "je", "conditional branch on secret flags"),
        "{f:?}"
    );
    assert_eq!(f.len(), 1, "{f:?}");
}

#[test]
fn x86_loop_counter_branch_is_not_flagged() {
    let f = x86(&[
        "xor ecx,ecx",
        "mov eax,DWORD PTR [rdi+rcx*4]",
        "add eax,0x1",
        "mov DWORD PTR [rdi+rcx*4],eax",
        "inc rcx",
        "cmp rcx,0x100",
        "jne @1",
        "ret",
    ]);
    assert!(f.is_empty(), "{f:?}");
}

#[test]
fn x86_secret_address_is_flagged() {
    let f = x86(&[
        "movzx eax,WORD PTR [rdi]",
        "mov ecx,DWORD PTR [rsi+rax*4]",
        "mov DWORD PTR [rdi+0x4],ecx",
        "ret",
    ]);
    assert!(
        flagged(&f, "mov ecx", "memory address depends on a secret"),
        "{f:?}"
    );
    // A public table entry at a public index is not.
    let f = x86(&[
        "mov eax,DWORD PTR [rsi+0x8]",
        "mov ecx,DWORD PTR [rsi+rax*4]",
        "ret",
    ]);
    assert!(f.is_empty(), "{f:?}");
}

#[test]
fn x86_cmov_setcc_division_and_kortest_are_flagged() {
    let f = x86(&[
        "mov eax,DWORD PTR [rdi]",
        "test eax,eax",
        "cmovs eax,ecx",
        "sete dl",
        "mov r8d,DWORD PTR [rsi]",
        "xor edx,edx",
        "div r8d",
        "ret",
    ]);
    assert!(flagged(&f, "cmovs", "cmov on secret flags"), "{f:?}");
    assert!(flagged(&f, "sete", "setcc on secret flags"), "{f:?}");
    assert!(flagged(&f, "div", "division"), "{f:?}");
    let f = x86(&[
        "vmovdqu64 zmm0,ZMMWORD PTR [rdi]",
        "vpmovw2m k1,zmm0",
        "kortestd k1,k1",
        "je @5",
        "vmovdqu64 ZMMWORD PTR [rdi],zmm0",
        "ret",
    ]);
    assert!(
        flagged(&f, "je", "conditional branch on secret flags"),
        "{f:?}"
    );
}

#[test]
fn x86_zeroing_idioms_clear_taint() {
    let f = x86(&[
        "mov eax,DWORD PTR [rdi]",
        "xor eax,eax",
        "cmp eax,0x1",
        "je @6",
        "vmovdqu64 zmm0,ZMMWORD PTR [rdi]",
        "vpxord zmm0,zmm0,zmm0",
        "vmovd eax,xmm0",
        "test eax,eax",
        "jne @10",
        "pxor xmm1,xmm1",
        "ret",
    ]);
    assert!(f.is_empty(), "{f:?}");
}

#[test]
fn x86_merges_and_partial_writes() {
    // A merge mask keeps the destination's old (secret) lanes.
    let f = x86(&[
        "vmovdqu64 zmm0,ZMMWORD PTR [rdi]",
        "vmovdqu64 zmm1,ZMMWORD PTR [rsi]",
        "vmovdqu16 zmm0{k1},zmm1",
        "vmovd eax,xmm0",
        "test eax,eax",
        "je @6",
        "ret",
    ]);
    assert!(flagged(&f, "je", "secret flags"), "{f:?}");
    // … a zeroing mask does not.
    let f = x86(&[
        "vmovdqu64 zmm0,ZMMWORD PTR [rdi]",
        "vmovdqu64 zmm1,ZMMWORD PTR [rsi]",
        "vmovdqu16 zmm0{k1}{z},zmm1",
        "vmovd eax,xmm0",
        "test eax,eax",
        "je @6",
        "ret",
    ]);
    assert!(f.is_empty(), "{f:?}");
    // Writing al keeps the rest of rax; reading al alone is public.
    let f = x86(&[
        "mov rax,QWORD PTR [rdi]",
        "mov al,0x1",
        "test al,al",
        "je @4",
        "test eax,eax",
        "je @6",
        "ret",
    ]);
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(flagged(&f, "je 1018", "secret flags"), "{f:?}");
    // FMA accumulates into its destination.
    let f = x86(&[
        "vmovdqu ymm0,YMMWORD PTR [rdi]",
        "vmovdqu ymm1,YMMWORD PTR [rsi]",
        "vfmadd231ps ymm0,ymm1,ymm1",
        "vmovd eax,xmm0",
        "cmp eax,0x3",
        "jb @6",
        "ret",
    ]);
    assert!(flagged(&f, "jb", "secret flags"), "{f:?}");
}

#[test]
fn x86_spills_keep_their_taint() {
    let f = x86(&[
        "sub rsp,0x18",
        "mov rax,QWORD PTR [rdi]",
        "mov QWORD PTR [rsp+0x8],rax",
        "mov QWORD PTR [rsp+0x10],rdx",
        "xor eax,eax",
        "mov rcx,QWORD PTR [rsp+0x10]",
        "cmp rcx,0x1",
        "je @8",
        "mov rcx,QWORD PTR [rsp+0x8]",
        "cmp rcx,0x1",
        "je @11",
        "add rsp,0x18",
        "ret",
    ]);
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(flagged(&f, "je 102c", "secret flags"), "{f:?}");
    // Pushed and popped too.
    let f = x86(&[
        "mov rbx,QWORD PTR [rdi]",
        "push rbx",
        "xor ebx,ebx",
        "pop rbx",
        "test rbx,rbx",
        "jne @6",
        "ret",
    ]);
    assert!(flagged(&f, "jne", "secret flags"), "{f:?}");
}

#[test]
fn x86_pointer_arithmetic_keeps_secrecy() {
    let f = x86(&[
        "lea rax,[rdi+0x40]",
        "add rax,0x10",
        "mov rcx,rax",
        "mov edx,DWORD PTR [rcx]",
        "cmp edx,0x0",
        "je @6",
        "ret",
    ]);
    assert!(flagged(&f, "je", "secret flags"), "{f:?}");
    let f = x86(&[
        "lea rax,[rsi+0x40]",
        "add rax,0x10",
        "mov ecx,DWORD PTR [rax]",
        "cmp ecx,0x0",
        "je @5",
        "ret",
    ]);
    assert!(f.is_empty(), "{f:?}");
}

#[test]
fn x86_calls_are_followed_and_shapes_checked() {
    let f = findings(
        &X86_64,
        &[
            ("nttfuse::f", &["add rdi,0x8", "call %1", "ret"]),
            (
                "nttfuse::g",
                &["mov eax,DWORD PTR [rdi]", "cmp eax,0x7", "ja @3", "ret"],
            ),
        ],
    );
    assert!(flagged(&f, "ja", "secret flags"), "{f:?}");
    // rcx carries no argument of this configuration.
    let f = x86(&["mov eax,ecx", "ret"]);
    assert!(flagged(&f, "mov eax,ecx", "wrong ABI shape"), "{f:?}");
}

#[test]
fn x86_operands_parse() {
    let raw = parse_line(0, "movzx  r9d,WORD PTR [rsp+rdx*2+0x8]", true).unwrap();
    let (micro, _) = super::x86::decode(&raw).unwrap();
    let super::ir::Micro::Load { addr, .. } = &micro[0] else {
        panic!("{micro:?}")
    };
    assert_eq!(addr.base, vec![16, 17, 18, 19]); // rsp
    assert_eq!(addr.index, vec![8, 9, 10, 11]); // rdx
    assert_eq!((addr.disp, addr.size), (8, Some(2)));
    let raw = parse_line(
        0,
        "vpaddd zmm0{k1}{z},zmm1,DWORD PTR [rip+0x10]{1to16}",
        true,
    )
    .unwrap();
    assert!(super::x86::decode(&raw).is_ok());
    let raw = parse_line(0, "{evex} vpslldq xmm3,XMMWORD PTR [rsp+0x40],0xa", true).unwrap();
    assert!(super::x86::decode(&raw).is_ok());
    let raw = parse_line(0, "frobnicate rax", true).unwrap();
    assert!(super::x86::decode(&raw).is_err());
}

#[test]
fn aarch64_branches_selects_and_addresses_are_flagged() {
    let f = arm(&["ldr w8, [x0]", "cmp w8, #0x5", "b.eq @4", "nop", "ret"]);
    assert!(
        flagged(&f, "b.eq", "conditional branch on secret flags"),
        "{f:?}"
    );
    let f = arm(&[
        "ldrh w8, [x0]",
        "ldr w9, [x1, x8, lsl #2]",
        "str w9, [x0]",
        "ret",
    ]);
    assert!(
        flagged(&f, "ldr w9", "memory address depends on a secret"),
        "{f:?}"
    );
    let f = arm(&["ldr w8, [x0]", "cmp w8, #0x0", "csel w8, w8, w9, lt", "ret"]);
    assert!(
        flagged(&f, "csel", "conditional select on secret flags"),
        "{f:?}"
    );
    let f = arm(&["ldr x8, [x0]", "cbz x8, @3", "tbnz w8, #3, @3", "ret"]);
    assert!(flagged(&f, "cbz", "cbz/tbz"), "{f:?}");
    assert!(flagged(&f, "tbnz", "cbz/tbz"), "{f:?}");
}

#[test]
fn aarch64_loop_counter_is_not_flagged() {
    let f = arm(&[
        "mov x9, xzr",
        "ldr w8, [x0, x9, lsl #2]",
        "add w8, w8, #0x1",
        "str w8, [x0, x9, lsl #2]",
        "add x9, x9, #0x1",
        "cmp x9, #0x100",
        "b.ne @1",
        "ret",
    ]);
    assert!(f.is_empty(), "{f:?}");
}

#[test]
fn aarch64_zeroing_merges_and_reductions() {
    let f = arm(&[
        "ldr q0, [x0]",
        "eor v0.16b, v0.16b, v0.16b",
        "umov w8, v0.h[0]",
        "cbz w8, @7",
        "ldr q1, [x0]",
        "movi v1.2d, #0x0",
        "fmov w9, s1",
        "cbz w9, @7",
        "ret",
    ]);
    assert!(f.is_empty(), "{f:?}");
    // mla accumulates into its destination; mul does not.
    let f = arm(&[
        "ldr q0, [x0]",
        "ldr q2, [x1]",
        "mla v0.8h, v2.8h, v2.8h",
        "umov w8, v0.h[0]",
        "cbz w8, @5",
        "ret",
    ]);
    assert!(flagged(&f, "cbz", "cbz/tbz"), "{f:?}");
    let f = arm(&[
        "ldr q0, [x0]",
        "ldr q2, [x1]",
        "mul v0.8h, v2.8h, v2.8h",
        "umov w8, v0.h[0]",
        "cbz w8, @5",
        "ret",
    ]);
    assert!(f.is_empty(), "{f:?}");
    // A horizontal reduction of secret lanes, then a branch on it.
    let f = arm(&[
        "ldr q0, [x0]",
        "sminv h1, v0.8h",
        "fmov w8, s1",
        "tbz w8, #15, @5",
        "str q0, [x0]",
        "ret",
    ]);
    assert!(flagged(&f, "tbz", "cbz/tbz"), "{f:?}");
}

#[test]
fn aarch64_spills_and_pointer_arithmetic() {
    let f = arm(&[
        "stp x29, x30, [sp, #-32]!",
        "ldr x8, [x0]",
        "str x8, [sp, #16]",
        "str x2, [sp, #24]",
        "mov x8, xzr",
        "ldr x10, [sp, #24]",
        "cbz x10, @7",
        "ldr x9, [sp, #16]",
        "cbz x9, @9",
        "ldp x29, x30, [sp], #32",
        "ret",
    ]);
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(flagged(&f, "cbz x9", "cbz/tbz"), "{f:?}");
    let f = arm(&[
        "add x8, x0, #0x10",
        "ldr w9, [x8], #4",
        "ldr w10, [x8]",
        "tbz w10, #3, @5",
        "nop",
        "ret",
    ]);
    assert!(flagged(&f, "tbz", "cbz/tbz"), "{f:?}");
    let f = arm(&[
        "add x8, x1, #0x10",
        "ldr w10, [x8, #8]!",
        "tbz w10, #3, @3",
        "ret",
    ]);
    assert!(f.is_empty(), "{f:?}");
}

#[test]
fn x86_zmm_registers_do_not_overlap() {
    // zmm13 public, zmm14 secret: an extract from zmm13 is public.
    let f = x86(&[
        "vmovdqu64 zmm14,ZMMWORD PTR [rdi]",
        "vmovdqu64 zmm13,ZMMWORD PTR [rsi]",
        "vextracti32x4 xmm15,zmm13,0x2",
        "vmovd eax,xmm15",
        "cmp eax,0x1",
        "je @6",
        "vmovdqu64 ZMMWORD PTR [rdi],zmm13",
        "ret",
    ]);
    assert!(f.is_empty(), "{f:?}");
}

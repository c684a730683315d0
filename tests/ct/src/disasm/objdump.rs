//! Running objdump on the release binary and reading what it prints: the
//! functions of `.text` with their instructions, the symbol table (every
//! name, including the aliases LLVM's function merging leaves), and the
//! dynamic relocations (which function a GOT slot holds, for x86-64's
//! `call [rip+x]`).

use std::collections::BTreeMap;
use std::process::Command;

/// One instruction as printed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawInsn {
    pub addr: u64,
    pub mnemonic: String,
    /// Operands, without objdump's trailing comment.
    pub operands: String,
    /// The comment (x86-64: `# 1402e8 <memset@GLIBC_2.2.5>`), if any.
    pub comment: String,
}

/// A function as objdump labels it.
#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    pub addr: u64,
    pub insns: Vec<RawInsn>,
}

/// A defined function symbol.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    pub name: String,
    pub addr: u64,
}

/// Everything read from the binary.
pub struct Program {
    /// By start address.
    pub functions: BTreeMap<u64, Function>,
    pub symbols: Vec<Symbol>,
    /// GOT slot address → what it holds: a code address or a symbol name.
    pub got: BTreeMap<u64, GotEntry>,
    /// The loaded segments (virtual address, bytes), for jump tables.
    pub image: Vec<(u64, Vec<u8>)>,
}

impl Program {
    /// The `i32` at virtual address `addr` of the file's image.
    pub fn read_i32(&self, addr: u64) -> Option<i32> {
        self.image.iter().find_map(|(base, bytes)| {
            let off = usize::try_from(addr.checked_sub(*base)?).ok()?;
            let b = bytes.get(off..off + 4)?;
            Some(i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        })
    }
}

/// The `PT_LOAD` segments of a 64-bit little-endian ELF file.
pub fn load_segments(bytes: &[u8]) -> Vec<(u64, Vec<u8>)> {
    let u16_at = |o: usize| {
        bytes
            .get(o..o + 2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
    };
    let u32_at = |o: usize| {
        bytes
            .get(o..o + 4)
            .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
    };
    let u64_at = |o: usize| {
        bytes
            .get(o..o + 8)
            .map(|b| u64::from_le_bytes(b.try_into().unwrap()))
    };
    let mut out = Vec::new();
    if !bytes.starts_with(b"\x7fELF\x02") {
        return out;
    }
    let (Some(phoff), Some(phentsize), Some(phnum)) = (u64_at(0x20), u16_at(0x36), u16_at(0x38))
    else {
        return out;
    };
    for i in 0..phnum as usize {
        let h = phoff as usize + i * phentsize as usize;
        if u32_at(h) != Some(1) {
            continue; // not PT_LOAD
        }
        let (Some(offset), Some(vaddr), Some(filesz)) =
            (u64_at(h + 8), u64_at(h + 16), u64_at(h + 32))
        else {
            continue;
        };
        if let Some(data) = bytes.get(offset as usize..(offset + filesz) as usize) {
            out.push((vaddr, data.to_vec()));
        }
    }
    out
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GotEntry {
    Address(u64),
    Named(String),
}

fn run(objdump: &str, args: &[&str], binary: &str) -> Result<String, String> {
    let out = Command::new(objdump)
        .args(args)
        .arg(binary)
        .output()
        .map_err(|e| format!("cannot run {objdump}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{objdump} {} {binary} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    String::from_utf8(out.stdout).map_err(|e| format!("{objdump} printed non-UTF-8: {e}"))
}

/// Disassembles `binary` (Intel syntax on x86-64) and reads its symbols
/// and dynamic relocations.
pub fn load(objdump: &str, binary: &str, x86: bool) -> Result<Program, String> {
    let mut args = vec!["-d", "--no-show-raw-insn", "-C"];
    if x86 {
        args.extend(["-M", "intel"]);
    }
    let text = run(objdump, &args, binary)?;
    let functions = parse_disassembly(&text, x86);
    if functions.is_empty() {
        return Err(format!("{objdump} printed no functions for {binary}"));
    }
    let symbols = parse_symbols(&run(objdump, &["-t", "-C"], binary)?);
    // A static executable has no dynamic relocations: objdump -R fails.
    let got = run(objdump, &["-R"], binary)
        .map(|t| parse_relocations(&t))
        .unwrap_or_default();
    let image = load_segments(&std::fs::read(binary).map_err(|e| format!("{binary}: {e}"))?);
    Ok(Program {
        functions,
        symbols,
        got,
        image,
    })
}

fn hex(s: &str) -> Option<u64> {
    u64::from_str_radix(s.trim_start_matches("0x"), 16).ok()
}

/// `-d` output: `0000000000066ea0 <name>:` starts a function, then lines
/// `   66ea0:\tpush   r15` (x86-64) or `  4a1234:\tadd\tx0, x1, x2`.
pub fn parse_disassembly(text: &str, x86: bool) -> BTreeMap<u64, Function> {
    let mut functions = BTreeMap::new();
    let mut current: Option<Function> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_suffix(">:") {
            if let Some((addr, name)) = rest.split_once(" <") {
                if let Some(addr) = hex(addr.trim()) {
                    if let Some(f) = current.take() {
                        functions.insert(f.addr, f);
                    }
                    current = Some(Function {
                        name: name.to_string(),
                        addr,
                        insns: Vec::new(),
                    });
                    continue;
                }
            }
        }
        let Some(f) = current.as_mut() else { continue };
        let Some((addr, body)) = line.split_once(":\t") else {
            continue;
        };
        let Some(addr) = hex(addr.trim()) else {
            continue;
        };
        if let Some(insn) = parse_line(addr, body, x86) {
            f.insns.push(insn);
        }
    }
    if let Some(f) = current.take() {
        functions.insert(f.addr, f);
    }
    functions
}

/// One instruction's text after the address.
pub fn parse_line(addr: u64, body: &str, x86: bool) -> Option<RawInsn> {
    let (code, comment) = if x86 {
        match body.split_once(" # ").or_else(|| body.split_once("\t# ")) {
            Some((c, k)) => (c, k.trim()),
            None => (body, ""),
        }
    } else {
        match body.split_once("//") {
            Some((c, k)) => (c, k.trim()),
            None => (body, ""),
        }
    };
    let code = code.trim();
    if code.is_empty() || code.starts_with("...") {
        return None;
    }
    let (mnemonic, operands) = match code.split_once(|c: char| c.is_whitespace()) {
        Some((m, o)) => (m, o.trim()),
        None => (code, ""),
    };
    Some(RawInsn {
        addr,
        mnemonic: mnemonic.to_string(),
        operands: operands.to_string(),
        comment: comment.to_string(),
    })
}

/// `-t` output: `00000000000b9160 l     F .text\t0000000000000c3e  name`.
pub fn parse_symbols(text: &str) -> Vec<Symbol> {
    let mut out = Vec::new();
    for line in text.lines() {
        let Some((left, right)) = line.split_once('\t') else {
            continue;
        };
        let left: Vec<&str> = left.split_whitespace().collect();
        if left.len() < 3 || !left.contains(&"F") || left.last().is_none_or(|s| *s != ".text") {
            continue;
        }
        let Some(addr) = hex(left[0]) else { continue };
        let right = right.trim();
        let Some((_size, name)) = right.split_once(char::is_whitespace) else {
            continue;
        };
        let mut name = name.trim();
        for vis in [".hidden ", ".protected ", ".internal "] {
            name = name.strip_prefix(vis).unwrap_or(name);
        }
        out.push(Symbol {
            name: name.trim().to_string(),
            addr,
        });
    }
    out
}

/// `-R` output: `00000000001401f0 R_X86_64_RELATIVE  *ABS*+0x134800` or
/// `00000000001402e8 R_X86_64_GLOB_DAT  memset@GLIBC_2.2.5`.
pub fn parse_relocations(text: &str) -> BTreeMap<u64, GotEntry> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.len() < 3 {
            continue;
        }
        let Some(slot) = hex(fields[0]) else { continue };
        let value = fields[2..].join(" ");
        let entry = if let Some(a) = value.strip_prefix("*ABS*+") {
            match hex(a) {
                Some(a) => GotEntry::Address(a),
                None => continue,
            }
        } else {
            GotEntry::Named(value)
        };
        out.insert(slot, entry);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_functions_symbols_and_relocations() {
        let text = "\nDisassembly of section .text:\n\n\
            0000000000066ea0 <<nttfuse::X as core::Y>::f>:\n\
            \x20  66ea0:\tpush   r15\n\
            \x20  66ec6:\tcall   QWORD PTR [rip+0xd941c]        # 1402e8 <memset@GLIBC_2.2.5>\n\
            \x20  66ecc:\tdata16 cs nop WORD PTR [rax+rax*1+0x0]\n\n\
            0000000000066f00 <g>:\n\
            \x20  66f00:\tret\n";
        let f = parse_disassembly(text, true);
        assert_eq!(f.len(), 2);
        let first = &f[&0x66ea0];
        assert_eq!(first.name, "<nttfuse::X as core::Y>::f");
        assert_eq!(first.insns.len(), 3);
        assert_eq!(first.insns[1].mnemonic, "call");
        assert_eq!(first.insns[1].operands, "QWORD PTR [rip+0xd941c]");
        assert_eq!(first.insns[1].comment, "1402e8 <memset@GLIBC_2.2.5>");
        let a = parse_line(0x10, "ldr\tq0, [x0, #16]  // x", false).unwrap();
        assert_eq!(
            (a.mnemonic.as_str(), a.operands.as_str()),
            ("ldr", "q0, [x0, #16]")
        );
        let syms = parse_symbols(
            "00000000000b9160 l     F .text\t0000000000000c3e              nttfuse::a::b\n\
             00000000000b9160 l     O .rodata\t0000000000000c3e              data\n\
             00000000000b9170 g     F .text\t0000000000000010 .hidden c\n",
        );
        assert_eq!(
            syms,
            vec![
                Symbol {
                    name: "nttfuse::a::b".into(),
                    addr: 0xb9160
                },
                Symbol {
                    name: "c".into(),
                    addr: 0xb9170
                }
            ]
        );
        let got = parse_relocations(
            "00000000001401f0 R_X86_64_RELATIVE  *ABS*+0x0000000000134800\n\
             00000000001402e8 R_X86_64_GLOB_DAT  memset@GLIBC_2.2.5\n",
        );
        assert_eq!(got[&0x1401f0], GotEntry::Address(0x134800));
        assert_eq!(got[&0x1402e8], GotEntry::Named("memset@GLIBC_2.2.5".into()));
    }
}

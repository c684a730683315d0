//! The abstract machine both decoders translate to: each instruction
//! becomes a few micro-operations on register slots ([`Loc`]), temporaries,
//! the flags and memory, plus its control flow; and the abstract values
//! ([`Val`]) and states ([`State`]) the taint analysis computes with.

use std::collections::BTreeMap;

/// A register slot (numbering per ISA: see `x86::loc` and `aarch64::loc`).
pub type Loc = u16;

/// The carry flag (x86 only: `inc`/`dec` leave it, `jb`/`cmovae` read it).
pub const CF: u8 = 1;
/// Every other flag (AArch64: all of NZCV).
pub const REST: u8 = 2;
/// Both.
pub const ALL: u8 = CF | REST;

/// A micro-operation's input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Src {
    Reg(Loc),
    Tmp(u8),
    Flags(u8),
}

/// A micro-operation's output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dst {
    Reg(Loc),
    Tmp(u8),
    /// The upper half of an x86-64 GPR a 32-bit write clears: public zero
    /// bits (a constant keeps its value, a pointer its provenance).
    ZeroExt(Loc),
}

/// A memory address: `base + index·scale + disp`, or a constant (PC-relative,
/// absolute, segment-relative) one.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Addr {
    /// The slots of the register holding the base pointer (empty: none).
    pub base: Vec<Loc>,
    /// The index register slots (one GPR, or a vector's for gathers).
    pub index: Vec<Loc>,
    pub disp: i64,
    /// A constant address (code, read-only data, statics): public memory.
    pub constant: bool,
    /// Bytes accessed, where the instruction says.
    pub size: Option<u64>,
    /// The absolute address of a constant (PC-relative) operand, where
    /// objdump printed it.
    pub abs: Option<u64>,
    /// Accessed by a vector instruction (SSE/AVX, NEON loads and stores of
    /// v registers).
    pub vector: bool,
}

impl Addr {
    /// Every register the address is computed from.
    pub fn regs(&self) -> impl Iterator<Item = Loc> + '_ {
        self.base.iter().copied().chain(self.index.iter().copied())
    }
}

/// One step of an instruction's semantics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Micro {
    /// A violation if any input is secret: `why` says what would leak
    /// (a conditional branch's register, a divisor, an indirect target).
    Check(Vec<Src>, &'static str),
    /// A load into a temporary (the address is checked).
    Load { addr: Addr, tmp: u8 },
    /// A store of the join of `srcs` (the address is checked).
    Store { addr: Addr, srcs: Vec<Src> },
    /// An address used without a data access (prefetch): checked.
    Touch(Addr),
    /// `dst := ⊔ srcs`, or `dst := dst ⊔ srcs` if `merge` (partial writes,
    /// instructions whose destination is also an input).
    Assign {
        dst: Vec<Dst>,
        srcs: Vec<Src>,
        merge: bool,
    },
    /// `dst := src`, exactly (moves keep pointer offsets and constants).
    Copy { dst: Dst, src: Src },
    /// `dst := src + imm` (pointer arithmetic keeps the frame offset).
    AddImm { dst: Loc, src: Loc, imm: i64 },
    /// `dst := address` (`lea`, `adr`).
    Lea { dst: Loc, addr: Addr },
    /// `dst := a public constant` (known value or not): zeroing idioms,
    /// immediates, `adrp`.
    Const { dst: Loc, value: Option<i64> },
    /// The flags in `mask` are computed from `srcs` (`merge`: they may also
    /// keep their old value, as a shift by `cl` does when `cl` is 0).
    SetFlags {
        mask: u8,
        srcs: Vec<Src>,
        merge: bool,
    },
}

/// Where an instruction goes next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Flow {
    Next,
    /// Unconditional direct jump (a tail call if outside the function).
    Jump(u64),
    /// Conditional direct branch (the condition is a `Check` micro-op).
    Branch(u64),
    /// Jump through a register or memory (the target is checked).
    IndirectJump,
    /// Direct call; `got` is set when the target is read from a GOT slot.
    Call(u64),
    /// A call through a GOT slot at this address (x86-64 `call [rip+x]`).
    CallGot(u64),
    /// Call through a register (its slots; the target is checked). A
    /// register loaded from a GOT slot calls what the slot holds.
    IndirectCall(Vec<Loc>),
    Return,
    /// Trap (`ud2`, `int3`, `brk`): no successor.
    Halt,
}

/// A decoded instruction.
#[derive(Clone, Debug)]
pub struct Insn {
    pub addr: u64,
    /// As objdump printed it (mnemonic and operands).
    pub text: String,
    pub micro: Vec<Micro>,
    pub flow: Flow,
}

/// A jump table resolved from the binary.
#[derive(Clone, Debug)]
pub struct JumpTable {
    /// A slot of the register holding the table's address at the jump.
    pub base_reg: Loc,
    pub base: u64,
    pub targets: Vec<u64>,
}

/// Where a pointer may point in the current function's stack frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Frame {
    /// Not a pointer into this frame.
    #[default]
    No,
    /// The frame at this offset from the stack pointer at function entry.
    At(i64),
    /// Somewhere in the frame.
    Any,
}

impl Frame {
    pub fn join(self, other: Frame) -> Frame {
        match (self, other) {
            (Frame::No, x) | (x, Frame::No) => x,
            (Frame::At(a), Frame::At(b)) if a == b => Frame::At(a),
            _ => Frame::Any,
        }
    }
    /// The same pointer with its offset forgotten.
    pub fn blur(self) -> Frame {
        match self {
            Frame::No => Frame::No,
            _ => Frame::Any,
        }
    }
}

/// What a register, temporary or stack slot may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Val {
    /// May be derived from secret data.
    pub taint: bool,
    /// May point into secret memory.
    pub secret: bool,
    /// May point into this function's stack frame.
    pub frame: Frame,
    /// May point into a caller's stack frame.
    pub outer: bool,
    /// Bit i: derived from argument register i (for the shape checks).
    pub origin: u16,
    /// A known constant.
    pub konst: Option<i64>,
    /// Holds an argument register the configuration says is unused: any
    /// read is a shape error.
    pub undef: bool,
}

impl Val {
    pub const CLEAN: Val = Val {
        taint: false,
        secret: false,
        frame: Frame::No,
        outer: false,
        origin: 0,
        konst: None,
        undef: false,
    };
    pub const SECRET: Val = Val {
        taint: true,
        ..Val::CLEAN
    };

    pub fn join(self, o: Val) -> Val {
        Val {
            taint: self.taint | o.taint,
            secret: self.secret | o.secret,
            frame: self.frame.join(o.frame),
            outer: self.outer | o.outer,
            origin: self.origin | o.origin,
            konst: if self.konst == o.konst {
                self.konst
            } else {
                None
            },
            undef: self.undef | o.undef,
        }
    }

    /// The join of values combined by arithmetic: pointers keep their
    /// kind (a masked secret pointer still points into secret memory) but
    /// lose their offsets and constants.
    pub fn mix(vals: impl IntoIterator<Item = Val>) -> Val {
        let mut out = Val::CLEAN;
        let mut any = false;
        for v in vals {
            out = if any { out.join(v) } else { v };
            any = true;
        }
        if any {
            out.konst = None;
            out.frame = out.frame.blur();
        }
        out
    }

    /// Whether it may be a pointer to some memory the analysis tracks.
    pub fn is_pointer(&self) -> bool {
        self.secret || self.outer || self.frame != Frame::No
    }
}

/// A stack slot: `size` bytes at its offset, holding `val`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Slot {
    pub size: u64,
    pub val: Val,
    /// Last written whole by a general-purpose (not vector) store at this
    /// fixed offset: the shape of a register spill or a scalar local.
    pub spill: bool,
}

/// The abstract state at a program point.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    pub regs: Vec<Val>,
    /// Taint of the carry flag and of the other flags.
    pub flags: [bool; 2],
    /// Stack slots of this function's frame stored to so far, by offset
    /// from the entry stack pointer.
    pub frame: BTreeMap<i64, Slot>,
    /// Join of what was stored at unknown places in the frame: every frame
    /// load includes it.
    pub smear: Val,
}

impl State {
    pub fn new(nregs: usize) -> State {
        State {
            regs: vec![Val::CLEAN; nregs],
            flags: [false; 2],
            frame: BTreeMap::new(),
            smear: Val::CLEAN,
        }
    }

    pub fn flag_taint(&self, mask: u8) -> bool {
        (mask & CF != 0 && self.flags[0]) || (mask & REST != 0 && self.flags[1])
    }

    /// Joins `other` into `self`; returns whether `self` changed.
    pub fn join_from(&mut self, other: &State) -> bool {
        let before = self.clone();
        for (a, b) in self.regs.iter_mut().zip(&other.regs) {
            *a = a.join(*b);
        }
        self.flags[0] |= other.flags[0];
        self.flags[1] |= other.flags[1];
        for (off, slot) in &other.frame {
            match self.frame.get_mut(off) {
                Some(mine) => {
                    mine.spill &= slot.spill && mine.size == slot.size;
                    mine.size = mine.size.max(slot.size);
                    mine.val = mine.val.join(slot.val);
                }
                None => {
                    self.frame.insert(*off, *slot);
                }
            }
        }
        self.smear = self.smear.join(other.smear);
        *self != before
    }

    /// Stores `val` at `off` (`size` bytes): slots wholly inside are
    /// replaced, slots partly overlapped keep their (joined) value.
    pub fn store_slot(&mut self, off: i64, size: u64, val: Val, spill: bool) {
        let end = off + size as i64;
        let covered: Vec<i64> = self
            .frame
            .range(..end)
            .filter(|(o, s)| **o >= off && **o + s.size as i64 <= end)
            .map(|(o, _)| *o)
            .collect();
        for o in covered {
            self.frame.remove(&o);
        }
        let partial: Vec<i64> = self
            .frame
            .range(..end)
            .filter(|(o, s)| **o + s.size as i64 > off)
            .map(|(o, _)| *o)
            .collect();
        for o in partial {
            let slot = self.frame.get_mut(&o).expect("present");
            slot.val = slot.val.join(val);
            slot.spill = false;
        }
        self.frame.insert(off, Slot { size, val, spill });
    }

    /// The value loaded from `off` (`size` bytes): the slot stored exactly
    /// there, or the join of every overlapping one; `outside` for bytes no
    /// store of this function wrote at or above the entry stack pointer
    /// (the caller's frame: stack arguments). Stores at unknown places in
    /// the frame (through a run-time index: stack arrays) are joined in,
    /// except into the reload of a spill (`reload`: a general-purpose load
    /// of bytes inside one slot a general-purpose store wrote) and into the
    /// reload of pointers (a slot holding pointers, e.g. a vector of them
    /// for a gather: safe Rust cannot overwrite a pointer through an array
    /// index).
    pub fn load_slot(&self, off: i64, size: u64, outside: Val, reload: bool) -> Val {
        let end = off + size as i64;
        // A reload: the bytes lie inside one slot a general-purpose store
        // wrote (a word stored, a byte of it read back).
        let covering = self
            .frame
            .range(..=off)
            .next_back()
            .filter(|(o, s)| **o + s.size as i64 >= end);
        let mut smeared = !covering.is_some_and(|(_, s)| (reload && s.spill) || s.val.is_pointer());
        let mut val = match self.frame.get(&off) {
            Some(s) if s.size == size => s.val,
            _ => {
                let overlapping: Vec<Val> = self
                    .frame
                    .range(..end)
                    .filter(|(o, s)| **o + s.size as i64 > off)
                    .map(|(_, s)| s.val)
                    .collect();
                if overlapping.is_empty() {
                    smeared = true;
                    if end > 0 {
                        outside
                    } else {
                        Val::CLEAN
                    }
                } else {
                    let mut v = Val::mix(overlapping);
                    if end > 0 {
                        v = v.join(outside);
                    }
                    v
                }
            }
        };
        if smeared && self.smear != Val::CLEAN {
            val = val.join(self.smear);
        }
        val
    }

    /// The join of everything in the frame (a load at an unknown offset).
    pub fn whole_frame(&self, outside: Val) -> Val {
        Val::mix(
            self.frame
                .values()
                .map(|s| s.val)
                .chain([self.smear, outside]),
        )
    }
}

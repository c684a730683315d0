//! Marking memory as secret (undefined) and public (defined) again, for
//! valgrind memcheck or MemorySanitizer, whichever this binary is built for.

use core::mem::size_of_val;

/// The tool that checks this build.
pub fn tool() -> &'static str {
    if cfg!(ct_msan) {
        "MemorySanitizer"
    } else {
        "valgrind memcheck"
    }
}

/// Marks `data` as secret: any branch or address that depends on it is
/// reported by the checking tool.
pub fn classify<T>(data: &mut [T]) {
    let (ptr, len) = (data.as_mut_ptr().cast::<u8>(), size_of_val(data));
    #[cfg(ct_msan)]
    // SAFETY: `ptr..ptr + len` is the live, exclusively borrowed `data`.
    unsafe {
        msan::__msan_poison(ptr.cast(), len)
    };
    #[cfg(not(ct_msan))]
    valgrind::request(valgrind::MAKE_MEM_UNDEFINED, ptr as usize, len, 0);
}

/// Marks `data` as public again (declassification, after the operation).
pub fn declassify<T>(data: &mut [T]) {
    let (ptr, len) = (data.as_mut_ptr().cast::<u8>(), size_of_val(data));
    #[cfg(ct_msan)]
    // SAFETY: `ptr..ptr + len` is the live, exclusively borrowed `data`.
    unsafe {
        msan::__msan_unpoison(ptr.cast(), len)
    };
    #[cfg(not(ct_msan))]
    valgrind::request(valgrind::MAKE_MEM_DEFINED, ptr as usize, len, 0);
}

/// Whether the checking tool is present (the binary runs under valgrind, or
/// was built with MemorySanitizer). Without it nothing is checked.
pub fn active() -> bool {
    #[cfg(ct_msan)]
    return true;
    #[cfg(not(ct_msan))]
    return valgrind::request(valgrind::RUNNING_ON_VALGRIND, 0, 0, 0) != 0;
}

/// Whether every element of `data` still holds secret (undefined) bits:
/// proof that the marking flowed through the operation instead of being
/// lost (a kernel whose shadow propagation dropped the taint would make the
/// check vacuous).
pub fn all_secret<T>(data: &[T]) -> bool {
    let size = core::mem::size_of::<T>();
    #[cfg(ct_msan)]
    return data.iter().all(|x| {
        // SAFETY: `x` is a live element of `data`, `size` bytes long.
        unsafe { msan::__msan_test_shadow((x as *const T).cast(), size) >= 0 }
    });
    #[cfg(not(ct_msan))]
    {
        let mut vbits = vec![0u8; size_of_val(data)];
        let ok = valgrind::request(
            valgrind::GET_VBITS,
            data.as_ptr() as usize,
            vbits.as_mut_ptr() as usize,
            vbits.len(),
        );
        ok == 1 && vbits.chunks(size).all(|v| v.iter().any(|&b| b != 0))
    }
}

#[cfg(ct_msan)]
mod msan {
    use core::ffi::c_void;
    extern "C" {
        /// MemorySanitizer runtime: marks the bytes uninitialised.
        pub fn __msan_poison(addr: *const c_void, size: usize);
        /// MemorySanitizer runtime: marks the bytes initialised.
        pub fn __msan_unpoison(addr: *const c_void, size: usize);
        /// MemorySanitizer runtime: offset of the first uninitialised byte,
        /// or -1.
        pub fn __msan_test_shadow(addr: *const c_void, size: usize) -> isize;
    }
}

#[cfg(not(ct_msan))]
mod valgrind {
    /// `VG_USERREQ_TOOL_BASE('M', 'C')`: memcheck's client requests.
    const MEMCHECK_BASE: usize = ((b'M' as usize) << 24) | ((b'C' as usize) << 16);
    /// `VALGRIND_MAKE_MEM_UNDEFINED`.
    pub const MAKE_MEM_UNDEFINED: usize = MEMCHECK_BASE + 1;
    /// `VALGRIND_MAKE_MEM_DEFINED`.
    pub const MAKE_MEM_DEFINED: usize = MEMCHECK_BASE + 2;
    /// `VALGRIND_GET_VBITS`: copies the validity bits (1 = undefined).
    pub const GET_VBITS: usize = MEMCHECK_BASE + 8;
    /// `RUNNING_ON_VALGRIND`.
    pub const RUNNING_ON_VALGRIND: usize = 0x1001;

    /// Issues a valgrind client request with three arguments and returns its
    /// result (0 outside valgrind). Outside valgrind the magic sequence is a
    /// no-op: four rotations of `rdi` by a total of 128 bits, and
    /// `xchg rbx, rbx`.
    #[cfg(target_arch = "x86_64")]
    pub fn request(request: usize, a1: usize, a2: usize, a3: usize) -> usize {
        let args: [usize; 6] = [request, a1, a2, a3, 0, 0];
        let result: usize;
        // SAFETY: the sequence only rotates `rdi` (declared clobbered) back
        // to its value and exchanges `rbx` with itself; valgrind, when
        // present, reads the six words at `rax`, acts on the memory they
        // name (buffers the caller owns) and writes the result to `rdx`.
        unsafe {
            core::arch::asm!(
                "rol rdi, 3",
                "rol rdi, 13",
                "rol rdi, 61",
                "rol rdi, 51",
                "xchg rbx, rbx",
                in("rax") args.as_ptr(),
                inout("rdx") 0usize => result,
                inout("rdi") 0usize => _,
                options(nostack),
            );
        }
        result
    }

    /// No client requests off x86-64 (`active()` is then false).
    #[cfg(not(target_arch = "x86_64"))]
    pub fn request(_request: usize, _a1: usize, _a2: usize, _a3: usize) -> usize {
        0
    }
}

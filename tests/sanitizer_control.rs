//! Negative control for the memory checkers: a read one element past the
//! end of a heap buffer, the bug a SIMD tail or scratch overrun would be.
//! Ignored in normal runs; `.ci/run` runs it under AddressSanitizer and
//! under Miri and requires each to report it (so both checks are shown able
//! to fail).

#[test]
#[ignore = "deliberate out-of-bounds read: run only under ASan or Miri, which must report it"]
fn reads_one_past_the_end() {
    // On the heap on purpose: ASan reports a heap-buffer-overflow.
    let data: Vec<u64> = std::iter::repeat_n(1, 7).collect();
    let ptr = std::hint::black_box(data.as_ptr());
    // SAFETY: none — this is the deliberate bug the checkers must catch.
    let past_end = unsafe { ptr.add(data.len()).read() };
    std::hint::black_box(past_end);
}

#!/usr/bin/env bash
# Constant-time checks of the lattice path, each with its negative controls.
#   valgrind memcheck: scalar kernels (valgrind cannot decode AVX-512)
#   MemorySanitizer (nightly, -Zbuild-std): AVX-512 and scalar kernels
#   dudect-style timing: AVX-512 and scalar kernels, |t| threshold 10,
#     an operation failing only when 3 independent runs all exceed it
# Usage: tests/ct/run.sh [valgrind|msan|timing]...   (default: all three)
set -euo pipefail
cd "$(dirname "$0")"
target="$(cd ../.. && pwd)/target"
checks=("$@")
[ ${#checks[@]} -eq 0 ] && checks=(valgrind msan timing)

have_avx512() { grep -qw avx512bw /proc/cpuinfo 2>/dev/null; }

# Runs a negative control: it must fail, and its output must show why.
control() {
  local expect="$1"; shift
  local out
  if out="$("$@" 2>&1)"; then
    echo "FAIL: negative control passed, so the check cannot fail: $*"; echo "$out" | tail -5; exit 1
  elif grep -q -- "$expect" <<<"$out"; then
    echo "ok: negative control flagged ($expect): ${*: -3}"
  else
    echo "FAIL: negative control failed for another reason: $*"; echo "$out" | tail -20; exit 1
  fi
}

for check in "${checks[@]}"; do
  case "$check" in
  valgrind)
    echo "--- valgrind memcheck (scalar kernels)"
    CARGO_TARGET_DIR="$target/ct" cargo build --release --quiet
    bin="$target/ct/release/nttfuse-ct"
    vg=(valgrind -q --error-exitcode=1)
    "${vg[@]}" "$bin" secrets scalar
    control "depends on uninitialised value" "${vg[@]}" "$bin" secrets scalar --control branch
    control "Use of uninitialised value" "${vg[@]}" "$bin" secrets scalar --control index
    ;;
  msan)
    echo "--- MemorySanitizer (AVX-512 and scalar kernels)"
    RUSTFLAGS="-Zsanitizer=memory -Cllvm-args=-msan-eager-checks=0 --cfg ct_msan" \
      CARGO_TARGET_DIR="$target/ct-msan" \
      cargo +nightly build -Zbuild-std --target x86_64-unknown-linux-gnu --release --quiet
    bin="$target/ct-msan/x86_64-unknown-linux-gnu/release/nttfuse-ct"
    backends=(scalar)
    if have_avx512; then backends+=(avx512); else echo "(no AVX-512 on this CPU: its kernels are not checked here)"; fi
    for b in "${backends[@]}"; do "$bin" secrets "$b"; done
    control "use-of-uninitialized-value" "$bin" secrets "${backends[-1]}" --control branch
    control "use-of-uninitialized-value" "$bin" secrets "${backends[-1]}" --control index
    ;;
  timing)
    echo "--- dudect-style timing (fixed vs random inputs, Welch's t, |t| <= 10 in at least one of 3 runs)"
    CARGO_TARGET_DIR="$target/ct" cargo build --release --quiet
    bin="$target/ct/release/nttfuse-ct"
    if have_avx512; then "$bin" timing avx512 --measurements 1000000; fi
    "$bin" timing scalar --measurements 300000
    control "LEAKS" "$bin" timing scalar --control branch --measurements 200000
    ;;
  *) echo "unknown check $check"; exit 2 ;;
  esac
done

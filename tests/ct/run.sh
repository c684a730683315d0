#!/usr/bin/env bash
# Constant-time checks of the lattice path, each with its negative controls.
#   valgrind memcheck: scalar kernels (valgrind cannot decode AVX-512)
#   MemorySanitizer (nightly, -Zbuild-std): AVX-512 and scalar kernels
#   dudect-style timing: AVX-512 and scalar kernels, |t| threshold 10,
#     an operation failing only when 3 independent runs all exceed it
#   disasm: a static taint analysis of every lattice kernel's machine code
#     in three release builds (x86-64, x86-64 with -C target-cpu=native,
#     AArch64), with three planted leaks (--cfg nttfuse_ct_leak) it must flag
# Usage: tests/ct/run.sh [valgrind|msan|timing|disasm]...
#   (default: valgrind msan timing; disasm cross-compiles, see its case)
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
    grep -E '^(graded control|power)' <<<"$out" || true
  else
    echo "FAIL: negative control failed for another reason: $*"; echo "$out" | tail -20; exit 1
  fi
}

# Runs the binary-level check on a build with a planted leak: it must fail
# and report a violation in the named kernel, which passed in the clean
# build (its output given last).
disasm_control() {
  local what="$1" bin="$2" fn="$3" clean="$4" out hit
  if out="$("$checker" disasm "$bin" 2>&1)"; then
    echo "FAIL: negative control passed, so the check cannot fail: $what"; exit 1
  fi
  if grep -q "^  FAIL .* $fn[: []" <<<"$clean" || ! grep -q "^  ok .* $fn[: []" <<<"$clean"; then
    echo "FAIL: $fn is not clean in the clean build, so its control proves nothing"; exit 1
  fi
  hit="$(awk -v fn=" $fn" '/^  (ok|FAIL|MISSING)/ { on = /^  FAIL/ && index($0, fn ":") + index($0, fn " [") > 0; next }
    on && /^          0x/ { print; exit }' <<<"$out")"
  if [ -z "$hit" ]; then
    echo "FAIL: negative control failed for another reason: $what"; grep -v '^  ok' <<<"$out" | tail -20; exit 1
  fi
  echo "ok: negative control flagged ($what):$(sed 's/^ *//; s/^/ /' <<<"$hit")"
}

for check in "${checks[@]}"; do
  case "$check" in
  valgrind)
    echo "--- valgrind memcheck (scalar kernels)"
    CARGO_TARGET_DIR="$target/ct" cargo build --release --quiet
    bin="$target/ct/release/nttfuse-ct"
    vg=(valgrind -q --error-exitcode=1)
    "${vg[@]}" "$bin" secrets scalar
    if grep -qw avx2 /proc/cpuinfo; then "${vg[@]}" "$bin" secrets avx2; fi
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
    # The test's power: secret-dependent delays of growing size after the
    # NTT, at the measurement counts above; prints the smallest one flagged.
    if have_avx512; then control "LEAKS" "$bin" timing avx512 --control graded --measurements 1000000; fi
    control "LEAKS" "$bin" timing scalar --control graded --measurements 300000
    ;;
  disasm)
    # Needs objdump, and for AArch64 the rustup target, gcc-aarch64-linux-gnu
    # (the linker, .cargo/config.toml) and binutils-aarch64-linux-gnu.
    echo "--- binary-level check: taint analysis of the lattice kernels' machine code (objdump)"
    started=$SECONDS
    CARGO_TARGET_DIR="$target/ct" cargo build --release --quiet
    checker="$target/ct/release/nttfuse-ct"
    RUSTFLAGS="-C target-cpu=native" CARGO_TARGET_DIR="$target/ct-native" cargo build --release --quiet
    CARGO_TARGET_DIR="$target/ct-aarch64" cargo build --release --quiet --target aarch64-unknown-linux-gnu
    clean=("$checker" "$target/ct-native/release/nttfuse-ct"
      "$target/ct-aarch64/aarch64-unknown-linux-gnu/release/nttfuse-ct")
    outputs=() dirty=0 flags=("" --native "")
    for i in 0 1 2; do
      # (|| true: a failure is reported after the controls have run.)
      out="$("$checker" disasm "${clean[$i]}" ${flags[$i]} 2>&1)" || true
      outputs+=("$out")
      if grep -q '^disasm: no secret-dependent' <<<"$out"; then
        echo "$out" | tail -2
      else
        echo "$out" | grep -v '^  ok'; echo "FAIL: violations in a clean build: ${clean[$i]}"; dirty=1
      fi
    done
    # The negative controls: the same kernels with a planted leak.
    RUSTFLAGS="--cfg nttfuse_ct_leak" CARGO_TARGET_DIR="$target/ct-leak" cargo build --release --quiet
    RUSTFLAGS="--cfg nttfuse_ct_leak" CARGO_TARGET_DIR="$target/ct-aarch64-leak" \
      cargo build --release --quiet --target aarch64-unknown-linux-gnu
    disasm_control "AVX-512 kortest/jcc in KemZmm::positive" "$target/ct-leak/release/nttfuse-ct" \
      "nttfuse::backend::avx512::ring::mlkem_inverse" "${outputs[0]}"
    disasm_control "scalar branch on a secret comparison (an atomic count of small outputs)" "$target/ct-leak/release/nttfuse-ct" \
      "nttfuse::backend::ring::portable::mlkem_forward" "${outputs[0]}"
    disasm_control "NEON sminv + branch in KemQ::positive" \
      "$target/ct-aarch64-leak/aarch64-unknown-linux-gnu/release/nttfuse-ct" \
      "nttfuse::backend::neon::ring::mlkem_inverse" "${outputs[2]}"
    echo "(disasm: $((SECONDS - started)) s)"
    [ "$dirty" = 0 ] || exit 1
    ;;
  *) echo "unknown check $check"; exit 2 ;;
  esac
done

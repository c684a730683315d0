#!/usr/bin/env bash
# Line coverage of src/backend/ by each fuzz target: every file of a corpus
# is replayed through a coverage-instrumented build of its target
# (`cargo fuzz coverage`), and llvm-cov reports, per file under src/backend/,
# the share of lines each target reaches, with the union of all four; then
# which row-moving kernels (one per ISA × field × radix × butterfly) each
# reached, and which none did.
#
#   fuzz/coverage.sh                 # the committed replay corpus (tests/data/fuzz-corpus)
#   fuzz/coverage.sh fuzz/corpus     # the working corpus CI grows
#
# Needs the nightly toolchain, cargo-fuzz and llvm-tools
# (`rustup +nightly component add llvm-tools-preview`). Builds with v0
# symbol mangling, so kernels are named with their type parameters.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "${1:-$here/../tests/data/fuzz-corpus}" && pwd)"
targets=(plan execute lde lattice)

sysroot="$(rustc +nightly --print sysroot)"
host="$(rustc +nightly -vV | sed -n 's/^host: //p')"
tools="$sysroot/lib/rustlib/$host/bin"
[[ -x "$tools/llvm-cov" ]] || {
  echo "llvm-cov missing: rustup +nightly component add llvm-tools-preview" >&2
  exit 1
}

cd "$here"
export CARGO_INCREMENTAL=0
export RUSTFLAGS="${RUSTFLAGS:-} -C symbol-mangling-version=v0"
out="$here/coverage"
mkdir -p "$out"
objects=()
for t in "${targets[@]}"; do
  start=$SECONDS
  cargo +nightly fuzz coverage "$t" "$root/$t" >"$out/$t.log" 2>&1 || {
    tail -30 "$out/$t.log" >&2
    exit 1
  }
  bin="$here/target/$host/coverage/$host/release/$t"
  objects+=("$bin")
  "$tools/llvm-cov" export -summary-only -instr-profile="$out/$t/coverage.profdata" "$bin" \
    >"$out/$t.summary.json"
  "$tools/llvm-cov" export -skip-expansions -instr-profile="$out/$t/coverage.profdata" "$bin" |
    jq -r '.data[].functions[] | select(.count > 0) | .name' >"$out/$t.functions"
  echo "$t: $(find "$root/$t" -type f | wc -l) inputs replayed in $((SECONDS - start)) s" >&2
done
# The union: every target's profile over every target's binary.
profiles=()
for t in "${targets[@]}"; do profiles+=("$out/$t/coverage.profdata"); done
"$tools/llvm-profdata" merge -o "$out/all.profdata" "${profiles[@]}"
obj_args=("${objects[0]}")
for o in "${objects[@]:1}"; do obj_args+=(-object "$o"); done
"$tools/llvm-cov" export -summary-only -instr-profile="$out/all.profdata" "${obj_args[@]}" >"$out/all.summary.json"
# Every row-moving kernel instantiated in the binaries (reached or not).
"$tools/llvm-cov" export -skip-expansions -instr-profile="$out/all.profdata" "${obj_args[@]}" |
  jq -r '.data[].functions[] | .name' >"$out/all.instantiated"

python3 "$here/coverage_report.py" "$out" "$root" "${targets[@]}"

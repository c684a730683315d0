#!/usr/bin/env python3
"""The tables `coverage.sh` prints, from the llvm-cov exports it leaves in
fuzz/coverage/: line coverage of each file under src/backend/ per target
and for all targets together, then the row-moving kernels each target
reached.

    fuzz/coverage_report.py <coverage dir> <corpus root> <target>...
"""
import json, re, subprocess, sys
out, corpus, targets = sys.argv[1], sys.argv[2], sys.argv[3:]
cols = targets + ["all"]

def lines(name):
    data = json.load(open(f"{out}/{name}.summary.json"))
    per_file = {}
    for f in data["data"][0]["files"]:
        path = f["filename"]
        if "/src/backend/" not in path or "/fuzz/" in path:
            continue
        rel = path[path.index("/src/backend/") + 1:]
        l = f["summary"]["lines"]
        per_file[rel] = (l["covered"], l["count"])
    return per_file

table = {c: lines(c) for c in cols}
files = sorted(set().union(*table.values()))
w = max(len(f) for f in files + ["src/backend/ (total)"])
print(f"\nline coverage of src/backend/ (covered lines / lines), corpus: {corpus}")
print(f"{'file':<{w}}  " + "  ".join(f"{c:>14}" for c in cols))
totals = {c: [0, 0] for c in cols}
for f in files:
    cells = []
    for c in cols:
        cov, n = table[c].get(f, (0, table["all"].get(f, (0, 0))[1]))
        totals[c][0] += cov
        totals[c][1] += n
        cells.append(f"{cov:>5}/{n:<5} {100 * cov / n if n else 0:3.0f}%")
    print(f"{f:<{w}}  " + "  ".join(f"{x:>14}" for x in cells))
print(f"{'src/backend/ (total)':<{w}}  " + "  ".join(
    f"{totals[c][0]:>5}/{totals[c][1]:<5} {100 * totals[c][0] / max(totals[c][1], 1):3.0f}%" for c in cols))

def demangle(names):
    r = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True)
    return r.stdout.splitlines()

# The packed kernels: packed::{run_body, run_moving_body,
# run_transposed_body}::<P, R, KIND>, one per ISA's packed type × radix ×
# butterfly (plain groups, groups moving rows of gathered passes, transposed
# tails). The reachable ones pair a field's packed type with its butterflies
# (CT/GS for prime fields, ADD/ADD_INV for GF(2^64)).
KIND = {"0": "CT", "1": "GS", "2": "ADD", "3": "ADD_INV"}
BODIES = {"run_body": "plain groups", "run_moving_body": "row-moving groups (gathered passes)",
          "run_transposed_body": "transposed tails"}
pat = re.compile(r"(run_body|run_moving_body|run_transposed_body)::<nttfuse::backend::(\w+)::(?:packed::)?(\w+)(<[\w:]+>)?, (\d+): usize, (\d+): u8>")


def kernels(names):
    found = set()
    for n in demangle(sorted(set(names))):
        n = re.sub(r"\[[0-9a-f]+\]", "", n)
        m = pat.search(n)
        if not m:
            continue
        body, isa, packed, params, radix, kind = m.groups()
        if params:
            packed += "<" + params.split("::")[-1]
        binary = "Gf2_64" in packed
        if KIND[kind].startswith("ADD") != binary:
            continue  # instantiated, but no transform pairs them
        # A transposed tail runs log2(register lanes / lanes) layers: at
        # most the register's lanes (one column), so larger radices of it
        # are instantiated but never planned.
        lanes = {"avx512": 16, "avx2": 8, "neon": 4}.get(isa, 0) >> (0 if "Monty31" in packed else 1)
        if body == "run_transposed_body" and int(radix) > lanes:
            continue
        found.add((body, isa, packed, int(radix), KIND[kind]))
    return found


reachable = kernels(open(f"{out}/all.instantiated").read().split())
reached = {t: kernels(open(f"{out}/{t}.functions").read().split()) for t in targets}
union = set().union(*reached.values())
for body, what in BODIES.items():
    of_body = {k for k in reachable if k[0] == body}
    print(f"\n{what} ({body}::<P, R, KIND>) reached, of {len(of_body)} reachable:")
    for isa in sorted({k[1] for k in of_body}):
        of = {k for k in of_body if k[1] == isa}
        cells = [f"{t} {len(reached[t] & of)}/{len(of)}" for t in targets]
        print(f"  {isa:<7} " + ", ".join(cells) + f", all {len(union & of)}/{len(of)}")
    missing = sorted(of_body - union)
    print("  unreached: " + (", ".join(f"{i} {p} radix-{r} {k}" for _, i, p, r, k in missing) or "none"))

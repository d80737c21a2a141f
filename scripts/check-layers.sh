#!/usr/bin/env bash
# The CLI's layers, checked from its sources: which top-level module of bench/src uses which
# (`crate::x` paths), whether any of them form a cycle, and whether any command (a file of
# bench/src/run/, or the old bench/src/commands/) imports another command. Exits 1 on a
# cycle or a command importing a command.
#
#   scripts/check-layers.sh            # a table of edges, then the verdicts
set -euo pipefail
cd "$(dirname "$0")/.."
python3 - <<'PY'
import pathlib, re, sys

src = pathlib.Path("bench/src")
top = lambda p: p.relative_to(src).parts[0].removesuffix(".rs")
uses = {}
command_imports = []
for f in sorted(src.rglob("*.rs")):
    if f.name == "main.rs" and f.parent == src:
        continue  # the crate root composes everything
    # Code only: comments (doc links included) are not dependencies.
    text = "\n".join(re.sub(r"//.*", "", line) for line in f.read_text().splitlines())
    # `use crate::{a, b}` and `crate::a::...` anywhere (tests included: they are code too).
    mods = set(re.findall(r"crate::(\w+)", text))
    for group in re.findall(r"use crate::\{([^}]*)\}", text):
        mods |= set(re.findall(r"(?:^|,)\s*(\w+)", group))
    me = top(f)
    for m in mods:
        if m != me and (src / m).exists() or (src / f"{m}.rs").exists():
            if m != me:
                uses.setdefault(me, set()).add(m)
    # A command importing a sibling command.
    parts = f.relative_to(src).parts
    if parts[0] in ("run", "commands") and f.name != "mod.rs":
        own = f.stem
        for m in re.findall(r"crate::(?:run|commands)::(\w+)", text) + re.findall(r"super::(\w+)", text):
            if m != own and ((src / parts[0] / f"{m}.rs").exists()):
                command_imports.append(f"{f} imports the command {parts[0]}::{m}")

print("| module | uses |\n|---|---|")
for m in sorted(uses):
    print(f"| {m} | {', '.join(sorted(uses[m]))} |")

# Cycles: depth-first search over the module graph.
cycles, state = [], {}
def visit(n, path):
    state[n] = 1
    for m in sorted(uses.get(n, ())):
        if state.get(m) == 1:
            cycles.append(path[path.index(m):] + [m] if m in path else path + [m])
        elif not state.get(m):
            visit(m, path + [m])
    state[n] = 2
for n in sorted(uses):
    if not state.get(n):
        visit(n, [n])
print()
print("cycles:", "none" if not cycles else "; ".join(" → ".join(c) for c in cycles))
print("commands importing another command:", "none" if not command_imports else "")
for c in command_imports:
    print("  " + c)
sys.exit(1 if cycles or command_imports else 0)
PY

#!/usr/bin/env bash
# The workspace's layers, checked from its sources. Exits 1 on any of:
#
# 1. An import cycle between modules of any crate (runtime/src, workloads/src, bench/src):
#    every `crate::a::b` and `super::x` path in code (comments and `#[cfg(test)]` modules are
#    not dependencies) is an edge between the modules that hold them; an edge between a
#    module and its own parent or child is how Rust declares modules and is not counted; the
#    others are lifted to the siblings under their lowest common ancestor, and a cycle among
#    siblings (ising::lattice → ising::metropolis → ising::lattice) fails.
# 2. A command of bench (a file of bench/src/run/) importing another command.
# 3. bench re-deriving a decision the runtime's machine makes (it must ask the machine: a
#    `RunSpec`). Checked in bench/src, outside tests:
#    - counting the host's cores (`available_parallelism`, `get_core_ids`): the input of the
#      `auto` rule and of native admission (run/pingpong.rs pins the threads of its bare
#      channel benchmark, which is no machine, and is allowed);
#    - choosing a dilation (`choose_dilation`, `DilationInputs`, `suggested_dilation`) or
#      marking one to choose with a sentinel (`Dilated(0`);
#    - a time mode compared as a string (`== "native"`, `"virtual" =>`, …).
#
#   scripts/check-layers.sh            # bench's table of edges, then the verdicts
set -euo pipefail
cd "$(dirname "$0")/.."
python3 - <<'PY'
import pathlib, re, sys

failures = []

def code_of(f):
    """A file's code: comments and #[cfg(test)] modules removed."""
    text = f.read_text()
    text = "\n".join(re.sub(r"//.*", "", line) for line in text.splitlines())
    # An inline test module runs to the end of its file in this workspace.
    m = re.search(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{", text)
    if m:
        text = text[: m.start()]
    return text

def module_of(src, f):
    parts = list(f.relative_to(src).with_suffix("").parts)
    if parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return tuple(parts)

def test_files(src):
    """Files declared as `#[cfg(test)] mod x;` (test modules in files of their own)."""
    out = set()
    for f in src.rglob("*.rs"):
        for name in re.findall(r"#\[cfg\(test\)\]\s*mod\s+(\w+)\s*;", f.read_text()):
            base = f.parent if f.name in ("mod.rs", "lib.rs", "main.rs") else f.with_suffix("")
            out |= {base / f"{name}.rs", base / name / "mod.rs"}
    return out

def crate_cycles(src):
    files = [f for f in sorted(src.rglob("*.rs")) if f not in test_files(src)]
    mods = {module_of(src, f) for f in files}
    edges = {}
    for f in files:
        me = module_of(src, f)
        text = code_of(f)
        paths = []
        for p in re.findall(r"\bcrate((?:::\w+)+)", text):
            paths.append(tuple(p.strip(":").split("::")))
        for p in re.findall(r"\bsuper((?:::\w+)+)", text):
            paths.append(me[:-1] + tuple(p.strip(":").split("::")))
        for base, prefix, group in re.findall(r"\buse\s+(crate|super)((?:::\w+)*)::\{([^}]*)\}", text):
            root = () if base == "crate" else me[:-1]
            pre = tuple(x for x in prefix.split("::") if x)
            for name in re.findall(r"(?:^|,)\s*(\w+)", group):
                paths.append(root + pre + (name,))
        for p in paths:
            target = max((p[:k] for k in range(len(p), 0, -1) if p[:k] in mods), key=len, default=None)
            if target is None or target == me:
                continue
            # A module and its ancestors or descendants: declarations and re-exports.
            if target[: len(me)] == me or me[: len(target)] == target:
                continue
            common = 0
            while me[common] == target[common]:
                common += 1
            a, b = me[: common + 1], target[: common + 1]
            edges.setdefault(a, set()).add(b)
    cycles, state = [], {}
    def visit(n, path):
        state[n] = 1
        for m in sorted(edges.get(n, ())):
            if state.get(m) == 1:
                cycles.append(path[path.index(m):] + [m])
            elif not state.get(m):
                visit(m, path + [m])
        state[n] = 2
    for n in sorted(edges):
        if not state.get(n):
            visit(n, [n])
    return [" → ".join("::".join(x) for x in c) for c in cycles]

# 1. Cycles in every crate.
for crate in ("runtime", "workloads", "bench"):
    for c in crate_cycles(pathlib.Path(crate) / "src"):
        failures.append(f"import cycle in {crate}: {c}")

# bench's layers, as a table (top-level modules).
src = pathlib.Path("bench/src")
top = lambda p: p.relative_to(src).parts[0].removesuffix(".rs")
uses = {}
command_imports = []
for f in sorted(src.rglob("*.rs")):
    if f.name == "main.rs" and f.parent == src:
        continue  # the crate root composes everything
    text = "\n".join(re.sub(r"//.*", "", line) for line in f.read_text().splitlines())
    mods = set(re.findall(r"crate::(\w+)", text))
    for group in re.findall(r"use crate::\{([^}]*)\}", text):
        mods |= set(re.findall(r"(?:^|,)\s*(\w+)", group))
    me = top(f)
    for m in mods:
        if m != me and ((src / m).exists() or (src / f"{m}.rs").exists()):
            uses.setdefault(me, set()).add(m)
    # 2. A command importing a sibling command.
    parts = f.relative_to(src).parts
    if parts[0] in ("run", "commands") and f.name != "mod.rs":
        own = f.stem
        for m in re.findall(r"crate::(?:run|commands)::(\w+)", text) + re.findall(r"super::(\w+)", text):
            if m != own and ((src / parts[0] / f"{m}.rs").exists()):
                command_imports.append(f"{f} imports the command {parts[0]}::{m}")
print("| bench module | uses |\n|---|---|")
for m in sorted(uses):
    print(f"| {m} | {', '.join(sorted(uses[m]))} |")
failures += command_imports

# 3. bench re-deriving a runtime decision.
DECISIONS = [
    (r"\bavailable_parallelism\b|\bget_core_ids\b", "counts the host's cores (ask the machine)"),
    (r"\bchoose_dilation\b|\bDilationInputs\b|\bsuggested_dilation\b", "chooses a dilation (the machine does)"),
    (r"Dilated\(\s*0", "marks a dilation to choose with a sentinel (TimeMode::DilatedChosen)"),
    (r"(==|!=)\s*\"(native|dilated|virtual)\"|\"(native|dilated|virtual)\"\s*(\|[^=]*)?=>|\(\s*\"(native|dilated|virtual)\"\s*,",
     "compares a time mode as a string (match on the RunSpec's Resolved)"),
]
ALLOWED = {("bench/src/run/pingpong.rs", 0)}
tests = test_files(src)
for f in sorted(src.rglob("*.rs")):
    if f in tests:
        continue
    for i, line in enumerate(code_of(f).splitlines(), 1):
        for k, (pattern, what) in enumerate(DECISIONS):
            if re.search(pattern, line) and (str(f), k) not in ALLOWED:
                failures.append(f"{f}:{i} {what}: {line.strip()}")

print()
print("checked: import cycles in runtime, workloads and bench; commands importing commands;")
print("bench counting cores, choosing a dilation, a dilation sentinel, a time mode as a string")
if failures:
    print("FAILED:")
    for x in failures:
        print("  " + x)
    sys.exit(1)
print("none found")
PY

#!/usr/bin/env python3
"""Summarises the Markdown rows of the collectives_grid example (read from stdin): per
operation and algorithm, per network family, the cells equal to their model to the
nanosecond out of all, with the largest difference above and below the model, and how many
ran with stand-in contents. Used by scripts/validate-interconnects.sh."""
import sys
from collections import OrderedDict

FAMILIES = ["hypercube", "ring", "torus", "mesh"]
table = OrderedDict()
stand_in = {}
total = exact = 0
for line in sys.stdin:
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) != 10 or not cells[1].isdigit():
        continue
    net, p, nbytes, sw, op, alg, meas, model, diff, contents = cells
    family = net.split(":")[0]
    diff = int(diff)
    key = (op, alg)
    row = table.setdefault(key, {f: [0, 0, 0, 0] for f in FAMILIES})
    c = row[family]
    c[0] += 1
    c[1] += diff == 0
    c[2] = max(c[2], diff)
    c[3] = min(c[3], diff)
    total += 1
    exact += diff == 0
    if contents != "full":
        stand_in[net] = stand_in.get(net, 0) + 1
print("| operation | algorithm | " + " | ".join(FAMILIES) + " |")
print("|---|---|" + "---|" * len(FAMILIES))
for (op, alg), row in table.items():
    out = []
    for f in FAMILIES:
        n, e, above, below = row[f]
        text = f"{e}/{n}"
        notes = []
        if above > 0:
            notes.append(f"above by up to {above / 1e3:.1f} µs")
        if below < 0:
            notes.append(f"below by up to {-below / 1e3:.1f} µs")
        if notes:
            text += " (" + ", ".join(notes) + ")"
        out.append(text)
    print(f"| {op} | {alg} | " + " | ".join(out) + " |")
print()
print(f"{exact} of {total} cells equal their model to the nanosecond.")
print("Cells with stand-in contents, by network: " +
      (", ".join(f"{k} {v}" for k, v in stand_in.items()) or "none") + ".")

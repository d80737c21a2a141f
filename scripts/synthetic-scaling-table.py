#!/usr/bin/env python3
"""A synthetic scaling table like the tests' (P, time_s, loop_count; a + b·log P with ±0.3 %
replicates), for `multicomputer scaling --csv`.

    scripts/synthetic-scaling-table.py OUT.csv
"""
import math
import sys

with open(sys.argv[1], "w") as f:
    f.write("P,time_s,loop_count\n")
    for l in (0, 2000, 4000):
        for k in range(1, 9):
            p = 2 ** k
            t = 78 + (1.2 + 0.0015 * l) * math.log(p)
            for w in (-0.003, 0.0, 0.003):
                f.write(f"{p},{t * (1 + w)},{l}\n")

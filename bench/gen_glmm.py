#!/usr/bin/python3
"""Seeded data for the GLMM pair of bench/compare.sh: 10,000 rows, 50 groups.

Usage: /usr/bin/python3 bench/gen_glmm.py OUT.csv
g ∈ {g1..g50} uniform; x1 ~ N(0,1); x2 ~ U(0,1); a_g ~ N(0, 0.7²);
yb ~ Bernoulli(logit⁻¹(−0.5 + 0.8·x1 − 0.6·x2 + a_g)).
"""
import math
import random
import sys

rng = random.Random(20261130)
a = [rng.gauss(0, 0.7) for _ in range(50)]
with open(sys.argv[1], "w") as f:
    f.write("yb,x1,x2,g\n")
    for _ in range(10_000):
        g = rng.randrange(50)
        x1, x2 = round(rng.gauss(0, 1), 6), round(rng.random(), 6)
        eta = -0.5 + 0.8 * x1 - 0.6 * x2 + a[g]
        yb = 1 if rng.random() < 1 / (1 + math.exp(-eta)) else 0
        f.write(f"{yb},{x1},{x2},g{g + 1}\n")

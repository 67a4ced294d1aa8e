#!/usr/bin/python3
# Reference for analysis.signFlipP: the two-sided sign-flip (randomization)
# test of mean(d) = 0, by brute force over all 2^n sign vectors:
#   p = mean over s in {-1, 1}^n of [|sum(s * d)| >= |sum(d)| - 1e-9 * sum(|d|)]
# (numpy broadcasting over the full sign matrix, no Gray code, no symmetry).
# Usage (from the repository root):
#   /usr/bin/python3 testdata/reference/power_signflip.py > testdata/reference/power_signflip.csv
import itertools
import sys

import numpy as np

cases = [
    [0.1, 0.3, -0.2, 0.4, 0.5],
    [0.2, 0.2, 0.2, 0.2, 0.2, 0.2],              # constant: only the observed signs reach it
    [0.0, 0.0, 0.0, 0.0],                        # all zero: p = 1
    [0.3, -0.1],
    [1 / 3, 2 / 3, -1 / 3, 1.0, 0.0, 1 / 3, 2 / 3],  # success differences with 3 runs (ties)
    [0.8, 0.6, -0.4, 0.2, 0.2, -0.2, 0.6, 0.4],
    [0.1, 0.1, 0.1, 0.1, 0.1, 0.1, -0.3, -0.3, 0.1, 0.2],
    [0.05, 0.12, -0.03, 0.2, 0.07, 0.11, 0.09, -0.01, 0.15, 0.04, 0.13, 0.08],
    [0.05, 0.12, -0.03, 0.2, 0.07, 0.11, 0.09, -0.01, 0.15, 0.04, 0.13, 0.08, -0.1, 0.02],
    [0.3, -0.2, 0.1, -0.4, 0.25, -0.05, 0.15, 0.0, -0.1, 0.2, 0.05, -0.3, 0.1, 0.12, -0.02, 0.07],
]
print("# /usr/bin/python3 testdata/reference/power_signflip.py; python %s, numpy %s" % (sys.version.split()[0], np.__version__))
print("d,p")
for d in cases:
    d = np.array(d)
    s = np.array(list(itertools.product([1.0, -1.0], repeat=len(d))))
    sums = np.abs(s @ d)
    thr = abs(d.sum()) - 1e-9 * np.abs(d).sum()
    p = np.mean(sums >= thr)
    print("%s,%.17g" % (" ".join(repr(float(x)) for x in d), p))

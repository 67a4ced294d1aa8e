#!/usr/bin/python3
"""Independent reference for analysis.Wilson (standard library only).

Usage: /usr/bin/python3 testdata/reference/wilson.py
Wilson score interval, closed form (Wilson 1927; Agresti & Coull 1998):
(p + z^2/2n -/+ z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n), z from
statistics.NormalDist().inv_cdf(0.975), clipped to [0, 1].
"""
import math
import sys
from statistics import NormalDist

z = NormalDist().inv_cdf(0.975)
print(f"# python {sys.version.split()[0]}; z = {z!r}")
for s, n in [(3, 10), (0, 5), (5, 5), (1, 2)]:
    p = s / n
    den = 1 + z * z / n
    c = (p + z * z / (2 * n)) / den
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    print(f"{s},{n},{max(0.0, c - h)!r},{min(1.0, c + h)!r}")

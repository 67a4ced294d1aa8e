"""Reference values for analysis/detmath_test.go (TestDetMathAccuracy):
math.exp / math.log / math.log2 at the arguments where Go's amd64 math
package differs from glibc's correctly rounded results.

Command: /usr/bin/python3 testdata/reference/detmath.py
"""
import math, platform, sys

cases = [
    ("exp(709.4597957162617)", math.exp, 709.4597957162617),
    ("log(5e-324)", math.log, 5e-324),
    ("log2(1.0000436767190009)", math.log2, 1.0000436767190009),
    ("exp(709.78)", math.exp, 709.78),
    ("exp(-740)", math.exp, -740.0),
    ("exp(-745.13)", math.exp, -745.13),
    ("log(2.5e-320)", math.log, 2.5e-320),
]
print("# /usr/bin/python3 testdata/reference/detmath.py > testdata/reference/detmath.txt")
print(f"# Python {sys.version.split()[0]}, {' '.join(platform.libc_ver())}")
for name, f, x in cases:
    print(f"{name} = {f(x)!r}")

# Reference for analysis.HorizonTrendBand: numpy refits ln(p50) ~ day on each
# replicate (np.polyfit, degree 1) and takes, at each grid day, the type-7
# (numpy default "linear") quantiles of exp(a + s*day) over the replicates.
# Input: synthetic replicates, generated below without randomness, with a NaN
# p50, one below 1e-3 and one replicate left with a single usable point.
#   /usr/bin/python3 testdata/reference/horizon_band.py > testdata/reference/horizon_band.csv
import sys, math
import numpy as np

agents = ["a", "b", "c", "d"]
days = {"a": 19000.0, "b": 19200.0, "c": 19450.0, "d": 19700.0}
reps = []
for r in range(40):
    row = {}
    for j, ag in enumerate(agents):
        base = 2.0 * 2 ** (j * 1.3)
        row[ag] = base * (1 + 0.35 * math.sin(1.7 * r + 2.3 * j)) + 0.05 * ((r * 7 + j * 3) % 11)
    reps.append(row)
reps[3]["b"] = float("nan")
reps[5]["a"] = 5e-4
for ag in ["a", "b", "c"]:
    reps[7][ag] = float("inf")
grid = [19000.0, 19100.0, 19350.0, 19700.0, 19900.0]
level = 0.9

fits = []
for row in reps:
    x = [days[a] for a in agents if np.isfinite(row[a]) and row[a] >= 1e-3]
    y = [math.log(row[a]) for a in agents if np.isfinite(row[a]) and row[a] >= 1e-3]
    if len(x) < 2:
        continue
    s, a = np.polyfit(x, y, 1)
    fits.append((s, a))

out = sys.stdout
out.write("# /usr/bin/python3 testdata/reference/horizon_band.py; python %s, numpy %s; level %g, %d of %d replicates fitted\n"
          % (sys.version.split()[0], np.__version__, level, len(fits), len(reps)))
out.write("kind,rep,agent,day,value,lo,hi\n")
for r, row in enumerate(reps):
    for ag in agents:
        out.write("input,%d,%s,%r,%r,,\n" % (r, ag, days[ag], row[ag]))
for x in grid:
    pred = np.array([math.exp(a + s * x) for s, a in fits])
    lo, hi = np.quantile(pred, [(1 - level) / 2, (1 + level) / 2])
    out.write("band,,,%r,,%r,%r\n" % (x, lo, hi))

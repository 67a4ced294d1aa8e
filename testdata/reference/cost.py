#!/usr/bin/python3
"""Independent reference for rdeval cost (analysis/cost.go) on a small fixture.

Usage (Debian python3-numpy; from the repository root):
  /usr/bin/python3 testdata/reference/cost.py testdata/reference/cost_fixture.csv > testdata/reference/cost_fixture_expected.csv

Per group: mean over tasks of each task's mean over its runs that know the
quantity (empty cells are unknown; a task without a known value is left out),
for cost, tokens, score and success; cost per success = mean cost / success
rate, cost per score = mean cost / mean score (pandas:
df.groupby("task")[cols].mean().mean()). Pareto: a group is on the frontier
unless another has cost <= and score >= with one strict; a NaN cost or score is
on no frontier and dominates nothing. Bootstrap (numpy default_rng(11),
B = 20,000, separately for each unit): "runs" draws each task's n runs with
replacement, tasks fixed; "tasks" draws T tasks with replacement, each with its
observed runs. Interval: type-7 (numpy "linear") quantiles 0.025 and 0.975 of
the replicates that are not NaN, a quantile that interpolates towards +inf
being +inf; boot_sd is the sd of the finite replicates.
"""
import csv
import math
import sys

import numpy as np

COLS = ["cost", "tokens", "score", "success"]
STATS = ["mean_cost", "mean_tokens", "mean_score", "success_rate", "cost_per_success", "cost_per_score"]
B = 20000


def stats(tasks):
    """tasks: list of (n, 4) arrays (NaN unknown)."""
    m = []
    for q in range(4):
        per = [np.nanmean(t[:, q]) for t in tasks if np.any(~np.isnan(t[:, q]))]
        m.append(np.mean(per) if per else math.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        cps = np.float64(m[0]) / np.float64(m[3])
        cpsc = np.float64(m[0]) / np.float64(m[2])
    return m + [float(cps), float(cpsc)]


def quantile(x, p):
    x = np.sort(x)
    h = (len(x) - 1) * p
    lo = int(math.floor(h))
    frac = h - lo
    if frac == 0 or lo + 1 >= len(x):
        return x[min(lo, len(x) - 1)]
    if np.isinf(x[lo + 1]):
        return math.inf
    return x[lo] + frac * (x[lo + 1] - x[lo])


def boot(tasks, unit, rng):
    reps = np.empty((B, 6))
    T = len(tasks)
    for b in range(B):
        if unit == "runs":
            drawn = [t[rng.integers(len(t), size=len(t))] for t in tasks]
        else:
            drawn = [tasks[i] for i in rng.integers(T, size=T)]
        reps[b] = stats(drawn)
    out = []
    for q in range(6):
        r = reps[:, q]
        r = r[~np.isnan(r)]
        if len(r) == 0:
            out.append((math.nan, math.nan, math.nan))
            continue
        fin = r[np.isfinite(r)]
        sd = float(np.std(fin, ddof=1)) if len(fin) > 1 else math.nan
        out.append((quantile(r, 0.025), quantile(r, 0.975), sd))
    return out


def main():
    groups = {}
    for row in csv.DictReader(open(sys.argv[1])):
        vals = [float(row[c]) if row[c] != "" else math.nan for c in COLS]
        groups.setdefault(row["group"], {}).setdefault(row["task"], []).append(vals)
    names = sorted(groups)
    tasks = {g: [np.array(groups[g][t]) for t in sorted(groups[g])] for g in names}
    est = {g: stats(tasks[g]) for g in names}
    c = np.array([est[g][0] for g in names])
    s = np.array([est[g][2] for g in names])
    ok = np.isfinite(c) & np.isfinite(s)
    pareto = [bool(ok[i]) and not any(ok & (c <= c[i]) & (s >= s[i]) & ((c < c[i]) | (s > s[i]))) for i in range(len(names))]
    rng = np.random.default_rng(11)
    print(f"# /usr/bin/python3 testdata/reference/cost.py testdata/reference/cost_fixture.csv; python {sys.version.split()[0]}, numpy {np.__version__}")
    print("group,stat,est,runs_lo,runs_hi,runs_sd,tasks_lo,tasks_hi,tasks_sd")
    for i, g in enumerate(names):
        br = boot(tasks[g], "runs", rng)
        bt = boot(tasks[g], "tasks", rng)
        for q, st in enumerate(STATS):
            print(",".join([g, st] + [repr(float(v)) for v in (est[g][q],) + br[q] + bt[q]]))
        print(f"{g},pareto,{1.0 if pareto[i] else 0.0},nan,nan,nan,nan,nan,nan")


main()

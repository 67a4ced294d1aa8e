#!/usr/bin/python3
"""Independent reference for analysis.Compare's studentized intervals
(compare_studentized.go), numpy only.

Usage (Debian python3-numpy; from the repository root):
  /usr/bin/python3 testdata/reference/compare_stud.py ../shared/anchors/eval-analysis-public/3a947ac7069ecb6e1fd0064cc0205e5eb9dcba0f/data/external/all_runs.jsonl > testdata/reference/compare_stud_3a947ac.csv

For two comparisons on METR's RE-Bench runs (a: o1-preview 7200 s k 1 vs
o1-preview 1800 s k 1; b: o1-preview 1800 s k 2 vs o1-preview 7200 s k 1),
over the shared tasks: each task's exact score@k (sorted descending,
weights C(n-i, k-1)/C(n, k)); the jackknife standard errors over tasks of
the difference of means and of log(ratio of means); and the bootstrap-t
interval of each: B = 200,000 replicates drawing tasks with replacement
(numpy default_rng(7)), pivot (theta* - theta)/se* with se* the jackknife
SE over the drawn tasks (replicates with se* = 0 dropped), interval
[theta - q(0.975) se, theta - q(0.025) se] with numpy's linear quantiles
(type 7), exponentiated for the ratio. theta_sd is the sd of theta* (the
scale of the Monte Carlo tolerance).
"""
import json
import math
import sys
from collections import defaultdict

import numpy as np


def score_at_k(s, k):
    s = sorted(s, reverse=True)
    n = len(s)
    return sum(math.comb(n - i, k - 1) / math.comb(n, k) * x for i, x in enumerate(s, start=1))


def jack(a, b):
    m = len(a)
    la = (a.sum() - a) / (m - 1)
    lb = (b.sum() - b) / (m - 1)
    d = la - lb
    sd = math.sqrt((m - 1) / m * np.sum((d - d.mean()) ** 2))
    if np.all(la > 0) and np.all(lb > 0):
        l = np.log(la / lb)
        sl = math.sqrt((m - 1) / m * np.sum((l - l.mean()) ** 2))
    else:
        sl = float("nan")
    return sd, sl


def main():
    by = defaultdict(lambda: defaultdict(list))
    with open(sys.argv[1]) as f:
        for line in f:
            r = json.loads(line)
            if r["task_id"].startswith("ai_rd_") and r["score"] is not None:
                by[(r["alias"], r["time_limit"])][r["task_id"]].append(r["score"])
    print(f"# /usr/bin/python3 testdata/reference/compare_stud.py <3a947ac all_runs.jsonl>; python {sys.version.split()[0]}, numpy {np.__version__}")
    print("case,a,ka,b,kb,n_tasks,diff,ratio,se_diff,se_log,diff_low,diff_high,diff_sd,ratio_low,ratio_high,logratio_sd")
    rng = np.random.default_rng(7)
    for case, (a, ka, b, kb) in (("a", (("o1-preview", 7200), 1, ("o1-preview", 1800), 1)),
                                 ("b", (("o1-preview", 1800), 2, ("o1-preview", 7200), 1))):
        A, B = by[a], by[b]
        tasks = sorted(t for t in set(A) & set(B) if len(A[t]) >= ka and len(B[t]) >= kb)
        ea = np.array([score_at_k(A[t], ka) for t in tasks])
        eb = np.array([score_at_k(B[t], kb) for t in tasks])
        m = len(tasks)
        diff = ea.mean() - eb.mean()
        ratio = ea.mean() / eb.mean()
        sd_, sl_ = jack(ea, eb)
        td, tl, thd, thl = [], [], [], []
        for _ in range(200_000):
            idx = rng.integers(0, m, m)
            xa, xb = ea[idx], eb[idx]
            d = xa.mean() - xb.mean()
            l = math.log(xa.sum() / xb.sum())
            thd.append(d)
            thl.append(l)
            s1, s2 = jack(xa, xb)
            if s1 > 0:
                td.append((d - diff) / s1)
            if s2 > 0:
                tl.append((l - math.log(ratio)) / s2)
        qd = np.quantile(td, [0.025, 0.975])
        ql = np.quantile(tl, [0.025, 0.975])
        row = [case, f"{a[0]} {a[1]}", ka, f"{b[0]} {b[1]}", kb, m, repr(diff), repr(ratio), repr(sd_), repr(sl_),
               repr(diff - qd[1] * sd_), repr(diff - qd[0] * sd_), repr(float(np.std(thd, ddof=1))),
               repr(math.exp(math.log(ratio) - ql[1] * sl_)), repr(math.exp(math.log(ratio) - ql[0] * sl_)), repr(float(np.std(thl, ddof=1)))]
        print(",".join(str(x) for x in row))


if __name__ == "__main__":
    main()

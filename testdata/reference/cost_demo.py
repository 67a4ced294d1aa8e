#!/usr/bin/python3
"""Independent reference for rdeval cost's point estimates on the demo study.

Usage (Debian python3-numpy; from the repository root):
  /usr/bin/python3 testdata/reference/cost_demo.py cmd/rdeval/internal/demo/data/re-bench/runs.jsonl > testdata/reference/cost_demo.csv

Reads METR-format runs (alias = agent, time_limit, dollar_equivalent = cost,
total_tokens, score, score_binarized = success). Per alias x time limit: mean
over tasks of each task's mean over its runs with a value (numpy.nanmean; a
task without one left out), cost per success = mean cost / success rate, cost
per score = mean cost / mean score, and the cost-score Pareto frontier (no
other group has cost <= and score >= with one strict).
"""
import json
import math
import sys
from collections import defaultdict

import numpy as np


def main():
    groups = defaultdict(lambda: defaultdict(list))
    for line in open(sys.argv[1]):
        r = json.loads(line)
        if r.get("dollar_equivalent") is None:
            continue
        val = lambda k: math.nan if r.get(k) is None else float(r[k])
        groups[(r["alias"], r["time_limit"])][r["task_id"]].append(
            [val("dollar_equivalent"), val("total_tokens"), val("score"), val("score_binarized")])
    keys = sorted(groups)
    est = {}
    for k in keys:
        m = []
        for q in range(4):
            per = [np.nanmean(np.array(v)[:, q]) for v in groups[k].values() if not np.all(np.isnan(np.array(v)[:, q]))]
            m.append(float(np.mean(per)) if per else math.nan)
        with np.errstate(divide="ignore", invalid="ignore"):
            m += [float(np.float64(m[0]) / m[3]), float(np.float64(m[0]) / m[2])]
        est[k] = m
    c = np.array([est[k][0] for k in keys])
    s = np.array([est[k][2] for k in keys])
    print(f"# /usr/bin/python3 testdata/reference/cost_demo.py cmd/rdeval/internal/demo/data/re-bench/runs.jsonl; python {sys.version.split()[0]}, numpy {np.__version__}")
    print("agent,time_limit_s,mean_cost,mean_tokens,mean_score,success_rate,cost_per_success,cost_per_score,pareto")
    for i, k in enumerate(keys):
        dom = any((c <= c[i]) & (s >= s[i]) & ((c < c[i]) | (s > s[i])))
        print(",".join([k[0], str(k[1])] + [repr(v) for v in est[k]] + [str(not dom).lower()]))


main()

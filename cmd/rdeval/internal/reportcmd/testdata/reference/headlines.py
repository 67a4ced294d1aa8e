"""Independent reference for the point estimates of the demo report's
headline tables (pure Python, no rdeval code): RExBench Table 5 (mean over
tasks of per-task final and execution success rates), score@k at k = 1
(mean over tasks of the mean score of the runs with a score) and the
time-horizon fits (METR / sklearn LogisticRegression(C=1/0.1) objective:
0.5·b² + C·Σ w·logloss with the intercept unpenalized, weights
invsqrt_task_weight, x = log2 human minutes; p_q = 2^((ln(q/(1−q)) − a)/b)).

Run from the repository root:
    python3 cmd/rdeval/internal/reportcmd/testdata/reference/headlines.py \
        > cmd/rdeval/internal/reportcmd/testdata/reference/headlines.csv
"""
import json, math, sys
from collections import defaultdict

D = "cmd/rdeval/internal/demo/data/"
out = ["table,key,value"]

# RExBench Table 5.
rx = [json.loads(l) for l in open(D + "rexbench/runs.jsonl")]
cells = defaultdict(lambda: defaultdict(list))
for r in rx:
    cells[(r["framework"], r["model"], r["hint_level"])][r["task"]].append(r)
for k in sorted(cells):
    tasks = cells[k]
    fin = sum(sum(1 for r in rs if r["final_success"]) / len(rs) for rs in tasks.values()) / len(tasks)
    exe = sum(sum(1 for r in rs if r["exec_success"]) / len(rs) for rs in tasks.values()) / len(tasks)
    out.append("success,%s/%s/%s/final,%.10g" % (k + (fin,)))
    out.append("success,%s/%s/%s/exec,%.10g" % (k + (exe,)))

# score@k, k = 1, per agent and time limit, RE-Bench runs.
rb = [json.loads(l) for l in open(D + "re-bench/runs.jsonl")]
groups = defaultdict(lambda: defaultdict(list))
for r in rb:
    if r["score"] is not None:
        groups[(r["alias"], r["time_limit"])][r["task_id"]].append(r["score"])
for k in sorted(groups):
    t = groups[k]
    out.append("scoreatk1,%s/%d,%.10g" % (k[0], k[1], sum(sum(v) / len(v) for v in t.values()) / len(t)))

# Horizons: Newton's method on the penalized weighted log-likelihood.
hz = [json.loads(l) for l in open(D + "horizon/runs.jsonl")]
by = defaultdict(list)
for r in hz:
    by[r["alias"]].append((math.log2(r["human_minutes"]), r["score_binarized"], r["invsqrt_task_weight"]))
C = 1 / 0.1
for a in sorted(by):
    rows = by[a]
    a0, b = 0.0, 0.0
    for _ in range(100):
        g0 = g1 = h00 = h01 = h11 = 0.0
        for x, y, w in rows:
            p = 1 / (1 + math.exp(-(a0 + b * x)))
            g0 += C * w * (p - y)
            g1 += C * w * (p - y) * x
            v = C * w * p * (1 - p)
            h00 += v; h01 += v * x; h11 += v * x * x
        g1 += b
        h11 += 1
        det = h00 * h11 - h01 * h01
        da = (h11 * g0 - h01 * g1) / det
        db = (h00 * g1 - h01 * g0) / det
        a0, b = a0 - da, b - db
        if abs(da) + abs(db) < 1e-14:
            break
    for q in (0.5, 0.8):
        out.append("horizon,%s/p%d,%.10g" % (a, round(100 * q), 2 ** ((math.log(q / (1 - q)) - a0) / b)))
    out.append("horizon,%s/slope,%.10g" % (a, b))

sys.stdout.write("# python3 %s (Python %s); pure Python, no packages\n" % (
    "cmd/rdeval/internal/reportcmd/testdata/reference/headlines.py", sys.version.split()[0]))
sys.stdout.write("\n".join(out) + "\n")

#!/usr/bin/python3
"""scikit-learn peer of `rdeval horizon` for bench/compare.sh (issue #8):
the METR method as eval-analysis-public runs it, one sklearn fit per agent
per bootstrap replicate.

Usage: /usr/bin/python3 bench/horizon_sklearn.py ALL_RUNS.jsonl BOOT SEED
prints CSV: agent,p50,p50_ci_low,p50_ci_high,p80,p80_ci_low,p80_ci_high

As methods.md §2 and analysis/horizon.go describe: agents are the
non-human aliases; x = log2(human_minutes), y = score_binarized; invsqrt
weights 1/(runs of the agent on the task · sqrt(tasks of the agent in the
family)), normalized per agent; LogisticRegression(C = 10) with sklearn's
defaults (lbfgs, tol 1e-4), as METR calls it. Hierarchical bootstrap per
replicate: draw families with replacement, then tasks within each drawn
family, then each agent's runs within each drawn task; drawn runs keep
their full-data weights; an agent with one outcome class in a replicate
skips it. Percentile interval (numpy.percentile, linear) at 95 %. The
generator (numpy default_rng(seed)) is not rdeval's, so intervals agree
only up to Monte Carlo error; compare.sh checks point estimates tightly and
interval ends loosely.
"""
import json
import math
import sys
from collections import defaultdict

import warnings

import numpy as np
from sklearn.linear_model import LogisticRegression

C = 10.0


def horizons(x, y, w):
    m = LogisticRegression(C=C)
    m.fit(x[:, None], y, sample_weight=w)
    a, b = m.intercept_[0], m.coef_[0, 0]
    return 2 ** ((0 - a) / b), 2 ** ((math.log(4) - a) / b)


def main(path, boot, seed):
    # Horizons of an agent whose p50 extrapolates far (gpt-3.5-turbo-instruct)
    # overflow in some replicates, as in METR's code; they count as inf.
    warnings.filterwarnings("ignore", category=RuntimeWarning)
    rows = [json.loads(l) for l in open(path)]
    rows = [r for r in rows if r["alias"] != "human" and r.get("human_minutes") and r.get("score_binarized") is not None]
    agents = sorted({r["alias"] for r in rows})
    # Weights per agent (invsqrt), normalized to sum to 1.
    w = np.zeros(len(rows))
    for agent in agents:
        idx = [i for i, r in enumerate(rows) if r["alias"] == agent]
        on_task = defaultdict(int)
        fam_tasks = defaultdict(set)
        for i in idx:
            on_task[rows[i]["task_id"]] += 1
            fam_tasks[rows[i]["task_family"]].add(rows[i]["task_id"])
        v = np.array([1.0 / on_task[rows[i]["task_id"]] / math.sqrt(len(fam_tasks[rows[i]["task_family"]])) for i in idx])
        w[idx] = v / v.sum()
    x = np.log2(np.array([r["human_minutes"] for r in rows], dtype=float))
    y = np.array([r["score_binarized"] for r in rows], dtype=float)
    agent_of = np.array([agents.index(r["alias"]) for r in rows])
    families = defaultdict(list)
    for t in sorted({(r["task_family"], r["task_id"]) for r in rows}):
        families[t[0]].append(t[1])
    fam_names = sorted(families)
    runs_at = defaultdict(list)  # (task, agent) -> row indices
    for i, r in enumerate(rows):
        runs_at[(r["task_id"], agent_of[i])].append(i)
    runs_at = {k: np.array(v) for k, v in runs_at.items()}
    task_agents = defaultdict(list)
    for (t, a) in sorted(runs_at):
        task_agents[t].append(a)

    point = {}
    for a, agent in enumerate(agents):
        m = agent_of == a
        if len(np.unique(y[m])) == 2:
            point[agent] = horizons(x[m], y[m], w[m])
    rng = np.random.default_rng(seed)
    reps = defaultdict(list)
    for _ in range(boot):
        picked = defaultdict(list)  # agent -> arrays of row indices drawn
        for f in rng.integers(len(fam_names), size=len(fam_names)):
            tasks = families[fam_names[f]]
            for ti in rng.integers(len(tasks), size=len(tasks)):
                t = tasks[ti]
                for a in task_agents[t]:
                    idx = runs_at[(t, a)]
                    picked[a].append(idx[rng.integers(len(idx), size=len(idx))])
        for a, agent in enumerate(agents):
            idx = np.concatenate(picked[a]) if picked[a] else np.array([], dtype=int)
            if len(idx) == 0 or len(np.unique(y[idx])) < 2:
                continue
            reps[agent].append(horizons(x[idx], y[idx], w[idx]))
    print("agent,p50,p50_ci_low,p50_ci_high,p80,p80_ci_low,p80_ci_high")
    for agent in agents:
        if agent not in point:
            continue
        r = np.array(reps[agent]) if reps[agent] else np.full((1, 2), np.nan)
        lo, hi = np.percentile(r, [2.5, 97.5], axis=0)
        print("%s,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g" % (agent, point[agent][0], lo[0], hi[0], point[agent][1], lo[1], hi[1]))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))

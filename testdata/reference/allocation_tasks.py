#!/usr/bin/python3
"""Independent reference for analysis.AllocationCurve's task coverage (issue 24).

Usage (standard library only; from the repository root):
  /usr/bin/python3 testdata/reference/allocation_tasks.py \
    ../shared/anchors/eval-analysis-public/3a947ac7069ecb6e1fd0064cc0205e5eb9dcba0f/data/external/all_runs.jsonl \
    > testdata/reference/allocation_tasks_3a947ac.csv

Reads METR's all_runs.jsonl with json only. RE-Bench rows are those whose
task_id starts with ai_rd_; rows with a null score are dropped. A run's
length h is its time_limit in seconds, or 8 h (28800 s) for alias "human"
with time_limit 0 (rdeval allocation --human-run-length 8h); other rows
without a time limit are dropped. An agent's task set is every task with at
least one scored run (any length).

For every agent, budget T in 30m 1h 2h 4h 8h 16h 32h 64h and run length h
of the agent with T/h a whole number k >= 1, a cell covers the tasks with at
least k runs of length h (the others are left out of its mean), and
ai_rd_small_scaling_law/main whenever it has a run of length h: its
selection is random (best-of-k cannot pick), so its score@k is the mean of
its runs for every k and it is never short of runs (methods.md §1.3). Rows:
agent, budget_s, run_length_s, k, n_tasks, agent_tasks. The last comment
line counts the (agent, budget) pairs whose cells all cover fewer tasks than
the agent's task set: before issue 24 rdeval marked the best of those as
"best" anyway, so that count is the number of misleading best points.
"""
import json
import sys
from collections import defaultdict

RANDOM = {"ai_rd_small_scaling_law/main"}
BUDGETS = [1800, 3600, 7200, 14400, 28800, 57600, 115200, 230400]


def main():
    runs = defaultdict(lambda: defaultdict(lambda: defaultdict(int)))  # agent -> h -> task -> n
    tasks = defaultdict(set)
    with open(sys.argv[1]) as f:
        for line in f:
            r = json.loads(line)
            if not r["task_id"].startswith("ai_rd_") or r["score"] is None:
                continue
            h = r.get("time_limit") or 0
            if h <= 0:
                if r["alias"] != "human":
                    continue
                h = 28800
            runs[r["alias"]][h][r["task_id"]] += 1
            tasks[r["alias"]].add(r["task_id"])
    print(f"# /usr/bin/python3 testdata/reference/allocation_tasks.py <3a947ac all_runs.jsonl>; python {sys.version.split()[0]}")
    print("agent,budget_s,run_length_s,k,n_tasks,agent_tasks")
    partial_budgets = 0
    for agent in sorted(runs):
        for T in BUDGETS:
            full = False
            cells = 0
            for h in sorted(runs[agent]):
                if h > T or T % h:
                    continue
                k = T // h
                n = sum(1 for t, c in runs[agent][h].items() if c >= k or t in RANDOM)
                print(f"{agent},{T},{h},{k},{n},{len(tasks[agent])}")
                cells += 1
                full = full or n == len(tasks[agent])
            if cells and not full:
                partial_budgets += 1
    print(f"# agent budgets with no cell covering the agent's task set: {partial_budgets}")


if __name__ == "__main__":
    main()

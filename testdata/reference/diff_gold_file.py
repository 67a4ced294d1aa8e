#!/usr/bin/python3
"""Independent reference for `rdeval diff --gold-file` (cmd/rdeval/internal/diffcmd):
each SWE-bench instance's patch.diff against the gold patch of a dataset file.

Reads, with the standard library only (json, os, re), the dataset file
(JSON Lines of {instance_id, patch}) and every logs/<instance>/patch.diff under
the agent folder, and writes one CSV row per run and window:

  window,run_id,task_id,file_recall,file_precision,f1,jaccard,line_recall,
  over_edit_share,agent_files,gold_files,agent_lines_changed

run_id = the patch.diff's folder relative to the agent folder without "logs"
folders (<submission>/<instance>), task_id = the instance. Metrics as
`rdeval diff --help` defines them: A and G the sets of paths each patch
touches; file_recall |A∩G|/|G|, file_precision |A∩G|/|A|, f1 2|A∩G|/(|A|+|G|),
jaccard |A∩G|/|A∪G|. Changed base lines: within a hunk, a block (a run of -
and + lines with no context line inside) with deleted lines changes those
old-side lines; a block of added lines only changes the old-side line it
follows (0 at the top). line_recall = share of gold (path, line) pairs with an
agent line of the same path within ±window; over_edit_share = share of agent
pairs with no gold line within ±window. agent_lines_changed = added + deleted
lines. Only modified files are handled (the fixtures have no created, deleted
or renamed files; the script stops on one). Empty fields are undefined (0/0).

Usage (Debian python3, from the repository root):
  /usr/bin/python3 testdata/reference/diff_gold_file.py \
      cmd/rdeval/internal/diffcmd/testdata/swebench/gold.jsonl \
      cmd/rdeval/internal/diffcmd/testdata/swebench/evaluation/lite > testdata/reference/diff_gold_file.csv
"""
import json
import os
import platform
import re
import sys

HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def parse(text):
    """path -> (sorted changed base lines, added, deleted)."""
    files = {}
    lines = text.split("\n")
    i, path = 0, None
    while i < len(lines):
        ln = lines[i]
        if ln.startswith("--- "):
            assert ln != "--- /dev/null", "created file: not handled"
        elif ln.startswith("+++ "):
            assert ln != "+++ /dev/null", "deleted file: not handled"
            path = ln[4:].strip()[2:]
            files.setdefault(path, (set(), [0], [0]))
        elif HUNK.match(ln):
            m = HUNK.match(ln)
            old = int(m.group(1))
            o = int(m.group(2)) if m.group(2) is not None else 1
            n = int(m.group(4)) if m.group(4) is not None else 1
            changed, add, dele = files[path]
            i += 1
            block_del, block_add = [], 0
            prev = old - 1  # the last old-side line seen

            def flush():
                if block_del:
                    changed.update(block_del)
                elif block_add:
                    changed.add(block_start)

            block_start = prev
            while (o > 0 or n > 0) and i < len(lines):
                c = lines[i][:1]
                if c in "+-":
                    if not block_del and not block_add:
                        block_start = prev
                    if c == "-":
                        prev += 1
                        block_del.append(prev)
                        dele[0] += 1
                        o -= 1
                    else:
                        block_add += 1
                        add[0] += 1
                        n -= 1
                elif c == "\\":
                    pass
                else:
                    flush()
                    block_del, block_add = [], 0
                    prev += 1
                    o -= 1
                    n -= 1
                i += 1
            flush()
            continue
        i += 1
    return {p: (sorted(v[0]), v[1][0], v[2][0]) for p, v in files.items()}


def ratio(a, b):
    return "" if b == 0 else repr(a / b)


def near(x, ys, w):
    return any(abs(x - y) <= w for y in ys)


def compare(gold, agent, w):
    G, A = set(gold), set(agent)
    both = len(G & A)
    gl = [(p, x) for p in gold for x in gold[p][0]]
    al = [(p, x) for p in agent for x in agent[p][0]]
    covered = sum(1 for p, x in gl if near(x, agent.get(p, ([],))[0], w))
    over = sum(1 for p, x in al if not near(x, gold.get(p, ([],))[0], w))
    return [ratio(both, len(G)), ratio(both, len(A)), ratio(2 * both, len(A) + len(G)),
            ratio(both, len(A | G)), ratio(covered, len(gl)), ratio(over, len(al)),
            len(A), len(G), sum(a + d for _, a, d in agent.values())]


gold_file, agent_dir = sys.argv[1], sys.argv[2]
gold = {}
with open(gold_file, encoding="utf-8") as f:
    for line in f:
        if line.strip():
            r = json.loads(line)
            gold[r["instance_id"]] = parse(r["patch"])
runs = []
for d, _, names in os.walk(agent_dir):
    if "patch.diff" in names:
        rel = os.path.relpath(d, agent_dir).split(os.sep)
        with open(os.path.join(d, "patch.diff"), encoding="utf-8") as f:
            runs.append(("/".join(e for e in rel if e != "logs"), rel[-1], parse(f.read())))
print("# /usr/bin/python3 testdata/reference/diff_gold_file.py %s %s; python %s" % (gold_file, agent_dir, platform.python_version()))
print("window,run_id,task_id,file_recall,file_precision,f1,jaccard,line_recall,over_edit_share,agent_files,gold_files,agent_lines_changed")
for w in (3, 0):
    for run_id, task, agent in sorted(runs):
        print(",".join(str(x) for x in [w, run_id, task] + compare(gold[task], agent, w)))

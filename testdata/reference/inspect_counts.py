#!/usr/bin/python3
"""Independent reference for rdeval's Inspect log reader (ingest/read_inspect.go).

Reads every Inspect log (.eval zip and .json) under a folder with the standard
library only (zipfile + json) and writes one CSV row per sample and epoch:

  file      the log's path relative to the folder
  sample_id the sample's id (as Inspect writes it)
  epoch     the sample's epoch
  score     the value of the default scorer as a float: numbers as is,
            booleans 1/0, letters C/I/P/N as 1/0/0.5/0 (Inspect's
            value_to_float), "yes"/"true" 1, "no"/"false" 0, numeric strings
            parsed; empty when the sample has no such score, or the value is
            NaN (a missing score), infinite, or not convertible (list, other
            text). The default scorer is Inspect's first: results.scores[0]
            (its scorer, and its name as the key when the scorer's value is a
            dict), else the first of eval.scorers in the sample, else the
            first in sample.scores by name.
  run_base  the log's eval.eval_id, else task_id, else run_id

A log with no samples has no rows; a .json file without a top-level "version"
(logs.json, eval-set.json manifests) is not a log. json.load accepts NaN and
Infinity, as Inspect writes them. Usage (Debian python3, from the repository root):

  /usr/bin/python3 testdata/reference/inspect_counts.py ../shared/anchors/inspect_ai/tests > testdata/reference/inspect_counts.csv
  /usr/bin/python3 testdata/reference/inspect_counts.py ingest/testdata/inspect/evalset > testdata/reference/inspect_evalset.csv
"""
import csv
import json
import math
import os
import platform
import sys
import zipfile


def to_float(v):
    if isinstance(v, bool):
        return 1.0 if v else 0.0
    if isinstance(v, (int, float)):
        f = float(v)
        return None if math.isnan(f) or math.isinf(f) else f
    if isinstance(v, str):
        m = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
        if v in m:
            return m[v]
        s = v.strip().lower()
        if s in ("yes", "true"):
            return 1.0
        if s in ("no", "false"):
            return 0.0
        try:
            return float(s)
        except ValueError:
            return None
    return None


def read_log(path):
    """(header, samples) of a log; header None for a file that is not one."""
    if path.endswith(".eval"):
        with zipfile.ZipFile(path) as z:
            names = z.namelist()
            hname = "header.json" if "header.json" in names else "_journal/start.json"
            header = json.loads(z.read(hname))
            samples = [json.loads(z.read(n)) for n in names
                       if n.startswith("samples/") and n.endswith(".json")]
        return header, samples
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    if not isinstance(doc, dict) or "version" not in doc:
        return None, []
    return doc, doc.get("samples") or []


def default_scorer(header, scores):
    """(scorer, key or None) per Inspect's order."""
    res = (header.get("results") or {}).get("scores") or []
    if res:
        sc = res[0].get("scorer") or res[0].get("name")
        name = res[0].get("name")
        if sc in scores:
            v = (scores[sc] or {}).get("value")
            if isinstance(v, dict) and name in v:
                return sc, name
            return sc, None
        if name in scores:
            return name, None
    for sc in (header.get("eval") or {}).get("scorers") or []:
        if sc.get("name") in scores:
            return sc["name"], None
    return sorted(scores)[0], None


def main():
    root = sys.argv[1]
    files = []
    for d, _, names in os.walk(root):
        for n in names:
            if n.endswith(".eval") or n.endswith(".json"):
                files.append(os.path.join(d, n))
    files.sort()
    out = sys.stdout
    out.write("# /usr/bin/python3 testdata/reference/inspect_counts.py %s; python %s\n"
              % (root, platform.python_version()))
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["file", "sample_id", "epoch", "score", "run_base"])
    rows = []
    for p in files:
        rel = os.path.relpath(p, root).replace(os.sep, "/")
        header, samples = read_log(p)
        if header is None:
            continue
        ev = header.get("eval") or {}
        base = ev.get("eval_id") or ev.get("task_id") or ev.get("run_id")
        for s in samples:
            scores = s.get("scores") or {}
            score = ""
            if scores:
                sc, key = default_scorer(header, scores)
                v = (scores[sc] or {}).get("value")
                if key is not None:
                    v = v[key]
                f = to_float(v)
                if f is not None:
                    score = repr(f)
            rows.append((rel, str(s["id"]), int(s["epoch"]), score, base))
    rows.sort(key=lambda r: (r[0], r[1], r[2]))
    for r in rows:
        w.writerow(r)


if __name__ == "__main__":
    main()

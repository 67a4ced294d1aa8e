#!/usr/bin/python3
"""Independent reference for rdeval's SWE-bench and MLE-bench readers
(ingest/read_swebench.go, ingest/read_mlebench.go).

Reads the fixtures under ingest/testdata/swebench and ingest/testdata/mlebench
with the standard library only and writes, to stdout, one CSV row per run
(source,run_id,benchmark,task_id,agent,trial,outcome,error_type,score,
raw_score,score_binarized,exec_success,files_edited,lines_added,lines_deleted)
followed by summary rows (source,metric,value after a "# summary" line).

Rules (docs/data-model.md, "SWE-bench" and "MLE-bench"):
  SWE-bench experiments: instances = every list in results/results.json, the
    folders of logs/ and the ids of all_preds.jsonl. resolved -> success;
    no_generation -> no_patch "no generation"; no_logs -> exec_error
    "no logs"; otherwise the instance's logs: "Patch Apply Failed" ->
    patch_failed; a timeout line -> timeout; a report.json whose tests were
    graded (patch_successfully_applied) -> wrong_result; a report.json
    without graded tests -> exec_error "no test results".
  SWE-bench bash-only submissions (per_instance_details.json): every key is
    an instance; resolved -> success, else outcome empty (unknown cause);
    benchmark swe-bench-verified; cost kept.
  SWE-bench run report: the id lists; incomplete -> no_patch "no
    prediction", empty_patch -> no_patch "empty patch", unresolved ->
    wrong_result, error -> by the log as above ("evaluation error" else).
  score = 1 if resolved else 0. Patch line counts: lines starting with + or
    - inside hunks, each hunk read for the counts its @@ header gives.
  MLE-bench: one run per competition report; agent = the run group's
    experiment_id in mlebench/run_group_experiments.csv (else the group
    folder's name); trial = the seed: the competition's reports of that
    agent counted over the report files in sorted path order (run_id uses
    the count within the file); medal -> success; valid ->
    wrong_result; exists -> exec_error "invalid submission"; else
    exec_error "no submission". Per-seed any-medal % per agent (seed k =
    trial k), then mean and SEM (ddof=1) as
    experiments/aggregate_grading_reports.py reduces them.
"""
import csv
import glob
import json
import os
import re
import statistics
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "ingest/testdata"
out = csv.writer(sys.stdout, lineterminator="\n")
out.writerow(["source", "run_id", "benchmark", "task_id", "agent", "trial", "outcome", "error_type", "score",
              "raw_score", "score_binarized", "exec_success", "files_edited", "lines_added", "lines_deleted"])
summary = []

HUNK = re.compile(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")


def patch_stats(text):
    files, add, dele = set(), 0, 0
    lines = text.split("\n")
    i = 0
    old_path = None
    while i < len(lines):
        ln = lines[i]
        m = HUNK.match(ln)
        if m:
            o = int(m.group(1)) if m.group(1) is not None else 1
            n = int(m.group(2)) if m.group(2) is not None else 1
            i += 1
            while (o > 0 or n > 0) and i < len(lines):
                c = lines[i][:1]
                if c == "+":
                    add += 1; n -= 1
                elif c == "-":
                    dele += 1; o -= 1
                elif c == "\\":
                    pass
                else:
                    o -= 1; n -= 1
                i += 1
            continue
        if ln.startswith("--- "):
            old_path = ln[4:].split("\t")[0].strip()
        elif ln.startswith("+++ "):
            p = ln[4:].split("\t")[0].strip()
            if p == "/dev/null":
                p = old_path
            if p and p != "/dev/null":
                files.add(p[2:] if p[:2] in ("a/", "b/") else p)
        i += 1
    return ";".join(sorted(files)), add, dele


def read(p):
    with open(p, encoding="utf-8") as f:
        return f.read()


def by_log(d):
    text = ""
    for name in ("test_output.txt", "run_instance.log"):
        if os.path.exists(os.path.join(d, name)):
            text += read(os.path.join(d, name))
    if ">>>>> Patch Apply Failed" in text:
        return "patch_failed", "patch failed"
    if "Test timed out" in text or ">>>>> Tests Timed Out" in text or "Timeout error: " in text:
        return "timeout", "Execution Timeout"
    return None


def swe_row(source, run_id, bench, iid, agent, outcome, err, patch):
    files, add, dele = patch_stats(patch) if patch is not None else ("", "", "")
    score = 1 if outcome == "success" else 0
    exec_ok = outcome in ("success", "wrong_result")
    out.writerow([source, run_id, bench, iid, agent, "", outcome, err, score, "", score, str(exec_ok).lower(), files, add, dele])
    return score


# SWE-bench experiments layout
for res in sorted(glob.glob(os.path.join(root, "swebench", "**", "results", "results.json"), recursive=True)):
    sub = os.path.dirname(os.path.dirname(res))
    agent = os.path.basename(sub)
    split = os.path.basename(os.path.dirname(sub))
    bench = "swe-bench" if split == "test" else "swe-bench-" + split
    lists = json.loads(read(res))
    ids = set(i for v in lists.values() for i in v)
    preds = {}
    pp = os.path.join(sub, "all_preds.jsonl")
    if os.path.exists(pp):
        for line in read(pp).splitlines():
            if line.strip():
                r = json.loads(line)
                preds[r["instance_id"]] = r.get("model_patch")
    ids |= set(preds)
    logs = os.path.join(sub, "logs")
    ids |= set(n for n in os.listdir(logs) if os.path.isdir(os.path.join(logs, n)))
    scores = []
    for iid in sorted(ids):
        d = os.path.join(logs, iid)
        patch = preds.get(iid)
        if os.path.exists(os.path.join(d, "patch.diff")):
            patch = read(os.path.join(d, "patch.diff"))
        rep = None
        if os.path.exists(os.path.join(d, "report.json")):
            rep = json.loads(read(os.path.join(d, "report.json")))[iid]
        if iid in lists.get("resolved", []):
            o = ("success", "")
        elif iid in lists.get("no_generation", []):
            o = ("no_patch", "no generation")
        elif iid in lists.get("no_logs", []):
            o = ("exec_error", "no logs")
        else:
            o = by_log(d) if os.path.isdir(d) else None
            if o is None:
                if rep is not None and rep["patch_successfully_applied"]:
                    o = ("wrong_result", "")
                elif rep is not None:
                    o = ("exec_error", "no test results")
                else:
                    o = ("exec_error", "evaluation error" if os.path.isdir(d) else "no logs")
        scores.append(swe_row("swe-experiments", agent + "/" + iid, bench, iid, agent, o[0], o[1], patch))
    summary.append(("swe-experiments", "instances", len(scores)))
    summary.append(("swe-experiments", "resolved", sum(scores)))
    summary.append(("swe-experiments", "resolved_rate", sum(scores) / len(scores)))

# SWE-bench experiments, bash-only format: per_instance_details.json
for det in sorted(glob.glob(os.path.join(root, "swebench", "**", "per_instance_details.json"), recursive=True)):
    sub = os.path.dirname(det)
    agent = os.path.basename(sub)
    bench = "swe-bench-verified"  # evaluation/bash-only/ entries are Verified board entries
    details = json.loads(read(det))
    scores = []
    for iid in sorted(details):
        res = details[iid]["resolved"]
        score = 1 if res else 0
        scores.append(score)
        out.writerow(["swe-details", agent + "/" + iid, bench, iid, agent, "", "success" if res else "", "", score, "", score,
                      "true" if res else "", "", "", ""])
        summary.append(("swe-details", iid + " cost", repr(float(details[iid]["cost"]))))
    summary.append(("swe-details", "instances", len(scores)))
    summary.append(("swe-details", "resolved_rate", sum(scores) / len(scores)))

# SWE-bench harness run reports
for rp in sorted(glob.glob(os.path.join(root, "swebench", "harness", "*.json"))):
    rep = json.loads(read(rp))
    base = os.path.basename(rp)[:-len(".json")]
    ev = os.path.join(os.path.dirname(rp), "logs", "run_evaluation")
    run, mdir = None, None
    for r in os.listdir(ev):
        for m in os.listdir(os.path.join(ev, r)):
            if os.path.isdir(os.path.join(ev, r, m)) and m + "." + r == base:
                run, mdir = r, m
    model = mdir.replace("__", "/")
    meta = json.loads(read(os.path.join(ev, run, "run.json")))
    bench = "swe-bench-verified" if "verified" in meta["dataset"].lower() else ("swe-bench-lite" if "lite" in meta["dataset"].lower() else "swe-bench")
    cls = {}
    for k, c in (("incomplete_ids", "incomplete"), ("empty_patch_ids", "empty_patch"), ("unresolved_ids", "unresolved"),
                 ("error_ids", "error"), ("resolved_ids", "resolved")):
        for i in rep[k]:
            cls[i] = c
    scores = []
    for iid in sorted(cls):
        d = os.path.join(ev, run, mdir, iid)
        patch = read(os.path.join(d, "patch.diff")) if os.path.exists(os.path.join(d, "patch.diff")) else None
        c = cls[iid]
        if c == "resolved":
            o = ("success", "")
        elif c == "incomplete":
            o = ("no_patch", "no prediction")
        elif c == "empty_patch":
            o = ("no_patch", "empty patch")
        else:
            o = by_log(d) if os.path.isdir(d) else None
            if o is None:
                o = ("wrong_result", "") if c == "unresolved" else ("exec_error", "evaluation error")
        scores.append(swe_row("swe-harness", run + "/" + mdir + "/" + iid, bench, iid, model, o[0], o[1], patch))
    summary.append(("swe-harness", "instances", len(scores)))
    summary.append(("swe-harness", "total_instances", rep["total_instances"]))
    summary.append(("swe-harness", "resolved", sum(scores)))
    summary.append(("swe-harness", "resolved_rate", sum(scores) / rep["total_instances"]))

# MLE-bench grading reports
experiments = {}
ecsv = os.path.join(root, "mlebench", "run_group_experiments.csv")
if os.path.exists(ecsv):
    with open(ecsv, newline="") as f:
        for row in csv.DictReader(f):
            experiments[row["run_group"]] = row["experiment_id"]
seed_of = {}   # (agent, competition) -> entries so far, over sorted report paths
per_seed = {}  # (agent, seed) -> medals
for gp in sorted(glob.glob(os.path.join(root, "mlebench", "*", "*grading_report*.json"))):
    group = os.path.basename(os.path.dirname(gp))
    agent = experiments.get(group, group)
    rep = json.loads(read(gp))
    k = {}
    for cr in rep["competition_reports"]:
        cid = cr["competition_id"]
        k[cid] = k.get(cid, 0) + 1
        seed_of[(agent, cid)] = seed_of.get((agent, cid), 0) + 1
        seed = seed_of[(agent, cid)]
        if cr["any_medal"]:
            o = ("success", "")
        elif cr["valid_submission"]:
            o = ("wrong_result", "")
        elif cr["submission_exists"]:
            o = ("exec_error", "invalid submission")
        else:
            o = ("exec_error", "no submission")
        medal = 1 if cr["any_medal"] else 0
        per_seed.setdefault((agent, seed), []).append(medal)
        raw = "" if cr["score"] is None else repr(cr["score"])
        out.writerow(["mle", f"{group}/{cid}/{k[cid]}", "mle-bench", cid, agent, seed, o[0], o[1], "", raw, medal,
                      str(cr["valid_submission"]).lower(), "", "", ""])
for agent in sorted(set(a for a, _ in per_seed)):
    pct = [100 * sum(v) / len(v) for (a, _), v in sorted(per_seed.items()) if a == agent]
    summary.append(("mle", agent + " seeds", len(pct)))
    summary.append(("mle", agent + " any_medal_pct_mean", statistics.mean(pct)))
    summary.append(("mle", agent + " any_medal_pct_sem", statistics.stdev(pct) / len(pct) ** 0.5))

sys.stdout.write("# summary\n")
for s in summary:
    out.writerow([s[0], s[1], repr(s[2]) if isinstance(s[2], float) else s[2]])

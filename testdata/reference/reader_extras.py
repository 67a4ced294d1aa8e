#!/usr/bin/python3
"""Independent reference for the runs table's extras column (ingest/extras.go)
as the Harbor, terminal-bench, SWE-bench, MLE-bench and Inspect readers fill it.

Reads the fixtures with the standard library only (os, json, zipfile) and
writes one JSON object per run, sorted by run_id:
  {"run_id": ..., "extras": <the run's extras object, or null>}

Rules (docs/data-model.md, "The extras column"): the source record less the
fields a column holds, an object emptied by the removal removed too; null
when nothing is left.
  Harbor: the trial result.json less task_name, trial_name, source,
    task_checksum, agent_info.name, config.agent.model_name,
    agent_result.cost_usd, exception_info.exception_type, started_at,
    finished_at and the scored reward (the only key of
    verifier_result.rewards, else "reward").
  terminal-bench: each entry of the run's results.json (the trials' own
    files when it has none) less trial_name, task_id, is_resolved,
    failure_mode, trial_started_at, trial_ended_at.
  SWE-bench: {"lists": the results.json lists naming the instance (sorted
    by list name) or, for a run report, [its class + "_ids"], "report": its
    report.json entry, "details": its per_instance_details.json entry less
    cost}, each only when present and non-empty.
  MLE-bench: each competition report less competition_id, score,
    any_medal, valid_submission, submission_exists, created_at,
    is_lower_better, gold_threshold, median_threshold.
  Inspect (deflate .eval and .json logs; --inspect DIR): {"metadata": the
    sample's metadata} when it is a non-empty object.

The Go test compares the objects after decoding both (numbers as float64),
so number spellings do not matter; extras.go's own tests pin the bytes.

Usage (Debian python3, from the repository root):
  /usr/bin/python3 testdata/reference/reader_extras.py ingest/testdata > testdata/reference/reader_extras.jsonl
  /usr/bin/python3 testdata/reference/reader_extras.py --inspect ../shared/anchors/inspect_ai/tests/scorer/logs > testdata/reference/reader_extras_inspect.jsonl
"""
import glob
import json
import os
import platform
import sys
import zipfile


def read_json(p):
    with open(p, encoding="utf-8") as f:
        return json.load(f)


def without(obj, paths):
    obj = json.loads(json.dumps(obj))  # a deep copy

    def delete(m, keys):
        if len(keys) == 1:
            m.pop(keys[0], None)
            return
        sub = m.get(keys[0])
        if not isinstance(sub, dict):
            return
        delete(sub, keys[1:])
        if not sub:
            del m[keys[0]]

    for p in paths:
        delete(obj, p.split("."))
    return obj or None


rows = []


def emit(run_id, extras):
    rows.append({"run_id": run_id, "extras": extras})


HARBOR = ["task_name", "trial_name", "source", "task_checksum", "agent_info.name", "config.agent.model_name",
          "agent_result.cost_usd", "exception_info.exception_type", "started_at", "finished_at"]
TB = ["trial_name", "task_id", "is_resolved", "failure_mode", "trial_started_at", "trial_ended_at"]
MLE = ["competition_id", "score", "any_medal", "valid_submission", "submission_exists", "created_at",
       "is_lower_better", "gold_threshold", "median_threshold"]


def harbor(jobs):
    for job in sorted(os.listdir(jobs)):
        jd = os.path.join(jobs, job)
        name = read_json(os.path.join(jd, "config.json")).get("job_name") or job
        for trial in sorted(os.listdir(jd)):
            p = os.path.join(jd, trial, "result.json")
            if not os.path.isfile(p):
                continue
            t = read_json(p)
            paths = list(HARBOR)
            rewards = (t.get("verifier_result") or {}).get("rewards")
            if rewards:
                key = list(rewards)[0] if len(rewards) == 1 else "reward"
                paths.append("verifier_result.rewards." + key)
            emit(name + "/" + t["trial_name"], without(t, paths))


def tb(runs):
    for run in sorted(os.listdir(runs)):
        rd = os.path.join(runs, run)
        meta = read_json(os.path.join(rd, "run_metadata.json"))
        rid = meta.get("run_id") or run
        if os.path.isfile(os.path.join(rd, "results.json")):
            trials = read_json(os.path.join(rd, "results.json"))["results"]
        else:
            trials = [read_json(p) for p in sorted(glob.glob(os.path.join(rd, "*", "*", "results.json")))]
        for t in trials:
            emit(rid + "/" + t["trial_name"], without(t, TB))


def swe_extras(lists, report, details):
    m = {}
    if lists:
        m["lists"] = lists
    if report:
        m["report"] = report
    if details:
        d = dict(details)
        d.pop("cost", None)
        if d:
            m["details"] = d
    return m or None


def swe(root):
    for res in sorted(glob.glob(os.path.join(root, "**", "results", "results.json"), recursive=True)):
        sub = os.path.dirname(os.path.dirname(res))
        agent = os.path.basename(sub)
        lists = read_json(res)
        ids = set(i for v in lists.values() for i in v)
        pp = os.path.join(sub, "all_preds.jsonl")
        if os.path.exists(pp):
            with open(pp) as f:
                ids |= set(json.loads(ln)["instance_id"] for ln in f if ln.strip())
        logs = os.path.join(sub, "logs")
        ids |= set(n for n in os.listdir(logs) if os.path.isdir(os.path.join(logs, n)))
        for iid in sorted(ids):
            rp = os.path.join(logs, iid, "report.json")
            rep = read_json(rp)[iid] if os.path.exists(rp) else None
            emit(agent + "/" + iid, swe_extras(sorted(k for k, v in lists.items() if iid in v), rep, None))
    for det in sorted(glob.glob(os.path.join(root, "**", "per_instance_details.json"), recursive=True)):
        sub = os.path.dirname(det)
        details = read_json(det)
        for iid in sorted(details):
            emit(os.path.basename(sub) + "/" + iid, swe_extras(None, None, details[iid]))
    for rp in sorted(glob.glob(os.path.join(root, "harness", "*.json"))):
        rep = read_json(rp)
        base = os.path.basename(rp)[:-len(".json")]
        ev = os.path.join(os.path.dirname(rp), "logs", "run_evaluation")
        run = mdir = None
        for r in os.listdir(ev):
            for m in os.listdir(os.path.join(ev, r)):
                if os.path.isdir(os.path.join(ev, r, m)) and m + "." + r == base:
                    run, mdir = r, m
        for k in ("incomplete_ids", "empty_patch_ids", "unresolved_ids", "error_ids", "resolved_ids"):
            for iid in rep[k]:
                p = os.path.join(ev, run, mdir, iid, "report.json")
                r = read_json(p)[iid] if os.path.exists(p) else None
                emit(run + "/" + mdir + "/" + iid, swe_extras([k], r, None))


def mle(root):
    for rp in sorted(glob.glob(os.path.join(root, "*", "*grading_report*.json"))):
        group = os.path.basename(os.path.dirname(rp))
        seen = {}
        for cr in read_json(rp)["competition_reports"]:
            cid = cr["competition_id"]
            seen[cid] = seen.get(cid, 0) + 1
            emit("%s/%s/%d" % (group, cid, seen[cid]), without(cr, MLE))


def inspect(root):
    for p in sorted(glob.glob(os.path.join(root, "**", "*"), recursive=True)):
        samples, ev = [], None
        if p.endswith(".eval"):
            z = zipfile.ZipFile(p)
            try:
                ev = json.loads(z.read("header.json"))["eval"]
                samples = [json.loads(z.read(n)) for n in z.namelist() if n.startswith("samples/")]
            except NotImplementedError:  # zstd members: Python 3.11's zipfile has no zstd
                continue
        elif p.endswith(".json"):
            d = read_json(p)
            if not isinstance(d, dict) or "version" not in d:
                continue
            ev, samples = d["eval"], d.get("samples") or []
        else:
            continue
        base = ev.get("eval_id") or ev.get("task_id") or ev.get("run_id")
        for s in samples:
            md = s.get("metadata")
            emit("%s/%s/%d" % (base, s["id"], s.get("epoch") or 1),
                 {"metadata": md} if isinstance(md, dict) and md else None)


args = sys.argv[1:]
if args[:1] == ["--inspect"]:
    inspect(args[1])
    cmd = "--inspect " + args[1]
else:
    root = args[0] if args else "ingest/testdata"
    harbor(os.path.join(root, "harbor", "jobs"))
    tb(os.path.join(root, "terminalbench", "runs"))
    swe(os.path.join(root, "swebench"))
    mle(os.path.join(root, "mlebench"))
    cmd = root
print("# /usr/bin/python3 testdata/reference/reader_extras.py %s; python %s" % (cmd, platform.python_version()))
for r in sorted(rows, key=lambda r: r["run_id"]):
    print(json.dumps(r, sort_keys=True))

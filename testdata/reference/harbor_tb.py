#!/usr/bin/python3
"""Independent reference for rdeval's Harbor and terminal-bench readers
(ingest/read_harbor.go, ingest/read_terminalbench.go).

Reads the fixture folders with the standard library only (os + json) and
writes two CSV files:

harbor_tb_runs.csv, one row per trial:
  reader       harbor | terminal-bench
  run_id       Harbor: job_name (config.json) + "/" + trial_name;
               terminal-bench: run_metadata.run_id + "/" + trial_name
  task_id      Harbor task_name; terminal-bench task_id
  agent        agent name + " + " + model name (the agent name alone without a model)
  score        Harbor: the reward Harbor's Mean metric (harbor/metrics/mean.py)
               takes: the only key of verifier_result.rewards, else "reward";
               0 without a verifier result. terminal-bench: 1 if is_resolved
               is true else 0 (as tb's accuracy counts it)
  success      1 if score == 1, 0 if score == 0, empty otherwise
  outcome      see the readers' doc comments; derived here from the raw fields
  tokens       Harbor n_input_tokens + n_output_tokens; tb total_input_tokens +
               total_output_tokens; empty when both are null
  cost_usd     Harbor agent_result.cost_usd; empty for tb
  duration_s   finished/ended minus started, in seconds (3 decimals)

harbor_tb_summary.csv, one row per Harbor job and tb run:
  reader, source (job or run folder), n_runs, mean_score (over the rows above),
  reported (the harness's own figure: Harbor's job result.json
  stats.evals[*].metrics[0].mean; tb's results.json accuracy; empty when the
  folder has none)

Usage (Debian python3, from the repository root):

  /usr/bin/python3 testdata/reference/harbor_tb.py ingest/testdata/harbor/jobs ingest/testdata/terminalbench/runs testdata/reference
"""
import csv
import datetime
import json
import os
import platform
import sys


def iso(s):
    if s is None:
        return None
    s = s.replace("Z", "+00:00")
    t = datetime.datetime.fromisoformat(s)
    if t.tzinfo is None:
        t = t.replace(tzinfo=datetime.timezone.utc)  # Harbor writes local time without an offset
    return t


def dur(a, b):
    a, b = iso(a), iso(b)
    if a is None or b is None:
        return ""
    return "%.3f" % (b - a).total_seconds()


def num(x):
    if x is None:
        return ""
    return repr(float(x))


def tokens(a, b):
    if a is None and b is None:
        return ""
    return repr(float((a or 0) + (b or 0)))


def harbor(jobs_dir, rows, summary):
    for job in sorted(os.listdir(jobs_dir)):
        jd = os.path.join(jobs_dir, job)
        with open(os.path.join(jd, "config.json")) as f:
            job_name = json.load(f).get("job_name") or job
        scores = []
        for trial in sorted(os.listdir(jd)):
            p = os.path.join(jd, trial, "result.json")
            if not os.path.isfile(p):
                continue
            with open(p) as f:
                t = json.load(f)
            vr = t.get("verifier_result")
            rewards = vr.get("rewards") if vr else None
            if rewards is None:
                score = 0.0
            elif len(rewards) == 1:
                score = float(list(rewards.values())[0])
            else:
                score = float(rewards["reward"])
            exc = t.get("exception_info")
            if score == 1:
                outcome = "success"
            elif exc and exc["exception_type"] in ("AgentTimeoutError", "VerifierTimeoutError"):
                outcome = "timeout"
            elif exc:
                outcome = "exec_error"
            elif score == 0:
                outcome = "wrong_result"
            else:
                outcome = ""
            ai = t["agent_info"]
            model = (t.get("config") or {}).get("agent", {}).get("model_name")
            if not model and ai.get("model_info"):
                model = ai["model_info"]["provider"] + "/" + ai["model_info"]["name"]
            agent = ai["name"] + (" + " + model if model else "")
            ar = t.get("agent_result") or {}
            rows.append({
                "reader": "harbor", "run_id": job_name + "/" + t["trial_name"], "task_id": t["task_name"],
                "agent": agent, "score": repr(score),
                "success": "1" if score == 1 else ("0" if score == 0 else ""),
                "outcome": outcome, "tokens": tokens(ar.get("n_input_tokens"), ar.get("n_output_tokens")),
                "cost_usd": num(ar.get("cost_usd")), "duration_s": dur(t.get("started_at"), t.get("finished_at")),
            })
            scores.append(score)
        reported = ""
        rp = os.path.join(jd, "result.json")
        if os.path.isfile(rp):
            with open(rp) as f:
                evals = json.load(f)["stats"]["evals"]
            means = [e["metrics"][0]["mean"] for e in evals.values()]
            if len(means) == 1:
                reported = repr(float(means[0]))
        summary.append({"reader": "harbor", "source": job, "n_runs": len(scores),
                        "mean_score": repr(sum(scores) / len(scores)), "reported": reported})


def tb(runs_dir, rows, summary):
    for run in sorted(os.listdir(runs_dir)):
        rd = os.path.join(runs_dir, run)
        with open(os.path.join(rd, "run_metadata.json")) as f:
            meta = json.load(f)
        rp = os.path.join(rd, "results.json")
        reported = ""
        if os.path.isfile(rp):
            with open(rp) as f:
                doc = json.load(f)
            trials = doc["results"]
            reported = repr(float(doc["accuracy"]))
        else:
            trials = []
            for task in sorted(os.listdir(rd)):
                td = os.path.join(rd, task)
                if not os.path.isdir(td):
                    continue
                for trial in sorted(os.listdir(td)):
                    p = os.path.join(td, trial, "results.json")
                    if os.path.isfile(p):
                        with open(p) as f:
                            trials.append(json.load(f))
        agent = meta["agent_name"] + (" + " + meta["model_name"] if meta.get("model_name") else "")
        scores = []
        for t in trials:
            res = t.get("is_resolved")
            fm = t.get("failure_mode") or "unset"
            score = 1.0 if res is True else 0.0
            if res is True:
                outcome = "success"
            elif fm in ("agent_timeout", "test_timeout"):
                outcome = "timeout"
            elif fm in ("unset", "none") and res is False:
                outcome = "wrong_result"
            else:
                outcome = "exec_error"
            rows.append({
                "reader": "terminal-bench", "run_id": (meta.get("run_id") or run) + "/" + t["trial_name"],
                "task_id": t["task_id"], "agent": agent, "score": repr(score),
                "success": "1" if score == 1 else "0", "outcome": outcome,
                "tokens": tokens(t.get("total_input_tokens"), t.get("total_output_tokens")), "cost_usd": "",
                "duration_s": dur(t.get("trial_started_at"), t.get("trial_ended_at")),
            })
            scores.append(score)
        summary.append({"reader": "terminal-bench", "source": run, "n_runs": len(scores),
                        "mean_score": repr(sum(scores) / len(scores)), "reported": reported})


def write(path, fields, rows, cmd):
    with open(path, "w", newline="") as f:
        f.write("# %s; python %s\n" % (cmd, platform.python_version()))
        w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


def main():
    jobs_dir, runs_dir, out = sys.argv[1:4]
    rows, summary = [], []
    harbor(jobs_dir, rows, summary)
    tb(runs_dir, rows, summary)
    cmd = "/usr/bin/python3 testdata/reference/harbor_tb.py " + " ".join(sys.argv[1:])
    write(os.path.join(out, "harbor_tb_runs.csv"),
          ["reader", "run_id", "task_id", "agent", "score", "success", "outcome", "tokens", "cost_usd", "duration_s"], rows, cmd)
    write(os.path.join(out, "harbor_tb_summary.csv"), ["reader", "source", "n_runs", "mean_score", "reported"], summary, cmd)


if __name__ == "__main__":
    main()

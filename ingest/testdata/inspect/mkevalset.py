#!/usr/bin/python3
"""Write ingest/testdata/inspect/evalset/: an `inspect eval-set` log folder.

No public eval-set folder with several models and samples was found
(inspect_ai's tests/test_eval_set/ holds two sample-less logs of one task), so
this one is derived from a real log, inspect_ai @499e6152
tests/analysis/test_logs/2025-05-12T20-28-13-04-00_popularity.json (MIT,
3 samples, log version 2), following Inspect's own schema
(src/inspect_ai/log/_log.py EvalLog/EvalSpec; _eval/evalset.py EvalSet and
EvalSetTask for eval-set.json; log/_file.py write_log_dir_manifest for
logs.json: log headers keyed by file name):

  * two logs of the same task for two models, as one eval-set writes them:
    the same eval.run_id and eval_set_id, their own eval_id and task_id;
    one as .json, one as .eval (zip, deflate, as Inspect < 0.3.206 wrote);
  * sample fields rdeval does not read (messages, output, store,
    attachments, events' bodies) are dropped to keep the files small;
  * the second model's scores are changed (sample 2 I, sample 3 NaN), and
    NaN / Infinity are written where Inspect writes them (ser_json_inf_nan=
    "constants"): NaN stderr metrics, a -Infinity metric (added), an
    Infinity working_time;
  * logs.json and eval-set.json as Inspect writes them.

Run from the repository root: /usr/bin/python3 ingest/testdata/inspect/mkevalset.py
"""
import copy
import json
import os
import sys
import zipfile

SRC = "../shared/anchors/inspect_ai/tests/analysis/test_logs/2025-05-12T20-28-13-04-00_popularity.json"
OUT = "ingest/testdata/inspect/evalset"
RUN_ID = "7KyCuAQSqp76qKQZEKmG6M"  # the source log's run_id, now shared
SET_ID = "PopSet26Apr20aaaaaaaaaa"
DROP = ("messages", "output", "store", "attachments", "input", "target", "metadata")


def trim(sample):
    for k in DROP:
        sample.pop(k, None)
    sample["events"] = [{k: e[k] for k in ("timestamp", "event", "working_start") if k in e}
                        for e in sample.get("events", [])]
    return sample


def main():
    with open(SRC, encoding="utf-8") as f:
        src = json.load(f)
    src["samples"] = [trim(s) for s in src["samples"]]
    os.makedirs(OUT, exist_ok=True)

    a = copy.deepcopy(src)
    a["eval"].update(eval_set_id=SET_ID, run_id=RUN_ID)  # eval_id, task_id, model as in the source
    for sc in a["results"]["scores"]:
        if "stderr" in sc["metrics"]:
            sc["metrics"]["stderr"]["value"] = float("nan")
        sc["metrics"]["min_margin"] = {"name": "min_margin", "value": float("-inf"), "params": {}}

    b = copy.deepcopy(src)
    b["eval"].update(eval_set_id=SET_ID, run_id=RUN_ID, eval_id="BnKtvCqGnnegLQ7qSBFDzy",
                     task_id="BtTeKV9GPJi8gTfN3Garu5", model="anthropic/claude-3-5-haiku-latest")
    b["samples"][1]["scores"]["match"]["value"] = "I"
    b["samples"][2]["scores"]["match"]["value"] = float("nan")
    b["samples"][2]["working_time"] = float("inf")
    for sc in b["results"]["scores"]:
        if "stderr" in sc["metrics"]:
            sc["metrics"]["stderr"]["value"] = float("nan")

    name_a = "2025-05-12T20-28-13-04-00_popularity_RtTeKV9GPJi8gTfN3Garu5.json"
    name_b = "2025-05-12T20-28-14-04-00_popularity_BtTeKV9GPJi8gTfN3Garu5.eval"
    with open(os.path.join(OUT, name_a), "w", encoding="utf-8") as f:
        json.dump(a, f, indent=2)  # allow_nan: NaN/Infinity as Inspect writes them

    header_b = {k: v for k, v in b.items() if k not in ("samples", "reductions")}
    with zipfile.ZipFile(os.path.join(OUT, name_b), "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("_journal/start.json", json.dumps({k: header_b[k] for k in ("version", "eval", "plan")}))
        for s in b["samples"]:
            z.writestr("samples/%s_epoch_%d.json" % (s["id"], s["epoch"]), json.dumps(s))
        z.writestr("reductions.json", json.dumps(b.get("reductions", [])))
        z.writestr("header.json", json.dumps(header_b, indent=2))

    header_a = {k: v for k, v in a.items() if k not in ("samples", "reductions")}
    with open(os.path.join(OUT, "logs.json"), "w", encoding="utf-8") as f:
        json.dump({name_a: header_a, name_b: header_b}, f, indent=2)
    tasks = []
    for i, h in enumerate((header_a, header_b)):
        e = h["eval"]
        tasks.append({"name": e["task"], "task_id": e["task_id"], "task_file": e.get("task_file"),
                      "task_args": e.get("task_args", {}), "model": e["model"],
                      "model_args": e.get("model_args", {}), "sequence": i})
    with open(os.path.join(OUT, "eval-set.json"), "w", encoding="utf-8") as f:
        json.dump({"eval_set_id": SET_ID, "tasks": tasks}, f, indent=2)


if __name__ == "__main__":
    sys.exit(main())

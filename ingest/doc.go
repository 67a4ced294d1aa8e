// Package ingest reads the raw runs of AI research-agent benchmarks into
// rdeval's three tables and writes them as Parquet or Arrow IPC files.
//
// # Tables
//
// The data model (full column list with types in docs/data-model.md; the
// Arrow schemas are RunsSchema, ScoreLogSchema and TasksSchema):
//
//   - runs: one row per attempt of an agent or human at a task (Run).
//     Required: run_id (unique), benchmark, task_id, agent, kind (agent or
//     human), source_file, source_line. Everything else is nullable:
//     missing data is null, never 0.
//   - score_log: one row per call of a task's scorer during a run
//     (ScoreEntry): run_id, elapsed_s (pauses excluded), scored_at,
//     raw_score (NaN = invalid attempt), message.
//   - tasks: one row per task (Task): scoring direction, the rule that turns a
//     score log into a final score, y_start/y_ref for normalization, gold
//     values and gold files. Built-in catalogs (catalogs/*.yaml, embedded)
//     cover the 7 public RE-Bench tasks and the 12 RExBench tasks; a YAML
//     file can add or override tasks (Catalog.LoadCatalogFile).
//
// Timestamps are UTC with microsecond precision. Files carry key-value
// metadata rdeval.table, rdeval.schema_version (SchemaVersion) and
// rdeval.version.
//
// # Readers
//
// Load detects each input's format from its content (after undoing gzip and
// a UTF-8 byte-order mark), not from its name:
//
//   - metr-runs: METR's all_runs.jsonl (eval-analysis-public) and the newer
//     runs.jsonl schema (score_cont, task_source, scaffold, tokens_count, …).
//     alias becomes agent; benchmark comes from task_source, else re-bench
//     for ai_rd_* families, else hcast; alias "human" is kind human.
//   - score-log-csv: METR task-protected-scoring score.log
//     (timestamp,score,message,details); the run id is the folder's name.
//   - score-log-jsonl: run_id, elapsed_s | elapsedTime (ms) | timestamp,
//     score, message (also as CSV with those columns).
//   - rexbench-runs: RExBench per-run records (JSONL or CSV).
//   - rexbench-task-table: the RExBench paper's per-task rates, from which
//     per-run records are reconstructed.
//   - generic: any CSV or JSONL whose columns are runs column names, or are
//     mapped to them with Options.Map.
//   - rdeval-parquet, rdeval-arrow: tables rdeval wrote.
//   - rdeval-execute: the runs/<run_id>/result.json files of a folder that
//     `rdeval execute run` wrote (see read_execute.go for the mapping).
//   - inspect-eval, inspect-json: Inspect evaluation logs (.eval zip archives
//     read sample by sample, .json documents streamed); one run per log ×
//     sample × epoch (see read_inspect.go for the mapping).
//   - harbor: the <trial>/result.json files of a Harbor job folder, one run
//     per trial (see read_harbor.go).
//   - terminal-bench: a terminal-bench 0.2 run's results.json, or its
//     trials' own results.json when it has none; the agent comes from
//     run_metadata.json (see read_terminalbench.go).
//   - swe-bench: SWE-bench evaluations, one run per instance of the
//     evaluation: a SWE-bench/experiments submission (results/results.json,
//     logs/<instance>/, all_preds.jsonl) or the harness's run report
//     <model>.<run_id>.json with logs/run_evaluation/ beside it (see
//     read_swebench.go).
//   - mle-bench: MLE-bench grading reports (*_grading_report.json), one run
//     per competition report; trial = the seed (see read_mlebench.go).
//
// Readers stream: lines are parsed in place (internal/jsonline for JSON
// Lines, internal/csvline for CSV), so a 10 MB line or a 10^7-row score log
// costs no more than its own bytes. Plain JSON Lines runs files of 1 MiB
// or more are mapped and parsed in parallel (read_parallel.go); with
// Options.WriteOnly, as `rdeval ingest` sets it, their runs go straight
// into the runs table's columns (run_store.go) and Dataset.Runs stays nil.
//
// # Bad input
//
// A bad record never stops the read. It becomes an *Error naming the file,
// line (and column or field) and what was expected, e.g.
//
//	all_runs.jsonl:1203: field "score": want number, got string "n/a"
//
// and a Rejected entry holding the record. Dataset.Err reports them all;
// WriteDataset refuses to write a dataset with errors unless SkipBad is set,
// in which case it writes the good records and rejected.jsonl. Every file is
// written to a temporary name and renamed, so a crash leaves no half file.
//
// Package ingest imports no other rdeval package.
package ingest

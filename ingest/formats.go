package ingest

import (
	"bytes"
	"strings"

	"github.com/rdeval/rdeval/ingest/internal/jsonline"
)

// Reader names, as recorded in the manifest and accepted by Options.Reader.
const (
	ReaderMETR           = "metr-runs"           // METR all_runs.jsonl / runs.jsonl
	ReaderScoreLogCSV    = "score-log-csv"       // METR task-protected-scoring score.log
	ReaderScoreLogJSONL  = "score-log-jsonl"     // run_id, elapsed_s|elapsedTime, score, message
	ReaderRExBenchRuns   = "rexbench-runs"       // per-run RExBench records (JSONL or CSV)
	ReaderRExBenchTable  = "rexbench-task-table" // the paper's per-task rates (CSV)
	ReaderGeneric        = "generic"             // any CSV/JSONL with a column mapping
	ReaderRdevalParquet  = "rdeval-parquet"      // a table rdeval wrote
	ReaderRdevalArrowIPC = "rdeval-arrow"        // a table rdeval wrote
)

// Readers lists the reader names in documentation order.
var Readers = []string{ReaderMETR, ReaderScoreLogCSV, ReaderScoreLogJSONL, ReaderRExBenchRuns,
	ReaderRExBenchTable, ReaderGeneric, ReaderRdevalParquet, ReaderRdevalArrowIPC, ReaderInspectEval, ReaderInspectJSON, ReaderExecute,
	ReaderHarbor, ReaderTerminalBench, ReaderSWEBench, ReaderMLEBench}

// metrKeys maps METR run-file keys (both the all_runs.jsonl and the newer
// runs.jsonl schema) to runs columns.
var metrKeys = map[string]string{
	"run_id": "run_id", "task_id": "task_id", "task_family": "task_family",
	"alias": "agent", "model": "model", "score": "score", "score_cont": "score",
	"score_binarized": "score_binarized", "time_limit": "time_limit_s",
	"started_at": "started_at", "completed_at": "completed_at",
	"human_minutes": "human_minutes", "dollar_equivalent": "cost_usd",
	"generation_cost": "cost_usd", "total_tokens": "tokens", "tokens_count": "tokens",
	"equal_task_weight": "equal_task_weight", "invsqrt_task_weight": "invsqrt_task_weight",
	"task_source": "benchmark", "scaffold": "scaffold", "task_version": "task_version",
}

// metrIgnored are METR keys rdeval reads but does not keep per run
// (human_score becomes the task's human_reference).
var metrIgnored = map[string]bool{
	"fatal_error_from": true, "human_score": true, "human_source": true,
	"human_cost": true, "cloned": true,
}

// rexKeys maps RExBench per-run record keys to runs columns.
var rexKeys = map[string]string{
	"run_id": "run_id", "framework": "scaffold", "scaffold": "scaffold", "agent": "agent",
	"model": "model", "hint_level": "hint_level", "task": "task_id", "task_id": "task_id",
	"trial": "trial", "run": "trial", "seed": "seed", "outcome": "outcome",
	"final_success": "final_success", "exec_success": "exec_success",
	"execution_success": "exec_success", "error_type": "error_type",
	"files_edited": "files_edited", "lines_added": "lines_added", "lines_deleted": "lines_deleted",
	"result_value": "result_value", "file_recall": "file_recall",
}

// sniffJSON picks a reader from the keys of the first JSON line.
func sniffJSON(line []byte) string {
	keys := map[string]bool{}
	jsonline.ParseObject(line, func(k []byte, _ jsonline.Value) error {
		keys[string(k)] = true
		return nil
	})
	switch {
	case keys["alias"] && keys["task_id"] && (keys["score"] || keys["score_cont"]):
		return ReaderMETR
	case keys["run_id"] && !keys["task_id"] && (keys["score"] || keys["raw_score"]) &&
		(keys["elapsed_s"] || keys["elapsedTime"] || keys["elapsed"] || keys["scored_at"] || keys["timestamp"]):
		return ReaderScoreLogJSONL
	case !keys["run_id"] && !keys["task_id"] && keys["score"] && (keys["timestamp"] || keys["elapsed_s"] || keys["elapsedTime"]):
		return ReaderScoreLogJSONL // a per-run score log; the run id comes from the folder or --run-id
	case keys["framework"] && keys["hint_level"]:
		return ReaderRExBenchRuns
	}
	return ReaderGeneric
}

// sniffCSV picks a reader from a CSV header.
func sniffCSV(header []string) string {
	has := map[string]bool{}
	for _, h := range header {
		has[strings.TrimSpace(h)] = true
	}
	switch {
	case len(header) >= 2 && header[0] == "timestamp" && header[1] == "score":
		return ReaderScoreLogCSV
	case has["framework"] && has["hint_level"] && has["final_success"] && has["execution_success"] &&
		!has["run_id"] && !has["trial"]:
		return ReaderRExBenchTable
	case has["framework"] && has["hint_level"]:
		return ReaderRExBenchRuns
	case has["alias"] && has["task_id"] && (has["score"] || has["score_cont"]):
		return ReaderMETR
	case has["run_id"] && !has["task_id"] && (has["score"] || has["raw_score"]) &&
		(has["elapsed_s"] || has["elapsedTime"] || has["elapsed"] || has["scored_at"] || has["timestamp"]):
		return ReaderScoreLogJSONL // same columns, CSV syntax
	}
	return ReaderGeneric
}

// looksJSON reports whether a first line starts a JSON value.
func looksJSON(line []byte) bool {
	t := bytes.TrimLeft(line, " \t")
	return len(t) > 0 && (t[0] == '{' || t[0] == '[')
}

package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"time"
)

// ReaderExecute reads the result.json files that `rdeval execute run`
// writes (RUNDIR/runs/<run_id>/result.json): one run each.
const ReaderExecute = "rdeval-execute"

// executeAbsent marks seed, repeat, lines_added and lines_deleted not
// recorded (wall_s: NaN, which JSON cannot hold): json.Unmarshal leaves a
// field as it was when its key is missing or null, so readExecuteResult
// starts from these values and keeps a field that still holds one unset.
const executeAbsent = math.MinInt32

// looksExecuteResult reports whether a JSON document's first bytes look
// like an execute result.json (run_id, patch_sha256 and outcome keys).
func looksExecuteResult(head []byte) bool {
	return bytes.Contains(head, []byte(`"run_id"`)) && bytes.Contains(head, []byte(`"patch_sha256"`)) && bytes.Contains(head, []byte(`"outcome"`))
}

// readExecuteResult maps one result.json to a run:
//
//	run_id, task_id, seed, trial = repeat (1-based), outcome (resource_limit
//	becomes exec_error with error_type "resource_limit: <reason>"; final_success
//	and exec_success follow from it), error_type = the first line of reason
//	for failed runs, result_value = the metric when there is exactly one,
//	files_edited, lines_added, lines_deleted, started_at, completed_at,
//	duration_s = wall_s; agent = the result's agent, else "framework +
//	model" when both are set, else the name of the folder holding the patch
//	file (patches/<agent>/… layouts); scaffold = framework, model, hint_level
//	= hint; benchmark = --benchmark or "rexbench".
func (l *loader) readExecuteResult(path string, r io.Reader, st *InputStats) {
	st.Reader = ReaderExecute
	st.RowsRead++
	b, err := io.ReadAll(io.LimitReader(r, 64<<20))
	if err != nil {
		l.fileErr(path, err)
		return
	}
	// Unknown fields are fine: a newer execute may record more.
	res := ExecuteResult{Seed: executeAbsent, Repeat: executeAbsent, WallS: math.NaN(), LinesAdded: executeAbsent, LinesDeleted: executeAbsent}
	if err := json.Unmarshal(b, &res); err != nil {
		l.reject(st, &Error{File: path, Msg: "not a valid execute result.json: " + err.Error()}, b)
		return
	}
	run := Run{RunID: res.RunID, TaskID: res.TaskID, Benchmark: "rexbench", Kind: "agent", SourceFile: path, SourceLine: 1}
	switch {
	case res.Agent != "":
		run.Agent = res.Agent
	case res.Framework != "" && res.Model != "":
		run.Agent = res.Framework + " + " + res.Model // RExBench's agent = framework + model
	case res.PatchFile != "":
		run.Agent = filepath.Base(filepath.Dir(res.PatchFile))
	}
	if res.Framework != "" {
		run.Scaffold = Some(res.Framework)
	}
	if res.Model != "" {
		run.Model = Some(res.Model)
	}
	if res.Hint != "" {
		run.HintLevel = Some(res.Hint)
	}
	if run.Agent == "" || run.Agent == "." || run.Agent == "/" {
		run.Agent = "unknown"
	}
	if res.Seed != executeAbsent {
		run.Seed = Some(res.Seed)
	}
	if res.Repeat != executeAbsent {
		run.Trial = Some(int64(res.Repeat)) // execute numbers repeats from 1
	}
	outcome := res.Outcome
	if outcome == "resource_limit" {
		// Killed for exceeding its process or memory limit: an execution
		// failure in RExBench's taxonomy; error_type keeps which limit.
		outcome = "exec_error"
		res.Reason = "resource_limit: " + res.Reason
	}
	if outcome != "" {
		if err := setOutcome(&run, csvCell(outcome)); err != nil {
			l.reject(st, &Error{File: path, Field: "outcome", Msg: err.Error()}, b)
			return
		}
	}
	if res.Outcome != "success" && res.Reason != "" {
		first, _, _ := strings.Cut(strings.TrimSpace(res.Reason), "\n")
		run.ErrorType = Some(truncate(first, 200))
	}
	if len(res.Metrics) == 1 {
		for _, v := range res.Metrics {
			run.ResultValue = Some(v)
		}
	}
	if res.FilesEdited != nil {
		run.FilesEdited = res.FilesEdited
	}
	if res.LinesAdded != executeAbsent {
		run.LinesAdded = Some(int64(res.LinesAdded))
	}
	if res.LinesDeleted != executeAbsent {
		run.LinesDeleted = Some(int64(res.LinesDeleted))
	}
	if !math.IsNaN(res.WallS) {
		run.DurationS = Some(res.WallS)
	}
	for _, tf := range []struct {
		s   string
		dst *Opt[time.Time]
	}{{res.StartedAt, &run.StartedAt}, {res.FinishedAt, &run.CompletedAt}} {
		if tf.s == "" {
			continue
		}
		t, err := parseISOTime(tf.s)
		if err != nil {
			l.reject(st, &Error{File: path, Field: "started_at/finished_at", Msg: fmt.Sprintf("want an RFC 3339 time, got %q", tf.s)}, b)
			return
		}
		*tf.dst = Some(t)
	}
	if err := l.finishRun(&run, ReaderExecute); err != nil {
		l.reject(st, lineError(&source{path: path, line: 1}, 1, err), b)
		return
	}
	l.addRun(&run, st)
}

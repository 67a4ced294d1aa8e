package ingest

// Reader for terminal-bench 0.2 runs (laude-institute/terminal-bench, the
// `tb run` harness of Terminal-Bench 1; Terminal-Bench 2 runs on Harbor,
// read_harbor.go).
//
// `tb run` writes a run folder:
//
//	runs/<run_id>/run_metadata.json                RunMetadata (agent_name, model_name, dataset, …)
//	runs/<run_id>/results.json                     BenchmarkResults {id, results: [TrialResults …], accuracy, …}
//	runs/<run_id>/<task_id>/<trial_name>/results.json   TrialResults: the same trial on its own
//	runs/<run_id>/<task_id>/<trial_name>/{sessions,panes,agent-logs}/…  logs: not read
//
// The fields read follow terminal_bench/harness/models.py (RunMetadata,
// TrialResults, BenchmarkResults) and terminal_bench/agents/failure_mode.py
// (FailureMode), read in the source, not copied. A results.json is
// recognised by its "trial_name", "is_resolved" and "failure_mode" keys.
//
// Each trial is in the run's results.json and in its own results.json. The
// run's file is the one read when it exists (it is what tb's accuracy and
// pass@k are computed from); a trial's own file is read only when its run
// folder has no results.json (a run that was interrupted before writing
// it), so no trial is counted twice. Reading both anyway (naming the files
// one by one) gives identical runs, which Load drops with a warning.
//
// # Mapping to the runs table
//
// One run per TrialResults:
//
//   - run_id = run_metadata.run_id (else the run folder's name) + "/" +
//     trial_name. tb names trials <task_id>.<k>-of-<n>, unique within a run;
//     trial = k.
//   - task_id = task_id; benchmark = "terminal-bench" (--benchmark
//     overrides); task_version = run_metadata.dataset_version (the task set,
//     e.g. terminal-bench-core 0.1.1 and 0.2.x differ).
//   - scaffold = run_metadata.agent_name; model = run_metadata.model_name;
//     agent = scaffold + " + " + model, or the scaffold alone when
//     model_name is null (as in many leaderboard runs, whose agent names
//     its model itself). run_metadata.json is required: TrialResults name
//     no agent.
//   - score = score_binarized = 1 when is_resolved is true, else 0 — also
//     when it is null (the tests did not run or their output could not be
//     parsed): tb counts such a trial as unresolved in its accuracy
//     (n_resolved / len(results)) and pass@k, so the mean of score is tb's
//     accuracy. final_success = is_resolved is true.
//   - outcome: is_resolved true → "success"; else by failure_mode:
//     agent_timeout, test_timeout → "timeout"; unset or none → "wrong_result"
//     when is_resolved is false, "exec_error" when it is null; any other
//     failure mode (unknown_agent_error, parse_error, fatal_llm_parse_error,
//     context_length_exceeded, output_length_exceeded,
//     agent_installation_failed, unknown, and modes added later) →
//     "exec_error". error_type = the failure_mode unless it is unset or none
//     (so a resolved trial whose agent timed out keeps "agent_timeout"), and
//     "is_resolved null" for an unscored trial with no failure mode.
//   - tokens = total_input_tokens + total_output_tokens (null when both are
//     null); tb records no cost.
//   - started_at / completed_at = trial_started_at / trial_ended_at.
//   - source_file = the results.json read; source_line = the trial's
//     1-based position in results[] (1 for a trial's own file).
//
// The rest of each trial (parser_results, the per-test pass/fail;
// instruction, recording_path, the token counts, the agent and test phase
// times, id, …) is the run's extras (extras.go): the TrialResults less the
// fields in tbMapped. Not kept: the run's own accuracy and pass_at_k
// (recomputed from the runs instead) and the rest of run_metadata.json.
//
// # Bad input
//
// A results.json that is not valid JSON is a file error; a trial in it that
// cannot be decoded, lacks trial_name or task_id, or has a time that is not
// ISO 8601, is rejected on its own with its position and field. A missing
// or unreadable run_metadata.json is a file error naming where it was
// looked for.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ReaderTerminalBench reads the results.json files of a terminal-bench run.
const ReaderTerminalBench = "terminal-bench"

type tbTrial struct {
	TrialName         *string  `json:"trial_name"`
	TaskID            *string  `json:"task_id"`
	IsResolved        *bool    `json:"is_resolved"`
	FailureMode       *string  `json:"failure_mode"`
	TotalInputTokens  *float64 `json:"total_input_tokens"`
	TotalOutputTokens *float64 `json:"total_output_tokens"`
	TrialStartedAt    *string  `json:"trial_started_at"`
	TrialEndedAt      *string  `json:"trial_ended_at"`
}

type tbRunMeta struct {
	RunID          string  `json:"run_id"`
	AgentName      *string `json:"agent_name"`
	ModelName      *string `json:"model_name"`
	DatasetName    *string `json:"dataset_name"`
	DatasetVersion *string `json:"dataset_version"`
}

// looksTerminalBench reports whether a JSON document's first bytes look like
// terminal-bench TrialResults or BenchmarkResults.
func looksTerminalBench(head []byte) bool {
	return bytes.Contains(head, []byte(`"trial_name"`)) && bytes.Contains(head, []byte(`"is_resolved"`)) &&
		bytes.Contains(head, []byte(`"failure_mode"`))
}

// isTBRunDir reports whether dir is a terminal-bench run folder: its
// run_metadata.json is a RunMetadata.
func isTBRunDir(fsys fs.FS, dir string) bool {
	head := fileHead(fsys, filepath.Join(dir, "run_metadata.json"))
	return bytes.Contains(head, []byte(`"run_id"`)) && bytes.Contains(head, []byte(`"agent_name"`))
}

// tbTrialFileShadowed reports whether path is a trial's own results.json
// (<run>/<task>/<trial>/results.json) whose run folder, inside the folder
// root being read, also has the run's results.json, which holds the same
// trial. (Reading only <run>/<task>/ reads the trials' own files.)
func tbTrialFileShadowed(fsys fs.FS, stat func(string) (fs.FileInfo, error), root, path string) bool {
	run := filepath.Dir(filepath.Dir(filepath.Dir(path)))
	if !isTBRunDir(fsys, run) {
		return false
	}
	if rel, err := filepath.Rel(root, run); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false
	}
	_, err := stat(filepath.Join(run, "results.json"))
	return err == nil
}

// tbRun is what a run folder contributes to its trials.
type tbRun struct {
	meta tbRunMeta
	id   string
	err  *Error // run_metadata.json missing or unreadable
}

func (l *loader) tbRunOf(runDir string) *tbRun {
	return auxState(l, "tb:"+runDir, func() *tbRun {
		p := filepath.Join(runDir, "run_metadata.json")
		r := &tbRun{id: filepath.Base(runDir)}
		b, err := l.readAux(p)
		if err != nil {
			msg := err.Error()
			var pe *fs.PathError
			if errors.As(err, &pe) {
				msg = pe.Err.Error()
			}
			r.err = &Error{Msg: p + ": " + msg + ": terminal-bench trials name no agent; the run's run_metadata.json must sit in the run folder"}
			return r
		}
		if err := json.Unmarshal(b, &r.meta); err != nil {
			r.err = &Error{Msg: p + ": not a valid terminal-bench run_metadata.json: " + err.Error()}
			return r
		}
		if r.meta.AgentName == nil || *r.meta.AgentName == "" {
			r.err = &Error{Field: "agent_name", Msg: "missing in " + p}
			return r
		}
		if r.meta.RunID != "" {
			r.id = r.meta.RunID
		}
		return r
	})
}

// readTerminalBench reads a run's results.json (BenchmarkResults) or a
// trial's own results.json (TrialResults).
func (l *loader) readTerminalBench(path string, r io.Reader, st *InputStats) {
	st.Reader = ReaderTerminalBench
	b, err := io.ReadAll(io.LimitReader(r, 1<<30))
	if err != nil {
		l.fileErr(path, err)
		return
	}
	var top struct {
		Results *[]json.RawMessage `json:"results"`
	}
	if err := json.Unmarshal(b, &top); err != nil {
		l.fileErr(path, &Error{File: path, Msg: "not a valid terminal-bench results.json: " + err.Error()})
		return
	}
	var trials []json.RawMessage
	runDir := filepath.Dir(filepath.Dir(filepath.Dir(path))) // <run>/<task>/<trial>/results.json
	if top.Results != nil {
		trials = *top.Results
		runDir = filepath.Dir(path) // <run>/results.json
	} else {
		trials = []json.RawMessage{b}
	}
	run := l.tbRunOf(runDir)
	if run.err != nil {
		e := *run.err
		e.File = path
		l.fileErr(path, &e)
		return
	}
	for i, raw := range trials {
		st.RowsRead++
		l.readTBTrial(path, i+1, raw, run, st)
	}
}

func (l *loader) readTBTrial(path string, pos int, raw []byte, rm *tbRun, st *InputStats) {
	bad := func(field, format string, args ...any) {
		l.reject(st, &Error{File: path, Line: pos, Field: field, Msg: fmt.Sprintf(format, args...)}, raw)
	}
	var t tbTrial
	if err := json.Unmarshal(raw, &t); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			bad(te.Field, "want %s, got a JSON %s", te.Type, te.Value)
		} else {
			bad("", "not a valid terminal-bench trial: %v", err)
		}
		return
	}
	if t.TrialName == nil || *t.TrialName == "" {
		bad("trial_name", "missing required field")
		return
	}
	if t.TaskID == nil || *t.TaskID == "" {
		bad("task_id", "missing required field")
		return
	}
	run := Run{RunID: rm.id + "/" + *t.TrialName, TaskID: *t.TaskID, Benchmark: "terminal-bench", Kind: "agent", SourceFile: path, SourceLine: int64(pos)}
	scaffold := *rm.meta.AgentName
	run.Scaffold, run.Agent = Some(scaffold), scaffold
	if m := rm.meta.ModelName; m != nil && *m != "" {
		run.Model = Some(*m)
		run.Agent = scaffold + " + " + *m
	}
	if v := rm.meta.DatasetVersion; v != nil && *v != "" {
		run.TaskVersion = Some(*v)
	}
	if k, ok := tbAttempt(*t.TrialName, *t.TaskID); ok {
		run.Trial = Some(k)
	}

	resolved := t.IsResolved != nil && *t.IsResolved
	run.Score, run.ScoreBinarized = Some(0.0), Some(int8(0))
	if resolved {
		run.Score, run.ScoreBinarized = Some(1.0), Some(int8(1))
	}
	fm := "unset"
	if t.FailureMode != nil && *t.FailureMode != "" {
		fm = *t.FailureMode
	}
	clean := fm == "unset" || fm == "none"
	var outcome string
	switch {
	case resolved:
		outcome = "success"
	case fm == "agent_timeout" || fm == "test_timeout":
		outcome = "timeout"
	case clean && t.IsResolved != nil:
		outcome = "wrong_result"
	default:
		outcome = "exec_error"
	}
	run.Outcome = Some(outcome)
	switch {
	case !clean:
		run.ErrorType = Some(truncate(fm, 200))
	case t.IsResolved == nil:
		run.ErrorType = Some("is_resolved null")
	}
	if t.TotalInputTokens != nil || t.TotalOutputTokens != nil {
		var n float64
		if t.TotalInputTokens != nil {
			n += *t.TotalInputTokens
		}
		if t.TotalOutputTokens != nil {
			n += *t.TotalOutputTokens
		}
		run.Tokens = Some(n)
	}
	for _, tf := range []struct {
		name string
		s    *string
		dst  *Opt[time.Time]
	}{{"trial_started_at", t.TrialStartedAt, &run.StartedAt}, {"trial_ended_at", t.TrialEndedAt, &run.CompletedAt}} {
		if tf.s == nil || *tf.s == "" {
			continue
		}
		tm, err := parseISOTime(*tf.s)
		if err != nil {
			bad(tf.name, "want an ISO 8601 time, got %q", *tf.s)
			return
		}
		*tf.dst = Some(tm)
	}
	var err error
	if run.Extras, err = extrasWithout(raw, tbMapped...); err != nil {
		bad("", "not a valid terminal-bench trial: %v", err)
		return
	}
	if err := l.finishRun(&run, ReaderTerminalBench); err != nil {
		l.reject(st, lineErrorAt(path, pos, false, err), raw)
		return
	}
	l.addRun(&run, st)
}

// tbMapped are the fields of a TrialResults that a column holds (or
// decides, as is_resolved and failure_mode the outcome); the rest are the
// run's extras. The token counts stay: tokens is their sum.
var tbMapped = []string{"trial_name", "task_id", "is_resolved", "failure_mode", "trial_started_at", "trial_ended_at"}

// tbAttempt parses k from tb's trial name <task_id>.<k>-of-<n>.
func tbAttempt(trial, task string) (int64, bool) {
	rest, ok := strings.CutPrefix(trial, task+".")
	if !ok {
		return 0, false
	}
	ks, _, ok := strings.Cut(rest, "-of-")
	if !ok {
		return 0, false
	}
	k, err := strconv.ParseInt(ks, 10, 64)
	return k, err == nil && k >= 1
}

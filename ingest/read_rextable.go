package ingest

import (
	"fmt"
	"math"
	"strconv"
)

// rexTableRow reads the RExBench paper's per-task table (one row per
// framework × model × hint level × task, each rate a mean over n runs,
// n = n_runs_per_task or 5) and reconstructs n runs per row: the first
// round(final_success·n) succeed, the first round(execution_success·n)
// executed. Which trial failed is unknown, so trials are in that order, and
// every reconstructed run carries the per-task file recall (means are
// preserved). A run that executed but failed is wrong_result; one that did
// not execute has no outcome (the kind of failure is not in the table).
func (l *loader) rexTableRow(s *source, st *InputStats, header []string) (func([][]byte, int) error, error) {
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	for _, need := range []string{"framework", "model", "hint_level", "final_success", "execution_success"} {
		if _, ok := col[need]; !ok {
			return nil, fmt.Errorf("per-task table: missing column %q", need)
		}
	}
	taskCol, ok := col["task_id"]
	if !ok {
		if taskCol, ok = col["task"]; !ok {
			return nil, fmt.Errorf("per-task table: missing column \"task_id\"")
		}
	}
	anomalies := 0
	l.warn(s.path, "runs reconstructed from per-task rates: trial order is arbitrary (an sd across trials means nothing here) and file_recall is the per-task mean")
	return func(raw [][]byte, line int) error {
		rec := make([]string, len(raw))
		for i, b := range raw {
			rec[i] = string(b)
		}
		get := func(name string) (string, error) {
			v, err := csvCell(rec[col[name]]).str()
			if err == nil && v == "" {
				err = fmt.Errorf("missing required field")
			}
			if err != nil {
				return "", &Error{Line: line, Field: name, Msg: err.Error()}
			}
			return v, nil
		}
		fw, err := get("framework")
		if err != nil {
			return err
		}
		model, err := get("model")
		if err != nil {
			return err
		}
		hint, err := get("hint_level")
		if err != nil {
			return err
		}
		task, err := csvCell(rec[taskCol]).str()
		if err != nil || task == "" {
			return &Error{Line: line, Field: header[taskCol], Msg: "missing required field"}
		}
		n := int64(5)
		if i, ok := col["n_runs_per_task"]; ok && rec[i] != "" {
			if n, err = csvCell(rec[i]).int(); err != nil || n < 1 {
				return &Error{Line: line, Field: "n_runs_per_task", Msg: "want a positive integer"}
			}
		}
		count := func(name string) (int64, error) {
			f, err := csvCell(rec[col[name]]).float()
			if err != nil {
				return 0, &Error{Line: line, Field: name, Msg: err.Error()}
			}
			k := math.Round(f * float64(n))
			if f < 0 || f > 1 || math.Abs(float64(f*float64(n))-k) > 0.02 {
				return 0, &Error{Line: line, Field: name, Msg: fmt.Sprintf("rate %v is not k/%d for a whole k in 0..%d", f, n, n)}
			}
			return int64(k), nil
		}
		kf, err := count("final_success")
		if err != nil {
			return err
		}
		ke, err := count("execution_success")
		if err != nil {
			return err
		}
		recall := None[float64]()
		if i, ok := col["file_recall"]; ok && !csvCell(rec[i]).null() {
			f, err := csvCell(rec[i]).float()
			if err != nil {
				return &Error{Line: line, Field: "file_recall", Msg: err.Error()}
			}
			recall = Some(f)
		}
		if kf > ke {
			anomalies++
			l.warn(s.path, "line %d: final_success %d/%d exceeds execution_success %d/%d (kept as printed; such runs get no outcome)", line, kf, n, ke, n)
		}
		cell := fw + "|" + model + "|" + normalizeHint(hint) + "|" + task + "|"
		if i, dup := l.runIndex.get(cell+"1", l.runIndex.hashOf(cell+"1")); dup {
			l.rowRuns()
			prev := l.ds.Runs[i]
			return &Error{Line: line, Field: header[taskCol], Msg: fmt.Sprintf("duplicate cell %s / %s / %s / %s (first at %s:%d)", fw, model, hint, task, prev.SourceFile, prev.SourceLine)}
		}
		kept0 := st.RowsKept
		for t := int64(1); t <= n; t++ {
			r := Run{
				RunID:     fw + "|" + model + "|" + normalizeHint(hint) + "|" + task + "|" + strconv.FormatInt(t, 10),
				Benchmark: "rexbench", TaskID: task, Agent: fw + " + " + model,
				Model: Some(model), Scaffold: Some(fw), Kind: "agent", HintLevel: Some(normalizeHint(hint)),
				Trial: Some(t), FinalSuccess: Some(t <= kf), ExecSuccess: Some(t <= ke), FileRecall: recall,
				SourceFile: s.path, SourceLine: int64(line),
			}
			switch {
			case t <= kf && t <= ke:
				r.Outcome = Some("success")
			case t <= ke:
				r.Outcome = Some("wrong_result")
			}
			if l.opt.Benchmark != "" {
				r.Benchmark = normalizeBenchmark(l.opt.Benchmark)
			}
			l.addRun(&r, st)
		}
		st.RowsKept = kept0 + 1 // one table row made n runs: count the row once
		return nil
	}, nil
}

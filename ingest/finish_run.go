package ingest

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// epochFloor: METR human rows store started_at = 0 and completed_at ≈
// 28,800,000 ms, a duration rather than a date. Timestamps before this
// instant (1973-03-03) are taken as such durations.
var epochFloor = time.UnixMilli(1e11).UTC()

func normalizeBenchmark(b string) string {
	switch strings.ToLower(strings.TrimSpace(b)) {
	case "re-bench", "rebench", "re_bench":
		return "re-bench"
	case "rexbench", "rex-bench":
		return "rexbench"
	}
	return strings.ToLower(strings.TrimSpace(b))
}

// normalizeHint maps the RExBench repository's names to the paper's.
func normalizeHint(h string) string {
	switch h {
	case "default", "none", "no_hint", "no-hints":
		return "no_hints"
	case "more_detailed_hints", "detailed", "detailed-hints":
		return "detailed_hints"
	}
	return h
}

// finishRun fills derived fields and checks a run read by reader. It
// returns an *Error (without file and line; the caller adds them).
func (l *loader) finishRun(r *Run, reader string) error {
	switch reader {
	case ReaderMETR:
		if r.Benchmark == "" {
			fam := r.TaskFamily.Or(r.TaskID)
			if strings.HasPrefix(fam, "ai_rd_") {
				r.Benchmark = "re-bench"
			} else {
				r.Benchmark = "hcast"
			}
		}
		if r.TimeLimitS.Valid && r.TimeLimitS.V == 0 {
			r.TimeLimitS = None[int64]() // METR writes 0 for humans: no recorded limit
		}
		if r.StartedAt.Valid && r.StartedAt.V.Before(epochFloor) {
			if r.CompletedAt.Valid && r.CompletedAt.V.Before(epochFloor.Add(365*24*time.Hour)) && !r.DurationS.Valid {
				r.DurationS = Some(r.CompletedAt.V.Sub(r.StartedAt.V).Seconds())
			}
			r.StartedAt, r.CompletedAt = None[time.Time](), None[time.Time]()
		}
	case ReaderRExBenchRuns:
		if r.Benchmark == "" {
			r.Benchmark = "rexbench"
		}
	}
	if l.opt.Benchmark != "" {
		r.Benchmark = normalizeBenchmark(l.opt.Benchmark)
	}
	if r.HintLevel.Valid {
		r.HintLevel.V = normalizeHint(r.HintLevel.V)
	}
	if r.Agent == "" && r.Scaffold.Valid && r.Model.Valid {
		r.Agent = r.Scaffold.V + " + " + r.Model.V
	}
	switch {
	case r.RunID == "":
		return &Error{Field: "run_id", Msg: "missing required field"}
	case r.TaskID == "":
		return &Error{Field: "task_id", Msg: "missing required field"}
	case r.Agent == "":
		return &Error{Field: "agent", Msg: "missing required field (METR: alias; RExBench: framework and model)"}
	case r.Benchmark == "":
		return &Error{Field: "benchmark", Msg: "missing: add a benchmark column or pass --benchmark NAME"}
	}
	if r.Kind == "" {
		r.Kind = "agent"
		if strings.EqualFold(r.Agent, "human") {
			r.Kind = "human"
		}
	}
	if r.TimeLimitS.Valid && r.TimeLimitS.V < 0 {
		field := "time_limit_s"
		if reader == ReaderMETR {
			field = "time_limit"
		}
		return &Error{Field: field, Msg: fmt.Sprintf("negative time limit %d s: want the run's budget in seconds (0 or null for none)", r.TimeLimitS.V)}
	}
	if r.DurationS.Valid && (r.DurationS.V < 0 || math.IsNaN(r.DurationS.V)) {
		return &Error{Field: "duration_s", Msg: fmt.Sprintf("duration %v s: want a wall time of 0 s or more", r.DurationS.V)}
	}
	if r.StartedAt.Valid && r.CompletedAt.Valid && !r.DurationS.Valid {
		d := r.CompletedAt.V.Sub(r.StartedAt.V).Seconds()
		if d < 0 {
			return &Error{Field: "completed_at", Msg: fmt.Sprintf("completed_at is %.0f s before started_at", -d)}
		}
		r.DurationS = Some(d)
	}
	if r.ScoreBinarized.Valid && r.Score.Valid && math.IsNaN(r.Score.V) {
		return &Error{Field: "score", Msg: "NaN score"}
	}
	return checkOutcome(r)
}

// checkOutcome derives final_success and exec_success from the outcome
// (or the outcome from them) and rejects contradictions.
func checkOutcome(r *Run) error {
	if r.FinalSuccess.Or(false) && r.ExecSuccess.Valid && !r.ExecSuccess.V {
		return &Error{Field: "final_success", Msg: "final_success=true with exec_success=false: a run that did not execute cannot succeed"}
	}
	if !r.Outcome.Valid {
		switch {
		case r.FinalSuccess.Valid && r.FinalSuccess.V && r.ExecSuccess.Or(true):
			r.Outcome = Some("success")
			r.ExecSuccess = Some(true)
		case r.FinalSuccess.Valid && !r.FinalSuccess.V && r.ExecSuccess.Valid && r.ExecSuccess.V:
			r.Outcome = Some("wrong_result")
		}
		return nil
	}
	o := r.Outcome.V
	wantFinal := o == "success"
	wantExec := o == "success" || o == "wrong_result"
	if r.FinalSuccess.Valid && r.FinalSuccess.V != wantFinal {
		return &Error{Field: "final_success", Msg: fmt.Sprintf("final_success=%v contradicts outcome %q", r.FinalSuccess.V, o)}
	}
	if r.ExecSuccess.Valid && r.ExecSuccess.V != wantExec {
		return &Error{Field: "exec_success", Msg: fmt.Sprintf("exec_success=%v contradicts outcome %q", r.ExecSuccess.V, o)}
	}
	r.FinalSuccess, r.ExecSuccess = Some(wantFinal), Some(wantExec)
	return nil
}

// addRun appends a valid run, handling duplicate run ids: an identical
// duplicate (the same file read twice) is dropped with a warning; a
// different record under the same id is an error.
func (l *loader) addRun(r *Run, st *InputStats) {
	l.addRunHashed(r, l.runIndex.hashOf(r.RunID), st)
}

// addRunHashed is addRun for a run whose id hashes to h (runIDIndex.hashOf).
func (l *loader) addRunHashed(r *Run, h uint64, st *InputStats) {
	l.rowRuns()
	if i, dup := l.runIndex.getOrPut(r.RunID, h, len(l.ds.Runs)); dup {
		prev := &l.ds.Runs[i]
		if sameRun(*prev, *r) {
			st.RowsKept++
			l.dupSame++
			return
		}
		e := &Error{File: r.SourceFile, Line: int(r.SourceLine), Field: "run_id",
			Msg: fmt.Sprintf("duplicate run_id %q with different content (first at %s:%d)", r.RunID, prev.SourceFile, prev.SourceLine)}
		l.reject(st, e, nil)
		return
	}
	if n := len(l.ds.Runs); n < cap(l.ds.Runs) && r == &l.ds.Runs[:n+1][n] {
		l.ds.Runs = l.ds.Runs[:n+1] // parsed in place (readJSONLParallel)
	} else {
		l.ds.Runs = append(l.ds.Runs, *r)
	}
	st.RowsKept++
}

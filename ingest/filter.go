package ingest

import "strconv"

// IsRunColumn reports whether name is a column of the runs table.
func IsRunColumn(name string) bool {
	for _, c := range runCols {
		if c.field.Name == name {
			return true
		}
	}
	return false
}

// IsMappableColumn reports whether inputs can set the runs column name
// (every column but source_file and source_line, which the reader sets).
func IsMappableColumn(name string) bool {
	_, ok := runColumns[name]
	return ok
}

// RunColumnNames returns the runs column names in table order.
func RunColumnNames() []string {
	out := make([]string, len(runCols))
	for i, c := range runCols {
		out[i] = c.field.Name
	}
	return out
}

func optS(o Opt[string]) (string, bool) { return o.V, o.Valid }
func optI(o Opt[int64]) (string, bool)  { return strconv.FormatInt(o.V, 10), o.Valid }
func optF(o Opt[float64]) (string, bool) {
	return strconv.FormatFloat(o.V, 'g', -1, 64), o.Valid
}
func optB(o Opt[bool]) (string, bool) { return strconv.FormatBool(o.V), o.Valid }

// RunValue returns the value of a runs column as text (numbers as Go
// formats them, booleans as true/false), and false when it is null or the
// column is a list or timestamp.
func RunValue(r *Run, col string) (string, bool) {
	switch col {
	case "run_id":
		return r.RunID, true
	case "benchmark":
		return r.Benchmark, true
	case "task_id":
		return r.TaskID, true
	case "task_family":
		return optS(r.TaskFamily)
	case "task_version":
		return optS(r.TaskVersion)
	case "agent":
		return r.Agent, true
	case "model":
		return optS(r.Model)
	case "scaffold":
		return optS(r.Scaffold)
	case "kind":
		return r.Kind, true
	case "time_limit_s":
		return optI(r.TimeLimitS)
	case "duration_s":
		return optF(r.DurationS)
	case "raw_score":
		return optF(r.RawScore)
	case "score":
		return optF(r.Score)
	case "score_binarized":
		return strconv.Itoa(int(r.ScoreBinarized.V)), r.ScoreBinarized.Valid
	case "human_minutes":
		return optF(r.HumanMinutes)
	case "hint_level":
		return optS(r.HintLevel)
	case "trial":
		return optI(r.Trial)
	case "seed":
		return optI(r.Seed)
	case "final_success":
		return optB(r.FinalSuccess)
	case "exec_success":
		return optB(r.ExecSuccess)
	case "outcome":
		return optS(r.Outcome)
	case "error_type":
		return optS(r.ErrorType)
	case "lines_added":
		return optI(r.LinesAdded)
	case "lines_deleted":
		return optI(r.LinesDeleted)
	case "result_value":
		return optF(r.ResultValue)
	case "file_recall":
		return optF(r.FileRecall)
	case "tokens":
		return optF(r.Tokens)
	case "cost_usd":
		return optF(r.CostUSD)
	case "equal_task_weight":
		return optF(r.EqualTaskWeight)
	case "invsqrt_task_weight":
		return optF(r.InvsqrtTaskWeight)
	case "weight":
		return optF(r.Weight)
	case "extras":
		return optS(r.Extras)
	case "source_file":
		return r.SourceFile, true
	case "source_line":
		return strconv.FormatInt(r.SourceLine, 10), true
	}
	return "", false
}

// Filter keeps the runs for which keep returns true, the score-log
// entries of the runs kept, and the tasks of the benchmarks they belong to.
func (d *Dataset) Filter(keep func(*Run) bool) {
	var ids map[string]bool // kept run ids, needed only to filter score events
	if len(d.Scores) > 0 {
		ids = make(map[string]bool, len(d.Runs))
	}
	benchmarks := map[string]bool{}
	last := "" // runs come in stretches of one benchmark: look it up once per stretch
	out := d.Runs[:0]
	for i := range d.Runs {
		r := &d.Runs[i]
		if !keep(r) {
			continue
		}
		if ids != nil {
			ids[r.RunID] = true
		}
		if len(out) == 0 || r.Benchmark != last {
			benchmarks[r.Benchmark] = true
			last = r.Benchmark
		}
		if len(out) == i {
			out = out[:i+1] // kept in place
		} else {
			out = append(out, *r)
		}
	}
	tasks := d.Tasks[:0]
	for _, t := range d.Tasks {
		if benchmarks[t.Benchmark] {
			tasks = append(tasks, t)
		}
	}
	d.Tasks = tasks
	d.Runs = out
	scores := d.Scores[:0]
	for _, e := range d.Scores {
		if ids[e.RunID] {
			scores = append(scores, e)
		}
	}
	d.Scores = scores
}

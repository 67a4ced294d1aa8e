package ingest

import (
	"slices"
	"testing"
)

// TestDatasetFilter: Filter keeps the runs kept by the predicate in order,
// the score-log entries of those runs only, and the tasks of the benchmarks
// that still have runs; keeping everything changes nothing.
func TestDatasetFilter(t *testing.T) {
	mk := func() *Dataset {
		return &Dataset{
			Runs: []Run{
				{RunID: "a1", Benchmark: "re-bench", Agent: "x"},
				{RunID: "a2", Benchmark: "re-bench", Agent: "y"},
				{RunID: "b1", Benchmark: "rexbench", Agent: "x"},
				{RunID: "a3", Benchmark: "re-bench", Agent: "x"},
				{RunID: "b2", Benchmark: "rexbench", Agent: "y"},
			},
			Scores: []ScoreEntry{{RunID: "a1"}, {RunID: "a2"}, {RunID: "b1"}, {RunID: "a1"}, {RunID: "b2"}},
			Tasks:  []Task{{TaskID: "t1", Benchmark: "re-bench"}, {TaskID: "t2", Benchmark: "rexbench"}, {TaskID: "t3", Benchmark: "other"}},
		}
	}
	ids := func(d *Dataset) (runs, scores, tasks []string) {
		for _, r := range d.Runs {
			runs = append(runs, r.RunID)
		}
		for _, s := range d.Scores {
			scores = append(scores, s.RunID)
		}
		for _, t := range d.Tasks {
			tasks = append(tasks, t.TaskID)
		}
		return
	}
	for _, c := range []struct {
		name                           string
		keep                           func(*Run) bool
		noScores                       bool
		wantRuns, wantScores, wantTask []string
	}{
		{"agent x", func(r *Run) bool { return r.Agent == "x" }, false,
			[]string{"a1", "b1", "a3"}, []string{"a1", "b1", "a1"}, []string{"t1", "t2"}},
		{"one benchmark", func(r *Run) bool { return r.Benchmark == "re-bench" }, false,
			[]string{"a1", "a2", "a3"}, []string{"a1", "a2", "a1"}, []string{"t1"}},
		{"all", func(*Run) bool { return true }, false,
			[]string{"a1", "a2", "b1", "a3", "b2"}, []string{"a1", "a2", "b1", "a1", "b2"}, []string{"t1", "t2"}},
		{"none", func(*Run) bool { return false }, false, nil, nil, nil},
		{"agent y, no score log", func(r *Run) bool { return r.Agent == "y" }, true,
			[]string{"a2", "b2"}, nil, []string{"t1", "t2"}},
	} {
		d := mk()
		if c.noScores {
			d.Scores = nil
		}
		d.Filter(c.keep)
		runs, scores, tasks := ids(d)
		if !slices.Equal(runs, c.wantRuns) || !slices.Equal(scores, c.wantScores) || !slices.Equal(tasks, c.wantTask) {
			t.Errorf("%s: runs %v, scores %v, tasks %v; want %v, %v, %v", c.name, runs, scores, tasks, c.wantRuns, c.wantScores, c.wantTask)
		}
	}
}

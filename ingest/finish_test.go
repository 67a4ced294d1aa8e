package ingest

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestCheckTasksCompacts: under Strict, a run whose task is not in the
// catalog is rejected (file, line, field) and the runs after it move up in
// order; a score log then finds its run's start at the run's new place
// (the run-id index is rebuilt after the move). Without Strict nothing is
// dropped and one warning names the task. Runs alternate between tasks so
// that the catalog is asked again at each change (checkTasks asks once
// per stretch of one task).
func TestCheckTasksCompacts(t *testing.T) {
	run := func(id, task string, started int64) string {
		return fmt.Sprintf(`{"run_id":%q,"task_id":%q,"alias":"A","score":0.5,"time_limit":1800,"started_at":%d}`, id, task, started)
	}
	const t0 int64 = 1732269600000 // 2024-11-22T10:00:00Z
	dir := t.TempDir()
	runs := writeFile(t, dir, "runs.jsonl", strings.Join([]string{
		run("r1", "ai_rd_fix_embedding/main", t0),
		run("r2", "ai_rd_not_a_task/main", t0),
		run("r3", "ai_rd_not_a_task/main", t0),
		run("r3b", "ai_rd_nor_this/main", t0), // a second unknown stretch right after
		run("r4", "ai_rd_triton_cumsum/main", t0+1000),
		run("r5", "ai_rd_fix_embedding/main", t0),
		run("r6", "ai_rd_not_a_task/main", t0), // the last run dropped
	}, "\n")+"\n")
	scores := writeFile(t, dir, "scores.jsonl", fmt.Sprintf(`{"run_id":"r4","scored_at":%d,"score":1}`+"\n", t0+61000))

	ds := load(t, []string{runs, scores}, Options{Strict: true})
	var ids []string
	for _, r := range ds.Runs {
		ids = append(ids, r.RunID)
	}
	if want := []string{"r1", "r4", "r5"}; !slices.Equal(ids, want) {
		t.Errorf("strict: runs %v, want %v", ids, want)
	}
	var lines []int
	for _, e := range ds.Errors {
		lines = append(lines, e.Line)
	}
	if !slices.Equal(lines, []int{2, 3, 4, 7}) || ds.Errors[0].Field != "task_id" ||
		!strings.Contains(ds.Errors[0].Msg, "ai_rd_not_a_task/main") || !strings.Contains(ds.Errors[2].Msg, "ai_rd_nor_this/main") {
		t.Errorf("strict: errors %v", ds.Errors)
	}
	if in := ds.Inputs[0]; in.RowsKept != 3 || in.RowsRejected != 4 {
		t.Errorf("strict: input %+v", in)
	}
	if len(ds.Scores) != 1 || ds.Scores[0].ElapsedS.V != 60 {
		t.Errorf("strict: score log %+v, want elapsed 60 s from r4's start", ds.Scores)
	}

	ds = loadOK(t, []string{runs, scores}, Options{})
	if len(ds.Runs) != 7 || ds.Scores[0].ElapsedS.V != 60 {
		t.Errorf("lenient: %d runs, elapsed %v", len(ds.Runs), ds.Scores[0].ElapsedS)
	}
	if w := warningsWith(ds, "not in the catalog"); len(w) != 1 || !strings.Contains(w[0].Msg, "2 tasks") || !strings.Contains(w[0].Msg, "ai_rd_nor_this/main, ai_rd_not_a_task/main") {
		t.Errorf("lenient: warnings %v", ds.Warnings)
	}
}

// TestTaskStretches: the stretches of one task found on several goroutines
// equal a serial scan's, including stretches across the parts' boundaries
// and tasks of the same name in two benchmarks.
func TestTaskStretches(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tasks := []string{"a", "b", "c"}
	for _, n := range []int{0, 1, 7, 25_000, 40_001} {
		runs := make([]Run, n)
		for i := range runs {
			if i == 0 || rng.IntN(500) == 0 { // long stretches
				runs[i].TaskID, runs[i].Benchmark = tasks[rng.IntN(3)], []string{"x", "y"}[rng.IntN(2)]
			} else {
				runs[i].TaskID, runs[i].Benchmark = runs[i-1].TaskID, runs[i-1].Benchmark
			}
		}
		var want []taskStretch
		for i := range runs {
			if i == 0 || runs[i].TaskID != runs[i-1].TaskID || runs[i].Benchmark != runs[i-1].Benchmark {
				want = append(want, taskStretch{i, i + 1})
			} else {
				want[len(want)-1].hi++
			}
		}
		for _, procs := range []int{1, 2, 3} {
			old := runtime.GOMAXPROCS(procs)
			got := taskStretches(runs)
			runtime.GOMAXPROCS(old)
			if !slices.Equal(got, want) {
				t.Errorf("n=%d GOMAXPROCS=%d: %d stretches, want %d", n, procs, len(got), len(want))
			}
		}
	}
}

// TestFillElapsedParallel: elapsed times and warnings from a score log of
// 60,000 timestamped entries (so fillElapsed splits it into parts) equal
// those at GOMAXPROCS 1 (one part: the serial pass). Runs' entries are
// interleaved and span the parts' boundaries, a run's earliest entry comes
// last, timestamps tie, and one run starts after some of its entries.
func TestFillElapsedParallel(t *testing.T) {
	const t0 int64 = 1732269600000 // 2024-11-22T10:00:00Z, in ms
	rng := rand.New(rand.NewPCG(5, 6))
	var b strings.Builder
	for i := range 60_000 {
		run := fmt.Sprintf("run-%d", (i/7_000+rng.IntN(2))%6)
		ms := t0 + 1000 + rng.Int64N(3_600_000)
		if i == 59_999 {
			run, ms = "run-1", t0 // run-1's earliest entry, last in the file
		}
		if i%1000 == 0 {
			ms = t0 + 1_800_000 // ties across runs and parts
		}
		fmt.Fprintf(&b, `{"run_id":%q,"scored_at":%d,"score":%d}`+"\n", run, ms, i%5)
	}
	dir := t.TempDir()
	scores := writeFile(t, dir, "scores.jsonl", b.String())
	runs := writeFile(t, dir, "runs.jsonl", fmt.Sprintf(
		`{"run_id":"run-2","task_id":"hcast_task_a/1","alias":"A","score":0.5,"started_at":%d}`+"\n"+
			`{"run_id":"run-3","task_id":"hcast_task_a/1","alias":"A","score":0.5,"started_at":%d}`+"\n", t0, t0+1_800_000))
	load := func(procs int) *Dataset {
		old := runtime.GOMAXPROCS(procs)
		defer runtime.GOMAXPROCS(old)
		return loadOK(t, []string{runs, scores}, Options{})
	}
	want := load(1)
	if len(want.Scores) != 60_000 || len(warningsWith(want, "negative elapsed_s")) != 1 || len(warningsWith(want, "no run start")) != 1 {
		t.Fatalf("serial: %d entries, warnings %v", len(want.Scores), want.Warnings)
	}
	for _, procs := range []int{2, 3} {
		got := load(procs)
		for i := range got.Scores {
			if got.Scores[i].ElapsedS != want.Scores[i].ElapsedS {
				t.Fatalf("GOMAXPROCS=%d: entry %d elapsed %v, serial %v", procs, i, got.Scores[i].ElapsedS, want.Scores[i].ElapsedS)
			}
		}
		if !slices.Equal(got.Warnings, want.Warnings) {
			t.Errorf("GOMAXPROCS=%d: warnings %v, serial %v", procs, got.Warnings, want.Warnings)
		}
	}
}

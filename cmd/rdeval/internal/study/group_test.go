package study

import (
	"math"
	"testing"

	"github.com/rdeval/rdeval/analysis"
	"github.com/rdeval/rdeval/ingest"
)

// twoBenchmarks has task t1 in two benchmarks (random selection only in
// "other"), run by agent A in both and by B in re-bench only.
func twoBenchmarks() *ingest.Dataset {
	run := func(id, bench, agent string, score float64) ingest.Run {
		return ingest.Run{RunID: id, Benchmark: bench, TaskID: "t1", Agent: agent, TimeLimitS: ingest.Some(int64(3600)), Score: ingest.Some(score)}
	}
	return &ingest.Dataset{
		Runs: []ingest.Run{
			run("a1", "re-bench", "A", 1), run("a2", "other", "A", 0), run("a3", "re-bench", "A", 0.8), run("a4", "other", "A", 0.2),
			run("b1", "re-bench", "B", 0.5), run("b2", "re-bench", "B", 0.4),
		},
		Tasks: []ingest.Task{{Benchmark: "other", TaskID: "t1", Selection: ingest.Some("random")}},
	}
}

// TestGroupRunsOneTaskKey: runs are grouped by benchmark + task_id, so a
// task_id that two benchmarks share is two tasks (named benchmark:task_id),
// each with its own selection rule, in run order.
func TestGroupRunsOneTaskKey(t *testing.T) {
	ds := twoBenchmarks()
	gs, missing := GroupRuns(ds, []string{"agent"}, Score)
	if missing != 0 || len(gs) != 2 {
		t.Fatalf("%d groups, %d missing", len(gs), missing)
	}
	a := gs[0]
	want := []analysis.TaskScores{{Task: "other:t1", Scores: []float64{0, 0.2}, Random: true}, {Task: "re-bench:t1", Scores: []float64{1, 0.8}}}
	if len(a.Tasks) != 2 {
		t.Fatalf("agent A: tasks %+v", a.Tasks)
	}
	for i, w := range want {
		g := a.Tasks[i]
		if g.Task != w.Task || g.Random != w.Random || len(g.Scores) != 2 || g.Scores[0] != w.Scores[0] || g.Scores[1] != w.Scores[1] {
			t.Errorf("task %d: %+v, want %+v", i, g, w)
		}
	}
	if a.Runs[0][0] != 1 || a.Runs[0][1] != 3 || a.Runs[1][0] != 0 || a.Runs[1][1] != 2 {
		t.Errorf("run indices %v", a.Runs)
	}
	// One benchmark: tasks keep their plain task_id.
	if ts := Tasks(BenchmarkRuns(ds, "re-bench", true), Score); len(ts) != 1 || ts[0].Task != "t1" {
		t.Errorf("one benchmark: %+v", ts)
	}
}

// TestSideOneTaskKey: compare pairs A's and B's runs of the same benchmark
// and task; it used to key by task_id alone, pooling A's runs of both
// benchmarks' t1 against B's re-bench t1.
func TestSideOneTaskKey(t *testing.T) {
	ds := twoBenchmarks()
	a, _, err := Side(ds, "agent=A", 3600, 8*3600)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := Side(ds, "agent=B", 3600, 8*3600)
	if err != nil {
		t.Fatal(err)
	}
	c, err := analysis.Compare(a, b, analysis.ScoreAtKOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// A's re-bench t1: mean of 1 and 0.8 (k = 1); B's: mean of 0.5 and 0.4.
	if len(c.Tasks) != 1 || c.Tasks[0] != "re-bench:t1" || math.Abs(c.Ratio-0.9/0.45) > 1e-12 {
		t.Errorf("tasks %v, ratio %v, want [re-bench:t1] and 2", c.Tasks, c.Ratio)
	}
}

// TestGroupRunsNullKey: a null column value (METR's human time limit) is
// the key "", not the zero its column would print (ingest.RunValue gives
// "0" with ok false).
func TestGroupRunsNullKey(t *testing.T) {
	ds := &ingest.Dataset{Runs: []ingest.Run{
		{RunID: "h", TaskID: "t", Agent: "human", Score: ingest.Some(0.5)},
		{RunID: "a", TaskID: "t", Agent: "A", TimeLimitS: ingest.Some(int64(0)), Score: ingest.Some(0.1)},
	}}
	gs, _ := GroupRuns(ds, []string{"time_limit_s"}, Score)
	if len(gs) != 2 || gs[0].Key[0] != "" || gs[1].Key[0] != "0" {
		t.Fatalf("keys: %+v", gs)
	}
}

// TestOutcomesOneTaskKey: success rates, curves and horizon fits take a
// task_id that two benchmarks share as two tasks (benchmark:task_id), as
// GroupRuns does. Before, OutcomeCells, RunCurves and the horizon runs
// keyed tasks by task_id alone and pooled them: one task t1 with rate 0.5
// here instead of two tasks with rates 1 and 0.
func TestOutcomesOneTaskKey(t *testing.T) {
	run := func(id, bench string, ok bool) ingest.Run {
		y := int8(0)
		if ok {
			y = 1
		}
		return ingest.Run{RunID: id, Benchmark: bench, TaskID: "t1", Agent: "A", Model: ingest.Some("m"), HintLevel: ingest.Some("no_hints"),
			FinalSuccess: ingest.Some(ok), ExecSuccess: ingest.Some(ok), ScoreBinarized: ingest.Some(y), HumanMinutes: ingest.Some(10.0)}
	}
	ds := &ingest.Dataset{Runs: []ingest.Run{run("r1", "a", true), run("r2", "b", false), run("r3", "a", true), run("r4", "b", false), {RunID: "r5", Benchmark: "a", TaskID: "t2"}}}
	cells, index, skipped := OutcomeCells(ds)
	k := CellKey{"A", "m", "no_hints"}
	if skipped != 1 || len(cells) != 1 || len(cells[k]) != 4 {
		t.Fatalf("cells %v, skipped %d", cells, skipped)
	}
	for j, i := range index[k] {
		if want := ds.Runs[i].Benchmark + ":t1"; cells[k][j].Task != want || i != j {
			t.Errorf("run %d: task %q (ds.Runs[%d]), want %q", j, cells[k][j].Task, i, want)
		}
	}
	res, err := Success(ds, SuccessParams{CI: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Cells[0]
	if c.Summary.Tasks != 2 || len(c.Tasks) != 2 || c.Tasks[0].Task != "a:t1" || c.Tasks[0].Final != 1 || c.Tasks[1].Task != "b:t1" || c.Tasks[1].Final != 0 {
		t.Errorf("success: %d tasks %+v", c.Summary.Tasks, c.Tasks)
	}
	tasks := map[string]int{}
	for _, r := range HorizonRuns(ds, "A", false) {
		tasks[r.Task]++
	}
	if len(tasks) != 2 || tasks["a:t1"] != 2 || tasks["b:t1"] != 2 {
		t.Errorf("horizon runs by task: %v", tasks)
	}
	// Score logs for curves: both benchmarks' t1 have a scale.
	ds.Tasks = []ingest.Task{{Benchmark: "a", TaskID: "t1", YStart: ingest.Some(0.0), YRef: ingest.Some(1.0)}, {Benchmark: "b", TaskID: "t1", YStart: ingest.Some(0.0), YRef: ingest.Some(1.0)}}
	for _, id := range []string{"r1", "r2", "r3", "r4"} {
		ds.Scores = append(ds.Scores, ingest.ScoreEntry{RunID: id, ElapsedS: ingest.Some(60.0), RawScore: 0.5})
	}
	groups, _, _ := RunCurves(ds, 0)
	for g, byTask := range groups {
		if len(byTask) != 2 || len(byTask["a:t1"]) != 2 || len(byTask["b:t1"]) != 2 {
			t.Errorf("curves of %v by task: %v", g, byTask)
		}
	}
	if len(groups) != 1 {
		t.Errorf("%d curve groups", len(groups))
	}
}

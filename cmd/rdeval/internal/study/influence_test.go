package study

import (
	"math"
	"testing"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/demo"
	"github.com/rdeval/rdeval/ingest"
)

// TestCompareInfluenceEqualsRecompute: on the demo study, the three
// fictional agents' 30-minute runs pooled (score@4) over humans read at 2 h
// from their score logs: the "without" of every agent, task and run row
// equals the compare Spec (what rdeval audit's claims evaluate; boot 0)
// recomputed on the runs left, to 1e-12; so does the estimate and every
// step of the greedy removal.
func TestCompareInfluenceEqualsRecompute(t *testing.T) {
	ds, err := demo.Load(ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rb := &ingest.Dataset{Scores: ds.Scores, Tasks: ds.Tasks}
	for _, r := range ds.Runs {
		if r.Benchmark == "re-bench" {
			rb.Runs = append(rb.Runs, r)
		}
	}
	sp := Spec{Kind: "compare", A: "kind=agent;time_limit_s=1800", B: "agent=human", Budget: "2h", Measure: "ratio"}
	if err := sp.Validate(); err != nil {
		t.Fatal(err)
	}
	// direct is the statistic recomputed on the runs keep keeps, by the
	// one Spec that rdeval audit's claims evaluate (boot 0).
	direct := func(keep func(*ingest.Run) bool) float64 {
		d := &ingest.Dataset{Scores: rb.Scores, Tasks: rb.Tasks}
		for _, r := range rb.Runs {
			if keep(&r) {
				d.Runs = append(d.Runs, r)
			}
		}
		est, err := sp.Evaluate(d, EvalParams{Boot: 0, Seed: 1})
		if err != nil || est.Refusal != "" {
			return math.NaN()
		}
		return est.Value
	}
	res, err := Influence(rb, InfluenceParams{Spec: sp, Top: 0, FlagAbove: 2, Threshold: 3})
	if err != nil {
		t.Fatal(err)
	}
	all := direct(func(*ingest.Run) bool { return true })
	if !sameOrBothNaN(res.Estimate, all) {
		t.Fatalf("estimate %v, audit %v", res.Estimate, all)
	}
	kinds := map[string]int{}
	removedSoFar := map[string]bool{}
	for _, r := range res.Rows {
		kinds[r.Kind]++
		var want float64
		switch r.Kind {
		case "agent":
			want = direct(func(x *ingest.Run) bool { return x.Agent != r.Agent })
		case "task":
			want = direct(func(x *ingest.Run) bool { return x.TaskID != r.TaskID })
		case "run":
			want = direct(func(x *ingest.Run) bool { return x.RunID != r.RunID })
		case "removal":
			removedSoFar[r.RunID] = true
			want = direct(func(x *ingest.Run) bool { return !removedSoFar[x.RunID] })
		}
		if !sameOrBothNaN(r.Without, want) {
			t.Errorf("%s %s%s%s: without %.17g, recomputed %.17g", r.Kind, r.Agent, r.TaskID, r.RunID, r.Without, want)
		}
		if !sameOrBothNaN(r.Change, want-all) {
			t.Errorf("%s %s%s%s: change %v, want %v", r.Kind, r.Agent, r.TaskID, r.RunID, r.Change, want-all)
		}
	}
	// 3 agents + human, 7 tasks, 336 agent runs + 42 human runs.
	if kinds["agent"] != 4 || kinds["task"] != 7 || kinds["run"] != 378 || kinds["removal"] == 0 {
		t.Errorf("rows: %v", kinds)
	}
	if res.Crossed == nil {
		t.Error("no threshold verdict")
	}
}

// TestInfluenceOneTaskKey: task t1 in two benchmarks is two tasks in the
// leave-one-task-out rows of --stat compare and --stat success (named
// benchmark:t1, as their groups name them). Before, both removed runs by
// task_id alone: one row t1 that dropped both benchmarks' runs (compare:
// no task left, without NaN).
func TestInfluenceOneTaskKey(t *testing.T) {
	run := func(id, bench, agent string, score float64) ingest.Run {
		return ingest.Run{RunID: id, Benchmark: bench, TaskID: "t1", Agent: agent, TimeLimitS: ingest.Some(int64(3600)), Score: ingest.Some(score),
			FinalSuccess: ingest.Some(score > 0.5), Model: ingest.Some("m")}
	}
	ds := &ingest.Dataset{Runs: []ingest.Run{
		run("a1", "x", "A", 0.8), run("a2", "y", "A", 0.4), run("b1", "x", "B", 0.4), run("b2", "y", "B", 0.4),
	}}
	taskWithout := func(sp Spec, d *ingest.Dataset) map[string]float64 {
		t.Helper()
		if sp.Kind != "success" { // as NewCmd: the success cell is what --where selects
			if err := sp.Validate(); err != nil {
				t.Fatal(err)
			}
		}
		res, err := Influence(d, InfluenceParams{Spec: sp, FlagAbove: 2, Threshold: math.NaN()})
		if err != nil {
			t.Fatal(err)
		}
		rows := map[string]float64{}
		for _, r := range res.Rows {
			if r.Kind == "task" {
				rows[r.TaskID] = r.Without
			}
		}
		return rows
	}
	// ratio (0.8+0.4)/2 / 0.4 = 1.5; without x:t1 0.4/0.4 = 1, without y:t1 0.8/0.4 = 2.
	got := taskWithout(Spec{Kind: "compare", A: "agent=A", B: "agent=B", Budget: "1h", Measure: "ratio"}, ds)
	if len(got) != 2 || math.Abs(got["x:t1"]-1) > 1e-12 || math.Abs(got["y:t1"]-2) > 1e-12 {
		t.Errorf("compare task rows: %v", got)
	}
	// agent A's final success: x:t1 1, y:t1 0; without either task, the other's rate.
	a := &ingest.Dataset{Runs: ds.Runs[:2]}
	got = taskWithout(Spec{Kind: "success"}, a)
	if len(got) != 2 || got["x:t1"] != 0 || got["y:t1"] != 1 {
		t.Errorf("success task rows: %v", got)
	}
}

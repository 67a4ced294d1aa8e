package influencecmd

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rdeval/rdeval/analysis"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdtest"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/rdeval/rdeval/ingest"
	"github.com/spf13/cobra"
)

func runCmd(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	return cmdtest.Run(t, func(io *iostreams.IO) *cobra.Command { return NewCmd(io, nil) }, args...)
}

const fixture = `{"run_id":"a1","task_id":"t1","agent":"A","benchmark":"demo","time_limit_s":1800,"score":0.1}
{"run_id":"a2","task_id":"t1","agent":"A","benchmark":"demo","time_limit_s":1800,"score":0.3}
{"run_id":"a3","task_id":"t2","agent":"A","benchmark":"demo","time_limit_s":1800,"score":2.6}
{"run_id":"a4","task_id":"t2","agent":"A","benchmark":"demo","time_limit_s":1800,"score":0.0}
{"run_id":"a5","task_id":"t2","agent":"A","benchmark":"demo","time_limit_s":1800,"score":0.2}
{"run_id":"b1","task_id":"t1","agent":"B","benchmark":"demo","time_limit_s":1800,"score":0.5}
`

type output struct {
	Statistic string
	Estimate  float64
	Tasks     int
	Runs      int
	Rows      []map[string]any
	Crossed   *bool `json:"threshold_crossed"`
}

// TestInfluenceScoreAtK: agent A, k = 1: t1 mean 0.2, t2 mean 2.8/3 →
// 0.5667. Without a3 (2.6, flagged): t2 0.1 → 0.15, change −0.4167, the largest.
func TestInfluenceScoreAtK(t *testing.T) {
	p := filepath.Join(t.TempDir(), "runs.jsonl")
	os.WriteFile(p, []byte(fixture), 0o644)
	if _, _, err := runCmd(t, p); err == nil || !strings.Contains(err.Error(), "agent=B") {
		t.Fatalf("two agents: %v", err)
	}
	out, stderr, err := runCmd(t, p, "--where", "agent=A", "--format", "json", "--top", "1", "--threshold", "0.3")
	if err != nil {
		t.Fatal(err, stderr)
	}
	var o output
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatal(err, out)
	}
	if o.Statistic != "score@1" || math.Abs(o.Estimate-(0.2+2.8/3)/2) > 1e-12 || o.Tasks != 2 || o.Runs != 5 {
		t.Fatalf("%+v", o)
	}
	r := o.Rows[0]
	if r["kind"] != "run" || r["run_id"] != "a3" || r["flag"] != "score>2" || math.Abs(r["change"].(float64)-(0.15-o.Estimate)) > 1e-12 {
		t.Errorf("first row %v", r)
	}
	kinds := map[string]int{}
	for _, r := range o.Rows {
		kinds[r["kind"].(string)]++
	}
	// One removal (a3) takes 0.5667 to 0.15 < 0.3.
	if kinds["run"] != 1 || kinds["task"] != 1 || kinds["removal"] != 1 || o.Crossed == nil || !*o.Crossed {
		t.Errorf("rows %v crossed %v", kinds, o.Crossed)
	}
	for _, f := range []string{"table", "csv"} {
		out, _, err := runCmd(t, p, "--where", "agent=A", "--format", f, "--k", "2")
		if err != nil || !strings.Contains(out, "a3") {
			t.Errorf("%s: %v\n%s", f, err, out)
		}
	}
}

const successFixture = `run_id,task_id,agent,benchmark,model,hint_level,final_success
r1,t1,openhands,rexbench,o1,no_hints,true
r2,t1,openhands,rexbench,o1,no_hints,false
r3,t2,openhands,rexbench,o1,no_hints,true
r4,t2,openhands,rexbench,o1,no_hints,true
r5,t2,openhands,rexbench,o1,hints,true
`

func TestInfluenceSuccess(t *testing.T) {
	p := filepath.Join(t.TempDir(), "runs.csv")
	os.WriteFile(p, []byte(successFixture), 0o644)
	if _, _, err := runCmd(t, p, "--stat", "success"); err == nil || !strings.Contains(err.Error(), "hint_level=hints") {
		t.Fatalf("two cells: %v", err)
	}
	out, stderr, err := runCmd(t, p, "--stat", "success", "--where", "hint_level=no_hints", "--format", "json", "--top", "0")
	if err != nil {
		t.Fatal(err, stderr)
	}
	var o output
	json.Unmarshal([]byte(out), &o)
	// (0.5 + 1)/2 = 0.75; without r2: (1 + 1)/2 = 1 (tied in |change| with
	// r1, which comes first by index).
	if math.Abs(o.Estimate-0.75) > 1e-12 || o.Rows[1]["run_id"] != "r2" || math.Abs(o.Rows[1]["without"].(float64)-1) > 1e-12 {
		t.Errorf("%s", out)
	}
}

// TestInfluenceMETR: o1-preview at 1800 s, k = 4 on METR's all_runs.jsonl:
// every leave-one-run-out and leave-one-task-out value equals ScoreAtKCurve
// recomputed on the runs without it.
func TestInfluenceMETR(t *testing.T) {
	path := filepath.Join("..", "..", "..", "..", "..", "shared", "anchors", "eval-analysis-public",
		"3a947ac7069ecb6e1fd0064cc0205e5eb9dcba0f", "data", "external", "all_runs.jsonl")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("skipping: %s not found (../shared sits beside the checkout)", path)
	}
	const k = 4
	out, stderr, err := runCmd(t, path, "--where", "benchmark=re-bench", "--where", "agent=o1-preview", "--where", "time_limit_s=1800",
		"--k", "4", "--top", "0", "--format", "json")
	if err != nil {
		t.Fatal(err, stderr)
	}
	var o output
	json.Unmarshal([]byte(out), &o)
	ds, err := ingest.Load([]string{path}, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	random := map[string]bool{}
	for _, tk := range ds.Tasks {
		if tk.Selection.Valid && tk.Selection.V == "random" {
			random[tk.TaskID] = true
		}
	}
	type run struct {
		id, task string
		s        float64
	}
	var runs []run
	for i := range ds.Runs {
		r := &ds.Runs[i]
		if r.Benchmark == "re-bench" && r.Agent == "o1-preview" && r.TimeLimitS.Valid && r.TimeLimitS.V == 1800 && r.Score.Valid {
			runs = append(runs, run{r.RunID, r.TaskID, r.Score.V})
		}
	}
	direct := func(skipRun, skipTask string) float64 {
		by := map[string][]float64{}
		for _, r := range runs {
			if r.id != skipRun && r.task != skipTask {
				by[r.task] = append(by[r.task], r.s)
			}
		}
		var names []string
		for n := range by {
			names = append(names, n)
		}
		sort.Strings(names)
		var ts []analysis.TaskScores
		for _, n := range names {
			ts = append(ts, analysis.TaskScores{Task: n, Scores: by[n], Random: random[n]})
		}
		pts, err := analysis.ScoreAtKCurve(ts, analysis.ScoreAtKOptions{Ks: []int{k}})
		if err != nil {
			t.Fatal(err)
		}
		return pts[0].Estimate
	}
	if o.Runs != len(runs) || math.Abs(o.Estimate-direct("", "")) > 1e-12 {
		t.Fatalf("estimate %v over %d runs, direct %v over %d", o.Estimate, o.Runs, direct("", ""), len(runs))
	}
	nrun, ntask, worst := 0, 0, 0.0
	for _, r := range o.Rows {
		var want float64
		switch r["kind"] {
		case "run":
			want = direct(r["run_id"].(string), "")
			nrun++
		case "task":
			want = direct("", r["task_id"].(string))
			ntask++
		}
		worst = math.Max(worst, math.Abs(r["without"].(float64)-want))
	}
	if nrun != len(runs) || ntask != o.Tasks || worst > 1e-12 {
		t.Errorf("%d run rows (want %d), %d task rows, max |loo − direct| = %g", nrun, len(runs), ntask, worst)
	}
	t.Logf("score@%d = %.4f over %d tasks, %d runs; max |loo − direct| = %g; largest run change %v", k, o.Estimate, o.Tasks, o.Runs, worst, o.Rows[0])
}

// TestCompareFlags: --stat compare needs --a, --b and --budget; they are
// refused with the other statistics.
func TestCompareFlags(t *testing.T) {
	p := filepath.Join(t.TempDir(), "runs.jsonl")
	os.WriteFile(p, []byte(fixture), 0o644)
	for _, args := range [][]string{
		{p, "--stat", "compare", "--a", "agent=A"},
		{p, "--stat", "scoreatk", "--a", "agent=A"},
		{p, "--stat", "compare", "--a", "agent=A", "--b", "agent=B", "--budget", "soon"},
		{p, "--stat", "compare", "--a", "agent=A", "--b", "agent=B", "--budget", "1h", "--measure", "odds"},
	} {
		if _, _, err := runCmd(t, args...); err == nil {
			t.Errorf("%v: want an error", args)
		}
	}
	// A/B on the fixture: A's t1 mean 0.2 over B's 0.5 (t2 has no B run).
	out, _, err := runCmd(t, p, "--stat", "compare", "--a", "agent=A", "--b", "agent=B", "--budget", "30m", "--format", "csv")
	if err != nil || len(out) == 0 {
		t.Fatalf("%v\n%s", err, out)
	}
}

func TestHelp(t *testing.T) {
	cmd := NewCmd(nil, nil)
	if cmd.Short == "" || cmd.Long == "" || cmd.Example == "" {
		t.Error("Short, Long and Example are required")
	}
}

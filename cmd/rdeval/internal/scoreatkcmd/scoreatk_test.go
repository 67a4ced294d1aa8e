package scoreatkcmd

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdtest"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/spf13/cobra"
)

func runCmd(t *testing.T, args ...string) (int, string, string, error) {
	t.Helper()
	out, stderr, err := cmdtest.Run(t, func(io *iostreams.IO) *cobra.Command { return NewCmd(io, nil) }, args...)
	code := 0
	if err != nil {
		code = 1
	}
	return code, out, stderr, err
}

const fixture = `{"run_id":"a1","task_id":"t1","agent":"A","benchmark":"demo","time_limit_s":1800,"score":0.1}
{"run_id":"a2","task_id":"t1","agent":"A","benchmark":"demo","time_limit_s":1800,"score":0.3}
{"run_id":"a3","task_id":"t2","agent":"A","benchmark":"demo","time_limit_s":1800,"score":1.0}
{"run_id":"a4","task_id":"t2","agent":"A","benchmark":"demo","time_limit_s":1800,"score":0.0}
{"run_id":"a5","task_id":"t2","agent":"A","benchmark":"demo","time_limit_s":1800,"score":null}
`

// TestScoreAtKJSON: by hand, agent A: t1 {0.1, 0.3}, t2 {1.0, 0.0} (a5 has
// no score and is left out). k=1: (0.2 + 0.5)/2 = 0.35; k=2: (0.3 + 1.0)/2 = 0.65.
func TestScoreAtKJSON(t *testing.T) {
	p := filepath.Join(t.TempDir(), "runs.jsonl")
	os.WriteFile(p, []byte(fixture), 0o644)
	_, out, stderr, err := runCmd(t, p, "--format", "json", "--k", "1,2", "--boot", "200", "--seed", "7")
	if err != nil {
		t.Fatal(err, stderr)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err, out)
	}
	if len(rows) != 2 {
		t.Fatalf("%d rows: %s", len(rows), out)
	}
	for i, want := range []float64{0.35, 0.65} {
		r := rows[i]
		if r["agent"] != "A" || r["time_limit_s"].(float64) != 1800 || r["n_tasks"].(float64) != 2 || math.Abs(r["estimate"].(float64)-want) > 1e-12 {
			t.Errorf("row %d: %v", i, r)
		}
		for _, f := range []string{"k", "tasks_dropped", "boot_mean", "ci_low", "ci_high"} {
			if _, ok := r[f]; !ok {
				t.Errorf("row %d lacks %s", i, f)
			}
		}
	}
	if !strings.Contains(stderr, "1 runs without a score") {
		t.Errorf("stderr %q", stderr)
	}
	_, again, _, _ := runCmd(t, p, "--format", "json", "--k", "1,2", "--boot", "200", "--seed", "7")
	if again != out {
		t.Errorf("same seed, different output")
	}
	_, noBoot, _, _ := runCmd(t, p, "--format", "json", "--boot", "0")
	if !strings.Contains(noBoot, `"ci_low": null`) {
		t.Errorf("--boot 0: CI should be null:\n%s", noBoot)
	}
}

func TestScoreAtKErrors(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "runs.jsonl")
	os.WriteFile(p, []byte(fixture), 0o644)
	allNull := filepath.Join(dir, "null.jsonl")
	os.WriteFile(allNull, []byte(`{"run_id":"a","task_id":"t","agent":"A","benchmark":"d","score":null}`+"\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{p, "--k", "0"}, "k must be a positive integer"},
		{[]string{p, "--where", "agent=Nobody"}, `no run has agent "Nobody" (present: A)`},
		{[]string{allNull}, "no run has a score"},
		{[]string{p, "--ci", "95"}, "want a level between 0 and 1"},
		{[]string{p, "--short-tasks", "keep"}, "want drop or truncate"},
	} {
		_, _, _, err := runCmd(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.want)
		}
	}
}

// TestScoreAtKMETRValues: regression values from ../shared/methods.md §1.3
// (a reimplementation of METR's estimator on all_runs.jsonl @3a947ac):
// Claude 3.5 Sonnet (New) 30 min k=1 0.296; o1-preview 30 min k=1 0.113,
// k=16 0.627; 2 h k=1 0.235; human (8 h) k=1 0.786, k=2 1.129, k=4 1.535.
// These use small_scaling_law's mean for every k, as the catalog says.
func TestScoreAtKMETRValues(t *testing.T) {
	path := filepath.Join("..", "..", "..", "..", "..", "shared", "anchors", "eval-analysis-public",
		"3a947ac7069ecb6e1fd0064cc0205e5eb9dcba0f", "data", "external", "all_runs.jsonl")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("skipping: %s not found (../shared sits beside the checkout)", path)
	}
	_, out, stderr, err := runCmd(t, path, "--where", "benchmark=re-bench", "--boot", "0", "--k", "1,2,4,16", "--short-tasks", "drop", "--format", "json")
	if err != nil {
		t.Fatal(err, stderr)
	}
	var rows []map[string]any
	json.Unmarshal([]byte(out), &rows)
	find := func(agent string, tl any, k int) float64 {
		for _, r := range rows {
			if r["agent"] == agent && r["time_limit_s"] == tl && int(r["k"].(float64)) == k && r["estimate"] != nil {
				return r["estimate"].(float64)
			}
		}
		t.Fatalf("no row %s %v k=%d", agent, tl, k)
		return 0
	}
	for _, c := range []struct {
		agent string
		tl    any
		k     int
		want  float64
	}{
		{"Claude 3.5 Sonnet (New)", 1800.0, 1, 0.296},
		{"o1-preview", 1800.0, 1, 0.113},
		{"o1-preview", 1800.0, 16, 0.627},
		{"o1-preview", 7200.0, 1, 0.235},
		{"human", nil, 1, 0.786},
		{"human", nil, 2, 1.129},
		{"human", nil, 4, 1.535},
	} {
		if got := find(c.agent, c.tl, c.k); math.Abs(got-c.want) > 0.0005 {
			t.Errorf("%s %v k=%d: %.4f, methods.md %.3f", c.agent, c.tl, c.k, got, c.want)
		}
	}
}

// TestScoreAtKTaskWeights: by hand, k=1 task means t1 0.2, t2 0.5; weights
// t1 3, t2 1 → (3·0.2 + 0.5)/4 = 0.275. A task without a weight is an error.
func TestScoreAtKTaskWeights(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "runs.jsonl")
	os.WriteFile(p, []byte(fixture), 0o644)
	w := filepath.Join(dir, "w.csv")
	os.WriteFile(w, []byte("task_id,weight\nt1,3\nt2,1\n"), 0o644)
	out, stderr, err := runCmdOut(t, p, "--k", "1", "--boot", "0", "--task-weights", w, "--format", "json")
	if err != nil {
		t.Fatal(err, stderr)
	}
	var rows []map[string]any
	json.Unmarshal([]byte(out), &rows)
	if len(rows) != 1 || math.Abs(rows[0]["estimate"].(float64)-0.275) > 1e-12 {
		t.Errorf("%s", out)
	}
	os.WriteFile(w, []byte("task_id,weight\nt1,3\n"), 0o644)
	if _, _, err := runCmdOut(t, p, "--k", "1", "--boot", "0", "--task-weights", w); err == nil || !strings.Contains(err.Error(), `no weight for task "t2"`) {
		t.Errorf("missing weight: %v", err)
	}
}

func runCmdOut(t *testing.T, args ...string) (string, string, error) {
	_, out, stderr, err := runCmd(t, args...)
	return out, stderr, err
}

// TestScoreAtKWarnings: issue 24. Agent A has 4 runs on t1 and t2, agent B
// one run on t1 only: the default k list stops at n/2 (A: k = 1, 2; B:
// k = 1), B is warned that it covers 1 of the 2 tasks and that its single
// runs give a zero-width interval, --k 4 is warned as above n/2, and
// --boot-unit tasks gives A an interval over tasks.
func TestScoreAtKWarnings(t *testing.T) {
	var b strings.Builder
	for i, s := range []float64{0.1, 0.5, 0.2, 0.9} {
		fmt.Fprintf(&b, `{"run_id":"a%d","task_id":"t1","agent":"A","benchmark":"demo","time_limit_s":1800,"score":%v}`+"\n", i, s)
		fmt.Fprintf(&b, `{"run_id":"c%d","task_id":"t2","agent":"A","benchmark":"demo","time_limit_s":1800,"score":%v}`+"\n", i, 1-s)
	}
	b.WriteString(`{"run_id":"b1","task_id":"t1","agent":"B","benchmark":"demo","time_limit_s":1800,"score":0.4}` + "\n")
	p := filepath.Join(t.TempDir(), "runs.jsonl")
	os.WriteFile(p, []byte(b.String()), 0o644)
	_, out, stderr, err := runCmd(t, p, "--format", "csv", "--boot", "200")
	if err != nil {
		t.Fatal(err, stderr)
	}
	if got := strings.Count(out, "\n"); got != 4 { // header, A k=1,2, B k=1
		t.Errorf("default k list: %d lines\n%s", got, out)
	}
	for _, want := range []string{"B / 1800: covers 1 of the 2 tasks in this table (missing: t2)", "B / 1800: k=1: every task has one run", "--boot-unit tasks"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	_, _, stderr, _ = runCmd(t, p, "--k", "4", "--by", "agent", "--where", "agent=A", "--boot", "200")
	if !strings.Contains(stderr, "k=4 is more than half the runs of the smallest task (4)") {
		t.Errorf("k=4 of 4 runs: stderr\n%s", stderr)
	}
	_, out, stderr, err = runCmd(t, p, "--boot-unit", "tasks", "--format", "json", "--where", "agent=A", "--k", "1")
	if err != nil {
		t.Fatal(err, stderr)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 1 || !(rows[0]["ci_high"].(float64) >= rows[0]["ci_low"].(float64)) {
		t.Errorf("--boot-unit tasks: %v %s", err, out)
	}
	if _, _, _, err := runCmd(t, p, "--boot-unit", "families"); err == nil {
		t.Error("--boot-unit families accepted")
	}
}

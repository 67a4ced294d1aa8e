package horizoncmd

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdtest"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/spf13/cobra"
)

func runCmd(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	return cmdtest.Run(t, func(io *iostreams.IO) *cobra.Command { return NewCmd(io, nil) }, args...)
}

// fixture: agent A (6 runs) succeeds on the 1- and 2-minute tasks and fails on the
// 8- and 16-minute ones, with one success at 4 minutes of two runs; B never
// succeeds; a human run and a run without human_minutes are left out.
const fixture = `{"run_id":"1","task_id":"t1","task_family":"f1","agent":"A","benchmark":"demo","human_minutes":1,"score_binarized":1}
{"run_id":"2","task_id":"t2","task_family":"f1","agent":"A","benchmark":"demo","human_minutes":2,"score_binarized":1}
{"run_id":"3","task_id":"t3","task_family":"f2","agent":"A","benchmark":"demo","human_minutes":4,"score_binarized":1}
{"run_id":"4","task_id":"t3","task_family":"f2","agent":"A","benchmark":"demo","human_minutes":4,"score_binarized":0}
{"run_id":"5","task_id":"t4","task_family":"f3","agent":"A","benchmark":"demo","human_minutes":8,"score_binarized":0}
{"run_id":"6","task_id":"t5","task_family":"f3","agent":"A","benchmark":"demo","human_minutes":16,"score_binarized":0}
{"run_id":"7","task_id":"t1","task_family":"f1","agent":"B","benchmark":"demo","human_minutes":1,"score_binarized":0}
{"run_id":"8","task_id":"t5","task_family":"f3","agent":"B","benchmark":"demo","human_minutes":16,"score_binarized":0}
{"run_id":"9","task_id":"t5","task_family":"f3","agent":"human","kind":"human","benchmark":"demo","human_minutes":16,"score_binarized":1}
{"run_id":"10","task_id":"t6","task_family":"f4","agent":"A","benchmark":"demo","score_binarized":1}
`

// TestHorizonJSON: A's data are symmetric about x = log2(4) = 2 (weights
// and outcomes mirror around t3), so its p50 is exactly 4 minutes; B has
// no success: slope −Inf, horizons 0.
func TestHorizonJSON(t *testing.T) {
	p := filepath.Join(t.TempDir(), "runs.jsonl")
	os.WriteFile(p, []byte(fixture), 0o644)
	out, stderr, err := runCmd(t, p, "--format", "json", "--boot", "100", "--seed", "3")
	if err != nil {
		t.Fatal(err, stderr)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err, out)
	}
	if len(rows) != 2 || rows[0]["agent"] != "A" || rows[1]["agent"] != "B" {
		t.Fatalf("rows: %s", out)
	}
	a := rows[0]
	if n := a["n"].(float64); n != 6 {
		t.Errorf("A: n = %v, want 6", n)
	}
	if p50 := a["p50_minutes"].(float64); math.Abs(p50-4) > 1e-9 {
		t.Errorf("A: p50 %v, want 4", p50)
	}
	if p80 := a["p80_minutes"].(float64); !(p80 < 4) || a["slope"].(float64) >= 0 {
		t.Errorf("A: %v", a)
	}
	for _, f := range []string{"intercept", "p50_ci_low", "p50_ci_high", "p80_ci_low", "p80_ci_high", "average_success", "boot_skipped"} {
		if _, ok := a[f]; !ok {
			t.Errorf("A lacks %s", f)
		}
	}
	b := rows[1]
	if b["slope"] != nil || b["p50_minutes"].(float64) != 0 || b["average_success"].(float64) != 0 {
		t.Errorf("B: %v", b)
	}
	for _, w := range []string{"1 agent runs without human_minutes", "B: no success"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	}
	again, _, _ := runCmd(t, p, "--format", "json", "--boot", "100", "--seed", "3")
	if again != out {
		t.Error("same seed, different output")
	}
	other, _, _ := runCmd(t, p, "--format", "json", "--boot", "100", "--seed", "4")
	if other == out {
		t.Error("different seeds, same output")
	}
	csv, _, err := runCmd(t, p, "--format", "csv", "--boot", "0", "--quantiles", "0.5,0.975")
	if err != nil || !strings.HasPrefix(csv, "agent,n,slope,intercept,p50_minutes,p50_ci_low,p50_ci_high,p97.5_minutes,") {
		t.Errorf("csv: %v\n%s", err, csv)
	}
}

func TestHorizonErrors(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "runs.jsonl")
	os.WriteFile(p, []byte(fixture), 0o644)
	bad := filepath.Join(dir, "dates.yaml")
	os.WriteFile(bad, []byte("A: soon\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{p, "--weighting", "sqrt"}, "want equal or invsqrt"},
		{[]string{p, "--regularization", "0"}, "want a positive number"},
		{[]string{p, "--quantiles", "1.5"}, "between 0 and 1"},
		{[]string{p, "--score-col", "raw_score"}, "want score_binarized or score"},
		{[]string{p, "--release-dates", bad}, "want a date YYYY-MM-DD"},
		{[]string{p, "--release-dates", bad, "--quantiles", "0.8"}, "needs 0.5"},
		{[]string{p, "--where", "agent=human"}, "no agent run has both"},
		{[]string{p, "--figure", "trend.svg"}, "add --release-dates"},
		{[]string{p, "--release-dates", bad, "--figure", "trend.txt"}, "want a .svg, .png or .pdf file"},
	} {
		_, _, err := runCmd(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.want)
		}
	}
}

// TestHorizonFigure: --figure writes an SVG with both dated agents and the
// trend's legend entry, and leaves no temporary file beside it.
func TestHorizonFigure(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "runs.jsonl")
	os.WriteFile(p, []byte(fixture), 0o644)
	dates := filepath.Join(dir, "dates.yaml")
	os.WriteFile(dates, []byte("B: 2024-01-15\nA: 2024-09-01\n"), 0o644)
	fig := filepath.Join(dir, "trend.svg")
	_, stderr, err := runCmd(t, p, "--release-dates", dates, "--boot", "50", "--figure", fig)
	if err != nil {
		t.Fatal(err, stderr)
	}
	b, err := os.ReadFile(fig)
	if err != nil {
		t.Fatal(err, stderr)
	}
	for _, want := range []string{"<svg", ">A<", "trend (frontier)"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("figure lacks %q", want)
		}
	}
	if !strings.Contains(stderr, "wrote "+fig) {
		t.Errorf("stderr %q does not name the figure", stderr)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 3 {
		t.Errorf("files in the output folder: %v", ents)
	}
}

func metrPath(t *testing.T, commit, file string) string {
	path := filepath.Join("..", "..", "..", "..", "..", "shared", "anchors", "eval-analysis-public", commit, "data", "external", file)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("skipping: %s not found (../shared sits beside the checkout)", path)
	}
	return path
}

// TestHorizonMETR runs the command on METR's all_runs.jsonl @3a947ac with
// the headline settings and METR's release dates @52d6b56. Point values
// are sklearn's (testdata/reference/horizon_3a947ac.csv, newton-cholesky
// columns), to 1e-7 relative.
func TestHorizonMETR(t *testing.T) {
	runs := metrPath(t, "3a947ac7069ecb6e1fd0064cc0205e5eb9dcba0f", "all_runs.jsonl")
	dates := metrPath(t, "52d6b564d243aeb7531f1cbdc7c33a5a2cc98aaf", "release_dates.yaml")
	boot := "200"
	if testing.Short() {
		boot = "20"
	}
	out, stderr, err := runCmd(t, runs, "--release-dates", dates, "--boot", boot, "--format", "json")
	if err != nil {
		t.Fatal(err, stderr)
	}
	var doc struct {
		Agents []map[string]any
		Trend  map[string]any
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err, out)
	}
	want := map[string][2]float64{
		"o1-preview":              {30.716323961589779, 2.5181964785515207},
		"Claude 3.5 Sonnet (New)": {54.048422956640188, 3.7719753190546403},
		"GPT-4 0314":              {3.657052446801095, 0.29479922307544115},
	}
	if len(doc.Agents) != 10 {
		t.Errorf("%d agents, want 10 (human excluded)", len(doc.Agents))
	}
	for _, a := range doc.Agents {
		w, ok := want[a["agent"].(string)]
		if !ok {
			continue
		}
		p50, p80 := a["p50_minutes"].(float64), a["p80_minutes"].(float64)
		if math.Abs(p50/w[0]-1) > 1e-7 || math.Abs(p80/w[1]-1) > 1e-7 {
			t.Errorf("%s: p50 %v p80 %v, sklearn %v", a["agent"], p50, p80, w)
		}
		if !(a["p50_ci_low"].(float64) < p50 && p50 < a["p50_ci_high"].(float64)) {
			t.Errorf("%s: p50 %v outside its interval %v–%v", a["agent"], p50, a["p50_ci_low"], a["p50_ci_high"])
		}
	}
	t.Logf("trend: %v", doc.Trend)
	if d, ok := doc.Trend["doubling_days"].(float64); !ok || !(d > 0) {
		t.Errorf("trend %v", doc.Trend)
	}
	// gpt-3.5-turbo-instruct's p50 (1.8e-6 min for tasks of 1–1,390 min) is
	// refused, so it is not in the trend: it was on the frontier and, read
	// as 1e-3 min, made the doubling time 70 days (bootstrap median 141)
	// instead of 160 (median 163, 200 replicates).
	for _, a := range doc.Trend["agents"].([]any) {
		if a == "gpt-3.5-turbo-instruct" {
			t.Errorf("refused agent in the trend: %v", doc.Trend["agents"])
		}
	}
	if !strings.Contains(stderr, "gpt-3.5-turbo-instruct: p50 refused (see above): left out of the trend") {
		t.Errorf("no warning for the refused agent:\n%s", stderr)
	}
}

// TestHorizonDemoRefused (issue 24): the demo study's RE-Bench runs have
// human minutes on 7 tasks of 417–653 min only, on which no horizon can be
// fitted (one agent's p50 was 2.8e-145 min, the others' slopes are
// positive): those horizons are refused, with a reason, and none printed.
// Its time-horizon part (benchmark hcast, tasks of 1 min–16 h) gives every
// one of its agents a p50 and p80 inside the task lengths, with an interval
// around it.
func TestHorizonDemoRefused(t *testing.T) {
	out, stderr, err := runCmd(t, "--demo", "--boot", "50", "--seed", "1", "--format", "json")
	if err != nil {
		t.Fatal(err, stderr)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err, out)
	}
	fitted := 0
	for _, r := range rows {
		if strings.HasPrefix(r["agent"].(string), "react ") {
			fitted++
			for _, p := range []string{"p50", "p80"} {
				v, _ := r[p+"_minutes"].(float64)
				lo, _ := r[p+"_ci_low"].(float64)
				hi, _ := r[p+"_ci_high"].(float64)
				if !(v > 0.1 && v < 16*60) || !(lo < v && v < hi) {
					t.Errorf("%s: %s = %v [%v, %v]: want a horizon inside the tasks' lengths with its interval around it", r["agent"], p, r[p+"_minutes"], r[p+"_ci_low"], r[p+"_ci_high"])
				}
			}
			continue
		}
		for _, p := range []string{"p50", "p80"} {
			if r[p+"_minutes"] != nil || r[p+"_ci_low"] != nil {
				t.Errorf("%s: %s = %v printed", r["agent"], p, r[p+"_minutes"])
			}
			if why, _ := r[p+"_refused"].(string); why == "" {
				t.Errorf("%s: %s refused without a reason", r["agent"], p)
			}
		}
		if _, ok := r["boot_skipped_share"].(float64); !ok {
			t.Errorf("%s: no boot_skipped_share", r["agent"])
		}
	}
	if fitted != 5 || len(rows) != 8 {
		t.Errorf("%d agents, %d of the horizon part; want 3 RE-Bench agents and 5", len(rows), fitted)
	}
	if !strings.Contains(stderr, "refused") || !strings.Contains(stderr, "an extrapolation of the fit") {
		t.Errorf("stderr:\n%s", stderr)
	}
}

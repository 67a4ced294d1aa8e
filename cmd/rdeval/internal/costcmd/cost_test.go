package costcmd

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rdeval/rdeval/analysis"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdtest"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/spf13/cobra"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

func runCmd(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	return cmdtest.Run(t, func(io *iostreams.IO) *cobra.Command {
		c := NewCmd(io, nil)
		c.SetFlagErrorFunc(cmdutil.FlagError) // a bad flag is a usage error, as in rdeval
		return c
	}, args...)
}

// demoRuns is the demo study's RE-Bench run file (METR's format).
var demoRuns = filepath.Join("..", "demo", "data", "re-bench", "runs.jsonl")

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if string(want) != got {
		os.WriteFile(path+".got", []byte(got), 0o644)
		t.Errorf("output differs from %s (see %s.got; go test -update if intended)", path, path)
	}
}

// TestDemoGolden pins stdout and stderr of the table and csv output on the
// demo study (rewrite with -update and review the diff).
func TestDemoGolden(t *testing.T) {
	for _, f := range []string{"table", "csv"} {
		out, stderr, err := runCmd(t, "--demo", "--where", "benchmark=re-bench", "--boot", "1000", "--seed", "3", "--format", f)
		if err != nil {
			t.Fatal(err, stderr)
		}
		checkGolden(t, "demo."+f, "--- stdout\n"+out+"--- stderr\n"+stderr)
	}
}

// TestDemoJSON checks the JSON rows on the demo study against each other:
// the ratios, the humans' $1840 per run, the frontier recomputed by brute
// force, and intervals that hold their estimates.
func TestDemoJSON(t *testing.T) {
	out, _, err := runCmd(t, demoRuns, "--boot", "500", "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 10 { // 3 agents × 3 time limits + humans
		t.Fatalf("%d rows", len(rows))
	}
	num := func(v any) float64 {
		if v == nil {
			return math.NaN()
		}
		return v.(float64)
	}
	var cost, score []float64
	for _, r := range rows {
		c, s, sr := num(r["mean_cost"]), num(r["mean_score"]), num(r["success_rate"])
		cost, score = append(cost, c), append(score, s)
		if cps := num(r["cost_per_success"]); sr > 0 && math.Abs(cps-c/sr) > 1e-9*cps || sr == 0 && r["cost_per_success"] != nil {
			t.Errorf("%v: cost per success %v, mean cost %v, success %v", r["agent"], cps, c, sr)
		}
		if cpsc := num(r["cost_per_score"]); math.Abs(cpsc-c/s) > 1e-9*cpsc {
			t.Errorf("%v: cost per score %v", r["agent"], cpsc)
		}
		for _, n := range analysis.CostNames {
			est, lo, hi := num(r[n]), num(r[n+"_ci_low"]), num(r[n+"_ci_high"])
			if !math.IsNaN(est) && !math.IsNaN(hi) && !(lo <= est && est <= hi) {
				t.Errorf("%v %v %s: %v outside [%v, %v]", r["agent"], r["time_limit_s"], n, est, lo, hi)
			}
		}
		if r["agent"] == "human" {
			if r["kind"] != "human" || c != 1840 || r["mean_tokens"] != nil || r["time_limit_s"] != float64(28800) {
				t.Errorf("humans: %v", r)
			}
		} else if r["kind"] != "agent" || r["mean_tokens"] == nil {
			t.Errorf("agent row: %v", r)
		}
	}
	for i := range rows {
		dominated := false
		for j := range rows {
			if cost[j] <= cost[i] && score[j] >= score[i] && (cost[j] < cost[i] || score[j] > score[i]) {
				dominated = true
			}
		}
		if rows[i]["pareto"] != !dominated {
			t.Errorf("%v %v: pareto %v, dominated %v", rows[i]["agent"], rows[i]["time_limit_s"], rows[i]["pareto"], dominated)
		}
	}
	// --no-humans drops the human row; the others keep their numbers.
	out2, _, err := runCmd(t, demoRuns, "--boot", "500", "--format", "json", "--no-humans")
	if err != nil {
		t.Fatal(err)
	}
	var rows2 []map[string]any
	json.Unmarshal([]byte(out2), &rows2)
	if len(rows2) != 9 || rows2[0]["mean_cost_ci_low"] != rows[0]["mean_cost_ci_low"] {
		t.Errorf("--no-humans: %d rows", len(rows2))
	}
}

// TestFigure: --figure writes an SVG that names the groups.
func TestFigure(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cost.svg")
	if _, stderr, err := runCmd(t, demoRuns, "--boot", "100", "--figure", path); err != nil {
		t.Fatal(err, stderr)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "Pareto frontier", "Modular (Model A), 30 min", "human, 8 h"} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("figure lacks %q", want)
		}
	}
}

// TestBadInput: a negative cost is bad input naming file, line, run and
// field; runs without costs, bad flags and a bad figure name are refused.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile(demoRuns)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(b), "\n", 4)
	neg := filepath.Join(dir, "neg.jsonl")
	os.WriteFile(neg, []byte(lines[0]+"\n"+lines[1]+"\n"+strings.Replace(lines[2], `"dollar_equivalent":5.16`, `"dollar_equivalent":-5.16`, 1)+"\n"), 0o644)
	_, _, err = runCmd(t, neg, "--boot", "10")
	var bad *cmdutil.BadInputError
	if !errors.As(err, &bad) || !strings.Contains(err.Error(), `neg.jsonl:3: run demo-rb-000003: field "cost_usd"`) || !strings.Contains(err.Error(), "-5.16") {
		t.Errorf("negative cost: %v", err)
	}
	rex := filepath.Join("..", "demo", "data", "rexbench", "runs.jsonl")
	if _, _, err := runCmd(t, rex); !errors.As(err, &bad) || !strings.Contains(err.Error(), "no run has cost_usd") {
		t.Errorf("runs without costs: %v", err)
	}
	var usage *cmdutil.UsageError
	for _, args := range [][]string{
		{demoRuns, "--boot-unit", "families"},
		{demoRuns, "--frontier-on", "tokens"},
		{demoRuns, "--boot", "-1"},
		{demoRuns, "--ci", "1"},
		{demoRuns, "--by", "nosuchcolumn"},
		{demoRuns, "--figure", "cost.txt"},
		{demoRuns, "--format", "markdown"},
	} {
		if _, _, err := runCmd(t, args...); !errors.As(err, &usage) {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
}

// TestDemoReference compares the point estimates and the frontier on the
// demo study's RE-Bench runs with numpy (testdata/reference/cost_demo.py →
// cost_demo.csv; python 3.11.2, numpy 1.24.2) to 1e-12 relative; +Inf and
// NaN (humans' tokens) exactly.
func TestDemoReference(t *testing.T) {
	f, err := os.Open("../../../../testdata/reference/cost_demo.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comment = '#'
	ref, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := runCmd(t, demoRuns, "--boot", "0", "--format", "csv")
	if err != nil {
		t.Fatal(err)
	}
	got, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// csv has 4 decimals: compare the JSON's full numbers, in the same order.
	js, _, err := runCmd(t, demoRuns, "--boot", "0", "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(js), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(ref)-1 || len(got) != len(ref) {
		t.Fatalf("%d rows, numpy %d", len(rows), len(ref)-1)
	}
	for i, w := range ref[1:] {
		row := rows[i]
		if row["agent"] != w[0] || strconv.Itoa(int(row["time_limit_s"].(float64))) != w[1] {
			t.Fatalf("row %d: %v %v, numpy %v", i, row["agent"], row["time_limit_s"], w[:2])
		}
		for q, n := range analysis.CostNames {
			want, _ := strconv.ParseFloat(w[2+q], 64)
			var g float64
			switch v := row[n].(type) {
			case float64:
				g = v
			case nil: // JSON null: the csv says +Inf or empty (NaN)
				g = math.NaN()
				if got[i+1][5+3*q] == "+Inf" {
					g = math.Inf(1)
				}
			}
			ok := math.Abs(g-want) <= 1e-12*math.Abs(want) || math.IsInf(want, 1) && math.IsInf(g, 1) || math.IsNaN(want) && math.IsNaN(g)
			if !ok {
				t.Errorf("%v %v %s: %v, numpy %v", w[0], w[1], n, g, want)
			}
		}
		if fmt.Sprint(row["pareto"]) != w[8] {
			t.Errorf("%v %v: pareto %v, numpy %v", w[0], w[1], row["pareto"], w[8])
		}
	}
}

// TestHumansWithoutCost: human runs without cost_usd are left out with a
// warning of their own, and a group whose costed runs cover fewer tasks
// than another's is warned about.
func TestHumansWithoutCost(t *testing.T) {
	b, err := os.ReadFile(demoRuns)
	if err != nil {
		t.Fatal(err)
	}
	var keep []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		switch {
		case strings.Contains(l, `"alias":"human"`):
			l = strings.Replace(l, `"dollar_equivalent":1840`, `"dollar_equivalent":null`, 1)
		case strings.Contains(l, `"alias":"AIDE (Model B)"`) && strings.Contains(l, "ai_rd_fix_embedding"):
			l = strings.Replace(l, `"dollar_equivalent":`, `"dollar_equivalent":null,"x":`, 1)
		}
		keep = append(keep, l)
	}
	path := filepath.Join(t.TempDir(), "runs.jsonl")
	os.WriteFile(path, []byte(strings.Join(keep, "\n")+"\n"), 0o644)
	out, stderr, err := runCmd(t, path, "--boot", "0", "--format", "csv")
	if err != nil {
		t.Fatal(err, stderr)
	}
	for _, want := range []string{"42 human runs have no cost_usd", "runs without cost_usd are left out", "agent=AIDE (Model B) time_limit_s=1800: its runs with a cost cover 6 tasks, another group's 7"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(out, "human") {
		t.Errorf("a human row without costs:\n%s", out)
	}
}

// TestBootUnit: --boot-unit tasks keeps the estimates and the frontier
// and changes the intervals, and the same seed gives the same bytes.
func TestBootUnit(t *testing.T) {
	rowsOf := func(args ...string) []map[string]any {
		out, _, err := runCmd(t, append([]string{demoRuns, "--boot", "400", "--format", "json"}, args...)...)
		if err != nil {
			t.Fatal(err)
		}
		var rows []map[string]any
		if err := json.Unmarshal([]byte(out), &rows); err != nil {
			t.Fatal(err)
		}
		return rows
	}
	runs, tasks := rowsOf(), rowsOf("--boot-unit", "tasks")
	if fmt.Sprint(runs) != fmt.Sprint(rowsOf()) {
		t.Error("same seed, different output")
	}
	differ := 0
	for i := range runs {
		if runs[i]["mean_cost"] != tasks[i]["mean_cost"] || runs[i]["mean_score"] != tasks[i]["mean_score"] || runs[i]["pareto"] != tasks[i]["pareto"] {
			t.Errorf("row %d: estimates differ between units", i)
		}
		if runs[i]["mean_score_ci_low"] != tasks[i]["mean_score_ci_low"] {
			differ++
		}
	}
	if differ < len(runs)-1 {
		t.Errorf("%d of %d groups' score intervals differ between units", differ, len(runs))
	}
}

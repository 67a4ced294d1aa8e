package analysis

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// metrAllRuns is METR's all_runs.jsonl @3a947ac in ../shared.
var metrAllRuns = filepath.Join("..", "..", "shared", "anchors", "eval-analysis-public",
	"3a947ac7069ecb6e1fd0064cc0205e5eb9dcba0f", "data", "external", "all_runs.jsonl")

// metrRuns reads the RE-Bench rows of METR's all_runs.jsonl @3a947ac from
// ../shared (skipping when absent) as (alias, time_limit) → task → scores.
// analysis imports no project package, so it parses the few fields itself.
func metrRuns(t testing.TB) map[[2]string]map[string][]float64 {
	t.Helper()
	path := metrAllRuns
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("skipping: METR reference data %s not found (../shared sits beside the checkout)", path)
	}
	defer f.Close()
	out := map[[2]string]map[string][]float64{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r struct {
			TaskID    string   `json:"task_id"`
			Alias     string   `json:"alias"`
			TimeLimit int      `json:"time_limit"`
			Score     *float64 `json:"score"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(r.TaskID, "ai_rd_") || r.Score == nil {
			continue
		}
		key := [2]string{r.Alias, strconv.Itoa(r.TimeLimit)}
		if out[key] == nil {
			out[key] = map[string][]float64{}
		}
		out[key][r.TaskID] = append(out[key][r.TaskID], *r.Score)
	}
	return out
}

func readReference(t *testing.T, name string) [][]string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "reference", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comment = '#'
	rows, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows[1:]
}

func atof(t *testing.T, s string) float64 {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestScoreAtKMETRReference compares ScoreAtK on every RE-Bench (alias,
// time limit, task) group of METR's data with exact rational arithmetic
// (testdata/reference/scoreatk.py point; Python fractions, numpy 1.24.2),
// to 1e-9 absolute.
func TestScoreAtKMETRReference(t *testing.T) {
	groups := metrRuns(t)
	rows := readReference(t, "scoreatk_point_3a947ac.csv")
	if len(rows) < 300 {
		t.Fatalf("only %d reference rows", len(rows))
	}
	for _, r := range rows {
		scores := groups[[2]string{r[0], r[1]}][r[2]]
		n, _ := strconv.Atoi(r[3])
		k, _ := strconv.Atoi(r[4])
		if len(scores) != n {
			t.Fatalf("%v: %d scores, reference has %d", r[:3], len(scores), n)
		}
		got := ScoreAtK(scores, k, false)
		if want := atof(t, r[5]); math.Abs(got-want) > 1e-9 {
			t.Errorf("%v k=%d: %.17g, reference %.17g", r[:3], k, got, want)
		}
	}
}

// TestScoreAtKBootstrapReference compares the bootstrap with numpy's
// (testdata/reference/scoreatk.py boot: B = 10,000, another generator).
// The point estimate must agree to 1e-9; the bootstrap mean and the
// 2.5/97.5 percentiles agree within Monte Carlo error: the standard error of
// a 2.5 % quantile of 10,000 replicates is ≈ 0.027 bootstrap sd for a normal
// shape, so two independent runs differ by ≈ 0.04 sd; we allow 0.15 sd
// (plus 1e-9 for groups whose replicates are nearly constant).
func TestScoreAtKBootstrapReference(t *testing.T) {
	if testing.Short() {
		t.Skip("bootstrap reference comparison skipped in -short mode")
	}
	groups := metrRuns(t)
	rows := readReference(t, "scoreatk_boot_3a947ac.csv")
	type key struct{ alias, tl string }
	byGroup := map[key][][]string{}
	for _, r := range rows {
		byGroup[key{r[0], r[1]}] = append(byGroup[key{r[0], r[1]}], r)
	}
	keys := make([]key, 0, len(byGroup))
	for k := range byGroup {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].alias+keys[i].tl < keys[j].alias+keys[j].tl })
	for _, g := range keys {
		var tasks []TaskScores
		for task, s := range groups[[2]string{g.alias, g.tl}] {
			tasks = append(tasks, TaskScores{Task: task, Scores: s})
		}
		sort.Slice(tasks, func(i, j int) bool { return tasks[i].Task < tasks[j].Task })
		var ks []int
		for _, r := range byGroup[g] {
			k, _ := strconv.Atoi(r[2])
			ks = append(ks, k)
		}
		pts, err := ScoreAtKCurve(tasks, ScoreAtKOptions{Ks: ks, Boot: 10000, Seed: 1, Level: 0.95})
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range byGroup[g] {
			p := pts[i]
			nt, _ := strconv.Atoi(r[3])
			est, bmean, sd, lo, hi := atof(t, r[4]), atof(t, r[5]), atof(t, r[6]), atof(t, r[7]), atof(t, r[8])
			tol := 0.15*sd + 1e-9
			if p.NTasks != nt || math.Abs(p.Estimate-est) > 1e-9 {
				t.Errorf("%v k=%d: %d tasks, estimate %v; reference %d, %v", g, p.K, p.NTasks, p.Estimate, nt, est)
			}
			if math.Abs(p.BootMean-bmean) > tol || math.Abs(p.CILow-lo) > tol || math.Abs(p.CIHigh-hi) > tol {
				t.Errorf("%v k=%d: boot mean %.4f CI [%.4f, %.4f]; numpy %.4f [%.4f, %.4f] (tolerance %.4f)",
					g, p.K, p.BootMean, p.CILow, p.CIHigh, bmean, lo, hi, tol)
			}
		}
	}
}

// metrRunsB groups metrRuns into per-(alias, time limit) task lists, sorted.
func metrRunsB(b *testing.B) [][]TaskScores {
	groups := metrRuns(b)
	keys := make([][2]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i][0]+keys[i][1] < keys[j][0]+keys[j][1] })
	var out [][]TaskScores
	for _, k := range keys {
		var tasks []TaskScores
		for task, s := range groups[k] {
			tasks = append(tasks, TaskScores{Task: task, Scores: s})
		}
		sort.Slice(tasks, func(i, j int) bool { return tasks[i].Task < tasks[j].Task })
		out = append(out, tasks)
	}
	return out
}

// TestScoreAtKBCaReference compares the BCa interval with
// scipy.stats.bootstrap(method="BCa") (testdata/reference/scoreatk_bca.py:
// scipy 1.10.1, B = 10,000, another generator) on METR groups. BCa ends
// move more between runs than percentile ends (they sit at adjusted, often
// more extreme, levels). Measured: over 30 seeds, the upper BCa end of
// human k=2 has a Monte Carlo sd of 0.0206 = 0.135 bootstrap standard
// errors at B = 10,000, so two independent runs (ours and scipy's) differ
// with an sd of about 0.19 se; the tolerance is 0.6 se (about 3 sd). The
// replicates themselves are checked exactly by TestReplicateMatchesDirect.
func TestScoreAtKBCaReference(t *testing.T) {
	if testing.Short() {
		t.Skip("bootstrap reference comparison skipped in -short mode")
	}
	groups := metrRuns(t)
	for _, r := range readReference(t, "scoreatk_bca_3a947ac.csv") {
		var tasks []TaskScores
		for task, s := range groups[[2]string{r[0], r[1]}] {
			tasks = append(tasks, TaskScores{Task: task, Scores: s})
		}
		sort.Slice(tasks, func(i, j int) bool { return tasks[i].Task < tasks[j].Task })
		k, _ := strconv.Atoi(r[2])
		pts, err := ScoreAtKCurve(tasks, ScoreAtKOptions{Ks: []int{k}, Boot: 10000, Seed: 3, Level: 0.95, Interval: BCa})
		if err != nil {
			t.Fatal(err)
		}
		p := pts[0]
		lo, hi, se := atof(t, r[4]), atof(t, r[5]), atof(t, r[6])
		nt, _ := strconv.Atoi(r[3])
		t.Logf("%s %s k=%d: BCa [%.4f, %.4f], scipy [%.4f, %.4f], se %.4f", r[0], r[1], k, p.CILow, p.CIHigh, lo, hi, se)
		if p.NTasks != nt || math.Abs(p.CILow-lo) > 0.6*se || math.Abs(p.CIHigh-hi) > 0.6*se {
			t.Errorf("%s %s k=%d: BCa [%.4f, %.4f], scipy [%.4f, %.4f] (tolerance %.4f)", r[0], r[1], k, p.CILow, p.CIHigh, lo, hi, 0.6*se)
		}
	}
}

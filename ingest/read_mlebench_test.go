package ingest

import (
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const mleFixture = "testdata/mlebench/2024-09-06T18-25-55-UTC_run-group_aide/2024-09-19T20-07-15-GMT_grading_report.json"

// TestMLEBenchGradingReport reads two grading reports in mlebench/grade.py's
// schema (generated fixture: ingest/testdata/mlebench/SOURCE.md) with the
// runs/run_group_experiments.csv that names their experiment: one run per
// competition report, fields as the reference script computes them (agent
// = the experiment, scaffold null, trial = the seed counted across both
// reports), the tasks table's direction and thresholds, and the per-seed
// any-medal percentages' mean and SEM as
// experiments/aggregate_grading_reports.py reduces them (reference: 37.5
// and 23.94 over 4 seeds). The CSV is not an input.
func TestMLEBenchGradingReport(t *testing.T) {
	ref := readHarnessRef(t)
	ds, err := Load([]string{"testdata/mlebench"}, Options{})
	if err != nil || ds.Err() != nil {
		t.Fatal(err, ds.Err())
	}
	if len(ds.Inputs) != 2 || ds.Inputs[0].Reader != ReaderMLEBench || ds.Inputs[0].RowsKept != 6 || ds.Inputs[1].RowsKept != 2 {
		t.Fatalf("inputs %+v", ds.Inputs)
	}
	checkAgainstRef(t, ref, "mle", ds.Runs)
	for _, r := range ds.Runs {
		if r.Scaffold.Valid || !r.CompletedAt.Valid || r.Score.Valid {
			t.Errorf("%s: scaffold %v completed %v score %v", r.RunID, r.Scaffold, r.CompletedAt, r.Score)
		}
	}
	// Per-seed any-medal %.
	per := map[int64][]float64{}
	for _, r := range ds.Runs {
		per[r.Trial.V] = append(per[r.Trial.V], float64(r.ScoreBinarized.V))
	}
	var keys []int64
	for k := range per {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	var pct []float64
	for _, k := range keys {
		s := 0.0
		for _, v := range per[k] {
			s += v
		}
		pct = append(pct, 100*s/float64(len(per[k])))
	}
	mean, ss := 0.0, 0.0
	for _, v := range pct {
		mean += v / float64(len(pct))
	}
	for _, v := range pct {
		ss += (v - mean) * (v - mean)
	}
	sem := math.Sqrt(ss/float64(len(pct)-1)) / math.Sqrt(float64(len(pct)))
	const exp = "mle scaffolding-gpt4o-aide "
	for name, got := range map[string]float64{exp + "any_medal_pct_mean": mean, exp + "any_medal_pct_sem": sem, exp + "seeds": float64(len(pct))} {
		want, err := strconv.ParseFloat(ref.summary[name], 64)
		if err != nil || math.Abs(got-want) > 1e-12 {
			t.Errorf("%s = %v, reference %v", name, got, ref.summary[name])
		}
	}
	// Tasks: direction, gold_value = gold_threshold, human_reference = median_threshold (the fixture's values).
	tasks := map[string]Task{}
	for _, tk := range ds.Tasks {
		tasks[tk.TaskID] = tk
	}
	if tk := tasks["denoising-dirty-documents"]; tk.Direction.V != "lower" || tk.GoldValue.V != 0.01794 || tk.HumanReference.V != 0.07325 {
		t.Errorf("denoising: %+v", tk)
	}
	if tk := tasks["spaceship-titanic"]; tk.Direction.V != "higher" || tk.GoldValue.V != 0.82066 || tk.HumanReference.V != 0.79565 {
		t.Errorf("spaceship: %+v", tk)
	}
	for _, w := range ds.Warnings {
		t.Errorf("warning: %v", w)
	}
}

// TestMLEBenchBadInput: a report entry without a required key, or whose
// flags contradict each other, is an error naming the file and the entry;
// the other entries are kept for --skip-bad.
func TestMLEBenchBadInput(t *testing.T) {
	b, err := os.ReadFile(mleFixture)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ old, new, want string }{
		{`"any_medal": true,`, ``, `field "competition_reports[0]": missing any_medal`},
		{`"bronze_medal": true,`, `"bronze_medal": false,`, `field "competition_reports[0] (denoising-dirty-documents)": any_medal=true contradicts`},
		{`"created_at": "2024-09-19T20:00:15.123456"`, `"created_at": "yesterday"`, `competition_reports[0] (denoising-dirty-documents).created_at": want an ISO 8601 time`},
	} {
		dir := filepath.Join(t.TempDir(), "run-group_x")
		os.MkdirAll(dir, 0o755)
		p := filepath.Join(dir, "g_grading_report.json")
		os.WriteFile(p, []byte(strings.Replace(string(b), c.old, c.new, 1)), 0o644)
		ds, err := Load([]string{p}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if ds.Err() == nil || !strings.Contains(ds.Err().Error(), p+": "+"field") || !strings.Contains(ds.Err().Error(), c.want) {
			t.Errorf("got %v, want %q", ds.Err(), c.want)
		}
		if len(ds.Runs) != 5 || ds.Runs[0].Agent != "run-group_x" {
			t.Errorf("%d runs kept, want 5; agent %q (no run_group_experiments.csv: the folder's name)", len(ds.Runs), ds.Runs[0].Agent)
		}
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "x_grading_report.json")
	os.WriteFile(p, []byte(`{"total_runs": 0}`), 0o644)
	ds, _ := Load([]string{p}, Options{})
	if ds.Err() == nil || !strings.Contains(ds.Err().Error(), `field "competition_reports": missing`) {
		t.Errorf("no reports: %v", ds.Err())
	}
}

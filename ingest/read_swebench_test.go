package ingest

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// harnessRef holds testdata/reference/harness_readers.csv: the runs and
// summary numbers that testdata/reference/harness_readers.py computes from
// the fixtures with Python's standard library (command and version in the
// file's first line).
type harnessRef struct {
	runs    map[string]map[string]string // run_id → column → value
	order   map[string][]string          // source → run ids in file order
	summary map[string]string            // "source metric" → value
}

func readHarnessRef(t *testing.T) harnessRef {
	t.Helper()
	b, err := os.ReadFile("../testdata/reference/harness_readers.csv")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	if !strings.HasPrefix(text, "# /usr/bin/python3 testdata/reference/harness_readers.py") {
		t.Fatalf("reference header: %q", strings.SplitN(text, "\n", 2)[0])
	}
	_, text, _ = strings.Cut(text, "\n")
	runsPart, sumPart, ok := strings.Cut(text, "# summary\n")
	if !ok {
		t.Fatal("no # summary line")
	}
	recs, err := csv.NewReader(strings.NewReader(runsPart)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	ref := harnessRef{runs: map[string]map[string]string{}, order: map[string][]string{}, summary: map[string]string{}}
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = r[i]
		}
		ref.runs[m["run_id"]] = m
		ref.order[m["source"]] = append(ref.order[m["source"]], m["run_id"])
	}
	sums, err := csv.NewReader(strings.NewReader(sumPart)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sums {
		ref.summary[s[0]+" "+s[1]] = s[2]
	}
	return ref
}

func refStr[T any](o Opt[T], f func(T) string) string {
	if !o.Valid {
		return ""
	}
	return f(o.V)
}

// checkAgainstRef compares the runs of one source with the reference rows.
func checkAgainstRef(t *testing.T, ref harnessRef, source string, runs []Run) {
	t.Helper()
	want := ref.order[source]
	if len(runs) != len(want) || len(want) == 0 {
		t.Fatalf("%s: %d runs, the reference has %d", source, len(runs), len(want))
	}
	fl := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for _, r := range runs {
		w, ok := ref.runs[r.RunID]
		if !ok {
			t.Errorf("%s: run %s not in the reference", source, r.RunID)
			continue
		}
		got := map[string]string{
			"benchmark": r.Benchmark, "task_id": r.TaskID, "agent": r.Agent,
			"trial":           refStr(r.Trial, func(v int64) string { return strconv.FormatInt(v, 10) }),
			"outcome":         r.Outcome.V,
			"error_type":      r.ErrorType.V,
			"score":           refStr(r.Score, fl),
			"raw_score":       refStr(r.RawScore, fl),
			"score_binarized": refStr(r.ScoreBinarized, func(v int8) string { return strconv.Itoa(int(v)) }),
			"exec_success":    refStr(r.ExecSuccess, strconv.FormatBool),
			"files_edited":    strings.Join(r.FilesEdited, ";"),
			"lines_added":     refStr(r.LinesAdded, func(v int64) string { return strconv.FormatInt(v, 10) }),
			"lines_deleted":   refStr(r.LinesDeleted, func(v int64) string { return strconv.FormatInt(v, 10) }),
		}
		for k, g := range got {
			if w[k] != g {
				t.Errorf("%s %s: %s = %q, reference %q", source, r.RunID, k, g, w[k])
			}
		}
		// The success flags follow the outcome (checkOutcome).
		if r.FinalSuccess.V != (r.Outcome.V == "success") {
			t.Errorf("%s: final_success %v for outcome %s", r.RunID, r.FinalSuccess.V, r.Outcome.V)
		}
	}
}

func meanScore(runs []Run) float64 {
	s := 0.0
	for _, r := range runs {
		s += r.Score.V
	}
	return s / float64(len(runs))
}

// TestSWEBenchExperiments reads a submission in SWE-bench/experiments'
// layout (generated fixture: ingest/testdata/swebench/SOURCE.md): one row
// per instance (8: 2 resolved, 1 no_generation, 1 no_logs in results.json,
// 4 more known from logs/ and all_preds.jsonl), every field as the
// reference script computes it, the resolved rate over every instance
// (2/8), and a warning that Lite has 300 instances. all_preds.jsonl is
// read with results.json, not as an input of its own.
func TestSWEBenchExperiments(t *testing.T) {
	ref := readHarnessRef(t)
	ds, err := Load([]string{"testdata/swebench/experiments/evaluation/lite"}, Options{})
	if err != nil || ds.Err() != nil {
		t.Fatal(err, ds.Err())
	}
	if len(ds.Inputs) != 1 || ds.Inputs[0].Reader != ReaderSWEBench || !strings.HasSuffix(ds.Inputs[0].Path, "results/results.json") {
		t.Fatalf("inputs %+v", ds.Inputs)
	}
	checkAgainstRef(t, ref, "swe-experiments", ds.Runs)
	if got, want := strconv.Itoa(len(ds.Runs)), ref.summary["swe-experiments instances"]; got != want {
		t.Errorf("instances %s, reference %s", got, want)
	}
	if got, want := strconv.FormatFloat(meanScore(ds.Runs), 'g', -1, 64), ref.summary["swe-experiments resolved_rate"]; got != want {
		t.Errorf("resolved rate %s, reference %s", got, want)
	}
	for _, r := range ds.Runs {
		if r.Model.V != "gpt-4o-2024-05-13" || !strings.Contains(r.TaskFamily.V, "/") {
			t.Errorf("%s: model %v family %v", r.RunID, r.Model, r.TaskFamily)
		}
	}
	found := false
	for _, w := range ds.Warnings {
		if strings.Contains(w.Msg, "SWE-bench lite has 300 instances, the folder names 8: the other 292 have no row") {
			found = true
		}
	}
	if !found {
		t.Errorf("no split warning: %v", ds.Warnings)
	}
	// The results.json given directly reads the same.
	ds2, err := Load([]string{"testdata/swebench/experiments/evaluation/lite/20240101_toyagent_gpt-4o/results/results.json"}, Options{})
	if err != nil || ds2.Err() != nil || len(ds2.Runs) != len(ds.Runs) {
		t.Fatalf("direct: %v %v %d runs", err, ds2.Err(), len(ds2.Runs))
	}
}

// TestSWEBenchHarness reads the harness's own run report
// (openai__gpt-4o.toy.run-1.json, run id with a dot) with its
// logs/run_evaluation folder: 5 instances, one per class (resolved,
// unresolved, error = patch apply failure, empty patch, incomplete), the
// model from the log folder ("__" → "/"), the benchmark from run.json,
// and the resolved rate over total_instances (1/5).
func TestSWEBenchHarness(t *testing.T) {
	ref := readHarnessRef(t)
	ds, err := Load([]string{"testdata/swebench/harness"}, Options{})
	if err != nil || ds.Err() != nil {
		t.Fatal(err, ds.Err())
	}
	if len(ds.Inputs) != 1 || ds.Inputs[0].Reader != ReaderSWEBench {
		t.Fatalf("inputs %+v", ds.Inputs)
	}
	checkAgainstRef(t, ref, "swe-harness", ds.Runs)
	if got, want := strconv.Itoa(len(ds.Runs)), ref.summary["swe-harness total_instances"]; got != want {
		t.Errorf("rows %s, total_instances %s", got, want)
	}
	if got, want := strconv.FormatFloat(meanScore(ds.Runs), 'g', -1, 64), ref.summary["swe-harness resolved_rate"]; got != want {
		t.Errorf("resolved rate %s, reference %s", got, want)
	}
	if len(ds.Warnings) != 0 { // total_instances = the listed instances
		t.Errorf("warnings %v", ds.Warnings)
	}
}

// TestSWEBenchBadInput: each malformed file is an error naming the file
// and the field, and rejects the dataset (ds.Err), so nothing is written.
func TestSWEBenchBadInput(t *testing.T) {
	mk := func(t *testing.T, files map[string]string) string {
		dir := t.TempDir()
		for p, body := range files {
			fp := filepath.Join(dir, p)
			os.MkdirAll(filepath.Dir(fp), 0o755)
			if err := os.WriteFile(fp, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	for _, c := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"list of numbers", map[string]string{"sub/results/results.json": `{"resolved": [1, 2]}`}, `results.json: field "resolved": want a list of instance ids`},
		{"not an object", map[string]string{"sub/results/results.json": `[1]`}, "results.json: not a SWE-bench results.json"},
		{"bad instance report", map[string]string{"sub/results/results.json": `{"resolved": []}`, "sub/logs/a__b-1/report.json": `{"a__b-1": {"resolved": "yes"}}`},
			"report.json: not a SWE-bench instance report"},
		{"report of another instance", map[string]string{"sub/results/results.json": `{"resolved": []}`, "sub/logs/a__b-1/report.json": `{"a__b-2": {"resolved": true}}`},
			`report.json: field "a__b-1": the report does not hold its instance`},
		{"bad prediction", map[string]string{"sub/results/results.json": `{"resolved": []}`, "sub/all_preds.jsonl": "{\"model_patch\": \"\"}\n"},
			`all_preds.jsonl:1: field "instance_id"`},
		{"two classes", map[string]string{"m.r.json": `{"total_instances": 1, "resolved_ids": ["a__b-1"], "error_ids": ["a__b-1"]}`},
			`m.r.json: field "resolved_ids": instance a__b-1 is also in error_ids`},
		{"no model", map[string]string{"report.json": `{"total_instances": 1, "resolved_ids": ["a__b-1"]}`},
			"report.json: cannot tell the model and run id"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ds, err := Load([]string{mk(t, c.files)}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if ds.Err() == nil || !strings.Contains(ds.Err().Error(), c.want) {
				t.Errorf("got %v, want %q", ds.Err(), c.want)
			}
		})
	}
	// A forced reader on another file says what it wanted.
	ds, _ := Load([]string{"testdata/mlebench/2024-09-06T18-25-55-UTC_run-group_aide/2024-09-19T20-07-15-GMT_grading_report.json"}, Options{Reader: ReaderSWEBench})
	if ds.Err() == nil || !strings.Contains(ds.Err().Error(), "not a SWE-bench results/results.json nor a run report") {
		t.Errorf("forced: %v", ds.Err())
	}
}

// TestSWEBenchPredictionsSkipped: a predictions file (--predictions_path)
// beside a run report gives no runs, and a warning says to ingest the
// evaluation.
func TestSWEBenchPredictionsSkipped(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "preds.jsonl"), []byte(`{"instance_id": "a__b-1", "model_name_or_path": "m", "model_patch": ""}`+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "m.r.json"), []byte(`{"total_instances": 1, "empty_patch_ids": ["a__b-1"], "resolved_ids": []}`), 0o644)
	ds, err := Load([]string{dir}, Options{})
	if err != nil || ds.Err() != nil {
		t.Fatal(err, ds.Err())
	}
	if len(ds.Inputs) != 2 || len(ds.Runs) != 1 || ds.Runs[0].RunID != "r/m/a__b-1" || ds.Runs[0].Outcome.V != "no_patch" {
		t.Errorf("inputs %+v runs %+v", ds.Inputs, ds.Runs)
	}
	if len(ds.Warnings) != 1 || !strings.Contains(ds.Warnings[0].String(), "preds.jsonl: SWE-bench predictions (instance_id, model_patch), not runs: skipped") {
		t.Errorf("warnings %v", ds.Warnings)
	}
}

// TestSWEBenchPatchStats: lines are counted within hunks by their headers,
// so a deleted line reading "-- x" (shown as "--- x") is a deletion, not a
// header; "\ No newline" lines and a deleted file count right.
func TestSWEBenchPatchStats(t *testing.T) {
	p := "diff --git a/x.sql b/x.sql\n--- a/x.sql\n+++ b/x.sql\n@@ -1,3 +1,2 @@\n select 1;\n--- a comment\n-select 2;\n+select 3;\n\\ No newline at end of file\n" +
		"diff --git a/old.py b/old.py\ndeleted file mode 100644\n--- a/old.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-x = 1\n"
	files, add, del := patchStats([]byte(p))
	// x.sql: deletes "-- a comment" and "select 2;", adds "select 3;"; old.py: deletes 1.
	if strings.Join(files, ",") != "old.py,x.sql" || add != 1 || del != 3 {
		t.Errorf("files %v +%d -%d, want [old.py x.sql] +1 -3", files, add, del)
	}
	if f, a, d := patchStats(nil); f == nil || len(f) != 0 || a != 0 || d != 0 {
		t.Errorf("empty: %v %d %d", f, a, d)
	}
}

// TestSWEBenchSubmissionEdges: files under trajs/ and logs/ are not
// inputs; an empty prediction without logs is
// no_patch (reporting.py never runs it); an instance report that says
// resolved while results.json does not list it is a warning, and
// results.json decides (the leaderboard's number).
func TestSWEBenchSubmissionEdges(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sub")
	os.MkdirAll(filepath.Join(dir, "results"), 0o755)
	os.MkdirAll(filepath.Join(dir, "logs", "a__b-2"), 0o755)
	os.WriteFile(filepath.Join(dir, "results", "results.json"), []byte(`{"resolved": []}`), 0o644)
	os.WriteFile(filepath.Join(dir, "all_preds.jsonl"), []byte(`{"instance_id": "a__b-1", "model_name_or_path": "m", "model_patch": ""}`+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "logs", "a__b-2", "report.json"), []byte(`{"a__b-2": {"patch_is_None": false, "patch_exists": true, "patch_successfully_applied": true, "resolved": true}}`), 0o644)
	// Trajectories and files in logs/ are not inputs (they would fail as generic JSON Lines).
	os.MkdirAll(filepath.Join(dir, "trajs"), 0o755)
	os.WriteFile(filepath.Join(dir, "trajs", "a__b-1.jsonl"), []byte(`{"role": "user", "content": "fix it"}`+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "logs", "a__b-2", "steps.csv"), []byte("step,tokens\n1,20\n"), 0o644)
	ds, err := Load([]string{dir}, Options{})
	if err != nil || ds.Err() != nil {
		t.Fatal(err, ds.Err())
	}
	if len(ds.Inputs) != 1 {
		t.Errorf("inputs %+v, want results.json only", ds.Inputs)
	}
	if len(ds.Runs) != 2 {
		t.Fatalf("%d runs", len(ds.Runs))
	}
	if r := ds.Runs[0]; r.RunID != "sub/a__b-1" || r.Outcome.V != "no_patch" || r.ErrorType.V != "empty patch" || r.Model.V != "m" {
		t.Errorf("empty prediction: %+v", r)
	}
	if r := ds.Runs[1]; r.Outcome.V != "wrong_result" || r.Score.V != 0 {
		t.Errorf("unlisted resolved report: %+v", r)
	}
	if len(ds.Warnings) != 1 || !strings.Contains(ds.Warnings[0].Msg, "resolved=true, but the evaluation's lists put a__b-2 under no list (unresolved); the lists decide") {
		t.Errorf("warnings %v", ds.Warnings)
	}
}

// TestSWEBenchBashOnly reads a bash-only submission
// (per_instance_details.json: {instance: {cost, api_calls, resolved}}, the
// experiments' other format): every key is an instance, cost_usd is the
// instance's cost, the benchmark is swe-bench-verified (bash-only entries
// are Verified board entries), model is metadata.yaml's tags.model, and an
// unresolved instance without logs has a null outcome (why is unknown).
func TestSWEBenchBashOnly(t *testing.T) {
	ref := readHarnessRef(t)
	ds, err := Load([]string{"testdata/swebench/experiments/evaluation/bash-only"}, Options{})
	if err != nil || ds.Err() != nil {
		t.Fatal(err, ds.Err())
	}
	if len(ds.Inputs) != 1 || ds.Inputs[0].Reader != ReaderSWEBench || !strings.HasSuffix(ds.Inputs[0].Path, "per_instance_details.json") {
		t.Fatalf("inputs %+v", ds.Inputs)
	}
	checkAgainstRef(t, ref, "swe-details", ds.Runs)
	for _, r := range ds.Runs {
		want, err := strconv.ParseFloat(ref.summary["swe-details "+r.TaskID+" cost"], 64)
		if err != nil || !r.CostUSD.Valid || r.CostUSD.V != want {
			t.Errorf("%s: cost %v, reference %v", r.RunID, r.CostUSD, ref.summary["swe-details "+r.TaskID+" cost"])
		}
		if r.Model.V != "model-x-2026-01-01" || r.FinalSuccess.V != (r.Score.V == 1) || !r.FinalSuccess.Valid {
			t.Errorf("%s: model %v final %v", r.RunID, r.Model, r.FinalSuccess)
		}
	}
	if got, want := strconv.FormatFloat(meanScore(ds.Runs), 'g', -1, 64), ref.summary["swe-details resolved_rate"]; got != want {
		t.Errorf("resolved rate %s, reference %s", got, want)
	}
}

// TestSWEBenchCatalogInstances: with a catalog of the split's instances
// (--tasks), every catalog instance is a row, those the submission does not
// mention with a null outcome and score 0, and no shortfall warning.
func TestSWEBenchCatalogInstances(t *testing.T) {
	cat := BuiltinCatalog()
	ids := []string{"astropy__astropy-12907", "django__django-11099", "psf__requests-2317", "sympy__sympy-20590",
		"astropy__astropy-99998", "astropy__astropy-99999"}
	var y strings.Builder
	y.WriteString("benchmark: swe-bench-verified\ntasks:\n")
	for _, id := range ids {
		y.WriteString("  - {task_id: " + id + "}\n")
	}
	if err := cat.AddYAML("verified.yaml", []byte(y.String())); err != nil {
		t.Fatal(err)
	}
	ds, err := Load([]string{"testdata/swebench/experiments/evaluation/bash-only"}, Options{Catalog: cat})
	if err != nil || ds.Err() != nil {
		t.Fatal(err, ds.Err())
	}
	if len(ds.Runs) != 6 || len(ds.Warnings) != 0 {
		t.Fatalf("%d runs, warnings %v", len(ds.Runs), ds.Warnings)
	}
	// Resolved 2 of the catalog's 6 (per_instance_details.json).
	if m := meanScore(ds.Runs); m != 2.0/6 {
		t.Errorf("resolved rate %v, want 2/6", m)
	}
	last := ds.Runs[2] // sorted by instance id
	if last.TaskID != "astropy__astropy-99999" || last.Outcome.Valid || last.Score.V != 0 || last.FinalSuccess.V || last.CostUSD.Valid {
		t.Errorf("catalog-only instance: %+v", last)
	}
	// Without the catalog: a warning that bash-only (Verified) has 500.
	ds, _ = Load([]string{"testdata/swebench/experiments/evaluation/bash-only"}, Options{})
	if len(ds.Warnings) != 1 || !strings.Contains(ds.Warnings[0].Msg, "SWE-bench bash-only has 500 instances, the folder names 4") {
		t.Errorf("warnings %v", ds.Warnings)
	}
}

// TestSWEBenchOlderResults: an older results.json (cumulative stage lists
// generated, with_logs, applied, …): each instance takes its most specific
// list; applied but not resolved is wrong_result, no_apply patch_failed,
// test_timeout timeout, install_fail exec_error "install_fail".
func TestSWEBenchOlderResults(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "old")
	os.MkdirAll(filepath.Join(dir, "results"), 0o755)
	os.WriteFile(filepath.Join(dir, "results", "results.json"), []byte(`{
  "no_generation": ["a__b-1"], "generated": ["a__b-2", "a__b-3", "a__b-4", "a__b-5", "a__b-6"],
  "with_logs": ["a__b-2", "a__b-3", "a__b-4", "a__b-5", "a__b-6"], "install_fail": ["a__b-6"], "reset_failed": [],
  "no_apply": ["a__b-5"], "applied": ["a__b-2", "a__b-3", "a__b-4"], "test_errored": [], "test_timeout": ["a__b-4"],
  "resolved": ["a__b-2"]}`), 0o644)
	ds, err := Load([]string{dir}, Options{})
	if err != nil || ds.Err() != nil {
		t.Fatal(err, ds.Err())
	}
	want := map[string][2]string{"a__b-1": {"no_patch", "no generation"}, "a__b-2": {"success", ""}, "a__b-3": {"wrong_result", ""},
		"a__b-4": {"timeout", "Execution Timeout"}, "a__b-5": {"patch_failed", "patch failed"}, "a__b-6": {"exec_error", "install_fail"}}
	if len(ds.Runs) != len(want) {
		t.Fatalf("%d runs", len(ds.Runs))
	}
	for _, r := range ds.Runs {
		if w := want[r.TaskID]; r.Outcome.V != w[0] || r.ErrorType.V != w[1] {
			t.Errorf("%s: %s %q, want %s %q", r.TaskID, r.Outcome.V, r.ErrorType.V, w[0], w[1])
		}
	}
}

package ingest

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestTerminalBenchReader reads the two fixture runs: a complete one (the
// run's results.json with six trials, each also in its own results.json)
// and an interrupted one (trials' own files only, no model name). Expected
// values from testdata/reference/harbor_tb.py (harbor_tb_runs.csv and
// harbor_tb_summary.csv, whose "reported" is the run's own accuracy).
func TestTerminalBenchReader(t *testing.T) {
	root := filepath.Join("testdata", "terminalbench", "runs")
	ds, err := Load([]string{root}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.Err(); err != nil {
		t.Fatalf("unexpected bad records: %v", err)
	}
	// Inputs: the complete run's results.json (not its trials' own copies,
	// nor agent-logs/episode-0.jsonl), and the interrupted run's 3 trial files.
	var paths []string
	for _, in := range ds.Inputs {
		paths = append(paths, in.Path)
		if in.Reader != ReaderTerminalBench {
			t.Errorf("input %s: reader %s", in.Path, in.Reader)
		}
	}
	want := []string{
		filepath.Join(root, "2026-11-29__09-00-00", "results.json"),
		filepath.Join(root, "2026-11-29__12-00-00", "csv-to-parquet", "csv-to-parquet.1-of-1", "results.json"),
		filepath.Join(root, "2026-11-29__12-00-00", "fix-permissions", "fix-permissions.1-of-1", "results.json"),
		filepath.Join(root, "2026-11-29__12-00-00", "hello-world", "hello-world.1-of-1", "results.json"),
	}
	if strings.Join(paths, "\n") != strings.Join(want, "\n") {
		t.Errorf("inputs\n%s\nwant\n%s", strings.Join(paths, "\n"), strings.Join(want, "\n"))
	}
	if no := warningsWith(ds, "repeated with identical content"); len(no) != 0 {
		t.Errorf("trials read twice: %v", no)
	}
	checkAgainstReference(t, ds, "terminal-bench")
	checkSummary(t, ds, "terminal-bench")

	byID := map[string]Run{}
	for _, r := range ds.Runs {
		byID[r.RunID] = r
	}
	// Values quoted from the fixture files.
	for _, c := range []struct {
		id, errType string
		trial       int64
		line        int64
	}{
		{"2026-11-29__09-00-00/hello-world.2-of-2", "", 2, 2},
		{"2026-11-29__09-00-00/fix-permissions.1-of-2", "parse_error", 1, 3},        // is_resolved null
		{"2026-11-29__09-00-00/csv-to-parquet.1-of-2", "agent_timeout", 1, 5},       // resolved after an agent timeout
		{"2026-11-29__09-00-00/csv-to-parquet.2-of-2", "unknown_agent_error", 2, 6}, // no tokens
		{"2026-11-29__12-00-00/fix-permissions.1-of-1", "test_timeout", 1, 1},
		{"2026-11-29__12-00-00/csv-to-parquet.1-of-1", "is_resolved null", 1, 1}, // failure_mode unset
	} {
		r, ok := byID[c.id]
		if !ok {
			t.Errorf("%s: missing", c.id)
			continue
		}
		if r.ErrorType.Or("") != c.errType || r.Trial.Or(0) != c.trial || r.SourceLine != c.line || r.Benchmark != "terminal-bench" ||
			r.TaskVersion.Or("") != "0.2.15" || r.Scaffold.Or("") == "" {
			t.Errorf("%s: error_type %q trial %v line %d benchmark %q task_version %v scaffold %v", c.id, r.ErrorType.Or(""), r.Trial, r.SourceLine, r.Benchmark, r.TaskVersion, r.Scaffold)
		}
	}
	if r := byID["2026-11-29__12-00-00/hello-world.1-of-1"]; r.Model.Valid || r.Agent != "oracle" {
		t.Errorf("run without model_name: model %v, agent %q", r.Model, r.Agent)
	}
}

// TestTerminalBenchFiles: a task folder alone reads its trials' own files
// (its run's results.json is outside what was asked for); naming both the
// run's file and a trial's file gives identical runs, dropped with a
// warning.
func TestTerminalBenchFiles(t *testing.T) {
	run := filepath.Join("testdata", "terminalbench", "runs", "2026-11-29__09-00-00")
	ds, err := Load([]string{filepath.Join(run, "hello-world")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Inputs) != 2 || len(ds.Runs) != 2 || ds.Err() != nil {
		t.Errorf("task folder: inputs %v, %d runs, %v", ds.Inputs, len(ds.Runs), ds.Err())
	}
	ds, err = Load([]string{filepath.Join(run, "results.json"), filepath.Join(run, "hello-world", "hello-world.1-of-2", "results.json")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Runs) != 6 || ds.Err() != nil || len(warningsWith(ds, "dropped 1 runs repeated with identical content")) != 1 {
		t.Errorf("both files: %d runs, %v, warnings %v", len(ds.Runs), ds.Err(), ds.Warnings)
	}
}

// TestTerminalBenchBadInput: a run without run_metadata.json is a file
// error naming the results.json and where run_metadata.json was looked for; bad trials are rejected one by one
// with their position in results[] and their field.
func TestTerminalBenchBadInput(t *testing.T) {
	root := filepath.Join("testdata", "terminalbench-bad", "runs")
	ds, err := Load([]string{root}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Runs) != 1 || ds.Runs[0].RunID != "bad-trials/hello-world.1-of-1" || ds.Runs[0].Agent != "terminus + openai/gpt-5" {
		t.Errorf("kept %+v, want only bad-trials/hello-world.1-of-1", ds.Runs)
	}
	bad := filepath.Join(root, "bad-trials", "results.json")
	want := []string{
		bad + `:2: field "task_id": missing required field`,
		bad + `:3: field "trial_started_at": want an ISO 8601 time, got "yesterday"`,
		bad + `:4: field "is_resolved": want bool, got a JSON string`,
		filepath.Join(root, "no-metadata", "results.json") + ": " + filepath.Join(root, "no-metadata", "run_metadata.json") + ": no such file or directory: terminal-bench trials name no agent",
	}
	var got []string
	for _, e := range ds.Errors {
		got = append(got, e.Error())
	}
	if len(got) != len(want) {
		t.Fatalf("errors\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("error %d\n%s\nwant it to start\n%s", i, got[i], want[i])
		}
	}
	// Three records, and the input without metadata as a whole (Input).
	records, inputs := 0, 0
	for _, r := range ds.Rejected {
		if r.Input {
			inputs++
		} else {
			records++
		}
	}
	if records != 3 || inputs != 1 {
		t.Errorf("%d rejected records and %d inputs, want 3 and 1", records, inputs)
	}
}

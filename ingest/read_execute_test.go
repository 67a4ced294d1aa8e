package ingest

import (
	"os"
	"path/filepath"
	"testing"
)

// TestExecuteRunFolder: a folder written by `rdeval execute run` is read as
// runs (one per runs/<run_id>/result.json); manifest.json and the logs are
// not inputs. The fixture follows ExecuteResult's fields (execute_format.go).
func TestExecuteRunFolder(t *testing.T) {
	dir := t.TempDir()
	write := func(id, body string) {
		d := filepath.Join(dir, "runs", id)
		os.MkdirAll(d, 0o755)
		if err := os.WriteFile(filepath.Join(d, "result.json"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(d, "stdout.log"), []byte("ACC: 0.8125\n"), 0o644)
	}
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"task_id": "toy", "runs": []}`), 0o644)
	write("toy-aaa-s1-r0", `{
  "run_id": "toy-aaa-s1-r0",
  "task_id": "toy",
  "patch_file": "/p/patches/agentA/good.patch",
  "patch_sha256": "aaa",
  "seed": 1,
  "repeat": 1,
  "outcome": "success",
  "apply_method": "go-gitdiff",
  "metrics": {"accuracy": 0.8125},
  "exit_code": 0,
  "wall_s": 1.5,
  "started_at": "2026-11-30T10:00:00Z",
  "finished_at": "2026-11-30T10:00:01.5Z",
  "files_edited": ["experiment.py"],
  "lines_added": 1,
  "lines_deleted": 1
}`)
	write("toy-bbb-s1-r0", `{"run_id": "toy-bbb-s1-r0", "task_id": "toy", "patch_file": "/p/patches/agentA/bad.patch", "patch_sha256": "bbb", "seed": 1, "repeat": 2,
 "agent": "OpenHands o4-mini", "framework": "openhands", "model": "o4-mini", "hint": "detailed_hints",
 "outcome": "exec_error", "reason": "exit status 1\nTraceback …", "metrics": {}, "wall_s": 0.2, "files_edited": [], "lines_added": 0, "lines_deleted": 0}`)
	// The journal, kept files and work trees are not inputs.
	os.WriteFile(filepath.Join(dir, "journal.jsonl"), []byte(`{"t": "2026-11-30T10:00:00Z", "event": "batch_start", "pid": 1}`+"\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, "runs", "toy-aaa-s1-r0", "keep", "out"), 0o755)
	os.WriteFile(filepath.Join(dir, "runs", "toy-aaa-s1-r0", "keep", "out", "log.csv"), []byte("epoch,test_acc\n1,0.5\n"), 0o644)
	ds, err := Load([]string{dir}, Options{})
	if err != nil || ds.Err() != nil {
		t.Fatal(err, ds.Err())
	}
	if len(ds.Runs) != 2 || len(ds.Inputs) != 2 || ds.Inputs[0].Reader != ReaderExecute {
		t.Fatalf("runs %d, inputs %+v", len(ds.Runs), ds.Inputs)
	}
	got := map[string]Run{}
	for _, r := range ds.Runs {
		got[r.RunID] = r
	}
	ok := got["toy-aaa-s1-r0"]
	if ok.Agent != "agentA" || ok.TaskID != "toy" || !ok.FinalSuccess.V || !ok.ExecSuccess.V || ok.ResultValue.V != 0.8125 ||
		ok.Trial.V != 1 || ok.Seed.V != 1 || ok.DurationS.V != 1.5 || len(ok.FilesEdited) != 1 || !ok.StartedAt.Valid || ok.CompletedAt.V.Sub(ok.StartedAt.V).Seconds() != 1.5 {
		t.Errorf("success run %+v", ok)
	}
	bad := got["toy-bbb-s1-r0"]
	if bad.Outcome.V != "exec_error" || bad.FinalSuccess.V || bad.ExecSuccess.V || bad.ErrorType.V != "exit status 1" || bad.FilesEdited == nil {
		t.Errorf("failed run %+v", bad)
	}
	if bad.Agent != "OpenHands o4-mini" || bad.Scaffold.V != "openhands" || bad.Model.V != "o4-mini" || bad.HintLevel.V != "detailed_hints" || bad.Trial.V != 2 {
		t.Errorf("metadata of the failed run: agent %q scaffold %v model %v hint %v trial %v", bad.Agent, bad.Scaffold, bad.Model, bad.HintLevel, bad.Trial)
	}
	// resource_limit is an execution failure with the limit in error_type.
	write("toy-ccc-s1-r1", `{"run_id": "toy-ccc-s1-r1", "task_id": "toy", "patch_file": "/p/patches/agentB/hog.patch", "patch_sha256": "ccc", "seed": 1, "repeat": 1,
 "framework": "aider", "model": "claude", "outcome": "resource_limit", "reason": "memory: 2.1 GiB resident exceeded the limit of 2.00 GiB", "metrics": {}}`)
	ds, err = Load([]string{dir}, Options{})
	if err != nil || ds.Err() != nil {
		t.Fatal(err, ds.Err())
	}
	for _, r := range ds.Runs {
		if r.RunID == "toy-ccc-s1-r1" && (r.Outcome.V != "exec_error" || r.ErrorType.V != "resource_limit: memory: 2.1 GiB resident exceeded the limit of 2.00 GiB" || r.Agent != "aider + claude") {
			t.Errorf("resource_limit run: %+v", r)
		}
	}
}

// TestExecuteResultAbsentFields: seed, repeat, wall_s and the line counts
// that a result.json lacks (or holds as null) stay unset, not 0.
func TestExecuteResultAbsentFields(t *testing.T) {
	dir := t.TempDir()
	d := filepath.Join(dir, "runs", "toy-ddd")
	os.MkdirAll(d, 0o755)
	body := `{"run_id": "toy-ddd", "task_id": "toy", "patch_file": "/p/patches/agentC/x.diff", "patch_sha256": "ddd", "seed": null,
 "outcome": "wrong_result", "reason": "accuracy 0.5 below 0.8", "metrics": {"accuracy": 0.5}}`
	if err := os.WriteFile(filepath.Join(d, "result.json"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := Load([]string{dir}, Options{})
	if err != nil || ds.Err() != nil || len(ds.Runs) != 1 {
		t.Fatal(err, ds.Err(), len(ds.Runs))
	}
	r := ds.Runs[0]
	if r.Seed.Valid || r.Trial.Valid || r.DurationS.Valid || r.LinesAdded.Valid || r.LinesDeleted.Valid || r.FilesEdited != nil {
		t.Errorf("absent fields set: seed %v trial %v duration %v lines %v/%v files %v", r.Seed, r.Trial, r.DurationS, r.LinesAdded, r.LinesDeleted, r.FilesEdited)
	}
	if r.Agent != "agentC" || r.ResultValue != Some(0.5) || r.ErrorType.V != "accuracy 0.5 below 0.8" {
		t.Errorf("run %+v", r)
	}
}

package execute

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/rdeval/rdeval/ingest"
)

// TestResultReadsBackThroughIngest: a result.json that execute writes
// (writeJSONAtomic of a Result, as runOne does) reads back through ingest,
// with the same type as a whole (every field set) and as a run, field by
// field, under ReaderExecute's mapping (ingest/read_execute.go).
func TestResultReadsBackThroughIngest(t *testing.T) {
	out := t.TempDir()
	exit0, exit1 := 0, 1
	started := time.Date(2026, 11, 30, 10, 0, 0, 250_000_000, time.UTC)
	results := []*Result{{
		RunID: "toy-aaaaaaaaaaaa-s3-r2", TaskID: "toy", PatchFile: "/p/patches/agentA/good.diff", PatchSHA256: "aa11",
		Seed: 3, Repeat: 2, ExecutePatchMeta: PatchMeta{Agent: "OpenHands o4-mini", Framework: "openhands", Model: "o4-mini", Hint: "hints"},
		Outcome: OutcomeSuccess, ApplyMethod: ApplyGo, Sandbox: "bwrap", Backend: "local", Worktree: "overlay", BaseCommit: "c0ffee",
		Metrics: map[string]float64{"accuracy": 0.8125}, MetricErrors: map[string]string{"loss": "no line matched"},
		ExitCode: &exit0, WallS: 1.5, CPUS: 1.25, MaxRSSKB: 2048, LogsTruncated: true, PeakTasks: 7, PeakRSSKB: 4096,
		LimitPIDs: 256, LimitMemoryBytes: 1 << 30,
		GPUs: []GPU{{Index: 1, UUID: "GPU-1234", Name: "NVIDIA H200", MemoryTotalMiB: 143771, MemoryUsedMiB: -1, BusID: "00000000:3B:00.0", Minor: 1}},
		CPUs: []int{2, 3}, StartedAt: stamp(started), FinishedAt: stamp(started.Add(1500 * time.Millisecond)),
		FilesEdited: []string{"model.py", "train.py"}, LinesAdded: 4, LinesDeleted: 2,
		Kept: []string{"out/log.csv"}, KeepErrors: []string{"big.bin: too large"}, WorkSanitized: []string{".git/hooks"},
	}, {
		RunID: "toy-bbbbbbbbbbbb-s1-r1", TaskID: "toy", PatchFile: "/p/patches/agentB/bad.diff", PatchSHA256: "bb22",
		Seed: 1, Repeat: 1, Outcome: OutcomeExecError, Reason: "exit status 1\nTraceback …", ApplyMethod: ApplyGo,
		Sandbox: "bwrap", BaseCommit: "c0ffee", Metrics: map[string]float64{"accuracy": 0.5, "loss": 2}, ExitCode: &exit1,
		WallS: 0.25, StartedAt: stamp(started), FinishedAt: stamp(started.Add(250 * time.Millisecond)), FilesEdited: []string{},
	}}
	for _, r := range results {
		if err := os.MkdirAll(filepath.Join(out, "runs", r.RunID), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := writeJSONAtomic(filepath.Join(out, "runs", r.RunID, "result.json"), r); err != nil {
			t.Fatal(err)
		}
		back, err := ReadResult(filepath.Join(out, "runs", r.RunID, "result.json"))
		if err != nil || !reflect.DeepEqual(back, r) {
			t.Errorf("%s: read back %+v (%v), wrote %+v", r.RunID, back, err, r)
		}
	}
	ds, err := ingest.Load([]string{out}, ingest.Options{})
	if err != nil || ds.Err() != nil {
		t.Fatal(err, ds.Err())
	}
	if len(ds.Runs) != len(results) {
		t.Fatalf("ingest read %d runs, want %d", len(ds.Runs), len(results))
	}
	got := map[string]ingest.Run{}
	for _, r := range ds.Runs {
		got[r.RunID] = r
		if r.SourceFile == "" {
			t.Errorf("%s: no source file", r.RunID)
		}
	}
	type want struct {
		agent, scaffold, model, hint, errType string
		value                                 ingest.Opt[float64]
	}
	wants := []want{
		{agent: "OpenHands o4-mini", scaffold: "openhands", model: "o4-mini", hint: "hints", value: ingest.Some(0.8125)},
		{agent: "agentB", errType: "exit status 1"}, // two metrics: no single result value
	}
	for i, r := range results {
		g, w := got[r.RunID], wants[i]
		check := func(field string, ok bool, gotV, wantV any) {
			t.Helper()
			if !ok {
				t.Errorf("%s: %s = %v, want %v", r.RunID, field, gotV, wantV)
			}
		}
		check("task_id", g.TaskID == r.TaskID, g.TaskID, r.TaskID)
		check("benchmark", g.Benchmark == "rexbench", g.Benchmark, "rexbench")
		check("agent", g.Agent == w.agent, g.Agent, w.agent)
		check("scaffold", g.Scaffold.V == w.scaffold && g.Scaffold.Valid == (w.scaffold != ""), g.Scaffold, w.scaffold)
		check("model", g.Model.V == w.model && g.Model.Valid == (w.model != ""), g.Model, w.model)
		check("hint_level", g.HintLevel.V == w.hint && g.HintLevel.Valid == (w.hint != ""), g.HintLevel, w.hint)
		check("seed", g.Seed == ingest.Some(r.Seed), g.Seed, r.Seed)
		check("trial", g.Trial == ingest.Some(int64(r.Repeat)), g.Trial, r.Repeat)
		check("outcome", g.Outcome == ingest.Some(r.Outcome), g.Outcome, r.Outcome)
		success := r.Outcome == OutcomeSuccess
		check("final_success", g.FinalSuccess == ingest.Some(success), g.FinalSuccess, success)
		check("exec_success", g.ExecSuccess == ingest.Some(success), g.ExecSuccess, success)
		check("error_type", g.ErrorType.V == w.errType && g.ErrorType.Valid == (w.errType != ""), g.ErrorType, w.errType)
		check("result_value", g.ResultValue == w.value, g.ResultValue, w.value)
		check("files_edited", slices.Equal(g.FilesEdited, r.FilesEdited) && g.FilesEdited != nil, g.FilesEdited, r.FilesEdited)
		check("lines_added", g.LinesAdded == ingest.Some(int64(r.LinesAdded)), g.LinesAdded, r.LinesAdded)
		check("lines_deleted", g.LinesDeleted == ingest.Some(int64(r.LinesDeleted)), g.LinesDeleted, r.LinesDeleted)
		check("duration_s", g.DurationS == ingest.Some(r.WallS), g.DurationS, r.WallS)
		st, _ := time.Parse(time.RFC3339Nano, r.StartedAt)
		fin, _ := time.Parse(time.RFC3339Nano, r.FinishedAt)
		check("started_at", g.StartedAt.Valid && g.StartedAt.V.Equal(st), g.StartedAt, st)
		check("completed_at", g.CompletedAt.Valid && g.CompletedAt.V.Equal(fin), g.CompletedAt, fin)
	}
}

package ingest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostileRuns writes n generic run records to a file in dir and loads them.
func hostileRuns(t *testing.T, dir string, n int, agent string) *Dataset {
	t.Helper()
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"run_id":"r%d","task_id":"t%d","agent":%q,"score":0.5}`+"\n", i, i%(n/2+1), agent)
	}
	path := filepath.Join(dir, agent+".jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := Load([]string{path}, Options{Benchmark: "demo"})
	if err != nil || ds.Err() != nil {
		t.Fatal(err, ds.Err())
	}
	return ds
}

// TestInterruptedWriteRefused: a WriteDataset stopped between its renames
// (as kill -9 would stop it) leaves a folder that Load refuses, naming the
// table that does not match the manifest; the temporary files it left are
// removed by the next write, which makes the folder whole again.
func TestInterruptedWriteRefused(t *testing.T) {
	src, out := t.TempDir(), t.TempDir()
	if _, err := WriteDataset(out, hostileRuns(t, src, 5, "old"), WriteOptions{Version: "test"}); err != nil {
		t.Fatal(err)
	}
	for _, stopAt := range []string{"runs.parquet", "tasks.parquet"} {
		commitHook = func(final string) error {
			if filepath.Base(final) == stopAt {
				return errors.New("killed")
			}
			return nil
		}
		_, err := WriteDataset(out, hostileRuns(t, src, 7, "new"), WriteOptions{Version: "test"})
		commitHook = nil
		if err == nil || !strings.Contains(err.Error(), "killed") {
			t.Fatalf("stop at %s: %v", stopAt, err)
		}
		// A kill leaves the temporary files too (the hook's error path
		// removed them): plant one, as the write phase would leave it.
		os.WriteFile(filepath.Join(out, ".runs.parquet.tmp-123"), []byte("PAR1 half"), 0o644)
		ds, err := Load([]string{out}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if ds.Err() == nil || !strings.Contains(ds.Err().Error(), "does not match") {
			t.Fatalf("stop at %s: Load accepted a mixed folder: %v", stopAt, ds.Err())
		}
		// The file named alone is refused too.
		ds, _ = Load([]string{filepath.Join(out, "tasks.parquet")}, Options{})
		if stopAt == "runs.parquet" && (ds.Err() == nil || !strings.Contains(ds.Err().Error(), "tasks.parquet: does not match")) {
			t.Errorf("tasks.parquet alone: %v", ds.Err())
		}
	}
	if _, err := WriteDataset(out, hostileRuns(t, src, 7, "new"), WriteOptions{Version: "test"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, ".runs.parquet.tmp-123")); err == nil {
		t.Errorf("a stale temporary file was left")
	}
	ds, err := Load([]string{out}, Options{})
	if err != nil || ds.Err() != nil || ds.NumRuns() != 7 {
		t.Fatalf("after a whole write: %v %v, %d runs", err, ds.Err(), ds.NumRuns())
	}
	// A table the manifest lists that is gone.
	os.Remove(filepath.Join(out, "tasks.parquet"))
	ds, _ = Load([]string{out}, Options{})
	if ds.Err() == nil || !strings.Contains(ds.Err().Error(), "tasks.parquet: listed in") {
		t.Errorf("missing table: %v", ds.Err())
	}
}

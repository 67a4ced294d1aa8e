package ingest

import (
	"os"
	"testing"
	"time"
)

func TestZZPhases(t *testing.T) {
	in := os.Getenv("PHASE_IN")
	if in == "" {
		t.Skip()
	}
	for range 3 {
		t0 := time.Now()
		ds, err := Load([]string{in}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		t1 := time.Now()
		dir := t.TempDir()
		if _, err := WriteDataset(dir, ds, WriteOptions{Version: "v"}); err != nil {
			t.Fatal(err)
		}
		t2 := time.Now()
		t.Logf("load %v write %v", t1.Sub(t0), t2.Sub(t1))
	}
}

package cmdutil

import (
	"errors"
	"strings"
	"testing"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/demo"
	"github.com/rdeval/rdeval/ingest"
	"github.com/spf13/cobra"
)

// TestDemoFlag: --demo reads the same runs as loading the embedded files
// directly, applies --where, makes PATH optional, and refuses PATH with it.
func TestDemoFlag(t *testing.T) {
	var f InputFlags
	var got []string
	cmd := &cobra.Command{Use: "x PATH...", Args: cobra.MinimumNArgs(1), RunE: func(_ *cobra.Command, args []string) error { got = args; return nil }}
	AddInputFlags(cmd, &f, true)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true

	cmd.SetArgs([]string{"--demo", "--where", "benchmark=rexbench"})
	if err := cmd.Execute(); err != nil || len(got) != 0 {
		t.Fatalf("--demo without PATH: %v, args %v", err, got)
	}
	ds, err := f.Load(nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := ingest.Load([]string{demo.RExBenchRunsPath}, ingest.Options{FS: demo.FS()})
	if err != nil || want.Err() != nil {
		t.Fatal(err, want.Err())
	}
	if len(ds.Runs) != len(want.Runs) || len(ds.Runs) == 0 {
		t.Errorf("--demo --where benchmark=rexbench: %d runs, the embedded RExBench file has %d", len(ds.Runs), len(want.Runs))
	}

	var ue *UsageError
	f = InputFlags{}
	cmd.SetArgs([]string{"--demo", "runs.jsonl"})
	if err := cmd.Execute(); !errors.As(err, &ue) || !strings.Contains(err.Error(), "give no PATH") {
		t.Errorf("--demo with a PATH: %v", err)
	}
	f = InputFlags{}
	cmd.SetArgs([]string{})
	if err := cmd.Execute(); !errors.As(err, &ue) || !strings.Contains(err.Error(), "--demo") {
		t.Errorf("no PATH, no --demo: %v", err)
	}
}

package exportcmd

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdtest"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/demo"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/spf13/cobra"
)

func newCmd(io *iostreams.IO) *cobra.Command { return NewCmd(io, "test", nil) }

// demoInputs copies the demo study's RE-Bench runs and score log to disk.
func demoInputs(t *testing.T) []string {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for _, p := range []string{demo.REBenchRunsPath, demo.REBenchScoreLogPath} {
		b, err := fs.ReadFile(demo.FS(), p)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, filepath.Base(p))
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, dst)
	}
	return paths
}

func lines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

func TestExport(t *testing.T) {
	in := demoInputs(t)
	out := t.TempDir()
	_, errOut, err := cmdtest.Run(t, newCmd, append(in, "--to", "csv", "-o", out)...)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	for _, table := range []string{"runs", "score_log", "tasks"} {
		p := filepath.Join(out, table+".csv")
		if n := lines(t, p); n < 2 {
			t.Errorf("%s: %d lines", p, n)
		}
		if !strings.Contains(errOut, "wrote "+p) {
			t.Errorf("stderr does not name %s:\n%s", p, errOut)
		}
	}
	head, _ := os.ReadFile(filepath.Join(out, "runs.csv"))
	if !strings.HasPrefix(string(head), "run_id,") {
		t.Errorf("runs.csv header: %.60s", head)
	}

	// --table runs, JSON Lines: one line per run, nothing else written.
	out2 := t.TempDir()
	if _, errOut, err := cmdtest.Run(t, newCmd, append(in, "--to", "jsonl", "--table", "runs", "-o", out2)...); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if n, want := lines(t, filepath.Join(out2, "runs.jsonl")), lines(t, filepath.Join(out, "runs.csv"))-1; n != want {
		t.Errorf("runs.jsonl: %d lines, runs.csv %d rows", n, want)
	}
	if ents, _ := os.ReadDir(out2); len(ents) != 1 {
		t.Errorf("--table runs wrote %d files", len(ents))
	}
}

func TestExportErrors(t *testing.T) {
	in := demoInputs(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--to", "xml", "-o", "x"}, `--to "xml"`},
		{[]string{"--to", "csv"}, "missing -o DIR"},
		{[]string{"--to", "csv", "-o", "x", "--table", "run"}, `--table "run"`},
	} {
		_, _, err := cmdtest.Run(t, newCmd, append(in, c.args...)...)
		var ue *cmdutil.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want a usage error with %q", c.args, err, c.want)
		}
	}
	// Bad input: nothing written, a bad-input error (exit 2).
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, []byte("{\"run_id\": \"r1\", \"score\": \"high\"}\n"), 0o644)
	out := filepath.Join(t.TempDir(), "out")
	_, _, err := cmdtest.Run(t, newCmd, bad, "--to", "csv", "-o", out)
	var be *cmdutil.BadInputError
	if !errors.As(err, &be) && !errors.As(err, new(*cmdutil.UsageError)) {
		t.Errorf("bad input: error %v (%T)", err, err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("bad input: the output folder was created")
	}
}

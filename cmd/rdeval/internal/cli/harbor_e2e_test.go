package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ingestTestdata is ingest's fixture folder, from this package's folder.
var ingestTestdata = filepath.Join("..", "..", "..", "..", "ingest", "testdata")

// TestIngestHarborTerminalBench: `rdeval ingest` reads a folder of Harbor
// jobs and a folder of terminal-bench runs as given on the command line,
// and `rdeval inspect` reads the tables back. Counts from
// testdata/reference/harbor_tb_runs.csv (harbor_tb.py): 7 Harbor trials in
// 2 jobs, 9 terminal-bench trials in 2 runs.
func TestIngestHarborTerminalBench(t *testing.T) {
	harbor, _ := filepath.Abs(filepath.Join(ingestTestdata, "harbor", "jobs"))
	tb, _ := filepath.Abs(filepath.Join(ingestTestdata, "terminalbench", "runs"))
	bad, _ := filepath.Abs(filepath.Join(ingestTestdata, "harbor-bad", "jobs"))
	t.Chdir(t.TempDir())
	for _, c := range []struct {
		in   string
		rows float64
	}{{harbor, 7}, {tb, 9}} {
		out := filepath.Base(filepath.Dir(c.in))
		code, _, stderr := run(t, "ingest", c.in, "-o", out)
		if code != 0 {
			t.Fatalf("ingest %s: exit %d\n%s", c.in, code, stderr)
		}
		code, stdout, stderr := run(t, "inspect", out, "--format", "json")
		if code != 0 {
			t.Fatalf("inspect %s: exit %d\n%s", out, code, stderr)
		}
		var s map[string]any
		if err := json.Unmarshal([]byte(stdout), &s); err != nil {
			t.Fatalf("inspect %s: %v\n%s", out, err, stdout)
		}
		if s["rows"].(float64) != c.rows {
			t.Errorf("%s: %v rows, want %v", out, s["rows"], c.rows)
		}
		// The source's own fields (extras) survive `rdeval export` and read
		// back from the export as they were written.
		if code, _, stderr := run(t, "export", out, "--to", "jsonl", "-o", out+"-jsonl"); code != 0 {
			t.Fatalf("export %s: exit %d\n%s", out, code, stderr)
		}
		b, err := os.ReadFile(filepath.Join(out+"-jsonl", "runs.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		extras := 0
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var r struct{ Extras *string }
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatal(err)
			}
			if r.Extras != nil {
				extras++
				if !json.Valid([]byte(*r.Extras)) {
					t.Errorf("%s: extras %q is not JSON", out, *r.Extras)
				}
			}
		}
		if extras != int(c.rows) {
			t.Errorf("%s: %d exported runs have extras, want %v", out, extras, c.rows)
		}
		if code, _, stderr := run(t, "ingest", filepath.Join(out+"-jsonl", "runs.jsonl"), "--reader", "generic", "-o", out+"-back"); code != 0 {
			t.Fatalf("ingest the export: exit %d\n%s", code, stderr)
		}
		code, stdout, _ = run(t, "inspect", out+"-back", "--format", "json")
		if code != 0 || !strings.Contains(stdout, `"extras"`) {
			t.Errorf("the export read back: exit %d, no extras column:\n%s", code, stdout)
		}
	}
	// Bad trials: exit 2, each named with its file and field, and nothing written.
	code, _, stderr := run(t, "ingest", bad, "-o", "bad")
	if code != 2 || !strings.Contains(stderr, filepath.Join("notask__Cc33333", "result.json")+`:1: field "task_name": missing required field`) {
		t.Errorf("bad jobs: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join("bad", "runs.parquet")); err == nil {
		t.Errorf("bad jobs: runs.parquet written")
	}
	// --skip-bad keeps the good trial.
	if code, _, stderr := run(t, "ingest", bad, "-o", "bad", "--skip-bad"); code != 0 {
		t.Errorf("--skip-bad: exit %d\n%s", code, stderr)
	}
}

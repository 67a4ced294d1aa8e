package reportcmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdtest"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/spf13/cobra"
)

// TestReportConfig: rdeval report --config draws exactly the config's
// figures (figures/ and figures/index.json as rdeval figures writes them),
// and the page holds each inline with the warnings and provenance.
func TestReportConfig(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r")
	cfgPath := "../../../../examples/demo-study.yaml"
	_, stderr, err := cmdtest.Run(t, func(io *iostreams.IO) *cobra.Command { return NewCmd(io, "test", nil, nil) }, "--config", cfgPath, "--out", dir)
	if err != nil {
		t.Fatal(err, stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "figures", "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var idx struct {
		Figures []struct{ ID string }
	}
	if err := json.Unmarshal(b, &idx); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(page), `<figure class="rdeval-figure"`); n != len(idx.Figures) || n < 10 {
		t.Errorf("%d figures on the page, %d in index.json", n, len(idx.Figures))
	}
	for _, f := range idx.Figures {
		if !strings.Contains(string(page), `id="`+f.ID+`"><svg`) {
			t.Errorf("figure %s is not inline on the page", f.ID)
		}
		if _, err := os.Stat(filepath.Join(dir, "figures", f.ID+".svg")); err != nil {
			t.Error(err)
		}
	}
	for _, want := range []string{`<h2 id="warnings">`, "figure forest: only 12 clusters", "Provenance", "demo-study.yaml (sha256 ", "re-bench/runs.jsonl"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, f := range []string{"groups.csv", "scores.csv", "README.md", "data/manifest.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}

// TestReportConfigUsage: --config with INPUT arguments is a usage error,
// and a bad config writes nothing.
func TestReportConfigUsage(t *testing.T) {
	dir := t.TempDir()
	newCmd := func(io *iostreams.IO) *cobra.Command { return NewCmd(io, "test", nil, nil) }
	if _, _, err := cmdtest.Run(t, newCmd, "--config", "x.yaml", "runs.jsonl"); err == nil || !strings.Contains(err.Error(), "drop the INPUT") {
		t.Errorf("--config with inputs: %v", err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("demo: true\nfigures:\n  - {id: a, type: scoreatk, options: {time_limit: 3h}}\n"), 0o644)
	out := filepath.Join(dir, "out")
	if _, _, err := cmdtest.Run(t, newCmd, "--config", bad, "--out", out); err == nil || !strings.Contains(err.Error(), "bad.yaml:3") {
		t.Errorf("bad config: %v", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("output folder after a failure: %v", err)
	}
}

// TestSmallN: by hand, a group of 2 tasks with 1 and 3 runs gets both
// warnings; a group of 5 tasks with 3 runs each gets none.
func TestSmallN(t *testing.T) {
	runs := []struct {
		agent, task string
		n           int
	}{{"a", "t1", 1}, {"a", "t2", 3}, {"b", "t1", 3}, {"b", "t2", 3}, {"b", "t3", 3}, {"b", "t4", 3}, {"b", "t5", 3}}
	d := datasetOf(runs)
	got := smallN(d)
	want := []string{
		"small n: re-bench, a, 30 min runs: only 2 tasks (fewer than 5)",
		"small n: re-bench, a, 30 min runs: tasks with fewer than 3 runs: t1 (1)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("smallN:\n got %q\nwant %q", got, want)
	}
}

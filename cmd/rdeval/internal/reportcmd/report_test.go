package reportcmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdtest"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/figconfig"
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

// TestReportDemo (issue 24): the default report is the demo's figures
// config (every figure type) through the --config code, with the headline
// tables in the page, each also written as CSV and linked from it, and
// every figure's caption and warnings under it.
func TestReportDemo(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r")
	if err := runReport(t, &Options{OutDir: dir}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	cfg, err := figconfig.DemoConfig()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range cfg.Figures {
		if !strings.Contains(page, `id="`+f.ID+`"><svg`) {
			t.Errorf("figure %s (%s) is not on the page", f.ID, f.Type)
		}
	}
	if n := strings.Count(page, `<figure class="rdeval-figure`); n != len(cfg.Figures) {
		t.Errorf("%d figures on the page, %d in the demo config", n, len(cfg.Figures))
	}
	// The forest's warning is under the forest figure, not only in the list.
	fi := strings.Index(page, `id="forest"><svg`)
	if fi < 0 || !strings.Contains(page[fi:fi+strings.Index(page[fi:], "</figure>")], "only 12 clusters") {
		t.Errorf("the forest figure's warning is not under it")
	}
	for _, h := range []struct{ id, csv, cell string }{
		{"table-scoreatk", "scoreatk.csv", "score@k [CI]"},
		{"table-allocation", "allocation.csv", "32 h"},
		{"table-cost", "cost.csv", "cost per unit score [CI]"},
		{"table-success", "success.csv", "final success [CI]"},
		{"table-regression", "regression.csv", "scale(gold_lines_changed)"},
		{"table-horizons", "horizons.csv", "Doubling time"},
	} {
		i := strings.Index(page, `<section class="rdeval-table" id="`+h.id+`">`)
		if i < 0 {
			t.Errorf("table %s is not on the page", h.id)
			continue
		}
		sec := page[i : i+strings.Index(page[i:], "</section>")]
		if !strings.Contains(sec, h.cell) || !strings.Contains(sec, `<a href="`+h.csv+`">`) || strings.Count(sec, "<tr>") < 3 {
			t.Errorf("table %s lacks %q, its rows or its CSV link:\n%.600s", h.id, h.cell, sec)
		}
		if fi, err := os.Stat(filepath.Join(dir, h.csv)); err != nil || fi.Size() < 100 {
			t.Errorf("%s: %v", h.csv, err)
		}
	}
	// Estimates with intervals as papers print them, e.g. 0.40 [0.33, 0.47].
	if !regexp.MustCompile(`<td class="n">0\.\d\d \[0\.\d\d, 0\.\d\d\]</td>`).MatchString(page) {
		t.Errorf("no estimate [low, high] cell on the page")
	}
	// Every horizon agent of the demo has a p50 (none refused).
	i := strings.Index(page, `id="table-horizons"`)
	for _, a := range []string{"react model-p", "react model-t"} {
		if !regexp.MustCompile(`<td>` + a + `</td><td class="n">192</td><td class="n">[0-9.]+ \[[0-9.]+, [0-9.]+\]</td>`).MatchString(page[i:]) {
			t.Errorf("%s: no p50 with its interval in the horizons table", a)
		}
	}
}

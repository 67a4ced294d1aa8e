package reportcmd

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/demo"
)

// extractDemo writes the embedded demo files into a temporary folder, as a
// user's study folder would hold them.
func extractDemo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	err := fs.WalkDir(demo.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(demo.FS(), p)
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// checkReportPage reads OUT/index.html and checks that it has exactly the
// figures figs (inline SVG), the headline tables tables (with rows) and a
// "Left out" entry containing each of leftOut; it returns the page.
func checkReportPage(t *testing.T, out string, figs, tables, leftOut []string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, f := range figs {
		if !strings.Contains(page, `id="`+f+`"><svg`) {
			t.Errorf("figure %s is not on the page", f)
		}
		if _, err := os.Stat(filepath.Join(out, "figures", f+".svg")); err != nil {
			t.Error(err)
		}
	}
	if n := strings.Count(page, `<figure class="rdeval-figure"`); n != len(figs) {
		t.Errorf("%d figures on the page, want %d (%s)", n, len(figs), strings.Join(figs, ", "))
	}
	for _, id := range tables {
		i := strings.Index(page, `<section class="rdeval-table" id="`+id+`">`)
		if i < 0 {
			t.Errorf("table %s is not on the page", id)
			continue
		}
		if sec := page[i : i+strings.Index(page[i:], "</section>")]; strings.Count(sec, "<tr>") < 3 {
			t.Errorf("table %s has no rows:\n%.400s", id, sec)
		}
	}
	if n := strings.Count(page, `<section class="rdeval-table"`); n != len(tables) {
		t.Errorf("%d tables on the page, want %d (%s)", n, len(tables), strings.Join(tables, ", "))
	}
	lo := ""
	if i := strings.Index(page, `<h2 id="left-out">`); i >= 0 {
		lo = page[i : i+strings.Index(page[i:], "</ul>")]
	}
	for _, l := range leftOut {
		if !strings.Contains(lo, l) {
			t.Errorf("the page's Left out section lacks %q:\n%s", l, lo)
		}
	}
	return page
}

// TestReportInputsDemoFiles (issue 24): rdeval report on the demo's files
// given as INPUT (no --config) generates a figures config from the data
// and draws every figure type they allow through the --config code, with
// the headline tables; the one the data lack (file recall) is left out
// with the reason. The report is byte-identical when run again, and the
// written study.yaml redraws the same figures with --config.
func TestReportInputsDemoFiles(t *testing.T) {
	src := extractDemo(t)
	in := func(p string) string { return filepath.Join(src, filepath.FromSlash(p)) }
	out := filepath.Join(t.TempDir(), "r")
	opts := func(out string) *Options {
		return &Options{OutDir: out, Inputs: []string{in(demo.REBenchRunsPath), in(demo.REBenchScoreLogPath), in(demo.RExBenchRunsPath), in(demo.HorizonRunsPath)},
			Input: cmdutil.InputFlags{TasksFile: in(demo.RExBenchTasksPath), TaskIDFrom: "task/sample"}, ReleaseDates: in(demo.HorizonReleaseDatesPath)}
	}
	if err := runReport(t, opts(out)); err != nil {
		t.Fatal(err)
	}
	figs := []string{"scoreatk_30min", "scoreatk_2h", "scoreatk_8h", "allocation", "allocation_8h", "per_task", "curves",
		"success_final", "success_exec", "errors", "gold_lines", "forest", "horizon_fit", "horizon_trend", "cost_hcast", "cost_re-bench"}
	tables := []string{"table-scoreatk", "table-allocation", "table-cost", "table-success", "table-regression", "table-horizons"}
	page := checkReportPage(t, out, figs, tables, []string{"figure success (recall): no RExBench run has file_recall"})
	if !strings.Contains(page, "Doubling time") {
		t.Errorf("no doubling time with --release-dates")
	}
	// Byte-reproducible: a second report of the same inputs is identical.
	again := filepath.Join(filepath.Dir(out), "r2")
	if err := runReport(t, opts(again)); err != nil {
		t.Fatal(err)
	}
	for _, f := range append([]string{"index.html", "README.md", "study.yaml", "scoreatk.csv", "horizons.csv", "figures/index.json"}, prefixed("figures/", ".svg", figs)...) {
		a, errA := os.ReadFile(filepath.Join(out, f))
		b, errB := os.ReadFile(filepath.Join(again, f))
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs between two reports (%v, %v)", f, errA, errB)
		}
	}
	// The generated config draws the same figures through --config.
	cfgOut := filepath.Join(filepath.Dir(out), "c")
	if err := runReport(t, &Options{OutDir: cfgOut, Config: filepath.Join(out, "study.yaml")}); err != nil {
		t.Fatal(err)
	}
	for _, f := range prefixed("figures/", ".svg", figs) {
		a, _ := os.ReadFile(filepath.Join(out, f))
		b, err := os.ReadFile(filepath.Join(cfgOut, f))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s: --config study.yaml draws it differently (%v)", f, err)
		}
	}
}

// TestReportInputsLeftOut: without the gold catalog and the release
// dates, and with RE-Bench runs of one run length, the figures that need
// them are left out, each with its reason on the page.
func TestReportInputsLeftOut(t *testing.T) {
	src := extractDemo(t)
	// The RE-Bench runs of 30 minutes only.
	b, err := os.ReadFile(filepath.Join(src, filepath.FromSlash(demo.REBenchRunsPath)))
	if err != nil {
		t.Fatal(err)
	}
	var short []string
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if strings.Contains(l, `"time_limit":1800,`) {
			short = append(short, l)
		}
	}
	rb := filepath.Join(src, "runs-30min.jsonl")
	if len(short) < 100 || os.WriteFile(rb, []byte(strings.Join(short, "")), 0o644) != nil {
		t.Fatalf("%d runs of 30 minutes", len(short))
	}
	out := filepath.Join(t.TempDir(), "r")
	opts := &Options{OutDir: out, Inputs: []string{rb, filepath.Join(src, filepath.FromSlash(demo.RExBenchRunsPath))},
		Input: cmdutil.InputFlags{TaskIDFrom: "task/sample"}}
	if err := runReport(t, opts); err != nil {
		t.Fatal(err)
	}
	checkReportPage(t, out, []string{"scoreatk_30min", "per_task", "success_final", "success_exec", "errors", "horizon_fit", "cost"},
		[]string{"table-scoreatk", "table-allocation", "table-cost", "table-success", "table-horizons"},
		[]string{
			"table regression (regression.csv): no gold lines changed for the RExBench tasks",
			"figure allocation: one agent run length (30 min): an allocation compares several",
			"figure allocation-bars: one agent run length (30 min)",
			"figure curves: no score logs for the RE-Bench runs",
			"figure forest: no gold lines changed for the RExBench tasks (give a catalog with --tasks)",
			"figure gold-lines: no gold lines changed",
			"figure horizon-trend: no release dates (give --release-dates FILE",
			"the doubling time of the time horizons: no release dates",
		})
}

// TestReportInputsMETR (issue 24): the report of METR's public
// all_runs.jsonl (RE-Bench and HCAST runs with human minutes, no
// score logs, no RExBench runs) has score@k at each RE-Bench run length,
// the allocation figures, per-task scores, the horizon fit and trend
// (METR's release dates), the score@k, human comparison and horizon
// tables, and says why curves and the RExBench figures and tables are left
// out.
func TestReportInputsMETR(t *testing.T) {
	anchors := filepath.Join("..", "..", "..", "..", "..", "shared", "anchors", "eval-analysis-public")
	runs := filepath.Join(anchors, "3a947ac7069ecb6e1fd0064cc0205e5eb9dcba0f", "data", "external", "all_runs.jsonl")
	dates := filepath.Join(anchors, "52d6b564d243aeb7531f1cbdc7c33a5a2cc98aaf", "data", "external", "release_dates.yaml")
	for _, p := range []string{runs, dates} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("skipping: METR's public data not found (%v; ../shared sits beside the checkout)", err)
		}
	}
	out := filepath.Join(t.TempDir(), "r")
	if err := runReport(t, &Options{OutDir: out, Inputs: []string{runs}, ReleaseDates: dates, Input: cmdutil.InputFlags{TaskIDFrom: "task/sample"}}); err != nil {
		t.Fatal(err)
	}
	page := checkReportPage(t, out, []string{"scoreatk_30min", "scoreatk_2h", "scoreatk_8h", "allocation", "allocation_8h", "per_task", "horizon_fit", "horizon_trend"},
		[]string{"table-scoreatk", "table-allocation", "table-horizons"},
		[]string{
			"figure curves: no score logs for the RE-Bench runs",
			"figure success: no RExBench runs (benchmark rexbench)",
			"figure errors: no RExBench runs",
			"figure forest: no RExBench runs",
			"figure gold-lines: no RExBench runs",
			"tables RExBench success (success.csv) and regression (regression.csv): no RExBench runs",
			"figure cost: only human runs have cost_usd: no agent to compare",
		})
	// The horizons are fitted on every benchmark with human minutes, as METR's.
	if b, _ := os.ReadFile(filepath.Join(out, "study.yaml")); !strings.Contains(string(b), `where: ["benchmark=hcast,re-bench"]`) {
		t.Errorf("study.yaml: horizon figures not on hcast and re-bench:\n%s", b)
	}
	if !strings.Contains(page, "Doubling time") {
		t.Errorf("no doubling time with METR's release dates")
	}
}

func prefixed(pre, suf string, xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = pre + x + suf
	}
	return out
}

// TestAutoConfigBenchmarkHint: scored runs with a time limit of another
// benchmark than re-bench get no RE-Bench figures, and the reason says how
// to read them as RE-Bench's.
func TestAutoConfigBenchmarkHint(t *testing.T) {
	d := datasetOf([]struct {
		agent, task string
		n           int
	}{{"a", "t1", 3}})
	for i := range d.Runs {
		d.Runs[i].Benchmark = "my-bench"
	}
	figs, leftOut := autoConfig(d, func(p string) string { return p }, "")
	if len(figs) != 0 {
		t.Errorf("figures %v on runs of my-bench without human minutes or costs", figs)
	}
	want := "figure scoreatk: no RE-Bench runs (benchmark re-bench) with a score (--benchmark re-bench reads the scored runs of my-bench as RE-Bench's)"
	if len(leftOut) == 0 || leftOut[0] != want {
		t.Errorf("left out %q, want first %q", leftOut, want)
	}
	// As re-bench: one run length gives score@k and per-task, not the allocations.
	for i := range d.Runs {
		d.Runs[i].Benchmark = "re-bench"
	}
	figs, _ = autoConfig(d, func(p string) string { return p }, "")
	var got []string
	for _, f := range figs {
		got = append(got, f.id+":"+f.typ)
	}
	if strings.Join(got, " ") != "scoreatk_30min:scoreatk per_task:per-task" {
		t.Errorf("figures %v", got)
	}
}

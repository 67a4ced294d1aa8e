package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
)

// run runs rdeval in-process and returns the exit code, stdout and stderr.
func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	io, out, errOut := iostreams.Test()
	code := Main(args, io)
	return code, out.String(), errOut.String()
}

// TestHelp: every command has a short and long description and examples,
// and --help prints them and exits 0.
func TestHelp(t *testing.T) {
	io, _, _ := iostreams.Test()
	root := NewRoot(io, "test", nil)
	for _, c := range root.Commands() {
		if c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		t.Run(c.Name(), func(t *testing.T) {
			if c.Short == "" || c.Long == "" || c.Example == "" {
				t.Errorf("%s: Short, Long and Example must all be set", c.Name())
			}
			code, out, _ := run(t, c.Name(), "--help")
			if code != 0 || !strings.Contains(out, "Examples:") || !strings.Contains(out, "rdeval "+c.Name()) {
				t.Errorf("%s --help: exit %d\n%s", c.Name(), code, out)
			}
		})
	}
}

func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"ingest", "x.jsonl"}, "missing -o DIR"},
		{[]string{"ingest", "x.jsonl", "-o", "o", "--format", "xml"}, `--format "xml": want parquet or arrow`},
		{[]string{"inspect"}, "or --demo for the embedded demo study"},
		{[]string{"inspect", "x", "--bogus"}, "unknown flag: --bogus"},
		{[]string{"inspect", "x", "--where", "colour=red"}, `unknown column "colour"`},
		{[]string{"ingest", "x", "-o", "o", "--map", "source_line=x"}, "not a runs column that inputs can set"},
		{[]string{"frobnicate"}, "unknown command"},
	} {
		code, _, stderr := run(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("rdeval %s: exit %d, stderr %q; want exit 2 and %q", strings.Join(tc.args, " "), code, stderr, tc.want)
		}
	}
	if code, _, stderr := run(t, "inspect", "does-not-exist.jsonl"); code != 2 || !strings.Contains(stderr, "does-not-exist.jsonl: no such file or directory") {
		t.Errorf("missing input: exit %d, %q", code, stderr)
	}
}

const metrLines = `{"run_id":"r1","task_id":"ai_rd_fix_embedding/main","task_family":"ai_rd_fix_embedding","alias":"A","model":"a","score":0.5,"score_binarized":0,"time_limit":1800,"started_at":1734070031112,"completed_at":1734071923976}
{"run_id":"r2","task_id":"ai_rd_fix_embedding/main","task_family":"ai_rd_fix_embedding","alias":"A","model":"a","score":1.0,"score_binarized":1,"time_limit":1800,"started_at":1734070031112,"completed_at":1734071923976}
{"run_id":"r3","task_id":"ai_rd_triton_cumsum/main","task_family":"ai_rd_triton_cumsum","alias":"B","model":"b","score":null,"score_binarized":null,"time_limit":7200,"started_at":1734070031112,"completed_at":1734071923976}
{"run_id":7,"task_id":"ai_rd_triton_cumsum/main","task_family":"ai_rd_triton_cumsum","alias":"human","model":"human","score":0.25,"score_binarized":0,"time_limit":0,"started_at":0,"completed_at":28800000}
`

// TestIngestThenInspect: inspect gives the same summary for the raw file
// and for the folder ingest wrote (Parquet and Arrow), and --where filters.
func TestIngestThenInspect(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.WriteFile("runs.jsonl", []byte(metrLines), 0o644)
	for _, format := range []string{"parquet", "arrow"} {
		out := "study-" + format
		if code, _, stderr := run(t, "ingest", "runs.jsonl", "-o", out, "--format", format); code != 0 {
			t.Fatalf("ingest: %d %s", code, stderr)
		}
		if _, err := os.Stat(filepath.Join(out, "runs."+format)); err != nil {
			t.Fatal(err)
		}
	}
	var summaries []map[string]any
	for _, in := range []string{"runs.jsonl", "study-parquet", "study-arrow", "study-parquet/runs.parquet"} {
		code, stdout, stderr := run(t, "inspect", in, "--format", "json")
		if code != 0 {
			t.Fatalf("inspect %s: %d %s", in, code, stderr)
		}
		var s map[string]any
		if err := json.Unmarshal([]byte(stdout), &s); err != nil {
			t.Fatalf("inspect %s: %v\n%s", in, err, stdout)
		}
		summaries = append(summaries, s)
	}
	want := summaries[0]
	if want["rows"].(float64) != 4 {
		t.Fatalf("rows = %v, want 4", want["rows"])
	}
	groups := want["groups"].([]any)
	if len(groups) != 3 {
		t.Fatalf("groups = %v", groups)
	}
	// Sorted by benchmark, agent, time limit, task: A/1800/fix_embedding has 2 runs;
	// the human group has a null time limit (METR writes 0 for humans).
	g0 := groups[0].(map[string]any)
	if g0["agent"] != "A" || g0["runs"].(float64) != 2 || g0["time_limit_s"].(float64) != 1800 {
		t.Errorf("first group %v", g0)
	}
	if g := groups[2].(map[string]any); g["agent"] != "human" || g["time_limit_s"] != nil {
		t.Errorf("human group %v", g)
	}
	if n := want["nulls"].(map[string]any)["score"].(float64); n != 1 {
		t.Errorf("null scores %v, want 1", n)
	}
	for i, s := range summaries[1:] {
		for _, k := range []string{"rows", "groups", "nulls"} {
			a, _ := json.Marshal(want[k])
			b, _ := json.Marshal(s[k])
			if !bytes.Equal(a, b) {
				t.Errorf("input %d: %s differs:\n%s\n%s", i+1, k, a, b)
			}
		}
	}
	code, stdout, _ := run(t, "inspect", "study-parquet", "--where", "agent=A,human", "--where", "time_limit_s=1800", "--format", "json")
	if code != 0 || !strings.Contains(stdout, `"rows": 2`) {
		t.Errorf("--where: exit %d\n%s", code, stdout)
	}
	code, stdout, _ = run(t, "inspect", "runs.jsonl")
	if code != 0 || !strings.Contains(stdout, "fewer than 5 runs") || !strings.Contains(stdout, "BENCHMARK") {
		t.Errorf("table output: exit %d\n%s", code, stdout)
	}
}

// TestReport: the demo report is written, says the data are synthetic,
// and is byte-identical when run twice.
func TestReport(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	read := func(out string) map[string][]byte {
		files := map[string][]byte{}
		filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				b, _ := os.ReadFile(p)
				rel, _ := filepath.Rel(out, p)
				files[rel] = b
			}
			return nil
		})
		return files
	}
	if code, _, stderr := run(t, "report"); code != 0 {
		t.Fatalf("report: %d %s", code, stderr)
	}
	first := read("rdeval-report")
	for _, f := range []string{"README.md", "groups.csv", "scores.csv", "rexbench_outcomes.csv", "data/runs.parquet", "data/score_log.parquet", "data/tasks.parquet", "data/manifest.json"} {
		if len(first[f]) == 0 {
			t.Errorf("report lacks %s", f)
		}
	}
	if !strings.Contains(string(first["README.md"]), "synthetic") {
		t.Errorf("README does not say the demo is synthetic")
	}
	// Every figure file is also inline in index.html, which has no external assets.
	page := string(first["index.html"])
	nfig := 0
	for name, b := range first {
		if strings.HasPrefix(name, "figures/") && strings.HasSuffix(name, ".svg") {
			nfig++
			if !bytes.Contains(b, []byte("<svg")) || len(b) < 1000 {
				t.Errorf("%s is not a drawn SVG", name)
			}
		}
	}
	if nfig < 5 || strings.Count(page, "<svg") != nfig || strings.Contains(page, "http://") && !strings.Contains(page, "http://www.w3.org") || strings.Contains(page, "https://") || strings.Contains(page, "<script") {
		t.Errorf("%d figures, %d inline SVGs in index.html (or external references)", nfig, strings.Count(page, "<svg"))
	}
	if code, _, stderr := run(t, "report"); code != 0 {
		t.Fatalf("report again: %d %s", code, stderr)
	}
	second := read("rdeval-report")
	for name, b := range first {
		if !bytes.Equal(b, second[name]) {
			t.Errorf("%s differs between two runs", name)
		}
	}
	// The ingested demo tables are readable by inspect.
	code, stdout, _ := run(t, "inspect", "rdeval-report/data", "--format", "json")
	if code != 0 || !strings.Contains(stdout, `"rows": 2670`) {
		t.Errorf("inspect of the report's data: %d\n%.300s", code, stdout)
	}
}

// TestQuiet: --quiet silences notes and warnings but not errors.
func TestQuiet(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.WriteFile("runs.jsonl", []byte(metrLines), 0o644)
	code, _, stderr := run(t, "ingest", "runs.jsonl", "-o", "out", "--quiet")
	if code != 0 || stderr != "" {
		t.Errorf("--quiet ingest: exit %d, stderr %q", code, stderr)
	}
	// normalize's count line is an Infof: printed, and dropped under -q.
	if code, _, stderr := run(t, "normalize", "runs.jsonl"); code != 0 || !strings.Contains(stderr, " from score logs, ") {
		t.Errorf("normalize: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := run(t, "normalize", "runs.jsonl", "-q"); code != 0 || stderr != "" {
		t.Errorf("normalize -q: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = run(t, "ingest", "missing.jsonl", "-o", "out2", "-q")
	if code != 2 || !strings.Contains(stderr, "missing.jsonl") {
		t.Errorf("--quiet error: exit %d, stderr %q", code, stderr)
	}
}

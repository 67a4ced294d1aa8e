package diffcmd

import (
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// othelloPatch changes probe.py line 5.
const othelloPatch = `diff --git a/probe.py b/probe.py
--- a/probe.py
+++ b/probe.py
@@ -4,3 +4,3 @@
 x
-y
+z
 w
`

// batchDirs writes a gold folder with tasks cogs and othello and an agent
// folder with three runs, one per matching rule:
//
//	cogs/run1.patch                               folder named like a task; the gold patch itself
//	cogs_run2.patch                               file name starting with "cogs_"; an empty patch
//	openhands/othello/default/openhands_run1.patch deepest task folder; a disjoint patch
func batchDirs(t *testing.T) (gold, agent string) {
	t.Helper()
	dir := t.TempDir()
	gold, agent = filepath.Join(dir, "gold"), filepath.Join(dir, "agent")
	write(t, gold, map[string]string{"cogs.patch": goldPatch, "othello.patch": othelloPatch, "README.md": "not a patch"})
	write(t, agent, map[string]string{
		"cogs/run1.patch": goldPatch,
		"cogs_run2.patch": "",
		"openhands/othello/default/openhands_run1.patch": agentPatch,
		".cache/junk.patch": "ignored: hidden folder",
		"notes.txt":         "ignored: not .patch",
	})
	return gold, agent
}

// TestBatch: by hand. cogs/run1 is the gold patch: all 1, over-edit 0, 3
// files each, 2+1+2 = 5 lines changed. cogs_run2 is empty: recall 0,
// precision null, F1 0, Jaccard 0, line recall 0, over-edit null. The
// othello run is agentPatch against probe.py: disjoint: 0, 0, 0, 0, line
// recall 0 (gold line 5), over-edit 1; 3 agent files, 1 gold file, 3 lines.
func TestBatch(t *testing.T) {
	gold, agent := batchDirs(t)
	out, stderr, err := runCmd(t, "--gold-dir", gold, "--agent-dir", agent, "--format", "json")
	if err != nil {
		t.Fatal(err, stderr)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err, out)
	}
	keys := []string{"run_id", "task_id", "file_recall", "file_precision", "f1", "jaccard", "line_recall", "over_edit_share", "agent_files", "gold_files", "agent_lines_changed"}
	nan := math.NaN()
	want := []struct {
		run, task string
		metrics   [6]float64
		counts    [3]float64
	}{
		{"cogs/run1", "cogs", [6]float64{1, 1, 1, 1, 1, 0}, [3]float64{3, 3, 5}},
		{"cogs_run2", "cogs", [6]float64{0, nan, 0, 0, 0, nan}, [3]float64{0, 3, 0}},
		{"openhands/othello/default/openhands_run1", "othello", [6]float64{0, 0, 0, 0, 0, 1}, [3]float64{3, 1, 3}},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d:\n%s", len(rows), len(want), out)
	}
	var first []json.RawMessage
	json.Unmarshal([]byte(out), &first)
	if k := objectKeys(t, first[0]); !slices.Equal(k, keys) {
		t.Errorf("keys %v, want %v", k, keys)
	}
	for i, w := range want {
		r := rows[i]
		if r["run_id"] != w.run || r["task_id"] != w.task {
			t.Errorf("row %d: %v %v, want %s %s", i, r["run_id"], r["task_id"], w.run, w.task)
		}
		for j, k := range keys[2:8] {
			switch v, ok := r[k].(float64); {
			case math.IsNaN(w.metrics[j]) && r[k] != nil:
				t.Errorf("%s %s = %v, want null", w.run, k, r[k])
			case !math.IsNaN(w.metrics[j]) && (!ok || v != w.metrics[j]):
				t.Errorf("%s %s = %v, want %v", w.run, k, r[k], w.metrics[j])
			}
		}
		for j, k := range keys[8:] {
			if r[k] != w.counts[j] {
				t.Errorf("%s %s = %v, want %v", w.run, k, r[k], w.counts[j])
			}
		}
	}

	csv, _, err := runCmd(t, "--gold-dir", gold, "--agent-dir", agent, "--format", "csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(csv), "\n")
	if len(lines) != 4 || lines[0] != strings.Join(keys, ",") || lines[2] != "cogs_run2,cogs,0.0000,,0.0000,0.0000,0.0000,,0,3,0" {
		t.Errorf("csv:\n%s", csv)
	}
	table, _, err := runCmd(t, "--gold-dir", gold, "--agent-dir", agent)
	if err != nil || !strings.Contains(table, "openhands/othello/default/openhands_run1  othello") {
		t.Errorf("table: %v\n%s", err, table)
	}
}

func TestBatchBadAndUnmatched(t *testing.T) {
	gold, agent := batchDirs(t)
	write(t, agent, map[string]string{
		"misc/run9.patch":  goldPatch,                                                                 // no task
		"cogs/evil.patch":  "diff --git a/../x b/../x\n--- a/../x\n+++ b/../x\n@@ -1 +1 @@\n-a\n+b\n", // bad
		"cogsx_run1.patch": goldPatch,                                                                 // "cogsx" is not "cogs" + separator
	})
	_, _, err := runCmd(t, "--gold-dir", gold, "--agent-dir", agent)
	badInput(t, err, "2 agent patches match no gold task: cogsx_run1, misc/run9", "gold tasks: cogs, othello", "--skip-bad")

	out, stderr, err := runCmd(t, "--gold-dir", gold, "--agent-dir", agent, "--skip-bad", "--format", "csv")
	if err != nil {
		t.Fatal(err, stderr)
	}
	if n := strings.Count(out, "\n"); n != 4 {
		t.Errorf("%d lines, want header + 3 good runs:\n%s", n, out)
	}
	for _, w := range []string{"warning: left out 2 agent patches match no gold task", "evil.patch", `path has a ".." element`, "left out 1 bad agent patches"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	}
	// Without --skip-bad, only the unmatched runs' error comes first; with
	// them matched, the bad patch is the error.
	write(t, gold, map[string]string{"misc.patch": goldPatch, "cogsx.patch": goldPatch})
	_, stderr, err = runCmd(t, "--gold-dir", gold, "--agent-dir", agent)
	badInput(t, err, "1 bad agent patches")
	if !strings.Contains(stderr, "agent patch "+filepath.Join(agent, "cogs", "evil.patch")) {
		t.Errorf("stderr does not name the bad file:\n%s", stderr)
	}

	_, _, err = runCmd(t, "--gold-dir", filepath.Join(agent, "openhands"), "--agent-dir", agent)
	badInput(t, err, "no <task>.patch files")
	_, _, err = runCmd(t, "--gold-dir", gold, "--agent-dir", filepath.Join(gold, "nope"))
	badInput(t, err, "--agent-dir")
}

func TestTaskOf(t *testing.T) {
	gold := map[string]goldRef{"cogs": {}, "cogs_v2": {}, "othello": {}, "default": {}}
	for id, want := range map[string]string{
		"cogs/run1":                   "cogs",
		"cogs_run3":                   "cogs",
		"cogs_v2_run3":                "cogs_v2", // the longest task wins
		"cogs-1":                      "cogs",
		"cogs.2":                      "cogs",
		"cogs@a":                      "cogs",
		"cogs":                        "cogs",
		"cogsx":                       "",
		"a/othello/default/run1":      "default", // the deepest task folder
		"openhands/othello/x/run1":    "othello",
		"openhands/x/othello_run1":    "othello",
		"runs/othello/cogs_run1":      "othello", // a folder wins over the file name
		"misc/run9":                   "",
		"openhands/cogs_v2/cogs_run1": "cogs_v2",
	} {
		if got := taskOf(id, gold); got != want {
			t.Errorf("taskOf(%q) = %q, want %q", id, got, want)
		}
	}
}

// TestTaskStats: cogs (goldPatch): 3 files, 4 added (2 + 2), 1 deleted;
// othello: 1 file, 1 added, 1 deleted.
func TestTaskStats(t *testing.T) {
	gold, _ := batchDirs(t)
	out, _, err := runCmd(t, "--gold-dir", gold, "--task-stats", "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	wantJSON := `[
  {
    "task_id": "cogs",
    "gold_files": [
      "new_name.py",
      "run_final.sh",
      "src/model.py"
    ],
    "gold_lines_added": 4,
    "gold_lines_deleted": 1,
    "gold_lines_changed": 5,
    "gold_file_count": 3
  },
  {
    "task_id": "othello",
    "gold_files": [
      "probe.py"
    ],
    "gold_lines_added": 1,
    "gold_lines_deleted": 1,
    "gold_lines_changed": 2,
    "gold_file_count": 1
  }
]
`
	if out != wantJSON {
		t.Errorf("json:\n%s\nwant:\n%s", out, wantJSON)
	}

	pq := filepath.Join(t.TempDir(), "tasks.parquet")
	_, stderr, err := runCmd(t, "--gold-dir", gold, "--task-stats", "-o", pq)
	if err != nil || !strings.Contains(stderr, "rdeval tasks table, 2 tasks") {
		t.Fatal(err, stderr)
	}
	rdr, err := file.OpenParquetFile(pq, false)
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Close()
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	var names []string
	for _, f := range tbl.Schema().Fields() {
		names = append(names, f.Name)
	}
	// Parquet output is an rdeval tasks table (ingest's schema), so that
	// ingest and regress --join read it.
	col := func(name string) int { return slices.Index(names, name) }
	if col("task_id") != 0 || col("gold_files") < 0 || col("gold_lines_changed") < 0 || tbl.NumRows() != 2 {
		t.Fatalf("columns %v, %d rows", names, tbl.NumRows())
	}
	files := tbl.Column(col("gold_files")).Data().Chunk(0).(*array.List)
	start, end := files.ValueOffsets(0)
	changed := tbl.Column(col("gold_lines_changed")).Data().Chunk(0).(*array.Int64)
	if end-start != 3 || changed.Value(0) != 5 || changed.Value(1) != 2 {
		t.Errorf("parquet values: %d files, changed %v", end-start, changed)
	}

	csvPath := filepath.Join(t.TempDir(), "tasks.csv")
	if _, _, err := runCmd(t, "--gold-dir", gold, "--task-stats", "-o", csvPath); err != nil {
		t.Fatal(err)
	}
}

// TestBatchSWEBenchPatchDiff (issue 22): SWE-bench's patch.diff files are
// agent patches too, named after their folder with a "logs" folder left
// out, so that run ids are the swe-bench reader's:
// <submission>/logs/<instance>/patch.diff → <submission>/<instance>, and
// logs/run_evaluation/<run_id>/<model>/<instance>/patch.diff under
// --agent-dir logs/run_evaluation → <run_id>/<model>/<instance>. The task is
// the instance folder (named like its gold patch). Metrics by hand:
// the gold patch itself, so all 1 and over-edit 0 (see TestBatch's cogs/run1).
func TestBatchSWEBenchPatchDiff(t *testing.T) {
	dir := t.TempDir()
	gold, agent := filepath.Join(dir, "gold"), filepath.Join(dir, "evaluation")
	write(t, gold, map[string]string{"a__b-1.patch": othelloPatch})
	write(t, agent, map[string]string{
		"sub1/logs/a__b-1/patch.diff":                othelloPatch,
		"sub1/logs/a__b-1/test_output.txt":           "not a patch",
		"run_evaluation/r1/org__m/a__b-1/patch.diff": othelloPatch,
	})
	out, stderr, err := runCmd(t, "--gold-dir", gold, "--agent-dir", agent, "--format", "json")
	if err != nil {
		t.Fatal(err, stderr)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err, out)
	}
	want := []string{"run_evaluation/r1/org__m/a__b-1", "sub1/a__b-1"}
	if len(rows) != len(want) {
		t.Fatalf("%d rows:\n%s", len(rows), out)
	}
	for i, w := range want {
		if rows[i]["run_id"] != w || rows[i]["task_id"] != "a__b-1" || rows[i]["file_recall"] != 1.0 || rows[i]["over_edit_share"] != 0.0 {
			t.Errorf("row %d: %v, want run %s task a__b-1, recall 1, over-edit 0", i, rows[i], w)
		}
	}
}

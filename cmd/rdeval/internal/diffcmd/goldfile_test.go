package diffcmd

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// sweFixture is the SWE-bench fixture folder (testdata/swebench/SOURCE.md).
var sweFixture = filepath.Join("testdata", "swebench")

// diffReference reads testdata/reference/diff_gold_file.csv (written by
// diff_gold_file.py, Python's standard library): window → run_id → the
// row's fields after run_id, empty for undefined.
func diffReference(t *testing.T) map[int]map[string][]string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "..", "..", "testdata", "reference", "diff_gold_file.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[int]map[string][]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "#") || strings.HasPrefix(sc.Text(), "window,") {
			continue
		}
		rec := strings.Split(sc.Text(), ",")
		w, _ := strconv.Atoi(rec[0])
		if out[w] == nil {
			out[w] = map[string][]string{}
		}
		out[w][rec[1]] = rec[2:]
	}
	if len(out) != 2 {
		t.Fatalf("reference: %d windows, want 2", len(out))
	}
	return out
}

// checkBatchRows compares batch JSON rows with the reference rows of one
// window (metrics to 1e-12, counts exactly).
func checkBatchRows(t *testing.T, out string, want map[string][]string) {
	t.Helper()
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err, out)
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, the reference has %d:\n%s", len(rows), len(want), out)
	}
	keys := []string{"task_id", "file_recall", "file_precision", "f1", "jaccard", "line_recall", "over_edit_share", "agent_files", "gold_files", "agent_lines_changed"}
	for _, r := range rows {
		id, _ := r["run_id"].(string)
		w, ok := want[id]
		if !ok {
			t.Errorf("run %s: not in the reference", id)
			continue
		}
		for k, key := range keys {
			switch got := r[key].(type) {
			case string:
				if got != w[k] {
					t.Errorf("run %s %s = %q, want %q", id, key, got, w[k])
				}
			case nil:
				if w[k] != "" {
					t.Errorf("run %s %s = null, want %s", id, key, w[k])
				}
			case float64:
				x, err := strconv.ParseFloat(w[k], 64)
				if err != nil || math.Abs(got-x) > 1e-12 {
					t.Errorf("run %s %s = %v, want %s", id, key, got, w[k])
				}
			}
		}
	}
}

// TestGoldFile: --gold-file with a SWE-bench dataset export (JSON Lines or
// a JSON array) gives each instance's patch.diff the reference's metrics,
// at the default window and at 0.
func TestGoldFile(t *testing.T) {
	ref := diffReference(t)
	agent := filepath.Join(sweFixture, "evaluation", "lite")
	for _, gold := range []string{"gold.jsonl", "gold.json"} {
		for _, w := range []int{3, 0} {
			out, stderr, err := runCmd(t, "--gold-file", filepath.Join(sweFixture, gold), "--agent-dir", agent, "--format", "json", "--window", strconv.Itoa(w))
			if err != nil {
				t.Fatal(gold, err, stderr)
			}
			checkBatchRows(t, out, ref[w])
		}
	}
	// One instance's log folder.
	out, stderr, err := runCmd(t, "--run", filepath.Join(agent, "20240101_toyagent_gpt-4o", "logs", "psf__requests-2317"),
		"--gold-file", filepath.Join(sweFixture, "gold.jsonl"), "--format", "json")
	if err != nil {
		t.Fatal(err, stderr)
	}
	w := ref[3]["20240101_toyagent_gpt-4o/psf__requests-2317"]
	want := map[string]float64{}
	for k, key := range []string{"file_recall", "file_precision", "f1", "jaccard", "line_recall", "over_edit_share"} {
		want[key], _ = strconv.ParseFloat(w[k+1], 64)
	}
	checkPairJSON(t, out, want, []map[string]any{
		{"path": "requests/sessions.py", "in_gold": true, "in_agent": true},
		{"path": "requests/utils.py", "in_gold": false, "in_agent": true}})
	// The gold sizes per instance.
	out, _, err = runCmd(t, "--gold-file", filepath.Join(sweFixture, "gold.jsonl"), "--task-stats", "--format", "csv")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "django__django-11099,[\"django/contrib/auth/validators.py\"],2,2,4,1") &&
		!strings.Contains(out, "django__django-11099,django/contrib/auth/validators.py,2,2,4,1") {
		t.Errorf("task stats lack django's 1 file, 2 added, 2 deleted:\n%s", out)
	}
}

// TestGoldFileMissing: an instance the file lacks, or whose patch is null
// (predictions), is an error naming the instance and the file; --skip-bad
// leaves its runs out.
func TestGoldFileMissing(t *testing.T) {
	gold := filepath.Join(sweFixture, "gold.jsonl")
	missing := filepath.Join(sweFixture, "missing")
	_, _, err := runCmd(t, "--gold-file", gold, "--agent-dir", missing)
	badInput(t, err, "1 agent patches", "without a gold patch in --gold-file "+gold, "20240101_toyagent_gpt-4o/sympy__sympy-20590", "--skip-bad")
	out, stderr, err := runCmd(t, "--gold-file", gold, "--agent-dir", missing, "--skip-bad", "--format", "csv")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, "sympy__sympy-20590") || strings.Count(out, "\n") != 2 || !strings.Contains(out, "astropy__astropy-12907") {
		t.Errorf("--skip-bad: want astropy's row and sympy named on stderr; got\n%s\nstderr:\n%s", out, stderr)
	}
	_, _, err = runCmd(t, "--run", filepath.Join(missing, "20240101_toyagent_gpt-4o", "logs", "sympy__sympy-20590"), "--gold-file", gold)
	badInput(t, err, "instance sympy__sympy-20590 is not in --gold-file "+gold, "3 instances with a patch")

	// Predictions as the reference: django's model_patch is null.
	preds := filepath.Join(sweFixture, "all_preds.jsonl")
	_, _, err = runCmd(t, "--gold-file", preds, "--agent-dir", filepath.Join(sweFixture, "evaluation", "lite"))
	badInput(t, err, "20240101_toyagent_gpt-4o/django__django-11099", "null patch: django__django-11099 (line 2)")
	_, _, err = runCmd(t, "--run", filepath.Join(sweFixture, "evaluation", "lite", "20240101_toyagent_gpt-4o", "logs", "django__django-11099"), "--gold-file", preds)
	badInput(t, err, "instance django__django-11099 has no patch in --gold-file "+preds+" (null at line 2)")
	out, _, err = runCmd(t, "--gold-file", preds, "--agent-dir", filepath.Join(sweFixture, "evaluation", "lite"), "--skip-bad", "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	ref := diffReference(t)[3]
	delete(ref, "20240101_toyagent_gpt-4o/django__django-11099")
	checkBatchRows(t, out, ref) // the predictions' patches are the dataset's gold ones
}

// TestGoldFileBad: malformed gold files are errors naming the file, line
// and field; flag combinations are checked.
func TestGoldFileBad(t *testing.T) {
	dir := t.TempDir()
	agent := filepath.Join(sweFixture, "evaluation", "lite")
	for name, c := range map[string]struct{ content, want string }{
		"noid.jsonl": {`{"patch": "x"}` + "\n", `noid.jsonl:1: field "instance_id": missing`},
		"dup.jsonl":  {`{"instance_id": "a", "patch": ""}` + "\n\n" + `{"instance_id": "a", "patch": ""}` + "\n", `dup.jsonl:3: field "instance_id": instance a listed twice (first at line 1)`},
		"text.jsonl": {`{"instance_id": "a", "patch": ""}` + "\nnot json\n", `text.jsonl:2: want a record`},
		"type.jsonl": {`{"instance_id": 7, "patch": ""}` + "\n", `type.jsonl:1: want a record`},
		"array.json": {`[{"instance_id": "a", "patch": ""}, 3]`, `array.json:2: want a record`},
		"cut.json":   {`[{"instance_id": "a", "patch": ""}`, `cut.json: not a JSON array`},
		"none.jsonl": {`{"instance_id": "a", "model_patch": null}` + "\n", `none.jsonl: no record with a patch`},
		"bad.jsonl":  {`{"instance_id": "astropy__astropy-12907", "patch": "diff --git a/../x b/../x\n--- a/../x\n+++ b/../x\n@@ -1 +1 @@\n-a\n+b\n"}` + "\n", `bad.jsonl:1 (instance astropy__astropy-12907)`},
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(c.content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := runCmd(t, "--gold-file", p, "--agent-dir", agent, "--skip-bad")
		badInput(t, err, c.want)
	}
	_, _, err := runCmd(t, "--gold-file", filepath.Join(dir, "absent.jsonl"), "--agent-dir", agent)
	badInput(t, err, "--gold-file", "absent.jsonl")
	for _, args := range [][]string{
		{"--gold-file", "g.jsonl", "--gold-dir", "gold/", "--agent-dir", "a/"},
		{"--gold-file", "g.jsonl", "--run", "r/", "--gold", "g.patch"},
		{"--gold-file", "g.jsonl"},
		{"--gold-file", "g.jsonl", "--gold-dir", "gold/", "--task-stats"},
		{"--gold-file", "g.jsonl", "--agent", "a.patch"},
	} {
		if _, _, err := runCmd(t, args...); err == nil || !strings.Contains(err.Error(), "--gold") {
			t.Errorf("%v: error %v, want a usage error", args, err)
		}
	}
}

package multiversecmd

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdtest"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/spf13/cobra"
)

func runCmd(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	return cmdtest.Run(t, func(io *iostreams.IO) *cobra.Command { return NewCmd(io, "test", nil) }, args...)
}

func writeSpec(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "spec.yaml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func isUsage(err error) bool {
	var ue *cmdutil.UsageError
	var be *cmdutil.BadInputError
	return errors.As(err, &ue) || errors.As(err, &be)
}

// TestDemoSpecRuns: the shipped demo spec runs in every format, the same
// seed gives the same bytes, and the spread has one row per choice plus
// "all choices together".
func TestDemoSpecRuns(t *testing.T) {
	spec := "../../../../examples/multiverse-demo.yaml"
	a, _, err := runCmd(t, "--spec", spec, "--boot", "10", "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := runCmd(t, "--spec", spec, "--boot", "10", "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Fatal("same seed, different output")
	}
	var js struct {
		Seed   uint64
		Cells  []map[string]any
		Spread []map[string]any
		Inputs []map[string]any
	}
	if err := json.Unmarshal([]byte(a), &js); err != nil {
		t.Fatal(err)
	}
	if len(js.Cells) != 144 || len(js.Spread) != 7 || js.Spread[6]["choice"] != "all choices together" || js.Seed != 1 {
		t.Fatalf("cells %d, spread %d (%v), seed %d", len(js.Cells), len(js.Spread), js.Spread[len(js.Spread)-1]["choice"], js.Seed)
	}
	if len(js.Inputs) == 0 || js.Inputs[0]["sha256"] == "" {
		t.Fatalf("inputs not recorded: %v", js.Inputs)
	}
	// One-at-a-time cells: floor has 2 values, so 2 cells; all together: 144.
	if js.Spread[0]["cells"].(float64) != 2 || js.Spread[6]["cells"].(float64) != 144 {
		t.Fatalf("spread cells: %v, %v", js.Spread[0]["cells"], js.Spread[6]["cells"])
	}
	c, _, err := runCmd(t, "--spec", spec, "--boot", "10", "--seed", "2", "--format", "json")
	if err != nil || c == a {
		t.Fatalf("another seed should change the intervals (err %v)", err)
	}
	csv, _, err := runCmd(t, "--spec", spec, "--boot", "0", "--format", "csv", "--part", "spread")
	if err != nil || !strings.HasPrefix(csv, "choice,values,cells,n,min,max,range") || strings.Count(csv, "\n") != 8 {
		t.Fatalf("csv spread: %v\n%s", err, csv)
	}
	tab, _, err := runCmd(t, "--spec", spec, "--boot", "0")
	if err != nil || !strings.Contains(tab, "all choices together") || !strings.Contains(tab, "Statistic: score@16") {
		t.Fatalf("table: %v\n%s", err, tab)
	}
	fig := filepath.Join(t.TempDir(), "mv.svg")
	if _, _, err := runCmd(t, "--spec", spec, "--boot", "5", "--figure", fig); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(fig); err != nil || !strings.Contains(string(b), "<svg") {
		t.Fatalf("figure: %v", err)
	}
}

// TestSpecErrors: bad specs are usage errors (exit 2) naming the file and the key.
func TestSpecErrors(t *testing.T) {
	for name, c := range map[string]struct{ body, want string }{
		"weighting for compare": {`data: ["@demo"]
stat: {kind: compare, a: "agent=human", b: "agent=human", budget: 8h}
choices:
  weighting: [invsqrt, equal]
`, "choices.weighting is not supported for stat kind compare"},
		"bootstrap unit for regress": {`data: ["@demo"]
stat: {kind: regress, formula: "score ~ agent", term: agentx, family: gaussian}
choices:
  bootstrap: [runs, tasks]
`, "choices.bootstrap is not supported for stat kind regress: regress has no bootstrap"},
		"families for scoreatk": {`data: ["@demo"]
stat: {kind: scoreatk, k: 1}
choices:
  bootstrap: [runs, families]
`, "choices.bootstrap: families is not supported for stat kind scoreatk"},
		"short for compare": {`data: ["@demo"]
stat: {kind: compare, a: "agent=human", b: "agent=human", budget: 8h}
choices:
  short: [drop, truncate]
`, "choices.short is not supported for stat kind compare"},
		"cap for horizon": {`data: ["@demo"]
stat: {kind: horizon, agent: x}
choices:
  cap: [none, 2]
`, "choices.cap is not supported for stat kind horizon"},
		"bad value": {`data: ["@demo"]
stat: {kind: scoreatk, k: 1}
choices:
  outlier: [none, "trim:2"]
`, "line 4: choices.outlier: \"trim:2\""},
		"unknown key": {`data: ["@demo"]
stat: {kind: scoreatk, k: 1}
choices:
  seedz: [1, 2]
`, "unknown key \"seedz\""},
		"success kind": {`data: ["@demo"]
stat: {kind: success, framework: a, model: b, hint_level: c}
`, "stat kind \"success\""},
		"empty list": {`data: ["@demo"]
stat: {kind: scoreatk, k: 1}
choices:
  cap: []
`, "choices.cap: want a non-empty list"},
	} {
		p := writeSpec(t, c.body)
		_, _, err := runCmd(t, "--spec", p, "--boot", "0")
		if err == nil || !isUsage(err) || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want a usage error naming %s and %q", name, err, p, c.want)
		}
	}
}

// TestDataErrors: a choice the data cannot support is a bad-input error
// naming the spec and the key.
func TestDataErrors(t *testing.T) {
	for name, c := range map[string]struct{ body, want string }{
		"human reference below y_start": {`data: ["@demo"]
where: {benchmark: re-bench}
stat: {kind: scoreatk, k: 1, where: {agent: human}}
choices:
  human_reference: [reference, human]
`, "choices.human_reference human: task ai_rd_small_scaling_law/main: human_reference -0.828 is not on the same side of y_start"},
		"triton without triton runs": {`data: ["@demo"]
where: {benchmark: re-bench, task_family: ai_rd_fix_embedding}
stat: {kind: scoreatk, k: 1}
choices:
  triton_rule: [min, max]
`, "choices.triton_rule: no run is on ai_rd_triton_cumsum"},
		"short not a word": {`data: ["@demo"]
stat: {kind: scoreatk, k: 1}
choices:
  short: [drop, keep]
`, `"keep": want drop or truncate`},
		"human_reference not a word": {`data: ["@demo"]
stat: {kind: scoreatk, k: 1}
choices:
  human_reference: [reference, y_ref]
`, `"y_ref": want reference (the task's y_ref) or human (the task's human_reference, METR's human_score)`},
	} {
		p := writeSpec(t, c.body)
		_, _, err := runCmd(t, "--spec", p, "--boot", "0")
		if err == nil || !isUsage(err) || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", name, err, c.want)
		}
	}
}

// TestMaxCells: more combinations than --max-cells is a usage error; the
// flag raises the limit.
func TestMaxCells(t *testing.T) {
	_, _, err := runCmd(t, "--spec", "../../../../examples/multiverse-demo.yaml", "--boot", "0", "--max-cells", "143")
	if err == nil || !isUsage(err) || !strings.Contains(err.Error(), "144 combinations of choices exceed --max-cells 143") {
		t.Fatalf("got %v", err)
	}
	if _, _, err := runCmd(t, "--spec", "../../../../examples/multiverse-demo.yaml", "--boot", "0", "--max-cells", "144"); err != nil {
		t.Fatal(err)
	}
}

// TestMETRInputsAreNotRenormalizable: METR's already-normalized scores
// cannot take a floor below 0 or another triton rule.
func TestMETRInputsAreNotRenormalizable(t *testing.T) {
	cmdtest.SkipWithoutMETR(t)
	abs, _ := filepath.Abs(cmdtest.METRRuns("3a947ac7069ecb6e1fd0064cc0205e5eb9dcba0f"))
	for key, want := range map[string]string{"floor: [0, none]": "choices.floor", "triton_rule: [min, max]": "choices.triton_rule"} {
		p := writeSpec(t, "data: ["+abs+"]\nwhere: {benchmark: re-bench}\nstat: {kind: scoreatk, k: 1, where: {agent: human}}\nchoices:\n  "+key+"\n")
		_, _, err := runCmd(t, "--spec", p, "--boot", "0")
		if err == nil || !isUsage(err) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "already-normalized") {
			t.Errorf("%s: got %v", key, err)
		}
	}
}

// TestHumanReferenceUnknownTask: an already-normalized score on a task the
// catalog does not know cannot be rescaled to the human reference.
func TestHumanReferenceUnknownTask(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "runs.jsonl"), []byte(`{"run_id":"r1","benchmark":"synthetic","task_id":"t1","agent":"a","score":0.4}
{"run_id":"r2","benchmark":"synthetic","task_id":"t1","agent":"a","score":0.6}
`), 0o644)
	p := filepath.Join(dir, "spec.yaml")
	os.WriteFile(p, []byte("data: [runs.jsonl]\nstat: {kind: scoreatk, k: 1}\nchoices:\n  human_reference: [reference, human]\n"), 0o644)
	_, _, err := runCmd(t, "--spec", p, "--boot", "0")
	if err == nil || !isUsage(err) || !strings.Contains(err.Error(), "choices.human_reference human: task t1 has no human_reference") {
		t.Fatalf("got %v", err)
	}
	// Without the choice the same spec runs: score@1 = 0.5.
	os.WriteFile(p, []byte("data: [runs.jsonl]\nstat: {kind: scoreatk, k: 1}\nchoices:\n  cap: [none, 0.5]\n"), 0o644)
	out, _, err := runCmd(t, "--spec", p, "--boot", "0", "--format", "csv")
	if err != nil || !strings.Contains(out, "0,none,0.5,") || !strings.Contains(out, "1,0.5,0.45,") {
		t.Fatalf("%v\n%s", err, out)
	}
}

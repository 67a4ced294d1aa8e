package auditcmd

import (
	"encoding/json"
	"errors"
	"fmt"
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
	return cmdtest.Run(t, func(io *iostreams.IO) *cobra.Command { return NewCmd(io, nil) }, args...)
}

// exitCode maps an error as cli.Main does.
func exitCode(err error) int {
	var ue *cmdutil.UsageError
	var be *cmdutil.BadInputError
	switch {
	case err == nil:
		return cmdutil.ExitOK
	case errors.As(err, &ue), errors.As(err, &be):
		return cmdutil.ExitBadInput
	}
	return cmdutil.ExitFailure
}

// fixture writes a generic JSONL with two agents over two tasks: agent a
// scores 0.2 and 0.4 on each task, agent h (8 h runs) 0.5.
func fixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	n := 0
	for _, task := range []string{"t1", "t2"} {
		for _, s := range []float64{0.2, 0.4, 0.2, 0.4} {
			n++
			fmt.Fprintf(&b, `{"run_id":"r%d","benchmark":"synthetic","task_id":"%s","agent":"a","score":%v,"time_limit_s":1800}`+"\n", n, task, s)
		}
		for i := 0; i < 2; i++ {
			n++
			fmt.Fprintf(&b, `{"run_id":"r%d","benchmark":"synthetic","task_id":"%s","agent":"h","score":0.5,"time_limit_s":28800}`+"\n", n, task)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "runs.jsonl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func writeClaims(t *testing.T, dir, text string) string {
	t.Helper()
	p := filepath.Join(dir, "claims.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const synthetic = `data: [runs.jsonl]
claims:
  - id: holds-k1
    text: "agent a scores 0.3 at k=1"
    stat: {kind: scoreatk, where: {agent: a}, k: 1}
    expect: {value: 0.3, abs_tol: 0.001}
  - id: fails-k1
    stat: {kind: scoreatk, where: {agent: a}, k: 1}
    expect: {min: 0.5}
  - id: cannot-2h
    stat: {kind: compare, a: "agent=a;time_limit_s=1800", b: "agent=h", budget: 2h, measure: ratio}
    expect: {value: 4, rel_tol: 0.25}
  - id: cannot-rates
    stat: {kind: rates, agent: h}
    expect: {value: 3.4, rel_tol: 0.2}
`

func TestAuditVerdicts(t *testing.T) {
	dir := fixture(t)
	p := writeClaims(t, dir, synthetic)
	out, _, err := runCmd(t, p, "--format", "json", "--boot", "200")
	if exitCode(err) != cmdutil.ExitFailure {
		t.Fatalf("want exit 1 for a failing claim, got %v (%v)", exitCode(err), err)
	}
	if !strings.Contains(err.Error(), "fails-k1") {
		t.Errorf("error should name the failing claim: %v", err)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := map[string]string{"holds-k1": verdictHolds, "fails-k1": verdictFails, "cannot-2h": verdictCannotCompute, "cannot-rates": verdictCannotCompute}
	if len(rows) != len(want) {
		t.Fatalf("got %d rows", len(rows))
	}
	for _, r := range rows {
		id := r["id"].(string)
		if r["verdict"] != want[id] {
			t.Errorf("%s: verdict %v (%v), want %s", id, r["verdict"], r["reason"], want[id])
		}
	}
	if v := rows[0]["value"].(float64); v < 0.2999 || v > 0.3001 {
		t.Errorf("holds-k1 value %v, want 0.3", v)
	}
	if rows[0]["ci_low"] == nil || rows[0]["ci_high"] == nil {
		t.Errorf("holds-k1 has no CI")
	}
	if r := rows[2]["reason"].(string); !strings.Contains(r, "score logs") {
		t.Errorf("cannot-2h reason %q should mention score logs", r)
	}

	// Without the failing claim: cannot compute alone exits 0.
	p = writeClaims(t, dir, strings.Replace(synthetic, "expect: {min: 0.5}", "expect: {max: 0.5}", 1))
	out, _, err = runCmd(t, p, "--format", "markdown")
	if err != nil {
		t.Fatalf("want exit 0, got %v", err)
	}
	if !strings.HasPrefix(out, "| Claim |") || !strings.Contains(out, "cannot compute") {
		t.Errorf("markdown:\n%s", out)
	}
	// Same seed, same output.
	a, _, _ := runCmd(t, p, "--seed", "3")
	b, _, _ := runCmd(t, p, "--seed", "3")
	if a != b || !strings.Contains(a, "holds") {
		t.Errorf("table output not reproducible:\n%s\n%s", a, b)
	}
}

func TestAuditBadClaims(t *testing.T) {
	dir := fixture(t)
	cases := map[string]struct{ yaml, want string }{
		"unknown kind": {`claims:
  - id: c1
    stat: {kind: power}
    expect: {value: 1, abs_tol: 0}
`, `stat kind "power"`},
		"unknown field": {`claims:
  - id: c2
    stat: {kind: scoreatk, k: 1, budget: 2h}
    expect: {value: 1, abs_tol: 0}
`, "c2"},
		"unknown claim key": {`claims:
  - id: c3
    stat: {kind: scoreatk, k: 1}
    expect: {value: 1, abs_tol: 0}
    note: x
`, "c3"},
		"unknown expect key": {`claims:
  - id: c4
    stat: {kind: scoreatk, k: 1}
    expect: {value: 1, tolerance: 0}
`, "c4"},
		"unknown top key":   {"claim: []\n", "claim"},
		"value without tol": {"claims:\n  - id: c5\n    stat: {kind: scoreatk, k: 1}\n    expect: {value: 1}\n", "c5"},
		"bad column":        {"claims:\n  - id: c6\n    stat: {kind: scoreatk, k: 1, where: {agnt: a}}\n    expect: {min: 0}\n", "c6"},
		"bad budget":        {"claims:\n  - id: c7\n    stat: {kind: compare, a: agent=a, b: agent=h, budget: soon}\n    expect: {min: 0}\n", "c7"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			p := writeClaims(t, dir, "data: [runs.jsonl]\n"+strings.Replace(c.yaml, "claims:", "claims:", 1))
			_, _, err := runCmd(t, p)
			if exitCode(err) != cmdutil.ExitBadInput {
				t.Fatalf("want exit 2, got %v", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q should name %q", err, c.want)
			}
		})
	}
	if _, _, err := runCmd(t, filepath.Join(dir, "missing.yaml")); exitCode(err) != cmdutil.ExitBadInput {
		t.Errorf("missing file: %v", err)
	}
	p := writeClaims(t, dir, synthetic)
	if _, _, err := runCmd(t, p, "--format", "csv"); exitCode(err) != cmdutil.ExitBadInput {
		t.Errorf("--format csv: %v", err)
	}
}

// TestAuditRExBenchExample: the shipped Table 5 cells hold on the paper's
// per-task metrics.
func TestAuditRExBenchExample(t *testing.T) {
	if _, err := os.Stat("../../../../../shared/anchors/rexbench-paper-2506.22598v3/per_task_metrics.csv"); err != nil {
		t.Skip("shared anchors absent")
	}
	out, _, err := runCmd(t, "../../../../examples/rexbench-claims.yaml", "--format", "json", "--boot", "200")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatal("no rows")
	}
	for _, r := range rows {
		if r["verdict"] != verdictHolds {
			t.Errorf("%v: %v (%v)", r["id"], r["verdict"], r["reason"])
		}
	}
}

// TestAuditReBenchExample: the RE-Bench example parses and runs on the public
// METR data; its verdicts are whatever that data gives (see the file's note).
func TestAuditReBenchExample(t *testing.T) {
	if _, err := os.Stat("../../../../../shared/anchors/eval-analysis-public/3a947ac7069ecb6e1fd0064cc0205e5eb9dcba0f/data/external/all_runs.jsonl"); err != nil {
		t.Skip("shared anchors absent")
	}
	out, _, err := runCmd(t, "../../../../examples/rebench-claims.yaml", "--boot", "200")
	if code := exitCode(err); code == cmdutil.ExitBadInput {
		t.Fatalf("bad input: %v", err)
	}
	t.Logf("\n%s", out)
}

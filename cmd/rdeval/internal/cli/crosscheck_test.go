package cli

import (
	"encoding/json"
	"math"
	"path/filepath"
	"testing"
)

// Checks across commands: one command's number against another's, each
// computed by its own code path, through the root command (a command
// package imports no other, so these live here).

// demoREBench are the demo study's RE-Bench runs and score logs.
func demoREBench() []string {
	data := filepath.Join("..", "demo", "data", "re-bench")
	return []string{filepath.Join(data, "runs.jsonl"), filepath.Join(data, "score_log.jsonl")}
}

// jsonRows runs rdeval with args and decodes its JSON rows.
func jsonRows(t *testing.T, args ...string) []map[string]any {
	t.Helper()
	code, out, errOut := run(t, args...)
	if code != 0 {
		t.Fatalf("rdeval %v: exit %d\n%s", args, code, errOut)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("rdeval %v: %v\n%s", args, err, out)
	}
	return rows
}

// TestCompareHumansEqualAllocation: rdeval compare's humans read at 2 h
// from their 8-h score logs (estimate_b) equal rdeval allocation's
// truncated human row at 2 h (computed there through AllocationCurve rather
// than Compare), to 1e-12.
func TestCompareHumansEqualAllocation(t *testing.T) {
	in := demoREBench()
	cmp := jsonRows(t, append([]string{"compare"}, append(in, "--a", "agent=Modular (Model A);time_limit_s=7200", "--b", "agent=human", "--budget", "2h", "--boot", "0", "--format", "json")...)...)
	alloc := jsonRows(t, append([]string{"allocation"}, append(in, "--where", "agent=human", "--budgets", "2h", "--boot", "0", "--format", "json")...)...)
	if len(cmp) != 1 || len(alloc) != 1 || alloc[0]["truncated"] != true {
		t.Fatalf("compare %v, allocation %v", cmp, alloc)
	}
	if eb, want := cmp[0]["estimate_b"].(float64), alloc[0]["estimate"].(float64); math.Abs(eb-want) > 1e-12 {
		t.Errorf("human estimate at 2 h %v, allocation %v", eb, want)
	}
}

// TestAllocationHumansEqualCurves: rdeval allocation's humans at budgets of
// 30 min … 8 h (read from their score logs below 8 h) equal rdeval curves'
// step curve at those times (a separate code path: analysis.BestSoFar and
// RunCurve.At against FinalScore and Normalize), to 1e-12.
func TestAllocationHumansEqualCurves(t *testing.T) {
	in := demoREBench()
	alloc := jsonRows(t, append([]string{"allocation"}, append(in, "--where", "agent=human", "--budgets", "30m,1h,2h,4h,8h", "--boot", "0", "--format", "json")...)...)
	curve := jsonRows(t, append([]string{"curves"}, append(in, "--where", "agent=human", "--grid", "30m,1h,2h,4h,8h", "--interp", "step", "--boot", "0", "--format", "json")...)...)
	if len(alloc) != 5 || len(curve) != 5 {
		t.Fatalf("%d allocation rows, %d curve points; want 5 each", len(alloc), len(curve))
	}
	for i, r := range alloc {
		if math.Abs(r["estimate"].(float64)-curve[i]["estimate"].(float64)) > 1e-12 {
			t.Errorf("budget %v: %v, curve %v", r["budget_s"], r["estimate"], curve[i]["estimate"])
		}
	}
}

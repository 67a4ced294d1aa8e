package horizoncmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/rdeval/rdeval/analysis"
)

// TestHorizonBootUnit: --boot-unit gives the interval analysis.Horizons
// gives with that Unit (same seed), the default is the hierarchical one,
// and the units give different intervals on the fixture.
func TestHorizonBootUnit(t *testing.T) {
	p := filepath.Join(t.TempDir(), "runs.jsonl")
	os.WriteFile(p, []byte(fixture), 0o644)
	interval := func(args ...string) [2]float64 {
		t.Helper()
		out, stderr, err := runCmd(t, append([]string{p, "--format", "json", "--boot", "200", "--seed", "5", "--where", "agent=A"}, args...)...)
		if err != nil {
			t.Fatal(err, stderr)
		}
		var rows []map[string]any
		if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 1 {
			t.Fatal(err, out)
		}
		lo, _ := rows[0]["p50_ci_low"].(float64)
		hi, _ := rows[0]["p50_ci_high"].(float64)
		return [2]float64{lo, hi}
	}
	// A's runs as analysis sees them (fixture: agent A with human_minutes).
	runs := []analysis.HorizonRun{
		{Agent: "A", Family: "f1", Task: "t1", HumanMinutes: 1, Y: 1}, {Agent: "A", Family: "f1", Task: "t2", HumanMinutes: 2, Y: 1},
		{Agent: "A", Family: "f2", Task: "t3", HumanMinutes: 4, Y: 1}, {Agent: "A", Family: "f2", Task: "t3", HumanMinutes: 4, Y: 0},
		{Agent: "A", Family: "f3", Task: "t4", HumanMinutes: 8, Y: 0}, {Agent: "A", Family: "f3", Task: "t5", HumanMinutes: 16, Y: 0},
	}
	seen := map[[2]float64]string{}
	for _, name := range []string{"hierarchical", "runs", "tasks", "families"} {
		unit, _ := analysis.ParseBootUnit(name)
		res, err := analysis.Horizons(runs, analysis.HorizonOptions{Regularization: 0.1, Quantiles: []float64{0.5, 0.8}, Boot: 200, Seed: 5, Level: 0.95, Unit: unit})
		if err != nil {
			t.Fatal(err)
		}
		got := interval("--boot-unit", name)
		if want := [2]float64{res.Agents[0].CILow[0], res.Agents[0].CIHigh[0]}; got != want {
			t.Errorf("--boot-unit %s: p50 interval %v, analysis.Horizons %v", name, got, want)
		}
		if prev, ok := seen[got]; ok {
			t.Errorf("--boot-unit %s gives the same interval as %s: %v", name, prev, got)
		}
		seen[got] = name
	}
	if def := interval(); def != interval("--boot-unit", "hierarchical") {
		t.Errorf("default interval %v is not the hierarchical one", def)
	}
}

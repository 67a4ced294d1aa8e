package auditcmd

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/study"
	"github.com/rdeval/rdeval/ingest"
)

// TestAuditHorizonClaim: a horizon claim (one study.Spec with the
// multiverse's) is the agent's p50 as rdeval horizon --where agent=… fits
// it (study.Horizon with the command's defaults but audit's seed and boot),
// on METR's public runs; a refused horizon cannot be computed.
func TestAuditHorizonClaim(t *testing.T) {
	path := filepath.Join("..", "..", "..", "..", "..", "shared", "anchors", "eval-analysis-public",
		"3a947ac7069ecb6e1fd0064cc0205e5eb9dcba0f", "data", "external", "all_runs.jsonl")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("skipping: %s not found (../shared sits beside the checkout)", path)
	}
	ds, err := ingest.Load([]string{path}, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const agent = "Claude 3.5 Sonnet (New)"
	c := claim{ID: "h", Stat: study.Spec{Kind: "horizon", Agent: agent}, Expect: expect{Min: new(float64)}}
	if err := validate(&c); err != nil {
		t.Fatal(err)
	}
	row := evaluate(c, ds, 100, 3)
	want, err := study.Horizon(study.Subset(ds, map[string]string{"agent": agent}), study.HorizonParams{Regularization: 0.1, Boot: 100, Seed: 3, CI: 0.95, Quantiles: []float64{0.5}})
	if err != nil {
		t.Fatal(err)
	}
	a := want.Fit.Agents[0]
	for _, p := range [][2]float64{{row.Value, a.Horizons[0]}, {row.CILow, a.CILow[0]}, {row.CIHigh, a.CIHigh[0]}} {
		if math.Abs(p[0]-p[1]) > 1e-12*p[1] {
			t.Errorf("audit %v, rdeval horizon %v (p50, ci)", row, a)
		}
	}
	if row.Verdict != verdictHolds {
		t.Errorf("verdict %s (%s)", row.Verdict, row.Reason)
	}
	// Success that rises with task length has no horizon: rdeval horizon
	// refuses it, and the claim cannot be computed.
	var up ingest.Dataset
	for i := 0; i < 40; i++ {
		m, y := 1.0, int8(i%4/3) // short tasks: 1 success in 4
		if i >= 20 {
			m, y = 100, int8(1-i%4/3) // long ones: 3 in 4
		}
		up.Runs = append(up.Runs, ingest.Run{RunID: string(rune('a' + i)), TaskID: "t" + string(rune('0'+i%2)) + string(rune('0'+i/20)), Agent: "x",
			HumanMinutes: ingest.Some(m), ScoreBinarized: ingest.Some(y)})
	}
	c.Stat = study.Spec{Kind: "horizon", Agent: "x"}
	if err := validate(&c); err != nil {
		t.Fatal(err)
	}
	if row := evaluate(c, &up, 0, 1); row.Verdict != verdictCannotCompute || !strings.Contains(row.Reason, "not a measurement") {
		t.Errorf("rising success: %s (%s), want cannot compute", row.Verdict, row.Reason)
	}
}

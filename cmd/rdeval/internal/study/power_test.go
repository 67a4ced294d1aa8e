package study

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/rdeval/rdeval/analysis"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/ingest"
)

// TestPowerAssumedRates: without a dataset the cells carry the Wald test's
// closed-form power and no warning; the table has its column.
func TestPowerAssumedRates(t *testing.T) {
	p := PowerParams{PowerOptions: analysis.PowerOptions{Runs: []int{3, 5}, Tasks: []int{2, 12}, Alpha: 0.05, Sims: 200, Seed: 1}, Stat: "success", K: 1, PA: 0.3, PB: 0.5}
	res, err := Power(nil, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Cells) != 4 || len(res.ClosedForm) != 4 || len(res.Warnings) != 0 || !strings.Contains(res.Description, "assumed rates A 0.3, B 0.5") {
		t.Fatalf("%+v", res)
	}
	for i, c := range res.Cells {
		if want := analysis.WaldPowerExact(0.3, 0.5, c.RunsPerTask*c.Tasks, 0.05); res.ClosedForm[i] != want {
			t.Errorf("cell %d: closed form %v, want %v", i, res.ClosedForm[i], want)
		}
	}
	if tb := res.Table(); tb.Header[len(tb.Header)-1] != "power_closed_form" || len(tb.Rows) != 4 {
		t.Errorf("table %+v", tb)
	}
}

// TestPowerPilot: with pilot data the sign-flip test's few-task caveat is
// a warning value (not printed), there is no closed form, and an arm that
// selects no run is a usage error.
func TestPowerPilot(t *testing.T) {
	var ds ingest.Dataset
	for i := range 4 {
		for j := range 4 {
			for _, agent := range []string{"A", "B"} {
				ok := j < 1 || agent == "B" && j < 3
				ds.Runs = append(ds.Runs, ingest.Run{RunID: agent + string(rune('0'+4*i+j)), Benchmark: "demo", TaskID: string(rune('a' + i)), Agent: agent,
					FinalSuccess: ingest.Some(ok), Score: ingest.Some(0.2 * float64(j))})
			}
		}
	}
	a, _ := cmdutil.ParseFilters("--a", []string{"agent=A"})
	b, _ := cmdutil.ParseFilters("--b", []string{"agent=B"})
	p := PowerParams{PowerOptions: analysis.PowerOptions{Runs: []int{2}, Tasks: []int{4, 8}, Alpha: 0.05, Sims: 100, Seed: 1}, Stat: "success", K: 1, A: a, B: b, PA: math.NaN(), PB: math.NaN()}
	for _, stat := range []string{"success", "scoreatk"} {
		p.Stat = stat
		res, err := Power(&ds, p)
		if err != nil {
			t.Fatal(stat, err)
		}
		if len(res.Cells) != 2 || res.ClosedForm != nil || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].Error(), "fewer than 6 tasks") {
			t.Errorf("%s: %+v", stat, res)
		}
		if res.Cells[0].Power != 0 {
			t.Errorf("%s: power %v at 4 tasks, want 0", stat, res.Cells[0].Power)
		}
	}
	p.B, _ = cmdutil.ParseFilters("--b", []string{"agent=C"})
	var ue *cmdutil.UsageError
	if _, err := Power(&ds, p); !errors.As(err, &ue) || !strings.Contains(err.Error(), "--b 0") {
		t.Errorf("empty arm: %v", err)
	}
}

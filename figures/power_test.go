package figures

import (
	"bytes"
	"testing"

	"github.com/rdeval/rdeval/analysis"
)

// TestPowerFigureGolden: a fixed 3 × 3 grid (runs per task × tasks),
// byte-compared with testdata/power_golden.svg (rewrite with -update).
func TestPowerFigureGolden(t *testing.T) {
	var cells []analysis.PowerCell
	for i, n := range []int{6, 12, 24} {
		for j, r := range []int{3, 5, 10} {
			p := 0.15 + 0.12*float64(i) + 0.08*float64(j)
			cells = append(cells, analysis.PowerCell{RunsPerTask: r, Tasks: n, Sims: 2000, Power: p, PowerSE: 0.01, CIHalfWidth: 0.1})
		}
	}
	p, err := PowerFigure("Power, α = 0.05", cells)
	if err != nil {
		t.Fatal(err)
	}
	checkPlotGolden(t, p, OneColumn, Height(OneColumn), "power")
}

// TestPowerFigureEdgeCases: no cell and a single cell render in every format.
func TestPowerFigureEdgeCases(t *testing.T) {
	for name, cells := range map[string][]analysis.PowerCell{
		"none": nil,
		"one":  {{RunsPerTask: 3, Tasks: 6, Sims: 10, Power: 1, PowerSE: 0}},
	} {
		p, err := PowerFigure(name, cells)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, f := range []string{"svg", "png", "pdf"} {
			if err := Save(p, OneColumn, Height(OneColumn), f, &bytes.Buffer{}); err != nil {
				t.Fatalf("%s %s: %v", name, f, err)
			}
		}
	}
}

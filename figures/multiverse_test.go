package figures

import (
	"bytes"
	"math"
	"testing"
)

// TestMultiverseFigureGolden: three choices and "all choices together" with
// fixed estimates and intervals, byte-compared with
// testdata/multiverse_golden.svg (rewrite with -update).
func TestMultiverseFigureGolden(t *testing.T) {
	p, err := MultiverseFigure("Multiverse: score@4", "score@4 (mean over tasks)", []SpreadRow{
		{Label: "cap", Estimates: []float64{0.38, 0.37, 0.35}, Lo: 0.30, Hi: 0.45},
		{Label: "triton_rule", Estimates: []float64{0.38, 0.30}, Lo: 0.25, Hi: 0.45},
		{Label: "outlier", Estimates: []float64{0.38, 0.38}, Lo: 0.31, Hi: 0.44},
		{Label: "all choices together", Estimates: []float64{0.38, 0.37, 0.35, 0.30, 0.29, 0.28}, Lo: 0.22, Hi: 0.45},
	}, 0.38)
	if err != nil {
		t.Fatal(err)
	}
	checkPlotGolden(t, p, OneColumn, Height(OneColumn), "multiverse")
}

// TestMultiverseFigureEdgeCases: no row, rows without finite values and
// infinite bounds render in every format.
func TestMultiverseFigureEdgeCases(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for name, rows := range map[string][]SpreadRow{
		"none":     nil,
		"nan":      {{Label: "x", Estimates: []float64{nan}, Lo: nan, Hi: nan}},
		"infinite": {{Label: "x", Estimates: []float64{2, inf}, Lo: -inf, Hi: inf}, {Label: "y", Estimates: []float64{2}, Lo: nan, Hi: nan}},
	} {
		p, err := MultiverseFigure(name, "b", rows, nan)
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

package figures

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/rdeval/rdeval/analysis"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

// TestLogisticFigureGolden: two agents' time-horizon fits on a log2 axis
// (one with observed points), byte-compared with
// testdata/logistic_golden.svg (rewrite with -update).
func TestLogisticFigureGolden(t *testing.T) {
	p, err := LogisticFigure("Success by task length", "Human time (minutes)", "Success probability", []LogisticCurve{
		{Label: "agent A", Intercept: 2, Slope: -0.6, XMin: 1, XMax: 960, Points: plotter.XYs{{X: 2, Y: 0.9}, {X: 30, Y: 0.5}, {X: 480, Y: 0.1}}},
		{Label: "agent B", Intercept: 4, Slope: -0.7, XMin: 1, XMax: 960},
	}, true)
	if err != nil {
		t.Fatal(err)
	}
	checkPlotGolden(t, p, TwoColumn, Height(OneColumn)*1.2, "logistic")
}

// TestHorizonBinsGolden (issue 24): fits with binned empirical success
// rates and their Wilson intervals (analysis.HorizonBins on synthetic
// runs), as METR's time-horizon figures show them; the two agents' dots at
// the same bins are moved apart. Byte-compared with
// testdata/horizon_bins_golden.svg.
func TestHorizonBinsGolden(t *testing.T) {
	var runs []analysis.HorizonRun
	for i := 0; i < 120; i++ {
		m := math.Exp2(float64(i%10) + 0.3)
		for _, a := range []struct {
			name   string
			b0, b1 float64
		}{{"agent A", 2, -0.6}, {"agent B", 4, -0.7}} {
			p := 1 / (1 + math.Exp(-(a.b0 + a.b1*math.Log2(m))))
			y := 0.0
			if float64((i*37+len(a.name)*11)%100)/100 < p {
				y = 1
			}
			runs = append(runs, analysis.HorizonRun{Agent: a.name, Task: "t", HumanMinutes: m, Y: y})
		}
	}
	bins, err := analysis.HorizonBins(runs, 2, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	curves := []LogisticCurve{
		{Label: "agent A", Intercept: 2, Slope: -0.6, XMin: 1, XMax: 960},
		{Label: "agent B", Intercept: 4, Slope: -0.7, XMin: 1, XMax: 960},
	}
	for i, ab := range bins {
		for _, b := range ab.Bins {
			curves[i].Points = append(curves[i].Points, plotter.XY{X: b.Minutes, Y: b.Rate})
			curves[i].Lo = append(curves[i].Lo, b.CILow)
			curves[i].Hi = append(curves[i].Hi, b.CIHigh)
		}
	}
	p, err := LogisticFigure("Success by task length", "Human time (minutes)", "Success probability", curves, true)
	if err != nil {
		t.Fatal(err)
	}
	checkPlotGolden(t, p, TwoColumn, Height(OneColumn)*1.2, "horizon_bins")
}

// TestGroupedBarsGolden: RE-Bench Fig. 9's shape (tasks × agents and
// humans, one bar without an interval, one NaN), byte-compared with
// testdata/grouped_golden.svg.
func TestGroupedBarsGolden(t *testing.T) {
	nan := math.NaN()
	p, err := GroupedBars("Score by task", "Average normalized score", []Bar{
		{Group: "task 1", Level: "agent", Value: 0.4, Lo: 0.3, Hi: 0.5},
		{Group: "task 1", Level: "human", Value: 0.6, Lo: 0.5, Hi: 0.8},
		{Group: "task 2", Level: "agent", Value: 0.2, Lo: nan, Hi: nan},
		{Group: "task 2", Level: "human", Value: nan, Lo: nan, Hi: nan},
	})
	if err != nil {
		t.Fatal(err)
	}
	checkPlotGolden(t, p, TwoColumn, Height(OneColumn)*1.2, "grouped")
}

// TestNewFiguresEdgeCases: empty input, a single point, NaN and infinite
// values and very long labels render in every format without a panic.
func TestNewFiguresEdgeCases(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	long := strings.Repeat("a very long agent name ", 12)
	cases := map[string]func() (*plot.Plot, error){
		"logistic-empty": func() (*plot.Plot, error) { return LogisticFigure("e", "x", "y", nil, true) },
		"logistic-nan": func() (*plot.Plot, error) {
			return LogisticFigure("n", "x", "y", []LogisticCurve{{Label: "n", Intercept: nan, Slope: nan, XMin: nan, XMax: nan}}, true)
		},
		"logistic-inf": func() (*plot.Plot, error) {
			return LogisticFigure("i", "x", "y", []LogisticCurve{{Label: "all", Intercept: nan, Slope: inf, XMin: 1, XMax: 8}, {Label: "none", Intercept: nan, Slope: -inf, XMin: 1, XMax: 8}}, true)
		},
		"logistic-single": func() (*plot.Plot, error) {
			return LogisticFigure("s", "x", "y", []LogisticCurve{{Label: long, Slope: nan, XMin: -1, XMax: 0, Points: plotter.XYs{{X: 3, Y: 0.5}}}}, false)
		},
		"logistic-zero-x": func() (*plot.Plot, error) {
			return LogisticFigure("z", "x", "y", []LogisticCurve{{Label: "z", Intercept: 0, Slope: 1, XMin: 0, XMax: 0}}, true)
		},
		"grouped-empty": func() (*plot.Plot, error) { return GroupedBars("e", "y", nil) },
		"grouped-single": func() (*plot.Plot, error) {
			return GroupedBars("s", "y", []Bar{{Group: long, Level: long, Value: 1, Lo: -inf, Hi: inf}})
		},
		"grouped-nan": func() (*plot.Plot, error) {
			return GroupedBars("n", "y", []Bar{{Group: "g", Level: "l", Value: nan, Lo: nan, Hi: nan}})
		},
	}
	for name, mk := range cases {
		p, err := mk()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, f := range []string{"svg", "png", "pdf"} {
			if err := Save(p, OneColumn, Height(OneColumn), f, &bytes.Buffer{}); err != nil {
				t.Errorf("%s %s: %v", name, f, err)
			}
		}
	}
}

// TestRefLinesGolden: score@k with human percentile lines (RE-Bench Figs.
// 7–8), one NaN line left out; byte-compared with
// testdata/reflines_golden.svg.
func TestRefLinesGolden(t *testing.T) {
	p, err := ScoreAtKFigure("score@k, 2 h runs", []ScoreAtKGroup{{Label: "agent", Points: []analysis.ScoreAtKPoint{
		{K: 1, Estimate: 0.2, CILow: 0.1, CIHigh: 0.3}, {K: 2, Estimate: 0.3, CILow: 0.2, CIHigh: 0.4}, {K: 4, Estimate: 0.4, CILow: 0.3, CIHigh: 0.5}}}})
	if err != nil {
		t.Fatal(err)
	}
	AddRefLines(p, []RefLine{{Label: "human p10", Y: 0.05}, {Label: "human p50", Y: 0.45}, {Label: "human p90", Y: 0.9}, {Label: "nan", Y: math.NaN()}})
	if p.Y.Max < 0.9 {
		t.Errorf("y axis ends at %v, below the p90 line", p.Y.Max)
	}
	checkPlotGolden(t, p, OneColumn, Height(OneColumn), "reflines")
	empty, _ := LinePlot("empty", "x", "y", nil, true)
	AddRefLines(empty, []RefLine{{Label: "only line", Y: 2}})
	for _, f := range []string{"svg", "png", "pdf"} {
		if err := Save(empty, OneColumn, Height(OneColumn), f, &bytes.Buffer{}); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

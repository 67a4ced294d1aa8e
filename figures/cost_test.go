package figures

import (
	"bytes"
	"math"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// costPoints: three agents at two costs each, one dominated, a human far
// to the right (a log cost axis), one point without a score interval.
func costPoints() []CostPoint {
	nan := math.NaN()
	human := &SeriesStyle{Color: HumanColor}
	return []CostPoint{
		{Label: "Agent A, 30 min", Cost: 3.1, CostLo: 2.8, CostHi: 3.5, Score: 0.21, ScoreLo: 0.15, ScoreHi: 0.28, Pareto: true},
		{Label: "Agent A, 2 h", Cost: 12.4, CostLo: 11.2, CostHi: 13.9, Score: 0.33, ScoreLo: 0.25, ScoreHi: 0.41, Pareto: true},
		{Label: "Agent B, 30 min", Cost: 4.0, CostLo: 3.5, CostHi: 4.6, Score: 0.18, ScoreLo: 0.12, ScoreHi: 0.25},
		{Label: "Agent B, 2 h", Cost: 15.8, CostLo: 14.1, CostHi: 17.6, Score: 0.30, ScoreLo: nan, ScoreHi: nan},
		{Label: "Agent C, 8 h", Cost: 48.0, CostLo: 43.0, CostHi: 53.5, Score: 0.52, ScoreLo: 0.40, ScoreHi: 0.63, Pareto: true},
		{Label: "Human, 8 h", Cost: 1840, CostLo: 1840, CostHi: 1840, Score: 0.71, ScoreLo: 0.58, ScoreHi: 0.84, Pareto: true, Style: human},
	}
}

// TestCostFigureGolden byte-compares the figure of costPoints with
// testdata/cost_golden.svg (rewrite with -update) and checks the log axis.
func TestCostFigureGolden(t *testing.T) {
	p, err := CostFigure("Cost and score", "Mean cost per run (USD)", "Mean normalized score", costPoints())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.X.Scale.(plot.LogScale); !ok {
		t.Errorf("x scale %T: costs from $3 to $1840 want a log axis", p.X.Scale)
	}
	checkPlotGolden(t, p, TwoColumn, Height(OneColumn)*1.2, "cost")
}

// TestCostFigureEdgeCases: no point, NaN points, a narrow range (linear
// axis), zero cost and identical points render in every format.
func TestCostFigureEdgeCases(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	narrow := costPoints()[:4]
	for name, pts := range map[string][]CostPoint{
		"none":      nil,
		"nan":       {{Label: "x", Cost: nan, Score: 0.5}, {Label: "y", Cost: 1, Score: nan}},
		"narrow":    narrow,
		"zero":      {{Label: "free", Cost: 0, CostLo: 0, CostHi: 0, Score: 0.1, ScoreLo: 0, ScoreHi: inf, Pareto: true}, {Label: "paid", Cost: 100, Score: 0.4, Pareto: true}},
		"identical": {{Label: "a", Cost: 2, Score: 0.3, Pareto: true}, {Label: "b", Cost: 2, Score: 0.3, Pareto: true}},
	} {
		p, err := CostFigure(name, "cost", "score", pts)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, log := p.X.Scale.(plot.LogScale); log && name != "zero" && name != "none" && name != "nan" {
			t.Errorf("%s: log axis", name)
		}
		for _, f := range []string{"svg", "png", "pdf"} {
			if err := Save(p, OneColumn, Height(OneColumn), f, &bytes.Buffer{}); err != nil {
				t.Errorf("%s %s: %v", name, f, err)
			}
		}
	}
}

func TestDollars(t *testing.T) {
	for v, want := range map[float64]string{0.5: "$0.5", 1: "$1", 20: "$20", 1000: "$1,000", 2e6: "$2,000,000", 1500.5: "$1500.5"} {
		if got := dollars(v); got != want {
			t.Errorf("dollars(%v) = %q, want %q", v, got, want)
		}
	}
}

// TestCostLabelsApart: on the golden's points and on eight points in a
// cluster, no two labels overlap and every label stays inside the data
// area (the placement has room to try).
func TestCostLabelsApart(t *testing.T) {
	cluster := costPoints()
	for i := 0; i < 8; i++ {
		cluster = append(cluster, CostPoint{Label: "Agent " + string(rune('D'+i)) + ", 2 h", Cost: 20 + float64(i), Score: 0.30 + 0.01*float64(i), CostLo: math.NaN(), CostHi: math.NaN(), ScoreLo: math.NaN(), ScoreHi: math.NaN()})
	}
	for name, pts := range map[string][]CostPoint{"golden": costPoints(), "cluster": cluster} {
		p, err := CostFigure(name, "cost", "score", pts)
		if err != nil {
			t.Fatal(err)
		}
		c := draw.New(vgsvg.New(TwoColumn, Height(OneColumn)*1.2))
		dc := p.DataCanvas(c)
		l := &costLabels{pts: pts, style: text.Style{Font: font.From(Font, TickSize), Handler: p.Title.TextStyle.Handler}}
		placed := l.place(dc, p)
		if len(placed) != len(pts) {
			t.Fatalf("%s: %d labels for %d points", name, len(placed), len(pts))
		}
		for i, a := range placed {
			if a.box.minX < dc.Min.X || a.box.maxX > dc.Max.X || a.box.minY < dc.Min.Y || a.box.maxY > dc.Max.Y {
				t.Errorf("%s: label %q outside the data area", name, a.label)
			}
			for _, b := range placed[:i] {
				if a.box.overlaps(b.box) {
					t.Errorf("%s: labels %q and %q overlap", name, a.label, b.label)
				}
			}
		}
	}
}

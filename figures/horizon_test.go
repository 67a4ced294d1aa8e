package figures

import (
	"bytes"
	"math"
	"testing"
	"time"
)

func day(s string) time.Time {
	d, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return d
}

// TestHorizonTrendFigureGolden: four fixed agents (three on the frontier,
// one not; one without an interval) and a trend doubling every 200 days
// through 8 minutes on 2024-01-01, byte-compared with
// testdata/horizon_golden.svg (rewrite with -update).
func TestHorizonTrendFigureGolden(t *testing.T) {
	nan := math.NaN()
	points := []HorizonPoint{
		{Label: "Agent A", Release: day("2023-03-14"), Minutes: 4, Lo: 2, Hi: 9, Frontier: true},
		{Label: "Agent B", Release: day("2023-11-06"), Minutes: 3, Lo: 1.5, Hi: 6},
		{Label: "Agent C", Release: day("2024-06-20"), Minutes: 15, Lo: 8, Hi: 30, Frontier: true},
		{Label: "Agent D", Release: day("2025-02-24"), Minutes: 50, Lo: nan, Hi: nan, Frontier: true},
	}
	slope := math.Ln2 / 200
	d0 := float64(day("2024-01-01").Unix()) / 86400
	trend := &Trend{Slope: slope, Intercept: math.Log(8) - slope*d0}
	p, err := HorizonTrendFigure("50% time horizon", "Time horizon", points, trend)
	if err != nil {
		t.Fatal(err)
	}
	checkPlotGolden(t, p, OneColumn, Height(OneColumn), "horizon")
}

// TestHorizonTrendFigureEdgeCases: no drawable point, one point, and
// points with 0, +Inf and NaN horizons render in every format.
func TestHorizonTrendFigureEdgeCases(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for name, pts := range map[string][]HorizonPoint{
		"none":       nil,
		"undrawable": {{Label: "zero", Release: day("2024-01-01"), Minutes: 0}, {Label: "inf", Release: day("2024-02-01"), Minutes: inf}, {Label: "nan", Release: day("2024-03-01"), Minutes: nan}},
		"one":        {{Label: "only", Release: day("2024-01-01"), Minutes: 2, Lo: 0, Hi: inf, Frontier: true}},
	} {
		p, err := HorizonTrendFigure(name, "minutes", pts, &Trend{Slope: 0.001, Intercept: 0})
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

// TestHorizonTrendBandGolden: the golden trend with a band widening away
// from 2024-01-01 (one point with a NaN bound left out), byte-compared
// with testdata/horizon_band_golden.svg.
func TestHorizonTrendBandGolden(t *testing.T) {
	points := []HorizonPoint{
		{Label: "Agent A", Release: day("2023-03-14"), Minutes: 4, Lo: 2, Hi: 9, Frontier: true},
		{Label: "Agent C", Release: day("2024-06-20"), Minutes: 15, Lo: 8, Hi: 30, Frontier: true},
		{Label: "Agent D", Release: day("2025-02-24"), Minutes: 50, Lo: 30, Hi: 90, Frontier: true},
	}
	slope := math.Ln2 / 200
	d0 := float64(day("2024-01-01").Unix()) / 86400
	trend := &Trend{Slope: slope, Intercept: math.Log(8) - slope*d0}
	for _, s := range []string{"2023-03-14", "2023-09-01", "2024-01-01", "2024-06-20", "2024-11-01", "2025-02-24"} {
		d := float64(day(s).Unix()) / 86400
		mid := math.Exp(trend.Intercept + slope*d)
		w := 1.2 + math.Abs(d-d0)/300
		trend.Band = append(trend.Band, TrendBandPoint{Day: d, Lo: mid / w, Hi: mid * w})
	}
	trend.Band[1].Lo = math.NaN()
	p, err := HorizonTrendFigure("50% time horizon", "Time horizon", points, trend)
	if err != nil {
		t.Fatal(err)
	}
	checkPlotGolden(t, p, OneColumn, Height(OneColumn), "horizon_band")
}

package figures

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// LogisticCurve is one fitted logistic model P(success | x) =
// σ(Intercept + Slope·t), t = log2(x) on a log2 axis and t = x otherwise,
// drawn over [XMin, XMax] (as fitted by analysis.FitLogistic for time
// horizons, t = log2(human minutes), or by analysis.FitGLM with family
// binomial for success against gold lines changed). Points are observed
// rates to draw as dots in the curve's colour (may be empty); an infinite
// slope (one outcome class: analysis.LogisticFit.Class 0 or 1) draws a
// flat line at 0 or 1, and a NaN intercept or slope draws no curve.
type LogisticCurve struct {
	Label            string
	Intercept, Slope float64
	XMin, XMax       float64
	Points           plotter.XYs
}

// logisticSteps is the number of segments of a drawn curve.
const logisticSteps = 96

// LogisticFigure draws each curve (colours 1, 2, … in input order) with
// its points, on a log2 x axis when log2x (x ≤ 0 is then left out), the y
// axis fixed to [0, 1] with a dashed grey line at 0.5. METR's time-horizon
// figure (success against human minutes, one fitted logistic per agent)
// and RExBench's success against gold lines changed are such figures.
func LogisticFigure(title, xLabel, yLabel string, curves []LogisticCurve, log2x bool) (*plot.Plot, error) {
	p := NewPlot(title, xLabel, yLabel)
	AddGrid(p)
	if log2x {
		UseLog2X(p)
	}
	xmin, xmax := math.Inf(1), math.Inf(-1)
	ok := func(x float64) bool { return finite(x) && (!log2x || x > 0) }
	for _, c := range curves {
		for _, x := range []float64{c.XMin, c.XMax} {
			if ok(x) {
				xmin, xmax = math.Min(xmin, x), math.Max(xmax, x)
			}
		}
		for _, pt := range c.Points {
			if ok(pt.X) {
				xmin, xmax = math.Min(xmin, pt.X), math.Max(xmax, pt.X)
			}
		}
	}
	if xmin > xmax {
		xmin, xmax = 1, 2
	} else if xmin == xmax {
		if log2x {
			xmin, xmax = xmin/2, xmax*2
		} else {
			xmin, xmax = xmin-1, xmax+1
		}
	}
	half, err := plotter.NewLine(plotter.XYs{{X: xmin, Y: 0.5}, {X: xmax, Y: 0.5}})
	if err != nil {
		return nil, err
	}
	half.LineStyle = draw.LineStyle{Color: otherGrey, Width: GridWidth * 2, Dashes: []vg.Length{vg.Points(2), vg.Points(2)}}
	p.Add(half)
	for i, c := range curves {
		slot := i + 1
		var thumbs []plot.Thumbnailer
		lo, hi := c.XMin, c.XMax
		if !ok(lo) || !ok(hi) || lo > hi {
			lo, hi = xmin, xmax
		}
		var line plotter.XYs
		if !math.IsNaN(c.Slope) && (!math.IsNaN(c.Intercept) || math.IsInf(c.Slope, 0)) {
			for s := 0; s <= logisticSteps; s++ {
				f := float64(s) / logisticSteps
				var x, t float64
				if log2x {
					t = math.Log2(lo) + float64(f*(math.Log2(hi)-math.Log2(lo)))
					x = math.Exp2(t)
				} else {
					t = lo + float64(f*(hi-lo))
					x = t
				}
				var y float64
				switch {
				case math.IsInf(c.Slope, 1):
					y = 1
				case math.IsInf(c.Slope, -1):
					y = 0
				default:
					y = 1 / (1 + math.Exp(-(c.Intercept + float64(c.Slope*t))))
				}
				line = append(line, plotter.XY{X: x, Y: y})
			}
		}
		if len(line) > 0 {
			l, err := plotter.NewLine(line)
			if err != nil {
				return nil, err
			}
			l.LineStyle = LineStyle(slot)
			p.Add(l)
			thumbs = append(thumbs, l)
		}
		var pts plotter.XYs
		for _, pt := range c.Points {
			if ok(pt.X) && finite(pt.Y) {
				pts = append(pts, pt)
			}
		}
		if len(pts) > 0 {
			sc, err := plotter.NewScatter(pts)
			if err != nil {
				return nil, err
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: Color(slot), Radius: vg.Points(1.8), Shape: draw.CircleGlyph{}}
			p.Add(sc)
			if len(thumbs) == 0 {
				thumbs = append(thumbs, sc)
			}
		}
		if len(thumbs) > 0 {
			p.Legend.Add(c.Label, thumbs...)
		}
	}
	p.X.Min, p.X.Max = xmin, xmax
	p.Y.Min, p.Y.Max = 0, 1
	LegendOutside(p)
	return p, nil
}

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
	// Lo, Hi are intervals of Points (e.g. analysis.HorizonBins' Wilson
	// intervals of binned success rates), drawn as error bars in the
	// curve's colour; nil: none. A NaN bound draws no bar for that point.
	Lo, Hi []float64
	Style  *SeriesStyle // nil: the next palette colour
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
		ls := LineStyle(slot)
		if c.Style != nil {
			ls = c.Style.Line()
		}
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
			l.LineStyle = ls
			p.Add(l)
			thumbs = append(thumbs, l)
		}
		var pts plotter.XYs
		var errXY plotter.XYs
		var errs [][2]float64
		for j, pt := range c.Points {
			if ok(pt.X) && finite(pt.Y) {
				pts = append(pts, pt)
				if j < len(c.Lo) && j < len(c.Hi) && finite(c.Lo[j]) && finite(c.Hi[j]) {
					errXY = append(errXY, pt)
					errs = append(errs, [2]float64{c.Lo[j], c.Hi[j]})
				}
			}
		}
		// Points of several curves at the same x are moved apart by a
		// point or two, so that their intervals do not hide each other.
		dodge := vg.Points(1.6) * vg.Length(float64(i)-float64(len(curves)-1)/2)
		if len(c.Lo) == 0 {
			dodge = 0
		}
		if len(errXY) > 0 {
			eb := &errorBars{xys: errXY, errs: errs, offset: dodge, capHalf: vg.Points(1), color: ls.Color}
			p.Add(eb)
		}
		if len(pts) > 0 {
			sc, err := plotter.NewScatter(pts)
			if err != nil {
				return nil, err
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: ls.Color, Radius: vg.Points(1.8), Shape: draw.CircleGlyph{}}
			if dodge != 0 {
				p.Add(offsetScatter{sc, dodge})
			} else {
				p.Add(sc)
			}
			if len(thumbs) == 0 {
				thumbs = append(thumbs, sc)
			}
		}
		if len(thumbs) > 0 {
			addEntry(p, c.Label, thumbs...)
		}
	}
	p.X.Min, p.X.Max = xmin, xmax
	p.Y.Min, p.Y.Max = 0, 1
	LegendOutside(p)
	return p, nil
}

// offsetScatter draws a scatter moved right by dx on the canvas.
type offsetScatter struct {
	*plotter.Scatter
	dx vg.Length
}

func (o offsetScatter) Plot(c draw.Canvas, plt *plot.Plot) {
	c.Rectangle.Min.X += o.dx
	c.Rectangle.Max.X += o.dx
	o.Scatter.Plot(c, plt)
}

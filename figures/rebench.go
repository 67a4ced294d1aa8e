package figures

import (
	"fmt"
	"image/color"
	"math"
	"sort"

	"github.com/rdeval/rdeval/analysis"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Series is one labelled line with an optional confidence band (Lo, Hi of
// the same length as Y, or nil). Points whose Y is NaN are left out, and a
// band point whose Lo or Hi is NaN is left out of the band.
type Series struct {
	Label     string
	X, Y      []float64
	Lo, Hi    []float64
	ColorSlot int          // palette index (0 = black); series are coloured 1, 2, … when 0 for all
	Style     *SeriesStyle // when set, the series' colour and dashes (e.g. from a study's StyleMap); overrides ColorSlot
	// Markers draws a filled marker at every point of the line: points
	// that were observed, as against a line joining them.
	Markers bool
	// PX, PY are points drawn apart from the line, as open markers in the
	// series' colour with no band and not joined (estimates over fewer
	// tasks than the line's, see AllocationFigure); LinePlot's partial
	// legend entry names them.
	PX, PY []float64
}

// PartialLabel is the legend entry of the open markers LinePlot draws for
// Series.PX, PY.
const PartialLabel = "open: fewer tasks"

// LinePlot draws series as lines over translucent bands, in the house
// style, with a log2 x axis when log2x. Every band is drawn before any
// line, so that no band covers another series' line. Draw puts the legend
// in a corner of the data area where it covers no line, marker or band,
// else outside: to the right, or in columns below the plot when a legend to
// the right would take more than a third of the figure's width. Empty series and NaN
// points are skipped; a plot with no data is still a valid (empty) figure.
func LinePlot(title, xLabel, yLabel string, series []Series, log2x bool) (*plot.Plot, error) {
	p := NewPlot(title, xLabel, yLabel)
	AddGrid(p)
	if log2x {
		UseLog2X(p)
	}
	type built struct {
		s       *Series
		ls      draw.LineStyle
		line    plotter.XYs
		partial plotter.XYs
		band    *plotter.Polygon
	}
	var bs []built
	xmin, xmax := math.Inf(1), math.Inf(-1)
	usable := func(x, y float64) bool {
		return !(math.IsNaN(y) || math.IsNaN(x) || math.IsInf(y, 0) || (log2x && x <= 0))
	}
	anyPartial := false
	for i := range series {
		s := &series[i]
		var line, upper, lower, partial plotter.XYs
		for j := range s.Y {
			x, y := s.X[j], s.Y[j]
			if !usable(x, y) {
				continue
			}
			line = append(line, plotter.XY{X: x, Y: y})
			xmin, xmax = math.Min(xmin, x), math.Max(xmax, x)
			if s.Lo != nil && s.Hi != nil && !math.IsNaN(s.Lo[j]) && !math.IsNaN(s.Hi[j]) {
				upper = append(upper, plotter.XY{X: x, Y: s.Hi[j]})
				lower = append(lower, plotter.XY{X: x, Y: s.Lo[j]})
			}
		}
		for j := range s.PY {
			if x, y := s.PX[j], s.PY[j]; usable(x, y) {
				partial = append(partial, plotter.XY{X: x, Y: y})
				xmin, xmax = math.Min(xmin, x), math.Max(xmax, x)
			}
		}
		if len(line) == 0 && len(partial) == 0 {
			continue
		}
		anyPartial = anyPartial || len(partial) > 0
		slot := s.ColorSlot
		if slot == 0 {
			slot = i + 1
		}
		b := built{s: s, ls: LineStyle(slot), line: line, partial: partial}
		av := avoidFor(p)
		av.lines = append(av.lines, line)
		for _, q := range partial {
			av.lines = append(av.lines, plotter.XYs{q})
		}
		if len(upper) >= 2 {
			av.bands = append(av.bands, [2]plotter.XYs{upper, lower})
		}
		if s.Style != nil {
			b.ls = s.Style.Line()
		}
		if len(upper) >= 2 {
			band := append(plotter.XYs{}, upper...)
			for j := len(lower) - 1; j >= 0; j-- {
				band = append(band, lower[j])
			}
			poly, err := plotter.NewPolygon(band)
			if err != nil {
				return nil, err
			}
			poly.Color = Band(nrgba(b.ls.Color))
			poly.LineStyle.Width = 0
			b.band = poly
		}
		bs = append(bs, b)
	}
	for _, b := range bs {
		if b.band != nil {
			p.Add(b.band)
		}
	}
	for _, b := range bs {
		var thumbs []plot.Thumbnailer
		if b.band != nil {
			thumbs = append(thumbs, b.band)
		}
		if len(b.line) > 0 {
			l, err := plotter.NewLine(b.line)
			if err != nil {
				return nil, err
			}
			l.LineStyle = b.ls
			p.Add(l)
			thumbs = append(thumbs, l)
		}
		if len(b.line) == 1 || (b.s.Markers && len(b.line) > 0) {
			sc, err := plotter.NewScatter(b.line)
			if err != nil {
				return nil, err
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: b.ls.Color, Radius: MarkerRadius, Shape: draw.CircleGlyph{}}
			p.Add(sc)
			thumbs = append(thumbs, sc)
		}
		if len(b.partial) > 0 {
			sc, err := plotter.NewScatter(b.partial)
			if err != nil {
				return nil, err
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: b.ls.Color, Radius: MarkerRadius, Shape: draw.RingGlyph{}}
			p.Add(sc)
			if len(thumbs) == 0 {
				thumbs = append(thumbs, sc)
			}
		}
		addEntry(p, b.s.Label, thumbs...)
		avoidFor(p).series++
	}
	if anyPartial {
		addEntry(p, PartialLabel, ringThumb{})
	}
	switch {
	case len(bs) == 0:
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 1, 2, 0, 1
	case xmin == xmax && log2x:
		p.X.Min, p.X.Max = xmin/2, xmax*2 // a single x: one octave either side
	case xmin == xmax:
		p.X.Min, p.X.Max = xmin-1, xmax+1
	}
	if p.Y.Min > 0 {
		p.Y.Min = 0
	}
	return p, nil
}

// MarkerRadius is the radius of the markers at observed points.
const MarkerRadius = vg.Length(1.8)

// ringThumb is the legend thumbnail of partial points: an open dark grey
// marker.
type ringThumb struct{}

func (ringThumb) Thumbnail(c *draw.Canvas) {
	x := (c.Min.X + c.Max.X) / 2
	y := (c.Min.Y + c.Max.Y) / 2
	c.DrawGlyph(draw.GlyphStyle{Color: HumanColor, Radius: MarkerRadius, Shape: draw.RingGlyph{}}, vg.Point{X: x, Y: y})
}

// nrgba converts any colour to color.NRGBA.
func nrgba(c color.Color) color.NRGBA {
	return color.NRGBAModel.Convert(c).(color.NRGBA)
}

// ScoreAtKGroup is one group's score@k curve (one agent at one run length).
type ScoreAtKGroup struct {
	Label  string
	Points []analysis.ScoreAtKPoint
	Style  *SeriesStyle // nil: the next palette colour
	// Tasks is the group's task set size; a point whose NTasks is below it
	// averages over fewer tasks (the others short of k runs) and is not on
	// the line (see Partial). 0: the largest NTasks of the points.
	Tasks int
}

// Partial says how a line figure draws estimates over fewer tasks than the
// rest of their series (a mean over another task set is another quantity).
type Partial int

const (
	// PartialDistinct draws them as open markers, off the line, without
	// a band, with a legend entry saying so (the default).
	PartialDistinct Partial = iota
	// PartialOmit leaves them out.
	PartialOmit
)

// ParsePartial reads "distinct" or "omit" ("" is distinct).
func ParsePartial(s string) (Partial, error) {
	switch s {
	case "", "distinct":
		return PartialDistinct, nil
	case "omit":
		return PartialOmit, nil
	}
	return 0, fmt.Errorf("partial %q: want distinct or omit", s)
}

// LineOptions are the options of the line figures; pass at most one.
type LineOptions struct {
	Partial Partial
}

func lineOptions(opts []LineOptions) LineOptions {
	if len(opts) > 0 {
		return opts[0]
	}
	return LineOptions{}
}

// ScoreAtKFigure draws score@k against k on a log2 axis with bootstrap
// bands and a marker at each k, one line per group (RE-Bench Figs. 7–8). A
// point over fewer tasks than its group's (Tasks) is not on the line: an
// open marker (PartialDistinct) or nothing (PartialOmit), so that a curve
// does not seem to fall where tasks ran out of runs.
func ScoreAtKFigure(title string, groups []ScoreAtKGroup, opts ...LineOptions) (*plot.Plot, error) {
	o := lineOptions(opts)
	series := make([]Series, len(groups))
	for i, g := range groups {
		full := g.Tasks
		if full == 0 {
			for _, p := range g.Points {
				full = max(full, p.NTasks)
			}
		}
		s := Series{Label: g.Label, Style: g.Style, Markers: true}
		for _, p := range g.Points {
			if p.NTasks < full {
				if o.Partial == PartialDistinct {
					s.PX = append(s.PX, float64(p.K))
					s.PY = append(s.PY, p.Estimate)
				}
				continue
			}
			s.X = append(s.X, float64(p.K))
			s.Y = append(s.Y, p.Estimate)
			s.Lo = append(s.Lo, p.CILow)
			s.Hi = append(s.Hi, p.CIHigh)
		}
		series[i] = s
	}
	return LinePlot(title, "k (runs)", "Average normalized score", series, true)
}

// AllocationGroup is one agent's allocation results.
type AllocationGroup struct {
	Label  string
	Points []analysis.AllocationPoint
	Style  *SeriesStyle // nil: the next palette colour
}

// AllocationFigure draws, per agent, the best allocation's score against the
// total time budget in hours (log2 axis) with its band and a marker at each
// budget (RE-Bench Fig. 2). The best is chosen among cells that cover the
// agent's full task set (analysis.AllocationCurve); at a budget with no
// such cell, the highest of the cells covering the most tasks is an open
// marker off the line (PartialDistinct) or not drawn (PartialOmit).
func AllocationFigure(title string, groups []AllocationGroup, opts ...LineOptions) (*plot.Plot, error) {
	o := lineOptions(opts)
	series := make([]Series, len(groups))
	for i, g := range groups {
		pts := append([]analysis.AllocationPoint{}, g.Points...)
		sort.SliceStable(pts, func(a, b int) bool { return pts[a].BudgetS < pts[b].BudgetS })
		s := Series{Label: g.Label, Style: g.Style, Markers: true}
		for j := 0; j < len(pts); {
			e := j
			for e < len(pts) && pts[e].BudgetS == pts[j].BudgetS {
				e++
			}
			best, part := -1, -1
			for q := j; q < e; q++ {
				p := pts[q]
				if p.Best {
					best = q
				}
				if !p.FullTaskSet && !math.IsNaN(p.Estimate) && (part < 0 || p.NTasks > pts[part].NTasks ||
					(p.NTasks == pts[part].NTasks && p.Estimate > pts[part].Estimate)) {
					part = q
				}
			}
			switch {
			case best >= 0:
				p := pts[best]
				s.X = append(s.X, p.BudgetS/3600)
				s.Y = append(s.Y, p.Estimate)
				s.Lo = append(s.Lo, p.CILow)
				s.Hi = append(s.Hi, p.CIHigh)
			case part >= 0 && o.Partial == PartialDistinct:
				s.PX = append(s.PX, pts[part].BudgetS/3600)
				s.PY = append(s.PY, pts[part].Estimate)
			}
			j = e
		}
		series[i] = s
	}
	return LinePlot(title, "Total time budget (hours)", "Average normalized score", series, true)
}

// CurveGroup is one group's score-over-time curve.
type CurveGroup struct {
	Label  string
	Points []analysis.CurvePoint
	Style  *SeriesStyle // nil: the next palette colour
}

// CurvesFigure draws the mean best-so-far score against elapsed hours with
// bands (RE-Bench Figs. 4–5).
func CurvesFigure(title string, groups []CurveGroup) (*plot.Plot, error) {
	series := make([]Series, len(groups))
	for i, g := range groups {
		s := Series{Label: g.Label, Style: g.Style}
		for _, p := range g.Points {
			s.X = append(s.X, p.T/3600)
			s.Y = append(s.Y, p.Estimate)
			s.Lo = append(s.Lo, p.CILow)
			s.Hi = append(s.Hi, p.CIHigh)
		}
		series[i] = s
	}
	return LinePlot(title, "Elapsed time (hours)", "Average normalized score", series, false)
}

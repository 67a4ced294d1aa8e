package figures

import (
	"image/color"
	"math"
	"strconv"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// HorizonPoint is one agent's time horizon (e.g. at 50% success) at its
// release date, with its bootstrap interval.
type HorizonPoint struct {
	Label    string
	Release  time.Time
	Minutes  float64 // horizon; not drawn when NaN, ≤ 0 or +Inf, drawn at HorizonFloor when below it
	Lo, Hi   float64 // interval; drawn when both are finite and positive
	Frontier bool    // on the running frontier (fitted by the trend)
}

// Trend is an exponential trend of the horizon over release dates:
// ln(minutes) = Intercept + Slope·day, day = Unix seconds / 86400 (as
// analysis.FitHorizonTrend and rdeval horizon --release-dates fit it).
type Trend struct {
	Slope, Intercept float64
	// Band, when not empty, is the trend's confidence band (e.g.
	// analysis.HorizonTrendBand) at days (Unix seconds / 86400) in
	// increasing order, drawn as a translucent fill under the line and
	// clipped to the plot; points with a NaN or non-positive bound are
	// left out.
	Band []TrendBandPoint
}

// TrendBandPoint is one day of a trend's band, in minutes.
type TrendBandPoint struct {
	Day, Lo, Hi float64
}

// otherGrey marks the agents off the frontier.
var otherGrey = color.Gray{Y: 0x99}

// HorizonTrendFigure draws the horizons (minutes, log y axis marked at 1,
// 4 and 15 s/min/h) against
// release date, each point with its interval and label, frontier agents in
// the first colour and the others in grey, and the trend line over the
// span of the frontier agents' dates when trend is not nil (METR, "Measuring AI ability to
// complete long tasks", Fig. 1).
func HorizonTrendFigure(title, yLabel string, points []HorizonPoint, trend *Trend) (*plot.Plot, error) {
	p := NewPlot(title, "Release date", yLabel)
	AddGrid(p)
	p.X.Tick.Marker = dateTicks{}
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = horizonTicks{}

	var front, other, errXY plotter.XYs
	var errs [][2]float64
	var labels plotter.XYLabels
	xmin, xmax := math.Inf(1), math.Inf(-1)
	tmin, tmax := math.Inf(1), math.Inf(-1) // span of the frontier's dates
	for _, pt := range points {
		if pt.Frontier {
			x := float64(pt.Release.Unix())
			tmin, tmax = math.Min(tmin, x), math.Max(tmax, x)
		}
		if !(pt.Minutes > 0) || math.IsInf(pt.Minutes, 0) {
			continue
		}
		xy := plotter.XY{X: float64(pt.Release.Unix()), Y: pt.Minutes}
		label := pt.Label
		if xy.Y < HorizonFloor {
			xy.Y = HorizonFloor // drawn on the floor, and said so
			label += " (< 0.5 s)"
		}
		xmin, xmax = math.Min(xmin, xy.X), math.Max(xmax, xy.X)
		if pt.Frontier {
			front = append(front, xy)
		} else {
			other = append(other, xy)
		}
		if pt.Lo >= 0 && pt.Hi > 0 && !math.IsInf(pt.Hi, 0) {
			errXY = append(errXY, xy)
			errs = append(errs, [2]float64{pt.Lo, pt.Hi})
		}
		labels.XYs = append(labels.XYs, xy)
		labels.Labels = append(labels.Labels, label)
	}
	if len(labels.XYs) == 0 {
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 86400, 1, 2
		return p, nil
	}
	// The y range: the points, less a margin, but no lower than
	// HorizonFloor nor higher than 16 times the longest horizon; intervals
	// are clipped to it (a bootstrap interval of a weak agent can reach down
	// to 1e-10 minutes, which would squeeze every point into one line).
	ymin, ymax := math.Inf(1), math.Inf(-1)
	for _, xy := range labels.XYs {
		ymin, ymax = math.Min(ymin, xy.Y), math.Max(ymax, xy.Y)
	}
	lo := math.Max(HorizonFloor, ymin/2)
	hi := ymax * 16
	for i := range errs {
		errs[i][0] = math.Min(math.Max(errs[i][0], lo), hi)
		errs[i][1] = math.Min(math.Max(errs[i][1], lo), hi)
		ymin, ymax = math.Min(ymin, errs[i][0]), math.Max(ymax, errs[i][1])
	}
	if len(errXY) > 0 {
		p.Add(&errorBars{xys: errXY, errs: errs})
	}
	if trend != nil && tmax > tmin {
		var upper, lower plotter.XYs
		for _, b := range trend.Band {
			if finite(b.Day) && b.Lo > 0 && b.Hi > 0 && finite(b.Lo) && finite(b.Hi) {
				upper = append(upper, plotter.XY{X: b.Day * 86400, Y: b.Hi})
				lower = append(lower, plotter.XY{X: b.Day * 86400, Y: b.Lo})
			}
		}
		if len(upper) >= 2 {
			poly := append(plotter.XYs{}, upper...)
			for j := len(lower) - 1; j >= 0; j-- {
				poly = append(poly, lower[j])
			}
			band, err := plotter.NewPolygon(poly)
			if err != nil {
				return nil, err
			}
			band.Color = Band(Color(1))
			band.LineStyle.Width = 0
			p.Add(band)
			p.Legend.Add("trend CI", band)
		}
		line := plotter.XYs{
			{X: tmin, Y: math.Exp(trend.Intercept + trend.Slope*tmin/86400)},
			{X: tmax, Y: math.Exp(trend.Intercept + trend.Slope*tmax/86400)},
		}
		xmin, xmax = math.Min(xmin, tmin), math.Max(xmax, tmax)
		l, err := plotter.NewLine(line)
		if err != nil {
			return nil, err
		}
		l.LineStyle = LineStyle(1)
		l.LineStyle.Dashes = []vg.Length{vg.Points(3), vg.Points(2)}
		p.Add(l)
		p.Legend.Add("trend (frontier)", l)
	}
	for _, s := range []struct {
		xys   plotter.XYs
		style draw.GlyphStyle
		name  string
	}{
		{other, draw.GlyphStyle{Color: otherGrey, Radius: vg.Points(2.2), Shape: draw.CircleGlyph{}}, "other agents"},
		{front, draw.GlyphStyle{Color: Color(1), Radius: vg.Points(2.2), Shape: draw.CircleGlyph{}}, "frontier agents"},
	} {
		if len(s.xys) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(s.xys)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = s.style
		p.Add(sc)
		p.Legend.Add(s.name, sc)
	}
	p.Add(&pointLabels{xys: labels.XYs, labels: labels.Labels, bars: errXY, barErrs: errs,
		style: text.Style{Font: font.From(Font, TickSize), Handler: p.Title.TextStyle.Handler}})
	if xmin == xmax {
		xmin, xmax = xmin-30*86400, xmax+30*86400 // one date: a month either side
	}
	p.Y.Min = math.Max(math.Min(ymin, lo), math.Min(HorizonFloor, ymin))
	p.Y.Max = ymax * 1.5 // room for the top label
	pad := float64((xmax - xmin) * 0.08)
	p.X.Min, p.X.Max = xmin-pad, xmax+float64(3*pad) // room for the labels on the right
	return p, nil
}

// HorizonFloor is the lowest horizon HorizonTrendFigure's y axis shows
// unless a point lies below it: half a second, in minutes.
const HorizonFloor = 0.5 / 60

// horizonTicks marks a minutes axis at 1, 4 and 15 seconds, minutes and
// hours and at 4× steps beyond (1 s, 4 s, 15 s, 1 min, 4 min, 15 min, 1 h,
// 4 h, 16 h, 64 h, …), as METR labels its horizon plots; a range holding
// fewer than two of them gets Log2Ticks.
type horizonTicks struct{}

func (horizonTicks) Ticks(min, max float64) []plot.Tick {
	type mark struct {
		min   float64
		label string
	}
	marks := []mark{{1.0 / 60, "1 s"}, {4.0 / 60, "4 s"}, {15.0 / 60, "15 s"}, {1, "1 min"}, {4, "4 min"}, {15, "15 min"}, {60, "1 h"}}
	for h := 4; h <= 1<<20; h *= 4 {
		marks = append(marks, mark{float64(h) * 60, strconv.Itoa(h) + " h"})
	}
	var ticks []plot.Tick
	for _, m := range marks {
		if m.min >= min && m.min <= max {
			ticks = append(ticks, plot.Tick{Value: m.min, Label: m.label})
		}
	}
	if len(ticks) < 2 {
		return Log2Ticks{}.Ticks(min, max)
	}
	return ticks
}

// pointLabels labels points without reporting the labels' glyph boxes,
// which would make gonum/plot shrink the data area to fit every label's
// text inside it; HorizonTrendFigure leaves room on the right and at the
// top instead. Each label goes to the first place, of right above its
// point, left above, right below and left below, where it stays inside the
// data area and covers neither an earlier label, a point nor an error
// bar; else the first that covers no label or point; else the first
// inside the data area; else right above.
type pointLabels struct {
	xys     plotter.XYs
	labels  []string
	bars    plotter.XYs  // error bars' x (and point)
	barErrs [][2]float64 // their [lo, hi]
	style   text.Style
}

func (l *pointLabels) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	const dx, dy = vg.Length(3), vg.Length(2)
	r := vg.Points(2.2) // the points' radius
	var points, placed []vg.Rectangle
	for _, xy := range l.xys {
		x, y := trX(xy.X), trY(xy.Y)
		points = append(points, vg.Rectangle{Min: vg.Point{X: x - r, Y: y - r}, Max: vg.Point{X: x + r, Y: y + r}})
	}
	var bars []vg.Rectangle
	for i, xy := range l.bars {
		x := trX(xy.X)
		lo, hi := trY(l.barErrs[i][0]), trY(l.barErrs[i][1])
		bars = append(bars, vg.Rectangle{Min: vg.Point{X: x - 2, Y: min(lo, hi)}, Max: vg.Point{X: x + 2, Y: max(lo, hi)}})
	}
	overlaps := func(a vg.Rectangle, bs []vg.Rectangle) bool {
		for _, b := range bs {
			if a.Min.X < b.Max.X && b.Min.X < a.Max.X && a.Min.Y < b.Max.Y && b.Min.Y < a.Max.Y {
				return true
			}
		}
		return false
	}
	for i, xy := range l.xys {
		x, y := trX(xy.X), trY(xy.Y)
		w, h := l.style.Width(l.labels[i]), l.style.Height(l.labels[i])
		var boxes []vg.Rectangle
		for _, cand := range [][2]vg.Length{{x + dx, y + dy}, {x - dx - w, y + dy}, {x + dx, y - dy - h}, {x - dx - w, y - dy - h}} {
			boxes = append(boxes, vg.Rectangle{Min: vg.Point{X: cand[0], Y: cand[1]}, Max: vg.Point{X: cand[0] + w, Y: cand[1] + h}})
		}
		inside := func(b vg.Rectangle) bool {
			return b.Min.X >= c.Min.X && b.Max.X <= c.Max.X && b.Min.Y >= c.Min.Y && b.Max.Y <= c.Max.Y
		}
		pick := -1
		for j, b := range boxes {
			if inside(b) && !overlaps(b, placed) && !overlaps(b, points) && !overlaps(b, bars) {
				pick = j
				break
			}
		}
		for j, b := range boxes {
			if pick < 0 && inside(b) && !overlaps(b, placed) && !overlaps(b, points) {
				pick = j
			}
		}
		for j, b := range boxes {
			if pick < 0 && inside(b) {
				pick = j
			}
		}
		pick = max(pick, 0)
		b := boxes[pick]
		placed = append(placed, b)
		// The box's bottom is the text's descent below its baseline.
		c.FillText(l.style, vg.Point{X: b.Min.X, Y: b.Min.Y + l.style.FontExtents().Descent}, l.labels[i])
	}
}

func (l *pointLabels) DataRange() (xmin, xmax, ymin, ymax float64) { return plotter.XYRange(l.xys) }

package figures

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// SpreadRow is one row of a multiverse figure: the estimates of the cells
// that vary one choice (or all of them) and the union of their intervals
// (NaN: none).
type SpreadRow struct {
	Label     string
	Estimates []float64
	Lo, Hi    float64
}

// MultiverseFigure draws the spread of a statistic per analyst choice, one
// row per choice, top to bottom in the given order (the last row is
// usually "all choices together"): a thin bar with end caps spans the
// union of the cells' intervals, a thick bar spans the smallest to the
// largest estimate (the range), and each cell's estimate is a dot. A dashed
// vertical line marks the default estimate (NaN: none). Non-finite values
// are left out.
func MultiverseFigure(title, xLabel string, rows []SpreadRow, def float64) (*plot.Plot, error) {
	p := NewPlot(title, xLabel, "")
	AddGrid(p)
	n := len(rows)
	names := make([]string, n)
	var dots plotter.XYs
	var bars []hbar
	var boxes []hbar
	xmin, xmax := math.Inf(1), math.Inf(-1)
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	grow := func(x float64) { xmin, xmax = math.Min(xmin, x), math.Max(xmax, x) }
	for i, r := range rows {
		y := float64(n - 1 - i)
		names[n-1-i] = r.Label
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, e := range r.Estimates {
			if !finite(e) {
				continue
			}
			dots = append(dots, plotter.XY{X: e, Y: y})
			lo, hi = math.Min(lo, e), math.Max(hi, e)
			grow(e)
		}
		if lo <= hi {
			boxes = append(boxes, hbar{y: y, lo: lo, hi: hi})
		}
		if finite(r.Lo) && finite(r.Hi) {
			bars = append(bars, hbar{y: y, lo: r.Lo, hi: r.Hi})
			grow(r.Lo)
			grow(r.Hi)
		}
	}
	if n == 0 || xmin > xmax {
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
		if n > 0 {
			p.NominalY(names...)
			p.Y.Min, p.Y.Max = -0.5, float64(n)-0.5
		}
		return p, nil
	}
	if finite(def) {
		grow(def)
		l, err := plotter.NewLine(plotter.XYs{{X: def, Y: -0.5}, {X: def, Y: float64(n) - 0.5}})
		if err != nil {
			return nil, err
		}
		l.LineStyle = draw.LineStyle{Color: otherGrey, Width: AxisWidth, Dashes: []vg.Length{vg.Points(2), vg.Points(2)}}
		p.Add(l)
	}
	p.Add(&hbars{bars: bars})
	p.Add(&rangeBoxes{boxes: boxes, fill: Band(Color(0)), edge: Color(0)})
	if len(dots) > 0 {
		sc, err := plotter.NewScatter(dots)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: Color(1), Radius: vg.Points(1.8), Shape: draw.CircleGlyph{}}
		p.Add(sc)
	}
	p.NominalY(names...)
	pad := (xmax - xmin) * 0.05
	if pad == 0 {
		pad = math.Max(math.Abs(xmax)*0.05, 1e-3)
	}
	p.X.Min, p.X.Max = xmin-pad, xmax+pad
	p.Y.Min, p.Y.Max = -0.5, float64(n)-0.5
	return p, nil
}

// rangeBoxes draws each [lo, hi] as a filled box of fixed height.
type rangeBoxes struct {
	boxes      []hbar
	fill, edge color.NRGBA
}

func (b *rangeBoxes) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	half := vg.Points(4)
	ls := draw.LineStyle{Color: b.edge, Width: vg.Points(0.6)}
	for _, r := range b.boxes {
		y, lo, hi := trY(r.y), trX(r.lo), trX(r.hi)
		if hi-lo < vg.Points(1) {
			mid := (lo + hi) / 2
			lo, hi = mid-vg.Points(0.5), mid+vg.Points(0.5)
		}
		pts := []vg.Point{{X: lo, Y: y - half}, {X: hi, Y: y - half}, {X: hi, Y: y + half}, {X: lo, Y: y + half}}
		c.FillPolygon(b.fill, c.ClipPolygonXY(pts))
		c.StrokeLines(ls, c.ClipLinesXY(append(pts, pts[0]))...)
	}
}

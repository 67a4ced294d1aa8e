package figures

import (
	"math"
	"sort"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// CostPoint is one group of a cost–score figure: its mean cost and score
// with their intervals (NaN or infinite bounds: no whisker), whether it is
// on the Pareto frontier, and its style (nil: palette colour by position).
type CostPoint struct {
	Label                   string
	Cost, CostLo, CostHi    float64
	Score, ScoreLo, ScoreHi float64
	Pareto                  bool
	Style                   *SeriesStyle
}

// CostLogRange is the ratio of the largest to the smallest cost (whiskers
// included) above which CostFigure draws the cost axis logarithmically.
const CostLogRange = 20

// CostFigure draws each group as a point at (mean cost, mean score) with
// its intervals as whiskers on both axes, filled when it is on the Pareto
// frontier and open when dominated, and the frontier as a step line
// (grey, dashed) through the frontier points in order of cost: from each
// point the best score reachable for that cost, until the next. Points are
// labelled beside them, each label placed where it covers no other label
// or point when one of a few positions allows. The cost axis is
// logarithmic when the costs span more than CostLogRange (and are all
// positive). Points with a NaN or infinite cost or score are left out.
func CostFigure(title, xLabel, yLabel string, pts []CostPoint) (*plot.Plot, error) {
	p := NewPlot(title, xLabel, yLabel)
	AddGrid(p)
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	var keep []CostPoint
	xmin, xmax := math.Inf(1), math.Inf(-1)
	ymin, ymax := math.Inf(1), math.Inf(-1)
	for i, pt := range pts {
		if !finite(pt.Cost) || !finite(pt.Score) {
			continue
		}
		if pt.Style == nil {
			pt.Style = &SeriesStyle{Color: Color(i + 1)}
		}
		keep = append(keep, pt)
		for _, x := range []float64{pt.Cost, pt.CostLo, pt.CostHi} {
			if finite(x) {
				xmin, xmax = math.Min(xmin, x), math.Max(xmax, x)
			}
		}
		for _, y := range []float64{pt.Score, pt.ScoreLo, pt.ScoreHi} {
			if finite(y) {
				ymin, ymax = math.Min(ymin, y), math.Max(ymax, y)
			}
		}
	}
	if len(keep) == 0 {
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
		return p, nil
	}
	logX := xmin > 0 && xmax/xmin > CostLogRange
	if logX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = costTicks{}
		p.X.Min, p.X.Max = xmin/1.5, xmax*1.5
	} else {
		pad := float64((xmax - xmin) * 0.08) // rounded: no multiply-add with xmin − pad
		if pad == 0 {
			pad = math.Max(float64(math.Abs(xmax)*0.1), 1)
		}
		p.X.Min, p.X.Max = math.Max(0, xmin-pad), xmax+pad
		if xmin-pad < 0 && xmin < 0 {
			p.X.Min = xmin - pad
		}
	}
	pad := float64((ymax - ymin) * 0.08)
	if pad == 0 {
		pad = 0.1
	}
	p.Y.Min, p.Y.Max = math.Min(0, ymin-pad), ymax+pad

	// The frontier: points in order of cost, a step at each.
	var front []CostPoint
	for _, pt := range keep {
		if pt.Pareto {
			front = append(front, pt)
		}
	}
	sort.SliceStable(front, func(i, j int) bool {
		if front[i].Cost != front[j].Cost {
			return front[i].Cost < front[j].Cost
		}
		return front[i].Score < front[j].Score
	})
	var frontLine plotter.XYs
	if len(front) > 1 {
		var steps plotter.XYs
		for i, pt := range front {
			if i > 0 {
				steps = append(steps, plotter.XY{X: pt.Cost, Y: front[i-1].Score})
			}
			steps = append(steps, plotter.XY{X: pt.Cost, Y: pt.Score})
		}
		l, err := plotter.NewLine(steps)
		if err != nil {
			return nil, err
		}
		l.LineStyle = draw.LineStyle{Color: otherGrey, Width: LineWidth, Dashes: []vg.Length{vg.Points(3), vg.Points(2)}}
		p.Add(l)
		p.Legend.Add("Pareto frontier", l)
		avoidFor(p).lines = append(avoidFor(p).lines, steps)
		frontLine = steps
	}
	p.Add(&costWhiskers{pts: keep})
	for _, pt := range keep {
		shape := draw.GlyphDrawer(draw.RingGlyph{})
		if pt.Pareto {
			shape = draw.CircleGlyph{}
		}
		sc, err := plotter.NewScatter(plotter.XYs{{X: pt.Cost, Y: pt.Score}})
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: pt.Style.Color, Radius: vg.Points(2.4), Shape: shape}
		p.Add(sc)
		avoidFor(p).lines = append(avoidFor(p).lines, plotter.XYs{{X: pt.Cost, Y: pt.Score}})
	}
	if len(front) < len(keep) {
		p.Legend.Add("open: dominated", ringThumb{})
	}
	p.Add(&costLabels{pts: keep, front: frontLine, style: text.Style{Color: Palette[0], Font: font.From(Font, TickSize), Handler: p.Title.TextStyle.Handler}})
	return p, nil
}

// costWhiskers draws each point's intervals, horizontal (cost) and
// vertical (score), with end caps, in the point's colour.
type costWhiskers struct{ pts []CostPoint }

func (w *costWhiskers) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	capLen := vg.Points(1.5)
	ok := func(v float64, a plot.Axis) bool {
		return !math.IsNaN(v) && !math.IsInf(v, 0) && v >= a.Min && v <= a.Max
	}
	for _, pt := range w.pts {
		ls := draw.LineStyle{Color: pt.Style.Color, Width: vg.Points(0.6)}
		x, y := trX(pt.Cost), trY(pt.Score)
		if ok(pt.CostLo, plt.X) && ok(pt.CostHi, plt.X) {
			lo, hi := trX(pt.CostLo), trX(pt.CostHi)
			c.StrokeLine2(ls, lo, y, hi, y)
			c.StrokeLine2(ls, lo, y-capLen, lo, y+capLen)
			c.StrokeLine2(ls, hi, y-capLen, hi, y+capLen)
		}
		if ok(pt.ScoreLo, plt.Y) && ok(pt.ScoreHi, plt.Y) {
			lo, hi := trY(pt.ScoreLo), trY(pt.ScoreHi)
			c.StrokeLine2(ls, x, lo, x, hi)
			c.StrokeLine2(ls, x-capLen, lo, x+capLen, lo)
			c.StrokeLine2(ls, x-capLen, hi, x+capLen, hi)
		}
	}
}

// costLabels writes each point's label beside it, at the first of these
// positions whose box stays inside the data area and covers no label
// already placed, no other point, no whisker and no step of the frontier:
// upper right of the point, lower right, upper left, lower left, right,
// left, above, below, then the four corners moved away by one to three
// lines. When every position covers something, the one that covers least
// is taken: a label counts 100, a point 10, a whisker or step 1, and a
// position k lines away 2k; a label moved away gets a thin grey leader
// line to its point.
// Points are labelled in order of score, highest first.
type costLabels struct {
	pts   []CostPoint
	front plotter.XYs // the frontier's step line
	style text.Style
}

// labelBox is a rectangle in canvas coordinates.
type labelBox struct{ minX, minY, maxX, maxY vg.Length }

func (a labelBox) overlaps(b labelBox) bool {
	return a.minX < b.maxX && b.minX < a.maxX && a.minY < b.maxY && b.minY < a.maxY
}

// segmentBox is the box of the segment (x0, y0)–(x1, y1), widened by d.
func segmentBox(x0, y0, x1, y1, d vg.Length) labelBox {
	return labelBox{min(x0, x1) - d, min(y0, y1) - d, max(x0, x1) + d, max(y0, y1) + d}
}

// placedLabel is where a label goes: its box, and the point it labels
// when it was moved away (far), for the leader line.
type placedLabel struct {
	box   labelBox
	far   bool
	x, y  vg.Length // the point
	label string
}

func (l *costLabels) Plot(c draw.Canvas, plt *plot.Plot) {
	for _, pl := range l.place(c, plt) {
		at := vg.Point{X: pl.box.minX, Y: pl.box.minY}
		if pl.far {
			// A label moved away: a leader from the point to the label's
			// nearest corner.
			cx, cy := pl.box.minX, pl.box.minY
			if pl.box.maxX < pl.x {
				cx = pl.box.maxX
			}
			if pl.box.minY <= pl.y {
				cy = pl.box.maxY
			}
			c.StrokeLine2(draw.LineStyle{Color: otherGrey, Width: vg.Points(0.4)}, pl.x, pl.y, cx, cy)
		}
		sty := l.style
		sty.XAlign, sty.YAlign = draw.XLeft, draw.YBottom
		c.FillText(sty, at, pl.label)
	}
}

// place chooses the labels' boxes on the data canvas c.
func (l *costLabels) place(c draw.Canvas, plt *plot.Plot) []placedLabel {
	trX, trY := plt.Transforms(&c)
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	r := vg.Points(2.4) + 1
	d := vg.Points(1.5)
	var points, lines []labelBox
	for _, pt := range l.pts {
		x, y := trX(pt.Cost), trY(pt.Score)
		points = append(points, labelBox{x - r, y - r, x + r, y + r})
		if finite(pt.CostLo) && finite(pt.CostHi) {
			lines = append(lines, segmentBox(trX(math.Max(pt.CostLo, plt.X.Min)), y, trX(math.Min(pt.CostHi, plt.X.Max)), y, d))
		}
		if finite(pt.ScoreLo) && finite(pt.ScoreHi) {
			lines = append(lines, segmentBox(x, trY(math.Max(pt.ScoreLo, plt.Y.Min)), x, trY(math.Min(pt.ScoreHi, plt.Y.Max)), d))
		}
	}
	for i := 1; i < len(l.front); i++ {
		a, b := l.front[i-1], l.front[i]
		lines = append(lines, segmentBox(trX(a.X), trY(a.Y), trX(b.X), trY(b.Y), vg.Points(0.5)))
	}
	order := make([]int, len(l.pts))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return l.pts[order[a]].Score > l.pts[order[b]].Score })
	var placed []labelBox
	var out []placedLabel
	gap := vg.Points(2)
	for _, i := range order {
		pt := l.pts[i]
		w, h := l.style.Width(pt.Label), l.style.Height(pt.Label)
		x, y := trX(pt.Cost), trY(pt.Score)
		cands := []vg.Point{
			{X: x + gap, Y: y + gap}, {X: x + gap, Y: y - gap - h}, {X: x - gap - w, Y: y + gap}, {X: x - gap - w, Y: y - gap - h},
			{X: x + r + gap, Y: y - h/2}, {X: x - r - gap - w, Y: y - h/2}, {X: x - w/2, Y: y + r + gap}, {X: x - w/2, Y: y - r - gap - h},
		}
		far := make([]int, len(cands)) // lines away from the point
		for k := 1; k <= 3; k++ {
			up := vg.Length(vg.Length(k) * h) // rounded: no multiply-add with y
			down := up
			cands = append(cands, vg.Point{X: x + gap, Y: y + gap + up}, vg.Point{X: x + gap, Y: y - gap - h - down},
				vg.Point{X: x - gap - w, Y: y + gap + up}, vg.Point{X: x - gap - w, Y: y - gap - h - down})
			far = append(far, 2*k, 2*k, 2*k, 2*k)
		}
		// The cost of a position: what it covers, labels weighing most.
		at, best, atIdx := cands[0], -1, 0
		for ci, cd := range cands {
			b := labelBox{cd.X, cd.Y, cd.X + w, cd.Y + h}
			if b.minX < c.Min.X || b.maxX > c.Max.X || b.minY < c.Min.Y || b.maxY > c.Max.Y {
				continue
			}
			n := far[ci]
			for _, q := range placed {
				if b.overlaps(q) {
					n += 100
				}
			}
			for j, q := range points {
				if j != i && b.overlaps(q) {
					n += 10
				}
			}
			for _, q := range lines {
				if b.overlaps(q) {
					n++
				}
			}
			if best < 0 || n < best {
				at, best, atIdx = cd, n, ci
			}
			if n == 0 {
				break
			}
		}
		placed = append(placed, labelBox{at.X, at.Y, at.X + w, at.Y + h})
		out = append(out, placedLabel{box: placed[len(placed)-1], far: far[atIdx] > 0, x: x, y: y, label: pt.Label})
	}
	return out
}

// costTicks marks a logarithmic cost axis at 1, 2 and 5 times the powers
// of ten in its range, labelled in dollars ("$0.5", "$20", "$1,000"); over
// more than three decades only the powers of ten are labelled.
type costTicks struct{}

func (costTicks) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max > min) {
		return nil
	}
	lo, hi := int(math.Floor(math.Log10(min))), int(math.Ceil(math.Log10(max)))
	var ticks []plot.Tick
	for e := lo; e <= hi; e++ {
		for _, m := range []float64{1, 2, 5} {
			v := m * math.Pow(10, float64(e))
			if v < min || v > max {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || hi-lo <= 3 {
				t.Label = dollars(v)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// dollars formats v as "$0.5", "$20" or "$1,000".
func dollars(v float64) string {
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if v >= 1000 && v == math.Trunc(v) {
		n := s
		s = ""
		for len(n) > 3 {
			s = "," + n[len(n)-3:] + s
			n = n[:len(n)-3]
		}
		s = n + s
	}
	return "$" + s
}

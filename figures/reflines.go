package figures

import (
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// RefLine is a horizontal reference line at Y with a short label, such as
// a human percentile in RE-Bench Figs. 7–8 ("human p50"). A NaN or
// infinite Y is not drawn.
type RefLine struct {
	Label string
	Y     float64
}

// AddRefLines draws each line across the whole data area in dashed grey,
// its label in small grey type just right of the data area, level with its
// line (moved apart from its neighbours' labels where lines lie closer than
// a label's height), so that no label covers a line, band or marker of the
// data; the data area is narrowed to make room. The y axis is widened to
// include the lines, the x axis is left alone.
func AddRefLines(p *plot.Plot, refs []RefLine) {
	var keep []RefLine
	for _, r := range refs {
		if finite(r.Y) {
			keep = append(keep, r)
		}
	}
	if len(keep) == 0 {
		return
	}
	rl := refLines{lines: keep, style: refLabelStyle(p)}
	p.Add(rl)
	av := avoidFor(p)
	for _, r := range keep {
		av.hlines = append(av.hlines, r.Y)
	}
	av.refWidth = max(av.refWidth, rl.width())
}

// refLabelGap is the gap between the data area and a reference line's label.
const refLabelGap = vg.Length(2)

func refLabelStyle(p *plot.Plot) text.Style {
	return text.Style{Color: otherGrey, Font: font.From(Font, TickSize), XAlign: draw.XLeft, YAlign: draw.YCenter, Handler: p.Title.TextStyle.Handler}
}

type refLines struct {
	lines []RefLine
	style text.Style
}

// width is the room the labels take right of the data area.
func (r refLines) width() vg.Length {
	w := vg.Length(0)
	for _, l := range r.lines {
		w = max(w, r.style.Width(l.Label))
	}
	return refLabelGap + w
}

func (r refLines) Plot(c draw.Canvas, plt *plot.Plot) {
	_, trY := plt.Transforms(&c)
	ls := draw.LineStyle{Color: otherGrey, Width: GridWidth * 2, Dashes: []vg.Length{vg.Points(3), vg.Points(2)}}
	ys := make([]vg.Length, len(r.lines))
	for i, l := range r.lines {
		ys[i] = trY(l.Y)
		c.StrokeLine2(ls, c.Min.X, ys[i], c.Max.X, ys[i])
	}
	for i, y := range spreadLabels(ys, r.style.Height("X")) {
		c.FillText(r.style, vg.Point{X: c.Max.X + refLabelGap, Y: y}, r.lines[i].Label)
	}
}

// spreadLabels returns the centres ys moved apart, by as little as it
// takes, so that labels of height h centred there do not overlap: labels
// closer than h are pushed up and down around their group's mean, in
// order of y.
func spreadLabels(ys []vg.Length, h vg.Length) []vg.Length {
	idx := make([]int, len(ys))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return ys[idx[a]] < ys[idx[b]] })
	// Groups of labels that touch, each laid out h apart around the mean
	// of its members; merge groups until none touch.
	type group struct {
		first, n int
		mid      vg.Length
	}
	var gs []group
	for k, i := range idx {
		gs = append(gs, group{k, 1, ys[i]})
		for len(gs) > 1 {
			a, b := gs[len(gs)-2], gs[len(gs)-1]
			if (b.mid-vg.Length(b.n-1)*h/2)-(a.mid+vg.Length(a.n-1)*h/2) >= h {
				break
			}
			sum := a.mid*vg.Length(a.n) + b.mid*vg.Length(b.n)
			gs = append(gs[:len(gs)-2], group{a.first, a.n + b.n, roundPt(sum / vg.Length(a.n+b.n))})
		}
	}
	out := make([]vg.Length, len(ys))
	for _, g := range gs {
		for j := 0; j < g.n; j++ {
			out[idx[g.first+j]] = roundPt(g.mid + (vg.Length(j)-vg.Length(g.n-1)/2)*h)
		}
	}
	return out
}

// roundPt rounds a computed canvas coordinate to 1/1000 pt, so that a
// fused multiply-add (arm64) and separate ones (amd64) give the same SVG.
func roundPt(v vg.Length) vg.Length {
	return vg.Length(math.Round(float64(v)*1000) / 1000)
}

// GlyphBoxes reserves room for the labels right of the data area.
func (r refLines) GlyphBoxes(plt *plot.Plot) []plot.GlyphBox {
	w := r.width()
	h := r.style.Height("X")
	return []plot.GlyphBox{{X: 1, Y: 0.5, Rectangle: vg.Rectangle{Min: vg.Point{X: 0, Y: -h / 2}, Max: vg.Point{X: w, Y: h / 2}}}}
}

// DataRange spans the lines' y values and no x range.
func (r refLines) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = math.Inf(1), math.Inf(-1)
	ymin, ymax = math.Inf(1), math.Inf(-1)
	for _, l := range r.lines {
		ymin, ymax = math.Min(ymin, l.Y), math.Max(ymax, l.Y)
	}
	return
}

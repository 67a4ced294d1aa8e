package figures

import (
	"math"

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
// its label in small grey type at the right end just above it; the y axis
// is widened to include the lines (with 8% of the range above the highest
// for its label), the x axis is left alone.
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
	p.Add(refLines(keep))
	av := avoidFor(p)
	for _, r := range keep {
		av.hlines = append(av.hlines, r.Y)
	}
	// Room above the highest line for its label.
	top := math.Inf(-1)
	for _, r := range keep {
		top = math.Max(top, r.Y)
	}
	if head := top + float64(0.08*(top-math.Min(p.Y.Min, top))); p.Y.Max < head {
		p.Y.Max = head
	}
}

type refLines []RefLine

func (r refLines) Plot(c draw.Canvas, plt *plot.Plot) {
	_, trY := plt.Transforms(&c)
	ls := draw.LineStyle{Color: otherGrey, Width: GridWidth * 2, Dashes: []vg.Length{vg.Points(3), vg.Points(2)}}
	sty := text.Style{Color: otherGrey, Font: font.From(Font, TickSize), XAlign: draw.XRight, YAlign: draw.YBottom, Handler: plt.Title.TextStyle.Handler}
	for _, l := range r {
		y := trY(l.Y)
		c.StrokeLine2(ls, c.Min.X, y, c.Max.X, y)
		c.FillText(sty, vg.Point{X: c.Max.X - vg.Points(2), Y: y + vg.Points(1)}, l.Label)
	}
}

// DataRange spans the lines' y values and no x range.
func (r refLines) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = math.Inf(1), math.Inf(-1)
	ymin, ymax = math.Inf(1), math.Inf(-1)
	for _, l := range r {
		ymin, ymax = math.Min(ymin, l.Y), math.Max(ymax, l.Y)
	}
	return
}

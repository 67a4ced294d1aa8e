package figures

import (
	"runtime"
	"sync"
	"weak"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Legend placement away from the data. Figures that know where their data
// lie (LinePlot, AddRefLines) record it with avoidData; Draw then puts an
// inside legend in the first corner of the data area (top left, top right,
// bottom right, bottom left) where its box touches no line, marker, band or
// reference line, and outside, to the right, when every corner does. The
// record is kept beside the plot (plot.Plot has no room for it) and dropped
// when the plot is garbage collected.

// avoidSet is what a legend must not cover, in data coordinates.
type avoidSet struct {
	lines  []plotter.XYs    // polylines (each point and segment)
	bands  [][2]plotter.XYs // upper and lower bounds at the same x, in order
	hlines []float64        // horizontal lines across the data area
	// refWidth is the room AddRefLines's labels take right of the data
	// area, where an outside legend must not go.
	refWidth vg.Length
	// bars is GroupedBars' layout, whose labels Draw turns for the
	// figure's width.
	bars   *barLayout
	series int // legend entries of series (LinePlot)
	// entries are the legend's entries as LinePlot added them, so that
	// Draw can set them in columns below the plot.
	entries []legendEntry
}

// legendEntry is one entry of a legend: its label and thumbnails.
type legendEntry struct {
	label  string
	thumbs []plot.Thumbnailer
}

// addEntry adds an entry to p's legend and records it for Draw.
func addEntry(p *plot.Plot, label string, thumbs ...plot.Thumbnailer) {
	p.Legend.Add(label, thumbs...)
	a := avoidFor(p)
	a.entries = append(a.entries, legendEntry{label, thumbs})
}

// ManySeries is the number of legend entries above which a line figure
// reads better two columns wide: an outside legend of more entries takes
// half of a one-column figure.
const ManySeries = 6

// SeriesCount returns the number of series LinePlot drew on p (with a
// legend entry each), 0 for other plots; rdeval figures widens a line
// figure past ManySeries to two columns unless its width is set.
func SeriesCount(p *plot.Plot) int {
	if a := lookupAvoid(p); a != nil {
		return a.series
	}
	return 0
}

var (
	avoidMu sync.Mutex
	avoids  = map[weak.Pointer[plot.Plot]]*avoidSet{}
)

// avoidFor returns p's record, creating it.
func avoidFor(p *plot.Plot) *avoidSet {
	avoidMu.Lock()
	defer avoidMu.Unlock()
	w := weak.Make(p)
	a := avoids[w]
	if a == nil {
		a = &avoidSet{}
		avoids[w] = a
		runtime.AddCleanup(p, func(w weak.Pointer[plot.Plot]) {
			avoidMu.Lock()
			delete(avoids, w)
			avoidMu.Unlock()
		}, w)
	}
	return a
}

func lookupAvoid(p *plot.Plot) *avoidSet {
	avoidMu.Lock()
	defer avoidMu.Unlock()
	return avoids[weak.Make(p)]
}

// placeLegend chooses the corner of the data area dc for an inside legend
// of size (w, h) (box included) that covers none of a; ok is false when
// every corner covers some.
func placeLegend(p *plot.Plot, dc draw.Canvas, a *avoidSet, w, h vg.Length) (top, left, ok bool) {
	trX, trY := p.Transforms(&dc)
	type corner struct{ top, left bool }
	for _, cn := range []corner{{true, true}, {true, false}, {false, false}, {false, true}} {
		var box vg.Rectangle
		if cn.left {
			box.Min.X = dc.Min.X + LegendInset
		} else {
			box.Min.X = dc.Max.X - LegendInset - w
		}
		if cn.top {
			box.Min.Y = dc.Max.Y - LegendInset - h
		} else {
			box.Min.Y = dc.Min.Y + LegendInset
		}
		box.Max = vg.Point{X: box.Min.X + w, Y: box.Min.Y + h}
		// A little room around the box: a marker's radius.
		m := MarkerRadius + 1
		box.Min.X, box.Min.Y, box.Max.X, box.Max.Y = box.Min.X-m, box.Min.Y-m, box.Max.X+m, box.Max.Y+m
		if !a.hits(box, trX, trY) {
			return cn.top, cn.left, true
		}
	}
	return false, false, false
}

// hits reports whether any of a falls in box (canvas coordinates).
func (a *avoidSet) hits(box vg.Rectangle, trX, trY func(float64) vg.Length) bool {
	in := func(x, y vg.Length) bool {
		return x >= box.Min.X && x <= box.Max.X && y >= box.Min.Y && y <= box.Max.Y
	}
	const steps = 24 // samples along each segment
	for _, y := range a.hlines {
		if cy := trY(y); cy >= box.Min.Y && cy <= box.Max.Y {
			return true
		}
	}
	for _, l := range a.lines {
		for i, pt := range l {
			x, y := trX(pt.X), trY(pt.Y)
			if in(x, y) {
				return true
			}
			if i == 0 {
				continue
			}
			x0, y0 := trX(l[i-1].X), trY(l[i-1].Y)
			for s := 1; s < steps; s++ {
				f := vg.Length(s) / steps
				if in(x0+(x-x0)*f, y0+(y-y0)*f) {
					return true
				}
			}
		}
	}
	for _, b := range a.bands {
		up, lo := b[0], b[1]
		for i := range up {
			if i >= len(lo) {
				break
			}
			j := max(i-1, 0)
			for s := 0; s <= steps; s++ {
				f := vg.Length(s) / steps
				x := trX(up[j].X) + (trX(up[i].X)-trX(up[j].X))*f
				hi := trY(up[j].Y) + (trY(up[i].Y)-trY(up[j].Y))*f
				lw := trY(lo[j].Y) + (trY(lo[i].Y)-trY(lo[j].Y))*f
				if lw > hi {
					lw, hi = hi, lw
				}
				if x >= box.Min.X && x <= box.Max.X && hi >= box.Min.Y && lw <= box.Max.Y {
					return true
				}
			}
		}
	}
	return false
}

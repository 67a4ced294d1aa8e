package figures

import (
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// tickLabelGap is the least gap between two x tick labels, and between a
// label and the edge of the figure, that fitXTicks keeps.
const tickLabelGap = vg.Length(3)

// fitTicks is the ticker Draw gives a plot's x axis: the axis's own
// ticker, less the labels that would run into each other: when
// neighbouring labels overlap, only every n-th label is kept, for the
// smallest n that leaves them tickLabelGap apart. Dropped labels keep
// their tick mark, as a minor tick.
type fitTicks struct {
	inner  plot.Ticker
	axis   plot.Axis
	x0, x1 vg.Length // the data area's left and right edges
}

// fitXTicks sets q's x ticker to fitTicks of orig for q drawn on area and
// returns area, narrowed where the first or last label would come closer
// than tickLabelGap to its edge (a viewer whose font is a little wider
// than Liberation Sans would cut it off: "2026-0"). Nominal axes
// (plot.ConstantTicks, the bar charts' group names) and turned labels are
// left alone: those figures turn or wrap their labels themselves.
//
// A plot without a y label gets tickLabelGap left of its y tick labels
// too, which would otherwise start at the figure's edge (the forest's and
// multiverse's term names).
func fitXTicks(q *plot.Plot, orig plot.Ticker, area draw.Canvas) draw.Canvas {
	q.X.Tick.Marker = orig
	if q.Y.Label.Text == "" && q.Y.Tick.Label.Font.Size > 0 {
		area = draw.Crop(area, tickLabelGap, 0, 0, 0)
	}
	if _, nominal := orig.(plot.ConstantTicks); nominal || orig == nil || q.X.Tick.Label.Rotation != 0 {
		return area
	}
	dc := q.DataCanvas(area)
	left, right := vg.Length(0), vg.Length(0) // how far labels come past the gap
	for _, t := range orig.Ticks(q.X.Min, q.X.Max) {
		if t.Label == "" || t.Value < q.X.Min || t.Value > q.X.Max {
			continue
		}
		x := dc.Min.X + vg.Length(q.X.Norm(t.Value))*(dc.Max.X-dc.Min.X)
		w := q.X.Tick.Label.Width(t.Label)
		left = max(left, area.Min.X+tickLabelGap-(x-w/2))
		right = max(right, x+w/2-(area.Max.X-tickLabelGap))
	}
	if left > 0 || right > 0 {
		area = draw.Crop(area, roundPt(max(left, 0)), -roundPt(max(right, 0)), 0, 0)
		dc = q.DataCanvas(area)
	}
	q.X.Tick.Marker = fitTicks{inner: orig, axis: q.X, x0: dc.Min.X, x1: dc.Max.X}
	return area
}

func (f fitTicks) Ticks(min, max float64) []plot.Tick {
	ticks := f.inner.Ticks(min, max)
	type lab struct {
		i    int
		x, w vg.Length
	}
	var labs []lab
	for i, t := range ticks {
		if t.Label == "" || t.Value < min || t.Value > max {
			continue
		}
		x := f.x0 + vg.Length(f.axis.Norm(t.Value))*(f.x1-f.x0)
		labs = append(labs, lab{i, x, f.axis.Tick.Label.Width(t.Label)})
	}
	apart := func(n int) bool {
		for j := n; j < len(labs); j += n {
			a, b := labs[j-n], labs[j]
			if b.x-a.x < (a.w+b.w)/2+tickLabelGap {
				return false
			}
		}
		return true
	}
	n := 1
	for n < len(labs) && !apart(n) {
		n++
	}
	for j, l := range labs {
		if j%n != 0 {
			ticks[l.i].Label = ""
		}
	}
	return ticks
}

// dateTicks marks a Unix-seconds axis at the first day of months: every
// month, 2, 3 or 6 months ("2006-01"), or every 1, 2, 5, 10 … years
// ("2006"), the smallest step that gives at most maxDateTicks labels, with
// minor ticks at the months (or quarters, for yearly labels) between.
type dateTicks struct{}

const maxDateTicks = 5

func (dateTicks) Ticks(min, max float64) []plot.Tick {
	lo := time.Unix(int64(min), 0).UTC()
	hi := time.Unix(int64(max), 0).UTC()
	months := func(t time.Time) int { return t.Year()*12 + int(t.Month()) - 1 }
	m0, m1 := months(lo), months(hi)
	if lo.After(time.Date(lo.Year(), lo.Month(), 1, 0, 0, 0, 0, time.UTC)) {
		m0++
	}
	steps := []int{1, 2, 3, 6, 12, 24, 60, 120, 240, 600, 1200}
	step := steps[len(steps)-1]
	for _, s := range steps {
		if (m1-m0)/s+1 <= maxDateTicks {
			step = s
			break
		}
	}
	minor := 1
	if step >= 12 {
		minor = 3 * (step / 12)
	}
	var ticks []plot.Tick
	for m := m0; m <= m1; m++ {
		if m%minor != 0 && m%step != 0 {
			continue
		}
		t := time.Date(m/12, time.Month(m%12+1), 1, 0, 0, 0, 0, time.UTC)
		tk := plot.Tick{Value: float64(t.Unix())}
		if m%step == 0 {
			if step >= 12 {
				tk.Label = t.Format("2006")
			} else {
				tk.Label = t.Format("2006-01")
			}
		}
		ticks = append(ticks, tk)
	}
	if len(ticks) < 2 {
		// Less than a month: gonum's ticks, dated.
		return plot.TimeTicks{Format: "2006-01-02", Time: plot.UTCUnixTime}.Ticks(min, max)
	}
	return ticks
}

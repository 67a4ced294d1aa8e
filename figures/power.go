package figures

import (
	"fmt"
	"math"
	"sort"

	"github.com/rdeval/rdeval/analysis"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// PowerFigure draws simulated power against runs per task, one line per
// number of tasks (in increasing order), each with a band of ±1.96
// simulation standard errors (clipped to [0, 1]), and a dashed line at
// power 0.8. The y axis spans [0, 1].
func PowerFigure(title string, cells []analysis.PowerCell) (*plot.Plot, error) {
	byTasks := map[int][]analysis.PowerCell{}
	for _, c := range cells {
		byTasks[c.Tasks] = append(byTasks[c.Tasks], c)
	}
	ns := make([]int, 0, len(byTasks))
	for n := range byTasks {
		ns = append(ns, n)
	}
	sort.Ints(ns)
	var series []Series
	for _, n := range ns {
		cs := byTasks[n]
		sort.Slice(cs, func(i, j int) bool { return cs[i].RunsPerTask < cs[j].RunsPerTask })
		s := Series{Label: fmt.Sprintf("%d tasks", n)}
		for _, c := range cs {
			s.X = append(s.X, float64(c.RunsPerTask))
			s.Y = append(s.Y, c.Power)
			s.Lo = append(s.Lo, math.Max(0, c.Power-float64(1.96*c.PowerSE)))
			s.Hi = append(s.Hi, math.Min(1, c.Power+float64(1.96*c.PowerSE)))
		}
		series = append(series, s)
	}
	p, err := LinePlot(title, "Runs per task (per agent)", "Power", series, false)
	if err != nil {
		return nil, err
	}
	p.Y.Min, p.Y.Max = 0, 1
	if len(cells) > 0 {
		xmin, xmax := math.Inf(1), math.Inf(-1)
		for _, c := range cells {
			xmin, xmax = math.Min(xmin, float64(c.RunsPerTask)), math.Max(xmax, float64(c.RunsPerTask))
		}
		if xmin == xmax {
			xmin, xmax = xmin-1, xmax+1
		}
		l, err := plotter.NewLine(plotter.XYs{{X: xmin, Y: 0.8}, {X: xmax, Y: 0.8}})
		if err != nil {
			return nil, err
		}
		l.LineStyle = draw.LineStyle{Color: otherGrey, Width: AxisWidth, Dashes: []vg.Length{vg.Points(2), vg.Points(2)}}
		p.Add(l)
		av := avoidFor(p)
		av.hlines = append(av.hlines, 0.8)
	}
	p.Legend.Top, p.Legend.Left = false, false // Draw moves it to a free corner
	return p, nil
}

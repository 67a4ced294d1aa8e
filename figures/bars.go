package figures

import (
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Bar is one bar of a grouped bar chart: a group (e.g. an agent) and a
// level within it (e.g. a hint level), with an interval (NaN: none).
type Bar struct {
	Group, Level string
	Value        float64
	Lo, Hi       float64
	// Style, when set on a level's first bar, is the level's colour (e.g.
	// the agent's in a study's StyleMap); nil: the next palette colour.
	Style *SeriesStyle
	// Partial marks a value over fewer tasks than its group's others (an
	// allocation cell short of runs): drawn open, white with a border in
	// the level's colour, with a legend entry saying so.
	Partial bool
}

// SuccessBars draws grouped bars (groups along x in input order, one colour
// per level in first-seen order) with error bars, as RExBench's success by
// agent and hint level. NaN values are drawn as missing bars.
func SuccessBars(title string, bars []Bar) (*plot.Plot, error) {
	return GroupedBars(title, "Rate", bars)
}

// GroupedBars is SuccessBars with any y label: groups along x in input
// order, one colour per level in first-seen order, an error bar where Lo
// and Hi are both finite. It draws RE-Bench Fig. 6 (score@k by allocation
// at one budget: groups agents, levels run lengths) and Fig. 9 (per task:
// groups tasks, levels agents and humans).
func GroupedBars(title, yLabel string, bars []Bar) (*plot.Plot, error) {
	p := NewPlot(title, "", yLabel)
	AddGrid(p)
	var groups, levels []string
	seenG, seenL := map[string]int{}, map[string]int{}
	levelStyle := map[string]*SeriesStyle{}
	for _, b := range bars {
		if _, ok := seenL[b.Level]; !ok {
			levelStyle[b.Level] = b.Style
		}
		if _, ok := seenG[b.Group]; !ok {
			seenG[b.Group] = len(groups)
			groups = append(groups, b.Group)
		}
		if _, ok := seenL[b.Level]; !ok {
			seenL[b.Level] = len(levels)
			levels = append(levels, b.Level)
		}
	}
	if len(groups) == 0 {
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
		return p, nil
	}
	// A group's bars take 48 pt, or less where many groups share the
	// figure (14 agents, or a one-column figure): 80% of a group's slot.
	// The slot is known when the plot is drawn (barLayout); until then it
	// is estimated as a two-column figure's width less the axis and the
	// legend.
	lay := &barLayout{levels: len(levels)}
	slot := (TwoColumn - vg.Points(180)) / vg.Length(len(groups))
	width := lay.width(slot)
	anyPartial := false
	for li, level := range levels {
		vals := make(plotter.Values, len(groups))
		open := make([]float64, len(groups))
		for i := range open {
			open[i] = math.NaN()
		}
		hasOpen := false
		var errs plotter.XYs
		var yerr [][2]float64
		for _, b := range bars {
			if b.Level != level {
				continue
			}
			gi := seenG[b.Group]
			v := b.Value
			if !finite(v) {
				v = 0
			}
			if b.Partial {
				open[gi], hasOpen = v, true
			} else {
				vals[gi] = v
			}
			if finite(b.Lo) && finite(b.Hi) && finite(b.Value) {
				errs = append(errs, plotter.XY{X: float64(gi), Y: b.Value})
				yerr = append(yerr, [2]float64{b.Lo, b.Hi})
			}
		}
		bc, err := plotter.NewBarChart(vals, width)
		if err != nil {
			return nil, err
		}
		bc.Color = Color(li + 1)
		bc.LineStyle.Width = 0
		if st := levelStyle[level]; st != nil {
			barStyle(bc, *st)
		}
		bc.Offset = width * vg.Length(float64(li)-float64(float64(len(levels)-1)/2))
		p.Add(fitBar{bc: bc, lay: lay, li: li})
		addEntry(p, level, bc)
		if hasOpen {
			anyPartial = true
			ob := &openBars{vals: open, width: width, offset: bc.Offset, lay: lay, li: li,
				style: draw.LineStyle{Color: nrgba(bc.Color), Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(1.5), vg.Points(1)}}}
			if bc.LineStyle.Width > 0 {
				ob.style.Color = bc.LineStyle.Color
			}
			p.Add(ob)
		}
		if len(errs) > 0 {
			p.Add(&errorBars{xys: errs, errs: yerr, offset: bc.Offset, capHalf: min(vg.Points(2), width*0.35), lay: lay, li: li})
		}
	}
	if anyPartial {
		addEntry(p, PartialBarLabel, openBarThumb{})
	}
	names := append([]string(nil), groups...)
	p.NominalX(names...)
	lay.names = names
	lay.turnLabels(&p.X, slot)
	avoidFor(p).bars = lay
	p.X.Min, p.X.Max = -0.5, float64(len(groups))-0.5 // half a slot of margin on each side
	LegendOutside(p)
	if p.Y.Min > 0 {
		p.Y.Min = 0
	}
	return p, nil
}

// barLayout is the width of GroupedBars' bars and the turn of its group
// names, from the width of a group's slot on the canvas, which Draw knows
// (a one-column figure's slot is half a two-column one's).
type barLayout struct {
	levels int
	names  []string // the groups
}

// width is each bar's width: the level's bars take 80% of the slot, at
// most 48 pt.
func (l *barLayout) width(slot vg.Length) vg.Length {
	return roundPt(min(vg.Points(48), slot*0.8) / vg.Length(max(1, l.levels)))
}

// offset is the canvas offset of level li's bars from the group's centre.
func (l *barLayout) offset(li int, width vg.Length) vg.Length {
	return width * vg.Length(float64(li)-float64(l.levels-1)/2)
}

// slot is the width of a group's slot on data canvas c (the x axis runs
// from half a slot before the first group to half a slot after the last).
func (l *barLayout) slot(c draw.Canvas) vg.Length {
	return (c.Max.X - c.Min.X) / vg.Length(max(1, len(l.names)))
}

// turnLabels turns a's group names when the longest would not fit its
// slot, by 30°, or 60° when turned labels of that many lines would still
// run into each other (many groups or long names: 14 agents, a
// one-column figure), and sets them straight otherwise.
func (l *barLayout) turnLabels(a *plot.Axis, slot vg.Length) {
	lines := 1
	wide := false
	for _, n := range l.names {
		lines = max(lines, strings.Count(n, "\n")+1)
		wide = wide || a.Tick.Label.Width(n) > slot*0.9
	}
	if !wide {
		a.Tick.Label.Rotation = 0
		a.Tick.Label.XAlign, a.Tick.Label.YAlign = draw.XCenter, draw.YTop
		return
	}
	a.Tick.Label.Rotation = math.Pi / 6
	a.Tick.Label.XAlign, a.Tick.Label.YAlign = draw.XRight, draw.YTop
	if h := a.Tick.Label.Height("X") * vg.Length(lines); slot*0.5 < h*1.1 {
		a.Tick.Label.Rotation = math.Pi / 3
	}
}

// fitBar draws a BarChart at the width and offset its layout gives for
// the canvas; the chart itself is left as it is.
type fitBar struct {
	bc  *plotter.BarChart
	lay *barLayout
	li  int
}

func (f fitBar) Plot(c draw.Canvas, plt *plot.Plot) {
	b := *f.bc
	b.Width = f.lay.width(f.lay.slot(c))
	b.Offset = f.lay.offset(f.li, b.Width)
	b.Plot(c, plt)
}

func (f fitBar) DataRange() (xmin, xmax, ymin, ymax float64) { return f.bc.DataRange() }

// PartialBarLabel is the legend entry of Bar.Partial bars.
const PartialBarLabel = "dashed open: fewer tasks"

// openBars draws Bar.Partial bars: a dashed outline from 0 to the value
// at group i (NaN: none), offset on the canvas as the level's BarChart.
type openBars struct {
	vals          []float64
	width, offset vg.Length
	style         draw.LineStyle
	lay           *barLayout // nil: width and offset as they are
	li            int
}

func (o *openBars) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	width, offset := o.width, o.offset
	if o.lay != nil {
		width = o.lay.width(o.lay.slot(c))
		offset = o.lay.offset(o.li, width)
	}
	for i, v := range o.vals {
		if !finite(v) {
			continue
		}
		x := trX(float64(i)) + offset
		y0, y1 := trY(0), trY(v)
		l, r := x-width/2, x+width/2
		c.StrokeLines(o.style, []vg.Point{{X: l, Y: y0}, {X: l, Y: y1}, {X: r, Y: y1}, {X: r, Y: y0}})
	}
}

// DataRange makes the open bars count in the axis ranges.
func (o *openBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax, ymin, ymax = math.Inf(1), math.Inf(-1), 0, 0
	for i, v := range o.vals {
		if finite(v) {
			xmin, xmax = math.Min(xmin, float64(i)), math.Max(xmax, float64(i))
			ymax = math.Max(ymax, v)
			ymin = math.Min(ymin, v)
		}
	}
	return
}

// openBarThumb is the legend thumbnail of partial bars.
type openBarThumb struct{}

func (openBarThumb) Thumbnail(c *draw.Canvas) {
	r := vg.Rectangle{Min: vg.Point{X: c.Min.X + 1, Y: c.Min.Y + 1}, Max: vg.Point{X: c.Max.X - 1, Y: c.Max.Y - 1}}
	c.StrokeLines(draw.LineStyle{Color: HumanColor, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(1.5), vg.Points(1)}},
		[]vg.Point{r.Min, {X: r.Min.X, Y: r.Max.Y}, r.Max, {X: r.Max.X, Y: r.Min.Y}, r.Min})
}

// barStyle gives bc the look of a series style: a solid series fills its
// bars with its colour; a dashed one (the palette's second round, e.g.
// agents 7 to 12 of a study) half-tinted with a border in the colour; a
// dotted one (third round) white with a border in the colour; so that
// bars of agents that share a colour stay apart, in print too.
func barStyle(bc *plotter.BarChart, st SeriesStyle) {
	bc.Color = st.Color
	if len(st.Dashes) == 0 {
		return
	}
	bc.LineStyle = draw.LineStyle{Color: st.Color, Width: vg.Points(0.8)}
	if st.Dashes[0] >= vg.Points(3) {
		bc.Color = tint(st.Color, 0.5)
	} else {
		bc.Color = color.NRGBA{R: 0xff, G: 0xff, B: 0xff, A: 0xff}
	}
}

// tint mixes c with white, f of the way.
func tint(c color.NRGBA, f float64) color.NRGBA {
	m := func(v uint8) uint8 { return uint8(float64(v) + (255-float64(v))*f + 0.5) }
	return color.NRGBA{R: m(c.R), G: m(c.G), B: m(c.B), A: 0xff}
}

// errorBars draws vertical intervals [lo, hi] at data x shifted by a
// canvas offset, so they sit on bars that plotter.BarChart offsets.
type errorBars struct {
	xys    plotter.XYs
	errs   [][2]float64
	offset vg.Length
	// capHalf is half the width of the caps (0: 2 pt); narrow bars get
	// narrow caps so that neighbours' caps do not touch.
	capHalf vg.Length
	color   color.Color // nil: black
	// lay, when not nil, gives offset and capHalf for the canvas, as it
	// gives level li's bars their width.
	lay *barLayout
	li  int
}

func (e *errorBars) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	ls := LineStyle(0)
	ls.Width = vg.Points(0.6)
	if e.color != nil {
		ls.Color = e.color
	}
	cap, offset := vg.Points(2), e.offset
	if e.capHalf > 0 {
		cap = e.capHalf
	}
	if e.lay != nil {
		w := e.lay.width(e.lay.slot(c))
		cap, offset = min(vg.Points(2), w*0.35), e.lay.offset(e.li, w)
	}
	for i, pt := range e.xys {
		x := trX(pt.X) + offset
		lo, hi := trY(e.errs[i][0]), trY(e.errs[i][1])
		c.StrokeLine2(ls, x, lo, x, hi)
		c.StrokeLine2(ls, x-cap, lo, x+cap, lo)
		c.StrokeLine2(ls, x-cap, hi, x+cap, hi)
	}
}

// DataRange makes the intervals count in the axis ranges.
func (e *errorBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for i, pt := range e.xys {
		xmin, xmax = math.Min(xmin, pt.X), math.Max(xmax, pt.X)
		ymin, ymax = math.Min(ymin, e.errs[i][0]), math.Max(ymax, e.errs[i][1])
	}
	return
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// RotateXLabels turns the x tick labels by 30°, anchored at their right
// end under the tick, so that long group names (task ids in RE-Bench Fig.
// 9) do not run into each other.
func RotateXLabels(p *plot.Plot) {
	p.X.Tick.Label.Rotation = math.Pi / 6
	p.X.Tick.Label.XAlign = draw.XRight
	p.X.Tick.Label.YAlign = draw.YTop
}

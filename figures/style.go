package figures

import (
	"fmt"
	"image/color"
	"math"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Palette is the Okabe–Ito colour-blind-safe palette without its yellow,
// in the order given by its authors: black, orange, sky blue, bluish green,
// blue, vermillion and reddish purple. The colours stay distinguishable
// under the common forms of colour-vision deficiency (protanopia,
// deuteranopia and tritanopia). Yellow (#F0E442) is left out because it
// vanishes on white paper and in greyscale print.
//
// Reference: M. Okabe and K. Ito (2008), "Color Universal Design (CUD):
// How to make figures and presentations that are friendly to colorblind
// people", https://jfly.uni-koeln.de/color/.
//
// Palette must not be modified; use Color to pick from it.
var Palette = []color.NRGBA{
	{R: 0x00, G: 0x00, B: 0x00, A: 0xff}, // black #000000
	{R: 0xe6, G: 0x9f, B: 0x00, A: 0xff}, // orange #E69F00
	{R: 0x56, G: 0xb4, B: 0xe9, A: 0xff}, // sky blue #56B4E9
	{R: 0x00, G: 0x9e, B: 0x73, A: 0xff}, // bluish green #009E73
	{R: 0x00, G: 0x72, B: 0xb2, A: 0xff}, // blue #0072B2
	{R: 0xd5, G: 0x5e, B: 0x00, A: 0xff}, // vermillion #D55E00
	{R: 0xcc, G: 0x79, B: 0xa7, A: 0xff}, // reddish purple #CC79A7
}

// HumanColor is the colour of human baselines in every figure: a dark grey
// that reads as "reference" in colour, in greyscale and in print, apart
// from the agents' palette colours.
var HumanColor = color.NRGBA{R: 0x44, G: 0x44, B: 0x44, A: 0xff}

// SeriesStyle is the colour and dash pattern of one series (an agent).
type SeriesStyle struct {
	Color  color.NRGBA
	Dashes []vg.Length // nil: solid
}

// Line returns the house line style of s.
func (s SeriesStyle) Line() draw.LineStyle {
	return draw.LineStyle{Color: s.Color, Width: LineWidth, Dashes: s.Dashes}
}

// StyleMap gives each name (an agent) one style in every figure of a
// study, so that an agent keeps its colour from figure to figure whatever
// subset a figure draws.
type StyleMap map[string]SeriesStyle

// NewStyleMap assigns styles from the study's names: human names
// (isHuman) get HumanColor, solid; the others, in sorted order, get
// LineStyle(1), LineStyle(2), … (the palette after black, then dashed,
// then dotted), so the map depends only on the set of names.
func NewStyleMap(names []string, isHuman func(string) bool) StyleMap {
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	m := StyleMap{}
	slot := 0
	for _, n := range sorted {
		if _, ok := m[n]; ok {
			continue
		}
		if isHuman != nil && isHuman(n) {
			m[n] = SeriesStyle{Color: HumanColor}
			continue
		}
		slot++
		// Slot len(Palette) would be black again (solid-dashed): skip
		// black, which is the human's and the error bars' colour.
		if slot%len(Palette) == 0 {
			slot++
		}
		ls := LineStyle(slot)
		m[n] = SeriesStyle{Color: nrgba(ls.Color), Dashes: ls.Dashes}
	}
	return m
}

// Get returns the style of name, or nil when the map does not have it
// (the figure then picks the next palette colour).
func (m StyleMap) Get(name string) *SeriesStyle {
	s, ok := m[name]
	if !ok {
		return nil
	}
	return &s
}

// ParseHexColor reads "#RRGGBB" (or "RRGGBB").
func ParseHexColor(s string) (color.NRGBA, error) {
	h := strings.TrimPrefix(s, "#")
	v, err := strconv.ParseUint(h, 16, 32)
	if len(h) != 6 || err != nil {
		return color.NRGBA{}, fmt.Errorf("colour %q: want #RRGGBB", s)
	}
	return color.NRGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 0xff}, nil
}

// Color returns the i-th colour of Palette, cycling through it so that any
// i, including a negative one, gives a colour.
func Color(i int) color.NRGBA {
	n := len(Palette)
	return Palette[((i%n)+n)%n]
}

// BandAlpha is the alpha of the colours returned by Band.
const BandAlpha = 0x40

// Band returns c with its alpha set to BandAlpha (25% opaque), the fill used
// for confidence-interval bands drawn under the line of the same colour.
// The colour channels are kept as they are, since color.NRGBA is not
// alpha-premultiplied.
func Band(c color.NRGBA) color.NRGBA {
	c.A = BandAlpha
	return c
}

// Figure widths, for the two column layouts of a paper. They are the widths
// to pass to Save and SaveFile; use Height for the matching height.
const (
	// OneColumn is the width of a figure that fits one column of a
	// two-column paper.
	OneColumn = 3.3 * vg.Inch

	// TwoColumn is the width of a figure that spans both columns of a
	// two-column paper.
	TwoColumn = 6.9 * vg.Inch
)

// Aspect is the house ratio of height to width of a figure, close to the
// inverse of the golden ratio.
const Aspect = 0.62

// Height returns the house height, Aspect × w, of a figure of width w.
func Height(w vg.Length) vg.Length {
	return w * Aspect
}

// Font sizes of the house style. A vg.Length counts PostScript points.
const (
	TitleSize  vg.Length = 9 // TitleSize is the size of plot titles, 9 pt.
	LabelSize  vg.Length = 8 // LabelSize is the size of axis labels, 8 pt.
	TickSize   vg.Length = 7 // TickSize is the size of tick labels, 7 pt.
	LegendSize vg.Length = 7 // LegendSize is the size of legend entries, 7 pt.
)

// Font is the typeface of all text in the house style: Liberation Sans,
// which gonum/plot embeds (from codeberg.org/go-fonts/liberation) and which
// has the metrics of Arial/Helvetica, so every machine measures and draws
// text the same way.
var Font = font.Font{Typeface: "Liberation", Variant: "Sans"}

// Line widths of the house style, in points.
const (
	// LineWidth is the width of data lines.
	LineWidth = vg.Length(1.0)

	// AxisWidth is the width of axis lines and tick marks.
	AxisWidth = vg.Length(0.5)

	// GridWidth is the width of grid lines drawn by AddGrid.
	GridWidth = vg.Length(0.35)
)

// GridColor is the colour of grid lines drawn by AddGrid: a light grey that
// stays behind the data.
var GridColor = color.Gray{Y: 0xdd}

// LegendBackground is the fill behind a legend drawn inside the data area:
// white at 80% opacity, so lines that pass under the legend stay faintly
// visible but do not compete with its text.
var LegendBackground = color.NRGBA{R: 0xff, G: 0xff, B: 0xff, A: 0xcc}

// Legend geometry of the house style, in points.
const (
	// LegendInset is the gap between a legend drawn inside the data area
	// and the edges of that area.
	LegendInset = vg.Length(3)

	// LegendPadding is the gap between the edge of the legend background
	// and the legend entries.
	LegendPadding = vg.Length(2)

	// LegendGap is the gap between the data area and a legend placed
	// outside it by LegendOutside.
	LegendGap = vg.Length(6)

	// thumbnailWidth is the width of the legend thumbnails.
	thumbnailWidth = vg.Length(14)

	// legendEntryGap is the gap between legend entries, which keeps
	// filled thumbnails (CI bands) of adjacent entries apart.
	legendEntryGap = vg.Length(1.5)
)

// NewPlot returns a plot in the house style, with the given title and axis
// labels; an empty title leaves no room for one, as in gonum/plot.
//
// The style sets Liberation Sans at TitleSize, LabelSize, TickSize and
// LegendSize, thin axes with short tick marks, and a legend drawn inside
// the data area at its top-left corner over LegendBackground. The legend is
// laid out by Draw (and so by Save and SaveFile), not by plot.Plot.Draw;
// see Draw for how it reads p.Legend. Call AddGrid first if the plot should
// have a grid, so that the grid is drawn under the data.
func NewPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()

	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(Font, TitleSize)
	p.Title.Padding = vg.Length(3)

	styleAxis(&p.X, xLabel)
	styleAxis(&p.Y, yLabel)

	p.Legend.TextStyle.Font = font.From(Font, LegendSize)
	p.Legend.ThumbnailWidth = thumbnailWidth
	p.Legend.Padding = legendEntryGap
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.XOffs = 0
	p.Legend.YOffs = 0

	return p
}

// styleAxis applies the house style to a.
func styleAxis(a *plot.Axis, label string) {
	a.Label.Text = label
	a.Label.TextStyle.Font = font.From(Font, LabelSize)
	a.Label.Padding = vg.Length(2)
	a.Tick.Label.Font = font.From(Font, TickSize)
	a.LineStyle.Width = AxisWidth
	a.Tick.LineStyle.Width = AxisWidth
	a.Tick.Length = vg.Length(3)
	a.Padding = vg.Length(2)
}

// LineStyle returns the house style of the line of the i-th series: the
// colour Color(i) at LineWidth, solid for the first len(Palette) series,
// dashed for the next len(Palette) and dotted after that, so that series
// whose colours repeat stay apart.
func LineStyle(i int) draw.LineStyle {
	ls := draw.LineStyle{Color: Color(i), Width: LineWidth}
	switch {
	case i >= 2*len(Palette):
		ls.Dashes = []vg.Length{vg.Points(1), vg.Points(1.5)}
	case i >= len(Palette):
		ls.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
	}
	return ls
}

// AddGrid adds light grey grid lines at the major ticks of both axes of p.
// Call it before adding data so that the grid is drawn underneath.
func AddGrid(p *plot.Plot) {
	g := plotter.NewGrid()
	g.Vertical = draw.LineStyle{Color: GridColor, Width: GridWidth}
	g.Horizontal = draw.LineStyle{Color: GridColor, Width: GridWidth}
	p.Add(g)
}

// LegendOutside moves the legend of p out of the data area, to its right
// and aligned with its top; Draw narrows the data area to make room for it.
// It sets p.Legend.Left to false and p.Legend.XOffs to LegendGap, which is
// how Draw recognises an outside legend.
func LegendOutside(p *plot.Plot) {
	p.Legend.Top = true
	p.Legend.Left = false
	p.Legend.XOffs = LegendGap
	p.Legend.YOffs = 0
}

// isOutside reports whether Draw places l outside the data area.
func isOutside(l *plot.Legend) bool {
	return !l.Left && l.XOffs > 0
}

// Draw draws p to c in the house style. Save and SaveFile draw through it,
// and later figures that tile several plots on one canvas should too.
//
// Draw does what p.Draw does, except that it lays out the legend itself,
// because gonum/plot draws its legend without a background and anchors it
// to the axes rather than to the data area. Draw reads p.Legend this way:
//
//   - If p.Legend.Left is false and p.Legend.XOffs is positive (as set by
//     LegendOutside), the legend is drawn outside the data area, XOffs to
//     the right of it, icons first, aligned with its top (Top true) or
//     bottom; the plot is narrowed to make room and no background is drawn.
//   - Otherwise the legend is drawn inside the data area, LegendInset from
//     the corner chosen by Top and Left, moved by XOffs and YOffs, over a
//     LegendBackground box; it is drawn after all plotters so that it is on
//     top of the data.
//   - Except for plots whose data was recorded (LinePlot, AddRefLines): their
//     inside legend goes to the first corner (top left, top right, bottom
//     right, bottom left) where it covers no line, marker, band or reference
//     line, and outside, as above, when there is none; a LinePlot's legend
//     that would take more than a third of the width there is set in
//     columns below the plot instead (drawLegendBelow).
//
// Draw does not modify p: it draws a shallow copy of it.
func Draw(p *plot.Plot, c draw.Canvas) {
	q := *p
	// A legend without entries draws nothing; p.Legend keeps the entries.
	q.Legend = plot.NewLegend()
	leg := p.Legend
	xTicks := p.X.Tick.Marker

	size := legendSize(&leg)
	if a := lookupAvoid(p); a != nil && a.bars != nil {
		// Turn the group names for this width, the data area measured
		// less an outside legend.
		area := c
		if isOutside(&leg) && 3*(leg.XOffs+size.X+LegendPadding) <= c.Size().X {
			area = draw.Crop(c, 0, -(leg.XOffs + size.X + LegendPadding), 0, 0)
		}
		a.bars.turnLabels(&q.X, a.bars.slot(q.DataCanvas(area)))
	}
	if size.X <= 0 || size.Y <= 0 {
		q.Draw(fitXTicks(&q, xTicks, c))
		return
	}

	descent := leg.TextStyle.FontExtents().Descent
	if a := lookupAvoid(p); a != nil && !isOutside(&leg) {
		top, left, ok := placeLegend(&q, q.DataCanvas(c), a, size.X+2*LegendPadding, size.Y+2*LegendPadding)
		switch {
		case ok:
			leg.Top, leg.Left = top, left
			leg.XOffs, leg.YOffs = 0, 0
		case len(a.entries) > 0 && 3*(LegendGap+size.X+LegendPadding) > c.Size().X:
			drawLegendBelow(&q, xTicks, &leg, a.entries, c)
			return
		default:
			leg.Top, leg.Left = true, false
			leg.XOffs, leg.YOffs = LegendGap, 0
		}
	}
	if isOutside(&leg) {
		// LegendPadding keeps the text off the right edge of c.
		room := leg.XOffs + size.X + LegendPadding
		// A legend that would take more than a third of the width (a
		// one-column figure, long names) goes below the plot instead.
		if a := lookupAvoid(p); a != nil && len(a.entries) > 0 && 3*(room+a.refWidth) > c.Size().X {
			drawLegendBelow(&q, xTicks, &leg, a.entries, c)
			return
		}
		area := draw.Crop(c, 0, -room, 0, 0)
		area = fitXTicks(&q, xTicks, area)
		q.Draw(area)
		dc := q.DataCanvas(area)
		// Reference-line labels sit right of the data area: the legend
		// goes right of them.
		if a := lookupAvoid(p); a != nil {
			dc.Max.X += a.refWidth
		}
		// Legend.Draw puts a top-anchored legend one font descent below the
		// top of its canvas; raise the canvas so the first entry lines up
		// with the top of the data area.
		lc := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: dc.Max.X + leg.XOffs, Y: dc.Min.Y},
			Max: vg.Point{X: dc.Max.X + leg.XOffs + size.X, Y: dc.Max.Y + descent},
		}}
		// Icons on the left and text after them read best beside a plot.
		leg.Left = true
		leg.XOffs, leg.YOffs = 0, 0
		leg.Draw(lc)
		return
	}

	area := fitXTicks(&q, xTicks, c)
	q.Draw(area)
	dc := q.DataCanvas(area)

	// The box holds the entries plus LegendPadding all round.
	w := size.X + 2*LegendPadding
	h := size.Y + 2*LegendPadding
	var box vg.Rectangle
	if leg.Left {
		box.Min.X = dc.Min.X + LegendInset
	} else {
		box.Min.X = dc.Max.X - LegendInset - w
	}
	if leg.Top {
		box.Min.Y = dc.Max.Y - LegendInset - h
	} else {
		box.Min.Y = dc.Min.Y + LegendInset
	}
	box.Min.X += leg.XOffs
	box.Min.Y += leg.YOffs
	box.Max = vg.Point{X: box.Min.X + w, Y: box.Min.Y + h}

	c.SetColor(LegendBackground)
	c.Fill(box.Path())

	inner := vg.Rectangle{
		Min: vg.Point{X: box.Min.X + LegendPadding, Y: box.Min.Y + LegendPadding},
		Max: vg.Point{X: box.Max.X - LegendPadding, Y: box.Max.Y - LegendPadding},
	}
	if leg.Top {
		// Legend.Draw starts a top-anchored legend one font descent below
		// the top of its canvas; raise the canvas by as much so the
		// padding is the same above and below the entries.
		inner.Max.Y += descent
	}
	leg.XOffs, leg.YOffs = 0, 0
	leg.Draw(draw.Canvas{Canvas: c.Canvas, Rectangle: inner})
}

// drawLegendBelow draws q with the legend entries set in columns under it,
// filled column by column, as many columns as fit between the left edge
// of the data area and the right edge of c, LegendGap apart and below the
// x axis: a legend that would take more than a third of the width to the
// right of the data leaves the data the whole width instead.
func drawLegendBelow(q *plot.Plot, xTicks plot.Ticker, style *plot.Legend, entries []legendEntry, c draw.Canvas) {
	column := func(es []legendEntry) *plot.Legend {
		l := plot.NewLegend()
		l.TextStyle, l.ThumbnailWidth, l.Padding = style.TextStyle, style.ThumbnailWidth, style.Padding
		l.Top, l.Left = true, true
		for _, e := range es {
			l.Add(e.label, e.thumbs...)
		}
		return &l
	}
	width := legendSize(column(entries)).X // the widest entry
	descent := style.TextStyle.FontExtents().Descent
	// The columns start at the data area's left edge; measure it on the
	// canvas less a first guess of the legend's height (one row).
	one := legendSize(column(entries[:1])).Y
	dc := q.DataCanvas(draw.Crop(c, 0, 0, one+LegendGap, 0))
	avail := c.Max.X - dc.Min.X - LegendPadding
	ncols := max(1, min(len(entries), int((avail+LegendGap)/(width+LegendGap))))
	nrows := (len(entries) + ncols - 1) / ncols
	ncols = (len(entries) + nrows - 1) / nrows // as few columns as the rows need
	var cols []*plot.Legend
	height := vg.Length(0)
	for i := 0; i < len(entries); i += nrows {
		l := column(entries[i:min(i+nrows, len(entries))])
		cols = append(cols, l)
		height = max(height, legendSize(l).Y)
	}
	area := draw.Crop(c, 0, 0, height+LegendGap, 0)
	area = fitXTicks(q, xTicks, area)
	q.Draw(area)
	dc = q.DataCanvas(area)
	x := dc.Min.X
	for _, l := range cols {
		// Legend.Draw puts a top-anchored legend one font descent below
		// the top of its canvas: raise the canvas by as much.
		l.Draw(draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: x, Y: c.Min.Y},
			Max: vg.Point{X: x + width, Y: c.Min.Y + height + descent},
		}})
		x += width + LegendGap
	}
}

// legendSize returns the width and height of the entries of l, as
// plot.Legend.Rectangle measures them; it is zero when l has no entries.
func legendSize(l *plot.Legend) vg.Point {
	return l.Rectangle(draw.Canvas{}).Size()
}

// Log2Ticks is a plot.Ticker for axes on a log2 scale, such as the number
// of attempts k in score@k. It returns a major, labelled tick at every
// power of two in [min, max], 2^-1 and below included (labelled "0.5",
// "0.25", …) and no minor ticks. Labels are exact decimals: "1", "2", "4",
// …, "128", "1024".
//
// When fewer than two powers of two lie in [min, max], Log2Ticks returns
// the powers of two just outside the range that bracket it, so that the
// axis still has labelled ticks when its AutoRescale is set (gonum/plot
// does not draw ticks outside the axis range).
//
// Ticks panics if min or max is not positive, as plot.LogTicks does: a log
// axis has no place for them.
type Log2Ticks struct{}

var _ plot.Ticker = Log2Ticks{}

// Ticks returns the ticks of Log2Ticks in [min, max].
func (Log2Ticks) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max > 0) || math.IsInf(min, 0) || math.IsInf(max, 0) {
		panic(fmt.Sprintf("figures: log2 ticks need a finite positive range, got [%v, %v]", min, max))
	}
	if min > max {
		min, max = max, min
	}
	// math.Log2 is exact at powers of two, so a range end on a power of
	// two gets its tick.
	lo := int(math.Ceil(math.Log2(min)))
	hi := int(math.Floor(math.Log2(max)))
	if hi-lo < 1 {
		lo = int(math.Floor(math.Log2(min)))
		hi = int(math.Ceil(math.Log2(max)))
		if hi == lo {
			hi++
		}
	}
	ticks := make([]plot.Tick, 0, hi-lo+1)
	for e := lo; e <= hi; e++ {
		v := math.Ldexp(1, e)
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)})
	}
	return ticks
}

// UseLog2X puts the X axis of p on a log scale with Log2Ticks. All x values
// of the plot must then be positive.
func UseLog2X(p *plot.Plot) {
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = Log2Ticks{}
}

// displayWords are the words of RE-Bench task ids with a spelling of
// their own.
var displayWords = map[string]string{"llm": "LLM", "mlm": "MLM", "rl": "RL", "nanogpt": "NanoGPT", "mlp": "MLP", "gpt": "GPT"}

// displayNames are default display names of RExBench's hint levels.
var displayNames = map[string]string{"no_hints": "No hints", "hints": "Hints", "detailed_hints": "Detailed hints"}

// DisplayName is the default display name of an id drawn in a figure: a
// RE-Bench task id "ai_rd_fix_embedding/main" becomes "Fix embedding"
// (prefix and "/main" dropped, underscores as spaces, first letter
// capital, LLM, MLM, RL and NanoGPT spelt so), RExBench's hint levels
// no_hints, hints, detailed_hints read "No hints", "Hints", "Detailed
// hints"; anything else is returned as it is.
func DisplayName(id string) string {
	if n, ok := displayNames[id]; ok {
		return n
	}
	rest, ok := strings.CutPrefix(id, "ai_rd_")
	if !ok {
		return id
	}
	rest = strings.TrimSuffix(rest, "/main")
	words := strings.FieldsFunc(rest, func(r rune) bool { return r == '_' })
	if len(words) == 0 {
		return id
	}
	for i, w := range words {
		if a, ok := displayWords[w]; ok {
			words[i] = a
		} else if i == 0 {
			words[i] = strings.ToUpper(w[:1]) + w[1:]
		}
	}
	return strings.Join(words, " ")
}

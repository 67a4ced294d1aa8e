package figures

import (
	"bytes"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rdeval/rdeval/analysis"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// svgText is one <text> of an SVG written by Save: its anchor (x of its
// left end, y of its baseline, y up) and its string.
type svgText struct {
	x, y float64
	s    string
}

func svgTexts(t *testing.T, p *plot.Plot, w, h vg.Length) []svgText {
	t.Helper()
	var buf bytes.Buffer
	if err := Save(p, w, h, "svg", &buf); err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`<text x="([-0-9.e]+)" y="([-0-9.e]+)"[^>]*>([^<]*)</text>`)
	var out []svgText
	for _, m := range re.FindAllStringSubmatch(buf.String(), -1) {
		x, _ := strconv.ParseFloat(m[1], 64)
		y, _ := strconv.ParseFloat(m[2], 64)
		out = append(out, svgText{x, -y, m[3]})
	}
	return out
}

func tickFont() text.Style {
	return text.Style{Font: font.From(Font, TickSize), Handler: plot.New().Title.TextStyle.Handler}
}

// TestDateTicks: labels at first days of months or years, the smallest
// step giving at most maxDateTicks labels.
func TestDateTicks(t *testing.T) {
	u := func(s string) float64 { return float64(day(s).Unix()) }
	for _, c := range []struct {
		from, to string
		want     []string
	}{
		{"2023-10-10", "2026-04-20", []string{"2024-01", "2024-07", "2025-01", "2025-07", "2026-01"}},
		{"2023-01-10", "2026-04-20", []string{"2024", "2025", "2026"}},
		{"2024-01-01", "2024-05-10", []string{"2024-01", "2024-02", "2024-03", "2024-04", "2024-05"}},
		{"2024-01-15", "2024-12-31", []string{"2024-04", "2024-07", "2024-10"}},
		{"2010-03-01", "2030-01-01", []string{"2015", "2020", "2025", "2030"}},
	} {
		var got []string
		for _, tk := range (dateTicks{}).Ticks(u(c.from), u(c.to)) {
			if tk.Value < u(c.from) || tk.Value > u(c.to) {
				t.Errorf("%s–%s: tick %v outside the range", c.from, c.to, time.Unix(int64(tk.Value), 0).UTC())
			}
			if tm := time.Unix(int64(tk.Value), 0).UTC(); tm.Day() != 1 || tm.Hour() != 0 {
				t.Errorf("%s–%s: tick at %v, not a first of the month", c.from, c.to, tm)
			}
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("%s–%s: labels %q, want %q", c.from, c.to, got, c.want)
		}
	}
	// Under a month: dated labels, still at least two.
	if n := len((dateTicks{}).Ticks(u("2024-03-03"), u("2024-03-20"))); n < 2 {
		t.Errorf("a fortnight: %d ticks", n)
	}
}

// TestFitTicksApart: log2 labels 1…1024 on an axis too short for all of
// them keep every n-th label, at least tickLabelGap apart; on a long axis
// they all stay.
func TestFitTicksApart(t *testing.T) {
	p := NewPlot("", "x", "y")
	UseLog2X(p)
	p.X.Min, p.X.Max = 1, 1024
	sty := p.X.Tick.Label
	for _, c := range []struct {
		length   vg.Length
		wantKept int
	}{{60, 0}, {600, 11}} {
		f := fitTicks{inner: Log2Ticks{}, axis: p.X, x0: 0, x1: c.length}
		var xs []vg.Length
		var labels []string
		for _, tk := range f.Ticks(p.X.Min, p.X.Max) {
			if tk.Label != "" {
				xs = append(xs, vg.Length(p.X.Norm(tk.Value))*c.length)
				labels = append(labels, tk.Label)
			}
		}
		if c.wantKept > 0 && len(labels) != c.wantKept {
			t.Errorf("length %v: kept %q, want all %d", c.length, labels, c.wantKept)
		}
		if len(labels) < 2 || labels[0] != "1" {
			t.Errorf("length %v: kept %q, want the first and at least one more", c.length, labels)
		}
		for i := 1; i < len(xs); i++ {
			if gap := xs[i] - xs[i-1] - (sty.Width(labels[i])+sty.Width(labels[i-1]))/2; gap < tickLabelGap {
				t.Errorf("length %v: %q and %q %.2f pt apart", c.length, labels[i-1], labels[i], gap)
			}
		}
	}
}

// TestXTickLabelsInsideFigure (issue 24: "2026-0…"): at both widths the
// horizon trend's x tick labels stay tickLabelGap inside the figure and
// apart, and each label of a point stays inside the figure and overlaps
// no other (one column, long names: "react model-p" ran into
// "react model-q", "react model-t" past the right edge).
func TestXTickLabelsInsideFigure(t *testing.T) {
	var points []HorizonPoint
	for i, d := range []string{"2023-11-01", "2024-05-01", "2024-11-01", "2025-05-01", "2025-11-01"} {
		m := 3 * math.Pow(2, float64(i))
		points = append(points, HorizonPoint{Label: "react model-" + string(rune('p'+i)), Release: day(d), Minutes: m, Lo: m / 2, Hi: m * 2, Frontier: true})
	}
	points[1].Minutes = 3.2 // beside model-p
	slope := math.Ln2 / 200
	trend := &Trend{Slope: slope, Intercept: math.Log(3) - slope*float64(day("2023-11-01").Unix())/86400}
	sty := tickFont()
	for _, w := range []vg.Length{OneColumn, TwoColumn} {
		p, err := HorizonTrendFigure("50% time horizon", "p50", points, trend)
		if err != nil {
			t.Fatal(err)
		}
		texts := svgTexts(t, p, w, Height(w))
		var boxes []vg.Rectangle
		var tickX []float64
		for _, tx := range texts {
			tw := float64(sty.Width(tx.s))
			if strings.HasPrefix(tx.s, "react") {
				h := sty.Height(tx.s)
				b := vg.Rectangle{Min: vg.Point{X: vg.Length(tx.x), Y: vg.Length(tx.y)}, Max: vg.Point{X: vg.Length(tx.x + tw), Y: vg.Length(tx.y) + h}}
				if b.Min.X < 0 || float64(b.Max.X) > w.Points() {
					t.Errorf("width %v: label %q spans x %.1f–%.1f, past the figure", w, tx.s, b.Min.X, b.Max.X)
				}
				for _, o := range boxes {
					if b.Min.X < o.Max.X && o.Min.X < b.Max.X && b.Min.Y < o.Max.Y && o.Min.Y < b.Max.Y {
						t.Errorf("width %v: label %q overlaps another", w, tx.s)
					}
				}
				boxes = append(boxes, b)
			}
			if _, err := strconv.Atoi(tx.s); err == nil && len(tx.s) == 4 { // a year
				if tx.x < float64(tickLabelGap)-0.01 || tx.x+tw > w.Points()-float64(tickLabelGap)+0.01 {
					t.Errorf("width %v: tick label %q spans x %.1f–%.1f of %.1f", w, tx.s, tx.x, tx.x+tw, w.Points())
				}
				tickX = append(tickX, tx.x)
			}
		}
		if len(boxes) != len(points) || len(tickX) < 2 {
			t.Errorf("width %v: %d point labels, %d year labels in %v", w, len(boxes), len(tickX), texts)
		}
	}
}

// TestFitXTicksEdge: a last label that would touch the figure's edge
// narrows the area by as much as it comes past tickLabelGap.
func TestFitXTicksEdge(t *testing.T) {
	p := NewPlot("", "x", "y")
	p.X.Min, p.X.Max = 0, 100
	p.X.Tick.Marker = plot.ConstantTicks{{Value: 0, Label: "0"}, {Value: 100, Label: "100 long label"}}
	q := *p
	area := draw.Canvas{Canvas: nil, Rectangle: vg.Rectangle{Max: vg.Point{X: 200, Y: 120}}}
	// ConstantTicks are a nominal axis: left alone.
	if got := fitXTicks(&q, p.X.Tick.Marker, area); got.Rectangle != area.Rectangle {
		t.Errorf("nominal axis: area %v, want %v", got.Rectangle, area.Rectangle)
	}
	p.X.Tick.Marker = tickerFunc(func(min, max float64) []plot.Tick {
		return plot.ConstantTicks{{Value: 0, Label: "0"}, {Value: 100, Label: "100 long label"}}.Ticks(min, max)
	})
	q = *p
	got := fitXTicks(&q, p.X.Tick.Marker, area)
	dc := q.DataCanvas(got)
	w := p.X.Tick.Label.Width("100 long label")
	if right := dc.Max.X + w/2; right > area.Max.X-tickLabelGap+0.01 {
		t.Errorf("last label ends at %.2f, want ≤ %.2f", right, area.Max.X-tickLabelGap)
	}
	if _, ok := q.X.Tick.Marker.(fitTicks); !ok {
		t.Errorf("x ticker %T, want fitTicks", q.X.Tick.Marker)
	}
}

type tickerFunc func(min, max float64) []plot.Tick

func (f tickerFunc) Ticks(min, max float64) []plot.Tick { return f(min, max) }

// TestRefLabelsOffData (issue 24: "human p10" over the agents' lines): a
// line that ends on a reference line at the right edge; every label lies
// right of the data area's last point and the labels do not overlap.
func TestRefLabelsOffData(t *testing.T) {
	p, err := ScoreAtKFigure("score@k", []ScoreAtKGroup{{Label: "agent", Points: []analysis.ScoreAtKPoint{
		pt(1, 0.2, 0.1, 0.3), pt(2, 0.3, 0.2, 0.4), pt(4, 0.45, 0.4, 0.5)}}})
	if err != nil {
		t.Fatal(err)
	}
	AddRefLines(p, []RefLine{{"human p10", 0.45}, {"human p30", 0.46}, {"human p50", 0.47}, {"human p90", 0.9}})
	texts := svgTexts(t, p, OneColumn, Height(OneColumn))
	last := math.Inf(-1) // the x tick "4", centred on the last point
	sty := tickFont()
	for _, tx := range texts {
		if tx.s == "4" {
			last = tx.x + float64(sty.Width("4"))/2
		}
	}
	var ys []float64
	for _, tx := range texts {
		if !strings.HasPrefix(tx.s, "human") {
			continue
		}
		if tx.x <= last+float64(MarkerRadius) {
			t.Errorf("%q starts at x %.1f, over the data (last point at %.1f)", tx.s, tx.x, last)
		}
		if end := tx.x + float64(sty.Width(tx.s)); end > OneColumn.Points() {
			t.Errorf("%q ends at x %.1f, past the figure", tx.s, end)
		}
		ys = append(ys, tx.y)
	}
	if len(ys) != 4 || math.IsInf(last, 0) {
		t.Fatalf("labels at %v, last tick at %v in %v", ys, last, texts)
	}
	h := float64(sty.Height("X"))
	for i := range ys {
		for j := range i {
			if math.Abs(ys[i]-ys[j]) < h-0.01 {
				t.Errorf("labels %d and %d %.2f pt apart, under a label's height %.2f", j, i, math.Abs(ys[i]-ys[j]), h)
			}
		}
	}
}

// TestSpreadLabels: labels that touch are moved apart around their mean,
// others stay; order is kept.
func TestSpreadLabels(t *testing.T) {
	for _, c := range []struct{ in, want []vg.Length }{
		{[]vg.Length{10, 50, 100}, []vg.Length{10, 50, 100}},
		{[]vg.Length{50, 52, 100}, []vg.Length{47, 55, 100}},
		{[]vg.Length{52, 50, 51}, []vg.Length{59, 43, 51}},
		{[]vg.Length{0, 6, 30, 31}, []vg.Length{-1, 7, 26.5, 34.5}},
		{nil, nil},
	} {
		got := spreadLabels(c.in, 8)
		if len(got) != len(c.want) {
			t.Fatalf("%v: got %v", c.in, got)
		}
		for i := range got {
			if math.Abs(float64(got[i]-c.want[i])) > 1e-9 {
				t.Errorf("%v: got %v, want %v", c.in, got, c.want)
				break
			}
		}
	}
}

// TestOutsideLegendBelowWhenNarrow: a logistic figure's outside legend of
// long names takes more than a third of a one-column figure and goes
// below the x axis; two columns wide it stays right of the data.
func TestOutsideLegendBelowWhenNarrow(t *testing.T) {
	var curves []LogisticCurve
	for i, name := range []string{"react model-p long", "react model-q long", "react model-r long"} {
		curves = append(curves, LogisticCurve{Label: name, Intercept: 2 - float64(i), Slope: -0.5, XMin: 1, XMax: 512})
	}
	for _, c := range []struct {
		w     vg.Length
		below bool
	}{{OneColumn, true}, {TwoColumn, false}} {
		p, err := LogisticFigure("Success", "Human time (minutes)", "Success probability", curves, true)
		if err != nil {
			t.Fatal(err)
		}
		pos := map[string]svgText{}
		for _, tx := range svgTexts(t, p, c.w, Height(c.w)) {
			pos[tx.s] = tx
		}
		axis, ok := pos["Human time (minutes)"]
		if !ok {
			t.Fatalf("no x-axis label")
		}
		for _, cv := range curves {
			e := pos[cv.Label]
			if below := e.y < axis.y; below != c.below {
				t.Errorf("width %v: %q at %v, below the axis label (y %v): %v, want %v", c.w, cv.Label, e, axis.y, below, c.below)
			}
		}
	}
}

// TestGroupedBarsFitWidth (issue 24): six groups of three bars drawn one
// column wide; the bars used to keep their two-column width and ran into
// the next group's. No two bars overlap, at either width, and the group
// names are turned one column wide and straight two columns wide.
func TestGroupedBarsFitWidth(t *testing.T) {
	var bars []Bar
	for _, g := range []string{"aider\nmodel-a", "aider\nmodel-b", "aider\nmodel-c", "openhands\nmodel-a", "openhands\nmodel-b", "openhands\nmodel-c"} {
		for i, l := range []string{"No hints", "Hints", "Detailed hints"} {
			bars = append(bars, Bar{Group: g, Level: l, Value: 0.2 + 0.1*float64(i), Lo: 0.1, Hi: 0.5})
		}
	}
	re := regexp.MustCompile(`<path d="M([-0-9.e]+),([-0-9.e]+)L([-0-9.e]+),([-0-9.e]+)L([-0-9.e]+),([-0-9.e]+)L([-0-9.e]+),([-0-9.e]+)Z" style="fill:#`)
	for _, c := range []struct {
		w      vg.Length
		turned bool
	}{{OneColumn, true}, {TwoColumn, false}} {
		p, err := SuccessBars("Final success", bars)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := Save(p, c.w, Height(c.w), "svg", &buf); err != nil {
			t.Fatal(err)
		}
		type span struct{ x0, x1, y0 float64 }
		var spans []span
		count := map[float64]int{}
		for _, m := range re.FindAllStringSubmatch(buf.String(), -1) {
			var v [8]float64
			for i := range v {
				v[i], _ = strconv.ParseFloat(m[i+1], 64)
			}
			s := span{math.Min(v[0], v[4]), math.Max(v[0], v[4]), math.Min(v[1], v[3])}
			spans = append(spans, s)
			count[s.y0]++
		}
		base, most := 0.0, 0 // the bars' common baseline (legend thumbnails lie elsewhere)
		for y, n := range count {
			if n > most || n == most && y < base {
				base, most = y, n
			}
		}
		var xs []span
		for _, s := range spans {
			if s.y0 == base {
				xs = append(xs, s)
			}
		}
		if len(xs) != len(bars) {
			t.Fatalf("width %v: %d bars on the baseline, want %d", c.w, len(xs), len(bars))
		}
		sort.Slice(xs, func(i, j int) bool { return xs[i].x0 < xs[j].x0 })
		for i := 1; i < len(xs); i++ {
			if xs[i].x0 < xs[i-1].x1-0.01 {
				t.Errorf("width %v: bar %d (x %.2f–%.2f) overlaps bar %d (x %.2f–%.2f)", c.w, i, xs[i].x0, xs[i].x1, i-1, xs[i-1].x0, xs[i-1].x1)
			}
		}
		if turned := strings.Contains(buf.String(), "rotate(60") || strings.Contains(buf.String(), "rotate(30"); turned != c.turned {
			t.Errorf("width %v: group names turned %v, want %v", c.w, turned, c.turned)
		}
	}
}

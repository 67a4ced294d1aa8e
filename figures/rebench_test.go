package figures

import (
	"bytes"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rdeval/rdeval/analysis"
)

func pt(k int, est, lo, hi float64) analysis.ScoreAtKPoint {
	return analysis.ScoreAtKPoint{K: k, Estimate: est, CILow: lo, CIHigh: hi}
}

func ptn(k, n int, est, lo, hi float64) analysis.ScoreAtKPoint {
	return analysis.ScoreAtKPoint{K: k, NTasks: n, Estimate: est, CILow: lo, CIHigh: hi}
}

// TestAllocationFigureGolden (issue 24): agent A's 16-h and 32-h budgets
// have no cell covering its 7 tasks (no Best); they are open markers off
// the line, and with PartialOmit not drawn at all. Agent B's band overlaps
// A's line, which is drawn over it (bands first, then lines). Byte-compared
// with testdata/allocation_golden.svg.
func TestAllocationFigureGolden(t *testing.T) {
	ap := func(T, h float64, n int, full, best bool, est, lo, hi float64) analysis.AllocationPoint {
		return analysis.AllocationPoint{BudgetS: T * 3600, RunLengthS: h * 3600, AgentTasks: 7, FullTaskSet: full, Best: best, ScoreAtKPoint: ptn(int(T/h), n, est, lo, hi)}
	}
	groups := []AllocationGroup{
		{Label: "Agent A", Points: []analysis.AllocationPoint{
			ap(2, 2, 7, true, true, 0.17, 0.12, 0.22), ap(4, 2, 7, true, true, 0.23, 0.17, 0.30), ap(8, 2, 7, true, true, 0.28, 0.21, 0.36),
			ap(16, 2, 6, false, false, 0.36, 0.28, 0.45), ap(32, 2, 1, false, false, 0, 0, 0),
		}},
		{Label: "Agent B", Points: []analysis.AllocationPoint{
			ap(2, 0.5, 7, true, true, 0.20, 0.10, 0.30), ap(2, 2, 7, true, false, 0.15, 0.10, 0.20),
			ap(4, 0.5, 7, true, true, 0.26, 0.15, 0.38), ap(8, 0.5, 7, true, true, 0.30, 0.18, 0.44),
			ap(16, 0.5, 7, true, true, 0.33, 0.20, 0.48), ap(32, 0.5, 7, true, true, 0.36, 0.22, 0.52),
		}},
	}
	p, err := AllocationFigure("Score by time budget", groups)
	if err != nil {
		t.Fatal(err)
	}
	checkPlotGolden(t, p, OneColumn, Height(OneColumn), "allocation")
	var distinct, omit bytes.Buffer
	if err := Save(p, OneColumn, Height(OneColumn), "svg", &distinct); err != nil {
		t.Fatal(err)
	}
	p, err = AllocationFigure("Score by time budget", groups, LineOptions{Partial: PartialOmit})
	if err != nil {
		t.Fatal(err)
	}
	if err := Save(p, OneColumn, Height(OneColumn), "svg", &omit); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(distinct.String(), PartialLabel) || strings.Contains(omit.String(), PartialLabel) {
		t.Errorf("the partial legend entry: distinct %v, omit %v", strings.Contains(distinct.String(), PartialLabel), strings.Contains(omit.String(), PartialLabel))
	}
}

// TestLinePlotBandsFirst: every band (a polygon of a translucent fill) is
// drawn before the first line, so no band covers another series' line.
func TestLinePlotBandsFirst(t *testing.T) {
	var series []Series
	for i := 0; i < 3; i++ {
		series = append(series, Series{Label: string(rune('A' + i)), X: []float64{1, 2, 4}, Y: []float64{0.1, 0.2, 0.3},
			Lo: []float64{0, 0.1, 0.2}, Hi: []float64{0.2, 0.3, 0.4}, Markers: true})
	}
	p, err := LinePlot("", "x", "y", series, true)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Save(p, OneColumn, Height(OneColumn), "svg", &buf); err != nil {
		t.Fatal(err)
	}
	// The data area's paths come before the legend's box (fill-opacity 0.8).
	data, _, _ := strings.Cut(buf.String(), "fill-opacity:0.8")
	paths := strings.Split(data, "<path ")
	lastBand, firstLine := -1, -1
	for i, pa := range paths {
		if strings.Contains(pa, "fill-opacity:0.25") {
			lastBand = i
		}
		if firstLine < 0 && strings.Contains(pa, "fill:none;stroke:#") && !strings.Contains(pa, "stroke:#000000") && !strings.Contains(pa, "stroke:#DDDDDD") {
			firstLine = i
		}
	}
	if lastBand < 0 || firstLine < 0 || lastBand > firstLine {
		t.Errorf("last band at path %d, first line at %d: a band covers a line", lastBand, firstLine)
	}
}

// TestScoreAtKFigureGolden: a fixed two-group score@k figure, byte-compared
// with testdata/scoreatk_golden.svg (rewrite with -update).
func TestScoreAtKFigureGolden(t *testing.T) {
	groups := []ScoreAtKGroup{
		{Label: "Agent A, 30 min", Points: []analysis.ScoreAtKPoint{pt(1, 0.10, 0.08, 0.13), pt(2, 0.16, 0.13, 0.20), pt(4, 0.25, 0.20, 0.31), pt(8, 0.33, 0.26, 0.40)}},
		// k = 8 covers 1 of the 7 tasks: an open marker off the line, not a fall.
		{Label: "Agent B, 2 h", Points: []analysis.ScoreAtKPoint{ptn(1, 7, 0.20, 0.15, 0.26), ptn(2, 7, 0.27, 0.21, 0.33), ptn(4, 7, 0.35, 0.27, 0.42), ptn(8, 1, 0.05, 0.02, 0.08)}},
	}
	p, err := ScoreAtKFigure("score@k", groups)
	if err != nil {
		t.Fatal(err)
	}
	checkPlotGolden(t, p, OneColumn, Height(OneColumn), "scoreatk")
}

// TestFiguresEdgeCases: empty groups, single points, NaN values and very
// long labels render without panicking, in every format.
func TestFiguresEdgeCases(t *testing.T) {
	nan := math.NaN()
	long := strings.Repeat("a very long agent label ", 12)
	cases := map[string]func() error{
		"empty": func() error {
			p, err := ScoreAtKFigure("empty", nil)
			if err != nil {
				return err
			}
			return Save(p, OneColumn, Height(OneColumn), "svg", &bytes.Buffer{})
		},
		"empty group": func() error {
			p, err := ScoreAtKFigure("x", []ScoreAtKGroup{{Label: "none"}})
			if err != nil {
				return err
			}
			return Save(p, OneColumn, Height(OneColumn), "png", &bytes.Buffer{})
		},
		"single point and NaN": func() error {
			p, err := ScoreAtKFigure("x", []ScoreAtKGroup{{Label: long, Points: []analysis.ScoreAtKPoint{pt(1, 0.5, nan, nan), pt(2, nan, nan, nan)}}})
			if err != nil {
				return err
			}
			return Save(p, TwoColumn, Height(TwoColumn), "pdf", &bytes.Buffer{})
		},
		"allocation": func() error {
			p, err := AllocationFigure("x", []AllocationGroup{{Label: "A", Points: []analysis.AllocationPoint{
				{BudgetS: 1800, RunLengthS: 1800, Best: true, ScoreAtKPoint: pt(1, 0.1, 0.05, 0.2)},
				{BudgetS: 7200, RunLengthS: 1800, Best: false, ScoreAtKPoint: pt(4, 0.3, 0.2, 0.4)},
				{BudgetS: 7200, RunLengthS: 7200, Best: true, ScoreAtKPoint: pt(1, nan, nan, nan)},
			}}})
			if err != nil {
				return err
			}
			return Save(p, OneColumn, Height(OneColumn), "svg", &bytes.Buffer{})
		},
		"curves": func() error {
			p, err := CurvesFigure("x", []CurveGroup{{Label: "A", Points: []analysis.CurvePoint{{T: 60, Estimate: 0.1, CILow: nan, CIHigh: nan}, {T: 600, Estimate: nan}}}})
			if err != nil {
				return err
			}
			return Save(p, OneColumn, Height(OneColumn), "svg", &bytes.Buffer{})
		},
		"bars": func() error {
			p, err := SuccessBars("x", []Bar{{Group: long, Level: "no_hints", Value: 0.5, Lo: 0.4, Hi: 0.6}, {Group: "B", Level: "hints", Value: nan, Lo: nan, Hi: nan}})
			if err != nil {
				return err
			}
			return Save(p, TwoColumn, Height(TwoColumn), "svg", &bytes.Buffer{})
		},
		"no bars": func() error {
			p, err := SuccessBars("x", nil)
			if err != nil {
				return err
			}
			return Save(p, OneColumn, Height(OneColumn), "svg", &bytes.Buffer{})
		},
	}
	for name, f := range cases {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("panic: %v", r)
				}
			}()
			if err := f(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestSuccessBarsGolden: grouped bars with error bars, byte-compared with
// testdata/bars_golden.svg (rewrite with -update).
func TestSuccessBarsGolden(t *testing.T) {
	p, err := SuccessBars("Final success", []Bar{
		{Group: "aider + A", Level: "no_hints", Value: 0.35, Lo: 0.25, Hi: 0.45}, {Group: "aider + A", Level: "hints", Value: 0.47, Lo: 0.37, Hi: 0.57},
		{Group: "openhands + B", Level: "no_hints", Value: 0.2, Lo: 0.1, Hi: 0.3}, {Group: "openhands + B", Level: "hints", Value: 0.25, Lo: 0.15, Hi: 0.35},
	})
	if err != nil {
		t.Fatal(err)
	}
	checkPlotGolden(t, p, TwoColumn, Height(TwoColumn)*0.6, "bars")
}

// TestStackedBarsGolden: error types stacked per agent, byte-compared with
// testdata/stacked_golden.svg (rewrite with -update); also the edge cases.
func TestStackedBarsGolden(t *testing.T) {
	p, err := StackedBars("Errors", "Runs", []string{"aider\nA", "openhands\nB"}, []string{"ValueError", "empty patch", "unused"},
		[][]float64{{5, 2, 0}, {1, 7, 0}})
	if err != nil {
		t.Fatal(err)
	}
	checkPlotGolden(t, p, TwoColumn, Height(TwoColumn)*0.6, "stacked")
	for _, c := range []struct {
		g, cat []string
		n      [][]float64
	}{{nil, nil, nil}, {[]string{"a"}, []string{"x"}, [][]float64{{0}}}, {[]string{"a"}, []string{"x", "y"}, [][]float64{{1}}}} {
		p, err := StackedBars("e", "n", c.g, c.cat, c.n)
		if err != nil {
			t.Fatal(err)
		}
		if err := Save(p, OneColumn, Height(OneColumn), "svg", &bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestBars14AgentsGolden (issue 24): RE-Bench Fig. 9's layout with the
// paper's 14 agents and humans, coloured by a study StyleMap: agents 7 to
// 12 share the first six colours but have tinted, bordered bars, agents
// 13 and 14 white bordered bars, humans dark grey. Byte-compared with
// testdata/bars14_golden.svg.
func TestBars14AgentsGolden(t *testing.T) {
	var agents []string
	for i := 1; i <= 14; i++ {
		agents = append(agents, "Agent "+string(rune('A'+i-1)))
	}
	styles := NewStyleMap(append(agents, "human"), func(n string) bool { return n == "human" })
	tasks := []string{"Fix embedding", "NanoGPT chat RL", "Optimize LLM foundry", "Restricted MLM", "Rust codecontests inference", "Small scaling law", "Triton cumsum"}
	var bars []Bar
	for ti, task := range tasks {
		for ai, a := range append(agents, "human") {
			v := 0.05 + float64((ti*7+ai*3)%11)/12
			bars = append(bars, Bar{Group: task, Level: a, Value: v, Lo: v * 0.8, Hi: v * 1.15, Style: styles.Get(a)})
		}
	}
	p, err := GroupedBars("score@k per task", "Average normalized score", bars)
	if err != nil {
		t.Fatal(err)
	}
	checkPlotGolden(t, p, TwoColumn, Height(OneColumn)*1.2, "bars14")
}

// TestSuccess14AgentsGolden (issue 24): RExBench success bars for 14
// agents (framework and model on two lines) and three hint levels; the
// labels do not fit their slots, so they are turned. Byte-compared with
// testdata/success14_golden.svg.
func TestSuccess14AgentsGolden(t *testing.T) {
	var bars []Bar
	for i := 0; i < 14; i++ {
		g := []string{"openhands", "aider", "claude-code"}[i%3] + "\n" + []string{"claude-3-7-sonnet", "o4-mini", "deepseek-r1", "gpt-4o", "qwen3-235b"}[i%5]
		g += string(rune('a' + i))
		for li, level := range []string{"No hints", "Hints 1", "Hints 2"} {
			v := float64((i*5+li*3)%9) / 10
			bars = append(bars, Bar{Group: g, Level: level, Value: v, Lo: math.Max(0, v-0.1), Hi: math.Min(1, v+0.1)})
		}
	}
	p, err := SuccessBars("Final success", bars)
	if err != nil {
		t.Fatal(err)
	}
	checkPlotGolden(t, p, TwoColumn, Height(OneColumn)*1.2, "success14")
}

// TestPartialBars: a Bar.Partial value is drawn as a dashed outline with
// the legend entry; without partial bars there is neither.
func TestPartialBars(t *testing.T) {
	draw := func(partial bool) string {
		p, err := GroupedBars("x", "y", []Bar{{Group: "A", Level: "30 min", Value: 0.4, Lo: 0.3, Hi: 0.5}, {Group: "A", Level: "2 h", Value: 0.6, Lo: 0.5, Hi: 0.7, Partial: partial}})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := Save(p, TwoColumn, Height(OneColumn), "svg", &b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	with, without := draw(true), draw(false)
	if !strings.Contains(with, PartialBarLabel) || !strings.Contains(with, "stroke-dasharray") {
		t.Error("partial bar: no legend entry or dashed outline")
	}
	if strings.Contains(without, PartialBarLabel) {
		t.Error("legend entry without partial bars")
	}
}

// TestScoreAtKPartialOmit: a k over fewer tasks is an open marker with its
// legend entry by default and absent with PartialOmit; the line never
// reaches it.
func TestScoreAtKPartialOmit(t *testing.T) {
	g := []ScoreAtKGroup{{Label: "A", Points: []analysis.ScoreAtKPoint{ptn(1, 7, 0.2, 0.1, 0.3), ptn(2, 7, 0.3, 0.2, 0.4), ptn(4, 1, 0.0, 0, 0)}}}
	svg := func(opts ...LineOptions) string {
		p, err := ScoreAtKFigure("x", g, opts...)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := Save(p, OneColumn, Height(OneColumn), "svg", &b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	distinct, omit := svg(), svg(LineOptions{Partial: PartialOmit})
	if !strings.Contains(distinct, PartialLabel) || strings.Contains(omit, PartialLabel) {
		t.Errorf("legend entry: distinct %v, omit %v", strings.Contains(distinct, PartialLabel), strings.Contains(omit, PartialLabel))
	}
	// With the k = 4 point omitted, the x axis ends at k = 2.
	if strings.Contains(omit, ">4<") || !strings.Contains(distinct, ">4<") {
		t.Error("the omitted point still widens the axis, or the distinct one does not")
	}
}

// TestLegendBelow (issue 24: the allocation figure's wide right margin):
// a one-column line figure whose legend fits no corner of the data area,
// and would take more than a third of the width beside it, sets the
// legend in columns below the x axis and leaves the data the whole width.
// Byte-compared with testdata/legend_below_golden.svg; the test also reads
// the text positions back from the SVG.
func TestLegendBelow(t *testing.T) {
	ap := func(T float64, est float64) analysis.AllocationPoint {
		return analysis.AllocationPoint{BudgetS: T * 3600, RunLengthS: 1800, AgentTasks: 7, FullTaskSet: true, Best: true, ScoreAtKPoint: ptn(int(T*2), 7, est, est-0.05, est+0.05)}
	}
	// Lines from corner to corner: no corner of the data area is free.
	var groups []AllocationGroup
	for i, label := range []string{"Modular (Model A)", "AIDE (Model B)", "Modular (Model C)", "human experts"} {
		var pts []analysis.AllocationPoint
		for j, T := range []float64{0.5, 1, 2, 4, 8, 16, 32} {
			f := float64(j) / 6
			if i%2 == 1 {
				f = 1 - f
			}
			pts = append(pts, ap(T, 0.1+0.8*f+0.02*float64(i)))
		}
		groups = append(groups, AllocationGroup{Label: label, Points: pts})
	}
	p, err := AllocationFigure("Score by time budget", groups)
	if err != nil {
		t.Fatal(err)
	}
	checkPlotGolden(t, p, OneColumn, Height(OneColumn), "legend_below")
	var buf bytes.Buffer
	if err := Save(p, OneColumn, Height(OneColumn), "svg", &buf); err != nil {
		t.Fatal(err)
	}
	// <text x="X" y="-Y" transform="scale(1, -1)" ...>label</text>: Y up.
	pos := map[string][2]float64{}
	re := regexp.MustCompile(`<text x="([-0-9.]+)" y="([-0-9.]+)"[^>]*>([^<]*)</text>`)
	for _, m := range re.FindAllStringSubmatch(buf.String(), -1) {
		x, _ := strconv.ParseFloat(m[1], 64)
		y, _ := strconv.ParseFloat(m[2], 64)
		pos[m[3]] = [2]float64{x, -y}
	}
	axis, ok := pos["Total time budget (hours)"]
	if !ok {
		t.Fatalf("no x-axis label in %v", pos)
	}
	for _, g := range groups {
		q, ok := pos[g.Label]
		if !ok || q[1] >= axis[1] {
			t.Errorf("legend entry %q at %v: want it below the x-axis label (y %v)", g.Label, q, axis[1])
		}
	}
	width := OneColumn.Points()
	if x := pos["32"][0]; x < 0.85*width {
		t.Errorf("the last tick is at x = %.1f of %.1f: the data area does not take the width", x, width)
	}
}

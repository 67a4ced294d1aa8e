package figures

import (
	"bytes"
	"flag"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

var (
	update = flag.Bool("update", false, "rewrite golden files")
	pngDir = flag.String("png", "", "also write the golden plots as PNG files to this folder, for looking at")
)

func TestPalette(t *testing.T) {
	// The hex values are those of Okabe and Ito (2008), "Color
	// Universal Design", https://jfly.uni-koeln.de/color/, in their order,
	// without the yellow #F0E442 (it vanishes in print and greyscale).
	want := []string{
		"#000000", // black
		"#E69F00", // orange
		"#56B4E9", // sky blue
		"#009E73", // bluish green
		"#0072B2", // blue
		"#D55E00", // vermillion
		"#CC79A7", // reddish purple
	}
	if len(Palette) != len(want) {
		t.Fatalf("unexpected palette length: got %d want %d", len(Palette), len(want))
	}
	seen := make(map[color.NRGBA]int)
	for i, c := range Palette {
		got := fmt.Sprintf("#%02X%02X%02X", c.R, c.G, c.B)
		if got != want[i] {
			t.Errorf("unexpected colour %d: got %s want %s", i, got, want[i])
		}
		if c.A != 0xff {
			t.Errorf("colour %d is not opaque: alpha %#x", i, c.A)
		}
		if j, ok := seen[c]; ok {
			t.Errorf("colour %d repeats colour %d", i, j)
		}
		seen[c] = i
		// Print-safe: no colour lighter than the sky blue (relative
		// luminance, sRGB weights on the gamma-encoded channels, 0.62);
		// the yellow was 0.86.
		if l := (0.2126*float64(c.R) + 0.7152*float64(c.G) + 0.0722*float64(c.B)) / 255; l > 0.65 {
			t.Errorf("colour %d (%s) is too light for print: luminance %.2f", i, got, l)
		}
	}
}

// TestStyleMap: the styles depend only on the set of names (not on their
// order or on which figure draws them), humans are dark grey, no agent is
// black, and 14 agents get 14 different styles.
func TestStyleMap(t *testing.T) {
	var names []string
	for i := 0; i < 14; i++ {
		names = append(names, fmt.Sprintf("agent %02d", i))
	}
	names = append(names, "human")
	isHuman := func(n string) bool { return n == "human" }
	m := NewStyleMap(names, isHuman)
	rev := append([]string(nil), names...)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	m2 := NewStyleMap(rev, isHuman)
	seen := map[string]string{}
	for _, n := range names {
		s, s2 := m.Get(n), m2.Get(n)
		if s == nil || fmt.Sprint(*s) != fmt.Sprint(*s2) {
			t.Errorf("%s: %v, reversed input %v", n, s, s2)
			continue
		}
		key := fmt.Sprint(*s)
		if o, ok := seen[key]; ok {
			t.Errorf("%s has the style of %s: %v", n, o, key)
		}
		seen[key] = n
		if n == "human" {
			if s.Color != HumanColor || s.Dashes != nil {
				t.Errorf("human: %v", s)
			}
		} else if s.Color == Palette[0] {
			t.Errorf("%s is black", n)
		}
	}
	if m.Get("agent 00").Color != Palette[1] || m.Get("nobody") != nil {
		t.Errorf("agent 00 %v, nobody %v", m.Get("agent 00"), m.Get("nobody"))
	}
	if c, err := ParseHexColor("#0072B2"); err != nil || c != Palette[4] {
		t.Errorf("ParseHexColor: %v %v", c, err)
	}
	if _, err := ParseHexColor("blue"); err == nil {
		t.Error("ParseHexColor(blue): no error")
	}
}

func TestColor(t *testing.T) {
	n := len(Palette)
	// Color cycles with period len(Palette) in both directions.
	for _, test := range []struct {
		i, want int
	}{
		{i: 0, want: 0},
		{i: 6, want: 6},
		{i: n, want: 0},
		{i: n + 3, want: 3},
		{i: 3*n + 5, want: 5},
		{i: -1, want: n - 1},
		{i: -n, want: 0},
		{i: -n - 2, want: n - 2},
	} {
		if got := Color(test.i); got != Palette[test.want] {
			t.Errorf("unexpected Color(%d): got %v want Palette[%d]=%v", test.i, got, test.want, Palette[test.want])
		}
	}
}

func TestBand(t *testing.T) {
	for i, c := range Palette {
		got := Band(c)
		// Same colour channels (NRGBA is not premultiplied), alpha 0x40.
		want := color.NRGBA{R: c.R, G: c.G, B: c.B, A: 0x40}
		if got != want {
			t.Errorf("unexpected Band(Palette[%d]): got %v want %v", i, got, want)
		}
	}
	if Palette[1].A != 0xff {
		t.Error("Band modified Palette")
	}
}

func TestSizes(t *testing.T) {
	// 1 in = 72 pt.
	if OneColumn.Points() != 3.3*72 {
		t.Errorf("unexpected OneColumn: got %vpt want %vpt", OneColumn.Points(), 3.3*72)
	}
	if TwoColumn.Points() != 6.9*72 {
		t.Errorf("unexpected TwoColumn: got %vpt want %vpt", TwoColumn.Points(), 6.9*72)
	}
	if got, want := Height(OneColumn), OneColumn*0.62; got != want {
		t.Errorf("unexpected Height(OneColumn): got %v want %v", got, want)
	}
}

func TestNewPlot(t *testing.T) {
	p := NewPlot("title", "x", "y")
	if p.Title.Text != "title" || p.X.Label.Text != "x" || p.Y.Label.Text != "y" {
		t.Errorf("unexpected texts: title %q, x %q, y %q", p.Title.Text, p.X.Label.Text, p.Y.Label.Text)
	}
	// Sizes from the house style: title 9 pt, labels 8 pt, ticks 7 pt,
	// legend 7 pt, all in Liberation Sans.
	for _, test := range []struct {
		name string
		got  vg.Length
		want vg.Length
	}{
		{name: "title", got: p.Title.TextStyle.Font.Size, want: 9},
		{name: "x label", got: p.X.Label.TextStyle.Font.Size, want: 8},
		{name: "y label", got: p.Y.Label.TextStyle.Font.Size, want: 8},
		{name: "x ticks", got: p.X.Tick.Label.Font.Size, want: 7},
		{name: "y ticks", got: p.Y.Tick.Label.Font.Size, want: 7},
		{name: "legend", got: p.Legend.TextStyle.Font.Size, want: 7},
	} {
		if test.got != test.want {
			t.Errorf("unexpected %s font size: got %v want %v", test.name, test.got, test.want)
		}
	}
	for name, f := range map[string]string{
		"title":  p.Title.TextStyle.Font.Name(),
		"label":  p.X.Label.TextStyle.Font.Name(),
		"ticks":  p.Y.Tick.Label.Font.Name(),
		"legend": p.Legend.TextStyle.Font.Name(),
	} {
		if f != Font.Name() {
			t.Errorf("unexpected %s font: got %q want %q", name, f, Font.Name())
		}
	}
	if !p.Legend.Top || !p.Legend.Left || isOutside(&p.Legend) {
		t.Errorf("legend not inside at top left: top=%t left=%t outside=%t", p.Legend.Top, p.Legend.Left, isOutside(&p.Legend))
	}
	LegendOutside(p)
	if !isOutside(&p.Legend) {
		t.Error("LegendOutside did not move the legend outside")
	}
}

func TestLog2Ticks(t *testing.T) {
	for _, test := range []struct {
		min, max float64
		want     []plot.Tick
	}{
		{
			// The score@k range of RE-Bench Figs. 7–8: every power of
			// two from 2^0 to 2^7, ends included.
			min: 1, max: 128,
			want: []plot.Tick{
				{Value: 1, Label: "1"}, {Value: 2, Label: "2"}, {Value: 4, Label: "4"},
				{Value: 8, Label: "8"}, {Value: 16, Label: "16"}, {Value: 32, Label: "32"},
				{Value: 64, Label: "64"}, {Value: 128, Label: "128"},
			},
		},
		{
			// 0.5 = 2^-1 lies in the range, so it is a tick like any
			// other power of two; 4 does not, so it is not.
			min: 0.5, max: 3,
			want: []plot.Tick{{Value: 0.5, Label: "0.5"}, {Value: 1, Label: "1"}, {Value: 2, Label: "2"}},
		},
		{
			// Ends off powers of two: only the powers inside.
			min: 0.3, max: 1000,
			want: []plot.Tick{
				{Value: 0.5, Label: "0.5"}, {Value: 1, Label: "1"}, {Value: 2, Label: "2"},
				{Value: 4, Label: "4"}, {Value: 8, Label: "8"}, {Value: 16, Label: "16"},
				{Value: 32, Label: "32"}, {Value: 64, Label: "64"}, {Value: 128, Label: "128"},
				{Value: 256, Label: "256"}, {Value: 512, Label: "512"},
			},
		},
		{
			// Small powers are labelled exactly, not in e-notation.
			min: 0.1, max: 0.3,
			want: []plot.Tick{{Value: 0.125, Label: "0.125"}, {Value: 0.25, Label: "0.25"}},
		},
		{
			// Large powers likewise.
			min: 1 << 19, max: 1 << 20,
			want: []plot.Tick{{Value: 1 << 19, Label: "524288"}, {Value: 1 << 20, Label: "1048576"}},
		},
		{
			// Only 2 lies in [1.5, 3]: bracket the range with 1 and 4.
			min: 1.5, max: 3,
			want: []plot.Tick{{Value: 1, Label: "1"}, {Value: 2, Label: "2"}, {Value: 4, Label: "4"}},
		},
		{
			// No power of two lies in [3, 3.9]: bracket it with 2 and 4.
			min: 3, max: 3.9,
			want: []plot.Tick{{Value: 2, Label: "2"}, {Value: 4, Label: "4"}},
		},
		{
			// A single point on a power of two gets it and the next one.
			min: 4, max: 4,
			want: []plot.Tick{{Value: 4, Label: "4"}, {Value: 8, Label: "8"}},
		},
	} {
		got := Log2Ticks{}.Ticks(test.min, test.max)
		if !reflect.DeepEqual(got, test.want) {
			t.Errorf("unexpected ticks for [%v, %v]:\ngot:  %v\nwant: %v", test.min, test.max, got, test.want)
		}
		for _, tk := range got {
			if tk.IsMinor() {
				t.Errorf("unexpected minor tick at %v for [%v, %v]", tk.Value, test.min, test.max)
			}
		}
	}
}

func TestLog2TicksPanics(t *testing.T) {
	for _, r := range [][2]float64{{0, 1}, {-1, 4}, {1, 0}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("expected panic for [%v, %v]", r[0], r[1])
				}
			}()
			Log2Ticks{}.Ticks(r[0], r[1])
		}()
	}
}

func TestUseLog2X(t *testing.T) {
	p := NewPlot("", "k", "score@k")
	UseLog2X(p)
	if _, ok := p.X.Scale.(plot.LogScale); !ok {
		t.Errorf("unexpected x scale: got %T want plot.LogScale", p.X.Scale)
	}
	if _, ok := p.X.Tick.Marker.(Log2Ticks); !ok {
		t.Errorf("unexpected x ticker: got %T want Log2Ticks", p.X.Tick.Marker)
	}
	if _, ok := p.Y.Scale.(plot.LinearScale); !ok {
		t.Errorf("y scale changed: got %T want plot.LinearScale", p.Y.Scale)
	}
}

// scoreAtK is made-up score@k data in the shape of RE-Bench Figs. 7–8: a
// mean score with a 95% confidence interval at k = 1, 2, 4, …, 64.
var scoreAtK = []struct {
	name         string
	mean, lo, hi []float64
}{
	{
		name: "Agent A",
		mean: []float64{0.12, 0.21, 0.30, 0.38, 0.45, 0.50, 0.54},
		lo:   []float64{0.08, 0.16, 0.24, 0.32, 0.39, 0.44, 0.48},
		hi:   []float64{0.16, 0.26, 0.36, 0.44, 0.51, 0.56, 0.60},
	},
	{
		name: "Agent B",
		mean: []float64{0.05, 0.09, 0.15, 0.22, 0.30, 0.37, 0.43},
		lo:   []float64{0.02, 0.05, 0.10, 0.16, 0.24, 0.31, 0.37},
		hi:   []float64{0.08, 0.13, 0.20, 0.28, 0.36, 0.43, 0.49},
	},
}

// samplePlot returns a small score@k plot in the house style: two lines
// with CI bands and a legend, on a log2 x axis with a grid.
func samplePlot(t testing.TB) *plot.Plot {
	p := NewPlot("Score@k", "k (attempts)", "Score@k")
	UseLog2X(p)
	AddGrid(p)
	p.Y.Min = 0
	p.Y.Max = 0.7
	for i, s := range scoreAtK {
		line := make(plotter.XYs, len(s.mean))
		band := make(plotter.XYs, 0, 2*len(s.mean))
		for j, m := range s.mean {
			k := float64(int(1) << j)
			line[j] = plotter.XY{X: k, Y: m}
			band = append(band, plotter.XY{X: k, Y: s.hi[j]})
		}
		for j := len(s.mean) - 1; j >= 0; j-- {
			band = append(band, plotter.XY{X: float64(int(1) << j), Y: s.lo[j]})
		}
		poly, err := plotter.NewPolygon(band)
		if err != nil {
			t.Fatalf("unexpected error making band: %v", err)
		}
		poly.Color = Band(Color(i + 1))
		poly.LineStyle.Width = 0
		l, err := plotter.NewLine(line)
		if err != nil {
			t.Fatalf("unexpected error making line: %v", err)
		}
		l.LineStyle = LineStyle(i + 1)
		p.Add(poly, l)
		p.Legend.Add(s.name, poly, l)
	}
	return p
}

func TestGolden(t *testing.T) {
	for _, test := range []struct {
		name  string
		setup func(*plot.Plot)
	}{
		{name: "style", setup: func(*plot.Plot) {}},
		{name: "legend_outside", setup: LegendOutside},
	} {
		t.Run(test.name, func(t *testing.T) {
			p := samplePlot(t)
			test.setup(p)
			var buf bytes.Buffer
			if err := Save(p, OneColumn, Height(OneColumn), "svg", &buf); err != nil {
				t.Fatalf("unexpected error saving: %v", err)
			}
			golden := filepath.Join("testdata", test.name+"_golden.svg")
			checkGolden(t, golden, filepath.Join("testdata", test.name+".got.svg"), buf.Bytes())

			if *pngDir != "" {
				out := filepath.Join(*pngDir, test.name+".png")
				if err := SaveFile(p, OneColumn, Height(OneColumn), out); err != nil {
					t.Fatalf("unexpected error saving PNG: %v", err)
				}
				t.Logf("wrote %s", out)
			}
		})
	}
}

// checkGolden compares got with the golden file, rewriting it when the
// -update flag is set. On mismatch it writes got to gotPath for inspection.
// checkPlotGolden saves p as SVG at w×h and compares it with
// testdata/<name>_golden.svg (see checkGolden).
func checkPlotGolden(t *testing.T, p *plot.Plot, w, h vg.Length, name string) {
	t.Helper()
	var buf bytes.Buffer
	if err := Save(p, w, h, "svg", &buf); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, filepath.Join("testdata", name+"_golden.svg"), filepath.Join("testdata", name+".got.svg"), buf.Bytes())
}

func checkGolden(t *testing.T, golden, gotPath string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatalf("unexpected error writing golden file: %v", err)
		}
		os.Remove(gotPath)
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("unexpected error reading golden file (run go test -update to create it): %v", err)
	}
	if !bytes.Equal(got, want) {
		if err := os.WriteFile(gotPath, got, 0o644); err != nil {
			t.Errorf("unexpected error writing %s: %v", gotPath, err)
		}
		t.Errorf("output does not match %s; see %s (run go test -update if the change is intended)", golden, gotPath)
		return
	}
	os.Remove(gotPath)
}

func TestDrawLeavesPlot(t *testing.T) {
	for _, outside := range []bool{false, true} {
		p := samplePlot(t)
		if outside {
			LegendOutside(p)
		}
		before := *p
		var buf bytes.Buffer
		if err := Save(p, OneColumn, Height(OneColumn), "svg", &buf); err != nil {
			t.Fatalf("unexpected error saving: %v", err)
		}
		// Draw renders a copy of p with the legend swapped out; p itself,
		// legend entries included, must be as it was.
		if !reflect.DeepEqual(*p, before) {
			t.Errorf("Draw modified the plot (legend outside: %t)", outside)
		}
	}
}

// TestDisplayName: RE-Bench task ids and RExBench hint levels read as
// names; anything else is left as it is.
func TestDisplayName(t *testing.T) {
	for in, want := range map[string]string{
		"ai_rd_fix_embedding/main":               "Fix embedding",
		"ai_rd_optimize_llm_foundry/main":        "Optimize LLM foundry",
		"ai_rd_nanogpt_chat_rl/main":             "NanoGPT chat RL",
		"ai_rd_restricted_mlm/main":              "Restricted MLM",
		"ai_rd_rust_codecontests_inference/main": "Rust codecontests inference",
		"no_hints":                               "No hints",
		"detailed_hints":                         "Detailed hints",
		"o1-preview":                             "o1-preview",
		"ai_rd_":                                 "ai_rd_",
		"hint_levelhints":                        "hint_levelhints",
	} {
		if got := DisplayName(in); got != want {
			t.Errorf("DisplayName(%q) = %q, want %q", in, got, want)
		}
	}
}

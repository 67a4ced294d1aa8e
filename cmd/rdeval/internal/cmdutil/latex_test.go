package cmdutil

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdtest"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// latexTable has every kind of cell the LaTeX writer formats: text with
// LaTeX's special characters, an integer column, an estimate with its
// interval found by name (estimate, ci_low, ci_high and ratio,
// ratio_ci_low, ratio_ci_high), a plain decimal column, NaN, empty and
// infinite cells, negative numbers and a p-value that rounds to zero.
func latexTable() *Table {
	return &Table{
		Header: []string{"agent", "time_limit_s", "estimate", "boot_mean", "ci_low", "ci_high", "ratio", "ratio_ci_low", "ratio_ci_high", "p"},
		Rows: [][]string{
			{"Modular (Model A)", "1800", "0.4412", "0.4390", "0.3811", "0.5023", "1.2500", "0.9000", "1.7000", "0.0400"},
			{`a_b 50% & #1 $x$ {y} ~z ^w \q <|>`, "28800", "-0.0312", "-0.0300", "-0.0912", "0.0288", "NaN", "", "", "0.00001"},
			{"no interval", "", "0.2000", "", "", "", "+Inf", "0.5000", "+Inf", ""},
		},
	}
}

// TestWriteLaTeX compares the LaTeX form of latexTable with
// testdata/latex.golden (go test -run TestWriteLaTeX -update rewrites it)
// and, where pdflatex is installed, compiles it.
func TestWriteLaTeX(t *testing.T) {
	ios, _, _ := iostreams.Test()
	ios.Args, ios.Version = []string{"rdeval", "scoreatk", "--demo", "--where", "agent=Modular (Model A)", "--format", "latex"}, "v1.2.3"
	tab := latexTable().Cite(ios, "score@k per agent: mean over tasks [95% CI]").Seeded(7)
	var buf bytes.Buffer
	if err := Emit(&buf, FormatLaTeX, tab, nil); err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	golden := filepath.Join("testdata", "latex.golden")
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	checkLaTeXStructure(t, got, 6)
	cmdtest.CompileLaTeX(t, got)
}

// checkLaTeXStructure checks what every table rdeval writes must have: the
// comment line, booktabs rules in order and no vertical rule, and ncols
// cells (ncols-1 unescaped &) in every row.
func checkLaTeXStructure(t *testing.T, tex string, ncols int) {
	t.Helper()
	if !strings.HasPrefix(tex, "% rdeval ") {
		t.Errorf("no leading comment with the command line: %q", tex[:min(40, len(tex))])
	}
	top, mid, bot := strings.Index(tex, "\\toprule"), strings.Index(tex, "\\midrule"), strings.Index(tex, "\\bottomrule")
	if !(top > 0 && top < mid && mid < bot) {
		t.Errorf("booktabs rules missing or out of order: %d %d %d", top, mid, bot)
	}
	spec := tex[strings.Index(tex, "\\begin{tabular}{")+len("\\begin{tabular}{"):]
	spec = strings.ReplaceAll(spec, `p{0.3\linewidth}`, "p")
	spec = spec[:strings.IndexByte(spec, '}')]
	if strings.Contains(spec, "|") || len(spec) != ncols {
		t.Errorf("column spec %q: want %d columns, no vertical rules", spec, ncols)
	}
	body := tex[top:bot]
	for _, line := range strings.Split(body, "\n") {
		if !strings.HasSuffix(line, `\\`) {
			continue
		}
		amps := strings.Count(line, "&") - strings.Count(line, `\&`)
		if amps != ncols-1 {
			t.Errorf("row %q: %d cells, want %d", line, amps+1, ncols)
		}
	}
}

func TestLaTeXIntervals(t *testing.T) {
	got := latexTable().LaTeXIntervals()
	want := []Interval{{"estimate", "ci_low", "ci_high"}, {"ratio", "ratio_ci_low", "ratio_ci_high"}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("got %v, want %v", got, want)
	}
	// ci_low, ci_high go with value when there is no estimate, and
	// stand alone when there is neither; explicit ones win.
	if got := (&Table{Header: []string{"value", "ci_low", "ci_high"}}).LaTeXIntervals(); len(got) != 1 || got[0].Estimate != "value" {
		t.Errorf("value: got %v", got)
	}
	if got := (&Table{Header: []string{"min", "ci_low", "ci_high"}}).LaTeXIntervals(); len(got) != 1 || got[0].Estimate != "" {
		t.Errorf("alone: got %v", got)
	}
	if got := (&Table{Header: []string{"p50_minutes", "p50_ci_low", "p50_ci_high"}}).LaTeXIntervals(); len(got) != 1 || got[0].Estimate != "p50_minutes" {
		t.Errorf("column before: got %v", got)
	}
	ex := []Interval{{"final_success", "final_ci_low", "final_ci_high"}}
	if got := (&Table{Header: []string{"final_success", "final_ci_low", "final_ci_high"}, Intervals: ex}).LaTeXIntervals(); len(got) != 1 || got[0] != ex[0] {
		t.Errorf("explicit: got %v", got)
	}
}

func TestLaTeXNumbers(t *testing.T) {
	for _, tc := range []struct {
		in   string
		d    int
		want string
	}{
		{"0.4412", 2, "0.44"},
		{"0.445", 2, "0.45"}, // 0.445 is 0.44500000000000000611 in binary
		{"-0.0312", 2, "$-$0.03"},
		{"-0.001", 2, "$>-$0.01"},
		{"0.00001", 3, "$<$0.001"},
		{"0", 2, "0.00"},
		{"12", 0, "12"},
		{"0.4", 0, "0"},
		{"0.3", 0, "0"},
		{"NaN", 2, "--"},
		{"NA", 2, "--"},
		{"", 2, "--"},
		{"+Inf", 2, "$\\infty$"},
		{"-Inf", 2, "$-\\infty$"},
		{"-7", -1, "$-$7"},
		{"n/a_1", 2, `n/a\_1`},
	} {
		if got := latexNumber(tc.in, tc.d); got != tc.want {
			t.Errorf("latexNumber(%q, %d) = %q, want %q", tc.in, tc.d, got, tc.want)
		}
	}
}

func TestEscapeLaTeX(t *testing.T) {
	in := `_ % & # $ { } ~ ^ \ < > | é ± α ≥ …` + "\x1b"
	want := `\_ \% \& \# \$ \{ \} \textasciitilde{} \textasciicircum{} \textbackslash{} \textless{} \textgreater{} \textbar{} é $\pm$ $\alpha$ $\geq$ \ldots{} `
	if got := EscapeLaTeX(in); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// TestLaTeXDecimals: an interval column takes the PDG rounding of its
// median half-width (two significant digits for 100–354, else one); a plain column three significant digits of its
// largest value; neither more than its cells hold.
func TestLaTeXDecimals(t *testing.T) {
	tab := &Table{Header: []string{"estimate", "ci_low", "ci_high", "n", "x", "y"}, Rows: [][]string{
		{"0.5", "0.4", "0.6", "3", "123.4567", "0.001"},
		{"0.5", "0.49", "0.51", "4", "2.5", "0.12"},
		{"0.5", "0.495", "0.505", "5", "1", "0.0123"},
	}}
	cols := tab.latexColumns()
	if len(cols) != 4 {
		t.Fatalf("%d columns, want 4", len(cols))
	}
	// half-widths 0.1, 0.01, 0.005: median 0.01, two digits → 3 decimals.
	for i, want := range []int{3, 0, 0, 3} {
		if cols[i].decimals != want {
			t.Errorf("column %s: %d decimals, want %d", cols[i].header, cols[i].decimals, want)
		}
	}
	if !cols[1].integer || cols[0].integer {
		t.Errorf("integer columns: %v %v", cols[0].integer, cols[1].integer)
	}
	if got := cols[0].cell(2, latexStyle); got != "0.500 [0.495, 0.505]" {
		t.Errorf("cell: %q", got)
	}
}

func TestShellJoin(t *testing.T) {
	got := ShellJoin([]string{"rdeval", "compare", "--a", "agent=A (x);time_limit_s=1800", "--b", "it's", "", "a\tb", "k=1,2"})
	want := `rdeval compare --a 'agent=A (x);time_limit_s=1800' --b 'it'\''s' '' $'a\tb' k=1,2`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestLaTeXRowStartsWithBracket: a row whose first cell is an interval
// alone, "[0.40, 0.60]", would be read as the optional argument of the \\
// before it; it is written {}[0.40, 0.60].
func TestLaTeXRowStartsWithBracket(t *testing.T) {
	tab := &Table{Header: []string{"ci_low", "ci_high", "n"}, Rows: [][]string{{"0.4", "0.6", "1"}, {"0.45", "0.55", "2"}}}
	var buf bytes.Buffer
	if err := tab.WriteLaTeX(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "\\midrule\n{}[0.40, 0.60] & 1 \\\\\n{}[0.45, 0.55] & 2 \\\\\n") {
		t.Errorf("got:\n%s", buf.String())
	}
	cmdtest.CompileLaTeX(t, buf.String())
}

// TestJoined: the plain-text form joins intervals as the LaTeX form does,
// without LaTeX's escapes.
func TestJoined(t *testing.T) {
	j := latexTable().Joined()
	want := &Table{Header: []string{"agent", "time_limit_s", "estimate [CI]", "boot_mean", "ratio [CI]", "p"}, Rows: [][]string{
		{"Modular (Model A)", "1800", "0.44 [0.38, 0.50]", "0.439", "1.25 [0.90, 1.70]", "0.0400"},
		{`a_b 50% & #1 $x$ {y} ~z ^w \q <|>`, "28800", "-0.03 [-0.09, 0.03]", "-0.030", "", "<0.0001"},
		{"no interval", "", "0.20", "", "+Inf [0.50, +Inf]", ""},
	}}
	if strings.Join(j.Header, "|") != strings.Join(want.Header, "|") {
		t.Errorf("header %q", j.Header)
	}
	for i := range want.Rows {
		if strings.Join(j.Rows[i], "|") != strings.Join(want.Rows[i], "|") {
			t.Errorf("row %d: got %q\nwant %q", i, j.Rows[i], want.Rows[i])
		}
	}
}

// TestPDGDecimals: the half-widths at the PDG rule's edges.
func TestPDGDecimals(t *testing.T) {
	for _, tc := range []struct {
		hw   float64
		want int
	}{{0.06, 2}, {0.12, 2}, {0.0354, 3}, {0.0356, 2}, {0.3, 2}, {0.4, 1}, {3, 1}, {40, 0}, {0.00001, 4}} {
		tab := &Table{Header: []string{"estimate", "ci_low", "ci_high"}, Rows: [][]string{{"100.00000", fmt.Sprintf("%.6f", 100-tc.hw), fmt.Sprintf("%.6f", 100+tc.hw)}}}
		if got := tab.latexColumns()[0].decimals; got != tc.want {
			t.Errorf("half-width %g: %d decimals, want %d", tc.hw, got, tc.want)
		}
	}
}

// TestLaTeXIntervalZero: inside an interval a value that rounds to zero
// is 0.00 (a difference of -0.001 is no "less than" claim), and a wide
// interval on a score keeps 2 decimals.
func TestLaTeXIntervalZero(t *testing.T) {
	tab := &Table{Header: []string{"diff", "diff_ci_low", "diff_ci_high"}, Rows: [][]string{{"-0.0012", "-0.3901", "0.3100"}}}
	if got := tab.latexColumns()[0].cell(0, latexStyle); got != "0.00 [$-$0.39, 0.31]" {
		t.Errorf("got %q", got)
	}
}

// TestLaTeXIntervalDecades: a column of minutes whose estimates span
// decades keeps two significant digits of the smallest (up to 2 decimals),
// where the PDG rule on the median half-width alone would print 0 [0, 2]
// (rdeval horizon --demo's p80 column).
func TestLaTeXIntervalDecades(t *testing.T) {
	tab := &Table{Header: []string{"p80", "p80_ci_low", "p80_ci_high"}, Rows: [][]string{
		{"0.4912", "0.0213", "1.8801"}, {"8.3512", "2.6702", "20.6201"}, {"12.1", "3.2", "31.5"}}}
	col := tab.latexColumns()[0]
	for r, want := range []string{"0.49 [0.02, 1.88]", "8.35 [2.67, 20.62]", "12.10 [3.20, 31.50]"} {
		if got := col.cell(r, latexStyle); got != want {
			t.Errorf("row %d: got %q, want %q", r, got, want)
		}
	}
}

package cmdutil

import (
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
)

// FormatLaTeX is the --format value for a LaTeX (booktabs) table.
const FormatLaTeX = "latex"

// Interval names the columns of a table that the LaTeX form combines into
// one cell, "estimate [low, high]", as papers print an estimate with its
// confidence interval. Estimate may be "" (the cell is "[low, high]").
type Interval struct{ Estimate, Low, High string }

// Source is what a LaTeX table records about how it was made: the command
// line and version (a comment line), the seed of a seeded procedure, and
// the caption.
type Source struct {
	Args    []string // the command line, "rdeval" first
	Version string
	Seed    *uint64
	Caption string
	// Label is the table's \label; "": tab:rdeval-<command>.
	Label string
}

// Cite sets the caption of t's LaTeX form and the command line and
// version it records (from ios); it returns t.
func (t *Table) Cite(ios *iostreams.IO, caption string) *Table {
	if t.Source == nil {
		t.Source = &Source{}
	}
	t.Source.Args, t.Source.Version, t.Source.Caption = ios.Args, ios.Version, caption
	return t
}

// Seeded records the seed t was computed with in its LaTeX form; it
// returns t.
func (t *Table) Seeded(seed uint64) *Table {
	if t.Source == nil {
		t.Source = &Source{}
	}
	t.Source.Seed = &seed
	return t
}

// LaTeXIntervals returns the interval columns of t: t.Intervals when set,
// else those found by name. A pair X_ci_low, X_ci_high goes with column X
// (ratio, ratio_ci_low, ratio_ci_high), failing it with the column just
// before X_ci_low when its name starts with X_ (p50_minutes, p50_ci_low,
// p50_ci_high); a pair ci_low, ci_high with the
// column estimate, else value, else none. Pairs whose estimate column is
// missing stand alone.
func (t *Table) LaTeXIntervals() []Interval {
	if t.Intervals != nil {
		return t.Intervals
	}
	has := map[string]bool{}
	for _, h := range t.Header {
		has[h] = true
	}
	var out []Interval
	for _, h := range t.Header {
		p, ok := strings.CutSuffix(h, "ci_low")
		if !ok || !has[p+"ci_high"] {
			continue
		}
		iv := Interval{Low: h, High: p + "ci_high"}
		if p == "" {
			for _, e := range []string{"estimate", "value"} {
				if has[e] {
					iv.Estimate = e
					break
				}
			}
		} else if e := strings.TrimSuffix(p, "_"); has[e] {
			iv.Estimate = e
		} else if i := slices.Index(t.Header, h); i > 0 && strings.HasPrefix(t.Header[i-1], p) {
			iv.Estimate = t.Header[i-1]
		}
		out = append(out, iv)
	}
	return out
}

// WriteLaTeX writes t as a LaTeX table with booktabs rules (\toprule,
// \midrule, \bottomrule; no vertical rules):
//
//	% <command line> (rdeval <version>; seed <seed>)
//	% needs \usepackage{booktabs}
//	\begin{table}[t]
//	\centering
//	\caption{<caption>}
//	\label{tab:rdeval-<command>}
//	\begin{tabular}{lrr}
//	\toprule
//	...
//
// Columns whose cells are all numbers (or empty) are right-aligned, text
// columns left-aligned, or set as paragraphs (p{0.3\linewidth}) when a
// cell is longer than 40 characters; the
// interval columns (LaTeXIntervals) are joined into one cell,
// "0.44 [0.38, 0.50]", headed "estimate [CI]". The number of decimals is
// chosen per column: for an interval, as the Particle Data Group rounds an
// uncertainty, two significant digits of the median half-width when its
// first three digits are 100–354, else one (half-widths 0.06 and 0.12: 2
// decimals; 0.03: 3), and at least 2 when every value is below 10 in
// magnitude; for other columns,
// three significant digits of the largest value; never more than the
// cells hold nor more than 4. A value that rounds to zero but is not zero
// is written <0.001 (as p-values are; 0.000 inside an interval); integer columns are kept as they
// are. Empty and NaN cells are "--", infinities $\infty$, negative numbers
// take a real minus sign, and text is escaped (EscapeLaTeX).
func (t *Table) WriteLaTeX(w io.Writer) error {
	src := t.Source
	if src == nil {
		src = &Source{}
	}
	var b strings.Builder
	if len(src.Args) > 0 || src.Version != "" || src.Seed != nil {
		var extra []string
		if src.Version != "" {
			extra = append(extra, "rdeval "+src.Version)
		}
		if src.Seed != nil {
			extra = append(extra, "seed "+strconv.FormatUint(*src.Seed, 10))
		}
		b.WriteString("%")
		if len(src.Args) > 0 {
			b.WriteString(" " + ShellJoin(src.Args))
		}
		if len(extra) > 0 {
			b.WriteString(" (" + strings.Join(extra, "; ") + ")")
		}
		b.WriteString("\n")
	}
	b.WriteString("% needs \\usepackage{booktabs}\n\\begin{table}[t]\n\\centering\n")
	if src.Caption != "" {
		b.WriteString("\\caption{" + EscapeLaTeX(src.Caption) + "}\n")
	} else {
		b.WriteString("\\caption{} % TODO: caption\n")
	}
	switch {
	case src.Label != "":
		b.WriteString("\\label{" + labelPart(src.Label) + "}\n")
	case len(src.Args) > 1:
		b.WriteString("\\label{tab:rdeval-" + labelPart(src.Args[1]) + "}\n")
	}
	cols := t.latexColumns()
	spec := make([]string, len(cols))
	head := make([]string, len(cols))
	for i, c := range cols {
		spec[i] = "l"
		if c.numeric {
			spec[i] = "r"
		} else if t.longestCell(c.est) > wrapAt {
			spec[i] = `p{0.3\linewidth}`
		}
		head[i] = EscapeLaTeX(c.header)
	}
	// A row that starts with [ would be read as the optional argument of
	// the \\ or rule before it.
	row := func(cells []string) {
		if len(cells) > 0 && strings.HasPrefix(cells[0], "[") {
			cells[0] = "{}" + cells[0]
		}
		b.WriteString(strings.Join(cells, " & ") + " \\\\\n")
	}
	b.WriteString("\\begin{tabular}{" + strings.Join(spec, "") + "}\n\\toprule\n")
	row(head)
	b.WriteString("\\midrule\n")
	for r := range t.Rows {
		cells := make([]string, len(cols))
		for i, c := range cols {
			cells[i] = c.cell(r, latexStyle)
		}
		row(cells)
	}
	b.WriteString("\\bottomrule\n\\end{tabular}\n\\end{table}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// latexColumn is one column of the LaTeX table: a plain column (est) or an
// interval (est, lo, hi; est may be -1).
type latexColumn struct {
	header      string
	est, lo, hi int
	numeric     bool
	integer     bool
	decimals    int
	t           *Table
}

func (t *Table) latexColumns() []*latexColumn {
	idx := map[string]int{}
	for i, h := range t.Header {
		if _, dup := idx[h]; !dup {
			idx[h] = i
		}
	}
	byFirst := map[int]*latexColumn{}
	used := map[int]bool{}
	for _, iv := range t.LaTeXIntervals() {
		lo, okL := idx[iv.Low]
		hi, okH := idx[iv.High]
		if !okL || !okH || used[lo] || used[hi] {
			continue
		}
		c := &latexColumn{est: -1, lo: lo, hi: hi, t: t, numeric: true}
		first := lo
		if e, ok := idx[iv.Estimate]; ok && !used[e] {
			c.est, c.header = e, iv.Estimate+" [CI]"
			first = min(e, lo)
			used[e] = true
		} else {
			c.header = "CI"
		}
		used[lo], used[hi] = true, true
		byFirst[first] = c
		c.decimals = t.intervalDecimals(c)
	}
	var cols []*latexColumn
	for i, h := range t.Header {
		if c, ok := byFirst[i]; ok {
			cols = append(cols, c)
			continue
		}
		if used[i] {
			continue
		}
		c := &latexColumn{header: h, est: i, lo: -1, hi: -1, t: t}
		c.numeric, c.integer = t.numericColumn(i)
		if c.numeric && !c.integer {
			c.decimals = t.plainDecimals(i)
		}
		cols = append(cols, c)
	}
	return cols
}

// wrapAt is the length (in runes) past which a text column wraps: its
// cells are set in a paragraph column, p{0.3\linewidth}.
const wrapAt = 40

func (t *Table) longestCell(c int) int {
	n := 0
	for r := range t.Rows {
		n = max(n, utf8.RuneCountInString(t.cellAt(r, c)))
	}
	return n
}

func (t *Table) cellAt(r, c int) string {
	if c < 0 || c >= len(t.Rows[r]) {
		return ""
	}
	return t.Rows[r][c]
}

// parseCell is a cell's number; ok is false for an empty or text cell.
// NA (R's missing value, as regress prints it) is NaN.
func parseCell(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	if s == "NA" {
		return math.NaN(), true
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

// numericColumn reports whether every non-empty cell of column c is a
// number (and there is one), and whether all are integers.
func (t *Table) numericColumn(c int) (numeric, integer bool) {
	integer = true
	for r := range t.Rows {
		s := strings.TrimSpace(t.cellAt(r, c))
		if s == "" {
			continue
		}
		if _, ok := parseCell(s); !ok {
			return false, false
		}
		numeric = true
		if _, err := strconv.ParseInt(s, 10, 64); err != nil {
			integer = false
		}
	}
	return numeric, numeric && integer
}

// cellDecimals is the number of digits after the point in s (4 at most;
// 4 for a number in exponent form).
func cellDecimals(s string) int {
	s = strings.TrimSpace(s)
	if strings.ContainsAny(s, "eE") {
		return 4
	}
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return min(len(s)-i-1, 4)
	}
	return 0
}

// plainDecimals: three significant digits of the largest |value| in
// column c, within what the cells hold and 4.
func (t *Table) plainDecimals(c int) int {
	held, m := 0, 0.0
	for r := range t.Rows {
		s := t.cellAt(r, c)
		if f, ok := parseCell(s); ok && !math.IsNaN(f) && !math.IsInf(f, 0) {
			held = max(held, cellDecimals(s))
			m = max(m, math.Abs(f))
		}
	}
	d := 2
	if m > 0 {
		d = 2 - int(math.Floor(math.Log10(m)))
	}
	return min(max(d, 0), held, 4)
}

// intervalDecimals: the PDG rounding of the median half-width of the
// intervals (the plain rule for the estimate when none has a width),
// within what the cells hold and 4.
func (t *Table) intervalDecimals(c *latexColumn) int {
	held, big, small := 0, 0.0, math.Inf(1)
	var hw []float64
	for r := range t.Rows {
		if f, ok := parseCell(t.cellAt(r, c.est)); ok && c.est >= 0 && f != 0 && !math.IsInf(f, 0) && !math.IsNaN(f) {
			small = min(small, math.Abs(f))
		}
		for _, i := range []int{c.est, c.lo, c.hi} {
			if s := t.cellAt(r, i); s != "" {
				if f, ok := parseCell(s); ok {
					held = max(held, cellDecimals(s))
					if !math.IsInf(f, 0) && !math.IsNaN(f) {
						big = max(big, math.Abs(f))
					}
				}
			}
		}
		lo, ok1 := parseCell(t.cellAt(r, c.lo))
		hi, ok2 := parseCell(t.cellAt(r, c.hi))
		if ok1 && ok2 && hi > lo && !math.IsInf(hi-lo, 0) {
			hw = append(hw, (hi-lo)/2)
		}
	}
	if len(hw) == 0 {
		if c.est >= 0 {
			return t.plainDecimals(c.est)
		}
		return min(2, held)
	}
	sort.Float64s(hw)
	med := hw[len(hw)/2]
	if len(hw)%2 == 0 {
		med = (hw[len(hw)/2-1] + hw[len(hw)/2]) / 2
	}
	// The Particle Data Group's rule: two significant digits of the
	// uncertainty when its first three are 100–354, else one.
	e := math.Floor(math.Log10(med))
	d := -int(e)
	if med/math.Pow(10, e) < 3.55 {
		d++
	}
	// Scores, rates and ratios (below 10) keep 2 decimals however wide
	// their intervals: 0.94 [0.36, 1.65], not 0.9 [0.4, 1.7].
	if big < 10 {
		d = max(d, 2)
	}
	// A column of larger numbers whose values span decades (horizons of
	// 0.5 and 43 minutes) keeps two significant digits of its smallest
	// estimate, up to 2 decimals: 0.49 [0.02, 1.88], not 0 [0, 2].
	if big >= 10 && !math.IsInf(small, 1) {
		d = max(d, min(1-int(math.Floor(math.Log10(small))), 2))
	}
	return min(max(d, 0), held, 4)
}

// cellStyle is how the joined cells are written: as LaTeX, or as plain
// text (Joined).
type cellStyle struct {
	text                              func(string) string
	empty, minus, inf, negInf, lt, gt string
}

var (
	latexStyle = cellStyle{EscapeLaTeX, "--", "$-$", "$\\infty$", "$-\\infty$", "$<$", "$>-$"}
	plainStyle = cellStyle{func(s string) string { return s }, "", "-", "+Inf", "-Inf", "<", ">-"}
)

func (c *latexColumn) cell(r int, st cellStyle) string {
	t := c.t
	if c.lo < 0 {
		s := t.cellAt(r, c.est)
		if !c.numeric {
			if strings.TrimSpace(s) == "" {
				return st.empty
			}
			return st.text(s)
		}
		if c.integer {
			return st.number(s, -1)
		}
		return st.number(s, c.decimals)
	}
	// In an interval a value that rounds to zero is 0.00, not <0.01.
	st.lt, st.gt = "", ""
	lo, hi := t.cellAt(r, c.lo), t.cellAt(r, c.hi)
	ci := ""
	if strings.TrimSpace(lo) != "" || strings.TrimSpace(hi) != "" {
		ci = "[" + st.number(lo, c.decimals) + ", " + st.number(hi, c.decimals) + "]"
	}
	if c.est < 0 {
		if ci == "" {
			return st.empty
		}
		return ci
	}
	e := st.number(t.cellAt(r, c.est), c.decimals)
	if ci == "" {
		return e
	}
	return e + " " + ci
}

// latexNumber is latexStyle.number.
func latexNumber(s string, d int) string { return latexStyle.number(s, d) }

// number formats the number in cell s with d decimals (d < 0: as it is):
// "--" (LaTeX) for an empty cell or NaN, $\infty$ for infinities, a real
// minus sign, <0.001 for a value that is not zero but rounds to zero
// (with d > 0). Text that is not a number is escaped.
func (st cellStyle) number(s string, d int) string {
	s = strings.TrimSpace(s)
	f, ok := parseCell(s)
	switch {
	case s == "":
		return st.empty
	case !ok:
		return st.text(s)
	case math.IsNaN(f):
		return st.empty
	case math.IsInf(f, 1):
		return st.inf
	case math.IsInf(f, -1):
		return st.negInf
	}
	if d < 0 {
		return strings.Replace(s, "-", st.minus, 1)
	}
	out := strconv.FormatFloat(f, 'f', d, 64)
	if g, _ := strconv.ParseFloat(out, 64); g == 0 {
		if f == 0 || d == 0 {
			return strconv.FormatFloat(0, 'f', d, 64)
		}
		tiny := "0." + strings.Repeat("0", d-1) + "1"
		if st.lt == "" {
			return strconv.FormatFloat(0, 'f', d, 64)
		}
		if f < 0 {
			return st.gt + tiny
		}
		return st.lt + tiny
	}
	return strings.Replace(out, "-", st.minus, 1)
}

// Joined returns t with each interval (LaTeXIntervals) joined into one
// cell, "0.44 [0.38, 0.50]", and the numbers rounded, as the LaTeX form
// writes them, in plain text (NaN and empty cells empty): a table to read.
func (t *Table) Joined() *Table {
	cols := t.latexColumns()
	j := &Table{Header: make([]string, len(cols)), Source: t.Source}
	for i, c := range cols {
		j.Header[i] = c.header
	}
	for r := range t.Rows {
		row := make([]string, len(cols))
		for i, c := range cols {
			row[i] = c.cell(r, plainStyle)
		}
		j.Rows = append(j.Rows, row)
	}
	return j
}

// EscapeLaTeX escapes the characters LaTeX treats specially in text
// (\ { } $ & # ^ _ % ~ < > |) so that s prints as it is, writes the
// symbols rdeval's text uses (α, ±, ×, ≥, …) as LaTeX commands, and turns
// control characters into spaces.
func EscapeLaTeX(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\\':
			b.WriteString(`\textbackslash{}`)
		case '{', '}', '$', '&', '#', '_', '%':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '^':
			b.WriteString(`\textasciicircum{}`)
		case '~':
			b.WriteString(`\textasciitilde{}`)
		case '<':
			b.WriteString(`\textless{}`)
		case '>':
			b.WriteString(`\textgreater{}`)
		case '|':
			b.WriteString(`\textbar{}`)
		default:
			if m, ok := latexSymbols[r]; ok {
				b.WriteString(m)
				continue
			}
			if r < 0x20 || r == 0x7f {
				b.WriteByte(' ')
				continue
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// latexSymbols are the characters outside Latin-1 that rdeval's own text
// uses (captions, notes), which pdflatex's utf8 input does not know, as
// LaTeX commands.
var latexSymbols = map[rune]string{
	'α': `$\alpha$`, 'β': `$\beta$`, 'σ': `$\sigma$`, 'μ': `$\mu$`, 'Σ': `$\Sigma$`, 'Δ': `$\Delta$`,
	'≥': `$\geq$`, '≤': `$\leq$`, '≠': `$\neq$`, '≈': `$\approx$`, '∞': `$\infty$`, '−': `$-$`,
	'→': `$\rightarrow$`, '…': `\ldots{}`, '±': `$\pm$`, '×': `$\times$`, '·': `$\cdot$`,
}

// labelPart keeps the letters, digits, dashes and colons of s, for a
// \label.
func labelPart(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == ':' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// ShellJoin joins args into a command line a POSIX shell reads back as
// args: an argument with anything but letters, digits and -_./=:,@%+ is
// single-quoted, one with control characters Go-quoted.
func ShellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		switch {
		case a == "":
			q[i] = "''"
		case strings.IndexFunc(a, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0:
			g := strconv.Quote(a)
			q[i] = "$'" + strings.ReplaceAll(g[1:len(g)-1], "'", `\'`) + "'"
		case strings.IndexFunc(a, func(r rune) bool { return !shellSafe(r) }) >= 0:
			q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		default:
			q[i] = a
		}
	}
	return strings.Join(q, " ")
}

func shellSafe(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,@%+", r) || r >= 0x80
}

package cmdutil

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
)

// Output formats of the --format flag.
const (
	FormatTable = "table"
	FormatJSON  = "json"
	FormatCSV   = "csv"
)

// CheckFormat validates a --format value against the allowed ones.
func CheckFormat(f string, allowed ...string) error {
	for _, a := range allowed {
		if f == a {
			return nil
		}
	}
	return Usagef("--format %q: want %s", f, strings.Join(allowed, ", "))
}

// Table is rows of text cells under a header, printable as an aligned
// table, CSV or LaTeX.
type Table struct {
	Header []string
	Rows   [][]string
	// Intervals are the estimate/low/high columns the LaTeX form joins
	// into one cell; nil: found by their names (LaTeXIntervals).
	Intervals []Interval
	// Source is the caption, command line and seed the LaTeX form
	// records (Cite, Seeded); nil: an empty caption.
	Source *Source
}

// WriteText writes t aligned in columns. On a terminal
// (iostreams.IsTerminal) each cell is passed through iostreams.TerminalSafe, so that
// text from the input (a run id, an agent name) cannot move the cursor,
// clear the screen or reverse the text after it.
func (t *Table) WriteText(w io.Writer) error {
	safe := func(s string) string { return s }
	if iostreams.IsTerminal(w) {
		safe = iostreams.TerminalSafe
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(cells []string) {
		for i, c := range cells {
			if i > 0 {
				tw.Write([]byte{'\t'})
			}
			io.WriteString(tw, safe(c))
		}
		tw.Write([]byte{'\n'})
	}
	row(t.Header)
	for _, r := range t.Rows {
		row(r)
	}
	return tw.Flush()
}

// WriteCSV writes t as CSV with a header line.
func (t *Table) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write(t.Header)
	cw.WriteAll(t.Rows)
	return cw.Error()
}

// WriteJSON writes v as indented JSON.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// Emit writes the result in the --format the user chose: js as indented JSON
// (an empty list, not null, when there are no rows), t as CSV, t as a
// LaTeX table, or t as an aligned table.
func Emit(w io.Writer, format string, t *Table, js []map[string]any) error {
	switch format {
	case FormatJSON:
		if js == nil {
			js = []map[string]any{}
		}
		return WriteJSON(w, js)
	case FormatCSV:
		return t.WriteCSV(w)
	case FormatLaTeX:
		return t.WriteLaTeX(w)
	}
	return t.WriteText(w)
}

// JSONNum is f for a JSON value, or nil (JSON null) when f is NaN or ±Inf,
// which encoding/json cannot write.
func JSONNum(f float64) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return f
}

// Fixed4 formats f with four decimals for a table cell; NaN is an empty
// cell.
func Fixed4(f float64) string {
	if math.IsNaN(f) {
		return ""
	}
	return strconv.FormatFloat(f, 'f', 4, 64)
}

// CheckFigurePath validates the file named by a --figure flag: its extension
// picks the format, .svg, .png or .pdf (as figures.SaveFile).
func CheckFigurePath(flag, path string) error {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".svg", ".png", ".pdf":
		return nil
	}
	return Usagef("%s %q: want a .svg, .png or .pdf file", flag, path)
}

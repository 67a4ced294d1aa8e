package cmdutil

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

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
// (iostreams.IsTerminal) each cell is passed through TerminalSafe, so that
// text from the input (a run id, an agent name) cannot move the cursor,
// clear the screen or reverse the text after it.
func (t *Table) WriteText(w io.Writer) error {
	safe := func(s string) string { return s }
	if iostreams.IsTerminal(w) {
		safe = TerminalSafe
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

// TerminalSafe escapes, as Go escapes them in a string literal, what a
// terminal would act on rather than show: C0 and C1 control characters
// (ESC starts ANSI sequences, CR returns to the line's start, TAB would
// break the table's columns), DEL, the bidirectional overrides, embeddings
// and isolates (U+202A–U+202E, U+2066–U+2069, which reorder what follows),
// and bytes that are not UTF-8 (\xff). Other text is unchanged; a backslash
// is not escaped, as ls -b and git leave the plain case alone.
func TerminalSafe(s string) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if needsEscape(r, n) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case !needsEscape(r, n):
			b.WriteString(s[i : i+n])
		case r == utf8.RuneError:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += n
	}
	return b.String()
}

// needsEscape reports whether TerminalSafe escapes rune r (of n bytes; a
// RuneError of 1 byte is a byte that is not UTF-8).
func needsEscape(r rune, n int) bool {
	switch {
	case r == utf8.RuneError && n == 1:
		return true
	case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
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

package cmdutil

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
)

func TestEmit(t *testing.T) {
	tab := &Table{Header: []string{"a", "b"}, Rows: [][]string{{"1", "x,y"}}}
	for _, tc := range []struct {
		format string
		js     []map[string]any
		want   string
	}{
		{FormatJSON, nil, "[]\n"},
		{FormatJSON, []map[string]any{{"a": JSONNum(math.Inf(1))}}, "[\n  {\n    \"a\": null\n  }\n]\n"},
		{FormatCSV, nil, "a,b\n1,\"x,y\"\n"},
		{FormatTable, nil, "a  b\n1  x,y\n"},
	} {
		var buf bytes.Buffer
		if err := Emit(&buf, tc.format, tab, tc.js); err != nil {
			t.Fatalf("%s: %v", tc.format, err)
		}
		if buf.String() != tc.want {
			t.Errorf("%s: got %q, want %q", tc.format, buf.String(), tc.want)
		}
	}
}

func TestNumberCells(t *testing.T) {
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if v := JSONNum(f); v != nil {
			t.Errorf("JSONNum(%v) = %v, want nil", f, v)
		}
	}
	if v := JSONNum(0.25); v != 0.25 {
		t.Errorf("JSONNum(0.25) = %v", v)
	}
	if s := Fixed4(math.NaN()); s != "" {
		t.Errorf("Fixed4(NaN) = %q, want empty", s)
	}
	if s := Fixed4(2.0 / 3); s != "0.6667" {
		t.Errorf("Fixed4(2/3) = %q, want 0.6667", s)
	}
}

// TestWriteTextTerminal: on a terminal, table cells that hold control
// characters (ANSI escapes, CR), bidi overrides or invalid UTF-8 from the
// input are escaped, as ls and git do, so a run id cannot repaint the
// screen or reverse the text after it; elsewhere (a pipe, a file) the
// bytes are written as they are.
func TestWriteTextTerminal(t *testing.T) {
	tab := &Table{Header: []string{"agent", "score"}, Rows: [][]string{
		{"\x1b[2J\x1b[31mred", "0.5"},
		{"a\rb", "1"},
		{"evil\u202etxt.exe", "2"},
		{"bad\xffutf8", "3"},
		{"tab\there\x7f", "4"},
		{"ok é ü 日本 ×", "5"},
	}}
	term := iostreams.NewTerminalBuffer()
	if err := tab.WriteText(term); err != nil {
		t.Fatal(err)
	}
	// Columns are as wide as the widest cell, escaped (18 runes), plus 2.
	var want string
	for _, r := range [][2]string{
		{"agent", "score"},
		{`\x1b[2J\x1b[31mred`, "0.5"},
		{`a\rb`, "1"},
		{`evil\u202etxt.exe`, "2"},
		{`bad\xffutf8`, "3"},
		{`tab\there\x7f`, "4"},
		{"ok é ü 日本 ×", "5"},
	} {
		want += r[0] + strings.Repeat(" ", 20-utf8.RuneCountInString(r[0])) + r[1] + "\n"
	}
	if got := term.String(); got != want {
		t.Errorf("terminal:\n%s\nwant:\n%s", got, want)
	}
	var plain bytes.Buffer
	tab.WriteText(&plain)
	if !strings.Contains(plain.String(), "\x1b[2J") || !strings.Contains(plain.String(), "\u202e") {
		t.Errorf("not a terminal, yet escaped: %q", plain.String())
	}
}

package iostreams

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// TerminalSafe escapes, as Go escapes them in a string literal, what a
// terminal would act on rather than show: C0 and C1 control characters
// (ESC starts ANSI sequences, CR returns to the line's start, TAB would
// break the table's columns), DEL, the bidirectional overrides, embeddings
// and isolates (U+202A–U+202E, U+2066–U+2069, which reorder what follows),
// and bytes that are not UTF-8 (\xff). Other text is unchanged; a backslash
// is not escaped, as ls -b and git leave the plain case alone.
func TerminalSafe(s string) string { return terminalSafe(s, false) }

// TerminalSafeText is TerminalSafe for free text of one or more lines (a
// warning, an error): it keeps the line breaks ("\n") and escapes the
// rest as TerminalSafe does.
func TerminalSafeText(s string) string { return terminalSafe(s, true) }

// TextFor is s as it may be written to w: TerminalSafeText(s) when w is
// a terminal (IsTerminal), s otherwise. For free text that a command
// writes to stdout beside a table (inspect's warnings).
// The terminal is looked for (a system call) only when s has something
// to escape.
func TextFor(w io.Writer, s string) string {
	if safe := TerminalSafeText(s); len(safe) != len(s) && IsTerminal(w) {
		return safe
	}
	return s
}

func terminalSafe(s string, keepNL bool) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c >= 0x20 && c < 0x7f || keepNL && c == '\n' {
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
		case keepNL && r == '\n', !needsEscape(r, n):
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

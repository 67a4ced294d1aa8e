package ingest

import (
	"fmt"
	"strings"
)

// Error is a problem with one input record, positioned in its file. It
// prints as
//
//	all_runs.jsonl:1203: field "score": want number, got string "n/a"
//	all_runs.jsonl:17:52: invalid character 'x' looking for beginning of value
//
// Line and Col are 1-based; 0 means unknown (a whole-file error).
type Error struct {
	File  string // the input path as given
	Line  int    // 1-based line number; 0 for a whole-file error
	Col   int    // 1-based byte column; 0 when unknown
	Field string // the field (source column name) at fault, if any
	Msg   string // what was expected and what was found
	// Input says the error rejects the whole input (or the rest of it),
	// not one record: a file that cannot be read, of no known format, whose
	// header or first structure is bad, or whose gzip stream is corrupt or
	// cut short. Such an error may still name a line (the header's).
	Input bool
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Col > 0 {
			fmt.Fprintf(&b, ":%d", e.Col)
		}
	}
	b.WriteString(": ")
	if e.Field != "" {
		fmt.Fprintf(&b, "field %q: ", e.Field)
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Rejected is a record that failed validation, kept with its error so that
// --skip-bad loses nothing: rejected.jsonl holds one Rejected per line.
type Rejected struct {
	File  string `json:"file"`
	Line  int    `json:"line"`
	Error string `json:"error"`
	Text  string `json:"text"` // the raw record (invalid UTF-8 replaced by U+FFFD; cut at 1 MiB)
	// Input says the whole input was rejected (unreadable, of no known
	// format), or the rest of it from Line on (a truncated gzip stream):
	// Text is then empty.
	Input bool `json:"input,omitempty"`
}

// Warning is a caveat about the data that does not reject anything, e.g.
// "task ai_rd_x/main has 3 runs (< 5)". File is empty for dataset-wide warnings.
type Warning struct {
	File string `json:"file,omitempty"`
	Msg  string `json:"message"`
}

func (w Warning) String() string {
	if w.File == "" {
		return w.Msg
	}
	return w.File + ": " + w.Msg
}

// ErrBadInput is returned (wrapped in *InputErrors) when any record was
// rejected and the caller did not ask to skip bad records.
type InputErrors struct {
	Errs []*Error
}

func (e *InputErrors) Error() string {
	if len(e.Errs) == 1 {
		return e.Errs[0].Error()
	}
	return fmt.Sprintf("%d bad records; first: %s", len(e.Errs), e.Errs[0])
}

// Summary counts the errors by kind, for a command's last line: "2 bad
// records", "1 input rejected as a whole" (an error of a whole file: missing,
// unreadable, of no known format, a bad header, a corrupt gzip stream), or
// both.
func (e *InputErrors) Summary() string {
	files := e.FileErrors()
	records := len(e.Errs) - files
	var parts []string
	if files > 0 {
		parts = append(parts, countOf(files, "input", "inputs")+" rejected as a whole")
	}
	if records > 0 || files == 0 {
		parts = append(parts, countOf(records, "bad record", "bad records"))
	}
	return strings.Join(parts, " and ")
}

// FileErrors is the number of errors that concern a whole file (Error.Input,
// or no line) rather than one of its records.
func (e *InputErrors) FileErrors() int {
	n := 0
	for _, err := range e.Errs {
		if err.Input || err.Line == 0 {
			n++
		}
	}
	return n
}

func countOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Format writes the first max errors, one per line, and a count of the rest.
func (e *InputErrors) Format(max int) string {
	var b strings.Builder
	for i, err := range e.Errs {
		if i == max {
			fmt.Fprintf(&b, "… and %d more errors\n", len(e.Errs)-max)
			break
		}
		b.WriteString(err.Error())
		b.WriteByte('\n')
	}
	return b.String()
}

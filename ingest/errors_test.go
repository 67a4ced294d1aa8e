package ingest

import "testing"

// TestInputErrorsSummary: errors of whole files (Line 0: missing,
// unreadable, no known format) are counted apart from bad records.
func TestInputErrorsSummary(t *testing.T) {
	file := &Error{File: "a.jsonl", Msg: "no such file or directory"}
	rec := &Error{File: "b.jsonl", Line: 3, Field: "score", Msg: "want number"}
	for _, c := range []struct {
		errs  []*Error
		want  string
		files int
	}{
		{[]*Error{rec}, "1 bad record", 0},
		{[]*Error{rec, rec}, "2 bad records", 0},
		{[]*Error{file}, "1 input rejected as a whole", 1},
		{[]*Error{file, file, rec}, "2 inputs rejected as a whole and 1 bad record", 2},
	} {
		e := &InputErrors{Errs: c.errs}
		if got := e.Summary(); got != c.want {
			t.Errorf("Summary() = %q, want %q", got, c.want)
		}
		if got := e.FileErrors(); got != c.files {
			t.Errorf("%q: FileErrors() = %d, want %d", c.want, got, c.files)
		}
	}
}

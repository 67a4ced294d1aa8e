package ingest

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/rdeval/rdeval/ingest/internal/csvline"
)

// readCSV reads the records after the header line (headerLine is its
// 1-based line number) with the reader's column mapping. Records are split
// by csvline (RFC 4180, like encoding/csv without lazy quotes); a quoted
// field may span lines. Each record is reported at the line where it starts.
func (l *loader) readCSV(s *source, st *InputStats, header []string, headerLine int, reader string) {
	for i := range header {
		header[i] = strings.TrimSpace(header[i])
	}
	if err := checkHeader(header); err != nil {
		l.fileErr(s.path, &Error{File: s.path, Line: headerLine, Msg: err.Error()})
		return
	}
	var row func(rec [][]byte, line int) error
	switch reader {
	case ReaderScoreLogCSV:
		row = l.scoreLogCSVRow(s, st, header)
	case ReaderScoreLogJSONL:
		row = l.scoreCSVRow(st, header)
	case ReaderRExBenchTable:
		var err error
		if row, err = l.rexTableRow(s, st, header); err != nil {
			l.fileErr(s.path, &Error{File: s.path, Line: headerLine, Msg: err.Error()})
			return
		}
	case ReaderMETR, ReaderRExBenchRuns, ReaderGeneric:
		row = l.runCSVRow(s, st, header, reader)
	default:
		l.fileErr(s.path, &Error{File: s.path, Msg: "reader " + reader + " does not read CSV"})
		return
	}
	if reader == ReaderScoreLogCSV && l.useParallel(s) {
		l.readCSVScoreLogParallel(s, st, header)
		return
	}
	var sp csvline.Splitter
	var joined []byte
	for {
		line, err := s.readLine()
		if err == io.EOF {
			break
		}
		if err != nil {
			l.fileErr(s.path, err)
			break
		}
		start := s.line
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		st.RowsRead++
		fields, perr := sp.Split(line)
		if pe, ok := perr.(*csvline.ParseError); ok && pe.Open {
			// A quoted field spans lines: join them until the quotes balance.
			joined = append(joined[:0], line...)
			for csvline.Open(joined) {
				next, err := s.readLine()
				if err != nil {
					break // Split reports the unterminated quote
				}
				joined = append(append(joined, '\n'), next...)
			}
			line = joined
			fields, perr = sp.Split(line)
		}
		if perr != nil {
			pe := perr.(*csvline.ParseError)
			e := &Error{File: s.path, Line: start, Msg: pe.Msg}
			if s.line == start {
				e.Col = pe.Offset + 1
			}
			l.reject(st, e, line)
			continue
		}
		if e := checkRecord(s.path, start, header, fields, line); e != nil {
			l.reject(st, e, line)
			continue
		}
		if err := row(fields, start); err != nil {
			l.reject(st, lineError(s, start, err), line)
		}
	}
}

// checkRecord rejects a record (text, split into fields) whose field count
// differs from the header's, or that holds a NUL byte, which no text
// format writes: a binary or corrupt file, or a C string cut short.
func checkRecord(path string, line int, header []string, fields [][]byte, text []byte) *Error {
	if len(fields) != len(header) {
		return &Error{File: path, Line: line, Msg: fmt.Sprintf("ragged row: want %d fields as in the header, got %d", len(header), len(fields))}
	}
	if bytes.IndexByte(text, 0) >= 0 {
		for i, f := range fields {
			if j := bytes.IndexByte(f, 0); j >= 0 {
				return &Error{File: path, Line: line, Field: header[i], Msg: fmt.Sprintf("NUL byte (\\x00) at byte %d of the value: a binary or corrupt file?", j+1)}
			}
		}
	}
	return nil
}

// checkHeader rejects a CSV header that names a column twice: which of the
// two would be read is a guess.
func checkHeader(header []string) error {
	first := make(map[string]int, len(header))
	for i, h := range header {
		if h == "" {
			continue // unnamed columns (a pandas index) are not read by name
		}
		if j, ok := first[h]; ok {
			return fmt.Errorf("duplicate column %q (columns %d and %d): rename or drop one", h, j+1, i+1)
		}
		first[h] = i
	}
	return nil
}

func (l *loader) runCSVRow(s *source, st *InputStats, header []string, reader string) func([][]byte, int) error {
	spec := l.runSpec(reader)
	setters := make([]runSetter, len(header))
	var unknown = map[string]int{}
	humanCol := -1
	for i, h := range header {
		if canon := spec.lookup([]byte(h)); canon != "" {
			setters[i] = runColumns[canon]
		} else if reader == ReaderMETR && h == "human_score" {
			humanCol = i
		} else if !spec.ignored[h] {
			unknown[h]++
		}
	}
	l.warnUnknown(s.path, unknown)
	return func(rec [][]byte, line int) error {
		r := Run{SourceFile: s.path, SourceLine: int64(line)}
		for i, set := range setters {
			if set == nil {
				continue
			}
			c := csvCell(l.intern(rec[i]))
			if c.null() {
				continue
			}
			if err := set(&r, c); err != nil {
				return &Error{File: s.path, Line: line, Field: header[i], Msg: err.Error()}
			}
		}
		if err := l.finishRun(&r, reader); err != nil {
			return err
		}
		if humanCol >= 0 {
			if f, err := csvCell(string(rec[humanCol])).float(); err == nil {
				l.setHumanRef(r.TaskID, f)
			}
		}
		l.addRun(&r, st)
		return nil
	}
}

// scoreLogCSVRow reads METR task-protected-scoring score.log rows:
// timestamp,score,message,details. The run id is Options.RunID or the name
// of the folder holding the file. details is not kept (see docs/data-model.md).
func (l *loader) scoreLogCSVRow(s *source, st *InputStats, header []string) func([][]byte, int) error {
	parse := l.scoreLogCSVParse(s.path, header, l.runIDFromPath(s.path), &l.interner)
	grown := false
	return func(rec [][]byte, line int) error {
		if !grown {
			n := len(rec) // separators
			for _, f := range rec {
				n += len(f)
			}
			l.growScores(s, n)
			grown = true
		}
		e, err := parse(rec, line)
		if err != nil {
			return err
		}
		l.ds.Scores = append(l.ds.Scores, e)
		st.RowsKept++
		return nil
	}
}

// scoreLogCSVParse returns the function that checks one score.log record
// and makes its entry. It uses no loader state, so parse workers each own
// one (with their own interner).
func (l *loader) scoreLogCSVParse(path string, header []string, runID string, in *interner) func([][]byte, int) (ScoreEntry, error) {
	msgCol := -1
	for i, h := range header {
		if h == "message" {
			msgCol = i
		}
	}
	return func(rec [][]byte, line int) (ScoreEntry, error) {
		if runID == "" {
			return ScoreEntry{}, &Error{File: path, Line: line, Msg: "no run id: score.log files take the run id from their folder (runs/<run_id>/score.log); pass --run-id"}
		}
		e := ScoreEntry{RunID: runID}
		t, ok := parseISOTimeBytes(bytes.TrimSpace(rec[0]))
		if !ok {
			return ScoreEntry{}, &Error{File: path, Line: line, Field: "timestamp", Msg: fmt.Sprintf("want ISO 8601 timestamp, got %q", truncate(string(rec[0]), 40))}
		}
		e.ScoredAt = Some(t)
		f, ok := parseScoreBytes(rec[1])
		if !ok {
			var err error
			if f, err = csvCell(string(rec[1])).floatNaN(); err != nil {
				return ScoreEntry{}, &Error{File: path, Line: line, Field: "score", Msg: err.Error()}
			}
		}
		if math.IsInf(f, 0) {
			return ScoreEntry{}, &Error{File: path, Line: line, Field: "score", Msg: "infinite score"}
		}
		e.RawScore = f
		if msgCol >= 0 && len(rec[msgCol]) > 0 {
			if !utf8.Valid(rec[msgCol]) {
				return ScoreEntry{}, &Error{File: path, Line: line, Field: "message", Msg: "invalid UTF-8 in field"}
			}
			e.Message = Some(in.intern(rec[msgCol]))
		}
		return e, nil
	}
}

// runIDFromPath returns Options.RunID, else the name of the folder holding
// path ("" when that folder has no name, e.g. a file at the root of an FS).
func (l *loader) runIDFromPath(path string) string {
	if l.opt.RunID != "" {
		return l.opt.RunID
	}
	dir := filepath.Dir(path)
	if l.opt.FS == nil {
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
	}
	base := filepath.Base(dir)
	if base == "." || base == "/" || base == string(filepath.Separator) {
		return ""
	}
	return base
}

// scoreCSVRow reads score-log rows in CSV with the JSONL column names.
func (l *loader) scoreCSVRow(st *InputStats, header []string) func([][]byte, int) error {
	setters := make([]scoreSetter, len(header))
	for i, h := range header {
		name := h
		if a, ok := scoreAliases[h]; ok {
			name = a
		}
		setters[i] = scoreColumns[name]
	}
	return func(rec [][]byte, line int) error {
		e := ScoreEntry{RawScore: math.NaN()}
		for i, set := range setters {
			if set == nil {
				continue
			}
			c := csvCell(l.intern(rec[i]))
			if c.null() {
				continue
			}
			if err := set(&e, c); err != nil {
				return &Error{Line: line, Field: header[i], Msg: err.Error()}
			}
		}
		if err := checkScoreEntry(&e); err != nil {
			return err
		}
		l.ds.Scores = append(l.ds.Scores, e)
		st.RowsKept++
		return nil
	}
}

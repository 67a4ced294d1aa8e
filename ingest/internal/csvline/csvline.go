// Package csvline splits CSV records (RFC 4180) held in memory, without
// allocating on the common path. It is the fast path behind rdeval's CSV
// readers: the caller reads physical lines, joins the lines of a record
// whose quoted field spans a newline (see Open), and calls Split.
//
// Semantics follow encoding/csv with LazyQuotes false and TrimLeadingSpace
// false: a field is either unquoted (no '"' inside) or quoted, with '""'
// standing for one '"'. FuzzSplit checks agreement with encoding/csv.
package csvline

import (
	"bytes"
	"fmt"
)

// ParseError is a malformed record.
type ParseError struct {
	Offset int    // 0-based byte offset in the record
	Msg    string // as encoding/csv words it
	Open   bool   // the record ended inside a quoted field: it may continue on the next line
}

func (e *ParseError) Error() string { return fmt.Sprintf("col %d: %s", e.Offset+1, e.Msg) }

// Open reports whether rec ends inside a quoted field, i.e. whether the
// record continues on the next line. Escaped quotes come in pairs, so an
// odd number of '"' means a quote is still open.
func Open(rec []byte) bool { return bytes.Count(rec, []byte{'"'})%2 == 1 }

// Splitter splits records; reuse one to avoid allocations.
type Splitter struct {
	fields [][]byte
	buf    []byte
}

// Split splits one record (without its final newline) into fields. The
// fields alias rec or an internal buffer and are valid until the next call.
func (s *Splitter) Split(rec []byte) ([][]byte, error) {
	s.fields = s.fields[:0]
	s.buf = s.buf[:0]
	reserved := false
	i := 0
	for {
		if i < len(rec) && rec[i] == '"' {
			// Quoted field.
			i++
			if j := bytes.IndexByte(rec[i:], '"'); j >= 0 && (i+j+1 == len(rec) || rec[i+j+1] != '"') {
				// No doubled quote: the field is rec's own bytes, not a
				// copy (a 100 MB quoted transcript took 200 MB more).
				s.fields = append(s.fields, rec[i:i+j:i+j])
				i += j + 1
				if i == len(rec) {
					return s.fields, nil
				}
				if rec[i] != ',' {
					return nil, &ParseError{Offset: i, Msg: `extraneous or missing " in quoted-field`}
				}
				i++
				continue
			}
			// A field with doubled quotes is unescaped into buf, which
			// never needs more than len(rec) bytes: reserving that before
			// the first copy keeps earlier field slices valid while later
			// ones are appended (twice that for short records, so that buf
			// seldom grows again).
			if !reserved {
				if cap(s.buf) < len(rec) {
					n := 2 * len(rec)
					if len(rec) > 1<<20 {
						n = len(rec)
					}
					s.buf = make([]byte, 0, n)
				}
				reserved = true
			}
			start := len(s.buf)
			for {
				j := bytes.IndexByte(rec[i:], '"')
				if j < 0 {
					return nil, &ParseError{Offset: len(rec), Msg: `extraneous or missing " in quoted-field`, Open: true}
				}
				s.buf = append(s.buf, rec[i:i+j]...)
				i += j + 1
				if i < len(rec) && rec[i] == '"' {
					s.buf = append(s.buf, '"')
					i++
					continue
				}
				break
			}
			s.fields = append(s.fields, s.buf[start:len(s.buf):len(s.buf)])
			if i == len(rec) {
				return s.fields, nil
			}
			if rec[i] != ',' {
				return nil, &ParseError{Offset: i, Msg: `extraneous or missing " in quoted-field`}
			}
			i++
			continue
		}
		j := bytes.IndexByte(rec[i:], ',')
		end := len(rec)
		if j >= 0 {
			end = i + j
		}
		if q := bytes.IndexByte(rec[i:end], '"'); q >= 0 {
			return nil, &ParseError{Offset: i + q, Msg: `bare " in non-quoted-field`}
		}
		s.fields = append(s.fields, rec[i:end:end])
		if j < 0 {
			return s.fields, nil
		}
		i = end + 1
	}
}

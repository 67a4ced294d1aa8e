package ingest

// NaN and ±Infinity in Inspect logs.
//
// Inspect serialises its logs with pydantic's ser_json_inf_nan="constants"
// (EvalLog, EvalSample, EvalSampleReductions, ScoreEvent), so a log holds
// the bare tokens NaN, Infinity and -Infinity where a number is: a stderr
// metric over one sample, a NaN score, an infinite time. They are not JSON,
// and encoding/json refuses them. Before decoding, nanRewriter replaces
// each such token standing where a JSON value may stand (after ':' or '[',
// after ',' inside an array, or as the whole document) by a string holding
// a sentinel: "\u0000NaN", "\u0000Infinity" or "\u0000-Infinity". The same
// letters anywhere else (inside strings, in a key's place, misspelt) are
// left alone, so invalid JSON stays invalid. inspectNum (times, tokens)
// reads a sentinel as a missing number; a score value of NaN is a missing
// score, counted in a warning; an infinite score is not convertible.
//
// A JSON string holding exactly U+0000 followed by NaN would read as the
// sentinel; no Inspect field holds such a string.

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
)

const (
	sentinelNaN    = `"\u0000NaN"`
	sentinelInf    = `"\u0000Infinity"`
	sentinelNegInf = `"\u0000-Infinity"`
)

// nanRewriter is the state of the rewriting scan; it is fed bytes in
// order and appends the rewritten bytes to out.
type nanRewriter struct {
	inStr, esc bool
	stack      []byte // open containers, '{' or '['
	prev       byte   // last significant byte outside strings (0 at start)
	pend       []byte // a token being matched (prefix of NaN, Infinity, -Infinity)

	outPos int64   // bytes written before the current write call
	shifts []shift // where a sentinel made the output longer than the input
}

// shift records that the output is delta bytes longer than the input from
// output offset at on.
type shift struct{ at, delta int64 }

// inputOffset maps an offset in the rewritten output back to the input,
// so that error messages name the byte of the file.
func (r *nanRewriter) inputOffset(out int64) int64 {
	in := out
	for _, s := range r.shifts {
		if s.at <= out {
			in -= s.delta
		}
	}
	return in
}

var nanTokens = [...]string{"NaN", "Infinity", "-Infinity"}

// valuePos reports whether a value may start after r.prev.
func (r *nanRewriter) valuePos() bool {
	switch r.prev {
	case 0, ':', '[':
		return true
	case ',':
		return len(r.stack) > 0 && r.stack[len(r.stack)-1] == '['
	}
	return false
}

// write scans p, appending to out.
func (r *nanRewriter) write(out, p []byte) []byte {
	start := len(out)
	defer func() { r.outPos += int64(len(out) - start) }()
	for _, c := range p {
		if r.pend != nil {
			r.pend = append(r.pend, c)
			full, prefix := false, false
			for _, t := range nanTokens {
				if len(r.pend) <= len(t) && t[:len(r.pend)] == string(r.pend) {
					prefix = true
					full = full || len(r.pend) == len(t)
				}
			}
			switch {
			case full:
				sent := sentinelNegInf
				switch string(r.pend) {
				case "NaN":
					sent = sentinelNaN
				case "Infinity":
					sent = sentinelInf
				}
				out = append(out, sent...)
				r.shifts = append(r.shifts, shift{r.outPos + int64(len(out)-start), int64(len(sent) - len(r.pend))})
				r.pend = nil
				r.prev = 'v'
				continue
			case prefix:
				continue
			}
			// Not one of the tokens (e.g. the '-' of -1): give back the
			// bytes before c as they were, and scan c as usual.
			out = append(out, r.pend[:len(r.pend)-1]...)
			r.pend = nil
			r.prev = 'v'
		}
		if r.inStr {
			out = append(out, c)
			switch {
			case r.esc:
				r.esc = false
			case c == '\\':
				r.esc = true
			case c == '"':
				r.inStr = false
				r.prev = 'v'
			}
			continue
		}
		switch c {
		case ' ', '\t', '\n', '\r':
		case '"':
			r.inStr = true
		case '{', '[':
			r.stack = append(r.stack, c)
			r.prev = c
		case '}', ']':
			if len(r.stack) > 0 {
				r.stack = r.stack[:len(r.stack)-1]
			}
			r.prev = 'v'
		case ':', ',':
			r.prev = c
		case 'N', 'I', '-':
			if r.valuePos() {
				r.pend = append(make([]byte, 0, 9), c)
				continue
			}
			r.prev = 'v'
		default:
			r.prev = 'v'
		}
		out = append(out, c)
	}
	return out
}

// flush gives back a token left unfinished at the end of the input.
func (r *nanRewriter) flush(out []byte) []byte {
	out = append(out, r.pend...)
	r.pend = nil
	return out
}

// rewriteNaN returns data with NaN/Infinity tokens rewritten; data itself
// when it holds none (the common case, without a copy).
func rewriteNaN(data []byte) []byte {
	if !bytes.Contains(data, []byte("NaN")) && !bytes.Contains(data, []byte("Infinity")) {
		return data
	}
	var r nanRewriter
	out := r.write(make([]byte, 0, len(data)+16), data)
	return r.flush(out)
}

// nanReader rewrites a stream.
type nanReader struct {
	src io.Reader
	rw  nanRewriter
	buf []byte // rewritten bytes not yet returned
	in  []byte
	err error
}

func newNaNReader(r io.Reader) *nanReader { return &nanReader{src: r, in: make([]byte, 32<<10)} }

func (n *nanReader) Read(p []byte) (int, error) {
	for len(n.buf) == 0 {
		if n.err != nil {
			return 0, n.err
		}
		k, err := n.src.Read(n.in)
		n.buf = n.rw.write(n.buf[:0], n.in[:k])
		if err != nil {
			n.buf = n.rw.flush(n.buf)
			n.err = err
		}
	}
	k := copy(p, n.buf)
	n.buf = n.buf[k:]
	return k, nil
}

// sentinelValue reports whether raw is one of the sentinels and which
// number it stands for.
func sentinelValue(raw []byte) (float64, bool) {
	switch string(bytes.TrimSpace(raw)) {
	case sentinelNaN:
		return math.NaN(), true
	case sentinelInf:
		return math.Inf(1), true
	case sentinelNegInf:
		return math.Inf(-1), true
	}
	return 0, false
}

// inspectNum is a number field of a log: a JSON number, or null, or NaN or
// ±Infinity (read as missing: Valid false, NonFinite true).
type inspectNum struct {
	V         float64
	Valid     bool
	NonFinite bool
}

func (x *inspectNum) UnmarshalJSON(b []byte) error {
	*x = inspectNum{}
	if string(b) == "null" {
		return nil
	}
	if _, ok := sentinelValue(b); ok {
		x.NonFinite = true
		return nil
	}
	if err := json.Unmarshal(b, &x.V); err != nil {
		return err
	}
	x.Valid = true
	return nil
}

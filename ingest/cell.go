package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rdeval/rdeval/ingest/internal/jsonline"
)

// cell is one field value from either a JSON line or a CSV record, with
// typed accessors whose errors say what was wanted and what was found.
type cell struct {
	isJSON bool
	jv     jsonline.Value
	text   string    // CSV field text
	col    int       // 1-based byte column when known (JSON)
	in     *interner // if set, strings are interned through it
}

func jsonCell(v jsonline.Value) cell { return cell{isJSON: true, jv: v, col: v.Offset + 1} }
func csvCell(s string) cell          { return cell{text: s} }

// null reports a JSON null or an empty CSV field (or one of the usual
// spellings of a missing value: NA, null, None).
func (c cell) null() bool {
	if c.isJSON {
		return c.jv.Kind == jsonline.Null
	}
	switch c.text {
	case "", "NA", "null", "None", "NULL":
		return true
	}
	return false
}

func (c cell) describe() string {
	if c.isJSON {
		return c.jv.Text()
	}
	s := c.text
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return fmt.Sprintf("%q", s)
}

func wantErr(want string, c cell) error {
	return fmt.Errorf("want %s, got %s", want, c.describe())
}

func (c cell) str() (string, error) {
	if c.isJSON {
		if c.jv.Kind != jsonline.String {
			return "", wantErr("string", c)
		}
		// The parser has validated the string, UTF-8 included; without
		// escapes its content is the raw bytes between the quotes.
		if raw := c.jv.Raw; c.in != nil && bytes.IndexByte(raw, '\\') < 0 {
			return c.in.intern(raw[1 : len(raw)-1]), nil
		}
		return c.jv.Str()
	}
	if !utf8.ValidString(c.text) {
		return "", errors.New("invalid UTF-8 in field")
	}
	return c.text, nil
}

// id accepts a string or an integer number (METR human run ids are ints).
func (c cell) id() (string, error) {
	if c.isJSON && c.jv.Kind == jsonline.Number {
		if i, err := c.jv.Int(); err == nil {
			return strconv.FormatInt(i, 10), nil
		}
		return "", wantErr("string or integer id", c)
	}
	s, err := c.str()
	if err == nil && s == "" {
		return "", errors.New("empty id")
	}
	return s, err
}

// float returns a finite number. NaN and ±Inf are refused: a missing value
// is written as null (JSON) or an empty field (CSV).
func (c cell) float() (float64, error) {
	var f float64
	if c.isJSON {
		if c.jv.Kind != jsonline.Number {
			return 0, wantErr("number", c)
		}
		var err error
		if f, err = c.jv.Float(); err != nil {
			return 0, fmt.Errorf("want number, got %s (%v)", c.describe(), err)
		}
		return f, nil
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(c.text), 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return 0, fmt.Errorf("number %s is out of range", c.describe())
		}
		return 0, wantErr("number", c)
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("want a finite number, got %s (leave the field empty for a missing value)", c.describe())
	}
	return f, nil
}

// score is float that also reads a boolean as 1/0: a resolved or success
// flag mapped to a score column (--map score=is_resolved). JSON true/false
// and, in CSV, true/false in any case (pandas writes True/False); 0/1 are
// numbers already.
func (c cell) score() (float64, error) {
	if f, ok := c.boolScore(); ok {
		return f, nil
	}
	return c.float()
}

// scoreNaN is floatNaN that also reads a boolean as 1/0 (see score).
func (c cell) scoreNaN() (float64, error) {
	if f, ok := c.boolScore(); ok {
		return f, nil
	}
	return c.floatNaN()
}

func (c cell) boolScore() (float64, bool) {
	var b bool
	switch {
	case c.isJSON && c.jv.Kind == jsonline.Bool:
		b = c.jv.Bool()
	case c.isJSON:
		return 0, false
	case len(c.text) == 0 || (c.text[0]|0x20 != 't' && c.text[0]|0x20 != 'f' && c.text[0] != ' '):
		return 0, false // a number, most often: no text to compare
	case strings.EqualFold(strings.TrimSpace(c.text), "true"):
		b = true
	case strings.EqualFold(strings.TrimSpace(c.text), "false"):
	default:
		return 0, false
	}
	if b {
		return 1, true
	}
	return 0, true
}

// floatNaN is float but also accepts NaN spellings (score.log writes "nan"
// for an invalid attempt); JSON null also maps to NaN there.
func (c cell) floatNaN() (float64, error) {
	if c.isJSON {
		return c.float()
	}
	switch strings.ToLower(strings.TrimSpace(c.text)) {
	case "nan", "":
		return math.NaN(), nil
	}
	return c.float()
}

func (c cell) int() (int64, error) {
	if c.isJSON {
		if c.jv.Kind != jsonline.Number {
			return 0, wantErr("integer", c)
		}
		i, err := c.jv.Int()
		if err != nil {
			return 0, wantErr("integer", c)
		}
		return i, nil
	}
	t := strings.TrimSpace(c.text)
	if i, err := strconv.ParseInt(t, 10, 64); err == nil {
		return i, nil
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, wantErr("integer", c)
	}
	return int64(f), nil
}

// jsonBool is a JSON true/false, or a 0/1 number; ok is false for
// anything else.
func jsonBool(v jsonline.Value) (b, ok bool) {
	switch v.Kind {
	case jsonline.Bool:
		return v.Bool(), true
	case jsonline.Number:
		f, err := v.Float()
		if err == nil && (f == 0 || f == 1) {
			return f == 1, true
		}
	}
	return false, false
}

// millisTime is the UTC instant ms milliseconds after the Unix epoch, to
// the microsecond.
func millisTime(ms float64) time.Time { return time.UnixMicro(int64(math.Round(ms * 1000))).UTC() }

// maxMillis is the largest timestamp in milliseconds that readers accept:
// 9999-12-31T23:59:59.999Z, in either direction from the epoch. Beyond it a
// value is not a date (1e30 overflowed int64 microseconds, and became a
// made-up duration).
const maxMillis = 253402300799999

// millisInRange reports whether ms is a timestamp millisTime can hold
// (false for NaN).
func millisInRange(ms float64) bool { return ms >= -maxMillis && ms <= maxMillis }

// millisErr says why a number of milliseconds is not a timestamp.
func millisErr(ms float64) error {
	return fmt.Errorf("timestamp %s ms is past the year 9999 (or as far before 1970): want milliseconds since 1970-01-01", strconv.FormatFloat(ms, 'g', -1, 64))
}

// boolean accepts true/false, and 0/1 numbers (as METR and pandas write them).
func (c cell) boolean() (bool, error) {
	if c.isJSON {
		if b, ok := jsonBool(c.jv); ok {
			return b, nil
		}
		return false, wantErr("boolean (true/false or 0/1)", c)
	}
	switch strings.ToLower(strings.TrimSpace(c.text)) {
	case "true", "1", "1.0", "t", "yes":
		return true, nil
	case "false", "0", "0.0", "f", "no":
		return false, nil
	}
	return false, wantErr("boolean (true/false or 0/1)", c)
}

// stringList accepts a JSON array of strings; in CSV, a JSON array text or
// a list separated by ';' or '|'.
func (c cell) stringList() ([]string, error) {
	if c.isJSON {
		if c.jv.Kind != jsonline.Array {
			return nil, wantErr("array of strings", c)
		}
		l, err := c.jv.Strings()
		if err != nil {
			return nil, fmt.Errorf("want array of strings: %v", err)
		}
		if l == nil {
			l = []string{}
		}
		return l, nil
	}
	t := strings.TrimSpace(c.text)
	if strings.HasPrefix(t, "[") {
		var l []string
		if err := json.Unmarshal([]byte(t), &l); err != nil {
			return nil, wantErr("list of strings (JSON array, or separated by ';')", c)
		}
		if l == nil {
			l = []string{}
		}
		return l, nil
	}
	sep := ";"
	if !strings.Contains(t, ";") && strings.Contains(t, "|") {
		sep = "|"
	}
	parts := strings.Split(t, sep)
	out := make([]string, 0, len(parts))
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out, nil
}

// timeMillis accepts a number of milliseconds since the Unix epoch (METR)
// or an RFC 3339 / ISO 8601 string; results are UTC.
func (c cell) timeMillis() (time.Time, error) {
	if c.isJSON && c.jv.Kind == jsonline.Number {
		f, err := c.jv.Float()
		if err != nil {
			return time.Time{}, wantErr("timestamp", c)
		}
		if !millisInRange(f) {
			return time.Time{}, millisErr(f)
		}
		return millisTime(f), nil
	}
	s, err := c.str()
	if err != nil {
		return time.Time{}, wantErr("timestamp (ms since epoch or ISO 8601)", c)
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if !millisInRange(f) {
			return time.Time{}, millisErr(f)
		}
		return millisTime(f), nil
	}
	t, err := parseISOTime(s)
	if err != nil {
		return time.Time{}, wantErr("timestamp (ms since epoch or ISO 8601)", c)
	}
	return t, nil
}

var isoLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999",
}

// parseISOTime parses ISO 8601 timestamps as Python's datetime.isoformat
// writes them ("2024-11-22T10:15:03.123456+00:00", also with a space); a
// timestamp without a zone is taken as UTC.
func parseISOTime(s string) (time.Time, error) {
	var firstErr error
	for _, l := range isoLayouts {
		t, err := time.Parse(l, s)
		if err == nil {
			return t.UTC().Truncate(time.Microsecond), nil // tables keep microseconds
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return time.Time{}, firstErr
}

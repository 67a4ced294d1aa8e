package ingest

// The runs table's extras column: the fields of a source record that no
// column holds, kept as one JSON object per run.
//
// A harness's record (a Harbor trial's result.json, a terminal-bench
// trial, a SWE-bench instance's report, an MLE-bench competition report,
// an Inspect sample's metadata) holds more than the runs table has columns
// for: cache tokens, phase timings, tracebacks, medal thresholds, test
// lists. The reader maps what it can onto the columns and keeps the rest
// in extras, as text holding a JSON object, so that any tool opens it:
// DuckDB `json_extract(extras, '$.agent_info.version')`, polars
// `pl.col("extras").str.json_decode()`, pandas
// `pd.json_normalize(runs.extras.dropna().map(json.loads))`.
//
// The text is canonical, so that the same record gives the same bytes:
// keys sorted (by their UTF-8 bytes, at every depth), no insignificant
// space, strings as encoding/json writes them without HTML escaping,
// numbers as the source wrote them. NaN and ±Infinity (Inspect's
// sentinels, read_inspect_nan.go) become null: JSON has neither. A run
// whose record has no unmapped fields has a null extras.
//
// Size: the text is at most ExtrasCap bytes. When the object is longer,
// its top-level members are dropped, the longest first (ties by key),
// until it fits, and the object gets a member "_dropped" listing the
// dropped keys in order; should the list itself not fit, "_dropped" is
// the number of keys dropped and only that is kept.
//
// The column is written only when some run has extras (as the weight
// columns), so tables of the other readers keep their layout and bytes.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ExtrasCap is the most bytes of one run's extras text.
const ExtrasCap = 64 << 10

// extrasDroppedKey is the member that lists the keys dropped to fit
// ExtrasCap.
const extrasDroppedKey = "_dropped"

// extrasObject decodes raw, a JSON object (NaN sentinels allowed), for
// extras: the members of the object as decoded values (json.Number for
// numbers).
func extrasObject(raw []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	return m, nil
}

// extrasWithout returns raw, a JSON object, less the members at paths
// (keys joined by "."; a path into a member that is not an object, or
// that is absent, removes nothing), as canonical extras text. An object
// emptied by the removals is removed too. It is null when nothing is left
// or raw is null or empty.
func extrasWithout(raw []byte, paths ...string) (Opt[string], error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return Opt[string]{}, nil
	}
	m, err := extrasObject(raw)
	if err != nil {
		return Opt[string]{}, err
	}
	for _, p := range paths {
		deletePath(m, strings.Split(p, "."))
	}
	return extrasText(m), nil
}

// deletePath removes the member at keys from m, and m's object members
// that the removal leaves empty.
func deletePath(m map[string]any, keys []string) {
	if len(keys) == 1 {
		delete(m, keys[0])
		return
	}
	sub, ok := m[keys[0]].(map[string]any)
	if !ok {
		return
	}
	deletePath(sub, keys[1:])
	if len(sub) == 0 {
		delete(m, keys[0])
	}
}

// extrasText is the canonical extras text of m, cut to ExtrasCap; null
// when m is empty.
func extrasText(m map[string]any) Opt[string] {
	if len(m) == 0 {
		return Opt[string]{}
	}
	keys := make([]string, 0, len(m))
	vals := make(map[string][]byte, len(m))
	total := 1 // "{" … "}" less one comma
	for k, v := range m {
		var b bytes.Buffer
		writeCanonical(&b, v)
		keys = append(keys, k)
		vals[k] = b.Bytes()
		total += len(memberText(k, nil)) + len(vals[k]) + 1
	}
	slices.Sort(keys)
	if total <= ExtrasCap {
		return Some(objectText(keys, vals))
	}
	// Drop the longest members first until the rest and the list fit.
	bySize := slices.Clone(keys)
	slices.SortStableFunc(bySize, func(a, b string) int { return len(vals[b]) - len(vals[a]) })
	var dropped []string
	listLen := 1 // the "_dropped" array's text: [ … ] less one comma
	for _, k := range bySize {
		mt := len(memberText(k, nil))
		total -= mt + len(vals[k]) + 1
		delete(vals, k)
		dropped = append(dropped, k)
		listLen += mt // the key quoted, and a comma
		if total+len(memberText(extrasDroppedKey, nil))+listLen+1 <= ExtrasCap {
			break
		}
	}
	slices.Sort(dropped)
	kept := slices.DeleteFunc(keys, func(k string) bool { _, ok := vals[k]; return !ok })
	vals[extrasDroppedKey] = keyList(dropped)
	kept = append(kept, extrasDroppedKey)
	slices.Sort(kept)
	out := objectText(kept, vals)
	if len(out) > ExtrasCap {
		out = `{"` + extrasDroppedKey + `":` + strconv.Itoa(len(m)) + `}`
	}
	return Some(out)
}

// keyList is keys as a canonical JSON array.
func keyList(keys []string) []byte {
	var b bytes.Buffer
	l := make([]any, len(keys))
	for i, k := range keys {
		l[i] = k
	}
	writeCanonical(&b, l)
	return b.Bytes()
}

func memberText(k string, v []byte) string {
	var b bytes.Buffer
	writeCanonical(&b, k)
	b.WriteByte(':')
	b.Write(v)
	return b.String()
}

func objectText(keys []string, vals map[string][]byte) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(memberText(k, vals[k]))
	}
	b.WriteByte('}')
	return b.String()
}

// writeCanonical writes v (a value decoded with UseNumber) as canonical
// JSON: object keys sorted, no space, NaN sentinels as null.
func writeCanonical(b *bytes.Buffer, v any) {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case json.Number:
		b.WriteString(v.String())
	case string:
		switch v {
		case "\x00NaN", "\x00Infinity", "\x00-Infinity": // read_inspect_nan.go's sentinels
			b.WriteString("null")
			return
		}
		enc := json.NewEncoder(b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(v) // a string always encodes
		b.Truncate(b.Len() - 1)
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCanonical(b, e)
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCanonical(b, k)
			b.WriteByte(':')
			writeCanonical(b, v[k])
		}
		b.WriteByte('}')
	default:
		panic(fmt.Sprintf("ingest: extras value of type %T", v))
	}
}

// errExtrasNotObject is the error for an extras field that is not a JSON
// object.
var errExtrasNotObject = errors.New("want a JSON object (or a string holding one)")

// canonicalExtras reads an input's extras field (an rdeval table's or
// export's column read back, or a generic input's): a JSON object, or a
// string holding one, as canonical extras text.
func canonicalExtras(raw []byte) (Opt[string], error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return Opt[string]{}, errExtrasNotObject
	}
	m, err := extrasObject(raw)
	if err != nil {
		return Opt[string]{}, fmt.Errorf("%w: %v", errExtrasNotObject, err)
	}
	return extrasText(m), nil
}

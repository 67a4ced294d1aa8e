package ingest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestExtrasText(t *testing.T) {
	for _, c := range []struct {
		name, in string
		drop     []string
		want     string // "" = null
	}{
		{"keys sorted at every depth, no space", `{"b": 1, "a": {"z": [3, {"y": 1, "x": 2}], "c": null}}`, nil,
			`{"a":{"c":null,"z":[3,{"x":2,"y":1}]},"b":1}`},
		{"numbers as written", `{"n": 1.50, "e": 1E-7, "i": 12345678901234567890}`, nil, `{"e":1E-7,"i":12345678901234567890,"n":1.50}`},
		{"strings without HTML escapes", `{"s": "<a> & \"b\" \u00e9 \n"}`, nil, `{"s":"<a> & \"b\" é \n"}`},
		{"NaN sentinels are null", string(rewriteNaN([]byte(`{"a": NaN, "b": [Infinity, -Infinity], "c": "NaN"}`))), nil, `{"a":null,"b":[null,null],"c":"NaN"}`},
		{"mapped fields removed", `{"task": "t", "agent": {"name": "x", "version": "1"}, "k": 2}`, []string{"task", "agent.name"}, `{"agent":{"version":"1"},"k":2}`},
		{"emptied objects removed", `{"agent": {"name": "x"}, "k": 2}`, []string{"agent.name"}, `{"k":2}`},
		{"path through a non-object, or absent", `{"a": [1], "b": 2}`, []string{"a.x", "c.d", "c"}, `{"a":[1],"b":2}`},
		{"nothing left", `{"a": 1}`, []string{"a"}, ""},
		{"empty object", `{}`, nil, ""},
		{"null record", `null`, nil, ""},
		{"empty record", ``, nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := extrasWithout([]byte(c.in), c.drop...)
			if err != nil {
				t.Fatal(err)
			}
			if want := (Opt[string]{V: c.want, Valid: c.want != ""}); got != want {
				t.Errorf("got %+v, want %+v", got, want)
			}
		})
	}
	if _, err := extrasWithout([]byte(`[1]`)); err == nil {
		t.Error("an array record: want an error")
	}
}

// TestExtrasCap: a record longer than ExtrasCap loses its longest
// top-level members first, listed in "_dropped", and the text fits.
func TestExtrasCap(t *testing.T) {
	x := func(f float64) string { return strings.Repeat("x", int(f*ExtrasCap)) }
	in := fmt.Sprintf(`{"a": "%s", "b": "%s", "c": "%s", "small": 1, "obj": {"k": "%s"}}`, x(0.55), x(0.001), x(0.6), x(0.5))
	got, err := extrasWithout([]byte(in))
	if err != nil || !got.Valid {
		t.Fatalf("got %+v, %v", got, err)
	}
	if len(got.V) > ExtrasCap {
		t.Fatalf("%d bytes, cap %d", len(got.V), ExtrasCap)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(got.V), &m); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	// c (the longest) and a must go; obj (half the cap) fits with b and small.
	if d := m[extrasDroppedKey]; !reflect.DeepEqual(d, []any{"a", "c"}) {
		t.Errorf("_dropped = %v, want [a c]", d)
	}
	for _, k := range []string{"b", "small", "obj"} {
		if _, ok := m[k]; !ok {
			t.Errorf("%s dropped, want it kept", k)
		}
	}
	// Thousands of members, each small: the list of keys would not fit.
	var b strings.Builder
	b.WriteString(`{`)
	for i := range 20000 {
		fmt.Fprintf(&b, `"key-%06d": "%s",`, i, x(0.0001))
	}
	b.WriteString(`"z": 0}`)
	got, _ = extrasWithout([]byte(b.String()))
	if len(got.V) > ExtrasCap || !strings.HasPrefix(got.V, `{"`+extrasDroppedKey+`":`) {
		t.Errorf("%d bytes %.60q: want at most the cap, dropping all", len(got.V), got.V)
	}
}

// readExtrasReference reads a reader_extras*.jsonl file written by
// testdata/reference/reader_extras.py: run id → extras decoded (nil for null).
func readExtrasReference(t *testing.T, name string) map[string]any {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "reference", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]any{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		var r struct {
			RunID  string `json:"run_id"`
			Extras any    `json:"extras"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		out[r.RunID] = r.Extras
	}
	return out
}

func decodedExtras(t *testing.T, e Opt[string]) any {
	t.Helper()
	if !e.Valid {
		return nil
	}
	var v any
	if err := json.Unmarshal([]byte(e.V), &v); err != nil {
		t.Fatalf("extras %.80q: not JSON: %v", e.V, err)
	}
	return v
}

// harnessFixtures are the reader fixtures that have extras, as one Load.
var harnessFixtures = []string{"testdata/harbor/jobs", "testdata/terminalbench/runs", "testdata/swebench/experiments",
	"testdata/swebench/harness", "testdata/mlebench"}

// TestReaderExtras compares every run's extras with
// testdata/reference/reader_extras.jsonl (and, with the anchors beside the
// checkout, Inspect's with reader_extras_inspect.jsonl), which the
// standard-library script reader_extras.py computes from the fixtures.
func TestReaderExtras(t *testing.T) {
	check := func(t *testing.T, ds *Dataset, ref string) {
		want := readExtrasReference(t, ref)
		if len(ds.Runs) != len(want) {
			t.Errorf("%d runs, the reference has %d", len(ds.Runs), len(want))
		}
		withExtras := 0
		for _, r := range ds.Runs {
			w, ok := want[r.RunID]
			if !ok {
				t.Errorf("run %s: not in the reference", r.RunID)
				continue
			}
			if r.Extras.Valid {
				withExtras++
			}
			if got := decodedExtras(t, r.Extras); !reflect.DeepEqual(got, w) {
				t.Errorf("run %s: extras\n got %s\nwant %v", r.RunID, r.Extras.V, w)
			}
		}
		if withExtras == 0 {
			t.Error("no run has extras: the test checks nothing")
		}
	}
	t.Run("harness", func(t *testing.T) {
		check(t, loadOK(t, harnessFixtures, Options{}), "reader_extras.jsonl")
	})
	t.Run("inspect", func(t *testing.T) {
		root := filepath.Join(anchorsDir(t), "inspect_ai", "tests", "scorer", "logs")
		if _, err := os.Stat(root); err != nil {
			t.Skipf("skipping: Inspect logs %s not found (they sit beside the checkout as ../shared)", root)
		}
		ds := load(t, []string{root}, Options{})
		check(t, ds, "reader_extras_inspect.jsonl")
	})
}

// TestExtrasRoundTrip: extras survive Parquet and Arrow IPC (the tables
// read back equal the dataset) and the CSV and JSON Lines exports, which
// read back as generic inputs give the same extras text.
func TestExtrasRoundTrip(t *testing.T) {
	ds := loadOK(t, harnessFixtures, Options{})
	byID := map[string]Opt[string]{}
	for _, r := range ds.Runs {
		byID[r.RunID] = r.Extras
	}
	for _, format := range []string{FormatParquet, FormatArrow} {
		t.Run(format, func(t *testing.T) {
			tb, _, dir := readBack(t, ds, format)
			checkTablesEqual(t, ds, tb)
			if !IsRunColumn("extras") {
				t.Fatal("extras is not a runs column")
			}
			for _, to := range []string{"csv", "jsonl"} {
				out := filepath.Join(t.TempDir(), "runs."+to)
				rec := RunsRecord(tb.Runs, testVersion)
				if err := WriteTableText(out, rec, to); err != nil {
					t.Fatal(err)
				}
				rec.Release()
				back := load(t, []string{out}, Options{Reader: ReaderGeneric})
				if len(back.Runs) != len(ds.Runs) {
					t.Fatalf("%s export: %d runs read back, want %d (%v)", to, len(back.Runs), len(ds.Runs), back.Errors)
				}
				for _, r := range back.Runs {
					if r.Extras != byID[r.RunID] {
						t.Errorf("%s export, run %s: extras %.80q, want %.80q", to, r.RunID, r.Extras.V, byID[r.RunID].V)
					}
				}
			}
			_ = dir
		})
	}
}

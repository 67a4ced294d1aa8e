package ingest

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// TestWriteTableText writes every table of every good dataset as CSV and
// JSON Lines, parses the files back with encoding/csv and encoding/json, and
// checks each cell against the Arrow value it came from: doubles to the same
// bits, timestamps to the same microsecond, lists element by element, null
// as null (an empty CSV field). DuckDB reads the same files in the interop
// test.
func TestWriteTableText(t *testing.T) {
	dir := t.TempDir()
	sawNonFinite := false
	for name, ds := range goodDatasets(t) {
		recs := map[string]arrow.RecordBatch{
			TableRuns:     RunsRecord(ds.Runs, "test"),
			TableScoreLog: ScoreLogRecord(ds.Scores, "test"),
			TableTasks:    TasksRecord(ds.Tasks, "test"),
		}
		for table, rec := range recs {
			if len(NonFinite(rec)) > 0 {
				sawNonFinite = true
			}
			for _, format := range []string{FormatCSV, FormatJSONL} {
				path := filepath.Join(dir, name+"-"+table+"."+format)
				if err := WriteTableText(path, rec, format); err != nil {
					t.Fatal(err)
				}
				rows := readTextRows(t, path, format, rec.Schema())
				if len(rows) != int(rec.NumRows()) {
					t.Fatalf("%s: %d rows read back, %d written", path, len(rows), rec.NumRows())
				}
				for r, row := range rows {
					for c := 0; c < int(rec.NumCols()); c++ {
						if err := sameCell(rec.Column(c), r, row[c], format); err != "" {
							t.Errorf("%s line %d column %s: %s", path, r+2, rec.Schema().Field(c).Name, err)
						}
					}
				}
			}
			rec.Release()
		}
	}
	if !sawNonFinite {
		t.Error("no dataset has NaN or ±Inf doubles: the non-finite spellings are not tested")
	}
	if err := WriteTableText(filepath.Join(dir, "x.tsv"), RunsRecord(nil, "test"), "tsv"); err == nil {
		t.Error("format tsv accepted")
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*tmp*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// readTextRows returns each row as cells: strings for CSV, decoded JSON
// values (nil for null) for JSON Lines.
func readTextRows(t *testing.T, path, format string, schema *arrow.Schema) [][]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]any
	if format == FormatCSV {
		recs, err := csv.NewReader(strings.NewReader(string(b))).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		for i, f := range schema.Fields() {
			if recs[0][i] != f.Name {
				t.Fatalf("%s: header %v", path, recs[0])
			}
		}
		for _, r := range recs[1:] {
			row := make([]any, len(r))
			for i, s := range r {
				row[i] = s
			}
			out = append(out, row)
		}
		return out
	}
	for i, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if line == "" {
			break
		}
		dec := json.NewDecoder(strings.NewReader(line))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatalf("%s line %d: %v", path, i+1, err)
		}
		if len(m) != len(schema.Fields()) {
			t.Fatalf("%s line %d: %d keys", path, i+1, len(m))
		}
		row := make([]any, len(schema.Fields()))
		for j, f := range schema.Fields() {
			row[j] = m[f.Name]
		}
		out = append(out, row)
	}
	return out
}

// sameCell says how cell differs from a's value at i ("" when it does not).
func sameCell(a arrow.Array, i int, cell any, format string) string {
	if a.IsNull(i) {
		if cell == nil || cell == "" {
			return ""
		}
		return "null written as " + strings.TrimSpace(strconv.Quote(toText(cell)))
	}
	s := toText(cell)
	switch x := a.(type) {
	case *array.String:
		if s != x.Value(i) {
			return "string " + strconv.Quote(s) + ", want " + strconv.Quote(x.Value(i))
		}
	case *array.Int64, *array.Int8:
		v, err := strconv.ParseInt(s, 10, 64)
		want := reflect.ValueOf(a).MethodByName("Value").Call([]reflect.Value{reflect.ValueOf(i)})[0].Int()
		if err != nil || v != want {
			return "integer " + s
		}
	case *array.Boolean:
		if s != strconv.FormatBool(x.Value(i)) {
			return "boolean " + s
		}
	case *array.Float64:
		if w := x.Value(i); format == FormatJSONL && (math.IsNaN(w) || math.IsInf(w, 0)) {
			if cell != nil {
				return "non-finite double written as " + s + ", want null"
			}
			return ""
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.Float64bits(v) != math.Float64bits(x.Value(i)) {
			return "double " + s + ", want " + strconv.FormatFloat(x.Value(i), 'g', -1, 64)
		}
	case *array.Timestamp:
		ts, err := time.Parse(time.RFC3339Nano, s)
		if err != nil || ts.UnixMicro() != int64(x.Value(i)) || !strings.HasSuffix(s, "Z") {
			return "timestamp " + s
		}
	case *array.List:
		var got []string
		if format == FormatCSV {
			if err := json.Unmarshal([]byte(s), &got); err != nil {
				return "list " + s + ": " + err.Error()
			}
		} else {
			for _, e := range cell.([]any) {
				got = append(got, e.(string))
			}
		}
		start, end := x.ValueOffsets(i)
		want := []string{}
		for j := start; j < end; j++ {
			want = append(want, x.ListValues().(*array.String).Value(int(j)))
		}
		if got == nil {
			got = []string{}
		}
		if !reflect.DeepEqual(got, want) {
			return "list " + s
		}
	default:
		return "no check for type " + a.DataType().String()
	}
	return ""
}

func toText(cell any) string {
	switch v := cell.(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	case bool:
		return strconv.FormatBool(v)
	case nil:
		return ""
	}
	b, _ := json.Marshal(cell)
	return string(b)
}

// TestTextValueIntegers: a double that holds an integer (token counts,
// time limits) is written as an integer, not in exponent form; other
// doubles keep the shortest form that reads back to the same bits.
func TestTextValueIntegers(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		want string
	}{
		{1625813, "1625813"},
		{1e6, "1000000"},
		{-3, "-3"},
		{0, "0"},
		{9007199254740993, "9007199254740992"}, // the nearest double, as it is
		{1e20, "100000000000000000000"},
		{1e21, "1e+21"}, // beyond this, exponent form (as JavaScript writes it)
		{0.5, "0.5"},
		{1.5e-7, "1.5e-07"},
		{1625813.5, "1.6258135e+06"},
	} {
		b := array.NewFloat64Builder(memPool)
		b.Append(tc.x)
		a := b.NewFloat64Array()
		if got := textValue(a, 0); got != tc.want {
			t.Errorf("%v: got %q, want %q", tc.x, got, tc.want)
		}
		if back, _ := strconv.ParseFloat(textValue(a, 0), 64); back != tc.x && tc.x != 9007199254740993 {
			t.Errorf("%v: reads back as %v", tc.x, back)
		}
		a.Release()
	}
}

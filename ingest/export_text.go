package ingest

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Plain-text export formats (rdeval export).
const (
	FormatCSV   = "csv"   // RFC 4180 CSV with a header row
	FormatJSONL = "jsonl" // one JSON object per row
)

// WriteTableText writes one table as CSV or JSON Lines to path, atomically
// (temporary file + rename). The spelling of values is the same in both
// formats, so pandas.read_csv / read_json(lines=True), DuckDB's read_csv /
// read_json and R's read.csv read them without options:
//   - null: an empty CSV field; JSON null;
//   - strings as they are (CSV quotes where needed);
//   - integers in decimal; booleans true/false;
//   - doubles that hold an integer below 1e21 in magnitude (token counts,
//     time limits) as that integer ("1625813", not "1.625813e+06"), other
//     doubles in the shortest form that reads back to the same bits
//     (strconv 'g', -1); NaN and ±Inf (score logs hold NaN where scoring
//     failed) as NaN, inf, -inf in CSV and as null in JSON, which has no
//     spelling for them (NonFinite counts them so the caller can say so);
//   - timestamps in RFC 3339 with the fraction that is needed, in UTC
//     ("2024-03-01T12:00:00.5Z");
//   - lists of strings as a JSON array (in CSV, the array's JSON text in one
//     field).
func WriteTableText(path string, rec arrow.RecordBatch, format string) error {
	var write func(io.Writer, arrow.RecordBatch) error
	switch format {
	case FormatCSV:
		write = writeCSV
	case FormatJSONL:
		write = writeJSONL
	default:
		return fmt.Errorf("export format %q: want %s or %s", format, FormatCSV, FormatJSONL)
	}
	_, err := WriteAtomic(path, AtomicOptions{}, func(w io.Writer) error { return write(w, rec) })
	return err
}

// NonFinite counts the NaN and ±Inf values of each double column of rec
// (columns without any are left out).
func NonFinite(rec arrow.RecordBatch) map[string]int {
	out := map[string]int{}
	for c, f := range rec.Schema().Fields() {
		x, ok := rec.Column(c).(*array.Float64)
		if !ok {
			continue
		}
		for i := 0; i < x.Len(); i++ {
			if v := x.Value(i); x.IsValid(i) && (math.IsNaN(v) || math.IsInf(v, 0)) {
				out[f.Name]++
			}
		}
	}
	return out
}

func writeCSV(w io.Writer, rec arrow.RecordBatch) error {
	cw := csv.NewWriter(w)
	n := int(rec.NumCols())
	row := make([]string, n)
	for i, f := range rec.Schema().Fields() {
		row[i] = f.Name
	}
	if err := cw.Write(row); err != nil {
		return err
	}
	for r := 0; r < int(rec.NumRows()); r++ {
		for c := 0; c < n; c++ {
			row[c] = exportCSVCell(rec.Column(c), r)
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func exportCSVCell(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return ""
	}
	if x, ok := a.(*array.Float64); ok {
		v := x.Value(i)
		switch {
		case math.IsNaN(v):
			return "NaN"
		case math.IsInf(v, 1):
			return "inf"
		case math.IsInf(v, -1):
			return "-inf"
		}
	}
	return textValue(a, i)
}

func writeJSONL(w io.Writer, rec arrow.RecordBatch) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	names := make([][]byte, rec.NumCols())
	for i, f := range rec.Schema().Fields() {
		names[i], _ = json.Marshal(f.Name)
	}
	for r := 0; r < int(rec.NumRows()); r++ {
		bw.WriteByte('{')
		for c := range names {
			if c > 0 {
				bw.WriteByte(',')
			}
			bw.Write(names[c])
			bw.WriteByte(':')
			bw.WriteString(jsonValue(rec.Column(c), r))
		}
		bw.WriteString("}\n")
	}
	return bw.Flush()
}

func jsonValue(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "null"
	}
	switch x := a.(type) {
	case *array.Float64:
		if v := x.Value(i); math.IsNaN(v) || math.IsInf(v, 0) {
			return "null"
		}
	case *array.String, *array.Timestamp:
		b, _ := json.Marshal(textValue(a, i))
		return string(b)
	}
	return textValue(a, i)
}

// textValue spells a non-null value as WriteTableText documents; lists are
// their JSON text.
func textValue(a arrow.Array, i int) string {
	switch x := a.(type) {
	case *array.String:
		return x.Value(i)
	case *array.Int64:
		return strconv.FormatInt(x.Value(i), 10)
	case *array.Int8:
		return strconv.FormatInt(int64(x.Value(i)), 10)
	case *array.Boolean:
		return strconv.FormatBool(x.Value(i))
	case *array.Float64:
		return formatDouble(x.Value(i))
	case *array.Timestamp:
		return time.UnixMicro(int64(x.Value(i))).UTC().Format(time.RFC3339Nano)
	case *array.List:
		start, end := x.ValueOffsets(i)
		vals := x.ListValues().(*array.String)
		l := make([]string, 0, end-start)
		for j := start; j < end; j++ {
			l = append(l, vals.Value(int(j)))
		}
		b, _ := json.Marshal(l)
		return string(b)
	}
	panic(fmt.Sprintf("ingest: no text spelling for column type %s", a.DataType()))
}

// formatDouble spells a finite or non-finite double as WriteTableText
// documents: an integral value below 1e21 in magnitude (where JavaScript's
// Number.toString also stops writing digits) without exponent, others in
// the shortest 'g' form.
func formatDouble(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e21 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

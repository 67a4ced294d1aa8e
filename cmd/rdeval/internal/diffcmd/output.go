package diffcmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/buildinfo"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/ingest"
)

// Kinds of output column.
const (
	colString = iota
	colFloat  // float64, NaN written as null
	colInt
	colList // list of strings
)

// column is one column of a rows table, read by row index.
type column struct {
	name string
	kind int
	str  func(i int) string
	flt  func(i int) float64
	num  func(i int) int
	list func(i int) []string
}

// rows is a table of n rows in columns, printable as text, CSV or JSON and
// writable as Parquet or Arrow.
type rows struct {
	cols []column
	n    int
}

// cell formats one cell for text and CSV (lists joined with ";").
func (r *rows) cell(c column, i int) string {
	switch c.kind {
	case colFloat:
		return text(c.flt(i))
	case colInt:
		return strconv.Itoa(c.num(i))
	case colList:
		return strings.Join(c.list(i), ";")
	}
	return c.str(i)
}

func (r *rows) table() *cmdutil.Table {
	t := &cmdutil.Table{}
	for _, c := range r.cols {
		t.Header = append(t.Header, c.name)
	}
	for i := range r.n {
		row := make([]string, len(r.cols))
		for j, c := range r.cols {
			row[j] = r.cell(c, i)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// orderedRow marshals to a JSON object with its keys in column order.
type orderedRow struct {
	r *rows
	i int
}

func (o orderedRow) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for j, c := range o.r.cols {
		if j > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(c.name)
		b.Write(k)
		b.WriteByte(':')
		var v any
		switch c.kind {
		case colFloat:
			if f := c.flt(o.i); !math.IsNaN(f) {
				v = f
			}
		case colInt:
			v = c.num(o.i)
		case colList:
			l := c.list(o.i)
			if l == nil {
				l = []string{}
			}
			v = l
		default:
			v = c.str(o.i)
		}
		enc, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		b.Write(enc)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func (r *rows) writeJSON(w io.Writer) error {
	out := make([]orderedRow, r.n)
	for i := range out {
		out[i] = orderedRow{r, i}
	}
	return cmdutil.WriteJSON(w, out)
}

// record builds an Arrow record batch of the rows.
func (r *rows) record() arrow.RecordBatch {
	fields := make([]arrow.Field, len(r.cols))
	for j, c := range r.cols {
		switch c.kind {
		case colFloat:
			fields[j] = arrow.Field{Name: c.name, Type: arrow.PrimitiveTypes.Float64, Nullable: true}
		case colInt:
			fields[j] = arrow.Field{Name: c.name, Type: arrow.PrimitiveTypes.Int64}
		case colList:
			fields[j] = arrow.Field{Name: c.name, Type: arrow.ListOf(arrow.BinaryTypes.String)}
		default:
			fields[j] = arrow.Field{Name: c.name, Type: arrow.BinaryTypes.String}
		}
	}
	b := array.NewRecordBuilder(memory.NewGoAllocator(), arrow.NewSchema(fields, nil))
	defer b.Release()
	b.Reserve(r.n)
	for j, c := range r.cols {
		for i := range r.n {
			switch c.kind {
			case colFloat:
				fb := b.Field(j).(*array.Float64Builder)
				if f := c.flt(i); math.IsNaN(f) {
					fb.AppendNull()
				} else {
					fb.Append(f)
				}
			case colInt:
				b.Field(j).(*array.Int64Builder).Append(int64(c.num(i)))
			case colList:
				lb := b.Field(j).(*array.ListBuilder)
				vb := lb.ValueBuilder().(*array.StringBuilder)
				lb.Append(true)
				for _, s := range c.list(i) {
					vb.Append(s)
				}
			default:
				b.Field(j).(*array.StringBuilder).Append(c.str(i))
			}
		}
	}
	return b.NewRecordBatch()
}

// outputExt checks -o's extension.
func outputExt(path string) (string, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".parquet", ".arrow", ".csv", ".json":
		return ext, nil
	}
	return "", cmdutil.Usagef("-o %s: want a .parquet, .arrow, .csv or .json file", path)
}

// write prints the rows in opts.Format, or writes them to opts.Output.
func (r *rows) write(opts *Options) error {
	if opts.Output == "" {
		switch opts.Format {
		case cmdutil.FormatJSON:
			return r.writeJSON(opts.IO.Out)
		case cmdutil.FormatCSV:
			return r.table().WriteCSV(opts.IO.Out)
		}
		return r.table().WriteText(opts.IO.Out)
	}
	ext, err := outputExt(opts.Output)
	if err != nil {
		return err
	}
	switch ext {
	case ".parquet", ".arrow":
		rec := r.record()
		defer rec.Release()
		format := ingest.FormatParquet
		if ext == ".arrow" {
			format = ingest.FormatArrow
		}
		err = ingest.WriteTableFile(opts.Output, rec, format, buildinfo.Version())
	case ".csv":
		err = cmdutil.WriteAtomic(opts.Output, func(w io.Writer) error { return r.table().WriteCSV(w) })
	default:
		err = cmdutil.WriteAtomic(opts.Output, r.writeJSON)
	}
	if err != nil {
		return fmt.Errorf("-o %s: %w", opts.Output, err)
	}
	opts.IO.Infof("wrote %s (%d rows)", opts.Output, r.n)
	return nil
}

// isFile reports whether path is an existing regular file (links
// followed).
func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

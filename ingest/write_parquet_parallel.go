package ingest

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// Parallel Parquet encoding. pqarrow.FileWriter encodes a row group's
// columns one after the other on one goroutine; dictionary hashing, page
// building and zstd take most of an ingest's write time. pqWriter writes the
// same file with the columns of each row group encoded concurrently: every
// column of a buffered row group (file.Writer.AppendBufferedRowGroup) has its
// own encoder, statistics, page buffer and metadata builder, so one
// goroutine per column can fill them, and closing the row group then copies
// the columns into the file in schema order. Each column is written by the
// same call pqarrow makes (pqarrow.WriteArrowToColumn on the whole column,
// with its own write context) with the same definition and repetition
// levels, so the bytes are those of pqarrow.FileWriter.WriteBuffered
// whatever the number of goroutines or the order they run in
// (TestParquetParallelMatchesPqarrow, TestParquetParallelGOMAXPROCS).
//
// Levels are computed here for the types the rdeval tables use: flat
// primitive columns and lists of primitives (files_edited, gold_files);
// newPQWriter refuses other types.

// pqWriter writes Arrow record batches as Parquet row groups.
type pqWriter struct {
	fw       *file.Writer
	schema   *arrow.Schema
	arrProps pqarrow.ArrowWriterProperties
	leaves   []int // first leaf column of each field
	order    []int // fields in the order they are handed to goroutines

	levelsMu sync.Mutex
	levels   [2][]int16 // levels[v]: v repeated, shared by the columns (constLevels)
}

// constLevels returns n definition levels all equal to v (0 or 1), a
// slice shared by every column that needs them (the column writers only
// read levels): a column with no nulls, or only nulls, then takes no
// memory of its own for them (METR ×20: 35 of 38 runs columns, 282 KB of
// fresh memory each; peak RSS 216 → 211 MiB, time within noise, medians
// of 14 alternating runs).
func (p *pqWriter) constLevels(n int, v int16) []int16 {
	p.levelsMu.Lock()
	defer p.levelsMu.Unlock()
	if len(p.levels[v]) < n {
		l := make([]int16, n)
		for j := range l {
			l[j] = v
		}
		p.levels[v] = l
	}
	return p.levels[v][:n:n]
}

// newPQWriter opens a Parquet file writer on w laid out as
// pqarrow.NewFileWriter(schema, w, props, WithStoreSchema()) lays it out:
// the same Parquet schema, the schema's key-value metadata followed by
// ARROW:schema (the IPC-serialized schema with list elements named
// "element"), base64-encoded.
func newPQWriter(w io.Writer, schema *arrow.Schema, props *parquet.WriterProperties) (*pqWriter, error) {
	arrProps := pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema())
	leaves := make([]int, schema.NumFields())
	stored := make([]arrow.Field, schema.NumFields())
	n := 0
	for i, f := range schema.Fields() {
		leaves[i] = n
		n++
		stored[i] = f
		switch t := f.Type.(type) {
		case *arrow.ListType:
			if _, nested := t.Elem().(arrow.NestedType); nested {
				return nil, fmt.Errorf("parquet writer: column %s: nested list elements not supported", f.Name)
			}
			elem := t.ElemField()
			elem.Name = "element"
			stored[i] = arrow.Field{Name: f.Name, Type: arrow.ListOfField(elem), Nullable: f.Nullable, Metadata: f.Metadata}
		case arrow.NestedType, *arrow.DictionaryType, arrow.ExtensionType:
			return nil, fmt.Errorf("parquet writer: column %s: type %s not supported", f.Name, f.Type)
		}
	}
	pqschema, err := pqarrow.ToParquet(schema, props, arrProps)
	if err != nil {
		return nil, err
	}
	meta := make(metadata.KeyValueMetadata, 0)
	md := schema.Metadata()
	for i := 0; i < md.Len(); i++ {
		meta.Append(md.Keys()[i], md.Values()[i])
	}
	smd := schema.Metadata()
	var buf bytes.Buffer
	iw := ipc.NewWriter(&buf, ipc.WithSchema(arrow.NewSchema(stored, &smd)), ipc.WithAllocator(props.Allocator()))
	if err := iw.Close(); err != nil {
		return nil, err
	}
	meta.Append("ARROW:schema", base64.StdEncoding.EncodeToString(buf.Bytes()))
	fw, err := file.NewParquetWriterWithError(w, pqschema.Root(), file.WithWriterProps(props), file.WithWriteMetadata(meta))
	if err != nil {
		return nil, err
	}
	table, _ := schema.Metadata().GetValue("rdeval.table")
	order := make([]int, 0, len(leaves))
	for class := range 5 {
		for i, f := range schema.Fields() {
			if encodeCostClass(table, f) == class {
				order = append(order, i)
			}
		}
	}
	return &pqWriter{fw: fw, schema: schema, arrProps: arrProps, leaves: leaves, order: order}, nil
}

// writeRowGroup writes rec (at most the row-group limit of rows) as one
// row group, encoding its columns on up to GOMAXPROCS goroutines.
func (p *pqWriter) writeRowGroup(rec arrow.RecordBatch) error {
	if !rec.Schema().Equal(p.schema) {
		return fmt.Errorf("parquet writer: record schema does not match the file's")
	}
	return p.writeRowGroupColumns(int(rec.NumRows()), func(i int) arrow.Array {
		a := rec.Column(i)
		a.Retain()
		return a
	})
}

// writeRowGroupColumns writes a row group of n rows whose field i is
// col(i), an array of n values that it releases once encoded (for a
// dictionary-encoded string field, possibly a dictionary array: see
// write_parquet_dict.go). Each column
// is built and encoded on one goroutine, so that a column is encoded while
// its buffers are still in cache and freed before the next is built.
func (p *pqWriter) writeRowGroupColumns(n int, col func(i int) arrow.Array) error {
	rgw, err := p.fw.AppendBufferedRowGroupChecked()
	if err != nil {
		return err
	}
	ncol := p.schema.NumFields()
	errs := make([]error, ncol)
	if n > 0 {
		forEachParallel(ncol, true, func(k int) {
			i := p.order[k]
			a := col(i)
			defer a.Release()
			if a.Len() != n {
				errs[i] = fmt.Errorf("%d values in a row group of %d rows", a.Len(), n)
				return
			}
			errs[i] = p.writeColumn(rgw, i, a)
		})
	}
	for i, err := range errs {
		if err != nil {
			rgw.Close()
			return fmt.Errorf("parquet writer: column %s: %w", p.schema.Field(i).Name, err)
		}
	}
	return rgw.Close()
}

// writeColumn writes field i's data into its column chunk of rgw, with the
// levels and leaf values pqarrow's arrowColumnWriter would pass, and
// flushes the chunk's last page (flushLastPage).
func (p *pqWriter) writeColumn(rgw file.BufferedRowGroupWriter, i int, col arrow.Array) error {
	cw, err := rgw.Column(p.leaves[i])
	if err != nil {
		return err
	}
	if err := p.writeColumnData(cw, i, col); err != nil {
		return err
	}
	return flushLastPage(cw)
}

// flushLastPage encodes and compresses the values cw still buffers into
// their page now, on the goroutine that wrote the column, rather than in
// the row group's Close, which closes the columns one after another: for a
// dictionary-encoded column of one page, that is all of its page (a perf
// timeline of METR ×20 showed 20–30 ms of zstd on one CPU at the end).
// The page is the one Close would make. Values are buffered exactly when
// the page statistics (reset at each page) count any (writeParquet turns
// statistics on for every column); without statistics Close flushes.
func flushLastPage(cw file.ColumnChunkWriter) error {
	st := cw.PageStatistics()
	if st == nil || st.NumValues()+st.NullCount() == 0 {
		return nil
	}
	f, ok := cw.(interface{ FlushCurrentPage() error })
	if !ok {
		return nil
	}
	return f.FlushCurrentPage()
}

// writeColumnData writes the levels and values of field i into cw.
func (p *pqWriter) writeColumnData(cw file.ColumnChunkWriter, i int, col arrow.Array) error {
	// pqarrow writes a slice of the column (array.NewSlice); its null count
	// decides the levels' form, so take the same slice.
	arr := array.NewSlice(col, 0, int64(col.Len()))
	defer arr.Release()
	field := p.schema.Field(i)
	ctx := pqarrow.NewArrowWriteContext(context.Background(), &p.arrProps)
	if l, ok := arr.(*array.List); ok {
		return writeListColumn(ctx, cw, l, field)
	}
	var def []int16 // nil for a required column
	leafNullable := false
	if !field.Nullable {
		if arr.NullN() > 0 {
			return fmt.Errorf("null in a non-nullable column")
		}
	} else {
		def, leafNullable = p.flatDefLevels(arr)
	}
	if dict, ok := arr.(*array.Dictionary); ok {
		if err := writeDictColumn(cw, dict, def, leafNullable); err != errWriteDense {
			return err
		}
		dictFallbacks.Add(1)
		arr = denseFromDict(dict)
		defer arr.Release()
	}
	return pqarrow.WriteArrowToColumn(ctx, cw, arr, def, nil, leafNullable)
}

// encodeCostClass ranks field f of table by what it usually costs to
// encode, dearest (0) first, so that the writer's goroutines start the
// long columns first and no long one runs alone at the end (longest
// processing time first). Timed per column on METR ×20 (141,180 runs):
// run_id, plain strings, 44 ms; 8-byte numbers and timestamps 7–15 ms
// each; lists 7 ms; dictionary-encoded strings 2.5–5 ms; booleans and
// small integers 2–6 ms, mostly null.
func encodeCostClass(table string, f arrow.Field) int {
	switch f.Type.ID() {
	case arrow.STRING:
		if !dictionaryEncoded(table, f) {
			return 0
		}
		return 3
	case arrow.INT64, arrow.FLOAT64, arrow.TIMESTAMP:
		return 1
	case arrow.LIST:
		return 2
	}
	return 4
}

// noNulls and allNulls follow pqarrow's path builder (lazyNoNulls,
// lazyNullCount): they read the array's stored null count, which a slice
// may not know (array.UnknownNullCount).
func noNulls(arr arrow.Array) bool {
	n := arr.Data().NullN()
	return n == 0 || (n == array.UnknownNullCount && arr.NullBitmapBytes() == nil)
}

func allNulls(arr arrow.Array) bool { return arr.Data().NullN() == arr.Len() }

// flatDefLevels returns the definition levels of a nullable flat leaf
// (1 for a present value, 0 for a null; shared and read-only when they are
// all equal, see constLevels), and whether pqarrow treats the leaf as
// nullable (it does not when the array has no nulls).
//
// A slice whose null count is unknown is nullable to pqarrow whatever its
// nulls; its levels are read from the validity bitmap a byte at a time,
// and shared when they are all 0 (a column of nulls: METR has 14 such runs
// columns, whose levels were built one IsValid at a time in about 3 ms
// each at METR ×100).
func (p *pqWriter) flatDefLevels(arr arrow.Array) ([]int16, bool) {
	n := arr.Len()
	switch {
	case noNulls(arr):
		return p.constLevels(n, 1), false
	case allNulls(arr):
		return p.constLevels(n, 0), true
	}
	bits, off := arr.NullBitmapBytes(), arr.Data().Offset()
	if bits == nil {
		return p.constLevels(n, 1), true
	}
	if bitutil.CountSetBits(bits, off, n) == 0 {
		return p.constLevels(n, 0), true
	}
	def := make([]int16, n)
	if off%8 != 0 {
		for j := range def {
			if bitutil.BitIsSet(bits, off+j) {
				def[j] = 1
			}
		}
		return def, true
	}
	bits = bits[off/8:]
	for j := 0; j < n; j += 8 {
		w := bits[j/8]
		for k := j; k < min(j+8, n); k++ {
			def[k] = int16(w & 1)
			w >>= 1
		}
	}
	return def, true
}

// writeListColumn writes a list of primitives. Levels, for a nullable list
// of nullable elements (maxDef 3): a null list is (def 0, rep 0), an empty
// list (1, 0), a null element 2 and a present element 3, with rep 0 for a
// list's first element and 1 for the rest; a non-nullable list or element
// drops its level. The leaf values are the elements from the first
// non-empty list to the end of the last one, which must be contiguous
// (pqarrow refuses null lists that hold elements).
func writeListColumn(ctx context.Context, cw file.ColumnChunkWriter, l *array.List, field arrow.Field) error {
	elemField := l.DataType().(*arrow.ListType).ElemField()
	child := l.ListValues()
	var listDef int16 // def level of an empty list
	if field.Nullable {
		listDef = 1
	}
	maxDef := listDef + 1
	if elemField.Nullable {
		maxDef++
	}
	leafNullable := elemField.Nullable && !noNulls(child)
	elemDef := func(k int) int16 {
		switch {
		case !elemField.Nullable || noNulls(child):
			return maxDef
		case allNulls(child) || !child.IsValid(k):
			return maxDef - 1
		}
		return maxDef
	}
	n := l.Len()
	def := make([]int16, 0, n)
	rep := make([]int16, 0, n)
	start, end := -1, -1
	for i := 0; i < n; i++ {
		lo, hi := l.ValueOffsets(i)
		if field.Nullable && l.IsNull(i) {
			if hi > lo {
				return fmt.Errorf("lists with non-zero length null components are not supported")
			}
			def, rep = append(def, 0), append(rep, 0)
			continue
		}
		if hi == lo {
			def, rep = append(def, listDef), append(rep, 0)
			continue
		}
		if start < 0 {
			start = int(lo)
		} else if int(lo) != end {
			return fmt.Errorf("list elements are not contiguous")
		}
		end = int(hi)
		for k := int(lo); k < int(hi); k++ {
			r := int16(1)
			if k == int(lo) {
				r = 0
			}
			def, rep = append(def, elemDef(k)), append(rep, r)
		}
	}
	if start < 0 {
		start, end = 0, 0
	}
	values := array.NewSlice(child, int64(start), int64(end))
	defer values.Release()
	return pqarrow.WriteArrowToColumn(ctx, cw, values, def, rep, leafNullable)
}

// Close writes the footer.
func (p *pqWriter) Close() error { return p.fw.Close() }

package ingest

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
)

// Dictionary-encoded string columns written from their dictionary.
//
// Encoding a dense string column hashes every value into the Parquet
// encoder's dictionary (arrow-go's BinaryMemoTable, which also allocates
// per value) and copies every value's bytes into an Arrow array first:
// most of an ingest's write time. The rows' strings are interned, so
// dictStringArray finds each row's dictionary index cheaply, and the
// column is written here as that dictionary (put once into the column's
// encoder) plus the indices (ColumnChunkWriter.WriteDictIndices).
//
// The bytes are those of the dense path (TestParquetDictColumnsMatchDense):
// the dictionary is in order of first occurrence, as the encoder would
// build it; the indices go in one WriteDictIndices call per write batch
// (WriteBatchSize rows), after adding its values' raw size to the encoder
// (by which pages are sized), so pages end where they would; and each
// batch's page statistics are updated with its own null count, value
// count, and minimum and maximum (found through the dictionary's sort
// ranks), which is what the dense path's per-batch update gives. Where
// the dense path would differ in another way (errWriteDense) the column is
// written dense. pqarrow's own dictionary path (WriteArrowToColumn with a
// dictionary array) is not used: it puts the whole chunk's statistics into
// the first page and leaves empty strings out of the minimum.

// dictPutter is the part of the column's dictionary encoder used here
// (arrow-go's encoding.DictEncoder, an internal type).
type dictPutter interface {
	PutDictionary(arrow.Array) error
	NumEntries() int
	// AddRawSize counts input bytes, by which dictionary pages are sized
	// (the dense path adds each value's length plus 4).
	AddRawSize(int64)
}

// writeDictColumn writes d, a dictionary<int32, utf8> array without
// duplicate dictionary values, to the dictionary-encoded ByteArray column
// cw; def are the definition levels of a nullable column (nil when it is
// required) and leafNullable is what WriteArrowToColumn would be told.
func writeDictColumn(cw file.ColumnChunkWriter, d *array.Dictionary, def []int16, leafNullable bool) error {
	bw, ok := cw.(*file.ByteArrayColumnChunkWriter)
	if !ok {
		return fmt.Errorf("dictionary array for a %T column", cw)
	}
	enc, ok := cw.CurrentEncoder().(dictPutter)
	if e := cw.CurrentEncoder().Encoding(); !ok || (e != parquet.Encodings.PlainDict && e != parquet.Encodings.RLEDict) {
		return fmt.Errorf("dictionary array for a column that is not dictionary-encoded")
	}
	// Without page compression arrow-go may give up the dictionary after
	// its first page when it saves no space (parquet-mr's cost fallback);
	// that decision is the dense path's to make. rdeval always compresses.
	if cw.Properties().DictionaryCostFallbackEnabledFor(cw.Descr().Path()) {
		return errWriteDense
	}
	dict, ok := d.Dictionary().(*array.String)
	if !ok {
		return fmt.Errorf("dictionary of %s values", d.Dictionary().DataType())
	}
	idx, ok := d.Indices().(*array.Int32)
	if !ok {
		return fmt.Errorf("dictionary indices of type %s", d.Indices().DataType())
	}
	// rank[j] is dictionary value j's place in byte order, the order of
	// Parquet's statistics for UTF-8 columns.
	order := make([]int32, dict.Len())
	for j := range order {
		order[j] = int32(j)
	}
	slices.SortFunc(order, func(a, b int32) int { return strings.Compare(dict.Value(int(a)), dict.Value(int(b))) })
	rank := make([]int32, dict.Len())
	for r, j := range order {
		rank[j] = int32(r)
	}
	rawSize := make([]int64, dict.Len())
	for j := range rawSize {
		rawSize[j] = int64(dict.ValueLen(j) + arrow.Uint32SizeBytes)
	}

	// One pass over the rows for what each write batch needs: its nulls,
	// its values' raw size and the ranks of its least and greatest value.
	// It also finds where the dense path would end pages: after the batch
	// that brings the raw size since the last page to the page size. The
	// dense encoder's dictionary then holds the values met so far (indices
	// 0 … the greatest so far, in first-occurrence order) and the page's
	// indices are packed to that dictionary's bit width; here the whole
	// dictionary is in the encoder from the start. Where the widths would
	// differ the column is written dense instead (errWriteDense).
	type batchInfo struct {
		nulls, raw  int64
		lowR, highR int32
	}
	ix := idx.Int32Values()
	n := d.Len()
	batch := int(cw.Properties().WriteBatchSize())
	infos := make([]batchInfo, 0, (n+batch-1)/batch)
	pageLimit := cw.Properties().DataPageSize()
	fullWidth := dictBitWidth(dict.Len())
	var pageRaw int64
	var seen int32
	for lo := 0; lo < n; lo += batch {
		hi := min(lo+batch, n)
		b := batchInfo{lowR: -1, highR: -1}
		for i := lo; i < hi; i++ {
			if !d.IsValid(i) {
				b.nulls++
				continue
			}
			j := ix[i]
			seen = max(seen, j+1)
			b.raw += rawSize[j]
			r := rank[j]
			if b.lowR < 0 || r < b.lowR {
				b.lowR = r
			}
			b.highR = max(b.highR, r)
		}
		if pageRaw += b.raw; pageRaw >= pageLimit {
			if dictBitWidth(int(seen)) != fullWidth {
				return errWriteDense
			}
			pageRaw = 0
		}
		infos = append(infos, b)
	}

	// As WriteArrowToColumn: a validity buffer when levels above the leaf
	// may be null.
	lvl := cw.LevelInfo()
	single := lvl.DefLevel == lvl.RepeatedAncestorDefLevel+1 && leafNullable
	if lvl.HasNullableValues() && !single && !cw.HasBitsBuffer() {
		buf := memory.NewResizableBuffer(cw.Properties().Allocator())
		buf.Resize(int(bitutil.BytesForBits(cw.Properties().WriteBatchSize())))
		cw.SetBitsBuffer(buf)
	}
	if err := enc.PutDictionary(dict); err != nil {
		return err
	}
	if enc.NumEntries() != dict.Len() {
		return fmt.Errorf("dictionary holds duplicate values")
	}
	vb := dict.ValueBytes()
	if vb == nil {
		vb = []byte{} // an empty value is a value, as in the dense path
	}
	value := func(r int32) parquet.ByteArray {
		j := order[r]
		lo, hi := dict.ValueOffsets()[j], dict.ValueOffsets()[j+1]
		return parquet.ByteArray(vb[lo:hi:hi])
	}
	stats, _ := bw.PageStatistics().(*metadata.ByteArrayStatistics)
	mm := make([]parquet.ByteArray, 0, 2)
	for k, b := range infos {
		lo, hi := k*batch, min((k+1)*batch, n)
		enc.AddRawSize(b.raw)
		if stats != nil {
			mm = mm[:0]
			if b.lowR >= 0 {
				mm = append(mm, value(b.lowR))
				if b.highR != b.lowR {
					mm = append(mm, value(b.highR))
				}
			}
			stats.Update(mm, b.nulls)
			stats.IncNumValues(int64(hi-lo) - b.nulls - int64(len(mm)))
		}
		part := array.NewSlice(idx, int64(lo), int64(hi))
		var partDef []int16
		if def != nil {
			partDef = def[lo:hi]
		}
		err := cw.WriteDictIndices(part, partDef, nil)
		part.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// errWriteDense says that the column must be written dense to give the
// dense path's bytes (writeDictColumn: its pages would be packed to other
// bit widths, or the writer may fall back from the dictionary by cost);
// nothing was written.
var errWriteDense = errors.New("dictionary bit width differs from the dense path's")

// dictFallbacks counts the columns written dense after errWriteDense (for
// tests).
var dictFallbacks atomic.Int64

// dictBitWidth is the bit width of indices into a dictionary of n values,
// as arrow-go's dictionary encoder computes it.
func dictBitWidth(n int) int {
	switch n {
	case 0:
		return 0
	case 1:
		return 1
	}
	return bits.Len32(uint32(n - 1))
}

// denseFromDict is d as a plain string array (with a validity bitmap
// when d has one).
func denseFromDict(d *array.Dictionary) arrow.Array {
	dict := d.Dictionary().(*array.String)
	ix := d.Indices().(*array.Int32).Int32Values()
	rows := make([]int32, d.Len())
	for i := range rows {
		rows[i] = int32(i)
	}
	var valid func(*int32) bool
	if d.NullBitmapBytes() != nil {
		valid = func(i *int32) bool { return d.IsValid(int(*i)) }
	}
	return stringArray(rows, valid, func(i *int32) string { return dict.Value(int(ix[*i])) })
}

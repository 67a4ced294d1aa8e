package ingest

import (
	"time"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Fixed-width and dictionary-encoded string columns of the runs and
// score_log tables built in one pass over blocks of rows. A Run is 656 bytes (632 when this was measured), so building each of its ~20 fixed-width columns
// by itself streamed the table through memory once per column (reading
// one field of every row 36 times took 85 ms for METR ×20, where one pass
// reading it 36 times took 18 ms), through two closure calls per row.
// Here each row-range goroutine fills every fixed-width column for a block
// of rows while the block is in cache, reading the fields at their offsets
// in the row. The arrays equal the columns' own (colDef.array;
// TestFixedColumnsBlocked), so the Parquet bytes are unchanged.

// blockRows is the rows of a block (256 Runs: 164 KiB, inside a core's L2).
const blockRows = 256

// fixedFill fills one column of a row group in the blocked pass.
type fixedFill interface {
	// fill writes rows [lo, hi) of the column from hi-lo records, the
	// first at src and each stride bytes after the one before, and returns
	// the nulls among them. In the blocked pass each part (a range of rows
	// starting at a multiple of 64) is filled by one goroutine, block
	// after block in order; parts run concurrently. The run store
	// (run_store.go) fills one part, chunk after chunk.
	fill(part int, src unsafe.Pointer, stride uintptr, lo, hi int) int
	// array is the column's first n rows, with nulls nulls in all.
	array(n, nulls int) arrow.Array
}

// fieldOffset is the offset of the field get points to within an R, or
// false when get does not return a pointer into its argument.
func fieldOffset[R, F any](get func(*R) *F) (uintptr, bool) {
	var zero R
	p, z := uintptr(unsafe.Pointer(get(&zero))), uintptr(unsafe.Pointer(&zero))
	var f F
	if p < z || p+unsafe.Sizeof(f) > z+unsafe.Sizeof(zero) {
		return 0, false
	}
	return p - z, true
}

// optFill is a nullable column read from an Opt[T] field; conv turns a
// value into the column's and back turns it back (nil: the same bits, T
// and V alike).
type optFill[T any, V ~int8 | ~int64 | ~float64] struct {
	dt   arrow.DataType
	off  uintptr
	conv func(T) V
	back func(V) T
	bits *memory.Buffer
	vals *memory.Buffer
	v    []V
}

func newOptFill[T any, V ~int8 | ~int64 | ~float64](dt arrow.DataType, off uintptr, conv func(T) V, back func(V) T, n int) *optFill[T, V] {
	var zero V
	f := &optFill[T, V]{dt: dt, off: off, conv: conv, back: back, bits: newBitmap(n), vals: newBuffer(n * int(unsafe.Sizeof(zero)))}
	f.v = unsafe.Slice((*V)(unsafe.Pointer(unsafe.SliceData(f.vals.Bytes()))), n)
	return f
}

func (f *optFill[T, V]) fill(_ int, src unsafe.Pointer, stride uintptr, lo, hi int) int {
	b, v := f.bits.Bytes(), f.v
	nulls := 0
	for i := lo; i < hi; i++ {
		o := (*Opt[T])(unsafe.Add(src, uintptr(i-lo)*stride+f.off))
		if !o.Valid {
			nulls++
			continue
		}
		bitutil.SetBit(b, i)
		if f.conv == nil {
			v[i] = *(*V)(unsafe.Pointer(&o.V))
		} else {
			v[i] = f.conv(o.V)
		}
	}
	return nulls
}

func (f *optFill[T, V]) array(n, nulls int) arrow.Array {
	d := array.NewData(f.dt, n, []*memory.Buffer{f.bits, f.vals}, nil, nulls, 0)
	defer d.Release()
	return array.MakeFromData(d)
}

// boolFill is a nullable boolean column read from an Opt[bool] field:
// validity bits and value bits, as boolArray builds them.
type boolFill struct {
	off        uintptr
	n          int
	bits, vals *memory.Buffer
}

func newBoolFill(off uintptr, n int) *boolFill {
	return &boolFill{off: off, n: n, bits: newBitmap(n), vals: newBuffer(int(bitutil.BytesForBits(int64(n))))}
}

func (f *boolFill) fill(_ int, src unsafe.Pointer, stride uintptr, lo, hi int) int {
	b, vb := f.bits.Bytes(), f.vals.Bytes()
	nulls := 0
	for i := lo; i < hi; i++ {
		o := (*Opt[bool])(unsafe.Add(src, uintptr(i-lo)*stride+f.off))
		if !o.Valid {
			nulls++
			continue
		}
		bitutil.SetBit(b, i)
		if o.V {
			bitutil.SetBit(vb, i)
		}
	}
	return nulls
}

func (f *boolFill) array(n, nulls int) arrow.Array {
	d := array.NewData(arrow.FixedWidthTypes.Boolean, n, []*memory.Buffer{f.bits, f.vals}, nil, nulls, 0)
	defer d.Release()
	return array.MakeFromData(d)
}

// reqFill is a required column read from a V field.
type reqFill[V ~int64 | ~float64] struct {
	dt   arrow.DataType
	off  uintptr
	vals *memory.Buffer
	v    []V
}

func newReqFill[V ~int64 | ~float64](dt arrow.DataType, off uintptr, n int) *reqFill[V] {
	var zero V
	f := &reqFill[V]{dt: dt, off: off, vals: newBuffer(n * int(unsafe.Sizeof(zero)))}
	f.v = unsafe.Slice((*V)(unsafe.Pointer(unsafe.SliceData(f.vals.Bytes()))), n)
	return f
}

func (f *reqFill[V]) fill(_ int, src unsafe.Pointer, stride uintptr, lo, hi int) int {
	v := f.v
	for i := lo; i < hi; i++ {
		v[i] = *(*V)(unsafe.Add(src, uintptr(i-lo)*stride+f.off))
	}
	return 0
}

func (f *reqFill[V]) array(n, _ int) arrow.Array {
	d := array.NewData(f.dt, n, []*memory.Buffer{nil, f.vals}, nil, 0, 0)
	defer d.Release()
	return array.MakeFromData(d)
}

func timeMicro(t time.Time) arrow.Timestamp { return arrow.Timestamp(t.UnixMicro()) }

// microTime is timeMicro's inverse, as the table's readers give it
// (colDef.read): the instant in UTC.
func microTime(t arrow.Timestamp) time.Time { return time.UnixMicro(int64(t)).UTC() }

// blockColumns builds the columns of rows that have a filler for the
// blocked pass (colDef.fixed; with dict set, also the dictionary-encoded
// string columns of table, colDef.blockDict) in one pass over blocks of
// rows on up to GOMAXPROCS goroutines; out[ci] is nil for the others.
func blockColumns[R any](table string, cols []colDef[R], rows []R, dict bool) []arrow.Array {
	n := len(rows)
	out := make([]arrow.Array, len(cols))
	parts := parallelParts(n, 4096)
	var which []int
	var fills []fixedFill
	for ci, c := range cols {
		switch {
		case c.fixed != nil:
			fills = append(fills, c.fixed(n, parts))
		case dict && c.blockDict != nil && dictionaryEncoded(table, c.field):
			fills = append(fills, c.blockDict(n, parts))
		default:
			continue
		}
		which = append(which, ci)
	}
	if len(fills) == 0 {
		return out
	}
	var stride uintptr
	if n > 0 {
		stride = unsafe.Sizeof(rows[0])
	}
	nulls := make([][]int, parts)
	forEachParallel(parts, parts > 1, func(p int) {
		lo, hi := p*n/parts&^63, (p+1)*n/parts&^63
		if p == parts-1 {
			hi = n
		}
		nulls[p] = make([]int, len(fills))
		for b := lo; b < hi; b += blockRows {
			e := min(b+blockRows, hi)
			for k, f := range fills {
				nulls[p][k] += f.fill(p, unsafe.Pointer(&rows[b]), stride, b, e)
			}
		}
	})
	for k, f := range fills {
		total := 0
		for p := range nulls {
			total += nulls[p][k]
		}
		out[which[k]] = f.array(n, total)
	}
	return out
}

// blockedColumns is a table's row groups for the Parquet writer (runs,
// score_log): the fixed-width and dictionary-encoded string columns from
// one blocked pass (blockColumns), the others built one by one as the
// writer asks.
func blockedColumns[R any](table string, cols []colDef[R], rows []R) rowGroupColumns {
	return func(lo, hi int) func(ci int) arrow.Array {
		part := rows[lo:hi]
		built := blockColumns(table, cols, part, true)
		return func(ci int) arrow.Array {
			if built[ci] != nil {
				return built[ci]
			}
			return cols[ci].parquetArray(table, part)
		}
	}
}

// dictFill is a dictionary-encoded string column read from a string field
// (opt: an Opt[string]). Each part numbers its values with its own
// dictIndexer; array then merges the parts' dictionaries in part order
// and renumbers the later parts' indices, which gives the dictionary in
// order of first occurrence over the whole column, as dictStringArray does.
type dictFill struct {
	off    uintptr
	opt    bool
	n      int
	bits   *memory.Buffer // nil when !opt
	idxBuf *memory.Buffer
	idx    []int32
	dicts  []dictIndexer
	lo, hi []int // each part's rows
}

func newDictFill(off uintptr, opt bool, n, parts int) *dictFill {
	f := &dictFill{off: off, opt: opt, n: n, idxBuf: newBuffer(n * 4),
		dicts: make([]dictIndexer, parts), lo: make([]int, parts), hi: make([]int, parts)}
	f.idx = unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(f.idxBuf.Bytes()))), n)
	if opt {
		f.bits = newBitmap(n)
	}
	for p := range f.lo {
		f.lo[p] = -1
	}
	return f
}

func (f *dictFill) fill(part int, src unsafe.Pointer, stride uintptr, lo, hi int) int {
	if f.lo[part] < 0 {
		f.lo[part] = lo
	}
	f.hi[part] = hi
	return f.fillWith(&f.dicts[part], src, stride, lo, hi)
}

func (f *dictFill) array(n, nulls int) arrow.Array {
	g := &f.dicts[0]
	for p := 1; p < len(f.dicts); p++ {
		vals := f.dicts[p].vals
		if len(vals) == 0 || f.lo[p] < 0 {
			continue
		}
		remap := make([]int32, len(vals))
		for j, s := range vals {
			remap[j] = g.index(s)
		}
		for i := f.lo[p]; i < f.hi[p]; i++ {
			if f.bits == nil || bitutil.BitIsSet(f.bits.Bytes(), i) {
				f.idx[i] = remap[f.idx[i]]
			}
		}
	}
	return g.array(n, f.bits, f.idxBuf, nulls)
}

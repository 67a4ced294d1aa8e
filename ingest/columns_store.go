package ingest

import (
	"time"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// What the run store (run_store.go) needs of a column filler besides
// filling: room for more rows, and reading a row back. The store fills
// one part (part 0) in row order, so a dictionary column's indices are
// final as they are written.

// storeFill is a fixedFill the run store can hold.
type storeFill interface {
	fixedFill
	// grow makes room for n rows (n at least the rows there are), keeping
	// the rows filled.
	grow(n int)
	// get stores row i into the record at dst, as the table's readers
	// would read it back (colDef.read).
	get(i int, dst unsafe.Pointer)
	// same reports whether row i equals the record at src's field as the
	// column would store it (a timestamp to the microsecond; floats by
	// ==, so NaN differs from NaN as in reflect.DeepEqual).
	same(i int, src unsafe.Pointer) bool
}

// grownBuffer returns a buffer of n bytes holding old's bytes, and
// releases old.
func grownBuffer(old *memory.Buffer, n int) *memory.Buffer {
	b := newBuffer(n)
	copy(b.Bytes(), old.Bytes())
	old.Release()
	return b
}

func (f *optFill[T, V]) grow(n int) {
	var zero V
	f.bits = grownBuffer(f.bits, (n+63)/64*8)
	f.vals = grownBuffer(f.vals, n*int(unsafe.Sizeof(zero)))
	f.v = unsafe.Slice((*V)(unsafe.Pointer(unsafe.SliceData(f.vals.Bytes()))), n)
}

func (f *optFill[T, V]) get(i int, dst unsafe.Pointer) {
	if !bitutil.BitIsSet(f.bits.Bytes(), i) {
		return
	}
	o := (*Opt[T])(unsafe.Add(dst, f.off))
	o.Valid = true
	if f.back == nil {
		*(*V)(unsafe.Pointer(&o.V)) = f.v[i]
	} else {
		o.V = f.back(f.v[i])
	}
}

func (f *optFill[T, V]) same(i int, src unsafe.Pointer) bool {
	o := (*Opt[T])(unsafe.Add(src, f.off))
	if o.Valid != bitutil.BitIsSet(f.bits.Bytes(), i) {
		return false
	}
	if !o.Valid {
		return true
	}
	if f.conv == nil {
		return *(*V)(unsafe.Pointer(&o.V)) == f.v[i]
	}
	return f.conv(o.V) == f.v[i]
}

func (f *boolFill) grow(n int) {
	f.bits = grownBuffer(f.bits, (n+63)/64*8)
	f.vals = grownBuffer(f.vals, int(bitutil.BytesForBits(int64(n))))
	f.n = n
}

func (f *boolFill) get(i int, dst unsafe.Pointer) {
	if bitutil.BitIsSet(f.bits.Bytes(), i) {
		*(*Opt[bool])(unsafe.Add(dst, f.off)) = Some(bitutil.BitIsSet(f.vals.Bytes(), i))
	}
}

func (f *boolFill) same(i int, src unsafe.Pointer) bool {
	o := (*Opt[bool])(unsafe.Add(src, f.off))
	if o.Valid != bitutil.BitIsSet(f.bits.Bytes(), i) {
		return false
	}
	return !o.Valid || o.V == bitutil.BitIsSet(f.vals.Bytes(), i)
}

func (f *reqFill[V]) grow(n int) {
	var zero V
	f.vals = grownBuffer(f.vals, n*int(unsafe.Sizeof(zero)))
	f.v = unsafe.Slice((*V)(unsafe.Pointer(unsafe.SliceData(f.vals.Bytes()))), n)
}

func (f *reqFill[V]) get(i int, dst unsafe.Pointer) { *(*V)(unsafe.Add(dst, f.off)) = f.v[i] }

func (f *reqFill[V]) same(i int, src unsafe.Pointer) bool {
	return *(*V)(unsafe.Add(src, f.off)) == f.v[i]
}

func (f *dictFill) grow(n int) {
	f.idxBuf = grownBuffer(f.idxBuf, n*4)
	f.idx = unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(f.idxBuf.Bytes()))), n)
	if f.bits != nil {
		f.bits = grownBuffer(f.bits, (n+63)/64*8)
	}
	f.n = n
}

// value is row i's string (the store's single part numbers the whole
// column) and whether it is present.
func (f *dictFill) value(i int) (string, bool) {
	if f.bits != nil && !bitutil.BitIsSet(f.bits.Bytes(), i) {
		return "", false
	}
	return f.dicts[0].vals[f.idx[i]], true
}

func (f *dictFill) get(i int, dst unsafe.Pointer) {
	s, ok := f.value(i)
	switch {
	case !f.opt:
		*(*string)(unsafe.Add(dst, f.off)) = s
	case ok:
		*(*Opt[string])(unsafe.Add(dst, f.off)) = Some(s)
	}
}

func (f *dictFill) same(i int, src unsafe.Pointer) bool {
	s, ok := f.value(i)
	if !f.opt {
		return *(*string)(unsafe.Add(src, f.off)) == s
	}
	o := (*Opt[string])(unsafe.Add(src, f.off))
	return o.Valid == ok && (!ok || o.V == s)
}

// fillWith is fill numbering the values with d: a part's dictionary, or
// a parse worker's own (run store), which renumber turns into the
// column's.
func (f *dictFill) fillWith(d *dictIndexer, src unsafe.Pointer, stride uintptr, lo, hi int) int {
	idx := f.idx
	if !f.opt {
		for i := lo; i < hi; i++ {
			idx[i] = d.index(*(*string)(unsafe.Add(src, uintptr(i-lo)*stride+f.off)))
		}
		return 0
	}
	b := f.bits.Bytes()
	nulls := 0
	for i := lo; i < hi; i++ {
		o := (*Opt[string])(unsafe.Add(src, uintptr(i-lo)*stride+f.off))
		if !o.Valid {
			nulls++
			continue
		}
		bitutil.SetBit(b, i)
		idx[i] = d.index(o.V)
	}
	return nulls
}

// renumber turns the indices of rows [lo, hi), which number vals (a
// worker's values, fillLocal), into indices in g: rm maps a worker index
// to g's, -1 until the value is first met. Called for the chunks in row
// order, it numbers g's values in order of first occurrence.
func (f *dictFill) renumber(g *dictIndexer, vals []string, rm []int32, lo, hi int) {
	idx := f.idx
	var b []byte
	if f.opt {
		b = f.bits.Bytes()
	}
	for i := lo; i < hi; i++ {
		if b != nil && !bitutil.BitIsSet(b, i) {
			continue
		}
		j := rm[idx[i]]
		if j < 0 {
			j = g.index(vals[idx[i]])
			rm[idx[i]] = j
		}
		idx[i] = j
	}
}

// The store's fillers must all be storeFills.
var (
	_ storeFill = (*optFill[time.Time, int64])(nil)
	_ storeFill = (*boolFill)(nil)
	_ storeFill = (*reqFill[int64])(nil)
	_ storeFill = (*dictFill)(nil)
)

package ingest

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// colDef describes one Arrow column of a table of R values: its field, how
// to append a value from an R, and how to read it back into an R.
type colDef[R any] struct {
	field arrow.Field
	array func(rows []R) arrow.Array // the column of rows (arrays.go)
	// dict, for string columns, builds the column as a dictionary array,
	// which the Parquet writer encodes from its dictionary
	// (write_parquet_dict.go); nil for other columns.
	dict func(rows []R) arrow.Array
	// fixed, for a fixed-width column whose accessor points into the row,
	// makes its filler for a blocked pass over n rows (columns_blocked.go).
	fixed func(n, parts int) fixedFill
	// blockDict, for string columns, makes the filler that numbers the
	// column for a dictionary in the blocked pass (columns_blocked.go).
	blockDict func(n, parts int) fixedFill
	read      func(a arrow.Array, i int, r *R)
}

// fixedFor returns the fixed filler maker for the field get points to,
// or nil when its offset cannot be found (the column is then built by
// itself).
func fixedFor[R, F any](get func(*R) *F, mk func(off uintptr, n, parts int) fixedFill) func(n, parts int) fixedFill {
	off, ok := fieldOffset(get)
	if !ok {
		return nil
	}
	return func(n, parts int) fixedFill { return mk(off, n, parts) }
}

// TimestampType is the type of every timestamp column: microseconds, UTC.
var TimestampType = &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}

func reqStr[R any](name string, get func(*R) *string) colDef[R] {
	return colDef[R]{
		field: arrow.Field{Name: name, Type: arrow.BinaryTypes.String},
		array: func(rows []R) arrow.Array {
			return stringArray(rows, nil, func(r *R) string { return *get(r) })
		},
		dict: func(rows []R) arrow.Array {
			return dictStringArray(rows, nil, func(r *R) string { return *get(r) })
		},
		blockDict: fixedFor(get, func(off uintptr, n, parts int) fixedFill { return newDictFill(off, false, n, parts) }),
		read:      func(a arrow.Array, i int, r *R) { *get(r) = a.(*array.String).Value(i) },
	}
}

func reqInt[R any](name string, get func(*R) *int64) colDef[R] {
	return colDef[R]{
		field: arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Int64},
		fixed: fixedFor(get, func(off uintptr, n, _ int) fixedFill {
			return newReqFill[int64](arrow.PrimitiveTypes.Int64, off, n)
		}),
		array: func(rows []R) arrow.Array {
			return fixedArray(arrow.PrimitiveTypes.Int64, rows, nil, func(r *R) int64 { return *get(r) })
		},
		read: func(a arrow.Array, i int, r *R) { *get(r) = a.(*array.Int64).Value(i) },
	}
}

func reqFloat[R any](name string, get func(*R) *float64) colDef[R] {
	return colDef[R]{
		field: arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Float64},
		fixed: fixedFor(get, func(off uintptr, n, _ int) fixedFill {
			return newReqFill[float64](arrow.PrimitiveTypes.Float64, off, n)
		}),
		array: func(rows []R) arrow.Array {
			return fixedArray(arrow.PrimitiveTypes.Float64, rows, nil, func(r *R) float64 { return *get(r) })
		},
		read: func(a arrow.Array, i int, r *R) { *get(r) = a.(*array.Float64).Value(i) },
	}
}

func nStr[R any](name string, get func(*R) *Opt[string]) colDef[R] {
	return colDef[R]{
		field: arrow.Field{Name: name, Type: arrow.BinaryTypes.String, Nullable: true},
		array: func(rows []R) arrow.Array {
			return stringArray(rows, func(r *R) bool { return get(r).Valid }, func(r *R) string { return get(r).V })
		},
		dict: func(rows []R) arrow.Array {
			return dictStringArray(rows, func(r *R) bool { return get(r).Valid }, func(r *R) string { return get(r).V })
		},
		blockDict: fixedFor(get, func(off uintptr, n, parts int) fixedFill { return newDictFill(off, true, n, parts) }),
		read: func(a arrow.Array, i int, r *R) {
			if a.IsValid(i) {
				*get(r) = Some(a.(*array.String).Value(i))
			}
		},
	}
}

func nFloat[R any](name string, get func(*R) *Opt[float64]) colDef[R] {
	return colDef[R]{
		field: arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		fixed: fixedFor(get, func(off uintptr, n, _ int) fixedFill {
			return newOptFill[float64, float64](arrow.PrimitiveTypes.Float64, off, nil, nil, n)
		}),
		array: func(rows []R) arrow.Array {
			return fixedArray(arrow.PrimitiveTypes.Float64, rows, func(r *R) bool { return get(r).Valid }, func(r *R) float64 { return get(r).V })
		},
		read: func(a arrow.Array, i int, r *R) {
			if a.IsValid(i) {
				*get(r) = Some(a.(*array.Float64).Value(i))
			}
		},
	}
}

func nInt[R any](name string, get func(*R) *Opt[int64]) colDef[R] {
	return colDef[R]{
		field: arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		fixed: fixedFor(get, func(off uintptr, n, _ int) fixedFill {
			return newOptFill[int64, int64](arrow.PrimitiveTypes.Int64, off, nil, nil, n)
		}),
		array: func(rows []R) arrow.Array {
			return fixedArray(arrow.PrimitiveTypes.Int64, rows, func(r *R) bool { return get(r).Valid }, func(r *R) int64 { return get(r).V })
		},
		read: func(a arrow.Array, i int, r *R) {
			if a.IsValid(i) {
				*get(r) = Some(a.(*array.Int64).Value(i))
			}
		},
	}
}

func nInt8[R any](name string, get func(*R) *Opt[int8]) colDef[R] {
	return colDef[R]{
		field: arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Int8, Nullable: true},
		fixed: fixedFor(get, func(off uintptr, n, _ int) fixedFill {
			return newOptFill[int8, int8](arrow.PrimitiveTypes.Int8, off, nil, nil, n)
		}),
		array: func(rows []R) arrow.Array {
			return fixedArray(arrow.PrimitiveTypes.Int8, rows, func(r *R) bool { return get(r).Valid }, func(r *R) int8 { return get(r).V })
		},
		read: func(a arrow.Array, i int, r *R) {
			if a.IsValid(i) {
				*get(r) = Some(a.(*array.Int8).Value(i))
			}
		},
	}
}

func nBool[R any](name string, get func(*R) *Opt[bool]) colDef[R] {
	return colDef[R]{
		field: arrow.Field{Name: name, Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		fixed: fixedFor(get, func(off uintptr, n, _ int) fixedFill { return newBoolFill(off, n) }),
		array: func(rows []R) arrow.Array {
			return boolArray(rows, func(r *R) bool { return get(r).Valid }, func(r *R) bool { return get(r).V })
		},
		read: func(a arrow.Array, i int, r *R) {
			if a.IsValid(i) {
				*get(r) = Some(a.(*array.Boolean).Value(i))
			}
		},
	}
}

func nTime[R any](name string, get func(*R) *Opt[time.Time]) colDef[R] {
	return colDef[R]{
		field: arrow.Field{Name: name, Type: TimestampType, Nullable: true},
		fixed: fixedFor(get, func(off uintptr, n, _ int) fixedFill {
			return newOptFill[time.Time, arrow.Timestamp](TimestampType, off, timeMicro, microTime, n)
		}),
		array: func(rows []R) arrow.Array {
			return fixedArray(TimestampType, rows, func(r *R) bool { return get(r).Valid }, func(r *R) arrow.Timestamp { return arrow.Timestamp(get(r).V.UnixMicro()) })
		},
		read: func(a arrow.Array, i int, r *R) {
			if a.IsValid(i) {
				*get(r) = Some(time.UnixMicro(int64(a.(*array.Timestamp).Value(i))).UTC())
			}
		},
	}
}

// nList is a nullable list<utf8>: a nil slice is null, an empty one is [].
func nList[R any](name string, get func(*R) *[]string) colDef[R] {
	return colDef[R]{
		field: arrow.Field{Name: name, Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
		array: func(rows []R) arrow.Array {
			return stringListArray(rows, func(r *R) []string { return *get(r) })
		},
		read: func(a arrow.Array, i int, r *R) {
			if !a.IsValid(i) {
				return
			}
			la := a.(*array.List)
			start, end := la.ValueOffsets(i)
			vals := la.ListValues().(*array.String)
			out := make([]string, 0, end-start)
			for j := start; j < end; j++ {
				out = append(out, vals.Value(int(j)))
			}
			*get(r) = out
		},
	}
}

// parquetArray is the column of rows as the Parquet writer takes it: a
// dictionary array for a dictionary-encoded string column of table, the
// plain array otherwise.
func (c colDef[R]) parquetArray(table string, rows []R) arrow.Array {
	if c.dict != nil && dictionaryEncoded(table, c.field) {
		return c.dict(rows)
	}
	return c.array(rows)
}

// buildRecord turns rows into one Arrow record batch with the given
// columns. Columns are independent, so large tables fill them on
// GOMAXPROCS goroutines; the result does not depend on how many.
func buildRecord[R any](schema *arrow.Schema, cols []colDef[R], rows []R) arrow.RecordBatch {
	arrs := blockColumns("", cols, rows, false) // the fixed-width ones, in one blocked pass
	forEachParallel(len(cols), len(rows) >= parallelBuildRows, func(ci int) {
		if arrs[ci] == nil {
			arrs[ci] = cols[ci].array(rows)
		}
	})
	rec := array.NewRecordBatch(schema, arrs, int64(len(rows)))
	for _, a := range arrs {
		a.Release()
	}
	return rec
}

// parallelBuildRows is the least number of rows whose Arrow columns are
// filled concurrently (a variable so that tests reach the parallel path
// with small tables).
var parallelBuildRows = 4096

// parallelParts is how many parts of at least minPart items n items are
// split into for forEachParallel: GOMAXPROCS at most, and at least one.
func parallelParts(n, minPart int) int {
	return max(1, min(runtime.GOMAXPROCS(0), n/minPart))
}

// forEachParallel calls f(0) … f(n-1), on up to GOMAXPROCS goroutines when
// parallel is set (each i once; the calls must be independent).
func forEachParallel(n int, parallel bool, f func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if !parallel || workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	work := func() {
		for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
			f(i)
		}
	}
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
}

// readRecord appends the rows of rec to out, matching columns by name.
// Columns of rec that cols lacks are ignored; required columns must exist.
func readRecord[R any](rec arrow.RecordBatch, cols []colDef[R], out []R) ([]R, error) {
	idx := make([]int, len(cols))
	for ci, c := range cols {
		idx[ci] = -1
		for fi, f := range rec.Schema().Fields() {
			if f.Name == c.field.Name {
				if !arrow.TypeEqual(f.Type, c.field.Type) {
					return nil, fmt.Errorf("column %q: want type %s, got %s", f.Name, c.field.Type, f.Type)
				}
				idx[ci] = fi
			}
		}
		if idx[ci] < 0 && !c.field.Nullable {
			return nil, fmt.Errorf("missing required column %q", c.field.Name)
		}
	}
	n := int(rec.NumRows())
	base := len(out)
	out = append(out, make([]R, n)...)
	for ci, c := range cols {
		if idx[ci] < 0 {
			continue
		}
		a := rec.Column(idx[ci])
		for i := 0; i < n; i++ {
			c.read(a, i, &out[base+i])
		}
	}
	return out, nil
}

package ingest

import (
	"runtime"
	"sync/atomic"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// scoreLogParquetColumns builds the five score_log columns of rows as the
// Parquet writer takes them (dictionary arrays for the strings) in one
// pass over the rows. Score logs are long (10^6–10^7 entries) and an entry
// is 96 bytes, so a pass per column streamed the whole table from memory
// five times: here GOMAXPROCS goroutines each fill every column for a
// range of rows (ranges of whole 64-row words, so that no two write one
// bitmap byte), then the two string columns are numbered from their
// compact values. The arrays equal those built a column at a time
// (TestScoreLogColumnsOnePass).
func scoreLogParquetColumns(rows []ScoreEntry) [5]arrow.Array {
	n := len(rows)
	elapsedBits, scoredBits, msgBits := newBitmap(n), newBitmap(n), newBitmap(n)
	elapsedBuf, scoredBuf, rawBuf := newBuffer(8*n), newBuffer(8*n), newBuffer(8*n)
	elapsed := unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(elapsedBuf.Bytes()))), n)
	scored := unsafe.Slice((*int64)(unsafe.Pointer(unsafe.SliceData(scoredBuf.Bytes()))), n)
	raw := unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(rawBuf.Bytes()))), n)
	ids, msgs := make([]string, n), make([]string, n)
	var elapsedNulls, scoredNulls, msgNulls atomic.Int64

	parts := max(1, min(runtime.GOMAXPROCS(0), n/4096))
	forEachParallel(parts, parts > 1, func(p int) {
		lo, hi := p*n/parts&^63, (p+1)*n/parts&^63
		if p == parts-1 {
			hi = n
		}
		eb, sb, mb := elapsedBits.Bytes(), scoredBits.Bytes(), msgBits.Bytes()
		var en, sn, mn int64
		for i := lo; i < hi; i++ {
			e := &rows[i]
			ids[i] = e.RunID
			if e.ElapsedS.Valid {
				bitutil.SetBit(eb, i)
				elapsed[i] = e.ElapsedS.V
			} else {
				en++
			}
			if e.ScoredAt.Valid {
				bitutil.SetBit(sb, i)
				scored[i] = e.ScoredAt.V.UnixMicro()
			} else {
				sn++
			}
			raw[i] = e.RawScore
			if e.Message.Valid {
				bitutil.SetBit(mb, i)
				msgs[i] = e.Message.V
			} else {
				mn++
			}
		}
		elapsedNulls.Add(en)
		scoredNulls.Add(sn)
		msgNulls.Add(mn)
	})

	fixed := func(dt arrow.DataType, bits, vals *memory.Buffer, nulls int64) arrow.Array {
		d := array.NewData(dt, n, []*memory.Buffer{bits, vals}, nil, int(nulls), 0)
		defer d.Release()
		return array.MakeFromData(d)
	}
	var out [5]arrow.Array
	out[1] = fixed(arrow.PrimitiveTypes.Float64, elapsedBits, elapsedBuf, elapsedNulls.Load())
	out[2] = fixed(TimestampType, scoredBits, scoredBuf, scoredNulls.Load())
	out[3] = fixed(arrow.PrimitiveTypes.Float64, nil, rawBuf, 0)
	forEachParallel(2, n >= parallelBuildRows, func(k int) {
		if k == 0 {
			out[0] = dictStringColumn(ids, nil, 0)
		} else {
			out[4] = dictStringColumn(msgs, msgBits, int(msgNulls.Load()))
		}
	})
	return out
}

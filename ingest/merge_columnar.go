package ingest

import "fmt"

// mergeColumnar is readJSONLParallel's merge of one chunk for a
// write-only load, which keeps the runs in the dataset's run store
// (run_store.go). It decides what the row path (addRunHashed) decides: a
// rejected record is reported; a run whose id was read before is dropped
// when it holds the same content (counted for the warning) and rejected
// otherwise.
//
// A chunk the parse worker filled into the store's rows (chunk.base ≥ 0,
// runStore.fillChunk) is settled, and the rows of its records that are
// not kept become holes (which Load then removes by going on with Runs,
// see finish). The runs of any other chunk are appended, each stretch of
// consecutive kept runs at once.
func (l *loader) mergeColumnar(c *chunk, items []runItem, runs []Run, fill chunkFill, st *InputStats) {
	if len(items) == 0 {
		return
	}
	store := l.ds.runStore
	if l.runIndex.len() == 0 && store.n == 0 {
		l.runIndex.reset(store.est)
	}
	if c.base >= 0 {
		l.touched += l.runIndex.touch(func(k int) uint64 { return items[k].hash }, len(items))
		store.settle(fill, c.base, len(items))
		for i := range items {
			if !l.mergeRun(store, &items[i], &runs[i], c.base+i, st, nil) {
				store.holes = append(store.holes, c.base+i)
			}
		}
		return
	}
	store.ids = store.ids[:store.n] // drop the reserved rows no chunk took
	start := -1                     // first item of the stretch of kept runs not yet appended
	flush := func(end int) {
		if start >= 0 {
			store.append(runs[start:end])
			start = -1
		}
	}
	for i := range items {
		row := len(store.ids)
		if items[i].err == nil {
			store.ids = append(store.ids, runs[i].RunID)
		}
		if !l.mergeRun(store, &items[i], &runs[i], row, st, func() { flush(i) }) {
			flush(i)
			if items[i].err == nil {
				store.ids = store.ids[:row]
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(items))
}

// mergeRun decides whether the run of it, r, is kept as row row of store
// (reporting it when it is not): it is not when its record was rejected
// or its id was read before. Row row's id is r's. Before it reads an
// earlier row it calls settle, if set, to have the store filled up to r.
func (l *loader) mergeRun(store *runStore, it *runItem, r *Run, row int, st *InputStats, settle func()) bool {
	if it.err != nil {
		l.reject(st, it.err, it.text)
		return false
	}
	if it.hasHuman {
		l.setHumanRef(r.TaskID, it.human)
	}
	j, dup := l.runIndex.getOrPut(r.RunID, it.hash, row)
	if !dup {
		st.RowsKept++
		return true
	}
	if settle != nil {
		settle()
	}
	if store.same(j, r) {
		st.RowsKept++
		l.dupSame++
		return false
	}
	prev := store.row(j)
	l.reject(st, &Error{File: r.SourceFile, Line: int(r.SourceLine), Field: "run_id",
		Msg: fmt.Sprintf("duplicate run_id %q with different content (first at %s:%d)", r.RunID, prev.SourceFile, prev.SourceLine)}, nil)
	return false
}

package ingest

import (
	"fmt"
	"slices"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
)

// runStore holds the runs of a write-only load (Options.WriteOnly) as the
// Arrow columns the Parquet writer takes, rather than as Run values.
//
// A Run is 656 bytes (632 when this was measured), and METR ×100 (706,000 runs) needed a 446 MB table
// of them before the columns (about a quarter of that) were built from it:
// on this project's machines fresh memory costs 0.4–0.9 ms per MB to map
// and clear, and the kernel's clearing of the run table's pages was 15 %
// of the ingest's CPU (perf, docs/performance.md). Here the parse workers
// parse each chunk into a small recycled []Run, as before, and then fill
// the chunk's rows of the store with the blocked pass's fillers
// (columns_blocked.go): the reading goroutine gives each chunk its rows of
// the first segment, sized from the file (storeChunks), and every chunk
// but the last holds a multiple of 64 records, so that no two workers
// write one word of a bitmap. Dictionary columns are numbered by each
// worker and renumbered by the merge, which takes the chunks in file
// order (settle), so that each dictionary is in order of first
// occurrence, as the blocked pass's merge of its parts makes it: the
// Parquet bytes are those of the Run table's path
// (TestWriteOnlyMatchesRows). Rows past the first segment's room (a short
// estimate, a compressed file, a second file) are appended by the merge
// (append). A rejected or repeated record leaves a hole in the workers'
// rows; Load then goes on with Runs (rows).
//
// Rows are kept in segments of rowGroupRows rows, one per row group of
// the runs file. Run ids are kept as strings, for the duplicate check
// (runIDIndex) and the run_id column; files_edited as slices, allocated
// once a run has one.
type runStore struct {
	ids     []string      // run_id of every row
	segs    []*runSegment // segs[k]: rows [k·segRows, (k+1)·segRows)
	segRows int           // rowGroupRows when the store was made
	est     int           // rows expected in all (sizes the next segment)
	n       int           // rows filled
	holes   []int         // rows not kept (rejected or duplicate records), ascending

	// remap[w][ci] renumbers worker w's dictionary for column ci (run
	// store's merge only; see settle).
	remap map[*colWorker][][]int32
}

// colWorker is a parse worker's part in filling the store: its own
// numbering of each dictionary column's values.
type colWorker struct {
	dicts []dictIndexer // by runCols index
}

// chunkFill is what a worker filled of one chunk, for the merge.
type chunkFill struct {
	w     *colWorker
	nulls []int      // by runCols index
	vals  [][]string // by runCols index: the worker's dictionary values when it was done
	lists []rowList  // files_edited of the rows that have one
}

type rowList struct {
	row  int
	list []string
}

// runSegment is the columns of one row group's rows.
type runSegment struct {
	n, cap int
	fills  []storeFill // by runCols index; nil for run_id and files_edited
	nulls  []int       // by runCols index
	lists  [][]string  // files_edited by row; nil while no row has one
}

// Indices in runCols of the columns the store keeps apart from the fillers.
var (
	runIDCol       = colIndex(runCols, "run_id")
	filesEditedCol = colIndex(runCols, "files_edited")
	sourceFileCol  = colIndex(runCols, "source_file")
	sourceLineCol  = colIndex(runCols, "source_line")
	benchmarkCol   = colIndex(runCols, "benchmark")
	taskIDCol      = colIndex(runCols, "task_id")
	taskFamilyCol  = colIndex(runCols, "task_family")
)

func colIndex[R any](cols []colDef[R], name string) int {
	for i, c := range cols {
		if c.field.Name == name {
			return i
		}
	}
	panic("ingest: no column " + name)
}

// newRunStore returns an empty store for about est runs.
func newRunStore(est int) *runStore {
	return &runStore{segRows: rowGroupRows, est: max(est, 1024), remap: map[*colWorker][][]int32{}}
}

// reserve makes the first segment, for the parse workers to fill
// (fillChunk), with room for est rows at most, and returns its room.
func (s *runStore) reserve() int {
	g := s.newSegment()
	s.segs = append(s.segs, g)
	s.ids = make([]string, 0, g.cap)
	adviseHugeSlice(s.ids)
	s.ids = s.ids[:g.cap]
	return g.cap
}

// fillChunk fills rows [base, base+len(runs)) of the first segment from
// runs, on parse worker w, while other workers fill other chunks' rows:
// base is a multiple of 64, so no two chunks share a word of a bitmap.
// Dictionary columns get w's own numbering, which the merge renumbers
// (settle). Rows whose records were rejected are filled too, with
// whatever the parse left; the merge makes them holes.
func (s *runStore) fillChunk(w *colWorker, runs []Run, base int) chunkFill {
	g := s.segs[0]
	if w.dicts == nil {
		w.dicts = make([]dictIndexer, len(runCols))
	}
	cf := chunkFill{w: w, nulls: make([]int, len(runCols)), vals: make([][]string, len(runCols))}
	if len(runs) == 0 {
		return cf
	}
	stride, src := unsafe.Sizeof(Run{}), unsafe.Pointer(&runs[0])
	hi := base + len(runs)
	for ci, f := range g.fills {
		switch f := f.(type) {
		case nil:
		case *dictFill:
			cf.nulls[ci] = f.fillWith(&w.dicts[ci], src, stride, base, hi)
			cf.vals[ci] = w.dicts[ci].vals
		default:
			cf.nulls[ci] = f.fill(0, src, stride, base, hi)
		}
	}
	for i := range runs {
		s.ids[base+i] = runs[i].RunID
		if fe := runs[i].FilesEdited; fe != nil {
			cf.lists = append(cf.lists, rowList{base + i, fe})
		}
	}
	return cf
}

// settle takes a chunk a worker filled (fillChunk) into the store, on the
// merge, chunks in file order: each dictionary column's rows are
// renumbered from the worker's numbering to the column's, which numbers
// values in order of first occurrence.
func (s *runStore) settle(cf chunkFill, base, n int) {
	g := s.segs[0]
	rm := s.remap[cf.w]
	if rm == nil {
		rm = make([][]int32, len(runCols))
		s.remap[cf.w] = rm
	}
	for ci, f := range g.fills {
		g.nulls[ci] += cf.nulls[ci]
		d, ok := f.(*dictFill)
		if !ok {
			continue
		}
		vals := cf.vals[ci]
		for len(rm[ci]) < len(vals) {
			rm[ci] = append(rm[ci], -1)
		}
		d.renumber(&d.dicts[0], vals, rm[ci], base, base+n)
	}
	if len(cf.lists) > 0 && g.lists == nil {
		g.lists = make([][]string, g.cap)
	}
	for _, l := range cf.lists {
		g.lists[l.row] = l.list
	}
	g.n = base + n
	s.n = base + n
}

func (s *runStore) newSegment() *runSegment {
	c := min(s.segRows, max(s.est-s.n, 1024))
	g := &runSegment{cap: c, fills: make([]storeFill, len(runCols)), nulls: make([]int, len(runCols))}
	for ci, col := range runCols {
		var f fixedFill
		switch {
		case ci == runIDCol || ci == filesEditedCol:
			continue
		case col.fixed != nil:
			f = col.fixed(c, 1)
		case col.blockDict != nil:
			f = col.blockDict(c, 1)
		}
		sf, ok := f.(storeFill)
		if !ok {
			panic(fmt.Sprintf("ingest: runs column %s has no filler the run store can hold", col.field.Name))
		}
		g.fills[ci] = sf
	}
	return g
}

// grow makes room for n rows in g.
func (g *runSegment) grow(n int) {
	for _, f := range g.fills {
		if f != nil {
			f.grow(n)
		}
	}
	if g.lists != nil {
		g.lists = slices.Grow(g.lists[:g.n], n-g.n)[:n]
	}
	g.cap = n
}

// append adds runs, in order, as the store's next rows, on the merge once
// no worker fills rows (fillChunk). Their ids must have been appended to
// s.ids already.
func (s *runStore) append(runs []Run) {
	stride := unsafe.Sizeof(Run{})
	for len(runs) > 0 {
		if len(s.segs) == 0 || s.segs[len(s.segs)-1].n == s.segRows {
			s.segs = append(s.segs, s.newSegment())
		}
		g := s.segs[len(s.segs)-1]
		k := min(len(runs), s.segRows-g.n)
		if g.n+k > g.cap {
			g.grow(min(s.segRows, max(g.n+k, g.cap+g.cap/2)))
		}
		src := unsafe.Pointer(&runs[0])
		for ci, f := range g.fills {
			if f != nil {
				g.nulls[ci] += f.fill(0, src, stride, g.n, g.n+k)
			}
		}
		for i := range runs[:k] {
			if fe := runs[i].FilesEdited; fe != nil {
				if g.lists == nil {
					g.lists = make([][]string, g.cap)
				}
				g.lists[g.n+i] = fe
			}
		}
		g.n += k
		s.n += k
		runs = runs[k:]
	}
}

// at returns row i's segment and its row in it.
func (s *runStore) at(i int) (*runSegment, int) { return s.segs[i/s.segRows], i % s.segRows }

// row returns row i as a Run, as the table's readers read it back.
func (s *runStore) row(i int) Run {
	var r Run
	s.rowInto(i, &r)
	return r
}

// rowInto stores row i into *r, a zero Run.
func (s *runStore) rowInto(i int, r *Run) {
	g, j := s.at(i)
	for _, f := range g.fills {
		if f != nil {
			f.get(j, unsafe.Pointer(r))
		}
	}
	r.RunID = s.ids[i]
	if g.lists != nil {
		r.FilesEdited = g.lists[j]
	}
}

// taskHead is row i's benchmark, task_id and task_family (what the task
// checks read of a stretch's first run) as a Run. (Through the fillers'
// get, the Run escaped to the heap: 85,000 stretches of METR ×100 took
// 100 ms of fresh memory.)
func (s *runStore) taskHead(i int) Run {
	g, j := s.at(i)
	b, _ := g.fills[benchmarkCol].(*dictFill).value(j)
	t, _ := g.fills[taskIDCol].(*dictFill).value(j)
	f, ok := g.fills[taskFamilyCol].(*dictFill).value(j)
	return Run{Benchmark: b, TaskID: t, TaskFamily: Opt[string]{V: f, Valid: ok}}
}

// same reports whether row i holds what r would be stored as, source file
// and line aside (sameRun).
func (s *runStore) same(i int, r *Run) bool {
	g, j := s.at(i)
	for ci, f := range g.fills {
		if f != nil && ci != sourceFileCol && ci != sourceLineCol && !f.same(j, unsafe.Pointer(r)) {
			return false
		}
	}
	var fe []string
	if g.lists != nil {
		fe = g.lists[j]
	}
	return s.ids[i] == r.RunID && (fe == nil) == (r.FilesEdited == nil) && slices.Equal(fe, r.FilesEdited)
}

// rows returns every row but the holes as Runs (a write-only load that
// meets input other than JSON Lines runs, or a bad or repeated record,
// goes on with Runs).
func (s *runStore) rows() []Run {
	out := make([]Run, s.n)
	forEachParallel(len(s.segs), len(s.segs) > 1, func(k int) {
		lo := k * s.segRows
		for j := range s.segs[k].n {
			s.rowInto(lo+j, &out[lo+j])
		}
	})
	if len(s.holes) == 0 {
		return out
	}
	w, h := 0, 0
	for i := range out {
		if h < len(s.holes) && s.holes[h] == i {
			h++
			continue
		}
		out[w] = out[i]
		w++
	}
	clear(out[w:])
	return out[:w]
}

// columns returns the runs table's columns (runColsFor): all but the
// weight columns no row fills.
func (s *runStore) columns() []colDef[Run] {
	out := make([]colDef[Run], 0, len(runCols))
	for ci, c := range runCols {
		if _, weight := optionalCols[c.field.Name]; weight {
			used := false
			for _, g := range s.segs {
				used = used || g.nulls[ci] < g.n
			}
			if !used {
				continue
			}
		}
		out = append(out, c)
	}
	return out
}

// group gives the writer the columns cols of each row group: a segment's
// filled columns as they are, run_id and files_edited built from their
// rows.
func (s *runStore) group(cols []colDef[Run]) rowGroupColumns {
	which := make([]int, len(cols))
	for k, c := range cols {
		which[k] = colIndex(runCols, c.field.Name)
	}
	return func(lo, hi int) func(ci int) arrow.Array {
		if lo%s.segRows != 0 || (hi > lo && s.segs[lo/s.segRows].n != hi-lo) {
			panic(fmt.Sprintf("ingest: run store segments of %d rows, asked for a row group [%d, %d)", s.segRows, lo, hi))
		}
		var g *runSegment
		if hi > lo {
			g = s.segs[lo/s.segRows]
		}
		return func(k int) arrow.Array {
			switch ci := which[k]; ci {
			case runIDCol:
				return stringArray(s.ids[lo:hi], nil, func(id *string) string { return *id })
			case filesEditedCol:
				if g.lists == nil { // all null (METR), from rows that take no memory
					return stringListArray(make([]struct{}, g.n), func(*struct{}) []string { return nil })
				}
				return stringListArray(g.lists[:g.n], func(l *[]string) []string { return *l })
			default:
				return g.fills[ci].array(g.n, g.nulls[ci])
			}
		}
	}
}

// taskGroups gives one taskStretch per (benchmark, task_id) pair of the
// rows, in order of first occurrence: lo is the pair's first row and
// hi−lo its number of rows, all that checkTasks and buildTasks read of
// the stretches when no run is dropped (--strict takes Runs). The pairs
// are told apart by their dictionary indices within a segment, by their
// strings across segments; METR ×100 has 85,000 stretches but 83 pairs.
func (s *runStore) taskGroups() []taskStretch {
	var out []taskStretch
	global := map[[2]string]int{} // pair → index in out
	for k, g := range s.segs {
		b, t := g.fills[benchmarkCol].(*dictFill), g.fills[taskIDCol].(*dictFill)
		local := map[[2]int32]int{} // dictionary indices → index in out
		last, lastAt, counted := [2]int32{-1, -1}, -1, 0
		flush := func() {
			if lastAt >= 0 {
				out[lastAt].hi += counted
			}
		}
		for j := range g.n {
			key := [2]int32{b.idx[j], t.idx[j]}
			if key == last {
				counted++
				continue
			}
			flush()
			at, ok := local[key]
			if !ok {
				bs, _ := b.value(j)
				ts, _ := t.value(j)
				if at, ok = global[[2]string{bs, ts}]; !ok {
					at = len(out)
					global[[2]string{bs, ts}] = at
					row := k*s.segRows + j
					out = append(out, taskStretch{row, row})
				}
				local[key] = at
			}
			last, lastAt, counted = key, at, 1
		}
		flush()
	}
	return out
}

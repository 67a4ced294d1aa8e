package ingest

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"sync"
	"unsafe"

	"github.com/rdeval/rdeval/ingest/internal/csvline"
)

// Parallel parsing. Large JSON Lines run files and METR score.log CSVs are
// parsed by GOMAXPROCS workers: one goroutine reads the file (hashing it as
// before) and cuts it into chunks of whole records, the workers parse the
// chunks, and Load merges their results in file order. Every record is
// parsed by the same code as on the serial path and the merge applies the
// results in input order, so the dataset (rows, errors with their line
// numbers, warnings, duplicates) is the same as the serial read's; the
// tests compare both paths.

// Tunables, changed by tests to exercise chunk boundaries.
var (
	parseWorkers     = 0              // 0: GOMAXPROCS at the time of the read; 1: always serial
	parallelMinBytes = int64(1 << 20) // smaller files are read serially
	chunkBytes       = 1 << 20        // target bytes per chunk
)

func workers() int {
	if parseWorkers > 0 {
		return parseWorkers
	}
	return runtime.GOMAXPROCS(0)
}

// useParallel reports whether s is worth parsing in parallel.
func (l *loader) useParallel(s *source) bool {
	return workers() > 1 && (s.size < 0 || s.size >= parallelMinBytes)
}

// chunkPool recycles chunks: the merge copies out everything it keeps
// (strings, rejected text), so a chunk is free after it.
var chunkPool sync.Pool

// mappedChunkPool recycles the chunks of mapped files (their record
// lists; their buffers are windows of the mapping, never written).
var mappedChunkPool sync.Pool

// errFileShrank is the error for a mapped file that became shorter while
// it was read (reading past its new end faults).
const errFileShrank = "the file became shorter while it was read (another program is writing it?): read it again once it is complete"

// isFault reports whether r, a recovered panic value, is a memory fault
// (debug.SetPanicOnFault), as reading a mapped file past its end gives.
func isFault(r any) bool {
	_, ok := r.(interface{ Addr() uintptr })
	return ok
}

// mappedLines cuts rest, the mapped file's bytes after the lines already
// read (rest[0] at file offset base), into chunks of whole lines exactly
// as readLine and lineChunker would (line numbers from s.line+1, "\n" and
// "\r\n" removed, blank lines skipped, the last line's missing newline
// noted), but each chunk's buffer is a window of the mapping: nothing is
// copied. It hashes the file as it goes. An over-long line is sent as the
// error of the last chunk; a fault, because the file became shorter, as a
// last chunk marked fault.
func mappedLines(s *source, rest []byte, base int64, target, align int, send func(*chunk)) {
	next := func() *chunk {
		c, ok := mappedChunkPool.Get().(*chunk)
		if !ok {
			c = &chunk{}
		}
		c.mapped = true
		return c
	}
	c, win := next(), 0
	flush := func(end int, err error) {
		if len(c.recs) > 0 || err != nil {
			c.buf, c.err = rest[win:end:end], err
			send(c)
			c = next()
		}
		win = end
	}
	defer func() {
		if r := recover(); r != nil {
			if !isFault(r) {
				panic(r)
			}
			c.buf, c.recs, c.fault = nil, c.recs[:0], true
			send(c)
		}
	}()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	pos := 0
	for pos < len(rest) {
		end, after := len(rest), len(rest)
		if i := bytes.IndexByte(rest[pos:], '\n'); i >= 0 {
			end, after = pos+i, pos+i+1
		}
		if after-pos > maxLine {
			s.hashMapped(base + int64(len(rest))) // the checksum covers the whole file
			flush(pos, &Error{File: s.path, Line: s.line + 1, Msg: fmt.Sprintf("line longer than %d MiB", maxLine>>20)})
			return
		}
		s.line++
		s.lastNL = after > end
		e := end
		if e > pos && rest[e-1] == '\r' {
			e--
		}
		if len(bytes.TrimSpace(rest[pos:e])) > 0 {
			c.recs = append(c.recs, chunkRec{off: pos - win, end: e - win, line: s.line, lastNoNL: !s.lastNL})
		}
		pos = after
		if pos-win >= target && len(c.recs)%align == 0 {
			s.hashMapped(base + int64(pos))
			flush(pos, nil)
		}
	}
	s.hashMapped(base + int64(len(rest)))
	flush(pos, nil)
}

// entryBufs recycles the workers' score-log entry slices (copied into the
// dataset by the merge).
var entryBufs sync.Pool

// chunkRec is one record of a chunk: buf[off:end], starting at line line.
type chunkRec struct {
	off, end int
	line     int
	lastNoNL bool // the file's last line, without a newline
	multi    bool // (CSV) a quoted field spans lines
}

// chunk is a run of consecutive records. err, when set, is a read error
// met after its records: the merge reports it once they are applied.
type chunk struct {
	buf    []byte
	recs   []chunkRec
	err    error
	base   int  // (JSON Lines runs) table slot of the first record; -1: none
	mapped bool // buf is a window of the mapped file (mappedLines), not a copy
	fault  bool // reading the mapped file faulted (it became shorter): no records
}

func (c *chunk) rec(i int) []byte { return c.buf[c.recs[i].off:c.recs[i].end] }

// runChunks runs produce (on its own goroutine), which sends chunks; each
// chunk is parsed by work on one of the workers (newWorker makes one per
// worker) and the results are passed to merge on the calling goroutine in
// the order the chunks were sent.
func runChunks[R any](produce func(send func(*chunk)), newWorker func() func(*chunk) R, merge func(*chunk, R)) {
	type job struct {
		c    *chunk
		done chan R
	}
	n := workers()
	jobs := make(chan *job, n)
	order := make(chan *job, 2*n)
	go func() {
		produce(func(c *chunk) {
			j := &job{c: c, done: make(chan R, 1)}
			order <- j
			jobs <- j
		})
		close(jobs)
		close(order)
	}()
	for range n {
		work := newWorker()
		go func() {
			for j := range jobs {
				j.done <- work(j.c)
			}
		}()
	}
	for j := range order {
		merge(j.c, <-j.done)
		if c := j.c; c.mapped {
			c.buf, c.recs, c.err, c.fault = nil, c.recs[:0], nil, false
			mappedChunkPool.Put(c)
		} else if cap(c.buf) <= 2*chunkBytes+1<<16 {
			c.buf, c.recs, c.err = c.buf[:0], c.recs[:0], nil
			chunkPool.Put(c)
		}
	}
}

// lineChunker accumulates lines into chunks for runChunks.
type lineChunker struct {
	c      *chunk
	send   func(*chunk)
	target int // bytes per chunk; 0: chunkBytes
	align  int // if set, every chunk but the last holds a multiple of align records
}

// chunkTarget is the chunk size for a file of size bytes: chunkBytes, or
// for a file under 4 chunks per worker, a quarter of a worker's share (at
// least 64 KiB), so that a small file (METR's 3 MB all_runs.jsonl) is
// spread over the workers in more than three pieces.
func chunkTarget(size int64) int {
	if size <= 0 {
		return chunkBytes
	}
	t := int(size / int64(4*workers()))
	return max(min(t, chunkBytes), min(64<<10, chunkBytes))
}

func (lc *lineChunker) add(line []byte, lineNo int, lastNoNL, multi bool) {
	if lc.c == nil {
		if c, ok := chunkPool.Get().(*chunk); ok {
			lc.c = c
		} else {
			lc.c = &chunk{buf: make([]byte, 0, chunkBytes+1<<16)}
		}
	}
	off := len(lc.c.buf)
	lc.c.buf = append(lc.c.buf, line...)
	lc.c.recs = append(lc.c.recs, chunkRec{off: off, end: len(lc.c.buf), line: lineNo, lastNoNL: lastNoNL, multi: multi})
	limit := lc.target
	if limit == 0 {
		limit = chunkBytes
	}
	if len(lc.c.buf) >= limit && (lc.align == 0 || len(lc.c.recs)%lc.align == 0) {
		lc.flush(nil)
	}
}

// flush sends the pending chunk (with err, if any; err is sent even when
// no records are pending).
func (lc *lineChunker) flush(err error) {
	if lc.c == nil && err == nil {
		return
	}
	if lc.c == nil {
		lc.c = &chunk{}
	}
	lc.c.err = err
	lc.send(lc.c)
	lc.c = nil
}

// slotChunks wraps send for a reader whose records go into a table that
// holds have already: at the first chunk with records it grows have into
// *table for the records the file likely holds (its size over that chunk's
// mean record length, +5 %, at most limit; so that a 10^7-row file is not
// copied into a slice twice its size when a one-record estimate falls
// short) and maps it in (prefault); then it gives each chunk that fits
// the slots for its records (chunk.base; -1 when it does not fit, or for
// a file of unknown size). It runs on the reading goroutine, before any
// worker or the merge touches the table. The margin was 2 % until METR ×20
// (its first MiB's lines 0.2 % longer than the file's mean) came within
// 221 records of the estimate; a file whose records outrun it appends
// them, which copies the whole table once. Slots never written cost no
// memory while the collector is off (ingest); with it on, prefault
// touches them.
func slotChunks[T any](s *source, have []T, limit int, table *[]T, send func(*chunk)) func(*chunk) {
	next := len(have) // the slot of the next record
	grown := false
	return func(c *chunk) {
		if !grown && len(c.recs) > 0 {
			grown = true
			if est := recordEstimate(s, c); est > 0 {
				*table = slices.Grow(have, min(est, limit))
				prefault(*table)
			}
		}
		c.base = -1
		if *table != nil && next+len(c.recs) <= cap(*table) {
			c.base = next
		}
		next += len(c.recs)
		send(c)
	}
}

// storeChunks wraps send for a read into a run store (a write-only load):
// at the first chunk with records it sets *store to have, the dataset's
// store, or else to a new store sized from that chunk (recordEstimate) and
// reserves its first segment for the parse workers (runStore.reserve);
// then it gives each chunk that fits the reserved rows its rows
// (chunk.base; -1 for the others, whose runs the merge appends). It runs
// on the reading goroutine, before any worker or the merge sees the chunk.
func storeChunks(s *source, have *runStore, store **runStore, send func(*chunk)) func(*chunk) {
	next, room := 0, 0
	return func(c *chunk) {
		if *store == nil && len(c.recs) > 0 {
			*store = have
			if have == nil {
				est := recordEstimate(s, c)
				*store = newRunStore(min(max(est, 1<<16), 10_000_000))
				if est > 0 {
					room = (*store).reserve()
				}
			}
		}
		c.base = -1
		if next+len(c.recs) <= room && len(c.recs) > 0 {
			c.base = next
		}
		next += len(c.recs)
		send(c)
	}
}

// recordEstimate is the number of records s likely holds, from the mean
// length of the records of c, its first chunk with records (+5 %; see
// slotChunks), or 0 when s's size is unknown.
func recordEstimate(s *source, c *chunk) int {
	if s.size <= 0 || s.isGzip || len(c.recs) == 0 {
		return 0
	}
	raw := len(c.buf) + len(c.recs) // a copied chunk's lines lack their newlines
	if c.mapped {
		raw = len(c.buf)
	}
	return int(float64(s.size)/float64(raw)*float64(len(c.recs))*1.05) + 16
}

// runItem is what a parse worker tells the merge of one record besides
// the run itself.
type runItem struct {
	hash     uint64 // of the run's id, for the duplicate check
	err      *Error
	text     []byte
	hasHuman bool
	human    float64
}

// readJSONLParallel is the parallel form of readJSONL's runs path.
//
// Runs are parsed straight into the dataset's table where it has room
// (slotChunks gives each chunk that fits its slots), so the merge,
// finding a kept run already where it belongs, only extends the table
// over it (addRunHashed); a run after a rejected or duplicate record is
// moved down. Chunks past the estimate are parsed into the worker's own
// buffer and appended.
//
// A write-only load (Options.WriteOnly) that has no runs as Runs keeps
// them as columns instead (run_store.go): every chunk is parsed into a
// worker's own buffer, and the merge appends its kept runs to the
// columns (mergeColumnar).
func (l *loader) readJSONLParallel(s *source, st *InputStats, first []byte, reader string) {
	type item = runItem
	type result struct {
		rowsRead int
		items    []item
		runs     []Run // the chunk's runs, in the table or in own (own: recycled)
		own      bool
		unknown  map[string]int
		fault    bool      // the mapped file became shorter while the chunk was parsed
		fill     chunkFill // (columnar) what the worker filled of the store's rows
	}
	var itemBufs, runBufs sync.Pool // the workers' slices, recycled after the merge
	var table []Run                 // the grown table (set before the first chunk is sent)
	columnar := l.opt.WriteOnly && (l.ds.runStore != nil || len(l.ds.Runs) == 0)
	var store *runStore // the columns (columnar; set before the first chunk is sent)
	produce := func(send func(*chunk)) {
		lc := lineChunker{send: slotChunks(s, l.ds.Runs, 10_000_000, &table, send), target: chunkTarget(s.size), align: 1}
		if columnar {
			lc.send, lc.align = storeChunks(s, l.ds.runStore, &store, send), 64
		}
		line, lineNo := first, s.line
		if rest := s.mapRest(first); rest != nil {
			// rest starts with the first line again, so that the first
			// chunk is a whole one: slotChunks sizes the table from it.
			mappedLines(s, rest, s.size-int64(len(rest)), chunkTarget(s.size), lc.align, lc.send)
			return
		}
		for {
			if len(bytes.TrimSpace(line)) > 0 {
				lc.add(line, lineNo, lineNo == s.line && !s.lastNL, false)
			}
			var err error
			line, err = s.readLine()
			if err == io.EOF {
				lc.flush(nil)
				return
			}
			if err != nil {
				lc.flush(err)
				return
			}
			lineNo = s.line
		}
	}
	newWorker := func() func(*chunk) result {
		rp := l.newRunLineParser(s.path, reader, &interner{})
		cw := &colWorker{}
		return func(c *chunk) (res result) {
			if c.mapped {
				defer func() {
					if r := recover(); r != nil {
						if !isFault(r) {
							panic(r)
						}
						res = result{fault: true}
					}
				}()
				defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
			}
			n := len(c.recs)
			if it, ok := itemBufs.Get().(*[]item); ok && cap(*it) >= n {
				res.items = (*it)[:n]
				clear(res.items)
			} else {
				res.items = make([]item, n)
			}
			if c.base >= 0 && !columnar {
				res.runs = table[c.base : c.base+n : c.base+n]
			} else if r, ok := runBufs.Get().(*[]Run); ok && cap(*r) >= n {
				res.runs, res.own = (*r)[:n], true
			} else {
				res.runs, res.own = make([]Run, n), true
			}
			for i, cr := range c.recs {
				line := c.rec(i)
				res.rowsRead++
				it := &res.items[i]
				rp.r = &res.runs[i]
				if err := rp.parse(line, cr.line); err != nil {
					it.err, it.text = lineErrorAt(s.path, cr.line, cr.lastNoNL, err), line
					continue
				}
				it.hasHuman, it.human = rp.hasHuman, rp.human
				it.hash = l.runIndex.hashOf(res.runs[i].RunID)
			}
			if columnar && c.base >= 0 {
				res.fill = store.fillChunk(cw, res.runs, c.base)
			}
			res.unknown, rp.unknown = rp.unknown, map[string]int{}
			return res
		}
	}
	unknown := map[string]int{}
	adopted := false
	shrank := false // errFileShrank reported
	runChunks(produce, newWorker, func(c *chunk, res result) {
		if c.fault || res.fault {
			if !shrank {
				l.fileErr(s.path, &Error{File: s.path, Msg: errFileShrank})
				shrank = true
			}
			return
		}
		if !adopted && c.base >= 0 {
			// The table the reader grew: the same runs, more room.
			l.ds.Runs = table[:len(l.ds.Runs)]
			if l.runIndex.len() == 0 {
				l.runIndex.reset(cap(table) - len(table))
			}
			adopted = true
		}
		st.RowsRead += res.rowsRead
		rowItems := res.items // merged here into the Runs
		if columnar {
			if len(c.recs) > 0 {
				l.ds.runStore = store // set before the chunk was sent, and not since
			}
			l.mergeColumnar(c, res.items, res.runs, res.fill, st)
			rowItems = nil
		}
		for i := range rowItems {
			it := &res.items[i]
			if it.err != nil {
				l.reject(st, it.err, it.text)
				continue
			}
			r := &res.runs[i]
			if it.hasHuman {
				l.setHumanRef(r.TaskID, it.human)
			}
			l.addRunHashed(r, it.hash, st)
		}
		for k, n := range res.unknown {
			unknown[k] += n
		}
		items := res.items[:0]
		itemBufs.Put(&items)
		if res.own {
			runs := res.runs[:0]
			runBufs.Put(&runs)
		}
		if c.err != nil {
			l.fileErr(s.path, c.err)
		}
	})
	l.warnUnknown(s.path, unknown)
}

// readCSVScoreLogParallel is the parallel form of readCSV for METR
// score.log files (reader ReaderScoreLogCSV). The reading goroutine joins
// the lines of a record whose quoted field spans lines exactly as readCSV
// does; the workers split and check the records.
func (l *loader) readCSVScoreLogParallel(s *source, st *InputStats, header []string) {
	type rej struct {
		err  *Error
		text []byte
	}
	type result struct {
		entries []ScoreEntry // in the table (at the chunk's base) or own (recycled)
		own     bool
		rejects []rej
	}
	var table []ScoreEntry // the grown table (set before the first chunk is sent)
	produce := func(send func(*chunk)) {
		// Each chunk that fits the table is given slots for its records;
		// its entries are parsed into the first of them.
		lc := lineChunker{send: slotChunks(s, l.ds.Scores, 50_000_000, &table, send), target: chunkTarget(s.size)}
		var sp csvline.Splitter
		var joined []byte
		for {
			line, err := s.readLine()
			if err == io.EOF {
				lc.flush(nil)
				return
			}
			if err != nil {
				lc.flush(err)
				return
			}
			start := s.line
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			// Only a record with an odd number of quotes can end inside a
			// quoted field (see csvline.Open): for those, join as readCSV does.
			if csvline.Open(line) {
				if _, perr := sp.Split(line); perr != nil {
					if pe, ok := perr.(*csvline.ParseError); ok && pe.Open {
						joined = append(joined[:0], line...)
						for csvline.Open(joined) {
							next, err := s.readLine()
							if err != nil {
								break
							}
							joined = append(append(joined, '\n'), next...)
						}
						line = joined
					}
				}
			}
			lc.add(line, start, false, s.line != start)
		}
	}
	runID := l.runIDFromPath(s.path)
	newWorker := func() func(*chunk) result {
		var sp csvline.Splitter
		row := l.scoreLogCSVParse(s.path, header, runID, &interner{})
		return func(c *chunk) result {
			res := result{}
			if c.base >= 0 {
				res.entries = table[c.base : c.base : c.base+len(c.recs)]
			} else if e, ok := entryBufs.Get().(*[]ScoreEntry); ok {
				res.entries, res.own = (*e)[:0], true
			} else {
				res.entries, res.own = make([]ScoreEntry, 0, len(c.recs)), true
			}
			for i, cr := range c.recs {
				line := c.rec(i)
				fields, perr := sp.Split(line)
				var e *Error
				if perr != nil {
					pe := perr.(*csvline.ParseError)
					e = &Error{File: s.path, Line: cr.line, Msg: pe.Msg}
					if !cr.multi {
						e.Col = pe.Offset + 1
					}
				} else if err := checkRecord(s.path, cr.line, header, fields, line); err != nil {
					e = err
				} else if ent, err := row(fields, cr.line); err != nil {
					e = lineErrorAt(s.path, cr.line, false, err)
				} else {
					res.entries = append(res.entries, ent)
					continue
				}
				res.rejects = append(res.rejects, rej{e, line})
			}
			return res
		}
	}
	adopted := false
	runChunks(produce, newWorker, func(c *chunk, res result) {
		if !adopted && c.base >= 0 {
			l.ds.Scores = table[:len(l.ds.Scores)] // the same entries, more room
			adopted = true
		}
		st.RowsRead += len(res.entries) + len(res.rejects)
		st.RowsKept += len(res.entries)
		if n := len(l.ds.Scores); !res.own && n == c.base {
			l.ds.Scores = l.ds.Scores[:n+len(res.entries)] // parsed in place
		} else {
			l.ds.Scores = append(l.ds.Scores, res.entries...) // moved down past rejects, or copied
		}
		if res.own {
			entries := res.entries[:0]
			entryBufs.Put(&entries)
		}
		for _, r := range res.rejects {
			l.reject(st, r.err, r.text)
		}
		if c.err != nil {
			l.fileErr(s.path, c.err)
		}
	})
}

// prefault advises the spare capacity of s as huge pages and, while the
// garbage collector is on, writes a zero element (which s holds already)
// on each memory page of it, on GOMAXPROCS goroutines, so that the kernel
// maps the pages before the collector reads them: a page first read is
// mapped to the shared zero page, and the write that follows has to
// replace it and flush the other cores' TLBs. With the collector off
// (rdeval ingest) nothing reads the pages before the parse workers write
// them, and the touch would only hold up the first chunk: on METR ×20 it
// took about 80 ms before any record was parsed (perf), and leaving it out
// gave 0.540 → 0.520 s wall, median of 20 alternating runs.
func prefault[T any](s []T) {
	spare := s[len(s):cap(s)]
	n := runtime.GOMAXPROCS(0)
	if len(spare) == 0 {
		return
	}
	adviseHugeSlice(s)
	if n <= 1 || !collectorOn() {
		return
	}
	step := max(1, 4096/int(unsafe.Sizeof(spare[0])))
	var wg sync.WaitGroup
	for k := range n {
		part := spare[k*len(spare)/n : (k+1)*len(spare)/n]
		wg.Go(func() {
			var zero T
			for i := 0; i < len(part); i += step {
				part[i] = zero
			}
		})
	}
	wg.Wait()
}

// collectorOn says whether the garbage collector runs: GOGC is not off
// (the runtime reports off, a negative percentage, as a huge uint64).
func collectorOn() bool {
	sample := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(sample)
	return sample[0].Value.Kind() != metrics.KindUint64 || int64(sample[0].Value.Uint64()) >= 0
}

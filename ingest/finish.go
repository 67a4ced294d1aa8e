package ingest

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"
)

func sameRun(a, b Run) bool {
	a.SourceFile, a.SourceLine, b.SourceFile, b.SourceLine = "", 0, "", 0
	return reflect.DeepEqual(a, b)
}

// finish runs the dataset-wide checks once every input is read.
func (l *loader) finish() {
	if st := l.ds.runStore; st != nil && len(st.holes) > 0 {
		l.rowRuns() // rejected or repeated records left holes in the columns
	}
	if l.dupSame > 0 {
		l.warn("", "dropped %d runs repeated with identical content (the same input read twice?)", l.dupSame)
	}
	l.checkTasks()
	l.fillElapsed()
	l.buildTasks()
}

// checkTasks flags runs whose task is not in their benchmark's catalog:
// an error under Strict, else one warning per benchmark. The catalog is
// asked once per stretch of consecutive runs of one task (taskStretches);
// runs move only when an earlier one was dropped.
func (l *loader) checkTasks() {
	ds := l.ds
	if l.opt.Strict {
		l.rowRuns() // runs may be dropped
	}
	unknown := map[string]map[string]int{}
	var dropped []taskStretch
	l.stretches = l.taskStretches()
	for _, s := range l.stretches {
		head := l.taskHead(s.lo)
		r := &head
		if _, ok := l.cat.Lookup(r.Benchmark, r.TaskID); ok || !l.cat.HasBenchmark(r.Benchmark) {
			continue
		}
		if l.opt.Strict {
			dropped = append(dropped, s)
			for i := s.lo; i < s.hi; i++ {
				r := &ds.Runs[i]
				e := &Error{File: r.SourceFile, Line: int(r.SourceLine), Field: "task_id",
					Msg: fmt.Sprintf("unknown task %q for benchmark %s (--strict); add it with --tasks FILE", r.TaskID, r.Benchmark)}
				ds.Errors = append(ds.Errors, e)
				ds.Rejected = append(ds.Rejected, Rejected{File: e.File, Line: e.Line, Error: e.Error()})
				for i := range ds.Inputs {
					if ds.Inputs[i].Path == r.SourceFile {
						ds.Inputs[i].RowsKept--
						ds.Inputs[i].RowsRejected++
					}
				}
			}
			continue
		}
		if unknown[r.Benchmark] == nil {
			unknown[r.Benchmark] = map[string]int{}
		}
		unknown[r.Benchmark][r.TaskID] += s.hi - s.lo
	}
	if len(dropped) > 0 {
		w, d := 0, 0
		for i := range ds.Runs {
			for d < len(dropped) && dropped[d].hi <= i {
				d++
			}
			if d < len(dropped) && i >= dropped[d].lo {
				continue
			}
			if w != i {
				ds.Runs[w] = ds.Runs[i]
			}
			w++
		}
		clear(ds.Runs[w:]) // let the dropped runs' strings go
		ds.Runs = ds.Runs[:w]
		l.runIndexStale = true
		l.stretches = nil // stale: buildTasks finds them again
	}
	for _, b := range sortedKeys(unknown) {
		l.warn("", "benchmark %s: %d tasks not in the catalog (%s); their scores cannot be normalized from raw values", b, len(unknown[b]), strings.Join(sortedKeys(unknown[b]), ", "))
	}
}

// taskStretches is taskStretches of the dataset's Runs or, for runs kept
// as columns, the store's taskGroups (one per task, with its count).
func (l *loader) taskStretches() []taskStretch {
	if st := l.ds.runStore; st != nil {
		return st.taskGroups()
	}
	return taskStretches(l.ds.Runs)
}

// runAt is run i of the dataset, wherever the runs are kept (a copy).
func (l *loader) runAt(i int) Run {
	if st := l.ds.runStore; st != nil {
		return st.row(i)
	}
	return l.ds.Runs[i]
}

// taskHead is what the task checks read of run i, the first of a stretch:
// its benchmark, task_id and task_family (all of it, from Runs).
func (l *loader) taskHead(i int) Run {
	if st := l.ds.runStore; st != nil {
		return st.taskHead(i)
	}
	return l.ds.Runs[i]
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// fillElapsed gives score-log entries that have only a timestamp an
// elapsed time: from the run's started_at when the run is known, else from
// the run's first logged entry (with a warning, as pauses and the time before
// the first score are then unknown). Both passes over the entries run on
// GOMAXPROCS goroutines, each over a part of them (about 26 ms of a
// 10^6-row score log on one goroutine, the other cores idle, in perf).
func (l *loader) fillElapsed() {
	ds := l.ds
	n := len(ds.Scores)
	parts := parallelParts(n, 20_000)
	span := func(p int) (int, int) { return p * n / parts, (p + 1) * n / parts }
	// firsts[p][run] = index of the run's earliest timestamped entry lacking
	// elapsed_s in part p (the first of equal ones).
	firsts := make([]map[string]int, parts)
	forEachParallel(parts, parts > 1, func(p int) {
		lo, hi := span(p)
		first := map[string]int{}
		last, lastIdx := "", -1
		for i := lo; i < hi; i++ {
			e := &ds.Scores[i]
			if e.ElapsedS.Valid || !e.ScoredAt.Valid {
				continue
			}
			if e.RunID == last { // entries of a run are usually contiguous
				if e.ScoredAt.V.Before(ds.Scores[lastIdx].ScoredAt.V) {
					lastIdx = i
					first[last] = i
				}
				continue
			}
			j, ok := first[e.RunID]
			if !ok || e.ScoredAt.V.Before(ds.Scores[j].ScoredAt.V) {
				j = i
				first[e.RunID] = i
			}
			last, lastIdx = e.RunID, j
		}
		firsts[p] = first
	})
	first := firsts[0]
	for _, f := range firsts[1:] { // parts in order: an earlier part wins ties
		for id, j := range f {
			if i, ok := first[id]; !ok || ds.Scores[j].ScoredAt.V.Before(ds.Scores[i].ScoredAt.V) {
				first[id] = j
			}
		}
	}
	if len(first) == 0 {
		return
	}
	base := make(map[string]time.Time, len(first))
	var fromFirst []string
	for _, id := range sortedKeys(first) {
		var start Opt[time.Time]
		if j, ok := l.runIndexOf(id); ok {
			start = l.runAt(j).StartedAt
		}
		if start.Valid {
			base[id] = start.V
		} else {
			base[id] = ds.Scores[first[id]].ScoredAt.V
			fromFirst = append(fromFirst, id)
		}
	}
	negatives := make([]int, parts)
	forEachParallel(parts, parts > 1, func(p int) {
		lo, hi := span(p)
		last := ""
		var t0 time.Time
		for i := lo; i < hi; i++ {
			e := &ds.Scores[i]
			if e.ElapsedS.Valid || !e.ScoredAt.Valid {
				continue
			}
			if e.RunID != last {
				last, t0 = e.RunID, base[e.RunID]
			}
			e.ElapsedS = Some(e.ScoredAt.V.Sub(t0).Seconds())
			if e.ElapsedS.V < 0 {
				negatives[p]++
			}
		}
	})
	if negative := sumInts(negatives); negative > 0 {
		l.warn("", "%d score-log entries are timestamped before their run's started_at (negative elapsed_s): check the clocks or time zones", negative)
	}
	if len(fromFirst) > 0 {
		l.warn("", "%d runs' score logs have timestamps but no run start: elapsed_s counts from each log's first entry, pauses not excluded (%s)", len(fromFirst), truncate(strings.Join(fromFirst, ", "), 200))
	}
}

func sumInts(x []int) int {
	s := 0
	for _, v := range x {
		s += v
	}
	return s
}

func compactStrings(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

func (l *loader) runIndexOf(id string) (int, bool) {
	// runIndex indexes ds.Runs before checkTasks compacts it; rebuild lazily.
	if l.runIndexStale {
		l.rebuildRunIndex()
	}
	i, ok := l.runIndex.get(id, l.runIndex.hashOf(id))
	return i, ok
}

// rebuildRunIndex indexes ds.Runs anew (after runs moved).
func (l *loader) rebuildRunIndex() {
	l.runIndex.reset(len(l.ds.Runs))
	for i, r := range l.ds.Runs {
		h := l.runIndex.hashOf(r.RunID)
		if _, dup := l.runIndex.get(r.RunID, h); !dup {
			l.runIndex.put(h, i)
		}
	}
	l.runIndexStale = false
}

// rowRuns turns runs kept as columns (a write-only load) into Runs, before
// a reader or check that works on Runs.
func (l *loader) rowRuns() {
	st := l.ds.runStore
	if st == nil {
		return
	}
	l.ds.rowRuns()
	if len(st.holes) > 0 {
		l.rebuildRunIndex() // the runs after a hole moved down
	}
}

// buildTasks makes the tasks table: every catalog task of each benchmark
// present in the runs, plus every other task seen (with what the runs tell:
// family, and METR's human_score as human_reference).
func (l *loader) buildTasks() {
	ds := l.ds
	seen := map[string]map[string]Run{}
	for _, t := range l.tableTasks {
		// Tasks read from rdeval tables count as seen, runs or not.
		if seen[t.Benchmark] == nil {
			seen[t.Benchmark] = map[string]Run{}
		}
	}
	if l.stretches == nil {
		l.stretches = l.taskStretches()
	}
	for _, s := range l.stretches {
		head := l.taskHead(s.lo)
		r := &head
		if seen[r.Benchmark] == nil {
			seen[r.Benchmark] = map[string]Run{}
		}
		if _, ok := seen[r.Benchmark][r.TaskID]; !ok {
			seen[r.Benchmark][r.TaskID] = *r
		}
	}
	for _, b := range sortedKeys(seen) {
		have := map[string]bool{}
		for _, t := range l.cat.Tasks(b) {
			have[t.TaskID] = true
			if !t.HumanReference.Valid {
				if h, ok := l.humanRef[t.TaskID]; ok {
					t.HumanReference = Some(h)
				}
			}
			ds.Tasks = append(ds.Tasks, t)
		}
		for _, id := range sortedKeys(seen[b]) {
			if have[id] {
				continue
			}
			r := seen[b][id]
			t := Task{TaskID: id, Benchmark: b, Family: r.TaskFamily}
			if h, ok := l.humanRef[id]; ok {
				t.HumanReference = Some(h)
			}
			ds.Tasks = append(ds.Tasks, t)
		}
	}
}

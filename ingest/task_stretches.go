package ingest

// taskStretch is a maximal stretch runs[lo:hi] of consecutive runs of one
// (benchmark, task_id).
type taskStretch struct{ lo, hi int }

// taskStretches splits runs into stretches of one task. Runs of a task
// are mostly consecutive (METR ×20: 141,180 runs, a few hundred
// stretches), so the dataset-wide task checks (checkTasks, buildTasks)
// ask the catalog once per stretch; and the scan, which reads two fields
// of every 600-byte run, one cache miss each, is split over GOMAXPROCS
// goroutines (it ran on one, while the other cores idled, for about 15 ms
// of METR ×20's load). Task strings are interned, so comparing equal ones
// is a pointer comparison.
func taskStretches(runs []Run) []taskStretch {
	n := len(runs)
	if n == 0 {
		return nil
	}
	parts := parallelParts(n, 10_000)
	found := make([][]taskStretch, parts)
	forEachParallel(parts, parts > 1, func(p int) {
		lo, hi := p*n/parts, (p+1)*n/parts
		var out []taskStretch
		start := lo
		for i := lo + 1; i < hi; i++ {
			if runs[i].TaskID != runs[i-1].TaskID || runs[i].Benchmark != runs[i-1].Benchmark {
				out = append(out, taskStretch{start, i})
				start = i
			}
		}
		found[p] = append(out, taskStretch{start, hi})
	})
	out := found[0]
	for _, f := range found[1:] {
		last := &out[len(out)-1]
		if a, b := &runs[last.lo], &runs[f[0].lo]; a.TaskID == b.TaskID && a.Benchmark == b.Benchmark {
			last.hi = f[0].hi // a stretch across the parts' boundary
			f = f[1:]
		}
		out = append(out, f...)
	}
	return out
}

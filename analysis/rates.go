package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
)

// OutcomeRun is one RExBench-style run reduced to what success rates need.
type OutcomeRun struct {
	Task   string
	Trial  int     // 1-based trial (seed) number; 0 when unknown
	Final  bool    // final success: the result matched gold
	Exec   bool    // execution success: the code ran without error
	Recall float64 // file recall of the run's patch; NaN when unknown
}

// TaskRate is one task's rates over its runs.
type TaskRate struct {
	Task   string
	Runs   int
	Final  float64 // share of runs with final success
	Exec   float64 // share of runs with execution success
	Recall float64 // mean file recall over runs where it is known (NaN if none)
}

// RateSummary is the headline over tasks.
type RateSummary struct {
	Tasks, Runs int
	Final       float64 // mean over tasks of per-task final-success rates (RExBench Table 5)
	Exec        float64 // same for execution success
	Recall      float64 // mean over tasks of per-task mean file recall (tasks without recall skipped)
	FinalSD     float64 // sd (n−1) across trials of the per-trial mean over tasks (NaN with < 2 trials)
	ExecSD      float64
	FinalLow    float64 // bootstrap percentile interval, runs resampled within tasks (NaN without)
	FinalHigh   float64
	ExecLow     float64
	ExecHigh    float64
}

// SuccessRates computes per-task rates and their mean over tasks — the
// headline of RExBench (arXiv 2506.22598 §3.4, Table 5: each agent's final
// and execution success averaged over 12 tasks × 5 runs, i.e. the mean over
// tasks of per-task rates). Uncertainty: the sd across trials of the
// per-trial mean over tasks (trials numbered 1..T; a task missing trial t
// is left out of trial t's mean), and a percentile bootstrap that resamples
// each task's runs with replacement, tasks fixed (replicate b of task i uses
// PCG(seed, i<<32|b)).
func SuccessRates(runs []OutcomeRun, boot int, seed uint64, level float64) ([]TaskRate, RateSummary, error) {
	if len(runs) == 0 {
		return nil, RateSummary{}, ErrNoTasks
	}
	if boot > 0 && !(level > 0 && level < 1) {
		return nil, RateSummary{}, fmt.Errorf("analysis: confidence level %v is not in (0, 1)", level)
	}
	byTask := map[string][]OutcomeRun{}
	for _, r := range runs {
		byTask[r.Task] = append(byTask[r.Task], r)
	}
	names := make([]string, 0, len(byTask))
	for t := range byTask {
		names = append(names, t)
	}
	sort.Strings(names)
	rates := make([]TaskRate, len(names))
	sum := RateSummary{Tasks: len(names), Runs: len(runs), FinalLow: math.NaN(), FinalHigh: math.NaN(), ExecLow: math.NaN(), ExecHigh: math.NaN()}
	var rsum float64
	rn := 0
	for i, t := range names {
		rates[i] = taskRate(t, byTask[t], nil)
		sum.Final += rates[i].Final
		sum.Exec += rates[i].Exec
		if !math.IsNaN(rates[i].Recall) {
			rsum += rates[i].Recall
			rn++
		}
	}
	sum.Final /= float64(len(names))
	sum.Exec /= float64(len(names))
	sum.Recall = math.NaN()
	if rn > 0 {
		sum.Recall = rsum / float64(rn)
	}
	sum.FinalSD, sum.ExecSD = trialSD(byTask, names)
	if boot == 0 {
		return rates, sum, nil
	}
	fin := make([]float64, boot)
	exe := make([]float64, boot)
	idx := []int{}
	for b := 0; b < boot; b++ {
		var f, e float64
		for i, t := range names {
			rs := byTask[t]
			rng := rand.New(rand.NewPCG(seed, uint64(i)<<32|uint64(b)))
			idx = idx[:0]
			for range rs {
				idx = append(idx, rng.IntN(len(rs)))
			}
			tr := taskRate(t, rs, idx)
			f += tr.Final
			e += tr.Exec
		}
		fin[b], exe[b] = f/float64(len(names)), e/float64(len(names))
	}
	sort.Float64s(fin)
	sort.Float64s(exe)
	lo, hi := (1-level)/2, (1+level)/2
	sum.FinalLow, sum.FinalHigh = QuantileType7(fin, lo), QuantileType7(fin, hi)
	sum.ExecLow, sum.ExecHigh = QuantileType7(exe, lo), QuantileType7(exe, hi)
	return rates, sum, nil
}

// taskRate computes a task's rates over runs (or over runs[idx] when idx
// is given).
func taskRate(task string, runs []OutcomeRun, idx []int) TaskRate {
	tr := TaskRate{Task: task}
	var rs float64
	rn := 0
	n := len(runs)
	if idx != nil {
		n = len(idx)
	}
	for j := 0; j < n; j++ {
		r := runs[j]
		if idx != nil {
			r = runs[idx[j]]
		}
		if r.Final {
			tr.Final++
		}
		if r.Exec {
			tr.Exec++
		}
		if !math.IsNaN(r.Recall) {
			rs += r.Recall
			rn++
		}
	}
	tr.Runs = n
	tr.Final /= float64(n)
	tr.Exec /= float64(n)
	tr.Recall = math.NaN()
	if rn > 0 {
		tr.Recall = rs / float64(rn)
	}
	return tr
}

// trialSD is the sd (n−1) across trials of the per-trial mean over tasks.
func trialSD(byTask map[string][]OutcomeRun, names []string) (float64, float64) {
	type acc struct{ f, e, n float64 }
	perTrial := map[int]*acc{}
	for _, t := range names {
		for _, r := range byTask[t] {
			if r.Trial <= 0 {
				return math.NaN(), math.NaN()
			}
			a := perTrial[r.Trial]
			if a == nil {
				a = &acc{}
				perTrial[r.Trial] = a
			}
			if r.Final {
				a.f++
			}
			if r.Exec {
				a.e++
			}
			a.n++
		}
	}
	if len(perTrial) < 2 {
		return math.NaN(), math.NaN()
	}
	// In trial order: summing in map order made the last bit of the SD
	// vary from run to run.
	trials := make([]int, 0, len(perTrial))
	for tr := range perTrial {
		trials = append(trials, tr)
	}
	slices.Sort(trials)
	var fs, es []float64
	for _, tr := range trials {
		a := perTrial[tr]
		fs = append(fs, a.f/a.n)
		es = append(es, a.e/a.n)
	}
	return sd(fs), sd(es)
}

func sd(x []float64) float64 {
	m := mean(x)
	var s float64
	for _, v := range x {
		s += float64((v - m) * (v - m))
	}
	return math.Sqrt(s / float64(len(x)-1))
}

// RateDiff is the paired difference of two conditions' mean final-success
// rate over their common tasks (e.g. hints − no hints for one agent).
type RateDiff struct {
	Tasks             int
	A, B              float64 // mean over common tasks of each condition's per-task rate
	Diff              float64 // A − B
	DiffLow, DiffHigh float64
}

// FinalRateDiff computes A − B over common tasks with a bootstrap that
// resamples each task's runs within each condition (tasks fixed, paired by
// task), replicate b of task i drawing from PCG(seed, i<<32|b) for A and
// PCG(seed+1, i<<32|b) for B.
func FinalRateDiff(a, b []OutcomeRun, boot int, seed uint64, level float64) (RateDiff, error) {
	ga, gb := map[string][]OutcomeRun{}, map[string][]OutcomeRun{}
	for _, r := range a {
		ga[r.Task] = append(ga[r.Task], r)
	}
	for _, r := range b {
		gb[r.Task] = append(gb[r.Task], r)
	}
	var names []string
	for t := range ga {
		if len(gb[t]) > 0 {
			names = append(names, t)
		}
	}
	sort.Strings(names)
	d := RateDiff{Tasks: len(names), DiffLow: math.NaN(), DiffHigh: math.NaN()}
	if len(names) == 0 {
		return d, fmt.Errorf("analysis: the two conditions share no task")
	}
	for _, t := range names {
		d.A += taskRate(t, ga[t], nil).Final
		d.B += taskRate(t, gb[t], nil).Final
	}
	d.A /= float64(len(names))
	d.B /= float64(len(names))
	d.Diff = d.A - d.B
	if boot == 0 {
		return d, nil
	}
	diffs := make([]float64, boot)
	idx := []int{}
	draw := func(rng *rand.Rand, n int) []int {
		idx = idx[:0]
		for j := 0; j < n; j++ {
			idx = append(idx, rng.IntN(n))
		}
		return idx
	}
	for r := 0; r < boot; r++ {
		var sa, sb float64
		for i, t := range names {
			ra := rand.New(rand.NewPCG(seed, uint64(i)<<32|uint64(r)))
			sa += taskRate(t, ga[t], draw(ra, len(ga[t]))).Final
			rb := rand.New(rand.NewPCG(seed+1, uint64(i)<<32|uint64(r)))
			sb += taskRate(t, gb[t], draw(rb, len(gb[t]))).Final
		}
		diffs[r] = (sa - sb) / float64(len(names))
	}
	sort.Float64s(diffs)
	d.DiffLow, d.DiffHigh = QuantileType7(diffs, (1-level)/2), QuantileType7(diffs, (1+level)/2)
	return d, nil
}

// FileRecall is |agent ∩ gold| / |gold| over sets of file paths (RExBench
// §3.4; the gold set includes new files; there is no precision). NaN when
// gold is empty.
func FileRecall(agent, gold []string) float64 {
	if len(gold) == 0 {
		return math.NaN()
	}
	a := map[string]bool{}
	for _, f := range agent {
		a[f] = true
	}
	g := map[string]bool{}
	hit := 0
	for _, f := range gold {
		if g[f] {
			continue
		}
		g[f] = true
		if a[f] {
			hit++
		}
	}
	return float64(hit) / float64(len(g))
}

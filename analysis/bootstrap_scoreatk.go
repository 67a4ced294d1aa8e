package analysis

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
)

// TaskScores is one task's final scores for score@k.
type TaskScores struct {
	Task   string
	Scores []float64 // normalized final scores, no NaN
	Random bool      // selection is random: the best-of-k pick is blind, so score@k is the mean
	Weight float64   // weight in the cross-task mean; 0 means 1
}

// ShortTasks says what to do with a task that has fewer runs than k.
type ShortTasks int

const (
	// DropShort leaves the task out of the cross-task mean at that k and
	// names it in a warning.
	DropShort ShortTasks = iota
	// TruncateShort uses k = n for the task (its maximum), as METR's
	// get_score_at_k does by default (drop_too_few_scores=False).
	TruncateShort
)

// Interval is the kind of bootstrap confidence interval.
type Interval int

const (
	// Percentile takes the (1±level)/2 quantiles of the replicates.
	Percentile Interval = iota
	// BCa corrects the percentile interval for bias and skewness (Efron &
	// Tibshirani 1993, §14.3 and Eq. 15.36 for several samples), as
	// scipy.stats.bootstrap(method="BCa") does with one sample per task.
	BCa
	// Studentized is the bootstrap-t interval with jackknife standard
	// errors, centred on the plug-in value (scoreatk_studentized.go); the
	// only one of the three that holds its level at k up to n/2
	// (docs/scoreatk-coverage.md).
	Studentized
)

// ScoreAtKOptions control ScoreAtKCurve.
type ScoreAtKOptions struct {
	Ks       []int      // values of k, each ≥ 1
	Boot     int        // bootstrap replicates B; 0 for the point estimate only
	Seed     uint64     // seed of the bootstrap; same seed → same result on any machine
	Level    float64    // confidence level of the interval, e.g. 0.95
	Short    ShortTasks // tasks with fewer than k runs
	Interval Interval   // Percentile (the zero value), BCa or Studentized
	// ResampleTasks resamples tasks (with replacement, each with its
	// observed runs and score@k) instead of runs within tasks; the interval
	// is then the percentile interval (see taskBootstrapCurve).
	ResampleTasks bool
}

// ScoreAtKPoint is the cross-task score@k at one k.
type ScoreAtKPoint struct {
	K        int
	NTasks   int      // tasks in the mean
	Dropped  []string // tasks left out (fewer than k runs, DropShort)
	Estimate float64  // mean over tasks of each task's score@k (NaN if no task)
	BootMean float64  // mean of the bootstrap replicates (NaN without bootstrap)
	CILow    float64  // percentile interval (NaN without bootstrap)
	CIHigh   float64
	Warnings []error
}

// ErrNoTasks is returned when there is no task with runs.
var ErrNoTasks = errors.New("analysis: no task with runs")

// ScoreAtKCurve computes, for each k, the mean over tasks of each task's
// exact score@k (see ScoreAtK), and a bootstrap percentile interval:
//
//	for b = 1..B: resample each task's n runs with replacement (tasks
//	fixed), apply the estimator, average over tasks;
//	CI = the (1−level)/2 and (1+level)/2 quantiles of the B means
//	(numpy.percentile's default linear interpolation, R quantile type 7).
//
// This is METR's get_bootstrapped_score_at_k / get_cross_task_summary_statistics
// (eval-analysis-public src/stats/statistics.py @3a947ac), with a seed.
// Each task is sorted once; a resample is a vector of counts over the
// sorted scores, and its score@k for every k follows from the counts by
// one O(n) pass and one dot product per k, with no sort (see
// scoreatk_replicate.go), or, for a task with many tied scores, by one
// table row per drop between distinct scores (scoreatk_ties.go), or, for a
// task with few possible resamples (all runs tied, or few runs over few
// distinct scores), by one draw from the resample's exact distribution
// (scoreatk_exact.go). Replicate b of task t draws from PCG(Seed, t<<32|b)
// (16-bit words of each output, drawCounts; or one whole output,
// exactTable.draw), so results do not depend on how replicates are spread
// over goroutines or machines. The
// interval ends are found by selection, not by sorting the replicates.
//
// The cross-task mean is weighted by TaskScores.Weight when given.
//
// That is opt.Interval = Percentile (the zero value; BCa adjusts its
// levels, bca.go). Studentized, the bootstrap-t, is computed on its own
// path (scoreatk_studentized.go: the same resamples drawn by drawCounts,
// about 10 times the percentile path's cost on METR's data, 1.5 s against
// 0.16 s for BenchmarkScoreAtKMETR's 12 groups × 8 k × 10,000 replicates on
// the 2-core machine); it is the interval that holds its level at k up to
// n/2 (docs/scoreatk-coverage.md). opt.ResampleTasks resamples tasks
// instead (taskBootstrapCurve). A run-level bootstrap warns at k > n/2
// (LargeKWarning) and about tasks with one run.
func ScoreAtKCurve(tasks []TaskScores, opt ScoreAtKOptions) ([]ScoreAtKPoint, error) {
	if len(tasks) == 0 {
		return nil, ErrNoTasks
	}
	if opt.Boot < 0 {
		return nil, fmt.Errorf("analysis: negative bootstrap count %d", opt.Boot)
	}
	if opt.Boot > 0 && !(opt.Level > 0 && opt.Level < 1) {
		return nil, fmt.Errorf("analysis: confidence level %v is not in (0, 1)", opt.Level)
	}
	for _, k := range opt.Ks {
		if k < 1 {
			return nil, fmt.Errorf("analysis: k = %d; k must be ≥ 1", k)
		}
	}
	prep := make([]preparedTask, len(tasks))
	for ti, t := range tasks {
		if len(t.Scores) == 0 {
			return nil, fmt.Errorf("analysis: task %s has no runs", t.Task)
		}
		if opt.Boot > 0 {
			prep[ti] = prepareTask(t, opt.Ks, opt.Short, opt.Boot)
		} else {
			prep[ti] = preparePoint(t, opt.Ks, opt.Short)
		}
	}

	points := make([]ScoreAtKPoint, len(opt.Ks))
	for i, k := range opt.Ks {
		pt := ScoreAtKPoint{K: k, BootMean: math.NaN(), CILow: math.NaN(), CIHigh: math.NaN()}
		var sum, wsum float64
		for ti, p := range prep {
			if p.ks[i] == 0 {
				pt.Dropped = append(pt.Dropped, tasks[ti].Task)
				continue
			}
			est := taskEstimate(p.s, p.ks[i], p.random)
			sum += float64(p.w * est)
			wsum += p.w
			pt.NTasks++
		}
		pt.Estimate = math.NaN()
		if pt.NTasks > 0 {
			pt.Estimate = sum / wsum
		}
		sort.Strings(pt.Dropped)
		if len(pt.Dropped) > 0 {
			pt.Warnings = append(pt.Warnings, &ShortTasksWarning{K: k, Dropped: pt.Dropped})
		}
		if pt.NTasks == 0 {
			pt.Warnings = append(pt.Warnings, fmt.Errorf("k=%d: no task has %d runs", k, k))
		}
		if opt.Boot > 0 && !opt.ResampleTasks {
			pt.Warnings = append(pt.Warnings, runWarnings(prep, i, k, opt.Interval)...)
		}
		points[i] = pt
	}
	if opt.Boot == 0 {
		return points, nil
	}
	if opt.ResampleTasks {
		taskBootstrapCurve(prep, opt, points)
		return points, nil
	}
	if opt.Interval == Studentized {
		studentizedCurve(prep, opt, points)
		return points, nil
	}

	// reps[i*Boot+b] = cross-task mean of replicate b at Ks[i] (one
	// column per k, which the interval step then reorders in place).
	// Workers take blocks of replicates as they free up; replicate b of
	// task t draws from its own stream, so who computes it does not change
	// the result. Each task adds its weight times its score@k (replicate);
	// wsum[i] is the weight of the tasks in the mean at Ks[i].
	nk := len(opt.Ks)
	reps := getFloats(opt.Boot * nk) // every element is written below
	defer putFloats(reps)
	wsum := make([]float64, nk)
	for _, p := range prep {
		for i, k := range p.ks {
			if k != 0 {
				wsum[i] += p.w
			}
		}
	}
	const block = 256
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), (opt.Boot+block-1)/block) {
		wg.Go(func() {
			var sc replicateScratch
			// The sums build up here and are stored into reps once:
			// adding into reps itself read each of its fresh pages
			// before writing it, which costs a second page fault (the
			// kernel first maps its shared zero page) and a TLB
			// shootdown on the other cores.
			sums := make([]float64, nk)
			for {
				lo := int(next.Add(block)) - block
				if lo >= opt.Boot {
					return
				}
				for b := lo; b < min(lo+block, opt.Boot); b++ {
					clear(sums)
					for ti := range prep {
						prep[ti].replicate(&sc, opt.Seed, uint64(ti)<<32|uint64(b), sums)
					}
					for i, s := range sums {
						reps[i*opt.Boot+b] = s / wsum[i] // NaN where no task has k runs
					}
				}
			}
		})
	}
	wg.Wait()
	// Each k's mean and interval ends, the ks shared among workers (each
	// point is written by one worker only).
	var nextK atomic.Int64
	var wgK sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), nk) {
		wgK.Go(func() {
			for {
				i := int(nextK.Add(1)) - 1
				if i >= nk {
					return
				}
				if points[i].NTasks == 0 {
					continue
				}
				col := reps[i*opt.Boot : (i+1)*opt.Boot]
				points[i].BootMean = mean(col)
				lo, hi := (1-opt.Level)/2, (1+opt.Level)/2
				if opt.Interval == BCa {
					var warn error
					lo, hi, warn = bcaLevels(col, points[i].Estimate, jackknife(prep, i), opt.Level)
					if warn != nil {
						points[i].Warnings = append(points[i].Warnings, fmt.Errorf("k=%d: %v", opt.Ks[i], warn))
					}
				}
				// Two order statistics each, found by selection in O(B)
				// rather than a sort (col is reordered, not sorted).
				points[i].CILow = quantileType7Select(col, lo)
				points[i].CIHigh = quantileType7Select(col, hi)
			}
		})
	}
	wgK.Wait()
	return points, nil
}

// floatBuffers holds the replicate tables of finished ScoreAtKCurve calls
// for the next ones: a caller that computes many groups (scoreatk over
// every agent and time limit) otherwise takes fresh memory from the
// operating system for each, and on the 2-core VM every fresh page costs
// a fault (about 0.7 ms of CPU per MB); 12 RE-Bench groups at B = 10,000
// took 7.7 MB.
var floatBuffers sync.Pool

// getFloats returns a slice of n float64s with arbitrary contents.
func getFloats(n int) []float64 {
	if b, ok := floatBuffers.Get().(*[]float64); ok && cap(*b) >= n {
		return (*b)[:n]
	}
	return make([]float64, n)
}

// putFloats hands b back to getFloats.
func putFloats(b []float64) { floatBuffers.Put(&b) }

// QuantileType7 returns the p-quantile of sorted x by linear interpolation
// between order statistics: h = (n−1)·p, x[⌊h⌋] + (h−⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋]).
// This is R's quantile(type = 7) and numpy.percentile's default. Panics on
// empty x or p outside [0, 1].
func QuantileType7(x []float64, p float64) float64 {
	i, frac := type7Position(len(x), p)
	if i+1 >= len(x) {
		return x[len(x)-1]
	}
	return x[i] + float64(frac*(x[i+1]-x[i]))
}

// type7Position returns ⌊h⌋ and h − ⌊h⌋ for h = (n−1)·p, the order
// statistic (0-based) a type-7 quantile starts from and the weight of the
// next one. Panics on n = 0 or p outside [0, 1].
func type7Position(n int, p float64) (int, float64) {
	if n == 0 || p < 0 || p > 1 {
		panic("analysis: quantile of empty sample or p outside [0, 1]")
	}
	h := float64(float64(n-1) * p) // rounded: h − lo must not fuse with it
	lo := math.Floor(h)
	return int(lo), h - lo
}

// LargeKWarning says that k exceeds half the runs of a task in the mean
// at K, where the percentile and BCa intervals of score@k undercover badly
// (simulated 95 % intervals at k = n: about 0.5 and 0) and the studentized
// one is wide and checked on the simulated scenarios only
// (docs/scoreatk-coverage.md).
type LargeKWarning struct {
	K        int
	MinN     int // fewest runs of a (best-of-k) task in the mean
	Interval Interval
}

func (w *LargeKWarning) Error() string {
	if w.Interval == Studentized {
		return fmt.Sprintf("k=%d is more than half the runs of the smallest task (%d): the studentized interval is wide there, and its coverage is checked for k ≤ n/2 (docs/scoreatk-coverage.md)", w.K, w.MinN)
	}
	return fmt.Sprintf("k=%d is more than half the runs of the smallest task (%d): this interval undercovers there (docs/scoreatk-coverage.md; the studentized one does not)", w.K, w.MinN)
}

// runWarnings are the warnings about a run-level bootstrap at Ks[i] = k:
// k above half a task's runs (LargeKWarning), and tasks with one run, which
// add no run-to-run variation (every task: the interval has zero width).
func runWarnings(prep []preparedTask, i, k int, iv Interval) []error {
	minN, in, single := math.MaxInt, 0, 0
	for _, p := range prep {
		if p.ks[i] == 0 {
			continue
		}
		in++
		if len(p.s) == 1 {
			single++
		}
		if !p.random {
			minN = min(minN, len(p.s))
		}
	}
	var out []error
	if minN != math.MaxInt && k > 1 && 2*k > minN {
		out = append(out, &LargeKWarning{K: k, MinN: minN, Interval: iv})
	}
	switch {
	case single > 0 && single == in:
		out = append(out, fmt.Errorf("k=%d: every task has one run, so resampling runs gives a zero-width interval; resample tasks instead (scoreatk --boot-unit tasks)", k))
	case single > 0:
		out = append(out, fmt.Errorf("k=%d: %d of %d tasks have one run and add no run-to-run variation to the interval", k, single, in))
	}
	return out
}

// ShortTasksWarning says which tasks have fewer than K runs and were left
// out of score@K (DropShort); callers that summarise warnings find it with
// errors.As.
type ShortTasksWarning struct {
	K       int
	Dropped []string
}

func (w *ShortTasksWarning) Error() string {
	return fmt.Sprintf("k=%d: %d tasks have fewer than %d runs and are left out: %v", w.K, len(w.Dropped), w.K, w.Dropped)
}

// quantileType7Select is QuantileType7 of x without sorting it: the two
// order statistics it interpolates between are found by selection
// (x is reordered). The result equals QuantileType7 of sorted x exactly.
// One is selected; the other is the extreme of the shorter side of it
// (below the middle, order statistic i is the largest of the i+1 values
// that selecting i+1 leaves in front), so a low quantile does not scan
// the whole array for its neighbour.
func quantileType7Select(x []float64, p float64) float64 {
	i, frac := type7Position(len(x), p)
	if i+1 >= len(x) {
		return selectNth(x, i)
	}
	var a, b float64
	if i < len(x)/2 {
		b = selectNth(x, i+1)
		a = slices.Max(x[:i+1]) // after selectNth, x[:i+1] holds the values ≤ b
	} else {
		a = selectNth(x, i)
		b = slices.Min(x[i+1:]) // after selectNth, x[i+1:] holds the values ≥ a
	}
	return a + float64(frac*(b-a))
}

// selectNth reorders x so that x[k] is the value a sort would put there,
// with x[:k] ≤ x[k] ≤ x[k+1:], and returns it (NaN not allowed).
//
// Floyd and Rivest's SELECT (CACM 18(3), 1975, Algorithm 489): on a range
// of more than 600 values it first selects, recursively, within a window
// around k of a sample of about n^(2/3) of them (the window's ends are
// expected to bracket the k-th value), and partitions the range about the
// value found, so one pass over the range mostly suffices where Hoare's
// quickselect takes two to three. The sample is the range's middle, not a
// random draw: deterministic. The value returned is exact whatever the
// window; only the order of the other values depends on it.
func selectNth(x []float64, k int) float64 {
	floydRivest(x, 0, len(x)-1, k)
	return x[k]
}

func floydRivest(x []float64, left, right, k int) {
	for right > left {
		if right-left > 600 {
			n := float64(right - left + 1)
			i := float64(k - left + 1)
			z := math.Log(n)
			s := float64(0.5 * math.Exp(2*z/3))
			sd := 0.5 * math.Sqrt(z*s*(n-s)/n)
			if i < n/2 {
				sd = -sd
			}
			newLeft := max(left, int(float64(k)-i*s/n+sd))
			newRight := min(right, int(float64(k)+(n-i)*s/n+sd))
			floydRivest(x, newLeft, newRight, k)
		}
		// Partition x[left..right] about t = x[k].
		t := x[k]
		i, j := left, right
		x[left], x[k] = x[k], x[left]
		if x[right] > t {
			x[right], x[left] = x[left], x[right]
		}
		for i < j {
			x[i], x[j] = x[j], x[i]
			i++
			j--
			for x[i] < t {
				i++
			}
			for x[j] > t {
				j--
			}
		}
		if x[left] == t {
			x[left], x[j] = x[j], x[left]
		} else {
			j++
			x[j], x[right] = x[right], x[j]
		}
		// Now x[left..j-1] ≤ t = x[j] ≤ x[j+1..right].
		if j <= k {
			left = j + 1
		}
		if k <= j {
			right = j - 1
		}
	}
}

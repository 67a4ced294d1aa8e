package analysis

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"sort"
	"sync"
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
)

// ScoreAtKOptions control ScoreAtKCurve.
type ScoreAtKOptions struct {
	Ks       []int      // values of k, each ≥ 1
	Boot     int        // bootstrap replicates B; 0 for the point estimate only
	Seed     uint64     // seed of the bootstrap; same seed → same result on any machine
	Level    float64    // confidence level of the interval, e.g. 0.95
	Short    ShortTasks // tasks with fewer than k runs
	Interval Interval   // Percentile (default) or BCa
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
// sorted scores, so a replicate costs O(n) per k with no sort. Replicate b
// of task t draws from PCG(Seed, t<<32|b), so results do not depend on how
// replicates are spread over goroutines or machines.
//
// The cross-task mean is weighted by TaskScores.Weight when given.
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
		p := preparedTask{s: sortedDesc(t.Scores), random: t.Random, w: t.Weight}
		if p.w == 0 {
			p.w = 1
		}
		n := len(p.s)
		p.ks = make([]int, len(opt.Ks))
		p.cum = make([][]float64, len(opt.Ks))
		for i, k := range opt.Ks {
			switch {
			case k <= n:
				p.ks[i] = k
			case opt.Short == TruncateShort || p.random:
				// A blind pick's value is the mean whatever k is, so a
				// random-selection task is never short of runs.
				p.ks[i] = n
			default:
				continue
			}
			if p.random {
				continue
			}
			w := ScoreAtKWeights(n, p.ks[i], nil)
			c := make([]float64, n+1)
			for j, x := range w {
				c[j+1] = c[j] + x
			}
			p.cum[i] = c
		}
		if !p.random {
			nk := len(opt.Ks)
			p.cumT = make([]float64, (n+1)*nk)
			for i := range opt.Ks {
				if p.cum[i] == nil {
					continue
				}
				for pos, v := range p.cum[i] {
					p.cumT[pos*nk+i] = v
				}
			}
		}
		prep[ti] = p
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
			var est float64
			if p.random {
				est = mean(p.s)
			} else {
				est = ScoreAtKWeightsApply(p.cum[i], p.s)
			}
			sum += p.w * est
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
		points[i] = pt
	}
	if opt.Boot == 0 {
		return points, nil
	}

	// reps[b*len(Ks)+i] = cross-task mean of replicate b at Ks[i].
	nk := len(opt.Ks)
	reps := make([]float64, opt.Boot*nk)
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	next := make(chan int, workers)
	go func() {
		for b := 0; b < opt.Boot; b++ {
			next <- b
		}
		close(next)
	}()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			counts := []int{}
			est := make([]float64, nk)
			sums := make([]float64, nk)
			wsums := make([]float64, nk)
			for b := range next {
				clear(sums)
				clear(wsums)
				for ti := range prep {
					p := &prep[ti]
					n := len(p.s)
					if cap(counts) < n {
						counts = make([]int, n)
					}
					counts = counts[:n]
					clear(counts)
					var g rand.PCG
					g.Seed(opt.Seed, uint64(ti)<<32|uint64(b))
					for j := 0; j < n; j++ {
						counts[boundedDraw(&g, uint64(n))]++
					}
					// One pass over the resample's counts serves every k: the
					// run at sorted position j, drawn c times, fills positions
					// pos..pos+c−1 of the resample and contributes
					// s_j·(W_k(pos+c) − W_k(pos)) to each score@k (W_k the
					// cumulative weights, interleaved by k in cumT).
					if !p.random {
						clear(est)
						pos := 0
						for j, c := range counts {
							if c == 0 {
								continue
							}
							b0, b1 := pos*nk, (pos+c)*nk
							sj := p.s[j]
							lo, hi := p.cumT[b0:b0+nk], p.cumT[b1:b1+nk]
							for i := range est {
								est[i] += sj * (hi[i] - lo[i])
							}
							pos += c
						}
					} else {
						var m float64
						for j, c := range counts {
							m += float64(c) * p.s[j]
						}
						m /= float64(n)
						for i := range est {
							est[i] = m
						}
					}
					for i := range opt.Ks {
						if p.ks[i] == 0 {
							continue
						}
						sums[i] += p.w * est[i]
						wsums[i] += p.w
					}
				}
				for i := range opt.Ks {
					v := math.NaN()
					if wsums[i] > 0 {
						v = sums[i] / wsums[i]
					}
					reps[b*nk+i] = v
				}
			}
		}()
	}
	wg.Wait()
	col := make([]float64, opt.Boot)
	for i := range points {
		if points[i].NTasks == 0 {
			continue
		}
		for b := 0; b < opt.Boot; b++ {
			col[b] = reps[b*nk+i]
		}
		points[i].BootMean = mean(col)
		sort.Float64s(col)
		lo, hi := (1-opt.Level)/2, (1+opt.Level)/2
		if opt.Interval == BCa {
			var warn error
			lo, hi, warn = bcaLevels(col, points[i].Estimate, jackknife(prep, i), opt.Level)
			if warn != nil {
				points[i].Warnings = append(points[i].Warnings, fmt.Errorf("k=%d: %v", opt.Ks[i], warn))
			}
		}
		points[i].CILow = QuantileType7(col, lo)
		points[i].CIHigh = QuantileType7(col, hi)
	}
	return points, nil
}

// boundedDraw returns a uniform integer in [0, n) from g by Lemire's
// multiply-and-reject method ("Fast random integer generation in an
// interval", ACM TOMACS 2019): exact, and cheaper than going through
// rand.Rand for the 10^7–10^8 draws of a bootstrap.
func boundedDraw(g *rand.PCG, n uint64) uint64 {
	hi, lo := bits.Mul64(g.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(g.Uint64(), n)
		}
	}
	return hi
}

// preparedTask is a task sorted once for the bootstrap.
type preparedTask struct {
	s      []float64
	random bool
	w      float64
	ks     []int       // effective k per Ks entry; 0 = dropped
	cum    [][]float64 // cumulative weights per Ks entry (len n+1)
	cumT   []float64   // the same interleaved: cumT[pos*len(Ks)+i] = cum[i][pos]
}

// ScoreAtKWeightsApply returns Σ_i (cum[i+1] − cum[i])·s[i] for scores s
// sorted descending and cumulative weights cum (len(s)+1 entries).
func ScoreAtKWeightsApply(cum, s []float64) float64 {
	var est float64
	for i, x := range s {
		w := cum[i+1] - cum[i]
		if w == 0 && i > 0 {
			break
		}
		est += w * x
	}
	return est
}

// QuantileType7 returns the p-quantile of sorted x by linear interpolation
// between order statistics: h = (n−1)·p, x[⌊h⌋] + (h−⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋]).
// This is R's quantile(type = 7) and numpy.percentile's default. Panics on
// empty x or p outside [0, 1].
func QuantileType7(x []float64, p float64) float64 {
	if len(x) == 0 || p < 0 || p > 1 {
		panic("analysis: quantile of empty sample or p outside [0, 1]")
	}
	h := float64(len(x)-1) * p
	lo := math.Floor(h)
	i := int(lo)
	if i+1 >= len(x) {
		return x[len(x)-1]
	}
	return x[i] + (h-lo)*(x[i+1]-x[i])
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

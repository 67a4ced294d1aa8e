package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
)

// Interp is how a run's best-so-far score is read between score-log events.
type Interp int

const (
	// LogLinear interpolates linearly in log(elapsed time) between
	// consecutive events, as RE-Bench §4.1 averages "log-linear
	// interpolations" of runs.
	LogLinear Interp = iota
	// Step holds each value until the next event (the score as it was).
	Step
)

// RunCurve is one run's score over time: the best-so-far normalized score
// after each valid score-log event, at elapsed times (seconds, pauses
// excluded), plus the run's length.
type RunCurve struct {
	T      []float64 // elapsed seconds of the events, increasing
	V      []float64 // best-so-far normalized score at T[i]
	Length float64   // run length (time limit) in seconds; the curve is undefined after it; 0 = after the last event
}

// BestSoFar builds a RunCurve from a run's normalized scores in time order
// (NaN = invalid attempt, skipped). With rule RuleMax or RuleMin the value
// is the running maximum of the normalized score (normalization makes higher
// better for both); with RuleLast the latest valid score; with RuleMean the
// running mean. Events at the same time keep the last.
func BestSoFar(t, normalized []float64, rule Rule, length float64) RunCurve {
	c := RunCurve{Length: length}
	var acc float64
	n := 0
	for i, y := range normalized {
		if math.IsNaN(y) {
			continue
		}
		switch {
		case n == 0:
			acc = y
		case rule == RuleLast:
			acc = y
		case rule == RuleMean:
			acc += (y - acc) / float64(n+1)
		default:
			acc = math.Max(acc, y)
		}
		n++
		if k := len(c.T); k > 0 && c.T[k-1] == t[i] {
			c.V[k-1] = acc
			continue
		}
		c.T = append(c.T, t[i])
		c.V = append(c.V, acc)
	}
	return c
}

// At returns the curve's value at elapsed time g: 0 (the starting solution)
// before the first valid event; between events, log-linear or step
// interpolation; after the last event its value, up to the run length; NaN
// after the run length.
func (c RunCurve) At(g float64, how Interp) float64 {
	if c.Length > 0 && g > c.Length*(1+1e-12) {
		return math.NaN()
	}
	n := len(c.T)
	if n == 0 || g < c.T[0] {
		return 0
	}
	j := sort.SearchFloat64s(c.T, g) // first T ≥ g
	if j < n && c.T[j] == g {
		return c.V[j]
	}
	if j >= n {
		if c.Length == 0 && g > c.T[n-1] {
			return c.V[n-1]
		}
		return c.V[n-1]
	}
	a, b := j-1, j
	if how == Step || c.T[a] <= 0 {
		return c.V[a]
	}
	f := (detLog(g) - detLog(c.T[a])) / (detLog(c.T[b]) - detLog(c.T[a]))
	return c.V[a] + float64(f*(c.V[b]-c.V[a]))
}

// TaskCurves are one task's run curves.
type TaskCurves struct {
	Task string
	Runs []RunCurve
}

// CurvePoint is the mean score over tasks at one grid time.
type CurvePoint struct {
	T        float64
	NTasks   int // tasks with at least one run defined at T
	NRuns    int
	Estimate float64 // mean over tasks of the mean over runs
	CILow    float64 // bootstrap percentile interval over runs (NaN without)
	CIHigh   float64
}

// ScoreOverTime averages run curves on a time grid: at each grid time, the
// mean over a task's runs defined there, then the mean over tasks. The
// interval resamples each task's runs with replacement (tasks fixed), B =
// opt.Boot times, replicate b of task i drawing from PCG(opt.Seed, i<<32|b).
func ScoreOverTime(tasks []TaskCurves, grid []float64, how Interp, opt ScoreAtKOptions) ([]CurvePoint, error) {
	if len(tasks) == 0 {
		return nil, ErrNoTasks
	}
	for _, g := range grid {
		if !(g > 0) {
			return nil, fmt.Errorf("analysis: grid time %v must be positive", g)
		}
	}
	// vals[ti][r][gi]: run r of task ti at grid time gi.
	vals := make([][][]float64, len(tasks))
	for ti, t := range tasks {
		vals[ti] = make([][]float64, len(t.Runs))
		for r, c := range t.Runs {
			v := make([]float64, len(grid))
			for gi, g := range grid {
				v[gi] = c.At(g, how)
			}
			vals[ti][r] = v
		}
	}
	meanAt := func(pick func(ti, j int) int, gi int) (est float64, nt, nr int) {
		var sum float64
		for ti := range tasks {
			var s float64
			m := 0
			for j := range vals[ti] {
				v := vals[ti][pick(ti, j)][gi]
				if !math.IsNaN(v) {
					s += v
					m++
				}
			}
			if m > 0 {
				sum += s / float64(m)
				nt++
				nr += m
			}
		}
		if nt == 0 {
			return math.NaN(), 0, 0
		}
		return sum / float64(nt), nt, nr
	}
	out := make([]CurvePoint, len(grid))
	for gi, g := range grid {
		est, nt, nr := meanAt(func(_, j int) int { return j }, gi)
		out[gi] = CurvePoint{T: g, NTasks: nt, NRuns: nr, Estimate: est, CILow: math.NaN(), CIHigh: math.NaN()}
	}
	if opt.Boot == 0 {
		return out, nil
	}
	reps := make([][]float64, len(grid))
	idx := make([][]int, len(tasks))
	for b := 0; b < opt.Boot; b++ {
		for ti := range tasks {
			n := len(vals[ti])
			idx[ti] = idx[ti][:0]
			rng := rand.New(rand.NewPCG(opt.Seed, uint64(ti)<<32|uint64(b)))
			for j := 0; j < n; j++ {
				idx[ti] = append(idx[ti], rng.IntN(n))
			}
		}
		for gi := range grid {
			if est, _, _ := meanAt(func(ti, j int) int { return idx[ti][j] }, gi); !math.IsNaN(est) {
				reps[gi] = append(reps[gi], est)
			}
		}
	}
	for gi := range grid {
		if len(reps[gi]) == 0 {
			continue
		}
		sort.Float64s(reps[gi])
		out[gi].CILow = QuantileType7(reps[gi], (1-opt.Level)/2)
		out[gi].CIHigh = QuantileType7(reps[gi], (1+opt.Level)/2)
	}
	return out, nil
}

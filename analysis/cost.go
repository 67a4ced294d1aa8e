package analysis

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
)

// CostRun is one run of a cost comparison: its task, its cost in US
// dollars (finite, ≥ 0), and its tokens, normalized score and success (1
// or 0), each NaN when unknown.
type CostRun struct {
	Task                         string
	Cost, Tokens, Score, Success float64
}

// CostStats are the cost statistics of one group of runs (an agent at a
// time limit). Every mean is a mean over tasks of the task's mean over
// its runs that know the quantity (tasks where none does are left out of
// that mean), so that each task weighs the same, as in score@k:
//
//	MeanCost       = (1/T) · sum_t {mean_i c_ti}
//	MeanTokens     = the same over tokens
//	MeanScore      = the same over normalized scores (score@1)
//	SuccessRate    = the same over success (0/1)
//	CostPerSuccess = MeanCost / SuccessRate
//	CostPerScore   = MeanCost / MeanScore
//
// With the same number of runs in every task, CostPerSuccess is total cost
// / number of successes and CostPerScore total cost / total score. A
// group without a success has CostPerSuccess +Inf (0/0, no cost at all:
// NaN); without success data, NaN. In pandas:
//
//	m = df.groupby("task")[["cost", "tokens", "score", "success"]].mean().mean()
//	m.cost / m.success, m.cost / m.score
type CostStats struct {
	MeanCost, MeanTokens, MeanScore, SuccessRate, CostPerSuccess, CostPerScore float64
}

// CostNames are the statistics of CostStats in field order, as tables
// name them.
var CostNames = [6]string{"mean_cost", "mean_tokens", "mean_score", "success_rate", "cost_per_success", "cost_per_score"}

// Values returns the statistics in CostNames order.
func (s CostStats) Values() [6]float64 {
	return [6]float64{s.MeanCost, s.MeanTokens, s.MeanScore, s.SuccessRate, s.CostPerSuccess, s.CostPerScore}
}

func costStatsOf(v [6]float64) CostStats {
	return CostStats{v[0], v[1], v[2], v[3], v[4], v[5]}
}

// CostSummary is the estimate and bootstrap interval of each statistic of
// one group.
type CostSummary struct {
	Runs, Tasks int
	Est, Lo, Hi CostStats
	// Used counts, per statistic (CostNames order), the replicates whose
	// value is not NaN.
	Used [6]int
}

// costTask is one task's runs as columns.
type costTask struct{ cols [4][]float64 } // cost, tokens, score, success

// costMeans is CostStats of tasks, run i of task t weighted by the number
// of times idx[t] holds it (idx nil: every run once). Quantities are
// summed in run order and then in task order.
func costMeans(tasks []costTask, pick func(t int) []int) CostStats {
	var sum [4]float64
	var n [4]int
	for t := range tasks {
		ix := pick(t)
		for q := 0; q < 4; q++ {
			col := tasks[t].cols[q]
			s, k := 0.0, 0
			for _, i := range ix {
				if v := col[i]; !math.IsNaN(v) {
					s += v
					k++
				}
			}
			if k > 0 {
				sum[q] += s / float64(k)
				n[q]++
			}
		}
	}
	var m [4]float64
	for q := range m {
		m[q] = math.NaN()
		if n[q] > 0 {
			m[q] = sum[q] / float64(n[q])
		}
	}
	return CostStats{MeanCost: m[0], MeanTokens: m[1], MeanScore: m[2], SuccessRate: m[3],
		CostPerSuccess: m[0] / m[3], CostPerScore: m[0] / m[2]}
}

// CostBootstrap computes CostStats of runs and their percentile bootstrap
// intervals at level. Tasks are taken in task-name order. Replicate b
// draws from PCG(seed, b):
//
//	BootRuns:         for each task in order, draw its n runs with
//	                  replacement (tasks fixed, stratified by task);
//	BootTasks:        T times, draw a task uniformly, with its observed runs;
//	BootHierarchical: T times, draw a task, then its n runs with replacement.
//
// Each replicate computes every statistic as CostStats does. The interval
// of a statistic is the (1∓level)/2 type-7 quantiles of its replicates
// that are not NaN; +Inf replicates (a resample without a success) are
// kept, so an upper bound is +Inf when more than (1−level)/2 of the
// replicates have no success. boot = 0 gives NaN intervals. In numpy, for
// BootRuns with a generator rng:
//
//	reps = [stat({t: r[rng.integers(len(r), size=len(r))] for t, r in tasks.items()}) for b in range(B)]
//	np.quantile(reps, [(1-level)/2, (1+level)/2])
//
// Errors: no runs, a negative or non-finite cost, a success other than
// 0, 1 or NaN, BootFamilies, or a level outside (0, 1).
func CostBootstrap(runs []CostRun, unit BootUnit, boot int, seed uint64, level float64) (CostSummary, error) {
	nan := math.NaN()
	all := CostStats{nan, nan, nan, nan, nan, nan}
	res := CostSummary{Runs: len(runs), Est: all, Lo: all, Hi: all}
	if len(runs) == 0 {
		return res, errors.New("analysis: no run to compute costs from")
	}
	if unit == BootFamilies {
		return res, errors.New("analysis: cost data have no families to resample")
	}
	if !(level > 0 && level < 1) {
		return res, fmt.Errorf("analysis: confidence level %v is not in (0, 1)", level)
	}
	byTask := map[string]int{}
	var names []string
	for _, r := range runs {
		if math.IsNaN(r.Cost) || math.IsInf(r.Cost, 0) || r.Cost < 0 {
			return res, fmt.Errorf("analysis: task %s: cost %v: want a finite number ≥ 0", r.Task, r.Cost)
		}
		if !(math.IsNaN(r.Success) || r.Success == 0 || r.Success == 1) {
			return res, fmt.Errorf("analysis: task %s: success %v: want 0, 1 or NaN", r.Task, r.Success)
		}
		if _, ok := byTask[r.Task]; !ok {
			byTask[r.Task] = len(names)
			names = append(names, r.Task)
		}
	}
	sort.Strings(names)
	for i, n := range names {
		byTask[n] = i
	}
	tasks := make([]costTask, len(names))
	for _, r := range runs {
		t := &tasks[byTask[r.Task]]
		for q, v := range [4]float64{r.Cost, r.Tokens, r.Score, r.Success} {
			t.cols[q] = append(t.cols[q], v)
		}
	}
	res.Tasks = len(tasks)
	ident := make([][]int, len(tasks))
	for t := range tasks {
		ident[t] = make([]int, len(tasks[t].cols[0]))
		for i := range ident[t] {
			ident[t][i] = i
		}
	}
	res.Est = costMeans(tasks, func(t int) []int { return ident[t] })
	if boot == 0 {
		return res, nil
	}
	m := len(tasks)
	drawn := make([]costTask, m)
	idx := make([][]int, m)
	var reps [6][]float64
	for b := 0; b < boot; b++ {
		rng := rand.New(rand.NewPCG(seed, uint64(b)))
		for j := 0; j < m; j++ {
			i := j
			if unit != BootRuns {
				i = rng.IntN(m)
			}
			drawn[j] = tasks[i]
			n := len(tasks[i].cols[0])
			idx[j] = idx[j][:0]
			if unit == BootTasks {
				idx[j] = append(idx[j], ident[i]...)
				continue
			}
			for range n {
				idx[j] = append(idx[j], rng.IntN(n))
			}
		}
		v := costMeans(drawn, func(t int) []int { return idx[t] }).Values()
		for q, x := range v {
			if !math.IsNaN(x) {
				reps[q] = append(reps[q], x)
			}
		}
	}
	var lo, hi [6]float64
	for q := range reps {
		lo[q], hi[q] = nan, nan
		res.Used[q] = len(reps[q])
		if len(reps[q]) == 0 {
			continue
		}
		sort.Float64s(reps[q])
		lo[q], hi[q] = quantileType7Inf(reps[q], (1-level)/2), quantileType7Inf(reps[q], (1+level)/2)
	}
	res.Lo, res.Hi = costStatsOf(lo), costStatsOf(hi)
	return res, nil
}

// quantileType7Inf is QuantileType7 of sorted x that may end in +Inf: a
// quantile that interpolates towards +Inf is +Inf (QuantileType7 would
// give NaN from 0·Inf when it lands on a finite order statistic exactly).
func quantileType7Inf(x []float64, p float64) float64 {
	i, frac := type7Position(len(x), p)
	if frac == 0 || i+1 >= len(x) {
		return x[min(i, len(x)-1)]
	}
	if math.IsInf(x[i+1], 1) {
		return math.Inf(1)
	}
	return QuantileType7(x, p)
}

// ParetoFrontier reports which points (cost_i, score_i) are on the
// cost–score Pareto frontier, lower cost and higher score being better:
// point i is on it unless some j has
//
//	cost_j ≤ cost_i and score_j ≥ score_i, one of them strictly.
//
// Points with equal cost and score do not dominate each other: all of
// them are on the frontier or none. A point whose cost or score is NaN
// (or ±Inf) is on no frontier and dominates nothing. In numpy:
//
//	[not any((c <= c[i]) & (s >= s[i]) & ((c < c[i]) | (s > s[i]))) for i in range(len(c))]
//
// Panics when the lengths differ.
func ParetoFrontier(cost, score []float64) []bool {
	if len(cost) != len(score) {
		panic("analysis: ParetoFrontier: cost and score lengths differ")
	}
	ok := func(i int) bool {
		return !math.IsNaN(cost[i]) && !math.IsInf(cost[i], 0) && !math.IsNaN(score[i]) && !math.IsInf(score[i], 0)
	}
	on := make([]bool, len(cost))
	for i := range cost {
		if !ok(i) {
			continue
		}
		on[i] = true
		for j := range cost {
			if j == i || !ok(j) {
				continue
			}
			if cost[j] <= cost[i] && score[j] >= score[i] && (cost[j] < cost[i] || score[j] > score[i]) {
				on[i] = false
				break
			}
		}
	}
	return on
}

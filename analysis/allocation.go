package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
)

// Allocation is one way to spend a time budget: runs of one length, whose
// per-task scores feed score@k.
type Allocation struct {
	RunLengthS float64      // run length h in seconds (e.g. 1800, 7200, 28800)
	Tasks      []TaskScores // the agent's runs of that length, per task
}

// AllocationPoint is score@k for one budget T and run length h, k = T/h.
type AllocationPoint struct {
	BudgetS    float64
	RunLengthS float64
	ScoreAtKPoint
	// AgentTasks is the size of the agent's task set: the tasks with at
	// least one score in any of the allocations passed to AllocationCurve.
	AgentTasks int
	// FullTaskSet reports whether this cell's mean covers the whole task
	// set (NTasks == AgentTasks). A cell that dropped tasks short of k runs
	// averages over other tasks: a different quantity, never Best.
	FullTaskSet bool
	// Best: the highest estimate among this budget's allocations that
	// cover the agent's full task set; no cell of a budget is Best when
	// none covers it (AllocationWarnings reports those budgets).
	Best bool
}

// PartialTaskSet is the warning for a budget at which no allocation covers
// the agent's full task set, so that the budget has no best point: every
// cell's mean leaves out tasks with fewer than k runs.
type PartialTaskSet struct {
	BudgetS    float64
	MaxTasks   int // the most tasks any allocation of the budget covers
	AgentTasks int
}

func (w PartialTaskSet) Error() string {
	return fmt.Sprintf("budget %s: no allocation covers all %d tasks (at most %d of them); no best point, its cells are flagged partial",
		hoursLabel(w.BudgetS), w.AgentTasks, w.MaxTasks)
}

// hoursLabel writes seconds as hours ("32 h", "0.5 h").
func hoursLabel(s float64) string {
	return strconv.FormatFloat(s/3600, 'f', -1, 64) + " h"
}

// AllocationCurve evaluates, for every budget T and every allocation whose
// run length h divides T (k = T/h ≥ 1), the cross-task score@k with its
// bootstrap interval (ScoreAtKCurve with opt, Ks replaced by k), and marks
// as Best the allocation with the highest estimate among those covering the
// agent's full task set (every task with a score in any allocation; see
// AllocationPoint.FullTaskSet). This is what RE-Bench Fig. 2 plots (arXiv
// 2411.15114 §4.2; no public code exists). A budget where every allocation
// leaves out tasks short of k runs has no Best point (AllocationWarnings).
// Picking the best observed allocation overstates its value (winner's
// curse); see HoldoutBest.
func AllocationCurve(allocs []Allocation, budgets []float64, opt ScoreAtKOptions) ([]AllocationPoint, error) {
	taskSet := map[string]bool{}
	for _, a := range allocs {
		for _, t := range a.Tasks {
			if len(t.Scores) > 0 {
				taskSet[t.Task] = true
			}
		}
	}
	var out []AllocationPoint
	for _, T := range budgets {
		if !(T > 0) {
			return nil, fmt.Errorf("analysis: budget %v must be positive", T)
		}
		first := len(out)
		for _, a := range allocs {
			k, ok := runsInBudget(T, a.RunLengthS)
			if !ok {
				continue
			}
			o := opt
			o.Ks = []int{k}
			pts, err := ScoreAtKCurve(a.Tasks, o)
			if err != nil {
				return nil, err
			}
			out = append(out, AllocationPoint{BudgetS: T, RunLengthS: a.RunLengthS, ScoreAtKPoint: pts[0],
				AgentTasks: len(taskSet), FullTaskSet: len(taskSet) > 0 && pts[0].NTasks == len(taskSet)})
		}
		// Means over different task sets are not comparable (a dropped task
		// may be the hardest or the easiest), so the best is chosen among
		// the allocations that cover every task of the agent.
		best := -1
		for i := first; i < len(out); i++ {
			if out[i].FullTaskSet && !math.IsNaN(out[i].Estimate) && (best < 0 || out[i].Estimate > out[best].Estimate) {
				best = i
			}
		}
		if best >= 0 {
			out[best].Best = true
		}
	}
	return out, nil
}

// AllocationWarnings returns a PartialTaskSet for every budget of pts that
// has cells but none covering the agent's full task set, in budget order.
func AllocationWarnings(pts []AllocationPoint) []error {
	type acc struct {
		full     bool
		maxTasks int
		agent    int
	}
	by := map[float64]*acc{}
	var order []float64
	for _, p := range pts {
		a := by[p.BudgetS]
		if a == nil {
			a = &acc{}
			by[p.BudgetS] = a
			order = append(order, p.BudgetS)
		}
		a.full = a.full || p.FullTaskSet
		a.maxTasks = max(a.maxTasks, p.NTasks)
		a.agent = max(a.agent, p.AgentTasks)
	}
	sort.Float64s(order)
	var out []error
	for _, T := range order {
		if a := by[T]; !a.full {
			out = append(out, PartialTaskSet{BudgetS: T, MaxTasks: a.maxTasks, AgentTasks: a.agent})
		}
	}
	return out
}

// runsInBudget returns k = T/h when h divides T.
func runsInBudget(T, h float64) (int, bool) {
	if !(h > 0) || h > T {
		return 0, false
	}
	k := math.Round(T / h)
	if math.Abs(float64(k*h)-T) > 1e-9*T {
		return 0, false
	}
	return int(k), true
}

// Holdout is the winner's-curse-free value of choosing an allocation.
type Holdout struct {
	BudgetS  float64
	Estimate float64 // mean over splits of the held-out score@k of the allocation chosen on the other half
	CILow    float64 // percentile interval over splits
	CIHigh   float64
	Chosen   map[float64]int // run length → number of splits in which it was chosen
	Splits   int             // splits with a usable choice
	Warnings []error
}

// HoldoutBest estimates the value of "pick the best allocation" without
// the winner's curse: in each of opt.Boot random splits, every task's runs
// of every allocation are divided at random into two halves (⌊n/2⌋ and the
// rest); the allocation with the highest cross-task score@k on the first
// half is chosen and scored on the second half. A task whose half has fewer
// than k runs is left out of that half's mean (or truncated, per
// opt.Short), and an allocation whose halves do not both cover the agent's
// full task set (every task with a score in allocs) is not a candidate in
// that split, as AllocationCurve's Best.
// Split b draws from PCG(opt.Seed, b). The estimate is the mean of the
// held-out values; the interval their (1±level)/2 quantiles.
func HoldoutBest(allocs []Allocation, budget float64, opt ScoreAtKOptions) (Holdout, error) {
	h := Holdout{BudgetS: budget, Estimate: math.NaN(), CILow: math.NaN(), CIHigh: math.NaN(), Chosen: map[float64]int{}}
	if opt.Boot < 1 {
		return h, fmt.Errorf("analysis: holdout selection needs at least one split")
	}
	type cand struct {
		a Allocation
		k int
	}
	var cands []cand
	for _, a := range allocs {
		if k, ok := runsInBudget(budget, a.RunLengthS); ok {
			cands = append(cands, cand{a, k})
		}
	}
	if len(cands) == 0 {
		return h, fmt.Errorf("analysis: no run length divides the budget %v s", budget)
	}
	// As in AllocationCurve, a candidate whose half leaves out a task (short
	// of k runs there) averages over other tasks, so it is not a candidate
	// in that split.
	taskSet := map[string]bool{}
	for _, a := range allocs {
		for _, t := range a.Tasks {
			if len(t.Scores) > 0 {
				taskSet[t.Task] = true
			}
		}
	}
	var vals []float64
	for b := 0; b < opt.Boot; b++ {
		rng := rand.New(rand.NewPCG(opt.Seed, uint64(b)))
		bestSel, bestEval, bestLen := math.Inf(-1), math.NaN(), 0.0
		for _, c := range cands {
			var selSum, evalSum float64
			selN, evalN := 0, 0
			for _, t := range c.a.Tasks {
				s := append([]float64(nil), t.Scores...)
				rng.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
				half := len(s) / 2
				if v, ok := halfScore(s[:half], c.k, t.Random, opt.Short); ok {
					selSum += v
					selN++
				}
				if v, ok := halfScore(s[half:], c.k, t.Random, opt.Short); ok {
					evalSum += v
					evalN++
				}
			}
			if selN == 0 || selN != len(taskSet) || evalN != len(taskSet) {
				continue
			}
			if m := selSum / float64(selN); m > bestSel {
				bestSel, bestEval, bestLen = m, evalSum/float64(evalN), c.a.RunLengthS
			}
		}
		if !math.IsNaN(bestEval) {
			vals = append(vals, bestEval)
			h.Chosen[bestLen]++
		}
	}
	h.Splits = len(vals)
	if len(vals) == 0 {
		h.Warnings = append(h.Warnings, fmt.Errorf("budget %v s: no allocation has enough runs on every task for a split", budget))
		return h, nil
	}
	h.Estimate = mean(vals)
	sort.Float64s(vals)
	h.CILow = QuantileType7(vals, (1-opt.Level)/2)
	h.CIHigh = QuantileType7(vals, (1+opt.Level)/2)
	if h.Splits < opt.Boot {
		h.Warnings = append(h.Warnings, fmt.Errorf("budget %v s: %d of %d splits had no usable allocation", budget, opt.Boot-h.Splits, opt.Boot))
	}
	return h, nil
}

func halfScore(s []float64, k int, random bool, short ShortTasks) (float64, bool) {
	if len(s) == 0 {
		return 0, false
	}
	if k > len(s) {
		// A random-selection task's score@k is its mean for every k: never
		// short of runs (as in ScoreAtKCurve).
		if short != TruncateShort && !random {
			return 0, false
		}
		k = len(s)
	}
	return ScoreAtK(s, k, random), true
}

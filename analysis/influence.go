package analysis

import (
	"math"
	"sort"
)

// RunInfluence is the change in a statistic when one run is left out.
type RunInfluence struct {
	Task    string
	Index   int     // the run's position: in its task's Scores (score@k) or in the runs slice (success)
	Value   float64 // the run's score (score@k) or 1/0 for final success
	Without float64 // the statistic recomputed without the run (NaN when nothing is left)
	Change  float64 // Without − the full statistic
}

// TaskInfluence is the change in a statistic when one task is left out.
type TaskInfluence struct {
	Task    string
	Runs    int     // runs of the task in the statistic
	Without float64 // the statistic recomputed without the task (NaN when nothing is left)
	Change  float64 // Without − the full statistic
}

// ScoreAtKMean is the cross-task (weighted) mean of per-task score@k with
// tasks that have fewer than k runs left out (DropShort; a random-selection
// task uses its mean at every k) — ScoreAtKCurve's Estimate at one k. NaN
// when no task is left. Tasks with no scores are skipped.
func ScoreAtKMean(tasks []TaskScores, k int) float64 {
	vals := make([]float64, len(tasks))
	ok := make([]bool, len(tasks))
	for i, t := range tasks {
		vals[i], ok[i] = taskScoreAtK(t.Scores, t.Random, k)
	}
	return weightedTaskMean(tasks, vals, ok, -1, 0, false)
}

// weightedTaskMean is Σ w_i v_i / Σ w_i over the tasks with ok[i], in task
// order, with task skip's value replaced by (v, vok); a zero Weight counts
// as 1. NaN when no task is left.
func weightedTaskMean(tasks []TaskScores, vals []float64, ok []bool, skip int, v float64, vok bool) float64 {
	var sum, wsum float64
	for i, t := range tasks {
		x, o := vals[i], ok[i]
		if i == skip {
			x, o = v, vok
		}
		if !o {
			continue
		}
		w := t.Weight
		if w == 0 {
			w = 1
		}
		sum += float64(w * x)
		wsum += w
	}
	if wsum == 0 {
		return math.NaN()
	}
	return sum / wsum
}

func taskScoreAtK(s []float64, random bool, k int) (float64, bool) {
	if len(s) == 0 {
		return 0, false
	}
	if random {
		return mean(s), true
	}
	if k > len(s) {
		return 0, false
	}
	return ScoreAtK(s, k, false), true
}

// LeaveOneOutScoreAtK returns, for the statistic ScoreAtKMean(tasks, k),
// the change from leaving out each run (each score of each task) and each
// task, each sorted by |change| descending (ties: task, then index). A run
// whose removal leaves its task with fewer than k runs drops that task
// from the mean, as DropShort does. Every Without equals ScoreAtKMean on
// the data without that run or task: only the affected task's term is
// recomputed, and the mean is summed again in task order.
func LeaveOneOutScoreAtK(tasks []TaskScores, k int) ([]RunInfluence, []TaskInfluence) {
	full := ScoreAtKMean(tasks, k)
	vals := make([]float64, len(tasks))
	ok := make([]bool, len(tasks))
	for i, t := range tasks {
		vals[i], ok[i] = taskScoreAtK(t.Scores, t.Random, k)
	}
	meanWith := func(skip int, v float64, vok bool) float64 {
		return weightedTaskMean(tasks, vals, ok, skip, v, vok)
	}
	var runs []RunInfluence
	tinf := make([]TaskInfluence, 0, len(tasks))
	buf := []float64{}
	for i, t := range tasks {
		for j, s := range t.Scores {
			buf = append(buf[:0], t.Scores[:j]...)
			buf = append(buf, t.Scores[j+1:]...)
			v, o := taskScoreAtK(buf, t.Random, k)
			w := meanWith(i, v, o)
			runs = append(runs, RunInfluence{Task: t.Task, Index: j, Value: s, Without: w, Change: w - full})
		}
		w := meanWith(i, 0, false)
		tinf = append(tinf, TaskInfluence{Task: t.Task, Runs: len(t.Scores), Without: w, Change: w - full})
	}
	sortInfluence(runs, tinf)
	return runs, tinf
}

// FinalSuccessMean is SuccessRates' headline Final: the mean over tasks of
// per-task final-success rates (NaN without runs).
func FinalSuccessMean(runs []OutcomeRun) float64 {
	succ, n, names := finalByTask(runs, -1)
	if len(names) == 0 {
		return math.NaN()
	}
	var s float64
	for _, t := range names {
		s += succ[t] / n[t]
	}
	return s / float64(len(names))
}

// finalByTask counts successes and runs per task, leaving out runs[skip].
func finalByTask(runs []OutcomeRun, skip int) (map[string]float64, map[string]float64, []string) {
	succ, n := map[string]float64{}, map[string]float64{}
	for i, r := range runs {
		if i == skip {
			continue
		}
		n[r.Task]++
		if r.Final {
			succ[r.Task]++
		}
	}
	names := make([]string, 0, len(n))
	for t := range n {
		names = append(names, t)
	}
	sort.Strings(names)
	return succ, n, names
}

// LeaveOneOutSuccess returns, for FinalSuccessMean(runs), the change from
// leaving out each run (Index into runs) and each task, sorted by |change|
// descending. A task whose only run is left out leaves the mean.
func LeaveOneOutSuccess(runs []OutcomeRun) ([]RunInfluence, []TaskInfluence) {
	full := FinalSuccessMean(runs)
	out := make([]RunInfluence, len(runs))
	for i, r := range runs {
		w := FinalSuccessMean(without(runs, i))
		v := 0.0
		if r.Final {
			v = 1
		}
		out[i] = RunInfluence{Task: r.Task, Index: i, Value: v, Without: w, Change: w - full}
	}
	_, n, names := finalByTask(runs, -1)
	tinf := make([]TaskInfluence, len(names))
	for i, t := range names {
		var rest []OutcomeRun
		for _, r := range runs {
			if r.Task != t {
				rest = append(rest, r)
			}
		}
		w := FinalSuccessMean(rest)
		tinf[i] = TaskInfluence{Task: t, Runs: int(n[t]), Without: w, Change: w - full}
	}
	sortInfluence(out, tinf)
	return out, tinf
}

func without[T any](x []T, i int) []T {
	out := make([]T, 0, len(x)-1)
	out = append(out, x[:i]...)
	return append(out, x[i+1:]...)
}

func absChange(c float64) float64 {
	if math.IsNaN(c) {
		return math.Inf(1)
	}
	return math.Abs(c)
}

func sortInfluence(runs []RunInfluence, tasks []TaskInfluence) {
	sort.SliceStable(runs, func(i, j int) bool {
		a, b := absChange(runs[i].Change), absChange(runs[j].Change)
		if a != b {
			return a > b
		}
		if runs[i].Task != runs[j].Task {
			return runs[i].Task < runs[j].Task
		}
		return runs[i].Index < runs[j].Index
	})
	sort.SliceStable(tasks, func(i, j int) bool {
		a, b := absChange(tasks[i].Change), absChange(tasks[j].Change)
		if a != b {
			return a > b
		}
		return tasks[i].Task < tasks[j].Task
	})
}

// RemovalSet is the result of GreedyRemoval.
type RemovalSet struct {
	Removed []int     // indices of the removed units, in the order removed
	Path    []float64 // the statistic after each removal
	Crossed bool      // the statistic crossed the threshold within the bound
}

// GreedyRemoval finds a small set of units (runs) whose removal moves a
// statistic across threshold: from above (≥) to below, or from below to
// at-or-above. stat evaluates the statistic with removed[i] true for the
// units left out. At each step it removes the unit whose removal moves the
// statistic furthest toward the threshold (ties: lowest index; a removal
// that makes the statistic NaN is never chosen), and stops when the
// threshold is crossed or after maxRemove removals. Greedy: the set is
// small but not guaranteed minimal. Cost: maxRemove · n evaluations of stat.
func GreedyRemoval(n int, stat func(removed []bool) float64, threshold float64, maxRemove int) RemovalSet {
	removed := make([]bool, n)
	cur := stat(removed)
	var res RemovalSet
	above := cur >= threshold
	crossed := func(v float64) bool {
		if above {
			return v < threshold
		}
		return v >= threshold
	}
	for step := 0; step < maxRemove && !crossed(cur); step++ {
		best, bestV := -1, 0.0
		for i := 0; i < n; i++ {
			if removed[i] {
				continue
			}
			removed[i] = true
			v := stat(removed)
			removed[i] = false
			if math.IsNaN(v) {
				continue
			}
			if best < 0 || (above && v < bestV) || (!above && v > bestV) {
				best, bestV = i, v
			}
		}
		if best < 0 {
			break
		}
		removed[best] = true
		cur = bestV
		res.Removed = append(res.Removed, best)
		res.Path = append(res.Path, cur)
	}
	res.Crossed = crossed(cur)
	return res
}

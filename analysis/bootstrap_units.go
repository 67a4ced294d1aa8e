package analysis

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
)

// UnitBootstrap is a percentile bootstrap of stat(mean_1, …, mean_S), where
// mean_s is side s's mean over tasks of each task's score@k (k = ks[s][j]
// for task j, 1 ≤ k ≤ runs; a random-selection task scores its mean), for
// a choice of what is resampled. The sides share their task list: task j
// of every side is the same task, so a drawn task is drawn for all sides
// (a paired design). Replicate b draws from PCG(seed, b):
//
//	BootRuns:         for each task j in order, for each side, draw its n
//	                  runs with replacement (tasks fixed: METR's score@k
//	                  bootstrap, with another generator layout);
//	BootTasks:        m times, draw a task i uniformly; each side uses the
//	                  task's observed runs (task sampling only);
//	BootHierarchical: m times, draw a task i, then for each side draw its
//	                  runs with replacement (analysis.Compare's bootstrap:
//	                  with the same seed the same replicates).
//
// The interval is the (1∓level)/2 quantiles (type 7) of the replicates
// whose stat is finite; used counts them. BootFamilies is an error: score@k
// data carry no families.
func UnitBootstrap(sides [][]TaskScores, ks [][]int, unit BootUnit, boot int, seed uint64, level float64, stat func([]float64) float64) (lo, hi float64, used int, err error) {
	lo, hi = math.NaN(), math.NaN()
	if len(sides) == 0 || len(sides[0]) == 0 {
		return lo, hi, 0, errors.New("analysis: no task to resample")
	}
	m := len(sides[0])
	for s := range sides {
		if len(sides[s]) != m || len(ks[s]) != m {
			return lo, hi, 0, errors.New("analysis: the sides must share their tasks")
		}
		for j, t := range sides[s] {
			if t.Task != sides[0][j].Task {
				return lo, hi, 0, fmt.Errorf("analysis: task %d is %s on one side and %s on another", j, sides[0][j].Task, t.Task)
			}
			if k := ks[s][j]; k < 1 || k > len(t.Scores) {
				return lo, hi, 0, fmt.Errorf("analysis: task %s: k = %d with %d runs", t.Task, k, len(t.Scores))
			}
		}
	}
	if unit == BootFamilies {
		return lo, hi, 0, errors.New("analysis: score@k data have no families to resample")
	}
	if !(level > 0 && level < 1) {
		return lo, hi, 0, fmt.Errorf("analysis: confidence level %v is not in (0, 1)", level)
	}
	means := make([]float64, len(sides))
	bufs := make([][]float64, len(sides))
	draw := func(rng *rand.Rand, s []float64, buf []float64) []float64 {
		buf = buf[:0]
		for range s {
			buf = append(buf, s[rng.IntN(len(s))])
		}
		return buf
	}
	var reps []float64
	for b := 0; b < boot; b++ {
		rng := rand.New(rand.NewPCG(seed, uint64(b)))
		clear(means)
		for j := 0; j < m; j++ {
			i := j
			if unit != BootRuns {
				i = rng.IntN(m)
			}
			for s := range sides {
				t := sides[s][i]
				scores := t.Scores
				if unit != BootTasks {
					bufs[s] = draw(rng, t.Scores, bufs[s])
					scores = bufs[s]
				}
				means[s] += ScoreAtK(scores, ks[s][i], t.Random)
			}
		}
		for s := range means {
			means[s] /= float64(m)
		}
		if v := stat(means); !math.IsNaN(v) && !math.IsInf(v, 0) {
			reps = append(reps, v)
		}
	}
	if len(reps) == 0 {
		return lo, hi, 0, nil
	}
	sort.Float64s(reps)
	return QuantileType7(reps, (1-level)/2), QuantileType7(reps, (1+level)/2), len(reps), nil
}

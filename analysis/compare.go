package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
)

// PercentileOfScore returns the percentile rank of x in sample (0–100):
//
//	100 · (#{s < x} + #{s ≤ x}) / (2n)
//
// the average of the strict and weak ranks, so ties count half. Matches
// scipy.stats.percentileofscore(sample, x, kind="mean"). NaN values of
// sample are ignored; the result is NaN when none is left.
func PercentileOfScore(sample []float64, x float64) float64 {
	lt, le, n := 0, 0, 0
	for _, s := range sample {
		if math.IsNaN(s) {
			continue
		}
		n++
		if s < x {
			lt++
		}
		if s <= x {
			le++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return 100 * float64(lt+le) / float64(2*n)
}

// MeanOfPercentiles returns, for each p in ps (0–100), the mean over tasks
// of the task's p-th percentile (linear interpolation, numpy's default,
// NaN values dropped; tasks without values skipped). This is how METR draws
// the "Human 8h performance" lines: a mean of per-task percentiles, not a
// percentile of pooled scores (eval-analysis-public
// src/wrangle/human_mean_of_percentiles.py @3a947ac).
func MeanOfPercentiles(tasks []TaskScores, ps []float64) []float64 {
	out := make([]float64, len(ps))
	for i, p := range ps {
		if p < 0 || p > 100 {
			panic("analysis: percentile outside [0, 100]")
		}
		var sum float64
		n := 0
		for _, t := range tasks {
			var v []float64
			for _, s := range t.Scores {
				if !math.IsNaN(s) {
					v = append(v, s)
				}
			}
			if len(v) == 0 {
				continue
			}
			sort.Float64s(v)
			sum += QuantileType7(v, p/100)
			n++
		}
		out[i] = math.NaN()
		if n > 0 {
			out[i] = sum / float64(n)
		}
	}
	return out
}

// Side is one group of a comparison: its runs per task and the k of its
// score@k (1 for a single run per attempt).
type Side struct {
	Tasks []TaskScores
	K     int
}

// Comparison is A versus B over the tasks they share.
type Comparison struct {
	Tasks                []string // tasks in both groups with at least K runs on each side
	EstimateA, EstimateB float64  // mean over Tasks of each side's score@k
	Ratio, Diff          float64  // EstimateA/EstimateB, EstimateA − EstimateB
	RatioLow, RatioHigh  float64  // bootstrap intervals (NaN without)
	DiffLow, DiffHigh    float64
	Warnings             []error
}

// Compare computes the ratio and difference of two groups' mean score@k
// over their common tasks, with a paired hierarchical bootstrap: each
// replicate draws the common tasks with replacement (the same draw for both
// sides, so task difficulty cancels), then each drawn task's runs with
// replacement on each side; replicate b draws from PCG(opt.Seed, b). A
// replicate whose B mean is 0 has no ratio and is left out of the ratio
// interval (a warning counts them). The intervals are percentile intervals,
// or with opt.Interval = BCa bias-corrected and accelerated ones (bcaLevels,
// with the leave-one-task-out jackknife of compareJackknife), or with
// opt.Interval = Studentized bootstrap-t intervals over tasks of the
// difference and of log(ratio) (compareStudentized, which draws its own
// replicates; where one cannot be formed it falls back to the percentile
// interval, with a warning).
func Compare(a, b Side, opt ScoreAtKOptions) (Comparison, error) {
	c := Comparison{Ratio: math.NaN(), RatioLow: math.NaN(), RatioHigh: math.NaN(), DiffLow: math.NaN(), DiffHigh: math.NaN()}
	if a.K < 1 || b.K < 1 {
		return c, fmt.Errorf("analysis: k must be ≥ 1")
	}
	bt := map[string]TaskScores{}
	for _, t := range b.Tasks {
		bt[t.Task] = t
	}
	var ta, tb []TaskScores
	var short []string
	for _, t := range a.Tasks {
		u, ok := bt[t.Task]
		if !ok {
			continue
		}
		if len(t.Scores) < a.K || len(u.Scores) < b.K {
			short = append(short, t.Task)
			continue
		}
		ta, tb = append(ta, t), append(tb, u)
		c.Tasks = append(c.Tasks, t.Task)
	}
	if len(short) > 0 {
		c.Warnings = append(c.Warnings, fmt.Errorf("%d shared tasks have too few runs for k and are left out: %v", len(short), short))
	}
	if len(c.Tasks) == 0 {
		return c, fmt.Errorf("analysis: the groups share no task with enough runs")
	}
	meanSide := func(ts []TaskScores, k int) float64 {
		var s float64
		for _, t := range ts {
			s += ScoreAtK(t.Scores, k, t.Random)
		}
		return s / float64(len(ts))
	}
	c.EstimateA, c.EstimateB = meanSide(ta, a.K), meanSide(tb, b.K)
	c.Diff = c.EstimateA - c.EstimateB
	if c.EstimateB != 0 {
		c.Ratio = c.EstimateA / c.EstimateB
	}
	if opt.Boot == 0 {
		return c, nil
	}
	var st studentComparison
	if opt.Interval == Studentized {
		st = compareStudentized(ta, tb, a.K, b.K, c.Diff, c.Ratio, opt)
		c.Warnings = append(c.Warnings, st.warnings...)
		if st.diffOK && st.ratioOK {
			c.DiffLow, c.DiffHigh, c.RatioLow, c.RatioHigh = st.diffLow, st.diffHigh, st.ratioLow, st.ratioHigh
			return c, nil
		}
	}
	reps := compareReplicates(ta, tb, a.K, b.K, opt)
	diffs := append([]float64(nil), reps.diff...)
	var ratios []float64
	for _, r := range reps.ratio {
		if !math.IsNaN(r) {
			ratios = append(ratios, r)
		}
	}
	sort.Float64s(diffs)
	lo, hi := (1-opt.Level)/2, (1+opt.Level)/2
	dlo, dhi, rlo, rhi := lo, hi, lo, hi
	if opt.Interval == BCa {
		jd, jr := compareJackknife(ta, tb, a.K, b.K)
		var err error
		if dlo, dhi, err = bcaLevels(diffs, c.Diff, [][]float64{jd}, opt.Level); err != nil {
			c.Warnings = append(c.Warnings, fmt.Errorf("difference: %w", err))
		}
		if len(ratios) > 0 && !math.IsNaN(c.Ratio) && jr != nil {
			sort.Float64s(ratios)
			if rlo, rhi, err = bcaLevels(ratios, c.Ratio, [][]float64{jr}, opt.Level); err != nil {
				c.Warnings = append(c.Warnings, fmt.Errorf("ratio: %w", err))
			}
		}
	}
	c.DiffLow, c.DiffHigh = QuantileType7(diffs, dlo), QuantileType7(diffs, dhi)
	if len(ratios) > 0 {
		sort.Float64s(ratios)
		c.RatioLow, c.RatioHigh = QuantileType7(ratios, rlo), QuantileType7(ratios, rhi)
	}
	if st.diffOK {
		c.DiffLow, c.DiffHigh = st.diffLow, st.diffHigh
	}
	if st.ratioOK {
		c.RatioLow, c.RatioHigh = st.ratioLow, st.ratioHigh
	}
	if n := opt.Boot - len(ratios); n > 0 {
		c.Warnings = append(c.Warnings, fmt.Errorf("%d of %d replicates had a B mean of 0 and no ratio", n, opt.Boot))
	}
	return c, nil
}

// compareReps are the bootstrap replicates of Compare, in replicate order:
// the means of each side, their difference and ratio (NaN where B's mean is
// 0).
type compareReps struct {
	a, b, diff, ratio []float64
}

// compareReplicates draws Compare's paired hierarchical bootstrap:
// replicate r from PCG(opt.Seed, r) draws the common tasks with replacement,
// then each drawn task's runs with replacement on side A, then on side B.
func compareReplicates(ta, tb []TaskScores, ka, kb int, opt ScoreAtKOptions) compareReps {
	m := len(ta)
	out := compareReps{a: make([]float64, opt.Boot), b: make([]float64, opt.Boot), diff: make([]float64, opt.Boot), ratio: make([]float64, opt.Boot)}
	bufA, bufB := []float64{}, []float64{}
	resample := func(rng *rand.Rand, s []float64, buf []float64) []float64 {
		buf = buf[:0]
		for range s {
			buf = append(buf, s[rng.IntN(len(s))])
		}
		return buf
	}
	for r := 0; r < opt.Boot; r++ {
		rng := rand.New(rand.NewPCG(opt.Seed, uint64(r)))
		var sa, sb float64
		for j := 0; j < m; j++ {
			i := rng.IntN(m)
			bufA = resample(rng, ta[i].Scores, bufA)
			bufB = resample(rng, tb[i].Scores, bufB)
			sa += ScoreAtK(bufA, ka, ta[i].Random)
			sb += ScoreAtK(bufB, kb, tb[i].Random)
		}
		sa, sb = sa/float64(m), sb/float64(m)
		out.a[r], out.b[r], out.diff[r], out.ratio[r] = sa, sb, sa-sb, math.NaN()
		if sb != 0 {
			out.ratio[r] = sa / sb
		}
	}
	return out
}

// compareJackknife returns the leave-one-task-out difference and ratio of
// the side means (the task is the outer resampling unit), for BCa's
// acceleration a = Σ U³ / (6·(Σ U²)^{3/2}), U_t = (m − 1)(θ̄ − θ_(−t))
// (Efron & Tibshirani 1993, Eq. 14.15; scipy.stats.bootstrap's _bca_interval
// with the task as the observation). The ratio is nil if a left-out mean
// of B is 0; both are nil with a single task.
func compareJackknife(ta, tb []TaskScores, ka, kb int) ([]float64, []float64) {
	m := len(ta)
	if m < 2 {
		return nil, nil
	}
	ea, eb, sa, sb := taskEstimates(ta, tb, ka, kb)
	jd, jr := make([]float64, m), make([]float64, m)
	for j := range ta {
		a, b := (sa-ea[j])/float64(m-1), (sb-eb[j])/float64(m-1)
		jd[j] = a - b
		if b == 0 {
			jr = nil
		} else if jr != nil {
			jr[j] = a / b
		}
	}
	return jd, jr
}

// taskEstimates returns each common task's score@k on side A and side B
// and their sums.
func taskEstimates(ta, tb []TaskScores, ka, kb int) (ea, eb []float64, sa, sb float64) {
	ea, eb = make([]float64, len(ta)), make([]float64, len(ta))
	for j := range ta {
		ea[j], eb[j] = ScoreAtK(ta[j].Scores, ka, ta[j].Random), ScoreAtK(tb[j].Scores, kb, tb[j].Random)
		sa += ea[j]
		sb += eb[j]
	}
	return ea, eb, sa, sb
}

package analysis

import (
	"math"
	"slices"
)

// ScoreAtKWeights returns the weights of the exact score@k estimator for n
// scores sorted in descending order: score@k = Σ_i w_i·s_(i) with
//
//	w_i = C(n−i, k−1) / C(n, k),  i = 1..n
//
// the probability that the i-th best of n runs is the best of k drawn
// without replacement (arXiv 2406.06647, Algorithm 1; METR
// eval-analysis-public src/stats/statistics.py @3a947ac). They are computed
// by the ratio w_1 = k/n, w_(i+1) = w_i·(n−i−k+1)/(n−i), which involves no
// large binomials, so n up to 10^5 and beyond is stable (relative error of a
// weight ≤ ~2i ulp); weights past position n−k+1 are 0. The result is
// appended to dst[:0]. Panics unless 1 ≤ k ≤ n.
func ScoreAtKWeights(n, k int, dst []float64) []float64 {
	if k < 1 || k > n {
		panic("analysis: score@k needs 1 ≤ k ≤ n")
	}
	w := slices.Grow(dst[:0], n)[:n]
	clear(w)
	w[0] = float64(k) / float64(n)
	for i := 1; i <= n-k; i++ {
		w[i] = w[i-1] * float64(n-i-k+1) / float64(n-i)
	}
	return w
}

// ScoreAtK returns the expected maximum of k scores drawn without
// replacement from scores (in any order; NaN not allowed):
//
//	score@k = Σ_i C(n−i, k−1)/C(n, k) · s_(i),  s_(1) ≥ … ≥ s_(n)
//
// It equals the mean at k = 1 and the maximum at k = n, and is an unbiased
// estimate (a U-statistic) of E[max of k independent runs]. With
// selection random (a task whose best-of-k pick is blind, e.g. RE-Bench's
// small_scaling_law) the expected pick is the mean for every k.
// Matches the numpy reference testdata/reference/scoreatk.py. Panics unless
// 1 ≤ k ≤ len(scores) or on NaN.
func ScoreAtK(scores []float64, k int, random bool) float64 {
	n := len(scores)
	if k < 1 || k > n {
		panic("analysis: score@k needs 1 ≤ k ≤ n")
	}
	if random {
		return mean(scores)
	}
	s := sortedDesc(scores)
	w := ScoreAtKWeights(n, k, nil)
	var sum float64
	for i, x := range s {
		if w[i] == 0 {
			break
		}
		sum += float64(w[i] * x)
	}
	return sum
}

func mean(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// sortedDesc returns a sorted (descending) copy; it panics on NaN.
func sortedDesc(x []float64) []float64 {
	s := slices.Clone(x)
	for _, v := range s {
		if math.IsNaN(v) {
			panic("analysis: NaN score")
		}
	}
	slices.SortFunc(s, func(a, b float64) int {
		switch {
		case a > b:
			return -1
		case a < b:
			return 1
		}
		return 0
	})
	return s
}

package analysis

import (
	"math"
	"sort"
)

// Combinations enumerates every combination of choices with sizes[i]
// values each, as index vectors in lexicographic order (the last choice
// varies fastest). The first combination is all zeros (every choice at its
// default). It returns nil when a size is < 1.
func Combinations(sizes []int) [][]int {
	n := 1
	for _, s := range sizes {
		if s < 1 {
			return nil
		}
		n *= s
	}
	out := make([][]int, 0, n)
	cur := make([]int, len(sizes))
	for {
		out = append(out, append([]int(nil), cur...))
		i := len(sizes) - 1
		for ; i >= 0; i-- {
			cur[i]++
			if cur[i] < sizes[i] {
				break
			}
			cur[i] = 0
		}
		if i < 0 {
			return out
		}
	}
}

// OneAtATime reports whether combination c differs from the defaults (all
// zeros) in choice i at most: the cells that vary choice i alone, holding
// every other choice at its default.
func OneAtATime(c []int, i int) bool {
	for j, v := range c {
		if j != i && v != 0 {
			return false
		}
	}
	return true
}

// Spread summarizes the estimates of a set of multiverse cells (METR's
// multiverse boxplot summarizes a headline the same way, per source of
// variation: eval-analysis-public @2cd6540 metrics/multiverse_boxplot.yaml).
type Spread struct {
	Cells    int     // cells in the set
	N        int     // cells with a finite estimate (the rest are left out)
	Min, Max float64 // smallest and largest finite estimate
	Range    float64 // Max − Min
	Q10, Q50 float64 // type-7 quantiles of the finite estimates (numpy.percentile default)
	Q90      float64
	// CILow and CIHigh bound the union of the cells' intervals (the
	// smallest lower and the largest upper bound among cells with a finite
	// interval); CIWidth = CIHigh − CILow. NaN when no cell has one.
	CILow, CIHigh, CIWidth float64
}

// SummarizeSpread computes the Spread of estimates est with intervals
// [lo[i], hi[i]] (NaN: none). In R: range(est), diff(range(est)),
// quantile(est, c(.1, .5, .9), type = 7), c(min(lo), max(hi)).
func SummarizeSpread(est, lo, hi []float64) Spread {
	nan := math.NaN()
	s := Spread{Cells: len(est), Min: nan, Max: nan, Range: nan, Q10: nan, Q50: nan, Q90: nan, CILow: nan, CIHigh: nan, CIWidth: nan}
	var xs []float64
	for i, x := range est {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			xs = append(xs, x)
		}
		l, h := lo[i], hi[i]
		if math.IsNaN(l) || math.IsNaN(h) || math.IsInf(l, 0) || math.IsInf(h, 0) {
			continue
		}
		if math.IsNaN(s.CILow) || l < s.CILow {
			s.CILow = l
		}
		if math.IsNaN(s.CIHigh) || h > s.CIHigh {
			s.CIHigh = h
		}
	}
	if !math.IsNaN(s.CILow) {
		s.CIWidth = s.CIHigh - s.CILow
	}
	s.N = len(xs)
	if s.N == 0 {
		return s
	}
	sort.Float64s(xs)
	s.Min, s.Max = xs[0], xs[len(xs)-1]
	s.Range = s.Max - s.Min
	s.Q10, s.Q50, s.Q90 = QuantileType7(xs, 0.1), QuantileType7(xs, 0.5), QuantileType7(xs, 0.9)
	return s
}

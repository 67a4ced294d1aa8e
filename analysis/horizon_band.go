package analysis

import (
	"math"
	"sort"
)

// HorizonTrendBand is the confidence band of the horizon trend that METR
// draws around the fitted line (plot/bootstrap_ci.py,
// compute_bootstrap_confidence_region [inference: the band's exact
// definition is read from the plot, not from code]): on every bootstrap
// replicate b of res, the trend is refitted over the agents given (the
// frontier of the point fit, as HorizonDoublingTime does), leaving out a
// replicate's p50 that is NaN, infinite or < 1e-3, and evaluated at each
// day x of grid, ŷ_b(x) = exp(a_b + s_b·x) minutes; the band is the
// (1−level)/2 and (1+level)/2 quantiles (type 7) of ŷ_b(x) over the
// replicates with at least two points and distinct days. In numpy, per x:
//
//	np.quantile(np.exp(a + s*x), [(1-level)/2, (1+level)/2])
//
// with (s, a) = np.polyfit(days, np.log(p50), 1) per replicate. used is
// the number of replicates fitted; lo and hi are NaN when none was.
func HorizonTrendBand(res *HorizonResult, q50 int, agents []string, days map[string]float64, grid []float64, level float64) (lo, hi []float64, used int) {
	idx := map[string]int{}
	for i, a := range res.Agents {
		idx[a.Agent] = i
	}
	var fits [][2]float64 // slope, intercept
	for _, rep := range res.Boot {
		var bp, bd []float64
		for _, a := range agents {
			i, ok := idx[a]
			d, dok := days[a]
			if !ok || !dok {
				continue
			}
			v := rep[i][q50]
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 1e-3 {
				continue
			}
			bp, bd = append(bp, v), append(bd, d)
		}
		s, a, err := FitHorizonTrend(bp, bd)
		if err == nil {
			fits = append(fits, [2]float64{s, a})
		}
	}
	lo, hi = make([]float64, len(grid)), make([]float64, len(grid))
	pred := make([]float64, len(fits))
	for j, x := range grid {
		if len(fits) == 0 {
			lo[j], hi[j] = math.NaN(), math.NaN()
			continue
		}
		for b, f := range fits {
			pred[b] = detExp(f[1] + float64(f[0]*x))
		}
		sort.Float64s(pred)
		lo[j], hi[j] = QuantileType7(pred, (1-level)/2), QuantileType7(pred, (1+level)/2)
	}
	return lo, hi, len(fits)
}

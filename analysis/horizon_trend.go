package analysis

import (
	"errors"
	"math"
	"sort"
)

// HorizonTrend is the exponential trend of p50 over release dates.
type HorizonTrend struct {
	Agents       []string // the frontier agents fitted, by release date
	Slope        float64  // d ln(p50)/d day
	Intercept    float64  // ln(p50) at day 0
	DoublingDays float64  // ln 2 / Slope
	// Bootstrap: median and (1∓Level)/2 quantiles of the positive doubling
	// times of the replicates (NaN without bootstrap or none positive).
	BootMedian, CILow, CIHigh float64
	BootUsed                  int // replicates with a positive doubling time
}

// ErrTrendPoints is returned when fewer than two frontier agents have a
// usable p50.
var ErrTrendPoints = errors.New("analysis: fewer than two frontier agents with p50 ≥ 1e-3 minutes")

// FrontierAgents returns the indices of the agents on the running frontier
// (METR's get_sota_agents): agent i is kept when p50[i] is at least the
// largest p50 of the agents released on or before its release day
// (days[i], e.g. days since 1970-01-01). Indices are sorted by day, then
// by p50 index order.
func FrontierAgents(p50, days []float64) []int {
	idx := make([]int, len(p50))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return days[idx[a]] < days[idx[b]] })
	var out []int
	for _, i := range idx {
		best := math.Inf(-1)
		for j := range p50 {
			if days[j] <= days[i] && !math.IsNaN(p50[j]) {
				best = math.Max(best, p50[j])
			}
		}
		if p50[i] >= best {
			out = append(out, i)
		}
	}
	return out
}

// FitHorizonTrend fits ln(max(p50, 1e-3)) = Intercept + Slope·day by
// ordinary least squares over the given points (METR's fit_trendline,
// plot/logistic.py, with matplotlib date2num days; in R:
// lm(log(pmax(p50, 1e-3)) ~ day)) and returns DoublingDays = ln 2 / Slope.
// Points with NaN or infinite p50 are left out.
func FitHorizonTrend(p50, days []float64) (slope, intercept float64, err error) {
	var xs, ys []float64
	for i, p := range p50 {
		if math.IsNaN(p) || math.IsInf(p, 0) {
			continue
		}
		xs = append(xs, days[i])
		ys = append(ys, detLog(math.Max(p, 1e-3)))
	}
	if len(xs) < 2 {
		return math.NaN(), math.NaN(), ErrTrendPoints
	}
	mx, my := mean(xs), mean(ys)
	var sxy, sxx float64
	for i := range xs {
		sxy += float64((xs[i] - mx) * (ys[i] - my))
		sxx += float64((xs[i] - mx) * (xs[i] - mx))
	}
	if sxx == 0 {
		return math.NaN(), math.NaN(), errors.New("analysis: all frontier agents share one release date")
	}
	slope = sxy / sxx
	return slope, my - float64(slope*mx), nil
}

// HorizonDoublingTime fits the doubling time over the frontier agents of res (p50 =
// res's horizons at quantile index q50; days by agent name, agents without
// a date are left out) and its bootstrap interval: the same frontier
// agents refitted on every replicate, leaving out a replicate's p50 that is
// NaN, infinite or < 1e-3 (METR's compute_bootstrap_confidence_region), and
// the median and quantiles of the positive doubling times.
func HorizonDoublingTime(res *HorizonResult, q50 int, days map[string]float64, level float64) (*HorizonTrend, error) {
	var idx []int
	var p, dd []float64
	for i, a := range res.Agents {
		if d, ok := days[a.Agent]; ok {
			idx = append(idx, i)
			p = append(p, a.Horizons[q50])
			dd = append(dd, d)
		}
	}
	var front []int
	for _, k := range FrontierAgents(p, dd) {
		front = append(front, idx[k])
	}
	tr := &HorizonTrend{BootMedian: math.NaN(), CILow: math.NaN(), CIHigh: math.NaN()}
	fp, fd := make([]float64, len(front)), make([]float64, len(front))
	for k, i := range front {
		tr.Agents = append(tr.Agents, res.Agents[i].Agent)
		fp[k], fd[k] = res.Agents[i].Horizons[q50], days[res.Agents[i].Agent]
	}
	var err error
	tr.Slope, tr.Intercept, err = FitHorizonTrend(fp, fd)
	if err != nil {
		return tr, err
	}
	tr.DoublingDays = math.Ln2 / tr.Slope
	var dts []float64
	for _, rep := range res.Boot {
		var bp, bd []float64
		for k, i := range front {
			v := rep[i][q50]
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 1e-3 {
				continue
			}
			bp, bd = append(bp, v), append(bd, fd[k])
		}
		s, _, err := FitHorizonTrend(bp, bd)
		if err == nil && s > 0 {
			dts = append(dts, math.Ln2/s)
		}
	}
	tr.BootUsed = len(dts)
	if len(dts) > 0 {
		sort.Float64s(dts)
		tr.BootMedian = QuantileType7(dts, 0.5)
		tr.CILow, tr.CIHigh = QuantileType7(dts, (1-level)/2), QuantileType7(dts, (1+level)/2)
	}
	return tr, nil
}

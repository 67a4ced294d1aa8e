package analysis

import (
	"fmt"
	"math"
	"sort"
)

// RateBin is the empirical success rate of one agent's runs whose human
// minutes fall in [Lo, Hi).
type RateBin struct {
	Lo, Hi  float64 // bin edges, minutes
	Minutes float64 // geometric mean of the runs' human minutes
	N       int     // runs
	Rate    float64 // mean Y of the runs (unweighted)
	CILow   float64 // Wilson score interval at the level
	CIHigh  float64
}

// AgentBins are one agent's bins, in increasing minutes.
type AgentBins struct {
	Agent string
	Bins  []RateBin
}

// HorizonBins bins each agent's runs by log2(human minutes) into bins
// width wide (width 2: [1, 4), [4, 16), … minutes), aligned at multiples
// of width, and gives each non-empty bin its runs' unweighted success rate
// with a Wilson score interval at level (Y may be fractional: its sum
// counts as the successes). These are the empirical points METR draws
// beside each agent's fitted logistic (time-horizon figures). The runs
// are not weighted (the fit's invsqrt task weights are not applied), so a
// bin with many runs of one task leans towards that task. Agents are
// sorted.
func HorizonBins(runs []HorizonRun, width, level float64) ([]AgentBins, error) {
	if !(width > 0) || math.IsInf(width, 0) {
		return nil, fmt.Errorf("analysis: bin width %v (log2 minutes) must be positive", width)
	}
	if !(level > 0 && level < 1) {
		return nil, fmt.Errorf("analysis: level %v must be between 0 and 1", level)
	}
	type acc struct {
		n          int
		sumY, logx float64
	}
	by := map[string]map[int]*acc{}
	for _, r := range runs {
		if !(r.HumanMinutes > 0) || math.IsInf(r.HumanMinutes, 0) || math.IsNaN(r.Y) {
			continue
		}
		b := int(math.Floor(math.Log2(r.HumanMinutes) / width))
		if by[r.Agent] == nil {
			by[r.Agent] = map[int]*acc{}
		}
		a := by[r.Agent][b]
		if a == nil {
			a = &acc{}
			by[r.Agent][b] = a
		}
		a.n++
		a.sumY += r.Y
		a.logx += math.Log2(r.HumanMinutes)
	}
	z := NormalQuantile((1 + level) / 2)
	agents := make([]string, 0, len(by))
	for a := range by {
		agents = append(agents, a)
	}
	sort.Strings(agents)
	out := make([]AgentBins, 0, len(agents))
	for _, name := range agents {
		idx := make([]int, 0, len(by[name]))
		for b := range by[name] {
			idx = append(idx, b)
		}
		sort.Ints(idx)
		ab := AgentBins{Agent: name}
		for _, b := range idx {
			a := by[name][b]
			lo, hi := Wilson(a.sumY, a.n, z)
			ab.Bins = append(ab.Bins, RateBin{Lo: math.Exp2(float64(b) * width), Hi: math.Exp2(float64(b+1) * width),
				Minutes: math.Exp2(a.logx / float64(a.n)), N: a.n, Rate: a.sumY / float64(a.n), CILow: lo, CIHigh: hi})
		}
		out = append(out, ab)
	}
	return out, nil
}

// Wilson is the Wilson score interval for successes out of n trials at
// normal quantile z (1.96 for 95%): (p̂ + z²/2n ± z·√(p̂(1−p̂)/n + z²/4n²)) /
// (1 + z²/n). It stays in [0, 1] and is not degenerate at p̂ = 0 or 1.
// n = 0 gives NaN.
func Wilson(successes float64, n int, z float64) (lo, hi float64) {
	if n <= 0 {
		return math.NaN(), math.NaN()
	}
	nf := float64(n)
	p := successes / nf
	z2 := z * z
	den := 1 + z2/nf
	centre := (p + z2/(2*nf)) / den
	half := z * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf)) / den
	return math.Max(0, centre-half), math.Min(1, centre+half)
}

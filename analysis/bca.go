package analysis

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

var stdNormal = distuv.UnitNormal

// jackknife returns, for each task in the mean at Ks[ki], the cross-task
// estimates with one of the task's runs left out (one slice per task, one
// value per run). A task whose k equals its run count is read at k = n−1
// when a run is left out (score@k needs k ≤ n).
func jackknife(prep []preparedTask, ki int) [][]float64 {
	var total, wsum float64
	est := make([]float64, len(prep))
	for j, p := range prep {
		if p.ks[ki] == 0 {
			continue
		}
		est[j] = taskEstimate(p.s, p.ks[ki], p.random)
		total += float64(p.w * est[j])
		wsum += p.w
	}
	out := make([][]float64, 0, len(prep))
	buf := []float64{}
	for j, p := range prep {
		if p.ks[ki] == 0 || len(p.s) < 2 {
			continue
		}
		vals := make([]float64, len(p.s))
		for i := range p.s {
			buf = append(append(buf[:0], p.s[:i]...), p.s[i+1:]...)
			k := min(p.ks[ki], len(buf))
			v := taskEstimate(buf, k, p.random)
			vals[i] = (total - float64(p.w*est[j]) + float64(p.w*v)) / wsum
		}
		out = append(out, vals)
	}
	return out
}

// taskEstimate is score@k of sorted-descending scores.
func taskEstimate(s []float64, k int, random bool) float64 {
	if random {
		return mean(s)
	}
	w := ScoreAtKWeights(len(s), k, nil)
	var sum float64
	for i, x := range s {
		sum += float64(w[i] * x)
	}
	return sum
}

// bcaLevels returns the BCa quantile levels (α1, α2) for replicates reps
// (sorted), the point estimate theta and per-sample jackknife values:
//
//	z0 = Φ⁻¹(rank of theta among reps, ties half; as scipy's _percentile_of_score)
//	U_ji = (n_j − 1)(mean_i θ_ji − θ_ji)
//	a = (1/6) Σ_j Σ_i U_ji³/n_j³ / (Σ_j Σ_i U_ji²/n_j²)^(3/2)
//	α1,2 = Φ(z0 + (z0 + z_α)/(1 − a(z0 + z_α))),  z_α = Φ⁻¹((1 ∓ level)/2)
//
// (Efron & Tibshirani 1993, Eq. 14.14 and 15.36; scipy.stats.bootstrap
// _bca_interval). When every replicate lies on one side of theta, z0 is
// infinite and the percentile levels are returned with a warning.
func bcaLevels(reps []float64, theta float64, jack [][]float64, level float64) (float64, float64, error) {
	lo, hi := (1-level)/2, (1+level)/2
	lt, le := 0, 0
	for _, r := range reps {
		if r < theta {
			lt++
		}
		if r <= theta {
			le++
		}
	}
	p := float64(lt+le) / float64(2*len(reps))
	if p <= 0 || p >= 1 {
		return lo, hi, errors.New("BCa undefined (every replicate on one side of the estimate); percentile interval used")
	}
	z0 := stdNormal.Quantile(p)
	var num, den float64
	for _, v := range jack {
		n := float64(len(v))
		m := mean(v)
		for _, x := range v {
			u := (n - 1) * (m - x)
			num += u * u * u / (n * n * n)
			den += u * u / (n * n)
		}
	}
	a := 0.0
	if den > 0 {
		a = num / (6 * float64(den*math.Sqrt(den))) // den^1.5; math.Pow goes through Exp and Log, whose bits differ between platforms
	}
	adj := func(q float64) float64 {
		z := z0 + stdNormal.Quantile(q)
		return NormalCDF(z0 + z/(1-float64(a*z))) // distuv.UnitNormal.CDF's formula, not inlined where it may fuse
	}
	return adj(lo), adj(hi), nil
}

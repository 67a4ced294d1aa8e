package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
)

// The studentized (bootstrap-t) interval for score@k.
//
// Resampling runs with replacement repeats runs, so score@k of a resample
// is biased low when k is a large fraction of n: its bootstrap expectation
// is the plug-in value V = E_F̂[max of k draws with replacement], not the
// estimate U (the U-statistic, unbiased for the truth). The percentile
// interval is centred on V and misses high (simulated coverage 0.71–0.76
// at k = n/2 for 95 %, docs/scoreatk-coverage.md). The bootstrap-t pivot
// fixes both the centre and the scale: replicate b gives
//
//	t*_b = (U*_b − V) / se*_b
//
// with U*_b the cross-task score@k of the resample, V the cross-task
// plug-in value of the observed runs (the bootstrap world's truth) and
// se*_b the jackknife standard error of U*_b (leave one run out, every
// task, as in bcaLevels):
//
//	se² = Σ_t w_t² · (n_t − 1)/n_t · Σ_i (U_t,(−i) − mean_i U_t,(−i))² / (Σ_t w_t)²
//
// and the interval is [U − t*_(hi)·se, U − t*_(lo)·se] with t*_(lo,hi)
// the (1∓level)/2 quantiles (type 7) of the t*_b (a replicate with
// se*_b = 0 has t*_b = 0 when U*_b = V and is left out, with a warning,
// otherwise) and se the jackknife
// standard error of the observed U (Efron & Tibshirani 1993, §12.5; Davison
// & Hinkley 1997, §5.2.1, Eq. 5.7), each end then clamped into the lowest
// and highest observed score of the tasks in the mean (scoreRange: with two
// runs per task the raw ends often leave it). R's boot::boot.ci(type = "stud") gives
// the same interval (up to its quantile interpolation) when handed
// var.t0 = se², var.t = se*², t0 = U and t = U* − V + U, since its pivot
// (t − t0)/sqrt(var.t) is centred on t0 (testdata/reference/scoreatk_stud.R).
// The leave-one-out
// values come from prefix and suffix sums of the weighted sorted scores,
// O(n) per task, k and replicate. A random-selection task uses k = 1 (its
// mean) throughout; a task read at k = n (TruncateShort) is left out at
// k = n − 1, as bcaLevels's jackknife does.

// studentTask holds what the bootstrap-t needs of one task at each Ks entry.
type studentTask struct {
	wn, wn1 [][]float64 // per Ks entry: ScoreAtKWeights(n, k) and (n−1, min(k, n−1)); nil where dropped
	// For a task with an outcome table (p.exact, few possible resamples):
	// the jackknife variance of every outcome at every Ks entry, in the
	// table's order (jv[o·nk + i]); a replicate is then one draw of an
	// outcome, whose score@k is p.exact's row.
	jv []float64
}

// outcomeJackVars tabulates st.jv for p's outcome table.
func (st *studentTask) outcomeJackVars(p *preparedTask) {
	n := len(p.s)
	r := make([]float64, 0, n)
	loo := make([]float64, n)
	exactOutcomeWalk(n, len(p.gs), func(counts []int) {
		r = r[:0]
		for v, c := range counts {
			for range c {
				r = append(r, p.gs[v])
			}
		}
		for _, w1 := range st.wn1 {
			var v float64
			if w1 != nil {
				v = jackVarSorted(r, w1, loo)
			}
			st.jv = append(st.jv, v)
		}
	})
}

func newStudentTask(p *preparedTask) studentTask {
	n := len(p.s)
	st := studentTask{wn: make([][]float64, len(p.ks)), wn1: make([][]float64, len(p.ks))}
	for i, k := range p.ks {
		if k == 0 {
			continue
		}
		if p.random {
			k = 1
		}
		st.wn[i] = ScoreAtKWeights(n, k, nil)
		if n > 1 {
			st.wn1[i] = ScoreAtKWeights(n-1, min(k, n-1), nil)
		}
	}
	return st
}

// dotRounded is Σ w_i·x_i over the shorter length, each product rounded.
func dotRounded(w, x []float64) float64 {
	var s float64
	for i, v := range w[:min(len(w), len(x))] {
		if v == 0 {
			break // ScoreAtKWeights are 0 from position n−k+2 on
		}
		s += float64(v * x[i])
	}
	return s
}

// jackVarSorted is the jackknife variance of score@k of s (sorted best
// first), with w1 = ScoreAtKWeights(n−1, k'): leaving out position j,
//
//	U_(−j) = Σ_(i<j) w1_i·s_i + Σ_(i>j) w1_(i−1)·s_i
//
// and the variance is (n−1)/n·Σ_j (U_(−j) − mean)². loo has room for n
// values. 0 for n < 2.
func jackVarSorted(s, w1, loo []float64) float64 {
	n := len(s)
	if n < 2 {
		return 0
	}
	loo = loo[:n]
	// Suffix sums first, into loo: loo[j] = Σ_(i>j) w1_(i−1)·s_i.
	var suf float64
	for j := n - 1; j >= 0; j-- {
		loo[j] = suf
		if j > 0 {
			suf += float64(w1[j-1] * s[j])
		}
	}
	var pre, m float64
	for j := range n {
		loo[j] += pre
		m += loo[j]
		if j < n-1 {
			pre += float64(w1[j] * s[j])
		}
	}
	m /= float64(n)
	var ss float64
	for _, v := range loo {
		d := v - m
		ss += float64(d * d)
	}
	return float64(float64(n-1)/float64(n)) * ss
}

// powInt is x^k by repeated squaring (products only, so the same bits on
// every platform).
func powInt(x float64, k int) float64 {
	r := 1.0
	for k > 0 {
		if k&1 == 1 {
			r *= x
		}
		x *= x
		k >>= 1
	}
	return r
}

// ScoreAtKPlugIn returns the plug-in score@k of scores: the expected
// maximum of k draws with replacement from the runs, the bootstrap
// expectation of ScoreAtK of a resample,
//
//	V = Σ_a x_(a) · ((a/n)^k − ((a−1)/n)^k),  x_(1) ≤ … ≤ x_(n)
//
// (the mean for a random-selection task or k = 1). It is lower than
// ScoreAtK for 1 < k and distinct scores. Panics on k < 1 or no scores.
func ScoreAtKPlugIn(scores []float64, k int, random bool) float64 {
	return plugInSorted(sortedDesc(scores), k, random)
}

func plugInSorted(s []float64, k int, random bool) float64 {
	if len(s) == 0 || k < 1 {
		panic("analysis: plug-in score@k needs runs and k ≥ 1")
	}
	if random || k == 1 {
		return mean(s)
	}
	n := len(s)
	var sum float64
	prev := 0.0
	for a := 1; a <= n; a++ { // a-th smallest is s[n−a]
		f := powInt(float64(a)/float64(n), k)
		sum += float64(s[n-a] * (f - prev))
		prev = f
	}
	return sum
}

// studentizedCurve fills points' BootMean and interval by the bootstrap-t
// (see above). Replicate b of task t draws its resample from
// PCG(Seed, t<<32|b) as the percentile path does: by drawCounts, or, for a
// task with an outcome table (scoreatk_exact.go), as one outcome, whose
// score@k and jackknife variance are tabulated once.
func studentizedCurve(prep []preparedTask, opt ScoreAtKOptions, points []ScoreAtKPoint) {
	nk := len(opt.Ks)
	st := make([]studentTask, len(prep))
	maxN := 0
	for ti := range prep {
		st[ti] = newStudentTask(&prep[ti])
		if prep[ti].exact != nil {
			st[ti].outcomeJackVars(&prep[ti])
		}
		maxN = max(maxN, len(prep[ti].s))
	}
	// Observed: U (points[i].Estimate), V and se per k.
	v := make([]float64, nk)
	se := make([]float64, nk)
	wsum := make([]float64, nk)
	loo := make([]float64, maxN)
	for ti, p := range prep {
		for i, k := range p.ks {
			if k == 0 {
				continue
			}
			wsum[i] += p.w
			v[i] += float64(p.w * plugInSorted(p.s, k, p.random))
			if w1 := st[ti].wn1[i]; w1 != nil {
				se[i] += float64(float64(p.w*p.w) * jackVarSorted(p.s, w1, loo))
			}
		}
	}
	for i := range v {
		v[i] /= wsum[i]
		se[i] = math.Sqrt(se[i]) / wsum[i]
	}
	reps := getFloats(2 * opt.Boot * nk) // U* then t*, one column per k
	defer putFloats(reps)
	us, ts := reps[:opt.Boot*nk], reps[opt.Boot*nk:]
	const block = 256
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), (opt.Boot+block-1)/block) {
		wg.Go(func() {
			counts := make([]int32, maxN)
			res := make([]float64, maxN)
			loo := make([]float64, maxN)
			su, sv := make([]float64, nk), make([]float64, nk)
			var g rand.PCG
			for {
				lo := int(next.Add(block)) - block
				if lo >= opt.Boot {
					return
				}
				for b := lo; b < min(lo+block, opt.Boot); b++ {
					clear(su)
					clear(sv)
					for ti := range prep {
						p := &prep[ti]
						g.Seed(opt.Seed, uint64(ti)<<32|uint64(b))
						if p.exact != nil {
							o := p.exact.drawIndex(&g)
							row, jv := p.exact.est[o*nk:(o+1)*nk], st[ti].jv[o*nk:(o+1)*nk]
							for i, wn := range st[ti].wn {
								if wn != nil {
									su[i] += float64(p.w * row[i])
									sv[i] += float64(float64(p.w*p.w) * jv[i])
								}
							}
							continue
						}
						c := counts[:len(p.gs)]
						drawCounts(&g, p.group, p.thresh, c)
						r := res[:0]
						for gv, cv := range c {
							for range cv {
								r = append(r, p.gs[gv])
							}
							c[gv] = 0
						}
						for i, wn := range st[ti].wn {
							if wn == nil {
								continue
							}
							su[i] += float64(p.w * dotRounded(wn, r))
							if w1 := st[ti].wn1[i]; w1 != nil {
								sv[i] += float64(float64(p.w*p.w) * jackVarSorted(r, w1, loo))
							}
						}
					}
					for i := range nk {
						u := su[i] / wsum[i]
						us[i*opt.Boot+b] = u
						s := math.Sqrt(sv[i]) / wsum[i]
						switch d := u - v[i]; {
						case s > 0:
							ts[i*opt.Boot+b] = d / s
						case d == 0:
							ts[i*opt.Boot+b] = 0
						default: // undefined: left out below
							ts[i*opt.Boot+b] = math.NaN()
						}
					}
				}
			}
		})
	}
	wg.Wait()
	lo, hi := (1-opt.Level)/2, (1+opt.Level)/2
	for i := range nk {
		if points[i].NTasks == 0 {
			continue
		}
		points[i].BootMean = mean(us[i*opt.Boot : (i+1)*opt.Boot])
		col := ts[i*opt.Boot : (i+1)*opt.Boot]
		kept := col[:0]
		for _, x := range col {
			if !math.IsNaN(x) {
				kept = append(kept, x)
			}
		}
		if left := len(col) - len(kept); left > 0 {
			points[i].Warnings = append(points[i].Warnings, fmt.Errorf("k=%d: %d of %d resamples have no spread in any task (standard error 0) and are left out of the studentized interval; with this few runs per task, resample tasks instead (scoreatk --boot-unit tasks)", opt.Ks[i], left, len(col)))
		}
		if len(kept) == 0 {
			continue
		}
		tl, th := quantileType7Select(kept, lo), quantileType7Select(kept, hi)
		u := points[i].Estimate
		smin, smax := scoreRange(prep, i)
		points[i].CILow = clamp(u-float64(th*se[i]), smin, smax)
		points[i].CIHigh = clamp(u-float64(tl*se[i]), smin, smax)
		if se[i] == 0 {
			points[i].CILow, points[i].CIHigh = u, u
			points[i].Warnings = append(points[i].Warnings, fmt.Errorf("k=%d: the jackknife standard error is 0 (one run per task, or every task's runs tied): the interval has zero width", opt.Ks[i]))
		}
	}
}

// scoreRange is the lowest and highest observed score of the tasks in the
// mean at Ks entry i. The cross-task score@k of the runs, and of every
// resample of them, lies in it (score@k is a weighted mean of a task's
// scores), but U − t*·se need not: with two runs per task a resample's
// jackknife se is often tiny (or 0, for a resample that repeats one run),
// so the t* quantiles are long and the raw interval reached 1.51 for
// scores in [0, 0.86] (TestStudentizedScoreRange). The studentized
// interval's ends are clamped into this range.
func scoreRange(prep []preparedTask, i int) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, p := range prep {
		if p.ks[i] == 0 || len(p.s) == 0 {
			continue
		}
		hi = max(hi, p.s[0])
		lo = min(lo, p.s[len(p.s)-1])
	}
	return lo, hi
}

// clamp is x limited to [lo, hi] (NaN stays NaN).
func clamp(x, lo, hi float64) float64 {
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}

// taskBootstrapCurve fills points' BootMean and interval by resampling
// tasks: replicate b draws T task indices uniformly with replacement from
// PCG(Seed, b) (boundedDraw) and takes, at each k, the weighted mean of the
// drawn tasks' observed score@k over those in the mean at k (a replicate
// that draws none of them is left out); the interval is the (1∓level)/2
// quantiles (type 7) of the rest. This is multiverse's --boot-unit tasks
// (UnitBootstrap with BootTasks) for one side, and the only interval with
// width when every task has one run (Inspect logs: one run per sample).
// It treats the tasks as a sample from a population of tasks, a wider
// question than the percentile interval's (these tasks, new runs).
func taskBootstrapCurve(prep []preparedTask, opt ScoreAtKOptions, points []ScoreAtKPoint) {
	nk, nt := len(opt.Ks), len(prep)
	est := make([]float64, nt*nk)
	for ti, p := range prep {
		for i, k := range p.ks {
			if k != 0 {
				est[ti*nk+i] = taskEstimate(p.s, k, p.random)
			}
		}
	}
	cols := make([][]float64, nk)
	sum, wsum := make([]float64, nk), make([]float64, nk)
	var g rand.PCG
	for b := range opt.Boot {
		g.Seed(opt.Seed, uint64(b))
		clear(sum)
		clear(wsum)
		for range nt {
			ti := int(boundedDraw(&g, uint64(nt)))
			p := &prep[ti]
			for i, k := range p.ks {
				if k != 0 {
					sum[i] += float64(p.w * est[ti*nk+i])
					wsum[i] += p.w
				}
			}
		}
		for i := range nk {
			if wsum[i] > 0 {
				cols[i] = append(cols[i], sum[i]/wsum[i])
			}
		}
	}
	lo, hi := (1-opt.Level)/2, (1+opt.Level)/2
	for i, col := range cols {
		if points[i].NTasks == 0 || len(col) == 0 {
			continue
		}
		points[i].BootMean = mean(col)
		points[i].CILow = quantileType7Select(col, lo)
		points[i].CIHigh = quantileType7Select(col, hi)
	}
}

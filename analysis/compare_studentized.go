package analysis

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
)

// The studentized (bootstrap-t) intervals of Compare.
//
// The tasks are the independent units: each task's observed score@k on
// each side, a_t and b_t (ScoreAtK, unbiased for the task's value), carries
// its own run noise once. Replicate r draws m tasks with replacement from
// PCG(Seed, r) (rng.IntN(m)) and keeps their (a_t, b_t) pairs, so no run is
// resampled: the hierarchical bootstrap's second stage counts the run noise
// a second time and, at k > 1, biases score@k down (docs/
// statistical-guarantees.md). With θ the difference Ā − B̄ or the log
// ratio log(Ā/B̄) (a log scale keeps the ratio positive and its pivot
// closer to symmetric), the pivot of replicate r is
//
//	t*_r = (θ*_r − θ̂) / se*_r
//
// with se*_r the jackknife standard error over the drawn tasks
// (compareJackSE), and the interval is
//
//	[θ̂ − t*_(hi)·se, θ̂ − t*_(lo)·se]
//
// with se the jackknife standard error of the observed θ̂ and t*_(lo,hi)
// the (1∓level)/2 type-7 quantiles of the defined t*_r, exponentiated for
// the ratio (Efron & Tibshirani 1993, §12.5 and §12.6 for the transformed
// scale; Davison & Hinkley 1997, §5.2.1). A replicate with se*_r = 0 (it
// drew one task m times, or tasks with equal values) counts as t*_r = 0
// when θ*_r = θ̂ and is left out otherwise, as is one whose log ratio is
// undefined (a side's leave-one-out mean not positive), with a warning
// when that is over 1 % of the replicates (with m tasks, m·m^−m of them
// repeat one task: 16 in 10,000 with 5 tasks). Fewer than 3 tasks give the percentile intervals, with a warning.
// The numpy reference is testdata/reference/compare_stud.py.

// studentComparison is what compareStudentized found: each interval that
// could be formed, and warnings.
type studentComparison struct {
	diffOK, ratioOK     bool
	diffLow, diffHigh   float64
	ratioLow, ratioHigh float64
	warnings            []error
}

// compareJackSE returns the jackknife standard errors over tasks of the
// difference of means and of the log ratio of means, for per-task values
// ea, eb with sums sa, sb:
//
//	θ_(−j) = f((sa − ea_j)/(m−1), (sb − eb_j)/(m−1))
//	se² = (m − 1)/m · Σ_j (θ_(−j) − mean θ_(−j))²
//
// (for the difference that is sd(ea − eb)²/m). The log ratio's is NaN if a
// leave-one-out mean is not positive; both are NaN for m < 2.
func compareJackSE(ea, eb []float64, sa, sb float64) (seDiff, seLog float64) {
	m := len(ea)
	if m < 2 {
		return math.NaN(), math.NaN()
	}
	var md, ml float64
	logOK := true
	for j := range ea {
		a, b := (sa-ea[j])/float64(m-1), (sb-eb[j])/float64(m-1)
		md += a - b
		if a > 0 && b > 0 {
			ml += math.Log(a / b)
		} else {
			logOK = false
		}
	}
	md /= float64(m)
	ml /= float64(m)
	var vd, vl float64
	for j := range ea {
		a, b := (sa-ea[j])/float64(m-1), (sb-eb[j])/float64(m-1)
		x := a - b - md
		vd += float64(x * x)
		if logOK {
			y := math.Log(a/b) - ml
			vl += float64(y * y)
		}
	}
	f := float64(m-1) / float64(m)
	seDiff, seLog = math.Sqrt(f*vd), math.NaN()
	if logOK {
		seLog = math.Sqrt(f * vl)
	}
	return seDiff, seLog
}

// compareStudentized computes the bootstrap-t intervals (see above) of the
// difference diff and the ratio ratio of ta's and tb's mean score@k.
func compareStudentized(ta, tb []TaskScores, ka, kb int, diff, ratio float64, opt ScoreAtKOptions) studentComparison {
	var out studentComparison
	m := len(ta)
	if m < 3 {
		// With 2 tasks a replicate either repeats one task (se* = 0) or
		// draws both (θ* = θ̂), so every defined t* is 0.
		out.warnings = append(out.warnings, fmt.Errorf("studentized intervals need at least 3 shared tasks (with %d every defined pivot is 0); the percentile intervals are printed", m))
		return out
	}
	ea, eb, sa, sb := taskEstimates(ta, tb, ka, kb)
	seD, seL := compareJackSE(ea, eb, sa, sb)
	logR := math.NaN()
	if ratio > 0 {
		logR = math.Log(ratio)
	}
	td := make([]float64, 0, opt.Boot)
	tl := make([]float64, 0, opt.Boot)
	leftD, leftL := 0, 0
	xa, xb := make([]float64, m), make([]float64, m)
	// pivot appends (θ* − θ̂)/se* to ts, or counts it as left out.
	pivot := func(ts []float64, left *int, theta, centre, se float64) []float64 {
		switch d := theta - centre; {
		case math.IsNaN(d) || math.IsNaN(se):
			*left++
		case se > 0:
			ts = append(ts, d/se)
		case d == 0:
			ts = append(ts, 0)
		default:
			*left++
		}
		return ts
	}
	var g rand.PCG
	rng := rand.New(&g)
	for r := range opt.Boot {
		g.Seed(opt.Seed, uint64(r))
		var ra, rb float64
		for j := range m {
			i := rng.IntN(m)
			xa[j], xb[j] = ea[i], eb[i]
			ra += xa[j]
			rb += xb[j]
		}
		sd, sl := compareJackSE(xa, xb, ra, rb)
		td = pivot(td, &leftD, (ra-rb)/float64(m), diff, sd)
		if !math.IsNaN(logR) {
			lr := math.NaN()
			if ra > 0 && rb > 0 {
				lr = math.Log(ra / rb)
			}
			tl = pivot(tl, &leftL, lr, logR, sl)
		}
	}
	lo, hi := (1-opt.Level)/2, (1+opt.Level)/2
	sort.Float64s(td)
	if len(td) > 0 {
		out.diffOK = true
		out.diffLow = diff - float64(QuantileType7(td, hi)*seD)
		out.diffHigh = diff - float64(QuantileType7(td, lo)*seD)
	} else {
		out.warnings = append(out.warnings, errors.New("difference: no replicate has a studentized pivot; the percentile interval is printed"))
	}
	if leftD > opt.Boot/100 {
		out.warnings = append(out.warnings, fmt.Errorf("difference: %d of %d replicates have a standard error of 0 over their tasks and are left out of the studentized interval", leftD, opt.Boot))
	}
	if seD == 0 {
		out.warnings = append(out.warnings, errors.New("difference: every task has the same difference (jackknife standard error 0): the studentized interval has zero width"))
	}
	if math.IsNaN(logR) || math.IsNaN(seL) {
		out.warnings = append(out.warnings, errors.New("ratio: a side's mean score@k (or one with a task left out) is not positive, so the log-scale studentized interval is undefined; the percentile interval is printed"))
		return out
	}
	sort.Float64s(tl)
	if len(tl) == 0 {
		out.warnings = append(out.warnings, errors.New("ratio: no replicate has a studentized pivot; the percentile interval is printed"))
		return out
	}
	out.ratioOK = true
	out.ratioLow = math.Exp(logR - float64(QuantileType7(tl, hi)*seL))
	out.ratioHigh = math.Exp(logR - float64(QuantileType7(tl, lo)*seL))
	if leftL > opt.Boot/100 {
		out.warnings = append(out.warnings, fmt.Errorf("ratio: %d of %d replicates have no log ratio or a standard error of 0 and are left out of the studentized interval", leftL, opt.Boot))
	}
	return out
}

package analysis

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Profile intervals of a separated logistic fit (issue 25 item 3).
//
// MASS's algorithm (GLMProfileCI) steps from β̂_j in units of the Wald SE.
// Under separation β̂_j is wherever IRLS stopped (|β̂| ≈ 20) and its SE is
// huge (3690 for 21.6 in testdata/reference/glm_separation.R), so the
// steps jump over the whole likelihood and the spline's crossings are
// artefacts: R 4.2 gives (−228, NA) there, rdeval gave (−115, 158), and the
// true interval is (2.91, +∞). For a separated binomial fit the interval
// is computed instead from its definition: with pd(b) the profile deviance
// (the deviance minimized over the other coefficients with β_j = b) and
// D* its infimum, the interval is {b : pd(b) − D* ≤ qchisq(level, 1)}.
// pd is convex (the binomial deviance is convex in β and partial
// minimization keeps convexity), so the set is an interval; an end is
// open (±Inf) when pd stays within the cut as b → ±∞ — checked at
// b = β̂_j ± 10^k·(1 + |β̂_j|), k = 1…4, where pd has reached its limit
// to within 1e-6 or exceeds the cut — and otherwise the root of
// pd(b) = D* + cut, bracketed by doubling steps of 0.1·(1 + |β̂_j|) from
// β̂_j and refined by bisection to 1e-10·(1 + |b|). pd is computed by
// damped Newton (step halving, guaranteed descent) from the full fit's
// coefficients, with the deviance residuals in a form exact for any η
// (R clamps μ to [ε, 1 − ε], which caps each row's residual at 72; that
// only matters far outside the interval). The reference is
// testdata/reference/glm_separation.R, which computes the same by
// glm.fit and uniroot.

// sepProfile evaluates the binomial profile deviance of coefficient j.
type sepProfile struct {
	x        [][]float64 // the other non-aliased columns
	xj       []float64
	y, w, o  []float64
	gamma    []float64 // warm start (the other coefficients)
	h, g, st []float64
	eta      []float64
}

func newSepProfile(x [][]float64, y []float64, opt GLMOptions, fit *GLMFit, j int) *sepProfile {
	n := len(y)
	sp := &sepProfile{xj: make([]float64, n), y: y, w: make([]float64, n), o: make([]float64, n), eta: make([]float64, n)}
	var keep []int
	for k, c := range fit.Coefs {
		if k != j && !c.Aliased {
			keep = append(keep, k)
			sp.gamma = append(sp.gamma, c.Estimate)
		}
	}
	sp.x = make([][]float64, n)
	for i := range y {
		sp.x[i] = make([]float64, len(keep))
		for a, k := range keep {
			sp.x[i][a] = x[i][k]
		}
		sp.xj[i] = x[i][j]
		sp.w[i] = 1
		if opt.Weights != nil {
			sp.w[i] = opt.Weights[i]
		}
		if opt.Offset != nil {
			sp.o[i] = opt.Offset[i]
		}
	}
	q := len(keep)
	sp.h, sp.g, sp.st = make([]float64, q*q), make([]float64, q), make([]float64, q)
	return sp
}

// sepSoftplus is log(1 + e^t) without overflow.
func sepSoftplus(t float64) float64 {
	if t > 0 {
		return t + math.Log1p(math.Exp(-t))
	}
	return math.Log1p(math.Exp(t))
}

// dev is the binomial deviance at γ with β_j = b (exact in η:
// devres = 2w[y·log y + (1−y)·log(1−y) + y·sepSoftplus(−η) + (1−y)·sepSoftplus(η)]).
func (sp *sepProfile) dev(b float64, gamma []float64) float64 {
	d := 0.0
	for i, r := range sp.x {
		e := sp.o[i] + sp.xj[i]*b
		for a, v := range r {
			e += v * gamma[a]
		}
		sp.eta[i] = e
		y := sp.y[i]
		d += 2 * sp.w[i] * (glmYLogY(y, 1) + glmYLogY(1-y, 1) + y*sepSoftplus(-e) + (1-y)*sepSoftplus(e))
	}
	return d
}

// at returns pd(b), leaving the minimizing γ as the next warm start.
func (sp *sepProfile) at(b float64) float64 {
	q := len(sp.gamma)
	d := sp.dev(b, sp.gamma)
	if q == 0 {
		return d
	}
	try := make([]float64, q)
	for it := 0; it < 200; it++ {
		clear(sp.h)
		clear(sp.g)
		for i, r := range sp.x {
			mu := 1 / (1 + math.Exp(-sp.eta[i]))
			wv := sp.w[i] * mu * (1 - mu)
			res := sp.w[i] * (mu - sp.y[i])
			for a, va := range r {
				sp.g[a] += va * res
				for c := 0; c <= a; c++ {
					sp.h[a*q+c] += wv * va * r[c]
				}
			}
		}
		scale := 0.0
		for a := 0; a < q; a++ {
			for c := 0; c < a; c++ {
				sp.h[c*q+a] = sp.h[a*q+c]
			}
			scale = math.Max(scale, sp.h[a*q+a])
		}
		for a := 0; a < q; a++ {
			sp.h[a*q+a] += 1e-12*scale + 1e-300 // separated directions have vanishing curvature
		}
		if !cholLower(sp.h, q) {
			break
		}
		copy(sp.st, sp.g)
		forwardSolve(sp.h, q, sp.st)
		backSolve(sp.h, q, sp.st)
		t := 1.0
		moved := false
		for half := 0; half < 40; half++ {
			for a := range try {
				try[a] = sp.gamma[a] - t*sp.st[a]
			}
			if dn := sp.dev(b, try); dn <= d {
				copy(sp.gamma, try)
				moved = d-dn > 1e-13*(d+0.1)
				d = dn
				break
			}
			t /= 2
		}
		sp.dev(b, sp.gamma) // eta at the accepted point
		if !moved {
			break
		}
	}
	return d
}

// glmSeparatedProfileCI is GLMProfileCI for a separated binomial fit.
func glmSeparatedProfileCI(x [][]float64, y []float64, opt GLMOptions, fit *GLMFit, level float64) ([][2]float64, []error) {
	cut := distuv.ChiSquared{K: 1}.Quantile(level)
	out := make([][2]float64, len(fit.Coefs))
	var warnings []error
	for j, c := range fit.Coefs {
		out[j] = [2]float64{math.NaN(), math.NaN()}
		if c.Aliased {
			continue
		}
		b0 := c.Estimate
		unit := 1 + math.Abs(b0)
		start := newSepProfile(x, y, opt, fit, j)
		g0 := append([]float64(nil), start.gamma...)
		var far [2][4]float64
		dstar := math.Min(fit.Deviance, start.at(b0))
		for si, s := range []float64{-1, 1} {
			copy(start.gamma, g0)
			for k := range far[si] {
				far[si][k] = start.at(b0 + s*math.Pow(10, float64(k+1))*unit)
				dstar = math.Min(dstar, far[si][k])
			}
		}
		var open []string
		for si, s := range []float64{-1, 1} {
			if far[si][3]-dstar <= cut {
				out[j][si] = s * math.Inf(1)
				open = append(open, map[float64]string{-1: "−∞", 1: "+∞"}[s])
				continue
			}
			copy(start.gamma, g0)
			in, step := b0, 0.1*unit
			outer := b0 + s*step
			for k := 0; k < 60 && start.at(outer)-dstar <= cut; k++ {
				in = outer
				step *= 2
				outer = b0 + s*step
			}
			gIn := append([]float64(nil), start.gamma...)
			for k := 0; k < 200 && math.Abs(outer-in) > 1e-10*(1+math.Abs(in)); k++ {
				mid := (in + outer) / 2
				copy(start.gamma, gIn)
				if start.at(mid)-dstar <= cut {
					in = mid
					copy(gIn, start.gamma)
				} else {
					outer = mid
				}
			}
			out[j][si] = (in + outer) / 2
		}
		if len(open) > 0 {
			warnings = append(warnings, fmt.Errorf("%s: the likelihood profile stays within the %g%% cut as the coefficient goes to %s (separation: its estimate %.3g is where IRLS stopped, the MLE is infinite): the interval is open there (R's confint gives NA)",
				c.Term, 100*level, joinAnd(open), b0))
		}
	}
	return out, warnings
}

func joinAnd(s []string) string {
	if len(s) == 2 {
		return s[0] + " and " + s[1]
	}
	return s[0]
}

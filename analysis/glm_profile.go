package analysis

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// GLMProfileCI returns profile-likelihood confidence intervals for the
// coefficients of fit (from FitGLM(x, y, names, opt)), computed exactly as
// R 4.2's confint(fit, level = level) for a glm, i.e. MASS's
// profile.glm + confint.profile.glm:
//
//   - each coefficient β_j is stepped away from β̂_j in steps of
//     δ = z_max/5 standard errors (summary SEs), at most 9 steps each way or
//     until |z| ≥ z_max, with z_max = √qchisq(1 − α, 1) (binomial) or
//     √qf(1 − α, 1, n − p) (gaussian) and α = (1 − level)/4;
//   - at each step the other coefficients are refitted by IRLS with
//     x_j·β_j as an extra offset, and the signed root
//     z = sign(β_j − β̂_j)·√((D(β_j) − D̂)/φ̂) is recorded (D deviance, φ̂
//     the dispersion of the full fit: 1 for binomial);
//   - the interval is where the curve z(β_j) crosses ∓qnorm((1 + level)/2),
//     found as R does: an fmm cubic spline through (β_j, z) evaluated on 3×
//     as many equally spaced points (spline()), then linear interpolation of
//     β_j against z (approx()).
//
// It returns [low, high] per coefficient in fit.Coefs order; aliased
// coefficients and limits the profile does not reach within its 9 steps are
// NaN (R's NA), with a warning for the latter. Cluster-robust or penalized
// fits have no likelihood profile and are refused.
//
// A separated binomial fit (fit.Separated) is profiled differently, from
// the definition {b : pd(b) − inf pd ≤ qchisq(level, 1)} (see
// glm_profile_sep.go): there MASS's SE-sized steps jump over the
// likelihood (R gives NA or a wrong finite limit), and an end where the
// profile never leaves the cut is reported as −Inf or +Inf with a warning.
func GLMProfileCI(x [][]float64, y []float64, names []string, opt GLMOptions, fit *GLMFit, level float64) ([][2]float64, []error, error) {
	if opt.Cluster != nil || opt.L2 != 0 {
		return nil, nil, errors.New("glm: profile intervals need a likelihood fit (no cluster-robust SEs, no L2 penalty)")
	}
	if !(level > 0 && level < 1) {
		return nil, nil, fmt.Errorf("glm: confidence level %g: want a number in (0, 1)", level)
	}
	if fit.Separated && fit.Family == Binomial {
		ci, w := glmSeparatedProfileCI(x, y, opt, fit, level)
		return ci, w, nil
	}
	n, p := len(y), len(names)
	alpha := (1 - level) / 4
	var zmax float64
	if fit.Family == Gaussian {
		if n-p <= 0 {
			return nil, nil, errors.New("glm: no residual degrees of freedom for a gaussian profile")
		}
		zmax = StudentTQuantile(1-alpha/2, float64(n-p))
	} else {
		zmax = distuv.UnitNormal.Quantile(1 - alpha/2)
	}
	del := zmax / 5
	off0 := make([]float64, n)
	if opt.Offset != nil {
		copy(off0, opt.Offset)
	}
	cut := distuv.UnitNormal.Quantile((1 - level) / 2)
	out := make([][2]float64, p)
	var warnings []error
	for j, c := range fit.Coefs {
		out[j] = [2]float64{math.NaN(), math.NaN()}
		if c.Aliased {
			continue
		}
		// The other non-aliased columns.
		var keep []int
		for k, ck := range fit.Coefs {
			if k != j && !ck.Aliased {
				keep = append(keep, k)
			}
		}
		xi := make([][]float64, n)
		for i := range xi {
			xi[i] = make([]float64, len(keep))
			for a, k := range keep {
				xi[i][a] = x[i][k]
			}
		}
		kn := make([]string, len(keep))
		for a, k := range keep {
			kn[a] = names[k]
		}
		bs := []float64{c.Estimate}
		zs := []float64{0}
		for _, sgn := range []float64{-1, 1} {
			z := 0.0
			for step := 1; step < 10 && math.Abs(z) < zmax; step++ {
				bi := c.Estimate + sgn*float64(step)*del*c.SE
				o := make([]float64, n)
				for i := range o {
					o[i] = off0[i] + x[i][j]*bi
				}
				dev, err := glmProfileDeviance(xi, y, kn, opt, o)
				if err != nil {
					return nil, nil, fmt.Errorf("glm: profiling %s at %g: %w", c.Term, bi, err)
				}
				zz := (dev - fit.Deviance) / fit.Dispersion
				if zz <= -0.001 {
					return nil, nil, fmt.Errorf("glm: profiling %s found a better solution than the fit (deviance %g < %g): the fit had not converged", c.Term, dev, fit.Deviance)
				}
				z = sgn * math.Sqrt(math.Max(zz, 0))
				bs = append(bs, bi)
				zs = append(zs, z)
			}
		}
		sx, sy := splineFMM(bs, zs, 3*len(bs))
		lo := approxLinear(sy, sx, cut)
		hi := approxLinear(sy, sx, -cut)
		out[j] = [2]float64{lo, hi}
		if math.IsNaN(lo) || math.IsNaN(hi) {
			warnings = append(warnings, fmt.Errorf("the likelihood profile of %s does not reach the %g%% limit within 9 steps of %.3g SE (R reports NA): separation or a flat likelihood", c.Term, 100*level, del))
		}
	}
	return out, warnings, nil
}

// glmProfileDeviance is the deviance of the GLM of y on x (possibly no
// column) with offset o, as glm.fit.
func glmProfileDeviance(x [][]float64, y []float64, names []string, opt GLMOptions, o []float64) (float64, error) {
	if len(names) == 0 {
		linkinv, _, _, devres := glmFamilyFuncs(opt.Family)
		d := 0.0
		for i := range y {
			w := 1.0
			if opt.Weights != nil {
				w = opt.Weights[i]
			}
			d += devres(y[i], linkinv(o[i]), w)
		}
		return d, nil
	}
	f, err := FitGLM(x, y, names, GLMOptions{Family: opt.Family, Weights: opt.Weights, Offset: o, MaxIter: opt.MaxIter, Epsilon: opt.Epsilon})
	if err != nil {
		return 0, err
	}
	return f.Deviance, nil
}

// splineFMM is R's spline(x, y, n, method = "fmm"): the points are sorted
// by x (ties averaged, as regularize.values), and the Forsythe–Malcolm–Moler
// cubic spline through them (end conditions matching the cubics through
// the first and last four points) is evaluated at n equally spaced points
// from min(x) to max(x).
func splineFMM(x, y []float64, n int) ([]float64, []float64) {
	x, y = regularize(x, y)
	m := len(x)
	b, c, d := make([]float64, m), make([]float64, m), make([]float64, m)
	fmmCoef(x, y, b, c, d)
	xo := make([]float64, n)
	yo := make([]float64, n)
	by := (x[m-1] - x[0]) / float64(n-1)
	i := 0
	for k := 0; k < n; k++ {
		u := x[0] + float64(k)*by
		if k == n-1 {
			u = x[m-1]
		}
		xo[k] = u
		// As R's spline_eval: keep the interval while x[i] <= u <= x[i+1].
		if u < x[i] || (i < m-1 && x[i+1] < u) {
			i = 0
			j := m
			for {
				h := (i + j) / 2
				if u < x[h] {
					j = h
				} else {
					i = h
				}
				if j <= i+1 {
					break
				}
			}
		}
		dx := u - x[i]
		yo[k] = y[i] + dx*(b[i]+dx*(c[i]+dx*d[i]))
	}
	return xo, yo
}

// fmmCoef computes the cubic coefficients of the fmm spline (R's splines.c
// fmm_spline): y_i + b_i·t + c_i·t² + d_i·t³ on [x_i, x_{i+1}].
func fmmCoef(x, y, b, c, d []float64) {
	n := len(x)
	if n < 2 {
		return
	}
	if n < 3 {
		t := (y[1] - y[0]) / (x[1] - x[0])
		b[0], b[1] = t, t
		return
	}
	nm1 := n - 1
	// Tridiagonal system: b diagonal, d off-diagonal, c right-hand side.
	d[0] = x[1] - x[0]
	c[1] = (y[1] - y[0]) / d[0]
	for i := 1; i < nm1; i++ {
		d[i] = x[i+1] - x[i]
		b[i] = 2 * (d[i-1] + d[i])
		c[i+1] = (y[i+1] - y[i]) / d[i]
		c[i] = c[i+1] - c[i]
	}
	// End conditions: third derivatives from divided differences.
	b[0] = -d[0]
	b[nm1] = -d[n-2]
	c[0], c[nm1] = 0, 0
	if n > 3 {
		c[0] = c[2]/(x[3]-x[1]) - c[1]/(x[2]-x[0])
		c[nm1] = c[n-2]/(x[nm1]-x[n-3]) - c[n-3]/(x[n-2]-x[n-4])
		c[0] = c[0] * d[0] * d[0] / (x[3] - x[0])
		c[nm1] = -c[nm1] * d[n-2] * d[n-2] / (x[nm1] - x[n-4])
	}
	for i := 1; i <= nm1; i++ {
		t := d[i-1] / b[i-1]
		b[i] -= t * d[i-1]
		c[i] -= t * c[i-1]
	}
	c[nm1] /= b[nm1]
	for i := n - 2; i >= 0; i-- {
		c[i] = (c[i] - d[i]*c[i+1]) / b[i]
	}
	b[nm1] = (y[nm1]-y[n-2])/d[n-2] + d[n-2]*(c[n-2]+2*c[nm1])
	for i := 0; i < nm1; i++ {
		b[i] = (y[i+1]-y[i])/d[i] - d[i]*(c[i+1]+2*c[i])
		d[i] = (c[i+1] - c[i]) / d[i]
		c[i] = 3 * c[i]
	}
	c[nm1] = 3 * c[nm1]
	d[nm1] = d[n-2]
}

// regularize sorts (x, y) by x and averages y over tied x, as R's
// regularize.values(x, y, mean).
func regularize(x, y []float64) ([]float64, []float64) {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return x[idx[a]] < x[idx[b]] })
	var xs, ys []float64
	for k := 0; k < len(idx); {
		j := k
		s := 0.0
		for j < len(idx) && x[idx[j]] == x[idx[k]] {
			s += y[idx[j]]
			j++
		}
		xs = append(xs, x[idx[k]])
		ys = append(ys, s/float64(j-k))
		k = j
	}
	return xs, ys
}

// approxLinear is R's approx(x, y, xout = v)$y (linear, rule = 1: NaN
// outside the range of x; ties averaged).
func approxLinear(x, y []float64, v float64) float64 {
	x, y = regularize(x, y)
	n := len(x)
	if n == 0 || v < x[0] || v > x[n-1] || math.IsNaN(v) {
		return math.NaN()
	}
	i, j := 0, n-1
	for i < j-1 {
		k := (i + j) / 2
		if v < x[k] {
			j = k
		} else {
			i = k
		}
	}
	if v == x[j] {
		return y[j]
	}
	if v == x[i] {
		return y[i]
	}
	return y[i] + (y[j]-y[i])*((v-x[i])/(x[j]-x[i]))
}

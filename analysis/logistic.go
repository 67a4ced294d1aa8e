package analysis

import (
	"errors"
	"fmt"
	"math"
)

// LogisticFit is a fitted one-regressor logistic model
// P(y = 1 | x) = σ(Intercept + Slope·x).
type LogisticFit struct {
	Intercept float64
	Slope     float64
	Iter      int     // Newton iterations taken
	Grad      float64 // max |gradient| of the objective at the solution
	// Class is 0 or 1 when every row with positive weight has that outcome
	// (no fit: Slope is −Inf or +Inf, Intercept NaN), −1 otherwise.
	Class int
}

// ErrNoWeight is returned when no row has positive weight.
var ErrNoWeight = errors.New("analysis: no row with positive weight")

// FitLogistic fits a penalized, weighted logistic regression of y on x
// with scikit-learn's convention: it minimizes
//
//	f(a, b) = ½·b² + C · Σ_i w_i · ℓ_i,
//	ℓ_i = −y_i·ln σ(a + b·x_i) − (1 − y_i)·ln(1 − σ(a + b·x_i)),
//
// with the intercept a unpenalized. This is
// sklearn.linear_model.LogisticRegression(C=C, penalty="l2",
// solver="lbfgs").fit(x[:, None], y, sample_weight=w) (scikit-learn ≥ 0.22:
// lbfgs does not penalize the intercept; checked against scikit-learn 1.2.1
// in testdata/reference/horizon.py), and R's
// glmnet(x, y, weights = w, alpha = 0, …) only up to glmnet's rescaling of
// the penalty. y may be fractional in [0, 1]: the loss of (y, w) equals
// that of the two rows (1, y·w) and (0, (1−y)·w), which is how METR fits
// partial scores.
//
// The arithmetic gives the same bits on every platform: exp and log are
// detExp and detLog (detmath.go), and every product is rounded before it
// is added (no fused multiply-adds).
//
// The minimum is found by Newton's method (closed-form 2×2 solves, with
// step halving when a full step does not decrease f), from a = logit(ȳ),
// b = 0, until max|∇f| ≤ 1e-12·(1 + C·Σ w_i·(1 + |x_i|)) or the objective
// stops decreasing at machine precision. f is strictly convex when both
// outcomes have weight, so the solution is unique and finite.
//
// If every row with weight has y = 0 there is no fit: Slope = −Inf and
// Class = 0 (METR's convention: the horizon is 0); if every one has y = 1,
// Slope = +Inf and Class = 1 (horizon +Inf; sklearn refuses one class).
// Rows with w = 0 are ignored. C must be positive.
func FitLogistic(x, y, w []float64, C float64) (LogisticFit, error) {
	if len(x) != len(y) || len(x) != len(w) {
		return LogisticFit{}, fmt.Errorf("analysis: logistic fit: %d x, %d y, %d weights", len(x), len(y), len(w))
	}
	if !(C > 0) || math.IsInf(C, 1) {
		return LogisticFit{}, fmt.Errorf("analysis: logistic fit: C = %v; want a positive finite number", C)
	}
	var w0, w1, scale float64
	for i := range x {
		if w[i] < 0 || math.IsNaN(w[i]) || math.IsNaN(x[i]) || math.IsInf(x[i], 0) || !(y[i] >= 0 && y[i] <= 1) {
			return LogisticFit{}, fmt.Errorf("analysis: logistic fit: row %d: x = %v, y = %v, w = %v (want finite x, y in [0, 1], w ≥ 0)", i, x[i], y[i], w[i])
		}
		w1 += float64(w[i] * y[i])
		w0 += float64(w[i] * (1 - y[i]))
		scale += float64(w[i] * (1 + math.Abs(x[i])))
	}
	switch {
	case w0+w1 == 0:
		return LogisticFit{}, ErrNoWeight
	case w1 == 0:
		return LogisticFit{Intercept: math.NaN(), Slope: math.Inf(-1), Class: 0}, nil
	case w0 == 0:
		return LogisticFit{Intercept: math.NaN(), Slope: math.Inf(1), Class: 1}, nil
	}
	tol := 1e-12 * (1 + float64(C*scale))
	a, b := detLog(w1/w0), 0.0
	f, ga, gb, haa, hab, hbb := logisticEval(x, y, w, C, a, b)
	fit := LogisticFit{Class: -1}
	for fit.Iter = 0; fit.Iter < 200; fit.Iter++ {
		if math.Max(math.Abs(ga), math.Abs(gb)) <= tol {
			break
		}
		det := float64(haa*hbb) - float64(hab*hab)
		da := -(float64(hbb*ga) - float64(hab*gb)) / det
		db := -(float64(haa*gb) - float64(hab*ga)) / det
		step := 1.0
		improved := false
		for k := 0; k < 60; k++ {
			na, nb := a+float64(step*da), b+float64(step*db)
			nf, nga, ngb, nhaa, nhab, nhbb := logisticEval(x, y, w, C, na, nb)
			if nf <= f {
				improved = nf < f || math.Max(math.Abs(nga), math.Abs(ngb)) < math.Max(math.Abs(ga), math.Abs(gb))
				if improved {
					a, b, f, ga, gb, haa, hab, hbb = na, nb, nf, nga, ngb, nhaa, nhab, nhbb
				}
				break
			}
			step /= 2
		}
		if !improved {
			break // at machine precision
		}
	}
	fit.Intercept, fit.Slope = a, b
	fit.Grad = math.Max(math.Abs(ga), math.Abs(gb))
	return fit, nil
}

// logisticEval returns the objective of FitLogistic, its gradient and its
// Hessian at (a, b).
//
// Rows with the same x as the previous row (the failure and success rows
// of one task, as fitBuf writes them, or tasks of equal length) reuse its
// z, log(1 + e^z) and σ(z): the same numbers, computed once, so the sums
// keep their bits.
func logisticEval(x, y, w []float64, C, a, b float64) (f, ga, gb, haa, hab, hbb float64) {
	var z, lse, p float64
	prev := math.NaN()
	for i, xi := range x {
		wi := w[i]
		if wi == 0 {
			continue
		}
		if xi != prev {
			prev = xi
			z = a + float64(b*xi)
			// ℓ = log(1 + e^z) − y·z and σ(z), computed stably from one
			// exponential e = e^−|z|.
			e := detExpNonPos(-math.Abs(z))
			lse = detLog1pUnit(e)
			p = 1 / (1 + e)
			if z > 0 {
				lse = z + lse
			} else {
				p = e / (1 + e)
			}
		}
		f += float64(wi * (lse - float64(y[i]*z)))
		r := float64(wi * (p - y[i]))
		ga += r
		gb += float64(r * xi)
		h := float64(float64(wi*p) * (1 - p))
		haa += h
		hab += float64(h * xi)
		hbb += float64(float64(h*xi) * xi)
	}
	f = float64(float64(0.5*b)*b) + float64(C*f)
	ga, gb = float64(C*ga), b+float64(C*gb)
	haa, hab, hbb = float64(C*haa), float64(C*hab), 1+float64(C*hbb)
	return
}

// Logit returns ln(q/(1−q)).
func Logit(q float64) float64 { return detLog(q / (1 - q)) }

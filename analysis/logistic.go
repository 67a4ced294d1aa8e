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
	return fitLogistic(x, y, w, C, nil)
}

// fitLogistic is FitLogistic with a scratch buffer for its per-row values
// (grown as needed and kept in *scratch when scratch is not nil).
func fitLogistic(x, y, w []float64, C float64, scratch *[]float64) (LogisticFit, error) {
	if len(x) != len(y) || len(x) != len(w) {
		return LogisticFit{}, fmt.Errorf("analysis: logistic fit: %d x, %d y, %d weights", len(x), len(y), len(w))
	}
	if !(C > 0) || math.IsInf(C, 1) {
		return LogisticFit{}, fmt.Errorf("analysis: logistic fit: C = %v; want a positive finite number", C)
	}
	var w0, w1, scale, xmax, wsum float64
	for i := range x {
		if w[i] < 0 || math.IsNaN(w[i]) || math.IsNaN(x[i]) || math.IsInf(x[i], 0) || !(y[i] >= 0 && y[i] <= 1) {
			return LogisticFit{}, fmt.Errorf("analysis: logistic fit: row %d: x = %v, y = %v, w = %v (want finite x, y in [0, 1], w ≥ 0)", i, x[i], y[i], w[i])
		}
		w1 += float64(w[i] * y[i])
		w0 += float64(w[i] * (1 - y[i]))
		scale += float64(w[i] * (1 + math.Abs(x[i])))
		wsum += w[i]
		if w[i] > 0 {
			xmax = math.Max(xmax, math.Abs(x[i]))
		}
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
	// The slack of a certified decrease (descentCertain): far above the
	// rounding error of the computed objective (about n·ε relative).
	slack := 1e-8 + 8*float64(len(x))*0x1p-52
	var ev logisticEvaluator
	ev.init(x, y, w, C, scratch)
	a, b := detLog(w1/w0), 0.0
	ev.point(a, b)
	ga, gb, haa, hab, hbb, fb := ev.grad(b)
	// f, the objective at (a, b), is computed only when a comparison needs
	// it (haveF): a step whose decrease is certain takes no logarithms.
	var f float64
	haveF := false
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
			if na == a && nb == b {
				// The same point: the same objective and gradient, so
				// the comparisons below find no improvement.
				break
			}
			if certifyDescent && descentCertain(ga, gb, haa, hab, hbb, na-a, nb-b, xmax, fb, wsum, C, b, slack) {
				// f(na, nb) < f(a, b) by far more than the computed
				// objectives' rounding, so the comparisons below would
				// accept the step.
				ev.point(na, nb)
				a, b = na, nb
				ga, gb, haa, hab, hbb, fb = ev.grad(b)
				haveF, improved = false, true
				break
			}
			if !haveF {
				ev.point(a, b)
				f, haveF = ev.obj(b), true
			}
			ev.point(na, nb)
			nf := ev.obj(nb)
			if nf <= f {
				nga, ngb, nhaa, nhab, nhbb, nfb := ev.grad(nb)
				improved = nf < f || math.Max(math.Abs(nga), math.Abs(ngb)) < math.Max(math.Abs(ga), math.Abs(gb))
				if improved {
					a, b, f, ga, gb, haa, hab, hbb, fb = na, nb, nf, nga, ngb, nhaa, nhab, nhbb, nfb
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

// certifyDescent enables descentCertain in FitLogistic, reuseValues the
// reuse of a row's values when its z is unchanged (logisticEvaluator);
// tests turn them off to check that the fits keep their bits without them.
var certifyDescent, reuseValues = true, true

// descentCertain reports whether the objective f of FitLogistic at
// (a+dA, b+dB) is below its value at (a, b) by a margin that no rounding
// of the two computed objectives can undo, from the gradient g and Hessian
// H at (a, b) alone (no logarithms). Each row's loss ℓ has ℓ″(z) = p(1−p)
// and |ℓ‴| = p(1−p)·|1−2p| ≤ ℓ″, so ℓ″(z+u) ≤ ℓ″(z)·e^|u|, and
// integrating twice, ℓ(z+t) ≤ ℓ(z) + ℓ′(z)·t + ℓ″(z)·t²·ψ(|t|), ψ(T) =
// (e^T − 1 − T)/T², increasing. Every row's |Δz| is at most T = |dA| +
// |dB|·xmax, so
//
//	f(a+dA, b+dB) − f(a, b) ≤ g·Δ + ψ(T)·Δᵀ(H − diag(0, 1))Δ + ½dB² = U.
//
// The computed objectives are sums of n terms in [0, |z_i| + ln 2] (plus
// ½b²), each within a few ulp, so each is within about n·ε·B of its exact
// value, B = ½b² + C·Σ w_i·(1 + |z_i| + |x_i|) at (a, b) (fb, from
// logisticEvaluator.grad), and at most B + ½(nb² − b²) + C·Σw_i·T at the
// new point; U's own rounding is within about n·ε of its terms' magnitude
// M (with |H_ab| ≤ √(H_aa·H_bb)). −U > slack·(both bounds + M), slack ≥
// 1e−8 + 8nε, leaves a margin of more than 1e4 over those errors, so the
// computed objectives compare as nf < f whenever this holds, and
// FitLogistic's path (hence its bits) is the one it takes comparing them.
func descentCertain(ga, gb, haa, hab, hbb, dA, dB, xmax, fb, wsum, C, b, slack float64) bool {
	T := math.Abs(dA) + float64(math.Abs(dB)*xmax)
	var psi float64
	switch {
	case !(T <= 30):
		return false // or NaN
	case T < 0.01:
		psi = 0.5 + T/6 + float64(T*T)/20 // ≥ Σ T^k/(k+2)!
	default:
		psi = (detExp(T) - 1 - T) / float64(T*T) * (1 + 1e-9)
	}
	lb := hbb - 1 // the loss's part of H_bb
	gd := float64(ga*dA) + float64(gb*dB)
	q := float64(float64(haa*dA)*dA) + 2*float64(float64(hab*dA)*dB) + float64(float64(lb*dB)*dB)
	pen := float64(0.5 * float64(dB*dB))
	U := gd + float64(psi*q) + pen
	qAbs := float64(math.Sqrt(math.Abs(haa))*math.Abs(dA)) + float64(math.Sqrt(math.Abs(lb))*math.Abs(dB))
	M := math.Abs(float64(ga*dA)) + math.Abs(float64(gb*dB)) + float64(psi*float64(qAbs*qAbs)) + pen
	nb := b + dB
	B := 2*fb + math.Abs(float64(0.5*float64(nb*nb))-float64(0.5*float64(b*b))) + float64(C*float64(wsum*T))
	return -U > float64(slack*(B+M))
}

// logisticEvaluator computes FitLogistic's objective, gradient and
// Hessian at one point (a, b), set by point, in two passes that share
// each row's z and e^−|z|: obj (the objective, with its logarithms) and
// grad (gradient, Hessian and the bound fb of descentCertain). A rejected
// step needs only obj, a certain one only grad. Each sum has its own
// accumulator, in row order, so the results have the bits of one loop
// computing them all.
//
// Rows with the same x as the previous row (the failure and success rows
// of one task, as fitBuf writes them, or tasks of equal length) reuse its
// numbers, computed once, and a row whose z has the same value as the
// row before (all rows at b = 0) or as at the point before (a short step
// near the minimum) takes that row's or point's e^−|z| and log(1 + e^−|z|),
// and a row whose e^−|z| is unchanged keeps its log(1 + e^−|z|): the same
// numbers, not computed again.
type logisticEvaluator struct {
	x, y, w  []float64
	C        float64
	z, e, ls []float64 // per row with weight, at the point: z, e^−|z|, log(1 + e^−|z|) (NaN: not computed)
}

func (ev *logisticEvaluator) init(x, y, w []float64, C float64, scratch *[]float64) {
	ev.x, ev.y, ev.w, ev.C = x, y, w, C
	n := len(x)
	var buf []float64
	if scratch != nil {
		buf = *scratch
	}
	if cap(buf) < 3*n {
		buf = make([]float64, 3*n)
		if scratch != nil {
			*scratch = buf
		}
	}
	ev.z, ev.e, ev.ls = buf[:n], buf[n:2*n], buf[2*n:3*n]
	for i := range ev.z {
		ev.z[i], ev.ls[i] = math.NaN(), math.NaN() // nothing computed yet
	}
}

// point computes z = a + b·x and e = e^−|z| for every row with weight.
func (ev *logisticEvaluator) point(a, b float64) {
	z, e, l := math.NaN(), 0.0, math.NaN()
	prev := math.NaN()
	n := len(ev.x)
	zs, es, ls, ws := ev.z[:n], ev.e[:n], ev.ls[:n], ev.w[:n]
	for i, xi := range ev.x {
		if ws[i] == 0 {
			continue
		}
		if xi != prev {
			prev = xi
			nz := a + float64(b*xi)
			switch {
			case nz == z && reuseValues:
				// The previous row's z (all rows at b = 0): keep its e
				// and l. ±0 alike: e, log(1 + e^z) and σ(z) do not see
				// the sign.
			case nz == zs[i] && reuseValues:
				e, l = es[i], ls[i]
			default:
				e, l = detExpNonPos(-math.Abs(nz)), math.NaN()
				if e == es[i] && reuseValues {
					l = ls[i] // log(1 + e) depends on e alone
				}
			}
			z = nz
		}
		zs[i], es[i], ls[i] = z, e, l
	}
}

// obj returns the objective at the point (b its slope): Σ w·(log(1 + e^z)
// − y·z), computed stably from e = e^−|z|.
func (ev *logisticEvaluator) obj(b float64) float64 {
	var f float64
	prevX, prevZ, lse := math.NaN(), math.NaN(), math.NaN()
	n := len(ev.x)
	zs, es, ls, ys, ws := ev.z[:n], ev.e[:n], ev.ls[:n], ev.y[:n], ev.w[:n]
	for i, xi := range ev.x {
		wi := ws[i]
		if wi == 0 {
			continue
		}
		z := zs[i]
		if xi != prevX {
			prevX = xi
			if z != prevZ || !reuseValues {
				l := ls[i] // log(1 + e)
				if l != l {
					l = detLog1pUnit(es[i])
				}
				ls[i], lse = l, l
				if z > 0 {
					lse = z + l
				}
			}
			prevZ = z
		}
		f += float64(wi * (lse - float64(ys[i]*z)))
	}
	return float64(float64(0.5*b)*b) + float64(ev.C*f)
}

// grad returns the gradient and Hessian at the point (b its slope), and
// fb = ½b² + C·Σ w_i·(1 + |z_i| + |x_i|), a bound on the objective's
// terms (descentCertain).
func (ev *logisticEvaluator) grad(b float64) (ga, gb, haa, hab, hbb, fb float64) {
	var p float64
	prevX := math.NaN()
	n := len(ev.x)
	zs, es, ys, ws := ev.z[:n], ev.e[:n], ev.y[:n], ev.w[:n]
	for i, xi := range ev.x {
		wi := ws[i]
		if wi == 0 {
			continue
		}
		z := zs[i]
		if xi != prevX {
			prevX = xi
			e := es[i]
			p = 1 / (1 + e)
			if !(z > 0) {
				p = e / (1 + e)
			}
		}
		r := float64(wi * (p - ys[i]))
		ga += r
		gb += float64(r * xi)
		h := float64(float64(wi*p) * (1 - p))
		haa += h
		hab += float64(h * xi)
		hbb += float64(float64(h*xi) * xi)
		fb += float64(wi * (1 + math.Abs(z) + math.Abs(xi)))
	}
	C := ev.C
	fb = float64(float64(0.5*b)*b) + float64(C*fb)
	ga, gb = float64(C*ga), b+float64(C*gb)
	haa, hab, hbb = float64(C*haa), float64(C*hab), 1+float64(C*hbb)
	return
}

// Logit returns ln(q/(1−q)).
func Logit(q float64) float64 { return detLog(q / (1 - q)) }

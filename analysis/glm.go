package analysis

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// GLMFamily is the error distribution and link of a GLM.
type GLMFamily string

// The families FitGLM supports.
const (
	// Binomial is the binomial family with the logit link (logistic
	// regression), R's glm(y ~ x, family = binomial).
	Binomial GLMFamily = "binomial"
	// Gaussian is the normal family with the identity link (least
	// squares), R's glm(y ~ x, family = gaussian).
	Gaussian GLMFamily = "gaussian"
)

// GLMOptions control FitGLM.
type GLMOptions struct {
	Family GLMFamily
	// Weights are prior weights (R's weights =): for binomial, the number
	// of trials behind each proportion y. nil means 1. They must be > 0.
	Weights []float64
	// Offset is added to the linear predictor (R's offset =); nil means 0.
	Offset []float64
	// Intercept says column 0 of x is the intercept: it is not penalized
	// and the null deviance is that of the intercept-only model.
	Intercept bool
	// L2 is a ridge penalty λ: IRLS maximizes loglik − λ/2·Σβ_j² over the
	// non-intercept coefficients. Standard errors then come from the
	// inverse penalized information and are not valid Wald inference.
	L2 float64
	// Cluster, when set, gives each row's cluster id: standard errors are
	// cluster-robust CR1, as sandwich::vcovCL(fit, cluster = ~g, type = "HC1").
	Cluster []string
	// MaxIter and Epsilon are R's glm.control (default 25 and 1e-8): stop
	// when |dev − dev_old|/(|dev| + 0.1) < Epsilon.
	MaxIter int
	Epsilon float64
	// Level is the confidence level of the Wald intervals (default 0.95).
	Level float64
}

// GLMCoef is one coefficient of a fitted GLM.
type GLMCoef struct {
	Term     string
	Estimate float64 // NaN when aliased
	SE       float64
	Stat     float64 // z (binomial) or t (gaussian)
	P        float64
	CILow    float64
	CIHigh   float64
	// Aliased is a column collinear with earlier ones (a constant
	// predictor, a duplicate): R reports its coefficient as NA.
	Aliased bool
}

// GLMFit is a fitted GLM.
type GLMFit struct {
	Family       GLMFamily
	Coefs        []GLMCoef
	N            int // observations used
	Rank         int
	DFResidual   int
	Dispersion   float64 // 1 for binomial; Σ w r² / df_residual for gaussian
	Deviance     float64
	NullDeviance float64
	LogLik       float64
	AIC          float64
	BIC          float64
	Iterations   int
	Converged    bool
	StatName     string // "z" or "t"
	SEType       string // "model" or "CR1"
	NClusters    int
	Fitted       []float64 // μ per row
	// Separated is set for a binomial fit with the signs of complete or
	// quasi-complete separation (fitted probabilities numerically 0 or 1,
	// or coefficients that kept growing): its warning is in Warnings.
	Separated bool
	// Cov is the covariance of the non-aliased coefficients, in order.
	Cov      [][]float64
	Warnings []error
}

const glmDblEps = 2.220446049250313e-16

// logit link as R's C code (family.c): clamps at ±(−log ε).
var glmLogitThresh = -math.Log(glmDblEps)

func glmLogitInv(eta float64) float64 {
	var t float64
	switch {
	case eta < -glmLogitThresh:
		t = glmDblEps
	case eta > glmLogitThresh:
		t = 1 / glmDblEps
	default:
		t = math.Exp(eta)
	}
	return t / (1 + t)
}

func glmLogitMuEta(eta float64) float64 {
	if eta > glmLogitThresh || eta < -glmLogitThresh {
		return glmDblEps
	}
	op := 1 + math.Exp(eta)
	return math.Exp(eta) / (op * op)
}

func glmYLogY(y, mu float64) float64 {
	if y == 0 {
		return 0
	}
	return y * math.Log(y/mu)
}

func glmBinomDevRes(y, mu, w float64) float64 {
	return 2 * w * (glmYLogY(y, mu) + glmYLogY(1-y, 1-mu))
}

// FitGLM fits a generalized linear model by iteratively reweighted least
// squares, following R's glm.fit step by step (same start, same
// convergence test, covariance from the last iteration's weights), so
// that its numbers match
//
//	fit <- glm(y ~ x1 + x2, family = binomial, weights = w)
//	summary(fit); confint.default(fit); logLik(fit); AIC(fit); BIC(fit)
//
// x is rows × columns (a model matrix), y the response (0/1 or
// proportions in [0, 1] for binomial). Standard errors are
// sqrt(φ·diag((X'WX)⁻¹)) with φ = 1 (binomial) or Σ w·r²/(n − rank)
// (gaussian); tests use z = β/SE with normal p (binomial) and t with
// n − rank df (gaussian), as summary.glm; intervals are β ± z_{(1+level)/2}·SE
// for both, as confint.default. With Cluster set, the covariance is
//
//	V = G/(G−1) · (n−1)/(n−k) · B (Σ_g u_g u_g') B,  B = (X'WX)⁻¹,  u_g = Σ_{i∈g} x_i w_i r_i
//
// (w_i working weights, r_i working residuals, k the rank): exactly
// sandwich::vcovCL(fit, cluster = ~g, type = "HC1"), whose dispersion
// factors cancel. Aliased columns get NaN estimates and a warning, as R's
// NA. Separation (fitted probabilities 0 or 1 to machine precision,
// diverging coefficients) and non-convergence are reported in Warnings.
func FitGLM(x [][]float64, y []float64, names []string, opt GLMOptions) (*GLMFit, error) {
	n := len(y)
	if n == 0 {
		return nil, errors.New("glm: no observations")
	}
	if len(x) != n {
		return nil, fmt.Errorf("glm: %d rows of x for %d responses", len(x), n)
	}
	p := len(names)
	for i, r := range x {
		if len(r) != p {
			return nil, fmt.Errorf("glm: row %d has %d columns, want %d", i+1, len(r), p)
		}
	}
	if opt.Family == "" {
		opt.Family = Binomial
	}
	if opt.Family != Binomial && opt.Family != Gaussian {
		return nil, fmt.Errorf("glm: family %q: want binomial or gaussian", opt.Family)
	}
	if opt.MaxIter <= 0 {
		opt.MaxIter = 25
	}
	if opt.Epsilon <= 0 {
		opt.Epsilon = 1e-8
	}
	if opt.Level <= 0 || opt.Level >= 1 {
		opt.Level = 0.95
	}
	if opt.L2 < 0 {
		return nil, fmt.Errorf("glm: L2 penalty %g is negative", opt.L2)
	}
	w, off, err := priorWeightsOffsets("glm", n, opt.Weights, opt.Offset)
	if err != nil {
		return nil, err
	}
	for i := range w {
		if math.IsNaN(y[i]) || math.IsInf(y[i], 0) {
			return nil, fmt.Errorf("glm: row %d: response %g is not a finite number", i+1, y[i])
		}
		for j, v := range x[i] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("glm: row %d column %s is not a finite number", i+1, names[j])
			}
		}
	}
	if opt.Cluster != nil && len(opt.Cluster) != n {
		return nil, errors.New("glm: cluster must have one value per row")
	}
	fit := &GLMFit{Family: opt.Family, N: n, StatName: "z", SEType: "model"}
	if opt.Family == Gaussian {
		fit.StatName = "t"
	}
	if opt.Family == Binomial {
		nonInt := false
		for i, v := range y {
			if v < 0 || v > 1 {
				return nil, fmt.Errorf("glm: binomial outcome %g at row %d: want 0/1 (or a proportion of successes in [0, 1] with the trials as weights)", v, i+1)
			}
			if m := w[i] * v; math.Abs(m-math.Round(m)) > 1e-3 {
				nonInt = true
			}
		}
		if nonInt {
			fit.Warnings = append(fit.Warnings, errors.New("non-integer #successes in a binomial glm! (as R warns: the outcome is fractional, so the fit is a quasi-likelihood one with dispersion fixed at 1; the log-likelihood, AIC and BIC round successes and are not meaningful)"))
		}
	}

	// Aliased columns: Gram–Schmidt on √w·X, tolerance 1e-7 relative.
	active := glmAliasCheck(x, w, p)
	k := len(active)
	fit.Rank = k
	fit.DFResidual = n - k
	if k < p {
		var al []string
		in := map[int]bool{}
		for _, j := range active {
			in[j] = true
		}
		for j := 0; j < p; j++ {
			if !in[j] {
				al = append(al, names[j])
			}
		}
		fit.Warnings = append(fit.Warnings, fmt.Errorf("%d coefficient(s) not defined because of singularities (collinear with earlier columns; R reports NA): %s", len(al), strings.Join(al, ", ")))
	}
	if k == 0 {
		return nil, errors.New("glm: no estimable coefficient")
	}
	penal := make([]float64, k)
	for a, j := range active {
		if !(opt.Intercept && j == 0) {
			penal[a] = opt.L2
		}
	}

	linkinv, mueta, variance, devres := glmFamilyFuncs(opt.Family)
	mu := make([]float64, n)
	eta := make([]float64, n)
	for i := range y {
		if opt.Family == Binomial {
			mu[i] = (w[i]*y[i] + 0.5) / (w[i] + 1)
			eta[i] = math.Log(mu[i] / (1 - mu[i]))
		} else {
			mu[i] = y[i]
			eta[i] = y[i]
		}
	}
	devOf := func(mu []float64, beta []float64) float64 {
		d := 0.0
		for i := range y {
			d += devres(y[i], mu[i], w[i])
		}
		for a, b := range beta {
			d += penal[a] * b * b
		}
		return d
	}
	devold := devOf(mu, nil)
	var beta, betaOld []float64
	var ww []float64 // working weights of the last iteration
	var xtwx *mat.SymDense
	var history [][]float64
	for iter := 1; iter <= opt.MaxIter; iter++ {
		fit.Iterations = iter
		z := make([]float64, n)
		ww = make([]float64, n)
		for i := range y {
			me := mueta(eta[i])
			z[i] = eta[i] - off[i] + (y[i]-mu[i])/me
			ww[i] = w[i] * me * me / variance(mu[i])
		}
		var err error
		xtwx, beta, err = glmWLS(x, active, ww, z, penal)
		if err != nil {
			return nil, fmt.Errorf("glm: iteration %d: %w", iter, err)
		}
		dev := 0.0
		for half := 0; ; half++ {
			for i := range y {
				s := off[i]
				for a, j := range active {
					s += x[i][j] * beta[a]
				}
				eta[i] = s
				mu[i] = linkinv(s)
			}
			dev = devOf(mu, beta)
			if !math.IsNaN(dev) && !math.IsInf(dev, 0) || betaOld == nil || half > 30 {
				break
			}
			for a := range beta { // step halving, as glm.fit
				beta[a] = (beta[a] + betaOld[a]) / 2
			}
		}
		history = append(history, append([]float64(nil), beta...))
		if math.Abs(dev-devold)/(math.Abs(dev)+0.1) < opt.Epsilon {
			fit.Converged = true
			break
		}
		devold = dev
		betaOld = append([]float64(nil), beta...)
	}

	// Unscaled covariance from the last iteration's weighted cross-product.
	var ch mat.Cholesky
	if !ch.Factorize(xtwx) {
		return nil, errors.New("glm: X'WX is not positive definite (collinear predictors?)")
	}
	var inv mat.SymDense
	if err := ch.InverseTo(&inv); err != nil {
		return nil, fmt.Errorf("glm: inverting X'WX: %w", err)
	}
	fit.Fitted = mu
	fit.Deviance = devOf(mu, nil)
	// Dispersion (summary.glm): working weights × working residuals².
	resid := make([]float64, n)
	for i := range y {
		resid[i] = (y[i] - mu[i]) / mueta(eta[i])
	}
	fit.Dispersion = 1
	if opt.Family == Gaussian {
		if fit.DFResidual > 0 {
			s := 0.0
			for i := range y {
				s += ww[i] * resid[i] * resid[i]
			}
			fit.Dispersion = s / float64(fit.DFResidual)
		} else {
			fit.Dispersion = math.NaN()
		}
	}
	cov := mat.NewDense(k, k, nil)
	if opt.Cluster != nil {
		idx := map[string]int{}
		var u [][]float64
		for i, g := range opt.Cluster {
			c, ok := idx[g]
			if !ok {
				c = len(u)
				idx[g] = c
				u = append(u, make([]float64, k))
			}
			for a, j := range active {
				u[c][a] += x[i][j] * ww[i] * resid[i]
			}
		}
		G := len(u)
		fit.NClusters = G
		fit.SEType = "CR1"
		if G < 2 {
			return nil, fmt.Errorf("glm: cluster-robust SEs need at least 2 clusters, got %d", G)
		}
		meat := mat.NewSymDense(k, nil)
		for _, ug := range u {
			meat.SymRankOne(meat, 1, mat.NewVecDense(k, ug))
		}
		var bm mat.Dense
		bm.Mul(&inv, meat)
		cov.Mul(&bm, &inv)
		cov.Scale(float64(G)/float64(G-1)*float64(n-1)/float64(n-k), cov)
		if G < 30 {
			fit.Warnings = append(fit.Warnings, fmt.Errorf("only %d clusters: cluster-robust standard errors are unreliable with few clusters", G))
		}
	} else {
		cov.Scale(fit.Dispersion, &inv)
	}
	fit.Cov = make([][]float64, k)
	for a := range fit.Cov {
		fit.Cov[a] = make([]float64, k)
		for b := range fit.Cov[a] {
			fit.Cov[a][b] = cov.At(a, b)
		}
	}
	zq := distuv.UnitNormal.Quantile(1 - (1-opt.Level)/2)
	fit.Coefs = make([]GLMCoef, p)
	for j := range fit.Coefs {
		fit.Coefs[j] = GLMCoef{Term: names[j], Estimate: math.NaN(), SE: math.NaN(), Stat: math.NaN(), P: math.NaN(), CILow: math.NaN(), CIHigh: math.NaN(), Aliased: true}
	}
	for a, j := range active {
		b := beta[a]
		se := math.Sqrt(cov.At(a, a))
		st := b / se
		var pv float64
		if opt.Family == Gaussian && opt.Cluster == nil {
			if fit.DFResidual > 0 {
				pv = 2 * StudentTCDF(-math.Abs(st), float64(fit.DFResidual))
			} else {
				pv = math.NaN()
			}
		} else {
			pv = 2 * distuv.UnitNormal.CDF(-math.Abs(st))
		}
		fit.Coefs[j] = GLMCoef{Term: names[j], Estimate: b, SE: se, Stat: st, P: pv, CILow: b - zq*se, CIHigh: b + zq*se}
	}
	if opt.Family == Gaussian && opt.Cluster != nil {
		fit.StatName = "z"
	}

	// Null deviance (glm.fit): intercept-only fit, or the offset alone.
	switch {
	case opt.Intercept && opt.Offset != nil && p > 1:
		ones := make([][]float64, n)
		for i := range ones {
			ones[i] = []float64{1}
		}
		nf, err := FitGLM(ones, y, []string{"(Intercept)"}, GLMOptions{Family: opt.Family, Weights: opt.Weights, Offset: opt.Offset, Intercept: true, MaxIter: opt.MaxIter, Epsilon: opt.Epsilon})
		if err != nil {
			return nil, err
		}
		fit.NullDeviance = nf.Deviance
	case opt.Intercept:
		sw, swy := 0.0, 0.0
		for i := range y {
			sw += w[i]
			swy += w[i] * y[i]
		}
		for i := range y {
			fit.NullDeviance += devres(y[i], swy/sw, w[i])
		}
	default:
		for i := range y {
			fit.NullDeviance += devres(y[i], linkinv(off[i]), w[i])
		}
	}

	// Log-likelihood, AIC, BIC as logLik.glm, AIC, BIC.
	df := float64(k)
	if opt.Family == Binomial {
		ll := 0.0
		for i := range y {
			ll += glmDBinomLog(math.Round(w[i]*y[i]), math.Round(w[i]), mu[i])
		}
		fit.LogLik = ll
	} else {
		nf := float64(n)
		sl := 0.0
		for _, v := range w {
			sl += math.Log(v)
		}
		fit.LogLik = -nf/2*(math.Log(fit.Deviance/nf*2*math.Pi)+1) + sl/2
		df++
	}
	fit.AIC = -2*fit.LogLik + 2*df
	fit.BIC = -2*fit.LogLik + math.Log(float64(n))*df

	if !fit.Converged {
		fit.Warnings = append(fit.Warnings, fmt.Errorf("IRLS did not converge in %d iterations (R: glm.fit: algorithm did not converge); the estimates are not the maximum-likelihood ones", fit.Iterations))
	}
	if opt.Family == Binomial {
		sw := glmSeparationWarnings(fit, mu, history, active, names)
		fit.Separated = len(sw) > 0
		fit.Warnings = append(fit.Warnings, sw...)
	}
	if opt.L2 > 0 {
		fit.Warnings = append(fit.Warnings, fmt.Errorf("L2 penalty %g: estimates are shrunk and the standard errors, tests and intervals come from the penalized information (not valid Wald inference)", opt.L2))
	}
	return fit, nil
}

func glmFamilyFuncs(f GLMFamily) (linkinv, mueta, variance func(float64) float64, devres func(y, mu, w float64) float64) {
	if f == Binomial {
		return glmLogitInv, glmLogitMuEta, func(mu float64) float64 { return mu * (1 - mu) }, glmBinomDevRes
	}
	id := func(v float64) float64 { return v }
	return id, func(float64) float64 { return 1 }, func(float64) float64 { return 1 },
		func(y, mu, w float64) float64 { return w * (y - mu) * (y - mu) }
}

// glmDBinomLog is R's dbinom(k, size, prob, log = TRUE) for integer k, size.
func glmDBinomLog(k, size, prob float64) float64 {
	lg := func(v float64) float64 { l, _ := math.Lgamma(v); return l }
	out := lg(size+1) - lg(k+1) - lg(size-k+1)
	if k > 0 {
		out += k * math.Log(prob)
	}
	if size-k > 0 {
		out += (size - k) * math.Log1p(-prob)
	}
	return out
}

// glmAliasCheck returns the columns of √w·X that are not (numerically)
// linear combinations of earlier ones.
func glmAliasCheck(x [][]float64, w []float64, p int) []int {
	n := len(x)
	var basis [][]float64
	var active []int
	for j := 0; j < p; j++ {
		v := make([]float64, n)
		norm0 := 0.0
		for i := range v {
			v[i] = math.Sqrt(w[i]) * x[i][j]
			norm0 += v[i] * v[i]
		}
		norm0 = math.Sqrt(norm0)
		for pass := 0; pass < 2; pass++ {
			for _, q := range basis {
				d := 0.0
				for i := range v {
					d += q[i] * v[i]
				}
				for i := range v {
					v[i] -= d * q[i]
				}
			}
		}
		norm := 0.0
		for _, e := range v {
			norm += e * e
		}
		norm = math.Sqrt(norm)
		if norm0 == 0 || norm <= 1e-7*norm0 {
			continue
		}
		for i := range v {
			v[i] /= norm
		}
		basis = append(basis, v)
		active = append(active, j)
	}
	return active
}

// glmWLS solves (X'WX + diag(penal))β = X'Wz over the active columns.
func glmWLS(x [][]float64, active []int, ww, z, penal []float64) (*mat.SymDense, []float64, error) {
	k := len(active)
	a := mat.NewSymDense(k, nil)
	rhs := mat.NewVecDense(k, nil)
	for i, r := range x {
		for ia, ja := range active {
			wx := ww[i] * r[ja]
			rhs.SetVec(ia, rhs.AtVec(ia)+wx*z[i])
			for ib := ia; ib < k; ib++ {
				a.SetSym(ia, ib, a.At(ia, ib)+wx*r[active[ib]])
			}
		}
	}
	for ia := range active {
		a.SetSym(ia, ia, a.At(ia, ia)+penal[ia])
	}
	var ch mat.Cholesky
	if !ch.Factorize(a) {
		return nil, nil, errors.New("X'WX is not positive definite (collinear predictors or all weights 0)")
	}
	var b mat.VecDense
	if err := ch.SolveVecTo(&b, rhs); err != nil {
		return nil, nil, err
	}
	out := make([]float64, k)
	for i := range out {
		out[i] = b.AtVec(i)
	}
	return a, out, nil
}

// glmSeparationWarnings reports fitted probabilities of 0 or 1 (R:
// "glm.fit: fitted probabilities numerically 0 or 1 occurred", eps =
// 10·machine ε) and names the coefficients that kept growing over the
// last iterations: the signs of complete or quasi-complete separation.
func glmSeparationWarnings(fit *GLMFit, mu []float64, history [][]float64, active []int, names []string) []error {
	eps := 10 * glmDblEps
	extreme := 0
	for _, m := range mu {
		if m < eps || m > 1-eps {
			extreme++
		}
	}
	var diverging []string
	if h := len(history); h >= 4 {
		type cand struct {
			name string
			abs  float64
		}
		var cs []cand
		for a, j := range active {
			b0, b1, b2 := math.Abs(history[h-3][a]), math.Abs(history[h-2][a]), math.Abs(history[h-1][a])
			if b2 > b1+0.1 && b1 > b0+0.1 && b2 > 5 {
				cs = append(cs, cand{names[j], b2})
			}
		}
		sort.Slice(cs, func(i, j int) bool { return cs[i].abs > cs[j].abs })
		for _, c := range cs {
			diverging = append(diverging, fmt.Sprintf("%s (|β| = %.3g)", c.name, c.abs))
		}
	}
	if extreme == 0 && len(diverging) == 0 {
		return nil
	}
	kind := "quasi-complete"
	if fit.Deviance < 1e-6*math.Max(1, fit.NullDeviance) {
		kind = "complete"
	}
	msg := fmt.Sprintf("%s separation likely: %d of %d fitted probabilities are numerically 0 or 1 (R: glm.fit: fitted probabilities numerically 0 or 1 occurred)", kind, extreme, len(mu))
	if extreme == 0 {
		msg = fmt.Sprintf("possible separation: coefficients kept growing at every iteration")
	}
	if len(diverging) > 0 {
		msg += "; diverging coefficients: " + strings.Join(diverging, ", ")
	}
	msg += "; their estimates are not finite in truth, and their standard errors, tests and Wald intervals are meaningless (consider fewer predictors or --l2; for a GLM, --ci profile computes intervals from the likelihood itself, open where it stays flat)"
	return []error{errors.New(msg)}
}

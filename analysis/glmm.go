package analysis

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"
)

// Logistic GLMM with random intercepts: the deviance of lme4::glmer at
// (θ, β) and its joint minimization.
//
// With prior weights w_i (binomial trials; y_i the proportion of successes)
// and offsets o_i, η_i = o_i + x_i'β + Σ_f θ_f u_{f,g_f(i)}, u ~ N(0, I)
// (lme4's spherical random effects), and the conditional modes û(θ, β)
// maximize −½(Σ devres_i + ‖u‖²) (penalized IRLS).
//
// nAGQ = 1 (Laplace; any number of crossed grouping factors): the objective
// is lme4's glmResp::Laplace, aic(y, w, μ̂) + ‖û‖² + log|L|², with L L' =
// I + ΛZ'WZΛ at û (W = diag(w μ(1−μ))) and aic the family's −2·Σ log
// dbinom(round(w y), round(w), μ) (Σ devres for 0/1 data).
//
// nAGQ = N > 1 (one grouping factor): for each group k, with d_k(u) =
// Σ_{i∈k} devres_i + u², mode û_k and s_k = 1/L_kk, lme4's glmerAGQ sums
//
//	d_k(û_k) + log L_kk² − 2·log Σ_j w_j·exp(−½(d_k(û_k + z_j s_k) − d_k(û_k)) + z_j²/2)
//
// over the groups, with (z_j, w_j) the N-point Gauss–Hermite rule for the
// standard normal density (lme4::GHrule(N)). Unlike the Laplace objective it
// carries no binomial-coefficient constant (lme4 1.1 sums deviance
// residuals, not aic), so with non-0/1 data the logLik of an nAGQ > 1 fit is
// not comparable with that of a Laplace fit, in lme4 as here.
type glmmProblem struct {
	x         [][]float64
	y, w, off []float64
	idx       [][]int // level of each row, per grouping factor
	nlev      []int
	offs      []int // first column of each factor in u
	q         int
	rows      [][]int // rows of each level (one grouping factor)
	nagq      int
	ghZ, ghW  []float64
	u         []float64
	eta0, mu  []float64
	evals     int
	// Several factors: H = I + ΛZ'WZΛ in blocks [[D, B], [B', C]], D the
	// diagonal block of factor 0 (the one with most levels), B its n0×r
	// cross block, C the r×r block of the others, factorized through the
	// Schur complement S = C − B'D⁻¹B (Cholesky in hs) — O(n0·r² + r³)
	// instead of O(q³).
	n0, r      int
	hd, hb, hs []float64
	ldH        float64 // log|H| after hFactor
	t1         []float64
	grad, step []float64
	uTry       []float64
	cols       []int
	part       []float64 // per-level or per-chunk partial sums
	// unit is set when every y is 0 or 1 and every weight 1: then e0 =
	// exp(eta0) (0 where |eta0| ≥ 300) lets μ and the deviance residuals be
	// formed from one exponential per level instead of one per row (see
	// logitFast).
	unit bool
	e0   []float64
	einv []float64 // 1/e0 (0 where e0 is 0)
	cexp []float64 // exp(θ_f u_a) per level (several factors)
}

func newGLMMProblem(x [][]float64, y, w, off []float64, idx [][]int, nlev []int, nagq int) *glmmProblem {
	n := len(y)
	g := &glmmProblem{x: x, y: y, w: w, off: off, idx: idx, nlev: nlev, nagq: nagq, eta0: make([]float64, n), mu: make([]float64, n)}
	for _, m := range nlev {
		g.offs = append(g.offs, g.q)
		g.q += m
	}
	g.u = make([]float64, g.q)
	g.unit = true
	for i := range y {
		if w[i] != 1 || (y[i] != 0 && y[i] != 1) {
			g.unit = false
		}
	}
	if g.unit {
		g.e0 = make([]float64, n)
		g.einv = make([]float64, n)
		g.cexp = make([]float64, g.q)
	}
	if len(idx) == 1 {
		g.rows = make([][]int, nlev[0])
		for i, k := range idx[0] {
			g.rows[k] = append(g.rows[k], i)
		}
	} else {
		g.n0 = nlev[0]
		g.r = g.q - g.n0
		g.hd = make([]float64, g.n0)
		g.hb = make([]float64, g.n0*g.r)
		g.hs = make([]float64, g.r*g.r)
		g.t1 = make([]float64, g.r)
		g.grad = make([]float64, g.q)
		g.step = make([]float64, g.q)
		g.uTry = make([]float64, g.q)
		g.cols = make([]int, len(idx))
	}
	if nagq > 1 {
		g.ghZ, g.ghW = ghRule(nagq)
	}
	return g
}

// ghRule returns the nodes and weights of the n-point Gauss–Hermite rule
// for the standard normal density (∫ f φ ≈ Σ w_j f(z_j), Σ w_j = 1), as
// lme4::GHrule(n): by Golub–Welsch, the eigenvalues of the Jacobi matrix of
// the probabilists' Hermite polynomials (off-diagonal √k) and the squared
// first components of its eigenvectors, each node then polished by Newton
// steps on He_n.
func ghRule(n int) (z, w []float64) {
	j := mat.NewSymDense(n, nil)
	for k := 1; k < n; k++ {
		j.SetSym(k-1, k, math.Sqrt(float64(k)))
	}
	var es mat.EigenSym
	if !es.Factorize(j, true) {
		panic("ghRule: eigendecomposition failed")
	}
	z = es.Values(nil)
	var v mat.Dense
	es.VectorsTo(&v)
	w = make([]float64, n)
	for k := range z {
		// Newton on He_n (three-term recurrence He_{m+1} = x He_m − m He_{m−1}).
		for it := 0; it < 3; it++ {
			p0, p1 := 1.0, z[k]
			for m := 1; m < n; m++ {
				p0, p1 = p1, z[k]*p1-float64(m)*p0
			}
			// He_n' = n He_{n−1}
			if d := float64(n) * p0; d != 0 {
				z[k] -= p1 / d
			}
		}
		w[k] = v.At(0, k) * v.At(0, k)
	}
	s := 0.0
	for _, e := range w {
		s += e
	}
	for k := range w {
		w[k] /= s
	}
	return z, w
}

// linpred sets eta0 = offset + Xβ.
func (g *glmmProblem) linpred(beta []float64) {
	for i, r := range g.x {
		s := g.off[i]
		for j, b := range beta {
			s += r[j] * b
		}
		g.eta0[i] = s
		if g.unit {
			g.e0[i], g.einv[i] = 0, 0
			if math.Abs(s) < 300 {
				g.e0[i] = math.Exp(s)
				g.einv[i] = 1 / g.e0[i]
			}
		}
	}
}

// logitFast returns μ = logit⁻¹(η) for η = eta0 + δ given e0 = exp(eta0)
// (0 when unknown) and c = exp(δ), and the row's deviance factor
// 1 + exp(∓η) (deviance residual 2·log of it; − for y = 1), when
// |η| < 36 and both exponentials are known: there R's logit link is
// unclamped, so this is R's value up to rounding in μ; the deviance
// residual 2·log(1 + exp(∓η)) is the exact value, where R's (and lme4's)
// 2·log(1/(1 − μ)) loses digits forming 1 − μ when the outcome is the
// unlikely one at |η| > 15 (1e-9 relative at |η| = 20, 1e-3 at 34: rows
// that only occur near separation). ok is false otherwise, and the caller
// uses glmLogitInv and glmBinomDevRes.
func logitFast(e0, c, eta, y float64) (mu, fac float64, ok bool) {
	if e0 == 0 || c == 0 || math.IsInf(c, 0) || math.Abs(eta) >= 36 {
		return 0, 0, false
	}
	t := e0 * c
	mu = t / (1 + t)
	if y == 1 {
		return mu, 1 + 1/t, true
	}
	return mu, 1 + t, true
}

// logProd accumulates Σ log(fac) as the log of a product, renormalized
// by frexp so that it never overflows (factors are ≥ 1 and < e^36).
type logProd struct {
	p  float64
	e2 int
}

func (l *logProd) mul(f float64) {
	l.p *= f
	if l.p > 1e200 {
		fr, ex := math.Frexp(l.p)
		l.p, l.e2 = fr, l.e2+ex
	}
}

func (l *logProd) log() float64 { return math.Log(l.p) + float64(l.e2)*math.Ln2 }

// groupDev is Σ devres of a level's rows at random effect u: as
// groupStats, without μ, and for 0/1 data with unit weights from products
// of 1 + e0·c or 1 + (1/e0)·(1/c) (no exponential or logarithm per row).
func (g *glmmProblem) groupDev(rows []int, theta, u float64) float64 {
	d := theta * u
	if !g.unit || math.Abs(d) >= 300 {
		dev, _, _ := g.groupStats(rows, theta, u, true, false)
		return dev
	}
	c := math.Exp(d)
	ci := 1 / c
	dev := 0.0
	lp := logProd{p: 1}
	for _, i := range rows {
		eta := g.eta0[i] + d
		switch {
		case g.e0[i] == 0 || math.Abs(eta) >= 36:
			dev += glmBinomDevRes(g.y[i], glmLogitInv(eta), 1)
		case g.y[i] == 1:
			lp.mul(1 + g.einv[i]*ci)
		default:
			lp.mul(1 + g.e0[i]*c)
		}
	}
	return dev + 2*lp.log()
}

// groupStats returns, at random effect u of one factor's level with rows
// rows, Σ devres (dev; only with needDev), Σ w μ(1−μ) (sw) and
// Σ w (y − μ) (sr); it stores μ in g.mu when store is set.
func (g *glmmProblem) groupStats(rows []int, theta, u float64, needDev, store bool) (dev, sw, sr float64) {
	d := theta * u
	c := 0.0
	if g.unit && math.Abs(d) < 300 {
		c = math.Exp(d)
	}
	lp := logProd{p: 1}
	for _, i := range rows {
		eta := g.eta0[i] + d
		m, fac, ok := 0.0, 0.0, false
		if c != 0 {
			m, fac, ok = logitFast(g.e0[i], c, eta, g.y[i])
		}
		if ok {
			if needDev {
				lp.mul(fac)
			}
		} else {
			m = glmLogitInv(eta)
			if needDev {
				dev += glmBinomDevRes(g.y[i], m, g.w[i])
			}
		}
		if store {
			g.mu[i] = m
		}
		sw += g.w[i] * m * (1 - m)
		sr += g.w[i] * (g.y[i] - m)
	}
	if needDev {
		dev += 2 * lp.log()
	}
	return dev, sw, sr
}

// deviance is the glmer objective at (θ, β) (see glmmProblem); it leaves the
// conditional modes in g.u (warm start for the next call) and μ at the modes
// in g.mu.
func (g *glmmProblem) deviance(theta, beta []float64) float64 {
	g.evals++
	g.linpred(beta)
	var d float64
	if g.rows != nil {
		d = g.devOne(math.Abs(theta[0]))
	} else {
		d = g.devMulti(theta)
	}
	if math.IsNaN(d) {
		return math.Inf(1)
	}
	return d
}

// devOne is the deviance for one grouping factor: the modes by Newton's
// method per level, then Laplace or adaptive Gauss–Hermite.
func (g *glmmProblem) devOne(theta float64) float64 {
	if g.part == nil {
		g.part = make([]float64, len(g.rows))
	}
	parFor(len(g.rows), len(g.y) >= glmmParMinRows, func(k int) { g.part[k] = g.devGroup(k, theta) })
	total := 0.0
	for _, v := range g.part {
		total += v
	}
	return total
}

// devGroup is level k's term of devOne: Σ devres + u² + log L_kk² at the
// mode (Laplace), less 2·log of the quadrature sum for nAGQ > 1. It updates
// g.u[k] and g.mu of the level's rows only, so levels run in parallel.
func (g *glmmProblem) devGroup(k int, theta float64) float64 {
	rows := g.rows[k]
	u := g.u[k]
	// Newton on the strictly convex u² + Σ devres: score and information
	// only (no logarithms), steps capped at 4, then one pass for d_k.
	for it := 0; it < 200; it++ {
		_, sw, sr := g.groupStats(rows, theta, u, false, false)
		step := (theta*sr - u) / (1 + theta*theta*sw)
		step = math.Max(-4, math.Min(4, step))
		u += step
		if math.Abs(step) < 1e-10*(1+math.Abs(u)) {
			break
		}
	}
	dev, sw, _ := g.groupStats(rows, theta, u, true, true)
	f := u*u + dev
	g.u[k] = u
	l2 := 1 + theta*theta*sw
	total := f + math.Log(l2)
	if g.nagq > 1 {
		sd := 1 / math.Sqrt(l2)
		mult := 0.0
		for j, z := range g.ghZ {
			uj := u + z*sd
			dj := g.groupDev(rows, theta, uj)
			mult += g.ghW[j] * math.Exp(-0.5*(uj*uj+dj-f)+z*z/2)
		}
		total -= 2 * math.Log(mult)
	}
	return total
}

// glmmParMinRows is the number of rows from which a deviance evaluation is
// spread over GOMAXPROCS goroutines.
const glmmParMinRows = 2000

// glmmChunk is the number of rows per unit of parallel work in devMulti:
// fixed, so that the partial sums, added in chunk order, give the same
// bytes for any number of workers.
const glmmChunk = 512

// parFor runs work(0..n−1), on GOMAXPROCS goroutines when par is set.
// Each call must write only its own results.
func parFor(n int, par bool, work func(k int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if !par || workers <= 1 {
		for k := 0; k < n; k++ {
			work(k)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := int(next.Add(1)) - 1
				if k >= n {
					return
				}
				work(k)
			}
		}()
	}
	wg.Wait()
}

// devMulti is the Laplace deviance for several (crossed) grouping factors:
// penalized IRLS on u with the dense q×q matrix I + ΛZ'WZΛ (q = total
// number of levels), Newton steps with step halving on Σ devres + ‖u‖².
func (g *glmmProblem) devMulti(theta []float64) float64 {
	q := g.q
	lam := func(f int) float64 { return math.Abs(theta[f]) }
	n := len(g.y)
	nch := (n + glmmChunk - 1) / glmmChunk
	if len(g.part) != nch {
		g.part = make([]float64, nch)
	}
	// pdev is Σ devres + ‖u‖², leaving μ at u in g.mu.
	pdev := func(u []float64) float64 {
		if g.unit {
			for f := range g.idx {
				for a := g.offs[f]; a < g.offs[f]+g.nlev[f]; a++ {
					d := lam(f) * u[a]
					g.cexp[a] = 0
					if math.Abs(d) < 300 {
						g.cexp[a] = math.Exp(d)
					}
				}
			}
		}
		parFor(nch, n >= glmmParMinRows, func(c int) {
			s := 0.0
			lp := logProd{p: 1}
			for i := c * glmmChunk; i < min(n, (c+1)*glmmChunk); i++ {
				eta := g.eta0[i]
				ce := 1.0
				for f := range g.idx {
					a := g.offs[f] + g.idx[f][i]
					eta += lam(f) * u[a]
					if g.unit {
						ce *= g.cexp[a]
					}
				}
				if g.unit {
					if m, fac, ok := logitFast(g.e0[i], ce, eta, g.y[i]); ok {
						g.mu[i] = m
						lp.mul(fac)
						continue
					}
				}
				m := glmLogitInv(eta)
				g.mu[i] = m
				s += glmBinomDevRes(g.y[i], m, g.w[i])
			}
			g.part[c] = s + 2*lp.log()
		})
		s := 0.0
		for _, v := range u {
			s += v * v
		}
		for _, v := range g.part {
			s += v
		}
		return s
	}
	// buildH fills g.h (lower triangle) and g.grad at μ = g.mu for u = g.u.
	// buildH fills the blocks of H and g.grad at μ = g.mu for u = g.u.
	buildH := func() {
		n0, r := g.n0, g.r
		for k := range g.hd {
			g.hd[k] = 1
		}
		clear(g.hb)
		clear(g.hs)
		for a := 0; a < r; a++ {
			g.hs[a*r+a] = 1
		}
		for a := 0; a < q; a++ {
			g.grad[a] = -g.u[a]
		}
		for i := range g.y {
			m := g.mu[i]
			wi := g.w[i] * m * (1 - m)
			res := g.w[i] * (g.y[i] - m)
			for f := range g.idx {
				g.cols[f] = g.offs[f] + g.idx[f][i]
			}
			for f, a := range g.cols {
				la := lam(f)
				g.grad[a] += la * res
				if f == 0 {
					g.hd[a] += la * la * wi
					for f2 := 1; f2 < len(g.cols); f2++ {
						g.hb[a*r+g.cols[f2]-n0] += la * lam(f2) * wi
					}
					continue
				}
				for f2 := 1; f2 < len(g.cols); f2++ {
					if b := g.cols[f2]; b <= a {
						g.hs[(a-n0)*r+b-n0] += la * lam(f2) * wi
					}
				}
			}
		}
	}
	// Newton steps with step halving; H is rebuilt at each new u, so when the
	// step is negligible H (factorized) is the one at the mode.
	cur := pdev(g.u)
	for it := 0; ; it++ {
		buildH()
		if !g.hFactor() {
			return math.Inf(1)
		}
		copy(g.step, g.grad)
		g.hSolve(g.step)
		sz := 0.0
		for a, s := range g.step {
			sz = math.Max(sz, math.Abs(s)/(1+math.Abs(g.u[a])))
		}
		if sz < 1e-10 || it == 100 {
			break
		}
		t := 1.0
		var next float64
		for half := 0; half < 40; half++ {
			for a := range g.u {
				g.uTry[a] = g.u[a] + t*g.step[a]
			}
			next = pdev(g.uTry)
			if next <= cur+1e-12*math.Abs(cur) {
				break
			}
			t /= 2
		}
		copy(g.u, g.uTry) // g.mu is at g.uTry
		cur = next
	}
	return cur + g.ldH
}

// hFactor forms the Schur complement S = C − B'D⁻¹B of the blocks of H
// (lower triangle of g.hs), factorizes it and sets g.ldH = log|H| =
// Σ log D + log|S|.
func (g *glmmProblem) hFactor() bool {
	n0, r := g.n0, g.r
	ld := 0.0
	for k := 0; k < n0; k++ {
		dk := g.hd[k]
		ld += math.Log(dk)
		row := g.hb[k*r : (k+1)*r]
		for a, ba := range row {
			if ba == 0 {
				continue
			}
			v := ba / dk
			for b := 0; b <= a; b++ {
				g.hs[a*r+b] -= v * row[b]
			}
		}
	}
	if !cholLower(g.hs, r) {
		return false
	}
	for a := 0; a < r; a++ {
		ld += 2 * math.Log(g.hs[a*r+a])
	}
	g.ldH = ld
	return true
}

// hSolve solves H x = v in place with the factorized blocks:
// x1 = S⁻¹(v1 − B'D⁻¹v0), x0 = D⁻¹(v0 − B x1).
func (g *glmmProblem) hSolve(v []float64) {
	n0, r := g.n0, g.r
	t := g.t1
	copy(t, v[n0:])
	for k := 0; k < n0; k++ {
		c := v[k] / g.hd[k]
		for a, ba := range g.hb[k*r : (k+1)*r] {
			t[a] -= ba * c
		}
	}
	forwardSolve(g.hs, r, t)
	backSolve(g.hs, r, t)
	copy(v[n0:], t)
	for k := 0; k < n0; k++ {
		s := v[k]
		for a, ba := range g.hb[k*r : (k+1)*r] {
			s -= ba * t[a]
		}
		v[k] = s / g.hd[k]
	}
}

// aicConstant is aic(y, w, μ) − Σ devres(y, μ, w) at g.mu: the
// binomial-coefficient terms lme4's Laplace objective adds (0 for 0/1 data).
func (g *glmmProblem) aicConstant() float64 {
	c := 0.0
	for i, y := range g.y {
		c += -2*glmDBinomLog(math.Round(g.w[i]*y), math.Round(g.w[i]), g.mu[i]) - glmBinomDevRes(y, g.mu[i], g.w[i])
	}
	return c
}

// rxCov is (RX'RX)⁻¹ at the current modes: the fixed-effect covariance of
// vcov(fit, use.hessian = FALSE), RX'RX = X'WX − (ΛZ'WX)'(L L')⁻¹(ΛZ'WX).
func (g *glmmProblem) rxCov(theta []float64) ([][]float64, bool) {
	n, p, q := len(g.y), len(g.x[0]), g.q
	rxtrx := make([]float64, p*p)
	zwx := make([]float64, q*p) // ΛZ'WX, row a
	wt := make([]float64, n)
	for i := 0; i < n; i++ {
		wt[i] = g.w[i] * g.mu[i] * (1 - g.mu[i])
		for j := 0; j < p; j++ {
			for k := 0; k < p; k++ {
				rxtrx[j*p+k] += wt[i] * g.x[i][j] * g.x[i][k]
			}
			for f := range g.idx {
				a := g.offs[f] + g.idx[f][i]
				zwx[a*p+j] += math.Abs(theta[f]) * wt[i] * g.x[i][j]
			}
		}
	}
	if g.rows != nil {
		th := math.Abs(theta[0])
		for k, rows := range g.rows {
			sw := 0.0
			for _, i := range rows {
				sw += wt[i]
			}
			l2 := 1 + th*th*sw
			for j := 0; j < p; j++ {
				for m := 0; m < p; m++ {
					rxtrx[j*p+m] -= zwx[k*p+j] * zwx[k*p+m] / l2
				}
			}
		}
	} else {
		// The blocks of H are factorized from the last devMulti call:
		// subtract c_j' H⁻¹ c_m for the columns c_j of ΛZ'WX.
		cols := make([][]float64, p)
		sol := make([][]float64, p)
		for j := 0; j < p; j++ {
			cols[j] = make([]float64, q)
			for a := 0; a < q; a++ {
				cols[j][a] = zwx[a*p+j]
			}
			sol[j] = append([]float64(nil), cols[j]...)
			g.hSolve(sol[j])
		}
		for j := 0; j < p; j++ {
			for m := 0; m < p; m++ {
				s := 0.0
				for a := 0; a < q; a++ {
					s += cols[j][a] * sol[m][a]
				}
				rxtrx[j*p+m] -= s
			}
		}
	}
	if !cholLower(rxtrx, p) {
		return nil, false
	}
	return cholInverse(rxtrx, p), true
}

// fitGLMM minimizes the glmer objective jointly over (θ, β), as glmer's
// second optimization stage: Nelder–Mead from the fixed-effects GLM (θ = 1),
// then Newton steps on a central finite-difference Hessian (step 1e-4, as
// lme4's deriv12). vcov(β̂) is 2·[H⁻¹]_ββ for that Hessian H of the
// objective in (θ, β) — what vcov.merMod does by default; the RX-based value
// is returned as covRX.
func fitGLMM(fit *MixedFit, x [][]float64, y, w, off []float64, names []string, idx [][]int, nlev []int, nagq int) ([]float64, [][]float64, [][]float64, error) {
	p := len(x[0])
	nt := len(idx)
	g := newGLMMProblem(x, y, w, off, idx, nlev, nagq)
	start, err := FitGLM(x, y, names, GLMOptions{Family: Binomial, Weights: w, Offset: off})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("mixed: starting GLM: %w", err)
	}
	for _, w := range start.Warnings {
		m := w.Error()
		if strings.HasPrefix(m, "non-integer #successes") {
			fit.Warnings = append(fit.Warnings, w) // glmer's binomial family warns the same
		}
		if strings.Contains(m, "separation") {
			// Random intercepts do not cure separation by a fixed effect: the
			// GLMM's estimates diverge as the GLM's do.
			fit.Warnings = append(fit.Warnings, errors.New("the fixed-effects logistic fit (the GLMM's start) shows "+m))
		}
	}
	d := nt + p
	v := make([]float64, d)
	for f := 0; f < nt; f++ {
		v[f] = 1
	}
	for j := 0; j < p; j++ {
		v[nt+j] = start.Coefs[j].Estimate
	}
	f := func(v []float64) float64 { return g.deviance(v[:nt], v[nt:]) }
	copy(v, nelderMead(f, v, 0.5, 1e-2, 1000))
	for k := 0; k < nt; k++ {
		v[k] = math.Abs(v[k])
	}
	const h = 1e-4
	hessian := func(v []float64) ([]float64, []float64, float64) {
		f0 := f(v)
		grad := make([]float64, d)
		hs := make([]float64, d*d)
		wv := append([]float64(nil), v...)
		for j := 0; j < d; j++ {
			wv[j] = v[j] + h
			fp := f(wv)
			wv[j] = v[j] - h
			fm := f(wv)
			wv[j] = v[j]
			grad[j] = (fp - fm) / (2 * h)
			hs[j*d+j] = (fp - 2*f0 + fm) / (h * h)
		}
		for j := 0; j < d; j++ {
			for k := j + 1; k < d; k++ {
				s := 0.0
				for _, sg := range [][2]float64{{1, 1}, {1, -1}, {-1, 1}, {-1, -1}} {
					wv[j], wv[k] = v[j]+sg[0]*h, v[k]+sg[1]*h
					s += sg[0] * sg[1] * f(wv)
				}
				wv[j], wv[k] = v[j], v[k]
				hs[j*d+k] = s / (4 * h * h)
				hs[k*d+j] = hs[j*d+k]
			}
		}
		return grad, hs, f0
	}
	fit.Converged = false
	var grad, hs []float64
	var f0 float64
	for it := 0; it < 30; it++ {
		grad, hs, f0 = hessian(v)
		l := append([]float64(nil), hs...)
		if !cholLower(l, d) {
			break
		}
		step := make([]float64, d)
		for j := range step {
			step[j] = -grad[j]
		}
		forwardSolve(l, d, step)
		backSolve(l, d, step)
		sz := 0.0
		for j := range step {
			sz = math.Max(sz, math.Abs(step[j]))
		}
		if sz < 1e-8 {
			fit.Converged = true
			break
		}
		t := 1.0
		wv := make([]float64, d)
		moved := false
		for half := 0; half < 30; half++ {
			for j := range wv {
				wv[j] = v[j] + t*step[j]
			}
			fw := f(wv)
			if fw < f0-1e-13*math.Abs(f0) {
				moved = true
				break
			}
			if fw <= f0 {
				// No decrease beyond rounding: the Newton step is the
				// finite-difference gradient's noise (about ε·|f|/h per
				// component, a step of 1e−8 and more on some data),
				// which the step-size test above cannot get below.
				break
			}
			t /= 2
		}
		if !moved {
			fit.Converged = true // no descent within rounding: at the optimum
			break
		}
		copy(v, wv)
		for k := 0; k < nt; k++ {
			v[k] = math.Abs(v[k])
		}
	}
	if grad == nil {
		return nil, nil, nil, errors.New("mixed: could not evaluate the GLMM deviance")
	}
	// θ at the boundary: the deviance is even in each θ, so an optimum near 0 is at 0.
	theta := append([]float64(nil), v[:nt]...)
	for k := range theta {
		if theta[k] < 1e-6 {
			theta[k] = 0
		}
	}
	beta := append([]float64(nil), v[nt:]...)
	fit.Criterion = g.deviance(theta, beta)
	// deviance(glmer fit): the conditional deviance at the modes g.deviance
	// left in g.mu.
	fit.Deviance, fit.DevianceKind = 0, "conditional"
	for i := range y {
		fit.Deviance += glmBinomDevRes(y[i], g.mu[i], w[i])
	}
	if nagq <= 1 {
		fit.Criterion += g.aicConstant()
	}
	fit.Theta = theta
	fit.Evaluations = g.evals

	covRX, ok := g.rxCov(theta)
	if !ok {
		return nil, nil, nil, errors.New("mixed: the fixed-effect information is not positive definite (collinear predictors or separation?)")
	}
	l := append([]float64(nil), hs...)
	hessOK := cholLower(l, d)
	cov := make([][]float64, p)
	var hinv [][]float64
	if hessOK {
		hinv = cholInverse(l, d)
	}
	for j := range cov {
		cov[j] = make([]float64, p)
		for k := range cov[j] {
			if hessOK {
				cov[j][k] = 2 * hinv[nt+j][nt+k]
			} else {
				cov[j][k] = covRX[j][k]
			}
		}
	}
	if !hessOK {
		fit.Warnings = append(fit.Warnings, errors.New("the finite-difference Hessian is not positive definite: fixed-effect covariance from RX (as lme4 falls back)"))
	}
	return beta, cov, covRX, nil
}

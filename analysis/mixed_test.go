package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// simMixed draws n rows in ng groups: x = [1, x1, x2] with x1 ~ N(0,1),
// x2 ~ U(0,1), a group effect b_g ~ N(0, sdG²), and y Gaussian (residual
// SD 1) or Bernoulli on the logit scale.
func simMixed(seed uint64, n, ng int, beta []float64, sdG float64, binomial bool) ([][]float64, []float64, []MixedGroup) {
	r := rand.New(rand.NewPCG(seed, 7))
	b := make([]float64, ng)
	for k := range b {
		b[k] = sdG * r.NormFloat64()
	}
	x := make([][]float64, n)
	y := make([]float64, n)
	g := MixedGroup{Name: "g", Levels: make([]string, n)}
	for i := range x {
		k := i % ng
		x[i] = []float64{1, r.NormFloat64(), r.Float64()}
		eta := b[k]
		for j, bj := range beta {
			eta += bj * x[i][j]
		}
		if binomial {
			if r.Float64() < 1/(1+math.Exp(-eta)) {
				y[i] = 1
			}
		} else {
			y[i] = eta + r.NormFloat64()
		}
		g.Levels[i] = fmt.Sprintf("g%d", k)
	}
	return x, y, []MixedGroup{g}
}

// crossedGroup is a second grouping factor "h" of m levels for n rows,
// crossed with simMixed's (row i in level (7i/3) mod m).
func crossedGroup(n, m int) MixedGroup {
	h := MixedGroup{Name: "h", Levels: make([]string, n)}
	for i := range h.Levels {
		h.Levels[i] = fmt.Sprintf("h%d", (i*7/3)%m)
	}
	return h
}

var mixedNames = []string{"(Intercept)", "x1", "x2"}

// TestMixedRecovery: over 40 simulated data sets per family, the 95% Wald
// intervals cover each true fixed effect at close to the nominal rate
// (at least 33 of 40, P ≈ 0.95 under correct coverage), and the group SD
// estimate averages close to the truth.
func TestMixedRecovery(t *testing.T) {
	beta := []float64{-0.3, 0.6, -0.8}
	for _, fam := range []GLMFamily{Gaussian, Binomial} {
		cover := make([]int, 3)
		sdSum := 0.0
		const reps = 40
		for rep := 0; rep < reps; rep++ {
			x, y, gs := simMixed(uint64(100+rep), 1500, 30, beta, 0.7, fam == Binomial)
			fit, err := FitMixed(x, y, mixedNames, gs, MixedOptions{Family: fam})
			if err != nil {
				t.Fatal(err)
			}
			if !fit.Converged {
				t.Errorf("%s rep %d: not converged", fam, rep)
			}
			for j, c := range fit.Coefficients {
				if c.CILow <= beta[j] && beta[j] <= c.CIHigh {
					cover[j]++
				}
			}
			sdSum += fit.RandomEffects[0].SD
		}
		for j, c := range cover {
			if c < 33 {
				t.Errorf("%s %s: CI covered the truth %d/%d times", fam, mixedNames[j], c, reps)
			}
		}
		if m := sdSum / reps; math.Abs(m-0.7) > 0.1 {
			t.Errorf("%s: mean group SD %.3f, truth 0.7", fam, m)
		}
		t.Logf("%s coverage %v/%d, mean group SD %.3f", fam, cover, reps, sdSum/reps)
	}
}

// TestMixedSingular: groups whose responses are identical multisets have no
// between-group variance: θ = 0 exactly, lme4's singular-fit warning, no
// panic, and the fixed effects equal the ordinary least-squares ones.
func TestMixedSingular(t *testing.T) {
	base := []float64{1.3, -0.2, 0.7, 2.1, 0.4, -1.0, 0.9, 1.6}
	var x [][]float64
	var y []float64
	g := MixedGroup{Name: "g"}
	for k := 0; k < 6; k++ {
		for i, v := range base {
			x = append(x, []float64{1, float64((i + k) % 3)})
			y = append(y, v)
			g.Levels = append(g.Levels, fmt.Sprint("g", k))
		}
	}
	for _, ml := range []bool{false, true} {
		fit, err := FitMixed(x, y, []string{"(Intercept)", "x"}, []MixedGroup{g}, MixedOptions{Family: Gaussian, ML: ml})
		if err != nil {
			t.Fatal(err)
		}
		if fit.Theta[0] != 0 || fit.RandomEffects[0].Variance != 0 {
			t.Errorf("ML %v: θ = %g, variance %g; want 0", ml, fit.Theta[0], fit.RandomEffects[0].Variance)
		}
		found := false
		for _, w := range fit.Warnings {
			found = found || strings.Contains(w.Error(), "boundary (singular) fit")
		}
		if !found {
			t.Errorf("ML %v: no singular-fit warning in %v", ml, fit.Warnings)
		}
		ols, err := FitGLM(x, y, []string{"(Intercept)", "x"}, GLMOptions{Family: Gaussian})
		if err != nil {
			t.Fatal(err)
		}
		for j, c := range fit.Coefficients {
			if math.Abs(c.Estimate-ols.Coefs[j].Estimate) > 1e-9 {
				t.Errorf("ML %v %s: %g, OLS %g", ml, c.Term, c.Estimate, ols.Coefs[j].Estimate)
			}
		}
	}
	// A binomial GLMM with no group effect: finite, no panic.
	var yb []float64
	for i := range y {
		yb = append(yb, float64(i%2))
	}
	fit, err := FitMixed(x, yb, []string{"(Intercept)", "x"}, []MixedGroup{g}, MixedOptions{Family: Binomial})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range fit.Coefficients {
		if math.IsNaN(c.Estimate) || math.IsNaN(c.SE) {
			t.Errorf("binomial singular: %+v", c)
		}
	}
	t.Logf("binomial: θ %v, warnings %v", fit.Theta, fit.Warnings)
}

func TestMixedBadInput(t *testing.T) {
	x := [][]float64{{1, 0}, {1, 1}, {1, 2}, {1, 3}}
	one := []MixedGroup{{Name: "g", Levels: []string{"a", "a", "a", "a"}}}
	if _, err := FitMixed(x, []float64{1, 2, 3, 4}, []string{"(Intercept)", "x"}, one, MixedOptions{Family: Gaussian}); err == nil || !strings.Contains(err.Error(), "at least 2") {
		t.Errorf("one-level group: %v", err)
	}
	two := []MixedGroup{{Name: "g", Levels: []string{"a", "b", "a", "b"}}}
	if _, err := FitMixed(x, []float64{0, 2, 1, 0}, []string{"(Intercept)", "x"}, two, MixedOptions{Family: Binomial}); err == nil || !strings.Contains(err.Error(), "0/1") {
		t.Errorf("non-binary outcome: %v", err)
	}
	if _, err := FitMixed(x, []float64{1, 2, 3, 4}, []string{"(Intercept)", "x"}, nil, MixedOptions{Family: Gaussian}); err == nil {
		t.Errorf("no grouping factor: no error")
	}
	// A constant predictor is collinear with the intercept: dropped with a warning.
	xc := [][]float64{{1, 5, 0}, {1, 5, 1}, {1, 5, 2}, {1, 5, 3}, {1, 5, 1}, {1, 5, 0}}
	gc := []MixedGroup{{Name: "g", Levels: []string{"a", "b", "c", "a", "b", "c"}}}
	fit, err := FitMixed(xc, []float64{1, 2, 2, 4, 1, 0}, []string{"(Intercept)", "c", "x"}, gc, MixedOptions{Family: Gaussian})
	if err != nil {
		t.Fatal(err)
	}
	if len(fit.Coefficients) != 2 || len(fit.Warnings) == 0 || !strings.Contains(fit.Warnings[0].Error(), "rank deficient") {
		t.Errorf("constant predictor: %+v %v", fit.Coefficients, fit.Warnings)
	}
}

// benchCPU runs fit b.N times and reports, beside the wall time, the
// process's CPU time per fit (user + system, all goroutines), which a
// shared machine disturbs less.
func benchCPU(b *testing.B, fit func() error) {
	b.Helper()
	var r0, r1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
	n := 0
	for b.Loop() {
		if err := fit(); err != nil {
			b.Fatal(err)
		}
		n++
	}
	syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
	cpu := r1.Utime.Nano() + r1.Stime.Nano() - r0.Utime.Nano() - r0.Stime.Nano()
	b.ReportMetric(float64(cpu)/float64(n), "cpu-ns/op")
}

// BenchmarkLMM: linear mixed model (REML, the default), 10,000 rows, 50
// groups (one factor: Brent on θ) and 50 × 10 crossed groups (Nelder–Mead,
// then coordinate-wise Brent).
func BenchmarkLMM(b *testing.B) {
	x, y, gs := simMixed(1, 10000, 50, []float64{-0.3, 0.6, -0.8}, 0.7, false)
	h := crossedGroup(len(y), 10)
	for _, c := range []struct {
		name string
		gs   []MixedGroup
	}{{"groups=50", gs}, {"groups=50x10", append(gs[:1:1], h)}} {
		b.Run(c.name, func(b *testing.B) {
			benchCPU(b, func() error {
				_, err := FitMixed(x, y, mixedNames, c.gs, MixedOptions{Family: Gaussian})
				return err
			})
		})
	}
}

// BenchmarkGLMMLaplace: logistic GLMM, 10,000 rows, 50 groups (target < 1 s).
func BenchmarkGLMMLaplace(b *testing.B) {
	x, y, gs := simMixed(1, 10000, 50, []float64{-0.3, 0.6, -0.8}, 0.7, true)
	benchCPU(b, func() error {
		_, err := FitMixed(x, y, mixedNames, gs, MixedOptions{Family: Binomial})
		return err
	})
}

// BenchmarkGLMMAGQ: logistic GLMM by adaptive Gauss–Hermite quadrature
// (glmer nAGQ = 10 and 25), 10,000 rows, 50 groups.
func BenchmarkGLMMAGQ(b *testing.B) {
	x, y, gs := simMixed(1, 10000, 50, []float64{-0.3, 0.6, -0.8}, 0.7, true)
	for _, q := range []int{10, 25} {
		b.Run(fmt.Sprintf("nAGQ=%d", q), func(b *testing.B) {
			benchCPU(b, func() error {
				_, err := FitMixed(x, y, mixedNames, gs, MixedOptions{Family: Binomial, NAGQ: q})
				return err
			})
		})
	}
}

// BenchmarkGLMMCrossed: logistic GLMM, Laplace, 10,000 rows, 50 × 10 crossed
// groups.
func BenchmarkGLMMCrossed(b *testing.B) {
	x, y, gs := simMixed(1, 10000, 50, []float64{-0.3, 0.6, -0.8}, 0.7, true)
	h := crossedGroup(len(y), 10)
	gs = append(gs, h)
	benchCPU(b, func() error {
		_, err := FitMixed(x, y, mixedNames, gs, MixedOptions{Family: Binomial})
		return err
	})
}

// TestGLMMDeterministic: the parallel deviance evaluations (one level or
// one chunk of rows per unit of work, partial sums added in order) give
// the same bits on one goroutine as on several, for one and for two
// grouping factors.
func TestGLMMDeterministic(t *testing.T) {
	x, y, gs := simMixed(3, 3000, 40, []float64{-0.3, 0.6, -0.8}, 0.9, true)
	h := crossedGroup(len(y), 6)
	for _, tc := range []struct {
		gs   []MixedGroup
		nagq int
	}{{gs, 1}, {gs, 7}, {append(gs[:1:1], h), 1}} {
		fit := func(procs int) *MixedFit {
			old := runtime.GOMAXPROCS(procs)
			defer runtime.GOMAXPROCS(old)
			f, err := FitMixed(x, y, mixedNames, tc.gs, MixedOptions{Family: Binomial, NAGQ: tc.nagq})
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
		a, b := fit(1), fit(4)
		if a.Criterion != b.Criterion || a.Theta[0] != b.Theta[0] {
			t.Errorf("%d factors, nAGQ %d: criterion %v vs %v, θ %v vs %v", len(tc.gs), tc.nagq, a.Criterion, b.Criterion, a.Theta, b.Theta)
		}
		for j := range a.Coefficients {
			if a.Coefficients[j] != b.Coefficients[j] {
				t.Errorf("%d factors, nAGQ %d: %+v vs %+v", len(tc.gs), tc.nagq, a.Coefficients[j], b.Coefficients[j])
			}
		}
	}
}

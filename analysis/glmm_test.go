package analysis

import (
	"math"
	"strings"
	"testing"
)

// TestGLMMFastDeviance: the product form of the deviance (groupDev, and
// groupStats for 0/1 data with unit weights) equals the exact deviance
// 2·Σ log(1 + exp(∓η)) for |η| < 36 and R's clamped glmBinomDevRes beyond
// (as the slow path), to 1e-12 relative (R's own residual loses digits
// forming 1 − μ for an unlikely outcome at large |η|: at η = 20, y = 0 it is
// 40.00000004, the exact value 40.000000004); and logProd does not
// overflow on 10⁴ factors near e^35.
func TestGLMMFastDeviance(t *testing.T) {
	eta0 := []float64{-400, -40, -35.9, -3, -0.5, 0, 0.2, 2.5, 20, 35.5, 37, 500}
	n := len(eta0)
	y := make([]float64, n)
	w := make([]float64, n)
	rows := make([]int, n)
	for i := range y {
		y[i] = float64(i % 2)
		w[i] = 1
		rows[i] = i
	}
	x := make([][]float64, n)
	for i := range x {
		x[i] = []float64{1}
	}
	g := newGLMMProblem(x, y, w, eta0, [][]int{make([]int, n)}, []int{1}, 1)
	if !g.unit {
		t.Fatal("0/1 data with unit weights not detected")
	}
	g.linpred([]float64{0})
	for _, tu := range [][2]float64{{0.8, 0.3}, {1.5, -2}, {0, 1}, {2, 200}} {
		theta, u := tu[0], tu[1]
		want := 0.0
		for i := range y {
			eta := eta0[i] + theta*u
			switch {
			case math.Abs(eta) >= 36 || math.Abs(eta0[i]) >= 300:
				want += glmBinomDevRes(y[i], glmLogitInv(eta), 1)
			case y[i] == 1:
				want += 2 * softplus(-eta)
			default:
				want += 2 * softplus(eta)
			}
		}
		got := g.groupDev(rows, theta, u)
		got2, _, _ := g.groupStats(rows, theta, u, true, false)
		for _, v := range []float64{got, got2} {
			if math.Abs(v-want) > 1e-12*want {
				t.Errorf("θ %g u %g: %.17g, want %.17g", theta, u, v, want)
			}
		}
	}
	lp := logProd{p: 1}
	for k := 0; k < 10000; k++ {
		lp.mul(math.Exp(35))
	}
	if v := lp.log(); math.Abs(v-350000) > 1e-6 {
		t.Errorf("log of the product: %v, want 350000", v)
	}
}

// softplus is log(1 + e^x), computed stably.
func softplus(x float64) float64 {
	if x > 0 {
		return x + math.Log1p(math.Exp(-x))
	}
	return math.Log1p(math.Exp(x))
}

// TestGLMMSeparation: x > 0 predicts y perfectly; the GLMM fit neither
// panics nor errors, and warns about separation (from its starting GLM).
func TestGLMMSeparation(t *testing.T) {
	var x [][]float64
	var y []float64
	g := MixedGroup{Name: "g"}
	for i := 0; i < 60; i++ {
		v := float64(i%13)/6 - 1 + 0.01
		x = append(x, []float64{1, v})
		y = append(y, 0)
		if v > 0 {
			y[i] = 1
		}
		g.Levels = append(g.Levels, string(rune('a'+i%6)))
	}
	for _, q := range []int{1, 5} {
		fit, err := FitMixed(x, y, []string{"(Intercept)", "x"}, []MixedGroup{g}, MixedOptions{Family: Binomial, NAGQ: q})
		if err != nil {
			t.Fatalf("nAGQ %d: %v", q, err)
		}
		found := false
		for _, w := range fit.Warnings {
			if strings.Contains(w.Error(), "separation") && strings.Contains(w.Error(), "x (|β|") {
				found = true
			}
		}
		if !found {
			t.Errorf("nAGQ %d: no separation warning naming x: %v", q, fit.Warnings)
		}
	}
}

// TestGLMMNonIntegerSuccesses: proportions whose successes w·y are not
// whole numbers fit, with R's (and glmer's) warning.
func TestGLMMNonIntegerSuccesses(t *testing.T) {
	y := []float64{0.5, 0.25, 1, 0.3, 0, 0.7, 0.6, 0.1}
	w := []float64{3, 4, 2, 1, 2, 5, 2, 3}
	x := make([][]float64, len(y))
	for i := range x {
		x[i] = []float64{1}
	}
	g := MixedGroup{Name: "g", Levels: []string{"a", "a", "b", "b", "c", "c", "a", "b"}}
	fit, err := FitMixed(x, y, []string{"(Intercept)"}, []MixedGroup{g}, MixedOptions{Family: Binomial, Weights: w})
	if err != nil {
		t.Fatal(err)
	}
	if len(fit.Warnings) == 0 || !strings.HasPrefix(fit.Warnings[0].Error(), "non-integer #successes") {
		t.Errorf("warnings %v", fit.Warnings)
	}
}

package analysis

import (
	"math"
	"math/rand/v2"
	"testing"
)

// withoutCertify runs f with FitLogistic comparing computed objectives at
// every step (the path before descentCertain) and computing every row's
// values at every point.
func withoutCertify(f func()) {
	certifyDescent, reuseValues = false, false
	defer func() { certifyDescent, reuseValues = true, true }()
	f()
}

func sameFit(a, b LogisticFit) bool {
	return math.Float64bits(a.Intercept) == math.Float64bits(b.Intercept) &&
		math.Float64bits(a.Slope) == math.Float64bits(b.Slope) &&
		math.Float64bits(a.Grad) == math.Float64bits(b.Grad) && a.Iter == b.Iter && a.Class == b.Class
}

// TestLogisticCertifyKeepsBits: skipping the objective on steps whose
// decrease is certain (descentCertain) and reusing the values of rows
// whose z did not change give the same fits, bit for bit and iteration
// for iteration, as comparing the objectives at every step and computing
// every value,
// on random problems (sizes 2–400, slopes and penalties over several
// orders of magnitude, fractional outcomes, zero weights, near-separated
// data) and on every replicate of a METR bootstrap.
func TestLogisticCertifyKeepsBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 7))
	skipped := 0
	for trial := range 3000 {
		n := 2 + rng.IntN(400)
		x, y, w := make([]float64, n), make([]float64, n), make([]float64, n)
		a0 := 6 * (rng.Float64() - 0.5)
		b0 := -math.Pow(10, 2*rng.Float64()-1.5)
		if trial%7 == 0 {
			b0 *= 30 // near separation
		}
		for i := range x {
			x[i] = math.Round(16*rng.NormFloat64()) / 4
			if i > 0 && rng.IntN(3) == 0 {
				x[i] = x[i-1] // repeated x, as fitBuf writes tasks
			}
			p := 1 / (1 + math.Exp(-(a0 + b0*x[i])))
			if rng.Float64() < p {
				y[i] = 1
			}
			if trial%5 == 0 {
				y[i] = rng.Float64()
			}
			w[i] = rng.ExpFloat64()
			if rng.IntN(10) == 0 {
				w[i] = 0
			}
		}
		C := math.Pow(10, 4*rng.Float64()-2)
		got, err := FitLogistic(x, y, w, C)
		var want LogisticFit
		var werr error
		withoutCertify(func() { want, werr = FitLogistic(x, y, w, C) })
		if (err == nil) != (werr == nil) {
			t.Fatalf("trial %d: error %v, without certification %v", trial, err, werr)
		}
		if !sameFit(got, want) {
			t.Fatalf("trial %d (n %d, C %g): %+v, without certification %+v", trial, n, C, got, want)
		}
		if want.Class < 0 {
			skipped++
		}
	}
	if skipped < 2000 {
		t.Fatalf("only %d of 3000 random problems had both outcomes", skipped)
	}

	runs, _, _ := metrHorizonRuns(t)
	opt := HorizonOptions{Regularization: 0.1, Quantiles: []float64{0.5, 0.8}, Boot: 300, Seed: 42, Level: 0.95}
	got, err := Horizons(runs, opt)
	if err != nil {
		t.Fatal(err)
	}
	var want *HorizonResult
	withoutCertify(func() { want, err = Horizons(runs, opt) })
	if err != nil {
		t.Fatal(err)
	}
	for a := range got.Agents {
		if !sameFit(got.Agents[a].Fit, want.Agents[a].Fit) {
			t.Errorf("agent %s: %+v, without certification %+v", got.Agents[a].Agent, got.Agents[a].Fit, want.Agents[a].Fit)
		}
		for b := range got.Boot {
			for j, v := range got.Boot[b][a] {
				if u := want.Boot[b][a][j]; math.Float64bits(v) != math.Float64bits(u) {
					t.Fatalf("agent %s, replicate %d, quantile %d: %v, without certification %v", got.Agents[a].Agent, b, j, v, u)
				}
			}
		}
	}
}

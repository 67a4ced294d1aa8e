package analysis

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
)

// TestDotLanesMatchesGonum: dotLanes gives the bits of gonum's amd64
// assembly for floats.Dot on vectors of every length up to 70 (each tail
// of 0–3 products), with values of mixed sign and magnitude where the
// order of summation shows in the last bits, so replicates are the same on
// every platform. Elsewhere floats.Dot sums in another order, and the test
// checks dot against dotLanes instead.
func TestDotLanesMatchesGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	orderShows := 0
	for trial := range 2000 {
		n := trial % 71
		x, y := make([]float64, n), make([]float64, n)
		for i := range x {
			x[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(9)-4))
			y[i] = rng.Float64()
		}
		got := dotLanes(x, y)
		if d := dot(x, y); math.Float64bits(d) != math.Float64bits(got) {
			t.Fatalf("n=%d: dot %v, dotLanes %v", n, d, got)
		}
		var plain float64
		for i := range x {
			plain += float64(x[i] * y[i])
		}
		if plain != got {
			orderShows++
		}
		if !gonumDotIsLanes {
			continue
		}
		if want := floats.Dot(x, y); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("n=%d: dotLanes %v (%#x), gonum's assembly %v (%#x)", n, got, math.Float64bits(got), want, math.Float64bits(want))
		}
	}
	// The test can fail: on most of these vectors plain-order summation
	// gives other bits.
	if orderShows < 500 {
		t.Errorf("plain order differed on %d of 2000 vectors; the test does not tell orders apart", orderShows)
	}
}

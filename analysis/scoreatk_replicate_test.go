package analysis

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestReplicateMatchesDirect: the summed-by-parts replicate equals score@k
// computed directly (ScoreAtK) on the resample its counts describe, for
// every k, for tasks with ties, one run, and truncated k (k > n).
func TestReplicateMatchesDirect(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	ks := []int{1, 2, 3, 4, 8, 16, 40}
	for trial := 0; trial < 200; trial++ {
		n := 1 + rng.IntN(30)
		s := make([]float64, n)
		for j := range s {
			s[j] = math.Round(rng.Float64()*8) / 8 // ties
		}
		short := ShortTasks(trial % 2)
		p := prepareTask(TaskScores{Task: "t", Scores: s}, ks, short)
		var sc replicateScratch
		est := make([]float64, len(ks))
		stream := uint64(trial)<<32 | 7
		p.replicate(&sc, 11, stream, est)

		var g rand.PCG
		g.Seed(11, stream)
		counts := make([]int32, n)
		drawCounts(&g, counts)
		var res []float64
		for j, c := range counts {
			for range c {
				res = append(res, p.s[j])
			}
		}
		if len(res) != n {
			t.Fatalf("resample of %d runs has %d", n, len(res))
		}
		for i, k := range ks {
			if p.ks[i] == 0 {
				continue
			}
			want := ScoreAtK(res, p.ks[i], false)
			if math.Abs(est[i]-want) > 1e-12 {
				t.Fatalf("n=%d k=%d (effective %d): replicate %v, direct %v", n, k, p.ks[i], est[i], want)
			}
		}
	}
}

// TestDrawCountsUniform: the 16-bit draws (n = 7, 100,000 resamples) and
// the 32-bit draws (n = 5,000, 140 resamples) are uniform over [0, n)
// (chi-squared over 7 cells, 700,000 draws; the 0.999 quantile of χ²(6) is
// 22.46; the 32-bit cells are runs 0–714, 715–1429, …), every resample
// has exactly n draws, and a given stream always gives the same counts.
func TestDrawCountsUniform(t *testing.T) {
	for _, c := range []struct{ n, resamples int }{{7, 100000}, {5000, 140}} {
		var g rand.PCG
		g.Seed(1, 2)
		total := make([]int, 7)
		counts := make([]int32, c.n)
		for r := 0; r < c.resamples; r++ {
			clear(counts)
			drawCounts(&g, counts)
			sum := 0
			for j, x := range counts {
				total[j*7/c.n] += int(x)
				sum += int(x)
			}
			if sum != c.n {
				t.Fatalf("n=%d: resample of %d draws", c.n, sum)
			}
		}
		var chi2 float64
		for _, x := range total {
			d := float64(x) - 100000
			chi2 += d * d / 100000
		}
		if chi2 > 22.46 {
			t.Errorf("n=%d: chi-squared %.2f > 22.46: %v", c.n, chi2, total)
		}
	}
	var g rand.PCG
	a, b := make([]int32, 13), make([]int32, 13)
	g.Seed(3, 4)
	drawCounts(&g, a)
	g.Seed(3, 4)
	drawCounts(&g, b)
	if !slices.Equal(a, b) {
		t.Errorf("same stream, other counts: %v %v", a, b)
	}
}

// TestQuantileSelect: selection gives exactly QuantileType7 of the sorted
// sample, with ties, for every level on a grid.
func TestQuantileSelect(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for trial := 0; trial < 300; trial++ {
		n := 1 + rng.IntN(200)
		x := make([]float64, n)
		for i := range x {
			x[i] = math.Round(rng.NormFloat64() * 4)
		}
		sorted := slices.Clone(x)
		slices.Sort(sorted)
		for _, p := range []float64{0, 0.005, 0.025, 0.05, 0.5, 0.95, 0.975, 0.995, 1} {
			y := slices.Clone(x)
			if got, want := quantileType7Select(y, p), QuantileType7(sorted, p); got != want {
				t.Fatalf("n=%d p=%v: select %v, sort %v", n, p, got, want)
			}
		}
	}
}

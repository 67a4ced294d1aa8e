package analysis

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
)

// TestReplicateMatchesDirect: the summed-by-parts replicate equals score@k
// computed directly (ScoreAtK) on the resample its counts describe, for
// every k, for tasks with ties, one run, and truncated k (k > n), by both
// ways of summing (D(P) and dot products, and the sum over drops between
// distinct scores of scoreatk_ties.go), whichever tieTablesPay picks.
func TestReplicateMatchesDirect(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	ks := []int{1, 2, 3, 4, 8, 16, 24, 40} // tieCols of them
	var sc replicateScratch
	paths := map[string]int{}
	for trial := 0; trial < 600; trial++ {
		n := 1 + rng.IntN(50)
		s := make([]float64, n)
		levels := []float64{2, 8, 1 << 20}[trial%3] // many ties … almost none
		for j := range s {
			s[j] = math.Round(rng.Float64()*levels) / levels
		}
		short := ShortTasks(trial % 2)
		p := prepareTask(TaskScores{Task: "t", Scores: s}, ks, short, 10000)
		p.exact = nil // the outcome table has its own tests (TestExactTable*)
		if !tieTablesPay(p) {
			p.ties = nil
		}
		path := "dense"
		switch trial % 4 {
		case 1:
			p.ties = nil
		case 2:
			p.ties = newTieTables(p)
		}
		if p.ties != nil {
			path = "ties"
		}
		paths[path]++
		est := make([]float64, len(ks)) // replicate adds 1·score@k to zeros
		stream := uint64(trial)<<32 | 7
		p.replicate(&sc, 11, stream, est)
		if slices.ContainsFunc(sc.counts, func(c int32) bool { return c != 0 }) {
			t.Fatalf("n=%d %s: counts not cleared after the replicate", n, path)
		}

		var g rand.PCG
		g.Seed(11, stream)
		counts := make([]int32, n)
		drawCounts(&g, identityGroup(len(counts)), thresh16(len(counts)), counts)
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
				t.Fatalf("n=%d k=%d (effective %d), %s: replicate %v, direct %v", n, k, p.ks[i], path, est[i], want)
			}
		}
	}
	if paths["dense"] < 100 || paths["ties"] < 100 {
		t.Errorf("paths tried: %v", paths)
	}
}

// TestTieTablesPay: the sum over drops is chosen for a task with many ties
// and few values of k, not for one without ties and more than tieCols k;
// the outcome table, for a task with few possible resamples only.
func TestTieTablesPay(t *testing.T) {
	tied := make([]float64, 40)
	distinct := make([]float64, 40)
	for j := range tied {
		tied[j] = float64(j % 3)
		distinct[j] = float64(j)
	}
	if p := prepareTask(TaskScores{Scores: tied}, []int{1, 2, 4, 8, 16, 32}, DropShort, 10000); p.exact == nil {
		t.Error("40 runs, 3 distinct scores (861 outcomes): no outcome table")
	}
	tied5 := make([]float64, 40)
	for j := range tied5 {
		tied5[j] = float64(j % 5)
	}
	if p := prepareTask(TaskScores{Scores: tied5}, []int{1, 2, 4, 8, 16, 32}, DropShort, 10000); p.exact != nil || p.ties == nil {
		t.Errorf("40 runs, 5 distinct scores (135,751 outcomes): outcome table %v, sum over drops %v", p.exact != nil, p.ties != nil)
	}
	if p := prepareTask(TaskScores{Scores: distinct}, []int{1, 2, 3, 4, 5, 6, 7, 8, 9}, DropShort, 10000); p.ties != nil {
		t.Error("9 values of k: more than tieCols, yet the sum over drops was chosen")
	}
	if p := prepareTask(TaskScores{Scores: distinct}, []int{1, 2, 4, 8, 16, 32}, DropShort, 10000); p.ties != nil {
		t.Error("40 distinct scores: sum over drops chosen")
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
			drawCounts(&g, identityGroup(len(counts)), thresh16(len(counts)), counts)
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
	drawCounts(&g, identityGroup(13), thresh16(13), a)
	g.Seed(3, 4)
	drawCounts(&g, identityGroup(13), thresh16(13), b)
	if !slices.Equal(a, b) {
		t.Errorf("same stream, other counts: %v %v", a, b)
	}
}

// TestQuantileSelect: selection gives exactly QuantileType7 of the sorted
// sample, with ties, for every level on a grid.
func TestQuantileSelect(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for trial := 0; trial < 330; trial++ {
		n := 1 + rng.IntN(200)
		if trial >= 300 { // past Floyd–Rivest's sampling threshold
			n = 601 + rng.IntN(20000)
		}
		x := make([]float64, n)
		for i := range x {
			x[i] = math.Round(rng.NormFloat64() * 4)
			if trial%2 == 1 {
				x[i] = rng.NormFloat64() // no ties
			}
		}
		sorted := slices.Clone(x)
		slices.Sort(sorted)
		for _, p := range []float64{0, 0.005, 0.025, 0.05, 0.5, 0.95, 0.975, 0.995, 1} {
			y := slices.Clone(x)
			if got, want := quantileType7Select(y, p), QuantileType7(sorted, p); got != want {
				t.Fatalf("n=%d p=%v: select %v, sort %v", n, p, got, want)
			}
			k := int(p * float64(n-1))
			v := selectNth(y, k)
			if v != sorted[k] || (k > 0 && slices.Max(y[:k]) > v) || (k+1 < n && slices.Min(y[k+1:]) < v) {
				t.Fatalf("n=%d k=%d: selectNth gave %v (sorted %v) or left x unpartitioned", n, k, v, sorted[k])
			}
		}
	}
}

// BenchmarkQuantileSelect: the 2.5 % and 97.5 % type-7 quantiles of
// 10,000 normal values (one score@k interval at B = 10,000).
func BenchmarkQuantileSelect(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, 10000)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	y := make([]float64, len(x))
	for b.Loop() {
		copy(y, x)
		quantileType7Select(y, 0.025)
		quantileType7Select(y, 0.975)
	}
}

// BenchmarkReplicatePaths: 1,000 replicates of each task by each way of
// summing (D(P) and dot products, "dense"; the sum over drops, "ties";
// tieTablesPay's pick, "noexact"; and with outcome tables where they fit,
// "auto"), k = 1…128 (powers of two), for METR's
// RE-Bench tasks (1,808 runs, 708 drops between distinct scores; skipped
// without ../shared) and for 7 tasks of n uniform scores (no ties). The
// costs tieTablesPay weighs come from here.
func BenchmarkReplicatePaths(b *testing.B) {
	ks := []int{1, 2, 4, 8, 16, 32, 64, 128}
	sets := map[string][]TaskScores{}
	for _, n := range []int{12, 38, 100} {
		sets[fmt.Sprintf("uniform-n%d", n)] = uniformTasks(rand.New(rand.NewPCG(1, 2)), 7, n)
	}
	if _, err := os.Stat(metrAllRuns); err == nil {
		sets["metr"] = slices.Concat(metrRunsB(b)...)
	}
	for _, name := range slices.Sorted(maps.Keys(sets)) {
		for _, path := range []string{"dense", "ties", "noexact", "auto"} {
			prep := make([]preparedTask, len(sets[name]))
			for i, t := range sets[name] {
				prep[i] = prepareTask(t, ks, DropShort, 10000)
				switch path {
				case "dense":
					prep[i].ties, prep[i].exact = nil, nil
				case "ties":
					prep[i].ties, prep[i].exact = newTieTables(prep[i]), nil
				case "noexact":
					if prep[i].exact != nil && tieTablesPay(prep[i]) {
						prep[i].ties = newTieTables(prep[i])
					}
					prep[i].exact = nil
				}
			}
			b.Run(name+"/"+path, func(b *testing.B) {
				var sc replicateScratch
				sums := make([]float64, len(ks))
				for b.Loop() {
					for rep := range 1000 {
						clear(sums)
						for ti := range prep {
							prep[ti].replicate(&sc, 1, uint64(ti)<<32|uint64(rep), sums)
						}
					}
				}
			})
		}
	}
}

// identityGroup is the grouping of n runs with distinct scores: draws
// counted per run.
func identityGroup(n int) []int32 {
	g := make([]int32, n)
	for j := range g {
		g[j] = int32(j)
	}
	return g
}

package analysis

import (
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"testing"
)

func uniformTasks(rng *rand.Rand, nTasks, n int) []TaskScores {
	tasks := make([]TaskScores, nTasks)
	for i := range tasks {
		s := make([]float64, n)
		for j := range s {
			s[j] = rng.Float64()
		}
		tasks[i] = TaskScores{Task: string(rune('a' + i)), Scores: s}
	}
	return tasks
}

// TestScoreAtKCurveDeterministic: the same seed gives identical results
// whatever the number of goroutines; another seed gives other intervals.
func TestScoreAtKCurveDeterministic(t *testing.T) {
	tasks := uniformTasks(rand.New(rand.NewPCG(1, 1)), 5, 30)
	opt := ScoreAtKOptions{Ks: []int{1, 2, 4, 8}, Boot: 2000, Seed: 42, Level: 0.95}
	a, err := ScoreAtKCurve(tasks, opt)
	if err != nil {
		t.Fatal(err)
	}
	prev := runtime.GOMAXPROCS(1)
	b, _ := ScoreAtKCurve(tasks, opt)
	runtime.GOMAXPROCS(prev)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("GOMAXPROCS changed the result:\n%+v\n%+v", a, b)
	}
	opt.Seed = 43
	c, _ := ScoreAtKCurve(tasks, opt)
	if c[0].CILow == a[0].CILow && c[0].CIHigh == a[0].CIHigh {
		t.Errorf("seed does not change the bootstrap")
	}
}

// TestScoreAtKCurveShortTasks: a task with fewer runs than k is dropped
// (and named) or truncated to its maximum.
func TestScoreAtKCurveShortTasks(t *testing.T) {
	tasks := []TaskScores{
		{Task: "long", Scores: []float64{1, 2, 3, 4}},
		{Task: "short", Scores: []float64{10, 0}},
		{Task: "blind", Scores: []float64{1, 3, 5, 7}, Random: true},
	}
	pts, err := ScoreAtKCurve(tasks, ScoreAtKOptions{Ks: []int{1, 4}})
	if err != nil {
		t.Fatal(err)
	}
	// k=1: means 2.5, 5, 4 → 11.5/3. k=4: long → 4 (max), short dropped, blind → mean 4.
	if math.Abs(pts[0].Estimate-11.5/3) > 1e-12 || pts[0].NTasks != 3 {
		t.Errorf("k=1: %+v", pts[0])
	}
	if pts[1].Estimate != 4 || pts[1].NTasks != 2 || !reflect.DeepEqual(pts[1].Dropped, []string{"short"}) || len(pts[1].Warnings) != 1 {
		t.Errorf("k=4 drop: %+v", pts[1])
	}
	// k=8 > every task's runs: "long" and "short" are dropped, but the
	// random-selection task is kept (its value, the mean 4, does not depend on k).
	pts, _ = ScoreAtKCurve(tasks, ScoreAtKOptions{Ks: []int{8}})
	if pts[0].Estimate != 4 || pts[0].NTasks != 1 || !reflect.DeepEqual(pts[0].Dropped, []string{"long", "short"}) {
		t.Errorf("k=8: %+v", pts[0])
	}
	pts, _ = ScoreAtKCurve(tasks, ScoreAtKOptions{Ks: []int{4}, Short: TruncateShort})
	if math.Abs(pts[0].Estimate-(4+10+4)/3.0) > 1e-12 || pts[0].NTasks != 3 {
		t.Errorf("k=4 truncate: %+v", pts[0])
	}
	if !math.IsNaN(pts[0].CILow) {
		t.Errorf("no bootstrap but CI %v", pts[0].CILow)
	}
	for _, bad := range []ScoreAtKOptions{{Ks: []int{0}}, {Ks: []int{1}, Boot: 10, Level: 1.5}, {Ks: []int{1}, Boot: -1}} {
		if _, err := ScoreAtKCurve(tasks, bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	if _, err := ScoreAtKCurve(nil, ScoreAtKOptions{Ks: []int{1}}); err != ErrNoTasks {
		t.Errorf("no tasks: %v", err)
	}
}

// TestScoreAtKCoverage simulates the coverage of the 95 % percentile
// interval. Scores are Uniform(0, 1), so the true expected best of k
// independent runs is k/(k+1) for every task, and the score@k estimator is
// unbiased for it (a U-statistic). 7 tasks × 16 runs (RE-Bench-like), B =
// 400, 300 studies. Observed (this seed, Go 1.26.8): percentile k=1
// 0.927, k=4 0.860; BCa k=1 0.933, k=4 0.817; studentized k=1 0.947, k=4
// 0.967 (the comment said 0.940/0.857 and 0.943/0.810 before; the
// percentile and BCa bits are unchanged, TestSeededBitsPinned).
//
// The percentile interval undercovers at k > 1 because score@k of a
// resample is biased low: resampling with replacement repeats runs, so k
// draws from a resample hold fewer distinct runs and their best is lower
// (numpy shows the same: boot_mean < estimate at large k in
// testdata/reference/scoreatk_boot_3a947ac.csv). METR's published
// intervals share this property. BCa does not repair it here (its bias
// correction assumes a monotone transformation to normality, which the
// discrete, tie-heavy replicate distribution at k/n = 1/4 lacks). The
// studentized interval (scoreatk_studentized.go) is centred on the
// bootstrap's own truth and holds its level (the slow
// TestScoreAtKIntervalCoverage measures all three on more scenarios). The
// bounds below guard against regressions, not against the methods' known
// bias: k=1 in [0.90, 0.99] for all, k=4 in [0.75, 0.99] (percentile),
// [0.70, 0.99] (BCa) and [0.91, 0.99] (studentized; SE 0.013).
func TestScoreAtKCoverage(t *testing.T) {
	if testing.Short() {
		t.Skip("coverage simulation skipped in -short mode")
	}
	rng := rand.New(rand.NewPCG(99, 100))
	ks := []int{1, 4}
	hits := make([]int, len(ks))
	bcaHits := make([]int, len(ks))
	studHits := make([]int, len(ks))
	const studies = 300
	for s := 0; s < studies; s++ {
		tasks := uniformTasks(rng, 7, 16)
		for _, iv := range []Interval{Percentile, BCa, Studentized} {
			pts, err := ScoreAtKCurve(tasks, ScoreAtKOptions{Ks: ks, Boot: 400, Seed: uint64(s), Level: 0.95, Interval: iv})
			if err != nil {
				t.Fatal(err)
			}
			for i, p := range pts {
				truth := float64(p.K) / float64(p.K+1)
				if p.CILow <= truth && truth <= p.CIHigh {
					switch iv {
					case BCa:
						bcaHits[i]++
					case Studentized:
						studHits[i]++
					default:
						hits[i]++
					}
				}
			}
		}
	}
	for i, k := range ks {
		cov := float64(studHits[i]) / studies
		t.Logf("k=%d: studentized coverage %.3f", k, cov)
		if lo := map[bool]float64{true: 0.90, false: 0.91}[k == 1]; cov < lo || cov > 0.99 {
			t.Errorf("k=%d: studentized coverage %.3f outside [%.2f, 0.99]", k, cov, lo)
		}
	}
	for i, k := range ks {
		cov := float64(bcaHits[i]) / studies
		t.Logf("k=%d: BCa coverage %.3f", k, cov)
		if lo := map[bool]float64{true: 0.90, false: 0.70}[k == 1]; cov < lo || cov > 0.99 {
			t.Errorf("k=%d: BCa coverage %.3f outside [%.2f, 0.99]", k, cov, lo)
		}
	}
	for i, k := range ks {
		cov := float64(hits[i]) / studies
		t.Logf("k=%d: observed coverage %.3f (nominal 0.95, %d studies)", k, cov, studies)
		lo := 0.90
		if k > 1 {
			lo = 0.75
		}
		if cov < lo || cov > 0.99 {
			t.Errorf("k=%d: coverage %.3f outside [%.2f, 0.99]", k, cov, lo)
		}
	}
}

// BenchmarkScoreAtKBootstrap: score@k for k = 1…128 (powers of two), B =
// 10,000, over 7 tasks with the run counts of METR's largest RE-Bench group
// (Claude 3 Opus at 30 min: 35–39 runs per task), as a proxy when ../shared
// is absent; see BenchmarkScoreAtKMETR for the real data.
func BenchmarkScoreAtKBootstrap(b *testing.B) {
	tasks := uniformTasks(rand.New(rand.NewPCG(1, 2)), 7, 38)
	ks := []int{1, 2, 4, 8, 16, 32, 64, 128}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ScoreAtKCurve(tasks, ScoreAtKOptions{Ks: ks, Boot: 10000, Seed: 1, Level: 0.95}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScoreAtKMETR: every RE-Bench (alias, time limit) group of METR's
// all_runs.jsonl @3a947ac, B = 10,000, k = 1…128 (powers of two; tasks with
// fewer runs dropped). Target (issue #3): < 2 s on the 2-core machine.
func BenchmarkScoreAtKMETR(b *testing.B) {
	groups := metrRunsB(b)
	ks := []int{1, 2, 4, 8, 16, 32, 64, 128}
	b.ReportAllocs()
	for b.Loop() {
		for _, g := range groups {
			if _, err := ScoreAtKCurve(g, ScoreAtKOptions{Ks: ks, Boot: 10000, Seed: 1, Level: 0.95}); err != nil && err != ErrNoTasks {
				b.Fatal(err)
			}
		}
	}
}

// TestBoundedDraw: draws stay in range and are uniform (chi-squared over
// 7 cells, 70,000 draws; the 0.999 quantile of χ²(6) is 22.46).
func TestBoundedDraw(t *testing.T) {
	var g rand.PCG
	g.Seed(1, 2)
	var counts [7]int
	for i := 0; i < 70000; i++ {
		v := boundedDraw(&g, 7)
		if v >= 7 {
			t.Fatalf("draw %d out of range", v)
		}
		counts[v]++
	}
	var chi2 float64
	for _, c := range counts {
		d := float64(c) - 10000
		chi2 += d * d / 10000
	}
	if chi2 > 22.46 {
		t.Errorf("χ² = %.2f over %v", chi2, counts)
	}
}

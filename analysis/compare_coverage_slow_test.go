//go:build slow

package analysis

import (
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"sync"
	"testing"
)

// TestCompareCoverage (issue 25 item 4; go test -tags slow -run
// TestCompareCoverage -v ./analysis) measures, for rdeval compare's
// paired hierarchical bootstrap, how often the 95 % intervals of the
// difference and of the ratio of two mean score@k miss the truth below
// (truth < low) and above (truth > high), for the percentile interval
// (the default), BCa (leave-one-task-out jackknife, opt.Interval = BCa), and
// for the ratio a log-scale normal interval exp(log R̂ ± z·sd(log R*)) and a
// log-scale basic interval exp(2·log R̂ − q(log R*)).
//
// Data (seeded, PCG(study, 1)): m tasks with difficulty d_t ~ N(0, τ²);
// side S's runs on task t score exp(d_t + a_S + s·ε), ε ~ N(0, 1). The
// truth is the population value over tasks: E[score@k] of a side is
// exp(a_S + τ²/2)·M_k(s), M_k(s) = E[max of k draws of e^{s·ε}] =
// ∫ e^{s z}·k·φ(z)·Φ(z)^{k−1} dz (trapezoid rule on [−12, 12], 24001
// points), which the exact score@k estimator is unbiased for. Each study
// uses B = 999 replicates, seed = study. The Monte Carlo SE of a 2.5 % tail
// rate over N studies is √(0.025·0.975/N): 0.35 % at N = 2000.
//
// Measured (miss % truth below / above; see docs/statistical-guarantees.md):
//
//	scenario                     diff pct     diff BCa    ratio pct   ratio BCa   ratio log-basic
//	7 tasks, 8 vs 4, k 1 vs 1    0.35/5.15    1.55/6.95   1.35/0.95   2.30/1.95   2.75/2.60
//	7 tasks, 8 vs 4, k 2 vs 1    0.30/13.60   1.90/8.70   0.75/1.40   3.25/1.85   3.65/1.90
//	20 tasks, 8 vs 8, k 1 vs 1   0.30/3.65    1.35/3.85   0.60/0.45   1.55/1.05   0.95/0.65
//	7 tasks, 16 vs 2, k 4 vs 1   0.40/18.20   2.25/13.65  4.10/0.85   8.15/1.65   9.85/3.45
//
// No interval keeps both tails near 2.5 % in every scenario, so the test
// asserts only regression guards on the default (percentile) intervals:
// coverage at least 78 % for the difference and 93 % for the ratio
// (measured minima 81.4 % and 95.05 %).
// compareScenario is one data-generating process of TestCompareCoverage.
type compareScenario struct {
	name      string
	m, nA, nB int
	kA, kB    int
	tau, s    float64
	aA, aB    float64
	studies   int
}

var compareScenarios = []compareScenario{
	{"7 tasks, 8 vs 4 runs, k 1 vs 1", 7, 8, 4, 1, 1, 0.8, 0.6, 0.3, 0, 2000},
	{"7 tasks, 8 vs 4 runs, k 2 vs 1", 7, 8, 4, 2, 1, 0.8, 0.6, 0.3, 0, 2000},
	{"20 tasks, 8 vs 8 runs, k 1 vs 1", 20, 8, 8, 1, 1, 0.8, 0.6, 0.3, 0, 2000},
	{"7 tasks, 16 vs 2 runs, k 4 vs 1", 7, 16, 2, 4, 1, 1.0, 0.8, 0, 0, 2000},
}

// truth is the scenario's population difference and ratio.
func (sc compareScenario) truth() (diff, ratio float64) {
	mk := func(k int, s float64) float64 {
		const n = 24001
		h := 24.0 / (n - 1)
		var sum float64
		for i := 0; i < n; i++ {
			z := -12 + float64(i)*h
			v := math.Exp(s*z) * float64(k) * math.Exp(-z*z/2) / math.Sqrt(2*math.Pi) * math.Pow(NormalCDF(z), float64(k-1))
			if i == 0 || i == n-1 {
				v /= 2
			}
			sum += v * h
		}
		return sum
	}
	tA := math.Exp(sc.aA+sc.tau*sc.tau/2) * mk(sc.kA, sc.s)
	tB := math.Exp(sc.aB+sc.tau*sc.tau/2) * mk(sc.kB, sc.s)
	return tA - tB, tA / tB
}

// data draws study's two sides from PCG(study, 1).
func (sc compareScenario) data(study int) (ta, tb []TaskScores) {
	rng := rand.New(rand.NewPCG(uint64(study), 1))
	ta, tb = make([]TaskScores, sc.m), make([]TaskScores, sc.m)
	for j := 0; j < sc.m; j++ {
		d := sc.tau * rng.NormFloat64()
		ta[j].Task, tb[j].Task = string(rune('a'+j)), string(rune('a'+j))
		for r := 0; r < sc.nA; r++ {
			ta[j].Scores = append(ta[j].Scores, math.Exp(d+sc.aA+sc.s*rng.NormFloat64()))
		}
		for r := 0; r < sc.nB; r++ {
			tb[j].Scores = append(tb[j].Scores, math.Exp(d+sc.aB+sc.s*rng.NormFloat64()))
		}
	}
	return ta, tb
}

// forStudies calls f for studies 0…n−1 on two goroutines; f must lock
// what it shares.
func forStudies(n int, f func(study int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	go func() {
		for i := 0; i < n; i++ {
			next <- i
		}
		close(next)
	}()
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for study := range next {
				f(study)
			}
		}()
	}
	wg.Wait()
}

func TestCompareCoverage(t *testing.T) {
	const B = 999
	zq := stdNormal.Quantile(0.975)
	for _, sc := range compareScenarios {
		trueDiff, trueRatio := sc.truth()
		// miss[method][0] below, [1] above.
		methods := []string{"diff percentile", "diff BCa", "diff basic", "diff normal", "ratio percentile", "ratio BCa", "ratio log-normal", "ratio log-basic"}
		miss := make([][2]int, len(methods))
		var mu sync.Mutex
		forStudies(sc.studies, func(study int) {
			ta, tb := sc.data(study)
			opt := ScoreAtKOptions{Boot: B, Seed: uint64(study), Level: 0.95}
			c, err := Compare(Side{ta, sc.kA}, Side{tb, sc.kB}, opt)
			if err != nil {
				t.Error(err)
				return
			}
			opt.Interval = BCa
			cb, err := Compare(Side{ta, sc.kA}, Side{tb, sc.kB}, opt)
			if err != nil {
				t.Error(err)
				return
			}
			reps := compareReplicates(ta, tb, sc.kA, sc.kB, opt)
			d := append([]float64(nil), reps.diff...)
			sort.Float64s(d)
			var lr []float64
			for _, r := range reps.ratio {
				lr = append(lr, math.Log(r))
			}
			sort.Float64s(lr)
			sdD, sdL := sd(d), sd(lr)
			lR := math.Log(c.Ratio)
			ivs := [][2]float64{
				{c.DiffLow, c.DiffHigh},
				{cb.DiffLow, cb.DiffHigh},
				{2*c.Diff - QuantileType7(d, 0.975), 2*c.Diff - QuantileType7(d, 0.025)},
				{c.Diff - zq*sdD, c.Diff + zq*sdD},
				{c.RatioLow, c.RatioHigh},
				{cb.RatioLow, cb.RatioHigh},
				{math.Exp(lR - zq*sdL), math.Exp(lR + zq*sdL)},
				{math.Exp(2*lR - QuantileType7(lr, 0.975)), math.Exp(2*lR - QuantileType7(lr, 0.025))},
			}
			mu.Lock()
			for k, iv := range ivs {
				truth := trueDiff
				if k >= 4 {
					truth = trueRatio
				}
				if truth < iv[0] {
					miss[k][0]++
				}
				if truth > iv[1] {
					miss[k][1]++
				}
			}
			mu.Unlock()
		})
		n := float64(sc.studies)
		t.Logf("%s (truth: diff %.4f, ratio %.4f; %d studies, MC SE of a 2.5 %% tail %.2f %%):", sc.name, trueDiff, trueRatio, sc.studies, 100*math.Sqrt(0.025*0.975/n))
		for k, name := range methods {
			t.Logf("  %-17s miss below %5.2f %%  above %5.2f %%  coverage %5.2f %%", name, 100*float64(miss[k][0])/n, 100*float64(miss[k][1])/n, 100*(1-float64(miss[k][0]+miss[k][1])/n))
		}
		for k, min := range map[int]float64{0: 0.78, 4: 0.93} {
			if cov := 1 - float64(miss[k][0]+miss[k][1])/n; cov < min {
				t.Errorf("%s: %s coverage %.4f < %g", sc.name, methods[k], cov, min)
			}
		}
	}
}

// TestCompareRatioTasksOnly (slow) checks the double-counting reading of
// TestCompareCoverage: the ratio's interval from the hierarchical bootstrap
// (tasks, then runs: Compare's) against one that resamples tasks only
// (UnitBootstrap with BootTasks), 8 vs 8 runs, k 1 vs 1, τ = 0.8, s = 0.6,
// a_A = 0.3 (true ratio e^0.3), B = 499, 600 studies (PCG(study, 1)).
// Measured misses % below/above: m = 7 hierarchical 0.33/0.50, tasks only
// 7.83/6.50; m = 20 hierarchical 0.33/0.33, tasks only 4.33/5.33. The
// hierarchical interval is far too wide, the tasks-only one too narrow
// with few tasks: resampling tasks only is no fix.
func TestCompareRatioTasksOnly(t *testing.T) {
	for _, m := range []int{7, 20} {
		tau, s, aA := 0.8, 0.6, 0.3
		truth := math.Exp(aA)
		var hier, tasks [2]int
		const N = 600
		for study := 0; study < N; study++ {
			rng := rand.New(rand.NewPCG(uint64(study), 1))
			ta, tb := make([]TaskScores, m), make([]TaskScores, m)
			for j := 0; j < m; j++ {
				d := tau * rng.NormFloat64()
				ta[j].Task, tb[j].Task = string(rune('a'+j)), string(rune('a'+j))
				for r := 0; r < 8; r++ {
					ta[j].Scores = append(ta[j].Scores, math.Exp(d+aA+s*rng.NormFloat64()))
				}
				for r := 0; r < 8; r++ {
					tb[j].Scores = append(tb[j].Scores, math.Exp(d+s*rng.NormFloat64()))
				}
			}
			ks := [][]int{make([]int, m), make([]int, m)}
			for j := range ks[0] {
				ks[0][j], ks[1][j] = 1, 1
			}
			ratio := func(v []float64) float64 { return v[0] / v[1] }
			for u, tally := range map[BootUnit]*[2]int{BootHierarchical: &hier, BootTasks: &tasks} {
				lo, hi, _, err := UnitBootstrap([][]TaskScores{ta, tb}, ks, u, 499, uint64(study), 0.95, ratio)
				if err != nil {
					t.Fatal(err)
				}
				if truth < lo {
					tally[0]++
				}
				if truth > hi {
					tally[1]++
				}
			}
		}
		t.Logf("m=%d ratio misses below/above %%: hierarchical %.2f/%.2f, tasks only %.2f/%.2f", m, 100*float64(hier[0])/N, 100*float64(hier[1])/N, 100*float64(tasks[0])/N, 100*float64(tasks[1])/N)
	}
}

// TestCompareCoverageStudentized measures Compare's studentized intervals
// (opt.Interval = Studentized: bootstrap-t of the difference and of the log
// ratio, compare_studentized.go) on TestCompareCoverage's scenarios, the
// same studies and bootstrap seeds (B = 999, 2000 studies; MC SE of a
// 2.5 % tail 0.35 %). RDEVAL_COMPARE_STUDIES=N runs the first N studies of
// each scenario only (a quick look; the table needs the full run):
//
//	go test -tags slow -count=1 -run TestCompareCoverageStudentized -v ./analysis
//
// Measured (20 s on the shared 2-core machine; miss % below / above):
//
//	scenario                     difference    log ratio
//	7 tasks, 8 vs 4, k 1 vs 1    0.80/8.90     4.00/2.45
//	7 tasks, 8 vs 4, k 2 vs 1    0.55/10.10    3.95/3.25
//	20 tasks, 8 vs 8, k 1 vs 1   2.05/7.75     3.15/3.15
//	7 tasks, 16 vs 2, k 4 vs 1   0.45/12.65    5.60/2.25
//
// Regression guards: coverage at least 85 % (difference) and 91 % (ratio).
func TestCompareCoverageStudentized(t *testing.T) {
	for _, sc := range compareScenarios {
		if n, err := strconv.Atoi(os.Getenv("RDEVAL_COMPARE_STUDIES")); err == nil && n > 0 {
			sc.studies = n
		}
		trueDiff, trueRatio := sc.truth()
		var diff, ratio [2]int
		var mu sync.Mutex
		forStudies(sc.studies, func(study int) {
			ta, tb := sc.data(study)
			c, err := Compare(Side{ta, sc.kA}, Side{tb, sc.kB}, ScoreAtKOptions{Boot: 999, Seed: uint64(study), Level: 0.95, Interval: Studentized})
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, x := range []struct {
				tally     *[2]int
				truth     float64
				low, high float64
			}{{&diff, trueDiff, c.DiffLow, c.DiffHigh}, {&ratio, trueRatio, c.RatioLow, c.RatioHigh}} {
				if x.truth < x.low {
					x.tally[0]++
				}
				if x.truth > x.high {
					x.tally[1]++
				}
			}
		})
		n := float64(sc.studies)
		t.Logf("%s (%d studies): studentized difference misses below %.2f %% above %.2f %%; log-ratio below %.2f %% above %.2f %%", sc.name, sc.studies,
			100*float64(diff[0])/n, 100*float64(diff[1])/n, 100*float64(ratio[0])/n, 100*float64(ratio[1])/n)
		if cov := 1 - float64(diff[0]+diff[1])/n; cov < 0.85 {
			t.Errorf("%s: studentized difference coverage %.4f < 0.85", sc.name, cov)
		}
		if cov := 1 - float64(ratio[0]+ratio[1])/n; cov < 0.91 {
			t.Errorf("%s: studentized ratio coverage %.4f < 0.91", sc.name, cov)
		}
	}
}

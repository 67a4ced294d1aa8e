package analysis

import (
	"errors"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestJackVarSorted: the O(n) leave-one-out values equal score@k of each
// leave-one-out sample computed directly (taskEstimate on n−1 runs), to
// 1e-12, for n = 2…12, every k, scores with ties.
func TestJackVarSorted(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 2; n <= 12; n++ {
		x := make([]float64, n)
		for j := range x {
			x[j] = float64(rng.IntN(6)) / 5
		}
		s := sortedDesc(x)
		for k := 1; k <= n; k++ {
			kk := min(k, n-1)
			loo := make([]float64, n)
			var m float64
			for j := range n {
				rest := append(append([]float64{}, s[:j]...), s[j+1:]...)
				loo[j] = taskEstimate(rest, kk, false)
				m += loo[j] / float64(n)
			}
			var want float64
			for _, v := range loo {
				want += (v - m) * (v - m)
			}
			want *= float64(n-1) / float64(n)
			got := jackVarSorted(s, ScoreAtKWeights(n-1, kk, nil), make([]float64, n))
			if math.Abs(got-want) > 1e-12 {
				t.Errorf("n=%d k=%d: %.17g, direct %.17g", n, k, got, want)
			}
		}
	}
}

// TestScoreAtKPlugIn: the plug-in value equals the mean of the maximum
// over all n^k ordered draws with replacement (enumerated), to 1e-12.
func TestScoreAtKPlugIn(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for n := 1; n <= 6; n++ {
		x := make([]float64, n)
		for j := range x {
			x[j] = float64(rng.IntN(4)) / 3
		}
		for k := 1; k <= 4; k++ {
			total, count := 0.0, 0
			idx := make([]int, k)
			for {
				best := math.Inf(-1)
				for _, i := range idx {
					best = max(best, x[i])
				}
				total += best
				count++
				d := 0
				for d < k && idx[d] == n-1 {
					idx[d] = 0
					d++
				}
				if d == k {
					break
				}
				idx[d]++
			}
			if got, want := ScoreAtKPlugIn(x, k, false), total/float64(count); math.Abs(got-want) > 1e-12 {
				t.Errorf("n=%d k=%d: %v, enumerated %v", n, k, got, want)
			}
		}
		if got := ScoreAtKPlugIn(x, 3, true); math.Abs(got-mean(x)) > 1e-15 {
			t.Errorf("random selection: %v, mean %v", got, mean(x))
		}
	}
}

// TestScoreAtKStudentizedReference compares the studentized interval
// with R's boot.ci(type = "stud") on METR groups
// (testdata/reference/scoreatk_stud.R: R 4.2.2, boot 1.3.28.1, R = 10,000
// stratified resamples, another generator). The estimate U, the plug-in V
// and the jackknife standard error are deterministic and must agree to
// 1e-9. The interval ends differ by Monte Carlo error (and boot.ci reads
// its quantiles on the normal scale, Davison & Hinkley §5.2.1, where we
// take type 7): over 20 seeds our ends at B = 10,000 moved with an sd of at
// most 0.14 bootstrap sd (TestStudentizedSeedSpread, -tags slow: upper ends at k=8,
// o1-preview 0.0140 against 0.110, Claude 3 Opus 0.0038 against 0.027), so
// two independent runs differ with an sd of about 0.2; the tolerance is 0.5
// bootstrap sd (about 2.5 sd). Measured differences: at most 0.26
// bootstrap sd (o1-preview k=4, upper end).
func TestScoreAtKStudentizedReference(t *testing.T) {
	if testing.Short() {
		t.Skip("bootstrap reference comparison skipped in -short mode")
	}
	groups := metrRuns(t)
	for _, r := range readReference(t, "scoreatk_stud_3a947ac.csv") {
		var tasks []TaskScores
		for task, s := range groups[[2]string{r[0], r[1]}] {
			tasks = append(tasks, TaskScores{Task: task, Scores: s})
		}
		sort.Slice(tasks, func(i, j int) bool { return tasks[i].Task < tasks[j].Task })
		k, _ := strconv.Atoi(r[2])
		nt, _ := strconv.Atoi(r[3])
		est, plug, se, lo, hi, sd := atof(t, r[4]), atof(t, r[5]), atof(t, r[6]), atof(t, r[7]), atof(t, r[8]), atof(t, r[9])
		pts, err := ScoreAtKCurve(tasks, ScoreAtKOptions{Ks: []int{k}, Boot: 10000, Seed: 3, Level: 0.95, Interval: Studentized})
		if err != nil {
			t.Fatal(err)
		}
		p := pts[0]
		var v, jv float64
		var in []preparedTask
		for _, ts := range tasks {
			if len(ts.Scores) >= k {
				in = append(in, preparePoint(ts, []int{k}, DropShort))
			}
		}
		for _, pt := range in {
			v += plugInSorted(pt.s, k, false) / float64(len(in))
			n := len(pt.s)
			jv += jackVarSorted(pt.s, ScoreAtKWeights(n-1, min(k, n-1), nil), make([]float64, n))
		}
		jse := math.Sqrt(jv) / float64(len(in))
		if p.NTasks != nt || math.Abs(p.Estimate-est) > 1e-9 || math.Abs(v-plug) > 1e-9 || math.Abs(jse-se) > 1e-9 {
			t.Errorf("%s %s k=%d: %d tasks, U %.12g V %.12g se %.12g; R %d, %.12g %.12g %.12g", r[0], r[1], k, p.NTasks, p.Estimate, v, jse, nt, est, plug, se)
		}
		tol := 0.5 * sd
		t.Logf("%s %s k=%d: studentized [%.4f, %.4f], boot.ci [%.4f, %.4f], tolerance %.4f", r[0], r[1], k, p.CILow, p.CIHigh, lo, hi, tol)
		if math.Abs(p.CILow-lo) > tol || math.Abs(p.CIHigh-hi) > tol {
			t.Errorf("%s %s k=%d: studentized [%.4f, %.4f], boot.ci [%.4f, %.4f] (tolerance %.4f)", r[0], r[1], k, p.CILow, p.CIHigh, lo, hi, tol)
		}
	}
}

// TestScoreAtKTaskBootstrap: ResampleTasks gives the interval of
// UnitBootstrap(BootTasks) (multiverse's task bootstrap, another stream
// layout) within Monte Carlo error (B = 20,000 each: 0.1 bootstrap sd), it
// has width with one run per task, where resampling runs has none (and
// says so), and a group with k > n/2 gets a LargeKWarning.
func TestScoreAtKTaskBootstrap(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	tasks := uniformTasks(rng, 9, 6)
	pts, err := ScoreAtKCurve(tasks, ScoreAtKOptions{Ks: []int{2}, Boot: 20000, Seed: 4, Level: 0.95, ResampleTasks: true})
	if err != nil {
		t.Fatal(err)
	}
	ks := make([]int, len(tasks))
	for i := range ks {
		ks[i] = 2
	}
	lo, hi, _, err := UnitBootstrap([][]TaskScores{tasks}, [][]int{ks}, BootTasks, 20000, 4, 0.95, func(m []float64) float64 { return m[0] })
	if err != nil {
		t.Fatal(err)
	}
	sd := (hi - lo) / 3.92
	if math.Abs(pts[0].CILow-lo) > 0.1*sd || math.Abs(pts[0].CIHigh-hi) > 0.1*sd {
		t.Errorf("task bootstrap [%.4f, %.4f], UnitBootstrap [%.4f, %.4f]", pts[0].CILow, pts[0].CIHigh, lo, hi)
	}
	for _, w := range pts[0].Warnings {
		t.Errorf("task bootstrap warns: %v", w)
	}

	one := uniformTasks(rng, 9, 1)
	runs, _ := ScoreAtKCurve(one, ScoreAtKOptions{Ks: []int{1}, Boot: 500, Seed: 1, Level: 0.95, Interval: Percentile})
	byTask, _ := ScoreAtKCurve(one, ScoreAtKOptions{Ks: []int{1}, Boot: 500, Seed: 1, Level: 0.95, ResampleTasks: true})
	if runs[0].CIHigh != runs[0].CILow || !(byTask[0].CIHigh > byTask[0].CILow) {
		t.Errorf("one run per task: runs [%v, %v], tasks [%v, %v]", runs[0].CILow, runs[0].CIHigh, byTask[0].CILow, byTask[0].CIHigh)
	}
	if len(runs[0].Warnings) != 1 || !strings.Contains(runs[0].Warnings[0].Error(), "every task has one run") {
		t.Errorf("one run per task: warnings %v", runs[0].Warnings)
	}
	big, _ := ScoreAtKCurve(tasks, ScoreAtKOptions{Ks: []int{3, 4}, Boot: 100, Seed: 1, Level: 0.95, Interval: Studentized})
	var lk *LargeKWarning
	if len(big[0].Warnings) != 0 || len(big[1].Warnings) != 1 || !errors.As(big[1].Warnings[0], &lk) || lk.K != 4 || lk.MinN != 6 {
		t.Errorf("k = 3, 4 of 6 runs: warnings %v, %v", big[0].Warnings, big[1].Warnings)
	}
}

// BenchmarkScoreAtKMETRStudentized is BenchmarkScoreAtKMETR with the
// studentized interval (the scoreatk default).
func BenchmarkScoreAtKMETRStudentized(b *testing.B) {
	groups := metrRunsB(b)
	ks := []int{1, 2, 4, 8, 16, 32, 64, 128}
	b.ReportAllocs()
	for b.Loop() {
		for _, g := range groups {
			if _, err := ScoreAtKCurve(g, ScoreAtKOptions{Ks: ks, Boot: 10000, Seed: 1, Level: 0.95, Interval: Studentized}); err != nil && err != ErrNoTasks {
				b.Fatal(err)
			}
		}
	}
}

// TestStudentizedOutcomeTables: for a task with an outcome table, every
// outcome's tabulated jackknife variance equals jackVarSorted of the
// resample its counts describe, and its score@k (the table's row) equals
// the weights' dot product with that resample, to 1e-12.
func TestStudentizedOutcomeTables(t *testing.T) {
	ts := TaskScores{Task: "t", Scores: []float64{0, 0, 0, 0.5, 0.5, 0.9, 0.9, 1}}
	ks := []int{1, 2, 4}
	p := prepareTask(ts, ks, DropShort, 10000)
	if p.exact == nil {
		t.Fatal("no outcome table")
	}
	st := newStudentTask(&p)
	st.outcomeJackVars(&p)
	o, nk := 0, len(ks)
	loo := make([]float64, len(p.s))
	exactOutcomeWalk(len(p.s), len(p.gs), func(counts []int) {
		var r []float64
		for v, c := range counts {
			for range c {
				r = append(r, p.gs[v])
			}
		}
		for i := range ks {
			if got, want := st.jv[o*nk+i], jackVarSorted(r, st.wn1[i], loo); math.Abs(got-want) > 1e-12 {
				t.Errorf("outcome %d k=%d: var %v, want %v", o, ks[i], got, want)
			}
			if got, want := p.exact.est[o*nk+i], dotRounded(st.wn[i], r); math.Abs(got-want) > 1e-12 {
				t.Errorf("outcome %d k=%d: score %v, want %v", o, ks[i], got, want)
			}
		}
		o++
	})
	if o*nk != len(st.jv) || o != len(p.exact.thresh) {
		t.Errorf("%d outcomes, %d variances, table of %d", o, len(st.jv), len(p.exact.thresh))
	}
}

// TestStudentizedScoreRange: with two runs per task the raw bootstrap-t
// ends leave the observed scores' range (measured without the clamp:
// k = 1 [0.067, 0.898], k = 2 [0.426, 1.515] for scores in [0, 0.86]); the
// interval is clamped into it and still contains the estimate, and an end
// inside the range is left as it is (k = 1's low end).
func TestStudentizedScoreRange(t *testing.T) {
	tasks := []TaskScores{
		{Task: "a", Scores: []float64{0, 0.59}},
		{Task: "b", Scores: []float64{0.52, 0.64}},
		{Task: "c", Scores: []float64{0.56, 0.28}},
		{Task: "d", Scores: []float64{0.41, 0.86}},
	}
	pts, err := ScoreAtKCurve(tasks, ScoreAtKOptions{Ks: []int{1, 2}, Boot: 999, Seed: 1, Level: 0.95, Interval: Studentized})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pts {
		t.Logf("k=%d: U %.4f [%.4f, %.4f]", p.K, p.Estimate, p.CILow, p.CIHigh)
		if !(p.CILow >= 0 && p.CIHigh <= 0.86 && p.CILow <= p.Estimate && p.Estimate <= p.CIHigh) {
			t.Errorf("k=%d: [%v, %v] leaves [0, 0.86] or misses U = %v", p.K, p.CILow, p.CIHigh, p.Estimate)
		}
	}
	if pts[1].CIHigh != 0.86 {
		t.Errorf("k=2: high end %v; want it clamped to the highest score 0.86", pts[1].CIHigh)
	}
	if !(pts[0].CILow > 0 && pts[0].CILow < pts[0].Estimate) {
		t.Errorf("k=1: low end %v; want it inside (0, U) (not clamped)", pts[0].CILow)
	}
}

package analysis

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAllocationCurve: by hand. Short runs (1800 s) score {0, 1} on one
// task; long runs (3600 s) score {0.6, 0.6}. Budget 3600: short@2 = 1
// (max of both), long@1 = 0.6 → short is best. Budget 1800: only short@1 =
// 0.5. Budget 5400: short@3 has too few runs (dropped, NaN), long does not
// divide it.
func TestAllocationCurve(t *testing.T) {
	allocs := []Allocation{
		{RunLengthS: 1800, Tasks: []TaskScores{{Task: "t", Scores: []float64{0, 1}}}},
		{RunLengthS: 3600, Tasks: []TaskScores{{Task: "t", Scores: []float64{0.6, 0.6}}}},
	}
	pts, err := AllocationCurve(allocs, []float64{1800, 3600, 5400}, ScoreAtKOptions{})
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		T, h float64
		k    int
		est  float64
		best bool
	}
	wants := []want{{1800, 1800, 1, 0.5, true}, {3600, 1800, 2, 1, true}, {3600, 3600, 1, 0.6, false}, {5400, 1800, 3, math.NaN(), false}}
	if len(pts) != len(wants) {
		t.Fatalf("%d points: %+v", len(pts), pts)
	}
	for i, w := range wants {
		p := pts[i]
		same := p.Estimate == w.est || (math.IsNaN(w.est) && math.IsNaN(p.Estimate))
		if p.BudgetS != w.T || p.RunLengthS != w.h || p.K != w.k || !same || p.Best != w.best {
			t.Errorf("point %d: %+v, want %+v", i, p, w)
		}
	}
}

// TestHoldoutWinnersCurse: two allocations with the same true distribution
// (Uniform(0,1), k=1, true value 0.5). Choosing the better observed one
// overstates it; the holdout estimate does not (within Monte Carlo error).
func TestHoldoutWinnersCurse(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	mk := func(h float64) Allocation {
		a := Allocation{RunLengthS: h}
		for task := 0; task < 7; task++ {
			s := make([]float64, 12)
			for i := range s {
				s[i] = rng.Float64()
			}
			a.Tasks = append(a.Tasks, TaskScores{Task: string(rune('a' + task)), Scores: s})
		}
		return a
	}
	var observed, holdout float64
	const studies = 60
	for i := 0; i < studies; i++ {
		// Two allocations of the same run length and k = 1: equal truth.
		allocs := []Allocation{mk(1800), mk(1800)}
		pts, err := AllocationCurve(allocs, []float64{1800}, ScoreAtKOptions{})
		if err != nil {
			t.Fatal(err)
		}
		best := math.Inf(-1)
		for _, p := range pts {
			best = math.Max(best, p.Estimate)
		}
		observed += best
		h, err := HoldoutBest(allocs, 1800, ScoreAtKOptions{Boot: 50, Seed: uint64(i), Level: 0.9})
		if err != nil {
			t.Fatal(err)
		}
		holdout += h.Estimate
	}
	observed /= studies
	holdout /= studies
	t.Logf("mean over %d studies: best observed %.4f, holdout %.4f, truth 0.5", studies, observed, holdout)
	if observed < 0.51 {
		t.Errorf("expected the winner's curse to inflate the observed best (got %.4f)", observed)
	}
	if math.Abs(holdout-0.5) > 0.02 {
		t.Errorf("holdout estimate %.4f, want ≈ 0.5", holdout)
	}
}

// TestAllocationBestSameTasks: an allocation that covers fewer tasks is not
// chosen as best even with a higher mean (its mean is over other tasks).
func TestAllocationBestSameTasks(t *testing.T) {
	allocs := []Allocation{
		// k=2 at T=3600: task "easy" has 2 runs, "hard" only 1 → hard dropped, mean 0.9.
		{RunLengthS: 1800, Tasks: []TaskScores{{Task: "easy", Scores: []float64{0.9, 0.9}}, {Task: "hard", Scores: []float64{0}}}},
		// k=1: both tasks, mean (0.8 + 0.1)/2 = 0.45.
		{RunLengthS: 3600, Tasks: []TaskScores{{Task: "easy", Scores: []float64{0.8}}, {Task: "hard", Scores: []float64{0.1}}}},
	}
	pts, err := AllocationCurve(allocs, []float64{3600}, ScoreAtKOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if pts[0].Best || !pts[1].Best || pts[0].NTasks != 1 || pts[1].NTasks != 2 {
		t.Errorf("%+v", pts)
	}
}

// TestAllocationNoFullTaskSet: at T = 7200 every cell drops a task (1800
// s@4: "hard" has 2 runs; 3600 s@2: "easy" has 1 run), so no cell is Best,
// every cell is flagged partial, and AllocationWarnings names the budget
// (and only it: at 3600 both cells cover both tasks, and 1800 s@2, (0.9 +
// 0.1)/2 = 0.5, beats 3600 s@1, (0.8 + 0.15)/2 = 0.475).
func TestAllocationNoFullTaskSet(t *testing.T) {
	allocs := []Allocation{
		{RunLengthS: 1800, Tasks: []TaskScores{{Task: "easy", Scores: []float64{0.9, 0.9, 0.9, 0.9}}, {Task: "hard", Scores: []float64{0, 0.1}}}},
		{RunLengthS: 3600, Tasks: []TaskScores{{Task: "easy", Scores: []float64{0.8}}, {Task: "hard", Scores: []float64{0.1, 0.2}}}},
	}
	pts, err := AllocationCurve(allocs, []float64{3600, 7200}, ScoreAtKOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pts {
		if p.AgentTasks != 2 || p.FullTaskSet != (p.NTasks == 2) {
			t.Errorf("%+v", p)
		}
		if p.BudgetS == 7200 && (p.Best || p.FullTaskSet) {
			t.Errorf("partial cell marked best or full: %+v", p)
		}
		if p.BudgetS == 3600 && p.Best != (p.RunLengthS == 1800) {
			t.Errorf("budget 3600: %+v", p)
		}
	}
	ws := AllocationWarnings(pts)
	if len(ws) != 1 {
		t.Fatalf("warnings %v", ws)
	}
	w, ok := ws[0].(PartialTaskSet)
	if !ok || w.BudgetS != 7200 || w.MaxTasks != 1 || w.AgentTasks != 2 {
		t.Errorf("warning %#v", ws[0])
	}
	if got, want := w.Error(), "budget 2 h: no allocation covers all 2 tasks (at most 1 of them); no best point, its cells are flagged partial"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestHoldoutFullTaskSet: at T = 3600, 1800 s@2 would win on "easy" alone
// (0.9), but "hard" has one 1800-s run, so no half of it has 2 runs and
// that allocation is never a candidate; 3600 s@1 covers both tasks in both
// halves and is chosen in every split.
func TestHoldoutFullTaskSet(t *testing.T) {
	allocs := []Allocation{
		{RunLengthS: 1800, Tasks: []TaskScores{{Task: "easy", Scores: []float64{0.9, 0.9, 0.9, 0.9}}, {Task: "hard", Scores: []float64{0}}}},
		{RunLengthS: 3600, Tasks: []TaskScores{{Task: "easy", Scores: []float64{0.5, 0.5}}, {Task: "hard", Scores: []float64{0.1, 0.1}}}},
	}
	h, err := HoldoutBest(allocs, 3600, ScoreAtKOptions{Boot: 20, Seed: 3, Level: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	if h.Splits != 20 || h.Chosen[3600] != 20 || h.Chosen[1800] != 0 || math.Abs(h.Estimate-0.3) > 1e-12 {
		t.Errorf("%+v", h)
	}
}

package analysis

import (
	"math"
	"testing"
)

func unitSides() (Side, Side) {
	a := Side{K: 2, Tasks: []TaskScores{
		{Task: "t1", Scores: []float64{0.1, 0.5, 0.3, 0.9}},
		{Task: "t2", Scores: []float64{0.0, 0.2, 0.4}},
		{Task: "t3", Scores: []float64{0.7, 0.6, 0.2, 0.1, 0.3}, Random: true},
		{Task: "t4", Scores: []float64{1.2, 0.8}},
	}}
	b := Side{K: 1, Tasks: []TaskScores{
		{Task: "t1", Scores: []float64{0.4, 0.6}},
		{Task: "t2", Scores: []float64{0.1, 0.3, 0.2}},
		{Task: "t3", Scores: []float64{0.5}},
		{Task: "t4", Scores: []float64{0.9, 1.0, 0.7}},
	}}
	return a, b
}

func constKs(n, k int) []int {
	ks := make([]int, n)
	for i := range ks {
		ks[i] = k
	}
	return ks
}

// TestUnitBootstrapHierarchicalIsCompare: the hierarchical unit on two
// sides draws exactly analysis.Compare's replicates (same seed), so its
// ratio and difference intervals are Compare's, to 1e-12.
func TestUnitBootstrapHierarchicalIsCompare(t *testing.T) {
	a, b := unitSides()
	c, err := Compare(a, b, ScoreAtKOptions{Boot: 500, Seed: 5, Level: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	sides := [][]TaskScores{a.Tasks, b.Tasks}
	ks := [][]int{constKs(4, 2), constKs(4, 1)}
	lo, hi, used, err := UnitBootstrap(sides, ks, BootHierarchical, 500, 5, 0.9, func(m []float64) float64 { return m[0] / m[1] })
	if err != nil || used != 500 {
		t.Fatal(err, used)
	}
	if math.Abs(lo-c.RatioLow) > 1e-12 || math.Abs(hi-c.RatioHigh) > 1e-12 {
		t.Errorf("ratio [%v, %v], Compare [%v, %v]", lo, hi, c.RatioLow, c.RatioHigh)
	}
	lo, hi, _, _ = UnitBootstrap(sides, ks, BootHierarchical, 500, 5, 0.9, func(m []float64) float64 { return m[0] - m[1] })
	if math.Abs(lo-c.DiffLow) > 1e-12 || math.Abs(hi-c.DiffHigh) > 1e-12 {
		t.Errorf("diff [%v, %v], Compare [%v, %v]", lo, hi, c.DiffLow, c.DiffHigh)
	}
}

// TestUnitBootstrapUnits: runs only has no spread when every task's runs
// are equal (but tasks differ); tasks only has none when every task has
// the same runs (but runs differ); the hierarchical interval covers both
// kinds of noise and is at least as wide as each on data with both.
func TestUnitBootstrapUnits(t *testing.T) {
	mean := func(m []float64) float64 { return m[0] }
	sameRuns := [][]TaskScores{{{Task: "a", Scores: []float64{0.2, 0.2, 0.2}}, {Task: "b", Scores: []float64{0.8, 0.8}}}}
	lo, hi, _, err := UnitBootstrap(sameRuns, [][]int{{1, 1}}, BootRuns, 200, 1, 0.95, mean)
	if err != nil || lo != 0.5 || hi != 0.5 {
		t.Errorf("runs, equal runs: [%v, %v] %v", lo, hi, err)
	}
	if lo, hi, _, _ = UnitBootstrap(sameRuns, [][]int{{1, 1}}, BootTasks, 200, 1, 0.95, mean); !(lo < 0.5 && hi > 0.5) {
		t.Errorf("tasks, different tasks: [%v, %v]", lo, hi)
	}
	sameTasks := [][]TaskScores{{{Task: "a", Scores: []float64{0.1, 0.9}}, {Task: "b", Scores: []float64{0.1, 0.9}}}}
	lo, hi, _, _ = UnitBootstrap(sameTasks, [][]int{{1, 1}}, BootTasks, 200, 1, 0.95, mean)
	if math.Abs(lo-0.5) > 1e-15 || math.Abs(hi-0.5) > 1e-15 {
		t.Errorf("tasks, equal tasks: [%v, %v]", lo, hi)
	}
	if lo, hi, _, _ = UnitBootstrap(sameTasks, [][]int{{1, 1}}, BootRuns, 200, 1, 0.95, mean); !(lo < 0.5 && hi > 0.5) {
		t.Errorf("runs, noisy runs: [%v, %v]", lo, hi)
	}
	a, _ := unitSides()
	ks := [][]int{constKs(4, 2)}
	width := map[BootUnit]float64{}
	for _, u := range []BootUnit{BootRuns, BootTasks, BootHierarchical} {
		lo, hi, _, err := UnitBootstrap([][]TaskScores{a.Tasks}, ks, u, 4000, 2, 0.95, mean)
		if err != nil {
			t.Fatal(err)
		}
		width[u] = hi - lo
	}
	if !(width[BootHierarchical] >= width[BootRuns] && width[BootHierarchical] >= width[BootTasks]) {
		t.Errorf("widths %v", width)
	}
	if _, _, _, err := UnitBootstrap([][]TaskScores{a.Tasks}, ks, BootFamilies, 10, 1, 0.95, mean); err == nil {
		t.Error("families: want an error")
	}
	if _, _, _, err := UnitBootstrap([][]TaskScores{a.Tasks}, [][]int{constKs(4, 3)}, BootRuns, 10, 1, 0.95, mean); err == nil {
		t.Error("k above the runs of t4: want an error")
	}
}

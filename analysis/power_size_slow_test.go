//go:build slow

package analysis

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// pilotCounts builds pilot runs: task i has runs runs of which succ[i] succeed.
func pilotCounts(succ []int, runs int) []OutcomeRun {
	var out []OutcomeRun
	for i, c := range succ {
		for j := range runs {
			out = append(out, OutcomeRun{Task: fmt.Sprint("t", i), Final: j < c})
		}
	}
	return out
}

// pooledZSize is the rejection rate of the former test of PowerSuccessPilot
// (the unpooled z-test on each arm's pooled runs) on the same simulated
// studies (same streams and draws).
func pooledZSize(a, b []OutcomeRun, r, t, sims int, seed, cell uint64) float64 {
	ga, gb := map[string][]bool{}, map[string][]bool{}
	var names []string
	for _, x := range a {
		if ga[x.Task] == nil {
			names = append(names, x.Task)
		}
		ga[x.Task] = append(ga[x.Task], x.Final)
	}
	for _, x := range b {
		gb[x.Task] = append(gb[x.Task], x.Final)
	}
	z := NormalQuantile(0.975)
	rej := 0
	for s := range sims {
		rng := rand.New(rand.NewPCG(seed, cell<<32|uint64(s)))
		sa, sb := 0, 0
		for range t {
			task := names[rng.IntN(len(names))]
			for range r {
				if ga[task][rng.IntN(len(ga[task]))] {
					sa++
				}
				if gb[task][rng.IntN(len(gb[task]))] {
					sb++
				}
			}
		}
		if ok, _ := waldTest(sa, sb, r*t, z); ok {
			rej++
		}
	}
	return float64(rej) / float64(sims)
}

// pairedTSize is the rejection rate of the paired t-test over tasks that
// PowerSuccessPilot used before the sign-flip test, on the same simulated
// studies (same streams and draws).
func pairedTSize(a, b []OutcomeRun, r, t, sims int, seed, cell uint64) float64 {
	ga, gb, names := pilotTasks(a, b)
	tq := StudentTQuantile(0.975, float64(t-1))
	d := make([]float64, t)
	rej := 0
	for s := range sims {
		rng := rand.New(rand.NewPCG(seed, cell<<32|uint64(s)))
		for i := range d {
			task := names[rng.IntN(len(names))]
			diff := 0
			for range r {
				if ga[task][rng.IntN(len(ga[task]))] {
					diff++
				}
				if gb[task][rng.IntN(len(gb[task]))] {
					diff--
				}
			}
			d[i] = float64(diff) / float64(r)
		}
		if ok, _ := pairedTTest(d, tq); ok {
			rej++
		}
	}
	return float64(rej) / float64(sims)
}

// TestPowerPilotSize measures the size (rejection rate of a true null) of
// PowerSuccessPilot's sign-flip test over tasks at α = 0.05, beside the
// paired t-test and the pooled z-test it replaced (same studies), under
// three nulls built from pilot data of 8 tasks × 10 runs per agent, A
// succeeding 1,2,3,4,6,7,8,9 of 10 on tasks 1…8:
//
//	difficulty:  B as A (tasks differ, agents do not)
//	interaction: B 9,8,7,6,4,3,2,1 (equal mean 0.5, each agent strong
//	             where the other is weak; differences symmetric)
//	skewed:      B 4,5,2,3,5,6,7,8 (equal mean 0.5; per-task differences
//	             −0.3, −0.3 and six +0.1: not symmetric)
//
// and its power beside the paired t-test's under one alternative
// (shift: B 3,4,5,6,8,9,10,10, mean 0.69 against 0.5), for runs per task
// 3, 10, 30 × tasks 4, 6, 8, 16, 32; 2,000 studies per cell (Monte Carlo
// SE at 0.05: 0.005), seed 1. It prints the tables of
// docs/scoreatk-coverage.md §2:
//
//	go test -tags slow -count=1 -run TestPowerPilotSize -v ./analysis
//
// Measured (tables in docs/scoreatk-coverage.md §2): the sign-flip test's
// size is 0–0.051 under difficulty and interaction, where it is exact
// (each task's difference is symmetric about 0); with 6–8 tasks it is well
// under 0.05 because its p-values are multiples of 2/2^tasks. Under the
// skewed null, where no test over 8 pilot tasks is exact, it reaches 0.064
// (30 runs × 8 tasks; the paired t-test 0.082 there). The test asserts the
// issue's bound, 0.06, under difficulty and interaction, and 0.075 (0.064
// plus 2 Monte Carlo SE) under the skewed null.
func TestPowerPilotSize(t *testing.T) {
	a := pilotCounts([]int{1, 2, 3, 4, 6, 7, 8, 9}, 10)
	designs := []struct {
		name string
		b    []OutcomeRun
		null bool
		max  float64 // bound on the sign-flip test's size
	}{
		{"difficulty", pilotCounts([]int{1, 2, 3, 4, 6, 7, 8, 9}, 10), true, 0.06},
		{"interaction", pilotCounts([]int{9, 8, 7, 6, 4, 3, 2, 1}, 10), true, 0.06},
		{"skewed", pilotCounts([]int{4, 5, 2, 3, 5, 6, 7, 8}, 10), true, 0.075},
		{"shift", pilotCounts([]int{3, 4, 5, 6, 8, 9, 10, 10}, 10), false, 0},
	}
	opt := PowerOptions{Runs: []int{3, 10, 30}, Tasks: []int{4, 6, 8, 16, 32}, Alpha: 0.05, Sims: 2000, Seed: 1}
	for _, ds := range designs {
		cells, err := PowerSuccessPilot(a, ds.b, opt)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("| %s | test | runs | tasks 4 | 6 | 8 | 16 | 32 |", ds.name)
		for ri, r := range opt.Runs {
			var flip, paired, pooled []string
			for ti, tk := range opt.Tasks {
				cell := uint64(ri*len(opt.Tasks) + ti)
				c := cells[cell]
				flip = append(flip, fmt.Sprintf("%.3f", c.Power))
				paired = append(paired, fmt.Sprintf("%.3f", pairedTSize(a, ds.b, r, tk, opt.Sims, opt.Seed, cell)))
				if ds.null {
					pooled = append(pooled, fmt.Sprintf("%.3f", pooledZSize(a, ds.b, r, tk, opt.Sims, opt.Seed, cell)))
					if c.Power > ds.max {
						t.Errorf("%s runs %d tasks %d: sign-flip size %.3f > %g", ds.name, r, tk, c.Power, ds.max)
					}
				}
			}
			t.Logf("| | sign-flip over tasks | %d | %s |", r, strings.Join(flip, " | "))
			t.Logf("| | paired t (before) | %d | %s |", r, strings.Join(paired, " | "))
			if ds.null {
				t.Logf("| | pooled z (before that) | %d | %s |", r, strings.Join(pooled, " | "))
			}
		}
	}
}

// TestPowerScoreAtKSize measures the size of PowerScoreAtK's sign-flip test
// (score@2 differences over tasks) at α = 0.05 under the same two nulls,
// with scores: A's task i (i = 0…7) has the 10 scores (i+1)(j+1)/80,
// j = 0…9 (tasks differ in level and spread); difficulty: B = A;
// interaction: B's task i has A's task 7 − i's scores (equal mean score@k
// for every k, agents strong on different tasks). 2,000 studies a cell.
// Logged only (the size requirement is for --stat success).
func TestPowerScoreAtKSize(t *testing.T) {
	var a, diff, inter []TaskScores
	for i := range 8 {
		s := make([]float64, 10)
		for j := range s {
			s[j] = float64((i+1)*(j+1)) / 80
		}
		a = append(a, TaskScores{Task: fmt.Sprint("t", i), Scores: s})
	}
	for i := range 8 {
		diff = append(diff, TaskScores{Task: a[i].Task, Scores: a[i].Scores})
		inter = append(inter, TaskScores{Task: a[i].Task, Scores: a[7-i].Scores})
	}
	opt := PowerOptions{Runs: []int{3, 10}, Tasks: []int{4, 6, 8, 16}, Alpha: 0.05, Sims: 2000, Seed: 2}
	for _, nl := range []struct {
		name string
		b    []TaskScores
	}{{"difficulty", diff}, {"interaction", inter}} {
		cells, err := PowerScoreAtK(a, nl.b, 2, opt)
		if err != nil {
			t.Fatal(err)
		}
		for ri, r := range opt.Runs {
			var row []string
			for ti := range opt.Tasks {
				row = append(row, fmt.Sprintf("%.3f", cells[ri*len(opt.Tasks)+ti].Power))
			}
			t.Logf("| %s | score@2 sign-flip | %d | %s |", nl.name, r, strings.Join(row, " | "))
		}
	}
}

//go:build slow

package analysis

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"testing"
)

// gammaDraw is a Gamma(a, 1) draw (Marsaglia & Tsang 2000; a < 1 by
// the boost U^(1/a)).
func gammaDraw(rng *rand.Rand, a float64) float64 {
	if a < 1 {
		return gammaDraw(rng, a+1) * math.Pow(rng.Float64(), 1/a)
	}
	d := a - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if math.Log(u) < 0.5*x*x+d-d*v+d*math.Log(v) {
			return d * v
		}
	}
}

func betaDraw(rng *rand.Rand, a, b float64) float64 {
	x := gammaDraw(rng, a)
	return x / (x + gammaDraw(rng, b))
}

type covScenario struct {
	name string
	ab   [][2]float64
	zero []float64 // P(score = 0) per task; nil: none
}

var covAB = [][2]float64{{0.5, 2}, {1, 1}, {2, 5}, {5, 2}, {0.8, 0.8}, {2, 2}, {1, 3}}
var covZero = []float64{0.3, 0.5, 0.2, 0.6, 0.4, 0.1, 0.7}

// trueScoreAtK: mean over tasks of ∫0^1 1 − F(x)^k dx, composite Simpson.
func (sc covScenario) truth(k int) float64 {
	const m = 20000
	var tot float64
	for t, ab := range sc.ab {
		p0 := 0.0
		if sc.zero != nil {
			p0 = sc.zero[t]
		}
		f := func(x float64) float64 {
			F := p0 + (1-p0)*regIncBeta(ab[0], ab[1], x)
			return 1 - math.Pow(F, float64(k))
		}
		h := 1.0 / m
		s := f(0) + f(1)
		for i := 1; i < m; i++ {
			c := 2.0
			if i%2 == 1 {
				c = 4
			}
			s += c * f(float64(i)*h)
		}
		tot += s * h / 3
	}
	return tot / float64(len(sc.ab))
}

func (sc covScenario) draw(rng *rand.Rand, n int) [][]float64 {
	out := make([][]float64, len(sc.ab))
	for t, ab := range sc.ab {
		x := make([]float64, n)
		for j := range x {
			if sc.zero != nil && rng.Float64() < sc.zero[t] {
				continue
			}
			x[j] = betaDraw(rng, ab[0], ab[1])
		}
		out[t] = sortedDesc(x)
	}
	return out
}

// uStat: score@k of sorted-desc s.
func uStat(s []float64, k int) float64 { return taskEstimate(s, k, false) }

// vStat: E max of k iid draws from the weighted empirical distribution
// of sorted-desc s with weights wt (nil: equal).
func vStat(s []float64, wt []float64, k int) float64 {
	n := len(s)
	var F, sum float64
	for i := n - 1; i >= 0; i-- {
		w := 1 / float64(n)
		if wt != nil {
			w = wt[i]
		}
		F0 := F
		F += w
		if i == 0 {
			F = 1
		}
		sum += s[i] * (math.Pow(F, float64(k)) - math.Pow(F0, float64(k)))
	}
	return sum
}

// jackVar: jackknife variance of score@k of sorted-desc s (k ≤ n−1).
func jackVar(s []float64, k int) float64 {
	n := len(s)
	kk := min(k, n-1)
	w := ScoreAtKWeights(n-1, kk, nil)
	loo := make([]float64, n)
	// loo[j] = Σ_{i<j} w_i s_i + Σ_{i>j} w_{i−1} s_i
	pre := 0.0
	suf := make([]float64, n+1)
	for i := n - 1; i >= 1; i-- {
		suf[i] = suf[i+1] + w[i-1]*s[i]
	}
	for j := 0; j < n; j++ {
		loo[j] = pre + suf[j+1]
		if j < n-1 {
			pre += w[j] * s[j]
		}
	}
	m := mean(loo)
	var ss float64
	for _, v := range loo {
		ss += (v - m) * (v - m)
	}
	return float64(n-1) / float64(n) * ss
}

func q7(x []float64, p float64) float64 {
	y := slices.Clone(x)
	slices.Sort(y)
	return QuantileType7(y, p)
}

// TestScoreAtKCandidateCoverage is the exploratory comparison behind the
// choice of the studentized interval (docs/scoreatk-coverage.md, table 2):
// prototypes of each candidate, written directly (sorted resamples,
// math.Pow), 300 studies × B = 1,000 per scenario, seed PCG(n, 7). About 2
// minutes on one core.
//
//	go test -tags slow -count=1 -run TestScoreAtKCandidateCoverage -v ./analysis
func TestScoreAtKCandidateCoverage(t *testing.T) {
	scen := []covScenario{{"beta", covAB, nil}, {"zibeta", covAB, covZero}}
	const studies, B = 300, 1000
	methods := []string{"percentile", "shift", "basicV", "bootT", "jackNormal", "bayesShift", "bayesPct"}
	for _, n := range []int{8, 16} {
		ks := []int{1, 2, 4}
		if n == 16 {
			ks = []int{1, 4, 8}
		}
		for _, sc := range scen {
			truth := make([]float64, len(ks))
			for i, k := range ks {
				truth[i] = sc.truth(k)
			}
			hit := make([][]int, len(methods))
			wid := make([][]float64, len(methods))
			for m := range methods {
				hit[m] = make([]int, len(ks))
				wid[m] = make([]float64, len(ks))
			}
			rng := rand.New(rand.NewPCG(uint64(n), 7))
			res := make([]float64, n)
			wt := make([]float64, n)
			for st := 0; st < studies; st++ {
				tasks := sc.draw(rng, n)
				T := float64(len(tasks))
				for ki, k := range ks {
					var u, v, se2 float64
					for _, s := range tasks {
						u += uStat(s, k) / T
						v += vStat(s, nil, k) / T
						se2 += jackVar(s, k) / (T * T)
					}
					se := math.Sqrt(se2)
					us := make([]float64, B)
					ts := make([]float64, 0, B)
					bs := make([]float64, B)
					for b := 0; b < B; b++ {
						var ub, vb2 float64
						var bb float64
						for _, s := range tasks {
							cnt := make([]int, n)
							for range n {
								cnt[rng.IntN(n)]++
							}
							res = res[:0]
							for j, c := range cnt {
								for range c {
									res = append(res, s[j])
								}
							}
							ub += uStat(res, k) / T
							vb2 += jackVar(res, k) / (T * T)
							var g float64
							for j := range wt {
								wt[j] = -math.Log(1 - rng.Float64())
								g += wt[j]
							}
							for j := range wt {
								wt[j] /= g
							}
							bb += vStat(s, wt, k) / T
						}
						us[b] = ub
						bs[b] = bb
						if vb2 > 0 {
							ts = append(ts, (ub-v)/math.Sqrt(vb2))
						}
					}
					ql, qh := q7(us, 0.025), q7(us, 0.975)
					mb := mean(us)
					tl, th := q7(ts, 0.025), q7(ts, 0.975)
					bl, bh := q7(bs, 0.025), q7(bs, 0.975)
					iv := [][2]float64{
						{ql, qh},
						{ql + u - mb, qh + u - mb},
						{u - (qh - v), u - (ql - v)},
						{u - th*se, u - tl*se},
						{u - 1.96*se, u + 1.96*se},
						{bl + u - v, bh + u - v},
						{bl, bh},
					}
					for m, x := range iv {
						if x[0] <= truth[ki] && truth[ki] <= x[1] {
							hit[m][ki]++
						}
						wid[m][ki] += x[1] - x[0]
					}
				}
			}
			t.Logf("n=%d %s studies=%d B=%d truth=%v", n, sc.name, studies, B, truth)
			for m, name := range methods {
				line := ""
				for ki, k := range ks {
					line += " k=" + itoa(k) + ": " + f3(float64(hit[m][ki])/studies) + " w=" + f3(wid[m][ki]/studies)
				}
				t.Logf("  %-11s%s", name, line)
			}
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func f3(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }

// TestScoreAtKTruth checks the scenarios' true score@k (Simpson's rule on
// ∫₀¹ 1 − F(x)^k dx) against a Monte Carlo of 200,000 draws of the best of
// k per task: within 4 Monte Carlo standard errors.
func TestScoreAtKTruth(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, sc := range []covScenario{{"beta", covAB, nil}, {"zibeta", covAB, covZero}} {
		for _, k := range []int{1, 4, 8} {
			const m = 200000
			var s, ss float64
			for range m {
				// one draw of the cross-task mean of the best of k per task
				var tot float64
				for ti, ab := range sc.ab {
					best := 0.0
					for range k {
						if sc.zero != nil && rng.Float64() < sc.zero[ti] {
							continue
						}
						best = max(best, betaDraw(rng, ab[0], ab[1]))
					}
					tot += best
				}
				v := tot / float64(len(sc.ab))
				s += v
				ss += v * v
			}
			mc := s / m
			se := math.Sqrt((ss/m - mc*mc) / m)
			tr := sc.truth(k)
			t.Logf("%s k=%d: Simpson %.6f, Monte Carlo %.6f ± %.6f", sc.name, k, tr, mc, se)
			if math.Abs(tr-mc) > 4*se {
				t.Errorf("%s k=%d: Simpson %.6f, Monte Carlo %.6f ± %.6f", sc.name, k, tr, mc, se)
			}
		}
	}
}

// TestScoreAtKIntervalCoverage measures the coverage of rdeval's three
// run-level intervals (ScoreAtKCurve: Percentile, BCa, Studentized) at
// nominal 95 % on the audit's scenarios: 7 tasks with Beta scores
// (covAB) or zero-inflated Beta scores (covZero: P(0) per task), n = 8
// and 16 runs per task, k = 1 … n (powers of two). 1,000 studies per
// scenario, B = 1,000, the data of every study from PCG(n, 11) and study
// s's bootstrap seeded s; the Monte Carlo SE of a coverage near 0.95 is
// sqrt(0.95·0.05/1000) = 0.007. It prints the table of
// docs/scoreatk-coverage.md (15 s to 1.5 min, as busy as the machine is):
//
//	go test -tags slow -count=1 -run TestScoreAtKIntervalCoverage -v ./analysis
//
// The studentized interval must cover at least 0.92 (0.93 less about 1.5
// SE) at every k ≤ n/2.
func TestScoreAtKIntervalCoverage(t *testing.T) {
	const studies, B = 1000, 1000
	ivs := []Interval{Percentile, BCa, Studentized}
	names := []string{"percentile", "bca", "studentized"}
	for _, sc := range []covScenario{{"beta", covAB, nil}, {"zibeta", covAB, covZero}} {
		for _, n := range []int{8, 16} {
			var ks []int
			for k := 1; k <= n; k *= 2 {
				ks = append(ks, k)
			}
			truth := make([]float64, len(ks))
			for i, k := range ks {
				truth[i] = sc.truth(k)
			}
			hit := make([][]int, len(ivs))
			wid := make([][]float64, len(ivs))
			for m := range ivs {
				hit[m], wid[m] = make([]int, len(ks)), make([]float64, len(ks))
			}
			rng := rand.New(rand.NewPCG(uint64(n), 11))
			for s := range studies {
				x := sc.draw(rng, n)
				tasks := make([]TaskScores, len(x))
				for i := range x {
					tasks[i] = TaskScores{Task: strconv.Itoa(i), Scores: x[i]}
				}
				for m, iv := range ivs {
					pts, err := ScoreAtKCurve(tasks, ScoreAtKOptions{Ks: ks, Boot: B, Seed: uint64(s), Level: 0.95, Interval: iv})
					if err != nil {
						t.Fatal(err)
					}
					for i, p := range pts {
						if p.CILow <= truth[i] && truth[i] <= p.CIHigh {
							hit[m][i]++
						}
						wid[m][i] += p.CIHigh - p.CILow
					}
				}
			}
			t.Logf("| %s | n = %d | true score@k %v |", sc.name, n, roundAll(truth))
			for m, name := range names {
				line := "| " + name + " |"
				for i := range ks {
					line += " " + f3(float64(hit[m][i])/studies) + " (" + f3(wid[m][i]/studies) + ") |"
				}
				t.Log(line)
			}
			for i, k := range ks {
				if cov := float64(hit[2][i]) / studies; 2*k <= n && cov < 0.92 {
					t.Errorf("%s n=%d k=%d: studentized coverage %.3f < 0.92", sc.name, n, k, cov)
				}
			}
		}
	}
}

func roundAll(x []float64) []string {
	out := make([]string, len(x))
	for i, v := range x {
		out[i] = strconv.FormatFloat(v, 'f', 4, 64)
	}
	return out
}

// TestStudentizedSeedSpread measures how far the studentized ends move
// between seeds (20 seeds, B = 10,000, two METR groups at k = 8), the basis
// of TestScoreAtKStudentizedReference's tolerance; logged, not asserted
// (about 9 s).
func TestStudentizedSeedSpread(t *testing.T) {
	if testing.Short() {
		t.Skip()
	}
	groups := metrRuns(t)
	for _, c := range []struct {
		alias, tl string
		k         int
	}{{"o1-preview", "1800", 8}, {"Claude 3 Opus", "1800", 8}} {
		var tasks []TaskScores
		for task, s := range groups[[2]string{c.alias, c.tl}] {
			tasks = append(tasks, TaskScores{Task: task, Scores: s})
		}
		sort.Slice(tasks, func(i, j int) bool { return tasks[i].Task < tasks[j].Task })
		var lo, hi, lo2, hi2, bsd float64
		const seeds = 20
		for s := range seeds {
			p, _ := ScoreAtKCurve(tasks, ScoreAtKOptions{Ks: []int{c.k}, Boot: 10000, Seed: uint64(100 + s), Level: 0.95, Interval: Studentized})
			lo += p[0].CILow / seeds
			hi += p[0].CIHigh / seeds
			lo2 += p[0].CILow * p[0].CILow / seeds
			hi2 += p[0].CIHigh * p[0].CIHigh / seeds
		}
		pp, _ := ScoreAtKCurve(tasks, ScoreAtKOptions{Ks: []int{c.k}, Boot: 10000, Seed: 1, Level: 0.95})
		bsd = (pp[0].CIHigh - pp[0].CILow) / 3.92
		t.Logf("%s %s k=%d: sd of ends over %d seeds %.4f %.4f; ≈ bootstrap sd %.4f", c.alias, c.tl, c.k, seeds, math.Sqrt(lo2-lo*lo), math.Sqrt(hi2-hi*hi), bsd)
	}
}

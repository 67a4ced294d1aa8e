package analysis

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"sort"
)

// PowerOptions control the power simulations.
type PowerOptions struct {
	Runs  []int   // runs per task per agent (grid rows), each ≥ 1
	Tasks []int   // number of tasks (grid columns), each ≥ 1 (≥ 2 for score@k)
	Alpha float64 // two-sided level, e.g. 0.05
	Sims  int     // simulated studies per grid cell
	Seed  uint64  // simulated study s of cell c draws from PCG(Seed, c<<32|s)
}

// PowerCell is the simulated power at one grid cell.
type PowerCell struct {
	RunsPerTask, Tasks int
	Sims               int
	Power              float64 // share of simulated studies that reject at Alpha
	PowerSE            float64 // simulation standard error sqrt(p(1−p)/Sims)
	CIHalfWidth        float64 // mean over studies of the (1−Alpha) CI half-width of the difference
}

func (o PowerOptions) check(minTasks int) error {
	if len(o.Runs) == 0 || len(o.Tasks) == 0 {
		return errors.New("analysis: power needs a grid of runs per task and tasks")
	}
	for _, r := range o.Runs {
		if r < 1 {
			return fmt.Errorf("analysis: runs per task %d; want ≥ 1", r)
		}
	}
	for _, t := range o.Tasks {
		if t < minTasks {
			return fmt.Errorf("analysis: %d tasks; want ≥ %d", t, minTasks)
		}
	}
	if !(o.Alpha > 0 && o.Alpha < 1) {
		return fmt.Errorf("analysis: α = %v is not in (0, 1)", o.Alpha)
	}
	if o.Sims < 1 {
		return fmt.Errorf("analysis: %d simulations; want ≥ 1", o.Sims)
	}
	return nil
}

// NormalCDF is Φ.
func NormalCDF(x float64) float64 { return float64(0.5 * math.Erfc(-x/math.Sqrt2)) }

// NormalQuantile is Φ⁻¹ (p in (0, 1)).
func NormalQuantile(p float64) float64 { return float64(math.Sqrt2 * math.Erfinv(float64(2*p)-1)) }

// WaldPowerExact is the exact power of the two-sided unpooled
// two-proportion z-test (waldTest) with n runs per arm, the sum over every
// outcome of the binomial probabilities of those that reject:
//
//	power = Σ_{a,b=0..n} Bin(a; n, pa)·Bin(b; n, pb)·1[waldTest rejects]
//
// (R: sum(outer(dbinom(0:n, n, pa), dbinom(0:n, n, pb)) * reject)). It is
// what PowerSuccessRates simulates, at every n; the normal approximation
// TwoProportionPower is off at small n (the Wald test's size is not α
// there). Above n = 3,000 it returns TwoProportionPower (the (n+1)² terms
// would cost more than 10⁷ operations; the two agree within 0.005 there).
func WaldPowerExact(pa, pb float64, n int, alpha float64) float64 {
	if n > 3000 {
		return TwoProportionPower(pa, pb, n, alpha)
	}
	z := NormalQuantile(1 - float64(alpha/2))
	fa, fb := binomPMF(n, pa), binomPMF(n, pb)
	var p float64
	for a, wa := range fa {
		if wa == 0 {
			continue
		}
		var row float64
		for b, wb := range fb {
			if ok, _ := waldTest(a, b, n, z); ok {
				row += wb
			}
		}
		p += float64(wa * row)
	}
	return min(p, 1)
}

// binomPMF returns Bin(k; n, p) for k = 0..n from its logarithm, by the
// ratio log Bin(k+1) = log Bin(k) + log((n−k)/(k+1)) + log(p/(1−p)) from
// log Bin(0) = n·log(1−p) (so large n does not underflow a product form).
// detLog and rounded products only: math.Lgamma is Go code whose
// polynomials fuse into multiply-adds on some platforms (GOAMD64=v3 gave
// other bits). The rounding error of the sum grows like k ulps of the
// logarithm, below 1e-12 relative for n ≤ 3,000.
func binomPMF(n int, p float64) []float64 {
	out := make([]float64, n+1)
	switch p {
	case 0:
		out[0] = 1
		return out
	case 1:
		out[n] = 1
		return out
	}
	lp, lq := detLog(p), detLog1p(-p)
	l := float64(float64(n) * lq)
	for k := range out {
		out[k] = detExp(l)
		if k < n {
			l += detLog(float64(n-k)/float64(k+1)) + (lp - lq)
		}
	}
	return out
}

// TwoProportionPower is the normal-approximation power of the two-sided
// unpooled two-proportion z-test with n runs per arm:
//
//	se = sqrt(pa(1−pa)/n + pb(1−pb)/n)
//	power = Φ(|pa−pb|/se − z) + Φ(−|pa−pb|/se − z),  z = Φ⁻¹(1−α/2)
func TwoProportionPower(pa, pb float64, n int, alpha float64) float64 {
	se := math.Sqrt(pa*(1-pa)/float64(n) + pb*(1-pb)/float64(n))
	z := NormalQuantile(1 - float64(alpha/2))
	if se == 0 {
		if pa != pb {
			return 1
		}
		return 0
	}
	d := math.Abs(pa-pb) / se
	return NormalCDF(d-z) + NormalCDF(-d-z)
}

// waldTest is the two-sided unpooled two-proportion z-test on sa of n and
// sb of n successes: it reports rejection and the CI half-width z·se.
// With se = 0 it rejects when the proportions differ (0 of n vs n of n).
func waldTest(sa, sb, n int, z float64) (bool, float64) {
	pa, pb := float64(sa)/float64(n), float64(sb)/float64(n)
	se := math.Sqrt(pa*(1-pa)/float64(n) + pb*(1-pb)/float64(n))
	if se == 0 {
		return pa != pb, 0
	}
	return math.Abs(pa-pb)/se > z, z * se
}

func cellResult(r, t, sims, rejects int, hw float64) PowerCell {
	p := float64(rejects) / float64(sims)
	return PowerCell{RunsPerTask: r, Tasks: t, Sims: sims, Power: p, PowerSE: math.Sqrt(p * (1 - p) / float64(sims)), CIHalfWidth: hw / float64(sims)}
}

// PowerSuccessRates simulates studies in which each of two agents has
// runs × tasks independent runs with final-success probability pa and pb,
// tested by the unpooled two-proportion z-test on the pooled runs of each
// arm (see TwoProportionPower for the closed form it approximates).
func PowerSuccessRates(pa, pb float64, opt PowerOptions) ([]PowerCell, error) {
	if err := opt.check(1); err != nil {
		return nil, err
	}
	if !(pa >= 0 && pa <= 1 && pb >= 0 && pb <= 1) {
		return nil, fmt.Errorf("analysis: rates %v, %v must be in [0, 1]", pa, pb)
	}
	z := NormalQuantile(1 - float64(opt.Alpha/2))
	var out []PowerCell
	for ri, r := range opt.Runs {
		for ti, t := range opt.Tasks {
			c := uint64(ri*len(opt.Tasks) + ti)
			n := r * t
			rej := 0
			var hw float64
			for s := 0; s < opt.Sims; s++ {
				rng := rand.New(rand.NewPCG(opt.Seed, c<<32|uint64(s)))
				sa, sb := 0, 0
				for j := 0; j < n; j++ {
					if rng.Float64() < pa {
						sa++
					}
					if rng.Float64() < pb {
						sb++
					}
				}
				ok, h := waldTest(sa, sb, n, z)
				if ok {
					rej++
				}
				hw += h
			}
			out = append(out, cellResult(r, t, opt.Sims, rej, hw))
		}
	}
	return out, nil
}

// SignFlipMinTasks is the fewest tasks at which the sign-flip test of
// PowerSuccessPilot and PowerScoreAtK can reject at level alpha: its
// smallest p-value is 2/2^tasks (every difference of one sign), so it
// needs 2^(tasks−1) ≥ 1/alpha (6 tasks at α = 0.05, 8 at 0.01). With fewer
// the simulated power is 0.
func SignFlipMinTasks(alpha float64) int {
	n := 1
	for math.Ldexp(1, 1-n) > alpha {
		n++
	}
	return n
}

// signFlipExactMax is the most tasks whose 2^(tasks−1) sign vectors
// signFlipP enumerates; above it, it draws signFlipDraws of them.
const (
	signFlipExactMax = 12
	signFlipDraws    = 1999
)

// signFlipP is the two-sided p-value of the sign-flip (randomization) test
// of mean(d) = 0 over tasks (Fisher 1935; Good 2005, §3.6): under the null
// that each task's difference is as likely to be d_i as −d_i, every sign
// vector s is as likely as the observed one, and
//
//	p = #{s : |Σ s_i·d_i| ≥ |Σ d_i|} / 2^n
//
// counted over all 2^(n−1) sign vectors up to a global flip (which gives
// the same |sum|) when n ≤ signFlipExactMax, in Gray-code order, one flip
// per step; above that over signFlipDraws uniform sign vectors from rng
// plus the observed one, p = (1 + #{…})/(signFlipDraws + 1). Both p-values
// are valid (P(p ≤ α) ≤ α under the null), so the test keeps its size at
// any number of tasks when the differences are symmetric about 0. The
// t statistic is a monotone function of |Σ s_i·d_i| over sign vectors
// (Σ d_i² does not change), so this is also the randomization version of
// the paired t-test. Sums tie within 1e-9·Σ|d_i| (the Gray-code sum drifts by rounding). A tie
// counts as reaching the observed sum: all d_i = 0 gives p = 1.
// (numpy reference: testdata/reference/power_signflip.py.)
//
// The count stops as soon as the p-value is sure to exceed stop (hits only
// grow), returning a value above stop: signFlipP(d, rng, α) ≤ α decides the
// test at level α exactly as the full count would (same draws up to that
// point), in a fraction of the time for studies far from rejecting;
// stop = 1 gives the p-value.
func signFlipP(d []float64, rng *rand.Rand, stop float64) float64 {
	n := len(d)
	var obs, abs float64
	for _, x := range d {
		obs += x
		abs += math.Abs(x)
	}
	obs = math.Abs(obs)
	thr := obs - 1e-9*abs
	if n <= signFlipExactMax {
		// s_0 = +1 throughout; bit j−1 of the Gray code g is s_j = −1.
		var sum float64
		for _, x := range d {
			sum += x
		}
		hit := 1 // the observed vector
		total := float64(uint64(1) << (n - 1))
		limit := int(math.Min(math.Floor(stop*total), total)) // p > stop once hit > limit
		neg := make([]bool, n)
		for i := 1; i < 1<<(n-1) && hit <= limit; i++ {
			j := 1 + bits.TrailingZeros(uint(i))
			if neg[j] {
				sum += 2 * d[j]
			} else {
				sum -= 2 * d[j]
			}
			neg[j] = !neg[j]
			if math.Abs(sum) >= thr {
				hit++
			}
		}
		return float64(hit) / total
	}
	hit := 1
	limit := int(math.Min(math.Floor(stop*(signFlipDraws+1)), signFlipDraws+1))
	for b := 0; b < signFlipDraws && hit <= limit; b++ {
		var sum float64
		var w uint64
		for i, x := range d {
			if i%64 == 0 {
				w = rng.Uint64()
			}
			if w&1 == 1 {
				sum -= x
			} else {
				sum += x
			}
			w >>= 1
		}
		if math.Abs(sum) >= thr {
			hit++
		}
	}
	return float64(hit) / float64(signFlipDraws+1)
}

// PowerSuccessPilot is PowerSuccessRates with the pilot data as the truth:
// a simulated study draws its tasks with replacement from the tasks both
// agents ran (the same tasks for both), and for each task draws runs per
// task runs with replacement from each agent's pilot runs of that task.
// Tasks are the clusters: the test is the sign-flip test over tasks
// (signFlipP) of the per-task differences in success rate,
//
//	d_i = (successes of A − successes of B on task i) / runs
//
// rejecting when p ≤ α, and the CI half-width is the paired t interval's,
// t_{1−α/2, tasks−1}·sd(d)/√tasks (R: t.test(pa_task, pb_task, paired =
// TRUE)). Its null is that the task-averaged rates are equal. The paired
// t-test used before held 0.043–0.066 at 6 or more tasks under the nulls
// of TestPowerPilotSize (difficulty only; task × agent interaction), up to
// 0.105 with 4; the sign-flip test is exact when each task's difference is
// symmetric about 0 (both of those nulls: measured 0–0.051) and reached
// 0.064 under a skewed interaction (the t-test 0.082; docs/
// scoreatk-coverage.md §2), at a cost in power with 6–8 tasks. It cannot
// reject with fewer than SignFlipMinTasks(α) tasks (6 at α = 0.05): power
// 0 there. A z-test on the pooled runs, which treats runs as independent,
// rejected a true null up to 67 % of the time. Needs tasks ≥ 2.
func PowerSuccessPilot(a, b []OutcomeRun, opt PowerOptions) ([]PowerCell, error) {
	if err := opt.check(2); err != nil {
		return nil, err
	}
	ga, gb, names := pilotTasks(a, b)
	if len(names) == 0 {
		return nil, errors.New("analysis: the two agents share no task in the pilot data")
	}
	var out []PowerCell
	for ri, r := range opt.Runs {
		for ti, t := range opt.Tasks {
			c := uint64(ri*len(opt.Tasks) + ti)
			tq := StudentTQuantile(1-float64(opt.Alpha/2), float64(t-1))
			d := make([]float64, t)
			rej := 0
			var hw float64
			for s := 0; s < opt.Sims; s++ {
				rng := rand.New(rand.NewPCG(opt.Seed, c<<32|uint64(s)))
				for i := range d {
					task := names[rng.IntN(len(names))]
					ra, rb := ga[task], gb[task]
					diff := 0
					for range r {
						if ra[rng.IntN(len(ra))] {
							diff++
						}
						if rb[rng.IntN(len(rb))] {
							diff--
						}
					}
					d[i] = float64(diff) / float64(r)
				}
				_, h := pairedTTest(d, tq)
				if signFlipP(d, rng, opt.Alpha) <= opt.Alpha {
					rej++
				}
				hw += h
			}
			out = append(out, cellResult(r, t, opt.Sims, rej, hw))
		}
	}
	return out, nil
}

// pilotTasks groups the final outcomes of a's and b's runs by task and
// returns the tasks both ran, sorted.
func pilotTasks(a, b []OutcomeRun) (ga, gb map[string][]bool, names []string) {
	ga, gb = map[string][]bool{}, map[string][]bool{}
	for _, r := range a {
		ga[r.Task] = append(ga[r.Task], r.Final)
	}
	for _, r := range b {
		gb[r.Task] = append(gb[r.Task], r.Final)
	}
	for t := range ga {
		if len(gb[t]) > 0 {
			names = append(names, t)
		}
	}
	sort.Strings(names)
	return ga, gb, names
}

// pairedTTest is the two-sided one-sample t-test of mean(d) = 0 at critical
// value tq: it reports rejection and the CI half-width tq·sd(d)/√n. With
// sd 0 it rejects when the mean is not 0.
func pairedTTest(d []float64, tq float64) (bool, float64) {
	m := mean(d)
	var ss float64
	for _, x := range d {
		ss += float64((x - m) * (x - m))
	}
	se := math.Sqrt(ss / float64(len(d)-1) / float64(len(d)))
	if se == 0 {
		return m != 0, 0
	}
	return math.Abs(m)/se > tq, float64(tq * se)
}

// PowerScoreAtK simulates studies comparing two agents' mean over tasks of
// score@k with the pilot data as the truth. A study draws its tasks with
// replacement from the tasks both agents ran (the same tasks for both; a
// task's weight is ignored), draws runs per task runs with replacement
// from each agent's pilot scores of each task, computes each task's
// score@k difference d_t = A − B (the mean for random-selection tasks) and
// tests mean(d) = 0 with the sign-flip test over tasks (signFlipP, as
// PowerSuccessPilot; no rejection below SignFlipMinTasks(α) tasks); the
// CI half-width is the paired t interval's, t_{1−α/2, tasks−1}·sd(d)/√tasks.
// With tasks as the unit of replication the test accounts for both run and
// task variation; it is exact when the differences are symmetric about 0
// and approximate when they are skewed. Cells with runs per task < k are
// an error.
func PowerScoreAtK(a, b []TaskScores, k int, opt PowerOptions) ([]PowerCell, error) {
	if err := opt.check(2); err != nil {
		return nil, err
	}
	if k < 1 {
		return nil, fmt.Errorf("analysis: k = %d; want ≥ 1", k)
	}
	for _, r := range opt.Runs {
		if r < k {
			return nil, fmt.Errorf("analysis: %d runs per task < k = %d", r, k)
		}
	}
	gb := map[string]TaskScores{}
	for _, t := range b {
		if len(t.Scores) > 0 {
			gb[t.Task] = t
		}
	}
	type pair struct{ a, b TaskScores }
	var pairs []pair
	for _, t := range a {
		if o, ok := gb[t.Task]; ok && len(t.Scores) > 0 {
			pairs = append(pairs, pair{t, o})
		}
	}
	if len(pairs) == 0 {
		return nil, errors.New("analysis: the two agents share no task with scores in the pilot data")
	}
	sort.Slice(pairs, func(i, j int) bool { return pairs[i].a.Task < pairs[j].a.Task })
	var out []PowerCell
	for ri, r := range opt.Runs {
		w := ScoreAtKWeights(r, k, nil)
		sa, sb := make([]float64, r), make([]float64, r)
		for ti, t := range opt.Tasks {
			c := uint64(ri*len(opt.Tasks) + ti)
			tq := StudentTQuantile(1-float64(opt.Alpha/2), float64(t-1))
			d := make([]float64, t)
			rej := 0
			var hw float64
			for s := 0; s < opt.Sims; s++ {
				rng := rand.New(rand.NewPCG(opt.Seed, c<<32|uint64(s)))
				for i := range d {
					p := pairs[rng.IntN(len(pairs))]
					for j := range r {
						sa[j] = p.a.Scores[rng.IntN(len(p.a.Scores))]
						sb[j] = p.b.Scores[rng.IntN(len(p.b.Scores))]
					}
					d[i] = drawScore(sa, w, p.a.Random) - drawScore(sb, w, p.b.Random)
				}
				_, h := pairedTTest(d, tq)
				if signFlipP(d, rng, opt.Alpha) <= opt.Alpha {
					rej++
				}
				hw += h
			}
			out = append(out, cellResult(r, t, opt.Sims, rej, hw))
		}
	}
	return out, nil
}

// drawScore is score@k of s (sorted in place) with weights w, or the mean.
func drawScore(s, w []float64, random bool) float64 {
	if random {
		return mean(s)
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(s)))
	var sum float64
	for i, x := range s {
		if w[i] == 0 {
			break
		}
		sum += float64(w[i] * x)
	}
	return sum
}

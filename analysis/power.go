package analysis

import (
	"errors"
	"fmt"
	"math"
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

// PowerSuccessPilot is PowerSuccessRates with the pilot data as the truth:
// a simulated study draws its tasks with replacement from the tasks both
// agents ran (the same tasks for both), and for each task draws runs per
// task runs with replacement from each agent's pilot runs of that task;
// the test is the z-test on each arm's pooled runs. The z-test treats runs
// as independent; with tasks that differ in difficulty it is somewhat
// anti-conservative (same tasks in both arms partly offset this).
func PowerSuccessPilot(a, b []OutcomeRun, opt PowerOptions) ([]PowerCell, error) {
	if err := opt.check(1); err != nil {
		return nil, err
	}
	ga, gb := map[string][]bool{}, map[string][]bool{}
	for _, r := range a {
		ga[r.Task] = append(ga[r.Task], r.Final)
	}
	for _, r := range b {
		gb[r.Task] = append(gb[r.Task], r.Final)
	}
	var names []string
	for t := range ga {
		if len(gb[t]) > 0 {
			names = append(names, t)
		}
	}
	if len(names) == 0 {
		return nil, errors.New("analysis: the two agents share no task in the pilot data")
	}
	sort.Strings(names)
	z := NormalQuantile(1 - float64(opt.Alpha/2))
	var out []PowerCell
	for ri, r := range opt.Runs {
		for ti, t := range opt.Tasks {
			c := uint64(ri*len(opt.Tasks) + ti)
			rej := 0
			var hw float64
			for s := 0; s < opt.Sims; s++ {
				rng := rand.New(rand.NewPCG(opt.Seed, c<<32|uint64(s)))
				sa, sb := 0, 0
				for range t {
					task := names[rng.IntN(len(names))]
					ra, rb := ga[task], gb[task]
					for range r {
						if ra[rng.IntN(len(ra))] {
							sa++
						}
						if rb[rng.IntN(len(rb))] {
							sb++
						}
					}
				}
				ok, h := waldTest(sa, sb, r*t, z)
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

// PowerScoreAtK simulates studies comparing two agents' mean over tasks of
// score@k with the pilot data as the truth. A study draws its tasks with
// replacement from the tasks both agents ran (the same tasks for both; a
// task's weight is ignored), draws runs per task runs with replacement
// from each agent's pilot scores of each task, computes each task's
// score@k difference d_t = A − B (the mean for random-selection tasks) and
// tests mean(d) = 0 with a paired t-test over tasks (df = tasks − 1); the
// CI half-width is t_{1−α/2, tasks−1}·sd(d)/√tasks. The paired t-test is
// fast and, with tasks as the unit of replication, accounts for both run
// and task variation; with few tasks and skewed differences its level is
// only approximate. Cells with runs per task < k are an error.
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
				m := mean(d)
				var ss float64
				for _, x := range d {
					ss += float64((x - m) * (x - m))
				}
				se := math.Sqrt(ss / float64(t-1) / float64(t))
				if se == 0 {
					if m != 0 {
						rej++
					}
					continue
				}
				if math.Abs(m)/se > tq {
					rej++
				}
				hw += float64(tq * se)
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

// StudentTCDF is the CDF of Student's t with df degrees of freedom.
func StudentTCDF(x, df float64) float64 {
	ib := regIncBeta(df/2, 0.5, df/(df+float64(x*x)))
	if x >= 0 {
		return 1 - float64(ib/2)
	}
	return ib / 2
}

// StudentTQuantile is the p-quantile of Student's t with df degrees of
// freedom (bisection on StudentTCDF to 1e-12).
func StudentTQuantile(p, df float64) float64 {
	if p == 0.5 {
		return 0
	}
	if p < 0.5 {
		return -StudentTQuantile(1-p, df)
	}
	lo, hi := 0.0, 1.0
	for StudentTCDF(hi, df) < p {
		hi *= 2
	}
	for hi-lo > 1e-12*math.Max(1, hi) {
		mid := (lo + hi) / 2
		if StudentTCDF(mid, df) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// regIncBeta is the regularized incomplete beta I_x(a, b) (continued
// fraction, modified Lentz; Numerical Recipes §6.4).
func regIncBeta(a, b, x float64) float64 {
	if x <= 0 {
		return 0
	}
	if x >= 1 {
		return 1
	}
	la, _ := math.Lgamma(a + b)
	lb, _ := math.Lgamma(a)
	lc, _ := math.Lgamma(b)
	front := detExp(la - lb - lc + float64(a*detLog(x)) + float64(b*detLog1p(-x)))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(a, b, x) / a
	}
	return 1 - front*betaCF(b, a, 1-x)/b
}

func betaCF(a, b, x float64) float64 {
	const tiny = 1e-300
	c, d := 1.0, 1-(a+b)*x/(a+1)
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= 300; m++ {
		fm := float64(m)
		num := fm * (b - fm) * x / ((a + 2*fm - 1) * (a + 2*fm))
		d = 1 + float64(num*d)
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + num/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		h *= d * c
		num = -(a + fm) * (a + b + fm) * x / ((a + 2*fm) * (a + 2*fm + 1))
		d = 1 + float64(num*d)
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + num/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := float64(d * c) // rounded: del − 1 must not fuse with it
		h *= del
		if math.Abs(del-1) < 3e-16 {
			break
		}
	}
	return h
}

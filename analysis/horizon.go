package analysis

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"strings"
	"sync"
)

// HorizonRun is one agent run for the time-horizon fit (METR's method,
// ../shared/methods.md §2).
type HorizonRun struct {
	Agent        string
	Family       string  // task family; "" makes the task its own family
	Task         string  // task id
	HumanMinutes float64 // time a human expert needs, > 0; x = log2(HumanMinutes)
	Y            float64 // success in [0, 1]: score_binarized, or a clipped fractional score
}

// Weighting is how runs are weighted in each agent's fit.
type Weighting int

const (
	// InvsqrtWeighting gives run r of agent a on task t in family F the
	// weight 1/(n_{a,t}·√m_{a,F}), n_{a,t} = runs of a on t, m_{a,F} =
	// tasks of F that a ran: METR's invsqrt_task_weight (the headline).
	InvsqrtWeighting Weighting = iota
	// EqualWeighting gives the weight 1/n_{a,t}: every task counts once
	// (METR's equal_task_weight).
	EqualWeighting
)

// String returns the flag spelling (invsqrt or equal).
func (w Weighting) String() string {
	if w == EqualWeighting {
		return "equal"
	}
	return "invsqrt"
}

// HorizonWeights returns each run's weight (see Weighting), normalized to
// sum to 1 over each agent's runs, as METR's compute_sample_weights does.
// On METR's all_runs.jsonl @3a947ac these equal the file's
// equal_task_weight and invsqrt_task_weight columns to within their
// 10-decimal rounding (max abs difference 5e-11; tested).
func HorizonWeights(runs []HorizonRun, weighting Weighting) []float64 {
	type at struct{ agent, task string }
	type af struct{ agent, family string }
	nRuns := map[at]int{}
	famTasks := map[af]map[string]bool{}
	for _, r := range runs {
		nRuns[at{r.Agent, r.Task}]++
		k := af{r.Agent, familyOf(r)}
		if famTasks[k] == nil {
			famTasks[k] = map[string]bool{}
		}
		famTasks[k][r.Task] = true
	}
	w := make([]float64, len(runs))
	sum := map[string]float64{}
	for i, r := range runs {
		v := 1 / float64(nRuns[at{r.Agent, r.Task}])
		if weighting == InvsqrtWeighting {
			v /= math.Sqrt(float64(len(famTasks[af{r.Agent, familyOf(r)}])))
		}
		w[i] = v
		sum[r.Agent] += v
	}
	for i, r := range runs {
		w[i] /= sum[r.Agent]
	}
	return w
}

func familyOf(r HorizonRun) string {
	if r.Family == "" {
		return "\x00" + r.Task
	}
	return r.Family
}

// BootUnit is what the horizon bootstrap resamples.
type BootUnit int

const (
	// BootHierarchical resamples families, then tasks within each drawn
	// family, then runs within each drawn task × agent (METR's
	// bootstrap_sample with categories family → task → run; the default).
	BootHierarchical BootUnit = iota
	// BootRuns keeps every task once and resamples runs within each
	// task × agent: run-to-run noise only.
	BootRuns
	// BootTasks resamples tasks with replacement, ignoring families, each
	// drawn task with all its runs as observed: task sampling only.
	BootTasks
	// BootFamilies resamples families with replacement, each drawn family
	// with all its tasks and runs as observed: family sampling only.
	BootFamilies
)

// ParseBootUnit parses hierarchical, runs, tasks or families.
func ParseBootUnit(s string) (BootUnit, error) {
	for u, name := range bootUnitNames {
		if s == name {
			return BootUnit(u), nil
		}
	}
	return 0, fmt.Errorf("analysis: bootstrap unit %q: want hierarchical, runs, tasks or families", s)
}

var bootUnitNames = []string{"hierarchical", "runs", "tasks", "families"}

// String returns the name ParseBootUnit takes.
func (u BootUnit) String() string { return bootUnitNames[u] }

// HorizonOptions control Horizons.
type HorizonOptions struct {
	Weighting      Weighting
	Regularization float64   // sklearn's 1/C; METR's headline 0.1 (C = 10)
	Quantiles      []float64 // success probabilities q of the horizons, e.g. 0.5, 0.8
	Boot           int       // bootstrap replicates; 0 for point estimates only
	Seed           uint64
	Level          float64 // confidence level, e.g. 0.95
	Unit           BootUnit
	// ExtrapolationFactor, when > 0, withholds horizons that are no
	// measurement of the data (AgentHorizon.Refusals): a slope ≥ 0, or a
	// horizon outside [min/F, F·max] of the human minutes of the tasks the
	// agent ran. 0 checks nothing. rdeval horizon uses
	// DefaultExtrapolationFactor.
	ExtrapolationFactor float64
}

// DefaultExtrapolationFactor is the factor rdeval horizon allows a horizon
// beyond the agent's shortest and longest task: 16 (four doublings of
// human time). METR's figures draw horizons up to about 16× the longest
// task; beyond that the logistic is extrapolated over a range where no
// task constrains it (the demo study's p50 of 2.8e-145 min for tasks of
// 417–653 min is such a number).
const DefaultExtrapolationFactor = 16

// HorizonSkipWarnShare is the share of skipped bootstrap replicates above
// which AgentHorizon.Warnings warns that the interval is conditional: it
// is the percentile interval of the replicates that had both outcomes, so
// when many replicates have no success (or no failure) it leaves out
// exactly the replicates whose horizon would be 0 (or +Inf) and is
// shifted towards the other end.
const HorizonSkipWarnShare = 0.05

// AgentHorizon is one agent's fit.
type AgentHorizon struct {
	Agent          string
	N              int // runs fitted
	Fit            LogisticFit
	AverageSuccess float64   // Σ w·y (weights sum to 1)
	Horizons       []float64 // minutes, per HorizonOptions.Quantiles
	CILow, CIHigh  []float64 // percentile interval per quantile (NaN without bootstrap)
	BootUsed       int       // replicates that had both outcomes
	BootSkipped    int       // replicates skipped: one outcome class or no runs drawn
	// BootNoSuccess and BootNoFailure split BootSkipped: replicates with
	// no success drawn (horizon 0) and with no failure drawn (+Inf); the
	// rest had no runs drawn at all.
	BootNoSuccess, BootNoFailure int
	// SkippedShare is BootSkipped/Boot (0 without bootstrap): the share
	// of replicates the interval leaves out.
	SkippedShare float64
	// MinMinutes and MaxMinutes are the shortest and longest human times
	// of the tasks the agent ran.
	MinMinutes, MaxMinutes float64
	// Refusals[j] is, when HorizonOptions.ExtrapolationFactor > 0, why
	// Horizons[j] is not a measurement ("" when it is): a slope ≥ 0, or a
	// horizon beyond the factor outside [MinMinutes, MaxMinutes]. The value
	// stays in Horizons (callers such as the trend decide); rdeval horizon
	// prints no number for it.
	Refusals []string
	// Warnings are caveats on the interval (the skipped share above
	// HorizonSkipWarnShare).
	Warnings []error
}

// HorizonResult is Horizons's output.
type HorizonResult struct {
	Agents []AgentHorizon // sorted by agent
	// Boot[b][i][j] is replicate b's horizon of Agents[i] at Quantiles[j]
	// (NaN when skipped). Nil without bootstrap.
	Boot [][][]float64
}

// Horizon returns the time (minutes) at which the fitted success
// probability is q: 2^((logit(q) − intercept)/slope). For a fit with no
// successes it is 0, with no failures +Inf.
func Horizon(f LogisticFit, q float64) float64 {
	switch f.Class {
	case 0:
		return 0
	case 1:
		return math.Inf(1)
	}
	return detExp2((Logit(q) - f.Intercept) / f.Slope)
}

// horizonData is the runs aggregated for fitting: per agent, per task, the
// total weight of failures (w0 = Σ (1−y)·w) and successes (w1 = Σ y·w).
// A run with fractional y is thus split into a failure of weight (1−y)·w
// and a success of weight y·w, as METR does; the loss is the same.
type horizonData struct {
	agents   []string
	families [][]int   // family → task indices, families sorted by name, tasks by id
	x        []float64 // task → log2(human minutes)
	// runs[task][agent] = (w0, w1) of each run of agent on task, in input order.
	runs [][][][2]float64
}

// Horizons fits each agent's logistic curve of success on log2(human
// minutes) (FitLogistic with C = 1/Regularization, weights from
// HorizonWeights) and returns its horizons at the requested success
// probabilities, with a hierarchical bootstrap interval when Boot > 0.
//
// The bootstrap follows METR's bootstrap_sample (methods.md §2): in
// replicate b, with one generator PCG(Seed, b) shared by all agents, (1)
// draw as many families as there are, with replacement, from the families
// (sorted by name); (2) for each drawn family copy, draw as many tasks as
// it has, with replacement; (3) for each drawn task copy and each agent
// that ran it (agents in sorted order), draw as many runs as the agent has
// there, with replacement. Duplicates count as drawn. Each drawn run keeps
// its full-data weight: the weights are neither recomputed nor
// renormalized (METR's ensure_weights_sum_to_1=False), so C·Σw varies
// between replicates as it does in METR's code. An agent whose drawn runs
// are all failures or all successes (or who has none drawn) skips the
// replicate, which is counted. Other units (opt.Unit) resample one level
// only, from the same generator: BootRuns (runs within task × agent, tasks
// fixed), BootTasks (tasks, with all their runs) or BootFamilies (families,
// with all their tasks and runs). The interval is the (1−Level)/2 and
// (1+Level)/2 quantiles (numpy.percentile's linear rule) of the remaining
// replicates. Replicates run in parallel; the result does not depend on
// GOMAXPROCS.
func Horizons(runs []HorizonRun, opt HorizonOptions) (*HorizonResult, error) {
	if len(runs) == 0 {
		return nil, errors.New("analysis: no runs")
	}
	if !(opt.Regularization > 0) || math.IsInf(opt.Regularization, 1) {
		return nil, fmt.Errorf("analysis: regularization %v; want a positive number", opt.Regularization)
	}
	for _, q := range opt.Quantiles {
		if !(q > 0 && q < 1) {
			return nil, fmt.Errorf("analysis: success probability %v is not in (0, 1)", q)
		}
	}
	if opt.Boot < 0 {
		return nil, fmt.Errorf("analysis: negative bootstrap count %d", opt.Boot)
	}
	if opt.Boot > 0 && !(opt.Level > 0 && opt.Level < 1) {
		return nil, fmt.Errorf("analysis: confidence level %v is not in (0, 1)", opt.Level)
	}
	d, err := newHorizonData(runs, HorizonWeights(runs, opt.Weighting))
	if err != nil {
		return nil, err
	}
	C := 1 / opt.Regularization
	res := &HorizonResult{Agents: make([]AgentHorizon, len(d.agents))}
	nq := len(opt.Quantiles)
	// Point fits: every run once.
	w0 := make([][]float64, len(d.agents))
	w1 := make([][]float64, len(d.agents))
	for a := range d.agents {
		w0[a] = make([]float64, len(d.x))
		w1[a] = make([]float64, len(d.x))
	}
	nRuns := make([]int, len(d.agents))
	for t := range d.runs {
		for a, rs := range d.runs[t] {
			for _, r := range rs {
				w0[a][t] += r[0]
				w1[a][t] += r[1]
			}
			nRuns[a] += len(rs)
		}
	}
	fb := newFitBuf(len(d.x))
	for a, name := range d.agents {
		fit, err := fb.fit(d.x, w0[a], w1[a], C)
		if err != nil {
			return nil, fmt.Errorf("analysis: agent %s: %w", name, err)
		}
		var s0, s1 float64
		for t := range d.x {
			s0 += w0[a][t]
			s1 += w1[a][t]
		}
		ah := AgentHorizon{Agent: name, N: nRuns[a], Fit: fit, AverageSuccess: s1 / (s0 + s1),
			Horizons: make([]float64, nq), CILow: make([]float64, nq), CIHigh: make([]float64, nq)}
		for j, q := range opt.Quantiles {
			ah.Horizons[j] = Horizon(fit, q)
			ah.CILow[j], ah.CIHigh[j] = math.NaN(), math.NaN()
		}
		ah.MinMinutes, ah.MaxMinutes = math.Inf(1), math.Inf(-1)
		for t, x := range d.x {
			if len(d.runs[t][a]) > 0 {
				m := math.Exp2(x)
				ah.MinMinutes, ah.MaxMinutes = math.Min(ah.MinMinutes, m), math.Max(ah.MaxMinutes, m)
			}
		}
		if opt.ExtrapolationFactor > 0 {
			ah.Refusals = horizonRefusals(ah, opt.Quantiles, opt.ExtrapolationFactor)
		}
		res.Agents[a] = ah
	}
	if opt.Boot == 0 {
		return res, nil
	}

	res.Boot = make([][][]float64, opt.Boot)
	// class[b][a]: the replicate's one-class outcome (0 no success, 1 no
	// failure, 2 no runs drawn, −1 both outcomes).
	class := make([][]int8, opt.Boot)
	workers := min(runtime.GOMAXPROCS(0), opt.Boot)
	next := make(chan int, workers)
	go func() {
		for b := 0; b < opt.Boot; b++ {
			next <- b
		}
		close(next)
	}()
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for wk := 0; wk < workers; wk++ {
		wg.Add(1)
		go func(wk int) {
			defer wg.Done()
			fb := newFitBuf(len(d.x))
			// One generator per worker, reseeded per replicate: the
			// stream of rand.New(rand.NewPCG(opt.Seed, b)), without its
			// allocations.
			src := rand.NewPCG(0, 0)
			rng := rand.New(src)
			bw0 := make([][]float64, len(d.agents))
			bw1 := make([][]float64, len(d.agents))
			for a := range d.agents {
				bw0[a] = make([]float64, len(d.x))
				bw1[a] = make([]float64, len(d.x))
			}
			for b := range next {
				if errs[wk] != nil {
					continue
				}
				for a := range d.agents {
					clear(bw0[a])
					clear(bw1[a])
				}
				src.Seed(opt.Seed, uint64(b))
				d.resampleUnit(opt.Unit, rng, bw0, bw1)
				rep := make([][]float64, len(d.agents))
				cls := make([]int8, len(d.agents))
				for a := range d.agents {
					rep[a] = make([]float64, nq)
					fit, err := fb.fit(d.x, bw0[a], bw1[a], C)
					if err != nil && err != ErrNoWeight {
						errs[wk] = fmt.Errorf("analysis: agent %s, replicate %d: %w", d.agents[a], b, err)
					}
					switch {
					case err != nil:
						cls[a] = 2
					default:
						cls[a] = int8(fit.Class)
					}
					for j, q := range opt.Quantiles {
						rep[a][j] = math.NaN()
						if err == nil && fit.Class < 0 {
							rep[a][j] = Horizon(fit, q)
						}
					}
				}
				res.Boot[b] = rep
				class[b] = cls
			}
		}(wk)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	lo, hi := (1-opt.Level)/2, (1+opt.Level)/2
	col := make([]float64, 0, opt.Boot)
	for a := range res.Agents {
		ah := &res.Agents[a]
		for j := range opt.Quantiles {
			col = col[:0]
			for b := range res.Boot {
				if v := res.Boot[b][a][j]; !math.IsNaN(v) {
					col = append(col, v)
				}
			}
			if j == 0 {
				ah.BootUsed, ah.BootSkipped = len(col), opt.Boot-len(col)
				for b := range class {
					switch class[b][a] {
					case 0:
						ah.BootNoSuccess++
					case 1:
						ah.BootNoFailure++
					}
				}
				ah.SkippedShare = float64(ah.BootSkipped) / float64(opt.Boot)
				if ah.Fit.Class < 0 && ah.SkippedShare > HorizonSkipWarnShare {
					ah.Warnings = append(ah.Warnings, skipWarning(*ah, opt.Boot))
				}
			}
			if len(col) == 0 {
				continue
			}
			sort.Float64s(col)
			ah.CILow[j], ah.CIHigh[j] = QuantileType7(col, lo), QuantileType7(col, hi)
		}
	}
	return res, nil
}

// horizonRefusals says, per quantile, why a horizon of ah is not a
// measurement: its slope is ≥ 0 (success does not fall with task length,
// so 2^((logit(q) − a0)/b) is where a rising curve crosses q, or nowhere),
// or it lies outside [MinMinutes/factor, factor·MaxMinutes]. One-class fits
// (horizons 0 or +Inf) are not refused: their warnings say what they are.
func horizonRefusals(ah AgentHorizon, quantiles []float64, factor float64) []string {
	out := make([]string, len(quantiles))
	if ah.Fit.Class >= 0 {
		return out
	}
	for j, q := range quantiles {
		h := ah.Horizons[j]
		switch {
		case ah.Fit.Slope >= 0:
			out[j] = fmt.Sprintf("success does not fall with task length (slope %+.3g per doubling of human minutes ≥ 0): it has no horizon", ah.Fit.Slope)
		case !(h >= ah.MinMinutes/factor && h <= ah.MaxMinutes*factor):
			out[j] = fmt.Sprintf("p%g = %.3g min lies outside %g× the range of its tasks' human minutes [%.3g, %.3g]: an extrapolation of the fit, not a measurement", 100*q, h, factor, ah.MinMinutes, ah.MaxMinutes)
		}
	}
	return out
}

// skipWarning is the warning for a skipped share above HorizonSkipWarnShare.
func skipWarning(ah AgentHorizon, boot int) error {
	var why []string
	if ah.BootNoSuccess > 0 {
		why = append(why, fmt.Sprintf("%d with no success (horizon 0)", ah.BootNoSuccess))
	}
	if ah.BootNoFailure > 0 {
		why = append(why, fmt.Sprintf("%d with no failure (horizon +Inf)", ah.BootNoFailure))
	}
	if r := ah.BootSkipped - ah.BootNoSuccess - ah.BootNoFailure; r > 0 {
		why = append(why, fmt.Sprintf("%d with no run drawn", r))
	}
	return fmt.Errorf("%d of %d bootstrap replicates (%.1f %%) had one outcome class and are left out of the interval (%s): above %g %% the interval is conditional on the replicates with both outcomes and is shifted away from the ones left out",
		ah.BootSkipped, boot, 100*ah.SkippedShare, strings.Join(why, ", "), 100*HorizonSkipWarnShare)
}

func newHorizonData(runs []HorizonRun, w []float64) (*horizonData, error) {
	agentIdx := map[string]int{}
	taskIdx := map[string]int{}
	famIdx := map[string]int{}
	var families []string
	var tasks []string
	taskFam := map[string]string{}
	for i, r := range runs {
		if !(r.HumanMinutes > 0) || math.IsInf(r.HumanMinutes, 0) {
			return nil, fmt.Errorf("analysis: run %d (%s, %s): human minutes %v; want a positive number", i, r.Agent, r.Task, r.HumanMinutes)
		}
		if !(r.Y >= 0 && r.Y <= 1) {
			return nil, fmt.Errorf("analysis: run %d (%s, %s): success %v is not in [0, 1]", i, r.Agent, r.Task, r.Y)
		}
		if _, ok := agentIdx[r.Agent]; !ok {
			agentIdx[r.Agent] = 0
		}
		f := familyOf(r)
		if g, ok := taskFam[r.Task]; ok && g != f {
			return nil, fmt.Errorf("analysis: task %s is in two families, %q and %q", r.Task, g, f)
		}
		taskFam[r.Task] = f
		if _, ok := taskIdx[r.Task]; !ok {
			taskIdx[r.Task] = 0
			tasks = append(tasks, r.Task)
		}
		if _, ok := famIdx[f]; !ok {
			famIdx[f] = 0
			families = append(families, f)
		}
	}
	d := &horizonData{}
	for a := range agentIdx {
		d.agents = append(d.agents, a)
	}
	sort.Strings(d.agents)
	for i, a := range d.agents {
		agentIdx[a] = i
	}
	sort.Strings(families)
	for i, f := range families {
		famIdx[f] = i
	}
	sort.Slice(tasks, func(i, j int) bool {
		fi, fj := famIdx[taskFam[tasks[i]]], famIdx[taskFam[tasks[j]]]
		if fi != fj {
			return fi < fj
		}
		return tasks[i] < tasks[j]
	})
	d.families = make([][]int, len(families))
	d.x = make([]float64, len(tasks))
	d.runs = make([][][][2]float64, len(tasks))
	for i, t := range tasks {
		taskIdx[t] = i
		f := famIdx[taskFam[t]]
		d.families[f] = append(d.families[f], i)
		d.runs[i] = make([][][2]float64, len(d.agents))
		d.x[i] = math.NaN()
	}
	for i, r := range runs {
		t := taskIdx[r.Task]
		x := detLog2(r.HumanMinutes)
		if !math.IsNaN(d.x[t]) && d.x[t] != x {
			return nil, fmt.Errorf("analysis: task %s has two human times, %v and %v minutes", r.Task, math.Exp2(d.x[t]), r.HumanMinutes)
		}
		d.x[t] = x
		a := agentIdx[r.Agent]
		d.runs[t][a] = append(d.runs[t][a], [2]float64{(1 - r.Y) * w[i], r.Y * w[i]})
	}
	return d, nil
}

// resample adds one hierarchical bootstrap replicate's weights to w0, w1
// (per agent, per task).
func (d *horizonData) resample(rng *rand.Rand, w0, w1 [][]float64) {
	nf := len(d.families)
	for range nf {
		fam := d.families[rng.IntN(nf)]
		for range fam {
			t := fam[rng.IntN(len(fam))]
			for a, rs := range d.runs[t] {
				n := len(rs)
				for range n {
					r := rs[rng.IntN(n)]
					w0[a][t] += r[0]
					w1[a][t] += r[1]
				}
			}
		}
	}
}

// resampleUnit adds one replicate's weights to w0, w1 for bootstrap unit u.
func (d *horizonData) resampleUnit(u BootUnit, rng *rand.Rand, w0, w1 [][]float64) {
	addTask := func(t int) {
		for a, rs := range d.runs[t] {
			for _, r := range rs {
				w0[a][t] += r[0]
				w1[a][t] += r[1]
			}
		}
	}
	switch u {
	case BootRuns:
		for t := range d.runs {
			for a, rs := range d.runs[t] {
				n := len(rs)
				for range n {
					r := rs[rng.IntN(n)]
					w0[a][t] += r[0]
					w1[a][t] += r[1]
				}
			}
		}
	case BootTasks:
		nt := len(d.runs)
		for range nt {
			addTask(rng.IntN(nt))
		}
	case BootFamilies:
		nf := len(d.families)
		for range nf {
			for _, t := range d.families[rng.IntN(nf)] {
				addTask(t)
			}
		}
	default:
		d.resample(rng, w0, w1)
	}
}

// fitBuf holds the aggregated rows (at most two per task) of one fit.
type fitBuf struct{ x, y, w, scratch []float64 }

func newFitBuf(n int) *fitBuf {
	return &fitBuf{x: make([]float64, 0, 2*n), y: make([]float64, 0, 2*n), w: make([]float64, 0, 2*n)}
}

func (fb *fitBuf) fit(x, w0, w1 []float64, C float64) (LogisticFit, error) {
	fb.x, fb.y, fb.w = fb.x[:0], fb.y[:0], fb.w[:0]
	for t := range x {
		if w0[t] > 0 {
			fb.x, fb.y, fb.w = append(fb.x, x[t]), append(fb.y, 0), append(fb.w, w0[t])
		}
		if w1[t] > 0 {
			fb.x, fb.y, fb.w = append(fb.x, x[t]), append(fb.y, 1), append(fb.w, w1[t])
		}
	}
	return fitLogistic(fb.x, fb.y, fb.w, C, &fb.scratch)
}

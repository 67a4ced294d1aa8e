package study

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/rdeval/rdeval/analysis"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/ingest"
)

// CurvesParams are the choices of the score-over-time curves.
type CurvesParams struct {
	Grid        []float64 // elapsed times, seconds
	Step        bool      // step interpolation (default: log-linear)
	Boot        int
	Seed        uint64
	CI          float64
	HumanLength time.Duration // run length of human runs without a time limit
	RatesOnly   bool          // compute only the per-agent call rates
}

// Curve is the mean best-so-far score of one agent × time limit.
type Curve struct {
	Agent      string
	TimeLimitS *int64 // nil: no time limit
	Points     []analysis.CurvePoint
}

// CurvesResult is the curves per agent × time limit (by agent, then time
// limit), with the runs left out and each agent's call statistics.
type CurvesResult struct {
	Curves  []Curve
	Skipped int                   // runs without a usable score log or task scale
	Rates   map[string][3]float64 // agent → runs, calls, hours
}

// Curves computes the score-over-time curves (RE-Bench Figs. 4–5).
func Curves(ds *ingest.Dataset, p CurvesParams) (CurvesResult, error) {
	groups, skipped, rates := RunCurves(ds, p.HumanLength.Seconds())
	res := CurvesResult{Skipped: skipped, Rates: rates}
	if len(groups) == 0 {
		return res, &cmdutil.BadInputError{Err: fmt.Errorf("no run has a score log with elapsed times and a task with y_start and y_ref: curves need score logs (ingest them with the runs)")}
	}
	if p.RatesOnly {
		return res, nil
	}
	keys := make([]groupKey, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].agent != keys[j].agent {
			return keys[i].agent < keys[j].agent
		}
		return keys[i].tl < keys[j].tl
	})
	how := analysis.LogLinear
	if p.Step {
		how = analysis.Step
	}
	for _, k := range keys {
		names := slices.Sorted(maps.Keys(groups[k]))
		var tc []analysis.TaskCurves
		for _, n := range names {
			tc = append(tc, analysis.TaskCurves{Task: n, Runs: groups[k][n]})
		}
		pts, err := analysis.ScoreOverTime(tc, p.Grid, how, analysis.ScoreAtKOptions{Boot: p.Boot, Seed: p.Seed, Level: p.CI})
		if err != nil {
			return res, err
		}
		c := Curve{Agent: k.agent, Points: pts}
		if k.hasTL {
			v := k.tl
			c.TimeLimitS = &v
		}
		res.Curves = append(res.Curves, c)
	}
	return res, nil
}

// Table is the result as rdeval curves prints it (--format table or csv;
// the report's curves.csv): the grid points before the last time limit.
func (r *CurvesResult) Table() *cmdutil.Table {
	t := &cmdutil.Table{Header: []string{"agent", "time_limit_s", "t_s", "n_tasks", "n_runs", "estimate", "ci_low", "ci_high"}}
	for _, c := range r.Curves {
		tlText := ""
		if c.TimeLimitS != nil {
			tlText = strconv.FormatInt(*c.TimeLimitS, 10)
		}
		for _, p := range c.Points {
			if p.NTasks == 0 {
				continue // after every run's time limit
			}
			t.Rows = append(t.Rows, []string{c.Agent, tlText, strconv.FormatFloat(p.T, 'f', -1, 64), strconv.Itoa(p.NTasks), strconv.Itoa(p.NRuns), cmdutil.Fixed4(p.Estimate), cmdutil.Fixed4(p.CILow), cmdutil.Fixed4(p.CIHigh)})
		}
	}
	return t
}

// groupKey is agent × time limit.
type groupKey struct {
	agent string
	tl    int64
	hasTL bool
}

// RunCurves builds the run curves of every run with a score log, grouped by
// agent × time limit and task (named as GroupRuns names it). It returns the groups, the number of runs
// skipped (no log, unknown task scale) and per-agent call statistics.
func RunCurves(ds *ingest.Dataset, humanLength float64) (map[groupKey]map[string][]analysis.RunCurve, int, map[string][3]float64) {
	tasks := map[[2]string]ingest.Task{}
	for _, t := range ds.Tasks {
		tasks[[2]string{t.Benchmark, t.TaskID}] = t
	}
	logs := map[string][]int{}
	for i, e := range ds.Scores {
		if e.ElapsedS.Valid {
			logs[e.RunID] = append(logs[e.RunID], i)
		}
	}
	groups := map[groupKey]map[string][]analysis.RunCurve{} // tasks by the one task key (TaskNames)
	task := TaskNames(ds)
	rates := map[string][3]float64{} // agent → runs, calls, hours
	skipped := 0
	for i := range ds.Runs {
		r := &ds.Runs[i]
		idx, ok := logs[r.RunID]
		t, known := tasks[[2]string{r.Benchmark, r.TaskID}]
		if !ok || !known || !t.YStart.Valid || !t.YRef.Valid || t.YStart.V == t.YRef.V {
			skipped++
			continue
		}
		sort.SliceStable(idx, func(a, b int) bool { return ds.Scores[idx[a]].ElapsedS.V < ds.Scores[idx[b]].ElapsedS.V })
		tm := make([]float64, len(idx))
		y := make([]float64, len(idx))
		for j, k := range idx {
			e := ds.Scores[k]
			tm[j] = e.ElapsedS.V
			y[j] = math.NaN()
			if !math.IsNaN(e.RawScore) {
				y[j] = analysis.Normalize(e.RawScore, t.YStart.V, t.YRef.V, analysis.NormalizeOptions{})
			}
		}
		length := 0.0
		switch {
		case r.TimeLimitS.Valid && r.TimeLimitS.V > 0:
			length = float64(r.TimeLimitS.V)
		case r.Kind == "human":
			length = humanLength
		}
		rule := analysis.RuleMax
		if t.Aggregation.Valid {
			if rr, err := analysis.ParseRule(t.Aggregation.V); err == nil {
				rule = rr
			}
		}
		c := analysis.BestSoFar(tm, y, rule, length)
		if len(c.T) == 0 {
			skipped++ // no valid score at all: its final score is null, so it is not in the curve either
			continue
		}
		k := groupKey{r.Agent, r.TimeLimitS.V, r.TimeLimitS.Valid}
		if groups[k] == nil {
			groups[k] = map[string][]analysis.RunCurve{}
		}
		tn := task(r.Benchmark, r.TaskID)
		groups[k][tn] = append(groups[k][tn], c)
		st := rates[r.Agent]
		st[0]++
		st[1] += float64(len(idx))
		if length > 0 {
			st[2] += length / 3600
		} else if len(tm) > 0 {
			st[2] += tm[len(tm)-1] / 3600
		}
		rates[r.Agent] = st
	}
	return groups, skipped, rates
}

package study

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/rdeval/rdeval/analysis"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/ingest"
)

// CostParams are the choices of a cost comparison.
type CostParams struct {
	By   []string // group runs by these runs columns (nil: agent, time_limit_s)
	Boot int      // bootstrap replicates (0: no interval)
	Seed uint64
	CI   float64 // confidence level, in (0, 1)
	// ResampleTasks resamples tasks, each with its observed runs
	// (analysis.BootTasks), instead of runs within tasks, tasks fixed
	// (analysis.BootRuns; --boot-unit tasks).
	ResampleTasks bool
	// FrontierOn is the score axis of the Pareto frontier: "score" (mean
	// normalized score), "success" (success rate), or "" for score when
	// some group has a score, else success.
	FrontierOn string
	// NoHumans leaves out the runs of kind human.
	NoHumans bool
}

// CostGroup is the cost statistics of one group.
type CostGroup struct {
	Key     []string // the By columns' values ("" for null)
	Human   bool     // every run of the group is of kind human
	Summary analysis.CostSummary
	// Pareto: the group is on the cost–score frontier of the result's
	// groups (analysis.ParetoFrontier on mean cost and FrontierOn).
	Pareto bool
}

// CostResult is the cost statistics per group, sorted by key.
type CostResult struct {
	By         []string
	FrontierOn string // "score" or "success"
	Groups     []CostGroup
	Skipped    int // runs without cost_usd, left out
	Warnings   []error
}

// ErrNoCosts: no run has cost_usd.
var ErrNoCosts error = &cmdutil.BadInputError{Err: errors.New("no run has cost_usd: a cost comparison needs each run's cost in US dollars (METR's dollar_equivalent, or a cost_usd column)")}

// costSuccess is a run's success for cost per success: final_success,
// else score_binarized, else NaN.
func costSuccess(r *ingest.Run) float64 {
	switch {
	case r.FinalSuccess.Valid:
		if r.FinalSuccess.V {
			return 1
		}
		return 0
	case r.ScoreBinarized.Valid:
		return float64(r.ScoreBinarized.V)
	}
	return math.NaN()
}

// Cost computes, per group (p.By), the mean cost per run, mean tokens,
// mean score, success rate, cost per success and cost per unit of score
// (analysis.CostBootstrap: means over tasks of per-task means, a
// bootstrap stratified by task), and which groups are on the cost–score
// Pareto frontier. Runs without cost_usd are left out and counted (a
// warning; for humans one of its own, since their cost is their pay and
// often not recorded); a negative or infinite cost is a bad-input error
// naming the run's file and line. Warnings: a group without a success
// (cost per success +Inf), without success or score information, and
// over fewer tasks than another group. With no run that has a cost it
// fails with ErrNoCosts.
func Cost(ds *ingest.Dataset, p CostParams) (CostResult, error) {
	by := p.By
	if len(by) == 0 {
		by = []string{"agent", "time_limit_s"}
	}
	res := CostResult{By: by}
	type group struct {
		key   []string
		human bool
		runs  []analysis.CostRun
	}
	byID := map[string]*group{}
	var order []*group
	humanNoCost := 0
	for i := range ds.Runs {
		r := &ds.Runs[i]
		if p.NoHumans && r.Kind == "human" {
			continue
		}
		if !r.CostUSD.Valid {
			res.Skipped++
			if r.Kind == "human" {
				humanNoCost++
			}
			continue
		}
		if c := r.CostUSD.V; math.IsNaN(c) || math.IsInf(c, 0) || c < 0 {
			return res, &cmdutil.BadInputError{Err: fmt.Errorf("%s:%d: run %s: field \"cost_usd\" (METR: dollar_equivalent): %v: want a cost in US dollars ≥ 0", r.SourceFile, r.SourceLine, r.RunID, c)}
		}
		key := make([]string, len(by))
		for j, b := range by {
			if v, ok := ingest.RunValue(r, b); ok {
				key[j] = v
			}
		}
		id := strings.Join(key, "\x00")
		g := byID[id]
		if g == nil {
			g = &group{key: key, human: true}
			byID[id] = g
			order = append(order, g)
		}
		g.human = g.human && r.Kind == "human"
		g.runs = append(g.runs, analysis.CostRun{Task: TaskKey(r.Benchmark, r.TaskID), Cost: r.CostUSD.V,
			Tokens: r.Tokens.Or(math.NaN()), Score: r.Score.Or(math.NaN()), Success: costSuccess(r)})
	}
	if len(order) == 0 {
		return res, ErrNoCosts
	}
	if res.Skipped > 0 {
		res.Warnings = append(res.Warnings, fmt.Errorf("%d runs without cost_usd are left out", res.Skipped))
	}
	if humanNoCost > 0 {
		res.Warnings = append(res.Warnings, fmt.Errorf("%d human runs have no cost_usd and are left out: give their pay as cost_usd to compare them (RE-Bench paid about $1,855 per 8-hour attempt)", humanNoCost))
	}
	slices.SortFunc(order, func(a, b *group) int {
		switch {
		case lessKey(a.key, b.key):
			return -1
		case lessKey(b.key, a.key):
			return 1
		}
		return 0
	})
	label := func(key []string) string {
		parts := make([]string, len(by))
		for j, b := range by {
			parts[j] = b + "=" + key[j]
		}
		return strings.Join(parts, " ")
	}
	anyScore := false
	unit := analysis.BootRuns
	if p.ResampleTasks {
		unit = analysis.BootTasks
	}
	for _, g := range order {
		s, err := analysis.CostBootstrap(g.runs, unit, p.Boot, p.Seed, p.CI)
		if err != nil {
			return res, fmt.Errorf("%s: %w", label(g.key), err)
		}
		res.Groups = append(res.Groups, CostGroup{Key: g.key, Human: g.human, Summary: s})
		anyScore = anyScore || !math.IsNaN(s.Est.MeanScore)
	}
	res.FrontierOn = p.FrontierOn
	if res.FrontierOn == "" {
		res.FrontierOn = "score"
		if !anyScore {
			res.FrontierOn = "success"
		}
	}
	cost := make([]float64, len(res.Groups))
	score := make([]float64, len(res.Groups))
	maxTasks := 0
	for i, g := range res.Groups {
		cost[i], score[i] = g.Summary.Est.MeanCost, g.Summary.Est.MeanScore
		if res.FrontierOn == "success" {
			score[i] = g.Summary.Est.SuccessRate
		}
		maxTasks = max(maxTasks, g.Summary.Tasks)
	}
	for i, on := range analysis.ParetoFrontier(cost, score) {
		res.Groups[i].Pareto = on
	}
	for i, g := range res.Groups {
		e, name := g.Summary.Est, label(g.Key)
		switch {
		case math.IsNaN(e.SuccessRate):
			res.Warnings = append(res.Warnings, fmt.Errorf("%s: no run has final_success or score_binarized: cost per success is undefined", name))
		case e.SuccessRate == 0:
			res.Warnings = append(res.Warnings, fmt.Errorf("%s: no run succeeded: cost per success is +Inf", name))
		}
		if math.IsNaN(score[i]) {
			res.Warnings = append(res.Warnings, fmt.Errorf("%s: no %s: left off the Pareto frontier", name, map[string]string{"score": "run has a score", "success": "success information"}[res.FrontierOn]))
		}
		if g.Summary.Tasks < maxTasks && !slices.Contains(by, "task_id") {
			res.Warnings = append(res.Warnings, fmt.Errorf("%s: its runs with a cost cover %d tasks, another group's %d: its means are over other tasks", name, g.Summary.Tasks, maxTasks))
		}
	}
	return res, nil
}

// CostColumns are the columns of CostResult.Table after the grouping
// columns: per statistic its estimate and interval.
func CostColumns() []string {
	cols := []string{"kind", "runs", "tasks"}
	for _, n := range analysis.CostNames {
		cols = append(cols, n, n+"_ci_low", n+"_ci_high")
	}
	return append(cols, "pareto")
}

// costCell formats statistic q: tokens without decimals, the others
// with four; NaN is empty, +Inf "+Inf".
func costCell(q int, v float64) string {
	if q == 1 && !math.IsNaN(v) && !math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return cmdutil.Fixed4(v)
}

// Kind is "human" for a group of human runs, else "agent".
func (g *CostGroup) Kind() string {
	if g.Human {
		return "human"
	}
	return "agent"
}

// Table is the result as rdeval cost prints it (--format table or csv):
// one row per group, the grouping columns then CostColumns.
func (r *CostResult) Table() *cmdutil.Table {
	t := &cmdutil.Table{Header: append(append([]string{}, r.By...), CostColumns()...)}
	for _, g := range r.Groups {
		s := g.Summary
		row := append(append([]string{}, g.Key...), g.Kind(), strconv.Itoa(s.Runs), strconv.Itoa(s.Tasks))
		est, lo, hi := s.Est.Values(), s.Lo.Values(), s.Hi.Values()
		for q := range est {
			row = append(row, costCell(q, est[q]), costCell(q, lo[q]), costCell(q, hi[q]))
		}
		t.Rows = append(t.Rows, append(row, strconv.FormatBool(g.Pareto)))
	}
	return t
}

// TextTable is the result as rdeval cost --format table prints it: one
// row per group, each statistic as "estimate [low, high]" (the estimate
// alone without an interval), dollars to the cent, so the table fits a
// terminal; Table has the numbers in separate columns, to 4 decimals.
func (r *CostResult) TextTable() *cmdutil.Table {
	t := &cmdutil.Table{Header: append(append([]string{}, r.By...), "kind", "runs", "tasks")}
	for _, n := range analysis.CostNames {
		t.Header = append(t.Header, n)
	}
	t.Header = append(t.Header, "pareto")
	for _, g := range r.Groups {
		s := g.Summary
		row := append(append([]string{}, g.Key...), g.Kind(), strconv.Itoa(s.Runs), strconv.Itoa(s.Tasks))
		est, lo, hi := s.Est.Values(), s.Lo.Values(), s.Hi.Values()
		for q := range est {
			f := func(v float64) string {
				if q == 0 || q >= 4 { // dollars: cents
					if math.IsNaN(v) {
						return ""
					}
					return strconv.FormatFloat(v, 'f', 2, 64)
				}
				return costCell(q, v)
			}
			cell := f(est[q])
			if !math.IsNaN(est[q]) && !math.IsNaN(lo[q]) && !math.IsInf(est[q], 0) {
				cell += " [" + f(lo[q]) + ", " + f(hi[q]) + "]"
			}
			row = append(row, cell)
		}
		t.Rows = append(t.Rows, append(row, strconv.FormatBool(g.Pareto)))
	}
	return t
}

// JSON is the result as rdeval cost --format json prints it: one object
// per group, time_limit_s as a number (null when absent), NaN and ±Inf as
// null (a null cost_per_success with success_rate 0 is +Inf).
func (r *CostResult) JSON() []map[string]any {
	out := make([]map[string]any, 0, len(r.Groups))
	for _, g := range r.Groups {
		m := map[string]any{}
		for j, b := range r.By {
			v := g.Key[j]
			m[b] = v
			if b == "time_limit_s" {
				if n, err := strconv.ParseInt(v, 10, 64); err == nil {
					m[b] = n
				} else if v == "" {
					m[b] = nil
				}
			}
		}
		s := g.Summary
		m["kind"], m["runs"], m["tasks"], m["pareto"], m["frontier_on"] = g.Kind(), s.Runs, s.Tasks, g.Pareto, r.FrontierOn
		est, lo, hi := s.Est.Values(), s.Lo.Values(), s.Hi.Values()
		for q, n := range analysis.CostNames {
			m[n], m[n+"_ci_low"], m[n+"_ci_high"] = cmdutil.JSONNum(est[q]), cmdutil.JSONNum(lo[q]), cmdutil.JSONNum(hi[q])
		}
		out = append(out, m)
	}
	return out
}

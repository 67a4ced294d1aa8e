package study

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/rdeval/rdeval/analysis"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/ingest"
)

// AllocationParams are the choices of an allocation table.
type AllocationParams struct {
	Budgets     []float64 // total time budgets, seconds
	Boot        int
	Seed        uint64
	CI          float64
	Select      string        // observed or holdout
	HumanLength time.Duration // run length of human runs without a time limit
	Truncate    string        // none, humans or all: read runs at budgets shorter than their length
}

// AllocationRow is one allocation of one budget.
type AllocationRow struct {
	Agent      string
	BudgetS    float64
	RunLengthS float64
	K          int
	NTasks     int
	Estimate   float64
	CILow      float64
	CIHigh     float64
	Best       bool
	// FullTaskSet: the mean covers every task of the agent (false:
	// tasks short of k runs were left out; never Best). Holdout rows: true.
	FullTaskSet bool
	Selection   string
	Truncated   bool // runs read from their score logs at the budget, not run to their end
}

// AllocationResult is the allocation table.
type AllocationResult struct {
	Rows     []AllocationRow
	Warnings []error
}

// Allocation computes, per agent and total time budget, score@k of each
// allocation of the budget to runs of one length (k = budget / length),
// and marks the best; with Select "holdout" it adds the held-out choice.
// The warnings found before a failure are on the result returned with the
// error.
func Allocation(ds *ingest.Dataset, p AllocationParams) (AllocationResult, error) {
	var res AllocationResult
	budgets := p.Budgets
	// agent → run length → its allocation (tasks and scores)
	length := func(r *ingest.Run) (float64, bool) {
		switch {
		case r.TimeLimitS.Valid && r.TimeLimitS.V > 0:
			return float64(r.TimeLimitS.V), true
		case r.Kind == "human":
			return p.HumanLength.Seconds(), true
		}
		return 0, false
	}
	byAgent := map[string]map[float64]analysis.Allocation{}
	groups, _ := GroupRunsBy(ds, func(r *ingest.Run) []string {
		h, _ := length(r)
		return []string{r.Agent, strconv.FormatFloat(h, 'g', -1, 64)}
	}, Only(func(r *ingest.Run) bool { _, ok := length(r); return ok }, Score))
	for _, g := range groups {
		h, _ := strconv.ParseFloat(g.Key[1], 64)
		if byAgent[g.Key[0]] == nil {
			byAgent[g.Key[0]] = map[float64]analysis.Allocation{}
		}
		byAgent[g.Key[0]][h] = analysis.Allocation{RunLengthS: h, Tasks: g.Tasks}
	}
	if len(byAgent) == 0 {
		return res, &cmdutil.BadInputError{Err: fmt.Errorf("no run has both a score and a run length (time_limit_s)")}
	}
	// Budgets shorter than all of a group's runs: its runs read at the budget
	// from their score logs (k = 1), marked truncated.
	trunc := map[string]map[float64]analysis.Allocation{} // agent → budget → runs read at the budget
	if p.Truncate != "none" {
		for _, T := range budgets {
			include := func(r *ingest.Run) bool {
				if p.Truncate == "humans" && r.Kind != "human" {
					return false
				}
				for h := range byAgent[r.Agent] {
					if h <= T {
						return false
					}
				}
				return byAgent[r.Agent] != nil
			}
			groups, _ := GroupRuns(ds, []string{"agent"}, Only(include, AtBudget(ds, T)))
			for _, g := range groups {
				if trunc[g.Key[0]] == nil {
					trunc[g.Key[0]] = map[float64]analysis.Allocation{}
				}
				trunc[g.Key[0]][T] = analysis.Allocation{RunLengthS: T, Tasks: g.Tasks}
			}
		}
	}
	agents := slices.Sorted(maps.Keys(byAgent))
	opt := analysis.ScoreAtKOptions{Boot: p.Boot, Seed: p.Seed, Level: p.CI}
	if p.Select == "holdout" {
		opt.Boot = 0 // the holdout rows carry the uncertainty; observed rows are point estimates
	}
	var rows []AllocationRow
	for _, a := range agents {
		var allocs []analysis.Allocation
		lengths := slices.Sorted(maps.Keys(byAgent[a]))
		for _, h := range lengths {
			allocs = append(allocs, byAgent[a][h])
		}
		for _, T := range budgets {
			allocsT := allocs
			if t, ok := trunc[a][T]; ok {
				allocsT = append(append([]analysis.Allocation{}, allocs...), t)
			}
			pts, err := analysis.AllocationCurve(allocsT, []float64{T}, opt)
			if err != nil {
				return res, err
			}
			for _, w := range analysis.AllocationWarnings(pts) {
				res.Warnings = append(res.Warnings, fmt.Errorf("%s: %w", a, w))
			}
			for _, p := range pts {
				_, isTrunc := trunc[a][T]
				_, ran := byAgent[a][T]
				rows = append(rows, AllocationRow{Agent: a, BudgetS: p.BudgetS, RunLengthS: p.RunLengthS, K: p.K, NTasks: p.NTasks,
					Estimate: p.Estimate, CILow: p.CILow, CIHigh: p.CIHigh, Best: p.Best, FullTaskSet: p.FullTaskSet, Selection: "observed",
					Truncated: isTrunc && p.RunLengthS == T && !ran})
			}
		}
		if p.Select == "holdout" {
			for _, T := range budgets {
				h, err := analysis.HoldoutBest(allocs, T, analysis.ScoreAtKOptions{Boot: p.Boot, Seed: p.Seed, Level: p.CI})
				if err != nil {
					continue // no run length divides T
				}
				for _, w := range h.Warnings {
					res.Warnings = append(res.Warnings, fmt.Errorf("%s: %w", a, w))
				}
				if h.Splits == 0 {
					continue
				}
				mode, n := 0.0, -1
				for l, c := range h.Chosen {
					if c > n || (c == n && l < mode) {
						mode, n = l, c
					}
				}
				k, _ := strconv.Atoi(strconv.FormatFloat(T/mode, 'f', 0, 64))
				rows = append(rows, AllocationRow{Agent: a, BudgetS: T, RunLengthS: mode, K: k, NTasks: -1,
					Estimate: h.Estimate, CILow: h.CILow, CIHigh: h.CIHigh, Best: true, FullTaskSet: true, Selection: "holdout"})
			}
		}
	}
	res.Rows = rows
	return res, nil
}

// Table is the result as rdeval allocation prints it (--format table or
// csv; the report's allocation.csv).
func (a *AllocationResult) Table() *cmdutil.Table {
	t := &cmdutil.Table{Header: []string{"agent", "budget_s", "run_length_s", "k", "n_tasks", "estimate", "ci_low", "ci_high", "best", "full_task_set", "selection", "truncated"}}
	for _, r := range a.Rows {
		nt := strconv.Itoa(r.NTasks)
		if r.NTasks < 0 {
			nt = ""
		}
		t.Rows = append(t.Rows, []string{r.Agent, strconv.FormatFloat(r.BudgetS, 'f', -1, 64), strconv.FormatFloat(r.RunLengthS, 'f', -1, 64),
			strconv.Itoa(r.K), nt, cmdutil.Fixed4(r.Estimate), cmdutil.Fixed4(r.CILow), cmdutil.Fixed4(r.CIHigh), strconv.FormatBool(r.Best), strconv.FormatBool(r.FullTaskSet), r.Selection, strconv.FormatBool(r.Truncated)})
	}
	return t
}

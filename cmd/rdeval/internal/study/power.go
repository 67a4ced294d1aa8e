package study

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/rdeval/rdeval/analysis"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/ingest"
)

// PowerParams are the choices of a power simulation: the grid (runs per
// task per agent × number of tasks), the level and the simulations.
type PowerParams struct {
	analysis.PowerOptions
	Stat   string          // "success" (final success) or "scoreatk" (pilot data only)
	K      int             // k of score@k
	A, B   cmdutil.Filters // each agent's pilot runs
	PA, PB float64         // assumed success rates, used without pilot data
}

// PowerResult is the simulated power per grid cell.
type PowerResult struct {
	Description string               // the statistic, its data and its test, one line
	Cells       []analysis.PowerCell // in grid order
	ClosedForm  []float64            // per cell, the exact power with assumed rates; nil with pilot data
	Warnings    []error
}

// Power simulates p.Sims studies of agents A and B per grid cell and
// gives the share whose two-sided test rejects equality at p.Alpha (power,
// power_se = sqrt(power(1−power)/sims)) and the mean CI half-width. With ds
// nil each run succeeds with p.PA or p.PB on every task, and the unpooled
// two-proportion z-test (Wald) compares the arms' runs × tasks runs
// (analysis.PowerSuccessRates); ClosedForm is its exact power
// (analysis.WaldPowerExact). With pilot data (p.A and p.B select each
// arm's runs; none is a usage error) a study draws tasks with replacement
// from those both arms ran and each task's runs from the arm's pilot runs
// of it, and a sign-flip test over tasks compares the per-task final-success
// rates (analysis.PowerSuccessPilot) or score@k of normalized scores
// (analysis.PowerScoreAtK). Warnings: below analysis.SignFlipMinTasks
// tasks the sign-flip test cannot reject (power 0).
func Power(ds *ingest.Dataset, p PowerParams) (PowerResult, error) {
	var res PowerResult
	var err error
	if ds == nil {
		if res.Cells, err = analysis.PowerSuccessRates(p.PA, p.PB, p.PowerOptions); err != nil {
			return res, err
		}
		for _, c := range res.Cells {
			res.ClosedForm = append(res.ClosedForm, analysis.WaldPowerExact(p.PA, p.PB, c.RunsPerTask*c.Tasks, p.Alpha))
		}
		res.Description = fmt.Sprintf("final success, assumed rates A %g, B %g: unpooled two-proportion z-test, α = %g", p.PA, p.PB, p.Alpha)
		return res, nil
	}
	var ra, rb []*ingest.Run
	for i := range ds.Runs {
		r := &ds.Runs[i]
		if p.A.Match(r) {
			ra = append(ra, r)
		}
		if p.B.Match(r) {
			rb = append(rb, r)
		}
	}
	if len(ra) == 0 || len(rb) == 0 {
		return res, cmdutil.Usagef("--a selects %d pilot runs and --b %d: each must select some", len(ra), len(rb))
	}
	if p.Stat == "success" {
		task := TaskNames(ds)
		oa, ob := outcomes(ra, task), outcomes(rb, task)
		if len(oa) == 0 || len(ob) == 0 {
			return res, &cmdutil.BadInputError{Err: fmt.Errorf("the pilot runs of A (%d) or B (%d) have no success information", len(oa), len(ob))}
		}
		res.Cells, err = analysis.PowerSuccessPilot(oa, ob, p.PowerOptions)
		res.Description = fmt.Sprintf("final success from pilot data (A %d runs, final success %.4f; B %d runs, %.4f): sign-flip test over tasks of the per-task success rates, α = %g",
			len(oa), analysis.FinalSuccessMean(oa), len(ob), analysis.FinalSuccessMean(ob), p.Alpha)
	} else {
		ta, tb := Tasks(ds, Only(p.A.Match, Score)), Tasks(ds, Only(p.B.Match, Score))
		if len(ta) == 0 || len(tb) == 0 {
			return res, &cmdutil.BadInputError{Err: fmt.Errorf("the pilot runs of A or B have no normalized score")}
		}
		res.Cells, err = analysis.PowerScoreAtK(ta, tb, p.K, p.PowerOptions)
		res.Description = fmt.Sprintf("score@%d from pilot data (A %d tasks, B %d tasks): sign-flip test over tasks, α = %g", p.K, len(ta), len(tb), p.Alpha)
	}
	if err != nil {
		return res, &cmdutil.BadInputError{Err: err}
	}
	if n := analysis.SignFlipMinTasks(p.Alpha); slices.Min(p.Tasks) < n {
		res.Warnings = append(res.Warnings, fmt.Errorf("the sign-flip test over tasks cannot reject at α = %g with fewer than %d tasks (its smallest p-value is 2/2^tasks), so power is 0 there", p.Alpha, n))
	}
	return res, nil
}

// outcomes are the runs with success information, each task named by the
// one task key (TaskNames).
func outcomes(rs []*ingest.Run, task func(benchmark, taskID string) string) []analysis.OutcomeRun {
	var out []analysis.OutcomeRun
	for _, r := range rs {
		if !r.FinalSuccess.Valid && !r.ExecSuccess.Valid && !r.Outcome.Valid {
			continue
		}
		out = append(out, analysis.OutcomeRun{Task: task(r.Benchmark, r.TaskID), Final: r.FinalSuccess.Or(false), Exec: r.ExecSuccess.Or(false), Recall: math.NaN()})
	}
	return out
}

// MaxPowerSE is the largest simulation error (power_se) of the cells.
func (r *PowerResult) MaxPowerSE() float64 {
	m := 0.0
	for _, c := range r.Cells {
		m = math.Max(m, c.PowerSE)
	}
	return m
}

// Table is the result as rdeval power prints it (--format table, csv or
// latex): one row per cell, power_closed_form when there is one; numbers
// to 4 decimals (NaN as NaN).
func (r *PowerResult) Table() *cmdutil.Table {
	f4 := func(x float64) string { return strconv.FormatFloat(x, 'f', 4, 64) }
	t := &cmdutil.Table{Header: []string{"runs_per_task", "tasks", "power", "power_se", "ci_half_width"}}
	if r.ClosedForm != nil {
		t.Header = append(t.Header, "power_closed_form")
	}
	for i, c := range r.Cells {
		row := []string{strconv.Itoa(c.RunsPerTask), strconv.Itoa(c.Tasks), f4(c.Power), f4(c.PowerSE), f4(c.CIHalfWidth)}
		if r.ClosedForm != nil {
			row = append(row, f4(r.ClosedForm[i]))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// JSON is the cells as rdeval power --format json prints them.
func (r *PowerResult) JSON() []map[string]any {
	rows := make([]map[string]any, len(r.Cells))
	for i, c := range r.Cells {
		rows[i] = map[string]any{"runs_per_task": c.RunsPerTask, "tasks": c.Tasks, "power": c.Power, "power_se": c.PowerSE, "ci_half_width": c.CIHalfWidth, "sims": c.Sims}
		if r.ClosedForm != nil {
			rows[i]["power_closed_form"] = r.ClosedForm[i]
		}
	}
	return rows
}

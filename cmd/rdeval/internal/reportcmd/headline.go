package reportcmd

import (
	"fmt"
	"io/fs"
	"math"
	"strconv"
	"time"

	"github.com/rdeval/rdeval/analysis/formula"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/demo"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/figconfig"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/study"
	"github.com/rdeval/rdeval/ingest"
)

// headline is one of the page's headline tables: html (header and
// formatted cells, estimates as "0.44 [0.38, 0.50]") for the page, csv
// (the command's own table where there is one, study's Table()) written
// beside it as file.
type headline struct {
	id, title, note, file string
	header                []string
	rows                  [][]string
	csv                   *cmdutil.Table
	warnings              []string
}

// headlineSettings are the bootstrap settings of the headline tables
// (those of the figures config).
type headlineSettings struct {
	boot int
	seed uint64
	ci   float64
	// dates are the agents' release dates for the horizon trend (nil: none).
	dates map[string]time.Time
	// horizonBench, if set, is the one benchmark the horizons are fitted
	// on (the demo: its hcast part); else every benchmark but RExBench.
	horizonBench string
}

// The regression of the headline table (RExBench Fig. 5's terms; the
// forest figure of the demo config fits the same model).
const headlineFormula = "final_success ~ hint_level + scale(gold_lines_changed)"

// The allocation budgets of the human comparison (RE-Bench Fig. 2).
var headlineBudgets = []string{"30m", "1h", "2h", "4h", "8h", "16h", "32h"}

// headlines computes the headline tables through package study, each on
// the runs it is about: score@k and the human comparison on the RE-Bench
// runs, success and the regression on the RExBench runs, horizons on the
// runs with human minutes (all but RExBench's). A table whose runs are
// absent is left out (named in the second result, with the reason); one
// that fails is left out with a warning.
func headlines(ds *ingest.Dataset, s headlineSettings) ([]headline, []string) {
	var out []headline
	var leftOut []string
	add := func(h headline, err error) {
		if err != nil {
			h.rows, h.csv = nil, nil
			h.warnings = append(h.warnings, "not computed: "+err.Error())
		}
		if h.csv != nil || len(h.warnings) > 0 {
			out = append(out, h)
		}
	}
	pct := fmt.Sprintf("%g%% percentile bootstrap intervals (B = %d, seed %d)", 100*s.ci, s.boot, s.seed)
	if rb := study.BenchmarkRuns(ds, "re-bench", true); len(rb.Runs) > 0 {
		add(scoreAtKHeadline(rb, s, pct))
		add(allocationHeadline(rb, s, pct))
		if hasAgentRun(rb, func(r *ingest.Run) bool { return r.CostUSD.Valid }) {
			add(costHeadline(rb, s, pct))
		} else {
			leftOut = append(leftOut, "table cost (cost.csv): no RE-Bench agent run has cost_usd (METR's dollar_equivalent)")
		}
	} else {
		leftOut = append(leftOut, "tables score@k (scoreatk.csv) and agents and humans by budget (allocation.csv): no RE-Bench runs (benchmark re-bench)")
	}
	if rx := study.BenchmarkRuns(ds, "rexbench", true); len(rx.Runs) > 0 {
		add(successHeadline(rx, s, pct))
		if hasGoldLines(rx) {
			add(regressHeadline(rx))
		} else {
			leftOut = append(leftOut, "table regression (regression.csv): no gold lines changed for the RExBench tasks (give a catalog with --tasks)")
		}
	} else {
		leftOut = append(leftOut, "tables RExBench success (success.csv) and regression (regression.csv): no RExBench runs (benchmark rexbench)")
	}
	hz := study.BenchmarkRuns(ds, "rexbench", false)
	if s.horizonBench != "" {
		hz = study.BenchmarkRuns(ds, s.horizonBench, true)
	}
	if hasAgentRun(hz, func(r *ingest.Run) bool { return r.HumanMinutes.Valid }) {
		add(horizonHeadline(hz, s, pct))
		if s.dates == nil {
			leftOut = append(leftOut, "the doubling time of the time horizons: no release dates (give --release-dates FILE, agent: YYYY-MM-DD)")
		}
	} else {
		leftOut = append(leftOut, "table time horizons (horizons.csv): no agent runs with human_minutes")
	}
	return out, leftOut
}

// hasAgentRun: some run not of kind human satisfies has.
func hasAgentRun(ds *ingest.Dataset, has func(r *ingest.Run) bool) bool {
	for i := range ds.Runs {
		if ds.Runs[i].Kind != "human" && has(&ds.Runs[i]) {
			return true
		}
	}
	return false
}

// costHeadline is RE-Bench Fig. 8's comparison as a table: per agent and
// run length, mean cost per run, mean score and cost per unit of score
// with intervals, and whether the group is on the cost–score Pareto
// frontier (rdeval cost's defaults).
func costHeadline(ds *ingest.Dataset, s headlineSettings, pct string) (headline, error) {
	h := headline{id: "table-cost", file: "cost.csv", title: "Cost and score by agent and run length (RE-Bench Fig. 8)",
		note:   "Means over tasks of each task's mean over its runs; cost in US dollars per run; " + pct + ", runs resampled within tasks. Pareto: not dominated in (mean cost, mean score). cost.csv has tokens, success rate and cost per success too.",
		header: []string{"agent", "run length", "runs", "mean cost [CI]", "mean score [CI]", "cost per unit score [CI]", "Pareto"}}
	res, err := study.Cost(ds, study.CostParams{By: []string{"agent", "time_limit_s"}, Boot: s.boot, Seed: s.seed, CI: s.ci})
	h.warnings = append(h.warnings, errStrings(res.Warnings)...)
	if err != nil {
		return h, err
	}
	for _, g := range res.Groups {
		e, lo, hi := g.Summary.Est, g.Summary.Lo, g.Summary.Hi
		length := figconfig.DurationLabel(g.Key[1])
		pareto := ""
		if g.Pareto {
			pareto = "yes"
		}
		h.rows = append(h.rows, []string{g.Key[0], length, strconv.Itoa(g.Summary.Runs),
			est(e.MeanCost, lo.MeanCost, hi.MeanCost), est(e.MeanScore, lo.MeanScore, hi.MeanScore),
			est(e.CostPerScore, lo.CostPerScore, hi.CostPerScore), pareto})
	}
	h.csv = res.Table()
	return h, nil
}

// est formats an estimate with its interval as papers do.
func est(v, lo, hi float64) string {
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return num(v)
	}
	return num(v) + " [" + num(lo) + ", " + num(hi) + "]"
}

func num(v float64) string {
	switch {
	case math.IsNaN(v):
		return "–"
	case math.IsInf(v, 1):
		return "∞"
	case math.IsInf(v, -1):
		return "−∞"
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// minutes formats a horizon in minutes with 3 significant digits.
func minutes(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return num(v)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

func errStrings(ws []error) []string {
	var out []string
	for _, w := range ws {
		out = append(out, w.Error())
	}
	return out
}

func scoreAtKHeadline(ds *ingest.Dataset, s headlineSettings, pct string) (headline, error) {
	h := headline{id: "table-scoreatk", file: "scoreatk.csv", title: "score@k by agent and run length (RE-Bench Figs. 7–8)",
		note:   "Mean over tasks of the expected best normalized score of k runs; budget = k × run length; " + pct + ", runs resampled within tasks.",
		header: []string{"agent", "run length", "k", "budget", "tasks", "score@k [CI]"}}
	res, err := study.ScoreAtK(ds, study.ScoreAtKParams{By: []string{"agent", "time_limit_s"}, Boot: s.boot, Seed: s.seed, CI: s.ci})
	h.warnings = errStrings(res.Warnings)
	if err != nil {
		return h, err
	}
	for _, r := range res.Rows {
		tl := r.Group["time_limit_s"]
		budget := ""
		if sec, err := strconv.ParseFloat(tl, 64); err == nil {
			budget = figconfig.DurationLabel(strconv.FormatFloat(sec*float64(r.K), 'f', -1, 64))
		}
		h.rows = append(h.rows, []string{r.Group["agent"], figconfig.DurationLabel(tl), strconv.Itoa(r.K), budget, strconv.Itoa(r.NTasks), est(r.Estimate, r.CILow, r.CIHigh)})
	}
	h.csv = res.Table()
	return h, nil
}

// allocationHeadline is the human comparison: per agent (humans' 8-hour
// runs read at each budget from their score logs) the best allocation's
// score at each total budget.
func allocationHeadline(ds *ingest.Dataset, s headlineSettings, pct string) (headline, error) {
	h := headline{id: "table-allocation", file: "allocation.csv", title: "Agents and humans by total time budget: the best allocation (RE-Bench Fig. 2)",
		note: "Best run length × k among the allocations covering every task of the agent; humans' 8-hour runs are read at shorter budgets from their score logs; " + pct + ". allocation.csv has every allocation."}
	budgets, err := cmdutil.ParseBudgets(headlineBudgets)
	if err != nil {
		return h, err
	}
	res, err := study.Allocation(ds, study.AllocationParams{Budgets: budgets, Boot: s.boot, Seed: s.seed, CI: s.ci, Select: "observed", Truncate: "humans", HumanLength: 8 * time.Hour})
	h.warnings = errStrings(res.Warnings)
	if err != nil {
		return h, err
	}
	h.header = []string{"agent"}
	for _, b := range budgets {
		h.header = append(h.header, figconfig.DurationLabel(strconv.FormatFloat(b, 'f', -1, 64)))
	}
	col := map[float64]int{}
	for i, b := range budgets {
		col[b] = i + 1
	}
	row := map[string][]string{}
	var agents []string
	for _, r := range res.Rows {
		if !r.Best || r.Selection != "observed" {
			continue
		}
		if row[r.Agent] == nil {
			row[r.Agent] = make([]string, len(budgets)+1)
			row[r.Agent][0] = r.Agent
			agents = append(agents, r.Agent)
		}
		if c, ok := col[r.BudgetS]; ok {
			row[r.Agent][c] = fmt.Sprintf("%s (%s × %d)", est(r.Estimate, r.CILow, r.CIHigh), figconfig.DurationLabel(strconv.FormatFloat(r.RunLengthS, 'f', -1, 64)), r.K)
		}
	}
	for _, a := range agents {
		h.rows = append(h.rows, row[a])
	}
	h.csv = res.Table()
	return h, nil
}

// successHeadline is RExBench Table 5: final and execution success per
// agent and hint level, means over tasks with intervals.
func successHeadline(ds *ingest.Dataset, s headlineSettings, pct string) (headline, error) {
	h := headline{id: "table-success", file: "success.csv", title: "RExBench final and execution success (Table 5)",
		note:   "Mean over tasks of the per-task success rates; " + pct + ", runs resampled within tasks. success.csv has the per-task rates.",
		header: []string{"framework", "model", "hint level", "tasks", "runs", "final success [CI]", "execution success [CI]", "file recall"}}
	res, err := study.Success(ds, study.SuccessParams{Boot: s.boot, Seed: s.seed, CI: s.ci})
	if res.Skipped > 0 {
		h.warnings = append(h.warnings, fmt.Sprintf("%d runs without success information are left out", res.Skipped))
	}
	if err != nil {
		return h, err
	}
	for _, c := range res.Cells {
		m := c.Summary
		h.rows = append(h.rows, []string{c.Key.Framework, c.Key.Model, c.Key.Hint, strconv.Itoa(m.Tasks), strconv.Itoa(m.Runs),
			est(m.Final, m.FinalLow, m.FinalHigh), est(m.Exec, m.ExecLow, m.ExecHigh), num(m.Recall)})
	}
	h.csv = res.Table()
	return h, nil
}

// regressHeadline is the logistic GLM of final success on hint level and
// gold lines changed, with task-clustered standard errors.
func regressHeadline(ds *ingest.Dataset) (headline, error) {
	h := headline{id: "table-regression", file: "regression.csv", title: "Regression of final success (RExBench Fig. 5)",
		note:   "Logistic GLM " + headlineFormula + " on the runs, log-odds, standard errors clustered by task.",
		header: []string{"term", "estimate [95% CI]", "SE", "z", "p"}}
	parsed, err := formula.Parse(headlineFormula)
	if err != nil {
		return h, err
	}
	res, err := study.Regress(figconfig.RunsTable(ds), study.RegressParams{Formula: headlineFormula, Parsed: parsed, Family: "binomial", Cluster: "task_id", CI: study.CIWald, MaxIter: 25}, nil)
	h.warnings = errStrings(res.Warnings)
	if err != nil {
		return h, err
	}
	h.csv = &cmdutil.Table{Header: []string{"term", "estimate", "se", "statistic", "p", "ci_low", "ci_high"}}
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	for _, c := range res.Coefficients {
		h.rows = append(h.rows, []string{c.Term, est(c.Estimate, c.CILow, c.CIHigh), num(c.SE), num(c.Stat), strconv.FormatFloat(c.P, 'g', 2, 64)})
		h.csv.Rows = append(h.csv.Rows, []string{c.Term, g(c.Estimate), g(c.SE), g(c.Stat), g(c.P), g(c.CILow), g(c.CIHigh)})
	}
	h.note += fmt.Sprintf(" n = %d runs; standard errors %s; 95%% intervals %s.", res.N, res.SEType, res.CIMethod)
	return h, nil
}

// horizonHeadline is each agent's p50 and p80 time horizon (METR) and,
// with release dates, the doubling time of the frontier's p50.
func horizonHeadline(ds *ingest.Dataset, s headlineSettings, pct string) (headline, error) {
	h := headline{id: "table-horizons", file: "horizons.csv", title: "Time horizons (METR)",
		note: "Logistic fit of success on log2 human minutes per agent (invsqrt task weights, regularization 0.1); " + pct +
			", hierarchical (families, tasks, runs). Refused: the fit does not give a horizon inside the tasks' lengths.",
		header: []string{"agent", "runs", "p50 minutes [CI]", "p80 minutes [CI]", "average success"}}
	qs := []float64{0.5, 0.8}
	res, err := study.Horizon(ds, study.HorizonParams{Weighting: "invsqrt", Regularization: 0.1, Boot: s.boot, Seed: s.seed, CI: s.ci, Quantiles: qs, ScoreCol: "score_binarized", Dates: s.dates})
	h.warnings = errStrings(res.Warnings)
	if err != nil {
		return h, err
	}
	h.csv = &cmdutil.Table{Header: []string{"agent", "n", "slope", "intercept", "p50_minutes", "p50_ci_low", "p50_ci_high", "p80_minutes", "p80_ci_low", "p80_ci_high", "average_success"}}
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	for _, a := range res.Fit.Agents {
		row := []string{a.Agent, strconv.Itoa(a.N)}
		csv := []string{a.Agent, strconv.Itoa(a.N), g(a.Fit.Slope), g(a.Fit.Intercept)}
		for j := range qs {
			if study.Refused(a, j) {
				row = append(row, "refused")
				csv = append(csv, "refused", "", "")
				continue
			}
			cell := minutes(a.Horizons[j])
			if !math.IsNaN(a.CILow[j]) {
				cell += " [" + minutes(a.CILow[j]) + ", " + minutes(a.CIHigh[j]) + "]"
			}
			row = append(row, cell)
			csv = append(csv, g(a.Horizons[j]), g(a.CILow[j]), g(a.CIHigh[j]))
		}
		row = append(row, num(a.AverageSuccess))
		csv = append(csv, g(a.AverageSuccess))
		h.rows = append(h.rows, row)
		h.csv.Rows = append(h.csv.Rows, csv)
	}
	if t := res.Trend; t != nil {
		h.note += fmt.Sprintf(" Doubling time of the frontier's p50 (OLS of ln p50 on release date over %d agents): %.0f days", len(t.Agents), t.DoublingDays)
		if !math.IsNaN(t.CILow) {
			h.note += fmt.Sprintf(" (bootstrap median %.0f, %g%% interval [%.0f, %.0f])", t.BootMedian, 100*s.ci, t.CILow, t.CIHigh)
		}
		h.note += "."
	}
	return h, nil
}

// demoReleaseDates are the release dates of the demo's horizon agents.
func demoReleaseDates() (map[string]time.Time, error) {
	b, err := fs.ReadFile(demo.FS(), demo.HorizonReleaseDatesPath)
	if err != nil {
		return nil, err
	}
	return study.ParseReleaseDates("demo:"+demo.HorizonReleaseDatesPath, b)
}

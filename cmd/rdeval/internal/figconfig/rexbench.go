package figconfig

import (
	"math"
	"sort"
	"strconv"

	"github.com/rdeval/rdeval/analysis"
	"github.com/rdeval/rdeval/analysis/formula"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/study"
	"github.com/rdeval/rdeval/figures"
	"github.com/rdeval/rdeval/ingest"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

// sortBars orders bars by group, then level (stable).
func sortBars(bars []figures.Bar) {
	sort.SliceStable(bars, func(i, j int) bool {
		if bars[i].Group != bars[j].Group {
			return bars[i].Group < bars[j].Group
		}
		return bars[i].Level < bars[j].Level
	})
}

type successOptions struct {
	Metric string `yaml:"metric"` // final (default), exec or recall (file recall; no interval)
}

func drawSuccess(c *drawCtx, o any) (*plot.Plot, map[string]any, error) {
	opts := o.(*successOptions)
	if opts.Metric == "" {
		opts.Metric = "final"
	}
	var bars []figures.Bar
	nan := math.NaN()
	onSummary := func(framework, model, hint string, s analysis.RateSummary) {
		b := figures.Bar{Group: c.name(framework) + "\n" + c.name(model), Level: c.name(hint)}
		switch opts.Metric {
		case "final":
			b.Value, b.Lo, b.Hi = s.Final, s.FinalLow, s.FinalHigh
		case "exec":
			b.Value, b.Lo, b.Hi = s.Exec, s.ExecLow, s.ExecHigh
		case "recall":
			b.Value, b.Lo, b.Hi = s.Recall, nan, nan
		}
		if s.Tasks < 5 {
			c.warnf("%s + %s, %s: only %d tasks", framework, model, hint, s.Tasks)
		}
		bars = append(bars, b)
	}
	title, yLabel := "Final success", "Final success rate"
	switch opts.Metric {
	case "final":
	case "exec":
		title, yLabel = "Execution success", "Execution success rate"
	case "recall":
		title, yLabel = "File recall", "Mean file recall"
	default:
		return nil, nil, c.optErr("metric %q: want final, exec or recall", opts.Metric)
	}
	res, err := study.Success(rexbenchRuns(c.ds), study.SuccessParams{Boot: c.boot, Seed: c.seed, CI: c.ci})
	for _, cell := range res.Cells {
		onSummary(cell.Key.Framework, cell.Key.Model, cell.Key.Hint, cell.Summary)
	}
	if err != nil {
		return nil, nil, err
	}
	if opts.Metric == "recall" {
		c.warnf("file recall is drawn without intervals (rdeval success gives none)")
	}
	p, err := figures.GroupedBars(c.title(title), yLabel, bars)
	return p, map[string]any{"metric": opts.Metric, "interval": "percentile, runs resampled within tasks"}, err
}

// rexbenchRuns keeps the RExBench runs.
func rexbenchRuns(ds *ingest.Dataset) *ingest.Dataset {
	return study.BenchmarkRuns(ds, "rexbench", true)
}

type errorsOptions struct {
	MaxTypes int `yaml:"max_types"` // error types with their own colour (default 7; the rest are "other")
}

// drawErrors counts the error types (the error_type column) of RExBench
// runs per agent (RExBench Fig. 10): the max_types most frequent types,
// the rest as "other". Counting is the only computation.
func drawErrors(c *drawCtx, o any) (*plot.Plot, map[string]any, error) {
	opts := o.(*errorsOptions)
	if opts.MaxTypes == 0 {
		opts.MaxTypes = 7
	}
	if opts.MaxTypes < 1 || opts.MaxTypes > 7 {
		return nil, nil, c.optErr("max_types %d: want 1 to 7 (the palette's colours)", opts.MaxTypes)
	}
	groups, cats, counts, ok := ErrorTypeCounts(c.ds.Runs, opts.MaxTypes)
	if !ok {
		c.warnf("no RExBench run has an error type")
	}
	p, err := figures.StackedBars(c.title("Error types"), "Runs", groups, cats, counts)
	return p, map[string]any{"max_types": opts.MaxTypes}, err
}

type forestOptions struct {
	Formula string `yaml:"formula"` // R formula on runs columns and gold_lines_changed, gold_files_n (required)
	Family  string `yaml:"family"`  // binomial (default) or gaussian
	Cluster string `yaml:"cluster"` // cluster column for CR1 standard errors
}

// RunsTable is the figure's runs as a formula table (study.RunsTable) with
// the task columns gold_lines_changed and gold_files_n joined on
// (benchmark, task_id), empty when unknown; the report's regression table
// reads it too.
func RunsTable(ds *ingest.Dataset) formula.Table {
	tab := study.RunsTable(ds)
	type key struct{ b, t string }
	tasks := map[key]*ingest.Task{}
	for i := range ds.Tasks {
		tasks[key{ds.Tasks[i].Benchmark, ds.Tasks[i].TaskID}] = &ds.Tasks[i]
	}
	lines := make([]string, len(ds.Runs))
	files := make([]string, len(ds.Runs))
	for i := range ds.Runs {
		t := tasks[key{ds.Runs[i].Benchmark, ds.Runs[i].TaskID}]
		if t == nil {
			continue
		}
		if t.GoldLinesChanged.Valid {
			lines[i] = strconv.FormatInt(t.GoldLinesChanged.V, 10)
		}
		if t.GoldFiles != nil {
			files[i] = strconv.Itoa(len(t.GoldFiles))
		}
	}
	tab.Columns["gold_lines_changed"], tab.Columns["gold_files_n"] = lines, files
	tab.Order = append(tab.Order, "gold_lines_changed", "gold_files_n")
	return tab
}

// fitGLM fits a model with rdeval regress and returns its result;
// non-convergence and the fit's warnings become the figure's warnings.
func fitGLM(c *drawCtx, f, family, cluster string, tab formula.Table) (*study.RegressResult, error) {
	parsed, err := formula.Parse(f)
	if err != nil {
		return nil, c.optErr("formula %q: %v", f, err)
	}
	res, err := study.Regress(tab, study.RegressParams{Formula: f, Parsed: parsed, Family: family, Cluster: cluster, MaxIter: 25}, nil)
	if err != nil {
		return nil, err
	}
	c.warn(res.Warnings)
	if !res.Converged {
		c.warnf("%s: the fit did not converge in %d iterations", f, res.Iterations)
	}
	return &res, nil
}

func drawForest(c *drawCtx, o any) (*plot.Plot, map[string]any, error) {
	opts := o.(*forestOptions)
	if opts.Formula == "" {
		return nil, nil, c.optErr("options.formula: required, e.g. \"final_success ~ hint_level + scale(gold_lines_changed)\"")
	}
	family, err := study.CheckFamily(opts.Family)
	if err != nil {
		return nil, nil, c.optErr("%v", err)
	}
	opts.Family = family
	res, err := fitGLM(c, opts.Formula, opts.Family, opts.Cluster, RunsTable(c.ds))
	if err != nil {
		return nil, nil, err
	}
	var coefs []figures.Coef
	for _, m := range res.Coefficients {
		if m.Term == "(Intercept)" {
			continue
		}
		m = m.Finite()
		coefs = append(coefs, figures.Coef{Term: c.name(m.Term), Estimate: m.Estimate, Lo: m.CILow, Hi: m.CIHigh})
	}
	xLabel := "Coefficient (log-odds)"
	if opts.Family == "gaussian" {
		xLabel = "Coefficient"
	}
	p, err := figures.ForestFigure(c.title(res.Formula), xLabel, coefs)
	return p, map[string]any{"formula": opts.Formula, "family": opts.Family, "cluster": opts.Cluster, "n": res.N, "se_type": res.SEType}, err
}

type goldLinesOptions struct {
	Outcome string `yaml:"outcome"` // final_success (default) or exec_success
	By      string `yaml:"by"`      // one curve per value of this runs column (e.g. model); default one curve
}

// drawGoldLines draws each task's success rate (analysis.SuccessRates, the
// mean over its runs) against its gold lines changed, with the binomial
// GLM outcome ~ gold_lines_changed fitted on the runs by rdeval regress
// (R: glm(final_success ~ gold_lines_changed, family = binomial)), one per
// value of by.
func drawGoldLines(c *drawCtx, o any) (*plot.Plot, map[string]any, error) {
	opts := o.(*goldLinesOptions)
	if opts.Outcome == "" {
		opts.Outcome = "final_success"
	}
	if opts.Outcome != "final_success" && opts.Outcome != "exec_success" {
		return nil, nil, c.optErr("outcome %q: want final_success or exec_success", opts.Outcome)
	}
	if opts.By != "" && !ingest.IsRunColumn(opts.By) {
		return nil, nil, c.optErr("by %q: not a runs column", opts.By)
	}
	ds := rexbenchRuns(c.ds)
	lines := map[string]float64{}
	for _, t := range ds.Tasks {
		if t.Benchmark == "rexbench" && t.GoldLinesChanged.Valid {
			lines[t.TaskID] = float64(t.GoldLinesChanged.V)
		}
	}
	groups := map[string][]int{}
	for i := range ds.Runs {
		g := ""
		if opts.By != "" {
			g = runValue(&ds.Runs[i], opts.By)
		}
		groups[g] = append(groups[g], i)
	}
	var curves []figures.LogisticCurve
	for _, g := range sortedKeys(groups) {
		sub := *ds
		sub.Runs = nil
		var out []analysis.OutcomeRun
		for _, i := range groups[g] {
			r := ds.Runs[i]
			ok := r.FinalSuccess
			if opts.Outcome == "exec_success" {
				ok = r.ExecSuccess
			}
			if _, has := lines[r.TaskID]; !has || !ok.Valid {
				continue
			}
			sub.Runs = append(sub.Runs, r)
			out = append(out, analysis.OutcomeRun{Task: r.TaskID, Final: ok.V, Exec: ok.V, Recall: math.NaN()})
		}
		label := g
		if label == "" {
			label = "all runs"
		}
		if len(out) == 0 {
			c.warnf("%s: no run with %s on a task with gold_lines_changed", label, opts.Outcome)
			continue
		}
		rates, _, err := analysis.SuccessRates(out, 0, 0, 0.95)
		if err != nil {
			return nil, nil, err
		}
		cur := figures.LogisticCurve{Label: label, XMin: math.Inf(1), XMax: math.Inf(-1)}
		for _, tr := range rates {
			x := lines[tr.Task]
			cur.Points = append(cur.Points, plotter.XY{X: x, Y: tr.Final})
			cur.XMin, cur.XMax = math.Min(cur.XMin, x), math.Max(cur.XMax, x)
		}
		res, err := fitGLM(c, opts.Outcome+" ~ gold_lines_changed", "binomial", "", RunsTable(&sub))
		if err != nil {
			c.warnf("%s: %v", label, err)
			cur.Intercept, cur.Slope = math.NaN(), math.NaN()
		} else {
			for _, m := range res.Coefficients {
				switch m = m.Finite(); m.Term {
				case "(Intercept)":
					cur.Intercept = m.Estimate
				case "gold_lines_changed":
					cur.Slope = m.Estimate
				}
			}
		}
		if len(rates) < 5 {
			c.warnf("%s: only %d tasks", label, len(rates))
		}
		curves = append(curves, cur)
	}
	yLabel := "Final success rate"
	if opts.Outcome == "exec_success" {
		yLabel = "Execution success rate"
	}
	p, err := figures.LogisticFigure(c.title("Success by size of the gold patch"), "Gold lines changed", yLabel, curves, false)
	return p, map[string]any{"outcome": opts.Outcome, "by": opts.By, "model": opts.Outcome + " ~ gold_lines_changed (binomial GLM on runs)"}, err
}

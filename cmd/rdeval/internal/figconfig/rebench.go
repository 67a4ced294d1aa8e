package figconfig

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rdeval/rdeval/analysis"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/study"
	"github.com/rdeval/rdeval/figures"
	"github.com/rdeval/rdeval/ingest"
	"gonum.org/v1/plot"
)

type scoreAtKOptions struct {
	TimeLimit string `yaml:"time_limit"` // run length of the runs drawn, e.g. 2h (needed when the data has several)
	Ks        []int  `yaml:"ks"`         // default: powers of two up to the smallest task's run count
	// Humans is the agent whose runs (of any length) give the reference
	// lines instead of a curve (default "human"); HumanPercentiles are
	// the lines' percentiles (default 10, 30, 50, 70, 90; [] for none).
	Humans           string    `yaml:"humans"`
	HumanPercentiles []float64 `yaml:"human_percentiles"`
	// Partial: distinct (default) draws a k whose mean covers fewer tasks
	// than the agent's others as an open marker off the line; omit leaves
	// it out.
	Partial string `yaml:"partial"`
}

// scoreAtKRows runs rdeval scoreatk (percentile bootstrap, short tasks
// dropped, which it warns about) on ds.
func scoreAtKRows(c *drawCtx, ds *ingest.Dataset, by []string, ks []int) ([]study.ScoreAtKRow, error) {
	res, err := study.ScoreAtK(ds, study.ScoreAtKParams{By: by, Ks: ks, Boot: c.boot, Seed: c.seed, CI: c.ci})
	c.warn(res.Warnings)
	return res.Rows, err
}

// withTimeLimit keeps the runs whose time_limit_s is tl.
func withTimeLimit(ds *ingest.Dataset, tl string) *ingest.Dataset {
	cp := *ds
	cp.Runs = nil
	for i := range ds.Runs {
		if runValue(&ds.Runs[i], "time_limit_s") == tl {
			cp.Runs = append(cp.Runs, ds.Runs[i])
		}
	}
	return &cp
}

// timeLimits are the time_limit_s values of the runs ("" for none).
func timeLimits(ds *ingest.Dataset) map[string]bool {
	out := map[string]bool{}
	for i := range ds.Runs {
		out[runValue(&ds.Runs[i], "time_limit_s")] = true
	}
	return out
}

// matchSeconds reports whether a time_limit_s value equals sec.
func matchSeconds(v string, sec float64) bool {
	x, err := strconv.ParseFloat(v, 64)
	return err == nil && x == sec
}

// pickTimeLimit returns the time_limit_s value to draw: the option's, or
// the only one present.
func pickTimeLimit(c *drawCtx, opt string, present map[string]bool) (string, error) {
	if len(present) == 0 {
		return "", c.optErr("no agent runs to draw (after the where filters, human runs aside)")
	}
	if opt != "" {
		sec, err := parseDuration(opt)
		if err != nil {
			return "", c.optErr("time_limit %v", err)
		}
		for v := range present {
			if matchSeconds(v, sec) {
				return v, nil
			}
		}
		return "", c.optErr("time_limit %s: no runs of that length (present: %s)", opt, labels(present))
	}
	if len(present) == 1 {
		for v := range present {
			return v, nil
		}
	}
	return "", c.optErr("the runs have several lengths (%s): set options.time_limit", labels(present))
}

func labels(present map[string]bool) string {
	var out []string
	for _, v := range sortedBySeconds(present) {
		out = append(out, DurationLabel(v))
	}
	return strings.Join(out, ", ")
}

// drawScoreAtK draws score@k per agent at one run length and, when the
// data has human runs, METR's "Human 8h performance" lines: the mean over
// tasks of each task's p-th percentile of human scores
// (analysis.MeanOfPercentiles; eval-analysis-public src/plot/score_at_k.py).
func drawScoreAtK(c *drawCtx, o any) (*plot.Plot, map[string]any, error) {
	opts := o.(*scoreAtKOptions)
	if opts.Humans == "" {
		opts.Humans = "human"
	}
	if opts.HumanPercentiles == nil {
		opts.HumanPercentiles = []float64{10, 30, 50, 70, 90}
	}
	for _, q := range opts.HumanPercentiles {
		if !(q >= 0 && q <= 100) {
			return nil, nil, c.optErr("human_percentiles %v: want percentiles between 0 and 100", q)
		}
	}
	agents := *c.ds
	agents.Runs = nil
	for _, r := range c.ds.Runs {
		if r.Agent != opts.Humans {
			agents.Runs = append(agents.Runs, r)
		}
	}
	humans := study.Tasks(c.ds, study.Only(func(r *ingest.Run) bool { return r.Agent == opts.Humans }, study.Score))
	partial, err := figures.ParsePartial(opts.Partial)
	if err != nil {
		return nil, nil, c.optErr("%v", err)
	}
	tl, err := pickTimeLimit(c, opts.TimeLimit, timeLimits(&agents))
	if err != nil {
		return nil, nil, err
	}
	by := []string{"agent"}
	rows, err := scoreAtKRows(c, withTimeLimit(&agents, tl), by, opts.Ks)
	if err != nil {
		return nil, nil, err
	}
	byAgent := map[string][]analysis.ScoreAtKPoint{}
	for _, r := range rows {
		byAgent[r.Group["agent"]] = append(byAgent[r.Group["agent"]], analysis.ScoreAtKPoint{K: r.K, NTasks: r.NTasks, Estimate: r.Estimate, CILow: r.CILow, CIHigh: r.CIHigh})
	}
	var g []figures.ScoreAtKGroup
	for _, a := range sortedKeys(byAgent) {
		g = append(g, figures.ScoreAtKGroup{Label: c.name(a), Points: byAgent[a], Style: c.style(a)})
	}
	p, err := figures.ScoreAtKFigure(c.title("score@k, "+DurationLabel(tl)+" runs"), g, figures.LineOptions{Partial: partial})
	if err != nil {
		return nil, nil, err
	}
	params := map[string]any{"time_limit_s": tl, "ks": opts.Ks, "by": by, "interval": "percentile", "short_tasks": "drop", "partial": partialName(partial)}
	if len(humans) > 0 && len(opts.HumanPercentiles) > 0 {
		vals := analysis.MeanOfPercentiles(humans, opts.HumanPercentiles)
		var refs []figures.RefLine
		for i, q := range opts.HumanPercentiles {
			refs = append(refs, figures.RefLine{Label: c.name(opts.Humans) + " p" + strconv.FormatFloat(q, 'f', -1, 64), Y: vals[i]})
		}
		figures.AddRefLines(p, refs)
		params["humans"], params["human_percentiles"], params["human_tasks"] = opts.Humans, opts.HumanPercentiles, len(humans)
		if len(humans) < minHumanTasks {
			c.warnf("human reference lines from only %d tasks", len(humans))
		}
	}
	return p, params, nil
}

// minHumanTasks: fewer tasks with human runs than this gives a warning.
const minHumanTasks = 5

type allocationOptions struct {
	Budgets     []string `yaml:"budgets"`      // default 30m … 32h
	HumanLength string   `yaml:"human_length"` // run length of human runs without a time limit (default 8h)
	Truncate    string   `yaml:"truncate"`     // humans (default), all or none: see rdeval allocation --truncate
	// Partial: distinct (default) draws a budget where no allocation
	// covers the agent's full task set (so no best point) as an open
	// marker off the line; omit leaves it out.
	Partial string `yaml:"partial"`
}

func partialName(p figures.Partial) string {
	if p == figures.PartialOmit {
		return "omit"
	}
	return "distinct"
}

func (o *allocationOptions) defaults(c *drawCtx) (time.Duration, error) {
	if len(o.Budgets) == 0 {
		o.Budgets = []string{"30m", "1h", "2h", "4h", "8h", "16h", "32h"}
	}
	if o.Truncate == "" {
		o.Truncate = "humans"
	}
	if o.Truncate != "humans" && o.Truncate != "all" && o.Truncate != "none" {
		return 0, c.optErr("truncate %q: want humans, all or none", o.Truncate)
	}
	if o.HumanLength == "" {
		o.HumanLength = "8h"
	}
	d, err := time.ParseDuration(o.HumanLength)
	if err != nil || d <= 0 {
		return 0, c.optErr("human_length %q: want a duration such as 8h", o.HumanLength)
	}
	return d, nil
}

func allocationRows(c *drawCtx, o *allocationOptions) ([]study.AllocationRow, error) {
	hl, err := o.defaults(c)
	if err != nil {
		return nil, err
	}
	budgets, _ := cmdutil.ParseBudgets(o.Budgets)
	res, err := study.Allocation(c.ds, study.AllocationParams{Budgets: budgets, Boot: c.boot, Seed: c.seed, CI: c.ci,
		Select: "observed", Truncate: o.Truncate, HumanLength: hl})
	c.warn(res.Warnings)
	return res.Rows, err
}

func drawAllocation(c *drawCtx, o any) (*plot.Plot, map[string]any, error) {
	opts := o.(*allocationOptions)
	partial, err := figures.ParsePartial(opts.Partial)
	if err != nil {
		return nil, nil, c.optErr("%v", err)
	}
	rows, err := allocationRows(c, opts)
	if err != nil {
		return nil, nil, err
	}
	byAgent := map[string][]analysis.AllocationPoint{}
	for _, r := range rows {
		if r.Selection == "observed" {
			byAgent[r.Agent] = append(byAgent[r.Agent], analysis.AllocationPoint{BudgetS: r.BudgetS, RunLengthS: r.RunLengthS, Best: r.Best, FullTaskSet: r.FullTaskSet,
				ScoreAtKPoint: analysis.ScoreAtKPoint{K: r.K, NTasks: r.NTasks, Estimate: r.Estimate, CILow: r.CILow, CIHigh: r.CIHigh}})
		}
	}
	var g []figures.AllocationGroup
	for _, a := range sortedKeys(byAgent) {
		g = append(g, figures.AllocationGroup{Label: c.name(a), Points: byAgent[a], Style: c.style(a)})
	}
	p, err := figures.AllocationFigure(c.title("Score by time budget"), g, figures.LineOptions{Partial: partial})
	return p, map[string]any{"budgets": opts.Budgets, "human_length": opts.HumanLength, "truncate": opts.Truncate, "select": "observed", "partial": partialName(partial)}, err
}

type allocationBarsOptions struct {
	Budget      string `yaml:"budget"` // the total budget, e.g. 8h (required)
	HumanLength string `yaml:"human_length"`
	Truncate    string `yaml:"truncate"`
	// Partial: distinct (default) draws a cell whose mean covers fewer of
	// the agent's tasks as a dashed open bar; omit leaves it out.
	Partial string `yaml:"partial"`
}

func drawAllocationBars(c *drawCtx, o any) (*plot.Plot, map[string]any, error) {
	opts := o.(*allocationBarsOptions)
	if opts.Budget == "" {
		return nil, nil, c.optErr("options.budget: required (the total time budget, e.g. 8h)")
	}
	budget, err := parseDuration(opts.Budget)
	if err != nil {
		return nil, nil, c.optErr("budget %v", err)
	}
	partial, err := figures.ParsePartial(opts.Partial)
	if err != nil {
		return nil, nil, c.optErr("%v", err)
	}
	ao := &allocationOptions{Budgets: []string{opts.Budget}, HumanLength: opts.HumanLength, Truncate: opts.Truncate}
	rows, err := allocationRows(c, ao)
	if err != nil {
		return nil, nil, err
	}
	var bars []figures.Bar
	for _, r := range rows {
		if r.Selection != "observed" || r.BudgetS != budget {
			continue
		}
		level := DurationLabel(strconv.FormatFloat(r.RunLengthS, 'f', -1, 64)) + " runs"
		b := figures.Bar{Group: c.name(r.Agent), Level: level, Value: r.Estimate, Lo: r.CILow, Hi: r.CIHigh, Partial: !r.FullTaskSet}
		if b.Partial && partial == figures.PartialOmit {
			b.Value, b.Lo, b.Hi = math.NaN(), math.NaN(), math.NaN()
		}
		bars = append(bars, b)
	}
	if len(bars) == 0 {
		c.warnf("no allocation of the %s budget: no agent has runs whose length divides it", opts.Budget)
	}
	p, err := figures.GroupedBars(c.title("score@k by allocation, "+DurationLabel(strconv.FormatFloat(budget, 'f', -1, 64))+" budget"), "Average normalized score", bars)
	return p, map[string]any{"budget": opts.Budget, "human_length": ao.HumanLength, "truncate": ao.Truncate, "select": "observed", "partial": partialName(partial)}, err
}

type perTaskOptions struct {
	K int `yaml:"k"` // k of score@k per task (default 1: the mean score)
	// KByAgent sets k per agent, e.g. {human: 4} for RE-Bench Fig. 9's
	// human best-of-4 beside each agent's best allocation.
	KByAgent map[string]int `yaml:"k_by_agent"`
}

func drawPerTask(c *drawCtx, o any) (*plot.Plot, map[string]any, error) {
	opts := o.(*perTaskOptions)
	if opts.K == 0 {
		opts.K = 1
	}
	if opts.K < 0 {
		return nil, nil, c.optErr("k %d: want 1 or more", opts.K)
	}
	for a, k := range opts.KByAgent {
		if k < 1 {
			return nil, nil, c.optErr("k_by_agent: %s: k %d: want 1 or more", a, k)
		}
	}
	// One score@k run per distinct k, on the agents that use it.
	kOf := func(agent string) int {
		if k, ok := opts.KByAgent[agent]; ok {
			return k
		}
		return opts.K
	}
	byK := map[int]*ingest.Dataset{}
	var kOrder []int
	for i := range c.ds.Runs {
		k := kOf(c.ds.Runs[i].Agent)
		if byK[k] == nil {
			cp := *c.ds
			cp.Runs = nil
			byK[k] = &cp
			kOrder = append(kOrder, k)
		}
		byK[k].Runs = append(byK[k].Runs, c.ds.Runs[i])
	}
	sort.Ints(kOrder)
	by := []string{"agent", "task_id"}
	var rows []study.ScoreAtKRow
	for _, k := range kOrder {
		r, err := scoreAtKRows(c, byK[k], by, []int{k})
		if err != nil {
			return nil, nil, err
		}
		rows = append(rows, r...)
	}
	// Tasks along x by name, agents in name order within each (a task an
	// agent did not run gets a missing bar, so colours keep their places).
	cells := map[string]map[string]study.ScoreAtKRow{}
	agents := map[string]bool{}
	for _, r := range rows {
		if r.NTasks == 0 {
			continue
		}
		t := r.Group["task_id"]
		if cells[t] == nil {
			cells[t] = map[string]study.ScoreAtKRow{}
		}
		cells[t][r.Group["agent"]] = r
		agents[r.Group["agent"]] = true
	}
	var bars []figures.Bar
	for _, t := range sortedKeys(cells) {
		for _, a := range sortedKeys(agents) {
			b := figures.Bar{Group: c.name(t), Level: c.name(a), Value: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Style: c.style(a)}
			if r, ok := cells[t][a]; ok {
				b.Value, b.Lo, b.Hi = r.Estimate, r.CILow, r.CIHigh
			}
			bars = append(bars, b)
		}
	}
	title := "score@" + strconv.Itoa(opts.K) + " per task"
	if len(opts.KByAgent) > 0 {
		title = "score@k per task"
		i := 0
		for range sortedKeys(cells) {
			for _, a := range sortedKeys(agents) {
				bars[i].Level = fmt.Sprintf("%s (k = %d)", bars[i].Level, kOf(a))
				i++
			}
		}
	}
	p, err := figures.GroupedBars(c.title(title), "Average normalized score", bars)
	if err == nil {
		figures.RotateXLabels(p)
	}
	return p, map[string]any{"k": opts.K, "k_by_agent": opts.KByAgent, "by": by, "interval": "percentile"}, err
}

func drawCurves(c *drawCtx, o any) (*plot.Plot, map[string]any, error) {
	opts := o.(*curvesOptions)
	if len(opts.Grid) == 0 {
		opts.Grid = []string{"1m", "2m", "5m", "10m", "15m", "30m", "1h", "2h", "4h", "8h"}
	}
	if opts.HumanLength == "" {
		opts.HumanLength = "8h"
	}
	hl, err := time.ParseDuration(opts.HumanLength)
	if err != nil || hl <= 0 {
		return nil, nil, c.optErr("human_length %q: want a duration such as 8h", opts.HumanLength)
	}
	curves := map[string]map[string][]analysis.CurvePoint{} // time limit (seconds as text, "" none) → agent → points
	grid, _ := cmdutil.ParseGrid(opts.Grid)
	res, err := study.Curves(c.ds, study.CurvesParams{Grid: grid, Boot: c.boot, Seed: c.seed, CI: c.ci, HumanLength: hl})
	for _, cv := range res.Curves {
		key := ""
		if cv.TimeLimitS != nil {
			key = strconv.FormatInt(*cv.TimeLimitS, 10)
		}
		if curves[key] == nil {
			curves[key] = map[string][]analysis.CurvePoint{}
		}
		curves[key][cv.Agent] = cv.Points
	}
	if err != nil {
		return nil, nil, err
	}
	present := map[string]bool{}
	for k := range curves {
		present[k] = true
	}
	var tl string
	if opts.TimeLimit != "" || len(present) == 1 {
		if tl, err = pickTimeLimit(c, opts.TimeLimit, present); err != nil {
			return nil, nil, err
		}
	} else if keys := sortedBySeconds(present); len(keys) > 0 {
		tl = keys[len(keys)-1] // the longest runs, as RE-Bench Figs. 4–5 (8 h)
		if tl == "" && len(keys) > 1 {
			tl = keys[len(keys)-2]
		}
	}
	var g []figures.CurveGroup
	for _, a := range sortedKeys(curves[tl]) {
		g = append(g, figures.CurveGroup{Label: c.name(a), Points: curves[tl][a], Style: c.style(a)})
	}
	p, err := figures.CurvesFigure(c.title("Score over time, "+DurationLabel(tl)+" runs"), g)
	return p, map[string]any{"grid": opts.Grid, "time_limit_s": tl, "human_length": opts.HumanLength, "interp": "log-linear"}, err
}

type curvesOptions struct {
	Grid        []string `yaml:"grid"`         // elapsed times (default 1m … 8h)
	TimeLimit   string   `yaml:"time_limit"`   // run length drawn (default the longest)
	HumanLength string   `yaml:"human_length"` // default 8h
}

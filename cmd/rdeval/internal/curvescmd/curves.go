// Package curvescmd implements `rdeval curves`.
package curvescmd

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rdeval/rdeval/analysis"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/rdeval/rdeval/ingest"
	"github.com/spf13/cobra"
)

// Options are the parsed flags of `rdeval curves`.
type Options struct {
	IO          *iostreams.IO
	Inputs      []string
	Input       cmdutil.InputFlags
	Format      string
	Grid        []string
	Interp      string
	Boot        int
	Seed        uint64
	CI          float64
	Rates       bool
	HumanLength time.Duration
	// OnCurve, if set, receives each group's curve (rdeval report draws figures from them).
	OnCurve func(agent string, timeLimitS *int64, pts []analysis.CurvePoint)
}

// NewCmd builds the cobra command; runF replaces Run in tests.
func NewCmd(io *iostreams.IO, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: io}
	cmd := &cobra.Command{
		Use:   "curves INPUT...",
		Short: "Score over time from score logs (RE-Bench Figs. 4–5), and scoring calls per hour",
		Long: `From score logs: each run's best-so-far normalized score (running maximum for
max/min tasks, latest score for small_scaling_law) as a function of elapsed time
(pauses excluded), read at each grid time by log-linear interpolation between
events (RE-Bench §4.1; --interp step for the raw step function); a run counts as
the starting solution (0) before its first valid score and is undefined after its
time limit. Runs with no valid score at all (a null final score) are left out. The curve is the mean over each task's runs, then over tasks, per
agent × time limit, with a bootstrap interval over runs (tasks fixed).

--rates prints scoring calls per hour per agent instead (RE-Bench reports 36.8
for AIDE, 25.3 for Modular and 3.4 for humans): all score-log entries divided by
the runs' total length.`,
		Example: `  rdeval curves --demo --grid 30m,2h,8h                                  # the embedded demo study
  rdeval curves study/ --grid 5m,15m,30m,1h,2h,4h,8h
  rdeval curves study/ --where agent=human --format json
  rdeval curves study/ --rates`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Inputs = args
			if err := cmdutil.CheckFormat(opts.Format, cmdutil.FormatTable, cmdutil.FormatJSON, cmdutil.FormatCSV); err != nil {
				return err
			}
			if _, err := parseGrid(opts.Grid); err != nil {
				return err
			}
			if opts.Interp != "log-linear" && opts.Interp != "step" {
				return cmdutil.Usagef("--interp %q: want log-linear or step", opts.Interp)
			}
			if opts.Boot < 0 {
				return cmdutil.Usagef("--boot %d: want 0 or more", opts.Boot)
			}
			if !(opts.CI > 0 && opts.CI < 1) {
				return cmdutil.Usagef("--ci %v: want a level between 0 and 1", opts.CI)
			}
			if runF != nil {
				return runF(opts)
			}
			return Run(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Format, "format", cmdutil.FormatTable, "output: table, json or csv")
	fl.StringSliceVar(&opts.Grid, "grid", []string{"1m", "2m", "5m", "10m", "15m", "30m", "1h", "2h", "4h", "8h"}, "elapsed times to report")
	fl.StringVar(&opts.Interp, "interp", "log-linear", "between score-log events: log-linear or step")
	fl.IntVar(&opts.Boot, "boot", 2000, "bootstrap replicates (0: no interval)")
	fl.Uint64Var(&opts.Seed, "seed", 1, "bootstrap seed")
	fl.Float64Var(&opts.CI, "ci", 0.95, "confidence level")
	fl.BoolVar(&opts.Rates, "rates", false, "print scoring calls per hour per agent instead of curves")
	fl.DurationVar(&opts.HumanLength, "human-run-length", 8*time.Hour, "length of human runs whose time limit is unknown")
	cmdutil.AddInputFlags(cmd, &opts.Input, true)
	return cmd
}

func parseGrid(s []string) ([]float64, error) {
	var out []float64
	for _, g := range s {
		d, err := time.ParseDuration(strings.TrimSpace(g))
		if err != nil || d <= 0 {
			return nil, cmdutil.Usagef("--grid %q: want durations like 5m, 1h", g)
		}
		out = append(out, d.Seconds())
	}
	sort.Float64s(out)
	return out, nil
}

// groupKey is agent × time limit.
type groupKey struct {
	agent string
	tl    int64
	hasTL bool
}

// Curves builds the run curves of every run with a score log, grouped by
// agent × time limit and task. It returns the groups, the number of runs
// skipped (no log, unknown task scale) and per-agent call statistics.
func Curves(ds *ingest.Dataset, humanLength float64) (map[groupKey]map[string][]analysis.RunCurve, int, map[string][3]float64) {
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
	groups := map[groupKey]map[string][]analysis.RunCurve{}
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
		groups[k][r.TaskID] = append(groups[k][r.TaskID], c)
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

// Run prints the curves (or the rates).
func Run(opts *Options) error {
	ds, err := opts.Input.LoadForCommand(opts.IO, opts.Inputs)
	if err != nil {
		return err
	}
	return Compute(opts, ds)
}

// Compute runs the command on a loaded dataset and writes its output to
// opts.IO.Out (rdeval report calls it on the demo study).
func Compute(opts *Options, ds *ingest.Dataset) error {
	grid, _ := parseGrid(opts.Grid)
	groups, skipped, rates := Curves(ds, opts.HumanLength.Seconds())
	if len(groups) == 0 {
		return &cmdutil.BadInputError{Err: fmt.Errorf("no run has a score log with elapsed times and a task with y_start and y_ref: curves need score logs (ingest them with the runs)")}
	}
	if skipped > 0 {
		opts.IO.Notef("%d runs without a usable score log (or without the task's y_start/y_ref) are left out", skipped)
	}
	if opts.Rates {
		return writeRates(opts, rates)
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
	if opts.Interp == "step" {
		how = analysis.Step
	}
	t := cmdutil.Table{Header: []string{"agent", "time_limit_s", "t_s", "n_tasks", "n_runs", "estimate", "ci_low", "ci_high"}}
	var js []map[string]any
	for _, k := range keys {
		names := make([]string, 0, len(groups[k]))
		for n := range groups[k] {
			names = append(names, n)
		}
		sort.Strings(names)
		var tc []analysis.TaskCurves
		for _, n := range names {
			tc = append(tc, analysis.TaskCurves{Task: n, Runs: groups[k][n]})
		}
		pts, err := analysis.ScoreOverTime(tc, grid, how, analysis.ScoreAtKOptions{Boot: opts.Boot, Seed: opts.Seed, Level: opts.CI})
		if err != nil {
			return err
		}
		tl, tlText := any(nil), ""
		var tlp *int64
		if k.hasTL {
			tl, tlText = k.tl, strconv.FormatInt(k.tl, 10)
			v := k.tl
			tlp = &v
		}
		if opts.OnCurve != nil {
			opts.OnCurve(k.agent, tlp, pts)
		}
		for _, p := range pts {
			if p.NTasks == 0 {
				continue // after every run's time limit
			}
			t.Rows = append(t.Rows, []string{k.agent, tlText, strconv.FormatFloat(p.T, 'f', -1, 64), strconv.Itoa(p.NTasks), strconv.Itoa(p.NRuns), cmdutil.Fixed4(p.Estimate), cmdutil.Fixed4(p.CILow), cmdutil.Fixed4(p.CIHigh)})
			js = append(js, map[string]any{"agent": k.agent, "time_limit_s": tl, "t_s": p.T, "n_tasks": p.NTasks, "n_runs": p.NRuns,
				"estimate": cmdutil.JSONNum(p.Estimate), "ci_low": cmdutil.JSONNum(p.CILow), "ci_high": cmdutil.JSONNum(p.CIHigh)})
		}
	}
	return cmdutil.Emit(opts.IO.Out, opts.Format, &t, js)
}

func writeRates(opts *Options, rates map[string][3]float64) error {
	agents := make([]string, 0, len(rates))
	for a := range rates {
		agents = append(agents, a)
	}
	sort.Strings(agents)
	t := cmdutil.Table{Header: []string{"agent", "runs", "calls", "hours", "calls_per_hour"}}
	var js []map[string]any
	for _, a := range agents {
		st := rates[a]
		per := math.NaN()
		if st[2] > 0 {
			per = st[1] / st[2]
		}
		t.Rows = append(t.Rows, []string{a, strconv.Itoa(int(st[0])), strconv.Itoa(int(st[1])), cmdutil.Fixed4(st[2]), cmdutil.Fixed4(per)})
		js = append(js, map[string]any{"agent": a, "runs": int(st[0]), "calls": int(st[1]), "hours": st[2], "calls_per_hour": cmdutil.JSONNum(per)})
	}
	return cmdutil.Emit(opts.IO.Out, opts.Format, &t, js)
}

// Package curvescmd implements `rdeval curves`.
package curvescmd

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/study"
	"github.com/spf13/cobra"
)

// Options are the parsed flags of `rdeval curves`.
type Options struct {
	IO     *iostreams.IO
	Inputs []string
	Input  cmdutil.InputFlags
	Format string
	Grid   []string
	Interp string
	cmdutil.Bootstrap
	Rates       bool
	HumanLength time.Duration
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
			if err := cmdutil.CheckFormat(opts.Format, cmdutil.FormatTable, cmdutil.FormatJSON, cmdutil.FormatCSV, cmdutil.FormatLaTeX); err != nil {
				return err
			}
			if _, err := cmdutil.ParseGrid(opts.Grid); err != nil {
				return err
			}
			if err := opts.Bootstrap.Check(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return run(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Format, "format", cmdutil.FormatTable, "output: table, json, csv or latex")
	fl.StringSliceVar(&opts.Grid, "grid", []string{"1m", "2m", "5m", "10m", "15m", "30m", "1h", "2h", "4h", "8h"}, "elapsed times to report")
	cmdutil.EnumVar(cmd, &opts.Interp, "interp", "log-linear", "between score-log events: log-linear or step", "log-linear", "step")
	cmdutil.AddBootstrapFlags(cmd, &opts.Bootstrap, 2000, 1, true)
	fl.BoolVar(&opts.Rates, "rates", false, "print scoring calls per hour per agent instead of curves")
	fl.DurationVar(&opts.HumanLength, "human-run-length", 8*time.Hour, "length of human runs whose time limit is unknown")
	cmdutil.AddInputFlags(cmd, &opts.Input, true)
	return cmd
}

// run prints the curves (or the rates).
func run(opts *Options) error {
	ds, err := opts.Input.LoadForCommand(opts.IO, opts.Inputs)
	if err != nil {
		return err
	}
	grid, _ := cmdutil.ParseGrid(opts.Grid)
	res, err := study.Curves(ds, study.CurvesParams{Grid: grid, Step: opts.Interp == "step", Boot: opts.Boot, Seed: opts.Seed, CI: opts.CI,
		HumanLength: opts.HumanLength, RatesOnly: opts.Rates})
	var noCurve *cmdutil.BadInputError // no run has a curve: the error says it all
	if res.Skipped > 0 && !errors.As(err, &noCurve) {
		opts.IO.Notef("%d runs without a usable score log (or without the task's y_start/y_ref) are left out", res.Skipped)
	}
	if err != nil {
		return err
	}
	if opts.Rates {
		return writeRates(opts, res.Rates)
	}
	var js []map[string]any
	for _, c := range res.Curves {
		var tl any
		if c.TimeLimitS != nil {
			tl = *c.TimeLimitS
		}
		for _, p := range c.Points {
			if p.NTasks == 0 {
				continue // after every run's time limit
			}
			js = append(js, map[string]any{"agent": c.Agent, "time_limit_s": tl, "t_s": p.T, "n_tasks": p.NTasks, "n_runs": p.NRuns,
				"estimate": cmdutil.JSONNum(p.Estimate), "ci_low": cmdutil.JSONNum(p.CILow), "ci_high": cmdutil.JSONNum(p.CIHigh)})
		}
	}
	t := res.Table().Cite(opts.IO, fmt.Sprintf("Best score so far over time from the score logs (%s interpolation): the mean over tasks at each time t, with %g%% bootstrap intervals.", opts.Interp, 100*opts.CI)).Seeded(opts.Seed)
	return cmdutil.Emit(opts.IO.Out, opts.Format, t, js)
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
	t.Cite(opts.IO, "Scoring calls per hour of each agent's runs, from their score logs.")
	return cmdutil.Emit(opts.IO.Out, opts.Format, &t, js)
}

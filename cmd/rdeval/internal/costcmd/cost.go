// Package costcmd implements `rdeval cost`.
package costcmd

import (
	"fmt"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/figconfig"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/study"
	"github.com/rdeval/rdeval/figures"
	"github.com/rdeval/rdeval/ingest"
	"github.com/spf13/cobra"
)

// Options are the parsed flags of `rdeval cost`.
type Options struct {
	IO     *iostreams.IO
	Inputs []string
	Input  cmdutil.InputFlags
	Format string
	By     []string
	cmdutil.Bootstrap
	BootUnit   string // runs or tasks
	FrontierOn string // score, success or "" (score when there are scores)
	NoHumans   bool
	Figure     string // --figure: cost against score with the frontier (.svg, .png or .pdf)
}

// NewCmd builds the cobra command; runF replaces Run in tests.
func NewCmd(io *iostreams.IO, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: io}
	cmd := &cobra.Command{
		Use:   "cost INPUT...",
		Short: "Cost per run, per success and per unit of score per agent and time limit; the cost–score Pareto frontier",
		Long: `What each group (default: agent × time limit) costs, from the runs' cost_usd
(METR's dollar_equivalent) and tokens (total_tokens), as RE-Bench (Fig. 8) and
HAL-style leaderboards compare agents. Each mean is over tasks of the task's
mean over its runs, so every task weighs the same (as score@1):

  mean_cost        = (1/T) Σ_t mean_i cost_ti         (US dollars per run)
  mean_tokens      = the same over tokens
  mean_score       = the same over normalized scores
  success_rate     = the same over success (final_success, else score_binarized)
  cost_per_success = mean_cost / success_rate
  cost_per_score   = mean_cost / mean_score            (per unit of normalized score)

With the same number of runs in every task, cost_per_success is total cost /
successes. A group without a success has cost_per_success +Inf (a warning).
Intervals: percentile bootstrap (--boot replicates, --seed), resampling each
task's runs with replacement, tasks fixed (--boot-unit runs; tasks resamples
tasks with their runs instead).

pareto is true for the groups on the cost–score frontier: no other group costs
as little or less and scores as much or more, one of them strictly. Equal
groups are all on it or all off; a group without a score is on none.
--frontier-on success uses the success rate instead of the score (the default
when no run has a score).

Runs without cost_usd are left out and counted. Human runs (kind human) are a
group like the agents, at the cost their runs record (their pay: the demo's
humans cost $1840 per 8-hour run, RE-Bench paid about $1,855); they have no
tokens; --no-humans leaves them out. --figure draws each group at its mean cost
and score with both intervals and the frontier as a step line.

--format table prints each statistic as "estimate [low, high]"; csv and json
have the interval in columns of their own (<stat>_ci_low, <stat>_ci_high); json
writes +Inf and NaN as null; latex is a booktabs table for the paper.`,
		Example: `  rdeval cost --demo --where benchmark=re-bench --boot 2000 --seed 1   # the embedded demo study
  rdeval cost all_runs.jsonl --where benchmark=re-bench --figure cost.svg
  rdeval cost study/ --by agent --no-humans --format csv
  rdeval cost study/ --boot-unit tasks --format json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Inputs = args
			if err := cmdutil.CheckFormat(opts.Format, cmdutil.FormatTable, cmdutil.FormatJSON, cmdutil.FormatCSV, cmdutil.FormatLaTeX); err != nil {
				return err
			}
			if err := opts.Bootstrap.Check(); err != nil {
				return err
			}
			if err := cmdutil.CheckRunColumns("--by", opts.By); err != nil {
				return err
			}
			if opts.Figure != "" {
				if err := cmdutil.CheckFigurePath("--figure", opts.Figure); err != nil {
					return err
				}
			}
			if runF != nil {
				return runF(opts)
			}
			return run(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Format, "format", cmdutil.FormatTable, "output: table, json, csv or latex")
	fl.StringSliceVar(&opts.By, "by", []string{"agent", "time_limit_s"}, "group runs by these columns")
	cmdutil.AddBootstrapFlags(cmd, &opts.Bootstrap, 10000, 1, true)
	cmdutil.EnumVar(cmd, &opts.BootUnit, "boot-unit", "runs", "what the bootstrap resamples: runs (within tasks, tasks fixed) or tasks", "runs", "tasks")
	cmdutil.EnumVar(cmd, &opts.FrontierOn, "frontier-on", "", "score axis of the Pareto frontier: score or success (default: score when runs have scores)", "score", "success")
	fl.BoolVar(&opts.NoHumans, "no-humans", false, "leave out the runs of kind human")
	fl.StringVar(&opts.Figure, "figure", "", "also draw cost against score with the Pareto frontier to this .svg, .png or .pdf file")
	cmdutil.AddInputFlags(cmd, &opts.Input, true)
	return cmd
}

// run computes and prints the costs.
func run(opts *Options) error {
	ds, err := opts.Input.LoadForCommand(opts.IO, opts.Inputs)
	if err != nil {
		return err
	}
	return compute(opts, ds)
}

// compute runs the command on a loaded dataset.
func compute(opts *Options, ds *ingest.Dataset) error {
	res, err := study.Cost(ds, study.CostParams{By: opts.By, Boot: opts.Boot, Seed: opts.Seed, CI: opts.CI, ResampleTasks: opts.BootUnit == "tasks", FrontierOn: opts.FrontierOn, NoHumans: opts.NoHumans})
	opts.IO.Warn(res.Warnings...)
	if err != nil {
		return err
	}
	t := res.Table()
	switch opts.Format {
	case cmdutil.FormatTable:
		t = res.TextTable()
	case cmdutil.FormatLaTeX:
		t = t.Cite(opts.IO, fmt.Sprintf("Cost per group: mean over tasks of each task's mean cost per run (USD), tokens and score, cost per success and per unit of score, with %g%% percentile bootstrap intervals; on the Pareto frontier: not dominated in (mean cost, mean %s).", 100*opts.CI, res.FrontierOn)).Seeded(opts.Seed)
	}
	if err := cmdutil.Emit(opts.IO.Out, opts.Format, t, res.JSON()); err != nil {
		return err
	}
	if opts.Figure == "" {
		return nil
	}
	p, err := figconfig.CostPlot("", &res, figconfig.AgentStyles(ds, nil), figures.DisplayName)
	if err != nil {
		return err
	}
	if err := figures.SaveFile(p, figures.TwoColumn, figures.Height(figures.OneColumn)*1.2, opts.Figure); err != nil {
		return err
	}
	opts.IO.Infof("wrote %s", opts.Figure)
	return nil
}

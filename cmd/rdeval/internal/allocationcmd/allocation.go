// Package allocationcmd implements `rdeval allocation`.
package allocationcmd

import (
	"fmt"
	"time"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/study"
	"github.com/spf13/cobra"
)

// Options are the parsed flags of `rdeval allocation`.
type Options struct {
	IO      *iostreams.IO
	Inputs  []string
	Input   cmdutil.InputFlags
	Format  string
	Budgets []string
	cmdutil.Bootstrap
	Select      string
	HumanLength time.Duration
	Truncate    string
}

// NewCmd builds the cobra command; runF replaces Run in tests.
func NewCmd(io *iostreams.IO, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: io}
	cmd := &cobra.Command{
		Use:   "allocation INPUT...",
		Short: "Score by total time budget for every split into runs of one length (RE-Bench Fig. 2)",
		Long: `For each agent, each total budget T and each observed run length h that divides
T, compute score@k with k = T/h (mean over tasks, bootstrap CI) and mark the best
allocation per budget, as RE-Bench Fig. 2 plots. Tasks with fewer than k runs at
that length are left out of the mean (n_tasks says how many remain); such a
cell has full_task_set = false and is never best, since its mean is over other
tasks. A budget where no allocation covers all of the agent's tasks has no best
row, with a warning.

Picking the best observed allocation overstates it (winner's curse). With
--select holdout, each of --boot random splits chooses the allocation on one half
of every task's runs and scores it on the other half; those rows report the mean
held-out value and its percentile band, with selection "holdout".

Humans' run length is their time_limit_s, or --human-run-length when it is
unknown (METR writes 0 for humans). For budgets shorter than all of a group's
runs, --truncate humans (default) reads human runs at the budget from their score
logs (their score reached by then; 0 before their first valid score), as RE-Bench
does; those rows have truncated = true. Without score logs there are no such rows.`,
		Example: `  rdeval allocation --demo --budgets 2h,8h,32h                            # the embedded demo study
  rdeval allocation study/ --where benchmark=re-bench
  rdeval allocation study/ --budgets 2h,8h,32h --select holdout --format json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Inputs = args
			if err := cmdutil.CheckFormat(opts.Format, cmdutil.FormatTable, cmdutil.FormatJSON, cmdutil.FormatCSV, cmdutil.FormatLaTeX); err != nil {
				return err
			}
			if err := opts.Bootstrap.Check(); err != nil {
				return err
			}
			if opts.Select == "holdout" && opts.Boot == 0 {
				return cmdutil.Usagef("--boot 0: holdout needs at least 1 split")
			}
			if _, err := cmdutil.ParseBudgets(opts.Budgets); err != nil {
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
	fl.StringSliceVar(&opts.Budgets, "budgets", []string{"30m", "1h", "2h", "4h", "8h", "16h", "32h", "64h"}, "total time budgets")
	cmdutil.AddBootstrapFlags(cmd, &opts.Bootstrap, 10000, 1, true)
	fl.Lookup("boot").Usage = "bootstrap replicates (or holdout splits)"
	cmdutil.EnumVar(cmd, &opts.Select, "select", "observed", "observed: score every allocation; holdout: also the split-half value of choosing the best", "observed", "holdout")
	fl.DurationVar(&opts.HumanLength, "human-run-length", 8*time.Hour, "run length of human runs whose time limit is unknown")
	cmdutil.EnumVar(cmd, &opts.Truncate, "truncate", "humans", "budgets shorter than a group's runs: read these groups' score logs at the budget (humans, all, none)", "humans", "all", "none")
	cmdutil.AddInputFlags(cmd, &opts.Input, true)
	return cmd
}

// run computes and prints the allocation table.
func run(opts *Options) error {
	ds, err := opts.Input.LoadForCommand(opts.IO, opts.Inputs)
	if err != nil {
		return err
	}
	budgets, _ := cmdutil.ParseBudgets(opts.Budgets)
	res, err := study.Allocation(ds, study.AllocationParams{Budgets: budgets, Boot: opts.Boot, Seed: opts.Seed, CI: opts.CI,
		Select: opts.Select, HumanLength: opts.HumanLength, Truncate: opts.Truncate})
	opts.IO.Warn(res.Warnings...)
	if err != nil {
		return err
	}
	return write(opts, &res)
}

func write(opts *Options, res *study.AllocationResult) error {
	rows := res.Rows
	if opts.Format == cmdutil.FormatJSON {
		out := make([]map[string]any, len(rows))
		for i, r := range rows {
			var nt any = r.NTasks
			if r.NTasks < 0 {
				nt = nil
			}
			out[i] = map[string]any{"agent": r.Agent, "budget_s": r.BudgetS, "run_length_s": r.RunLengthS, "k": r.K,
				"n_tasks": nt, "estimate": cmdutil.JSONNum(r.Estimate), "ci_low": cmdutil.JSONNum(r.CILow), "ci_high": cmdutil.JSONNum(r.CIHigh),
				"best": r.Best, "full_task_set": r.FullTaskSet, "selection": r.Selection, "truncated": r.Truncated}
		}
		return cmdutil.WriteJSON(opts.IO.Out, out)
	}
	t := res.Table().Cite(opts.IO, fmt.Sprintf("Score by total time budget: for each run length, the mean over tasks of the best of k = budget / run length runs, with %g%% bootstrap intervals; best marks the run length chosen at each budget (selection: %s).", 100*opts.CI, opts.Select)).Seeded(opts.Seed)
	return cmdutil.Emit(opts.IO.Out, opts.Format, t, nil)
}

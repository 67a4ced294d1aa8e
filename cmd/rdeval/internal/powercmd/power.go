// Package powercmd implements `rdeval power`.
package powercmd

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/study"
	"github.com/rdeval/rdeval/figures"
	"github.com/rdeval/rdeval/ingest"
	"github.com/spf13/cobra"
)

// Options are the parsed flags of `rdeval power`.
type Options struct {
	IO             *iostreams.IO
	Pilot          []string // pilot inputs (--pilot and arguments)
	Input          cmdutil.InputFlags
	Format         string
	WhereA, WhereB []string // --a, --b: COLUMN=VALUE[,VALUE…] filters selecting each agent's pilot runs
	Figure         string   // --figure: power against runs per task, one line per number of tasks
	// The statistic, the grid and the simulation (A and B parsed from
	// WhereA and WhereB; PA and PB NaN: use pilot data).
	study.PowerParams
}

// NewCmd builds the cobra command; runF replaces Run in tests.
func NewCmd(io *iostreams.IO, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: io}
	var pa, pb string
	cmd := &cobra.Command{
		Use:   "power [--pilot INPUT...] --a FILTER --b FILTER | --pa P --pb P",
		Short: "Simulated power to detect a difference between two agents, by runs per task and number of tasks",
		Long: `Estimate by simulation the probability that a study detects a difference between
two agents at level --alpha (two-sided), for each cell of a grid of runs per task
(--runs) × number of tasks (--tasks), and the confidence-interval half-width to
expect. Each cell runs --sims simulated studies; study s of cell c draws from
PCG(--seed, c<<32|s), so the table is the same on every machine.

--stat success with --pa and --pb: each run succeeds with that probability, the
same on every task, so runs are independent and each arm's successes over its
runs × tasks runs are tested by the unpooled two-proportion z-test (Wald); the
CI half-width is z·se. power_closed_form beside the simulation is that test's
exact power (a sum over the binomial outcomes), so the two agree within the
simulation error at any n.

--stat success with pilot data: a study draws its tasks with replacement from
the tasks both agents ran (the same tasks for both arms) and each task's runs
with replacement from that agent's pilot runs of the task. Tasks are the
clusters: the test is a sign-flip (randomization) test over tasks of the
per-task differences in success rate (all 2^(tasks−1) sign vectors up to 12
tasks, 1,999 random ones above), whose null is equal task-averaged rates; the
CI half-width is the paired t interval's, t·sd/√tasks. Its simulated size at
α = 0.05 (docs/scoreatk-coverage.md §2; 2,000 studies a cell, SE 0.005) is
0–0.051 whether tasks differ in difficulty only or agents' strengths vary by
task (there it is exact), and up to 0.064 when the per-task differences are
skewed. The paired t-test used before reached 0.066 (0.082 skewed), the
z-test on pooled runs 67 %. The price is power with few tasks: it cannot
reject below 6 tasks at α = 0.05 (2/2^tasks > α; power 0, with a warning), and
at 6 tasks × 10 runs it had power 0.22 where the t-test had 0.56 (8 tasks
0.60 against 0.74, 16 tasks 0.96 against 0.98). Needs at least 2 tasks.

--stat scoreatk (pilot data only): tasks and runs are drawn the same way from the
normalized scores; each task's score@k difference (A − B; the mean for random-
selection tasks) is tested with the same sign-flip test over tasks (size at
k = 2: 0–0.060 under both nulls), and the CI half-width is t·sd/√tasks. Tasks
are the unit of replication, so both run and task variation count. Runs per
task must be at least k.

--a and --b select each agent's pilot runs like --where (COLUMN=VALUE[,VALUE…],
repeatable; all must hold); --where filters both. Simulation error: power_se =
sqrt(p(1−p)/sims) (at most 0.011 with 2000 simulations).

--figure draws power against runs per task, one line per number of tasks, with a
band of ±1.96 simulation standard errors and a dashed line at power 0.8.`,
		Example: `  rdeval power --pa 0.3 --pb 0.5 --runs 3,5,10 --tasks 6,12,24
  rdeval power --pa 0.3 --pb 0.5 --runs 2,4,8,16 --tasks 6,12 --figure power.svg
  rdeval power --pilot study/ --a hint_level=no_hints --b hint_level=hints --where model=o1
  rdeval power --pilot all_runs.jsonl --stat scoreatk --k 2 --where time_limit_s=1800 --a agent=o1-preview --b "agent=Claude 3.5 Sonnet (New)" --format csv`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Pilot = append(opts.Pilot, args...)
			if err := cmdutil.CheckFormat(opts.Format, cmdutil.FormatTable, cmdutil.FormatJSON, cmdutil.FormatCSV, cmdutil.FormatLaTeX); err != nil {
				return err
			}
			opts.PA, opts.PB = math.NaN(), math.NaN()
			if (pa == "") != (pb == "") {
				return cmdutil.Usagef("--pa and --pb go together")
			}
			if pa != "" {
				x, e1 := strconv.ParseFloat(pa, 64)
				y, e2 := strconv.ParseFloat(pb, 64)
				if e1 != nil || e2 != nil || !(x >= 0 && x <= 1 && y >= 0 && y <= 1) {
					return cmdutil.Usagef("--pa %q --pb %q: want rates between 0 and 1", pa, pb)
				}
				if opts.Stat != "success" {
					return cmdutil.Usagef("--pa/--pb are success rates: use --stat success, or pilot data for scoreatk")
				}
				if len(opts.Pilot) > 0 {
					return cmdutil.Usagef("give either pilot data or --pa/--pb, not both")
				}
				opts.PA, opts.PB = x, y
			} else {
				if len(opts.Pilot) == 0 {
					return cmdutil.Usagef("give pilot data (--pilot INPUT or arguments) with --a and --b, or --pa and --pb")
				}
				if len(opts.WhereA) == 0 || len(opts.WhereB) == 0 {
					return cmdutil.Usagef("--a and --b select the two agents' pilot runs, e.g. --a agent=o1-preview")
				}
			}
			if opts.K < 1 {
				return cmdutil.Usagef("--k %d: k must be a positive integer", opts.K)
			}
			for _, r := range opts.Runs {
				if r < 1 || opts.Stat == "scoreatk" && r < opts.K {
					return cmdutil.Usagef("--runs %d: want ≥ 1 (and ≥ k for scoreatk)", r)
				}
			}
			for _, t := range opts.Tasks {
				if t < 1 || opts.Stat == "scoreatk" && t < 2 {
					return cmdutil.Usagef("--tasks %d: want ≥ 1 (≥ 2 for scoreatk: the t-test needs two tasks)", t)
				}
			}
			if len(opts.Runs) == 0 || len(opts.Tasks) == 0 {
				return cmdutil.Usagef("--runs and --tasks must each list at least one value")
			}
			if !(opts.Alpha > 0 && opts.Alpha < 1) {
				return cmdutil.Usagef("--alpha %v: want a level between 0 and 1, e.g. 0.05", opts.Alpha)
			}
			if opts.Sims < 1 {
				return cmdutil.Usagef("--sims %d: want ≥ 1", opts.Sims)
			}
			if opts.Figure != "" {
				if err := cmdutil.CheckFigurePath("--figure", opts.Figure); err != nil {
					return err
				}
			}
			if math.IsNaN(opts.PA) {
				var err error
				if opts.A, err = cmdutil.ParseFilters("--a", opts.WhereA); err != nil {
					return err
				}
				if opts.B, err = cmdutil.ParseFilters("--b", opts.WhereB); err != nil {
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
	fl.StringArrayVar(&opts.Pilot, "pilot", nil, "pilot data: a file or folder of runs (repeatable; arguments count too)")
	cmdutil.EnumVar(cmd, &opts.Stat, "stat", "success", "statistic: success (final-success rate) or scoreatk (mean over tasks of score@k)", "success", "scoreatk")
	fl.IntVar(&opts.K, "k", 1, "k of score@k (--stat scoreatk)")
	fl.StringArrayVar(&opts.WhereA, "a", nil, "agent A's pilot runs: COLUMN=VALUE[,VALUE…] (repeatable; all must hold)")
	fl.StringArrayVar(&opts.WhereB, "b", nil, "agent B's pilot runs: COLUMN=VALUE[,VALUE…] (repeatable; all must hold)")
	fl.IntSliceVar(&opts.Runs, "runs", []int{3, 5, 10}, "runs per task per agent (grid)")
	fl.IntSliceVar(&opts.Tasks, "tasks", []int{6, 12, 24}, "number of tasks (grid)")
	fl.Float64Var(&opts.Alpha, "alpha", 0.05, "two-sided level of the test")
	fl.IntVar(&opts.Sims, "sims", 2000, "simulated studies per grid cell")
	fl.Uint64Var(&opts.Seed, "seed", 1, "simulation seed")
	fl.StringVar(&pa, "pa", "", "assumed final-success rate of agent A (instead of pilot data)")
	fl.StringVar(&pb, "pb", "", "assumed final-success rate of agent B")
	fl.StringVar(&opts.Figure, "figure", "", "also draw power against runs per task, one line per number of tasks, to this .svg, .png or .pdf file")
	// The input flags, without --tasks (the grid flag here): the task catalog is --task-catalog.
	fl.StringVar(&opts.Input.Benchmark, "benchmark", "", "set the benchmark of every run read (e.g. re-bench, rexbench)")
	fl.StringVar(&opts.Input.TasksFile, "task-catalog", "", "YAML task catalog that adds to or overrides the built-in ones")
	fl.StringSliceVar(&opts.Input.Map, "map", nil, "generic inputs: COLUMN=FIELD pairs, e.g. --map agent=model_name,score=final")
	fl.StringVar(&opts.Input.Reader, "reader", "", "force a reader instead of detecting one ("+strings.Join(ingest.Readers, ", ")+")")
	fl.StringArrayVar(&opts.Input.Where, "where", nil, "keep pilot runs whose COLUMN is one of the values (repeatable; all must hold)")
	return cmd
}

// run computes and prints the power table.
func run(opts *Options) error {
	var ds *ingest.Dataset
	if math.IsNaN(opts.PA) {
		var err error
		if ds, err = opts.Input.LoadForCommand(opts.IO, opts.Pilot); err != nil {
			return err
		}
	}
	res, err := study.Power(ds, opts.PowerParams)
	opts.IO.Warn(res.Warnings...)
	if err != nil {
		return err
	}
	if err := write(opts, &res); err != nil {
		return err
	}
	if opts.Figure == "" {
		return nil
	}
	fig, err := figures.PowerFigure(fmt.Sprintf("Power, α = %g (%d simulations per point)", opts.Alpha, opts.Sims), res.Cells)
	if err != nil {
		return err
	}
	return figures.SaveFile(fig, figures.OneColumn, figures.Height(figures.OneColumn), opts.Figure)
}

// write prints the cells in --format.
func write(opts *Options, res *study.PowerResult) error {
	maxSE := res.MaxPowerSE()
	switch opts.Format {
	case cmdutil.FormatJSON:
		return cmdutil.WriteJSON(opts.IO.Out, map[string]any{"description": res.Description, "alpha": opts.Alpha, "sims": opts.Sims, "seed": opts.Seed, "max_power_se": maxSE, "cells": res.JSON()})
	case cmdutil.FormatCSV:
		return res.Table().WriteCSV(opts.IO.Out)
	case cmdutil.FormatLaTeX:
		return res.Table().Cite(opts.IO, fmt.Sprintf("Simulated power (alpha %g) and expected confidence-interval half-width by runs per task and number of tasks: %s; %d simulated studies per cell, simulation error (power_se) at most %.4f.", opts.Alpha, res.Description, opts.Sims, maxSE)).Seeded(opts.Seed).WriteLaTeX(opts.IO.Out)
	}
	fmt.Fprintf(opts.IO.Out, "%s\n%d simulated studies per cell, seed %d; simulation error (power_se) at most %.4f\n", res.Description, opts.Sims, opts.Seed, maxSE)
	return res.Table().WriteText(opts.IO.Out)
}

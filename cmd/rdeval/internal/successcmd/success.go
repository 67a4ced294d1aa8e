// Package successcmd implements `rdeval success`.
package successcmd

import (
	"fmt"
	"strconv"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/study"
	"github.com/spf13/cobra"
)

// Options are the parsed flags of `rdeval success`.
type Options struct {
	IO     *iostreams.IO
	Inputs []string
	Input  cmdutil.InputFlags
	Format string
	cmdutil.Bootstrap
	Ablation bool
	Baseline string
	// Headline prints RExBench's Table 5: one row per framework × model ×
	// hint level, no per-task rows.
	Headline bool
}

// NewCmd builds the cobra command; runF replaces Run in tests.
func NewCmd(io *iostreams.IO, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: io}
	cmd := &cobra.Command{
		Use:   "success INPUT...",
		Short: "RExBench final and execution success and file recall per agent, hint level and task",
		Long: `Rates per framework × model × hint level × task: final success, execution success
and file recall, with the number of runs; the "all" row is the mean over tasks of
the per-task rates, the headline of RExBench (arXiv 2506.22598, Table 5). Every
run has exactly one outcome (no_patch, patch_failed, exec_error, timeout,
wrong_result, success), so the denominator never shifts; a run without a result is
never a success.

File recall of a run is the source's file_recall, else |files_edited ∩ gold_files|
/ |gold_files| with gold files from the task catalog (--tasks), else unknown.
Uncertainty on "all" rows: the sd across trials of the per-trial mean over tasks,
and a percentile bootstrap over runs within tasks (seeded).

--headline prints the paper's Table 5 itself: one row per framework × model ×
hint level with final success and execution success, each with its bootstrap
interval (one cell, "0.44 [0.38, 0.50]", in table and latex; separate columns in
csv and json), and file recall.

--ablation prints, per agent, each hint level's final success against a baseline
level (--baseline no_hints) with the paired difference and its bootstrap CI.`,
		Example: `  rdeval success --demo --where benchmark=rexbench --ablation          # the embedded demo study
  rdeval success study/ --where benchmark=rexbench
  rdeval success per_task_metrics.csv --format json
  rdeval success study/ --ablation --format csv
  rdeval success --demo --where benchmark=rexbench --headline --format latex > table5.tex   # Table 5 for a paper`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Inputs = args
			if err := cmdutil.CheckFormat(opts.Format, cmdutil.FormatTable, cmdutil.FormatJSON, cmdutil.FormatCSV, cmdutil.FormatLaTeX); err != nil {
				return err
			}
			if opts.Headline && opts.Ablation {
				return cmdutil.Usagef("--headline and --ablation: choose one")
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
	cmdutil.AddBootstrapFlags(cmd, &opts.Bootstrap, 10000, 1, true)
	fl.BoolVar(&opts.Ablation, "ablation", false, "compare hint levels with --baseline per agent")
	fl.StringVar(&opts.Baseline, "baseline", "no_hints", "hint level the ablation compares against")
	fl.BoolVar(&opts.Headline, "headline", false, "print RExBench's Table 5: one row per framework × model × hint level, rates with their intervals")
	cmdutil.AddInputFlags(cmd, &opts.Input, true)
	return cmd
}

// run prints the rates.
func run(opts *Options) error {
	ds, err := opts.Input.LoadForCommand(opts.IO, opts.Inputs)
	if err != nil {
		return err
	}
	if opts.Ablation {
		res, err := study.Ablation(ds, study.AblationParams{Baseline: opts.Baseline, Boot: opts.Boot, Seed: opts.Seed, CI: opts.CI})
		if err := noteSkipped(opts, res.Skipped, err); err != nil {
			return err
		}
		return ablation(opts, res)
	}
	res, err := study.Success(ds, study.SuccessParams{Boot: opts.Boot, Seed: opts.Seed, CI: opts.CI})
	if err := noteSkipped(opts, res.Skipped, err); err != nil {
		return err
	}
	caption := fmt.Sprintf("Final success, execution success and file recall per framework, model and hint level: the mean over tasks of the per-task rates, with %g%% bootstrap intervals (runs resampled within tasks).", 100*opts.CI)
	if opts.Headline {
		return headline(opts, &res, caption)
	}
	var js []map[string]any
	for _, c := range res.Cells {
		k, sum := c.Key, c.Summary
		for _, r := range c.Tasks {
			js = append(js, map[string]any{"framework": k.Framework, "model": k.Model, "hint_level": k.Hint, "task_id": r.Task, "runs": r.Runs,
				"final_success": r.Final, "execution_success": r.Exec, "file_recall": cmdutil.JSONNum(r.Recall), "final_ci_low": nil, "final_ci_high": nil})
		}
		js = append(js, map[string]any{"framework": k.Framework, "model": k.Model, "hint_level": k.Hint, "task_id": "all", "runs": sum.Runs,
			"final_success": sum.Final, "execution_success": sum.Exec, "file_recall": cmdutil.JSONNum(sum.Recall), "final_ci_low": cmdutil.JSONNum(sum.FinalLow), "final_ci_high": cmdutil.JSONNum(sum.FinalHigh),
			"execution_ci_low": cmdutil.JSONNum(sum.ExecLow), "execution_ci_high": cmdutil.JSONNum(sum.ExecHigh), "final_sd_trials": cmdutil.JSONNum(sum.FinalSD), "execution_sd_trials": cmdutil.JSONNum(sum.ExecSD), "tasks": sum.Tasks})
	}
	return cmdutil.Emit(opts.IO.Out, opts.Format, res.Table().Cite(opts.IO, caption+` Rows "all": every task.`).Seeded(opts.Seed), js)
}

// noteSkipped prints how many runs had no success information (unless
// no run had any) and returns err.
func noteSkipped(opts *Options, skipped int, err error) error {
	if err != study.ErrNoOutcomes && skipped > 0 {
		opts.IO.Notef("%d runs without success information are left out", skipped)
	}
	return err
}

// headline prints Table 5: the "all" rows alone.
func headline(opts *Options, res *study.SuccessResult, caption string) error {
	t := res.Headline().Cite(opts.IO, caption).Seeded(opts.Seed)
	var js []map[string]any
	for _, c := range res.Cells {
		k, s := c.Key, c.Summary
		js = append(js, map[string]any{"framework": k.Framework, "model": k.Model, "hint_level": k.Hint, "tasks": s.Tasks, "runs": s.Runs,
			"final_success": cmdutil.JSONNum(s.Final), "final_ci_low": cmdutil.JSONNum(s.FinalLow), "final_ci_high": cmdutil.JSONNum(s.FinalHigh),
			"execution_success": cmdutil.JSONNum(s.Exec), "execution_ci_low": cmdutil.JSONNum(s.ExecLow), "execution_ci_high": cmdutil.JSONNum(s.ExecHigh),
			"file_recall": cmdutil.JSONNum(s.Recall)})
	}
	if opts.Format == cmdutil.FormatTable {
		return t.Joined().WriteText(opts.IO.Out)
	}
	return cmdutil.Emit(opts.IO.Out, opts.Format, t, js)
}

func ablation(opts *Options, res study.AblationResult) error {
	t := cmdutil.Table{Header: []string{"framework", "model", "hint_level", "baseline", "tasks", "final_success", "baseline_final_success", "diff", "diff_ci_low", "diff_ci_high"}}
	var js []map[string]any
	for _, r := range res.Rows {
		k, d := r.Key, r.RateDiff
		t.Rows = append(t.Rows, []string{k.Framework, k.Model, k.Hint, opts.Baseline, strconv.Itoa(d.Tasks), cmdutil.Fixed4(d.A), cmdutil.Fixed4(d.B), cmdutil.Fixed4(d.Diff), cmdutil.Fixed4(d.DiffLow), cmdutil.Fixed4(d.DiffHigh)})
		js = append(js, map[string]any{"framework": k.Framework, "model": k.Model, "hint_level": k.Hint, "baseline": opts.Baseline, "tasks": d.Tasks,
			"final_success": d.A, "baseline_final_success": d.B, "diff": d.Diff, "diff_ci_low": cmdutil.JSONNum(d.DiffLow), "diff_ci_high": cmdutil.JSONNum(d.DiffHigh)})
	}
	t.Cite(opts.IO, fmt.Sprintf("Final success of each hint level against %s per framework and model: the paired difference with its %g%% bootstrap interval.", opts.Baseline, 100*opts.CI)).Seeded(opts.Seed)
	return cmdutil.Emit(opts.IO.Out, opts.Format, &t, js)
}

// Package influencecmd implements `rdeval influence`.
package influencecmd

import (
	"fmt"
	"math"
	"strconv"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/study"
	"github.com/spf13/cobra"
)

// Options are the parsed flags of `rdeval influence`: --stat is the
// kind of InfluenceParams.Spec, --k, --a, --b, --budget, --measure and
// --human-run-length its fields (success takes none: --where is its cell).
type Options struct {
	IO     *iostreams.IO
	Inputs []string
	Input  cmdutil.InputFlags
	Format string
	study.InfluenceParams
}

// NewCmd builds the cobra command; runF replaces Run in tests.
func NewCmd(io *iostreams.IO, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: io}
	var threshold string
	cmd := &cobra.Command{
		Use:   "influence INPUT...",
		Short: "Leave-one-run/task/agent-out influence on score@k, final success or an A/B ratio",
		Long: `Show how much single runs and single tasks move a headline statistic.

--stat scoreatk: the mean over tasks of score@k (--k, default 1) for one agent ×
time limit, computed as rdeval scoreatk does (tasks with fewer than k runs are
left out of the mean; random-selection tasks use their mean). The --where filters
must select exactly one agent and time limit; otherwise the command lists them.
--stat success: the final-success headline (mean over tasks of per-task rates,
RExBench Table 5) of one framework × model × hint level cell.

For every run and every task the statistic is recomputed without it; rows are
sorted by |change| and the --top largest of each kind are printed (0: all). A
run whose removal leaves its task with fewer than k runs drops the task from the
mean. Leave-one-agent-out does not apply to these two: both are for one agent.

--stat compare: the point estimate of rdeval compare — the ratio (--measure
ratio) or difference (diff) of group A's mean score@k_A to group B's over their
shared tasks at --budget, k = budget / run length (runs longer than the budget
are read at it from score logs; humans without a time limit last
--human-run-length). Groups are COLUMN=VALUE[;COLUMN=VALUE…] and may pool
several agents (e.g. --a "kind=agent;time_limit_s=1800"). Besides runs and
tasks, every agent is left out in turn ("agent" rows: all its runs removed from
A and B): does the headline rest on one agent? Every "without" value is the
ratio recomputed from scratch on the runs left; NaN when it is undefined (a
group left empty, no shared task, B's mean 0).

Runs whose normalized score is above --flag-above are flagged and always printed
(default 2: RE-Bench's paper says no cleaned normalized score exceeded 2, exploit
runs having been scored 0 by hand, yet METR's public files hold higher scores).

--threshold X adds "removal" rows: a small set of runs (greedy: each step removes
the run that moves the statistic furthest toward X; at most 50 runs, not
guaranteed minimal) whose removal moves the statistic from ≥ X to below X, or
from below X to ≥ X, with the statistic after each removal.`,
		Example: `  rdeval influence --demo --stat scoreatk --k 4 --where "agent=Modular (Model A)" --where time_limit_s=1800 --top 5
  rdeval influence all_runs.jsonl --stat scoreatk --k 4 --where benchmark=re-bench --where agent=o1-preview --where time_limit_s=1800
  rdeval influence study/ --stat success --where scaffold=openhands --where model=o1 --where hint_level=no_hints --top 5 --format json
  rdeval influence all_runs.jsonl --stat scoreatk --where agent=o1-preview --where time_limit_s=1800 --threshold 0.2 --format csv
  rdeval influence all_runs.jsonl --where benchmark=re-bench --stat compare --a "kind=agent;time_limit_s=1800" --b agent=human --budget 8h`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Inputs = args
			if err := cmdutil.CheckFormat(opts.Format, cmdutil.FormatTable, cmdutil.FormatJSON, cmdutil.FormatCSV, cmdutil.FormatLaTeX); err != nil {
				return err
			}
			sp := &opts.Spec
			switch sp.Kind {
			case "scoreatk", "success":
				if sp.A != "" || sp.B != "" || sp.Budget != "" {
					return cmdutil.Usagef("--a, --b and --budget go with --stat compare")
				}
			case "compare":
				if sp.A == "" || sp.B == "" || sp.Budget == "" {
					return cmdutil.Usagef("--stat compare needs --a, --b and --budget")
				}
			default:
				return cmdutil.Usagef("--stat %q: want scoreatk, success or compare", sp.Kind)
			}
			if sp.Kind != "success" {
				if err := sp.Validate(); err != nil {
					return cmdutil.Usagef("--stat %s: %v", sp.Kind, err)
				}
			}
			if opts.Top < 0 {
				return cmdutil.Usagef("--top %d: want 0 (all) or more", opts.Top)
			}
			opts.Threshold = math.NaN()
			if threshold != "" {
				x, err := strconv.ParseFloat(threshold, 64)
				if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
					return cmdutil.Usagef("--threshold %q: want a number", threshold)
				}
				opts.Threshold = x
			}
			if runF != nil {
				return runF(opts)
			}
			return run(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Format, "format", cmdutil.FormatTable, "output: table, json, csv or latex")
	fl.StringVar(&opts.Spec.Kind, "stat", "scoreatk", "statistic: scoreatk (mean over tasks of score@k), success (final-success headline) or compare (A/B at a budget)")
	fl.StringVar(&opts.Spec.A, "a", "", "--stat compare: group A, COLUMN=VALUE[;COLUMN=VALUE…]")
	fl.StringVar(&opts.Spec.B, "b", "", "--stat compare: group B")
	fl.StringVar(&opts.Spec.Budget, "budget", "", "--stat compare: total time per task, e.g. 8h")
	fl.StringVar(&opts.Spec.Measure, "measure", "ratio", "--stat compare: ratio (A/B) or diff (A−B)")
	fl.StringVar(&opts.Spec.HumanRunLength, "human-run-length", "8h", "--stat compare: length of human runs without a time limit")
	fl.IntVar(&opts.Spec.K, "k", 1, "k of score@k (--stat scoreatk)")
	fl.IntVar(&opts.Top, "top", 10, "print the N most influential runs and tasks (0: all)")
	fl.Float64Var(&opts.FlagAbove, "flag-above", 2, "flag runs whose normalized score is above this")
	fl.StringVar(&threshold, "threshold", "", "also find a small set of runs (greedy, ≤ 50) whose removal moves the statistic across this value")
	cmdutil.AddInputFlags(cmd, &opts.Input, true)
	return cmd
}

// run loads the inputs and prints the influence table.
func run(opts *Options) error {
	ds, err := opts.Input.LoadForCommand(opts.IO, opts.Inputs)
	if err != nil {
		return err
	}
	res, err := study.Influence(ds, opts.InfluenceParams)
	opts.IO.Warn(res.Warnings...)
	if res.Skipped > 0 {
		opts.IO.Notef("%d runs without success information are left out", res.Skipped)
	}
	if err != nil {
		return err
	}
	return write(opts, res)
}

func write(opts *Options, res study.InfluenceResult) error {
	if opts.Format == cmdutil.FormatJSON {
		rows := make([]map[string]any, len(res.Rows))
		for i, r := range res.Rows {
			m := map[string]any{"kind": r.Kind, "task_id": r.TaskID, "without": cmdutil.JSONNum(r.Without), "change": cmdutil.JSONNum(r.Change)}
			if r.Agent != "" {
				m["agent"] = r.Agent
			}
			if r.Kind == "task" || r.Kind == "agent" {
				m["runs"] = r.Runs
			} else {
				m["run_id"], m["value"], m["flag"] = r.RunID, cmdutil.JSONNum(r.Value), r.Flag
			}
			rows[i] = m
		}
		out := map[string]any{"statistic": res.Stat, "group": res.Group, "estimate": cmdutil.JSONNum(res.Estimate),
			"tasks": res.Tasks, "runs": res.RunCount, "rows": rows}
		if res.Crossed != nil {
			out["threshold"], out["threshold_crossed"] = opts.Threshold, *res.Crossed
		}
		return cmdutil.WriteJSON(opts.IO.Out, out)
	}
	t := cmdutil.Table{Header: []string{"kind", "run_id", "task_id", "runs", "value", "without", "change", "flag", "agent"}}
	for _, r := range res.Rows {
		runs := ""
		if r.Kind == "task" || r.Kind == "agent" {
			runs = strconv.Itoa(r.Runs)
		}
		t.Rows = append(t.Rows, []string{r.Kind, r.RunID, r.TaskID, runs, cmdutil.Fixed4(r.Value), cmdutil.Fixed4(r.Without), cmdutil.Fixed4(r.Change), r.Flag, r.Agent})
	}
	switch opts.Format {
	case cmdutil.FormatCSV, cmdutil.FormatLaTeX:
		// The first row is the statistic on all runs.
		t.Rows = append([][]string{{"all", "", "", strconv.Itoa(res.Tasks), "", cmdutil.Fixed4(res.Estimate), "0.0000", "", ""}}, t.Rows...)
		if opts.Format == cmdutil.FormatCSV {
			return t.WriteCSV(opts.IO.Out)
		}
		caption := fmt.Sprintf("Influence on %s (%s; %d tasks, %d runs): the statistic without each run, task or agent (leave-one-out) and the change.", res.Stat, res.GroupText(), res.Tasks, res.RunCount)
		if res.Crossed != nil {
			caption += fmt.Sprintf(" Threshold %s crossed: %t.", strconv.FormatFloat(opts.Threshold, 'g', -1, 64), *res.Crossed)
		}
		return t.Cite(opts.IO, caption).WriteLaTeX(opts.IO.Out)
	}
	fmt.Fprintf(opts.IO.Out, "%s, %s: %s (%d tasks, %d runs)\n", res.Stat, res.GroupText(), cmdutil.Fixed4(res.Estimate), res.Tasks, res.RunCount)
	if res.Crossed != nil {
		verdict := "crossed"
		if !*res.Crossed {
			verdict = fmt.Sprintf("not crossed within %d removals", study.InfluenceMaxRemove)
		}
		fmt.Fprintf(opts.IO.Out, "threshold %s: %s\n", strconv.FormatFloat(opts.Threshold, 'g', -1, 64), verdict)
	}
	return t.WriteText(opts.IO.Out)
}

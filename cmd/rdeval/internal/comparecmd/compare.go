// Package comparecmd implements `rdeval compare`.
package comparecmd

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rdeval/rdeval/analysis"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/study"
	"github.com/spf13/cobra"
)

// Options are the parsed flags of `rdeval compare`.
type Options struct {
	IO     *iostreams.IO
	Inputs []string
	Input  cmdutil.InputFlags
	Format string
	Method string // --interval: percentile, bca or studentized (--mode ratio)
	study.CompareParams
}

// NewCmd builds the cobra command; runF replaces Run in tests.
func NewCmd(io *iostreams.IO, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: io}
	cmd := &cobra.Command{
		Use:   "compare INPUT... --a FILTER --b FILTER --budget T",
		Short: "Compare two groups at a time budget: ratio and difference with paired CIs, human percentiles",
		Long: `Compare group A with group B (each a filter COLUMN=VALUE[;COLUMN=VALUE…], e.g.
"agent=o1-preview;time_limit_s=7200") at a total time budget T. Each side's value
is the mean over their shared tasks of score@k with k = T / its run length (the
time limit; --human-run-length for humans without one). A group whose runs are
longer than T is read at T from its score logs (k = 1), as RE-Bench compares
agents with humans at 2 h.

--mode ratio (default): estimate_a, estimate_b, ratio and difference with a paired
bootstrap over tasks (the same task draw for both sides, then runs within each
task), as in "agents score 4× humans at 2 h". --interval picks the interval
(docs/statistical-guarantees.md; coverage of a nominal 95 % interval over four
simulated designs, 7 or 20 tasks, k 1 to 4, 2,000 studies each):
  percentile (default)  difference 81.4–96.05 % (the truth above it 3.65–18.2 %,
                        below ≤ 0.4 %); ratio 95.05–98.95 % (tails 0.45–4.1 %)
  bca                   bias-corrected and accelerated (leave-one-task-out
                        jackknife): difference 84.1–94.8 %, ratio 90.2–97.4 %
  studentized           bootstrap-t over tasks (per-task score@k kept, no run
                        resampling; log scale for the ratio): difference
                        86.9–90.3 % (above 7.75–12.65 %), ratio 92.15–93.7 %
                        (tails 2.25–5.6 %); needs 3 tasks, else percentile
No interval keeps both tails near 2.5 % for the difference: a mean over few
skewed tasks is skewed (and at k > 1 resampled runs bias score@k down).
--mode percentiles: for each shared task, the percentile of A's score@k within
B's final scores (scipy's percentileofscore, kind "mean"), and their mean ("all").
--mode lines: B's mean-of-percentiles reference lines p10, p30, p50, p70, p90
(a mean of per-task percentiles, as METR draws "Human 8h performance").`,
		Example: `  rdeval compare --demo --a "agent=Modular (Model A);time_limit_s=1800" --b agent=human --budget 8h
  rdeval compare study/ --a "agent=o1-preview;time_limit_s=1800" --b agent=human --budget 8h
  rdeval compare study/ --a agent=human --b agent=human --mode lines --budget 8h
  rdeval compare study/ --a "agent=Claude 3.5 Sonnet (New);time_limit_s=1800" --b agent=human --budget 8h --mode percentiles --format json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Inputs = args
			if err := cmdutil.CheckFormat(opts.Format, cmdutil.FormatTable, cmdutil.FormatJSON, cmdutil.FormatCSV, cmdutil.FormatLaTeX); err != nil {
				return err
			}
			if opts.A == "" || opts.B == "" {
				return cmdutil.Usagef("both --a and --b are needed, e.g. --a agent=o1-preview --b agent=human")
			}
			if opts.Budget <= 0 {
				return cmdutil.Usagef("--budget: want a positive duration, e.g. 8h")
			}
			if err := opts.Bootstrap.Check(); err != nil {
				return err
			}
			opts.Interval = map[string]analysis.Interval{"percentile": analysis.Percentile, "bca": analysis.BCa, "studentized": analysis.Studentized}[opts.Method]
			for _, f := range []string{opts.A, opts.B} {
				if _, err := study.ParseGroup(f); err != nil {
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
	fl.StringVar(&opts.A, "a", "", "group A: COLUMN=VALUE[;COLUMN=VALUE…]")
	fl.StringVar(&opts.B, "b", "", "group B (the reference, e.g. agent=human)")
	fl.DurationVar(&opts.Budget, "budget", 8*time.Hour, "total time budget T")
	cmdutil.AddBootstrapFlags(cmd, &opts.Bootstrap, 10000, 1, true)
	cmdutil.EnumVar(cmd, &opts.Mode, "mode", "ratio", "ratio, percentiles or lines", "ratio", "percentiles", "lines")
	cmdutil.EnumVar(cmd, &opts.Method, "interval", "percentile", "bootstrap interval of --mode ratio: percentile, bca or studentized", "percentile", "bca", "studentized")
	fl.DurationVar(&opts.HumanLen, "human-run-length", 8*time.Hour, "run length of human runs whose time limit is unknown")
	cmdutil.AddInputFlags(cmd, &opts.Input, true)
	return cmd
}

// run prints the comparison.
func run(opts *Options) error {
	ds, err := opts.Input.LoadForCommand(opts.IO, opts.Inputs)
	if err != nil {
		return err
	}
	res, err := study.Compare(ds, opts.CompareParams)
	opts.IO.Warn(res.Warnings...)
	if err != nil {
		return err
	}
	T := opts.Budget.Seconds()
	var t cmdutil.Table
	var js []map[string]any
	switch opts.Mode {
	case "lines":
		t.Header = []string{"b", "percentile", "value", "n_tasks"}
		for _, l := range res.Lines {
			t.Rows = append(t.Rows, []string{opts.B, "p" + strconv.Itoa(int(l.Percentile)), cmdutil.Fixed4(l.Value), strconv.Itoa(l.NTasks)})
			js = append(js, map[string]any{"b": opts.B, "percentile": l.Percentile, "value": cmdutil.JSONNum(l.Value), "n_tasks": l.NTasks})
		}
		t.Cite(opts.IO, fmt.Sprintf("Mean over tasks of the p10--p90 percentiles of %s's final scores (the lines of RE-Bench's human comparison).", opts.B))
	case "percentiles":
		t.Header = []string{"a", "b", "budget_s", "task_id", "estimate_a", "percentile"}
		for _, x := range res.Percentiles {
			t.Rows = append(t.Rows, []string{opts.A, opts.B, f0(T), x.Task, cmdutil.Fixed4(x.Estimate), cmdutil.Fixed4(x.Percentile)})
			js = append(js, map[string]any{"a": opts.A, "b": opts.B, "budget_s": T, "task_id": x.Task, "estimate_a": x.Estimate, "percentile": cmdutil.JSONNum(x.Percentile)})
		}
		t.Rows = append(t.Rows, []string{opts.A, opts.B, f0(T), "all", "", cmdutil.Fixed4(res.MeanPercentile)})
		js = append(js, map[string]any{"a": opts.A, "b": opts.B, "budget_s": T, "task_id": "all", "estimate_a": nil, "percentile": res.MeanPercentile})
		t.Cite(opts.IO, fmt.Sprintf("Percentile of %s's score@k at a %s budget among %s's final scores, per task; all: the mean over tasks.", opts.A, budgetLabel(opts.Budget), opts.B))
	default:
		c := res.Comparison
		t.Header = []string{"a", "b", "budget_s", "n_tasks", "estimate_a", "estimate_b", "ratio", "ratio_ci_low", "ratio_ci_high", "diff", "diff_ci_low", "diff_ci_high"}
		t.Rows = append(t.Rows, []string{opts.A, opts.B, f0(T), strconv.Itoa(len(c.Tasks)), cmdutil.Fixed4(c.EstimateA), cmdutil.Fixed4(c.EstimateB), cmdutil.Fixed4(c.Ratio), cmdutil.Fixed4(c.RatioLow), cmdutil.Fixed4(c.RatioHigh), cmdutil.Fixed4(c.Diff), cmdutil.Fixed4(c.DiffLow), cmdutil.Fixed4(c.DiffHigh)})
		js = []map[string]any{{"a": opts.A, "b": opts.B, "budget_s": T, "n_tasks": len(c.Tasks), "estimate_a": c.EstimateA, "estimate_b": c.EstimateB,
			"ratio": cmdutil.JSONNum(c.Ratio), "ratio_ci_low": cmdutil.JSONNum(c.RatioLow), "ratio_ci_high": cmdutil.JSONNum(c.RatioHigh),
			"diff": c.Diff, "diff_ci_low": cmdutil.JSONNum(c.DiffLow), "diff_ci_high": cmdutil.JSONNum(c.DiffHigh)}}
		t.Cite(opts.IO, fmt.Sprintf("%s against %s at a %s budget: the ratio and difference of their score@k means over the shared tasks, with %g%% paired bootstrap intervals (%s).", opts.A, opts.B, budgetLabel(opts.Budget), 100*opts.CI, opts.Method)).Seeded(opts.Seed)
	}
	return cmdutil.Emit(opts.IO.Out, opts.Format, &t, js)
}

func f0(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// budgetLabel is d as 8h, 30m or 1h30m.
func budgetLabel(d time.Duration) string {
	return strings.TrimSuffix(strings.TrimSuffix(d.String(), "0s"), "0m")
}

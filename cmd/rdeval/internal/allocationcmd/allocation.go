// Package allocationcmd implements `rdeval allocation`.
package allocationcmd

import (
	"fmt"
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

// Options are the parsed flags of `rdeval allocation`.
type Options struct {
	IO          *iostreams.IO
	Inputs      []string
	Input       cmdutil.InputFlags
	Format      string
	Budgets     []string
	Boot        int
	Seed        uint64
	CI          float64
	Select      string
	HumanLength time.Duration
	Truncate    string
	// OnRows, if set, receives the computed rows (rdeval report draws figures from them).
	OnRows func([]Row)
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
			if err := cmdutil.CheckFormat(opts.Format, cmdutil.FormatTable, cmdutil.FormatJSON, cmdutil.FormatCSV); err != nil {
				return err
			}
			if opts.Truncate != "humans" && opts.Truncate != "all" && opts.Truncate != "none" {
				return cmdutil.Usagef("--truncate %q: want humans, all or none", opts.Truncate)
			}
			if opts.Select != "observed" && opts.Select != "holdout" {
				return cmdutil.Usagef("--select %q: want observed or holdout", opts.Select)
			}
			if opts.Boot < 0 || (opts.Select == "holdout" && opts.Boot == 0) {
				return cmdutil.Usagef("--boot %d: want a positive number of replicates (holdout needs at least 1)", opts.Boot)
			}
			if !(opts.CI > 0 && opts.CI < 1) {
				return cmdutil.Usagef("--ci %v: want a level between 0 and 1", opts.CI)
			}
			if _, err := parseBudgets(opts.Budgets); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return Run(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Format, "format", cmdutil.FormatTable, "output: table, json or csv")
	fl.StringSliceVar(&opts.Budgets, "budgets", []string{"30m", "1h", "2h", "4h", "8h", "16h", "32h", "64h"}, "total time budgets")
	fl.IntVar(&opts.Boot, "boot", 10000, "bootstrap replicates (or holdout splits)")
	fl.Uint64Var(&opts.Seed, "seed", 1, "seed")
	fl.Float64Var(&opts.CI, "ci", 0.95, "confidence level")
	fl.StringVar(&opts.Select, "select", "observed", "observed: score every allocation; holdout: also the split-half value of choosing the best")
	fl.DurationVar(&opts.HumanLength, "human-run-length", 8*time.Hour, "run length of human runs whose time limit is unknown")
	fl.StringVar(&opts.Truncate, "truncate", "humans", "budgets shorter than a group's runs: read these groups' score logs at the budget (humans, all, none)")
	cmdutil.AddInputFlags(cmd, &opts.Input, true)
	return cmd
}

func parseBudgets(s []string) ([]float64, error) {
	var out []float64
	for _, b := range s {
		d, err := time.ParseDuration(strings.TrimSpace(b))
		if err != nil || d <= 0 {
			return nil, cmdutil.Usagef("--budgets %q: want durations like 30m, 2h, 32h", b)
		}
		out = append(out, d.Seconds())
	}
	return out, nil
}

// Row is one output row.
type Row struct {
	Agent      string
	BudgetS    float64
	RunLengthS float64
	K          int
	NTasks     int
	Estimate   float64
	CILow      float64
	CIHigh     float64
	Best       bool
	// FullTaskSet: the mean covers every task of the agent (false:
	// tasks short of k runs were left out; never Best). Holdout rows: true.
	FullTaskSet bool
	Selection   string
	Truncated   bool // runs read from their score logs at the budget, not run to their end
}

// Run computes and prints the allocation table.
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
	budgets, _ := parseBudgets(opts.Budgets)
	random := map[string]bool{}
	for _, t := range ds.Tasks {
		if t.Selection.Valid && t.Selection.V == "random" {
			random[t.Benchmark+"\x00"+t.TaskID] = true
		}
	}
	// agent → run length → task → scores
	byAgent := map[string]map[float64]map[string][]float64{}
	rand := map[string]bool{}
	for i := range ds.Runs {
		r := &ds.Runs[i]
		if !r.Score.Valid {
			continue
		}
		h := 0.0
		switch {
		case r.TimeLimitS.Valid && r.TimeLimitS.V > 0:
			h = float64(r.TimeLimitS.V)
		case r.Kind == "human":
			h = opts.HumanLength.Seconds()
		default:
			continue
		}
		if byAgent[r.Agent] == nil {
			byAgent[r.Agent] = map[float64]map[string][]float64{}
		}
		if byAgent[r.Agent][h] == nil {
			byAgent[r.Agent][h] = map[string][]float64{}
		}
		byAgent[r.Agent][h][r.TaskID] = append(byAgent[r.Agent][h][r.TaskID], r.Score.V)
		if random[r.Benchmark+"\x00"+r.TaskID] {
			rand[r.TaskID] = true
		}
	}
	if len(byAgent) == 0 {
		return &cmdutil.BadInputError{Err: fmt.Errorf("no run has both a score and a run length (time_limit_s)")}
	}
	// Budgets shorter than all of a group's runs: its runs read at the budget
	// from their score logs (k = 1), marked truncated.
	trunc := map[string]map[float64]map[string][]float64{} // agent → budget → task → scores at the budget
	if opts.Truncate != "none" {
		for _, T := range budgets {
			include := func(r *ingest.Run) bool {
				if opts.Truncate == "humans" && r.Kind != "human" {
					return false
				}
				for h := range byAgent[r.Agent] {
					if h <= T {
						return false
					}
				}
				return byAgent[r.Agent] != nil
			}
			for agent, tasks := range TruncatedScores(ds, include, T) {
				if trunc[agent] == nil {
					trunc[agent] = map[float64]map[string][]float64{}
				}
				trunc[agent][T] = tasks
			}
		}
	}
	agents := make([]string, 0, len(byAgent))
	for a := range byAgent {
		agents = append(agents, a)
	}
	sort.Strings(agents)
	opt := analysis.ScoreAtKOptions{Boot: opts.Boot, Seed: opts.Seed, Level: opts.CI}
	if opts.Select == "holdout" {
		opt.Boot = 0 // the holdout rows carry the uncertainty; observed rows are point estimates
	}
	var rows []Row
	for _, a := range agents {
		var allocs []analysis.Allocation
		lengths := make([]float64, 0, len(byAgent[a]))
		for h := range byAgent[a] {
			lengths = append(lengths, h)
		}
		sort.Float64s(lengths)
		for _, h := range lengths {
			allocs = append(allocs, allocation(h, byAgent[a][h], rand))
		}
		for _, T := range budgets {
			allocsT := allocs
			if tasks, ok := trunc[a][T]; ok {
				allocsT = append(append([]analysis.Allocation{}, allocs...), allocation(T, tasks, rand))
			}
			pts, err := analysis.AllocationCurve(allocsT, []float64{T}, opt)
			if err != nil {
				return err
			}
			for _, w := range analysis.AllocationWarnings(pts) {
				fmt.Fprintf(opts.IO.ErrOut, "warning: %s: %v\n", a, w)
			}
			for _, p := range pts {
				_, isTrunc := trunc[a][T]
				rows = append(rows, Row{Agent: a, BudgetS: p.BudgetS, RunLengthS: p.RunLengthS, K: p.K, NTasks: p.NTasks,
					Estimate: p.Estimate, CILow: p.CILow, CIHigh: p.CIHigh, Best: p.Best, FullTaskSet: p.FullTaskSet, Selection: "observed",
					Truncated: isTrunc && p.RunLengthS == T && byAgent[a][T] == nil})
			}
		}
		if opts.Select == "holdout" {
			for _, T := range budgets {
				h, err := analysis.HoldoutBest(allocs, T, analysis.ScoreAtKOptions{Boot: opts.Boot, Seed: opts.Seed, Level: opts.CI})
				if err != nil {
					continue // no run length divides T
				}
				for _, w := range h.Warnings {
					opts.IO.Warnf("%s: %v", a, w)
				}
				if h.Splits == 0 {
					continue
				}
				mode, n := 0.0, -1
				for l, c := range h.Chosen {
					if c > n || (c == n && l < mode) {
						mode, n = l, c
					}
				}
				k, _ := strconv.Atoi(strconv.FormatFloat(T/mode, 'f', 0, 64))
				rows = append(rows, Row{Agent: a, BudgetS: T, RunLengthS: mode, K: k, NTasks: -1,
					Estimate: h.Estimate, CILow: h.CILow, CIHigh: h.CIHigh, Best: true, FullTaskSet: true, Selection: "holdout"})
			}
		}
	}
	if opts.OnRows != nil {
		opts.OnRows(rows)
	}
	return write(opts, rows)
}

func write(opts *Options, rows []Row) error {
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
	t := cmdutil.Table{Header: []string{"agent", "budget_s", "run_length_s", "k", "n_tasks", "estimate", "ci_low", "ci_high", "best", "full_task_set", "selection", "truncated"}}
	for _, r := range rows {
		nt := strconv.Itoa(r.NTasks)
		if r.NTasks < 0 {
			nt = ""
		}
		t.Rows = append(t.Rows, []string{r.Agent, strconv.FormatFloat(r.BudgetS, 'f', -1, 64), strconv.FormatFloat(r.RunLengthS, 'f', -1, 64),
			strconv.Itoa(r.K), nt, cmdutil.Fixed4(r.Estimate), cmdutil.Fixed4(r.CILow), cmdutil.Fixed4(r.CIHigh), strconv.FormatBool(r.Best), strconv.FormatBool(r.FullTaskSet), r.Selection, strconv.FormatBool(r.Truncated)})
	}
	if opts.Format == cmdutil.FormatCSV {
		return t.WriteCSV(opts.IO.Out)
	}
	return t.WriteText(opts.IO.Out)
}

// allocation builds an Allocation from task → scores, tasks sorted.
func allocation(h float64, byTask map[string][]float64, random map[string]bool) analysis.Allocation {
	al := analysis.Allocation{RunLengthS: h}
	tasks := make([]string, 0, len(byTask))
	for t := range byTask {
		tasks = append(tasks, t)
	}
	sort.Strings(tasks)
	for _, t := range tasks {
		al.Tasks = append(al.Tasks, analysis.TaskScores{Task: t, Scores: byTask[t], Random: random[t]})
	}
	return al
}

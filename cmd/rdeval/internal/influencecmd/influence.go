// Package influencecmd implements `rdeval influence`.
package influencecmd

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/rdeval/rdeval/analysis"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/study"
	"github.com/rdeval/rdeval/ingest"
	"github.com/spf13/cobra"
)

// maxRemove bounds the greedy removal set of --threshold.
const maxRemove = 50

// Options are the parsed flags of `rdeval influence`.
type Options struct {
	IO     *iostreams.IO
	Inputs []string
	Input  cmdutil.InputFlags
	Format string
	// Spec is the statistic: --stat is its kind (scoreatk, success or
	// compare), --k, --a, --b, --budget, --measure and --human-run-length
	// its fields (validated by study.Spec.Validate; success takes none,
	// its cell is what --where selects).
	Spec      study.Spec
	Top       int
	FlagAbove float64
	Threshold float64 // NaN: no removal set
}

// row is one output row.
type row struct {
	Kind    string // run, task, agent or removal
	RunID   string // run and removal rows
	TaskID  string
	Agent   string  // agent rows (and run rows of --stat compare)
	Runs    int     // task and agent rows: runs of the task or agent
	Value   float64 // run rows: the run's score (scoreatk) or 1/0 final success; NaN for tasks
	Without float64 // the statistic without this run or task (removal rows: after removing it and those before)
	Change  float64 // Without − Estimate
	Flag    string  // e.g. "score>2" when the run's score is above --flag-above
}

// result is the statistic and its influence rows.
type result struct {
	Stat     string            // "score@k" or "final_success"
	Group    map[string]string // the selected agent × time limit or framework × model × hint
	Estimate float64
	Tasks    int
	RunCount int
	Rows     []row
	Crossed  *bool // with --threshold: whether the greedy removal crossed it
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
	return compute(opts, ds)
}

// compute runs the command on a loaded dataset.
func compute(opts *Options, ds *ingest.Dataset) error {
	res, err := influence(opts, ds)
	if err != nil {
		return err
	}
	return write(opts, res)
}

// influence computes the statistic and its influence rows.
func influence(opts *Options, ds *ingest.Dataset) (result, error) {
	switch opts.Spec.Kind {
	case "success":
		return success(opts, ds)
	case "compare":
		return compare(opts, ds)
	default:
		return scoreAtK(opts, ds)
	}
}

// unit is one run of the selected group.
type unit struct {
	id, task string
	taskI    int // index of the task
	j        int // index in the task's scores
}

func scoreAtK(opts *Options, ds *ingest.Dataset) (result, error) {
	groups, missing := study.GroupRuns(ds, []string{"agent", "time_limit_s"}, study.Score)
	if len(groups) == 0 {
		return result{}, &cmdutil.BadInputError{Err: fmt.Errorf("no run has a score (%d runs without one): score@k needs normalized scores", missing)}
	}
	if len(groups) > 1 {
		var have []string
		for _, g := range groups {
			n := 0
			for _, t := range g.Tasks {
				n += len(t.Scores)
			}
			have = append(have, fmt.Sprintf("agent=%s time_limit_s=%s (%d runs)", g.Key[0], orNull(g.Key[1]), n))
		}
		sort.Strings(have)
		if len(have) > 20 {
			have = append(have[:20], fmt.Sprintf("… %d more", len(have)-20))
		}
		return result{}, cmdutil.Usagef("--stat scoreatk needs exactly one agent × time limit; --where selects %d:\n  %s", len(groups), strings.Join(have, "\n  "))
	}
	if missing > 0 {
		opts.IO.Warnf("%d runs without a score are left out", missing)
	}
	g := groups[0]
	tasks := g.Tasks
	ids := make([][]string, len(tasks))
	taskIdx := map[string]int{}
	var units []unit
	for ti, t := range tasks {
		taskIdx[t.Task] = ti
		for j, ri := range g.Runs[ti] {
			ids[ti] = append(ids[ti], ds.Runs[ri].RunID)
			units = append(units, unit{id: ds.Runs[ri].RunID, task: t.Task, taskI: ti, j: j})
		}
	}
	est := analysis.ScoreAtKMean(tasks, opts.Spec.K)
	if math.IsNaN(est) {
		return result{}, &cmdutil.BadInputError{Err: fmt.Errorf("no task has %d runs: score@%d is undefined", opts.Spec.K, opts.Spec.K)}
	}
	res := result{Stat: fmt.Sprintf("score@%d", opts.Spec.K), Group: map[string]string{"agent": g.Key[0], "time_limit_s": g.Key[1]},
		Estimate: est, Tasks: len(tasks), RunCount: len(units)}
	runs, tinf := analysis.LeaveOneOutScoreAtK(tasks, opts.Spec.K)
	for i, r := range runs {
		row := row{Kind: "run", RunID: ids[taskIdx[r.Task]][r.Index], TaskID: r.Task, Value: r.Value, Without: r.Without, Change: r.Change}
		if r.Value > opts.FlagAbove {
			row.Flag = "score>" + strconv.FormatFloat(opts.FlagAbove, 'g', -1, 64)
		}
		if opts.Top == 0 || i < opts.Top || row.Flag != "" {
			res.Rows = append(res.Rows, row)
		}
	}
	res.Rows = append(res.Rows, taskRows(tinf, opts.Top)...)
	if !math.IsNaN(opts.Threshold) {
		stat := func(removed []bool) float64 {
			red := make([]analysis.TaskScores, len(tasks))
			for i, t := range tasks {
				red[i] = analysis.TaskScores{Task: t.Task, Random: t.Random}
			}
			for u, x := range units {
				if !removed[u] {
					red[x.taskI].Scores = append(red[x.taskI].Scores, tasks[x.taskI].Scores[x.j])
				}
			}
			return analysis.ScoreAtKMean(red, opts.Spec.K)
		}
		rs := analysis.GreedyRemoval(len(units), stat, opts.Threshold, maxRemove)
		addRemoval(&res, rs, func(u int) (string, string, float64) {
			x := units[u]
			return x.id, x.task, tasks[x.taskI].Scores[x.j]
		})
	}
	return res, nil
}

func taskRows(tinf []analysis.TaskInfluence, top int) []row {
	var out []row
	for i, t := range tinf {
		if top > 0 && i >= top {
			break
		}
		out = append(out, row{Kind: "task", TaskID: t.Task, Runs: t.Runs, Value: math.NaN(), Without: t.Without, Change: t.Change})
	}
	return out
}

func addRemoval(res *result, rs analysis.RemovalSet, info func(int) (string, string, float64)) {
	for i, u := range rs.Removed {
		id, task, v := info(u)
		res.Rows = append(res.Rows, row{Kind: "removal", RunID: id, TaskID: task, Value: v, Without: rs.Path[i], Change: rs.Path[i] - res.Estimate})
	}
	c := rs.Crossed
	res.Crossed = &c
}

func success(opts *Options, ds *ingest.Dataset) (result, error) {
	cells, index, skipped := study.OutcomeCells(ds)
	if len(cells) == 0 {
		return result{}, study.ErrNoOutcomes
	}
	if len(cells) > 1 {
		var have []string
		for c, runs := range cells {
			have = append(have, fmt.Sprintf("framework=%s model=%s hint_level=%s (%d runs)", c.Framework, c.Model, c.Hint, len(runs)))
		}
		sort.Strings(have)
		if len(have) > 20 {
			have = append(have[:20], fmt.Sprintf("… %d more", len(have)-20))
		}
		return result{}, cmdutil.Usagef("--stat success needs exactly one framework × model × hint level; --where selects %d:\n  %s", len(cells), strings.Join(have, "\n  "))
	}
	if skipped > 0 {
		opts.IO.Notef("%d runs without success information are left out", skipped)
	}
	var c study.CellKey
	var runs []analysis.OutcomeRun
	var ids []string
	for k, v := range cells {
		c, runs = k, v
		for _, i := range index[k] {
			ids = append(ids, ds.Runs[i].RunID)
		}
	}
	est := analysis.FinalSuccessMean(runs)
	res := result{Stat: "final_success", Group: map[string]string{"framework": c.Framework, "model": c.Model, "hint_level": c.Hint},
		Estimate: est, RunCount: len(runs)}
	ri, tinf := analysis.LeaveOneOutSuccess(runs)
	res.Tasks = len(tinf)
	for i, r := range ri {
		if opts.Top > 0 && i >= opts.Top {
			break
		}
		res.Rows = append(res.Rows, row{Kind: "run", RunID: ids[r.Index], TaskID: r.Task, Value: r.Value, Without: r.Without, Change: r.Change})
	}
	res.Rows = append(res.Rows, taskRows(tinf, opts.Top)...)
	if !math.IsNaN(opts.Threshold) {
		stat := func(removed []bool) float64 {
			keep := make([]analysis.OutcomeRun, 0, len(runs))
			for i, r := range runs {
				if !removed[i] {
					keep = append(keep, r)
				}
			}
			return analysis.FinalSuccessMean(keep)
		}
		rs := analysis.GreedyRemoval(len(runs), stat, opts.Threshold, maxRemove)
		addRemoval(&res, rs, func(u int) (string, string, float64) { return ids[u], runs[u].Task, b2f(runs[u].Final) })
	}
	return res, nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func orNull(s string) string {
	if s == "" {
		return "null"
	}
	return s
}

func groupText(g map[string]string) string {
	keys := make([]string, 0, len(g))
	for k := range g {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, k+"="+orNull(g[k]))
	}
	return strings.Join(parts, " ")
}

func write(opts *Options, res result) error {
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
		caption := fmt.Sprintf("Influence on %s (%s; %d tasks, %d runs): the statistic without each run, task or agent (leave-one-out) and the change.", res.Stat, groupText(res.Group), res.Tasks, res.RunCount)
		if res.Crossed != nil {
			caption += fmt.Sprintf(" Threshold %s crossed: %t.", strconv.FormatFloat(opts.Threshold, 'g', -1, 64), *res.Crossed)
		}
		return t.Cite(opts.IO, caption).WriteLaTeX(opts.IO.Out)
	}
	fmt.Fprintf(opts.IO.Out, "%s, %s: %s (%d tasks, %d runs)\n", res.Stat, groupText(res.Group), cmdutil.Fixed4(res.Estimate), res.Tasks, res.RunCount)
	if res.Crossed != nil {
		verdict := "crossed"
		if !*res.Crossed {
			verdict = fmt.Sprintf("not crossed within %d removals", maxRemove)
		}
		fmt.Fprintf(opts.IO.Out, "threshold %s: %s\n", strconv.FormatFloat(opts.Threshold, 'g', -1, 64), verdict)
	}
	return t.WriteText(opts.IO.Out)
}

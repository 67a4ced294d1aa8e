// Package scoreatkcmd implements `rdeval scoreatk`.
package scoreatkcmd

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/rdeval/rdeval/analysis"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/rdeval/rdeval/ingest"
	"github.com/spf13/cobra"
)

// Options are the parsed flags of `rdeval scoreatk`.
type Options struct {
	IO     *iostreams.IO
	Inputs []string
	Input  cmdutil.InputFlags
	Format string
	Ks     []int
	By     []string
	Boot   int
	Seed   uint64
	CI     float64
	Short  string
	Method string
	// BootUnit is what the bootstrap resamples: runs (within tasks; "" too) or tasks.
	BootUnit string
	// TaskWeights is a CSV file task_id,weight for a weighted cross-task mean.
	TaskWeights string
	// OnRows, if set, receives the computed rows (rdeval report draws figures from them).
	OnRows func([]Row)
}

// NewCmd builds the cobra command; runF replaces Run in tests.
func NewCmd(io *iostreams.IO, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: io}
	cmd := &cobra.Command{
		Use:   "scoreatk INPUT...",
		Short: "score@k per agent and time limit, with bootstrap confidence intervals",
		Long: `Compute score@k: for each group (default: agent × time limit) and each k, the
mean over tasks of each task's exact expected best of k runs drawn without
replacement from its n runs,

  score@k = Σ_i C(n−i, k−1)/C(n, k) · s_(i),   s_(1) ≥ … ≥ s_(n)

(arXiv 2406.06647 Alg. 1, as in METR's RE-Bench code). Tasks whose selection is
random (small_scaling_law) use the mean for every k. Tasks with fewer than k runs
are dropped from the mean and named (--short-tasks truncate uses k = n instead).
The default k list is the powers of two up to half the runs of each group's
smallest task.

The interval comes from B resamples of each task's runs, tasks fixed; --seed
makes it identical across runs and machines. Resamples repeat runs, so score@k
of a resample is biased low when k is a large fraction of n. --interval, with
the coverage of 95 % intervals simulated on 7 tasks with Beta or zero-inflated
Beta scores, n = 8 and 16 runs per task (1,000 studies each, SE 0.007):
  studentized (default)  bootstrap-t: the resamples' (U* − V)/se*, V the
                         with-replacement expected best of k of the observed
                         runs, se the jackknife standard error; the interval is
                         U − t*·se. Covers 0.935–0.963 at every k ≤ n/2
                         (0.96–0.98 at k = n, with wide intervals); 10–50 %
                         wider than percentile. Can reach past the scores'
                         range with few runs.
  percentile             METR's: 0.905–0.941 at k = 1, 0.84–0.89 at k = n/4,
                         0.71–0.76 at k = n/2, about 0.5 at k = n.
  bca                    bias-corrected and accelerated: 0.92–0.94 at k = 1,
                         0.59–0.68 at k = n/2, and zero width at k = n.
(docs/scoreatk-coverage.md has the table.) A k above half the smallest task's
runs gets a warning.

--boot-unit tasks resamples tasks instead, each with its observed runs, as
multiverse does (a percentile interval over tasks, whatever --interval says):
the interval then also counts task-to-task variation, and it is the only one
with width when each task has one run (Inspect logs: one run per sample), which
gets a warning. A group that covers fewer tasks than another in the same table
gets a warning too: its mean is over other tasks. Runs use the normalized score column; runs without a
score are left out and counted.`,
		Example: `  rdeval scoreatk --demo --where benchmark=re-bench --k 1,4,16 --seed 1    # the embedded demo study
  rdeval scoreatk all_runs.jsonl --where benchmark=re-bench
  rdeval scoreatk study/ --k 1,2,4,8,16 --boot 10000 --seed 1 --format json
  rdeval scoreatk study/ --by agent --where time_limit_s=1800 --format csv`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Inputs = args
			if err := cmdutil.CheckFormat(opts.Format, cmdutil.FormatTable, cmdutil.FormatJSON, cmdutil.FormatCSV); err != nil {
				return err
			}
			for _, k := range opts.Ks {
				if k < 1 {
					return cmdutil.Usagef("--k %d: k must be a positive integer", k)
				}
			}
			if opts.Boot < 0 {
				return cmdutil.Usagef("--boot %d: want 0 (no interval) or more replicates", opts.Boot)
			}
			if !(opts.CI > 0 && opts.CI < 1) {
				return cmdutil.Usagef("--ci %v: want a level between 0 and 1, e.g. 0.95", opts.CI)
			}
			if opts.Method == "" {
				opts.Method = "studentized"
			}
			if opts.Method != "percentile" && opts.Method != "bca" && opts.Method != "studentized" {
				return cmdutil.Usagef("--interval %q: want studentized, percentile or bca", opts.Method)
			}
			if opts.BootUnit != "runs" && opts.BootUnit != "tasks" {
				return cmdutil.Usagef("--boot-unit %q: want runs or tasks", opts.BootUnit)
			}
			if opts.Short != "drop" && opts.Short != "truncate" {
				return cmdutil.Usagef("--short-tasks %q: want drop or truncate", opts.Short)
			}
			for _, b := range opts.By {
				if !ingest.IsRunColumn(b) {
					return cmdutil.Usagef("--by %q: not a runs column", b)
				}
			}
			if runF != nil {
				return runF(opts)
			}
			return Run(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Format, "format", cmdutil.FormatTable, "output: table, json or csv")
	fl.IntSliceVar(&opts.Ks, "k", nil, "values of k (default: powers of two up to the smallest task's run count in each group)")
	fl.StringSliceVar(&opts.By, "by", []string{"agent", "time_limit_s"}, "group runs by these columns")
	fl.IntVar(&opts.Boot, "boot", 10000, "bootstrap replicates (0: no interval)")
	fl.Uint64Var(&opts.Seed, "seed", 1, "bootstrap seed")
	fl.Float64Var(&opts.CI, "ci", 0.95, "confidence level of the interval")
	fl.StringVar(&opts.Short, "short-tasks", "drop", "tasks with fewer than k runs: drop (and name them) or truncate (use k = n)")
	fl.StringVar(&opts.Method, "interval", "studentized", "bootstrap interval: studentized (bootstrap-t), percentile or bca (bias-corrected and accelerated)")
	fl.StringVar(&opts.BootUnit, "boot-unit", "runs", "what the bootstrap resamples: runs (within tasks, tasks fixed) or tasks")
	fl.StringVar(&opts.TaskWeights, "task-weights", "", "CSV file with columns task_id,weight: weight of each task in the cross-task mean (default: equal)")
	cmdutil.AddInputFlags(cmd, &opts.Input, true)
	return cmd
}

// Row is one output row (the JSON object; --by keys are added by name).
type Row struct {
	Group        map[string]string
	K            int
	NTasks       int
	TasksDropped []string
	Estimate     float64
	BootMean     float64
	CILow        float64
	CIHigh       float64
}

// Run computes and prints score@k.
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
	weights, err := cmdutil.ReadTaskWeights(opts.TaskWeights)
	if err != nil {
		return err
	}
	random := map[string]bool{}
	for _, t := range ds.Tasks {
		if t.Selection.Valid && t.Selection.V == "random" {
			random[t.Benchmark+"\x00"+t.TaskID] = true
		}
	}
	type group struct {
		key   []string
		tasks map[string][]float64
		rand  map[string]bool
	}
	groups := map[string]*group{}
	missing := 0
	for i := range ds.Runs {
		r := &ds.Runs[i]
		if !r.Score.Valid {
			missing++
			continue
		}
		key := make([]string, len(opts.By))
		for j, b := range opts.By {
			if v, ok := ingest.RunValue(r, b); ok {
				key[j] = v
			} // null (e.g. METR's human time limit): "" here, null in JSON
		}
		id := strings.Join(key, "\x00")
		g := groups[id]
		if g == nil {
			g = &group{key: key, tasks: map[string][]float64{}, rand: map[string]bool{}}
			groups[id] = g
		}
		g.tasks[r.TaskID] = append(g.tasks[r.TaskID], r.Score.V)
		if random[r.Benchmark+"\x00"+r.TaskID] {
			g.rand[r.TaskID] = true
		}
	}
	if len(groups) == 0 {
		return &cmdutil.BadInputError{Err: fmt.Errorf("no run has a score (%d runs without one): score@k needs normalized scores", missing)}
	}
	if missing > 0 {
		opts.IO.Warnf("%d runs without a score are left out", missing)
	}
	ids := make([]string, 0, len(groups))
	for id := range groups {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return lessKey(groups[ids[i]].key, groups[ids[j]].key) })
	// The groups' curves are computed concurrently (each is a pure
	// function of its tasks, seed and options, so the order does not
	// change a number): one group's serial steps (sorting, tables, the end
	// of its bootstrap) then overlap another's bootstrap instead of idling
	// a core. Warnings and rows follow in group order.
	type curve struct {
		tasks []analysis.TaskScores
		ks    []int
		pts   []analysis.ScoreAtKPoint
		err   error
	}
	curves := make([]curve, len(ids))
	for gi, id := range ids {
		g := groups[id]
		names := make([]string, 0, len(g.tasks))
		for t := range g.tasks {
			names = append(names, t)
		}
		sort.Strings(names)
		tasks := make([]analysis.TaskScores, len(names))
		minN := math.MaxInt
		for i, t := range names {
			tasks[i] = analysis.TaskScores{Task: t, Scores: g.tasks[t], Random: g.rand[t]}
			if weights != nil {
				w, ok := weights[t]
				if !ok {
					return &cmdutil.BadInputError{Err: fmt.Errorf("--task-weights %s: no weight for task %q", opts.TaskWeights, t)}
				}
				tasks[i].Weight = w
			}
			if !g.rand[t] && len(g.tasks[t]) < minN {
				minN = len(g.tasks[t])
			}
		}
		ks := opts.Ks
		if len(ks) == 0 {
			if minN == math.MaxInt {
				minN = 1
			}
			for k := 1; k <= max(1, minN/2); k *= 2 {
				ks = append(ks, k)
			}
		}
		curves[gi] = curve{tasks: tasks, ks: ks}
	}
	short := analysis.DropShort
	if opts.Short == "truncate" {
		short = analysis.TruncateShort
	}
	interval := analysis.Studentized // the default ("")
	switch opts.Method {
	case "percentile":
		interval = analysis.Percentile
	case "bca":
		interval = analysis.BCa
	}
	byTasks := opts.BootUnit == "tasks"
	// A group over fewer tasks than another in the same table averages
	// over other tasks: say which are missing (not when the groups are
	// tasks, --by task_id).
	allTasks := map[string]bool{}
	if !slices.Contains(opts.By, "task_id") {
		for _, g := range groups {
			for t := range g.tasks {
				allTasks[t] = true
			}
		}
	}
	var wg sync.WaitGroup
	running := make(chan struct{}, runtime.GOMAXPROCS(0))
	for gi := range curves {
		c := &curves[gi]
		running <- struct{}{}
		wg.Go(func() {
			defer func() { <-running }()
			c.pts, c.err = analysis.ScoreAtKCurve(c.tasks, analysis.ScoreAtKOptions{Ks: c.ks, Boot: opts.Boot, Seed: opts.Seed, Level: opts.CI, Short: short, Interval: interval, ResampleTasks: byTasks})
		})
	}
	wg.Wait()
	var rows []Row
	for gi, id := range ids {
		g := groups[id]
		pts, err := curves[gi].pts, curves[gi].err
		if err != nil {
			return err
		}
		group := map[string]string{}
		for j, b := range opts.By {
			group[b] = g.key[j]
		}
		if len(g.tasks) < len(allTasks) {
			var miss []string
			for t := range allTasks {
				if _, ok := g.tasks[t]; !ok {
					miss = append(miss, t)
				}
			}
			sort.Strings(miss)
			fmt.Fprintf(opts.IO.ErrOut, "warning: %s: covers %d of the %d tasks in this table (missing: %s); its score@k averages over other tasks than the other groups'\n",
				strings.Join(g.key, " / "), len(g.tasks), len(allTasks), strings.Join(miss, ", "))
		}
		// One line per group for the tasks left out for having fewer than
		// k runs (they are listed in the tasks_dropped column too).
		var shortK []string
		for _, p := range pts {
			for _, w := range p.Warnings {
				var sw *analysis.ShortTasksWarning
				if errors.As(w, &sw) {
					shortK = append(shortK, fmt.Sprintf("k=%d: %d of %d", sw.K, len(sw.Dropped), len(sw.Dropped)+p.NTasks))
					continue
				}
				opts.IO.Warnf("%s: %v", strings.Join(g.key, " / "), w)
			}
		}
		if len(shortK) > 0 {
			opts.IO.Warnf("%s: tasks with fewer than k runs are left out (see tasks_dropped): %s", strings.Join(g.key, " / "), strings.Join(shortK, ", "))
		}
		for _, p := range pts {
			rows = append(rows, Row{Group: group, K: p.K, NTasks: p.NTasks, TasksDropped: p.Dropped,
				Estimate: p.Estimate, BootMean: p.BootMean, CILow: p.CILow, CIHigh: p.CIHigh})
		}
	}
	if opts.OnRows != nil {
		opts.OnRows(rows)
	}
	return write(opts, rows)
}

func lessKey(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			ai, errA := strconv.ParseFloat(a[i], 64)
			bi, errB := strconv.ParseFloat(b[i], 64)
			if errA == nil && errB == nil {
				return ai < bi
			}
			return a[i] < b[i]
		}
	}
	return false
}

// num is a JSON number that is null when NaN.

func write(opts *Options, rows []Row) error {
	switch opts.Format {
	case cmdutil.FormatJSON:
		out := make([]map[string]any, len(rows))
		for i, r := range rows {
			m := map[string]any{}
			for k, v := range r.Group {
				if k == "time_limit_s" {
					if n, err := strconv.ParseInt(v, 10, 64); err == nil {
						m[k] = n
						continue
					}
					if v == "" {
						m[k] = nil
						continue
					}
				}
				m[k] = v
			}
			dropped := r.TasksDropped
			if dropped == nil {
				dropped = []string{}
			}
			m["k"], m["n_tasks"], m["tasks_dropped"] = r.K, r.NTasks, dropped
			m["estimate"], m["boot_mean"], m["ci_low"], m["ci_high"] = cmdutil.JSONNum(r.Estimate), cmdutil.JSONNum(r.BootMean), cmdutil.JSONNum(r.CILow), cmdutil.JSONNum(r.CIHigh)
			out[i] = m
		}
		return cmdutil.WriteJSON(opts.IO.Out, out)
	}
	t := cmdutil.Table{Header: append(append([]string{}, opts.By...), "k", "n_tasks", "tasks_dropped", "estimate", "boot_mean", "ci_low", "ci_high")}
	for _, r := range rows {
		var row []string
		for _, b := range opts.By {
			row = append(row, r.Group[b])
		}
		row = append(row, strconv.Itoa(r.K), strconv.Itoa(r.NTasks), strings.Join(r.TasksDropped, ";"),
			cmdutil.Fixed4(r.Estimate), cmdutil.Fixed4(r.BootMean), cmdutil.Fixed4(r.CILow), cmdutil.Fixed4(r.CIHigh))
		t.Rows = append(t.Rows, row)
	}
	if opts.Format == cmdutil.FormatCSV {
		return t.WriteCSV(opts.IO.Out)
	}
	return t.WriteText(opts.IO.Out)
}

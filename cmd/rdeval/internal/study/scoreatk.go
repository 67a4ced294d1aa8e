package study

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
	"github.com/rdeval/rdeval/ingest"
)

// ScoreAtKParams are the choices of a score@k computation.
type ScoreAtKParams struct {
	By       []string // group runs by these runs columns
	Ks       []int    // values of k; nil: powers of two up to half of each group's smallest task
	Boot     int      // bootstrap replicates (0: no interval)
	Seed     uint64
	CI       float64 // confidence level, in (0, 1)
	Short    analysis.ShortTasks
	Interval analysis.Interval // the zero value is Percentile
	// ResampleTasks resamples tasks, each with its runs, instead of runs
	// within tasks (--boot-unit tasks).
	ResampleTasks bool
	// Weights, if not nil, is each task_id's weight in the cross-task
	// mean; WeightsFile names where they came from (for the error of a
	// task without one).
	Weights     map[string]float64
	WeightsFile string
}

// ScoreAtKRow is one group at one k.
type ScoreAtKRow struct {
	Group        map[string]string
	K            int
	NTasks       int
	TasksDropped []string
	Estimate     float64
	BootMean     float64
	CILow        float64
	CIHigh       float64
}

// ScoreAtKResult is score@k per group and k, in group order.
type ScoreAtKResult struct {
	By       []string
	Rows     []ScoreAtKRow
	Warnings []error
}

// ScoreAtK computes score@k per group (p.By) and k over the runs with a
// score. Runs without one are left out (a warning); with no scored run at
// all it fails with a cmdutil.BadInputError. The warnings found before a
// failure are on the result returned with the error.
func ScoreAtK(ds *ingest.Dataset, p ScoreAtKParams) (ScoreAtKResult, error) {
	res := ScoreAtKResult{By: p.By}
	groups, missing := GroupRuns(ds, p.By, Score)
	if len(groups) == 0 {
		return res, &cmdutil.BadInputError{Err: fmt.Errorf("no run has a score (%d runs without one): score@k needs normalized scores", missing)}
	}
	if missing > 0 {
		res.Warnings = append(res.Warnings, fmt.Errorf("%d runs without a score are left out", missing))
	}
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
	curves := make([]curve, len(groups))
	for gi, g := range groups {
		tasks := g.Tasks
		minN := math.MaxInt
		for i, t := range tasks {
			if p.Weights != nil {
				w, ok := p.Weights[t.Task]
				if !ok {
					return res, &cmdutil.BadInputError{Err: fmt.Errorf("--task-weights %s: no weight for task %q", p.WeightsFile, t.Task)}
				}
				tasks[i].Weight = w
			}
			if !t.Random && len(t.Scores) < minN {
				minN = len(t.Scores)
			}
		}
		ks := p.Ks
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
	// A group over fewer tasks than another in the same table averages
	// over other tasks: say which are missing (not when the groups are
	// tasks, --by task_id).
	allTasks := map[string]bool{}
	if !slices.Contains(p.By, "task_id") {
		for _, g := range groups {
			for _, t := range g.Tasks {
				allTasks[t.Task] = true
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
			c.pts, c.err = analysis.ScoreAtKCurve(c.tasks, analysis.ScoreAtKOptions{Ks: c.ks, Boot: p.Boot, Seed: p.Seed, Level: p.CI, Short: p.Short, Interval: p.Interval, ResampleTasks: p.ResampleTasks})
		})
	}
	wg.Wait()
	for gi, g := range groups {
		pts, err := curves[gi].pts, curves[gi].err
		if err != nil {
			return res, err
		}
		group := map[string]string{}
		for j, b := range p.By {
			group[b] = g.Key[j]
		}
		have := map[string]bool{}
		for _, t := range g.Tasks {
			have[t.Task] = true
		}
		if len(have) < len(allTasks) {
			var miss []string
			for t := range allTasks {
				if !have[t] {
					miss = append(miss, t)
				}
			}
			sort.Strings(miss)
			res.Warnings = append(res.Warnings, fmt.Errorf("%s: covers %d of the %d tasks in this table (missing: %s); its score@k averages over other tasks than the other groups'",
				strings.Join(g.Key, " / "), len(have), len(allTasks), strings.Join(miss, ", ")))
		}
		// One warning per group for the tasks left out for having fewer
		// than k runs (they are listed in the tasks_dropped column too).
		var shortK []string
		for _, pt := range pts {
			for _, w := range pt.Warnings {
				var sw *analysis.ShortTasksWarning
				if errors.As(w, &sw) {
					shortK = append(shortK, fmt.Sprintf("k=%d: %d of %d", sw.K, len(sw.Dropped), len(sw.Dropped)+pt.NTasks))
					continue
				}
				res.Warnings = append(res.Warnings, fmt.Errorf("%s: %w", strings.Join(g.Key, " / "), w))
			}
		}
		if len(shortK) > 0 {
			res.Warnings = append(res.Warnings, fmt.Errorf("%s: tasks with fewer than k runs are left out (see tasks_dropped): %s", strings.Join(g.Key, " / "), strings.Join(shortK, ", ")))
		}
		for _, pt := range pts {
			res.Rows = append(res.Rows, ScoreAtKRow{Group: group, K: pt.K, NTasks: pt.NTasks, TasksDropped: pt.Dropped,
				Estimate: pt.Estimate, BootMean: pt.BootMean, CILow: pt.CILow, CIHigh: pt.CIHigh})
		}
	}
	return res, nil
}

// Table is the result as rdeval scoreatk prints it (--format table or csv;
// the report's scoreatk.csv).
func (r *ScoreAtKResult) Table() *cmdutil.Table {
	t := &cmdutil.Table{Header: append(append([]string{}, r.By...), "k", "n_tasks", "tasks_dropped", "estimate", "boot_mean", "ci_low", "ci_high")}
	for _, row := range r.Rows {
		var cells []string
		for _, b := range r.By {
			cells = append(cells, row.Group[b])
		}
		cells = append(cells, strconv.Itoa(row.K), strconv.Itoa(row.NTasks), strings.Join(row.TasksDropped, ";"),
			cmdutil.Fixed4(row.Estimate), cmdutil.Fixed4(row.BootMean), cmdutil.Fixed4(row.CILow), cmdutil.Fixed4(row.CIHigh))
		t.Rows = append(t.Rows, cells)
	}
	return t
}

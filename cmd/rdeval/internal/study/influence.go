package study

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/rdeval/rdeval/analysis"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/ingest"
)

// InfluenceMaxRemove bounds the greedy removal set of a threshold.
const InfluenceMaxRemove = 50

// InfluenceParams are the choices of an influence analysis.
type InfluenceParams struct {
	// Spec is the statistic: kind scoreatk (K), success (no field: the
	// cell is the data's one) or compare (A, B, Budget, Measure,
	// HumanRunLength); scoreatk and compare validated (Spec.Validate).
	Spec      Spec
	Top       int     // keep the Top largest rows of each kind (0: all); flagged runs always
	FlagAbove float64 // flag runs whose score is above this
	Threshold float64 // NaN: no removal set
}

// InfluenceRow is one run, task, agent or removal step.
type InfluenceRow struct {
	Kind    string // run, task, agent or removal
	RunID   string // run and removal rows
	TaskID  string
	Agent   string  // agent rows (and run rows of compare)
	Runs    int     // task and agent rows: runs of the task or agent
	Value   float64 // run rows: the run's score (scoreatk, compare) or 1/0 final success; NaN for tasks and agents
	Without float64 // the statistic without this run, task or agent (removal rows: after removing it and those before)
	Change  float64 // Without − Estimate
	Flag    string  // e.g. "score>2" when the run's score is above FlagAbove
}

// InfluenceResult is the statistic and its influence rows.
type InfluenceResult struct {
	Stat     string            // "score@k", "final_success" or "ratio A/B at 8h (k_A=…, k_B=…)"
	Group    map[string]string // the selected agent × time limit, framework × model × hint, or a and b
	Estimate float64
	Tasks    int
	RunCount int
	Rows     []InfluenceRow
	Crossed  *bool // with a threshold: whether the greedy removal crossed it
	Skipped  int   // success: runs without success information, left out (a note)
	Warnings []error
}

// Influence recomputes the statistic of p.Spec without each run and each
// task (leave-one-out; compare also without each agent): Change =
// Without − Estimate. Rows are sorted by |change|, largest first, and the
// p.Top largest of each kind are kept, plus runs scored above
// p.FlagAbove. scoreatk is the mean over tasks of score@k of the one
// agent × time limit in ds (tasks with fewer than k runs left out);
// success the final-success headline (mean over tasks of per-task rates)
// of the one framework × model × hint cell; compare the point estimate of
// rdeval compare (A's mean score@k_A over B's, or their difference, on
// shared tasks at the budget; NaN where undefined). With a threshold, the
// removal rows are a greedy set of at most InfluenceMaxRemove runs
// (analysis.GreedyRemoval) whose removal moves the statistic across it.
// Data of more than one group is a usage error listing the groups.
func Influence(ds *ingest.Dataset, p InfluenceParams) (InfluenceResult, error) {
	switch p.Spec.Kind {
	case "success":
		return influenceSuccess(ds, p)
	case "compare":
		return influenceCompare(ds, p)
	default:
		return influenceScoreAtK(ds, p)
	}
}

// GroupText is the group as "column=value …", sorted by column.
func (r *InfluenceResult) GroupText() string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(r.Group)) {
		parts = append(parts, k+"="+orNull(r.Group[k]))
	}
	return strings.Join(parts, " ")
}

func orNull(s string) string {
	if s == "" {
		return "null"
	}
	return s
}

// influenceUnit is one run of the selected group.
type influenceUnit struct {
	id, task string
	taskI    int // index of the task
	j        int // index in the task's scores
}

func influenceScoreAtK(ds *ingest.Dataset, p InfluenceParams) (InfluenceResult, error) {
	var res InfluenceResult
	k := p.Spec.K
	groups, missing := GroupRuns(ds, []string{"agent", "time_limit_s"}, Score)
	if len(groups) == 0 {
		return res, &cmdutil.BadInputError{Err: fmt.Errorf("no run has a score (%d runs without one): score@k needs normalized scores", missing)}
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
		return res, usageGroups("--stat scoreatk needs exactly one agent × time limit", have)
	}
	if missing > 0 {
		res.Warnings = append(res.Warnings, fmt.Errorf("%d runs without a score are left out", missing))
	}
	g := groups[0]
	tasks := g.Tasks
	ids := make([][]string, len(tasks))
	taskIdx := map[string]int{}
	var units []influenceUnit
	for ti, t := range tasks {
		taskIdx[t.Task] = ti
		for j, ri := range g.Runs[ti] {
			ids[ti] = append(ids[ti], ds.Runs[ri].RunID)
			units = append(units, influenceUnit{id: ds.Runs[ri].RunID, task: t.Task, taskI: ti, j: j})
		}
	}
	est := analysis.ScoreAtKMean(tasks, k)
	if math.IsNaN(est) {
		return res, &cmdutil.BadInputError{Err: fmt.Errorf("no task has %d runs: score@%d is undefined", k, k)}
	}
	res.Stat, res.Group = fmt.Sprintf("score@%d", k), map[string]string{"agent": g.Key[0], "time_limit_s": g.Key[1]}
	res.Estimate, res.Tasks, res.RunCount = est, len(tasks), len(units)
	runs, tinf := analysis.LeaveOneOutScoreAtK(tasks, k)
	for i, r := range runs {
		row := InfluenceRow{Kind: "run", RunID: ids[taskIdx[r.Task]][r.Index], TaskID: r.Task, Value: r.Value, Without: r.Without, Change: r.Change}
		if r.Value > p.FlagAbove {
			row.Flag = "score>" + strconv.FormatFloat(p.FlagAbove, 'g', -1, 64)
		}
		if p.Top == 0 || i < p.Top || row.Flag != "" {
			res.Rows = append(res.Rows, row)
		}
	}
	res.Rows = append(res.Rows, taskRows(tinf, p.Top)...)
	if !math.IsNaN(p.Threshold) {
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
			return analysis.ScoreAtKMean(red, k)
		}
		rs := analysis.GreedyRemoval(len(units), stat, p.Threshold, InfluenceMaxRemove)
		res.addRemoval(rs, func(u int) (string, string, float64) {
			x := units[u]
			return x.id, x.task, tasks[x.taskI].Scores[x.j]
		})
	}
	return res, nil
}

// usageGroups is the usage error of data with more than one group: the
// first 20 of them, sorted.
func usageGroups(what string, have []string) error {
	sort.Strings(have)
	n := len(have)
	if n > 20 {
		have = append(have[:20], fmt.Sprintf("… %d more", n-20))
	}
	return cmdutil.Usagef("%s; --where selects %d:\n  %s", what, n, strings.Join(have, "\n  "))
}

func taskRows(tinf []analysis.TaskInfluence, top int) []InfluenceRow {
	var out []InfluenceRow
	for i, t := range tinf {
		if top > 0 && i >= top {
			break
		}
		out = append(out, InfluenceRow{Kind: "task", TaskID: t.Task, Runs: t.Runs, Value: math.NaN(), Without: t.Without, Change: t.Change})
	}
	return out
}

func (res *InfluenceResult) addRemoval(rs analysis.RemovalSet, info func(int) (string, string, float64)) {
	for i, u := range rs.Removed {
		id, task, v := info(u)
		res.Rows = append(res.Rows, InfluenceRow{Kind: "removal", RunID: id, TaskID: task, Value: v, Without: rs.Path[i], Change: rs.Path[i] - res.Estimate})
	}
	c := rs.Crossed
	res.Crossed = &c
}

func influenceSuccess(ds *ingest.Dataset, p InfluenceParams) (InfluenceResult, error) {
	var res InfluenceResult
	cells, index, skipped := OutcomeCells(ds)
	if len(cells) == 0 {
		return res, ErrNoOutcomes
	}
	if len(cells) > 1 {
		var have []string
		for c, runs := range cells {
			have = append(have, fmt.Sprintf("framework=%s model=%s hint_level=%s (%d runs)", c.Framework, c.Model, c.Hint, len(runs)))
		}
		return res, usageGroups("--stat success needs exactly one framework × model × hint level", have)
	}
	res.Skipped = skipped
	var c CellKey
	var runs []analysis.OutcomeRun
	var ids []string
	for k, v := range cells {
		c, runs = k, v
		for _, i := range index[k] {
			ids = append(ids, ds.Runs[i].RunID)
		}
	}
	res.Stat, res.Group = "final_success", map[string]string{"framework": c.Framework, "model": c.Model, "hint_level": c.Hint}
	res.Estimate, res.RunCount = analysis.FinalSuccessMean(runs), len(runs)
	ri, tinf := analysis.LeaveOneOutSuccess(runs)
	res.Tasks = len(tinf)
	for i, r := range ri {
		if p.Top > 0 && i >= p.Top {
			break
		}
		res.Rows = append(res.Rows, InfluenceRow{Kind: "run", RunID: ids[r.Index], TaskID: r.Task, Value: r.Value, Without: r.Without, Change: r.Change})
	}
	res.Rows = append(res.Rows, taskRows(tinf, p.Top)...)
	if !math.IsNaN(p.Threshold) {
		stat := func(removed []bool) float64 {
			keep := make([]analysis.OutcomeRun, 0, len(runs))
			for i, r := range runs {
				if !removed[i] {
					keep = append(keep, r)
				}
			}
			return analysis.FinalSuccessMean(keep)
		}
		rs := analysis.GreedyRemoval(len(runs), stat, p.Threshold, InfluenceMaxRemove)
		res.addRemoval(rs, func(u int) (string, string, float64) {
			if runs[u].Final {
				return ids[u], runs[u].Task, 1
			}
			return ids[u], runs[u].Task, 0
		})
	}
	return res, nil
}

// compareStat is the point estimate of rdeval compare (no bootstrap) of
// the validated spec: the ratio (or difference) of group A's mean
// score@k_A to group B's mean score@k_B over their shared tasks, k =
// budget / run length (runs longer than the budget read at it from score
// logs). NaN when it cannot be computed (a group left without runs, no
// shared task, B's mean 0).
func compareStat(ds *ingest.Dataset, sp *Spec) float64 {
	e, err := sp.Evaluate(ds, EvalParams{})
	if err != nil {
		return math.NaN()
	}
	return e.Value
}

// influenceCompare is the compare statistic's leave-one-agent-out,
// leave-one-task-out and leave-one-run-out changes of the A/B ratio (or
// difference). Every "without" value is the statistic recomputed from
// scratch on the runs left (compareStat, or the same on the runs' scores,
// checked equal on all runs), so runs read at the budget from score logs
// are handled as rdeval compare handles them.
func influenceCompare(ds *ingest.Dataset, p InfluenceParams) (InfluenceResult, error) {
	sp := &p.Spec
	budget, humanLen := sp.BudgetLen.Seconds(), sp.HumanLen.Seconds()
	ga, err := ParseGroup(sp.A)
	if err != nil {
		return InfluenceResult{}, err
	}
	gb, err := ParseGroup(sp.B)
	if err != nil {
		return InfluenceResult{}, err
	}
	// Keep only the runs of A or B: the others cannot change the statistic.
	sub := &ingest.Dataset{Scores: ds.Scores, Tasks: ds.Tasks}
	for i := range ds.Runs {
		if r := &ds.Runs[i]; InGroup(r, ga) || InGroup(r, gb) {
			sub.Runs = append(sub.Runs, *r)
		}
	}
	sa, _, err := Side(sub, sp.A, budget, humanLen)
	if err != nil {
		return InfluenceResult{}, err
	}
	sb, _, err := Side(sub, sp.B, budget, humanLen)
	if err != nil {
		return InfluenceResult{}, err
	}
	c, err := analysis.Compare(sa, sb, analysis.ScoreAtKOptions{})
	if err != nil {
		return InfluenceResult{}, &cmdutil.BadInputError{Err: err}
	}
	stat := func(keep func(*ingest.Run) bool) float64 {
		red := &ingest.Dataset{Scores: sub.Scores, Tasks: sub.Tasks}
		for i := range sub.Runs {
			if keep(&sub.Runs[i]) {
				red.Runs = append(red.Runs, sub.Runs[i])
			}
		}
		return compareStat(red, sp)
	}
	est := compareStat(sub, sp)
	if math.IsNaN(est) {
		return InfluenceResult{}, &cmdutil.BadInputError{Err: fmt.Errorf("the %s is undefined (B's mean score is 0)", sp.Measure)}
	}
	res := InfluenceResult{Stat: fmt.Sprintf("%s A/B at %s (k_A=%d, k_B=%d)", sp.Measure, sp.Budget, sa.K, sb.K),
		Group: map[string]string{"a": sp.A, "b": sp.B}, Estimate: est, Tasks: len(c.Tasks), RunCount: len(sub.Runs)}

	var runs, agents, tasks []InfluenceRow
	agentRuns := map[string]int{}
	taskRuns := map[string]int{} // by the one task key, named as compare's groups name it
	task := TaskNames(sub)
	for i := range sub.Runs {
		r := &sub.Runs[i]
		agentRuns[r.Agent]++
		taskRuns[task(r.Benchmark, r.TaskID)]++
	}
	for _, a := range slices.Sorted(maps.Keys(agentRuns)) {
		w := stat(func(r *ingest.Run) bool { return r.Agent != a })
		agents = append(agents, InfluenceRow{Kind: "agent", Agent: a, Runs: agentRuns[a], Value: math.NaN(), Without: w, Change: w - est})
	}
	for _, t := range slices.Sorted(maps.Keys(taskRuns)) {
		w := stat(func(r *ingest.Run) bool { return task(r.Benchmark, r.TaskID) != t })
		tasks = append(tasks, InfluenceRow{Kind: "task", TaskID: t, Runs: taskRuns[t], Value: math.NaN(), Without: w, Change: w - est})
	}
	units := compareUnits(sub, sp, ga, gb, sa.K, sb.K)
	fast := func(removed []bool) float64 {
		return units.stat(removed, sp.Measure)
	}
	if f := fast(make([]bool, len(sub.Runs))); !sameOrBothNaN(f, est) {
		return InfluenceResult{}, fmt.Errorf("influence: internal check failed: per-run scores give %v, rdeval compare %v", f, est)
	}
	removed := make([]bool, len(sub.Runs))
	for i := range sub.Runs {
		r := &sub.Runs[i]
		removed[i] = true
		w := fast(removed)
		removed[i] = false
		row := InfluenceRow{Kind: "run", RunID: r.RunID, TaskID: task(r.Benchmark, r.TaskID), Agent: r.Agent, Value: r.Score.Or(math.NaN()), Without: w, Change: w - est}
		if r.Score.Valid && r.Score.V > p.FlagAbove {
			row.Flag = fmt.Sprintf("score>%v", p.FlagAbove)
		}
		runs = append(runs, row)
	}
	for _, rs := range [][]InfluenceRow{runs, agents, tasks} {
		sortInfluenceRows(rs)
	}
	for i, r := range runs {
		if p.Top == 0 || i < p.Top || r.Flag != "" {
			res.Rows = append(res.Rows, r)
		}
	}
	for _, rs := range [][]InfluenceRow{agents, tasks} {
		for i, r := range rs {
			if p.Top == 0 || i < p.Top {
				res.Rows = append(res.Rows, r)
			}
		}
	}
	if !math.IsNaN(p.Threshold) {
		rs := analysis.GreedyRemoval(len(sub.Runs), fast, p.Threshold, InfluenceMaxRemove)
		res.addRemoval(rs, func(u int) (string, string, float64) {
			r := &sub.Runs[u]
			return r.RunID, task(r.Benchmark, r.TaskID), r.Score.Or(math.NaN())
		})
	}
	return res, nil
}

// sortInfluenceRows orders rows by |change|, largest first (NaN last), then by
// agent, task and run id.
func sortInfluenceRows(rs []InfluenceRow) {
	abs := func(x float64) float64 {
		if math.IsNaN(x) {
			return -1
		}
		return math.Abs(x)
	}
	slices.SortStableFunc(rs, func(a, b InfluenceRow) int {
		return cmp.Or(cmp.Compare(abs(b.Change), abs(a.Change)), strings.Compare(a.Agent, b.Agent), strings.Compare(a.TaskID, b.TaskID), strings.Compare(a.RunID, b.RunID))
	})
}

func sameOrBothNaN(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b))
}

// cunits are both sides' tasks with the run of each score, so that the
// statistic without some runs is recomputed without rebuilding the groups.
type cunits struct {
	sides [2]analysis.Side
	runs  [2][][]int // per side and task: the index in the runs of each score
}

// compareUnits gives every run of A and B its score as rdeval compare uses
// it: its final score, or, for a group read at the budget, the score its
// own log had reached at the budget (AtBudget). Runs that compare
// leaves out (no score; no log when read at the budget) get none.
func compareUnits(ds *ingest.Dataset, sp *Spec, ga, gb map[string]string, ka, kb int) *cunits {
	cu := &cunits{}
	for side, g := range []map[string]string{ga, gb} {
		score := Score
		if ReadAtBudget(ds, []string{sp.A, sp.B}[side], sp.BudgetLen.Seconds(), sp.HumanLen.Seconds()) {
			score = AtBudget(ds, sp.BudgetLen.Seconds())
		}
		gs, _ := GroupRuns(ds, nil, Only(func(r *ingest.Run) bool { return r.Score.Valid && InGroup(r, g) }, score))
		cu.sides[side].K = []int{ka, kb}[side]
		if len(gs) > 0 {
			cu.sides[side].Tasks, cu.runs[side] = gs[0].Tasks, gs[0].Runs
		}
	}
	return cu
}

// stat is the comparison without the runs marked removed.
func (cu *cunits) stat(removed []bool, measure string) float64 {
	var sides [2]analysis.Side
	for i, s := range cu.sides {
		sides[i].K = s.K
		for ti, t := range s.Tasks {
			var sc []float64
			for j, run := range cu.runs[i][ti] {
				if !removed[run] {
					sc = append(sc, t.Scores[j])
				}
			}
			if len(sc) > 0 {
				sides[i].Tasks = append(sides[i].Tasks, analysis.TaskScores{Task: t.Task, Scores: sc, Random: t.Random})
			}
		}
		if len(sides[i].Tasks) == 0 {
			return math.NaN()
		}
	}
	c, err := analysis.Compare(sides[0], sides[1], analysis.ScoreAtKOptions{})
	if err != nil {
		return math.NaN()
	}
	if measure == "diff" {
		return c.Diff
	}
	return c.Ratio
}

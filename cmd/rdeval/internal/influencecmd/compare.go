package influencecmd

import (
	"fmt"
	"math"
	"sort"

	"github.com/rdeval/rdeval/analysis"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/study"
	"github.com/rdeval/rdeval/ingest"
)

// compareStat is the point estimate of rdeval compare (no bootstrap) of
// the validated spec: the ratio (or difference) of group A's mean
// score@k_A to group B's mean score@k_B over their shared tasks, k =
// budget / run length (runs longer than the budget read at it from score
// logs). NaN when it cannot be computed (a group left without runs, no
// shared task, B's mean 0).
func compareStat(ds *ingest.Dataset, sp *study.Spec) float64 {
	e, err := sp.Evaluate(ds, study.EvalParams{})
	if err != nil {
		return math.NaN()
	}
	return e.Value
}

// compare is --stat compare: leave-one-agent-out, leave-one-task-out and
// leave-one-run-out changes of the A/B ratio (or difference). Every
// "without" value is the statistic recomputed from scratch on the runs
// left (CompareStat), so runs read at the budget from score logs are
// handled as rdeval compare handles them.
func compare(opts *Options, ds *ingest.Dataset) (result, error) {
	sp := &opts.Spec
	budget, humanLen := sp.BudgetLen.Seconds(), sp.HumanLen.Seconds()
	ga, err := study.ParseGroup(sp.A)
	if err != nil {
		return result{}, err
	}
	gb, err := study.ParseGroup(sp.B)
	if err != nil {
		return result{}, err
	}
	// Keep only the runs of A or B: the others cannot change the statistic.
	sub := &ingest.Dataset{Scores: ds.Scores, Tasks: ds.Tasks}
	for i := range ds.Runs {
		if r := &ds.Runs[i]; study.InGroup(r, ga) || study.InGroup(r, gb) {
			sub.Runs = append(sub.Runs, *r)
		}
	}
	sa, _, err := study.Side(sub, sp.A, budget, humanLen)
	if err != nil {
		return result{}, err
	}
	sb, _, err := study.Side(sub, sp.B, budget, humanLen)
	if err != nil {
		return result{}, err
	}
	c, err := analysis.Compare(sa, sb, analysis.ScoreAtKOptions{})
	if err != nil {
		return result{}, &cmdutil.BadInputError{Err: err}
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
		return result{}, &cmdutil.BadInputError{Err: fmt.Errorf("the %s is undefined (B's mean score is 0)", sp.Measure)}
	}
	res := result{Stat: fmt.Sprintf("%s A/B at %s (k_A=%d, k_B=%d)", sp.Measure, sp.Budget, sa.K, sb.K),
		Group: map[string]string{"a": sp.A, "b": sp.B}, Estimate: est, Tasks: len(c.Tasks), RunCount: len(sub.Runs)}

	var runs, agents, tasks []row
	agentRuns := map[string]int{}
	taskRuns := map[string]int{} // by the one task key, named as compare's groups name it
	task := study.TaskNames(sub)
	for i := range sub.Runs {
		r := &sub.Runs[i]
		agentRuns[r.Agent]++
		taskRuns[task(r.Benchmark, r.TaskID)]++
	}
	for _, a := range sortedKeys(agentRuns) {
		w := stat(func(r *ingest.Run) bool { return r.Agent != a })
		agents = append(agents, row{Kind: "agent", Agent: a, Runs: agentRuns[a], Value: math.NaN(), Without: w, Change: w - est})
	}
	for _, t := range sortedKeys(taskRuns) {
		w := stat(func(r *ingest.Run) bool { return task(r.Benchmark, r.TaskID) != t })
		tasks = append(tasks, row{Kind: "task", TaskID: t, Runs: taskRuns[t], Value: math.NaN(), Without: w, Change: w - est})
	}
	units := compareUnits(sub, sp, ga, gb, sa.K, sb.K)
	fast := func(removed []bool) float64 {
		return units.stat(removed, sp.Measure)
	}
	if f := fast(make([]bool, len(sub.Runs))); !sameOrBothNaN(f, est) {
		return result{}, fmt.Errorf("influence: internal check failed: per-run scores give %v, rdeval compare %v", f, est)
	}
	removed := make([]bool, len(sub.Runs))
	for i := range sub.Runs {
		r := &sub.Runs[i]
		removed[i] = true
		w := fast(removed)
		removed[i] = false
		row := row{Kind: "run", RunID: r.RunID, TaskID: task(r.Benchmark, r.TaskID), Agent: r.Agent, Value: r.Score.Or(math.NaN()), Without: w, Change: w - est}
		if r.Score.Valid && r.Score.V > opts.FlagAbove {
			row.Flag = fmt.Sprintf("score>%v", opts.FlagAbove)
		}
		runs = append(runs, row)
	}
	for _, rs := range [][]row{runs, agents, tasks} {
		sortRows(rs)
	}
	for i, r := range runs {
		if opts.Top == 0 || i < opts.Top || r.Flag != "" {
			res.Rows = append(res.Rows, r)
		}
	}
	for _, rs := range [][]row{agents, tasks} {
		for i, r := range rs {
			if opts.Top == 0 || i < opts.Top {
				res.Rows = append(res.Rows, r)
			}
		}
	}
	if !math.IsNaN(opts.Threshold) {
		rs := analysis.GreedyRemoval(len(sub.Runs), fast, opts.Threshold, maxRemove)
		addRemoval(&res, rs, func(u int) (string, string, float64) {
			r := &sub.Runs[u]
			return r.RunID, task(r.Benchmark, r.TaskID), r.Score.Or(math.NaN())
		})
	}
	return res, nil
}

// sortRows orders rows by |change|, largest first (NaN last), then by
// agent, task and run id.
func sortRows(rs []row) {
	abs := func(x float64) float64 {
		if math.IsNaN(x) {
			return -1
		}
		return math.Abs(x)
	}
	sort.SliceStable(rs, func(i, j int) bool {
		if a, b := abs(rs[i].Change), abs(rs[j].Change); a != b {
			return a > b
		}
		if rs[i].Agent != rs[j].Agent {
			return rs[i].Agent < rs[j].Agent
		}
		if rs[i].TaskID != rs[j].TaskID {
			return rs[i].TaskID < rs[j].TaskID
		}
		return rs[i].RunID < rs[j].RunID
	})
}

func sortedKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
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
// own log had reached at the budget (study.AtBudget). Runs that compare
// leaves out (no score; no log when read at the budget) get none.
func compareUnits(ds *ingest.Dataset, sp *study.Spec, ga, gb map[string]string, ka, kb int) *cunits {
	cu := &cunits{}
	for side, g := range []map[string]string{ga, gb} {
		score := study.Score
		if study.ReadAtBudget(ds, []string{sp.A, sp.B}[side], sp.BudgetLen.Seconds(), sp.HumanLen.Seconds()) {
			score = study.AtBudget(ds, sp.BudgetLen.Seconds())
		}
		gs, _ := study.GroupRuns(ds, nil, study.Only(func(r *ingest.Run) bool { return r.Score.Valid && study.InGroup(r, g) }, score))
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

package study

import (
	"sort"
	"strconv"
	"strings"

	"github.com/rdeval/rdeval/analysis"
	"github.com/rdeval/rdeval/ingest"
)

// Group is the runs of one value of the grouping columns, by task.
type Group struct {
	// Key holds the grouping columns' values, in the order asked for; a
	// null value (e.g. METR's human time limit) is "".
	Key []string
	// Tasks are the group's tasks sorted by task_id (then benchmark),
	// each with its runs' scores in run order. A task is named by its
	// task_id, or benchmark:task_id where two benchmarks share it.
	Tasks []analysis.TaskScores
	// Runs are the indices in ds.Runs of each task's runs, as Scores.
	Runs [][]int
}

// RandomTasks returns the TaskKey of the tasks whose selection is random
// (score@k is then the mean).
func RandomTasks(ds *ingest.Dataset) map[string]bool {
	random := map[string]bool{}
	for _, t := range ds.Tasks {
		if t.Selection.Valid && t.Selection.V == "random" {
			random[TaskKey(t.Benchmark, t.TaskID)] = true
		}
	}
	return random
}

// TaskKey is the one key of a task: benchmark and task_id (two benchmarks
// may use the same task id).
func TaskKey(benchmark, taskID string) string { return benchmark + "\x00" + taskID }

// TaskNames is the name of each task of ds's runs, one per task key
// (benchmark + task_id): its task_id, or benchmark:task_id where two
// benchmarks of the runs share the task_id. GroupRuns names its tasks
// with it; code that groups runs by task in another way (outcomes,
// curves, horizons) groups them by this name, never by task_id alone.
func TaskNames(ds *ingest.Dataset) func(benchmark, taskID string) string {
	bench, shared := map[string]string{}, map[string]bool{}
	for i := range ds.Runs {
		r := &ds.Runs[i]
		if b, ok := bench[r.TaskID]; ok && b != r.Benchmark {
			shared[r.TaskID] = true
		}
		bench[r.TaskID] = r.Benchmark
	}
	return func(benchmark, taskID string) string {
		if shared[taskID] {
			return benchmark + ":" + taskID
		}
		return taskID
	}
}

// GroupRuns groups the runs that have a score by the columns by (runs
// columns, ingest.RunValue), and within a group by task (TaskKey). score
// gives a run's score (false: the run has none; it is counted in missing).
// Groups come sorted by their key (numbers as numbers).
func GroupRuns(ds *ingest.Dataset, by []string, score func(*ingest.Run) (float64, bool)) (groups []Group, missing int) {
	return GroupRunsBy(ds, func(r *ingest.Run) []string {
		key := make([]string, len(by))
		for j, b := range by {
			if v, ok := ingest.RunValue(r, b); ok {
				key[j] = v
			}
		}
		return key
	}, score)
}

// GroupRunsBy is GroupRuns with the group key of a run given by key.
func GroupRunsBy(ds *ingest.Dataset, key func(*ingest.Run) []string, score func(*ingest.Run) (float64, bool)) (groups []Group, missing int) {
	random := RandomTasks(ds)
	name := TaskNames(ds)
	type task struct {
		benchmark, id string
		scores        []float64
		runs          []int
	}
	type group struct {
		key   []string
		tasks map[string]*task
	}
	byID := map[string]*group{}
	var order []*group
	for i := range ds.Runs {
		r := &ds.Runs[i]
		s, ok := score(r)
		if !ok {
			missing++
			continue
		}
		k := key(r)
		id := strings.Join(k, "\x00")
		g := byID[id]
		if g == nil {
			g = &group{key: k, tasks: map[string]*task{}}
			byID[id] = g
			order = append(order, g)
		}
		tk := TaskKey(r.Benchmark, r.TaskID)
		t := g.tasks[tk]
		if t == nil {
			t = &task{benchmark: r.Benchmark, id: r.TaskID}
			g.tasks[tk] = t
		}
		t.scores = append(t.scores, s)
		t.runs = append(t.runs, i)
	}
	sort.Slice(order, func(i, j int) bool { return lessKey(order[i].key, order[j].key) })
	for _, g := range order {
		ts := make([]*task, 0, len(g.tasks))
		for _, t := range g.tasks {
			ts = append(ts, t)
		}
		sort.Slice(ts, func(i, j int) bool {
			if ts[i].id != ts[j].id {
				return ts[i].id < ts[j].id
			}
			return ts[i].benchmark < ts[j].benchmark
		})
		out := Group{Key: g.key, Tasks: make([]analysis.TaskScores, len(ts)), Runs: make([][]int, len(ts))}
		for i, t := range ts {
			out.Tasks[i] = analysis.TaskScores{Task: name(t.benchmark, t.id), Scores: t.scores, Random: random[TaskKey(t.benchmark, t.id)]}
			out.Runs[i] = t.runs
		}
		groups = append(groups, out)
	}
	return groups, missing
}

// Tasks is the runs that score gives a value, by task: GroupRuns with no
// columns (nil when no run has one).
func Tasks(ds *ingest.Dataset, score func(*ingest.Run) (float64, bool)) []analysis.TaskScores {
	if gs, _ := GroupRuns(ds, nil, score); len(gs) > 0 {
		return gs[0].Tasks
	}
	return nil
}

// Only is score for the runs keep takes, none for the others.
func Only(keep func(*ingest.Run) bool, score func(*ingest.Run) (float64, bool)) func(*ingest.Run) (float64, bool) {
	return func(r *ingest.Run) (float64, bool) {
		if !keep(r) {
			return 0, false
		}
		return score(r)
	}
}

// Score is the normalized score of a run, for GroupRuns.
func Score(r *ingest.Run) (float64, bool) { return r.Score.V, r.Score.Valid }

// lessKey orders group keys column by column, numbers as numbers.
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

// BenchmarkRuns is ds with only the runs whose benchmark is (want true) or
// is not (want false) bench; the tasks and the rest of ds are shared.
func BenchmarkRuns(ds *ingest.Dataset, bench string, want bool) *ingest.Dataset {
	out := *ds
	out.Runs = nil
	for _, r := range ds.Runs {
		if (r.Benchmark == bench) == want {
			out.Runs = append(out.Runs, r)
		}
	}
	return &out
}

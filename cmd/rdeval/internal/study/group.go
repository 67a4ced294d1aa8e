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
	// each with its runs' scores in run order.
	Tasks []analysis.TaskScores
}

// RandomTasks returns the benchmark+"\x00"+task_id of the tasks whose
// selection is random (score@k is then the mean).
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

// GroupRuns groups the runs that have a score by the columns by (runs
// columns, ingest.RunValue), and within a group by task (TaskKey). score
// gives a run's score (false: the run has none; it is counted in missing).
// Groups come sorted by their key (numbers as numbers).
func GroupRuns(ds *ingest.Dataset, by []string, score func(*ingest.Run) (float64, bool)) (groups []Group, missing int) {
	random := RandomTasks(ds)
	type task struct {
		benchmark, id string
		scores        []float64
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
		key := make([]string, len(by))
		for j, b := range by {
			if v, ok := ingest.RunValue(r, b); ok {
				key[j] = v
			}
		}
		id := strings.Join(key, "\x00")
		g := byID[id]
		if g == nil {
			g = &group{key: key, tasks: map[string]*task{}}
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
		out := Group{Key: g.key, Tasks: make([]analysis.TaskScores, len(ts))}
		for i, t := range ts {
			out.Tasks[i] = analysis.TaskScores{Task: t.id, Scores: t.scores, Random: random[TaskKey(t.benchmark, t.id)]}
		}
		groups = append(groups, out)
	}
	return groups, missing
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

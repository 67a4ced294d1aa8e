package reportcmd

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/figconfig"
	"github.com/rdeval/rdeval/ingest"
)

// Small-sample thresholds of the report's warnings: a group (benchmark ×
// agent × time limit × hint level) with fewer than minTasks tasks, or with
// tasks of fewer than minRuns runs, gets a warning. score@k needs k runs
// per task, and a cross-task mean over a handful of tasks has a wide
// interval whatever the number of runs.
const (
	minTasks = 5
	minRuns  = 3
)

// smallN lists the groups with few tasks or few runs per task.
func smallN(ds *ingest.Dataset) []string {
	type acc map[string]int // task → runs
	groups := map[string]acc{}
	for i := range ds.Runs {
		r := &ds.Runs[i]
		parts := []string{r.Benchmark, r.Agent}
		if r.TimeLimitS.Valid {
			parts = append(parts, figconfig.DurationLabel(fmt.Sprint(r.TimeLimitS.V))+" runs")
		}
		if r.HintLevel.Valid {
			parts = append(parts, r.HintLevel.V)
		}
		k := strings.Join(parts, ", ")
		if groups[k] == nil {
			groups[k] = acc{}
		}
		groups[k][r.TaskID]++
	}
	var out []string
	for _, k := range sortedLabels(groups) {
		g := groups[k]
		if len(g) < minTasks {
			out = append(out, fmt.Sprintf("small n: %s: only %d tasks (fewer than %d)", k, len(g), minTasks))
		}
		var few []string
		for _, t := range sortedLabels(g) {
			if g[t] < minRuns {
				few = append(few, fmt.Sprintf("%s (%d)", t, g[t]))
			}
		}
		if len(few) > 0 {
			sort.Strings(few)
			if len(few) > 5 {
				few = append(few[:5], fmt.Sprintf("and %d more", len(few)-5))
			}
			out = append(out, fmt.Sprintf("small n: %s: tasks with fewer than %d runs: %s", k, minRuns, strings.Join(few, ", ")))
		}
	}
	return out
}

func sortedLabels[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

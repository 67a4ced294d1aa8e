package study

import (
	"math"
	"sort"

	"github.com/rdeval/rdeval/analysis"
	"github.com/rdeval/rdeval/ingest"
)

// AtBudget is the score of a run at elapsed time T, for GroupRuns: the
// final raw score by the task's rule over its score-log entries with
// elapsed_s ≤ T, normalized. A run with no valid entry by T is at its
// starting solution, 0. Runs without any valid entry (whose final score is
// null), without a score log, or whose task has no y_start/y_ref have
// none, so the runs read at every budget are the runs that have a final
// score. This is how RE-Bench reads humans at budgets shorter than their
// 8-hour runs (arXiv 2411.15114 §4.2).
func AtBudget(ds *ingest.Dataset, T float64) func(*ingest.Run) (float64, bool) {
	tasks := map[[2]string]ingest.Task{}
	for _, t := range ds.Tasks {
		tasks[[2]string{t.Benchmark, t.TaskID}] = t
	}
	logs := map[string][]int{}
	for i, e := range ds.Scores {
		if e.ElapsedS.Valid {
			logs[e.RunID] = append(logs[e.RunID], i)
		}
	}
	for _, idx := range logs {
		sort.SliceStable(idx, func(a, b int) bool { return ds.Scores[idx[a]].ElapsedS.V < ds.Scores[idx[b]].ElapsedS.V })
	}
	return func(r *ingest.Run) (float64, bool) {
		idx, ok := logs[r.RunID]
		t, known := tasks[[2]string{r.Benchmark, r.TaskID}]
		if !ok || !known || !t.YStart.Valid || !t.YRef.Valid || t.YStart.V == t.YRef.V {
			return 0, false
		}
		var raw []float64
		anyValid := false
		for _, k := range idx {
			v := ds.Scores[k].RawScore
			anyValid = anyValid || !math.IsNaN(v)
			if ds.Scores[k].ElapsedS.V <= T {
				raw = append(raw, v)
			}
		}
		if !anyValid {
			return 0, false
		}
		rule := analysis.RuleMax
		if t.Aggregation.Valid {
			if rr, err := analysis.ParseRule(t.Aggregation.V); err == nil {
				rule = rr
			}
		}
		if y, ok := analysis.FinalScore(raw, rule); ok && !math.IsNaN(y) {
			return analysis.Normalize(y, t.YStart.V, t.YRef.V, analysis.NormalizeOptions{}), true
		}
		return 0, true
	}
}

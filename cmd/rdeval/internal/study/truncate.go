package study

import (
	"math"
	"sort"

	"github.com/rdeval/rdeval/analysis"
	"github.com/rdeval/rdeval/ingest"
)

// TruncatedScores returns, per agent and task, the normalized score each
// selected run had reached at elapsed time T: the final raw score by the
// task's rule over its score-log entries with elapsed_s ≤ T, normalized.
// A run with no valid entry by T is at its starting solution, 0. Runs
// without any valid entry (whose final score is null), without a score log,
// or whose task has no y_start/y_ref are skipped, so the runs read at every
// budget are the runs that have a final score.
// This is how RE-Bench reads humans at budgets shorter than their 8-hour
// runs (arXiv 2411.15114 §4.2).
func TruncatedScores(ds *ingest.Dataset, include func(*ingest.Run) bool, T float64) map[string]map[string][]float64 {
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
	out := map[string]map[string][]float64{}
	for i := range ds.Runs {
		r := &ds.Runs[i]
		if !include(r) {
			continue
		}
		idx, ok := logs[r.RunID]
		t, known := tasks[[2]string{r.Benchmark, r.TaskID}]
		if !ok || !known || !t.YStart.Valid || !t.YRef.Valid || t.YStart.V == t.YRef.V {
			continue
		}
		sort.SliceStable(idx, func(a, b int) bool { return ds.Scores[idx[a]].ElapsedS.V < ds.Scores[idx[b]].ElapsedS.V })
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
			continue
		}
		rule := analysis.RuleMax
		if t.Aggregation.Valid {
			if rr, err := analysis.ParseRule(t.Aggregation.V); err == nil {
				rule = rr
			}
		}
		score := 0.0
		if y, ok := analysis.FinalScore(raw, rule); ok && !math.IsNaN(y) {
			score = analysis.Normalize(y, t.YStart.V, t.YRef.V, analysis.NormalizeOptions{})
		}
		if out[r.Agent] == nil {
			out[r.Agent] = map[string][]float64{}
		}
		out[r.Agent][r.TaskID] = append(out[r.Agent][r.TaskID], score)
	}
	return out
}

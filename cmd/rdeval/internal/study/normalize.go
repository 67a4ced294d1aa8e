package study

import (
	"fmt"
	"sort"

	"github.com/rdeval/rdeval/analysis"
	"github.com/rdeval/rdeval/ingest"
)

// Where a run's normalized score came from (the score_source field).
const (
	SourceScoreLog = "score_log" // final raw score from the score log by the task's rule, then normalized
	SourceRawScore = "raw_score" // the run's raw_score, normalized
	SourceInput    = "input"     // the input's score, already normalized (e.g. METR), used as is
	SourceNone     = "none"      // no valid score: null (or 0 with --missing zero)
)

// NormalizedRun is what Normalize did to one run (a row of rdeval
// normalize's output).
type NormalizedRun struct {
	RunID, Benchmark, Agent, TaskID string
	TimeLimitS                      ingest.Opt[int64]
	Rule                            string
	RawScore, Score                 ingest.Opt[float64]
	Source                          string
}

// Normalize fills raw_score and score of every run of ds and returns what
// it did per run. Runs are matched to score-log entries by run_id, entries
// ordered by elapsed time (then timestamp).
func Normalize(ds *ingest.Dataset, opt analysis.NormalizeOptions, missingZero bool) ([]NormalizedRun, error) {
	tasks := map[[2]string]ingest.Task{}
	for _, t := range ds.Tasks {
		tasks[[2]string{t.Benchmark, t.TaskID}] = t
	}
	logs := map[string][]int{}
	for i, e := range ds.Scores {
		logs[e.RunID] = append(logs[e.RunID], i)
	}
	for _, idx := range logs {
		sort.SliceStable(idx, func(a, b int) bool {
			ea, eb := ds.Scores[idx[a]], ds.Scores[idx[b]]
			if ea.ElapsedS.Valid && eb.ElapsedS.Valid && ea.ElapsedS.V != eb.ElapsedS.V {
				return ea.ElapsedS.V < eb.ElapsedS.V
			}
			return ea.ScoredAt.Valid && eb.ScoredAt.Valid && ea.ScoredAt.V.Before(eb.ScoredAt.V)
		})
	}
	out := make([]NormalizedRun, len(ds.Runs))
	for i := range ds.Runs {
		r := &ds.Runs[i]
		res := NormalizedRun{RunID: r.RunID, Benchmark: r.Benchmark, Agent: r.Agent, TaskID: r.TaskID, TimeLimitS: r.TimeLimitS, Source: SourceNone}
		t, known := tasks[[2]string{r.Benchmark, r.TaskID}]
		canNormalize := known && t.YStart.Valid && t.YRef.Valid && t.YStart.V != t.YRef.V
		rule := analysis.RuleLast
		if known && t.Aggregation.Valid {
			var err error
			if rule, err = analysis.ParseRule(t.Aggregation.V); err != nil {
				return nil, fmt.Errorf("task %s: %w", t.TaskID, err)
			}
		}
		switch idx, hasLog := logs[r.RunID]; {
		case hasLog && canNormalize:
			res.Rule = string(rule)
			scores := make([]float64, len(idx))
			for j, k := range idx {
				scores[j] = ds.Scores[k].RawScore
			}
			if y, ok := analysis.FinalScore(scores, rule); ok {
				res.RawScore = ingest.Some(y)
				res.Score = ingest.Some(analysis.Normalize(y, t.YStart.V, t.YRef.V, opt))
				res.Source = SourceScoreLog
			}
		case r.RawScore.Valid && canNormalize:
			res.RawScore = r.RawScore
			res.Score = ingest.Some(analysis.Normalize(r.RawScore.V, t.YStart.V, t.YRef.V, opt))
			res.Source = SourceRawScore
		case r.Score.Valid:
			res.RawScore = r.RawScore
			res.Score = r.Score
			res.Source = SourceInput
		}
		if !res.Score.Valid && missingZero {
			res.Score = ingest.Some(0.0)
		}
		r.RawScore, r.Score = res.RawScore, res.Score
		out[i] = res
	}
	return out, nil
}

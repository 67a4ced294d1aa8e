package study

import (
	"math"
	"testing"

	"github.com/rdeval/rdeval/analysis"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/demo"
	"github.com/rdeval/rdeval/ingest"
)

// TestNormalizeDemo recomputes every demo RE-Bench run's normalized score
// from its score log and the built-in catalog, and compares it with the
// score the demo generator wrote into runs.jsonl. The generator
// (cmd/rdeval/internal/demo/generate.go) computes those scores with its own
// code from the same raw logs, so this checks ingest → rule → normalization
// end to end against an independent implementation, to 1e-12.
func TestNormalizeDemo(t *testing.T) {
	ds, err := ingest.Load([]string{demo.REBenchRunsPath, demo.REBenchScoreLogPath}, ingest.Options{FS: demo.FS()})
	if err != nil || ds.Err() != nil {
		t.Fatal(err, ds.Err())
	}
	want := map[string]ingest.Opt[float64]{}
	for _, r := range ds.Runs {
		want[r.RunID] = r.Score
	}
	res, err := Normalize(ds, analysis.NormalizeOptions{}, false)
	if err != nil {
		t.Fatal(err)
	}
	fromLog, none := 0, 0
	for _, r := range res {
		w := want[r.RunID]
		switch {
		case r.Source == SourceScoreLog:
			fromLog++
			if !w.Valid || math.Abs(r.Score.V-w.V) > 1e-12 {
				t.Errorf("%s (%s, rule %s): score %v, generator %v", r.RunID, r.TaskID, r.Rule, r.Score, w)
			}
		case r.Source == SourceNone:
			none++
			if w.Valid {
				t.Errorf("%s: no valid score-log entry, but the generator gave %v", r.RunID, w.V)
			}
		default:
			t.Errorf("%s: score from %s, want score_log", r.RunID, r.Source)
		}
	}
	// demo README: 630 runs, 23 of them without any valid score.
	if fromLog != 607 || none != 23 {
		t.Errorf("%d from logs, %d without a score; want 607 and 23", fromLog, none)
	}
}

// TestNormalizeSources: a run with only raw_score is normalized from it; a
// run with only an already-normalized score keeps it; a run with nothing is
// null, or 0 with missingZero.
func TestNormalizeSources(t *testing.T) {
	ys, yr := 2.2, 0.26
	ds := &ingest.Dataset{
		Runs: []ingest.Run{
			{RunID: "raw", Benchmark: "re-bench", TaskID: "x", RawScore: ingest.Some(1.23)},
			{RunID: "given", Benchmark: "re-bench", TaskID: "x", Score: ingest.Some(0.7)},
			{RunID: "nothing", Benchmark: "re-bench", TaskID: "x"},
		},
		Tasks: []ingest.Task{{TaskID: "x", Benchmark: "re-bench", YStart: ingest.Some(ys), YRef: ingest.Some(yr), Aggregation: ingest.Some("min")}},
	}
	res, err := Normalize(ds, analysis.NormalizeOptions{}, true)
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Source != SourceRawScore || math.Abs(res[0].Score.V-0.5) > 1e-12 {
		t.Errorf("raw: %+v", res[0])
	}
	if res[1].Source != SourceInput || res[1].Score.V != 0.7 {
		t.Errorf("given: %+v", res[1])
	}
	if res[2].Source != SourceNone || !res[2].Score.Valid || res[2].Score.V != 0 {
		t.Errorf("nothing with --missing zero: %+v", res[2])
	}
}

package study

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/rdeval/rdeval/ingest"
)

// compareData: agent A's 1-h runs (two on t1, one on t2) and humans' runs
// (three on t1, one on t2), with 1-h time limits unless humanLimit is 0.
func compareData(humanLimit int64) *ingest.Dataset {
	run := func(agent, task string, limit int64, score float64) ingest.Run {
		r := ingest.Run{RunID: agent + task, TaskID: task, Agent: agent, Kind: "agent", Score: ingest.Some(score)}
		if agent == "human" {
			r.Kind = "human"
		}
		if limit > 0 {
			r.TimeLimitS = ingest.Some(limit)
		}
		return r
	}
	return &ingest.Dataset{Runs: []ingest.Run{
		run("A", "t1", 3600, 0.2), run("A", "t1", 3600, 0.4), run("A", "t2", 3600, 0.6),
		run("human", "t1", humanLimit, 0.1), run("human", "t1", humanLimit, 0.3), run("human", "t1", humanLimit, 0.5), run("human", "t2", humanLimit, 0.7),
	}}
}

// TestCompareModes: at a 2-h budget both sides have k = 2, so t2 (one run
// of A) is left out: the ratio and difference of the score@2 means over t1
// (A 0.4; humans (0.3 + 0.5 + 0.5) / 3), A's percentile among the humans'
// t1 scores (kind "mean": (2/3 + 2/3) / 2), and B's lines over both tasks.
func TestCompareModes(t *testing.T) {
	ds := compareData(3600)
	p := CompareParams{A: "agent=A", B: "agent=human", Budget: 2 * time.Hour, HumanLen: 8 * time.Hour}
	res, err := Compare(ds, p)
	if err != nil {
		t.Fatal(err)
	}
	c, eb := res.Comparison, 1.3/3
	if len(c.Tasks) != 1 || c.Tasks[0] != "t1" || math.Abs(c.EstimateA-0.4) > 1e-12 || math.Abs(c.EstimateB-eb) > 1e-12 ||
		math.Abs(c.Ratio-0.4/eb) > 1e-12 || math.Abs(c.Diff-(0.4-eb)) > 1e-12 || !math.IsNaN(c.RatioLow) {
		t.Errorf("ratio: %+v", c)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].Error(), "too few runs for k") {
		t.Errorf("ratio warnings: %v", res.Warnings)
	}
	p.Mode = "percentiles"
	if res, err = Compare(ds, p); err != nil {
		t.Fatal(err)
	}
	if len(res.Percentiles) != 1 || res.Percentiles[0].Task != "t1" || res.Percentiles[0].Estimate != 0.4 ||
		math.Abs(res.Percentiles[0].Percentile-200.0/3) > 1e-9 || res.MeanPercentile != res.Percentiles[0].Percentile {
		t.Errorf("percentiles: %+v, mean %v", res.Percentiles, res.MeanPercentile)
	}
	p.Mode = "lines"
	if res, err = Compare(ds, p); err != nil {
		t.Fatal(err)
	}
	if len(res.Lines) != 5 || res.Lines[2].Percentile != 50 || math.Abs(res.Lines[2].Value-(0.3+0.7)/2) > 1e-12 || res.Lines[2].NTasks != 2 {
		t.Errorf("lines: %+v", res.Lines)
	}
}

// TestCompareLinesFinalScores: humans without a time limit last 8 h, longer
// than a 1-h budget, and have no score logs, so the comparison is refused;
// the lines take their final scores instead. B's error comes first.
func TestCompareLinesFinalScores(t *testing.T) {
	ds := compareData(0)
	p := CompareParams{A: "agent=A", B: "agent=human", Budget: time.Hour, HumanLen: 8 * time.Hour}
	if _, err := Compare(ds, p); err == nil || !strings.Contains(err.Error(), "no score logs") {
		t.Errorf("ratio: %v", err)
	}
	p.Mode = "lines"
	res, err := Compare(ds, p)
	if err != nil || len(res.Lines) != 5 || res.Lines[0].NTasks != 2 {
		t.Errorf("lines: %+v, %v", res.Lines, err)
	}
	p.A, p.B = "agent=X", "agent=Y"
	if _, err := Compare(ds, p); err == nil || err.Error() != `group "agent=Y" matches no run with a score` {
		t.Errorf("lines, no B: %v", err)
	}
	p.Mode = ""
	if _, err := Compare(ds, p); err == nil || err.Error() != `group "agent=Y" matches no run` {
		t.Errorf("ratio, no A or B: %v", err)
	}
}

package reportcmd

import (
	"reflect"
	"testing"

	"github.com/rdeval/rdeval/ingest"
)

func run(id, agent, task string, tl int64, score ingest.Opt[float64]) ingest.Run {
	return ingest.Run{RunID: id, Benchmark: "re-bench", Agent: agent, TaskID: task, Kind: "agent", TimeLimitS: ingest.Some(tl), Score: score}
}

// TestScoreTable: expected values by hand. Agent A at 1800 s: task t1 has
// scores 0.2 and 0.4, task t2 has 1.0 and one run without a score.
// Over scored runs: (0.2+0.4+1.0)/3 = 0.5333…; over tasks: (0.3 + 1.0)/2 = 0.65.
// The unscored run is counted in runs (4), not as a 0.
func TestScoreTable(t *testing.T) {
	some := ingest.Some[float64]
	runs := []ingest.Run{
		run("1", "A", "t1", 1800, some(0.2)),
		run("2", "A", "t1", 1800, some(0.4)),
		run("3", "A", "t2", 1800, some(1.0)),
		run("4", "A", "t2", 1800, ingest.None[float64]()),
		run("5", "B", "t1", 7200, ingest.None[float64]()),
	}
	got := scoreTable(runs).Rows
	want := [][]string{
		{"re-bench", "A", "1800", "4", "2", "3", "0.5333", "0.6500"},
		{"re-bench", "B", "7200", "1", "1", "0", "", ""},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("scoreTable:\n got %q\nwant %q", got, want)
	}
}

// TestOutcomeTable: by hand, agent X no_hints: 3 runs, outcomes success,
// wrong_result, and one with no outcome (counted as unknown and as a
// failure): final 1/3, exec 2/3.
func TestOutcomeTable(t *testing.T) {
	mk := func(outcome string, final, exec bool) ingest.Run {
		r := ingest.Run{Benchmark: "rexbench", Agent: "X", HintLevel: ingest.Some("no_hints"), FinalSuccess: ingest.Some(final), ExecSuccess: ingest.Some(exec)}
		if outcome != "" {
			r.Outcome = ingest.Some(outcome)
		}
		return r
	}
	rows := outcomeTable([]ingest.Run{mk("success", true, true), mk("wrong_result", false, true), mk("", false, false)}).Rows
	want := [][]string{{"X", "no_hints", "3", "0", "0", "0", "0", "1", "1", "1", "0.3333", "0.6667"}}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("outcomeTable:\n got %q\nwant %q", rows, want)
	}
}

func datasetOf(groups []struct {
	agent, task string
	n           int
}) *ingest.Dataset {
	d := &ingest.Dataset{}
	id := 0
	for _, g := range groups {
		for i := 0; i < g.n; i++ {
			id++
			d.Runs = append(d.Runs, run(string(rune('A'+id)), g.agent, g.task, 1800, ingest.Some(0.5)))
		}
	}
	return d
}

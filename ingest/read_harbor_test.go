package ingest

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The fixtures under testdata/harbor, testdata/harbor-bad,
// testdata/terminalbench and testdata/terminalbench-bad were written to the
// harnesses' pydantic models (see testdata/harbor/SOURCE.md); the expected
// values come from testdata/reference/harbor_tb.py, which reads the same
// files with Python's json module (its command and Python version head
// testdata/reference/harbor_tb_runs.csv and harbor_tb_summary.csv).

// refRows reads a reference CSV written by harbor_tb.py as maps keyed by
// its header.
func refRows(t *testing.T, name string) []map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "reference", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.Comment = '#'
	recs, err := cr.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = r[i]
		}
		out = append(out, m)
	}
	return out
}

// refNum formats an optional number as harbor_tb.py writes it ("" for null).
func refNum(o Opt[float64]) string {
	if !o.Valid {
		return ""
	}
	return strconv.FormatFloat(o.V, 'g', -1, 64)
}

// checkAgainstReference compares the runs of ds read by reader with the
// reference rows of that reader, field by field.
func checkAgainstReference(t *testing.T, ds *Dataset, reader string) {
	t.Helper()
	got := map[string]Run{}
	for _, r := range ds.Runs {
		got[r.RunID] = r
	}
	n := 0
	for _, w := range refRows(t, "harbor_tb_runs.csv") {
		if w["reader"] != reader {
			continue
		}
		n++
		r, ok := got[w["run_id"]]
		if !ok {
			t.Errorf("run %s: missing", w["run_id"])
			continue
		}
		num := func(s string) float64 { v, _ := strconv.ParseFloat(s, 64); return v }
		success := ""
		if r.FinalSuccess.Valid {
			success = map[bool]string{true: "1", false: "0"}[r.FinalSuccess.V]
		}
		dur := ""
		if r.DurationS.Valid {
			dur = fmt.Sprintf("%.3f", r.DurationS.V)
		}
		for _, c := range []struct{ field, got, want string }{
			{"task_id", r.TaskID, w["task_id"]},
			{"agent", r.Agent, w["agent"]},
			{"success", success, w["success"]},
			{"outcome", r.Outcome.Or(""), w["outcome"]},
			{"duration_s", dur, w["duration_s"]},
		} {
			if c.got != c.want {
				t.Errorf("run %s: %s = %q, want %q", r.RunID, c.field, c.got, c.want)
			}
		}
		for _, c := range []struct {
			field string
			got   Opt[float64]
			want  string
		}{{"score", r.Score, w["score"]}, {"tokens", r.Tokens, w["tokens"]}, {"cost_usd", r.CostUSD, w["cost_usd"]}} {
			if (c.want == "") != !c.got.Valid || (c.got.Valid && c.got.V != num(c.want)) {
				t.Errorf("run %s: %s = %s, want %q", r.RunID, c.field, refNum(c.got), c.want)
			}
		}
	}
	if n == 0 || len(ds.Runs) != n {
		t.Errorf("%d runs, want %d (harbor_tb_runs.csv, reader %s)", len(ds.Runs), n, reader)
	}
}

// checkSummary compares the mean score per job or run folder with the
// reference summary: the mean over the reference rows and, where the
// fixture has one, the harness's own reported figure.
func checkSummary(t *testing.T, ds *Dataset, reader string) {
	t.Helper()
	for _, w := range refRows(t, "harbor_tb_summary.csv") {
		if w["reader"] != reader {
			continue
		}
		var sum float64
		var n int
		for _, r := range ds.Runs {
			if strings.HasPrefix(r.RunID, w["source"]+"/") {
				sum += r.Score.V
				n++
			}
		}
		wantN, _ := strconv.Atoi(w["n_runs"])
		wantMean, _ := strconv.ParseFloat(w["mean_score"], 64)
		if n != wantN || n == 0 || math.Abs(sum/float64(n)-wantMean) > 1e-12 {
			t.Errorf("%s: %d runs, mean score %v; want %d, %v", w["source"], n, sum/float64(max(n, 1)), wantN, wantMean)
			continue
		}
		if w["reported"] != "" {
			rep, _ := strconv.ParseFloat(w["reported"], 64)
			if math.Abs(sum/float64(n)-rep) > 1e-12 {
				t.Errorf("%s: mean score %v, the harness reported %v", w["source"], sum/float64(n), rep)
			}
		}
	}
}

// TestHarborReader reads the two fixture jobs (a Terminal-Bench 2 job of
// five trials: a pass, a fail, an agent timeout, an environment error with
// no verifier result, a reward with two keys; and a RExBench-adapter job of
// the oracle agent) through folder detection and compares every run with
// harbor_tb.py's reading.
func TestHarborReader(t *testing.T) {
	ds, err := Load([]string{filepath.Join("testdata", "harbor", "jobs")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.Err(); err != nil {
		t.Fatalf("unexpected bad records: %v", err)
	}
	// Inputs: the 7 trial result.json files; not the jobs' config.json and
	// result.json, nor the agent logs (agent/sessions.jsonl,
	// agent/episode-0/debug.json) under hello-world__a1B2c3D.
	if len(ds.Inputs) != 7 {
		t.Errorf("%d inputs, want the 7 trial result.json files: %v", len(ds.Inputs), ds.Inputs)
	}
	for _, in := range ds.Inputs {
		if in.Reader != ReaderHarbor || filepath.Base(in.Path) != "result.json" || in.RowsKept != 1 {
			t.Errorf("input %s: reader %s, %d kept", in.Path, in.Reader, in.RowsKept)
		}
	}
	checkAgainstReference(t, ds, "harbor")
	checkSummary(t, ds, "harbor")

	byID := map[string]Run{}
	for _, r := range ds.Runs {
		byID[r.RunID] = r
	}
	// Fields harbor_tb.py does not compute, checked against the fixture
	// files by hand (values quoted from them).
	r := byID["2026-11-30__10-00-00/gpt2-codegolf__Zx7Yw6V"]
	if r.Benchmark != "terminal-bench" || r.Scaffold.Or("") != "terminus-2" || r.Model.Or("") != "anthropic/claude-sonnet-4-5" ||
		r.TaskVersion.Or("") != "sha256:3b7d" || r.ErrorType.Or("") != "AgentTimeoutError: Agent execution timed out after 900.0 seconds" ||
		r.ScoreBinarized.Or(-1) != 0 || r.RawScore.Or(-1) != 0 || r.ExecSuccess.Or(true) {
		t.Errorf("gpt2-codegolf: %+v", r)
	}
	// exception_message's first line only.
	if r := byID["2026-11-30__10-00-00/build-tcc-qemu__Mn5Bv4C"]; r.ErrorType.Or("") != "RuntimeError: Docker compose command failed for environment build-tcc-qemu" || r.Tokens.Valid {
		t.Errorf("build-tcc-qemu: error_type %q, tokens %v", r.ErrorType.Or(""), r.Tokens)
	}
	// Naive times are UTC: started_at 2026-11-30T10:00:05.120000.
	if r := byID["2026-11-30__10-00-00/hello-world__a1B2c3D"]; !r.StartedAt.Valid || r.StartedAt.V.Format("2006-01-02T15:04:05.000Z07:00") != "2026-11-30T10:00:05.120Z" {
		t.Errorf("hello-world started_at %v", r.StartedAt)
	}
	if r := byID["rexbench-oracle/cogs__Hn4Kp2W"]; r.Benchmark != "rexbench" || r.Model.Valid || r.Agent != "oracle" {
		t.Errorf("cogs: benchmark %q, model %v, agent %q", r.Benchmark, r.Model, r.Agent)
	}
	// One warning for the job with naive times, none for the one with offsets.
	if w := warningsWith(ds, "without a UTC offset"); len(w) != 1 || !strings.Contains(w[0].Msg, `"2026-11-30__10-00-00"`) {
		t.Errorf("naive-time warnings: %v", w)
	}
}

// TestHarborTrialFile: a trial's result.json named on its own is read; the
// job name still comes from ../config.json. --benchmark overrides source.
// --reader harbor does not make other files Harbor trials.
func TestHarborTrialFile(t *testing.T) {
	p := filepath.Join("testdata", "harbor", "jobs", "rexbench-oracle", "othello__Rt6Yu8I", "result.json")
	ds, err := Load([]string{p}, Options{Benchmark: "RExBench"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Runs) != 1 || ds.Runs[0].RunID != "rexbench-oracle/othello__Rt6Yu8I" || ds.Runs[0].Benchmark != "rexbench" {
		t.Fatalf("runs %+v", ds.Runs)
	}
	// The trial folder alone: its agent/ and verifier/ logs are not read.
	ds, err = Load([]string{filepath.Join("testdata", "harbor", "jobs", "2026-11-30__10-00-00", "hello-world__a1B2c3D")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Inputs) != 1 || len(ds.Runs) != 1 || ds.Err() != nil {
		t.Errorf("trial folder: inputs %v, %d runs, err %v", ds.Inputs, len(ds.Runs), ds.Err())
	}
	// --reader harbor on a file that is not a Harbor trial is a file error.
	ds, _ = Load([]string{fixture("metr", "metr_runs.jsonl")}, Options{Reader: ReaderHarbor})
	if len(ds.Runs) != 0 || len(ds.Errors) != 1 || !strings.Contains(ds.Errors[0].Error(), "metr_runs.jsonl: --reader harbor: not a Harbor trial result.json") {
		t.Errorf("--reader harbor on METR runs: %d runs, errors %v", len(ds.Runs), ds.Errors)
	}
}

// TestHarborBadInput: each bad trial of testdata/harbor-bad is rejected on
// its own with its file and field; the good one is kept.
func TestHarborBadInput(t *testing.T) {
	job := filepath.Join("testdata", "harbor-bad", "jobs", "bad-job")
	ds, err := Load([]string{filepath.Join("testdata", "harbor-bad")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Runs) != 1 || ds.Runs[0].RunID != "bad-job/good__Aa11111" || ds.Runs[0].Agent != "claude-code + anthropic/claude-opus-4-1" {
		t.Errorf("kept %+v, want only bad-job/good__Aa11111", ds.Runs)
	}
	want := map[string]string{ // trial folder → substring of the error
		"multi__Bb22222":     `field "verifier_result.rewards": 2 rewards (accuracy, f1) and no "reward" key: name the one that is the score with --scorer KEY`,
		"notask__Cc33333":    `field "task_name": missing required field`,
		"strreward__Dd44444": `field "verifier_result.rewards.reward": want a number, got "1"`,
		"broken__Ee55555":    "not a valid Harbor trial result.json: unexpected end of JSON input",
	}
	if len(ds.Errors) != len(want) || len(ds.Rejected) != len(want) {
		t.Errorf("%d errors, %d rejected; want %d: %v", len(ds.Errors), len(ds.Rejected), len(want), ds.Errors)
	}
	for _, e := range ds.Errors {
		trial := filepath.Base(filepath.Dir(e.File))
		sub, ok := want[trial]
		if !ok || !strings.Contains(e.Error(), sub) || !strings.HasPrefix(e.Error(), filepath.Join(job, trial, "result.json")+":1: ") {
			t.Errorf("error %q; want it to name %s and say %q", e.Error(), filepath.Join(job, trial, "result.json"), sub)
		}
	}

	// --scorer names the reward: 0.5 is a score but neither a pass nor a
	// fail, so success, score_binarized and outcome stay null.
	ds, err = Load([]string{filepath.Join(job, "multi__Bb22222", "result.json")}, Options{Scorer: "accuracy"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Runs) != 1 || ds.Err() != nil {
		t.Fatalf("--scorer accuracy: %d runs, %v", len(ds.Runs), ds.Err())
	}
	if r := ds.Runs[0]; r.Score.Or(-1) != 0.5 || r.ScoreBinarized.Valid || r.FinalSuccess.Valid || r.Outcome.Valid {
		t.Errorf("--scorer accuracy: %+v", r)
	}
	// A --scorer key a trial lacks is an error, not a 0.
	ds, _ = Load([]string{filepath.Join(job, "good__Aa11111", "result.json")}, Options{Scorer: "accuracy"})
	if len(ds.Runs) != 0 || len(ds.Errors) != 1 || !strings.Contains(ds.Errors[0].Error(), `no reward "accuracy" (--scorer); the trial has reward`) {
		t.Errorf("missing --scorer key: runs %v, errors %v", ds.Runs, ds.Errors)
	}
}

package ingest

// Unit tests of the readers: METR run files, score logs (CSV and JSONL),
// RExBench per-run records and the generic reader with a column mapping.
// The fixtures under testdata/good/ are hand-written; the METR rows are
// synthetic rows in the shape of all_runs.jsonl @3a947ac (methods.md §3.2)
// or of the newer runs.jsonl schema (methods.md §3.4), so the expected values below are the
// numbers in the fixture lines unless a comment says otherwise.

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// ---------------------------------------------------------------------------
// helpers

// fixture returns the path of a file or folder under testdata/good.
func fixture(parts ...string) string {
	return filepath.Join(append([]string{"testdata", "good"}, parts...)...)
}

// load calls Load and fails the test if Load itself fails.
func load(t *testing.T, paths []string, opt Options) *Dataset {
	t.Helper()
	ds, err := Load(paths, opt)
	if err != nil {
		t.Fatalf("Load(%v): %v", paths, err)
	}
	return ds
}

// loadOK is load, also failing on any rejected record.
func loadOK(t *testing.T, paths []string, opt Options) *Dataset {
	t.Helper()
	ds := load(t, paths, opt)
	if err := ds.Err(); err != nil {
		t.Fatalf("Load(%v): unexpected bad records:\n%s", paths, err.(*InputErrors).Format(20))
	}
	return ds
}

// writeTemp writes content to name (which may hold folders) inside a fresh
// temporary folder and returns its path.
func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func runsByID(t *testing.T, ds *Dataset) map[string]Run {
	t.Helper()
	m := make(map[string]Run, len(ds.Runs))
	for _, r := range ds.Runs {
		if _, dup := m[r.RunID]; dup {
			t.Fatalf("run_id %q twice in ds.Runs", r.RunID)
		}
		m[r.RunID] = r
	}
	return m
}

func findTask(ds *Dataset, bench, id string) (Task, bool) {
	for _, tk := range ds.Tasks {
		if tk.Benchmark == bench && tk.TaskID == id {
			return tk, true
		}
	}
	return Task{}, false
}

// warningsWith returns the warnings whose text contains sub.
func warningsWith(ds *Dataset, sub string) []Warning {
	var out []Warning
	for _, w := range ds.Warnings {
		if strings.Contains(w.String(), sub) {
			out = append(out, w)
		}
	}
	return out
}

// msUTC is METR's millisecond timestamp as a UTC time.
func msUTC(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// secondsBetween is completed − started in seconds, as finishRun computes it.
func secondsBetween(startMS, endMS int64) float64 {
	return msUTC(endMS).Sub(msUTC(startMS)).Seconds()
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// valueDiffs compares want and got field by field and returns one line per
// difference. time.Time values compare with Equal plus the location name
// (not the *Location pointer); float64 NaN equals NaN; a nil slice differs
// from an empty one (null vs [] in the tables).
func valueDiffs(path string, want, got reflect.Value) []string {
	if want.Type() == reflect.TypeFor[time.Time]() {
		w, g := want.Interface().(time.Time), got.Interface().(time.Time)
		if !w.Equal(g) || w.Location().String() != g.Location().String() {
			return []string{fmt.Sprintf("%s: want %v, got %v", path, w, g)}
		}
		return nil
	}
	switch want.Kind() {
	case reflect.Struct:
		var out []string
		for i := 0; i < want.NumField(); i++ {
			out = append(out, valueDiffs(path+"."+want.Type().Field(i).Name, want.Field(i), got.Field(i))...)
		}
		return out
	case reflect.Float32, reflect.Float64:
		w, g := want.Float(), got.Float()
		if w == g || (math.IsNaN(w) && math.IsNaN(g)) {
			return nil
		}
		return []string{fmt.Sprintf("%s: want %v, got %v", path, w, g)}
	case reflect.Slice:
		if want.IsNil() != got.IsNil() {
			return []string{fmt.Sprintf("%s: want %#v, got %#v", path, want.Interface(), got.Interface())}
		}
		if want.Len() != got.Len() {
			return []string{fmt.Sprintf("%s: want %d elements, got %d (%#v vs %#v)", path, want.Len(), got.Len(), want.Interface(), got.Interface())}
		}
		var out []string
		for i := 0; i < want.Len(); i++ {
			out = append(out, valueDiffs(fmt.Sprintf("%s[%d]", path, i), want.Index(i), got.Index(i))...)
		}
		return out
	}
	if !reflect.DeepEqual(want.Interface(), got.Interface()) {
		return []string{fmt.Sprintf("%s: want %#v, got %#v", path, want.Interface(), got.Interface())}
	}
	return nil
}

// checkSame fails the test with the field differences between want and got.
func checkSame[T any](t *testing.T, name string, want, got T) {
	t.Helper()
	diffs := valueDiffs(name, reflect.ValueOf(want), reflect.ValueOf(got))
	if len(diffs) > 20 {
		diffs = append(diffs[:20], fmt.Sprintf("… and %d more", len(diffs)-20))
	}
	if len(diffs) > 0 {
		t.Errorf("%s differs:\n  %s", name, strings.Join(diffs, "\n  "))
	}
}

// checkError requires exactly one error in ds, at file:line with field,
// whose message contains msgPart.
func checkError(t *testing.T, ds *Dataset, file string, line int, field, msgPart string) {
	t.Helper()
	if len(ds.Errors) != 1 {
		t.Fatalf("want 1 error, got %d: %v", len(ds.Errors), ds.Err())
	}
	e := ds.Errors[0]
	if e.File != file || e.Line != line || e.Field != field || !strings.Contains(e.Msg, msgPart) {
		t.Errorf("error %q (file %q line %d field %q)\nwant file %q line %d field %q, message containing %q",
			e.Error(), e.File, e.Line, e.Field, file, line, field, msgPart)
	}
	if len(ds.Rejected) != 1 || ds.Rejected[0].Line != line || ds.Rejected[0].Error != e.Error() {
		t.Errorf("rejected %+v, want one entry at line %d with the error text", ds.Rejected, line)
	}
	if err := ds.Err(); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%s:%d", file, line)) {
		t.Errorf("ds.Err() = %v, want it to name %s:%d", err, file, line)
	}
}

// ---------------------------------------------------------------------------
// 1. METR run files

// TestMETRReader reads testdata/good/metr/metr_runs.jsonl: two human rows
// (all_runs @3a947ac run_id 65 and 67), an agent RE-Bench row
// (demo-agent-run-1, triton), an HCAST row (demo-agent-run-2) and two rows
// in the newer runs.jsonl schema (score_cont, task_source, scaffold, ...).
func TestMETRReader(t *testing.T) {
	path := fixture("metr", "metr_runs.jsonl")
	ds := loadOK(t, []string{path}, Options{})

	w := func(eq, inv float64) (Opt[float64], Opt[float64]) { return Some(eq), Some(inv) }
	var want []Run

	// Human rows: run_id is a JSON integer; time_limit 0 means "no recorded
	// limit"; started_at 0 / completed_at 28,800,000 ms is a duration (8 h),
	// not a date (methods.md §3.2), so the timestamps are null and
	// duration_s = 28800 (run 67: 29,700,000 ms = 29700 s).
	eq, inv := w(0.0007, 0.0011)
	want = append(want, Run{
		RunID: "9065", Benchmark: "re-bench", TaskID: "ai_rd_fix_embedding/main",
		TaskFamily: Some("ai_rd_fix_embedding"), Agent: "human", Model: Some("human"), Kind: "human",
		DurationS: Some(28800.0), Score: Some(0.4311111111), ScoreBinarized: Some(int8(0)),
		HumanMinutes: Some(556.6), Tokens: Some(61000.0), CostUSD: Some(280.5),
		EqualTaskWeight: eq, InvsqrtTaskWeight: inv, SourceFile: path, SourceLine: 1,
	}, Run{
		RunID: "9067", Benchmark: "re-bench", TaskID: "ai_rd_fix_embedding/main",
		TaskFamily: Some("ai_rd_fix_embedding"), Agent: "human", Model: Some("human"), Kind: "human",
		DurationS: Some(29700.0), Score: Some(0.5122222222), ScoreBinarized: Some(int8(0)),
		HumanMinutes: Some(556.6), Tokens: Some(65000.5), CostUSD: Some(301.25), // fractional total_tokens (METR averages)
		EqualTaskWeight: eq, InvsqrtTaskWeight: inv, SourceFile: path, SourceLine: 2,
	})
	// Agent RE-Bench row: benchmark from the ai_rd_ family; null cost and
	// tokens stay null; duration = completed − started = 2500 s.
	eq, inv = w(0.00023, 0.00037)
	want = append(want, Run{
		RunID: "demo-agent-run-1", Benchmark: "re-bench", TaskID: "ai_rd_triton_cumsum/main",
		TaskFamily: Some("ai_rd_triton_cumsum"), Agent: "o1-preview", Model: Some("o1-p"), Kind: "agent",
		TimeLimitS: Some(int64(1800)), StartedAt: Some(msUTC(1734066800000)), CompletedAt: Some(msUTC(1734069300000)),
		DurationS: Some(secondsBetween(1734066800000, 1734069300000)), Score: Some(0.6512345678),
		ScoreBinarized: Some(int8(0)), HumanMinutes: Some(483.61),
		EqualTaskWeight: eq, InvsqrtTaskWeight: inv, SourceFile: path, SourceLine: 3,
	})
	// HCAST row: family audio_classification does not start with ai_rd_.
	eq, inv = w(0.0015, 0.0024)
	want = append(want, Run{
		RunID: "demo-agent-run-2", Benchmark: "hcast", TaskID: "audio_classification/macaques_numpy",
		TaskFamily: Some("audio_classification"), Agent: "Claude 3 Opus", Model: Some("c3o"), Kind: "agent",
		TimeLimitS: Some(int64(36000)), StartedAt: Some(msUTC(1734655400000)), CompletedAt: Some(msUTC(1734656700000)),
		DurationS: Some(secondsBetween(1734655400000, 1734656700000)), Score: Some(0.4411111111),
		ScoreBinarized: Some(int8(0)), HumanMinutes: Some(945.0),
		EqualTaskWeight: eq, InvsqrtTaskWeight: inv, SourceFile: path, SourceLine: 4,
	})
	// runs.jsonl schema: score_cont → score, task_source "RE-Bench" →
	// re-bench, generation_cost → cost_usd, tokens_count → tokens,
	// scaffold and task_version kept.
	eq, inv = w(0.01, 0.02)
	want = append(want, Run{
		RunID: "th1-rebench-0001", Benchmark: "re-bench", TaskID: "ai_rd_restricted_mlm/main",
		TaskFamily: Some("ai_rd_restricted_mlm"), Agent: "Claude 3.7 Sonnet", Model: Some("claude-3-7-sonnet-20250219"),
		Scaffold: Some("triframe"), Kind: "agent",
		TimeLimitS: Some(int64(28800)), StartedAt: Some(msUTC(1740000000000)), CompletedAt: Some(msUTC(1740028800000)),
		DurationS: Some(28800.0), Score: Some(0.4125), ScoreBinarized: Some(int8(0)), HumanMinutes: Some(480.0),
		TaskVersion: Some("0.2.5"), Tokens: Some(1234567.0), CostUSD: Some(12.75),
		EqualTaskWeight: eq, InvsqrtTaskWeight: inv, SourceFile: path, SourceLine: 5,
	})
	// task_source "SWAA" wins over the family rule (which would say hcast);
	// null time_limit and timestamps stay null.
	eq, inv = w(0.5, 0.25)
	want = append(want, Run{
		RunID: "th1-swaa-0001", Benchmark: "swaa", TaskID: "choose_word/apple",
		TaskFamily: Some("choose_word"), Agent: "GPT-4o", Model: Some("gpt-4o-2024-05-13"), Scaffold: Some("flock"), Kind: "agent",
		Score: Some(1.0), ScoreBinarized: Some(int8(1)), HumanMinutes: Some(0.05),
		TaskVersion: Some("1.0.0"), Tokens: Some(812.0), CostUSD: Some(0.0021),
		EqualTaskWeight: eq, InvsqrtTaskWeight: inv, SourceFile: path, SourceLine: 6,
	})

	if len(ds.Runs) != len(want) {
		t.Fatalf("got %d runs, want %d", len(ds.Runs), len(want))
	}
	for i := range want {
		checkSame(t, "run "+want[i].RunID, want[i], ds.Runs[i])
	}

	t.Run("durations", func(t *testing.T) {
		// Independent of the helper: 1734069300000 − 1734066800000 ms = 2500 s;
		// 1734656700000 − 1734655400000 ms = 1300 s.
		for id, d := range map[string]float64{"demo-agent-run-1": 2500, "demo-agent-run-2": 1300, "9065": 28800, "9067": 29700} {
			if r := runsByID(t, ds)[id]; !r.DurationS.Valid || !near(r.DurationS.V, d, 1e-9) {
				t.Errorf("%s: duration_s %+v, want %v", id, r.DurationS, d)
			}
		}
	})

	t.Run("timestamps are UTC", func(t *testing.T) {
		r := runsByID(t, ds)["demo-agent-run-1"]
		if loc := r.StartedAt.V.Location(); loc != time.UTC {
			t.Errorf("started_at location %v, want UTC", loc)
		}
		// 1734066800000 ms = 2024-12-13T05:13:20Z (date -u -d @1734066800).
		if want := time.Date(2024, 12, 13, 5, 13, 20, 0, time.UTC); !r.StartedAt.V.Equal(want) {
			t.Errorf("started_at %v, want %v", r.StartedAt.V, want)
		}
	})

	t.Run("stats and warnings", func(t *testing.T) {
		if len(ds.Inputs) != 1 {
			t.Fatalf("inputs %+v", ds.Inputs)
		}
		st := ds.Inputs[0]
		fi, _ := os.Stat(path)
		if st.Reader != ReaderMETR || st.RowsRead != 6 || st.RowsKept != 6 || st.RowsRejected != 0 ||
			st.Bytes != fi.Size() || len(st.SHA256) != 64 || st.Gzip {
			t.Errorf("input stats %+v", st)
		}
		// fatal_error_from, human_score, human_source, human_cost and cloned
		// are known METR keys: no unknown-field warning.
		if w := warningsWith(ds, "unknown fields"); len(w) != 0 {
			t.Errorf("unexpected warnings %v", w)
		}
	})

	t.Run("tasks table", func(t *testing.T) {
		// re-bench: the 7 catalog tasks (catalogs/re-bench.yaml), whose
		// human_reference comes from the catalog (fix_embedding 1.045).
		n := 0
		for _, tk := range ds.Tasks {
			if tk.Benchmark == "re-bench" {
				n++
			}
		}
		if n != 7 {
			t.Errorf("%d re-bench tasks, want the 7 of the catalog", n)
		}
		if tk, ok := findTask(ds, "re-bench", "ai_rd_fix_embedding/main"); !ok || tk.HumanReference != Some(1.045) {
			t.Errorf("fix_embedding task %+v (found %v), want human_reference 1.045", tk, ok)
		}
		// hcast is not in the catalog: the task is built from the run, and
		// METR's human_score (0.855 in the fixture row) becomes human_reference.
		tk, ok := findTask(ds, "hcast", "audio_classification/macaques_numpy")
		checkSame(t, "hcast task", Task{TaskID: "audio_classification/macaques_numpy", Benchmark: "hcast",
			Family: Some("audio_classification"), HumanReference: Some(0.855)}, tk)
		if !ok {
			t.Error("hcast task missing")
		}
		// human_score null → no human_reference.
		tk, ok = findTask(ds, "swaa", "choose_word/apple")
		if !ok || tk.HumanReference.Valid || tk.Family != Some("choose_word") {
			t.Errorf("swaa task %+v (found %v)", tk, ok)
		}
		if len(ds.Tasks) != 9 {
			t.Errorf("%d tasks, want 7 re-bench + 1 hcast + 1 swaa", len(ds.Tasks))
		}
	})

	t.Run("human_score fills a catalog task without human_reference", func(t *testing.T) {
		// A catalog whose RE-Bench tasks have no human_reference: METR's
		// human_score (fix_embedding 1.045, triton 0.62, restricted_mlm
		// 1.241 in the fixture rows) must fill it.
		cat := &Catalog{}
		err := cat.AddYAML("test.yaml", []byte(`benchmark: re-bench
tasks:
  - {task_id: ai_rd_fix_embedding/main, family: ai_rd_fix_embedding}
  - {task_id: ai_rd_triton_cumsum/main, family: ai_rd_triton_cumsum}
  - {task_id: ai_rd_restricted_mlm/main, family: ai_rd_restricted_mlm}
  - {task_id: ai_rd_nanogpt_chat_rl/main, family: ai_rd_nanogpt_chat_rl}
`))
		if err != nil {
			t.Fatal(err)
		}
		ds := loadOK(t, []string{path}, Options{Catalog: cat})
		for id, h := range map[string]Opt[float64]{
			"ai_rd_fix_embedding/main":   Some(1.045),
			"ai_rd_triton_cumsum/main":   Some(0.62),
			"ai_rd_restricted_mlm/main":  Some(1.241),
			"ai_rd_nanogpt_chat_rl/main": {}, // no run, no human_score
		} {
			if tk, ok := findTask(ds, "re-bench", id); !ok || tk.HumanReference != h {
				t.Errorf("%s: task %+v (found %v), want human_reference %+v", id, tk, ok, h)
			}
		}
	})
}

// TestMETRBenchmarkRules checks the benchmark of METR rows: task_source
// wins over the ai_rd_ family rule, and Options.Benchmark wins over both.
func TestMETRBenchmarkRules(t *testing.T) {
	const head = `{"run_id":"r0","task_id":"ai_rd_x/main","task_family":"ai_rd_x","alias":"A","score":0.5}` + "\n"
	for _, tc := range []struct {
		name, line string
		opt        Options
		want       string
	}{
		{"family ai_rd_", `{"run_id":"r1","task_id":"ai_rd_x/main","task_family":"ai_rd_x","alias":"A","score":0.5}`, Options{}, "re-bench"},
		{"no family: task_id prefix", `{"run_id":"r1","task_id":"ai_rd_x/main","alias":"A","score":0.5}`, Options{}, "re-bench"},
		{"other family", `{"run_id":"r1","task_id":"crossword/5x5","task_family":"crossword","alias":"A","score":0.5}`, Options{}, "hcast"},
		{"task_source HCAST wins over ai_rd_", `{"run_id":"r1","task_id":"ai_rd_x/main","task_family":"ai_rd_x","alias":"A","score_cont":0.5,"task_source":"HCAST"}`, Options{}, "hcast"},
		{"task_source RE-Bench normalized", `{"run_id":"r1","task_id":"x/main","task_family":"x","alias":"A","score_cont":0.5,"task_source":"RE-Bench"}`, Options{}, "re-bench"},
		{"Options.Benchmark wins", `{"run_id":"r1","task_id":"x/main","task_family":"x","alias":"A","score_cont":0.5,"task_source":"SWAA"}`, Options{Benchmark: "Custom"}, "custom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeTemp(t, "runs.jsonl", head+tc.line+"\n")
			ds := loadOK(t, []string{p}, tc.opt)
			if got := runsByID(t, ds)["r1"].Benchmark; got != tc.want {
				t.Errorf("benchmark %q, want %q", got, tc.want)
			}
		})
	}
}

// TestMETRBadRows checks positioned errors for bad METR rows.
func TestMETRBadRows(t *testing.T) {
	const head = `{"run_id":"r0","task_id":"t/main","alias":"A","score":0.5}` + "\n"
	for _, tc := range []struct {
		name, line, field, msg string
	}{
		{"score is a string", `{"run_id":"r1","task_id":"t/main","alias":"A","score":"n/a"}`, "score", `want number, got string "n/a"`},
		{"no alias", `{"run_id":"r1","task_id":"t/main","score":0.5}`, "agent", "missing required field"},
		{"no run_id", `{"task_id":"t/main","alias":"A","score":0.5}`, "run_id", "missing required field"},
		{"fractional run_id", `{"run_id":1.5,"task_id":"t/main","alias":"A","score":0.5}`, "run_id", "want string or integer id"},
		{"completed before started", `{"run_id":"r1","task_id":"t/main","alias":"A","score":0.5,"started_at":1734066800000,"completed_at":1734066799000}`, "completed_at", "1 s before started_at"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeTemp(t, "runs.jsonl", head+tc.line+"\n")
			ds := load(t, []string{p}, Options{})
			checkError(t, ds, p, 2, tc.field, tc.msg)
			if len(ds.Runs) != 1 || ds.Inputs[0].RowsRejected != 1 || ds.Inputs[0].RowsKept != 1 {
				t.Errorf("runs %d, stats %+v; want the good first row kept and one rejected", len(ds.Runs), ds.Inputs[0])
			}
		})
	}
}

// ---------------------------------------------------------------------------
// 2. score.log CSV (METR task-protected-scoring)

// scoreLog42 are the entries of testdata/good/runs/run-42/score.log: ISO
// timestamps with T and +00:00, with a space, and without a zone (UTC); a
// "nan" score marks an invalid attempt.
var scoreLog42 = []struct {
	at      time.Time
	raw     float64
	message string
}{
	{time.Date(2024, 11, 22, 10, 15, 3, 123456000, time.UTC), 1.2345, `{"status": "ok"}`},
	{time.Date(2024, 11, 22, 10, 45, 0, 500000000, time.UTC), math.NaN(), `{"error": "RuntimeError: CUDA out of memory"}`},
	{time.Date(2024, 11, 22, 11, 0, 0, 0, time.UTC), 0.9876, "ok – faster ✓"},
}

func checkScoreLog42(t *testing.T, ds *Dataset, runID string, elapsed []float64) {
	t.Helper()
	if len(ds.Scores) != len(scoreLog42) {
		t.Fatalf("%d score entries, want %d", len(ds.Scores), len(scoreLog42))
	}
	for i, w := range scoreLog42 {
		e := ds.Scores[i]
		want := ScoreEntry{RunID: runID, ElapsedS: Some(elapsed[i]), ScoredAt: Some(w.at), RawScore: w.raw, Message: Some(w.message)}
		if e.ElapsedS.Valid && near(e.ElapsedS.V, elapsed[i], 1e-9) {
			e.ElapsedS.V = elapsed[i] // float rounding of the subtraction
		}
		checkSame(t, fmt.Sprintf("score entry %d", i), want, e)
		if e.ScoredAt.Valid && e.ScoredAt.V.Location() != time.UTC {
			t.Errorf("entry %d: scored_at location %v, want UTC", i, e.ScoredAt.V.Location())
		}
	}
}

func TestScoreLogCSV(t *testing.T) {
	logPath := fixture("runs", "run-42", "score.log")

	t.Run("alone: elapsed from the first entry", func(t *testing.T) {
		ds := loadOK(t, []string{logPath}, Options{})
		if len(ds.Inputs) != 1 || ds.Inputs[0].Reader != ReaderScoreLogCSV || ds.Inputs[0].RowsRead != 3 || ds.Inputs[0].RowsKept != 3 {
			t.Errorf("inputs %+v", ds.Inputs)
		}
		// run-42 is unknown: elapsed counts from 10:15:03.123456:
		// 0, 29:57.376544 = 1797.376544 s, 44:56.876544 = 2696.876544 s.
		checkScoreLog42(t, ds, "run-42", []float64{0, 1797.376544, 2696.876544})
		w := warningsWith(ds, "first entry")
		if len(w) != 1 || !strings.Contains(w[0].Msg, "run-42") || !strings.Contains(w[0].Msg, "1 runs") {
			t.Errorf("warnings %v, want one naming run-42", ds.Warnings)
		}
		if len(ds.Runs) != 0 || len(ds.Tasks) != 0 {
			t.Errorf("runs %d tasks %d, want none", len(ds.Runs), len(ds.Tasks))
		}
	})

	t.Run("with the run's start", func(t *testing.T) {
		// testdata/good/runs/runs.jsonl has run-42 with started_at
		// 1732269600000 ms = 2024-11-22T10:00:00Z, so elapsed = scored_at −
		// 10:00:00: 903.123456, 2700.5, 3600 s.
		ds := loadOK(t, []string{fixture("runs")}, Options{})
		checkScoreLog42(t, ds, "run-42", []float64{903.123456, 2700.5, 3600})
		if w := warningsWith(ds, "first entry"); len(w) != 0 {
			t.Errorf("unexpected warning %v", w)
		}
		if r := runsByID(t, ds)["run-42"]; !r.StartedAt.Valid || !r.StartedAt.V.Equal(time.Date(2024, 11, 22, 10, 0, 0, 0, time.UTC)) {
			t.Errorf("run-42 started_at %+v", r.StartedAt)
		}
		// The same, with the two files given in the other order.
		ds = loadOK(t, []string{logPath, fixture("runs", "runs.jsonl")}, Options{})
		checkScoreLog42(t, ds, "run-42", []float64{903.123456, 2700.5, 3600})
	})

	t.Run("Options.RunID overrides the folder", func(t *testing.T) {
		ds := loadOK(t, []string{logPath}, Options{RunID: "custom-7"})
		checkScoreLog42(t, ds, "custom-7", []float64{0, 1797.376544, 2696.876544})
		// With RunID set, run-42's start in runs.jsonl no longer applies.
		ds = loadOK(t, []string{fixture("runs")}, Options{RunID: "custom-7"})
		checkScoreLog42(t, ds, "custom-7", []float64{0, 1797.376544, 2696.876544})
	})

	t.Run("bad rows", func(t *testing.T) {
		for _, tc := range []struct {
			name, row, field, msg string
		}{
			{"bad timestamp", "yesterday,1.0,,", "timestamp", `want ISO 8601 timestamp, got "yesterday"`},
			{"bad score", "2024-11-22T10:15:03+00:00,high,,", "score", `want number, got "high"`},
			{"infinite score", "2024-11-22T10:15:03+00:00,inf,,", "score", "finite"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				p := writeTemp(t, "run-9/score.log", "timestamp,score,message,details\n2024-11-22T10:00:00+00:00,0.5,,\n"+tc.row+"\n")
				ds := load(t, []string{p}, Options{})
				checkError(t, ds, p, 3, tc.field, tc.msg)
				if len(ds.Scores) != 1 || ds.Scores[0].RunID != "run-9" {
					t.Errorf("scores %+v, want the good row of run-9", ds.Scores)
				}
			})
		}
	})
}

// TestScoreLogCSVRelativePath: a score.log given as a bare relative name
// ("score.log", read from the current folder) must take its run id from the
// current folder's name, as the doc of Options.RunID says ("the name of the
// file's folder"), or be refused; it must not be ".".
func TestScoreLogCSVRelativePath(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run-77")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "score.log"), []byte("timestamp,score,message,details\n2024-11-22T10:00:00+00:00,0.5,,\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	ds := load(t, []string{"score.log"}, Options{})
	if ds.Err() == nil && (len(ds.Scores) != 1 || ds.Scores[0].RunID != "run-77") {
		t.Errorf("scores %+v: want run_id \"run-77\" (or an error asking for --run-id)", ds.Scores)
	}
}

// TestScoreLogCSVTimestamps: zone offsets convert to UTC; CRLF line ends
// and a byte-order mark are accepted; entries of two runs interleaved and
// out of time order each count from their own earliest entry.
func TestScoreLogCSVTimestamps(t *testing.T) {
	t.Run("offset, CRLF, BOM", func(t *testing.T) {
		p := writeTemp(t, "run-5/score.log", "\ufefftimestamp,score,message,details\r\n"+
			"2024-11-22T12:15:03+02:00,0.5,a,{}\r\n"+ // 10:15:03Z
			"2024-11-22T10:20:03.5Z,0.75,b,{}\r\n") // 5 min 0.5 s later
		ds := loadOK(t, []string{p}, Options{})
		if ds.Inputs[0].Reader != ReaderScoreLogCSV || len(ds.Scores) != 2 {
			t.Fatalf("reader %q, %d scores", ds.Inputs[0].Reader, len(ds.Scores))
		}
		checkSame(t, "scores", []ScoreEntry{
			{RunID: "run-5", ElapsedS: Some(0.0), ScoredAt: Some(time.Date(2024, 11, 22, 10, 15, 3, 0, time.UTC)), RawScore: 0.5, Message: Some("a")},
			{RunID: "run-5", ElapsedS: Some(300.5), ScoredAt: Some(time.Date(2024, 11, 22, 10, 20, 3, 5e8, time.UTC)), RawScore: 0.75, Message: Some("b")},
		}, ds.Scores)
	})
	t.Run("interleaved runs", func(t *testing.T) {
		// scored_at in ms: A at 10:00:10, B at 10:00:00, A at 10:00:00
		// (A's earliest comes last), B at 10:00:30.
		const t0 int64 = 1732269600000 // 2024-11-22T10:00:00Z
		p := writeTemp(t, "scores.jsonl", fmt.Sprintf(
			`{"run_id":"A","scored_at":%d,"score":1}`+"\n"+`{"run_id":"B","scored_at":%d,"score":2}`+"\n"+
				`{"run_id":"A","scored_at":%d,"score":3}`+"\n"+`{"run_id":"B","scored_at":%d,"score":4}`+"\n",
			t0+10000, t0, t0, t0+30000))
		ds := loadOK(t, []string{p}, Options{Reader: ReaderScoreLogJSONL})
		var got []float64
		for _, e := range ds.Scores {
			got = append(got, e.ElapsedS.V)
		}
		if want := []float64{10, 0, 0, 30}; !reflect.DeepEqual(got, want) {
			t.Errorf("elapsed %v, want %v", got, want)
		}
		if w := warningsWith(ds, "first entry"); len(w) != 1 || !strings.Contains(w[0].Msg, "2 runs") || !strings.Contains(w[0].Msg, "(A, B)") {
			t.Errorf("warnings %v", ds.Warnings)
		}
	})
}

// ---------------------------------------------------------------------------
// 3. score logs as JSON Lines

func TestScoreLogJSONL(t *testing.T) {
	t.Run("elapsed_s", func(t *testing.T) {
		path := fixture("scores", "scores.jsonl")
		ds := loadOK(t, []string{path}, Options{})
		if ds.Inputs[0].Reader != ReaderScoreLogJSONL || ds.Inputs[0].RowsKept != 3 {
			t.Errorf("input %+v", ds.Inputs[0])
		}
		// null score → NaN (an invalid attempt); a missing message stays null.
		checkSame(t, "scores", []ScoreEntry{
			{RunID: "demo-agent-run-1", ElapsedS: Some(120.5), RawScore: 1.1, Message: Some("first try")},
			{RunID: "demo-agent-run-1", ElapsedS: Some(900.0), RawScore: math.NaN(), Message: Some("invalid: kernel crashed")},
			{RunID: "demo-agent-run-1", ElapsedS: Some(1500.25), RawScore: 0.85},
		}, ds.Scores)
		if len(ds.Warnings) != 0 {
			t.Errorf("warnings %v", ds.Warnings)
		}
	})

	t.Run("Vivaria elapsedTime in ms", func(t *testing.T) {
		// run_id 7001 as a JSON integer and as runId "7001"; elapsedTime
		// 65000 ms = 65 s, 3600500 ms = 3600.5 s.
		ds := loadOK(t, []string{fixture("scores", "vivaria.jsonl")}, Options{})
		if ds.Inputs[0].Reader != ReaderScoreLogJSONL {
			t.Errorf("reader %q", ds.Inputs[0].Reader)
		}
		checkSame(t, "scores", []ScoreEntry{
			{RunID: "7001", ElapsedS: Some(65.0), RawScore: 0.5, Message: Some("ok")},
			{RunID: "7001", ElapsedS: Some(3600.5), RawScore: math.NaN()},
		}, ds.Scores)
	})

	t.Run("CSV with the JSONL column names", func(t *testing.T) {
		p := writeTemp(t, "scores.csv", "run_id,elapsed_s,score,message\nr1,10.5,0.25,ok\nr1,20,nan,\nr1,30,,bad\n")
		ds := loadOK(t, []string{p}, Options{})
		if ds.Inputs[0].Reader != ReaderScoreLogJSONL {
			t.Errorf("reader %q, want %q", ds.Inputs[0].Reader, ReaderScoreLogJSONL)
		}
		checkSame(t, "scores", []ScoreEntry{
			{RunID: "r1", ElapsedS: Some(10.5), RawScore: 0.25, Message: Some("ok")},
			{RunID: "r1", ElapsedS: Some(20.0), RawScore: math.NaN()},
			{RunID: "r1", ElapsedS: Some(30.0), RawScore: math.NaN(), Message: Some("bad")},
		}, ds.Scores)
	})

	t.Run("scored_at only: elapsed from the first entry", func(t *testing.T) {
		// Detection needs an elapsed key, so a log with timestamps only
		// must name its reader.
		p := writeTemp(t, "scores.jsonl", `{"run_id":"r1","scored_at":"2024-11-22T10:00:00Z","score":1}`+"\n"+
			`{"run_id":"r1","scored_at":1732270200000,"score":2}`+"\n") // 10:10:00Z in ms
		ds := loadOK(t, []string{p}, Options{Reader: ReaderScoreLogJSONL})
		if len(ds.Scores) != 2 || ds.Scores[0].ElapsedS != Some(0.0) || ds.Scores[1].ElapsedS != Some(600.0) {
			t.Errorf("scores %+v, want elapsed 0 and 600", ds.Scores)
		}
		if len(warningsWith(ds, "first entry")) != 1 {
			t.Errorf("warnings %v", ds.Warnings)
		}
	})

	const first = `{"run_id":"r1","elapsed_s":1,"score":0.5}` + "\n"
	for _, tc := range []struct {
		name, line, field, msg string
	}{
		{"negative elapsed_s", `{"run_id":"r1","elapsed_s":-1,"score":0.5}`, "elapsed_s", "negative elapsed time"},
		{"negative elapsedTime", `{"run_id":"r1","elapsedTime":-5000,"score":0.5}`, "elapsed_s", "negative elapsed time"},
		{"missing run_id", `{"elapsed_s":2,"score":0.5}`, "run_id", "missing required field"},
		{"empty run_id", `{"run_id":"","elapsed_s":2,"score":0.5}`, "run_id", "empty id"},
		{"missing elapsed", `{"run_id":"r1","score":0.5}`, "elapsed_s", "missing"},
		{"score as text", `{"run_id":"r1","elapsed_s":2,"score":"nan"}`, "score", `want number, got string "nan"`},
		{"elapsed as text", `{"run_id":"r1","elapsed_s":"2","score":0.5}`, "elapsed_s", `want number, got string "2"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeTemp(t, "scores.jsonl", first+tc.line+"\n")
			ds := load(t, []string{p}, Options{})
			checkError(t, ds, p, 2, tc.field, tc.msg)
			if len(ds.Scores) != 1 || ds.Inputs[0].RowsRejected != 1 {
				t.Errorf("scores %d, stats %+v", len(ds.Scores), ds.Inputs[0])
			}
			// The printed error names the file, line and field.
			if s := ds.Errors[0].Error(); !strings.HasPrefix(s, fmt.Sprintf("%s:2: field %q: ", p, tc.field)) {
				t.Errorf("error text %q", s)
			}
		})
	}

	t.Run("unknown field warning", func(t *testing.T) {
		p := writeTemp(t, "scores.jsonl", `{"run_id":"r1","elapsed_s":1,"score":0.5,"details":{},"zeta":1}`+"\n"+`{"run_id":"r1","elapsed_s":2,"score":0.5,"details":{}}`+"\n")
		ds := loadOK(t, []string{p}, Options{})
		w := warningsWith(ds, "unknown fields")
		if len(w) != 1 || !strings.Contains(w[0].Msg, "details, zeta") {
			t.Errorf("warnings %v, want one listing details, zeta", ds.Warnings)
		}
	})
}

// ---------------------------------------------------------------------------
// 4. RExBench per-run records

func TestRExBenchRunsJSONL(t *testing.T) {
	path := fixture("rexbench", "runs.jsonl")
	ds := loadOK(t, []string{path}, Options{})
	if ds.Inputs[0].Reader != ReaderRExBenchRuns || ds.Inputs[0].RowsKept != 5 {
		t.Errorf("input %+v", ds.Inputs[0])
	}
	oh := func(r Run) Run {
		r.Benchmark, r.Kind, r.SourceFile = "rexbench", "agent", path
		r.Agent = r.Scaffold.V + " + " + r.Model.V
		return r
	}
	want := []Run{
		// hint "default" → no_hints; "run" → trial; outcome success →
		// final and exec success.
		oh(Run{RunID: "oh-c4s-cogs-default-1", TaskID: "cogs", Model: Some("Claude 4 Sonnet"), Scaffold: Some("OpenHands"),
			HintLevel: Some("no_hints"), Trial: Some(int64(1)), FinalSuccess: Some(true), ExecSuccess: Some(true),
			Outcome: Some("success"), FilesEdited: []string{"run_final.sh", "scripts/run_transformer_small_no_early_stopping.sh"},
			LinesAdded: Some(int64(42)), LinesDeleted: Some(int64(3)), ResultValue: Some(0.4562857142857143), FileRecall: Some(1.0),
			SourceLine: 1}),
		// more_detailed_hints → detailed_hints; wrong_result agrees with
		// final_success=false and execution_success=true.
		oh(Run{RunID: "oh-c4s-cogs-mdh-2", TaskID: "cogs", Model: Some("Claude 4 Sonnet"), Scaffold: Some("OpenHands"),
			HintLevel: Some("detailed_hints"), Trial: Some(int64(2)), FinalSuccess: Some(false), ExecSuccess: Some(true),
			Outcome: Some("wrong_result"), FilesEdited: []string{"run_final.sh"}, ResultValue: Some(0.4724761904761905),
			FileRecall: Some(0.5), SourceLine: 2}),
		// exec_error → neither success; files_edited [] stays an empty
		// (not null) list.
		oh(Run{RunID: "aider-o1-othello-hints-1", TaskID: "othello", Model: Some("OpenAI o1"), Scaffold: Some("aider"),
			HintLevel: Some("hints"), Trial: Some(int64(1)), Seed: Some(int64(1234)), FinalSuccess: Some(false), ExecSuccess: Some(false),
			Outcome: Some("exec_error"), ErrorType: Some("ValueError"), FilesEdited: []string{},
			LinesAdded: Some(int64(0)), LinesDeleted: Some(int64(0)), SourceLine: 3}),
		// No outcome: derived from final/exec success.
		oh(Run{RunID: "aider-o1-othello-hints-2", TaskID: "othello", Model: Some("OpenAI o1"), Scaffold: Some("aider"),
			HintLevel: Some("hints"), Trial: Some(int64(2)), FinalSuccess: Some(true), ExecSuccess: Some(true),
			Outcome: Some("success"), SourceLine: 4}),
		oh(Run{RunID: "aider-o1-othello-hints-3", TaskID: "othello", Model: Some("OpenAI o1"), Scaffold: Some("aider"),
			HintLevel: Some("hints"), Trial: Some(int64(3)), FinalSuccess: Some(false), ExecSuccess: Some(true),
			Outcome: Some("wrong_result"), SourceLine: 5}),
	}
	checkSame(t, "runs", want, ds.Runs)
	if want[0].Agent != "OpenHands + Claude 4 Sonnet" {
		t.Fatalf("test helper: agent %q", want[0].Agent)
	}
	// rexbench tasks: the 12 of catalogs/rexbench.yaml.
	if len(ds.Tasks) != 12 {
		t.Errorf("%d tasks, want 12", len(ds.Tasks))
	}
}

func TestRExBenchRunsCSV(t *testing.T) {
	path := fixture("rexbench", "runs.csv")
	ds := loadOK(t, []string{path}, Options{})
	if ds.Inputs[0].Reader != ReaderRExBenchRuns || ds.Inputs[0].RowsKept != 3 {
		t.Errorf("input %+v", ds.Inputs[0])
	}
	base := Run{Benchmark: "rexbench", TaskID: "winodict", Agent: "aider + Claude 3.7 Sonnet", Model: Some("Claude 3.7 Sonnet"),
		Scaffold: Some("aider"), Kind: "agent", Trial: Some(int64(1)), SourceFile: path}
	r1, r2, r3 := base, base, base
	// 0/1 booleans; empty files_edited → null (unknown).
	r1.RunID, r1.HintLevel, r1.Outcome, r1.FinalSuccess, r1.ExecSuccess = "aider-c37-winodict-default-1", Some("no_hints"), Some("no_patch"), Some(false), Some(false)
	r1.ErrorType, r1.LinesAdded, r1.LinesDeleted, r1.SourceLine = Some("empty patch"), Some(int64(0)), Some(int64(0)), 2
	// "a.py;b.py" → a list.
	r2.RunID, r2.HintLevel, r2.Outcome, r2.FinalSuccess, r2.ExecSuccess = "aider-c37-winodict-mdh-1", Some("detailed_hints"), Some("success"), Some(true), Some(true)
	r2.FilesEdited, r2.LinesAdded, r2.LinesDeleted, r2.SourceLine = []string{"a.py", "b.py"}, Some(int64(10)), Some(int64(2)), 3
	// true/false words; a JSON array in a CSV field.
	r3.RunID, r3.HintLevel, r3.Outcome, r3.FinalSuccess, r3.ExecSuccess = "aider-c37-winodict-hints-1", Some("hints"), Some("timeout"), Some(false), Some(false)
	r3.ErrorType, r3.FilesEdited, r3.LinesAdded, r3.LinesDeleted, r3.SourceLine = Some("Execution Timeout"), []string{"run_final.sh"}, Some(int64(5)), Some(int64(0)), 4
	checkSame(t, "runs", []Run{r1, r2, r3}, ds.Runs)
}

func TestRExBenchRunsRejected(t *testing.T) {
	const first = `{"run_id":"ok","framework":"aider","model":"m","hint_level":"hints","task":"cogs","outcome":"success"}` + "\n"
	for _, tc := range []struct {
		name, line, field, msg string
	}{
		{"final_success contradicts success", `{"run_id":"x","framework":"aider","model":"m","hint_level":"hints","task":"cogs","outcome":"success","final_success":false}`,
			"final_success", `final_success=false contradicts outcome "success"`},
		{"final_success contradicts exec_error", `{"run_id":"x","framework":"aider","model":"m","hint_level":"hints","task":"cogs","outcome":"exec_error","final_success":true}`,
			"final_success", `final_success=true contradicts outcome "exec_error"`},
		{"execution_success contradicts no_patch", `{"run_id":"x","framework":"aider","model":"m","hint_level":"hints","task":"cogs","outcome":"no_patch","execution_success":true}`,
			"exec_success", `exec_success=true contradicts outcome "no_patch"`},
		{"unknown outcome", `{"run_id":"x","framework":"aider","model":"m","hint_level":"hints","task":"cogs","outcome":"crashed"}`,
			"outcome", "want one of no_patch"},
		{"no model", `{"run_id":"x","framework":"aider","hint_level":"hints","task":"cogs"}`, "agent", "missing required field"},
		{"files_edited not a list", `{"run_id":"x","framework":"aider","model":"m","hint_level":"hints","task":"cogs","files_edited":"a.py"}`,
			"files_edited", "want array of strings"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeTemp(t, "runs.jsonl", first+tc.line+"\n")
			ds := load(t, []string{p}, Options{})
			checkError(t, ds, p, 2, tc.field, tc.msg)
		})
	}
	t.Run("CSV contradiction", func(t *testing.T) {
		p := writeTemp(t, "runs.csv", "run_id,framework,model,hint_level,task_id,outcome,final_success\nx,aider,m,hints,cogs,success,0\n")
		ds := load(t, []string{p}, Options{})
		checkError(t, ds, p, 2, "final_success", `contradicts outcome "success"`)
	})
}

// ---------------------------------------------------------------------------
// 5. generic reader with a column mapping

func TestGenericMapped(t *testing.T) {
	csvPath, jsonPath := fixture("mapped", "generic.csv"), fixture("mapped", "generic.jsonl")
	mapping := map[string]string{"agent": "model_name", "score": "final"}

	t.Run("with benchmark", func(t *testing.T) {
		ds := loadOK(t, []string{csvPath, jsonPath}, Options{Map: mapping, Benchmark: "My-Bench"})
		for _, st := range ds.Inputs {
			if st.Reader != ReaderGeneric {
				t.Errorf("%s: reader %q, want generic", st.Path, st.Reader)
			}
		}
		// Benchmark names are lower-cased; agent "human" makes a human run;
		// run_id, task_id, seed and weight are canonical names (passthrough).
		checkSame(t, "runs", []Run{
			{RunID: "gen-c1", Benchmark: "my-bench", TaskID: "taskA", Agent: "my-agent", Kind: "agent", Score: Some(0.75), Seed: Some(int64(7)), SourceFile: csvPath, SourceLine: 2},
			{RunID: "gen-c2", Benchmark: "my-bench", TaskID: "taskB", Agent: "human", Kind: "human", Score: Some(1.0), SourceFile: csvPath, SourceLine: 3},
			{RunID: "gen-j1", Benchmark: "my-bench", TaskID: "taskA", Agent: "my-agent", Kind: "agent", Score: Some(0.5), SourceFile: jsonPath, SourceLine: 1},
			{RunID: "gen-j2", Benchmark: "my-bench", TaskID: "taskC", Agent: "other-agent", Kind: "agent", Score: Some(0.0), Weight: Some(2.5), SourceFile: jsonPath, SourceLine: 2},
		}, ds.Runs)
		// One warning per file listing the unmapped fields (sorted).
		for _, p := range []string{csvPath, jsonPath} {
			var got []Warning
			for _, w := range ds.Warnings {
				if w.File == p && strings.Contains(w.Msg, "unknown fields") {
					got = append(got, w)
				}
			}
			if len(got) != 1 || !strings.Contains(got[0].Msg, "ignored unknown fields: gpu, notes ") {
				t.Errorf("%s: warnings %v, want one listing gpu, notes", p, got)
			}
		}
		// Tasks not in any catalog are built from the runs.
		if len(ds.Tasks) != 3 {
			t.Errorf("tasks %+v, want taskA, taskB, taskC", ds.Tasks)
		}
	})

	t.Run("missing benchmark", func(t *testing.T) {
		ds := load(t, []string{csvPath, jsonPath}, Options{Map: mapping})
		if len(ds.Errors) != 4 || len(ds.Runs) != 0 {
			t.Fatalf("errors %d runs %d, want every one of the 4 rows rejected", len(ds.Errors), len(ds.Runs))
		}
		for _, e := range ds.Errors {
			if e.Field != "benchmark" || !strings.Contains(e.Msg, "pass --benchmark") || e.Line == 0 {
				t.Errorf("error %q, want field benchmark and a hint to pass --benchmark", e)
			}
		}
	})

	t.Run("canonical names need no map", func(t *testing.T) {
		path := fixture("generic_canonical.csv")
		ds := loadOK(t, []string{path}, Options{})
		if ds.Inputs[0].Reader != ReaderGeneric {
			t.Errorf("reader %q", ds.Inputs[0].Reader)
		}
		start := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
		checkSame(t, "runs", []Run{
			{RunID: "gc-1", Benchmark: "swe-bench", TaskID: "django__django-11099", Agent: "my-agent", Kind: "agent",
				TimeLimitS: Some(int64(3600)), StartedAt: Some(start), CompletedAt: Some(start.Add(30 * time.Minute)), DurationS: Some(1800.0),
				Score: Some(1.0), ScoreBinarized: Some(int8(1)), HumanMinutes: Some(15.0), Weight: Some(1.0), SourceFile: path, SourceLine: 2},
			// Agent "Human" (any case) makes a human run; NA-style empties are null.
			{RunID: "gc-2", Benchmark: "swe-bench", TaskID: "django__django-11099", Agent: "Human", Kind: "human",
				StartedAt: Some(start), Score: Some(0.5), ScoreBinarized: Some(int8(0)), HumanMinutes: Some(15.0), SourceFile: path, SourceLine: 3},
		}, ds.Runs)
		if len(ds.Warnings) != 0 {
			t.Errorf("warnings %v", ds.Warnings)
		}
	})

	t.Run("bad kind", func(t *testing.T) {
		p := writeTemp(t, "g.csv", "run_id,task_id,model_name,kind\nr1,t,a,robot\n")
		ds := load(t, []string{p}, Options{Map: mapping, Benchmark: "b"})
		checkError(t, ds, p, 2, "kind", `want "agent" or "human", got "robot"`)
	})
}

// TestGenericMapColumnWithoutSetter: a mapping to a runs column that no
// input can set (source_file and source_line are set by the reader; the
// CLI's --map check, IsRunColumn, accepts them) or to no column at all must
// be refused with an error, not crash Load (JSON Lines) or be dropped
// silently (CSV).
func TestGenericMapColumnWithoutSetter(t *testing.T) {
	for _, tc := range []struct{ name, file, content, col, field string }{
		{"jsonl source_line", "g.jsonl", `{"run_id":"r","task_id":"t","agent":"a","line":5}` + "\n", "source_line", "line"},
		{"jsonl unknown column", "g.jsonl", `{"run_id":"r","task_id":"t","agent":"a","x":5}` + "\n", "bogus", "x"},
		{"csv source_file", "g.csv", "run_id,task_id,agent,file\nr,t,a,x\n", "source_file", "file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeTemp(t, tc.file, tc.content)
			var ds *Dataset
			var err error
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("Load panicked: %v", r)
					}
				}()
				ds, err = Load([]string{p}, Options{Map: map[string]string{tc.col: tc.field}, Benchmark: "b"})
			}()
			if err == nil && ds.Err() == nil {
				t.Errorf("mapping %s=%s accepted without an error", tc.col, tc.field)
			}
		})
	}
}

// TestGenericBoolScore: a boolean column mapped to the score (SWE-bench's
// is_resolved: --map score=is_resolved) reads true/false as 1/0, in JSON
// Lines and in CSV (pandas writes True/False); before, "want number, got
// bool". The expected scores are the booleans written here. Text that is
// neither a number nor a boolean is still refused.
func TestGenericBoolScore(t *testing.T) {
	mapping := map[string]string{"score": "is_resolved"}
	js := writeTemp(t, "swe.jsonl", `{"run_id":"r1","task_id":"django__django-11099","agent":"a","is_resolved":true}`+"\n"+
		`{"run_id":"r2","task_id":"django__django-11133","agent":"a","is_resolved":false}`+"\n")
	cs := writeTemp(t, "swe.csv", "run_id,task_id,agent,is_resolved\nc1,t1,a,True\nc2,t2,a,false\nc3,t3,a,1\n")
	ds := loadOK(t, []string{js, cs}, Options{Map: mapping, Benchmark: "swe-bench"})
	want := map[string]float64{"r1": 1, "r2": 0, "c1": 1, "c2": 0, "c3": 1}
	if len(ds.Runs) != len(want) {
		t.Fatalf("%d runs, want %d", len(ds.Runs), len(want))
	}
	for _, r := range ds.Runs {
		if !r.Score.Valid || r.Score.V != want[r.RunID] {
			t.Errorf("run %s: score %v, want %v", r.RunID, r.Score, want[r.RunID])
		}
	}
	bad := writeTemp(t, "bad.csv", "run_id,task_id,agent,is_resolved\nc1,t1,a,yes\n")
	ds = load(t, []string{bad}, Options{Map: mapping, Benchmark: "swe-bench"})
	checkError(t, ds, bad, 2, "is_resolved", `want number, got "yes"`)
}

// ---------------------------------------------------------------------------
// 7. the real METR files

// TestMETRReal3a947acFacts checks facts of all_runs.jsonl @3a947ac given in
// methods.md §3.2 (RE-Bench runs by alias and time limit) and §3.1 (maximum
// RE-Bench score 7.857, a human on rust_codecontests).
func TestMETRReal3a947acFacts(t *testing.T) {
	path := metrFile(t, "3a947ac7069ecb6e1fd0064cc0205e5eb9dcba0f")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("skipping: METR file %s not found", path)
	}
	ds := loadOK(t, []string{path}, Options{})

	type key struct {
		alias string
		limit int64 // -1: null
	}
	got := map[key]int{}
	var best Run
	for _, r := range ds.Runs {
		if r.Benchmark != "re-bench" {
			continue
		}
		k := key{r.Agent, -1}
		if r.TimeLimitS.Valid {
			k.limit = r.TimeLimitS.V
		}
		got[k]++
		if r.Score.Valid && (!best.Score.Valid || r.Score.V > best.Score.V) {
			best = r
		}
		if r.Kind == "human" && (r.TimeLimitS.Valid || r.StartedAt.Valid || r.CompletedAt.Valid || !r.DurationS.Valid) {
			t.Errorf("human run %s: time limit %+v, started %+v, completed %+v, duration %+v; want null, null, null, set",
				r.RunID, r.TimeLimitS, r.StartedAt, r.CompletedAt, r.DurationS)
		}
	}
	// methods.md §3.2: "Claude 3 Opus 1800→262; GPT-4 Turbo 1800→256;
	// o1-preview 1800→248, 7200→111; GPT-4o 1800→242; Claude 3.5 Sonnet (Old)
	// 1800→232; Claude 3.5 Sonnet (New) 1800→156, 7200→26, 28800→3; GPT-4 0314
	// 1800→123; o1 7200→56; human 0→93" (time_limit 0 is read as null). The
	// counts sum to the 1,808 RE-Bench rows of §3.1.
	want := map[key]int{
		{"Claude 3 Opus", 1800}: 262, {"GPT-4 Turbo", 1800}: 256,
		{"o1-preview", 1800}: 248, {"o1-preview", 7200}: 111,
		{"GPT-4o", 1800}: 242, {"Claude 3.5 Sonnet (Old)", 1800}: 232,
		{"Claude 3.5 Sonnet (New)", 1800}: 156, {"Claude 3.5 Sonnet (New)", 7200}: 26, {"Claude 3.5 Sonnet (New)", 28800}: 3,
		{"GPT-4 0314", 1800}: 123, {"o1", 7200}: 56, {"human", -1}: 93,
	}
	if !reflect.DeepEqual(got, want) {
		for k, n := range want {
			if got[k] != n {
				t.Errorf("%s @ %d s: %d runs, want %d", k.alias, k.limit, got[k], n)
			}
		}
		for k, n := range got {
			if _, ok := want[k]; !ok {
				t.Errorf("unexpected %s @ %d s: %d runs", k.alias, k.limit, n)
			}
		}
	}
	// methods.md §3.1: "max 7.857 (a human on rust)".
	if !near(best.Score.V, 7.857, 0.001) || best.Kind != "human" || best.TaskID != "ai_rd_rust_codecontests_inference/main" {
		t.Errorf("best RE-Bench score %v by %s (%s) on %s; want 7.857 by a human on rust_codecontests",
			best.Score.V, best.Agent, best.Kind, best.TaskID)
	}
	// methods.md §3.3: human_score per task; the catalog agrees.
	if tk, ok := findTask(ds, "re-bench", "ai_rd_small_scaling_law/main"); !ok || tk.HumanReference != Some(-0.828) {
		t.Errorf("small_scaling_law task %+v, want human_reference -0.828", tk)
	}
}

// ---------------------------------------------------------------------------
// misc reader behaviour

// TestLoadFolderDetection loads the whole good folder (minus the mapped
// inputs, which need Options.Map) and checks the reader picked per file.
func TestLoadFolderDetection(t *testing.T) {
	ds := loadOK(t, goodPaths(), Options{})
	want := map[string]string{
		fixture("generic_canonical.csv"):       ReaderGeneric,
		fixture("metr", "metr_runs.jsonl"):     ReaderMETR,
		fixture("rexbench", "per_task.csv"):    ReaderRExBenchTable,
		fixture("rexbench", "runs.csv"):        ReaderRExBenchRuns,
		fixture("rexbench", "runs.jsonl"):      ReaderRExBenchRuns,
		fixture("runs", "run-42", "score.log"): ReaderScoreLogCSV,
		fixture("runs", "runs.jsonl"):          ReaderMETR,
		fixture("scores", "scores.jsonl"):      ReaderScoreLogJSONL,
		fixture("scores", "vivaria.jsonl"):     ReaderScoreLogJSONL,
	}
	got := map[string]string{}
	for _, st := range ds.Inputs {
		got[st.Path] = st.Reader
		if st.RowsRejected != 0 || st.RowsKept != st.RowsRead {
			t.Errorf("%s: stats %+v", st.Path, st)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("readers:\n got %v\nwant %v", got, want)
	}
	// 6 METR + 1 run-42 + 5 + 3 RExBench runs + 2 × 5 reconstructed + 2 generic.
	if len(ds.Runs) != 27 {
		t.Errorf("%d runs, want 27", len(ds.Runs))
	}
	// 3 (score.log) + 3 (scores.jsonl) + 2 (vivaria.jsonl).
	if len(ds.Scores) != 8 {
		t.Errorf("%d score entries, want 8", len(ds.Scores))
	}
}

// goodPaths are the fixtures that load together without options.
func goodPaths() []string {
	return []string{fixture("generic_canonical.csv"), fixture("metr"), fixture("rexbench"), fixture("runs"), fixture("scores")}
}

// mappedPaths and mappedOptions load the generic fixtures.
func mappedPaths() []string { return []string{fixture("mapped")} }

func mappedOptions() Options {
	return Options{Map: map[string]string{"agent": "model_name", "score": "final"}, Benchmark: "my-bench"}
}

// TestInputErrorsFormat checks that InputErrors reads well for several
// errors (the CLI prints it).
func TestInputErrorsFormat(t *testing.T) {
	p := writeTemp(t, "scores.jsonl", `{"run_id":"r","elapsed_s":1,"score":1}`+"\n"+`{"run_id":"r","elapsed_s":-1,"score":1}`+"\n"+`{"elapsed_s":1,"score":1}`+"\n"+`{"run_id":"r","elapsed_s":-2,"score":1}`+"\n")
	ds := load(t, []string{p}, Options{})
	var ie *InputErrors
	if err := ds.Err(); !errors.As(err, &ie) || len(ie.Errs) != 3 {
		t.Fatalf("Err() = %v, want 3 errors", err)
	}
	out := ie.Format(2)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], p+":2:") || !strings.HasPrefix(lines[1], p+":3:") || lines[2] != "… and 1 more errors" {
		t.Errorf("Format(2) =\n%s", out)
	}
}

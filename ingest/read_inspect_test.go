package ingest

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func newTestLoader() *loader {
	l := newLoader(Options{})
	l.cat = BuiltinCatalog()
	return l
}

// readInspectFile reads one Inspect log with a fresh loader, choosing the
// reader by extension (as detection in Load will by content).
func readInspectFile(t testing.TB, path string) (*loader, InputStats) {
	t.Helper()
	l := newTestLoader()
	st := InputStats{Path: path}
	if strings.HasSuffix(path, ".eval") {
		l.readInspectEval(path, &st)
	} else {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !looksInspectJSON(data[:min(len(data), 64<<10)]) {
			t.Errorf("%s: looksInspectJSON = false", path)
		}
		l.readInspectJSON(path, bytes.NewReader(data), &st)
	}
	return l, st
}

// splitRunID splits base/sample/epoch.
func splitRunID(t testing.TB, id string) (sid string, epoch int) {
	t.Helper()
	i := strings.LastIndexByte(id, '/')
	j := strings.LastIndexByte(id[:i], '/')
	if i < 0 || j < 0 {
		t.Fatalf("run id %q: want base/sample/epoch", id)
	}
	ep, err := strconv.Atoi(id[i+1:])
	if err != nil {
		t.Fatalf("run id %q: epoch: %v", id, err)
	}
	return id[j+1 : i], ep
}

// TestInspectRealLogs ingests every real Inspect log under
// ../shared/anchors/inspect_ai/tests and compares counts and scores with
// testdata/reference/inspect_counts.csv, written by
// testdata/reference/inspect_counts.py (Python zipfile + json).
func TestInspectRealLogs(t *testing.T) {
	root := filepath.Join(anchorsDir(t), "inspect_ai", "tests")
	if _, err := os.Stat(root); err != nil {
		t.Skipf("skipping: Inspect logs %s not found (they sit beside the checkout as ../shared)", root)
	}
	want := inspectReference(t)
	type key = inspectKey

	var files []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".eval") || strings.HasSuffix(p, ".json")) {
			files = append(files, p)
		}
		return nil
	})
	if len(files) != 17 {
		t.Errorf("found %d Inspect logs, want 17", len(files))
	}
	total := 0
	for _, p := range files {
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		l, st := readInspectFile(t, p)
		ds := l.ds
		for _, e := range ds.Errors {
			t.Errorf("%s: unexpected error: %v", rel, e)
		}
		w := want[rel]
		if len(ds.Runs) != len(w) || st.RowsRead != len(w) || st.RowsKept != len(w) {
			t.Errorf("%s: %d runs (read %d, kept %d), want %d (samples × epochs)", rel, len(ds.Runs), st.RowsRead, st.RowsKept, len(w))
		}
		total += len(ds.Runs)
		for _, r := range ds.Runs {
			sid, ep := splitRunID(t, r.RunID)
			ws, ok := w[key{sid, ep}]
			if !ok {
				t.Errorf("%s: run %s not in the reference", rel, r.RunID)
				continue
			}
			if got := scoreText(r); got != ws {
				t.Errorf("%s: run %s: score %q, want %q", rel, r.RunID, got, ws)
			}
			if r.Benchmark != "inspect" || r.Kind != "agent" || r.Agent == "" || !strings.HasSuffix(r.TaskID, "/"+sid) {
				t.Errorf("%s: run %+v: bad benchmark/kind/agent/task_id", rel, r)
			}
			if !r.StartedAt.Valid {
				t.Errorf("%s: run %s: no started_at", rel, r.RunID)
			}
		}
		if len(w) == 0 && len(ds.Warnings) == 0 {
			t.Errorf("%s: no samples but no warning", rel)
		}
		t.Logf("%s: %d runs, %d score-log rows, warnings %v", rel, len(ds.Runs), len(ds.Scores), ds.Warnings)
	}
	nref := 0
	for _, w := range want {
		nref += len(w)
	}
	if total != nref {
		t.Errorf("%d runs in all, want %d", total, nref)
	}
}

type inspectKey struct {
	sid   string
	epoch int
}

// inspectReference reads testdata/reference/inspect_counts.csv: file →
// (sample, epoch) → score as text ("" for none), normalised as scoreText.
func inspectReference(t testing.TB) map[string]map[inspectKey]string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "reference", "inspect_counts.csv"))
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
	want := map[string]map[inspectKey]string{}
	for _, r := range recs[1:] {
		ep, _ := strconv.Atoi(r[2])
		if want[r[0]] == nil {
			want[r[0]] = map[inspectKey]string{}
		}
		ws := r[3]
		if ws != "" {
			wf, _ := strconv.ParseFloat(ws, 64)
			ws = strconv.FormatFloat(wf, 'f', -1, 64)
		}
		want[r[0]][inspectKey{r[1], ep}] = ws
	}
	return want
}

// scoreText is a run's score as text, "" when null.
func scoreText(r Run) string {
	if !r.Score.Valid {
		return ""
	}
	return strconv.FormatFloat(r.Score.V, 'f', -1, 64)
}

// TestInspectRealDetails checks mapped fields of two real logs.
func TestInspectRealDetails(t *testing.T) {
	root := filepath.Join(anchorsDir(t), "inspect_ai", "tests")
	if _, err := os.Stat(root); err != nil {
		t.Skipf("skipping: Inspect logs %s not found", root)
	}
	l, _ := readInspectFile(t, filepath.Join(root, "scorer", "logs", "2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval"))
	r := l.ds.Runs[0]
	if r.RunID != "mj7khqpMM4GBCfVQozKgzB/1/1" || r.TaskID != "popularity/1" ||
		r.Agent != "openai/gpt-4o-mini / system_message > generate" || r.Scaffold.V != "system_message > generate" ||
		r.Model.V != "openai/gpt-4o-mini" || r.Tokens.V != 66 || r.Score.V != 1 {
		t.Errorf("run %+v", r)
	}
	if !r.StartedAt.Valid || r.StartedAt.V != time.Date(2025, 2, 11, 20, 18, 4, 789234000, time.UTC) {
		t.Errorf("started_at %v", r.StartedAt)
	}
	if r.FinalSuccess.Valid || r.ExecSuccess.Valid || r.Outcome.Valid {
		t.Errorf("success fields set: %+v", r)
	}
	l, _ = readInspectFile(t, filepath.Join(root, "analysis", "test_logs", "2025-05-12T20-28-13-04-00_no-samples.json"))
	if len(l.ds.Runs) != 0 || len(l.ds.Errors) != 0 || len(l.ds.Warnings) != 1 || !strings.Contains(l.ds.Warnings[0].Msg, "cancelled") {
		t.Errorf("no-samples: runs %d errors %v warnings %v", len(l.ds.Runs), l.ds.Errors, l.ds.Warnings)
	}
	l, _ = readInspectFile(t, filepath.Join(root, "analysis", "test_logs_choices", "mmlu-summary-choices.eval"))
	if r := l.ds.Runs[0]; r.DurationS.V != 1.566 || r.StartedAt.V != time.Date(2025, 12, 19, 12, 37, 50, 892960000, time.UTC) {
		t.Errorf("mmlu: %+v", r)
	}
}

// Synthetic logs.

type synthSample struct {
	id     string // JSON text of the id
	epoch  int
	body   string // extra JSON members, e.g. `"scores": {...}`
	broken bool   // write invalid JSON
}

// synthHeader's second verb is the log's task_id (the run id prefix of a
// log without eval_id); run_id is shared, as in one eval() call.
const synthHeader = `{"version": 2, "status": %q, "eval": {"run_id": "SHARED", "created": "2025-01-02T03:04:05+00:00", "task": "t", "task_id": %q, "model": "m/x"},
 "plan": {"steps": [{"solver": "react"}]}}`

func synthSampleJSON(s synthSample) string {
	if s.broken {
		return `{"id": ` + s.id + `, "epoch": `
	}
	b := fmt.Sprintf(`{"id": %s, "epoch": %d`, s.id, s.epoch)
	if s.body != "" {
		b += ", " + s.body
	}
	return b + "}"
}

func writeSynthEval(t testing.TB, path, status string, samples []synthSample) {
	writeSynthEvalRun(t, path, "R1", status, samples)
}

func writeSynthEvalRun(t testing.TB, path, runID, status string, samples []synthSample) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	w, _ := zw.Create("header.json")
	fmt.Fprintf(w, synthHeader, status, runID)
	for _, s := range samples {
		w, _ := zw.Create(fmt.Sprintf("samples/%s_epoch_%d.json", strings.Trim(s.id, `"`), s.epoch))
		w.Write([]byte(synthSampleJSON(s)))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func synthJSON(status string, samples []synthSample) string {
	h := fmt.Sprintf(synthHeader, status, "R1")
	parts := make([]string, len(samples))
	for i, s := range samples {
		parts[i] = synthSampleJSON(s)
	}
	return h[:len(h)-1] + `, "samples": [` + strings.Join(parts, ", ") + `]}`
}

var synthScores = []synthSample{
	{id: "1", epoch: 1, body: `"scores": {"b": {"value": 0.25}, "a": {"value": "C"}}`},
	{id: "1", epoch: 2, body: `"scores": {"a": {"value": "I"}}`},
	{id: `"x"`, epoch: 1, body: `"scores": {"a": {"value": "P"}}`},
	{id: "2", epoch: 1, body: `"scores": {"a": {"value": "N"}}`},
	{id: "3", epoch: 1, body: `"scores": {"a": {"value": true}}`},
	{id: "4", epoch: 1, body: `"scores": {"a": {"value": 0.75}}`},
	{id: "5", epoch: 1, body: `"scores": {"a": {"value": {"k": 1}}}`},
	{id: "6", epoch: 1, body: `"scores": {"a": {"value": "yes"}}`},
}

func TestInspectLetterScores(t *testing.T) {
	want := map[string]float64{"R1/1/1": 1, "R1/1/2": 0, "R1/x/1": 0.5, "R1/2/1": 0, "R1/3/1": 1, "R1/4/1": 0.75, "R1/5/1": math.NaN(), "R1/6/1": 1}
	dir := t.TempDir()
	ev := filepath.Join(dir, "a.eval")
	writeSynthEval(t, ev, "success", synthScores)
	js := filepath.Join(dir, "a.json")
	os.WriteFile(js, []byte(synthJSON("success", synthScores)), 0o644)
	for _, p := range []string{ev, js} {
		l, st := readInspectFile(t, p)
		if len(l.ds.Errors) > 0 {
			t.Fatalf("%s: errors %v", p, l.ds.Errors)
		}
		if len(l.ds.Runs) != len(want) || st.RowsRead != len(want) {
			t.Fatalf("%s: %d runs, want %d", p, len(l.ds.Runs), len(want))
		}
		for _, r := range l.ds.Runs {
			w := want[r.RunID]
			if math.IsNaN(w) {
				if r.Score.Valid {
					t.Errorf("%s: %s: score %v, want null", p, r.RunID, r.Score.V)
				}
				continue
			}
			if !r.Score.Valid || r.Score.V != w {
				t.Errorf("%s: %s: score %v, want %v", p, r.RunID, r.Score, w)
			}
		}
		var warns string
		for _, w := range l.ds.Warnings {
			warns += w.Msg + "\n"
		}
		if !strings.Contains(warns, "2 scores (a, b)") || !strings.Contains(warns, "1 samples have a score value") {
			t.Errorf("%s: warnings %q", p, warns)
		}
	}
}

func TestInspectSampleErrorAndLimit(t *testing.T) {
	samples := []synthSample{
		{id: "1", epoch: 1, body: `"error": {"message": "RuntimeError: boom\nTraceback …", "traceback": "…"}, "model_usage": {"a": {"total_tokens": 10}, "b": {"input_tokens": 3, "output_tokens": 4}}`},
		{id: "2", epoch: 1, body: `"limit": {"type": "token", "limit": 100}, "scores": {"s": {"value": 1}}`},
		{id: "3", epoch: 1, broken: true},
		{id: "4", epoch: 1, body: `"scores": "oops"`},
		{id: "5", epoch: 1, body: `"events": [
			{"timestamp": "2025-01-02T03:04:05+00:00", "event": "sample_init"},
			{"timestamp": "2025-01-02T03:05:05+00:00", "event": "score", "intermediate": true, "score": {"value": 0.5, "explanation": "step 1"}},
			{"timestamp": "2025-01-02T03:06:05+00:00", "event": "score", "intermediate": true, "working_start": 90.5, "score": {"value": "C"}},
			{"timestamp": "2025-01-02T03:07:05+00:00", "event": "score", "intermediate": true, "score": {"value": [1]}},
			{"timestamp": "2025-01-02T03:08:05+00:00", "event": "score", "score": {"value": 0.9}}],
			"scores": {"s": {"value": 0.9}}`},
	}
	p := filepath.Join(t.TempDir(), "err.eval")
	writeSynthEval(t, p, "error", samples)
	l, st := readInspectFile(t, p)
	ds := l.ds
	if st.RowsRead != 5 || len(ds.Runs) != 3 || st.RowsRejected != 2 || len(ds.Errors) != 2 || len(ds.Rejected) != 2 {
		t.Fatalf("read %d, runs %d, rejected %d, errors %v", st.RowsRead, len(ds.Runs), st.RowsRejected, ds.Errors)
	}
	for _, e := range ds.Errors {
		if e.File != p || !strings.Contains(e.Error(), "not a valid Inspect sample") {
			t.Errorf("error %v", e)
		}
	}
	r := ds.Runs[0]
	if r.Outcome.V != "exec_error" || r.ErrorType.V != "RuntimeError: boom" || r.Tokens.V != 17 || r.FinalSuccess.V || !r.FinalSuccess.Valid {
		t.Errorf("errored sample: %+v", r)
	}
	if r.StartedAt.V != time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC) {
		t.Errorf("started_at from eval.created: %v", r.StartedAt)
	}
	r = ds.Runs[1]
	if r.ErrorType.V != "limit: token" || r.Outcome.Valid || r.Score.V != 1 {
		t.Errorf("limited sample: %+v", r)
	}
	r = ds.Runs[2]
	if r.DurationS.V != 240 || r.Score.V != 0.9 {
		t.Errorf("sample with events: %+v", r)
	}
	if len(ds.Scores) != 2 {
		t.Fatalf("score log %+v, want 2 rows", ds.Scores)
	}
	if s := ds.Scores[0]; s.RunID != "R1/5/1" || s.ElapsedS.V != 60 || s.RawScore != 0.5 || s.Message.V != "step 1" {
		t.Errorf("score log row 0: %+v", s)
	}
	if s := ds.Scores[1]; s.ElapsedS.V != 90.5 || s.RawScore != 1 || s.Message.Valid {
		t.Errorf("score log row 1: %+v", s)
	}
	var warns string
	for _, w := range ds.Warnings {
		warns += w.Msg + "\n"
	}
	if !strings.Contains(warns, "log status error") || !strings.Contains(warns, "1 intermediate score events") {
		t.Errorf("warnings %q", warns)
	}
}

func TestInspectCorruptZip(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.eval")
	writeSynthEval(t, good, "success", synthScores)
	data, _ := os.ReadFile(good)
	for name, b := range map[string][]byte{
		"truncated.eval": data[:len(data)/2],
		"garbage.eval":   append([]byte("PK\x03\x04"), bytes.Repeat([]byte{0xff}, 100)...),
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, b, 0o644)
		l, _ := readInspectFile(t, p)
		if len(l.ds.Errors) != 1 || !strings.Contains(l.ds.Errors[0].Error(), "not a readable zip archive") || len(l.ds.Runs) != 0 {
			t.Errorf("%s: errors %v runs %d", name, l.ds.Errors, len(l.ds.Runs))
		}
	}
	// A zip without header.json is not an Inspect log.
	p := filepath.Join(dir, "other.eval")
	f, _ := os.Create(p)
	zw := zip.NewWriter(f)
	w, _ := zw.Create("x.txt")
	w.Write([]byte("hi"))
	zw.Close()
	f.Close()
	l, _ := readInspectFile(t, p)
	if len(l.ds.Errors) != 1 || !strings.Contains(l.ds.Errors[0].Msg, "without header.json") {
		t.Errorf("other zip: %v", l.ds.Errors)
	}
}

func TestInspectTruncatedJSON(t *testing.T) {
	doc := synthJSON("success", synthScores)
	cut := strings.Index(doc, `{"id": 2`) + 5 // inside the 4th sample
	p := filepath.Join(t.TempDir(), "trunc.json")
	os.WriteFile(p, []byte(doc[:cut]), 0o644)
	l, st := readInspectFile(t, p)
	ds := l.ds
	if len(ds.Errors) != 1 || !strings.Contains(ds.Errors[0].Msg, "invalid JSON at byte") || !strings.Contains(ds.Errors[0].Msg, "truncated") {
		t.Fatalf("errors %v", ds.Errors)
	}
	if len(ds.Runs) != 3 || st.RowsRead != 3 {
		t.Errorf("%d runs read before the damage, want 3", len(ds.Runs))
	}
	for _, bad := range []string{`{"version": 2, "status": "success", "eval": {"run_`, `{"version": 2, "status"`} {
		os.WriteFile(p, []byte(bad), 0o644)
		l, _ := readInspectFile(t, p)
		if len(l.ds.Errors) != 1 || !strings.Contains(l.ds.Errors[0].Msg, "byte") {
			t.Errorf("%q: errors %v", bad, l.ds.Errors)
		}
	}
}

func TestInspectVersionAndKeyOrder(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "v.json")
	os.WriteFile(p, []byte(`{"version": 9, "status": "success", "samples": [{"id": 1, "epoch": 1, "scores": {"a": {"value": 1}}}], "eval": {"run_id": "R", "task": "t", "model": "m"}}`), 0o644)
	l, _ := readInspectFile(t, p)
	if len(l.ds.Runs) != 1 || len(l.ds.Errors) != 0 || len(l.ds.Warnings) != 1 || !strings.Contains(l.ds.Warnings[0].Msg, "version 9") {
		t.Errorf("runs %d errors %v warnings %v", len(l.ds.Runs), l.ds.Errors, l.ds.Warnings)
	}
	l = newTestLoader()
	var st InputStats
	l.readInspectJSON(p, strings.NewReader(`{"status": "success", "eval": {"run_id": "R"}, "samples": []}`), &st)
	if len(l.ds.Errors) != 1 || !strings.Contains(l.ds.Errors[0].Error(), `field "version"`) {
		t.Errorf("no version: %v", l.ds.Errors)
	}
}

func TestLooksInspectJSON(t *testing.T) {
	for in, want := range map[string]bool{
		`{"version": 2, "status": "success", "eval": {`:    true,
		"\ufeff{\n  \"version\": 2,\n  \"status\": \"succ": true,
		`{"version": 2, "eval": {"run_id": "x"`:            true,
		`{"version": 2}`:                                   false,
		`{"run_id": "x", "version": 2, "status": "s"}`:     false,
		`{"version": "2", "status": "s"}`:                  false,
		`[{"version": 2, "status": "s"}]`:                  false,
		`{"version": 2, "`:                                 false,
		``:                                                 false,
	} {
		if got := looksInspectJSON([]byte(in)); got != want {
			t.Errorf("looksInspectJSON(%q) = %v, want %v", in, got, want)
		}
	}
}

// BenchmarkIngestInspect reads 200 generated .eval logs of 50 samples
// each (10,000 samples, with model events and an intermediate score) and
// reports samples/s.
// BenchmarkIngestInspect reads 1,000 generated .eval logs of 50 samples
// (each ~2.5 KB, with events and an intermediate score) and reports samples/s.
func BenchmarkIngestInspect(b *testing.B) {
	dir := b.TempDir()
	const logs, per = 1000, 50 // issue #10: 1,000 logs of 50 samples
	msg := strings.Repeat("x", 2000)
	var paths []string
	for i := range logs {
		samples := make([]synthSample, per)
		for j := range samples {
			samples[j] = synthSample{id: strconv.Itoa(j + 1), epoch: 1, body: fmt.Sprintf(`"scores": {"match": {"value": "C"}},
 "model_usage": {"m/x": {"input_tokens": 60, "output_tokens": 5, "total_tokens": 65}}, "total_time": 1.5,
 "events": [{"timestamp": "2025-01-02T03:04:05+00:00", "event": "sample_init"},
  {"timestamp": "2025-01-02T03:04:06+00:00", "event": "model", "output": {"choices": [{"message": {"content": %q}}]}},
  {"timestamp": "2025-01-02T03:04:07+00:00", "event": "score", "intermediate": true, "score": {"value": 0.5}},
  {"timestamp": "2025-01-02T03:04:08+00:00", "event": "score", "score": {"value": "C"}}]`, msg)}
		}
		p := filepath.Join(dir, fmt.Sprintf("log%04d.eval", i))
		writeSynthEvalRun(b, p, fmt.Sprintf("R%d", i), "success", samples)
		paths = append(paths, p)
	}
	b.ResetTimer()
	start := time.Now()
	n := 0
	for b.Loop() {
		l := newTestLoader()
		for _, p := range paths {
			var st InputStats
			l.readInspectEval(p, &st)
			n += st.RowsRead
		}
		if len(l.ds.Runs) != logs*per || len(l.ds.Scores) != logs*per || len(l.ds.Errors) != 0 {
			b.Fatalf("runs %d errors %v", len(l.ds.Runs), l.ds.Errors)
		}
	}
	b.ReportMetric(float64(n)/time.Since(start).Seconds(), "samples/s")
}

// TestInspectEvalFromFS reads a .eval log through Options.FS.
func TestInspectEvalFromFS(t *testing.T) {
	dir := t.TempDir()
	writeSynthEval(t, filepath.Join(dir, "a.eval"), "success", synthScores)
	l := newTestLoader()
	l.opt.FS = os.DirFS(dir)
	var st InputStats
	l.readInspectEval("a.eval", &st)
	if len(l.ds.Runs) != len(synthScores) || len(l.ds.Errors) != 0 || st.Reader != ReaderInspectEval {
		t.Errorf("runs %d errors %v reader %s", len(l.ds.Runs), l.ds.Errors, st.Reader)
	}
}

// TestInspectFolderLoad: Load on the whole anchors folder detects all 17
// Inspect logs by content (.eval zips, .json documents found by peeking),
// reads 41 samples and keeps 39 runs: two pairs of logs hold the same
// evaluation (log_formats.eval/.json, and custom.eval is a copy of the
// input-task log), dropped as identical duplicates with a warning.
func TestInspectFolderLoad(t *testing.T) {
	dir := filepath.Join(anchorsDir(t), "inspect_ai", "tests")
	ds, err := Load([]string{dir}, Options{})
	if err != nil || ds.Err() != nil {
		t.Fatal(err, ds.Err())
	}
	read, logs := 0, 0
	for _, in := range ds.Inputs {
		if in.Reader == ReaderInspectEval || in.Reader == ReaderInspectJSON {
			logs++
		}
		read += in.RowsRead
	}
	if logs != 17 || read != 41 || len(ds.Runs) != 39 {
		t.Errorf("%d logs, %d samples read, %d runs; want 17, 41, 39", logs, read, len(ds.Runs))
	}
}

// TestInspectOptions: --scorer picks another scorer, --score-map gives a
// letter another number, --task-id-from chooses the task id.
func TestInspectOptions(t *testing.T) {
	dir := t.TempDir()
	ev := filepath.Join(dir, "a.eval")
	writeSynthEval(t, ev, "success", []synthSample{
		{id: "1", epoch: 1, body: `"scores": {"b": {"value": 0.25}, "a": {"value": "C"}}`},
		{id: "2", epoch: 1, body: `"scores": {"b": {"value": "P"}, "a": {"value": "I"}}`},
	})
	ds, err := Load([]string{ev}, Options{Scorer: "b", ScoreMap: map[string]float64{"P": 0.6}, TaskIDFrom: "sample"})
	if err != nil || ds.Err() != nil {
		t.Fatal(err, ds.Err())
	}
	got := map[string]Run{}
	for _, r := range ds.Runs {
		got[r.RunID] = r
	}
	if r := got["R1/1/1"]; r.Score.V != 0.25 || r.TaskID != "1" {
		t.Errorf("sample 1: %+v", r)
	}
	if r := got["R1/2/1"]; r.Score.V != 0.6 || r.TaskID != "2" {
		t.Errorf("sample 2 with P=0.6: %+v", r)
	}
	ds, _ = Load([]string{ev}, Options{Scorer: "nope", TaskIDFrom: "task"})
	if len(ds.Runs) != 2 || ds.Runs[0].Score.Valid || ds.Runs[0].TaskID != "t" {
		t.Errorf("missing scorer / task ids: %+v", ds.Runs)
	}
	if _, err := Load([]string{ev}, Options{TaskIDFrom: "model"}); err == nil {
		t.Error("bad TaskIDFrom accepted")
	}
}

package demo

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRegenerationMatchesEmbedded guards against drift between the
// generator and the committed data.
func TestRegenerationMatchesEmbedded(t *testing.T) {
	dir := t.TempDir()
	if err := Generate(Seed, dir); err != nil {
		t.Fatal(err)
	}
	gen := os.DirFS(dir)
	emb := FS()
	genFiles, embFiles := listFiles(t, gen), listFiles(t, emb)
	if !slices.Equal(genFiles, embFiles) {
		t.Fatalf("file sets differ:\ngenerated %v\nembedded  %v\n(run go generate ./cmd/rdeval/internal/demo)", genFiles, embFiles)
	}
	if !slices.Equal(embFiles, Files()) {
		t.Errorf("Files() = %v, embedded %v", Files(), embFiles)
	}
	for _, p := range embFiles {
		g, err := fs.ReadFile(gen, p)
		if err != nil {
			t.Fatal(err)
		}
		e, err := fs.ReadFile(emb, p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(g, e) {
			t.Errorf("%s: embedded bytes differ from generator output (run go generate ./cmd/rdeval/internal/demo)", p)
		}
	}
}

func TestGenerateIsDeterministicAndSeedDependent(t *testing.T) {
	a, err := render(7)
	if err != nil {
		t.Fatal(err)
	}
	b, err := render(7)
	if err != nil {
		t.Fatal(err)
	}
	c, err := render(8)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if !bytes.Equal(a[i].data, b[i].data) {
			t.Errorf("%s: two renders with the same seed differ", a[i].path)
		}
	}
	for i := range a {
		if a[i].path == HorizonReleaseDatesPath || a[i].path == RExBenchTasksPath {
			continue // fixed, not drawn
		}
		if bytes.Equal(a[i].data, c[i].data) {
			t.Errorf("%s: seeds 7 and 8 gave identical output", a[i].path)
		}
	}
}

func TestEmbeddedSize(t *testing.T) {
	total := 0
	for _, p := range Files() {
		b, err := fs.ReadFile(FS(), p)
		if err != nil {
			t.Fatal(err)
		}
		total += len(b)
	}
	// 3.04 MB of RE-Bench and RExBench runs, 0.43 MB of horizon runs.
	if total > 3_600_000 {
		t.Errorf("embedded data is %d bytes; keep it near 3.5 MB", total)
	}
}

func listFiles(t *testing.T, fsys fs.FS) []string {
	t.Helper()
	var out []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// readJSONL decodes each line of an embedded JSON Lines file into a T and
// also checks the key order of the first line against keys.
func readJSONL[T any](t *testing.T, path string, keys []string) []T {
	t.Helper()
	b, err := fs.ReadFile(FS(), path)
	if err != nil {
		t.Fatal(err)
	}
	var out []T
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		if keys != nil {
			if got := objectKeys(t, line); !slices.Equal(got, keys) {
				t.Fatalf("%s:%d: keys %v, want %v", path, n, got, keys)
			}
		}
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		var v T
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// objectKeys returns the top-level keys of a JSON object, in order.
func objectKeys(t *testing.T, line []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(line))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not a JSON object: %s", line)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

type reRunRow struct {
	RunID             string   `json:"run_id"`
	TaskID            string   `json:"task_id"`
	TaskFamily        string   `json:"task_family"`
	Alias             string   `json:"alias"`
	Model             string   `json:"model"`
	Score             *float64 `json:"score"`
	ScoreBinarized    *int     `json:"score_binarized"`
	TimeLimit         int      `json:"time_limit"`
	StartedAt         int64    `json:"started_at"`
	CompletedAt       int64    `json:"completed_at"`
	FatalErrorFrom    *string  `json:"fatal_error_from"`
	HumanMinutes      float64  `json:"human_minutes"`
	HumanScore        *float64 `json:"human_score"`
	HumanSource       string   `json:"human_source"`
	DollarEquivalent  float64  `json:"dollar_equivalent"`
	TotalTokens       *int64   `json:"total_tokens"`
	EqualTaskWeight   float64  `json:"equal_task_weight"`
	InvsqrtTaskWeight float64  `json:"invsqrt_task_weight"`
}

var reRunKeys = []string{"run_id", "task_id", "task_family", "alias", "model", "score",
	"score_binarized", "time_limit", "started_at", "completed_at", "fatal_error_from",
	"human_minutes", "human_score", "human_source", "dollar_equivalent", "total_tokens",
	"equal_task_weight", "invsqrt_task_weight"}

type scoreLogRow struct {
	RunID    string   `json:"run_id"`
	ElapsedS float64  `json:"elapsed_s"`
	Score    *float64 `json:"score"`
	Message  string   `json:"message"`
}

type rxRunRow struct {
	RunID        string   `json:"run_id"`
	Framework    string   `json:"framework"`
	Model        string   `json:"model"`
	HintLevel    string   `json:"hint_level"`
	Task         string   `json:"task"`
	Trial        int      `json:"trial"`
	Seed         int      `json:"seed"`
	Outcome      string   `json:"outcome"`
	FinalSuccess bool     `json:"final_success"`
	ExecSuccess  bool     `json:"exec_success"`
	ErrorType    *string  `json:"error_type"`
	FilesEdited  []string `json:"files_edited"`
	LinesAdded   int      `json:"lines_added"`
	LinesDeleted int      `json:"lines_deleted"`
	ResultValue  *float64 `json:"result_value"`
}

var rxRunKeys = []string{"run_id", "framework", "model", "hint_level", "task", "trial", "seed",
	"outcome", "final_success", "exec_success", "error_type", "files_edited", "lines_added",
	"lines_deleted", "result_value"}

func taskByID(id string) *reTask {
	for i := range reTasks {
		if reTasks[i].ID == id {
			return &reTasks[i]
		}
	}
	return nil
}

func TestREBenchRuns(t *testing.T) {
	runs := readJSONL[reRunRow](t, REBenchRunsPath, reRunKeys)
	if want := 3*7*(16+8+4) + 7*6; len(runs) != want || want != 630 {
		t.Fatalf("RE-Bench runs = %d, want %d", len(runs), want)
	}
	logs := readJSONL[scoreLogRow](t, REBenchScoreLogPath, []string{"run_id", "elapsed_s", "score", "message"})

	byRun := map[string][]scoreLogRow{}
	for i, e := range logs {
		if i > 0 {
			p := logs[i-1]
			if p.RunID > e.RunID || p.RunID == e.RunID && p.ElapsedS >= e.ElapsedS {
				t.Fatalf("score log not sorted by (run_id, elapsed_s) at line %d", i+1)
			}
		}
		if (e.Score == nil) != strings.HasPrefix(e.Message, "invalid") {
			t.Errorf("score log line %d: score %v with message %q", i+1, e.Score, e.Message)
		}
		byRun[e.RunID] = append(byRun[e.RunID], e)
	}

	seen := map[string]bool{}
	weightSum := map[string][2]float64{}
	for i, r := range runs {
		if seen[r.RunID] {
			t.Errorf("duplicate run_id %s", r.RunID)
		}
		seen[r.RunID] = true
		if i > 0 {
			p := runs[i-1]
			if cmp := compareRE(p, r); cmp >= 0 {
				t.Errorf("runs.jsonl not sorted at line %d", i+1)
			}
		}
		task := taskByID(r.TaskID)
		if task == nil || task.Family != r.TaskFamily || task.HumanMinutes != r.HumanMinutes {
			t.Errorf("%s: bad task fields %q %q %v", r.RunID, r.TaskID, r.TaskFamily, r.HumanMinutes)
			continue
		}
		human := r.Alias == "human"
		if human {
			if r.Model != "human" || r.TimeLimit != 28800 || r.FatalErrorFrom != nil || r.TotalTokens != nil || !strings.HasPrefix(r.RunID, "demo-human-") {
				t.Errorf("%s: bad human run fields", r.RunID)
			}
		} else {
			scaffold, _, _ := strings.Cut(r.Alias, " (")
			if (scaffold != "Modular" && scaffold != "AIDE") || r.FatalErrorFrom == nil || *r.FatalErrorFrom != "usageLimits" || r.TotalTokens == nil || !strings.HasPrefix(r.RunID, "demo-rb-") {
				t.Errorf("%s: bad agent run fields", r.RunID)
			}
			if perHour := r.DollarEquivalent / (float64(r.TimeLimit) / 3600); perHour < 2 || perHour > 20 {
				t.Errorf("%s: $%.2f per hour", r.RunID, perHour)
			}
		}
		if r.HumanScore != nil || r.HumanSource != "baseline" {
			t.Errorf("%s: human_score/human_source", r.RunID)
		}
		pause := r.CompletedAt - r.StartedAt - int64(r.TimeLimit)*1000
		if pause < 0 || (pause > 0 && r.RunID != REBenchExampleRunID) {
			t.Errorf("%s: completed_at - started_at - time_limit = %d ms", r.RunID, pause)
		}
		if r.StartedAt < march2026 || r.CompletedAt >= march2026+31*msPerDay {
			t.Errorf("%s: run not within March 2026", r.RunID)
		}

		entries := byRun[r.RunID]
		if len(entries) == 0 {
			t.Errorf("%s: no score-log entries", r.RunID)
			continue
		}
		var final *float64
		for _, e := range entries {
			if e.ElapsedS <= 0 || e.ElapsedS > float64(r.TimeLimit) {
				t.Errorf("%s: elapsed %v outside (0, %d]", r.RunID, e.ElapsedS, r.TimeLimit)
			}
			if e.Score == nil {
				continue
			}
			y := *e.Score
			switch {
			case final == nil || task.Rule == "last":
			case task.Rule == "max":
				y = math.Max(*final, y)
			case task.Rule == "min":
				y = math.Min(*final, y)
			}
			final = &y
		}
		switch {
		case final == nil && r.Score != nil, final != nil && r.Score == nil:
			t.Errorf("%s: score %v but score log final %v", r.RunID, r.Score, final)
		case final != nil:
			want := math.Max(0, (*final-task.Ys)/(task.Yr-task.Ys))
			if math.Abs(want-*r.Score) > 1e-12 {
				t.Errorf("%s: score %v, recomputed %v", r.RunID, *r.Score, want)
			}
		}
		switch {
		case r.Score == nil:
			if r.ScoreBinarized != nil {
				t.Errorf("%s: score_binarized set for null score", r.RunID)
			}
		case r.ScoreBinarized == nil || (*r.ScoreBinarized == 1) != (*r.Score > 0.9):
			t.Errorf("%s: score %v, score_binarized %v", r.RunID, *r.Score, r.ScoreBinarized)
		}
		w := weightSum[r.Alias]
		weightSum[r.Alias] = [2]float64{w[0] + r.EqualTaskWeight, w[1] + r.InvsqrtTaskWeight}
	}
	for id := range byRun {
		if !seen[id] {
			t.Errorf("score log mentions unknown run %s", id)
		}
	}
	if len(weightSum) != 4 {
		t.Errorf("aliases: %v", weightSum)
	}
	for alias, w := range weightSum {
		if math.Abs(w[0]-1) > 1e-9 || math.Abs(w[1]-1) > 1e-9 {
			t.Errorf("%s: weights sum to %v", alias, w)
		}
	}

	// Model checks: humans win at 8 h, agents make progress at 30 min.
	mean := meanScores(runs)
	human := mean[aliasLimit{"human", 28800}]
	for _, a := range reAgents {
		if m := mean[aliasLimit{a.Alias, 28800}]; !(human > m) {
			t.Errorf("mean score at 8h: human %.3f, %s %.3f", human, a.Alias, m)
		}
		if m := mean[aliasLimit{a.Alias, 1800}]; !(m > 0) {
			t.Errorf("mean score at 30min: %s %.3f", a.Alias, m)
		}
	}
}

func compareRE(a, b reRunRow) int {
	if c := strings.Compare(a.TaskID, b.TaskID); c != 0 {
		return c
	}
	if c := strings.Compare(a.Alias, b.Alias); c != 0 {
		return c
	}
	if a.TimeLimit != b.TimeLimit {
		return a.TimeLimit - b.TimeLimit
	}
	return strings.Compare(a.RunID, b.RunID)
}

type aliasLimit struct {
	alias string
	limit int
}

// meanScores averages normalized scores per (alias, time limit), counting
// a null score as 0.
func meanScores(runs []reRunRow) map[aliasLimit]float64 {
	sum, n := map[aliasLimit]float64{}, map[aliasLimit]int{}
	for _, r := range runs {
		k := aliasLimit{r.Alias, r.TimeLimit}
		if r.Score != nil {
			sum[k] += *r.Score
		}
		n[k]++
	}
	out := map[aliasLimit]float64{}
	for k := range n {
		out[k] = sum[k] / float64(n[k])
	}
	return out
}

func TestExampleScoreLogCSV(t *testing.T) {
	b, err := fs.ReadFile(FS(), REBenchExampleScoreLog)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(recs[0], []string{"timestamp", "score", "message", "details"}) {
		t.Fatalf("header %v", recs[0])
	}
	logs := readJSONL[scoreLogRow](t, REBenchScoreLogPath, nil)
	var entries []scoreLogRow
	for _, e := range logs {
		if e.RunID == REBenchExampleRunID {
			entries = append(entries, e)
		}
	}
	if len(recs)-1 != len(entries) {
		t.Fatalf("score.log has %d rows, score_log.jsonl %d entries", len(recs)-1, len(entries))
	}
	var run reRunRow
	for _, r := range readJSONL[reRunRow](t, REBenchRunsPath, nil) {
		if r.RunID == REBenchExampleRunID {
			run = r
		}
	}
	pauseMs := run.CompletedAt - run.StartedAt - int64(run.TimeLimit)*1000
	if pauseMs <= 0 {
		t.Errorf("example run %s has no pause", REBenchExampleRunID)
	}
	sawNaN, afterPause := false, 0
	for i, rec := range recs[1:] {
		// Wall-clock timestamps = started_at + elapsed (+ the pause once it
		// is over) + a logging delay below 1 ms.
		ts, err := time.Parse("2006-01-02T15:04:05.000000-07:00", rec[0])
		if err != nil || !strings.HasSuffix(rec[0], "+00:00") {
			t.Fatalf("row %d: timestamp %q: %v", i+1, rec[0], err)
		}
		d := ts.UnixMicro() - run.StartedAt*1000 - int64(math.Round(entries[i].ElapsedS*1e6))
		if d >= pauseMs*1000 {
			d -= pauseMs * 1000
			afterPause++
		}
		if d < 0 || d >= 1000 {
			t.Errorf("row %d: timestamp %s inconsistent with elapsed %v", i+1, rec[0], entries[i].ElapsedS)
		}
		var msg, det map[string]any
		if err := json.Unmarshal([]byte(rec[2]), &msg); err != nil {
			t.Errorf("row %d message: %v", i+1, err)
		}
		if err := json.Unmarshal([]byte(rec[3]), &det); err != nil {
			t.Errorf("row %d details: %v", i+1, err)
		}
		if rec[1] == "nan" {
			sawNaN = true
			if entries[i].Score != nil {
				t.Errorf("row %d: nan but jsonl score %v", i+1, *entries[i].Score)
			}
			continue
		}
		v, err := strconv.ParseFloat(rec[1], 64)
		if err != nil || entries[i].Score == nil || v != *entries[i].Score {
			t.Errorf("row %d: score %q vs jsonl %v", i+1, rec[1], entries[i].Score)
		}
	}
	if afterPause == 0 || afterPause == len(entries) {
		t.Errorf("example run: %d of %d entries after the pause", afterPause, len(entries))
	}
	if !sawNaN {
		t.Error("example score.log has no invalid (nan) attempt")
	}
}

func TestRExBenchTasksYAML(t *testing.T) {
	b, err := fs.ReadFile(FS(), RExBenchTasksPath)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for line := range strings.Lines(string(b)) {
		if id, ok := strings.CutPrefix(strings.TrimSpace(line), "- task_id: "); ok {
			ids = append(ids, id)
		}
	}
	want := []string{"checkeval", "cogs", "entity-tracking-multimodal", "explain-then-translate",
		"implicit-ins", "mission-impossible", "othello", "re-reading", "reasoning-or-reciting",
		"tree-of-thoughts", "varierr-nli", "winodict"}
	if !slices.Equal(ids, want) {
		t.Fatalf("task ids %v", ids)
	}
	for _, task := range rxTasks {
		if n := len(task.GoldFiles); n < 1 || n > 5 || !slices.IsSorted(task.GoldFiles) {
			t.Errorf("%s: gold files %v", task.ID, task.GoldFiles)
		}
		if task.GoldLines < 10 || task.GoldLines > 400 {
			t.Errorf("%s: gold lines %d", task.ID, task.GoldLines)
		}
	}
}

func TestRExBenchRuns(t *testing.T) {
	runs := readJSONL[rxRunRow](t, RExBenchRunsPath, rxRunKeys)
	if len(runs) != 12*2*3*3*5 {
		t.Fatalf("RExBench runs = %d, want 1080", len(runs))
	}
	gold := map[string]*rxTask{}
	for i := range rxTasks {
		gold[rxTasks[i].ID] = &rxTasks[i]
	}
	errorTypes := map[string]bool{}
	for _, e := range rxErrorTypes {
		errorTypes[e] = true
	}
	seen := map[string]bool{}
	recallSum, patched := 0.0, 0
	for i, r := range runs {
		if seen[r.RunID] {
			t.Errorf("duplicate run_id %s", r.RunID)
		}
		seen[r.RunID] = true
		if i > 0 && rxKey(runs[i-1]) >= rxKey(r) {
			t.Errorf("runs not sorted at line %d", i+1)
		}
		if r.Seed != r.Trial || r.Trial < 1 || r.Trial > 5 {
			t.Errorf("%s: trial %d seed %d", r.RunID, r.Trial, r.Seed)
		}
		task := gold[r.Task]
		if task == nil {
			t.Fatalf("%s: unknown task %q", r.RunID, r.Task)
		}
		if r.FinalSuccess != (r.Outcome == "success") || r.ExecSuccess != (r.Outcome == "success" || r.Outcome == "wrong_result") {
			t.Errorf("%s: outcome %s, final %v, exec %v", r.RunID, r.Outcome, r.FinalSuccess, r.ExecSuccess)
		}
		et := ""
		if r.ErrorType != nil {
			et = *r.ErrorType
		}
		wantET := map[string]string{"no_patch": "empty patch", "patch_failed": "patch failed", "timeout": "Execution Timeout"}
		switch r.Outcome {
		case "no_patch", "patch_failed", "timeout":
			if et != wantET[r.Outcome] {
				t.Errorf("%s: %s with error_type %q", r.RunID, r.Outcome, et)
			}
		case "exec_error":
			if !errorTypes[et] {
				t.Errorf("%s: exec_error with error_type %q", r.RunID, et)
			}
		case "success", "wrong_result":
			if r.ErrorType != nil {
				t.Errorf("%s: %s with error_type %q", r.RunID, r.Outcome, et)
			}
		default:
			t.Errorf("%s: unknown outcome %q", r.RunID, r.Outcome)
		}
		if (r.ResultValue != nil) != r.ExecSuccess {
			t.Errorf("%s: result_value %v for outcome %s", r.RunID, r.ResultValue, r.Outcome)
		}
		if r.ResultValue != nil {
			d := math.Abs(*r.ResultValue - task.Gold)
			if r.FinalSuccess && d > 1.01*task.GoldSD {
				t.Errorf("%s: success with result %v, gold %v±%v", r.RunID, *r.ResultValue, task.Gold, task.GoldSD)
			}
			if !r.FinalSuccess && d < 4.99*task.GoldSD {
				t.Errorf("%s: wrong_result %v within gold band %v±%v", r.RunID, *r.ResultValue, task.Gold, task.GoldSD)
			}
		}
		if r.Outcome == "no_patch" {
			if len(r.FilesEdited) != 0 || r.LinesAdded != 0 || r.LinesDeleted != 0 {
				t.Errorf("%s: no_patch with edits", r.RunID)
			}
			continue
		}
		if len(r.FilesEdited) == 0 || r.LinesAdded < 1 || r.LinesDeleted < 0 {
			t.Errorf("%s: patch without files or lines", r.RunID)
		}
		hit := 0
		for _, f := range r.FilesEdited {
			if slices.Contains(task.GoldFiles, f) {
				hit++
			}
		}
		recallSum += float64(hit) / float64(len(task.GoldFiles))
		patched++
	}
	if recall := recallSum / float64(patched); recall < 0.6 || recall > 0.8 {
		t.Errorf("mean gold-file recall of patched runs = %.3f, want 0.6–0.8", recall)
	}
}

func rxKey(r rxRunRow) string {
	return fmt.Sprintf("%s\x00%s\x00%s\x00%s\x00%03d", r.Framework, r.Model, r.HintLevel, r.Task, r.Trial)
}

// TestSummary logs the headline numbers of the demo study (go test -v).
func TestSummary(t *testing.T) {
	runs := readJSONL[reRunRow](t, REBenchRunsPath, nil)
	mean := meanScores(runs)
	var keys []aliasLimit
	for k := range mean {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b aliasLimit) int {
		if c := strings.Compare(a.alias, b.alias); c != 0 {
			return c
		}
		return a.limit - b.limit
	})
	for _, k := range keys {
		t.Logf("RE-Bench mean normalized score %-18s %5ds: %.3f", k.alias, k.limit, mean[k])
	}
	rx := readJSONL[rxRunRow](t, RExBenchRunsPath, nil)
	type fm struct{ f, m string }
	succ, n := map[fm]int{}, map[fm]int{}
	for _, r := range rx {
		k := fm{r.Framework, r.Model}
		n[k]++
		if r.FinalSuccess {
			succ[k]++
		}
	}
	for _, f := range rxFrameworks {
		for _, m := range rxModels {
			k := fm{f.Name, m.Name}
			t.Logf("RExBench final success %-9s %s: %.3f", f.Name, m.Name, float64(succ[k])/float64(n[k]))
		}
	}
}

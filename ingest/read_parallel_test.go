package ingest

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// withParallel sets the parallel-parse tunables for one test.
func withParallel(t *testing.T, workers int, minBytes int64, chunk int) {
	t.Helper()
	w, m, c := parseWorkers, parallelMinBytes, chunkBytes
	parseWorkers, parallelMinBytes, chunkBytes = workers, minBytes, chunk
	t.Cleanup(func() { parseWorkers, parallelMinBytes, chunkBytes = w, m, c })
}

// loadAndWrite loads paths and writes the dataset as Parquet (with
// --skip-bad semantics), returning the dataset and the bytes of every
// written file by name.
func loadAndWrite(t *testing.T, paths []string, opt Options) (*Dataset, map[string][]byte) {
	t.Helper()
	ds, err := Load(paths, opt)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := WriteDataset(dir, ds, WriteOptions{Version: "test", SkipBad: true}); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = b
	}
	return ds, files
}

// TestParallelMatchesSerial reads the same inputs serially and with
// parallel workers at several chunk sizes (down to one record per chunk)
// and checks that the datasets (rows, errors and their lines, rejected
// records, warnings, input stats) and the written files are identical.
func TestParallelMatchesSerial(t *testing.T) {
	dir := t.TempDir()
	inputs := map[string][]string{
		"metr jsonl":       {writeFile(t, dir, "metr/all_runs.jsonl", parallelMETR(400, true))},
		"metr jsonl no nl": {writeFile(t, dir, "metr2/all_runs.jsonl", strings.TrimSuffix(parallelMETR(50, false), "\n")+`{"run_id":"x","alias":`)},
		"metr jsonl gzip":  {writeGzip(t, dir, "metr3/all_runs.jsonl.gz", parallelMETR(300, true))},
		"metr jsonl crlf":  {writeFile(t, dir, "metr4/all_runs.jsonl", strings.ReplaceAll(parallelMETR(100, true), "\n", "\r\n"))},
		// A byte-order mark, blank lines before the first record and
		// between records, and a blank last line: the mapped read
		// (mapRest) finds the first record again after them.
		"metr jsonl bom, blanks": {writeFile(t, dir, "metr6/all_runs.jsonl", "\xEF\xBB\xBF\n \r\n"+strings.ReplaceAll(parallelMETR(200, true), "}\n{", "}\n\n{")+"\n")},
		"metr jsonl one line":    {writeFile(t, dir, "metr7/all_runs.jsonl", strings.SplitAfter(parallelMETR(3, true), "\n")[0])},
		"score.log":              {writeFile(t, dir, "run-7/score.log", parallelScoreLog(500, true))},
		"score.log no nl":        {writeFile(t, dir, "run-8/score.log", parallelScoreLog(60, true)+`2024-11-22T10:00:00+00:00,0.5,"{""open`)},
		"score.log gzip":         {writeGzip(t, dir, "run-9/score.log.gz", parallelScoreLog(300, true))},
		"score.log no id":        {writeFile(t, dir, "score.log", parallelScoreLog(20, false))},
		"testdata":               {"testdata/good"},
		"two files, dupes":       {filepath.Join(dir, "metr/all_runs.jsonl"), filepath.Join(dir, "metr/all_runs.jsonl")},
		// Long lines first: the table, sized from the first chunk, is
		// too short, and later chunks are parsed outside it.
		"metr jsonl, estimate short": {writeFile(t, dir, "metr5/all_runs.jsonl", longFirstLines(parallelMETR(400, true), 30))},
		"score.log, estimate short":  {writeFile(t, dir, "run-10/score.log", longFirstRecords(parallelScoreLog(500, true), 30))},
		"metr and its logs":          {filepath.Join(dir, "metr4/all_runs.jsonl"), filepath.Join(dir, "run-7/score.log")},
	}
	for name, paths := range inputs {
		t.Run(name, func(t *testing.T) {
			var serialDS *Dataset
			var serialFiles map[string][]byte
			func() {
				withParallel(t, 1, 0, 1<<20)
				serialDS, serialFiles = loadAndWrite(t, paths, Options{})
			}()
			if len(serialDS.Runs)+len(serialDS.Scores) == 0 {
				t.Fatalf("no rows read: the test input is broken")
			}
			defer func(m int64) { mapMinBytes = m }(mapMinBytes)
			for _, mapped := range []bool{false, true} {
				// Files read through read(2), or mapped (JSON Lines runs files
				// that are not gzip; mapMinBytes 0 maps every such file).
				mapMinBytes = 1 << 62
				if mapped {
					mapMinBytes = 0
				}
				for _, workers := range []int{2, 3} {
					for _, chunk := range []int{1, 300, 1 << 20} {
						withParallel(t, workers, 0, chunk)
						ds, files := loadAndWrite(t, paths, Options{})
						if !sameDataset(ds, serialDS) {
							t.Errorf("mapped=%v workers=%d chunk=%d: dataset differs from the serial read:\n%s", mapped, workers, chunk, firstDiff(ds, serialDS))
						}
						if !reflect.DeepEqual(files, serialFiles) {
							t.Errorf("mapped=%v workers=%d chunk=%d: written files differ from the serial read's", mapped, workers, chunk)
						}
					}
				}
			}
		})
	}
}

// sameDataset is reflect.DeepEqual with NaN scores equal (score-log
// entries hold NaN for invalid attempts).
func sameDataset(a, b *Dataset) bool {
	if len(a.Scores) != len(b.Scores) {
		return false
	}
	for i := range a.Scores {
		x, y := a.Scores[i], b.Scores[i]
		if math.IsNaN(x.RawScore) && math.IsNaN(y.RawScore) {
			x.RawScore, y.RawScore = 0, 0
		}
		if !reflect.DeepEqual(x, y) {
			return false
		}
	}
	a2, b2 := *a, *b
	a2.Scores, b2.Scores = nil, nil
	return reflect.DeepEqual(a2, b2)
}

func firstDiff(a, b *Dataset) string {
	var out []string
	if len(a.Runs) != len(b.Runs) || len(a.Scores) != len(b.Scores) {
		out = append(out, fmt.Sprintf("rows: %d/%d runs, %d/%d scores", len(a.Runs), len(b.Runs), len(a.Scores), len(b.Scores)))
	}
	if !reflect.DeepEqual(a.Errors, b.Errors) {
		out = append(out, fmt.Sprintf("errors: %v\nvs %v", a.Errors, b.Errors))
	}
	if !reflect.DeepEqual(a.Warnings, b.Warnings) {
		out = append(out, fmt.Sprintf("warnings: %v\nvs %v", a.Warnings, b.Warnings))
	}
	if !reflect.DeepEqual(a.Inputs, b.Inputs) {
		out = append(out, fmt.Sprintf("inputs: %+v\nvs %+v", a.Inputs, b.Inputs))
	}
	return strings.Join(out, "\n")
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func writeGzip(t *testing.T, dir, name, text string) string {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(text))
	zw.Close()
	return writeFile(t, dir, name, b.String())
}

// parallelMETR makes n METR-like run lines (seeded) with, when bad is set,
// blank lines, syntax errors, wrong types, unknown keys, identical and
// conflicting duplicate run ids, and human rows with human_score.
func parallelMETR(n int, bad bool) string {
	rng := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	tasks := []string{"ai_rd_fix_embedding/main", "ai_rd_optimize_llm_foundry/main", "hcast_task_a/1", "hcast_task_b/2"}
	for i := range n {
		task := tasks[rng.IntN(len(tasks))]
		alias, human := "Claude 3.5 Sonnet", ""
		if i%17 == 0 {
			alias, human = "human", fmt.Sprintf(`,"human_score":%g`, rng.Float64())
		}
		line := fmt.Sprintf(`{"run_id":"r%d","task_id":"%s","alias":"%s","score":%g,"time_limit":%d,"started_at":%d,"completed_at":%d,"human_minutes":%g%s,"junk_%d":1}`,
			i, task, alias, rng.Float64(), 28800, 1732269600000+int64(i), 1732269600000+int64(i)+int64(rng.IntN(1e6)), 8*60.0, human, i%3)
		if bad {
			switch i % 37 {
			case 5:
				line = `{"run_id":"bad` // syntax error
			case 9:
				line = strings.Replace(line, `"score":`, `"score":"n/a","x":`, 1) // wrong type
			case 11:
				line = "   "
			case 13:
				line = fmt.Sprintf(`{"run_id":"r%d","task_id":"%s","alias":"other","score":0.5}`, i-1, task) // conflicting duplicate
			case 21:
				line += "\n" + line // identical duplicate
			case 29:
				line = strings.Replace(line, `"started_at":`, `"started_at":9`, 1) // completed before started
			}
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// parallelScoreLog makes a METR score.log with n rows (seeded) including
// quoted messages spanning lines, blank lines, bad timestamps and scores,
// ragged rows and bare quotes.
func parallelScoreLog(n int, bad bool) string {
	rng := rand.New(rand.NewPCG(5, 6))
	var b strings.Builder
	b.WriteString("timestamp,score,message,details\n")
	for i := range n {
		score := fmt.Sprint(rng.Float64()*2 - 0.5)
		if rng.IntN(20) == 0 {
			score = "nan"
		}
		line := fmt.Sprintf(`2024-11-22T10:%02d:%02d.%06d+00:00,%s,"{""status"": ""ok""}","{}"`, i/60%60, i%60, rng.IntN(1e6), score)
		if bad {
			switch i % 41 {
			case 3:
				line = strings.Replace(line, `"{""status"": ""ok""}"`, "\"{\"\"status\"\":\n\"\"multi\nline\"\"}\"", 1)
			case 7:
				line = strings.Replace(line, "2024-11-22T", "2024-13-22T", 1)
			case 10:
				line = strings.Replace(line, score, "inf", 1)
			case 15:
				line = strings.Replace(line, score, "abc", 1)
			case 19:
				line += ",extra"
			case 23:
				line = `2024-11-22T10:00:00+00:00,1,a"b,"{}"`
			case 27:
				line = ""
			case 31:
				line = strings.Replace(line, `"{}"`, `"{}"x`, 1)
			case 35:
				line = strings.Replace(line, `"{}"`, "\"{\n}\"x", 1) // spans lines, then malformed
			}
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// TestParquetColumnsMatchOneRecord: writing a table one row group at a
// time, each column built as it is encoded (writeParquetColumns), gives
// the same bytes as writing it as one Arrow record (which the Parquet
// writer splits into the same row groups), with GOMAXPROCS 1 and 4.
func TestParquetColumnsMatchOneRecord(t *testing.T) {
	dir := t.TempDir()
	paths := []string{
		writeFile(t, dir, "metr/all_runs.jsonl", parallelMETR(3000, false)),
		writeFile(t, dir, "run-7/score.log", parallelScoreLog(2500, false)),
	}
	ds, err := Load(paths, Options{})
	if err != nil || ds.Err() != nil {
		t.Fatal(err, ds.Err())
	}
	old := rowGroupRows
	rowGroupRows = 1000
	t.Cleanup(func() { rowGroupRows = old })
	for _, tc := range []struct {
		name string
		rows int
		one  arrow.RecordBatch
		col  func(ci, lo, hi int) arrow.Array
	}{
		{"runs", len(ds.Runs), RunsRecord(ds.Runs, "v"), func(ci, lo, hi int) arrow.Array {
			return runColsFor(ds.Runs)[ci].array(ds.Runs[lo:hi])
		}},
		{"score_log", len(ds.Scores), ScoreLogRecord(ds.Scores, "v"), func(ci, lo, hi int) arrow.Array {
			return scoreLogColumn(ci, ds.Scores[lo:hi])
		}},
	} {
		if tc.rows <= 2*rowGroupRows {
			t.Fatalf("%s: %d rows: want several row groups", tc.name, tc.rows)
		}
		var one, batched bytes.Buffer
		if err := writeParquet(&one, tc.one, "v"); err != nil {
			t.Fatal(err)
		}
		for _, procs := range []int{1, 4} {
			prev := runtime.GOMAXPROCS(procs)
			batched.Reset()
			err := writeParquetColumns(&batched, tc.one.Schema(), tc.rows, perColumn(tc.col), "v")
			runtime.GOMAXPROCS(prev)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(one.Bytes(), batched.Bytes()) {
				t.Errorf("%s, GOMAXPROCS %d: Parquet by columns (%d bytes) differs from the one-record write (%d bytes)", tc.name, procs, batched.Len(), one.Len())
			}
		}
		tc.one.Release()
	}
}

// longFirstLines pads the first n lines of a JSON Lines text with a long
// unknown member.
func longFirstLines(text string, n int) string {
	lines := strings.SplitAfter(text, "\n")
	pad := `"padding":"` + strings.Repeat("x", 4000) + `",`
	for i := 0; i < n && i < len(lines); i++ {
		lines[i] = strings.Replace(lines[i], "{", "{"+pad, 1)
	}
	return strings.Join(lines, "")
}

// longFirstRecords pads the message of the first n records of a METR
// score.log (after its header).
func longFirstRecords(text string, n int) string {
	lines := strings.SplitAfter(text, "\n")
	for i := 1; i <= n && i < len(lines); i++ {
		lines[i] = strings.Replace(lines[i], `""ok""`, `""`+strings.Repeat("y", 4000)+`""`, 1)
	}
	return strings.Join(lines, "")
}

// TestUnknownFieldsNamed: every unknown member is named in the warning,
// serially and in parallel with one record per chunk, whether it is on the
// first line only, on the last line only, or on every third line at a
// position other keys take on the lines between (each parser notes a name
// once per cached key slot: read_jsonl.go).
func TestUnknownFieldsNamed(t *testing.T) {
	var b strings.Builder
	for i := range 300 {
		extra := fmt.Sprintf(`,"junk_%d":1`, i%3)
		switch i {
		case 0:
			extra += `,"early":1`
		case 299:
			extra += `,"late":1`
		}
		fmt.Fprintf(&b, `{"run_id":"r%d","task_id":"hcast_task_a/1","alias":"A","score":0.5%s}`+"\n", i, extra)
	}
	p := writeFile(t, t.TempDir(), "all_runs.jsonl", b.String())
	for _, workers := range []int{1, 2} {
		withParallel(t, workers, 0, 1)
		ds := loadOK(t, []string{p}, Options{})
		w := warningsWith(ds, "unknown fields")
		if len(w) != 1 || !strings.Contains(w[0].Msg, "ignored unknown fields: early, junk_0, junk_1, junk_2, late ") {
			t.Errorf("workers=%d: warnings %v", workers, w)
		}
	}
}

// TestCollectorOn: collectorOn follows debug.SetGCPercent.
func TestCollectorOn(t *testing.T) {
	if !collectorOn() {
		t.Skip("collector off in this test process (GOGC=off)")
	}
	old := debug.SetGCPercent(-1)
	off := collectorOn()
	debug.SetGCPercent(old)
	if off || !collectorOn() {
		t.Errorf("collectorOn: %v with GOGC off, %v after", off, collectorOn())
	}
}

// TestChunkTarget: files of at least four chunks per worker are cut into
// chunks of chunkBytes; smaller ones into a quarter of a worker's share,
// not below 64 KiB (nor above chunkBytes, which tests shrink).
func TestChunkTarget(t *testing.T) {
	defer func(w int) { parseWorkers = w }(parseWorkers)
	parseWorkers = 2
	for _, c := range []struct {
		size int64
		want int
	}{
		{-1, chunkBytes},           // size unknown (a pipe)
		{64 << 20, chunkBytes},     // 8 chunks per worker
		{8 << 20, chunkBytes},      // exactly 4 per worker
		{3_243_322, 3_243_322 / 8}, // METR's all_runs.jsonl: 8 chunks
		{100 << 10, 64 << 10},      // floor
	} {
		if got := chunkTarget(c.size); got != c.want {
			t.Errorf("chunkTarget(%d) = %d, want %d", c.size, got, c.want)
		}
	}
	defer func(b int) { chunkBytes = b }(chunkBytes)
	chunkBytes = 100
	if got := chunkTarget(1 << 20); got != 100 {
		t.Errorf("with chunkBytes = 100: chunkTarget(1 MiB) = %d, want 100", got)
	}
}

// TestHumanReferenceLastRead: the tasks table's human_reference is the
// last human_score read for the task, on the parallel path (which stores a
// score only when it differs from the one stored last) as on the serial
// one, when a task's score changes and changes back.
func TestHumanReferenceLastRead(t *testing.T) {
	var lines []string
	for i, h := range []string{"1.5", "1.5", "2.5", "1.5", "3.5", "4.5"} {
		task := "ai_rd_fix_embedding/main"
		if i == 3 {
			task = "ai_rd_optimize_llm_foundry/main" // another task between
		}
		lines = append(lines, fmt.Sprintf(`{"run_id":"r%d","task_id":%q,"task_family":"x","alias":"A","score":0.5,"human_score":%s}`, i, task, h))
	}
	path := filepath.Join(t.TempDir(), "runs.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 2} {
		t.Run(fmt.Sprint(workers, " workers"), func(t *testing.T) {
			withParallel(t, workers, 1, 64)
			ds, err := Load([]string{path}, Options{Reader: ReaderMETR})
			if err != nil || ds.Err() != nil {
				t.Fatal(err, ds.Err())
			}
			want := map[string]float64{"ai_rd_fix_embedding/main": 4.5, "ai_rd_optimize_llm_foundry/main": 1.5}
			for _, task := range ds.Tasks {
				if w, ok := want[task.TaskID]; ok {
					if !task.HumanReference.Valid || task.HumanReference.V != w {
						t.Errorf("%s: human_reference %v, want %v", task.TaskID, task.HumanReference, w)
					}
					delete(want, task.TaskID)
				}
			}
			if len(want) > 0 {
				t.Errorf("tasks missing: %v", want)
			}
		})
	}
}

// TestMappedFileShrinks: a mapped JSON Lines file cut short while it is
// read (reading its lost pages faults) gives a file error that says so,
// not a crash.
func TestMappedFileShrinks(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("files are mapped on Linux only")
	}
	path := writeFile(t, t.TempDir(), "all_runs.jsonl", parallelMETR(4000, true))
	withParallel(t, 2, 0, 300)
	defer func(m int64) { mapMinBytes = m }(mapMinBytes)
	mapMinBytes = 0
	defer func() { afterMap = nil }()
	afterMap = func(p string) {
		if err := os.Truncate(p, 4096); err != nil {
			t.Fatal(err)
		}
	}
	ds, err := Load([]string{path}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range ds.Errors {
		if e.Msg == errFileShrank {
			found = true
		}
	}
	if !found {
		t.Fatalf("no %q error; errors: %v", errFileShrank, ds.Errors)
	}
}

package ingest

import (
	"crypto/sha256"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestRunStoreRows: runs appended to a store (several segments, grown
// past their first room) read back as they went in, compare equal to
// themselves, and compare unequal once any column but the source's
// differs; the store's columns give the bytes the blocked pass over the
// same runs gives.
func TestRunStoreRows(t *testing.T) {
	defer func(r int) { rowGroupRows = r }(rowGroupRows)
	rowGroupRows = 700
	runs := randomRuns(2000, 7)
	st := newRunStore(100)
	for lo := 0; lo < len(runs); lo += 333 {
		part := runs[lo:min(lo+333, len(runs))]
		for _, r := range part {
			st.ids = append(st.ids, r.RunID)
		}
		st.append(part)
	}
	if st.n != len(runs) || len(st.segs) != 3 {
		t.Fatalf("store of %d rows in %d segments, want %d in 3", st.n, len(st.segs), len(runs))
	}
	if got := st.rows(); !reflect.DeepEqual(got, runs) {
		for i := range runs {
			if !reflect.DeepEqual(got[i], runs[i]) {
				t.Fatalf("row %d reads back as\n%+v\nwant\n%+v", i, got[i], runs[i])
			}
		}
	}
	// Changing one field of a run (every field in turn, through the
	// runs columns' own accessors) makes it differ, except the source's.
	for i := range runs {
		if !st.same(i, &runs[i]) {
			t.Fatalf("row %d differs from the run it was filled from", i)
		}
	}
	other := runs[1]
	for ci, c := range runCols {
		r := runs[0]
		if ci == runIDCol {
			continue // the id is what found the row
		}
		var empty Run
		c.read(c.array([]Run{empty}), 0, &r) // a null or zero value…
		if reflect.DeepEqual(r, runs[0]) {
			c.read(c.array([]Run{other}), 0, &r) // …or another run's
		}
		if reflect.DeepEqual(r, runs[0]) {
			continue
		}
		want := ci == sourceFileCol || ci == sourceLineCol
		if got := st.same(0, &r); got != want {
			t.Errorf("column %s changed: same = %v, want %v", c.field.Name, got, want)
		}
	}
	// One task group per (benchmark, task_id), at its first run, with its
	// number of runs, in order of first occurrence.
	var want []taskStretch
	at := map[[2]string]int{}
	for i, r := range runs {
		k := [2]string{r.Benchmark, r.TaskID}
		if _, ok := at[k]; !ok {
			at[k] = len(want)
			want = append(want, taskStretch{i, i})
		}
		want[at[k]].hi++
	}
	if got := st.taskGroups(); !reflect.DeepEqual(got, want) {
		t.Errorf("taskGroups = %v\nwant %v", got, want)
	}
	// The Parquet bytes equal the blocked pass's over the same runs.
	cols := st.columns()
	wantPQ := writeParquetBytes(t, cols, len(runs), blockedColumns(TableRuns, runColsFor(runs), runs))
	if got := writeParquetBytes(t, cols, st.n, st.group(cols)); string(got) != string(wantPQ) {
		t.Error("the store's Parquet bytes differ from the blocked pass's")
	}
}

func writeParquetBytes(t *testing.T, cols []colDef[Run], n int, group rowGroupColumns) []byte {
	t.Helper()
	var b strings.Builder
	if err := writeParquetColumns(&b, schemaOf(TableRuns, cols, "test"), n, group, "test"); err != nil {
		t.Fatal(err)
	}
	return []byte(b.String())
}

// TestWriteOnlyMatchesRows reads inputs with Options.WriteOnly, which
// keeps JSON Lines runs as columns (run_store.go), and without it, and
// checks that the written files are byte for byte the same and that the
// datasets (runs once turned back into Runs, errors with their lines,
// rejected records, warnings, tasks, input stats) are equal: with
// workers filling the store's rows, chunks appended by the merge (a
// short estimate, gzip, a second file), rejected and repeated records
// (holes, then Runs), other readers after the store, --strict, score
// logs timed from their runs' starts, and row groups of 64 rows.
func TestWriteOnlyMatchesRows(t *testing.T) {
	dir := t.TempDir()
	metr := writeFile(t, dir, "metr/all_runs.jsonl", parallelMETR(400, false))
	metrBad := writeFile(t, dir, "metrbad/all_runs.jsonl", parallelMETR(400, true))
	var logs strings.Builder
	for i := range 30 {
		fmt.Fprintf(&logs, `{"run_id":"r%d","scored_at":"2024-11-22T10:%02d:00Z","raw_score":0.5}`+"\n", i*3, i)
	}
	var extras strings.Builder // generic runs with extras: objects, strings holding one, nulls, absent
	for i := range 300 {
		e := []string{`,"extras":{"n_cache_tokens":%d,"b":[1,{"z":null,"a":"x"}]}`, `,"extras":"{\"phase\":{\"agent\":%d}}"`, `,"extras":null%.0d`, `%.0d`}[i%4]
		fmt.Fprintf(&extras, `{"run_id":"g%d","benchmark":"harbor","task_id":"t%d","agent":"a","score":0.5`+e+"}\n", i, i%7, i)
	}
	inputs := map[string][]string{
		"generic, extras":        {writeFile(t, dir, "extras/runs.jsonl", extras.String())},
		"metr":                   {metr},
		"metr, bad records":      {metrBad},
		"metr gzip":              {writeGzip(t, dir, "metr3/all_runs.jsonl.gz", parallelMETR(300, false))},
		"metr, estimate short":   {writeFile(t, dir, "metr5/all_runs.jsonl", longFirstLines(parallelMETR(400, false), 30))},
		"metr twice":             {metr, metr},
		"metr, then another":     {metr, writeFile(t, dir, "metr6/all_runs.jsonl", strings.ReplaceAll(parallelMETR(200, false), `"r`, `"s`))},
		"metr, then a table":     {metr, "testdata/good/rexbench"},
		"testdata":               {"testdata/good"},
		"metr and score logs":    {metr, writeFile(t, dir, "logs/scores.jsonl", logs.String())},
		"metr, files_edited":     {writeFile(t, dir, "metr7/all_runs.jsonl", strings.ReplaceAll(parallelMETR(300, false), `"alias"`, `"files_edited":["a.py","b/c.py"],"alias"`))},
		"metr, task_id escaped":  {writeFile(t, dir, "metr8/all_runs.jsonl", strings.ReplaceAll(parallelMETR(300, false), `/main"`, `\/main"`))},
		"metr, no trailing line": {writeFile(t, dir, "metr9/all_runs.jsonl", strings.TrimSuffix(parallelMETR(130, false), "\n"))},
	}
	defer func(m int64, r int) { mapMinBytes, rowGroupRows = m, r }(mapMinBytes, rowGroupRows)
	for name, paths := range inputs {
		t.Run(name, func(t *testing.T) {
			for _, strict := range []bool{false, true} {
				for _, rg := range []int{1 << 20, 64} {
					for _, mapped := range []bool{false, true} {
						for _, chunk := range []int{1, 300, 1 << 20} {
							rowGroupRows, mapMinBytes = rg, 1<<62
							if mapped {
								mapMinBytes = 0
							}
							withParallel(t, 2, 0, chunk)
							opt := Options{Strict: strict}
							rowDS, rowFiles := loadAndWrite(t, paths, opt)
							if rowDS.NumRuns() == 0 && !strict {
								t.Fatal("no runs read: the test input is broken")
							}
							if name == "generic, extras" && !slices.ContainsFunc(rowDS.Runs, func(r Run) bool { return r.Extras.Valid }) {
								t.Fatal("no run has extras: the test input is broken")
							}
							opt.WriteOnly = true
							colDS, colFiles := loadAndWrite(t, paths, opt)
							at := fmt.Sprintf("strict=%v rows/group=%d mapped=%v chunk=%d", strict, rg, mapped, chunk)
							if colDS.NumRuns() != rowDS.NumRuns() {
								t.Fatalf("%s: %d runs, want %d", at, colDS.NumRuns(), rowDS.NumRuns())
							}
							for name, b := range rowFiles {
								if name != "manifest.json" && string(colFiles[name]) != string(b) {
									t.Errorf("%s: %s differs", at, name)
								}
							}
							colDS.rowRuns()
							if !sameDataset(colDS, rowDS) {
								t.Errorf("%s: dataset differs:\n%s", at, firstDiff(colDS, rowDS))
							}
						}
					}
				}
			}
		})
	}
}

// TestWriteOnlyKeepsColumns: a METR file read write-only is kept as
// columns (Dataset.Runs nil) with its first segment filled by the parse
// workers; anything that needs Runs turns the columns into them.
func TestWriteOnlyKeepsColumns(t *testing.T) {
	dir := t.TempDir()
	metr := writeFile(t, dir, "metr/all_runs.jsonl", parallelMETR(2000, false))
	defer func(m int64) { mapMinBytes = m }(mapMinBytes)
	mapMinBytes = 0
	withParallel(t, 2, 0, 4096)
	ds, err := Load([]string{metr}, Options{WriteOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if ds.Runs != nil || ds.runStore == nil || ds.NumRuns() != 2000 {
		t.Fatalf("Runs %d, store %v, NumRuns %d: want the 2000 runs as columns", len(ds.Runs), ds.runStore != nil, ds.NumRuns())
	}
	if ds.runStore.remap == nil || len(ds.runStore.remap) == 0 {
		t.Error("no chunk was filled by a parse worker")
	}
	ds, err = Load([]string{metr, "testdata/good/rexbench"}, Options{WriteOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if ds.runStore != nil || len(ds.Runs) != ds.NumRuns() || len(ds.Runs) <= 2000 {
		t.Errorf("after a table of runs: Runs %d, store %v: want every run as Runs", len(ds.Runs), ds.runStore != nil)
	}
}

// TestChunksAligned: chunks for a run store hold a multiple of 64
// records (but the last), so that two workers never fill one word of a
// bitmap.
func TestChunksAligned(t *testing.T) {
	text := parallelMETR(1000, false)
	for _, mapped := range []bool{false, true} {
		s := &source{size: int64(len(text)), sum: sha256.New(), mapped: []byte(text)}
		var counts []int
		send := func(c *chunk) { counts = append(counts, len(c.recs)) }
		if mapped {
			mappedLines(s, []byte(text), 0, 500, 64, send)
		} else {
			lc := lineChunker{send: send, target: 500, align: 64}
			for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
				lc.add([]byte(line), i+1, false, false)
			}
			lc.flush(nil)
		}
		total := 0
		for k, n := range counts {
			total += n
			if k < len(counts)-1 && n%64 != 0 {
				t.Errorf("mapped=%v: chunk %d holds %d records", mapped, k, n)
			}
		}
		if total != 1000 || len(counts) < 3 {
			t.Errorf("mapped=%v: %d records in %d chunks, want 1000 in several", mapped, total, len(counts))
		}
	}
}

package ingest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Fuzz targets for the readers. CI runs each briefly (.ci/run); locally:
//
//	go test ./ingest -run '^$' -fuzz FuzzLoadJSONL -fuzztime 1m
//	go test ./ingest -run '^$' -fuzz FuzzLoadCSV -fuzztime 1m
//
// Invariants on any input: Load never panics or fails as a whole; every
// record read is kept or rejected (identical duplicates count as kept);
// every error names the file, and a record error its line within the file;
// a dataset without errors writes and reads back; the parallel readers
// give the serial read's dataset; and a write-only load writes the same
// files.

const seedMETR = `{"run_id":"mp4-server_205615","task_id":"ai_rd_fix_embedding\/main","score":0.0000072849,"time_limit":1800,"started_at":1734070031112,"completed_at":1734071923976,"task_family":"ai_rd_fix_embedding","alias":"Claude 3 Opus","model":"c3o","fatal_error_from":"usageLimits","human_minutes":556.6,"human_score":1.045,"human_source":"baseline","dollar_equivalent":null,"total_tokens":null,"score_binarized":0,"equal_task_weight":0.0003442341,"invsqrt_task_weight":0.0005578143}`

func FuzzLoadJSONL(f *testing.F) {
	for _, s := range []string{
		seedMETR + "\n" + strings.Replace(seedMETR, "205615", "205616", 1) + "\n",
		seedMETR + "\n" + seedMETR[:100],
		`{"run_id":"r1","elapsed_s":1.5,"score":0.3,"message":"ok"}` + "\n" + `{"run_id":"r1","elapsedTime":3000,"score":null}`,
		`{"run_id":"x","framework":"aider","model":"m","hint_level":"default","task":"cogs","trial":1,"outcome":"success","files_edited":["a.py"]}`,
		`{"run_id":"x","task_id":"t","agent":"a","benchmark":"b","score":1e400}`,
		`{"run_id":"x","task_id":"t","agent":"a","benchmark":"b","extras":{"k":[1,"<a>"],"a":{"y":2,"x":NaN}}}` + "\n" + `{"run_id":"y","task_id":"t","agent":"a","benchmark":"b","extras":"{\"k\":1}"}`,
		"\ufeff" + seedMETR + "\r\n",
		"{\n",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkLoad(t, "in.jsonl", data) })
}

func FuzzLoadCSV(f *testing.F) {
	for _, s := range []string{
		"timestamp,score,message,details\n2024-11-22T10:15:03.123456+00:00,0.5,\"{\"\"a\"\": 1}\",{}\n2024-11-22 10:16:00+00:00,nan,,\n",
		"run_id,task_id,agent,benchmark,score\nr1,t1,a,b,0.5\nr2,t1,a,b\n",
		"framework,model,hint_level,task,task_id,final_success,execution_success,file_recall,source_table\naider,M,no_hints,COGS,cogs,0.2,0.4,0.5,11\n",
		"run_id,framework,model,hint_level,task,trial,outcome,files_edited\nr1,aider,m,hints,cogs,1,exec_error,a.py;b.py\n",
		"run_id,task_id,agent,benchmark,extras\nr1,t1,a,b,\"{\"\"x\"\":1}\"\nr2,t1,a,b,\nr3,t1,a,b,[1]\n",
		"a,\"b\nc\",d\n1,2,3\n",
		"\ufeffx,y\r\n1,2\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkLoad(t, "in.csv", data) })
}

func checkLoad(t *testing.T, name string, data []byte) {
	dir := t.TempDir()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := Load([]string{path}, Options{})
	if err != nil {
		t.Fatalf("Load failed as a whole: %v", err)
	}
	// The parallel readers (two workers, chunks of a few records, the
	// records parsed into the table's slots) give the same dataset.
	func() {
		withParallel(t, 2, 0, 64)
		par, err := Load([]string{path}, Options{})
		if err != nil {
			t.Fatalf("parallel Load failed as a whole: %v", err)
		}
		if !sameDataset(par, ds) {
			t.Fatalf("parallel read differs from the serial read:\n%s", firstDiff(par, ds))
		}
	}()
	// A write-only load (Options.WriteOnly: JSON Lines runs kept as the
	// runs table's columns, filled by the parse workers from a mapped
	// file) holds the same dataset once its runs are turned back into
	// Runs, and its runs table's Parquet bytes are the Runs' (written in
	// memory: WriteDataset's fsyncs would slow every execution tenfold).
	func() {
		withParallel(t, 2, 0, 64)
		defer func(m int64) { mapMinBytes = m }(mapMinBytes)
		mapMinBytes = 0
		rowDS, err := Load([]string{path}, Options{})
		if err != nil {
			t.Fatalf("Load failed as a whole: %v", err)
		}
		colDS, err := Load([]string{path}, Options{WriteOnly: true})
		if err != nil {
			t.Fatalf("write-only Load failed as a whole: %v", err)
		}
		if colDS.NumRuns() != rowDS.NumRuns() {
			t.Fatalf("write-only load: %d runs, want %d", colDS.NumRuns(), rowDS.NumRuns())
		}
		if st := colDS.runStore; st != nil && st.n > 0 {
			rowCols, colCols := runColsFor(rowDS.Runs), st.columns()
			want := writeParquetBytes(t, rowCols, len(rowDS.Runs), blockedColumns(TableRuns, rowCols, rowDS.Runs))
			if got := writeParquetBytes(t, colCols, st.n, st.group(colCols)); string(got) != string(want) {
				t.Fatal("write-only load: the runs table's Parquet bytes differ")
			}
		}
		colDS.rowRuns()
		if !sameDataset(colDS, rowDS) {
			t.Fatalf("write-only load differs:\n%s", firstDiff(colDS, rowDS))
		}
	}()
	for _, in := range ds.Inputs {
		if in.RowsRead != in.RowsKept+in.RowsRejected && in.Reader != ReaderRExBenchTable {
			t.Errorf("%s: read %d != kept %d + rejected %d", in.Path, in.RowsRead, in.RowsKept, in.RowsRejected)
		}
	}
	for _, e := range ds.Errors {
		if e.File != path {
			t.Errorf("error without its file: %v", e)
		}
		if e.Msg == "" {
			t.Errorf("error without a message: %#v", e)
		}
	}
	if len(ds.Errors) == 0 && len(ds.Runs)+len(ds.Scores) > 0 {
		out := filepath.Join(dir, "out")
		// Arrow IPC keeps each execution cheap (Parquet's zstd encoder is
		// costly under fuzzing instrumentation); Parquet round trips are
		// covered by roundtrip_test.go.
		if _, err := WriteDataset(out, ds, WriteOptions{Version: "fuzz", Format: FormatArrow}); err != nil {
			t.Fatalf("write: %v", err)
		}
		var back Tables
		if err := back.ReadTableFile(filepath.Join(out, "runs.arrow")); err != nil {
			t.Fatalf("read back: %v", err)
		}
		if len(back.Runs) != len(ds.Runs) {
			t.Fatalf("read back %d runs, wrote %d", len(back.Runs), len(ds.Runs))
		}
	}
}

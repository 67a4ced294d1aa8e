package ingest

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// Benchmarks for ingest into Arrow. Targets (issue #2): ≥ 50 MB/s for JSON
// Lines and ≥ 100 MB/s for CSV on one core. Run with
//
//	go test ./ingest -run '^$' -bench . -benchtime 5x -cpu 1

// BenchmarkIngestMETR ingests the real 3.2 MB METR all_runs.jsonl and
// builds the Arrow runs table.
func BenchmarkIngestMETR(b *testing.B) {
	path := metrFile(b, "3a947ac7069ecb6e1fd0064cc0205e5eb9dcba0f")
	benchIngest(b, path, func(ds *Dataset) { RunsRecord(ds.Runs, "bench").Release() })
}

// BenchmarkIngestScoreLog ingests a generated 1,000,000-row score log in
// CSV (METR score.log layout) and in JSON Lines, and builds the Arrow table.
func BenchmarkIngestScoreLog(b *testing.B) {
	dir := b.TempDir()
	for _, form := range []string{"csv", "jsonl"} {
		path := filepath.Join(dir, "run-1", "score.log")
		if form == "jsonl" {
			path = filepath.Join(dir, "score_log.jsonl")
		}
		writeScoreLog(b, path, form, 1_000_000)
		b.Run("format="+form+"/rows=1e6", func(b *testing.B) {
			benchIngest(b, path, func(ds *Dataset) { ScoreLogRecord(ds.Scores, "bench").Release() })
		})
	}
}

func benchIngest(b *testing.B, path string, build func(*Dataset)) {
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(fi.Size())
	b.ReportAllocs()
	rows := 0
	for b.Loop() {
		ds, err := Load([]string{path}, Options{})
		if err != nil || ds.Err() != nil {
			b.Fatal(err, ds.Err())
		}
		build(ds)
		rows = len(ds.Runs) + len(ds.Scores)
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// writeScoreLog writes n seeded score-log rows: about 1 in 20 an invalid
// attempt (nan / null).
func writeScoreLog(b *testing.B, path, form string, n int) {
	b.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		b.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	rng := rand.New(rand.NewPCG(1, 2))
	t0 := time.Date(2024, 11, 22, 10, 0, 0, 0, time.UTC)
	if form == "csv" {
		fmt.Fprintln(w, "timestamp,score,message,details")
	}
	for i := 0; i < n; i++ {
		ts := t0.Add(time.Duration(i) * 1500 * time.Millisecond)
		score := strconv.FormatFloat(rng.Float64()*2-0.5, 'g', -1, 64) // shortest repr, as Python writes floats
		if rng.IntN(20) == 0 {
			score = "nan"
		}
		switch form {
		case "csv":
			fmt.Fprintf(w, "%s,%s,\"{\"\"status\"\": \"\"ok\"\"}\",\"{}\"\n", ts.Format("2006-01-02T15:04:05.000000-07:00"), score)
		default:
			if score == "nan" {
				score = "null"
			}
			fmt.Fprintf(w, "{\"run_id\":\"run-%d\",\"elapsed_s\":%g,\"score\":%s,\"message\":\"ok\"}\n", i/1000, float64(i%1000)*1.5, score)
		}
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
}

// BenchmarkIngestToParquet is `rdeval ingest` end to end in process (Load
// and WriteDataset to Parquet): METR's all_runs.jsonl repeated 20 times
// with unique run ids (65 MB, as bench/compare.sh makes it), and a
// 1,000,000-row METR score.log CSV. It reports rows/s and MB/s; run with
// -cpu 1 and -cpu 2 to see the parallel parse.
func BenchmarkIngestToParquet(b *testing.B) {
	dir := b.TempDir()
	metr := filepath.Join(dir, "metr_x20.jsonl")
	src, err := os.ReadFile(metrFile(b, "3a947ac7069ecb6e1fd0064cc0205e5eb9dcba0f"))
	if err != nil {
		b.Fatal(err)
	}
	var big []byte
	for i := range 20 {
		big = append(big, bytes.ReplaceAll(src, []byte(`"run_id":"`), []byte(`"run_id":"`+strconv.Itoa(i)+"-"))...)
	}
	if err := os.WriteFile(metr, big, 0o644); err != nil {
		b.Fatal(err)
	}
	csv := filepath.Join(dir, "run-1", "score.log")
	writeScoreLog(b, csv, "csv", 1_000_000)
	for _, in := range []struct{ name, path string }{{"metr_x20.jsonl", metr}, {"score.log.csv/rows=1e6", csv}} {
		b.Run(in.name, func(b *testing.B) {
			fi, _ := os.Stat(in.path)
			b.SetBytes(fi.Size())
			out := b.TempDir()
			rows := 0
			for b.Loop() {
				ds, err := Load([]string{in.path}, Options{})
				if err != nil || ds.Err() != nil {
					b.Fatal(err, ds.Err())
				}
				if _, err := WriteDataset(out, ds, WriteOptions{Version: "bench"}); err != nil {
					b.Fatal(err)
				}
				rows = len(ds.Runs) + len(ds.Scores)
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

package ingest

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
)

// dictTestRuns are runs whose string columns hold what dictionary
// encoding must get right: values repeated in runs and scattered, equal
// values with different backing arrays (as from different parse workers'
// interners), empty strings (a value, and the minimum), nulls, a column
// that is all null and one that is all empty, and many distinct values.
func dictTestRuns(n int) []Run {
	runs := make([]Run, n)
	agents := []string{"b-agent", "a-agent", "", "c-agent"}
	for i := range runs {
		r := &runs[i]
		r.RunID = fmt.Sprintf("r%05d", i)
		r.Benchmark = "re-bench"
		r.TaskID = strings.Clone(fmt.Sprintf("task_%d", (i/7)%13)) // fresh bytes on every row
		r.Agent = agents[(i*7919)%len(agents)]
		r.Kind = "agent"
		if i%3 != 0 {
			r.Model = Some(agents[i%len(agents)])
		}
		if i%5 == 0 {
			r.TaskFamily = Some(fmt.Sprintf("fam %d", i)) // many distinct
		}
		r.Scaffold = Some("") // all empty
		// HintLevel stays null everywhere.
		if i%11 == 0 {
			r.ErrorType = Some("ValueError")
		}
		r.SourceFile = "all_runs.jsonl"
		r.SourceLine = int64(i + 1)
		if i%7 != 3 {
			r.Score = Some(float64(i) / 9)
		}
		if i%2 == 0 {
			r.TimeLimitS = Some(int64(1800 * (1 + i%3)))
			r.StartedAt = Some(time.UnixMicro(1732269600000000 + int64(i)*1000).UTC())
		}
		if i%13 == 0 {
			r.ScoreBinarized = Some(int8(i % 2))
		}
		if i%4 != 1 {
			r.FinalSuccess = Some(i%3 == 0)
		}
		// ExecSuccess stays null everywhere.
	}
	return runs
}

// TestParquetDictColumnsMatchDense: string columns written from their
// dictionary (writeDictColumn) give the bytes of encoding the dense
// columns (pqarrow), with one or several row groups and with pages of
// every size down to one write batch.
func TestParquetDictColumnsMatchDense(t *testing.T) {
	oldRows, oldPage := rowGroupRows, dataPageBytes
	t.Cleanup(func() { rowGroupRows, dataPageBytes = oldRows, oldPage })
	runs := dictTestRuns(5000)
	cols := runColsFor(runs)
	scores := make([]ScoreEntry, 6000)
	for i := range scores {
		scores[i] = ScoreEntry{RunID: fmt.Sprintf("run-%d", i/500), RawScore: float64(i)}
		if i%4 != 0 {
			scores[i].Message = Some([]string{"", "ok", "timeout"}[i%3])
		}
	}
	for _, tc := range []struct{ rows, page int }{{1 << 20, 1 << 20}, {1 << 20, 1}, {1500, 300}, {1000, 1 << 20}} {
		rowGroupRows, dataPageBytes = tc.rows, int64(tc.page)
		fallbacks := dictFallbacks.Load()
		for _, tab := range []struct {
			name  string
			n     int
			rec   arrow.RecordBatch
			group rowGroupColumns
			dense func(ci, lo, hi int) arrow.Array
		}{
			{"runs", len(runs), RunsRecord(runs, "v"),
				blockedColumns(TableRuns, cols, runs), // as WriteDataset writes them
				func(ci, lo, hi int) arrow.Array { return cols[ci].array(runs[lo:hi]) }},
			{"score_log", len(scores), ScoreLogRecord(scores, "v"),
				blockedColumns(TableScoreLog, scoreCols, scores), // as WriteDataset writes them
				func(ci, lo, hi int) arrow.Array { return scoreLogColumn(ci, scores[lo:hi]) }},
		} {
			var dense bytes.Buffer
			if err := writeParquet(&dense, tab.rec, "v"); err != nil {
				t.Fatal(err)
			}
			tab.rec.Release()
			for _, procs := range []int{1, 4} {
				prev := runtime.GOMAXPROCS(procs)
				var viaDict, viaDense bytes.Buffer
				err := writeParquetColumns(&viaDict, tab.rec.Schema(), tab.n, tab.group, "v")
				if err == nil {
					err = writeParquetColumns(&viaDense, tab.rec.Schema(), tab.n, perColumn(tab.dense), "v")
				}
				runtime.GOMAXPROCS(prev)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(viaDense.Bytes(), dense.Bytes()) {
					t.Fatalf("%s, %d rows per group, %d-byte pages: dense columns differ from the one-record write", tab.name, tc.rows, tc.page)
				}
				if !bytes.Equal(viaDict.Bytes(), dense.Bytes()) {
					t.Errorf("%s, %d rows per group, %d-byte pages, GOMAXPROCS %d: written from dictionaries (%d bytes) differs from dense (%d bytes)",
						tab.name, tc.rows, tc.page, procs, viaDict.Len(), dense.Len())
				}
			}
		}
		// Pages of one batch: task_family's dictionary grows from page to
		// page, so it must fall back to the dense path; with 1 MiB pages
		// every column is one page and none does.
		fell := dictFallbacks.Load() - fallbacks
		if tc.page == 1 && fell == 0 || tc.page == 1<<20 && fell != 0 {
			t.Errorf("%d rows per group, %d-byte pages: %d columns written dense after all", tc.rows, tc.page, fell)
		}
	}
}

// TestScoreLogColumnsOnePass: the score_log columns of the blocked pass
// (all five: numbers and dictionary-encoded strings) equal those built a
// column at a time, whatever the number of goroutines (row ranges that are
// not whole words, nulls in every nullable column).
func TestScoreLogColumnsOnePass(t *testing.T) {
	rows := make([]ScoreEntry, 50_001)
	for i := range rows {
		rows[i] = ScoreEntry{RunID: fmt.Sprintf("run-%d", i/700), RawScore: float64(i) / 7}
		if i%3 != 0 {
			rows[i].ElapsedS = Some(float64(i))
		}
		if i%5 != 0 {
			rows[i].ScoredAt = Some(time.UnixMicro(1732269600000000 + int64(i)).UTC())
		}
		if i%4 != 0 {
			rows[i].Message = Some([]string{"", "ok", "timeout"}[i%3])
		}
	}
	for _, procs := range []int{1, 3, 4} {
		prev := runtime.GOMAXPROCS(procs)
		got := blockColumns(TableScoreLog, scoreCols, rows, true)
		runtime.GOMAXPROCS(prev)
		for ci := range got {
			want := scoreLogParquetColumn(ci, rows)
			if !array.Equal(got[ci], want) || got[ci].NullN() != want.NullN() {
				t.Errorf("GOMAXPROCS %d: column %d differs", procs, ci)
			}
			got[ci].Release()
			want.Release()
		}
	}
}

// TestParquetDictCostFallback: without compression arrow-go may drop a
// dictionary that saves no space; a dictionary array is then written
// dense, and the bytes still equal the dense path's.
func TestParquetDictCostFallback(t *testing.T) {
	runs := dictTestRuns(3000)
	cols := runColsFor(runs)
	schema := schemaOf(TableRuns, cols, "v")
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Uncompressed),
		parquet.WithDictionaryDefault(false), parquet.WithDictionaryFor("task_family", true), parquet.WithDictionaryFor("agent", true))
	write := func(col func(ci int) arrow.Array) []byte {
		var buf bytes.Buffer
		pw, err := newPQWriter(&buf, schema, props)
		if err != nil {
			t.Fatal(err)
		}
		if err := pw.writeRowGroupColumns(len(runs), col); err != nil {
			t.Fatal(err)
		}
		if err := pw.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	fallbacks := dictFallbacks.Load()
	viaDict := write(func(ci int) arrow.Array {
		if cols[ci].dict != nil && (cols[ci].field.Name == "task_family" || cols[ci].field.Name == "agent") {
			return cols[ci].dict(runs)
		}
		return cols[ci].array(runs)
	})
	dense := write(func(ci int) arrow.Array { return cols[ci].array(runs) })
	if !bytes.Equal(viaDict, dense) {
		t.Error("dictionary arrays without compression: bytes differ from the dense path's")
	}
	if got := dictFallbacks.Load() - fallbacks; got != 2 {
		t.Errorf("%d columns written dense, want 2", got)
	}
}

// TestFixedColumnsBlocked: the fixed-width columns of one blocked pass
// equal those each column builds by itself (values, nulls, validity
// buffers), whatever the number of goroutines and with row ranges that
// are not whole blocks.
func TestFixedColumnsBlocked(t *testing.T) {
	runs := dictTestRuns(50_001)
	cols := runColsFor(runs)
	for _, procs := range []int{1, 3, 4} {
		prev := runtime.GOMAXPROCS(procs)
		got := blockColumns(TableRuns, cols, runs, true)
		runtime.GOMAXPROCS(prev)
		built := 0
		for ci, a := range got {
			if a == nil {
				if cols[ci].fixed != nil || cols[ci].blockDict != nil && dictionaryEncoded(TableRuns, cols[ci].field) {
					t.Errorf("%s: not built", cols[ci].field.Name)
				}
				continue
			}
			built++
			want := cols[ci].parquetArray(TableRuns, runs)
			if !array.Equal(a, want) || a.NullN() != want.NullN() || (a.NullBitmapBytes() == nil) != (want.NullBitmapBytes() == nil) {
				t.Errorf("GOMAXPROCS %d: column %s differs", procs, cols[ci].field.Name)
			}
			a.Release()
			want.Release()
		}
		if built < 25 {
			t.Errorf("only %d fixed-width columns built", built)
		}
	}
}

// scoreLogParquetColumn is column ci of the score log as the Parquet writer
// takes it, built by itself: the reference for the blocked pass.
func scoreLogParquetColumn(ci int, rows []ScoreEntry) arrow.Array {
	switch ci {
	case 0:
		return dictStringArray(rows, nil, func(e *ScoreEntry) string { return e.RunID })
	case 4:
		return dictStringArray(rows, func(e *ScoreEntry) bool { return e.Message.Valid }, func(e *ScoreEntry) string { return e.Message.V })
	}
	return scoreLogColumn(ci, rows)
}

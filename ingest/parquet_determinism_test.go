package ingest

import (
	"bytes"
	"fmt"
	"testing"
)

// TestParquetBytesDeterministic writes tables whose string columns hold
// more distinct bytes than a Parquet dictionary page takes (1 MiB by
// default) ten times and wants the same bytes each time. arrow-go v18.8.0
// writes a column chunk's encoding statistics in Go map order
// (parquet/metadata ColumnChunkMetaDataBuilder.Finish), so a chunk with two
// encodings — a dictionary that fell back to plain — came out in random
// order; parquetProps keeps every chunk to one encoding.
func TestParquetBytesDeterministic(t *testing.T) {
	const n = 40000
	runs := make([]Run, n)
	scores := make([]ScoreEntry, n)
	for i := range runs {
		id := fmt.Sprintf("run-%08d-%032x", i, uint64(i)*0x9e3779b97f4a7c15)
		runs[i] = Run{RunID: id, Benchmark: "b", TaskID: fmt.Sprintf("t%d", i%7), Agent: "a", Kind: "agent", SourceFile: "f", SourceLine: int64(i + 1)}
		scores[i] = ScoreEntry{RunID: runs[i%100].RunID, RawScore: float64(i), Message: Some(fmt.Sprintf("step %d: loss %x went somewhere new", i, uint64(i)*0x9e3779b97f4a7c15))}
	}
	for _, tc := range []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"runs", func(b *bytes.Buffer) error {
			r := RunsRecord(runs, "v")
			defer r.Release()
			return writeParquet(b, r, "v")
		}},
		{"score_log", func(b *bytes.Buffer) error {
			r := ScoreLogRecord(scores, "v")
			defer r.Release()
			return writeParquet(b, r, "v")
		}},
	} {
		var first []byte
		for i := 0; i < 10; i++ {
			var b bytes.Buffer
			if err := tc.write(&b); err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				first = b.Bytes()
			} else if !bytes.Equal(first, b.Bytes()) {
				t.Fatalf("%s: write %d differs from the first (%d vs %d bytes)", tc.name, i, b.Len(), len(first))
			}
		}
	}
}

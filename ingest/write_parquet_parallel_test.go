package ingest

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// pqarrowWriteParquet is the reference: pqarrow's own FileWriter, one
// column after the other, as rdeval wrote Parquet before pqWriter.
func pqarrowWriteParquet(w io.Writer, rec arrow.RecordBatch, version string) error {
	fw, err := pqarrow.NewFileWriter(rec.Schema(), w, parquetProps(version, rec.Schema()),
		pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		return err
	}
	if err := fw.WriteBuffered(rec); err != nil {
		fw.Close()
		return err
	}
	return fw.Close()
}

// randomRuns fills every runs column, each optional one null in about a
// third of the rows; files_edited is nil, empty or holds 1–3 names.
func randomRuns(n int, seed uint64) []Run {
	rng := rand.New(rand.NewPCG(seed, 1))
	some := func() bool { return rng.IntN(3) > 0 }
	optS := func(s string) Opt[string] {
		if some() {
			return Some(s)
		}
		return Opt[string]{}
	}
	optF := func() Opt[float64] {
		if some() {
			return Some(rng.NormFloat64())
		}
		return Opt[float64]{}
	}
	optI := func() Opt[int64] {
		if some() {
			return Some(rng.Int64N(1000))
		}
		return Opt[int64]{}
	}
	optT := func() Opt[time.Time] {
		if some() {
			return Some(time.Unix(1.7e9+rng.Int64N(1e7), rng.Int64N(1e9)/1000*1000).UTC())
		}
		return Opt[time.Time]{}
	}
	optB := func() Opt[bool] {
		if some() {
			return Some(rng.IntN(2) == 0)
		}
		return Opt[bool]{}
	}
	runs := make([]Run, n)
	for i := range runs {
		r := &runs[i]
		r.RunID = fmt.Sprintf("run-%d-%x", i, rng.Uint64())
		r.Benchmark = []string{"re-bench", "rexbench", "hcast"}[rng.IntN(3)]
		r.TaskID = fmt.Sprintf("task_%d", rng.IntN(40))
		r.TaskFamily, r.TaskVersion = optS(fmt.Sprintf("fam_%d", rng.IntN(5))), optS("1.0")
		r.Agent = fmt.Sprintf("agent %d", rng.IntN(9))
		r.Model, r.Scaffold = optS("model"), optS(fmt.Sprintf("scaffold %d", rng.IntN(3)))
		r.Kind = []string{"agent", "human"}[rng.IntN(2)]
		r.TimeLimitS, r.StartedAt, r.CompletedAt, r.DurationS = optI(), optT(), optT(), optF()
		r.RawScore, r.Score, r.HumanMinutes = optF(), optF(), optF()
		if some() {
			r.ScoreBinarized = Some(int8(rng.IntN(2)))
		}
		r.HintLevel, r.Trial, r.Seed = optS("hints"), optI(), optI()
		r.FinalSuccess, r.ExecSuccess = optB(), optB()
		r.Outcome, r.ErrorType = optS("success"), optS(fmt.Sprintf("Error%d", rng.IntN(4)))
		switch rng.IntN(4) {
		case 0:
		case 1:
			r.FilesEdited = []string{}
		default:
			for k := rng.IntN(3); k >= 0; k-- {
				r.FilesEdited = append(r.FilesEdited, fmt.Sprintf("src/f%d.py", rng.IntN(20)))
			}
		}
		r.LinesAdded, r.LinesDeleted = optI(), optI()
		r.ResultValue, r.FileRecall, r.Tokens, r.CostUSD = optF(), optF(), optF(), optF()
		r.EqualTaskWeight, r.InvsqrtTaskWeight, r.Weight = optF(), optF(), optF()
		r.SourceFile, r.SourceLine = "in.jsonl", int64(i+1)
	}
	return runs
}

func randomScores(n int, seed uint64) []ScoreEntry {
	rng := rand.New(rand.NewPCG(seed, 2))
	out := make([]ScoreEntry, n)
	for i := range out {
		e := &out[i]
		e.RunID = fmt.Sprintf("run-%d", i/50)
		if rng.IntN(4) > 0 {
			e.ElapsedS = Some(float64(i) * 1.5)
		}
		if rng.IntN(4) > 0 {
			e.ScoredAt = Some(time.Unix(1.7e9+int64(i), 0).UTC())
		}
		e.RawScore = rng.NormFloat64()
		if rng.IntN(4) > 0 {
			e.Message = Some(fmt.Sprintf(`{"status": "%d"}`, rng.IntN(5)))
		}
	}
	return out
}

// parquetCases are tables covering every column kind: nulls in some, all
// or no rows; lists null, empty, with elements, all null, all empty; no
// rows at all.
func parquetCases() map[string]arrow.RecordBatch {
	runs := randomRuns(3000, 1)
	allNull := randomRuns(50, 2)
	allEmpty := randomRuns(50, 3)
	noNulls := randomRuns(50, 4)[:0]
	for i := range allNull {
		allNull[i].FilesEdited, allNull[i].Score, allNull[i].Model = nil, Opt[float64]{}, Opt[string]{}
		allEmpty[i].FilesEdited = []string{}
		r := Run{RunID: fmt.Sprint(i), Benchmark: "b", TaskID: "t", Agent: "a", Kind: "agent",
			TaskFamily: Some("f"), Score: Some(float64(i)), FilesEdited: []string{"a", "b"}, SourceFile: "f", SourceLine: int64(i)}
		noNulls = append(noNulls, r)
	}
	tasks := []Task{
		{TaskID: "a", Benchmark: "b", GoldFiles: []string{"x", "y"}, YStart: Some(1.0)},
		{TaskID: "b", Benchmark: "b", GoldFiles: []string{}},
		{TaskID: "c", Benchmark: "b", Family: Some("f"), GoldLinesChanged: Some(int64(3))},
	}
	return map[string]arrow.RecordBatch{
		"runs":           RunsRecord(runs, "v"),
		"runs all null":  RunsRecord(allNull, "v"),
		"runs all empty": RunsRecord(allEmpty, "v"),
		"runs no nulls":  RunsRecord(noNulls, "v"),
		"runs no rows":   RunsRecord(nil, "v"),
		"score_log":      ScoreLogRecord(randomScores(5000, 5), "v"),
		"tasks":          TasksRecord(tasks, "v"),
	}
}

// TestParquetParallelMatchesPqarrow: the concurrent column encoder writes
// the bytes pqarrow's FileWriter writes, for one and several row groups and
// one or four goroutines.
func TestParquetParallelMatchesPqarrow(t *testing.T) {
	cases := parquetCases()
	defer func() {
		for _, r := range cases {
			r.Release()
		}
	}()
	oldRG, oldProcs := rowGroupRows, runtime.GOMAXPROCS(0)
	t.Cleanup(func() { rowGroupRows = oldRG; runtime.GOMAXPROCS(oldProcs) })
	for _, rg := range []int{oldRG, 7, 1000} {
		rowGroupRows = rg
		for name, rec := range cases {
			var want bytes.Buffer
			if err := pqarrowWriteParquet(&want, rec, "v"); err != nil {
				t.Fatal(name, err)
			}
			for _, procs := range []int{1, 4} {
				runtime.GOMAXPROCS(procs)
				var got bytes.Buffer
				if err := writeParquet(&got, rec, "v"); err != nil {
					t.Fatal(name, err)
				}
				if !bytes.Equal(got.Bytes(), want.Bytes()) {
					t.Errorf("%s, %d-row groups, GOMAXPROCS %d: %d bytes, pqarrow wrote %d, or the same number of different bytes",
						name, rg, procs, got.Len(), want.Len())
				}
			}
			runtime.GOMAXPROCS(oldProcs)
		}
	}
}

// TestParquetParallelGOMAXPROCS writes a dataset through WriteDataset (row
// groups built, their columns filled concurrently, while the previous one
// is encoded) with GOMAXPROCS 1 and 4 and wants the same files.
func TestParquetParallelGOMAXPROCS(t *testing.T) {
	ds := &Dataset{Runs: randomRuns(2500, 7), Scores: randomScores(4000, 8)}
	oldRG, oldProcs, oldBuild := rowGroupRows, runtime.GOMAXPROCS(0), parallelBuildRows
	t.Cleanup(func() { rowGroupRows, parallelBuildRows = oldRG, oldBuild; runtime.GOMAXPROCS(oldProcs) })
	rowGroupRows, parallelBuildRows = 1000, 1
	var first map[string][]byte
	for _, procs := range []int{1, 4, 1, 4} {
		runtime.GOMAXPROCS(procs)
		dir := t.TempDir()
		m, err := WriteDataset(dir, ds, WriteOptions{Version: "v"})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string][]byte{}
		for _, o := range m.Outputs {
			got[o.Path] = []byte(o.SHA256)
		}
		if first == nil {
			first = got
			continue
		}
		for k, v := range first {
			if !bytes.Equal(got[k], v) {
				t.Errorf("GOMAXPROCS %d: %s has sha256 %s, want %s", procs, k, got[k], v)
			}
		}
	}
}

// TestParquetParallelRefusesNullInRequired: a null in a non-nullable column
// is an error, not a silently wrong file.
func TestParquetParallelRefusesNullInRequired(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewRecordBuilder(memPool, schema)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2}, []bool{true, false})
	rec := b.NewRecordBatch()
	defer rec.Release()
	if err := writeParquet(io.Discard, rec, "v"); err == nil {
		t.Fatal("no error for a null in a non-nullable column")
	}
}

// viaBuilders copies rec through Arrow's array builders (Append per value),
// the way rdeval built its columns before arrays.go.
func viaBuilders(t *testing.T, rec arrow.RecordBatch) arrow.RecordBatch {
	b := array.NewRecordBuilder(memPool, rec.Schema())
	defer b.Release()
	for ci, col := range rec.Columns() {
		for i := 0; i < col.Len(); i++ {
			fb := b.Field(ci)
			if col.IsNull(i) {
				fb.AppendNull()
				continue
			}
			switch a := col.(type) {
			case *array.String:
				fb.(*array.StringBuilder).Append(a.Value(i))
			case *array.Int64:
				fb.(*array.Int64Builder).Append(a.Value(i))
			case *array.Int8:
				fb.(*array.Int8Builder).Append(a.Value(i))
			case *array.Float64:
				fb.(*array.Float64Builder).Append(a.Value(i))
			case *array.Boolean:
				fb.(*array.BooleanBuilder).Append(a.Value(i))
			case *array.Timestamp:
				fb.(*array.TimestampBuilder).Append(a.Value(i))
			case *array.List:
				lb := fb.(*array.ListBuilder)
				lb.Append(true)
				lo, hi := a.ValueOffsets(i)
				for j := lo; j < hi; j++ {
					lb.ValueBuilder().(*array.StringBuilder).Append(a.ListValues().(*array.String).Value(int(j)))
				}
			default:
				t.Fatalf("column %d: type %T not handled", ci, col)
			}
		}
	}
	return b.NewRecordBatch()
}

// TestArraysMatchBuilders: the directly built columns (arrays.go) equal
// the builders' and give the same Parquet bytes.
func TestArraysMatchBuilders(t *testing.T) {
	cases := parquetCases()
	for name, rec := range cases {
		ref := viaBuilders(t, rec)
		if !array.RecordEqual(rec, ref) {
			t.Errorf("%s: record differs from the builders'", name)
		}
		var got, want bytes.Buffer
		if err := pqarrowWriteParquet(&got, rec, "v"); err != nil {
			t.Fatal(err)
		}
		if err := pqarrowWriteParquet(&want, ref, "v"); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("%s: Parquet of the direct arrays (%d bytes) differs from the builders' (%d bytes)", name, got.Len(), want.Len())
		}
		ref.Release()
		rec.Release()
	}
}

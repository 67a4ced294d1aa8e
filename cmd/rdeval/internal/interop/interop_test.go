// Package interop checks that independent readers open the tables rdeval
// writes: DuckDB for Parquet and the apache-arrow JavaScript library for
// Arrow IPC (interop/check.mjs, npm packages pinned in interop/package.json).
// .ci/run installs them with `npm ci`; without node or the packages the test
// skips and says how to install them.
package interop

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdtest"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/demo"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/executecmd"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/rdeval/rdeval/execute"
	"github.com/rdeval/rdeval/ingest"
	"github.com/spf13/cobra"
)

const interopDir = "../../../../interop"

type column struct {
	Name       string `json:"name"`
	DuckDBType string `json:"duckdb_type,omitempty"`
	ArrowType  string `json:"arrow_type,omitempty"`
	Nulls      int64  `json:"nulls"`
	// Digest is the SHA-256 of every value of the column in row order,
	// spelled as valueDigest says; the readers recompute it from the file.
	Digest string `json:"digest"`
}

type table struct {
	Path       string             `json:"path"`
	Format     string             `json:"format"`
	Rows       int64              `json:"rows"`
	Columns    []column           `json:"columns"`
	MeanScores map[string]float64 `json:"mean_score_by_agent,omitempty"`
}

// duckType and jsType give the type names DuckDB and apache-arrow report
// for each Arrow type rdeval writes.
func duckType(t arrow.DataType) string {
	switch t.ID() {
	case arrow.STRING:
		return "VARCHAR"
	case arrow.INT64:
		return "BIGINT"
	case arrow.INT8:
		return "TINYINT"
	case arrow.FLOAT64:
		return "DOUBLE"
	case arrow.BOOL:
		return "BOOLEAN"
	case arrow.TIMESTAMP:
		return "TIMESTAMP WITH TIME ZONE"
	case arrow.LIST:
		return duckType(t.(*arrow.ListType).Elem()) + "[]"
	}
	return t.String()
}

func jsType(t arrow.DataType) string {
	switch t.ID() {
	case arrow.STRING:
		return "Utf8"
	case arrow.INT64:
		return "Int64"
	case arrow.INT8:
		return "Int8"
	case arrow.FLOAT64:
		return "Float64"
	case arrow.BOOL:
		return "Bool"
	case arrow.TIMESTAMP:
		return "Timestamp<MICROSECOND, UTC>"
	case arrow.LIST:
		return "List<" + jsType(t.(*arrow.ListType).Elem()) + ">"
	}
	return t.String()
}

func describe(path, format string, rec arrow.RecordBatch) table {
	t := table{Path: path, Format: format, Rows: rec.NumRows()}
	for i, f := range rec.Schema().Fields() {
		c := column{Name: f.Name, Nulls: int64(rec.Column(i).NullN()), Digest: valueDigest(rec.Column(i))}
		if format == ingest.FormatParquet {
			c.DuckDBType = duckType(f.Type)
		} else {
			c.ArrowType = jsType(f.Type)
		}
		t.Columns = append(t.Columns, c)
	}
	return t
}

// executeRunFolder runs `rdeval execute run` on the toy task (two patches ×
// two seeds) and ingests its run folder, so execute's runs are checked by
// the independent readers like every other table.
func executeRunFolder(t *testing.T) *ingest.Dataset {
	t.Helper()
	specPath, patches := cmdtest.ToyExecuteTask(t)
	out := filepath.Join(t.TempDir(), "rd")
	args := []string{"run", "--task", specPath, "--patches", patches, "--out", out}
	if _, err := execute.DetectSandbox(false); err != nil {
		t.Logf("no sandbox here (%v): running the toy task with --no-sandbox", err)
		args = append(args, "--no-sandbox")
	}
	newCmd := func(io *iostreams.IO) *cobra.Command { return executecmd.NewCmd(io, nil) }
	if _, errOut, err := cmdtest.Run(t, newCmd, args...); err != nil {
		t.Fatalf("execute run: %v\n%s", err, errOut)
	}
	ds, err := ingest.Load([]string{out}, ingest.Options{})
	if err != nil || ds.Err() != nil {
		t.Fatal(err, ds.Err())
	}
	if len(ds.Runs) != 4 {
		t.Fatalf("execute run folder: %d runs ingested, want 4", len(ds.Runs))
	}
	return ds
}

// valueDigest hashes a column's values, one line per row: "N" for null,
// otherwise "V" and the value — strings as they are, integers in decimal,
// booleans as true/false, doubles as the 16 hex digits of their IEEE-754
// bits (exact, unlike decimal spellings that differ between Go and
// JavaScript), timestamps as integer microseconds since the epoch (UTC),
// lists as the element count followed by each element after a \x01. The
// same spelling is computed by interop/check.mjs from what DuckDB and
// apache-arrow read, so every value (lists and timestamps included) is
// compared, not only types and counts.
func valueDigest(a arrow.Array) string {
	h := sha256.New()
	for i := 0; i < a.Len(); i++ {
		if a.IsNull(i) {
			h.Write([]byte("N\n"))
			continue
		}
		var v string
		switch x := a.(type) {
		case *array.String:
			v = x.Value(i)
		case *array.Int64:
			v = fmt.Sprint(x.Value(i))
		case *array.Int8:
			v = fmt.Sprint(x.Value(i))
		case *array.Boolean:
			v = fmt.Sprint(x.Value(i))
		case *array.Float64:
			v = fmt.Sprintf("%016x", math.Float64bits(x.Value(i)))
		case *array.Timestamp:
			v = fmt.Sprint(int64(x.Value(i)))
		case *array.List:
			start, end := x.ValueOffsets(i)
			vals := x.ListValues().(*array.String)
			v = fmt.Sprint(end - start)
			for j := start; j < end; j++ {
				v += "\x01" + vals.Value(int(j))
			}
		default:
			panic(fmt.Sprintf("interop test: no digest spelling for %s", a.DataType()))
		}
		h.Write([]byte("V" + v + "\n"))
	}
	return hex.EncodeToString(h.Sum(nil))
}

func meanScores(runs []ingest.Run) map[string]float64 {
	sum, n := map[string]float64{}, map[string]float64{}
	for _, r := range runs {
		if r.Score.Valid {
			sum[r.Agent] += r.Score.V
			n[r.Agent]++
		}
	}
	for a := range sum {
		sum[a] /= n[a]
	}
	return sum
}

// TestInteropReaders writes the demo study (runs with lists and
// timestamps, score log, tasks) and, when ../shared is present, METR's
// all_runs.jsonl, in both formats, and checks row counts, column names and
// types, null counts, key-value metadata (Parquet) and the mean score per
// agent with DuckDB and apache-arrow.
func TestInteropReaders(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("skipping: node not found (the interop test reads rdeval's files with DuckDB and apache-arrow from npm)")
	}
	if _, err := os.Stat(filepath.Join(interopDir, "node_modules", "@duckdb", "node-api")); err != nil {
		t.Skip("skipping: npm packages missing; run: (cd interop && npm ci)")
	}
	type dataset struct {
		name string
		ds   *ingest.Dataset
	}
	var sets []dataset
	demoDS, err := ingest.Load([]string{demo.REBenchRunsPath, demo.REBenchScoreLogPath, demo.RExBenchRunsPath}, ingest.Options{FS: demo.FS()})
	if err != nil || demoDS.Err() != nil {
		t.Fatal(err, demoDS.Err())
	}
	sets = append(sets, dataset{"demo", demoDS})
	sets = append(sets, dataset{"execute", executeRunFolder(t)})
	metr := filepath.Join("..", "..", "..", "..", "..", "shared", "anchors", "eval-analysis-public", "3a947ac7069ecb6e1fd0064cc0205e5eb9dcba0f", "data", "external", "all_runs.jsonl")
	if _, err := os.Stat(metr); err == nil {
		ds, err := ingest.Load([]string{metr}, ingest.Options{})
		if err != nil || ds.Err() != nil {
			t.Fatal(err, ds.Err())
		}
		sets = append(sets, dataset{"metr", ds})
	} else {
		t.Log("METR data not found beside the checkout; checking the demo study only")
	}
	dir := t.TempDir()
	var exp struct {
		Tables []table `json:"tables"`
	}
	for _, s := range sets {
		for _, format := range []string{ingest.FormatParquet, ingest.FormatArrow} {
			out := filepath.Join(dir, s.name+"-"+format)
			m, err := ingest.WriteDataset(out, s.ds, ingest.WriteOptions{Format: format, Version: "interop-test"})
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range m.Outputs {
				var rec arrow.RecordBatch
				switch o.Table {
				case ingest.TableRuns:
					rec = ingest.RunsRecord(s.ds.Runs, "interop-test")
				case ingest.TableScoreLog:
					rec = ingest.ScoreLogRecord(s.ds.Scores, "interop-test")
				case ingest.TableTasks:
					rec = ingest.TasksRecord(s.ds.Tasks, "interop-test")
				}
				tb := describe(filepath.Join(out, o.Path), format, rec)
				rec.Release()
				if o.Table == ingest.TableRuns {
					tb.MeanScores = meanScores(s.ds.Runs)
				}
				exp.Tables = append(exp.Tables, tb)
			}
		}
	}
	// rdeval export's plain files (runs): DuckDB's CSV and JSON readers
	// must find the same rows, columns, null counts (JSON Lines; CSV has
	// no null distinct from "") and mean score per agent.
	for _, s := range sets {
		rec := ingest.RunsRecord(s.ds.Runs, "interop-test")
		for _, format := range []string{ingest.FormatCSV, ingest.FormatJSONL} {
			path := filepath.Join(dir, s.name+"-runs."+format)
			if err := ingest.WriteTableText(path, rec, format); err != nil {
				t.Fatal(err)
			}
			tb := table{Path: path, Format: format, Rows: rec.NumRows(), MeanScores: meanScores(s.ds.Runs)}
			nf := ingest.NonFinite(rec)
			for i, f := range rec.Schema().Fields() {
				tb.Columns = append(tb.Columns, column{Name: f.Name, Nulls: int64(rec.Column(i).NullN() + nf[f.Name])})
			}
			exp.Tables = append(exp.Tables, tb)
		}
		rec.Release()
	}
	b, _ := json.MarshalIndent(exp, "", " ")
	expPath := filepath.Join(dir, "expected.json")
	if err := os.WriteFile(expPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	check, _ := filepath.Abs(filepath.Join(interopDir, "check.mjs"))
	cmd := exec.Command(node, check, expPath)
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("independent readers disagree with rdeval (%v):\n%s", err, out)
	}
	if want := fmt.Sprintf("interop: %d tables agree", len(exp.Tables)); !strings.Contains(string(out), want) {
		t.Errorf("output %q, want %q", out, want)
	}
}

package ingest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
)

// Output file formats.
const (
	FormatParquet = "parquet" // Parquet, zstd, dictionary encoding, column statistics
	FormatArrow   = "arrow"   // Arrow IPC file format (uncompressed, for the widest reader support)
)

// WriteOptions control WriteDataset.
type WriteOptions struct {
	Format  string   // FormatParquet (default) or FormatArrow
	Version string   // rdeval version recorded in file metadata and the manifest
	Args    []string // the command line, recorded in the manifest
	// SkipBad writes the good records and DIR/rejected.jsonl; without it a
	// dataset with errors is refused and nothing is written.
	SkipBad bool
}

// OutputFile describes one written table in the manifest.
type OutputFile struct {
	Table  string `json:"table"`
	Path   string `json:"path"` // relative to the output folder
	Rows   int    `json:"rows"`
	SHA256 string `json:"sha256"`
}

// Manifest is DIR/manifest.json: what was read, what was written, and how.
type Manifest struct {
	RdevalVersion  string       `json:"rdeval_version"`
	SchemaVersion  string       `json:"schema_version"`
	Args           []string     `json:"args,omitempty"`
	Format         string       `json:"format"`
	Inputs         []InputStats `json:"inputs"`
	Outputs        []OutputFile `json:"outputs"`
	RowsRejected   int          `json:"rows_rejected"`   // records rejected (not counting InputsRejected)
	InputsRejected int          `json:"inputs_rejected"` // inputs rejected as a whole or cut short (InputStats.Error)
	RejectedFile   string       `json:"rejected_file,omitempty"`
	Warnings       []Warning    `json:"warnings"`
}

// WriteDataset writes ds into dir as runs, score_log (when there are
// entries) and tasks tables plus manifest.json. The whole set is written
// to temporary names in dir first and then renamed into place, manifest
// first, so a crash never leaves a half-written file, and a crash between
// two renames leaves tables that the manifest's checksums do not match,
// which Load refuses. Temporary files left by an earlier interrupted write
// are removed. With errors in ds and !opt.SkipBad it writes nothing and
// returns ds.Err().
func WriteDataset(dir string, ds *Dataset, opt WriteOptions) (*Manifest, error) {
	if len(ds.Errors) > 0 && !opt.SkipBad {
		return nil, ds.Err()
	}
	if opt.Format == "" {
		opt.Format = FormatParquet
	}
	if opt.Format != FormatParquet && opt.Format != FormatArrow {
		return nil, fmt.Errorf("unknown format %q (want parquet or arrow)", opt.Format)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	m := &Manifest{RdevalVersion: opt.Version, SchemaVersion: SchemaVersion, Args: opt.Args,
		Format: opt.Format, Inputs: ds.Inputs, Warnings: ds.Warnings}
	for _, r := range ds.Rejected {
		if !r.Input {
			m.RowsRejected++
		}
	}
	for _, in := range ds.Inputs {
		if in.Error != "" {
			m.InputsRejected++
		}
	}
	if m.Inputs == nil {
		m.Inputs = []InputStats{}
	}
	if m.Warnings == nil {
		m.Warnings = []Warning{}
	}
	ext := "." + opt.Format
	if opt.Format != FormatParquet {
		ds.rowRuns() // the Arrow IPC writer takes Runs
	}
	runCols := runColsFor(ds.Runs)
	runGroup := blockedColumns(TableRuns, runCols, ds.Runs)
	if st := ds.runStore; st != nil { // a write-only load's runs, as columns
		runCols = st.columns()
		runGroup = st.group(runCols)
	}
	runSchema := schemaOf(TableRuns, runCols, opt.Version)
	scoreSchema := ScoreLogSchema(opt.Version)
	tables := []struct {
		name   string
		schema *arrow.Schema
		rows   int
		rec    func() arrow.RecordBatch // the whole table (Arrow IPC)
		group  rowGroupColumns          // the columns of rows [lo, hi) (Parquet)
	}{
		{TableRuns, runSchema, ds.NumRuns(),
			func() arrow.RecordBatch { return buildRecord(runSchema, runCols, ds.Runs) },
			runGroup},
		{TableScoreLog, scoreSchema, len(ds.Scores),
			func() arrow.RecordBatch { return scoreLogRecord(scoreSchema, ds.Scores) },
			blockedColumns(TableScoreLog, scoreCols, ds.Scores)},
		{TableTasks, TasksSchema(opt.Version), len(ds.Tasks),
			func() arrow.RecordBatch { return TasksRecord(ds.Tasks, opt.Version) },
			perColumn(func(ci, lo, hi int) arrow.Array { return taskCols[ci].parquetArray(TableTasks, ds.Tasks[lo:hi]) })},
	}
	// The whole set is written to temporary files first; only then is
	// anything renamed into place (commitOutputs), so an error or a kill
	// before that leaves dir as it was, with at most stray temporary files
	// (removed by the next WriteDataset into dir).
	removeStaleTemps(dir)
	var pending []pendingFile
	defer func() {
		for _, p := range pending {
			os.Remove(p.tmp) // no-op once renamed
		}
	}()
	for _, t := range tables {
		name := t.name + ext
		if t.name == TableScoreLog && t.rows == 0 {
			// No score log: a stale one from an earlier ingest into dir is removed.
			pending = append(pending, pendingFile{final: filepath.Join(dir, name)})
			continue
		}
		final := filepath.Join(dir, name)
		tmp, sum, err := writeTempFile(final, func(w io.Writer) error {
			if opt.Format == FormatArrow {
				rec := t.rec()
				defer rec.Release()
				return writeIPC(w, rec)
			}
			return writeParquetColumns(w, t.schema, t.rows, t.group, opt.Version)
		})
		if err != nil {
			return nil, fmt.Errorf("writing %s: %w", final, err)
		}
		pending = append(pending, pendingFile{tmp: tmp, final: final})
		writePhase("written " + name)
		m.Outputs = append(m.Outputs, OutputFile{Table: t.name, Path: name, Rows: t.rows, SHA256: sum})
	}
	rejPath := filepath.Join(dir, "rejected.jsonl")
	rej := pendingFile{final: rejPath}
	if len(ds.Rejected) > 0 {
		tmp, _, err := writeTempFile(rejPath, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			for _, r := range ds.Rejected {
				if err := enc.Encode(r); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		rej.tmp = tmp
		m.RejectedFile = "rejected.jsonl"
		writePhase("written rejected.jsonl")
	}
	manPath := filepath.Join(dir, "manifest.json")
	tmp, _, err := writeTempFile(manPath, func(w io.Writer) error {
		b, err := json.MarshalIndent(m, "", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	})
	if err != nil {
		return nil, err
	}
	writePhase("written manifest.json")
	// Until the first step below, dir holds the old output set, whole, and
	// temporary files. The order of the steps: a stale table goes first
	// (with the old manifest still in place it is missing from it; removed
	// after the new manifest, a stale table that manifest does not list
	// would be read unchecked), then the manifest, then rejected.jsonl
	// (which no manifest checksum covers: before the manifest it would put
	// a new file beside the old set), then the tables. A kill between two
	// steps leaves a manifest whose checksums some table does not match
	// (or whose table is missing), which Load refuses (verifyManifest). A
	// table renamed before its manifest could leave a first ingest's tables
	// with no manifest to check them against.
	var steps []pendingFile
	for _, p := range pending {
		if p.tmp == "" {
			steps = append(steps, p)
		}
	}
	steps = append(steps, pendingFile{tmp: tmp, final: manPath}, rej)
	for _, p := range pending {
		if p.tmp != "" {
			steps = append(steps, p)
		}
	}
	if err := commitOutputs(dir, steps); err != nil {
		return nil, err
	}
	return m, nil
}

// pendingFile is an output written to tmp, to be renamed to final; with
// no tmp, final is removed (an output of an earlier write that this one
// does not have).
type pendingFile struct{ tmp, final string }

// commitHook, when set (by tests), is called before each step of
// commitOutputs with the final name; an error stops there, as a kill
// would.
var commitHook func(final string) error

// WritePhaseHook, when set, is called by WriteDataset at each point of its
// write phase where a kill leaves a distinct state: "written NAME" once
// the temporary file of output NAME is whole (the manifest's last), then
// "remove NAME" and "rename NAME" before each step of putting the set in
// place, and "done" after the last. Only tests set it: the kill -9 test of
// rdeval ingest (cmd/rdeval/internal/cli) blocks there and kills the
// process.
var WritePhaseHook func(point string)

func writePhase(point string) {
	if WritePhaseHook != nil {
		WritePhaseHook(point)
	}
}

// commitOutputs takes the steps in order: each pending file is renamed
// into place, or removed when it has no tmp (removing one that is not
// there is no error); then dir is synced.
func commitOutputs(dir string, steps []pendingFile) error {
	for _, p := range steps {
		if commitHook != nil {
			if err := commitHook(p.final); err != nil {
				return err
			}
		}
		if p.tmp == "" {
			if _, err := os.Lstat(p.final); errors.Is(err, fs.ErrNotExist) {
				continue // nothing to remove: no distinct state
			}
			writePhase("remove " + filepath.Base(p.final))
			if err := os.Remove(p.final); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			continue
		}
		writePhase("rename " + filepath.Base(p.final))
		if err := os.Rename(p.tmp, p.final); err != nil {
			return fmt.Errorf("writing %s: %w", p.final, err)
		}
	}
	writePhase("done")
	syncDir(dir)
	return nil
}

// removeStaleTemps removes the temporary files an interrupted WriteDataset
// (kill -9) left in dir: ".NAME.tmp-*" for each name it writes.
func removeStaleTemps(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	names := []string{"manifest.json", "rejected.jsonl"}
	for _, t := range []string{TableRuns, TableScoreLog, TableTasks} {
		names = append(names, t+"."+FormatParquet, t+"."+FormatArrow)
	}
	for _, e := range ents {
		for _, n := range names {
			if e.Type().IsRegular() && strings.HasPrefix(e.Name(), tempPrefix(n)) {
				os.Remove(filepath.Join(dir, e.Name()))
			}
		}
	}
}

// WriteTableFile writes one record batch to path (format by opt.Format) atomically.
func WriteTableFile(path string, rec arrow.RecordBatch, format, version string) error {
	_, err := WriteAtomic(path, AtomicOptions{}, func(w io.Writer) error {
		if format == FormatArrow {
			return writeIPC(w, rec)
		}
		return writeParquet(w, rec, version)
	})
	return err
}

// parquetProps: zstd at its fastest level, column statistics, and
// dictionary encoding for string columns only — agents, tasks, models and
// messages repeat, while dictionary-encoding floats and timestamps (nearly
// all distinct) only costs hashing before Parquet falls back to plain. The
// runs table's run_id is unique per row, so it is written plain.
//
// Integer columns (source_line, time_limit_s, trial, seed, lines_added,
// lines_deleted, score_binarized) are DELTA_BINARY_PACKED, a standard
// Parquet encoding every reader rdeval is tested with reads (DuckDB in the
// interop tests): line numbers and time limits then take a few bits per
// value, and zstd, which spends most of its time on the many short matches
// of plain consecutive integers, has little left to do (METR ×20: writing
// source_line 13.5 → 1.8 ms, time_limit_s 7.1 → 3.6 ms, one core).
// So is the score log's scored_at, which rises within each run's log
// (10^6-row score log: 0.665 → 0.630 s, 10.5 → 8.7 MB, medians of 8
// alternating runs); the runs table's timestamps stay plain, where delta
// encoding was slower (METR ×20: 0.395 → 0.410 s, 10 runs).
//
// A dictionary never falls back to plain within a column chunk (the limit
// on its size is lifted; a row group holds at most rowGroupRows rows, so a
// dictionary stays bounded): a chunk with two encodings gets its encoding
// statistics written in Go map order by arrow-go v18.8.0
// (ColumnChunkMetaDataBuilder.Finish), and the same table would not give
// the same bytes twice (TestParquetBytesDeterministic).
func parquetProps(version string, schema *arrow.Schema) *parquet.WriterProperties {
	table, _ := schema.Metadata().GetValue("rdeval.table")
	opts := []parquet.WriterProperty{
		parquet.WithDictionaryPageSizeLimit(1 << 40),
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithCompressionLevel(1),
		parquet.WithDictionaryDefault(false),
		parquet.WithStats(true),
		parquet.WithVersion(parquet.V2_6),
		parquet.WithCreatedBy("rdeval " + version),
		parquet.WithMaxRowGroupLength(int64(rowGroupRows)),
		parquet.WithDataPageSize(dataPageBytes),
		parquet.WithAllocator(memPool),
	}
	for _, f := range schema.Fields() {
		switch t := f.Type.(type) {
		case *arrow.Int64Type, *arrow.Int8Type:
			opts = append(opts, parquet.WithEncodingFor(f.Name, parquet.Encodings.DeltaBinaryPacked))
		case *arrow.TimestampType:
			if table == TableScoreLog {
				opts = append(opts, parquet.WithEncodingFor(f.Name, parquet.Encodings.DeltaBinaryPacked))
			}
		case *arrow.StringType:
			if dictionaryEncoded(table, f) {
				opts = append(opts, parquet.WithDictionaryFor(f.Name, true))
			}
		case *arrow.ListType:
			if _, ok := t.Elem().(*arrow.StringType); ok {
				opts = append(opts, parquet.WithDictionaryFor(f.Name+".list.element", true))
			}
		}
	}
	return parquet.NewWriterProperties(opts...)
}

// dataPageBytes is the target size of a Parquet data page: arrow-go's
// default (a variable so that tests can make columns of many pages).
var dataPageBytes int64 = parquet.DefaultDataPageSize

// dictionaryEncoded says whether string column f of table is written
// dictionary-encoded: all are but the runs table's run_id.
func dictionaryEncoded(table string, f arrow.Field) bool {
	_, str := f.Type.(*arrow.StringType)
	return str && !(table == TableRuns && f.Name == "run_id")
}

// rowGroupRows is the number of rows per Parquet row group (a variable so
// that tests can exercise several row groups on small tables).
var rowGroupRows = 1 << 20

// rowGroupColumns gives the columns of a table's rows [lo, hi): the
// function it returns is called once per column, on any goroutine, and
// gives column ci, which the caller releases.
type rowGroupColumns func(lo, hi int) func(ci int) arrow.Array

// perColumn builds each column of a row group by itself, when the writer
// asks for it: col(ci, lo, hi) is column ci of rows [lo, hi).
func perColumn(col func(ci, lo, hi int) arrow.Array) rowGroupColumns {
	return func(lo, hi int) func(ci int) arrow.Array {
		return func(ci int) arrow.Array { return col(ci, lo, hi) }
	}
}

// writeParquetColumns writes a table of n rows as Parquet, one row group
// of rowGroupRows rows at a time (one, empty, when n is 0), whose columns
// group gives. Each column of a row group is encoded on one of GOMAXPROCS
// goroutines (pqWriter.writeRowGroupColumns), and released before the next
// row group: at most a row group's columns are held as Arrow data, never
// the whole table. The bytes are those writeParquet gives for the whole
// table as one record (TestParquetColumnsMatchOneRecord).
func writeParquetColumns(w io.Writer, schema *arrow.Schema, n int, group rowGroupColumns, version string) error {
	pw, err := newPQWriter(w, schema, parquetProps(version, schema))
	if err != nil {
		return err
	}
	for lo := 0; lo < n || lo == 0; lo += rowGroupRows {
		hi := min(lo+rowGroupRows, n)
		if err := pw.writeRowGroupColumns(hi-lo, group(lo, hi)); err != nil {
			return err
		}
		if n == 0 {
			break
		}
	}
	return pw.Close()
}

// writeParquet writes rec as Parquet, in row groups of rowGroupRows rows
// (one, possibly empty, when rec has no rows), each row group's columns
// encoded concurrently (pqWriter). The bytes are those of
// pqarrow.FileWriter.WriteBuffered(rec) with the same properties.
func writeParquet(w io.Writer, rec arrow.RecordBatch, version string) error {
	pw, err := newPQWriter(w, rec.Schema(), parquetProps(version, rec.Schema()))
	if err != nil {
		return err
	}
	n := rec.NumRows()
	for lo := int64(0); lo < n || lo == 0; lo += int64(rowGroupRows) {
		if lo == 0 && n <= int64(rowGroupRows) {
			if err := pw.writeRowGroup(rec); err != nil {
				return err
			}
			break
		}
		part := rec.NewSlice(lo, min(lo+int64(rowGroupRows), n))
		err := pw.writeRowGroup(part)
		part.Release()
		if err != nil {
			return err
		}
	}
	return pw.Close()
}

func writeIPC(w io.Writer, rec arrow.RecordBatch) error {
	fw, err := ipc.NewFileWriter(w, ipc.WithSchema(rec.Schema()), ipc.WithAllocator(memPool))
	if err != nil {
		return err
	}
	if err := fw.Write(rec); err != nil {
		fw.Close()
		return err
	}
	return fw.Close()
}

var errNotRdeval = errors.New("not a table written by rdeval (no rdeval.table metadata); ingest the raw data instead")

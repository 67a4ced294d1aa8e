// Package exportcmd implements `rdeval export`.
package exportcmd

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/rdeval/rdeval/ingest"
	"github.com/spf13/cobra"
)

// Options are the parsed flags of `rdeval export`.
type Options struct {
	IO      *iostreams.IO
	Version string

	Inputs []string
	To     string
	OutDir string
	Tables []string
	Input  cmdutil.InputFlags
}

// formats maps --to to the file extension written.
var formats = map[string]string{
	ingest.FormatCSV:     ".csv",
	ingest.FormatJSONL:   ".jsonl",
	ingest.FormatParquet: ".parquet",
	ingest.FormatArrow:   ".arrow",
}

// NewCmd builds the cobra command; runF replaces Run in tests.
func NewCmd(io *iostreams.IO, version string, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: io, Version: version}
	cmd := &cobra.Command{
		Use:   "export PATH... --to csv|jsonl|parquet|arrow -o DIR",
		Short: "Write the runs, score_log and tasks tables as plain CSV or JSON Lines (or Parquet/Arrow)",
		Long: `Write rdeval's tables as plain files for tools that do not read Parquet.

PATH is anything ingest reads: an ingested folder, a .parquet/.arrow table,
or raw inputs (all_runs.jsonl, score logs, run folders…). Each table with rows
is written to DIR/<table>.<csv|jsonl|parquet|arrow> (runs always), through a
temporary file and a rename. --where filters the runs first.

Values in CSV and JSON Lines: null is an empty CSV field or JSON null;
numbers in the shortest form that reads back to the same double; timestamps
in RFC 3339, UTC ("2024-03-01T12:00:00.5Z"); lists (files_edited…) as JSON
arrays (in CSV, the array's text in one field). pandas.read_csv,
pandas.read_json(lines=True), DuckDB and R's read.csv read them as they are.`,
		Example: `  rdeval export --demo --to csv -o demo-csv/                              # the embedded demo study
  rdeval export study/ --to csv -o study-csv/
  rdeval export all_runs.jsonl --to jsonl --table runs --where benchmark=re-bench -o out/`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Inputs = args
			if _, ok := formats[opts.To]; !ok {
				return cmdutil.Usagef("--to %q: want csv, jsonl, parquet or arrow", opts.To)
			}
			if opts.OutDir == "" {
				return cmdutil.Usagef("missing -o DIR: the folder to write the tables into")
			}
			for _, t := range opts.Tables {
				if t != ingest.TableRuns && t != ingest.TableScoreLog && t != ingest.TableTasks {
					return cmdutil.Usagef("--table %q: want %s, %s or %s", t, ingest.TableRuns, ingest.TableScoreLog, ingest.TableTasks)
				}
			}
			if runF != nil {
				return runF(opts)
			}
			return run(opts)
		},
	}
	cmd.Flags().StringVar(&opts.To, "to", "", "format: csv, jsonl, parquet or arrow (required)")
	cmd.Flags().StringVarP(&opts.OutDir, "out", "o", "", "output folder (created if missing)")
	cmd.Flags().StringSliceVar(&opts.Tables, "table", nil, "tables to write (runs, score_log, tasks); default: every table with rows")
	cmdutil.AddInputFlags(cmd, &opts.Input, true)
	return cmd
}

// run loads opts.Inputs and writes the tables.
func run(opts *Options) error {
	ds, err := opts.Input.LoadForCommand(opts.IO, opts.Inputs)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(opts.OutDir, 0o755); err != nil {
		return err
	}
	want := map[string]bool{}
	for _, t := range opts.Tables {
		want[t] = true
	}
	tables := []struct {
		name string
		rows int
		rec  func() arrow.RecordBatch
	}{
		{ingest.TableRuns, len(ds.Runs), func() arrow.RecordBatch { return ingest.RunsRecord(ds.Runs, opts.Version) }},
		{ingest.TableScoreLog, len(ds.Scores), func() arrow.RecordBatch { return ingest.ScoreLogRecord(ds.Scores, opts.Version) }},
		{ingest.TableTasks, len(ds.Tasks), func() arrow.RecordBatch { return ingest.TasksRecord(ds.Tasks, opts.Version) }},
	}
	var wrote []string
	for _, t := range tables {
		if len(want) > 0 && !want[t.name] || len(want) == 0 && t.rows == 0 && t.name != ingest.TableRuns {
			continue
		}
		path := filepath.Join(opts.OutDir, t.name+formats[opts.To])
		rec := t.rec()
		if opts.To == ingest.FormatJSONL {
			nf := ingest.NonFinite(rec)
			for _, col := range slices.Sorted(maps.Keys(nf)) {
				opts.IO.Notef("%d NaN/±Inf values of %s.%s written as null (JSON has none); --to csv or parquet keeps them", nf[col], t.name, col)
			}
		}
		switch opts.To {
		case ingest.FormatCSV, ingest.FormatJSONL:
			err = ingest.WriteTableText(path, rec, opts.To)
		default:
			err = ingest.WriteTableFile(path, rec, opts.To, opts.Version)
		}
		rec.Release()
		if err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
		wrote = append(wrote, fmt.Sprintf("wrote %s (%d rows)", path, t.rows))
	}
	opts.IO.Infof("%s", strings.Join(wrote, "\n"))
	return nil
}

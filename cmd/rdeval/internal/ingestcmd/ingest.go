// Package ingestcmd implements `rdeval ingest`.
package ingestcmd

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/rdeval/rdeval/ingest"
	"github.com/spf13/cobra"
)

// Options are the parsed flags and injected dependencies of `rdeval ingest`.
type Options struct {
	IO      *iostreams.IO
	Version string
	Args    []string // the full command line, recorded in the manifest

	Inputs  []string
	OutDir  string
	Format  string
	SkipBad bool
	Input   cmdutil.InputFlags
}

// NewCmd builds the cobra command; runF replaces Run in tests.
func NewCmd(io *iostreams.IO, version string, args []string, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: io, Version: version, Args: args}
	cmd := &cobra.Command{
		Use:   "ingest INPUT... -o DIR",
		Short: "Read benchmark runs and score logs into Parquet (or Arrow) tables",
		Long: `Read run records and score logs into the runs, score_log and tasks tables.

The format of each input is detected from its content (gzip is undone first):
METR all_runs.jsonl/runs.jsonl, METR score.log CSV, score logs in JSON Lines,
RExBench per-run records (JSONL or CSV) and per-task tables, generic CSV/JSONL
(with --map), and tables rdeval wrote. Folders are read recursively.

Every bad record is reported with its file, line and field. By default any bad
record means nothing is written (exit 2); --skip-bad writes the good records and
DIR/rejected.jsonl with each bad line and its error. Files are written to a
temporary name and renamed, so an interrupted run never leaves a half file.
DIR/manifest.json records each input's sha256 and row counts and the rdeval version.`,
		Example: `  rdeval ingest --demo -o demo-study/                                     # the embedded demo study
  rdeval ingest all_runs.jsonl -o study/
  rdeval ingest runs/ score_logs/ -o study/ --skip-bad
  rdeval ingest results.csv --benchmark rexbench --map agent=model_name,score=final -o study/`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Inputs = args
			if opts.OutDir == "" {
				return cmdutil.Usagef("missing -o DIR: the folder to write the tables into")
			}
			if opts.Format != ingest.FormatParquet && opts.Format != ingest.FormatArrow {
				return cmdutil.Usagef("--format %q: want parquet or arrow", opts.Format)
			}
			if runF != nil {
				return runF(opts)
			}
			return run(opts)
		},
	}
	cmd.Flags().StringVarP(&opts.OutDir, "out", "o", "", "output folder (created if missing)")
	cmd.Flags().StringVar(&opts.Format, "format", ingest.FormatParquet, "table format: parquet or arrow (Arrow IPC file)")
	cmd.Flags().BoolVar(&opts.SkipBad, "skip-bad", false, "write the good records and DIR/rejected.jsonl instead of failing")
	cmdutil.AddInputFlags(cmd, &opts.Input, false)
	return cmd
}

// run ingests opts.Inputs into opts.OutDir.
//
// The garbage collector is off while it runs (unless GOGC or GOMEMLIMIT is
// set), with a memory limit as the safety net (cmdutil.PauseCollector). Ingest's
// heap is the dataset and its columns, which only grow until they are
// written: a collection finds little to free. Measured (docs/performance.md,
// 8–10 alternating runs each): METR ×20 (65 MB JSON Lines) 0.510 → 0.460 s
// wall, METR ×100 (325 MB) 2.45 → 2.10 s, the 10^6-row score log (80 MB
// CSV) 0.670 → 0.645 s, with the same peak RSS (235, 723, 234 MiB), against
// the GOGC=400 this replaced (and the default 100 above 256 MB of input).
func run(opts *Options) error {
	defer cmdutil.PauseCollector(opts.Inputs)()
	iopt, err := opts.Input.Options()
	if err != nil {
		return err
	}
	// The dataset only goes to WriteDataset: Load may keep the runs as
	// Parquet-ready columns (ingest.Options.WriteOnly).
	iopt.WriteOnly = opts.Format == ingest.FormatParquet
	ds, err := opts.Input.Read(opts.Inputs, iopt)
	if err != nil {
		return err
	}
	for _, in := range ds.Inputs {
		if in.SHA256 == "" {
			continue // never opened: its error says why
		}
		opts.IO.Infof("read %s (%s): %s, %d kept, %d rejected%s", in.Path, in.Reader, records(in.RowsRead), in.RowsKept, in.RowsRejected, inputFate(in))
	}
	for _, wn := range ds.Warnings {
		opts.IO.Warnf("%s", wn)
	}
	if err := ds.Err(); err != nil && !opts.SkipBad {
		ie := err.(*ingest.InputErrors)
		opts.IO.Errorf("%s", strings.TrimSuffix(ie.Format(20), "\n"))
		if ie.FileErrors() == len(ie.Errs) { // no bad record: --skip-bad would not help
			return &cmdutil.BadInputError{Err: fmt.Errorf("%s; nothing written (see the errors above)", ie.Summary())}
		}
		return &cmdutil.BadInputError{Err: fmt.Errorf("%s; nothing written. Fix the input, or pass --skip-bad to write the good records and %s", ie.Summary(), filepath.Join(opts.OutDir, "rejected.jsonl"))}
	}
	if len(ds.Errors) > 0 {
		opts.IO.Errorf("%s", strings.TrimSuffix((&ingest.InputErrors{Errs: ds.Errors}).Format(20), "\n"))
	}
	m, err := ingest.WriteDataset(opts.OutDir, ds, ingest.WriteOptions{Format: opts.Format, Version: opts.Version, Args: opts.Args, SkipBad: opts.SkipBad})
	if err != nil {
		return err
	}
	for _, o := range m.Outputs {
		opts.IO.Infof("wrote %s (%d rows)", filepath.Join(opts.OutDir, o.Path), o.Rows)
	}
	if m.RejectedFile != "" {
		what := fmt.Sprintf("%d rejected", m.RowsRejected)
		if m.InputsRejected > 0 {
			what = fmt.Sprintf("%s and %s rejected", records(m.RowsRejected), inputs(m.InputsRejected))
		}
		opts.IO.Infof("wrote %s (%s)", filepath.Join(opts.OutDir, m.RejectedFile), what)
	}
	opts.IO.Infof("wrote %s", filepath.Join(opts.OutDir, "manifest.json"))
	return nil
}

// inputFate is what the read line adds for an input with a whole-file
// error (printed below it): none of its records kept, or those before the
// error (an Inspect .json log cut short keeps the samples before the cut).
func inputFate(in ingest.InputStats) string {
	switch {
	case in.Error == "":
		return ""
	case in.RowsKept == 0:
		return "; input rejected as a whole"
	}
	return "; input cut short (the records before the error kept)"
}

// records is "1 record" or "N records".
func records(n int) string {
	if n == 1 {
		return "1 record"
	}
	return fmt.Sprintf("%d records", n)
}

// inputs is "1 input" or "N inputs".
func inputs(n int) string {
	if n == 1 {
		return "1 input"
	}
	return fmt.Sprintf("%d inputs", n)
}

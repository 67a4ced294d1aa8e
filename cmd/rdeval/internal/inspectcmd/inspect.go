// Package inspectcmd implements `rdeval inspect`.
package inspectcmd

import (
	"fmt"
	"strconv"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/study"
	"github.com/rdeval/rdeval/ingest"
	"github.com/spf13/cobra"
)

// Options are the parsed flags of `rdeval inspect`.
type Options struct {
	IO     *iostreams.IO
	Inputs []string
	Format string
	Input  cmdutil.InputFlags
}

// NewCmd builds the cobra command; runF replaces Run in tests.
func NewCmd(io *iostreams.IO, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: io}
	cmd := &cobra.Command{
		Use:   "inspect PATH...",
		Short: "Summarise a dataset: row counts by group, null counts, warnings",
		Long: `Summarise runs: the number of rows, runs per benchmark × agent × time limit ×
task, null counts per column, and warnings such as groups with fewer than 5
runs. PATH is an ingested folder, a .parquet/.arrow table, or any raw input
that ingest reads.`,
		Example: `  rdeval inspect --demo                                                   # the embedded demo study
  rdeval inspect study/
  rdeval inspect all_runs.jsonl --where benchmark=re-bench --format json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Inputs = args
			if err := cmdutil.CheckFormat(opts.Format, cmdutil.FormatTable, cmdutil.FormatJSON); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return run(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Format, "format", cmdutil.FormatTable, "output: table or json")
	cmdutil.AddInputFlags(cmd, &opts.Input, true)
	return cmd
}

// run loads the inputs and prints the summary.
func run(opts *Options) error {
	ds, err := opts.Input.Load(opts.Inputs)
	if err != nil {
		return cmdutil.ReportLoadError(opts.IO, err)
	}
	s := study.Summarize(ds)
	if opts.Format == cmdutil.FormatJSON {
		return cmdutil.WriteJSON(opts.IO.Out, s)
	}
	w := opts.IO.Out
	fmt.Fprintf(w, "runs: %d   score-log entries: %d   tasks: %d\n\n", s.Rows, s.ScoreLogRows, s.Tasks)
	t := cmdutil.Table{Header: []string{"BENCHMARK", "AGENT", "TIME_LIMIT_S", "TASK_ID", "RUNS"}}
	for _, g := range s.Groups {
		t.Rows = append(t.Rows, []string{g.Benchmark, g.Agent, study.TimeLimitText(g.TimeLimitS), g.TaskID, strconv.Itoa(g.Runs)})
	}
	if err := t.WriteText(w); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nnull counts (runs table):")
	nt := cmdutil.Table{Header: []string{"COLUMN", "NULLS"}}
	for _, name := range ingest.RunColumnNames() {
		if n, ok := s.Nulls[name]; ok && n > 0 {
			nt.Rows = append(nt.Rows, []string{name, strconv.FormatInt(n, 10)})
		}
	}
	if err := nt.WriteText(w); err != nil {
		return err
	}
	if len(s.Warnings) > 0 {
		fmt.Fprintln(w, "\nwarnings:")
		for _, wn := range s.Warnings {
			fmt.Fprintf(w, "  %s\n", iostreams.TextFor(w, wn))
		}
	}
	return nil
}

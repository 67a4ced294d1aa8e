// Package normalizecmd implements `rdeval normalize`.
package normalizecmd

import (
	"math"
	"strconv"

	"github.com/rdeval/rdeval/analysis"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/study"
	"github.com/rdeval/rdeval/ingest"
	"github.com/spf13/cobra"
)

// Options are the parsed flags of `rdeval normalize`.
type Options struct {
	IO      *iostreams.IO
	Version string
	Inputs  []string
	Input   cmdutil.InputFlags
	Format  string
	Missing string
	NoFloor bool
	Floor   float64
	Cap     float64
	OutDir  string
}

// NewCmd builds the cobra command; runF replaces Run in tests.
func NewCmd(io *iostreams.IO, version string, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: io, Version: version}
	cmd := &cobra.Command{
		Use:   "normalize INPUT...",
		Short: "Final and normalized score of every run, from score logs and the task catalog",
		Long: `Compute each run's final raw score from its score log by the task's rule (max,
min, last or mean; invalid attempts dropped) and normalize it:

  y_n = (y − y_start) / (y_ref − y_start),  floored at 0 (--floor, --no-floor), uncapped (--cap)

with y_start and y_ref from the task catalog (--tasks to override). A run without
a score log uses its raw_score; a run with only an already-normalized score (METR's
score) keeps it as is. score_source says which applied. A run with no valid score
is null, never 0, unless --missing zero.

With -o DIR the runs, score_log and tasks tables are written there with raw_score
and score filled in, for the other commands to read.`,
		Example: `  rdeval normalize --demo --where benchmark=re-bench --format csv > scores.csv
  rdeval normalize study/ --format csv > scores.csv
  rdeval normalize runs.jsonl score_log.jsonl -o normalized/
  rdeval normalize study/ --where agent=human --cap 2`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Inputs = args
			if err := cmdutil.CheckFormat(opts.Format, cmdutil.FormatTable, cmdutil.FormatJSON, cmdutil.FormatCSV, cmdutil.FormatLaTeX); err != nil {
				return err
			}
			if opts.Cap > 0 && !opts.NoFloor && opts.Cap <= opts.Floor {
				return cmdutil.Usagef("--cap %v must be above --floor %v", opts.Cap, opts.Floor)
			}
			if opts.Cap < 0 {
				return cmdutil.Usagef("--cap %v: want a positive cap (0 = none)", opts.Cap)
			}
			if runF != nil {
				return runF(opts)
			}
			return run(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Format, "format", cmdutil.FormatTable, "output: table, json, csv or latex")
	cmdutil.EnumVar(cmd, &opts.Missing, "missing", "null", "a run with no valid score: null, or zero", "null", "zero")
	fl.BoolVar(&opts.NoFloor, "no-floor", false, "keep scores below the starting solution negative")
	fl.Float64Var(&opts.Floor, "floor", 0, "floor for normalized scores (0: the starting solution); ignored with --no-floor")
	fl.Float64Var(&opts.Cap, "cap", 0, "cap normalized scores at this value (0: no cap)")
	fl.StringVarP(&opts.OutDir, "out", "o", "", "also write the tables with the scores filled in to this folder")
	cmdutil.AddInputFlags(cmd, &opts.Input, true)
	return cmd
}

// run normalizes and prints (and writes, with -o).
func run(opts *Options) error {
	ds, err := opts.Input.LoadForCommand(opts.IO, opts.Inputs)
	if err != nil {
		return err
	}
	res, err := study.Normalize(ds, analysis.NormalizeOptions{NoFloor: opts.NoFloor, Floor: opts.Floor, Cap: opts.Cap}, opts.Missing == "zero")
	if err != nil {
		return err
	}
	counts := map[string]int{}
	for _, r := range res {
		counts[r.Source]++
	}
	opts.IO.Infof("%d runs: %d from score logs, %d from raw_score, %d already normalized in the input (used as is), %d without a valid score (%s)",
		len(res), counts[study.SourceScoreLog], counts[study.SourceRawScore], counts[study.SourceInput], counts[study.SourceNone], map[bool]string{true: "set to 0", false: "null"}[opts.Missing == "zero"])
	if opts.OutDir != "" {
		if _, err := ingest.WriteDataset(opts.OutDir, ds, ingest.WriteOptions{Version: opts.Version}); err != nil {
			return err
		}
		opts.IO.Infof("wrote %s", opts.OutDir)
	}
	return write(opts, res)
}

func optF(o ingest.Opt[float64]) any {
	if !o.Valid || math.IsNaN(o.V) {
		return nil
	}
	return o.V
}

func textF(o ingest.Opt[float64]) string {
	if !o.Valid {
		return ""
	}
	return strconv.FormatFloat(o.V, 'g', -1, 64)
}

func write(opts *Options, res []study.NormalizedRun) error {
	if opts.Format == cmdutil.FormatJSON {
		out := make([]map[string]any, len(res))
		for i, r := range res {
			var tl any
			if r.TimeLimitS.Valid {
				tl = r.TimeLimitS.V
			}
			out[i] = map[string]any{"run_id": r.RunID, "benchmark": r.Benchmark, "agent": r.Agent, "task_id": r.TaskID,
				"time_limit_s": tl, "rule": r.Rule, "raw_score": optF(r.RawScore), "score": optF(r.Score), "score_source": r.Source}
		}
		return cmdutil.WriteJSON(opts.IO.Out, out)
	}
	t := cmdutil.Table{Header: []string{"run_id", "benchmark", "agent", "task_id", "time_limit_s", "rule", "raw_score", "score", "score_source"}}
	for _, r := range res {
		tl := ""
		if r.TimeLimitS.Valid {
			tl = strconv.FormatInt(r.TimeLimitS.V, 10)
		}
		t.Rows = append(t.Rows, []string{r.RunID, r.Benchmark, r.Agent, r.TaskID, tl, r.Rule, textF(r.RawScore), textF(r.Score), r.Source})
	}
	t.Cite(opts.IO, "Final raw score of each run by its task's rule, and its normalized score (y - y_start) / (y_ref - y_start), floored at 0.")
	return cmdutil.Emit(opts.IO.Out, opts.Format, &t, nil)
}

// Package inspectcmd implements `rdeval inspect`.
package inspectcmd

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/rdeval/rdeval/ingest"
	"github.com/spf13/cobra"
)

// MinRuns is the group size under which inspect warns: score@k and
// bootstrap CIs are unreliable with fewer runs per task.
const MinRuns = 5

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
			return Run(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Format, "format", cmdutil.FormatTable, "output: table or json")
	cmdutil.AddInputFlags(cmd, &opts.Input, true)
	return cmd
}

// Group is the number of runs of one benchmark × agent × time limit × task.
type Group struct {
	Benchmark  string `json:"benchmark"`
	Agent      string `json:"agent"`
	TimeLimitS *int64 `json:"time_limit_s"`
	TaskID     string `json:"task_id"`
	Runs       int    `json:"runs"`
}

// Summary is what inspect reports (the JSON object of --format json).
type Summary struct {
	Rows         int              `json:"rows"`
	ScoreLogRows int              `json:"score_log_rows"`
	Tasks        int              `json:"tasks"`
	Groups       []Group          `json:"groups"`
	Nulls        map[string]int64 `json:"nulls"`
	Warnings     []string         `json:"warnings"`
}

// Summarize computes the summary of a dataset.
func Summarize(ds *ingest.Dataset) *Summary {
	s := &Summary{Rows: len(ds.Runs), ScoreLogRows: len(ds.Scores), Tasks: len(ds.Tasks), Nulls: map[string]int64{}, Groups: []Group{}}
	type key struct {
		b, a, t string
		tl      int64
		hasTL   bool
	}
	counts := map[key]int{}
	for _, r := range ds.Runs {
		counts[key{r.Benchmark, r.Agent, r.TaskID, r.TimeLimitS.V, r.TimeLimitS.Valid}]++
	}
	for k, n := range counts {
		g := Group{Benchmark: k.b, Agent: k.a, TaskID: k.t, Runs: n}
		if k.hasTL {
			tl := k.tl
			g.TimeLimitS = &tl
		}
		s.Groups = append(s.Groups, g)
	}
	sort.Slice(s.Groups, func(i, j int) bool {
		a, b := s.Groups[i], s.Groups[j]
		if a.Benchmark != b.Benchmark {
			return a.Benchmark < b.Benchmark
		}
		if a.Agent != b.Agent {
			return a.Agent < b.Agent
		}
		if ta, tb := tlKey(a.TimeLimitS), tlKey(b.TimeLimitS); ta != tb {
			return ta < tb
		}
		return a.TaskID < b.TaskID
	})
	rec := ingest.RunsRecord(ds.Runs, "")
	for i, f := range rec.Schema().Fields() {
		s.Nulls[f.Name] = int64(rec.Column(i).NullN())
	}
	rec.Release()
	small := 0
	var example string
	for _, g := range s.Groups {
		if g.Runs < MinRuns {
			if small == 0 {
				example = fmt.Sprintf("%s / %s / %s / %s: %d", g.Benchmark, g.Agent, tlText(g.TimeLimitS), g.TaskID, g.Runs)
			}
			small++
		}
	}
	if small > 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%d of %d groups (benchmark × agent × time limit × task) have fewer than %d runs, e.g. %s", small, len(s.Groups), MinRuns, example))
	}
	for _, w := range ds.Warnings {
		s.Warnings = append(s.Warnings, w.String())
	}
	if s.Warnings == nil {
		s.Warnings = []string{}
	}
	return s
}

func tlKey(p *int64) int64 {
	if p == nil {
		return -1
	}
	return *p
}

func tlText(p *int64) string {
	if p == nil {
		return "-"
	}
	return strconv.FormatInt(*p, 10)
}

// Run loads the inputs and prints the summary.
func Run(opts *Options) error {
	ds, err := opts.Input.Load(opts.Inputs)
	if err != nil {
		return cmdutil.ReportLoadError(opts.IO, err)
	}
	s := Summarize(ds)
	if opts.Format == cmdutil.FormatJSON {
		return cmdutil.WriteJSON(opts.IO.Out, s)
	}
	w := opts.IO.Out
	fmt.Fprintf(w, "runs: %d   score-log entries: %d   tasks: %d\n\n", s.Rows, s.ScoreLogRows, s.Tasks)
	t := cmdutil.Table{Header: []string{"BENCHMARK", "AGENT", "TIME_LIMIT_S", "TASK_ID", "RUNS"}}
	for _, g := range s.Groups {
		t.Rows = append(t.Rows, []string{g.Benchmark, g.Agent, tlText(g.TimeLimitS), g.TaskID, strconv.Itoa(g.Runs)})
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
			fmt.Fprintf(w, "  %s\n", wn)
		}
	}
	return nil
}

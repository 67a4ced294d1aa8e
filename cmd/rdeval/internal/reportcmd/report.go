// Package reportcmd implements `rdeval report`: the main job on a study,
// by default the embedded synthetic demo study.
package reportcmd

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/rdeval/rdeval/analysis"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/demo"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/figconfig"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/study"
	"github.com/rdeval/rdeval/ingest"
	"github.com/spf13/cobra"
)

// Options are the parsed flags of `rdeval report`.
type Options struct {
	IO      *iostreams.IO
	Version string
	Args    []string
	OutDir  string
	PNG     bool     // also write PNG figures
	Inputs  []string // empty: the embedded demo study
	Input   cmdutil.InputFlags
	Config  string // --config: a figures config (rdeval figures) names the data and the figures
}

// NewCmd builds the cobra command; runF replaces Run in tests.
func NewCmd(io *iostreams.IO, version string, args []string, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: io, Version: version, Args: args}
	cmd := &cobra.Command{
		Use:   "report [INPUT...]",
		Short: "Write a study's tables, figures and HTML report to a folder (default: the demo study)",
		Long: `Run the main job on a study and write the results to --out (./rdeval-report).
Without INPUT it uses the embedded demo study: SYNTHETIC RE-Bench-,
RExBench- and METR time-horizon-shaped data from a seeded, documented
generator, drawn with the demo's figures config (examples/demo-study.yaml):
the same code as --config, every figure type rdeval figures knows.

The demo report (and every --config report) holds:
  data/                   runs, score_log and tasks tables (Parquet) and manifest.json
  groups.csv              runs per benchmark × agent × time limit × task
  scores.csv              mean normalized score per benchmark × agent × time limit
  scoreatk.csv            score@k per agent × run length with bootstrap CIs (RE-Bench runs)
  allocation.csv          score@k of every allocation of each total budget, best marked,
                          agents and humans (RE-Bench Fig. 2)
  success.csv             RExBench final/execution success and file recall per agent × hint level
  regression.csv          logistic GLM of final success on hint level and gold lines changed
  horizons.csv            p50/p80 time horizons per agent with CIs (the page adds the doubling time)
  rexbench_outcomes.csv   RExBench outcomes and success rates per agent × hint level
  figures/*.svg           every figure of the config, with figures/index.json
  index.html              one self-contained page: the headline tables (estimates with
                          CIs), every figure with its caption and warnings, links to
                          the CSVs, the warnings and the provenance
  README.md               what each file is, the inputs' checksums and the rdeval version
A headline table whose runs the study lacks (no RExBench runs, no human
minutes) is left out. With INPUT (no --config) the report is of your
inputs with the figures that fit any study (score@k, allocation, curves,
success, error types) and the tables groups.csv, scores.csv, scoreatk.csv,
allocation.csv, curves.csv, success.csv and rexbench_outcomes.csv. With
--config STUDY.yaml (the config of rdeval figures) the config's inputs and
filters give the data and its figures are the report's. The page lists
warnings (the data's, tasks dropped for too few runs, small samples, fits
that did not converge) and the provenance (inputs' sha256, seeds, rdeval
version).`,
		Example: `  rdeval report
  rdeval report --out /tmp/demo-report
  rdeval report study/ --out study-report/
  rdeval report --config examples/rebench.yaml --out metr-report/`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Inputs = args
			if opts.Config != "" {
				if len(args) > 0 {
					return cmdutil.Usagef("--config names the inputs: drop the INPUT arguments (%s)", strings.Join(args, " "))
				}
				if runF != nil {
					return runF(opts)
				}
				return RunConfig(opts)
			}
			if runF != nil {
				return runF(opts)
			}
			return Run(opts)
		},
	}
	cmd.Flags().StringVarP(&opts.OutDir, "out", "o", "rdeval-report", "report folder (created if missing)")
	cmd.Flags().BoolVar(&opts.PNG, "png", false, "also write each figure as PNG (300 dpi)")
	cmd.Flags().StringVar(&opts.Config, "config", "", "a figures config (see rdeval figures): its inputs, filters and seeds, and its figures as the report's")
	cmdutil.AddInputFlags(cmd, &opts.Input, true)
	return cmd
}

// Run writes the report.
func Run(opts *Options) error {
	progress := func(format string, args ...any) {
		if opts.IO.ErrTTY {
			opts.IO.Infof(format, args...)
		}
	}
	if len(opts.Inputs) == 0 {
		progress("reading the embedded demo study (synthetic; seed %d)…", demo.Seed)
		return runDemo(opts)
	}
	source := "your inputs"
	progress("reading %d inputs…", len(opts.Inputs))
	ds, err := opts.Input.Load(opts.Inputs)
	if err != nil {
		if ie, ok := err.(*ingest.InputErrors); ok {
			opts.IO.Errorf("%s", strings.TrimSuffix(ie.Format(20), "\n"))
			return &cmdutil.BadInputError{Err: fmt.Errorf("%s; nothing written. Fix the input (see the errors above)", ie.Summary())}
		}
		return err
	}
	progress("writing tables…")
	m, err := ingest.WriteDataset(filepath.Join(opts.OutDir, "data"), ds, ingest.WriteOptions{Version: opts.Version, Args: opts.Args})
	if err != nil {
		return err
	}
	figs := &figureData{png: opts.PNG, styles: figconfig.AgentStyles(ds, nil)}
	files := []struct {
		name, what string
		t          *cmdutil.Table
		// run computes a table (study) and its warnings.
		run func() (*cmdutil.Table, []error, error)
	}{
		{name: "groups.csv", what: "runs per benchmark × agent × time limit × task", t: groupTable(ds)},
		{name: "scores.csv", what: "mean normalized score per benchmark × agent × time limit (over runs, and over tasks)", t: scoreTable(ds.Runs)},
		{name: "scoreatk.csv", what: fmt.Sprintf("score@k per agent × time limit, 95%% studentized (bootstrap-t) CIs (B = %d, seed %d)", reportBoot, reportSeed), run: func() (*cmdutil.Table, []error, error) {
			res, err := study.ScoreAtK(rebench(ds), study.ScoreAtKParams{By: []string{"agent", "time_limit_s"}, Boot: reportBoot, Seed: reportSeed, CI: 0.95, Interval: analysis.Studentized})
			figs.scoreAtK(res.Rows)
			return res.Table(), res.Warnings, err
		}},
		{name: "allocation.csv", what: fmt.Sprintf("score by total budget for each run length; best allocation per budget (B = %d, seed %d)", reportBoot, reportSeed), run: func() (*cmdutil.Table, []error, error) {
			budgets, _ := cmdutil.ParseBudgets([]string{"30m", "1h", "2h", "4h", "8h", "16h", "32h"})
			res, err := study.Allocation(rebench(ds), study.AllocationParams{Budgets: budgets, Boot: reportBoot, Seed: reportSeed, CI: 0.95, Select: "observed", Truncate: "humans", HumanLength: 8 * time.Hour})
			figs.allocation(res.Rows)
			return res.Table(), res.Warnings, err
		}},
		{name: "curves.csv", what: fmt.Sprintf("mean best-so-far normalized score over time, log-linear interpolation (B = %d, seed %d)", reportBoot, reportSeed), run: func() (*cmdutil.Table, []error, error) {
			grid, _ := cmdutil.ParseGrid([]string{"1m", "2m", "5m", "10m", "15m", "30m", "1h", "2h", "4h", "8h"})
			res, err := study.Curves(rebench(ds), study.CurvesParams{Grid: grid, Boot: reportBoot, Seed: reportSeed, CI: 0.95, HumanLength: 8 * time.Hour})
			for _, c := range res.Curves {
				figs.curve(c.Agent, c.TimeLimitS, c.Points)
			}
			return res.Table(), nil, err
		}},
		{name: "success.csv", what: fmt.Sprintf("RExBench final/execution success and file recall per agent × hint level × task, mean over tasks (B = %d, seed %d)", reportBoot, reportSeed), run: func() (*cmdutil.Table, []error, error) {
			res, err := study.Success(rexbenchOnly(ds), study.SuccessParams{Boot: reportBoot, Seed: reportSeed, CI: 0.95})
			for _, c := range res.Cells {
				figs.success(c.Key.Framework, c.Key.Model, c.Key.Hint, c.Summary)
			}
			return res.Table(), nil, err
		}},
		{name: "rexbench_outcomes.csv", what: "RExBench outcomes and success rates per agent × hint level", t: outcomeTable(ds.Runs)},
	}
	var warnings []string
	for _, w := range ds.Warnings {
		warnings = append(warnings, w.String())
	}
	warnings = append(warnings, smallN(ds)...)
	var idx bytes.Buffer
	fmt.Fprintf(&idx, "# rdeval report\n\nSource: %s.\nrdeval version: %s; schema version %s.\n\n", source, opts.Version, ingest.SchemaVersion)
	idx.WriteString("| file | what |\n|---|---|\n| data/ | runs, score_log and tasks tables (Parquet) with manifest.json (inputs' sha256, row counts) |\n")
	for _, f := range files {
		progress("computing %s…", f.name)
		if f.run != nil {
			t, ws, err := f.run()
			if err != nil {
				return fmt.Errorf("%s: %w", f.name, err)
			}
			for _, w := range ws {
				warnings = append(warnings, f.name+": "+w.Error())
			}
			f.t = t
		}
		var b bytes.Buffer
		if err := f.t.WriteCSV(&b); err != nil {
			return err
		}
		rows := len(f.t.Rows)
		if err := cmdutil.WriteFileAtomic(filepath.Join(opts.OutDir, f.name), b.Bytes()); err != nil {
			return err
		}
		fmt.Fprintf(&idx, "| %s | %s (%d rows) |\n", f.name, f.what, rows)
	}
	progress("drawing figures…")
	figs.errors(ds.Runs)
	drawn, err := figs.write(filepath.Join(opts.OutDir, "figures"))
	if err != nil {
		return err
	}
	for _, f := range drawn {
		fmt.Fprintf(&idx, "| figures/%s | %s |\n", f.file, f.title)
	}
	var tables []string
	for _, f := range files {
		tables = append(tables, f.name)
	}
	pg := page{source: source, version: opts.Version, figs: drawn, inputs: m.Inputs, warnings: warnings, tables: tables,
		provenance: [][2]string{{"rdeval version", opts.Version}, {"schema version", ingest.SchemaVersion},
			{"bootstrap", fmt.Sprintf("B = %d replicates, seed %d, 95%% intervals: studentized (bootstrap-t) for scoreatk.csv, percentile for every other table and figure", reportBoot, reportSeed)}}}
	if err := writeHTML(filepath.Join(opts.OutDir, "index.html"), pg); err != nil {
		return err
	}
	idx.WriteString("| index.html | the report as one self-contained page (inline SVG figures) |\n")
	idx.WriteString("\n## Inputs\n\n| path | reader | rows kept | sha256 |\n|---|---|---|---|\n")
	for _, in := range m.Inputs {
		fmt.Fprintf(&idx, "| %s | %s | %d | `%s` |\n", in.Path, in.Reader, in.RowsKept, in.SHA256)
	}
	if len(warnings) > 0 {
		idx.WriteString("\n## Warnings\n\n")
		for _, w := range warnings {
			fmt.Fprintf(&idx, "- %s\n", w)
		}
	}
	if err := cmdutil.WriteFileAtomic(filepath.Join(opts.OutDir, "README.md"), idx.Bytes()); err != nil {
		return err
	}
	opts.IO.Infof("wrote %s (%d runs, %d score-log entries, %d tasks from %s)", opts.OutDir, len(ds.Runs), len(ds.Scores), len(ds.Tasks), source)
	opts.IO.Infof("  %s", filepath.Join(opts.OutDir, "README.md"))
	opts.IO.Infof("  %s", filepath.Join(opts.OutDir, "data")+"/")
	for _, f := range files {
		opts.IO.Infof("  %s", filepath.Join(opts.OutDir, f.name))
	}
	opts.IO.Infof("  %s (%d figures)", filepath.Join(opts.OutDir, "figures")+"/", len(drawn))
	opts.IO.Infof("  %s", filepath.Join(opts.OutDir, "index.html"))
	return nil
}

// The report's bootstrap settings (recorded in its README).
const (
	reportBoot = 2000
	reportSeed = 1
)

// rebench returns the dataset's RE-Bench-style runs (all but RExBench's),
// for the score@k, allocation and curve tables; rexbenchOnly the others.
func rebench(ds *ingest.Dataset) *ingest.Dataset { return study.BenchmarkRuns(ds, "rexbench", false) }

func rexbenchOnly(ds *ingest.Dataset) *ingest.Dataset {
	return study.BenchmarkRuns(ds, "rexbench", true)
}

func groupTable(ds *ingest.Dataset) *cmdutil.Table {
	s := study.Summarize(ds)
	t := &cmdutil.Table{Header: []string{"benchmark", "agent", "time_limit_s", "task_id", "runs"}}
	for _, g := range s.Groups {
		tl := ""
		if g.TimeLimitS != nil {
			tl = fmt.Sprint(*g.TimeLimitS)
		}
		t.Rows = append(t.Rows, []string{g.Benchmark, g.Agent, tl, g.TaskID, fmt.Sprint(g.Runs)})
	}
	return t
}

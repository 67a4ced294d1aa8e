// Package reportcmd implements `rdeval report`: the main job on a study,
// by default the embedded synthetic demo study.
package reportcmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

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
	// ReleaseDates (--release-dates) is a YAML file of agent: YYYY-MM-DD:
	// the horizon trend figure (INPUT) and the doubling time.
	ReleaseDates string
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
  cost.csv                mean cost, tokens, score, success and cost per success or unit of score
                          per agent × run length with CIs, and the Pareto frontier (RE-Bench Fig. 8)
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
minutes) is left out, and the page's "Left out" section says why.

With INPUT (no --config) the report is of your inputs through the same
code: rdeval generates a figures config from the data, writes it as
study.yaml (rdeval report --config OUT/study.yaml redraws it) and draws
the figure types the runs allow: score@k for each agent run length of the
RE-Bench runs (benchmark re-bench), allocation and allocation bars when
there are several run lengths, per-task scores and (with score logs)
curves at the run length covering the most tasks; RExBench final and
execution success and file recall (each when the runs have it), error
types, and the regression forest and success against gold lines when the
tasks have gold lines changed (--tasks); the time-horizon fit when agent
runs have human_minutes (every benchmark but RExBench, as METR's), and
its trend when --release-dates names the agents' release dates; cost
against score per benchmark whose agent runs have cost_usd. A figure the
data cannot support (or that fails on it) is
left out with the reason in the page. With --config STUDY.yaml (the
config of rdeval figures) the config's inputs and filters give the data
and its figures are the report's. The page lists warnings (the data's,
tasks dropped for too few runs, small samples, fits that did not
converge) and the provenance (inputs' sha256, seeds, rdeval version).`,
		Example: `  rdeval report
  rdeval report --out /tmp/demo-report
  rdeval report study/ --out study-report/
  rdeval report all_runs.jsonl --release-dates release_dates.yaml --out metr-report/
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
				return runFromConfig(opts)
			}
			if runF != nil {
				return runF(opts)
			}
			return reportRun(opts)
		},
	}
	cmd.Flags().StringVarP(&opts.OutDir, "out", "o", "rdeval-report", "report folder (created if missing)")
	cmd.Flags().BoolVar(&opts.PNG, "png", false, "also write each figure as PNG (300 dpi)")
	cmd.Flags().StringVar(&opts.ReleaseDates, "release-dates", "", "YAML file of agent: YYYY-MM-DD: the p50 horizons' trend figure (with INPUT) and doubling time")
	cmd.Flags().StringVar(&opts.Config, "config", "", "a figures config (see rdeval figures): its inputs, filters and seeds, and its figures as the report's")
	cmdutil.AddInputFlags(cmd, &opts.Input, true)
	return cmd
}

// reportRun writes the report.
func reportRun(opts *Options) error {
	progress := func(format string, args ...any) {
		if opts.IO.ErrTTY {
			opts.IO.Infof(format, args...)
		}
	}
	if len(opts.Inputs) == 0 {
		progress("reading the embedded demo study (synthetic; seed %d)…", demo.Seed)
		return runDemo(opts)
	}
	progress("reading %d inputs…", len(opts.Inputs))
	ds, err := opts.Input.Load(opts.Inputs)
	if err != nil {
		if ie, ok := err.(*ingest.InputErrors); ok {
			opts.IO.Errorf("%s", strings.TrimSuffix(ie.Format(20), "\n"))
			return &cmdutil.BadInputError{Err: fmt.Errorf("%s; nothing written. Fix the input (see the errors above)", ie.Summary())}
		}
		return err
	}
	rep := reportData{ds: ds, source: "your inputs"}
	if rep.dates, err = readReleaseDates(opts.ReleaseDates); err != nil {
		return err
	}
	rel, err := relTo(opts.OutDir)
	if err != nil {
		return err
	}
	figs, leftOut := autoConfig(ds, rel, opts.ReleaseDates)
	path := filepath.Join(opts.OutDir, studyConfigName)
	cfg, err := parseAuto(path, autoYAML(figs, opts.Input, opts.Inputs, rel), len(figs))
	if err != nil {
		return fmt.Errorf("the generated figures config: %w", err)
	}
	if opts.PNG {
		cfg.Formats = append(cfg.Formats, "png")
	}
	// Each figure on its own: one the data cannot draw is left out with
	// the reason, and the config written is that of the figures drawn.
	progress("drawing %d figures…", len(cfg.Figures))
	var kept []autoFigure
	for i := range cfg.Figures {
		one := *cfg
		one.Figures = cfg.Figures[i : i+1]
		d, err := figconfig.Render(&one, ds, opts.IO)
		if err != nil {
			leftOut = append(leftOut, fmt.Sprintf("figure %s (%s): not drawn: %v", figs[i].id, figs[i].typ, err))
			continue
		}
		rep.drawn = append(rep.drawn, d...)
		kept = append(kept, figs[i])
	}
	rep.configYAML = autoYAML(kept, opts.Input, opts.Inputs, rel)
	if len(kept) != len(figs) {
		formats := cfg.Formats
		if cfg, err = parseAuto(path, rep.configYAML, len(kept)); err != nil {
			return fmt.Errorf("the generated figures config: %w", err)
		}
		cfg.Formats = formats
	}
	rep.cfg, rep.leftOut = cfg, leftOut
	return writeReport(opts, rep)
}

// readReleaseDates reads --release-dates (agent: YYYY-MM-DD); "" is none.
func readReleaseDates(path string) (map[string]time.Time, error) {
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, cmdutil.Usagef("--release-dates: %v", err)
	}
	dates, err := study.ParseReleaseDates(path, b)
	if err != nil {
		return nil, &cmdutil.UsageError{Err: fmt.Errorf("--release-dates: %w", err)}
	}
	return dates, nil
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

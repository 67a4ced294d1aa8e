// Package figurescmd implements `rdeval figures`: every figure of a study
// from one config file, with DIR/index.json recording how each was made.
package figurescmd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/figconfig"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/spf13/cobra"
)

// Options are the parsed flags of `rdeval figures`.
type Options struct {
	IO      *iostreams.IO
	Version string
	Config  string
	OutDir  string
	Inputs  []string // --input: replace the config's inputs
	Formats []string // --formats: replace the config's formats
	Only    []string // --only: draw these figure ids
	Format  string   // --format of the summary on stdout
}

// NewCmd builds the cobra command; runF replaces Run in tests.
func NewCmd(io *iostreams.IO, version string, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: io, Version: version}
	cmd := &cobra.Command{
		Use:   "figures --config STUDY.yaml --out DIR",
		Short: "Draw every figure of a study from one config; DIR/index.json records inputs, parameters, seeds",
		Long: `Read a figures config (YAML: inputs, filters, seeds, and the figures to draw
with their options; paths relative to the config file), compute each figure's
statistic with the matching rdeval command, and write DIR/<id>.svg (and .png
or .pdf when asked) for each, and DIR/index.json: per figure its type, title,
files, the sha256 of every input it read, its resolved parameters, its seed,
its warnings, and the rdeval version. Rerunning the same config on the same
inputs gives the same bytes (SVG and PDF; PNG for a given platform).

Figure types (options: docs/figures.md):
` + kindHelp() + `
Nothing is written unless every figure succeeds (all files are rendered
first, then each is written to a temporary file and renamed). The summary
(one row per figure) goes to stdout; warnings to stderr.`,
		Example: `  rdeval figures --config examples/demo-study.yaml --out figs/
  rdeval figures --config examples/rebench.yaml --out metr-figs/ --formats svg,pdf
  rdeval figures --config examples/rebench.yaml --input /data/all_runs.jsonl --out metr-figs/`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Config == "" {
				return cmdutil.Usagef("--config: required (a figures config; see examples/demo-study.yaml)")
			}
			if err := cmdutil.CheckFormat(opts.Format, cmdutil.FormatTable, cmdutil.FormatJSON, cmdutil.FormatCSV); err != nil {
				return err
			}
			for _, f := range opts.Formats {
				if f != "svg" && f != "png" && f != "pdf" {
					return cmdutil.Usagef("--formats %q: want svg, png or pdf", f)
				}
			}
			if runF != nil {
				return runF(opts)
			}
			return run(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Config, "config", "", "figures config (YAML)")
	fl.StringVarP(&opts.OutDir, "out", "o", "figures", "output folder (created if missing)")
	fl.StringArrayVar(&opts.Inputs, "input", nil, "replace the config's inputs with this path (repeatable; relative to the working directory)")
	fl.StringSliceVar(&opts.Formats, "formats", nil, "replace the config's formats: any of svg, png, pdf")
	fl.StringSliceVar(&opts.Only, "only", nil, "draw only these figure ids")
	fl.StringVar(&opts.Format, "format", cmdutil.FormatTable, "summary on stdout: table, json or csv")
	return cmd
}

func kindHelp() string {
	var b strings.Builder
	for _, n := range figconfig.KindNames() {
		fmt.Fprintf(&b, "  %-16s %s\n", n, figconfig.KindDoc(n))
	}
	return b.String()
}

// run loads the config and the data, draws every figure and writes them.
func run(opts *Options) error {
	cfg, err := figconfig.LoadConfig(opts.Config)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return cmdutil.Usagef("--config: %v", err)
		}
		return &cmdutil.UsageError{Err: err}
	}
	if len(opts.Inputs) > 0 {
		cfg.Demo = false
		cfg.Inputs = nil
		for _, in := range opts.Inputs {
			abs, err := filepath.Abs(in)
			if err != nil {
				return err
			}
			cfg.Inputs = append(cfg.Inputs, abs)
		}
	}
	if len(opts.Formats) > 0 {
		cfg.Formats = opts.Formats
	}
	if len(opts.Only) > 0 {
		var keep []figconfig.Figure
		for _, id := range opts.Only {
			found := false
			for _, f := range cfg.Figures {
				if f.ID == id {
					keep, found = append(keep, f), true
				}
			}
			if !found {
				return cmdutil.Usagef("--only %q: no such figure in %s", id, cfg.Path)
			}
		}
		cfg.Figures = keep
	}
	ds, err := figconfig.LoadData(cfg, opts.IO)
	if err != nil {
		return err
	}
	drawn, err := figconfig.Render(cfg, ds, opts.IO)
	if err != nil {
		return err
	}
	if err := figconfig.WriteAll(opts.OutDir, cfg, drawn, opts.Version); err != nil {
		return err
	}
	t := &cmdutil.Table{Header: []string{"id", "type", "files", "warnings"}}
	var js []map[string]any
	for _, d := range drawn {
		var files []string
		for _, f := range d.Files {
			files = append(files, filepath.Join(opts.OutDir, f.Name))
		}
		t.Rows = append(t.Rows, []string{d.ID, d.Type, strings.Join(files, " "), fmt.Sprint(len(d.Warnings))})
		js = append(js, map[string]any{"id": d.ID, "type": d.Type, "files": files, "warnings": d.Warnings})
		for _, w := range d.Warnings {
			opts.IO.Warnf("%s: %s", d.ID, w)
		}
	}
	if err := cmdutil.Emit(opts.IO.Out, opts.Format, t, js); err != nil {
		return err
	}
	opts.IO.Infof("wrote %d figures and %s", len(drawn), filepath.Join(opts.OutDir, "index.json"))
	return nil
}

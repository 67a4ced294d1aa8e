// Package figurescmd implements `rdeval figures`: every figure of a study
// from one config file, with DIR/index.json recording how each was made.
package figurescmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/demo"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/rdeval/rdeval/figures"
	"github.com/rdeval/rdeval/ingest"
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
			return Run(opts)
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
	for _, n := range KindNames() {
		fmt.Fprintf(&b, "  %-16s %s\n", n, kinds[n].doc)
	}
	return b.String()
}

// Run loads the config and the data, draws every figure and writes them.
func Run(opts *Options) error {
	cfg, err := LoadConfig(opts.Config)
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
		var keep []Figure
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
	ds, err := LoadData(cfg, opts.IO)
	if err != nil {
		return err
	}
	drawn, err := Render(cfg, ds, opts.IO)
	if err != nil {
		return err
	}
	if err := WriteAll(opts.OutDir, cfg, drawn, opts.Version); err != nil {
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

// LoadData reads the config's inputs (or the embedded demo study) with its
// input options; bad records are printed and give a BadInputError.
func LoadData(cfg *Config, io *iostreams.IO) (*ingest.Dataset, error) {
	if cfg.Demo {
		ds, err := LoadDemo()
		if err != nil {
			return nil, cmdutil.ReportLoadError(io, err)
		}
		if len(cfg.Input.Where) > 0 {
			if err := filterWhere(ds, cfg.Input.Where); err != nil {
				return nil, &cmdutil.UsageError{Err: fmt.Errorf("%s: input.where: %w", cfg.Path, err)}
			}
		}
		return ds, nil
	}
	in := cmdutil.InputFlags{Benchmark: cfg.Input.Benchmark, TasksFile: cfg.resolve(cfg.Input.Tasks), Reader: cfg.Input.Reader,
		Map: cfg.Input.Map, Where: cfg.Input.Where, Strict: cfg.Input.Strict, TaskIDFrom: "task/sample"}
	var paths []string
	for _, p := range cfg.Inputs {
		paths = append(paths, cfg.resolve(p))
	}
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			return nil, cmdutil.Usagef("%s: input %s: %v", cfg.Path, p, err)
		}
	}
	return in.LoadForCommand(io, paths)
}

// filterWhere keeps the runs that match every COLUMN=V1[,V2…] filter.
func filterWhere(ds *ingest.Dataset, where []string) error {
	type filter struct {
		col  string
		vals map[string]bool
	}
	var fs []filter
	for _, w := range where {
		k, v, ok := strings.Cut(w, "=")
		if !ok || !ingest.IsRunColumn(k) {
			return fmt.Errorf("%q: want COLUMN=VALUE[,VALUE…] with COLUMN a runs column", w)
		}
		f := filter{k, map[string]bool{}}
		for _, x := range strings.Split(v, ",") {
			f.vals[strings.TrimSpace(x)] = true
		}
		fs = append(fs, f)
	}
	ds.Filter(func(r *ingest.Run) bool {
		for _, f := range fs {
			if !f.vals[runValue(r, f.col)] {
				return false
			}
		}
		return true
	})
	return nil
}

// File is one written file of a figure.
type File struct {
	Name   string `json:"name"`
	Format string `json:"format"`
	SHA256 string `json:"sha256"`
	data   []byte
}

// InputRecord is one input file with its checksum.
type InputRecord struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// Drawn is one rendered figure.
type Drawn struct {
	ID         string         `json:"id"`
	Type       string         `json:"type"`
	Title      string         `json:"title"`
	Caption    string         `json:"caption"`
	Files      []File         `json:"files"`
	Inputs     []InputRecord  `json:"inputs"`
	Where      []string       `json:"where"`
	Seed       uint64         `json:"seed"`
	Boot       int            `json:"boot"`
	CI         float64        `json:"ci"`
	Parameters map[string]any `json:"parameters"`
	Warnings   []string       `json:"warnings"`
	Width      string         `json:"width"`
	// SVG is the figure as SVG (for inline HTML), whatever the formats.
	SVG []byte `json:"-"`
}

// Render draws every figure of cfg on ds in memory; it writes nothing.
func Render(cfg *Config, ds *ingest.Dataset, io *iostreams.IO) ([]Drawn, error) {
	inputs := datasetInputs(cfg, ds)
	styles := studyStyles(cfg, ds)
	var out []Drawn
	for i := range cfg.Figures {
		f := &cfg.Figures[i]
		k := kinds[f.Type]
		opts, err := decodeOptions(f, k)
		if err != nil {
			return nil, &cmdutil.UsageError{Err: fmt.Errorf("%s:%w", cfg.Path, err)}
		}
		fds := ds
		if len(f.Where) > 0 {
			cp := *ds
			cp.Runs = append([]ingest.Run(nil), ds.Runs...)
			cp.Scores = append([]ingest.ScoreEntry(nil), ds.Scores...)
			cp.Tasks = append([]ingest.Task(nil), ds.Tasks...)
			if err := filterWhere(&cp, f.Where); err != nil {
				return nil, cmdutil.Usagef("%s:%d: figure %q: where %v", cfg.Path, f.line, f.ID, err)
			}
			fds = &cp
		}
		c := &drawCtx{cfg: cfg, fig: f, ds: fds, seed: cfg.seed(f), boot: cfg.boot(f), ci: cfg.ci(), styles: styles}
		if len(fds.Runs) == 0 {
			return nil, cmdutil.Usagef("%s:%d: figure %q: no runs left after its where filters", cfg.Path, f.line, f.ID)
		}
		p, params, err := k.draw(c, opts)
		if err != nil {
			var ce *configError
			var ue *cmdutil.UsageError
			var be *cmdutil.BadInputError
			if errors.As(err, &ce) {
				return nil, &cmdutil.UsageError{Err: ce.error}
			}
			if errors.As(err, &ue) || errors.As(err, &be) {
				return nil, &cmdutil.BadInputError{Err: fmt.Errorf("figure %q (%s): %w", f.ID, f.Type, err)}
			}
			return nil, fmt.Errorf("figure %q (%s): %w", f.ID, f.Type, err)
		}
		if err := applyAxes(cfg, f, p); err != nil {
			return nil, err
		}
		width := f.Width
		if width == "" {
			width = "one"
			// Many agents (the paper's 14) on a line figure: two columns,
			// or the outside legend takes half of the figure.
			if k.wide || figures.SeriesCount(p) > figures.ManySeries {
				width = "two"
			}
		}
		w, h := figures.OneColumn, figures.Height(figures.OneColumn)
		if width == "two" {
			w, h = figures.TwoColumn, figures.Height(figures.OneColumn)*1.2
		}
		d := Drawn{ID: f.ID, Type: f.Type, Title: p.Title.Text, Caption: k.doc, Where: f.Where, Seed: c.seed, Boot: c.boot, CI: c.ci,
			Parameters: params, Warnings: c.warns, Width: width, Inputs: append(append([]InputRecord(nil), inputs...), c.extra...)}
		if d.Where == nil {
			d.Where = []string{}
		}
		if d.Warnings == nil {
			d.Warnings = []string{}
		}
		formats := cfg.Formats
		if !contains(formats, "svg") {
			formats = append([]string{"svg"}, formats...) // rendered for the report, written only when asked
		}
		for _, format := range formats {
			var b bytes.Buffer
			if err := figures.Save(p, w, h, format, &b); err != nil {
				return nil, fmt.Errorf("figure %q: %s: %w", f.ID, format, err)
			}
			if format == "svg" {
				d.SVG = b.Bytes()
				if !contains(cfg.Formats, "svg") {
					continue
				}
			}
			d.Files = append(d.Files, File{Name: f.ID + "." + format, Format: format, SHA256: sha256Hex(b.Bytes()), data: b.Bytes()})
		}
		out = append(out, d)
	}
	return out, nil
}

// datasetInputs are the dataset's input files with their sha256, paths
// relative to the config's folder (the embedded demo's as demo:PATH).
func datasetInputs(cfg *Config, ds *ingest.Dataset) []InputRecord {
	var out []InputRecord
	for _, in := range ds.Inputs {
		p := in.Path
		if cfg.Demo {
			p = "demo:" + p
		} else if rel, err := filepath.Rel(absOr(cfg.Dir), absOr(p)); err == nil {
			p = filepath.ToSlash(rel)
		}
		out = append(out, InputRecord{Path: p, SHA256: in.SHA256})
	}
	if cfg.Demo {
		if b, err := fs.ReadFile(demo.FS(), demo.RExBenchTasksPath); err == nil {
			out = append(out, InputRecord{Path: "demo:" + demo.RExBenchTasksPath, SHA256: sha256Hex(b)})
		}
	}
	if cfg.Input.Tasks != "" {
		if rec, err := recordFile(cfg, cfg.Input.Tasks); err == nil {
			out = append(out, rec)
		}
	}
	return out
}

func absOr(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// recordFile checksums a file named in the config.
func recordFile(cfg *Config, p string) (InputRecord, error) {
	b, err := os.ReadFile(cfg.resolve(p))
	if err != nil {
		return InputRecord{}, &cmdutil.UsageError{Err: fmt.Errorf("%s: %w", cfg.Path, err)}
	}
	return InputRecord{Path: filepath.ToSlash(p), SHA256: sha256Hex(b)}, nil
}

// Index is DIR/index.json.
type Index struct {
	RdevalVersion string   `json:"rdeval_version"`
	SchemaVersion string   `json:"schema_version"`
	Config        Source   `json:"config"`
	Formats       []string `json:"formats"`
	Figures       []Drawn  `json:"figures"`
}

// Source is the config file with its checksum.
type Source struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// WriteAll writes every figure's files into dir, then dir/index.json,
// each through a temporary file and a rename.
func WriteAll(dir string, cfg *Config, drawn []Drawn, version string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, d := range drawn {
		for _, f := range d.Files {
			if err := cmdutil.WriteFileAtomic(filepath.Join(dir, f.Name), f.data); err != nil {
				return err
			}
		}
	}
	idx := Index{RdevalVersion: version, SchemaVersion: ingest.SchemaVersion, Config: Source{Path: filepath.Base(cfg.Path), SHA256: cfg.SHA256},
		Formats: cfg.Formats, Figures: drawn}
	b, err := json.MarshalIndent(idx, "", "  ")
	if err != nil {
		return err
	}
	return cmdutil.WriteFileAtomic(filepath.Join(dir, "index.json"), append(b, '\n'))
}

// runValue is a run's column as text, "" when missing.
func runValue(r *ingest.Run, col string) string {
	v, ok := ingest.RunValue(r, col)
	if !ok {
		return ""
	}
	return v
}

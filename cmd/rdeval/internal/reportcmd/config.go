package reportcmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/demo"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/figconfig"
	"github.com/rdeval/rdeval/ingest"
)

// runFromConfig writes the report of a real study named by a figures config
// (rdeval figures): the config's data (inputs, input options, filters),
// the tables groups.csv and scores.csv, and the config's figures, drawn by
// figconfig exactly as `rdeval figures` draws them, into figures/ with
// figures/index.json. Everything is computed before anything is written.
func runFromConfig(opts *Options) error {
	cfg, err := figconfig.LoadConfig(opts.Config)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return cmdutil.Usagef("--config: %v", err)
		}
		return &cmdutil.UsageError{Err: err}
	}
	source := fmt.Sprintf("the study of %s", filepath.Base(cfg.Path))
	if cfg.Demo {
		source = fmt.Sprintf("the embedded demo study (synthetic), figures of %s", filepath.Base(cfg.Path))
	}
	return runConfig(opts, cfg, source)
}

// runDemo writes the default report: the embedded demo study with the
// demo's figures config (figconfig.DemoConfig, = examples/demo-study.yaml),
// through the same code as --config.
func runDemo(opts *Options) error {
	cfg, err := figconfig.DemoConfig()
	if err != nil {
		return err
	}
	return runConfig(opts, cfg, fmt.Sprintf("the embedded demo study (synthetic; seed %d)", demo.Seed))
}

// runConfig writes the report of cfg: its data, the tables, its figures
// and the headline tables (headlines), all computed before anything is
// written.
func runConfig(opts *Options, cfg *figconfig.Config, source string) error {
	if opts.PNG && !containsStr(cfg.Formats, "png") {
		cfg.Formats = append(cfg.Formats, "png")
	}
	ds, err := figconfig.LoadData(cfg, opts.IO)
	if err != nil {
		return err
	}
	drawn, err := figconfig.Render(cfg, ds, opts.IO)
	if err != nil {
		return err
	}
	rep := reportData{cfg: cfg, source: source, ds: ds, drawn: drawn}
	if cfg.Demo {
		if rep.dates, err = demoReleaseDates(); err != nil {
			return err
		}
		rep.horizonBench = "hcast" // the demo's time-horizon part, as its horizon figures
	}
	if opts.ReleaseDates != "" {
		if rep.dates, err = readReleaseDates(opts.ReleaseDates); err != nil {
			return err
		}
	}
	return writeReport(opts, rep)
}

// reportData is what a report is written from: the config (given, the
// demo's or generated from INPUT), the study's runs and its drawn figures.
type reportData struct {
	cfg    *figconfig.Config
	source string
	ds     *ingest.Dataset
	drawn  []figconfig.Drawn
	// leftOut are the figures and tables the data cannot support, with
	// the reason (shown in the page); configYAML, when set, is the
	// generated config, written as study.yaml.
	leftOut    []string
	configYAML []byte
	// dates are the release dates of the horizon headline (nil: none);
	// horizonBench, if set, the one benchmark it is fitted on.
	dates        map[string]time.Time
	horizonBench string
}

// writeReport computes the headline tables of rep and writes the report:
// data/, the tables, the figures, index.html and README.md.
func writeReport(opts *Options, rep reportData) error {
	cfg, ds, drawn := rep.cfg, rep.ds, rep.drawn
	set := headlineSettings{boot: figconfig.DefaultBoot, seed: figconfig.DefaultSeed, ci: figconfig.DefaultCI, dates: rep.dates, horizonBench: rep.horizonBench}
	if cfg.Boot != nil {
		set.boot = *cfg.Boot
	}
	if cfg.Seed != nil {
		set.seed = *cfg.Seed
	}
	if cfg.CI != nil {
		set.ci = *cfg.CI
	}
	heads, tablesLeftOut := headlines(ds, set)
	leftOut := append(append([]string(nil), rep.leftOut...), tablesLeftOut...)
	source := rep.source
	var warnings []string
	for _, w := range ds.Warnings {
		warnings = append(warnings, w.String())
	}
	warnings = append(warnings, smallN(ds)...)
	var figs []drawnFigure
	var rows [][]string
	for _, d := range drawn {
		file := d.ID + ".svg"
		if len(d.Files) > 0 {
			file = d.Files[0].Name
		}
		figs = append(figs, drawnFigure{id: d.ID, file: file, title: d.Title, caption: d.Caption, svg: d.SVG, wide: d.Width == "two", warnings: d.Warnings})
		params, err := json.Marshal(d.Parameters)
		if err != nil {
			return err
		}
		rows = append(rows, []string{d.ID, d.Type, fmt.Sprint(d.Seed), fmt.Sprint(d.Boot), string(params)})
		for _, w := range d.Warnings {
			warnings = append(warnings, "figure "+d.ID+": "+w)
		}
	}
	for _, h := range heads {
		for _, w := range h.warnings {
			warnings = append(warnings, "table "+h.file+": "+w)
		}
	}
	tables := []struct {
		name, what string
		t          *cmdutil.Table
	}{{"groups.csv", "runs per benchmark × agent × time limit × task", groupTable(ds)},
		{"scores.csv", "mean normalized score per benchmark × agent × time limit", scoreTable(ds.Runs)}}
	if ot := outcomeTable(ds.Runs); len(ot.Rows) > 0 {
		tables = append(tables, struct {
			name, what string
			t          *cmdutil.Table
		}{"rexbench_outcomes.csv", "RExBench outcomes and success rates per agent × hint level", ot})
	}
	for _, h := range heads {
		if h.csv != nil {
			tables = append(tables, struct {
				name, what string
				t          *cmdutil.Table
			}{h.file, h.title, h.csv})
		}
	}
	csvs := make([][]byte, len(tables))
	var tableNames []string
	for i, t := range tables {
		var b bytes.Buffer
		if err := t.t.WriteCSV(&b); err != nil {
			return err
		}
		csvs[i] = b.Bytes()
		tableNames = append(tableNames, t.name)
	}

	m, err := ingest.WriteDataset(filepath.Join(opts.OutDir, "data"), ds, ingest.WriteOptions{Version: opts.Version, Args: opts.Args})
	if err != nil {
		return err
	}
	for i, t := range tables {
		if err := cmdutil.WriteFileAtomic(filepath.Join(opts.OutDir, t.name), csvs[i]); err != nil {
			return err
		}
	}
	if err := figconfig.WriteAll(filepath.Join(opts.OutDir, "figures"), cfg, drawn, opts.Version); err != nil {
		return err
	}
	if rep.configYAML != nil {
		if err := cmdutil.WriteFileAtomic(filepath.Join(opts.OutDir, studyConfigName), rep.configYAML); err != nil {
			return err
		}
	}
	pg := page{source: source, version: opts.Version, synthetic: cfg.Demo, figs: figs, inputs: m.Inputs, warnings: warnings,
		tables: tableNames, figureRows: rows, headlines: heads, leftOut: leftOut,
		provenance: [][2]string{{"rdeval version", opts.Version}, {"schema version", ingest.SchemaVersion},
			{"config", configNote(rep, cfg)},
			{"bootstrap", fmt.Sprintf("B = %d replicates, seed %d, %g%% percentile intervals (figures: per figure, see figures/index.json)", set.boot, set.seed, 100*set.ci)},
			{"figures", "figures/index.json: per figure its inputs' sha256, parameters, seed and B"}}}
	if err := writeHTML(filepath.Join(opts.OutDir, "index.html"), pg); err != nil {
		return err
	}
	var readme bytes.Buffer
	fmt.Fprintf(&readme, "# rdeval report\n\nSource: %s.\nrdeval version: %s; schema version %s.\nConfig: %s (sha256 `%s`).\n\n",
		source, opts.Version, ingest.SchemaVersion, filepath.Base(cfg.Path), cfg.SHA256)
	if cfg.Demo {
		readme.WriteString("**The demo data are synthetic**: drawn from a documented toy model, not real benchmark results.\n\n")
	}
	readme.WriteString("| file | what |\n|---|---|\n| data/ | runs, score_log and tasks tables (Parquet) with manifest.json |\n")
	for _, t := range tables {
		fmt.Fprintf(&readme, "| %s | %s (%d rows) |\n", t.name, t.what, len(t.t.Rows))
	}
	for _, d := range drawn {
		for _, f := range d.Files {
			fmt.Fprintf(&readme, "| figures/%s | %s |\n", f.Name, d.Caption)
		}
	}
	readme.WriteString("| figures/index.json | per figure: inputs' sha256, parameters, seed, warnings |\n")
	if rep.configYAML != nil {
		fmt.Fprintf(&readme, "| %s | the figures config generated from the inputs (rdeval report --config %s redraws it) |\n", studyConfigName, studyConfigName)
	}
	readme.WriteString("| index.html | the report as one self-contained page |\n")
	if len(leftOut) > 0 {
		readme.WriteString("\n## Left out\n\n")
		for _, l := range leftOut {
			fmt.Fprintf(&readme, "- %s\n", l)
		}
	}
	readme.WriteString("\n## Inputs\n\n| path | reader | rows kept | sha256 |\n|---|---|---|---|\n")
	for _, in := range m.Inputs {
		fmt.Fprintf(&readme, "| %s | %s | %d | `%s` |\n", in.Path, in.Reader, in.RowsKept, in.SHA256)
	}
	if len(warnings) > 0 {
		readme.WriteString("\n## Warnings\n\n")
		for _, w := range warnings {
			fmt.Fprintf(&readme, "- %s\n", w)
		}
	}
	if err := cmdutil.WriteFileAtomic(filepath.Join(opts.OutDir, "README.md"), readme.Bytes()); err != nil {
		return err
	}
	opts.IO.Infof("wrote %s (%d runs, %d figures, %d tables, %d warnings from %s)", opts.OutDir, len(ds.Runs), len(drawn), len(heads), len(warnings), source)
	opts.IO.Infof("  %s", filepath.Join(opts.OutDir, "index.html"))
	return nil
}

// configNote names the report's figures config with its checksum.
func configNote(rep reportData, cfg *figconfig.Config) string {
	if rep.configYAML != nil {
		return filepath.Base(cfg.Path) + " (generated from the inputs; sha256 " + cfg.SHA256 + "; rdeval report --config on it redraws the figures)"
	}
	return filepath.Base(cfg.Path) + " (sha256 " + cfg.SHA256 + ")"
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

package figconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/demo"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/rdeval/rdeval/figures"
	"github.com/rdeval/rdeval/ingest"
)

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
				return nil, &cmdutil.UsageError{Err: fmt.Errorf("%s: input.%w", cfg.Path, err)}
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
	fs, err := cmdutil.ParseFilters("where", where)
	if err == nil {
		ds.Filter(fs.Match)
	}
	return err
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
				return nil, cmdutil.Usagef("%s:%d: figure %q: %v", cfg.Path, f.line, f.ID, err)
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

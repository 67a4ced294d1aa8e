package figconfig

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/rdeval/rdeval/figures"
	"go.yaml.in/yaml/v3"
)

// Config is a study's figures config (e.g. study.yaml): the inputs, the
// filters, the seeds and the figures to draw with their options. Paths in
// it are relative to the config file's folder.
//
//	demo: false               # true: the embedded synthetic demo study instead of inputs
//	inputs: [runs.jsonl]      # anything rdeval ingest reads
//	input:                    # how to read them (the input flags of every command)
//	  benchmark: re-bench
//	  tasks: tasks.yaml
//	  where: ["agent=o1,human"]
//	seed: 1                   # bootstrap seed of every figure (default 1)
//	boot: 2000                # bootstrap replicates (default 2000)
//	ci: 0.95                  # confidence level (default 0.95)
//	formats: [svg]            # any of svg, png, pdf (default svg)
//	colors: {o1: "#0072B2"}   # an agent's colour in every figure (default: the
//	                          # study's sorted agents take the palette in turn;
//	                          # humans dark grey)
//	names:                    # display names of agents, tasks, hint levels, terms
//	  ai_rd_fix_embedding/main: Fix embedding   # (RE-Bench ids get one by default)
//	figures:
//	  - id: scoreatk_2h       # output file stem: [A-Za-z0-9_-]+, unique
//	    type: scoreatk        # see Kinds
//	    title: "score@k, 2 h runs"
//	    width: one            # one (3.3 in) or two (6.9 in) columns
//	    where: ["agent=o1"]   # more filters for this figure only
//	    seed: 7               # overrides seed / boot for this figure
//	    x_label: "k"           # axis labels and limits (default: the figure's own)
//	    y_min: 0
//	    y_max: 1
//	    options: {time_limit: 2h}
type Config struct {
	Demo    bool        `yaml:"demo"`
	Inputs  []string    `yaml:"inputs"`
	Input   InputConfig `yaml:"input"`
	Seed    *uint64     `yaml:"seed"`
	Boot    *int        `yaml:"boot"`
	CI      *float64    `yaml:"ci"`
	Formats []string    `yaml:"formats"`
	// Colors sets agents' colours (#RRGGBB) in every figure, over the
	// automatic map (figures.NewStyleMap on the study's agents).
	Colors map[string]string `yaml:"colors"`
	// Names are display names of agents, tasks, hint levels and terms.
	Names   map[string]string `yaml:"names"`
	Figures []Figure          `yaml:"figures"`

	// Path is the config file as given, Dir its folder and SHA256 the
	// checksum of its bytes; set by LoadConfig.
	Path   string `yaml:"-"`
	Dir    string `yaml:"-"`
	SHA256 string `yaml:"-"`
}

// InputConfig mirrors the input flags (cmdutil.InputFlags).
type InputConfig struct {
	Benchmark string   `yaml:"benchmark"`
	Tasks     string   `yaml:"tasks"` // relative to the config file
	Reader    string   `yaml:"reader"`
	Map       []string `yaml:"map"`
	Where     []string `yaml:"where"`
	Strict    bool     `yaml:"strict"`
}

// Figure is one figure of a config.
type Figure struct {
	ID    string   `yaml:"id"`
	Type  string   `yaml:"type"`
	Title string   `yaml:"title"`
	Width string   `yaml:"width"`
	Where []string `yaml:"where"`
	Seed  *uint64  `yaml:"seed"`
	Boot  *int     `yaml:"boot"`
	// Axis labels and limits, over the figure's defaults.
	XLabel  string    `yaml:"x_label"`
	YLabel  string    `yaml:"y_label"`
	XMin    *float64  `yaml:"x_min"`
	XMax    *float64  `yaml:"x_max"`
	YMin    *float64  `yaml:"y_min"`
	YMax    *float64  `yaml:"y_max"`
	Options yaml.Node `yaml:"options"`

	line int // the line of the figure's entry in the config
}

// Defaults of a config.
const (
	DefaultSeed = 1
	DefaultBoot = 2000
	DefaultCI   = 0.95
)

// idRE is compiled at first use, not when any rdeval command starts.
var idRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]+$`) })

// LoadConfig reads and checks a config: unknown keys, a figure type that
// does not exist, options that its type does not take, and options of the
// wrong type are errors naming the file and line.
func LoadConfig(path string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseConfig(path, b)
}

// ParseConfig is LoadConfig on the bytes b of the file at path.
func ParseConfig(path string, b []byte) (*Config, error) {
	var cfg Config
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil {
		return nil, fmt.Errorf("%s: %s", path, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	// Line numbers of the figure entries, for the checks below.
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err == nil && len(doc.Content) > 0 {
		m := doc.Content[0]
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == "figures" {
				for j, f := range m.Content[i+1].Content {
					if j < len(cfg.Figures) {
						cfg.Figures[j].line = f.Line
					}
				}
			}
		}
	}
	sum := sha256.Sum256(b)
	cfg.Path, cfg.Dir, cfg.SHA256 = path, filepath.Dir(path), hex.EncodeToString(sum[:])
	at := func(line int, format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", path, line, fmt.Sprintf(format, args...))
	}
	if cfg.Demo == (len(cfg.Inputs) > 0) {
		return nil, fmt.Errorf("%s: want either inputs (paths relative to the config) or demo: true", path)
	}
	if in := cfg.Input; cfg.Demo && (in.Benchmark != "" || in.Tasks != "" || in.Reader != "" || len(in.Map) > 0 || in.Strict) {
		return nil, fmt.Errorf("%s: demo: true reads the embedded demo study as it is: input may only hold where", path)
	}
	if cfg.CI != nil && !(*cfg.CI > 0 && *cfg.CI < 1) {
		return nil, fmt.Errorf("%s: ci %v: want a level between 0 and 1, e.g. 0.95", path, *cfg.CI)
	}
	if cfg.Boot != nil && *cfg.Boot < 0 {
		return nil, fmt.Errorf("%s: boot %d: want 0 (no intervals) or more replicates", path, *cfg.Boot)
	}
	if len(cfg.Formats) == 0 {
		cfg.Formats = []string{"svg"}
	}
	seenF := map[string]bool{}
	for _, f := range cfg.Formats {
		if f != "svg" && f != "png" && f != "pdf" {
			return nil, fmt.Errorf("%s: formats: %q: want svg, png or pdf", path, f)
		}
		if seenF[f] {
			return nil, fmt.Errorf("%s: formats: %q twice", path, f)
		}
		seenF[f] = true
	}
	for _, a := range sortedKeys(cfg.Colors) {
		if _, err := figures.ParseHexColor(cfg.Colors[a]); err != nil {
			return nil, fmt.Errorf("%s: colors: %s: %v", path, a, err)
		}
	}
	if len(cfg.Figures) == 0 {
		return nil, fmt.Errorf("%s: figures: none; name at least one (types: %s)", path, strings.Join(KindNames(), ", "))
	}
	ids := map[string]int{}
	for i := range cfg.Figures {
		f := &cfg.Figures[i]
		if !idRE().MatchString(f.ID) {
			return nil, at(f.line, "figure %d: id %q: want letters, digits, _ or - (the output file's name)", i+1, f.ID)
		}
		if l, ok := ids[f.ID]; ok {
			return nil, at(f.line, "figure id %q is already used on line %d", f.ID, l)
		}
		ids[f.ID] = f.line
		k, ok := kinds[f.Type]
		if !ok {
			return nil, at(f.line, "figure %q: type %q: want one of %s", f.ID, f.Type, strings.Join(KindNames(), ", "))
		}
		if f.Width != "" && f.Width != "one" && f.Width != "two" {
			return nil, at(f.line, "figure %q: width %q: want one or two (columns)", f.ID, f.Width)
		}
		if f.XMin != nil && f.XMax != nil && !(*f.XMin < *f.XMax) || f.YMin != nil && f.YMax != nil && !(*f.YMin < *f.YMax) {
			return nil, at(f.line, "figure %q: axis limits: want x_min < x_max and y_min < y_max", f.ID)
		}
		if f.Boot != nil && *f.Boot < 0 {
			return nil, at(f.line, "figure %q: boot %d: want 0 or more", f.ID, *f.Boot)
		}
		if _, err := decodeOptions(f, k); err != nil {
			return nil, fmt.Errorf("%s:%w", path, err)
		}
	}
	return &cfg, nil
}

// decodeOptions decodes a figure's options into a fresh value of its
// kind's options struct, rejecting keys the struct does not have.
func decodeOptions(f *Figure, k kind) (any, error) {
	v := reflect.New(reflect.TypeOf(k.options).Elem())
	if f.Options.Kind == 0 {
		return v.Interface(), nil
	}
	if f.Options.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%d: figure %q: options: want a map of option: value", f.Options.Line, f.ID)
	}
	allowed := optionNames(k.options)
	for i := 0; i+1 < len(f.Options.Content); i += 2 {
		key := f.Options.Content[i]
		if !contains(allowed, key.Value) {
			list := "none"
			if len(allowed) > 0 {
				list = strings.Join(allowed, ", ")
			}
			return nil, fmt.Errorf("%d: figure %q (type %s): unknown option %q (options: %s)", key.Line, f.ID, f.Type, key.Value, list)
		}
	}
	if err := f.Options.Decode(v.Interface()); err != nil {
		return nil, fmt.Errorf("%d: figure %q: options: %s", f.Options.Line, f.ID, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	return v.Interface(), nil
}

// optionNames lists the yaml keys of an options struct pointer, those of
// inline embedded structs included.
func optionNames(opts any) []string {
	var out []string
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, flags, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			switch {
			case flags == "inline" && f.Type.Kind() == reflect.Struct:
				walk(f.Type)
			case name != "" && name != "-":
				out = append(out, name)
			}
		}
	}
	walk(reflect.TypeOf(opts).Elem())
	sort.Strings(out)
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Resolve is p relative to the config file (absolute paths as they are).
func (c *Config) Resolve(p string) string { return c.resolve(p) }

// resolve makes a path of the config relative to the working directory.
func (c *Config) resolve(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(c.Dir, p)
}

// seed, boot and ci of a figure: its own, else the config's, else the default.
func (c *Config) seed(f *Figure) uint64 {
	switch {
	case f.Seed != nil:
		return *f.Seed
	case c.Seed != nil:
		return *c.Seed
	}
	return DefaultSeed
}

func (c *Config) boot(f *Figure) int {
	switch {
	case f.Boot != nil:
		return *f.Boot
	case c.Boot != nil:
		return *c.Boot
	}
	return DefaultBoot
}

func (c *Config) ci() float64 {
	if c.CI != nil {
		return *c.CI
	}
	return DefaultCI
}
